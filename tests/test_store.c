/* Unit tests for src/store.c: group commit, acknowledgement after commit, FTS, retention, schema. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <unistd.h>

#include <jansson.h>

#include "store.h"
#include "util.h"
#include "testlib.h"

static char dir[64];
static int acked;
static int64_t last_id;

static char *
db_path(void)
{
	static char p[128];
	snprintf(p, sizeof p, "%s/h.db", dir);
	return p;
}

static void
setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/bb-test-store-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	acked = 0;
}

static void
teardown(void)
{
	char *cmd = xasprintf("rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

/* The page callback runs after commit: the row must be visible to a fresh connection by then. */
static void
on_page(json_t *page, int64_t id, const char *error, void *arg)
{
	(void)arg;
	ck_assert_ptr_null(error);
	sqlite3 *db;
	ck_assert_int_eq(sqlite3_open(db_path(), &db), SQLITE_OK);
	sqlite3_stmt *st;
	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT url FROM pages WHERE id = ?", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int64(st, 1, id);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), json_string_value(json_object_get(page, "url")));
	sqlite3_finalize(st);
	sqlite3_close(db);
	ck_assert_int_eq(json_integer_value(json_object_get(page, "history_id")), id);
	acked++;
	last_id = id;
}

static void
add(struct store *s, const char *url, const char *title, const char *md)
{
	json_t *p = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i}", "url", url, "title", title, "markdown", md, "clientId",
	                      "c1", "captured_at", "2026-01-01T00:00:00.000Z", "tabId", 3);
	store_add_page(s, p, 0, on_page, NULL);
}

START_TEST(pages_roundtrip)
{
	struct store_opts o = {0, 0, 0};
	char *err = NULL;
	struct store *s = store_open(db_path(), &o, &err);
	ck_assert_ptr_nonnull(s);
	add(s, "https://example.com/a", "Alpha", "# Alpha\n\nThe quick brown fox");
	add(s, "https://example.org/b", "Beta", "# Beta\n\nlazy dogs sleep");
	add(s, "https://example.com/c", "Gamma", "# Gamma\n\nfox again, 登录");
	store_flush(s);
	ck_assert_int_eq(acked, 3);
	struct store_query q = {NULL, NULL, 50, 0};
	int bad;
	json_t *h = store_history(s, &q, &bad, &err);
	json_t *pages = json_object_get(h, "pages");
	ck_assert_int_eq(json_array_size(pages), 3);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(pages, 0), "title")), "Gamma");
	json_decref(h);
	q.q = "fox";
	h = store_history(s, &q, &bad, &err);
	ck_assert_int_eq(json_array_size(json_object_get(h, "pages")), 2);
	json_decref(h);
	q.url = "example.org";
	q.q = NULL;
	h = store_history(s, &q, &bad, &err);
	ck_assert_int_eq(json_array_size(json_object_get(h, "pages")), 1);
	json_decref(h);
	/* Not FTS syntax: searched as quoted terms instead of failing. */
	q.url = NULL;
	q.q = "example.com \"unbalanced";
	h = store_history(s, &q, &bad, &err);
	ck_assert_ptr_nonnull(h);
	json_decref(h);
	/* Paging with before. */
	q.q = NULL;
	q.limit = 2;
	h = store_history(s, &q, &bad, &err);
	ck_assert_int_eq(json_array_size(json_object_get(h, "pages")), 2);
	q.before = json_integer_value(json_object_get(h, "next_before"));
	json_decref(h);
	h = store_history(s, &q, &bad, &err);
	ck_assert_int_eq(json_array_size(json_object_get(h, "pages")), 1);
	json_decref(h);
	json_t *p = store_page(s, last_id, &err);
	ck_assert_str_eq(json_string_value(json_object_get(p, "markdown")), "# Gamma\n\nfox again, 登录");
	ck_assert_int_eq(json_integer_value(json_object_get(p, "tab_id")), 3);
	json_decref(p);
	ck_assert_ptr_null(store_page(s, 9999, &err));
	store_close(s);
}
END_TEST

START_TEST(commands_and_reopen)
{
	struct store_opts o = {0, 0, 0};
	char *err = NULL;
	struct store *s = store_open(db_path(), &o, &err);
	json_t *rec = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:i}", "request_id", "r1", "tool",
	                        "browser_click", "command", "click", "params", "{\"target\":\"x\"}", "status", "success",
	                        "http_status", 200, "started_at", "2026-01-01T00:00:00.000Z", "finished_at",
	                        "2026-01-01T00:00:01.000Z", "duration_ms", 1000);
	store_add_command(s, rec);
	store_close(s);
	s = store_open(db_path(), &o, &err);
	ck_assert_ptr_nonnull(s);
	json_t *c = store_commands(s, 10, 0, &err);
	json_t *arr = json_object_get(c, "commands");
	ck_assert_int_eq(json_array_size(arr), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(json_array_get(arr, 0), "params"), "target")),
	                 "x");
	json_decref(c);
	json_t *st = store_stats(s);
	ck_assert_int_eq(json_integer_value(json_object_get(st, "commands")), 1);
	json_decref(st);
	store_close(s);
	/* The schema is versioned, and the file is in WAL mode. */
	sqlite3 *db;
	sqlite3_open(db_path(), &db);
	sqlite3_stmt *stmt;
	sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &stmt, NULL);
	ck_assert_int_eq(sqlite3_step(stmt), SQLITE_ROW);
	ck_assert_str_eq((const char *)sqlite3_column_text(stmt, 0), "wal");
	sqlite3_finalize(stmt);
	sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, NULL);
	ck_assert_int_eq(sqlite3_step(stmt), SQLITE_ROW);
	ck_assert_int_ge(sqlite3_column_int(stmt, 0), 1);
	sqlite3_finalize(stmt);
	sqlite3_close(db);
}
END_TEST

START_TEST(retention_rows)
{
	struct store_opts o = {0, 10, 0};
	char *err = NULL;
	struct store *s = store_open(db_path(), &o, &err);
	for (int i = 0; i < 1100; i++) {
		char md[64];
		snprintf(md, sizeof md, "page number %d", i);
		add(s, "https://example.com/x", "X", md);
	}
	store_flush(s);
	json_t *st = store_stats(s);
	ck_assert_int_le(json_integer_value(json_object_get(st, "pages")), 110);
	json_decref(st);
	/* The newest page survived and the FTS index follows the deletes. */
	struct store_query q = {"number", NULL, 500, 0};
	int bad;
	json_t *h = store_history(s, &q, &bad, &err);
	ck_assert_int_le(json_array_size(json_object_get(h, "pages")), 110);
	json_decref(h);
	json_t *p = store_page(s, last_id, &err);
	ck_assert_ptr_nonnull(p);
	json_decref(p);
	store_close(s);
}
END_TEST

START_TEST(identical_pages_stored_once)
{
	struct store_opts o = {0, 0, 0};
	char *err = NULL;
	struct store *s = store_open(db_path(), &o, &err);
	for (int i = 0; i < 5; i++)
		add(s, "https://example.com/same", "Same", "# Same page\n\nunchanged");
	add(s, "https://example.com/same", "Same", "# Same page\n\nchanged");
	add(s, "https://example.com/same", "Other title", "# Same page\n\nunchanged");
	store_flush(s);
	ck_assert_int_eq(acked, 7);
	json_t *st = store_stats(s);
	ck_assert_int_eq(json_integer_value(json_object_get(st, "pages")), 7);
	json_decref(st);
	sqlite3 *db;
	sqlite3_open(db_path(), &db);
	sqlite3_stmt *stmt;
	sqlite3_prepare_v2(db, "SELECT count(*) FROM contents", -1, &stmt, NULL);
	ck_assert_int_eq(sqlite3_step(stmt), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_int(stmt, 0), 3);
	sqlite3_finalize(stmt);
	sqlite3_close(db);
	/* Every capture still reads back as its own page, and search finds all of them. */
	json_t *p = store_page(s, last_id, &err);
	ck_assert_str_eq(json_string_value(json_object_get(p, "title")), "Other title");
	json_decref(p);
	struct store_query q = {"unchanged", NULL, 50, 0};
	int bad;
	json_t *h = store_history(s, &q, &bad, &err);
	ck_assert_int_eq(json_array_size(json_object_get(h, "pages")), 6);
	json_decref(h);
	/* Empty title or Markdown, twice: SQLite hands back NULL for the stored empty value (found
	 * by tests/integration/wsfuzz.test.mjs: memcmp(NULL, ..., 0) under UBSan). */
	acked = 0;
	for (int i = 0; i < 2; i++) {
		add(s, "https://example.com/empty", "", "");
		add(s, "https://example.com/empty", "", "# body only");
		add(s, "https://example.com/empty", "Title only", "");
	}
	store_flush(s);
	ck_assert_int_eq(acked, 6);
	sqlite3_open(db_path(), &db);
	sqlite3_prepare_v2(db, "SELECT count(*) FROM contents", -1, &stmt, NULL);
	ck_assert_int_eq(sqlite3_step(stmt), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_int(stmt, 0), 6);
	sqlite3_finalize(stmt);
	sqlite3_close(db);
	store_close(s);
}
END_TEST

START_TEST(retention_days)
{
	struct store_opts o = {0, 0, 0};
	char *err = NULL;
	struct store *s = store_open(db_path(), &o, &err);
	for (int i = 0; i < 3; i++) {
		json_t *p = json_pack("{s:s, s:s, s:s, s:s, s:s}", "url", "http://old/", "title", "Old", "markdown",
		                      i ? "old page" : "shared", "clientId", "c1", "captured_at", "2001-01-01T00:00:00.000Z");
		store_add_page(s, p, 0, on_page, NULL);
	}
	char now[32];
	util_iso8601(util_now_ms(), now);
	store_add_page(s,
	               json_pack("{s:s, s:s, s:s, s:s, s:s}", "url", "https://new.example/", "title", "New", "markdown",
	                         "shared", "clientId", "c1", "captured_at", now),
	               0, on_page, NULL);
	store_close(s);
	/* Reopened with a 30-day limit: the 2001 pages go, content still used by a new page stays. */
	o.retention_days = 30;
	s = store_open(db_path(), &o, &err);
	json_t *st = store_stats(s);
	ck_assert_int_eq(json_integer_value(json_object_get(st, "pages")), 1);
	json_decref(st);
	struct store_query q = {"old", NULL, 50, 0};
	int bad;
	json_t *h = store_history(s, &q, &bad, &err);
	ck_assert_int_eq(json_array_size(json_object_get(h, "pages")), 0);
	json_decref(h);
	q.q = "shared";
	h = store_history(s, &q, &bad, &err);
	ck_assert_int_eq(json_array_size(json_object_get(h, "pages")), 1);
	json_decref(h);
	store_close(s);
	sqlite3 *db;
	sqlite3_open(db_path(), &db);
	sqlite3_stmt *stmt;
	sqlite3_prepare_v2(db, "SELECT count(*) FROM contents", -1, &stmt, NULL);
	ck_assert_int_eq(sqlite3_step(stmt), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_int(stmt, 0), 1);
	sqlite3_finalize(stmt);
	sqlite3_close(db);
}
END_TEST

START_TEST(bad_path)
{
	struct store_opts o = {0, 0, 0};
	char *err = NULL;
	struct store *s = store_open("/proc/nope/h.db", &o, &err);
	ck_assert_ptr_null(s);
	ck_assert_ptr_nonnull(err);
	free(err);
	store_close(NULL);
}
END_TEST

/* A file from a development build before 1.0 (a plain pages table) is refused with a clear
 * message and left as it was. */
START_TEST(old_layout_refused)
{
	sqlite3 *db;
	ck_assert_int_eq(sqlite3_open(db_path(), &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db,
	                              "CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT, markdown TEXT);"
	                              "INSERT INTO pages VALUES (1, 'http://old/', '# kept');"
	                              "PRAGMA user_version=1;",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(db);
	struct store_opts o = {0, 0, 0};
	char *err = NULL;
	ck_assert_ptr_null(store_open(db_path(), &o, &err));
	ck_assert_ptr_nonnull(err);
	ck_assert_ptr_nonnull(strstr(err, "before 1.0"));
	free(err);
	ck_assert_int_eq(sqlite3_open(db_path(), &db), SQLITE_OK);
	sqlite3_stmt *st;
	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT markdown FROM pages WHERE id = 1", -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), "# kept");
	sqlite3_finalize(st);
	sqlite3_close(db);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("store");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, pages_roundtrip);
	tcase_add_test(tc, commands_and_reopen);
	tcase_add_test(tc, retention_rows);
	tcase_add_test(tc, identical_pages_stored_once);
	tcase_add_test(tc, old_layout_refused);
	tcase_add_test(tc, retention_days);
	tcase_add_test(tc, bad_path);
	suite_add_tcase(s, tc);
	return testlib_run(s, 0);
}
