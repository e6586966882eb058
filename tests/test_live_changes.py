"""Live changes are transitions, not restarts (issue 11, part 3).

* In the simulator (hypothesis): knobs -- limit, limit_iops, weight, class,
  reserve, latency SLO, the drive policy -- change at random instants while
  IO flows; no tenant with queued IO goes more than STALL_S of simulated
  time without a completion (sampled every SAMPLE_S from the scheduler's own
  counters, so the measured gap is exact to SAMPLE_S).
* Live, knob churn: fio (nbd engine) drives three tenants of a `jbof serve`
  daemon on a memory drive while the test sets random knobs over the admin
  socket every 100 ms for CHURN_S.  The bound is checked on the server's
  view, the per-tenant stall tracker of the reactor (jbof_export_stats
  stall_max_ns: the longest time a tenant had IO in its SQ or drive and no
  completion), because fio's own 100 ms IOPS log also counts the time fio
  itself or the reactor thread was not scheduled on this shared 2-core host
  (it is reported, not asserted).
* Live, removal: `tenant.remove` of a tenant throttled to 1 MiB/s with 64
  queued 128 KiB writes finishes within 1 s (queued IO answered ESHUTDOWN,
  csrc/export.c section 4), its fio client gets errors and exits instead of
  hanging, another tenant's fio is unharmed, and an admin change from another
  client during a (deliberately slowed) removal is answered at once -- the
  Engine's part runs without the admin lock.

Each test stays under 30 s.  Limits in the random knobs keep at least 20 IOs
per second for the tenant's largest block (so a limit alone never explains a
100 ms gap); scavengers are exempt from the bound while they are scavengers
under qos (they get idle capacity only, by design: sched.c section 3d).
"""
from __future__ import annotations

import errno
import os
import random
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from control import units
from control.errors import ConfigError
from control.schema import check_tenant_class, tenant_class
from control_helpers import daemon, need
from dataplane import DataplaneError

STALL_S = 0.100          # the bound: no tenant with queued IO at zero throughput longer
SAMPLE_S = 0.002         # simulator probe interval
SIM_S = 1.0
POLICIES = ("fifo", "rr", "token-bucket", "drr", "gimbal", "qos")
BS = {"4k": 4096, "16k": 16384, "64k": 65536, "128k": 131072}


# ------------------------------------------------------------------ simulator ---

workload = st.fixed_dictionaries({
    "rw": st.sampled_from(["randread", "randwrite", "randrw", "read", "write"]),
    "bs": st.sampled_from(list(BS)),
    "iodepth": st.sampled_from([1, 4, 16, 32]),
})


def knob(n: int) -> st.SearchStrategy[tuple[Any, ...]]:
    t = st.integers(0, n - 1)
    return st.one_of(
        st.tuples(st.just("limit"), t, st.sampled_from([0, 0, 1, 5, 20, 100, 1000])),   # x 20 IO/s
        st.tuples(st.just("limit_iops"), t, st.sampled_from([0, 0, 20, 200, 5000])),
        st.tuples(st.just("weight"), t, st.integers(1, 8)),
        st.tuples(st.just("class"), t, st.sampled_from(["best-effort", "reserved", "latency",
                                                        "scavenger"])),
        st.tuples(st.just("reserve"), t, st.sampled_from([0, 10 << 20, 50 << 20])),
        st.tuples(st.just("slo"), t, st.sampled_from([0.0, 0.0002, 0.001, 0.005])),
        st.tuples(st.just("policy"), t, st.sampled_from(POLICIES)),
    )


@st.composite
def mixes(draw: Any) -> tuple[str, list[dict[str, Any]], list[tuple[int, tuple[Any, ...]]]]:
    n = draw(st.integers(2, 4))
    wls = draw(st.lists(workload, min_size=n, max_size=n))
    events = draw(st.lists(st.tuples(st.integers(20, 950), knob(n)), min_size=3, max_size=30))
    return draw(st.sampled_from(POLICIES)), wls, sorted(events, key=lambda e: e[0])


def _apply(sim: Any, name: str, wl: dict[str, Any], k: tuple[Any, ...]) -> None:
    kind, _, v = k
    if kind == "limit":
        sim.set_tenant(name, limit_bps=v * 20 * BS[wl["bs"]])
    elif kind == "limit_iops":
        sim.set_tenant(name, limit_iops=v)
    elif kind == "weight":
        sim.set_tenant(name, weight=v)
    elif kind == "class":
        sim.set_tenant(name, klass=v)
    elif kind == "reserve":
        sim.set_tenant(name, reserve_bps=v)
    elif kind == "slo":
        sim.set_tenant(name, latency_slo_s=v)
    else:
        sim.set_policy(v)


def sim_longest_gap(policy: str, wls: list[dict[str, Any]],
                    events: list[tuple[int, tuple[Any, ...]]], seed: int = 1
                    ) -> tuple[float, str, list[list[tuple[int, tuple[Any, ...]]]]]:
    """Run the mix for SIM_S with the knob events: the longest time (s) any tenant had
    queued IO and no completion, where, and the settings in force when that gap began
    and when it ended (each as events at 1 ms: steady-state controls)."""
    from control.simulator import Simulator
    sim = Simulator("dct983", policy, seed=seed)
    names = [f"t{i}" for i in range(len(wls))]
    klass = {n: "best-effort" for n in names}
    for n, wl in zip(names, wls):
        sim.add_tenant(n, wl)
    state: dict[tuple[str, int], Any] = {("policy", 0): policy}   # knobs in force
    history = [(0.0, dict(state))]
    last = {n: 0.0 for n in names}
    done = {n: 0 for n in names}
    worst, where, at = 0.0, "", [dict(state)]
    ev = list(events)
    steps = round(SIM_S / SAMPLE_S)
    for i in range(1, steps + 1):
        t_end = i * SAMPLE_S
        while ev and ev[0][0] / 1000 <= t_end:
            ms, k = ev.pop(0)
            sim.run_until_ns(ms * 1_000_000)
            tgt = names[k[1]]
            try:
                _apply(sim, tgt, wls[k[1]], k)
            except DataplaneError as e:    # e.g. a reserve above the limit: refused, as live
                assert e.errno == errno.EINVAL, e
                continue
            state[(k[0], 0 if k[0] == "policy" else k[1])] = k[2]
            history.append((sim.now_s, dict(state)))
            if k[0] == "class":
                klass[tgt] = k[2]
                last[tgt] = sim.now_s      # a scavenger's clock starts when it stops being one
            if k[0] == "policy":
                last = {n: max(last[n], sim.now_s) if klass[n] == "scavenger" else last[n]
                        for n in names}
        sim.run_until_ns(round(t_end * 1e9))
        for n in names:
            s = sim.tenant_stats(n)
            exempt = klass[n] == "scavenger" and sim.policy == "qos"
            if s["completed"] > done[n] or s["queued"] == 0 or exempt:
                last[n] = t_end
                done[n] = s["completed"]
                continue
            gap = t_end - last[n]
            if gap > worst:
                worst, where = gap, (f"{n} ({wls[names.index(n)]}, class {klass[n]}, policy "
                                     f"{sim.policy}) at {t_end:.3f}s: queued {s['queued']}, "
                                     f"inflight {s['inflight']}")
                at = [[h for h in history if h[0] <= last[n]][-1][1], dict(state)]
    controls = [sorted(((1, (k[0], k[1], v)) for k, v in a.items()),
                       key=lambda e: e[1][0] != "policy") for a in at]
    return worst, where, controls


def steady_gap(policy: str, wls: list[dict[str, Any]],
               controls: list[list[tuple[int, tuple[Any, ...]]]], seed: int) -> float:
    """The longest gap of the same mix with the given settings from the start and no
    change (the worse of the settings at the gap's start and at its end)."""
    return max(sim_longest_gap(policy, wls, c, seed)[0] for c in controls)


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(mix=mixes())
def test_sim_knob_changes_never_strand_queued_io(mix: Any) -> None:
    """No tenant goes STALL_S with queued IO and no completion.  (This allowed a gap as long
    as the settings in force when it began gave in steady state while qos still had two
    such stalls, a latency-critical tenant's overdraft and a reserved writer's debt; both
    are gone, sched.c sections 17 and 18: test_former_steady_state_stalls.)"""
    policy, wls, events = mix
    gap, where, control = sim_longest_gap(policy, wls, events)
    assert gap <= STALL_S, (
        f"{gap * 1e3:.0f} ms without a completion (settings {control}): {where}; events {events}")


@pytest.mark.parametrize("wls,control", [
    # a latency-critical QD1 64 KiB writer without an SLO overdrew the write bucket
    # (sched.c 3a/9): a best-effort 128 KiB randrw tenant waited 170-250 ms for the debt
    # to refill; with one bucket (sched.c section 18) its longest gap is 2 ms
    ([{"rw": "randwrite", "bs": "64k", "iodepth": 1}, {"rw": "randread", "bs": "4k", "iodepth": 16},
      {"rw": "randrw", "bs": "128k", "iodepth": 4}], [(1, ("class", 0, "latency"))]),
    # a 128 KiB randwriter reserved at 50 MiB/s beside a sequential 4 KiB reader at QD 16
    # and two 128 KiB tenants stalled a best-effort writer ~500 ms; since sched.c section
    # 17 its longest gap is 10 ms
    ([{"rw": "read", "bs": "4k", "iodepth": 16}, {"rw": "randwrite", "bs": "128k", "iodepth": 4},
      {"rw": "write", "bs": "128k", "iodepth": 4}, {"rw": "randread", "bs": "128k", "iodepth": 32}],
     [(1, ("reserve", 1, 50 << 20))]),
])
def test_former_steady_state_stalls(wls: list[dict[str, Any]],
                                    control: list[tuple[int, tuple[Any, ...]]]) -> None:
    """The two steady-state stalls the property test found (qos's sweep invariants, issue
    11 parts 1-2) are gone: with the setting from the start, no gap above 100 ms."""
    assert sim_longest_gap("qos", wls, [], 1)[0] <= STALL_S
    assert steady_gap("qos", wls, [control], 1) <= STALL_S


# ----------------------------------------------------------------------- live ---

def _fio(uri: str, tmp: Path, name: str, rw: str, bs: str, qd: int, runtime: float,
         log: bool = False) -> subprocess.Popen[str]:
    job = tmp / f"{name}.fio"
    lines = ["[global]", "ioengine=nbd", f"uri={uri}", f"rw={rw}", f"bs={bs}",
             f"iodepth={qd}", "time_based=1", f"runtime={runtime}", "size=48m"]
    if log:
        lines += [f"write_iops_log={tmp / name}", "log_avg_msec=100"]
    job.write_text("\n".join(lines + [f"[{name}]", ""]))
    return subprocess.Popen(["fio", str(job), "--output-format=json", f"--output={tmp / name}.json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def _stop(*procs: subprocess.Popen[str]) -> None:
    for p in procs:
        if p.poll() is None:
            try:
                os.killpg(p.pid, 9)
            except ProcessLookupError:
                pass
            p.wait(timeout=10)


def _fio_zero_windows(path: Path, skip_s: float = 1.0) -> tuple[int, int]:
    """(windows of 100 ms with 0 IOs, windows) in a fio IOPS log, start and end skipped."""
    rows = []
    for f in path.parent.glob(path.name + "_iops*.log"):
        for line in f.read_text().splitlines():
            parts = [x.strip() for x in line.split(",")]
            if len(parts) >= 2:
                rows.append((int(parts[0]), int(parts[1])))
    if not rows:
        return 0, 0
    end = max(t for t, _ in rows)
    mid = [v for t, v in rows if skip_s * 1000 <= t <= end - skip_s * 1000]
    return sum(1 for v in mid if v == 0), len(mid)


CHURN_S = 20.0
CHURN_CFG = """
drives:
  - {name: m0, backend: memory, size: 512MiB, policy: qos}
tenants:
  - {name: a, drive: m0, size: 64MiB}
  - {name: b, drive: m0, size: 64MiB, weight: 2}
  - {name: c, drive: m0, size: 64MiB, limit: 200MiB/s}
"""
CHURN_FIO = {"a": ("randread", "16k", 16), "b": ("randrw", "64k", 8), "c": ("randwrite", "4k", 32)}


def _random_change(rng: random.Random) -> tuple[str, dict[str, Any]]:
    if rng.random() < 0.15:
        return "drive.set", {"name": "m0", "policy": rng.choice(POLICIES)}
    name = rng.choice(list(CHURN_FIO))
    kind = rng.choice(["limit", "limit_iops", "weight", "class", "reserve", "latency_slo"])
    v: Any
    if kind == "limit":          # >= 20 IOs/s of the largest block (64k): never a legit 100 ms gap
        v = rng.choice(["0", "0", "2MiB/s", "20MiB/s", "200MiB/s", "1GiB/s"])
    elif kind == "limit_iops":
        v = rng.choice([0, 0, 50, 500, 20000])
    elif kind == "weight":
        v = rng.randint(1, 8)
    elif kind == "class":        # not scavenger: idle capacity only, a gap by design
        v = rng.choice(["best-effort", "reserved", "latency"])
    elif kind == "reserve":
        v = rng.choice(["0", "10MiB/s", "50MiB/s"])
    else:
        v = rng.choice(["0", "500us", "2ms"])
    return "tenant.set", {"name": name, kind: v}


# The live churn in the simulator (scheduler-log sections 370 / 376): the live memory
# drive takes ~nothing (1 ns pages), the client's round trip is a 100 us thinktime.
MEM_DRIVE = {"read_page_ns": 1, "program_page_ns": 1, "fixed_ns": 0, "cmd_ns": 0, "spike_ppm": 0,
             "suspend_ns": 0, "buffer_write_ns": 1, "link_bps": 1 << 40}
MIB = 1 << 20


def _note_gaps(sim: Any, t: float, last: dict[str, float], done: dict[str, int],
               worst: dict[str, float], counting: bool) -> None:
    """One sample at t (s): a tenant that completed IO since the last sample, or has none
    queued or in flight, restarts its clock; otherwise, when counting, its time since
    then is a gap (worst: the longest per tenant)."""
    for n in last:
        st_ = sim.tenant_stats(n)
        if st_["completed"] > done[n] or st_["queued"] + st_["inflight"] == 0:
            last[n], done[n] = t, st_["completed"]
        elif counting:
            worst[n] = max(worst[n], t - last[n])


def sim_churn_gaps(seed: int, churn_s: float, warm_s: float = 0.5,
                   think: str | None = "100us",
                   ssd_overrides: dict[str, Any] | None = MEM_DRIVE) -> dict[str, float]:
    """test_live_knob_churn_no_tenant_stalls's churn in the simulator on the memory drive:
    a change drawn by _random_change every 100 ms after warm_s, refused like
    control.config.check_config; per tenant the longest time (s) with IO queued or in
    flight and no completion, sampled every SAMPLE_S after warm_s.  think: the client's
    round trip (the tenants' thinktime; scheduler-log 370's "mem" model 100us, "mem20" 20us).
    ssd_overrides None with think None: 370's plain "dct983" model (no round trip)."""
    from control.simulator import Simulator
    sim = Simulator("dct983", "qos", seed=seed, ssd_overrides=ssd_overrides)
    cfg = {n: {"klass": None, "weight": 1, "reserve": 0, "limit": 0, "limit_iops": 0, "slo": 0.0}
           for n in CHURN_FIO}
    cfg["b"]["weight"] = 2
    cfg["c"]["limit"] = 200 * MIB
    for n, (rw, bs, qd) in CHURN_FIO.items():
        wl = {"rw": rw, "bs": bs, "iodepth": qd} | ({"thinktime": think} if think else {})
        sim.add_tenant(n, wl, weight=cfg[n]["weight"], limit_bps=cfg[n]["limit"])

    def klass(t: dict[str, Any]) -> str:
        return tenant_class(t["klass"], t["slo"], t["reserve"])

    rng = random.Random(seed)
    last = {n: 0.0 for n in CHURN_FIO}
    done = {n: 0 for n in CHURN_FIO}
    worst = {n: 0.0 for n in CHURN_FIO}
    t = 0.0
    for e in range(-round(warm_s / 0.1), round(churn_s / 0.1)):
        if e >= 0:
            op, args = _random_change(rng)
            if op == "drive.set":
                sim.set_policy(args["policy"])
            else:
                n = args.pop("name")
                (k, v), = args.items()
                new = dict(cfg[n])
                key = {"latency_slo": "slo", "class": "klass"}.get(k, k)
                new[key] = (units.parse_rate(v) if k in ("limit", "reserve") else   # as the daemon
                            units.parse_duration_ns(v) / 1e9 if k == "latency_slo" else v)
                try:                          # refused as check_config refuses it live
                    check_tenant_class("churn", n, new["klass"], new["slo"], new["reserve"],
                                       new["limit"])
                except ConfigError:
                    pass
                else:
                    try:
                        sim.set_tenant(n, weight=new["weight"], klass=klass(new),
                                       reserve_bps=new["reserve"], limit_bps=new["limit"],
                                       limit_iops=new["limit_iops"], latency_slo_s=new["slo"])
                        cfg[n] = new
                    except DataplaneError:
                        pass
        for _ in range(round(0.1 / SAMPLE_S)):
            t = round(t + SAMPLE_S, 6)
            sim.run_until_ns(round(t * 1e9))
            _note_gaps(sim, t, last, done, worst, t > warm_s)
    return worst


def test_sim_churn_lc_own_limit_is_not_overload() -> None:
    """Scheduler-log 370f / 376: memory-drive churn seed 47.  From 10.3 s tenant a is class
    latency with a 500 us SLO and limit_iops 500 at QD 16 -- ~32 ms queued behind its own
    limit -- while the drive completes in ns; ctl.c 3's SLO override read that wait as the
    drive's overload and walked the rate down to rate_min (2.35 -> 0.05 GB/s by 10.7 s):
    after the switch to gimbal at 10.8 s the debt stalled every tenant 200 ms (2.4 s
    before the simulator pumped after a knob change).  sched.c section 376 takes the wait
    for a tenant's own limit out of what the override sees: the rate stays up and the
    longest gap of this prefix (to 11.5 s, ~1.5 s of wall time) is 2 ms."""
    gaps = sim_churn_gaps(47, 11.0)
    assert max(gaps.values()) <= STALL_S, gaps


def test_sim_churn_lc_sched_queue_is_not_overload() -> None:
    """Scheduler-log 376f (1) / 379: memory-drive churn with a 20 us round trip, seed 18.
    From 0.6 s tenant b is class latency with a 500 us SLO and no limit (64 KiB randrw, QD
    8): its IOs wait at the scheduler, the drive's EWMAs are 10-90 ns, yet ctl.c 3's SLO
    override read the misses as the drive's overload and walked the rate 4.3 GB/s -> 56
    MB/s; when b left the latency class at 1.2 s the bucket's debt at that rate held a
    and c 126 ms.  ctl.c 3g: the override needs the drive's own signal at least band_lo /
    CTL_LC_DRIVE_DIV, so the rate stays at its ceiling; the longest gap of this prefix
    (to 1.4 s) is 94 ms (tenant a behind b's bypass debt, 376f (2)'s lever)."""
    gaps = sim_churn_gaps(18, 0.9, think="20us")
    assert max(gaps.values()) <= STALL_S, gaps


def test_sim_churn_policy_switch_drops_the_old_debt() -> None:
    """Scheduler-log 376: memory-drive churn seed 32.  Under qos a latency-critical
    tenant's backlog dispatches past an empty bucket, and the bucket ran -1.2 GB into
    debt at 16.4 s; gimbal, switched to, refilled it at ~0.36 GB/s and dispatched nothing
    until qos came back at 17.2 s: every tenant 800 ms without a completion.  A policy
    switch now drops the debt (sched.c section 376): the longest gap of this prefix (to
    17.5 s) is 18 ms."""
    gaps = sim_churn_gaps(32, 17.0)
    assert max(gaps.values()) <= STALL_S, gaps


def test_sim_class_change_drops_the_bypass_debt() -> None:
    """Scheduler-log 376f (2) / 378: under qos a latency-critical tenant's backlog
    dispatches past an empty bucket (charged), and on the memory drive a 500 us-SLO 64
    KiB mixer beside a 4 KiB writer runs the read bucket to -6.8 GB in 0.5 s.  Setting
    the mixer to best-effort (its SLO removed) while it issues ends that bypass, qos
    stays: without sched.c section 378's drop both tenants waited ~1.6 s for the bucket
    to refill; with it no tenant goes STALL_S without a completion."""
    from control.simulator import Simulator
    sim = Simulator("dct983", "qos", seed=32, ssd_overrides=MEM_DRIVE)
    sim.add_tenant("b", {"rw": "randrw", "bs": "64k", "iodepth": 8, "thinktime": "100us"},
                   weight=8, klass="latency", latency_slo_s=0.0005)
    sim.add_tenant("c", {"rw": "randwrite", "bs": "4k", "iodepth": 32, "thinktime": "100us"},
                   weight=3)
    sim.run_until_ns(500_000_000)
    assert sim.drive_stats()["tokens"] < 0          # the scene: the bypass ran a debt
    sim.set_tenant("b", klass="best-effort", latency_slo_s=0.0)
    last = {n: 0.5 for n in "bc"}
    done = {n: sim.tenant_stats(n)["completed"] for n in "bc"}
    worst = {n: 0.0 for n in "bc"}
    for i in range(1, round(0.4 / SAMPLE_S) + 1):
        t = 0.5 + i * SAMPLE_S
        sim.run_until_ns(round(t * 1e9))
        _note_gaps(sim, t, last, done, worst, True)
    assert max(worst.values()) <= STALL_S, worst


def test_sim_churn_class_change_drops_the_bypass_debt() -> None:
    """Scheduler-log 376f (2) / 378: memory-drive churn seed 14 with a 20 us round trip
    (370's mem20).  Tenant a, class latency with a 500 us SLO, ran qos's bucket into
    debt past the empty bucket; at 5.8 s it is set to class reserved (its SLO removed),
    qos kept, and every tenant waited 100-106 ms for the refill.  The class change now
    drops the debt (sched.c section 378): the prefix to 6.0 s has no gap past STALL_S."""
    gaps = sim_churn_gaps(14, 5.5, think="20us")
    assert max(gaps.values()) <= STALL_S, gaps


def test_sim_churn_dct983_bank_cut() -> None:
    """Scheduler-log 386f (1) / 387: the churn on the plain dct983 model (no round trip),
    seed 63.  From 3.4 s qos runs two buckets beside tenant a's 500 us SLO, and c (a 4 KiB
    writer, class reserved at 10 MiB/s, weight 1, QD 32), parked at its in-flight window,
    starts a turn with a new quantum at every return and banks ~1.7 GB of deficit; at 4.3 s
    a is set best-effort, qos goes to one bucket (no windows) and c's turn never ended: a
    and b completed nothing for 142 / 146 ms.  sched.c section 387 cuts the bank at a knob
    change to one bucket: the prefix to 4.7 s has no gap past STALL_S."""
    gaps = sim_churn_gaps(63, 4.2, think=None, ssd_overrides=None)
    assert max(gaps.values()) <= STALL_S, gaps


# Scheduler-log 385: a bound over many churn seeds, not one traced prefix each.  The seeds
# are the FIRST N of each model (not picked for being clean); the length is what fits the
# budget (the whole test < 15 s of wall time on the shared 2-core host): a short prefix of
# many seeds (each seed starts a different knob walk) over a long run of few.
CHURN_BOUND_MEM20 = (range(1, 21), 1.5)      # 370's mem20 (20 us round trip): seeds 1-20, 1.5 s
CHURN_BOUND_MEM = (range(1, 11), 1.5)        # 370's mem (100 us round trip): seeds 1-10, 1.5 s


@pytest.mark.parametrize("think,seed,churn_s",
                         [("20us", s, CHURN_BOUND_MEM20[1]) for s in CHURN_BOUND_MEM20[0]]
                         + [("100us", s, CHURN_BOUND_MEM[1]) for s in CHURN_BOUND_MEM[0]])
def test_sim_churn_first_seeds_bounded(think: str, seed: int, churn_s: float) -> None:
    """Scheduler-log 385: the memory-drive churn (sim_churn_gaps) over the first seeds of
    370's mem20 and mem models -- no tenant with queued IO goes STALL_S without a
    completion.  A regression bound over the merged 376 / 378 / 379 (the SLO override's
    rate walk, the bypass debt left by a policy switch or a class change).  On main
    942ff3c's tree (376 without 378 / 379) mem20 seed 18 fails, a / b / c 126 / 100 / 126
    ms at ~1.2 s (379's rate walk, then the debt of b leaving the latency class: 378);
    the other 29 pass there too.  ~11 s on the shared host (9.5 s of CPU)."""
    gaps = sim_churn_gaps(seed, churn_s, think=think)
    assert max(gaps.values()) <= STALL_S, gaps


def test_sim_knob_change_dispatches_at_once() -> None:
    """Scheduler-log 370f / 376: a knob change dispatches at once, as the live reactor
    (it pumps every iteration), not at the simulator's next event -- which can be the
    WAKE the scheduler asked for under the old knobs (a 1 IOPS limit: ~1 s away)."""
    from control.simulator import Simulator
    sim = Simulator("dct983", "qos", seed=1)
    sim.add_tenant("a", {"rw": "randread", "bs": "4k", "iodepth": 4}, limit_iops=1)
    sim.run_until_ns(100_000_000)
    assert sim.tenant_stats("a")["completed"] <= 4
    sim.set_tenant("a", limit_iops=0)          # the limit lifted: the queue may go now
    c0 = sim.tenant_stats("a")["completed"]
    sim.run_until_ns(110_000_000)
    assert sim.tenant_stats("a")["completed"] - c0 >= 100
    sim.set_tenant("a", limit_iops=1)
    sim.run_until_ns(200_000_000)
    c1 = sim.tenant_stats("a")["completed"]
    sim.set_policy("drr")                      # drr enforces no limit
    sim.run_until_ns(210_000_000)
    assert sim.tenant_stats("a")["completed"] - c1 >= 100


def test_live_knob_churn_no_tenant_stalls(tmp_path: Path) -> None:
    """fio on three tenants; a random tenant.set / drive.set every 100 ms for CHURN_S.
    The reactor's per-tenant stall tracker must stay <= 100 ms for every tenant."""
    need("fio")
    rng = random.Random(11)
    with daemon(CHURN_CFG) as d:
        procs = [_fio(f"nbd+unix:///{n}?socket={d.nbd}", tmp_path, n, *CHURN_FIO[n],
                      runtime=CHURN_S + 1, log=True) for n in CHURN_FIO]
        try:
            c = d.client()
            t0 = time.monotonic()
            while time.monotonic() - t0 < 1.0:          # every tenant has IO flowing
                if all(d.engine.tenant_stats(n)["tenant"]["completed"] > 100 for n in CHURN_FIO):
                    break
                time.sleep(0.05)
            start = {n: d.engine.tenant_stats(n)["stall_max_ns"] for n in CHURN_FIO}
            applied = refused = 0
            worst_live = {n: 0 for n in CHURN_FIO}    # stall_now seen by the sampler
            t0 = time.monotonic()
            nxt = t0
            while time.monotonic() - t0 < CHURN_S:
                op, args = _random_change(rng)
                try:
                    c.call(op, persist=False, **args)
                    applied += 1
                except Exception as e:                 # a combination the config refuses
                    assert getattr(e, "code", "") == "invalid", e
                    refused += 1
                for n in CHURN_FIO:
                    s = d.engine.tenant_stats(n)
                    worst_live[n] = max(worst_live[n], s["stall_now_ns"])
                nxt += 0.1
                time.sleep(max(0.0, nxt - time.monotonic()))
            stats = {n: d.engine.tenant_stats(n) for n in CHURN_FIO}
            for p in procs:
                p.wait(timeout=30)
        finally:
            _stop(*procs)
    for p in procs:
        assert p.returncode == 0, p.stderr.read()[-2000:] if p.stderr else ""
    gaps_ms = {n: stats[n]["stall_max_ns"] / 1e6 for n in CHURN_FIO}
    fio_zero = {n: _fio_zero_windows(tmp_path / n) for n in CHURN_FIO}
    report = (f"churn: {applied} changes applied, {refused} refused; server-side longest "
              f"zero-completion gap with IO outstanding (ms): "
              f"{ {n: round(v, 1) for n, v in gaps_ms.items()} } (before the churn: "
              f"{ {n: round(v / 1e6, 1) for n, v in start.items()} }); fio 100 ms windows "
              f"with 0 IOs: {fio_zero}")
    print(report)
    assert applied > CHURN_S * 5, report        # the churn really happened
    for n, g in gaps_ms.items():
        assert g <= STALL_S * 1e3, report
        assert stats[n]["tenant"]["completed"] > 1000, report


RM_CFG = """
drives:
  - {name: m0, backend: memory, size: 512MiB, policy: qos}
tenants:
  - {name: slow, drive: m0, size: 64MiB, limit: 1MiB/s}
  - {name: good, drive: m0, size: 64MiB}
  - {name: other, drive: m0, size: 64MiB}
"""


def _queued(d: Any, name: str, want: int, timeout: float = 10.0) -> int:
    t0 = time.monotonic()
    q = 0
    while time.monotonic() - t0 < timeout:
        q = d.engine.tenant_stats(name)["tenant"]["queued"]
        if q >= want:
            break
        time.sleep(0.02)
    return int(q)


def test_live_rm_of_throttled_tenant_is_prompt(tmp_path: Path) -> None:
    """A 1 MiB/s tenant with 64 queued 128 KiB writes (64 s of its limit) is removed
    in well under 1 s; its fio gets errors and exits; good's fio is unharmed; an
    admin request from another client during the removal is answered."""
    need("fio")
    with daemon(RM_CFG) as d:
        slow = _fio(f"nbd+unix:///slow?socket={d.nbd}", tmp_path, "slow", "randwrite", "128k",
                    64, runtime=60)
        good = _fio(f"nbd+unix:///good?socket={d.nbd}", tmp_path, "good", "randread", "4k",
                    8, runtime=4)
        try:
            q = _queued(d, "slow", 48)
            assert q >= 48, f"fio did not queue IO on slow ({q})"
            before = d.engine.tenant_stats("good")["tenant"]["completed"]
            res: dict[str, Any] = {}

            def other() -> None:
                started.wait()
                t = time.monotonic()
                d.client().call("tenant.set", name="other", weight=3, persist=False)
                res["other_s"] = time.monotonic() - t

            started = threading.Event()
            th = threading.Thread(target=other)
            th.start()
            c = d.client()
            t = time.monotonic()
            started.set()
            c.call("tenant.remove", name="slow", force=True)
            rm_s = time.monotonic() - t
            th.join(timeout=10)
            slow.wait(timeout=10)                        # it must not hang on its queued IO
            assert slow.returncode not in (None, 0)
            err = slow.stderr.read() if slow.stderr else ""
            good.wait(timeout=20)
            after = d.engine.tenant_stats("good")["tenant"]["completed"]
            names = [t["name"] for t in c.call("tenant.list")["tenants"]]
        finally:
            _stop(slow, good)
    print(f"rm: {q} queued, removal {rm_s * 1e3:.1f} ms, concurrent tenant.set "
          f"{res.get('other_s', -1) * 1e3:.1f} ms")
    assert rm_s < 1.0, rm_s
    assert res.get("other_s", 99) < 1.0, res
    assert "slow" not in names
    # fio saw ESHUTDOWN ("Cannot send after transport endpoint shutdown") or the close
    assert "shutdown" in err.lower() or "not connected" in err.lower(), err[-1500:]
    assert good.returncode == 0, (good.stderr.read() if good.stderr else "")[-1500:]
    assert after > before


def test_rm_does_not_hold_the_admin_lock(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the Engine's removal slowed to 1.5 s, a tenant.set of another tenant from
    another client is answered at once; ops on the tenant being removed answer
    not_found; the removal then completes and is persisted."""
    with daemon(RM_CFG) as d:
        ops = d.plane.control
        real = ops.engine.remove_tenant
        entered = threading.Event()

        def slow_remove(name: str) -> None:
            entered.set()
            time.sleep(1.5)
            real(name)

        monkeypatch.setattr(ops.engine, "remove_tenant", slow_remove)
        res: dict[str, Any] = {}

        def rm() -> None:
            t = time.monotonic()
            res["rm"] = d.client().call("tenant.remove", name="slow", force=True)
            res["rm_s"] = time.monotonic() - t

        th = threading.Thread(target=rm)
        th.start()
        assert entered.wait(5)
        c = d.client()
        t = time.monotonic()
        c.call("tenant.set", name="other", weight=5)
        set_s = time.monotonic() - t
        with pytest.raises(Exception) as ei:
            c.call("tenant.set", name="slow", weight=2)
        assert getattr(ei.value, "code", "") == "not_found", ei.value
        assert "being removed" in str(ei.value)
        with pytest.raises(Exception) as ei:
            c.call("tenant.remove", name="slow", force=True)
        assert getattr(ei.value, "code", "") == "not_found", ei.value
        th.join(10)
        names = [t["name"] for t in c.call("tenant.list")["tenants"]]
        saved = [t.name for t in d.saved().tenants]
        weight = [t.weight for t in d.saved().tenants if t.name == "other"]
    assert set_s < 0.5, set_s
    assert res["rm_s"] >= 1.5 and res["rm"]["tenant"] == "slow"
    assert "slow" not in names and "slow" not in saved and weight == [5]
