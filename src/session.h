/*
 * session.h -- agent sessions (issue 18, seed 004's page registry): which session owns which tab,
 * each session's current tab, approval by the user, revocation, and expiry when idle.
 *
 * A session is known by its key (struct tools_caller: "mcp:<id>", "http:<name>"; "" is the default
 * session, which owns nothing and acts on the active tab as before) and shown by its name. It owns
 * pages: server-made page ids ("p" + 16 hex digits) bound to a browser (client id) and a tab. A page
 * whose tab is not known yet (the browser is opening a new tab for it) has tab -1.
 *
 * Threads: one mutex guards the table; every function may be called from any thread. The resume
 * callbacks of waiting calls and the env's hooks (pick, wake, and the hub/events it publishes to) run
 * outside that lock, except pick and the headless pool's hub_pool_pick/hub_pool_release, which run
 * under it (lock order: session, then hub).
 */
#ifndef BB_SESSION_H
#define BB_SESSION_H

#include <stdatomic.h>
#include <stdint.h>
#include <jansson.h>

#include "limits.h"

struct sessions;
struct hub;
struct events;

#define SESSION_ID_LEN 13   /* "s" + 12 hex digits */
#define SESSION_PAGE_ID_LEN 17 /* "p" + 16 hex digits */

/*
 * Which browser serves a call that names none (or the named one, when client_id is not NULL) and
 * which of its tabs is active: fills out (the client id) and *active_tab (-1 when unknown). Returns
 * 0, or a HUB_E_* code (hub.h) when there is no such browser.
 */
typedef int (*session_pick_fn)(void *arg, const char *client_id, char out[BB_CLIENT_ID_MAX + 1], long *active_tab);

struct session_env {
	session_pick_fn pick;
	void *pick_arg;
	struct hub *hub;       /* NULL: tell no browser (unit tests) */
	struct events *events; /* NULL: publish nothing */
	void (*wake)(void *arg); /* a new deadline: have the loop call session_tick soon; may be NULL */
	void *wake_arg;
	int64_t ttl_ms;        /* idle sessions expire after this long */
	int approve;           /* a new session waits for the user's approval */
};

/* What a call asks for (in) and where it goes (out). */
struct session_call {
	const char *key;       /* in: the caller's session key ("" or NULL: the default session) */
	const char *name;      /* in: its name */
	const char *client_id; /* in: the browser the agent named, or NULL (an approved session of a headless
	                        * pool is then given its instance: client_id points at pooled) */
	long tab_id;           /* in: the tab the agent named, or -1 */
	int tabless;           /* in: the command needs no tab (list_tabs, open_url in a new tab) */
	int releases;          /* in: the command closes the named tab (close_tab) */
	const char *cancel_key; /* in: the caller's cancel handle (tools_caller), or NULL: session_cancel finds a
	                         * call parked for approval by it */
	atomic_int *parked;    /* in, may be NULL: set to 1 under the lock when the call is parked for approval,
	                        * before any resume can run (the resume's receiver sets it back to 0) */
	char id[SESSION_ID_LEN + 1];             /* out: the session's id, "" for the default session */
	char page_id[SESSION_PAGE_ID_LEN + 1];   /* out: the page it acts on, "" for none */
	char client_out[BB_CLIENT_ID_MAX + 1];   /* out: the browser, "" to let the hub choose */
	long tab_out;          /* out: the tab, -1 for the one the browser chooses */
	int new_tab;           /* out: the browser opens a new tab for page_id */
	char pooled[BB_CLIENT_ID_MAX + 1];       /* out: the pool instance taken for the session, "" for none */
};

enum session_verdict {
	SESSION_GO = 0,   /* start the call now */
	SESSION_WAIT,     /* the session awaits approval: resume is called later, exactly once */
	SESSION_FAIL,     /* refused: *err is the answer's body, *http its status */
	SESSION_DECLINED, /* (resume only) the user declined the session */
	SESSION_REVOKED,  /* (resume only) the user stopped the session while it waited */
	SESSION_TIMEOUT,  /* (resume only) no decision within the call's time */
	SESSION_GONE,     /* (resume only) the daemon is stopping */
	SESSION_CANCELLED /* (resume only) the caller cancelled it while it waited (session_cancel) */
};

typedef void (*session_resume_fn)(enum session_verdict v, void *arg);

struct sessions *session_create(const struct session_env *env);
struct sessions *session_create_hub(struct hub *h, struct events *ev, void (*wake)(void *), void *wake_arg,
                                    int64_t ttl_ms, int approve);
void session_free(struct sessions *s);
void session_shutdown(struct sessions *s);

int session_route(struct sessions *s, struct session_call *c, int64_t wait_ms, session_resume_fn resume, void *arg,
                  json_t **err, int *http);
void session_done(struct sessions *s, const struct session_call *c, const char *client_id, long result_tab);
int session_control(struct sessions *s, const char *id, const char *action, char **err);
void session_close(struct sessions *s, const char *key);
int session_cancel(struct sessions *s, const char *cancel_key);
int64_t session_tick(struct sessions *s, int64_t now_mono);
void session_on_tabs(struct sessions *s, const char *client_id, json_t *tabs);
json_t *session_list(struct sessions *s);
json_t *session_wire_list(struct sessions *s);

#endif
