/*
 * config.h -- the daemon's settings: defaults, then the config file, then command-line flags, all
 * driven by one table of keys (config_keys: key, type, bounds, default, help) from which the file
 * parser, serve's getopt_long options and `serve --help` are made.
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
	long headless_instances; /* how many headless Chromiums --headless runs (a pool when more than 1) */
	int default_runtime;  /* enum hub_runtime: auto, desktop, headless */
	int approve_sessions; /* new agent sessions wait for the user's approval */
	long session_ttl;     /* seconds an idle agent session lives */
	int allow_file_urls; /* open_url may open file: URLs (default off: a page could make us read files) */
	char *chromium;
	char *www_dir;
	char *extension_dir;
	char *fastcgi;
	char *api_socket;   /* the HTTP API on a Unix socket for same-user clients; NULL: none ("off") */
	int api_socket_set; /* given by the user (a failure to serve it is then fatal), not the default */
	/* upload_dir, repeatable: each as given (normalized) and, when it differs, its realpath too */
	char *upload_dirs[2 * BB_UPLOAD_DIRS_MAX];
	int n_upload_dirs;
	int n_upload_dirs_given;
};

/* How a key's value is parsed and where it goes. */
enum config_type {
	CFG_CUSTOM, /* its own setter (addresses, origins, ...) */
	CFG_PATH,   /* a heap string at offset */
	CFG_SIZE,   /* a size_t at offset, from min to max */
	CFG_LONG,   /* a long at offset, from min to max */
	CFG_BOOL,   /* an int at offset: yes/no (the flag takes no value and means yes) */
	CFG_ENUM,   /* an int at offset: the index of the value in values[] */
};

struct config_key {
	const char *key;  /* in the file: max_message_bytes; the flag is the same with '-': --max-message-bytes */
	enum config_type type;
	size_t offset;    /* the field of struct config (not CFG_CUSTOM) */
	int (*set)(struct config *c, const char *v, char **err); /* CFG_CUSTOM */
	const char *const *values;                              /* CFG_ENUM, NULL-terminated */
	long min, max, num;  /* CFG_SIZE, CFG_LONG: bounds and default */
	const char *def;     /* other types: the default, applied by config_init; NULL: none */
	const char *def_help; /* the default as help says it, when it is computed (paths) */
	const char *meta;    /* the value's name in help: N, PATH, ADDR:PORT (NULL for CFG_BOOL) */
	const char *help;
};

const struct config_key *config_keys(size_t *n);
const struct config_key *config_find_key(const char *key);
void config_flag_name(const struct config_key *k, char *out, size_t outsz);
int config_load(struct config *c, const char *file, char **err);
void config_init(struct config *c);
int config_set(struct config *c, const char *key, const char *value, char **err);
int config_load_file(struct config *c, const char *path, int must_exist, char **err);
int config_finish(struct config *c, char **err);
void config_free(struct config *c);
/* Any thread: may a request with this Host header reach us (against DNS rebinding)? */
int config_host_allowed(const struct config *c, const char *host);

#endif
