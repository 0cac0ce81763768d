/* Unit tests for src/mddiff.c: the exact form of page.changes, its bounds, and (on random texts)
 * that applying it to the old page gives the new one. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "mddiff.h"
#include "mddiff_apply.h"
#include "testlib.h"

/* The diff of a -> b with a roomy output cap (aborts the test when it is too costly). */
static char *
diff(const char *a, const char *b)
{
	char *out;
	size_t n;
	ck_assert_int_eq(mddiff(a, strlen(a), b, strlen(b), 1u << 20, &out, &n), MDDIFF_OK);
	ck_assert_uint_eq(n, strlen(out));
	return out;
}

START_TEST(equal_pages_give_nothing)
{
	char *d = diff("# Title\n\nText [button \"Go\" e1]", "# Title\n\nText [button \"Go\" e1]");
	ck_assert_str_eq(d, "");
	free(d);
	d = diff("", "");
	ck_assert_str_eq(d, "");
	free(d);
}
END_TEST

START_TEST(one_line_changed_with_context)
{
	char *d = diff("a\nb\nc\nd\ne", "a\nb\nX\nd\ne");
	ck_assert_str_eq(d, "@@ -2,3 +2,3 @@\n b\n-c\n+X\n d\n");
	free(d);
}
END_TEST

START_TEST(added_at_start_and_end)
{
	char *d = diff("a\nb", "new\na\nb");
	ck_assert_str_eq(d, "@@ -1,1 +1,2 @@\n+new\n a\n");
	free(d);
	d = diff("a\nb", "a\nb\nlast");
	ck_assert_str_eq(d, "@@ -2,1 +2,2 @@\n b\n+last\n");
	free(d);
	d = diff("a", "");
	ck_assert_str_eq(d, "@@ -1,1 +1,1 @@\n-a\n+\n");
	free(d);
}
END_TEST

START_TEST(removed_lines)
{
	char *d = diff("- todo one [checkbox e3]\n- todo two [checkbox e4]\n- todo three [checkbox e5]\n\n3 items left",
	               "- todo one [checkbox e3]\n- todo three [checkbox e5]\n\n2 items left");
	ck_assert_str_eq(d, "@@ -1,5 +1,4 @@\n - todo one [checkbox e3]\n-- todo two [checkbox e4]\n - todo three "
	                    "[checkbox e5]\n \n-3 items left\n+2 items left\n");
	free(d);
}
END_TEST

START_TEST(hunks_join_within_two_context_lines)
{
	/* changes 2 equal lines apart: one hunk; 3 apart: two */
	char *d = diff("1\n2\n3\n4\n5\n6\n7\n8", "1\nX\n3\n4\nY\n6\n7\n8");
	ck_assert_str_eq(d, "@@ -1,6 +1,6 @@\n 1\n-2\n+X\n 3\n 4\n-5\n+Y\n 6\n");
	free(d);
	d = diff("1\n2\n3\n4\n5\n6\n7\n8", "1\nX\n3\n4\n5\nY\n7\n8");
	ck_assert_str_eq(d, "@@ -1,3 +1,3 @@\n 1\n-2\n+X\n 3\n@@ -5,3 +5,3 @@\n 5\n-6\n+Y\n 7\n");
	free(d);
}
END_TEST

START_TEST(bounded_cost)
{
	char *out = (char *)1;
	size_t n = 1;
	/* the output cap: a diff longer than max_out is not made */
	ck_assert_int_eq(mddiff("a\nb\nc", 5, "x\ny\nz", 5, 8, &out, &n), MDDIFF_TOO_COSTLY);
	ck_assert_ptr_null(out);
	ck_assert_uint_eq(n, 0);
	/* more edits than BB_MDDIFF_EDITS_MAX: given up */
	struct buf a = {0}, b = {0};
	for (int i = 0; i < BB_MDDIFF_EDITS_MAX; i++) {
		buf_printf(&a, "old %d\n", i);
		buf_printf(&b, "new %d\n", i);
	}
	ck_assert_int_eq(mddiff(a.data, a.len, b.data, b.len, 1u << 30, &out, &n), MDDIFF_TOO_COSTLY);
	buf_free(&a);
	buf_free(&b);
	/* more lines than BB_MDDIFF_LINES_MAX: refused before splitting */
	size_t big = BB_MDDIFF_LINES_MAX + 1;
	char *many = xmalloc(big);
	memset(many, '\n', big);
	ck_assert_int_eq(mddiff(many, big, "x", 1, 1u << 30, &out, &n), MDDIFF_TOO_COSTLY);
	ck_assert_int_eq(mddiff("x", 1, many, big, 1u << 30, &out, &n), MDDIFF_TOO_COSTLY);
	free(many);
	/* many lines with a few hundred changes spread over them: diffed (bounded work, no cap hit) */
	for (int i = 0; i < 300000; i++) {
		buf_printf(&a, "line %d\n", i);
		buf_printf(&b, i % 700 == 0 ? "changed %d\n" : "line %d\n", i);
	}
	ck_assert_int_eq(mddiff(a.data, a.len, b.data, b.len, 1u << 30, &out, &n), MDDIFF_OK);
	ck_assert_ptr_nonnull(strstr(out, "+changed 299600\n"));
	free(out);
	buf_free(&a);
	buf_free(&b);
	/* a long common prefix and suffix cost nothing: only the middle counts */
	for (int i = 0; i < 50000; i++)
		buf_printf(&a, "same %d\n", i);
	b.len = 0;
	buf_add(&b, a.data, a.len);
	buf_adds(&b, "inserted\n");
	buf_add(&b, a.data, a.len);
	char *aa = xmalloc(2 * a.len + 1);
	memcpy(aa, a.data, a.len);
	memcpy(aa + a.len, a.data, a.len);
	ck_assert_int_eq(mddiff(aa, 2 * a.len, b.data, b.len, 1000, &out, &n), MDDIFF_OK);
	ck_assert_str_eq(out, "@@ -50000,2 +50000,3 @@\n same 49999\n+inserted\n same 0\n");
	free(out);
	free(aa);
	buf_free(&a);
	buf_free(&b);
}
END_TEST

/* A random text of up to 30 lines over a few distinct lines (so that they repeat and match). */
static char *
random_text(unsigned *seed)
{
	static const char *const words[] = {"", "# Todos", "- milk [checkbox e3]", "- eggs [checkbox e4]", "x", "y z"};
	struct buf b = {0};
	int n = (int)(rand_r(seed) % 30);
	for (int i = 0; i <= n; i++)
		buf_printf(&b, "%s%s", i ? "\n" : "", words[rand_r(seed) % 6]);
	buf_add(&b, "", 1);
	return buf_steal(&b);
}

START_TEST(random_diffs_apply)
{
	unsigned seed = 16;
	for (int round = 0; round < 3000; round++) {
		char *a = random_text(&seed), *b = random_text(&seed);
		char *d = diff(a, b), *back;
		size_t blen;
		ck_assert_msg(mddiff_test_apply(a, strlen(a), d, strlen(d), &back, &blen) == 0, "a: %s\nb: %s\nd: %s", a,
		              b, d);
		ck_assert_str_eq(back, b);
		ck_assert_int_eq(strcmp(a, b) == 0, d[0] == '\0');
		free(back);
		free(d);
		free(a);
		free(b);
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("mddiff");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, equal_pages_give_nothing);
	tcase_add_test(tc, one_line_changed_with_context);
	tcase_add_test(tc, added_at_start_and_end);
	tcase_add_test(tc, removed_lines);
	tcase_add_test(tc, hunks_join_within_two_context_lines);
	tcase_add_test(tc, bounded_cost);
	tcase_add_test(tc, random_diffs_apply);
	suite_add_tcase(s, tc);
	return testlib_run(s, 1);
}
