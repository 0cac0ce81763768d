/*
 * ws.h -- the /ws/browser WebSocket listener (libwebsockets).
 *
 * ws_create/ws_start/ws_stop/ws_free: main thread. ws_wake: any thread (it only calls
 * lws_cancel_service, which libwebsockets makes thread-safe). Everything else in ws.c runs on the
 * WebSocket thread, which owns the lws context and every browser connection.
 */
#ifndef BB_WS_H
#define BB_WS_H

struct ws;
struct hub;
struct auth;
struct events;
struct config;

struct ws *ws_create(const struct config *cfg, struct auth *auth, struct events *events, char **err);
void ws_set_hub(struct ws *ws, struct hub *hub);
int ws_start(struct ws *ws, char **err);
void ws_wake(void *ws);
void ws_stop(struct ws *ws);
void ws_free(struct ws *ws);

#endif
