/*
 * auth.h -- the pairing token and the dashboard's login sessions.
 *
 * auth_create/auth_free: main thread. The check functions and auth_session_new: any thread (the
 * token is read-only after creation; sessions have their own lock). Nothing here logs a secret.
 */
#ifndef BB_AUTH_H
#define BB_AUTH_H

struct auth;

struct auth *auth_create(const char *token_file, char **err);
void auth_free(struct auth *a);
char *auth_read_token(const char *token_file, int create, char **err);
const char *auth_token(const struct auth *a);
int auth_check_token(const struct auth *a, const char *presented);
int auth_check_bearer(const struct auth *a, const char *authorization_header);
/* Protocol 2 (docs/protocol.md): 32 random bytes as unpadded base64url, and the HMAC-SHA256 proofs. */
#define AUTH_NONCE_LEN 43
void auth_nonce(char out[AUTH_NONCE_LEN + 1]);
int auth_valid_nonce(const char *s);
void auth_proof(const struct auth *a, const char *label, const char *first, const char *second,
                char out[AUTH_NONCE_LEN + 1]);
int auth_check_proof(const struct auth *a, const char *label, const char *first, const char *second,
                     const char *presented);
int auth_session_new(struct auth *a, char out[65]);
int auth_session_check(struct auth *a, const char *cookie_header);
void auth_session_end(struct auth *a, const char *cookie_header);

#endif
