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

int
main(void)
{
	Suite *s = suite_create("auth");
	TCase *tc = tcase_create("auth");
	tcase_add_test(tc, proof_vector);
	tcase_add_test(tc, nonces);
	suite_add_tcase(s, tc);
	return testlib_run(s, 1);
}
