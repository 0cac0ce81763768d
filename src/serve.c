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
#include "store.h"
#include "tools.h"
#include "unixsock.h"
#include "util.h"
#include "ws.h"

#ifndef SYSCONFDIR
#define SYSCONFDIR "/usr/local/etc"
#endif

static const struct option long_opts[] = {
	{"config", required_argument, NULL, 'c'},
	{"http", required_argument, NULL, 'H'},
	{"ws", required_argument, NULL, 'W'},
	{"db", required_argument, NULL, 'd'},
	{"token-file", required_argument, NULL, 't'},
	{"allow-origin", required_argument, NULL, 'o'},
	{"allow-host", required_argument, NULL, 'A'},
	{"log-level", required_argument, NULL, 'l'},
	{"max-message-bytes", required_argument, NULL, 'm'},
	{"max-body-bytes", required_argument, NULL, 'b'},
	{"retention-days", required_argument, NULL, 'D'},
	{"retention-pages", required_argument, NULL, 'P'},
	{"sync", required_argument, NULL, 's'},
	{"headless", no_argument, NULL, 'x'},
	{"chromium", required_argument, NULL, 'C'},
	{"www", required_argument, NULL, 'w'},
	{"extension", required_argument, NULL, 'e'},
	{"fastcgi", required_argument, NULL, 'f'},
	{"api-socket", required_argument, NULL, 'U'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* Which config key each flag sets. */
static const char *
key_for(int opt)
{
	switch (opt) {
	case 'H': return "http";
	case 'W': return "ws";
	case 'd': return "db";
	case 't': return "token_file";
	case 'o': return "allow_origin";
	case 'A': return "allow_host";
	case 'l': return "log_level";
	case 'm': return "max_message_bytes";
	case 'b': return "max_body_bytes";
	case 'D': return "retention_days";
	case 'P': return "retention_pages";
	case 's': return "sync";
	case 'C': return "chromium";
	case 'w': return "www";
	case 'e': return "extension";
	case 'f': return "fastcgi";
	case 'U': return "api_socket";
	default: return NULL;
	}
}

/* `serve --help`: every flag with its default. */
static void
usage(FILE *f)
{
	fprintf(f,
	        "usage: browser-bridge serve [options]\n"
	        "\n"
	        "Run the daemon in the foreground (SIGINT, SIGTERM and SIGHUP stop it cleanly).\n"
	        "\n"
	        "  --config PATH           settings file (default $XDG_CONFIG_HOME/browser-bridge/browser-bridge.conf,\n"
	        "                          else " SYSCONFDIR "/browser-bridge/browser-bridge.conf)\n"
	        "  --http ADDR:PORT        HTTP API and dashboard (default 127.0.0.1:8765; loopback only)\n"
	        "  --ws ADDR:PORT          WebSocket for the extension (default 127.0.0.1:8766; loopback only)\n"
	        "  --db PATH               history database (default $XDG_DATA_HOME/browser-bridge/history.db)\n"
	        "  --token-file PATH       pairing token (default $XDG_CONFIG_HOME/browser-bridge/token; made on first start)\n"
	        "  --allow-origin ORIGIN   WebSocket Origin to accept, repeatable (default %s)\n"
	        "  --allow-host HOST[:PORT] Host header to accept besides loopback names; repeatable\n"
	        "  --log-level LEVEL       error, warn, info (default) or debug\n"
	        "  --max-message-bytes N   largest WebSocket message (default 16777216)\n"
	        "  --max-body-bytes N      largest HTTP request body (default 1048576)\n"
	        "  --retention-days N      drop history older than N days (default 90; 0 keeps all)\n"
	        "  --retention-pages N     keep at most N pages (default 100000; 0: no limit)\n"
	        "  --sync normal|full      full: survive power loss too, not only crashes (default normal)\n"
	        "  --headless              also run and supervise a headless Chromium with the extension\n"
	        "  --chromium PATH         the Chromium binary for --headless (default /usr/bin/chromium)\n"
	        "  --www DIR               dashboard files (default: the installed ones)\n"
	        "  --extension DIR         built extension, for --headless (default: the installed one)\n"
	        "  --fastcgi unix:PATH|ADDR:PORT  also serve the API as a FastCGI responder\n"
	        "  --api-socket PATH|off   the API for this user's CLI and MCP relay, no token needed (default\n"
	        "                          $XDG_RUNTIME_DIR/browser-bridge/api.sock, else next to the token file)\n"
	        "\n"
	        "Flags override the settings file; every key is described in\n"
	        SYSCONFDIR "/browser-bridge/browser-bridge.conf.\n",
	        BB_EXTENSION_ORIGIN);
}

/* Defaults, then the settings file, then the flags. *stop_at gets the index of the first operand. */
int
serve_load_config(struct config *cfg, int argc, char **argv, int *stop_at, char **err)
{
	config_init(cfg);
	const char *file = NULL;
	int opt;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+h", long_opts, NULL)) != -1) {
		if (opt == 'c')
			file = optarg;
		if (opt == 'h') {
			usage(stdout);
			exit(0);
		}
		if (opt == '?' || opt == ':') {
			*err = xasprintf("unknown or incomplete option \"%s\" (see browser-bridge serve --help)",
			                 argv[optind - 1]);
			return -1;
		}
	}
	char *dflt = NULL;
	if (file == NULL) {
		/* The user's file, else the installed sample (all comments unless an admin edited it). */
		file = dflt = config_default_file();
		if (access(dflt, F_OK) != 0)
			file = SYSCONFDIR "/browser-bridge/browser-bridge.conf";
	}
	int rc = config_load_file(cfg, file, dflt == NULL, err);
	free(dflt);
	if (rc != 0)
		return -1;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+h", long_opts, NULL)) != -1) {
		const char *key = key_for(opt);
		if (opt == 'x') {
			cfg->headless = 1;
		} else if (key != NULL) {
			char *e = NULL;
			if (config_set(cfg, key, optarg, &e) != 0) {
				*err = xasprintf("--%s", e);
				free(e);
				return -1;
			}
		}
	}
	*stop_at = optind;
	return config_finish(cfg, err);
}

/* Allow as many open files as the hard limit: each waiting call holds a socket. */
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
	int stop_at, rc = 1;
	struct auth *auth = NULL;
	struct store *store = NULL;
	struct events *events = NULL;
	struct loop *loop = NULL;
	struct ws *ws = NULL;
	struct hub *hub = NULL;
	struct tools *tools = NULL;
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
	headless_stop(hl);
	/* Stop taking requests, answer every waiting call, let the answers go out, then stop. */
	if (http)
		http_quiesce(http);
	unixsock_quiesce(usock);
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
