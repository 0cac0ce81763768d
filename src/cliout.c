/* cliout.c -- see cliout.h. */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cliout.h"
#include "util.h"

/* Print text wrapped to 79 columns, each line indented; descriptions in the catalog are one long line. */
void
cliout_wrap(FILE *f, const char *text, int indent, int first_col)
{
	int col = first_col;
	const char *p = text;
	while (*p) {
		while (*p == ' ')
			p++;
		size_t w = strcspn(p, " ");
		if (w == 0)
			break;
		if (col > indent && col + 1 + (int)w > 79) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		} else if (col < indent) {
			fprintf(f, "%*s", indent - col, "");
			col = indent;
		}
		fwrite(p, 1, w, f);
		col += (int)w;
		p += w;
	}
	fputc('\n', f);
}

/* One option line of the help: the flag, then its description wrapped beside it (from column 24). */
void
cliout_help_line(FILE *f, const char *flag, const char *desc)
{
	fprintf(f, "  %s", flag);
	int col = 2 + (int)strlen(flag);
	if (col > 22) {
		fprintf(f, "\n");
		col = 0;
	}
	cliout_wrap(f, desc, 24, col);
}

/* Remove terminal control characters and cut to cols characters, for one table cell or one line. */
void
cliout_put_clean(FILE *f, const char *s, int cols)
{
	int n = 0;
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if ((*p & 0xc0) != 0x80 && cols > 0 && ++n > cols) {
			fputs("…", f);
			return;
		}
		fputc(*p < 0x20 || *p == 0x7f ? ' ' : *p, f);
	}
}

/* Page Markdown for a terminal: keep newlines and tabs, drop other control characters (escape codes). */
void
cliout_put_markdown(const char *s, size_t len)
{
	if (!isatty(STDOUT_FILENO)) {
		fwrite(s, 1, len, stdout);
	} else {
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)s[i] >= 0x20 || s[i] == '\n' || s[i] == '\t')
				putchar(s[i]);
	}
	if (len > 0 && s[len - 1] != '\n')
		putchar('\n');
}

/* One table cell: s cleaned and cut to cols characters, then padded to them (characters, not bytes). */
void
cliout_pad(FILE *f, const char *s, int cols)
{
	cliout_put_clean(f, s, cols);
	int n = 0;
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++)
		n += (*p & 0xc0) != 0x80;
	fprintf(f, "%*s", n < cols ? cols - n : 0, "");
}

/* Decode base64 (standard alphabet, padding optional, whitespace ignored); -1 on a bad character. */
static int
base64_decode(const char *in, size_t len, unsigned char **out, size_t *outlen)
{
	unsigned char *o = xmalloc(len / 4 * 3 + 3);
	size_t n = 0;
	unsigned acc = 0;
	int bits = 0, pad = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)in[i];
		int v;
		if (ch >= 'A' && ch <= 'Z')
			v = ch - 'A';
		else if (ch >= 'a' && ch <= 'z')
			v = ch - 'a' + 26;
		else if (ch >= '0' && ch <= '9')
			v = ch - '0' + 52;
		else if (ch == '+')
			v = 62;
		else if (ch == '/')
			v = 63;
		else if (ch == '=') {
			pad++;
			continue;
		} else if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t')
			continue;
		else
			goto fail;
		if (pad)
			goto fail; /* data after padding */
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			o[n++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	if (bits >= 6 || pad > 2)
		goto fail; /* a lone sixth of a byte: truncated input */
	*out = o;
	*outlen = n;
	return 0;
fail:
	free(o);
	return -1;
}

/* Write the screenshot's image (a PNG or a JPEG, as its result.mimeType says) to FILE (or stdout for
 * -): 0, or 1 (the tool failed) after saying why. */
int
cliout_write_png(const char *cmd, const char *file, json_t *result)
{
	json_t *data = json_object_get(result, "data");
	const char *mime = json_string_value(json_object_get(result, "mimeType"));
	int jpeg = mime != NULL && strcmp(mime, "image/jpeg") == 0;
	unsigned char *png = NULL;
	size_t n = 0;
	int fd = -1, rc = 1;
	if (!json_is_string(data) ||
	    base64_decode(json_string_value(data), json_string_length(data), &png, &n) != 0 || n < 8 ||
	    (jpeg ? memcmp(png, "\xff\xd8\xff", 3) : memcmp(png, "\x89PNG\r\n\x1a\n", 8)) != 0) {
		fprintf(stderr, "browser-bridge %s: the browser's result.data is not a base64 %s image\n", cmd,
		        jpeg ? "JPEG" : "PNG");
		goto fail;
	}
	fd = strcmp(file, "-") == 0 ? STDOUT_FILENO : open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "browser-bridge %s: cannot write %s: %s\n", cmd, file, strerror(errno));
		goto fail;
	}
	for (size_t off = 0; off < n;) {
		ssize_t w = write(fd, png + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			fprintf(stderr, "browser-bridge %s: cannot write %s: %s\n", cmd, file, strerror(errno));
			goto fail;
		}
		off += (size_t)w;
	}
	if (fd != STDOUT_FILENO && close(fd) != 0) {
		fd = -1;
		fprintf(stderr, "browser-bridge %s: cannot write %s: %s\n", cmd, file, strerror(errno));
		goto fail;
	}
	fd = -1;
	rc = 0;
fail:
	if (fd >= 0 && fd != STDOUT_FILENO)
		close(fd);
	free(png);
	return rc;
}

/* Print a tool answer's page: its Markdown, or (snapshot auto on the same document) the diff of
 * what changed since the last page this session received, with notes on stderr. */
void
cliout_page(json_t *page)
{
	json_t *md = json_object_get(page, "markdown"), *ch = json_object_get(page, "changes");
	if (json_is_string(md)) {
		cliout_put_markdown(json_string_value(md), json_string_length(md));
	} else if (json_string_length(ch) == 0) {
		fprintf(stderr, "(the page did not change; --snapshot full prints it whole)\n");
	} else {
		fprintf(stderr, "(what changed on the page, as a unified diff; --snapshot full prints it whole)\n");
		cliout_put_markdown(json_string_value(ch), json_string_length(ch));
	}
	if (json_is_true(json_object_get(page, "truncated")))
		fprintf(stderr, "(the browser truncated this page's Markdown)\n");
	json_t *rem = json_object_get(page, "remaining_chars");
	if (json_is_integer(rem) && json_integer_value(rem) > 0)
		fprintf(stderr, "(%lld more characters: --offset %lld)\n", (long long)json_integer_value(rem),
		        (long long)json_integer_value(json_object_get(page, "next_offset")));
}

/* The tabs of a list_tabs result as a table; * marks the active tab. */
void
cliout_tabs(json_t *tabs)
{
	size_t i;
	json_t *t;
	printf("  %8s  %-*s  %s\n", "ID", CLIOUT_TITLE_COLS, "TITLE", "URL");
	json_array_foreach(tabs, i, t)
	{
		json_t *id = json_object_get(t, "tabId");
		if (id == NULL)
			id = json_object_get(t, "tab_id");
		printf("%c %8lld  ", json_is_true(json_object_get(t, "active")) ? '*' : ' ',
		       (long long)json_integer_value(id));
		cliout_pad(stdout, json_string_value(json_object_get(t, "title")), CLIOUT_TITLE_COLS);
		printf("  ");
		cliout_put_clean(stdout, json_string_value(json_object_get(t, "url")), 0);
		putchar('\n');
	}
}

