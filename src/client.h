/*
 * client.h -- the command-line client's commands: `browser-bridge open URL`, `click`, `type`, `page`,
 * `history`, `status`, ... run here: the command line is parsed from the tool catalog (cli.c), the
 * daemon reached through its HTTP API (apiclient.c: the Unix socket, else TCP with the token), the
 * answer printed (cliout.c); `mcp` relays stdio (mcprelay.c).
 * Main thread only (a short-lived process).
 */
#ifndef BB_CLIENT_H
#define BB_CLIENT_H

/* Exit codes, distinct so scripts can tell what went wrong. */
#define CLIENT_EXIT_OK 0
#define CLIENT_EXIT_TOOL_ERROR 1  /* the browser tried and failed */
#define CLIENT_EXIT_USAGE 2       /* bad command line */
#define CLIENT_EXIT_NO_BROWSER 3  /* no browser connected, or it went away */
#define CLIENT_EXIT_TIMEOUT 4     /* the browser did not answer in time */
#define CLIENT_EXIT_DAEMON 5      /* the daemon is not running or refused us (token, ...) */

int client_is_command(const char *name);
int client_main(int argc, char **argv);

#endif
