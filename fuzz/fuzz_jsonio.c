/* libFuzzer target for src/jsonio.c: whatever the reader accepts must round-trip through the
 * writer unchanged, and jansson must agree that it is JSON. See fuzz/README. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "jsonio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jsonio_err e;
	json_t *v = jsonio_parse((const char *)data, size, &e);
	if (v == NULL) {
		if (e.offset > size)
			abort(); /* an error must point inside the input */
		return 0;
	}
	size_t n;
	char *out = jsonio_write(v, &n);
	if (strlen(out) != n)
		abort(); /* the writer escapes NUL, so the text has no NUL in it */
	json_t *again = jsonio_parse(out, n, &e);
	if (again == NULL || !json_equal(v, again))
		abort();
	/* jansson reads what we write (it allows NUL only with a flag we do not pass) */
	json_error_t je;
	json_t *j = json_loadb(out, n, JSON_DECODE_ANY, &je);
	if (j == NULL || !json_equal(v, j))
		abort();
	json_decref(j);
	json_decref(again);
	json_decref(v);
	free(out);
	return 0;
}
