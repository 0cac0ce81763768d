/*
 * fcgi.h -- the FastCGI responder: the same router as the HTTP listener, behind a web server.
 *
 * fcgi_start/fcgi_stop: main thread. The responder runs its own thread with one poll loop over
 * the listening socket and its connections; a waiting tool call parks its request (no thread per
 * request) and is finished from whichever thread completes it, through a queue and a wakeup pipe.
 */
#ifndef BB_FCGI_H
#define BB_FCGI_H

struct fcgi;
struct router;
struct config;

struct fcgi *fcgi_start(const struct config *cfg, struct router *router, char **err);
void fcgi_stop(struct fcgi *f);

#endif
