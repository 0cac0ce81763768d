/*
 * clierr.h -- how the command-line client reports a failure: one sentence on stderr
 * ("browser-bridge CMD: ..."), and with --json also, at exit, one JSON object
 * {"error": CODE, "message": SENTENCE} on stdout -- unless the daemon's own JSON answer (which has
 * the same two members) was printed already. So a script that passes --json always gets JSON on
 * stdout, whether the failure was the daemon's, the network's or its own command line.
 * Main thread only (a short-lived process).
 */
#ifndef BB_CLIERR_H
#define BB_CLIERR_H

void clierr_init(int argc, char **argv);
int clierr_json(void);
void clierr(const char *cmd, const char *code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void clierr_note(const char *code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void clierr_answered(void);
int clierr_finish(int rc);

#endif
