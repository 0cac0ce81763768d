/* suggest.c -- see suggest.h. */
#include "autoconfig.h"

#include <string.h>

#include "suggest.h"
#include "util.h"

/* Longest name compared; longer ones are not suggestions anyone mistyped. */
#define SUGGEST_MAX_LEN 64

/* The optimal-string-alignment distance between a and b (swapping neighbours counts one, so
 * "opne" is one step from "open"); SUGGEST_MAX_LEN + 1 when either is too long to compare. */
size_t
suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return SUGGEST_MAX_LEN + 1;
	size_t d[SUGGEST_MAX_LEN + 1][SUGGEST_MAX_LEN + 1];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

/* The name closest to typed, or NULL when none is close enough to be what was meant: at most one
 * edit for short words, two from five characters, three from nine; ties go to the earlier name. */
const char *
suggest_closest(const char *typed, const char *const *names, size_t n)
{
	size_t len = strlen(typed), limit = len >= 9 ? 3 : len >= 5 ? 2 : 1, best = limit + 1;
	const char *pick = NULL;
	for (size_t i = 0; i < n; i++) {
		size_t dist = suggest_distance(typed, names[i]);
		if (dist < best && strcmp(typed, names[i]) != 0) {
			best = dist;
			pick = names[i];
		}
	}
	return pick;
}
