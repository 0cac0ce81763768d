/*
 * doctor.h -- `browser-bridge doctor`: checks the setup the way a person would, one line each with
 * OK, FAIL, WARN (optional parts: Chromium for --headless) or SKIP (not checkable because of an
 * earlier failure), and what to do about each problem: the settings, the token file, the daemon
 * (reachable, same version), its Unix socket, the connected browsers (their versions and site
 * access), Chromium for --headless, and the history database (writable). Exit status 1 when any
 * check failed. --json prints {"ok", "checks": [{check, status, detail, fix}]}.
 * Main thread only (a short-lived process).
 */
#ifndef BB_DOCTOR_H
#define BB_DOCTOR_H

#include "cli.h"

int doctor_run(const struct cli *o);

#endif
