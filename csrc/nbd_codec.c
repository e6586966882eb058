/*
 * nbd_codec.c -- the NBD wire protocol as pure functions (no IO, no clock,
 * no allocation), so it can be unit-tested and fuzzed on its own.
 *
 * 1. What is spoken.  Fixed newstyle negotiation only (doc/proto.md of the
 *    NetworkBlockDevice/nbd project); simple replies, or structured replies
 *    once the client asks (section 6):
 *
 *      S: "NBDMAGIC" "IHAVEOPT" hflags(16)              greeting, 18 bytes
 *      C: cflags(32)                                    FIXED_NEWSTYLE|NO_ZEROES
 *      C: "IHAVEOPT" option(32) length(32) data         repeated, bounded
 *      S: REP_MAGIC(64) option(32) type(32) length(32) data   per reply
 *      ...GO/EXPORT_NAME...
 *      C: REQUEST_MAGIC flags(16) type(16) handle(64) offset(64) length(32) [payload]
 *      S: SIMPLE_REPLY_MAGIC error(32) handle(64) [READ data]
 *      S: STRUCTURED_REPLY_MAGIC flags(16) type(16) handle(64) length(32) payload
 *
 *    Options: GO and INFO (answered with NBD_INFO_EXPORT and
 *    NBD_INFO_BLOCK_SIZE, plus NBD_INFO_NAME / NBD_INFO_DESCRIPTION when
 *    asked), EXPORT_NAME, LIST (name and description), ABORT,
 *    STRUCTURED_REPLY, LIST_META_CONTEXT and SET_META_CONTEXT (the one
 *    context base:allocation).  Everything else -- STARTTLS, extended
 *    headers, unknown numbers -- gets NBD_REP_ERR_UNSUP, which the spec
 *    explicitly allows and every client handles.  Commands: READ, WRITE,
 *    DISC, FLUSH, TRIM, WRITE_ZEROES (FUA, NO_HOLE, FAST_ZERO), CACHE,
 *    BLOCK_STATUS (REQ_ONE), READ with DF.
 *
 * 2. Never trust the client.  The option loop is bounded (64 + 4 per export
 *    options per connection), option data above 8 KiB is a hard disconnect
 *    (we would have to buffer it), every length field is checked against
 *    the bytes actually present before it is used, and the handshake output
 *    of one step is bounded by jbof_nbd_hs_out_max() so the caller can size
 *    one buffer up front.  A WRITE longer than the advertised maximum
 *    payload (32 MiB) is a hard disconnect (we cannot skip an unbounded
 *    payload cheaply); every other bad request gets an error reply and the
 *    connection lives on.
 *
 * 3. Request checks, in order (first failure wins):
 *      unknown command                        EINVAL
 *      BLOCK_STATUS without base:allocation   EINVAL
 *      flag not valid for the command         EINVAL  (FUA on READ/WRITE/FLUSH/TRIM;
 *                                             NO_HOLE, FAST_ZERO on WRITE_ZEROES; DF on READ
 *                                             with structured replies; REQ_ONE on
 *                                             BLOCK_STATUS; none on CACHE)
 *      WRITE longer than max payload          close
 *      READ longer than max payload           EINVAL
 *      FLUSH with offset or length != 0       EINVAL
 *      BLOCK_STATUS of length 0               EINVAL
 *      write/trim/zero on a read-only export  EPERM
 *      offset or length not a multiple of the minimum block size   EINVAL
 *      beyond the end: READ/TRIM/CACHE/BLOCK_STATUS  EINVAL
 *                      WRITE/WRITE_ZEROES     ENOSPC
 *    The end check is overflow-safe: offset > size || length > size - offset.
 *
 * 4. Worked example.  A 1 GiB export (size 1073741824, min block 512).  A
 *    client sends WRITE offset 1073737728 length 8192: offset is aligned
 *    (1073737728 = 2097144 * 512), size - offset = 4096 < 8192, so the reply
 *    is ENOSPC after the 8192 payload bytes are consumed.  READ offset 4608
 *    length 4096 passes (4608 = 9 * 512); READ offset 4100 fails with EINVAL
 *    (4100 mod 512 = 4).  The GO reply for the export "a" asking for
 *    BLOCK_SIZE is 20+12 (INFO_EXPORT) + 20+14 (INFO_BLOCK_SIZE) + 20 (ACK)
 *    = 86 bytes.
 *
 * 5. errno mapping.  jbof_nbd_errno_to_wire() is the only place where an
 *    errno becomes a wire error; everything else in the server passes
 *    negative errnos around.
 *
 * 6. Structured replies and base:allocation.  NBD_OPT_STRUCTURED_REPLY (no
 *    data) is acknowledged and sets JBOF_NBD_NEG_STRUCTURED in hs->neg; from
 *    then on GO/INFO/EXPORT_NAME also advertise NBD_FLAG_SEND_DF.
 *    SET_META_CONTEXT needs it (else ERR_INVALID); it names an export and
 *    queries; "base:allocation" selects context id 1 (one META_CONTEXT
 *    reply however often asked), anything else is ignored, each SET
 *    replaces the last.  LIST_META_CONTEXT answers the same without
 *    selecting; no query, or "base:", lists base:allocation.  A GO to an
 *    export other than the one SET named drops the selection, as the spec
 *    says contexts belong to the export.  Query lists are walked with every
 *    length checked against the option data, so a query count of 2^32 with
 *    no queries costs one check.
 *
 *    The engine answers READ and BLOCK_STATUS in chunks when structured
 *    replies are on (READ must: the spec forbids a simple reply to it) and
 *    keeps 16-byte simple replies for the rest (allowed).  A successful
 *    READ is always ONE chunk, OFFSET_DATA with the DONE flag: the header
 *    goes in the request's slot, the data straight from its buffer, both in
 *    the same sendmsg as before -- no copy, and DF ("don't fragment") is
 *    honoured trivially.  A failed READ or BLOCK_STATUS is one ERROR chunk
 *    (error, empty message); an empty READ is one NONE chunk.
 *
 *    Worked example: READ of 512 bytes at export offset 4096, handle
 *    0x1122334455667788, after NBD_OPT_STRUCTURED_REPLY:
 *
 *        66 8e 33 ef        STRUCTURED_REPLY_MAGIC
 *        00 01              flags: DONE (the only chunk)
 *        00 01              type: OFFSET_DATA
 *        11 22 33 44 55 66 77 88   handle
 *        00 00 02 08        length: 8 (offset) + 512 (data) = 520
 *        00 00 00 00 00 00 10 00   offset 4096 (the export's, not the drive's)
 *        ...512 bytes of data, sent from the request buffer...
 *
 *    28 + 512 = 540 bytes on the wire against 16 + 512 with a simple reply.
 *    A BLOCK_STATUS reply for two extents is 20 (header, type 5, length 20)
 *    + 4 (context id 1) + 2 * 8 (length, flags): e.g. 65536 bytes of data
 *    (flags 0) then 1 MiB of hole (flags 3 = HOLE | ZERO).
 *
 * 7. Other commands and options.  CACHE is advisory: checked like a READ
 *    (no payload cap) and answered at once.  FAST_ZERO is accepted on
 *    WRITE_ZEROES and advertised on every export: the backend refuses with
 *    ENOTSUP a zero it would have to write (the client then writes zeroes
 *    itself, in its own way).  The empty export name is the export marked
 *    is_default, else the only export when there is just one.  A
 *    description (<= 255 bytes) follows the name in LIST's REP_SERVER and
 *    is sent as NBD_INFO_DESCRIPTION when asked.  The minimum block size is
 *    whatever the export says (1 on RAM) and is always sent in GO/INFO.
 */
#include <errno.h>
#include <string.h>

#include "jbof_nbd.h"

/* ------------------------------------------------ big-endian helpers ---- */

static void be16_store(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void be32_store(uint8_t *p, uint32_t v)
{
    for (int i = 3; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

static void be64_store(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

static uint16_t be16_load(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

static uint32_t be32_load(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static uint64_t be64_load(const uint8_t *p)
{
    return ((uint64_t)be32_load(p) << 32) | be32_load(p + 4);
}

/* ------------------------------------------------------------ errors ---- */

uint32_t jbof_nbd_errno_to_wire(int err)
{
    if (err < 0)
        err = -err;
    switch (err) {
    case 0:
        return 0;
    case EPERM:
    case EROFS:
        return JBOF_NBD_EPERM;
    case EIO:
        return JBOF_NBD_EIO;
    case ENOMEM:
        return JBOF_NBD_ENOMEM;
    case EINVAL:
        return JBOF_NBD_EINVAL;
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
        return JBOF_NBD_ENOSPC;
    case EOVERFLOW:
        return JBOF_NBD_EOVERFLOW;
    case ENOTSUP:
        return JBOF_NBD_ENOTSUP;
    case ESHUTDOWN:
        return JBOF_NBD_ESHUTDOWN;
    default:
        return JBOF_NBD_EIO;
    }
}

uint16_t jbof_nbd_tflags(int read_only)
{
    /* CAN_MULTI_CONN is honest: all connections of an export share one
     * backend with no per-connection cache, and FLUSH syncs the whole drive. */
    /* CACHE is advisory and always answerable; FAST_ZERO is safe to offer
     * on every backend because a zero that would not be fast is refused
     * with ENOTSUP (section 7).  SEND_DF is added per connection, once
     * structured replies are negotiated (neg_tflags). */
    uint16_t f = JBOF_NBD_FLAG_HAS_FLAGS | JBOF_NBD_FLAG_SEND_FLUSH | JBOF_NBD_FLAG_SEND_FUA |
                 JBOF_NBD_FLAG_SEND_TRIM | JBOF_NBD_FLAG_SEND_WRITE_ZEROES |
                 JBOF_NBD_FLAG_CAN_MULTI_CONN | JBOF_NBD_FLAG_SEND_CACHE |
                 JBOF_NBD_FLAG_SEND_FAST_ZERO;
    if (read_only)
        f |= JBOF_NBD_FLAG_READ_ONLY;
    return f;
}

/* --------------------------------------------------------- handshake ---- */

int jbof_nbd_greeting(uint8_t *out, size_t cap)
{
    if (!out)
        return -EINVAL;
    if (cap < sizeof(struct jbof_nbd_wire_greeting))
        return -ENOBUFS;
    struct jbof_nbd_wire_greeting g;
    be64_store(g.passwd, JBOF_NBD_INIT_PASSWD);
    be64_store(g.opt_magic, JBOF_NBD_IHAVEOPT);
    be16_store(g.hflags, JBOF_NBD_FLAG_FIXED_NEWSTYLE | JBOF_NBD_FLAG_NO_ZEROES);
    memcpy(out, &g, sizeof(g));
    return (int)sizeof(g);
}

int jbof_nbd_hs_init(jbof_nbd_hs *hs, uint32_t max_options)
{
    if (!hs)
        return -EINVAL;
    memset(hs, 0, sizeof(*hs));
    hs->state = JBOF_NBD_HS_CLIENT_FLAGS;
    hs->max_options = max_options ? max_options : JBOF_NBD_HS_OPTIONS_BASE;
    hs->export_index = -1;
    hs->meta_export = -1;
    return 0;
}

/* The flags one connection sees: DF only with structured replies (a
 * simple reply cannot be fragmented, so DF would mean nothing). */
static uint16_t neg_tflags(const jbof_nbd_hs *hs, const jbof_nbd_export *e)
{
    uint16_t f = e->tflags;
    if (hs->neg & JBOF_NBD_NEG_STRUCTURED)
        f |= JBOF_NBD_FLAG_SEND_DF;
    return f;
}

enum {
    REPLY_HDR = sizeof(struct jbof_nbd_wire_opt_reply),
    MSG_MAX = 64, /* longest error message text we attach */
    CTX_NAME_BYTES = 15 /* "base:allocation" */
};

static const char CTX_BASE_ALLOCATION[] = "base:allocation";

static uint32_t desc_len(const jbof_nbd_export *e)
{
    if (!e->description)
        return 0;
    return e->description_len > JBOF_NBD_DESC_MAX_BYTES ? JBOF_NBD_DESC_MAX_BYTES : e->description_len;
}

size_t jbof_nbd_hs_out_max(const jbof_nbd_export *ex, uint32_t nex)
{
    /* LIST: one REP_SERVER (header + 4 + name) per export, then ACK.
     * GO/INFO: three INFO replies (<= 20 + 2 + name) then ACK; an error
     * reply carries at most MSG_MAX bytes.  EXPORT_NAME: 134. */
    size_t list = REPLY_HDR;
    for (uint32_t i = 0; ex && i < nex; i++)
        list += REPLY_HDR + 4 + ex[i].name_len + desc_len(&ex[i]);
    /* GO/INFO: EXPORT, BLOCK_SIZE, NAME, DESCRIPTION, ACK; the meta
     * context options answer at most one context, then ACK (below this). */
    size_t go = 2 * (REPLY_HDR + 14) + 2 * (REPLY_HDR + 2 + JBOF_NBD_NAME_MAX_BYTES) + REPLY_HDR;
    size_t m = list > go ? list : go;
    m = m > REPLY_HDR + MSG_MAX ? m : REPLY_HDR + MSG_MAX;
    return m > sizeof(struct jbof_nbd_wire_export_name_reply)
               ? m
               : sizeof(struct jbof_nbd_wire_export_name_reply);
}

/* Output cursor: appends refuse (and latch an error) past the capacity. */
typedef struct out_buf {
    uint8_t *p;
    size_t len, cap;
    int err;
} out_buf;

static uint8_t *out_take(out_buf *o, size_t n)
{
    if (o->err || n > o->cap - o->len) {
        o->err = -ENOBUFS;
        return NULL;
    }
    uint8_t *p = o->p + o->len;
    o->len += n;
    return p;
}

static void put_reply(out_buf *o, uint32_t opt, uint32_t type, const void *data, uint32_t len)
{
    uint8_t *p = out_take(o, REPLY_HDR + (size_t)len);
    if (!p)
        return;
    struct jbof_nbd_wire_opt_reply r;
    be64_store(r.magic, JBOF_NBD_REP_MAGIC);
    be32_store(r.option, opt);
    be32_store(r.type, type);
    be32_store(r.length, len);
    memcpy(p, &r, sizeof(r));
    if (len)
        memcpy(p + REPLY_HDR, data, len);
}

static void put_error(out_buf *o, uint32_t opt, int32_t type, const char *msg)
{
    size_t n = msg ? strlen(msg) : 0;
    if (n > MSG_MAX)
        n = MSG_MAX;
    put_reply(o, opt, (uint32_t)type, msg, (uint32_t)n);
}

/* Index of the export called name[0, len), or -1.  The empty name is the
 * export marked is_default, else the only export when there is one. */
static int find_export(const jbof_nbd_export *ex, uint32_t nex, const uint8_t *name, uint32_t len)
{
    if (len == 0) {
        for (uint32_t i = 0; ex && i < nex; i++)
            if (ex[i].is_default)
                return (int)i;
        return nex == 1 ? 0 : -1;
    }
    if (len > JBOF_NBD_NAME_MAX_BYTES || memchr(name, 0, len))
        return -1;
    for (uint32_t i = 0; ex && i < nex; i++)
        if (ex[i].name_len == len && memcmp(ex[i].name, name, len) == 0)
            return (int)i;
    return -1;
}

static void put_info_export(out_buf *o, uint32_t opt, const jbof_nbd_export *e, uint16_t tflags)
{
    struct jbof_nbd_wire_info_export w;
    be16_store(w.info, JBOF_NBD_INFO_EXPORT);
    be64_store(w.size, e->size_bytes);
    be16_store(w.tflags, tflags);
    put_reply(o, opt, JBOF_NBD_REP_INFO, &w, sizeof(w));
}

static void put_info_block_size(out_buf *o, uint32_t opt, const jbof_nbd_export *e)
{
    struct jbof_nbd_wire_info_block_size w;
    be16_store(w.info, JBOF_NBD_INFO_BLOCK_SIZE);
    be32_store(w.min_block, e->min_block_bytes);
    be32_store(w.pref_block, e->pref_block_bytes);
    be32_store(w.max_payload, e->max_payload_bytes);
    put_reply(o, opt, JBOF_NBD_REP_INFO, &w, sizeof(w));
}

static void put_info_name(out_buf *o, uint32_t opt, const jbof_nbd_export *e)
{
    uint8_t buf[2 + JBOF_NBD_NAME_MAX_BYTES];
    uint32_t n = e->name_len > JBOF_NBD_NAME_MAX_BYTES ? JBOF_NBD_NAME_MAX_BYTES : e->name_len;
    be16_store(buf, JBOF_NBD_INFO_NAME);
    memcpy(buf + 2, e->name, n);
    put_reply(o, opt, JBOF_NBD_REP_INFO, buf, 2 + n);
}

static void put_info_description(out_buf *o, uint32_t opt, const jbof_nbd_export *e)
{
    uint8_t buf[2 + JBOF_NBD_DESC_MAX_BYTES];
    uint32_t n = desc_len(e);
    be16_store(buf, JBOF_NBD_INFO_DESCRIPTION);
    memcpy(buf + 2, e->description, n);
    put_reply(o, opt, JBOF_NBD_REP_INFO, buf, 2 + n);
}

/* GO / INFO: data = namelen(32) name nreq(16) req(16)*nreq. */
static void opt_info_go(jbof_nbd_hs *hs, const jbof_nbd_export *ex, uint32_t nex, uint32_t opt,
                        const uint8_t *d, uint32_t len, out_buf *o)
{
    if (len < 6) {
        put_error(o, opt, JBOF_NBD_REP_ERR_INVALID, "option data too short");
        return;
    }
    uint32_t nlen = be32_load(d);
    if (nlen > len - 6) {
        put_error(o, opt, JBOF_NBD_REP_ERR_INVALID, "name length beyond option data");
        return;
    }
    uint32_t nreq = be16_load(d + 4 + nlen);
    if ((uint64_t)6 + nlen + 2ull * nreq != len) {
        put_error(o, opt, JBOF_NBD_REP_ERR_INVALID, "information request count mismatch");
        return;
    }
    int idx = find_export(ex, nex, d + 4, nlen);
    if (idx < 0) {
        put_error(o, opt, JBOF_NBD_REP_ERR_UNKNOWN, "no such export");
        return;
    }
    int want_name = 0, want_desc = 0;
    for (uint32_t i = 0; i < nreq; i++) {
        uint16_t q = be16_load(d + 6 + nlen + 2 * i);
        want_name |= q == JBOF_NBD_INFO_NAME;
        want_desc |= q == JBOF_NBD_INFO_DESCRIPTION;
    }
    const jbof_nbd_export *e = &ex[idx];
    put_info_export(o, opt, e, neg_tflags(hs, e));
    /* Sent unasked too: the minimum block size may not be the default of 1. */
    put_info_block_size(o, opt, e);
    if (want_name)
        put_info_name(o, opt, e);
    if (want_desc && desc_len(e))
        put_info_description(o, opt, e);
    put_reply(o, opt, JBOF_NBD_REP_ACK, NULL, 0);
    if (!o->err && opt == JBOF_NBD_OPT_GO) {
        hs->state = JBOF_NBD_HS_DONE;
        hs->export_index = idx;
        /* contexts chosen for another export do not carry over (spec) */
        if (hs->meta_export != idx)
            hs->neg &= ~(uint32_t)JBOF_NBD_NEG_META_ALLOC;
    }
}

static void opt_list(const jbof_nbd_export *ex, uint32_t nex, uint32_t len, out_buf *o)
{
    if (len != 0) {
        put_error(o, JBOF_NBD_OPT_LIST, JBOF_NBD_REP_ERR_INVALID, "LIST takes no data");
        return;
    }
    for (uint32_t i = 0; ex && i < nex; i++) {
        uint8_t buf[4 + JBOF_NBD_NAME_MAX_BYTES + JBOF_NBD_DESC_MAX_BYTES];
        uint32_t n = ex[i].name_len > JBOF_NBD_NAME_MAX_BYTES ? JBOF_NBD_NAME_MAX_BYTES : ex[i].name_len;
        uint32_t dl = desc_len(&ex[i]);
        be32_store(buf, n);
        memcpy(buf + 4, ex[i].name, n);
        if (dl) /* REP_SERVER: namelen name, then the description to the end */
            memcpy(buf + 4 + n, ex[i].description, dl);
        put_reply(o, JBOF_NBD_OPT_LIST, JBOF_NBD_REP_SERVER, buf, 4 + n + dl);
    }
    put_reply(o, JBOF_NBD_OPT_LIST, JBOF_NBD_REP_ACK, NULL, 0);
}

static int opt_export_name(jbof_nbd_hs *hs, const jbof_nbd_export *ex, uint32_t nex,
                           const uint8_t *d, uint32_t len, out_buf *o)
{
    int idx = find_export(ex, nex, d, len);
    if (idx < 0)
        return -ENOENT; /* this option cannot return an error: disconnect */
    struct jbof_nbd_wire_export_name_reply r;
    memset(&r, 0, sizeof(r));
    be64_store(r.size, ex[idx].size_bytes);
    be16_store(r.tflags, neg_tflags(hs, &ex[idx]));
    size_t n = (hs->client_flags & JBOF_NBD_FLAG_C_NO_ZEROES) ? 10 : sizeof(r);
    uint8_t *p = out_take(o, n);
    if (!p)
        return o->err;
    memcpy(p, &r, n);
    hs->state = JBOF_NBD_HS_DONE;
    hs->export_index = idx;
    if (hs->meta_export != idx)
        hs->neg &= ~(uint32_t)JBOF_NBD_NEG_META_ALLOC;
    return 0;
}

static void opt_structured(jbof_nbd_hs *hs, uint32_t len, out_buf *o)
{
    if (len != 0) {
        put_error(o, JBOF_NBD_OPT_STRUCTURED_REPLY, JBOF_NBD_REP_ERR_INVALID, "option takes no data");
        return;
    }
    put_reply(o, JBOF_NBD_OPT_STRUCTURED_REPLY, JBOF_NBD_REP_ACK, NULL, 0);
    if (!o->err)
        hs->neg |= JBOF_NBD_NEG_STRUCTURED;
}

/* LIST_META_CONTEXT / SET_META_CONTEXT (section 6): data = namelen(32)
 * name nqueries(32) { qlen(32) query }*.  The one context we serve is
 * base:allocation; LIST with no query or the query "base:" names it too.
 * At most one META_CONTEXT reply however often it is asked for. */
static void opt_meta(jbof_nbd_hs *hs, const jbof_nbd_export *ex, uint32_t nex, uint32_t opt,
                     const uint8_t *d, uint32_t len, out_buf *o)
{
    int set = opt == JBOF_NBD_OPT_SET_META_CONTEXT;
    if (set && !(hs->neg & JBOF_NBD_NEG_STRUCTURED)) {
        put_error(o, opt, JBOF_NBD_REP_ERR_INVALID, "structured replies not negotiated");
        return;
    }
    if (len < 8 || be32_load(d) > len - 8) {
        put_error(o, opt, JBOF_NBD_REP_ERR_INVALID, "option data too short");
        return;
    }
    uint32_t nlen = be32_load(d);
    uint32_t nq = be32_load(d + 4 + nlen);
    uint32_t pos = 8 + nlen;
    int match = 0;
    for (uint32_t i = 0; i < nq; i++) {
        if (len - pos < 4 || be32_load(d + pos) > len - pos - 4) {
            put_error(o, opt, JBOF_NBD_REP_ERR_INVALID, "query beyond option data");
            return;
        }
        uint32_t ql = be32_load(d + pos);
        const uint8_t *q = d + pos + 4;
        if (ql == CTX_NAME_BYTES && memcmp(q, CTX_BASE_ALLOCATION, CTX_NAME_BYTES) == 0)
            match = 1;
        else if (!set && ql == 5 && memcmp(q, "base:", 5) == 0)
            match = 1;
        pos += 4 + ql;
    }
    if (pos != len) {
        put_error(o, opt, JBOF_NBD_REP_ERR_INVALID, "trailing option data");
        return;
    }
    int idx = find_export(ex, nex, d + 4, nlen);
    if (idx < 0) {
        put_error(o, opt, JBOF_NBD_REP_ERR_UNKNOWN, "no such export");
        return;
    }
    if (!set && nq == 0)
        match = 1;
    if (match) {
        uint8_t buf[4 + CTX_NAME_BYTES];
        be32_store(buf, JBOF_NBD_META_BASE_ALLOCATION_ID);
        memcpy(buf + 4, CTX_BASE_ALLOCATION, CTX_NAME_BYTES);
        put_reply(o, opt, JBOF_NBD_REP_META_CONTEXT, buf, sizeof(buf));
    }
    put_reply(o, opt, JBOF_NBD_REP_ACK, NULL, 0);
    if (set && !o->err) {
        /* each SET replaces the previous selection */
        hs->neg &= ~(uint32_t)JBOF_NBD_NEG_META_ALLOC;
        if (match)
            hs->neg |= JBOF_NBD_NEG_META_ALLOC;
        hs->meta_export = idx;
    }
}

int jbof_nbd_hs_step(jbof_nbd_hs *hs, const jbof_nbd_export *ex, uint32_t nex,
                     const uint8_t *in, size_t in_len,
                     uint8_t *out, size_t out_cap, size_t *out_len)
{
    if (!hs || (!in && in_len) || !out || !out_len || *out_len > out_cap || (!ex && nex))
        return -EINVAL;
    out_buf o = {.p = out, .len = *out_len, .cap = out_cap, .err = 0};

    switch (hs->state) {
    case JBOF_NBD_HS_CLIENT_FLAGS: {
        if (in_len < 4)
            return 0;
        uint32_t cf = be32_load(in);
        if (cf & ~(uint32_t)(JBOF_NBD_FLAG_C_FIXED_NEWSTYLE | JBOF_NBD_FLAG_C_NO_ZEROES))
            return -EPROTO; /* unknown client flag: the spec says drop */
        hs->client_flags = cf;
        hs->state = JBOF_NBD_HS_OPTIONS;
        return 4;
    }
    case JBOF_NBD_HS_OPTIONS:
        break;
    default:
        return -EPROTO; /* no handshake input expected in DONE / ABORTED */
    }

    if (in_len < sizeof(struct jbof_nbd_wire_opt))
        return 0;
    if (be64_load(in) != JBOF_NBD_IHAVEOPT)
        return -EPROTO;
    uint32_t opt = be32_load(in + 8);
    uint32_t len = be32_load(in + 12);
    if (len > JBOF_NBD_OPT_MAX_BYTES)
        return -EMSGSIZE;
    size_t need = sizeof(struct jbof_nbd_wire_opt) + (size_t)len;
    if (in_len < need)
        return 0;
    if (++hs->options > hs->max_options)
        return -ELOOP;
    const uint8_t *d = in + sizeof(struct jbof_nbd_wire_opt);

    switch (opt) {
    case JBOF_NBD_OPT_EXPORT_NAME: {
        int rc = opt_export_name(hs, ex, nex, d, len, &o);
        if (rc < 0)
            return rc;
        break;
    }
    case JBOF_NBD_OPT_ABORT:
        put_reply(&o, opt, JBOF_NBD_REP_ACK, NULL, 0);
        if (!o.err)
            hs->state = JBOF_NBD_HS_ABORTED;
        break;
    case JBOF_NBD_OPT_LIST:
        opt_list(ex, nex, len, &o);
        break;
    case JBOF_NBD_OPT_INFO:
    case JBOF_NBD_OPT_GO:
        opt_info_go(hs, ex, nex, opt, d, len, &o);
        break;
    case JBOF_NBD_OPT_STRUCTURED_REPLY:
        opt_structured(hs, len, &o);
        break;
    case JBOF_NBD_OPT_LIST_META_CONTEXT:
    case JBOF_NBD_OPT_SET_META_CONTEXT:
        opt_meta(hs, ex, nex, opt, d, len, &o);
        break;
    default: /* STARTTLS, extended headers, unknown */
        put_error(&o, opt, JBOF_NBD_REP_ERR_UNSUP, NULL);
        break;
    }
    if (o.err)
        return o.err;
    *out_len = o.len;
    return (int)need;
}

/* ------------------------------------------------------ transmission ---- */

int jbof_nbd_parse_request(const uint8_t *in, size_t in_len, jbof_nbd_request *out)
{
    if ((!in && in_len) || !out)
        return -EINVAL;
    if (in_len < sizeof(struct jbof_nbd_wire_request))
        return 0;
    if (be32_load(in) != JBOF_NBD_REQUEST_MAGIC)
        return -EPROTO;
    out->flags = be16_load(in + 4);
    out->type = be16_load(in + 6);
    out->handle = be64_load(in + 8);
    out->offset_bytes = be64_load(in + 16);
    out->length_bytes = be32_load(in + 24);
    return (int)sizeof(struct jbof_nbd_wire_request);
}

int jbof_nbd_check_request(const jbof_nbd_request *r, const jbof_nbd_export *ex)
{
    return jbof_nbd_check_request_neg(r, ex, 0);
}

int jbof_nbd_check_request_neg(const jbof_nbd_request *r, const jbof_nbd_export *ex, uint32_t neg)
{
    if (!r || !ex)
        return -EINVAL;
    uint16_t allowed;
    switch (r->type) {
    case JBOF_NBD_CMD_READ:
        allowed = JBOF_NBD_CMD_FLAG_FUA |
                  ((neg & JBOF_NBD_NEG_STRUCTURED) ? JBOF_NBD_CMD_FLAG_DF : 0);
        break;
    case JBOF_NBD_CMD_CACHE:
        allowed = 0;
        break;
    case JBOF_NBD_CMD_BLOCK_STATUS:
        if (!(neg & JBOF_NBD_NEG_META_ALLOC))
            return -EINVAL; /* no context negotiated: not allowed */
        allowed = JBOF_NBD_CMD_FLAG_REQ_ONE;
        break;
    case JBOF_NBD_CMD_WRITE:
    case JBOF_NBD_CMD_FLUSH:
    case JBOF_NBD_CMD_TRIM:
    case JBOF_NBD_CMD_DISC:
        allowed = JBOF_NBD_CMD_FLAG_FUA;
        break;
    case JBOF_NBD_CMD_WRITE_ZEROES:
        allowed = JBOF_NBD_CMD_FLAG_FUA | JBOF_NBD_CMD_FLAG_NO_HOLE | JBOF_NBD_CMD_FLAG_FAST_ZERO;
        break;
    default:
        return -EINVAL;
    }
    if (r->flags & ~allowed)
        return -EINVAL;
    if (r->type == JBOF_NBD_CMD_DISC)
        return 0;
    if (r->type == JBOF_NBD_CMD_WRITE && r->length_bytes > ex->max_payload_bytes)
        return -EMSGSIZE;
    if (r->type == JBOF_NBD_CMD_READ && r->length_bytes > ex->max_payload_bytes)
        return -EINVAL;
    if (r->type == JBOF_NBD_CMD_FLUSH)
        return (r->offset_bytes || r->length_bytes) ? -EINVAL : 0;
    if (r->type == JBOF_NBD_CMD_BLOCK_STATUS && r->length_bytes == 0)
        return -EINVAL;
    int writes = r->type == JBOF_NBD_CMD_WRITE || r->type == JBOF_NBD_CMD_WRITE_ZEROES;
    if ((writes || r->type == JBOF_NBD_CMD_TRIM) && (ex->tflags & JBOF_NBD_FLAG_READ_ONLY))
        return -EPERM;
    uint32_t blk = ex->min_block_bytes ? ex->min_block_bytes : 1;
    if (r->offset_bytes % blk || r->length_bytes % blk)
        return -EINVAL;
    if (r->offset_bytes > ex->size_bytes || r->length_bytes > ex->size_bytes - r->offset_bytes)
        return writes ? -ENOSPC : -EINVAL;
    return 0;
}

int jbof_nbd_simple_reply(uint8_t *out, size_t cap, uint64_t handle, int err)
{
    if (!out)
        return -EINVAL;
    if (cap < sizeof(struct jbof_nbd_wire_simple_reply))
        return -ENOBUFS;
    struct jbof_nbd_wire_simple_reply w;
    be32_store(w.magic, JBOF_NBD_SIMPLE_REPLY_MAGIC);
    be32_store(w.error, jbof_nbd_errno_to_wire(err));
    be64_store(w.handle, handle);
    memcpy(out, &w, sizeof(w));
    return (int)sizeof(w);
}

int jbof_nbd_build_request(uint8_t *out, size_t cap, const jbof_nbd_request *r)
{
    if (!out || !r)
        return -EINVAL;
    if (cap < sizeof(struct jbof_nbd_wire_request))
        return -ENOBUFS;
    struct jbof_nbd_wire_request w;
    be32_store(w.magic, JBOF_NBD_REQUEST_MAGIC);
    be16_store(w.flags, r->flags);
    be16_store(w.type, r->type);
    be64_store(w.handle, r->handle);
    be64_store(w.offset, r->offset_bytes);
    be32_store(w.length, r->length_bytes);
    memcpy(out, &w, sizeof(w));
    return (int)sizeof(w);
}

/* -------------------------------------------------- structured replies ---- */

int jbof_nbd_chunk_header(uint8_t *out, size_t cap, uint64_t handle, uint16_t flags,
                          uint16_t type, uint32_t length)
{
    if (!out)
        return -EINVAL;
    if (cap < sizeof(struct jbof_nbd_wire_chunk))
        return -ENOBUFS;
    struct jbof_nbd_wire_chunk w;
    be32_store(w.magic, JBOF_NBD_STRUCTURED_REPLY_MAGIC);
    be16_store(w.flags, flags);
    be16_store(w.type, type);
    be64_store(w.handle, handle);
    be32_store(w.length, length);
    memcpy(out, &w, sizeof(w));
    return (int)sizeof(w);
}

int jbof_nbd_read_chunk(uint8_t *out, size_t cap, uint64_t handle, uint64_t offset, uint32_t data_len)
{
    if (!out || data_len > UINT32_MAX - 8)
        return -EINVAL;
    if (data_len == 0) /* OFFSET_DATA must carry data: an empty READ is NONE */
        return jbof_nbd_chunk_header(out, cap, handle, JBOF_NBD_REPLY_FLAG_DONE,
                                     JBOF_NBD_REPLY_TYPE_NONE, 0);
    if (cap < JBOF_NBD_READ_CHUNK_HDR_BYTES)
        return -ENOBUFS;
    jbof_nbd_chunk_header(out, cap, handle, JBOF_NBD_REPLY_FLAG_DONE,
                          JBOF_NBD_REPLY_TYPE_OFFSET_DATA, 8 + data_len);
    be64_store(out + 20, offset);
    return JBOF_NBD_READ_CHUNK_HDR_BYTES;
}

int jbof_nbd_error_chunk(uint8_t *out, size_t cap, uint64_t handle, int err)
{
    uint32_t wire = jbof_nbd_errno_to_wire(err);
    if (!out || wire == 0)
        return -EINVAL;
    if (cap < JBOF_NBD_ERROR_CHUNK_BYTES)
        return -ENOBUFS;
    jbof_nbd_chunk_header(out, cap, handle, JBOF_NBD_REPLY_FLAG_DONE, JBOF_NBD_REPLY_TYPE_ERROR, 6);
    be32_store(out + 20, wire);
    be16_store(out + 24, 0); /* no message */
    return JBOF_NBD_ERROR_CHUNK_BYTES;
}

int jbof_nbd_block_status_header(uint8_t *out, size_t cap, uint64_t handle, uint32_t ctx_id, uint32_t n)
{
    if (!out || n == 0 || n > JBOF_NBD_EXTENTS_MAX)
        return -EINVAL;
    if (cap < JBOF_NBD_BS_CHUNK_HDR_BYTES)
        return -ENOBUFS;
    jbof_nbd_chunk_header(out, cap, handle, JBOF_NBD_REPLY_FLAG_DONE,
                          JBOF_NBD_REPLY_TYPE_BLOCK_STATUS, 4 + 8 * n);
    be32_store(out + 20, ctx_id);
    return JBOF_NBD_BS_CHUNK_HDR_BYTES;
}

int jbof_nbd_encode_extents(uint8_t *out, size_t cap, const jbof_nbd_extent *ext, uint32_t n)
{
    if (!out || (!ext && n) || n > JBOF_NBD_EXTENTS_MAX)
        return -EINVAL;
    if (cap < 8ull * n)
        return -ENOBUFS;
    for (uint32_t i = 0; i < n; i++) {
        jbof_nbd_extent x = ext[i]; /* copy first: out may alias ext */
        struct jbof_nbd_wire_extent w;
        be32_store(w.length, x.length_bytes);
        be32_store(w.flags, x.flags);
        memcpy(out + 8 * (size_t)i, &w, sizeof(w));
    }
    return (int)(8 * n);
}
