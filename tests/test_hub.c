/* Unit tests for src/hub.c: correlation by requestId, disconnects, timeouts, shutdown. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "events.h"
#include "hub.h"
#include "limits.h"
#include "util.h"
#include "testlib.h"

static int wakes;
static int n_done;
static struct hub_call *last[16];

static void
wake(void *arg)
{
	(void)arg;
	wakes++;
}

static void
done(struct hub_call *c, void *arg)
{
	(void)arg;
	last[n_done++ % 16] = c;
}

static struct hub_browser *
attach(struct hub *h, const char *id, void *conn)
{
	json_t *hello = json_pack("{s:s, s:s, s:s}", "clientId", id, "token", "t", "browser", "Test");
	void *replaced = NULL;
	struct hub_browser *b = hub_browser_attach(h, hello, conn, &replaced);
	json_decref(hello);
	return b;
}

/* Start a click call and return the request id the browser was sent. */
static char *
start(struct hub *h, struct hub_browser *b, const char *client, long timeout_ms, char *rid_out)
{
	json_t *params = json_pack("{s:s}", "target", "x");
	struct hub_call_spec sp = {"browser_click", "click", params, params, client, -1, 1, timeout_ms, done, NULL, NULL, NULL};
	ck_assert_int_eq(hub_call_start(h, &sp, NULL), HUB_OK);
	json_decref(params);
	size_t len;
	char *msg = hub_next_out(h, b, &len);
	ck_assert_ptr_nonnull(msg);
	json_t *m = json_loads(msg, 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(m, "type")), "command");
	json_t *d = json_object_get(m, "data");
	ck_assert_str_eq(json_string_value(json_object_get(d, "command")), "click");
	ck_assert(json_is_true(json_object_get(d, "wait_for_page_info")));
	strcpy(rid_out, json_string_value(json_object_get(d, "requestId")));
	json_decref(m);
	free(msg);
	return rid_out;
}

static void
result(struct hub *h, struct hub_browser *b, const char *rid, const char *status, int expect_rc)
{
	json_t *d = json_pack("{s:s, s:s, s:s}", "requestId", rid, "status", status, "message", "m");
	char *err = NULL;
	ck_assert_int_eq(hub_on_result(h, b, d, &err), expect_rc);
	free(err);
	json_decref(d);
}

static void
page(struct hub *h, struct hub_browser *b, const char *rid, const char *md, int expect_rc)
{
	json_t *d = json_pack("{s:s, s:s, s:s, s:s}", "requestId", rid, "url", "http://x/", "title", "T", "markdown", md);
	char *err = NULL;
	ck_assert_int_eq(hub_on_page(h, b, d, &err), expect_rc);
	free(err);
	json_decref(d);
}

static void
reset(void)
{
	n_done = 0;
	memset(last, 0, sizeof last);
}

START_TEST(no_browser)
{
	struct hub *h = hub_create(NULL, NULL, wake, NULL);
	struct hub_call_spec sp = {"browser_click", "click", NULL, NULL, NULL, -1, 1, 1000, done, NULL, NULL, NULL};
	ck_assert_int_eq(hub_call_start(h, &sp, NULL), HUB_E_NO_BROWSER);
	attach(h, "a", (void *)1);
	sp.client_id = "nope";
	ck_assert_int_eq(hub_call_start(h, &sp, NULL), HUB_E_UNKNOWN_CLIENT);
	hub_shutdown(h);
	hub_free(h);
}
END_TEST

START_TEST(out_of_order_answers)
{
	reset();
	struct hub *h = hub_create(NULL, NULL, wake, NULL);
	struct hub_browser *b = attach(h, "a", (void *)1);
	char r1[37], r2[37];
	start(h, b, NULL, 10000, r1);
	start(h, b, NULL, 10000, r2);
	ck_assert_str_ne(r1, r2);
	ck_assert_int_eq(hub_calls_in_flight(h), 2);
	/* The second call's page and result arrive first, interleaved with the first's. */
	page(h, b, r2, "page two", 0);
	result(h, b, r1, "success", 0);
	ck_assert_int_eq(n_done, 0);
	result(h, b, r2, "success", 0);
	ck_assert_int_eq(n_done, 1);
	ck_assert_str_eq(last[0]->request_id, r2);
	ck_assert_str_eq(json_string_value(json_object_get(last[0]->page, "markdown")), "page two");
	page(h, b, r1, "page one", 0);
	ck_assert_int_eq(n_done, 2);
	ck_assert_str_eq(last[1]->request_id, r1);
	ck_assert_str_eq(json_string_value(json_object_get(last[1]->page, "markdown")), "page one");
	ck_assert_int_eq(last[1]->outcome, HUB_COMPLETE);
	hub_call_free(last[0]);
	hub_call_free(last[1]);
	ck_assert_int_eq(hub_calls_in_flight(h), 0);
	hub_free(h);
}
END_TEST

START_TEST(other_browser_cannot_answer)
{
	reset();
	struct hub *h = hub_create(NULL, NULL, wake, NULL);
	struct hub_browser *a = attach(h, "a", (void *)1);
	struct hub_browser *b = attach(h, "b", (void *)2);
	char r[37];
	start(h, a, "a", 10000, r);
	result(h, b, r, "success", -1);
	page(h, b, r, "forged", -1);
	ck_assert_int_eq(n_done, 0);
	result(h, a, r, "success", 0);
	page(h, a, r, "real", 0);
	ck_assert_int_eq(n_done, 1);
	ck_assert_str_eq(json_string_value(json_object_get(last[0]->page, "markdown")), "real");
	hub_call_free(last[0]);
	/* Unknown and finished ids are refused. */
	result(h, a, r, "success", -1);
	result(h, a, "00000000-0000-4000-8000-000000000000", "success", -1);
	hub_free(h);
}
END_TEST

START_TEST(first_paired_browser_serves)
{
	/* A newly paired browser never becomes the default by itself (issue 18): a serves, though b
	 * attached later and is the more recently active; b serves when named, and once a is gone. */
	reset();
	struct hub *h = hub_create(NULL, NULL, wake, NULL);
	struct hub_browser *a = attach(h, "a", (void *)1);
	struct hub_browser *b = attach(h, "b", (void *)2);
	json_t *tabs = json_array();
	hub_on_tabs(h, b, tabs); /* b is the most recently active now */
	json_decref(tabs);
	char r[37], r2[37], r3[37];
	start(h, a, NULL, 10000, r);
	start(h, b, "b", 10000, r2);
	json_t *list = hub_browsers(h);
	ck_assert_int_eq(json_array_size(list), 2);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(list, 0), "client_id")), "a");
	ck_assert(json_is_true(json_object_get(json_array_get(list, 0), "default")));
	ck_assert(json_is_false(json_object_get(json_array_get(list, 1), "default")));
	json_decref(list);
	hub_browser_detach(h, a);
	ck_assert_int_eq(n_done, 1); /* a's call failed with it */
	start(h, b, NULL, 10000, r3);
	/* a comes back: it paired first, so it is the default again */
	a = attach(h, "a", (void *)3);
	char cid[65];
	long active = 0;
	ck_assert_int_eq(hub_pick(h, NULL, cid, sizeof cid, &active), HUB_OK);
	ck_assert_str_eq(cid, "a");
	ck_assert_int_eq(active, -1);
	hub_shutdown(h);
	ck_assert_int_eq(n_done, 3);
	for (int i = 0; i < 3; i++)
		hub_call_free(last[i]);
	hub_free(h);
}
END_TEST

START_TEST(runtime_policy_and_active_tab)
{
	reset();
	struct hub *h = hub_create(NULL, NULL, wake, NULL);
	char cid[65];
	long active = 0;
	ck_assert_int_eq(hub_pick(h, NULL, cid, sizeof cid, &active), HUB_E_NO_BROWSER);
	struct hub_browser *hl = attach(h, "headless-1", (void *)1);
	ck_assert_int_eq(hub_pick(h, NULL, cid, sizeof cid, &active), HUB_OK);
	ck_assert_str_eq(cid, "headless-1"); /* auto: the headless one while no desktop browser is there */
	struct hub_browser *d = attach(h, "desk", (void *)2);
	ck_assert_int_eq(hub_pick(h, NULL, cid, sizeof cid, &active), HUB_OK);
	ck_assert_str_eq(cid, "desk"); /* auto: the user's browser once one is connected */
	json_t *tabs = json_pack("[{s:i, s:b}, {s:i, s:b}, {s:i, s:b, s:b}]", "tabId", 4, "active", 1, "tabId", 5,
	                         "active", 0, "tabId", 7, "active", 1, "focused", 1);
	hub_on_tabs(h, d, tabs);
	json_decref(tabs);
	ck_assert_int_eq(hub_pick(h, NULL, cid, sizeof cid, &active), HUB_OK);
	ck_assert_int_eq(active, 7); /* the active tab of the focused window */
	tabs = json_pack("[{s:i, s:b, s:s}, {s:i, s:b, s:b, s:s}]", "tabId", 4, "active", 1, "url", "https://a/", "tabId",
	                 7, "active", 1, "focused", 1, "url", "chrome-extension://x/popup.html");
	hub_on_tabs(h, d, tabs);
	json_decref(tabs);
	ck_assert_int_eq(hub_pick(h, NULL, cid, sizeof cid, &active), HUB_OK);
	ck_assert_int_eq(active, -1); /* the browser's own page is never adopted: a new tab instead */
	hub_set_runtime(h, HUB_RUNTIME_HEADLESS);
	ck_assert_int_eq(hub_pick(h, NULL, cid, sizeof cid, &active), HUB_OK);
	ck_assert_str_eq(cid, "headless-1");
	hub_browser_detach(h, hl);
	ck_assert_int_eq(hub_pick(h, NULL, cid, sizeof cid, &active), HUB_E_NO_RUNTIME);
	ck_assert_int_eq(hub_pick(h, "desk", cid, sizeof cid, &active), HUB_OK); /* named: any runtime */
	ck_assert_int_eq(hub_pick(h, "ghost", cid, sizeof cid, &active), HUB_E_UNKNOWN_CLIENT);
	hub_set_runtime(h, HUB_RUNTIME_DESKTOP);
	ck_assert_int_eq(hub_pick(h, NULL, cid, sizeof cid, &active), HUB_OK);
	ck_assert_str_eq(cid, "desk");
	hub_shutdown(h);
	hub_free(h);
}
END_TEST

START_TEST(disconnect_fails_at_once)
{
	reset();
	struct hub *h = hub_create(NULL, NULL, wake, NULL);
	struct hub_browser *a = attach(h, "a", (void *)1);
	struct hub_browser *b = attach(h, "b", (void *)2);
	char r1[37], r2[37];
	start(h, a, "a", 10000, r1);
	start(h, b, "b", 10000, r2);
	result(h, a, r1, "success", 0);
	hub_browser_detach(h, a);
	ck_assert_int_eq(n_done, 1);
	ck_assert_int_eq(last[0]->outcome, HUB_DISCONNECTED);
	ck_assert_str_eq(last[0]->request_id, r1);
	ck_assert_int_eq(hub_calls_in_flight(h), 1);
	hub_call_free(last[0]);
	hub_shutdown(h);
	hub_call_free(last[1]);
	hub_free(h);
}
END_TEST

START_TEST(replaced_by_same_client_id)
{
	reset();
	struct hub *h = hub_create(NULL, NULL, wake, NULL);
	struct hub_browser *a = attach(h, "a", (void *)1);
	char r[37];
	start(h, a, NULL, 10000, r);
	json_t *hello = json_pack("{s:s, s:s}", "clientId", "a", "token", "t");
	void *replaced = NULL;
	struct hub_browser *a2 = hub_browser_attach(h, hello, (void *)3, &replaced);
	json_decref(hello);
	ck_assert_ptr_eq(replaced, (void *)1);
	ck_assert_ptr_nonnull(a2);
	ck_assert_int_eq(n_done, 1);
	ck_assert_int_eq(last[0]->outcome, HUB_DISCONNECTED);
	hub_call_free(last[0]);
	json_t *st = hub_status(h);
	ck_assert_int_eq(json_array_size(st), 1);
	json_decref(st);
	hub_free(h);
}
END_TEST

START_TEST(timeouts_and_partial)
{
	reset();
	struct hub *h = hub_create(NULL, NULL, wake, NULL);
	struct hub_browser *a = attach(h, "a", (void *)1);
	char r1[37], r2[37], r3[37];
	start(h, a, NULL, 100, r1);
	start(h, a, NULL, 50, r2);
	start(h, a, NULL, 100000, r3);
	result(h, a, r1, "success", 0); /* result but no page: partial */
	int64_t now = util_mono_ms();
	int64_t next = hub_expire(h, now);
	ck_assert_int_eq(n_done, 0);
	ck_assert(next > now && next <= now + 50);
	next = hub_expire(h, now + 200);
	ck_assert_int_eq(n_done, 2);
	ck_assert_str_eq(last[0]->request_id, r2); /* earliest deadline first */
	ck_assert_ptr_null(last[0]->result);
	ck_assert_str_eq(last[1]->request_id, r1);
	ck_assert_ptr_nonnull(last[1]->result);
	ck_assert_int_eq(last[1]->outcome, HUB_TIMEOUT);
	ck_assert(next > now + 90000);
	/* the call with no answer is stopped in the browser (a wait_for still running there would hold
	 * the tab); the one whose result came, waiting for its page, is not */
	size_t len;
	char *msg = hub_next_out(h, a, &len);
	ck_assert_ptr_nonnull(msg);
	json_t *m = json_loads(msg, 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(m, "type")), "cancel");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(m, "data"), "requestId")), r2);
	json_decref(m);
	free(msg);
	ck_assert_ptr_null(hub_next_out(h, a, &len));
	hub_call_free(last[0]);
	hub_call_free(last[1]);
	hub_shutdown(h);
	hub_call_free(last[2]);
	hub_free(h);
}
END_TEST

START_TEST(error_without_page)
{
	reset();
	struct hub *h = hub_create(NULL, NULL, wake, NULL);
	struct hub_browser *a = attach(h, "a", (void *)1);
	char r[37];
	start(h, a, NULL, 10000, r);
	json_t *d = json_pack("{s:s, s:s, s:s, s:b}", "requestId", r, "status", "error", "error", "not found",
	                      "pageFollows", 0);
	char *err = NULL;
	ck_assert_int_eq(hub_on_result(h, a, d, &err), 0);
	json_decref(d);
	ck_assert_int_eq(n_done, 1);
	ck_assert_int_eq(last[0]->outcome, HUB_COMPLETE);
	ck_assert_ptr_null(last[0]->page);
	hub_call_free(last[0]);
	hub_free(h);
}
END_TEST

START_TEST(many_calls)
{
	reset();
	struct hub *h = hub_create(NULL, NULL, wake, NULL);
	struct hub_browser *a = attach(h, "a", (void *)1);
	enum { N = 5000 };
	static char rids[N][37];
	for (int i = 0; i < N; i++)
		start(h, a, NULL, 1000 + i, rids[i]);
	ck_assert_int_eq(hub_calls_in_flight(h), N);
	for (int i = N - 1; i >= 0; i--) {
		result(h, a, rids[i], "success", 0);
		page(h, a, rids[i], rids[i], 0);
		ck_assert_str_eq(last[(n_done - 1) % 16]->request_id, rids[i]);
		ck_assert_str_eq(json_string_value(json_object_get(last[(n_done - 1) % 16]->page, "markdown")), rids[i]);
		hub_call_free(last[(n_done - 1) % 16]);
	}
	ck_assert_int_eq(n_done, N);
	ck_assert_int_eq(hub_calls_in_flight(h), 0);
	hub_free(h);
}
END_TEST

/* An event subscriber's wake runs inside events_publish; it may call back into the hub (as a
 * transport does), so the hub must publish with its lock released, call_start included. */
static struct hub *reentrant_hub;
static long reentrant_seen = -1;

static void
reentrant_wake(void *arg)
{
	(void)arg;
	if (reentrant_hub != NULL)
		reentrant_seen = (long)hub_calls_in_flight(reentrant_hub); /* deadlocks if the lock is held */
}

/* hub_cancel: by request_id or the caller's key; the call ends as cancelled, the browser is told. */
START_TEST(cancel_by_id_or_key)
{
	reset();
	struct hub *h = hub_create(NULL, NULL, wake, NULL);
	struct hub_browser *b = attach(h, "a", (void *)1);
	char r1[37], r2[37];
	start(h, b, NULL, 10000, r1);
	json_t *params = json_object();
	struct hub_call_spec sp = {"browser_click", "click", params, params, NULL, -1, 1, 10000, done, NULL, "call:k1", NULL};
	ck_assert_int_eq(hub_call_start(h, &sp, NULL), HUB_OK);
	json_decref(params);
	size_t len;
	char *msg = hub_next_out(h, b, &len);
	json_t *m = json_loads(msg, 0, NULL);
	strcpy(r2, json_string_value(json_object_get(json_object_get(m, "data"), "requestId")));
	json_decref(m);
	free(msg);
	ck_assert_int_eq(hub_cancel(h, "call:nope"), -1);
	ck_assert_int_eq(hub_cancel(h, "call:k1"), 0);
	ck_assert_int_eq(n_done, 1);
	ck_assert_int_eq(last[0]->outcome, HUB_CANCELLED);
	ck_assert_str_eq(last[0]->request_id, r2);
	hub_call_free(last[0]);
	ck_assert_int_eq(hub_cancel(h, r1), 0);
	ck_assert_int_eq(last[1]->outcome, HUB_CANCELLED);
	hub_call_free(last[1]);
	ck_assert_int_eq(hub_cancel(h, r1), -1); /* gone */
	for (const char *want = r2; want != NULL; want = want == r2 ? r1 : NULL) {
		msg = hub_next_out(h, b, &len);
		ck_assert_ptr_nonnull(msg);
		m = json_loads(msg, 0, NULL);
		ck_assert_str_eq(json_string_value(json_object_get(m, "type")), "cancel");
		ck_assert_str_eq(json_string_value(json_object_get(json_object_get(m, "data"), "requestId")), want);
		json_decref(m);
		free(msg);
	}
	result(h, b, r1, "error", -1); /* a late answer is refused, nothing else happens */
	ck_assert_int_eq(n_done, 2);
	ck_assert_int_eq(hub_calls_in_flight(h), 0);
	hub_shutdown(h);
	hub_free(h);
}
END_TEST

/* The headless pool: sessions spread over connected instances, sticky; no pool below two. */
START_TEST(pool_pick)
{
	struct hub *h = hub_create(NULL, NULL, wake, NULL);
	char out[BB_CLIENT_ID_MAX + 1];
	const char *one[] = {"headless-1"};
	hub_set_pool(h, one, 1);
	ck_assert_int_eq(hub_pool_pick(h, "mcp:a", out), -1);
	const char *ids[] = {"headless-1", "headless-2", "headless-3"};
	hub_set_pool(h, ids, 3);
	ck_assert_int_eq(hub_pool_pick(h, "", out), -1); /* the default session: routed as before */
	attach(h, "headless-2", (void *)2);
	attach(h, "headless-3", (void *)3);
	ck_assert_int_eq(hub_pool_pick(h, "mcp:a", out), 0);
	ck_assert_str_eq(out, "headless-2"); /* connected first */
	ck_assert_int_eq(hub_pool_pick(h, "mcp:b", out), 0);
	ck_assert_str_eq(out, "headless-3"); /* least loaded */
	ck_assert_int_eq(hub_pool_pick(h, "mcp:a", out), 0);
	ck_assert_str_eq(out, "headless-2"); /* sticky */
	hub_pool_release(h, "mcp:a");
	json_t *st = hub_pool_status(h);
	ck_assert_int_eq(json_array_size(st), 3);
	ck_assert(json_is_false(json_object_get(json_array_get(st, 0), "connected")));
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(st, 2), "sessions")), 1);
	json_decref(st);
	char longkey[200];
	memset(longkey, 'k', sizeof longkey - 1);
	longkey[sizeof longkey - 1] = '\0';
	ck_assert_int_eq(hub_pool_pick(h, longkey, out), -1);
	for (int i = 0; i < BB_POOL_SESSIONS_MAX + 10; i++) { /* a full table forgets the least recent */
		char k[32];
		snprintf(k, sizeof k, "http:s%d", i);
		ck_assert_int_eq(hub_pool_pick(h, k, out), 0);
	}
	hub_shutdown(h);
	hub_free(h);
}
END_TEST

START_TEST(call_start_publishes_unlocked)
{
	reset();
	struct events *ev = events_create();
	struct hub *h = hub_create(NULL, ev, wake, NULL);
	struct events_sub *sub = events_subscribe(ev, "");
	events_set_wake(ev, sub, reentrant_wake, NULL);
	struct hub_browser *a = attach(h, "a", (void *)1);
	reentrant_hub = h;
	reentrant_seen = -1;
	char rid[37];
	start(h, a, NULL, 1000, rid);
	ck_assert_int_eq(reentrant_seen, 1);
	reentrant_hub = NULL;
	hub_shutdown(h);
	events_unsubscribe(ev, sub);
	for (int i = 0; i < n_done; i++)
		hub_call_free(last[i]);
	hub_free(h);
	events_free(ev);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("hub");
	TCase *tc = tcase_create("hub");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, no_browser);
	tcase_add_test(tc, out_of_order_answers);
	tcase_add_test(tc, other_browser_cannot_answer);
	tcase_add_test(tc, first_paired_browser_serves);
	tcase_add_test(tc, runtime_policy_and_active_tab);
	tcase_add_test(tc, disconnect_fails_at_once);
	tcase_add_test(tc, replaced_by_same_client_id);
	tcase_add_test(tc, timeouts_and_partial);
	tcase_add_test(tc, error_without_page);
	tcase_add_test(tc, many_calls);
	tcase_add_test(tc, call_start_publishes_unlocked);
	tcase_add_test(tc, cancel_by_id_or_key);
	tcase_add_test(tc, pool_pick);
	suite_add_tcase(s, tc);
	return testlib_run(s, 1);
}
