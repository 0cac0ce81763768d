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
int auth_session_new(struct auth *a, char out[65]);
int auth_session_check(struct auth *a, const char *cookie_header);
void auth_session_end(struct auth *a, const char *cookie_header);

#endif
