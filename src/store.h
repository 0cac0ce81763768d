/*
 * store.h -- page and tool-call history in SQLite (WAL, FTS5).
 *
 * The writer connection belongs to the store's own thread. store_add_page/store_add_command may be
 * called from any thread: they queue the row and wake that thread, which writes every queued row in
 * one transaction (group commit) and only then runs the page callbacks, so a page reported to an
 * agent with its history_id is already in the database file. The query functions may be called from
 * any thread; each takes a read connection from a small pool and uses it alone.
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

/* Called on the store thread after the page is committed; page has "history_id" and "captured_at". */
typedef void (*store_page_fn)(json_t *page, int64_t id, void *arg);

struct store *store_open(const char *path, const struct store_opts *opts, char **err);
void store_close(struct store *st);
void store_add_page(struct store *st, json_t *page, store_page_fn done, void *arg);
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

json_t *store_history(struct store *st, const struct store_query *q, int *bad_query, char **err);
json_t *store_page(struct store *st, int64_t id);
json_t *store_commands(struct store *st, long limit, int64_t before);
json_t *store_stats(struct store *st);
const char *store_path(const struct store *st);

#endif
