/* Unit tests for src/router.c against a fake transport: Host, Origin, token and session checks,
 * router_allows before a body, JSON bodies, query parameters, and static paths beneath www_dir. */
#include "serve.h" /* first: it must compile on its own (it names struct config) */

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "auth.h"
#include "config.h"
#include "events.h"
#include "fakereq.h"
#include "mcp.h"
#include "router.h"
#include "util.h"
#include "tools.h"
#include "testlib.h"

#define TOKEN "0123456789abcdef0123456789abcdef"

static struct config cfg;
static struct auth *auth;
static struct events *events;
static struct tools *tools;
static struct mcp *mcp;
static struct router *router;
static char www[64], tokfile[64];

static void
setup(void)
{
	char *err = NULL;
	config_init(&cfg);
	snprintf(www, sizeof www, "/tmp/bb-test-www-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(www));
	char *p = xasprintf("%s/index.html", www);
	FILE *f = fopen(p, "w");
	fputs("<!doctype html><title>t</title>", f);
	fclose(f);
	free(p);
	p = xasprintf("%s/app.js", www);
	f = fopen(p, "w");
	fputs("export {};", f);
	fclose(f);
	free(p);
	ck_assert_int_eq(config_set(&cfg, "www", www, &err), 0);
	snprintf(tokfile, sizeof tokfile, "/tmp/bb-test-tok-XXXXXX");
	int fd = mkstemp(tokfile);
	ck_assert_int_eq(write(fd, TOKEN "\n", strlen(TOKEN) + 1), (ssize_t)strlen(TOKEN) + 1);
	close(fd);
	auth = auth_create(tokfile, &err);
	ck_assert_ptr_nonnull(auth);
	events = events_create();
	tools = tools_create(NULL, NULL, events);
	mcp = mcp_create(tools);
	router = router_create(&cfg, auth, NULL, NULL, events, tools, mcp);
}

static void
teardown(void)
{
	router_free(router);
	mcp_free(mcp);
	tools_free(tools);
	events_free(events);
	auth_free(auth);
	config_free(&cfg);
	unlink(tokfile);
	char *cmd = xasprintf("rm -rf '%s'", www);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

/* Route f and return its answer (rendered); exactly one completion. */
static struct rr_resp *
route(struct fakereq *f)
{
	router_handle(router, &f->req);
	struct rr_resp *r = fakereq_wait(f, 2000);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(f->completions, 1);
	return r;
}

/* The "error" code of a JSON error answer. */
static const char *
code_of(struct rr_resp *r, char out[64])
{
	json_t *j = json_loadb(r->body, r->len, 0, NULL);
	snprintf(out, 64, "%s", j ? json_string_value(json_object_get(j, "error")) ?: "" : "");
	json_decref(j);
	return out;
}

START_TEST(host_origin_token)
{
	struct fakereq f;
	char c[64];
	fakereq_init(&f, "GET", "/api/health", NULL);
	fakereq_add_header(&f, "Host", "127.0.0.1:8080");
	ck_assert_int_eq(route(&f)->status, 200);
	fakereq_done(&f);

	fakereq_init(&f, "GET", "/api/health", NULL);
	fakereq_add_header(&f, "Host", "evil.example:8080");
	ck_assert_int_eq(router_allows(router, &f.req), 0);
	ck_assert_str_eq(code_of(route(&f), c), "forbidden_host");
	fakereq_done(&f);

	fakereq_init(&f, "GET", "/api/health", NULL); /* no Host at all */
	ck_assert_int_eq(route(&f)->status, 403);
	fakereq_done(&f);

	fakereq_init(&f, "GET", "/api/tools", NULL);
	fakereq_add_header(&f, "Host", "localhost:8080");
	fakereq_add_header(&f, "Origin", "http://evil.example");
	ck_assert_str_eq(code_of(route(&f), c), "forbidden_origin");
	fakereq_done(&f);

	fakereq_init(&f, "GET", "/api/tools", NULL);
	fakereq_add_header(&f, "Host", "localhost:8080");
	ck_assert_int_eq(router_allows(router, &f.req), 0);
	ck_assert_int_eq(route(&f)->status, 401);
	fakereq_done(&f);

	fakereq_init(&f, "GET", "/api/tools", NULL);
	fakereq_add_header(&f, "Host", "localhost:8080");
	fakereq_add_header(&f, "Authorization", "Bearer " TOKEN "x");
	ck_assert_int_eq(route(&f)->status, 401);
	fakereq_done(&f);

	fakereq_init(&f, "GET", "/api/tools", NULL);
	fakereq_add_header(&f, "Host", "[::1]:8080");
	fakereq_add_header(&f, "Authorization", "Bearer " TOKEN);
	ck_assert_int_eq(router_allows(router, &f.req), 1);
	ck_assert_int_eq(route(&f)->status, 200);
	fakereq_done(&f);

	/* A session cookie counts only on a same-origin fetch. */
	char sid[65];
	ck_assert_int_eq(auth_session_new(auth, sid), 0);
	char *cookie = xasprintf("bb_session=%s", sid);
	fakereq_init(&f, "GET", "/api/tools", NULL);
	fakereq_add_header(&f, "Host", "127.0.0.1:8080");
	fakereq_add_header(&f, "Cookie", cookie);
	ck_assert_str_eq(code_of(route(&f), c), "forbidden_site");
	fakereq_done(&f);
	fakereq_init(&f, "GET", "/api/tools", NULL);
	fakereq_add_header(&f, "Host", "127.0.0.1:8080");
	fakereq_add_header(&f, "Cookie", cookie);
	fakereq_add_header(&f, "Sec-Fetch-Site", "same-origin");
	ck_assert_int_eq(route(&f)->status, 200);
	fakereq_done(&f);
	free(cookie);

	/* The API socket's same-user peer: no Host, no token. */
	fakereq_init(&f, "GET", "/api/tools", NULL);
	f.req.local_peer = 1;
	ck_assert_int_eq(route(&f)->status, 200);
	fakereq_done(&f);
}
END_TEST

START_TEST(bodies_and_queries)
{
	struct fakereq f;
	char c[64];
	fakereq_init(&f, "POST", "/api/tools/browser_click", "{\"target\":\"x\"}");
	fakereq_add_header(&f, "Host", "127.0.0.1");
	fakereq_add_header(&f, "Authorization", "Bearer " TOKEN);
	fakereq_add_header(&f, "Content-Type", "text/plain");
	ck_assert_int_eq(route(&f)->status, 415);
	fakereq_done(&f);

	fakereq_init(&f, "POST", "/api/tools/browser_click", "{\"target\":");
	fakereq_add_header(&f, "Host", "127.0.0.1");
	fakereq_add_header(&f, "Authorization", "Bearer " TOKEN);
	fakereq_add_header(&f, "Content-Type", "application/json; charset=utf-8");
	ck_assert_int_eq(route(&f)->status, 400);
	fakereq_done(&f);

	fakereq_init(&f, "POST", "/api/tools/browser_nope", "{}");
	fakereq_add_header(&f, "Host", "127.0.0.1");
	fakereq_add_header(&f, "Authorization", "Bearer " TOKEN);
	fakereq_add_header(&f, "Content-Type", "application/json");
	ck_assert_str_eq(code_of(route(&f), c), "unknown_tool");
	fakereq_done(&f);

	fakereq_init(&f, "GET", "/api/tools/browser_click", NULL);
	fakereq_add_header(&f, "Host", "127.0.0.1");
	fakereq_add_header(&f, "Authorization", "Bearer " TOKEN);
	ck_assert_int_eq(route(&f)->status, 405);
	fakereq_done(&f);

	fakereq_init(&f, "GET", "/api/history", NULL);
	fakereq_add_header(&f, "Host", "127.0.0.1");
	fakereq_add_header(&f, "Authorization", "Bearer " TOKEN);
	fakereq_add_query(&f, "limit", "0x10");
	ck_assert_str_eq(code_of(route(&f), c), "invalid_params");
	fakereq_done(&f);

	fakereq_init(&f, "GET", "/api/nothing", NULL);
	fakereq_add_header(&f, "Host", "127.0.0.1");
	fakereq_add_header(&f, "Authorization", "Bearer " TOKEN);
	ck_assert_int_eq(route(&f)->status, 404);
	fakereq_done(&f);
}
END_TEST

START_TEST(static_paths)
{
	static const char *const refused[] = {"/../etc/passwd", "/.hidden", "/a/../index.html", "/%2e%2e/x",
	                                      "/nope.js", "relative", "/index.html/"};
	struct fakereq f;
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		fakereq_init(&f, "GET", refused[i], NULL);
		fakereq_add_header(&f, "Host", "127.0.0.1");
		ck_assert_msg(route(&f)->status == 404, "%s was served", refused[i]);
		fakereq_done(&f);
	}
	fakereq_init(&f, "GET", "/", NULL);
	fakereq_add_header(&f, "Host", "127.0.0.1");
	struct rr_resp *r = route(&f);
	ck_assert_int_eq(r->status, 200);
	ck_assert(strncmp(r->content_type, "text/html", 9) == 0);
	ck_assert_uint_eq(r->len, strlen("<!doctype html><title>t</title>"));
	fakereq_done(&f);
	fakereq_init(&f, "GET", "/app.js", NULL);
	fakereq_add_header(&f, "Host", "127.0.0.1");
	r = route(&f);
	ck_assert_int_eq(r->status, 200);
	ck_assert(strstr(r->content_type, "javascript") != NULL);
	fakereq_done(&f);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("router");
	TCase *tc = tcase_create("router");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, host_origin_token);
	tcase_add_test(tc, bodies_and_queries);
	tcase_add_test(tc, static_paths);
	suite_add_tcase(s, tc);
	return testlib_run(s, 1);
}
