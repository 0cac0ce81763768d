/* log.c -- see log.h. */
#include "autoconfig.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "util.h"

static volatile enum log_level current = LOG_INFO;

static const char *const names[] = {"error", "warn", "info", "debug"};

/* Map a level name to its value; -1 for an unknown name. */
int
log_parse_level(const char *s, enum log_level *out)
{
	for (int i = 0; i < 4; i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = (enum log_level)i;
			return 0;
		}
	}
	return -1;
}

/* Set the most verbose level that is printed. */
void
log_set_level(enum log_level level)
{
	current = level;
}

/* Whether a message at this level would be printed, to skip building it otherwise. */
int
log_enabled(enum log_level level)
{
	return level <= current;
}

/* Print one timestamped line; control characters from peers are escaped so logs stay one line each. */
void
log_msg(enum log_level level, const char *fmt, ...)
{
	if (level > current)
		return;
	char line[2048], ts[32];
	util_iso8601(util_now_ms(), ts);
	int n = snprintf(line, sizeof line, "%s %-5s ", ts, names[level]);
	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	va_end(ap);
	size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
	if (len > sizeof line - 2)
		len = sizeof line - 2;
	for (size_t i = (size_t)n; i < len; i++)
		if ((unsigned char)line[i] < 0x20)
			line[i] = '?';
	line[len++] = '\n';
	ssize_t w = write(STDERR_FILENO, line, len);
	(void)w;
}
