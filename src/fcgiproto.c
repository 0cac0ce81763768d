/* fcgiproto.c -- see fcgiproto.h. */
#include "autoconfig.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fcgiproto.h"
#include "util.h"

static const unsigned char zeros[8];

/* Find the whole record at the start of p: 1 with it, 0 when more bytes are needed, -1 when the
 * version is not 1 (the connection must go). */
int
fcgiproto_next_record(const unsigned char *p, size_t len, struct fcgiproto_record *rec)
{
	if (len < FCGI_HEADER_LEN)
		return 0;
	if (p[0] != 1)
		return -1;
	size_t clen = ((size_t)p[4] << 8) | p[5], need = FCGI_HEADER_LEN + clen + p[6];
	if (len < need)
		return 0;
	rec->type = p[1];
	rec->id = (uint16_t)((p[2] << 8) | p[3]);
	rec->content = p + FCGI_HEADER_LEN;
	rec->len = clen;
	rec->size = need;
	return 1;
}

/* Queue one record; padded to a multiple of 8 bytes as the specification recommends. */
void
fcgiproto_put_record(struct buf *out, int type, uint16_t id, const void *p, size_t n)
{
	unsigned char h[FCGI_HEADER_LEN];
	size_t pad = (8 - n % 8) % 8;
	h[0] = 1;
	h[1] = (unsigned char)type;
	h[2] = (unsigned char)(id >> 8);
	h[3] = (unsigned char)(id & 0xff);
	h[4] = (unsigned char)(n >> 8);
	h[5] = (unsigned char)(n & 0xff);
	h[6] = (unsigned char)pad;
	h[7] = 0;
	buf_add(out, h, sizeof h);
	if (n > 0)
		buf_add(out, p, n);
	if (pad > 0)
		buf_add(out, zeros, pad);
}

/* Queue stream data split into records; a record's content is at most 65535 bytes. */
void
fcgiproto_put_stdout(struct buf *out, uint16_t id, const char *p, size_t n)
{
	while (n > 0) {
		size_t k = n > FCGI_CHUNK ? FCGI_CHUNK : n;
		fcgiproto_put_record(out, FCGI_STDOUT, id, p, k);
		p += k;
		n -= k;
	}
}

/* Queue the end of a request: an empty STDOUT (end of stream) when it had output, then END_REQUEST. */
void
fcgiproto_put_end(struct buf *out, uint16_t id, int had_stdout, int proto_status)
{
	unsigned char b[8] = {0, 0, 0, 0, (unsigned char)proto_status, 0, 0, 0};
	if (had_stdout)
		fcgiproto_put_record(out, FCGI_STDOUT, id, NULL, 0);
	fcgiproto_put_record(out, FCGI_END_REQUEST, id, b, sizeof b);
}

/* Append a name-value pair in FastCGI's length encoding (GET_VALUES_RESULT). */
void
fcgiproto_put_nv(struct buf *b, const char *name, const char *value)
{
	size_t lens[2] = {strlen(name), strlen(value)};
	for (int i = 0; i < 2; i++) {
		if (lens[i] < 128) {
			unsigned char l = (unsigned char)lens[i];
			buf_add(b, &l, 1);
		} else {
			unsigned char l[4] = {(unsigned char)((lens[i] >> 24) | 0x80), (unsigned char)(lens[i] >> 16),
			                      (unsigned char)(lens[i] >> 8), (unsigned char)lens[i]};
			buf_add(b, l, 4);
		}
	}
	buf_add(b, name, lens[0]);
	buf_add(b, value, lens[1]);
}

/* Read one length of a name-value pair (1 byte, or 4 with the top bit set); -1 if it runs past the end. */
static int
nv_len(const unsigned char *p, size_t len, size_t *off, size_t *out)
{
	if (*off >= len)
		return -1;
	if (p[*off] < 128) {
		*out = p[(*off)++];
		return 0;
	}
	if (len - *off < 4)
		return -1;
	*out = ((size_t)(p[*off] & 0x7f) << 24) | ((size_t)p[*off + 1] << 16) | ((size_t)p[*off + 2] << 8) |
	       p[*off + 3];
	*off += 4;
	return 0;
}

/* Step over one name-value pair; 0 with its parts, 1 at the end, -1 when malformed. */
int
fcgiproto_nv_next(const unsigned char *p, size_t len, size_t *off, const unsigned char **name, size_t *nlen,
                  const unsigned char **value, size_t *vlen)
{
	if (*off == len)
		return 1;
	if (nv_len(p, len, off, nlen) != 0 || nv_len(p, len, off, vlen) != 0)
		return -1;
	if (*nlen > len - *off || *vlen > len - *off - *nlen)
		return -1;
	*name = p + *off;
	*value = p + *off + *nlen;
	*off += *nlen + *vlen;
	return 0;
}

/* Build the FCGI_GET_VALUES_RESULT record for a FCGI_GET_VALUES content; -1 when it is malformed. */
int
fcgiproto_get_values(const unsigned char *p, size_t len, int max_conns, int max_reqs, struct buf *out)
{
	struct buf b = {0};
	const unsigned char *name, *value;
	size_t off = 0, nlen, vlen;
	int rc;
	char num[24];
	while ((rc = fcgiproto_nv_next(p, len, &off, &name, &nlen, &value, &vlen)) == 0) {
		if (nlen == 14 && memcmp(name, "FCGI_MAX_CONNS", 14) == 0) {
			snprintf(num, sizeof num, "%d", max_conns);
			fcgiproto_put_nv(&b, "FCGI_MAX_CONNS", num);
		} else if (nlen == 13 && memcmp(name, "FCGI_MAX_REQS", 13) == 0) {
			snprintf(num, sizeof num, "%d", max_reqs);
			fcgiproto_put_nv(&b, "FCGI_MAX_REQS", num);
		} else if (nlen == 15 && memcmp(name, "FCGI_MPXS_CONNS", 15) == 0) {
			fcgiproto_put_nv(&b, "FCGI_MPXS_CONNS", "1");
		}
	}
	if (rc < 0 || b.len > 65535) {
		buf_free(&b);
		return -1;
	}
	fcgiproto_put_record(out, FCGI_GET_VALUES_RESULT, 0, b.data, b.len);
	buf_free(&b);
	return 0;
}

/* Decode %XX (and, in a query string, '+') in place; a malformed escape is kept as it is. */
static void
url_decode(char *s, int plus)
{
	char *o = s;
	for (; *s; s++) {
		if (*s == '%' && isxdigit((unsigned char)s[1]) && isxdigit((unsigned char)s[2])) {
			char hex[3] = {s[1], s[2], '\0'};
			*o++ = (char)strtol(hex, NULL, 16);
			s += 2;
		} else if (*s == '+' && plus) {
			*o++ = ' ';
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* Split QUERY_STRING into decoded names and values once, for fcgiproto_query. */
static void
parse_query(struct fcgiproto_params *pp)
{
	const char *qs = fcgiproto_param(pp, "QUERY_STRING");
	size_t cap = 0;
	if (qs == NULL || *qs == '\0')
		return;
	pp->q_text = xstrdup(qs);
	for (char *save = NULL, *part = strtok_r(pp->q_text, "&", &save); part; part = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(part, '=');
		if (eq != NULL)
			*eq++ = '\0';
		url_decode(part, 1);
		if (eq != NULL)
			url_decode(eq, 1);
		if (pp->n_qkv + 2 > cap) {
			cap = cap ? cap * 2 : 16;
			pp->qkv = xrealloc(pp->qkv, cap * sizeof *pp->qkv);
		}
		pp->qkv[pp->n_qkv++] = part;
		pp->qkv[pp->n_qkv++] = eq ? eq : part + strlen(part); /* "?flag" is an empty value, like MHD's */
	}
}

/* Turn the raw FCGI_PARAMS stream into NUL-terminated names and values and split the query string;
 * -1 when the stream is malformed (pp is then still to be freed). */
int
fcgiproto_params_parse(struct fcgiproto_params *pp, const unsigned char *p, size_t len)
{
	const unsigned char *name, *value;
	size_t off = 0, nlen, vlen, at = 0, cap = 0;
	int rc;
	memset(pp, 0, sizeof *pp);
	/* Every pair has at least two length bytes, so names and values with their NULs fit in len + 1. */
	pp->text = xmalloc(len + 1);
	while ((rc = fcgiproto_nv_next(p, len, &off, &name, &nlen, &value, &vlen)) == 0) {
		if (pp->n_kv + 2 > cap) {
			cap = cap ? cap * 2 : 64;
			pp->kv = xrealloc(pp->kv, cap * sizeof *pp->kv);
		}
		pp->kv[pp->n_kv++] = pp->text + at;
		memcpy(pp->text + at, name, nlen);
		at += nlen;
		pp->text[at++] = '\0';
		pp->kv[pp->n_kv++] = pp->text + at;
		memcpy(pp->text + at, value, vlen);
		at += vlen;
		pp->text[at++] = '\0';
	}
	if (rc < 0)
		return -1;
	parse_query(pp);
	return 0;
}

/* Free what fcgiproto_params_parse made. */
void
fcgiproto_params_free(struct fcgiproto_params *pp)
{
	free(pp->text);
	free(pp->kv);
	free(pp->q_text);
	free(pp->qkv);
	memset(pp, 0, sizeof *pp);
}

/* A FastCGI parameter (CGI variable) of the request, or NULL; the first one wins. */
const char *
fcgiproto_param(const struct fcgiproto_params *pp, const char *name)
{
	for (size_t i = 0; i + 1 < pp->n_kv; i += 2)
		if (strcmp(pp->kv[i], name) == 0)
			return pp->kv[i + 1];
	return NULL;
}

/* A request header, from its CGI variable (Mcp-Session-Id is HTTP_MCP_SESSION_ID), or NULL. */
const char *
fcgiproto_header(const struct fcgiproto_params *pp, const char *name)
{
	char var[128];
	size_t n = 0;
	if (strcasecmp(name, "Content-Type") != 0 && strcasecmp(name, "Content-Length") != 0) {
		memcpy(var, "HTTP_", 5);
		n = 5;
	}
	for (const char *s = name; *s; s++) {
		if (n + 1 >= sizeof var)
			return NULL;
		var[n++] = *s == '-' ? '_' : (char)toupper((unsigned char)*s);
	}
	var[n] = '\0';
	return fcgiproto_param(pp, var);
}

/* A query-string argument, URL-decoded; the first one wins, as with MHD. */
const char *
fcgiproto_query(const struct fcgiproto_params *pp, const char *name)
{
	for (size_t i = 0; i + 1 < pp->n_qkv; i += 2)
		if (strcmp(pp->qkv[i], name) == 0)
			return pp->qkv[i + 1];
	return NULL;
}

/* The request path without its query (owned by the caller): nginx's decoded DOCUMENT_URI, else the
 * decoded REQUEST_URI, else SCRIPT_NAME and PATH_INFO. It may be empty or not start with '/'. */
char *
fcgiproto_path(const struct fcgiproto_params *pp)
{
	const char *p;
	if ((p = fcgiproto_param(pp, "DOCUMENT_URI")) != NULL && *p != '\0')
		return xstrdup(p);
	if ((p = fcgiproto_param(pp, "REQUEST_URI")) != NULL && *p != '\0') {
		char *path = xstrndup(p, strcspn(p, "?"));
		url_decode(path, 0);
		return path;
	}
	const char *sn = fcgiproto_param(pp, "SCRIPT_NAME"), *pi = fcgiproto_param(pp, "PATH_INFO");
	return xasprintf("%s%s", sn ? sn : "", pi ? pi : "");
}
