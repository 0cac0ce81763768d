/*
 * serve.h -- `browser-bridge serve`: parse settings, start every part, wait for a signal, stop
 * cleanly. Main thread only.
 */
#ifndef BB_SERVE_H
#define BB_SERVE_H

struct config;

int serve_main(int argc, char **argv);
int serve_load_config(struct config *cfg, int argc, char **argv, int *stop_at, char **err);

#endif
