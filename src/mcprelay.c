/* mcprelay.c -- see mcprelay.h. */
#include "autoconfig.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "limits.h"
#include "mcprelay.h"
#include "util.h"

/* Extra time beyond the longest call, so the daemon's own timeout answer arrives first. */
#define MCPRELAY_GRACE_MS 5000

/*
 * What the relay shares between the main thread (reading stdin) and the threads of the tool calls
 * in flight: the session, and what it needs to start one again after a daemon restart. lock guards
 * it all; stdout is written a whole line at a time under flockfile.
 */
struct relay {
	const struct apiclient *c;
	pthread_mutex_t lock;
	pthread_cond_t idle; /* signalled when a call thread ends */
	int n_calls;         /* call threads running */
	char session[65], version[32];
	char *init;        /* the client's initialize request line, or NULL */
	char *initialized; /* its notifications/initialized line, or NULL */
};

/* Write one line (a JSON-RPC message) to stdout, whole, whatever other threads write. */
static void
out_line(const char *s, size_t len)
{
	flockfile(stdout);
	fwrite(s, 1, len, stdout);
	putchar('\n');
	fflush(stdout);
	funlockfile(stdout);
}

/* Write one JSON-RPC error line for a message the daemon could not be asked about. */
static void
mcp_error_line(json_t *id, int code, const char *msg)
{
	json_t *e = json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", id ? id : json_null(), "error", "code",
	                      code, "message", msg);
	char *s = json_dumps(e, JSON_COMPACT);
	out_line(s, strlen(s));
	free(s);
	json_decref(e);
}

/* An event stream's bytes as they come (a tools/call with progress): each event's data is one
 * JSON-RPC message, written out as one line at once (progress notifications, then the result). */
struct sse_out {
	struct buf pending; /* bytes of an event not yet complete */
};

/* apiclient_data_fn: split the stream into events and write each one's data line. */
static void
sse_out_data(const char *data, size_t len, void *arg)
{
	struct sse_out *o = arg;
	buf_add(&o->pending, data, len);
	char *ev;
	while ((ev = strstr(o->pending.data, "\n\n")) != NULL) {
		size_t n = (size_t)(ev - o->pending.data) + 2;
		*ev = '\0';
		for (char *line = o->pending.data, *next; line != NULL; line = next) {
			next = strchr(line, '\n');
			if (next != NULL)
				*next++ = '\0';
			if (strncmp(line, "data:", 5) == 0) {
				const char *d = line[5] == ' ' ? line + 6 : line + 5;
				out_line(d, strlen(d));
			}
		}
		memmove(o->pending.data, o->pending.data + n, o->pending.len - n + 1);
		o->pending.len -= n;
	}
}

/*
 * POST one message to /mcp with the session's headers; 0 with *r filled (caller frees r->body), or -1
 * with *err when the daemon could not be reached. A tools/call with a progress token is answered
 * as an event stream, whose messages go to stdout as they come when out is set (r->streamed).
 * used (65 bytes) gets the session id the message was sent with.
 */
static int
relay_post(struct relay *rl, const char *line, int is_init, int out, char *used, struct apireply *r, char **err)
{
	struct buf extra = {0};
	pthread_mutex_lock(&rl->lock);
	if (rl->session[0] && !is_init)
		buf_printf(&extra, "Mcp-Session-Id: %s\r\n", rl->session);
	if (rl->version[0] && !is_init)
		buf_printf(&extra, "MCP-Protocol-Version: %s\r\n", rl->version);
	memcpy(used, rl->session, sizeof rl->session);
	pthread_mutex_unlock(&rl->lock);
	memset(r, 0, sizeof *r);
	struct sse_out o = {{0}};
	int rc = apiclient_call_stream(rl->c, "POST", "/mcp", out ? "application/json, text/event-stream" : "application/json",
	                               extra.data, line, BB_CALL_TIMEOUT_MAX_MS + MCPRELAY_GRACE_MS, sse_out_data, &o, r,
	                               err);
	buf_free(&o.pending);
	buf_free(&extra);
	if (rc == 0 && r->session[0]) {
		pthread_mutex_lock(&rl->lock);
		snprintf(rl->session, sizeof rl->session, "%s", r->session);
		pthread_mutex_unlock(&rl->lock);
	}
	return rc;
}

/*
 * The daemon forgot our session (it restarted: 404, or it was down a moment ago): replay the
 * client's initialize and its initialized notification, so later messages carry a new session id.
 * The answers are the daemon's, not the client's business: they are not written out. failed is the
 * session the message was sent with: when another thread has started a new one since, that one is
 * used. 0 when there is a new session.
 */
static int
relay_reinit(struct relay *rl, const char *failed)
{
	static pthread_mutex_t one = PTHREAD_MUTEX_INITIALIZER; /* one restart at a time */
	struct apireply r;
	char *err = NULL, used[65], *init = NULL, *initialized = NULL;
	int rc = -1;
	pthread_mutex_lock(&one);
	pthread_mutex_lock(&rl->lock);
	int renewed = strcmp(rl->session, failed) != 0 && rl->session[0];
	if (!renewed && rl->init != NULL) {
		init = xstrdup(rl->init);
		initialized = rl->initialized ? xstrdup(rl->initialized) : NULL;
		rl->session[0] = '\0';
	}
	pthread_mutex_unlock(&rl->lock);
	if (renewed) {
		rc = 0;
		goto done;
	}
	if (init == NULL)
		goto done;
	if (relay_post(rl, init, 1, 0, used, &r, &err) != 0 || r.status != 200 || !r.session[0]) {
		fprintf(stderr, "browser-bridge mcp: could not start a new session with the daemon: %s\n",
		        err ? err : "initialize was refused");
		free(err);
		free(r.body);
		goto done;
	}
	free(r.body);
	if (initialized != NULL) {
		if (relay_post(rl, initialized, 0, 0, used, &r, &err) != 0)
			free(err);
		free(r.body);
	}
	fprintf(stderr, "browser-bridge mcp: the daemon restarted; started a new session\n");
	rc = 0;
done:
	pthread_mutex_unlock(&one);
	free(init);
	free(initialized);
	return rc;
}

/* Relay one message and write the daemon's answer; after a daemon restart, start a new session
 * (relay_reinit) and send it once more. */
static void
relay_one(struct relay *rl, const char *line, json_t *id, int is_init)
{
	struct apireply r;
	char *err = NULL, used[65];
	int rc = relay_post(rl, line, is_init, 1, used, &r, &err);
	pthread_mutex_lock(&rl->lock);
	int can_reinit = !is_init && rl->init != NULL;
	pthread_mutex_unlock(&rl->lock);
	/* A restarted daemon: 404 for our session, or no answer at all while it was away. */
	if (can_reinit && (rc != 0 || r.status == 404) && relay_reinit(rl, used) == 0) {
		free(err);
		err = NULL;
		free(r.body);
		rc = relay_post(rl, line, 0, 1, used, &r, &err);
	}
	if (rc != 0) {
		fprintf(stderr, "browser-bridge mcp: %s\n", err);
		if (id)
			mcp_error_line(id, -32603, err);
		free(err);
	} else {
		if (r.status != 202 && r.len > 0 && !r.streamed)
			out_line(r.body, r.len); /* the daemon answers with compact JSON: already one line */
		if (r.status == 401 || r.status == 403)
			fprintf(stderr, "browser-bridge mcp: the daemon refused us (HTTP %d); check the token file\n",
			        r.status);
	}
	free(r.body);
}

/* A tools/call relayed on a thread of its own, so that later messages (notifications/cancelled
 * for it, other calls) are relayed while it waits. */
struct call_job {
	struct relay *rl;
	char *line;
	json_t *id;
};

/* Thread body of a tools/call. */
static void *
call_main(void *arg)
{
	struct call_job *j = arg;
	struct relay *rl = j->rl;
	relay_one(rl, j->line, j->id, 0);
	free(j->line);
	json_decref(j->id);
	free(j);
	pthread_mutex_lock(&rl->lock);
	rl->n_calls--;
	pthread_cond_signal(&rl->idle);
	pthread_mutex_unlock(&rl->lock);
	return NULL;
}

/* Start a thread for a tools/call; 0, or -1 when there are too many already (relay it inline). */
static int
call_spawn(struct relay *rl, const char *line, json_t *id)
{
	pthread_mutex_lock(&rl->lock);
	if (rl->n_calls >= BB_MCPRELAY_CALLS_MAX) {
		pthread_mutex_unlock(&rl->lock);
		return -1;
	}
	rl->n_calls++;
	pthread_mutex_unlock(&rl->lock);
	struct call_job *j = xcalloc(1, sizeof *j);
	j->rl = rl;
	j->line = xstrdup(line);
	j->id = json_incref(id);
	pthread_t th;
	if (pthread_create(&th, NULL, call_main, j) != 0) {
		free(j->line);
		json_decref(j->id);
		free(j);
		pthread_mutex_lock(&rl->lock);
		rl->n_calls--;
		pthread_mutex_unlock(&rl->lock);
		return -1;
	}
	pthread_detach(th);
	return 0;
}

/*
 * `mcp`: the stdio transport of MCP, relayed to Streamable HTTP. Each line on stdin is one message;
 * requests get the daemon's answer on stdout (one line), notifications get nothing. The session id
 * from initialize is sent with every later message, as the HTTP transport requires. A tools/call
 * waits on a thread of its own, so a notifications/cancelled for it (or another call) goes through
 * meanwhile; its progress notifications are written as they come. When the daemon restarted (it no
 * longer knows the session, or could not be reached), the relay starts a new session by itself
 * (relay_reinit) and sends the message once more, so the client never notices. At the end of
 * stdin it waits for the calls in flight.
 */
void
mcprelay_run(const struct apiclient *c)
{
	struct relay rl = {.c = c};
	pthread_mutex_init(&rl.lock, NULL);
	pthread_cond_init(&rl.idle, NULL);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, stdin)) > 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n == 0)
			continue;
		json_t *msg = json_loads(line, 0, NULL);
		json_t *id = json_object_get(msg, "id");
		const char *method = json_string_value(json_object_get(msg, "method"));
		int is_init = method && strcmp(method, "initialize") == 0;
		pthread_mutex_lock(&rl.lock);
		if (is_init) {
			const char *v = json_string_value(json_object_get(json_object_get(msg, "params"), "protocolVersion"));
			snprintf(rl.version, sizeof rl.version, "%s", v ? v : "");
			free(rl.init);
			rl.init = xstrdup(line);
		} else if (method && strcmp(method, "notifications/initialized") == 0 && rl.initialized == NULL) {
			rl.initialized = xstrdup(line);
		}
		pthread_mutex_unlock(&rl.lock);
		if (!(method && id && strcmp(method, "tools/call") == 0 && call_spawn(&rl, line, id) == 0))
			relay_one(&rl, line, id, is_init);
		json_decref(msg);
	}
	free(line);
	pthread_mutex_lock(&rl.lock);
	while (rl.n_calls > 0)
		pthread_cond_wait(&rl.idle, &rl.lock);
	pthread_mutex_unlock(&rl.lock);
	free(rl.init);
	free(rl.initialized);
	pthread_cond_destroy(&rl.idle);
	pthread_mutex_destroy(&rl.lock);
}
