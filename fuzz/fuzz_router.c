/* libFuzzer target for src/router.c (and reqresp.c, tools.c validation, mcp.c behind it) through a
 * fake transport: hostile request lines, Host, Origin, Authorization, Cookie, Sec-Fetch-Site,
 * Content-Type, JSON bodies, query strings and static paths. Every request is answered exactly once,
 * within a bound, with a status from 200 to 599; nothing outside www is ever served; a request the
 * router refuses before the body (router_allows) is refused after it too. See fuzz/README. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth.h"
#include "config.h"
#include "events.h"
#include "fuzzreq.h"
#include "hub.h"
#include "log.h"
#include "mcp.h"
#include "router.h"
#include "store.h"
#include "tools.h"

#define TOKEN "0123456789abcdef0123456789abcdef"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct config cfg;
static struct router *router;
static struct events *events;

static void
noop_wake(void *arg)
{
	(void)arg;
}

/* One daemon's worth of parts, minus the sockets: a store in a scratch directory, a hub without
 * browsers (tool calls fail after validation), a token, a dashboard directory of two files. */
static void
init(void)
{
	char dir[] = "/tmp/bb-fuzz-router-XXXXXX", *err = NULL;
	if (mkdtemp(dir) == NULL)
		abort();
	log_set_level(LOG_ERROR);
	config_init(&cfg);
	char path[512];
	snprintf(path, sizeof path, "%s/www", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/www/index.html", dir);
	FILE *f = fopen(path, "w");
	fputs("<!doctype html>", f);
	fclose(f);
	snprintf(path, sizeof path, "%s/secret.txt", dir); /* beside www: must never be served */
	f = fopen(path, "w");
	fputs("SECRET-OUTSIDE-WWW", f);
	fclose(f);
	snprintf(path, sizeof path, "%s/www", dir);
	if (config_set(&cfg, "www", path, &err) != 0)
		abort();
	snprintf(path, sizeof path, "%s/token", dir);
	f = fopen(path, "w");
	fputs(TOKEN "\n", f);
	fclose(f);
	struct auth *auth = auth_create(path, &err);
	snprintf(path, sizeof path, "%s/history.db", dir);
	struct store_opts so = {0, 0, 0};
	struct store *st = store_open(path, &so, &err);
	if (auth == NULL || st == NULL)
		abort();
	events = events_create();
	struct hub *hub = hub_create(st, events, noop_wake, NULL);
	struct tools *tools = tools_create(hub, st, events);
	struct mcp *mcp = mcp_create(tools);
	mcp_test_seed(mcp, 1);
	router = router_create(&cfg, auth, hub, st, events, tools, mcp);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (router == NULL)
		init();
	struct fuzzreq q;
	if (!fuzzreq_parse(&q, data, size)) {
		fuzzreq_free(&q);
		return 0;
	}
	if (size > 1 && data[size - 1] == 'L')
		q.f.req.local_peer = 1; /* the API socket's peer, now and then */
	int allowed = router_allows(router, &q.f.req);
	router_handle(router, &q.f.req);
	struct rr_resp *r = fakereq_wait(&q.f, 10000);
	if (r == NULL || q.f.completions != 1 || r->status < 200 || r->status > 599)
		abort(); /* unanswered, answered twice, or nonsense */
	if (!allowed && r->status < 400)
		abort(); /* refused before the body, accepted after it */
	if (r->body != NULL && memmem(r->body, r->len, "SECRET-OUTSIDE-WWW", 18) != NULL &&
	    memmem(data, size, "SECRET-OUTSIDE-WWW", 18) == NULL)
		abort(); /* a file outside www was served (an error may quote the input, not the file) */
	if (r->stream != NULL)
		events_unsubscribe(events, r->stream);
	fakereq_done(&q.f);
	fuzzreq_free(&q);
	return 0;
}
