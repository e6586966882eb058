/* cost.c section 6: WRITE_ZEROES and TRIM priced by what the drive does
 * with them.  (1) The engine's rule (backend.h zero_writes_flag) over every
 * backend capability, opcode, NBD flag and zero_cost; (2) what the
 * scheduler charges (jbof_sched_submit) for a large WRITE_ZEROES with and
 * without JBOF_IO_ZERO_WRITES under qos, gimbal and drr: with it, exactly
 * a WRITE of the same length; without it, the command.  The live engine's
 * side (memory, emulated, a file on tmpfs, zero_cost write) is in
 * test_reactor.c zero_pricing. */
#include <errno.h>
#include <stdint.h>
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

int main(void)
{
    test_rule();
    for (uint32_t wf = 256; wf <= 9 * 256; wf += 8 * 256) {
        test_price(JBOF_POLICY_QOS, wf);
        test_price(JBOF_POLICY_GIMBAL, wf);
        test_price(JBOF_POLICY_DRR, wf);
    }
    TEST_SUMMARY();
}
