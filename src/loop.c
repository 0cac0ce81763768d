/* loop.c -- see loop.h. */
#include "autoconfig.h"

#include <libwebsockets.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "limits.h"
#include "log.h"
#include "loop.h"
#include "util.h"

#define LOOP_PROTOCOL "bb-loop"

/* Work that shares the loop: see loop_add_source. */
struct loop_source {
	struct loop *loop;
	int fd;
	long (*run)(void *arg);
	void *arg;
	atomic_int kicked;
	lws_sorted_usec_list_t timer;
	struct loop_source *next;
};

struct loop {
	struct lws_context *ctx;
	struct lws_vhost *vh; /* no listener: the vhost that watches the sources' descriptors */
	pthread_t thread;
	atomic_int exit_loop;
	int started;
	struct loop_source *sources;
};

/* Set on the loop thread while it handles ready descriptors, runs timers or runs after_pass: work
 * noted then is picked up by loop_after_pass without a system call. Elsewhere (lws's own timers,
 * which run before it polls, and other threads) loop_kick must wake the poll. */
static _Thread_local const struct loop *picked_up_by;

static void source_timer_cb(lws_sorted_usec_list_t *sul);

/* Run a source now and arm its timer for when it asks to run again. */
static void
run_source(struct loop_source *src)
{
	atomic_store(&src->kicked, 0);
	long next = src->run(src->arg);
	if (next < 0)
		lws_sul_cancel(&src->timer);
	else
		lws_sul_schedule(src->loop->ctx, 0, &src->timer, source_timer_cb, (lws_usec_t)next * 1000);
}

/* A source's own delay expired: run it, and pick up what it noted before lws polls. */
static void
source_timer_cb(lws_sorted_usec_list_t *sul)
{
	struct loop_source *src = container_of(sul, struct loop_source, timer);
	const struct loop *saved = loop_hold(src->loop);
	run_source(src);
	loop_after_pass(src->loop);
	loop_unhold(saved);
}

/* The callback of the loop's own vhost: a source's descriptor is readable. */
static int
loop_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
	(void)user;
	(void)in;
	(void)len;
	if (reason == LWS_CALLBACK_RAW_RX_FILE) {
		struct loop_source *src = lws_get_opaque_user_data(wsi);
		const struct loop *saved = loop_hold(src->loop);
		run_source(src);
		loop_unhold(saved); /* the pass's loop_after_pass runs what this kicked */
	}
	return 0; /* EVENT_WAIT_CANCELLED (a kick): loop_after_pass runs what was kicked */
}

static const struct lws_protocols loop_protocols[] = {
	{LOOP_PROTOCOL, loop_callback, 0, 0, 0, NULL, 0},
	{NULL, NULL, 0, 0, 0, NULL, 0},
};

/* Route libwebsockets' own log lines into ours. */
static void
lws_log(int level, const char *line)
{
	char copy[512];
	snprintf(copy, sizeof copy, "%s", line);
	size_t n = strlen(copy);
	while (n > 0 && copy[n - 1] == '\n')
		copy[--n] = '\0';
	log_msg(level == LLL_ERR ? LOG_ERROR : level == LLL_WARN ? LOG_WARN : LOG_DEBUG, "lws: %s", copy);
}

/* Create the loop's libwebsockets context, with no listener yet (ws.c adds the WebSocket one). */
struct loop *
loop_create(char **err)
{
	struct loop *l = xcalloc(1, sizeof *l);
	lws_set_log_level(log_enabled(LOG_DEBUG) ? (LLL_ERR | LLL_WARN | LLL_NOTICE) : LLL_ERR, lws_log);
	struct lws_context_creation_info info;
	memset(&info, 0, sizeof info);
	/* UTF-8 validation is asked for here as well as on the WebSocket vhost: some lws versions read
	 * it from the context's options. */
	info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS | LWS_SERVER_OPTION_VALIDATE_UTF8;
	info.user = l;
	info.fd_limit_per_thread = BB_HTTP_MAX_CONNECTIONS;
	info.timeout_secs = 20;
	/* Read up to 64 KiB per pass, not lws's default 4 KiB: a pass then takes in many results and
	 * pages at once, so they share one commit, and a big page needs far fewer reads. */
	info.pt_serv_buf_size = 65536;
	l->ctx = lws_create_context(&info);
	if (l->ctx == NULL) {
		*err = xstrdup("cannot create the event loop (libwebsockets context)");
		free(l);
		return NULL;
	}
	memset(&info, 0, sizeof info);
	info.vhost_name = "bb-loop";
	info.port = CONTEXT_PORT_NO_LISTEN_SERVER;
	info.protocols = loop_protocols;
	info.user = l;
	if ((l->vh = lws_create_vhost(l->ctx, &info)) == NULL) {
		*err = xstrdup("cannot create the event loop's descriptor watcher");
		lws_context_destroy(l->ctx);
		free(l);
		return NULL;
	}
	return l;
}

/* The libwebsockets context, for a listener that shares the loop (ws.c). */
struct lws_context *
loop_lws(struct loop *l)
{
	return l->ctx;
}

/* Share the loop with another source of work (see loop.h); main thread, before loop_start. */
struct loop_source *
loop_add_source(struct loop *l, int fd, long (*run)(void *arg), void *arg)
{
	struct loop_source *src = xcalloc(1, sizeof *src);
	src->loop = l;
	src->fd = fd;
	src->run = run;
	src->arg = arg;
	src->next = l->sources;
	l->sources = src;
	return src;
}

/* Ask for a source to run after the current pass. Any thread. */
void
loop_kick(struct loop_source *src)
{
	/* Already kicked: the loop has not run it yet, so a wakeup is on its way (or not needed). */
	if (atomic_exchange(&src->kicked, 1) == 0 && picked_up_by != src->loop)
		lws_cancel_service(src->loop->ctx);
}

/* Make the loop go round once (e.g. to notice a flag). Any thread. */
void
loop_wake(struct loop *l)
{
	lws_cancel_service(l->ctx);
}

/* Mark this stretch of the loop thread as one whose noted work loop_after_pass picks up. */
const struct loop *
loop_hold(struct loop *l)
{
	const struct loop *saved = picked_up_by;
	picked_up_by = l;
	return saved;
}

/* End a loop_hold stretch. */
void
loop_unhold(const struct loop *saved)
{
	picked_up_by = saved;
}

/* Run the sources kicked during a pass. Each may kick more (a resumed request answers a call,
 * whose completion queues writes), so go round until quiet. */
void
loop_after_pass(struct loop *l)
{
	for (int round = 0; round < 16; round++) {
		int did = 0;
		for (struct loop_source *src = l->sources; src != NULL; src = src->next) {
			if (atomic_load(&src->kicked)) {
				run_source(src);
				did = 1;
			}
		}
		if (!did)
			return;
	}
	lws_cancel_service(l->ctx); /* still busy: do not let the next poll sleep */
}

/* The event loop thread: the WebSockets and every source, until told to exit. */
static void *
loop_main(void *arg)
{
	struct loop *l = arg;
	pthread_setname_np(pthread_self(), "bb-loop");
	const struct loop *saved = loop_hold(l);
	for (struct loop_source *src = l->sources; src != NULL; src = src->next)
		run_source(src); /* whatever was ready before the loop began */
	loop_after_pass(l);
	loop_unhold(saved);
	while (!atomic_load(&l->exit_loop)) {
		if (lws_service(l->ctx, 0) < 0)
			break;
		saved = loop_hold(l);
		loop_after_pass(l);
		loop_unhold(saved);
	}
	return NULL;
}

/* Watch the sources' descriptors, then start the event loop thread. */
int
loop_start(struct loop *l, char **err)
{
	for (struct loop_source *src = l->sources; src != NULL; src = src->next) {
		if (src->fd < 0)
			continue;
		/* lws closes what it adopts; give it a duplicate so the owner can close the original. */
		lws_adopt_desc_t ad = {.vh = l->vh, .type = LWS_ADOPT_RAW_FILE_DESC, .vh_prot_name = LOOP_PROTOCOL,
		                       .opaque = src};
		ad.fd.filefd = dup(src->fd);
		if (ad.fd.filefd < 0 || lws_adopt_descriptor_vhost_via_info(&ad) == NULL) {
			*err = xasprintf("the event loop cannot watch descriptor %d", src->fd);
			return -1;
		}
	}
	if (pthread_create(&l->thread, NULL, loop_main, l) != 0) {
		*err = xstrdup("cannot start the event loop thread");
		return -1;
	}
	l->started = 1;
	return 0;
}

/* Stop the thread after its current pass. NULL is fine. */
void
loop_stop(struct loop *l)
{
	if (l == NULL || !l->started)
		return;
	atomic_store(&l->exit_loop, 1);
	lws_cancel_service(l->ctx);
	pthread_join(l->thread, NULL);
	l->started = 0;
}

/* Destroy the context, closing every connection left (their callbacks run now), after loop_stop.
 * NULL is fine. */
void
loop_free(struct loop *l)
{
	if (l == NULL)
		return;
	for (struct loop_source *src = l->sources; src != NULL; src = src->next)
		lws_sul_cancel(&src->timer);
	lws_context_destroy(l->ctx);
	for (struct loop_source *src = l->sources, *n; src != NULL; src = n) {
		n = src->next;
		free(src);
	}
	free(l);
}
