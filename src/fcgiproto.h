/*
 * fcgiproto.h -- the FastCGI 1.0 protocol, responder role, without sockets: records in and out,
 * name-value pairs, and the params of a request turned into what the router asks for (method,
 * path, headers, query). fcgi.c runs it on the event loop; the unit tests and the fuzzer call it
 * directly.
 *
 * Pure functions over caller-owned memory: any thread, no shared state.
 */
#ifndef BB_FCGIPROTO_H
#define BB_FCGIPROTO_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* Record types, the role, the flag and the protocol statuses we use (FastCGI 1.0). */
#define FCGI_BEGIN_REQUEST 1
#define FCGI_ABORT_REQUEST 2
#define FCGI_END_REQUEST 3
#define FCGI_PARAMS 4
#define FCGI_STDIN 5
#define FCGI_STDOUT 6
#define FCGI_DATA 8
#define FCGI_GET_VALUES 9
#define FCGI_GET_VALUES_RESULT 10
#define FCGI_UNKNOWN_TYPE 11
#define FCGI_RESPONDER 1
#define FCGI_KEEP_CONN 1
#define FCGI_REQUEST_COMPLETE 0
#define FCGI_OVERLOADED 2
#define FCGI_UNKNOWN_ROLE 3
#define FCGI_HEADER_LEN 8
#define FCGI_CHUNK 32768 /* body bytes per STDOUT record we write (the format allows 65535) */

/* One whole record found in an input buffer; content points into that buffer. */
struct fcgiproto_record {
	int type;
	uint16_t id;
	const unsigned char *content;
	size_t len;
	size_t size; /* header, content and padding: how far to step */
};

/* A request's params, parsed: names and values, and the query string split and decoded. */
struct fcgiproto_params {
	char *text; /* NUL-terminated names and values */
	char **kv;  /* name, value, name, value, ... into text */
	size_t n_kv;
	char *q_text; /* the query string, split and URL-decoded in place */
	char **qkv;
	size_t n_qkv;
};

int fcgiproto_next_record(const unsigned char *p, size_t len, struct fcgiproto_record *rec);
void fcgiproto_put_record(struct buf *out, int type, uint16_t id, const void *p, size_t n);
void fcgiproto_put_stdout(struct buf *out, uint16_t id, const char *p, size_t n);
void fcgiproto_put_end(struct buf *out, uint16_t id, int had_stdout, int proto_status);
void fcgiproto_put_nv(struct buf *b, const char *name, const char *value);
int fcgiproto_nv_next(const unsigned char *p, size_t len, size_t *off, const unsigned char **name, size_t *nlen,
                      const unsigned char **value, size_t *vlen);
int fcgiproto_get_values(const unsigned char *p, size_t len, int max_conns, int max_reqs, struct buf *out);
int fcgiproto_params_parse(struct fcgiproto_params *pp, const unsigned char *p, size_t len);
void fcgiproto_params_free(struct fcgiproto_params *pp);
const char *fcgiproto_param(const struct fcgiproto_params *pp, const char *name);
const char *fcgiproto_header(const struct fcgiproto_params *pp, const char *name);
const char *fcgiproto_query(const struct fcgiproto_params *pp, const char *name);
char *fcgiproto_path(const struct fcgiproto_params *pp);

#endif
