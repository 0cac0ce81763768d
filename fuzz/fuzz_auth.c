/* libFuzzer target for the parsers of src/auth.c: the Authorization header, the Cookie header and
 * the token file. The input's first byte picks which; the rest is the hostile text. Only the right
 * token or a live session is accepted. See fuzz/README. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "auth.h"

#define TOKEN "0123456789abcdef0123456789abcdef"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct auth *a;
static char session[65];

/* The auth object the header checks run against: a known token and one live session. */
static void
init(void)
{
	char path[] = "/tmp/bb-fuzz-auth-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, TOKEN "\n", sizeof TOKEN) != (ssize_t)sizeof TOKEN)
		abort();
	close(fd);
	char *err = NULL;
	a = auth_create(path, &err);
	unlink(path);
	if (a == NULL || auth_session_new(a, session) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (a == NULL)
		init();
	if (size == 0)
		return 0;
	char *text = strndup((const char *)data + 1, size - 1);
	switch (data[0] % 3) {
	case 0: {
		int ok = auth_check_bearer(a, text);
		/* Accepted only if it really is "Bearer <token>" (case-insensitive scheme, optional spaces). */
		if (ok && (strstr(text, TOKEN) == NULL || strncasecmp(text, "bearer", 6) != 0))
			abort();
		break;
	}
	case 1: {
		int ok = auth_session_check(a, text);
		if (ok && strstr(text, session) == NULL)
			abort();
		break;
	}
	default: {
		/* The token file: whatever is in it is refused with a message or gives a plausible token. */
		int fd = memfd_create("token", MFD_CLOEXEC);
		if (fd < 0 || write(fd, data + 1, size - 1) != (ssize_t)(size - 1))
			abort();
		char path[64];
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		char *err = NULL;
		char *tok = auth_read_token(path, 0, &err);
		if ((tok == NULL) == (err == NULL))
			abort(); /* exactly one of a token and a message */
		if (tok != NULL && (strlen(tok) == 0 || strpbrk(tok, " \t\r\n") != NULL))
			abort();
		free(tok);
		free(err);
		close(fd);
	}
	}
	free(text);
	return 0;
}
