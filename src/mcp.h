/*
 * mcp.h -- the Model Context Protocol endpoint (/mcp, Streamable HTTP, JSON responses).
 *
 * mcp_create/mcp_free: main thread. mcp_handle: the transport's thread, after the router has checked
 * Host, Origin and the token; it answers through req->complete, possibly later from another thread
 * (tools/call). Sessions have their own lock. mcp_test_seed: tests and fuzzers only, before use.
 */
#ifndef BB_MCP_H
#define BB_MCP_H

#include <stdint.h>

struct mcp;
struct tools;
struct rr_req;

struct mcp *mcp_create(struct tools *tools);
void mcp_free(struct mcp *m);
void mcp_handle(struct mcp *m, struct rr_req *req);
void mcp_test_seed(struct mcp *m, uint64_t seed);

#endif
