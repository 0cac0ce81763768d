/* auth.c -- see auth.h. */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "auth.h"
#include "limits.h"
#include "log.h"
#include "util.h"

#define TOKEN_MIN 16
#define TOKEN_MAX 256
#define COOKIE_NAME "bb_session="

struct auth {
	char *token;
	pthread_mutex_t lock;
	char sessions[BB_SESSIONS_MAX][65];
	int next_slot;
};

/* Create a new random token file with mode 0600 (its directory 0700); O_EXCL so we never clobber one. */
static char *
create_token(const char *path, char **err)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash != NULL && slash != dir) {
		*slash = '\0';
		if (util_mkdirs(dir, 0700) != 0) {
			*err = xasprintf("cannot create %s: %s", dir, strerror(errno));
			free(dir);
			return NULL;
		}
	}
	free(dir);
	unsigned char raw[32];
	char hex[65];
	util_random(raw, sizeof raw);
	util_hex(raw, sizeof raw, hex);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		*err = xasprintf("cannot create token file %s: %s", path, strerror(errno));
		return NULL;
	}
	char line[66];
	snprintf(line, sizeof line, "%s\n", hex);
	if (write(fd, line, 65) != 65 || fsync(fd) != 0) {
		*err = xasprintf("cannot write token file %s: %s", path, strerror(errno));
		close(fd);
		unlink(path);
		return NULL;
	}
	close(fd);
	log_info("created a new pairing token in %s (print it with: browser-bridge token)", path);
	return xstrdup(hex);
}

/* Read the token file (creating it when asked and missing); the token must be printable, 16-256 chars. */
char *
auth_read_token(const char *path, int create, char **err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT && create)
			return create_token(path, err);
		*err = xasprintf("cannot read token file %s: %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && (st.st_mode & 077) != 0)
		log_warn("token file %s is readable by other users (mode %03o); run: chmod 600 %s", path,
		         (unsigned)(st.st_mode & 0777), path);
	char buf[TOKEN_MAX + 2];
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n < 0) {
		*err = xasprintf("cannot read token file %s: %s", path, strerror(errno));
		return NULL;
	}
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	if (n < TOKEN_MIN || n > TOKEN_MAX) {
		*err = xasprintf("token file %s must hold one token of %d to %d characters", path, TOKEN_MIN, TOKEN_MAX);
		return NULL;
	}
	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] <= 0x20 || buf[i] >= 0x7f) {
			*err = xasprintf("token file %s: the token must be printable ASCII without spaces", path);
			return NULL;
		}
	}
	return xstrdup(buf);
}

/* Load or create the token. */
struct auth *
auth_create(const char *token_file, char **err)
{
	char *tok = auth_read_token(token_file, 1, err);
	if (tok == NULL)
		return NULL;
	struct auth *a = xcalloc(1, sizeof *a);
	a->token = tok;
	pthread_mutex_init(&a->lock, NULL);
	return a;
}

/* Wipe and release; NULL is fine. */
void
auth_free(struct auth *a)
{
	if (a == NULL)
		return;
	explicit_bzero(a->token, strlen(a->token));
	free(a->token);
	explicit_bzero(a->sessions, sizeof a->sessions);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

/* The token itself, for the pairing view and the headless runtime. */
const char *
auth_token(const struct auth *a)
{
	return a->token;
}

/* Constant-time comparison of a presented token with ours. */
int
auth_check_token(const struct auth *a, const char *presented)
{
	return presented != NULL && util_ct_equal(presented, a->token);
}

/* Check an "Authorization: Bearer <token>" header value. */
int
auth_check_bearer(const struct auth *a, const char *h)
{
	if (h == NULL || strncasecmp(h, "Bearer ", 7) != 0)
		return 0;
	h += 7;
	while (*h == ' ')
		h++;
	return auth_check_token(a, h);
}

/* Unpadded base64url of n bytes into out (4n/3 rounded up, plus the NUL). */
static void
b64url(const unsigned char *in, size_t n, char *out)
{
	static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	size_t o = 0, i = 0;
	for (; i + 2 < n; i += 3) {
		unsigned v = (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8 | in[i + 2];
		out[o++] = al[v >> 18 & 63];
		out[o++] = al[v >> 12 & 63];
		out[o++] = al[v >> 6 & 63];
		out[o++] = al[v & 63];
	}
	if (n - i == 1) {
		unsigned v = (unsigned)in[i] << 16;
		out[o++] = al[v >> 18 & 63];
		out[o++] = al[v >> 12 & 63];
	} else if (n - i == 2) {
		unsigned v = (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8;
		out[o++] = al[v >> 18 & 63];
		out[o++] = al[v >> 12 & 63];
		out[o++] = al[v >> 6 & 63];
	}
	out[o] = '\0';
}

/* A fresh challenge or client nonce: 32 random bytes, unpadded base64url (43 characters). */
void
auth_nonce(char out[AUTH_NONCE_LEN + 1])
{
	unsigned char raw[32];
	util_random(raw, sizeof raw);
	b64url(raw, sizeof raw, out);
}

/* Whether a peer's nonce has exactly the shape auth_nonce makes (so it cannot smuggle a newline). */
int
auth_valid_nonce(const char *s)
{
	if (s == NULL || strlen(s) != AUTH_NONCE_LEN)
		return 0;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' ||
		      *p == '_'))
			return 0;
	/* 43 characters carry 258 bits: the last one must leave the two spare bits zero. */
	return strchr("AEIMQUYcgkosw048", s[AUTH_NONCE_LEN - 1]) != NULL;
}

/* base64url(HMAC-SHA256(token, "browser-bridge LABEL\n" FIRST "\n" SECOND)): a proof that whoever made
 * it holds the token, bound to both nonces of this one connection. */
void
auth_proof(const struct auth *a, const char *label, const char *first, const char *second,
           char out[AUTH_NONCE_LEN + 1])
{
	char *msg = xasprintf("browser-bridge %s\n%s\n%s", label, first, second);
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int maclen = 0;
	if (HMAC(EVP_sha256(), a->token, (int)strlen(a->token), (const unsigned char *)msg, strlen(msg), mac, &maclen) ==
	        NULL ||
	    maclen != 32)
		abort(); /* libcrypto without SHA-256: nothing sensible to do */
	b64url(mac, 32, out);
	explicit_bzero(mac, sizeof mac);
	free(msg);
}

/* Check a peer's proof in constant time; a missing or misshapen one is simply wrong. */
int
auth_check_proof(const struct auth *a, const char *label, const char *first, const char *second,
                 const char *presented)
{
	if (presented == NULL || strlen(presented) != AUTH_NONCE_LEN)
		return 0;
	char want[AUTH_NONCE_LEN + 1];
	auth_proof(a, label, first, second, want);
	int ok = CRYPTO_memcmp(want, presented, AUTH_NONCE_LEN) == 0;
	explicit_bzero(want, sizeof want);
	return ok;
}

/* Start a dashboard session: a fresh random id; the oldest session is dropped when all slots are full. */
int
auth_session_new(struct auth *a, char out[65])
{
	unsigned char raw[32];
	util_random(raw, sizeof raw);
	util_hex(raw, sizeof raw, out);
	pthread_mutex_lock(&a->lock);
	memcpy(a->sessions[a->next_slot], out, 65);
	a->next_slot = (a->next_slot + 1) % BB_SESSIONS_MAX;
	pthread_mutex_unlock(&a->lock);
	return 0;
}

/* Find our cookie's value in a Cookie header; copies at most 64 chars into out. */
static int
cookie_value(const char *h, char out[65])
{
	if (h == NULL)
		return 0;
	for (const char *p = h; (p = strstr(p, COOKIE_NAME)) != NULL; p++) {
		if (p != h && p[-1] != ' ' && p[-1] != ';')
			continue;
		p += strlen(COOKIE_NAME);
		size_t n = strcspn(p, "; ");
		if (n != 64)
			return 0;
		memcpy(out, p, 64);
		out[64] = '\0';
		return 1;
	}
	return 0;
}

/* Whether the Cookie header carries a live session. */
int
auth_session_check(struct auth *a, const char *cookie_header)
{
	char v[65];
	if (!cookie_value(cookie_header, v))
		return 0;
	int ok = 0;
	pthread_mutex_lock(&a->lock);
	for (int i = 0; i < BB_SESSIONS_MAX; i++)
		if (a->sessions[i][0] != '\0' && util_ct_equal(a->sessions[i], v))
			ok = 1;
	pthread_mutex_unlock(&a->lock);
	return ok;
}

/* Forget the session named by the Cookie header (logout). */
void
auth_session_end(struct auth *a, const char *cookie_header)
{
	char v[65];
	if (!cookie_value(cookie_header, v))
		return;
	pthread_mutex_lock(&a->lock);
	for (int i = 0; i < BB_SESSIONS_MAX; i++)
		if (a->sessions[i][0] != '\0' && util_ct_equal(a->sessions[i], v))
			memset(a->sessions[i], 0, 65);
	pthread_mutex_unlock(&a->lock);
}
