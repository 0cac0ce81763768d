/*
 * loop.h -- the one event loop: a thread that owns the libwebsockets context and runs every
 * *source* of work beside the browsers' WebSockets (ws.c): libmicrohttpd through its epoll
 * descriptor (http.c), the API's Unix socket (unixsock.c), the FastCGI listener (fcgi.c) and the
 * loop's own bookkeeping (ws.c's deadlines and heartbeats). A source's run function is called on
 * the loop thread when its fd is readable, when the delay it last returned expires, and after any
 * pass in which it was kicked. Nothing on the loop blocks: reads that may wait go to the store's
 * reader threads, and a request that has to wait is suspended and completed later.
 *
 * loop_create/loop_add_source/loop_start/loop_stop/loop_free: main thread (sources before
 * loop_start; loop_free after loop_stop, before freeing what the loop's callbacks use).
 * loop_kick, loop_wake: any thread; on the loop thread they make no system call.
 * loop_hold/loop_unhold/loop_after_pass/loop_lws: the loop thread (loop_lws also the main thread
 * before loop_start, to add a listener).
 */
#ifndef BB_LOOP_H
#define BB_LOOP_H

struct loop;
struct loop_source;
struct lws_context;

struct loop *loop_create(char **err);
/* run returns the delay in ms until it wants to run again, or -1 for "only when woken". fd may be -1. */
struct loop_source *loop_add_source(struct loop *l, int fd, long (*run)(void *arg), void *arg);
void loop_kick(struct loop_source *src);
void loop_wake(struct loop *l);
int loop_start(struct loop *l, char **err);
void loop_stop(struct loop *l);
void loop_free(struct loop *l);
struct lws_context *loop_lws(struct loop *l);
const struct loop *loop_hold(struct loop *l);
void loop_unhold(const struct loop *saved);
void loop_after_pass(struct loop *l);

#endif
