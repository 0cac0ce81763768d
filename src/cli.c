/* cli.c -- see cli.h. */
#include "autoconfig.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "clierr.h"
#include "cliout.h"
#include "limits.h"
#include "suggest.h"
#include "util.h"

/* The commands that are not one tool; the tool commands come from the catalog (tool->cli). */
static const struct cli_command others[] = {
	{"call", CLI_CALL, NULL, "TOOL [key=value ...] [--json-params JSON]",
	 "Call any tool of the catalog by name (browser_press_key, press_key and press-key all work). Each key=value "
	 "sets one parameter, converted to the type the tool's schema gives it; --json-params gives them all as one "
	 "JSON object (key=value pairs override it). See browser-bridge call TOOL --help for a tool's parameters."},
	{"history", CLI_HISTORY, NULL,
	 "[QUERY] [--url S] [--limit N] [--before ID] [--offset N] [--sort relevance|recent] [--group visits|captures] "
	 "| --delete ID | --delete-visit ID | --delete-site PREFIX | --delete-before DATE",
	 "List the pages kept in history as a table of id, local time, captures, title and URL. Captures of the same page "
	 "in the same tab, one after another, are one visit (--group captures lists every capture). QUERY is a "
	 "full-text query over titles and Markdown, best matches first (--sort recent: newest first); without one the "
	 "newest come first. --url keeps pages whose URL contains S; --limit (1-" BB_STR(BB_HISTORY_LIMIT_MAX) ", default "
	 BB_STR(BB_HISTORY_LIMIT_DEFAULT) ") bounds the list, --before ID (newest first) or --offset N (best first) "
	 "pages through it. --delete ID removes one capture, --delete-visit ID the visit it belongs to, --delete-site "
	 "PREFIX every page whose URL starts with PREFIX (e.g. https://example.com/), --delete-before DATE "
	 "(YYYY-MM-DD, local midnight) everything older; the last two may be combined."},
	{"show", CLI_SHOW, NULL, "ID", "Print the Markdown of the history page ID (see browser-bridge history)."},
	{"status", CLI_STATUS, NULL, "",
	 "Show the daemon's version and addresses, the connected browsers with their tabs, calls in flight and the "
	 "history database."},
	{"mcp", CLI_MCP, NULL, "",
	 "Relay the Model Context Protocol between stdio and the daemon's /mcp endpoint, for MCP clients that only "
	 "speak stdio: one JSON-RPC message per line in, one per line out. Uses the daemon's Unix socket (no token), "
	 "else reads the token itself. After a daemon restart it starts a new session by itself."},
	{"doctor", CLI_DOCTOR, NULL, "",
	 "Check the setup, one line per check with OK or FAIL and what to do: the daemon (running, same version), "
	 "the token file, the Unix socket, the connected browsers and their site access, the headless instances of "
	 "serve --headless N, agent sessions waiting for approval, Chromium for --headless, and whether the history "
	 "database can be written."},
	{"completion", CLI_COMPLETION, NULL, "bash|zsh",
	 "Print the shell completion script for bash or zsh (make install puts both where the shells find them; "
	 "or: source <(browser-bridge completion bash))."},
	{"tools", CLI_TOOLS, NULL, "",
	 "List the tools of the catalog with their command-line names (needs no daemon). With --json, the catalog with "
	 "each tool's JSON Schema, as GET /api/tools gives it."},
};
#define N_OTHERS (sizeof others / sizeof others[0])

/* Options every command takes that are not tool parameters: where the daemon is, and --json. */
static const struct {
	const char *name, *meta, *help;
	size_t slot; /* offset of the const char * in struct cli, or 0 for the flag --json */
} general[] = {
	{"json", NULL, "Print the daemon's JSON answer on stdout instead of the Markdown or table.", 0},
	{"config", "PATH", "Settings file, the daemon's (default $XDG_CONFIG_HOME/browser-bridge/browser-bridge.conf).",
	 offsetof(struct cli, conn.config)},
	{"token-file", "PATH", "Token file (default: the token_file setting, else $XDG_CONFIG_HOME/browser-bridge/token).",
	 offsetof(struct cli, conn.token_file)},
	{"http", "ADDR:PORT",
	 "The daemon's HTTP address (default: the http setting, else 127.0.0.1:8765). Given without --api-socket, the "
	 "CLI talks TCP to it and sends the token.",
	 offsetof(struct cli, conn.http)},
	{"api-socket", "PATH",
	 "The daemon's Unix socket (default: the api_socket setting, else $XDG_RUNTIME_DIR/browser-bridge/api.sock). "
	 "Used whenever it exists: no token is sent, and the server must run as your user.",
	 offsetof(struct cli, conn.api_socket)},
};
#define N_GENERAL (sizeof general / sizeof general[0])

/* Options of one command that is not a tool. */
static const struct {
	enum cli_kind kind;
	const char *name;
	size_t slot;
} own[] = {
	{CLI_HISTORY, "url", offsetof(struct cli, url)},
	{CLI_HISTORY, "limit", offsetof(struct cli, limit)},
	{CLI_HISTORY, "before", offsetof(struct cli, before)},
	{CLI_HISTORY, "offset", offsetof(struct cli, offset)},
	{CLI_HISTORY, "sort", offsetof(struct cli, sort)},
	{CLI_HISTORY, "group", offsetof(struct cli, group)},
	{CLI_HISTORY, "delete", offsetof(struct cli, del)},
	{CLI_HISTORY, "delete-visit", offsetof(struct cli, del_visit)},
	{CLI_HISTORY, "delete-site", offsetof(struct cli, del_site)},
	{CLI_HISTORY, "delete-before", offsetof(struct cli, del_before)},
	{CLI_CALL, "json-params", offsetof(struct cli, json_params)},
};
#define N_OWN (sizeof own / sizeof own[0])

/* Look a command up: a tool's CLI name from the catalog, else one of the others. */
int
cli_find_command(const char *name, struct cli_command *out)
{
	size_t n;
	const struct tool *list = tools_list(&n);
	for (size_t i = 0; i < n; i++)
		if (list[i].cli != NULL && strcmp(list[i].cli, name) == 0) {
			*out = (struct cli_command){list[i].cli, CLI_TOOL, &list[i], NULL, NULL};
			return 1;
		}
	for (size_t i = 0; i < N_OTHERS; i++)
		if (strcmp(others[i].name, name) == 0) {
			*out = others[i];
			return 1;
		}
	return 0;
}

/* A tool by name; browser_press_key, press_key and press-key alike, since people type the short forms. */
const struct tool *
cli_find_tool(const char *name)
{
	char *s = strncmp(name, "browser_", 8) == 0 ? xstrdup(name) : xasprintf("browser_%s", name);
	for (char *p = s; *p; p++)
		if (*p == '-')
			*p = '_';
	size_t n;
	const struct tool *list = tools_list(&n), *t = NULL;
	for (size_t i = 0; i < n && t == NULL; i++)
		if (strcmp(list[i].name, s) == 0)
			t = &list[i];
	free(s);
	return t;
}

/* List the client commands in the top-level help: the tools' titles, the others' first clause. */
void
cli_usage_list(FILE *f)
{
	size_t n;
	const struct tool *list = tools_list(&n);
	for (size_t i = 0; i < n; i++)
		if (list[i].cli != NULL)
			fprintf(f, "  %-12s %s\n", list[i].cli, list[i].title);
	for (size_t i = 0; i < N_OTHERS; i++) {
		int k = (int)strcspn(others[i].about, ".(,");
		while (k > 0 && others[i].about[k - 1] == ' ')
			k--;
		fprintf(f, "  %-12s %.*s\n", others[i].name, k, others[i].about);
	}
}

/* The parameters a command takes as --flags: the tool's (with the common ones), else the common ones. */
static const struct tool_param *
next_param(const struct cli_command *c, size_t *i)
{
	if (c->tool != NULL)
		return tools_next_param(c->tool, i);
	size_t n;
	const struct tool_param *common = tools_common(&n);
	return *i < n ? &common[(*i)++] : NULL;
}

/* A parameter's flag name: its own, else the property name with '-' for '_'. */
static void
flag_name(const struct tool_param *p, char *out, size_t outsz)
{
	snprintf(out, outsz, "%s", p->flag ? p->flag : p->name);
	for (char *q = out; *q; q++)
		if (*q == '_')
			*q = '-';
}

/* The parameter a --flag names (nl bytes of name); *neg for --no-NAME of a boolean. */
static const struct tool_param *
find_flag(const struct cli_command *c, const char *name, size_t nl, int *neg)
{
	size_t i = 0;
	*neg = 0;
	for (const struct tool_param *p; (p = next_param(c, &i)) != NULL;) {
		char f[64];
		flag_name(p, f, sizeof f);
		if (strlen(f) == nl && strncmp(f, name, nl) == 0)
			return p;
		if (p->type == TP_BOOLEAN && nl == strlen(f) + 3 && strncmp(name, "no-", 3) == 0 &&
		    strncmp(name + 3, f, nl - 3) == 0) {
			*neg = 1;
			return p;
		}
	}
	return NULL;
}

/* Describe one parameter: its description plus type, bounds, default and allowed values. */
static char *
param_desc(const struct tool *tool, const struct tool_param *p)
{
	static const char *const type[] = {[TP_STRING] = "string", [TP_INTEGER] = "integer", [TP_BOOLEAN] = "boolean",
	                                   [TP_ENUM] = "string", [TP_ARRAY] = "comma-separated list",
	                                   [TP_OBJECTS] = "repeatable: one item per flag, split at the first = outside "
	                                                  "brackets and quotes"};
	struct buf b = {0};
	buf_printf(&b, "%s (%s%s", p->description, p->flags & TP_REQUIRED ? (p->type == TP_OBJECTS ? "required, " : "required ") : "",
	           p->type == TP_ARRAY && (p->flags & TP_POSITIONAL) ? "one or more" : type[p->type]);
	if (p->type == TP_ENUM)
		for (const char *const *e = p->enums; *e; e++)
			buf_printf(&b, "%s\"%s\"%s", e == p->enums ? ", one of [" : ",", *e, e[1] ? "" : "]");
	if (p->type == TP_INTEGER && p->has_min && p->has_max)
		buf_printf(&b, ", %lld to %lld", p->min, p->max);
	if (p->flags & TP_TOOL_DEFAULT)
		buf_printf(&b, ", default %s", tool && tool->page_default ? "true" : "false");
	else if (p->has_def && (p->type == TP_STRING || p->type == TP_ENUM))
		buf_printf(&b, ", default \"%s\"", p->def_str);
	else if (p->has_def && p->type == TP_BOOLEAN)
		buf_printf(&b, ", default %s", p->def_num ? "true" : "false");
	else if (p->has_def)
		buf_printf(&b, ", default %lld", p->def_num);
	buf_adds(&b, ")");
	return buf_steal(&b);
}

/* One --flag line: booleans as --NAME or --no-NAME (whichever changes the default), others with a value. */
static void
help_flag(const struct tool *tool, const struct tool_param *p)
{
	char name[64], flag[96];
	flag_name(p, name, sizeof name);
	int dflt = p->flags & TP_TOOL_DEFAULT ? (tool == NULL || tool->page_default) : p->has_def && p->def_num;
	if (p->type == TP_BOOLEAN)
		snprintf(flag, sizeof flag, "--%s%s", dflt ? "no-" : "", name);
	else
		snprintf(flag, sizeof flag, "--%s %s", name, p->meta ? p->meta : p->type == TP_INTEGER ? "N" : "S");
	char *d = param_desc(tool, p);
	if (p->type == TP_BOOLEAN && dflt) {
		/* --no-NAME turns off what the description says --NAME does: say so, not the opposite. */
		char *neg = xasprintf("Turn off --%s, which is on by default: %s", name, d);
		free(d);
		d = neg;
	}
	cliout_help_line(stdout, flag, d);
	free(d);
}

/* The options every command shares that are not tool parameters. */
static void
help_general(void)
{
	for (size_t i = 0; i < N_GENERAL; i++) {
		char flag[64];
		snprintf(flag, sizeof flag, "--%s%s%s", general[i].name, general[i].meta ? " " : "",
		         general[i].meta ? general[i].meta : "");
		cliout_help_line(stdout, flag, general[i].help);
	}
}

/* A tool's common parameters as flags (those it takes as operands aside), then the general options. */
static void
help_common(const struct tool *tool)
{
	size_t i = 0;
	for (const struct tool_param *p; (p = tools_next_param(tool, &i)) != NULL;)
		if ((p->flags & TP_COMMON) && !(p->flags & TP_POSITIONAL))
			help_flag(tool, p);
	help_general();
}

/* Exit codes, at the end of every help text: those the command can end with, no others. */
static void
help_exit(enum cli_kind kind)
{
	const char *text;
	switch (kind) {
	case CLI_STATUS:
		text = "Exit status: 0 done; 1 the daemon answered with an error; 2 bad command line; 5 the daemon is not "
		       "running or refused the token.";
		break;
	case CLI_HISTORY:
	case CLI_SHOW:
		text = "Exit status: 0 done; 1 no such page, or the history database cannot be read or written now; 2 bad "
		       "command line; 5 the daemon is not running or refused the token.";
		break;
	case CLI_MCP:
		text = "Exit status: 0 stdin ended; 2 bad command line; 5 the daemon is not running or refused the token.";
		break;
	case CLI_TOOLS:
	case CLI_COMPLETION: text = "Exit status: 0 done; 2 bad command line."; break;
	case CLI_DOCTOR: text = "Exit status: 0 every check passed; 1 some check failed; 2 bad command line."; break;
	default:
		text = "Exit status: 0 done; 1 the browser (or the request) failed; 2 bad command line or parameters; 3 no "
		       "browser connected; 4 timeout; 5 the daemon is not running or refused the token; 130 interrupted by "
		       "Ctrl-C (the call is cancelled in the browser too).";
		break;
	}
	printf("\n");
	cliout_wrap(stdout, text, 0, 0);
}

/* `browser-bridge CMD --help` for a command that is one tool: generated from the catalog. */
static void
help_tool_command(const struct tool *t)
{
	size_t i = 0;
	printf("usage: browser-bridge %s", t->cli);
	for (const struct tool_param *p; (p = tools_next_param(t, &i)) != NULL;)
		if (p->flags & TP_POSITIONAL)
			printf(p->flags & TP_REQUIRED ? " %s%s" : " [%s%s]", p->meta, p->type == TP_ARRAY ? "..." : "");
	if (t->output == OUT_PNG)
		printf(" FILE");
	printf(" [options]\n\n%s (tool %s).\n", t->title, t->name);
	cliout_wrap(stdout, t->description, 0, 0);
	printf("\n");
	i = 0;
	for (const struct tool_param *p; (p = tools_next_param(t, &i)) != NULL;) {
		if (p->flags & TP_POSITIONAL) {
			char *d = param_desc(t, p);
			cliout_help_line(stdout, p->meta, d);
			free(d);
		}
	}
	if (t->output == OUT_PNG)
		cliout_help_line(stdout, "FILE", "Where to write the image (- for stdout): a JPEG, or a PNG with --format png "
		                                 "or when FILE ends in .png.");
	i = 0;
	for (const struct tool_param *p; (p = tools_next_param(t, &i)) != NULL;)
		if (!(p->flags & (TP_POSITIONAL | TP_COMMON)))
			help_flag(t, p);
	help_common(t);
	printf("\n");
	cliout_wrap(stdout,
	            t->output == OUT_TABS  ? "Prints the tabs as a table (* marks the active one), or the JSON answer with "
	                                     "--json."
	            : t->output == OUT_PNG ? "Writes the image to FILE and the summary to stderr."
	            : t->page_default && strcmp(t->name, "browser_get_page") != 0
	                ? "Prints the summary on stderr and the page Markdown on stdout: with --snapshot auto (the "
	                  "default) only what changed, as a unified diff, when the tab stayed on the same document "
	                  "since the last page this command line received of it (the JSON answer with --json)."
	            : !t->page_default ? "Prints the summary on stderr and on stdout what the tool returns, if anything "
	                                 "(find, console, network: a line per item found; the JSON answer with --json), "
	                                 "or the page Markdown with --page."
	                : "Prints the summary on stderr and the page Markdown on stdout (the JSON answer with --json).",
	            0, 0);
	printf("The same call: browser-bridge call %s key=value ...\n", t->name);
	help_exit(CLI_TOOL);
}

/* `browser-bridge call TOOL --help`: every parameter of the tool, as key=value. */
static void
help_call_tool(const struct tool *t)
{
	printf("usage: browser-bridge call %s [key=value ...] [--json-params JSON] [options]\n\n%s.\n", t->name,
	       t->title);
	cliout_wrap(stdout, t->description, 0, 0);
	printf("\nParameters:\n");
	size_t i = 0;
	for (const struct tool_param *p; (p = tools_next_param(t, &i)) != NULL;) {
		char key[80], *d = param_desc(t, p);
		snprintf(key, sizeof key, "%s=", p->name);
		cliout_help_line(stdout, key, d);
		free(d);
	}
	printf("\nOptions:\n");
	help_common(t);
	if (t->cli)
		printf("\nShorter: browser-bridge %s (see browser-bridge %s --help).\n", t->cli, t->cli);
	help_exit(CLI_CALL);
}

/* Help for a command that is not a single tool. */
static void
help_other(const struct cli_command *c)
{
	printf("usage: browser-bridge %s%s%s [options]\n\n", c->name, *c->synopsis ? " " : "", c->synopsis);
	cliout_wrap(stdout, c->about, 0, 0);
	if (c->kind == CLI_CALL) {
		size_t n;
		const struct tool *list = tools_list(&n);
		printf("\nTools:\n");
		for (size_t i = 0; i < n; i++)
			cliout_help_line(stdout, list[i].name, list[i].title);
	}
	printf("\nOptions:\n");
	help_general();
	help_exit(c->kind);
}

/* Whether an option written without = consumes the next argument (so that one is not an operand). */
static int
takes_value(const struct cli_command *c, const char *arg)
{
	if (strncmp(arg, "--", 2) != 0)
		return 0;
	const char *name = arg + 2;
	for (size_t i = 0; i < N_GENERAL; i++)
		if (strcmp(name, general[i].name) == 0)
			return general[i].meta != NULL;
	for (size_t i = 0; i < N_OWN; i++)
		if (own[i].kind == c->kind && strcmp(name, own[i].name) == 0)
			return 1;
	int neg;
	const struct tool_param *p = find_flag(c, name, strlen(name), &neg);
	return p != NULL && p->type != TP_BOOLEAN;
}

/* Print the help the command line asks for (--help or -h before any --); 1 when it did. */
int
cli_help(const struct cli_command *c, struct tools *tt, int argc, char **argv)
{
	(void)tt;
	int help = 0;
	const char *first = NULL;
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			help = 1;
		else if (first == NULL && argv[i][0] != '-' && (i == 1 || !takes_value(c, argv[i - 1])))
			first = argv[i];
	}
	if (!help)
		return 0;
	const struct tool *t = first && c->kind == CLI_CALL ? cli_find_tool(first) : NULL;
	if (t != NULL)
		help_call_tool(t);
	else if (c->tool != NULL)
		help_tool_command(c->tool);
	else
		help_other(c);
	return 1;
}

/* One item of a TP_OBJECTS parameter from KEY1=KEY2 (--field TARGET=VALUE): split at the first '=' outside
 * brackets and quotes, so a selector such as input[name=email] stays whole. */
static json_t *
pair_object(const char *key, const struct tool_param *p, const char *s, char **err)
{
	int depth = 0;
	char quote = 0;
	const char *eq = NULL;
	for (const char *q = s; *q && eq == NULL; q++) {
		if (quote)
			quote = *q == quote ? 0 : quote;
		else if (*q == '"' || *q == '\'')
			quote = *q;
		else if (*q == '[' || *q == '(')
			depth++;
		else if ((*q == ']' || *q == ')') && depth > 0)
			depth--;
		else if (*q == '=' && depth == 0)
			eq = q;
	}
	if (eq == NULL || eq == s || p->keys[0].name == NULL || p->keys[1].name == NULL) {
		*err = xasprintf("%s: expected %s, got \"%.100s\"", key, p->meta ? p->meta : "KEY=VALUE", s);
		return NULL;
	}
	json_t *a = json_stringn(s, (size_t)(eq - s)), *b = json_string(eq + 1);
	if (a == NULL || b == NULL) {
		json_decref(a);
		json_decref(b);
		*err = xasprintf("%s: not valid UTF-8", key);
		return NULL;
	}
	return json_pack("[{s:o, s:o}]", p->keys[0].name, a, p->keys[1].name, b);
}

/* n bytes of s as a JSON string; for a TP_PATH parameter a relative path is made absolute against the
 * working directory (the daemon takes absolute paths only, and runs elsewhere). NULL: not UTF-8. */
static json_t *
path_or_string(const struct tool_param *p, const char *s, size_t n)
{
	char cwd[4096];
	if (p == NULL || !(p->flags & TP_PATH) || n == 0 || s[0] == '/' || getcwd(cwd, sizeof cwd) == NULL)
		return json_stringn(s, n);
	char *abs = xasprintf("%s%s%.*s", cwd, strcmp(cwd, "/") ? "/" : "", (int)n, s);
	json_t *v = json_string(abs);
	free(abs);
	return v;
}

/* Turn a command-line string into the JSON type the catalog gives the parameter (a string if unknown). */
json_t *
cli_coerce(const char *key, const struct tool_param *p, const char *s, char **err)
{
	if (p != NULL && p->type == TP_INTEGER) {
		long v;
		if (util_parse_long(s, LONG_MIN, LONG_MAX, &v) != 0) {
			*err = xasprintf("%s: expected an integer, got \"%s\"", key, s);
			return NULL;
		}
		return json_integer(v);
	}
	if (p != NULL && p->type == TP_BOOLEAN) {
		if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "1"))
			return json_true();
		if (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "0"))
			return json_false();
		*err = xasprintf("%s: expected true or false, got \"%s\"", key, s);
		return NULL;
	}
	if (p != NULL && p->type == TP_OBJECTS)
		return pair_object(key, p, s, err);
	if (p != NULL && p->type == TP_ARRAY) {
		json_t *a = json_array();
		for (const char *q = s; *q;) {
			size_t n = strcspn(q, ",");
			json_t *item = path_or_string(p, q, n);
			if (item == NULL) {
				*err = xasprintf("%s: not valid UTF-8", key);
				json_decref(a);
				return NULL;
			}
			json_array_append_new(a, item);
			q += n + (q[n] == ',');
		}
		return a;
	}
	json_t *v = path_or_string(p, s, strlen(s));
	if (v == NULL)
		*err = xasprintf("%s: not valid UTF-8", key);
	return v;
}

/* The commands people type that are not client commands (main.c runs them). */
static const char *const builtin[] = {"serve", "token", "login-url", "version"};
#define N_BUILTIN (sizeof builtin / sizeof builtin[0])

/* Every command name, for "did you mean" and the shell completions (caller frees the array only). */
const char **
cli_command_names(size_t *n)
{
	size_t nt;
	const struct tool *list = tools_list(&nt);
	const char **out = xcalloc(nt + N_OTHERS + N_BUILTIN, sizeof *out);
	*n = 0;
	for (size_t i = 0; i < N_BUILTIN; i++)
		out[(*n)++] = builtin[i];
	for (size_t i = 0; i < nt; i++)
		if (list[i].cli != NULL)
			out[(*n)++] = list[i].cli;
	for (size_t i = 0; i < N_OTHERS; i++)
		out[(*n)++] = others[i].name;
	return out;
}

/* Every --flag a command takes, spelled out ("--new-tab", "--no-page"): the general options, the
 * command's own, its parameters (booleans both ways). Free with cli_names_free. */
char **
cli_flag_names(const struct cli_command *c, size_t *n)
{
	size_t cap = N_GENERAL + N_OWN + 1, k = 0;
	if (c->kind == CLI_TOOL || c->kind == CLI_CALL)
		while (next_param(c, &k) != NULL)
			cap += 2; /* --NAME, and --no-NAME for a boolean */
	char **out = xcalloc(cap, sizeof *out), f[80];
	*n = 0;
#define ADD(s) (out[(*n)++] = xstrdup(s))
	for (size_t i = 0; i < N_GENERAL; i++) {
		snprintf(f, sizeof f, "--%s", general[i].name);
		ADD(f);
	}
	for (size_t i = 0; i < N_OWN; i++)
		if (own[i].kind == c->kind) {
			snprintf(f, sizeof f, "--%s", own[i].name);
			ADD(f);
		}
	if (c->kind == CLI_TOOL || c->kind == CLI_CALL) {
		size_t i = 0;
		for (const struct tool_param *p; (p = next_param(c, &i)) != NULL;) {
			char name[64];
			if (c->tool != NULL && (p->flags & TP_POSITIONAL))
				continue;
			flag_name(p, name, sizeof name);
			snprintf(f, sizeof f, "--%s", name);
			ADD(f);
			if (p->type == TP_BOOLEAN) {
				snprintf(f, sizeof f, "--no-%s", name);
				ADD(f);
			}
		}
	}
	ADD("--help");
#undef ADD
	return out;
}

/* Free what cli_flag_names returned. */
void
cli_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* The command a mistyped one probably meant, or NULL. */
const char *
cli_suggest_command(const char *typed)
{
	size_t n;
	const char **names = cli_command_names(&n);
	const char *s = suggest_closest(typed, names, n);
	free(names);
	return s;
}

/* The tool a mistyped name for `call` probably meant (its full name), or NULL: the name is compared
 * without "browser_" with each tool's short name and its command's name (open for browser_open_url). */
const char *
cli_suggest_tool(const char *typed)
{
	size_t n;
	const struct tool *list = tools_list(&n);
	const char **names = xcalloc(2 * n, sizeof *names);
	for (size_t i = 0; i < n; i++) {
		names[2 * i] = list[i].name + (strncmp(list[i].name, "browser_", 8) == 0 ? 8 : 0);
		names[2 * i + 1] = list[i].cli ? list[i].cli : names[2 * i];
	}
	char *s = xstrdup(typed + (strncmp(typed, "browser_", 8) == 0 ? 8 : 0));
	for (char *p = s; *p; p++)
		if (*p == '-')
			*p = '_';
	const char *near = suggest_closest(s, names, 2 * n), *tool = NULL;
	for (size_t i = 0; i < 2 * n && near != NULL && tool == NULL; i++)
		if (names[i] == near)
			tool = list[i / 2].name;
	free(s);
	free(names);
	return tool;
}

/* Say an option is unknown, with the closest one the command takes when there is one. */
static void
unknown_option(const struct cli_command *c, const char *arg)
{
	size_t n;
	char **names = cli_flag_names(c, &n), typed[80];
	snprintf(typed, sizeof typed, "%.*s", (int)strcspn(arg, "="), arg);
	const char *s = suggest_closest(typed, (const char *const *)names, n);
	if (s != NULL)
		clierr(c->name, "unknown_option", "unknown option \"%s\"; did you mean %s? (see browser-bridge %s --help)",
		       arg, s, c->name);
	else
		clierr(c->name, "unknown_option", "unknown option \"%s\" (see browser-bridge %s --help)", arg, c->name);
	cli_names_free(names, n);
}

/* The value of --name=value or --name value; NULL (and a message) when it is missing. */
static const char *
opt_value(const char *cmd, const char *arg, const char *eq, int argc, char **argv, int *i)
{
	if (eq != NULL)
		return eq + 1;
	if (*i + 1 >= argc) {
		clierr(cmd, "bad_option", "%s needs a value", arg);
		return NULL;
	}
	return argv[++*i];
}

/* A --flag that is a tool parameter (--new-tab, --no-clear, --amount 300, --tab 3, --no-page). */
static int
param_flag(struct cli *o, const char *name, size_t nl, const char *eq, int argc, char **argv, int *i)
{
	const char *cmd = o->cmd.name;
	int neg;
	const struct tool_param *p = find_flag(&o->cmd, name, nl, &neg);
	json_t *v;
	char *err = NULL;
	if (p == NULL) {
		unknown_option(&o->cmd, argv[*i]);
		return -1;
	}
	if (p->type == TP_BOOLEAN) {
		if (eq != NULL) {
			clierr(cmd, "bad_option", "--%.*s takes no value", (int)nl, name);
			return -1;
		}
		v = json_boolean(!neg);
	} else {
		const char *s = opt_value(cmd, argv[*i], eq, argc, argv, i);
		if (s == NULL)
			return -1;
		if ((v = cli_coerce(p->name, p, s, &err)) == NULL) {
			clierr(cmd, "bad_option", "%s", err);
			free(err);
			return -1;
		}
	}
	json_t *have = json_object_get(o->flags, p->name);
	if (p->type == TP_OBJECTS && json_is_array(have)) /* repeatable: each adds an item */
		json_array_extend(have, v), json_decref(v);
	else
		json_object_set_new(o->flags, p->name, v);
	return 0;
}

/* Parse the command line: options may come before, between or after the operands; -- ends them. */
int
cli_parse(struct cli *o, int argc, char **argv)
{
	const char *cmd = o->cmd.name;
	int only_pos = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (only_pos || a[0] != '-' || a[1] == '\0') {
			o->pos[o->npos++] = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_pos = 1;
			continue;
		}
		if (a[1] != '-') {
			unknown_option(&o->cmd, a);
			return -1;
		}
		const char *name = a + 2, *eq = strchr(name, '=');
		size_t nl = eq ? (size_t)(eq - name) : strlen(name);
		const char **slot = NULL;
		int known = 0;
		for (size_t k = 0; k < N_GENERAL && !known; k++)
			if (nl == strlen(general[k].name) && strncmp(name, general[k].name, nl) == 0) {
				known = 1;
				if (general[k].meta != NULL)
					slot = (const char **)((char *)o + general[k].slot);
				else if (eq != NULL) {
					clierr(cmd, "bad_option", "%.*s takes no value", (int)(nl + 2), a);
					return -1;
				} else
					o->json = 1;
			}
		for (size_t k = 0; k < N_OWN && !known; k++)
			if (own[k].kind == o->cmd.kind && nl == strlen(own[k].name) && strncmp(name, own[k].name, nl) == 0) {
				known = 1;
				slot = (const char **)((char *)o + own[k].slot);
			}
		if (slot != NULL) {
			if ((*slot = opt_value(cmd, a, eq, argc, argv, &i)) == NULL)
				return -1;
		} else if (!known && param_flag(o, name, nl, eq, argc, argv, &i) != 0) {
			return -1;
		}
	}
	return 0;
}

/* A tool command's parameters: its --flags, then its operands in the catalog's order. *file gets
 * the FILE operand of a command that writes a PNG. NULL (after a message) on a bad command line. */
json_t *
cli_operands(const struct cli *o, const char **file)
{
	const struct tool *t = o->cmd.tool;
	json_t *params = json_deep_copy(o->flags);
	char *err = NULL;
	int k = 0;
	size_t i = 0;
	*file = NULL;
	for (const struct tool_param *p; (p = tools_next_param(t, &i)) != NULL;) {
		if (!(p->flags & TP_POSITIONAL))
			continue;
		if (k >= o->npos) {
			if (!(p->flags & TP_REQUIRED))
				break;
			clierr(t->cli, "bad_argument", "missing %s (see browser-bridge %s --help)", p->meta, t->cli);
			goto fail;
		}
		json_t *v;
		if (p->type == TP_ARRAY) { /* the last operands, one item each: PATH... */
			v = json_array();
			while (v != NULL && k < o->npos) {
				json_t *item = path_or_string(p, o->pos[k], strlen(o->pos[k]));
				k++;
				if (item == NULL) {
					err = xasprintf("%s: not valid UTF-8", p->meta);
					json_decref(v);
					v = NULL;
				} else
					json_array_append_new(v, item);
			}
		} else
			v = cli_coerce(p->meta, p, o->pos[k++], &err);
		if (v == NULL) {
			clierr(t->cli, "bad_argument", "%s", err);
			goto fail;
		}
		json_object_set_new(params, p->name, v);
	}
	if (t->output == OUT_PNG) {
		if (k >= o->npos) {
			clierr(t->cli, "bad_argument", "missing FILE (see browser-bridge %s --help)", t->cli);
			goto fail;
		}
		*file = o->pos[k++];
		/* FILE.png without --format: the PNG its name promises, not a JPEG under that name. */
		size_t fl = strlen(*file);
		if (tools_param(t, "format") && !json_object_get(params, "format") && fl > 4 &&
		    strcasecmp(*file + fl - 4, ".png") == 0)
			json_object_set_new(params, "format", json_string("png"));
	}
	if (o->npos > k) {
		clierr(t->cli, "bad_argument", "unexpected argument \"%s\" (see browser-bridge %s --help)", o->pos[k],
		       t->cli);
		goto fail;
	}
	return params;
fail:
	free(err);
	json_decref(params);
	return NULL;
}
