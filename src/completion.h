/*
 * completion.h -- `browser-bridge completion bash|zsh`: the shell completion scripts, generated
 * from the same tables as the command line itself (the tool catalog and cli.c's commands, the
 * config table for serve), so they offer exactly the commands and flags the binary takes.
 * Main thread only (a short-lived process).
 */
#ifndef BB_COMPLETION_H
#define BB_COMPLETION_H

#include <stdio.h>

#include "cli.h"

int completion_write(FILE *f, const char *shell);
int completion_run(const struct cli *o);

#endif
