/* Unit tests for src/config.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "serve.h"
#include "testlib.h"

#ifndef BB_TEST_SRCDIR
#define BB_TEST_SRCDIR "."
#endif

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

/* A whole file into memory (the test's own files: small). */
static char *
slurp(const char *rel)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", getenv("BB_SRCDIR") ? getenv("BB_SRCDIR") : BB_TEST_SRCDIR, rel);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	static char buf[256 * 1024];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strdup(buf);
}

/* Every key of the table is in the sample file and, as a flag, in the man page and serve's options. */
START_TEST(table_documented)
{
	size_t n;
	const struct config_key *k = config_keys(&n);
	char *conf = slurp("etc/browser-bridge.conf"), *man = slurp("browser-bridge.1");
	ck_assert_int_ge(n, 19);
	for (size_t i = 0; i < n; i++) {
		char want[128], flag[64], esc[128];
		snprintf(want, sizeof want, "\n#%s = ", k[i].key);
		ck_assert_msg(strstr(conf, want) != NULL, "etc/browser-bridge.conf does not list %s", k[i].key);
		config_flag_name(&k[i], flag, sizeof flag);
		size_t e = 0;
		for (const char *p = "--"; *p; p++)
			e += (size_t)snprintf(esc + e, sizeof esc - e, "\\%c", *p);
		for (const char *p = flag; *p; p++)
			e += (size_t)snprintf(esc + e, sizeof esc - e, *p == '-' ? "\\-" : "%c", *p);
		/* the flag followed by its value or the end of the line, not as a prefix of a longer one */
		char *hit = strstr(man, esc);
		while (hit != NULL && (hit[e] == '\\' || (hit[e] >= 'a' && hit[e] <= 'z')))
			hit = strstr(hit + 1, esc);
		ck_assert_msg(hit != NULL, "browser-bridge.1 does not list --%s", flag);
		ck_assert_ptr_nonnull(k[i].help);
		ck_assert_msg(config_find_key(k[i].key) == &k[i], "key %s is twice in the table", k[i].key);
	}
	free(conf);
	free(man);
}
END_TEST

/* Bounds and messages come from the table (and limits.h); each default is one its key accepts. */
START_TEST(table_bounds)
{
	size_t n;
	const struct config_key *k = config_keys(&n);
	for (size_t i = 0; i < n; i++) {
		if (k[i].type != CFG_SIZE && k[i].type != CFG_LONG)
			continue;
		struct config c;
		char *err = NULL, v[32], range[64];
		config_init(&c);
		snprintf(v, sizeof v, "%ld", k[i].min - 1);
		snprintf(range, sizeof range, "from %ld to %ld", k[i].min, k[i].max);
		ck_assert_int_eq(config_set(&c, k[i].key, v, &err), -1);
		ck_assert_msg(strstr(err, range) != NULL && strncmp(err, k[i].key, strlen(k[i].key)) == 0, "%s", err);
		free(err);
		err = NULL;
		snprintf(v, sizeof v, "%ld", k[i].max + 1);
		ck_assert_int_eq(config_set(&c, k[i].key, v, &err), -1);
		free(err);
		snprintf(v, sizeof v, "%ld", k[i].max);
		ck_assert_int_eq(config_set(&c, k[i].key, v, &err), 0);
		config_free(&c);
	}
	struct config c;
	char *err = NULL;
	config_init(&c);
	ck_assert_int_eq(c.max_message_bytes, BB_WS_MAX_MESSAGE_DEFAULT);
	ck_assert_int_eq(c.retention_days, BB_RETENTION_DAYS_DEFAULT);
	ck_assert_int_eq(c.log_level, LOG_INFO);
	ck_assert_int_eq(config_set(&c, "sync", "fast", &err), -1);
	ck_assert_str_eq(err, "sync: expected normal or full, got \"fast\"");
	free(err);
	err = NULL;
	ck_assert_int_eq(config_set(&c, "sync", "full", &err), 0);
	ck_assert_int_eq(c.sync_full, 1);
	config_free(&c);
}
END_TEST

/* serve's getopt_long options are the table's: every key has its flag; a bad value names the flag. */
START_TEST(serve_flags)
{
	struct config c;
	char *err = NULL;
	int stop;
	char *argv[] = {"serve", "--config", "/dev/null", "--allow-file-urls", "--max-message-bytes", "65536",
	                "--retention-pages=7", "--sync", "full", "--api-socket", "off", "--headless", "extra", NULL};
	ck_assert_int_eq(serve_load_config(&c, 13, argv, &stop, &err), 0);
	ck_assert_int_eq(c.allow_file_urls, 1);
	ck_assert_int_eq(c.max_message_bytes, 65536);
	ck_assert_int_eq(c.retention_pages, 7);
	ck_assert_int_eq(c.sync_full, 1);
	ck_assert_int_eq(c.headless, 1);
	ck_assert_ptr_null(c.api_socket);
	ck_assert_int_eq(stop, 12);
	config_free(&c);
	char *bad[] = {"serve", "--config", "/dev/null", "--retention-days", "x", NULL};
	ck_assert_int_eq(serve_load_config(&c, 5, bad, &stop, &err), -1);
	ck_assert_msg(strncmp(err, "--retention_days: expected a whole number from 0 to", 51) == 0, "%s", err);
	free(err);
	config_free(&c);
	/* The loader the CLI uses: the table's defaults, then the file. */
	char *p = write_tmp("http = 127.0.0.1:9999\n");
	ck_assert_int_eq(config_load(&c, p, &err), 0);
	ck_assert_int_eq(c.http_port, 9999);
	config_free(&c);
	unlink(p);
	ck_assert_int_eq(config_load(&c, "/nonexistent/bb.conf", &err), -1);
	free(err);
	config_free(&c);
}
END_TEST

/* upload_dir: repeatable up to its limit, each an existing directory given as an absolute path,
 * kept as given (normalized) and as its realpath when that differs. */
START_TEST(upload_dirs)
{
	struct config c;
	char *err = NULL;
	config_init(&c);
	ck_assert_int_eq(c.n_upload_dirs, 0);
	ck_assert_int_eq(config_set(&c, "upload_dir", "tmp", &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "upload_dir: \"tmp\" is not an absolute path"));
	free(err);
	err = NULL;
	ck_assert_int_eq(config_set(&c, "upload_dir", "/etc/passwd", &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "is not an existing directory"));
	free(err);
	err = NULL;
	ck_assert_int_eq(config_set(&c, "upload_dir", "/tmp/../tmp", &err), -1);
	free(err);
	err = NULL;
	char dir[64];
	snprintf(dir, sizeof dir, "/tmp/bb-test-updir-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char link[80];
	snprintf(link, sizeof link, "%s-link", dir);
	ck_assert_int_eq(symlink(dir, link), 0);
	ck_assert_int_eq(config_set(&c, "upload_dir", link, &err), 0);
	ck_assert_int_eq(c.n_upload_dirs, 2); /* the link as given, and where it leads */
	ck_assert_str_eq(c.upload_dirs[0], link);
	ck_assert_str_eq(c.upload_dirs[1], dir);
	for (int i = 1; i < BB_UPLOAD_DIRS_MAX; i++)
		ck_assert_int_eq(config_set(&c, "upload_dir", "/tmp/", &err), 0);
	ck_assert_int_eq(config_set(&c, "upload_dir", "/tmp", &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "at most 16 directories"));
	free(err);
	config_free(&c);
	unlink(link);
	rmdir(dir);
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
	tcase_add_test(tc, table_documented);
	tcase_add_test(tc, table_bounds);
	tcase_add_test(tc, serve_flags);
	tcase_add_test(tc, upload_dirs);
	suite_add_tcase(s, tc);
	return testlib_run(s, 1);
}
