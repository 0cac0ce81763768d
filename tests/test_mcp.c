/* Unit tests for src/mcp.c against a fake transport: initialize and sessions (reproducible with
 * mcp_test_seed), tools/list, and the JSON-RPC errors for malformed input. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fakereq.h"
#include "mcp.h"
#include "tools.h"
#include "testlib.h"

static struct tools *tools;
static struct mcp *mcp;

static void
setup(void)
{
	tools = tools_create(NULL, NULL, NULL);
	mcp = mcp_create(tools);
	mcp_test_seed(mcp, 42);
}

static void
teardown(void)
{
	mcp_free(mcp);
	tools_free(tools);
}

/* POST body to /mcp with the session (may be NULL); the parsed JSON answer and the HTTP status. */
static json_t *
post(const char *body, const char *session, int *status, char session_out[64])
{
	struct fakereq f;
	fakereq_init(&f, "POST", "/mcp", body);
	fakereq_add_header(&f, "Content-Type", "application/json");
	if (session)
		fakereq_add_header(&f, "Mcp-Session-Id", session);
	mcp_handle(mcp, &f.req);
	struct rr_resp *r = fakereq_wait(&f, 2000);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(f.completions, 1);
	*status = r->status;
	if (session_out) {
		ck_assert_str_eq(r->extra_name, "Mcp-Session-Id");
		snprintf(session_out, 64, "%s", r->extra_value);
	}
	json_t *j = json_loadb(r->body, r->len, 0, NULL);
	ck_assert_ptr_nonnull(j);
	fakereq_done(&f);
	return j;
}

static int
rpc_code(json_t *j)
{
	return (int)json_integer_value(json_object_get(json_object_get(j, "error"), "code"));
}

START_TEST(initialize_list_and_sessions)
{
	int st;
	char sid[64], sid2[64];
	json_t *j = post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}",
	                 NULL, &st, sid);
	ck_assert_int_eq(st, 200);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "result"), "protocolVersion")), "2025-06-18");
	ck_assert_uint_eq(strlen(sid), 32);
	json_decref(j);
	/* The seed makes the ids reproducible: a second endpoint with the same seed issues the same id. */
	struct mcp *first = mcp;
	mcp = mcp_create(tools);
	mcp_test_seed(mcp, 42);
	j = post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}", NULL, &st, sid2);
	json_decref(j);
	ck_assert_str_eq(sid, sid2);
	mcp_free(mcp);
	mcp = first;
	j = post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}", sid, &st, NULL);
	ck_assert_int_eq(st, 200);
	ck_assert_int_gt(json_array_size(json_object_get(json_object_get(j, "result"), "tools")), 5);
	json_decref(j);
	j = post("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"nope\"}", sid, &st, NULL);
	ck_assert_int_eq(rpc_code(j), -32601);
	json_decref(j);
	j = post("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"browser_nope\"}}", sid, &st, NULL);
	ck_assert_int_eq(rpc_code(j), -32602);
	json_decref(j);
	j = post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", sid, &st, NULL);
	ck_assert_int_eq(st, 202);
	json_decref(j);
	/* DELETE ends the session; it is then unknown. */
	struct fakereq f;
	fakereq_init(&f, "DELETE", "/mcp", NULL);
	fakereq_add_header(&f, "Mcp-Session-Id", sid);
	mcp_handle(mcp, &f.req);
	ck_assert_int_eq(fakereq_wait(&f, 1000)->status, 200);
	fakereq_done(&f);
	j = post("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}", sid, &st, NULL);
	ck_assert_int_eq(st, 404);
	ck_assert_int_eq(rpc_code(j), -32001);
	json_decref(j);
}
END_TEST

START_TEST(malformed)
{
	int st;
	json_t *j = post("{\"jsonrpc\":", NULL, &st, NULL);
	ck_assert_int_eq(st, 400);
	ck_assert_int_eq(rpc_code(j), -32700);
	json_decref(j);
	j = post("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", NULL, &st, NULL);
	ck_assert_int_eq(rpc_code(j), -32600);
	json_decref(j);
	j = post("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", NULL, &st, NULL);
	ck_assert_int_eq(rpc_code(j), -32600);
	json_decref(j);
	j = post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", NULL, &st, NULL);
	ck_assert_int_eq(st, 400); /* no session */
	json_decref(j);
	j = post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", "0123456789abcdef0123456789abcdef", &st, NULL);
	ck_assert_int_eq(st, 404);
	json_decref(j);
	j = post("{\"jsonrpc\":\"2.0\",\"method\":\"initialize\"}", NULL, &st, NULL);
	ck_assert_int_eq(rpc_code(j), -32600); /* initialize without an id */
	json_decref(j);
	/* Not JSON by its Content-Type: 415, whatever the body. */
	struct fakereq f;
	fakereq_init(&f, "POST", "/mcp", "{}");
	fakereq_add_header(&f, "Content-Type", "text/plain");
	mcp_handle(mcp, &f.req);
	ck_assert_int_eq(fakereq_wait(&f, 1000)->status, 415);
	fakereq_done(&f);
	fakereq_init(&f, "GET", "/mcp", NULL);
	mcp_handle(mcp, &f.req);
	ck_assert_int_eq(fakereq_wait(&f, 1000)->status, 405);
	ck_assert_int_eq(f.completions, 1);
	fakereq_done(&f);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("mcp");
	TCase *tc = tcase_create("mcp");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, initialize_list_and_sessions);
	tcase_add_test(tc, malformed);
	suite_add_tcase(s, tc);
	return testlib_run(s, 1);
}
