/*
 * store.h -- page and tool-call history in SQLite (WAL, FTS5).
 *
 * The writer connection belongs to the store's own thread. store_add_page/store_add_command may be
 * called from any thread: they queue the row and wake that thread, which writes every queued row in
 * one transaction (group commit, BEGIN IMMEDIATE) and only then runs the page callbacks, so a page
 * reported to an agent with its history_id is already committed to the database file. When the file
 * cannot be written (another process holds the write lock, the disk is full, the file was deleted or
 * moved) the rows are kept and retried with backoff; store_fault says why meanwhile. The ids of rows
 * that were rolled back are never handed out.
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
};

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
