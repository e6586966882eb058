"""Random scenario sweep for the qos policy: generate mixes, run every policy, check invariants.

    from control.bench.sweep import generate_mix, check_mix
    data = generate_mix(seed=7, index=3)          # a scenario mapping (YAML-ready)
    report = check_mix(data)                      # runs solo + all policies
    report.violations                             # [Violation(invariant, tenant, detail)]

A mix is a pure function of (seed, index): ``random.Random(f"{seed}:{index}")``
drives every choice, so ``jbof sim --sweep N --seed S`` is reproducible, and
every violating mix is also written out as a scenario YAML that ``jbof sim``
loads and that :func:`check_scenario_file` re-checks (tests/fixtures/sweep/).

Mixes (fio vocabulary): 2..32 tenants; rw read/write/randread/randwrite/rw/
randrw with rwmixread; bs 512 B..1 MiB or a bssplit of 2..3 sizes; iodepth
1..128; closed loop or open loop (rate); phases (a burst/idle pattern,
sometimes looped); startdelay; weights 1..8; reserves, limits, limit_iops;
latency SLOs; scavengers; dct983 / sata-ssd, clean or fragmented; 0.5..1.5 s.
Flavours make the interesting cases frequent: ``equal`` (plain best-effort,
weight 1: the Jain invariant applies), ``weighted``, ``rated`` (limits and
reservations), ``latency`` (one latency-critical tenant with an SLO against
hogs) and ``full`` (anything goes).

Invariants, checked on ``qos`` (each result is the JSON document of
control.results; shares are bytes/s over the tenant's solo bytes/s):

``work``    work conservation: util(qos) >= 0.95 * max over the other
            policies P at least as fair as qos (narrowing 0) of capped_util(P).  capped_util counts a tenant's
            share at most at what its limit allows (min(share, limit x
            f / solo_bw), likewise limit_iops, f the fraction of the run
            the limit can be spending: see narrowing 0), since only qos and
            token-bucket honour limits -- beating qos by ignoring a limit is
            not work conservation.  Scavengers count the same way as anyone.
``stall``   every tenant that completed >= 20 IOs: max <= max(25 * p99, 50 ms).
``weights`` cost shares follow weights among *contending* tenants: the
            tenants of one class (best-effort, the class every flavour has)
            that are closed loop over the whole run (no phases, startdelay or
            runtime), have no limit, limit_iops or reserve, were queued at
            the scheduler >= 90% of the time (narrowing 1), and whose demand exceeds
            their fair share.  Demand = solo bytes/s * (qos cost per
            byte) (what they could consume alone, in cost units); fair share
            = the group's total qos cost rate * w / W; tenants whose demand is
            < 1.5 x their fair share leave the group, water-filling, until
            it is stable; so do the members whose ``starve`` floor is above
            their fair share (narrowing 10).  With >= 2 left, each one's cost
            share must be within 10% of w / W (|share / (w/W) - 1| <= 0.10).
``limit``   bytes/s <= 1.02 * limit and IOs/s <= 1.02 * limit_iops, plus one
            IO and the 1 ms bank over the run (narrowing 2).
``reserve`` bytes/s >= 0.95 * reserve for a *feasible* reservation: the
            tenant is closed loop (or open loop at >= the reserve) over the
            whole run, its solo bytes/s >= 1.5 x reserve, and the sum over
            reserved tenants of reserve / solo_bw <= 0.5 (at most half the
            drive is promised).
``slo``     a latency-class tenant's p99 <= its SLO when the SLO is feasible:
            SLO >= 3 x its solo p99, it is the only tenant with an SLO, no
            other tenant has a reserve (reserves cannot be throttled), it is
            active over the whole run, and its own solo throughput is < 50%
            of the drive (a latency tenant that is itself a hog is not
            protected from itself).  And, feasible or not, p99(qos) <= 1.10 x
            p99(gimbal) (10%: histogram buckets are up to 3.1% wide and runs
            are short), unless qos met the SLO and spent the headroom on
            utilization (narrowing 3).
``starve``  (reported apart from the seven above, so their table stays
            comparable) a tenant that has IO outstanding over the whole run
            (closed loop, no phases, startdelay or runtime), is not a
            scavenger (it only gets idle capacity by design) and has no limit
            or limit_iops, completes at least one IO in every complete
            100 ms bin of the run (results.BIN_S) under qos -- unless no
            other policy achieves that either (then the drive or the mix
            makes it infeasible).  ``stall`` cannot see uniform starvation:
            its bound is 25 x the tenant's own p99, so a tenant starved for
            the whole run (p99 = max) passes.  Mix s11-34 (seed 11, the CI
            sample): an 8 KiB writer at QD 2 completes nothing under qos
            until 640 ms (p99 = max = 645 ms, bound 16 s), while gimbal
            serves it in every bin.  The issue's own bound for live changes
            is "no tenant at zero throughput for more than 100 ms while it
            has IO queued"; this is that bound on the sweep's mixes.
``jain``    equal-weight mixes (every tenant best-effort, weight 1, no limit,
            reserve or SLO): jain(qos) >= jain(gimbal) - 0.02, both over
            the tenants backlogged under either policy (narrowing 9), unless every
            tenant's share under qos is >= its share under gimbal
            (narrowing 4); the tenants outside the weights group count
            at gimbal's share where qos gives each at least that
            (narrowing 12).

Narrowings (NARROWINGS below; `checks` in the sweep's table counts how often
each invariant applied, so nothing is dropped silently):

0. ``work`` compares qos only with the policies at least as fair as qos on
   the mix (weighted Jain over share / weight of the backlogged, unlimited
   tenants >= qos's - 0.02), and counts limited tenants' shares only up to
   their limit.  As first stated ("the best other policy") it is infeasible
   by construction: utilization is a sum of shares, and an unfair policy
   raises it by starving the tenants whose share is cheapest to give up.
   Mix s1-0 (seed 1): rr reaches util 1.852 by giving the 512 B random
   writer a share of 0.00 (Jain 0.528); qos, fair to it, had 1.387 (Jain
   0.622).  On the 1000-mix seed-1 sweep of the original code 716 mixes
   violated the strict form.  The limit cap is taken over the time the
   limit can be spending on the tenant, f: from its startdelay to its
   runtime's end, less its idle phases when every phase is closed loop (a
   closed-loop tenant issues nothing while idle; what it left queued, at
   most iodepth IOs of its largest size, drains at the limit into the idle
   time after), plus the 1 ms bank at each active stretch's start.  The cap
   over the whole run let a policy that ran a tenant active a third of the
   run at up to 3x its limit count it at full value: s1-324 (a 100 MiB/s
   QD-4 tenant on 50 ms of each 100 ms: fifo / drr at 1.9-2.5x its limit
   while on) and six more mixes of seeds 1-2 (s1-44, 662, s2-29, 365, 617,
   940; scheduler-log section 202) violated ``work`` only through it.
1. ``weights`` counts only tenants that were *backlogged* under qos in the
   fair-queueing sense -- with IO waiting at the scheduler (queued, not yet
   dispatched) >= 90% of the time their workload was active, as measured
   by the scheduler (sched.c section 25: queued_s over busy_s in the result
   document).  A tenant whose queue keeps emptying is latency-bound, not
   scheduled: its rate is iodepth / latency whatever the weights.  This
   replaced an estimate, iodepth x (cost per IO) >= 2 x its weighted share
   of the 8 x 128 KiB in-flight window (still used for documents without
   queued_s, e.g. live runs' nbdkit peers and older documents).  On the 200-mix sweeps of seeds 1 / 2 the
   estimate admitted 44 / 48 tenants queued < 90% of the time (median 0.80:
   s1-15's 64 KiB QD-1 writer, 0.49, and s2-81's 512 KiB QD-2 reader, 0.69,
   "under-served" while their only IO was in the drive) and excluded 81 /
   67 that were queued >= 90% (median 0.99: s1-3's 512 B QD-64 writer, 1.00,
   cost share 0.433 against 0.5 beside a 4 KiB one) -- its premise, that
   such a tenant never waits in the scheduler, is false wherever the buckets
   bind.  Violating mixes with the estimate / measured (on aa09a0f): seed
   1 44 / 53, seed 2 46 / 44 (docs/scheduler-log.md section 25).
   A tenant that moved nothing but was queued >= 90% of the time is in the
   group with share 0: before, a tenant with no bytes was skipped, so a
   wholly starved tenant was invisible to this check and serving it a
   little made the row worse (section 28's s1-712 family, s11-44's t7).
2. ``limit`` allows, over the run, one IO of the tenant's largest size and
   the 1 ms of banked credit (sched.c TAG_BANK_NS) on top of 2%: an IO is
   admitted when its tag is due and charged after.  Mix s1-148: a 20 MiB/s
   limit with 1 MiB writes over 0.5 s is 10 MiB; one IO more is +10%.
3. ``slo``'s comparison with gimbal is waived when qos met the SLO (p99 <=
   SLO) *and* its utilization is >= gimbal's on the mix: qos steers the
   drive to half the tightest active SLO (sched.c section 3, ctl.c 3) and
   lends the headroom below it to the other tenants; gimbal does not know
   the SLO, and lands wherever its fixed band puts it.  Mix s1-153 (seed 1):
   a 16 KiB QD 1 reader with a 2 ms SLO has p99 1212 us under qos (SLO met)
   against gimbal's 279 us, at utilization 2.526 vs 2.526.  Met SLOs that
   bought no utilization stay violations (s1-19: 1671 us vs gimbal's
   1507 us, SLO 5 ms, util 1.28 vs 1.55).  On the 200-mix seed-1 sample 6
   of the 12 slo violations met their SLO; 2 of them (s1-54, s1-153) are
   waived, and the table counts waived checks (``slo waived``); on the
   1000-mix seed-1 sweep 5 (slo violating mixes 65 -> 60).
4. ``jain`` is waived when qos Pareto-dominates gimbal on the mix: every
   tenant's share under qos is >= its share under gimbal (no tolerance).
   Jain's index rewards equal shares, however low; a policy that leaves the
   drive idle can score higher by giving the tenants that could use more
   as little as the ones that cannot.  Mix s1-121 (seed 1, a fixture): a
   512 KiB and a 128 KiB 50/50 rw tenant; gimbal gives shares 0.241 /
   0.243 (Jain 1.000, util 0.48), qos 0.439 / 0.588 (Jain 0.979, util
   1.03) -- both tenants nearly twice as well off.  200-mix samples: 3
   (s1-65, s1-121, s1-150) of 14 jain violations on seed 1, 1 of 9 on
   seed 2; 19 of 64 on the 1000-mix seed-1 sweep.  Counted as
   ``jain waived``.
5. ``work`` compares qos only with the policies that keep every SLO
   tenant's latency: under the other policy, each latency-class tenant with
   an SLO has p99 <= max(SLO, 1.10 x its p99 under qos).  A policy that
   reaches a higher utilization by letting the SLO tenant's p99 past both
   its SLO and what qos gives it has bought the utilization with the one
   thing the operator asked to protect; qos steering the drive to the SLO
   (sched.c section 3, ctl.c 3) is the feature, not lost work.  Measured
   (docs/scheduler-log.md section 21): of the 106 work violations of the 200-mix sweeps
   of seeds 1 and 2, 46 have an SLO tenant; in 15 qos meets the SLO and the
   winner misses it (s1-133: qos 197 us at util 1.04, gimbal 2097 us at
   2.08, SLO 300 us), in 19 both miss and qos's p99 is lower (s1-154: 451
   us against drr's 2621 us).  Mixes where the winner also keeps the SLO
   (s1-3: SLO 5 ms, qos 1032 us at util 1.57, fifo 4194 us at 2.82) stay
   violations.  Counted as ``work waived``.
6. ``work``, on a mix where qos meets the ``weights`` invariant, compares
   qos only with the policies that meet it too (the same check on their own
   result: their measured backlogged set, their cost shares).  Narrowing 0
   asks the winner to be "at least as fair as qos", measured by weighted
   Jain over solo-relative shares; the issue's own fairness invariant is
   cost shares within 10% of the weights, which that Jain does not see.
   A policy that breaks the weights qos keeps has bought its utilization
   with them (docs/scheduler-log.md section 36: of the 21 gimbal-won work
   violations whose drive's write buffer is full under qos and not under
   gimbal, gimbal breaks weights in 9, qos keeps them in 8 of those 9:
   gimbal's half-the-refill write bucket gives the deep writers less than
   their weight).  Where qos violates weights itself nothing is waived.
   Counted as ``work waived (weights)``.
7. ``work`` compares qos only with the policies that give each reserved
   tenant whose reservation qos kept at least as much: a reservation is
   kept when the tenant got >= 95% of min(reserve, its solo bytes/s) (all
   of its reservation, or all it could use alone), and a policy that gives
   that tenant less than the same 95% is not compared.  A reservation is a
   promise like an SLO (narrowing 5): a policy that reaches a higher
   utilization by withholding what was promised has bought the utilization
   with it.  Only reservations qos *kept* count -- where qos falls short
   itself (s1-92: t5 reserves 400 MiB/s of 8 KiB rw on a fragmented
   dct983 and gets 360 under qos, 147 under rr) nothing is waived.  Mix
   s1-170 (seed 1, rated, fragmented SATA): qos gives t8 220.6 MiB/s of
   its 200 MiB/s reservation (util 2.565); gimbal reaches 2.849 by giving
   it 164.9.  On the 200-mix sweeps of seeds 1 and 2 on main 892c9f5 it waived 3 of
   the 42 work violations (s1-170, s1-199, s2-187); docs/scheduler-log.md
   section 47 found the drive spent on reservations in three class-b work
   mixes.  Counted as ``work waived (reserve)``.
8. ``work`` compares qos only with the policies that keep serving every
   tenant qos keeps serving: a policy that leaves a tenant ``starve``
   judges (IO outstanding over the whole run, not a scavenger, no limit)
   without a completion in a complete 100 ms bin in which qos completed
   one for it in every bin is not compared.  The issue's own bound is "no
   tenant at zero throughput for more than 100 ms while it has IO queued";
   a policy that reaches a higher utilization by breaking it has bought
   the utilization with a starved tenant, as narrowings 5-7 say of an SLO,
   the weights and a reservation.  Only tenants qos served in every bin
   count: where qos starves the tenant too, nothing is waived.  Measured
   on the 1000-mix sweep of seed 1 on main df17851 (every work violation
   replayed, each policy that beat qos by 5% checked by the same
   ``starve`` rule with the roles swapped): in 7 of the 156 work
   violations every such policy starves a tenant qos served (s1-29, 97,
   416, 465, 551, 796, 895); in the other 149 at least one winner starves
   nobody and the violation stands.  Mix s1-416 (a fixture, rated,
   fragmented SATA): token-bucket reaches util 1.230 against qos's 1.010
   and leaves t3, an unlimited writer qos serves in every bin, two bins
   without a completion; gimbal (1.186) gives t1 less of the reservation
   qos kept (narrowing 7).  Counted as ``work waived (starve)``.
9. ``jain`` takes both indexes over one tenant set: the tenants backlogged
   under qos *or* under gimbal.  Each result document's own ``jain`` is
   over its own backlogged tenants, and an open-loop tenant is backlogged
   only while it gets < 95% of its schedule, so the two documents' sets
   differ whenever one policy serves such a tenant just above the line and
   the other just below: the check then compared two indexes over different
   tenants.  Mix s1-465 (seed 1, the row's worst): t8, 10 MiB/s of 256 KiB
   random writes, gets 0.850 of its schedule under qos (counted, alone at
   0.85 among 26 tenants at 0.02-0.16: qos's own Jain 0.233) and 0.975
   under gimbal (left out: gimbal's 0.734) -- qos is the policy that served
   it *worse*.  Over the union both are measured on the same tenants.
   docs/scheduler-log.md section 57 (57b, 57e) found the sets differ in 16
   of the 92 jain violations of the 1000-mix seeds 1 and 2 on main
   df17851; over the union 11 of the 92 pass and 3 passing mixes fail
   (seed 1 38 -> 34: s1-50, 230, 465, 545, 601 pass, s1-474 fails; seed 2
   54 -> 50).  Not a waiver: the check is as strict over the union, and
   it can fail where it passed.  Its bias, stated: a tenant satisfied
   under one policy (share near 1, left out of that policy's own set)
   lowers that policy's index over the union, so where gimbal satisfies
   an open-loop tenant qos leaves short it favours qos (s1-465's t8);
   over the intersection (both indexes without such tenants) 6 of the 92
   pass instead of 11.  A contending set that does not depend on the
   policy (the tenant's demand against its fair share, as ``weights``
   water-fills) would have neither bias; it is not built.  Narrowing 0
   keeps each policy's own set: over the union it would take the 1000-mix
   work row 149 -> 143 (seed 1) and 136 -> 134 (seed 2, 2 new), mostly by
   ruling out winners that satisfied an open-loop tenant qos left short
   (s1-230: drr gives t6 0.997 of its schedule, qos 0.313) -- the same
   bias, and there it would excuse qos, so it is not taken.
10. ``weights`` lets a member whose ``starve`` floor is above its weighted
   share leave the group, as narrowing 1's demand rule lets one that asks
   for less: where the two invariants conflict, ``starve`` sets its share.
   ``starve`` wants one completion in every 100 ms bin, so a member's floor
   is one of its IOs per bin: its mean cost per IO under qos (cost_bytes /
   IOs) / 0.1 s, as a cost rate.  A member whose floor is more than (1 +
   WEIGHT_TOL) x its fair share (the group's qos cost rate x w / W) cannot
   be both served in every bin and within 10% of its weight, whatever the
   scheduler does; it is FLOOR-BOUND and leaves the group, water-filling to
   a fixed point with the demand rule (its leaving lowers the others' fair
   shares, and another may become floor-bound), and the rest are judged
   among themselves.  The mean, not the largest IO priced: with it,
   rate / floor is exactly the member's completed IOs per bin, the unit of
   ``starve`` and of the scheduler's escapes, and it is the smaller floor
   (fewer members leave).  Not a free pass: a floor-bound member still
   answers to ``starve``, and it leaves only while it took at most 2 x its
   floor plus one IO over the run -- one IO per 50 ms from the run's start
   (2 x bins + 1 IOs), the cadence of the scheduler's progress escapes
   (sched.c sections 28, 49, 55), which keep every bin served only at that
   cadence (section 49j: one IO per 75-90 ms leaves empty bins; here 3 of
   the floor-bound members at 1.25-1.4 IOs per bin have empty bins).  Past
   the bound it stays in the group, and its violation's detail says how far
   past its floor it is.  Mix s1-787 (seed 1, clean SATA, 0.5 s): t4, 1 MiB
   sequential writes at QD 16 among six weight-1 members, completes 7 IOs
   (1.4 per bin); one of them per bin is 0.234 of the group's cost against
   its fair 0.167 (1.40 x), it got 0.328; without it the other five's
   0.130-0.146 are 0.193-0.217 of their own 0.672 (want 0.2): all within
   10%, where before all six violated.  On main 461b7a3, 1000 mixes: seed
   1 weights 206 -> 200 mixes (964 -> 857 violations; s1-456, 787, 824,
   842, 919, 952 leave the row, 57 members of 35 mixes floor-bound),
   seed 2 193 -> 189 (829 -> 755; s2-111, 211, 287, 555; 59 members of
   35 mixes); no mix newly violates and no other row moves (docs/
   scheduler-log.md section 75, which also lists the 8 members past the
   bound).  Counted as ``weights waived (starve floor)`` (members; the
   row's note gives the mixes).
11. ``slo``'s comparison with gimbal is waived where gimbal gave a
   reservation that qos kept less than keeping it takes (narrowing 7's
   test: 95% of min(reserve, the tenant's solo bytes/s)).  The ``slo``
   check already counts an SLO as infeasible beside another tenant's
   reservation (reserves cannot be throttled); the comparison with gimbal
   stood regardless, and gimbal, which knows no reservations, throttles a
   reserved writer like any other and buys the SLO tenant its latency with
   the reservation.  qos may not.  On main c1c7561, 1000 mixes (the fast
   gate): 4 of the 34 slo mixes, each a gimbal comparison -- s1-199 (t0
   reserves 20 MiB/s, qos 19.4, gimbal 6.4; p99 1114 us vs gimbal's 885),
   s1-354 (t0 50: 50.0 / 8.0; 1704 vs 1147 us), s2-854 (t7 50: 53.0 /
   13.0, t18 100: 100.0 / 4.0; 6423 vs 4063 us), s2-949 (t3 200: 340 /
   146; 1901 vs 287 us).  Where gimbal keeps every reservation qos kept
   (s1-184, s2-369: t2's; s2-814: t0's) or qos kept none (s1-19, s2-359)
   the comparison stands.  Counted as ``slo waived (reserve)``.
12. ``jain`` counts the tenants outside the ``weights`` group -- those whose
   share is set by their own demand, depth or starve floor (not queued at
   the scheduler >= 90% of their active time, asking for less than 1.5x
   their share, open loop, or floor-bound: narrowings 1 and 10), not by the
   split -- at their share under gimbal, where qos gives every one of them
   at least that share; where qos gives any of them less, nothing changes.
   Jain's index counts a share above the others as unfairness even when it
   is a latency-bound tenant's own demand met: a QD-1 reader's share is
   iodepth / latency, and qos, which keeps the drive in its latency band,
   serves it several times as fast as gimbal does.  Mix s2-787 (31
   equal-weight tenants): the QD-1 readers t15 and t25 get shares 0.507 and
   0.506 under qos, 0.093 and 0.094 under gimbal, so qos's Jain is 0.441
   against gimbal's 0.628 at utilization 4.506 against 3.004; with the 12
   tenants outside the group at gimbal's shares it is 0.655.  The split
   among the group is still judged: its members keep their shares under
   qos.  Helper v125m's census (docs/scheduler-log.md section 139) of the
   class behind it (8 or more tenants): among the tenants queued >= 90%,
   Jain over cost is 0.974-1.000 under qos, 0.642-0.966 under gimbal.  On
   main 3e23c4e, 1000 mixes: jain 29 -> 27 mixes on seed 1 (s1-708,
   s1-980), 38 -> 31 on seed 2 (s2-235, 620, 643, 770, 787, 942, 985); the
   CI sample unchanged.  Counted as ``jain waived (outside weights)``.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import yaml

from control.scenario import Scenario, parse_scenario

NARROWINGS = (
    "work: only against policies at least as fair as qos (weighted Jain >= qos's - 0.02); limited shares capped "
    "at the limit over the time the tenant can spend it (its start, runtime, non-idle phases and queue drain)",
    "weights: only tenants queued at the scheduler >= 90% of their active time under qos (measured)",
    "limit: + one IO of the largest size + 1 ms of banked credit over the run",
    "slo: the p99 <= 1.1 x gimbal's check is waived when qos met the SLO and util(qos) >= util(gimbal)",
    "jain: waived when every tenant's share under qos is >= its share under gimbal (Pareto)",
    "work: only against policies that keep every SLO tenant's p99 <= max(SLO, 1.1 x its p99 under qos)",
    "work: when qos meets the weights invariant on the mix, only against policies that meet it too",
    "work: only against policies that give each reservation qos kept (>= 95% of min(reserve, solo)) as much",
    "work: only against policies that complete an IO in every 100 ms bin for each tenant qos does (starve)",
    "jain: both indexes over one tenant set, the tenants backlogged under qos or under gimbal",
    "weights: a member whose starve floor (its mean cost per IO per 100 ms bin) exceeds 1.1 x its weighted "
    "share leaves the group while it takes <= 2 x that floor + one IO over the run (counted)",
    "slo: the p99 <= 1.1 x gimbal's check is waived where gimbal broke a reservation qos kept (counted)",
    "jain: tenants outside the weights group count at gimbal's share where qos gives each of them at least "
    "that (counted)",
)

# the work checks each narrowing waived: the name they are counted under, and the table row's reason
WORK_WAIVERS = {5: ("work waived", "the winner broke an SLO tenant's latency"),
                6: ("work waived (weights)", "the winner broke the weights qos kept"),
                7: ("work waived (reserve)", "the winner broke a reservation qos kept"),
                8: ("work waived (starve)", "the winner starved a tenant qos served")}

POLICIES = ("fifo", "rr", "token-bucket", "drr", "gimbal", "qos")
INVARIANTS = ("work", "stall", "weights", "limit", "reserve", "slo", "jain")
# reported in their own rows, after the table of INVARIANTS (added later; the old counts stay comparable)
EXTRA_INVARIANTS = ("starve",)

WORK_FRAC = 0.95
STALL_P99_MULT = 25.0
STALL_FLOOR_US = 50_000.0
STALL_MIN_IOS = 20
WEIGHT_TOL = 0.10
WEIGHT_DEMAND_MULT = 1.5
WEIGHT_DEPTH_MULT = 2.0
WEIGHT_QUEUED_FRAC = 0.90
STARVE_BIN_S = 0.1               # results.BIN_S: the starve check's bin
WEIGHT_FLOOR_MULT = 2.0          # NARROWINGS[10]: a floor-bound member may take 2 x its floor + one IO
WEIGHTS_FLOOR_WAIVER = "weights waived (starve floor)"
SLO_RESERVE_WAIVER = "slo waived (reserve)"   # NARROWINGS[11]
JAIN_OUTSIDE_WAIVER = "jain waived (outside weights)"   # NARROWINGS[12]
WINDOW_COST = 8 * 128 * 1024     # jbof_sched_default_cfg: total_slots * slot_bytes
LIMIT_TOL = 0.02
LIMIT_BANK_S = 0.001     # sched.c TAG_BANK_NS
RESERVE_TOL = 0.05
RESERVE_DEMAND_MULT = 1.5
RESERVE_DRIVE_FRAC = 0.5
SLO_SOLO_MULT = 3.0
SLO_GIMBAL_TOL = 1.10
SLO_HOG_FRAC = 0.5
JAIN_TOL = 0.02

FLAVOURS = ("equal", "weighted", "rated", "latency", "full")
DEVICES = (("dct983", "clean"), ("dct983", "fragmented"), ("dct983", None),
           ("sata-ssd", "clean"), ("sata-ssd", "fragmented"))
RW = ("read", "write", "randread", "randwrite", "rw", "randrw")
BS = (512, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576)
IODEPTH = (1, 2, 4, 8, 16, 32, 64, 128)
MIB = 1 << 20


# ----------------------------------------------------------------- generate ---

def _size(b: int) -> str:
    if b % MIB == 0:
        return f"{b // MIB}m"
    if b % 1024 == 0:
        return f"{b // 1024}k"
    return str(b)


def _rate(bps: int) -> str:
    return f"{max(1, round(bps / MIB))}MiB/s"


def _ms(ms: float) -> str:
    return f"{int(round(ms))}ms"


def _workload(r: random.Random, small: bool = False) -> dict[str, Any]:
    wl: dict[str, Any] = {}
    if small:   # a latency-sensitive tenant: small random reads, low depth
        wl["rw"] = r.choice(("randread", "randread", "randrw"))
        wl["bs"] = r.choice(("4k", "4k", "8k", "16k"))
        wl["iodepth"] = r.choice((1, 1, 2, 4))
        if wl["rw"] == "randrw":
            wl["rwmixread"] = r.choice((70, 90))
        return wl
    wl["rw"] = r.choice(RW)
    if wl["rw"] in ("rw", "randrw"):
        wl["rwmixread"] = r.choice((10, 30, 50, 70, 90))
    if r.random() < 0.2:
        sizes = sorted(r.sample(BS, r.choice((2, 3))))
        pct = [r.randint(1, 6) for _ in sizes]
        tot = sum(pct)
        parts = [round(100 * p / tot) for p in pct]
        parts[-1] = 100 - sum(parts[:-1])
        if min(parts) <= 0:
            parts = [100 // len(sizes)] * len(sizes)
            parts[-1] = 100 - sum(parts[:-1])
        wl["bssplit"] = ":".join(f"{_size(s)}/{p}" for s, p in zip(sizes, parts))
    else:
        wl["bs"] = _size(r.choice(BS))
    wl["iodepth"] = r.choice(IODEPTH)
    if r.random() < 0.15:   # open loop
        wl["rate"] = _rate(r.choice((10, 20, 50, 100, 200, 400)) * MIB)
    return wl


def generate_mix(seed: int, index: int) -> dict[str, Any]:
    """A random but realistic scenario mapping (parse_scenario accepts it)."""
    r = random.Random(f"{seed}:{index}")
    flavour = FLAVOURS[index % len(FLAVOURS)] if r.random() < 0.8 else r.choice(FLAVOURS)
    n = r.choice((2, 2, 3, 3, 4, 5, 6, 8)) if r.random() < 0.85 else r.randint(9, 32)
    model, state = r.choice(DEVICES)
    dur_ms = r.choice((500, 800, 1000, 1500))
    tenants: list[dict[str, Any]] = []
    lat_idx = r.randrange(n) if flavour in ("latency", "full") and r.random() < 0.9 else -1
    for i in range(n):
        t: dict[str, Any] = {"name": f"t{i}"}
        if i == lat_idx:
            t["workload"] = _workload(r, small=True)
            t["latency_slo"] = f"{r.choice((200, 300, 500, 1000, 2000, 5000))}us"
        else:
            t["workload"] = _workload(r)
        if flavour in ("weighted", "full") and r.random() < 0.7:
            t["weight"] = r.choice((1, 2, 3, 4, 8))
        if flavour in ("rated", "full") and i != lat_idx:
            x = r.random()
            if x < 0.3:
                t["limit"] = _rate(r.choice((20, 50, 100, 200, 400, 800)) * MIB)
            elif x < 0.5:
                t["reserve"] = _rate(r.choice((20, 50, 100, 200, 400)) * MIB)
            elif x < 0.6:
                lim = r.choice((100, 200, 400))
                t["limit"] = _rate(lim * MIB)
                t["reserve"] = _rate(lim // 2 * MIB)
            elif x < 0.65:
                t["limit_iops"] = str(r.choice((1000, 5000, 20000)))
        if flavour == "full" and i != lat_idx and "reserve" not in t and r.random() < 0.1:
            t["class"] = "scavenger"
        if flavour in ("full", "rated", "weighted") and i != lat_idx and r.random() < 0.2:
            x = r.random()
            if x < 0.5:
                t["workload"]["startdelay"] = _ms(dur_ms * r.choice((0.1, 0.25, 0.5)))
            else:
                on = r.choice((50, 100, 200))
                t["phases"] = [{"duration": _ms(on)}, {"duration": _ms(on * r.choice((1, 2))), "idle": True}]
                t["loop_phases"] = True
        tenants.append(t)
    dev: dict[str, Any] = {"model": model}
    if state:
        dev["state"] = state
    return {"name": f"sweep-s{seed}-{index}", "description": f"qos sweep mix {index} of seed {seed} ({flavour})",
            "device": dev, "duration": _ms(dur_ms), "seed": r.randint(1, 10_000), "tenants": tenants}


# -------------------------------------------------------------------- check ---

@dataclass(frozen=True)
class Violation:
    invariant: str
    tenant: str | None
    detail: str
    # how far off, in the invariant's own measure (WORST_CASE says which way is worse):
    # work qos/best util, stall max/bound, weights |share/want - 1|, limit bw/limit,
    # reserve bw/reserve, slo p99/bound, jain gimbal - qos
    amount: float = math.nan


@dataclass
class MixReport:
    name: str
    data: dict[str, Any]
    docs: dict[str, dict[str, Any]]
    violations: list[Violation] = field(default_factory=list)
    checked: dict[str, int] = field(default_factory=dict)   # invariant -> how many checks applied


def _whole_run(t: Any) -> bool:
    w = t.workload
    return w is not None and len(w.phases) == 1 and not w.phases[0].idle and w.startdelay_ns == 0 and w.runtime_ns == 0


def _closed(t: Any) -> bool:
    return _whole_run(t) and not t.workload.phases[0].open_loop


def _max_bs(t: Any) -> int:
    return max(b for ph in t.workload.phases for b, _ in ph.bssplit) if t.workload else 0


def _active_stretches(w: Any, dur_ns: int) -> list[tuple[int, int]]:
    """The [start, end) spans in which a workload issues IO (wl.c's phase walk: startdelay, runtime,
    phases in turn, a zero-length phase open to the end unless the workload loops, idle phases out)."""
    start = w.startdelay_ns
    end = min(dur_ns, start + w.runtime_ns) if w.runtime_ns else dur_ns
    out: list[tuple[int, int]] = []
    t, k = start, 0
    while t < end:
        p = w.phases[k]
        d = p.duration_ns
        if d or not w.loop:
            b = min(end, t + d) if d else end
            if not p.idle:
                if out and out[-1][1] == t:
                    out[-1] = (out[-1][0], b)
                else:
                    out.append((t, b))
            t = b
        k += 1
        if k == len(w.phases):
            if not w.loop:
                break
            k = 0
    return out


def _limit_active_s(t: Any, dur_ns: int) -> float:
    """How long a limit can be spending on tenant t: NARROWINGS[0]'s cap is the limit over this time.

    Nothing is issued before the tenant starts or after its runtime.  A closed-loop tenant issues
    nothing in an idle phase either; what it left queued at a stretch's end (at most iodepth IOs of its
    largest size) drains at the limit into the idle time after it.  An open-loop tenant's backlog can
    outlast its phase, so it counts from its start to the run's end."""
    w = t.workload
    if w is None:
        return dur_ns / 1e9
    spans = _active_stretches(w, dur_ns)
    if any(p.open_loop for p in w.phases):
        return (dur_ns - spans[0][0]) / 1e9 if spans else 0.0
    q = max(p.iodepth for p in w.phases if not p.idle) if spans else 0
    drain = 0.0
    if t.limit_bps:
        drain = q * _max_bs(t) / t.limit_bps
    if t.limit_iops:
        drain = max(drain, q / t.limit_iops)
    total = 0
    for i, (a, b) in enumerate(spans):
        nxt = spans[i + 1][0] if i + 1 < len(spans) else dur_ns
        total += min(nxt, b + int(drain * 1e9)) - a
    return total / 1e9


def _capped_util(sc: Scenario, doc: Mapping[str, Any]) -> float:
    """Utilization with each limited tenant's share capped at what its limit allows (NARROWINGS[0]):
    the limit's rate over the time the tenant can be spending it (_limit_active_s) plus the 1 ms bank
    (sched.c TAG_BANK_NS) at each active stretch's start, as a share of the run -- a policy that runs
    the tenant past its limit while it is active gains nothing by it."""
    tot = 0.0
    dur_ns = sc.duration_ns
    for e in doc["tenants"]:
        s = e["share"]
        if s is None:
            continue
        t = sc.tenant(e["name"])
        solo = e["solo_bw_bytes"]
        cap = math.inf
        if (t.limit_bps or t.limit_iops) and solo > 0:
            banks = max(1, len(_active_stretches(t.workload, dur_ns))) if t.workload else 1
            frac = min(1.0, (_limit_active_s(t, dur_ns) + banks * LIMIT_BANK_S) / (dur_ns / 1e9))
            if t.limit_bps:
                cap = t.limit_bps * frac / solo
            if t.limit_iops and e["iops"] > 0:
                cap = min(cap, t.limit_iops * frac * (e["bw_bytes"] / e["iops"]) / solo)
        tot += min(s, cap)
    return tot


def check_docs(sc: Scenario, docs: Mapping[str, Mapping[str, Any]]) -> tuple[list[Violation], dict[str, int]]:
    """The invariants of the module docstring on one mix's result documents."""
    v: list[Violation] = []
    checked = dict.fromkeys(INVARIANTS + EXTRA_INVARIANTS, 0)
    q = docs["qos"]
    g = docs.get("gimbal")
    qt = {e["name"]: e for e in q["tenants"]}
    gt = {e["name"]: e for e in g["tenants"]} if g else {}

    # work conservation, against the policies at least as fair as qos (NARROWINGS[0])
    # that keep the SLO tenants' latency (NARROWINGS[5])
    jq = weighted_jain(sc, q)
    fair = {p: _capped_util(sc, d) for p, d in docs.items()
            if p != "qos" and weighted_jain(sc, d) >= jq - JAIN_TOL}
    others = {p: u for p, u in fair.items() if _keeps_slos(sc, q, docs[p])}
    # NARROWINGS[6]: where qos keeps the weights, only against policies that keep them too
    if not _check_weights(sc, q, dict.fromkeys(INVARIANTS, 0)):
        kept = {p: u for p, u in others.items() if not _check_weights(sc, docs[p], dict.fromkeys(INVARIANTS, 0))}
    else:
        kept = others
    # NARROWINGS[7]: only against policies that keep the reservations qos kept
    kept_resv = _kept_reservations(sc, q)
    honest = {p: u for p, u in kept.items() if not _breaks_reservations(kept_resv, docs[p])}
    # NARROWINGS[8]: only against policies that keep serving every tenant qos keeps serving
    fed = {p: u for p, u in honest.items() if not _starves_where_qos_does_not(sc, docs, p)}
    if fair:
        checked["work"] += 1
        # the narrowest comparison set with a policy 5% ahead of qos decides: the last one (every
        # narrowing applied) is a violation, a wider one a counted waiver of the narrowing between
        for pols, waiver in ((fed, None), (honest, WORK_WAIVERS[8][0]), (kept, WORK_WAIVERS[7][0]),
                             (others, WORK_WAIVERS[6][0]), (fair, WORK_WAIVERS[5][0])):
            best = max(pols, key=lambda p: pols[p]) if pols else None
            if best is None or q["utilization"] >= WORK_FRAC * pols[best]:
                continue
            if waiver is None:
                v.append(Violation("work", None, f"qos util {q['utilization']:.3f} < {WORK_FRAC} x "
                                                 f"{best} {pols[best]:.3f}", q["utilization"] / pols[best]))
            else:
                checked[waiver] = checked.get(waiver, 0) + 1
            break

    for t in sc.tenants:
        e = qt[t.name]
        lat = e["lat_us"]
        ios = e["iops"] * q["duration_s"]
        # stall
        if ios >= STALL_MIN_IOS:
            checked["stall"] += 1
            bound = max(STALL_P99_MULT * lat["p99"], STALL_FLOOR_US)
            if lat["max"] > bound:
                v.append(Violation("stall", t.name, f"max {lat['max'] / 1e3:.1f} ms > {bound / 1e3:.1f} ms "
                                                    f"(p99 {lat['p99'] / 1e3:.2f} ms)", lat["max"] / bound))
        # limits (NARROWINGS[2]: plus one IO and the 1 ms bank over the run)
        dur = q["duration_s"]
        if t.limit_bps:
            checked["limit"] += 1
            slack = (_max_bs(t) + t.limit_bps * LIMIT_BANK_S) / dur
            if e["bw_bytes"] > (1 + LIMIT_TOL) * t.limit_bps + slack:
                v.append(Violation("limit", t.name, f"{e['bw_bytes'] / MIB:.2f} MiB/s > limit "
                                                    f"{t.limit_bps / MIB:.1f} MiB/s + 2% + one IO",
                                   e["bw_bytes"] / t.limit_bps))
        if t.limit_iops:
            checked["limit"] += 1
            if e["iops"] > (1 + LIMIT_TOL) * t.limit_iops + (1 + t.limit_iops * LIMIT_BANK_S) / dur:
                v.append(Violation("limit", t.name, f"{e['iops']:.0f} IOPS > limit_iops {t.limit_iops}",
                                   e["iops"] / t.limit_iops))

    v += _check_starve(sc, docs, checked)

    # reservations
    resv = [t for t in sc.tenants if t.reserve_bps]
    promised = sum(t.reserve_bps / qt[t.name]["solo_bw_bytes"] for t in resv if qt[t.name]["solo_bw_bytes"] > 0)
    if promised <= RESERVE_DRIVE_FRAC:
        for t in resv:
            e = qt[t.name]
            ph = t.workload.phases[0]
            if not _whole_run(t) or (ph.open_loop and (ph.rate_iops or ph.rate_bps < t.reserve_bps)):
                continue
            if e["solo_bw_bytes"] < RESERVE_DEMAND_MULT * t.reserve_bps:
                continue
            checked["reserve"] += 1
            if e["bw_bytes"] < (1 - RESERVE_TOL) * t.reserve_bps:
                v.append(Violation("reserve", t.name, f"{e['bw_bytes'] / MIB:.1f} MiB/s < reserve "
                                                      f"{t.reserve_bps / MIB:.1f} MiB/s", e["bw_bytes"] / t.reserve_bps))

    # latency SLOs
    slo_tenants = [t for t in sc.tenants if t.klass == "latency" and t.latency_slo_ns]
    for t in slo_tenants:
        e = qt[t.name]
        if not e["iops"]:
            continue
        p99 = e["lat_us"]["p99"]
        solo = e["solo_lat_us"] or {}
        slo_us = t.latency_slo_ns / 1e3
        feasible = (len(slo_tenants) == 1 and _whole_run(t) and solo.get("p99", math.inf) * SLO_SOLO_MULT <= slo_us
                    and not any(u.reserve_bps for u in sc.tenants if u.name != t.name)
                    and _solo_drive_frac(sc, qt, t) < SLO_HOG_FRAC)
        if feasible:
            checked["slo"] += 1
            if p99 > slo_us:
                v.append(Violation("slo", t.name, f"p99 {p99:.0f} us > SLO {slo_us:.0f} us "
                                                  f"(solo p99 {solo['p99']:.0f} us)", p99 / slo_us))
        if t.name in gt and gt[t.name]["iops"]:
            checked["slo"] += 1
            gp = gt[t.name]["lat_us"]["p99"]
            if p99 > SLO_GIMBAL_TOL * gp and p99 <= slo_us and g and q["utilization"] >= g["utilization"]:
                checked["slo waived"] = checked.get("slo waived", 0) + 1   # NARROWINGS[3], counted
            elif p99 > SLO_GIMBAL_TOL * gp and _breaks_reservations(kept_resv, g):
                checked[SLO_RESERVE_WAIVER] = checked.get(SLO_RESERVE_WAIVER, 0) + 1   # NARROWINGS[11]
            elif p99 > SLO_GIMBAL_TOL * gp:
                v.append(Violation("slo", t.name, f"p99 {p99:.0f} us > {SLO_GIMBAL_TOL} x gimbal's {gp:.0f} us",
                                   p99 / gp))

    # weights
    v += _check_weights(sc, q, checked)

    # jain
    if g and all(t.klass == "best-effort" and t.weight == 1 and not (t.limit_bps or t.limit_iops or t.reserve_bps)
                 for t in sc.tenants):
        checked["jain"] += 1
        jq_u, jg_u, n_u = jain_over_union(q, g)     # NARROWINGS[9]: one tenant set for both
        if jq_u < jg_u - JAIN_TOL and _pareto_dominates(q, g):
            checked["jain waived"] = checked.get("jain waived", 0) + 1   # NARROWINGS[4], counted
        elif jq_u < jg_u - JAIN_TOL and _jain_outside_at_gimbal(sc, q, g) >= jg_u - JAIN_TOL:
            checked[JAIN_OUTSIDE_WAIVER] = checked.get(JAIN_OUTSIDE_WAIVER, 0) + 1   # NARROWINGS[12]
        elif jq_u < jg_u - JAIN_TOL:
            v.append(Violation("jain", None, f"jain {jq_u:.3f} < gimbal's {jg_u:.3f} - {JAIN_TOL} "
                                             f"(over the {n_u} tenants backlogged under either)",
                               jg_u - jq_u))
    return v, checked


def _check_starve(sc: Scenario, docs: Mapping[str, Mapping[str, Any]], checked: dict[str, int]) -> list[Violation]:
    """``starve``: no complete 100 ms bin without a completion for a tenant with IO outstanding all
    run, unless every other policy has such a bin too."""
    by = {p: {e["name"]: e for e in d["tenants"]} for p, d in docs.items()}
    out = []
    for t in sc.tenants:
        if not _starve_applies(t):
            continue
        z = by["qos"][t.name].get("zero_bins")
        if z is None:       # a document without timelines (live)
            continue
        others = [by[p][t.name].get("zero_bins") for p in by if p != "qos"]
        if not any(o == 0 for o in others):
            continue        # no policy keeps it progressing: not the scheduler's doing
        checked["starve"] += 1
        if z > 0:
            best = [p for p in by if p != "qos" and by[p][t.name].get("zero_bins") == 0]
            out.append(Violation("starve", t.name, f"{z} of the run's 100 ms bins without a completion "
                                                   f"(p99 {by['qos'][t.name]['lat_us']['p99'] / 1e3:.1f} ms); "
                                                   f"{best[0]} has none", float(z)))
    return out


def _starve_applies(t: Any) -> bool:
    """The tenants ``starve`` judges: IO outstanding over the whole run (closed loop, no phases,
    startdelay or runtime), not a scavenger, no limit or limit_iops."""
    return _closed(t) and t.klass != "scavenger" and not t.limit_bps and not t.limit_iops


def _starves_where_qos_does_not(sc: Scenario, docs: Mapping[str, Mapping[str, Any]], p: str) -> bool:
    """NARROWINGS[8]: whether policy p leaves a tenant that ``starve`` judges without a completion
    in a complete 100 ms bin while qos serves it in every bin."""
    qt = {e["name"]: e for e in docs["qos"]["tenants"]}
    pt = {e["name"]: e for e in docs[p]["tenants"]}
    return any(_starve_applies(t) and qt[t.name].get("zero_bins") == 0 and (pt[t.name].get("zero_bins") or 0) > 0
               for t in sc.tenants)


def _keeps_slos(sc: Scenario, q: Mapping[str, Any], d: Mapping[str, Any]) -> bool:
    """Under d, every latency-class tenant with an SLO has p99 <= max(SLO, SLO_GIMBAL_TOL x its p99 under
    qos): d did not buy its utilization with an SLO tenant's latency (NARROWINGS[5])."""
    qt = {e["name"]: e for e in q["tenants"]}
    dt = {e["name"]: e for e in d["tenants"]}
    for t in sc.tenants:
        if t.klass != "latency" or not t.latency_slo_ns or not qt[t.name]["iops"]:
            continue
        if not dt[t.name]["iops"]:
            return False        # starved it
        bound = max(t.latency_slo_ns / 1e3, SLO_GIMBAL_TOL * qt[t.name]["lat_us"]["p99"])
        if dt[t.name]["lat_us"]["p99"] > bound:
            return False
    return True


def _pareto_dominates(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Every tenant's share under a is >= its share under b (no tolerance)."""
    bs = {e["name"]: e["share"] for e in b["tenants"]}
    return all(e["share"] is not None and bs.get(e["name"]) is not None and e["share"] >= bs[e["name"]]
               for e in a["tenants"])


def weighted_jain(sc: Scenario, doc: Mapping[str, Any]) -> float:
    """Jain's index over share / weight of the backlogged tenants without a limit (1.0 if < 2)."""
    from control.bench.results import jain
    xs = []
    for e in doc["tenants"]:
        t = sc.tenant(e["name"])
        if e["backlogged"] and e["share"] is not None and not (t.limit_bps or t.limit_iops):
            xs.append(e["share"] / t.weight)
    return jain(xs)


def jain_over_union(a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[float, float, int]:
    """NARROWINGS[9]: Jain's index of two documents of one mix over the same tenants -- those
    backlogged under either (with a known share in both) -- and how many there are."""
    from control.bench.results import jain
    at, bt, names = _union_set(a, b)
    return jain([at[n]["share"] for n in names]), jain([bt[n]["share"] for n in names]), len(names)


def _union_set(a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """NARROWINGS[9]'s tenant set: both documents' tenants by name, and the names backlogged under
    either with a known share in both."""
    at = {e["name"]: e for e in a["tenants"]}
    bt = {e["name"]: e for e in b["tenants"]}
    names = [n for n, e in at.items() if n in bt and (e["backlogged"] or bt[n]["backlogged"])
             and e["share"] is not None and bt[n]["share"] is not None]
    return at, bt, names


def _jain_outside_at_gimbal(sc: Scenario, q: Mapping[str, Any], g: Mapping[str, Any]) -> float:
    """NARROWINGS[12]: qos's Jain over narrowing 9's tenant set with every tenant outside the weights
    group (its share set by its own demand, depth or starve floor, not by the split) counted at its
    share under gimbal -- or 0.0 (no waiver) where qos gives any of them less than gimbal does."""
    from control.bench.results import jain
    inside = {t.name for t, *_ in _weights_group(sc, q)[0]}
    qt, gt, names = _union_set(q, g)
    outside = [n for n in names if n not in inside]
    if not outside or any(qt[n]["share"] < gt[n]["share"] for n in outside):
        return 0.0
    return jain([gt[n]["share"] if n in outside else qt[n]["share"] for n in names])


def _kept_reservations(sc: Scenario, q: Mapping[str, Any]) -> dict[str, float]:
    """NARROWINGS[7]: the reserved tenants whose reservation qos kept, each with the bytes/s that
    keeping it takes (95% of min(reserve, the tenant's solo bytes/s))."""
    qt = {e["name"]: e for e in q["tenants"]}
    out = {}
    for t in sc.tenants:
        if t.reserve_bps:
            want = (1 - RESERVE_TOL) * min(t.reserve_bps, qt[t.name]["solo_bw_bytes"])
            if want > 0 and qt[t.name]["bw_bytes"] >= want:
                out[t.name] = want
    return out


def _breaks_reservations(kept: Mapping[str, float], doc: Mapping[str, Any]) -> bool:
    """Whether the policy's document gives a reservation qos kept less than keeping it takes."""
    return any(e["name"] in kept and e["bw_bytes"] < kept[e["name"]] for e in doc["tenants"])


def _solo_drive_frac(sc: Scenario, qt: Mapping[str, Any], t: Any) -> float:
    """How much of the drive the tenant uses alone: its solo bytes/s over the best solo bytes/s of
    the same kind (read / write) among the mix's tenants -- a rough 'is it a hog' measure."""
    e = qt[t.name]
    best = max((x["solo_bw_bytes"] for x in qt.values()), default=0.0)
    return e["solo_bw_bytes"] / best if best > 0 and len(qt) > 1 else 0.0


def _queued_frac(e: Mapping[str, Any]) -> float | None:
    """Measured fraction of its active time the tenant had IO waiting at the scheduler."""
    busy, queued = e.get("busy_s"), e.get("queued_s")
    return queued / busy if busy and queued is not None else None


def _weights_admits(t: Any, e: Mapping[str, Any], depth_cost: float, wall: int) -> bool:
    qf = _queued_frac(e)
    if qf is not None:
        return qf >= WEIGHT_QUEUED_FRAC
    return bool(wall) and depth_cost >= WEIGHT_DEPTH_MULT * WINDOW_COST * t.weight / wall


def _weights_group(sc: Scenario, q: Mapping[str, Any]) -> tuple[list[tuple[Any, float, float, float]], int]:
    """The members the ``weights`` check judges under the document q -- (tenant, cost rate, demand,
    starve floor) each -- and how many left the group as floor-bound (NARROWINGS[10])."""
    qt = {e["name"]: e for e in q["tenants"]}
    dur = q["duration_s"]
    group = []
    for t in sc.tenants:
        e = qt[t.name]
        if t.klass != "best-effort" or not _closed(t) or t.limit_bps or t.limit_iops or t.reserve_bps:
            continue
        if not e["bw_bytes"] or not e.get("cost_bytes"):
            # moved nothing: the worst weights outcome, not a reason to look away -- counted
            # (share 0, unbounded demand) when measured as backlogged, else it cannot be told apart
            # from a tenant that never asked (no queued_s: nbdkit peers, older documents)
            qf = _queued_frac(e)
            if qf is not None and qf >= WEIGHT_QUEUED_FRAC:
                group.append((t, 0.0, math.inf, math.inf, 0.0))
            continue
        rate = e["cost_bytes"] / dur
        demand = e["solo_bw_bytes"] * (e["cost_bytes"] / (e["bw_bytes"] * dur))
        ios = e["iops"] * dur
        per_io = e["cost_bytes"] / ios if ios else 0.0
        depth_cost = t.workload.phases[0].iodepth * per_io
        group.append((t, rate, demand, depth_cost, per_io / STARVE_BIN_S))
    # backlogged (NARROWINGS[1]): queued at the scheduler >= 90% of its active time under qos, else
    # its queue keeps emptying and its rate is latency-bound (the depth estimate without queued_s)
    wall = sum(t.weight for t, *_ in group)
    group = [(t, r, d, f) for t, r, d, dc, f in group if _weights_admits(t, qt[t.name], dc, wall)]
    floor_bound = 0
    while len(group) >= 2:
        total = sum(r for _, r, _, _ in group)
        wsum = sum(t.weight for t, *_ in group)
        keep = []
        for t, r, d, f in group:
            fair = total * t.weight / wsum
            if d < WEIGHT_DEMAND_MULT * fair:
                continue            # NARROWINGS[1]'s demand water-filling: it asks for less
            if _floor_bound(r, f, fair, dur):
                floor_bound += 1    # NARROWINGS[10]: its share is set by starve, not by its weight
                continue
            keep.append((t, r, d, f))
        if len(keep) == len(group):
            break
        group = keep
    return group, floor_bound


def _check_weights(sc: Scenario, q: Mapping[str, Any], checked: dict[str, int]) -> list[Violation]:
    group, floor_bound = _weights_group(sc, q)
    if floor_bound:
        checked[WEIGHTS_FLOOR_WAIVER] = checked.get(WEIGHTS_FLOOR_WAIVER, 0) + floor_bound
    total = sum(r for _, r, _, _ in group)
    if len(group) < 2 or not total:
        return []
    checked["weights"] += 1
    wsum = sum(t.weight for t, *_ in group)
    out = []
    for t, r, _, f in group:
        want = t.weight / wsum
        got = r / total
        if abs(got / want - 1) > WEIGHT_TOL:
            past = ""
            if f > (1 + WEIGHT_TOL) * total * want:     # floor-bound, but past the bound: not waived
                past = (f"; starve floor {f / total:.3f}, took {r / f:.2f} x it > {WEIGHT_FLOOR_MULT:g}"
                        f" + one IO")
            out.append(Violation("weights", t.name, f"cost share {got:.3f} vs weight share {want:.3f} "
                                                    f"(w={t.weight}, group of {len(group)}{past})",
                                 abs(got / want - 1)))
    return out


def _floor_bound(rate: float, floor: float, fair: float, dur: float) -> bool:
    """NARROWINGS[10]: a weights member's ``starve`` floor -- one IO at its mean measured cost per IO
    in every 100 ms bin, as a cost rate -- exceeds (1 + WEIGHT_TOL) x its weighted share of the
    group's cost (fair), and it took at most WEIGHT_FLOOR_MULT x that floor plus one IO over the run
    (one IO per 50 ms from the run's start is 2 x bins + 1 IOs: the fencepost, as narrowing 2's)."""
    bound = WEIGHT_FLOOR_MULT * floor + floor * STARVE_BIN_S / dur
    return floor > (1 + WEIGHT_TOL) * fair and rate <= bound * (1 + 1e-6)   # iops is rounded to 1e-6


def run_mix(sc: Scenario, policies: Sequence[str] = POLICIES) -> dict[str, dict[str, Any]]:
    from control.bench.results import compare
    docs = compare(sc, list(policies))
    return {d["policy"]: d for d in docs}


def check_scenario(sc: Scenario, data: dict[str, Any] | None = None) -> MixReport:
    docs = run_mix(sc)
    v, checked = check_docs(sc, docs)
    return MixReport(sc.name, data or {}, docs, v, checked)


def check_mix(data: dict[str, Any]) -> MixReport:
    sc = parse_scenario(data, f"<{data.get('name', 'mix')}>", str(data.get("name", "mix")))
    return check_scenario(sc, data)


def check_scenario_file(path: str | Path) -> MixReport:
    from control.scenario import load_scenario, load_yaml
    return check_scenario(load_scenario(path), load_yaml(path))


def mix_yaml(rep: MixReport) -> str:
    head = "".join(f"# {x.invariant}: {x.tenant or '-'}: {x.detail}\n" for x in rep.violations)
    return ("# qos sweep mix that violated an invariant (replay: jbof sim THIS.yaml -p gimbal,qos)\n" + head
            + yaml.safe_dump(rep.data, sort_keys=False, default_flow_style=None, width=110))


# ---------------------------------------------------------------------- run ---

def _one(args: tuple[int, int]) -> MixReport:
    seed, index = args
    data = generate_mix(seed, index)
    try:
        return check_mix(data)
    except Exception as exc:  # a crash is a violation too, never a silent skip
        return MixReport(data["name"], data, {}, [Violation("crash", None, repr(exc))], {})


def sweep(n: int, seed: int, jobs: int = 2, progress: Any = None) -> list[MixReport]:
    tasks = [(seed, i) for i in range(n)]
    if jobs <= 1 or n <= 1:
        out = []
        for t in tasks:
            out.append(_one(t))
            if progress:
                progress(out[-1])
        return out
    import multiprocessing as mp
    with mp.get_context("fork").Pool(min(jobs, 2)) as pool:
        out = []
        for rep in pool.imap(_one, tasks, chunksize=1):
            out.append(rep)
            if progress:
                progress(rep)
        return out


# which way an invariant's Violation.amount is worse (min: lower is worse)
WORST_CASE = {"work": min, "stall": max, "weights": max, "limit": max, "reserve": min, "slo": max, "jain": max,
              "starve": max}


def worst_case(reports: Sequence[MixReport], inv: str) -> tuple[float, str] | None:
    """The worst violation of one invariant over the reports: (amount, 'mix: tenant: detail')."""
    xs = [(x.amount, f"{r.name}: {x.tenant or '-'}: {x.detail}") for r in reports for x in r.violations
          if x.invariant == inv and not math.isnan(x.amount)]
    if not xs:
        return None
    pick = WORST_CASE.get(inv, max)
    return pick(xs, key=lambda a: a[0])


def util_vs_gimbal(reports: Sequence[MixReport]) -> tuple[int, float, float]:
    """(mixes compared, fraction with util(qos) >= util(gimbal), median util(qos) / util(gimbal))."""
    ratios = [r.docs["qos"]["utilization"] / r.docs["gimbal"]["utilization"] for r in reports
              if "qos" in r.docs and "gimbal" in r.docs and r.docs["gimbal"]["utilization"] > 0]
    if not ratios:
        return 0, math.nan, math.nan
    ratios.sort()
    m = len(ratios)
    med = ratios[m // 2] if m % 2 else (ratios[m // 2 - 1] + ratios[m // 2]) / 2
    return m, sum(1 for x in ratios if x >= 1.0) / m, med


def summary_table(reports: Sequence[MixReport]) -> str:
    from control.bench.results import text_table
    rows = [["invariant", "checks", "violating mixes", "violations", "worst", "worst case"]]
    names = (list(INVARIANTS) + list(EXTRA_INVARIANTS)
             + (["crash"] if any(x.invariant == "crash" for r in reports for x in r.violations) else []))
    for inv in names:
        checks = sum(r.checked.get(inv, 0) for r in reports)
        mixes = [r for r in reports if any(x.invariant == inv for x in r.violations)]
        count = sum(1 for r in reports for x in r.violations if x.invariant == inv)
        wc = worst_case(reports, inv)
        ex = ""
        if wc:
            ex = wc[1]
        elif mixes:
            x = next(x for x in mixes[0].violations if x.invariant == inv)
            ex = f"{mixes[0].name}: {x.tenant or '-'}: {x.detail}"
        rows.append([inv, str(checks), str(len(mixes)), str(count), f"{wc[0]:.3f}" if wc else "", ex[:100]])
    waived = sum(r.checked.get("slo waived", 0) for r in reports)
    rows.append(["slo waived", str(waived), "", "", "", "narrowing 3: met the SLO, util(qos) >= util(gimbal)"])
    sw = sum(r.checked.get(SLO_RESERVE_WAIVER, 0) for r in reports)
    rows.append([SLO_RESERVE_WAIVER, str(sw), "", "", "", "narrowing 11: gimbal broke a reservation qos kept"])
    for i, (key, why) in WORK_WAIVERS.items():
        n = sum(r.checked.get(key, 0) for r in reports)
        rows.append([key, str(n), "", "", "", f"narrowing {i}: {why}"])
    fw = sum(r.checked.get(WEIGHTS_FLOOR_WAIVER, 0) for r in reports)
    fm = sum(1 for r in reports if r.checked.get(WEIGHTS_FLOOR_WAIVER, 0))
    rows.append([WEIGHTS_FLOOR_WAIVER, str(fw), "", "", "",
                 f"narrowing 10: members ({fm} mixes) whose starve floor is > 1.1 x their weight's share"])
    jw = sum(r.checked.get("jain waived", 0) for r in reports)
    rows.append(["jain waived", str(jw), "", "", "", "narrowing 4: every share(qos) >= share(gimbal)"])
    ow = sum(r.checked.get(JAIN_OUTSIDE_WAIVER, 0) for r in reports)
    rows.append([JAIN_OUTSIDE_WAIVER, str(ow), "", "", "",
                 "narrowing 12: outside the weights group at gimbal's share, each got >= that"])
    bad = sum(1 for r in reports if any(x.invariant not in EXTRA_INVARIANTS for x in r.violations))
    extra = "".join(
        f", {sum(1 for r in reports if any(x.invariant == e for x in r.violations))} violating {e}"
        f" ({sum(1 for r in reports if r.violations and all(x.invariant == e for x in r.violations))} only {e})"
        for e in EXTRA_INVARIANTS)
    m, frac, med = util_vs_gimbal(reports)
    vs = (f"\nqos vs gimbal utilization over {m} mixes: qos >= gimbal on {frac:.1%}, median qos/gimbal {med:.3f}"
          if m else "")
    notes = "".join(f"\nnarrowing {i}: {n}" for i, n in enumerate(NARROWINGS))
    return (text_table(rows) + f"\n{len(reports)} mixes, {bad} with violations{extra}" + vs
            + "\nworst: work qos/best util (lowest), stall max/bound, weights |share/want - 1|, limit bw/limit, "
              "reserve bw/reserve (lowest), slo p99/bound, jain gimbal - qos, starve empty 100 ms bins" + notes)


def write_failures(reports: Sequence[MixReport], out_dir: str | Path) -> list[Path]:
    out = Path(out_dir)
    paths = []
    for r in reports:
        if not r.violations:
            continue
        out.mkdir(parents=True, exist_ok=True)
        p = out / f"{r.name}.yaml"
        p.write_text(mix_yaml(r))
        paths.append(p)
    return paths


def main(n: int, seed: int, jobs: int = 2, out_dir: str | Path = "sweep-failures", echo: Any = print,
         verbose: bool = False) -> int:
    """Run the sweep, print the table and the violations, write the failing mixes; the exit status."""
    def progress(rep: MixReport) -> None:
        if verbose or rep.violations:
            for x in rep.violations:
                echo(f"{rep.name}: {x.invariant}: {x.tenant or '-'}: {x.detail}")
    reports = sweep(n, seed, jobs, progress)
    echo(summary_table(reports))
    paths = write_failures(reports, out_dir)
    if paths:
        echo(f"wrote {len(paths)} violating mix(es) to {out_dir}/ (replay: jbof sim FILE -p gimbal,qos)")
    return 1 if paths else 0
