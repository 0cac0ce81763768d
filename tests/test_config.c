/* Unit tests for src/config.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "testlib.h"

static char *
write_tmp(const char *text)
{
	static char path[64];
	snprintf(path, sizeof path, "/tmp/bb-test-config-XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

START_TEST(defaults)
{
	struct config c;
	char *err = NULL;
	config_init(&c);
	ck_assert_int_eq(config_finish(&c, &err), 0);
	ck_assert_str_eq(c.http_host, "127.0.0.1");
	ck_assert_int_eq(c.http_port, 8765);
	ck_assert_int_eq(c.ws_port, 8766);
	ck_assert_int_eq(c.n_origins, 1);
	ck_assert_str_eq(c.origins[0], BB_EXTENSION_ORIGIN);
	ck_assert_int_eq(c.max_message_bytes, 16u * 1024 * 1024);
	config_free(&c);
}
END_TEST

START_TEST(refuses_non_loopback)
{
	struct config c;
	char *err = NULL;
	config_init(&c);
	ck_assert_int_eq(config_set(&c, "http", "0.0.0.0:8765", &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "loopback"));
	free(err);
	err = NULL;
	ck_assert_int_eq(config_set(&c, "ws", "192.168.0.2:1", &err), -1);
	free(err);
	err = NULL;
	ck_assert_int_eq(config_set(&c, "ws", "[::1]:9000", &err), 0);
	ck_assert_str_eq(c.ws_host, "::1");
	config_free(&c);
}
END_TEST

START_TEST(file_and_errors)
{
	struct config c;
	char *err = NULL;
	config_init(&c);
	char *p = write_tmp("# comment\nhttp = 127.0.0.1:9001\n\nallow_origin = chrome-extension://abc\n"
	                    "allow_origin = chrome-extension://def\nmax_message_bytes = 100000\n");
	ck_assert_int_eq(config_load_file(&c, p, 1, &err), 0);
	ck_assert_int_eq(c.http_port, 9001);
	ck_assert_int_eq(c.n_origins, 2);
	ck_assert_str_eq(c.origins[1], "chrome-extension://def");
	ck_assert_int_eq(c.max_message_bytes, 100000);
	unlink(p);
	p = write_tmp("http = 127.0.0.1:9001\nbogus = 1\n");
	ck_assert_int_eq(config_load_file(&c, p, 1, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, ":2: unknown setting"));
	free(err);
	err = NULL;
	unlink(p);
	p = write_tmp("max_body_bytes = 12abc\n");
	ck_assert_int_eq(config_load_file(&c, p, 1, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "max_body_bytes"));
	free(err);
	err = NULL;
	unlink(p);
	p = write_tmp("no equals sign\n");
	ck_assert_int_eq(config_load_file(&c, p, 1, &err), -1);
	free(err);
	err = NULL;
	unlink(p);
	ck_assert_int_eq(config_load_file(&c, "/nonexistent/x.conf", 0, &err), 0);
	ck_assert_int_eq(config_load_file(&c, "/nonexistent/x.conf", 1, &err), -1);
	free(err);
	config_free(&c);
}
END_TEST

START_TEST(origin_and_values)
{
	struct config c;
	char *err = NULL;
	config_init(&c);
	ck_assert_int_eq(config_set(&c, "allow_origin", "chrome-extension://x/path", &err), -1);
	free(err);
	err = NULL;
	ck_assert_int_eq(config_set(&c, "allow_origin", "nothing", &err), -1);
	free(err);
	err = NULL;
	ck_assert_int_eq(config_set(&c, "log_level", "loud", &err), -1);
	free(err);
	err = NULL;
	ck_assert_int_eq(config_set(&c, "headless", "maybe", &err), -1);
	free(err);
	err = NULL;
	ck_assert_int_eq(config_set(&c, "headless", "yes", &err), 0);
	ck_assert_int_eq(c.headless, 1);
	ck_assert_int_eq(config_set(&c, "fastcgi", "10.0.0.1:9000", &err), -1);
	free(err);
	err = NULL;
	ck_assert_int_eq(config_set(&c, "fastcgi", "unix:/tmp/x.sock", &err), 0);
	ck_assert_int_eq(config_set(&c, "retention_days", "-1", &err), -1);
	free(err);
	config_free(&c);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("config");
	tcase_add_test(tc, defaults);
	tcase_add_test(tc, refuses_non_loopback);
	tcase_add_test(tc, file_and_errors);
	tcase_add_test(tc, origin_and_values);
	suite_add_tcase(s, tc);
	return testlib_run(s, 1);
}
