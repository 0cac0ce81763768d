/* cliobserve.c -- see cliobserve.h. */
#include "autoconfig.h"

#include <string.h>

#include "cliobserve.h"
#include "cliout.h"

/* Columns of a URL in a request line, and of a match's or a message's text. */
#define CLIOBSERVE_URL_COLS 200
#define CLIOBSERVE_TEXT_COLS 400

/* A string member, or "" (never NULL, so it can be printed). */
static const char *
str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

/* Print result.matches, result.messages or result.requests, one line each; 1 when there was such a list
 * (so the caller prints nothing else), else 0. */
int
cliobserve_print(FILE *f, json_t *result)
{
	size_t i;
	json_t *v, *list;
	if (json_is_array(list = json_object_get(result, "matches"))) {
		json_array_foreach(list, i, v) {
			json_t *ref = json_object_get(v, "ref");
			fprintf(f, "%lld\t%s\t", (long long)json_integer_value(json_object_get(v, "line")),
			        json_is_string(ref) ? json_string_value(ref) : "-");
			cliout_put_clean(f, str(v, "text"), CLIOBSERVE_TEXT_COLS);
			fputc('\n', f);
		}
		return 1;
	}
	if (json_is_array(list = json_object_get(result, "messages"))) {
		json_array_foreach(list, i, v) {
			fprintf(f, "%s\t%-7s\t", str(v, "time"), str(v, "level"));
			cliout_put_clean(f, str(v, "text"), CLIOBSERVE_TEXT_COLS);
			if (*str(v, "source")) {
				fputs(" (", f);
				cliout_put_clean(f, str(v, "source"), CLIOBSERVE_URL_COLS);
				fputc(')', f);
			}
			fputc('\n', f);
		}
		return 1;
	}
	if (json_is_array(list = json_object_get(result, "requests"))) {
		json_array_foreach(list, i, v) {
			json_t *st = json_object_get(v, "status"), *ms = json_object_get(v, "duration_ms");
			cliout_put_clean(f, str(v, "method"), 10);
			if (json_is_integer(st) && json_integer_value(st) > 0)
				fprintf(f, "\t%lld", (long long)json_integer_value(st));
			else
				fputs(*str(v, "failed") ? "\tfailed" : "\t-", f);
			fputc('\t', f);
			cliout_put_clean(f, str(v, "type"), 20);
			if (json_is_integer(ms))
				fprintf(f, "\t%lldms\t", (long long)json_integer_value(ms));
			else
				fputs("\t-\t", f);
			cliout_put_clean(f, str(v, "url"), CLIOBSERVE_URL_COLS);
			fputc('\n', f);
		}
		return 1;
	}
	return 0;
}
