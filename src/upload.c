/* upload.c -- see upload.h. */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "limits.h"
#include "upload.h"
#include "util.h"

/* The path with "." and empty components removed, or NULL and why not (relative, "..", too long,
 * control characters): a purely lexical step that touches nothing on disk. */
static char *
lexical(const char *path, const char **why)
{
	size_t len = strlen(path);
	if (path[0] != '/') {
		*why = "is not an absolute path";
		return NULL;
	}
	if (len >= PATH_MAX) {
		*why = "is longer than " BB_STR(PATH_MAX) " bytes";
		return NULL;
	}
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)path[i] < 0x20 || path[i] == 0x7f) {
			*why = "contains a control character";
			return NULL;
		}
	struct buf b = {0};
	for (const char *p = path; *p;) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if (n == 0)
			break;
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			buf_free(&b);
			*why = "contains \"..\", which is not allowed";
			return NULL;
		}
		if (!(n == 1 && p[0] == '.')) {
			buf_adds(&b, "/");
			buf_add(&b, p, n);
		}
		p += n;
	}
	if (b.len == 0)
		buf_adds(&b, "/");
	return buf_steal(&b);
}

/* Check an upload_dir setting (see upload.h). */
int
upload_dir_ok(const char *dir, char **norm, char **real, char **err)
{
	const char *why = NULL;
	struct stat st;
	*norm = *real = NULL;
	char *n = lexical(dir, &why);
	if (n == NULL) {
		*err = xasprintf("upload_dir: \"%.200s\" %s", dir, why);
		return -1;
	}
	char *r = realpath(n, NULL);
	if (r == NULL || stat(r, &st) != 0 || !S_ISDIR(st.st_mode)) {
		*err = xasprintf("upload_dir: \"%.200s\" is not an existing directory%s%s", dir, r ? "" : ": ",
		                 r ? "" : strerror(errno));
		free(n);
		free(r);
		return -1;
	}
	*norm = n;
	*real = r;
	return 0;
}

/* The part of the normalized path beneath dir ("" for dir itself), or NULL when it is not beneath. */
static const char *
beneath(const char *norm, const char *dir)
{
	if (strcmp(dir, "/") == 0)
		return norm + 1;
	size_t n = strlen(dir);
	if (strncmp(norm, dir, n) != 0)
		return NULL;
	if (norm[n] == '\0')
		return norm + n;
	return norm[n] == '/' ? norm + n + 1 : NULL;
}

/* Base64 of n bytes as a new JSON string. */
static json_t *
base64_json(const unsigned char *data, size_t n)
{
	size_t out = 4 * ((n + 2) / 3) + 1;
	char *s = xmalloc(out);
	int k = EVP_EncodeBlock((unsigned char *)s, data, (int)n);
	json_t *j = json_stringn(s, k < 0 ? 0 : (size_t)k);
	free(s);
	return j;
}

/* Open rel beneath dir with the kernel keeping the walk inside it; -1 and errno when it cannot. */
static int
open_beneath(const char *dir, const char *rel)
{
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	struct open_how how = {
		.flags = O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, dfd, rel, &how, sizeof how);
	int saved = errno;
	close(dfd);
	errno = saved;
	return (int)fd;
}

/* Read one file beneath dir as {name, type, size, data}; NULL and *why (malloc'ed) when it cannot. */
static json_t *
read_one(const char *dir, const char *rel, const char *shown, size_t file_max, size_t *left, char **why)
{
	unsigned char *data = NULL;
	json_t *item = NULL;
	struct stat st;
	int fd = open_beneath(dir, rel);
	if (fd < 0) {
		int e = errno;
		if (e == EXDEV || e == ELOOP)
			*why = xasprintf("%s leads out of its upload_dir (through a symbolic link), which is not allowed", shown);
		else if (e == ENOENT || e == ENOTDIR)
			*why = xasprintf("%s does not exist in the upload_dir", shown);
		else if (e == EACCES || e == EPERM)
			*why = xasprintf("%s cannot be read (permission denied)", shown);
		else if (e == ENOSYS)
			*why = xasprintf("%s cannot be checked: this kernel has no openat2 (Linux 5.6 or later is needed)", shown);
		else
			*why = xasprintf("%s cannot be opened: %s", shown, strerror(e));
		return NULL;
	}
	if (fstat(fd, &st) != 0) {
		*why = xasprintf("%s cannot be read: %s", shown, strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		*why = xasprintf("%s is a directory, not a file", shown);
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		*why = xasprintf("%s is not a regular file (a FIFO, socket or device)", shown);
		goto fail;
	}
	size_t size = (size_t)st.st_size;
	if ((unsigned long long)st.st_size > file_max) {
		*why = xasprintf("%s is %lld bytes, more than the limit of %zu bytes per file", shown,
		                 (long long)st.st_size, file_max);
		goto fail;
	}
	if (size > *left) {
		*why = xasprintf("%s (%zu bytes) would make the files of this call larger than the limit of %zu bytes "
		                 "together",
		                 shown, size, *left);
		goto fail;
	}
	data = xmalloc(size + 1);
	size_t got = 0;
	for (;;) {
		ssize_t r = read(fd, data + got, size + 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			*why = xasprintf("%s cannot be read: %s", shown, strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		got += (size_t)r;
		if (got > size)
			break;
	}
	if (got != size) {
		*why = xasprintf("%s changed while it was read", shown);
		goto fail;
	}
	const char *slash = strrchr(rel, '/');
	const char *name = slash ? slash + 1 : rel;
	item = json_pack("{s:s, s:s, s:I}", "name", name, "type", upload_mime_type(name), "size", (json_int_t)size);
	if (item == NULL) {
		*why = xasprintf("%s has a name that is not valid UTF-8", shown);
		goto fail;
	}
	json_object_set_new(item, "data", base64_json(data, size));
	*left -= size;
	free(data);
	close(fd);
	return item;
fail:
	free(data);
	close(fd);
	return NULL;
}

/* Read the files (see upload.h). */
json_t *
upload_read(char *const *dirs, int n, json_t *paths, size_t file_max, size_t total_max, int *index, char **err)
{
	json_t *out = json_array(), *v;
	size_t i, left = total_max;
	*index = -1;
	*err = NULL;
	json_array_foreach(paths, i, v)
	{
		const char *why = NULL, *p = json_string_value(v), *rel = NULL, *dir = NULL;
		char *what = NULL;
		*index = (int)i;
		if (p == NULL) {
			*err = xasprintf("paths[%zu]: expected a string", i);
			goto fail;
		}
		char *norm = lexical(p, &why);
		if (norm == NULL) {
			*err = xasprintf("paths[%zu]: \"%.300s\" %s", i, p, why);
			goto fail;
		}
		for (int k = 0; k < n && rel == NULL; k++)
			if ((rel = beneath(norm, dirs[k])) != NULL)
				dir = dirs[k];
		if (rel == NULL) {
			*err = xasprintf("paths[%zu]: \"%.300s\" is not beneath an upload_dir", i, p);
			free(norm);
			goto fail;
		}
		if (*rel == '\0') {
			*err = xasprintf("paths[%zu]: \"%.300s\" is an upload_dir itself, not a file in it", i, p);
			free(norm);
			goto fail;
		}
		char shown[PATH_MAX + 32];
		snprintf(shown, sizeof shown, "paths[%zu] \"%.300s\"", i, p);
		json_t *item = read_one(dir, rel, shown, file_max, &left, &what);
		free(norm);
		if (item == NULL) {
			*err = what;
			goto fail;
		}
		json_array_append_new(out, item);
	}
	*index = -1;
	return out;
fail:
	json_decref(out);
	return NULL;
}

/* The MIME type of a file name by its extension, as browsers map the common ones. */
const char *
upload_mime_type(const char *name)
{
	static const char *const map[][2] = {
		{"txt", "text/plain"},        {"csv", "text/csv"},           {"html", "text/html"},
		{"htm", "text/html"},         {"css", "text/css"},           {"js", "text/javascript"},
		{"json", "application/json"}, {"xml", "application/xml"},    {"pdf", "application/pdf"},
		{"zip", "application/zip"},   {"gz", "application/gzip"},    {"png", "image/png"},
		{"jpg", "image/jpeg"},        {"jpeg", "image/jpeg"},        {"gif", "image/gif"},
		{"webp", "image/webp"},       {"svg", "image/svg+xml"},      {"ico", "image/x-icon"},
		{"bmp", "image/bmp"},         {"mp3", "audio/mpeg"},         {"wav", "audio/wav"},
		{"mp4", "video/mp4"},         {"webm", "video/webm"},        {"md", "text/markdown"},
		{"doc", "application/msword"}, {"xls", "application/vnd.ms-excel"},
		{"docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
		{"xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
	};
	const char *dot = strrchr(name, '.');
	if (dot != NULL && dot != name)
		for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
			if (strcasecmp(dot + 1, map[i][0]) == 0)
				return map[i][1];
	return "application/octet-stream";
}
