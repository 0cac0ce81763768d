/* libFuzzer target for src/tools.c: parameter validation of every tool, URL normalisation, and the
 * summaries built from what a (hostile) browser answers. Input: a tool index byte, then the
 * parameters as JSON, a LF, then the browser's command_result data as JSON. The typed text of
 * browser_type never appears in an answer; every call is answered exactly once. See fuzz/README. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "events.h"
#include "hub.h"
#include "log.h"
#include "tools.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct hub *hub;
static struct tools *tools;
static struct hub_browser *browser;
static int answers;
static char *answer_text;

static void
noop_wake(void *arg)
{
	(void)arg;
}

/* The tools' answer (ours to free): keep its text for the checks. */
static void
on_answer(json_t *answer, int status, void *arg)
{
	(void)arg;
	if (status < 200 || status > 599 || !json_is_object(answer))
		abort();
	answers++;
	free(answer_text);
	answer_text = json_dumps(answer, JSON_COMPACT);
	json_decref(answer); /* the callback owns it */
}

/* A hub with one scripted browser attached (no store: pages are not kept). */
static void
init(void)
{
	log_set_level(LOG_ERROR);
	hub = hub_create(NULL, NULL, noop_wake, NULL);
	tools = tools_create(hub, NULL, NULL);
	json_t *hello = json_pack("{s:s, s:s}", "clientId", "fuzz", "browser", "Fuzz");
	void *replaced = NULL;
	browser = hub_browser_attach(hub, hello, (void *)1, &replaced);
	json_decref(hello);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (hub == NULL)
		init();
	if (size < 1)
		return 0;
	size_t n;
	const struct tool *list = tools_list(&n);
	const struct tool *tool = &list[data[0] % n];
	const char *rest = (const char *)data + 1, *nl = memchr(rest, '\n', size - 1);
	size_t plen = nl ? (size_t)(nl - rest) : size - 1;
	json_t *params = json_loadb(rest, plen, JSON_DECODE_ANY, NULL);
	json_t *result = nl ? json_loadb(nl + 1, size - 1 - plen - 1, 0, NULL) : NULL;
	char *norm = NULL;
	char *url = strndup(rest, plen);
	const char *why = tools_normalize_url(url, data[0] & 0x80, &norm);
	if ((why == NULL) == (norm == NULL))
		abort(); /* exactly one of a URL and a reason */
	free(norm);
	free(url);
	if (params == NULL) {
		json_decref(result);
		return 0;
	}
	json_t *bad = tools_validate(tools, tool, params);
	json_decref(bad);
	const char *typed = json_is_object(params) ? json_string_value(json_object_get(params, "text")) : NULL;
	answers = 0;
	tools_call(tools, tool, params, NULL, on_answer, NULL);
	size_t len;
	char *msg;
	while ((msg = hub_next_out(hub, browser, &len)) != NULL) {
		json_t *m = json_loadb(msg, len, 0, NULL);
		const char *rid = json_string_value(json_object_get(json_object_get(m, "data"), "requestId"));
		json_t *d = json_is_object(result) ? json_deep_copy(result) : json_object();
		if (rid != NULL)
			json_object_set_new(d, "requestId", json_string(rid));
		if (!json_is_string(json_object_get(d, "status")))
			json_object_set_new(d, "status", json_string("success"));
		json_object_set_new(d, "pageFollows", json_false());
		char *err = NULL;
		hub_on_result(hub, browser, d, &err);
		free(err);
		json_decref(d);
		json_decref(m);
		free(msg);
	}
	if (answers != 1)
		abort(); /* answered at once (invalid, or the browser's result) and exactly once */
	if (typed != NULL && strlen(typed) >= 12 && strcmp(tool->name, "browser_type") == 0 && answer_text != NULL &&
	    strstr(answer_text, typed) != NULL) {
		/* Only the browser or another parameter may have put it there. */
		json_t *others = json_deep_copy(params);
		json_object_del(others, "text");
		char *o = json_dumps(others, JSON_COMPACT), *r = result ? json_dumps(result, JSON_COMPACT) : NULL;
		if ((o == NULL || strstr(o, typed) == NULL) && (r == NULL || strstr(r, typed) == NULL))
			abort(); /* the typed text came back although nobody but the agent said it */
		free(o);
		free(r);
		json_decref(others);
	}
	json_decref(params);
	json_decref(result);
	return 0;
}
