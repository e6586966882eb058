/*
 * ctl.c -- per-drive latency-feedback controller (after Gimbal, SIGCOMM'21).
 *
 * 1. The problem.  An NVMe drive accepts far more commands than it can
 *    serve at once.  Past its internal parallelism every extra command only
 *    waits inside the drive, where no scheduler can reorder it: one tenant's
 *    deep queue becomes everybody's latency.  The controller keeps the drive
 *    just below that knee, so the excess waits in the per-tenant submission
 *    queues, where sched.c can be fair about it.
 *
 * 2. The signal.  Every completion gives a device latency sample (dispatch
 *    to completion).  Reads and writes are tracked apart, each as an EWMA
 *    with weight 1/2^ewma_shift (Gimbal: 1/2; qos: 1/8, since with 1/2 one
 *    4 KiB read queued behind a 1 MiB transfer reads as overload and clamps
 *    the rate for everyone; a later copy of Gimbal's code uses 1/16):
 *
 *        ewma += (sample - ewma) >> shift
 *
 *    With size_normalize (ours), a sample of an IO larger than 128 KiB is
 *    scaled down to its 128 KiB share first, so that a 1 MiB read's long
 *    transfer is not mistaken for congestion.
 *
 * 3. The states.  The EWMA of the completing IO's kind is compared with a
 *    band [lat_min, lat_max] (Gimbal: 250 us .. 1500 us) and a dynamic
 *    threshold inside it that starts at lat_max:
 *
 *      ewma >  lat_max     OVERLOADED  clearly past the knee: the rate drops
 *                                      to the completion rate measured over
 *                                      the last window, the token bucket is
 *                                      emptied, and the threshold moves
 *                                      halfway down to lat_min (hysteresis:
 *                                      we now know where trouble starts);
 *      ewma >  threshold   CONGESTION  rate -= cost of the IO;
 *      ewma >= lat_min     OK          rate += cost of the IO, threshold
 *                                      creeps back up by 1/256 of its gap;
 *      ewma <  lat_min     SLOWSTART   rate += 8 * cost: the drive is idle.
 *
 *    The rate is clamped to [rate_min, rate_max] (Gimbal: 50 MiB/s, 4 GiB/s)
 *    and starts at rate_init (1000 MiB/s).  "+= cost per completion" is an
 *    additive increase per IO, which at a fixed IO size grows the rate by a
 *    fixed fraction per round trip; the decrease mirrors it.
 *
 *    A latency SLO cap (target_cap_ns = half the tightest SLO of the active
 *    latency-critical tenants, set by sched.c in the qos policy) lowers the
 *    effective lat_max and threshold.  Those tenants' end-to-end latency is
 *    also tracked (EWMA 1/2, ctl_on_lc): above the cap it counts as
 *    congestion, above twice the cap (the SLO itself) as overload, whatever
 *    the drive's own EWMAs say.
 *
 * 3b. A learned band (ours, band_lo_pct/band_hi_pct).  Gimbal's constants
 *    fit the drives of its paper; on a drive whose 4 KiB read takes 85 us
 *    unloaded, 250..1500 us lets reads queue 3-15 deep inside the drive
 *    before anything reacts.  So the qos policy learns the drive's unloaded
 *    read latency -- the smallest sample of a read of <= 16 KiB in the last
 *    two 1 s windows, the way BBR learns min RTT -- and sets the band
 *    relative to it:
 *
 *        lo = base * band_lo_pct / 100     hi = base * band_hi_pct / 100
 *
 *    (lo at least lat_min/4, hi within [lat_min/2, lat_max]: a RAM-backed
 *    device answering in 2 us gets 62..125 us, i.e. no steering, instead of
 *    a band made of host scheduling noise).  Worked example: base
 *    85 us, 150% / 300% -> band 128..255 us.  A 4 KiB reader at QD 32 alone
 *    (127 us mean) sits in the band, unthrottled; a 128 KiB writer that
 *    fills the drive's write buffer makes write latency jump to 400 us+, past
 *    hi: the controller backs off and the write-cost estimator (cost.c) sees
 *    slow writes.  Before the first read sample, the fixed band applies.
 *    The base's guard (sched.c section 194).  A drive may answer a read
 *    without a flash read of its own: from a NAND page register holding
 *    the page its unit read last, from a DRAM read cache, or at the end of
 *    a tR another read of the same page started.  Such a read completes in
 *    the command, transfer and fixed time alone (the dct983 model with
 *    ssd.c's page register: 16 us against an 84 us flash read; sata 29
 *    against 106), and the min filter took it for the floor: the band fell
 *    to its clamps (62..125 us) and every flash read read as congestion.
 *    So on a drive whose least read so far took at least lat_min /
 *    CTL_BASE_FLASH_DIV (4: 62.5 us, the band's own lo clamp -- a latency
 *    the band cannot steer under anyway), a small read under that moves
 *    neither the base nor base_min, unless for a whole base window no
 *    small read took longer (the drive is that fast now).  A drive whose
 *    reads are that fast from its first one (a low-latency SSD, a RAM-backed
 *    device) learns as before; one whose first read was a slow one learns
 *    its fast floor after 1-2 s instead of at once.  The backend cannot say
 *    which reads hit (the NBD / io_uring path sees completions only), so
 *    the guard is on latency alone.
 *    In this mode every completion is judged by the larger of the two
 *    EWMAs (the other one if it saw a sample in the last 100 ms): a write
 *    that lands in the buffer in 60 us says nothing about the reads it is
 *    stalling behind the buffer's programs.
 *
 *    The EWMAs take every sample; the state machine runs every 4th
 *    completion (or after 20 us), applying the summed cost of the
 *    completions since -- the additive terms add up, so this is the same
 *    controller at a quarter of the per-IO cost.  The per-completion part
 *    (ctl_sample: window sum, base check, EWMA step) is inline in
 *    jbof_internal.h, about 30 instructions, with no clock checks: the
 *    window's end and the evaluation's 20 us are deadlines that
 *    sched.c (due_rearm) folds into one compare with its own (its section 6), and
 *    only then, or with 4 completions pending, calls ctl_on_due, which
 *    rolls the window if it is over and says whether the state machine is
 *    due: the caller then computes what only the evaluation reads (its
 *    underfilled flag, section 5b) and calls ctl_evaluate, so the other
 *    completions skip that work.  The base check is two compares
 *    (base_gate_ns, base_roll_ns: ctl_base_gates).  The 10 ms
 *    window roll and the base update are out of line; ctl_evaluate is
 *    inline in jbof_internal.h (always_inline, its one caller is
 *    sched.c's complete_due: no call, no register saves, ~105
 *    instructions per run, ~24 per IO; sched.c section 6).  Worked
 *    example: at 400K IOPS the
 *    state machine runs 100K times a second; with rate 1000 MiB/s and four
 *    4 KiB reads completing below the band, one evaluation adds
 *    8 * 4 * 7680 = 245760 to the rate, exactly what four per-IO
 *    evaluations of 61440 each would.
 *
 * 3c. The SLO ceiling, steered by the SLO tenant's own tail (ours; sched.c
 *    section 81).  Half the tightest SLO is a guess at how far the drive
 *    may queue before the SLO tenant's tail reaches its SLO; where its tail
 *    sits well under that, the margin is utilization qos gives away (the
 *    tenant's p99 at 0.5-0.9 of a 200-500 us SLO with the cap at SLO / 2;
 *    gimbal, which ignores the SLO, keeps it).  So the band's ceiling
 *    (steer_ns; target_cap_ns itself, which sched.c's other SLO rules
 *    read, stays half the SLO) follows the tenant's completions, counted
 *    without a histogram in 50 ms windows (ctl_on_lc: two compares per SLO
 *    completion):
 *
 *      > 1 in 100 past the SLO         back to half the SLO at once;
 *      <= 1 in 100 past SLO x 3/4      up by SLO / 8, to SLO x 3/4 at most;
 *      otherwise                       unchanged.
 *
 *    A window needs 16 samples (it is dropped after 200 ms without them).
 *    Bounds: the ceiling is never under the fixed rule's half SLO (a
 *    tighter one bought nothing: the SLO tenant's p99 moved 0-0.1 x SLO
 *    while utilization fell up to 22%, docs/scheduler-log.md 81, V1), and
 *    never over SLO x 3/4 -- the learned band (3b) still caps it, and the
 *    steered value applies only where that band leaves it at least one
 *    step of room (band_hi >= cap x 5/4): an SLO whose half is near or over
 *    band_hi (500 us on a dct983 with band_hi 252 us, 1 ms and up) keeps
 *    the fixed rule, since a few microseconds of ceiling there only move
 *    the run's trajectory (the CI sample's s11-34 and s11-35, weights and
 *    starve new, docs/scheduler-log.md 81, V12).
 *    It does not relax while the cap is under the drive's floor (1.5 x
 *    base_min_ns): sched.c section 65 handles that case -- unless at most
 *    one best-effort tenant is active (steer_one, set by sched.c at each
 *    tail window; section 288): then the ceiling relaxes as above, and
 *    while more are active it is held at the cap.  Beside that one member
 *    a window past SLO x 3/4 still relaxes while at most 1 in 100 of its
 *    completions and of the remembered tail passed the SLO itself, the
 *    memory at least half full (lc_near_ok, section 296; 1 in 100 since
 *    section 301), and while lc_near_ok holds the ceiling may reach SLO x
 *    7/8 (CTL_LC_NEAR_MAX_X4, section 301).  Worked example:
 *    SLO 400 us, cap 200 us; four good windows take the ceiling to 250
 *    and 300 us (then held), 2 reads in 100 past 400 us put it back at
 *    200 us.  Since a QD-1 SLO tenant is idle between its IOs (cap 0 for
 *    an instant), the steered value belongs to the cap it was learned for
 *    (steer_cap_ns) and survives that; a new tightest SLO starts afresh.
 *
 * 3d. The band at 2 deep (ours; sched.c section 84).  3b's base is the
 *    least small read of two seconds; on a fragmented drive the median
 *    small read with <= 2 IOs in the drive is 4-17 x that, so the read
 *    EWMA sits past band_hi with nothing queued that pacing could remove,
 *    and OVERLOADED holds the rate at the completion rate for the whole
 *    run.  sched.c feeds shallow_ns, an EWMA (1/8) of small reads (<= 16
 *    KiB) that leave <= 1 IO in the drive (ctl_shallow_sample, out of
 *    line); while it is past band_hi, seen
 *    in the last 1 s, no SLO cap is set, and neither an SLO tenant's IO
 *    (ctl_on_lc) nor an IO > 128 KiB completed in the last 100 ms, the
 *    evaluation judges the read EWMA against
 *    3 x shallow_ns (band_hi_pct's width over the 2-deep latency; at most
 *    lat_max) by scaling it by band_hi / (3 x shallow_ns).  The write EWMA
 *    keeps the band: a 2-deep read says nothing about the write buffer,
 *    and with large writes around a lifted read ceiling starved them
 *    (docs/scheduler-log.md 84).  Worked example: base 84 us, band_hi
 *    252 us, 2-deep reads at 600 us: a 1 ms read EWMA is judged as
 *    1 ms x 252 / 1800 = 140 us, inside the band (OK), where 3b alone
 *    says OVERLOADED.  The inline evaluation (ctl_evaluate) is section
 *    3's alone: sched.c runs ctl_evaluate_shallow, out of line, when the
 *    drive is at most shallow_depth deep (1, or any depth while
 *    shallow_ns is past band_hi; kept by band_refresh and
 *    ctl_shallow_sample): one compare per evaluation on a busy drive.
 *
 * 3e. A loose SLO lifts the learned ceiling (ours; sched.c section 230).
 *    With an SLO cap and a learned base, band_hi is at least cap /
 *    CTL_LIFT_DIV (SLO / 8; lat_max at most) while lift_off is 0: its
 *    CTL_LIFT_TAIL bit is set by lc_steer for a window after one with more
 *    than 1 in 100 SLO completions past SLO / 4, its CTL_LIFT_WEIGHTS bit
 *    by sched.c's period_fair after a cost period that gave a member past
 *    1050/1000 of its weight's share (set at ctl_init: the first period is
 *    never lifted).  3c's steered cap still clips the result.  A new
 *    tightest SLO restarts the tail window's count with 3c's (ctl_set_cap).
 *
 * 3f. A write-led signal near band_lo holds the rate (ours; scheduler-log
 *    sections 339, 358, 361; issue 11).  In CONGESTION every evaluation
 *    takes the cost just completed off the rate.  When the signal is the
 *    write EWMA sitting just past a threshold that has come down to
 *    band_lo -- buffered writes completing a little slower than the band,
 *    the reads inside it -- that walk does not drain a queue inside the
 *    drive: the rate binds, what completes follows it down, and the next
 *    window's writes are as slow as before.  test_nl_wlo_hold's pair (a
 *    500 us-SLO 4 KiB reader at QD 4 beside a 64 KiB sequential writer at
 *    QD 1, sata-ssd): write EWMA 174-180 us against band_lo 158 us for
 *    700 ms, the rate walked 1454 -> 686 MB/s with the completions 1480 ->
 *    700 MB/s behind it.  So:
 *      count  at each window roll (ctl_window_roll), with a band only, wlo_n
 *             counts the rolls in a row that find the write EWMA fresh,
 *             past the threshold, at most band_lo x CTL_WLO_EDGE_X8 / 8
 *             (5/4) and at least the read EWMA, with the reads fresh and at
 *             most the threshold; any other roll sets it to 0 (it
 *             saturates at CTL_WLO_N_MAX);
 *      hold   after CTL_WLO_ROLLS (2) such rolls, an evaluation that would
 *             enter CONGESTION (ctl_eval_body, ctl_wlo_hold) whose signal is
 *             the write EWMA within the same edge, the reads stale or
 *             inside the threshold, and the rate at most the last window's
 *             completion rate (x CTL_WLO_RATE_X2 / 2), enters OK and leaves
 *             the rate and the threshold as they are (no growth: 339's
 *             forms that grew there, or held on single evaluations, cost
 *             s1-824 starve, s1-374 slo and s1-598 / 794 work).
 *    The rate guard is what 358 added to 339's form c: without it the hold
 *    also kept a rate far above the drive from coming down -- s1-274's 58
 *    holds were all at 2.3-4.3 GB/s with 0.3-0.6 GB/s completing (work
 *    violated: qos util 1.051 < 0.95 x token-bucket 1.128) -- while every
 *    one of s8-158's 168 holds (at 421.7 ms and 1026-1034 ms) was at 377-484
 *    MB/s with 552 MB/s completing.  Measured with the fast gate on L35
 *    (scheduler-log 361): weights s8-158 fixed (13 tenants on fragmented
 *    sata-ssd beside a 500 us-SLO 4 KiB reader), s8 312 -> 311, every other
 *    row of seeds 1, 2, 7, 9, the hold-outs and CI at the base's;
 *    CTL_WLO_ROLLS 1 / 4, CTL_WLO_EDGE_X8 9 / 12 and CTL_WLO_RATE_X2 4 / 1
 *    (358g, on L34) not a net loss.  qos only by construction: wlo_n is
 *    counted only with cfg.band_hi_pct, which only the qos policy sets
 *    (sched.c's default config); for every other policy it stays 0 (ctl_init
 *    clears the state), so ctl_wlo_hold's first test refuses and their
 *    controller runs the published rules bit for bit (checked: every
 *    policy's docs on 20 mixes of seed 1 identical to main's).
 *
 * 3g. The SLO override needs the drive (ours; scheduler-log section 379).
 *    Section 3's override reads an SLO tenant missing its SLO end to end as
 *    congestion or overload "whatever the drive's own latency says" -- its
 *    IOs may queue behind others' in the drive, which the drive's EWMAs
 *    then show.  But an end-to-end miss while the drive's own signal is far
 *    under band_lo is time the IO spent at the scheduler (behind the
 *    bucket, the round, a limit), not in the drive, and cutting the rate
 *    only lengthens it: on the live memory backend (1 ns pages, EWMAs of
 *    10-90 ns against band_lo's 62.5 us clamp) a 500 us-SLO 64 KiB mixer
 *    at QD 8 without a limit missed behind the bucket, OVERLOADED clamped
 *    the rate to what completed, and it walked 4.3 GB/s -> 56 MB/s in
 *    0.3 s (simulated knob churn, mem20 seed 18); when the mixer then left
 *    the latency class, the bucket's debt at 56 MB/s held every tenant
 *    100-126 ms.  So the override applies only while the signal l is at
 *    least band_lo / CTL_LC_DRIVE_DIV (4).  On a flash drive the read
 *    EWMA sits near the learned base (band_lo = 1.5 x base), so the guard
 *    does not act there: the sweep's qos docs are bit-identical on all 11
 *    samples at DIV 4 and 8; at 2 only 0-3 docs a seed move (rows
 *    unchanged), at 1 (l under band_lo itself) 80-109 a seed and s1 / s7
 *    rows worse.  qos only by construction: the override needs
 *    target_cap_ns, which sched.c sets in the qos policy alone.
 *
 * 3h. A stale write EWMA does not clamp the reads beside an SLO tenant
 *    (ours; scheduler-log sections 413, 416, issue 11).  ctl_signal judges
 *    a read on the write EWMA while that is larger and a write completed
 *    in the last CTL_SIGNAL_FRESH_NS (100 ms).  One slow write of a QD-1
 *    mixer (sweep s9-145, dct983: a 512 B write taking ~2.4 ms, the write
 *    EWMA 19 -> 316 us, band_hi 188) then holds every read evaluation in
 *    OVERLOADED for 100 ms: the rate clamped to what completes and the
 *    buckets emptied at each one, while the 300 us-SLO reader's latency
 *    bypass keeps the read bucket at -50..-100 KB, so the other tenants'
 *    reads (the mixer's next IO among them) wait ~96 ms, no write
 *    completes to refresh the EWMA, and the reads themselves run at 85-90
 *    us, under band_lo; one more slow write restarts it.  So a read's
 *    evaluation whose signal is the write EWMA past band_hi holds (state
 *    OK; rate, threshold and buckets as they are) while the read EWMA is
 *    under band_lo, an SLO cap is set (the bypass that runs the read
 *    bucket's debt) and no write is in the drive -- with none there the
 *    write EWMA is no queue the reads share now.  That test is the hold's
 *    last: ctl_state.w_drive, sched.c's drive_writes, walks the tenants'
 *    in-flight non-reads only when every other guard holds (a count kept
 *    at take and completion cost 4.4-6.2 instructions per IO).  The write's own
 *    evaluation and every read one with a write in the drive, the reads at
 *    band_lo or no SLO cap judge as before.  Measured (416): in s2-533 /
 *    s8-139, where 413's hold without a guard cost an SLO tenant's p99,
 *    5 of the 6 read evaluations it held had a write in the drive (in
 *    s9-145 1 of 34); 413's guard in its place (the write bucket
 *    positive) lost hold-out s4's slo row by two; this one gives training
 *    1323 -> 1319 (no row worse), hold-outs 1490 -> 1489.  No new
 *    constant; the hold's test runs on OVERLOADED's path only.
 *
 * 4. Pacing.  Dispatch spends tokens from two buckets, one for reads and
 *    one for writes (and the other commands), as Gimbal does.  The refill at
 *    rate_cost_bps is split evenly; a full bucket (capped at bucket_bytes,
 *    Gimbal: 256 KiB) spills into the other, so reads alone or writes alone
 *    get the whole rate, and when both wait each gets at least half.
 *    Writes are priced in the same cost units (cost.c: write factor), so the
 *    write bucket lets rate / wf bytes of writes through.  An IO may be
 *    dispatched while its bucket's balance is positive, leaving it negative
 *    by at most one IO's cost; ctl_next_ns says when a balance turns
 *    positive again.  Two buckets matter: a 128 KiB write at wf 9 costs
 *    1.2 MB, and the debt it leaves must hold back the next writes, not the
 *    4 KiB reads queued behind it (with one bucket a reader at depth 12
 *    next to such a writer got 14% of what it gets alone).
 *
 *    Worked example: rate 1000 MiB/s = 1.048576 bytes/ns.  A 128 KiB write
 *    at wf 4 costs 538 KB; with a full 256 KiB bucket it is dispatched and
 *    leaves -276 KB, which takes 263 us to refill -- the writer is paced to
 *    one such write per 513 us, 255 MB/s of writes.  Meanwhile every 4 KiB
 *    read completing in 120 us (below lat_min: SLOWSTART) adds 8 * 7680 =
 *    61 KB/s to the rate, so 1000 such completions lift it by 61 MB/s.
 *
 * 5. Large, slow IO (ours, issue 11).  Two failures of the rules above when
 *    IOs are big and the drive slow (sata-ssd, 1 MiB writes at wf 9 = 9.4 MB
 *    of cost each, about one completion per 10 ms):
 *
 *    a. The OVERLOADED clamp takes the completion rate of the last 10 ms
 *       window, which then holds 0 or 1 such IOs: the clamp picked the noisy
 *       low reading and the rate fell to rate_min in a few windows.  In the
 *       learned-band mode a window now closes after >= 10 ms *and* >= 16
 *       completions (or 200 ms): 16 x 1 MiB at 450 MB/s is 37 ms, a reading
 *       within ~25% instead of 0-or-2x.
 *    b. The EWMAs move only on completions, so once the drive has drained
 *       the last (stale) samples keep it in CONGESTION, and each rare
 *       completion took its whole cost (9.4 MB/s) off the rate.  sched.c
 *       (section 8) now flags a completion that leaves fewer than 2 IOs
 *       in the drive while IO waits (underfilled); it is judged as
 *       SLOWSTART, since nothing is queued inside the drive whatever the
 *       departed IOs' latency said, and the rate grows by at least 1/16
 *       per evaluation (not only 8 * cost: after an OVERLOADED clamp to
 *       ~100 MB/s with 512 B reads completing, 8 * cost is +1 MB/s per
 *       2 ms, and the drive idled at 1-2 IOs for the whole run -- sweep
 *       mix s1-30, util 0.78 -> 0.84; 200-mix sweep work violations
 *       81 -> 64).  Gimbal's faithful mode keeps the
 *       published rules (it collapses on that mix: util 0.07 vs qos 1.46).
 *    c. Latency one tenant causes itself (sched.c section 17).  A
 *       sequential 512 B reader at QD 16 keeps all its reads on one flash
 *       unit: each waits for the 15 before it, ~1 ms against a learned
 *       band of 126-251 us, on a drive that is otherwise idle.  Read as
 *       overload, that clamped the rate to what completes -- the reader's
 *       65 MB/s of cost -- and the writer beside it, which pacing held
 *       back, got 0.01 of its solo throughput.  When the evaluating
 *       completion is a read and finds the drive holding that one
 *       tenant's IO only while another tenant waits (self_queued), a
 *       latency past the threshold is judged as 5b's underfilled: grow.
 *       Reads only: a writer alone in the drive is slow because the write
 *       buffer is full, and the buffer's programs stall everyone's reads.  Once a second tenant's IO is
 *       in the drive the usual rules judge again.  Not while SLO steering
 *       is on (a latency-critical tenant with an SLO active), except for
 *       one SLO tenant whose cap lies under the drive's floor (sched.c
 *       section 65: 1.5 x base_min_ns, the least small read ever seen).
 *
 * 6. The ceiling's units (issue 11, the work invariant; no change here).
 *    rate_max is 4 GiB/s = 4.29e9 cost-bytes/s.  What the drives really do
 *    in read-equivalents (cost.c section 5's measurements): dct983 random
 *    4 KiB reads 252K IOPS x 7680 = 1.9e9 (400K x 7680 = 3.1e9 at the
 *    controller cap), 128 KiB+ reads 3.0e9 (the link); sata-ssd 0.73e9 /
 *    0.55e9.  Writes use the other link direction and the flash, so a
 *    mixed load can exceed the read-only figure: dct983 clean 3.0e9 of
 *    reads plus 1.0 GB/s of writes at their true wf 3 is ~6e9.  So for
 *    reads the ceiling sits ~1.4x above dct983 and never binds on SATA;
 *    it bound with the drive shallow only because small writes were
 *    priced at (a_w + n) x wf with wf at 7-9 (docs/scheduler-log.md 21a): a
 *    512 B write at wf 8 cost 32 KB, the ceiling's 131K writes/s are a
 *    third of the controller's 400K.  Scaling the ceiling with wf (or
 *    16x it, section 21 there: weights +11 / +11) also lifts it for large
 *    writes, where wf 9 already overprices clean drives by 1.3-8x but
 *    the latency controller, not the ceiling, does the work.  The fix
 *    kept is in the price (cost.c section 5: wf on the data only, in
 *    sched.c's one-bucket mode): a
 *    512 B write at wf 8 now costs 7.7 KB, 559K writes/s at the ceiling,
 *    above the controller's cap, so the ceiling stays a read-equivalent
 *    bound the drive can nearly do.
 */
#include <errno.h>
#include <string.h>

#include "jbof_internal.h"

#define CTL_MAX_RATE_BPS (1ull << 38)

static const uint64_t CTL_WINDOW_MAX_NS = 200000000ull; /* ours: a window closes after 200 ms whatever the count */
enum { CTL_WINDOW_MIN_IOS = 16 };                       /* ours: ... and not before 16 completions (5a) */

int ctl_cfg_check(const jbof_ctl_cfg *c)
{
    if (!c)
        return -EINVAL;
    if (!c->enabled)
        return 0;
    if (c->ewma_shift > 10)
        return -EINVAL;
    if (c->lat_min_ns == 0 || c->lat_min_ns >= c->lat_max_ns || c->lat_max_ns > 60 * JBOF_NS_PER_S)
        return -EINVAL;
    if (c->rate_min_cost_bps == 0 || c->rate_min_cost_bps > c->rate_max_cost_bps || c->rate_max_cost_bps > CTL_MAX_RATE_BPS)
        return -EINVAL;
    /* the bucket must be able to fill within the refill cap at rate_min */
    if ((uint64_t)c->bucket_bytes * JBOF_NS_PER_S / c->rate_min_cost_bps > CTL_MAX_REFILL_NS)
        return -EINVAL;
    if (c->rate_init_cost_bps < c->rate_min_cost_bps || c->rate_init_cost_bps > c->rate_max_cost_bps)
        return -EINVAL;
    if (c->bucket_bytes < 4096 || c->bucket_bytes > (1u << 30))
        return -EINVAL;
    if (c->size_normalize > 1)
        return -EINVAL;
    if ((c->band_lo_pct == 0) != (c->band_hi_pct == 0))
        return -EINVAL;
    if (c->band_lo_pct && (c->band_lo_pct < 100 || c->band_lo_pct >= c->band_hi_pct || c->band_hi_pct > 10000))
        return -EINVAL;
    return 0;
}

/* 3d: the drive depth at or under which sched.c runs ctl_evaluate_shallow --
 * 1, or UINT32_MAX while the 2-deep latency is above the band (its two
 * inputs change only in band_refresh and ctl_shallow_sample) */
static void shallow_depth_refresh(ctl_state *c)
{
    c->shallow_depth = c->shallow_ns > c->band_hi_ns ? UINT32_MAX : 1;
}

static void band_refresh(ctl_state *c);

/* ctl_sample's base-latency gate (section 3b): only in the learned-band
 * mode; a read below base_gate_ns, or any read once the 1 s window is over,
 * goes to ctl_base_sample. */
static void ctl_base_gates(ctl_state *c)
{
    if (!c->cfg.band_hi_pct) {
        c->base_gate_ns = 0;
        c->base_roll_ns = UINT64_MAX;
        return;
    }
    c->base_gate_ns = c->base_win.cur ? c->base_win.cur : UINT64_MAX;
    c->base_roll_ns = c->base_win.start_ns + CTL_BASE_WINDOW_NS;
}

void ctl_init(ctl_state *c, const jbof_ctl_cfg *cfg, uint64_t now_ns)
{
    memset(c, 0, sizeof(*c));
    c->cfg = *cfg;
    c->state = JBOF_CTL_SLOWSTART;
    c->state_enter[JBOF_CTL_SLOWSTART] = 1;
    c->rate_cost_bps = cfg->rate_init_cost_bps;
    c->tokens[0] = c->tokens[1] = cfg->bucket_bytes;
    c->last_refill_ns = now_ns;
    c->threshold_ns = cfg->lat_max_ns;
    c->lift_off = CTL_LIFT_WEIGHTS; /* 3e: open after a cost period that kept the weights */
    c->win_start_ns = now_ns;
    c->meas_rate_cost_bps = cfg->rate_init_cost_bps;
    ctl_base_gates(c);
    band_refresh(c);
}

static void band_compute(const ctl_state *c, uint64_t *lo_out, uint64_t *hi_out)
{
    uint64_t lo = c->cfg.lat_min_ns, hi = c->cfg.lat_max_ns;
    if (c->cfg.band_hi_pct && c->base_ns) {
        /* floors: a RAM-backed or cached device answers in microseconds and
         * has no knee worth steering; below lat_min/4 .. lat_min/2 the
         * band would only measure the host's own scheduling noise */
        lo = c->base_ns * c->cfg.band_lo_pct / 100;
        hi = c->base_ns * c->cfg.band_hi_pct / 100;
        if (lo < c->cfg.lat_min_ns / 4)
            lo = c->cfg.lat_min_ns / 4;
        if (hi < c->cfg.lat_min_ns / 2)
            hi = c->cfg.lat_min_ns / 2;
        if (hi > c->cfg.lat_max_ns)
            hi = c->cfg.lat_max_ns;
    }
    if (c->target_cap_ns && c->cfg.band_hi_pct && c->base_ns && !c->lift_off) {
        /* 3e: a loose SLO lifts the learned ceiling toward its own cap */
        uint64_t lift = c->target_cap_ns / CTL_LIFT_DIV;
        if (lift > c->cfg.lat_max_ns)
            lift = c->cfg.lat_max_ns;
        if (hi < lift)
            hi = lift;
    }
    if (c->target_cap_ns) { /* 3c: the steered SLO ceiling, where the band leaves it a step of room */
        uint64_t cap = c->target_cap_ns;
        uint64_t h = hi >= cap + cap / CTL_LC_AI_DIV ? c->steer_ns : cap;
        if (h < hi)
            hi = h;
    }
    if (lo >= hi)
        lo = hi / 2;
    *lo_out = lo;
    *hi_out = hi;
}

/* The band only changes with the learned base or the SLO cap: recomputed
 * where those change (ctl_init, ctl_set_cap, ctl_base_sample), not at every
 * evaluation. */
static void band_refresh(ctl_state *c)
{
    band_compute(c, &c->band_lo_ns, &c->band_hi_ns);
    shallow_depth_refresh(c); /* 3d */
}

void ctl_band(const ctl_state *c, uint64_t *lo_out, uint64_t *hi_out)
{
    band_compute(c, lo_out, hi_out);
}

/* 3e: close (on) or open one of the lift's guards (CTL_LIFT_*) */
void ctl_set_lift(ctl_state *c, uint32_t bit, uint32_t on)
{
    uint32_t off = on ? c->lift_off | bit : c->lift_off & ~bit;
    if (off != c->lift_off) {
        c->lift_off = off;
        band_refresh(c);
    }
}

void ctl_set_cap(ctl_state *c, uint64_t cap_ns)
{
    if (c->target_cap_ns != cap_ns) {
        c->target_cap_ns = cap_ns;
        if (cap_ns && cap_ns != c->steer_cap_ns) { /* 3c: a new tightest SLO starts at half of it */
            c->steer_ns = c->steer_cap_ns = cap_ns;
            c->lc_n = c->lc_over_slo = c->lc_over_3q = c->lc_over_lift = 0;
            c->lc_win_ns = c->last_lc_ns;
        }
        band_refresh(c);
    }
}

/* 3c under the drive's floor beside one member (sched.c 296): the tail
 * may sit past SLO x 3/4 and still relax while the SLO itself is kept with
 * room -- at most 1 in CTL_LC_NEAR_DIV past it in this window and in the
 * remembered tail, which must hold at least CTL_LC_MEM_N x
 * CTL_LC_NEAR_MEM_X4 / 4 completions (not in a run's first windows); while
 * it holds the ceiling's top is SLO x 7/8 (sched.c 301) */
static inline int lc_near_ok(const ctl_state *c)
{
    return c->steer_one && (uint64_t)c->lc_over_slo * CTL_LC_NEAR_DIV <= c->lc_n &&
           c->lc_mem_n >= CTL_LC_MEM_N * CTL_LC_NEAR_MEM_X4 / 4 &&
           (uint64_t)c->lc_mem_over * CTL_LC_NEAR_DIV <= c->lc_mem_n;
}

/* 3c: a tail window is over -- back to half the SLO when more than 1 in
 * 100 of its samples missed the SLO, up by SLO / 8 (to SLO x 3/4 at most)
 * when no more than 1 in 100 passed SLO x 3/4, else unchanged */
static __attribute__((noinline)) void lc_steer(ctl_state *c, uint64_t now_ns)
{
    uint64_t cap = c->target_cap_ns, s = c->steer_ns;
    uint32_t off = c->lift_off;
    int under = c->base_min_ns && cap * 2 < c->base_min_ns * 3; /* the cap under the drive's floor: sched.c 65's case */
    if (under && !c->steer_one)
        s = cap; /* sched.c 288: relaxed beside one member only -- back to the fixed rule's half SLO beside more */
    if (c->lc_n >= CTL_LC_WIN_MIN) {
        /* 3e's tail guard: the lift closed for a window past SLO / 4's tail */
        if ((uint64_t)c->lc_over_lift * CTL_LC_TAIL_DIV > c->lc_n)
            off |= CTL_LIFT_TAIL;
        else
            off &= ~CTL_LIFT_TAIL;
        if ((uint64_t)c->lc_over_slo * CTL_LC_TAIL_DIV > c->lc_n) {
            s = cap;
        } else if (((uint64_t)c->lc_over_3q * CTL_LC_TAIL_DIV <= c->lc_n || (under && lc_near_ok(c))) &&
                   (!under || c->steer_one)) { /* under the drive's floor only beside one best-effort member (sched.c 288) */
            /* sched.c 301: beside one member under the floor, with the tail's room kept, up to SLO x 7/8 */
            uint64_t top = cap * (under && lc_near_ok(c) ? CTL_LC_NEAR_MAX_X4 : CTL_LC_MAX_X4) / 4;
            s += cap / CTL_LC_AI_DIV;
            if (s > top)
                s = top;
        }
    } else if (now_ns - c->lc_win_ns < CTL_LC_WIN_MAX_NS) {
        return; /* too few samples yet: keep counting */
    }
    /* sched.c section 169: the tail's longer memory (about the last
     * CTL_LC_MEM_N completions) */
    c->lc_mem_n += c->lc_n;
    c->lc_mem_over += c->lc_over_slo;
    if (c->lc_mem_n > CTL_LC_MEM_N) {
        c->lc_mem_n >>= 1;
        c->lc_mem_over >>= 1;
    }
    c->lc_n = c->lc_over_slo = c->lc_over_3q = c->lc_over_lift = 0;
    c->lc_win_ns = now_ns;
    if (s != c->steer_ns || off != c->lift_off) {
        c->steer_ns = s;
        c->lift_off = off;
        band_refresh(c);
    }
}

void ctl_on_lc(ctl_state *c, uint64_t e2e_ns, uint64_t now_ns)
{
    int64_t diff = (int64_t)e2e_ns - (int64_t)c->ewma_lc_ns;
    int64_t e = (int64_t)c->ewma_lc_ns + (diff >> 1);
    c->ewma_lc_ns = e < 0 ? 0 : (uint64_t)e;
    c->last_lc_ns = now_ns;
    if (!c->target_cap_ns)
        return;
    /* 3c: the tail against the SLO (= cap x 2) and SLO x 3/4 (= cap x 3/2) */
    c->lc_n++;
    c->lc_over_3q += 2 * e2e_ns > 3 * c->target_cap_ns;
    c->lc_over_slo += e2e_ns > 2 * c->target_cap_ns;
    c->lc_over_lift += e2e_ns * 2 > c->target_cap_ns; /* 3e: past SLO / 4 */
    if (now_ns - c->lc_win_ns >= CTL_LC_WIN_NS)
        lc_steer(c, now_ns);
}

/* ctl_refill (section 4) is inline in jbof_internal.h: it runs at every
 * dispatch call. */

uint64_t ctl_next_ns(const ctl_state *c, uint64_t now_ns, int k)
{
    if (c->tokens[k] > 0)
        return now_ns;
    /* worst case: only this bucket's share of the refill reaches it */
    uint64_t sh = c->read_share_x256 ? (k == 0 ? c->read_share_x256 : 256u - c->read_share_x256) : 128u;
    uint64_t need = ((uint64_t)(1 - c->tokens[k]) * 256u + sh - 1) / sh;
    uint64_t base = c->last_refill_ns > now_ns ? c->last_refill_ns : now_ns;
    uint64_t dt = (uint64_t)(((__uint128_t)need * JBOF_NS_PER_S + c->rate_cost_bps - 1) / c->rate_cost_bps);
    return base + (dt ? dt : 1);
}

/* ctl_evaluate, the state machine of section 3, is inline in
 * jbof_internal.h: sched.c's complete_due runs it (sched.c section 6). */

/* ctl.c 3d: ctl_evaluate_shallow's signal, l as section 3 takes it.  The rule holds
 * while the 2-deep latency is fresh (1 s), no SLO cap is set, and neither
 * an SLO tenant's IO nor an IO > 128 KiB completed in the last 100 ms; then
 * the signal is taken again with the read EWMA scaled by
 * band_hi / min(3 x shallow_ns, lat_max), i.e. judged against that
 * ceiling, and the write EWMA as it is. */
uint64_t ctl_shallow_signal(const ctl_state *c, uint32_t k, uint64_t l, uint64_t now_ns)
{
    uint64_t hi = c->band_hi_ns;
    if (now_ns - c->shallow_last_ns >= CTL_SHALLOW_FRESH_NS || c->target_cap_ns ||
        (c->last_lc_ns && now_ns - c->last_lc_ns < CTL_SIGNAL_FRESH_NS) ||
        (c->big_last_ns && now_ns - c->big_last_ns < CTL_SHALLOW_BIG_NS))
        return l;
    uint64_t hl = c->shallow_ns * CTL_SHALLOW_BAND_X;
    if (hl > c->cfg.lat_max_ns)
        hl = c->cfg.lat_max_ns;
    if (hl <= hi)
        return l;
    uint64_t e[2] = {(uint64_t)(((__uint128_t)c->ewma_ns[0] * hi) / hl), c->ewma_ns[1]};
    return ctl_signal(c, k, e[k], e[1 - k], now_ns); /* section 3's rule on e */
}

/* ctl_evaluate with 3d: sched.c runs it (out of line) at an evaluation
 * on a drive <= 1 deep or with shallow_ns past band_hi (section 84). */
void ctl_evaluate_shallow(ctl_state *c, uint32_t k, uint64_t now_ns)
{
    if (c->shallow_ns > c->band_hi_ns)
        ctl_eval_body(c, k, now_ns, 1, 0);
    else
        ctl_eval_body(c, k, now_ns, 0, 0);
}

/* sched.c section 84: a small read that left <= 1 IO in the drive (the
 * caller tests the depth first: rare on a busy drive) feeds shallow_ns,
 * an EWMA 1/8 seeded by its first sample. */
void ctl_shallow_sample(ctl_state *c, uint64_t dev_ns, uint64_t now_ns)
{
    int64_t d = (int64_t)dev_ns - (int64_t)c->shallow_ns;
    int64_t e = (int64_t)c->shallow_ns + (c->shallow_ns ? d >> 3 : d);
    c->shallow_ns = e < 0 ? 0 : (uint64_t)e;
    c->shallow_last_ns = now_ns;
    shallow_depth_refresh(c);
}

/* ctl_on_complete's out-of-line parts (the per-IO part is inline in
 * jbof_internal.h). */

/* The 10 ms completion-rate window is over: its rate feeds the OVERLOADED clamp. */
void ctl_window_roll(ctl_state *c, uint64_t now_ns)
{
    /* ours (section 5a): a window closes after >= 10 ms *and* >= 16
     * completions (or 200 ms): 1 MiB writes on a SATA drive complete about
     * every 10 ms, and a 10 ms window then reads 0 or 2 IOs' worth -- the
     * OVERLOADED clamp took the noisy minimum and walked the rate down to
     * rate_min */
    if (c->cfg.band_hi_pct && c->win_n < CTL_WINDOW_MIN_IOS && now_ns - c->win_start_ns < CTL_WINDOW_MAX_NS)
        return;
    c->win_n = 0;
    if (c->cfg.band_hi_pct) {
        /* section 3f: count the rolls in a row that find the write EWMA
         * fresh, past the threshold, within band_lo x CTL_WLO_EDGE_X8 / 8
         * and at least the read EWMA, the reads fresh and inside the
         * threshold (the count saturates at CTL_WLO_N_MAX; any other roll
         * resets it).  Only with a band: every other policy keeps wlo_n 0,
         * so ctl_wlo_hold never holds for them */
        uint64_t lo = c->band_lo_ns, ew = c->ewma_ns[1], thr = ctl_band_thr(c);
        if (now_ns - c->last_ns[1] < CTL_SIGNAL_FRESH_NS && ew > thr && ew * 8 <= lo * CTL_WLO_EDGE_X8 &&
            ew >= c->ewma_ns[0] && now_ns - c->last_ns[0] < CTL_SIGNAL_FRESH_NS && c->ewma_ns[0] <= thr)
            c->wlo_n += c->wlo_n < CTL_WLO_N_MAX;
        else
            c->wlo_n = 0;
    }
    uint64_t dt = now_ns - c->win_start_ns;
    c->meas_rate_cost_bps = (uint64_t)(((__uint128_t)(c->win_cost[0] + c->win_cost[1]) * JBOF_NS_PER_S) / dt);
    c->meas_w_cost_bps = (uint64_t)(((__uint128_t)c->win_cost[1] * JBOF_NS_PER_S) / dt);
    c->win_cost[0] = c->win_cost[1] = 0;
    c->win_start_ns = now_ns;
}

/* A small read that may lower the learned unloaded latency, or the first
 * of a new 1 s window: min over the last two windows (section 3b). */
void ctl_base_sample(ctl_state *c, uint64_t lat_ns, uint64_t now_ns)
{
    /* 3b's guard (sched.c section 194): on a drive whose least read so far
     * took >= lat_min / 4, a small read under that did not wait for a flash
     * read of its own (a page register or read-cache hit, or a read of a
     * page whose tR was already under way); it moves neither the base nor
     * base_min unless for a whole window no small read took longer (the
     * drive is that fast now).  Until the window is over such reads arrive
     * here through the gate; after it every read does, and the first
     * slower one rolls the window.  A drive whose first read is that fast
     * learns as before. */
    uint64_t flash = c->cfg.lat_min_ns / CTL_BASE_FLASH_DIV;
    if (lat_ns < flash && c->base_min_ns >= flash) {
        if (!c->fast_since_ns)
            c->fast_since_ns = now_ns ? now_ns : 1;
        if (now_ns < c->base_roll_ns + CTL_BASE_WINDOW_NS || now_ns - c->fast_since_ns < CTL_BASE_WINDOW_NS)
            return;
    }
    c->fast_since_ns = 0;
    /* every sample under the least ever is under base_win.cur too, so it
     * reaches here through ctl_sample's gate (sched.c section 65) */
    if (lat_ns && (!c->base_min_ns || lat_ns < c->base_min_ns))
        c->base_min_ns = lat_ns;
    if (min2_sample(&c->base_win, lat_ns, now_ns, CTL_BASE_WINDOW_NS)) {
        uint64_t b = min2_get(&c->base_win);
        if (b != c->base_ns) {
            c->base_ns = b;
            band_refresh(c);
        }
    }
    ctl_base_gates(c);
}

uint64_t ctl_normalize(uint64_t lat_ns, uint32_t bytes)
{
    return (uint64_t)(((__uint128_t)lat_ns * CTL_NORMALIZE_BYTES) / bytes);
}

/* sched.c section 203: the forward rate probe.  A rejected probe is undone
 * as if it had not run: the step taken back from the rate (what the
 * controller itself added or took in the window stays), the threshold as of
 * its open, the EWMAs and the state lowered to their values at its open
 * (the step's extra IO can only have raised them), and the extra refill the
 * step granted since its open taken back from the buckets (at most one
 * bucket's worth each), so the drive is not fed the step twice. */
static void fp_undo(ctl_state *c, uint64_t now_ns)
{
    uint64_t step = c->fp_rate - c->fp_pre, r = c->rate_cost_bps;
    if (now_ns > c->fp_open_ns) {
        uint64_t extra = (uint64_t)(((__uint128_t)step * (now_ns - c->fp_open_ns)) / JBOF_NS_PER_S);
        uint64_t cap = c->cfg.bucket_bytes;
        /* past 8 buckets every split (read share 32..224 / 256, 256 or
         * half) debits each bucket its cap or nothing, so the clamp moves no
         * result and keeps the split's multiply in 64 bits */
        if (extra > 8 * cap)
            extra = 8 * cap;
        uint64_t rd = ctl_read_part(c, extra);
        c->tokens[0] -= (int64_t)(rd > cap ? cap : rd);
        c->tokens[1] -= (int64_t)(extra - rd > cap ? cap : extra - rd);
    }
    r = r > step ? r - step : 0;
    c->rate_cost_bps = r < c->cfg.rate_min_cost_bps ? c->cfg.rate_min_cost_bps : r;
    c->threshold_ns = c->fp_thr;
    for (int k = 0; k < 2; k++)
        if (c->ewma_ns[k] > c->fp_ewma[k])
            c->ewma_ns[k] = c->fp_ewma[k];
    if (c->state > c->fp_state)
        c->state = c->fp_state;
    c->fp_rate = 0;
    c->fp_wait = CTL_FP_WAIT;
}

/* a live change to a policy that does not roll probes (only qos does):
 * an open probe is undone as a rejected one, else its hold would pin the
 * rate and threshold for good */
void ctl_fp_cancel(ctl_state *c, uint64_t now_ns)
{
    if (c->fp_rate)
        fp_undo(c, now_ns);
}

/* an evaluation while a probe is open: the probe is held through every
 * state (OVERLOADED's clamp and its threshold halving too), judged only at
 * the window's end */
void ctl_fp_hold(ctl_state *c, uint64_t now_ns)
{
    (void)now_ns;
    c->threshold_ns = c->fp_thr;
    if (c->rate_cost_bps < c->fp_rate)
        c->rate_cost_bps = c->fp_rate;
}

/* The end of section 3's evaluation (ctl_eval_body) while sched.c section
 * 211's lifted ceiling or section 203's probe is set: out of line, so the
 * inline body pays one test for both (sched.c section 214) */
__attribute__((noinline, cold)) void ctl_eval_tail(ctl_state *c, uint64_t rate, uint64_t thr, uint64_t now_ns)
{
    uint64_t top = c->cfg.rate_max_cost_bps;
    if (c->rate_top != 0 && c->state < JBOF_CTL_CONGESTION &&
        (c->top_link || now_ns - c->last_ns[0] >= CTL_SIGNAL_FRESH_NS))
        top = c->rate_top; /* sched.c section 211: below the band, no read to hurt */
    if (rate > top)
        rate = top;
    c->rate_cost_bps = rate;
    c->threshold_ns = thr;
    if (c->fp_rate != 0)
        ctl_fp_hold(c, now_ns); /* sched.c section 203: a probe is open */
}

void ctl_fp_roll(ctl_state *c, int may_open, uint64_t now_ns)
{
    uint64_t m = c->meas_rate_cost_bps;
    if (c->fp_rate) {
        /* kept: the window completed more than the one before by more than
         * its noise, and the drive's signal is at most band_hi x 9/8 */
        uint64_t hi = c->band_hi_ns;
        if (m > c->fp_ref + c->fp_ref / CTL_FP_NOISE_DIV &&
            ctl_signal(c, 0, c->ewma_ns[0], c->ewma_ns[1], now_ns) <= hi + hi / CTL_FP_HI_DIV)
            c->fp_rate = 0;
        else
            fp_undo(c, now_ns);
        return;
    }
    if (c->fp_wait) {
        c->fp_wait--;
        return;
    }
    uint64_t rate = c->rate_cost_bps, step = rate / CTL_FP_STEP_DIV;
    if (!may_open || !c->cfg.band_hi_pct || c->target_cap_ns || c->state != JBOF_CTL_CONGESTION ||
        m + rate / 16 < rate || rate + step > c->cfg.rate_max_cost_bps)
        return; /* the rate binds (c179's test: the drive completes what it lets through) */
    c->fp_pre = rate;
    c->fp_ref = m;
    c->fp_thr = c->threshold_ns;
    c->fp_ewma[0] = c->ewma_ns[0];
    c->fp_ewma[1] = c->ewma_ns[1];
    c->fp_state = c->state;
    c->fp_open_ns = now_ns;
    c->fp_rate = c->rate_cost_bps = rate + step;
}
