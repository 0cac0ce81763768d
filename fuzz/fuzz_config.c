/* libFuzzer target for src/config.c: any config file is either accepted with every value in
 * range or refused with one message naming the line; never a crash or a leak. See fuzz/README. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-config", 0);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	struct config c;
	config_init(&c);
	char *err = NULL;
	int rc = config_load_file(&c, path, 1, &err);
	if ((rc != 0) != (err != NULL))
		abort(); /* an error always comes with its message, and only then */
	if (rc == 0 && config_finish(&c, &err) == 0) {
		if (c.http_port < 0 || c.http_port > 65535 || c.ws_port < 0 || c.ws_port > 65535 ||
		    c.max_body_bytes < BB_HTTP_MAX_BODY_MIN || c.max_body_bytes > BB_HTTP_MAX_BODY_MAX ||
		    c.retention_days < 0 || c.retention_pages < 0 || c.n_origins > BB_CONFIG_MAX_ORIGINS)
			abort();
	}
	free(err);
	config_free(&c);
	close(fd);
	return 0;
}
