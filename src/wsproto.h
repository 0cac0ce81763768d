/*
 * wsproto.h -- the browser protocol (protocol 2, docs/protocol.md) spoken over /ws/browser, without
 * libwebsockets: the challenge, the hello and its proof, the welcome, and every message a browser
 * sends (command_result, pageInfoUpdate, tabs, heartbeat), checked and handed to the hub. ws.c is
 * the transport: it owns the connections and implements the ops; the fuzzer and tests call this
 * with ops of their own.
 *
 * A peer is used by one thread at a time (the event loop, for ws.c); the hub it talks to is thread-safe.
 */
#ifndef BB_WSPROTO_H
#define BB_WSPROTO_H

#include <stddef.h>

#include <jansson.h>

#include "auth.h"

#define WSPROTO_VERSION 2
#define WSPROTO_CLOSE_PROTOCOL 4400
#define WSPROTO_CLOSE_UNAUTHORIZED 4401
#define WSPROTO_CLOSE_HELLO_TIMEOUT 4408
#define WSPROTO_CLOSE_REPLACED 4409
#define WSPROTO_CLOSE_OLD_PROTOCOL 4426
#define WSPROTO_CLOSE_TOO_MANY 4429

struct config;
struct hub;
struct hub_browser;
struct wsproto_peer;

/* What every peer of one listener shares. */
struct wsproto_env {
	const struct config *cfg;
	struct auth *auth;
	struct hub *hub;
};

/* What the transport does for the protocol. */
struct wsproto_ops {
	void (*send)(struct wsproto_peer *p, json_t *msg); /* queue msg (stolen) for the peer */
	void (*close)(struct wsproto_peer *p);            /* close with p->close_code and p->close_reason */
	struct wsproto_peer *(*peer_of)(void *conn);       /* the peer of an older connection the hub replaced */
	void (*welcomed)(struct wsproto_peer *p);          /* the hello was good (stop the hello timer) */
	void (*page_in)(struct wsproto_peer *p);           /* a page went to the store (mind its backlog) */
};

struct wsproto_peer {
	const struct wsproto_env *env;
	const struct wsproto_ops *ops;
	void *conn;                  /* the transport's connection, as the hub knows it */
	struct hub_browser *browser; /* set after a good hello */
	int close_code;              /* set once closing: nothing more is acted on */
	int hello_seen;              /* a hello was answered (welcome or close): never a second one */
	char challenge[AUTH_NONCE_LEN + 1]; /* our nonce S, sent right after the upgrade */
	char close_reason[124]; /* a close frame carries at most 123 bytes of reason */
};

void wsproto_challenge(struct wsproto_peer *p);
void wsproto_on_message(struct wsproto_peer *p, const char *text, size_t len);
void wsproto_error(struct wsproto_peer *p, const char *in_reply_to, const char *rid, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void wsproto_close(struct wsproto_peer *p, int code, const char *reason);

#endif
