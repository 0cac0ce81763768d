/* ceil: trivial servers that measure the ceiling of the bench's own load tools.
 *
 *   ceil http PORT            single-threaded epoll HTTP/1.1 keep-alive server that answers
 *                             every request at once with a ~2 KB JSON body: the most wrk +
 *                             click.lua can drive on this machine (no bridge in the way)
 *   ceil ws PORT WINDOW SECS [MD_BYTES]
 *                             accepts one WebSocket (any Origin; answers `hello` with `welcome`),
 *                             keeps WINDOW `command`s outstanding for SECS seconds, counts
 *                             answered commands (its pageInfoUpdate arrived): the most the
 *                             scripted browser (fastext or fake_extension.js) can answer;
 *                             with WINDOW 1, the mean round trip of one command is the latency
 *                             floor of the WebSocket hop
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
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

static int listen_on(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0) { perror("bind"); exit(2); }
    listen(fd, 1024);
    return fd;
}

/* ---------- http ---------- */
typedef struct { int fd; char in[8192]; size_t len; } hc_t;

static int run_http(int port) {
    int lfd = listen_on(port), ep = epoll_create1(0);
    fcntl(lfd, F_SETFL, O_NONBLOCK);
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
    static char resp[4096]; char body[2300];
    int bl = snprintf(body, sizeof body, "{\"status\":\"success\",\"message\":\"Clicked Login\",\"page\":{\"markdown\":\"");
    while (bl < 2100) body[bl++] = 'x';
    bl += snprintf(body + bl, sizeof body - bl, "\"}}");
    int rl = snprintf(resp, sizeof resp, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", bl, body);
    printf("ready\n"); fflush(stdout);
    struct epoll_event evs[128];
    for (;;) {
        int n = epoll_wait(ep, evs, 128, -1);
        for (int i = 0; i < n; i++) {
            hc_t *c = evs[i].data.ptr;
            if (!c) {
                int fd;
                while ((fd = accept4(lfd, 0, 0, SOCK_NONBLOCK)) >= 0) {
                    int one = 1; setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    hc_t *h = calloc(1, sizeof *h); h->fd = fd;
                    struct epoll_event e = { .events = EPOLLIN, .data.ptr = h };
                    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e);
                }
                continue;
            }
            ssize_t r = read(c->fd, c->in + c->len, sizeof c->in - c->len);
            if (r <= 0) { close(c->fd); free(c); continue; }
            c->len += r;
            for (;;) {
                char *e = memmem(c->in, c->len, "\r\n\r\n", 4);
                if (!e) break;
                size_t hl = e + 4 - c->in; long cl = 0;
                char *p = strcasestr(c->in, "content-length:");
                if (p && p < e) cl = atol(p + 15);
                if (c->len < hl + cl) break;
                if (write(c->fd, resp, rl) != rl) break;
                memmove(c->in, c->in + hl + cl, c->len - hl - cl); c->len -= hl + cl;
                c->in[c->len] = 0;
            }
        }
    }
    return 0;
}

/* ---------- ws ---------- */
typedef struct { uint32_t h[5]; uint64_t n; unsigned char b[64]; } sha1_t;
#define ROL(x, k) (((x) << (k)) | ((x) >> (32 - (k))))
static void sha1_block(sha1_t *s, const unsigned char *p) {
    uint32_t w[80], a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4];
    for (int i = 0; i < 16; i++) w[i] = (uint32_t)p[4 * i] << 24 | p[4 * i + 1] << 16 | p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 80; i++) w[i] = ROL(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20) { f = (b & c) | (~b & d); k = 0x5A827999; }
        else if (i < 40) { f = b ^ c ^ d; k = 0x6ED9EBA1; }
        else if (i < 60) { f = (b & c) | (b & d) | (c & d); k = 0x8F1BBCDC; }
        else { f = b ^ c ^ d; k = 0xCA62C1D6; }
        uint32_t t = ROL(a, 5) + f + e + k + w[i]; e = d; d = c; c = ROL(b, 30); b = a; a = t;
    }
    s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d; s->h[4] += e;
}
static void sha1(const unsigned char *d, size_t n, unsigned char out[20]) {
    sha1_t s = { { 0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0 }, 0, {0} };
    size_t i = 0; for (; i + 64 <= n; i += 64) sha1_block(&s, d + i);
    unsigned char last[128] = {0}; size_t r = n - i; memcpy(last, d + i, r); last[r] = 0x80;
    size_t tot = r + 9 <= 64 ? 64 : 128; uint64_t bits = (uint64_t)n * 8;
    for (int k = 0; k < 8; k++) last[tot - 1 - k] = bits >> (8 * k);
    sha1_block(&s, last); if (tot == 128) sha1_block(&s, last + 64);
    for (int k = 0; k < 5; k++) { out[4 * k] = s.h[k] >> 24; out[4 * k + 1] = s.h[k] >> 16; out[4 * k + 2] = s.h[k] >> 8; out[4 * k + 3] = s.h[k]; }
}
static void b64(const unsigned char *d, size_t n, char *out) {
    static const char *T = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = d[i] << 16 | (i + 1 < n ? d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
        out[o++] = T[v >> 18 & 63]; out[o++] = T[v >> 12 & 63];
        out[o++] = i + 1 < n ? T[v >> 6 & 63] : '='; out[o++] = i + 2 < n ? T[v & 63] : '=';
    }
    out[o] = 0;
}

static int g_fd; static char *g_out; static size_t g_outlen, g_outcap; static uint64_t g_seq;
static void out_add(const void *p, size_t n) {
    if (g_outlen + n > g_outcap) { g_outcap = (g_outlen + n) * 2; g_out = realloc(g_out, g_outcap); }
    memcpy(g_out + g_outlen, p, n); g_outlen += n;
}
static void send_text(const char *s, size_t n) {
    unsigned char h[10]; int hl = 0; h[hl++] = 0x81;
    if (n < 126) h[hl++] = n; else if (n < 65536) { h[hl++] = 126; h[hl++] = n >> 8; h[hl++] = n; }
    else { h[hl++] = 127; for (int i = 7; i >= 0; i--) h[hl++] = (uint64_t)n >> (8 * i); }
    out_add(h, hl); out_add(s, n);
}
static void send_command(void) {
    char m[256];
    int k = snprintf(m, sizeof m, "{\"type\":\"command\",\"data\":{\"requestId\":\"req-%012llu\",\"command\":\"click\",\"wait_for_page_info\":true,\"target\":\"Login\"}}",
                     (unsigned long long)++g_seq);
    send_text(m, k);
}
static void flush_out(void) {
    size_t off = 0;
    while (off < g_outlen) {
        ssize_t w = write(g_fd, g_out + off, g_outlen - off);
        if (w < 0) { if (errno == EINTR) continue; if (errno == EAGAIN) { /* blocking socket: should not happen */ continue; } perror("write"); exit(3); }
        off += w;
    }
    g_outlen = 0;
}

static int run_ws(int port, int window, double secs) {
    int lfd = listen_on(port);
    printf("ready\n"); fflush(stdout);
    alarm(secs + 30); /* never outlive the bench */
    g_fd = accept(lfd, 0, 0);
    int one = 1; setsockopt(g_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    size_t cap = 1 << 24, len = 0; unsigned char *in = malloc(cap);
    /* upgrade */
    for (;;) {
        ssize_t r = read(g_fd, in + len, cap - len - 1); if (r <= 0) return 2; len += r; in[len] = 0;
        char *e = strstr((char *)in, "\r\n\r\n"); if (!e) continue;
        char *k = strcasestr((char *)in, "sec-websocket-key:"); if (!k) return 2;
        k += 18; while (*k == ' ') k++;
        char key[128]; int kl = 0; while (k[kl] != '\r' && kl < 60) { key[kl] = k[kl]; kl++; }
        strcpy(key + kl, "258EAFA5-E914-47DA-95CA-C5AB0DC85B11");
        unsigned char dg[20]; char acc[40]; sha1((unsigned char *)key, strlen(key), dg); b64(dg, 20, acc);
        char resp[256]; int rl = snprintf(resp, sizeof resp, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n", acc);
        out_add(resp, rl); flush_out();
        size_t hl = e + 4 - (char *)in; memmove(in, in + hl, len - hl); len -= hl;
        break;
    }
    double t0 = 0, end = 0; long answered = 0, results = 0; int started = 0;
    /* Start at once unless a hello arrives first (then answer welcome). Give 0.3 s for hello. */
    fcntl(g_fd, F_SETFL, 0);
    struct timeval tv = { 0, 300000 }; setsockopt(g_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    for (;;) {
        if (!started) {
            ssize_t r = read(g_fd, in + len, cap - len);
            if (r > 0) len += r;
            if (r < 0 && errno != EAGAIN) return 2;
            if (r == 0) return 2;
            if (len >= 2 || r < 0) {
                const char *w = "{\"type\":\"welcome\",\"data\":{\"serverVersion\":\"ceil\",\"protocolVersion\":1,\"clientId\":\"x\",\"heartbeatSeconds\":20,\"maxMessageBytes\":16777216}}";
                if (len) send_text(w, strlen(w)), len = 0; /* whatever came first was the hello */
                struct timeval z = { 0, 0 }; setsockopt(g_fd, SOL_SOCKET, SO_RCVTIMEO, &z, sizeof z);
                for (int i = 0; i < window; i++) send_command();
                flush_out(); started = 1; t0 = now(); end = t0 + secs;
            }
            continue;
        }
        ssize_t r = read(g_fd, in + len, cap - len);
        if (r <= 0) break;
        len += r;
        size_t off = 0; int newc = 0;
        for (;;) {
            if (len - off < 2) break;
            unsigned char *p = in + off; int masked = p[1] & 0x80; uint64_t pl = p[1] & 127; size_t hl = 2;
            if (pl == 126) { if (len - off < 4) break; pl = p[2] << 8 | p[3]; hl = 4; }
            else if (pl == 127) { if (len - off < 10) break; pl = 0; for (int i = 0; i < 8; i++) pl = pl << 8 | p[2 + i]; hl = 10; }
            if (masked) hl += 4;
            if (len - off < hl + pl) { if (hl + pl > cap) { cap = (hl + pl) * 2; in = realloc(in, cap); } break; }
            unsigned char *d = p + hl;
            if (masked) { unsigned char *mk = d - 4; size_t n = pl < 48 ? pl : 48; for (size_t i = 0; i < n; i++) d[i] ^= mk[i & 3]; }
            /* only the first bytes are unmasked: enough to see the type */
            if (pl >= 20 && memmem(d, pl < 48 ? pl : 48, "pageInfoUpdate", 14)) { answered++; newc++; }
            else if (pl >= 20 && memmem(d, pl < 48 ? pl : 48, "command_result", 14)) results++;
            off += hl + pl;
        }
        memmove(in, in + off, len - off); len -= off;
        if (now() < end) { for (int i = 0; i < newc; i++) send_command(); flush_out(); }
        else if ((long)g_seq == answered) break;
        if (now() > end + 5) break;
    }
    double el = now() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    /* Little's law: with WINDOW commands always outstanding, each takes WINDOW/rate on average. */
    printf("answered %ld results %ld in %.2f s: %.0f commands/s (window %d), %.2f us CPU per command, %.1f us mean round trip\n",
           answered, results, el, answered / el, window, answered ? cpu * 1e6 / answered : 0.0,
           answered ? window * el * 1e6 / answered : 0.0);
    return 0;
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);
    if (argc >= 3 && !strcmp(argv[1], "http")) return run_http(atoi(argv[2]));
    if (argc >= 5 && !strcmp(argv[1], "ws")) return run_ws(atoi(argv[2]), atoi(argv[3]), atof(argv[4]));
    fprintf(stderr, "usage: see the comment at the top of ceil.c\n");
    return 1;
}
