/* fuzzreq.h -- turn fuzzer bytes into a request for the fake transport (tests/fakereq.h):
 *   METHOD SP PATH[?k=v&k2=v2] LF (Name: value LF)* LF body
 * Names, values and the body may hold any bytes but NUL (a header cannot carry one). */
#ifndef BB_FUZZREQ_H
#define BB_FUZZREQ_H

#include <stdlib.h>
#include <string.h>

#include "fakereq.h"

struct fuzzreq {
	struct fakereq f;
	char *text; /* the input, NUL-terminated and cut up in place */
};

/* Next line of *p (up to LF), NUL-terminated in place; NULL at the end. */
static inline char *
fuzzreq_line(char **p, char *end)
{
	if (*p >= end)
		return NULL;
	char *s = *p, *nl = memchr(s, '\n', (size_t)(end - s));
	if (nl == NULL) {
		*p = end;
		return s;
	}
	*nl = '\0';
	*p = nl + 1;
	return s;
}

/* Build the request; 0 when the input has no request line. */
static inline int
fuzzreq_parse(struct fuzzreq *q, const uint8_t *data, size_t size)
{
	q->text = malloc(size + 1);
	memcpy(q->text, data, size);
	q->text[size] = '\0';
	size = strlen(q->text); /* up to the first NUL */
	char *p = q->text, *end = q->text + size;
	char *line = fuzzreq_line(&p, end);
	char *sp = line ? strchr(line, ' ') : NULL;
	if (sp == NULL)
		return 0;
	*sp = '\0';
	char *path = sp + 1, *qs = strchr(path, '?');
	if (qs != NULL)
		*qs++ = '\0';
	char *hdrs_start = p;
	(void)hdrs_start;
	fakereq_init(&q->f, line, path, NULL);
	while ((line = fuzzreq_line(&p, end)) != NULL && *line != '\0') {
		char *colon = strchr(line, ':');
		if (colon == NULL)
			continue;
		*colon = '\0';
		char *v = colon + 1;
		while (*v == ' ')
			v++;
		fakereq_add_header(&q->f, line, v);
	}
	for (char *save = NULL, *part = qs ? strtok_r(qs, "&", &save) : NULL; part; part = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(part, '=');
		if (eq != NULL)
			*eq++ = '\0';
		fakereq_add_query(&q->f, part, eq ? eq : "");
	}
	q->f.req.body = p < end ? p : "";
	q->f.req.body_len = p < end ? (size_t)(end - p) : 0;
	return 1;
}

static inline void
fuzzreq_free(struct fuzzreq *q)
{
	free(q->text);
}

#endif
