/*
 * suggest.h -- "did you mean": the closest of a list of names to what was typed, by edit distance
 * (insertions, deletions, substitutions and swaps of two neighbours each count one), for mistyped
 * commands and flags. Any thread; no state.
 */
#ifndef BB_SUGGEST_H
#define BB_SUGGEST_H

#include <stddef.h>

size_t suggest_distance(const char *a, const char *b);
const char *suggest_closest(const char *typed, const char *const *names, size_t n);

#endif
