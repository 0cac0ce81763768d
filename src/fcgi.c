/* fcgi.c -- see fcgi.h. The protocol is FastCGI 1.0, responder role only. */
#include "autoconfig.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <jansson.h>

#include "config.h"
#include "events.h"
#include "fcgi.h"
#include "limits.h"
#include "log.h"
#include "router.h"
#include "util.h"

/* Record types, the role, the flag and the protocol statuses we use (FastCGI 1.0). */
#define FCGI_BEGIN_REQUEST 1
#define FCGI_ABORT_REQUEST 2
#define FCGI_END_REQUEST 3
#define FCGI_PARAMS 4
#define FCGI_STDIN 5
#define FCGI_STDOUT 6
#define FCGI_DATA 8
#define FCGI_GET_VALUES 9
#define FCGI_GET_VALUES_RESULT 10
#define FCGI_UNKNOWN_TYPE 11
#define FCGI_RESPONDER 1
#define FCGI_KEEP_CONN 1
#define FCGI_REQUEST_COMPLETE 0
#define FCGI_OVERLOADED 2
#define FCGI_UNKNOWN_ROLE 3
#define FCGI_HEADER_LEN 8
#define FCGI_CHUNK 32768 /* body bytes per STDOUT record we write (the format allows 65535) */

#define CSP "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; " \
	    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

enum req_state { R_PARAMS, R_STDIN, R_WAITING, R_STREAMING, R_ANSWERED };

struct conn;

/*
 * One request: the router's view of it plus its place on a connection. Only the responder thread
 * touches it, except the fields marked "f->lock", which complete() and the event wake also use.
 */
struct req {
	struct rtr_req rr;
	struct fcgi *f;
	struct conn *c; /* NULL once orphaned: the connection is gone but complete() has not come yet */
	struct req *next; /* on c->reqs */
	uint16_t id;
	int keep_conn;
	enum req_state state;
	struct buf params; /* the raw FCGI_PARAMS stream */
	char *kv_text;     /* the parsed params: NUL-terminated names and values */
	char **kv;         /* name, value, name, value, ... into kv_text */
	size_t n_kv;
	char *q_text; /* the query string, split and URL-decoded in place */
	char **qkv;
	size_t n_qkv;
	struct buf body;
	int params_too_large;
	int body_too_large;
	int bad;     /* no method or no path: answered 400 at the end */
	int refused; /* Host, Origin or token said no after PARAMS: the body is not kept */
	char *path;
	int api;
	struct events_sub *sub; /* while R_STREAMING */
	int dropped;            /* done with, but still on the queue: freed when popped */
	struct rtr_resp *taken; /* the completion, moved out of resp when popped */
	/* f->lock: */
	struct rtr_resp *resp;
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
};

struct fcgi {
	struct router *router;
	struct events *events;
	size_t max_body;
	int max_conns; /* BB_FCGI_MAX_CONNECTIONS, or fewer where descriptors are scarce */
	int lfd;
	int wake[2];
	char *unix_path; /* NULL for TCP */
	dev_t sock_dev;
	ino_t sock_ino;
	pthread_t thread;
	int started;
	atomic_int stopping;
	/* Responder thread only: */
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
	int woken;
};

static const unsigned char zeros[8];

/* Length of what is queued towards a connection but not yet written. */
static size_t
out_pending(const struct conn *c)
{
	return c->out.len - c->out_off;
}

/* Queue one record; padded to a multiple of 8 bytes as the specification recommends. */
static void
put_record(struct conn *c, int type, uint16_t id, const void *p, size_t n)
{
	unsigned char h[FCGI_HEADER_LEN];
	size_t pad = (8 - n % 8) % 8;
	h[0] = 1;
	h[1] = (unsigned char)type;
	h[2] = (unsigned char)(id >> 8);
	h[3] = (unsigned char)(id & 0xff);
	h[4] = (unsigned char)(n >> 8);
	h[5] = (unsigned char)(n & 0xff);
	h[6] = (unsigned char)pad;
	h[7] = 0;
	buf_add(&c->out, h, sizeof h);
	if (n > 0)
		buf_add(&c->out, p, n);
	if (pad > 0)
		buf_add(&c->out, zeros, pad);
}

/* Queue stream data split into records; a record's content is at most 65535 bytes. */
static void
put_stdout(struct conn *c, uint16_t id, const char *p, size_t n)
{
	while (n > 0) {
		size_t k = n > FCGI_CHUNK ? FCGI_CHUNK : n;
		put_record(c, FCGI_STDOUT, id, p, k);
		p += k;
		n -= k;
	}
}

/* Queue the end of a request: an empty STDOUT (end of stream) when it had output, then END_REQUEST. */
static void
put_end(struct conn *c, uint16_t id, int had_stdout, int proto_status)
{
	unsigned char b[8] = {0, 0, 0, 0, (unsigned char)proto_status, 0, 0, 0};
	if (had_stdout)
		put_record(c, FCGI_STDOUT, id, NULL, 0);
	put_record(c, FCGI_END_REQUEST, id, b, sizeof b);
}

/* Append a name-value pair in FastCGI's length encoding (GET_VALUES_RESULT). */
static void
put_nv(struct buf *b, const char *name, const char *value)
{
	size_t lens[2] = {strlen(name), strlen(value)};
	for (int i = 0; i < 2; i++) {
		if (lens[i] < 128) {
			unsigned char l = (unsigned char)lens[i];
			buf_add(b, &l, 1);
		} else {
			unsigned char l[4] = {(unsigned char)((lens[i] >> 24) | 0x80), (unsigned char)(lens[i] >> 16),
			                      (unsigned char)(lens[i] >> 8), (unsigned char)lens[i]};
			buf_add(b, l, 4);
		}
	}
	buf_add(b, name, lens[0]);
	buf_add(b, value, lens[1]);
}

/* Read one length of a name-value pair (1 byte, or 4 with the top bit set); -1 if it runs past the end. */
static int
nv_len(const unsigned char *p, size_t len, size_t *off, size_t *out)
{
	if (*off >= len)
		return -1;
	if (p[*off] < 128) {
		*out = p[(*off)++];
		return 0;
	}
	if (len - *off < 4)
		return -1;
	*out = ((size_t)(p[*off] & 0x7f) << 24) | ((size_t)p[*off + 1] << 16) | ((size_t)p[*off + 2] << 8) |
	       p[*off + 3];
	*off += 4;
	return 0;
}

/* Step over one name-value pair; 0 with its parts, 1 at the end, -1 when malformed. */
static int
nv_next(const unsigned char *p, size_t len, size_t *off, const unsigned char **name, size_t *nlen,
        const unsigned char **value, size_t *vlen)
{
	if (*off == len)
		return 1;
	if (nv_len(p, len, off, nlen) != 0 || nv_len(p, len, off, vlen) != 0)
		return -1;
	if (*nlen > len - *off || *vlen > len - *off - *nlen)
		return -1;
	*name = p + *off;
	*value = p + *off + *nlen;
	*off += *nlen + *vlen;
	return 0;
}

/* Turn the raw params into NUL-terminated name/value strings; -1 when the stream is malformed. */
static int
parse_params(struct req *r)
{
	const unsigned char *p = (const unsigned char *)r->params.data, *name, *value;
	size_t len = r->params.len, off = 0, nlen, vlen, at = 0, cap = 0;
	int rc;
	/* Every pair has at least two length bytes, so names and values with their NULs fit in len + 1. */
	r->kv_text = xmalloc(len + 1);
	while ((rc = nv_next(p, len, &off, &name, &nlen, &value, &vlen)) == 0) {
		if (r->n_kv + 2 > cap) {
			cap = cap ? cap * 2 : 64;
			r->kv = xrealloc(r->kv, cap * sizeof *r->kv);
		}
		r->kv[r->n_kv++] = r->kv_text + at;
		memcpy(r->kv_text + at, name, nlen);
		at += nlen;
		r->kv_text[at++] = '\0';
		r->kv[r->n_kv++] = r->kv_text + at;
		memcpy(r->kv_text + at, value, vlen);
		at += vlen;
		r->kv_text[at++] = '\0';
	}
	buf_free(&r->params);
	return rc < 0 ? -1 : 0;
}

/* A FastCGI parameter (CGI variable) of the request, or NULL. */
static const char *
param(struct req *r, const char *name)
{
	for (size_t i = 0; i + 1 < r->n_kv; i += 2)
		if (strcmp(r->kv[i], name) == 0)
			return r->kv[i + 1];
	return NULL;
}

/* Decode %XX (and, in a query string, '+') in place; a malformed escape is kept as it is. */
static void
url_decode(char *s, int plus)
{
	char *o = s;
	for (; *s; s++) {
		if (*s == '%' && isxdigit((unsigned char)s[1]) && isxdigit((unsigned char)s[2])) {
			char hex[3] = {s[1], s[2], '\0'};
			*o++ = (char)strtol(hex, NULL, 16);
			s += 2;
		} else if (*s == '+' && plus) {
			*o++ = ' ';
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* Split QUERY_STRING into decoded names and values once, for get_query. */
static void
parse_query(struct req *r)
{
	const char *qs = param(r, "QUERY_STRING");
	size_t cap = 0;
	if (qs == NULL || *qs == '\0')
		return;
	r->q_text = xstrdup(qs);
	for (char *save = NULL, *part = strtok_r(r->q_text, "&", &save); part; part = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(part, '=');
		if (eq != NULL)
			*eq++ = '\0';
		url_decode(part, 1);
		if (eq != NULL)
			url_decode(eq, 1);
		if (r->n_qkv + 2 > cap) {
			cap = cap ? cap * 2 : 16;
			r->qkv = xrealloc(r->qkv, cap * sizeof *r->qkv);
		}
		r->qkv[r->n_qkv++] = part;
		r->qkv[r->n_qkv++] = eq ? eq : part + strlen(part); /* "?flag" is an empty value, like MHD's */
	}
}

/* rtr_req accessor: a request header, from its CGI variable (Mcp-Session-Id is HTTP_MCP_SESSION_ID). */
static const char *
get_header(struct rtr_req *rr, const char *name)
{
	struct req *r = container_of(rr, struct req, rr);
	char var[128];
	size_t n = 0;
	if (strcasecmp(name, "Content-Type") != 0 && strcasecmp(name, "Content-Length") != 0) {
		memcpy(var, "HTTP_", 5);
		n = 5;
	}
	for (const char *s = name; *s; s++) {
		if (n + 1 >= sizeof var)
			return NULL;
		var[n++] = *s == '-' ? '_' : (char)toupper((unsigned char)*s);
	}
	var[n] = '\0';
	return param(r, var);
}

/* rtr_req accessor: a query-string argument, URL-decoded; the first one wins, as with MHD. */
static const char *
get_query(struct rtr_req *rr, const char *name)
{
	struct req *r = container_of(rr, struct req, rr);
	for (size_t i = 0; i + 1 < r->n_qkv; i += 2)
		if (strcmp(r->qkv[i], name) == 0)
			return r->qkv[i + 1];
	return NULL;
}

/* Queue a request for the responder thread and wake it; caller holds f->lock. */
static void
enqueue_locked(struct fcgi *f, struct req *r)
{
	if (!r->queued) {
		r->queued = 1;
		r->qnext = NULL;
		*f->qtail = r;
		f->qtail = &r->qnext;
	}
	if (!f->woken) {
		f->woken = 1;
		ssize_t n = write(f->wake[1], "x", 1);
		(void)n; /* a full pipe is already a pending wakeup */
	}
}

/* rtr_req completion: any thread, exactly once, possibly inside router_handle. The loop sends it. */
static void
complete(struct rtr_req *rr, struct rtr_resp *resp)
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
resp_discard(struct fcgi *f, struct rtr_resp *resp)
{
	if (resp != NULL && resp->stream != NULL)
		events_unsubscribe(f->events, resp->stream);
	rtr_resp_free(resp);
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
	free(r->kv_text);
	free(r->kv);
	free(r->q_text);
	free(r->qkv);
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
	close(c->fd);
	buf_free(&c->in);
	buf_free(&c->out);
	free(c);
	f->n_conns--;
}

/* Send the router's response as CGI headers and body; a stream starts reading events instead. */
static void
send_resp(struct fcgi *f, struct req *r, struct rtr_resp *resp)
{
	struct conn *c = r->c;
	struct buf h = {0};
	buf_printf(&h, "Status: %d\r\nContent-Type: %s\r\n", resp->status, resp->content_type);
	buf_printf(&h,
	           "X-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\nX-Frame-Options: DENY\r\n"
	           "Content-Security-Policy: %s\r\nCache-Control: %s\r\n",
	           CSP, r->api ? "no-store" : "no-cache");
	if (resp->set_cookie)
		buf_printf(&h, "Set-Cookie: %s\r\n", resp->set_cookie);
	if (resp->location)
		buf_printf(&h, "Location: %s\r\n", resp->location);
	if (resp->extra_name)
		buf_printf(&h, "%s: %s\r\n", resp->extra_name, resp->extra_value);
	if (resp->stream != NULL) {
		buf_adds(&h, "X-Accel-Buffering: no\r\n\r\n");
		put_stdout(c, r->id, h.data, h.len);
		buf_free(&h);
		r->state = R_STREAMING;
		r->sub = resp->stream;
		resp->stream = NULL;
		f->n_streams++;
		rtr_resp_free(resp);
		events_set_wake(f->events, r->sub, sse_wake, r); /* wakes once: the first read queues the hello */
		return;
	}
	rtr_resp_render(resp);
	buf_printf(&h, "Content-Length: %zu\r\n\r\n", resp->len);
	put_stdout(c, r->id, h.data, h.len);
	put_stdout(c, r->id, resp->body, resp->len);
	put_end(c, r->id, 1, FCGI_REQUEST_COMPLETE);
	buf_free(&h);
	rtr_resp_free(resp);
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
			put_end(c, r->id, 1, FCGI_REQUEST_COMPLETE);
			req_finish(r);
			return;
		}
		put_stdout(c, r->id, tmp, (size_t)n);
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
			f->woken = 0;
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
			struct rtr_resp *resp = r->taken;
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
	json_t *b = json_pack("{s:s, s:s, s:s}", "status", "error", "error", code, "message", msg);
	r->rr.complete(&r->rr, rtr_json(status, b));
}

/* The params are in (end of FCGI_PARAMS): build the router's view of the request line and headers,
 * and let the router decide on Host, Origin and token before any body arrives. */
static void
prepare(struct fcgi *f, struct req *r)
{
	const char *m = param(r, "REQUEST_METHOD"), *p;
	if ((p = param(r, "DOCUMENT_URI")) != NULL && *p != '\0') {
		r->path = xstrdup(p); /* nginx: decoded and normalized, without the query */
	} else if ((p = param(r, "REQUEST_URI")) != NULL && *p != '\0') {
		r->path = xstrndup(p, strcspn(p, "?"));
		url_decode(r->path, 0);
	} else {
		const char *sn = param(r, "SCRIPT_NAME"), *pi = param(r, "PATH_INFO");
		r->path = xasprintf("%s%s", sn ? sn : "", pi ? pi : "");
	}
	if (m == NULL || *m == '\0' || r->path[0] != '/') {
		r->bad = 1;
		return;
	}
	parse_query(r);
	r->api = strncmp(r->path, "/api/", 5) == 0 || strcmp(r->path, "/mcp") == 0;
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

/* Answer FCGI_GET_VALUES with the values we know; -1 when the request is malformed. */
static int
get_values(const struct fcgi *f, struct conn *c, const unsigned char *p, size_t len)
{
	struct buf b = {0};
	const unsigned char *name, *value;
	size_t off = 0, nlen, vlen;
	int rc;
	char num[24];
	while ((rc = nv_next(p, len, &off, &name, &nlen, &value, &vlen)) == 0) {
		if (nlen == 14 && memcmp(name, "FCGI_MAX_CONNS", 14) == 0) {
			snprintf(num, sizeof num, "%d", f->max_conns);
			put_nv(&b, "FCGI_MAX_CONNS", num);
		} else if (nlen == 13 && memcmp(name, "FCGI_MAX_REQS", 13) == 0) {
			snprintf(num, sizeof num, "%d", BB_FCGI_MAX_REQUESTS);
			put_nv(&b, "FCGI_MAX_REQS", num);
		} else if (nlen == 15 && memcmp(name, "FCGI_MPXS_CONNS", 15) == 0) {
			put_nv(&b, "FCGI_MPXS_CONNS", "1");
		}
	}
	if (rc < 0 || b.len > 65535) {
		buf_free(&b);
		return -1;
	}
	put_record(c, FCGI_GET_VALUES_RESULT, 0, b.data, b.len);
	buf_free(&b);
	return 0;
}

/* Handle one whole record; -1 (with *why) when it breaks the protocol and the connection must go. */
static int
handle_record(struct fcgi *f, struct conn *c, int type, uint16_t id, const unsigned char *p, size_t len,
              const char **why)
{
	struct req *r;
	if (id == 0 && type == FCGI_GET_VALUES) {
		*why = "malformed FCGI_GET_VALUES";
		return get_values(f, c, p, len);
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
			put_end(c, id, 0, role != FCGI_RESPONDER ? FCGI_UNKNOWN_ROLE : FCGI_OVERLOADED);
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
		put_end(c, id, r->state == R_STREAMING, FCGI_REQUEST_COMPLETE);
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
			if (parse_params(r) != 0) {
				*why = "malformed FCGI_PARAMS";
				return -1;
			}
			long cl;
			const char *cls = param(r, "CONTENT_LENGTH");
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
		put_record(c, FCGI_UNKNOWN_TYPE, 0, b, sizeof b);
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
	while (c->in.len - off >= FCGI_HEADER_LEN) {
		const unsigned char *h = p + off;
		size_t clen = ((size_t)h[4] << 8) | h[5], need = FCGI_HEADER_LEN + clen + h[6];
		const char *why = NULL;
		if (h[0] != 1) {
			log_warn("fastcgi: closing a connection: protocol version %d, not 1", h[0]);
			return -1;
		}
		if (c->in.len - off < need)
			break;
		if (handle_record(f, c, h[1], (uint16_t)((h[2] << 8) | h[3]), h + FCGI_HEADER_LEN, clen, &why) != 0) {
			log_warn("fastcgi: closing a connection: %s", why);
			return -1;
		}
		off += need;
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
		c->next = f->conns;
		f->conns = c;
		f->n_conns++;
	}
	if (!f->full_logged) {
		log_warn("fastcgi: %d connections open; new ones wait in the listen queue", f->n_conns);
		f->full_logged = 1;
	}
}

/* The responder thread: one poll loop over the wakeup pipe, the listener and every connection. */
static void *
loop(void *arg)
{
	struct fcgi *f = arg;
	struct pollfd *pfd = xcalloc(BB_FCGI_MAX_CONNECTIONS + 2, sizeof *pfd);
	struct conn **pc = xcalloc(BB_FCGI_MAX_CONNECTIONS, sizeof *pc);
	int64_t deadline = 0;
	for (;;) {
		int64_t now = util_mono_ms();
		if (atomic_load(&f->stopping)) {
			if (deadline == 0) {
				deadline = now + 2000;
				close(f->lfd);
				f->lfd = -1;
			}
			int busy = f->n_waiting > 0 || f->n_streams > 0;
			for (struct conn *c = f->conns; c != NULL && !busy; c = c->next)
				busy = out_pending(c) > 0;
			if (!busy || now >= deadline)
				break;
		}
		int n = 0;
		pfd[n++] = (struct pollfd){.fd = f->wake[0], .events = POLLIN};
		int accepting = f->lfd >= 0 && f->n_conns < f->max_conns && now >= f->accept_paused_until;
		pfd[n++] = (struct pollfd){.fd = accepting ? f->lfd : -1, .events = POLLIN};
		if (f->n_conns < f->max_conns)
			f->full_logged = 0;
		int nc = 0;
		for (struct conn *c = f->conns; c != NULL; c = c->next) {
			short ev = 0;
			if (out_pending(c) < BB_FCGI_OUT_HIGH && !c->close_after)
				ev |= POLLIN;
			if (out_pending(c) > 0)
				ev |= POLLOUT;
			pc[nc++] = c;
			pfd[n++] = (struct pollfd){.fd = c->fd, .events = ev};
		}
		if (poll(pfd, (nfds_t)n, 1000) < 0 && errno != EINTR) {
			log_error("fastcgi: poll: %s", strerror(errno));
			break;
		}
		if (pfd[0].revents & POLLIN) {
			char junk[256];
			while (read(f->wake[0], junk, sizeof junk) > 0)
				;
		}
		for (int i = 0; i < nc; i++) {
			struct conn *c = pc[i];
			short re = pfd[i + 2].revents;
			if ((re & (POLLIN | POLLHUP | POLLERR)) && conn_read(f, c) != 0)
				conn_close(f, c); /* writes happen below, for every connection */
		}
		if (pfd[1].revents & POLLIN)
			accept_all(f);
		drain_queue(f);
		now = util_mono_ms();
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
			} else if (!conn_parked(c) && out_pending(c) == 0 &&
			           now - c->last_active > BB_FCGI_IDLE_TIMEOUT_S * 1000) {
				log_debug("fastcgi: closing an idle connection");
				conn_close(f, c);
			}
		}
	}
	while (f->conns != NULL)
		conn_close(f, f->conns);
	drain_queue(f);
	free(pfd);
	free(pc);
	return NULL;
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

/* Free what fcgi_start made (the thread, if any, has ended). */
static void
free_all(struct fcgi *f)
{
	if (f->lfd >= 0)
		close(f->lfd);
	unlink_ours(f);
	if (f->wake[0] >= 0)
		close(f->wake[0]);
	if (f->wake[1] >= 0)
		close(f->wake[1]);
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

/* Listen on cfg->fastcgi (unix:PATH or a loopback ADDR:PORT) and start the responder thread. */
struct fcgi *
fcgi_start(const struct config *cfg, struct router *router, char **err)
{
	struct fcgi *f = xcalloc(1, sizeof *f);
	f->router = router;
	f->events = router_events(router);
	f->max_body = cfg->max_body_bytes;
	f->max_conns = connection_limit();
	f->lfd = -1;
	f->wake[0] = f->wake[1] = -1;
	f->qtail = &f->qhead;
	f->rbuf = xmalloc(65536);
	pthread_mutex_init(&f->lock, NULL);
	const char *spec = cfg->fastcgi;
	if ((strncmp(spec, "unix:", 5) == 0 ? listen_unix(f, spec + 5, err) : listen_tcp(f, spec, err)) != 0)
		goto fail;
	if (pipe2(f->wake, O_NONBLOCK | O_CLOEXEC) != 0) {
		*err = xasprintf("fastcgi: pipe: %s", strerror(errno));
		goto fail;
	}
	if (pthread_create(&f->thread, NULL, loop, f) != 0) {
		*err = xstrdup("fastcgi: cannot start the responder thread");
		goto fail;
	}
	f->started = 1;
	return f;
fail:
	free_all(f);
	return NULL;
}

/* Stop accepting, give answers up to two seconds to go out, then stop. NULL is fine. */
void
fcgi_stop(struct fcgi *f)
{
	if (f == NULL)
		return;
	atomic_store(&f->stopping, 1);
	ssize_t n = write(f->wake[1], "x", 1);
	(void)n; /* the loop also looks at least once a second */
	pthread_join(f->thread, NULL);
	if (f->n_reqs > 0) {
		/* A call nobody answered still holds a pointer to its request: keep the memory, not a crash. */
		log_warn("fastcgi: %d calls were still waiting at shutdown; leaving their memory", f->n_reqs);
		unlink_ours(f);
		return;
	}
	free_all(f);
}
