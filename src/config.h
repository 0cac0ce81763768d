/*
 * config.h -- the daemon's settings: defaults, then the config file, then command-line flags.
 *
 * Main thread only, before the other threads start; afterwards the struct is read-only and may be
 * read from any thread.
 */
#ifndef BB_CONFIG_H
#define BB_CONFIG_H

#include <stddef.h>

#include "limits.h"
#include "log.h"

/* The extension's ID is pinned by the "key" in extension/manifest.json. */
#define BB_EXTENSION_ID "lpjafomjfpchgbopnmlebcocfkelgpgo"
#define BB_EXTENSION_ORIGIN "chrome-extension://" BB_EXTENSION_ID

struct config {
	char http_host[64];
	int http_port;
	char ws_host[64];
	int ws_port;
	char *db_path;
	char *token_file;
	char *origins[BB_CONFIG_MAX_ORIGINS];
	int n_origins;
	int origins_set; /* the user gave origins: they replace the default */
	char *allow_hosts[BB_CONFIG_MAX_ORIGINS]; /* extra Host values, e.g. an nginx front */
	int n_allow_hosts;
	enum log_level log_level;
	size_t max_message_bytes;
	size_t max_body_bytes;
	long retention_days;  /* 0: keep forever */
	long retention_pages; /* 0: no row limit */
	int sync_full;        /* PRAGMA synchronous=FULL: survive power loss, not only crashes */
	int headless;
	int allow_file_urls; /* open_url may open file: URLs (default off: a page could make us read files) */
	char *chromium;
	char *www_dir;
	char *extension_dir;
	char *fastcgi;
	char *api_socket;   /* the HTTP API on a Unix socket for same-user clients; NULL: none ("off") */
	int api_socket_set; /* given by the user (a failure to serve it is then fatal), not the default */
};

void config_init(struct config *c);
int config_set(struct config *c, const char *key, const char *value, char **err);
int config_load_file(struct config *c, const char *path, int must_exist, char **err);
int config_finish(struct config *c, char **err);
void config_free(struct config *c);
char *config_default_file(void);
/* Any thread: may a request with this Host header reach us (against DNS rebinding)? */
int config_host_allowed(const struct config *c, const char *host);

#endif
