/* client.c -- see client.h. */
#include "autoconfig.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "apiclient.h"
#include "cli.h"
#include "clierr.h"
#include "client.h"
#include "cliobserve.h"
#include "cliout.h"
#include "completion.h"
#include "doctor.h"
#include "limits.h"
#include "mcprelay.h"
#include "spinner.h"
#include "tools.h"
#include "util.h"

/* Extra time the socket waits beyond the call's own timeout, so the daemon's 504 arrives first. */
#define CLIENT_GRACE_MS 5000

/* Whether name is a client command. */
int
client_is_command(const char *name)
{
	struct cli_command c;
	return cli_find_command(name, &c);
}

/* A string member of a JSON object, or dflt when it is missing or not a string. */
static const char *
jstr(json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : dflt;
}

/* Reach the daemon as the command line says; an exit code, after a message when it is not OK. */
static int
conn_open(struct apiclient *c, const struct cli *o, int need_token)
{
	char *err = NULL;
	int missing;
	if (apiclient_open(c, &o->conn, need_token, &missing, &err) == 0)
		return CLIENT_EXIT_OK;
	if (missing)
		clierr(o->cmd.name, "token_unreadable", "%s; is the daemon running? (browser-bridge serve)", err);
	else
		clierr(o->cmd.name, "bad_settings", "%s", err);
	free(err);
	return missing ? CLIENT_EXIT_DAEMON : CLIENT_EXIT_USAGE;
}

/* Map an HTTP status that is not an answer to a tool call to an exit code. */
static int
exit_for_http(int status)
{
	switch (status) {
	case 200: return CLIENT_EXIT_OK;
	case 400:
	case 413:
	case 415: return CLIENT_EXIT_USAGE;
	case 401:
	case 403: return CLIENT_EXIT_DAEMON;
	case 503: return CLIENT_EXIT_NO_BROWSER;
	case 504: return CLIENT_EXIT_TIMEOUT;
	default: return CLIENT_EXIT_TOOL_ERROR;
	}
}

/* Send a request and turn every failure into a message and an exit code; *out gets a JSON body. */
static int
request(struct apiclient *c, const struct cli *o, const char *method, const char *path, const char *accept,
        const char *body, long timeout_ms, struct apireply *r, json_t **out)
{
	char *err = NULL;
	*out = NULL;
	memset(r, 0, sizeof *r);
	struct spinner *spin = spinner_start(o->cmd.name); /* a terminal only, after a second */
	int failed = apiclient_call(c, method, path, accept, NULL, body, timeout_ms, r, &err) != 0;
	spinner_stop(spin);
	if (failed) {
		clierr(o->cmd.name, "daemon_unreachable", "%s", err);
		free(err);
		return CLIENT_EXIT_DAEMON;
	}
	if (r->status == 200 && strcmp(accept, "application/json") != 0)
		return CLIENT_EXIT_OK;
	json_error_t je;
	*out = json_loadb(r->body, r->len, JSON_ALLOW_NUL, &je);
	if (o->json && *out != NULL) {
		fwrite(r->body, 1, r->len, stdout);
		if (r->len == 0 || r->body[r->len - 1] != '\n')
			putchar('\n');
		clierr_answered();
	}
	if (*out == NULL && r->status == 200) {
		clierr(o->cmd.name, "bad_answer", "the daemon's answer is not JSON: %s", je.text);
		return CLIENT_EXIT_DAEMON;
	}
	return CLIENT_EXIT_OK;
}

/* How long a request that is not a tool call may take: --timeout (checked like timeout_ms), else
 * the default call timeout. */
static int
plain_timeout(const struct cli *o, long *ms)
{
	json_t *v = json_object_get(o->flags, "timeout_ms");
	*ms = BB_CALL_TIMEOUT_DEFAULT_MS;
	if (v == NULL)
		return 0;
	size_t n;
	const struct tool_param *common = tools_common(&n);
	for (size_t i = 0; i < n; i++) {
		json_t *bad = strcmp(common[i].name, "timeout_ms") == 0 ? tools_check_param(o->cmd.name, &common[i], v) : NULL;
		if (bad != NULL) {
			clierr(o->cmd.name, "bad_option", "--timeout: %s", json_string_value(json_object_get(bad, "message")));
			json_decref(bad);
			return -1;
		}
	}
	*ms = (long)json_integer_value(v);
	return 0;
}

/* Say why a request failed (the daemon's message, with a hint for token trouble) and pick the exit code. */
static int
report_failure(const struct cli *o, const struct apireply *r, json_t *ans)
{
	const char *msg = json_string_value(json_object_get(ans, "message"));
	fprintf(stderr, "browser-bridge %s: ", o->cmd.name);
	cliout_put_clean(stderr, msg ? msg : "the daemon refused the request", 0);
	fprintf(stderr, " (HTTP %d)", r->status);
	if (r->status == 401)
		fprintf(stderr, "; the token does not match the daemon's: check --token-file");
	fputc('\n', stderr);
	clierr_note(r->status == 401 ? "unauthorized" : "daemon_error", "%s (HTTP %d)",
	            msg ? msg : "the daemon refused the request", r->status);
	int rc = exit_for_http(r->status);
	return rc == CLIENT_EXIT_OK ? CLIENT_EXIT_TOOL_ERROR : rc;
}

/* Call a tool and present its answer: summary on stderr, then the page, the tabs or the PNG. */
static int
run_tool(const struct cli *o, struct tools *tt, const struct tool *t, json_t *params, const char *file)
{
	json_t *ans = NULL;
	char *err = NULL, *body = NULL, *path = NULL;
	struct apiclient c;
	struct apireply r = {0};
	int rc, opened = 0;
	json_t *bad = tools_validate(tt, t, params);
	if (bad != NULL) {
		clierr(o->cmd.name, json_string_value(json_object_get(bad, "error")) ?: "bad_argument",
		       "%s (see browser-bridge %s --help)", json_string_value(json_object_get(bad, "message")), o->cmd.name);
		json_decref(bad);
		rc = CLIENT_EXIT_USAGE;
		goto fail;
	}
	rc = conn_open(&c, o, 1);
	opened = 1;
	if (rc != CLIENT_EXIT_OK)
		goto fail;
	apiclient_cancel_on_interrupt(&c); /* Ctrl-C cancels the call in the browser too */
	json_t *tmo = json_object_get(params, "timeout_ms");
	long timeout = (tmo ? (long)json_integer_value(tmo) : BB_CALL_TIMEOUT_DEFAULT_MS) + CLIENT_GRACE_MS;
	body = json_dumps(params, JSON_COMPACT);
	path = xasprintf("/api/tools/%s", t->name);
	rc = request(&c, o, "POST", path, "application/json", body, timeout, &r, &ans);
	if (rc != CLIENT_EXIT_OK)
		goto fail;
	const char *status = json_string_value(json_object_get(ans, "status"));
	const char *summary = json_string_value(json_object_get(ans, "summary"));
	if (summary == NULL || (r.status != 200 && r.status != 504 && r.status != 503)) {
		rc = report_failure(o, &r, ans);
		goto fail;
	}
	if (!o->json) {
		cliout_put_clean(stderr, summary, 0);
		fputc('\n', stderr);
	}
	if (r.status != 200) {
		/* The browser did act but its page could not be stored: a failed request, not a missing browser. */
		const char *code = json_string_value(json_object_get(ans, "error"));
		rc = code && !strcmp(code, "history_unavailable") ? CLIENT_EXIT_TOOL_ERROR : exit_for_http(r.status);
		goto fail;
	}
	if (status == NULL || strcmp(status, "success") != 0) {
		rc = CLIENT_EXIT_TOOL_ERROR;
		goto fail;
	}
	json_t *result = json_object_get(ans, "result"), *page = json_object_get(ans, "page");
	if (file != NULL && json_is_true(json_object_get(result, "unchanged"))) {
		if (!o->json)
			fprintf(stderr, "Unchanged since the last screenshot of the tab; %s not written.\n", file);
		goto fail;
	}
	if (file != NULL) {
		rc = cliout_write_png(o->cmd.name, file, result);
		if (rc == CLIENT_EXIT_OK && !o->json && strcmp(file, "-") != 0)
			fprintf(stderr, "Wrote %s (%lld x %lld).\n", file,
			        (long long)json_integer_value(json_object_get(result, "width")),
			        (long long)json_integer_value(json_object_get(result, "height")));
		goto fail;
	}
	if (o->json)
		goto fail;
	if (json_is_array(json_object_get(result, "tabs")) && t->output == OUT_TABS) {
		cliout_tabs(json_object_get(result, "tabs"));
	} else if (json_is_string(json_object_get(page, "markdown")) || json_is_string(json_object_get(page, "changes"))) {
		cliout_page(page);
	} else if (json_is_array(json_object_get(result, "tabs"))) {
		cliout_tabs(json_object_get(result, "tabs"));
	} else {
		cliobserve_print(stdout, result); /* find, console, network: what they found */
	}
fail:
	if (opened)
		apiclient_close(&c);
	free(err);
	free(body);
	free(path);
	free(r.body);
	json_decref(ans);
	return rc;
}

/* Append key=value to a query string, percent-encoding the value. */
static void
query_add(struct buf *b, const char *key, const char *v)
{
	if (v == NULL)
		return;
	buf_printf(b, "%c%s=", strchr(b->data, '?') ? '&' : '?', key);
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~", *p))
			buf_add(b, p, 1);
		else
			buf_printf(b, "%%%02X", *p);
	}
}

/* GET a path and insist on 200: the reply (and its JSON) is left for the caller to render, any
 * other answer is reported here; the exit code either way. */
static int
get_ok(const struct cli *o, const char *path, const char *accept, long tmo, struct apireply *r, json_t **ans)
{
	struct apiclient c;
	int rc = conn_open(&c, o, 1);
	if (rc == CLIENT_EXIT_OK)
		rc = request(&c, o, "GET", path, accept, NULL, tmo, r, ans);
	if (rc == CLIENT_EXIT_OK && r->status != 200)
		rc = report_failure(o, r, *ans);
	apiclient_close(&c);
	return rc;
}

/* A UTC ISO 8601 time from the daemon in the local time zone, as people read times ("2026-11-23 09:41:07");
 * the text as it came when it does not parse. */
static void
local_time(const char *iso, char *out, size_t outsz)
{
	struct tm tm = {0};
	const char *rest = iso ? strptime(iso, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
	time_t t;
	struct tm lt;
	if (rest == NULL || (t = timegm(&tm)) == (time_t)-1 || localtime_r(&t, &lt) == NULL ||
	    strftime(out, outsz, "%Y-%m-%d %H:%M:%S", &lt) == 0)
		snprintf(out, outsz, "%s", iso ? iso : "");
}

/* --delete-before DATE: YYYY-MM-DD is local midnight, sent as the UTC instant; anything else as given. */
static char *
before_instant(const char *date)
{
	struct tm tm = {0};
	const char *rest = strptime(date, "%Y-%m-%d", &tm);
	if (rest == NULL || *rest != '\0')
		return xstrdup(date);
	tm.tm_isdst = -1;
	time_t t = mktime(&tm);
	struct tm ut;
	char buf[32];
	if (t == (time_t)-1 || gmtime_r(&t, &ut) == NULL || strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &ut) == 0)
		return xstrdup(date);
	return xstrdup(buf);
}

/* `history --delete…`: one DELETE, then "Deleted N pages." (the daemon commits before it answers). */
static int
run_history_delete(const struct cli *o, long tmo)
{
	struct apireply r = {0};
	struct buf path = {0};
	json_t *ans = NULL;
	char *before = NULL;
	long id;
	int rc = CLIENT_EXIT_USAGE;
	const char *one = o->del ? o->del : o->del_visit;
	if (one != NULL && (o->del_site || o->del_before || (o->del && o->del_visit))) {
		clierr("history", "bad_option", "--delete and --delete-visit take one id, alone");
		goto fail;
	}
	if (one != NULL) {
		if (util_parse_long(one, 1, LONG_MAX, &id) != 0) {
			clierr("history", "bad_option", "--delete%s takes a page id", o->del ? "" : "-visit");
			goto fail;
		}
		buf_printf(&path, "/api/history/%ld%s", id, o->del_visit ? "?visit=1" : "");
	} else {
		if (o->del_site && strstr(o->del_site, "://") != NULL && strchr(strstr(o->del_site, "://") + 3, '/') == NULL)
			fprintf(stderr, "browser-bridge history: note: %s is a prefix, so it also matches %s.other.example; "
			                "end it with / to mean one site\n",
			        o->del_site, o->del_site);
		buf_adds(&path, "/api/history");
		query_add(&path, "url", o->del_site);
		if (o->del_before)
			query_add(&path, "before", before = before_instant(o->del_before));
	}
	struct apiclient c;
	if ((rc = conn_open(&c, o, 1)) != CLIENT_EXIT_OK) {
		apiclient_close(&c); /* a failed open keeps the settings it loaded */
		goto fail;
	}
	rc = request(&c, o, "DELETE", path.data, "application/json", NULL, tmo, &r, &ans);
	apiclient_close(&c);
	if (rc == CLIENT_EXIT_OK && r.status != 200) {
		const char *code = json_string_value(json_object_get(ans, "error"));
		rc = report_failure(o, &r, ans);
		if (code != NULL && strcmp(code, "history_unavailable") == 0)
			rc = CLIENT_EXIT_TOOL_ERROR; /* the daemon is there; the database is not writable now */
	} else if (rc == CLIENT_EXIT_OK && !o->json) {
		long long n = (long long)json_integer_value(json_object_get(ans, "removed"));
		printf("Deleted %lld page%s.\n", n, n == 1 ? "" : "s");
	}
fail:
	free(before);
	buf_free(&path);
	free(r.body);
	json_decref(ans);
	return rc;
}

/* `history`: the visits (or captures) kept, as a table of id, local time, captures, title and URL. */
static int
run_history(const struct cli *o)
{
	struct apireply r = {0};
	struct buf path = {0};
	json_t *ans = NULL;
	long n, tmo;
	int rc;
	if (plain_timeout(o, &tmo) != 0)
		return CLIENT_EXIT_USAGE;
	if (o->del || o->del_visit || o->del_site || o->del_before) {
		if (o->npos > 0 || o->url || o->limit || o->before || o->offset || o->sort || o->group) {
			clierr("history", "bad_option", "a --delete option takes no query or list options");
			return CLIENT_EXIT_USAGE;
		}
		return run_history_delete(o, tmo);
	}
	if (o->npos > 1) {
		clierr("history", "bad_argument", "unexpected argument \"%s\" (quote a query of several words)",
		       o->pos[1]);
		return CLIENT_EXIT_USAGE;
	}
	if ((o->limit && util_parse_long(o->limit, 1, BB_HISTORY_LIMIT_MAX, &n) != 0) ||
	    (o->before && util_parse_long(o->before, 1, LONG_MAX, &n) != 0) ||
	    (o->offset && util_parse_long(o->offset, 0, BB_HISTORY_OFFSET_MAX, &n) != 0)) {
		clierr("history", "bad_option", "--limit takes 1 to %d, --before a page id, --offset 0 to %d",
		       BB_HISTORY_LIMIT_MAX, BB_HISTORY_OFFSET_MAX);
		return CLIENT_EXIT_USAGE;
	}
	if ((o->sort && strcmp(o->sort, "relevance") && strcmp(o->sort, "recent")) ||
	    (o->group && strcmp(o->group, "visits") && strcmp(o->group, "captures"))) {
		clierr("history", "bad_option", "--sort takes relevance or recent, --group visits or captures");
		return CLIENT_EXIT_USAGE;
	}
	buf_adds(&path, "/api/history");
	query_add(&path, "q", o->npos ? o->pos[0] : NULL);
	query_add(&path, "url", o->url);
	query_add(&path, "limit", o->limit);
	query_add(&path, "before", o->before);
	query_add(&path, "offset", o->offset);
	query_add(&path, "sort", o->sort);
	query_add(&path, "group", o->group && !strcmp(o->group, "captures") ? "none" : o->group);
	if ((rc = get_ok(o, path.data, "application/json", tmo, &r, &ans)) != CLIENT_EXIT_OK || o->json)
		goto fail;
	json_t *pages = json_object_get(ans, "pages"), *p;
	size_t i;
	printf("%8s  %-19s  %8s  %-*s  %s\n", "ID", "LAST SEEN", "CAPTURES", CLIOUT_TITLE_COLS, "TITLE", "URL");
	json_array_foreach(pages, i, p)
	{
		char when[64];
		local_time(jstr(p, "last_seen", jstr(p, "captured_at", "")), when, sizeof when);
		json_t *cap = json_object_get(p, "captures");
		printf("%8lld  %-19s  %8lld  ", (long long)json_integer_value(json_object_get(p, "id")), when,
		       json_is_integer(cap) ? (long long)json_integer_value(cap) : 1LL);
		cliout_pad(stdout, json_string_value(json_object_get(p, "title")), CLIOUT_TITLE_COLS);
		printf("  ");
		cliout_put_clean(stdout, json_string_value(json_object_get(p, "url")), 0);
		putchar('\n');
		const char *snip = json_string_value(json_object_get(p, "snippet"));
		if (o->npos > 0 && snip != NULL && *snip) { /* with a query: where it matched */
			printf("          ");
			cliout_put_clean(stdout, snip, 100);
			putchar('\n');
		}
	}
	json_t *nb = json_object_get(ans, "next_before"), *no = json_object_get(ans, "next_offset");
	if (json_is_integer(nb))
		fprintf(stderr, "(more: --before %lld)\n", (long long)json_integer_value(nb));
	else if (json_is_integer(no))
		fprintf(stderr, "(more: --offset %lld)\n", (long long)json_integer_value(no));
fail:
	buf_free(&path);
	free(r.body);
	json_decref(ans);
	return rc;
}

/* `show ID`: one history page's Markdown (or its JSON). */
static int
run_show(const struct cli *o)
{
	struct apireply r = {0};
	json_t *ans = NULL;
	char *path = NULL;
	long id, tmo;
	int rc;
	if (plain_timeout(o, &tmo) != 0)
		return CLIENT_EXIT_USAGE;
	if (o->npos != 1 || util_parse_long(o->pos[0], 1, LONG_MAX, &id) != 0) {
		clierr("show", "bad_argument", "expected one page id (see browser-bridge history)");
		return CLIENT_EXIT_USAGE;
	}
	path = xasprintf("/api/history/%ld", id);
	rc = get_ok(o, path, o->json ? "application/json" : "text/markdown", tmo, &r, &ans);
	if (rc == CLIENT_EXIT_OK && !o->json)
		cliout_put_markdown(r.body, r.len);
	free(path);
	free(r.body);
	json_decref(ans);
	return rc;
}

/* `status`: the daemon, its browsers and their tabs, and the history database, for a person. */
static int
run_status(const struct cli *o)
{
	struct apireply r = {0};
	json_t *ans = NULL;
	long tmo;
	int rc;
	if (plain_timeout(o, &tmo) != 0)
		return CLIENT_EXIT_USAGE;
	if (o->npos > 0) {
		clierr("status", "bad_argument", "unexpected argument \"%s\"", o->pos[0]);
		return CLIENT_EXIT_USAGE;
	}
	if ((rc = get_ok(o, "/api/status", "application/json", tmo, &r, &ans)) != CLIENT_EXIT_OK || o->json)
		goto fail;
	json_t *browsers = json_object_get(ans, "browsers"), *b, *db = json_object_get(ans, "database");
	printf("browser-bridge %s: HTTP %s, WebSocket %s\n", jstr(ans, "version", "?"),
	       jstr(ans, "http", "?"), jstr(ans, "ws", "?"));
	printf("calls in flight: %lld\n", (long long)json_integer_value(json_object_get(ans, "calls_in_flight")));
	printf("history: %lld pages, %lld commands, %lld bytes in %s\n",
	       (long long)json_integer_value(json_object_get(db, "pages")),
	       (long long)json_integer_value(json_object_get(db, "commands")),
	       (long long)json_integer_value(json_object_get(db, "bytes")),
	       jstr(db, "path", "?"));
	printf("browsers: %zu%s\n", json_array_size(browsers),
	       json_array_size(browsers) ? "" : " (install the extension and pair it: browser-bridge token)");
	size_t i;
	json_array_foreach(browsers, i, b)
	{
		printf("\n");
		cliout_put_clean(stdout, json_string_value(json_object_get(b, "client_id")), 0);
		printf(": ");
		cliout_put_clean(stdout, json_string_value(json_object_get(b, "browser")), 0);
		printf(" ");
		cliout_put_clean(stdout, json_string_value(json_object_get(b, "browser_version")), 0);
		printf(", extension ");
		cliout_put_clean(stdout, json_string_value(json_object_get(b, "extension_version")), 0);
		printf(", connected %s\n", jstr(b, "connected_at", "?"));
		cliout_tabs(json_object_get(b, "tabs"));
	}
fail:
	free(r.body);
	json_decref(ans);
	return rc;
}

/* `tools`: the catalog, from this binary (it is the daemon's, too). */
static int
run_tools(const struct cli *o, struct tools *tt)
{
	if (o->npos > 0) {
		clierr("tools", "bad_argument", "unexpected argument \"%s\"", o->pos[0]);
		return CLIENT_EXIT_USAGE;
	}
	if (o->json) {
		json_t *cat = tools_catalog(tt);
		char *s = json_dumps(cat, JSON_INDENT(2));
		printf("%s\n", s);
		free(s);
		json_decref(cat);
		return CLIENT_EXIT_OK;
	}
	size_t n;
	const struct tool *list = tools_list(&n);
	int w = 4; /* the columns as wide as the longest tool name, so that every row lines up */
	for (size_t i = 0; i < n; i++)
		if ((int)strlen(list[i].name) > w)
			w = (int)strlen(list[i].name);
	printf("%-*s  %-12s  %s\n", w, "TOOL", "COMMAND", "TITLE");
	for (size_t i = 0; i < n; i++)
		printf("%-*s  %-12s  %s\n", w, list[i].name, list[i].cli ? list[i].cli : "call", list[i].title);
	return CLIENT_EXIT_OK;
}

/* `call TOOL key=value ...`: parameters from the command line, typed by the tool's schema. */
static int
run_call(const struct cli *o, struct tools *tt, const struct tool *t)
{
	json_t *params = NULL;
	char *err = NULL;
	if (o->json_params) {
		json_error_t je;
		params = json_loads(o->json_params, JSON_REJECT_DUPLICATES, &je);
		if (!json_is_object(params)) {
			clierr("call", "bad_option", "--json-params: expected a JSON object%s%s",
			       params ? "" : ": ", params ? "" : je.text);
			json_decref(params);
			return CLIENT_EXIT_USAGE;
		}
	} else {
		params = json_object();
	}
	json_object_update(params, o->flags); /* --tab, --timeout, ... */
	for (int i = 1; i < o->npos; i++) {
		const char *eq = strchr(o->pos[i], '=');
		if (eq == NULL || eq == o->pos[i]) {
			clierr("call", "bad_argument", "expected key=value, got \"%s\"", o->pos[i]);
			json_decref(params);
			return CLIENT_EXIT_USAGE;
		}
		char *key = xstrndup(o->pos[i], (size_t)(eq - o->pos[i]));
		json_t *v = cli_coerce(key, tools_param(t, key), eq + 1, &err);
		if (v == NULL) {
			clierr("call", "bad_argument", "%s", err);
			free(err);
			free(key);
			json_decref(params);
			return CLIENT_EXIT_USAGE;
		}
		json_object_set_new(params, key, v);
		free(key);
	}
	int rc = run_tool(o, tt, t, params, NULL);
	json_decref(params);
	return rc;
}

/* A tool command: operands and --flags become the tool's parameters. */
static int
run_tool_command(const struct cli *o, struct tools *tt)
{
	const char *file;
	json_t *params = cli_operands(o, &file);
	if (params == NULL)
		return CLIENT_EXIT_USAGE;
	int rc = run_tool(o, tt, o->cmd.tool, params, file);
	json_decref(params);
	return rc;
}

/* `mcp`: relay stdio to the daemon's /mcp. */
static int
run_mcp(const struct cli *o)
{
	struct apiclient c;
	int rc = conn_open(&c, o, 1);
	if (rc == CLIENT_EXIT_OK)
		mcprelay_run(&c);
	apiclient_close(&c);
	return rc;
}

/* Run a client command: parse, call the daemon, print, and return one of the CLIENT_EXIT codes. */
int
client_main(int argc, char **argv)
{
	struct cli o = {0};
	clierr_init(argc, argv);
	if (!cli_find_command(argv[0], &o.cmd)) {
		clierr(NULL, "unknown_command", "unknown command \"%s\" (see browser-bridge --help)", argv[0]);
		return clierr_finish(CLIENT_EXIT_USAGE);
	}
	/* The catalog's schemas for validation and `tools --json`; no hub needed. */
	struct tools *tt = tools_create(NULL, NULL, NULL);
	int rc = CLIENT_EXIT_USAGE;
	o.pos = xcalloc((size_t)argc, sizeof *o.pos);
	o.flags = json_object();
	if (cli_help(&o.cmd, tt, argc, argv)) {
		rc = CLIENT_EXIT_OK;
		goto fail;
	}
	if (cli_parse(&o, argc, argv) != 0)
		goto fail;
	switch (o.cmd.kind) {
	case CLI_TOOL: rc = run_tool_command(&o, tt); break;
	case CLI_CALL: {
		const struct tool *t = o.npos ? cli_find_tool(o.pos[0]) : NULL;
		if (t == NULL) {
			const char *near = o.npos ? cli_suggest_tool(o.pos[0]) : NULL;
			clierr("call", "bad_argument", "%s%s%s%s%s%s (see browser-bridge tools)",
			       o.npos ? "unknown tool \"" : "missing TOOL", o.npos ? o.pos[0] : "", o.npos ? "\"" : "",
			       near ? "; did you mean " : "", near ? near : "", near ? "?" : "");
			goto fail;
		}
		rc = run_call(&o, tt, t);
		break;
	}
	case CLI_HISTORY: rc = run_history(&o); break;
	case CLI_SHOW: rc = run_show(&o); break;
	case CLI_STATUS: rc = run_status(&o); break;
	case CLI_TOOLS: rc = run_tools(&o, tt); break;
	case CLI_MCP: rc = run_mcp(&o); break;
	case CLI_DOCTOR: rc = doctor_run(&o); break;
	case CLI_COMPLETION: rc = completion_run(&o); break;
	}
fail:
	/* A full disk or a closed pipe must not look like success to a script. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		clierr(o.cmd.name, "output_failed", "writing the output: %s", strerror(errno));
		if (rc == CLIENT_EXIT_OK)
			rc = CLIENT_EXIT_TOOL_ERROR;
	}
	json_decref(o.flags);
	free(o.pos);
	tools_free(tt);
	return clierr_finish(rc);
}
