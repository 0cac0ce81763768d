/*
 * cliout.h -- what the command-line client prints: help text wrapped to the terminal's 79 columns,
 * page Markdown (or what changed on the page) and table cells with terminal control characters
 * removed, tab tables, and a
 * screenshot's PNG decoded to a file.
 * Main thread only (a short-lived process).
 */
#ifndef BB_CLIOUT_H
#define BB_CLIOUT_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* Columns used for titles in tables. */
#define CLIOUT_TITLE_COLS 40

void cliout_wrap(FILE *f, const char *text, int indent, int first_col);
void cliout_help_line(FILE *f, const char *flag, const char *desc);
void cliout_put_clean(FILE *f, const char *s, int cols);
void cliout_pad(FILE *f, const char *s, int cols);
void cliout_put_markdown(const char *s, size_t len);
void cliout_page(json_t *page);
void cliout_tabs(json_t *tabs);
int cliout_write_png(const char *cmd, const char *file, json_t *result);

#endif
