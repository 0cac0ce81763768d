/*
 * jsonio.h -- a strict, fast JSON reader and writer over jansson values.
 *
 * Any thread (no shared state). jansson stays the data model; these replace json_loadb/json_dumps
 * on the hot path, where jansson's character-at-a-time string handling cost more than everything
 * else a tool call does (a 2 KB page: ~20 us to parse, ~8 us to write).
 * The reader accepts exactly RFC 8259 JSON in UTF-8: no comments, no trailing commas, no NUL in
 * strings, no invalid UTF-8 or lone surrogates, no duplicate keys; nesting is bounded.
 */
#ifndef BB_JSONIO_H
#define BB_JSONIO_H

#include <stddef.h>
#include <jansson.h>

#define JSONIO_MAX_DEPTH 64

struct jsonio_err {
	size_t offset; /* byte offset of the problem */
	char text[96];
};

json_t *jsonio_parse(const char *p, size_t len, struct jsonio_err *err);
char *jsonio_write(json_t *v, size_t *len);
void jsonio_set(json_t *obj, const char *key, json_t *v);
void jsonio_set_str(json_t *obj, const char *key, const char *s);

#endif
