/* histtools.c -- see histtools.h. */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "histtools.h"
#include "limits.h"
#include "store.h"
#include "util.h"

/* One history read waiting for a reader thread; everything it needs is copied from the call. */
struct hjob {
	struct store *st;
	const struct tool *tool;
	int get;      /* 1: browser_history_get, 0: browser_history_search */
	char *q, *url;
	long limit;
	int64_t id;
	tools_answer_fn cb;
	void *arg;
};

/* Append page-supplied text on one line, at most max bytes (cut at a character), control characters
 * as spaces: a title must not read as the daemon's own words or start a line of its own. */
static void
add_line_text(struct buf *b, const char *s, size_t max)
{
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++, n++) {
		if (n >= max && (*p & 0xC0) != 0x80) {
			buf_adds(b, "…");
			return;
		}
		if (*p < 0x20 || *p == 0x7f)
			buf_adds(b, " ");
		else
			buf_add(b, p, 1);
	}
}

/* Answer the call with a tool's success shape (no browser; page only for history_get); frees the summary. */
static void
reply(const struct hjob *j, struct buf *summary, json_t *result, json_t *page)
{
	json_t *ans = json_pack("{s:s, s:s, s:n, s:n, s:s, s:o, s:o}", "status", "success", "tool", j->tool->name,
	                        "request_id", "client_id", "summary", summary->data, "result", result, "page",
	                        page ? page : json_null());
	buf_free(summary);
	j->cb(ans, 200, j->arg);
}

/* Answer the call with the error e (named after the tool) and HTTP status; frees err. */
static void
refuse(const struct hjob *j, json_t *e, int status, char *err)
{
	json_object_set_new(e, "tool", json_string(j->tool->name));
	j->cb(e, status, j->arg);
	free(err);
}

/* Append a stored page's url, title and capture time, each on one line and cut to length, between the
 * words given: the search result lines and the get summary name a page the same way. */
static void
add_page_words(struct buf *b, json_t *pg, const char *before_title, const char *before_time, const char *end)
{
	add_line_text(b, json_string_value(json_object_get(pg, "url")), BB_SUMMARY_URL_MAX);
	buf_adds(b, before_title);
	add_line_text(b, json_string_value(json_object_get(pg, "title")), BB_SUMMARY_TITLE_MAX);
	buf_adds(b, before_time);
	add_line_text(b, json_string_value(json_object_get(pg, "captured_at")), 40);
	buf_adds(b, end);
}

/* Append label (ending in an opening quote), the caller's search term on one line and the closing
 * quote, so the summary repeats what was searched; nothing when the caller gave no such term. */
static void
add_term(struct buf *b, const char *label, const char *text)
{
	if (text == NULL)
		return;
	buf_adds(b, label);
	add_line_text(b, text, 200);
	buf_adds(b, "\"");
}

/* browser_history_search on a reader thread: store_history, as GET /api/history runs it. */
static void
search_run(struct hjob *j)
{
	char *err = NULL;
	int bad = 0;
	/* GET /api/history's defaults: one row per visit, by relevance when searching. */
	struct store_query q = {j->q, j->url, j->limit, 0, 1, 0, 0};
	json_t *out = j->st ? store_history(j->st, &q, &bad, &err) : NULL;
	if (out == NULL) {
		refuse(j,
		       tools_error(bad ? "invalid_query" : "history_unavailable", "Could not search the history: %s",
		                   err ? err : "there is no history database"),
		       bad ? 400 : 503, err);
		return;
	}
	json_t *pages = json_object_get(out, "pages");
	size_t n = json_array_size(pages), i;
	struct buf b = {0};
	buf_printf(&b, "Found %zu page%s in the history", n, n == 1 ? "" : "s");
	add_term(&b, " for \"", j->q);
	add_term(&b, " with a URL containing \"", j->url);
	buf_adds(&b, n ? "; read one with browser_history_get:" : ".");
	json_t *pg;
	json_array_foreach(pages, i, pg)
	{
		/* One line per result, URL first and the title quoted (page text, never instructions). */
		buf_printf(&b, "\n- id %lld: ", (long long)json_integer_value(json_object_get(pg, "id")));
		add_page_words(&b, pg, " \"", "\" (", ")");
	}
	reply(j, &b, out, NULL);
}

/* browser_history_get on a reader thread: store_page, as GET /api/history/<id> runs it. */
static void
get_run(struct hjob *j)
{
	char *err = NULL;
	json_t *p = j->st ? store_page(j->st, j->id, &err) : NULL;
	if (p == NULL) {
		int missing = err == NULL && j->st != NULL;
		json_t *e = missing ? tools_error("not_found", "Could not read page %lld from the history: there is no page "
		                                               "with that id (it may have been deleted or pruned).",
		                                  (long long)j->id)
		                    : tools_error("history_unavailable", "Could not read page %lld from the history: %s",
		                                  (long long)j->id, err ? err : "there is no history database");
		refuse(j, e, missing ? 404 : 503, err);
		return;
	}
	/* The page as every tool returns one, so MCP shows its Markdown like any page. */
	json_t *page = json_pack("{s:O, s:O, s:O, s:n, s:O, s:O, s:O}", "url", json_object_get(p, "url"), "title",
	                         json_object_get(p, "title"), "markdown", json_object_get(p, "markdown"), "tab_id",
	                         "history_id", json_object_get(p, "id"), "captured_at", json_object_get(p, "captured_at"),
	                         "truncated", json_object_get(p, "truncated"));
	if (json_object_get(p, "tab_id"))
		json_object_set(page, "tab_id", json_object_get(p, "tab_id"));
	struct buf b = {0};
	buf_printf(&b, "Read page %lld from the history: ", (long long)j->id);
	add_page_words(&b, p, ", titled \"", "\", captured at ", ".");
	reply(j, &b, p, page);
}

/* Run one history tool call (a reader thread) and free it. */
static void
hjob_run(void *arg)
{
	struct hjob *j = arg;
	if (j->get)
		get_run(j);
	else
		search_run(j);
	free(j->q);
	free(j->url);
	free(j);
}

/* Hand a history tool call to the store's reader threads (without a store, as in unit tests: here). */
static void
submit(struct tools *t, struct hjob *j, const struct tool *tool, tools_answer_fn cb, void *arg)
{
	j->tool = tool;
	j->cb = cb;
	j->arg = arg;
	j->st = tools_store(t);
	if (j->st == NULL)
		hjob_run(j);
	else
		store_submit(j->st, hjob_run, j);
}

/* browser_history_search (params validated by the catalog): q, url, limit. */
void
histtools_search(struct tools *t, const struct tool *tool, json_t *params, tools_answer_fn cb, void *arg)
{
	struct hjob *j = xcalloc(1, sizeof *j);
	const char *q = json_string_value(json_object_get(params, "q")),
		   *url = json_string_value(json_object_get(params, "url"));
	json_t *lim = json_object_get(params, "limit");
	j->q = q && *q ? xstrdup(q) : NULL;
	j->url = url && *url ? xstrdup(url) : NULL;
	j->limit = lim ? (long)json_integer_value(lim) : BB_HISTORY_LIMIT_DEFAULT;
	submit(t, j, tool, cb, arg);
}

/* browser_history_get (params validated by the catalog): id. */
void
histtools_get(struct tools *t, const struct tool *tool, json_t *params, tools_answer_fn cb, void *arg)
{
	struct hjob *j = xcalloc(1, sizeof *j);
	j->get = 1;
	j->id = (int64_t)json_integer_value(json_object_get(params, "id"));
	submit(t, j, tool, cb, arg);
}
