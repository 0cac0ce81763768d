/* Unit tests for the protocol 2 parts of src/auth.c: nonces and HMAC-SHA256 proofs. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"
#include "testlib.h"

/* An auth object over a token file holding tok. */
static struct auth *
auth_with(const char *tok)
{
	char path[] = "/tmp/bb-test-auth-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, tok, strlen(tok)), (ssize_t)strlen(tok));
	close(fd);
	char *err = NULL;
	struct auth *a = auth_create(path, &err);
	ck_assert_ptr_nonnull(a);
	unlink(path);
	return a;
}

START_TEST(proof_vector)
{
	/* The worked example of docs/protocol.md (checked there against Node's crypto). */
	struct auth *a = auth_with("0123456789abcdef0123456789abcdef\n");
	const char *s = "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE", *c = "AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI";
	char out[AUTH_NONCE_LEN + 1];
	auth_proof(a, "hello", s, c, out);
	ck_assert_str_eq(out, "y7fxkZfu1toInu6n3bAMi7RZUBEXbYKTrADDFyNEItc");
	auth_proof(a, "welcome", c, s, out);
	ck_assert_str_eq(out, "WyiddbWZcg4FcHA8M53SROasq32hHzbXUT60yjCmfPY");
	ck_assert(auth_check_proof(a, "hello", s, c, "y7fxkZfu1toInu6n3bAMi7RZUBEXbYKTrADDFyNEItc"));
	ck_assert(!auth_check_proof(a, "hello", s, c, "y7fxkZfu1toInu6n3bAMi7RZUBEXbYKTrADDFyNEItd"));
	ck_assert(!auth_check_proof(a, "hello", c, s, "y7fxkZfu1toInu6n3bAMi7RZUBEXbYKTrADDFyNEItc"));
	ck_assert(!auth_check_proof(a, "welcome", s, c, "y7fxkZfu1toInu6n3bAMi7RZUBEXbYKTrADDFyNEItc"));
	ck_assert(!auth_check_proof(a, "hello", s, c, "y7fxkZfu1toInu6n3bAMi7RZUBEXbYKTrADDFyNEIt"));
	ck_assert(!auth_check_proof(a, "hello", s, c, NULL));
	ck_assert(!auth_check_proof(a, "hello", s, c, ""));
	auth_free(a);
}
END_TEST

START_TEST(nonces)
{
	char n1[AUTH_NONCE_LEN + 1], n2[AUTH_NONCE_LEN + 1];
	auth_nonce(n1);
	auth_nonce(n2);
	ck_assert_int_eq(strlen(n1), AUTH_NONCE_LEN);
	ck_assert_str_ne(n1, n2);
	ck_assert(auth_valid_nonce(n1));
	ck_assert(auth_valid_nonce("AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE"));
	ck_assert(!auth_valid_nonce("AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQF")); /* spare bits set */
	ck_assert(!auth_valid_nonce("AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQ"));  /* 42 characters */
	ck_assert(!auth_valid_nonce("AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBA\nE"));
	ck_assert(!auth_valid_nonce("AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQ=="));
	ck_assert(!auth_valid_nonce("AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEB+/E"));
	ck_assert(!auth_valid_nonce(NULL));
}
END_TEST

START_TEST(bearer_header)
{
	struct auth *a = auth_with("0123456789abcdef0123456789abcdef\n");
	const char *tok = "0123456789abcdef0123456789abcdef";
	char h[128];
	snprintf(h, sizeof h, "Bearer %s", tok);
	ck_assert(auth_check_bearer(a, h));
	snprintf(h, sizeof h, "bearer   %s", tok); /* the scheme is case-insensitive; spaces may follow */
	ck_assert(auth_check_bearer(a, h));
	snprintf(h, sizeof h, "Bearer %sx", tok);
	ck_assert(!auth_check_bearer(a, h));
	snprintf(h, sizeof h, "Bearer %.31s", tok);
	ck_assert(!auth_check_bearer(a, h));
	snprintf(h, sizeof h, "Basic %s", tok);
	ck_assert(!auth_check_bearer(a, h));
	snprintf(h, sizeof h, "Bearer%s", tok);
	ck_assert(!auth_check_bearer(a, h));
	ck_assert(!auth_check_bearer(a, "Bearer "));
	ck_assert(!auth_check_bearer(a, ""));
	ck_assert(!auth_check_bearer(a, NULL));
	auth_free(a);
}
END_TEST

START_TEST(session_cookie)
{
	struct auth *a = auth_with("0123456789abcdef0123456789abcdef\n");
	char sid[65], h[200];
	ck_assert_int_eq(auth_session_new(a, sid), 0);
	snprintf(h, sizeof h, "bb_session=%s", sid);
	ck_assert(auth_session_check(a, h));
	snprintf(h, sizeof h, "a=b; bb_session=%s; c=d", sid);
	ck_assert(auth_session_check(a, h));
	snprintf(h, sizeof h, "xbb_session=%s", sid); /* another cookie's name ending in ours */
	ck_assert(!auth_session_check(a, h));
	snprintf(h, sizeof h, "bb_session=%.63s", sid);
	ck_assert(!auth_session_check(a, h));
	snprintf(h, sizeof h, "bb_session=%sx", sid);
	ck_assert(!auth_session_check(a, h));
	ck_assert(!auth_session_check(a, "bb_session=0000000000000000000000000000000000000000000000000000000000000000"));
	ck_assert(!auth_session_check(a, NULL));
	snprintf(h, sizeof h, "bb_session=%s", sid);
	auth_session_end(a, h);
	ck_assert(!auth_session_check(a, h));
	auth_free(a);
}
END_TEST

/* auth_read_token on a file holding text: the token, or NULL with a message. */
static char *
read_token(const char *text, char **err)
{
	char path[] = "/tmp/bb-test-tokfile-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	*err = NULL;
	char *tok = auth_read_token(path, 0, err);
	unlink(path);
	ck_assert((tok == NULL) != (*err == NULL));
	return tok;
}

START_TEST(token_file)
{
	char *err, *tok;
	tok = read_token("0123456789abcdef\r\n", &err);
	ck_assert_str_eq(tok, "0123456789abcdef");
	free(tok);
	static const char *const bad[] = {"", "short\n", "0123456789 abcdef\n", "0123456789abcdef\x01\n",
	                                  "0123456789abcdef\xc3\xa9\n", "\n\n\n"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		tok = read_token(bad[i], &err);
		ck_assert_msg(tok == NULL, "accepted bad token file %zu", i);
		free(err);
	}
	char big[400];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	ck_assert_ptr_null(tok = read_token(big, &err));
	free(err);
	err = NULL;
	ck_assert_ptr_null(auth_read_token("/nonexistent/dir/token", 0, &err));
	ck_assert_ptr_nonnull(err);
	free(err);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("auth");
	TCase *tc = tcase_create("auth");
	tcase_add_test(tc, proof_vector);
	tcase_add_test(tc, nonces);
	tcase_add_test(tc, bearer_header);
	tcase_add_test(tc, session_cookie);
	tcase_add_test(tc, token_file);
	suite_add_tcase(s, tc);
	return testlib_run(s, 1);
}
