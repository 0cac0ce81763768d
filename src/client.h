/*
 * client.h -- the command-line client: `browser-bridge open URL`, `click`, `type`, `page`, ...
 * It talks to a running daemon's HTTP API over the daemon's Unix socket (api_socket) when that exists,
 * checking that its server runs as the same user and sending no token; else over TCP to the loopback
 * address with the token file's bearer token.
 * Main thread only (a short-lived process).
 */
#ifndef BB_CLIENT_H
#define BB_CLIENT_H

#include <stdio.h>

/* Exit codes, distinct so scripts can tell what went wrong. */
#define CLIENT_EXIT_OK 0
#define CLIENT_EXIT_TOOL_ERROR 1  /* the browser tried and failed */
#define CLIENT_EXIT_USAGE 2       /* bad command line */
#define CLIENT_EXIT_NO_BROWSER 3  /* no browser connected, or it went away */
#define CLIENT_EXIT_TIMEOUT 4     /* the browser did not answer in time */
#define CLIENT_EXIT_DAEMON 5      /* the daemon is not running or refused us (token, ...) */

int client_is_command(const char *name);
int client_main(int argc, char **argv);
void client_usage_list(FILE *f);
struct config;
int client_login_url(const struct config *cfg, const char *token, int tcp, char **url, char **err);

#endif
