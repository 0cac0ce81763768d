/*
 * http.h -- the HTTP listener (libmicrohttpd in epoll mode, a source on the event loop, loop.h).
 * It also serves the connections unixsock.c accepts on the API's Unix socket (http_add_local, loop
 * thread), as requests marked local_peer.
 *
 * Main thread: http_start, http_attach (before loop_start), http_quiesce, http_drain (while the loop
 * runs), http_free (after loop_stop). Every libmicrohttpd callback runs on the event loop thread; a
 * request that has to wait (a tool call, an event stream) is suspended, never given a thread, and is
 * resumed from whichever thread completes it (MHD_resume_connection is thread-safe).
 */
#ifndef BB_HTTP_H
#define BB_HTTP_H

struct http;
struct router;
struct config;
struct loop;

struct http *http_start(const struct config *cfg, struct router *router, char **err);
void http_attach(struct http *h, struct loop *loop);
void http_add_local(struct http *h, int fd);
void http_quiesce(struct http *h);
void http_drain(struct http *h);
void http_free(struct http *h);

#endif
