/*
 * router.h -- the one request dispatcher for the HTTP API, MCP and the dashboard, shared by every
 * transport (the libmicrohttpd listener and the FastCGI responder): router_handle checks Host, Origin
 * and the token, then picks the handler by path and method in one if/else chain.
 *
 * router_handle: the transport's own thread. It answers through req->complete exactly once, either
 * before it returns or later from another thread (a tool call finishing), so a transport must be
 * ready for both. Security checks (Host, Origin, token) happen here, for every transport alike.
 */
#ifndef BB_ROUTER_H
#define BB_ROUTER_H

#include <stddef.h>

#include "limits.h"

struct config;
struct auth;
struct hub;
struct store;
struct events;
struct tools;
struct events_sub;
struct mcp;

struct rtr_resp {
	int status;
	const char *content_type;
	char *body; /* owned */
	size_t len;
	char *set_cookie; /* owned, or NULL */
	char *location;   /* owned, or NULL */
	char *extra_name; /* one more header (e.g. Mcp-Session-Id), owned, or NULL */
	char *extra_value;
	struct events_sub *stream; /* Server-Sent Events: the transport reads from it */
	void *json; /* a JSON body not yet serialised: rtr_resp_render does it on the transport's thread */
};

struct rtr_req {
	const char *method;
	const char *path; /* without the query string */
	const char *body;
	size_t body_len;
	int own_port; /* the listener's port, for Host/Origin checks; 0 behind FastCGI */
	const char *(*header)(struct rtr_req *r, const char *name);
	const char *(*query)(struct rtr_req *r, const char *name);
	void (*complete)(struct rtr_req *r, struct rtr_resp *resp);
	int can_stream; /* the transport can send a Server-Sent-Events stream */
	int local_peer; /* came over the API's Unix socket from the daemon's own user: authenticated, no Host check */
};

struct router;

struct router *router_create(const struct config *cfg, struct auth *auth, struct hub *hub, struct store *store,
                             struct events *events, struct tools *tools);
void router_free(struct router *r);
void router_handle(struct router *r, struct rtr_req *req);
void rtr_resp_free(struct rtr_resp *resp);
struct rtr_resp *rtr_json(int status, void *json);
void rtr_resp_render(struct rtr_resp *resp);
struct events *router_events(struct router *r);
int router_allows(struct router *r, struct rtr_req *req);
int rtr_media_type_is(const char *content_type, const char *want);
void router_login_code(struct router *r, char out[2 * BB_LOGIN_CODE_BYTES + 1]);

#endif
