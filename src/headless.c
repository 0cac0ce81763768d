/* headless.c -- see headless.h. */
#include "autoconfig.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "config.h"
#include "headless.h"
#include "log.h"
#include "util.h"

extern char **environ;

#define RESTART_MAX_DELAY_MS 30000

struct headless {
	const struct config *cfg;
	char *dir;     /* private temporary directory: profile and the paired extension copy */
	char *ext_dir;
	char *profile;
	pid_t pid;
	int64_t restart_at;  /* monotonic ms; 0: running */
	int64_t delay;
	int64_t started_at;
};

/* Copy one regular file, keeping it private. */
static int
copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, rc = -1;
	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out < 0)
		goto done;
	char buf[65536];
	ssize_t n;
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n)
			goto done;
	rc = n < 0 ? -1 : 0;
done:
	close(in);
	if (out >= 0)
		close(out);
	return rc;
}

/* Copy a directory tree (the built extension), skipping hidden files. */
static int
copy_tree(const char *from, const char *to)
{
	if (mkdir(to, 0700) != 0 && errno != EEXIST)
		return -1;
	DIR *d = opendir(from);
	if (d == NULL)
		return -1;
	struct dirent *e;
	int rc = 0;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char *a = xasprintf("%s/%s", from, e->d_name), *b = xasprintf("%s/%s", to, e->d_name);
		struct stat st;
		if (stat(a, &st) == 0)
			rc = S_ISDIR(st.st_mode) ? copy_tree(a, b) : S_ISREG(st.st_mode) ? copy_file(a, b) : 0;
		free(a);
		free(b);
	}
	closedir(d);
	return rc;
}

/* nftw callback that removes everything it visits. */
static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* Pair the copy: write pairing.json and grant host access up front (nobody is there to click). */
static int
pair_copy(struct headless *h, const char *token, char **err)
{
	char *mpath = xasprintf("%s/manifest.json", h->ext_dir);
	json_error_t e;
	json_t *m = json_load_file(mpath, 0, &e);
	if (m == NULL) {
		*err = xasprintf("headless: %s is not a built extension (%s); build it with make, or pass --extension DIR",
		                 mpath, e.text);
		free(mpath);
		return -1;
	}
	json_t *opt = json_object_get(m, "optional_host_permissions");
	if (json_is_array(opt) && json_array_size(opt) > 0) {
		json_t *hp = json_object_get(m, "host_permissions");
		if (!json_is_array(hp)) {
			hp = json_array();
			json_object_set_new(m, "host_permissions", hp);
		}
		json_array_extend(hp, opt);
		json_object_del(m, "optional_host_permissions");
	}
	/* Likewise the optional permissions (the debugger: trusted input, see extension/README.md). */
	json_t *op = json_object_get(m, "optional_permissions"), *pm = json_object_get(m, "permissions");
	if (json_is_array(op) && json_is_array(pm)) {
		json_array_extend(pm, op);
		json_object_del(m, "optional_permissions");
	}
	int rc = json_dump_file(m, mpath, JSON_INDENT(2));
	json_decref(m);
	free(mpath);
	char *ppath = xasprintf("%s/pairing.json", h->ext_dir);
	json_t *p = json_pack("{s:o, s:s, s:s, s:b}", "wsUrl",
	                      json_sprintf("ws://%s:%d/ws/browser",
	                                   strchr(h->cfg->ws_host, ':') ? "[::1]" : h->cfg->ws_host, h->cfg->ws_port),
	                      "token", token, "clientId", "headless", "managed", 1);
	int fd = open(ppath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0) {
		rc |= json_dumpfd(p, fd, 0);
		close(fd);
	} else {
		rc = -1;
	}
	json_decref(p);
	free(ppath);
	if (rc != 0)
		*err = xasprintf("headless: cannot write the paired extension copy in %s", h->dir);
	return rc;
}

/* Launch Chromium once. */
static int
launch(struct headless *h)
{
	char *load = xasprintf("--load-extension=%s", h->ext_dir);
	char *except = xasprintf("--disable-extensions-except=%s", h->ext_dir);
	char *profile = xasprintf("--user-data-dir=%s", h->profile);
	const char *argv[24];
	int n = 0;
	argv[n++] = h->cfg->chromium;
	argv[n++] = "--headless=new";
	argv[n++] = "--no-first-run";
	argv[n++] = "--no-default-browser-check";
	argv[n++] = "--disable-background-networking";
	argv[n++] = "--disable-component-update";
	argv[n++] = "--disable-sync";
	argv[n++] = "--disable-gpu";
	argv[n++] = "--disable-features=DisableLoadExtensionCommandLineSwitch";
	argv[n++] = "--window-size=1280,800";
	argv[n++] = profile;
	argv[n++] = except;
	argv[n++] = load;
	if (geteuid() == 0)
		argv[n++] = "--no-sandbox";
	argv[n++] = "about:blank";
	argv[n] = NULL;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	char *logf = xasprintf("%s/chromium.log", h->dir);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, logf, O_WRONLY | O_CREAT | O_APPEND, 0600);
	posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
	posix_spawnattr_t at;
	posix_spawnattr_init(&at);
	sigset_t none;
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&at, 0);
	int rc = posix_spawn(&h->pid, h->cfg->chromium, &fa, &at, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	free(logf);
	free(load);
	free(except);
	free(profile);
	if (rc != 0) {
		log_error("headless: cannot start %s: %s", h->cfg->chromium, strerror(rc));
		h->pid = 0;
		return -1;
	}
	h->started_at = util_mono_ms();
	h->restart_at = 0;
	log_info("headless: started %s (pid %d)%s", h->cfg->chromium, (int)h->pid,
	         geteuid() == 0 ? " with --no-sandbox, because we run as root" : "");
	return 0;
}

/* Prepare a private profile and a paired copy of the extension, then launch. */
struct headless *
headless_start(const struct config *cfg, const char *token, char **err)
{
	if (access(cfg->chromium, X_OK) != 0) {
		*err = xasprintf("headless: %s is not an executable (install Debian's chromium, or pass --chromium)",
		                 cfg->chromium);
		return NULL;
	}
	struct headless *h = xcalloc(1, sizeof *h);
	h->cfg = cfg;
	const char *tmp = getenv("TMPDIR");
	char *tpl = xasprintf("%s/browser-bridge-headless-XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
	if (mkdtemp(tpl) == NULL) {
		*err = xasprintf("headless: cannot create a temporary directory: %s", strerror(errno));
		free(tpl);
		free(h);
		return NULL;
	}
	h->dir = tpl;
	h->ext_dir = xasprintf("%s/extension", h->dir);
	h->profile = xasprintf("%s/profile", h->dir);
	if (copy_tree(cfg->extension_dir, h->ext_dir) != 0) {
		*err = xasprintf("headless: cannot copy the extension from %s (build it with make, or pass --extension DIR)",
		                 cfg->extension_dir);
		headless_stop(h);
		return NULL;
	}
	if (pair_copy(h, token, err) != 0) {
		headless_stop(h);
		return NULL;
	}
	h->delay = 1000;
	if (launch(h) != 0)
		h->restart_at = util_mono_ms() + h->delay;
	return h;
}

/* Reap Chromium if it died and restart it with a growing delay (reset after a minute of running). */
void
headless_check(struct headless *h)
{
	if (h == NULL)
		return;
	int64_t now = util_mono_ms();
	if (h->pid > 0) {
		int st;
		pid_t r = waitpid(h->pid, &st, WNOHANG);
		if (r != h->pid)
			return;
		if (now - h->started_at > 60000)
			h->delay = 1000;
		log_warn("headless: Chromium exited (%s %d); restarting in %lld ms",
		         WIFSIGNALED(st) ? "signal" : "status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
		         (long long)h->delay);
		h->pid = 0;
		h->restart_at = now + h->delay;
		h->delay = h->delay * 2 > RESTART_MAX_DELAY_MS ? RESTART_MAX_DELAY_MS : h->delay * 2;
		return;
	}
	if (h->restart_at > 0 && now >= h->restart_at && launch(h) != 0)
		h->restart_at = now + h->delay;
}

/* Stop Chromium (TERM, then KILL after 3 s) and remove the temporary directory. NULL is fine. */
void
headless_stop(struct headless *h)
{
	if (h == NULL)
		return;
	if (h->pid > 0) {
		kill(-h->pid, SIGTERM);
		for (int i = 0; i < 300; i++) {
			if (waitpid(h->pid, NULL, WNOHANG) == h->pid) {
				h->pid = 0;
				break;
			}
			struct timespec ts = {0, 10 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
		if (h->pid > 0) {
			kill(-h->pid, SIGKILL);
			waitpid(h->pid, NULL, 0);
		}
		log_info("headless: Chromium stopped");
	}
	if (h->dir)
		nftw(h->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(h->dir);
	free(h->ext_dir);
	free(h->profile);
	free(h);
}
