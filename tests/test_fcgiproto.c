/* Unit tests for src/fcgiproto.c: records, name-value pairs, params to a request, GET_VALUES. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "fcgiproto.h"
#include "util.h"
#include "testlib.h"

/* Append one name-value pair as the web server would send it. */
static void
nv(struct buf *b, const char *name, const char *value)
{
	fcgiproto_put_nv(b, name, value);
}

START_TEST(record_roundtrip)
{
	struct buf b = {0};
	fcgiproto_put_record(&b, FCGI_PARAMS, 0x1234, "abc", 3);
	ck_assert_uint_eq(b.len, 16); /* 8 header + 3 content + 5 padding */
	struct fcgiproto_record rec;
	for (size_t cut = 0; cut < b.len; cut++)
		ck_assert_int_eq(fcgiproto_next_record((unsigned char *)b.data, cut, &rec), 0);
	ck_assert_int_eq(fcgiproto_next_record((unsigned char *)b.data, b.len, &rec), 1);
	ck_assert_int_eq(rec.type, FCGI_PARAMS);
	ck_assert_uint_eq(rec.id, 0x1234);
	ck_assert_uint_eq(rec.len, 3);
	ck_assert_uint_eq(rec.size, 16);
	ck_assert(memcmp(rec.content, "abc", 3) == 0);
	b.data[0] = 2; /* protocol version 2 */
	ck_assert_int_eq(fcgiproto_next_record((unsigned char *)b.data, b.len, &rec), -1);
	buf_free(&b);
}
END_TEST

START_TEST(stdout_is_chunked_and_ended)
{
	struct buf b = {0};
	size_t n = FCGI_CHUNK * 2 + 10;
	char *body = xmalloc(n);
	memset(body, 'x', n);
	fcgiproto_put_stdout(&b, 7, body, n);
	fcgiproto_put_end(&b, 7, 1, FCGI_REQUEST_COMPLETE);
	size_t off = 0, total = 0;
	int records = 0, saw_empty = 0, saw_end = 0;
	struct fcgiproto_record rec;
	while (fcgiproto_next_record((unsigned char *)b.data + off, b.len - off, &rec) == 1) {
		records++;
		if (rec.type == FCGI_STDOUT) {
			ck_assert_uint_le(rec.len, 65535);
			total += rec.len;
			saw_empty |= rec.len == 0;
		} else {
			ck_assert_int_eq(rec.type, FCGI_END_REQUEST);
			ck_assert_uint_eq(rec.len, 8);
			ck_assert_int_eq(rec.content[4], FCGI_REQUEST_COMPLETE);
			saw_end = 1;
		}
		off += rec.size;
	}
	ck_assert_uint_eq(off, b.len);
	ck_assert_uint_eq(total, n);
	ck_assert_int_eq(records, 5);
	ck_assert(saw_empty && saw_end);
	free(body);
	buf_free(&b);
}
END_TEST

START_TEST(params_to_request)
{
	struct buf b = {0};
	char longv[300];
	memset(longv, 'v', sizeof longv - 1);
	longv[sizeof longv - 1] = '\0';
	nv(&b, "REQUEST_METHOD", "GET");
	nv(&b, "REQUEST_URI", "/api/hist%6Fry?x=1");
	nv(&b, "QUERY_STRING", "q=a+b%21&flag&limit=5&q=second");
	nv(&b, "HTTP_MCP_SESSION_ID", "abc");
	nv(&b, "CONTENT_TYPE", "application/json");
	nv(&b, "HTTP_X_LONG", longv); /* a four-byte length */
	struct fcgiproto_params pp;
	ck_assert_int_eq(fcgiproto_params_parse(&pp, (unsigned char *)b.data, b.len), 0);
	ck_assert_str_eq(fcgiproto_param(&pp, "REQUEST_METHOD"), "GET");
	char *path = fcgiproto_path(&pp);
	ck_assert_str_eq(path, "/api/history");
	free(path);
	ck_assert_str_eq(fcgiproto_header(&pp, "Mcp-Session-Id"), "abc");
	ck_assert_str_eq(fcgiproto_header(&pp, "content-type"), "application/json");
	ck_assert_str_eq(fcgiproto_header(&pp, "X-Long"), longv);
	ck_assert_ptr_null(fcgiproto_header(&pp, "Host"));
	ck_assert_str_eq(fcgiproto_query(&pp, "q"), "a b!"); /* the first wins */
	ck_assert_str_eq(fcgiproto_query(&pp, "flag"), "");
	ck_assert_str_eq(fcgiproto_query(&pp, "limit"), "5");
	ck_assert_ptr_null(fcgiproto_query(&pp, "none"));
	fcgiproto_params_free(&pp);
	buf_free(&b);
}
END_TEST

START_TEST(path_sources)
{
	struct buf b = {0};
	struct fcgiproto_params pp;
	nv(&b, "DOCUMENT_URI", "/api/status");
	nv(&b, "REQUEST_URI", "/ignored");
	ck_assert_int_eq(fcgiproto_params_parse(&pp, (unsigned char *)b.data, b.len), 0);
	char *p = fcgiproto_path(&pp);
	ck_assert_str_eq(p, "/api/status"); /* nginx's decoded, normalised path first */
	free(p);
	fcgiproto_params_free(&pp);
	b.len = 0;
	nv(&b, "SCRIPT_NAME", "/api");
	nv(&b, "PATH_INFO", "/health");
	ck_assert_int_eq(fcgiproto_params_parse(&pp, (unsigned char *)b.data, b.len), 0);
	p = fcgiproto_path(&pp);
	ck_assert_str_eq(p, "/api/health");
	free(p);
	fcgiproto_params_free(&pp);
	ck_assert_int_eq(fcgiproto_params_parse(&pp, (const unsigned char *)"", 0), 0);
	p = fcgiproto_path(&pp);
	ck_assert_str_eq(p, ""); /* no path at all: the transport answers 400 */
	free(p);
	fcgiproto_params_free(&pp);
	buf_free(&b);
}
END_TEST

START_TEST(malformed_pairs)
{
	struct fcgiproto_params pp;
	/* a name length past the end; a four-byte length cut short; a value past the end */
	const unsigned char bad1[] = {5, 0, 'a', 'b'};
	const unsigned char bad2[] = {0x80, 0, 0};
	const unsigned char bad3[] = {1, 9, 'a', 'b'};
	const unsigned char bad4[] = {0xff, 0xff, 0xff, 0xff, 0}; /* 2 GiB name */
	ck_assert_int_eq(fcgiproto_params_parse(&pp, bad1, sizeof bad1), -1);
	fcgiproto_params_free(&pp);
	ck_assert_int_eq(fcgiproto_params_parse(&pp, bad2, sizeof bad2), -1);
	fcgiproto_params_free(&pp);
	ck_assert_int_eq(fcgiproto_params_parse(&pp, bad3, sizeof bad3), -1);
	fcgiproto_params_free(&pp);
	ck_assert_int_eq(fcgiproto_params_parse(&pp, bad4, sizeof bad4), -1);
	fcgiproto_params_free(&pp);
	fcgiproto_params_free(&pp); /* twice is fine */
}
END_TEST

START_TEST(get_values)
{
	struct buf q = {0}, out = {0};
	nv(&q, "FCGI_MAX_CONNS", "");
	nv(&q, "FCGI_MAX_REQS", "");
	nv(&q, "FCGI_MPXS_CONNS", "");
	nv(&q, "UNKNOWN", "");
	ck_assert_int_eq(fcgiproto_get_values((unsigned char *)q.data, q.len, 12, 34, &out), 0);
	struct fcgiproto_record rec;
	ck_assert_int_eq(fcgiproto_next_record((unsigned char *)out.data, out.len, &rec), 1);
	ck_assert_int_eq(rec.type, FCGI_GET_VALUES_RESULT);
	struct fcgiproto_params pp;
	ck_assert_int_eq(fcgiproto_params_parse(&pp, rec.content, rec.len), 0);
	ck_assert_str_eq(fcgiproto_param(&pp, "FCGI_MAX_CONNS"), "12");
	ck_assert_str_eq(fcgiproto_param(&pp, "FCGI_MAX_REQS"), "34");
	ck_assert_str_eq(fcgiproto_param(&pp, "FCGI_MPXS_CONNS"), "1");
	ck_assert_ptr_null(fcgiproto_param(&pp, "UNKNOWN"));
	fcgiproto_params_free(&pp);
	out.len = 0;
	const unsigned char bad[] = {3, 0, 'a'};
	ck_assert_int_eq(fcgiproto_get_values(bad, sizeof bad, 1, 1, &out), -1);
	ck_assert_uint_eq(out.len, 0);
	buf_free(&q);
	buf_free(&out);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("fcgiproto");
	TCase *tc = tcase_create("fcgiproto");
	tcase_add_test(tc, record_roundtrip);
	tcase_add_test(tc, stdout_is_chunked_and_ended);
	tcase_add_test(tc, params_to_request);
	tcase_add_test(tc, path_sources);
	tcase_add_test(tc, malformed_pairs);
	tcase_add_test(tc, get_values);
	suite_add_tcase(s, tc);
	return testlib_run(s, 1);
}
