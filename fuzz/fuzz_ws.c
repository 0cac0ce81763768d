/* libFuzzer target for the browser protocol (src/wsproto.c), the WebSocket message handler without
 * libwebsockets: each input is a sequence of messages (separated by a 0xff byte, which valid UTF-8
 * JSON never holds) on one connection, the first often a correctly proven hello. Nothing crashes;
 * a connection that is closing acts on nothing more; what we send is JSON with a type. See fuzz/README. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "auth.h"
#include "config.h"
#include "events.h"
#include "hub.h"
#include "session.h"
#include "log.h"
#include "wsproto.h"

#define TOKEN "0123456789abcdef0123456789abcdef"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct config cfg;
static struct wsproto_env env;
static int sent, closes;

static void
noop_wake(void *arg)
{
	(void)arg;
}

/* op: what the protocol sends must be a JSON object with a type. */
static void
op_send(struct wsproto_peer *p, json_t *msg)
{
	(void)p;
	if (!json_is_string(json_object_get(msg, "type")))
		abort();
	sent++;
	json_decref(msg);
}

static void
op_close(struct wsproto_peer *p)
{
	if (p->close_code < 1000 || p->close_code > 4999 || strlen(p->close_reason) > 123)
		abort();
	closes++;
}

static struct wsproto_peer *
op_peer_of(void *conn)
{
	return conn; /* the fake connection is the peer itself */
}

static void
op_welcomed(struct wsproto_peer *p)
{
	(void)p;
}

static void
op_page_in(struct wsproto_peer *p)
{
	(void)p;
}

static const struct wsproto_ops ops = {op_send, op_close, op_peer_of, op_welcomed, op_page_in};

/* A listener's environment: a config, a known token, a hub without a store. */
static void
init(void)
{
	char path[] = "/tmp/bb-fuzz-ws-XXXXXX", *err = NULL;
	log_set_level(LOG_ERROR);
	config_init(&cfg);
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, TOKEN "\n", sizeof TOKEN) != (ssize_t)sizeof TOKEN)
		abort();
	close(fd);
	env.cfg = &cfg;
	env.auth = auth_create(path, &err);
	unlink(path);
	env.hub = hub_create(NULL, events_create(), noop_wake, NULL);
	session_create_hub(env.hub, NULL, NULL, NULL, 60000, 0); /* session_control and tabs reach it */
	if (env.auth == NULL)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (env.hub == NULL)
		init();
	struct wsproto_peer *p = calloc(1, sizeof *p);
	p->env = &env;
	p->ops = &ops;
	p->conn = p;
	wsproto_challenge(p);
	/* Half the inputs start with a properly proven hello, so what follows it is reached too. */
	if (size > 0 && (data[0] & 1)) {
		char cn[AUTH_NONCE_LEN + 1], proof[AUTH_NONCE_LEN + 1];
		auth_nonce(cn);
		auth_proof(env.auth, "hello", p->challenge, cn, proof);
		json_t *h = json_pack("{s:s, s:{s:s, s:s, s:s, s:[s]}}", "type", "hello", "data", "clientId", "fuzz", "nonce",
		                      cn, "proof", proof, "features", "sessions");
		char *t = json_dumps(h, JSON_COMPACT);
		wsproto_on_message(p, t, strlen(t));
		free(t);
		json_decref(h);
		if (p->browser == NULL)
			abort(); /* a correct hello is welcomed */
	}
	size_t off = size > 0 ? 1 : 0;
	while (off < size) {
		const uint8_t *sep = memchr(data + off, 0xff, size - off);
		size_t n = sep ? (size_t)(sep - (data + off)) : size - off;
		int was_closing = p->close_code, before = sent;
		wsproto_on_message(p, (const char *)data + off, n);
		if (was_closing && sent != before)
			abort(); /* a closing connection answers nothing more */
		off += n + 1;
	}
	if (p->browser != NULL)
		hub_browser_detach(env.hub, p->browser);
	size_t len;
	(void)len;
	free(p);
	return 0;
}
