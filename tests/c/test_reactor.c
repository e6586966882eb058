/*
 * test_reactor.c -- end-to-end test of the live data plane in C: an engine
 * with a memory drive and a file drive (io_uring, or the thread pool where
 * io_uring is missing, as under qemu-user), two exports each, served on a
 * unix socket to an in-process NBD client that speaks the wire protocol by
 * hand (fixed newstyle, OPT_GO, simple replies).
 *
 * What it checks, per drive:
 *   1. handshake: OPT_GO answers INFO_EXPORT with the namespace's size and
 *      flags, then ACK;
 *   2. a 64 KiB FUA write reads back byte for byte;
 *   3. 32 pipelined 4 KiB writes then 32 pipelined reads, matched by handle
 *      (replies may come in any order), each carrying its own pattern;
 *   4. FLUSH, TRIM and WRITE_ZEROES succeed; zeroed bytes read back as 0;
 *   5. an out-of-range read gets an error reply and the connection lives on;
 *   6. the second export on the same drive does not see the first's data
 *      (namespaces are disjoint);
 *   7. a request with a bad magic closes only that connection; a new one
 *      works; DISC closes cleanly;
 *   8. the engine's counters agree with what the client moved;
 *   9. structured replies and base:allocation (a third export per drive):
 *      a READ is one OFFSET_DATA chunk, an error one ERROR chunk, and
 *      BLOCK_STATUS reports the one written 4 KiB as data, the rest as
 *      holes, and a hole again after TRIM (memory; a file system that
 *      cannot tell may report data).
 * Then a graceful stop and destroy (leaks show under ASan).
 *
 * It runs natively, under ASan/UBSan and as an aarch64 binary under
 * qemu-aarch64 (make test-c, test-asan, test-arm).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "backend.h"
#include "jbof_nbd.h"
#include "testing.h"

enum { NS_BYTES = 8 << 20, PIPE = 32, BIG = 65536 };

static void put_be16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void put_be32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (24 - 8 * i));
}
static void put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (56 - 8 * i));
}
static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint64_t be64(const uint8_t *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }

static int send_all(int fd, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int recv_all(int fd, void *buf, size_t n)
{
    uint8_t *p = buf;
    while (n) {
        ssize_t r = recv(fd, p, n, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static int dial(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct timeval tv = {.tv_sec = 20}; /* a hung server fails the test, never hangs it */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Fixed-newstyle handshake with OPT_GO; returns the connected fd or -1. */
static int nbd_open(const char *path, const char *name, uint64_t *size_out, uint16_t *tflags_out)
{
    int fd = dial(path);
    if (fd < 0)
        return -1;
    uint8_t g[18];
    if (recv_all(fd, g, sizeof g) < 0 || be64(g) != JBOF_NBD_INIT_PASSWD || be64(g + 8) != JBOF_NBD_IHAVEOPT)
        goto fail;
    uint8_t cf[4];
    put_be32(cf, JBOF_NBD_FLAG_C_FIXED_NEWSTYLE | JBOF_NBD_FLAG_C_NO_ZEROES);
    size_t nl = strlen(name);
    uint8_t opt[16 + 4 + 256 + 2];
    put_be64(opt, JBOF_NBD_IHAVEOPT);
    put_be32(opt + 8, JBOF_NBD_OPT_GO);
    put_be32(opt + 12, (uint32_t)(4 + nl + 2));
    put_be32(opt + 16, (uint32_t)nl);
    memcpy(opt + 20, name, nl);
    put_be16(opt + 20 + nl, 0);
    if (send_all(fd, cf, 4) < 0 || send_all(fd, opt, 22 + nl) < 0)
        goto fail;
    for (int i = 0; i < 16; i++) {
        uint8_t h[20], d[1024];
        if (recv_all(fd, h, sizeof h) < 0 || be64(h) != 0x3e889045565a9ull)
            goto fail;
        uint32_t type = be32(h + 12), len = be32(h + 16);
        if (len > sizeof d || recv_all(fd, d, len) < 0)
            goto fail;
        if (type == JBOF_NBD_REP_ACK)
            return fd;
        if (type & 0x80000000u)
            goto fail;
        if (type == JBOF_NBD_REP_INFO && len >= 12 && d[0] == 0 && d[1] == JBOF_NBD_INFO_EXPORT) {
            *size_out = be64(d + 2);
            *tflags_out = (uint16_t)(d[10] << 8 | d[11]);
        }
    }
fail:
    close(fd);
    return -1;
}

static int nbd_send(int fd, uint16_t type, uint16_t flags, uint64_t handle, uint64_t off, uint32_t len,
                    const void *payload)
{
    uint8_t h[JBOF_NBD_REQUEST_BYTES];
    jbof_nbd_request r = {.handle = handle, .offset_bytes = off, .length_bytes = len, .flags = flags, .type = type};
    if (jbof_nbd_build_request(h, sizeof h, &r) != JBOF_NBD_REQUEST_BYTES || send_all(fd, h, sizeof h) < 0)
        return -1;
    return payload ? send_all(fd, payload, len) : 0;
}

/* Read one simple reply: returns its error (>= 0) and handle, or -1. */
static int nbd_reply(int fd, uint64_t *handle)
{
    uint8_t h[JBOF_NBD_REPLY_BYTES];
    if (recv_all(fd, h, sizeof h) < 0 || be32(h) != JBOF_NBD_SIMPLE_REPLY_MAGIC)
        return -1;
    *handle = be64(h + 8);
    return (int)be32(h + 4);
}

static void fill(uint8_t *b, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)((i * 131u + seed * 7u + (i >> 9)) ^ seed);
}

/* One synchronous command; for READ the data lands in out. */
static int nbd_cmd(int fd, uint16_t type, uint16_t flags, uint64_t off, uint32_t len, const void *in, void *out)
{
    static const uint64_t H = 0x1234;
    uint64_t h = 0;
    if (nbd_send(fd, type, flags, H, off, len, in) < 0)
        return -1;
    int err = nbd_reply(fd, &h);
    if (err < 0 || h != H)
        return -1;
    if (type == JBOF_NBD_CMD_READ && err == 0 && recv_all(fd, out, len) < 0)
        return -1;
    return err;
}

static void exercise(const char *sock, const char *a, const char *b)
{
    uint64_t size = 0;
    uint16_t tf = 0;
    int fd = nbd_open(sock, a, &size, &tf);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    CHECK_EQ(size, NS_BYTES);
    CHECK(tf & JBOF_NBD_FLAG_HAS_FLAGS);
    CHECK(tf & JBOF_NBD_FLAG_SEND_FLUSH);
    CHECK(!(tf & JBOF_NBD_FLAG_READ_ONLY));

    uint8_t *w = malloc(BIG), *r = malloc(BIG);
    fill(w, BIG, 1);
    CHECK_EQ(nbd_cmd(fd, JBOF_NBD_CMD_WRITE, JBOF_NBD_CMD_FLAG_FUA, 1 << 20, BIG, w, NULL), 0);
    memset(r, 0xee, BIG);
    CHECK_EQ(nbd_cmd(fd, JBOF_NBD_CMD_READ, 0, 1 << 20, BIG, NULL, r), 0);
    CHECK(memcmp(w, r, BIG) == 0);

    /* pipelined: PIPE writes in flight, then PIPE reads */
    static uint8_t blk[PIPE][4096], got[4096];
    for (int i = 0; i < PIPE; i++) {
        fill(blk[i], 4096, 100u + (uint32_t)i);
        CHECK_EQ(nbd_send(fd, JBOF_NBD_CMD_WRITE, 0, 1000u + (uint64_t)i, (uint64_t)i * 8192, 4096, blk[i]), 0);
    }
    int seen[PIPE] = {0};
    for (int i = 0; i < PIPE; i++) {
        uint64_t h = 0;
        CHECK_EQ(nbd_reply(fd, &h), 0);
        if (h >= 1000 && h < 1000 + PIPE)
            seen[h - 1000]++;
    }
    for (int i = 0; i < PIPE; i++)
        CHECK_EQ(seen[i], 1);
    for (int i = 0; i < PIPE; i++)
        CHECK_EQ(nbd_send(fd, JBOF_NBD_CMD_READ, 0, 2000u + (uint64_t)i, (uint64_t)i * 8192, 4096, NULL), 0);
    int ok = 0;
    for (int i = 0; i < PIPE; i++) {
        uint64_t h = 0;
        int err = nbd_reply(fd, &h);
        CHECK_EQ(err, 0);
        if (err != 0 || recv_all(fd, got, sizeof got) < 0)
            break;
        if (h >= 2000 && h < 2000 + PIPE && memcmp(got, blk[h - 2000], 4096) == 0)
            ok++;
    }
    CHECK_EQ(ok, PIPE);

    /* FLUSH, TRIM, WRITE_ZEROES */
    CHECK_EQ(nbd_cmd(fd, JBOF_NBD_CMD_FLUSH, 0, 0, 0, NULL, NULL), 0);
    CHECK_EQ(nbd_cmd(fd, JBOF_NBD_CMD_TRIM, 0, 2 << 20, 65536, NULL, NULL), 0);
    CHECK_EQ(nbd_cmd(fd, JBOF_NBD_CMD_WRITE_ZEROES, 0, (1 << 20) + 4096, 8192, NULL, NULL), 0);
    CHECK_EQ(nbd_cmd(fd, JBOF_NBD_CMD_READ, 0, 1 << 20, BIG, NULL, r), 0);
    int zeros = 1, rest = 1;
    for (int i = 4096; i < 4096 + 8192; i++)
        zeros &= r[i] == 0;
    CHECK(zeros);
    rest = memcmp(r, w, 4096) == 0 && memcmp(r + 12288, w + 12288, BIG - 12288) == 0;
    CHECK(rest);

    /* out of range: an error reply, the connection lives on */
    int err = nbd_cmd(fd, JBOF_NBD_CMD_READ, 0, NS_BYTES - 512, 4096, NULL, r);
    CHECK(err == JBOF_NBD_EINVAL || err == JBOF_NBD_ENOSPC);
    CHECK_EQ(nbd_cmd(fd, JBOF_NBD_CMD_READ, 0, 0, 4096, NULL, r), 0);
    CHECK(memcmp(r, blk[0], 4096) == 0);

    /* the other export on the same drive sees none of it */
    int fd2 = nbd_open(sock, b, &size, &tf);
    CHECK(fd2 >= 0);
    if (fd2 >= 0) {
        CHECK_EQ(nbd_cmd(fd2, JBOF_NBD_CMD_READ, 0, 1 << 20, BIG, NULL, r), 0);
        int clean = 1;
        for (int i = 0; i < BIG; i++)
            clean &= r[i] == 0;
        CHECK(clean);
        /* a bad magic closes that connection only */
        uint8_t junk[JBOF_NBD_REQUEST_BYTES];
        memset(junk, 0x5a, sizeof junk);
        CHECK_EQ(send_all(fd2, junk, sizeof junk), 0);
        uint8_t x;
        CHECK(recv(fd2, &x, 1, 0) <= 0);
        close(fd2);
    }
    CHECK_EQ(nbd_cmd(fd, JBOF_NBD_CMD_READ, 0, 0, 4096, NULL, r), 0);

    /* DISC: the server closes after it */
    CHECK_EQ(nbd_send(fd, JBOF_NBD_CMD_DISC, 0, 9, 0, 0, NULL), 0);
    uint8_t x;
    CHECK(recv(fd, &x, 1, 0) == 0);
    close(fd);
    free(w);
    free(r);
}

/* Send one option, read its replies up to the final one; returns the final
 * reply type (or 0 on a broken stream) and the META_CONTEXT id in *ctx. */
static uint32_t nbd_option(int fd, uint32_t opt, const uint8_t *data, uint32_t len, uint32_t *ctx)
{
    uint8_t h[16];
    put_be64(h, JBOF_NBD_IHAVEOPT);
    put_be32(h + 8, opt);
    put_be32(h + 12, len);
    if (send_all(fd, h, 16) < 0 || (len && send_all(fd, data, len) < 0))
        return 0;
    for (int i = 0; i < 16; i++) {
        uint8_t r[20], d[1024];
        if (recv_all(fd, r, sizeof r) < 0 || be64(r) != 0x3e889045565a9ull)
            return 0;
        uint32_t type = be32(r + 12), n = be32(r + 16);
        if (n > sizeof d || recv_all(fd, d, n) < 0)
            return 0;
        if (type == JBOF_NBD_REP_META_CONTEXT && ctx && n >= 4)
            *ctx = be32(d);
        else if (type != JBOF_NBD_REP_INFO)
            return type;
    }
    return 0;
}

/* One structured reply: the final chunk's type, its payload in p (*plen). */
static int chunk(int fd, uint64_t handle, uint8_t *p, uint32_t cap, uint32_t *plen)
{
    uint8_t h[20];
    if (recv_all(fd, h, sizeof h) < 0 || be32(h) != JBOF_NBD_STRUCTURED_REPLY_MAGIC || be64(h + 8) != handle)
        return -1;
    uint32_t n = be32(h + 16);
    if (!(h[5] & JBOF_NBD_REPLY_FLAG_DONE) || n > cap || recv_all(fd, p, n) < 0)
        return -1;
    *plen = n;
    return (int)(h[6] << 8 | h[7]);
}

static void structured(const char *sock, const char *name, int exact)
{
    int fd = dial(sock);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    uint8_t g[18], cf[4], d[64];
    uint32_t ctx = 0, nl = (uint32_t)strlen(name);
    put_be32(cf, JBOF_NBD_FLAG_C_FIXED_NEWSTYLE | JBOF_NBD_FLAG_C_NO_ZEROES);
    CHECK_EQ(recv_all(fd, g, sizeof g), 0);
    CHECK_EQ(send_all(fd, cf, 4), 0);
    CHECK_EQ(nbd_option(fd, JBOF_NBD_OPT_STRUCTURED_REPLY, NULL, 0, NULL), JBOF_NBD_REP_ACK);
    put_be32(d, nl);
    memcpy(d + 4, name, nl);
    put_be32(d + 4 + nl, 1);
    put_be32(d + 8 + nl, 15);
    memcpy(d + 12 + nl, "base:allocation", 15);
    CHECK_EQ(nbd_option(fd, JBOF_NBD_OPT_SET_META_CONTEXT, d, 27 + nl, &ctx), JBOF_NBD_REP_ACK);
    CHECK_EQ(ctx, JBOF_NBD_META_BASE_ALLOCATION_ID);
    put_be16(d + 4 + nl, 0);
    CHECK_EQ(nbd_option(fd, JBOF_NBD_OPT_GO, d, 6 + nl, NULL), JBOF_NBD_REP_ACK);

    static uint8_t w[4096], p[16384];
    uint32_t n = 0;
    fill(w, sizeof w, 99);
    CHECK_EQ(nbd_cmd(fd, JBOF_NBD_CMD_WRITE, 0, 1 << 20, sizeof w, w, NULL), 0);
    /* READ: one OFFSET_DATA chunk, offset in the export */
    CHECK_EQ(nbd_send(fd, JBOF_NBD_CMD_READ, JBOF_NBD_CMD_FLAG_DF, 7, 1 << 20, sizeof w, NULL), 0);
    CHECK_EQ(chunk(fd, 7, p, sizeof p, &n), JBOF_NBD_REPLY_TYPE_OFFSET_DATA);
    CHECK_EQ(n, 8 + sizeof w);
    CHECK_EQ(be64(p), 1 << 20);
    CHECK(memcmp(p + 8, w, sizeof w) == 0);
    /* an out-of-range READ: one ERROR chunk */
    CHECK_EQ(nbd_send(fd, JBOF_NBD_CMD_READ, 0, 8, NS_BYTES, 4096, NULL), 0);
    CHECK_EQ(chunk(fd, 8, p, sizeof p, &n), JBOF_NBD_REPLY_TYPE_ERROR);
    CHECK_EQ(be32(p), JBOF_NBD_EINVAL);
    /* BLOCK_STATUS over the namespace */
    CHECK_EQ(nbd_send(fd, JBOF_NBD_CMD_BLOCK_STATUS, 0, 9, 0, NS_BYTES, NULL), 0);
    CHECK_EQ(chunk(fd, 9, p, sizeof p, &n), JBOF_NBD_REPLY_TYPE_BLOCK_STATUS);
    CHECK_EQ(be32(p), ctx);
    uint64_t sum = 0, data_at_1m = 0;
    for (uint32_t i = 4; i + 8 <= n; i += 8) {
        uint32_t len = be32(p + i), fl = be32(p + i + 4);
        if (sum <= (1u << 20) && (1u << 20) < sum + len)
            data_at_1m = fl == 0;
        sum += len;
    }
    CHECK_EQ(sum, NS_BYTES);
    CHECK(data_at_1m);
    if (exact) {
        CHECK_EQ(n, 4 + 3 * 8);
        CHECK_EQ(be32(p + 4), 1 << 20);
        CHECK_EQ(be32(p + 8), JBOF_NBD_STATE_HOLE | JBOF_NBD_STATE_ZERO);
        CHECK_EQ(be32(p + 12), 4096);
        CHECK_EQ(be32(p + 16), 0);
    }
    /* TRIM makes it a hole again */
    CHECK_EQ(nbd_cmd(fd, JBOF_NBD_CMD_TRIM, 0, 1 << 20, 4096, NULL, NULL), 0);
    CHECK_EQ(nbd_send(fd, JBOF_NBD_CMD_BLOCK_STATUS, JBOF_NBD_CMD_FLAG_REQ_ONE, 10, 0, NS_BYTES, NULL), 0);
    CHECK_EQ(chunk(fd, 10, p, sizeof p, &n), JBOF_NBD_REPLY_TYPE_BLOCK_STATUS);
    CHECK_EQ(n, 12);
    if (exact)
        CHECK_EQ(be32(p + 4), NS_BYTES);
    close(fd);
}

/* An export of NS_BYTES on drive with the default tenant settings. */
static jbof_export_cfg export_cfg(const char *name, uint32_t drive)
{
    jbof_export_cfg x;
    memset(&x, 0, sizeof x);
    snprintf(x.name, sizeof x.name, "%s", name);
    x.drive = drive;
    x.size_bytes = NS_BYTES;
    CHECK_EQ(jbof_tenant_default_cfg(&x.tenant), 0);
    return x;
}

static void add_export(jbof_engine *e, const char *name, uint32_t drive)
{
    jbof_export_cfg x = export_cfg(name, drive);
    CHECK_EQ(jbof_engine_export_add(e, &x), 0);
}

/* Two reactors, one memory drive each (csrc/reactor.h section 7): reactor
 * 0 accepts every connection and does the handshake; a tenant of drive 1
 * is handed to reactor 1, which parses, schedules, executes and answers
 * all its IO -- reactor 0 counts none of its requests. */
static void two_reactors(const char *dir)
{
    char sock[160];
    snprintf(sock, sizeof sock, "%s/nbd2.sock", dir);
    jbof_engine_cfg ec;
    memset(&ec, 0, sizeof ec);
    ec.reactors = 65;
    jbof_engine *e = NULL;
    CHECK_EQ(jbof_engine_create(&ec, &e), -EINVAL);
    ec.reactors = 2;
    ec.ncpus = 1;
    CHECK_EQ(jbof_engine_create(&ec, &e), -EINVAL); /* a CPU per reactor */
    ec.ncpus = 0;
    CHECK_EQ(jbof_engine_create(&ec, &e), 0);
    if (!e)
        return;
    jbof_drive_cfg d;
    uint32_t id[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        memset(&d, 0, sizeof d);
        snprintf(d.name, sizeof d.name, "mem%d", i);
        d.backend = JBOF_BACKEND_MEMORY;
        d.size_bytes = 4 * NS_BYTES;
        d.reactor = -1; /* round robin: drive i on reactor i */
        CHECK_EQ(jbof_sched_default_cfg(JBOF_POLICY_QOS, &d.sched), 0);
        CHECK_EQ(jbof_engine_add_drive(e, &d, &id[i]), 0);
    }
    d.reactor = 2;
    CHECK_EQ(jbof_engine_add_drive(e, &d, NULL), -EINVAL);
    CHECK_EQ(jbof_engine_drive_reactor(e, id[0]), 0);
    CHECK_EQ(jbof_engine_drive_reactor(e, id[1]), 1);
    CHECK_EQ(jbof_engine_drive_reactor(e, 7), -ENOENT);
    CHECK_EQ(jbof_engine_listen_unix(e, sock), 0);
    CHECK_EQ(jbof_engine_start(e), 0);
    add_export(e, "r0-a", id[0]);
    add_export(e, "r0-b", id[0]);
    add_export(e, "r1-a", id[1]);
    add_export(e, "r1-b", id[1]);
    add_export(e, "r1-c", id[1]);
    /* names are unique engine-wide, whichever reactor owns the drive */
    jbof_export_cfg x = export_cfg("r0-a", id[1]);
    CHECK_EQ(jbof_engine_export_add(e, &x), -EEXIST);
    snprintf(x.name, sizeof x.name, "r1-a");
    x.drive = id[0];
    CHECK_EQ(jbof_engine_export_add(e, &x), -EEXIST);
    jbof_engine_stats r0, r1, es;
    CHECK_EQ(jbof_engine_reactor_stats(e, 2, &r0), -ENOENT);
    CHECK_EQ(jbof_engine_reactor_stats(e, 1, &r1), 0);
    CHECK_EQ(r1.exports, 3);

    /* drive 1's tenants: accepted by reactor 0, served by reactor 1 only */
    exercise(sock, "r1-a", "r1-b");
    CHECK_EQ(jbof_engine_reactor_stats(e, 0, &r0), 0);
    CHECK_EQ(jbof_engine_reactor_stats(e, 1, &r1), 0);
    CHECK_EQ(r0.requests, 0);
    CHECK(r1.requests > 0);
    CHECK(r0.accepted >= 2);
    CHECK_EQ(r1.accepted, 0);
    CHECK(r0.handoffs_out >= 2);
    CHECK_EQ(r0.handoffs_out, r1.handoffs_in);
    CHECK_EQ(r1.handoffs_out, 0);
    uint64_t r1_requests = r1.requests;
    structured(sock, "r1-c", 1);

    /* drive 0's tenants stay on reactor 0 */
    exercise(sock, "r0-a", "r0-b");
    CHECK_EQ(jbof_engine_reactor_stats(e, 0, &r0), 0);
    CHECK_EQ(jbof_engine_reactor_stats(e, 1, &r1), 0);
    CHECK(r0.requests > 0);
    CHECK(r1.requests > r1_requests); /* structured(r1-c) */
    CHECK_EQ(jbof_engine_get_stats(e, &es), 0);
    CHECK_EQ(es.requests, r0.requests + r1.requests);
    CHECK_EQ(es.reactors, 2);
    CHECK_EQ(es.exports, 5);
    jbof_export_stats xs;
    CHECK_EQ(jbof_engine_export_stats(e, "r1-a", &xs), 0);
    CHECK_EQ(xs.drive, id[1]);
    CHECK(xs.requests > 0);
    jbof_drive_info di;
    CHECK_EQ(jbof_engine_drive_stats(e, id[1], &di), 0);
    CHECK_EQ(di.exports, 3);
    CHECK(di.backend_completed > 0);
    CHECK_EQ(jbof_engine_drive_set_policy(e, id[1], JBOF_POLICY_FIFO), 0);

    /* a removed export of reactor 1 leaves the directory too */
    CHECK_EQ(jbof_engine_export_remove(e, "r1-c"), 0);
    CHECK_EQ(jbof_engine_export_remove(e, "r1-c"), -ENOENT);
    uint64_t size;
    uint16_t tf;
    CHECK(nbd_open(sock, "r1-c", &size, &tf) < 0);
    add_export(e, "r1-c", id[1]); /* and may come back */
    int fd = nbd_open(sock, "r1-c", &size, &tf);
    CHECK(fd >= 0);
    /* left open: stop closes it on reactor 1 */
    CHECK_EQ(jbof_engine_stop(e), 0);
    if (fd >= 0)
        close(fd);
    jbof_engine_destroy(e);
    unlink(sock);
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

typedef struct remover {
    jbof_engine *e;
    const char *name;
    int rc;
    uint64_t took_ms;
} remover;

static void *remove_thread(void *arg)
{
    remover *r = arg;
    uint64_t t0 = now_ms();
    r->rc = jbof_engine_export_remove(r->e, r->name);
    r->took_ms = now_ms() - t0;
    return NULL;
}

/* Issue 11 (export.c 4): removing a tenant throttled to 1 MiB/s with 24
 * writes of 64 KiB queued takes milliseconds, not the 1.5 s its limit
 * would: queued IO is answered ESHUTDOWN, the connection closes after its
 * replies, and other commands are served while the removal runs. */
static void remove_throttled(jbof_engine *e, const char *sock, uint32_t drive)
{
    enum { N = 24 };
    jbof_export_cfg x = export_cfg("m-slow", drive);
    x.tenant.limit_bps = 1u << 20;
    x.tenant.sq_depth = 16; /* 16 queued, the rest parked or unread */
    CHECK_EQ(jbof_engine_export_add(e, &x), 0);
    uint64_t size;
    uint16_t tf;
    int fd = nbd_open(sock, "m-slow", &size, &tf);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    static uint8_t buf[BIG];
    fill(buf, sizeof buf, 11);
    uint64_t sent_ms = now_ms();
    for (uint64_t i = 0; i < N; i++)
        CHECK_EQ(nbd_send(fd, JBOF_NBD_CMD_WRITE, 0, 100 + i, i * BIG, BIG, buf), 0);
    jbof_export_stats xs;
    /* polls check once, after the loop: how many rounds it takes is timing,
     * and the number of checks must not depend on it */
    int rc = 0;
    for (int k = 0; k < 200; k++) { /* until its SQ is full */
        rc = jbof_engine_export_stats(e, "m-slow", &xs);
        if (rc != 0 || xs.tenant.queued >= 15)
            break;
        usleep(5000);
    }
    CHECK_EQ(rc, 0);
    CHECK(xs.tenant.queued >= 15);
    CHECK_EQ(xs.flushed_requests, 0);
    remover r = {.e = e, .name = "m-slow"};
    pthread_t th;
    uint64_t waited_ms = now_ms() - sent_ms; /* the limit passes 16 writes/s meanwhile */
    CHECK_EQ(pthread_create(&th, NULL, remove_thread, &r), 0);
    uint64_t t0 = now_ms();
    CHECK_EQ(jbof_engine_export_stats(e, "m-a", &xs), 0); /* not held up by the removal */
    uint64_t other_ms = now_ms() - t0;
    pthread_join(th, NULL);
    CHECK_EQ(r.rc, 0);
    if (getenv("JBOF_TEST_VERBOSE") || r.took_ms > 500 || other_ms > 500)
        fprintf(stderr, "remove_throttled: removal %llu ms, other command %llu ms\n",
                (unsigned long long)r.took_ms, (unsigned long long)other_ms);
    CHECK(r.took_ms < 500);
    CHECK(other_ms < 500);
    CHECK_EQ(jbof_engine_export_stats(e, "m-slow", &xs), -ENOENT);
    /* every reply is success (written before) or ESHUTDOWN, in order of
     * handles for the flushed ones, then the connection is closed */
    int ok = 0, shut = 0, other = 0, bad_handle = 0;
    for (;;) { /* how many replies come is timing: checked once, after */
        uint64_t h = 0;
        int err = nbd_reply(fd, &h);
        if (err < 0)
            break;
        if (err == 0)
            ok++;
        else if (err == JBOF_NBD_ESHUTDOWN)
            shut++;
        else
            other++;
        if (h < 100 || h >= 100 + N)
            bad_handle++;
    }
    CHECK_EQ(other, 0);
    CHECK_EQ(bad_handle, 0);
    CHECK(shut >= 15 - (ok > 3 ? ok - 3 : 0)); /* the queued ones, less any the limit let through */
    CHECK(ok + shut <= N);
    /* the limit lets 1 MiB/s through: a write or two (the 1 ms bank), plus
     * 16 per second the test took to fill the SQ (a loaded host is slow) */
    CHECK(ok <= 3 + (int)((waited_ms + 100) * ((1u << 20) / BIG) / 1000));
    uint8_t b;
    CHECK(recv(fd, &b, 1, 0) <= 0); /* closed */
    close(fd);
    /* the name is free again at once */
    CHECK_EQ(jbof_engine_export_add(e, &x), 0);
    /* a client that never reads its replies: 1 MiB reads (the limit's 1 ms
     * bank lets one or two go) fill its socket; the removal closes it after
     * REMOVE_LINGER_NS (250 ms) instead of waiting for it */
    fd = nbd_open(sock, "m-slow", &size, &tf);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    int rcv = 4096;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
    for (uint64_t i = 0; i < 8; i++)
        CHECK_EQ(nbd_send(fd, JBOF_NBD_CMD_READ, 0, 200 + i, i << 20, 1u << 20, NULL), 0);
    for (int k = 0; k < 200; k++) {
        rc = jbof_engine_export_stats(e, "m-slow", &xs);
        if (rc != 0 || (xs.tenant.completed >= 1 && xs.tenant.queued >= 4))
            break;
        usleep(5000);
    }
    CHECK_EQ(rc, 0);
    uint64_t t1 = now_ms();
    CHECK_EQ(jbof_engine_export_remove(e, "m-slow"), 0);
    uint64_t linger_ms = now_ms() - t1;
    if (getenv("JBOF_TEST_VERBOSE") || linger_ms < 200 || linger_ms > 1000)
        fprintf(stderr, "remove_throttled: unread replies, removal %llu ms\n", (unsigned long long)linger_ms);
    CHECK(linger_ms >= 200 && linger_ms < 1000);
    size_t got = 0;
    static uint8_t sink[65536];
    for (;;) { /* whatever was sent, then EOF: never a hang */
        ssize_t n = recv(fd, sink, sizeof sink, 0);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    CHECK(got < (8u << 20));
    close(fd);
}

/* backend_memory.c: a file-backed store truncated underneath.  The size is
 * read once per batch (one now_ns), not per IO: an IO of a later batch that
 * reaches past the new end fails with EIO (no SIGBUS), one below it is
 * served from the size already read, and one past that size looks again,
 * so a file grown back is served at once. */
static void store_truncation(const char *dir)
{
    char path[160];
    snprintf(path, sizeof path, "%s/store.img", dir);
    jbof_store st;
    memset(&st, 0xa5, sizeof st); /* jbof_store_open sets every field itself */
    CHECK_EQ(jbof_store_open(&st, path, 1 << 20, 0), 0);
    if (!st.base)
        return;
    CHECK_EQ(st.eof_errors, 0);
    CHECK_EQ(st.checked_ns, 0);
    CHECK(st.map == NULL && st.map_bytes == 0);
    static uint8_t buf[4096];
    fill(buf, sizeof buf, 21);
    jbof_breq r;
    memset(&r, 0, sizeof r);
    r.buf = buf;
    r.io.opcode = JBOF_OP_WRITE;
    r.io.offset_bytes = 512 << 10;
    r.io.length_bytes = 4096;
    CHECK_EQ(jbof_store_apply(&st, &r, 100), 0);
    r.io.offset_bytes = 0;
    CHECK_EQ(jbof_store_apply(&st, &r, 100), 0); /* same batch: the size read at 100 */
    CHECK_EQ(st.checked_ns, 100);
    CHECK_EQ(st.file_bytes, 1 << 20);
    CHECK_EQ(truncate(path, 64 << 10), 0);
    r.io.opcode = JBOF_OP_READ;
    r.io.offset_bytes = 512 << 10;
    CHECK_EQ(jbof_store_apply(&st, &r, 200), -EIO); /* a later batch sees the new end */
    CHECK_EQ(st.file_bytes, 64 << 10);
    r.io.opcode = JBOF_OP_WRITE;
    CHECK_EQ(jbof_store_apply(&st, &r, 300), -EIO);
    struct stat sb;
    CHECK(stat(path, &sb) == 0 && sb.st_size == 64 << 10); /* a refused write does not re-extend */
    r.io.opcode = JBOF_OP_READ;
    r.io.offset_bytes = 0;
    CHECK_EQ(jbof_store_apply(&st, &r, 300), 0); /* below the new end: served */
    CHECK_EQ(jbof_store_zero(&st, 512 << 10, 4096), -EIO);
    CHECK_EQ(st.eof_errors, 3);
    CHECK_EQ(truncate(path, 1 << 20), 0); /* restored: the next IO past 64 KiB looks again */
    r.io.offset_bytes = 512 << 10;
    CHECK_EQ(jbof_store_apply(&st, &r, 300), 0);
    CHECK_EQ(st.file_bytes, 1 << 20);
    CHECK_EQ(jbof_store_zero(&st, 512 << 10, 4096), 0);
    CHECK_EQ(st.eof_errors, 3);
    jbof_store_close(&st);
    unlink(path);
}

/* Placement at a given base and jbof_drive_scrub_mark (export.c section 2,
 * scrub.c section 6): argument checks, and marks that overlap dirty space
 * or a namespace in use.  Not started: commands apply inline. */
/* an Engine (not started) with one memory drive of size bytes (block 0:
 * the default), its drive id in *id; NULL if the Engine cannot be made */
static jbof_engine *memory_engine(const char *name, uint64_t size, uint32_t block, uint32_t *id)
{
    jbof_engine_cfg ec;
    memset(&ec, 0, sizeof ec);
    jbof_engine *e = NULL;
    CHECK_EQ(jbof_engine_create(&ec, &e), 0);
    if (!e)
        return NULL;
    jbof_drive_cfg d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "%s", name);
    d.backend = JBOF_BACKEND_MEMORY;
    d.size_bytes = size;
    d.block_bytes = block;
    CHECK_EQ(jbof_sched_default_cfg(JBOF_POLICY_QOS, &d.sched), 0);
    CHECK_EQ(jbof_engine_add_drive(e, &d, id), 0);
    return e;
}

static void placement_and_scrub_mark(void)
{
    uint32_t id = 0;
    jbof_engine *e = memory_engine("place", 4 * NS_BYTES, 4096, &id);
    if (!e)
        return;

    jbof_export_cfg x = export_cfg("at1", id);
    x.at_base = 1;
    x.base_bytes = 512;                     /* not a multiple of the block */
    CHECK_EQ(jbof_engine_export_add(e, &x), -EINVAL);
    x.base_bytes = 3 * NS_BYTES + 4096;     /* past the end */
    CHECK_EQ(jbof_engine_export_add(e, &x), -EINVAL);
    x.base_bytes = UINT64_MAX - 4095;       /* base + size wraps */
    CHECK_EQ(jbof_engine_export_add(e, &x), -EINVAL);
    x.base_bytes = NS_BYTES;
    CHECK_EQ(jbof_engine_export_add(e, &x), 0);
    snprintf(x.name, sizeof x.name, "at1b");
    x.base_bytes = NS_BYTES + NS_BYTES / 2; /* overlaps at1 */
    CHECK_EQ(jbof_engine_export_add(e, &x), -EEXIST);
    x.at_base = 0;                          /* first fit: [0, NS) is free */
    CHECK_EQ(jbof_engine_export_add(e, &x), 0);
    jbof_export_stats st;
    CHECK_EQ(jbof_engine_export_stats(e, "at1", &st), 0);
    CHECK_EQ(st.ns_base_bytes, NS_BYTES);
    CHECK_EQ(jbof_engine_export_stats(e, "at1b", &st), 0);
    CHECK_EQ(st.ns_base_bytes, 0);

    CHECK_EQ(jbof_drive_scrub_mark(NULL, id, 0, 4096), -EINVAL);
    CHECK_EQ(jbof_drive_scrub_mark(e, id, 2 * NS_BYTES, 0), -EINVAL);
    CHECK_EQ(jbof_drive_scrub_mark(e, id + 7, 2 * NS_BYTES, 4096), -ENOENT);
    CHECK_EQ(jbof_drive_scrub_mark(e, id, 2 * NS_BYTES + 512, 4096), -EINVAL);
    CHECK_EQ(jbof_drive_scrub_mark(e, id, 2 * NS_BYTES, 1024), -EINVAL);
    CHECK_EQ(jbof_drive_scrub_mark(e, id, 3 * NS_BYTES, NS_BYTES + 4096), -EINVAL);
    CHECK_EQ(jbof_drive_scrub_mark(e, id, UINT64_MAX - 4095, 8192), -EINVAL);
    CHECK_EQ(jbof_drive_scrub_mark(e, id, NS_BYTES - 4096, 8192), -EBUSY); /* at1b, at1 */
    /* two small extents, then a range over both and the gaps around them */
    CHECK_EQ(jbof_drive_scrub_mark(e, id, 2 * NS_BYTES + 4096, 4096), 0);
    CHECK_EQ(jbof_drive_scrub_mark(e, id, 2 * NS_BYTES + 16384, 8192), 0);
    jbof_drive_info di;
    CHECK_EQ(jbof_engine_drive_stats(e, id, &di), 0);
    CHECK_EQ(di.scrub_pending_bytes, 12288);
    CHECK_EQ(jbof_drive_scrub_mark(e, id, 2 * NS_BYTES, 2 * NS_BYTES), 0);
    CHECK_EQ(jbof_drive_scrub_mark(e, id, 2 * NS_BYTES, 4096), 0); /* dirty already */
    CHECK_EQ(jbof_engine_drive_stats(e, id, &di), 0);
    CHECK_EQ(di.scrub_pending_bytes, 2 * NS_BYTES);
    /* dirty space may be given to a namespace: it reads as zeroes */
    snprintf(x.name, sizeof x.name, "at2");
    x.at_base = 1;
    x.base_bytes = 2 * NS_BYTES;
    CHECK_EQ(jbof_engine_export_add(e, &x), 0);
    jbof_engine_destroy(e);
}

/* jbof_place_first_fit (export.c section 2a): the Engine's first fit with
 * given ranges occupied -- overlap, alignment, ranges at and past the end of
 * the drive, the top of a 2^64 drive, bad arguments -- and the same answer
 * as the Engine's own placement of an export. */
static uint64_t fit(uint64_t drive, uint32_t block, uint64_t size, const jbof_range *t,
                    uint32_t n, int want_rc)
{
    uint64_t base = UINT64_MAX;
    CHECK_EQ(jbof_place_first_fit(drive, block, size, t, n, &base), want_rc);
    return base;
}

static void place_first_fit(void)
{
    const uint64_t M = 1ull << 20, K4 = 4096, D = 128 * M;
    /* overlap: a removed tenant's [0, 32M) pending, b at [64M, 96M) */
    jbof_range t2[] = {{0, 32 * M}, {64 * M, 32 * M}};
    CHECK_EQ(fit(D, 4096, 32 * M, t2, 2, 0), 32 * M);
    CHECK_EQ(fit(D, 4096, 16 * M, t2, 2, 0), 32 * M);
    fit(D, 4096, 40 * M, t2, 2, -ENOSPC);               /* only over [0, 32M) */
    CHECK_EQ(fit(D, 4096, 40 * M, t2 + 1, 1, 0), 0);    /* ... where it would */
    CHECK_EQ(fit(D, 4096, 32 * M, t2 + 1, 1, 0), 0);
    CHECK_EQ(fit(D, 4096, 32 * M, NULL, 0, 0), 0);      /* nothing taken */
    /* a clash on a later range: [32M, 64M) then past b */
    jbof_range t3[] = {{0, 32 * M}, {40 * M, 8 * M}, {64 * M, 32 * M}};
    CHECK_EQ(fit(D, 4096, 8 * M, t3, 3, 0), 32 * M);
    CHECK_EQ(fit(D, 4096, 16 * M, t3, 3, 0), 48 * M);
    CHECK_EQ(fit(D, 4096, 20 * M, t3, 3, 0), 96 * M);
    /* alignment: 1 MiB when the size is a multiple of it, else the
     * preferred block (4 KiB at least, the drive's block above that) */
    jbof_range odd[] = {{0, M + K4}};
    CHECK_EQ(fit(D, 4096, M, odd, 1, 0), 2 * M);
    CHECK_EQ(fit(D, 4096, 2 * K4, odd, 1, 0), M + K4);
    CHECK_EQ(fit(D, 512, 1536, odd, 1, 0), M + K4);     /* 512-byte block: 4 KiB */
    jbof_range small[] = {{0, 512}};
    CHECK_EQ(fit(D, 512, 1536, small, 1, 0), K4);
    CHECK_EQ(fit(D, 0, 1536, small, 1, 0), K4);         /* block 0 = 1 */
    CHECK_EQ(fit(D, 65536, 65536, small, 1, 0), 65536); /* 64 KiB block */
    CHECK_EQ(fit(D, 65536, 3 * 65536, odd, 1, 0), 17 * 65536);
    /* the end of the drive: a range ending there, one past it, a drive
     * that is not a multiple of its block (rounded down, as the Engine's) */
    jbof_range end[] = {{96 * M, 32 * M}};
    CHECK_EQ(fit(D, 4096, 96 * M, end, 1, 0), 0);
    fit(D, 4096, 96 * M + K4, end, 1, -ENOSPC);
    jbof_range past[] = {{120 * M, 64 * M}};
    CHECK_EQ(fit(D, 4096, 120 * M, past, 1, 0), 0);
    fit(D, 4096, 121 * M, past, 1, -ENOSPC);
    jbof_range head[] = {{0, 96 * M}};
    CHECK_EQ(fit(D, 4096, 32 * M, head, 1, 0), 96 * M); /* exactly the tail */
    CHECK_EQ(fit(D + 100, 4096, 32 * M, head, 1, 0), 96 * M);
    fit(D + 100, 4096, 32 * M + K4, head, 1, -ENOSPC);
    fit(D, 4096, D + K4, NULL, 0, -ENOSPC);
    fit(0, 4096, K4, NULL, 0, -ENOSPC);
    /* the top of a 2^64 drive: rounding up to the next boundary must not wrap */
    const uint64_t top = UINT64_MAX / K4 * K4;
    jbof_range hi[] = {{0, top - 100}};
    fit(UINT64_MAX, 4096, K4, hi, 1, -ENOSPC);
    fit(UINT64_MAX, 4096, M, hi, 1, -ENOSPC);
    jbof_range hi2[] = {{0, top - K4}};
    CHECK_EQ(fit(UINT64_MAX, 4096, K4, hi2, 1, 0), top - K4);
    jbof_range last[] = {{UINT64_MAX - K4, K4}};        /* ends at 2^64 - 1: valid */
    CHECK_EQ(fit(UINT64_MAX, 4096, M, last, 1, 0), 0);
    /* bad arguments */
    uint64_t base = 7;
    CHECK_EQ(jbof_place_first_fit(D, 4096, M, t2, 2, NULL), -EINVAL);
    fit(D, 3, 3 * K4, NULL, 0, -EINVAL);                /* block not a power of two */
    fit(D, 4096, 0, NULL, 0, -EINVAL);                  /* size 0 */
    fit(D, 4096, 512, NULL, 0, -EINVAL);                /* not a multiple of the block */
    fit(D, 4096, M, NULL, 1, -EINVAL);                  /* taken NULL, ntaken 1 */
    jbof_range zero[] = {{M, 0}};
    fit(D, 4096, M, zero, 1, -EINVAL);                  /* a range of length 0 */
    jbof_range wrap[] = {{UINT64_MAX, 1}};
    fit(D, 4096, M, wrap, 1, -EINVAL);                  /* ends past 2^64 - 1 */
    CHECK_EQ(jbof_place_first_fit(D, 3, M, NULL, 0, &base), -EINVAL);
    CHECK_EQ(base, 7);                                  /* untouched on failure */

    /* the Engine's first fit gives the same answer with its namespaces taken */
    uint32_t id = 0;
    jbof_engine *e = memory_engine("fit", 16 * M, 0, &id);
    if (!e)
        return;
    jbof_export_cfg x = export_cfg("f1", id);
    x.size_bytes = M + K4;
    x.at_base = 1;
    x.base_bytes = 3 * M;
    CHECK_EQ(jbof_engine_export_add(e, &x), 0);
    jbof_range held[4] = {{3 * M, M + K4}}; /* f1, then each one placed */
    const uint64_t sizes[] = {2 * K4, 3 * M, 2 * M, M};
    for (uint32_t i = 0; i < 4; i++) {
        snprintf(x.name, sizeof x.name, "f%u", i + 2);
        x.at_base = 0;
        x.size_bytes = sizes[i];
        uint64_t want = fit(16 * M, 1, sizes[i], held, i + 1, 0);
        CHECK_EQ(jbof_engine_export_add(e, &x), 0);
        jbof_export_stats st;
        CHECK_EQ(jbof_engine_export_stats(e, x.name, &st), 0);
        CHECK_EQ(st.ns_base_bytes, want);
        if (i + 1 < 4)
            held[i + 1] = (jbof_range){st.ns_base_bytes, sizes[i]};
    }
    jbof_engine_destroy(e);
}

/* cost.c section 6: WRITE_ZEROES and TRIM priced by what the backend does
 * with them.  Drives with a fixed write factor (learn 0: 9), qos pricing:
 * a 4 MiB WRITE costs 3584 + 9 * 4 MiB, a command 3584, and a zeroing
 * that writes goes in 1 MiB pieces, 4 x (3584 + 9 MiB).  A memory and an
 * emulated drive zero in metadata: a 4 MiB WRITE_ZEROES costs the command;
 * zero_cost write prices it (and TRIM) as the WRITE; a file on tmpfs has
 * PUNCH_HOLE but no ZERO_RANGE, so its NO_HOLE zeroing writes the zero
 * buffer and costs the WRITE, the rest the command. */
static jbof_drive_cfg zdrive(const char *name, uint32_t backend, uint32_t zero_cost)
{
    jbof_drive_cfg d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "%s", name);
    snprintf(d.model, sizeof d.model, "dct983");
    d.backend = backend;
    d.size_bytes = 4 * NS_BYTES;
    d.zero_cost = zero_cost;
    CHECK_EQ(jbof_sched_default_cfg(JBOF_POLICY_QOS, &d.sched), 0);
    d.sched.cost.learn = 0;
    return d;
}

/* the cost one command adds to export x's completed cost (-1: failed) */
static int64_t cmd_cost(jbof_engine *e, int fd, const char *x, uint16_t type, uint16_t flags, uint32_t len,
                        const void *in)
{
    jbof_export_stats a, b;
    CHECK_EQ(jbof_engine_export_stats(e, x, &a), 0);
    if (nbd_cmd(fd, type, flags, 0, len, in, NULL) < 0)
        return -1;
    CHECK_EQ(jbof_engine_export_stats(e, x, &b), 0);
    return (int64_t)(b.tenant.cost_completed - a.tenant.cost_completed);
}

static void zero_pricing(const char *dir)
{
    enum { LEN = 4 << 20 };
    /* a zeroing that writes goes to the scheduler in 1 MiB pieces, each
     * priced as a 1 MiB WRITE: 4 x (3584 + 9 MiB) */
    const int64_t W = 3584 + 9ll * LEN, CMD = 3584, WP = 4 * 3584 + 9ll * LEN;
    char sock[160], shm[160];
    snprintf(sock, sizeof sock, "%s/nbdz.sock", dir);
    snprintf(shm, sizeof shm, "/dev/shm/jbof-zero-%d.img", (int)getpid());
    jbof_engine_cfg ec;
    memset(&ec, 0, sizeof ec);
    jbof_engine *e = NULL;
    CHECK_EQ(jbof_engine_create(&ec, &e), 0);
    if (!e)
        return;
    uint32_t zm, zw, ze, zt = UINT32_MAX;
    jbof_drive_cfg d = zdrive("zbad", JBOF_BACKEND_MEMORY, JBOF_ZERO_COST_COUNT);
    CHECK_EQ(jbof_engine_add_drive(e, &d, NULL), -EINVAL);
    d = zdrive("zm", JBOF_BACKEND_MEMORY, JBOF_ZERO_COST_AUTO);
    CHECK_EQ(jbof_engine_add_drive(e, &d, &zm), 0);
    d = zdrive("zw", JBOF_BACKEND_MEMORY, JBOF_ZERO_COST_WRITE);
    CHECK_EQ(jbof_engine_add_drive(e, &d, &zw), 0);
    d = zdrive("ze", JBOF_BACKEND_EMULATED, JBOF_ZERO_COST_AUTO);
    CHECK_EQ(jbof_engine_add_drive(e, &d, &ze), 0);
    struct stat sb;
    FILE *f = stat("/dev/shm", &sb) == 0 ? fopen(shm, "w") : NULL;
    if (f) {
        CHECK_EQ(ftruncate(fileno(f), 4 * NS_BYTES), 0);
        fclose(f);
        d = zdrive("zt", JBOF_BACKEND_FILE, JBOF_ZERO_COST_AUTO);
        snprintf(d.path, sizeof d.path, "%s", shm);
        CHECK_EQ(jbof_engine_add_drive(e, &d, &zt), 0);
    }
    jbof_drive_info di;
    CHECK_EQ(jbof_engine_drive_stats(e, zm, &di), 0);
    CHECK_EQ(di.zero_writes, 0);
    CHECK_EQ(di.zero_cost, JBOF_ZERO_COST_AUTO);
    CHECK_EQ(jbof_engine_drive_stats(e, zw, &di), 0);
    CHECK_EQ(di.zero_cost, JBOF_ZERO_COST_WRITE);
    CHECK_EQ(jbof_engine_drive_stats(e, ze, &di), 0);
    CHECK_EQ(di.zero_writes, 0); /* ssd.c 8: the model deallocates */
    if (zt != UINT32_MAX) {
        CHECK_EQ(jbof_engine_drive_stats(e, zt, &di), 0);
        CHECK_EQ(di.zero_writes, JBOF_ZW_NO_HOLE); /* tmpfs: PUNCH_HOLE, no ZERO_RANGE */
    }
    CHECK_EQ(jbof_engine_listen_unix(e, sock), 0);
    CHECK_EQ(jbof_engine_start(e), 0);
    add_export(e, "zm-a", zm);
    add_export(e, "zw-a", zw);
    /* a 2-deep SQ, limited, on the file drive where there is one: the
     * connection refills the SQ while a piece is in flight, so the next
     * piece waits for room (io.c zero_retry) */
    jbof_export_cfg xq = export_cfg("zw-q", zt != UINT32_MAX ? zt : zw);
    xq.tenant.sq_depth = 2;
    xq.tenant.limit_bps = 64 << 20;
    CHECK_EQ(jbof_engine_export_add(e, &xq), 0);
    add_export(e, "ze-a", ze);
    if (zt != UINT32_MAX)
        add_export(e, "zt-a", zt);
    static uint8_t buf[LEN];
    fill(buf, sizeof buf, 5);
    uint64_t size;
    uint16_t tf;
    const uint16_t WZ = JBOF_NBD_CMD_WRITE_ZEROES, NOHOLE = JBOF_NBD_CMD_FLAG_NO_HOLE;
    int fd = nbd_open(sock, "zm-a", &size, &tf);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK_EQ(cmd_cost(e, fd, "zm-a", JBOF_NBD_CMD_WRITE, 0, LEN, buf), W);
        CHECK_EQ(cmd_cost(e, fd, "zm-a", WZ, 0, LEN, NULL), CMD);
        CHECK_EQ(cmd_cost(e, fd, "zm-a", WZ, NOHOLE, LEN, NULL), CMD);
        CHECK_EQ(cmd_cost(e, fd, "zm-a", JBOF_NBD_CMD_TRIM, 0, LEN, NULL), 3584);
        close(fd);
    }
    fd = nbd_open(sock, "zw-a", &size, &tf);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK_EQ(cmd_cost(e, fd, "zw-a", WZ, 0, LEN, NULL), WP);
        CHECK_EQ(cmd_cost(e, fd, "zw-a", JBOF_NBD_CMD_TRIM, JBOF_NBD_CMD_FLAG_FUA, LEN, NULL), WP);
        CHECK_EQ(cmd_cost(e, fd, "zw-a", WZ, 0, (1 << 20) + 4096, NULL), 2 * 3584 + 9ll * ((1 << 20) + 4096));
        CHECK_EQ(cmd_cost(e, fd, "zw-a", WZ, 0, 4096, NULL), 3584 + 9ll * 4096);
        CHECK_EQ(cmd_cost(e, fd, "zw-a", JBOF_NBD_CMD_FLUSH, 0, 0, NULL), CMD);
        close(fd);
    }
    fd = nbd_open(sock, "zw-q", &size, &tf);
    CHECK(fd >= 0);
    if (fd >= 0) { /* 8 pipelined 1 MiB + 4 KiB zeroings, reads between them */
        jbof_export_stats a, b;
        CHECK_EQ(jbof_engine_export_stats(e, "zw-q", &a), 0);
        int sent = 0;
        for (uint64_t i = 0; i < 8; i++) {
            sent += nbd_send(fd, WZ, NOHOLE | (i == 7 ? JBOF_NBD_CMD_FLAG_FUA : 0), 100 + i, i << 19, (1 << 20) + 4096,
                             NULL) == 0;
            sent += nbd_send(fd, JBOF_NBD_CMD_READ, 0, 200 + i, i << 19, 4096, NULL) == 0;
        }
        CHECK_EQ(sent, 16);
        int ok = 0;
        static uint8_t rb[4096];
        for (int i = 0; i < 16; i++) {
            uint64_t h = 0;
            int err = nbd_reply(fd, &h);
            ok += err == 0;
            if (err == 0 && h >= 200)
                CHECK_EQ(recv_all(fd, rb, sizeof rb), 0);
        }
        CHECK_EQ(ok, 16);
        CHECK_EQ(jbof_engine_export_stats(e, "zw-q", &b), 0);
        CHECK_EQ(b.tenant.cost_completed - a.tenant.cost_completed,
                 8 * (2 * 3584 + 9ull * ((1 << 20) + 4096)) + 8 * (3584 + 4096ull));
        CHECK_EQ(b.tenant.completed - a.tenant.completed, 8 * 2 + 8); /* two pieces each */
        close(fd);
    }
    fd = nbd_open(sock, "ze-a", &size, &tf);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK_EQ(cmd_cost(e, fd, "ze-a", WZ, NOHOLE, LEN, NULL), CMD);
        close(fd);
    }
    fd = zt != UINT32_MAX ? nbd_open(sock, "zt-a", &size, &tf) : -1;
    if (fd >= 0) {
        static uint8_t back[LEN];
        CHECK_EQ(cmd_cost(e, fd, "zt-a", JBOF_NBD_CMD_WRITE, 0, LEN, buf), W);
        CHECK_EQ(cmd_cost(e, fd, "zt-a", WZ, NOHOLE, LEN, NULL), WP); /* the zero buffer, 4 x 1 MiB */
        CHECK_EQ(nbd_cmd(fd, JBOF_NBD_CMD_READ, 0, 0, LEN, NULL, back), 0);
        int zeroes = 1;
        for (uint32_t i = 0; i < LEN; i++)
            zeroes &= back[i] == 0;
        CHECK(zeroes);
        CHECK_EQ(cmd_cost(e, fd, "zt-a", WZ, 0, LEN, NULL), CMD); /* a punched hole */
        /* FAST_ZERO: refused rather than written (its price: test_zero_cost.c) */
        CHECK_EQ(nbd_cmd(fd, WZ, NOHOLE | JBOF_NBD_CMD_FLAG_FAST_ZERO, 0, LEN, NULL, NULL), JBOF_NBD_ENOTSUP);
        CHECK_EQ(cmd_cost(e, fd, "zt-a", JBOF_NBD_CMD_TRIM, 0, LEN, NULL), 3584);
        close(fd);
    }
    CHECK_EQ(jbof_engine_stop(e), 0);
    jbof_engine_destroy(e);
    unlink(shm);
    unlink(sock);
}

int main(void)
{
    char dir[] = "/tmp/jbof-reactor-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char sock[128], file[128];
    snprintf(sock, sizeof sock, "%s/nbd.sock", dir);
    snprintf(file, sizeof file, "%s/drive.img", dir);

    /* argument checks of the public API */
    jbof_engine *e = NULL;
    CHECK_EQ(jbof_engine_create(NULL, NULL), -EINVAL);
    jbof_engine_cfg ec;
    memset(&ec, 0, sizeof ec);
    CHECK_EQ(jbof_engine_create(&ec, &e), 0);
    if (!e)
        TEST_SUMMARY();
    CHECK_EQ(jbof_engine_add_drive(e, NULL, NULL), -EINVAL);

    jbof_drive_cfg d;
    uint32_t mem = 0, fil = 0;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "mem0");
    d.backend = JBOF_BACKEND_MEMORY;
    d.size_bytes = 4 * NS_BYTES;
    CHECK_EQ(jbof_sched_default_cfg(JBOF_POLICY_QOS, &d.sched), 0);
    CHECK_EQ(jbof_engine_add_drive(e, &d, &mem), 0);

    FILE *f = fopen(file, "w");
    CHECK(f != NULL);
    if (f) {
        CHECK_EQ(ftruncate(fileno(f), 4 * NS_BYTES), 0);
        fclose(f);
    }
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "file0");
    snprintf(d.path, sizeof d.path, "%s", file);
    d.backend = JBOF_BACKEND_FILE;
    d.io_mode = JBOF_IO_AUTO;
    CHECK_EQ(jbof_sched_default_cfg(JBOF_POLICY_GIMBAL, &d.sched), 0);
    CHECK_EQ(jbof_engine_add_drive(e, &d, &fil), 0);

    CHECK_EQ(jbof_engine_listen_unix(e, sock), 0);
    CHECK_EQ(jbof_engine_start(e), 0);
    add_export(e, "m-a", mem);
    add_export(e, "m-b", mem);
    add_export(e, "f-a", fil);
    add_export(e, "f-b", fil);
    add_export(e, "m-c", mem);
    add_export(e, "f-c", fil);

    exercise(sock, "m-a", "m-b");
    exercise(sock, "f-a", "f-b");
    structured(sock, "m-c", 1);
    structured(sock, "f-c", 0);

    /* an unknown export is refused, the server lives on */
    uint64_t size;
    uint16_t tf;
    CHECK(nbd_open(sock, "nope", &size, &tf) < 0);

    jbof_export_stats xs;
    CHECK_EQ(jbof_engine_export_stats(e, "m-a", &xs), 0);
    /* 64 KiB + 32 * 4 KiB written; 2 * 64 KiB + 32 * 4 KiB + 2 * 4 KiB read */
    CHECK_EQ(xs.rx_payload_bytes, BIG + PIPE * 4096);
    CHECK_EQ(xs.tx_payload_bytes, 2 * BIG + PIPE * 4096 + 2 * 4096);
    CHECK(xs.error_replies >= 1);
    jbof_engine_stats es;
    CHECK_EQ(jbof_engine_get_stats(e, &es), 0);
    CHECK(es.protocol_errors >= 2);
    CHECK_EQ(es.handshakes, 6); /* two connections per drive, and one structured each */
    remove_throttled(e, sock, mem);

    CHECK_EQ(jbof_engine_stop(e), 0);
    jbof_engine_destroy(e);
    two_reactors(dir);
    store_truncation(dir);
    placement_and_scrub_mark();
    place_first_fit();
    zero_pricing(dir);
    unlink(file);
    unlink(sock);
    rmdir(dir);
    TEST_SUMMARY();
}
