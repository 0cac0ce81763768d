/* apiclient.c -- see apiclient.h. */
#include "autoconfig.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <jansson.h>

#include "apiclient.h"
#include "auth.h"
#include "runfile.h"
#include "unixsock.h"
#include "util.h"

static const char *header(const char *head, const char *name, size_t *vlen);

/*
 * An event-stream answer read as it arrives (apiclient_call_stream): once the headers are in and say
 * text/event-stream, each piece of the body (chunked or not) goes to on_data as soon as it is
 * complete, long before the daemon closes the connection.
 */
struct sse_feed {
	apiclient_data_fn on_data;
	void *arg;
	int state;   /* 0: headers not yet complete; 1: streaming; 2: not a stream (or done) */
	int chunked;
	size_t scan;    /* where the next undelivered piece starts in the raw answer */
	int was_stream; /* the answer was an event stream (its body went to on_data) */
};

/* Deliver what is complete in b to the feed (see struct sse_feed). */
static void
sse_feed_more(struct sse_feed *f, struct buf *b)
{
	if (f->state == 0) {
		char *sep = strstr(b->data, "\r\n\r\n");
		if (sep == NULL)
			return;
		size_t vl;
		char save = sep[2];
		sep[2] = '\0'; /* header() reads up to the blank line: end the block there for a moment */
		const char *ct = header(b->data, "Content-Type", &vl);
		f->state = ct && vl >= 17 && strncasecmp(ct, "text/event-stream", 17) == 0 ? 1 : 2;
		f->was_stream = f->state == 1;
		const char *te = header(b->data, "Transfer-Encoding", &vl);
		f->chunked = te && vl == 7 && strncasecmp(te, "chunked", 7) == 0;
		sep[2] = save;
		f->scan = (size_t)(sep - b->data) + 4;
	}
	while (f->state == 1 && f->scan < b->len) {
		if (!f->chunked) {
			f->on_data(b->data + f->scan, b->len - f->scan, f->arg);
			f->scan = b->len;
			return;
		}
		char *at = b->data + f->scan, *end;
		char *crlf = memmem(at, b->len - f->scan, "\r\n", 2);
		if (crlf == NULL)
			return; /* the chunk's size line is not complete yet */
		errno = 0;
		unsigned long long n = strtoull(at, &end, 16);
		if (errno != 0 || end == at) {
			f->state = 2; /* malformed: parse_reply will say so */
			return;
		}
		size_t start = (size_t)(crlf - b->data) + 2;
		if (n == 0) {
			f->state = 2;
			return;
		}
		if (n > b->len - start || b->len - start - n < 2)
			return; /* the chunk is not complete yet */
		f->on_data(b->data + start, (size_t)n, f->arg);
		f->scan = start + (size_t)n + 2;
	}
}

/* Read the whole answer until the daemon closes; the body of a page can be megabytes. An event
 * stream is also handed to feed as it comes, when there is one. */
static int
read_all(int fd, struct buf *b, long timeout_ms, struct sse_feed *feed, char **err)
{
	char chunk[65536];
	for (;;) {
		ssize_t n = recv(fd, chunk, sizeof chunk, 0);
		if (n == 0)
			return 0;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				*err = xasprintf("no answer from the daemon within %ld ms", timeout_ms);
			else
				*err = xasprintf("reading the daemon's answer: %s", strerror(errno));
			return -1;
		}
		if (b->len + (size_t)n > APICLIENT_MAX_RESPONSE) {
			*err = xasprintf("the daemon's answer is larger than %zu bytes", APICLIENT_MAX_RESPONSE);
			return -1;
		}
		buf_add(b, chunk, (size_t)n);
		if (feed != NULL)
			sse_feed_more(feed, b);
	}
}

/* Decode a chunked body in place; the daemon sends Content-Length, but a proxy in front may not. */
static int
dechunk(char *p, size_t len, size_t *out)
{
	size_t r = 0, w = 0;
	for (;;) {
		char *end;
		errno = 0;
		unsigned long long n = strtoull(p + r, &end, 16);
		if (errno != 0 || end == p + r)
			return -1;
		char *crlf = memmem(end, len - (size_t)(end - p), "\r\n", 2);
		if (crlf == NULL)
			return -1;
		r = (size_t)(crlf - p) + 2;
		if (n == 0)
			break;
		if (n > len - r || len - r - n < 2)
			return -1;
		memmove(p + w, p + r, n);
		w += n;
		r += n + 2;
	}
	*out = w;
	return 0;
}

/* Find a header's value in the header block (case-insensitive name); NULL when absent. */
static const char *
header(const char *head, const char *name, size_t *vlen)
{
	size_t nl = strlen(name);
	for (const char *line = strstr(head, "\r\n"); line && line[2] != '\r'; line = strstr(line + 2, "\r\n")) {
		const char *h = line + 2;
		if (strncasecmp(h, name, nl) == 0 && h[nl] == ':') {
			const char *v = h + nl + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			*vlen = strcspn(v, "\r");
			while (*vlen > 0 && (v[*vlen - 1] == ' ' || v[*vlen - 1] == '\t'))
				(*vlen)--;
			return v;
		}
	}
	return NULL;
}

/* Split the raw answer into status and body (Content-Length, chunked, or everything to the close). */
static int
parse_reply(struct buf *b, struct apireply *r, char **err)
{
	char *sep = b->data ? strstr(b->data, "\r\n\r\n") : NULL;
	if (b->len < 12 || strncmp(b->data, "HTTP/1.", 7) != 0 || sep == NULL) {
		*err = xasprintf("the daemon's answer is not HTTP (%zu bytes)", b->len);
		return -1;
	}
	char code[4] = {b->data[9], b->data[10], b->data[11], '\0'};
	long st;
	if (util_parse_long(code, 100, 599, &st) != 0) {
		*err = xstrdup("the daemon's answer has a malformed status line");
		return -1;
	}
	sep[2] = '\0'; /* the header block now ends with its last CRLF */
	char *body = sep + 4;
	size_t len = b->len - (size_t)(body - b->data), vl;
	const char *te = header(b->data, "Transfer-Encoding", &vl);
	const char *cl = header(b->data, "Content-Length", &vl);
	if (te && vl == 7 && strncasecmp(te, "chunked", 7) == 0) {
		if (dechunk(body, len, &len) != 0) {
			*err = xstrdup("the daemon's chunked answer is malformed or cut short");
			return -1;
		}
	} else if (cl) {
		char num[32];
		long want;
		snprintf(num, sizeof num, "%.*s", (int)(vl < 31 ? vl : 31), cl);
		if (util_parse_long(num, 0, LONG_MAX, &want) != 0 || (size_t)want > len) {
			*err = xasprintf("the daemon's answer was cut short (%zu of %s bytes)", len, num);
			return -1;
		}
		len = (size_t)want;
	}
	const char *sid = header(b->data, "Mcp-Session-Id", &vl);
	if (sid && vl < sizeof r->session)
		snprintf(r->session, sizeof r->session, "%.*s", (int)vl, sid);
	r->status = (int)st;
	r->body = xstrndup(body, len);
	r->len = len;
	return 0;
}

/* Connect to the daemon's Unix socket and make sure the server runs as us: -1 (with *err) otherwise. */
static int
connect_local(const char *path, char **err)
{
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*err = xasprintf("socket: %s", strerror(errno));
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
		*err = xasprintf("cannot connect to the daemon's socket %s: %s; is the daemon running? (browser-bridge serve)",
		                 path, strerror(errno));
		close(fd);
		return -1;
	}
	long uid;
	if (!unixsock_peer_is_me(fd, &uid)) {
		*err = xasprintf("the server on %s runs as uid %ld, not as you (uid %ld): it is not your Browser Bridge "
		                 "daemon, refusing to talk to it",
		                 path, uid, (long)geteuid());
		close(fd);
		return -1;
	}
	return fd;
}

/* Connect over TCP to the configured loopback address; *v6 says which family it was. */
static int
connect_tcp(const struct config *cfg, int *v6, char **err)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	memset(&ss, 0, sizeof ss);
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	int fd = -1;
	*v6 = 0;
	if (inet_pton(AF_INET, cfg->http_host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)cfg->http_port);
		sl = sizeof *s4;
	} else if (inet_pton(AF_INET6, cfg->http_host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)cfg->http_port);
		sl = sizeof *s6;
		*v6 = 1;
	} else {
		*err = xasprintf("bad daemon address %s", cfg->http_host);
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*err = xasprintf("socket: %s", strerror(errno));
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&ss, sl) != 0) {
		*err = xasprintf("cannot connect to the daemon at %s%s%s:%d: %s; "
		                 "is the daemon running? (browser-bridge serve)",
		                 *v6 ? "[" : "", cfg->http_host, *v6 ? "]" : "", cfg->http_port, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int exchange(const struct apiclient *c, const char *method, const char *path, const char *accept,
                    const char *extra, const char *body, long timeout_ms, struct sse_feed *feed, struct apireply *r,
                    char **err);

/*
 * One blocking HTTP/1.1 exchange over a fresh connection (the Unix socket, else TCP): send, read to
 * the close, parse. -1 (with *err) when the daemon cannot be reached or answers garbage.
 */
int
apiclient_call(const struct apiclient *c, const char *method, const char *path, const char *accept, const char *extra,
          const char *body, long timeout_ms, struct apireply *r, char **err)
{
	return exchange(c, method, path, accept, extra, body, timeout_ms, NULL, r, err);
}

/*
 * Like apiclient_call, but when the daemon answers with an event stream (text/event-stream, e.g. an
 * MCP tools/call with progress), each piece of its body goes to on_data as it arrives; r->streamed
 * says so (r->body still holds it all afterwards).
 */
int
apiclient_call_stream(const struct apiclient *c, const char *method, const char *path, const char *accept,
                      const char *extra, const char *body, long timeout_ms, apiclient_data_fn on_data, void *arg,
                      struct apireply *r, char **err)
{
	struct sse_feed feed = {on_data, arg, 0, 0, 0, 0};
	int rc = exchange(c, method, path, accept, extra, body, timeout_ms, &feed, r, err);
	r->streamed = feed.was_stream;
	return rc;
}

/* One HTTP exchange (see apiclient_call); feed, when not NULL, gets an event stream as it comes. */
static int
exchange(const struct apiclient *c, const char *method, const char *path, const char *accept, const char *extra,
         const char *body, long timeout_ms, struct sse_feed *feed, struct apireply *r, char **err)
{
	const struct config *cfg = &c->cfg;
	int v6 = 0, fd = -1, rc = -1;
	struct buf req = {0}, in = {0};
	fd = c->sock != NULL ? connect_local(c->sock, err) : connect_tcp(cfg, &v6, err);
	if (fd < 0)
		goto fail;
	struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	if (c->sock != NULL) {
		/* Our own user's daemon, as the kernel vouches: no token goes anywhere. */
		buf_printf(&req, "%s %s HTTP/1.1\r\nHost: localhost\r\nAccept: %s\r\n", method, path, accept);
	} else {
		/* The daemon accepts only these Host values (DNS-rebinding defence), whatever loopback address it is on. */
		buf_printf(&req, "%s %s HTTP/1.1\r\nHost: %s:%d\r\nAuthorization: Bearer %s\r\nAccept: %s\r\n", method,
		           path, v6 ? "[::1]" : "127.0.0.1", cfg->http_port, c->token, accept);
	}
	buf_printf(&req, "Connection: close\r\nUser-Agent: browser-bridge/%s\r\n", BB_VERSION);
	if (c->call_id[0] && strncmp(path, "/api/tools/", 11) == 0)
		buf_printf(&req, "X-Browser-Bridge-Call-Id: %s\r\n", c->call_id);
	if (extra)
		buf_adds(&req, extra);
	if (body)
		buf_printf(&req, "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s", strlen(body), body);
	else
		buf_adds(&req, "\r\n");
	for (size_t off = 0; off < req.len;) {
		ssize_t n = send(fd, req.data + off, req.len - off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*err = xasprintf("sending the request to the daemon: %s", strerror(errno));
			goto fail;
		}
		off += (size_t)n;
	}
	if (read_all(fd, &in, timeout_ms, feed, err) != 0 || parse_reply(&in, r, err) != 0)
		goto fail;
	rc = 0;
fail:
	if (fd >= 0)
		close(fd);
	if (req.data)
		explicit_bzero(req.data, req.len); /* it holds the token */
	buf_free(&req);
	buf_free(&in);
	return rc;
}

/* The interrupt thread: wait for Ctrl-C (or TERM, HUP), cancel the call in the daemon and the
 * browser (POST /api/calls/<call_id>/cancel), and exit 130 as an interrupted program does. */
static pthread_mutex_t interrupt_lock = PTHREAD_MUTEX_INITIALIZER; /* c stays open while the thread uses it */
static struct apiclient *interrupt_client;                          /* NULL once it is closed */

static void *
interrupt_main(void *arg)
{
	struct apiclient *c = arg;
	sigset_t set;
	int sig = 0;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (sigwait(&set, &sig) != 0)
		return NULL;
	pthread_mutex_lock(&interrupt_lock);
	if (interrupt_client != c)
		_exit(sig == SIGINT ? 130 : 128 + sig); /* the call is over; nothing to cancel */
	char path[64 + sizeof c->call_id];
	snprintf(path, sizeof path, "/api/calls/%s/cancel", c->call_id);
	struct apireply r;
	char *err = NULL;
	memset(&r, 0, sizeof r);
	if (apiclient_call(c, "POST", path, "application/json", NULL, "{}", 3000, &r, &err) != 0)
		fprintf(stderr, "\nbrowser-bridge: interrupted; could not cancel the call: %s\n", err);
	else if (r.status == 200)
		fprintf(stderr, "\nbrowser-bridge: interrupted; the call was cancelled in the browser too\n");
	else
		fprintf(stderr, "\nbrowser-bridge: interrupted (the call had already finished)\n");
	_exit(sig == SIGINT ? 130 : 128 + sig);
}

/*
 * Make Ctrl-C cancel the tool call this client is about to make, in the browser too: the call gets
 * a random id (X-Browser-Bridge-Call-Id), and a thread that waits for SIGINT, SIGTERM or SIGHUP
 * asks the daemon to cancel it (POST /api/calls/<id>/cancel) before the process exits. Call once,
 * before the request; the signals are blocked in the calling thread from here on.
 */
void
apiclient_cancel_on_interrupt(struct apiclient *c)
{
	unsigned char rnd[16];
	sigset_t set;
	pthread_t th;
	util_random(rnd, sizeof rnd);
	util_hex(rnd, sizeof rnd, c->call_id);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_mutex_lock(&interrupt_lock);
	interrupt_client = c;
	pthread_mutex_unlock(&interrupt_lock);
	if (pthread_create(&th, NULL, interrupt_main, c) != 0) {
		pthread_sigmask(SIG_UNBLOCK, &set, NULL); /* no thread: Ctrl-C just ends us, as before */
		c->call_id[0] = '\0';
		return;
	}
	pthread_detach(th);
}

/* The daemon's Unix socket when one is there to use, else NULL (then TCP with the token). */
static const char *
usable_socket(const struct config *cfg)
{
	struct stat st;
	if (cfg->api_socket != NULL && lstat(cfg->api_socket, &st) == 0 && S_ISSOCK(st.st_mode))
		return cfg->api_socket;
	return NULL;
}

/* `login-url`: ask the running daemon for a one-time dashboard login link, so the link never
 * carries the token itself; over its Unix socket unless tcp (--http given without --api-socket, as
 * for the other commands). *url is the whole link; -1 with *err when it cannot. */
int
apiclient_login_url(const struct config *cfg, const char *token, int tcp, char **url, char **err)
{
	struct apiclient c = {.cfg = *cfg, .token = (char *)token, .sock = tcp ? NULL : usable_socket(cfg)};
	struct apireply r = {0};
	if (apiclient_call(&c, "POST", "/api/login-code", "application/json", NULL, "{}", BB_CLIENT_QUICK_TIMEOUT_MS, &r, err) != 0)
		return -1;
	json_t *ans = json_loadb(r.body ? r.body : "", r.len, 0, NULL);
	const char *path = json_string_value(json_object_get(ans, "path"));
	int rc = -1;
	if (r.status == 200 && path != NULL && path[0] == '/') {
		*url = xasprintf("http://%s:%d%s", strchr(cfg->http_host, ':') ? "[::1]" : cfg->http_host, cfg->http_port,
		                 path);
		rc = 0;
	} else {
		const char *msg = json_string_value(json_object_get(ans, "message"));
		*err = xasprintf("the daemon did not give a login code (HTTP %d%s%s)", r.status, msg ? ": " : "",
		                 msg ? msg : "");
	}
	json_decref(ans);
	free(r.body);
	return rc;
}

/*
 * Load the settings the daemon uses (the config table's loader: defaults, the settings file, then
 * the user's overrides) and pick the way in: the daemon's Unix socket when it is there (or asked
 * for), so the token stays home; TCP with the token only when there is no socket, or when --http
 * names an address and no --api-socket was given. -1 with *err (and *token_missing when the token
 * could not be read) on failure.
 */
int
apiclient_open(struct apiclient *c, const struct apiclient_opts *o, int need_token, int *token_missing, char **err)
{
	c->token = NULL;
	c->sock = NULL;
	c->call_id[0] = '\0';
	*token_missing = 0;
	if (config_load(&c->cfg, o->config, err) != 0)
		return -1;
	if (o->config == NULL && o->http == NULL && o->api_socket == NULL) /* the running daemon's own word first */
		runfile_apply(&c->cfg, 0, 0, o->token_file != NULL);
	const char *keys[] = {"token_file", "http", "api_socket"};
	const char *vals[] = {o->token_file, o->http, o->api_socket};
	for (int i = 0; i < 3; i++) {
		char *e = NULL;
		if (vals[i] != NULL && config_set(&c->cfg, keys[i], vals[i], &e) != 0) {
			/* config_set names the key (api_socket: ...); the user typed the flag (--api-socket) */
			for (char *q = e; *q && *q != ':'; q++)
				if (*q == '_')
					*q = '-';
			*err = xasprintf("--%s", e);
			free(e);
			return -1;
		}
	}
	if (config_finish(&c->cfg, err) != 0)
		return -1;
	if (c->cfg.api_socket != NULL && (o->api_socket != NULL || (o->http == NULL && usable_socket(&c->cfg) != NULL)))
		c->sock = c->cfg.api_socket;
	if (!need_token || c->sock != NULL)
		return 0;
	c->token = auth_read_token(c->cfg.token_file, 0, err);
	if (c->token == NULL) {
		*token_missing = 1;
		return -1;
	}
	return 0;
}

/* Forget the token and the settings. */
void
apiclient_close(struct apiclient *c)
{
	pthread_mutex_lock(&interrupt_lock); /* the interrupt thread (if any) must not use c any more */
	if (interrupt_client == c)
		interrupt_client = NULL;
	pthread_mutex_unlock(&interrupt_lock);
	if (c->token) {
		explicit_bzero(c->token, strlen(c->token));
		free(c->token);
		c->token = NULL;
	}
	config_free(&c->cfg);
}
