/* doctor.c -- see doctor.h. */
#include "autoconfig.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "apiclient.h"
#include "auth.h"
#include "clierr.h"
#include "client.h"
#include "cliout.h"
#include "doctor.h"
#include "limits.h"
#include "util.h"

enum verdict { D_OK, D_FAIL, D_WARN, D_SKIP };

struct report {
	json_t *checks; /* what --json prints */
	int json, failed;
};

/* Record one check and, for a person, print its line: verdict, name, what was found, the fix. */
static void __attribute__((format(printf, 5, 6)))
check(struct report *r, enum verdict v, const char *name, const char *fix, const char *fmt, ...)
{
	static const char *const word[] = {"OK", "FAIL", "WARN", "SKIP"};
	static const char *const low[] = {"ok", "fail", "warn", "skip"};
	char detail[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	if (v == D_FAIL)
		r->failed = 1;
	json_t *c = json_pack("{s:s, s:s, s:s}", "check", name, "status", low[v], "detail", detail);
	if (fix != NULL && v != D_OK)
		json_object_set_new(c, "fix", json_string(fix));
	json_array_append_new(r->checks, c);
	if (r->json)
		return;
	printf("%-4s  %-9s ", word[v], name);
	cliout_put_clean(stdout, detail, 0);
	if (fix != NULL && v != D_OK) {
		printf(" -- fix: ");
		cliout_put_clean(stdout, fix, 0);
	}
	putchar('\n');
}

/* The token file: there, only the user's, and a valid token. The token itself is wiped at once. */
static void
check_token(struct report *r, const struct config *cfg)
{
	struct stat st;
	char *err = NULL, *fix = NULL;
	if (stat(cfg->token_file, &st) != 0) {
		check(r, D_FAIL, "token",
		      "run browser-bridge token (it creates one), then paste it in the extension's options",
		      "no token file at %s (%s)", cfg->token_file, strerror(errno));
		return;
	}
	if ((st.st_mode & 077) != 0) {
		fix = xasprintf("chmod 600 %s", cfg->token_file);
		check(r, D_FAIL, "token", fix, "%s is readable by other users (mode %03o)", cfg->token_file,
		      (unsigned)(st.st_mode & 0777));
		free(fix);
		return;
	}
	char *tok = auth_read_token(cfg->token_file, 0, &err);
	if (tok == NULL) {
		fix = xasprintf("remove %s and run browser-bridge token to make a new one (then pair again)",
				cfg->token_file);
		check(r, D_FAIL, "token", fix, "%s", err);
		free(fix);
		free(err);
		return;
	}
	explicit_bzero(tok, strlen(tok));
	free(tok);
	check(r, D_OK, "token", NULL, "%s (mode 600)", cfg->token_file);
}

/* One connected browser: its versions against ours, and whether it may read every site. */
static void
check_browser(struct report *r, json_t *b, const char *ext_dir)
{
	const char *id = json_string_value(json_object_get(b, "client_id"));
	const char *name = json_string_value(json_object_get(b, "browser"));
	const char *bv = json_string_value(json_object_get(b, "browser_version"));
	const char *ev = json_string_value(json_object_get(b, "extension_version"));
	json_t *sa = json_object_get(b, "site_access");
	char label[96];
	snprintf(label, sizeof label, "%s %s, extension %s (%s)", name ? name : "browser", bv ? bv : "?", ev ? ev : "?",
		 id ? id : "?");
	if (ev == NULL || strcmp(ev, BB_VERSION) != 0) {
		char *fix = xasprintf("update the extension to %s: in chrome://extensions, load or reload it from %s",
				      BB_VERSION, ext_dir ? ext_dir : "the installed extension directory");
		check(r, D_FAIL, "browser", fix, "%s: its extension is not version %s, the daemon's", label,
		      BB_VERSION);
		free(fix);
	} else if (json_is_false(sa)) {
		check(r, D_FAIL, "browser",
		      "open the extension's options page and click \"Allow on all sites\" (it may act only on tabs you "
		      "grant it otherwise)",
		      "%s: no site access", label);
	} else {
		check(r, D_OK, "browser", NULL, "%s: %s", label,
		      json_is_true(sa) ? "site access on all sites" : "site access not reported by this extension");
	}
}

/* What /api/status says: the daemon's version, its browsers and its database. */
/* serve --headless N: how many of its instances are connected, and the agent sessions placed on them. */
static void
check_pool(struct report *r, json_t *pool)
{
	size_t n = json_array_size(pool), up = 0, i;
	long long placed = 0;
	json_t *x;
	if (n == 0)
		return;
	struct buf down = {0};
	json_array_foreach(pool, i, x) {
		if (json_is_true(json_object_get(x, "connected")))
			up++;
		else
			buf_printf(&down, "%s%s", down.len ? ", " : "",
			           json_string_value(json_object_get(x, "client_id")) ?: "?");
		placed += (long long)json_integer_value(json_object_get(x, "sessions"));
	}
	if (up == n)
		check(r, D_OK, "pool", NULL, "%zu of %zu headless instances connected, %lld agent session%s placed on them",
		      up, n, placed, placed == 1 ? "" : "s");
	else
		check(r, up == 0 ? D_FAIL : D_WARN, "pool",
		      "see the daemon's log: each instance must start Chromium (the chromium setting) with the built "
		      "extension (the extension setting); the daemon restarts one that exits",
		      "%zu of %zu headless instances connected; not connected: %s", up, n, down.data);
	buf_free(&down);
}

/* The agent sessions (GET /api/sessions): those waiting for the user's approval need the user. */
static void
check_sessions(struct report *r, struct apiclient *c)
{
	struct apireply rep = {0};
	char *err = NULL;
	json_t *all = NULL;
	if (apiclient_call(c, "GET", "/api/sessions", "application/json", NULL, NULL, BB_CLIENT_QUICK_TIMEOUT_MS, &rep,
	                   &err) != 0 || rep.status != 200 || (all = json_loadb(rep.body, rep.len, 0, NULL)) == NULL) {
		if (rep.status != 404) /* 404: a daemon that keeps no sessions; nothing to check */
			check(r, D_WARN, "sessions", "see the daemon's log", "GET /api/sessions failed: %s",
			      err ? err : "an unexpected answer");
		goto out;
	}
	json_t *list = json_object_get(all, "sessions"), *x;
	size_t i, active = 0, pending = 0;
	struct buf names = {0};
	json_array_foreach(list, i, x) {
		const char *state = json_string_value(json_object_get(x, "state"));
		if (state != NULL && strcmp(state, "active") == 0)
			active++;
		if (state != NULL && strcmp(state, "pending") == 0) {
			pending++;
			buf_printf(&names, "%s\"%s\"", names.len ? ", " : "", json_string_value(json_object_get(x, "name")) ?: "?");
		}
	}
	long long ttl = (long long)json_integer_value(json_object_get(all, "session_ttl"));
	int approve = json_is_true(json_object_get(all, "approve_sessions"));
	if (pending > 0)
		check(r, D_WARN, "sessions",
		      "approve or decline them in the extension's popup or the dashboard's live view; their calls wait "
		      "until then",
		      "%zu agent session%s waiting for approval: %s", pending, pending == 1 ? "" : "s", names.data);
	else
		check(r, D_OK, "sessions", NULL, "%zu active agent session%s; new ones %s; idle ones end after %lld s", active,
		      active == 1 ? "" : "s", approve ? "wait for your approval" : "start without approval", ttl);
	buf_free(&names);
out:
	json_decref(all);
	free(err);
	free(rep.body);
}

static void
check_status(struct report *r, json_t *st)
{
	const char *ver = json_string_value(json_object_get(st, "version"));
	if (ver == NULL || strcmp(ver, BB_VERSION) != 0)
		check(r, D_FAIL, "daemon", "restart the daemon (browser-bridge serve) so it runs this version",
		      "browser-bridge %s at %s, but this client is %s", ver ? ver : "?",
		      json_string_value(json_object_get(st, "http")) ?: "?", BB_VERSION);
	else
		check(r, D_OK, "daemon", NULL, "browser-bridge %s at %s", ver,
		      json_string_value(json_object_get(st, "http")) ?: "?");
	json_t *browsers = json_object_get(st, "browsers"), *b;
	const char *ext_dir = json_string_value(json_object_get(st, "extension_dir"));
	if (json_array_size(browsers) == 0) {
		char *fix =
		    xasprintf("install the extension (chrome://extensions, Load unpacked: %s) and paste the token "
			      "from browser-bridge token in its options; or run the daemon with --headless",
			      ext_dir ? ext_dir : "the installed extension directory");
		check(r, D_FAIL, "browsers", fix, "no browser is connected");
		free(fix);
	} else {
		check(r, D_OK, "browsers", NULL, "%zu connected", json_array_size(browsers));
	}
	size_t i;
	json_array_foreach(browsers, i, b) check_browser(r, b, ext_dir);
	check_pool(r, json_object_get(st, "headless"));
	json_t *db = json_object_get(st, "database");
	const char *path = json_string_value(json_object_get(db, "path")) ?: "?";
	const char *fault = json_string_value(json_object_get(db, "fault"));
	const char *rerr = json_string_value(json_object_get(db, "error"));
	if (rerr != NULL || fault != NULL || json_is_false(json_object_get(db, "writable")))
		check(
		    r, D_FAIL, "history",
		    "free disk space, end whatever holds the database's write lock (a sqlite3 shell in a transaction), "
		    "and check the file's permissions; the daemon retries by itself",
		    "%s: %s", path,
		    rerr    ? rerr
		    : fault ? fault
			    : "cannot be written");
	else
		check(r, D_OK, "history", NULL, "%s: %lld pages, writable", path,
		      (long long)json_integer_value(json_object_get(db, "pages")));
}

/* With no daemon to ask: whether the database (or the directory it would be made in) is writable. */
static void
check_db_locally(struct report *r, const struct config *cfg)
{
	char *dir = xstrdup(cfg->db_path), *slash = strrchr(dir, '/');
	if (slash != NULL && slash != dir)
		*slash = '\0';
	const char *what = access(cfg->db_path, F_OK) == 0 ? cfg->db_path : dir;
	if (access(what, W_OK) == 0)
		check(r, D_OK, "history", NULL, "%s is writable (the daemon is not running to say more)", what);
	else if (errno == ENOENT && what == dir)
		check(r, D_OK, "history", NULL, "%s does not exist yet; the daemon creates it", cfg->db_path);
	else {
		char *fix = xasprintf("make %s writable for you, or choose another with --db", what);
		check(r, D_FAIL, "history", fix, "%s is not writable: %s", what, strerror(errno));
		free(fix);
	}
	free(dir);
}

/* `doctor`: every check, then the exit status (1 when one failed). */
int
doctor_run(const struct cli *o)
{
	struct report r = {json_array(), o->json, 0};
	struct apiclient c;
	char *err = NULL;
	int missing;
	if (o->npos > 0) {
		clierr("doctor", "bad_argument", "unexpected argument \"%s\"", o->pos[0]);
		json_decref(r.checks);
		return CLIENT_EXIT_USAGE;
	}
	if (apiclient_open(&c, &o->conn, 0, &missing, &err) != 0) {
		check(&r, D_FAIL, "settings",
		      "fix the settings file or the flag it names (browser-bridge serve --help)", "%s", err);
		free(err);
		apiclient_close(&c);
		goto out;
	}
	check(&r, D_OK, "settings", NULL, "%s",
	      o->conn.config ? o->conn.config : "defaults, the settings file and the running daemon's runtime file");
	check_token(&r, &c.cfg);
	/* The daemon: over its socket when there is one, else TCP with the token. */
	struct apireply rep = {0};
	json_t *st = NULL;
	if (c.sock == NULL)
		c.token = auth_read_token(c.cfg.token_file, 0, &err);
	free(err);
	err = NULL;
	if (c.sock == NULL && c.token == NULL) {
		check(&r, D_FAIL, "daemon", "fix the token file first (see above)",
		      "not asked: without its Unix socket the daemon needs the token");
	} else if (apiclient_call(&c, "GET", "/api/status", "application/json", NULL, NULL, BB_CLIENT_QUICK_TIMEOUT_MS,
				  &rep, &err) != 0) {
		check(&r, D_FAIL, "daemon",
		      "start it: browser-bridge serve (or pass --http ADDR:PORT / --api-socket PATH if it runs "
		      "elsewhere)",
		      "%s", err);
	} else if (rep.status == 401) {
		check(&r, D_FAIL, "daemon",
		      "pass the daemon's --token-file, or restart the daemon with this token file",
		      "the daemon refused the token in %s (HTTP 401)", c.cfg.token_file);
	} else if (rep.status != 200 || (st = json_loadb(rep.body, rep.len, 0, NULL)) == NULL) {
		check(&r, D_FAIL, "daemon", "see the daemon's log", "unexpected answer to GET /api/status (HTTP %d)",
		      rep.status);
	}
	free(err);
	/* The Unix socket: the way in without a token. */
	if (c.sock != NULL)
		check(&r, st ? D_OK : D_FAIL, "socket", "start the daemon (browser-bridge serve); it makes the socket",
		      "%s%s", c.sock, st ? " (the daemon runs as you; no token needed)" : " does not answer");
	else
		check(&r, D_FAIL, "socket",
		      "start the daemon (browser-bridge serve), or pass the --api-socket PATH it was started with",
		      "no daemon socket at %s%s", c.cfg.api_socket ? c.cfg.api_socket : "(none configured)",
		      st ? "; the CLI falls back to TCP with the token" : "");
	if (st != NULL) {
		check_status(&r, st);
		check_sessions(&r, &c);
	} else {
		check(&r, D_SKIP, "browsers", NULL, "not checked: no answer from the daemon");
		check_db_locally(&r, &c.cfg);
	}
	if (access(c.cfg.chromium, X_OK) == 0)
		check(&r, D_OK, "headless", NULL, "%s is there for --headless", c.cfg.chromium);
	else
		check(&r, D_WARN, "headless",
		      "only needed for --headless: install Chromium (apt install chromium) or set chromium = PATH",
		      "no Chromium at %s", c.cfg.chromium);
	json_decref(st);
	free(rep.body);
	apiclient_close(&c);
out:
	if (r.json) {
		json_t *all = json_pack("{s:b, s:s, s:O}", "ok", !r.failed, "version", BB_VERSION, "checks", r.checks);
		char *s = json_dumps(all, JSON_INDENT(2));
		printf("%s\n", s);
		free(s);
		json_decref(all);
		clierr_answered(); /* the checks say what failed */
	} else if (r.failed) {
		printf("\nSome checks failed; each FAIL line says what to do.\n");
	}
	json_decref(r.checks);
	return r.failed ? CLIENT_EXIT_TOOL_ERROR : CLIENT_EXIT_OK;
}
