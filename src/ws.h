/*
 * ws.h -- the /ws/browser WebSocket listener (libwebsockets), and the event loop it runs.
 *
 * One thread, the event loop, owns the lws context and every browser connection; other I/O that
 * should not cost a thread hand-off per call shares it as a *source* (libmicrohttpd, through its
 * epoll descriptor): its run function is called on the loop thread when its fd is readable, when
 * the delay it last returned expires, and after any pass in which it was kicked.
 *
 * The browsers speak protocol 2 (docs/protocol.md): a challenge, then a hello and a welcome that each
 * prove the token with an HMAC (auth.h) and never carry it; before its hello a peer may send 8 KiB.
 *
 * ws_create/ws_add_source/ws_start/ws_stop/ws_free: main thread (sources before ws_start).
 * ws_wake, ws_source_kick: any thread; on the loop thread they make no system call.
 * Everything else in ws.c runs on the loop thread.
 */
#ifndef BB_WS_H
#define BB_WS_H

struct ws;
struct ws_source;
struct hub;
struct auth;
struct events;
struct config;

struct ws *ws_create(const struct config *cfg, struct auth *auth, struct events *events, char **err);
void ws_set_hub(struct ws *ws, struct hub *hub);
/* run returns the delay in ms until it wants to run again, or -1 for "only when woken". fd may be -1. */
struct ws_source *ws_add_source(struct ws *ws, int fd, long (*run)(void *arg), void *arg);
void ws_source_kick(struct ws_source *src);
int ws_start(struct ws *ws, char **err);
void ws_wake(void *ws);
void ws_stop(struct ws *ws);
void ws_free(struct ws *ws);

#endif
