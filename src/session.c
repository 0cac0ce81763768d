/* session.c -- see session.h. */
#include "autoconfig.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "hub.h"
#include "log.h"
#include "session.h"
#include "util.h"

enum sstate { ST_PENDING, ST_ACTIVE, ST_REVOKED, ST_DECLINED };
static const char *const state_names[] = {"pending", "active", "revoked", "declined"};

struct page {
	char id[SESSION_PAGE_ID_LEN + 1];
	char client[BB_CLIENT_ID_MAX + 1];
	long tab;      /* -1: the browser is opening a new tab for it */
	int seen;      /* its tab was in a tabs list: its absence from a later one means it was closed */
	uint64_t used; /* larger: used more recently */
};

struct waiter {
	struct waiter *next;
	session_resume_fn fn;
	void *arg;
	int64_t deadline; /* monotonic */
	char *cancel_key; /* the caller's cancel handle, owned, or NULL */
	enum session_verdict verdict; /* once it is resumed */
};

struct sess {
	char *key;
	char name[BB_SESSION_NAME_MAX + 1];
	char id[SESSION_ID_LEN + 1];
	enum sstate state;
	int64_t created_ms, last_used_ms; /* wall clock, for people */
	int64_t last_mono;                /* last call started or ended, or state change (monotonic) */
	struct page pages[BB_SESSION_PAGES_MAX];
	int n_pages;
	int current; /* index into pages, or -1 */
	int in_flight;
	struct waiter *waiters;
	int n_waiters;
};

struct sessions {
	pthread_mutex_t lock;
	struct session_env env;
	struct sess *tab[BB_AGENT_SESSIONS_MAX];
	int n;
	uint64_t seq;
	int stopping;
};

/* What to tell others once the lock is released: events, browsers, waiting calls. */
struct news {
	json_t *events[32];
	int n_events;
	struct waiter *resume; /* calls to resume, chained through next, each with its verdict */
	int changed;           /* the session list changed: send it to the browsers */
	int wake;              /* a deadline moved: have the loop call session_tick */
};

/* A session table with no sessions. */
struct sessions *
session_create(const struct session_env *env)
{
	struct sessions *s = xcalloc(1, sizeof *s);
	pthread_mutex_init(&s->lock, NULL);
	s->env = *env;
	if (s->env.ttl_ms <= 0)
		s->env.ttl_ms = BB_SESSION_TTL_DEFAULT_S * 1000L;
	return s;
}

/* Free one session and its waiters (which must have been resumed). */
static void
sess_free(struct sess *x)
{
	free(x->key);
	free(x);
}

/* Free the table; session_shutdown first so no call is left waiting. NULL is fine. */
void
session_free(struct sessions *s)
{
	if (s == NULL)
		return;
	for (int i = 0; i < s->n; i++)
		sess_free(s->tab[i]);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* A session as people and the dashboard see it; lock held. */
static json_t *
sess_json(const struct sess *x)
{
	char c[32], u[32];
	util_iso8601(x->created_ms, c);
	util_iso8601(x->last_used_ms, u);
	json_t *tabs = json_array();
	for (int i = 0; i < x->n_pages; i++) {
		const struct page *p = &x->pages[i];
		json_array_append_new(tabs, json_pack("{s:s, s:s, s:o, s:b}", "page_id", p->id, "client_id", p->client,
		                                      "tab_id", p->tab >= 0 ? json_integer(p->tab) : json_null(),
		                                      "current", i == x->current));
	}
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:i, s:i}", "id", x->id, "name", x->name, "state",
	                 state_names[x->state], "created_at", c, "last_used_at", u, "tabs", tabs, "calls_in_flight",
	                 x->in_flight, "waiting_calls", x->n_waiters);
}

/* Record an event about x for after the lock ("created", "approved", "expired", ...); lock held. */
static void
news_event(struct news *nw, const struct sess *x, const char *what)
{
	json_t *ev = sess_json(x);
	json_object_set_new(ev, "event", json_string(what));
	if (nw->n_events < (int)(sizeof nw->events / sizeof nw->events[0]))
		nw->events[nw->n_events++] = ev;
	else
		json_decref(ev);
	nw->changed = 1;
}

/* Hand x's waiting calls to nw with verdict v; lock held. */
static void
news_resume_all(struct news *nw, struct sess *x, enum session_verdict v)
{
	while (x->waiters) {
		struct waiter *w = x->waiters;
		x->waiters = w->next;
		w->next = nw->resume;
		nw->resume = w;
		w->verdict = v;
	}
	x->n_waiters = 0;
}

/* Publish what happened, tell the browsers, resume waiting calls: after the lock. */
static void
news_flush(struct sessions *s, struct news *nw)
{
	for (int i = 0; i < nw->n_events; i++) {
		json_t *ev = nw->events[i];
		const char *what = json_string_value(json_object_get(ev, "event"));
		if (s->env.hub && what &&
		    (!strcmp(what, "revoked") || !strcmp(what, "expired") || !strcmp(what, "declined") || !strcmp(what, "closed")))
			hub_send(s->env.hub, "sessions", "session_end",
			         json_pack("{s:O, s:O, s:s}", "id", json_object_get(ev, "id"), "name",
			                   json_object_get(ev, "name"), "reason", what));
		if (s->env.events)
			events_publish(s->env.events, "session", ev);
		else
			json_decref(ev);
	}
	if (nw->changed && s->env.hub)
		hub_send(s->env.hub, "sessions", "sessions", session_wire_list(s));
	for (struct waiter *w = nw->resume, *nx; w != NULL; w = nx) {
		nx = w->next;
		w->fn(w->verdict, w->arg);
		free(w->cancel_key);
		free(w);
	}
	if (nw->wake && s->env.wake)
		s->env.wake(s->env.wake_arg);
}

/* The session with this key, or NULL; lock held. */
static struct sess *
by_key(struct sessions *s, const char *key)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->tab[i]->key, key) == 0)
			return s->tab[i];
	return NULL;
}

/* The session with this id, or NULL; lock held. */
static struct sess *
by_id(struct sessions *s, const char *id)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->tab[i]->id, id) == 0)
			return s->tab[i];
	return NULL;
}

/* The live session owning a browser's tab (and the page's index), or NULL; lock held. */
static struct sess *
owner_of(struct sessions *s, const char *client, long tab, int *idx)
{
	if (tab < 0)
		return NULL;
	for (int i = 0; i < s->n; i++) {
		struct sess *x = s->tab[i];
		for (int j = 0; j < x->n_pages; j++)
			if (x->pages[j].tab == tab && strcmp(x->pages[j].client, client) == 0) {
				if (idx)
					*idx = j;
				return x;
			}
	}
	return NULL;
}

/* Remove a session from the table (not freed); lock held. */
static void
unlink_sess(struct sessions *s, struct sess *x)
{
	for (int i = 0; i < s->n; i++)
		if (s->tab[i] == x) {
			s->tab[i] = s->tab[--s->n];
			return;
		}
}

/* Forget page j of x, keeping current pointing at the same page, or the most recently used one. */
static void
drop_page(struct sess *x, int j)
{
	int cur = x->current;
	x->pages[j] = x->pages[--x->n_pages];
	if (cur == j)
		cur = -1;
	else if (cur == x->n_pages)
		cur = j;
	if (cur < 0) {
		for (int i = 0; i < x->n_pages; i++)
			if (cur < 0 || x->pages[i].used > x->pages[cur].used)
				cur = i;
	}
	x->current = cur;
}

/* A new page of x on client, bound to tab (or -1), made current; the least recently used page is
 * forgotten (its tab stays open) when x has the most it may. Lock held. */
static struct page *
add_page(struct sessions *s, struct sess *x, const char *client, long tab)
{
	if (x->n_pages == BB_SESSION_PAGES_MAX) {
		int old = 0;
		for (int i = 1; i < x->n_pages; i++)
			if (x->pages[i].used < x->pages[old].used)
				old = i;
		drop_page(x, old);
	}
	struct page *p = &x->pages[x->n_pages];
	memset(p, 0, sizeof *p);
	unsigned char r[8];
	util_random(r, sizeof r);
	p->id[0] = 'p';
	util_hex(r, sizeof r, p->id + 1);
	snprintf(p->client, sizeof p->client, "%s", client);
	p->tab = tab;
	p->used = ++s->seq;
	x->current = x->n_pages++;
	return p;
}

/* An error body as tools.c writes them. */
static json_t *
err_body(const char *code, const char *msg)
{
	return json_pack("{s:s, s:s, s:s}", "status", "error", "error", code, "message", msg);
}

/* A new session for key; NULL when the table is full of live ones. Lock held. */
static struct sess *
new_sess(struct sessions *s, const char *key, const char *name)
{
	if (s->n == BB_AGENT_SESSIONS_MAX) {
		/* Make room by forgetting the oldest revoked or declined session. */
		struct sess *old = NULL;
		for (int i = 0; i < s->n; i++) {
			struct sess *x = s->tab[i];
			if ((x->state == ST_REVOKED || x->state == ST_DECLINED) && (old == NULL || x->last_mono < old->last_mono))
				old = x;
		}
		if (old == NULL)
			return NULL;
		unlink_sess(s, old);
		sess_free(old);
	}
	struct sess *x = xcalloc(1, sizeof *x);
	x->key = xstrdup(key);
	snprintf(x->name, sizeof x->name, "%s", name && *name ? name : "agent");
	unsigned char r[6];
	util_random(r, sizeof r);
	x->id[0] = 's';
	util_hex(r, sizeof r, x->id + 1);
	x->state = s->env.approve ? ST_PENDING : ST_ACTIVE;
	x->created_ms = x->last_used_ms = util_now_ms();
	x->last_mono = util_mono_ms();
	x->current = -1;
	s->tab[s->n++] = x;
	return x;
}

/* The answer for a hub's refusal to pick a browser. */
static json_t *
pick_error(int code, const char *client)
{
	char msg[256];
	if (code == HUB_E_UNKNOWN_CLIENT) {
		snprintf(msg, sizeof msg, "no browser with client_id \"%.64s\" is connected (see /api/status)", client);
		return err_body("unknown_client", msg);
	}
	if (code == HUB_E_STOPPING)
		return err_body("shutting_down", "the daemon is shutting down");
	if (code == HUB_E_NO_RUNTIME)
		return err_body("no_browser", "no browser of the runtime default_runtime asks for is connected (see "
		                              "browser_list_browsers); name one with client_id");
	return err_body("no_browser", "no browser is connected: install the extension and pair it with the token "
	                              "(browser-bridge token), or start the daemon with --headless");
}

/* Route a named, active session's call; lock held. 0, or -1 with *err and *http. */
static int
route_active(struct sessions *s, struct sess *x, struct session_call *c, json_t **err, int *http)
{
	struct page *cur = x->current >= 0 ? &x->pages[x->current] : NULL;
	char client[BB_CLIENT_ID_MAX + 1];
	long active = -1;
	if (c->client_id != NULL && cur != NULL && strcmp(cur->client, c->client_id) != 0) {
		cur = NULL; /* another browser: this session's most recent page there, if any */
		for (int i = 0; i < x->n_pages; i++)
			if (strcmp(x->pages[i].client, c->client_id) == 0 && (cur == NULL || x->pages[i].used > cur->used))
				cur = &x->pages[i];
	}
	if (c->tabless) {
		snprintf(c->client_out, sizeof c->client_out, "%s", c->client_id ? c->client_id : cur ? cur->client : "");
		return 0;
	}
	if (cur != NULL && c->tab_id < 0) {
		snprintf(c->client_out, sizeof c->client_out, "%s", cur->client);
		snprintf(c->page_id, sizeof c->page_id, "%s", cur->id);
		c->tab_out = cur->tab;
		c->new_tab = cur->tab < 0;
		cur->used = ++s->seq;
		x->current = (int)(cur - x->pages);
		return 0;
	}
	if (cur != NULL && c->client_id == NULL) {
		snprintf(client, sizeof client, "%s", cur->client);
	} else {
		int rc = s->env.pick(s->env.pick_arg, c->client_id, client, &active);
		if (rc != 0) {
			*err = pick_error(rc, c->client_id);
			*http = 503;
			return -1;
		}
	}
	snprintf(c->client_out, sizeof c->client_out, "%s", client);
	if (c->tab_id >= 0) {
		int j = -1;
		struct sess *o = owner_of(s, client, c->tab_id, &j);
		if (o != NULL && o != x) {
			char msg[512];
			snprintf(msg, sizeof msg, "tab %ld belongs to the session \"%s\" (%s), not to this one (\"%s\"); act on "
			                          "your own tabs, or open one with browser_open_url",
			         c->tab_id, o->name, o->id, x->name);
			*err = err_body("tab_owned", msg);
			json_object_set_new(*err, "owner", json_pack("{s:s, s:s}", "id", o->id, "name", o->name));
			*http = 409;
			return -1;
		}
		c->tab_out = c->tab_id;
		if (o == x) {
			snprintf(c->page_id, sizeof c->page_id, "%s", x->pages[j].id);
			x->pages[j].used = ++s->seq;
			if (!c->releases)
				x->current = j;
		}
		return 0;
	}
	/* No tab yet: adopt the user's active tab when no session owns it, else a new tab of its own. */
	struct page *p;
	if (active >= 0 && owner_of(s, client, active, NULL) == NULL) {
		p = add_page(s, x, client, active);
		p->seen = 1;
		c->tab_out = active;
	} else {
		p = add_page(s, x, client, -1);
		c->tab_out = -1;
		c->new_tab = 1;
	}
	snprintf(c->page_id, sizeof c->page_id, "%s", p->id);
	return 0;
}

/*
 * Decide where a call goes and whether it may go at all: the default session's calls go where the
 * agent said (a named tab another session owns is refused); a named session's go to its current
 * tab, the tab it named (if no other session owns it), or a tab it adopts or gets opened. A session
 * that awaits approval parks the call (resume later, within wait_ms); a revoked or declined one fails.
 */
int
session_route(struct sessions *s, struct session_call *c, int64_t wait_ms, session_resume_fn resume, void *arg,
              json_t **err, int *http)
{
	struct news nw = {0};
	int v = SESSION_GO;
	c->id[0] = c->page_id[0] = c->client_out[0] = c->pooled[0] = '\0';
	c->tab_out = c->tab_id;
	c->new_tab = 0;
	pthread_mutex_lock(&s->lock);
	if (c->key == NULL || c->key[0] == '\0') {
		snprintf(c->client_out, sizeof c->client_out, "%s", c->client_id ? c->client_id : "");
		if (c->tab_id >= 0) {
			char client[BB_CLIENT_ID_MAX + 1];
			long active;
			struct sess *o = NULL;
			if (c->client_id != NULL)
				o = owner_of(s, c->client_id, c->tab_id, NULL);
			else if (s->env.pick(s->env.pick_arg, NULL, client, &active) == 0)
				o = owner_of(s, client, c->tab_id, NULL);
			if (o != NULL) {
				char msg[512];
				snprintf(msg, sizeof msg, "tab %ld belongs to the session \"%s\" (%s); callers without a session "
				                          "act on other tabs (name yours with the " "X-Browser-Bridge-Session"
				                          " header)", c->tab_id, o->name, o->id);
				*err = err_body("tab_owned", msg);
				json_object_set_new(*err, "owner", json_pack("{s:s, s:s}", "id", o->id, "name", o->name));
				*http = 409;
				v = SESSION_FAIL;
			}
		}
		pthread_mutex_unlock(&s->lock);
		return v;
	}
	struct sess *x = by_key(s, c->key);
	if (s->stopping) {
		*err = err_body("shutting_down", "the daemon is shutting down");
		*http = 503;
		v = SESSION_FAIL;
		goto out;
	}
	if (x == NULL) {
		if ((x = new_sess(s, c->key, c->name)) == NULL) {
			*err = err_body("too_many_sessions", "too many agent sessions are open (256); stop some in the "
			                                     "browser's popup or the dashboard, or wait until idle ones expire");
			*http = 503;
			v = SESSION_FAIL;
			goto out;
		}
		news_event(&nw, x, "created");
		nw.wake = 1;
	}
	snprintf(c->id, sizeof c->id, "%s", x->id);
	char msg[512];
	switch (x->state) {
	case ST_REVOKED:
		snprintf(msg, sizeof msg, "the user stopped this session (\"%s\", %s); its tabs were released. Start a new "
		                          "session to continue", x->name, x->id);
		*err = err_body("session_revoked", msg);
		*http = 403;
		v = SESSION_FAIL;
		break;
	case ST_DECLINED:
		snprintf(msg, sizeof msg, "the user declined this session (\"%s\", %s)", x->name, x->id);
		*err = err_body("session_declined", msg);
		*http = 403;
		v = SESSION_FAIL;
		break;
	case ST_PENDING:
		if (x->n_waiters >= BB_SESSION_WAITERS_MAX) {
			snprintf(msg, sizeof msg, "this session (\"%s\") already has %d calls waiting for the user's approval",
			         x->name, BB_SESSION_WAITERS_MAX);
			*err = err_body("busy", msg);
			*http = 503;
			v = SESSION_FAIL;
			break;
		}
		struct waiter *w = xcalloc(1, sizeof *w);
		w->fn = resume;
		w->arg = arg;
		w->deadline = util_mono_ms() + wait_ms;
		w->cancel_key = c->cancel_key ? xstrdup(c->cancel_key) : NULL;
		w->next = x->waiters;
		x->waiters = w;
		x->n_waiters++;
		if (c->parked != NULL)
			atomic_store(c->parked, 1);
		x->last_mono = util_mono_ms();
		nw.wake = 1;
		nw.changed = 1;
		v = SESSION_WAIT;
		break;
	case ST_ACTIVE:
		/* Only an approved session's routed call takes a seat in the headless pool (lock order: session,
		 * then hub): one parked for approval, declined or revoked takes none. */
		if (c->client_id == NULL && s->env.hub != NULL && hub_pool_pick(s->env.hub, c->key, c->pooled) == 0)
			c->client_id = c->pooled;
		if (route_active(s, x, c, err, http) != 0) {
			v = SESSION_FAIL;
			break;
		}
		x->in_flight++;
		x->last_used_ms = util_now_ms();
		x->last_mono = util_mono_ms();
		if (c->page_id[0])
			nw.changed = 1;
		break;
	}
out:
	pthread_mutex_unlock(&s->lock);
	news_flush(s, &nw);
	return v;
}

/*
 * A routed call ended: the session now owns the tab it acted on (a new tab's id is learnt here, and
 * a tab the call opened or switched to becomes its current one, unless another session owns it);
 * close_tab releases the tab. result_tab is the tab the browser reported, or -1.
 */
void
session_done(struct sessions *s, const struct session_call *c, const char *client_id, long result_tab)
{
	if (c->id[0] == '\0')
		return;
	struct news nw = {0};
	pthread_mutex_lock(&s->lock);
	struct sess *x = by_id(s, c->id);
	if (x == NULL)
		goto out;
	if (x->in_flight > 0)
		x->in_flight--;
	x->last_used_ms = util_now_ms();
	x->last_mono = util_mono_ms();
	nw.wake = 1; /* its expiry moved */
	if (x->state != ST_ACTIVE || client_id == NULL)
		goto out;
	int j = -1;
	if (c->releases) {
		if (owner_of(s, client_id, c->tab_out, &j) == x) {
			drop_page(x, j);
			news_event(&nw, x, "tabs");
		}
		goto out;
	}
	long tab = result_tab; /* only a tab the browser says it acted on: never one that may not exist */
	if (tab < 0)
		goto out;
	struct sess *o = owner_of(s, client_id, tab, &j);
	for (int i = 0; c->page_id[0] && i < x->n_pages; i++) {
		struct page *p = &x->pages[i];
		if (strcmp(p->id, c->page_id) == 0 && p->tab < 0 && o == NULL) {
			p->tab = tab; /* the new tab the browser opened for this page */
			snprintf(p->client, sizeof p->client, "%s", client_id);
			o = x;
			j = i;
			nw.changed = 1;
		}
	}
	if (o == NULL) {
		add_page(s, x, client_id, tab);
		nw.changed = 1;
	} else if (o == x && x->current != j) {
		x->current = j;
		x->pages[j].used = ++s->seq;
		nw.changed = 1;
	}
	if (nw.changed)
		news_event(&nw, x, "tabs");
out:
	pthread_mutex_unlock(&s->lock);
	news_flush(s, &nw);
}

/* End a session for reason (revoked, declined, expired): release its tabs, fail its waiting calls;
 * lock held. Expired sessions leave the table (x is freed); the others stay as a tombstone. */
static void
end_sess(struct sessions *s, struct sess *x, enum sstate st, const char *reason, struct news *nw)
{
	news_event(nw, x, reason);
	if (s->env.hub != NULL) /* its seat in the headless pool too (lock order: session, then hub) */
		hub_pool_release(s->env.hub, x->key);
	/* a call still waiting for approval when its agent ends the session was, in effect, cancelled by it */
	news_resume_all(nw, x, st == ST_DECLINED ? SESSION_DECLINED : st == ST_REVOKED ? SESSION_REVOKED
	                       : strcmp(reason, "closed") == 0 ? SESSION_CANCELLED : SESSION_TIMEOUT);
	x->n_pages = 0;
	x->current = -1;
	x->last_mono = util_mono_ms();
	if (strcmp(reason, "expired") == 0 || strcmp(reason, "closed") == 0) {
		unlink_sess(s, x);
		sess_free(x);
	} else {
		x->state = st;
	}
}

/* The user's decision on a session (popup or dashboard): approve, decline, or revoke (stop). 0, or
 * -1 (no such session), -2 (not in a state for it), -3 (no such action) with *err saying why. */
int
session_control(struct sessions *s, const char *id, const char *action, char **err)
{
	struct news nw = {0};
	int rc = 0;
	pthread_mutex_lock(&s->lock);
	struct sess *x = id ? by_id(s, id) : NULL;
	int known = action && (!strcmp(action, "approve") || !strcmp(action, "decline") || !strcmp(action, "revoke"));
	if (!known) {
		*err = xasprintf("unknown action \"%.40s\" (expected approve, decline or revoke)", action ? action : "");
		rc = -3;
	} else if (x == NULL) {
		*err = xasprintf("no session with id \"%.40s\" (it may have expired)", id ? id : "");
		rc = -1;
	} else if (action && strcmp(action, "approve") == 0) {
		if (x->state != ST_PENDING) {
			*err = xasprintf("session \"%s\" (%s) is %s, not waiting for approval", x->name, x->id,
			                 state_names[x->state]);
			rc = -2;
		} else {
			x->state = ST_ACTIVE;
			x->last_mono = util_mono_ms();
			news_event(&nw, x, "approved");
			news_resume_all(&nw, x, SESSION_GO);
		}
	} else if (action && strcmp(action, "decline") == 0) {
		if (x->state != ST_PENDING) {
			*err = xasprintf("session \"%s\" (%s) is %s, not waiting for approval", x->name, x->id,
			                 state_names[x->state]);
			rc = -2;
		} else {
			end_sess(s, x, ST_DECLINED, "declined", &nw);
		}
	} else if (action && strcmp(action, "revoke") == 0) {
		if (x->state != ST_PENDING && x->state != ST_ACTIVE) {
			*err = xasprintf("session \"%s\" (%s) is already %s", x->name, x->id, state_names[x->state]);
			rc = -2;
		} else {
			end_sess(s, x, ST_REVOKED, "revoked", &nw);
		}
	} else {
		*err = xasprintf("unknown action \"%.40s\" (expected approve, decline or revoke)", action ? action : "");
		rc = -3;
	}
	pthread_mutex_unlock(&s->lock);
	news_flush(s, &nw);
	return rc;
}

/* The agent ended its session itself (MCP DELETE): its tabs are released at once, as on expiry. */
void
session_close(struct sessions *s, const char *key)
{
	struct news nw = {0};
	pthread_mutex_lock(&s->lock);
	struct sess *x = key && *key ? by_key(s, key) : NULL;
	if (x != NULL && (x->state == ST_ACTIVE || x->state == ST_PENDING))
		end_sess(s, x, x->state, "closed", &nw);
	pthread_mutex_unlock(&s->lock);
	news_flush(s, &nw);
}

/* The caller gave up on a call parked for approval (notifications/cancelled, POST
 * /api/calls/<id>/cancel): it is resumed at once as SESSION_CANCELLED. 0, or -1 when no parked call
 * has that cancel_key (it was resumed already, or never parked). */
int
session_cancel(struct sessions *s, const char *cancel_key)
{
	struct news nw = {0};
	pthread_mutex_lock(&s->lock);
	for (int i = 0; cancel_key && i < s->n && nw.resume == NULL; i++) {
		struct sess *x = s->tab[i];
		for (struct waiter **pp = &x->waiters; *pp; pp = &(*pp)->next) {
			struct waiter *w = *pp;
			if (w->cancel_key != NULL && strcmp(w->cancel_key, cancel_key) == 0) {
				*pp = w->next;
				x->n_waiters--;
				w->verdict = SESSION_CANCELLED;
				w->next = NULL;
				nw.resume = w;
				nw.changed = 1;
				break;
			}
		}
	}
	pthread_mutex_unlock(&s->lock);
	int found = nw.resume != NULL;
	news_flush(s, &nw);
	return found ? 0 : -1;
}

/* Time passes: calls waited too long for approval, idle sessions expire (their tabs released),
 * tombstones are forgotten after a TTL. Returns the next deadline (monotonic), or -1. */
int64_t
session_tick(struct sessions *s, int64_t now)
{
	struct news nw = {0};
	int64_t next = -1;
	int64_t ttl = s->env.ttl_ms;
	pthread_mutex_lock(&s->lock);
	for (int i = 0; i < s->n;) {
		struct sess *x = s->tab[i];
		for (struct waiter **pp = &x->waiters; *pp;) {
			struct waiter *w = *pp;
			if (w->deadline <= now) {
				*pp = w->next;
				x->n_waiters--;
				w->verdict = SESSION_TIMEOUT;
				w->next = nw.resume;
				nw.resume = w;
				nw.changed = 1;
			} else {
				if (next < 0 || w->deadline < next)
					next = w->deadline;
				pp = &w->next;
			}
		}
		int busy = x->in_flight > 0 || x->waiters != NULL;
		if (!busy && x->last_mono + ttl <= now) {
			if (x->state == ST_ACTIVE || x->state == ST_PENDING) {
				end_sess(s, x, x->state, "expired", &nw); /* frees x, moves the last into slot i */
			} else {
				unlink_sess(s, x);
				sess_free(x);
			}
			continue;
		}
		if (!busy && (next < 0 || x->last_mono + ttl < next))
			next = x->last_mono + ttl;
		i++;
	}
	pthread_mutex_unlock(&s->lock);
	nw.wake = 0; /* the caller re-arms with what we return */
	news_flush(s, &nw);
	return next;
}

/* qsort/bsearch order of tab ids. */
static int
cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

/* A browser's tab list: pages whose tab was seen before and is gone now were closed; forget them. */
void
session_on_tabs(struct sessions *s, const char *client_id, json_t *tabs)
{
	struct news nw = {0};
	size_t n = json_array_size(tabs), k;
	if (n > BB_TABS_MAX)
		n = BB_TABS_MAX; /* wsproto refuses longer lists; never trust a caller with an allocation */
	long *ids = xmalloc((n ? n : 1) * sizeof *ids);
	for (k = 0; k < n; k++)
		ids[k] = (long)json_integer_value(json_object_get(json_array_get(tabs, k), "tabId"));
	qsort(ids, n, sizeof *ids, cmp_long);
	pthread_mutex_lock(&s->lock);
	for (int i = 0; i < s->n; i++) {
		struct sess *x = s->tab[i];
		for (int j = 0; j < x->n_pages;) {
			struct page *p = &x->pages[j];
			if (p->tab >= 0 && strcmp(p->client, client_id) == 0) {
				int present = bsearch(&p->tab, ids, n, sizeof *ids, cmp_long) != NULL;
				if (!present && p->seen) {
					drop_page(x, j);
					news_event(&nw, x, "tabs");
					continue;
				}
				if (present)
					p->seen = 1;
			}
			j++;
		}
	}
	pthread_mutex_unlock(&s->lock);
	free(ids);
	news_flush(s, &nw);
}

/* Fail every waiting call and refuse new ones: the daemon is stopping. */
void
session_shutdown(struct sessions *s)
{
	struct news nw = {0};
	pthread_mutex_lock(&s->lock);
	s->stopping = 1;
	for (int i = 0; i < s->n; i++)
		news_resume_all(&nw, s->tab[i], SESSION_GONE);
	pthread_mutex_unlock(&s->lock);
	news_flush(s, &nw); /* nothing changed for the browsers, no new deadline: only the calls answered */
}

/* Every session, for GET /api/sessions and the dashboard. */
json_t *
session_list(struct sessions *s)
{
	json_t *arr = json_array();
	pthread_mutex_lock(&s->lock);
	for (int i = 0; i < s->n; i++)
		json_array_append_new(arr, sess_json(s->tab[i]));
	pthread_mutex_unlock(&s->lock);
	return arr;
}

/* The sessions message's data for the extension's popup (protocol.md: camelCase, live ones only). */
json_t *
session_wire_list(struct sessions *s)
{
	json_t *arr = json_array();
	pthread_mutex_lock(&s->lock);
	for (int i = 0; i < s->n; i++) {
		struct sess *x = s->tab[i];
		if (x->state != ST_ACTIVE && x->state != ST_PENDING)
			continue;
		json_t *tabs = json_array();
		for (int j = 0; j < x->n_pages; j++)
			if (x->pages[j].tab >= 0)
				json_array_append_new(tabs, json_pack("{s:s, s:I}", "clientId", x->pages[j].client, "tabId",
				                                      (json_int_t)x->pages[j].tab));
		char u[32];
		util_iso8601(x->last_used_ms, u);
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:o, s:s, s:i}", "id", x->id, "name", x->name, "state",
		                                     state_names[x->state], "tabs", tabs, "lastUsedAt", u, "waitingCalls",
		                                     x->n_waiters));
	}
	int approve = s->env.approve;
	pthread_mutex_unlock(&s->lock);
	return json_pack("{s:o, s:b}", "sessions", arr, "approveSessions", approve);
}

/* session_env.pick over the hub. */
static int
pick_hub(void *arg, const char *client_id, char out[BB_CLIENT_ID_MAX + 1], long *active)
{
	return hub_pick(arg, client_id, out, BB_CLIENT_ID_MAX + 1, active);
}

/* hub_observer.tabs: a browser's tab list changed. */
static void
obs_tabs(void *arg, const char *client_id, json_t *tabs)
{
	session_on_tabs(arg, client_id, tabs);
}

/* hub_observer.control: the popup's Stop, Approve or Decline; a refusal goes back as an error. */
static void
obs_control(void *arg, struct hub *h, const char *client_id, json_t *data)
{
	char *err = NULL;
	const char *id = json_string_value(json_object_get(data, "id"));
	const char *action = json_string_value(json_object_get(data, "action"));
	if (session_control(arg, id, action, &err) != 0) {
		log_info("session: %s asked to %s session %s: %s", client_id, action, id, err);
		hub_send_to(h, client_id, "error", json_pack("{s:s, s:s}", "message", err, "inReplyTo", "session_control"));
		free(err);
	} else {
		log_info("session: the user's browser %s: %s session %s", client_id, action, id);
	}
}

/* hub_observer.tick: expiry and approval deadlines. */
static int64_t
obs_tick(void *arg, int64_t now)
{
	return session_tick(arg, now);
}

/* hub_observer.attached: a browser that shows sessions gets the list at once. */
static void
obs_attached(void *arg, struct hub *h, const char *client_id)
{
	hub_send_to(h, client_id, "sessions", session_wire_list(arg));
}

/* The daemon's session table: picks browsers through the hub, hears its tabs, controls and ticks. */
struct sessions *
session_create_hub(struct hub *h, struct events *ev, void (*wake)(void *), void *wake_arg, int64_t ttl_ms, int approve)
{
	struct session_env env = {pick_hub, h, h, ev, wake, wake_arg, ttl_ms, approve};
	struct sessions *s = session_create(&env);
	struct hub_observer o = {obs_tabs, obs_control, obs_tick, obs_attached, s};
	hub_set_observer(h, &o);
	return s;
}
