/* serve.c -- see serve.h. */
#include "autoconfig.h"

#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "auth.h"
#include "cliout.h"
#include "config.h"
#include "events.h"
#include "fcgi.h"
#include "headless.h"
#include "http.h"
#include "hub.h"
#include "log.h"
#include "mcp.h"
#include "loop.h"
#include "router.h"
#include "serve.h"
#include "session.h"
#include "store.h"
#include "tools.h"
#include "runfile.h"
#include "unixsock.h"
#include "util.h"
#include "ws.h"

#ifndef SYSCONFDIR
#define SYSCONFDIR "/usr/local/etc"
#endif

/* getopt_long's options, made from the config table: option i sets key i; then --config and --help. */
#define OPT_CONFIG 0x1000
#define OPT_HELP 'h'
#define OPT_KEY 0x2000

struct opts {
	struct option o[64];
	char names[64][32];
};

/* Build serve's options from the config table. */
static void
make_opts(struct opts *t)
{
	size_t n, i;
	const struct config_key *k = config_keys(&n);
	if (n + 3 > sizeof t->o / sizeof t->o[0])
		abort(); /* the table outgrew the option array: a programming error, caught by any test */
	for (i = 0; i < n; i++) {
		config_flag_name(&k[i], t->names[i], sizeof t->names[i]);
		t->o[i] = (struct option){t->names[i], k[i].type == CFG_BOOL ? no_argument : required_argument, NULL,
		                          OPT_KEY + (int)i};
	}
	t->o[i++] = (struct option){"config", required_argument, NULL, OPT_CONFIG};
	t->o[i++] = (struct option){"help", no_argument, NULL, OPT_HELP};
	t->o[i] = (struct option){NULL, 0, NULL, 0};
}

/* `serve --help`: every flag with its default, from the config table. */
static void
usage(FILE *f)
{
	fprintf(f, "usage: browser-bridge serve [options]\n"
	           "\n"
	           "Run the daemon in the foreground (SIGINT, SIGTERM and SIGHUP stop it cleanly).\n"
	           "\n"
	           "  --config PATH         settings file (default\n"
	           "                        $XDG_CONFIG_HOME/browser-bridge/browser-bridge.conf, else\n"
	           "                        " SYSCONFDIR "/browser-bridge/browser-bridge.conf)\n");
	size_t n;
	const struct config_key *k = config_keys(&n);
	for (size_t i = 0; i < n; i++) {
		char name[32], *flag, *desc;
		config_flag_name(&k[i], name, sizeof name);
		flag = xasprintf("--%s%s%s", name, k[i].meta ? " " : "", k[i].meta ? k[i].meta : "");
		if (k[i].type == CFG_SIZE || k[i].type == CFG_LONG)
			desc = xasprintf("%s (%ld to %ld, default %ld)", k[i].help, k[i].min, k[i].max, k[i].num);
		else if (k[i].def_help != NULL || (k[i].def != NULL && k[i].type != CFG_BOOL))
			desc = xasprintf("%s (default %s)", k[i].help, k[i].def_help ? k[i].def_help : k[i].def);
		else
			desc = xstrdup(k[i].help);
		cliout_help_line(f, flag, desc);
		free(flag);
		free(desc);
	}
	fprintf(f, "\n"
	           "Flags override the settings file; every key is described in\n" SYSCONFDIR
	           "/browser-bridge/browser-bridge.conf.\n");
}

/* Whether the option just parsed is --headless and the next argument is a number: `serve
 * --headless N` is short for --headless --headless-instances N. */
static int
pool_size_follows(const char *key, int argc, char **argv)
{
	const char *v = optind < argc ? argv[optind] : NULL;
	return strcmp(key, "headless") == 0 && v != NULL && *v != '\0' && strspn(v, "0123456789") == strlen(v);
}

/* Defaults, then the settings file, then the flags. *stop_at gets the index of the first operand. */
int
serve_load_config(struct config *cfg, int argc, char **argv, int *stop_at, char **err)
{
	struct opts t;
	size_t n;
	const struct config_key *keys = config_keys(&n);
	const char *file = NULL;
	int opt;
	make_opts(&t);
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+h", t.o, NULL)) != -1) {
		if (opt == OPT_CONFIG)
			file = optarg;
		if (opt == OPT_HELP) {
			usage(stdout);
			exit(0);
		}
		if (opt >= OPT_KEY && (size_t)(opt - OPT_KEY) < n && pool_size_follows(keys[opt - OPT_KEY].key, argc, argv))
			optind++; /* --headless N: N is read in the second pass */
		if (opt == '?' || opt == ':') {
			config_init(cfg);
			*err = xasprintf("unknown or incomplete option \"%s\" (see browser-bridge serve --help)",
			                 argv[optind - 1]);
			return -1;
		}
	}
	if (config_load(cfg, file, err) != 0)
		return -1;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+h", t.o, NULL)) != -1) {
		if (opt < OPT_KEY || (size_t)(opt - OPT_KEY) >= n)
			continue;
		const struct config_key *k = &keys[opt - OPT_KEY];
		char *e = NULL;
		if (config_set(cfg, k->key, k->type == CFG_BOOL ? "yes" : optarg, &e) != 0) {
			*err = xasprintf("--%s", e); /* "--api_socket: expected ...", as scripts have seen it */
			free(e);
			return -1;
		}
		if (pool_size_follows(k->key, argc, argv) &&
		    config_set(cfg, "headless_instances", argv[optind++], &e) != 0) {
			*err = xasprintf("--headless N: %s", e);
			free(e);
			return -1;
		}
	}
	*stop_at = optind;
	return config_finish(cfg, err);
}

/* Allow as many open files as the hard limit: each waiting call holds a socket. */
/* session_ttl in ms, or BB_TEST_SESSION_TTL_MS when set (a test-only knob, like the other BB_TEST_*). */
static int64_t
session_ttl_ms(const struct config *cfg)
{
	const char *v = getenv("BB_TEST_SESSION_TTL_MS");
	long ms;
	if (v != NULL && util_parse_long(v, 50, 3600000, &ms) == 0)
		return ms;
	return (int64_t)cfg->session_ttl * 1000;
}

static void
raise_fd_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Run the daemon until SIGINT, SIGTERM or SIGHUP. */
int
serve_main(int argc, char **argv)
{
	struct config cfg;
	char *err = NULL;
	int stop_at, rc = 1, wrote_runfile = 0;
	struct auth *auth = NULL;
	struct store *store = NULL;
	struct events *events = NULL;
	struct loop *loop = NULL;
	struct ws *ws = NULL;
	struct hub *hub = NULL;
	struct tools *tools = NULL;
	struct sessions *sessions = NULL;
	struct router *router = NULL;
	struct mcp *mcp = NULL;
	struct http *http = NULL;
	struct fcgi *fcgi = NULL;
	struct headless *hl = NULL;
	struct unixsock *usock = NULL;

	if (serve_load_config(&cfg, argc, argv, &stop_at, &err) != 0) {
		fprintf(stderr, "browser-bridge serve: %s\n", err);
		free(err);
		config_free(&cfg);
		return 2;
	}
	if (stop_at < argc) {
		fprintf(stderr, "browser-bridge serve: unexpected argument \"%s\"\n", argv[stop_at]);
		config_free(&cfg);
		return 2;
	}
	log_set_level(cfg.log_level);
	raise_fd_limit();
	/* Few threads, one allocator arena each at most two: RSS stays near what is in use. */
	mallopt(M_ARENA_MAX, 2);
	signal(SIGPIPE, SIG_IGN);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP); /* the terminal that runs us closed: stop cleanly, as for SIGTERM */
	sigaddset(&set, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &set, NULL); /* every thread started below inherits this */

	if ((auth = auth_create(cfg.token_file, &err)) == NULL)
		goto fail;
	struct store_opts so = {cfg.retention_days, cfg.retention_pages, cfg.sync_full};
	if ((store = store_open(cfg.db_path, &so, &err)) == NULL)
		goto fail;
	events = events_create();
	if ((loop = loop_create(&err)) == NULL || (ws = ws_create(loop, &cfg, auth, events, &err)) == NULL)
		goto fail;
	events_on_join(events, ws_wake, ws); /* arms the heartbeat that releases dead subscribers */
	hub = hub_create(store, events, ws_wake, ws);
	ws_set_hub(ws, hub);
	tools = tools_create(hub, store, events);
	tools_allow_file_urls(tools, cfg.allow_file_urls);
	tools_set_upload_dirs(tools, cfg.upload_dirs, cfg.n_upload_dirs, cfg.max_message_bytes);
	hub_set_runtime(hub, (enum hub_runtime)cfg.default_runtime);
	sessions = session_create_hub(hub, events, ws_wake, ws, session_ttl_ms(&cfg), cfg.approve_sessions);
	tools_set_sessions(tools, sessions);
	mcp = mcp_create(tools);
	router = router_create(&cfg, auth, hub, store, events, tools, mcp);
	if ((http = http_start(&cfg, router, &err)) == NULL)
		goto fail;
	http_attach(http, loop);
	if (cfg.api_socket != NULL) {
		if ((usock = unixsock_open(cfg.api_socket, &err)) != NULL) {
			unixsock_attach(usock, loop, http);
		} else if (cfg.api_socket_set) {
			goto fail; /* the user asked for this socket */
		} else {
			log_warn("%s; the CLI and the MCP relay of this daemon need --http and its token", err);
			free(err);
			err = NULL;
		}
	}
	if (cfg.fastcgi) {
		if ((fcgi = fcgi_start(&cfg, router, &err)) == NULL)
			goto fail;
		fcgi_attach(fcgi, loop);
	}
	/* Said before the loop serves anything (every socket is bound by now), so whoever sees an
	 * answer has the log lines too. */
	log_info("browser-bridge %s: HTTP on http://%s:%d, WebSocket on ws://%s:%d/ws/browser, history in %s",
	         BB_VERSION, cfg.http_host, cfg.http_port, cfg.ws_host, cfg.ws_port, cfg.db_path);
	for (int i = 0; i < cfg.n_origins; i++)
		log_info("accepting browsers from origin %s", cfg.origins[i]);
	if (cfg.fastcgi)
		log_info("FastCGI responder on %s", cfg.fastcgi);
	if (usock)
		log_info("API for this user (CLI, MCP relay) on the Unix socket %s", cfg.api_socket);
	if (loop_start(loop, &err) != 0)
		goto fail;
	char *rferr = NULL; /* the runtime file: how clients find a daemon started with flags */
	if (runfile_write(&cfg, usock != NULL, &rferr) == 0)
		wrote_runfile = 1;
	else
		log_warn("%s; clients need --http or --api-socket to find this daemon", rferr);
	free(rferr);
	if (isatty(STDOUT_FILENO)) {
		/* A one-time code, not the token: the link ends up in the browser's history. Terminal only. */
		char code[2 * BB_LOGIN_CODE_BYTES + 1];
		router_login_code(router, code);
		printf("\n  Dashboard: http://%s:%d/login?code=%s\n  (works once, for %d minutes; "
		       "browser-bridge login-url prints a new one)\n\n",
		       strchr(cfg.http_host, ':') ? "[::1]" : cfg.http_host, cfg.http_port, code, BB_LOGIN_CODE_TTL_S / 60);
		fflush(stdout);
	} else {
		log_info("dashboard: run `browser-bridge login-url` for the login link");
	}
	if (cfg.headless && geteuid() == 0) {
		/* Said where the user looks, not only in the log: as root, Chromium runs without its sandbox. */
		fprintf(stderr, "browser-bridge serve: WARNING: running as root, so the headless Chromium runs with "
		                "--no-sandbox: a page that exploits the browser gets root. Run browser-bridge as a "
		                "normal user.\n");
		log_warn("running as root: the headless Chromium has no sandbox; run as a normal user");
	}
	if (cfg.headless && (hl = headless_start(&cfg, auth_token(auth), &err)) == NULL)
		goto fail;
	if (hl != NULL) { /* the hub spreads sessions across the pool's instances */
		const char *ids[BB_HEADLESS_INSTANCES_MAX];
		int n = 0;
		while (n < BB_HEADLESS_INSTANCES_MAX && (ids[n] = headless_client_id(hl, n)) != NULL)
			n++;
		hub_set_pool(hub, ids, n);
	}

	for (;;) {
		int sig = 0;
		struct timespec tmo = {1, 0};
		siginfo_t si;
		sig = sigtimedwait(&set, &si, hl ? &tmo : NULL);
		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
			log_info("%s: shutting down", sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "SIGTERM");
			break;
		}
		if (hl)
			headless_check(hl);
	}
	rc = 0;
fail:
	if (err) {
		log_error("%s", err);
		free(err);
	}
	if (wrote_runfile)
		runfile_remove(); /* first: a client must not look for a daemon that is going away */
	headless_stop(hl);
	/* Stop taking requests, answer every waiting call, let the answers go out, then stop. */
	if (http)
		http_quiesce(http);
	unixsock_quiesce(usock);
	if (sessions)
		session_shutdown(sessions);
	if (hub)
		hub_shutdown(hub);
	events_close_all(events);
	fcgi_stop(fcgi);
	http_drain(http);
	ws_stop(ws);
	loop_stop(loop);
	http_free(http);
	unixsock_free(usock);
	fcgi_free(fcgi);
	loop_free(loop); /* closes the browsers' connections left: before ws_free */
	ws_free(ws);
	router_free(router);
	mcp_free(mcp);
	tools_free(tools);
	session_free(sessions);
	hub_free(hub);
	if (store_close(store) != 0)
		rc = 1; /* something could not be stored or checkpointed: logged, and not a clean stop */
	events_free(events);
	auth_free(auth);
	if (rc == 0)
		log_info("stopped cleanly");
	config_free(&cfg);
	return rc;
}
