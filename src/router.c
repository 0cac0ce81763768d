/* router.c -- see router.h. */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <jansson.h>

#include "auth.h"
#include "config.h"
#include "events.h"
#include "hub.h"
#include "limits.h"
#include "log.h"
#include "mcp.h"
#include "reqresp.h"
#include "router.h"
#include "session.h"
#include "store.h"
#include "tools.h"
#include "jsonio.h"
#include "util.h"

#define STATIC_MAX (8u * 1024 * 1024)

/* A one-time dashboard login code: works once, until it expires. */
struct login_code {
	char code[2 * BB_LOGIN_CODE_BYTES + 1]; /* hex; "" when unused */
	int64_t expires;                        /* monotonic ms */
};

struct router {
	pthread_mutex_t lock; /* guards codes: transports route on their own threads */
	struct login_code codes[BB_LOGIN_CODES_MAX];
	const struct config *cfg;
	struct auth *auth;
	struct hub *hub;
	struct store *store;
	struct events *events;
	struct tools *tools;
	struct mcp *mcp;
};

/* Build the router over the daemon's parts. */
struct router *
router_create(const struct config *cfg, struct auth *auth, struct hub *hub, struct store *store,
              struct events *events, struct tools *tools, struct mcp *mcp)
{
	struct router *r = xcalloc(1, sizeof *r);
	r->cfg = cfg;
	r->auth = auth;
	r->hub = hub;
	r->store = store;
	r->events = events;
	r->tools = tools;
	r->mcp = mcp;
	pthread_mutex_init(&r->lock, NULL);
	return r;
}

/* Free the router. NULL is fine. */
void
router_free(struct router *r)
{
	if (r == NULL)
		return;
	explicit_bzero(r->codes, sizeof r->codes);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/* The live-event fan-out, for transports that stream. */
struct events *
router_events(struct router *r)
{
	return r->events;
}

/* Answer with a JSON error body. */
static void
fail(struct rr_req *req, int status, const char *code, const char *msg)
{
	req->complete(req, rr_error(status, code, msg));
}

/* Host must name a loopback address (or an allowed front), against DNS rebinding; the Unix socket
 * needs none. */
static int
host_ok(struct router *r, struct rr_req *req)
{
	if (req->local_peer)
		return 1; /* no browser reaches a Unix socket: DNS rebinding does not apply */
	return config_host_allowed(r->cfg, req->header(req, "Host"));
}

/* An Origin, when sent, must be this daemon's own (the dashboard); no other site may call us. Our
 * pages' form posts say "null" (their Referrer-Policy is no-referrer): the browser's own
 * Sec-Fetch-Site, which no page can set, then vouches that the request came from our origin. */
static int
origin_ok(struct router *r, struct rr_req *req)
{
	const char *origin = req->header(req, "Origin");
	if (origin == NULL)
		return 1;
	if (strcmp(origin, "null") == 0) {
		const char *sfs = req->header(req, "Sec-Fetch-Site");
		return sfs != NULL && strcmp(sfs, "same-origin") == 0;
	}
	const char *host = req->header(req, "Host");
	if (host == NULL || strncmp(origin, "http://", 7) != 0 || strcmp(origin + 7, host) != 0)
		return 0;
	(void)r;
	return 1; /* Host was already checked to be ours */
}

/* A cookie comes with every request to this host, whatever page sent it, and SameSite ignores ports:
 * a session counts only for requests the browser says came from our own pages (or were typed). */
static int
same_site_fetch(struct rr_req *req)
{
	const char *sfs = req->header(req, "Sec-Fetch-Site");
	return sfs != NULL && (strcmp(sfs, "same-origin") == 0 || strcmp(sfs, "none") == 0);
}

/* Bearer token, or the dashboard's session cookie on a same-origin request. */
static int
authorized(struct router *r, struct rr_req *req)
{
	return req->local_peer || auth_check_bearer(r->auth, req->header(req, "Authorization")) ||
	       (same_site_fetch(req) && auth_session_check(r->auth, req->header(req, "Cookie")));
}

/* JSON bodies must say so: a form post from another site cannot pass for one. */
static int
is_json(struct rr_req *req)
{
	return rr_media_type_is(req->header(req, "Content-Type"), "application/json");
}

/* Parse the request body as JSON; answers the request itself and returns NULL when it cannot. */
static json_t *
json_body(struct rr_req *req)
{
	if (!is_json(req)) {
		fail(req, 415, "unsupported_media_type", "the body must be JSON with Content-Type: application/json");
		return NULL;
	}
	struct jsonio_err e;
	json_t *v = req->body_len ? jsonio_parse(req->body, req->body_len, &e) : json_object();
	if (v == NULL) {
		char msg[300];
		snprintf(msg, sizeof msg, "invalid JSON at byte %zu: %s", e.offset, e.text);
		json_t *b = tools_error("invalid_json", "%s", msg);
		json_object_set_new(b, "field", json_string("(body)"));
		json_object_set_new(b, "expected", json_string("JSON object"));
		req->complete(req, rr_json(400, b));
	}
	return v;
}

/* tools_call's answer goes straight to the transport. */
static void
tool_answer(json_t *answer, int status, void *arg)
{
	struct rr_req *req = arg;
	req->complete(req, rr_json(status, answer));
}

/*
 * The headers a tool call and its cancel carry: the agent session it belongs to and the caller's own
 * id for the call. Each is checked the same way and refused with its own code when malformed.
 */
enum { CALL_HDR_SESSION, CALL_HDR_ID, CALL_HDR_N };
static const struct call_header {
	const char *name, *code, *chars;
	int max;
	int (*ok)(const char *v);
} call_headers[CALL_HDR_N] = {
	[CALL_HDR_SESSION] = {TOOLS_SESSION_HEADER, "invalid_session", "printable ASCII characters",
	                      TOOLS_SESSION_NAME_MAX, tools_session_name_ok},
	[CALL_HDR_ID] = {TOOLS_CALL_ID_HEADER, "invalid_call_id", "of the characters A-Z a-z 0-9 . _ : -",
	                 TOOLS_CALL_ID_MAX, tools_call_id_ok},
};

/* The caller of a tool call or cancel: its session from X-Browser-Bridge-Session ("http:<name>" in key;
 * none: the default session, "") and its own call id (NULL without one). -1 and an answered 400 when
 * a call header is malformed. */
static int
call_caller(struct rr_req *req, struct tools_caller *who, char key[8 + TOOLS_SESSION_NAME_MAX])
{
	const char *v[CALL_HDR_N];
	for (int i = 0; i < CALL_HDR_N; i++) {
		const struct call_header *h = &call_headers[i];
		v[i] = req->header(req, h->name);
		if (v[i] != NULL && !h->ok(v[i])) {
			json_t *b = tools_error(h->code, "%s must be 1 to %d %s", h->name, h->max, h->chars);
			json_object_set_new(b, "field", json_string(h->name));
			req->complete(req, rr_json(400, b));
			return -1;
		}
	}
	snprintf(key, 8 + TOOLS_SESSION_NAME_MAX, "%s%s", v[CALL_HDR_SESSION] ? "http:" : "",
	         v[CALL_HDR_SESSION] ? v[CALL_HDR_SESSION] : "");
	const char *name = v[CALL_HDR_SESSION] ? v[CALL_HDR_SESSION] : "default";
	*who = (struct tools_caller){key, name, v[CALL_HDR_ID], NULL};
	return 0;
}

/* POST /api/tools/<name>. */
static void
route_tool(struct router *r, struct rr_req *req, const char *name)
{
	const struct tool *tool = tools_find(r->tools, name);
	if (tool == NULL) {
		json_t *b = tools_error("unknown_tool", "unknown tool \"%.64s\"", name);
		json_object_set_new(b, "tools", tools_names(r->tools));
		req->complete(req, rr_json(404, b));
		return;
	}
	char key[8 + TOOLS_SESSION_NAME_MAX];
	struct tools_caller who;
	if (call_caller(req, &who, key) != 0)
		return;
	json_t *params = json_body(req);
	if (params == NULL)
		return;
	tools_call(r->tools, tool, params, &who, tool_answer, req);
	json_decref(params);
}

/* POST /api/calls/<id>/cancel: cancel a waiting tool call, named by its request_id (any caller) or by
 * the X-Browser-Bridge-Call-Id its caller sent (only with the same X-Browser-Bridge-Session as the
 * call: one session cannot cancel another's calls); the call answers as cancelled, the browser stops it. */
static void
route_cancel(struct router *r, struct rr_req *req, const char *rest)
{
	const char *slash = strchr(rest, '/');
	char id[TOOLS_CALL_ID_MAX + 1];
	if (slash == NULL || strcmp(slash, "/cancel") != 0) {
		fail(req, 404, "not_found", "no such API endpoint (see docs/api.md)");
		return;
	}
	size_t n = (size_t)(slash - rest);
	if (n > TOOLS_CALL_ID_MAX)
		n = 0; /* too long: refused below as an empty one is */
	memcpy(id, rest, n);
	id[n] = '\0';
	if (!tools_call_id_ok(id)) {
		fail(req, 400, "invalid_params", "the call id must be a request_id or an X-Browser-Bridge-Call-Id");
		return;
	}
	char key[8 + TOOLS_SESSION_NAME_MAX];
	struct tools_caller who;
	if (call_caller(req, &who, key) != 0)
		return;
	if (tools_cancel(r->tools, who.key, id) != 0) {
		fail(req, 404, "not_found", "no call with that id is waiting in this session (it may have finished "
		                            "already; a call id is cancelled with the session header the call had)");
		return;
	}
	req->complete(req, rr_json(200, json_pack("{s:b, s:s}", "success", 1, "cancelled", id)));
}

/* A query parameter as a bounded integer; -1 and an answered request when it is malformed. */
static int
query_long(struct rr_req *req, const char *name, long min, long max, long dflt, long *out)
{
	const char *v = req->query(req, name);
	*out = dflt;
	if (v == NULL || *v == '\0')
		return 0;
	if (util_parse_long(v, min, max, out) == 0)
		return 0;
	char msg[200];
	snprintf(msg, sizeof msg, "%s: expected an integer from %ld to %ld", name, min, max);
	json_t *b = tools_error("invalid_params", "%s", msg);
	json_object_set_new(b, "field", json_string(name));
	req->complete(req, rr_json(400, b));
	return -1;
}

/*
 * History reads (search, a page, the call log, the database figures of /api/status) and the
 * dashboard's static files run on a store reader thread, never on the transport's (the event loop):
 * a slow full-text query or a slow disk there would stall every browser and every waiting call. What a read needs is copied first (the request's accessors belong to the
 * transport's thread); the job answers through req->complete, which any thread may call.
 */
enum read_kind { READ_HISTORY, READ_PAGE, READ_COMMANDS, READ_STATUS, READ_STATIC };

struct read_job {
	struct router *r;
	struct rr_req *req;
	enum read_kind kind;
	char *q, *url;
	char *file; /* READ_STATIC: the path beneath www_dir, already checked to be plain */
	long limit, offset;
	int64_t before, id;
	int markdown, visits, recent;
	json_t *status; /* READ_STATUS: the rest of the answer, made before */
};

static void static_read(struct router *r, struct rr_req *req, const char *p);

/* Run one history read on a reader thread and answer it. */
static void
read_run(void *arg)
{
	struct read_job *j = arg;
	struct rr_req *req = j->req;
	struct store *st = j->r->store;
	char *err = NULL;
	if (j->kind == READ_STATIC) {
		static_read(j->r, req, j->file);
		free(j->file);
		free(j);
		return;
	}
	int bad = 0;
	json_t *out = NULL;
	if (j->kind == READ_HISTORY) {
		struct store_query q = {j->q, j->url, j->limit, j->before, j->visits, j->recent, j->offset};
		out = store_history(st, &q, &bad, &err);
	} else if (j->kind == READ_PAGE) {
		out = store_page(st, j->id, &err);
	} else if (j->kind == READ_COMMANDS) {
		out = store_commands(st, j->limit, j->before, &err);
	} else {
		out = j->status;
		json_object_set_new(out, "database", store_stats(st));
	}
	if (out == NULL && err == NULL) {
		fail(req, 404, "not_found", "no page with that id (it may have been pruned by retention)");
	} else if (out == NULL) {
		fail(req, bad ? 400 : 503, bad ? "invalid_query" : "history_unavailable", err);
	} else if (j->kind == READ_PAGE && j->markdown) {
		struct rr_resp *resp = xcalloc(1, sizeof *resp);
		resp->status = 200;
		resp->content_type = "text/markdown; charset=utf-8";
		json_t *md = json_object_get(out, "markdown");
		resp->body = xstrndup(json_string_value(md), json_string_length(md));
		resp->len = json_string_length(md);
		json_decref(out);
		req->complete(req, resp);
	} else {
		req->complete(req, rr_json(200, out));
	}
	free(err);
	free(j->q);
	free(j->url);
	free(j);
}

/* Hand a read to the store's reader threads (without a store, as in the unit tests: run it here). */
static void
read_submit(struct router *r, struct rr_req *req, struct read_job *j)
{
	j->r = r;
	j->req = req;
	if (r->store == NULL)
		read_run(j);
	else
		store_submit(r->store, read_run, j);
}

/* GET /api/history. */
static void
route_history(struct router *r, struct rr_req *req)
{
	long limit, before, offset;
	if (query_long(req, "limit", 1, BB_HISTORY_LIMIT_MAX, BB_HISTORY_LIMIT_DEFAULT, &limit) ||
	    query_long(req, "before", 1, 9007199254740991L, 0, &before) ||
	    query_long(req, "offset", 0, BB_HISTORY_OFFSET_MAX, 0, &offset))
		return;
	const char *group = req->query(req, "group"), *sort = req->query(req, "sort");
	if (group && *group && strcmp(group, "visits") != 0 && strcmp(group, "none") != 0) {
		fail(req, 400, "invalid_params", "group: expected visits or none");
		return;
	}
	if (sort && *sort && strcmp(sort, "relevance") != 0 && strcmp(sort, "recent") != 0) {
		fail(req, 400, "invalid_params", "sort: expected relevance or recent");
		return;
	}
	struct store_query q = {req->query(req, "q"), req->query(req, "url"), limit, before,
	                        !(group && strcmp(group, "none") == 0), sort && strcmp(sort, "recent") == 0, offset};
	if (q.q && strlen(q.q) > BB_QUERY_MAX) {
		fail(req, 400, "invalid_params", "q: at most 1024 bytes");
		return;
	}
	if (q.url && *q.url == '\0')
		q.url = NULL;
	struct read_job *j = xcalloc(1, sizeof *j);
	j->kind = READ_HISTORY;
	j->q = q.q ? xstrdup(q.q) : NULL;
	j->url = q.url ? xstrdup(q.url) : NULL;
	j->limit = limit;
	j->before = before;
	j->offset = offset;
	j->visits = q.visits;
	j->recent = q.recent;
	read_submit(r, req, j);
}

/* A history deletion waiting for the store thread's commit. */
struct delete_job {
	struct rr_req *req;
	int by_id;
};

/* The deletion was committed (or given up): answer with the number of captures removed. Store thread. */
static void
delete_done(int64_t removed, const char *error, void *arg)
{
	struct delete_job *j = arg;
	if (removed < 0)
		fail(j->req, 503, "history_unavailable", error);
	else if (removed == 0 && j->by_id)
		fail(j->req, 404, "not_found", "no page with that id (it may have been deleted or pruned already)");
	else
		j->req->complete(j->req, rr_json(200, json_pack("{s:b, s:I}", "success", 1, "removed", (json_int_t)removed)));
	free(j);
}

/* A UTC date or time (YYYY-MM-DD, or YYYY-MM-DDTHH:MM[:SS[.mmm]]Z) written the way captured_at is, so
 * the two compare as text; -1 when v is not one. */
static int
iso_utc(const char *v, char out[64])
{
	int y, mo, d, h = 0, mi = 0, sec = 0, ms = 0, n = 0;
	size_t len = strlen(v);
	if (len == 10) {
		if (sscanf(v, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10)
			return -1;
	} else if (len == 17 || len == 20 || len == 24) {
		char z = 0;
		int ok = len == 17   ? sscanf(v, "%4d-%2d-%2dT%2d:%2d%c%n", &y, &mo, &d, &h, &mi, &z, &n) == 6
		         : len == 20 ? sscanf(v, "%4d-%2d-%2dT%2d:%2d:%2d%c%n", &y, &mo, &d, &h, &mi, &sec, &z, &n) == 7
		                     : sscanf(v, "%4d-%2d-%2dT%2d:%2d:%2d.%3d%c%n", &y, &mo, &d, &h, &mi, &sec, &ms, &z, &n) == 8;
		if (!ok || z != 'Z' || (size_t)n != len || v[4] != '-' || v[7] != '-' || v[10] != 'T')
			return -1;
	} else {
		return -1;
	}
	if (y < 1970 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 || h < 0 ||
	    mi < 0 || sec < 0 || ms < 0)
		return -1;
	snprintf(out, 64, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", y, mo, d, h, mi, sec, ms);
	return 0;
}

/* DELETE /api/history/<id> (?visit=1: its whole visit) and DELETE /api/history?url=<prefix>&before=<time>.
 * The store thread deletes and commits; the answer comes from there, so the transport never waits. */
static void
route_history_delete(struct router *r, struct rr_req *req, const char *ids)
{
	struct store_delete what = {0, 0, NULL, NULL};
	char before[64];
	if (ids != NULL) {
		long id;
		const char *visit = req->query(req, "visit");
		if (util_parse_long(ids, 1, 9007199254740991L, &id) != 0) {
			fail(req, 400, "invalid_params", "the page id must be a positive integer");
			return;
		}
		if (visit && *visit && strcmp(visit, "0") != 0 && strcmp(visit, "1") != 0 && strcmp(visit, "true") != 0 &&
		    strcmp(visit, "false") != 0) {
			fail(req, 400, "invalid_params", "visit: expected 1 (the whole visit) or 0");
			return;
		}
		what.id = id;
		what.visit = visit && (strcmp(visit, "1") == 0 || strcmp(visit, "true") == 0);
	} else {
		const char *url = req->query(req, "url"), *b = req->query(req, "before");
		if (url && *url == '\0')
			url = NULL;
		if (b && *b == '\0')
			b = NULL;
		if (url == NULL && b == NULL) {
			fail(req, 400, "invalid_params",
			     "say what to delete: url=<URL prefix> and/or before=<ISO 8601 UTC date or time>");
			return;
		}
		if (url && strlen(url) > BB_QUERY_MAX) {
			fail(req, 400, "invalid_params", "url: at most 1024 bytes");
			return;
		}
		if (b && iso_utc(b, before) != 0) {
			fail(req, 400, "invalid_params",
			     "before: expected an ISO 8601 UTC date or time, e.g. 2026-11-01 or 2026-11-01T08:00:00Z");
			return;
		}
		what.url_prefix = url;
		what.before = b ? before : NULL;
	}
	struct delete_job *j = xcalloc(1, sizeof *j);
	j->req = req;
	j->by_id = ids != NULL;
	store_delete(r->store, &what, delete_done, j);
}

/* GET /api/history/<id>, as JSON or (Accept: text/markdown) raw Markdown. */
static void
route_page(struct router *r, struct rr_req *req, const char *ids)
{
	long id;
	if (util_parse_long(ids, 1, 9007199254740991L, &id) != 0) {
		fail(req, 400, "invalid_params", "the page id must be a positive integer");
		return;
	}
	const char *accept = req->header(req, "Accept");
	struct read_job *j = xcalloc(1, sizeof *j);
	j->kind = READ_PAGE;
	j->id = id;
	j->markdown = accept && strstr(accept, "text/markdown");
	read_submit(r, req, j);
}

/* The configured allowed extension origins, as a JSON array (status and pairing show them). */
static json_t *
origins_json(const struct config *cfg)
{
	json_t *origins = json_array();
	for (int i = 0; i < cfg->n_origins; i++)
		json_array_append_new(origins, json_string(cfg->origins[i]));
	return origins;
}

/* A listener's URL, an IPv6 host in brackets: scheme://host:port followed by path. */
static json_t *
listen_url(const char *scheme, const char *host, int port, const char *path)
{
	int v6 = strchr(host, ':') != NULL;
	return json_sprintf("%s://%s%s%s:%d%s", scheme, v6 ? "[" : "", host, v6 ? "]" : "", port, path);
}

/* GET /api/status. */
static void
route_status(struct router *r, struct rr_req *req)
{
	const struct config *cfg = r->cfg;
	json_t *o = json_pack("{s:s, s:s, s:o, s:I, s:n, s:o, s:o, s:o, s:s}", "status", "ok", "version", BB_VERSION,
	                      "browsers", hub_status(r->hub), "calls_in_flight",
	                      (json_int_t)hub_calls_in_flight(r->hub), "database", "http",
	                      listen_url("http", cfg->http_host, cfg->http_port, ""), "ws",
	                      listen_url("ws", cfg->ws_host, cfg->ws_port, "/ws/browser"), "allowed_origins",
	                      origins_json(cfg), "extension_id", BB_EXTENSION_ID);
	/* The extension directory --headless loads (--extension, else the installed copy), for pairing. */
	if (cfg->extension_dir != NULL)
		json_object_set_new(o, "extension_dir", json_string(cfg->extension_dir));
	json_t *pool = hub_pool_status(r->hub); /* serve --headless N: every instance, connected or not */
	if (json_array_size(pool) > 0)
		json_object_set_new(o, "headless", pool);
	else
		json_decref(pool);
	struct read_job *j = xcalloc(1, sizeof *j); /* the database figures are read off this thread */
	j->kind = READ_STATUS;
	j->status = o;
	read_submit(r, req, j);
}

/* GET /api/pairing: what the dashboard's pairing view shows (token included: it is authenticated). */
static void
route_pairing(struct router *r, struct rr_req *req)
{
	json_t *o = json_pack("{s:s, s:o, s:s, s:o}", "token", auth_token(r->auth), "ws_url",
	                      listen_url("ws", r->cfg->ws_host, r->cfg->ws_port, "/ws/browser"), "extension_id",
	                      BB_EXTENSION_ID, "allowed_origins", origins_json(r->cfg));
	req->complete(req, rr_json(200, o));
}

/* GET /api/sessions, and POST /api/sessions/<id>/<approve|decline|revoke>: the agent sessions. */
static void
route_sessions(struct router *r, struct rr_req *req, const char *rest, int post)
{
	struct sessions *s = tools_sessions(r->tools);
	if (s == NULL) {
		fail(req, 404, "not_found", "this daemon keeps no agent sessions");
		return;
	}
	if (!post) {
		req->complete(req, rr_json(200, json_pack("{s:o, s:b, s:I}", "sessions", session_list(s), "approve_sessions",
		                                          r->cfg->approve_sessions, "session_ttl",
		                                          (json_int_t)r->cfg->session_ttl)));
		return;
	}
	const char *slash = rest ? strchr(rest, '/') : NULL;
	if (slash == NULL || slash == rest || (size_t)(slash - rest) > 64) {
		fail(req, 404, "not_found", "expected POST /api/sessions/<id>/<approve|decline|revoke>");
		return;
	}
	char id[65];
	snprintf(id, sizeof id, "%.*s", (int)(slash - rest), rest);
	char *err = NULL;
	int rc = session_control(s, id, slash + 1, &err);
	if (rc == 0) {
		req->complete(req, rr_json(200, json_pack("{s:s, s:s, s:s}", "status", "ok", "id", id, "action", slash + 1)));
		return;
	}
	fail(req, rc == -1 ? 404 : rc == -2 ? 409 : 400, rc == -1 ? "not_found" : rc == -2 ? "conflict" : "invalid_action",
	     err);
	free(err);
}

/* GET /api/events: a Server-Sent-Events stream that starts with the current state. */
static void
route_events(struct router *r, struct rr_req *req)
{
	if (!req->can_stream) {
		fail(req, 501, "not_supported", "this transport cannot stream events");
		return;
	}
	json_t *hello = json_pack("{s:s, s:o, s:I}", "version", BB_VERSION, "browsers", hub_status(r->hub),
	                          "calls_in_flight", (json_int_t)hub_calls_in_flight(r->hub));
	if (tools_sessions(r->tools) != NULL)
		json_object_set_new(hello, "sessions", session_list(tools_sessions(r->tools)));
	char *js = jsonio_write(hello, NULL);
	json_decref(hello);
	char *first = xasprintf("event: hello\ndata: %s\n\n", js);
	free(js);
	struct events_sub *sub = events_subscribe(r->events, first);
	free(first);
	if (sub == NULL) {
		fail(req, 503, "busy", "too many event subscribers");
		return;
	}
	struct rr_resp *resp = xcalloc(1, sizeof *resp);
	resp->status = 200;
	resp->content_type = "text/event-stream";
	resp->stream = sub;
	req->complete(req, resp);
}

/* A new one-time login code (hex, NUL-terminated) valid for BB_LOGIN_CODE_TTL_S seconds; the
 * oldest outstanding code makes room when there are too many. Any thread. */
void
router_login_code(struct router *r, char out[2 * BB_LOGIN_CODE_BYTES + 1])
{
	unsigned char raw[BB_LOGIN_CODE_BYTES];
	util_random(raw, sizeof raw);
	util_hex(raw, sizeof raw, out);
	explicit_bzero(raw, sizeof raw);
	int64_t now = util_mono_ms();
	pthread_mutex_lock(&r->lock);
	struct login_code *slot = &r->codes[0];
	for (int i = 0; i < BB_LOGIN_CODES_MAX; i++) {
		struct login_code *c = &r->codes[i];
		if (c->code[0] == '\0' || c->expires <= now) {
			slot = c;
			break;
		}
		if (c->expires < slot->expires)
			slot = c;
	}
	memcpy(slot->code, out, sizeof slot->code);
	slot->expires = now + BB_LOGIN_CODE_TTL_S * 1000;
	pthread_mutex_unlock(&r->lock);
}

/* Use up a login code: 1 when it was outstanding and unexpired (it is gone afterwards). */
static int
login_code_take(struct router *r, const char *code)
{
	if (code == NULL || strlen(code) != 2 * BB_LOGIN_CODE_BYTES)
		return 0;
	int64_t now = util_mono_ms();
	int ok = 0;
	pthread_mutex_lock(&r->lock);
	for (int i = 0; i < BB_LOGIN_CODES_MAX; i++) {
		struct login_code *c = &r->codes[i];
		if (c->code[0] != '\0' && util_ct_equal(c->code, code)) {
			ok = c->expires > now;
			explicit_bzero(c, sizeof *c);
		}
	}
	pthread_mutex_unlock(&r->lock);
	return ok;
}

/* POST /api/login-code: a one-time dashboard login link for `browser-bridge login-url`. */
static void
route_login_code(struct router *r, struct rr_req *req)
{
	char code[2 * BB_LOGIN_CODE_BYTES + 1];
	router_login_code(r, code);
	json_t *o = json_pack("{s:s, s:s, s:o, s:i}", "status", "ok", "code", code, "path",
	                      json_sprintf("/login?code=%s", code), "expires_in_s", BB_LOGIN_CODE_TTL_S);
	explicit_bzero(code, sizeof code);
	req->complete(req, rr_json(200, o));
}

/* The token from a urlencoded form body ("token=..."), decoded into out; 0 when there is one. */
static int
form_token(struct rr_req *req, char *out, size_t outsz)
{
	if (!rr_media_type_is(req->header(req, "Content-Type"), "application/x-www-form-urlencoded"))
		return -1;
	const char *b = req->body, *end = req->body + req->body_len;
	while (b < end) {
		const char *amp = memchr(b, '&', (size_t)(end - b));
		const char *fe = amp ? amp : end;
		if (fe - b > 6 && memcmp(b, "token=", 6) == 0) {
			size_t n = 0;
			for (const char *q = b + 6; q < fe; q++) {
				int ch = (unsigned char)*q;
				if (ch == '+') {
					ch = ' ';
				} else if (ch == '%' && fe - q > 2) {
					char hex[3] = {q[1], q[2], 0};
					char *e;
					ch = (int)strtol(hex, &e, 16);
					if (*e != '\0')
						return -1;
					q += 2;
				}
				if (n + 1 >= outsz)
					return -1;
				out[n++] = (char)ch;
			}
			out[n] = '\0';
			return 0;
		}
		b = fe + 1;
	}
	return -1;
}

/* Start a dashboard session: the cookie, and back to the dashboard. */
static void
login_ok(struct router *r, struct rr_req *req)
{
	char sid[65];
	auth_session_new(r->auth, sid);
	struct rr_resp *resp = xcalloc(1, sizeof *resp);
	resp->status = 303;
	resp->content_type = "text/plain";
	resp->body = xstrdup("logged in\n");
	resp->len = strlen(resp->body);
	resp->set_cookie = xasprintf("bb_session=%s; HttpOnly; SameSite=Strict; Path=/", sid);
	resp->location = xstrdup("/");
	explicit_bzero(sid, sizeof sid);
	req->complete(req, resp);
}

/* GET /login?code=... (a one-time code) or POST /login with the token in a form body: start a
 * dashboard session. A token in the URL is refused: URLs end up in history and session files. */
static void
route_login(struct router *r, struct rr_req *req, int post)
{
	int ok = 0;
	if (post) {
		char tok[256];
		ok = form_token(req, tok, sizeof tok) == 0 && auth_check_token(r->auth, tok);
		explicit_bzero(tok, sizeof tok);
	} else {
		ok = login_code_take(r, req->query(req, "code"));
	}
	if (ok) {
		login_ok(r, req);
		return;
	}
	struct rr_resp *resp = xcalloc(1, sizeof *resp);
	resp->status = 401;
	resp->content_type = "text/html; charset=utf-8";
	resp->body = xstrdup(post ? "<!doctype html><title>Browser Bridge</title><p>That token is not valid. "
	                            "Run <code>browser-bridge token</code> to print it.</p>"
	                          : "<!doctype html><title>Browser Bridge</title><p>That login link is not valid: "
	                            "each link works once, for a few minutes. Run <code>browser-bridge login-url</code> "
	                            "for a new one.</p>");
	resp->len = strlen(resp->body);
	req->complete(req, resp);
}

/* Content type by file extension, for the dashboard's files. */
static const char *
mime_for(const char *path)
{
	static const struct {
		const char *ext, *type;
	} types[] = {{".html", "text/html; charset=utf-8"}, {".js", "text/javascript; charset=utf-8"},
	             {".css", "text/css; charset=utf-8"},   {".json", "application/json"},
	             {".svg", "image/svg+xml"},             {".png", "image/png"},
	             {".ico", "image/x-icon"},              {".map", "application/json"}};
	const char *dot = strrchr(path, '.');
	for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
		if (strcmp(dot, types[i].ext) == 0)
			return types[i].type;
	return "application/octet-stream";
}

/* Open rel for reading only if it resolves beneath root (no "..", symlink or absolute path out):
 * openat2 with RESOLVE_BENEATH, or where the kernel lacks it, a realpath prefix check. */
static int
open_beneath(const char *root, const char *rel)
{
	int dfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	struct open_how how = {.flags = O_RDONLY | O_CLOEXEC, .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS};
	int fd = (int)syscall(SYS_openat2, dfd, rel, &how, sizeof how);
	int saved = errno;
	close(dfd);
	if (fd >= 0 || saved != ENOSYS)
		return fd;
	char *path = xasprintf("%s/%s", root, rel), rroot[PATH_MAX], rpath[PATH_MAX];
	fd = -1;
	if (realpath(root, rroot) != NULL && realpath(path, rpath) != NULL &&
	    strncmp(rpath, rroot, strlen(rroot)) == 0 && rpath[strlen(rroot)] == '/')
		fd = open(rpath, O_RDONLY | O_CLOEXEC);
	free(path);
	return fd;
}

/* GET /<file>: serve the dashboard from www_dir; only plain names beneath it, never "..". */
static void
route_static(struct router *r, struct rr_req *req)
{
	const char *p = req->path;
	if (p[0] != '/') { /* "GET ../x": a request target must be an absolute path */
		fail(req, 404, "not_found", "no such file");
		return;
	}
	if (strcmp(p, "/") == 0)
		p = "/index.html";
	for (const char *s = p; *s; s++) {
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      strchr("/._-", *s)) ||
		    (s > p && s[0] == '.' && s[-1] == '/')) {
			fail(req, 404, "not_found", "no such file");
			return;
		}
	}
	struct read_job *j = xcalloc(1, sizeof *j);
	j->kind = READ_STATIC;
	j->file = xstrdup(p);
	read_submit(r, req, j);
}

/* Read one dashboard file (p: "/name", checked by route_static) and answer; a reader thread. */
static void
static_read(struct router *r, struct rr_req *req, const char *p)
{
	char *file = xasprintf("%s%s", r->cfg->www_dir, p);
	int fd = open_beneath(r->cfg->www_dir, p + 1);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (off_t)STATIC_MAX) {
		if (fd >= 0)
			close(fd);
		free(file);
		fail(req, 404, "not_found",
		     strcmp(p, "/index.html") == 0
		             ? "the dashboard is not installed here (build it with make, or pass --www DIR)"
		             : "no such file");
		return;
	}
	struct rr_resp *resp = xcalloc(1, sizeof *resp);
	resp->status = 200;
	resp->content_type = mime_for(file);
	resp->body = xmalloc((size_t)st.st_size + 1);
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, resp->body + got, (size_t)st.st_size - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	resp->len = got;
	close(fd);
	free(file);
	req->complete(req, resp);
}

/* Which paths need the token or a session: the API (but GET /api/health), MCP and logout. */
static int
needs_auth(struct rr_req *req)
{
	const char *p = req->path;
	if (strcmp(p, "/api/health") == 0 && (strcmp(req->method, "GET") == 0 || strcmp(req->method, "HEAD") == 0))
		return 0;
	return strncmp(p, "/api/", 5) == 0 || strcmp(p, "/mcp") == 0 || strcmp(p, "/logout") == 0;
}

/* The checks that need only the request line and headers (Host, Origin, token or session): a
 * transport asks before it reads a body, so nobody unauthorised makes us hold one. */
int
router_allows(struct router *r, struct rr_req *req)
{
	return host_ok(r, req) && origin_ok(r, req) && (!needs_auth(req) || authorized(r, req));
}

/* Route one request: security checks first, then the if/else chain by path and method. */
void
router_handle(struct router *r, struct rr_req *req)
{
	const char *m = req->method, *p = req->path;
	int get = strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0, post = strcmp(m, "POST") == 0;
	if (!host_ok(r, req)) {
		log_info("http: refused a request with a foreign Host header");
		fail(req, 403, "forbidden_host", "the Host header must be 127.0.0.1, localhost or [::1] (any port), or an --allow-host value");
		return;
	}
	if (!origin_ok(r, req)) {
		log_info("http: refused a cross-origin request");
		fail(req, 403, "forbidden_origin", "cross-origin requests are not allowed");
		return;
	}
	if (strcmp(p, "/api/health") == 0 && get) {
		req->complete(req, rr_json(200, json_pack("{s:s, s:s}", "status", "ok", "version", BB_VERSION)));
		return;
	}
	if (strcmp(p, "/login") == 0 && (get || post)) {
		route_login(r, req, post);
		return;
	}
	int api = strncmp(p, "/api/", 5) == 0, mcp = strcmp(p, "/mcp") == 0;
	if (needs_auth(req) && !authorized(r, req)) {
		if (!auth_check_bearer(r->auth, req->header(req, "Authorization")) && !same_site_fetch(req) &&
		    auth_session_check(r->auth, req->header(req, "Cookie"))) {
			fail(req, 403, "forbidden_site",
			     "a session cookie counts only on same-origin requests (Sec-Fetch-Site: same-origin or none)");
			return;
		}
		fail(req, 401, "unauthorized",
		     "missing or wrong token: send Authorization: Bearer <token> (browser-bridge token prints it)");
		return;
	}
	if (mcp) {
		mcp_handle(r->mcp, req);
		return;
	}
	if (strcmp(p, "/logout") == 0 && post) {
		auth_session_end(r->auth, req->header(req, "Cookie"));
		struct rr_resp *resp = rr_json(200, json_pack("{s:s}", "status", "ok"));
		resp->set_cookie = xstrdup("bb_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0");
		req->complete(req, resp);
		return;
	}
	if (strncmp(p, "/api/tools/", 11) == 0) {
		if (!post) {
			fail(req, 405, "method_not_allowed", "tools are called with POST");
			return;
		}
		route_tool(r, req, p + 11);
	} else if (strncmp(p, "/api/calls/", 11) == 0 && post) {
		route_cancel(r, req, p + 11);
	} else if (strcmp(p, "/api/tools") == 0 && get) {
		req->complete(req, rr_json(200, tools_catalog(r->tools)));
	} else if (strcmp(p, "/api/status") == 0 && get) {
		route_status(r, req);
	} else if (strcmp(p, "/api/login-code") == 0 && post) {
		route_login_code(r, req);
	} else if (strcmp(p, "/api/pairing") == 0 && get) {
		route_pairing(r, req);
	} else if (strcmp(p, "/api/history") == 0 && get) {
		route_history(r, req);
	} else if (strncmp(p, "/api/history/", 13) == 0 && get) {
		route_page(r, req, p + 13);
	} else if (strcmp(p, "/api/history") == 0 && strcmp(m, "DELETE") == 0) {
		route_history_delete(r, req, NULL);
	} else if (strncmp(p, "/api/history/", 13) == 0 && strcmp(m, "DELETE") == 0) {
		route_history_delete(r, req, p + 13);
	} else if (strcmp(p, "/api/commands") == 0 && get) {
		long limit, before;
		if (query_long(req, "limit", 1, BB_HISTORY_LIMIT_MAX, BB_HISTORY_LIMIT_DEFAULT, &limit) ||
		    query_long(req, "before", 1, 9007199254740991L, 0, &before))
			return;
		struct read_job *j = xcalloc(1, sizeof *j);
		j->kind = READ_COMMANDS;
		j->limit = limit;
		j->before = before;
		read_submit(r, req, j);
	} else if (strcmp(p, "/api/sessions") == 0 && get) {
		route_sessions(r, req, NULL, 0);
	} else if (strncmp(p, "/api/sessions/", 14) == 0 && post) {
		route_sessions(r, req, p + 14, 1);
	} else if (strcmp(p, "/api/events") == 0 && get) {
		route_events(r, req);
	} else if (api) {
		fail(req, 404, "not_found", "no such API endpoint (see docs/api.md)");
	} else if (get) {
		route_static(r, req);
	} else {
		fail(req, 405, "method_not_allowed", "only GET is allowed here");
	}
}
