/* reqresp.c -- see reqresp.h. */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "jsonio.h"
#include "reqresp.h"
#include "util.h"

/* Free a response. NULL is fine. */
void
rr_resp_free(struct rr_resp *resp)
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
struct rr_resp *
rr_json(int status, void *json)
{
	struct rr_resp *resp = xcalloc(1, sizeof *resp);
	resp->status = status;
	resp->content_type = "application/json";
	resp->json = json;
	return resp;
}

/* The JSON error every failure answers with: {"status": "error", "error": code, "message": msg}. */
struct rr_resp *
rr_error(int status, const char *code, const char *msg)
{
	return rr_json(status, json_pack("{s:s, s:s, s:s}", "status", "error", "error", code, "message", msg));
}

/* Serialise a pending JSON body; a no-op for responses that already have their bytes. */
void
rr_resp_render(struct rr_resp *resp)
{
	if (resp->json == NULL)
		return;
	resp->body = jsonio_write(resp->json, &resp->len);
	json_decref(resp->json);
	resp->json = NULL;
}

/* Whether a Content-Type is exactly the media type want (case-insensitive type/subtype), with
 * nothing after it but optional parameters: "application/jsonxyz" is not "application/json". */
int
rr_media_type_is(const char *ct, const char *want)
{
	if (ct == NULL)
		return 0;
	while (*ct == ' ' || *ct == '\t')
		ct++;
	size_t n = strlen(want);
	if (strncasecmp(ct, want, n) != 0)
		return 0;
	ct += n;
	while (*ct == ' ' || *ct == '\t')
		ct++;
	return *ct == '\0' || *ct == ';';
}

/* Whether a path is the API's or MCP's (answers never cached) rather than the dashboard's. */
int
rr_is_api_path(const char *path)
{
	return path != NULL && (strncmp(path, "/api/", 5) == 0 || strcmp(path, "/mcp") == 0);
}

/* Hand add the headers every response carries, whichever transport sends it. */
void
rr_security_headers(const char *path, rr_header_fn add, void *arg)
{
	add(arg, "X-Content-Type-Options", "nosniff");
	add(arg, "Referrer-Policy", "no-referrer");
	add(arg, "X-Frame-Options", "DENY");
	add(arg, "Content-Security-Policy", RR_CSP);
	add(arg, "Cache-Control", rr_is_api_path(path) ? "no-store" : "no-cache");
}
