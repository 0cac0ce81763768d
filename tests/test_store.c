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

/* A connection of the test's own to the database, waiting (up to 5 s) where the store's writer
 * holds a lock for a moment, as any reader should: under load a fresh connection's first read
 * met one (SQLITE_BUSY from prepare, right after a commit whose callback it checks). */
static int
open_db(sqlite3 **db)
{
	int rc = sqlite3_open(db_path(), db);
	if (rc == SQLITE_OK)
		sqlite3_busy_timeout(*db, 5000);
	return rc;
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
	ck_assert_int_eq(open_db(&db), SQLITE_OK);
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
	struct store_query q = {NULL, NULL, 50, 0, 0, 0, 0};
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
	open_db(&db);
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
	struct store_query q = {"number", NULL, 500, 0, 0, 0, 0};
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
	open_db(&db);
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
	struct store_query q = {"unchanged", NULL, 50, 0, 0, 0, 0};
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
	open_db(&db);
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
	struct store_query q = {"old", NULL, 50, 0, 0, 0, 0};
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
	open_db(&db);
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
	ck_assert_ptr_nonnull(strstr(err, "No such file or directory")); /* the system's reason */
	free(err);
	store_close(NULL);
}
END_TEST

/* A file from a development build before 1.0 (a plain pages table) is refused with a clear
 * message and left as it was. */
START_TEST(old_layout_refused)
{
	sqlite3 *db;
	ck_assert_int_eq(open_db(&db), SQLITE_OK);
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
	ck_assert_int_eq(open_db(&db), SQLITE_OK);
	sqlite3_stmt *st;
	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT markdown FROM pages WHERE id = 1", -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), "# kept");
	sqlite3_finalize(st);
	sqlite3_close(db);
}
END_TEST

/* Poll (bounded) until store_fault names the given reason; the fault text, caller frees. */
static char *
wait_fault(struct store *s, const char *what)
{
	for (int i = 0; i < 10000; i++) {
		char *f = store_fault(s);
		if (f != NULL && strstr(f, what) != NULL)
			return f;
		free(f);
		usleep(1000);
	}
	ck_abort_msg("the store never reported \"%s\"", what);
	return NULL;
}

/* Run SQL on a connection of our own, as a sqlite3 shell would (a downgrade, another writer's rows). */
static void
shell(const char *sql)
{
	sqlite3 *db;
	ck_assert_int_eq(open_db(&db), SQLITE_OK);
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	ck_assert_msg(rc == SQLITE_OK, "%s", msg ? msg : "");
	sqlite3_free(msg);
	sqlite3_close(db);
}

/* Count rows with a query on a fresh connection of our own. */
static long
count_rows(const char *query)
{
	sqlite3 *db;
	ck_assert_int_eq(open_db(&db), SQLITE_OK);
	sqlite3_stmt *st;
	ck_assert_int_eq(sqlite3_prepare_v2(db, query, -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	long n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

/* Another process holds the write lock (a sqlite3 shell's BEGIN IMMEDIATE): the page waits, is
 * not acknowledged meanwhile, and goes in with a real id once the lock is released. */
START_TEST(write_lock_waits)
{
	struct store_opts o = {0, 0, 0};
	char *err = NULL;
	struct store *s = store_open(db_path(), &o, &err);
	ck_assert_ptr_nonnull(s);
	sqlite3 *other;
	ck_assert_int_eq(sqlite3_open(db_path(), &other), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	add(s, "https://example.com/locked", "Locked", "# written after the lock");
	store_add_command(s, json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:i}", "request_id", "r1", "tool",
	                               "browser_click", "command", "click", "params", "{}", "status", "success",
	                               "http_status", 200, "started_at", "2026-01-01T00:00:00.000Z", "finished_at",
	                               "2026-01-01T00:00:01.000Z", "duration_ms", 1));
	char *f = wait_fault(s, "locked by another process");
	free(f);
	ck_assert_int_eq(acked, 0);
	ck_assert_int_eq(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(other);
	store_flush(s);
	ck_assert_int_eq(acked, 1); /* on_page checked the row is in the file under that id */
	ck_assert_ptr_null(store_fault(s));
	ck_assert_int_eq(store_close(s), 0);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM commands"), 1);
}
END_TEST

/* A full disk (simulated with the test knob): nothing is acknowledged, nothing is lost, the file
 * stays sound, and writing resumes by itself when space returns. */
START_TEST(disk_full_recovers)
{
	char knob[160];
	snprintf(knob, sizeof knob, "%s/max-pages", dir);
	FILE *k = fopen(knob, "w");
	ck_assert_ptr_nonnull(k);
	fputs("1\n", k); /* below the current size: SQLite keeps the current size, so nothing can grow */
	fclose(k);
	setenv("BB_TEST_MAX_PAGE_COUNT_FILE", knob, 1);
	struct store_opts o = {0, 0, 0};
	char *err = NULL;
	struct store *s = store_open(db_path(), &o, &err);
	unsetenv("BB_TEST_MAX_PAGE_COUNT_FILE");
	ck_assert_ptr_nonnull(s);
	char *big = xmalloc(200001);
	memset(big, 'x', 200000);
	big[200000] = '\0';
	add(s, "https://example.com/big", "Big", big);
	free(big);
	char *f = wait_fault(s, "disk");
	free(f);
	ck_assert_int_eq(acked, 0);
	ck_assert_int_eq(unlink(knob), 0); /* space returns */
	store_flush(s);
	ck_assert_int_eq(acked, 1);
	ck_assert_ptr_null(store_fault(s));
	ck_assert_int_eq(store_close(s), 0);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM pages"), 1);
	sqlite3 *db;
	ck_assert_int_eq(open_db(&db), SQLITE_OK);
	sqlite3_stmt *st;
	ck_assert_int_eq(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), "ok");
	sqlite3_finalize(st);
	sqlite3_close(db);
}
END_TEST

/* The file is moved away while the store runs: writes stop (they would go to the old file), reads
 * say so, no new empty file appears; moved back, everything queued goes in. */
START_TEST(moved_file_noticed)
{
	struct store_opts o = {0, 0, 0};
	char *err = NULL;
	struct store *s = store_open(db_path(), &o, &err);
	ck_assert_ptr_nonnull(s);
	char aside[160];
	snprintf(aside, sizeof aside, "%s/aside.db", dir);
	ck_assert_int_eq(rename(db_path(), aside), 0);
	add(s, "https://example.com/moved", "Moved", "# while moved");
	char *f = wait_fault(s, "deleted or moved");
	free(f);
	ck_assert_int_eq(acked, 0);
	ck_assert_ptr_null(store_page(s, 1, &err));
	ck_assert_ptr_nonnull(err);
	ck_assert_ptr_nonnull(strstr(err, "deleted or moved"));
	free(err);
	err = NULL;
	ck_assert_int_ne(access(db_path(), F_OK), 0); /* the reader did not create a new file */
	ck_assert_int_eq(rename(aside, db_path()), 0);
	store_flush(s);
	ck_assert_int_eq(acked, 1);
	ck_assert_int_eq(store_close(s), 0);
}
END_TEST

/* Retention prunes the newest contents; a page stored afterwards is still found by full-text search
 * (its content id is not one the index already counted as done), and later prunes still work. */
START_TEST(retention_then_search)
{
	struct store_opts o = {0, 0, 0};
	char *err = NULL;
	struct store *s = store_open(db_path(), &o, &err);
	add(s, "https://example.com/a", "A", "apple orchard");
	add(s, "https://example.com/b", "B", "banana plantation");
	add(s, "https://example.com/a", "A", "apple orchard"); /* the same content as the first */
	store_close(s);
	o.retention_pages = 1; /* at open: captures 1 and 2 go, and with them the newest content */
	s = store_open(db_path(), &o, &err);
	ck_assert_ptr_nonnull(s);
	add(s, "https://example.com/c", "C", "cherry blossom");
	store_flush(s);
	struct store_query q = {"cherry", NULL, 50, 0, 0, 0, 0};
	int bad;
	json_t *h = store_history(s, &q, &bad, &err);
	ck_assert_ptr_nonnull(h);
	ck_assert_int_eq(json_array_size(json_object_get(h, "pages")), 1);
	json_decref(h);
	store_close(s);
	/* The next prune removes the cherry page's predecessors without breaking the index. */
	s = store_open(db_path(), &o, &err);
	ck_assert_ptr_nonnull(s);
	add(s, "https://example.com/d", "D", "date palm");
	store_close(s);
	s = store_open(db_path(), &o, &err);
	ck_assert_ptr_nonnull(s);
	q.q = "date";
	h = store_history(s, &q, &bad, &err);
	ck_assert_ptr_nonnull(h);
	ck_assert_int_eq(json_array_size(json_object_get(h, "pages")), 1);
	json_decref(h);
	store_close(s);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM pages"), 1);
	sqlite3 *db;
	ck_assert_int_eq(open_db(&db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "INSERT INTO pages_fts(pages_fts) VALUES ('integrity-check')", NULL, NULL,
	                              NULL),
	                 SQLITE_OK);
	sqlite3_close(db);
}
END_TEST

/* A version-1 file already in the broken state (a content id reused below fts_upto, so never
 * indexed) is repaired by the migration: the page is found, and new pages are indexed. */
START_TEST(migration_repairs_index)
{
	static const char *const v1 =
		"CREATE TABLE meta (key TEXT PRIMARY KEY, value);\n"
		"INSERT INTO meta VALUES ('fts_upto', 0);\n"
		/* Identical pages (same title and Markdown) are stored once: agents re-read unchanged pages a lot. */
		"CREATE TABLE contents (\n"
		"  id INTEGER PRIMARY KEY,\n"
		"  hash TEXT NOT NULL UNIQUE,\n"
		"  title TEXT NOT NULL,\n"
		"  markdown TEXT NOT NULL,\n"
		"  bytes INTEGER NOT NULL\n"
		");\n"
		"CREATE TABLE captures (\n"
		"  id INTEGER PRIMARY KEY,\n"
		"  captured_at TEXT NOT NULL,\n"
		"  client_id TEXT NOT NULL,\n"
		"  tab_id INTEGER,\n"
		"  request_id TEXT,\n"
		"  url TEXT NOT NULL,\n"
		"  content_id INTEGER NOT NULL REFERENCES contents(id),\n"
		"  truncated INTEGER NOT NULL DEFAULT 0\n"
		");\n"
		
		"CREATE INDEX captures_content_id ON captures(content_id);\n"
		
		"CREATE VIEW pages AS\n"
		"  SELECT c.id, c.captured_at, c.client_id, c.tab_id, c.request_id, c.url, k.title, k.markdown, k.bytes,\n"
		"         c.truncated, c.content_id\n"
		"  FROM captures c JOIN contents k ON k.id = c.content_id;\n"
		/* Indexed in batches by the store thread, off the path that acknowledges pages (meta.fts_upto). */
		"CREATE VIRTUAL TABLE pages_fts USING fts5(title, markdown, content='contents', content_rowid='id',\n"
		"  tokenize='unicode61 remove_diacritics 2');\n"
		"CREATE TRIGGER contents_fts_delete AFTER DELETE ON contents\n"
		"  WHEN old.id <= (SELECT value FROM meta WHERE key = 'fts_upto') BEGIN\n"
		"  INSERT INTO pages_fts(pages_fts, rowid, title, markdown)\n"
		"    VALUES ('delete', old.id, old.title, old.markdown);\n"
		"END;\n"
		"CREATE TABLE commands (\n"
		"  id INTEGER PRIMARY KEY,\n"
		"  request_id TEXT NOT NULL,\n"
		"  tool TEXT NOT NULL,\n"
		"  command TEXT NOT NULL,\n"
		"  client_id TEXT,\n"
		"  params TEXT NOT NULL,\n"
		"  status TEXT NOT NULL,\n"
		"  http_status INTEGER NOT NULL,\n"
		"  message TEXT,\n"
		"  error TEXT,\n"
		"  summary TEXT,\n"
		"  page_id INTEGER,\n"
		"  started_at TEXT NOT NULL,\n"
		"  finished_at TEXT NOT NULL,\n"
		"  duration_ms INTEGER NOT NULL\n"
		");\n"
		
		"CREATE VIEW recent_pages AS\n"
		"  SELECT id, captured_at, url, title, bytes FROM pages ORDER BY id DESC;\n"
		"CREATE VIEW calls AS\n"
		"  SELECT c.id, c.started_at, c.tool, c.status, c.duration_ms, c.summary, p.url AS page_url,\n"
		"         c.page_id, c.error\n"
		"  FROM commands c LEFT JOIN captures p ON p.id = c.page_id ORDER BY c.id DESC;\n"
		"CREATE VIEW sites AS\n"
		"  SELECT CASE WHEN instr(substr(url, instr(url, '//') + 2), '/') > 0\n"
		"    THEN substr(url, 1, instr(url, '//') + instr(substr(url, instr(url, '//') + 2), '/'))\n"
		"    ELSE url END AS site,\n"
		"         count(*) AS pages, max(captured_at) AS last_seen\n"
		"  FROM captures GROUP BY site ORDER BY pages DESC;\n";
	sqlite3 *db;
	ck_assert_int_eq(open_db(&db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, v1, NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(
		sqlite3_exec(db,
	                     "INSERT INTO contents VALUES (1, 'h1', 'Old', 'alpha words', 11), "
	                     "(2, 'h2', 'Newest', 'beta words', 10);"
	                     "INSERT INTO captures VALUES (1, '2026-01-01T00:00:00.000Z', 'c1', 1, NULL, 'http://a/', 1, 0),"
	                     "(2, '2026-01-01T00:00:01.000Z', 'c1', 1, NULL, 'http://b/', 2, 0);"
	                     "INSERT INTO pages_fts(rowid, title, markdown) SELECT id, title, markdown FROM contents;"
	                     "UPDATE meta SET value = 2 WHERE key = 'fts_upto';"
	                     "DELETE FROM captures WHERE id = 2; DELETE FROM contents WHERE id = 2;"
	                     "INSERT INTO contents(hash, title, markdown, bytes) VALUES ('h3', 'Reused', 'zebra crossing', 14);"
	                     "INSERT INTO captures VALUES (3, '2026-01-01T00:00:02.000Z', 'c1', 1, NULL, 'http://z/', "
	                     "(SELECT max(id) FROM contents), 0);"
	                     "PRAGMA user_version=1;",
	                     NULL, NULL, NULL),
		SQLITE_OK);
	ck_assert_int_eq(count_rows("SELECT max(id) FROM contents"), 2); /* the reuse this repairs */
	sqlite3_close(db);
	struct store_opts o = {0, 0, 0};
	char *err = NULL;
	struct store *s = store_open(db_path(), &o, &err);
	ck_assert_msg(s != NULL, "%s", err ? err : "");
	struct store_query q = {"zebra", NULL, 50, 0, 0, 0, 0};
	int bad;
	json_t *h = store_history(s, &q, &bad, &err);
	ck_assert_ptr_nonnull(h);
	ck_assert_int_eq(json_array_size(json_object_get(h, "pages")), 1);
	json_decref(h);
	add(s, "https://example.com/g", "G", "giraffe neck");
	store_flush(s);
	q.q = "giraffe";
	h = store_history(s, &q, &bad, &err);
	ck_assert_int_eq(json_array_size(json_object_get(h, "pages")), 1);
	json_decref(h);
	q.q = "beta";
	h = store_history(s, &q, &bad, &err);
	ck_assert_int_eq(json_array_size(json_object_get(h, "pages")), 0);
	json_decref(h);
	ck_assert_int_gt(last_id, 3);
	store_close(s);
	ck_assert_int_eq(count_rows("PRAGMA user_version"), 4);
	ck_assert_int_gt(count_rows("SELECT id FROM pages WHERE title = 'G'"), 2);
}
END_TEST

/* A page from a given browser and tab at a given time. */
static void
add_at(struct store *s, const char *client, int tab, const char *at, const char *url, const char *title,
       const char *md)
{
	json_t *p = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i}", "url", url, "title", title, "markdown", md, "clientId",
	                      client, "captured_at", at, "tabId", tab);
	store_add_page(s, p, 0, on_page, NULL);
}

static json_t *
history(struct store *s, const char *q, int visits, int recent, long limit, int64_t before)
{
	struct store_query sq = {q, NULL, limit, before, visits, recent, 0};
	int bad = 0;
	char *err = NULL;
	json_t *h = store_history(s, &sq, &bad, &err);
	ck_assert_msg(h != NULL, "%s", err ? err : "");
	return h;
}

static const char *
row_str(json_t *h, size_t i, const char *key)
{
	return json_string_value(json_object_get(json_array_get(json_object_get(h, "pages"), i), key));
}

static int64_t
row_int(json_t *h, size_t i, const char *key)
{
	return json_integer_value(json_object_get(json_array_get(json_object_get(h, "pages"), i), key));
}

/* The full-text index agrees with itself and with the contents table. */
static void
assert_fts_consistent(void)
{
	sqlite3 *db;
	ck_assert_int_eq(open_db(&db), SQLITE_OK);
	char *msg = NULL;
	int rc = sqlite3_exec(db, "INSERT INTO pages_fts(pages_fts) VALUES('integrity-check');"
	                          "INSERT INTO pages_fts(pages_fts, rank) VALUES('integrity-check', 1);",
	                      NULL, NULL, &msg);
	ck_assert_msg(rc == SQLITE_OK, "integrity-check: %s", msg ? msg : "");
	sqlite3_close(db);
	/* No content row without a capture. */
	ck_assert_int_eq(count_rows("SELECT count(*) FROM contents WHERE id NOT IN (SELECT content_id FROM captures)"), 0);
}

/* Consecutive captures of one URL in one tab of one browser are one visit; another tab, another
 * browser or another URL in between start a new one. Newest first, paged by the newest capture. */
START_TEST(visits_grouping)
{
	struct store_opts o = {0, 0, 0};
	char *err = NULL;
	struct store *s = store_open(db_path(), &o, &err);
	ck_assert_ptr_nonnull(s);
	add_at(s, "c1", 3, "2026-01-01T10:00:00.000Z", "https://a.example/", "Home", "home [e1] v1");
	add_at(s, "c1", 3, "2026-01-01T10:01:00.000Z", "https://a.example/", "Home", "home [e5] v2");
	add_at(s, "c1", 3, "2026-01-01T10:02:00.000Z", "https://a.example/", "Home", "home [e9] v3");
	add_at(s, "c1", 4, "2026-01-01T10:03:00.000Z", "https://a.example/", "Home", "home in tab 4");
	add_at(s, "c1", 3, "2026-01-01T10:04:00.000Z", "https://a.example/", "Home", "home [e10] v4");
	add_at(s, "c1", 3, "2026-01-01T10:05:00.000Z", "https://a.example/b", "Bee", "bee page");
	add_at(s, "c1", 3, "2026-01-01T10:06:00.000Z", "https://a.example/", "Home", "home again");
	add_at(s, "c2", 3, "2026-01-01T10:07:00.000Z", "https://a.example/", "Home", "home elsewhere");
	store_flush(s);
	json_t *h = history(s, NULL, 1, 0, 50, 0);
	ck_assert_str_eq(json_string_value(json_object_get(h, "group")), "visits");
	/* c2; c1 tab 3 home again; bee; c1 tab 3 home v1..v4 (tab 4 in between does not split it); tab 4 */
	ck_assert_int_eq(json_array_size(json_object_get(h, "pages")), 5);
	ck_assert_int_eq(row_int(h, 0, "id"), 8);
	ck_assert_int_eq(row_int(h, 1, "id"), 7);
	ck_assert_int_eq(row_int(h, 2, "id"), 6);
	ck_assert_int_eq(row_int(h, 3, "id"), 5);
	ck_assert_int_eq(row_int(h, 3, "captures"), 4);
	ck_assert_int_eq(row_int(h, 3, "visit_id"), 1);
	ck_assert_str_eq(row_str(h, 3, "first_seen"), "2026-01-01T10:00:00.000Z");
	ck_assert_str_eq(row_str(h, 3, "last_seen"), "2026-01-01T10:04:00.000Z");
	ck_assert_str_eq(row_str(h, 3, "snippet"), "home v4"); /* no ref */
	ck_assert_int_eq(row_int(h, 4, "id"), 4);
	ck_assert_int_eq(row_int(h, 4, "captures"), 1);
	json_decref(h);
	/* Paging: two at a time, no visit twice. */
	h = history(s, NULL, 1, 0, 2, 0);
	ck_assert_int_eq(json_array_size(json_object_get(h, "pages")), 2);
	int64_t next = json_integer_value(json_object_get(h, "next_before"));
	ck_assert_int_eq(next, 7);
	json_decref(h);
	h = history(s, NULL, 1, 0, 2, next);
	ck_assert_int_eq(row_int(h, 0, "id"), 6);
	ck_assert_int_eq(row_int(h, 1, "id"), 5);
	json_decref(h);
	/* Single captures, as before. */
	h = history(s, NULL, 0, 0, 50, 0);
	ck_assert_int_eq(json_array_size(json_object_get(h, "pages")), 8);
	json_decref(h);
	store_close(s);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM visits"), 5);
	ck_assert_int_eq(count_rows("SELECT captures FROM visits WHERE id = 1"), 4);
}
END_TEST

/* "invoice": the invoice page ranks first over six later revisits of Home that mention it once
 * (bm25, title weighted above text); sort=recent keeps the old newest-first order. */
START_TEST(search_ranked)
{
	struct store_opts o = {0, 0, 0};
	char *err = NULL;
	struct store *s = store_open(db_path(), &o, &err);
	ck_assert_ptr_nonnull(s);
	add_at(s, "c1", 1, "2026-01-01T10:00:00.000Z", "https://shop.example/invoices/2041", "Invoice 2041",
	       "# Invoice 2041\n\nInvoice number 2041, total 120 EUR. Pay this invoice by March.");
	for (int i = 0; i < 6; i++) {
		char md[300];
		snprintf(md, sizeof md,
		         "# Home\n\nWelcome back [e%d]. Your latest invoice is ready: see [Invoices](https://shop.example/"
		         "invoices) [e%d], orders, settings, profile, help, news and offers for you today.",
		         i * 7 + 1, i * 7 + 2);
		/* Every other revisit from another tab, so they are separate visits too. */
		add_at(s, "c1", 2 + i % 2, "2026-01-01T11:00:00.000Z", "https://shop.example/", "Home", md);
	}
	add_at(s, "c1", 9, "2026-01-01T12:00:00.000Z", "https://shop.example/misc", "Misc notes",
	       "Some words here about nothing in particular, then one invoice mention, and more words after it.");
	add_at(s, "c1", 9, "2026-01-01T12:01:00.000Z", "https://shop.example/report", "Invoice report",
	       "Some words here about nothing in particular, then no mention at all, and more words after that.");
	store_flush(s);
	json_t *h = history(s, "invoice", 0, 0, 50, 0);
	ck_assert_str_eq(json_string_value(json_object_get(h, "sort")), "relevance");
	ck_assert_int_eq(json_array_size(json_object_get(h, "pages")), 9);
	ck_assert_str_eq(row_str(h, 0, "title"), "Invoice 2041");
	/* Title above text: the report (title only) before the notes (one mention in the text). */
	size_t report = 99, misc = 99;
	for (size_t i = 0; i < 9; i++) {
		if (strcmp(row_str(h, i, "title"), "Invoice report") == 0)
			report = i;
		if (strcmp(row_str(h, i, "title"), "Misc notes") == 0)
			misc = i;
	}
	ck_assert_int_lt(report, misc);
	json_decref(h);
	h = history(s, "invoice", 0, 1, 50, 0);
	ck_assert_str_eq(json_string_value(json_object_get(h, "sort")), "recent");
	ck_assert_str_eq(row_str(h, 0, "title"), "Invoice report");
	ck_assert_str_eq(row_str(h, 8, "title"), "Invoice 2041");
	json_decref(h);
	/* Visits: the six Home captures alternate between two tabs; each tab's three are one visit. */
	h = history(s, "invoice", 1, 0, 50, 0);
	ck_assert_str_eq(row_str(h, 0, "title"), "Invoice 2041");
	ck_assert_int_eq(json_array_size(json_object_get(h, "pages")), 5);
	int homes = 0;
	for (size_t i = 0; i < 5; i++)
		if (strcmp(row_str(h, i, "title"), "Home") == 0) {
			ck_assert_int_eq(row_int(h, i, "captures"), 3);
			homes++;
		}
	ck_assert_int_eq(homes, 2);
	/* Paging in relevance order goes by offset. */
	json_decref(h);
	h = history(s, "invoice", 1, 0, 4, 0);
	ck_assert_int_eq(json_integer_value(json_object_get(h, "next_offset")), 4);
	ck_assert(json_is_null(json_object_get(h, "next_before")));
	json_decref(h);
	store_close(s);
}
END_TEST

/* Snippets carry the match marked [like this], without refs, link targets or bare URLs. */
START_TEST(snippet_clean)
{
	struct store_opts o = {0, 0, 0};
	char *err = NULL;
	struct store *s = store_open(db_path(), &o, &err);
	ck_assert_ptr_nonnull(s);
	add(s, "https://x.example/", "Start",
	    "Hello [e12] see [Invoices](https://shop.example/invoices?id=3) [e13] your zanzibar ![logo](http://x/l.png) "
	    "at https://shop.example/pay now [e14] [button \"Pay\" e15] [input text \"Name\" e16]");
	store_flush(s);
	json_t *h = history(s, "zanzibar", 1, 0, 50, 0);
	const char *sn = row_str(h, 0, "snippet");
	ck_assert_ptr_nonnull(sn);
	ck_assert_msg(strstr(sn, "[zanzibar]") != NULL, "%s", sn);
	ck_assert_msg(strstr(sn, "[e1") == NULL, "%s", sn);
	ck_assert_msg(strstr(sn, "](") == NULL, "%s", sn);
	ck_assert_msg(strstr(sn, "http") == NULL, "%s", sn);
	ck_assert_msg(strstr(sn, "Invoices") != NULL, "%s", sn); /* the link text stays */
	json_decref(h);
	h = history(s, NULL, 1, 0, 50, 0);
	sn = row_str(h, 0, "snippet");
	ck_assert_msg(strstr(sn, "[e1") == NULL && strstr(sn, "http") == NULL && strstr(sn, "Hello see Invoices") != NULL,
	              "%s", sn);
	ck_assert_msg(strstr(sn, "e15") == NULL && strstr(sn, "e16") == NULL && strstr(sn, "button \"Pay\"") != NULL, "%s",
	              sn);
	json_decref(h);
	store_close(s);
}
END_TEST

/* A page that may be deleted by the time its callback runs: only that it was stored. */
static void
on_page_stored(json_t *page, int64_t id, const char *error, void *arg)
{
	(void)page;
	(void)arg;
	ck_assert_ptr_null(error);
	ck_assert_int_gt(id, 0);
}

static int64_t removed_n;
static int deletes_done;

static void
on_delete(int64_t removed, const char *error, void *arg)
{
	(void)arg;
	ck_assert_ptr_null(error);
	removed_n = removed;
	deletes_done++;
}

/* Run one deletion to its commit; the number removed. */
static int64_t
del(struct store *s, int64_t id, int visit, const char *url, const char *before)
{
	struct store_delete d = {id, visit, url, before};
	int n = deletes_done;
	store_delete(s, &d, on_delete, NULL);
	store_flush(s);
	ck_assert_int_eq(deletes_done, n + 1);
	return removed_n;
}

/* A capture, a visit, a site (URL prefix), everything before a time: the captures go, contents no
 * capture uses go with their index entries, shared contents stay; the index stays consistent. */
START_TEST(delete_kinds)
{
	struct store_opts o = {0, 0, 0};
	char *err = NULL;
	struct store *s = store_open(db_path(), &o, &err);
	ck_assert_ptr_nonnull(s);
	add_at(s, "c1", 1, "2026-01-01T10:00:00.000Z", "https://a.example/", "A", "apple one");        /* 1 */
	add_at(s, "c1", 1, "2026-01-01T10:01:00.000Z", "https://a.example/", "A", "apple two");        /* 2 */
	add_at(s, "c1", 1, "2026-01-01T10:02:00.000Z", "https://a.example/", "A", "apple three");      /* 3 */
	add_at(s, "c1", 1, "2026-01-02T10:00:00.000Z", "https://b.example/x", "B", "banana shared");   /* 4 */
	add_at(s, "c1", 2, "2026-01-02T10:01:00.000Z", "https://b.example.org/", "B", "banana shared"); /* 5 */
	add_at(s, "c1", 2, "2026-01-03T10:00:00.000Z", "https://c.example/", "C", "cherry");           /* 6 */
	add_at(s, "c1", 2, "2026-01-04T10:00:00.000Z", "https://d.example/", "D", "date");             /* 7 */
	store_flush(s);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM contents"), 6);
	/* One capture. */
	ck_assert_int_eq(del(s, 2, 0, NULL, NULL), 1);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM captures WHERE id = 2"), 0);
	json_t *h = history(s, "two", 0, 0, 50, 0);
	ck_assert_int_eq(json_array_size(json_object_get(h, "pages")), 0);
	json_decref(h);
	assert_fts_consistent();
	ck_assert_int_eq(del(s, 2, 0, NULL, NULL), 0); /* gone already */
	/* Its visit (1 and 3 are left of it). */
	ck_assert_int_eq(del(s, 3, 1, NULL, NULL), 2);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM captures WHERE url = 'https://a.example/'"), 0);
	assert_fts_consistent();
	/* A site: the prefix matches b.example/ only, not b.example.org; the shared content stays. */
	ck_assert_int_eq(del(s, 0, 0, "https://b.example/", NULL), 1);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM contents WHERE markdown = 'banana shared'"), 1);
	h = history(s, "banana", 0, 0, 50, 0);
	ck_assert_int_eq(json_array_size(json_object_get(h, "pages")), 1);
	json_decref(h);
	assert_fts_consistent();
	/* Everything before a time. */
	ck_assert_int_eq(del(s, 0, 0, NULL, "2026-01-04T00:00:00.000Z"), 2);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM captures"), 1);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM contents"), 1);
	h = history(s, "banana OR cherry", 0, 0, 50, 0);
	ck_assert_int_eq(json_array_size(json_object_get(h, "pages")), 0);
	json_decref(h);
	assert_fts_consistent();
	/* A page deleted before it was indexed (possibly in the same transaction): the index stays right. */
	store_add_page(s,
	               json_pack("{s:s, s:s, s:s, s:s, s:s, s:i}", "url", "https://e.example/", "title", "E", "markdown",
	                         "elderberry", "clientId", "c1", "captured_at", "2026-01-05T10:00:00.000Z", "tabId", 5),
	               0, on_page_stored, NULL);
	struct store_delete d = {0, 0, "https://e.example/", NULL};
	store_delete(s, &d, on_delete, NULL);
	store_flush(s);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM captures WHERE url = 'https://e.example/'"), 0);
	assert_fts_consistent();
	/* Both kinds together: a prefix and a time. */
	add_at(s, "c1", 6, "2026-01-06T10:00:00.000Z", "https://d.example/later", "D2", "date later");
	store_flush(s);
	ck_assert_int_eq(del(s, 0, 0, "https://d.example/", "2026-01-05"), 1);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM captures"), 1);
	store_close(s);
	assert_fts_consistent();
}
END_TEST

/* A version-2 file (before visits) is migrated: its captures are grouped into visits and new ones
 * continue them; the index stays consistent. */
START_TEST(migration_from_v2)
{
	struct store_opts o = {0, 0, 0};
	char *err = NULL;
	struct store *s = store_open(db_path(), &o, &err);
	ck_assert_ptr_nonnull(s);
	store_close(s);
	/* Take the file back to version 2's layout, then write rows as version 2 did. */
	shell("DROP VIEW visits; DROP TRIGGER captures_visit; DROP INDEX captures_visit; DROP INDEX IF EXISTS captures_tab;"
	      "ALTER TABLE captures DROP COLUMN visit_id;"
	      "INSERT INTO contents(hash, title, markdown, bytes) VALUES ('h1', 'Home', 'home [e1]', 9),"
	      " ('h2', 'Home', 'home [e2]', 9), ('h3', 'Other', 'other page', 10);"
	      "INSERT INTO pages_fts(rowid, title, markdown) SELECT id, title, markdown FROM contents;"
	      "UPDATE meta SET value = (SELECT max(id) FROM contents) WHERE key = 'fts_upto';"
	      "INSERT INTO captures(captured_at, client_id, tab_id, url, content_id) VALUES"
	      " ('2026-01-01T00:00:00.000Z', 'c1', 3, 'https://h/', 1),"
	      " ('2026-01-01T00:00:01.000Z', 'c1', 3, 'https://h/', 2),"
	      " ('2026-01-01T00:00:02.000Z', 'c1', 3, 'https://o/', 3),"
	      " ('2026-01-01T00:00:03.000Z', 'c1', 3, 'https://h/', 1);"
	      "PRAGMA user_version=2;");
	s = store_open(db_path(), &o, &err);
	ck_assert_msg(s != NULL, "%s", err ? err : "");
	ck_assert_int_eq(count_rows("PRAGMA user_version"), 4);
	json_t *h = history(s, NULL, 1, 0, 50, 0);
	ck_assert_int_eq(json_array_size(json_object_get(h, "pages")), 3);
	ck_assert_int_eq(row_int(h, 2, "captures"), 2);
	json_decref(h);
	/* A new capture of the same URL in the same tab continues the newest visit. */
	add_at(s, "c1", 3, "2026-01-01T00:00:04.000Z", "https://h/", "Home", "home [e3]");
	store_flush(s);
	h = history(s, NULL, 1, 0, 50, 0);
	ck_assert_int_eq(json_array_size(json_object_get(h, "pages")), 3);
	ck_assert_int_eq(row_int(h, 0, "captures"), 2);
	ck_assert_int_eq(row_int(h, 0, "visit_id"), 4);
	json_decref(h);
	ck_assert_int_eq(del(s, 5, 1, NULL, NULL), 2);
	store_close(s);
	assert_fts_consistent();
	ck_assert_int_eq(count_rows("SELECT count(*) FROM visits"), 2);
	/* Rows written by anyone else (a sqlite3 shell) are put in their visit too. */
	shell("INSERT INTO captures(captured_at, client_id, tab_id, url, content_id) "
	      "SELECT '2026-01-02T00:00:00.000Z', client_id, tab_id, url, content_id FROM captures "
	      "ORDER BY id DESC LIMIT 1");
	ck_assert_int_eq(count_rows("SELECT count(*) FROM visits"), 2);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM captures WHERE visit_id IS NULL"), 0);
}
END_TEST

/* Version 3's visit schema: an index by tab and a trigger that finds a tab's previous capture through it. */
static const char *const v3_visits =
	"CREATE INDEX captures_tab ON captures(client_id, tab_id, id);"
	"DROP TRIGGER captures_visit;"
	"CREATE TRIGGER captures_visit AFTER INSERT ON captures WHEN new.visit_id IS NULL BEGIN\n"
	"  UPDATE captures SET visit_id = coalesce(\n"
	"    (SELECT CASE WHEN p.url = new.url THEN p.visit_id END FROM captures p\n"
	"     WHERE p.client_id = new.client_id AND p.tab_id IS new.tab_id AND p.id < new.id\n"
	"     ORDER BY p.id DESC LIMIT 1), new.id) WHERE id = new.id;\n"
	"END;"
	"PRAGMA user_version=3;";

/* A version-3 file (visits found through an index by tab) opens as version 4: the index is gone,
 * the history and its visits are kept, new captures (ours and a sqlite3 shell's) continue them. */
START_TEST(migration_from_v3)
{
	struct store_opts o = {0, 0, 0};
	char *err = NULL;
	struct store *s = store_open(db_path(), &o, &err);
	ck_assert_ptr_nonnull(s);
	store_close(s);
	shell(v3_visits);
	shell("INSERT INTO contents(hash, title, markdown, bytes) VALUES ('h1', 'Home', 'home [e1]', 9),"
	      " ('h2', 'Other', 'other page', 10);"
	      "INSERT INTO captures(captured_at, client_id, tab_id, url, content_id) VALUES"
	      " ('2026-01-01T00:00:00.000Z', 'c1', 3, 'https://h/', 1),"
	      " ('2026-01-01T00:00:01.000Z', 'c1', 3, 'https://h/', 1),"
	      " ('2026-01-01T00:00:02.000Z', 'c1', 4, 'https://o/', 2),"
	      " ('2026-01-01T00:00:03.000Z', 'c1', 3, 'https://o/', 2),"
	      " ('2026-01-01T00:00:04.000Z', 'c1', 4, 'https://o/', 2);");
	ck_assert_int_eq(count_rows("SELECT count(*) FROM visits"), 3);
	s = store_open(db_path(), &o, &err);
	ck_assert_msg(s != NULL, "%s", err ? err : "");
	ck_assert_int_eq(count_rows("PRAGMA user_version"), 4);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM sqlite_master WHERE name = 'captures_tab'"), 0);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM sqlite_master WHERE name = 'captures_visit'"), 2);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM captures"), 5);
	ck_assert_int_eq(count_rows("SELECT captures FROM visits WHERE id = 1"), 2);
	ck_assert_int_eq(count_rows("SELECT captures FROM visits WHERE id = 3"), 2);
	/* Ours: tab 3 shows o/ again (continues visit 4); tab 4 moves to h/ (a new visit). */
	add_at(s, "c1", 3, "2026-01-01T00:00:05.000Z", "https://o/", "Other", "other page");
	add_at(s, "c1", 4, "2026-01-01T00:00:06.000Z", "https://h/", "Home", "home [e1]");
	store_flush(s);
	ck_assert_int_eq(count_rows("SELECT visit_id FROM captures WHERE id = 6"), 4);
	ck_assert_int_eq(count_rows("SELECT visit_id FROM captures WHERE id = 7"), 7);
	store_close(s);
	/* A sqlite3 shell's row: the rewritten trigger puts it in its visit. */
	shell("INSERT INTO captures(captured_at, client_id, tab_id, url, content_id) VALUES "
	      "('2026-01-02T00:00:00.000Z', 'c1', 3, 'https://o/', 2)");
	ck_assert_int_eq(count_rows("SELECT visit_id FROM captures WHERE id = 8"), 4);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM visits"), 4);
	assert_fts_consistent();
}
END_TEST

/* Captures whose visit differs from version 3's rule (the tab's previous capture, however far back,
 * found through an index): each capture continues the visit of its tab's previous capture when
 * that shows the same URL, else starts its own. Checked on a copy indexed by tab. */
static long
old_rule_mismatches(void)
{
	sqlite3 *db;
	ck_assert_int_eq(open_db(&db), SQLITE_OK);
	char *msg = NULL;
	int rc = sqlite3_exec(db,
	                      "CREATE TEMP TABLE t AS SELECT id, client_id, tab_id, url, visit_id FROM captures;"
	                      "CREATE INDEX temp.t_tab ON t(client_id, tab_id, id);",
	                      NULL, NULL, &msg);
	ck_assert_msg(rc == SQLITE_OK, "%s", msg ? msg : "");
	sqlite3_stmt *st;
	ck_assert_int_eq(sqlite3_prepare_v2(db,
	                                    "SELECT count(*) FROM t c WHERE c.visit_id IS NOT coalesce((SELECT CASE WHEN "
	                                    "p.url = c.url THEN p.visit_id END FROM t p WHERE p.client_id = c.client_id "
	                                    "AND p.tab_id IS c.tab_id AND p.id < c.id ORDER BY p.id DESC LIMIT 1), c.id)",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	long n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

/* A page of a browser and tab (tab < 0: the page has no tab id); the content is shared by URL. */
static void
add_tab(struct store *s, const char *client, int tab, const char *url)
{
	json_t *p = json_pack("{s:s, s:s, s:s, s:s, s:s}", "url", url, "title", url, "markdown", url, "clientId", client,
	                      "captured_at", "2026-01-01T00:00:00.000Z");
	if (tab >= 0)
		json_object_set_new(p, "tabId", json_integer(tab));
	store_add_page(s, p, 0, on_page_stored, NULL);
}

/* Pages of a few browsers over tabs, URLs from a small set, in a fixed pseudo-random order. */
static void
add_mixed(struct store *s, unsigned *seed, int n, int tabs)
{
	static const char *const clients[] = {"c1", "c2", "c3"};
	static const char *const urls[] = {"https://a/", "https://b/", "https://c/"};
	for (int i = 0; i < n; i++) {
		*seed = *seed * 1103515245u + 12345u;
		unsigned r = *seed >> 8;
		int tab = r % 17 == 0 ? -1 : (int)(r / 17 % (unsigned)tabs);
		add_tab(s, clients[r / 7 % 3], tab, urls[r / 5 % 3]);
	}
}

/* The tab memory gives the same visits as version 3's index: with tabs it holds, with more tabs than
 * it holds, after a failed batch was rolled back and retried, after another connection wrote, and
 * after a deletion removed a tab's newest capture. */
START_TEST(visits_tab_memory)
{
	char knob[160];
	snprintf(knob, sizeof knob, "%s/max-pages", dir);
	setenv("BB_TEST_MAX_PAGE_COUNT_FILE", knob, 1);
	struct store_opts o = {0, 0, 0};
	char *err = NULL;
	struct store *s = store_open(db_path(), &o, &err);
	unsetenv("BB_TEST_MAX_PAGE_COUNT_FILE");
	ck_assert_ptr_nonnull(s);
	unsigned seed = 7;
	add_mixed(s, &seed, 600, 3);
	store_flush(s);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM captures"), 600);
	add_mixed(s, &seed, 1500, 300); /* 900 tabs: more than memory holds */
	store_flush(s);
	ck_assert_int_eq(old_rule_mismatches(), 0);
	ck_assert_int_lt(count_rows("SELECT count(*) FROM visits"), 2100);

	/* A full disk: small pages of tab 1, then one that cannot fit; all rolled back, retried, stored. */
	FILE *k = fopen(knob, "w");
	ck_assert_ptr_nonnull(k);
	fputs("1\n", k);
	fclose(k);
	char *big = xmalloc(300001);
	memset(big, 'x', 300000);
	big[300000] = '\0';
	add_tab(s, "c1", 1, "https://d/");
	add_tab(s, "c1", 1, "https://d/");
	json_t *p = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i}", "url", "https://e/", "title", "E", "markdown", big,
	                      "clientId", "c1", "captured_at", "2026-01-01T00:00:00.000Z", "tabId", 1);
	free(big);
	store_add_page(s, p, 0, on_page_stored, NULL);
	add_tab(s, "c1", 1, "https://d/");
	free(wait_fault(s, "disk"));
	ck_assert_int_eq(unlink(knob), 0);
	store_flush(s);
	ck_assert_ptr_null(store_fault(s));
	ck_assert_int_eq(count_rows("SELECT count(*) FROM captures"), 2104);
	ck_assert_int_eq(old_rule_mismatches(), 0);

	/* Another connection writes: tab 1 of c1 moves to f/, then ours shows d/ there again. */
	add_tab(s, "c1", 1, "https://d/");
	store_flush(s);
	sqlite3 *db;
	ck_assert_int_eq(open_db(&db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db,
	                              "INSERT INTO captures(captured_at, client_id, tab_id, url, content_id) "
	                              "SELECT captured_at, 'c1', 1, 'https://f/', content_id FROM captures "
	                              "ORDER BY id DESC LIMIT 1",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(db);
	add_tab(s, "c1", 1, "https://d/");
	store_flush(s);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM captures WHERE id = visit_id AND id = (SELECT max(id) FROM "
	                            "captures)"),
	                 1);
	ck_assert_int_eq(old_rule_mismatches(), 0);

	/* A deletion takes tab 1's newest capture (d/, after f/): the next d/ starts a visit of its own,
	 * the next f/ continues f/'s. */
	int64_t newest = count_rows("SELECT max(id) FROM captures");
	ck_assert_int_eq(del(s, newest, 0, NULL, NULL), 1);
	add_tab(s, "c1", 1, "https://f/");
	store_flush(s);
	ck_assert_int_eq(count_rows("SELECT count(*) FROM captures WHERE id > visit_id AND id = (SELECT max(id) FROM "
	                            "captures)"),
	                 1);
	ck_assert_int_eq(old_rule_mismatches(), 0);
	store_close(s);
}
END_TEST

/* Captures of one tab in one order, as fast as the store takes them (identical content). */
static void
add_many(struct store *s, const char *client, int tab, const char *url, int n)
{
	for (int i = 0; i < n; i++)
		add_tab(s, client, tab, url);
	store_flush(s);
}

/* n captures of tab 4 written by another connection at once (in the visit of capture 2). */
static void
bulk_tab4(int n)
{
	sqlite3 *db;
	ck_assert_int_eq(open_db(&db), SQLITE_OK);
	char *sql = xasprintf("WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < %d) "
	                      "INSERT INTO captures(captured_at, client_id, tab_id, url, content_id, visit_id) "
	                      "SELECT captured_at, client_id, tab_id, url, content_id, 2 FROM k, captures WHERE id = 2",
	                      n);
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	ck_assert_msg(rc == SQLITE_OK, "%s", msg ? msg : "");
	free(sql);
	sqlite3_close(db);
}

/* A visit continues only across the last BB_STORE_VISIT_WINDOW captures: from the tab memory, from
 * the lookup (a store just opened remembers no tab) and in the trigger alike. */
START_TEST(visits_window)
{
	struct store_opts o = {0, 0, 0};
	char *err = NULL;
	struct store *s = store_open(db_path(), &o, &err);
	ck_assert_ptr_nonnull(s);
	add_tab(s, "c1", 3, "https://x/");                          /* id 1 */
	add_many(s, "c1", 4, "https://y/", 9999);                   /* ids 2..10000 */
	add_tab(s, "c1", 3, "https://x/");                          /* 10001: 10,000 back, continues */
	add_many(s, "c1", 4, "https://y/", 10000);                  /* ..20001 */
	add_tab(s, "c1", 3, "https://x/");                          /* 20002: 10,001 back, a new visit */
	store_flush(s);
	ck_assert_int_eq(count_rows("SELECT visit_id FROM captures WHERE id = 10001"), 1);
	ck_assert_int_eq(count_rows("SELECT visit_id FROM captures WHERE id = 20002"), 20002);
	add_tab(s, "c1", 5, "https://z/"); /* 20003 */
	store_close(s);
	bulk_tab4(9999); /* ..30002 */
	s = store_open(db_path(), &o, &err);
	ck_assert_ptr_nonnull(s);
	add_tab(s, "c1", 5, "https://z/"); /* 30003: looked up 10,000 back, continues */
	store_close(s);
	bulk_tab4(10000); /* ..40003 */
	s = store_open(db_path(), &o, &err);
	ck_assert_ptr_nonnull(s);
	add_tab(s, "c1", 5, "https://z/"); /* 40004: 10,001 back, a new visit */
	store_close(s);
	ck_assert_int_eq(count_rows("SELECT visit_id FROM captures WHERE id = 30003"), 20003);
	ck_assert_int_eq(count_rows("SELECT visit_id FROM captures WHERE id = 40004"), 40004);
	/* The trigger: a sqlite3 shell's capture of tab 3 (last at 20002, 20,001 back) starts its own. */
	sqlite3 *db;
	ck_assert_int_eq(open_db(&db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db,
	                              "INSERT INTO captures(captured_at, client_id, tab_id, url, content_id) "
	                              "SELECT captured_at, 'c1', 3, 'https://x/', content_id FROM captures WHERE id = 1;"
	                              "INSERT INTO captures(captured_at, client_id, tab_id, url, content_id) "
	                              "SELECT captured_at, 'c1', 5, 'https://z/', content_id FROM captures WHERE id = 1;",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(db);
	ck_assert_int_eq(count_rows("SELECT visit_id FROM captures WHERE id = 40005"), 40005);
	ck_assert_int_eq(count_rows("SELECT visit_id FROM captures WHERE id = 40006"), 40004);
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
	tcase_add_test(tc, write_lock_waits);
	tcase_add_test(tc, disk_full_recovers);
	tcase_add_test(tc, moved_file_noticed);
	tcase_add_test(tc, retention_then_search);
	tcase_add_test(tc, migration_repairs_index);
	tcase_add_test(tc, visits_grouping);
	tcase_add_test(tc, search_ranked);
	tcase_add_test(tc, snippet_clean);
	tcase_add_test(tc, delete_kinds);
	tcase_add_test(tc, migration_from_v2);
	tcase_add_test(tc, migration_from_v3);
	tcase_add_test(tc, visits_tab_memory);
	tcase_add_test(tc, visits_window);
	suite_add_tcase(s, tc);
	return testlib_run(s, 0);
}
