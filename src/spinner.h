/*
 * spinner.h -- progress on stderr while the client waits for the daemon: nothing during the first
 * second, then a turning bar and the seconds waited, erased when the answer comes. Only when
 * stderr is a terminal: piped or redirected, nothing at all is written.
 * Threads: spinner_start/spinner_stop on the main thread; the spinner's own thread writes stderr
 * between them, so the main thread writes nothing to stderr meanwhile.
 */
#ifndef BB_SPINNER_H
#define BB_SPINNER_H

struct spinner;

struct spinner *spinner_start(const char *what);
void spinner_stop(struct spinner *s);

#endif
