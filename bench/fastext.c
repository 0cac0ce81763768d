/* fastext: a fast scripted browser extension for benchmarking Browser Bridge.
 *
 * A minimal WebSocket client over plain TCP sockets (one thread, epoll). For every
 * `command` it receives it answers at once with a `command_result` and a
 * `pageInfoUpdate` carrying MD_BYTES of Markdown, exactly like
 * /work/shared/peers/fake_extension.js, only much cheaper per message.
 *
 *   fastext [options]
 *     -c HOST:PORT     daemon WebSocket address (default 127.0.0.1:8766)
 *     -p PATH          upgrade path (default /ws/browser)
 *     -o ORIGIN        Origin header (default the pinned extension origin)
 *     -t TOKEN         answer the daemon's `challenge` with a `hello` that proves this token
 *                      (protocol 2, docs/protocol.md), and check the `welcome`'s proof
 *     -n N             open N connections (clientId bench-0 .. bench-N-1)
 *     -m BYTES         Markdown bytes per page (default $MD_BYTES or 2000)
 *     -d               distinct pages: every page has its own words (for history/FTS)
 *     -H               hold: keep every command unanswered until SIGUSR1, then answer
 *                      them all (prints "held K" every 1000 and on each change after 1 s)
 *     -u N             unsolicited: send N pageInfoUpdates without requestId, then idle
 *     -s SEED          seed for distinct pages (default 1)
 *
 * Prints "ready" on stdout when every connection is upgraded (and welcomed, with -t).
 * On SIGTERM/SIGINT prints "answered N errors E" and exits.
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

typedef struct { char *p; size_t len, cap, off; } buf_t;

static void buf_reserve(buf_t *b, size_t n) {
    if (b->len + n <= b->cap) return;
    size_t c = b->cap ? b->cap : 4096;
    while (c < b->len + n) c *= 2;
    b->p = realloc(b->p, c);
    if (!b->p) { perror("realloc"); exit(2); }
    b->cap = c;
}
static void buf_add(buf_t *b, const void *d, size_t n) { buf_reserve(b, n); memcpy(b->p + b->len, d, n); b->len += n; }
static void buf_adds(buf_t *b, const char *s) { buf_add(b, s, strlen(s)); }
static void buf_consume(buf_t *b, size_t n) {
    b->off += n;
    if (b->off == b->len) b->off = b->len = 0;
    else if (b->off > (1u << 20) && b->off * 2 > b->len) {
        memmove(b->p, b->p + b->off, b->len - b->off); b->len -= b->off; b->off = 0;
    }
}

typedef struct { int conn; char rid[80]; char target[256]; } held_t;

/* ---- protocol 2: HMAC-SHA256 proofs (a small SHA-256, so the tool builds with no library) ---- */
typedef struct { uint32_t h[8]; unsigned char blk[64]; size_t n; uint64_t total; } sha256_t;
static const uint32_t K256[64] = {
    0x428a2f98,0x71374491,0xb5c0fbcf,0xe9b5dba5,0x3956c25b,0x59f111f1,0x923f82a4,0xab1c5ed5,0xd807aa98,0x12835b01,
    0x243185be,0x550c7dc3,0x72be5d74,0x80deb1fe,0x9bdc06a7,0xc19bf174,0xe49b69c1,0xefbe4786,0x0fc19dc6,0x240ca1cc,
    0x2de92c6f,0x4a7484aa,0x5cb0a9dc,0x76f988da,0x983e5152,0xa831c66d,0xb00327c8,0xbf597fc7,0xc6e00bf3,0xd5a79147,
    0x06ca6351,0x14292967,0x27b70a85,0x2e1b2138,0x4d2c6dfc,0x53380d13,0x650a7354,0x766a0abb,0x81c2c92e,0x92722c85,
    0xa2bfe8a1,0xa81a664b,0xc24b8b70,0xc76c51a3,0xd192e819,0xd6990624,0xf40e3585,0x106aa070,0x19a4c116,0x1e376c08,
    0x2748774c,0x34b0bcb5,0x391c0cb3,0x4ed8aa4a,0x5b9cca4f,0x682e6ff3,0x748f82ee,0x78a5636f,0x84c87814,0x8cc70208,
    0x90befffa,0xa4506ceb,0xbef9a3f7,0xc67178f2};
#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
static void sha_block(sha256_t *c, const unsigned char *p) {
    uint32_t w[64], a, b, cc, d, e, f, g, h;
    for (int i = 0; i < 16; i++) w[i] = (uint32_t)p[4*i] << 24 | (uint32_t)p[4*i+1] << 16 | (uint32_t)p[4*i+2] << 8 | p[4*i+3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROR(w[i-15], 7) ^ ROR(w[i-15], 18) ^ (w[i-15] >> 3), s1 = ROR(w[i-2], 17) ^ ROR(w[i-2], 19) ^ (w[i-2] >> 10);
        w[i] = w[i-16] + s0 + w[i-7] + s1;
    }
    a = c->h[0]; b = c->h[1]; cc = c->h[2]; d = c->h[3]; e = c->h[4]; f = c->h[5]; g = c->h[6]; h = c->h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
        uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & cc) ^ (b & cc));
        h = g; g = f; f = e; e = d + t1; d = cc; cc = b; b = a; a = t1 + t2;
    }
    c->h[0] += a; c->h[1] += b; c->h[2] += cc; c->h[3] += d; c->h[4] += e; c->h[5] += f; c->h[6] += g; c->h[7] += h;
}
static void sha_init(sha256_t *c) {
    static const uint32_t iv[8] = {0x6a09e667,0xbb67ae85,0x3c6ef372,0xa54ff53a,0x510e527f,0x9b05688c,0x1f83d9ab,0x5be0cd19};
    memcpy(c->h, iv, sizeof iv); c->n = 0; c->total = 0;
}
static void sha_add(sha256_t *c, const void *d, size_t n) {
    const unsigned char *p = d; c->total += n;
    while (n--) { c->blk[c->n++] = *p++; if (c->n == 64) { sha_block(c, c->blk); c->n = 0; } }
}
static void sha_end(sha256_t *c, unsigned char out[32]) {
    uint64_t bits = c->total * 8; unsigned char pad = 0x80, z = 0, len[8];
    sha_add(c, &pad, 1);
    while (c->n != 56) sha_add(c, &z, 1);
    for (int i = 0; i < 8; i++) len[i] = (unsigned char)(bits >> (56 - 8 * i));
    sha_add(c, len, 8);
    for (int i = 0; i < 8; i++) { out[4*i] = c->h[i] >> 24; out[4*i+1] = c->h[i] >> 16; out[4*i+2] = c->h[i] >> 8; out[4*i+3] = c->h[i]; }
}
static void hmac_sha256(const char *key, const char *msg, unsigned char out[32]) {
    unsigned char k[64] = {0}, ip[64], op[64], inner[32]; size_t kl = strlen(key); sha256_t c;
    if (kl > 64) { sha_init(&c); sha_add(&c, key, kl); sha_end(&c, k); } else memcpy(k, key, kl);
    for (int i = 0; i < 64; i++) { ip[i] = k[i] ^ 0x36; op[i] = k[i] ^ 0x5c; }
    sha_init(&c); sha_add(&c, ip, 64); sha_add(&c, msg, strlen(msg)); sha_end(&c, inner);
    sha_init(&c); sha_add(&c, op, 64); sha_add(&c, inner, 32); sha_end(&c, out);
}
static void b64url32(const unsigned char in[32], char out[44]) {
    static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    size_t o = 0, i = 0;
    for (; i + 2 < 32; i += 3) { uint32_t v = in[i] << 16 | in[i+1] << 8 | in[i+2];
        out[o++] = al[v >> 18 & 63]; out[o++] = al[v >> 12 & 63]; out[o++] = al[v >> 6 & 63]; out[o++] = al[v & 63]; }
    { uint32_t v = in[30] << 16 | in[31] << 8; out[o++] = al[v >> 18 & 63]; out[o++] = al[v >> 12 & 63]; out[o++] = al[v >> 6 & 63]; }
    out[o] = 0;
}
/* base64url(HMAC-SHA256(token, "browser-bridge LABEL\n" A "\n" B)) */
static void proof(const char *token, const char *label, const char *a, const char *b, char out[44]) {
    char msg[256]; unsigned char mac[32];
    snprintf(msg, sizeof msg, "browser-bridge %s\n%s\n%s", label, a, b);
    hmac_sha256(token, msg, mac); b64url32(mac, out);
}

typedef struct {
    int fd, idx, state; /* 0 upgrading, 3 waiting challenge, 1 waiting welcome, 2 ready */
    char snonce[64], cnonce[44]; /* the daemon's challenge and our own nonce */
    buf_t in, out, msg;  /* msg: reassembled fragmented message */
    int want_out;
} conn_t;

static const char *g_host = "127.0.0.1"; static int g_port = 8766;
static const char *g_path = "/ws/browser";
static const char *g_origin = "chrome-extension://lpjafomjfpchgbopnmlebcocfkelgpgo";
static const char *g_token = NULL;
static int g_nconn = 1, g_distinct = 0, g_hold = 0;
static long g_unsol = 0, g_unsol_sent = 0;
static size_t g_md = 2000;
static char *g_mdtext; /* already JSON-safe */
static uint64_t g_seed = 1, g_pageno = 0;
static long g_answered = 0, g_errors = 0;
static volatile sig_atomic_t g_stop = 0, g_release = 0;
static int g_ep;
static conn_t *g_conns;
static held_t *g_held; static size_t g_nheld = 0, g_capheld = 0;
static uint64_t g_rng = 0x9e3779b97f4a7c15ULL;

static uint64_t xs(void) { g_rng ^= g_rng << 13; g_rng ^= g_rng >> 7; g_rng ^= g_rng << 17; return g_rng; }

static void on_sig(int s) { if (s == SIGUSR1) g_release = 1; else g_stop = 1; }

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

/* A vocabulary for distinct pages: common words plus generated rare ones. */
static const char *VOCAB[] = {"browser","bridge","agent","click","login","page","table","search","result","account",
    "settings","profile","order","invoice","payment","shipping","address","product","review","rating",
    "the","and","for","with","from","this","that","your","have","more","about","contact","help","news",
    "price","cart","checkout","delivery","return","policy","privacy","terms","cookie","banner","menu",
    "button","submit","cancel","next","previous","home","blog","article","comment","share","follow"};
#define NVOCAB (sizeof VOCAB / sizeof VOCAB[0])

/* Append a distinct Markdown page of about n bytes, JSON-escaped (newlines as \n). */
static void gen_page(buf_t *b, uint64_t pageno, size_t n) {
    size_t start = b->len;
    char tmp[96];
    int k = snprintf(tmp, sizeof tmp, "# Page %llu\\n\\n", (unsigned long long)pageno);
    buf_add(b, tmp, k);
    uint64_t r = pageno * 0x2545F4914F6CDD1DULL + g_seed;
    int words = 0;
    while (b->len - start < n) {
        r ^= r << 13; r ^= r >> 7; r ^= r << 17;
        if ((r & 31) == 0) /* rare word: w<number>, ~10k distinct values */
            k = snprintf(tmp, sizeof tmp, "w%llu ", (unsigned long long)((r >> 8) % 10007));
        else if ((r & 255) == 1) /* unique-ish word per page */
            k = snprintf(tmp, sizeof tmp, "p%llu ", (unsigned long long)pageno);
        else
            k = snprintf(tmp, sizeof tmp, "%s ", VOCAB[(r >> 8) % NVOCAB]);
        buf_add(b, tmp, k);
        if (++words % 14 == 0) buf_add(b, "\\n", 2);
    }
}

/* Frame payload [start, len) of b as a masked text frame: inserts the header. */
static void frame_begin(buf_t *b, size_t *hdrpos) { buf_reserve(b, 14); *hdrpos = b->len; b->len += 14; }
static void frame_end(buf_t *b, size_t hdrpos) {
    size_t plen = b->len - hdrpos - 14;
    unsigned char h[14]; int hl = 0;
    h[hl++] = 0x81;
    if (plen < 126) h[hl++] = 0x80 | plen;
    else if (plen < 65536) { h[hl++] = 0x80 | 126; h[hl++] = plen >> 8; h[hl++] = plen; }
    else { h[hl++] = 0x80 | 127; for (int i = 7; i >= 0; i--) h[hl++] = (uint64_t)plen >> (8 * i); }
    uint32_t key = (uint32_t)xs();
    memcpy(h + hl, &key, 4); hl += 4;
    /* move header right before payload */
    unsigned char *payload = (unsigned char *)b->p + hdrpos + 14;
    uint64_t k8 = (uint64_t)key | ((uint64_t)key << 32);
    size_t i = 0;
    for (; i + 8 <= plen; i += 8) { uint64_t v; memcpy(&v, payload + i, 8); v ^= k8; memcpy(payload + i, &v, 8); }
    const unsigned char *kb = (const unsigned char *)&key;
    for (; i < plen; i++) payload[i] ^= kb[i & 3];
    memmove(b->p + hdrpos + hl, payload, plen); /* close the 14-hl gap */
    memcpy(b->p + hdrpos, h, hl);
    b->len = hdrpos + hl + plen;
}

static void want_write(conn_t *c) {
    if (c->want_out) return;
    struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT, .data.ptr = c };
    epoll_ctl(g_ep, EPOLL_CTL_MOD, c->fd, &ev);
    c->want_out = 1;
}

static void flush(conn_t *c) {
    while (c->out.len > c->out.off) {
        ssize_t w = write(c->fd, c->out.p + c->out.off, c->out.len - c->out.off);
        if (w < 0) { if (errno == EAGAIN) { want_write(c); return; } if (errno == EINTR) continue; perror("write"); exit(3); }
        buf_consume(&c->out, w);
    }
    if (c->want_out) {
        struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
        epoll_ctl(g_ep, EPOLL_CTL_MOD, c->fd, &ev);
        c->want_out = 0;
    }
}

static void send_page(conn_t *c, const char *rid) {
    buf_t *b = &c->out; size_t h;
    uint64_t no = ++g_pageno;
    char tmp[256];
    frame_begin(b, &h);
    buf_adds(b, "{\"type\":\"pageInfoUpdate\",\"data\":{");
    if (rid) { buf_adds(b, "\"requestId\":\""); buf_adds(b, rid); buf_adds(b, "\","); }
    /* Like fake_extension.js: the same url and title every time, unless pages are to be distinct (-d). */
    int k = g_distinct
        ? snprintf(tmp, sizeof tmp, "\"tabId\":1,\"url\":\"http://127.0.0.1/p/%llu\",\"title\":\"Page %llu\",\"markdown\":\"",
                   (unsigned long long)no, (unsigned long long)no)
        : snprintf(tmp, sizeof tmp, "\"tabId\":1,\"url\":\"http://127.0.0.1/p\",\"title\":\"Page\",\"markdown\":\"");
    buf_add(b, tmp, k);
    if (g_distinct) gen_page(b, no, g_md); else buf_add(b, g_mdtext, g_md);
    buf_adds(b, "\",\"truncated\":false}}");
    frame_end(b, h);
}

static void answer(conn_t *c, const char *rid, const char *target) {
    buf_t *b = &c->out; size_t h;
    frame_begin(b, &h);
    buf_adds(b, "{\"type\":\"command_result\",\"data\":{\"requestId\":\"");
    buf_adds(b, rid);
    buf_adds(b, "\",\"status\":\"success\",\"message\":\"Clicked ");
    buf_adds(b, target);
    buf_adds(b, "\"}}");
    frame_end(b, h);
    send_page(c, rid);
    g_answered++;
}

/* Copy the JSON string value of "key" (raw, escapes kept) into dst. */
static int json_str(const char *s, size_t n, const char *key, char *dst, size_t dn) {
    size_t kl = strlen(key);
    const char *p = s, *e = s + n;
    while ((p = memmem(p, e - p, key, kl))) {
        const char *q = p + kl;
        p = q;
        if (p - kl == s || p[-kl - 1] != '"' || q >= e || *q != '"') continue;
        q++;
        while (q < e && (*q == ' ' || *q == ':' || *q == '\t' || *q == '\n')) q++;
        if (q >= e || *q != '"') continue;
        q++;
        size_t i = 0;
        while (q < e && *q != '"' && i + 1 < dn) { if (*q == '\\' && q + 1 < e) dst[i++] = *q++; dst[i++] = *q++; }
        dst[i] = 0;
        return 1;
    }
    return 0;
}

static void send_hello(conn_t *c) {
    buf_t *b = &c->out; size_t h; char tmp[768], pf[44]; unsigned char raw[32];
    for (int i = 0; i < 32; i++) raw[i] = (unsigned char)xs();
    b64url32(raw, c->cnonce);
    proof(g_token, "hello", c->snonce, c->cnonce, pf);
    frame_begin(b, &h);
    int k = snprintf(tmp, sizeof tmp,
        "{\"type\":\"hello\",\"data\":{\"clientId\":\"bench-%d\",\"nonce\":\"%s\",\"proof\":\"%s\",\"browser\":\"Chromium\","
        "\"browserVersion\":\"156.0.8078.79\",\"extensionVersion\":\"1.0.0\","
        "\"capabilities\":[\"open_url\",\"click\",\"type\",\"get_page\"]}}", c->idx, c->cnonce, pf);
    buf_add(b, tmp, k);
    frame_end(b, h);
}

static int nready = 0;
static void mark_ready(conn_t *c) {
    c->state = 2;
    if (++nready == g_nconn) { printf("ready\n"); fflush(stdout); }
}

static void pump_unsolicited(void) {
    if (g_unsol_sent >= g_unsol || nready < g_nconn) return;
    for (int i = 0; i < g_nconn && g_unsol_sent < g_unsol; i++) {
        conn_t *c = &g_conns[i];
        while (g_unsol_sent < g_unsol && c->out.len - c->out.off < (256u << 10)) { send_page(c, NULL); g_unsol_sent++; }
        flush(c);
        if (g_unsol_sent < g_unsol) want_write(c); /* wake us as soon as the socket takes more */
    }
    if (g_unsol_sent >= g_unsol) { printf("sent %ld\n", g_unsol_sent); fflush(stdout); }
}

static void on_message(conn_t *c, const char *m, size_t n) {
    const char *e = m + (n < 64 ? n : 64);
    int is_cmd = memmem(m, e - m, "\"command\"", 9) != NULL;
    char rid[80], target[256];
    if (is_cmd && json_str(m, n, "requestId", rid, sizeof rid)) {
        if (!json_str(m, n, "target", target, sizeof target)) strcpy(target, "?");
        if (g_hold && !g_release) {
            if (g_nheld == g_capheld) { g_capheld = g_capheld ? g_capheld * 2 : 1024; g_held = realloc(g_held, g_capheld * sizeof *g_held); }
            held_t *hd = &g_held[g_nheld++];
            hd->conn = c->idx; strcpy(hd->rid, rid); strcpy(hd->target, target);
            if (g_nheld % 1000 == 0) { printf("held %zu\n", g_nheld); fflush(stdout); }
            return;
        }
        answer(c, rid, target);
        return;
    }
    if (memmem(m, e - m, "\"challenge\"", 11)) {
        if (c->state == 3 && json_str(m, n, "nonce", c->snonce, sizeof c->snonce)) { c->state = 1; send_hello(c); }
        return;
    }
    if (memmem(m, e - m, "\"welcome\"", 9)) {
        char got[64] = "", want[44];
        if (c->state != 1) return;
        proof(g_token, "welcome", c->cnonce, c->snonce, want);
        if (!json_str(m, n, "proof", got, sizeof got) || strcmp(got, want) != 0) {
            fprintf(stderr, "fastext: the welcome does not prove the token: not the Browser Bridge daemon\n");
            exit(7);
        }
        mark_ready(c);
        return;
    }
    if (memmem(m, e - m, "\"error\"", 7)) {
        if (g_errors++ < 5) fprintf(stderr, "fastext: error from daemon: %.*s\n", (int)(n < 300 ? n : 300), m);
        return;
    }
}

static void send_ctl(conn_t *c, int op, const unsigned char *p, size_t n) {
    buf_t *b = &c->out; size_t h;
    frame_begin(b, &h);
    buf_add(b, p, n);
    frame_end(b, h);
    b->p[h] = 0x80 | op;
}

/* Returns 0 on close. */
static int on_readable(conn_t *c) {
    for (;;) {
        buf_reserve(&c->in, 65536);
        ssize_t r = read(c->fd, c->in.p + c->in.len, c->in.cap - c->in.len);
        if (r < 0) { if (errno == EAGAIN) break; if (errno == EINTR) continue; perror("read"); return 0; }
        if (r == 0) return 0;
        c->in.len += r;
        if ((size_t)r < 65536) break;
    }
    for (;;) {
        const unsigned char *p = (const unsigned char *)c->in.p + c->in.off;
        size_t avail = c->in.len - c->in.off;
        if (c->state == 0) {
            char *end = memmem(p, avail, "\r\n\r\n", 4);
            if (!end) break;
            if (avail < 12 || memcmp(p + 9, "101", 3)) {
                fprintf(stderr, "fastext: upgrade refused: %.*s\n", (int)((const unsigned char *)end - p), p);
                exit(4);
            }
            buf_consume(&c->in, (const unsigned char *)end + 4 - p);
            if (g_token) c->state = 3; /* the hello answers the daemon's challenge */
            else mark_ready(c);
            continue;
        }
        if (avail < 2) break;
        int fin = p[0] & 0x80, op = p[0] & 15, masked = p[1] & 0x80;
        uint64_t len = p[1] & 127; size_t hl = 2;
        if (len == 126) { if (avail < 4) break; len = (p[2] << 8) | p[3]; hl = 4; }
        else if (len == 127) { if (avail < 10) break; len = 0; for (int i = 0; i < 8; i++) len = (len << 8) | p[2 + i]; hl = 10; }
        if (masked) hl += 4;
        if (avail < hl + len) { buf_reserve(&c->in, hl + len - avail); break; }
        unsigned char *pl = (unsigned char *)c->in.p + c->in.off + hl;
        if (masked) { const unsigned char *k = pl - 4; for (uint64_t i = 0; i < len; i++) pl[i] ^= k[i & 3]; }
        if (op == 9) send_ctl(c, 10, pl, len);
        else if (op == 8) { fprintf(stderr, "fastext: close from daemon (code %d) %.*s\n", len >= 2 ? (pl[0] << 8) | pl[1] : 0, (int)(len > 2 ? len - 2 : 0), pl + 2); return 0; }
        else if (op == 1 || op == 2 || op == 0) {
            if (fin && c->msg.len == 0) on_message(c, (const char *)pl, len);
            else { buf_add(&c->msg, pl, len); if (fin) { on_message(c, c->msg.p, c->msg.len); c->msg.len = 0; } }
        }
        buf_consume(&c->in, hl + len);
    }
    flush(c);
    return 1;
}

static void release_held(void) {
    for (size_t i = 0; i < g_nheld; i++) {
        conn_t *c = &g_conns[g_held[i].conn];
        answer(c, g_held[i].rid, g_held[i].target);
        if (c->out.len - c->out.off > (4u << 20)) flush(c);
    }
    for (int i = 0; i < g_nconn; i++) flush(&g_conns[i]);
    g_nheld = 0;
}

int main(int argc, char **argv) {
    int opt;
    const char *env = getenv("MD_BYTES"); if (env) g_md = strtoul(env, 0, 10);
    while ((opt = getopt(argc, argv, "c:p:o:t:n:m:dHu:s:")) != -1) {
        switch (opt) {
        case 'c': { char *h = strdup(optarg), *col = strrchr(h, ':'); if (!col) { fprintf(stderr, "bad -c\n"); return 1; } *col = 0; g_host = h; g_port = atoi(col + 1); break; }
        case 'p': g_path = optarg; break;
        case 'o': g_origin = optarg; break;
        case 't': g_token = optarg; break;
        case 'n': g_nconn = atoi(optarg); break;
        case 'm': g_md = strtoul(optarg, 0, 10); break;
        case 'd': g_distinct = 1; break;
        case 'H': g_hold = 1; break;
        case 'u': g_unsol = atol(optarg); break;
        case 's': g_seed = strtoull(optarg, 0, 10); break;
        default: fprintf(stderr, "usage: see the comment at the top of fastext.c\n"); return 1;
        }
    }
    g_mdtext = malloc(g_md + 64);
    { const char *head = "# Page\\n\\n", *lorem = "Lorem ipsum dolor sit amet. ";
      size_t i = 0, hl = strlen(head), ll = strlen(lorem);
      memcpy(g_mdtext, head, hl); i = hl;
      while (i < g_md) { size_t k = ll < g_md - i ? ll : g_md - i; memcpy(g_mdtext + i, lorem, k); i += k; }
      if (g_md < hl) g_md = hl; }
    g_rng ^= (uint64_t)getpid() << 20 ^ (uint64_t)time(NULL);
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = { .sa_handler = on_sig }; sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, 0); sigaction(SIGINT, &sa, 0); sigaction(SIGUSR1, &sa, 0);
    g_ep = epoll_create1(0);
    g_conns = calloc(g_nconn, sizeof *g_conns);
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(g_port) };
    inet_pton(AF_INET, g_host, &sin.sin_addr);
    for (int i = 0; i < g_nconn; i++) {
        conn_t *c = &g_conns[i]; c->idx = i;
        c->fd = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(c->fd, (struct sockaddr *)&sin, sizeof sin) < 0) { perror("fastext: connect"); return 5; }
        int one = 1; setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        fcntl(c->fd, F_SETFL, O_NONBLOCK);
        char req[1024];
        int k = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nOrigin: %s\r\n\r\n", g_path, g_host, g_port, g_origin);
        buf_add(&c->out, req, k);
        struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
        epoll_ctl(g_ep, EPOLL_CTL_ADD, c->fd, &ev);
        flush(c);
    }
    struct epoll_event evs[64];
    int released = 0; double last_report = now(); size_t last_held = 0;
    while (!g_stop) {
        int n = epoll_wait(g_ep, evs, 64, g_hold ? 200 : 1000);
        for (int i = 0; i < n; i++) {
            conn_t *c = evs[i].data.ptr;
            if (evs[i].events & EPOLLOUT) flush(c);
            if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
                if (!on_readable(c)) { fprintf(stderr, "fastext: connection %d closed (answered %ld)\n", c->idx, g_answered); g_stop = 2; break; }
            }
        }
        if (g_unsol) pump_unsolicited();
        if (g_hold && !released) {
            if (g_release) { double t = now(); release_held(); released = 1; printf("released after %.3f s\n", now() - t); fflush(stdout); }
            else if (g_nheld != last_held && now() - last_report > 1) { printf("held %zu\n", g_nheld); fflush(stdout); last_held = g_nheld; last_report = now(); }
        }
    }
    printf("answered %ld errors %ld\n", g_answered, g_errors);
    return g_stop == 2 ? 6 : 0;
}
