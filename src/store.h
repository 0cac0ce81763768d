/*
 * store.h -- page and tool-call history in SQLite (WAL, FTS5).
 *
 * The writer connection belongs to the store's own thread. store_add_page/store_add_command may be
 * called from any thread: they queue the row and wake that thread, which writes every queued row in
 * one transaction (group commit, BEGIN IMMEDIATE) and only then runs the page callbacks, so a page
 * reported to an agent with its history_id is already committed to the database file. When the file
 * cannot be written (another process holds the write lock, the disk is full, the file was deleted or
 * moved) the rows are kept and retried with backoff; store_fault says why meanwhile. The ids of rows
 * that were rolled back are never handed out. The store thread alone remembers each tab's newest
 * capture (to put the next one in its visit without an index by tab).
 * store_delete may be called from any thread too: the deletion is queued like a row and runs on the
 * store thread (the writer connection's owner), and its callback runs there after the commit.
 * The query functions may be called from any thread; each takes a read-only connection (which never
 * creates a file) from a small pool and uses it alone. store_submit runs a function on one of the
 * store's reader threads, so slow reads stay off the event loop. The checkpointer has its own thread
 * and connection.
 */
#ifndef BB_STORE_H
#define BB_STORE_H

#include <stdint.h>
#include <jansson.h>

struct store;

struct store_opts {
	long retention_days;  /* 0: keep forever */
	long retention_pages; /* 0: no limit */
	int sync_full;
};

/* Called once on the store thread: after the page is committed (id > 0, error NULL; page has
 * "history_id" and "captured_at"), or when it was given up (id 0, error says why in one sentence). */
typedef void (*store_page_fn)(json_t *page, int64_t id, const char *error, void *arg);

struct store *store_open(const char *path, const struct store_opts *opts, char **err);
int store_close(struct store *st);
/* keep_until: monotonic ms until which the page is retried at least (a waiting call's deadline), or 0. */
void store_add_page(struct store *st, json_t *page, int64_t keep_until, store_page_fn done, void *arg);
/* record: the commands row by column name; "params" is the agent's parameters as JSON text. */
void store_add_command(struct store *st, json_t *record);
void store_flush(struct store *st);
size_t store_backlog(struct store *st);

struct store_query {
	const char *q;   /* FTS5 query over title and Markdown, or NULL */
	const char *url; /* substring of the URL, or NULL */
	long limit;
	int64_t before;  /* 0: from the newest */
	int visits;      /* 1: one row per visit (consecutive captures of one URL in one tab, none more than
	                  * BB_STORE_VISIT_WINDOW captures after the one before); 0: per capture */
	int recent;      /* with q: newest first; 0: by relevance (bm25, title above text) */
	long offset;     /* rows to skip (paging in relevance order, where before does not apply) */
};

/* What to delete: one capture (id), its whole visit (id and visit), or every capture whose URL starts
 * with url_prefix and/or that was captured before `before` (ISO 8601 UTC text, compared as text). */
struct store_delete {
	int64_t id;
	int visit;
	const char *url_prefix;
	const char *before;
};

/* Called once on the store thread after a deletion was committed (removed: captures deleted, error
 * NULL) or given up (removed -1, error says why in one sentence). */
typedef void (*store_delete_fn)(int64_t removed, const char *error, void *arg);

/* Queue a deletion (the strings are copied); contents no capture uses any more go with it. */
void store_delete(struct store *st, const struct store_delete *what, store_delete_fn done, void *arg);

/* Why the database cannot be written right now (one sentence, caller frees), or NULL when it can. */
char *store_fault(struct store *st);
void store_submit(struct store *st, void (*fn)(void *arg), void *arg);

/* The queries: NULL with *err set when the database cannot be read (err: one sentence). */
json_t *store_history(struct store *st, const struct store_query *q, int *bad_query, char **err);
/* NULL with *err NULL: no such page. */
json_t *store_page(struct store *st, int64_t id, char **err);
json_t *store_commands(struct store *st, long limit, int64_t before, char **err);
json_t *store_stats(struct store *st);
const char *store_path(const struct store *st);

#endif
