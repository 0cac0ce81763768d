/*
 * mcp.h -- the Model Context Protocol endpoint (/mcp, Streamable HTTP, JSON responses).
 *
 * mcp_create/mcp_free: main thread. mcp_handle: the transport's thread, after the router has checked
 * Host, Origin and the token; it answers through req->complete, possibly later from another thread
 * (tools/call). Sessions have their own lock.
 */
#ifndef BB_MCP_H
#define BB_MCP_H

struct mcp;
struct tools;
struct rtr_req;

struct mcp *mcp_create(struct tools *tools);
void mcp_free(struct mcp *m);
void mcp_handle(struct mcp *m, struct rtr_req *req);

#endif
