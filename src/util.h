/*
 * util.h -- aborting allocators, a growable buffer, clocks, ids, and strict number parsing.
 *
 * Any thread. Allocation failure aborts the process: error paths in the rest of the daemon are
 * for I/O and protocol failures only.
 */
#ifndef BB_UTIL_H
#define BB_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <time.h>

#define BB_VERSION PACKAGE_VERSION

#define container_of(ptr, type, member) ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct buf {
	char *data;
	size_t len;
	size_t cap;
};

void buf_add(struct buf *b, const void *p, size_t n);
void buf_adds(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *buf_steal(struct buf *b);
void buf_free(struct buf *b);

int64_t util_now_ms(void);
int64_t util_mono_ms(void);
struct timespec util_timespec_in(clockid_t clock, long ms);
void util_iso8601(int64_t ms, char out[32]);
void util_uuid4(char out[37]);
void util_random(void *p, size_t n);
void util_hex(const unsigned char *p, size_t n, char *out);
int util_ct_equal(const char *a, const char *b);
int util_parse_long(const char *s, long min, long max, long *out);
int util_parse_hostport(const char *s, char *host, size_t hostsz, int *port);
int util_is_loopback(const char *host);
int util_mkdirs(const char *dir, int mode);
char *util_default_path(const char *xdg_var, const char *fallback, const char *leaf);

#endif
