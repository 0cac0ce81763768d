/*
 * hub.h -- connected browsers, their tabs, and the tool calls waiting on them.
 *
 * One mutex guards everything here. Threads:
 *  - hub_call_start, hub_cancel, hub_status, hub_calls_in_flight, hub_store_backlog, hub_pick,
 *    hub_browsers, hub_send, hub_send_to, hub_pool_pick, hub_pool_release, hub_pool_status: any thread
 *    (the event loop for HTTP, FastCGI; a store reader; the session table's, under its lock);
 *  - hub_set_observer, hub_set_runtime: the main thread, before the loop runs; hub_set_pool: the main
 *    thread once the headless pool started (the loop runs by then: calls before it are not pooled);
 *  - hub_browser_*, hub_on_*, hub_next_out, hub_out_pending, hub_collect_writable, hub_expire: the
 *    event loop thread (ws.h), which owns the connections (the hub only keeps an opaque pointer to each);
 *  - a call's done callback runs exactly once, outside the lock, on whichever thread finished it
 *    (the loop: result, disconnect, timeout; the store thread: page committed; the canceller's:
 *    hub_cancel; main: shutdown).
 * The hub never does I/O: it queues outgoing messages and calls wake() so the loop sends them (on
 * the loop thread itself that costs no system call).
 */
#ifndef BB_HUB_H
#define BB_HUB_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

struct hub;
struct hub_browser;
struct store;
struct events;

enum hub_outcome {
	HUB_COMPLETE,     /* the result (and the page, if asked for) arrived */
	HUB_DISCONNECTED, /* the browser went away during the call */
	HUB_TIMEOUT,      /* timeout_ms passed */
	HUB_SHUTDOWN,     /* the daemon is stopping */
	HUB_STORE_FAILED, /* the browser answered, but its page could not be stored (store_error says why) */
	HUB_CANCELLED     /* the caller cancelled it (hub_cancel); the browser was told to stop */
};

enum hub_start_error {
	HUB_OK = 0,
	HUB_E_NO_BROWSER,     /* nobody connected */
	HUB_E_UNKNOWN_CLIENT, /* client_id named a browser that is not connected */
	HUB_E_BUSY,           /* too many calls in flight or queued */
	HUB_E_STOPPING,       /* shutdown has begun */
	HUB_E_NO_RUNTIME      /* browsers are connected, but none of the runtime default_runtime asks for */
};

/* default_runtime: which browser serves calls that name none (config.c's order). */
enum hub_runtime { HUB_RUNTIME_AUTO = 0, HUB_RUNTIME_DESKTOP, HUB_RUNTIME_HEADLESS };

struct hub_call;
typedef void (*hub_call_fn)(struct hub_call *call, void *arg);

/* A call. Fields are written by the hub under its lock; the done callback may read them all. */
struct hub_call {
	char request_id[37];
	const char *tool;    /* borrowed from the spec: must outlive the call */
	const char *command; /* borrowed from the spec: must outlive the call */
	char *client_id;     /* the browser that serves it */
	char *cancel_key;    /* the caller's own handle for hub_cancel (see hub_call_spec), or NULL */
	char *params;        /* the agent's parameters as compact JSON: text is a tenth of a json_t tree,
	                      * and 10,000 calls may wait at once */
	int wait_page;
	int64_t started_ms;  /* wall clock */
	int64_t deadline;    /* monotonic */
	enum hub_outcome outcome;
	json_t *result;      /* command_result data, or NULL */
	json_t *page;        /* stored page (with history_id, captured_at), or NULL */
	int page_requested;  /* a page for this call is on its way to the database */
	char *store_error;   /* HUB_STORE_FAILED: why the page was not stored (one sentence) */
	hub_call_fn done;
	void *arg;
	/* hub-private links */
	struct hub_call *hnext;
	struct hub_call *bprev, *bnext;
	struct hub_browser *browser;
	size_t heap_idx;
};

struct hub_call_spec {
	const char *tool;      /* borrowed for the whole call (a static table's entry) */
	const char *command;   /* borrowed for the whole call */
	json_t *params;        /* borrowed: the agent's parameters, logged and shown */
	json_t *browser_args;  /* borrowed: fields added to the command message */
	const char *client_id; /* NULL: the default browser (default_runtime's first paired; see pick_browser) */
	long tab_id;           /* < 0: none */
	int wait_page;
	long timeout_ms;
	hub_call_fn done;
	void *arg;
	const char *cancel_key; /* the caller's handle, "<session key>#<its own call id>" (tools_cancel: the
	                         * X-Browser-Bridge-Call-Id or the JSON-RPC id, scoped to its session), so it can
	                         * cancel the call before it knows its request_id; NULL: by request_id only */
	json_t *session;       /* borrowed: the command's "session" object (protocol.md), or NULL */
};

typedef void (*hub_wake_fn)(void *arg);

/*
 * Who else hears about browsers (the session table): each hook may be NULL and runs outside the
 * hub's lock. tabs and control run on the event loop thread; tick runs from hub_expire and returns
 * its own next deadline (monotonic ms, or -1); attached runs when a browser has been welcomed.
 */
struct hub_observer {
	void (*tabs)(void *arg, const char *client_id, json_t *tabs);
	void (*control)(void *arg, struct hub *h, const char *client_id, json_t *data);
	int64_t (*tick)(void *arg, int64_t now_mono);
	void (*attached)(void *arg, struct hub *h, const char *client_id);
	void *arg;
};

struct hub *hub_create(struct store *store, struct events *events, hub_wake_fn wake, void *wake_arg);
void hub_free(struct hub *h);

int hub_call_start(struct hub *h, const struct hub_call_spec *spec, struct hub_call **out);
void hub_call_free(struct hub_call *c);
int hub_cancel(struct hub *h, const char *id);
void hub_shutdown(struct hub *h);
json_t *hub_status(struct hub *h);
size_t hub_calls_in_flight(struct hub *h);
size_t hub_store_backlog(struct hub *h);
void hub_set_observer(struct hub *h, const struct hub_observer *o);
void hub_set_runtime(struct hub *h, enum hub_runtime policy);
int hub_pick(struct hub *h, const char *client_id, char *out, size_t outsz, long *active_tab);
void hub_send(struct hub *h, const char *feature, const char *type, json_t *data);
void hub_send_to(struct hub *h, const char *client_id, const char *type, json_t *data);
json_t *hub_browsers(struct hub *h);

/* The managed headless pool (see hub.c): serve registers it; the session table picks per approved session. */
void hub_set_pool(struct hub *h, const char *const *client_ids, int n);
int hub_pool_pick(struct hub *h, const char *key, char out[]);
void hub_pool_release(struct hub *h, const char *key);
json_t *hub_pool_status(struct hub *h);

/* Event loop thread only. */
struct hub_browser *hub_browser_attach(struct hub *h, json_t *hello, void *conn, void **replaced);
void hub_browser_detach(struct hub *h, struct hub_browser *b);
int hub_on_result(struct hub *h, struct hub_browser *b, json_t *data, char **err);
int hub_on_page(struct hub *h, struct hub_browser *b, json_t *data, char **err);
void hub_on_tabs(struct hub *h, struct hub_browser *b, json_t *tabs);
void hub_on_heartbeat(struct hub *h, struct hub_browser *b);
void hub_on_control(struct hub *h, struct hub_browser *b, json_t *data);
char *hub_next_out(struct hub *h, struct hub_browser *b, size_t *len);
int hub_out_pending(struct hub *h, struct hub_browser *b);
void hub_collect_writable(struct hub *h, void (*fn)(void *conn, void *arg), void *arg);
int64_t hub_expire(struct hub *h, int64_t now_mono);

#endif
