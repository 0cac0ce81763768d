/* headless.c -- see headless.h. */
#include "autoconfig.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
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
#include "limits.h"
#include "log.h"
#include "util.h"

extern char **environ;

#define RESTART_MAX_DELAY_MS 30000

/* One managed Chromium: its own directory, profile, extension copy and client id. */
struct instance {
	const struct config *cfg;
	char *dir;     /* private temporary directory: profile, the paired extension copy, lock, pidfile */
	int lock_fd;   /* DIR/lock, flock-ed while we live: a directory nobody holds is stale */
	char client_id[32]; /* headless-<random>: each launch its own, so two never replace each other */
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
pair_copy(struct instance *h, const char *token, char **err)
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
	                      "token", token, "clientId", h->client_id, "managed", 1);
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
launch(struct instance *h)
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
	/* A mouse, as on the desktop the agent stands in for: headless Chromium reports no pointer, so
	 * (hover: hover) and (pointer: fine) were false there; Tailwind 4's hover: styles, daisyUI's
	 * dropdown-hover and MUI X's desktop date picker (a dialog otherwise) are chosen by them. */
	argv[n++] = "--blink-settings=primaryHoverType=2,availableHoverTypes=2,primaryPointerType=4,"
	            "availablePointerTypes=4";
	argv[n++] = profile;
	argv[n++] = except;
	argv[n++] = load;
	if (geteuid() == 0)
		argv[n++] = "--no-sandbox";
	argv[n++] = "about:blank";
	argv[n] = NULL;
	char *logf = xasprintf("%s/chromium.log", h->dir);
	pid_t parent = getpid();
	/* fork, not posix_spawn: the child must ask for SIGKILL when we die (PR_SET_PDEATHSIG), however we
	 * die, before it runs Chromium. Only async-signal-safe calls between fork and exec. */
	pid_t pid = fork();
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
			_exit(127); /* we died already, or cannot be tied to our life */
		setpgid(0, 0); /* its own process group: Chromium's helpers are stopped with it */
		int in = open("/dev/null", O_RDONLY), out = open(logf, O_WRONLY | O_CREAT | O_APPEND, 0600);
		if (in < 0 || out < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
		    dup2(out, STDERR_FILENO) < 0)
			_exit(127);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		execve(h->cfg->chromium, (char *const *)argv, environ);
		_exit(127);
	}
	int rc = pid < 0 ? errno : 0;
	h->pid = pid < 0 ? 0 : pid;
	free(logf);
	free(load);
	free(except);
	free(profile);
	if (rc != 0) {
		log_error("headless: cannot start %s: %s", h->cfg->chromium, strerror(rc));
		h->pid = 0;
		return -1;
	}
	setpgid(h->pid, h->pid); /* also from here, so kill(-pid) works whoever runs first */
	char *pidf = xasprintf("%s/chromium.pid", h->dir);
	FILE *pf = fopen(pidf, "w");
	if (pf != NULL) {
		fprintf(pf, "%d\n", (int)h->pid);
		fclose(pf);
	}
	free(pidf);
	h->started_at = util_mono_ms();
	h->restart_at = 0;
	log_info("headless: started %s (pid %d) as client %s%s", h->cfg->chromium, (int)h->pid, h->client_id,
	         geteuid() == 0 ? " with --no-sandbox, because we run as root" : "");
	return 0;
}

/* Whether process pid runs with dir in its command line (so a recycled pid is never killed). */
static int
runs_in(pid_t pid, const char *dir)
{
	char path[64], cmd[8192];
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, cmd, sizeof cmd - 1);
	close(fd);
	if (n <= 0)
		return 0;
	for (ssize_t i = 0; i < n; i++)
		if (cmd[i] == '\0')
			cmd[i] = ' ';
	cmd[n] = '\0';
	return strstr(cmd, dir) != NULL;
}

/* Remove what an earlier daemon that did not stop cleanly (kill -9, a crash) left in tmp: its
 * directory (the token is in there) and its Chromium, if that still runs. A directory whose lock a
 * live daemon holds is left alone. */
static void
remove_stale(const char *tmp)
{
	DIR *d = opendir(tmp);
	if (d == NULL)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "browser-bridge-headless-", 24) != 0)
			continue;
		char *dir = xasprintf("%s/%s", tmp, e->d_name), *lockf = xasprintf("%s/lock", dir);
		struct stat st;
		int fd = -1;
		if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
			goto next;
		fd = open(lockf, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0)
			goto next; /* a live daemon's */
		char *pidf = xasprintf("%s/chromium.pid", dir);
		FILE *pf = fopen(pidf, "r");
		int pid = 0;
		if (pf != NULL) {
			if (fscanf(pf, "%d", &pid) != 1)
				pid = 0;
			fclose(pf);
		}
		free(pidf);
		if (pid > 1 && runs_in((pid_t)pid, dir)) {
			kill(-(pid_t)pid, SIGKILL);
			kill((pid_t)pid, SIGKILL);
			log_warn("headless: killed Chromium (pid %d) left running by a daemon that did not stop cleanly", pid);
		}
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
		log_info("headless: removed the stale directory %s", dir);
	next:
		if (fd >= 0)
			close(fd);
		free(lockf);
		free(dir);
	}
	closedir(d);
}

static void instance_stop(struct instance *h);

/* Prepare a private profile and a paired copy of the extension, then launch. */
static struct instance *
instance_start(const struct config *cfg, const char *token, char **err)
{
	if (access(cfg->chromium, X_OK) != 0) {
		*err = xasprintf("headless: %s is not an executable (install Debian's chromium, or pass --chromium)",
		                 cfg->chromium);
		return NULL;
	}
	struct instance *h = xcalloc(1, sizeof *h);
	h->cfg = cfg;
	h->lock_fd = -1;
	unsigned char rnd[4];
	char hex[9];
	util_random(rnd, sizeof rnd);
	util_hex(rnd, sizeof rnd, hex);
	snprintf(h->client_id, sizeof h->client_id, "headless-%s", hex);
	const char *tmp = getenv("TMPDIR");
	tmp = tmp && *tmp == '/' ? tmp : "/tmp";
	char *tpl = xasprintf("%s/browser-bridge-headless-XXXXXX", tmp);
	if (mkdtemp(tpl) == NULL) {
		*err = xasprintf("headless: cannot create a temporary directory: %s", strerror(errno));
		free(tpl);
		free(h);
		return NULL;
	}
	h->dir = tpl;
	char *lockf = xasprintf("%s/lock", h->dir);
	h->lock_fd = open(lockf, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	free(lockf);
	if (h->lock_fd < 0 || flock(h->lock_fd, LOCK_EX | LOCK_NB) != 0) {
		*err = xasprintf("headless: cannot lock %s/lock: %s", h->dir, strerror(errno));
		instance_stop(h);
		return NULL;
	}
	h->ext_dir = xasprintf("%s/extension", h->dir);
	h->profile = xasprintf("%s/profile", h->dir);
	if (copy_tree(cfg->extension_dir, h->ext_dir) != 0) {
		*err = xasprintf("headless: cannot copy the extension from %s (build it with make, or pass --extension DIR)",
		                 cfg->extension_dir);
		instance_stop(h);
		return NULL;
	}
	if (pair_copy(h, token, err) != 0) {
		instance_stop(h);
		return NULL;
	}
	h->delay = 1000;
	if (launch(h) != 0)
		h->restart_at = util_mono_ms() + h->delay;
	return h;
}

/* Reap Chromium if it died and restart it with a growing delay (reset after a minute of running). */
static void
instance_check(struct instance *h)
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
static void
instance_stop(struct instance *h)
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
	if (h->lock_fd >= 0)
		close(h->lock_fd);
	free(h->dir);
	free(h->ext_dir);
	free(h->profile);
	free(h);
}

/* The pool: headless_instances Chromiums, each with its own profile and client id. */
struct headless {
	int n;
	struct instance *inst[BB_HEADLESS_INSTANCES_MAX];
};

/* Start cfg->headless_instances managed Chromiums (stale directories of earlier daemons are removed
 * first); NULL with *err when one cannot be prepared (those already started are stopped). */
struct headless *
headless_start(const struct config *cfg, const char *token, char **err)
{
	const char *tmp = getenv("TMPDIR");
	remove_stale(tmp && *tmp == '/' ? tmp : "/tmp");
	struct headless *p = xcalloc(1, sizeof *p);
	long n = cfg->headless_instances < 1 ? 1 : cfg->headless_instances;
	for (long i = 0; i < n && i < BB_HEADLESS_INSTANCES_MAX; i++) {
		if ((p->inst[p->n] = instance_start(cfg, token, err)) == NULL) {
			headless_stop(p);
			return NULL;
		}
		p->n++;
	}
	return p;
}

/* Supervise every instance (see instance_check). */
void
headless_check(struct headless *p)
{
	for (int i = 0; p != NULL && i < p->n; i++)
		instance_check(p->inst[i]);
}

/* The i-th instance's client id (borrowed while p lives), or NULL past the last: for the hub's pool. */
const char *
headless_client_id(const struct headless *p, int i)
{
	return p != NULL && i >= 0 && i < p->n ? p->inst[i]->client_id : NULL;
}

/* Stop every instance and remove their directories. NULL is fine. */
void
headless_stop(struct headless *p)
{
	if (p == NULL)
		return;
	for (int i = 0; i < p->n; i++)
		instance_stop(p->inst[i]);
	free(p);
}
