/*
 * reqresp.h -- what every transport shares (prefix rr_): the request and response the router and
 * MCP see, the security headers and Content-Security-Policy every answer carries, and the errors a
 * transport answers before the router sees a request (431, 413, 400). The libmicrohttpd listener
 * (http.c) and the FastCGI responder (fcgi.c) are the transports.
 *
 * A request is answered through req->complete exactly once, either before the handler returns or
 * later from another thread (a tool call finishing, a store read); a transport is ready for both
 * and resumes the request on the event loop (loop.h). Responses are plain data: any thread.
 */
#ifndef BB_REQRESP_H
#define BB_REQRESP_H

#include <stddef.h>

struct events_sub;

#define RR_CSP \
	"default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; " \
	"frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

struct rr_resp {
	int status;
	const char *content_type;
	char *body; /* owned */
	size_t len;
	char *set_cookie; /* owned, or NULL */
	char *location;   /* owned, or NULL */
	char *extra_name; /* one more header (e.g. Mcp-Session-Id), owned, or NULL */
	char *extra_value;
	struct events_sub *stream; /* Server-Sent Events: the transport reads from it */
	void *json; /* a JSON body not yet serialised: rr_resp_render does it on the transport's thread */
};

struct rr_req {
	const char *method;
	const char *path; /* without the query string */
	const char *body;
	size_t body_len;
	int own_port; /* the listener's port, for Host/Origin checks; 0 behind FastCGI */
	const char *(*header)(struct rr_req *r, const char *name);
	const char *(*query)(struct rr_req *r, const char *name);
	void (*complete)(struct rr_req *r, struct rr_resp *resp);
	int can_stream; /* the transport can send a Server-Sent-Events stream */
	int local_peer; /* came over the API's Unix socket from the daemon's own user: authenticated, no Host check */
};

/* Called once per header a response carries besides its own (see rr_security_headers). */
typedef void (*rr_header_fn)(void *arg, const char *name, const char *value);

void rr_resp_free(struct rr_resp *resp);
struct rr_resp *rr_json(int status, void *json);
struct rr_resp *rr_error(int status, const char *code, const char *msg);
void rr_resp_render(struct rr_resp *resp);
int rr_media_type_is(const char *content_type, const char *want);
int rr_is_api_path(const char *path);
void rr_security_headers(const char *path, rr_header_fn add, void *arg);

#endif
