"""A training-cluster trace replayed live (``jbof bench CLUSTER.yaml``): the lending
planner against real IO, compared with the simulator on the same trace.

    docs = run_cluster_live("configs/scenarios/training-live.yaml",
                            ["static", "share", "robust"], workdir)
    docs[0]["anticipation"]["borrower_mean_job_latency_s"], docs[0]["vs_sim"]

Per policy, a fresh in-process data plane with the whole daemon beside it
(``control.daemon.services.Services``: admin plane, forecast service for
``robust``, autotuner when asked) on the scenario's emulated drive, and the
trace played in wall time from t = 0 (1 trace second = 1 s):

* owners (``cluster.owners``) are tenants from the start (their reservation,
  class, latency SLO); each owner job is one fio process started at the job's
  ``start_s`` with the simulator's phase schedule (128 KiB read bursts at the
  job's rate, compute gaps, sequential 256 KiB checkpoint writes:
  ``anticipation.owner_workload`` through ``fio.job_file``), stopped by its
  ``runtime``;
* each borrower job is a tenant added live at its arrival (``tenant.add``
  through the admin plane: class scavenger, or best-effort for ``share``)
  and one fio process that moves the job's bytes (``io_size``) closed loop
  at the scenario's block size and depth; when fio exits the job is done and
  the tenant removed (``tenant.remove``).  So the planner's borrower set
  follows the trace live, as it would follow a cluster's jobs;
* ``robust``: the daemon has a ``forecast:`` section (the scenario's planner
  settings; calibration warm-started from the trace's history, replayed into
  an offline planner exactly as the simulator does) and a pusher -- the
  scheduler's side -- sends the trace's forecast/arrived/finished/cancel
  messages over the forecast socket (``control.lending.forecast.Client``) at
  their trace times, with absolute times mapped to Unix time;
* ``static``: every tick the harness sets each running borrower's limit to
  its share of C - sum(reservations) (the simulator's split);
* ``share``: borrowers are unlimited best-effort tenants.

Metrics are the simulator's (control/lending/anticipation.py), measured from
the data plane's counters every ``tick``: borrower mean job latency
(completion - arrival; a job still running at the cut-off counts until
then), owner slowdown probability (owner windows with demand in which it
moved < 95% of min(demand, reservation), demand shifted by its SLO, or its
window p99 -- from the data plane's own histogram -- exceeded the SLO with
>= 100 completions), utilization.  ``vs_sim`` gives live / sim for each,
from ``anticipation.run_policy`` on the same trace and messages.

The live planner is the simulator's: latency-critical owners (every owner
of training-live.yaml) are guarded, and borrowers are priced by their write
fractions -- which the daemon measures from the data plane's counters
(planner.py section 9) where the simulator takes the trace's; the document's
``planner.borrowers`` gives, per borrower job, the trace's fraction, the
measured one and how long after its arrival it was measured (until then it
is planned as a writer).  Differences from the simulator, by construction:
the live planner gets no measured owner demand (no ``observe_demand``: the
socket has no such message), so owners that run or are due are held from
writers at their whole reservation once active (the simulator's demand
calibration would hold less); the pusher's messages and fio's job starts land within a few ms of
their trace times; and fio's nbd engine, not the drive, bounds what a
client moves on a loaded 2-core machine.
"""
from __future__ import annotations

import dataclasses
import logging
import math
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from control.bench.fio import FioProcess, job_file
from control.bench.live import BenchError
from control.lending.anticipation import (
    CKPT_BS,
    P99_MIN_SAMPLES,
    SLOWDOWN_THROUGHPUT,
    ClusterScenario,
    _deliver,
    _p99,
    _shift,
    load_cluster_scenario,
    make_trace,
    owner_demand,
    owner_workload,
    run_policy,
)
from control.lending.planner import Planner
from control.lending.trace import Trace, TraceJob, forecast_messages

log = logging.getLogger("jbof.bench")
LIVE_POLICIES = ("static", "share", "robust")
MiB = 1 << 20
OWNER_NS = 256 * MiB
BORROWER_NS = 64 * MiB
Progress = Callable[[str, bool], None]      # (text, a new run starts)


def _rate(bps: int) -> str:
    return f"{max(1, bps // MiB)}MiB/s"


def _ns(s: float) -> str:
    return f"{max(1, round(s * 1e9))}ns"


def planner_section(sc: ClusterScenario) -> dict[str, Any]:
    """The scenario's planner settings as a daemon ``forecast.planner`` mapping."""
    p = sc.planner
    return {"mode": "robust", "slowdown_budget": f"{p.slowdown_budget * 100:g}%",
            "horizon": _ns(p.horizon_s), "write_horizon": _ns(p.write_horizon_s),
            "write_cost": p.write_cost, "write_caution": p.write_caution,
            "headroom": f"{p.headroom * 100:g}%", "aci_gamma": p.aci_gamma,
            "fallback_window": p.fallback_window, "fallback_pvalue": p.fallback_pvalue,
            "ring": p.ring}


def warm_calibration(sc: ClusterScenario, msgs: Sequence[tuple[float, dict[str, Any]]],
                     borrowers: Mapping[str, float]) -> dict[str, list[float]]:
    """Arrival residuals per source after the trace's history (as the simulator warms
    its planner), for the daemon's ``forecast.calibration``."""
    p = Planner(sc.planner, {o.name: o.reserve_bps for o in sc.owners}, borrowers)
    offset = math.ceil(max(0.0, -min((t for t, _ in msgs), default=0.0))) + 1.0
    for t, m in msgs:
        if t < 0:
            _deliver(p, _shift(m, offset), t + offset)
    return {n: [round(x, 6) for x in c.ring] for n, c in p.sources.items()}


def daemon_config(sc: ClusterScenario, trace: Trace, policy: str, sockdir: Path,
                  calibration: Mapping[str, list[float]] | None, tune: bool) -> str:
    import yaml
    n_b = max(1, len(trace.borrowers()))
    size = len(sc.owners) * OWNER_NS + n_b * BORROWER_NS
    doc: dict[str, Any] = {
        "drives": [{"name": "d0", "backend": "emulated", "model": sc.device.model,
                    "size": f"{size}B", "policy": "qos", "seed": sc.seed}],
        "tenants": [{"name": o.name, "size": f"{OWNER_NS}B", "reserve": _rate(o.reserve_bps),
                     "class": o.klass, "latency_slo": _ns(o.latency_slo_s)} for o in sc.owners],
    }
    if policy == "robust":
        doc["forecast"] = {"socket": str(sockdir / "f.sock"), "mode": "0600",
                           "capacity": _rate(sc.capacity_bps), "tick": _ns(sc.tick_s),
                           "planner": planner_section(sc),
                           "calibration": dict(calibration or {})}
    if tune:
        doc["tune"] = {"enabled": True, "index": str(sockdir / "tune-index.json")}
    return yaml.safe_dump(doc, sort_keys=False)


class _Daemon:
    """Engine + Services in this process (what ``jbof serve`` runs), sockets in sockdir."""

    def __init__(self, text: str, sockdir: Path) -> None:
        from control.config import load_config
        from control.config_export import engine_config
        from control.daemon.services import Services
        from dataplane.engine import Engine
        path = sockdir / "jbof.yaml"
        path.write_text(text)
        file_cfg = load_config(path)
        cfg = file_cfg.with_overrides(unix=str(sockdir / "nbd.sock"),
                                      admin_socket=str(sockdir / "admin.sock"))
        self.engine = Engine(engine_config(cfg))
        self.engine.start()
        self.stop = threading.Event()
        self.services = Services(self.engine, cfg, None, self.stop.set, file_cfg)
        try:
            self.services.start()
        except BaseException:
            self.engine.close()
            raise
        self.ops = self.services.control
        self.forecast_socket = self.ops.forecast_socket

    def admin(self, op: str, **args: Any) -> Any:
        return self.ops.handle(op, args, "bench")

    def close(self) -> None:
        try:
            self.services.close()
        finally:
            self.engine.close()


def _owner_jobfile(sc: ClusterScenario, j: TraceJob, uri: str, seed: int) -> str:
    from control.scenario import parse_workload
    base, phases = owner_workload(j, 0, sc.owner_iodepth)
    base = {k: v for k, v in base.items() if k not in ("startdelay", "runtime")}
    w = parse_workload(base, "<trace>", f"owner job {j.job_id}", phases=phases, loop=True)
    from control.scenario import Tenant
    t = Tenant(name=f"{j.user}.{j.job_id}", klass="best-effort", weight=1, reserve_bps=0,
               limit_bps=0, limit_iops=0, latency_slo_ns=0, sq_depth=None, workload=w)
    return job_file(t, uri, max(1, round(j.duration_s * 1e9)), seed=seed, size_bytes=OWNER_NS,
                    where=f"owner job {j.job_id}")


def _borrower_jobfile(sc: ClusterScenario, j: TraceJob, uri: str, seed: int) -> str:
    wf = j.io.write_fraction
    lines = ["[global]", "ioengine=nbd", f"uri={uri}", "thread=1", "norandommap=1",
             "randrepeat=0", f"randseed={seed}", f"size={BORROWER_NS}",
             f"io_size={max(sc.borrower_bs, int(j.io.bytes_total))}",
             f"[b.{j.job_id}]", f"rw={'randrw' if wf else 'randread'}",
             f"bs={sc.borrower_bs}", f"iodepth={sc.borrower_iodepth}"]
    if wf:
        lines.append(f"rwmixread={max(0, min(100, round(100 * (1 - wf))))}")
    return "\n".join(lines) + "\n"


def _first_io(eng: Any, j: TraceJob, before: Mapping[str, Any], spawn: float, t0: float,
              started: dict[str, float]) -> None:
    """When owner job j's first IO completes (polled every 2 ms, up to 2 s after its fio
    was spawned): the job's clock starts there -- fio's start-up lag is not the data
    plane's -- so its demand is laid out from it."""
    n0 = int(before["read_bytes"] + before["write_bytes"])
    while time.monotonic() - spawn < 2.0:
        try:
            st = eng.tenant_stats(j.user)["tenant"]
        except Exception:
            return
        if int(st["read_bytes"] + st["write_bytes"]) > n0:
            started[j.job_id] = time.monotonic() - t0
            return
        time.sleep(0.002)


@dataclasses.dataclass
class _LiveBorrower:
    job: TraceJob
    name: str
    fio: FioProcess | None = None
    started_s: float | None = None
    done_s: float | None = None


def run_live_policy(sc: ClusterScenario, trace: Trace, policy: str, forecaster: str,
                    msgs: Sequence[tuple[float, dict[str, Any]]], workdir: Path,
                    tune: bool = False, progress: Progress | None = None) -> dict[str, Any]:
    """One policy live on one trace: a result document like the simulator's."""
    from control.lending.forecast import Client
    from control.lending.planner import PlannerConfig
    if policy not in LIVE_POLICIES:
        raise BenchError(f"{policy!r} is not a live lending policy (allowed: "
                         f"{', '.join(LIVE_POLICIES)})")
    wall0 = time.monotonic()
    sockdir = Path(tempfile.mkdtemp(prefix="jbofl-", dir="/tmp"))
    rundir = workdir / policy
    rundir.mkdir(parents=True, exist_ok=True)
    bjobs = trace.borrowers()
    calib = warm_calibration(sc, msgs, {f"borrow-{j.job_id}": j.io.write_fraction
                                        for j in bjobs}) if policy == "robust" else None
    d = _Daemon(daemon_config(sc, trace, policy, sockdir, calib, tune), sockdir)
    procs: list[FioProcess] = []
    client = None
    try:
        if policy == "robust":
            client = Client(str(d.forecast_socket), timeout_s=5.0)
            client.__enter__()
        owners = {o.name: o for o in sc.owners}
        ojobs: dict[str, list[TraceJob]] = {o: [] for o in owners}
        for j in trace.owners():
            ojobs[j.user].append(j)
        events: list[tuple[float, int, str, Any]] = []   # (t, order, kind, what)
        for o, js in ojobs.items():
            for j in js:
                events.append((j.start_s, 1, "owner", j))
        bs = [_LiveBorrower(j, f"borrow-{j.job_id}") for j in bjobs]
        for b in bs:
            events.append((b.job.start_s, 2, "borrower", b))
        live_msgs = [(t, m) for t, m in msgs if t >= 0]
        if client is not None:
            for t, m in live_msgs:
                events.append((t, 0, "msg", m))
        events.sort(key=lambda e: (e[0], e[1]))
        t_max = sc.duration_s + sc.drain_s
        tick = sc.tick_s
        static_pool = max(0, sc.capacity_bps - sum(o.reserve_bps for o in sc.owners))
        splitter = Planner(dataclasses.replace(sc.planner, mode="point"),
                           {o.name: o.reserve_bps for o in sc.owners},
                           {b.name: b.job.io.write_fraction for b in bs})
        eng = d.engine

        def owner_state(o: str) -> tuple[int, Any]:
            st = eng.tenant_stats(o)["tenant"]
            return int(st["read_bytes"] + st["write_bytes"]), eng.tenant_hist(o)["buckets"]
        import numpy as np

        from dataplane.sim import hist_edges_ns
        edges = hist_edges_ns()
        last = {o: owner_state(o) for o in owners}
        win_bytes: dict[str, list[int]] = {o: [] for o in owners}
        win_p99: dict[str, list[float]] = {o: [] for o in owners}
        win_n: dict[str, list[int]] = {o: [] for o in owners}
        limits: dict[str, int] = {}
        mixes: dict[str, dict[str, Any]] = {}   # borrower -> measured write fraction
        started: dict[str, float] = {}      # owner job -> its first IO (else its spawn)
        refused = 0
        if progress is not None:
            progress(f"{policy}: trace of {sc.duration_s:g}s (+ up to {sc.drain_s:g}s drain), "
                     f"{len(trace.owners())} owner and {len(bs)} borrower jobs", True)
        base_unix = time.time()
        t0 = time.monotonic()
        ei = 0
        k = 0
        seed = sc.seed
        now = 0.0
        while True:
            next_tick = (k + 1) * tick
            # events due before the next tick, each at its time
            while ei < len(events) and events[ei][0] < next_tick:
                t_ev, _o, kind, what = events[ei]
                delay = t0 + t_ev - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                ei += 1
                if kind == "msg":
                    m = dict(what)
                    for key in ("arrival_at", "at"):
                        if key in m:
                            m[key] = m[key] + base_unix
                    assert client is not None
                    r = client.request(m, check=False)
                    refused += not r.get("ok")
                elif kind == "owner":
                    j = what
                    jf = rundir / f"owner-{j.job_id}.fio"
                    jf.write_text(_owner_jobfile(sc, j, eng.uri(j.user), seed))
                    spawn = time.monotonic()
                    before = eng.tenant_stats(j.user)["tenant"]
                    procs.append(FioProcess(j.user, jf, rundir / f"owner-{j.job_id}.json"))
                    started[j.job_id] = spawn - t0
                    threading.Thread(target=_first_io, args=(eng, j, before, spawn, t0, started),
                                     daemon=True).start()
                else:
                    b = what
                    klass = "best-effort" if policy == "share" else "scavenger"
                    d.admin("tenant.add", name=b.name, size=f"{BORROWER_NS}B", drive="d0",
                            **{"class": klass})
                    jf = rundir / f"{b.name}.fio"
                    jf.write_text(_borrower_jobfile(sc, b.job, eng.uri(b.name), seed))
                    b.fio = FioProcess(b.name, jf, rundir / f"{b.name}.json")
                    procs.append(b.fio)
                    b.started_s = time.monotonic() - t0
            delay = t0 + next_tick - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            k += 1
            now = time.monotonic() - t0
            # owner windows
            for o in owners:
                cur = owner_state(o)
                diff = np.asarray(cur[1], dtype=np.int64) - np.asarray(last[o][1], dtype=np.int64)
                win_bytes[o].append(cur[0] - last[o][0])
                win_n[o].append(int(diff.sum()))
                win_p99[o].append(_p99(diff, edges))
                last[o] = cur
            # borrowers: done when fio exits
            active: dict[str, float] = {}
            for b in bs:
                if b.fio is None or b.done_s is not None:
                    continue
                rc = b.fio.poll()
                if rc is None:
                    active[b.name] = b.job.io.write_fraction
                    continue
                if rc != 0:
                    raise BenchError(f"fio for borrower {b.name} failed (exit {rc}): "
                                     f"{b.fio.why()}")
                b.done_s = now
                d.admin("tenant.remove", name=b.name)
            fc = d.services.forecast
            mix = fc.write_mix if fc is not None else None
            for b in bs:
                if mix is not None and b.name in active and mix.measured(b.name):
                    got = mixes.setdefault(b.name, {
                        "trace": b.job.io.write_fraction,
                        "measured_after_s": round(now - (b.started_s or now), 3)})
                    got["measured"] = round(mix.fraction(b.name), 4)
            if policy == "static" and active:
                splitter.set_borrowers(active)
                new = splitter.split(static_pool, static_pool, caution=1.0)
                for name in active:
                    if limits.get(name) != new[name]:
                        d.admin("tenant.set", name=name, limit=f"{new[name]}B/s")
                        limits[name] = new[name]
            for p in procs:
                rc = p.poll()
                if rc not in (None, 0):
                    raise BenchError(f"fio for {p.name} failed (exit {rc}): {p.why()}")
            if progress is not None and k % max(1, round(1 / tick)) == 0:
                running = len(active)
                progress(f"{policy}: t={now:.0f}s, {running} borrower(s) running, "
                         f"{sum(b.done_s is not None for b in bs)}/{len(bs)} done", False)
            if now >= t_max or (now >= sc.duration_s and ei >= len(events)
                                and all(b.done_s is not None for b in bs)):
                break
        elapsed = now
        planner_state = None
        if d.services.forecast is not None:
            snap = d.services.forecast.planner.snapshot(time.time())
            planner_state = {"mode": "robust", "sources": snap["sources"],
                             "guarded": sorted(d.services.forecast.planner.guarded),
                             "borrowers": mixes,
                             "ticks": d.services.forecast.ticks,
                             "tick_errors": d.services.forecast.tick_errors,
                             "role_changes": d.services.forecast.role_changes}
        tune_state = d.ops.tune.status() if d.ops.tune is not None else None
        util_bytes = 0
        for o in owners:
            util_bytes += sum(win_bytes[o])
        for b in bs:
            if b.fio is not None and b.done_s is not None:
                try:
                    r = b.fio.result()
                    util_bytes += r.read_bytes + r.write_bytes
                except Exception:
                    pass
    finally:
        for p in procs:
            p.stop()
        if client is not None:
            client.__exit__(None, None, None)
        d.close()
        shutil.rmtree(sockdir, ignore_errors=True)
    # --- the simulator's metrics
    windows = slow = slow_t = slow_l = 0
    owners_out = []
    for o in sc.owners:
        # demand on the live clock: from the job's first completed IO (fio's start-up
        # lag after its trace time is the client's, not the data plane's)
        js = [dataclasses.replace(j, start_s=started[j.job_id],
                                  end_s=started[j.job_id] + j.duration_s)
              if j.job_id in started else j for j in ojobs[o.name]]
        ow = os_ = 0
        dem_series: list[int] = []
        for i, got in enumerate(win_bytes[o.name]):
            a, b_ = i * tick, (i + 1) * tick
            dem = sum(owner_demand(j, b_ - o.latency_slo_s) - owner_demand(j, a - o.latency_slo_s)
                      for j in js if j.start_s < b_ and j.end_s + o.latency_slo_s > a)
            dem_series.append(int(dem))
            if dem <= 0:
                continue
            ow += 1
            want = min(dem, o.reserve_bps * tick)
            bad_t = bool(want - got > max((1 - SLOWDOWN_THROUGHPUT) * want, 2 * CKPT_BS))
            bad_l = bool(win_n[o.name][i] >= P99_MIN_SAMPLES
                         and win_p99[o.name][i] > o.latency_slo_s * 1e6)
            slow_t += bad_t
            slow_l += bad_l
            os_ += bad_t or bad_l
        windows += ow
        slow += os_
        owners_out.append({"name": o.name, "reserve_bps": o.reserve_bps, "jobs": len(js),
                           "windows": ow, "slow_windows": os_,
                           "bytes": int(sum(win_bytes[o.name])),
                           "demand_bytes": int(sum(owner_demand(j, j.end_s) for j in js)),
                           "window_bytes": win_bytes[o.name], "window_demand": dem_series})
    lat = [((b.done_s if b.done_s is not None else elapsed) - b.job.start_s) for b in bs]
    antic: dict[str, Any] = {
        "borrower_mean_job_latency_s": round(sum(lat) / len(lat), 4) if lat else 0.0,
        "owner_slowdown_probability": round(slow / windows, 6) if windows else 0.0,
        "utilization": round(util_bytes / (sc.capacity_bps * elapsed), 4) if elapsed else 0.0,
        "borrower_jobs": len(bs),
        "borrower_unfinished": sum(b.done_s is None for b in bs),
        "owner_jobs": sum(len(v) for v in ojobs.values()),
        "owner_windows": windows, "owner_slow_windows": slow,
        "owner_slow_throughput_windows": slow_t, "owner_slow_latency_windows": slow_l,
        "messages_refused": refused,
    }
    if planner_state is not None:
        antic["planner"] = planner_state
    doc = {"scenario": sc.name, "policy": policy, "mode": "live", "seed": sc.seed,
           "forecaster": forecaster if policy == "robust" else None,
           "duration_s": round(elapsed, 3), "anticipation": antic, "owners": owners_out,
           "device": {"model": sc.device.model, "capacity_bps": sc.capacity_bps},
           "tune": tune_state, "wall_s": round(time.monotonic() - wall0, 3)}
    return doc


RATIO_KEYS = ("borrower_mean_job_latency_s", "owner_slowdown_probability", "utilization")


def run_cluster_live(scenario: str | Path | ClusterScenario, policies: Sequence[str],
                     workdir: Path, *, forecaster: str | None = None, seed: int | None = None,
                     duration_s: float | None = None, tune: bool = False,
                     compare_sim: bool = True,
                     progress: Progress | None = None) -> list[dict[str, Any]]:
    """Each policy live on one seeded trace (and in the simulator: ``vs_sim``)."""
    sc = scenario if isinstance(scenario, ClusterScenario) else load_cluster_scenario(scenario)
    if duration_s is not None:
        sc = dataclasses.replace(sc, duration_s=duration_s,
                                 spec=dataclasses.replace(sc.spec, duration_s=duration_s))
    seed = sc.seed if seed is None else seed
    kind = forecaster or sc.forecaster
    for p in policies:
        if p not in LIVE_POLICIES:
            raise BenchError(f"{p!r} is not a live lending policy (allowed: "
                             f"{', '.join(LIVE_POLICIES)})")
    if shutil.which("fio") is None:
        raise BenchError("fio is not installed (apt-get install fio)")
    trace = make_trace(sc, seed)
    msgs = forecast_messages(trace.history + trace.jobs, kind, seed)
    docs = []
    for p in policies:
        doc = run_live_policy(sc, trace, p, kind, msgs, workdir, tune=tune, progress=progress)
        if compare_sim:
            sim = run_policy(sc, trace, p, kind, seed, msgs)
            a, s = doc["anticipation"], sim["anticipation"]
            doc["sim"] = {k: s[k] for k in RATIO_KEYS + ("owner_windows", "owner_slow_windows",
                                                         "borrower_unfinished")}
            doc["vs_sim"] = {k: (round(a[k] / s[k], 3) if s[k] else None) for k in RATIO_KEYS}
        docs.append(doc)
    return docs


def format_live_table(docs: Sequence[Mapping[str, Any]]) -> str:
    """Policies side by side, live and (when run) sim with live/sim ratios."""
    rows = [["policy", "borrower job latency", "owner slowdown P", "utilization",
             "sim latency", "sim slowdown P", "live/sim latency", "live/sim slowdown"]]
    for d in docs:
        a = d["anticipation"]
        s = d.get("sim") or {}
        r = d.get("vs_sim") or {}

        def f(x: Any, fmt: str) -> str:
            return "-" if x is None else format(x, fmt)
        rows.append([d["policy"], f"{a['borrower_mean_job_latency_s']:.2f}s"
                     + (f" ({a['borrower_unfinished']} unfinished)"
                        if a["borrower_unfinished"] else ""),
                     f"{a['owner_slowdown_probability']:.4f} ({a['owner_slow_windows']}/"
                     f"{a['owner_windows']})", f"{a['utilization']:.3f}",
                     f(s.get("borrower_mean_job_latency_s"), ".2f"),
                     f(s.get("owner_slowdown_probability"), ".4f")
                     + (f" ({s['owner_slow_windows']}/{s['owner_windows']})" if s else ""),
                     f(r.get("borrower_mean_job_latency_s"), ".2f"),
                     f(r.get("owner_slowdown_probability"), ".2f")])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths))).rstrip()
                     for r in rows)


__all__ = ["LIVE_POLICIES", "format_live_table", "run_cluster_live", "run_live_policy"]
