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
 *    TRIM costs a_r, WRITE_ZEROES costs a_w * wf (no data moves) -- unless
 *    the drive may move data for them: then both cost a write of their
 *    length (section 6).
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
 *
 * 5. qos prices wf on the data only (ours, issue 11, the work invariant;
 *    docs/scheduler-log.md section 24 has the sweep numbers), while it
 *    paces with one bucket (sched.c section 18; with two buckets, the
 *    paper's price):
 *
 *        qos:    cost(write, n) = a_w + b_w * n * wf     FLUSH, WZ: a_w
 *        gimbal: cost(write, n) = (a_w + b_w * n) * wf   (the paper, kept)
 *
 *    In the drive model (ssd.c) a write's command costs what a read's does
 *    (cmd_ns on the controller, same fixed path); only its bytes cost more
 *    (programs, GC).  Multiplying a_w by wf made a 512 B write at wf 8 cost
 *    32 KB (8x a 512 B read), so 131K small writes/s reached the 4 GiB/s
 *    cost ceiling (ctl.c section 6) with the drive 1-9 IOs deep (section
 *    21a there).  Now it costs 7.7 KB at wf 8, 4 KiB 36.4 KB (was 61.4
 *    KB), 128 KiB 1.05 MB (was 1.08 MB: large writes barely change).
 *    The true relative cost, measured in the simulator (fifo, one tenant
 *    at QD 32, 1 s warm-up, 2 s measured, seed 1; MB/s read / MB/s write
 *    at the same size, random / sequential; large = 64 KiB .. 1 MiB):
 *      dct983             4 KiB 1034/447 = 2.3    large rand 3000/447 = 6.7
 *                         (fragmenting as it runs), seq 3000/1000 = 3.0
 *      dct983-fragmented  4 KiB 1034/164 = 6.3    large 3000/164-178 = 17-18
 *      sata-ssd           4 KiB 390/193 = 2.0     large rand 550/193 = 2.9,
 *                         seq 550/500 = 1.1
 *      sata-ssd-frag.     4 KiB 390/61 = 6.4      large 550/61-66 = 8.3-9.0
 *    In cost units (a 4 KiB read = 7680) a 4 KiB write's true cost on the
 *    clean dct983 is 2.3 x 7680 = 17.7 KB: wf 3.4 with this section's
 *    pricing, 2.3 with gimbal's.  Read latency (a 4 KiB QD-4 random
 *    reader, fifo, 88 us alone on dct983, 112 us on SATA) beside an
 *    open-loop 128 KiB stream: dct983 +250 MB/s of writes +11 us, of reads
 *    +1 us; +900 MB/s writes +35 us, reads +2 us; sata-ssd +250 MB/s
 *    writes +60 us, reads +28 us; +450 MB/s writes +62 us, reads +96 us
 *    (reads then saturate the link); sata-ssd-fragmented +59 MB/s writes
 *    +62 us, reads +6 us.
 *    What the estimator (section 3) learns on the same loads, qos, 3 s
 *    after 1 s (mean wf): alone, a 128 KiB sequential writer at QD 32 sits
 *    at wf 9.0 on every preset (true 1.1-18), a 4 KiB random writer at
 *    1.35 on dct983 and 8.8 on sata-ssd (true 2.0); beside a 4 KiB QD-32
 *    reader, 5.2-5.8 on dct983 (writes of 4 KiB or 128 KiB), 9.0 on every
 *    other preset (sata-ssd's 128 KiB writes included, true 1.1-2.9).
 *    "Slow" means the write EWMA above the read-learned threshold
 *    (ctl.c 3b), and a writer queueing behind the drive's full buffer is
 *    slow however little it costs the reads: wf is a saw-tooth around
 *    7-9 whenever a buffer fills, not a relative cost.
 *    Dropped: counting a slow write only while reads also suffer (a read
 *    sample in the last 100 ms and the read EWMA above the threshold) --
 *    writers alone then decay to wf 1.35 (was 9.0) and the mixed loads
 *    above are unchanged, but the 200-mix sweeps do not move (seed 1 86
 *    -> 86, every row equal; seed 2 84 -> 85, weights 46 -> 47, jain 5
 *    -> 6; on top of this section: 85 -> 85 / 75 -> 76): a writer
 *    alone is not paced anyway (sched.c section 3, Alone), and beside
 *    readers the reads do suffer.
 *
 * 6. Zeroing that writes (WRITE_ZEROES, TRIM; helper c63).  The problem:
 *    section 2 prices a WRITE_ZEROES as one command whatever its length,
 *    and NBD allows 4 GiB - 1 per command.  That is right where zeroing is
 *    metadata, and a QoS bypass where it is not: a tenant could then move
 *    gigabytes of device writes per second at the price of a few small
 *    commands, and every other tenant's share of the drive would pay for
 *    them.  Linux's blk-iocost does not charge REQ_OP_WRITE_ZEROES either
 *    (it is not a read or a write there), so there is no upstream rule to
 *    copy; the right price depends on what the backend does:
 *      memory      MADV_DONTNEED whole pages, memset the edges: metadata
 *      emulated    the model (ssd.c 8) deallocates: no link transfer, at
 *                  most one page of buffer, TRIM's effect on
 *                  fragmentation; a command longer than 32 MiB is refused
 *                  by the model and completes at once
 *      file        fallocate: ZERO_RANGE for NO_HOLE, else PUNCH_HOLE
 *        regular   metadata where the file system has the mode; where it
 *                  says EOPNOTSUPP, WRITE_ZEROES writes a 1 MiB zero
 *                  buffer over the range chunk by chunk (tmpfs: no
 *                  ZERO_RANGE); TRIM is then skipped (a hint)
 *        block     blkdev_fallocate: ZERO_RANGE is blkdev_issue_zeroout,
 *                  which writes zero pages where the device has no WRITE
 *                  ZEROES; PUNCH_HOLE is the device's WRITE ZEROES (unmap
 *                  allowed, no kernel fallback) -- and our zero buffer if
 *                  the device has none.  TRIM is that same PUNCH_HOLE, not
 *                  a discard.  What the device does with WRITE ZEROES
 *                  cannot be seen from here: many deallocate, some write.
 *    The rule: the backend reports which zeroing requests it may carry out
 *    by writing (jbof_backend.zero_writes, JBOF_ZW_*): a block device all
 *    of them, FAST_ZERO and TRIM included; a regular file the fallocate
 *    modes its file system refused -- asked once at open on a 4 KiB range
 *    past the end of the file (KEEP_SIZE: no byte of the drive touched),
 *    and learned again from any WRITE_ZEROES whose fallocate fails, kept
 *    for the life of the drive; memory and emulated none.  A FAST_ZERO
 *    request on a file never falls back (the client gets ENOTSUP), so it
 *    is a command.  The engine (io.c req_submit) sets JBOF_IO_ZERO_WRITES
 *    on such an IO, and cost_of prices it as a WRITE of its length:
 *
 *        qos:    a_w + b_w * n * wf     gimbal: (a_w + b_w * n) * wf
 *
 *    The operator overrides per drive (zero_cost: command for a device
 *    known to deallocate, write to charge every zeroing; default auto).
 *    Such an IO goes to the scheduler in pieces of 1 MiB (ZERO_PIECE_BYTES,
 *    the zero buffer's size), one piece of a request at a time, each
 *    priced as a 1 MiB write; the reply waits for the last.  The price
 *    alone is not enough: one 1 GiB IO priced as a write still holds a
 *    serial drive for its whole length once dispatched, and puts the
 *    token bucket 1 GiB (x wf) in debt.  Measured (test_zero_cost.c (3):
 *    qos, a fake serial drive of 2 GB/s whose writes cost 4x a read's
 *    bytes, a 4 KiB QD-32 reader beside z zeroing 1 GiB per request,
 *    QD 1, 3 s after 1 s):
 *      z as                                 z MB/s  reader MB/s  p99
 *      1 GiB commands (before section 6)       716          0.0  2.1 s
 *      1 GiB priced as a write, not split      358          0.0  -
 *      1 MiB pieces priced as writes           459         57.3  2.3 ms
 *      1 MiB writes (a writer, same bytes)     459         57.3  2.3 ms
 *      metadata zeroing, 1 GiB commands    8.1e6          984.6  133 us
 *    The pieces are served exactly as the writer is because the scheduler
 *    also completes them as writes (sched.c complete_t: the controller's
 *    write samples, the write factor's slow writes, the write byte
 *    counters); priced as writes but completed as "other" they got 305
 *    MB/s and the reader 116.5 MB/s, p99 3.1 ms (the controller and the
 *    write factor never saw them).  Live, before the pieces (a file on
 *    tmpfs, wf 1, the controller at its 50 MiB/s floor, a 4 KiB QD-1
 *    reader beside 1 GiB NO_HOLE zeroes), the whole price sent the
 *    reader's p99 to 7.6 s.  A piece also keeps the cost far below
 *    section 4's 4 GiB saturation (1 MiB x wf <= 64 MiB).
 *    Bounds: a zeroing request that writes costs exactly what the same
 *    bytes cost as 1 MiB writes, plus nothing for its own header; it holds
 *    one request slot and no data buffer; its pieces are never more than
 *    one in the scheduler, and a piece finding its tenant's SQ full waits
 *    on the drive (io.c zero_retry) without holding up other tenants'.
 *    Worked example (dct983 pricing, qos, wf 9): a 1 GiB WRITE_ZEROES on a
 *    block device is 1024 pieces of 3584 + 9 x 1 MiB = 9.44 MB, 9.67 GB
 *    in all -- the same as 1024 1 MiB writes; on a regular file with
 *    ZERO_RANGE, or a memory drive, one command: 3584.
 *
 * 7. A fast decay, and its undo (ours; sched.c section 76).  qos passes
 *    cost_period_end fast = 1 for a period in which the price alone held
 *    the drive back and the tenants' cost shares kept their weights; such
 *    a period takes wf halfway down to 3 (FAST_FLOOR_X256) instead of
 *    -0.5, and wf_fast0 keeps the price the run of fast periods started
 *    from.  The run ends at the first period that is not fast; a slow
 *    write inside it restores wf_fast0 at once (cost_on_slow_write), since
 *    the cut price is what filled the buffer.  Gimbal never passes fast:
 *    its price is section 3's rule exactly.
 *
 * 8. A double decay (ours; sched.c sections 306 / 337).  qos passes
 *    cost_period_end COST_PERIOD_DOUBLE for a fair period in which only
 *    large reads held the latency over the band while the writes completed
 *    under it (the sata-ssd work group of docs/scheduler-log.md 303): the
 *    ordinary -0.5, then another 0.5 while wf stays above 3 + 0.5, so the
 *    second step never takes it under 3 (FAST_FLOOR_X256).  No run is
 *    noted (wf_fast0 stays 0): a slow write in a later period climbs from
 *    wherever the price is, as after ordinary decays.
 */
#include <errno.h>
#include <string.h>

#include "jbof_internal.h"

enum {
    WF_ONE_X256 = 256,
    WF_DECAY_X256 = 128, /* 0.5 per period */
    FAST_FLOOR_X256 = 3 * 256, /* sched.c section 76: the fast decay's target */
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
 * halfway up, else decay.  A fast period (sched.c section 76: the price
 * alone binds and the shares held) decays halfway down to 3 and notes the
 * price its run of fast steps started from; a slow write before the next
 * period that is not fast restores that price at once (cost_on_slow_write),
 * any period that is not fast ends the run.  A double period (section 8
 * above) decays twice, the second step only while wf stays above 3. */
void cost_period_end(cost_state *c, uint64_t now_ns, int mode)
{
    uint32_t wf = c->wf_x256;
    uint32_t lo = c->cfg.write_factor_min_x256, hi = c->cfg.write_factor_max_x256;
    if (!c->w_slow && mode == COST_PERIOD_FAST && wf > FAST_FLOOR_X256) {
        if (!c->wf_fast0)
            c->wf_fast0 = wf;
        wf = (wf + FAST_FLOOR_X256) / 2 > lo ? (wf + FAST_FLOOR_X256) / 2 : lo;
    } else {
        c->wf_fast0 = 0;
        if (c->w_slow)
            wf = (wf + hi + 1) / 2;
        else
            wf = wf > lo + WF_DECAY_X256 ? wf - WF_DECAY_X256 : lo;
        if (!c->w_slow && mode == COST_PERIOD_DOUBLE && wf > FAST_FLOOR_X256 + WF_DECAY_X256)
            wf -= WF_DECAY_X256;
    }
    c->wf_x256 = wf;
    c->w_slow = 0;
    c->period_start_ns = now_ns;
}
