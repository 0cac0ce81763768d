/* mcprelay.c -- see mcprelay.h. */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "limits.h"
#include "mcprelay.h"
#include "util.h"

/* Extra time beyond the longest call, so the daemon's own timeout answer arrives first. */
#define MCPRELAY_GRACE_MS 5000

/* Write one JSON-RPC error line for a message the daemon could not be asked about. */
static void
mcp_error_line(json_t *id, int code, const char *msg)
{
	json_t *e = json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", id ? id : json_null(), "error", "code",
	                      code, "message", msg);
	char *s = json_dumps(e, JSON_COMPACT);
	printf("%s\n", s);
	fflush(stdout);
	free(s);
	json_decref(e);
}

/* What the relay remembers to start a session again after a daemon restart. */
struct relay {
	const struct apiclient *c;
	char session[65], version[32];
	char *init;        /* the client's initialize request line, or NULL */
	char *initialized; /* its notifications/initialized line, or NULL */
};

/*
 * POST one message to /mcp with the session's headers; 0 with *r filled (caller frees r->body), or -1
 * with *err when the daemon could not be reached. Only the daemon's JSON is asked for (Accept): the
 * relay answers each request with one line, so it never takes a progress stream.
 */
static int
relay_post(struct relay *rl, const char *line, int is_init, struct apireply *r, char **err)
{
	struct buf extra = {0};
	if (rl->session[0] && !is_init)
		buf_printf(&extra, "Mcp-Session-Id: %s\r\n", rl->session);
	if (rl->version[0] && !is_init)
		buf_printf(&extra, "MCP-Protocol-Version: %s\r\n", rl->version);
	memset(r, 0, sizeof *r);
	int rc = apiclient_call(rl->c, "POST", "/mcp", "application/json", extra.data, line,
	                        BB_CALL_TIMEOUT_MAX_MS + MCPRELAY_GRACE_MS, r, err);
	buf_free(&extra);
	if (rc == 0 && r->session[0])
		snprintf(rl->session, sizeof rl->session, "%s", r->session);
	return rc;
}

/*
 * The daemon forgot our session (it restarted: 404, or it was down a moment ago): replay the
 * client's initialize and its initialized notification, so later messages carry a new session id.
 * The answers are the daemon's, not the client's business: they are not written out. 0 when a new
 * session was made.
 */
static int
relay_reinit(struct relay *rl)
{
	struct apireply r;
	char *err = NULL;
	if (rl->init == NULL)
		return -1;
	rl->session[0] = '\0';
	if (relay_post(rl, rl->init, 1, &r, &err) != 0 || r.status != 200 || !rl->session[0]) {
		fprintf(stderr, "browser-bridge mcp: could not start a new session with the daemon: %s\n",
		        err ? err : "initialize was refused");
		free(err);
		free(r.body);
		return -1;
	}
	free(r.body);
	if (rl->initialized != NULL) {
		if (relay_post(rl, rl->initialized, 0, &r, &err) != 0)
			free(err);
		free(r.body);
	}
	fprintf(stderr, "browser-bridge mcp: the daemon restarted; started a new session\n");
	return 0;
}

/*
 * `mcp`: the stdio transport of MCP, relayed to Streamable HTTP. Each line on stdin is one message;
 * requests get the daemon's answer on stdout (one line), notifications get nothing. The session id
 * from initialize is sent with every later message, as the HTTP transport requires. When the daemon
 * restarted (it no longer knows the session, or could not be reached), the relay starts a new
 * session by itself (relay_reinit) and sends the message once more, so the client never notices.
 */
void
mcprelay_run(const struct apiclient *c)
{
	struct relay rl = {.c = c};
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
		if (is_init) {
			const char *v = json_string_value(json_object_get(json_object_get(msg, "params"), "protocolVersion"));
			snprintf(rl.version, sizeof rl.version, "%s", v ? v : "");
			free(rl.init);
			rl.init = xstrdup(line);
		} else if (method && strcmp(method, "notifications/initialized") == 0 && rl.initialized == NULL) {
			rl.initialized = xstrdup(line);
		}
		struct apireply r;
		char *err = NULL;
		int rc = relay_post(&rl, line, is_init, &r, &err);
		/* A restarted daemon: 404 for our session, or no answer at all while it was away. */
		if (!is_init && rl.init != NULL && (rc != 0 || r.status == 404) && relay_reinit(&rl) == 0) {
			free(err);
			err = NULL;
			free(r.body);
			rc = relay_post(&rl, line, 0, &r, &err);
		}
		if (rc != 0) {
			fprintf(stderr, "browser-bridge mcp: %s\n", err);
			if (id)
				mcp_error_line(id, -32603, err);
			free(err);
		} else {
			if (r.status != 202 && r.len > 0) {
				/* The daemon answers with compact JSON: already one line. */
				fwrite(r.body, 1, r.len, stdout);
				putchar('\n');
				fflush(stdout);
			}
			if (r.status == 401 || r.status == 403)
				fprintf(stderr, "browser-bridge mcp: the daemon refused us (HTTP %d); check the token file\n",
				        r.status);
		}
		free(r.body);
		json_decref(msg);
	}
	free(line);
	free(rl.init);
	free(rl.initialized);
}
