/*
 * apiclient.h -- the command-line client's way to the daemon: one blocking HTTP/1.1 exchange per
 * request, over the daemon's Unix socket (api_socket) when it exists -- checking that its server
 * runs as the same user, and sending no token -- else over TCP to the loopback address with the
 * token file's bearer token.
 *
 * Why a minimal client of our own rather than libcurl: the only peer is our own daemon on loopback
 * or on a Unix socket whose owner we must check with SO_PEERCRED before sending anything; the
 * requests are a handful of fixed shapes, and the token must be wiped from memory after use. A
 * general client would add a dependency, proxies and redirects we must not follow, and no way to
 * vouch for the peer of the socket.
 *
 * Main thread only (a short-lived process), except the interrupt thread apiclient_cancel_on_interrupt
 * starts and the MCP relay's call threads: after apiclient_open a struct apiclient is only read, and
 * each request has a connection of its own, so any thread may make one.
 */
#ifndef BB_APICLIENT_H
#define BB_APICLIENT_H

#include <stddef.h>

#include "config.h"

/* Largest answer we accept from the daemon: a page is at most a WebSocket message, plus JSON escaping. */
#define APICLIENT_MAX_RESPONSE ((size_t)BB_WS_MAX_MESSAGE_MAX * 2)

/* Everything needed to talk to the daemon: the settings it uses, and the way to reach it: its Unix
 * socket (sock; no token needed, none sent) or TCP with the token. */
struct apiclient {
	struct config cfg;
	char *token;
	const char *sock; /* cfg.api_socket when we use it, else NULL (TCP) */
	char call_id[33]; /* sent as X-Browser-Bridge-Call-Id with tool calls, so Ctrl-C can cancel them; or "" */
};

/* The daemon's answer. */
struct apireply {
	int status;
	char *body;
	size_t len;
	char session[65]; /* Mcp-Session-Id of the answer, if any */
	int streamed;     /* apiclient_call_stream: the body was an event stream, already handed over */
};

/* A piece of an event-stream answer, as it arrives (apiclient_call_stream). */
typedef void (*apiclient_data_fn)(const char *data, size_t len, void *arg);

/* Where the user pointed the client (NULL: the settings file's value). */
struct apiclient_opts {
	const char *config, *token_file, *http, *api_socket;
};

int apiclient_open(struct apiclient *c, const struct apiclient_opts *o, int need_token, int *token_missing,
                   char **err);
void apiclient_close(struct apiclient *c);
int apiclient_call(const struct apiclient *c, const char *method, const char *path, const char *accept,
                   const char *extra, const char *body, long timeout_ms, struct apireply *r, char **err);
int apiclient_call_stream(const struct apiclient *c, const char *method, const char *path, const char *accept,
                          const char *extra, const char *body, long timeout_ms, apiclient_data_fn on_data, void *arg,
                          struct apireply *r, char **err);
void apiclient_cancel_on_interrupt(struct apiclient *c);
int apiclient_login_url(const struct config *cfg, const char *token, int tcp, char **url, char **err);

#endif
