/*
 * headless.h -- the managed headless runtime: a pool of headless_instances Chromiums (serve
 * --headless N) the daemon launches with the extension loaded and paired, restarts when they die,
 * and stops on shutdown. Each has its own profile directory (cookies, storage) and its own client
 * id (headless-<hex>), so sessions spread across them share neither cookies nor tabs (the hub
 * picks one per session: hub_pool_pick).
 *
 * Main thread only (headless_check is called from the main loop about once a second).
 */
#ifndef BB_HEADLESS_H
#define BB_HEADLESS_H

struct headless;
struct config;

struct headless *headless_start(const struct config *cfg, const char *token, char **err);
void headless_check(struct headless *h);
const char *headless_client_id(const struct headless *p, int i);
void headless_stop(struct headless *h);

#endif
