/*
 * fcgi.h -- the FastCGI responder: the same router as the HTTP listener, behind a web server.
 *
 * A source on the event loop (loop.h), watching one epoll descriptor that holds the listener and
 * every connection, the way libmicrohttpd is run; the protocol itself is fcgiproto.c. A waiting
 * tool call parks its request (no thread per request) and is completed like an HTTP one: from
 * whichever thread finishes it, through req->complete, which queues it and kicks the loop.
 *
 * fcgi_start, fcgi_attach (before loop_start), fcgi_stop (while the loop runs), fcgi_free (after
 * loop_stop): main thread. Everything else runs on the loop thread, except complete() and the
 * event-stream wake, which take the queue's lock.
 */
#ifndef BB_FCGI_H
#define BB_FCGI_H

struct fcgi;
struct router;
struct config;
struct loop;

struct fcgi *fcgi_start(const struct config *cfg, struct router *router, char **err);
void fcgi_attach(struct fcgi *f, struct loop *loop);
void fcgi_stop(struct fcgi *f);
void fcgi_free(struct fcgi *f);

#endif
