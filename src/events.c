/* events.c -- see events.h. */
#include "autoconfig.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "limits.h"
#include "jsonio.h"
#include "util.h"

struct events_sub {
	struct events_sub *next;
	struct buf q;       /* bytes not yet read by the transport */
	size_t off;         /* read position in q */
	int closed;         /* dropped (too slow) or shutting down: the stream ends */
	events_wake_fn wake;
	void *arg;
	/* A private stream (events_open_stream): one producer's messages, not the fan-out's. */
	int private_;
	int refs;               /* private: the transport's and the producer's; freed at 0 */
	events_tick_fn tick;    /* private: what each heartbeat adds (progress), or NULL */
	void *tick_arg;
};

struct events {
	pthread_mutex_t lock;
	struct events_sub *subs;
	int n;
	events_wake_fn on_join; /* told when a subscriber joins: whoever sends heartbeats starts to */
	void *on_join_arg;
};

/* An empty fan-out. */
struct events *
events_create(void)
{
	struct events *ev = xcalloc(1, sizeof *ev);
	pthread_mutex_init(&ev->lock, NULL);
	return ev;
}

/* Free; subscribers must have been unsubscribed by their transports. NULL is fine. */
void
events_free(struct events *ev)
{
	if (ev == NULL)
		return;
	for (struct events_sub *s = ev->subs, *n; s != NULL; s = n) {
		n = s->next;
		buf_free(&s->q);
		free(s);
	}
	pthread_mutex_destroy(&ev->lock);
	free(ev);
}

/* Cheap check so publishers can skip building events nobody will read. */
int
events_has_subscribers(struct events *ev)
{
	if (ev == NULL)
		return 0;
	pthread_mutex_lock(&ev->lock);
	int n = ev->n;
	pthread_mutex_unlock(&ev->lock);
	return n > 0;
}

/* Append text to every subscriber (dropping the ones that are too far behind) and wake them. */
static void
fan_out(struct events *ev, const char *text, size_t len)
{
	pthread_mutex_lock(&ev->lock);
	for (struct events_sub *s = ev->subs; s != NULL; s = s->next) {
		if (s->closed || s->private_)
			continue;
		if (s->q.len - s->off + len > BB_EVENT_QUEUE_MAX)
			s->closed = 1;
		else
			buf_add(&s->q, text, len);
		if (s->wake)
			s->wake(s->arg);
	}
	pthread_mutex_unlock(&ev->lock);
}

/* Publish one event (data is stolen); a no-op without subscribers. */
void
events_publish(struct events *ev, const char *name, json_t *data)
{
	if (ev == NULL || !events_has_subscribers(ev)) {
		json_decref(data);
		return;
	}
	char *js = jsonio_write(data, NULL);
	json_decref(data);
	if (js == NULL)
		return;
	struct buf b = {0};
	buf_printf(&b, "event: %s\ndata: %s\n\n", name, js);
	free(js);
	fan_out(ev, b.data, b.len);
	buf_free(&b);
}

/* A comment line keeps proxies from timing out and lets a write fail on a dead subscriber; a
 * private stream with a tick gets what its tick says instead (an MCP progress notification). */
void
events_heartbeat(struct events *ev)
{
	static const char hb[] = ": heartbeat\n\n";
	if (!events_has_subscribers(ev))
		return;
	fan_out(ev, hb, sizeof hb - 1);
	pthread_mutex_lock(&ev->lock);
	for (struct events_sub *s = ev->subs; s != NULL; s = s->next) {
		if (!s->private_ || s->closed || s->tick == NULL)
			continue;
		char *text = s->tick(s->tick_arg);
		if (text != NULL && s->q.len - s->off + strlen(text) <= BB_EVENT_QUEUE_MAX)
			buf_adds(&s->q, text);
		free(text);
		if (s->wake)
			s->wake(s->arg);
	}
	pthread_mutex_unlock(&ev->lock);
}

/*
 * A private stream: a Server-Sent-Events response carrying one producer's messages (an MCP tool
 * call's progress and result), not the fan-out's events; it starts with first (may be NULL). Both
 * the transport (events_unsubscribe, as for any stream) and the producer (events_stream_end) release
 * it; it is freed by the second. tick, if not NULL, is called under the events lock at each
 * heartbeat and returns text to append (malloc'ed) or NULL; it is never called after
 * events_stream_end returns. NULL when there are too many subscribers already.
 */
struct events_sub *
events_open_stream(struct events *ev, const char *first, events_tick_fn tick, void *tick_arg)
{
	pthread_mutex_lock(&ev->lock);
	if (ev->n >= BB_EVENT_SUBSCRIBERS_MAX) {
		pthread_mutex_unlock(&ev->lock);
		return NULL;
	}
	struct events_sub *s = xcalloc(1, sizeof *s);
	if (first != NULL)
		buf_adds(&s->q, first);
	s->private_ = 1;
	s->refs = 2;
	s->tick = tick;
	s->tick_arg = tick_arg;
	s->next = ev->subs;
	ev->subs = s;
	ev->n++;
	pthread_mutex_unlock(&ev->lock);
	if (ev->on_join != NULL)
		ev->on_join(ev->on_join_arg); /* the heartbeat timer drives the ticks */
	return s;
}

/* Drop one reference to a private stream; lock held. Unlinks and frees it at the last. */
static void
stream_release(struct events *ev, struct events_sub *s)
{
	if (--s->refs > 0)
		return;
	for (struct events_sub **pp = &ev->subs; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			ev->n--;
			break;
		}
	}
	buf_free(&s->q);
	free(s);
}

/* The producer adds text to its private stream (dropped when the stream is too far behind). */
void
events_stream_push(struct events *ev, struct events_sub *s, const char *text)
{
	pthread_mutex_lock(&ev->lock);
	size_t len = strlen(text);
	if (!s->closed && s->q.len - s->off + len <= BB_EVENT_QUEUE_MAX)
		buf_add(&s->q, text, len);
	if (s->wake)
		s->wake(s->arg);
	pthread_mutex_unlock(&ev->lock);
}

/* The producer is done: the transport sends what is queued, then ends the response. */
void
events_stream_end(struct events *ev, struct events_sub *s)
{
	pthread_mutex_lock(&ev->lock);
	s->closed = 1;
	s->tick = NULL;
	if (s->wake)
		s->wake(s->arg);
	stream_release(ev, s);
	pthread_mutex_unlock(&ev->lock);
}

/* Who to tell when a subscriber joins (the loop that sends heartbeats arms its timer then, so a
 * dead subscriber is found and released even when nothing else happens). Main thread, at start. */
void
events_on_join(struct events *ev, events_wake_fn fn, void *arg)
{
	ev->on_join = fn;
	ev->on_join_arg = arg;
}

/* Add a subscriber whose stream starts with the given text; it is woken once events_set_wake is called. */
struct events_sub *
events_subscribe(struct events *ev, const char *first)
{
	pthread_mutex_lock(&ev->lock);
	if (ev->n >= BB_EVENT_SUBSCRIBERS_MAX) {
		pthread_mutex_unlock(&ev->lock);
		return NULL;
	}
	struct events_sub *s = xcalloc(1, sizeof *s);
	buf_adds(&s->q, "retry: 2000\n\n");
	if (first != NULL)
		buf_adds(&s->q, first);
	s->next = ev->subs;
	ev->subs = s;
	ev->n++;
	pthread_mutex_unlock(&ev->lock);
	if (ev->on_join != NULL)
		ev->on_join(ev->on_join_arg);
	return s;
}

/* Tell the subscriber how to wake its transport (set once its stream exists); wakes it once. */
void
events_set_wake(struct events *ev, struct events_sub *s, events_wake_fn wake, void *arg)
{
	pthread_mutex_lock(&ev->lock);
	s->wake = wake;
	s->arg = arg;
	wake(arg);
	pthread_mutex_unlock(&ev->lock);
}

/* Copy up to max pending bytes; returns the count, 0 when nothing is pending, -1 when the stream ended. */
long
events_read(struct events *ev, struct events_sub *s, char *out, size_t max)
{
	pthread_mutex_lock(&ev->lock);
	size_t avail = s->q.len - s->off;
	long rc;
	if (avail == 0) {
		rc = s->closed ? -1 : 0;
	} else {
		size_t n = avail < max ? avail : max;
		memcpy(out, s->q.data + s->off, n);
		s->off += n;
		if (s->off == s->q.len)
			s->off = s->q.len = 0;
		rc = (long)n;
	}
	pthread_mutex_unlock(&ev->lock);
	return rc;
}

/* Remove and free a subscriber (its transport is done with it); a private stream lives on until its
 * producer ends it too, but never wakes the transport again. */
void
events_unsubscribe(struct events *ev, struct events_sub *s)
{
	pthread_mutex_lock(&ev->lock);
	if (s->private_) {
		s->wake = NULL;
		s->closed = 1;
		s->tick = NULL;
		stream_release(ev, s);
		pthread_mutex_unlock(&ev->lock);
		return;
	}
	for (struct events_sub **pp = &ev->subs; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			ev->n--;
			break;
		}
	}
	pthread_mutex_unlock(&ev->lock);
	buf_free(&s->q);
	free(s);
}

/* End every stream (shutdown): each subscriber reads what is left, then sees the end. */
void
events_close_all(struct events *ev)
{
	if (ev == NULL)
		return;
	pthread_mutex_lock(&ev->lock);
	for (struct events_sub *s = ev->subs; s != NULL; s = s->next) {
		s->closed = 1;
		if (s->wake)
			s->wake(s->arg);
	}
	pthread_mutex_unlock(&ev->lock);
}
