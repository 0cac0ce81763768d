/* client.c -- see client.h. (Being written.) */
#include "autoconfig.h"

#include <stdio.h>
#include <string.h>

#include "client.h"

/* Whether name is a client subcommand. */
int
client_is_command(const char *name)
{
	(void)name;
	return 0;
}

/* Run a client subcommand. */
int
client_main(int argc, char **argv)
{
	(void)argc;
	fprintf(stderr, "browser-bridge: unknown command \"%s\"\n", argv[0]);
	return CLIENT_EXIT_USAGE;
}

/* List the client subcommands in the top-level help. */
void
client_usage_list(void)
{
}
