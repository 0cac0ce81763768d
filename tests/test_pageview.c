/* Unit tests for src/pageview.c: what of a page an answer carries under snapshot auto/full/none,
 * whose memory it is, its bounds, and get_page's paging. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pageview.h"
#include "util.h"
#include "testlib.h"

#define INTRO "# Todos\n\nA list of what to buy this week, kept in the browser; check what you bought.\n\n"
static const char *const PAGE1 = INTRO "- milk [checkbox e3]\n- eggs [checkbox e4]\n- bread [checkbox e5]\n\n"
                                  "3 items left [button \"Clear\" e6]";
static const char *const PAGE2 = INTRO "- milk [checkbox e3]\n- eggs [checkbox e4]\n- bread [checkbox e5]\n"
                                  "- jam [checkbox e7]\n\n4 items left [button \"Clear\" e6]";

/* The page object of an answer, as tools.c makes it. */
static json_t *
page(const char *md)
{
	return json_pack("{s:s, s:s, s:s, s:i, s:i}", "url", "http://x/", "title", "T", "markdown", md, "tab_id", 7,
	                 "history_id", 1);
}

/* Shape md for (caller, doc) in mode; returns the page object. */
static json_t *
shape(struct pageview *v, const char *caller, const char *doc, enum pageview_mode mode, const char *md)
{
	json_t *p = page(md);
	struct pageview_key k = {caller, "browser-1", 7, doc};
	pageview_shape(v, &k, mode, 1, p);
	return p;
}

START_TEST(auto_gives_changes_on_the_same_document)
{
	struct pageview *v = pageview_create(16, 1u << 20);
	json_t *p = shape(v, "mcp:a", "doc-1", PAGEVIEW_AUTO, PAGE1);
	ck_assert_str_eq(json_string_value(json_object_get(p, "markdown")), PAGE1); /* nothing earlier: whole */
	ck_assert_ptr_null(json_object_get(p, "changes"));
	json_decref(p);
	p = shape(v, "mcp:a", "doc-1", PAGEVIEW_AUTO, PAGE2);
	ck_assert_ptr_null(json_object_get(p, "markdown"));
	ck_assert_str_eq(json_string_value(json_object_get(p, "changes")),
	                 "@@ -7,3 +7,4 @@\n - bread [checkbox e5]\n+- jam [checkbox e7]\n \n-3 items left [button "
	                 "\"Clear\" e6]\n+4 items left [button \"Clear\" e6]\n");
	ck_assert_str_eq(json_string_value(json_object_get(p, "url")), "http://x/");
	ck_assert_int_eq(json_integer_value(json_object_get(p, "history_id")), 1);
	json_decref(p);
	/* the same page again: no changes, an empty diff */
	p = shape(v, "mcp:a", "doc-1", PAGEVIEW_AUTO, PAGE2);
	ck_assert_str_eq(json_string_value(json_object_get(p, "changes")), "");
	ck_assert_ptr_null(json_object_get(p, "markdown"));
	json_decref(p);
	/* another caller has received nothing yet: the whole page */
	p = shape(v, "http:other", "doc-1", PAGEVIEW_AUTO, PAGE2);
	ck_assert_ptr_nonnull(json_object_get(p, "markdown"));
	json_decref(p);
	/* a navigation (another document): the whole page */
	p = shape(v, "mcp:a", "doc-2", PAGEVIEW_AUTO, PAGE1);
	ck_assert_str_eq(json_string_value(json_object_get(p, "markdown")), PAGE1);
	ck_assert_ptr_null(json_object_get(p, "changes"));
	json_decref(p);
	pageview_free(v);
}
END_TEST

START_TEST(full_none_and_no_document_id)
{
	struct pageview *v = pageview_create(16, 1u << 20);
	json_decref(shape(v, "", "doc-1", PAGEVIEW_FULL, PAGE1));
	/* none: no Markdown, and the memory stays what the caller last received (PAGE1) */
	json_t *p = shape(v, "", "doc-1", PAGEVIEW_NONE, PAGE2);
	ck_assert_ptr_null(json_object_get(p, "markdown"));
	ck_assert_ptr_null(json_object_get(p, "changes"));
	ck_assert_str_eq(json_string_value(json_object_get(p, "title")), "T");
	json_decref(p);
	p = shape(v, "", "doc-1", PAGEVIEW_AUTO, PAGE2);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(p, "changes")), "+- jam"));
	json_decref(p);
	/* full: whole even on the same document */
	p = shape(v, "", "doc-1", PAGEVIEW_FULL, PAGE1);
	ck_assert_str_eq(json_string_value(json_object_get(p, "markdown")), PAGE1);
	ck_assert_ptr_null(json_object_get(p, "changes"));
	json_decref(p);
	/* without a document id (an older extension): never diffed */
	json_decref(shape(v, "", NULL, PAGEVIEW_AUTO, PAGE1));
	p = shape(v, "", NULL, PAGEVIEW_AUTO, PAGE2);
	ck_assert_ptr_nonnull(json_object_get(p, "markdown"));
	json_decref(p);
	pageview_free(v);
}
END_TEST

START_TEST(changes_only_when_clearly_smaller)
{
	struct pageview *v = pageview_create(16, 1u << 20);
	json_decref(shape(v, "", "d", PAGEVIEW_AUTO, "a\nb\nc"));
	json_t *p = shape(v, "", "d", PAGEVIEW_AUTO, "x\ny\nz");
	ck_assert_str_eq(json_string_value(json_object_get(p, "markdown")), "x\ny\nz");
	ck_assert_ptr_null(json_object_get(p, "changes"));
	json_decref(p);
	pageview_free(v);
}
END_TEST

START_TEST(memory_is_bounded)
{
	struct pageview *v = pageview_create(2, 100);
	size_t n, bytes;
	json_decref(shape(v, "a", "d", PAGEVIEW_AUTO, "0123456789"));
	json_decref(shape(v, "b", "d", PAGEVIEW_AUTO, "0123456789"));
	json_decref(shape(v, "a", "d", PAGEVIEW_AUTO, "0123456789")); /* a is now the most recent */
	json_decref(shape(v, "c", "d", PAGEVIEW_AUTO, "0123456789")); /* b goes */
	pageview_usage(v, &n, &bytes);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(bytes, 20);
	json_t *p = shape(v, "b", "d", PAGEVIEW_AUTO, "0123456789");
	ck_assert_ptr_nonnull(json_object_get(p, "markdown")); /* forgotten: whole */
	json_decref(p);
	p = shape(v, "c", "d", PAGEVIEW_AUTO, "0123456789");
	ck_assert_str_eq(json_string_value(json_object_get(p, "changes")), "");
	json_decref(p);
	/* by bytes: 60 + 60 > 100, the older goes */
	char big[61];
	memset(big, 'x', 60);
	big[60] = '\0';
	json_decref(shape(v, "e", "d", PAGEVIEW_AUTO, big));
	json_decref(shape(v, "f", "d", PAGEVIEW_AUTO, big));
	pageview_usage(v, &n, &bytes);
	ck_assert_uint_le(bytes, 100);
	ck_assert_uint_eq(n, 1);
	/* a page over the whole budget is not kept, and the caller's older one is forgotten */
	char huge[200];
	memset(huge, 'y', 199);
	huge[199] = '\0';
	json_decref(shape(v, "f", "d", PAGEVIEW_AUTO, huge));
	pageview_usage(v, &n, &bytes);
	ck_assert_uint_eq(n, 0);
	ck_assert_uint_eq(bytes, 0);
	pageview_free(v);
	pageview_free(NULL);
}
END_TEST

START_TEST(slice_pages_by_characters)
{
	json_t *p = page("héllo wörld"); /* 11 characters, 13 bytes */
	pageview_slice(p, 3, 5);
	ck_assert_str_eq(json_string_value(json_object_get(p, "markdown")), "lo wö");
	ck_assert_int_eq(json_integer_value(json_object_get(p, "total_chars")), 11);
	ck_assert_int_eq(json_integer_value(json_object_get(p, "remaining_chars")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(p, "next_offset")), 8);
	json_decref(p);
	p = page("héllo wörld");
	pageview_slice(p, 8, 100);
	ck_assert_str_eq(json_string_value(json_object_get(p, "markdown")), "rld");
	ck_assert_int_eq(json_integer_value(json_object_get(p, "remaining_chars")), 0);
	ck_assert(json_is_null(json_object_get(p, "next_offset")));
	json_decref(p);
	p = page("abc");
	pageview_slice(p, 10, -1); /* past the end: nothing, nothing left */
	ck_assert_str_eq(json_string_value(json_object_get(p, "markdown")), "");
	ck_assert_int_eq(json_integer_value(json_object_get(p, "remaining_chars")), 0);
	json_decref(p);
}
END_TEST

START_TEST(mode_names)
{
	enum pageview_mode m;
	ck_assert_int_eq(pageview_mode_parse("full", &m), 0);
	ck_assert_int_eq(m, PAGEVIEW_FULL);
	ck_assert_int_eq(pageview_mode_parse(NULL, &m), 0);
	ck_assert_int_eq(m, PAGEVIEW_AUTO);
	ck_assert_int_eq(pageview_mode_parse("none", &m), 0);
	ck_assert_int_eq(m, PAGEVIEW_NONE);
	ck_assert_int_eq(pageview_mode_parse("diff", &m), -1);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("pageview");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, auto_gives_changes_on_the_same_document);
	tcase_add_test(tc, full_none_and_no_document_id);
	tcase_add_test(tc, changes_only_when_clearly_smaller);
	tcase_add_test(tc, memory_is_bounded);
	tcase_add_test(tc, slice_pages_by_characters);
	tcase_add_test(tc, mode_names);
	suite_add_tcase(s, tc);
	return testlib_run(s, 1);
}
