/*
 * mcprelay.h -- `browser-bridge mcp`: the stdio transport of the Model Context Protocol, relayed to
 * the daemon's Streamable HTTP endpoint (/mcp) through the API client, for MCP clients that only
 * speak stdio. mcprelay_run: main thread (a short-lived process); it starts a thread per tool call in
 * flight, which share the session state under the relay's lock.
 */
#ifndef BB_MCPRELAY_H
#define BB_MCPRELAY_H

#include "apiclient.h"

void mcprelay_run(const struct apiclient *c);

#endif
