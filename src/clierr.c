/* clierr.c -- see clierr.h. */
#include "autoconfig.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "clierr.h"
#include "util.h"

static int want_json;    /* --json was on the command line */
static int answered;     /* the daemon's JSON answer went to stdout */
static char *first_code; /* the first failure reported: the cause, usually */
static char *first_msg;

/* Note whether --json was given (before any --), so even a command line that fails to parse
 * answers in JSON. */
void
clierr_init(int argc, char **argv)
{
	want_json = 0;
	answered = 0;
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--json") == 0)
			want_json = 1;
}

/* Whether the JSON form was asked for. */
int
clierr_json(void)
{
	return want_json;
}

/* Remember a failure for the JSON object (the first one wins: later ones are consequences). */
static void
remember(const char *code, const char *fmt, va_list ap)
{
	if (first_code != NULL)
		return;
	char m[1024]; /* one sentence; a longer one is cut, not dropped */
	vsnprintf(m, sizeof m, fmt, ap);
	first_code = xstrdup(code);
	first_msg = xstrdup(m);
}

/* Report a failure: the sentence on stderr now, the JSON object at exit when --json. */
void
clierr(const char *cmd, const char *code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "browser-bridge%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	va_start(ap, fmt);
	remember(code, fmt, ap);
	va_end(ap);
}

/* Remember a failure already told on stderr some other way (for the JSON object only). */
void
clierr_note(const char *code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	remember(code, fmt, ap);
	va_end(ap);
}

/* The daemon's own JSON answer is on stdout: it says what failed, in the same shape. */
void
clierr_answered(void)
{
	answered = 1;
}

/* The code for a failure nobody described, from the exit status (client.h's CLIENT_EXIT_*). */
static const char *
code_for(int rc)
{
	switch (rc) {
	case 2: return "bad_command_line";
	case 3: return "no_browser";
	case 4: return "timeout";
	case 5: return "daemon_unreachable";
	default: return "failed";
	}
}

/* At exit: print the JSON error object when --json, the command failed and the daemon said nothing
 * on stdout; returns rc. */
int
clierr_finish(int rc)
{
	if (want_json && rc != 0 && !answered) {
		json_t *o = json_pack("{s:s, s:s}", "error", first_code ? first_code : code_for(rc), "message",
				      first_msg ? first_msg : "the command failed");
		char *s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
		printf("%s\n", s);
		fflush(stdout);
		free(s);
		json_decref(o);
	}
	free(first_code);
	free(first_msg);
	first_code = first_msg = NULL;
	return rc;
}
