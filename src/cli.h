/*
 * cli.h -- the command line of the client commands, parsed and explained from the tool catalog:
 * each tool with a CLI name is a command whose operands are its TP_POSITIONAL parameters and whose
 * --flags are its other parameters (booleans also as --no-NAME), the common parameters included;
 * `call` reaches every tool by name with key=value. The few commands that are not a tool (history,
 * show, status, tools, mcp, call) describe themselves here. Help texts are generated from the same
 * data, and so are the names offered by "did you mean" and by the shell completions.
 * Main thread only (a short-lived process).
 */
#ifndef BB_CLI_H
#define BB_CLI_H

#include <stdio.h>

#include <jansson.h>

#include "apiclient.h"
#include "tools.h"

enum cli_kind { CLI_TOOL, CLI_CALL, CLI_HISTORY, CLI_SHOW, CLI_STATUS, CLI_TOOLS, CLI_MCP, CLI_DOCTOR, CLI_COMPLETION };

struct cli_command {
	const char *name;
	enum cli_kind kind;
	const struct tool *tool; /* CLI_TOOL */
	const char *synopsis;    /* the others: operands and options, and what the command does */
	const char *about;
};

/* What the command line said. */
struct cli {
	struct cli_command cmd;
	struct apiclient_opts conn; /* --config, --token-file, --http, --api-socket */
	int json;
	const char *url, *limit, *before, *json_params; /* history; call */
	const char *offset, *sort, *group;              /* history: paging by relevance, order, visits or captures */
	const char *del, *del_visit, *del_site, *del_before; /* history: what to delete */
	const char **pos;                               /* operands */
	int npos;
	json_t *flags; /* tool parameters given as --flags (the common ones too), typed by the catalog */
};

int cli_find_command(const char *name, struct cli_command *out);
int cli_parse(struct cli *o, int argc, char **argv);
int cli_help(const struct cli_command *c, struct tools *tt, int argc, char **argv);
void cli_usage_list(FILE *f);
const struct tool *cli_find_tool(const char *name);
json_t *cli_coerce(const char *key, const struct tool_param *p, const char *s, char **err);
json_t *cli_operands(const struct cli *o, const char **file);
const char **cli_command_names(size_t *n);
char **cli_flag_names(const struct cli_command *c, size_t *n);
void cli_names_free(char **names, size_t n);
const char *cli_suggest_command(const char *typed);
const char *cli_suggest_tool(const char *typed);

#endif
