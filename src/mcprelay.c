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

/*
 * `mcp`: the stdio transport of MCP, relayed to Streamable HTTP. Each line on stdin is one message;
 * requests get the daemon's answer on stdout (one line), notifications get nothing. The session id
 * from initialize is sent with every later message, as the HTTP transport requires.
 */
void
mcprelay_run(const struct apiclient *c)
{
	char session[65] = "", version[32] = "";
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
		if (method && strcmp(method, "initialize") == 0) {
			const char *v = json_string_value(json_object_get(json_object_get(msg, "params"), "protocolVersion"));
			snprintf(version, sizeof version, "%s", v ? v : "");
		}
		struct buf extra = {0};
		if (session[0])
			buf_printf(&extra, "Mcp-Session-Id: %s\r\n", session);
		if (version[0] && !(method && strcmp(method, "initialize") == 0))
			buf_printf(&extra, "MCP-Protocol-Version: %s\r\n", version);
		struct apireply r;
		char *err = NULL;
		memset(&r, 0, sizeof r);
		if (apiclient_call(c, "POST", "/mcp", "application/json, text/event-stream", extra.data, line,
		              BB_CALL_TIMEOUT_MAX_MS + MCPRELAY_GRACE_MS, &r, &err) != 0) {
			fprintf(stderr, "browser-bridge mcp: %s\n", err);
			if (id)
				mcp_error_line(id, -32603, err);
			free(err);
		} else {
			if (r.session[0])
				snprintf(session, sizeof session, "%s", r.session);
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
		buf_free(&extra);
		json_decref(msg);
	}
	free(line);
}

