/* hub.c -- see hub.h. */
#include "autoconfig.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "hub.h"
#include "limits.h"
#include "log.h"
#include "store.h"
#include "jsonio.h"
#include "util.h"

struct out_msg {
	struct out_msg *next;
	size_t len;
	char text[];
};

struct hub_browser {
	char client_id[BB_CLIENT_ID_MAX + 1];
	json_t *info;   /* hello data without the token */
	json_t *tabs;   /* last "tabs" list */
	void *conn;
	int64_t connected_ms, last_seen_ms;
	uint64_t active_seq; /* larger: more recently active */
	uint64_t paired;     /* smaller: paired earlier (in this daemon's life); the default is the earliest */
	int headless;        /* a headless runtime (hello runtime "headless", or a managed headless-* client) */
	int sessions_feature; /* hello features has "sessions": it is told about agent sessions */
	struct out_msg *out_head, *out_tail;
	size_t n_out;
	int want_write;
	struct hub_call *calls; /* calls this browser serves */
};

struct hub {
	pthread_mutex_t lock;
	struct store *store;
	struct events *events;
	hub_wake_fn wake;
	void *wake_arg;
	struct hub_browser *browsers[BB_MAX_BROWSERS];
	int n_browsers;
	uint64_t seq;
	struct hub_call **buckets; /* requestId -> call */
	size_t n_buckets, n_calls;
	struct hub_call **heap;    /* calls by deadline */
	size_t heap_len, heap_cap;
	int stopping;
	int wake_pending; /* wake() was called and the loop has not collected yet */
	/* The managed headless pool (hub_pool_*): its instances' client ids and which session is on which. */
	char pool[BB_HEADLESS_INSTANCES_MAX][BB_CLIENT_ID_MAX + 1];
	int n_pool;
	struct pool_seat *seats; /* BB_POOL_SESSIONS_MAX, allocated with the pool */
	int n_seats;
	uint64_t seat_seq;
	struct hub_observer obs;
	enum hub_runtime runtime;
	struct {
		char id[BB_CLIENT_ID_MAX + 1];
		uint64_t order;
	} paired[BB_MAX_BROWSERS * 4]; /* the order browsers first paired in, so a reconnect keeps its place */
	int n_paired;
	uint64_t pair_seq;
};

/* A session's headless instance: sticky, so its cookies and tabs stay where they are. */
struct pool_seat {
	char key[BB_POOL_KEY_MAX + 1]; /* the session key (struct tools_caller) */
	int inst;
	uint64_t used; /* larger: more recently used (the least recent is forgotten when the table is full) */
};

/* FNV-1a over the request id. */
static size_t
hash_rid(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (size_t)h;
}

/* Double the bucket array and rehash. */
static void
hash_grow(struct hub *h)
{
	size_t n = h->n_buckets * 2;
	struct hub_call **b = xcalloc(n, sizeof *b);
	for (size_t i = 0; i < h->n_buckets; i++) {
		for (struct hub_call *c = h->buckets[i], *nx; c != NULL; c = nx) {
			nx = c->hnext;
			size_t k = hash_rid(c->request_id) & (n - 1);
			c->hnext = b[k];
			b[k] = c;
		}
	}
	free(h->buckets);
	h->buckets = b;
	h->n_buckets = n;
}

/* Find a waiting call by request id; lock held. */
static struct hub_call *
hash_find(struct hub *h, const char *rid)
{
	for (struct hub_call *c = h->buckets[hash_rid(rid) & (h->n_buckets - 1)]; c != NULL; c = c->hnext)
		if (strcmp(c->request_id, rid) == 0)
			return c;
	return NULL;
}

/* Heap helpers: swap two slots and keep each call's index right. */
static void
heap_swap(struct hub *h, size_t a, size_t b)
{
	struct hub_call *t = h->heap[a];
	h->heap[a] = h->heap[b];
	h->heap[b] = t;
	h->heap[a]->heap_idx = a;
	h->heap[b]->heap_idx = b;
}

/* Restore heap order at i, in whichever direction it is broken. */
static void
heap_fix(struct hub *h, size_t i)
{
	while (i > 0 && h->heap[(i - 1) / 2]->deadline > h->heap[i]->deadline) {
		heap_swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->heap_len && h->heap[l]->deadline < h->heap[m]->deadline)
			m = l;
		if (r < h->heap_len && h->heap[r]->deadline < h->heap[m]->deadline)
			m = r;
		if (m == i)
			break;
		heap_swap(h, i, m);
		i = m;
	}
}

/* Register a call in the table, the deadline heap and its browser's list; lock held. */
static void
call_link(struct hub *h, struct hub_call *c)
{
	if (h->n_calls + 1 > h->n_buckets)
		hash_grow(h);
	size_t k = hash_rid(c->request_id) & (h->n_buckets - 1);
	c->hnext = h->buckets[k];
	h->buckets[k] = c;
	h->n_calls++;
	if (h->heap_len == h->heap_cap) {
		h->heap_cap = h->heap_cap ? h->heap_cap * 2 : 64;
		h->heap = xrealloc(h->heap, h->heap_cap * sizeof *h->heap);
	}
	c->heap_idx = h->heap_len;
	h->heap[h->heap_len++] = c;
	heap_fix(h, c->heap_idx);
	c->bprev = NULL;
	c->bnext = c->browser->calls;
	if (c->bnext)
		c->bnext->bprev = c;
	c->browser->calls = c;
}

/* Remove a call from every structure and record how it ended; lock held. */
static void
call_unlink(struct hub *h, struct hub_call *c, enum hub_outcome outcome)
{
	for (struct hub_call **pp = &h->buckets[hash_rid(c->request_id) & (h->n_buckets - 1)]; *pp;
	     pp = &(*pp)->hnext) {
		if (*pp == c) {
			*pp = c->hnext;
			break;
		}
	}
	h->n_calls--;
	c->hnext = NULL; /* from here on hnext links the list of finished calls */
	size_t i = c->heap_idx;
	h->heap_len--;
	if (i != h->heap_len) {
		h->heap[i] = h->heap[h->heap_len];
		h->heap[i]->heap_idx = i;
		heap_fix(h, i);
	}
	if (c->bprev)
		c->bprev->bnext = c->bnext;
	else
		c->browser->calls = c->bnext;
	if (c->bnext)
		c->bnext->bprev = c->bprev;
	c->browser = NULL;
	c->outcome = outcome;
}

/* Run the done callbacks of finished calls (chained through hnext), outside the lock. */
static void
run_done(struct hub_call *list)
{
	for (struct hub_call *c = list, *nx; c != NULL; c = nx) {
		nx = c->hnext;
		c->hnext = NULL;
		c->done(c, c->arg);
	}
}

/* A hub with no browsers. */
struct hub *
hub_create(struct store *store, struct events *events, hub_wake_fn wake, void *wake_arg)
{
	struct hub *h = xcalloc(1, sizeof *h);
	pthread_mutex_init(&h->lock, NULL);
	h->store = store;
	h->events = events;
	h->wake = wake;
	h->wake_arg = wake_arg;
	h->n_buckets = 1024;
	h->buckets = xcalloc(h->n_buckets, sizeof *h->buckets);
	return h;
}

/* Free the browser's queued output and itself. */
static void
browser_free(struct hub_browser *b)
{
	for (struct out_msg *m = b->out_head, *n; m != NULL; m = n) {
		n = m->next;
		free(m);
	}
	json_decref(b->info);
	json_decref(b->tabs);
	free(b);
}

/* Free the hub; call hub_shutdown first so no call is left waiting. NULL is fine. */
void
hub_free(struct hub *h)
{
	if (h == NULL)
		return;
	for (int i = 0; i < h->n_browsers; i++)
		browser_free(h->browsers[i]);
	free(h->buckets);
	free(h->heap);
	free(h->seats);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

/* Free a finished call (the done callback's job once it is done with it). NULL is fine. */
void
hub_call_free(struct hub_call *c)
{
	if (c == NULL)
		return;
	free(c->client_id);
	free(c->cancel_key);
	free(c->params);
	free(c->store_error);
	json_decref(c->result);
	json_decref(c->page);
	free(c);
}

/* Queue a message for a browser; lock held. */
static void
queue_out(struct hub_browser *b, const char *text)
{
	size_t n = strlen(text);
	struct out_msg *m = xmalloc(sizeof *m + n + 1);
	m->next = NULL;
	m->len = n;
	memcpy(m->text, text, n + 1);
	if (b->out_tail)
		b->out_tail->next = m;
	else
		b->out_head = m;
	b->out_tail = m;
	b->n_out++;
	b->want_write = 1;
}

/* Whether a browser is of the runtime default_runtime asks for; lock held. */
static int
runtime_ok(struct hub *h, const struct hub_browser *b)
{
	if (h->runtime == HUB_RUNTIME_DESKTOP)
		return !b->headless;
	if (h->runtime == HUB_RUNTIME_HEADLESS)
		return b->headless;
	for (int i = 0; i < h->n_browsers; i++) /* auto: the user's browser when one is connected */
		if (!h->browsers[i]->headless)
			return !b->headless;
	return 1;
}

/* The browser a call goes to: the named one, or by default_runtime the one paired first (a newly
 * paired browser never takes over silently); lock held. *why gets the HUB_E_* code for NULL. */
static struct hub_browser *
pick_browser(struct hub *h, const char *client_id, int *why)
{
	struct hub_browser *best = NULL;
	for (int i = 0; i < h->n_browsers; i++) {
		struct hub_browser *b = h->browsers[i];
		if (client_id != NULL) {
			if (strcmp(b->client_id, client_id) == 0)
				return b;
		} else if (runtime_ok(h, b) && (best == NULL || b->paired < best->paired)) {
			best = b;
		}
	}
	if (best == NULL)
		*why = h->n_browsers == 0 ? HUB_E_NO_BROWSER : client_id ? HUB_E_UNKNOWN_CLIENT : HUB_E_NO_RUNTIME;
	return best;
}

/* Hooks for the session table; main thread, before the loop runs. */
void
hub_set_observer(struct hub *h, const struct hub_observer *o)
{
	h->obs = *o;
}

/* default_runtime; main thread, before the loop runs. */
void
hub_set_runtime(struct hub *h, enum hub_runtime policy)
{
	h->runtime = policy;
}

/* Whether an agent may take over a tab showing url: a web page or an empty tab, not the browser's
 * own pages (settings, extensions, the extension's popup opened as a tab). */
static int
adoptable(const char *url)
{
	static const char *const ok[] = {"http:", "https:", "file:", "about:blank", "chrome://newtab", "edge://newtab", NULL};
	if (url == NULL || *url == '\0')
		return 1;
	for (int i = 0; ok[i]; i++)
		if (strncmp(url, ok[i], strlen(ok[i])) == 0)
			return 1;
	return 0;
}

/* The active tab of a browser's last tabs list (in its focused window when it says so), or -1 when
 * there is none an agent may adopt; lock held. */
static long
active_tab(const struct hub_browser *b)
{
	long first = -1;
	size_t i;
	json_t *t;
	json_array_foreach(b->tabs, i, t)
	{
		if (!json_is_true(json_object_get(t, "active")))
			continue;
		long id = (long)json_integer_value(json_object_get(t, "tabId"));
		int ok = adoptable(json_string_value(json_object_get(t, "url")));
		if (json_is_true(json_object_get(t, "focused")))
			return ok ? id : -1;
		if (first < 0 && ok)
			first = id;
	}
	return first;
}

/* Which browser a call would go to (see pick_browser) and its active tab: 0 and out filled, or HUB_E_*. */
int
hub_pick(struct hub *h, const char *client_id, char *out, size_t outsz, long *active)
{
	int why = HUB_OK;
	pthread_mutex_lock(&h->lock);
	struct hub_browser *b = h->stopping ? NULL : pick_browser(h, client_id, &why);
	if (h->stopping)
		why = HUB_E_STOPPING;
	if (b != NULL) {
		snprintf(out, outsz, "%s", b->client_id);
		*active = active_tab(b);
		why = HUB_OK;
	}
	pthread_mutex_unlock(&h->lock);
	return why;
}

/* Queue one message for browser b (and have the loop send it); lock held. Returns whether to wake. */
static int
send_locked(struct hub *h, struct hub_browser *b, const char *text)
{
	queue_out(b, text);
	int need = !h->wake_pending;
	h->wake_pending = 1;
	return need;
}

/* Queue {type, data} for every browser that announced feature ("sessions") or the one named client_id, and
 * wake the loop if any was queued; steals data. One body for the broadcast and the addressed send. */
static void
send_matching(struct hub *h, const char *feature, const char *client_id, const char *type, json_t *data)
{
	json_t *msg = json_pack("{s:s, s:o}", "type", type, "data", data);
	char *text = jsonio_write(msg, NULL);
	json_decref(msg);
	int wake = 0;
	pthread_mutex_lock(&h->lock);
	for (int i = 0; i < h->n_browsers; i++) {
		struct hub_browser *b = h->browsers[i];
		int match = client_id != NULL ? strcmp(b->client_id, client_id) == 0
		                              : strcmp(feature, "sessions") == 0 && b->sessions_feature;
		if (match && b->n_out < BB_WS_MAX_QUEUED)
			wake |= send_locked(h, b, text);
	}
	pthread_mutex_unlock(&h->lock);
	free(text);
	if (wake)
		h->wake(h->wake_arg);
}

/* Send {type, data} to every browser that announced feature in its hello; steals data. Any thread. */
void
hub_send(struct hub *h, const char *feature, const char *type, json_t *data)
{
	send_matching(h, feature, NULL, type, data);
}

/* Send {type, data} to one browser, if it is connected; steals data. Any thread. */
void
hub_send_to(struct hub *h, const char *client_id, const char *type, json_t *data)
{
	send_matching(h, NULL, client_id, type, data);
}

/* Start a call: pick its browser, queue the command, arm the deadline. done runs exactly once. */
int
hub_call_start(struct hub *h, const struct hub_call_spec *sp, struct hub_call **out)
{
	pthread_mutex_lock(&h->lock);
	int err = HUB_OK;
	struct hub_browser *b = NULL;
	if (h->stopping)
		err = HUB_E_STOPPING;
	else if ((b = pick_browser(h, sp->client_id, &err)) == NULL)
		; /* err says why */
	else if (h->n_calls >= BB_CALLS_MAX_IN_FLIGHT || b->n_out >= BB_WS_MAX_QUEUED)
		err = HUB_E_BUSY;
	if (err != HUB_OK) {
		pthread_mutex_unlock(&h->lock);
		return err;
	}
	struct hub_call *c = xcalloc(1, sizeof *c);
	util_uuid4(c->request_id);
	c->tool = sp->tool;
	c->command = sp->command;
	c->client_id = xstrdup(b->client_id);
	c->cancel_key = sp->cancel_key ? xstrdup(sp->cancel_key) : NULL;
	size_t plen;
	c->params = sp->params ? jsonio_write(sp->params, &plen) : xstrdup("{}");
	if (sp->params)
		c->params = xrealloc(c->params, plen + 1); /* writer slack; this waits with the call */
	c->wait_page = sp->wait_page;
	c->started_ms = util_now_ms();
	c->deadline = util_mono_ms() + sp->timeout_ms;
	c->done = sp->done;
	c->arg = sp->arg;
	c->browser = b;

	json_t *data = sp->browser_args ? json_deep_copy(sp->browser_args) : json_object();
	json_object_set_new(data, "requestId", json_string(c->request_id));
	json_object_set_new(data, "command", json_string(c->command));
	if (sp->tab_id >= 0)
		json_object_set_new(data, "tabId", json_integer(sp->tab_id));
	json_object_set_new(data, "wait_for_page_info", json_boolean(c->wait_page));
	if (sp->session != NULL)
		json_object_set(data, "session", sp->session);
	json_t *msg = json_pack("{s:s, s:o}", "type", "command", "data", data);
	char *text = jsonio_write(msg, NULL);
	json_decref(msg);
	queue_out(b, text);
	free(text);
	call_link(h, c);
	/* The event is built under the lock (c may be answered and freed once it is released) and
	 * published after it, like every other hub event: events has a lock of its own. */
	json_t *ev = NULL;
	if (events_has_subscribers(h->events)) {
		char ts[32];
		util_iso8601(c->started_ms, ts);
		ev = json_pack("{s:s, s:s, s:O, s:s, s:s}", "request_id", c->request_id, "tool", c->tool, "params",
		               sp->params, "client_id", c->client_id, "started_at", ts);
		if (sp->session != NULL) /* the agent session it belongs to, by name */
			json_object_set(ev, "session", json_object_get(sp->session, "name"));
	}
	if (out)
		*out = c;
	/* One wakeup per batch of calls, not per call: the loop collects them all. */
	int need_wake = !h->wake_pending;
	h->wake_pending = 1;
	pthread_mutex_unlock(&h->lock);
	if (ev != NULL)
		events_publish(h->events, "call_start", ev);
	if (need_wake)
		h->wake(h->wake_arg);
	return HUB_OK;
}

/*
 * Cancel a waiting call, named by its request_id or by the cancel_key its caller gave: it is answered
 * at once as HUB_CANCELLED, and its browser is sent {"type": "cancel", "data": {"requestId"}} so that
 * a command still running there (a wait_for) stops. 0 when a call was cancelled, -1 when none waits
 * under that id (it finished already, or never was). The linear search for a cancel_key is fine:
 * cancellations are rare and the table holds at most BB_CALLS_MAX_IN_FLIGHT calls.
 */
int
hub_cancel(struct hub *h, const char *id)
{
	struct hub_call *c = NULL;
	int need_wake = 0;
	pthread_mutex_lock(&h->lock);
	if (strlen(id) == sizeof c->request_id - 1)
		c = hash_find(h, id);
	for (size_t i = 0; c == NULL && i < h->heap_len; i++)
		if (h->heap[i]->cancel_key != NULL && strcmp(h->heap[i]->cancel_key, id) == 0)
			c = h->heap[i];
	if (c != NULL) {
		char *text = xasprintf("{\"type\":\"cancel\",\"data\":{\"requestId\":\"%s\"}}", c->request_id);
		queue_out(c->browser, text);
		free(text);
		call_unlink(h, c, HUB_CANCELLED);
		need_wake = !h->wake_pending;
		h->wake_pending = 1;
	}
	pthread_mutex_unlock(&h->lock);
	if (c == NULL)
		return -1;
	if (need_wake)
		h->wake(h->wake_arg);
	c->done(c, c->arg);
	return 0;
}

/* Fail every waiting call and refuse new ones: the daemon is stopping. */
void
hub_shutdown(struct hub *h)
{
	struct hub_call *done = NULL, **tail = &done;
	pthread_mutex_lock(&h->lock);
	h->stopping = 1;
	while (h->heap_len > 0) {
		struct hub_call *c = h->heap[0];
		call_unlink(h, c, HUB_SHUTDOWN);
		*tail = c;
		tail = &c->hnext;
	}
	pthread_mutex_unlock(&h->lock);
	run_done(done);
}

/* Calls waiting right now. */
size_t
hub_calls_in_flight(struct hub *h)
{
	pthread_mutex_lock(&h->lock);
	size_t n = h->n_calls;
	pthread_mutex_unlock(&h->lock);
	return n;
}

/* Page bytes not yet in the database (0 without a store). */
size_t
hub_store_backlog(struct hub *h)
{
	return h->store ? store_backlog(h->store) : 0;
}

/* One browser as JSON for status and events; lock held. */
static json_t *
browser_json(struct hub_browser *b)
{
	char c[32], s[32];
	util_iso8601(b->connected_ms, c);
	util_iso8601(b->last_seen_ms, s);
	json_t *o = json_object();
	json_object_set_new(o, "client_id", json_string(b->client_id));
	json_object_set(o, "browser", json_object_get(b->info, "browser"));
	json_object_set(o, "browser_version", json_object_get(b->info, "browserVersion"));
	json_object_set(o, "extension_version", json_object_get(b->info, "extensionVersion"));
	json_object_set(o, "capabilities", json_object_get(b->info, "capabilities"));
	json_t *sa = json_object_get(b->info, "siteAccess"); /* whether it may read every site (doctor) */
	if (json_is_boolean(sa))
		json_object_set(o, "site_access", sa);
	json_object_set_new(o, "connected_at", json_string(c));
	json_object_set_new(o, "last_seen", json_string(s));
	json_object_set_new(o, "tabs", b->tabs ? json_incref(b->tabs) : json_array());
	size_t n = 0;
	for (struct hub_call *k = b->calls; k; k = k->bnext)
		n++;
	json_object_set_new(o, "calls_in_flight", json_integer((json_int_t)n));
	json_object_set_new(o, "runtime", json_string(b->headless ? "headless" : "desktop"));
	return o;
}

/* The connected browsers in the order they paired, each saying whether it is the default. */
json_t *
hub_browsers(struct hub *h)
{
	json_t *arr = json_array();
	int why;
	pthread_mutex_lock(&h->lock);
	struct hub_browser *def = pick_browser(h, NULL, &why), *sorted[BB_MAX_BROWSERS];
	int n = h->n_browsers;
	memcpy(sorted, h->browsers, (size_t)n * sizeof *sorted);
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && sorted[j]->paired < sorted[j - 1]->paired; j--) {
			struct hub_browser *t = sorted[j];
			sorted[j] = sorted[j - 1];
			sorted[j - 1] = t;
		}
	for (int i = 0; i < n; i++) {
		json_t *o = browser_json(sorted[i]);
		json_object_del(o, "capabilities");
		json_object_set_new(o, "tabs", json_integer((json_int_t)json_array_size(sorted[i]->tabs)));
		json_object_set_new(o, "default", json_boolean(sorted[i] == def));
		json_array_append_new(arr, o);
	}
	pthread_mutex_unlock(&h->lock);
	return arr;
}

/* The connected browsers, most recently active first. */
json_t *
hub_status(struct hub *h)
{
	json_t *arr = json_array();
	pthread_mutex_lock(&h->lock);
	struct hub_browser *sorted[BB_MAX_BROWSERS];
	int n = h->n_browsers;
	memcpy(sorted, h->browsers, (size_t)n * sizeof *sorted);
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && sorted[j]->active_seq > sorted[j - 1]->active_seq; j--) {
			struct hub_browser *t = sorted[j];
			sorted[j] = sorted[j - 1];
			sorted[j - 1] = t;
		}
	for (int i = 0; i < n; i++)
		json_array_append_new(arr, browser_json(sorted[i]));
	pthread_mutex_unlock(&h->lock);
	return arr;
}

/* Publish a browser event (connected, disconnected, tabs). */
static void
publish_browser(struct hub *h, const char *what, json_t *b)
{
	json_object_set_new(b, "event", json_string(what));
	events_publish(h->events, "browser", b);
}

/* Mark a browser as just heard from; lock held. */
static void
touch(struct hub *h, struct hub_browser *b, int active)
{
	b->last_seen_ms = util_now_ms();
	if (active)
		b->active_seq = ++h->seq;
}

/* The pairing order of a client id: its old place when it paired before, else the next; lock held. */
static uint64_t
pair_order(struct hub *h, const char *id)
{
	for (int i = 0; i < h->n_paired; i++)
		if (strcmp(h->paired[i].id, id) == 0)
			return h->paired[i].order;
	if (h->n_paired == (int)(sizeof h->paired / sizeof h->paired[0])) {
		/* Full: forget the places of browsers not connected now. */
		int k = 0;
		for (int i = 0; i < h->n_paired; i++) {
			int live = 0;
			for (int j = 0; j < h->n_browsers; j++)
				live |= strcmp(h->browsers[j]->client_id, h->paired[i].id) == 0;
			if (live)
				h->paired[k++] = h->paired[i];
		}
		h->n_paired = k;
	}
	snprintf(h->paired[h->n_paired].id, sizeof h->paired[0].id, "%s", id);
	h->paired[h->n_paired].order = ++h->pair_seq;
	return h->paired[h->n_paired++].order;
}

/* Register a browser after a valid hello. A browser with the same clientId is replaced (its
 * connection is returned in *replaced for the caller to close). NULL when the table is full. */
struct hub_browser *
hub_browser_attach(struct hub *h, json_t *hello, void *conn, void **replaced)
{
	const char *id = json_string_value(json_object_get(hello, "clientId"));
	struct hub_call *done = NULL;
	struct hub_browser *old = NULL, *b = NULL;
	*replaced = NULL;
	pthread_mutex_lock(&h->lock);
	for (int i = 0; i < h->n_browsers; i++) {
		if (strcmp(h->browsers[i]->client_id, id) == 0) {
			old = h->browsers[i];
			h->browsers[i] = h->browsers[--h->n_browsers];
			break;
		}
	}
	if (old != NULL) {
		*replaced = old->conn;
		while (old->calls) {
			struct hub_call *c = old->calls;
			call_unlink(h, c, HUB_DISCONNECTED);
			c->hnext = done;
			done = c;
		}
	}
	if (h->n_browsers < BB_MAX_BROWSERS) {
		b = xcalloc(1, sizeof *b);
		snprintf(b->client_id, sizeof b->client_id, "%s", id);
		b->paired = pair_order(h, id);
		const char *rt = json_string_value(json_object_get(hello, "runtime"));
		b->headless = (rt && strcmp(rt, "headless") == 0) || strncmp(id, "headless-", 9) == 0;
		size_t fi;
		json_t *f;
		json_array_foreach(json_object_get(hello, "features"), fi, f)
		{
			if (json_is_string(f) && strcmp(json_string_value(f), "sessions") == 0)
				b->sessions_feature = 1;
		}
		b->info = json_deep_copy(hello);
		json_object_del(b->info, "token");
		b->conn = conn;
		b->connected_ms = util_now_ms();
		touch(h, b, 1);
		h->browsers[h->n_browsers++] = b;
	}
	json_t *ev = b ? browser_json(b) : NULL;
	pthread_mutex_unlock(&h->lock);
	if (old)
		browser_free(old);
	run_done(done);
	if (ev)
		publish_browser(h, "connected", ev);
	if (b && b->sessions_feature && h->obs.attached)
		h->obs.attached(h->obs.arg, h, id);
	return b;
}

/* Forget a browser whose connection closed; its waiting calls fail at once. */
void
hub_browser_detach(struct hub *h, struct hub_browser *b)
{
	if (b == NULL)
		return;
	struct hub_call *done = NULL;
	pthread_mutex_lock(&h->lock);
	for (int i = 0; i < h->n_browsers; i++) {
		if (h->browsers[i] == b) {
			h->browsers[i] = h->browsers[--h->n_browsers];
			break;
		}
	}
	while (b->calls) {
		struct hub_call *c = b->calls;
		call_unlink(h, c, HUB_DISCONNECTED);
		c->hnext = done;
		done = c;
	}
	json_t *ev = json_pack("{s:s}", "client_id", b->client_id);
	pthread_mutex_unlock(&h->lock);
	browser_free(b);
	run_done(done);
	publish_browser(h, "disconnected", ev);
}

/* Find the call a message from browser b refers to; lock held. Sets *err when there is none. */
static struct hub_call *
call_for(struct hub *h, struct hub_browser *b, json_t *data, char **err)
{
	const char *rid = json_string_value(json_object_get(data, "requestId"));
	struct hub_call *c = rid ? hash_find(h, rid) : NULL;
	if (c == NULL || c->browser != b) {
		*err = xasprintf("unknown requestId \"%.40s\": not sent to this browser, or already finished "
		                 "(timed out?)", rid ? rid : "");
		return NULL;
	}
	return c;
}

/* A command_result arrived: the call completes now unless it still waits for its page. */
int
hub_on_result(struct hub *h, struct hub_browser *b, json_t *data, char **err)
{
	struct hub_call *done = NULL;
	pthread_mutex_lock(&h->lock);
	touch(h, b, 1);
	struct hub_call *c = call_for(h, b, data, err);
	if (c != NULL && c->result == NULL) {
		c->result = json_incref(data);
		int no_page = json_is_false(json_object_get(data, "pageFollows"));
		if (!c->wait_page || c->page != NULL || c->store_error != NULL || (no_page && !c->page_requested)) {
			call_unlink(h, c, c->store_error != NULL ? HUB_STORE_FAILED : HUB_COMPLETE);
			done = c;
		}
	}
	pthread_mutex_unlock(&h->lock);
	run_done(done);
	return c ? 0 : -1;
}

/* Publish the page event and attach the stored page to its call, or fail the call when the page
 * could not be stored; runs on the store thread. */
static void
page_stored(json_t *page, int64_t id, const char *error, void *arg)
{
	struct hub *h = arg;
	if (error == NULL && events_has_subscribers(h->events)) {
		json_t *ev = json_pack("{s:I, s:O, s:O, s:O, s:O, s:O, s:O, s:I}", "id", (json_int_t)id,
		                       "captured_at", json_object_get(page, "captured_at"), "client_id",
		                       json_object_get(page, "clientId"), "tab_id",
		                       json_object_get(page, "tabId") ? json_object_get(page, "tabId") : json_null(),
		                       "request_id",
		                       json_object_get(page, "requestId") ? json_object_get(page, "requestId")
		                                                          : json_null(),
		                       "url", json_object_get(page, "url"), "title", json_object_get(page, "title"),
		                       "bytes", (json_int_t)json_string_length(json_object_get(page, "markdown")));
		if (ev)
			events_publish(h->events, "page", ev);
	}
	const char *rid = json_string_value(json_object_get(page, "requestId"));
	if (rid == NULL)
		return;
	struct hub_call *done = NULL;
	pthread_mutex_lock(&h->lock);
	struct hub_call *c = hash_find(h, rid);
	const char *cid = json_string_value(json_object_get(page, "clientId"));
	if (c != NULL && c->page_requested && c->page == NULL && c->store_error == NULL && cid &&
	    strcmp(cid, c->client_id) == 0) {
		if (error == NULL)
			c->page = json_incref(page); /* id 0 only without a store (tests) */
		else
			c->store_error = xstrdup(error);
		if (c->result != NULL) {
			call_unlink(h, c, error == NULL ? HUB_COMPLETE : HUB_STORE_FAILED);
			done = c;
		}
	}
	pthread_mutex_unlock(&h->lock);
	run_done(done);
}

/* A pageInfoUpdate arrived: it is always stored; when it answers a call it is attached once stored. */
int
hub_on_page(struct hub *h, struct hub_browser *b, json_t *data, char **err)
{
	char ts[32];
	util_iso8601(util_now_ms(), ts);
	int rc = 0;
	int64_t keep_until = 0;
	pthread_mutex_lock(&h->lock);
	touch(h, b, 1);
	json_object_set_new(data, "clientId", json_string(b->client_id));
	json_object_set_new(data, "captured_at", json_string(ts));
	if (json_object_get(data, "requestId") != NULL) {
		struct hub_call *c = call_for(h, b, data, err);
		if (c == NULL)
			rc = -1;
		else if (c->wait_page && !c->page_requested)
			c->page_requested = 1;
		if (c != NULL)
			keep_until = c->deadline;
	}
	pthread_mutex_unlock(&h->lock);
	json_incref(data);
	if (h->store)
		store_add_page(h->store, data, keep_until, page_stored, h);
	else {
		page_stored(data, 0, NULL, h);
		json_decref(data);
	}
	return rc;
}

/* The browser's tab list changed. */
void
hub_on_tabs(struct hub *h, struct hub_browser *b, json_t *tabs)
{
	pthread_mutex_lock(&h->lock);
	touch(h, b, 1);
	json_decref(b->tabs);
	b->tabs = json_incref(tabs);
	json_t *ev = events_has_subscribers(h->events)
	                     ? json_pack("{s:s, s:O}", "client_id", b->client_id, "tabs", tabs)
	                     : NULL;
	pthread_mutex_unlock(&h->lock);
	if (ev)
		publish_browser(h, "tabs", ev);
	if (h->obs.tabs)
		h->obs.tabs(h->obs.arg, b->client_id, tabs);
}

/* A session_control message from a browser (the popup's Stop, Approve, Decline): the observer's. */
void
hub_on_control(struct hub *h, struct hub_browser *b, json_t *data)
{
	pthread_mutex_lock(&h->lock);
	touch(h, b, 0);
	pthread_mutex_unlock(&h->lock);
	if (h->obs.control)
		h->obs.control(h->obs.arg, h, b->client_id, data);
}

/* A heartbeat: the browser is alive (last_seen), though not active for choosing a default browser. */
void
hub_on_heartbeat(struct hub *h, struct hub_browser *b)
{
	pthread_mutex_lock(&h->lock);
	touch(h, b, 0);
	pthread_mutex_unlock(&h->lock);
}

/* Take the next queued message for a browser (caller frees), or NULL; len gets its length. */
char *
hub_next_out(struct hub *h, struct hub_browser *b, size_t *len)
{
	pthread_mutex_lock(&h->lock);
	struct out_msg *m = b->out_head;
	if (m != NULL) {
		b->out_head = m->next;
		if (b->out_head == NULL)
			b->out_tail = NULL;
		b->n_out--;
		*len = m->len;
	}
	pthread_mutex_unlock(&h->lock);
	if (m == NULL)
		return NULL;
	memmove(m, m->text, m->len + 1);
	return (char *)m;
}

/* Whether more messages wait for a browser. */
int
hub_out_pending(struct hub *h, struct hub_browser *b)
{
	pthread_mutex_lock(&h->lock);
	int more = b->out_head != NULL;
	pthread_mutex_unlock(&h->lock);
	return more;
}

/* Call fn for each browser connection that has new output queued since the last collection. */
void
hub_collect_writable(struct hub *h, void (*fn)(void *conn, void *arg), void *arg)
{
	pthread_mutex_lock(&h->lock);
	h->wake_pending = 0;
	for (int i = 0; i < h->n_browsers; i++) {
		struct hub_browser *b = h->browsers[i];
		if (b->want_write) {
			b->want_write = 0;
			fn(b->conn, arg);
		}
	}
	pthread_mutex_unlock(&h->lock);
}

/* Time out every call whose deadline has passed; returns the next deadline, or -1 if none. A call
 * whose page reached us but is still waiting for the database fails as HUB_STORE_FAILED with the
 * store's reason, when it has one: the page did arrive, it could not be stored. A call the browser
 * has not answered is cancelled there as hub_cancel does: a wait_for given a timeout_ms shorter
 * than its wait_ms kept waiting in the tab, and the next call on it waited behind it (8.7 s). */
int64_t
hub_expire(struct hub *h, int64_t now)
{
	struct hub_call *done = NULL, **tail = &done;
	char *fault = NULL;
	int fault_read = 0;
	pthread_mutex_lock(&h->lock);
	while (h->heap_len > 0 && h->heap[0]->deadline <= now) {
		struct hub_call *c = h->heap[0];
		enum hub_outcome why = HUB_TIMEOUT;
		if (c->page_requested && c->page == NULL && c->result != NULL && h->store != NULL) {
			if (!fault_read) {
				fault = store_fault(h->store); /* the store's own lock nests inside the hub's */
				fault_read = 1;
			}
			if (fault != NULL && c->store_error == NULL) {
				c->store_error = xstrdup(fault);
				why = HUB_STORE_FAILED;
			}
		}
		if (why == HUB_TIMEOUT && c->result == NULL) {
			char *text = xasprintf("{\"type\":\"cancel\",\"data\":{\"requestId\":\"%s\"}}", c->request_id);
			queue_out(c->browser, text);
			free(text);
		}
		call_unlink(h, c, why);
		*tail = c;
		tail = &c->hnext;
	}
	free(fault);
	int64_t next = h->heap_len > 0 ? h->heap[0]->deadline : -1;
	pthread_mutex_unlock(&h->lock);
	run_done(done);
	if (h->obs.tick) {
		int64_t n2 = h->obs.tick(h->obs.arg, now);
		if (n2 >= 0 && (next < 0 || n2 < next))
			next = n2;
	}
	return next;
}

/*
 * The managed headless pool (serve --headless N). Sessions that name no browser are spread across
 * its instances, so parallel agents share neither cookies nor tabs: the session table (session_route)
 * asks hub_pool_pick for the client id when an approved session's call names no client_id (the default
 * session "" never; a call parked for approval, declined or revoked takes no seat).
 * A session stays on its instance (sticky); a new one goes to the connected instance with the fewest
 * sessions. Only a pool of two or more instances does this: a single --headless browser is chosen as
 * any default browser is (pick_browser). The session table releases a session's seat when the
 * session ends, expires or is stopped (hub_pool_release).
 */

/* Register the pool's client ids (serve, main thread, once the instances started); n is capped. */
void
hub_set_pool(struct hub *h, const char *const *client_ids, int n)
{
	pthread_mutex_lock(&h->lock);
	h->n_pool = 0;
	for (int i = 0; i < n && i < BB_HEADLESS_INSTANCES_MAX; i++)
		snprintf(h->pool[h->n_pool++], sizeof h->pool[0], "%s", client_ids[i]);
	if (h->seats == NULL)
		h->seats = xcalloc(BB_POOL_SESSIONS_MAX, sizeof *h->seats);
	h->n_seats = 0;
	pthread_mutex_unlock(&h->lock);
}

/* The instance for a session (out, BB_CLIENT_ID_MAX + 1 bytes: its client id): 0, or -1 when there is no pool of two or more,
 * or key is the default session's. Any thread. */
int
hub_pool_pick(struct hub *h, const char *key, char out[])
{
	if (key == NULL || *key == '\0' || strlen(key) >= sizeof h->seats[0].key)
		return -1;
	pthread_mutex_lock(&h->lock);
	if (h->n_pool < 2) {
		pthread_mutex_unlock(&h->lock);
		return -1;
	}
	struct pool_seat *seat = NULL;
	for (int i = 0; i < h->n_seats && seat == NULL; i++)
		if (strcmp(h->seats[i].key, key) == 0)
			seat = &h->seats[i];
	if (seat == NULL) {
		int load[BB_HEADLESS_INSTANCES_MAX] = {0}, best = -1, why;
		for (int i = 0; i < h->n_seats; i++)
			load[h->seats[i].inst]++;
		for (int pass = 0; pass < 2 && best < 0; pass++) /* a connected instance first, else any */
			for (int i = 0; i < h->n_pool; i++)
				if ((pass == 1 || pick_browser(h, h->pool[i], &why) != NULL) && (best < 0 || load[i] < load[best]))
					best = i;
		if (h->n_seats < BB_POOL_SESSIONS_MAX) {
			seat = &h->seats[h->n_seats++];
		} else { /* full: the least recently used session is forgotten */
			seat = &h->seats[0];
			for (int i = 1; i < h->n_seats; i++)
				if (h->seats[i].used < seat->used)
					seat = &h->seats[i];
		}
		snprintf(seat->key, sizeof seat->key, "%s", key);
		seat->inst = best;
	}
	seat->used = ++h->seat_seq;
	memcpy(out, h->pool[seat->inst], sizeof h->pool[0]);
	pthread_mutex_unlock(&h->lock);
	return 0;
}

/* Forget a session's instance (the session ended); its next call is placed again. */
void
hub_pool_release(struct hub *h, const char *key)
{
	pthread_mutex_lock(&h->lock);
	for (int i = 0; i < h->n_seats; i++)
		if (strcmp(h->seats[i].key, key) == 0) {
			h->seats[i] = h->seats[--h->n_seats];
			break;
		}
	pthread_mutex_unlock(&h->lock);
}

/* The pool for /api/status: each instance's client id, whether it is connected, its sessions. */
json_t *
hub_pool_status(struct hub *h)
{
	json_t *a = json_array();
	pthread_mutex_lock(&h->lock);
	for (int i = 0; i < h->n_pool; i++) {
		int n = 0, why;
		for (int k = 0; k < h->n_seats; k++)
			n += h->seats[k].inst == i;
		json_array_append_new(a, json_pack("{s:s, s:b, s:i}", "client_id", h->pool[i], "connected",
		                                   pick_browser(h, h->pool[i], &why) != NULL, "sessions", n));
	}
	pthread_mutex_unlock(&h->lock);
	return a;
}
