/* store.c -- see store.h. */
#include "autoconfig.h"

#include <malloc.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "limits.h"
#include "log.h"
#include "store.h"
#include "jsonio.h"
#include "util.h"

#define READERS_MAX 4
#define WRITER_BUSY_MS 50   /* the writer's own busy wait per attempt; the retry loop does the rest */
#define READER_NICE 10        /* history reads run at a lower priority than calls */
#define FAULT_LOG_AFTER_MS 1000 /* a fault shorter than this (a checkpoint's moment) is not logged */
#define PRUNE_EVERY_ROWS 1000
#define PRUNE_EVERY_MS 60000
#define INDEX_BATCH 1000
#define COMMAND_LINGER_MS 50
#define CHECKPOINT_FRAMES 1000
#define CHECKPOINT_RESTART_FRAMES 16384

/*
 * The schema, one migration per version. People read this database with the sqlite3 shell, so
 * names are plain, timestamps are ISO 8601 text in UTC, and views answer the common questions.
 */
static const char *const migrations[] = {
	/* 1 */
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
	"  FROM captures GROUP BY site ORDER BY pages DESC;\n",
	/* 2: content ids are never reused (AUTOINCREMENT). Before, pruning the newest contents let their
	 * ids come back below meta.fts_upto: new pages were never indexed and the delete trigger broke
	 * the index ("database disk image is malformed"). The table is rebuilt, the sequence starts
	 * above every id ever indexed, and the full-text index is rebuilt from scratch. Runs with
	 * foreign keys off (see migrate). */
	"DROP VIEW recent_pages;\n"
	"DROP VIEW pages;\n"
	"CREATE TABLE contents_v2 (\n"
	"  id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
	"  hash TEXT NOT NULL UNIQUE,\n"
	"  title TEXT NOT NULL,\n"
	"  markdown TEXT NOT NULL,\n"
	"  bytes INTEGER NOT NULL\n"
	");\n"
	"INSERT INTO contents_v2(id, hash, title, markdown, bytes) SELECT id, hash, title, markdown, bytes FROM contents;\n"
	"DROP TABLE contents;\n"
	"ALTER TABLE contents_v2 RENAME TO contents;\n"
	"INSERT INTO sqlite_sequence(name, seq) SELECT 'contents', 0 WHERE NOT EXISTS\n"
	"  (SELECT 1 FROM sqlite_sequence WHERE name = 'contents');\n"
	"UPDATE sqlite_sequence SET seq = max(seq, coalesce((SELECT max(id) FROM contents), 0),\n"
	"  coalesce((SELECT value FROM meta WHERE key = 'fts_upto'), 0)) WHERE name = 'contents';\n"
	"CREATE VIEW pages AS\n"
	"  SELECT c.id, c.captured_at, c.client_id, c.tab_id, c.request_id, c.url, k.title, k.markdown, k.bytes,\n"
	"         c.truncated, c.content_id\n"
	"  FROM captures c JOIN contents k ON k.id = c.content_id;\n"
	"CREATE VIEW recent_pages AS\n"
	"  SELECT id, captured_at, url, title, bytes FROM pages ORDER BY id DESC;\n"
	"INSERT INTO pages_fts(pages_fts) VALUES ('rebuild');\n"
	"UPDATE meta SET value = coalesce((SELECT max(id) FROM contents), 0) WHERE key = 'fts_upto';\n"
	"CREATE TRIGGER contents_fts_delete AFTER DELETE ON contents\n"
	"  WHEN old.id <= (SELECT value FROM meta WHERE key = 'fts_upto') BEGIN\n"
	"  INSERT INTO pages_fts(pages_fts, rowid, title, markdown)\n"
	"    VALUES ('delete', old.id, old.title, old.markdown);\n"
	"END;\n",
	/* 3: visits. A revisit of a page differs only in its ref numbers, so lists were flooded with
	 * copies: consecutive captures of one URL in one tab of one browser form a visit, named by the
	 * id of its first capture (captures.visit_id, set by a trigger when a capture is written).
	 * Existing rows are grouped here the same way. */
	"ALTER TABLE captures ADD COLUMN visit_id INTEGER;\n"
	"CREATE TEMP TABLE visit_map (id INTEGER PRIMARY KEY, vid INTEGER);\n"
	"INSERT INTO visit_map\n"
	"  SELECT id, max(start) OVER (PARTITION BY client_id, tab_id ORDER BY id) FROM\n"
	"  (SELECT id, client_id, tab_id,\n"
	"     CASE WHEN url IS lag(url) OVER (PARTITION BY client_id, tab_id ORDER BY id) THEN NULL ELSE id END\n"
	"       AS start FROM captures);\n"
	"UPDATE captures SET visit_id = (SELECT vid FROM visit_map WHERE visit_map.id = captures.id);\n"
	"DROP TABLE visit_map;\n"
	"CREATE INDEX captures_visit ON captures(visit_id, id);\n"
	"CREATE INDEX captures_tab ON captures(client_id, tab_id, id);\n"
	/* A trigger, not the daemon's code, so rows written by anyone (a sqlite3 shell import) get one too. */
	"CREATE TRIGGER captures_visit AFTER INSERT ON captures WHEN new.visit_id IS NULL BEGIN\n"
	"  UPDATE captures SET visit_id = coalesce(\n"
	"    (SELECT CASE WHEN p.url = new.url THEN p.visit_id END FROM captures p\n"
	"     WHERE p.client_id = new.client_id AND p.tab_id IS new.tab_id AND p.id < new.id\n"
	"     ORDER BY p.id DESC LIMIT 1), new.id) WHERE id = new.id;\n"
	"END;\n"
	"CREATE VIEW visits AS\n"
	"  SELECT c.visit_id AS id, min(c.captured_at) AS first_seen, max(c.captured_at) AS last_seen,\n"
	"         count(*) AS captures, c.client_id, c.tab_id, c.url,\n"
	"         (SELECT k.title FROM captures l JOIN contents k ON k.id = l.content_id\n"
	"          WHERE l.visit_id = c.visit_id ORDER BY l.id DESC LIMIT 1) AS title,\n"
	"         max(c.id) AS last_capture\n"
	"  FROM captures c GROUP BY c.visit_id ORDER BY max(c.id) DESC;\n",
	/* 4: no index by tab. captures_tab was there only to find a tab's previous capture, and every
	 * capture paid for it on the path of every call (one more WAL page per commit). The store thread
	 * keeps each tab's newest capture in memory (struct tab_memory) and otherwise looks back at most
	 * BB_STORE_VISIT_WINDOW captures by id; the trigger, for rows written by others, looks back the
	 * same way. captures_visit stays: listing visits needs it. */
	"DROP INDEX IF EXISTS captures_tab;\n"
	"DROP TRIGGER IF EXISTS captures_visit;\n"
	"CREATE TRIGGER captures_visit AFTER INSERT ON captures WHEN new.visit_id IS NULL BEGIN\n"
	"  UPDATE captures SET visit_id = coalesce(\n"
	"    (SELECT CASE WHEN p.url = new.url THEN p.visit_id END FROM captures p\n"
	"     WHERE p.id < new.id AND p.id >= new.id - " BB_STR(BB_STORE_VISIT_WINDOW) "\n"
	"       AND p.client_id = new.client_id AND p.tab_id IS new.tab_id\n"
	"     ORDER BY p.id DESC LIMIT 1), new.id) WHERE id = new.id;\n"
	"END;\n",
};

enum item_kind { ITEM_PAGE, ITEM_COMMAND, ITEM_DELETE };

struct item {
	struct item *next;
	enum item_kind kind;
	json_t *data;
	store_page_fn done;
	store_delete_fn del_done; /* ITEM_DELETE */
	void *arg;
	int64_t id;
	int64_t removed;    /* ITEM_DELETE: captures deleted */
	int64_t keep_until; /* monotonic ms: retried at least until then, given up after */
	char *error;        /* this row alone cannot be stored (a constraint): why */
};

/* Why writes fail right now (store thread; the text is copied under the lock for store_fault). */
enum fault { FAULT_NONE, FAULT_LOCKED, FAULT_FULL, FAULT_MOVED, FAULT_READONLY, FAULT_OTHER };

/* The newest capture of one tab of one browser, as the store thread last wrote it (or looked it up):
 * what the next capture of that tab needs to know whether it continues the visit. */
struct tab_memory {
	char *client_id;  /* NULL: a free slot */
	int has_tab;      /* the page had a tabId (NULL tab ids form one tab per browser, as in SQL) */
	int64_t tab_id;
	int64_t last_id;  /* the capture's id */
	int64_t visit_id;
	char *url;
};

/* A function to run on a reader thread (store_submit). */
struct job {
	struct job *next;
	void (*fn)(void *arg);
	void *arg;
};

struct store {
	char *path;
	struct store_opts opts;
	sqlite3 *db; /* the writer: store thread only once it runs */
	sqlite3_stmt *find_content, *ins_content, *ins_capture, *ins_cmd;
	sqlite3_stmt *find_tab;     /* a tab's newest capture within the visit window */
	sqlite3_stmt *data_version; /* PRAGMA data_version: did another connection write? */
	sqlite3_stmt *begin, *commit, *rollback; /* prepared once: parsing them cost every commit */
	int64_t seen_version;
	struct tab_memory tabs[BB_STORE_TAB_CACHE]; /* store thread only */
	int64_t fts_upto;   /* contents with a larger id are not in pages_fts yet */
	long unindexed;     /* contents written since the last indexing pass */
	int wal_frames;     /* frames in the WAL, from the WAL hook */
	int ckpt_asked_at;  /* wal_frames when the checkpointer was last asked */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_cond_t idle;
	struct item *head, *tail;
	size_t n_queued;    /* items in the queue */
	size_t pages_queued; /* of which pages and deletions: someone is waiting for those */
	size_t bytes_queued; /* Markdown bytes of the queued pages, for backpressure (changed under the
	                      * lock, atomically, so store_backlog reads it without) */
	int sleeping;        /* the store thread waits on cond: only then is a signal needed */
	int stopping;
	int busy;
	long since_prune;
	int64_t last_prune;
	sqlite3 *readers[READERS_MAX];
	int n_readers;
	/* The checkpointer: its own thread and connection, so a checkpoint never delays an acknowledgement. */
	pthread_t ckpt_thread;
	pthread_cond_t ckpt_cond;
	int ckpt_wanted;
	int ckpt_started;
	int ckpt_restart;    /* the log is long: start it over once it is all copied */
	int64_t held_since;  /* checkpointer: monotonic ms since a reader keeps the WAL from being copied */
	int held_logged;
	/* Faults: the store thread decides, store_fault reads fault_text under the lock. */
	dev_t dev;
	ino_t ino;
	enum fault fault;
	int64_t fault_since;
	int fault_logged;
	char fault_text[300];
	long given_up_pages, given_up_rows; /* rows given up during this fault, for one log line */
	int lost;            /* something was given up or the last checkpoint failed: not a clean stop */
	char *test_max_pages_file; /* BB_TEST_MAX_PAGE_COUNT_FILE: tests simulate a full disk with it */
	long test_max_pages;
	/* Reader threads for store_submit. */
	pthread_t rthreads[BB_STORE_READ_THREADS];
	int n_rthreads;
	pthread_cond_t jcond;
	struct job *jhead, *jtail;
	int jstopping;
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

enum conn_role { CONN_WRITER, CONN_CHECKPOINTER, CONN_READER };

/* Open a connection with the settings its role needs. Only the writer may create the file; the
 * others fail on a missing file rather than make a new empty one. Errors carry the system's reason. */
static sqlite3 *
open_conn(const char *path, enum conn_role role, int sync_full, char **err)
{
	sqlite3 *db = NULL;
	int flags = SQLITE_OPEN_NOMUTEX;
	if (role == CONN_WRITER)
		flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	else if (role == CONN_CHECKPOINTER)
		flags |= SQLITE_OPEN_READWRITE;
	else
		flags |= SQLITE_OPEN_READONLY;
	int rc = sqlite3_open_v2(path, &db, flags, NULL);
	if (rc != SQLITE_OK) {
		int e = db ? sqlite3_system_errno(db) : 0;
		*err = xasprintf("cannot open the history database %s: %s%s%s%s", path,
		                 db ? sqlite3_errmsg(db) : sqlite3_errstr(rc), e ? " (" : "", e ? strerror(e) : "",
		                 e ? ")" : "");
		sqlite3_close(db);
		return NULL;
	}
	if (role != CONN_READER && sqlite3_db_readonly(db, "main") == 1) {
		/* SQLite quietly falls back to read-only; every write would then fail. Say so now. */
		int e = access(path, W_OK) != 0 ? errno : EACCES;
		*err = xasprintf("the history database %s is read-only (%s): make it (and its directory) writable, or "
		                 "choose another file with --db",
		                 path, strerror(e));
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, role == CONN_WRITER ? WRITER_BUSY_MS : role == CONN_READER ? 5000 : 0);
	char limit[64];
	snprintf(limit, sizeof limit, "PRAGMA journal_size_limit=%d", BB_STORE_WAL_LIMIT_BYTES);
	if (role != CONN_READER &&
	    (exec(db, "PRAGMA journal_mode=WAL") != 0 ||
	     exec(db, sync_full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL") != 0 ||
	     exec(db, limit) != 0)) {
		int e = sqlite3_system_errno(db);
		*err = xasprintf("cannot set up the history database %s: %s%s%s%s", path, sqlite3_errmsg(db),
		                 e ? " (" : "", e ? strerror(e) : "", e ? ")" : "");
		sqlite3_close(db);
		return NULL;
	}
	if (exec(db, "PRAGMA foreign_keys=ON") != 0) {
		*err = xasprintf("cannot set up the history database %s: %s", path, sqlite3_errmsg(db));
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
	/* Development builds before 1.0 wrote a version-1 file with a plain pages table; this layout
	 * keeps pages in contents + captures. Say so rather than fail on a missing table. */
	int old_layout = 0;
	if (version >= 1 &&
	    sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'pages'", -1, &st,
	                       NULL) == SQLITE_OK) {
		old_layout = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	if (old_layout) {
		*err = xasprintf("the history database was made by a development build before 1.0, whose layout "
		                 "this version does not read: move it aside (it is left untouched) and start again");
		return -1;
	}
	if (version > newest) {
		*err = xasprintf("the database has schema version %d, newer than this program knows (%d)", version,
		                 newest);
		return -1;
	}
	/* Table rebuilds (version 2) drop a table others refer to: foreign keys stay off meanwhile
	 * (the pragma is a no-op inside a transaction, hence here). */
	exec(db, "PRAGMA foreign_keys=OFF");
	for (int v = version; v < newest; v++) {
		char *sql = xasprintf("BEGIN IMMEDIATE;\n%s\nPRAGMA user_version=%d;\nCOMMIT;", migrations[v], v + 1);
		int rc = exec(db, sql);
		free(sql);
		if (rc != 0) {
			*err = xasprintf("database migration to version %d failed: %s", v + 1, sqlite3_errmsg(db));
			if (!sqlite3_get_autocommit(db))
				exec(db, "ROLLBACK");
			exec(db, "PRAGMA foreign_keys=ON");
			return -1;
		}
		log_info("database schema migrated to version %d", v + 1);
	}
	exec(db, "PRAGMA foreign_keys=ON");
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

/* One 8-byte step of both hash lanes (multiply, then fold the high bits down). */
static inline void
hash_step(uint64_t *a, uint64_t *b, uint64_t w)
{
	*a = (*a ^ w) * 0x9e3779b97f4a7c15ULL;
	*a ^= *a >> 32;
	*b = (*b + w) * 0xc2b2ae3d27d4eb4fULL;
	*b ^= *b >> 29;
}

/* 128 bits over title and Markdown, 8 bytes a step (a multi-megabyte page hashes in about a
 * millisecond): the key that finds identical content. Collisions are harmless: bytes are compared. */
static void
content_hash(const char *title, size_t tl, const char *md, size_t ml, char out[33])
{
	uint64_t a = 0x243f6a8885a308d3ULL, b = 0x13198a2e03707344ULL;
	const char *parts[2] = {title, md};
	size_t lens[2] = {tl, ml};
	for (int k = 0; k < 2; k++) {
		size_t i = 0;
		for (; i + 8 <= lens[k]; i += 8) {
			uint64_t w;
			memcpy(&w, parts[k] + i, 8);
			hash_step(&a, &b, w);
		}
		uint64_t tail = 0;
		if (i < lens[k])
			memcpy(&tail, parts[k] + i, lens[k] - i);
		hash_step(&a, &b, tail);
		hash_step(&a, &b, (uint64_t)lens[k]); /* so ("ab","c") differs from ("a","bc") */
	}
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)a, (unsigned long long)b);
}

/* n bytes at a and b are equal; SQLite gives NULL for an empty value, which memcmp may not get. */
static int
same_bytes(const void *a, const void *b, size_t n)
{
	return n == 0 || (a != NULL && b != NULL && memcmp(a, b, n) == 0);
}

/* Run a bound INSERT and reset it: the new row's id, or -1 with the SQLite result code in *rcp. */
static int64_t
step_insert(struct store *s, sqlite3_stmt *st, int *rcp)
{
	int rc = sqlite3_step(st);
	int64_t id = rc == SQLITE_DONE ? sqlite3_last_insert_rowid(s->db) : -1;
	if (rc != SQLITE_DONE)
		*rcp = rc;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return id;
}

/* The id of stored content equal to (title, md), or 0; the bytes are compared, not just the hash. */
static int64_t
find_content(struct store *s, const char *hash, const char *title, size_t tl, const char *md, size_t ml)
{
	sqlite3_stmt *st = s->find_content;
	int64_t id = 0;
	sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && (size_t)sqlite3_column_bytes(st, 1) == tl &&
	    (size_t)sqlite3_column_bytes(st, 2) == ml && same_bytes(sqlite3_column_blob(st, 1), title, tl) &&
	    same_bytes(sqlite3_column_blob(st, 2), md, ml))
		id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return id;
}

/* Forget every tab's newest capture (store thread): after a rollback, a deletion, a prune, or a write
 * by another connection, what memory holds may no longer be the database's newest capture. */
static void
tabs_forget(struct store *s)
{
	for (int i = 0; i < BB_STORE_TAB_CACHE; i++) {
		free(s->tabs[i].client_id);
		free(s->tabs[i].url);
	}
	memset(s->tabs, 0, sizeof s->tabs);
}

/* The slot of a tab in memory, or NULL when it holds none. */
static struct tab_memory *
tab_find(struct store *s, const char *client, int has_tab, int64_t tab)
{
	for (int i = 0; i < BB_STORE_TAB_CACHE; i++) {
		struct tab_memory *m = &s->tabs[i];
		if (m->client_id != NULL && m->has_tab == has_tab && m->tab_id == tab && strcmp(m->client_id, client) == 0)
			return m;
	}
	return NULL;
}

/* Remember a tab's newest capture, in its slot, a free one, or the one captured longest ago. */
static struct tab_memory *
tab_remember(struct store *s, const char *client, int has_tab, int64_t tab, int64_t id, int64_t visit,
             const char *url)
{
	struct tab_memory *m = tab_find(s, client, has_tab, tab);
	if (m == NULL) {
		m = &s->tabs[0];
		for (int i = 0; i < BB_STORE_TAB_CACHE && m->client_id != NULL; i++)
			if (s->tabs[i].client_id == NULL || s->tabs[i].last_id < m->last_id)
				m = &s->tabs[i];
		free(m->client_id);
		m->client_id = xstrdup(client);
		m->has_tab = has_tab;
		m->tab_id = tab;
	}
	free(m->url);
	m->url = xstrdup(url);
	m->last_id = id;
	m->visit_id = visit;
	return m;
}

/* A tab's newest capture: from memory, else from the last BB_STORE_VISIT_WINDOW captures (a backward
 * scan by id, bounded, as there is no index by tab). NULL when there is none (or on an error, which
 * the INSERT that follows meets again). */
static struct tab_memory *
tab_recall(struct store *s, const char *client, int has_tab, int64_t tab)
{
	struct tab_memory *m = tab_find(s, client, has_tab, tab);
	if (m != NULL)
		return m;
	sqlite3_stmt *st = s->find_tab;
	sqlite3_bind_text(st, 1, client, -1, SQLITE_STATIC);
	if (has_tab)
		sqlite3_bind_int64(st, 2, tab);
	else
		sqlite3_bind_null(st, 2);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 1) == SQLITE_TEXT)
		m = tab_remember(s, client, has_tab, tab, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 2),
		                 (const char *)sqlite3_column_text(st, 1));
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return m;
}

/* Store a page: its content once (shared by identical pages), then the capture; the capture id, or
 * -1 with the SQLite result code in *rcp. */
static int64_t
write_page(struct store *s, json_t *d, int *rcp)
{
	json_t *tj = json_object_get(d, "title"), *mj = json_object_get(d, "markdown");
	const char *title = json_string_value(tj), *md = json_string_value(mj);
	size_t tl = json_string_length(tj), ml = json_string_length(mj);
	char hash[33];
	content_hash(title, tl, md, ml, hash);
	int64_t cid = find_content(s, hash, title, tl, md, ml);
	if (cid == 0) {
		sqlite3_stmt *st = s->ins_content;
		char alt[48];
		/* A hash collision with different bytes (never seen, but possible): keep both under distinct keys. */
		snprintf(alt, sizeof alt, "%s", hash);
		for (int n = 1; n < 100; n++) {
			sqlite3_bind_text(st, 1, alt, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 2, title, (int)tl, SQLITE_STATIC);
			sqlite3_bind_text(st, 3, md, (int)ml, SQLITE_STATIC);
			sqlite3_bind_int64(st, 4, (sqlite3_int64)ml);
			int rc = sqlite3_step(st);
			sqlite3_reset(st);
			if (rc == SQLITE_DONE) {
				cid = sqlite3_last_insert_rowid(s->db);
				s->unindexed++;
				break;
			}
			if (rc != SQLITE_CONSTRAINT) {
				*rcp = rc;
				return -1;
			}
			snprintf(alt, sizeof alt, "%s:%d", hash, n);
			if ((cid = find_content(s, alt, title, tl, md, ml)) != 0)
				break;
		}
		if (cid == 0) {
			*rcp = SQLITE_CONSTRAINT;
			return -1;
		}
	}
	/* Its visit: the tab's, if the tab's newest capture shows the same URL (and is recent enough,
	 * which the INSERT decides, knowing the new id). */
	const char *client = json_string_value(json_object_get(d, "clientId"));
	const char *url = json_string_value(json_object_get(d, "url"));
	json_t *tabj = json_object_get(d, "tabId");
	int has_tab = json_is_integer(tabj);
	int64_t tab = has_tab ? json_integer_value(tabj) : 0;
	struct tab_memory *prev = client != NULL && url != NULL ? tab_recall(s, client, has_tab, tab) : NULL;
	int same = prev != NULL && strcmp(prev->url, url) == 0;
	int64_t prev_id = same ? prev->last_id : 0, prev_visit = same ? prev->visit_id : 0;
	sqlite3_stmt *st = s->ins_capture;
	bind_json_str(st, 1, d, "captured_at");
	bind_json_str(st, 2, d, "clientId");
	bind_json_int(st, 3, d, "tabId");
	bind_json_str(st, 4, d, "requestId");
	bind_json_str(st, 5, d, "url");
	sqlite3_bind_int64(st, 6, cid);
	sqlite3_bind_int(st, 7, json_is_true(json_object_get(d, "truncated")));
	sqlite3_bind_int64(st, 8, prev_visit);
	sqlite3_bind_int64(st, 9, prev_id);
	int64_t id = step_insert(s, st, rcp);
	if (id > 0 && client != NULL && url != NULL)
		tab_remember(s, client, has_tab, tab, id,
		             same && id - prev_id <= BB_STORE_VISIT_WINDOW ? prev_visit : id, url);
	return id;
}

/* Bind the conditions of a deletion to a statement that uses ?1..?4 as delete_where does. */
static void
bind_delete(sqlite3_stmt *st, json_t *d)
{
	sqlite3_bind_int64(st, 1, json_integer_value(json_object_get(d, "id")));
	sqlite3_bind_int64(st, 2, json_integer_value(json_object_get(d, "visit_id")));
	bind_json_str(st, 3, d, "url");
	bind_json_str(st, 4, d, "before");
}

#define DELETE_WHERE                                                                                       \
	" WHERE (?1 = 0 OR id = ?1) AND (?2 = 0 OR visit_id = ?2) AND (?3 IS NULL OR substr(url, 1, length(?3)) = ?3)" \
	" AND (?4 IS NULL OR captured_at < ?4)"

/* Run one statement of a deletion; its result code. */
static int
delete_step(struct store *s, const char *sql, json_t *d)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	if (sqlite3_bind_parameter_count(st) > 0)
		bind_delete(st, d);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? SQLITE_DONE : rc;
}

/* Delete captures (inside the batch's transaction), then the contents no capture uses any more; the
 * delete trigger takes indexed contents out of the full-text index, and contents not indexed yet are
 * simply never indexed. The number of captures deleted, or -1 with the result code in *rcp. */
static int64_t
write_delete(struct store *s, json_t *d, int *rcp)
{
	int64_t id = json_integer_value(json_object_get(d, "id"));
	if (json_is_true(json_object_get(d, "visit"))) {
		/* The whole visit of that capture. */
		sqlite3_stmt *st;
		int64_t vid = 0;
		int rc = sqlite3_prepare_v2(s->db, "SELECT visit_id FROM captures WHERE id = ?", -1, &st, NULL);
		if (rc != SQLITE_OK) {
			*rcp = rc;
			return -1;
		}
		sqlite3_bind_int64(st, 1, id);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			vid = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
			*rcp = rc;
			return -1;
		}
		if (vid == 0)
			return 0; /* no such capture */
		json_object_set_new(d, "id", json_integer(0));
		json_object_set_new(d, "visit_id", json_integer(vid));
	}
	int rc;
	if ((rc = delete_step(s, "DELETE FROM gone", d)) != SQLITE_DONE ||
	    (rc = delete_step(s, "INSERT OR IGNORE INTO gone SELECT content_id FROM captures" DELETE_WHERE, d)) !=
	        SQLITE_DONE ||
	    (rc = delete_step(s, "DELETE FROM captures" DELETE_WHERE, d)) != SQLITE_DONE) {
		*rcp = rc;
		return -1;
	}
	int64_t n = sqlite3_changes64(s->db);
	if ((rc = delete_step(s,
	                      "DELETE FROM contents WHERE id IN (SELECT content_id FROM gone) AND NOT EXISTS "
	                      "(SELECT 1 FROM captures WHERE content_id = contents.id)",
	                      d)) != SQLITE_DONE) {
		*rcp = rc;
		return -1;
	}
	return n;
}

/* Add new contents to the full-text index in one transaction; cheaper in bulk than row by row. */
static void
index_pending(struct store *s)
{
	char sql[256];
	sqlite3_stmt *st;
	int64_t upto = s->fts_upto;
	if (sqlite3_prepare_v2(s->db, "SELECT max(id) FROM contents", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		upto = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (upto <= s->fts_upto) {
		s->unindexed = 0;
		return;
	}
	snprintf(sql, sizeof sql,
	         "BEGIN IMMEDIATE; INSERT INTO pages_fts(rowid, title, markdown) SELECT id, title, markdown FROM contents "
	         "WHERE id > %lld AND id <= %lld; UPDATE meta SET value = %lld WHERE key = 'fts_upto'; COMMIT;",
	         (long long)s->fts_upto, (long long)upto, (long long)upto);
	if (exec(s->db, sql) != 0) {
		if (!sqlite3_get_autocommit(s->db))
			exec(s->db, "ROLLBACK");
		return;
	}
	s->fts_upto = upto;
	s->unindexed = 0;
}

/* WAL hook: remember how big the log is, so checkpoints can wait for a quiet moment. */
static int
wal_hook(void *arg, sqlite3 *db, const char *name, int frames)
{
	(void)db;
	(void)name;
	((struct store *)arg)->wal_frames = frames;
	return SQLITE_OK;
}

/* Insert one queued row with the prepared statements; the row id, or -1 with the result code in *rcp. */
static int64_t
write_item(struct store *s, struct item *it, int *rcp)
{
	json_t *d = it->data;
	if (it->kind == ITEM_PAGE)
		return write_page(s, d, rcp);
	if (it->kind == ITEM_DELETE) {
		/* The id of a deletion is just "it ran" (1); the count is kept aside. */
		it->removed = write_delete(s, d, rcp);
		tabs_forget(s); /* a tab's newest capture may be gone */
		return it->removed < 0 ? -1 : 1;
	}
	sqlite3_stmt *st = s->ins_cmd;
	const char *params = json_string_value(json_object_get(d, "params"));
	bind_json_str(st, 1, d, "request_id");
	bind_json_str(st, 2, d, "tool");
	bind_json_str(st, 3, d, "command");
	bind_json_str(st, 4, d, "client_id");
	sqlite3_bind_text(st, 5, params ? params : "{}", -1, SQLITE_STATIC);
	bind_json_str(st, 6, d, "status");
	bind_json_int(st, 7, d, "http_status");
	bind_json_str(st, 8, d, "message");
	bind_json_str(st, 9, d, "error");
	bind_json_str(st, 10, d, "summary");
	bind_json_int(st, 11, d, "history_id");
	bind_json_str(st, 12, d, "started_at");
	bind_json_str(st, 13, d, "finished_at");
	bind_json_int(st, 14, d, "duration_ms");
	return step_insert(s, st, rcp);
}

/* Apply the retention limits; runs on the store thread after enough inserts or time. Content no
 * capture uses any more goes too (index first, so the delete trigger can unindex it). */
static void
prune(struct store *s)
{
	char sql[1024], cond[256] = "";
	index_pending(s);
	if (s->opts.retention_days > 0) {
		char cutoff[32];
		util_iso8601(util_now_ms() - (int64_t)s->opts.retention_days * 86400000, cutoff);
		/* Rows are appended in time order, so the old ones are a prefix by id: no time index needed. */
		snprintf(sql, sizeof sql,
		         "DELETE FROM commands WHERE id < (SELECT coalesce(min(id), 1 << 62) FROM "
		         "(SELECT id FROM commands WHERE started_at >= '%s' ORDER BY id LIMIT 1));",
		         cutoff);
		exec(s->db, sql);
		snprintf(cond, sizeof cond,
		         "id < (SELECT coalesce(min(id), 1 << 62) FROM "
		         "(SELECT id FROM captures WHERE captured_at >= '%s' ORDER BY id LIMIT 1))",
		         cutoff);
	}
	if (s->opts.retention_pages > 0) {
		snprintf(sql, sizeof sql,
		         "DELETE FROM commands WHERE id <= (SELECT max(id) FROM commands) - %ld;",
		         s->opts.retention_pages);
		exec(s->db, sql);
		size_t n = strlen(cond);
		snprintf(cond + n, sizeof cond - n,
		         "%sid <= (SELECT max(id) FROM captures) - %ld", n ? " OR " : "",
		         s->opts.retention_pages);
	}
	if (cond[0] != '\0') {
		snprintf(sql, sizeof sql,
		         "BEGIN IMMEDIATE;"
		         "CREATE TEMP TABLE IF NOT EXISTS gone(content_id INTEGER PRIMARY KEY);"
		         "DELETE FROM gone;"
		         "INSERT OR IGNORE INTO gone SELECT content_id FROM captures WHERE %s;"
		         "DELETE FROM captures WHERE %s;"
		         "DELETE FROM contents WHERE id IN (SELECT content_id FROM gone)"
		         " AND NOT EXISTS (SELECT 1 FROM captures WHERE content_id = contents.id);"
		         "COMMIT;",
		         cond, cond);
		int64_t changes = sqlite3_total_changes64(s->db);
		if (exec(s->db, sql) != 0 && !sqlite3_get_autocommit(s->db))
			exec(s->db, "ROLLBACK");
		if (sqlite3_total_changes64(s->db) != changes)
			tabs_forget(s); /* captures were pruned (or rolled back): a tab's newest may be gone */
	}
	s->since_prune = 0;
	s->last_prune = util_mono_ms();
}

/* Ask the checkpointer to copy the WAL into the database file once the log has grown. It never
 * blocks here: a reader holding an old snapshot must not delay the next commit. */
static void
maybe_checkpoint(struct store *s)
{
	if (s->wal_frames < CHECKPOINT_FRAMES)
		return;
	/* Ask again only once another CHECKPOINT_FRAMES have been written since the last request. */
	if (s->wal_frames >= s->ckpt_asked_at && s->wal_frames - s->ckpt_asked_at < CHECKPOINT_FRAMES)
		return;
	s->ckpt_asked_at = s->wal_frames;
	pthread_mutex_lock(&s->lock);
	s->ckpt_wanted = 1;
	s->ckpt_restart = s->wal_frames >= CHECKPOINT_RESTART_FRAMES;
	pthread_cond_signal(&s->ckpt_cond);
	pthread_mutex_unlock(&s->lock);
}

/* Size of the WAL file in bytes (0 when it cannot be read). */
static long long
wal_bytes(const struct store *s)
{
	char *wal = xasprintf("%s-wal", s->path);
	struct stat st;
	long long n = stat(wal, &st) == 0 ? (long long)st.st_size : 0;
	free(wal);
	return n;
}

/* One checkpoint on the checkpointer's connection: PASSIVE (never waits), then, when the log is
 * long and all of it was copied, RESTART without waiting so the next commit starts the log over
 * (journal_size_limit then cuts the file back). A reader that keeps frames from being copied is
 * logged once per episode. */
static void
checkpoint_once(struct store *s, sqlite3 *db, int restart)
{
	int n_log = 0, n_ckpt = 0;
	int rc = sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_PASSIVE, &n_log, &n_ckpt);
	if (rc == SQLITE_OK && restart && n_ckpt >= n_log)
		sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_RESTART, NULL, NULL);
	int64_t now = util_mono_ms();
	if (rc == SQLITE_OK && n_ckpt < n_log) {
		if (s->held_since == 0)
			s->held_since = now;
		if (!s->held_logged && now - s->held_since >= BB_STORE_READER_WARN_MS) {
			log_warn("a reader has held the database for %lld s; the WAL is %.1f MB and cannot be copied "
			         "into the database until it lets go (an open transaction in a sqlite3 shell?)",
			         (long long)(now - s->held_since) / 1000, (double)wal_bytes(s) / (1024.0 * 1024.0));
			s->held_logged = 1;
		}
	} else if (rc == SQLITE_OK) {
		if (s->held_logged)
			log_info("the reader let go: the WAL was copied into the database");
		s->held_since = 0;
		s->held_logged = 0;
	}
}

/* The checkpointer thread: checkpoints on its own connection run beside the writer in WAL mode,
 * so commits (and the calls waiting on them) go on while the file is brought up to date. */
static void *
ckpt_main(void *arg)
{
	struct store *s = arg;
	pthread_setname_np(pthread_self(), "bb-checkpoint");
	char *err = NULL;
	sqlite3 *db = open_conn(s->path, CONN_CHECKPOINTER, s->opts.sync_full, &err);
	if (db == NULL) {
		log_error("checkpointer: %s", err);
		free(err);
	}
	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->ckpt_wanted && !s->stopping)
			pthread_cond_wait(&s->ckpt_cond, &s->lock);
		if (s->stopping)
			break;
		s->ckpt_wanted = 0;
		int restart = s->ckpt_restart;
		pthread_mutex_unlock(&s->lock);
		if (db != NULL)
			checkpoint_once(s, db, restart);
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	sqlite3_close(db);
	return NULL;
}

/* The file at path is no longer the one we opened (deleted, moved, replaced). One stat per commit:
 * SQLITE_FCNTL_HAS_MOVED would stat the same path again for the same answer. */
static int
file_moved(struct store *s)
{
	struct stat st;
	return stat(s->path, &st) != 0 || st.st_ino != s->ino || st.st_dev != s->dev;
}

/* Tests only: BB_TEST_MAX_PAGE_COUNT_FILE names a file holding a page count that caps the database
 * (PRAGMA max_page_count), so a full disk can be simulated without one, and lifted again. */
static void
apply_test_max_pages(struct store *s)
{
	if (s->test_max_pages_file == NULL)
		return;
	FILE *f = fopen(s->test_max_pages_file, "r");
	long n = 0;
	if (f != NULL) {
		if (fscanf(f, "%ld", &n) != 1)
			n = 0;
		fclose(f);
	}
	if (n <= 0)
		n = 1073741823; /* no file: no cap */
	if (n != s->test_max_pages) {
		char sql[64];
		snprintf(sql, sizeof sql, "PRAGMA max_page_count=%ld", n);
		exec(s->db, sql);
		s->test_max_pages = n;
	}
}

/* Classify a failed write: a fault of the database as a whole (worth retrying), or 0 when only the
 * row itself is at fault (a constraint) and the others can still go in. */
static enum fault
fault_of(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
	case SQLITE_TOOBIG:
	case SQLITE_RANGE:
		return FAULT_NONE;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return FAULT_LOCKED;
	case SQLITE_FULL:
		return FAULT_FULL;
	case SQLITE_READONLY:
		return FAULT_READONLY;
	default:
		return FAULT_OTHER;
	}
}

/* Record the current fault (store thread): the sentence store_fault hands out, logged once when it
 * lasts (a moment's lock by the checkpointer is not worth a line). */
static void
set_fault(struct store *s, enum fault f, const char *detail)
{
	char text[sizeof s->fault_text];
	switch (f) {
	case FAULT_LOCKED:
		snprintf(text, sizeof text, "the database is locked by another process (a sqlite3 shell with an open "
		                            "write transaction?)");
		break;
	case FAULT_FULL:
		snprintf(text, sizeof text, "the disk holding the database is full");
		break;
	case FAULT_MOVED:
		snprintf(text, sizeof text, "the database file %.150s was deleted or moved while the daemon ran (put it "
		                            "back, or restart the daemon to start a new one)",
		         s->path);
		break;
	case FAULT_READONLY:
		snprintf(text, sizeof text, "the database file has become read-only");
		break;
	default:
		snprintf(text, sizeof text, "the database cannot be written: %.200s", detail ? detail : "unknown error");
		break;
	}
	int64_t now = util_mono_ms();
	if (s->fault != f) {
		s->fault = f;
		s->fault_since = now;
		s->fault_logged = 0;
	}
	pthread_mutex_lock(&s->lock);
	snprintf(s->fault_text, sizeof s->fault_text, "%s", text);
	pthread_mutex_unlock(&s->lock);
	if (!s->fault_logged && now - s->fault_since >= FAULT_LOG_AFTER_MS) {
		log_warn("history: cannot write to %s: %s; rows are kept and retried, and calls that need their "
		         "page stored fail with history_unavailable until it clears",
		         s->path, text);
		s->fault_logged = 1;
	}
}

/* Writes work again (store thread): say so once if the fault was logged. */
static void
clear_fault(struct store *s)
{
	if (s->fault == FAULT_NONE)
		return;
	if (s->fault_logged)
		log_info("history: writing to %s again after %lld ms", s->path,
		         (long long)(util_mono_ms() - s->fault_since));
	if (s->given_up_pages || s->given_up_rows)
		log_error("history: %ld pages and %ld call-log rows could not be stored before they were given up",
		          s->given_up_pages, s->given_up_rows);
	s->given_up_pages = s->given_up_rows = 0;
	s->fault = FAULT_NONE;
	pthread_mutex_lock(&s->lock);
	s->fault_text[0] = '\0';
	pthread_mutex_unlock(&s->lock);
}

/* Step a prepared statement of the writer that returns no row (BEGIN, COMMIT, ROLLBACK) and reset
 * it; its result code (SQLITE_OK when done), the message left in sqlite3_errmsg. */
static int
step_once(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

/* Write a batch in one transaction. 0: committed (rows with it->error were skipped); otherwise the
 * fault, with everything rolled back and no id kept. */
static enum fault
write_batch(struct store *s, struct item *batch, char *detail, size_t dlen)
{
	detail[0] = '\0';
	if (file_moved(s))
		return FAULT_MOVED;
	apply_test_max_pages(s);
	long unindexed = s->unindexed;
	int rc = step_once(s->begin);
	if (rc != SQLITE_OK) {
		snprintf(detail, dlen, "%s", sqlite3_errmsg(s->db));
		enum fault f = fault_of(rc);
		return f == FAULT_NONE ? FAULT_OTHER : f;
	}
	/* Another connection (a sqlite3 shell) may have written captures since our last commit. */
	if (sqlite3_step(s->data_version) == SQLITE_ROW) {
		int64_t v = sqlite3_column_int64(s->data_version, 0);
		if (v != s->seen_version)
			tabs_forget(s);
		s->seen_version = v;
	}
	sqlite3_reset(s->data_version);
	enum fault f = FAULT_NONE;
	for (struct item *it = batch; it != NULL; it = it->next) {
		if (it->error != NULL)
			continue;
		int irc = SQLITE_OK;
		it->id = write_item(s, it, &irc);
		if (it->id > 0)
			continue;
		it->id = 0;
		if ((f = fault_of(irc)) != FAULT_NONE) {
			snprintf(detail, dlen, "%s", sqlite3_errstr(irc));
			break;
		}
		/* This row alone is refused (e.g. a missing column): it is given up, the rest goes in. */
		it->error = xasprintf("the row was refused by the database: %s", sqlite3_errstr(irc));
	}
	if (f == FAULT_NONE) {
		rc = step_once(s->commit);
		if (rc != SQLITE_OK) {
			snprintf(detail, dlen, "%s", sqlite3_errmsg(s->db));
			f = fault_of(rc);
			if (f == FAULT_NONE)
				f = FAULT_OTHER;
		}
	}
	if (f != FAULT_NONE) {
		if (!sqlite3_get_autocommit(s->db))
			step_once(s->rollback);
		/* Rolled back: none of these ids exists, so none may be handed out. */
		for (struct item *it = batch; it != NULL; it = it->next)
			it->id = 0;
		s->unindexed = unindexed;
		tabs_forget(s); /* it may hold captures that were rolled back */
	}
	return f;
}

/* Take an item off the queue's counters (lock held). */
static void
uncount(struct store *s, struct item *it)
{
	s->n_queued--;
	if (it->kind != ITEM_COMMAND) {
		s->pages_queued--;
		__atomic_sub_fetch(&s->bytes_queued, json_string_length(json_object_get(it->data, "markdown")),
		                   __ATOMIC_RELAXED);
	}
}

/* Finish an item: acknowledge or give up a page (its callback), then free it. Store thread. */
static void
finish_item(struct store *s, struct item *it, const char *why)
{
	if (it->kind == ITEM_PAGE) {
		s->since_prune += it->id > 0;
		if (it->id > 0)
			json_object_set_new(it->data, "history_id", json_integer(it->id));
		else
			s->given_up_pages++;
		if (it->done != NULL)
			it->done(it->data, it->id > 0 ? it->id : 0,
			         it->id > 0 ? NULL : it->error ? it->error : why ? why : "the page was not stored", it->arg);
	} else if (it->kind == ITEM_DELETE) {
		if (it->del_done != NULL)
			it->del_done(it->id > 0 ? it->removed : -1,
			             it->id > 0 ? NULL : it->error ? it->error : why ? why : "the deletion was not committed",
			             it->arg);
	} else if (it->id <= 0) {
		s->given_up_rows++;
	}
	if (it->id <= 0 && (it->error || s->fault == FAULT_NONE))
		log_error("history: a %s was not stored: %s",
		          it->kind == ITEM_PAGE ? "page" : it->kind == ITEM_DELETE ? "deletion" : "call-log row",
		          it->error ? it->error : why ? why : "unknown error");
	json_decref(it->data);
	free(it->error);
	free(it);
}

/* Wait on the queue's condition until wake-up, stop, or ms have passed; lock held. */
static void
wait_ms(struct store *s, long ms)
{
	struct timespec until = util_timespec_in(CLOCK_REALTIME, ms);
	pthread_cond_timedwait(&s->cond, &s->lock, &until);
}

/* The store thread: wait for rows, write each batch in one transaction, then acknowledge pages.
 * A batch that cannot be written goes back to the head of the queue and is retried with backoff;
 * rows whose keep time has passed (or, at shutdown, after a grace period) are given up. */
static void *
store_main(void *arg)
{
	struct store *s = arg;
	pthread_setname_np(pthread_self(), "bb-store");
	long backoff = 0;
	int64_t stop_deadline = 0;
	for (;;) {
		pthread_mutex_lock(&s->lock);
		if (backoff > 0)
			wait_ms(s, backoff);
		for (;;) {
			if (s->stopping || s->pages_queued > 0 || s->n_queued >= BB_STORE_BATCH_MAX ||
			    (backoff > 0 && s->head != NULL))
				break;
			if (s->head == NULL) {
				s->sleeping = 1;
				pthread_cond_wait(&s->cond, &s->lock);
				s->sleeping = 0;
				continue;
			}
			/* Only call records are waiting: nobody waits on them, so give the next page a moment
			 * to share their commit (one commit per call instead of two). */
			s->sleeping = 1;
			int64_t t0 = util_mono_ms();
			wait_ms(s, COMMAND_LINGER_MS);
			s->sleeping = 0;
			if (util_mono_ms() - t0 >= COMMAND_LINGER_MS)
				break;
		}
		if (s->head == NULL && s->stopping) {
			pthread_mutex_unlock(&s->lock);
			break;
		}
		if (s->head == NULL) {
			pthread_mutex_unlock(&s->lock);
			continue;
		}
		if (s->stopping && stop_deadline == 0)
			stop_deadline = util_mono_ms() + BB_STORE_SHUTDOWN_RETRY_MS;
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

		char detail[256];
		enum fault f = write_batch(s, batch, detail, sizeof detail);
		struct item *keep = NULL, **kt = &keep, *gone = NULL, **gt = &gone;
		if (f == FAULT_NONE) {
			clear_fault(s);
			backoff = 0;
			for (struct item *it = batch, *nx; it != NULL; it = nx) {
				nx = it->next;
				it->next = NULL;
				*gt = it;
				gt = &it->next;
			}
		} else {
			set_fault(s, f, detail);
			backoff = backoff == 0 ? BB_STORE_RETRY_FIRST_MS : backoff * 2;
			if (backoff > BB_STORE_RETRY_MAX_MS)
				backoff = BB_STORE_RETRY_MAX_MS;
			/* Keep what may still be written; give up what waited too long. */
			int64_t now = util_mono_ms();
			/* At shutdown only a lock is worth waiting for (briefly): a full disk or a moved file
			 * will not mend itself in the seconds a stop may take. */
			int stop_now = stop_deadline != 0 && (now >= stop_deadline || f != FAULT_LOCKED);
			for (struct item *it = batch, *nx; it != NULL; it = nx) {
				nx = it->next;
				it->next = NULL;
				if (it->error == NULL && !stop_now && now < it->keep_until) {
					*kt = it;
					kt = &it->next;
				} else {
					*gt = it;
					gt = &it->next;
				}
			}
		}
		pthread_mutex_lock(&s->lock);
		if (keep != NULL) {
			/* Back to the head, in order, for the next attempt. */
			*kt = s->head;
			s->head = keep;
			if (s->tail == NULL)
				for (s->tail = keep; s->tail->next != NULL; s->tail = s->tail->next)
					;
		}
		for (struct item *it = gone; it != NULL; it = it->next)
			uncount(s, it);
		pthread_mutex_unlock(&s->lock);
		char why[sizeof s->fault_text];
		snprintf(why, sizeof why, "%s", s->fault_text);
		size_t batch_bytes = 0;
		int64_t given_before = s->given_up_pages + s->given_up_rows;
		for (struct item *it = gone, *nx; it != NULL; it = nx) {
			nx = it->next;
			if (it->kind == ITEM_PAGE)
				batch_bytes += json_string_length(json_object_get(it->data, "markdown"));
			finish_item(s, it, why[0] ? why : NULL);
		}
		if (f != FAULT_NONE) {
			if (s->given_up_pages + s->given_up_rows > given_before && given_before == 0)
				log_error("history: giving up rows that waited too long to be stored: %s", why);
		}
		if (f == FAULT_NONE) {
			if (s->since_prune >= PRUNE_EVERY_ROWS ||
			    (s->since_prune > 0 && util_mono_ms() - s->last_prune > PRUNE_EVERY_MS))
				prune(s);
			if (batch_bytes > (1u << 20))
				malloc_trim(0); /* after big pages, return the memory to the system */
			pthread_mutex_lock(&s->lock);
			int idle = s->head == NULL;
			pthread_mutex_unlock(&s->lock);
			/* Search indexing and checkpoints happen after the acknowledgements, in bulk. */
			if (s->unindexed > 0 && (idle || s->unindexed >= INDEX_BATCH))
				index_pending(s);
			maybe_checkpoint(s);
		}
		pthread_mutex_lock(&s->lock);
		s->busy = 0;
		if (s->head == NULL)
			pthread_cond_broadcast(&s->idle);
		pthread_mutex_unlock(&s->lock);
	}
	if (s->given_up_pages || s->given_up_rows) {
		log_error("history: %ld pages and %ld call-log rows could not be stored: %s", s->given_up_pages,
		          s->given_up_rows, s->fault_text);
		s->lost = 1;
	}
	return NULL;
}

/* A reader thread: run submitted jobs until the store closes and the queue is empty. */
static void *
reader_main(void *arg)
{
	struct store *s = arg;
	pthread_setname_np(pthread_self(), "bb-reader");
	/* A long search yields the CPU to the threads that answer calls (Linux: nice is per thread). */
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), READER_NICE) != 0)
		log_debug("reader thread: cannot lower its priority: %s", strerror(errno));
	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (s->jhead == NULL && !s->jstopping)
			pthread_cond_wait(&s->jcond, &s->lock);
		struct job *j = s->jhead;
		if (j == NULL)
			break;
		s->jhead = j->next;
		if (s->jhead == NULL)
			s->jtail = NULL;
		pthread_mutex_unlock(&s->lock);
		j->fn(j->arg);
		free(j);
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Run fn(arg) on a reader thread (at once on this one when there is none). */
void
store_submit(struct store *s, void (*fn)(void *arg), void *arg)
{
	pthread_mutex_lock(&s->lock);
	if (s->n_rthreads == 0 || s->jstopping) {
		pthread_mutex_unlock(&s->lock);
		fn(arg);
		return;
	}
	struct job *j = xcalloc(1, sizeof *j);
	j->fn = fn;
	j->arg = arg;
	if (s->jtail)
		s->jtail->next = j;
	else
		s->jhead = j;
	s->jtail = j;
	pthread_cond_signal(&s->jcond);
	pthread_mutex_unlock(&s->lock);
}

/* Why writes fail right now, or NULL (any thread). */
char *
store_fault(struct store *s)
{
	pthread_mutex_lock(&s->lock);
	char *t = s->fault_text[0] ? xstrdup(s->fault_text) : NULL;
	pthread_mutex_unlock(&s->lock);
	return t;
}

/* Free a store whose threads are not running (never started, or joined): what store_open's failure
 * and store_close both release. */
static void
store_free(struct store *s)
{
	sqlite3_stmt *const stmts[] = {s->find_content, s->ins_content, s->ins_capture, s->ins_cmd,
	                               s->find_tab,     s->data_version, s->begin,   s->commit,
	                               s->rollback};
	for (size_t i = 0; i < sizeof stmts / sizeof stmts[0]; i++)
		sqlite3_finalize(stmts[i]);
	sqlite3_close(s->db);
	for (int i = 0; i < s->n_readers; i++)
		sqlite3_close(s->readers[i]);
	tabs_forget(s);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	pthread_cond_destroy(&s->idle);
	pthread_cond_destroy(&s->ckpt_cond);
	pthread_cond_destroy(&s->jcond);
	free(s->test_max_pages_file);
	free(s->path);
	free(s);
}

/* Open (creating and migrating) the database and start the store's threads. */
struct store *
store_open(const char *path, const struct store_opts *opts, char **err)
{
	struct store *s = xcalloc(1, sizeof *s);
	s->path = xstrdup(path);
	s->opts = *opts;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	pthread_cond_init(&s->idle, NULL);
	pthread_cond_init(&s->ckpt_cond, NULL);
	pthread_cond_init(&s->jcond, NULL);
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash != NULL && slash != dir) {
		*slash = '\0';
		if (util_mkdirs(dir, 0700) != 0) {
			*err = xasprintf("cannot create the directory %s for the history database: %s", dir,
			                 strerror(errno));
			free(dir);
			goto fail;
		}
		/* SQLite needs to create the -wal and -shm files next to the database. */
		if (access(dir, W_OK) != 0) {
			*err = xasprintf("the directory %s of the history database is read-only (%s): make it writable, "
			                 "or choose another file with --db",
			                 dir, strerror(errno));
			free(dir);
			goto fail;
		}
	}
	free(dir);
	s->db = open_conn(path, CONN_WRITER, opts->sync_full, err);
	if (s->db == NULL)
		goto fail;
	chmod(path, 0600);
	struct stat fst;
	if (stat(path, &fst) != 0) {
		*err = xasprintf("cannot read the history database %s: %s", path, strerror(errno));
		goto fail;
	}
	s->dev = fst.st_dev;
	s->ino = fst.st_ino;
	if (migrate(s->db, err) != 0) {
		char *why = *err;
		*err = xasprintf("%s: %s", path, why);
		free(why);
		goto fail;
	}
	if (sqlite3_prepare_v2(s->db, "SELECT id, title, markdown FROM contents WHERE hash = ?", -1, &s->find_content,
	                       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "INSERT INTO contents(hash, title, markdown, bytes) VALUES (?,?,?,?)", -1,
	                       &s->ins_content, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db,
	                       /* The row goes in with its visit, as the captures_visit trigger would
	                        * put it: ?8, the visit of the tab's newest capture ?9 when that shows
	                        * the same URL (0: it does not) and lies within the visit window, else a
	                        * visit of its own, named by the row's id. Inserting it with no visit and
	                        * letting the trigger update it wrote each row and its captures_visit
	                        * index entry twice. The id is the one SQLite would choose. */
	                       "INSERT INTO captures(id, captured_at, client_id, tab_id, request_id, url, content_id, "
	                       "truncated, visit_id) SELECT n.id, ?1, ?2, ?3, ?4, ?5, ?6, ?7, "
	                       "CASE WHEN ?8 > 0 AND n.id - ?9 <= " BB_STR(BB_STORE_VISIT_WINDOW) " THEN ?8 ELSE n.id END "
	                       "FROM (SELECT coalesce(max(id), 0) + 1 AS id FROM captures) n",
	                       -1, &s->ins_capture, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db,
	                       "SELECT id, url, visit_id FROM captures WHERE id >= (SELECT coalesce(max(id), 0) + 1 "
	                       "FROM captures) - " BB_STR(BB_STORE_VISIT_WINDOW) " AND client_id = ?1 AND tab_id IS ?2 "
	                       "ORDER BY id DESC LIMIT 1",
	                       -1, &s->find_tab, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "PRAGMA data_version", -1, &s->data_version, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "BEGIN IMMEDIATE", -1, &s->begin, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "COMMIT", -1, &s->commit, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "ROLLBACK", -1, &s->rollback, NULL) != SQLITE_OK ||
	    exec(s->db, "CREATE TEMP TABLE IF NOT EXISTS gone(content_id INTEGER PRIMARY KEY)") != 0 ||
	    sqlite3_prepare_v2(s->db,
	                       "INSERT INTO commands(request_id, tool, command, client_id, params, status, "
	                       "http_status, message, error, summary, page_id, started_at, finished_at, duration_ms) "
	                       "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	                       -1, &s->ins_cmd, NULL) != SQLITE_OK) {
		*err = xasprintf("cannot prepare statements: %s", sqlite3_errmsg(s->db));
		goto fail;
	}
	if (sqlite3_step(s->data_version) == SQLITE_ROW)
		s->seen_version = sqlite3_column_int64(s->data_version, 0);
	sqlite3_reset(s->data_version);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key = 'fts_upto'", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		s->fts_upto = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	/* Checkpoints are ours to schedule (maybe_checkpoint), not a side effect of some commit. */
	exec(s->db, "PRAGMA wal_autocheckpoint=0");
	sqlite3_wal_hook(s->db, wal_hook, s);
	const char *knob = getenv("BB_TEST_MAX_PAGE_COUNT_FILE");
	if (knob != NULL && *knob != '\0')
		s->test_max_pages_file = xstrdup(knob);
	prune(s);
	if (pthread_create(&s->thread, NULL, store_main, s) != 0) {
		*err = xasprintf("cannot start the store thread: %s", strerror(errno));
		goto fail;
	}
	if (pthread_create(&s->ckpt_thread, NULL, ckpt_main, s) == 0)
		s->ckpt_started = 1;
	else
		log_warn("cannot start the checkpointer thread: the WAL grows until shutdown");
	for (int i = 0; i < BB_STORE_READ_THREADS; i++)
		if (pthread_create(&s->rthreads[s->n_rthreads], NULL, reader_main, s) == 0)
			s->n_rthreads++;
	if (s->n_rthreads == 0)
		log_warn("cannot start a reader thread: history reads run on the thread that asks");
	return s;
fail:
	store_free(s);
	return NULL;
}

/* Write everything still queued (retrying a while if the file cannot be written), stop the threads
 * and close every connection. 0 when everything was stored and the final checkpoint ran (or only
 * had to leave the WAL to another process's reader); -1, logged, when something was lost or failed.
 * NULL is fine. */
int
store_close(struct store *s)
{
	if (s == NULL)
		return 0;
	pthread_mutex_lock(&s->lock);
	s->stopping = 1;
	s->jstopping = 1;
	pthread_cond_signal(&s->cond);
	pthread_cond_signal(&s->ckpt_cond);
	pthread_cond_broadcast(&s->jcond);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	if (s->ckpt_started)
		pthread_join(s->ckpt_thread, NULL);
	for (int i = 0; i < s->n_rthreads; i++)
		pthread_join(s->rthreads[i], NULL);
	int rc = s->lost ? -1 : 0;
	if (s->fault == FAULT_NONE)
		index_pending(s);
	if (s->fault == FAULT_MOVED || file_moved(s)) {
		log_error("history: the database file %s was deleted or moved while the daemon ran; the final "
		          "checkpoint was skipped",
		          s->path);
		rc = -1;
	} else {
		int ck = sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
		if (ck == SQLITE_BUSY) {
			log_warn("history: another process has %s open, so the WAL is left for the next start (nothing is "
			         "lost)",
			         s->path);
		} else if (ck != SQLITE_OK) {
			int e = sqlite3_system_errno(s->db);
			log_error("history: the final checkpoint of %s failed: %s%s%s%s; the WAL is kept and is applied at "
			          "the next start",
			          s->path, sqlite3_errmsg(s->db), e ? " (" : "", e ? strerror(e) : "", e ? ")" : "");
			rc = -1;
		} else {
			exec(s->db, "PRAGMA optimize");
		}
	}
	store_free(s);
	return rc;
}

/* Queue a row and wake the store thread. */
static void
enqueue(struct store *s, enum item_kind kind, json_t *data, int64_t keep_until, store_page_fn done,
        store_delete_fn del_done, void *arg)
{
	struct item *it = xcalloc(1, sizeof *it);
	it->kind = kind;
	it->data = data;
	it->done = done;
	it->del_done = del_done;
	it->arg = arg;
	int64_t keep = util_mono_ms() + BB_STORE_KEEP_MS;
	it->keep_until = keep_until > keep ? keep_until : keep;
	pthread_mutex_lock(&s->lock);
	if (s->tail != NULL)
		s->tail->next = it;
	else
		s->head = it;
	s->tail = it;
	s->n_queued++;
	if (kind != ITEM_COMMAND) {
		s->pages_queued++;
		__atomic_add_fetch(&s->bytes_queued, json_string_length(json_object_get(data, "markdown")),
		                   __ATOMIC_RELAXED);
	}
	if (s->sleeping)
		pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

/* Queue a page (stolen); done runs on the store thread once it is committed or given up. */
void
store_add_page(struct store *s, json_t *page, int64_t keep_until, store_page_fn done, void *arg)
{
	enqueue(s, ITEM_PAGE, page, keep_until, done, NULL, arg);
}

/* Queue a tool-call record (stolen). */
void
store_add_command(struct store *s, json_t *record)
{
	enqueue(s, ITEM_COMMAND, record, 0, NULL, NULL, NULL);
}

/* Queue a deletion; done runs on the store thread once it is committed (or given up). */
void
store_delete(struct store *s, const struct store_delete *what, store_delete_fn done, void *arg)
{
	json_t *d = json_object();
	json_object_set_new(d, "id", json_integer(what->id));
	json_object_set_new(d, "visit", json_boolean(what->visit));
	if (what->url_prefix != NULL)
		json_object_set_new(d, "url", json_string_nocheck(what->url_prefix));
	if (what->before != NULL)
		json_object_set_new(d, "before", json_string_nocheck(what->before));
	enqueue(s, ITEM_DELETE, d, 0, NULL, done, arg);
}

/* Wait until everything queued so far is committed or given up (tests, shutdown ordering). */
void
store_flush(struct store *s)
{
	pthread_mutex_lock(&s->lock);
	while (s->head != NULL || s->busy)
		pthread_cond_wait(&s->idle, &s->lock);
	pthread_mutex_unlock(&s->lock);
}

/* Markdown bytes waiting to be written: the WebSocket side stops reading a browser when this is high.
 * Read without the queue's lock (the event loop asks after every page; a moment's staleness is fine). */
size_t
store_backlog(struct store *s)
{
	return __atomic_load_n(&s->bytes_queued, __ATOMIC_RELAXED);
}

/* The database file's path. */
const char *
store_path(const struct store *s)
{
	return s->path;
}

/* Take a read connection from the pool, opening one (read-only: it never creates the file) when
 * none is free. NULL with *err when the file cannot be read, or was deleted or moved. */
static sqlite3 *
reader_get(struct store *s, char **err)
{
	sqlite3 *db = NULL;
	struct stat st;
	if (stat(s->path, &st) != 0 || st.st_ino != s->ino || st.st_dev != s->dev) {
		/* A pooled connection would read the old file; a new one would find none. */
		*err = xasprintf("the database file %s was deleted or moved while the daemon ran (put it back, or "
		                 "restart the daemon to start a new one)",
		                 s->path);
		return NULL;
	}
	pthread_mutex_lock(&s->lock);
	if (s->n_readers > 0)
		db = s->readers[--s->n_readers];
	pthread_mutex_unlock(&s->lock);
	if (db == NULL)
		db = open_conn(s->path, CONN_READER, 0, err);
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

/* Take a read connection and prepare sql on it: the statement, or NULL with *err (one sentence) when
 * the file cannot be read. Every statement from here goes back through reader_finish. */
static sqlite3_stmt *
reader_prepare(struct store *s, const char *sql, char **err)
{
	sqlite3 *db = reader_get(s, err);
	if (db == NULL)
		return NULL;
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		*err = xasprintf("the history cannot be read: %s", sqlite3_errmsg(db));
		sqlite3_finalize(st);
		reader_put(s, db);
		return NULL;
	}
	return st;
}

/* Finish a statement from reader_prepare and put its connection back in the pool. */
static void
reader_finish(struct store *s, sqlite3_stmt *st)
{
	sqlite3 *db = sqlite3_db_handle(st);
	sqlite3_finalize(st);
	reader_put(s, db);
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

/*
 * A snippet people can read: the Markdown's refs ([e12], and the e12 ending [button "Go" e12]), link
 * and image targets ("](https://…)"),
 * bare URLs and brackets go, whitespace runs become one space, and the match markers (\x02 \x03,
 * from snippet()) become [ and ]. Bounded by max bytes of output (cut at a character boundary).
 */
static char *
clean_snippet(const char *in, size_t n, size_t max)
{
	struct buf b = {0};
	int space = 0;
	for (size_t i = 0; i < n && b.len < max;) {
		char c = in[i];
		if (c == 'e' && (i == 0 || in[i - 1] == '[' || in[i - 1] == ' ') && i + 1 < n && in[i + 1] >= '0' &&
		    in[i + 1] <= '9') {
			size_t j = i + 1;
			while (j < n && in[j] >= '0' && in[j] <= '9')
				j++;
			if (j < n && in[j] == ']') { /* a ref, alone ([e12]) or ending a token ([button "Go" e12]) */
				i = j + 1;
				continue;
			}
		}
		if (c == ']' && i + 1 < n && in[i + 1] == '(') { /* a link target: up to its ')' */
			size_t j = i + 2;
			while (j < n && in[j] != ')')
				j++;
			i = j < n ? j + 1 : n;
			continue;
		}
		if ((c == 'h' && (n - i > 7 && (strncmp(in + i, "http://", 7) == 0 || strncmp(in + i, "https://", 8) == 0))) &&
		    (i == 0 || in[i - 1] == ' ' || in[i - 1] == '(' || in[i - 1] == '<' || in[i - 1] == '\n')) {
			size_t j = i; /* a bare URL */
			while (j < n && in[j] != ' ' && in[j] != '\n' && in[j] != ')' && in[j] != '>')
				j++;
			i = j < n && (in[j] == ')' || in[j] == '>') ? j + 1 : j;
			continue;
		}
		if (c == '[' || c == ']' || (c == '!' && i + 1 < n && in[i + 1] == '[') || c == '#' || c == '*' ||
		    c == '|') {
			i++;
			continue;
		}
		if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
			space = b.len > 0;
			i++;
			continue;
		}
		if (space) {
			buf_add(&b, " ", 1);
			space = 0;
		}
		if (c == '\x02')
			buf_add(&b, "[", 1);
		else if (c == '\x03')
			buf_add(&b, "]", 1);
		else
			buf_add(&b, &c, 1);
		i++;
	}
	/* Do not end in the middle of a UTF-8 sequence. */
	while (b.len > 0 && ((unsigned char)b.data[b.len - 1] & 0xC0) == 0x80)
		b.len--;
	if (b.len > 0 && ((unsigned char)b.data[b.len - 1] & 0xC0) == 0xC0)
		b.len--;
	if (b.data != NULL)
		b.data[b.len] = '\0';
	return buf_steal(&b);
}

/* Columns every history query returns, in this order: 0 id, 1 captured_at, 2 client_id, 3 tab_id,
 * 4 request_id, 5 url, 6 title, 7 bytes, 8 content id for the snippet, 9 visit_id, 10 first_seen,
 * 11 captures in the visit, 12 the start of the Markdown (no query: the snippet is made from it). */
#define VISIT_COLS                                                                                       \
	"c.visit_id, (SELECT v.captured_at FROM captures v WHERE v.visit_id = c.visit_id ORDER BY v.id LIMIT 1), " \
	"(SELECT count(*) FROM captures v WHERE v.visit_id = c.visit_id), "

/* Run the history listing once with a given FTS query string; -1 on an SQL error. */
static int
history_run(sqlite3 *db, const struct store_query *q, const char *match, json_t *pages, char **err)
{
	/* ?1 match, ?2 url substring, ?3 before, ?4 limit, ?5 offset, ?6 newest first. */
	static const char *const visits_q =
		"WITH m AS MATERIALIZED (SELECT rowid AS cid, bm25(pages_fts, 10.0, 1.0) AS r FROM pages_fts WHERE pages_fts MATCH ?1),"
		" h AS (SELECT c.visit_id AS vid, min(m.r) AS r, max(c.id) AS hit FROM captures c"
		"   JOIN m ON m.cid = c.content_id WHERE (?2 IS NULL OR instr(c.url, ?2) > 0) GROUP BY c.visit_id),"
		" v AS (SELECT h.r, h.hit, (SELECT max(x.id) FROM captures x WHERE x.visit_id = h.vid) AS top FROM h),"
		/* Sorted and cut first: the per-visit figures are then looked up for the rows shown only. */
		" pick AS MATERIALIZED (SELECT r, hit, top FROM v WHERE (?3 = 0 OR top < ?3)"
		"   ORDER BY CASE WHEN ?6 THEN 0 ELSE r END, top DESC LIMIT ?4 OFFSET ?5)"
		" SELECT c.id, c.captured_at, c.client_id, c.tab_id, c.request_id, c.url, k.title, k.bytes, hc.content_id, "
		VISIT_COLS "NULL FROM pick v JOIN captures c ON c.id = v.top JOIN contents k ON k.id = c.content_id"
		" JOIN captures hc ON hc.id = v.hit ORDER BY CASE WHEN ?6 THEN 0 ELSE v.r END, v.top DESC";
	static const char *const visits_all =
		"SELECT c.id, c.captured_at, c.client_id, c.tab_id, c.request_id, c.url, k.title, k.bytes, c.content_id, "
		VISIT_COLS "substr(k.markdown, 1, 600) FROM captures c JOIN contents k ON k.id = c.content_id"
		" WHERE NOT EXISTS (SELECT 1 FROM captures n WHERE n.visit_id = c.visit_id AND n.id > c.id)"
		" AND (?2 IS NULL OR instr(c.url, ?2) > 0) AND (?3 = 0 OR c.id < ?3) AND ?6 = ?6"
		" ORDER BY c.id DESC LIMIT ?4 OFFSET ?5";
	static const char *const with_q =
		"WITH m AS MATERIALIZED (SELECT rowid AS cid, bm25(pages_fts, 10.0, 1.0) AS r FROM pages_fts WHERE pages_fts MATCH ?1)"
		" SELECT c.id, c.captured_at, c.client_id, c.tab_id, c.request_id, c.url, k.title, k.bytes, c.content_id, "
		"c.visit_id, NULL, NULL, NULL FROM captures c JOIN m ON m.cid = c.content_id JOIN contents k ON k.id = c.content_id"
		" WHERE (?2 IS NULL OR instr(c.url, ?2) > 0) AND (?3 = 0 OR c.id < ?3)"
		" ORDER BY CASE WHEN ?6 THEN 0 ELSE m.r END, c.id DESC LIMIT ?4 OFFSET ?5";
	static const char *const without_q =
		"SELECT c.id, c.captured_at, c.client_id, c.tab_id, c.request_id, c.url, k.title, k.bytes, c.content_id, "
		"c.visit_id, NULL, NULL, NULL FROM captures c JOIN contents k ON k.id = c.content_id"
		" WHERE (?2 IS NULL OR instr(c.url, ?2) > 0) AND (?3 = 0 OR c.id < ?3) AND ?6 = ?6"
		" ORDER BY c.id DESC LIMIT ?4 OFFSET ?5";
	const char *sql = q->visits ? (match ? visits_q : visits_all) : (match ? with_q : without_q);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		*err = xstrdup(sqlite3_errmsg(db));
		return -1;
	}
	if (match)
		sqlite3_bind_text(st, 1, match, -1, SQLITE_STATIC);
	if (q->url)
		sqlite3_bind_text(st, 2, q->url, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, q->before);
	sqlite3_bind_int64(st, 4, q->limit);
	sqlite3_bind_int64(st, 5, q->offset);
	sqlite3_bind_int(st, 6, q->recent);
	sqlite3_stmt *snip = NULL;
	if (match && sqlite3_prepare_v2(db,
	                                "SELECT snippet(pages_fts, 1, char(2), char(3), '…', 16) FROM pages_fts "
	                                "WHERE pages_fts MATCH ?1 AND rowid = ?2",
	                                -1, &snip, NULL) != SQLITE_OK)
		snip = NULL;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *o = page_row(st);
		json_object_set_new(o, "visit_id", col_int(st, 9));
		if (q->visits) {
			json_object_set_new(o, "first_seen", col_str(st, 10));
			json_object_set_new(o, "last_seen", col_str(st, 1));
			json_object_set_new(o, "captures", col_int(st, 11));
		}
		if (snip) {
			sqlite3_bind_text(snip, 1, match, -1, SQLITE_STATIC);
			sqlite3_bind_int64(snip, 2, sqlite3_column_int64(st, 8));
			if (sqlite3_step(snip) == SQLITE_ROW) {
				char *c = clean_snippet((const char *)sqlite3_column_text(snip, 0),
				                        (size_t)sqlite3_column_bytes(snip, 0), 400);
				json_object_set_new(o, "snippet", json_string_nocheck(c));
				free(c);
			}
			sqlite3_reset(snip);
		} else if (sqlite3_column_type(st, 12) == SQLITE_TEXT) {
			char *c = clean_snippet((const char *)sqlite3_column_text(st, 12), (size_t)sqlite3_column_bytes(st, 12),
			                        200);
			json_object_set_new(o, "snippet", json_string_nocheck(c));
			free(c);
		}
		json_array_append_new(pages, o);
	}
	sqlite3_finalize(snip);
	if (rc != SQLITE_DONE) {
		*err = xstrdup(sqlite3_errmsg(db));
		json_array_clear(pages);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* List visits or single captures, newest first or (searched) by relevance, filtered by URL. */
json_t *
store_history(struct store *s, const struct store_query *q, int *bad_query, char **err)
{
	*bad_query = 0;
	*err = NULL;
	sqlite3 *db = reader_get(s, err);
	if (db == NULL)
		return NULL;
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
	json_t *next = json_null(), *next_offset = json_null();
	int by_rank = match != NULL && !q->recent;
	if (n > 0 && (long)n == q->limit) {
		if (by_rank)
			next_offset = json_integer(q->offset + q->limit);
		else
			next = json_incref(json_object_get(json_array_get(pages, n - 1), "id"));
	}
	json_object_set_new(out, "group", json_string(q->visits ? "visits" : "none"));
	json_object_set_new(out, "sort", json_string(by_rank ? "relevance" : "recent"));
	json_object_set_new(out, "pages", pages);
	json_object_set_new(out, "next_before", next);
	json_object_set_new(out, "next_offset", next_offset);
	return out;
}

/* One page with its Markdown, or NULL when there is no such id (or, with *err, no readable file). */
json_t *
store_page(struct store *s, int64_t id, char **err)
{
	*err = NULL;
	sqlite3_stmt *st = reader_prepare(s,
	                                  "SELECT p.id, p.captured_at, p.client_id, p.tab_id, p.request_id, p.url, p.title, "
	                                  "p.bytes, p.markdown, p.truncated, c.visit_id, (SELECT count(*) FROM captures v "
	                                  "WHERE v.visit_id = c.visit_id) FROM pages p JOIN captures c ON c.id = p.id "
	                                  "WHERE p.id = ?",
	                                  err);
	if (st == NULL)
		return NULL;
	json_t *o = NULL;
	sqlite3_bind_int64(st, 1, id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		o = page_row(st);
		json_object_set_new(o, "markdown", col_str(st, 8));
		json_object_set_new(o, "truncated", json_boolean(sqlite3_column_int(st, 9)));
		json_object_set_new(o, "visit_id", col_int(st, 10));
		json_object_set_new(o, "visit_captures", col_int(st, 11));
	} else if (rc != SQLITE_DONE) {
		*err = xasprintf("the history cannot be read: %s", sqlite3_errmsg(sqlite3_db_handle(st)));
	}
	reader_finish(s, st);
	return o;
}

/* Logged tool calls, newest first; NULL with *err when the file cannot be read. */
json_t *
store_commands(struct store *s, long limit, int64_t before, char **err)
{
	*err = NULL;
	sqlite3_stmt *st = reader_prepare(s,
	                                  "SELECT id, request_id, tool, command, client_id, params, status, http_status, "
	                                  "message, error, summary, page_id, started_at, finished_at, duration_ms FROM "
	                                  "commands WHERE (?1 = 0 OR id < ?1) ORDER BY id DESC LIMIT ?2",
	                                  err);
	if (st == NULL)
		return NULL;
	json_t *arr = json_array();
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
	reader_finish(s, st);
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
	char *err = NULL, *fault = store_fault(s); /* whether it can be written now, and if not why */
	json_object_set_new(o, "writable", json_boolean(fault == NULL));
	if (fault != NULL)
		json_object_set_new(o, "fault", json_string(fault));
	free(fault);
	sqlite3_stmt *st = reader_prepare(s,
	                                  "SELECT (SELECT count(*) FROM captures), (SELECT count(*) FROM commands), "
	                                  "(SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size())",
	                                  &err);
	if (st == NULL) {
		json_object_set_new(o, "error", json_string(err));
		free(err);
		return o;
	}
	static const char *const k[] = {"pages", "commands", "bytes"};
	if (sqlite3_step(st) == SQLITE_ROW)
		for (int i = 0; i < 3; i++)
			json_object_set_new(o, k[i], json_integer(sqlite3_column_int64(st, i)));
	reader_finish(s, st);
	return o;
}
