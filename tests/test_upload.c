/* Unit tests for src/upload.c: only regular files beneath an upload_dir are read, and a hostile path
 * (.., a symbolic link out, /proc, a directory, a FIFO, a file too big, a relative path) is refused
 * with a sentence that says nothing about what is outside the upload_dir. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib.h"
#include "upload.h"

static char root[64];    /* a temporary directory: up/ is the upload_dir, out/ is outside it */
static char up[128], out[128];
static char *dirs[2];
static int ndirs;

/* Write a file of n bytes (the letter x). */
static void
make_file(const char *path, size_t n)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	for (size_t i = 0; i < n; i++)
		fputc('x', f);
	fclose(f);
}

static void
setup(void)
{
	snprintf(root, sizeof root, "/tmp/bb-test-upload-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(up, sizeof up, "%s/up", root);
	snprintf(out, sizeof out, "%s/out", root);
	ck_assert_int_eq(mkdir(up, 0700), 0);
	ck_assert_int_eq(mkdir(out, 0700), 0);
	char p[256];
	snprintf(p, sizeof p, "%s/hello.txt", up);
	FILE *f = fopen(p, "w");
	fputs("hello", f);
	fclose(f);
	snprintf(p, sizeof p, "%s/secret.txt", out);
	make_file(p, 7);
	snprintf(p, sizeof p, "%s/sub", up);
	mkdir(p, 0700);
	snprintf(p, sizeof p, "%s/sub/photo.PNG", up);
	make_file(p, 3);
	char target[256];
	snprintf(p, sizeof p, "%s/link-out", up); /* a symbolic link to a file outside */
	snprintf(target, sizeof target, "%s/secret.txt", out);
	ck_assert_int_eq(symlink(target, p), 0);
	snprintf(p, sizeof p, "%s/rel-out", up); /* a relative one, out through .. */
	ck_assert_int_eq(symlink("../out/secret.txt", p), 0);
	snprintf(p, sizeof p, "%s/dangling-out", up); /* one to something outside that does not exist */
	ck_assert_int_eq(symlink("../out/nothing", p), 0);
	snprintf(p, sizeof p, "%s/link-in", up); /* one that stays inside */
	ck_assert_int_eq(symlink("sub/photo.PNG", p), 0);
	snprintf(p, sizeof p, "%s/proc-link", up);
	ck_assert_int_eq(symlink("/proc/self/environ", p), 0);
	snprintf(p, sizeof p, "%s/fifo", up);
	ck_assert_int_eq(mkfifo(p, 0600), 0);
	snprintf(p, sizeof p, "%s/big.bin", up);
	make_file(p, 2000);
	char *err = NULL, *norm, *real;
	ck_assert_int_eq(upload_dir_ok(up, &norm, &real, &err), 0);
	ndirs = 0;
	dirs[ndirs++] = norm;
	if (strcmp(norm, real) != 0)
		dirs[ndirs++] = real;
	else
		free(real);
}

static void
teardown(void)
{
	for (int i = 0; i < ndirs; i++)
		free(dirs[i]);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	ck_assert_int_eq(system(cmd), 0);
}

/* Read one path; NULL and *err when refused. */
static json_t *
read1(const char *path, size_t file_max, size_t total_max, char **err)
{
	json_t *paths = json_pack("[s]", path);
	int index;
	json_t *r = upload_read(dirs, ndirs, paths, file_max, total_max, &index, err);
	json_decref(paths);
	if (r == NULL)
		ck_assert_int_eq(index, 0);
	return r;
}

/* Refused, with a message containing want, and never anything read from outside. */
static void
refused(const char *path, const char *want)
{
	char *err = NULL;
	json_t *r = read1(path, 1000, 10000, &err);
	ck_assert_msg(r == NULL, "%s was read", path);
	ck_assert_msg(err && strstr(err, want), "%s: \"%s\" does not say \"%s\"", path, err ? err : "(none)", want);
	free(err);
}

START_TEST(reads_a_file_beneath)
{
	char p[256], *err = NULL;
	snprintf(p, sizeof p, "%s/hello.txt", up);
	json_t *r = read1(p, 1000, 10000, &err);
	ck_assert_ptr_nonnull(r);
	json_t *f = json_array_get(r, 0);
	ck_assert_str_eq(json_string_value(json_object_get(f, "name")), "hello.txt");
	ck_assert_str_eq(json_string_value(json_object_get(f, "type")), "text/plain");
	ck_assert_int_eq(json_integer_value(json_object_get(f, "size")), 5);
	ck_assert_str_eq(json_string_value(json_object_get(f, "data")), "aGVsbG8="); /* base64("hello") */
	json_decref(r);
	/* "." and doubled slashes are fine; a symbolic link that stays inside too; the type by extension */
	snprintf(p, sizeof p, "%s/./sub//photo.PNG", up);
	r = read1(p, 1000, 10000, &err);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(r, 0), "type")), "image/png");
	json_decref(r);
	snprintf(p, sizeof p, "%s/link-in", up);
	r = read1(p, 1000, 10000, &err);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(r, 0), "name")), "link-in");
	json_decref(r);
}
END_TEST

START_TEST(refuses_hostile_paths)
{
	char p[256];
	snprintf(p, sizeof p, "%s/secret.txt", out);
	refused(p, "is not beneath an upload_dir");
	snprintf(p, sizeof p, "%s/nothing-here", out); /* the same words whether it exists or not */
	refused(p, "is not beneath an upload_dir");
	snprintf(p, sizeof p, "%s/../out/secret.txt", up);
	refused(p, "\"..\"");
	snprintf(p, sizeof p, "%s/sub/../hello.txt", up); /* even one that would stay inside */
	refused(p, "\"..\"");
	snprintf(p, sizeof p, "%s/link-out", up);
	refused(p, "leads out of its upload_dir");
	snprintf(p, sizeof p, "%s/rel-out", up);
	refused(p, "leads out of its upload_dir");
	snprintf(p, sizeof p, "%s/dangling-out", up); /* outside's existence does not show */
	refused(p, "leads out of its upload_dir");
	snprintf(p, sizeof p, "%s/proc-link", up);
	refused(p, "leads out of its upload_dir");
	refused("/proc/self/environ", "is not beneath an upload_dir");
	refused("/etc/passwd", "is not beneath an upload_dir");
	refused("hello.txt", "is not an absolute path");
	refused("up/hello.txt", "is not an absolute path");
	refused("", "is not an absolute path");
	refused(up, "is an upload_dir itself");
	snprintf(p, sizeof p, "%s/sub", up);
	refused(p, "is a directory");
	snprintf(p, sizeof p, "%s/fifo", up);
	refused(p, "is not a regular file");
	snprintf(p, sizeof p, "%s/missing.txt", up);
	refused(p, "does not exist in the upload_dir");
	snprintf(p, sizeof p, "%s/big.bin", up);
	refused(p, "more than the limit of 1000 bytes per file");
	snprintf(p, sizeof p, "%s/hello.txt\n", up);
	refused(p, "control character");
	/* a directory whose name only starts like the upload_dir's */
	snprintf(p, sizeof p, "%s-other/x.txt", up);
	refused(p, "is not beneath an upload_dir");
	char longp[5000];
	memset(longp, 'a', sizeof longp - 1);
	longp[0] = '/';
	longp[sizeof longp - 1] = '\0';
	refused(longp, "is longer than");
}
END_TEST

START_TEST(total_cap_and_index)
{
	char a[256], b[256], *err = NULL;
	snprintf(a, sizeof a, "%s/hello.txt", up);
	snprintf(b, sizeof b, "%s/big.bin", up);
	json_t *paths = json_pack("[s, s]", a, b);
	int index;
	json_t *r = upload_read(dirs, ndirs, paths, 5000, 2002, &index, &err);
	ck_assert_ptr_null(r);
	ck_assert_int_eq(index, 1);
	ck_assert_ptr_nonnull(strstr(err, "paths[1]"));
	ck_assert_ptr_nonnull(strstr(err, "together"));
	free(err);
	err = NULL;
	r = upload_read(dirs, ndirs, paths, 5000, 2005, &index, &err);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(json_array_size(r), 2);
	json_decref(r);
	json_decref(paths);
	/* no upload_dir at all: nothing is beneath one */
	paths = json_pack("[s]", a);
	r = upload_read(dirs, 0, paths, 5000, 5000, &index, &err);
	ck_assert_ptr_null(r);
	ck_assert_ptr_nonnull(strstr(err, "is not beneath an upload_dir"));
	free(err);
	json_decref(paths);
}
END_TEST

START_TEST(dir_setting)
{
	char *norm = NULL, *real = NULL, *err = NULL;
	ck_assert_int_eq(upload_dir_ok("relative/dir", &norm, &real, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "absolute"));
	free(err);
	ck_assert_int_eq(upload_dir_ok("/no/such/dir/here", &norm, &real, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "is not an existing directory"));
	free(err);
	char p[256];
	snprintf(p, sizeof p, "%s/hello.txt", up);
	ck_assert_int_eq(upload_dir_ok(p, &norm, &real, &err), -1);
	free(err);
	snprintf(p, sizeof p, "%s/sub/../sub", up);
	ck_assert_int_eq(upload_dir_ok(p, &norm, &real, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, ".."));
	free(err);
	snprintf(p, sizeof p, "%s//sub/", up);
	ck_assert_int_eq(upload_dir_ok(p, &norm, &real, &err), 0);
	char want[256];
	snprintf(want, sizeof want, "%s/sub", up);
	ck_assert_str_eq(norm, want);
	free(norm);
	free(real);
	ck_assert_str_eq(upload_mime_type("a.JPG"), "image/jpeg");
	ck_assert_str_eq(upload_mime_type(".bashrc"), "application/octet-stream");
	ck_assert_str_eq(upload_mime_type("noext"), "application/octet-stream");
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("upload");
	TCase *tc = tcase_create("upload");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, reads_a_file_beneath);
	tcase_add_test(tc, refuses_hostile_paths);
	tcase_add_test(tc, total_cap_and_index);
	tcase_add_test(tc, dir_setting);
	suite_add_tcase(s, tc);
	return testlib_run(s, 1);
}
