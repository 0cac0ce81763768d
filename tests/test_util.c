/* Unit tests for src/util.c. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"
#include "testlib.h"

START_TEST(parse_long_ranges)
{
	long v = 0;
	ck_assert_int_eq(util_parse_long("42", 0, 100, &v), 0);
	ck_assert_int_eq(v, 42);
	ck_assert_int_eq(util_parse_long("101", 0, 100, &v), -1);
	ck_assert_int_eq(util_parse_long("-1", 0, 100, &v), -1);
	ck_assert_int_eq(util_parse_long("12abc", 0, 100, &v), -1);
	ck_assert_int_eq(util_parse_long("", 0, 100, &v), -1);
	ck_assert_int_eq(util_parse_long("99999999999999999999999", 0, 100, &v), -1);
	ck_assert_int_eq(v, 42);
}
END_TEST

START_TEST(hostport)
{
	char h[64];
	int p;
	ck_assert_int_eq(util_parse_hostport("127.0.0.1:8765", h, sizeof h, &p), 0);
	ck_assert_str_eq(h, "127.0.0.1");
	ck_assert_int_eq(p, 8765);
	ck_assert_int_eq(util_parse_hostport("[::1]:9", h, sizeof h, &p), 0);
	ck_assert_str_eq(h, "::1");
	ck_assert_int_eq(util_parse_hostport("127.0.0.1:0", h, sizeof h, &p), -1);
	ck_assert_int_eq(util_parse_hostport("127.0.0.1:70000", h, sizeof h, &p), -1);
	ck_assert_int_eq(util_parse_hostport("127.0.0.1", h, sizeof h, &p), -1);
	ck_assert_int_eq(util_parse_hostport(":80", h, sizeof h, &p), -1);
}
END_TEST

START_TEST(loopback)
{
	ck_assert(util_is_loopback("127.0.0.1"));
	ck_assert(util_is_loopback("127.1.2.3"));
	ck_assert(util_is_loopback("::1"));
	ck_assert(!util_is_loopback("0.0.0.0"));
	ck_assert(!util_is_loopback("192.168.1.1"));
	ck_assert(!util_is_loopback("localhost"));
	ck_assert(!util_is_loopback("::"));
}
END_TEST

/* qsort comparator over uuid strings. */
static int
cmp_id(const void *a, const void *b)
{
	return strcmp(a, b);
}

START_TEST(uuid_v4)
{
	char a[37], b[37];
	util_uuid4(a);
	util_uuid4(b);
	ck_assert_int_eq(strlen(a), 36);
	ck_assert_str_ne(a, b);
	ck_assert_int_eq(a[14], '4');
	ck_assert(strchr("89ab", a[19]) != NULL);
	ck_assert(a[8] == '-' && a[13] == '-' && a[18] == '-' && a[23] == '-');
	/* Across several refills of the per-thread pool: every id well-formed and distinct. */
	enum { N = 1000 };
	static char ids[N][37];
	for (int i = 0; i < N; i++) {
		util_uuid4(ids[i]);
		ck_assert_int_eq(strlen(ids[i]), 36);
		ck_assert_int_eq(ids[i][14], '4');
		ck_assert(strchr("89ab", ids[i][19]) != NULL);
		ck_assert_int_eq(strspn(ids[i], "0123456789abcdef-"), 36);
	}
	/* Distinct: sorted, no two neighbours equal (n log n; the n^2 check timed out under load). */
	qsort(ids, N, sizeof ids[0], cmp_id);
	for (int i = 1; i < N; i++)
		ck_assert_str_ne(ids[i - 1], ids[i]);
}
END_TEST

START_TEST(ct_equal)
{
	ck_assert(util_ct_equal("secret", "secret"));
	ck_assert(!util_ct_equal("secret", "secreT"));
	ck_assert(!util_ct_equal("secret", "secret2"));
	ck_assert(!util_ct_equal("", "x"));
}
END_TEST

START_TEST(iso_time)
{
	char t[32];
	util_iso8601(1700000000123LL, t);
	ck_assert_str_eq(t, "2023-11-14T22:13:20.123Z");
}
END_TEST

START_TEST(buffer)
{
	struct buf b = {0};
	for (int i = 0; i < 1000; i++)
		buf_printf(&b, "%d,", i);
	ck_assert(strncmp(b.data, "0,1,2,", 6) == 0);
	ck_assert_int_eq(b.len, strlen(b.data));
	char *s = buf_steal(&b);
	ck_assert_ptr_null(b.data);
	free(s);
	s = buf_steal(&b);
	ck_assert_str_eq(s, "");
	free(s);
}
END_TEST

/* A timespec as nanoseconds, for bounding what util_timespec_in returned. */
static long long
ns_of(struct timespec ts)
{
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

START_TEST(timespec_in)
{
	static const clockid_t clocks[] = {CLOCK_MONOTONIC, CLOCK_REALTIME};
	static const long ms[] = {0, 1, 250, 999, 1000, 1999, 61001};
	for (size_t c = 0; c < sizeof clocks / sizeof clocks[0]; c++)
		for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
			struct timespec before, after;
			clock_gettime(clocks[c], &before);
			struct timespec t = util_timespec_in(clocks[c], ms[i]);
			clock_gettime(clocks[c], &after);
			/* Normalised (pthread_cond_timedwait refuses tv_nsec >= 1e9), and ms after "now". */
			ck_assert(t.tv_nsec >= 0 && t.tv_nsec < 1000000000L);
			ck_assert(ns_of(t) >= ns_of(before) + ms[i] * 1000000LL);
			ck_assert(ns_of(t) <= ns_of(after) + ms[i] * 1000000LL);
		}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("util");
	tcase_add_test(tc, parse_long_ranges);
	tcase_add_test(tc, hostport);
	tcase_add_test(tc, loopback);
	tcase_add_test(tc, uuid_v4);
	tcase_add_test(tc, ct_equal);
	tcase_add_test(tc, iso_time);
	tcase_add_test(tc, buffer);
	tcase_add_test(tc, timespec_in);
	suite_add_tcase(s, tc);
	return testlib_run(s, 1);
}
