/*
 * events.h -- live events (browsers, tool calls, pages) fanned out to Server-Sent-Event subscribers.
 *
 * Any thread: one lock guards the subscriber list and their queues. Besides the fan-out's
 * subscribers there are private streams (events_open_stream): one producer's own Server-Sent-Events
 * response, e.g. an MCP tool call that sends progress notifications and then its result. A subscriber is woken through
 * its transport's wake function (e.g. resuming a suspended MHD connection), never by a thread of
 * its own. A subscriber that falls more than BB_EVENT_QUEUE_MAX bytes behind is dropped.
 */
#ifndef BB_EVENTS_H
#define BB_EVENTS_H

#include <stddef.h>
#include <jansson.h>

struct events;
struct events_sub;

typedef void (*events_wake_fn)(void *arg);
typedef char *(*events_tick_fn)(void *arg);

struct events *events_create(void);
void events_free(struct events *ev);
void events_publish(struct events *ev, const char *name, json_t *data);
int events_has_subscribers(struct events *ev);
struct events_sub *events_subscribe(struct events *ev, const char *first);
void events_set_wake(struct events *ev, struct events_sub *s, events_wake_fn wake, void *arg);
long events_read(struct events *ev, struct events_sub *s, char *out, size_t max);
void events_unsubscribe(struct events *ev, struct events_sub *s);
void events_heartbeat(struct events *ev);
void events_close_all(struct events *ev);
void events_on_join(struct events *ev, events_wake_fn fn, void *arg);
struct events_sub *events_open_stream(struct events *ev, const char *first, events_tick_fn tick, void *tick_arg);
void events_stream_push(struct events *ev, struct events_sub *s, const char *text);
void events_stream_end(struct events *ev, struct events_sub *s);

#endif
