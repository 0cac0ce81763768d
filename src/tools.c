/* tools.c -- see tools.h. */
#include "autoconfig.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
	 "{\"url\": {\"type\": \"string\", \"minLength\": 1, \"maxLength\": 8192, \"description\": \"URL to open: "
	 "http or https (file only where the daemon allows it), or what an address bar takes, such as example.org/path "
	 "or localhost:8080 (https is assumed, http for localhost and loopback addresses).\"}, \"new_tab\": {\"type\": \"boolean\", \"default\": false, \"description\": "
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
	int allow_file_urls; /* config allow_file_urls: open_url may open file: URLs */
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

/* Let open_url open file: URLs (config allow_file_urls); main thread, before calls start. */
void
tools_allow_file_urls(struct tools *t, int on)
{
	t->allow_file_urls = on != 0;
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

/* Whether a host (no brackets, no port) is a dotted-quad IPv4 address; *loop says 127/8. */
static int
is_ipv4(const char *h, size_t n, int *loop)
{
	int parts = 0, digits = 0;
	long v = 0, first = -1;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || h[i] == '.') {
			if (digits == 0 || digits > 3 || v > 255)
				return 0;
			if (first < 0)
				first = v;
			parts++;
			digits = 0;
			v = 0;
		} else if (h[i] >= '0' && h[i] <= '9') {
			v = v * 10 + (h[i] - '0');
			digits++;
		} else {
			return 0;
		}
	}
	*loop = first == 127;
	return parts == 4;
}

/* Check host[:port] at the start of s (up to '/', '?', '#' or the end); *end is where it stops.
 * Returns NULL when it is an address an address bar would open, else why not; *loopback is set
 * for localhost and loopback addresses; need_dot: a bare name (no dot) is refused. */
static const char *
check_authority(const char *s, const char **end, int *loopback, int need_dot)
{
	size_t n = strcspn(s, "/?#\\"); /* a browser reads \ as / in http(s) URLs */
	*end = s + n;
	*loopback = 0;
	const char *at = memchr(s, '@', n);
	if (at != NULL) { /* user:password@ goes to the browser as it is; the host follows */
		n -= (size_t)(at + 1 - s);
		s = at + 1;
	}
	const char *host = s, *port = NULL;
	size_t hl;
	if (n > 0 && *s == '[') {
		const char *close = memchr(s, ']', n);
		if (close == NULL)
			return "an IPv6 address must be closed with ]";
		for (const char *q = s + 1; q < close; q++)
			if (!(strchr("0123456789abcdefABCDEF:.", *q)))
				return "not a valid IPv6 address";
		if (close == s + 1 || memchr(s, ':', (size_t)(close - s)) == NULL)
			return "not a valid IPv6 address";
		hl = (size_t)(close + 1 - s);
		*loopback = (size_t)(close - s - 1) == 3 && strncmp(s + 1, "::1", 3) == 0;
		if (hl < n) {
			if (close[1] != ':')
				return "unexpected characters after the IPv6 address";
			port = close + 2;
		}
	} else {
		const char *colon = memchr(s, ':', n);
		hl = colon ? (size_t)(colon - s) : n;
		port = colon ? colon + 1 : NULL;
	}
	if (hl == 0)
		return "the URL has no host";
	if (port != NULL) {
		size_t pl = (size_t)(s + n - port);
		long pv = 0;
		if (pl == 0 || pl > 5)
			return "the port must be a number from 1 to 65535";
		for (size_t i = 0; i < pl; i++) {
			if (port[i] < '0' || port[i] > '9')
				return "the port must be a number from 1 to 65535";
			pv = pv * 10 + (port[i] - '0');
		}
		if (pv < 1 || pv > 65535)
			return "the port must be a number from 1 to 65535";
	}
	if (*host == '[')
		return NULL;
	int loop = 0;
	if (is_ipv4(host, hl, &loop)) {
		*loopback = loop;
		return NULL;
	}
	int dot = 0, label = 0;
	for (size_t i = 0; i < hl; i++) {
		unsigned char ch = (unsigned char)host[i];
		if (ch == '.') {
			if (label == 0)
				return "the host has an empty label";
			dot = 1;
			label = 0;
		} else if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
		           ch == '_' || ch >= 0x80) {
			label++;
		} else {
			return ch == ' ' ? "the host contains a space" : "the host contains a character no host name has";
		}
	}
	if (label == 0 && hl > 0 && host[hl - 1] == '.' && hl > 1)
		label = 1; /* a trailing dot (fully qualified) is fine */
	int is_localhost = (hl == 9 && strncasecmp(host, "localhost", 9) == 0) ||
	                   (hl > 10 && strncasecmp(host + hl - 10, ".localhost", 10) == 0);
	*loopback = is_localhost;
	if (need_dot && !dot && !is_localhost)
		return "a host without a dot is not taken for an address (write https://NAME/ to mean it)";
	return NULL;
}

/* Turn what an address bar would take into an absolute URL: http(s) with a host, about:blank,
 * file:///path when allowed, or a scheme-less host[:port][/path] (https, or http for localhost and
 * loopback). Spaces and quotes after the host are percent-encoded. NULL and *out set, or why not. */
const char *
tools_normalize_url(const char *in, int allow_file, char **out)
{
	*out = NULL;
	while (*in == ' ' || *in == '\t' || *in == '\n' || *in == '\r')
		in++;
	size_t len = strlen(in);
	while (len > 0 && (in[len - 1] == ' ' || in[len - 1] == '\t' || in[len - 1] == '\n' || in[len - 1] == '\r'))
		len--;
	if (len == 0)
		return "the URL is empty";
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)in[i] < 0x20 || in[i] == 0x7f)
			return "the URL contains a control character";
	size_t sl = 0;
	if ((in[0] >= 'a' && in[0] <= 'z') || (in[0] >= 'A' && in[0] <= 'Z'))
		sl = strspn(in, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");
	int has_scheme = sl > 0 && sl < len && in[sl] == ':';
	if (has_scheme) { /* "localhost:8080/x": a port, not a scheme */
		size_t d = strspn(in + sl + 1, "0123456789");
		if (d > 0 && strchr("/?#", in[sl + 1 + d]) != NULL)
			has_scheme = 0;
	}
	struct buf b = {0};
	const char *rest, *end;
	int loopback;
	if (has_scheme) {
		if (sl == 5 && len == 11 && strncasecmp(in, "about:blank", 11) == 0) {
			*out = xstrdup("about:blank");
			return NULL;
		}
		if (sl == 4 && strncasecmp(in, "file", 4) == 0) {
			if (!allow_file)
				return "file: URLs are refused unless allow_file_urls is set in the daemon's config";
			if (strncmp(in + 5, "///", 3) != 0)
				return "a file: URL must be file:///absolute/path";
			buf_adds(&b, "file://");
			rest = in + 7;
			goto path;
		}
		int https = sl == 5 && strncasecmp(in, "https", 5) == 0;
		if (!(https || (sl == 4 && strncasecmp(in, "http", 4) == 0))) {
			return "only http and https URLs can be opened (javascript:, data:, chrome: and other schemes are "
			       "refused)";
		}
		if (strncmp(in + sl + 1, "//", 2) != 0)
			return "an http(s) URL must have // and a host after the scheme";
		const char *why = check_authority(in + sl + 3, &end, &loopback, 0);
		if (why)
			return why;
		buf_adds(&b, https ? "https://" : "http://");
		buf_add(&b, in + sl + 3, (size_t)(end - (in + sl + 3)));
		rest = end;
	} else {
		if (in[0] == '/' || in[0] == '.')
			return "a path is not a URL (write https://HOST/PATH)";
		const char *why = check_authority(in, &end, &loopback, 1);
		if (why) {
			buf_free(&b);
			return why;
		}
		buf_adds(&b, loopback ? "http://" : "https://");
		buf_add(&b, in, (size_t)(end - in));
		rest = end;
	}
path:
	for (const char *q = rest; q < in + len; q++) {
		if (strchr(" \"<>`", *q))
			buf_printf(&b, "%%%02X", (unsigned char)*q);
		else
			buf_add(&b, q, 1);
	}
	if (b.len > BB_URL_MAX) {
		buf_free(&b);
		return "the URL is longer than 8192 bytes";
	}
	*out = buf_steal(&b);
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
	if (!strcmp(tool->command, "open_url")) {
		char *norm;
		const char *why = tools_normalize_url(json_string_value(json_object_get(params, "url")),
		                                      t->allow_file_urls, &norm);
		free(norm);
		if (why != NULL)
			return bad_param(tool->name, "url", "an http or https URL, or host[:port][/path]", "url: %s", why);
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
	const char *store_error; /* HUB_STORE_FAILED: the call's reason, borrowed while it is answered */
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

/* Append at most max characters of page-supplied text (s may be NULL), escaped so it cannot end its
 * quotes or start a line: control characters, quotes and backslashes become \n, \", \\ or \uXXXX;
 * in a URL (quoted == 0) spaces are %20. A cut is marked with "…" and never splits a UTF-8 sequence. */
static void
add_escaped(struct buf *b, const char *s, size_t max, int quoted)
{
	size_t chars = 0;
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; chars++) {
		if (chars == max) {
			buf_adds(b, "…");
			return;
		}
		if (*p == '\n')
			buf_adds(b, "\\n");
		else if (*p == '\r')
			buf_adds(b, "\\r");
		else if (*p == '\t')
			buf_adds(b, "\\t");
		else if (*p < 0x20 || *p == 0x7f)
			buf_printf(b, "\\u%04x", *p);
		else if (quoted && (*p == '"' || *p == '\\'))
			buf_printf(b, "\\%c", *p);
		else if (!quoted && (*p == ' ' || *p == '"'))
			buf_printf(b, "%%%02X", *p);
		else if (*p < 0x80) {
			buf_add(b, p, 1);
		} else { /* one UTF-8 sequence; line and paragraph separators are escaped too */
			size_t n = 1;
			while (n < 4 && (p[n] & 0xC0) == 0x80)
				n++;
			if (n == 3 && p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9))
				buf_printf(b, "\\u%04x", p[2] == 0xA8 ? 0x2028 : 0x2029);
			else
				buf_add(b, p, n);
			p += n;
			continue;
		}
		p++;
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
	} else if (outcome == HUB_STORE_FAILED) {
		/* The browser did act (or tried); only the history failed. Say both, and why. */
		const char *why = json_string_value(json_object_get(result, "error"));
		if (strcmp(json_string_value(json_object_get(result, "status")) ?: "", "error") == 0) {
			buf_adds(&b, "Could not ");
			buf_adds(&b, p->attempt);
			buf_printf(&b, " (%.300s), and the page after it", why ? why : "the browser reported an error");
		} else {
			buf_adds(&b, p->done);
			buf_adds(&b, ", but the page after it");
		}
		buf_printf(&b, " could not be stored in the history, so it is not returned: %s.",
		           p->store_error ? p->store_error : "the database cannot be written");
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
		else if (page != NULL) {
			/* URL first and the title quoted: page text must never read as the daemon's own words. */
			buf_adds(&b, "; the page is now at ");
			add_escaped(&b, json_string_value(json_object_get(page, "url")), BB_SUMMARY_URL_MAX, 0);
			buf_adds(&b, ", titled \"");
			add_escaped(&b, json_string_value(json_object_get(page, "title")), BB_SUMMARY_TITLE_MAX, 1);
			buf_adds(&b, "\".");
		}
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
	case HUB_STORE_FAILED:
		http = 503;
		status = "error";
		code = "history_unavailable";
		p->store_error = c->store_error;
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
	json_t *own = NULL; /* open_url: the parameters with the URL made absolute */
	if (!strcmp(tool->command, "open_url")) {
		char *norm = NULL;
		tools_normalize_url(json_string_value(json_object_get(params, "url")), t->allow_file_urls, &norm);
		params = own = json_copy(params);
		json_object_set_new(own, "url", json_string(norm));
		free(norm);
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
	if (err == HUB_OK) {
		json_decref(own);
		return;
	}
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
	json_decref(own);
	cb(body, http, arg);
}
