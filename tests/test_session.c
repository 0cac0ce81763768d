/* Unit tests for src/session.c: ownership, adoption or a new tab, approval, revocation, expiry. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hub.h"
#include "session.h"
#include "util.h"
#include "testlib.h"

static long fake_active = -1; /* the active tab the fake hub reports */
static int fake_err = 0;

static int
pick(void *arg, const char *client_id, char out[BB_CLIENT_ID_MAX + 1], long *active)
{
	(void)arg;
	if (fake_err)
		return fake_err;
	snprintf(out, BB_CLIENT_ID_MAX + 1, "%s", client_id ? client_id : "desk");
	*active = fake_active;
	return 0;
}

static struct sessions *
mk(int approve, int64_t ttl_ms)
{
	fake_active = 1;
	fake_err = 0;
	struct session_env env = {pick, NULL, NULL, NULL, NULL, NULL, ttl_ms, approve};
	return session_create(&env);
}

/* Route a call of session key with the given explicit tab; returns the verdict. */
static int
route(struct sessions *s, struct session_call *c, const char *key, long tab, json_t **err, int *http)
{
	memset(c, 0, sizeof *c);
	c->key = key;
	c->name = key;
	c->tab_id = tab;
	*err = NULL;
	return session_route(s, c, 1000, NULL, NULL, err, http);
}

START_TEST(adopt_then_new_tab_then_ownership)
{
	struct sessions *s = mk(0, 60000);
	struct session_call a, b, d;
	json_t *err;
	int http;
	/* a adopts the active tab 1 */
	ck_assert_int_eq(route(s, &a, "mcp:a", -1, &err, &http), SESSION_GO);
	ck_assert_int_eq(a.tab_out, 1);
	ck_assert_int_eq(a.new_tab, 0);
	ck_assert_str_eq(a.client_out, "desk");
	ck_assert_int_eq(a.page_id[0], 'p');
	session_done(s, &a, "desk", 1);
	/* b finds tab 1 taken: it gets a new tab, learnt when the call ends */
	ck_assert_int_eq(route(s, &b, "mcp:b", -1, &err, &http), SESSION_GO);
	ck_assert_int_eq(b.tab_out, -1);
	ck_assert_int_eq(b.new_tab, 1);
	char page_b[SESSION_PAGE_ID_LEN + 1];
	strcpy(page_b, b.page_id);
	session_done(s, &b, "desk", 9);
	ck_assert_int_eq(route(s, &b, "mcp:b", -1, &err, &http), SESSION_GO);
	ck_assert_int_eq(b.tab_out, 9);
	ck_assert_str_eq(b.page_id, page_b);
	session_done(s, &b, "desk", 9);
	/* a names b's tab: refused, naming the owner */
	ck_assert_int_eq(route(s, &a, "mcp:a", 9, &err, &http), SESSION_FAIL);
	ck_assert_int_eq(http, 409);
	ck_assert_str_eq(json_string_value(json_object_get(err, "error")), "tab_owned");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(err, "message")), "\"mcp:b\""));
	json_decref(err);
	/* so is the default session */
	ck_assert_int_eq(route(s, &d, "", 9, &err, &http), SESSION_FAIL);
	json_decref(err);
	/* but its un-targeted calls go where they always went */
	ck_assert_int_eq(route(s, &d, "", -1, &err, &http), SESSION_GO);
	ck_assert_int_eq(d.tab_out, -1);
	ck_assert_str_eq(d.client_out, "");
	/* a opens a new tab (tabless): it becomes its current tab */
	route(s, &a, "mcp:a", -1, &err, &http);
	session_done(s, &a, "desk", 1);
	memset(&a, 0, sizeof a);
	a.key = a.name = "mcp:a";
	a.tab_id = -1;
	a.tabless = 1;
	ck_assert_int_eq(session_route(s, &a, 1000, NULL, NULL, &err, &http), SESSION_GO);
	ck_assert_int_eq(a.tab_out, -1);
	session_done(s, &a, "desk", 12);
	ck_assert_int_eq(route(s, &a, "mcp:a", -1, &err, &http), SESSION_GO);
	ck_assert_int_eq(a.tab_out, 12);
	session_done(s, &a, "desk", 12);
	/* the user closes tab 12 (seen in a tabs list, then gone): a is back on tab 1 */
	json_t *tabs = json_pack("[{s:i}, {s:i}, {s:i}]", "tabId", 1, "tabId", 9, "tabId", 12);
	session_on_tabs(s, "desk", tabs);
	json_decref(tabs);
	tabs = json_pack("[{s:i}, {s:i}]", "tabId", 1, "tabId", 9);
	session_on_tabs(s, "desk", tabs);
	json_decref(tabs);
	ck_assert_int_eq(route(s, &a, "mcp:a", -1, &err, &http), SESSION_GO);
	ck_assert_int_eq(a.tab_out, 1);
	session_done(s, &a, "desk", 1);
	/* close_tab releases: then anyone may name it */
	memset(&b, 0, sizeof b);
	b.key = b.name = "mcp:b";
	b.tab_id = 9;
	b.releases = 1;
	ck_assert_int_eq(session_route(s, &b, 1000, NULL, NULL, &err, &http), SESSION_GO);
	session_done(s, &b, "desk", 9);
	ck_assert_int_eq(route(s, &a, "mcp:a", 9, &err, &http), SESSION_GO);
	session_done(s, &a, "desk", 9);
	/* a tab the browser did not report (it does not exist) is never taken: b may name it next */
	ck_assert_int_eq(route(s, &a, "mcp:a", 50, &err, &http), SESSION_GO);
	session_done(s, &a, "desk", -1);
	ck_assert_int_eq(route(s, &b, "mcp:b", 50, &err, &http), SESSION_GO);
	session_done(s, &b, "desk", 50);
	ck_assert_int_eq(route(s, &a, "mcp:a", 50, &err, &http), SESSION_FAIL);
	json_decref(err);
	json_t *list = session_list(s);
	ck_assert_int_eq(json_array_size(list), 2);
	json_decref(list);
	session_shutdown(s);
	session_free(s);
}
END_TEST

static int resumed[8];
static int n_resumed;

static void
on_resume(enum session_verdict v, void *arg)
{
	(void)arg;
	resumed[n_resumed++ % 8] = (int)v;
}

/* The id of the only session with this name. */
static void
id_of(struct sessions *s, const char *name, char *out)
{
	json_t *list = session_list(s);
	size_t i;
	json_t *x;
	out[0] = '\0';
	json_array_foreach(list, i, x)
	{
		if (!strcmp(json_string_value(json_object_get(x, "name")), name))
			strcpy(out, json_string_value(json_object_get(x, "id")));
	}
	json_decref(list);
}

START_TEST(approval_decline_revoke_expiry)
{
	n_resumed = 0;
	struct sessions *s = mk(1, 60000);
	struct session_call c;
	json_t *err = NULL;
	int http;
	memset(&c, 0, sizeof c);
	c.key = c.name = "mcp:x";
	c.tab_id = -1;
	ck_assert_int_eq(session_route(s, &c, 100000, on_resume, NULL, &err, &http), SESSION_WAIT);
	char id[SESSION_ID_LEN + 1];
	id_of(s, "mcp:x", id);
	ck_assert_int_eq(id[0], 's');
	char *e = NULL;
	ck_assert_int_eq(session_control(s, id, "revoke-ish", &e), -3);
	free(e);
	ck_assert_int_eq(session_control(s, "s000000000000", "approve", &e), -1);
	free(e);
	ck_assert_int_eq(session_control(s, id, "approve", &e), 0);
	ck_assert_int_eq(n_resumed, 1);
	ck_assert_int_eq(resumed[0], SESSION_GO);
	ck_assert_int_eq(session_control(s, id, "approve", &e), -2);
	free(e);
	/* the resumed call routes again, now as an active session */
	ck_assert_int_eq(session_route(s, &c, 1000, on_resume, NULL, &err, &http), SESSION_GO);
	session_done(s, &c, "desk", 1);
	/* a second session is declined: its waiting call fails, and so do later ones */
	struct session_call y;
	memset(&y, 0, sizeof y);
	y.key = y.name = "mcp:y";
	y.tab_id = -1;
	ck_assert_int_eq(session_route(s, &y, 100000, on_resume, NULL, &err, &http), SESSION_WAIT);
	id_of(s, "mcp:y", id);
	ck_assert_int_eq(session_control(s, id, "decline", &e), 0);
	ck_assert_int_eq(resumed[1], SESSION_DECLINED);
	ck_assert_int_eq(session_route(s, &y, 1000, on_resume, NULL, &err, &http), SESSION_FAIL);
	ck_assert_int_eq(http, 403);
	ck_assert_str_eq(json_string_value(json_object_get(err, "error")), "session_declined");
	json_decref(err);
	/* x is revoked: its tab is released, its calls fail */
	id_of(s, "mcp:x", id);
	ck_assert_int_eq(session_control(s, id, "revoke", &e), 0);
	ck_assert_int_eq(session_route(s, &c, 1000, on_resume, NULL, &err, &http), SESSION_FAIL);
	ck_assert_str_eq(json_string_value(json_object_get(err, "error")), "session_revoked");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(err, "message")), "mcp:x"));
	json_decref(err);
	/* a call waiting for approval past its bound times out */
	struct session_call z;
	memset(&z, 0, sizeof z);
	z.key = z.name = "mcp:z";
	z.tab_id = -1;
	ck_assert_int_eq(session_route(s, &z, 10, on_resume, NULL, &err, &http), SESSION_WAIT);
	int64_t next = session_tick(s, util_mono_ms());
	ck_assert(next > 0);
	session_tick(s, util_mono_ms() + 20);
	ck_assert_int_eq(resumed[2], SESSION_TIMEOUT);
	/* everything expires after the TTL: the tombstones go too, and the keys start afresh */
	ck_assert_int_eq(session_tick(s, util_mono_ms() + 61000), -1);
	json_t *list = session_list(s);
	ck_assert_int_eq(json_array_size(list), 0);
	json_decref(list);
	ck_assert_int_eq(session_route(s, &c, 1000, on_resume, NULL, &err, &http), SESSION_WAIT);
	session_shutdown(s);
	ck_assert_int_eq(resumed[3], SESSION_GONE);
	session_free(s);
}
END_TEST

START_TEST(cancel_parked_call)
{
	n_resumed = 0;
	struct sessions *s = mk(1, 60000);
	struct session_call a, b;
	json_t *err = NULL;
	int http;
	memset(&a, 0, sizeof a);
	a.key = a.name = "mcp:p";
	a.tab_id = -1;
	a.cancel_key = "mcp:p#1";
	b = a;
	b.cancel_key = "mcp:p#2";
	ck_assert_int_eq(session_route(s, &a, 100000, on_resume, NULL, &err, &http), SESSION_WAIT);
	ck_assert_int_eq(session_route(s, &b, 100000, on_resume, NULL, &err, &http), SESSION_WAIT);
	/* an unknown or NULL key cancels nothing; a known one resumes exactly that call, once */
	ck_assert_int_eq(session_cancel(s, "mcp:p#9"), -1);
	ck_assert_int_eq(session_cancel(s, NULL), -1);
	ck_assert_int_eq(session_cancel(s, "mcp:p#1"), 0);
	ck_assert_int_eq(n_resumed, 1);
	ck_assert_int_eq(resumed[0], SESSION_CANCELLED);
	ck_assert_int_eq(session_cancel(s, "mcp:p#1"), -1);
	json_t *list = session_list(s);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(list, 0), "waiting_calls")), 1);
	json_decref(list);
	/* the other call still waits, and approval starts it */
	char id[SESSION_ID_LEN + 1], *e = NULL;
	id_of(s, "mcp:p", id);
	ck_assert_int_eq(session_control(s, id, "approve", &e), 0);
	ck_assert_int_eq(n_resumed, 2);
	ck_assert_int_eq(resumed[1], SESSION_GO);
	ck_assert_int_eq(session_cancel(s, "mcp:p#2"), -1);
	session_shutdown(s);
	session_free(s);
}
END_TEST

/* The hub's wake-up hook: nothing to wake in a unit test. */
static void
hub_wake(void *arg)
{
	(void)arg;
}

/* How many sessions hold a seat in the hub's headless pool. */
static int
pool_seats(struct hub *h)
{
	json_t *st = hub_pool_status(h), *inst;
	size_t i;
	int n = 0;
	json_array_foreach(st, i, inst)
	{
		n += (int)json_integer_value(json_object_get(inst, "sessions"));
	}
	json_decref(st);
	return n;
}

/* A session takes a seat in the headless pool only when an approved call of it is routed. */
START_TEST(pool_seat_only_when_routed)
{
	n_resumed = 0;
	struct hub *h = hub_create(NULL, NULL, hub_wake, NULL);
	const char *ids[] = {"headless-1", "headless-2"};
	hub_set_pool(h, ids, 2);
	for (int i = 0; i < 2; i++) {
		json_t *hello = json_pack("{s:s, s:s, s:s}", "clientId", ids[i], "token", "t", "browser", "Test");
		void *replaced = NULL;
		ck_assert_ptr_nonnull(hub_browser_attach(h, hello, (void *)(intptr_t)(i + 1), &replaced));
		json_decref(hello);
	}
	struct sessions *s = session_create_hub(h, NULL, NULL, NULL, 60000, 1);
	struct session_call a, b;
	json_t *err = NULL;
	int http;
	char id[SESSION_ID_LEN + 1], *e = NULL;
	memset(&a, 0, sizeof a);
	a.key = a.name = "mcp:a";
	a.tab_id = -1;
	b = a;
	b.key = b.name = "mcp:b";
	/* parked for approval, then declined: no seat at any point */
	ck_assert_int_eq(session_route(s, &a, 100000, on_resume, NULL, &err, &http), SESSION_WAIT);
	ck_assert_int_eq(pool_seats(h), 0);
	ck_assert_str_eq(a.pooled, "");
	id_of(s, "mcp:a", id);
	ck_assert_int_eq(session_control(s, id, "decline", &e), 0);
	ck_assert_int_eq(resumed[0], SESSION_DECLINED);
	ck_assert_int_eq(session_route(s, &a, 1000, on_resume, NULL, &err, &http), SESSION_FAIL);
	json_decref(err);
	ck_assert_int_eq(pool_seats(h), 0);
	/* approved: still no seat until its call is routed, then one, on an instance of the pool */
	ck_assert_int_eq(session_route(s, &b, 100000, on_resume, NULL, &err, &http), SESSION_WAIT);
	id_of(s, "mcp:b", id);
	ck_assert_int_eq(session_control(s, id, "approve", &e), 0);
	ck_assert_int_eq(resumed[1], SESSION_GO);
	ck_assert_int_eq(pool_seats(h), 0);
	ck_assert_int_eq(session_route(s, &b, 1000, on_resume, NULL, &err, &http), SESSION_GO);
	ck_assert_int_eq(pool_seats(h), 1);
	ck_assert_str_eq(b.pooled, "headless-1");
	ck_assert_str_eq(b.client_out, "headless-1");
	session_done(s, &b, "headless-1", -1);
	/* revoked: the seat is given back */
	ck_assert_int_eq(session_control(s, id, "revoke", &e), 0);
	ck_assert_int_eq(pool_seats(h), 0);
	session_shutdown(s);
	session_free(s);
	hub_shutdown(h);
	hub_free(h);
}
END_TEST

START_TEST(expiry_releases_tabs_and_bounds)
{
	struct sessions *s = mk(0, 1000);
	struct session_call a, b;
	json_t *err;
	int http;
	ck_assert_int_eq(route(s, &a, "http:a", -1, &err, &http), SESSION_GO);
	session_done(s, &a, "desk", 1);
	/* idle past the TTL: gone, and tab 1 is free for the next session to adopt */
	session_tick(s, util_mono_ms() + 2000);
	ck_assert_int_eq(route(s, &b, "http:b", -1, &err, &http), SESSION_GO);
	ck_assert_int_eq(b.tab_out, 1);
	session_done(s, &b, "desk", 1);
	/* a session in a call does not expire under it */
	ck_assert_int_eq(route(s, &b, "http:b", -1, &err, &http), SESSION_GO);
	session_tick(s, util_mono_ms() + 5000);
	json_t *list = session_list(s);
	ck_assert_int_eq(json_array_size(list), 1);
	json_decref(list);
	session_done(s, &b, "desk", 1);
	/* the table is bounded: the 257th live session is refused with a clear error */
	char key[32];
	for (int i = 0; i < BB_AGENT_SESSIONS_MAX - 1; i++) {
		snprintf(key, sizeof key, "http:n%d", i);
		ck_assert_int_eq(route(s, &a, key, -1, &err, &http), SESSION_GO);
		session_done(s, &a, "desk", -1);
	}
	ck_assert_int_eq(route(s, &a, "http:one-too-many", -1, &err, &http), SESSION_FAIL);
	ck_assert_int_eq(http, 503);
	ck_assert_str_eq(json_string_value(json_object_get(err, "error")), "too_many_sessions");
	json_decref(err);
	/* a revoked session leaves a tombstone, which makes room; with no browser the hub's reason */
	char id[SESSION_ID_LEN + 1], *e = NULL;
	id_of(s, "http:b", id);
	ck_assert_int_eq(session_control(s, id, "revoke", &e), 0);
	fake_err = HUB_E_NO_BROWSER;
	ck_assert_int_eq(route(s, &a, "http:fresh", -1, &err, &http), SESSION_FAIL);
	ck_assert_str_eq(json_string_value(json_object_get(err, "error")), "no_browser");
	json_decref(err);
	session_shutdown(s);
	session_free(s);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("session");
	TCase *tc = tcase_create("session");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, adopt_then_new_tab_then_ownership);
	tcase_add_test(tc, approval_decline_revoke_expiry);
	tcase_add_test(tc, expiry_releases_tabs_and_bounds);
	tcase_add_test(tc, cancel_parked_call);
	tcase_add_test(tc, pool_seat_only_when_routed);
	suite_add_tcase(s, tc);
	return testlib_run(s, 1);
}
