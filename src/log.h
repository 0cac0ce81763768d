/*
 * log.h -- leveled logging to stderr, one line per event.
 *
 * Any thread: a line is written with a single write(2), so lines from threads never interleave.
 * Never pass a secret (token, cookie) to these functions.
 */
#ifndef BB_LOG_H
#define BB_LOG_H

enum log_level { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG };

int log_parse_level(const char *s, enum log_level *out);
void log_set_level(enum log_level level);
int log_enabled(enum log_level level);
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...)                                 \
	do {                                           \
		if (log_enabled(LOG_DEBUG))            \
			log_msg(LOG_DEBUG, __VA_ARGS__); \
	} while (0)

#endif
