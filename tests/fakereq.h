/* fakereq.h -- a fake transport for the router and MCP: a request with headers, query and body,
 * whose completion (from any thread) is captured for the test or fuzzer to look at. */
#ifndef BB_FAKEREQ_H
#define BB_FAKEREQ_H

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "reqresp.h"
#include "util.h"

#define FAKEREQ_MAX 16

struct fakereq {
	struct rr_req req;
	const char *hdr[2 * FAKEREQ_MAX];
	int n_hdr;
	const char *q[2 * FAKEREQ_MAX];
	int n_q;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct rr_resp *resp;
	int completions;
};

/* rr_req accessor: a header, case-insensitively, from the list. */
static inline const char *
fakereq_header(struct rr_req *r, const char *name)
{
	struct fakereq *f = (struct fakereq *)r;
	for (int i = 0; i < f->n_hdr; i++)
		if (strcasecmp(f->hdr[2 * i], name) == 0)
			return f->hdr[2 * i + 1];
	return NULL;
}

/* rr_req accessor: a query argument. */
static inline const char *
fakereq_query(struct rr_req *r, const char *name)
{
	struct fakereq *f = (struct fakereq *)r;
	for (int i = 0; i < f->n_q; i++)
		if (strcmp(f->q[2 * i], name) == 0)
			return f->q[2 * i + 1];
	return NULL;
}

/* rr_req completion: keep the response, count the calls (exactly one is allowed). */
static inline void
fakereq_complete(struct rr_req *r, struct rr_resp *resp)
{
	struct fakereq *f = (struct fakereq *)r;
	pthread_mutex_lock(&f->lock);
	if (f->resp != NULL)
		rr_resp_free(f->resp);
	f->resp = resp;
	f->completions++;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

/* A request for method and path with a body (may be NULL). */
static inline void
fakereq_init(struct fakereq *f, const char *method, const char *path, const char *body)
{
	memset(f, 0, sizeof *f);
	f->req.method = method;
	f->req.path = path;
	f->req.body = body ? body : "";
	f->req.body_len = body ? strlen(body) : 0;
	f->req.own_port = 8080;
	f->req.header = fakereq_header;
	f->req.query = fakereq_query;
	f->req.complete = fakereq_complete;
	f->req.can_stream = 1;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
}

static inline void
fakereq_add_header(struct fakereq *f, const char *name, const char *value)
{
	if (f->n_hdr < FAKEREQ_MAX) {
		f->hdr[2 * f->n_hdr] = name;
		f->hdr[2 * f->n_hdr + 1] = value;
		f->n_hdr++;
	}
}

static inline void
fakereq_add_query(struct fakereq *f, const char *name, const char *value)
{
	if (f->n_q < FAKEREQ_MAX) {
		f->q[2 * f->n_q] = name;
		f->q[2 * f->n_q + 1] = value;
		f->n_q++;
	}
}

/* Wait (at most ms) for the completion; the response, or NULL. */
static inline struct rr_resp *
fakereq_wait(struct fakereq *f, long ms)
{
	struct timespec ts = util_timespec_in(CLOCK_REALTIME, ms);
	pthread_mutex_lock(&f->lock);
	while (f->completions == 0 && pthread_cond_timedwait(&f->cond, &f->lock, &ts) == 0)
		;
	struct rr_resp *r = f->resp;
	pthread_mutex_unlock(&f->lock);
	if (r != NULL)
		rr_resp_render(r);
	return r;
}

/* Free what the request holds. */
static inline void
fakereq_done(struct fakereq *f)
{
	rr_resp_free(f->resp);
	f->resp = NULL;
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->cond);
}

#endif
