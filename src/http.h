/*
 * http.h -- the HTTP listener (libmicrohttpd, one internal polling thread, epoll).
 *
 * http_start/http_quiesce/http_stop: main thread. libmicrohttpd runs every callback on its own
 * thread; a request that has to wait (a tool call, an event stream) is suspended, never given a
 * thread, and is resumed from whichever thread completes it (MHD_resume_connection is thread-safe).
 */
#ifndef BB_HTTP_H
#define BB_HTTP_H

struct http;
struct router;
struct config;

struct http *http_start(const struct config *cfg, struct router *router, char **err);
void http_quiesce(struct http *h);
void http_stop(struct http *h);

#endif
