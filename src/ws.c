/* ws.c -- see ws.h. */
#include "autoconfig.h"

#include <libwebsockets.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"
#include "config.h"
#include "events.h"
#include "hub.h"
#include "limits.h"
#include "log.h"
#include "loop.h"
#include "jsonio.h"
#include "util.h"
#include "ws.h"
#include "wsproto.h"

#define WS_PATH "/ws/browser"

struct local_msg {
	struct local_msg *next;
	size_t len;
	char text[];
};

/* One WebSocket connection (libwebsockets' per-session data, zeroed by lws). */
struct session {
	struct wsproto_peer peer; /* the protocol's view: browser, close code and reason, challenge */
	struct lws *wsi;
	struct ws *ws;
	struct buf rx; /* the message being reassembled */
	struct local_msg *out_head, *out_tail;
	int throttled; /* not read from until the store catches up */
	lws_sorted_usec_list_t hello_timer;
	struct session *next, *prev;
};

struct ws {
	const struct config *cfg;
	struct auth *auth;
	struct events *events;
	struct hub *hub;
	struct wsproto_env env;
	struct loop *loop;
	struct lws_context *ctx; /* the loop's */
	atomic_int stopping; /* close every connection with 1001 */
	atomic_int n_sessions;
	int n_throttled;
	int closing_done;
	lws_sorted_usec_list_t timer; /* call deadlines and event heartbeats */
	int64_t next_heartbeat;
	struct session *sessions;
	struct loop_source *self; /* the loop's own work: hub messages to send, deadlines, shutdown */
	int64_t heartbeat_ms;        /* between event-stream heartbeats (BB_EVENT_HEARTBEAT_S) */
	int64_t hello_timeout_ms;    /* for a hello (BB_WS_HELLO_TIMEOUT_S) */
	lws_retry_bo_t keepalive;    /* pings and hang-up (BB_WS_PING_AFTER_S, BB_WS_HANGUP_AFTER_S) */
};

/* A timer shortened by a test-only environment variable (read once, at ws_create), so the Node
 * suites need not wait the real 10-25 s: BB_TEST_HELLO_TIMEOUT_MS, BB_TEST_EVENT_HEARTBEAT_MS,
 * BB_TEST_WS_PING_S, BB_TEST_WS_HANGUP_S. Not documented for users; never set in production. */
static long
test_knob(const char *name, long dflt, long min, long max)
{
	const char *v = getenv(name);
	long n;
	if (v == NULL || util_parse_long(v, min, max, &n) != 0)
		return dflt;
	log_info("%s=%ld (a test-only setting)", name, n);
	return n;
}

/* wsproto op: queue a message that the loop itself answers with (welcome, error, heartbeat_ack). */
static void
send_local(struct wsproto_peer *p, json_t *msg)
{
	struct session *s = (struct session *)p;
	char *text = jsonio_write(msg, NULL);
	json_decref(msg);
	size_t n = strlen(text);
	struct local_msg *m = xmalloc(sizeof *m + n + 1);
	m->next = NULL;
	m->len = n;
	memcpy(m->text, text, n + 1);
	free(text);
	if (s->out_tail)
		s->out_tail->next = m;
	else
		s->out_head = m;
	s->out_tail = m;
	lws_callback_on_writable(s->wsi);
}

/* wsproto op: close the connection, from the writable callback (wsproto_close set code and reason). */
static void
op_close(struct wsproto_peer *p)
{
	lws_callback_on_writable(((struct session *)p)->wsi);
}

/* Close a connection with a WebSocket close code and reason. */
static void
close_with(struct session *s, int code, const char *reason)
{
	wsproto_close(&s->peer, code, reason);
}

/* wsproto op: the session of an older connection that the hub replaced. */
static struct wsproto_peer *
op_peer_of(void *conn)
{
	return lws_wsi_user(conn);
}

/* wsproto op: a good hello; the hello timer is no longer needed. */
static void
op_welcomed(struct wsproto_peer *p)
{
	lws_sul_cancel(&((struct session *)p)->hello_timer);
}

/* wsproto op: a page went to the store; pause reading from browsers while it is far behind. */
static void
op_page_in(struct wsproto_peer *p)
{
	struct session *s = (struct session *)p;
	if (!s->throttled && hub_store_backlog(s->ws->hub) > BB_STORE_BACKLOG_HIGH) {
		lws_rx_flow_control(s->wsi, 0);
		s->throttled = 1;
		if (s->ws->n_throttled++ == 0)
			log_warn("ws: pages arrive faster than they can be stored; pausing reads from browsers");
		loop_kick(s->ws->self); /* re-arms the timer, which now also watches the backlog */
	}
}

static const struct wsproto_ops session_ops = {send_local, op_close, op_peer_of, op_welcomed, op_page_in};

/* hub_collect_writable callback: the connection has hub messages to send. */
static void
want_write(void *conn, void *arg)
{
	(void)arg;
	lws_callback_on_writable(conn);
}

static void timer_cb(lws_sorted_usec_list_t *sul);

/* Expire due calls, send heartbeats to event subscribers, and re-arm for the next deadline. */
static void
expire_and_rearm(struct ws *ws)
{
	int64_t now = util_mono_ms();
	int64_t next = hub_expire(ws->hub, now);
	hub_collect_writable(ws->hub, want_write, NULL); /* (the cancels hub_expire queued) */
	if (ws->n_throttled > 0) {
		if (hub_store_backlog(ws->hub) < BB_STORE_BACKLOG_LOW) {
			for (struct session *s = ws->sessions; s != NULL; s = s->next) {
				if (s->throttled) {
					s->throttled = 0;
					lws_rx_flow_control(s->wsi, 1);
				}
			}
			ws->n_throttled = 0;
		} else if (next < 0 || next > now + BB_STORE_BACKLOG_CHECK_MS) {
			next = now + BB_STORE_BACKLOG_CHECK_MS;
		}
	}
	if (events_has_subscribers(ws->events)) {
		if (now >= ws->next_heartbeat) {
			events_heartbeat(ws->events);
			ws->next_heartbeat = now + ws->heartbeat_ms;
		}
		if (next < 0 || next > ws->next_heartbeat)
			next = ws->next_heartbeat;
	} else {
		ws->next_heartbeat = now + ws->heartbeat_ms;
	}
	if (next < 0) {
		lws_sul_cancel(&ws->timer);
		return;
	}
	int64_t delay = next - now;
	if (delay < 1)
		delay = 1;
	lws_sul_schedule(ws->ctx, 0, &ws->timer, timer_cb, (lws_usec_t)delay * 1000);
}

/* The loop's own timer: call deadlines, event heartbeats, the store backlog. What that completes
 * (answers to expired calls, heartbeats to resume) is picked up right here, before lws polls. */
static void
timer_cb(lws_sorted_usec_list_t *sul)
{
	struct ws *ws = container_of(sul, struct ws, timer);
	const struct loop *saved = loop_hold(ws->loop);
	expire_and_rearm(ws);
	loop_after_pass(ws->loop);
	loop_unhold(saved);
}

/* A connection that never said hello is closed with 4408. */
static void
hello_timeout_cb(lws_sorted_usec_list_t *sul)
{
	struct session *s = container_of(sul, struct session, hello_timer);
	if (s->peer.browser == NULL) {
		char why[64];
		snprintf(why, sizeof why, "no hello within %.3g seconds", (double)s->ws->hello_timeout_ms / 1000);
		log_info("ws: closing a connection that sent no hello within %.3g s", (double)s->ws->hello_timeout_ms / 1000);
		close_with(s, WSPROTO_CLOSE_HELLO_TIMEOUT, why);
	}
}

/* Reject an upgrade that is not to /ws/browser from an allowed Origin with a loopback Host. */
static int
confirm_upgrade(struct ws *ws, struct lws *wsi)
{
	char uri[64] = "", origin[256] = "", host[256] = "";
	lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI);
	int olen = lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN);
	lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST);
	const char *why = NULL;
	if (strcmp(uri, WS_PATH) != 0)
		why = "not found: the WebSocket endpoint is /ws/browser";
	if (why == NULL && !config_host_allowed(ws->cfg, host))
		why = "forbidden: Host must be a loopback address (or an --allow-host value)";
	if (why == NULL) {
		int ok = 0;
		for (int i = 0; olen > 0 && i < ws->cfg->n_origins; i++)
			ok |= strcmp(origin, ws->cfg->origins[i]) == 0;
		if (!ok)
			why = "forbidden: Origin is not an allowed extension origin";
	}
	if (why == NULL)
		return 0;
	log_warn("ws: refused upgrade (%s) uri=%.60s origin=%.100s host=%.100s", why, uri, olen > 0 ? origin : "-",
	         host);
	lws_return_http_status(wsi, why[0] == 'n' ? HTTP_STATUS_NOT_FOUND : HTTP_STATUS_FORBIDDEN, why);
	return 1;
}

/* Take the next message queued for a connection (ours first, then the hub's), or NULL. */
static char *
next_out(struct session *s, size_t *len)
{
	struct local_msg *lm = s->out_head;
	if (lm == NULL)
		return s->peer.browser != NULL ? hub_next_out(s->ws->hub, s->peer.browser, len) : NULL;
	s->out_head = lm->next;
	if (s->out_head == NULL)
		s->out_tail = NULL;
	*len = lm->len;
	memmove(lm, lm->text, lm->len + 1); /* the text to the front, so the caller frees one pointer */
	return (char *)lm;
}

/* Write what is queued for a connection while its socket takes it; -1 closes it. Several messages
 * per callback save a loop pass each; asking again only when more is queued saves an empty one. */
static int
on_writable(struct session *s)
{
	if (s->peer.close_code) {
		lws_close_reason(s->wsi, (enum lws_close_status)s->peer.close_code, (unsigned char *)s->peer.close_reason,
		                 strlen(s->peer.close_reason));
		return -1;
	}
	for (int i = 0; i < BB_WS_WRITES_PER_CALLBACK; i++) {
		if (i > 0 && lws_send_pipe_choked(s->wsi))
			break; /* the rest when the socket drains */
		size_t len = 0;
		char *text = next_out(s, &len);
		if (text == NULL)
			return 0;
		unsigned char *frame = xmalloc(LWS_PRE + len);
		memcpy(frame + LWS_PRE, text, len);
		free(text);
		int n = lws_write(s->wsi, frame + LWS_PRE, len, LWS_WRITE_TEXT);
		free(frame);
		if (n < (int)len)
			return -1;
		if (s->out_head == NULL && (s->peer.browser == NULL || !hub_out_pending(s->ws->hub, s->peer.browser)))
			return 0;
	}
	lws_callback_on_writable(s->wsi);
	return 0;
}

/* Close every connection with 1001: the daemon is going away. */
static void
close_all(struct ws *ws)
{
	for (struct session *s = ws->sessions; s != NULL; s = s->next)
		close_with(s, LWS_CLOSE_STATUS_GOINGAWAY, "browser-bridge is shutting down");
	ws->closing_done = 1;
}

/* Every event on this listener. */
static int
handle(struct ws *ws, struct lws *wsi, enum lws_callback_reasons reason, struct session *s, void *in, size_t len)
{
	switch (reason) {
	case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
		return confirm_upgrade(ws, wsi);
	case LWS_CALLBACK_HTTP:
		lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND,
		                       "This port speaks WebSocket only, at /ws/browser; the HTTP API is on the HTTP port.");
		return -1;
	case LWS_CALLBACK_ESTABLISHED:
		s->wsi = wsi;
		s->ws = ws;
		s->peer.env = &ws->env;
		s->peer.ops = &session_ops;
		s->peer.conn = wsi;
		s->next = ws->sessions;
		if (s->next)
			s->next->prev = s;
		ws->sessions = s;
		atomic_fetch_add(&ws->n_sessions, 1);
		lws_sul_schedule(ws->ctx, 0, &s->hello_timer, hello_timeout_cb, (lws_usec_t)ws->hello_timeout_ms * 1000);
		if (atomic_load(&ws->stopping))
			close_with(s, LWS_CLOSE_STATUS_GOINGAWAY, "browser-bridge is shutting down");
		else
			wsproto_challenge(&s->peer);
		return 0;
	case LWS_CALLBACK_RECEIVE: {
		/* Before hello a peer has proved nothing: it gets a few KiB, not max_message_bytes. */
		size_t cap = s->peer.browser != NULL ? ws->cfg->max_message_bytes : BB_WS_PRE_HELLO_MAX;
		size_t remaining = lws_remaining_packet_payload(wsi);
		if (s->peer.close_code)
			return 0; /* closing: drop what else arrives, buffer nothing */
		if (lws_frame_is_binary(wsi)) {
			if (s->peer.browser == NULL)
				close_with(s, WSPROTO_CLOSE_PROTOCOL, "binary frames are not part of the protocol; send hello as JSON text");
			else if (lws_is_first_fragment(wsi))
				wsproto_error(&s->peer, NULL, NULL, "binary frames are not part of the protocol; send JSON text");
			return 0; /* dropped, never buffered; one error per message, not per read */
		}
		if (s->rx.len + len + remaining > cap) {
			log_warn("ws: message over %zu bytes from %s: closing with 1009", cap,
			         s->peer.browser ? "a browser" : "an unpaired peer (before hello)");
			char why[100];
			int wn = snprintf(why, sizeof why, s->peer.browser ? "message too large (over %zu bytes)"
			                                              : "message before hello too large (over %zu bytes)",
			                  cap);
			lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, (unsigned char *)why, (size_t)wn);
			buf_free(&s->rx);
			return -1;
		}
		buf_add(&s->rx, in, len);
		if (lws_is_final_fragment(wsi) && remaining == 0) {
			wsproto_on_message(&s->peer, s->rx.data, s->rx.len);
			if (s->rx.cap > 1u << 20) {
				buf_free(&s->rx);
				malloc_trim(0); /* a multi-megabyte page: give the memory back, not just to malloc */
			}
			s->rx.len = 0;
		}
		return 0;
	}
	case LWS_CALLBACK_SERVER_WRITEABLE:
		return on_writable(s);
	case LWS_CALLBACK_CLOSED:
		lws_sul_cancel(&s->hello_timer);
		if (s->throttled) {
			s->throttled = 0;
			ws->n_throttled--;
		}
		if (s->peer.browser != NULL) {
			log_info("ws: browser disconnected");
			hub_browser_detach(ws->hub, s->peer.browser);
			s->peer.browser = NULL;
		}
		for (struct local_msg *m = s->out_head, *n; m != NULL; m = n) {
			n = m->next;
			free(m);
		}
		s->out_head = s->out_tail = NULL;
		buf_free(&s->rx);
		if (s->prev)
			s->prev->next = s->next;
		else if (ws->sessions == s)
			ws->sessions = s->next;
		if (s->next)
			s->next->prev = s->prev;
		atomic_fetch_sub(&ws->n_sessions, 1);
		return 0;
	default:
		return 0;
	}
}

/* The libwebsockets callback: marks the reasons that only follow a poll, whose noted work the
 * loop's after-pass picks up without a system call (see loop_hold). */
static int
callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
	struct ws *ws = lws_vhost_user(lws_get_vhost(wsi));
	if (ws == NULL)
		return 0; /* protocol init, before the vhost has its user */
	int held = reason == LWS_CALLBACK_RECEIVE || reason == LWS_CALLBACK_SERVER_WRITEABLE;
	const struct loop *saved = held ? loop_hold(ws->loop) : NULL;
	int rc = handle(ws, wsi, reason, user, in, len);
	if (held)
		loop_unhold(saved);
	return rc;
}

static const struct lws_protocols protocols[] = {
	{"browser-bridge", callback, sizeof(struct session), 65536, 0, NULL, 0},
	{NULL, NULL, 0, 0, 0, NULL, 0},
};

static long run_self(void *arg);

/* Create the listener on the loop (bound now, so a busy port is reported before we say we are up). */
struct ws *
ws_create(struct loop *loop, const struct config *cfg, struct auth *auth, struct events *events, char **err)
{
	struct ws *ws = xcalloc(1, sizeof *ws);
	ws->loop = loop;
	ws->env.cfg = cfg;
	ws->env.auth = auth;
	ws->ctx = loop_lws(loop);
	ws->cfg = cfg;
	ws->auth = auth;
	ws->events = events;
	ws->hello_timeout_ms = test_knob("BB_TEST_HELLO_TIMEOUT_MS", BB_WS_HELLO_TIMEOUT_S * 1000L, 50, 3600000);
	ws->heartbeat_ms = test_knob("BB_TEST_EVENT_HEARTBEAT_MS", BB_EVENT_HEARTBEAT_S * 1000L, 50, 3600000);
	ws->keepalive.secs_since_valid_ping = (uint16_t)test_knob("BB_TEST_WS_PING_S", BB_WS_PING_AFTER_S, 1, 3600);
	ws->keepalive.secs_since_valid_hangup =
		(uint16_t)test_knob("BB_TEST_WS_HANGUP_S", BB_WS_HANGUP_AFTER_S, ws->keepalive.secs_since_valid_ping + 1, 3600);
	struct lws_context_creation_info info;
	memset(&info, 0, sizeof info);
	info.port = cfg->ws_port;
	info.iface = cfg->ws_host;
	info.protocols = protocols;
	info.user = ws;
	info.retry_and_idle_policy = &ws->keepalive;
	info.vhost_name = "browser-bridge";
	info.options = LWS_SERVER_OPTION_VALIDATE_UTF8 | LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND;
	/* Debian's lws 4.1 binds every interface for "127.0.0.1" unless IPv6 is off for the vhost. */
	if (strchr(cfg->ws_host, ':') == NULL)
		info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
	if (lws_create_vhost(ws->ctx, &info) == NULL) {
		*err = xasprintf("cannot listen for WebSocket on %s:%d (port in use?)", cfg->ws_host, cfg->ws_port);
		free(ws);
		return NULL;
	}
	ws->self = loop_add_source(loop, -1, run_self, ws);
	return ws;
}

/* The hub is created after the listener (it needs ws_wake); connect the two before loop_start. */
void
ws_set_hub(struct ws *ws, struct hub *hub)
{
	ws->hub = hub;
	ws->env.hub = hub;
}

/* The loop's own source: close everything once stopping, send queued hub messages, re-arm the
 * deadline timer. */
static long
run_self(void *arg)
{
	struct ws *ws = arg;
	if (ws->hub == NULL)
		return -1;
	if (atomic_load(&ws->stopping) && !ws->closing_done)
		close_all(ws);
	hub_collect_writable(ws->hub, want_write, NULL);
	expire_and_rearm(ws);
	return -1;
}

/* Have the loop send queued hub messages and re-arm its timer. Any thread; on the loop thread itself
 * it costs no system call, the work happens after the current pass. */
void
ws_wake(void *arg)
{
	struct ws *ws = arg;
	loop_kick(ws->self);
}

/* Close every connection with 1001 and give the close frames a moment; the loop still runs. */
void
ws_stop(struct ws *ws)
{
	if (ws == NULL)
		return;
	atomic_store(&ws->stopping, 1);
	loop_kick(ws->self);
	for (int i = 0; i < 50 && atomic_load(&ws->n_sessions) > 0; i++) {
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
		loop_wake(ws->loop);
	}
}

/* Free the listener after loop_free (whose closing callbacks still use it). NULL is fine. */
void
ws_free(struct ws *ws)
{
	free(ws);
}
