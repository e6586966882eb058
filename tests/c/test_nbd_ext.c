/* Unit tests of the codec's NBD extensions (csrc/nbd_codec.c sections 6-7):
 * structured replies, LIST/SET_META_CONTEXT with base:allocation,
 * BLOCK_STATUS, CACHE, FAST_ZERO, DF, the default export, descriptions,
 * and the reply chunk encoders (byte for byte, against the spec). */
#include <errno.h>
#include <string.h>

#include "jbof_nbd.h"
#include "testing.h"

static uint16_t ld16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static uint32_t ld32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static uint64_t ld64(const uint8_t *p) { return ((uint64_t)ld32(p) << 32) | ld32(p + 4); }

static void st32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static jbof_nbd_export EX[3];

static void setup(void)
{
    memset(EX, 0, sizeof(EX));
    const char *names[3] = {"alpha", "beta", "ro"};
    for (int i = 0; i < 3; i++) {
        EX[i].name = names[i];
        EX[i].name_len = (uint32_t)strlen(names[i]);
        EX[i].size_bytes = 1ull << 30;
        EX[i].min_block_bytes = 1;
        EX[i].pref_block_bytes = 4096;
        EX[i].max_payload_bytes = JBOF_NBD_MAX_PAYLOAD_BYTES;
        EX[i].tflags = jbof_nbd_tflags(i == 2);
    }
    EX[1].description = "tenant beta";
    EX[1].description_len = 11;
    EX[1].is_default = 1;
}

/* Run one option through a fresh (or given) handshake; out gets the replies. */
static int opt(jbof_nbd_hs *hs, uint32_t o, const uint8_t *data, uint32_t len, uint8_t *out,
               size_t cap, size_t *olen)
{
    uint8_t in[16 + 1024];
    memcpy(in, "IHAVEOPT", 8);
    st32(in + 8, o);
    st32(in + 12, len);
    if (len)
        memcpy(in + 16, data, len);
    *olen = 0;
    return jbof_nbd_hs_step(hs, EX, 3, in, 16 + len, out, cap, olen);
}

static void start(jbof_nbd_hs *hs)
{
    uint8_t in[4] = {0, 0, 0, 3}, out[8];
    size_t olen = 0;
    jbof_nbd_hs_init(hs, 0);
    CHECK_EQ(hs->meta_export, -1);
    CHECK_EQ(hs->neg, 0);
    CHECK_EQ(jbof_nbd_hs_step(hs, EX, 3, in, 4, out, sizeof(out), &olen), 4);
}

/* meta option data: namelen name nq {qlen q}* */
static uint32_t meta_data(uint8_t *d, const char *name, const char **q, uint32_t nq)
{
    uint32_t n = (uint32_t)strlen(name), pos = 0;
    st32(d, n);
    memcpy(d + 4, name, n);
    st32(d + 4 + n, nq);
    pos = 8 + n;
    for (uint32_t i = 0; i < nq; i++) {
        uint32_t ql = (uint32_t)strlen(q[i]);
        st32(d + pos, ql);
        memcpy(d + pos + 4, q[i], ql);
        pos += 4 + ql;
    }
    return pos;
}

static uint32_t go_data(uint8_t *d, const char *name, uint16_t info)
{
    uint32_t n = (uint32_t)strlen(name);
    st32(d, n);
    memcpy(d + 4, name, n);
    d[4 + n] = 0;
    d[5 + n] = info ? 1 : 0;
    if (info) {
        d[6 + n] = (uint8_t)(info >> 8);
        d[7 + n] = (uint8_t)info;
        return 8 + n;
    }
    return 6 + n;
}

static void test_structured_option(void)
{
    jbof_nbd_hs hs;
    uint8_t out[4096];
    size_t olen;
    start(&hs);
    CHECK_EQ(opt(&hs, JBOF_NBD_OPT_STRUCTURED_REPLY, (const uint8_t *)"x", 1, out, sizeof(out), &olen), 17);
    CHECK_EQ(ld32(out + 12), 0x80000003u); /* data: ERR_INVALID */
    CHECK_EQ(hs.neg, 0);
    CHECK_EQ(opt(&hs, JBOF_NBD_OPT_STRUCTURED_REPLY, NULL, 0, out, sizeof(out), &olen), 16);
    CHECK_EQ(olen, 20);
    CHECK_EQ(ld32(out + 8), JBOF_NBD_OPT_STRUCTURED_REPLY);
    CHECK_EQ(ld32(out + 12), JBOF_NBD_REP_ACK);
    CHECK_EQ(hs.neg, JBOF_NBD_NEG_STRUCTURED);
    /* GO now advertises DF */
    uint8_t d[64];
    uint32_t dl = go_data(d, "alpha", 0);
    CHECK(opt(&hs, JBOF_NBD_OPT_GO, d, dl, out, sizeof(out), &olen) > 0);
    CHECK_EQ(hs.state, JBOF_NBD_HS_DONE);
    uint16_t tf = ld16(out + 30);
    CHECK(tf & JBOF_NBD_FLAG_SEND_DF);
    CHECK(tf & JBOF_NBD_FLAG_SEND_CACHE);
    CHECK(tf & JBOF_NBD_FLAG_SEND_FAST_ZERO);
    /* without structured replies: no DF */
    start(&hs);
    CHECK(opt(&hs, JBOF_NBD_OPT_GO, d, dl, out, sizeof(out), &olen) > 0);
    CHECK(!(ld16(out + 30) & JBOF_NBD_FLAG_SEND_DF));
}

static void test_meta_context(void)
{
    jbof_nbd_hs hs;
    uint8_t out[4096], d[512];
    size_t olen;
    const char *qa[] = {"base:allocation"};
    const char *qb[] = {"base:"};
    const char *qx[] = {"qemu:dirty-bitmap:x", "base:allocation", "base:allocation"};
    start(&hs);
    /* SET before STRUCTURED_REPLY: invalid */
    uint32_t dl = meta_data(d, "alpha", qa, 1);
    CHECK(opt(&hs, JBOF_NBD_OPT_SET_META_CONTEXT, d, dl, out, sizeof(out), &olen) > 0);
    CHECK_EQ(ld32(out + 12), 0x80000003u);
    CHECK_EQ(hs.neg, 0);
    /* LIST works without it: no query = everything */
    dl = meta_data(d, "alpha", NULL, 0);
    CHECK(opt(&hs, JBOF_NBD_OPT_LIST_META_CONTEXT, d, dl, out, sizeof(out), &olen) > 0);
    CHECK_EQ(olen, 20 + 4 + 15 + 20);
    CHECK_EQ(ld32(out + 12), JBOF_NBD_REP_META_CONTEXT);
    CHECK_EQ(ld32(out + 16), 19);
    CHECK_EQ(ld32(out + 20), JBOF_NBD_META_BASE_ALLOCATION_ID);
    CHECK(memcmp(out + 24, "base:allocation", 15) == 0);
    CHECK_EQ(ld32(out + 39 + 12), JBOF_NBD_REP_ACK);
    /* LIST "base:" names it too */
    dl = meta_data(d, "alpha", qb, 1);
    CHECK(opt(&hs, JBOF_NBD_OPT_LIST_META_CONTEXT, d, dl, out, sizeof(out), &olen) > 0);
    CHECK_EQ(olen, 59);
    /* unknown export */
    dl = meta_data(d, "nope", qa, 1);
    CHECK(opt(&hs, JBOF_NBD_OPT_LIST_META_CONTEXT, d, dl, out, sizeof(out), &olen) > 0);
    CHECK_EQ(ld32(out + 12), 0x80000006u);
    /* malformed: query length beyond the data, trailing bytes, short */
    dl = meta_data(d, "alpha", qa, 1);
    st32(d + 13, 200);
    CHECK(opt(&hs, JBOF_NBD_OPT_LIST_META_CONTEXT, d, dl, out, sizeof(out), &olen) > 0);
    CHECK_EQ(ld32(out + 12), 0x80000003u);
    dl = meta_data(d, "alpha", qa, 1);
    CHECK(opt(&hs, JBOF_NBD_OPT_LIST_META_CONTEXT, d, dl + 1, out, sizeof(out), &olen) > 0);
    CHECK_EQ(ld32(out + 12), 0x80000003u);
    st32(d, 1000);
    CHECK(opt(&hs, JBOF_NBD_OPT_LIST_META_CONTEXT, d, 12, out, sizeof(out), &olen) > 0);
    CHECK_EQ(ld32(out + 12), 0x80000003u);
    CHECK(opt(&hs, JBOF_NBD_OPT_LIST_META_CONTEXT, d, 3, out, sizeof(out), &olen) > 0);
    CHECK_EQ(ld32(out + 12), 0x80000003u);
    /* a huge query count with no queries is refused, not looped over */
    dl = meta_data(d, "alpha", NULL, 0);
    st32(d + 9, 0xffffffffu);
    CHECK(opt(&hs, JBOF_NBD_OPT_LIST_META_CONTEXT, d, dl, out, sizeof(out), &olen) > 0);
    CHECK_EQ(ld32(out + 12), 0x80000003u);
    /* SET after STRUCTURED_REPLY: one reply even when asked twice, unknown ignored */
    CHECK_EQ(opt(&hs, JBOF_NBD_OPT_STRUCTURED_REPLY, NULL, 0, out, sizeof(out), &olen), 16);
    dl = meta_data(d, "alpha", qx, 3);
    CHECK(opt(&hs, JBOF_NBD_OPT_SET_META_CONTEXT, d, dl, out, sizeof(out), &olen) > 0);
    CHECK_EQ(olen, 59);
    CHECK_EQ(ld32(out + 12), JBOF_NBD_REP_META_CONTEXT);
    CHECK(hs.neg & JBOF_NBD_NEG_META_ALLOC);
    CHECK_EQ(hs.meta_export, 0);
    /* SET with only an unknown context clears the selection */
    dl = meta_data(d, "alpha", qx, 1);
    CHECK(opt(&hs, JBOF_NBD_OPT_SET_META_CONTEXT, d, dl, out, sizeof(out), &olen) > 0);
    CHECK_EQ(olen, 20);
    CHECK(!(hs.neg & JBOF_NBD_NEG_META_ALLOC));
    /* SET on alpha then GO beta: the context does not carry over */
    dl = meta_data(d, "alpha", qa, 1);
    CHECK(opt(&hs, JBOF_NBD_OPT_SET_META_CONTEXT, d, dl, out, sizeof(out), &olen) > 0);
    CHECK(hs.neg & JBOF_NBD_NEG_META_ALLOC);
    uint8_t g[64];
    uint32_t gl = go_data(g, "beta", 0);
    CHECK(opt(&hs, JBOF_NBD_OPT_GO, g, gl, out, sizeof(out), &olen) > 0);
    CHECK_EQ(hs.export_index, 1);
    CHECK(!(hs.neg & JBOF_NBD_NEG_META_ALLOC));
    CHECK(hs.neg & JBOF_NBD_NEG_STRUCTURED);
    /* SET on "" (the default, beta) then GO beta keeps it */
    start(&hs);
    CHECK_EQ(opt(&hs, JBOF_NBD_OPT_STRUCTURED_REPLY, NULL, 0, out, sizeof(out), &olen), 16);
    dl = meta_data(d, "", qa, 1);
    CHECK(opt(&hs, JBOF_NBD_OPT_SET_META_CONTEXT, d, dl, out, sizeof(out), &olen) > 0);
    CHECK_EQ(hs.meta_export, 1);
    CHECK(opt(&hs, JBOF_NBD_OPT_GO, g, gl, out, sizeof(out), &olen) > 0);
    CHECK(hs.neg & JBOF_NBD_NEG_META_ALLOC);
}

static void test_default_and_description(void)
{
    jbof_nbd_hs hs;
    uint8_t out[4096], d[64];
    size_t olen;
    start(&hs);
    /* LIST: REP_SERVER carries namelen name description */
    CHECK_EQ(opt(&hs, JBOF_NBD_OPT_LIST, NULL, 0, out, sizeof(out), &olen), 16);
    CHECK_EQ(olen, (20 + 4 + 5) + (20 + 4 + 4 + 11) + (20 + 4 + 2) + 20);
    const uint8_t *b = out + 29;
    CHECK_EQ(ld32(b + 12), JBOF_NBD_REP_SERVER);
    CHECK_EQ(ld32(b + 16), 4 + 4 + 11);
    CHECK_EQ(ld32(b + 20), 4);
    CHECK(memcmp(b + 24, "betatenant beta", 15) == 0);
    /* INFO "" with INFO_DESCRIPTION: the default export, described */
    uint32_t dl = go_data(d, "", JBOF_NBD_INFO_DESCRIPTION);
    CHECK(opt(&hs, JBOF_NBD_OPT_INFO, d, dl, out, sizeof(out), &olen) > 0);
    CHECK_EQ(olen, 32 + 34 + (20 + 2 + 11) + 20);
    const uint8_t *ds = out + 66;
    CHECK_EQ(ld32(ds + 12), JBOF_NBD_REP_INFO);
    CHECK_EQ(ld16(ds + 20), JBOF_NBD_INFO_DESCRIPTION);
    CHECK(memcmp(ds + 22, "tenant beta", 11) == 0);
    /* min block 1 is reported */
    CHECK_EQ(ld32(out + 32 + 22), 1);
    /* an export without a description sends none even when asked */
    dl = go_data(d, "alpha", JBOF_NBD_INFO_DESCRIPTION);
    CHECK(opt(&hs, JBOF_NBD_OPT_INFO, d, dl, out, sizeof(out), &olen) > 0);
    CHECK_EQ(olen, 32 + 34 + 20);
    /* GO "" lands on the default (index 1) among 3 exports */
    dl = go_data(d, "", 0);
    CHECK(opt(&hs, JBOF_NBD_OPT_GO, d, dl, out, sizeof(out), &olen) > 0);
    CHECK_EQ(hs.export_index, 1);
    /* out_max covers LIST with descriptions */
    CHECK(jbof_nbd_hs_out_max(EX, 3) >= (20 + 4 + 5) + (20 + 4 + 4 + 11) + (20 + 4 + 2) + 20);
    /* EXPORT_NAME "" too */
    start(&hs);
    CHECK_EQ(opt(&hs, JBOF_NBD_OPT_EXPORT_NAME, NULL, 0, out, sizeof(out), &olen), 16);
    CHECK_EQ(hs.export_index, 1);
    /* no default and several exports: unknown */
    EX[1].is_default = 0;
    start(&hs);
    CHECK(opt(&hs, JBOF_NBD_OPT_GO, d, dl, out, sizeof(out), &olen) > 0);
    CHECK_EQ(ld32(out + 12), 0x80000006u);
    EX[1].is_default = 1;
}

static jbof_nbd_request rq(uint16_t type, uint16_t flags, uint64_t off, uint32_t len)
{
    jbof_nbd_request r = {.handle = 7, .offset_bytes = off, .length_bytes = len, .flags = flags, .type = type};
    return r;
}

static void test_requests(void)
{
    jbof_nbd_request t;
    const uint32_t S = JBOF_NBD_NEG_STRUCTURED, M = JBOF_NBD_NEG_STRUCTURED | JBOF_NBD_NEG_META_ALLOC;
    /* CACHE: advisory, any size within the export, read-only fine */
    t = rq(JBOF_NBD_CMD_CACHE, 0, 0, 1u << 30); /* above the max payload */
    CHECK_EQ(jbof_nbd_check_request(&t, &EX[2]), 0);
    t = rq(JBOF_NBD_CMD_CACHE, 0, (1ull << 30) - 1, 2);
    CHECK_EQ(jbof_nbd_check_request(&t, &EX[0]), -EINVAL);
    t = rq(JBOF_NBD_CMD_CACHE, JBOF_NBD_CMD_FLAG_FUA, 0, 1);
    CHECK_EQ(jbof_nbd_check_request(&t, &EX[0]), -EINVAL);
    /* BLOCK_STATUS needs base:allocation */
    t = rq(JBOF_NBD_CMD_BLOCK_STATUS, 0, 0, 4096);
    CHECK_EQ(jbof_nbd_check_request_neg(&t, &EX[0], 0), -EINVAL);
    CHECK_EQ(jbof_nbd_check_request_neg(&t, &EX[0], S), -EINVAL);
    CHECK_EQ(jbof_nbd_check_request_neg(&t, &EX[0], M), 0);
    CHECK_EQ(jbof_nbd_check_request_neg(&t, &EX[2], M), 0); /* read-only fine */
    t = rq(JBOF_NBD_CMD_BLOCK_STATUS, JBOF_NBD_CMD_FLAG_REQ_ONE, 0, 4096);
    CHECK_EQ(jbof_nbd_check_request_neg(&t, &EX[0], M), 0);
    t = rq(JBOF_NBD_CMD_BLOCK_STATUS, JBOF_NBD_CMD_FLAG_FUA, 0, 4096);
    CHECK_EQ(jbof_nbd_check_request_neg(&t, &EX[0], M), -EINVAL);
    t = rq(JBOF_NBD_CMD_BLOCK_STATUS, 0, 0, 0);
    CHECK_EQ(jbof_nbd_check_request_neg(&t, &EX[0], M), -EINVAL);
    t = rq(JBOF_NBD_CMD_BLOCK_STATUS, 0, 1ull << 30, 1);
    CHECK_EQ(jbof_nbd_check_request_neg(&t, &EX[0], M), -EINVAL);
    t = rq(JBOF_NBD_CMD_BLOCK_STATUS, 0, UINT64_MAX, 1);
    CHECK_EQ(jbof_nbd_check_request_neg(&t, &EX[0], M), -EINVAL);
    /* DF on READ only with structured replies; not on other commands */
    t = rq(JBOF_NBD_CMD_READ, JBOF_NBD_CMD_FLAG_DF, 0, 4096);
    CHECK_EQ(jbof_nbd_check_request_neg(&t, &EX[0], 0), -EINVAL);
    CHECK_EQ(jbof_nbd_check_request_neg(&t, &EX[0], S), 0);
    t = rq(JBOF_NBD_CMD_WRITE, JBOF_NBD_CMD_FLAG_DF, 0, 4096);
    CHECK_EQ(jbof_nbd_check_request_neg(&t, &EX[0], S), -EINVAL);
    /* FAST_ZERO with WRITE_ZEROES only */
    t = rq(JBOF_NBD_CMD_WRITE_ZEROES, JBOF_NBD_CMD_FLAG_FAST_ZERO | JBOF_NBD_CMD_FLAG_NO_HOLE, 0, 4096);
    CHECK_EQ(jbof_nbd_check_request(&t, &EX[0]), 0);
    CHECK_EQ(jbof_nbd_check_request(&t, &EX[2]), -EPERM);
    t = rq(JBOF_NBD_CMD_TRIM, JBOF_NBD_CMD_FLAG_FAST_ZERO, 0, 4096);
    CHECK_EQ(jbof_nbd_check_request(&t, &EX[0]), -EINVAL);
    /* min block 1: any offset and length */
    t = rq(JBOF_NBD_CMD_READ, 0, 3, 5);
    CHECK_EQ(jbof_nbd_check_request(&t, &EX[0]), 0);
    CHECK_EQ(jbof_nbd_check_request_neg(NULL, &EX[0], 0), -EINVAL);
}

/* The worked example of nbd_codec.c section 6, byte for byte. */
static void test_chunks(void)
{
    uint8_t b[64];
    CHECK_EQ(jbof_nbd_read_chunk(b, 27, 0x1122334455667788ull, 4096, 512), -ENOBUFS);
    CHECK_EQ(jbof_nbd_read_chunk(NULL, 64, 1, 0, 1), -EINVAL);
    CHECK_EQ(jbof_nbd_read_chunk(b, sizeof(b), 0x1122334455667788ull, 4096, 512), 28);
    static const uint8_t want[28] = {0x66, 0x8e, 0x33, 0xef, 0x00, 0x01, 0x00, 0x01,
                                     0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
                                     0x00, 0x00, 0x02, 0x08, 0, 0, 0, 0, 0, 0, 0x10, 0x00};
    CHECK(memcmp(b, want, 28) == 0);
    /* empty READ: one NONE chunk */
    CHECK_EQ(jbof_nbd_read_chunk(b, sizeof(b), 9, 0, 0), 20);
    CHECK_EQ(ld16(b + 4), JBOF_NBD_REPLY_FLAG_DONE);
    CHECK_EQ(ld16(b + 6), JBOF_NBD_REPLY_TYPE_NONE);
    CHECK_EQ(ld32(b + 16), 0);
    /* ERROR chunk: errno mapped, no message */
    CHECK_EQ(jbof_nbd_error_chunk(b, sizeof(b), 9, 0), -EINVAL);
    CHECK_EQ(jbof_nbd_error_chunk(b, 25, 9, -EIO), -ENOBUFS);
    CHECK_EQ(jbof_nbd_error_chunk(b, sizeof(b), 9, -ENOTSUP), 26);
    CHECK_EQ(ld32(b), JBOF_NBD_STRUCTURED_REPLY_MAGIC);
    CHECK_EQ(ld16(b + 6), JBOF_NBD_REPLY_TYPE_ERROR);
    CHECK_EQ(ld64(b + 8), 9);
    CHECK_EQ(ld32(b + 16), 6);
    CHECK_EQ(ld32(b + 20), JBOF_NBD_ENOTSUP);
    CHECK_EQ(ld16(b + 24), 0);
    /* BLOCK_STATUS head and extents encoded in place */
    CHECK_EQ(jbof_nbd_block_status_header(b, sizeof(b), 5, 1, 0), -EINVAL);
    CHECK_EQ(jbof_nbd_block_status_header(b, sizeof(b), 5, 1, JBOF_NBD_EXTENTS_MAX + 1), -EINVAL);
    CHECK_EQ(jbof_nbd_block_status_header(b, sizeof(b), 5, 1, 2), 24);
    CHECK_EQ(ld16(b + 6), JBOF_NBD_REPLY_TYPE_BLOCK_STATUS);
    CHECK_EQ(ld32(b + 16), 4 + 16);
    CHECK_EQ(ld32(b + 20), 1);
    jbof_nbd_extent ext[2] = {{65536, 0}, {1 << 20, JBOF_NBD_STATE_HOLE | JBOF_NBD_STATE_ZERO}};
    CHECK_EQ(jbof_nbd_encode_extents((uint8_t *)ext, 15, ext, 2), -ENOBUFS);
    CHECK_EQ(jbof_nbd_encode_extents((uint8_t *)ext, sizeof(ext), ext, 2), 16);
    const uint8_t *e = (const uint8_t *)ext;
    CHECK_EQ(ld32(e), 65536);
    CHECK_EQ(ld32(e + 4), 0);
    CHECK_EQ(ld32(e + 8), 1 << 20);
    CHECK_EQ(ld32(e + 12), 3);
    CHECK_EQ(jbof_nbd_chunk_header(b, 19, 1, 0, 0, 0), -ENOBUFS);
}

/* Random meta-context and GO option data: every step consumes the whole
 * option, never writes more than jbof_nbd_hs_out_max, never fails. */
static void test_meta_garbage(void)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;
    size_t cap = jbof_nbd_hs_out_max(EX, 3);
    static uint8_t out[8192];
    CHECK(cap <= sizeof(out));
    for (int iter = 0; iter < 20000; iter++) {
        uint8_t d[96];
        const char *q[] = {"base:allocation", "base:", "x"};
        uint32_t len = meta_data(d, iter % 3 ? "alpha" : "", q, (uint32_t)(iter % 4));
        for (int k = 0; k < 3; k++) { /* flip a few bytes */
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            d[x % len] = (uint8_t)(x >> 24);
        }
        jbof_nbd_hs hs;
        start(&hs);
        size_t olen;
        uint32_t o = (iter & 1) ? JBOF_NBD_OPT_LIST_META_CONTEXT : JBOF_NBD_OPT_SET_META_CONTEXT;
        if (iter & 2)
            CHECK_EQ(opt(&hs, JBOF_NBD_OPT_STRUCTURED_REPLY, NULL, 0, out, cap, &olen), 16);
        int rc = opt(&hs, o, d, len, out, cap, &olen);
        CHECK_EQ(rc, (int)(16 + len));
        CHECK(olen <= cap && olen >= 20);
        if (iter & 4) {
            rc = opt(&hs, JBOF_NBD_OPT_GO, d, len, out, cap, &olen);
            CHECK_EQ(rc, (int)(16 + len));
        }
    }
}

int main(void)
{
    setup();
    test_structured_option();
    test_meta_context();
    test_default_and_description();
    test_requests();
    test_chunks();
    test_meta_garbage();
    TEST_SUMMARY();
}
