/* Unit tests for src/jsonio.c: the fast reader and writer must agree with jansson exactly. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jsonio.h"
#include "testlib.h"

/* Parse with both; both must accept (with equal values) or both refuse. */
static void
agree(const char *text)
{
	struct jsonio_err e;
	json_t *a = jsonio_parse(text, strlen(text), &e);
	json_t *b = json_loadb(text, strlen(text), JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, NULL);
	ck_assert_msg((a == NULL) == (b == NULL), "disagree on %s (jsonio: %s)", text, a ? "ok" : e.text);
	if (a != NULL)
		ck_assert_msg(json_equal(a, b), "different values for %s", text);
	json_decref(a);
	json_decref(b);
}

START_TEST(valid_and_invalid_match_jansson)
{
	static const char *const cases[] = {
		"{}", "[]", "0", "-0", "12", "-12", "1.5", "-1.5e-3", "1E+2", "true", "false", "null", "\"\"",
		"\"plain\"", "\"esc \\\" \\\\ \\/ \\b \\f \\n \\r \\t\"", "\"\\u00e9\\u4e2d\\ud83d\\ude00\"",
		"\"caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80\"", "{\"a\": [1, 2, {\"b\": null}], \"c\": \"d\"}",
		" \n\t{ \"k\" : 1 } \r\n", "[1, [2, [3, [4]]]]", "9223372036854775807", "-9223372036854775808",
		/* invalid */
		"", " ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "'x'", "\"unterminated", "01", "1.",
		".5", "1e", "-", "+1", "tru", "nul", "[1 2]", "{\"a\":1 \"b\":2}", "\"\\x\"", "\"\\u12\"",
		"\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\u0000\"", "\"a\x01\"", "\"\xff\"",
		"\"\xc0\x80\"", "\"\xed\xa0\x80\"", "\"\xe4\xb8\"", "\"\xf5\x80\x80\x80\"", "{\"a\":1,\"a\":2}",
		"[1] x", "9223372036854775808", "1e999", "// c\n1", "[NaN]", "[Infinity]",
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		agree(cases[i]);
}
END_TEST

START_TEST(depth_is_bounded)
{
	char deep[300];
	memset(deep, '[', 200);
	deep[200] = '\0';
	struct jsonio_err e;
	ck_assert_ptr_null(jsonio_parse(deep, 200, &e));
	ck_assert_str_eq(e.text, "nested too deeply");
	ck_assert_int_le(e.offset, 70);
}
END_TEST

/* A random value: the kinds of JSON the daemon exchanges, with awkward strings. */
static json_t *
random_value(unsigned *seed, int depth)
{
	static const char *const pieces[] = {"a", "\"", "\\", "\n", "\x01", "\x1f", "é", "中", "😀", " ", "</script>", "e12"};
	int kind = depth > 3 ? rand_r(seed) % 5 : rand_r(seed) % 7;
	switch (kind) {
	case 0: return json_integer((json_int_t)rand_r(seed) - RAND_MAX / 2);
	case 1: return json_real((double)rand_r(seed) / 7.0);
	case 2: return json_boolean(rand_r(seed) & 1);
	case 3: return json_null();
	case 4: {
		char s[200] = "";
		int n = rand_r(seed) % 12;
		for (int i = 0; i < n; i++)
			strcat(s, pieces[rand_r(seed) % 12]);
		return json_string(s);
	}
	case 5: {
		json_t *a = json_array();
		int n = rand_r(seed) % 5;
		for (int i = 0; i < n; i++)
			json_array_append_new(a, random_value(seed, depth + 1));
		return a;
	}
	default: {
		json_t *o = json_object();
		int n = rand_r(seed) % 5;
		for (int i = 0; i < n; i++) {
			char k[16];
			snprintf(k, sizeof k, "k%d%s", rand_r(seed) % 100, i % 2 ? "\"é" : "");
			json_object_set_new(o, k, random_value(seed, depth + 1));
		}
		return o;
	}
	}
}

START_TEST(round_trips_both_ways)
{
	unsigned seed = 12345;
	for (int i = 0; i < 3000; i++) {
		json_t *v = random_value(&seed, 0);
		/* jansson writes, we read */
		char *t1 = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		struct jsonio_err e;
		json_t *a = jsonio_parse(t1, strlen(t1), &e);
		ck_assert_msg(a != NULL && json_equal(a, v), "read back %s: %s", t1, e.text);
		/* we write, jansson reads */
		size_t n;
		char *t2 = jsonio_write(v, &n);
		ck_assert_int_eq(n, strlen(t2));
		json_t *b = json_loads(t2, JSON_DECODE_ANY, NULL);
		ck_assert_msg(b != NULL && json_equal(b, v), "jansson cannot read back %s", t2);
		/* and we read what we wrote */
		json_t *c = jsonio_parse(t2, n, &e);
		ck_assert(c != NULL && json_equal(c, v));
		json_decref(a);
		json_decref(b);
		json_decref(c);
		free(t1);
		free(t2);
		json_decref(v);
	}
}
END_TEST

START_TEST(mutations_match_jansson)
{
	unsigned seed = 777;
	static const char alphabet[] = "{}[]\",:\\u0123456789eE.-+ tfnl\x01\x80\xc3\xa9";
	for (int i = 0; i < 5000; i++) {
		json_t *v = random_value(&seed, 0);
		char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		size_t n = strlen(t);
		if (n > 0) {
			t[rand_r(&seed) % n] = alphabet[rand_r(&seed) % (sizeof alphabet - 1)];
			if (strlen(t) == n)
				agree(t);
		}
		free(t);
		json_decref(v);
	}
}
END_TEST

/* The word-at-a-time scan (8 bytes at a time) must find every byte that needs a look of its own
 * wherever it sits in a run: each special byte at each position of strings of 0 to 40 characters,
 * read from every alignment, agrees with jansson, and written, reads back equal. */
START_TEST(special_byte_at_every_position)
{
	static const char *const specials[] = {"\"", "\\", "\n", "\x01", "\x1f", "\x7f", "\xc3\xa9", "\xe4\xb8\xad",
					       "\xff", "\xc3", "\xed\xa0\x80", " ", "~"};
	char body[64], text[96], padded[112];
	for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++) {
		for (size_t len = 0; len <= 40; len++) {
			for (size_t pos = 0; pos <= len; pos++) {
				/* body: len plain bytes with specials[k] inserted at pos */
				memset(body, 'a', len);
				body[len] = '\0';
				char tmp[64];
				snprintf(tmp, sizeof tmp, "%.*s%s%s", (int)pos, body, specials[k], body + pos);
				/* as a JSON text: escape what JSON requires, keep the rest raw */
				size_t n = 0;
				text[n++] = '"';
				for (const char *c = tmp; *c; c++) {
					if (*c == '"' || *c == '\\')
						text[n++] = '\\', text[n++] = *c;
					else if (*c == '\n')
						text[n++] = '\\', text[n++] = 'n';
					else
						text[n++] = *c;
				}
				text[n++] = '"';
				text[n] = '\0';
				agree(text);
				/* the same text at each alignment of the reader's words */
				for (size_t off = 1; off < 8; off++) {
					memset(padded, ' ', off);
					memcpy(padded + off, text, n + 1);
					agree(padded);
				}
				/* the raw body (unescaped controls included) must be refused exactly when jansson refuses it */
				snprintf(text, sizeof text, "\"%s\"", tmp);
				agree(text);
				/* written by us, read back equal (strings jansson holds as valid UTF-8 only) */
				json_t *v = json_string(tmp);
				if (v != NULL) {
					size_t wn;
					char *w = jsonio_write(v, &wn);
					json_t *back = json_loadb(w, wn, JSON_DECODE_ANY, NULL);
					ck_assert_msg(back != NULL && json_equal(back, v), "wrote %s", w);
					json_decref(back);
					free(w);
					json_decref(v);
				}
			}
		}
	}
}
END_TEST

/* jsonio_set/jsonio_set_str build what json_pack built for the call answer: keys in order, a
 * missing value as null (json_pack failed the whole object then), borrowed values not stolen. */
START_TEST(set_builds_like_pack)
{
	json_t *v = json_string("x");
	json_t *o = json_object();
	jsonio_set(o, "a", v);
	jsonio_set(o, "b", NULL);
	jsonio_set_str(o, "c", "naïve");
	jsonio_set_str(o, "d", NULL);
	char *s = json_dumps(o, JSON_COMPACT);
	ck_assert_str_eq(s, "{\"a\":\"x\",\"b\":null,\"c\":\"naïve\",\"d\":null}");
	free(s);
	json_decref(o);
	ck_assert_int_eq(v->refcount, 1);
	json_decref(v);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("jsonio");
	TCase *tc = tcase_create("jsonio");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, valid_and_invalid_match_jansson);
	tcase_add_test(tc, depth_is_bounded);
	tcase_add_test(tc, round_trips_both_ways);
	tcase_add_test(tc, mutations_match_jansson);
	tcase_add_test(tc, set_builds_like_pack);
	tcase_add_test(tc, special_byte_at_every_position);
	suite_add_tcase(s, tc);
	return testlib_run(s, 1);
}
