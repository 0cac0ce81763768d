/* spinner.c -- see spinner.h. */
#include "autoconfig.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "spinner.h"
#include "util.h"

/* Quiet this long first: most calls answer sooner, and a flash of spinner is noise. */
#define SPINNER_DELAY_MS 1000
#define SPINNER_FRAME_MS 120

struct spinner {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stop;  /* set by spinner_stop */
	int shown; /* something was drawn: erase it at the end */
	char what[48];
};

/* Wait on the condition until ms from now (monotonic) or a stop; 1 when stopped. Lock held. */
static int
wait_ms(struct spinner *s, long ms)
{
	struct timespec ts = util_timespec_in(CLOCK_MONOTONIC, ms);
	while (!s->stop && pthread_cond_timedwait(&s->cond, &s->lock, &ts) != ETIMEDOUT)
		;
	return s->stop;
}

/* The spinner's thread: after the delay, a frame every SPINNER_FRAME_MS until stopped, then erase. */
static void *
spin(void *arg)
{
	static const char frames[] = "|/-\\";
	struct spinner *s = arg;
	int64_t t0 = util_mono_ms();
	pthread_mutex_lock(&s->lock);
	if (!wait_ms(s, SPINNER_DELAY_MS)) {
		for (unsigned i = 0;; i++) {
			fprintf(stderr, "\r%c %s: waiting for the daemon (%llds)", frames[i % 4], s->what,
				(long long)((util_mono_ms() - t0) / 1000));
			fflush(stderr);
			s->shown = 1;
			if (wait_ms(s, SPINNER_FRAME_MS))
				break;
		}
	}
	if (s->shown) {
		fputs("\r\033[K", stderr); /* back to the start of the line, and clear it */
		fflush(stderr);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Start the spinner for a wait (labelled what); NULL -- nothing to stop -- when stderr is not a
 * terminal or the thread cannot start. */
struct spinner *
spinner_start(const char *what)
{
	if (!isatty(STDERR_FILENO))
		return NULL;
	struct spinner *s = xcalloc(1, sizeof *s);
	snprintf(s->what, sizeof s->what, "%s", what ? what : "browser-bridge");
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&s->lock, NULL);
	if (pthread_create(&s->thread, NULL, spin, s) != 0) {
		pthread_cond_destroy(&s->cond);
		pthread_mutex_destroy(&s->lock);
		free(s);
		return NULL;
	}
	return s;
}

/* Stop the spinner and erase what it drew; NULL is fine. */
void
spinner_stop(struct spinner *s)
{
	if (s == NULL)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop = 1;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
