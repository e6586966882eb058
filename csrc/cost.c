/*
 * cost.c -- the IO cost model and the online write-factor estimator.
 *
 * 1. The problem.  A drive does not spend the same effort on every IO: a
 *    4 KiB random read costs a command's worth of controller and flash time
 *    for little data, a 128 KiB read mostly costs link bandwidth, and a write
 *    costs several times a read once the drive must program and garbage
 *    collect.  A fair scheduler must compare tenants in a unit that reflects
 *    drive effort, not bytes or IO counts.
 *
 * 2. The model.  Everything is priced in "read-byte equivalents" (cost
 *    bytes): what the drive spends to read that many bytes sequentially.
 *
 *        cost(read,  n) = a_r + b_r * n
 *        cost(write, n) = (a_w + b_w * n) * wf
 *
 *    a_* is the per-command overhead expressed in bytes, b_* a per-byte
 *    factor (x256 fixed point: 256 = 1.0), and wf the write factor, the
 *    current price of writing relative to reading.  FLUSH costs a_w * wf,
 *    TRIM costs a_r, WRITE_ZEROES costs a_w * wf (no data moves).
 *
 *    Worked example with the dct983 profile (a_r = a_w = 3584, b = 1.0):
 *    a 4 KiB random read costs 3584 + 4096 = 7680; a 128 KiB read costs
 *    3584 + 131072 = 134656, i.e. 17.5 4 KiB reads; at 400K IOPS the 4 KiB
 *    reads use 400000 * 7680 = 3.07e9 cost-bytes/s, the same budget that
 *    3 GB/s of 128 KiB reads use -- which is why a_r is 3.5 KiB.  With the
 *    starting Gimbal write factor 9, a 128 KiB write costs 1.24 MB.
 *
 * 3. Estimating the write factor online (Gimbal's rule, learn = 1).  Every
 *    period (100 ms) we look at the write completions of the period.  If
 *    any of them was "slow" -- its latency sample was above the latency
 *    controller's current threshold (ctl.c) -- writes are hurting the drive,
 *    and wf moves halfway to its maximum: wf = (wf + max) / 2.  Otherwise wf
 *    decays by 0.5 towards its minimum.  Clamped to [min, max] (Gimbal: 1..9).
 *    With learn = 0 the factor stays at its initial value.
 *
 *    Worked example: wf = 9 at start; a drive absorbing writes in its buffer
 *    shows no slow writes, so after 1 s (10 periods) wf = 9 - 10 * 0.5 = 4;
 *    when the buffer fills and write latency crosses the threshold, the next
 *    period sets wf = (4 + 9) / 2 = 6.5, throttling writers at once.
 *
 *    The catch: a drive's write buffer hides write cost until it is full,
 *    so the writes themselves look fast while they wreck read latency, then
 *    slow all at once.  wf saw-tooths between those two moments.
 *
 * 4. Fixed point.  wf is x256 so cost_of is one multiply and one shift on
 *    the IO path; cost saturates at UINT32_MAX (4 GiB of cost per IO).
 */
#include <errno.h>
#include <string.h>

#include "jbof_internal.h"

enum {
    WF_ONE_X256 = 256,
    WF_DECAY_X256 = 128, /* 0.5 per period */
};

int cost_cfg_check(const jbof_cost_cfg *cfg)
{
    if (!cfg)
        return -EINVAL;
    if (cfg->read_per_byte_x256 == 0 || cfg->write_per_byte_x256 == 0)
        return -EINVAL;
    if (cfg->read_per_byte_x256 > 256 * 64 || cfg->write_per_byte_x256 > 256 * 64)
        return -EINVAL;
    if (cfg->read_base_bytes > (1u << 24) || cfg->write_base_bytes > (1u << 24))
        return -EINVAL;
    if (cfg->write_factor_min_x256 < 64 || cfg->write_factor_max_x256 > 256 * 64 ||
        cfg->write_factor_min_x256 > cfg->write_factor_max_x256)
        return -EINVAL;
    if (cfg->write_factor_init_x256 < cfg->write_factor_min_x256 ||
        cfg->write_factor_init_x256 > cfg->write_factor_max_x256)
        return -EINVAL;
    if (cfg->learn > 1)
        return -EINVAL;
    if (cfg->learn && (cfg->period_ns < 1000000ull || cfg->period_ns > 60 * JBOF_NS_PER_S))
        return -EINVAL;
    return 0;
}

void cost_init(cost_state *c, const jbof_cost_cfg *cfg, uint64_t now_ns)
{
    memset(c, 0, sizeof(*c));
    c->cfg = *cfg;
    c->wf_x256 = cfg->write_factor_init_x256;
    c->period_start_ns = now_ns;
}

/* One period is over (sched.c complete_due): writes looked slow ->
 * halfway up, else decay. */
void cost_period_end(cost_state *c, uint64_t now_ns)
{
    uint32_t wf = c->wf_x256;
    uint32_t lo = c->cfg.write_factor_min_x256, hi = c->cfg.write_factor_max_x256;
    if (c->w_slow)
        wf = (wf + hi + 1) / 2;
    else
        wf = wf > lo + WF_DECAY_X256 ? wf - WF_DECAY_X256 : lo;
    c->wf_x256 = wf;
    c->w_slow = 0;
    c->period_start_ns = now_ns;
}
