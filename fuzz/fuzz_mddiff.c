/* libFuzzer target for src/mddiff.c: two texts (the input split at its first NUL; the first byte
 * sets the output cap). Whatever it answers stays within the cap, and a diff it makes, applied to
 * the old text, gives the new one; equal texts give "". See fuzz/README. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mddiff.h"
#include "mddiff_apply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t max_out = data[0] == 0 ? (size_t)1 << 20 : (size_t)data[0] * 16;
	const char *s = (const char *)data + 1;
	size_t n = size - 1;
	const char *nul = memchr(s, '\0', n);
	size_t alen = nul ? (size_t)(nul - s) : n / 2;
	const char *b = nul ? nul + 1 : s + alen;
	size_t blen = n - alen - (nul ? 1 : 0);
	char *out;
	size_t outlen;
	int rc = mddiff(s, alen, b, blen, max_out, &out, &outlen);
	if (rc != MDDIFF_OK) {
		if (out != NULL || outlen != 0)
			abort();
		return 0;
	}
	if (outlen > max_out || out[outlen] != '\0')
		abort();
	if ((alen == blen && memcmp(s, b, alen) == 0) != (outlen == 0))
		abort(); /* "" exactly when nothing changed */
	char *back;
	size_t backlen;
	if (mddiff_test_apply(s, alen, out, outlen, &back, &backlen) != 0 || backlen != blen || memcmp(back, b, blen) != 0)
		abort();
	free(back);
	free(out);
	return 0;
}
