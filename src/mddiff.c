/* mddiff.c -- see mddiff.h. */
#include "autoconfig.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "mddiff.h"
#include "util.h"

struct line {
	const char *s;
	size_t len;
	uint32_t hash;
};

/* How many lines text has (one more than its '\n's), stopping early past max. */
static size_t
count_lines(const char *s, size_t len, size_t max)
{
	size_t n = 1;
	for (const char *p = s, *end = s + len; n <= max && (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
		n++;
	return n;
}

/* Split text into its lines (without their '\n'), each hashed (FNV-1a) for quick comparison. */
static struct line *
split(const char *s, size_t len, size_t n)
{
	struct line *l = xcalloc(n, sizeof *l);
	size_t i = 0;
	const char *p = s, *end = s + len;
	for (;;) {
		const char *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
		const char *e = nl ? nl : end;
		uint32_t h = 2166136261u;
		for (const char *q = p; q < e; q++)
			h = (h ^ (unsigned char)*q) * 16777619u;
		l[i].s = p;
		l[i].len = (size_t)(e - p);
		l[i].hash = h;
		i++;
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	return l;
}

/* Whether two lines are equal. */
static int
same(const struct line *x, const struct line *y)
{
	return x->hash == y->hash && x->len == y->len && memcmp(x->s, y->s, x->len) == 0;
}

/*
 * Myers' greedy algorithm on a[0..n) and b[0..m): marks del[i] for each line of a removed and
 * ins[j] for each line of b added. Returns 0, or -1 when more than max_d edits are needed. The
 * furthest-reaching x of each diagonal is kept for every d (d + 1 values: only diagonals of d's
 * parity are reached), to walk the path back.
 */
static int
myers(const struct line *a, int32_t n, const struct line *b, int32_t m, int32_t max_d, unsigned char *del,
      unsigned char *ins)
{
	uint64_t work = 0; /* diagonals tried plus lines compared: bounded by BB_MDDIFF_WORK_MAX */
	if (n == 0 || m == 0) {
		if ((int64_t)n + m > max_d)
			return -1;
		memset(del, 1, (size_t)n);
		memset(ins, 1, (size_t)m);
		return 0;
	}
	size_t cap = 0, used = 0;
	int32_t *trace = NULL; /* V_0, V_1, ...: V_d at offset d*(d+1)/2, index (k+d)/2 */
	int32_t found = -1;
	for (int32_t d = 0; d <= max_d && found < 0; d++) {
		size_t need = used + (size_t)d + 1;
		if (need > cap) {
			cap = need * 2;
			trace = xrealloc(trace, cap * sizeof *trace);
		}
		int32_t *v = trace + used, *pv = d > 0 ? trace + used - d : NULL; /* V_{d-1} has d values */
		for (int32_t k = -d; k <= d; k += 2) {
			int32_t x;
			if (d == 0)
				x = 0;
			else if (k == -d || (k != d && pv[(k - 1 + d - 1) / 2] < pv[(k + 1 + d - 1) / 2]))
				x = pv[(k + 1 + d - 1) / 2]; /* down: a line of b added */
			else
				x = pv[(k - 1 + d - 1) / 2] + 1; /* right: a line of a removed */
			int32_t y = x - k, x0 = x;
			while (x < n && y < m && same(&a[x], &b[y])) {
				x++;
				y++;
			}
			work += 1 + (uint64_t)(x - x0);
			if (work > BB_MDDIFF_WORK_MAX) {
				free(trace);
				return -1;
			}
			v[(k + d) / 2] = x;
			if (x >= n && y >= m) {
				found = d;
				break;
			}
		}
		used = need;
	}
	if (found < 0) {
		free(trace);
		return -1;
	}
	int32_t x = n, y = m;
	for (int32_t d = found; d > 0; d--) {
		size_t off = (size_t)(d - 1) * (size_t)d / 2;
		const int32_t *pv = trace + off;
		int32_t k = x - y, pk;
		if (k == -d || (k != d && pv[(k - 1 + d - 1) / 2] < pv[(k + 1 + d - 1) / 2]))
			pk = k + 1;
		else
			pk = k - 1;
		int32_t px = pv[(pk + d - 1) / 2], py = px - pk;
		if (pk == k + 1)
			ins[py] = 1; /* from (px, py) down to (px, py + 1) */
		else
			del[px] = 1; /* from (px, py) right to (px + 1, py) */
		x = px;
		y = py;
	}
	free(trace);
	return 0;
}

/* One step of the edit script over both texts: ' ' (both advance), '-' (a), '+' (b). */
struct op {
	char kind;
	int32_t ai, bi; /* the line of a ('-', ' ') and of b ('+', ' ') */
};

/* Append one line of a hunk; 0, or -1 when the output would exceed max_out. */
static int
put_line(struct buf *o, char kind, const struct line *l, size_t max_out)
{
	if (o->len + l->len + 2 > max_out)
		return -1;
	buf_add(o, &kind, 1);
	buf_add(o, l->s, l->len);
	buf_add(o, "\n", 1);
	return 0;
}

/* Write the hunks of the script ops[0..nops) with MDDIFF_CONTEXT lines of context. */
static int
emit(const struct op *ops, size_t nops, const struct line *a, const struct line *b, size_t max_out, struct buf *o)
{
	size_t i = 0;
	while (i < nops) {
		while (i < nops && ops[i].kind == ' ')
			i++;
		if (i == nops)
			break;
		size_t start = i >= MDDIFF_CONTEXT ? i - MDDIFF_CONTEXT : 0, end = i;
		/* extend over changes separated by at most 2 * context equal lines */
		for (;;) {
			while (end < nops && ops[end].kind != ' ')
				end++;
			size_t eq = end;
			while (eq < nops && ops[eq].kind == ' ')
				eq++;
			if (eq < nops && eq - end <= 2 * MDDIFF_CONTEXT) {
				end = eq;
				continue;
			}
			end = end + MDDIFF_CONTEXT < nops ? end + MDDIFF_CONTEXT : nops;
			if (end > eq)
				end = eq;
			break;
		}
		/* line numbers: the first a and b line the hunk covers */
		long as = -1, bs = -1, al = 0, bl = 0;
		for (size_t k = start; k < end; k++) {
			if (ops[k].kind != '+') {
				if (as < 0)
					as = ops[k].ai;
				al++;
			}
			if (ops[k].kind != '-') {
				if (bs < 0)
					bs = ops[k].bi;
				bl++;
			}
		}
		/* an empty side starts at the line before: where the hunk's first op stands in it */
		if (as < 0)
			as = ops[start].ai;
		else
			as++;
		if (bs < 0)
			bs = ops[start].bi;
		else
			bs++;
		char hdr[96];
		int hn = snprintf(hdr, sizeof hdr, "@@ -%ld,%ld +%ld,%ld @@\n", as, al, bs, bl);
		if (o->len + (size_t)hn > max_out)
			return -1;
		buf_add(o, hdr, (size_t)hn);
		for (size_t k = start; k < end; k++) {
			const struct line *l = ops[k].kind == '+' ? &b[ops[k].bi] : &a[ops[k].ai];
			if (put_line(o, ops[k].kind, l, max_out) < 0)
				return -1;
		}
		i = end;
	}
	return 0;
}

/* The diff of a -> b (see mddiff.h): MDDIFF_OK with *out (malloc'ed, NUL-terminated) and *outlen,
 * or MDDIFF_TOO_COSTLY with *out NULL. */
int
mddiff(const char *a, size_t alen, const char *b, size_t blen, size_t max_out, char **out, size_t *outlen)
{
	*out = NULL;
	*outlen = 0;
	size_t n = count_lines(a, alen, BB_MDDIFF_LINES_MAX), m = count_lines(b, blen, BB_MDDIFF_LINES_MAX);
	if (n > BB_MDDIFF_LINES_MAX || m > BB_MDDIFF_LINES_MAX)
		return MDDIFF_TOO_COSTLY;
	struct line *la = split(a, alen, n), *lb = split(b, blen, m);
	unsigned char *del = NULL, *ins = NULL;
	struct op *ops = NULL;
	struct buf o = {0};
	int rc = MDDIFF_TOO_COSTLY;
	size_t pre = 0, suf = 0;
	while (pre < n && pre < m && same(&la[pre], &lb[pre]))
		pre++;
	while (suf < n - pre && suf < m - pre && same(&la[n - 1 - suf], &lb[m - 1 - suf]))
		suf++;
	int32_t mn = (int32_t)(n - pre - suf), mm = (int32_t)(m - pre - suf);
	/* every edit costs at least two bytes of output ("+\n"): no more can fit in max_out */
	size_t cap_d = max_out / 2 < BB_MDDIFF_EDITS_MAX ? max_out / 2 : BB_MDDIFF_EDITS_MAX;
	del = xcalloc((size_t)mn + 1, 1);
	ins = xcalloc((size_t)mm + 1, 1);
	if (myers(la + pre, mn, lb + pre, mm, (int32_t)cap_d, del, ins) < 0)
		goto fail;
	/* the script over whole texts: the common prefix, the middle (removals before additions), the suffix */
	ops = xcalloc(n + m + 1, sizeof *ops);
	size_t no = 0;
	int32_t i = 0, j = 0;
	for (size_t k = 0; k < pre; k++)
		ops[no++] = (struct op){' ', (int32_t)k, (int32_t)k};
	while (i < mn || j < mm) {
		if (i < mn && del[i]) {
			ops[no++] = (struct op){'-', (int32_t)pre + i, (int32_t)pre + j};
			i++;
		} else if (j < mm && ins[j]) {
			ops[no++] = (struct op){'+', (int32_t)pre + i, (int32_t)pre + j};
			j++;
		} else {
			ops[no++] = (struct op){' ', (int32_t)pre + i, (int32_t)pre + j};
			i++;
			j++;
		}
	}
	for (size_t k = 0; k < suf; k++)
		ops[no++] = (struct op){' ', (int32_t)(n - suf + k), (int32_t)(m - suf + k)};
	if (emit(ops, no, la, lb, max_out, &o) < 0)
		goto fail;
	buf_add(&o, "", 1); /* NUL-terminate (an empty diff too) */
	*outlen = o.len - 1;
	*out = buf_steal(&o);
	rc = MDDIFF_OK;
fail:
	buf_free(&o);
	free(ops);
	free(del);
	free(ins);
	free(la);
	free(lb);
	return rc;
}
