/*
 * runfile.h -- the daemon's runtime file, $XDG_RUNTIME_DIR/browser-bridge/daemon.json (without
 * XDG_RUNTIME_DIR: next to the default API socket, in $XDG_CONFIG_HOME/browser-bridge/): where the
 * running daemon listens -- its HTTP address, its Unix socket, its token file -- and its pid, so a
 * client finds a daemon started with flags (--http, --api-socket) without being told them. Written
 * atomically (a 0600 temporary file renamed over it) once the daemon's sockets are bound, removed
 * at a clean stop if it still names this process. A file whose pid is not running, or that is not
 * the user's own, is ignored.
 * runfile_write/runfile_remove: the daemon's main thread. runfile_apply: the client (main thread).
 */
#ifndef BB_RUNFILE_H
#define BB_RUNFILE_H

#include "config.h"

char *runfile_path(void);
int runfile_write(const struct config *cfg, int have_socket, char **err);
void runfile_remove(void);
int runfile_apply(struct config *cfg, int keep_http, int keep_socket, int keep_token);

#endif
