/*
 * upload.h -- the files browser_upload_file may hand to the browser: only regular files beneath the
 * directories the user listed (config upload_dir), resolved by the kernel without ever leaving
 * them (openat2 RESOLVE_BENEATH: no symbolic link out, no "..", no /proc magic links), each within
 * a size cap. A path that is not beneath an upload_dir is refused before anything is looked up, so
 * nothing about it (not even whether it exists) reaches the caller.
 *
 * upload_dir_ok: main thread, while the config is read. upload_read: any thread (it only reads the
 * file system and the arguments it is given).
 */
#ifndef BB_UPLOAD_H
#define BB_UPLOAD_H

#include <stddef.h>

#include <jansson.h>

/*
 * Check an upload_dir setting: an absolute path of an existing directory. Returns 0 and *norm (the
 * path with "." and repeated slashes removed, malloc'ed) and *real (its realpath, malloc'ed), or -1
 * and *err (malloc'ed, one sentence).
 */
int upload_dir_ok(const char *dir, char **norm, char **real, char **err);

/*
 * Read the files named by paths (a JSON array of strings, absolute) when each is a regular file
 * beneath one of the n directories dirs (upload_dir_ok's results), at most file_max bytes each and
 * total_max together. Returns a new JSON array of {name, type, size, data (base64)}, or NULL and
 * *err (malloc'ed, one sentence naming paths[i]); *index is the failing item (or -1).
 */
json_t *upload_read(char *const *dirs, int n, json_t *paths, size_t file_max, size_t total_max, int *index,
                    char **err);

/* The MIME type a browser would give a file of this name (application/octet-stream when unknown). */
const char *upload_mime_type(const char *name);

#endif
