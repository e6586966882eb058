/* Unit tests of the NBD codec (csrc/nbd_codec.c): handshake, options,
 * request checks, reply encoding, and a bounded pseudo-random garbage run. */
#include <errno.h>
#include <string.h>

#include "jbof_nbd.h"
#include "testing.h"

static uint32_t ld32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static uint64_t ld64(const uint8_t *p)
{
    return ((uint64_t)ld32(p) << 32) | ld32(p + 4);
}

static void st32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void st64(uint8_t *p, uint64_t v)
{
    st32(p, (uint32_t)(v >> 32));
    st32(p + 4, (uint32_t)v);
}

static jbof_nbd_export EX[2];

static void setup_exports(void)
{
    memset(EX, 0, sizeof(EX));
    EX[0].name = "alpha";
    EX[0].name_len = 5;
    EX[0].size_bytes = 1ull << 30;
    EX[0].min_block_bytes = 512;
    EX[0].pref_block_bytes = 4096;
    EX[0].max_payload_bytes = JBOF_NBD_MAX_PAYLOAD_BYTES;
    EX[0].tflags = jbof_nbd_tflags(0);
    EX[1] = EX[0];
    EX[1].name = "ro";
    EX[1].name_len = 2;
    EX[1].size_bytes = 1 << 20;
    EX[1].tflags = jbof_nbd_tflags(1);
}

/* option message: IHAVEOPT opt len data */
static size_t opt_msg(uint8_t *buf, uint32_t opt, const void *data, uint32_t len)
{
    st64(buf, 0x49484156454f5054ull);
    st32(buf + 8, opt);
    st32(buf + 12, len);
    if (len)
        memcpy(buf + 16, data, len);
    return 16 + (size_t)len;
}

static size_t go_data(uint8_t *buf, const char *name, const uint16_t *req, uint16_t nreq)
{
    uint32_t n = (uint32_t)strlen(name);
    st32(buf, n);
    memcpy(buf + 4, name, n);
    buf[4 + n] = (uint8_t)(nreq >> 8);
    buf[5 + n] = (uint8_t)nreq;
    for (uint16_t i = 0; i < nreq; i++) {
        buf[6 + n + 2 * i] = (uint8_t)(req[i] >> 8);
        buf[7 + n + 2 * i] = (uint8_t)req[i];
    }
    return 6 + n + 2 * (size_t)nreq;
}

static void start_hs(jbof_nbd_hs *hs, uint32_t cflags)
{
    uint8_t in[4], out[64];
    size_t olen = 0;
    jbof_nbd_hs_init(hs, 0);
    st32(in, cflags);
    CHECK_EQ(jbof_nbd_hs_step(hs, EX, 2, in, 3, out, sizeof(out), &olen), 0);
    CHECK_EQ(jbof_nbd_hs_step(hs, EX, 2, in, 4, out, sizeof(out), &olen), 4);
    CHECK_EQ(olen, 0);
    CHECK_EQ(hs->state, JBOF_NBD_HS_OPTIONS);
}

static void test_greeting(void)
{
    uint8_t g[18];
    CHECK_EQ(jbof_nbd_greeting(g, 17), -ENOBUFS);
    CHECK_EQ(jbof_nbd_greeting(g, sizeof(g)), 18);
    CHECK(memcmp(g, "NBDMAGIC", 8) == 0);
    CHECK(memcmp(g + 8, "IHAVEOPT", 8) == 0);
    CHECK_EQ(g[16], 0);
    CHECK_EQ(g[17], 3); /* FIXED_NEWSTYLE | NO_ZEROES */
}

static void test_client_flags(void)
{
    jbof_nbd_hs hs;
    uint8_t in[4], out[64];
    size_t olen = 0;
    jbof_nbd_hs_init(&hs, 0);
    st32(in, 4); /* unknown client flag */
    CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, 4, out, sizeof(out), &olen), -EPROTO);
}

static void test_go(void)
{
    jbof_nbd_hs hs;
    uint8_t in[512], d[300], out[4096];
    size_t olen = 0;
    start_hs(&hs, 3);
    uint16_t req[2] = {JBOF_NBD_INFO_BLOCK_SIZE, JBOF_NBD_INFO_NAME};
    size_t dl = go_data(d, "alpha", req, 2);
    size_t n = opt_msg(in, JBOF_NBD_OPT_GO, d, (uint32_t)dl);
    CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, n - 1, out, sizeof(out), &olen), 0);
    CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, n, out, sizeof(out), &olen), (long long)n);
    CHECK_EQ(hs.state, JBOF_NBD_HS_DONE);
    CHECK_EQ(hs.export_index, 0);
    /* INFO_EXPORT (20+12), BLOCK_SIZE (20+14), NAME (20+2+5), ACK (20) */
    CHECK_EQ(olen, 32 + 34 + 27 + 20);
    CHECK_EQ(ld64(out), 0x0003e889045565a9ull);
    CHECK_EQ(ld32(out + 8), JBOF_NBD_OPT_GO);
    CHECK_EQ(ld32(out + 12), JBOF_NBD_REP_INFO);
    CHECK_EQ(ld32(out + 16), 12);
    CHECK_EQ(out[20] << 8 | out[21], JBOF_NBD_INFO_EXPORT);
    CHECK_EQ(ld64(out + 22), 1ull << 30);
    uint16_t tf = (uint16_t)(out[30] << 8 | out[31]);
    CHECK(tf & JBOF_NBD_FLAG_HAS_FLAGS);
    CHECK(tf & JBOF_NBD_FLAG_SEND_FLUSH);
    CHECK(tf & JBOF_NBD_FLAG_SEND_FUA);
    CHECK(tf & JBOF_NBD_FLAG_SEND_TRIM);
    CHECK(tf & JBOF_NBD_FLAG_SEND_WRITE_ZEROES);
    CHECK(!(tf & JBOF_NBD_FLAG_READ_ONLY));
    CHECK(!(tf & JBOF_NBD_FLAG_SEND_DF));
    const uint8_t *b = out + 32;
    CHECK_EQ(ld32(b + 16), 14);
    CHECK_EQ(ld32(b + 22), 512);
    CHECK_EQ(ld32(b + 26), 4096);
    CHECK_EQ(ld32(b + 30), JBOF_NBD_MAX_PAYLOAD_BYTES);
    const uint8_t *nm = b + 34;
    CHECK_EQ(ld32(nm + 16), 7);
    CHECK(memcmp(nm + 22, "alpha", 5) == 0);
    CHECK_EQ(ld32(nm + 27 + 12), JBOF_NBD_REP_ACK);
    CHECK_EQ(ld32(nm + 27 + 16), 0);
    /* handshake input after DONE is a protocol error */
    CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, n, out, sizeof(out), &olen), -EPROTO);
}

static void test_info_then_unknown(void)
{
    jbof_nbd_hs hs;
    uint8_t in[512], d[300], out[4096];
    size_t olen = 0;
    start_hs(&hs, 1);
    size_t dl = go_data(d, "ro", NULL, 0);
    size_t n = opt_msg(in, JBOF_NBD_OPT_INFO, d, (uint32_t)dl);
    CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, n, out, sizeof(out), &olen), (long long)n);
    CHECK_EQ(hs.state, JBOF_NBD_HS_OPTIONS); /* INFO does not end the handshake */
    CHECK_EQ(olen, 32 + 34 + 20);            /* block size sent unasked */
    CHECK(((out[30] << 8 | out[31]) & JBOF_NBD_FLAG_READ_ONLY) != 0);
    /* unknown export: ERR_UNKNOWN, still haggling */
    olen = 0;
    dl = go_data(d, "nope", NULL, 0);
    n = opt_msg(in, JBOF_NBD_OPT_GO, d, (uint32_t)dl);
    CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, n, out, sizeof(out), &olen), (long long)n);
    CHECK_EQ(ld32(out + 12), 0x80000006u);
    CHECK_EQ(hs.state, JBOF_NBD_HS_OPTIONS);
    /* empty name is the default export only when there is one export */
    olen = 0;
    dl = go_data(d, "", NULL, 0);
    n = opt_msg(in, JBOF_NBD_OPT_GO, d, (uint32_t)dl);
    CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, n, out, sizeof(out), &olen), (long long)n);
    CHECK_EQ(ld32(out + 12), 0x80000006u);
    olen = 0;
    CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 1, in, n, out, sizeof(out), &olen), (long long)n);
    CHECK_EQ(hs.state, JBOF_NBD_HS_DONE);
    CHECK_EQ(hs.export_index, 0);
}

static void test_malformed_go(void)
{
    jbof_nbd_hs hs;
    uint8_t in[512], d[300], out[4096];
    size_t olen = 0;
    start_hs(&hs, 1);
    /* name length larger than the data */
    size_t dl = go_data(d, "alpha", NULL, 0);
    st32(d, 200);
    size_t n = opt_msg(in, JBOF_NBD_OPT_GO, d, (uint32_t)dl);
    CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, n, out, sizeof(out), &olen), (long long)n);
    CHECK_EQ(ld32(out + 12), 0x80000003u);
    /* request count that does not match the length */
    olen = 0;
    dl = go_data(d, "alpha", NULL, 0);
    d[dl - 1] = 3;
    n = opt_msg(in, JBOF_NBD_OPT_GO, d, (uint32_t)dl);
    CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, n, out, sizeof(out), &olen), (long long)n);
    CHECK_EQ(ld32(out + 12), 0x80000003u);
    /* too short */
    olen = 0;
    n = opt_msg(in, JBOF_NBD_OPT_GO, d, 3);
    CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, n, out, sizeof(out), &olen), (long long)n);
    CHECK_EQ(ld32(out + 12), 0x80000003u);
    CHECK_EQ(hs.state, JBOF_NBD_HS_OPTIONS);
}

static void test_list_abort_unsup(void)
{
    jbof_nbd_hs hs;
    uint8_t in[64], out[4096];
    size_t olen = 0;
    start_hs(&hs, 1);
    size_t n = opt_msg(in, JBOF_NBD_OPT_LIST, NULL, 0);
    CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, n, out, sizeof(out), &olen), 16);
    CHECK_EQ(olen, (20 + 4 + 5) + (20 + 4 + 2) + 20);
    CHECK_EQ(ld32(out + 12), JBOF_NBD_REP_SERVER);
    CHECK_EQ(ld32(out + 20), 5);
    CHECK(memcmp(out + 24, "alpha", 5) == 0);
    CHECK_EQ(ld32(out + 29 + 12), JBOF_NBD_REP_SERVER);
    CHECK_EQ(ld32(out + 55 + 12), JBOF_NBD_REP_ACK);
    /* LIST with data is invalid */
    olen = 0;
    n = opt_msg(in, JBOF_NBD_OPT_LIST, "x", 1);
    CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, n, out, sizeof(out), &olen), 17);
    CHECK_EQ(ld32(out + 12), 0x80000003u);
    /* STARTTLS, extended headers and unknown options are refused
     * (structured replies and meta contexts: test_nbd_ext.c) */
    uint32_t opts[] = {JBOF_NBD_OPT_STARTTLS, JBOF_NBD_OPT_EXTENDED_HEADERS, 77, 12345};
    for (unsigned i = 0; i < 4; i++) {
        olen = 0;
        n = opt_msg(in, opts[i], NULL, 0);
        CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, n, out, sizeof(out), &olen), 16);
        CHECK_EQ(olen, 20);
        CHECK_EQ(ld32(out + 8), opts[i]);
        CHECK_EQ(ld32(out + 12), 0x80000001u);
    }
    olen = 0;
    n = opt_msg(in, JBOF_NBD_OPT_ABORT, NULL, 0);
    CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, n, out, sizeof(out), &olen), 16);
    CHECK_EQ(ld32(out + 12), JBOF_NBD_REP_ACK);
    CHECK_EQ(hs.state, JBOF_NBD_HS_ABORTED);
}

static void test_export_name(void)
{
    jbof_nbd_hs hs;
    uint8_t in[64], out[256];
    size_t olen = 0;
    start_hs(&hs, 1); /* no NO_ZEROES: 124 zero bytes follow */
    size_t n = opt_msg(in, JBOF_NBD_OPT_EXPORT_NAME, "ro", 2);
    CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, n, out, sizeof(out), &olen), 18);
    CHECK_EQ(olen, 134);
    CHECK_EQ(ld64(out), 1 << 20);
    CHECK_EQ(hs.export_index, 1);
    start_hs(&hs, 3);
    olen = 0;
    CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, n, out, sizeof(out), &olen), 18);
    CHECK_EQ(olen, 10);
    start_hs(&hs, 3);
    olen = 0;
    n = opt_msg(in, JBOF_NBD_OPT_EXPORT_NAME, "zz", 2);
    CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, n, out, sizeof(out), &olen), -ENOENT);
}

static void test_limits(void)
{
    jbof_nbd_hs hs;
    uint8_t in[64], out[4096];
    size_t olen = 0;
    start_hs(&hs, 1);
    /* bad option magic */
    size_t n = opt_msg(in, JBOF_NBD_OPT_LIST, NULL, 0);
    in[0] ^= 1;
    CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, n, out, sizeof(out), &olen), -EPROTO);
    /* oversized option data is refused before it is buffered */
    start_hs(&hs, 1);
    opt_msg(in, 99, NULL, 0);
    st32(in + 12, JBOF_NBD_OPT_MAX_BYTES + 1);
    CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, 16, out, sizeof(out), &olen), -EMSGSIZE);
    /* bounded option loop */
    jbof_nbd_hs_init(&hs, 3);
    st32(in, 1);
    CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, 4, out, sizeof(out), &olen), 4);
    n = opt_msg(in, 99, NULL, 0);
    for (int i = 0; i < 3; i++) {
        olen = 0;
        CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, n, out, sizeof(out), &olen), 16);
    }
    CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, n, out, sizeof(out), &olen), -ELOOP);
    /* output too small is reported, not overrun */
    start_hs(&hs, 1);
    olen = 0;
    n = opt_msg(in, JBOF_NBD_OPT_LIST, NULL, 0);
    CHECK_EQ(jbof_nbd_hs_step(&hs, EX, 2, in, n, out, 30, &olen), -ENOBUFS);
    CHECK_EQ(olen, 0);
    CHECK(jbof_nbd_hs_out_max(EX, 2) >= (20 + 4 + 5) + (20 + 4 + 2) + 20);
    CHECK(jbof_nbd_hs_out_max(EX, 2) >= 134);
    CHECK_EQ(jbof_nbd_hs_step(NULL, EX, 2, in, n, out, 30, &olen), -EINVAL);
}

static jbof_nbd_request rq(uint16_t type, uint16_t flags, uint64_t off, uint32_t len)
{
    jbof_nbd_request r = {.handle = 7, .offset_bytes = off, .length_bytes = len, .flags = flags, .type = type};
    return r;
}

static void test_requests(void)
{
    jbof_nbd_request r = rq(JBOF_NBD_CMD_WRITE, JBOF_NBD_CMD_FLAG_FUA, 4096, 8192), back;
    uint8_t buf[28];
    CHECK_EQ(jbof_nbd_build_request(buf, sizeof(buf), &r), 28);
    CHECK_EQ(jbof_nbd_parse_request(buf, 27, &back), 0);
    CHECK_EQ(jbof_nbd_parse_request(buf, 28, &back), 28);
    CHECK_EQ(back.handle, 7);
    CHECK_EQ(back.offset_bytes, 4096);
    CHECK_EQ(back.length_bytes, 8192);
    CHECK_EQ(back.flags, JBOF_NBD_CMD_FLAG_FUA);
    CHECK_EQ(back.type, JBOF_NBD_CMD_WRITE);
    buf[0] = 0;
    CHECK_EQ(jbof_nbd_parse_request(buf, 28, &back), -EPROTO);

    const jbof_nbd_export *rw = &EX[0], *ro = &EX[1];
    uint64_t sz = rw->size_bytes;
    jbof_nbd_request t;
    t = rq(JBOF_NBD_CMD_READ, 0, 0, 4096);
    CHECK_EQ(jbof_nbd_check_request(&t, rw), 0);
    t = rq(JBOF_NBD_CMD_READ, 0, 4100, 4096);
    CHECK_EQ(jbof_nbd_check_request(&t, rw), -EINVAL); /* misaligned */
    t = rq(JBOF_NBD_CMD_READ, 0, sz - 4096, 8192);
    CHECK_EQ(jbof_nbd_check_request(&t, rw), -EINVAL); /* past the end */
    t = rq(JBOF_NBD_CMD_WRITE, 0, sz - 4096, 8192);
    CHECK_EQ(jbof_nbd_check_request(&t, rw), -ENOSPC);
    t = rq(JBOF_NBD_CMD_WRITE_ZEROES, 0, UINT64_MAX - 511, 512);
    CHECK_EQ(jbof_nbd_check_request(&t, rw), -ENOSPC); /* no overflow */
    t = rq(JBOF_NBD_CMD_TRIM, 0, sz, 512);
    CHECK_EQ(jbof_nbd_check_request(&t, rw), -EINVAL);
    t = rq(JBOF_NBD_CMD_READ, 0, sz, 0);
    CHECK_EQ(jbof_nbd_check_request(&t, rw), 0); /* empty read at the end */
    t = rq(JBOF_NBD_CMD_WRITE, 0, 0, JBOF_NBD_MAX_PAYLOAD_BYTES + 512);
    CHECK_EQ(jbof_nbd_check_request(&t, rw), -EMSGSIZE);
    t = rq(JBOF_NBD_CMD_READ, 0, 0, JBOF_NBD_MAX_PAYLOAD_BYTES + 512);
    CHECK_EQ(jbof_nbd_check_request(&t, rw), -EINVAL);
    t = rq(JBOF_NBD_CMD_WRITE, 0, 0, 512);
    CHECK_EQ(jbof_nbd_check_request(&t, ro), -EPERM);
    t = rq(JBOF_NBD_CMD_TRIM, 0, 0, 512);
    CHECK_EQ(jbof_nbd_check_request(&t, ro), -EPERM);
    t = rq(JBOF_NBD_CMD_READ, 0, 0, 512);
    CHECK_EQ(jbof_nbd_check_request(&t, ro), 0);
    t = rq(JBOF_NBD_CMD_FLUSH, 0, 0, 0);
    CHECK_EQ(jbof_nbd_check_request(&t, ro), 0);
    t = rq(JBOF_NBD_CMD_FLUSH, 0, 0, 512);
    CHECK_EQ(jbof_nbd_check_request(&t, rw), -EINVAL);
    t = rq(JBOF_NBD_CMD_WRITE_ZEROES, JBOF_NBD_CMD_FLAG_NO_HOLE | JBOF_NBD_CMD_FLAG_FUA, 0, 512);
    CHECK_EQ(jbof_nbd_check_request(&t, rw), 0);
    t = rq(JBOF_NBD_CMD_WRITE, JBOF_NBD_CMD_FLAG_NO_HOLE, 0, 512);
    CHECK_EQ(jbof_nbd_check_request(&t, rw), -EINVAL);
    t = rq(JBOF_NBD_CMD_WRITE_ZEROES, JBOF_NBD_CMD_FLAG_FAST_ZERO, 0, 512);
    CHECK_EQ(jbof_nbd_check_request(&t, rw), 0); /* advertised: the backend may refuse */
    t = rq(JBOF_NBD_CMD_READ, JBOF_NBD_CMD_FLAG_DF, 0, 512);
    CHECK_EQ(jbof_nbd_check_request(&t, rw), -EINVAL);
    t = rq(JBOF_NBD_CMD_CACHE, 0, 0, 512);
    CHECK_EQ(jbof_nbd_check_request(&t, rw), 0); /* advisory */
    t = rq(JBOF_NBD_CMD_BLOCK_STATUS, 0, 0, 512);
    CHECK_EQ(jbof_nbd_check_request(&t, rw), -EINVAL);
    t = rq(JBOF_NBD_CMD_DISC, 0, 0, 0);
    CHECK_EQ(jbof_nbd_check_request(&t, rw), 0);
}

static void test_errno_and_reply(void)
{
    CHECK_EQ(jbof_nbd_errno_to_wire(0), 0);
    CHECK_EQ(jbof_nbd_errno_to_wire(-EPERM), JBOF_NBD_EPERM);
    CHECK_EQ(jbof_nbd_errno_to_wire(-EROFS), JBOF_NBD_EPERM);
    CHECK_EQ(jbof_nbd_errno_to_wire(EIO), JBOF_NBD_EIO);
    CHECK_EQ(jbof_nbd_errno_to_wire(-EINVAL), JBOF_NBD_EINVAL);
    CHECK_EQ(jbof_nbd_errno_to_wire(-EDQUOT), JBOF_NBD_ENOSPC);
    CHECK_EQ(jbof_nbd_errno_to_wire(-EFBIG), JBOF_NBD_ENOSPC);
    CHECK_EQ(jbof_nbd_errno_to_wire(-ESHUTDOWN), JBOF_NBD_ESHUTDOWN);
    CHECK_EQ(jbof_nbd_errno_to_wire(-ENOTSUP), JBOF_NBD_ENOTSUP);
    CHECK_EQ(jbof_nbd_errno_to_wire(-EBADF), JBOF_NBD_EIO);
    uint8_t out[16];
    CHECK_EQ(jbof_nbd_simple_reply(out, 15, 1, 0), -ENOBUFS);
    CHECK_EQ(jbof_nbd_simple_reply(out, 16, 0x0102030405060708ull, -ENOSPC), 16);
    CHECK_EQ(ld32(out), JBOF_NBD_SIMPLE_REPLY_MAGIC);
    CHECK_EQ(ld32(out + 4), 28);
    CHECK_EQ(ld64(out + 8), 0x0102030405060708ull);
}

/* Garbage in any state must return a count within bounds or an error. */
static void test_garbage(void)
{
    uint64_t x = 88172645463325252ull;
    uint8_t in[600], out[8192];
    for (int iter = 0; iter < 20000; iter++) {
        jbof_nbd_hs hs;
        jbof_nbd_hs_init(&hs, 0);
        size_t len = 0;
        for (size_t i = 0; i < sizeof(in); i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            in[i] = (uint8_t)x;
        }
        /* sometimes a valid prefix, so the option parser is reached */
        if (iter & 1) {
            st32(in, 1);
            st64(in + 4, 0x49484156454f5054ull);
            st32(in + 16, (uint32_t)(x % 300));
        }
        len = (size_t)(x >> 20) % sizeof(in);
        size_t pos = 0, olen = 0;
        for (int steps = 0; steps < 100 && pos <= len; steps++) {
            int rc = jbof_nbd_hs_step(&hs, EX, 2, in + pos, len - pos, out, sizeof(out), &olen);
            if (rc <= 0)
                break;
            CHECK(pos + (size_t)rc <= len);
            pos += (size_t)rc;
            CHECK(olen <= sizeof(out));
            olen = 0;
        }
        jbof_nbd_request r;
        if (jbof_nbd_parse_request(in, len, &r) == 28)
            (void)jbof_nbd_check_request(&r, &EX[iter & 1]);
    }
}

int main(void)
{
    setup_exports();
    test_greeting();
    test_client_flags();
    test_go();
    test_info_then_unknown();
    test_malformed_go();
    test_list_abort_unsup();
    test_export_name();
    test_limits();
    test_requests();
    test_errno_and_reply();
    test_garbage();
    TEST_SUMMARY();
}
