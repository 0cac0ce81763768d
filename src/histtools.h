/*
 * histtools.h -- the history tools (browser_history_search, browser_history_get): catalog entries
 * the daemon answers itself from its database, with no browser involved (struct tool's local hook).
 * They use the same queries as GET /api/history and GET /api/history/<id> (store_history,
 * store_page), run on a store reader thread (store_submit), never on the caller's (the event loop).
 *
 * Threads: histtools_search/histtools_get on the caller's thread; the answer callback runs on a
 * store reader thread (or the caller's, without a store).
 */
#ifndef BB_HISTTOOLS_H
#define BB_HISTTOOLS_H

#include <jansson.h>

#include "tools.h"

void histtools_search(struct tools *t, const struct tool *tool, json_t *params, tools_answer_fn cb, void *arg);
void histtools_get(struct tools *t, const struct tool *tool, json_t *params, tools_answer_fn cb, void *arg);

#endif
