/* fcgi.c -- see fcgi.h. The protocol is FastCGI 1.0, responder role only. */
#include "autoconfig.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <jansson.h>

#include "config.h"
#include "events.h"
#include "fcgi.h"
#include "fcgiproto.h"
#include "reqresp.h"
#include "limits.h"
#include "log.h"
#include "loop.h"
#include "router.h"
#include "util.h"

enum req_state { R_PARAMS, R_STDIN, R_WAITING, R_STREAMING, R_ANSWERED };

struct conn;

/*
 * One request: the router's view of it plus its place on a connection. Only the loop thread
 * touches it, except the fields marked "f->lock", which complete() and the event wake also use.
 */
struct req {
	struct rr_req rr;
	struct fcgi *f;
	struct conn *c; /* NULL once orphaned: the connection is gone but complete() has not come yet */
	struct req *next; /* on c->reqs */
	uint16_t id;
	int keep_conn;
	enum req_state state;
	struct buf params; /* the raw FCGI_PARAMS stream */
	struct fcgiproto_params pp; /* parsed, at the end of FCGI_PARAMS */
	struct buf body;
	int params_too_large;
	int body_too_large;
	int bad;     /* no method or no path: answered 400 at the end */
	int refused; /* Host, Origin or token said no after PARAMS: the body is not kept */
	char *path;
	struct events_sub *sub; /* while R_STREAMING */
	int dropped;            /* done with, but still on the queue: freed when popped */
	struct rr_resp *taken; /* the completion, moved out of resp when popped */
	/* f->lock: */
	struct rr_resp *resp;
	int queued;
	struct req *qnext;
};

/* One connection from the web server. */
struct conn {
	struct conn *next;
	int fd;
	struct buf in;
	struct buf out;
	size_t out_off;
	struct req *reqs;
	int close_after; /* a request without FCGI_KEEP_CONN was answered: close once out is sent */
	int64_t last_active; /* last read */
	int64_t last_write;  /* last time out was empty or a write made progress */
	uint32_t watching;   /* the epoll events asked for */
};

struct fcgi {
	struct router *router;
	struct events *events;
	size_t max_body;
	int max_conns; /* BB_FCGI_MAX_CONNECTIONS, or fewer where descriptors are scarce */
	int lfd;
	int epfd; /* the listener and every connection: the event loop watches it */
	struct loop_source *src;
	char *unix_path; /* NULL for TCP */
	dev_t sock_dev;
	ino_t sock_ino;
	atomic_int stopping;
	atomic_int ran;  /* the loop has run us at least once */
	atomic_int done; /* stopped: every connection closed, nothing more will run */
	int64_t stop_deadline;
	int listening; /* lfd is in epfd */
	/* Loop thread only: */
	struct conn *conns;
	int n_conns;
	int n_reqs;    /* live requests, orphans included */
	int n_waiting; /* routed, completion not yet taken */
	int n_streams;
	int full_logged;
	int64_t accept_paused_until;
	char *rbuf;
	/* Guarded by lock: the completion queue. */
	pthread_mutex_t lock;
	struct req *qhead;
	struct req **qtail;
	int loop_gone; /* freed with requests still waiting: a late completion must not kick the loop */
};

/* Length of what is queued towards a connection but not yet written. */
static size_t
out_pending(const struct conn *c)
{
	return c->out.len - c->out_off;
}

/* rr_req accessor: a request header, from its CGI variable (Mcp-Session-Id is HTTP_MCP_SESSION_ID). */
static const char *
get_header(struct rr_req *rr, const char *name)
{
	struct req *r = container_of(rr, struct req, rr);
	return fcgiproto_header(&r->pp, name);
}

/* rr_req accessor: a query-string argument, URL-decoded; the first one wins, as with MHD. */
static const char *
get_query(struct rr_req *rr, const char *name)
{
	struct req *r = container_of(rr, struct req, rr);
	return fcgiproto_query(&r->pp, name);
}

/* Queue a request for the loop and kick our source; caller holds f->lock. loop_kick is a flag
 * and, off the loop thread, one lws_cancel_service: the same wakeup the HTTP listener uses. */
static void
enqueue_locked(struct fcgi *f, struct req *r)
{
	if (!r->queued) {
		r->queued = 1;
		r->qnext = NULL;
		*f->qtail = r;
		f->qtail = &r->qnext;
	}
	if (!f->loop_gone)
		loop_kick(f->src);
}

/* rr_req completion: any thread, exactly once, possibly inside router_handle. The loop sends it. */
static void
complete(struct rr_req *rr, struct rr_resp *resp)
{
	struct req *r = container_of(rr, struct req, rr);
	struct fcgi *f = r->f;
	pthread_mutex_lock(&f->lock);
	r->resp = resp;
	enqueue_locked(f, r);
	pthread_mutex_unlock(&f->lock);
}

/* Events wake (called under the events lock): a stream has data or ended; let the loop read it. */
static void
sse_wake(void *arg)
{
	struct req *r = arg;
	pthread_mutex_lock(&r->f->lock);
	enqueue_locked(r->f, r);
	pthread_mutex_unlock(&r->f->lock);
}

/* A new request on a connection (FCGI_BEGIN_REQUEST). */
static struct req *
req_create(struct fcgi *f, struct conn *c, uint16_t id, int keep_conn)
{
	struct req *r = xcalloc(1, sizeof *r);
	r->f = f;
	r->c = c;
	r->id = id;
	r->keep_conn = keep_conn;
	r->state = R_PARAMS;
	r->rr.header = get_header;
	r->rr.query = get_query;
	r->rr.complete = complete;
	r->rr.own_port = 0; /* Host must be one of allow_hosts: the web server's address */
	r->rr.can_stream = 1;
	r->next = c->reqs;
	c->reqs = r;
	f->n_reqs++;
	return r;
}

/* Free a response the connection will never send (its stream too). NULL is fine. */
static void
resp_discard(struct fcgi *f, struct rr_resp *resp)
{
	if (resp != NULL && resp->stream != NULL)
		events_unsubscribe(f->events, resp->stream);
	rr_resp_free(resp);
}

/* Free a request. NULL is fine. Only when it is on no list and nothing can complete it any more. */
static void
req_free(struct req *r)
{
	if (r == NULL)
		return;
	r->f->n_reqs--;
	resp_discard(r->f, r->taken);
	buf_free(&r->params);
	buf_free(&r->body);
	fcgiproto_params_free(&r->pp);
	free(r->path);
	free(r);
}

/* Done with a request: free it now, or when it is popped if a wake left it on the queue. */
static void
req_drop(struct req *r)
{
	struct fcgi *f = r->f;
	pthread_mutex_lock(&f->lock);
	int queued = r->queued;
	if (queued)
		r->dropped = 1;
	pthread_mutex_unlock(&f->lock);
	if (!queued)
		req_free(r);
}

/* Take a request off its connection's list. */
static void
req_unlink(struct req *r)
{
	for (struct req **pp = &r->c->reqs; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	}
	r->next = NULL;
}

/* The connection no longer has this request: end its stream, or orphan it if a call still waits. */
static void
req_detach(struct req *r)
{
	struct fcgi *f = r->f;
	req_unlink(r);
	r->c = NULL;
	if (r->state == R_WAITING)
		return; /* complete() will still come: the loop frees it then */
	if (r->state == R_STREAMING) {
		events_unsubscribe(f->events, r->sub); /* no wake can run after this returns */
		r->sub = NULL;
		f->n_streams--;
	}
	req_drop(r);
}

/* Find an active request by id on a connection. */
static struct req *
req_find(struct conn *c, uint16_t id)
{
	for (struct req *r = c->reqs; r != NULL; r = r->next)
		if (r->id == id)
			return r;
	return NULL;
}

/* Finish a request whose END_REQUEST is queued; without FCGI_KEEP_CONN the connection goes too. */
static void
req_finish(struct req *r)
{
	struct conn *c = r->c;
	if (!r->keep_conn)
		c->close_after = 1;
	req_detach(r);
}

/* Close a connection; its waiting calls become orphans that the loop frees when they complete. */
static void
conn_close(struct fcgi *f, struct conn *c)
{
	while (c->reqs != NULL)
		req_detach(c->reqs);
	for (struct conn **pp = &f->conns; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	epoll_ctl(f->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	buf_free(&c->in);
	buf_free(&c->out);
	free(c);
	f->n_conns--;
}

/* rr_security_headers callback: one CGI header line. */
static void
add_header(void *arg, const char *name, const char *value)
{
	buf_printf(arg, "%s: %s\r\n", name, value);
}

/* Send the router's response as CGI headers and body; a stream starts reading events instead. */
static void
send_resp(struct fcgi *f, struct req *r, struct rr_resp *resp)
{
	struct conn *c = r->c;
	struct buf h = {0};
	buf_printf(&h, "Status: %d\r\nContent-Type: %s\r\n", resp->status, resp->content_type);
	rr_security_headers(r->path, add_header, &h);
	if (resp->set_cookie)
		buf_printf(&h, "Set-Cookie: %s\r\n", resp->set_cookie);
	if (resp->location)
		buf_printf(&h, "Location: %s\r\n", resp->location);
	if (resp->extra_name)
		buf_printf(&h, "%s: %s\r\n", resp->extra_name, resp->extra_value);
	if (resp->stream != NULL) {
		buf_adds(&h, "X-Accel-Buffering: no\r\n\r\n");
		fcgiproto_put_stdout(&c->out, r->id, h.data, h.len);
		buf_free(&h);
		r->state = R_STREAMING;
		r->sub = resp->stream;
		resp->stream = NULL;
		f->n_streams++;
		rr_resp_free(resp);
		events_set_wake(f->events, r->sub, sse_wake, r); /* wakes once: the first read queues the hello */
		return;
	}
	rr_resp_render(resp);
	buf_printf(&h, "Content-Length: %zu\r\n\r\n", resp->len);
	fcgiproto_put_stdout(&c->out, r->id, h.data, h.len);
	fcgiproto_put_stdout(&c->out, r->id, resp->body, resp->len);
	fcgiproto_put_end(&c->out, r->id, 1, FCGI_REQUEST_COMPLETE);
	buf_free(&h);
	rr_resp_free(resp);
	r->state = R_ANSWERED;
	req_finish(r);
}

/* Copy what a stream has queued into the connection, until it would hold too much; end it when it ended. */
static void
pump(struct fcgi *f, struct req *r)
{
	char tmp[16384];
	struct conn *c = r->c;
	while (out_pending(c) < BB_FCGI_OUT_HIGH) {
		long n = events_read(f->events, r->sub, tmp, sizeof tmp);
		if (n == 0)
			return;
		if (n < 0) {
			fcgiproto_put_end(&c->out, r->id, 1, FCGI_REQUEST_COMPLETE);
			req_finish(r);
			return;
		}
		fcgiproto_put_stdout(&c->out, r->id, tmp, (size_t)n);
	}
}

/* Handle queued completions and stream wakes one at a time: another thread may queue one again meanwhile. */
static void
drain_queue(struct fcgi *f)
{
	for (;;) {
		pthread_mutex_lock(&f->lock);
		struct req *r = f->qhead;
		if (r == NULL) {
			pthread_mutex_unlock(&f->lock);
			return;
		}
		f->qhead = r->qnext;
		if (f->qhead == NULL)
			f->qtail = &f->qhead;
		r->queued = 0;
		if (r->resp != NULL) {
			r->taken = r->resp;
			r->resp = NULL;
		}
		pthread_mutex_unlock(&f->lock);
		if (r->dropped) {
			req_free(r);
		} else if (r->state == R_WAITING && r->taken != NULL) {
			struct rr_resp *resp = r->taken;
			r->taken = NULL;
			f->n_waiting--;
			if (r->c == NULL) {
				log_debug("fastcgi: a call finished after its connection closed; dropping the answer");
				resp_discard(f, resp);
				req_free(r);
			} else {
				send_resp(f, r, resp);
			}
		} else if (r->state == R_STREAMING && r->c != NULL) {
			pump(f, r);
		}
	}
}

/* Answer a request before the router sees it (431, 413, 400), through the usual completion path. */
static void
fail_early(struct req *r, int status, const char *code, const char *msg)
{
	r->rr.complete(&r->rr, rr_error(status, code, msg));
}

/* The params are in (end of FCGI_PARAMS): build the router's view of the request line and headers,
 * and let the router decide on Host, Origin and token before any body arrives. */
static void
prepare(struct fcgi *f, struct req *r)
{
	const char *m = fcgiproto_param(&r->pp, "REQUEST_METHOD");
	r->path = fcgiproto_path(&r->pp);
	if (m == NULL || *m == '\0' || r->path[0] != '/') {
		r->bad = 1;
		return;
	}
	r->rr.method = m;
	r->rr.path = r->path;
	if (!router_allows(f->router, &r->rr))
		r->refused = 1;
}

/* The whole request is in (end of STDIN): route it (a refused one with no body, to say why). */
static void
dispatch(struct fcgi *f, struct req *r)
{
	r->state = R_WAITING;
	f->n_waiting++;
	if (r->params_too_large) {
		fail_early(r, 431, "too_large", "the request headers are larger than the FastCGI params limit");
		return;
	}
	if (r->bad) {
		fail_early(r, 400, "bad_request", "the web server sent no REQUEST_METHOD or no request path");
		return;
	}
	if (r->body_too_large && !r->refused) {
		fail_early(r, 413, "too_large", "the request body is larger than max_body_bytes");
		return;
	}
	r->rr.body = r->body.data ? r->body.data : "";
	r->rr.body_len = r->body.len;
	log_debug("fastcgi: %s %s", r->rr.method, r->path);
	router_handle(f->router, &r->rr);
}

/* Handle one whole record; -1 (with *why) when it breaks the protocol and the connection must go. */
static int
handle_record(struct fcgi *f, struct conn *c, int type, uint16_t id, const unsigned char *p, size_t len,
              const char **why)
{
	struct req *r;
	if (id == 0 && type == FCGI_GET_VALUES) {
		*why = "malformed FCGI_GET_VALUES";
		return fcgiproto_get_values(p, len, f->max_conns, BB_FCGI_MAX_REQUESTS, &c->out);
	}
	switch (id == 0 ? -1 : type) {
	case FCGI_BEGIN_REQUEST: {
		if (len != 8) {
			*why = "FCGI_BEGIN_REQUEST of the wrong length";
			return -1;
		}
		if (req_find(c, id) != NULL) {
			*why = "FCGI_BEGIN_REQUEST for a request id already in use";
			return -1;
		}
		int role = (p[0] << 8) | p[1], keep = p[2] & FCGI_KEEP_CONN;
		if (role != FCGI_RESPONDER || f->n_reqs >= BB_FCGI_MAX_REQUESTS) {
			if (role == FCGI_RESPONDER)
				log_warn("fastcgi: %d requests in progress; refusing more (FCGI_OVERLOADED)", f->n_reqs);
			fcgiproto_put_end(&c->out, id, 0, role != FCGI_RESPONDER ? FCGI_UNKNOWN_ROLE : FCGI_OVERLOADED);
			if (!keep)
				c->close_after = 1;
			return 0;
		}
		req_create(f, c, id, keep);
		return 0;
	}
	case FCGI_ABORT_REQUEST:
		if ((r = req_find(c, id)) == NULL)
			return 0;
		log_debug("fastcgi: request %u aborted by the web server", (unsigned)id);
		fcgiproto_put_end(&c->out, id, r->state == R_STREAMING, FCGI_REQUEST_COMPLETE);
		req_finish(r);
		return 0;
	case FCGI_PARAMS:
		if ((r = req_find(c, id)) == NULL || r->state != R_PARAMS)
			return 0; /* records for inactive ids are ignored */
		if (len == 0) {
			r->state = R_STDIN;
			if (r->params_too_large) {
				buf_free(&r->params);
				return 0;
			}
			int bad = fcgiproto_params_parse(&r->pp, (const unsigned char *)r->params.data, r->params.len);
			buf_free(&r->params);
			if (bad != 0) {
				*why = "malformed FCGI_PARAMS";
				return -1;
			}
			long cl;
			const char *cls = fcgiproto_param(&r->pp, "CONTENT_LENGTH");
			if (cls != NULL && *cls != '\0' &&
			    (util_parse_long(cls, 0, 1L << 40, &cl) != 0 || (size_t)cl > f->max_body))
				r->body_too_large = 1;
			prepare(f, r);
		} else if (r->params.len + len > BB_FCGI_MAX_PARAMS_BYTES) {
			if (!r->params_too_large)
				log_info("fastcgi: request params over %u bytes; answering 431", BB_FCGI_MAX_PARAMS_BYTES);
			r->params_too_large = 1;
			buf_free(&r->params);
		} else if (!r->params_too_large) {
			buf_add(&r->params, p, len);
		}
		return 0;
	case FCGI_STDIN:
		if ((r = req_find(c, id)) == NULL || r->state != R_STDIN)
			return 0;
		if (len == 0) {
			dispatch(f, r);
		} else if (r->refused || r->bad) {
			/* not kept: the answer does not depend on it */
		} else if (r->body.len + len > f->max_body) {
			r->body_too_large = 1;
			buf_free(&r->body);
		} else if (!r->body_too_large) {
			buf_add(&r->body, p, len);
		}
		return 0;
	case FCGI_DATA:
		return 0; /* only the filter role reads it */
	default: {
		unsigned char b[8] = {(unsigned char)type, 0, 0, 0, 0, 0, 0, 0};
		fcgiproto_put_record(&c->out, FCGI_UNKNOWN_TYPE, 0, b, sizeof b);
		return 0;
	}
	}
}

/* Read what the connection has and handle every whole record; -1 when it must be closed. */
static int
conn_read(struct fcgi *f, struct conn *c)
{
	ssize_t n = recv(c->fd, f->rbuf, 65536, 0);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return 0;
	if (n <= 0)
		return -1; /* the web server hung up (or the socket failed) */
	c->last_active = util_mono_ms();
	buf_add(&c->in, f->rbuf, (size_t)n);
	const unsigned char *p = (const unsigned char *)c->in.data;
	size_t off = 0;
	struct fcgiproto_record rec;
	int got;
	while ((got = fcgiproto_next_record(p + off, c->in.len - off, &rec)) > 0) {
		const char *why = NULL;
		if (handle_record(f, c, rec.type, rec.id, rec.content, rec.len, &why) != 0) {
			log_warn("fastcgi: closing a connection: %s", why);
			return -1;
		}
		off += rec.size;
	}
	if (got < 0) {
		log_warn("fastcgi: closing a connection: protocol version %d, not 1", p[off]);
		return -1;
	}
	memmove(c->in.data, c->in.data + off, c->in.len - off);
	c->in.len -= off;
	return 0;
}

/* Write what is queued towards a connection; -1 when the socket failed. */
static int
conn_flush(struct conn *c)
{
	while (out_pending(c) > 0) {
		ssize_t n = send(c->fd, c->out.data + c->out_off, out_pending(c), MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n < 0)
			return -1;
		c->out_off += (size_t)n;
		c->last_write = util_mono_ms();
	}
	if (c->out_off == c->out.len) {
		c->out.len = c->out_off = 0;
		c->last_write = util_mono_ms();
	} else if (c->out_off > 65536) {
		memmove(c->out.data, c->out.data + c->out_off, out_pending(c));
		c->out.len -= c->out_off;
		c->out_off = 0;
	}
	return 0;
}

/* True while a call or a stream on the connection waits: such connections never time out. */
static int
conn_parked(const struct conn *c)
{
	for (const struct req *r = c->reqs; r != NULL; r = r->next)
		if (r->state == R_WAITING || r->state == R_STREAMING)
			return 1;
	return 0;
}

/* Ask epoll for what a connection can take now: reads while its output is below the high mark (and
 * it is not closing), writes while output is pending. */
static void
conn_watch(struct fcgi *f, struct conn *c)
{
	uint32_t ev = 0;
	if (out_pending(c) < BB_FCGI_OUT_HIGH && !c->close_after)
		ev |= EPOLLIN;
	if (out_pending(c) > 0)
		ev |= EPOLLOUT;
	if (ev == c->watching)
		return;
	struct epoll_event ee = {.events = ev, .data.ptr = c};
	epoll_ctl(f->epfd, EPOLL_CTL_MOD, c->fd, &ee);
	c->watching = ev;
}

/* Watch the listener only while we accept: at the limit (or after EMFILE) new connections wait in
 * the kernel's backlog, not in our memory. */
static void
listener_watch(struct fcgi *f, int64_t now)
{
	int want = f->lfd >= 0 && f->n_conns < f->max_conns && now >= f->accept_paused_until;
	if (want == f->listening)
		return;
	struct epoll_event ee = {.events = EPOLLIN, .data.ptr = NULL};
	epoll_ctl(f->epfd, want ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, f->lfd, &ee);
	f->listening = want;
}

/* Accept what is waiting, up to the connection limit (the rest stays in the kernel's backlog). */
static void
accept_all(struct fcgi *f)
{
	while (f->n_conns < f->max_conns) {
		int fd = accept4(f->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
				log_warn("fastcgi: cannot accept: %s; pausing for a second", strerror(errno));
				f->accept_paused_until = util_mono_ms() + 1000;
			}
			return;
		}
		struct conn *c = xcalloc(1, sizeof *c);
		c->fd = fd;
		c->last_active = c->last_write = util_mono_ms();
		c->watching = EPOLLIN;
		struct epoll_event ee = {.events = EPOLLIN, .data.ptr = c};
		if (epoll_ctl(f->epfd, EPOLL_CTL_ADD, fd, &ee) != 0) {
			log_warn("fastcgi: cannot watch a new connection: %s", strerror(errno));
			close(fd);
			free(c);
			return;
		}
		c->next = f->conns;
		f->conns = c;
		f->n_conns++;
	}
	if (!f->full_logged) {
		log_warn("fastcgi: %d connections open; new ones wait in the listen queue", f->n_conns);
		f->full_logged = 1;
	}
}

/* Whether a connection is still in our list (an earlier event of this run may have closed it). */
static int
conn_live(const struct fcgi *f, const struct conn *c)
{
	for (const struct conn *x = f->conns; x != NULL; x = x->next)
		if (x == c)
			return 1;
	return 0;
}

/* Shutting down: stop accepting, and report whether answers are still on their way (for at most
 * two seconds); once not, close everything and say we are done. */
static int
stop_step(struct fcgi *f, int64_t now)
{
	if (f->stop_deadline == 0) {
		f->stop_deadline = now + 2000;
		if (f->listening)
			epoll_ctl(f->epfd, EPOLL_CTL_DEL, f->lfd, NULL);
		f->listening = 0;
		close(f->lfd);
		f->lfd = -1;
	}
	int busy = f->n_waiting > 0 || f->n_streams > 0;
	for (struct conn *c = f->conns; c != NULL && !busy; c = c->next)
		busy = out_pending(c) > 0;
	if (busy && now < f->stop_deadline)
		return 1;
	while (f->conns != NULL)
		conn_close(f, f->conns);
	drain_queue(f);
	atomic_store(&f->done, 1);
	return 0;
}

/* The event loop's run function: serve ready connections, send completions, enforce the idle
 * timeouts; the delay until the next timeout check. */
static long
fcgi_run(void *arg)
{
	struct fcgi *f = arg;
	struct epoll_event evs[64];
	atomic_store(&f->ran, 1);
	if (atomic_load(&f->done))
		return -1;
	int n = epoll_wait(f->epfd, evs, 64, 0);
	for (int i = 0; i < n; i++) {
		struct conn *c = evs[i].data.ptr;
		if (c == NULL) {
			accept_all(f);
		} else if (conn_live(f, c) && (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && conn_read(f, c) != 0) {
			conn_close(f, c); /* writes happen below, for every connection */
		}
	}
	drain_queue(f);
	int64_t now = util_mono_ms();
	for (struct conn *c = f->conns, *next; c != NULL; c = next) {
		next = c->next;
		size_t before = out_pending(c);
		if (conn_flush(c) != 0 || (c->close_after && out_pending(c) == 0)) {
			conn_close(f, c);
			continue;
		}
		if (before >= BB_FCGI_OUT_HIGH && out_pending(c) < BB_FCGI_OUT_HIGH) {
			pthread_mutex_lock(&f->lock); /* let paused streams read on */
			for (struct req *r = c->reqs; r != NULL; r = r->next)
				if (r->state == R_STREAMING)
					enqueue_locked(f, r);
			pthread_mutex_unlock(&f->lock);
		}
		if (out_pending(c) > 0 && now - c->last_write > BB_FCGI_IDLE_TIMEOUT_S * 1000) {
			log_info("fastcgi: closing a connection whose peer has read nothing for %d s", BB_FCGI_IDLE_TIMEOUT_S);
			conn_close(f, c);
		} else if (!conn_parked(c) && out_pending(c) == 0 && now - c->last_active > BB_FCGI_IDLE_TIMEOUT_S * 1000) {
			log_debug("fastcgi: closing an idle connection");
			conn_close(f, c);
		} else {
			conn_watch(f, c);
		}
	}
	if (atomic_load(&f->stopping))
		return stop_step(f, now) ? 10 : -1;
	if (f->n_conns < f->max_conns)
		f->full_logged = 0;
	listener_watch(f, now);
	if (f->accept_paused_until > now)
		return (long)(f->accept_paused_until - now);
	return f->conns != NULL ? 1000 : -1; /* idle timeouts are checked once a second */
}

/* Bind the Unix socket, mode 0600, replacing a stale one but never a live one or another file. */
static int
listen_unix(struct fcgi *f, const char *path, char **err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct stat st;
	if (*path == '\0' || strlen(path) >= sizeof sa.sun_path) {
		*err = xasprintf("fastcgi: the socket path must be 1 to %zu bytes", sizeof sa.sun_path - 1);
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			*err = xasprintf("fastcgi: %s exists and is not a socket; not replacing it", path);
			return -1;
		}
		int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		int rc = probe < 0 ? -1 : connect(probe, (struct sockaddr *)&sa, sizeof sa);
		int e = errno;
		if (probe >= 0)
			close(probe);
		if (rc == 0 || e == EAGAIN || e == EINPROGRESS) {
			*err = xasprintf("fastcgi: %s is in use by another process", path);
			return -1;
		}
		if (e != ECONNREFUSED && e != ENOENT) {
			*err = xasprintf("fastcgi: cannot check the old socket %s: %s", path, strerror(e));
			return -1;
		}
		log_info("fastcgi: removing the stale socket %s", path);
		unlink(path);
	}
	f->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (f->lfd < 0) {
		*err = xasprintf("fastcgi: socket: %s", strerror(errno));
		return -1;
	}
	mode_t old = umask(0177); /* the socket is born 0600: only our user may connect */
	int rc = bind(f->lfd, (struct sockaddr *)&sa, sizeof sa);
	int e = errno;
	umask(old);
	if (rc != 0) {
		*err = xasprintf("fastcgi: cannot bind %s: %s", path, strerror(e));
		return -1;
	}
	f->unix_path = xstrdup(path);
	if (lstat(path, &st) == 0) {
		f->sock_dev = st.st_dev;
		f->sock_ino = st.st_ino;
	}
	if (listen(f->lfd, BB_FCGI_BACKLOG) != 0) {
		*err = xasprintf("fastcgi: cannot listen on %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Bind a loopback TCP address (config_set already refused any other). */
static int
listen_tcp(struct fcgi *f, const char *spec, char **err)
{
	char host[64];
	int port, one = 1;
	struct sockaddr_storage ss;
	socklen_t sl;
	memset(&ss, 0, sizeof ss);
	if (util_parse_hostport(spec, host, sizeof host, &port) != 0 || !util_is_loopback(host)) {
		*err = xasprintf("fastcgi: expected unix:/path or a loopback ADDR:PORT, got \"%s\"", spec);
		return -1;
	}
	if (strchr(host, ':')) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		inet_pton(AF_INET6, host, &a->sin6_addr);
		sl = sizeof *a;
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		inet_pton(AF_INET, host, &a->sin_addr);
		sl = sizeof *a;
	}
	f->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (f->lfd < 0) {
		*err = xasprintf("fastcgi: socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(f->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(f->lfd, (struct sockaddr *)&ss, sl) != 0 || listen(f->lfd, BB_FCGI_BACKLOG) != 0) {
		*err = xasprintf("fastcgi: cannot listen on %s: %s", spec, strerror(errno));
		return -1;
	}
	return 0;
}

/* Remove our socket file, unless something else has replaced it meanwhile. */
static void
unlink_ours(struct fcgi *f)
{
	struct stat st;
	if (f->unix_path != NULL && lstat(f->unix_path, &st) == 0 && S_ISSOCK(st.st_mode) &&
	    st.st_dev == f->sock_dev && st.st_ino == f->sock_ino)
		unlink(f->unix_path);
}

/* Free what fcgi_start made (the loop no longer runs us). */
static void
free_all(struct fcgi *f)
{
	while (f->conns != NULL)
		conn_close(f, f->conns);
	if (f->lfd >= 0)
		close(f->lfd);
	unlink_ours(f);
	if (f->epfd >= 0)
		close(f->epfd);
	pthread_mutex_destroy(&f->lock);
	free(f->unix_path);
	free(f->rbuf);
	free(f);
}

/* Connections served at once: a quarter of the descriptors left after the reserve (HTTP takes
 * half), so a flood of web-server connections never takes what the rest of the daemon needs. */
static int
connection_limit(void)
{
	struct rlimit rl;
	long cap = BB_FCGI_MAX_CONNECTIONS;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		long fit = ((long)rl.rlim_cur - BB_FD_RESERVE) / 4;
		if (fit < cap)
			cap = fit;
	}
	return cap < BB_FCGI_MIN_CONNECTIONS ? BB_FCGI_MIN_CONNECTIONS : (int)cap;
}

/* Listen on cfg->fastcgi (unix:PATH or a loopback ADDR:PORT); fcgi_attach puts it on the loop. */
struct fcgi *
fcgi_start(const struct config *cfg, struct router *router, char **err)
{
	struct fcgi *f = xcalloc(1, sizeof *f);
	f->router = router;
	f->events = router_events(router);
	f->max_body = cfg->max_body_bytes;
	f->max_conns = connection_limit();
	f->lfd = -1;
	f->qtail = &f->qhead;
	f->rbuf = xmalloc(65536);
	pthread_mutex_init(&f->lock, NULL);
	if ((f->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0) {
		*err = xasprintf("fastcgi: epoll: %s", strerror(errno));
		goto fail;
	}
	const char *spec = cfg->fastcgi;
	if ((strncmp(spec, "unix:", 5) == 0 ? listen_unix(f, spec + 5, err) : listen_tcp(f, spec, err)) != 0)
		goto fail;
	listener_watch(f, util_mono_ms());
	return f;
fail:
	free_all(f);
	return NULL;
}

/* Serve on the event loop, watching our epoll descriptor (main thread, before loop_start). */
void
fcgi_attach(struct fcgi *f, struct loop *loop)
{
	f->src = loop_add_source(loop, f->epfd, fcgi_run, f);
}

/* Stop accepting and give answers up to two seconds to go out, while the loop runs. NULL is fine. */
void
fcgi_stop(struct fcgi *f)
{
	if (f == NULL || f->src == NULL)
		return;
	atomic_store(&f->stopping, 1);
	loop_kick(f->src);
	/* Bounded: the loop ends it within two seconds; a loop that never ran us never will. */
	for (int i = 0; i < 300 && atomic_load(&f->ran) && !atomic_load(&f->done); i++) {
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

/* Close what is left and free, after loop_stop. NULL is fine. */
void
fcgi_free(struct fcgi *f)
{
	if (f == NULL)
		return;
	pthread_mutex_lock(&f->lock);
	int waiting = f->n_reqs;
	f->loop_gone = 1;
	pthread_mutex_unlock(&f->lock);
	if (waiting > 0) {
		/* A call nobody answered still holds a pointer to its request: keep the memory, not a crash. */
		log_warn("fastcgi: %d calls were still waiting at shutdown; leaving their memory", waiting);
		unlink_ours(f);
		return;
	}
	free_all(f);
}
