/* router.c -- see router.h. */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "auth.h"
#include "config.h"
#include "events.h"
#include "hub.h"
#include "limits.h"
#include "log.h"
#include "mcp.h"
#include "router.h"
#include "store.h"
#include "tools.h"
#include "jsonio.h"
#include "util.h"

#define STATIC_MAX (8u * 1024 * 1024)

struct router {
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
              struct events *events, struct tools *tools)
{
	struct router *r = xcalloc(1, sizeof *r);
	r->cfg = cfg;
	r->auth = auth;
	r->hub = hub;
	r->store = store;
	r->events = events;
	r->tools = tools;
	r->mcp = mcp_create(tools);
	return r;
}

/* Free the router. NULL is fine. */
void
router_free(struct router *r)
{
	if (r == NULL)
		return;
	mcp_free(r->mcp);
	free(r);
}

/* The live-event fan-out, for transports that stream. */
struct events *
router_events(struct router *r)
{
	return r->events;
}

/* Free a response. NULL is fine. */
void
rtr_resp_free(struct rtr_resp *resp)
{
	if (resp == NULL)
		return;
	free(resp->body);
	json_decref(resp->json);
	free(resp->set_cookie);
	free(resp->location);
	free(resp->extra_name);
	free(resp->extra_value);
	free(resp);
}

/* A JSON response (the json_t is stolen). It is serialised later, by the transport's own thread:
 * the thread that finishes a call (the store's, for most) has better things to do. */
struct rtr_resp *
rtr_json(int status, void *json)
{
	struct rtr_resp *resp = xcalloc(1, sizeof *resp);
	resp->status = status;
	resp->content_type = "application/json";
	resp->json = json;
	return resp;
}

/* Serialise a pending JSON body; a no-op for responses that already have their bytes. */
void
rtr_resp_render(struct rtr_resp *resp)
{
	if (resp->json == NULL)
		return;
	resp->body = jsonio_write(resp->json, &resp->len);
	json_decref(resp->json);
	resp->json = NULL;
}

/* Answer with a JSON error body. */
static void
fail(struct rtr_req *req, int status, const char *code, const char *msg)
{
	req->complete(req, rtr_json(status, tools_error(code, "%s", msg)));
}

/* Host must name this daemon on a loopback address (or an allowed front), against DNS rebinding. */
static int
host_ok(struct router *r, struct rtr_req *req)
{
	const char *host = req->header(req, "Host");
	if (host == NULL)
		return 0;
	if (req->own_port > 0) {
		char want[3][80];
		snprintf(want[0], sizeof want[0], "127.0.0.1:%d", req->own_port);
		snprintf(want[1], sizeof want[1], "localhost:%d", req->own_port);
		snprintf(want[2], sizeof want[2], "[::1]:%d", req->own_port);
		for (int i = 0; i < 3; i++)
			if (strcmp(host, want[i]) == 0)
				return 1;
	}
	for (int i = 0; i < r->cfg->n_allow_hosts; i++)
		if (strcmp(host, r->cfg->allow_hosts[i]) == 0)
			return 1;
	return 0;
}

/* An Origin, when sent, must be this daemon's own (the dashboard); no other site may call us. */
static int
origin_ok(struct router *r, struct rtr_req *req)
{
	const char *origin = req->header(req, "Origin");
	if (origin == NULL)
		return 1;
	const char *host = req->header(req, "Host");
	if (host == NULL || strncmp(origin, "http://", 7) != 0 || strcmp(origin + 7, host) != 0)
		return 0;
	(void)r;
	return 1; /* Host was already checked to be ours */
}

/* Bearer token, or the dashboard's session cookie. */
static int
authorized(struct router *r, struct rtr_req *req)
{
	return auth_check_bearer(r->auth, req->header(req, "Authorization")) ||
	       auth_session_check(r->auth, req->header(req, "Cookie"));
}

/* JSON bodies must say so: a form post from another site cannot pass for one. */
static int
is_json(struct rtr_req *req)
{
	const char *ct = req->header(req, "Content-Type");
	if (ct == NULL)
		return 0;
	size_t n = strcspn(ct, ";");
	while (n > 0 && ct[n - 1] == ' ')
		n--;
	return n == 16 && strncasecmp(ct, "application/json", 16) == 0;
}

/* Parse the request body as JSON; answers the request itself and returns NULL when it cannot. */
static json_t *
json_body(struct rtr_req *req)
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
		req->complete(req, rtr_json(400, b));
	}
	return v;
}

/* tools_call's answer goes straight to the transport. */
static void
tool_answer(json_t *answer, int status, void *arg)
{
	struct rtr_req *req = arg;
	req->complete(req, rtr_json(status, answer));
}

/* POST /api/tools/<name>. */
static void
route_tool(struct router *r, struct rtr_req *req, const char *name)
{
	const struct tool *tool = tools_find(r->tools, name);
	if (tool == NULL) {
		json_t *b = tools_error("unknown_tool", "unknown tool \"%.64s\"", name);
		json_object_set_new(b, "tools", tools_names(r->tools));
		req->complete(req, rtr_json(404, b));
		return;
	}
	json_t *params = json_body(req);
	if (params == NULL)
		return;
	tools_call(r->tools, tool, params, tool_answer, req);
	json_decref(params);
}

/* A query parameter as a bounded integer; -1 and an answered request when it is malformed. */
static int
query_long(struct rtr_req *req, const char *name, long min, long max, long dflt, long *out)
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
	req->complete(req, rtr_json(400, b));
	return -1;
}

/* GET /api/history. */
static void
route_history(struct router *r, struct rtr_req *req)
{
	long limit, before;
	if (query_long(req, "limit", 1, BB_HISTORY_LIMIT_MAX, BB_HISTORY_LIMIT_DEFAULT, &limit) ||
	    query_long(req, "before", 1, 9007199254740991L, 0, &before))
		return;
	struct store_query q = {req->query(req, "q"), req->query(req, "url"), limit, before};
	if (q.q && strlen(q.q) > BB_QUERY_MAX) {
		fail(req, 400, "invalid_params", "q: at most 1024 bytes");
		return;
	}
	if (q.url && *q.url == '\0')
		q.url = NULL;
	int bad = 0;
	char *err = NULL;
	json_t *out = store_history(r->store, &q, &bad, &err);
	if (out == NULL) {
		fail(req, bad ? 400 : 500, bad ? "invalid_query" : "database_error", err ? err : "query failed");
		free(err);
		return;
	}
	req->complete(req, rtr_json(200, out));
}

/* GET /api/history/<id>, as JSON or (Accept: text/markdown) raw Markdown. */
static void
route_page(struct router *r, struct rtr_req *req, const char *ids)
{
	long id;
	if (util_parse_long(ids, 1, 9007199254740991L, &id) != 0) {
		fail(req, 400, "invalid_params", "the page id must be a positive integer");
		return;
	}
	json_t *p = store_page(r->store, id);
	if (p == NULL) {
		fail(req, 404, "not_found", "no page with that id (it may have been pruned by retention)");
		return;
	}
	const char *accept = req->header(req, "Accept");
	if (accept && strstr(accept, "text/markdown")) {
		struct rtr_resp *resp = xcalloc(1, sizeof *resp);
		resp->status = 200;
		resp->content_type = "text/markdown; charset=utf-8";
		json_t *md = json_object_get(p, "markdown");
		resp->body = xstrndup(json_string_value(md), json_string_length(md));
		resp->len = json_string_length(md);
		json_decref(p);
		req->complete(req, resp);
		return;
	}
	req->complete(req, rtr_json(200, p));
}

/* GET /api/status. */
static void
route_status(struct router *r, struct rtr_req *req)
{
	json_t *origins = json_array();
	for (int i = 0; i < r->cfg->n_origins; i++)
		json_array_append_new(origins, json_string(r->cfg->origins[i]));
	json_t *o = json_pack("{s:s, s:s, s:o, s:I, s:o, s:s, s:s, s:o, s:s}", "status", "ok", "version", BB_VERSION,
	                      "browsers", hub_status(r->hub), "calls_in_flight",
	                      (json_int_t)hub_calls_in_flight(r->hub), "database", store_stats(r->store), "http",
	                      "", "ws", "", "allowed_origins", origins, "extension_id", BB_EXTENSION_ID);
	int v6h = strchr(r->cfg->http_host, ':') != NULL, v6w = strchr(r->cfg->ws_host, ':') != NULL;
	/* The extension directory --headless loads (--extension, else the installed copy), for pairing. */
	if (r->cfg->extension_dir != NULL)
		json_object_set_new(o, "extension_dir", json_string(r->cfg->extension_dir));
	json_object_set_new(o, "http", json_sprintf("http://%s%s%s:%d", v6h ? "[" : "", r->cfg->http_host, v6h ? "]" : "",
	                                            r->cfg->http_port));
	json_object_set_new(o, "ws", json_sprintf("ws://%s%s%s:%d/ws/browser", v6w ? "[" : "", r->cfg->ws_host,
	                                          v6w ? "]" : "", r->cfg->ws_port));
	req->complete(req, rtr_json(200, o));
}

/* GET /api/pairing: what the dashboard's pairing view shows (token included: it is authenticated). */
static void
route_pairing(struct router *r, struct rtr_req *req)
{
	json_t *origins = json_array();
	for (int i = 0; i < r->cfg->n_origins; i++)
		json_array_append_new(origins, json_string(r->cfg->origins[i]));
	int v6 = strchr(r->cfg->ws_host, ':') != NULL;
	json_t *o = json_pack("{s:s, s:o, s:s, s:o}", "token", auth_token(r->auth), "ws_url",
	                      json_sprintf("ws://%s%s%s:%d/ws/browser", v6 ? "[" : "", r->cfg->ws_host, v6 ? "]" : "",
	                                   r->cfg->ws_port),
	                      "extension_id",
	                      BB_EXTENSION_ID, "allowed_origins", origins);
	req->complete(req, rtr_json(200, o));
}

/* GET /api/events: a Server-Sent-Events stream that starts with the current state. */
static void
route_events(struct router *r, struct rtr_req *req)
{
	if (!req->can_stream) {
		fail(req, 501, "not_supported", "this transport cannot stream events");
		return;
	}
	json_t *hello = json_pack("{s:s, s:o, s:I}", "version", BB_VERSION, "browsers", hub_status(r->hub),
	                          "calls_in_flight", (json_int_t)hub_calls_in_flight(r->hub));
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
	struct rtr_resp *resp = xcalloc(1, sizeof *resp);
	resp->status = 200;
	resp->content_type = "text/event-stream";
	resp->stream = sub;
	req->complete(req, resp);
}

/* GET /login?token=...: start a dashboard session and go to the dashboard. */
static void
route_login(struct router *r, struct rtr_req *req)
{
	const char *tok = req->query(req, "token");
	if (!auth_check_token(r->auth, tok)) {
		struct rtr_resp *resp = xcalloc(1, sizeof *resp);
		resp->status = 401;
		resp->content_type = "text/html; charset=utf-8";
		resp->body = xstrdup("<!doctype html><title>Browser Bridge</title><p>That login link is not valid. "
		                     "Run <code>browser-bridge token</code> or look at the URL "
		                     "<code>browser-bridge serve</code> printed.</p>");
		resp->len = strlen(resp->body);
		req->complete(req, resp);
		return;
	}
	char sid[65];
	auth_session_new(r->auth, sid);
	struct rtr_resp *resp = xcalloc(1, sizeof *resp);
	resp->status = 303;
	resp->content_type = "text/plain";
	resp->body = xstrdup("logged in\n");
	resp->len = strlen(resp->body);
	resp->set_cookie = xasprintf("bb_session=%s; HttpOnly; SameSite=Strict; Path=/", sid);
	resp->location = xstrdup("/");
	explicit_bzero(sid, sizeof sid);
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

/* GET /<file>: serve the dashboard from www_dir; only plain names, never "..". */
static void
route_static(struct router *r, struct rtr_req *req)
{
	const char *p = req->path;
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
	char *file = xasprintf("%s%s", r->cfg->www_dir, p);
	int fd = open(file, O_RDONLY | O_CLOEXEC);
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
	struct rtr_resp *resp = xcalloc(1, sizeof *resp);
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

/* Route one request: security checks first, then the table. */
void
router_handle(struct router *r, struct rtr_req *req)
{
	const char *m = req->method, *p = req->path;
	int get = strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0, post = strcmp(m, "POST") == 0;
	if (!host_ok(r, req)) {
		log_info("http: refused a request with a foreign Host header");
		fail(req, 403, "forbidden_host", "the Host header must be 127.0.0.1:PORT, localhost:PORT or [::1]:PORT");
		return;
	}
	if (!origin_ok(r, req)) {
		log_info("http: refused a cross-origin request");
		fail(req, 403, "forbidden_origin", "cross-origin requests are not allowed");
		return;
	}
	if (strcmp(p, "/api/health") == 0 && get) {
		req->complete(req, rtr_json(200, json_pack("{s:s, s:s}", "status", "ok", "version", BB_VERSION)));
		return;
	}
	if (strcmp(p, "/login") == 0 && get) {
		route_login(r, req);
		return;
	}
	int api = strncmp(p, "/api/", 5) == 0, mcp = strcmp(p, "/mcp") == 0;
	if ((api || mcp || strcmp(p, "/logout") == 0) && !authorized(r, req)) {
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
		struct rtr_resp *resp = rtr_json(200, json_pack("{s:s}", "status", "ok"));
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
	} else if (strcmp(p, "/api/tools") == 0 && get) {
		req->complete(req, rtr_json(200, tools_catalog(r->tools)));
	} else if (strcmp(p, "/api/status") == 0 && get) {
		route_status(r, req);
	} else if (strcmp(p, "/api/pairing") == 0 && get) {
		route_pairing(r, req);
	} else if (strcmp(p, "/api/history") == 0 && get) {
		route_history(r, req);
	} else if (strncmp(p, "/api/history/", 13) == 0 && get) {
		route_page(r, req, p + 13);
	} else if (strcmp(p, "/api/commands") == 0 && get) {
		long limit, before;
		if (query_long(req, "limit", 1, BB_HISTORY_LIMIT_MAX, BB_HISTORY_LIMIT_DEFAULT, &limit) ||
		    query_long(req, "before", 1, 9007199254740991L, 0, &before))
			return;
		req->complete(req, rtr_json(200, store_commands(r->store, limit, before)));
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
