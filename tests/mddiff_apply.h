/* mddiff_apply.h -- for tests and the fuzzer: apply an mddiff (src/mddiff.h) to the old text, to
 * check that it gives the new one. A checker, not part of the daemon: agents read the diff. */
#ifndef BB_MDDIFF_APPLY_H
#define BB_MDDIFF_APPLY_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The line of s (len bytes) at index i (0-based, '\n' separated) into *p, *n; 0, or -1 past the end. */
static inline int
mddiff_test_line(const char *s, size_t len, long i, const char **p, size_t *n)
{
	const char *q = s, *end = s + len;
	for (long k = 0; k < i; k++) {
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		if (nl == NULL)
			return -1;
		q = nl + 1;
	}
	const char *nl = memchr(q, '\n', (size_t)(end - q));
	*p = q;
	*n = nl ? (size_t)(nl - q) : (size_t)(end - q);
	return 0;
}

/* Apply diff to a; the result (malloc'ed) in *out, or -1 when the diff does not fit a. */
static inline int
mddiff_test_apply(const char *a, size_t alen, const char *diff, size_t dlen, char **out, size_t *outlen)
{
	struct buf o = {0};
	long ai = 0; /* the next line of a to use */
	int first = 1;
	const char *d = diff, *dend = diff + dlen;
	size_t nlines = 1;
	for (size_t i = 0; i < alen; i++)
		nlines += a[i] == '\n';
	while (d < dend) {
		long as, al, bs, bl;
		int used = 0;
		if (sscanf(d, "@@ -%ld,%ld +%ld,%ld @@%n", &as, &al, &bs, &bl, &used) != 4 || used == 0)
			goto bad;
		d = memchr(d, '\n', (size_t)(dend - d));
		if (d == NULL)
			goto bad;
		d++;
		long start = al == 0 ? as : as - 1; /* 0-based index of the hunk's first old line */
		if (start < ai)
			goto bad;
		for (; ai < start; ai++) {
			const char *p;
			size_t n;
			if (mddiff_test_line(a, alen, ai, &p, &n) < 0)
				goto bad;
			if (!first)
				buf_add(&o, "\n", 1);
			buf_add(&o, p, n);
			first = 0;
		}
		while (d < dend && *d != '@') {
			const char *nl = memchr(d, '\n', (size_t)(dend - d));
			if (nl == NULL)
				goto bad;
			char kind = *d;
			const char *text = d + 1;
			size_t tn = (size_t)(nl - text);
			if (kind == ' ' || kind == '-') {
				const char *p;
				size_t n;
				if (mddiff_test_line(a, alen, ai, &p, &n) < 0 || n != tn || memcmp(p, text, n) != 0)
					goto bad;
				ai++;
			} else if (kind != '+') {
				goto bad;
			}
			if (kind != '-') {
				if (!first)
					buf_add(&o, "\n", 1);
				buf_add(&o, text, tn);
				first = 0;
			}
			d = nl + 1;
		}
	}
	for (; ai < (long)nlines; ai++) {
		const char *p;
		size_t n;
		mddiff_test_line(a, alen, ai, &p, &n);
		if (!first)
			buf_add(&o, "\n", 1);
		buf_add(&o, p, n);
		first = 0;
	}
	buf_add(&o, "", 1);
	*outlen = o.len - 1;
	*out = buf_steal(&o);
	return 0;
bad:
	buf_free(&o);
	return -1;
}

#endif
