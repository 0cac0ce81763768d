/*
 * pageview.h -- what of a page a tool answer carries (docs/api.md, "Snapshots and changes").
 *
 * The browser sends the whole page after every action and history stores it whole; the answer to
 * the agent carries, by the call's `snapshot` parameter:
 *   - "auto": when this caller already received a page of the same tab of the same browser, and
 *     the new page is the same document (the content script's documentId), only page.changes: the
 *     line diff (src/mddiff.h) from the page the caller last received to this one. Otherwise (a
 *     navigation, no earlier page, a diff that would not be clearly smaller) the whole page.markdown.
 *   - "full": always the whole page.markdown.
 *   - "none": no Markdown at all (url, title, history_id and the rest stay).
 * To diff, it keeps the last page each caller (struct tools_caller's key) received per browser and
 * tab: a bounded memory (BB_PAGEVIEW_ENTRIES_MAX entries, BB_PAGEVIEW_BYTES_MAX bytes of Markdown,
 * least recently used dropped first).
 *
 * Threads: pageview_create and pageview_free on the main thread; everything else on any thread
 * (the answer of a call is built on whichever thread finished it): one mutex guards the memory,
 * and the diff itself runs outside it.
 */
#ifndef BB_PAGEVIEW_H
#define BB_PAGEVIEW_H

#include <stddef.h>
#include <jansson.h>

struct pageview;

enum pageview_mode { PAGEVIEW_AUTO = 0, PAGEVIEW_FULL, PAGEVIEW_NONE };

/* What identifies whose memory a page goes to. document_id may be NULL (an older extension, a
 * page without a content script): such a page is never diffed. */
struct pageview_key {
	const char *caller;    /* struct tools_caller's key */
	const char *client_id; /* the browser */
	long long tab_id;      /* -1: none */
	const char *document_id;
};

struct pageview *pageview_create(size_t max_entries, size_t max_bytes);
void pageview_free(struct pageview *v);
int pageview_mode_parse(const char *s, enum pageview_mode *mode);
void pageview_shape(struct pageview *v, const struct pageview_key *k, enum pageview_mode mode, int remember,
                    json_t *page);
void pageview_slice(json_t *page, long long offset, long long max_chars);
void pageview_usage(struct pageview *v, size_t *entries, size_t *bytes);

#endif
