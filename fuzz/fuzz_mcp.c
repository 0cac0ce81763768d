/* libFuzzer target for src/mcp.c: hostile JSON-RPC bodies (and session and protocol-version
 * headers) over the fake transport. Session ids come from mcp_test_seed, so a crash reproduces.
 * Every message is answered exactly once with a JSON body; an error carries a JSON-RPC code.
 * See fuzz/README. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "events.h"
#include "fakereq.h"
#include "hub.h"
#include "log.h"
#include "mcp.h"
#include "tools.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct mcp *mcp;
static char session[64];

static void
noop_wake(void *arg)
{
	(void)arg;
}

/* An endpoint over a hub without browsers, and one live session. */
static void
init(void)
{
	log_set_level(LOG_ERROR);
	struct events *ev = events_create();
	struct hub *hub = hub_create(NULL, ev, noop_wake, NULL);
	mcp = mcp_create(tools_create(hub, NULL, ev));
	mcp_test_seed(mcp, 7);
	struct fakereq f;
	fakereq_init(&f, "POST", "/mcp", "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\"}");
	fakereq_add_header(&f, "Content-Type", "application/json");
	mcp_handle(mcp, &f.req);
	struct rr_resp *r = fakereq_wait(&f, 1000);
	if (r == NULL || r->extra_value == NULL)
		abort();
	snprintf(session, sizeof session, "%s", r->extra_value);
	fakereq_done(&f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (mcp == NULL)
		init();
	if (size == 0)
		return 0;
	char *body = malloc(size);
	memcpy(body, data + 1, size - 1);
	struct fakereq f;
	static const char *const methods[] = {"POST", "POST", "POST", "GET", "DELETE", "PUT"};
	fakereq_init(&f, methods[(data[0] >> 2) % 6], "/mcp", NULL);
	f.req.body = body;
	f.req.body_len = size - 1;
	fakereq_add_header(&f, "Content-Type", data[0] & 0x40 ? "text/plain" : "application/json");
	if (data[0] & 1)
		fakereq_add_header(&f, "Mcp-Session-Id", session);
	if (data[0] & 2)
		fakereq_add_header(&f, "MCP-Protocol-Version", data[0] & 0x80 ? "1999-01-01" : "2025-06-18");
	mcp_handle(mcp, &f.req);
	struct rr_resp *r = fakereq_wait(&f, 10000);
	if (r == NULL || f.completions != 1 || r->status < 200 || r->status > 599)
		abort();
	json_t *j = json_loadb(r->body, r->len, 0, NULL);
	if (j == NULL)
		abort(); /* every answer is JSON */
	json_t *err = json_object_get(j, "error");
	if (json_is_object(err) && !json_is_integer(json_object_get(err, "code")))
		abort();
	json_decref(j);
	fakereq_done(&f);
	free(body);
	return 0;
}
