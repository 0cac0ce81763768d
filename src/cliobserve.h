/*
 * cliobserve.h -- how the command-line client prints what the observation tools found: the lines
 * browser_find matched, the console messages, the network requests. One line each, page text with
 * terminal control characters removed (cliout_put_clean).
 * Main thread only (a short-lived process).
 */
#ifndef BB_CLIOBSERVE_H
#define BB_CLIOBSERVE_H

#include <stdio.h>

#include <jansson.h>

int cliobserve_print(FILE *f, json_t *result);

#endif
