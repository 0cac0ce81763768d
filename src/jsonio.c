/* jsonio.c -- see jsonio.h. */
#include "autoconfig.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonio.h"
#include "util.h"

struct rd {
	const unsigned char *p, *start, *end;
	struct jsonio_err *err;
	struct buf tmp; /* unescaped string being built, when it has escapes */
};

static json_t *read_value(struct rd *r, int depth);

/* Record the first error with where it happened. */
static json_t *
fail(struct rd *r, const char *what)
{
	if (r->err && r->err->text[0] == '\0') {
		r->err->offset = (size_t)(r->p - r->start);
		snprintf(r->err->text, sizeof r->err->text, "%s", what);
	}
	return NULL;
}

/* Skip JSON whitespace. */
static void
skip_ws(struct rd *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t'))
		r->p++;
}

/* Whether any of the 8 bytes at p needs a look of its own: a control character, '"', '\\', or (when
 * `high`) a byte of 0x80 or more. Tested a word at a time (the classic has-less/has-zero bit tricks,
 * exact for "is there one"), so the long plain runs of a page's Markdown cost ≈ 2 instructions a
 * byte instead of ≈ 7: read_string and write_string were 67 k of a call's ≈ 400 k instructions. */
static inline int
word_special(const unsigned char *p, int high)
{
	const uint64_t ones = 0x0101010101010101ULL, top = 0x8080808080808080ULL;
	uint64_t x, q, b;
	memcpy(&x, p, sizeof x);
	q = x ^ (ones * '"');
	b = x ^ (ones * '\\');
	return ((((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((b - ones) & ~b) | (high ? x : 0)) & top) != 0;
}

/* Length of the valid UTF-8 sequence starting at p (lead byte >= 0x80), or 0 when invalid. */
static size_t
utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0];
	size_t n;
	unsigned min;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		min = 0x10000;
	} else {
		return 0;
	}
	if ((size_t)(end - p) < n)
		return 0;
	unsigned cp = c & (0xff >> (n + 1));
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* Four hex digits of a \u escape. */
static int
hex4(const unsigned char *p, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		unsigned c = p[i], d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (c | 0x20) - 'a' + 10;
		else
			return -1;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

/* Append a code point as UTF-8. */
static void
put_utf8(struct buf *b, unsigned cp)
{
	unsigned char o[4];
	size_t n;
	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		o[0] = (unsigned char)(0xc0 | cp >> 6);
		o[1] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		o[0] = (unsigned char)(0xe0 | cp >> 12);
		o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		o[0] = (unsigned char)(0xf0 | cp >> 18);
		o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		o[3] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	buf_add(b, o, n);
}

/*
 * Read a string (r->p just past the opening quote). Runs of plain characters are validated and
 * copied in bulk; only escapes take the slow path. *out and *len point into the input (no escapes) or
 * into r->tmp.
 */
static int
read_string(struct rd *r, const char **out, size_t *len)
{
	const unsigned char *run = r->p;
	int escaped = 0;
	r->tmp.len = 0;
	for (;;) {
		while (r->end - r->p >= 8 && !word_special(r->p, 1))
			r->p += 8;
		while (r->p < r->end && *r->p >= 0x20 && *r->p != '"' && *r->p != '\\' && *r->p < 0x80)
			r->p++;
		if (r->p >= r->end) {
			fail(r, "unterminated string");
			return -1;
		}
		unsigned c = *r->p;
		if (c >= 0x80) {
			size_t n = utf8_len(r->p, r->end);
			if (n == 0) {
				fail(r, "invalid UTF-8 in a string");
				return -1;
			}
			r->p += n;
			continue;
		}
		if (c < 0x20) {
			fail(r, "control character in a string (escape it)");
			return -1;
		}
		if (c == '"') {
			if (!escaped) {
				*out = (const char *)run;
				*len = (size_t)(r->p - run);
			} else {
				buf_add(&r->tmp, run, (size_t)(r->p - run));
				*out = r->tmp.data ? r->tmp.data : "";
				*len = r->tmp.len;
			}
			r->p++;
			return 0;
		}
		/* A backslash: flush the run, decode the escape. */
		escaped = 1;
		buf_add(&r->tmp, run, (size_t)(r->p - run));
		if (r->end - r->p < 2) {
			fail(r, "unterminated escape");
			return -1;
		}
		unsigned e = r->p[1];
		r->p += 2;
		switch (e) {
		case '"': buf_add(&r->tmp, "\"", 1); break;
		case '\\': buf_add(&r->tmp, "\\", 1); break;
		case '/': buf_add(&r->tmp, "/", 1); break;
		case 'b': buf_add(&r->tmp, "\b", 1); break;
		case 'f': buf_add(&r->tmp, "\f", 1); break;
		case 'n': buf_add(&r->tmp, "\n", 1); break;
		case 'r': buf_add(&r->tmp, "\r", 1); break;
		case 't': buf_add(&r->tmp, "\t", 1); break;
		case 'u': {
			unsigned cp, lo;
			if (r->end - r->p < 4 || hex4(r->p, &cp) != 0) {
				fail(r, "invalid \\u escape");
				return -1;
			}
			r->p += 4;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u' || hex4(r->p + 2, &lo) != 0 ||
				    lo < 0xdc00 || lo > 0xdfff) {
					fail(r, "invalid \\u surrogate pair");
					return -1;
				}
				r->p += 6;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp <= 0xdfff) {
				fail(r, "invalid \\u surrogate pair");
				return -1;
			}
			if (cp == 0) {
				fail(r, "\\u0000 is not allowed in strings");
				return -1;
			}
			put_utf8(&r->tmp, cp);
			break;
		}
		default: fail(r, "invalid escape"); return -1;
		}
		run = r->p;
	}
}

/* Read a number: integers that fit become integers, everything else a real. */
static json_t *
read_number(struct rd *r)
{
	const unsigned char *s = r->p;
	int is_real = 0;
	if (r->p < r->end && *r->p == '-')
		r->p++;
	if (r->p < r->end && *r->p == '0')
		r->p++;
	else if (r->p < r->end && *r->p >= '1' && *r->p <= '9')
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
	else
		return fail(r, "invalid number");
	if (r->p < r->end && *r->p == '.') {
		is_real = 1;
		r->p++;
		if (r->p >= r->end || *r->p < '0' || *r->p > '9')
			return fail(r, "invalid number");
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
	}
	if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
		is_real = 1;
		r->p++;
		if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
			r->p++;
		if (r->p >= r->end || *r->p < '0' || *r->p > '9')
			return fail(r, "invalid number");
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
	}
	char num[64];
	size_t n = (size_t)(r->p - s);
	if (n >= sizeof num)
		return fail(r, "number too long");
	memcpy(num, s, n);
	num[n] = '\0';
	errno = 0;
	if (!is_real) {
		long long v = strtoll(num, NULL, 10);
		if (errno == 0)
			return json_integer(v);
		return fail(r, "integer out of range");
	}
	double d = strtod(num, NULL);
	if (errno == ERANGE && isinf(d))
		return fail(r, "real number out of range");
	return json_real(d);
}

/* Read an object (r->p past '{'). */
static json_t *
read_object(struct rd *r, int depth)
{
	json_t *o = json_object();
	skip_ws(r);
	if (r->p < r->end && *r->p == '}') {
		r->p++;
		return o;
	}
	for (;;) {
		skip_ws(r);
		if (r->p >= r->end || *r->p != '"') {
			fail(r, "expected a string key");
			goto bad;
		}
		r->p++;
		const char *k;
		size_t kl;
		if (read_string(r, &k, &kl) != 0)
			goto bad;
		char *key = xstrndup(k, kl);
		if (strlen(key) != kl || json_object_get(o, key) != NULL) {
			free(key);
			fail(r, "duplicate or invalid object key");
			goto bad;
		}
		skip_ws(r);
		if (r->p >= r->end || *r->p != ':') {
			free(key);
			fail(r, "expected ':'");
			goto bad;
		}
		r->p++;
		json_t *v = read_value(r, depth + 1);
		if (v == NULL) {
			free(key);
			goto bad;
		}
		json_object_set_new_nocheck(o, key, v);
		free(key);
		skip_ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == '}') {
			r->p++;
			return o;
		}
		fail(r, "expected ',' or '}'");
		goto bad;
	}
bad:
	json_decref(o);
	return NULL;
}

/* Read an array (r->p past '['). */
static json_t *
read_array(struct rd *r, int depth)
{
	json_t *a = json_array();
	skip_ws(r);
	if (r->p < r->end && *r->p == ']') {
		r->p++;
		return a;
	}
	for (;;) {
		json_t *v = read_value(r, depth + 1);
		if (v == NULL) {
			json_decref(a);
			return NULL;
		}
		json_array_append_new(a, v);
		skip_ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == ']') {
			r->p++;
			return a;
		}
		json_decref(a);
		return fail(r, "expected ',' or ']'");
	}
}

/* Match a literal keyword. */
static int
literal(struct rd *r, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
		return 0;
	r->p += n;
	return 1;
}

/* Read any value. */
static json_t *
read_value(struct rd *r, int depth)
{
	if (depth > JSONIO_MAX_DEPTH)
		return fail(r, "nested too deeply");
	skip_ws(r);
	if (r->p >= r->end)
		return fail(r, "unexpected end of input");
	switch (*r->p) {
	case '{':
		r->p++;
		return read_object(r, depth);
	case '[':
		r->p++;
		return read_array(r, depth);
	case '"': {
		r->p++;
		const char *s;
		size_t n;
		if (read_string(r, &s, &n) != 0)
			return NULL;
		return json_stringn_nocheck(s, n);
	}
	case 't':
		if (literal(r, "true"))
			return json_true();
		break;
	case 'f':
		if (literal(r, "false"))
			return json_false();
		break;
	case 'n':
		if (literal(r, "null"))
			return json_null();
		break;
	default:
		if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9'))
			return read_number(r);
	}
	return fail(r, "unexpected character");
}

/* Parse one JSON text; NULL with *err filled in when it is not valid JSON. */
json_t *
jsonio_parse(const char *p, size_t len, struct jsonio_err *err)
{
	struct rd r = {(const unsigned char *)p, (const unsigned char *)p, (const unsigned char *)p + len, err, {0}};
	if (err)
		memset(err, 0, sizeof *err);
	json_t *v = read_value(&r, 0);
	if (v != NULL) {
		skip_ws(&r);
		if (r.p != r.end) {
			json_decref(v);
			v = fail(&r, "trailing characters after the JSON value");
		}
	}
	buf_free(&r.tmp);
	return v;
}

/* Write a string with the escapes JSON needs; runs that need none are copied whole. */
static void
write_string(struct buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	buf_add(b, "\"", 1);
	size_t run = 0;
	for (size_t i = 0; i < n; i++) {
		while (n - i >= 8 && !word_special((const unsigned char *)s + i, 0))
			i += 8;
		if (i >= n)
			break;
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		buf_add(b, s + run, i - run);
		run = i + 1;
		switch (c) {
		case '"': buf_add(b, "\\\"", 2); break;
		case '\\': buf_add(b, "\\\\", 2); break;
		case '\n': buf_add(b, "\\n", 2); break;
		case '\r': buf_add(b, "\\r", 2); break;
		case '\t': buf_add(b, "\\t", 2); break;
		case '\b': buf_add(b, "\\b", 2); break;
		case '\f': buf_add(b, "\\f", 2); break;
		default: {
			char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
			buf_add(b, u, 6);
		}
		}
	}
	buf_add(b, s + run, n - run);
	buf_add(b, "\"", 1);
}

/* Write any value compactly. */
static void
write_value(struct buf *b, json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		const char *k;
		json_t *x;
		int first = 1;
		buf_add(b, "{", 1);
		json_object_foreach(v, k, x)
		{
			if (!first)
				buf_add(b, ",", 1);
			first = 0;
			write_string(b, k, strlen(k));
			buf_add(b, ":", 1);
			write_value(b, x);
		}
		buf_add(b, "}", 1);
		break;
	}
	case JSON_ARRAY: {
		size_t i;
		json_t *x;
		buf_add(b, "[", 1);
		json_array_foreach(v, i, x)
		{
			if (i)
				buf_add(b, ",", 1);
			write_value(b, x);
		}
		buf_add(b, "]", 1);
		break;
	}
	case JSON_STRING: write_string(b, json_string_value(v), json_string_length(v)); break;
	case JSON_INTEGER: buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v)); break;
	case JSON_REAL: {
		double d = json_real_value(v);
		if (!isfinite(d)) {
			buf_adds(b, "null");
			break;
		}
		char num[40];
		snprintf(num, sizeof num, "%.17g", d);
		/* Keep it a real when read back: 1.0 must not turn into the integer 1. */
		if (strpbrk(num, ".eE") == NULL)
			strcat(num, ".0");
		buf_adds(b, num);
		break;
	}
	case JSON_TRUE: buf_add(b, "true", 4); break;
	case JSON_FALSE: buf_add(b, "false", 5); break;
	default: buf_add(b, "null", 4); break;
	}
}

/* Serialise compactly (as json_dumps with JSON_COMPACT); never NULL. */
char *
jsonio_write(json_t *v, size_t *len)
{
	struct buf b = {0};
	write_value(&b, v);
	if (len)
		*len = b.len;
	return buf_steal(&b);
}

/* Set obj[key] to v (a borrowed reference; NULL sets null) without json_pack: building a call's
 * answer with three json_pack calls cost ≈ 31 k instructions per call on the store thread (its
 * format scanner), ≈ 7 % of a whole call; setting the keys directly costs a few hundred each.
 * Keys are the caller's literals, so no UTF-8 check. */
void
jsonio_set(json_t *obj, const char *key, json_t *v)
{
	json_object_set_nocheck(obj, key, v != NULL ? v : json_null());
}

/* Set obj[key] to the string s (copied; NULL sets null). */
void
jsonio_set_str(json_t *obj, const char *key, const char *s)
{
	json_object_set_new_nocheck(obj, key, s != NULL ? json_string(s) : json_null());
}
