/* client.c -- see client.h. */
#include "autoconfig.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <jansson.h>

#include "auth.h"
#include "client.h"
#include "config.h"
#include "limits.h"
#include "serve.h"
#include "tools.h"
#include "unixsock.h"
#include "util.h"

/* Largest answer we accept from the daemon: a page is at most a WebSocket message, plus JSON escaping. */
#define CLIENT_MAX_RESPONSE ((size_t)BB_WS_MAX_MESSAGE_MAX * 2)
/* Extra time the socket waits beyond the call's own timeout, so the daemon's 504 arrives first. */
#define CLIENT_GRACE_MS 5000
/* Columns used for titles in tables. */
#define CLIENT_TITLE_COLS 40

enum kind { K_TOOL, K_TABS, K_SCREENSHOT, K_CALL, K_HISTORY, K_SHOW, K_STATUS, K_TOOLS, K_MCP };

/*
 * A subcommand. Tool commands take their help from the tool catalog: pos[] maps each operand
 * ("META=property"; "[META]" when optional; an empty property is the command's own operand) and
 * every other property of the tool is a --flag. Other commands describe themselves.
 */
struct command {
	const char *name;
	const char *tool;
	const char *pos[2];
	enum kind kind;
	const char *synopsis;
	const char *about;
};

static const struct command commands[] = {
	{"open", "browser_open_url", {"URL=url"}, K_TOOL, NULL, NULL},
	{"click", "browser_click", {"TARGET=target"}, K_TOOL, NULL, NULL},
	{"type", "browser_type", {"TARGET=target", "TEXT=text"}, K_TOOL, NULL, NULL},
	{"press", "browser_press_key", {"KEY=key"}, K_TOOL, NULL, NULL},
	{"scroll", "browser_scroll", {"[DIRECTION]=direction"}, K_TOOL, NULL, NULL},
	{"select", "browser_select_option", {"TARGET=target", "VALUE=value"}, K_TOOL, NULL, NULL},
	{"back", "browser_back", {NULL}, K_TOOL, NULL, NULL},
	{"forward", "browser_forward", {NULL}, K_TOOL, NULL, NULL},
	{"reload", "browser_reload", {NULL}, K_TOOL, NULL, NULL},
	{"page", "browser_get_page", {NULL}, K_TOOL, NULL, NULL},
	{"tabs", "browser_list_tabs", {NULL}, K_TABS, NULL, NULL},
	{"switch-tab", "browser_switch_tab", {"ID=tab_id"}, K_TOOL, NULL, NULL},
	{"close-tab", "browser_close_tab", {"ID=tab_id"}, K_TOOL, NULL, NULL},
	{"screenshot", "browser_screenshot", {"FILE="}, K_SCREENSHOT, NULL, NULL},
	{"wait-for", "browser_wait_for", {"[TEXT]=text"}, K_TOOL, NULL, NULL},
	{"dialog", "browser_handle_dialog", {"ACCEPT=accept"}, K_TOOL, NULL, NULL},
	{"call", NULL, {NULL}, K_CALL, "TOOL [key=value ...] [--json-params JSON]",
	 "Call any tool of the catalog by name (browser_press_key, press_key and press-key all work). Each key=value "
	 "sets one parameter, converted to the type the tool's schema gives it; --json-params gives them all as one "
	 "JSON object (key=value pairs override it). See browser-bridge call TOOL --help for a tool's parameters."},
	{"history", NULL, {NULL}, K_HISTORY, "[QUERY] [--url S] [--limit N] [--before ID]",
	 "List the pages kept in history, newest first, as a table of id, time, title and URL. QUERY is a full-text "
	 "query over titles and Markdown; --url keeps pages whose URL contains S; --limit (1-500, default 50) and "
	 "--before (an id, for paging) bound the list."},
	{"show", NULL, {NULL}, K_SHOW, "ID", "Print the Markdown of the history page ID (see browser-bridge history)."},
	{"status", NULL, {NULL}, K_STATUS, "",
	 "Show the daemon's version and addresses, the connected browsers with their tabs, calls in flight and the "
	 "history database."},
	{"mcp", NULL, {NULL}, K_MCP, "",
	 "Relay the Model Context Protocol between stdio and the daemon's /mcp endpoint, for MCP clients that only "
	 "speak stdio: one JSON-RPC message per line in, one per line out. Uses the daemon's Unix socket (no token), "
	 "else reads the token itself."},
	{"tools", NULL, {NULL}, K_TOOLS, "",
	 "List the tools of the catalog with their command-line names (needs no daemon). With --json, the catalog with "
	 "each tool's JSON Schema, as GET /api/tools gives it."},
};

#define N_COMMANDS (sizeof commands / sizeof commands[0])

/* What the command line said. */
struct cli {
	const struct command *cmd;
	const char *config, *token_file, *http, *api_socket;
	const char *client_id, *tab, *timeout;
	int no_page, json;
	const char *url, *limit, *before, *json_params;
	const char **pos;
	int npos;
	json_t *flags; /* tool properties set with --flags */
};

/* Look a subcommand up by name. */
static const struct command *
find_command(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/* Whether name is a client subcommand. */
int
client_is_command(const char *name)
{
	return find_command(name) != NULL;
}

/* Look a tool up in the static catalog by its exact name. */
static const struct tool *
find_tool(const char *name)
{
	size_t n;
	const struct tool *list = tools_list(&n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i].name, name) == 0)
			return &list[i];
	return NULL;
}

/* `call` accepts browser_press_key, press_key and press-key alike, since people type the short forms. */
static const struct tool *
find_tool_loosely(const char *name)
{
	char *s = strncmp(name, "browser_", 8) == 0 ? xstrdup(name) : xasprintf("browser_%s", name);
	for (char *p = s; *p; p++)
		if (*p == '-')
			*p = '_';
	const struct tool *t = find_tool(s);
	free(s);
	return t;
}

/* The command-line command that calls a tool, for the tools listing (NULL when only `call` does). */
static const struct command *
command_for_tool(const char *tool)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (commands[i].tool && strcmp(commands[i].tool, tool) == 0)
			return &commands[i];
	return NULL;
}

/* List the client subcommands in the top-level help, with the catalog's titles for tool commands. */
void
client_usage_list(FILE *f)
{
	for (size_t i = 0; i < N_COMMANDS; i++) {
		const struct command *c = &commands[i];
		const struct tool *t = c->tool ? find_tool(c->tool) : NULL;
		if (t != NULL) {
			fprintf(f, "  %-12s %s\n", c->name, t->title);
			continue;
		}
		/* Commands that are not a tool: the first clause of their description is enough here. */
		int n = (int)strcspn(c->about, ".(,");
		while (n > 0 && c->about[n - 1] == ' ')
			n--;
		fprintf(f, "  %-12s %.*s\n", c->name, n, c->about);
	}
}

/* Split a "META=property" operand spec; *optional when it is written [META]. */
static void
pos_spec(const char *spec, char *meta, size_t metasz, const char **prop, int *optional)
{
	const char *eq = strchr(spec, '=');
	*optional = spec[0] == '[';
	const char *m = spec + (*optional ? 1 : 0);
	size_t n = (size_t)(eq - m) - (*optional ? 1 : 0);
	snprintf(meta, metasz, "%.*s", (int)n, m);
	*prop = eq + 1;
}

/* Print text wrapped to 79 columns, each line indented; descriptions in the catalog are one long line. */
static void
wrap(FILE *f, const char *text, int indent, int first_col)
{
	int col = first_col;
	const char *p = text;
	while (*p) {
		while (*p == ' ')
			p++;
		size_t w = strcspn(p, " ");
		if (w == 0)
			break;
		if (col > indent && col + 1 + (int)w > 79) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		} else if (col < indent) {
			fprintf(f, "%*s", indent - col, "");
			col = indent;
		}
		fwrite(p, 1, w, f);
		col += (int)w;
		p += w;
	}
	fputc('\n', f);
}

/* One option line of the help: the flag, then its description wrapped beside it. */
static void
help_line(const char *flag, const char *desc)
{
	printf("  %s", flag);
	int col = 2 + (int)strlen(flag);
	if (col > 22) {
		printf("\n");
		col = 0;
	}
	wrap(stdout, desc, 24, col);
}

/* Describe one schema property: its description plus type, default and allowed values. */
static char *
prop_desc(json_t *ps, int required)
{
	struct buf b = {0};
	const char *d = json_string_value(json_object_get(ps, "description"));
	buf_adds(&b, d ? d : "");
	const char *type = json_string_value(json_object_get(ps, "type"));
	buf_printf(&b, " (%s%s", required ? "required " : "", type ? type : "any");
	json_t *en = json_object_get(ps, "enum"), *def = json_object_get(ps, "default");
	if (en) {
		char *s = json_dumps(en, JSON_COMPACT);
		buf_printf(&b, ", one of %s", s);
		free(s);
	}
	if (json_is_integer(json_object_get(ps, "minimum")) && json_is_integer(json_object_get(ps, "maximum")))
		buf_printf(&b, ", %lld to %lld", (long long)json_integer_value(json_object_get(ps, "minimum")),
		           (long long)json_integer_value(json_object_get(ps, "maximum")));
	if (def) {
		char *s = json_dumps(def, JSON_COMPACT | JSON_ENCODE_ANY);
		buf_printf(&b, ", default %s", s);
		free(s);
	}
	buf_adds(&b, ")");
	return buf_steal(&b);
}

/* Whether a property is one of the parameters every tool takes (they have their own flags). */
static int
is_common(const char *prop)
{
	return !strcmp(prop, "client_id") || !strcmp(prop, "tab_id") || !strcmp(prop, "wait_for_page_info") ||
	       !strcmp(prop, "timeout_ms");
}

/* The options every command shares; tool-call options take their text from the catalog's schema. */
static void
help_common(json_t *props)
{
	if (props != NULL) {
		char *d;
		help_line("--client-id ID", d = prop_desc(json_object_get(props, "client_id"), 0));
		free(d);
		help_line("--tab ID", d = prop_desc(json_object_get(props, "tab_id"), 0));
		free(d);
		help_line("--timeout MS", d = prop_desc(json_object_get(props, "timeout_ms"), 0));
		free(d);
		help_line("--no-page", "Do not wait for the page after the action (wait_for_page_info=false).");
	}
	help_line("--json", "Print the daemon's JSON answer on stdout instead of the Markdown or table.");
	help_line("--config PATH",
	          "Settings file, the daemon's (default $XDG_CONFIG_HOME/browser-bridge/browser-bridge.conf).");
	help_line("--token-file PATH",
	          "Token file (default: the token_file setting, else $XDG_CONFIG_HOME/browser-bridge/token).");
	help_line("--http ADDR:PORT", "The daemon's HTTP address (default: the http setting, else 127.0.0.1:8765). Given "
	                              "without --api-socket, the CLI talks TCP to it and sends the token.");
	help_line("--api-socket PATH", "The daemon's Unix socket (default: the api_socket setting, else "
	                               "$XDG_RUNTIME_DIR/browser-bridge/api.sock). Used whenever it exists: no token is "
	                               "sent, and the server must run as your user.");
}

/* Exit codes, at the end of every help text. */
static void
help_exit(void)
{
	printf("\n");
	wrap(stdout, "Exit status: 0 done; 1 the browser (or the request) failed; 2 bad command line or parameters; "
	             "3 no browser connected; 4 timeout; 5 the daemon is not running or refused the token.", 0, 0);
}

/* `browser-bridge CMD --help` for a command that is one tool: generated from the catalog. */
static void
help_tool_command(const struct command *c, struct tools *tt)
{
	const struct tool *t = find_tool(c->tool);
	json_t *schema = tools_schema(tt, t), *props = json_object_get(schema, "properties");
	json_t *req = json_object_get(schema, "required");
	printf("usage: browser-bridge %s", c->name);
	for (int i = 0; i < 2 && c->pos[i]; i++) {
		char meta[32];
		const char *prop;
		int opt;
		pos_spec(c->pos[i], meta, sizeof meta, &prop, &opt);
		printf(opt ? " [%s]" : " %s", meta);
	}
	printf(" [options]\n\n%s (tool %s).\n", t->title, t->name);
	wrap(stdout, t->description, 0, 0);
	printf("\n");
	for (int i = 0; i < 2 && c->pos[i]; i++) {
		char meta[32];
		const char *prop;
		int opt;
		pos_spec(c->pos[i], meta, sizeof meta, &prop, &opt);
		if (*prop == '\0') {
			help_line(meta, c->kind == K_SCREENSHOT ? "Where to write the PNG image (- for stdout)."
			                                         : "Operand.");
			continue;
		}
		char *d = prop_desc(json_object_get(props, prop), !opt);
		help_line(meta, d);
		free(d);
	}
	const char *k;
	json_t *ps;
	json_object_foreach(props, k, ps)
	{
		int positional = 0;
		for (int i = 0; i < 2 && c->pos[i]; i++)
			if (strcmp(strchr(c->pos[i], '=') + 1, k) == 0)
				positional = 1;
		if (positional || is_common(k))
			continue;
		char flag[80];
		const char *type = json_string_value(json_object_get(ps, "type"));
		int bool_true = json_is_true(json_object_get(ps, "default"));
		char name[64];
		snprintf(name, sizeof name, "%s", k);
		for (char *p = name; *p; p++)
			if (*p == '_')
				*p = '-';
		if (type && !strcmp(type, "boolean"))
			snprintf(flag, sizeof flag, "--%s%s", bool_true ? "no-" : "", name);
		else
			snprintf(flag, sizeof flag, "--%s %s", name, type && !strcmp(type, "integer") ? "N" : "S");
		size_t i;
		json_t *r;
		int required = 0;
		json_array_foreach(req, i, r) if (strcmp(json_string_value(r), k) == 0) required = 1;
		char *d = prop_desc(ps, required);
		help_line(flag, d);
		free(d);
	}
	help_common(props);
	printf("\n");
	if (c->kind == K_TABS)
		wrap(stdout, "Prints the tabs as a table (* marks the active one), or the JSON answer with --json.", 0,
		     0);
	else if (c->kind == K_SCREENSHOT)
		wrap(stdout, "Writes the PNG to FILE and the summary to stderr.", 0, 0);
	else
		wrap(stdout,
		     "Prints the summary on stderr and the page Markdown on stdout (the JSON answer with --json).", 0,
		     0);
	printf("The same call: browser-bridge call %s key=value ...\n", t->name);
	help_exit();
}

/* `browser-bridge call TOOL --help`: every parameter of the tool, as key=value. */
static void
help_call_tool(const struct tool *t, struct tools *tt)
{
	json_t *schema = tools_schema(tt, t), *props = json_object_get(schema, "properties");
	json_t *req = json_object_get(schema, "required");
	printf("usage: browser-bridge call %s [key=value ...] [--json-params JSON] [options]\n\n%s.\n", t->name,
	       t->title);
	wrap(stdout, t->description, 0, 0);
	printf("\nParameters:\n");
	const char *k;
	json_t *ps;
	json_object_foreach(props, k, ps)
	{
		size_t i;
		json_t *r;
		int required = 0;
		json_array_foreach(req, i, r) if (strcmp(json_string_value(r), k) == 0) required = 1;
		char flag[80];
		snprintf(flag, sizeof flag, "%s=", k);
		char *d = prop_desc(ps, required);
		help_line(flag, d);
		free(d);
	}
	printf("\nOptions:\n");
	help_common(props);
	const struct command *c = command_for_tool(t->name);
	if (c)
		printf("\nShorter: browser-bridge %s (see browser-bridge %s --help).\n", c->name, c->name);
	help_exit();
}

/* Help for a command that is not a single tool. */
static void
help_other(const struct command *c)
{
	size_t n;
	const struct tool *list = tools_list(&n);
	printf("usage: browser-bridge %s%s%s [options]\n\n", c->name, *c->synopsis ? " " : "", c->synopsis);
	wrap(stdout, c->about, 0, 0);
	if (c->kind == K_CALL) {
		printf("\nTools:\n");
		for (size_t i = 0; i < n; i++)
			help_line(list[i].name, list[i].title);
	}
	printf("\nOptions:\n");
	help_common(NULL);
	help_exit();
}

/* A string member of a JSON object, or dflt when it is missing or not a string. */
static const char *
jstr(json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : dflt;
}

/* Remove terminal control characters and cut to cols characters, for one table cell or one line. */
static void
put_clean(FILE *f, const char *s, int cols)
{
	int n = 0;
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if ((*p & 0xc0) != 0x80 && cols > 0 && ++n > cols) {
			fputs("…", f);
			return;
		}
		fputc(*p < 0x20 || *p == 0x7f ? ' ' : *p, f);
	}
}

/* Page Markdown for a terminal: keep newlines and tabs, drop other control characters (escape codes). */
static void
put_markdown(const char *s, size_t len)
{
	if (!isatty(STDOUT_FILENO)) {
		fwrite(s, 1, len, stdout);
	} else {
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)s[i] >= 0x20 || s[i] == '\n' || s[i] == '\t')
				putchar(s[i]);
	}
	if (len > 0 && s[len - 1] != '\n')
		putchar('\n');
}

/* The daemon's answer. */
struct reply {
	int status;
	char *body;
	size_t len;
	char session[65]; /* Mcp-Session-Id of the answer, if any */
};

/* Read the whole answer until the daemon closes; the body of a page can be megabytes. */
static int
read_all(int fd, struct buf *b, long timeout_ms, char **err)
{
	char chunk[65536];
	for (;;) {
		ssize_t n = recv(fd, chunk, sizeof chunk, 0);
		if (n == 0)
			return 0;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				*err = xasprintf("no answer from the daemon within %ld ms", timeout_ms);
			else
				*err = xasprintf("reading the daemon's answer: %s", strerror(errno));
			return -1;
		}
		if (b->len + (size_t)n > CLIENT_MAX_RESPONSE) {
			*err = xasprintf("the daemon's answer is larger than %zu bytes", CLIENT_MAX_RESPONSE);
			return -1;
		}
		buf_add(b, chunk, (size_t)n);
	}
}

/* Decode a chunked body in place; the daemon sends Content-Length, but a proxy in front may not. */
static int
dechunk(char *p, size_t len, size_t *out)
{
	size_t r = 0, w = 0;
	for (;;) {
		char *end;
		errno = 0;
		unsigned long long n = strtoull(p + r, &end, 16);
		if (errno != 0 || end == p + r)
			return -1;
		char *crlf = memmem(end, len - (size_t)(end - p), "\r\n", 2);
		if (crlf == NULL)
			return -1;
		r = (size_t)(crlf - p) + 2;
		if (n == 0)
			break;
		if (n > len - r || len - r - n < 2)
			return -1;
		memmove(p + w, p + r, n);
		w += n;
		r += n + 2;
	}
	*out = w;
	return 0;
}

/* Find a header's value in the header block (case-insensitive name); NULL when absent. */
static const char *
header(const char *head, const char *name, size_t *vlen)
{
	size_t nl = strlen(name);
	for (const char *line = strstr(head, "\r\n"); line && line[2] != '\r'; line = strstr(line + 2, "\r\n")) {
		const char *h = line + 2;
		if (strncasecmp(h, name, nl) == 0 && h[nl] == ':') {
			const char *v = h + nl + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			*vlen = strcspn(v, "\r");
			while (*vlen > 0 && (v[*vlen - 1] == ' ' || v[*vlen - 1] == '\t'))
				(*vlen)--;
			return v;
		}
	}
	return NULL;
}

/* Split the raw answer into status and body (Content-Length, chunked, or everything to the close). */
static int
parse_reply(struct buf *b, struct reply *r, char **err)
{
	char *sep = b->data ? strstr(b->data, "\r\n\r\n") : NULL;
	if (b->len < 12 || strncmp(b->data, "HTTP/1.", 7) != 0 || sep == NULL) {
		*err = xasprintf("the daemon's answer is not HTTP (%zu bytes)", b->len);
		return -1;
	}
	char code[4] = {b->data[9], b->data[10], b->data[11], '\0'};
	long st;
	if (util_parse_long(code, 100, 599, &st) != 0) {
		*err = xstrdup("the daemon's answer has a malformed status line");
		return -1;
	}
	sep[2] = '\0'; /* the header block now ends with its last CRLF */
	char *body = sep + 4;
	size_t len = b->len - (size_t)(body - b->data), vl;
	const char *te = header(b->data, "Transfer-Encoding", &vl);
	const char *cl = header(b->data, "Content-Length", &vl);
	if (te && vl == 7 && strncasecmp(te, "chunked", 7) == 0) {
		if (dechunk(body, len, &len) != 0) {
			*err = xstrdup("the daemon's chunked answer is malformed or cut short");
			return -1;
		}
	} else if (cl) {
		char num[32];
		long want;
		snprintf(num, sizeof num, "%.*s", (int)(vl < 31 ? vl : 31), cl);
		if (util_parse_long(num, 0, LONG_MAX, &want) != 0 || (size_t)want > len) {
			*err = xasprintf("the daemon's answer was cut short (%zu of %s bytes)", len, num);
			return -1;
		}
		len = (size_t)want;
	}
	const char *sid = header(b->data, "Mcp-Session-Id", &vl);
	if (sid && vl < sizeof r->session)
		snprintf(r->session, sizeof r->session, "%.*s", (int)vl, sid);
	r->status = (int)st;
	r->body = xstrndup(body, len);
	r->len = len;
	return 0;
}

/* Everything needed to talk to the daemon: the same settings file and token file it uses, and the
 * way to reach it: its Unix socket (sock; no token needed, none sent) or TCP with the token. */
struct conn {
	struct config cfg;
	char *token;
	const char *sock; /* cfg.api_socket when we use it, else NULL (TCP) */
};

/* Connect to the daemon's Unix socket and make sure the server runs as us: -1 (with *err) otherwise. */
static int
connect_local(const char *path, char **err)
{
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*err = xasprintf("socket: %s", strerror(errno));
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
		*err = xasprintf("cannot connect to the daemon's socket %s: %s; is the daemon running? (browser-bridge serve)",
		                 path, strerror(errno));
		close(fd);
		return -1;
	}
	long uid;
	if (!unixsock_peer_is_me(fd, &uid)) {
		*err = xasprintf("the server on %s runs as uid %ld, not as you (uid %ld): it is not your Browser Bridge "
		                 "daemon, refusing to talk to it",
		                 path, uid, (long)geteuid());
		close(fd);
		return -1;
	}
	return fd;
}

/* Connect over TCP to the configured loopback address; *v6 says which family it was. */
static int
connect_tcp(const struct config *cfg, int *v6, char **err)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	memset(&ss, 0, sizeof ss);
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	int fd = -1;
	*v6 = 0;
	if (inet_pton(AF_INET, cfg->http_host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)cfg->http_port);
		sl = sizeof *s4;
	} else if (inet_pton(AF_INET6, cfg->http_host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)cfg->http_port);
		sl = sizeof *s6;
		*v6 = 1;
	} else {
		*err = xasprintf("bad daemon address %s", cfg->http_host);
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*err = xasprintf("socket: %s", strerror(errno));
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&ss, sl) != 0) {
		*err = xasprintf("cannot connect to the daemon at %s%s%s:%d: %s; "
		                 "is the daemon running? (browser-bridge serve)",
		                 *v6 ? "[" : "", cfg->http_host, *v6 ? "]" : "", cfg->http_port, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * One blocking HTTP/1.1 exchange over a fresh connection (the Unix socket, else TCP): send, read to
 * the close, parse. -1 (with *err) when the daemon cannot be reached or answers garbage.
 */
static int
http_call(const struct conn *c, const char *method, const char *path, const char *accept, const char *extra,
          const char *body, long timeout_ms, struct reply *r, char **err)
{
	const struct config *cfg = &c->cfg;
	int v6 = 0, fd = -1, rc = -1;
	struct buf req = {0}, in = {0};
	fd = c->sock != NULL ? connect_local(c->sock, err) : connect_tcp(cfg, &v6, err);
	if (fd < 0)
		goto fail;
	struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	if (c->sock != NULL) {
		/* Our own user's daemon, as the kernel vouches: no token goes anywhere. */
		buf_printf(&req, "%s %s HTTP/1.1\r\nHost: localhost\r\nAccept: %s\r\n", method, path, accept);
	} else {
		/* The daemon accepts only these Host values (DNS-rebinding defence), whatever loopback address it is on. */
		buf_printf(&req, "%s %s HTTP/1.1\r\nHost: %s:%d\r\nAuthorization: Bearer %s\r\nAccept: %s\r\n", method,
		           path, v6 ? "[::1]" : "127.0.0.1", cfg->http_port, c->token, accept);
	}
	buf_printf(&req, "Connection: close\r\nUser-Agent: browser-bridge/%s\r\n", BB_VERSION);
	if (extra)
		buf_adds(&req, extra);
	if (body)
		buf_printf(&req, "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s", strlen(body), body);
	else
		buf_adds(&req, "\r\n");
	for (size_t off = 0; off < req.len;) {
		ssize_t n = send(fd, req.data + off, req.len - off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*err = xasprintf("sending the request to the daemon: %s", strerror(errno));
			goto fail;
		}
		off += (size_t)n;
	}
	if (read_all(fd, &in, timeout_ms, err) != 0 || parse_reply(&in, r, err) != 0)
		goto fail;
	rc = 0;
fail:
	if (fd >= 0)
		close(fd);
	if (req.data)
		explicit_bzero(req.data, req.len); /* it holds the token */
	buf_free(&req);
	buf_free(&in);
	return rc;
}

/* The daemon's Unix socket when one is there to use, else NULL (then TCP with the token). */
static const char *
usable_socket(const struct config *cfg)
{
	struct stat st;
	if (cfg->api_socket != NULL && lstat(cfg->api_socket, &st) == 0 && S_ISSOCK(st.st_mode))
		return cfg->api_socket;
	return NULL;
}

/* `login-url`: ask the running daemon for a one-time dashboard login link, so the link never
 * carries the token itself; over its Unix socket unless tcp (--http given without --api-socket, as
 * for the other commands). *url is the whole link; -1 with *err when it cannot. */
int
client_login_url(const struct config *cfg, const char *token, int tcp, char **url, char **err)
{
	struct conn c = {.cfg = *cfg, .token = (char *)token, .sock = tcp ? NULL : usable_socket(cfg)};
	struct reply r = {0};
	if (http_call(&c, "POST", "/api/login-code", "application/json", NULL, "{}", 10000, &r, err) != 0)
		return -1;
	json_t *ans = json_loadb(r.body ? r.body : "", r.len, 0, NULL);
	const char *path = json_string_value(json_object_get(ans, "path"));
	int rc = -1;
	if (r.status == 200 && path != NULL && path[0] == '/') {
		*url = xasprintf("http://%s:%d%s", strchr(cfg->http_host, ':') ? "[::1]" : cfg->http_host, cfg->http_port,
		                 path);
		rc = 0;
	} else {
		const char *msg = json_string_value(json_object_get(ans, "message"));
		*err = xasprintf("the daemon did not give a login code (HTTP %d%s%s)", r.status, msg ? ": " : "",
		                 msg ? msg : "");
	}
	json_decref(ans);
	free(r.body);
	return rc;
}

/* Load the settings through the daemon's own loader, giving it only the flags it knows. */
static int
conn_open(struct conn *c, const struct cli *o, int need_token)
{
	char *argv[10], *err = NULL;
	int argc = 0, stop_at;
	argv[argc++] = (char *)o->cmd->name;
	if (o->config) {
		argv[argc++] = (char *)"--config";
		argv[argc++] = (char *)o->config;
	}
	if (o->token_file) {
		argv[argc++] = (char *)"--token-file";
		argv[argc++] = (char *)o->token_file;
	}
	if (o->http) {
		argv[argc++] = (char *)"--http";
		argv[argc++] = (char *)o->http;
	}
	if (o->api_socket) {
		argv[argc++] = (char *)"--api-socket";
		argv[argc++] = (char *)o->api_socket;
	}
	argv[argc] = NULL;
	c->token = NULL;
	c->sock = NULL;
	if (serve_load_config(&c->cfg, argc, argv, &stop_at, &err) != 0) {
		fprintf(stderr, "browser-bridge %s: %s\n", o->cmd->name, err);
		free(err);
		return CLIENT_EXIT_USAGE;
	}
	/* The daemon's Unix socket when it is there (or asked for): the token stays home. TCP with the token
	 * only when there is no socket, or when --http names an address and no --api-socket was given. */
	if (c->cfg.api_socket != NULL && (o->api_socket != NULL || (o->http == NULL && usable_socket(&c->cfg) != NULL)))
		c->sock = c->cfg.api_socket;
	if (!need_token || c->sock != NULL)
		return CLIENT_EXIT_OK;
	c->token = auth_read_token(c->cfg.token_file, 0, &err);
	if (c->token == NULL) {
		fprintf(stderr, "browser-bridge %s: %s; is the daemon running? (browser-bridge serve)\n", o->cmd->name,
		        err);
		free(err);
		return CLIENT_EXIT_DAEMON;
	}
	return CLIENT_EXIT_OK;
}

/* Forget the token and the settings. */
static void
conn_close(struct conn *c)
{
	if (c->token) {
		explicit_bzero(c->token, strlen(c->token));
		free(c->token);
	}
	config_free(&c->cfg);
}

/* Map an HTTP status that is not an answer to a tool call to an exit code. */
static int
exit_for_http(int status)
{
	switch (status) {
	case 200: return CLIENT_EXIT_OK;
	case 400:
	case 413:
	case 415: return CLIENT_EXIT_USAGE;
	case 401:
	case 403: return CLIENT_EXIT_DAEMON;
	case 503: return CLIENT_EXIT_NO_BROWSER;
	case 504: return CLIENT_EXIT_TIMEOUT;
	default: return CLIENT_EXIT_TOOL_ERROR;
	}
}

/* Send a request and turn every failure into a message and an exit code; *out gets a JSON body. */
static int
request(struct conn *c, const struct cli *o, const char *method, const char *path, const char *accept,
        const char *body, long timeout_ms, struct reply *r, json_t **out)
{
	char *err = NULL;
	*out = NULL;
	memset(r, 0, sizeof *r);
	if (http_call(c, method, path, accept, NULL, body, timeout_ms, r, &err) != 0) {
		fprintf(stderr, "browser-bridge %s: %s\n", o->cmd->name, err);
		free(err);
		return CLIENT_EXIT_DAEMON;
	}
	if (r->status == 200 && strcmp(accept, "application/json") != 0)
		return CLIENT_EXIT_OK;
	json_error_t je;
	*out = json_loadb(r->body, r->len, JSON_ALLOW_NUL, &je);
	if (o->json && *out != NULL) {
		fwrite(r->body, 1, r->len, stdout);
		if (r->len == 0 || r->body[r->len - 1] != '\n')
			putchar('\n');
	}
	if (*out == NULL && r->status == 200) {
		fprintf(stderr, "browser-bridge %s: the daemon's answer is not JSON: %s\n", o->cmd->name, je.text);
		return CLIENT_EXIT_DAEMON;
	}
	return CLIENT_EXIT_OK;
}

/* How long a request that is not a tool call may take: --timeout, else the default call timeout. */
static int
plain_timeout(const struct cli *o, long *ms)
{
	*ms = BB_CALL_TIMEOUT_DEFAULT_MS;
	if (o->timeout == NULL)
		return 0;
	if (util_parse_long(o->timeout, BB_CALL_TIMEOUT_MIN_MS, BB_CALL_TIMEOUT_MAX_MS, ms) == 0)
		return 0;
	fprintf(stderr, "browser-bridge %s: --timeout takes milliseconds from %d to %d\n", o->cmd->name,
	        BB_CALL_TIMEOUT_MIN_MS, BB_CALL_TIMEOUT_MAX_MS);
	return -1;
}

/* Say why a request failed (the daemon's message, with a hint for token trouble) and pick the exit code. */
static int
report_failure(const struct cli *o, const struct reply *r, json_t *ans)
{
	const char *msg = json_string_value(json_object_get(ans, "message"));
	fprintf(stderr, "browser-bridge %s: ", o->cmd->name);
	put_clean(stderr, msg ? msg : "the daemon refused the request", 0);
	fprintf(stderr, " (HTTP %d)", r->status);
	if (r->status == 401)
		fprintf(stderr, "; the token does not match the daemon's: check --token-file");
	fputc('\n', stderr);
	int rc = exit_for_http(r->status);
	return rc == CLIENT_EXIT_OK ? CLIENT_EXIT_TOOL_ERROR : rc;
}

/* Decode base64 (standard alphabet, padding optional, whitespace ignored); -1 on a bad character. */
static int
base64_decode(const char *in, size_t len, unsigned char **out, size_t *outlen)
{
	unsigned char *o = xmalloc(len / 4 * 3 + 3);
	size_t n = 0;
	unsigned acc = 0;
	int bits = 0, pad = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)in[i];
		int v;
		if (ch >= 'A' && ch <= 'Z')
			v = ch - 'A';
		else if (ch >= 'a' && ch <= 'z')
			v = ch - 'a' + 26;
		else if (ch >= '0' && ch <= '9')
			v = ch - '0' + 52;
		else if (ch == '+')
			v = 62;
		else if (ch == '/')
			v = 63;
		else if (ch == '=') {
			pad++;
			continue;
		} else if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t')
			continue;
		else
			goto fail;
		if (pad)
			goto fail; /* data after padding */
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			o[n++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	if (bits >= 6 || pad > 2)
		goto fail; /* a lone sixth of a byte: truncated input */
	*out = o;
	*outlen = n;
	return 0;
fail:
	free(o);
	return -1;
}

/* Write the screenshot's PNG to FILE (or stdout for -). */
static int
write_png(const char *cmd, const char *file, json_t *result)
{
	json_t *data = json_object_get(result, "data");
	unsigned char *png = NULL;
	size_t n = 0;
	int fd = -1, rc = CLIENT_EXIT_TOOL_ERROR;
	if (!json_is_string(data) ||
	    base64_decode(json_string_value(data), json_string_length(data), &png, &n) != 0 || n < 8 ||
	    memcmp(png, "\x89PNG\r\n\x1a\n", 8) != 0) {
		fprintf(stderr, "browser-bridge %s: the browser's result.data is not a base64 PNG image\n", cmd);
		goto fail;
	}
	fd = strcmp(file, "-") == 0 ? STDOUT_FILENO : open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "browser-bridge %s: cannot write %s: %s\n", cmd, file, strerror(errno));
		goto fail;
	}
	for (size_t off = 0; off < n;) {
		ssize_t w = write(fd, png + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			fprintf(stderr, "browser-bridge %s: cannot write %s: %s\n", cmd, file, strerror(errno));
			goto fail;
		}
		off += (size_t)w;
	}
	if (fd != STDOUT_FILENO && close(fd) != 0) {
		fd = -1;
		fprintf(stderr, "browser-bridge %s: cannot write %s: %s\n", cmd, file, strerror(errno));
		goto fail;
	}
	fd = -1;
	rc = CLIENT_EXIT_OK;
fail:
	if (fd >= 0 && fd != STDOUT_FILENO)
		close(fd);
	free(png);
	return rc;
}

/* The tabs of a list_tabs result as a table; * marks the active tab. */
static void
print_tabs(json_t *tabs)
{
	size_t i;
	json_t *t;
	printf("  %8s  %-*s  %s\n", "ID", CLIENT_TITLE_COLS, "TITLE", "URL");
	json_array_foreach(tabs, i, t)
	{
		json_t *id = json_object_get(t, "tabId");
		if (id == NULL)
			id = json_object_get(t, "tab_id");
		printf("%c %8lld  ", json_is_true(json_object_get(t, "active")) ? '*' : ' ',
		       (long long)json_integer_value(id));
		const char *title = json_string_value(json_object_get(t, "title"));
		put_clean(stdout, title, CLIENT_TITLE_COLS);
		/* pad to the column, counting characters rather than bytes */
		int n = 0;
		for (const unsigned char *p = (const unsigned char *)(title ? title : ""); *p; p++)
			n += (*p & 0xc0) != 0x80;
		printf("%*s  ", n < CLIENT_TITLE_COLS ? CLIENT_TITLE_COLS - n : 0, "");
		put_clean(stdout, json_string_value(json_object_get(t, "url")), 0);
		putchar('\n');
	}
}

/* Turn a command-line string into the JSON type the schema gives the property. */
static json_t *
coerce(const char *key, json_t *ps, const char *s, char **err)
{
	const char *type = json_string_value(json_object_get(ps, "type"));
	if (type && !strcmp(type, "integer")) {
		long v;
		if (util_parse_long(s, LONG_MIN, LONG_MAX, &v) != 0) {
			*err = xasprintf("%s: expected an integer, got \"%s\"", key, s);
			return NULL;
		}
		return json_integer(v);
	}
	if (type && !strcmp(type, "boolean")) {
		if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "1"))
			return json_true();
		if (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "0"))
			return json_false();
		*err = xasprintf("%s: expected true or false, got \"%s\"", key, s);
		return NULL;
	}
	json_t *v = json_string(s);
	if (v == NULL)
		*err = xasprintf("%s: not valid UTF-8", key);
	return v;
}

/* Add the options every tool takes to the call's parameters. */
static int
add_common(json_t *params, json_t *props, const struct cli *o, char **err)
{
	const char *vals[3] = {o->client_id, o->tab, o->timeout};
	const char *keys[3] = {"client_id", "tab_id", "timeout_ms"};
	for (int i = 0; i < 3; i++) {
		if (vals[i] == NULL)
			continue;
		json_t *v = coerce(keys[i], json_object_get(props, keys[i]), vals[i], err);
		if (v == NULL)
			return -1;
		json_object_set_new(params, keys[i], v);
	}
	if (o->no_page)
		json_object_set_new(params, "wait_for_page_info", json_false());
	return 0;
}

/* Call a tool and present its answer: summary on stderr, then the page, the tabs or the PNG. */
static int
run_tool(const struct cli *o, struct tools *tt, const struct tool *t, json_t *params, const char *file)
{
	json_t *schema = tools_schema(tt, t), *props = json_object_get(schema, "properties");
	json_t *ans = NULL;
	char *err = NULL, *body = NULL, *path = NULL;
	struct conn c;
	struct reply r = {0};
	int rc, opened = 0;
	if (add_common(params, props, o, &err) != 0) {
		fprintf(stderr, "browser-bridge %s: %s\n", o->cmd->name, err);
		rc = CLIENT_EXIT_USAGE;
		goto fail;
	}
	json_t *bad = tools_validate(tt, t, params);
	if (bad != NULL) {
		fprintf(stderr, "browser-bridge %s: %s (see browser-bridge %s --help)\n", o->cmd->name,
		        json_string_value(json_object_get(bad, "message")), o->cmd->name);
		json_decref(bad);
		rc = CLIENT_EXIT_USAGE;
		goto fail;
	}
	rc = conn_open(&c, o, 1);
	opened = 1;
	if (rc != CLIENT_EXIT_OK)
		goto fail;
	json_t *tmo = json_object_get(params, "timeout_ms");
	long timeout = (tmo ? (long)json_integer_value(tmo) : BB_CALL_TIMEOUT_DEFAULT_MS) + CLIENT_GRACE_MS;
	body = json_dumps(params, JSON_COMPACT);
	path = xasprintf("/api/tools/%s", t->name);
	rc = request(&c, o, "POST", path, "application/json", body, timeout, &r, &ans);
	if (rc != CLIENT_EXIT_OK)
		goto fail;
	const char *status = json_string_value(json_object_get(ans, "status"));
	const char *summary = json_string_value(json_object_get(ans, "summary"));
	if (summary == NULL || (r.status != 200 && r.status != 504 && r.status != 503)) {
		rc = report_failure(o, &r, ans);
		goto fail;
	}
	if (!o->json) {
		put_clean(stderr, summary, 0);
		fputc('\n', stderr);
	}
	if (r.status != 200) {
		/* The browser did act but its page could not be stored: a failed request, not a missing browser. */
		const char *code = json_string_value(json_object_get(ans, "error"));
		rc = code && !strcmp(code, "history_unavailable") ? CLIENT_EXIT_TOOL_ERROR : exit_for_http(r.status);
		goto fail;
	}
	if (status == NULL || strcmp(status, "success") != 0) {
		rc = CLIENT_EXIT_TOOL_ERROR;
		goto fail;
	}
	json_t *result = json_object_get(ans, "result"), *page = json_object_get(ans, "page");
	if (file != NULL) {
		rc = write_png(o->cmd->name, file, result);
		if (rc == CLIENT_EXIT_OK && !o->json && strcmp(file, "-") != 0)
			fprintf(stderr, "Wrote %s (%lld x %lld).\n", file,
			        (long long)json_integer_value(json_object_get(result, "width")),
			        (long long)json_integer_value(json_object_get(result, "height")));
		goto fail;
	}
	if (o->json)
		goto fail;
	if (json_is_array(json_object_get(result, "tabs")) && o->cmd->kind == K_TABS) {
		print_tabs(json_object_get(result, "tabs"));
	} else if (json_is_string(json_object_get(page, "markdown"))) {
		json_t *md = json_object_get(page, "markdown");
		put_markdown(json_string_value(md), json_string_length(md));
		if (json_is_true(json_object_get(page, "truncated")))
			fprintf(stderr, "(the browser truncated this page's Markdown)\n");
	} else if (json_is_array(json_object_get(result, "tabs"))) {
		print_tabs(json_object_get(result, "tabs"));
	}
fail:
	if (opened)
		conn_close(&c);
	free(err);
	free(body);
	free(path);
	free(r.body);
	json_decref(ans);
	return rc;
}

/* Append key=value to a query string, percent-encoding the value. */
static void
query_add(struct buf *b, const char *key, const char *v)
{
	if (v == NULL)
		return;
	buf_printf(b, "%c%s=", strchr(b->data, '?') ? '&' : '?', key);
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~", *p))
			buf_add(b, p, 1);
		else
			buf_printf(b, "%%%02X", *p);
	}
}

/* GET a path and insist on 200: the reply (and its JSON) is left for the caller to render, any
 * other answer is reported here; the exit code either way. */
static int
get_ok(const struct cli *o, const char *path, const char *accept, long tmo, struct reply *r, json_t **ans)
{
	struct conn c;
	int rc = conn_open(&c, o, 1);
	if (rc == CLIENT_EXIT_OK)
		rc = request(&c, o, "GET", path, accept, NULL, tmo, r, ans);
	if (rc == CLIENT_EXIT_OK && r->status != 200)
		rc = report_failure(o, r, *ans);
	conn_close(&c);
	return rc;
}

/* `history`: the pages kept, as a table of id, time, title and URL. */
static int
run_history(const struct cli *o)
{
	struct reply r = {0};
	struct buf path = {0};
	json_t *ans = NULL;
	long n, tmo;
	int rc;
	if (plain_timeout(o, &tmo) != 0)
		return CLIENT_EXIT_USAGE;
	if (o->npos > 1) {
		fprintf(stderr, "browser-bridge history: unexpected argument \"%s\" (quote a query of several words)\n",
		        o->pos[1]);
		return CLIENT_EXIT_USAGE;
	}
	if ((o->limit && util_parse_long(o->limit, 1, BB_HISTORY_LIMIT_MAX, &n) != 0) ||
	    (o->before && util_parse_long(o->before, 1, LONG_MAX, &n) != 0)) {
		fprintf(stderr, "browser-bridge history: --limit takes 1 to %d, --before a page id\n",
		        BB_HISTORY_LIMIT_MAX);
		return CLIENT_EXIT_USAGE;
	}
	buf_adds(&path, "/api/history");
	query_add(&path, "q", o->npos ? o->pos[0] : NULL);
	query_add(&path, "url", o->url);
	query_add(&path, "limit", o->limit);
	query_add(&path, "before", o->before);
	if ((rc = get_ok(o, path.data, "application/json", tmo, &r, &ans)) != CLIENT_EXIT_OK || o->json)
		goto fail;
	json_t *pages = json_object_get(ans, "pages"), *p;
	size_t i;
	printf("%8s  %-24s  %-*s  %s\n", "ID", "TIME", CLIENT_TITLE_COLS, "TITLE", "URL");
	json_array_foreach(pages, i, p)
	{
		const char *title = json_string_value(json_object_get(p, "title"));
		printf("%8lld  %-24s  ", (long long)json_integer_value(json_object_get(p, "id")),
		       jstr(p, "captured_at", ""));
		put_clean(stdout, title, CLIENT_TITLE_COLS);
		int w = 0;
		for (const unsigned char *q = (const unsigned char *)(title ? title : ""); *q; q++)
			w += (*q & 0xc0) != 0x80;
		printf("%*s  ", w < CLIENT_TITLE_COLS ? CLIENT_TITLE_COLS - w : 0, "");
		put_clean(stdout, json_string_value(json_object_get(p, "url")), 0);
		putchar('\n');
	}
	json_t *nb = json_object_get(ans, "next_before");
	if (json_is_integer(nb))
		fprintf(stderr, "(more: --before %lld)\n", (long long)json_integer_value(nb));
fail:
	buf_free(&path);
	free(r.body);
	json_decref(ans);
	return rc;
}

/* `show ID`: one history page's Markdown (or its JSON). */
static int
run_show(const struct cli *o)
{
	struct reply r = {0};
	json_t *ans = NULL;
	char *path = NULL;
	long id, tmo;
	int rc;
	if (plain_timeout(o, &tmo) != 0)
		return CLIENT_EXIT_USAGE;
	if (o->npos != 1 || util_parse_long(o->pos[0], 1, LONG_MAX, &id) != 0) {
		fprintf(stderr, "browser-bridge show: expected one page id (see browser-bridge history)\n");
		return CLIENT_EXIT_USAGE;
	}
	path = xasprintf("/api/history/%ld", id);
	rc = get_ok(o, path, o->json ? "application/json" : "text/markdown", tmo, &r, &ans);
	if (rc == CLIENT_EXIT_OK && !o->json)
		put_markdown(r.body, r.len);
	free(path);
	free(r.body);
	json_decref(ans);
	return rc;
}

/* `status`: the daemon, its browsers and their tabs, and the history database, for a person. */
static int
run_status(const struct cli *o)
{
	struct reply r = {0};
	json_t *ans = NULL;
	long tmo;
	int rc;
	if (plain_timeout(o, &tmo) != 0)
		return CLIENT_EXIT_USAGE;
	if (o->npos > 0) {
		fprintf(stderr, "browser-bridge status: unexpected argument \"%s\"\n", o->pos[0]);
		return CLIENT_EXIT_USAGE;
	}
	if ((rc = get_ok(o, "/api/status", "application/json", tmo, &r, &ans)) != CLIENT_EXIT_OK || o->json)
		goto fail;
	json_t *browsers = json_object_get(ans, "browsers"), *b, *db = json_object_get(ans, "database");
	printf("browser-bridge %s: HTTP %s, WebSocket %s\n", jstr(ans, "version", "?"),
	       jstr(ans, "http", "?"), jstr(ans, "ws", "?"));
	printf("calls in flight: %lld\n", (long long)json_integer_value(json_object_get(ans, "calls_in_flight")));
	printf("history: %lld pages, %lld commands, %lld bytes in %s\n",
	       (long long)json_integer_value(json_object_get(db, "pages")),
	       (long long)json_integer_value(json_object_get(db, "commands")),
	       (long long)json_integer_value(json_object_get(db, "bytes")),
	       jstr(db, "path", "?"));
	printf("browsers: %zu%s\n", json_array_size(browsers),
	       json_array_size(browsers) ? "" : " (install the extension and pair it: browser-bridge token)");
	size_t i;
	json_array_foreach(browsers, i, b)
	{
		printf("\n");
		put_clean(stdout, json_string_value(json_object_get(b, "client_id")), 0);
		printf(": ");
		put_clean(stdout, json_string_value(json_object_get(b, "browser")), 0);
		printf(" ");
		put_clean(stdout, json_string_value(json_object_get(b, "browser_version")), 0);
		printf(", extension ");
		put_clean(stdout, json_string_value(json_object_get(b, "extension_version")), 0);
		printf(", connected %s\n", jstr(b, "connected_at", "?"));
		print_tabs(json_object_get(b, "tabs"));
	}
fail:
	free(r.body);
	json_decref(ans);
	return rc;
}

/* `tools`: the catalog, from this binary (it is the daemon's, too). */
static int
run_tools(const struct cli *o, struct tools *tt)
{
	if (o->npos > 0) {
		fprintf(stderr, "browser-bridge tools: unexpected argument \"%s\"\n", o->pos[0]);
		return CLIENT_EXIT_USAGE;
	}
	if (o->json) {
		json_t *cat = tools_catalog(tt);
		char *s = json_dumps(cat, JSON_INDENT(2));
		printf("%s\n", s);
		free(s);
		json_decref(cat);
		return CLIENT_EXIT_OK;
	}
	size_t n;
	const struct tool *list = tools_list(&n);
	printf("%-22s  %-12s  %s\n", "TOOL", "COMMAND", "TITLE");
	for (size_t i = 0; i < n; i++) {
		const struct command *c = command_for_tool(list[i].name);
		printf("%-22s  %-12s  %s\n", list[i].name, c ? c->name : "call", list[i].title);
	}
	return CLIENT_EXIT_OK;
}

/* `call TOOL key=value ...`: parameters from the command line, typed by the tool's schema. */
static int
run_call(const struct cli *o, struct tools *tt, const struct tool *t)
{
	json_t *props = json_object_get(tools_schema(tt, t), "properties"), *params = NULL;
	char *err = NULL;
	if (o->json_params) {
		json_error_t je;
		params = json_loads(o->json_params, JSON_REJECT_DUPLICATES, &je);
		if (!json_is_object(params)) {
			fprintf(stderr, "browser-bridge call: --json-params: expected a JSON object%s%s\n",
			        params ? "" : ": ", params ? "" : je.text);
			json_decref(params);
			return CLIENT_EXIT_USAGE;
		}
	} else {
		params = json_object();
	}
	for (int i = 1; i < o->npos; i++) {
		const char *eq = strchr(o->pos[i], '=');
		if (eq == NULL || eq == o->pos[i]) {
			fprintf(stderr, "browser-bridge call: expected key=value, got \"%s\"\n", o->pos[i]);
			json_decref(params);
			return CLIENT_EXIT_USAGE;
		}
		char *key = xstrndup(o->pos[i], (size_t)(eq - o->pos[i]));
		json_t *v = coerce(key, json_object_get(props, key), eq + 1, &err);
		if (v == NULL) {
			fprintf(stderr, "browser-bridge call: %s\n", err);
			free(err);
			free(key);
			json_decref(params);
			return CLIENT_EXIT_USAGE;
		}
		json_object_set_new(params, key, v);
		free(key);
	}
	int rc = run_tool(o, tt, t, params, NULL);
	json_decref(params);
	return rc;
}

/* A tool command: operands and --flags become the tool's parameters. */
static int
run_tool_command(const struct cli *o, struct tools *tt)
{
	const struct command *c = o->cmd;
	const struct tool *t = find_tool(c->tool);
	json_t *params = json_deep_copy(o->flags), *props = json_object_get(tools_schema(tt, t), "properties");
	const char *file = NULL;
	char *err = NULL;
	int i, rc = CLIENT_EXIT_USAGE;
	for (i = 0; i < 2 && c->pos[i]; i++) {
		char meta[32];
		const char *prop;
		int opt;
		pos_spec(c->pos[i], meta, sizeof meta, &prop, &opt);
		if (i >= o->npos) {
			if (opt)
				break;
			fprintf(stderr, "browser-bridge %s: missing %s (see browser-bridge %s --help)\n", c->name, meta,
			        c->name);
			goto fail;
		}
		if (*prop == '\0') {
			file = o->pos[i];
			continue;
		}
		json_t *v = coerce(meta, json_object_get(props, prop), o->pos[i], &err);
		if (v == NULL) {
			fprintf(stderr, "browser-bridge %s: %s\n", c->name, err);
			goto fail;
		}
		json_object_set_new(params, prop, v);
	}
	if (o->npos > i) {
		fprintf(stderr, "browser-bridge %s: unexpected argument \"%s\" (see browser-bridge %s --help)\n",
		        c->name, o->pos[i], c->name);
		goto fail;
	}
	rc = run_tool(o, tt, t, params, file);
fail:
	free(err);
	json_decref(params);
	return rc;
}

/* The value of --name=value or --name value; NULL (and a message) when it is missing. */
static const char *
opt_value(const char *cmd, const char *arg, const char *eq, int argc, char **argv, int *i)
{
	if (eq != NULL)
		return eq + 1;
	if (*i + 1 >= argc) {
		fprintf(stderr, "browser-bridge %s: %s needs a value\n", cmd, arg);
		return NULL;
	}
	return argv[++*i];
}

/* A tool command's own --flag: a property of the tool (--new-tab, --no-clear, --amount 300). */
static int
tool_flag(struct cli *o, struct tools *tt, const char *name, size_t nl, const char *eq, int argc, char **argv, int *i)
{
	const struct tool *t = find_tool(o->cmd->tool);
	json_t *props = json_object_get(tools_schema(tt, t), "properties"), *ps = NULL, *v = NULL;
	char key[64], *err = NULL;
	int neg = 0;
	if (nl >= sizeof key)
		goto unknown;
	snprintf(key, sizeof key, "%.*s", (int)nl, name);
	for (char *p = key; *p; p++)
		if (*p == '-')
			*p = '_';
	if ((ps = json_object_get(props, key)) == NULL && strncmp(key, "no_", 3) == 0) {
		ps = json_object_get(props, key + 3);
		neg = 1;
		memmove(key, key + 3, strlen(key + 3) + 1);
	}
	const char *type = json_string_value(json_object_get(ps, "type"));
	int is_bool = type && !strcmp(type, "boolean");
	if (ps == NULL || is_common(key) || (neg && !is_bool))
		goto unknown;
	if (is_bool && eq != NULL) {
		fprintf(stderr, "browser-bridge %s: --%.*s takes no value\n", o->cmd->name, (int)nl, name);
		return -1;
	}
	if (is_bool) {
		v = json_boolean(!neg);
	} else {
		const char *s = opt_value(o->cmd->name, argv[*i], eq, argc, argv, i);
		if (s == NULL)
			return -1;
		if ((v = coerce(key, ps, s, &err)) == NULL) {
			fprintf(stderr, "browser-bridge %s: %s\n", o->cmd->name, err);
			free(err);
			return -1;
		}
	}
	json_object_set_new(o->flags, key, v);
	return 0;
unknown:
	fprintf(stderr, "browser-bridge %s: unknown option \"%s\" (see browser-bridge %s --help)\n", o->cmd->name,
	        argv[*i], o->cmd->name);
	return -1;
}

/* Parse the command line: options may come before, between or after the operands; -- ends them. */
static int
parse_args(struct cli *o, struct tools *tt, int argc, char **argv)
{
	const char *cmd = o->cmd->name;
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
			fprintf(stderr, "browser-bridge %s: unknown option \"%s\" (see browser-bridge %s --help)\n",
			        cmd, a, cmd);
			return -1;
		}
		const char *name = a + 2, *eq = strchr(name, '=');
		size_t nl = eq ? (size_t)(eq - name) : strlen(name);
		const char **slot = NULL;
		int *flag = NULL;
#define IS(s) (nl == strlen(s) && strncmp(name, s, nl) == 0)
		if (IS("config"))
			slot = &o->config;
		else if (IS("token-file"))
			slot = &o->token_file;
		else if (IS("http"))
			slot = &o->http;
		else if (IS("api-socket"))
			slot = &o->api_socket;
		else if (IS("client-id"))
			slot = &o->client_id;
		else if (IS("tab"))
			slot = &o->tab;
		else if (IS("timeout"))
			slot = &o->timeout;
		else if (IS("json"))
			flag = &o->json;
		else if (IS("no-page"))
			flag = &o->no_page;
		else if (o->cmd->kind == K_HISTORY && IS("url"))
			slot = &o->url;
		else if (o->cmd->kind == K_HISTORY && IS("limit"))
			slot = &o->limit;
		else if (o->cmd->kind == K_HISTORY && IS("before"))
			slot = &o->before;
		else if (o->cmd->kind == K_CALL && IS("json-params"))
			slot = &o->json_params;
#undef IS
		if (slot != NULL) {
			if ((*slot = opt_value(cmd, a, eq, argc, argv, &i)) == NULL)
				return -1;
		} else if (flag != NULL) {
			if (eq != NULL) {
				fprintf(stderr, "browser-bridge %s: %.*s takes no value\n", cmd, (int)(nl + 2), a);
				return -1;
			}
			*flag = 1;
		} else if (o->cmd->tool != NULL) {
			if (tool_flag(o, tt, name, nl, eq, argc, argv, &i) != 0)
				return -1;
		} else {
			fprintf(stderr, "browser-bridge %s: unknown option \"%s\" (see browser-bridge %s --help)\n",
			        cmd, a, cmd);
			return -1;
		}
	}
	return 0;
}

/* Write one JSON-RPC error line for a message the daemon could not be asked about. */
static void
mcp_error_line(json_t *id, int code, const char *msg)
{
	json_t *e = json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", id ? id : json_null(), "error", "code",
	                      code, "message", msg);
	char *s = json_dumps(e, JSON_COMPACT);
	printf("%s\n", s);
	fflush(stdout);
	free(s);
	json_decref(e);
}

/*
 * `mcp`: the stdio transport of MCP, relayed to Streamable HTTP. Each line on stdin is one message;
 * requests get the daemon's answer on stdout (one line), notifications get nothing. The session id
 * from initialize is sent with every later message, as the HTTP transport requires.
 */
static int
run_mcp(const struct cli *o)
{
	struct conn c;
	int rc = conn_open(&c, o, 1);
	if (rc != CLIENT_EXIT_OK)
		return rc;
	char session[65] = "", version[32] = "";
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, stdin)) > 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n == 0)
			continue;
		json_t *msg = json_loads(line, 0, NULL);
		json_t *id = json_object_get(msg, "id");
		const char *method = json_string_value(json_object_get(msg, "method"));
		if (method && strcmp(method, "initialize") == 0) {
			const char *v = json_string_value(json_object_get(json_object_get(msg, "params"), "protocolVersion"));
			snprintf(version, sizeof version, "%s", v ? v : "");
		}
		struct buf extra = {0};
		if (session[0])
			buf_printf(&extra, "Mcp-Session-Id: %s\r\n", session);
		if (version[0] && !(method && strcmp(method, "initialize") == 0))
			buf_printf(&extra, "MCP-Protocol-Version: %s\r\n", version);
		struct reply r;
		char *err = NULL;
		memset(&r, 0, sizeof r);
		if (http_call(&c, "POST", "/mcp", "application/json, text/event-stream", extra.data, line,
		              BB_CALL_TIMEOUT_MAX_MS + CLIENT_GRACE_MS, &r, &err) != 0) {
			fprintf(stderr, "browser-bridge mcp: %s\n", err);
			if (id)
				mcp_error_line(id, -32603, err);
			free(err);
		} else {
			if (r.session[0])
				snprintf(session, sizeof session, "%s", r.session);
			if (r.status != 202 && r.len > 0) {
				/* The daemon answers with compact JSON: already one line. */
				fwrite(r.body, 1, r.len, stdout);
				putchar('\n');
				fflush(stdout);
			}
			if (r.status == 401 || r.status == 403)
				fprintf(stderr, "browser-bridge mcp: the daemon refused us (HTTP %d); check the token file\n",
				        r.status);
		}
		free(r.body);
		buf_free(&extra);
		json_decref(msg);
	}
	free(line);
	conn_close(&c);
	return CLIENT_EXIT_OK;
}

/* Whether an option (written without =) consumes the next argument, so it is not an operand. */
static int
takes_value(const char *arg)
{
	static const char *const with_value[] = {"--config", "--token-file", "--http", "--api-socket", "--client-id", "--tab",
	                                         "--timeout", "--url", "--limit", "--before", "--json-params"};
	for (size_t i = 0; i < sizeof with_value / sizeof with_value[0]; i++)
		if (strcmp(arg, with_value[i]) == 0)
			return 1;
	return 0;
}

/* Print the help the command line asks for (--help or -h before any --); 1 when it did. */
static int
maybe_help(const struct command *c, struct tools *tt, int argc, char **argv)
{
	int help = 0;
	const char *first = NULL;
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			help = 1;
		else if (first == NULL && argv[i][0] != '-' && (i == 1 || !takes_value(argv[i - 1])))
			first = argv[i];
	}
	if (!help)
		return 0;
	const struct tool *t = first && c->kind == K_CALL ? find_tool_loosely(first) : NULL;
	if (t != NULL)
		help_call_tool(t, tt);
	else if (c->tool != NULL)
		help_tool_command(c, tt);
	else
		help_other(c);
	return 1;
}

/* Run a client subcommand: parse, call the daemon, print, and return one of the CLIENT_EXIT codes. */
int
client_main(int argc, char **argv)
{
	const struct command *c = find_command(argv[0]);
	if (c == NULL) {
		fprintf(stderr, "browser-bridge: unknown command \"%s\" (see browser-bridge --help)\n", argv[0]);
		return CLIENT_EXIT_USAGE;
	}
	/* The catalog's full schemas (with the common parameters) for help, typing and validation; no hub needed. */
	struct tools *tt = tools_create(NULL, NULL, NULL);
	struct cli o = {0};
	int rc = CLIENT_EXIT_USAGE;
	o.cmd = c;
	o.pos = xcalloc((size_t)argc, sizeof *o.pos);
	o.flags = json_object();
	if (maybe_help(c, tt, argc, argv)) {
		rc = CLIENT_EXIT_OK;
		goto fail;
	}
	if (parse_args(&o, tt, argc, argv) != 0)
		goto fail;
	switch (c->kind) {
	case K_TOOL:
	case K_TABS:
	case K_SCREENSHOT:
		rc = run_tool_command(&o, tt);
		break;
	case K_CALL: {
		const struct tool *t = o.npos ? find_tool_loosely(o.pos[0]) : NULL;
		if (t == NULL) {
			fprintf(stderr, "browser-bridge call: %s%s%s (see browser-bridge tools)\n",
			        o.npos ? "unknown tool \"" : "missing TOOL", o.npos ? o.pos[0] : "",
			        o.npos ? "\"" : "");
			goto fail;
		}
		rc = run_call(&o, tt, t);
		break;
	}
	case K_HISTORY: rc = run_history(&o); break;
	case K_SHOW: rc = run_show(&o); break;
	case K_STATUS: rc = run_status(&o); break;
	case K_TOOLS: rc = run_tools(&o, tt); break;
	case K_MCP: rc = run_mcp(&o); break;
	}
fail:
	/* A full disk or a closed pipe must not look like success to a script. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "browser-bridge %s: writing the output: %s\n", c->name, strerror(errno));
		if (rc == CLIENT_EXIT_OK)
			rc = CLIENT_EXIT_TOOL_ERROR;
	}
	json_decref(o.flags);
	free(o.pos);
	tools_free(tt);
	return rc;
}
