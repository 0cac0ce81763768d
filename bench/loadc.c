/* loadc: small HTTP load client for the Browser Bridge bench (keep-alive, HTTP/1.1).
 *
 *   loadc lat  HOST:PORT SECONDS            1 caller, POST browser_click back to back (after
 *                                            $WARMUP warm-up calls, default 200);
 *                                            prints p50/p99/mean in microseconds
 *   loadc get  HOST:PORT N PATH [PATH...]   N GETs round robin over PATHs, one connection;
 *                                            prints p50/p99 (history queries)
 *   loadc one  HOST:PORT REPEAT             REPEAT calls one at a time, prints each in ms
 *                                            and the median (large pages)
 *   loadc hold HOST:PORT N TIMEOUT          N connections, one POST each ({"target":"t<i>"}),
 *                                            prints "sent N" once all are written, then waits
 *                                            for every answer and checks each is 200 and
 *                                            carries its own target ("Clicked t<i>")
 *
 * Env: TOKEN (Authorization: Bearer), TOOL (default browser_click).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static struct sockaddr_in g_addr; static char g_hostport[64];
static const char *g_token, *g_tool = "browser_click";

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

static void parse_addr(const char *a) {
    char h[64]; snprintf(h, sizeof h, "%s", a);
    char *c = strrchr(h, ':'); if (!c) { fprintf(stderr, "bad address %s\n", a); exit(1); }
    *c = 0;
    g_addr.sin_family = AF_INET; g_addr.sin_port = htons(atoi(c + 1));
    inet_pton(AF_INET, h, &g_addr.sin_addr);
    snprintf(g_hostport, sizeof g_hostport, "%s", a);
}

static int build_post(char *dst, size_t n, const char *body) {
    char auth[600] = "";
    if (g_token) snprintf(auth, sizeof auth, "Authorization: Bearer %s\r\n", g_token);
    return snprintf(dst, n, "POST /api/tools/%s HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\n"
                    "Content-Length: %zu\r\n\r\n%s", g_tool, g_hostport, auth, strlen(body), body);
}
static int build_get(char *dst, size_t n, const char *path) {
    char auth[600] = "";
    if (g_token) snprintf(auth, sizeof auth, "Authorization: Bearer %s\r\n", g_token);
    return snprintf(dst, n, "GET %s HTTP/1.1\r\nHost: %s\r\n%s\r\n", path, g_hostport, auth);
}

typedef struct { char *p; size_t len, cap; } buf_t;
static void reserve(buf_t *b, size_t n) {
    if (b->len + n + 1 <= b->cap) return;
    size_t c = b->cap ? b->cap : 8192; while (c < b->len + n + 1) c *= 2;
    b->p = realloc(b->p, c); b->cap = c;
}

/* If b holds a complete response, return its total length and set status/body. Else 0. */
static size_t response_complete(buf_t *b, int *status, const char **body, size_t *blen) {
    if (b->len < 12) return 0;
    b->p[b->len] = 0;
    char *e = memmem(b->p, b->len, "\r\n\r\n", 4);
    if (!e) return 0;
    size_t hl = e + 4 - b->p;
    *status = atoi(b->p + 9);
    long cl = -1; int chunked = 0;
    for (char *l = b->p; l < e; ) {
        char *nl = memmem(l, e + 2 - l, "\r\n", 2); if (!nl) break;
        if (!strncasecmp(l, "content-length:", 15)) cl = atol(l + 15);
        else if (!strncasecmp(l, "transfer-encoding:", 18) && memmem(l, nl - l, "chunked", 7)) chunked = 1;
        l = nl + 2;
    }
    if (chunked) {
        size_t pos = hl;
        for (;;) {
            char *nl = memmem(b->p + pos, b->len - pos, "\r\n", 2); if (!nl) return 0;
            size_t sz = strtoul(b->p + pos, 0, 16);
            size_t dpos = nl + 2 - b->p;
            if (b->len < dpos + sz + 2) return 0;
            if (sz == 0) { *body = b->p + hl; *blen = dpos - hl; return dpos + 2; }
            pos = dpos + sz + 2;
        }
    }
    if (cl < 0) cl = 0;
    if (b->len < hl + cl) return 0;
    *body = b->p + hl; *blen = cl;
    return hl + cl;
}

static int connect_blocking(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(fd, (struct sockaddr *)&g_addr, sizeof g_addr) < 0) { perror("connect"); exit(2); }
    int one = 1; setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/* One request/response on a blocking keep-alive connection (reconnects if closed). */
static int roundtrip(int *fd, const char *req, int rl, buf_t *b, size_t *bodylen) {
    for (int attempt = 0; attempt < 2; attempt++) {
        if (*fd < 0) *fd = connect_blocking();
        if (write(*fd, req, rl) != rl) { close(*fd); *fd = -1; continue; }
        b->len = 0;
        for (;;) {
            int st; const char *body; size_t blen;
            size_t tot = response_complete(b, &st, &body, &blen);
            if (tot) { if (bodylen) *bodylen = blen; return st; }
            reserve(b, 1 << 16);
            ssize_t r = read(*fd, b->p + b->len, b->cap - b->len - 1);
            if (r <= 0) { close(*fd); *fd = -1; if (b->len == 0) break; return -1; }
            b->len += r;
        }
    }
    return -1;
}

static int cmpd(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
static double pct(double *v, size_t n, double p) { if (!n) return 0; size_t i = (size_t)(p * (n - 1) + 0.5); return v[i]; }

static int mode_lat(double secs) {
    char req[2048]; int rl = build_post(req, sizeof req, "{\"target\":\"Login\"}");
    buf_t b = {0}; int fd = -1;
    int warm = getenv("WARMUP") ? atoi(getenv("WARMUP")) : 200;
    for (int i = 0; i < warm; i++) roundtrip(&fd, req, rl, &b, 0); /* warm up (WARMUP calls, default 200) */
    size_t cap = 1 << 20, n = 0, errs = 0; double *v = malloc(cap * sizeof *v);
    double end = now() + secs;
    while (n < cap) {
        double t = now(); if (t > end) break;
        int st = roundtrip(&fd, req, rl, &b, 0);
        v[n++] = (now() - t) * 1e6;
        if (st != 200) errs++;
    }
    double sum = 0; for (size_t i = 0; i < n; i++) sum += v[i];
    qsort(v, n, sizeof *v, cmpd);
    printf("calls %zu p50_us %.1f p99_us %.1f mean_us %.1f errors %zu\n", n, pct(v, n, .5), pct(v, n, .99), n ? sum / n : 0, errs);
    return 0;
}

static int mode_get(int n, char **paths, int np) {
    buf_t b = {0}; int fd = -1; double *v = malloc(n * sizeof *v); size_t errs = 0, bytes = 0;
    char req[4096];
    for (int i = 0; i < n; i++) {
        int rl = build_get(req, sizeof req, paths[i % np]);
        double t = now(); size_t bl = 0;
        int st = roundtrip(&fd, req, rl, &b, &bl);
        v[i] = (now() - t) * 1e3;
        if (st != 200) { if (errs++ < 3) fprintf(stderr, "loadc get %s -> %d %.200s\n", paths[i % np], st, b.p ? b.p : ""); }
        bytes += bl;
    }
    qsort(v, n, sizeof *v, cmpd);
    printf("queries %d p50_ms %.2f p99_ms %.2f max_ms %.2f errors %zu avg_body %zu\n", n, pct(v, n, .5), pct(v, n, .99), v[n - 1], errs, bytes / n);
    return 0;
}

static int mode_one(int rep) {
    char req[2048]; int rl = build_post(req, sizeof req, "{\"target\":\"Login\"}");
    buf_t b = {0}; int fd = -1; double v[256]; if (rep > 256) rep = 256;
    size_t bl = 0; int errs = 0;
    for (int i = 0; i < rep; i++) {
        double t = now();
        int st = roundtrip(&fd, req, rl, &b, &bl);
        v[i] = (now() - t) * 1e3;
        if (st != 200) errs++;
        printf("call %d status %d ms %.1f body %zu\n", i, st, v[i], bl);
    }
    qsort(v, rep, sizeof *v, cmpd);
    printf("median_ms %.1f min_ms %.1f max_ms %.1f errors %d\n", pct(v, rep, .5), v[0], v[rep - 1], errs);
    return 0;
}

typedef struct { int fd, state; size_t woff; int rl; char req[1024]; buf_t in; int status, ok; } hc_t; /* state 0 connecting,1 writing,2 reading,3 done */

static int mode_hold(int n, double timeout) {
    int ep = epoll_create1(0);
    hc_t *c = calloc(n, sizeof *c);
    int next = 0, inflight_connect = 0, sent = 0, done = 0, ok = 0, bad = 0, printed_sent = 0;
    double t0 = now(), tfirst = 0, tsent = 0;
    struct epoll_event evs[256];
    while (done < n) {
        while (next < n && inflight_connect < 256) {
            hc_t *h = &c[next];
            char body[64]; snprintf(body, sizeof body, "{\"target\":\"t%d\"}", next);
            h->rl = build_post(h->req, sizeof h->req, body);
            h->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
            if (h->fd < 0) { perror("socket"); return 2; }
            int r = connect(h->fd, (struct sockaddr *)&g_addr, sizeof g_addr);
            if (r < 0 && errno != EINPROGRESS) { perror("connect"); return 2; }
            struct epoll_event ev = { .events = EPOLLOUT, .data.u32 = next };
            epoll_ctl(ep, EPOLL_CTL_ADD, h->fd, &ev);
            inflight_connect++; next++;
        }
        if (!printed_sent && sent == n) { printf("sent %d %.3f\n", n, now() - t0); fflush(stdout); printed_sent = 1; tsent = now(); }
        if (now() - t0 > timeout) break;
        int k = epoll_wait(ep, evs, 256, 100);
        for (int i = 0; i < k; i++) {
            int idx = evs[i].data.u32; hc_t *h = &c[idx];
            if (h->state == 0) {
                int err = 0; socklen_t el = sizeof err; getsockopt(h->fd, SOL_SOCKET, SO_ERROR, &err, &el);
                inflight_connect--;
                if (err) { fprintf(stderr, "connect %d: %s\n", idx, strerror(err)); h->state = 3; bad++; done++; close(h->fd); continue; }
                h->state = 1;
            }
            if (h->state == 1) {
                ssize_t w = write(h->fd, h->req + h->woff, h->rl - h->woff);
                if (w > 0) h->woff += w;
                if ((int)h->woff == h->rl) {
                    h->state = 2; sent++;
                    struct epoll_event ev = { .events = EPOLLIN, .data.u32 = idx };
                    epoll_ctl(ep, EPOLL_CTL_MOD, h->fd, &ev);
                }
                continue;
            }
            if (h->state == 2) {
                int closed = 0;
                for (;;) {
                    reserve(&h->in, 16384);
                    ssize_t r = read(h->fd, h->in.p + h->in.len, h->in.cap - h->in.len - 1);
                    if (r > 0) { h->in.len += r; continue; }
                    if (r < 0 && errno == EAGAIN) break;
                    closed = 1; break;
                }
                int st; const char *body; size_t blen;
                size_t tot = response_complete(&h->in, &st, &body, &blen);
                if (tot) {
                    if (!tfirst) tfirst = now();
                    char want[48]; int wl = snprintf(want, sizeof want, "Clicked t%d\"", idx);
                    int good = st == 200 && memmem(body, blen, want, wl);
                    if (good) ok++; else { if (bad++ < 3) fprintf(stderr, "bad answer for t%d: %d %.300s\n", idx, st, body); }
                    h->state = 3; done++; close(h->fd); free(h->in.p); h->in.p = 0;
                } else if (closed) {
                    if (bad++ < 3) fprintf(stderr, "t%d: connection closed without an answer\n", idx);
                    h->state = 3; done++; close(h->fd);
                }
            }
        }
    }
    double t = now();
    printf("ok %d bad %d missing %d first_after_sent %.3f all_after_sent %.3f\n", ok, bad, n - done,
           tfirst && tsent ? tfirst - tsent : -1, tsent ? t - tsent : -1);
    return ok == n ? 0 : 1;
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);
    g_token = getenv("TOKEN"); if (g_token && !*g_token) g_token = 0;
    if (getenv("TOOL")) g_tool = getenv("TOOL");
    if (argc < 4) { fprintf(stderr, "usage: see the comment at the top of loadc.c\n"); return 1; }
    parse_addr(argv[2]);
    if (!strcmp(argv[1], "lat")) return mode_lat(atof(argv[3]));
    if (!strcmp(argv[1], "get") && argc >= 5) return mode_get(atoi(argv[3]), argv + 4, argc - 4);
    if (!strcmp(argv[1], "one")) return mode_one(atoi(argv[3]));
    if (!strcmp(argv[1], "hold") && argc >= 5) return mode_hold(atoi(argv[3]), atof(argv[4]));
    fprintf(stderr, "unknown mode\n"); return 1;
}
