/* tools.c -- see tools.h. */
#include "autoconfig.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "hub.h"
#include "limits.h"
#include "log.h"
#include "store.h"
#include "tools.h"
#include "util.h"

#define TARGET_PROP                                                                                          \
	"\"target\": {\"type\": \"string\", \"minLength\": 1, \"maxLength\": 2000, \"description\": "           \
	"\"The element: a ref from the page Markdown (e.g. \\\"e12\\\"), a CSS selector, or a plain "          \
	"description such as its visible text, label, placeholder, aria-label or title (\\\"Login\\\", "       \
	"\\\"Search box\\\"). Refs are the most precise.\"}"

/* The catalog. Everything a model, a person or a validator needs about a tool is here, once. */
static const struct tool catalog[] = {
	{"browser_open_url", "open_url", "Open a URL",
	 "Navigate the browser to a URL, in the current tab or a new one, and return the page as Markdown once it has "
	 "loaded. Interactive elements in the Markdown carry refs like [e12] that other tools accept as a target.",
	 "{\"url\": {\"type\": \"string\", \"minLength\": 1, \"maxLength\": 8192, \"description\": \"Absolute URL to "
	 "open (http, https, or file).\"}, \"new_tab\": {\"type\": \"boolean\", \"default\": false, \"description\": "
	 "\"Open in a new tab instead of the current one.\"}}",
	 "[\"url\"]", "Opened {url}", "open {url}", 1},
	{"browser_click", "click", "Click an element",
	 "Click an element on the page, wait for whatever it triggers (a navigation or DOM changes) to settle, and return "
	 "the page as it is after the click. If the target is ambiguous or missing, the error lists the closest "
	 "candidates with their refs.",
	 "{" TARGET_PROP "}", "[\"target\"]", "Clicked \"{target}\"", "click \"{target}\"", 1},
	{"browser_type", "type", "Type text into a field",
	 "Type text into an input, textarea, contenteditable element or select, the way a user would (works with React, "
	 "Vue and other framework-controlled fields). Optionally clear the field first and press Enter afterwards to "
	 "submit. The typed text is not kept in history, since it may be a password.",
	 "{" TARGET_PROP ", \"text\": {\"type\": \"string\", \"maxLength\": 100000, \"description\": \"The text to "
	 "type.\"}, \"clear\": {\"type\": \"boolean\", \"default\": true, \"description\": \"Clear the field before "
	 "typing.\"}, \"submit\": {\"type\": \"boolean\", \"default\": false, \"description\": \"Press Enter after "
	 "typing (submits most forms).\"}}",
	 "[\"target\", \"text\"]", "Typed {text_length} characters into \"{target}\"", "type into \"{target}\"", 1},
	{"browser_press_key", "press_key", "Press a key",
	 "Press a keyboard key (Enter, Tab, Escape, ArrowDown, Backspace, a letter...) on the focused element or on a "
	 "target, and return the page afterwards.",
	 "{\"key\": {\"type\": \"string\", \"minLength\": 1, \"maxLength\": 32, \"description\": \"Key name as in "
	 "KeyboardEvent.key, e.g. Enter, Tab, Escape, ArrowDown, a.\"}, \"target\": {\"type\": \"string\", "
	 "\"maxLength\": 2000, \"description\": \"Optional element to focus first (ref, selector or description).\"}}",
	 "[\"key\"]", "Pressed {key}", "press {key}", 1},
	{"browser_scroll", "scroll", "Scroll the page",
	 "Scroll the page (or a scrollable element) up or down, or to the top or bottom, and return the page afterwards. "
	 "Use it to reveal content that loads lazily.",
	 "{\"direction\": {\"type\": \"string\", \"enum\": [\"down\", \"up\", \"top\", \"bottom\"], \"default\": "
	 "\"down\", \"description\": \"Where to scroll.\"}, \"amount\": {\"type\": \"integer\", \"minimum\": 1, "
	 "\"maximum\": 100000, \"description\": \"Pixels to scroll for up/down (default: one screen).\"}, "
	 "\"target\": {\"type\": \"string\", \"maxLength\": 2000, \"description\": \"Optional scrollable element.\"}}",
	 "[]", "Scrolled {direction}", "scroll {direction}", 1},
	{"browser_select_option", "select_option", "Choose an option",
	 "Choose an option in a <select> element by its value or visible text, firing the events a user's choice "
	 "would, and return the page afterwards.",
	 "{" TARGET_PROP ", \"value\": {\"type\": \"string\", \"maxLength\": 2000, \"description\": \"The option's "
	 "value or visible text.\"}}",
	 "[\"target\", \"value\"]", "Selected \"{value}\" in \"{target}\"", "select \"{value}\" in \"{target}\"", 1},
	{"browser_back", "back", "Go back", "Go back one step in the tab's history, like the browser's Back button, and return the page once it has loaded.", "{}", "[]",
	 "Went back", "go back", 1},
	{"browser_forward", "forward", "Go forward", "Go forward one step in the tab's history, like the browser's Forward button, and return the page once it has loaded.",
	 "{}", "[]", "Went forward", "go forward", 1},
	{"browser_reload", "reload", "Reload", "Reload the current page, like the browser's Reload button, and return it once it has loaded. Use it when a page looks stale.", "{}", "[]",
	 "Reloaded the page", "reload the page", 1},
	{"browser_get_page", "get_page", "Read the page",
	 "Return the current page as Markdown without changing anything: headings, text, lists, tables, links and every "
	 "interactive element with its ref and current value. Use it to look before acting.",
	 "{}", "[]", "Read the page", "read the page", 1},
	{"browser_list_tabs", "list_tabs", "List tabs",
	 "List the browser's open tabs with their tab ids, URLs, titles and which one is active. Use a tab id with "
	 "tab_id on other tools, or with browser_switch_tab / browser_close_tab.",
	 "{}", "[]", "Listed the tabs", "list the tabs", 0},
	{"browser_switch_tab", "switch_tab", "Switch tab",
	 "Make the tab given by tab_id (from browser_list_tabs) the active one, so later calls act on it, and return its page.", "{}", "[\"tab_id\"]",
	 "Switched to tab {tab_id}", "switch to tab {tab_id}", 1},
	{"browser_close_tab", "close_tab", "Close tab", "Close the tab given by tab_id (from browser_list_tabs). The browser then activates another tab, as it would for a user.", "{}", "[\"tab_id\"]",
	 "Closed tab {tab_id}", "close tab {tab_id}", 0},
	{"browser_screenshot", "screenshot", "Take a screenshot",
	 "Capture the visible part of the tab as a PNG image (base64 in result.data, with its width and height).", "{}",
	 "[]", "Took a screenshot", "take a screenshot", 0},
	{"browser_wait_for", "wait_for", "Wait for text or an element",
	 "Wait until a text or a CSS selector appears on (or disappears from) the page, then return the page. Use it "
	 "after actions whose effect arrives late.",
	 "{\"text\": {\"type\": \"string\", \"minLength\": 1, \"maxLength\": 2000, \"description\": \"Text to wait "
	 "for.\"}, \"selector\": {\"type\": \"string\", \"minLength\": 1, \"maxLength\": 2000, \"description\": \"CSS "
	 "selector to wait for (instead of text).\"}, \"state\": {\"type\": \"string\", \"enum\": [\"visible\", "
	 "\"hidden\"], \"default\": \"visible\", \"description\": \"Wait for it to appear or to disappear.\"}, "
	 "\"wait_ms\": {\"type\": \"integer\", \"minimum\": 0, \"maximum\": 120000, \"default\": 10000, "
	 "\"description\": \"How long the browser waits before giving up.\"}}",
	 "[]", "Waited for {text}{selector}", "wait for {text}{selector}", 1},
	{"browser_handle_dialog", "handle_dialog", "Answer the next dialog",
	 "Set how the next JavaScript dialog on the tab (alert, confirm, prompt, or the \"Leave site?\" of "
	 "beforeunload) is answered: accept or dismiss it, and for a prompt the text to answer with. Call it before the "
	 "action that opens the dialog; that action's result reports the dialog (result.dialog: kind, message, how it "
	 "was answered). Without it, alerts are accepted, confirm and prompt dismissed, and the page is left.",
	 "{\"accept\": {\"type\": \"boolean\", \"description\": \"Accept (OK, leave the page) or dismiss (Cancel, "
	 "stay on the page) the next dialog.\"}, \"prompt_text\": {\"type\": \"string\", \"maxLength\": 100000, "
	 "\"description\": \"For a prompt() that is accepted: the text to answer with (default: the prompt's default "
	 "value). Not kept in history.\"}}",
	 "[\"accept\"]", "Set how the next dialog is answered", "set how the next dialog is answered", 0},
};

/* Parameters every tool takes; merged into each schema rather than repeated above. */
static const char common_props[] =
	"{\"client_id\": {\"type\": \"string\", \"maxLength\": 64, \"description\": \"Which connected browser should "
	"do it (see /api/status). Default: the most recently active one.\"}, \"tab_id\": {\"type\": \"integer\", "
	"\"minimum\": 0, \"maximum\": 2147483647, \"description\": \"Which tab to act on. Default: the active tab.\"}, "
	"\"wait_for_page_info\": {\"type\": \"boolean\", \"description\": \"Wait for and return the page after the "
	"action.\"}, \"timeout_ms\": {\"type\": \"integer\", \"minimum\": 100, \"maximum\": 600000, \"default\": 30000, "
	"\"description\": \"How long to wait for the browser, in milliseconds.\"}}";

#define N_TOOLS (sizeof catalog / sizeof catalog[0])

struct tools {
	struct hub *hub;
	struct store *store;
	struct events *events;
	json_t *schemas[N_TOOLS]; /* full JSON Schema per tool */
};

/* The static catalog, for code that only needs names and descriptions (the CLI). */
const struct tool *
tools_list(size_t *n)
{
	*n = N_TOOLS;
	return catalog;
}

/* Build each tool's full schema; a malformed built-in schema is a programming error, so abort. */
struct tools *
tools_create(struct hub *hub, struct store *store, struct events *events)
{
	struct tools *t = xcalloc(1, sizeof *t);
	t->hub = hub;
	t->store = store;
	t->events = events;
	json_error_t e;
	json_t *common = json_loads(common_props, 0, &e);
	if (common == NULL) {
		log_error("built-in schema: %s", e.text);
		abort();
	}
	for (size_t i = 0; i < N_TOOLS; i++) {
		json_t *props = json_loads(catalog[i].properties, 0, &e);
		json_t *req = json_loads(catalog[i].required, 0, &e);
		if (props == NULL || req == NULL) {
			log_error("built-in schema of %s: %s", catalog[i].name, e.text);
			abort();
		}
		json_t *c = json_deep_copy(common);
		json_object_set_new(json_object_get(c, "wait_for_page_info"), "default",
		                    json_boolean(catalog[i].page_default));
		json_object_update_missing(props, c);
		json_decref(c);
		t->schemas[i] = json_pack("{s:s, s:o, s:o, s:b}", "type", "object", "properties", props, "required", req,
		                          "additionalProperties", 0);
	}
	json_decref(common);
	return t;
}

/* Free the catalog. NULL is fine. */
void
tools_free(struct tools *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < N_TOOLS; i++)
		json_decref(t->schemas[i]);
	free(t);
}

/* Look a tool up by name. */
const struct tool *
tools_find(const struct tools *t, const char *name)
{
	(void)t;
	for (size_t i = 0; i < N_TOOLS; i++)
		if (strcmp(catalog[i].name, name) == 0)
			return &catalog[i];
	return NULL;
}

/* The tool's full JSON Schema (borrowed). */
json_t *
tools_schema(const struct tools *t, const struct tool *tool)
{
	return t->schemas[tool - catalog];
}

/* The tool names, for "unknown tool" errors. */
json_t *
tools_names(const struct tools *t)
{
	(void)t;
	json_t *a = json_array();
	for (size_t i = 0; i < N_TOOLS; i++)
		json_array_append_new(a, json_string(catalog[i].name));
	return a;
}

/* GET /api/tools: each tool in the shape OpenAI (parameters) and Anthropic (input_schema) expect. */
json_t *
tools_catalog(const struct tools *t)
{
	json_t *a = json_array();
	for (size_t i = 0; i < N_TOOLS; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:O, s:O}", "name", catalog[i].name, "title",
		                                   catalog[i].title, "description", catalog[i].description, "command",
		                                   catalog[i].command, "parameters", t->schemas[i], "input_schema",
		                                   t->schemas[i]));
	return json_pack("{s:o}", "tools", a);
}

/* An error body: {"status": "error", "error": code, "message": ...}. */
json_t *
tools_error(const char *code, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return json_pack("{s:s, s:s, s:s}", "status", "error", "error", code, "message", msg);
}

/* A 400 body naming the field and what was expected. */
static json_t *
bad_param(const char *tool, const char *field, const char *expected, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "status", "error", "error", "invalid_params", "tool", tool,
	                 "field", field, "expected", expected, "message", msg);
}

/* The JSON type name of a value, for error messages. */
static const char *
type_name(json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/* Check one value against its property schema; returns an error body or NULL. */
static json_t *
check_value(const char *tool, const char *field, json_t *v, json_t *ps)
{
	const char *type = json_string_value(json_object_get(ps, "type"));
	json_t *en = json_object_get(ps, "enum");
	if (!strcmp(type, "string")) {
		if (!json_is_string(v))
			return bad_param(tool, field, "string", "%s: expected a string, got %s", field, type_name(v));
		size_t len = json_string_length(v);
		json_int_t mn = json_integer_value(json_object_get(ps, "minLength"));
		json_t *mx = json_object_get(ps, "maxLength");
		if ((json_int_t)len < mn)
			return bad_param(tool, field, "non-empty string", "%s: must not be empty", field);
		if (mx && (json_int_t)len > json_integer_value(mx))
			return bad_param(tool, field, "shorter string", "%s: at most %lld bytes, got %zu", field,
			                 (long long)json_integer_value(mx), len);
		if (strlen(json_string_value(v)) != len)
			return bad_param(tool, field, "string without NUL", "%s: must not contain NUL characters", field);
		if (en) {
			size_t i;
			json_t *e;
			json_array_foreach(en, i, e) if (json_equal(e, v)) return NULL;
			char *allowed = json_dumps(en, JSON_COMPACT);
			json_t *r = bad_param(tool, field, allowed, "%s: expected one of %s, got \"%.100s\"", field, allowed,
			                      json_string_value(v));
			free(allowed);
			return r;
		}
	} else if (!strcmp(type, "integer")) {
		if (!json_is_integer(v))
			return bad_param(tool, field, "integer", "%s: expected an integer, got %s", field, type_name(v));
		json_t *mn = json_object_get(ps, "minimum"), *mx = json_object_get(ps, "maximum");
		json_int_t x = json_integer_value(v);
		if ((mn && x < json_integer_value(mn)) || (mx && x > json_integer_value(mx))) {
			char range[64];
			snprintf(range, sizeof range, "integer from %lld to %lld", (long long)json_integer_value(mn),
			         (long long)json_integer_value(mx));
			return bad_param(tool, field, range, "%s: expected an %s, got %lld", field, range, (long long)x);
		}
	} else if (!strcmp(type, "boolean")) {
		if (!json_is_boolean(v))
			return bad_param(tool, field, "boolean", "%s: expected true or false, got %s", field, type_name(v));
	}
	return NULL;
}

/* Validate parameters against the tool's schema: unknown, missing, wrong type, out of range. */
json_t *
tools_validate(const struct tools *t, const struct tool *tool, json_t *params)
{
	json_t *schema = tools_schema(t, tool), *props = json_object_get(schema, "properties");
	if (!json_is_object(params))
		return bad_param(tool->name, "(body)", "JSON object",
		                 "the request body must be a JSON object of parameters, got %s", type_name(params));
	const char *k;
	json_t *v;
	json_object_foreach(params, k, v)
	{
		json_t *ps = json_object_get(props, k);
		if (ps == NULL) {
			struct buf b = {0};
			const char *pk;
			json_t *pv;
			json_object_foreach(props, pk, pv) buf_printf(&b, "%s%s", b.len ? ", " : "", pk);
			json_t *r = bad_param(tool->name, k, "a known parameter",
			                      "unknown parameter \"%.64s\" for %s (it takes: %s)", k, tool->name, b.data);
			buf_free(&b);
			return r;
		}
		json_t *r = check_value(tool->name, k, v, ps);
		if (r)
			return r;
	}
	size_t i;
	json_array_foreach(json_object_get(schema, "required"), i, v)
	{
		const char *name = json_string_value(v);
		if (json_object_get(params, name) == NULL)
			return bad_param(tool->name, name, json_string_value(json_object_get(
			                                           json_object_get(props, name), "type")),
			                 "missing required parameter \"%s\" for %s", name, tool->name);
	}
	if (!strcmp(tool->command, "wait_for") && !json_object_get(params, "text") &&
	    !json_object_get(params, "selector"))
		return bad_param(tool->name, "text", "text or selector", "browser_wait_for needs text or selector");
	return NULL;
}

struct pending {
	struct tools *t;
	const struct tool *tool;
	long timeout_ms;
	const char *attempt; /* the tool's sentences with the parameters filled in, made at the start so */
	const char *done;    /* the parameters need not be kept as a tree while the call waits */
	tools_answer_fn cb;
	void *arg;
	char text[]; /* attempt and done, each NUL-terminated: one allocation per waiting call */
};

/* Append tpl with its {param} placeholders filled from the call's parameters ({text_length} is the
 * length of text). */
static void
expand(struct buf *b, const char *tpl, json_t *params)
{
	size_t text_length = json_string_length(json_object_get(params, "text"));
	for (const char *p = tpl; *p;) {
		const char *open = strchr(p, '{'), *close = open ? strchr(open, '}') : NULL;
		if (open == NULL || close == NULL) {
			buf_adds(b, p);
			break;
		}
		buf_add(b, p, (size_t)(open - p));
		char key[64];
		snprintf(key, sizeof key, "%.*s", (int)(close - open - 1), open + 1);
		json_t *v = json_object_get(params, key);
		if (!strcmp(key, "text_length"))
			buf_printf(b, "%zu", text_length);
		else if (json_is_string(v))
			buf_printf(b, "%.200s", json_string_value(v));
		else if (json_is_integer(v))
			buf_printf(b, "%lld", (long long)json_integer_value(v));
		else if (!strcmp(key, "direction"))
			buf_adds(b, "down");
		p = close + 1;
	}
}

/* One sentence saying what happened, for a model or a person (seed 003's summary). */
static char *
summarize(const struct pending *p, const char *status, json_t *result, json_t *page, enum hub_outcome outcome)
{
	long timeout_ms = p->timeout_ms;
	struct buf b = {0};
	if (outcome == HUB_DISCONNECTED || outcome == HUB_SHUTDOWN) {
		buf_adds(&b, outcome == HUB_SHUTDOWN ? "The daemon is shutting down; could not " :
		                                       "The browser disconnected before it could ");
		buf_adds(&b, p->attempt);
		buf_adds(&b, ".");
	} else if (outcome == HUB_TIMEOUT && result == NULL) {
		buf_printf(&b, "No answer from the browser within %ld ms while trying to ", timeout_ms);
		buf_adds(&b, p->attempt);
		buf_adds(&b, ".");
	} else if (!strcmp(status, "error")) {
		const char *why = json_string_value(json_object_get(result, "error"));
		if (why == NULL)
			why = json_string_value(json_object_get(result, "message"));
		buf_adds(&b, "Could not ");
		buf_adds(&b, p->attempt);
		buf_printf(&b, ": %.500s", why ? why : "the browser reported an error");
		size_t n = b.len;
		if (n > 0 && b.data[n - 1] != '.')
			buf_adds(&b, ".");
	} else {
		buf_adds(&b, p->done);
		if (outcome == HUB_TIMEOUT)
			buf_printf(&b, ", but the page after it did not arrive within %ld ms.", timeout_ms);
		else if (page != NULL)
			buf_printf(&b, "; the page is now \"%.200s\" (%.300s).",
			           json_string_value(json_object_get(page, "title")),
			           json_string_value(json_object_get(page, "url")));
		else
			buf_adds(&b, ".");
	}
	return buf_steal(&b);
}

/* The page as agents see it (snake_case, with its history id). */
static json_t *
page_json(json_t *p)
{
	if (p == NULL)
		return json_null();
	json_t *tab = json_object_get(p, "tabId");
	return json_pack("{s:O, s:O, s:O, s:O, s:O, s:O, s:b}", "url", json_object_get(p, "url"), "title",
	                 json_object_get(p, "title"), "markdown", json_object_get(p, "markdown"), "tab_id",
	                 tab ? tab : json_null(), "history_id",
	                 json_object_get(p, "history_id") ? json_object_get(p, "history_id") : json_null(),
	                 "captured_at", json_object_get(p, "captured_at"), "truncated",
	                 json_is_true(json_object_get(p, "truncated")));
}

/* A call finished (any thread): build the answer, log it, publish it, hand it to the transport. */
static void
call_done(struct hub_call *c, void *arg)
{
	struct pending *p = arg;
	int http = 200;
	const char *status, *code = NULL;
	json_t *result = c->result;
	switch (c->outcome) {
	case HUB_COMPLETE:
		status = json_string_value(json_object_get(result, "status"));
		break;
	case HUB_TIMEOUT:
		http = 504;
		status = result ? "partial_success" : "error";
		code = "timeout";
		break;
	case HUB_SHUTDOWN:
		http = 503;
		status = "error";
		code = "shutting_down";
		break;
	default:
		http = 503;
		status = "error";
		code = "browser_disconnected";
		break;
	}
	char *summary = summarize(p, status, result, c->page, c->outcome);
	json_t *res = json_object();
	if (result != NULL) {
		json_object_update(res, json_object_get(result, "result"));
		json_object_set(res, "status", json_object_get(result, "status"));
		json_object_set(res, "message", json_object_get(result, "message"));
		if (json_object_get(result, "error"))
			json_object_set(res, "error", json_object_get(result, "error"));
	}
	json_t *ans = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "status", status, "tool", p->tool->name,
	                        "request_id", c->request_id, "client_id", c->client_id, "summary", summary, "result",
	                        res, "page", page_json(c->page));
	if (code) {
		json_object_set_new(ans, "error", json_string(code));
		json_object_set_new(ans, "message", json_string(summary));
	}
	if (c->outcome == HUB_TIMEOUT)
		json_object_set_new(ans, "waiting_for",
		                    json_string(result ? "page" : c->wait_page ? "result and page" : "result"));

	int64_t now = util_now_ms();
	char started[32], finished[32];
	util_iso8601(c->started_ms, started);
	util_iso8601(now, finished);
	json_t *hid = c->page ? json_object_get(c->page, "history_id") : NULL;
	if (p->t->store != NULL) {
		json_t *rec = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:I}", "request_id",
		                        c->request_id, "tool", c->tool, "command", c->command, "client_id", c->client_id,
		                        "params", c->params, "status", status, "http_status", http, "started_at", started,
		                        "finished_at", finished, "duration_ms", (json_int_t)(now - c->started_ms));
		json_object_set_new(rec, "summary", json_string(summary));
		if (result && json_object_get(result, "message"))
			json_object_set(rec, "message", json_object_get(result, "message"));
		if (result && json_object_get(result, "error"))
			json_object_set(rec, "error", json_object_get(result, "error"));
		else if (code)
			json_object_set_new(rec, "error", json_string(code));
		if (hid)
			json_object_set(rec, "history_id", hid);
		store_add_command(p->t->store, rec);
	}
	if (events_has_subscribers(p->t->events)) {
		json_t *ev = json_pack("{s:s, s:s, s:s, s:i, s:s, s:I}", "request_id", c->request_id, "tool", c->tool,
		                       "status", status, "http_status", http, "summary", summary, "duration_ms",
		                       (json_int_t)(now - c->started_ms));
		if (hid)
			json_object_set(ev, "history_id", hid);
		events_publish(p->t->events, "call_end", ev);
	}
	free(summary);
	hub_call_free(c);
	p->cb(ans, http, p->arg);
	free(p);
}

/* Validate and start a call; the answer always comes through cb (possibly before this returns). */
void
tools_call(struct tools *t, const struct tool *tool, json_t *params, tools_answer_fn cb, void *arg)
{
	json_t *bad = tools_validate(t, tool, params);
	if (bad != NULL) {
		cb(bad, 400, arg);
		return;
	}
	json_t *schema = tools_schema(t, tool);
	json_t *tab = json_object_get(params, "tab_id"), *wait = json_object_get(params, "wait_for_page_info");
	json_t *tmo = json_object_get(params, "timeout_ms");
	struct hub_call_spec sp = {0};
	sp.tool = tool->name;
	sp.command = tool->command;
	sp.client_id = json_string_value(json_object_get(params, "client_id"));
	sp.tab_id = tab ? (long)json_integer_value(tab) : -1;
	sp.wait_page = wait ? json_is_true(wait) : tool->page_default;
	sp.timeout_ms = tmo ? (long)json_integer_value(tmo) : BB_CALL_TIMEOUT_DEFAULT_MS;
	(void)schema;

	/* What the browser gets: the tool's own parameters. What history keeps: the same, minus typed text. */
	json_t *args = json_deep_copy(params), *logged = json_deep_copy(params);
	static const char *const common[] = {"client_id", "tab_id", "wait_for_page_info", "timeout_ms"};
	for (int i = 0; i < 4; i++)
		json_object_del(args, common[i]);
	if (!strcmp(tool->command, "type")) {
		size_t n = json_string_length(json_object_get(params, "text"));
		json_object_set_new(logged, "text", json_sprintf("[%zu characters, not kept]", n));
	}
	if (json_is_string(json_object_get(params, "prompt_text"))) {
		size_t n = json_string_length(json_object_get(params, "prompt_text"));
		json_object_set_new(logged, "prompt_text", json_sprintf("[%zu characters, not kept]", n));
	}
	sp.params = logged;
	sp.browser_args = args;
	struct buf texts = {0};
	expand(&texts, tool->attempt, params);
	size_t na = texts.len + 1;
	buf_add(&texts, "", 1);
	expand(&texts, tool->done, params);
	struct pending *p = xcalloc(1, sizeof *p + texts.len + 1);
	memcpy(p->text, texts.data, texts.len + 1);
	buf_free(&texts);
	p->attempt = p->text;
	p->done = p->text + na;
	p->t = t;
	p->tool = tool;
	p->timeout_ms = sp.timeout_ms;
	p->cb = cb;
	p->arg = arg;
	sp.done = call_done;
	sp.arg = p;
	int err = hub_call_start(t->hub, &sp, NULL);
	json_decref(args);
	json_decref(logged);
	if (err == HUB_OK)
		return;
	free(p);
	json_t *body;
	int http = 503;
	switch (err) {
	case HUB_E_UNKNOWN_CLIENT:
		body = tools_error("unknown_client", "no browser with client_id \"%.64s\" is connected (see /api/status)",
		                   sp.client_id);
		break;
	case HUB_E_BUSY:
		body = tools_error("busy", "too many calls are waiting; try again shortly");
		break;
	case HUB_E_STOPPING:
		body = tools_error("shutting_down", "the daemon is shutting down");
		break;
	default:
		body = tools_error("no_browser", "no browser is connected: install the extension and pair it with the "
		                                 "token (browser-bridge token), or start the daemon with --headless");
		break;
	}
	json_object_set_new(body, "tool", json_string(tool->name));
	cb(body, http, arg);
}
