/* cost.c section 6: WRITE_ZEROES and TRIM priced by what the drive does
 * with them.  (1) The engine's rule (backend.h zero_writes_flag) over every
 * backend capability, opcode, NBD flag and zero_cost; (2) what the
 * scheduler charges (jbof_sched_submit) for a large WRITE_ZEROES with and
 * without JBOF_IO_ZERO_WRITES under qos, gimbal and drr: with it, exactly
 * a WRITE of the same length; without it, the command.  The live engine's
 * side (memory, emulated, a file on tmpfs, zero_cost write) is in
 * test_reactor.c zero_pricing.  (3) A closed loop against a fake drive:
 * a tenant zeroing 1 GiB per request beside a 4 KiB reader, on a drive
 * whose zeroing writes data, is served like a writer of 1 MiB writes --
 * with the engine's pieces (io.c 3b) -- and, priced as one command
 * (before section 6), takes the drive and the reader's latency with it;
 * on a drive that zeroes in metadata it is not held back. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "jbof.h"
#include "../../csrc/jbof_internal.h"
#include "../../csrc/backend.h"
#include "testing.h"

static jbof_io zio(uint8_t op, uint8_t flags, uint32_t len)
{
    jbof_io io;
    memset(&io, 0, sizeof io);
    io.opcode = op;
    io.flags = flags;
    io.length_bytes = len;
    return io;
}

static void test_rule(void)
{
    const uint8_t WZ = JBOF_OP_WRITE_ZEROES, NH = JBOF_BREQ_NO_HOLE, FZ = JBOF_BREQ_FAST_ZERO;
    const uint32_t BLK = JBOF_ZW_HOLE | JBOF_ZW_NO_HOLE | JBOF_ZW_TRIM | JBOF_ZW_FAST;
    const uint8_t Z = JBOF_IO_ZERO_WRITES;
    /* capability, op, flags -> flag under auto */
    static const struct {
        uint32_t zw;
        uint8_t op, flags, want;
    } rows[] = {
        /* memory, emulated, a file with both fallocate modes: metadata only */
        {0, JBOF_OP_WRITE_ZEROES, 0, 0},
        {0, JBOF_OP_WRITE_ZEROES, JBOF_BREQ_NO_HOLE, 0},
        {0, JBOF_OP_TRIM, 0, 0},
        /* tmpfs: PUNCH_HOLE yes, ZERO_RANGE no */
        {JBOF_ZW_NO_HOLE, JBOF_OP_WRITE_ZEROES, 0, 0},
        {JBOF_ZW_NO_HOLE, JBOF_OP_WRITE_ZEROES, JBOF_BREQ_NO_HOLE, JBOF_IO_ZERO_WRITES},
        {JBOF_ZW_NO_HOLE, JBOF_OP_WRITE_ZEROES, JBOF_BREQ_NO_HOLE | JBOF_BREQ_FAST_ZERO, 0},
        {JBOF_ZW_NO_HOLE, JBOF_OP_TRIM, 0, 0},
        /* no fallocate at all */
        {JBOF_ZW_HOLE | JBOF_ZW_NO_HOLE, JBOF_OP_WRITE_ZEROES, 0, JBOF_IO_ZERO_WRITES},
        {JBOF_ZW_HOLE | JBOF_ZW_NO_HOLE, JBOF_OP_WRITE_ZEROES, JBOF_BREQ_FAST_ZERO, 0},
        {JBOF_ZW_HOLE | JBOF_ZW_NO_HOLE, JBOF_OP_TRIM, 0, 0},
        /* a block device: every zeroing, FAST_ZERO and TRIM included */
        {JBOF_ZW_HOLE | JBOF_ZW_NO_HOLE | JBOF_ZW_TRIM | JBOF_ZW_FAST, JBOF_OP_WRITE_ZEROES, 0, JBOF_IO_ZERO_WRITES},
        {JBOF_ZW_HOLE | JBOF_ZW_NO_HOLE | JBOF_ZW_TRIM | JBOF_ZW_FAST, JBOF_OP_WRITE_ZEROES, JBOF_BREQ_FAST_ZERO,
         JBOF_IO_ZERO_WRITES},
        {JBOF_ZW_HOLE | JBOF_ZW_NO_HOLE | JBOF_ZW_TRIM | JBOF_ZW_FAST, JBOF_OP_TRIM, JBOF_IO_FUA, JBOF_IO_ZERO_WRITES},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        jbof_io io = zio(rows[i].op, rows[i].flags, 1u << 30);
        CHECK_EQ(zero_writes_flag(JBOF_ZERO_COST_AUTO, rows[i].zw, &io), rows[i].want);
        /* the overrides ignore the backend */
        CHECK_EQ(zero_writes_flag(JBOF_ZERO_COST_COMMAND, rows[i].zw, &io), 0);
        CHECK_EQ(zero_writes_flag(JBOF_ZERO_COST_WRITE, rows[i].zw, &io), Z);
    }
    /* READ, WRITE and FLUSH never carry it, whatever the drive */
    for (uint32_t zc = 0; zc < JBOF_ZERO_COST_COUNT; zc++)
        for (uint8_t op = JBOF_OP_READ; op <= JBOF_OP_FLUSH; op++) {
            jbof_io io = zio(op, JBOF_IO_FUA | NH | FZ, 4096);
            CHECK_EQ(zero_writes_flag(zc, BLK, &io), 0);
        }
    jbof_io io = zio(WZ, NH | FZ, 4096); /* block device, FAST_ZERO with NO_HOLE: refused at submit */
    CHECK_EQ(zero_writes_flag(JBOF_ZERO_COST_AUTO, BLK, &io), Z);
}

/* What the scheduler charges for one IO of op/flags/len (set at submit;
 * the IO is flushed back out of the SQ undispatched). */
static uint32_t charged(jbof_sched *s, uint32_t tid, uint8_t op, uint8_t flags, uint32_t len)
{
    jbof_io io = zio(op, flags, len);
    io.tenant = tid;
    CHECK_EQ(jbof_sched_submit(s, &io, 0), 0);
    jbof_io *out[1];
    CHECK_EQ(jbof_sched_tenant_flush(s, tid, out, 1, 0), 1);
    CHECK(out[0] == &io);
    return io.cost;
}

static void test_price(uint32_t policy, uint32_t wf_x256)
{
    jbof_sched_cfg c;
    CHECK_EQ(jbof_sched_default_cfg(policy, &c), 0);
    c.cost.learn = 0;
    c.cost.write_factor_init_x256 = wf_x256;
    if (c.cost.write_factor_min_x256 > wf_x256)
        c.cost.write_factor_min_x256 = wf_x256;
    jbof_sched *s = NULL;
    CHECK_EQ(jbof_sched_create(&c, &s), 0);
    if (!s)
        return;
    jbof_tenant_cfg t;
    jbof_tenant_default_cfg(&t);
    uint32_t id;
    CHECK_EQ(jbof_sched_tenant_add(s, &t, 0, &id), 0);
    const uint8_t WZ = JBOF_OP_WRITE_ZEROES, Z = JBOF_IO_ZERO_WRITES;
    const uint64_t aw = c.cost.write_base_bytes, ar = c.cost.read_base_bytes;
    for (uint32_t len = 64u << 20; len; len = len == (64u << 20) ? (1u << 30) : len == (1u << 30) ? UINT32_MAX : 0) {
        uint32_t w = charged(s, id, JBOF_OP_WRITE, 0, len);
        uint64_t want; /* cost.c section 5's formulas, saturated */
        if (policy == JBOF_POLICY_DRR)
            want = len;
        else if (policy == JBOF_POLICY_QOS)
            want = aw + (((uint64_t)len * wf_x256) >> 8);
        else
            want = ((aw + len) * wf_x256) >> 8;
        CHECK_EQ(w, want > UINT32_MAX ? UINT32_MAX : want);
        /* with the flag: a WRITE of the same length, TRIM too */
        CHECK_EQ(charged(s, id, WZ, Z, len), w);
        CHECK_EQ(charged(s, id, WZ, Z | JBOF_BREQ_NO_HOLE | JBOF_BREQ_FAST_ZERO, len), w);
        CHECK_EQ(charged(s, id, JBOF_OP_TRIM, Z, len), w);
        /* without it: the command, whatever the length (drr: bytes) */
        uint64_t cmd = policy == JBOF_POLICY_DRR ? len
                       : policy == JBOF_POLICY_QOS ? aw : (aw * wf_x256) >> 8;
        CHECK_EQ(charged(s, id, WZ, 0, len), cmd);
        CHECK_EQ(charged(s, id, JBOF_OP_TRIM, 0, len), policy == JBOF_POLICY_DRR ? len : ar);
        /* READ and FLUSH ignore it */
        CHECK_EQ(charged(s, id, JBOF_OP_READ, Z, len), charged(s, id, JBOF_OP_READ, 0, len));
        CHECK_EQ(charged(s, id, JBOF_OP_FLUSH, Z, 0), charged(s, id, JBOF_OP_FLUSH, 0, 0));
    }
    /* 1 GiB at wf 9 (qos: 9 GiB of cost): saturated at 4 GiB, like the WRITE */
    if (policy == JBOF_POLICY_QOS && wf_x256 == 9 * 256)
        CHECK_EQ(charged(s, id, WZ, Z, 1u << 30), UINT32_MAX);
    jbof_sched_destroy(s);
}

/* ---- (3) the closed loop ---- */
enum { ZL_READER = 0, ZL_Z = 1, RQD = 32 };
static const uint64_t ZDRIVE_BPS = 2000000000ull, ZFIXED_NS = 80000;

typedef struct zloop {
    jbof_sched *s;
    uint32_t id[2];
    int mode;                 /* ZM_* */
    int dev_writes;           /* the drive writes the zeroed range */
    jbof_io rio[RQD], zio1;   /* the reader's IOs, z's one IO */
    uint64_t q_io[RQD + 1];   /* drive queue: index into rio (< RQD) or z (RQD) */
    uint64_t q_done[RQD + 1];
    int qn;
    uint64_t busy;
    uint64_t z_left;          /* bytes of z's request not yet done */
    uint64_t z_bytes, r_bytes;
    jbof_hist rlat;
} zloop;
enum { ZM_PIECES = 0, ZM_WHOLE = 1, ZM_WRITER = 2, ZM_WHOLE_PRICED = 3 };
static const uint64_t ZREQ = 1ull << 30;

static uint64_t zservice(const zloop *L, const jbof_io *io)
{
    uint64_t b = io->length_bytes, c = 4096;
    if (io->opcode == JBOF_OP_READ)
        c += b;
    else if (io->opcode == JBOF_OP_WRITE || L->dev_writes)
        c += 4 * b; /* the fake drive's write: 4x a read's bytes */
    return c * 1000000000ull / ZDRIVE_BPS;
}

static void z_next(zloop *L, uint64_t now)
{
    jbof_io *io = &L->zio1;
    memset(io, 0, sizeof *io);
    io->tenant = L->id[ZL_Z];
    io->tag = RQD;
    if (!L->z_left)
        L->z_left = ZREQ;
    if (L->mode == ZM_WRITER) {
        io->opcode = JBOF_OP_WRITE;
        io->length_bytes = 1u << 20;
    } else if (L->mode == ZM_PIECES) {
        io->opcode = JBOF_OP_WRITE_ZEROES;
        io->flags = L->dev_writes ? JBOF_IO_ZERO_WRITES : 0;
        io->length_bytes = 1u << 20;
    } else {
        io->opcode = JBOF_OP_WRITE_ZEROES;
        io->length_bytes = (uint32_t)ZREQ; /* one 1 GiB command */
        io->flags = L->mode == ZM_WHOLE_PRICED ? JBOF_IO_ZERO_WRITES : 0;
    }
    CHECK_EQ(jbof_sched_submit(L->s, io, now), 0);
}

static void r_next(zloop *L, int k, uint64_t now)
{
    jbof_io *io = &L->rio[k];
    memset(io, 0, sizeof *io);
    io->tenant = L->id[ZL_READER];
    io->tag = (uint64_t)k;
    io->opcode = JBOF_OP_READ;
    io->length_bytes = 4096;
    CHECK_EQ(jbof_sched_submit(L->s, io, now), 0);
}

/* 4 s of the loop under qos; z's bytes/s and the reader's p99 from 1 s on */
static void zrun(int mode, int dev_writes, double *z_mbps, double *r_p99_us, double *r_mbps)
{
    static zloop L;
    memset(&L, 0, sizeof L);
    L.mode = mode;
    L.dev_writes = dev_writes;
    jbof_hist_reset(&L.rlat);
    jbof_sched_cfg c;
    CHECK_EQ(jbof_sched_default_cfg(JBOF_POLICY_QOS, &c), 0);
    CHECK_EQ(jbof_sched_create(&c, &L.s), 0);
    if (!L.s)
        return;
    jbof_tenant_cfg t;
    jbof_tenant_default_cfg(&t);
    for (int i = 0; i < 2; i++)
        CHECK_EQ(jbof_sched_tenant_add(L.s, &t, 0, &L.id[i]), 0);
    const uint64_t WARM = 1000000000ull, END = 4000000000ull;
    uint64_t now = 0;
    for (int k = 0; k < RQD; k++)
        r_next(&L, k, now);
    z_next(&L, now);
    while (now < END) {
        jbof_io *out[64];
        int k;
        while ((k = jbof_sched_dispatch(L.s, now, out, 64)) > 0)
            for (int j = 0; j < k; j++) {
                uint64_t start = L.busy > now ? L.busy : now;
                L.busy = start + zservice(&L, out[j]);
                L.q_io[L.qn] = out[j]->tag;
                L.q_done[L.qn++] = L.busy + ZFIXED_NS;
            }
        uint64_t wake = jbof_sched_next_event_ns(L.s, now), t = UINT64_MAX;
        int b = -1;
        for (int i = 0; i < L.qn; i++)
            if (L.q_done[i] < t) {
                t = L.q_done[i];
                b = i;
            }
        if (wake < t) {
            now = wake;
            continue;
        }
        if (b < 0)
            break;
        now = t;
        uint64_t tag = L.q_io[b];
        L.q_io[b] = L.q_io[--L.qn];
        L.q_done[b] = L.q_done[L.qn];
        jbof_io *io = tag == RQD ? &L.zio1 : &L.rio[tag];
        CHECK_EQ(jbof_sched_complete(L.s, io, now, 0), 0);
        if (tag == RQD) {
            L.z_left -= io->length_bytes;
            if (now >= WARM)
                L.z_bytes += io->length_bytes;
            z_next(&L, now);
        } else {
            if (now >= WARM) {
                L.r_bytes += io->length_bytes;
                jbof_hist_record(&L.rlat, now - io->submit_ns);
            }
            r_next(&L, (int)tag, now);
        }
    }
    uint64_t p99 = 0;
    jbof_hist_quantile(&L.rlat, 0.99, &p99);
    double secs = (double)(END - WARM) / 1e9;
    *z_mbps = (double)L.z_bytes / secs / 1e6;
    *r_mbps = (double)L.r_bytes / secs / 1e6;
    *r_p99_us = (double)p99 / 1e3;
    jbof_sched_destroy(L.s);
}

static void test_loop(void)
{
    static const char *names[2][4] = {
        {"1 MiB commands", "1 GiB commands", "", ""},
        {"1 MiB pieces, priced as writes (section 6)", "1 GiB commands (before section 6)",
         "1 MiB writes (a writer of the same bytes)", "1 GiB priced as a write, not split"}};
    double z[2][4], p99[2][4], r[2][4];
    for (int dev = 1; dev >= 0; dev--)
        for (int m = 0; m < 4; m++) {
            if (!dev && m >= ZM_WRITER)
                continue;
            zrun(m, dev, &z[dev][m], &p99[dev][m], &r[dev][m]);
            printf("  %s drive, z: %-44s z %7.0f MB/s  reader %6.1f MB/s p99 %8.0f us\n",
                   dev ? "zeroing writes  " : "metadata zeroing", names[dev][m], z[dev][m], r[dev][m], p99[dev][m]);
        }
    /* zeroing that writes: served exactly like the writer of the same
     * bytes (459 MB/s, the reader 57.3 MB/s, p99 2.3 ms) -- its pieces are
     * priced as writes and sampled as writes (sched.c complete_t) */
    CHECK(z[1][ZM_PIECES] > 0.99 * z[1][ZM_WRITER] && z[1][ZM_PIECES] < 1.01 * z[1][ZM_WRITER]);
    CHECK(r[1][ZM_PIECES] > 0.99 * r[1][ZM_WRITER] && r[1][ZM_PIECES] < 1.01 * r[1][ZM_WRITER]);
    CHECK(p99[1][ZM_PIECES] < 1.01 * p99[1][ZM_WRITER]);
    /* as one command it took the drive from the reader (0 MB/s, p99 2.1 s) */
    CHECK(z[1][ZM_WHOLE] > z[1][ZM_WRITER]);
    CHECK(r[1][ZM_WHOLE] < 0.1 * r[1][ZM_WRITER]);
    CHECK(p99[1][ZM_WHOLE] > 100 * p99[1][ZM_WRITER]);
    /* priced whole but not split: the reader is starved all the same */
    CHECK(r[1][ZM_WHOLE_PRICED] < 0.1 * r[1][ZM_WRITER]);
    /* metadata zeroing (no flag): not held back, the reader unharmed */
    CHECK(z[0][ZM_WHOLE] > 10 * z[1][ZM_PIECES]);
    CHECK(z[0][ZM_PIECES] > 10 * z[1][ZM_PIECES]);
    CHECK(p99[0][ZM_WHOLE] < 0.5 * p99[1][ZM_WRITER]);
}

int main(void)
{
    test_rule();
    for (uint32_t wf = 256; wf <= 9 * 256; wf += 8 * 256) {
        test_price(JBOF_POLICY_QOS, wf);
        test_price(JBOF_POLICY_GIMBAL, wf);
        test_price(JBOF_POLICY_DRR, wf);
    }
    test_loop();
    TEST_SUMMARY();
}
