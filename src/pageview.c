/* pageview.c -- see pageview.h. */
#include "autoconfig.h"

#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "mddiff.h"
#include "pageview.h"
#include "util.h"

struct entry {
	char *key; /* caller \x1f client_id \x1f tab_id */
	char *doc; /* the document id of the page kept */
	char *md;  /* the Markdown the caller received */
	size_t len;
	uint64_t used; /* when last used, in calls: the least recent goes first */
};

struct pageview {
	pthread_mutex_t lock;
	size_t max_entries, max_bytes;
	struct entry *e; /* lock: n entries, bytes of Markdown in all */
	size_t n, bytes;
	uint64_t clock;
};

/* An empty memory for at most max_entries pages and max_bytes of Markdown. */
struct pageview *
pageview_create(size_t max_entries, size_t max_bytes)
{
	struct pageview *v = xcalloc(1, sizeof *v);
	pthread_mutex_init(&v->lock, NULL);
	v->max_entries = max_entries ? max_entries : 1;
	v->max_bytes = max_bytes;
	v->e = xcalloc(v->max_entries, sizeof *v->e);
	return v;
}

/* Release an entry's strings. */
static void
entry_clear(struct entry *e)
{
	free(e->key);
	free(e->doc);
	free(e->md);
	memset(e, 0, sizeof *e);
}

/* Free it. NULL is fine. */
void
pageview_free(struct pageview *v)
{
	if (v == NULL)
		return;
	for (size_t i = 0; i < v->n; i++)
		entry_clear(&v->e[i]);
	free(v->e);
	pthread_mutex_destroy(&v->lock);
	free(v);
}

/* The `snapshot` parameter's value as a mode; -1 when it is none of them. */
int
pageview_mode_parse(const char *s, enum pageview_mode *mode)
{
	if (s == NULL || strcmp(s, "auto") == 0)
		*mode = PAGEVIEW_AUTO;
	else if (strcmp(s, "full") == 0)
		*mode = PAGEVIEW_FULL;
	else if (strcmp(s, "none") == 0)
		*mode = PAGEVIEW_NONE;
	else
		return -1;
	return 0;
}

/* How many pages and Markdown bytes the memory holds (tests). */
void
pageview_usage(struct pageview *v, size_t *entries, size_t *bytes)
{
	pthread_mutex_lock(&v->lock);
	*entries = v->n;
	*bytes = v->bytes;
	pthread_mutex_unlock(&v->lock);
}

/* The entry for key, or NULL (lock held). */
static struct entry *
find(struct pageview *v, const char *key)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->e[i].key, key) == 0)
			return &v->e[i];
	return NULL;
}

/* Drop the entry at i (lock held). */
static void
drop(struct pageview *v, size_t i)
{
	v->bytes -= v->e[i].len;
	entry_clear(&v->e[i]);
	v->e[i] = v->e[--v->n];
	memset(&v->e[v->n], 0, sizeof v->e[v->n]);
}

/* Drop the least recently used entries until one more of len bytes fits (lock held). */
static void
make_room(struct pageview *v, size_t len)
{
	while (v->n > 0 && (v->n >= v->max_entries || v->bytes + len > v->max_bytes)) {
		size_t old = 0;
		for (size_t i = 1; i < v->n; i++)
			if (v->e[i].used < v->e[old].used)
				old = i;
		drop(v, old);
	}
}

/* Remember md as what the caller received for key (lock held); a page over the whole byte budget
 * is not kept, and an earlier one for the key is forgotten either way. */
static void
remember_locked(struct pageview *v, const char *key, const char *doc, const char *md, size_t len)
{
	struct entry *e = find(v, key);
	if (e != NULL)
		drop(v, (size_t)(e - v->e));
	if (doc == NULL || len > v->max_bytes)
		return;
	make_room(v, len);
	e = &v->e[v->n++];
	e->key = xstrdup(key);
	e->doc = xstrdup(doc);
	e->md = xmalloc(len + 1);
	memcpy(e->md, md, len);
	e->md[len] = '\0';
	e->len = len;
	e->used = ++v->clock;
	v->bytes += len;
}

/*
 * Shape page (the agent's page object, with its whole markdown) in place for the mode (see
 * pageview.h). remember: the caller receives this page whole or as changes, so later changes are
 * counted from it (a page cut by selector or paging is not remembered).
 */
void
pageview_shape(struct pageview *v, const struct pageview_key *k, enum pageview_mode mode, int remember,
               json_t *page)
{
	json_t *mdj = json_object_get(page, "markdown");
	if (!json_is_object(page) || !json_is_string(mdj))
		return;
	if (mode == PAGEVIEW_NONE) {
		json_object_del(page, "markdown");
		return;
	}
	const char *md = json_string_value(mdj);
	size_t len = json_string_length(mdj);
	const char *doc = k->document_id && *k->document_id ? k->document_id : NULL;
	char *key = xasprintf("%s\x1f%s\x1f%lld", k->caller ? k->caller : "", k->client_id ? k->client_id : "",
	                      k->tab_id);
	char *old = NULL;
	size_t oldlen = 0;
	pthread_mutex_lock(&v->lock);
	struct entry *e = find(v, key);
	if (e != NULL)
		e->used = ++v->clock;
	if (mode == PAGEVIEW_AUTO && doc != NULL && e != NULL && strcmp(e->doc, doc) == 0) {
		old = xmalloc(e->len + 1);
		memcpy(old, e->md, e->len + 1);
		oldlen = e->len;
	}
	pthread_mutex_unlock(&v->lock);
	if (old != NULL) {
		/* changes only when clearly smaller than the page: at most three quarters of it */
		char *diff;
		size_t dlen;
		if (mddiff(old, oldlen, md, len, len / 4 * 3, &diff, &dlen) == MDDIFF_OK) {
			json_object_set_new(page, "changes", json_stringn(diff, dlen));
			free(diff);
		}
		free(old);
	}
	if (remember) {
		pthread_mutex_lock(&v->lock);
		remember_locked(v, key, doc, md, len);
		pthread_mutex_unlock(&v->lock);
	}
	if (json_object_get(page, "changes") != NULL)
		json_object_del(page, "markdown"); /* md is not used past here */
	free(key);
}

/* Bytes of the first n code points of UTF-8 s (len bytes), or len when it has fewer. */
static size_t
utf8_skip(const char *s, size_t len, long long n, long long *counted)
{
	size_t i = 0;
	long long c = 0;
	while (i < len && c < n) {
		i++;
		while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80)
			i++;
		c++;
	}
	*counted = c;
	return i;
}

/* Cut page.markdown to at most max_chars characters (code points) from offset (max_chars < 0: to
 * the end), and say where it stands: offset, total_chars, remaining_chars, next_offset (null at
 * the end). */
void
pageview_slice(json_t *page, long long offset, long long max_chars)
{
	json_t *mdj = json_object_get(page, "markdown");
	if (!json_is_string(mdj))
		return;
	const char *md = json_string_value(mdj);
	size_t len = json_string_length(mdj);
	long long total, skipped, taken;
	utf8_skip(md, len, BB_PAGE_CHARS_MAX + 1LL, &total);
	size_t from = utf8_skip(md, len, offset, &skipped);
	size_t n = utf8_skip(md + from, len - from, max_chars < 0 ? total : max_chars, &taken);
	long long remaining = total - skipped - taken;
	json_t *slice = json_stringn(md + from, n);
	json_object_set_new(page, "markdown", slice);
	json_object_set_new(page, "offset", json_integer(offset));
	json_object_set_new(page, "total_chars", json_integer(total));
	json_object_set_new(page, "remaining_chars", json_integer(remaining));
	json_object_set_new(page, "next_offset", remaining > 0 ? json_integer(skipped + taken) : json_null());
}
