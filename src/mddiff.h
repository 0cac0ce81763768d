/*
 * mddiff.h -- a line diff of two page Markdowns, in the compact unified form agents receive as
 * page.changes (docs/api.md, "Snapshots and changes"):
 *
 *   @@ -12,3 +12,4 @@
 *    a line kept, shown as context
 *   -a line removed
 *   +a line added
 *
 * Each hunk starts with "@@ -<old start>,<old count> +<new start>,<new count> @@" (1-based line
 * numbers; with a count of 0 the start is the line before), then its lines, each prefixed by one
 * character: ' ' (context, one line on each side of a change), '-' (only in the old page), '+'
 * (only in the new one). Every line ends with '\n'. Two equal pages give "".
 *
 * The cost is bounded: common leading and trailing lines are skipped, the rest goes through Myers'
 * O((N+M)D) algorithm with D (the number of lines removed plus added) and the work capped, and the output is
 * capped by the caller's max_out; past any bound the answer is MDDIFF_TOO_COSTLY and the caller
 * sends the whole page instead.
 *
 * Pure functions: any thread.
 */
#ifndef BB_MDDIFF_H
#define BB_MDDIFF_H

#include <stddef.h>

enum mddiff_status {
	MDDIFF_OK = 0,
	MDDIFF_TOO_COSTLY /* too many lines, too many edits, or the diff would exceed max_out bytes */
};

#define MDDIFF_CONTEXT 1 /* lines of context on each side of a change */

int mddiff(const char *a, size_t alen, const char *b, size_t blen, size_t max_out, char **out, size_t *outlen);

#endif
