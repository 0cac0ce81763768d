/* runfile.c -- see runfile.h. */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "runfile.h"
#include "util.h"

/* Largest runtime file read: three paths and an address. */
#define RUNFILE_MAX_BYTES 16384

/* The runtime file's path (caller frees): the runtime directory when there is one, else the
 * directory the default API socket falls back to. */
char *
runfile_path(void)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	return rt != NULL && rt[0] == '/' ? xasprintf("%s/browser-bridge/daemon.json", rt)
					  : util_default_path("XDG_CONFIG_HOME", ".config", "daemon.json");
}

/* Write the runtime file for this daemon: a temporary file (0600) in the same directory, renamed
 * over the old one, so a reader sees the old file or the new one, never half. -1 with *err. */
int
runfile_write(const struct config *cfg, int have_socket, char **err)
{
	char *path = runfile_path(), *dir = xstrdup(path), *tmp = NULL, *text = NULL;
	int fd = -1, rc = -1;
	*strrchr(dir, '/') = '\0';
	int v6 = strchr(cfg->http_host, ':') != NULL;
	json_t *o =
	    json_pack("{s:I, s:s, s:o, s:s, s:i, s:s}", "pid", (json_int_t)getpid(), "version", BB_VERSION, "http",
		      json_sprintf("%s%s%s:%d", v6 ? "[" : "", cfg->http_host, v6 ? "]" : "", cfg->http_port),
		      "http_host", cfg->http_host, "http_port", cfg->http_port, "token_file", cfg->token_file);
	json_object_set_new(o, "api_socket", have_socket ? json_string(cfg->api_socket) : json_null());
	text = json_dumps(o, JSON_INDENT(2));
	if (util_mkdirs(dir, 0700) != 0) {
		*err = xasprintf("cannot create %s: %s", dir, strerror(errno));
		goto fail;
	}
	tmp = xasprintf("%s.XXXXXX", path);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) { /* mkostemp makes it 0600 */
		*err = xasprintf("cannot create %s: %s", tmp, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto fail;
	}
	size_t len = strlen(text);
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, text + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*err = xasprintf("cannot write %s: %s", tmp, strerror(errno));
			goto fail;
		}
		off += (size_t)n;
	}
	if (write(fd, "\n", 1) != 1 || close(fd) != 0) {
		fd = -1;
		*err = xasprintf("cannot write %s: %s", tmp, strerror(errno));
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) != 0) {
		*err = xasprintf("cannot rename %s to %s: %s", tmp, path, strerror(errno));
		goto fail;
	}
	free(tmp);
	tmp = NULL;
	rc = 0;
fail:
	if (fd >= 0)
		close(fd);
	if (tmp != NULL) {
		unlink(tmp);
		free(tmp);
	}
	free(text);
	json_decref(o);
	free(dir);
	free(path);
	return rc;
}

/* Read and check the runtime file: NULL when there is none, it is not ours (owner, mode), too
 * large, not a JSON object with a pid, or that pid is not running. */
static json_t *
runfile_read(void)
{
	char *path = runfile_path();
	json_t *o = NULL;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	free(path);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) != 0 ||
	    st.st_size > RUNFILE_MAX_BYTES) {
		close(fd);
		return NULL;
	}
	o = json_loadfd(fd, 0, NULL);
	close(fd);
	json_t *pid = json_object_get(o, "pid");
	if (!json_is_integer(pid) || json_integer_value(pid) <= 0 || json_integer_value(pid) > (json_int_t)INT32_MAX ||
	    (kill((pid_t)json_integer_value(pid), 0) != 0 && errno == ESRCH)) {
		json_decref(o); /* a daemon that died without cleaning up: its addresses mean nothing */
		return NULL;
	}
	return o;
}

/* Remove the runtime file at a clean stop, if it is this daemon's (another may have started since). */
void
runfile_remove(void)
{
	json_t *o = runfile_read();
	if (o != NULL && json_integer_value(json_object_get(o, "pid")) == (json_int_t)getpid()) {
		char *path = runfile_path();
		unlink(path);
		free(path);
	}
	json_decref(o);
}

/* Point the client's settings at the running daemon the runtime file names, for each setting the
 * user did not give as a flag (keep_*): 1 when the file was used, 0 when there is none to use. */
int
runfile_apply(struct config *cfg, int keep_http, int keep_socket, int keep_token)
{
	json_t *o = runfile_read();
	if (o == NULL)
		return 0;
	const char *keys[] = {"http", "api_socket", "token_file"};
	int keep[] = {keep_http, keep_socket, keep_token};
	for (int i = 0; i < 3; i++) {
		const char *v = json_string_value(json_object_get(o, keys[i]));
		char *e = NULL;
		if (!keep[i] && v != NULL && config_set(cfg, keys[i], v, &e) != 0)
			free(e); /* a value the settings refuse is not used; the setting keeps its value */
	}
	json_decref(o);
	return 1;
}
