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
 *   8. the engine's counters agree with what the client moved.
 * Then a graceful stop and destroy (leaks show under ASan).
 *
 * It runs natively, under ASan/UBSan and as an aarch64 binary under
 * qemu-aarch64 (make test-c, test-asan, test-arm).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

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

static void add_export(jbof_engine *e, const char *name, uint32_t drive)
{
    jbof_export_cfg x;
    memset(&x, 0, sizeof x);
    snprintf(x.name, sizeof x.name, "%s", name);
    x.drive = drive;
    x.size_bytes = NS_BYTES;
    CHECK_EQ(jbof_tenant_default_cfg(&x.tenant), 0);
    CHECK_EQ(jbof_engine_export_add(e, &x), 0);
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

    exercise(sock, "m-a", "m-b");
    exercise(sock, "f-a", "f-b");

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
    CHECK_EQ(es.handshakes, 4); /* two connections per drive reached transmission */

    CHECK_EQ(jbof_engine_stop(e), 0);
    jbof_engine_destroy(e);
    unlink(file);
    unlink(sock);
    rmdir(dir);
    TEST_SUMMARY();
}
