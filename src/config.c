/* config.c -- see config.h. */
#include "autoconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "limits.h"
#include "util.h"

#include "config.h"

#ifndef PKGDATADIR
#define PKGDATADIR "/usr/local/share/browser-bridge"
#endif

/* Fill in the documented defaults (paths that depend on the environment come in config_finish). */
void
config_init(struct config *c)
{
	memset(c, 0, sizeof *c);
	snprintf(c->http_host, sizeof c->http_host, "127.0.0.1");
	c->http_port = 8765;
	snprintf(c->ws_host, sizeof c->ws_host, "127.0.0.1");
	c->ws_port = 8766;
	c->log_level = LOG_INFO;
	c->max_message_bytes = BB_WS_MAX_MESSAGE_DEFAULT;
	c->max_body_bytes = BB_HTTP_MAX_BODY_DEFAULT;
	c->retention_days = 90;
	c->retention_pages = 100000;
	c->chromium = xstrdup("/usr/bin/chromium");
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

/* Parse a byte size in [min, max]. */
static int
set_size(const char *key, const char *v, size_t min, size_t max, size_t *out, char **err)
{
	long n;
	if (util_parse_long(v, (long)min, (long)max, &n) != 0) {
		*err = xasprintf("%s: expected a number of bytes from %zu to %zu, got \"%s\"", key, min, max, v);
		return -1;
	}
	*out = (size_t)n;
	return 0;
}

/* A WebSocket origin we accept must be a full scheme://host with no path, so matching stays exact. */
static int
valid_origin(const char *v)
{
	const char *p = strstr(v, "://");
	if (p == NULL || p == v || strlen(v) > 200)
		return 0;
	for (const char *s = p + 3; *s; s++)
		if (*s == '/' || *s == ' ' || (unsigned char)*s < 0x21)
			return 0;
	return p[3] != '\0';
}

/* Apply one key = value setting; the error names the key and what was expected. */
int
config_set(struct config *c, const char *key, const char *v, char **err)
{
	long n;
	int b;
	if (!strcmp(key, "http"))
		return set_listen(key, v, c->http_host, sizeof c->http_host, &c->http_port, err);
	if (!strcmp(key, "ws"))
		return set_listen(key, v, c->ws_host, sizeof c->ws_host, &c->ws_port, err);
	if (!strcmp(key, "db")) {
		set_str(&c->db_path, v);
		return 0;
	}
	if (!strcmp(key, "token_file")) {
		set_str(&c->token_file, v);
		return 0;
	}
	if (!strcmp(key, "allow_origin")) {
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
	if (!strcmp(key, "allow_host")) {
		if (strlen(v) == 0 || strlen(v) > 200 || strpbrk(v, " /\t") != NULL) {
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
	if (!strcmp(key, "log_level")) {
		if (log_parse_level(v, &c->log_level) != 0) {
			*err = xasprintf("log_level: expected error, warn, info or debug, got \"%s\"", v);
			return -1;
		}
		return 0;
	}
	if (!strcmp(key, "max_message_bytes"))
		return set_size(key, v, BB_WS_MAX_MESSAGE_MIN, BB_WS_MAX_MESSAGE_MAX, &c->max_message_bytes, err);
	if (!strcmp(key, "max_body_bytes"))
		return set_size(key, v, BB_HTTP_MAX_BODY_MIN, BB_HTTP_MAX_BODY_MAX, &c->max_body_bytes, err);
	if (!strcmp(key, "retention_days") || !strcmp(key, "retention_pages")) {
		if (util_parse_long(v, 0, 1000000000L, &n) != 0) {
			*err = xasprintf("%s: expected a whole number >= 0 (0 = no limit), got \"%s\"", key, v);
			return -1;
		}
		if (key[10] == 'd')
			c->retention_days = n;
		else
			c->retention_pages = n;
		return 0;
	}
	if (!strcmp(key, "sync")) {
		if (strcmp(v, "normal") && strcmp(v, "full")) {
			*err = xasprintf("sync: expected normal or full, got \"%s\"", v);
			return -1;
		}
		c->sync_full = v[0] == 'f';
		return 0;
	}
	if (!strcmp(key, "headless")) {
		if (parse_bool(v, &b) != 0) {
			*err = xasprintf("headless: expected yes or no, got \"%s\"", v);
			return -1;
		}
		c->headless = b;
		return 0;
	}
	if (!strcmp(key, "allow_file_urls")) {
		if (parse_bool(v, &b) != 0) {
			*err = xasprintf("allow_file_urls: expected yes or no, got \"%s\"", v);
			return -1;
		}
		c->allow_file_urls = b;
		return 0;
	}
	if (!strcmp(key, "chromium")) {
		set_str(&c->chromium, v);
		return 0;
	}
	if (!strcmp(key, "www")) {
		set_str(&c->www_dir, v);
		return 0;
	}
	if (!strcmp(key, "extension")) {
		set_str(&c->extension_dir, v);
		return 0;
	}
	if (!strcmp(key, "fastcgi")) {
		if (strncmp(v, "unix:", 5) != 0) {
			char h[64];
			int p;
			if (util_parse_hostport(v, h, sizeof h, &p) != 0 || !util_is_loopback(h)) {
				*err = xasprintf("fastcgi: expected unix:/path or a loopback ADDR:PORT, got \"%s\"", v);
				return -1;
			}
		} else if (strlen(v) < 7 || strlen(v) > 100) {
			*err = xasprintf("fastcgi: the socket path must be 1 to 95 characters, got \"%s\"", v);
			return -1;
		}
		set_str(&c->fastcgi, v);
		return 0;
	}
	if (!strcmp(key, "api_socket")) {
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
	*err = xasprintf("unknown setting \"%s\" (see etc/browser-bridge.conf for the list)", key);
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
char *
config_default_file(void)
{
	return util_default_path("XDG_CONFIG_HOME", ".config", "browser-bridge.conf");
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
