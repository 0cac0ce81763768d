/*
 * tools.h -- the tool catalog: typed data, one entry per tool, from which the JSON Schema of
 * GET /api/tools and MCP tools/list, parameter validation, the redaction of secrets in history and
 * the CLI's commands, operands, flags and help are all generated; and the call path that turns a
 * validated tool call into a hub call and its answer. Adding a tool means one entry in tools.c's
 * catalog (plus its handler in the extension).
 *
 * tools_create/tools_free: main thread. Everything else: any thread (the catalog is read-only once
 * built; the memory of the last page each caller received, which answers with what changed, is a
 * pageview.h with its own lock). The answer callback runs once, on whichever thread finished the call.
 */
#ifndef BB_TOOLS_H
#define BB_TOOLS_H

#include <stdatomic.h>

#include <jansson.h>

struct hub;
struct store;
struct events;
struct tools;
struct tool;
struct sessions;

/* A parameter's JSON type. TP_ENUM is a string from enums[]; TP_ARRAY an array of strings; TP_OBJECTS an
 * array of objects whose properties are the strings keys[] describes. */
enum tool_type { TP_STRING = 1, TP_INTEGER, TP_BOOLEAN, TP_ENUM, TP_ARRAY, TP_OBJECTS };

/* Parameter flags. */
#define TP_REQUIRED 0x01u   /* must be given */
#define TP_SECRET 0x02u     /* kept out of logs and history: only its length is recorded */
#define TP_COMMON 0x04u     /* one of the parameters every tool takes; not sent to the browser */
#define TP_POSITIONAL 0x08u /* the CLI takes it as an operand (named meta), in the order listed */
#define TP_TOOL_DEFAULT 0x10u /* boolean whose default is the tool's page_default (wait_for_page_info) */
#define TP_PATH 0x20u       /* CLI: a file path; a relative one is made absolute against the working directory */

/* Bounds, as designated initializers: minLength/maxLength (string), minimum/maximum (integer),
 * minItems/maxItems (array). */
#define TP_MIN(x) .min = (x), .has_min = 1
#define TP_MAX(x) .max = (x), .has_max = 1
/* The default: an integer or boolean (def_num), or a string or enum value (def_str). */
#define TP_DEFAULT(x) .def_num = (x), .has_def = 1
#define TP_DEFAULT_STR(x) .def_str = (x), .has_def = 1

/*
 * Turns a parameter's string value into what the browser is sent (open_url's address-bar text into
 * an absolute URL): NULL and *out (malloc'ed) when it is acceptable, else why not (and *out NULL).
 */
typedef const char *(*tool_normalize_fn)(const struct tools *t, const char *in, char **out);

/* One property of the objects of a TP_OBJECTS parameter: a string, with TP_REQUIRED and TP_SECRET
 * flags and length bounds (min 0 and max 0 mean none). A list of them ends at the first unnamed. */
struct tool_key {
	const char *name;
	unsigned flags;
	long long min, max;
	const char *description;
};

struct tool_param {
	const char *name;              /* JSON property name, snake_case */
	enum tool_type type;
	unsigned flags;                /* TP_* above */
	long long min, max;            /* bounds, when has_min / has_max say so (TP_MIN, TP_MAX) */
	unsigned char has_min, has_max, has_def;
	long long def_num;             /* the default of an integer or boolean */
	const char *def_str;           /* the default of a string or enum */
	const char *const *enums;      /* TP_ENUM: the allowed values, NULL-terminated */
	const char *description;       /* for a model and for --help */
	const char *meta;              /* CLI: operand name (TP_POSITIONAL) or flag value name; default S/N */
	const char *flag;              /* CLI: flag name when not the property name with '-' for '_' */
	tool_normalize_fn normalize;   /* string parameters: checked and rewritten before the call */
	const char *expects;           /* what normalize accepts, for the 400's "expected" */
	const struct tool_key *keys;   /* TP_OBJECTS: the properties of each object */
};

/* answer: the JSON body; http_status: what HTTP would say (200, 400, 503, 504, ...). */
typedef void (*tools_answer_fn)(json_t *answer, int http_status, void *arg);

/*
 * A tool the daemon answers itself, without a browser (the history tools): called on the caller's
 * thread with the validated parameters (borrowed); it must not block (reads go to a store reader
 * thread, store_submit) and answers through cb exactly once, from any thread.
 */
typedef void (*tools_local_fn)(struct tools *t, const struct tool *tool, json_t *params, tools_answer_fn cb,
                               void *arg);

/* How the CLI presents a tool's answer. */
enum tool_output { OUT_PAGE = 0, OUT_TABS, OUT_PNG };

#define TOOL_MAX_PARAMS 8

/* What a tool does to the browser, for MCP's tool annotations (and GET /api/tools' "annotations"). */
#define TOOL_READ_ONLY 0x01u   /* changes nothing (readOnlyHint) */
#define TOOL_DESTRUCTIVE 0x02u /* may destroy something: a tab, data a page keeps (destructiveHint) */
#define TOOL_IDEMPOTENT 0x04u  /* calling it again with the same arguments changes nothing more */

struct tool {
	const char *name;        /* browser_click */
	const char *command;     /* click: what the extension is sent (NULL for a local tool) */
	const char *title;       /* short human title */
	const char *description; /* for a model: what it does, when to use it, what comes back */
	const char *done;        /* summary when it worked, with {param} placeholders */
	const char *attempt;     /* "to <attempt>" when it did not */
	int page_default;        /* wait_for_page_info default */
	const char *cli;         /* the CLI command (NULL: only through `call`) */
	enum tool_output output; /* what the CLI prints; OUT_PNG also takes a FILE operand */
	unsigned hints;          /* TOOL_* above */
	/* A rule across parameters (e.g. text or selector): NULL when met, else the 400 body. */
	json_t *(*check)(const struct tool *tool, json_t *params);
	/* Daemon-side work on what the browser is sent, after validation (upload: read the files): NULL
	 * when done, else the 400 body. */
	json_t *(*prepare)(const struct tools *t, const struct tool *tool, json_t *args);
	struct tool_param params[TOOL_MAX_PARAMS]; /* its own parameters; ends at the first without a name */
	tools_local_fn local;    /* answered by the daemon (no browser, no common parameters), or NULL */
};

/*
 * Who makes a call: the agent session it belongs to. key identifies the session ("mcp:<id>" for an MCP
 * session, "http:<name>" for an HTTP caller that sent X-Browser-Bridge-Session, "" for the default
 * session shared by callers that name none); name is what a person is shown (clientInfo.name, the
 * header's value, "default"). Both borrowed for the duration of tools_call only.
 */
struct tools_caller {
	const char *key;
	const char *name;
	const char *call_id; /* the caller's own id for this call, to cancel it by (tools_cancel): the
	                      * X-Browser-Bridge-Call-Id, or the JSON-RPC id as JSON; NULL: by request_id only */
	atomic_int *parked;  /* may be NULL: 1 while the call waits for the user's approval of its session, else 0
	                      * (MCP progress says which wait it is); the caller's, valid until the answer */
};

#define TOOLS_SESSION_HEADER "X-Browser-Bridge-Session"
#define TOOLS_CALL_ID_HEADER "X-Browser-Bridge-Call-Id" /* an HTTP caller's own id for a call, to cancel it */
#define TOOLS_CALL_ID_MAX 64 /* a call id: 1..64 of A-Z a-z 0-9 . _ : - */
#define TOOLS_SESSION_NAME_MAX 64 /* a session name: 1..64 printable ASCII characters */

struct tools *tools_create(struct hub *hub, struct store *store, struct events *events);
void tools_free(struct tools *t);
const struct tool *tools_find(const struct tools *t, const char *name);
json_t *tools_catalog(const struct tools *t);
json_t *tools_names(const struct tools *t);
json_t *tools_schema(const struct tools *t, const struct tool *tool);
json_t *tools_validate(const struct tools *t, const struct tool *tool, json_t *params);
void tools_call(struct tools *t, const struct tool *tool, json_t *params, const struct tools_caller *who,
                tools_answer_fn cb, void *arg);
int tools_session_name_ok(const char *name);
int tools_call_id_ok(const char *id);
int tools_cancel(struct tools *t, const char *session_key, const char *id);
json_t *tools_error(const char *code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const struct tool *tools_list(size_t *n);
const struct tool_param *tools_common(size_t *n);
const struct tool_param *tools_next_param(const struct tool *tool, size_t *i);
const struct tool_param *tools_param(const struct tool *tool, const char *name);
json_t *tools_check_param(const char *tool, const struct tool_param *p, json_t *v);
json_t *tools_redacted(const struct tool *tool, json_t *params);
void tools_allow_file_urls(struct tools *t, int on);
void tools_set_upload_dirs(struct tools *t, char *const *dirs, int n, size_t max_message_bytes);
void tools_set_sessions(struct tools *t, struct sessions *s);
struct sessions *tools_sessions(const struct tools *t);
void tools_session_closed(struct tools *t, const char *key);
const char *tools_normalize_url(const char *in, int allow_file, char **out);
struct store *tools_store(const struct tools *t);
struct events *tools_events(const struct tools *t);

#endif
