/* Unit tests for src/tools.c: the catalog and schema validation. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hub.h"
#include "limits.h"
#include "tools.h"
#include "testlib.h"

static struct tools *t;

static const char *
field_of(const char *tool, const char *params_json)
{
	static char field[64];
	json_t *p = json_loads(params_json, 0, NULL);
	ck_assert_ptr_nonnull(p);
	json_t *err = tools_validate(t, tools_find(t, tool), p);
	json_decref(p);
	if (err == NULL)
		return NULL;
	ck_assert_str_eq(json_string_value(json_object_get(err, "error")), "invalid_params");
	ck_assert_ptr_nonnull(json_string_value(json_object_get(err, "expected")));
	ck_assert_ptr_nonnull(json_string_value(json_object_get(err, "message")));
	snprintf(field, sizeof field, "%s", json_string_value(json_object_get(err, "field")));
	json_decref(err);
	return field;
}

START_TEST(catalog_shape)
{
	json_t *c = tools_catalog(t);
	json_t *arr = json_object_get(c, "tools");
	ck_assert_int_ge(json_array_size(arr), 15);
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v)
	{
		const char *name = json_string_value(json_object_get(v, "name"));
		ck_assert(strncmp(name, "browser_", 8) == 0);
		ck_assert_int_gt(strlen(json_string_value(json_object_get(v, "description"))), 30);
		json_t *schema = json_object_get(v, "parameters");
		ck_assert_str_eq(json_string_value(json_object_get(schema, "type")), "object");
		json_t *props = json_object_get(schema, "properties");
		/* Browser tools take the common parameters; the daemon's own (history) tools take none. */
		int local = json_object_get(v, "answered_by") != NULL;
		ck_assert_int_eq(local, json_object_get(v, "command") == NULL);
		ck_assert_int_eq(json_object_get(props, "timeout_ms") != NULL, !local);
		ck_assert_int_eq(json_object_get(props, "client_id") != NULL, !local);
		ck_assert(json_equal(schema, json_object_get(v, "input_schema")));
		const char *k;
		json_t *ps;
		json_object_foreach(props, k, ps) ck_assert_ptr_nonnull(json_object_get(ps, "description"));
	}
	json_decref(c);
	ck_assert_ptr_nonnull(tools_find(t, "browser_open_url"));
	ck_assert_ptr_null(tools_find(t, "browser_nope"));
}
END_TEST

START_TEST(validation)
{
	ck_assert_ptr_null(field_of("browser_click", "{\"target\": \"Login\"}"));
	ck_assert_str_eq(field_of("browser_click", "{}"), "target");
	ck_assert_str_eq(field_of("browser_click", "{\"target\": 3}"), "target");
	ck_assert_str_eq(field_of("browser_click", "{\"target\": \"\"}"), "target");
	ck_assert_str_eq(field_of("browser_click", "{\"target\": \"x\", \"bogus\": 1}"), "bogus");
	ck_assert_str_eq(field_of("browser_click", "{\"target\": \"x\", \"timeout_ms\": 5}"), "timeout_ms");
	ck_assert_str_eq(field_of("browser_click", "{\"target\": \"x\", \"timeout_ms\": 1.5}"), "timeout_ms");
	ck_assert_str_eq(field_of("browser_click", "{\"target\": \"x\", \"wait_for_page_info\": \"yes\"}"),
	                 "wait_for_page_info");
	ck_assert_ptr_null(field_of("browser_type", "{\"target\": \"q\", \"text\": \"\", \"submit\": true}"));
	ck_assert_str_eq(field_of("browser_type", "{\"target\": \"q\"}"), "text");
	ck_assert_str_eq(field_of("browser_scroll", "{\"direction\": \"sideways\"}"), "direction");
	ck_assert_ptr_null(field_of("browser_scroll", "{\"direction\": \"up\", \"amount\": 300}"));
	ck_assert_str_eq(field_of("browser_switch_tab", "{}"), "tab_id");
	ck_assert_str_eq(field_of("browser_switch_tab", "{\"tab_id\": -4}"), "tab_id");
	ck_assert_str_eq(field_of("browser_wait_for", "{}"), "text");
	/* click: a button, a double-click, keys held (each known key once) */
	ck_assert_ptr_null(field_of("browser_click", "{\"target\": \"x\", \"button\": \"right\", \"double_click\": true, "
	                                             "\"modifiers\": [\"Control\", \"Shift\"]}"));
	ck_assert_str_eq(field_of("browser_click", "{\"target\": \"x\", \"button\": \"back\"}"), "button");
	ck_assert_str_eq(field_of("browser_click", "{\"target\": \"x\", \"modifiers\": [\"Ctrl\"]}"), "modifiers");
	ck_assert_str_eq(field_of("browser_click", "{\"target\": \"x\", \"modifiers\": [\"Shift\", \"Shift\"]}"), "modifiers");
	ck_assert_str_eq(field_of("browser_click", "{\"target\": \"x\", \"modifiers\": \"Shift\"}"), "modifiers");
	ck_assert_str_eq(field_of("browser_click", "{\"target\": \"x\", \"modifiers\": [1]}"), "modifiers");
	ck_assert_str_eq(field_of("browser_click", "{\"target\": \"x\", \"modifiers\": [\"Alt\", \"Control\", \"Meta\", "
	                                           "\"Shift\", \"Alt\"]}"),
	                 "modifiers");
	ck_assert_str_eq(field_of("browser_click", "{\"target\": \"x\", \"double_click\": \"yes\"}"), "double_click");
	/* select_option: one value, or all the values of a multiple select; never both or neither */
	ck_assert_ptr_null(field_of("browser_select_option", "{\"target\": \"Size\", \"value\": \"M\"}"));
	ck_assert_ptr_null(field_of("browser_select_option", "{\"target\": \"Colors\", \"values\": [\"Red\", \"Blue\"]}"));
	ck_assert_ptr_null(field_of("browser_select_option", "{\"target\": \"Colors\", \"values\": []}"));
	ck_assert_str_eq(field_of("browser_select_option", "{\"target\": \"Colors\"}"), "value");
	ck_assert_str_eq(field_of("browser_select_option", "{\"target\": \"C\", \"value\": \"a\", \"values\": [\"a\"]}"),
	                 "values");
	ck_assert_str_eq(field_of("browser_select_option", "{\"target\": \"C\", \"values\": \"Red\"}"), "values");
	ck_assert_str_eq(field_of("browser_select_option", "{\"target\": \"C\", \"values\": [1]}"), "values");
	{
		json_t *many = json_array(), *p = json_pack("{s:s}", "target", "C");
		for (int i = 0; i <= BB_SELECT_VALUES_MAX; i++) json_array_append_new(many, json_string("x"));
		json_object_set_new(p, "values", many);
		char *txt = json_dumps(p, 0);
		ck_assert_str_eq(field_of("browser_select_option", txt), "values");
		free(txt);
		json_decref(p);
		char *long_value = malloc(BB_TARGET_MAX + 2);
		memset(long_value, 'x', BB_TARGET_MAX + 1);
		long_value[BB_TARGET_MAX + 1] = '\0';
		p = json_pack("{s:s, s:[s]}", "target", "C", "values", long_value);
		txt = json_dumps(p, 0);
		ck_assert_str_eq(field_of("browser_select_option", txt), "values");
		free(txt);
		free(long_value);
		json_decref(p);
	}
	ck_assert_str_eq(field_of("browser_open_url", "[1, 2]"), "(body)");
	/* press_key: one character or a key name the extension knows, after known modifiers */
	const char *keys_ok[] = {"Enter", "a", "+", "/", "\u00e9", "F5", "F12", "Control+a", "Shift+Tab", "Control++",
	                         "Meta+Shift+z", "ArrowDown", "Space", " "};
	for (size_t i = 0; i < sizeof keys_ok / sizeof keys_ok[0]; i++) {
		json_t *k = json_pack("{s:s}", "key", keys_ok[i]);
		char *txt = json_dumps(k, 0);
		ck_assert_msg(field_of("browser_press_key", txt) == NULL, "%s was refused", keys_ok[i]);
		free(txt);
		json_decref(k);
	}
	const char *keys_bad[] = {"Foo", "Enterr", "F13", "F0", "F01", "ab", "Hyper+a", "Control+", "Control+Foo", "\a"};
	for (size_t i = 0; i < sizeof keys_bad / sizeof keys_bad[0]; i++) {
		json_t *k = json_pack("{s:s}", "key", keys_bad[i]);
		char *txt = json_dumps(k, 0);
		const char *f = field_of("browser_press_key", txt);
		ck_assert_msg(f != NULL && strcmp(f, "key") == 0, "%s was taken", keys_bad[i]);
		free(txt);
		json_decref(k);
	}
}
END_TEST

/* What an address bar takes becomes an absolute URL; the rest is refused (issue 12, 13). */
START_TEST(url_normalize)
{
	static const struct {
		const char *in, *out; /* out NULL: refused */
	} cases[] = {
		{"https://example.org/a?b#c", "https://example.org/a?b#c"},
		{"HTTP://Example.org", "http://Example.org"},
		{"  example.org/x  ", "https://example.org/x"},
		{"localhost:8080/x", "http://localhost:8080/x"},
		{"127.0.0.1:8080/x", "http://127.0.0.1:8080/x"},
		{"localhost", "http://localhost"},
		{"app.localhost:3000", "http://app.localhost:3000"},
		{"[::1]:9000/", "http://[::1]:9000/"},
		{"[2001:db8::1]/x", "https://[2001:db8::1]/x"},
		{"192.168.1.10:8000", "https://192.168.1.10:8000"},
		{"example.org/a b", "https://example.org/a%20b"},
		{"https://user:pw@example.org/", "https://user:pw@example.org/"},
		{"about:blank", "about:blank"},
		{"not a url", NULL},
		{"https://not a url/", NULL},
		{"https://", NULL},
		{"https:///path", NULL},
		{"http:example.org", NULL},
		{"javascript:alert(1)", NULL},
		{"data:text/html,hi", NULL},
		{"chrome://settings", NULL},
		{"ftp://example.org/", NULL},
		{"file:///etc/hostname", NULL},
		{"intranet", NULL},
		{"/etc/passwd", NULL},
		{"example.org:99999", NULL},
		{"example.org:", NULL},
		{"[::1", NULL},
		{"https://exa\tmple.org/", NULL},
		{"https://example.org/\n", "https://example.org/"},
		{"https://example.org\\@evil.example/", "https://example.org\\@evil.example/"},
		{"", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out = NULL;
		const char *why = tools_normalize_url(cases[i].in, 0, &out);
		if (cases[i].out == NULL) {
			ck_assert_msg(why != NULL && out == NULL, "accepted \"%s\" as %s", cases[i].in, out);
		} else {
			ck_assert_msg(why == NULL, "refused \"%s\": %s", cases[i].in, why);
			ck_assert_str_eq(out, cases[i].out);
		}
		free(out);
	}
	char *out = NULL;
	ck_assert_ptr_null(tools_normalize_url("file:///etc/hostname", 1, &out));
	ck_assert_str_eq(out, "file:///etc/hostname");
	free(out);
	ck_assert_ptr_nonnull(tools_normalize_url("file://host/x", 1, &out));
	ck_assert_str_eq(field_of("browser_open_url", "{\"url\": \"not a url\"}"), "url");
	ck_assert_str_eq(field_of("browser_open_url", "{\"url\": \"file:///etc/passwd\"}"), "url");
	ck_assert_ptr_null(field_of("browser_open_url", "{\"url\": \"localhost:8080/x\"}"));
	tools_allow_file_urls(t, 1);
	ck_assert_ptr_null(field_of("browser_open_url", "{\"url\": \"file:///etc/passwd\"}"));
	tools_allow_file_urls(t, 0);
}
END_TEST

/* The schema is generated from the typed catalog: bounds from limits.h, common parameters once. */
START_TEST(generated_schema)
{
	const struct tool *type = tools_find(t, "browser_type");
	json_t *props = json_object_get(tools_schema(t, type), "properties");
	json_t *text = json_object_get(props, "text");
	ck_assert_int_eq(json_integer_value(json_object_get(text, "maxLength")), BB_TYPED_TEXT_MAX);
	ck_assert_ptr_null(json_object_get(text, "minLength"));
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(props, "timeout_ms"), "maximum")),
	                 BB_CALL_TIMEOUT_MAX_MS);
	ck_assert(json_is_true(json_object_get(json_object_get(props, "clear"), "default")));
	ck_assert(json_is_true(json_object_get(json_object_get(props, "wait_for_page_info"), "default")));
	json_t *req = json_object_get(tools_schema(t, type), "required");
	ck_assert_int_eq(json_array_size(req), 2);
	ck_assert_str_eq(json_string_value(json_array_get(req, 1)), "text");
	/* switch_tab makes the common tab_id required; it is listed once. */
	const struct tool *sw = tools_find(t, "browser_switch_tab");
	size_t i = 0, n = 0;
	for (const struct tool_param *p; (p = tools_next_param(sw, &i)) != NULL;)
		n += strcmp(p->name, "tab_id") == 0;
	ck_assert_int_eq(n, 1);
	ck_assert(tools_param(sw, "tab_id")->flags & TP_REQUIRED);
	ck_assert(!(tools_param(type, "tab_id")->flags & TP_REQUIRED));
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(tools_schema(t, sw), "required"), 0)),
	                 "tab_id");
	ck_assert(json_is_false(json_object_get(
		json_object_get(json_object_get(tools_schema(t, tools_find(t, "browser_list_tabs")), "properties"),
	                        "wait_for_page_info"),
		"default")));
	/* Every parameter of every tool has a description, a type and, for the CLI, a unique flag. */
	size_t nt;
	const struct tool *list = tools_list(&nt);
	for (size_t k = 0; k < nt; k++) {
		i = 0;
		for (const struct tool_param *p; (p = tools_next_param(&list[k], &i)) != NULL;) {
			ck_assert_ptr_nonnull(p->description);
			ck_assert_int_ne(p->type, 0);
		}
	}
}
END_TEST

/* Secret parameters are kept as their length; the rest as given. */
START_TEST(redaction)
{
	json_t *p = json_pack("{s:s, s:s, s:b}", "target", "pw", "text", "hunter2", "submit", 1);
	json_t *r = tools_redacted(tools_find(t, "browser_type"), p);
	ck_assert_str_eq(json_string_value(json_object_get(r, "text")), "[7 characters, not kept]");
	ck_assert_str_eq(json_string_value(json_object_get(r, "target")), "pw");
	ck_assert_str_eq(json_string_value(json_object_get(p, "text")), "hunter2");
	json_decref(r);
	json_decref(p);
	p = json_pack("{s:b, s:s}", "accept", 1, "prompt_text", "sesame");
	r = tools_redacted(tools_find(t, "browser_handle_dialog"), p);
	ck_assert_str_eq(json_string_value(json_object_get(r, "prompt_text")), "[6 characters, not kept]");
	json_decref(r);
	json_decref(p);
	ck_assert_ptr_null(field_of("browser_handle_dialog", "{\"accept\": false}"));
	ck_assert_str_eq(field_of("browser_handle_dialog", "{\"prompt_text\": \"x\"}"), "accept");
	ck_assert_str_eq(field_of("browser_press_key", "{\"key\": \"123456789012345678901234567890123\"}"), "key");
	ck_assert_str_eq(field_of("browser_wait_for", "{\"text\": \"a\", \"wait_ms\": -1}"), "wait_ms");
}
END_TEST

/* TP_OBJECTS (browser_fill_form's fields): its schema, each item and key validated and named, each
 * secret key redacted in every item; the tools of issue 17 validated. */
START_TEST(objects)
{
	const struct tool *ff = tools_find(t, "browser_fill_form");
	ck_assert_ptr_nonnull(ff);
	json_t *fields = json_object_get(json_object_get(tools_schema(t, ff), "properties"), "fields");
	ck_assert_str_eq(json_string_value(json_object_get(fields, "type")), "array");
	ck_assert_int_eq(json_integer_value(json_object_get(fields, "maxItems")), BB_FORM_FIELDS_MAX);
	json_t *items = json_object_get(fields, "items");
	ck_assert_str_eq(json_string_value(json_object_get(items, "type")), "object");
	ck_assert(json_is_false(json_object_get(items, "additionalProperties")));
	ck_assert_int_eq(json_array_size(json_object_get(items, "required")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(json_object_get(items, "properties"), "target"),
	                                                    "minLength")),
	                 1);
	ck_assert_ptr_null(field_of("browser_fill_form", "{\"fields\": [{\"target\": \"a\", \"value\": \"\"}]}"));
	ck_assert_str_eq(field_of("browser_fill_form", "{\"fields\": []}"), "fields");
	ck_assert_str_eq(field_of("browser_fill_form", "{\"fields\": {}}"), "fields");
	ck_assert_str_eq(field_of("browser_fill_form", "{\"fields\": [{\"target\": \"a\", \"value\": \"b\"}, 3]}"),
	                 "fields[1]");
	ck_assert_str_eq(field_of("browser_fill_form", "{\"fields\": [{\"target\": \"a\"}]}"), "fields[0]");
	ck_assert_str_eq(field_of("browser_fill_form", "{\"fields\": [{\"target\": \"a\", \"value\": \"b\", \"x\": 1}]}"),
	                 "fields[0]");
	ck_assert_str_eq(field_of("browser_fill_form", "{\"fields\": [{\"target\": \"\", \"value\": \"b\"}]}"),
	                 "fields[0].target");
	ck_assert_str_eq(field_of("browser_fill_form", "{\"fields\": [{\"target\": \"a\", \"value\": null}]}"),
	                 "fields[0].value");
	json_t *p = json_pack("{s:[{s:s, s:s}, {s:s, s:s}]}", "fields", "target", "Password", "value", "hunter2", "target",
	                      "Name", "value", "Ada");
	json_t *r = tools_redacted(ff, p);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(r, "fields"), 0), "value")),
	                 "[7 characters, not kept]");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(r, "fields"), 1), "value")),
	                 "[3 characters, not kept]");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(r, "fields"), 0), "target")),
	                 "Password");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(p, "fields"), 0), "value")),
	                 "hunter2"); /* the call's own parameters are untouched */
	json_decref(r);
	json_decref(p);
	ck_assert_ptr_null(field_of("browser_hover", "{\"target\": \"Menu\"}"));
	ck_assert_str_eq(field_of("browser_drag", "{\"source\": \"a\"}"), "target");
	ck_assert_str_eq(field_of("browser_resize", "{\"width\": 100, \"height\": 500}"), "width");
	ck_assert_ptr_null(field_of("browser_resize", "{\"width\": 200, \"height\": 10000}"));
	ck_assert_str_eq(field_of("browser_upload_file", "{\"target\": \"f\", \"paths\": [1]}"), "paths");
	ck_assert_ptr_null(field_of("browser_upload_file", "{\"target\": \"f\", \"paths\": [\"/x\"]}"));
}
END_TEST

static int n_answers, last_status;
static char last_error[64];

/* A tool call's answer: remember its status and error code. */
static void
on_answer(json_t *answer, int status, void *arg)
{
	(void)arg;
	n_answers++;
	last_status = status;
	snprintf(last_error, sizeof last_error, "%s", json_string_value(json_object_get(answer, "error")) ?: "");
	json_decref(answer);
}

/* The hub's wake-up hook: nothing to wake in a unit test. */
static void
no_wake(void *arg)
{
	(void)arg;
}

/* A hub with one browser ("b") attached, the one tool calls go to. */
static struct hub *
hub_with_browser(struct hub_browser **b)
{
	struct hub *h = hub_create(NULL, NULL, no_wake, NULL);
	json_t *hello = json_pack("{s:s, s:s, s:s}", "clientId", "b", "token", "t", "browser", "Test");
	void *replaced = NULL;
	*b = hub_browser_attach(h, hello, (void *)1, &replaced);
	json_decref(hello);
	return h;
}

/* The requestId of the next command the browser b is sent. */
static void
next_request_id(struct hub *h, struct hub_browser *b, char out[37])
{
	size_t len;
	char *msg = hub_next_out(h, b, &len);
	ck_assert_ptr_nonnull(msg);
	json_t *m = json_loads(msg, 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(m, "type")), "command");
	snprintf(out, 37, "%s", json_string_value(json_object_get(json_object_get(m, "data"), "requestId")));
	json_decref(m);
	free(msg);
}

/* A caller's own call id cancels only its own session's call; the server-made request_id any. */
START_TEST(cancel_only_own_session)
{
	struct hub_browser *b;
	struct hub *h = hub_with_browser(&b);
	struct tools *tt = tools_create(h, NULL, NULL);
	const struct tool *click = tools_find(tt, "browser_click");
	json_t *params = json_pack("{s:s}", "target", "x");
	struct tools_caller alice = {"http:alice", "alice", "k1", NULL}, bob = {"http:bob", "bob", "k1", NULL};
	char rid_alice[37], rid_bob[37];
	n_answers = 0;
	tools_call(tt, click, params, &alice, on_answer, NULL);
	next_request_id(h, b, rid_alice);
	tools_call(tt, click, params, &bob, on_answer, NULL);
	next_request_id(h, b, rid_bob);
	json_decref(params);
	ck_assert_int_eq(n_answers, 0);
	/* the same call id from no session or another one finds nothing */
	ck_assert_int_eq(tools_cancel(tt, "", "k1"), -1);
	ck_assert_int_eq(tools_cancel(tt, "http:mallory", "k1"), -1);
	ck_assert_int_eq(tools_cancel(tt, "http:alice#k1", "k1"), -1);
	ck_assert_int_eq(n_answers, 0);
	ck_assert_int_eq(hub_calls_in_flight(h), 2);
	/* alice's own session cancels alice's call, not bob's with the same id */
	ck_assert_int_eq(tools_cancel(tt, "http:alice", "k1"), 0);
	ck_assert_int_eq(n_answers, 1);
	ck_assert_int_eq(last_status, 409);
	ck_assert_str_eq(last_error, "cancelled");
	ck_assert_int_eq(tools_cancel(tt, "http:alice", "k1"), -1);
	ck_assert_int_eq(tools_cancel(tt, "http:mallory", rid_alice), -1); /* gone */
	ck_assert_int_eq(hub_calls_in_flight(h), 1);
	/* bob's call by its request_id, from a session that is not bob's */
	ck_assert_int_eq(tools_cancel(tt, "http:mallory", rid_bob), 0);
	ck_assert_int_eq(n_answers, 2);
	ck_assert_int_eq(hub_calls_in_flight(h), 0);
	hub_shutdown(h);
	tools_free(tt);
	hub_free(h);
}
END_TEST

/* The command the browser b is sent next, as JSON (its "data"), with the message itself. */
static json_t *
next_command(struct hub *h, struct hub_browser *b)
{
	size_t len;
	char *msg = hub_next_out(h, b, &len);
	ck_assert_ptr_nonnull(msg);
	json_t *m = json_loads(msg, 0, NULL);
	free(msg);
	ck_assert_ptr_nonnull(m);
	return m;
}

/* A parameter left out reaches the browser with the default its schema states (browser_type
 * without "clear" used to append: the extension read the missing flag as false); one given is
 * sent as given, and history's copy is what the caller sent. */
START_TEST(defaults_reach_the_browser)
{
	struct hub_browser *b;
	struct hub *h = hub_with_browser(&b);
	struct tools *tt = tools_create(h, NULL, NULL);
	const struct tool *type = tools_find(tt, "browser_type");
	struct tools_caller who = {"http:a", "a", "k1", NULL};
	json_t *params = json_pack("{s:s, s:s}", "target", "Name", "text", "Grace");
	tools_call(tt, type, params, &who, on_answer, NULL);
	json_t *m = next_command(h, b), *d = json_object_get(m, "data");
	ck_assert(json_is_true(json_object_get(d, "clear")));
	ck_assert(json_is_false(json_object_get(d, "submit")));
	ck_assert_str_eq(json_string_value(json_object_get(d, "text")), "Grace");
	ck_assert_ptr_null(json_object_get(params, "clear")); /* the caller's object is left as it was */
	json_decref(m);
	json_decref(params);
	params = json_pack("{s:s, s:s, s:b}", "target", "Name", "text", "Grace", "clear", 0);
	tools_call(tt, type, params, &who, on_answer, NULL);
	m = next_command(h, b);
	ck_assert(json_is_false(json_object_get(json_object_get(m, "data"), "clear")));
	json_decref(m);
	json_decref(params);
	const struct tool *scroll = tools_find(tt, "browser_scroll");
	params = json_object();
	tools_call(tt, scroll, params, &who, on_answer, NULL);
	m = next_command(h, b);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(m, "data"), "direction")), "down");
	ck_assert_ptr_null(json_object_get(json_object_get(m, "data"), "timeout_ms")); /* common ones are not the browser's */
	json_decref(m);
	json_decref(params);
	hub_shutdown(h);
	tools_free(tt);
	hub_free(h);
}
END_TEST

int
main(void)
{
	t = tools_create(NULL, NULL, NULL);
	Suite *s = suite_create("tools");
	TCase *tc = tcase_create("tools");
	tcase_add_test(tc, catalog_shape);
	tcase_add_test(tc, validation);
	tcase_add_test(tc, url_normalize);
	tcase_add_test(tc, generated_schema);
	tcase_add_test(tc, redaction);
	tcase_add_test(tc, objects);
	tcase_add_test(tc, cancel_only_own_session);
	tcase_add_test(tc, defaults_reach_the_browser);
	suite_add_tcase(s, tc);
	int rc = testlib_run(s, 0);
	tools_free(t);
	return rc;
}
