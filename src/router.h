/*
 * router.h -- the one request dispatcher for the HTTP API, MCP and the dashboard, shared by every
 * transport (the libmicrohttpd listener and the FastCGI responder): router_handle checks Host, Origin
 * and the token, then picks the handler by path and method in one if/else chain.
 *
 * The MCP endpoint (mcp.h) is made by the caller and handed in, so mcp.c needs only reqresp.h: no
 * include circle. router_create/router_free: main thread (free before the mcp it was given).
 * router_handle: the transport's own thread. It answers through req->complete exactly once, either
 * before it returns or later from another thread (a tool call finishing), so a transport must be
 * ready for both. Security checks (Host, Origin, token) happen here, for every transport alike.
 */
#ifndef BB_ROUTER_H
#define BB_ROUTER_H

#include <stddef.h>

#include "limits.h"
#include "reqresp.h"

struct config;
struct auth;
struct hub;
struct store;
struct events;
struct tools;
struct events_sub;
struct mcp;

struct router;

struct router *router_create(const struct config *cfg, struct auth *auth, struct hub *hub, struct store *store,
                             struct events *events, struct tools *tools, struct mcp *mcp);
void router_free(struct router *r);
void router_handle(struct router *r, struct rr_req *req);
struct events *router_events(struct router *r);
int router_allows(struct router *r, struct rr_req *req);
void router_login_code(struct router *r, char out[2 * BB_LOGIN_CODE_BYTES + 1]);

#endif
