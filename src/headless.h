/*
 * headless.h -- the managed headless runtime: a Chromium the daemon launches with the extension
 * loaded and paired, restarts when it dies, and stops on shutdown.
 *
 * Main thread only (headless_check is called from the main loop about once a second).
 */
#ifndef BB_HEADLESS_H
#define BB_HEADLESS_H

struct headless;
struct config;

struct headless *headless_start(const struct config *cfg, const char *token, char **err);
void headless_check(struct headless *h);
void headless_stop(struct headless *h);

#endif
