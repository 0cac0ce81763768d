/* http.c -- see http.h. */
#include "autoconfig.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "events.h"
#include "http.h"
#include "limits.h"
#include "log.h"
#include "loop.h"
#include "reqresp.h"
#include "router.h"
#include "util.h"

#if MHD_VERSION < 0x00097002
typedef int MHD_RESULT;
#else
typedef enum MHD_Result MHD_RESULT;
#endif

struct http {
	const struct config *cfg;
	struct router *router;
	struct MHD_Daemon *d;
	struct loop_source *src; /* our place in the event loop */
	atomic_int active;
	atomic_int quiesce;
	unsigned limit; /* connections held at once */
	int was_full;   /* at the limit after the last run: MHD took the listener out of its epoll set */
};

enum conn_state { C_NEW, C_RUNNING, C_SUSPENDED, C_READY };

/* One request: the router's view of it plus what MHD needs to finish it. */
struct conn {
	struct rr_req req;
	struct http *h;
	struct MHD_Connection *mc;
	struct buf body;
	int too_large;
	pthread_mutex_t lock;
	enum conn_state state;
	struct rr_resp *resp;
	const char *path;
};

/* A Server-Sent-Events stream, owned by its MHD response (freed when MHD is done with it). */
struct sse {
	struct http *h;
	struct events *ev;
	struct events_sub *sub;
	struct MHD_Connection *mc;
	pthread_mutex_t lock;
	int suspended;
	int pending;
};

/* rr_req accessor: a request header. */
static const char *
get_header(struct rr_req *r, const char *name)
{
	struct conn *c = container_of(r, struct conn, req);
	return MHD_lookup_connection_value(c->mc, MHD_HEADER_KIND, name);
}

/* rr_req accessor: a query-string argument. */
static const char *
get_query(struct rr_req *r, const char *name)
{
	struct conn *c = container_of(r, struct conn, req);
	return MHD_lookup_connection_value(c->mc, MHD_GET_ARGUMENT_KIND, name);
}

/* rr_req completion: any thread, exactly once. Resumes the connection if it was suspended. */
static void
complete(struct rr_req *r, struct rr_resp *resp)
{
	struct conn *c = container_of(r, struct conn, req);
	struct http *h = c->h; /* once resumed, c may be freed by the loop before we return */
	pthread_mutex_lock(&c->lock);
	c->resp = resp;
	int resume = c->state == C_SUSPENDED;
	if (resume)
		MHD_resume_connection(c->mc);
	c->state = C_READY;
	pthread_mutex_unlock(&c->lock);
	if (resume)
		loop_kick(h->src); /* MHD's own wakeup is not in its epoll set without a thread */
}

/* Events wake: data for a stream. Resume it if it sleeps, else note it so the reader looks again. */
static void
sse_wake(void *arg)
{
	struct sse *s = arg;
	struct http *h = s->h; /* once resumed, s may be freed by the loop before we return */
	pthread_mutex_lock(&s->lock);
	int resume = s->suspended;
	if (resume) {
		s->suspended = 0;
		MHD_resume_connection(s->mc);
	} else {
		s->pending = 1;
	}
	pthread_mutex_unlock(&s->lock);
	if (resume)
		loop_kick(h->src);
}

/* MHD content reader for an event stream: copy what is queued, or suspend until there is more. */
static ssize_t
sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct sse *s = cls;
	(void)pos;
	long n = events_read(s->ev, s->sub, buf, max);
	if (n > 0)
		return n;
	if (n < 0)
		return MHD_CONTENT_READER_END_OF_STREAM;
	pthread_mutex_lock(&s->lock);
	if (s->pending) {
		s->pending = 0;
	} else {
		s->suspended = 1;
		MHD_suspend_connection(s->mc);
	}
	pthread_mutex_unlock(&s->lock);
	return 0;
}

/* MHD is done with the stream: stop receiving events and free it. */
static void
sse_free(void *cls)
{
	struct sse *s = cls;
	events_unsubscribe(s->ev, s->sub);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* rr_security_headers callback: one header onto an MHD response. */
static void
add_header(void *arg, const char *name, const char *value)
{
	MHD_add_response_header(arg, name, value);
}

/* Hand the router's response to MHD. */
static MHD_RESULT
send_resp(struct conn *c, struct rr_resp *rr)
{
	struct MHD_Response *r;
	if (rr->stream != NULL) {
		struct sse *s = xcalloc(1, sizeof *s);
		s->h = c->h;
		s->ev = router_events(c->h->router);
		s->sub = rr->stream;
		s->mc = c->mc;
		pthread_mutex_init(&s->lock, NULL);
		r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, sse_read, s, sse_free);
		events_set_wake(s->ev, s->sub, sse_wake, s);
		MHD_add_response_header(r, "X-Accel-Buffering", "no");
	} else {
		rr_resp_render(rr);
		r = MHD_create_response_from_buffer(rr->len, rr->body, MHD_RESPMEM_MUST_FREE);
		rr->body = NULL;
	}
	MHD_add_response_header(r, "Content-Type", rr->content_type);
	rr_security_headers(c->path, add_header, r);
	if (rr->set_cookie)
		MHD_add_response_header(r, "Set-Cookie", rr->set_cookie);
	if (rr->location)
		MHD_add_response_header(r, "Location", rr->location);
	if (rr->extra_name)
		MHD_add_response_header(r, rr->extra_name, rr->extra_value);
	MHD_RESULT ret = MHD_queue_response(c->mc, (unsigned)rr->status, r);
	MHD_destroy_response(r);
	rr_resp_free(rr);
	return ret;
}

/* A response made here, before the router sees the request (413). */
static MHD_RESULT
send_early(struct conn *c, int status, const char *code, const char *msg)
{
	return send_resp(c, rr_error(status, code, msg));
}

/* Whether a connection came in over the Unix socket: only http_add_local adds those, and only after
 * SO_PEERCRED showed the daemon's own user (see unixsock.c). */
static int
is_local_peer(struct MHD_Connection *mc)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	return ci != NULL && ci->client_addr != NULL && ci->client_addr->sa_family == AF_UNIX;
}

/* The MHD access handler: collect the body, route once, and answer now or when resumed. */
static MHD_RESULT
access_cb(void *cls, struct MHD_Connection *mc, const char *url, const char *method, const char *version,
          const char *upload, size_t *upload_size, void **ctx)
{
	struct http *h = cls;
	struct conn *c = *ctx;
	(void)version;
	if (c == NULL) {
		c = xcalloc(1, sizeof *c);
		c->h = h;
		c->mc = mc;
		c->path = url; /* MHD keeps it until the request is complete */
		pthread_mutex_init(&c->lock, NULL);
		c->req.method = method;
		c->req.path = c->path;
		c->req.own_port = h->cfg->http_port;
		c->req.header = get_header;
		c->req.query = get_query;
		c->req.complete = complete;
		c->req.can_stream = 1;
		c->req.local_peer = is_local_peer(mc);
		*ctx = c;
		atomic_fetch_add(&h->active, 1);
		/* Headers are in: from now on the idle timeout applies, not the (shorter) header timeout. */
		MHD_set_connection_option(mc, MHD_CONNECTION_OPTION_TIMEOUT, (unsigned)BB_HTTP_IDLE_TIMEOUT_S);
		/* Host, Origin and token are decided now, before any body is read: the router answers a
		 * refusal at once, and MHD closes the connection without reading what follows. */
		if (!router_allows(h->router, &c->req)) {
			c->req.body = "";
			pthread_mutex_lock(&c->lock);
			c->state = C_RUNNING;
			pthread_mutex_unlock(&c->lock);
			router_handle(h->router, &c->req);
			struct rr_resp *rr = c->resp;
			c->resp = NULL;
			if (rr != NULL)
				return send_resp(c, rr);
			return MHD_NO; /* a refusal is always answered at once; anything else is a bug */
		}
		const char *cl = MHD_lookup_connection_value(mc, MHD_HEADER_KIND, "Content-Length");
		long n;
		if (cl != NULL && (util_parse_long(cl, 0, 1L << 40, &n) != 0 || (size_t)n > h->cfg->max_body_bytes)) {
			c->too_large = 1;
			return send_early(c, 413, "too_large", "the request body is larger than max_body_bytes");
		}
		return MHD_YES;
	}
	if (*upload_size > 0) {
		if (c->body.len + *upload_size > h->cfg->max_body_bytes)
			c->too_large = 1;
		else if (!c->too_large)
			buf_add(&c->body, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	pthread_mutex_lock(&c->lock);
	enum conn_state st = c->state;
	pthread_mutex_unlock(&c->lock);
	if (st == C_NEW) {
		if (c->too_large)
			return send_early(c, 413, "too_large", "the request body is larger than max_body_bytes");
		c->req.body = c->body.data ? c->body.data : "";
		c->req.body_len = c->body.len;
		pthread_mutex_lock(&c->lock);
		c->state = C_RUNNING;
		pthread_mutex_unlock(&c->lock);
		router_handle(h->router, &c->req);
		/* Handlers parse the body before they return; a waiting call need not keep it. */
		buf_free(&c->body);
		c->req.body = NULL;
		c->req.body_len = 0;
		pthread_mutex_lock(&c->lock);
		if (c->state != C_READY) {
			c->state = C_SUSPENDED;
			MHD_suspend_connection(mc);
			pthread_mutex_unlock(&c->lock);
			return MHD_YES;
		}
		pthread_mutex_unlock(&c->lock);
	}
	if (st == C_SUSPENDED)
		return MHD_YES; /* spurious call while waiting */
	struct rr_resp *rr = c->resp;
	c->resp = NULL;
	if (rr == NULL)
		return MHD_YES;
	return send_resp(c, rr);
}

/* MHD finished with a request (answered or broken off): free it. */
static void
completed_cb(void *cls, struct MHD_Connection *mc, void **ctx, enum MHD_RequestTerminationCode toe)
{
	struct http *h = cls;
	struct conn *c = *ctx;
	(void)mc;
	(void)toe;
	if (c == NULL)
		return;
	rr_resp_free(c->resp);
	buf_free(&c->body);
	pthread_mutex_destroy(&c->lock);
	free(c);
	*ctx = NULL;
	atomic_fetch_sub(&h->active, 1);
}

/* Route MHD's own messages into our log. */
static void
mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	char line[512];
	vsnprintf(line, sizeof line, fmt, ap);
	size_t n = strlen(line);
	while (n > 0 && line[n - 1] == '\n')
		line[--n] = '\0';
	log_debug("mhd: %s", line);
}

/* How many connections we hold at once: well below the descriptor limit, so a flood of idle
 * connections never takes the descriptors the database, browsers and FastCGI need. */
static unsigned
http_connection_limit(void)
{
	struct rlimit rl;
	long cap = BB_HTTP_MAX_CONNECTIONS;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		long fit = ((long)rl.rlim_cur - BB_FD_RESERVE) / 2;
		if (fit < cap)
			cap = fit;
	}
	return cap < BB_HTTP_MIN_CONNECTIONS ? BB_HTTP_MIN_CONNECTIONS : (unsigned)cap;
}

/* Bind and start the listener on the configured loopback address. The test-only environment
 * variable BB_TEST_HEADER_TIMEOUT_S shortens the header timeout so a test need not wait. */
struct http *
http_start(const struct config *cfg, struct router *router, char **err)
{
	struct http *h = xcalloc(1, sizeof *h);
	h->cfg = cfg;
	h->router = router;
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	/* No thread of its own: the event loop runs it (see http_attach). */
	unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
	if (strchr(cfg->http_host, ':')) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)cfg->http_port);
		inet_pton(AF_INET6, cfg->http_host, &a->sin6_addr);
		flags |= MHD_USE_IPv6;
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)cfg->http_port);
		inet_pton(AF_INET, cfg->http_host, &a->sin_addr);
	}
	unsigned limit = h->limit = http_connection_limit(), header_s = BB_HTTP_HEADER_TIMEOUT_S;
	const char *knob = getenv("BB_TEST_HEADER_TIMEOUT_S");
	long v;
	if (knob != NULL && util_parse_long(knob, 1, 3600, &v) == 0)
		header_s = (unsigned)v;
	log_debug("http: at most %u connections, %u s to send the headers", limit, header_s);
	/* The daemon-wide timeout is the header timeout: a connection that never finishes its headers
	 * (Slowloris) is closed after it. Once headers are in, access_cb sets the idle timeout; a
	 * suspended (waiting) call is exempt from both. */
	h->d = MHD_start_daemon(flags, (uint16_t)cfg->http_port, NULL, NULL, access_cb, h, MHD_OPTION_SOCK_ADDR, &ss,
	                        MHD_OPTION_NOTIFY_COMPLETED, completed_cb, h, MHD_OPTION_CONNECTION_LIMIT, limit,
	                        MHD_OPTION_CONNECTION_TIMEOUT, header_s, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
	                        (size_t)BB_HTTP_CONN_MEMORY, MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u,
	                        MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_END);
	if (h->d == NULL) {
		*err = xasprintf("cannot listen for HTTP on %s:%d (port in use?)", cfg->http_host, cfg->http_port);
		free(h);
		return NULL;
	}
	return h;
}

/* The event loop's run function: serve what is ready; the delay until MHD's next timeout. */
static long
http_run(void *arg)
{
	struct http *h = arg;
	if (atomic_exchange(&h->quiesce, 0)) {
		MHD_socket s = MHD_quiesce_daemon(h->d);
		if (s != MHD_INVALID_SOCKET)
			close(s); /* after quiescing, the listening socket is ours to close */
	}
	MHD_run(h->d);
	/* At the connection limit MHD stops watching the listener, and puts it back only at the start of
	 * a run: when this run freed a slot (a timeout), run again, or nothing would ever wake us for the
	 * connections waiting in the backlog. */
	const union MHD_DaemonInfo *ci = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
	unsigned n = ci ? ci->num_connections : 0;
	if (h->was_full && n < h->limit) {
		MHD_run(h->d);
		ci = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
		n = ci ? ci->num_connections : 0;
	}
	h->was_full = n >= h->limit;
	MHD_UNSIGNED_LONG_LONG ms;
	if (MHD_get_timeout(h->d, &ms) != MHD_YES)
		return -1;
	return ms > 86400000ULL ? 86400000L : (long)ms;
}

/* Run on the event loop, watching MHD's epoll descriptor (main thread, before loop_start). */
void
http_attach(struct http *h, struct loop *loop)
{
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
	h->src = loop_add_source(loop, di->epoll_fd, http_run, h);
}

/* Serve a same-user connection from the Unix socket (loop thread); MHD owns fd from here on. */
void
http_add_local(struct http *h, int fd)
{
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	if (MHD_add_connection(h->d, fd, (const struct sockaddr *)&sa, (socklen_t)sizeof sa) != MHD_YES)
		log_warn("api socket: the HTTP listener could not take a connection: %s", strerror(errno));
	loop_kick(h->src); /* MHD serves it on its next run */
}

/* Stop accepting new connections; requests already in progress go on. Main thread. */
void
http_quiesce(struct http *h)
{
	if (h == NULL || h->src == NULL)
		return;
	atomic_store(&h->quiesce, 1);
	loop_kick(h->src);
}

/* Give in-progress responses up to two seconds to go out; the loop is still running. NULL is fine. */
void
http_drain(struct http *h)
{
	if (h == NULL)
		return;
	for (int i = 0; i < 200 && atomic_load(&h->active) > 0; i++) {
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

/* Close the listener and every connection, after the event loop has stopped. NULL is fine. */
void
http_free(struct http *h)
{
	if (h == NULL)
		return;
	MHD_stop_daemon(h->d);
	free(h);
}
