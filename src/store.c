/* store.c -- see store.h. */
#include "autoconfig.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include "limits.h"
#include "log.h"
#include "store.h"
#include "util.h"

#define READERS_MAX 4
#define PRUNE_EVERY_ROWS 1000
#define PRUNE_EVERY_MS 60000

/*
 * The schema, one migration per version. People read this database with the sqlite3 shell, so
 * names are plain, timestamps are ISO 8601 text in UTC, and views answer the common questions.
 */
static const char *const migrations[] = {
	/* 1 */
	"CREATE TABLE pages (\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  captured_at TEXT NOT NULL,\n"
	"  client_id TEXT NOT NULL,\n"
	"  tab_id INTEGER,\n"
	"  request_id TEXT,\n"
	"  url TEXT NOT NULL,\n"
	"  title TEXT NOT NULL,\n"
	"  markdown TEXT NOT NULL,\n"
	"  bytes INTEGER NOT NULL,\n"
	"  truncated INTEGER NOT NULL DEFAULT 0\n"
	");\n"
	"CREATE INDEX pages_captured_at ON pages(captured_at);\n"
	"CREATE INDEX pages_request_id ON pages(request_id) WHERE request_id IS NOT NULL;\n"
	"CREATE VIRTUAL TABLE pages_fts USING fts5(title, markdown, content='pages', content_rowid='id',\n"
	"  tokenize='unicode61 remove_diacritics 2');\n"
	"CREATE TRIGGER pages_fts_insert AFTER INSERT ON pages BEGIN\n"
	"  INSERT INTO pages_fts(rowid, title, markdown) VALUES (new.id, new.title, new.markdown);\n"
	"END;\n"
	"CREATE TRIGGER pages_fts_delete AFTER DELETE ON pages BEGIN\n"
	"  INSERT INTO pages_fts(pages_fts, rowid, title, markdown)\n"
	"    VALUES ('delete', old.id, old.title, old.markdown);\n"
	"END;\n"
	"CREATE TABLE commands (\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  request_id TEXT NOT NULL UNIQUE,\n"
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
	"CREATE INDEX commands_started_at ON commands(started_at);\n"
	"CREATE VIEW recent_pages AS\n"
	"  SELECT id, captured_at, url, title, bytes FROM pages ORDER BY id DESC;\n"
	"CREATE VIEW calls AS\n"
	"  SELECT c.id, c.started_at, c.tool, c.status, c.duration_ms, c.summary, p.url AS page_url,\n"
	"         c.page_id, c.error\n"
	"  FROM commands c LEFT JOIN pages p ON p.id = c.page_id ORDER BY c.id DESC;\n"
	"CREATE VIEW sites AS\n"
	"  SELECT CASE WHEN instr(substr(url, instr(url, '//') + 2), '/') > 0\n"
	"    THEN substr(url, 1, instr(url, '//') + instr(substr(url, instr(url, '//') + 2), '/'))\n"
	"    ELSE url END AS site,\n"
	"         count(*) AS pages, max(captured_at) AS last_seen\n"
	"  FROM pages GROUP BY site ORDER BY pages DESC;\n",
};

enum item_kind { ITEM_PAGE, ITEM_COMMAND };

struct item {
	struct item *next;
	enum item_kind kind;
	json_t *data;
	store_page_fn done;
	void *arg;
	int64_t id;
};

struct store {
	char *path;
	struct store_opts opts;
	sqlite3 *db; /* the writer: store thread only once it runs */
	sqlite3_stmt *ins_page, *ins_cmd;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_cond_t idle;
	struct item *head, *tail;
	int stopping;
	int busy;
	long since_prune;
	int64_t last_prune;
	sqlite3 *readers[READERS_MAX];
	int n_readers;
};

/* Run SQL that returns no rows; logs and returns -1 on error. */
static int
exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		log_error("sqlite: %s", msg ? msg : "error");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* Open a connection with the settings every connection needs. */
static sqlite3 *
open_conn(const char *path, int sync_full, char **err)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		*err = xasprintf("cannot open database %s: %s", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, 5000);
	if (exec(db, "PRAGMA journal_mode=WAL") != 0 ||
	    exec(db, sync_full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL") != 0 ||
	    exec(db, "PRAGMA foreign_keys=ON") != 0) {
		*err = xasprintf("cannot set up database %s: %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

/* Bring the schema up to the newest version, one transaction per migration. */
static int
migrate(sqlite3 *db, char **err)
{
	sqlite3_stmt *st;
	int version = 0;
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	int newest = (int)(sizeof migrations / sizeof migrations[0]);
	if (version > newest) {
		*err = xasprintf("the database has schema version %d, newer than this program knows (%d)", version,
		                 newest);
		return -1;
	}
	for (int v = version; v < newest; v++) {
		char *sql = xasprintf("BEGIN;\n%s\nPRAGMA user_version=%d;\nCOMMIT;", migrations[v], v + 1);
		int rc = exec(db, sql);
		free(sql);
		if (rc != 0) {
			exec(db, "ROLLBACK");
			*err = xasprintf("database migration to version %d failed: %s", v + 1, sqlite3_errmsg(db));
			return -1;
		}
		log_info("database schema migrated to version %d", v + 1);
	}
	return 0;
}

/* Bind a string member of a JSON object, or NULL when it is absent. */
static void
bind_json_str(sqlite3_stmt *st, int i, json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (json_is_string(v))
		sqlite3_bind_text(st, i, json_string_value(v), (int)json_string_length(v), SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

/* Bind an integer member, or NULL. */
static void
bind_json_int(sqlite3_stmt *st, int i, json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (json_is_integer(v))
		sqlite3_bind_int64(st, i, json_integer_value(v));
	else
		sqlite3_bind_null(st, i);
}

/* Insert one queued row with the prepared statements; returns the row id or -1. */
static int64_t
write_item(struct store *s, struct item *it)
{
	sqlite3_stmt *st;
	json_t *d = it->data;
	if (it->kind == ITEM_PAGE) {
		st = s->ins_page;
		json_t *md = json_object_get(d, "markdown");
		bind_json_str(st, 1, d, "captured_at");
		bind_json_str(st, 2, d, "clientId");
		bind_json_int(st, 3, d, "tabId");
		bind_json_str(st, 4, d, "requestId");
		bind_json_str(st, 5, d, "url");
		bind_json_str(st, 6, d, "title");
		bind_json_str(st, 7, d, "markdown");
		sqlite3_bind_int64(st, 8, (sqlite3_int64)json_string_length(md));
		sqlite3_bind_int(st, 9, json_is_true(json_object_get(d, "truncated")));
	} else {
		st = s->ins_cmd;
		char *params = json_dumps(json_object_get(d, "params"), JSON_COMPACT);
		bind_json_str(st, 1, d, "request_id");
		bind_json_str(st, 2, d, "tool");
		bind_json_str(st, 3, d, "command");
		bind_json_str(st, 4, d, "client_id");
		sqlite3_bind_text(st, 5, params ? params : "{}", -1, SQLITE_TRANSIENT);
		free(params);
		bind_json_str(st, 6, d, "status");
		bind_json_int(st, 7, d, "http_status");
		bind_json_str(st, 8, d, "message");
		bind_json_str(st, 9, d, "error");
		bind_json_str(st, 10, d, "summary");
		bind_json_int(st, 11, d, "history_id");
		bind_json_str(st, 12, d, "started_at");
		bind_json_str(st, 13, d, "finished_at");
		bind_json_int(st, 14, d, "duration_ms");
	}
	int rc = sqlite3_step(st);
	int64_t id = rc == SQLITE_DONE ? sqlite3_last_insert_rowid(s->db) : -1;
	if (rc != SQLITE_DONE)
		log_error("sqlite insert: %s", sqlite3_errmsg(s->db));
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return id;
}

/* Apply the retention limits; runs on the store thread after enough inserts or time. */
static void
prune(struct store *s)
{
	char sql[512];
	if (s->opts.retention_days > 0) {
		char cutoff[32];
		util_iso8601(util_now_ms() - (int64_t)s->opts.retention_days * 86400000, cutoff);
		snprintf(sql, sizeof sql,
		         "DELETE FROM pages WHERE captured_at < '%s'; DELETE FROM commands WHERE started_at < '%s';",
		         cutoff, cutoff);
		exec(s->db, sql);
	}
	if (s->opts.retention_pages > 0) {
		snprintf(sql, sizeof sql,
		         "DELETE FROM pages WHERE id <= (SELECT id FROM pages ORDER BY id DESC LIMIT 1 OFFSET %ld);"
		         "DELETE FROM commands WHERE id <= (SELECT id FROM commands ORDER BY id DESC LIMIT 1 OFFSET %ld);",
		         s->opts.retention_pages, s->opts.retention_pages);
		exec(s->db, sql);
	}
	s->since_prune = 0;
	s->last_prune = util_mono_ms();
}

/* The store thread: wait for rows, write each batch in one transaction, then acknowledge pages. */
static void *
store_main(void *arg)
{
	struct store *s = arg;
	for (;;) {
		pthread_mutex_lock(&s->lock);
		while (s->head == NULL && !s->stopping)
			pthread_cond_wait(&s->cond, &s->lock);
		if (s->head == NULL && s->stopping) {
			pthread_mutex_unlock(&s->lock);
			break;
		}
		struct item *batch = s->head, *last = s->head;
		int n = 1;
		while (last->next != NULL && n < BB_STORE_BATCH_MAX) {
			last = last->next;
			n++;
		}
		s->head = last->next;
		if (s->head == NULL)
			s->tail = NULL;
		last->next = NULL;
		s->busy = 1;
		pthread_mutex_unlock(&s->lock);

		exec(s->db, "BEGIN");
		for (struct item *it = batch; it != NULL; it = it->next)
			it->id = write_item(s, it);
		if (exec(s->db, "COMMIT") != 0)
			exec(s->db, "ROLLBACK");
		for (struct item *it = batch, *nx; it != NULL; it = nx) {
			nx = it->next;
			if (it->kind == ITEM_PAGE) {
				s->since_prune++;
				if (it->id > 0)
					json_object_set_new(it->data, "history_id", json_integer(it->id));
				if (it->done != NULL)
					it->done(it->data, it->id, it->arg);
			}
			json_decref(it->data);
			free(it);
		}
		if (s->since_prune >= PRUNE_EVERY_ROWS ||
		    (s->since_prune > 0 && util_mono_ms() - s->last_prune > PRUNE_EVERY_MS))
			prune(s);
		pthread_mutex_lock(&s->lock);
		s->busy = 0;
		if (s->head == NULL)
			pthread_cond_broadcast(&s->idle);
		pthread_mutex_unlock(&s->lock);
	}
	return NULL;
}

/* Open (creating and migrating) the database and start the store thread. */
struct store *
store_open(const char *path, const struct store_opts *opts, char **err)
{
	struct store *s = xcalloc(1, sizeof *s);
	s->path = xstrdup(path);
	s->opts = *opts;
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash != NULL && slash != dir) {
		*slash = '\0';
		util_mkdirs(dir, 0700);
	}
	free(dir);
	s->db = open_conn(path, opts->sync_full, err);
	if (s->db == NULL)
		goto fail;
	chmod(path, 0600);
	if (migrate(s->db, err) != 0)
		goto fail;
	if (sqlite3_prepare_v2(s->db,
	                       "INSERT INTO pages(captured_at, client_id, tab_id, request_id, url, title, markdown, "
	                       "bytes, truncated) VALUES (?,?,?,?,?,?,?,?,?)",
	                       -1, &s->ins_page, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db,
	                       "INSERT OR REPLACE INTO commands(request_id, tool, command, client_id, params, status, "
	                       "http_status, message, error, summary, page_id, started_at, finished_at, duration_ms) "
	                       "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	                       -1, &s->ins_cmd, NULL) != SQLITE_OK) {
		*err = xasprintf("cannot prepare statements: %s", sqlite3_errmsg(s->db));
		goto fail;
	}
	prune(s);
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	pthread_cond_init(&s->idle, NULL);
	if (pthread_create(&s->thread, NULL, store_main, s) != 0) {
		*err = xasprintf("cannot start the store thread");
		goto fail;
	}
	return s;
fail:
	sqlite3_finalize(s->ins_page);
	sqlite3_finalize(s->ins_cmd);
	sqlite3_close(s->db);
	free(s->path);
	free(s);
	return NULL;
}

/* Write everything still queued, stop the thread and close every connection cleanly. NULL is fine. */
void
store_close(struct store *s)
{
	if (s == NULL)
		return;
	pthread_mutex_lock(&s->lock);
	s->stopping = 1;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	sqlite3_finalize(s->ins_page);
	sqlite3_finalize(s->ins_cmd);
	exec(s->db, "PRAGMA optimize");
	sqlite3_close(s->db);
	for (int i = 0; i < s->n_readers; i++)
		sqlite3_close(s->readers[i]);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	pthread_cond_destroy(&s->idle);
	free(s->path);
	free(s);
}

/* Queue a row and wake the store thread. */
static void
enqueue(struct store *s, enum item_kind kind, json_t *data, store_page_fn done, void *arg)
{
	struct item *it = xcalloc(1, sizeof *it);
	it->kind = kind;
	it->data = data;
	it->done = done;
	it->arg = arg;
	pthread_mutex_lock(&s->lock);
	if (s->tail != NULL)
		s->tail->next = it;
	else
		s->head = it;
	s->tail = it;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

/* Queue a page (stolen); done runs on the store thread after it is committed. */
void
store_add_page(struct store *s, json_t *page, store_page_fn done, void *arg)
{
	enqueue(s, ITEM_PAGE, page, done, arg);
}

/* Queue a tool-call record (stolen). */
void
store_add_command(struct store *s, json_t *record)
{
	enqueue(s, ITEM_COMMAND, record, NULL, NULL);
}

/* Wait until everything queued so far is committed (tests, shutdown ordering). */
void
store_flush(struct store *s)
{
	pthread_mutex_lock(&s->lock);
	while (s->head != NULL || s->busy)
		pthread_cond_wait(&s->idle, &s->lock);
	pthread_mutex_unlock(&s->lock);
}

/* The database file's path. */
const char *
store_path(const struct store *s)
{
	return s->path;
}

/* Take a read connection from the pool, opening one when none is free. */
static sqlite3 *
reader_get(struct store *s)
{
	sqlite3 *db = NULL;
	pthread_mutex_lock(&s->lock);
	if (s->n_readers > 0)
		db = s->readers[--s->n_readers];
	pthread_mutex_unlock(&s->lock);
	if (db == NULL) {
		char *err = NULL;
		db = open_conn(s->path, 0, &err);
		if (db == NULL) {
			log_error("%s", err);
			free(err);
			return NULL;
		}
		exec(db, "PRAGMA query_only=ON");
	}
	return db;
}

/* Return a read connection to the pool (or close it when the pool is full). */
static void
reader_put(struct store *s, sqlite3 *db)
{
	pthread_mutex_lock(&s->lock);
	if (s->n_readers < READERS_MAX) {
		s->readers[s->n_readers++] = db;
		db = NULL;
	}
	pthread_mutex_unlock(&s->lock);
	sqlite3_close(db);
}

/* Column value as a JSON string, or null. */
static json_t *
col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? json_stringn((const char *)t, (size_t)sqlite3_column_bytes(st, i)) : json_null();
}

/* Column value as a JSON integer, or null. */
static json_t *
col_int(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? json_null() : json_integer(sqlite3_column_int64(st, i));
}

/* A page summary row (the columns every listing shares). */
static json_t *
page_row(sqlite3_stmt *st)
{
	json_t *o = json_object();
	json_object_set_new(o, "id", col_int(st, 0));
	json_object_set_new(o, "captured_at", col_str(st, 1));
	json_object_set_new(o, "client_id", col_str(st, 2));
	json_object_set_new(o, "tab_id", col_int(st, 3));
	json_object_set_new(o, "request_id", col_str(st, 4));
	json_object_set_new(o, "url", col_str(st, 5));
	json_object_set_new(o, "title", col_str(st, 6));
	json_object_set_new(o, "bytes", col_int(st, 7));
	return o;
}

/* Turn free text into an FTS5 query of quoted terms, for input that is not valid FTS5 syntax. */
static char *
quote_terms(const char *q)
{
	struct buf b = {0};
	const char *p = q;
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		size_t n = strcspn(p, " ");
		buf_adds(&b, b.len ? " \"" : "\"");
		for (size_t i = 0; i < n; i++) {
			if (p[i] == '"')
				buf_add(&b, "\"\"", 2);
			else
				buf_add(&b, p + i, 1);
		}
		buf_adds(&b, "\"");
		p += n;
	}
	return buf_steal(&b);
}

/* Run the history listing once with a given FTS query string; -1 on an SQL error. */
static int
history_run(sqlite3 *db, const struct store_query *q, const char *match, json_t *pages, char **err)
{
	static const char *const with_q =
		"SELECT p.id, p.captured_at, p.client_id, p.tab_id, p.request_id, p.url, p.title, p.bytes, "
		"snippet(pages_fts, 1, '[', ']', '…', 16) FROM pages_fts JOIN pages p ON p.id = pages_fts.rowid "
		"WHERE pages_fts MATCH ?1 AND (?2 IS NULL OR instr(p.url, ?2) > 0) AND (?3 = 0 OR pages_fts.rowid < ?3) "
		"ORDER BY pages_fts.rowid DESC LIMIT ?4";
	static const char *const without_q =
		"SELECT id, captured_at, client_id, tab_id, request_id, url, title, bytes, NULL FROM pages "
		"WHERE (?2 IS NULL OR instr(url, ?2) > 0) AND (?3 = 0 OR id < ?3) ORDER BY id DESC LIMIT ?4";
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, match ? with_q : without_q, -1, &st, NULL) != SQLITE_OK) {
		*err = xstrdup(sqlite3_errmsg(db));
		return -1;
	}
	if (match)
		sqlite3_bind_text(st, 1, match, -1, SQLITE_STATIC);
	if (q->url)
		sqlite3_bind_text(st, 2, q->url, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, q->before);
	sqlite3_bind_int64(st, 4, q->limit);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *o = page_row(st);
		if (match)
			json_object_set_new(o, "snippet", col_str(st, 8));
		json_array_append_new(pages, o);
	}
	if (rc != SQLITE_DONE) {
		*err = xstrdup(sqlite3_errmsg(db));
		json_array_clear(pages);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* List pages newest first, optionally full-text searched and filtered by URL. */
json_t *
store_history(struct store *s, const struct store_query *q, int *bad_query, char **err)
{
	*bad_query = 0;
	sqlite3 *db = reader_get(s);
	if (db == NULL) {
		*err = xstrdup("the database cannot be opened");
		return NULL;
	}
	json_t *pages = json_array();
	const char *match = (q->q && *q->q) ? q->q : NULL;
	int rc = history_run(db, q, match, pages, err);
	if (rc != 0 && match != NULL) {
		/* Not valid FTS5 syntax (e.g. "example.com"): search the words as quoted terms instead. */
		free(*err);
		*err = NULL;
		char *quoted = quote_terms(match);
		rc = history_run(db, q, quoted, pages, err);
		free(quoted);
		if (rc != 0)
			*bad_query = 1;
	}
	reader_put(s, db);
	if (rc != 0) {
		json_decref(pages);
		return NULL;
	}
	json_t *out = json_object();
	size_t n = json_array_size(pages);
	json_t *next = json_null();
	if (n > 0 && (long)n == q->limit)
		next = json_incref(json_object_get(json_array_get(pages, n - 1), "id"));
	json_object_set_new(out, "pages", pages);
	json_object_set_new(out, "next_before", next);
	return out;
}

/* One page with its Markdown, or NULL when there is no such id. */
json_t *
store_page(struct store *s, int64_t id)
{
	sqlite3 *db = reader_get(s);
	if (db == NULL)
		return NULL;
	sqlite3_stmt *st;
	json_t *o = NULL;
	if (sqlite3_prepare_v2(db,
	                       "SELECT id, captured_at, client_id, tab_id, request_id, url, title, bytes, markdown, "
	                       "truncated FROM pages WHERE id = ?",
	                       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) == SQLITE_ROW) {
			o = page_row(st);
			json_object_set_new(o, "markdown", col_str(st, 8));
			json_object_set_new(o, "truncated", json_boolean(sqlite3_column_int(st, 9)));
		}
		sqlite3_finalize(st);
	}
	reader_put(s, db);
	return o;
}

/* Logged tool calls, newest first. */
json_t *
store_commands(struct store *s, long limit, int64_t before)
{
	sqlite3 *db = reader_get(s);
	if (db == NULL)
		return NULL;
	json_t *arr = json_array();
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db,
	                       "SELECT id, request_id, tool, command, client_id, params, status, http_status, message, "
	                       "error, summary, page_id, started_at, finished_at, duration_ms FROM commands "
	                       "WHERE (?1 = 0 OR id < ?1) ORDER BY id DESC LIMIT ?2",
	                       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, before);
		sqlite3_bind_int64(st, 2, limit);
		static const char *const names[] = {"id", "request_id", "tool", "command", "client_id",
		                                    "params", "status", "http_status", "message", "error",
		                                    "summary", "history_id", "started_at", "finished_at",
		                                    "duration_ms"};
		while (sqlite3_step(st) == SQLITE_ROW) {
			json_t *o = json_object();
			for (int i = 0; i < 15; i++) {
				json_t *v;
				if (i == 5) {
					v = json_loads((const char *)sqlite3_column_text(st, 5), 0, NULL);
					if (v == NULL)
						v = json_null();
				} else if (sqlite3_column_type(st, i) == SQLITE_INTEGER) {
					v = col_int(st, i);
				} else {
					v = col_str(st, i);
				}
				json_object_set_new(o, names[i], v);
			}
			json_array_append_new(arr, o);
		}
		sqlite3_finalize(st);
	}
	reader_put(s, db);
	json_t *out = json_object();
	json_object_set_new(out, "commands", arr);
	return out;
}

/* Counts and size, for /api/status. */
json_t *
store_stats(struct store *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "path", json_string(s->path));
	sqlite3 *db = reader_get(s);
	if (db == NULL)
		return o;
	static const char *const q[] = {"SELECT count(*) FROM pages", "SELECT count(*) FROM commands",
	                                "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()"};
	static const char *const k[] = {"pages", "commands", "bytes"};
	for (int i = 0; i < 3; i++) {
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(db, q[i], -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
			json_object_set_new(o, k[i], json_integer(sqlite3_column_int64(st, 0)));
		sqlite3_finalize(st);
	}
	reader_put(s, db);
	return o;
}
