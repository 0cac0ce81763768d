/* main.c -- `browser-bridge COMMAND`: the daemon (serve) and its client commands. */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "apiclient.h"
#include "auth.h"
#include "cli.h"
#include "clierr.h"
#include "client.h"
#include "config.h"
#include "runfile.h"
#include "serve.h"
#include "util.h"

/* Top-level help. */
static void
usage(FILE *f)
{
	fprintf(f,
	        "usage: browser-bridge COMMAND [options]\n"
	        "\n"
	        "Let AI agents see and act in your own browser, safely, from one localhost daemon.\n"
	        "\n"
	        "  serve        run the daemon (see browser-bridge serve --help)\n"
	        "  token        print the pairing token (creating it if needed)\n"
	        "  login-url    print a one-time dashboard login link (asks the running daemon)\n");
	cli_usage_list(f);
	fprintf(f,
	        "  version      print the version\n"
	        "\n"
	        "Every command takes --help. Settings come from --config PATH or\n"
	        "$XDG_CONFIG_HOME/browser-bridge/browser-bridge.conf, then flags.\n");
}

/* `token` and `login-url`: read (or create) the token with the same settings the daemon uses. */
static int
token_main(int argc, char **argv, int url)
{
	struct config cfg;
	char *err = NULL;
	int stop_at;
	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		printf(url ? "usage: browser-bridge login-url [--config PATH] [--token-file PATH] [--http ADDR:PORT]\n"
		             "Ask the running daemon for a dashboard login link and print it. The link works once,\n"
		             "for five minutes, and does not contain the token.\n"
		           : "usage: browser-bridge token [--config PATH] [--token-file PATH]\n"
		             "Print the pairing token, creating the token file (mode 0600) if it does not exist.\n"
		             "Paste it into the extension's options page.\n");
		return 0;
	}
	if (serve_load_config(&cfg, argc, argv, &stop_at, &err) != 0 || stop_at < argc) {
		fprintf(stderr, "browser-bridge %s: %s\n", argv[0], err ? err : "unexpected argument");
		free(err);
		config_free(&cfg);
		return 2;
	}
	/* Like the client commands: the running daemon's runtime file names its token file and address,
	 * unless the command line names them. */
	int given = 0, tokf = 0;
	for (int i = 1; i < argc; i++) {
		static const char *const names[] = {"--config", "--http", "--api-socket"};
		for (int k = 0; k < 3; k++)
			given |= !strncmp(argv[i], names[k], strlen(names[k])) &&
			         (argv[i][strlen(names[k])] == '\0' || argv[i][strlen(names[k])] == '=');
		tokf |= !strcmp(argv[i], "--token-file") || !strncmp(argv[i], "--token-file=", 13);
	}
	if (!given)
		runfile_apply(&cfg, 0, 0, tokf);
	char *tok = auth_read_token(cfg.token_file, 1, &err);
	if (tok == NULL) {
		fprintf(stderr, "browser-bridge %s: %s\n", argv[0], err);
		free(err);
		config_free(&cfg);
		return 1;
	}
	int rc = 0;
	if (url) {
		char *link = NULL;
		/* Like the other commands: an explicit --http without --api-socket means that daemon, over TCP. */
		int http = 0, sock = 0;
		for (int i = 1; i < argc; i++) {
			http |= !strcmp(argv[i], "--http") || !strncmp(argv[i], "--http=", 7);
			sock |= !strcmp(argv[i], "--api-socket") || !strncmp(argv[i], "--api-socket=", 13);
		}
		if (apiclient_login_url(&cfg, tok, http && !sock, &link, &err) == 0) {
			printf("%s\n", link);
		} else {
			fprintf(stderr, "browser-bridge %s: %s\n", argv[0], err);
			rc = CLIENT_EXIT_DAEMON;
		}
		free(link);
		free(err);
	} else {
		printf("%s\n", tok);
	}
	explicit_bzero(tok, strlen(tok));
	free(tok);
	config_free(&cfg);
	return rc;
}

/* Dispatch to the daemon, the token helpers or a client command. */
int
main(int argc, char **argv)
{
	/* jansson allocates through the aborting allocator like the rest of us: out of memory is an abort,
	 * never a NULL that json_pack or json_object_set_new would quietly turn into a missing member. */
	json_set_alloc_funcs(xmalloc, free);
	if (argc == 3 && !strcmp(argv[1], "help") && argv[2][0] != '-') { /* help CMD: the same as CMD --help */
		static char flag[] = "--help";
		char *again[] = {argv[0], argv[2], flag, NULL};
		return main(3, again);
	}
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "serve"))
		return serve_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "token"))
		return token_main(argc - 1, argv + 1, 0);
	if (!strcmp(cmd, "login-url"))
		return token_main(argc - 1, argv + 1, 1);
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("browser-bridge %s\n", BB_VERSION);
		return 0;
	}
	if (client_is_command(cmd))
		return client_main(argc - 1, argv + 1);
	clierr_init(argc - 1, argv + 1);
	const char *near = cli_suggest_command(cmd);
	if (near != NULL)
		clierr(NULL, "unknown_command", "unknown command \"%s\"; did you mean %s? (see browser-bridge --help)", cmd,
		       near);
	else
		clierr(NULL, "unknown_command", "unknown command \"%s\" (see browser-bridge --help)", cmd);
	return clierr_finish(2);
}
