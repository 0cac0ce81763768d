/*
 * unixsock.h -- the HTTP API on a Unix socket, for clients of the same user (the CLI and the stdio
 * MCP relay): no token on any wire, and no risk of handing it to whatever holds the TCP port while
 * the daemon is down. Each accepted connection is checked with SO_PEERCRED (only the daemon's own
 * uid is served) and handed to the HTTP listener, which treats it as authenticated.
 *
 * unixsock_open/unixsock_attach: main thread, before loop_start. unixsock_quiesce: main thread, while
 * the loop runs. unixsock_free: main thread, after loop_stop. The accept work runs on the event loop.
 */
#ifndef BB_UNIXSOCK_H
#define BB_UNIXSOCK_H

struct unixsock;
struct loop;
struct http;

struct unixsock *unixsock_open(const char *path, char **err);
void unixsock_attach(struct unixsock *u, struct loop *loop, struct http *http);
void unixsock_quiesce(struct unixsock *u);
void unixsock_free(struct unixsock *u);
int unixsock_peer_is_me(int fd, long *peer_uid);

#endif
