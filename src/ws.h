/*
 * ws.h -- the /ws/browser WebSocket listener (libwebsockets), a listener on the event loop (loop.h),
 * and the loop's own bookkeeping: hub messages to send, call deadlines, event heartbeats, the store
 * backlog that pauses reading from browsers.
 *
 * The browsers speak protocol 2 (docs/protocol.md): a challenge, then a hello and a welcome that each
 * prove the token with an HMAC (auth.h) and never carry it; before its hello a peer may send 8 KiB.
 *
 * ws_create/ws_set_hub: main thread, before loop_start. ws_stop: main thread while the loop runs.
 * ws_free: main thread after loop_free. ws_wake: any thread; on the loop thread it makes no system
 * call. Everything else in ws.c runs on the loop thread.
 */
#ifndef BB_WS_H
#define BB_WS_H

struct ws;
struct loop;
struct hub;
struct auth;
struct events;
struct config;

struct ws *ws_create(struct loop *loop, const struct config *cfg, struct auth *auth, struct events *events,
                     char **err);
void ws_set_hub(struct ws *ws, struct hub *hub);
void ws_wake(void *ws);
void ws_stop(struct ws *ws);
void ws_free(struct ws *ws);

#endif
