/* util.c -- see util.h. */
#include "autoconfig.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>

#include "util.h"

/* Print why we are giving up and abort, so out-of-memory never becomes a silent wrong answer. */
static void
oom(size_t n)
{
	fprintf(stderr, "browser-bridge: out of memory (%zu bytes)\n", n);
	abort();
}

/* malloc that never returns NULL. */
void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (p == NULL)
		oom(n);
	return p;
}

/* calloc that never returns NULL and checks the multiplication. */
void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (p == NULL)
		oom(n * size);
	return p;
}

/* realloc that never returns NULL. */
void *
xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (q == NULL)
		oom(n);
	return q;
}

/* strdup that never returns NULL. */
char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

/* strndup that never returns NULL. */
char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* asprintf that never fails. */
char *
xasprintf(const char *fmt, ...)
{
	struct buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(0);
	b.data = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(b.data, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return b.data;
}

/* Make room for n more bytes plus a terminating NUL, growing geometrically. */
static void
buf_reserve(struct buf *b, size_t n)
{
	if (b->len + n + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64; /* small: a waiting call's body is usually a few dozen bytes */
	while (cap < b->len + n + 1)
		cap *= 2;
	b->data = xrealloc(b->data, cap);
	b->cap = cap;
}

/* Append n bytes; the buffer stays NUL-terminated. */
void
buf_add(struct buf *b, const void *p, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

/* Append a C string. */
void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

/* Append formatted text. */
void
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	buf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* Hand the bytes to the caller (never NULL) and reset the buffer. */
char *
buf_steal(struct buf *b)
{
	char *p = b->data ? b->data : xstrdup("");
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

/* Release the bytes; a zeroed buffer is fine. */
void
buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

/* Wall-clock milliseconds since the epoch, for timestamps people read. */
int64_t
util_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Monotonic milliseconds, for deadlines that must not jump with the wall clock. */
int64_t
util_mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The time ms from now on clock, normalised: the absolute deadline pthread_cond_timedwait takes. */
struct timespec
util_timespec_in(clockid_t clock, long ms)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/* Format ms as 2026-11-22T21:40:00.123Z: sortable as text and readable in the sqlite3 shell. */
void
util_iso8601(int64_t ms, char out[32])
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	gmtime_r(&t, &tm);
	size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + n, 32 - n, ".%03dZ", (int)(ms % 1000));
}

/* Fill p with n bytes from the kernel's CSPRNG; there is no safe fallback, so abort on failure. */
void
util_random(void *p, size_t n)
{
	unsigned char *c = p;
	while (n > 0) {
		ssize_t r = getrandom(c, n, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "browser-bridge: getrandom: %s\n", strerror(errno));
			abort();
		}
		c += r;
		n -= (size_t)r;
	}
}

/* Lower-case hex of n bytes into out (2n+1 bytes). */
void
util_hex(const unsigned char *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

/* A random (version 4) UUID, so request ids cannot be guessed or collide across restarts. The
 * kernel's bytes are fetched 4 KiB at a time per thread: one system call per 256 ids, not per id. */
void
util_uuid4(char out[37])
{
	static _Thread_local unsigned char pool[4096];
	static _Thread_local size_t used = sizeof pool;
	if (used + 16 > sizeof pool) {
		util_random(pool, sizeof pool);
		used = 0;
	}
	unsigned char *r = pool + used;
	used += 16;
	r[6] = (unsigned char)((r[6] & 0x0f) | 0x40);
	r[8] = (unsigned char)((r[8] & 0x3f) | 0x80);
	char hex[33];
	util_hex(r, 16, hex);
	snprintf(out, 37, "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12, hex + 16, hex + 20);
}

/* Compare two secrets in time that depends only on their lengths, not on where they differ. */
int
util_ct_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = (unsigned char)(la != lb);
	size_t n = la < lb ? la : lb;
	for (size_t i = 0; i < n; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

/* Parse a whole decimal integer in [min, max]; 0 on success, -1 (and nothing stored) otherwise. */
int
util_parse_long(const char *s, long min, long max, long *out)
{
	if (s == NULL || *s == '\0')
		return -1;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Split ADDR:PORT (or [ADDR]:PORT for IPv6) and check the port; 0 on success. */
int
util_parse_hostport(const char *s, char *host, size_t hostsz, int *port)
{
	const char *colon;
	size_t hl;
	if (*s == '[') {
		const char *close = strchr(s, ']');
		if (close == NULL || close[1] != ':')
			return -1;
		hl = (size_t)(close - s - 1);
		s++;
		colon = close + 1;
	} else {
		colon = strrchr(s, ':');
		if (colon == NULL)
			return -1;
		hl = (size_t)(colon - s);
	}
	if (hl == 0 || hl >= hostsz)
		return -1;
	long p;
	if (util_parse_long(colon + 1, 1, 65535, &p) != 0)
		return -1;
	memcpy(host, s, hl);
	host[hl] = '\0';
	*port = (int)p;
	return 0;
}

/* True for a numeric loopback address (127.0.0.0/8 or ::1): the only places we agree to listen. */
int
util_is_loopback(const char *host)
{
	struct in_addr a4;
	struct in6_addr a6;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, host, &a6) == 1)
		return memcmp(&a6, &in6addr_loopback, sizeof a6) == 0;
	return 0;
}

/* mkdir -p with the given mode for each created component; 0 on success. */
int
util_mkdirs(const char *dir, int mode)
{
	char *p = xstrdup(dir);
	int rc = 0;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, (mode_t)mode) != 0 && errno != EEXIST) {
			rc = -1;
			goto out;
		}
		*s = '/';
	}
	if (mkdir(p, (mode_t)mode) != 0 && errno != EEXIST)
		rc = -1;
out:
	free(p);
	return rc;
}

/* $XDG_x/browser-bridge/leaf, or $HOME/fallback/browser-bridge/leaf when XDG_x is unset. */
char *
util_default_path(const char *xdg_var, const char *fallback, const char *leaf)
{
	const char *x = getenv(xdg_var);
	if (x != NULL && x[0] == '/')
		return xasprintf("%s/browser-bridge/%s", x, leaf);
	const char *home = getenv("HOME");
	if (home == NULL || home[0] != '/')
		home = "/tmp";
	return xasprintf("%s/%s/browser-bridge/%s", home, fallback, leaf);
}
