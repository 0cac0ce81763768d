/* wsproto.c -- see wsproto.h. */
#include "autoconfig.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "config.h"
#include "hub.h"
#include "jsonio.h"
#include "limits.h"
#include "log.h"
#include "util.h"
#include "wsproto.h"

/* Queue a message the protocol itself answers with (challenge, welcome, error, heartbeat_ack). */
static void
peer_send(struct wsproto_peer *s, json_t *msg)
{
	s->ops->send(s, msg);
}

/* Close the connection with a WebSocket close code and reason (once: the first reason stands). */
void
wsproto_close(struct wsproto_peer *s, int code, const char *reason)
{
	if (s->close_code)
		return;
	s->close_code = code;
	snprintf(s->close_reason, sizeof s->close_reason, "%s", reason);
	s->ops->close(s);
}

/* Tell the peer what was wrong with its last message; the connection stays open. */
void
wsproto_error(struct wsproto_peer *s, const char *in_reply_to, const char *rid, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	json_t *d = json_pack("{s:s}", "message", msg);
	if (in_reply_to)
		json_object_set_new(d, "inReplyTo", json_string(in_reply_to));
	if (rid)
		json_object_set_new(d, "requestId", json_string(rid));
	log_debug("ws: error to peer: %s", msg);
	peer_send(s, json_pack("{s:s, s:o}", "type", "error", "data", d));
}

/* Whether a string member is absent or a string of at most max bytes. */
static int
opt_string(json_t *d, const char *key, size_t max)
{
	json_t *v = json_object_get(d, key);
	return v == NULL || (json_is_string(v) && json_string_length(v) <= max);
}

/* A clientId is short and plain, since it appears in logs, URLs and the database. */
static int
valid_client_id(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > BB_CLIENT_ID_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		      strchr("._:-", s[i])))
			return 0;
	return 1;
}

/* Check a hello, authenticate it and register the browser; closes the connection when it is bad. */
static void
on_hello(struct wsproto_peer *s, json_t *d)
{
	json_t *caps = json_object_get(d, "capabilities");
	const char *cid = json_string_value(json_object_get(d, "clientId"));
	const char *bad = NULL;
	if (cid == NULL || !valid_client_id(cid))
		bad = "hello.clientId: expected 1-64 characters of A-Z a-z 0-9 . _ : -";
	else if (!opt_string(d, "browser", BB_SHORT_STRING_MAX) || !opt_string(d, "browserVersion", BB_SHORT_STRING_MAX) ||
	         !opt_string(d, "extensionVersion", BB_SHORT_STRING_MAX))
		bad = "hello: browser, browserVersion and extensionVersion must be short strings";
	else if (caps != NULL && (!json_is_array(caps) || json_array_size(caps) > 100))
		bad = "hello.capabilities: expected an array of command names";
	if (bad == NULL && caps != NULL) {
		size_t i;
		json_t *v;
		json_array_foreach(caps, i, v) if (!json_is_string(v) || json_string_length(v) > 64) bad =
			"hello.capabilities: expected an array of command names";
	}
	if (bad != NULL) {
		log_warn("ws: refusing hello: %s", bad);
		wsproto_close(s, WSPROTO_CLOSE_PROTOCOL, bad);
		return;
	}
	/* Protocol 1 sent the token itself; whoever listened on the port got it. Refuse, never compare. */
	if (json_object_get(d, "token") != NULL) {
		log_warn("ws: refusing a protocol 1 hello (it carries the token) from clientId %s", cid);
		wsproto_close(s, WSPROTO_CLOSE_OLD_PROTOCOL,
		           "protocol 1 is not supported: this daemon speaks protocol 2; update the extension");
		return;
	}
	const char *cnonce = json_string_value(json_object_get(d, "nonce"));
	if (!auth_valid_nonce(cnonce) || strcmp(cnonce, s->challenge) == 0 ||
	    !auth_check_proof(s->env->auth, "hello", s->challenge, cnonce,
	                      json_string_value(json_object_get(d, "proof")))) {
		log_warn("ws: refusing hello from clientId %s: missing or wrong proof of the token", cid);
		wsproto_close(s, WSPROTO_CLOSE_UNAUTHORIZED, "wrong or missing proof of the pairing token: pair again "
		                                  "(browser-bridge token)");
		return;
	}
	void *replaced = NULL;
	s->browser = hub_browser_attach(s->env->hub, d, s->conn, &replaced);
	if (replaced != NULL) {
		struct wsproto_peer *old = s->ops->peer_of(replaced);
		old->browser = NULL;
		wsproto_close(old, WSPROTO_CLOSE_REPLACED, "replaced by a newer connection with the same clientId");
		log_info("ws: clientId %s reconnected; closing its older connection", cid);
	}
	if (s->browser == NULL) {
		wsproto_close(s, WSPROTO_CLOSE_TOO_MANY, "too many browsers connected");
		return;
	}
	s->ops->welcomed(s);
	log_info("ws: browser connected: clientId %s (%s %s, extension %s)", cid,
	         json_string_value(json_object_get(d, "browser")) ?: "?",
	         json_string_value(json_object_get(d, "browserVersion")) ?: "?",
	         json_string_value(json_object_get(d, "extensionVersion")) ?: "?");
	char proof[AUTH_NONCE_LEN + 1];
	auth_proof(s->env->auth, "welcome", cnonce, s->challenge, proof);
	peer_send(s, json_pack("{s:s, s:{s:s, s:i, s:s, s:i, s:I, s:b, s:s}}", "type", "welcome", "data", "serverVersion",
	                        BB_VERSION, "protocolVersion", WSPROTO_VERSION, "clientId", cid, "heartbeatSeconds",
	                        BB_WS_HEARTBEAT_S, "maxMessageBytes", (json_int_t)s->env->cfg->max_message_bytes,
	                        "allowFileUrls", s->env->cfg->allow_file_urls, "proof", proof));
}

/* Send the challenge that opens protocol 2: a fresh nonce S that this connection's hello must prove. */
void
wsproto_challenge(struct wsproto_peer *s)
{
	auth_nonce(s->challenge);
	peer_send(s, json_pack("{s:s, s:{s:s, s:i}}", "type", "challenge", "data", "nonce", s->challenge,
	                        "protocolVersion", WSPROTO_VERSION));
}

/* Validate a command_result's fields; NULL when fine, else which field is wrong. */
static const char *
check_result(json_t *d)
{
	const char *st = json_string_value(json_object_get(d, "status"));
	if (!json_is_string(json_object_get(d, "requestId")))
		return "command_result.requestId: expected a string";
	if (st == NULL || (strcmp(st, "success") != 0 && strcmp(st, "error") != 0))
		return "command_result.status: expected \"success\" or \"error\"";
	if (!opt_string(d, "message", 1u << 20) || !opt_string(d, "error", 1u << 20))
		return "command_result.message/error: expected strings";
	json_t *r = json_object_get(d, "result");
	if (r != NULL && !json_is_object(r))
		return "command_result.result: expected an object";
	json_t *pf = json_object_get(d, "pageFollows");
	if (pf != NULL && !json_is_boolean(pf))
		return "command_result.pageFollows: expected a boolean";
	return NULL;
}

/* Validate a pageInfoUpdate's fields; NULL when fine. */
static const char *
check_page(json_t *d)
{
	json_t *tab = json_object_get(d, "tabId"), *rid = json_object_get(d, "requestId");
	if (!json_is_string(json_object_get(d, "url")) || json_string_length(json_object_get(d, "url")) > BB_URL_MAX)
		return "pageInfoUpdate.url: expected a string of at most 8192 bytes";
	if (!json_is_string(json_object_get(d, "title")) ||
	    json_string_length(json_object_get(d, "title")) > BB_TITLE_MAX)
		return "pageInfoUpdate.title: expected a string of at most 4096 bytes";
	if (!json_is_string(json_object_get(d, "markdown")))
		return "pageInfoUpdate.markdown: expected a string";
	if (rid != NULL && !json_is_null(rid) && !json_is_string(rid))
		return "pageInfoUpdate.requestId: expected a string";
	if (tab != NULL && !json_is_null(tab) && !json_is_integer(tab))
		return "pageInfoUpdate.tabId: expected an integer";
	json_t *tr = json_object_get(d, "truncated");
	if (tr != NULL && !json_is_boolean(tr))
		return "pageInfoUpdate.truncated: expected a boolean";
	json_t *doc = json_object_get(d, "documentId");
	if (doc != NULL && (!json_is_string(doc) || json_string_length(doc) == 0 ||
	                    json_string_length(doc) > BB_DOCUMENT_ID_MAX))
		return "pageInfoUpdate.documentId: expected a string of 1 to " BB_STR(BB_DOCUMENT_ID_MAX) " bytes";
	if (json_is_null(rid))
		json_object_del(d, "requestId");
	if (json_is_null(tab))
		json_object_del(d, "tabId");
	return NULL;
}

/* Validate a tabs message; NULL when fine. */
static const char *
check_tabs(json_t *d)
{
	json_t *tabs = json_object_get(d, "tabs");
	if (!json_is_array(tabs) || json_array_size(tabs) > BB_TABS_MAX)
		return "tabs.tabs: expected an array of at most 1000 tabs";
	size_t i;
	json_t *t;
	json_array_foreach(tabs, i, t)
	{
		if (!json_is_object(t) || !json_is_integer(json_object_get(t, "tabId")) || !opt_string(t, "url", BB_URL_MAX) ||
		    !opt_string(t, "title", BB_TITLE_MAX))
			return "tabs.tabs[]: expected objects with an integer tabId and string url/title";
	}
	return NULL;
}

/* Handle one complete message from a peer. */
void
wsproto_on_message(struct wsproto_peer *s, const char *text, size_t len)
{
	struct jsonio_err e;
	json_t *m = jsonio_parse(text, len, &e);
	json_t *d = m ? json_object_get(m, "data") : NULL;
	const char *type = m ? json_string_value(json_object_get(m, "type")) : NULL;
	const char *bad = NULL;
	char *err = NULL;
	if (s->close_code)
		goto out; /* closing: whatever else arrived is not acted on */
	if (m == NULL) {
		if (s->browser == NULL)
			wsproto_close(s, WSPROTO_CLOSE_PROTOCOL, "invalid JSON before hello");
		else
			wsproto_error(s, NULL, NULL, "invalid JSON at byte %zu: %s", e.offset, e.text);
		return;
	}
	if (!json_is_object(m) || type == NULL || !json_is_object(d)) {
		if (s->browser == NULL)
			wsproto_close(s, WSPROTO_CLOSE_PROTOCOL, "expected {\"type\": \"hello\", \"data\": {...}}");
		else
			wsproto_error(s, type, NULL, "expected a JSON object {\"type\": string, \"data\": object}");
		goto out;
	}
	if (s->browser == NULL) {
		if (s->hello_seen)
			wsproto_close(s, WSPROTO_CLOSE_PROTOCOL, "hello was already answered on this connection");
		else if (strcmp(type, "hello") != 0)
			wsproto_close(s, WSPROTO_CLOSE_PROTOCOL, "the first message must be hello");
		else {
			s->hello_seen = 1; /* the challenge answers one hello, right or wrong */
			on_hello(s, d);
		}
		goto out;
	}
	if (strcmp(type, "heartbeat") == 0) {
		hub_on_heartbeat(s->env->hub, s->browser);
		char ts[32];
		util_iso8601(util_now_ms(), ts);
		peer_send(s, json_pack("{s:s, s:{s:s}}", "type", "heartbeat_ack", "data", "serverTime", ts));
	} else if (strcmp(type, "command_result") == 0) {
		if ((bad = check_result(d)) == NULL && hub_on_result(s->env->hub, s->browser, d, &err) != 0)
			wsproto_error(s, type, json_string_value(json_object_get(d, "requestId")), "%s", err);
	} else if (strcmp(type, "pageInfoUpdate") == 0) {
		if ((bad = check_page(d)) == NULL && hub_on_page(s->env->hub, s->browser, d, &err) != 0)
			wsproto_error(s, type, json_string_value(json_object_get(d, "requestId")),
			           "%s; the page was stored without answering a call", err);
		s->ops->page_in(s); /* the transport may pause reading while the store catches up */
	} else if (strcmp(type, "tabs") == 0) {
		if ((bad = check_tabs(d)) == NULL)
			hub_on_tabs(s->env->hub, s->browser, json_object_get(d, "tabs"));
	} else if (strcmp(type, "session_control") == 0) {
		if (!opt_string(d, "id", 64) || !json_is_string(json_object_get(d, "id")) || !opt_string(d, "action", 16) ||
		    !json_is_string(json_object_get(d, "action")))
			bad = "session_control: expected string id (at most 64 bytes) and action (approve, decline or revoke)";
		else
			hub_on_control(s->env->hub, s->browser, d);
	} else if (strcmp(type, "hello") == 0) {
		wsproto_error(s, type, NULL, "hello was already received on this connection");
	} else {
		wsproto_error(s, type, NULL,
		           "unknown message type \"%.64s\" (expected command_result, pageInfoUpdate, tabs, heartbeat or "
		           "session_control)",
		           type);
	}
	if (bad != NULL)
		wsproto_error(s, type, json_string_value(json_object_get(d, "requestId")), "%s", bad);
out:
	free(err);
	json_decref(m);
}

