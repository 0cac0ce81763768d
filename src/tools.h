/*
 * tools.h -- the tool catalog: one definition per tool, from which parameter validation,
 * GET /api/tools, MCP tools/list and the CLI's help are all generated; and the call path that
 * turns a validated tool call into a hub call and its answer.
 *
 * tools_create/tools_free: main thread. Everything else: any thread (the catalog is read-only once
 * built). The answer callback runs once, on whichever thread finished the call.
 */
#ifndef BB_TOOLS_H
#define BB_TOOLS_H

#include <jansson.h>

struct hub;
struct store;
struct events;
struct tools;

struct tool {
	const char *name;        /* browser_click */
	const char *command;     /* click: what the extension is sent */
	const char *title;       /* short human title */
	const char *description; /* for a model: what it does, when to use it, what comes back */
	const char *properties;  /* JSON object: the tool's own JSON Schema properties */
	const char *required;    /* JSON array of required property names */
	const char *done;        /* summary when it worked, with {param} placeholders */
	const char *attempt;     /* "to <attempt>" when it did not */
	int page_default;        /* wait_for_page_info default */
};

/* answer: the JSON body; http_status: what HTTP would say (200, 400, 503, 504, ...). */
typedef void (*tools_answer_fn)(json_t *answer, int http_status, void *arg);

struct tools *tools_create(struct hub *hub, struct store *store, struct events *events);
void tools_free(struct tools *t);
const struct tool *tools_find(const struct tools *t, const char *name);
json_t *tools_catalog(const struct tools *t);
json_t *tools_names(const struct tools *t);
json_t *tools_schema(const struct tools *t, const struct tool *tool);
json_t *tools_validate(const struct tools *t, const struct tool *tool, json_t *params);
void tools_call(struct tools *t, const struct tool *tool, json_t *params, tools_answer_fn cb, void *arg);
json_t *tools_error(const char *code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const struct tool *tools_list(size_t *n);
void tools_allow_file_urls(struct tools *t, int on);
const char *tools_normalize_url(const char *in, int allow_file, char **out);

#endif
