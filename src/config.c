/* config.c -- see config.h. */
#include "autoconfig.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "limits.h"
#include "upload.h"
#include "util.h"

#include "config.h"

#ifndef PKGDATADIR
#define PKGDATADIR "/usr/local/share/browser-bridge"
#endif

#ifndef SYSCONFDIR
#define SYSCONFDIR "/usr/local/etc"
#endif

static int set_http(struct config *c, const char *v, char **err);
static int set_ws(struct config *c, const char *v, char **err);
static int set_origin(struct config *c, const char *v, char **err);
static int set_allow_host(struct config *c, const char *v, char **err);
static int set_log_level(struct config *c, const char *v, char **err);
static int set_fastcgi(struct config *c, const char *v, char **err);
static int set_api_socket(struct config *c, const char *v, char **err);
static int set_upload_dir(struct config *c, const char *v, char **err);

#define AT(field) .offset = offsetof(struct config, field)

/*
 * Every setting, once: the config file's key, serve's flag, the value's type and bounds, the
 * default and the help. The file parser, getopt_long, `serve --help` and the CLI's loader are
 * driven by this table (a test checks that etc/browser-bridge.conf and the man page list each).
 */
static const struct config_key keys[] = {
	{.key = "http", .type = CFG_CUSTOM, .set = set_http, .meta = "ADDR:PORT", .def = "127.0.0.1:8765",
	 .help = "HTTP API and dashboard; loopback only"},
	{.key = "ws", .type = CFG_CUSTOM, .set = set_ws, .meta = "ADDR:PORT", .def = "127.0.0.1:8766",
	 .help = "WebSocket for the extension; loopback only"},
	{.key = "db", .type = CFG_PATH, AT(db_path), .meta = "PATH",
	 .def_help = "$XDG_DATA_HOME/browser-bridge/history.db", .help = "history database"},
	{.key = "token_file", .type = CFG_PATH, AT(token_file), .meta = "PATH",
	 .def_help = "$XDG_CONFIG_HOME/browser-bridge/token; made on first start", .help = "pairing token"},
	{.key = "allow_origin", .type = CFG_CUSTOM, .set = set_origin, .meta = "ORIGIN", .def_help = BB_EXTENSION_ORIGIN,
	 .help = "WebSocket Origin to accept, repeatable; giving any replaces the default"},
	{.key = "allow_host", .type = CFG_CUSTOM, .set = set_allow_host, .meta = "HOST[:PORT]",
	 .help = "Host header to accept besides loopback names; repeatable"},
	{.key = "log_level", .type = CFG_CUSTOM, .set = set_log_level, .meta = "LEVEL", .def = "info",
	 .help = "error, warn, info or debug"},
	{.key = "max_message_bytes", .type = CFG_SIZE, AT(max_message_bytes), .meta = "N",
	 .min = BB_WS_MAX_MESSAGE_MIN, .max = BB_WS_MAX_MESSAGE_MAX, .num = BB_WS_MAX_MESSAGE_DEFAULT,
	 .help = "largest WebSocket message, in bytes"},
	{.key = "max_body_bytes", .type = CFG_SIZE, AT(max_body_bytes), .meta = "N", .min = BB_HTTP_MAX_BODY_MIN,
	 .max = BB_HTTP_MAX_BODY_MAX, .num = BB_HTTP_MAX_BODY_DEFAULT, .help = "largest HTTP request body, in bytes"},
	{.key = "retention_days", .type = CFG_LONG, AT(retention_days), .meta = "N", .min = 0,
	 .max = BB_RETENTION_MAX, .num = BB_RETENTION_DAYS_DEFAULT, .help = "drop history older than N days; 0 keeps all"},
	{.key = "retention_pages", .type = CFG_LONG, AT(retention_pages), .meta = "N", .min = 0,
	 .max = BB_RETENTION_MAX, .num = BB_RETENTION_PAGES_DEFAULT, .help = "keep at most N pages; 0: no limit"},
	{.key = "sync", .type = CFG_ENUM, AT(sync_full), .values = (const char *const[]){"normal", "full", NULL},
	 .meta = "normal|full", .def = "normal", .help = "full: survive power loss too, not only crashes"},
	{.key = "allow_file_urls", .type = CFG_BOOL, AT(allow_file_urls), .def = "no",
	 .help = "let browser_open_url open file:/// URLs (a page could then make the agent read local files)"},
	{.key = "headless", .type = CFG_BOOL, AT(headless), .def = "no",
	 .help = "also run and supervise a headless Chromium with the extension"},
	{.key = "headless_instances", .type = CFG_LONG, AT(headless_instances), .meta = "N", .min = 1,
	 .max = BB_HEADLESS_INSTANCES_MAX, .num = 1,
	 .help = "with --headless: run N isolated Chromiums, each session on one of them (serve --headless N)"},
	{.key = "default_runtime", .type = CFG_ENUM, AT(default_runtime),
	 .values = (const char *const[]){"auto", "desktop", "headless", NULL}, .meta = "auto|desktop|headless",
	 .def = "auto", .help = "which browser serves calls that name none: auto is the user's browser when one is "
	                        "connected, else the headless one"},
	{.key = "approve_sessions", .type = CFG_BOOL, AT(approve_sessions), .def = "no",
	 .help = "a new agent session waits until the user approves it in the popup or the dashboard"},
	{.key = "session_ttl", .type = CFG_LONG, AT(session_ttl), .meta = "SECONDS", .min = BB_SESSION_TTL_MIN_S,
	 .max = BB_SESSION_TTL_MAX_S, .num = BB_SESSION_TTL_DEFAULT_S,
	 .help = "an agent session idle this long expires and releases its tabs"},
	{.key = "chromium", .type = CFG_PATH, AT(chromium), .meta = "PATH", .def = "/usr/bin/chromium",
	 .help = "the Chromium binary for --headless"},
	{.key = "www", .type = CFG_PATH, AT(www_dir), .meta = "DIR", .def_help = PKGDATADIR "/www",
	 .help = "dashboard files"},
	{.key = "extension", .type = CFG_PATH, AT(extension_dir), .meta = "DIR", .def_help = PKGDATADIR "/extension",
	 .help = "built extension, for --headless"},
	{.key = "fastcgi", .type = CFG_CUSTOM, .set = set_fastcgi, .meta = "unix:PATH|ADDR:PORT",
	 .help = "also serve the API as a FastCGI responder"},
	{.key = "api_socket", .type = CFG_CUSTOM, .set = set_api_socket, .meta = "PATH|off",
	 .def_help = "$XDG_RUNTIME_DIR/browser-bridge/api.sock, else next to the token file",
	 .help = "the API for this user's CLI and MCP relay, no token needed"},
	{.key = "upload_dir", .type = CFG_CUSTOM, .set = set_upload_dir, .meta = "DIR", .def_help = "none",
	 .help = "browser_upload_file may send files beneath DIR to pages; repeatable"},
};

#define N_KEYS (sizeof keys / sizeof keys[0])

/* The table, for getopt_long, help texts and tests. */
const struct config_key *
config_keys(size_t *n)
{
	*n = N_KEYS;
	return keys;
}

/* A key's flag: the key with '-' for '_' (http -> --http, token_file -> --token-file). */
void
config_flag_name(const struct config_key *k, char *out, size_t outsz)
{
	snprintf(out, outsz, "%s", k->key);
	for (char *p = out; *p; p++)
		if (*p == '_')
			*p = '-';
}

/* Fill in the documented defaults (paths that depend on the environment come in config_finish). */
void
config_init(struct config *c)
{
	memset(c, 0, sizeof *c);
	for (size_t i = 0; i < N_KEYS; i++) {
		const struct config_key *k = &keys[i];
		char *err = NULL;
		if (k->type == CFG_SIZE)
			*(size_t *)((char *)c + k->offset) = (size_t)k->num;
		else if (k->type == CFG_LONG)
			*(long *)((char *)c + k->offset) = k->num;
		else if (k->def != NULL && config_set(c, k->key, k->def, &err) != 0)
			abort(); /* a built-in default that its own key refuses: a programming error */
	}
}

/* Replace a heap string setting. */
static void
set_str(char **slot, const char *v)
{
	free(*slot);
	*slot = xstrdup(v);
}

/* Parse yes/no style booleans strictly. */
static int
parse_bool(const char *v, int *out)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "on") || !strcmp(v, "1"))
		*out = 1;
	else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "off") || !strcmp(v, "0"))
		*out = 0;
	else
		return -1;
	return 0;
}

/* Parse ADDR:PORT and refuse anything that is not a loopback address: we never listen elsewhere. */
static int
set_listen(const char *key, const char *v, char *host, size_t hostsz, int *port, char **err)
{
	char h[64];
	int p;
	if (util_parse_hostport(v, h, sizeof h, &p) != 0) {
		*err = xasprintf("%s: expected ADDR:PORT with a port from 1 to 65535, got \"%s\"", key, v);
		return -1;
	}
	if (!util_is_loopback(h)) {
		*err = xasprintf("%s: refusing to listen on %s: Browser Bridge listens on loopback only "
		                 "(127.0.0.1 or [::1]); put a reverse proxy in front if you need more",
		                 key, h);
		return -1;
	}
	snprintf(host, hostsz, "%s", h);
	*port = p;
	return 0;
}

/* http = ADDR:PORT. */
static int
set_http(struct config *c, const char *v, char **err)
{
	return set_listen("http", v, c->http_host, sizeof c->http_host, &c->http_port, err);
}

/* ws = ADDR:PORT. */
static int
set_ws(struct config *c, const char *v, char **err)
{
	return set_listen("ws", v, c->ws_host, sizeof c->ws_host, &c->ws_port, err);
}

/* A WebSocket origin we accept must be a full scheme://host with no path, so matching stays exact. */
static int
valid_origin(const char *v)
{
	const char *p = strstr(v, "://");
	if (p == NULL || p == v || strlen(v) > BB_CONFIG_ORIGIN_MAX)
		return 0;
	for (const char *s = p + 3; *s; s++)
		if (*s == '/' || *s == ' ' || (unsigned char)*s < 0x21)
			return 0;
	return p[3] != '\0';
}

/* allow_origin: repeatable; the first one given replaces the default. */
static int
set_origin(struct config *c, const char *v, char **err)
{
	if (!valid_origin(v)) {
		*err = xasprintf("allow_origin: expected an exact origin like "
		                 "chrome-extension://<id> (scheme://host, no path), got \"%s\"", v);
		return -1;
	}
	if (!c->origins_set) {
		for (int i = 0; i < c->n_origins; i++)
			free(c->origins[i]);
		c->n_origins = 0;
		c->origins_set = 1;
	}
	if (c->n_origins >= BB_CONFIG_MAX_ORIGINS) {
		*err = xasprintf("allow_origin: at most %d origins", BB_CONFIG_MAX_ORIGINS);
		return -1;
	}
	c->origins[c->n_origins++] = xstrdup(v);
	return 0;
}

/* allow_host: repeatable. */
static int
set_allow_host(struct config *c, const char *v, char **err)
{
	if (strlen(v) == 0 || strlen(v) > BB_CONFIG_ORIGIN_MAX || strpbrk(v, " /\t") != NULL) {
		*err = xasprintf("allow_host: expected HOST:PORT as a browser sends it, got \"%s\"", v);
		return -1;
	}
	if (c->n_allow_hosts >= BB_CONFIG_MAX_ORIGINS) {
		*err = xasprintf("allow_host: at most %d hosts", BB_CONFIG_MAX_ORIGINS);
		return -1;
	}
	c->allow_hosts[c->n_allow_hosts++] = xstrdup(v);
	return 0;
}

/* log_level = error|warn|info|debug. */
static int
set_log_level(struct config *c, const char *v, char **err)
{
	if (log_parse_level(v, &c->log_level) != 0) {
		*err = xasprintf("log_level: expected error, warn, info or debug, got \"%s\"", v);
		return -1;
	}
	return 0;
}

/* fastcgi = unix:/path or a loopback ADDR:PORT. */
static int
set_fastcgi(struct config *c, const char *v, char **err)
{
	if (strncmp(v, "unix:", 5) != 0) {
		char h[64];
		int p;
		if (util_parse_hostport(v, h, sizeof h, &p) != 0 || !util_is_loopback(h)) {
			*err = xasprintf("fastcgi: expected unix:/path or a loopback ADDR:PORT, got \"%s\"", v);
			return -1;
		}
	} else if (strlen(v) <= strlen("unix:/") || strlen(v) > strlen("unix:") + BB_FCGI_UNIX_PATH_MAX) {
		*err = xasprintf("fastcgi: the socket path must be 1 to %d characters, got \"%s\"", BB_FCGI_UNIX_PATH_MAX, v);
		return -1;
	}
	set_str(&c->fastcgi, v);
	return 0;
}

/* api_socket = an absolute path, or off. */
static int
set_api_socket(struct config *c, const char *v, char **err)
{
	if (!strcmp(v, "off")) {
		free(c->api_socket);
		c->api_socket = NULL;
		c->api_socket_set = 1;
		return 0;
	}
	if (v[0] != '/' || strlen(v) >= BB_UNIX_PATH_MAX) {
		*err = xasprintf("api_socket: expected an absolute path of at most %d bytes, or off, got \"%s\"",
		                 BB_UNIX_PATH_MAX - 1, v);
		return -1;
	}
	set_str(&c->api_socket, v);
	c->api_socket_set = 1;
	return 0;
}

/* upload_dir: repeatable; an existing directory, kept as given and as its realpath (upload.c). */
static int
set_upload_dir(struct config *c, const char *v, char **err)
{
	char *norm, *real;
	if (c->n_upload_dirs_given >= BB_UPLOAD_DIRS_MAX) {
		*err = xasprintf("upload_dir: at most %d directories", BB_UPLOAD_DIRS_MAX);
		return -1;
	}
	if (upload_dir_ok(v, &norm, &real, err) != 0)
		return -1;
	c->n_upload_dirs_given++;
	c->upload_dirs[c->n_upload_dirs++] = norm;
	if (strcmp(norm, real) != 0)
		c->upload_dirs[c->n_upload_dirs++] = real;
	else
		free(real);
	return 0;
}

/* Look a key up in the table. */
const struct config_key *
config_find_key(const char *key)
{
	for (size_t i = 0; i < N_KEYS; i++)
		if (strcmp(keys[i].key, key) == 0)
			return &keys[i];
	return NULL;
}

/* Apply one key = value setting by its type in the table; the error names the key and what was expected. */
int
config_set(struct config *c, const char *key, const char *v, char **err)
{
	const struct config_key *k = config_find_key(key);
	if (k == NULL) {
		*err = xasprintf("unknown setting \"%s\" (see etc/browser-bridge.conf for the list)", key);
		return -1;
	}
	void *slot = (char *)c + k->offset;
	long n;
	int b;
	switch (k->type) {
	case CFG_CUSTOM: return k->set(c, v, err);
	case CFG_PATH:
		if (v[0] == '\0') {
			*err = xasprintf("%s: expected a path, got nothing", key);
			return -1;
		}
		set_str(slot, v);
		return 0;
	case CFG_SIZE:
		if (util_parse_long(v, k->min, k->max, &n) != 0) {
			*err = xasprintf("%s: expected a number of bytes from %ld to %ld, got \"%s\"", key, k->min, k->max, v);
			return -1;
		}
		*(size_t *)slot = (size_t)n;
		return 0;
	case CFG_LONG:
		if (util_parse_long(v, k->min, k->max, &n) != 0) {
			*err = xasprintf("%s: expected a whole number from %ld to %ld%s, got \"%s\"", key, k->min, k->max,
			                 k->min == 0 ? " (0 = no limit)" : "", v);
			return -1;
		}
		*(long *)slot = n;
		return 0;
	case CFG_BOOL:
		if (parse_bool(v, &b) != 0) {
			*err = xasprintf("%s: expected yes or no, got \"%s\"", key, v);
			return -1;
		}
		*(int *)slot = b;
		return 0;
	case CFG_ENUM:
		for (int i = 0; k->values[i]; i++)
			if (strcmp(k->values[i], v) == 0) {
				*(int *)slot = i;
				return 0;
			}
		struct buf list = {0};
		for (int i = 0; k->values[i]; i++)
			buf_printf(&list, "%s%s", i == 0 ? "" : k->values[i + 1] ? ", " : " or ", k->values[i]);
		*err = xasprintf("%s: expected %s, got \"%s\"", key, list.data, v);
		buf_free(&list);
		return -1;
	}
	return -1;
}

/* Trim spaces and tabs at both ends, in place. */
static char *
trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
		s[--n] = '\0';
	return s;
}

/* Read a key = value file; # starts a comment. Errors name the file and line. */
int
config_load_file(struct config *c, const char *path, int must_exist, char **err)
{
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		if (!must_exist && errno == ENOENT)
			return 0;
		*err = xasprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	char line[BB_CONFIG_LINE_MAX];
	int lineno = 0, rc = 0;
	while (fgets(line, sizeof line, f) != NULL) {
		lineno++;
		size_t len = strlen(line);
		if (len == sizeof line - 1 && line[len - 1] != '\n') {
			*err = xasprintf("%s:%d: line longer than %d bytes", path, lineno, BB_CONFIG_LINE_MAX - 2);
			rc = -1;
			break;
		}
		char *s = trim(line);
		if (*s == '\0' || *s == '#')
			continue;
		char *eq = strchr(s, '=');
		if (eq == NULL) {
			*err = xasprintf("%s:%d: expected key = value", path, lineno);
			rc = -1;
			break;
		}
		*eq = '\0';
		char *key = trim(s), *val = trim(eq + 1), *e2 = NULL;
		if (config_set(c, key, val, &e2) != 0) {
			*err = xasprintf("%s:%d: %s", path, lineno, e2);
			free(e2);
			rc = -1;
			break;
		}
	}
	fclose(f);
	return rc;
}

/* The config file read when --config is not given. */
static char *
config_default_file(void)
{
	return util_default_path("XDG_CONFIG_HOME", ".config", "browser-bridge.conf");
}

/* Defaults, then the settings file: `file` (which must exist), else the user's file, else the
 * installed sample (all comments unless an admin edited it). Flags and config_finish come after. */
int
config_load(struct config *c, const char *file, char **err)
{
	config_init(c);
	if (file != NULL)
		return config_load_file(c, file, 1, err);
	char *dflt = config_default_file();
	int rc = access(dflt, F_OK) == 0 ? config_load_file(c, dflt, 0, err)
	                                 : config_load_file(c, SYSCONFDIR "/browser-bridge/browser-bridge.conf", 0, err);
	free(dflt);
	return rc;
}

/* Fill environment-dependent defaults after the file and flags have had their say. */
int
config_finish(struct config *c, char **err)
{
	if (c->db_path == NULL)
		c->db_path = util_default_path("XDG_DATA_HOME", ".local/share", "history.db");
	if (c->token_file == NULL)
		c->token_file = util_default_path("XDG_CONFIG_HOME", ".config", "token");
	if (c->n_origins == 0)
		c->origins[c->n_origins++] = xstrdup(BB_EXTENSION_ORIGIN);
	if (c->headless) { /* the managed browser runs our own extension: never refuse it */
		int have = 0;
		for (int i = 0; i < c->n_origins; i++)
			have |= strcmp(c->origins[i], BB_EXTENSION_ORIGIN) == 0;
		if (!have && c->n_origins >= BB_CONFIG_MAX_ORIGINS) {
			*err = xasprintf("allow_origin: at most %d origins with --headless (its extension's origin is added)",
			                 BB_CONFIG_MAX_ORIGINS - 1);
			return -1;
		}
		if (!have)
			c->origins[c->n_origins++] = xstrdup(BB_EXTENSION_ORIGIN);
	}
	if (c->www_dir == NULL)
		c->www_dir = xstrdup(PKGDATADIR "/www");
	if (c->extension_dir == NULL)
		c->extension_dir = xstrdup(PKGDATADIR "/extension");
	if (c->api_socket == NULL && !c->api_socket_set) {
		/* The runtime directory when there is one (it is the user's own, 0700), else the config's. */
		const char *rt = getenv("XDG_RUNTIME_DIR");
		c->api_socket = rt != NULL && rt[0] == '/' ? xasprintf("%s/browser-bridge/api.sock", rt)
		                                           : util_default_path("XDG_CONFIG_HOME", ".config", "api.sock");
	}
	return 0;
}

/* Release every string the config owns. */
void
config_free(struct config *c)
{
	if (c == NULL)
		return;
	free(c->db_path);
	free(c->token_file);
	for (int i = 0; i < c->n_origins; i++)
		free(c->origins[i]);
	for (int i = 0; i < c->n_allow_hosts; i++)
		free(c->allow_hosts[i]);
	free(c->chromium);
	free(c->www_dir);
	free(c->extension_dir);
	free(c->fastcgi);
	free(c->api_socket);
	for (int i = 0; i < c->n_upload_dirs; i++)
		free(c->upload_dirs[i]);
	memset(c, 0, sizeof *c);
}

/*
 * A loopback name on any port (the DNS-rebinding check protects the host *name*; a front such as
 * nginx may listen on any port, and the port adds nothing), or exactly an --allow-host value.
 */
int
config_host_allowed(const struct config *c, const char *host)
{
	if (host == NULL)
		return 0;
	static const char *const loopback[] = {"127.0.0.1", "localhost", "[::1]"};
	for (size_t i = 0; i < sizeof loopback / sizeof loopback[0]; i++) {
		size_t n = strlen(loopback[i]);
		if (strncasecmp(host, loopback[i], n) != 0)
			continue;
		const char *p = host + n;
		if (*p == '\0')
			return 1;
		if (*p++ != ':' || *p == '\0' || strlen(p) > 5)
			continue;
		char *end;
		long port = strtol(p, &end, 10);
		if (*end == '\0' && p[0] >= '0' && p[0] <= '9' && port >= 1 && port <= 65535)
			return 1;
	}
	for (int i = 0; i < c->n_allow_hosts; i++)
		if (strcmp(host, c->allow_hosts[i]) == 0)
			return 1;
	return 0;
}
