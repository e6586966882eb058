"""Trace-driven evaluation of anticipatory lending in the simulator (SIA's measurements).

    docs = evaluate("configs/scenarios/training-cluster.yaml",
                    ["static", "share", "robust"], forecaster="noisy", seed=7)
    docs[2]["anticipation"]["borrower_mean_job_latency_s"]

Model.  One drive.  Owner tenants hold reservations for their training jobs
(class reserved or latency, as the scenario says); each owner's jobs arrive
per the trace and run as open-loop Simulator workloads with phases
(per-iteration 128 KiB read bursts, compute gaps, periodic checkpoints written
sequentially in 256 KiB IOs).  Each borrower job is a scavenger tenant that
reads (some also write) closed-loop from its arrival until it has moved its
bytes.  Owners' and borrowers' jobs that overlap are simulated together; the
run ends when every borrower is done (or ``drain`` after the trace).  The forecaster's messages (control/lending/trace.py) go through the wire
schema (control/lending/forecast.py) into the planner (control/lending/planner.py); the
planner runs every ``tick`` of virtual time and its limits are applied with
``Simulator.set_tenant`` between steps -- no per-IO Python.

Policies:
  static      borrowers share what no owner reserved: C - sum(reservations);
  share       naive work-conserving lending: borrowers are unlimited
              best-effort tenants beside the owners (no scavenger class,
              nothing reclaims for an arriving owner);
  anticipate  the planner in point mode on the forecaster's word;
  robust      the planner: calibrated quantiles, adaptive coverage, fallback,
              cautious writes;
  oracle      the planner in point mode fed exact forecasts.

Metrics (the ``anticipation`` object of each result document):
  borrower_mean_job_latency_s  mean over borrower jobs of completion - arrival
                               (a job still running at the cut-off counts
                               until the cut-off: ``borrower_unfinished``);
  borrower_job_latency_by_kind_s  the same mean over reader jobs and over
                               writer jobs apart ({"reader": s, "writer": s},
                               null for a kind with no job) with
                               ``borrower_jobs_by_kind``: which kind of
                               borrower job a policy slows (the jobs are the
                               same under every policy of one trace and seed);
  owner_slowdown_probability   fraction of owner windows (one tick each) with
                               demand in which the owner was slowed: it moved
                               less than 95% of min(demand, reservation) --
                               demand shifted by its SLO (an IO asked for in
                               the last SLO of a window is not yet late) and a
                               two-IO allowance for IO granularity -- or its
                               p99 latency exceeded its SLO (judged on windows
                               with >= 100 completions: a p99 needs them);
  owner_near_slo_windows       windows not slowed whose p99 exceeded 90% of the
                               SLO: the margin.  Slow windows are rare events
                               (a 0.01-point change of the planner's headroom
                               moves seeds 1-20 from none to 1-5 of ~30000),
                               so a change is judged on this count too;
  reclaim_latency_ms           at each owner job arrival: from the arrival to
                               the first 5 ms in which the owner completes
                               >= 95% of its demanded rate (1 ms resolution,
                               includes one IO's latency; capped at 50 ms);
  utilization                  bytes moved by everyone / (capacity x elapsed).
"""
from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from control import units
from control.errors import ConfigError
from control.lending.forecast import MessageError, parse_message
from control.lending.planner import Planner, PlannerConfig, is_guarded, parse_planner_config
from control.scenario import Device, parse_device
from control.schema import (
    Key,
    load_yaml,
    p_choice,
    p_duration,
    p_int,
    p_name,
    p_percent,
    p_rate,
    p_size,
    p_str,
    read_section,
    section,
)
from control.lending.trace import (
    FORECASTERS,
    BorrowerJobs,
    IOProfile,
    Lognormal,
    OwnerJobs,
    Trace,
    TraceJob,
    TraceSpec,
    forecast_messages,
    generate,
    load_trace,
)

POLICIES = ("static", "share", "anticipate", "robust", "oracle")
NS = 1_000_000_000
MiB = 1 << 20
READ_BS = 128 * 1024
CKPT_BS = 256 * 1024
SLOWDOWN_THROUGHPUT = 0.95
P99_MIN_SAMPLES = 100
RECLAIM_SAMPLE_MS = 50
RECLAIM_WINDOW_MS = 5
NEAR_SLO = 0.9        # owner_near_slo_windows: not slowed, but p99 > 90% of the SLO
MAX_ITERATIONS_PER_CHECKPOINT = 7     # 2 phases each + 1 checkpoint phase <= 16 phases


# ---------------------------------------------------------------- scenario ---

@dataclass(frozen=True)
class Owner:
    name: str
    reserve_bps: int
    latency_slo_s: float
    klass: str


@dataclass(frozen=True)
class ClusterScenario:
    name: str
    source: str
    description: str
    device: Device
    duration_s: float
    seed: int
    capacity_bps: int
    tick_s: float
    drain_s: float
    forecaster: str
    owners: tuple[Owner, ...]
    spec: TraceSpec
    planner: PlannerConfig
    owner_iodepth: int
    borrower_bs: int
    borrower_iodepth: int
    trace_path: str | None
    trace_format: str
    time_scale: float


def _p_float(lo: float, hi: float) -> Any:
    def parse(v: Any) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
            raise ValueError(f"{v!r} is not a number in {lo}..{hi}")
        return float(v)
    return parse


def _p_fraction(v: Any) -> float:
    return p_percent(v) / 100.0


def _p_range(v: Any) -> tuple[float, float]:
    if not isinstance(v, list) or len(v) != 2:
        raise ValueError(f"{v!r} is not a [low, high] pair of percentages")
    lo, hi = _p_fraction(v[0]), _p_fraction(v[1])
    if lo > hi or hi <= 0:
        raise ValueError(f"{v!r}: low must be <= high and high > 0")
    return lo, hi


def _p_secs(v: Any) -> float:
    return float(p_duration(positive=True)(v)) / 1e9


TOP_KEYS = section(
    Key("name", "name", p_name, "scenario name (default: the file name)"),
    Key("description", "string", p_str, "free text", ""),
    Key("device", "mapping", lambda v: v, "the drive (as in other scenarios)", {}),
    Key("duration", "duration", p_duration(positive=True), "window in which jobs arrive", "90s"),
    Key("seed", "integer", p_int(0, 2**63 - 1), "random seed of trace, forecasts and drive", 1),
    Key("cluster", "mapping", lambda v: v, "the training cluster: see cluster keys", required=True),
)
CLUSTER_KEYS = section(
    Key("capacity", "rate", p_rate, "what the drive sustains, read-equivalent bytes/s",
        required=True),
    Key("tick", "duration", p_duration(positive=True), "planner period = owner window", "100ms"),
    Key("drain", "duration", p_duration(), "extra time for borrowers to finish", "120s"),
    Key("forecaster", "choice", p_choice(FORECASTERS), "default forecaster", "noisy"),
    Key("history", "integer", p_int(0, 100000), "owner jobs of history fed to the planner "
        "before time 0 (calibration warm-up)", 300),
    Key("diurnal", "mapping", lambda v: v, "arrival rate cycle: period, amplitude"),
    Key("owners", "list", lambda v: v, "owner tenants: name, reserve, latency_slo, class",
        required=True),
    Key("owner_jobs", "mapping", lambda v: v, "owners' jobs: see owner_jobs keys", {}),
    Key("borrower_jobs", "mapping", lambda v: v, "borrowers' jobs: see borrower_jobs keys", {}),
    Key("planner", "mapping", lambda v: v, "planner settings: see planner keys", {}),
    Key("trace", "mapping", lambda v: v, "load jobs from a public trace: path, format, "
        "time_scale"),
)
DIURNAL_KEYS = section(
    Key("period", "duration", p_duration(positive=True), "length of one day", "60s"),
    Key("amplitude", "percent", p_percent, "swing of the arrival rate", "50%"),
)
OWNER_KEYS = section(
    Key("name", "name", p_name, "tenant name", required=True),
    Key("reserve", "rate", p_rate, "its reservation, bytes/s", required=True),
    Key("latency_slo", "duration", p_duration(positive=True), "p99 target", required=True),
    Key("class", "choice", p_choice(("reserved", "latency")), "reserved | latency", "reserved"),
)
OWNER_JOB_KEYS = section(
    Key("jobs_per_min", "number", _p_float(0.01, 600), "mean submissions per owner", 2.5),
    Key("duration", "duration", p_duration(positive=True), "median job duration", "8s"),
    Key("duration_sigma", "number", _p_float(0, 5), "log-normal sigma (tail)", 0.8),
    Key("duration_max", "duration", p_duration(positive=True), "cap", "40s"),
    Key("lead", "duration", p_duration(positive=True), "median queueing delay (forecast lead)", "5s"),
    Key("lead_sigma", "number", _p_float(0, 5), "log-normal sigma", 0.7),
    Key("lead_min", "duration", p_duration(positive=True), "shortest lead", "1s"),
    Key("lead_max", "duration", p_duration(positive=True), "longest sampled lead", "30s"),
    Key("demand", "list", _p_range, "peak read rate as [low, high] share of the reservation",
        ["60%", "90%"]),
    Key("iteration", "list", lambda v: tuple(_p_secs(x) for x in v), "[low, high] iteration time",
        ["200ms", "400ms"]),
    Key("burst", "list", _p_range, "[low, high] share of an iteration spent reading",
        ["40%", "70%"]),
    Key("checkpoint_period", "duration", p_duration(), "0 = no checkpoints", "2s"),
    Key("checkpoint", "size", p_size(0), "bytes per checkpoint", "64MiB"),
    Key("checkpoint_rate", "list", _p_range, "[low, high] checkpoint write rate, share of "
        "the reservation", ["5%", "10%"]),
    Key("iodepth", "integer", p_int(1, 65536), "owner IO depth", 64),
)
BORROWER_JOB_KEYS = section(
    Key("jobs_per_min", "number", _p_float(0, 6000), "mean borrower submissions", 6.0),
    Key("size", "size", p_size(1 << 20), "median bytes a job moves", "3GiB"),
    Key("size_sigma", "number", _p_float(0, 5), "log-normal sigma", 1.0),
    Key("size_min", "size", p_size(1 << 20), "smallest", "256MiB"),
    Key("size_max", "size", p_size(1 << 20), "largest", "16GiB"),
    Key("writers", "percent", p_percent, "share of jobs that also write", "25%"),
    Key("write_mix", "percent", p_percent, "a writer's share of writes", "30%"),
    Key("bs", "size", p_size(4096, 16 << 20, 4096, bare_bytes=True), "block size", "128k"),
    Key("iodepth", "integer", p_int(1, 65536), "IO depth", 16),
)
TRACE_KEYS = section(
    Key("path", "string", p_str, "trace file (relative to the scenario)", required=True),
    Key("format", "choice", p_choice(("helios", "philly")), "helios | philly", required=True),
    Key("time_scale", "number", _p_float(1e-9, 1e9), "trace seconds per file second", 1 / 60),
)


def _dflt(keys: dict[str, Key], got: Mapping[str, Any], name: str) -> Any:
    """The given value, else the documented default parsed (docs and code cannot disagree)."""
    if name in got:
        return got[name]
    d = keys[name].default
    return keys[name].parse(d) if d is not None else None


def is_cluster_scenario(path: str | Path) -> bool:
    """True if the file is a training-cluster scenario (has a top-level ``cluster:``)."""
    try:
        data = load_yaml(path)
    except ConfigError:
        return False
    return isinstance(data, dict) and "cluster" in data


def parse_cluster_scenario(data: Any, src: str, default_name: str = "training-cluster") -> ClusterScenario:
    top = read_section(data, TOP_KEYS, src, "")
    c = read_section(top["cluster"], CLUSTER_KEYS, src, "cluster")
    dev = parse_device(top.get("device", {}), src)
    raw_owners = c["owners"]
    if not isinstance(raw_owners, list) or not raw_owners:
        raise ConfigError(src, "cluster.owners", "expected a non-empty list of owners")
    owners: list[Owner] = []
    for i, raw in enumerate(raw_owners):
        o = read_section(raw, OWNER_KEYS, src, f"cluster.owners[{i}]")
        if any(x.name == o["name"] for x in owners):
            raise ConfigError(src, f"cluster.owners[{i}].name", f"'{o['name']}' is used twice")
        if o["reserve"] <= 0:
            raise ConfigError(src, f"cluster.owners[{i}].reserve", "must be > 0")
        owners.append(Owner(o["name"], o["reserve"], o["latency_slo"] / 1e9,
                            o.get("class", "reserved")))
    cap = c["capacity"]
    if sum(o.reserve_bps for o in owners) > cap:
        raise ConfigError(src, "cluster.owners", f"reservations add up to "
                          f"{units.human_rate(sum(o.reserve_bps for o in owners))}, more than "
                          f"the capacity {units.human_rate(cap)}")
    di = read_section(c.get("diurnal", {}), DIURNAL_KEYS, src, "cluster.diurnal")
    oj = read_section(c.get("owner_jobs", {}), OWNER_JOB_KEYS, src, "cluster.owner_jobs")
    bj = read_section(c.get("borrower_jobs", {}), BORROWER_JOB_KEYS, src, "cluster.borrower_jobs")
    planner = parse_planner_config(c.get("planner", {}), src, "cluster.planner", cap)

    def o_(k: str) -> Any:
        return _dflt(OWNER_JOB_KEYS, oj, k)

    def b_(k: str) -> Any:
        return _dflt(BORROWER_JOB_KEYS, bj, k)

    it = o_("iteration")
    if len(it) != 2 or not 0 < it[0] <= it[1]:
        raise ConfigError(src, "cluster.owner_jobs.iteration", "expected [low, high] durations")
    if b_("size_min") > b_("size_max"):
        raise ConfigError(src, "cluster.borrower_jobs.size_min", "is above size_max")
    owner_jobs = OwnerJobs(
        jobs_per_min=o_("jobs_per_min"),
        duration_s=Lognormal(o_("duration") / 1e9, o_("duration_sigma"), 0.5, o_("duration_max") / 1e9),
        lead_s=Lognormal(o_("lead") / 1e9, o_("lead_sigma"), o_("lead_min") / 1e9, o_("lead_max") / 1e9),
        demand=o_("demand"), iteration_s=it, burst_frac=o_("burst"),
        checkpoint_period_s=o_("checkpoint_period") / 1e9, checkpoint_bytes=o_("checkpoint"),
        checkpoint_rate=o_("checkpoint_rate"))
    borrower_jobs = BorrowerJobs(
        jobs_per_min=b_("jobs_per_min"),
        size_bytes=Lognormal(b_("size"), b_("size_sigma"), b_("size_min"), b_("size_max")),
        writers=b_("writers") / 100.0, write_fraction=b_("write_mix") / 100.0)
    duration_s = _dflt(TOP_KEYS, top, "duration") / 1e9
    spec = TraceSpec(owners=tuple((o.name, o.reserve_bps) for o in owners), duration_s=duration_s,
                     owner_jobs=owner_jobs, borrower_jobs=borrower_jobs,
                     diurnal_period_s=_dflt(DIURNAL_KEYS, di, "period") / 1e9,
                     diurnal_amplitude=_dflt(DIURNAL_KEYS, di, "amplitude") / 100.0,
                     history_jobs=_dflt(CLUSTER_KEYS, c, "history"),
                     write_cost=planner.write_cost)
    tr = read_section(c["trace"], TRACE_KEYS, src, "cluster.trace") if "trace" in c else None
    trace_path = None
    if tr is not None:
        p = Path(tr["path"])
        trace_path = str(p if p.is_absolute() else Path(src).resolve().parent / p)
    tick_ns = _dflt(CLUSTER_KEYS, c, "tick")
    if tick_ns < 10_000_000:
        raise ConfigError(src, "cluster.tick", "must be at least 10ms")
    return ClusterScenario(
        name=top.get("name", default_name), source=src, description=top.get("description", ""),
        device=dev, duration_s=duration_s, seed=_dflt(TOP_KEYS, top, "seed"), capacity_bps=cap,
        tick_s=tick_ns / 1e9, drain_s=_dflt(CLUSTER_KEYS, c, "drain") / 1e9,
        forecaster=_dflt(CLUSTER_KEYS, c, "forecaster"), owners=tuple(owners), spec=spec,
        planner=planner, owner_iodepth=o_("iodepth"), borrower_bs=b_("bs"),
        borrower_iodepth=b_("iodepth"), trace_path=trace_path,
        trace_format=tr["format"] if tr else "helios",
        time_scale=_dflt(TRACE_KEYS, tr, "time_scale") if tr else 1 / 60)


def load_cluster_scenario(path: str | Path) -> ClusterScenario:
    data = load_yaml(path)
    if data is None:
        raise ConfigError(str(path), "", "is empty")
    stem = Path(path).name.rsplit(".", 1)[0]
    return parse_cluster_scenario(data, str(path), default_name=stem or "training-cluster")


def make_trace(sc: ClusterScenario, seed: int) -> Trace:
    """The scenario's trace: generated from its spec, or loaded from its trace file."""
    if sc.trace_path is None:
        return generate(sc.spec, seed)
    return load_trace(sc.trace_path, sc.trace_format, dict(sc.spec.owners), seed,
                      time_scale=sc.time_scale, owner_jobs=sc.spec.owner_jobs,
                      borrower_jobs=sc.spec.borrower_jobs, write_cost=sc.planner.write_cost,
                      max_duration_s=sc.duration_s)


# ------------------------------------------------------------- owner model ---

@dataclass(frozen=True)
class _Phase:
    dur_ns: int
    rate_bps: int         # 0 = idle
    write: bool


def owner_phases(p: IOProfile) -> list[_Phase]:
    """The job's loop of phases: k x (read burst, compute) then a checkpoint."""
    it_ns = max(2_000_000, round(p.iteration_s * NS))
    burst_ns = max(1_000_000, round(it_ns * p.burst_frac))
    out: list[_Phase] = []
    k = 1
    if p.checkpoint_bytes and p.write_bps:
        k = max(1, min(MAX_ITERATIONS_PER_CHECKPOINT, round(p.checkpoint_period_s / p.iteration_s)))
    for _ in range(k):
        out.append(_Phase(burst_ns, p.read_bps, False))
        if it_ns > burst_ns:
            out.append(_Phase(it_ns - burst_ns, 0, False))
    if p.checkpoint_bytes and p.write_bps:
        out.append(_Phase(max(1_000_000, round(p.checkpoint_bytes / p.write_bps * NS)),
                          p.write_bps, True))
    return out


def owner_workload(j: TraceJob, delay_ns: int, iodepth: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    base = {"rw": "randread", "bs": str(READ_BS), "iodepth": iodepth,
            "rate": f"{j.io.read_bps}B/s", "startdelay": f"{delay_ns}ns",
            "runtime": f"{max(1, round(j.duration_s * NS))}ns"}
    phases: list[dict[str, Any]] = []
    for ph in owner_phases(j.io):
        if ph.rate_bps == 0:
            phases.append({"duration": f"{ph.dur_ns}ns", "idle": True})
        elif ph.write:
            phases.append({"duration": f"{ph.dur_ns}ns", "rw": "write", "bs": str(CKPT_BS),
                           "rate": f"{ph.rate_bps}B/s"})
        else:
            phases.append({"duration": f"{ph.dur_ns}ns"})
    return base, phases


def owner_demand(j: TraceJob, t_s: float) -> float:
    """Bytes job j's schedule has asked for by time t_s (continuous)."""
    if t_s <= j.start_s:
        return 0.0
    t = min(t_s, j.end_s) - j.start_s
    phases = owner_phases(j.io)
    cycle = sum(p.dur_ns for p in phases) / NS
    per_cycle = sum(p.rate_bps * p.dur_ns / NS for p in phases)
    full = math.floor(t / cycle)
    rest = t - full * cycle
    total = full * per_cycle
    for p in phases:
        d = p.dur_ns / NS
        total += p.rate_bps * min(rest, d)
        rest -= d
        if rest <= 0:
            break
    return total


IDLE = ({"rw": "read", "bs": "4k"}, [{"idle": True}])


# ---------------------------------------------------------------- the run ---

def _shift(msg: Mapping[str, Any], dt: float) -> dict[str, Any]:
    out = dict(msg)
    for k in ("arrival_at", "at"):
        if k in out:
            out[k] = out[k] + dt
    return out


@dataclass
class _Borrower:
    job: TraceJob
    name: str
    done_s: float | None = None
    last_bytes: int = 0
    last_t: float = 0.0


def _p99(counts: np.ndarray, edges: np.ndarray) -> float:
    c = np.cumsum(counts)
    n = int(c[-1])
    if n == 0:
        return 0.0
    i = int(np.searchsorted(c, 0.99 * n))
    return float(edges[min(i, len(edges) - 1)]) / 1e3


def run_policy(sc: ClusterScenario, trace: Trace, policy: str, forecaster: str, seed: int,
               messages: Sequence[tuple[float, dict[str, Any]]] | None = None) -> dict[str, Any]:
    """One policy on one trace: the result document (see the module docs)."""
    from control.bench.results import device_overrides
    from control.simulator import Simulator
    from dataplane.sim import hist_edges_ns
    if policy not in POLICIES:
        raise ValueError(f"{policy!r} is not a policy here (allowed: {', '.join(POLICIES)})")
    wall0 = time.monotonic()
    tick = sc.tick_s
    t_max = sc.duration_s + sc.drain_s
    edges = hist_edges_ns()
    sim = Simulator(device=sc.device.model, policy="qos", seed=seed,
                    ssd_overrides=device_overrides(sc.device),
                    sched_overrides={"max_tenants": max(256, len(trace.jobs) + len(sc.owners) + 8)},
                    bin_s=tick, max_bins=int(t_max / tick) + 4)
    owners = {o.name: o for o in sc.owners}
    ojobs: dict[str, list[TraceJob]] = {o: [] for o in owners}
    for j in trace.owners():
        ojobs[j.user].append(j)
    for ow in sc.owners:
        kw: dict[str, Any] = {"reserve_bps": ow.reserve_bps, "klass": ow.klass}
        if ow.klass == "latency":
            kw["latency_slo_s"] = ow.latency_slo_s
        sim.add_tenant(ow.name, IDLE[0], phases=IDLE[1], **kw)
    borrowers: list[_Borrower] = []
    for j in trace.borrowers():
        name = f"borrow-{j.job_id}"
        wf = j.io.write_fraction
        wl: dict[str, Any] = {"rw": "randrw" if wf else "randread", "bs": str(sc.borrower_bs),
                              "iodepth": sc.borrower_iodepth,
                              "startdelay": f"{max(0, round(j.start_s * NS))}ns"}
        if wf:
            wl["rwmixread"] = max(0, min(100, round(100 * (1 - wf))))
        # naive sharing lends as production schedulers do: borrowers are
        # ordinary tenants, nothing reclaims for the owner; every other
        # policy lends through the scavenger class
        sim.add_tenant(name, wl, klass="best-effort" if policy == "share" else "scavenger")
        borrowers.append(_Borrower(job=j, name=name))

    # --- the planner and its messages (times shifted so the clock is positive)
    cfg = sc.planner
    planner = None
    if policy in ("anticipate", "robust", "oracle"):
        cfg = replace(cfg, mode="robust" if policy == "robust" else "point")
        planner = Planner(cfg, {o.name: o.reserve_bps for o in sc.owners},
                          {b.name: b.job.io.write_fraction for b in borrowers},
                          guarded=[o.name for o in sc.owners
                                   if is_guarded(o.klass, o.latency_slo_s)])
    kind = "oracle" if policy == "oracle" else forecaster
    if messages is None or policy == "oracle":
        messages = forecast_messages(trace.history + trace.jobs, kind, seed)
    offset = math.ceil(max(0.0, -min((t for t, _ in messages), default=0.0))) + 1.0
    hist_msgs = [(t, m) for t, m in messages if t < 0]
    live_msgs = [(t, m) for t, m in messages if t >= 0]
    rejected = 0
    if planner is not None:
        for t, m in hist_msgs:
            rejected += _deliver(planner, _shift(m, offset), t + offset)

    # --- stops: ticks, owner job boundaries, reclaim samples
    stops: dict[int, set[str]] = {}

    def at(t_s: float, what: str) -> None:
        stops.setdefault(max(0, round(t_s * NS)), set()).add(what)
    n_ticks = int(math.floor(t_max / tick + 1e-9))
    for k in range(n_ticks + 1):
        at(k * tick, "tick")
    samples: dict[int, list[tuple[str, TraceJob]]] = {}
    for o, js in ojobs.items():
        for j in js:
            at(j.end_s, "end")
            for i in range(RECLAIM_SAMPLE_MS + 1):
                tns = round(j.start_s * NS) + i * 1_000_000
                stops.setdefault(tns, set()).add("sample")
                samples.setdefault(tns, []).append((o, j))
    order = sorted(stops)

    # owners: first job's workload at t = 0
    nxt = {o: 0 for o in owners}

    def arm(o: str, now_ns: int) -> None:
        js = ojobs[o]
        while nxt[o] < len(js) and round(js[nxt[o]].end_s * NS) <= now_ns:
            nxt[o] += 1
        if nxt[o] < len(js):
            j = js[nxt[o]]
            base, phases = owner_workload(j, max(0, round(j.start_s * NS) - now_ns), sc.owner_iodepth)
            sim.set_workload(o, base, phases=phases, loop_phases=True)
        else:
            sim.set_workload(o, IDLE[0], phases=IDLE[1])
    for o in owners:
        arm(o, 0)

    counts0 = {o: sim.hist(o)[1] for o in owners}
    win_p99: dict[str, list[float]] = {o: [] for o in owners}
    win_n: dict[str, list[int]] = {o: [] for o in owners}
    reclaim_counts: dict[tuple[str, str], list[int]] = {}
    limits_now: dict[str, int] = {}
    mi = 0
    last_tick_ns = 0
    static_pool = max(0, sc.capacity_bps - sum(o.reserve_bps for o in sc.owners))
    split_planner = Planner(replace(cfg, mode="point"), {o.name: o.reserve_bps for o in sc.owners},
                            {b.name: b.job.io.write_fraction for b in borrowers})
    end_ns = round(t_max * NS)
    for tns in order:
        if tns > end_ns:
            break
        sim.run_until_ns(tns)
        what = stops[tns]
        if "sample" in what:
            for o, j in samples[tns]:
                reclaim_counts.setdefault((o, j.job_id), []).append(int(sim.hist(o)[0].count))
        if "end" in what:
            for o in owners:
                js = ojobs[o]
                if nxt[o] < len(js) and round(js[nxt[o]].end_s * NS) <= tns:
                    arm(o, tns)
        if "tick" not in what:
            continue
        now = tns / NS
        # owner windows [last tick, now)
        if tns > 0:
            for o in owners:
                c = sim.hist(o)[1]
                d = c - counts0[o]
                counts0[o] = c
                win_n[o].append(int(d.sum()))
                win_p99[o].append(_p99(d, edges))
        # borrowers: completions and who is active
        active: dict[str, float] = {}
        for b in borrowers:
            if b.done_s is not None or b.job.start_s > now:
                continue
            got = int(sim.hist(b.name)[0].count) * sc.borrower_bs
            if got >= b.job.io.bytes_total:
                span = max(1, got - b.last_bytes)
                frac = (b.job.io.bytes_total - b.last_bytes) / span
                b.done_s = max(b.job.start_s, b.last_t + frac * (now - b.last_t))
                sim.set_workload(b.name, IDLE[0], phases=IDLE[1])
                continue
            b.last_bytes, b.last_t = got, now
            active[b.name] = b.job.io.write_fraction
        # deliver messages up to now
        while mi < len(live_msgs) and live_msgs[mi][0] <= now:
            t, m = live_msgs[mi]
            mi += 1
            if planner is not None:
                rejected += _deliver(planner, _shift(m, offset), t + offset)
        # decide and apply
        if policy == "share":
            new = {b.name: 0 for b in borrowers}
        elif policy == "static":
            split_planner.set_borrowers(active)
            new = split_planner.split(static_pool, static_pool, caution=1.0)
        else:
            assert planner is not None
            if tns > 0:
                for o in owners:   # measured demand of running owner jobs (demand calibration)
                    for j in ojobs[o]:
                        if j.start_s <= now - tick < j.end_s:
                            planner.observe_demand(j.job_id, j.io.peak_cost_bps(cfg.write_cost))
            planner.set_borrowers(active)
            new = planner.plan(now + offset).limits
        for name, lim in new.items():
            if limits_now.get(name) != lim:
                sim.set_tenant(name, limit_bps=lim)
                limits_now[name] = lim
        last_tick_ns = tns
        if now >= sc.duration_s and all(b.done_s is not None for b in borrowers):
            break
    elapsed = last_tick_ns / NS
    return _document(sc, trace, policy, kind, seed, sim, elapsed, ojobs, borrowers, win_p99, win_n,
                     reclaim_counts, planner, rejected, time.monotonic() - wall0)


def _deliver(planner: Planner, raw: Mapping[str, Any], now_s: float) -> int:
    """Validate a wire message and hand it to the planner; 1 if refused."""
    try:
        msg = parse_message(raw, now_s)
    except MessageError:
        return 1
    if planner.check(msg) is not None:
        return 1
    planner.handle(msg, now_s)
    return 0


def _reclaim_ms(counts: list[int], rate_bps: float) -> float:
    """First ms after the arrival from which the owner completes >= 95% of its rate
    over RECLAIM_WINDOW_MS (counts: completions sampled every ms)."""
    need = SLOWDOWN_THROUGHPUT * rate_bps * RECLAIM_WINDOW_MS / 1e3
    w = RECLAIM_WINDOW_MS
    for i in range(len(counts) - w):
        if (counts[i + w] - counts[i]) * READ_BS >= need:
            return float(i)
    return float(RECLAIM_SAMPLE_MS)


def _document(sc: ClusterScenario, trace: Trace, policy: str, kind: str, seed: int, sim: Any,
              elapsed: float, ojobs: Mapping[str, list[TraceJob]], borrowers: list[_Borrower],
              win_p99: Mapping[str, list[float]], win_n: Mapping[str, list[int]],
              reclaim_counts: Mapping[tuple[str, str], list[int]], planner: Planner | None,
              rejected: int, wall_s: float) -> dict[str, Any]:
    tick = sc.tick_s
    windows = slow = slow_thru = slow_lat = near = 0
    owners_out = []
    for o in sc.owners:
        tl = sim.timeline(o.name).astype(float)
        js = ojobs[o.name]
        ow = os_ = 0
        for k in range(len(win_n[o.name])):
            t0, t1 = k * tick, (k + 1) * tick
            dem = sum(owner_demand(j, t1 - o.latency_slo_s) - owner_demand(j, t0 - o.latency_slo_s)
                      for j in js if j.start_s < t1 and j.end_s + o.latency_slo_s > t0)
            if dem <= 0:
                continue
            ow += 1
            want = min(dem, o.reserve_bps * tick)
            got = tl[k] if k < len(tl) else 0.0
            bad_t = bool(want - got > max((1 - SLOWDOWN_THROUGHPUT) * want, 2 * CKPT_BS))
            bad_l = bool(win_n[o.name][k] >= P99_MIN_SAMPLES
                         and win_p99[o.name][k] > o.latency_slo_s * 1e6)
            slow_thru += bad_t
            slow_lat += bad_l
            os_ += bad_t or bad_l
            near += bool(not (bad_t or bad_l) and win_n[o.name][k] >= P99_MIN_SAMPLES
                         and win_p99[o.name][k] > NEAR_SLO * o.latency_slo_s * 1e6)
        windows += ow
        slow += os_
        r = sim.tenant_result(o.name)
        owners_out.append({"name": o.name, "reserve_bps": o.reserve_bps,
                           "latency_slo_us": o.latency_slo_s * 1e6, "jobs": len(js),
                           "windows": ow, "slow_windows": os_, "bw_bytes": round(r.bw_bytes, 1),
                           "lat_us": {k: round(v, 3) for k, v in r.lat.as_dict().items()}})
    reclaims = []
    for o in sc.owners:
        for j in ojobs[o.name]:
            c = reclaim_counts.get((o.name, j.job_id))
            if c and len(c) > RECLAIM_WINDOW_MS:
                reclaims.append(_reclaim_ms(c, min(j.io.read_bps, o.reserve_bps)))
    lat = [((b.done_s if b.done_s is not None else elapsed) - b.job.start_s) for b in borrowers]
    unfinished = sum(b.done_s is None for b in borrowers)
    by_kind: dict[str, list[float]] = {"reader": [], "writer": []}
    for b, x in zip(borrowers, lat):
        by_kind["writer" if b.job.io.write_fraction > 0 else "reader"].append(x)
    total_bytes = sum(sim.tenant_result(n).bytes for n in sim.tenant_names)
    rq = np.array(reclaims) if reclaims else np.zeros(1)
    antic = {
        "borrower_mean_job_latency_s": round(float(np.mean(lat)) if lat else 0.0, 4),
        "owner_slowdown_probability": round(slow / windows, 6) if windows else 0.0,
        "reclaim_latency_ms": {"p50": float(np.percentile(rq, 50)),
                               "p99": float(np.percentile(rq, 99)), "max": float(rq.max())},
        "utilization": round(total_bytes / (sc.capacity_bps * elapsed), 4) if elapsed else 0.0,
        "borrower_jobs": len(borrowers),
        "borrower_job_latency_by_kind_s": {k: round(float(np.mean(v)), 4) if v else None
                                           for k, v in by_kind.items()},
        "borrower_jobs_by_kind": {k: len(v) for k, v in by_kind.items()},
        "borrower_unfinished": unfinished,
        "borrower_bytes": int(sum(sim.tenant_result(b.name).bytes for b in borrowers)),
        "owner_jobs": sum(len(v) for v in ojobs.values()),
        "owner_windows": windows,
        "owner_slow_windows": slow,
        "owner_slow_throughput_windows": slow_thru,
        "owner_slow_latency_windows": slow_lat,
        "owner_near_slo_windows": near,
        "reclaims_measured": len(reclaims),
        "messages_refused": rejected,
    }
    if planner is not None:
        antic["planner"] = {"mode": planner.cfg.mode,
                            "sources": {n: c.state() for n, c in planner.sources.items()}}
    return {"scenario": sc.name, "policy": policy, "mode": "sim", "seed": seed,
            "forecaster": kind if policy not in ("static", "share") else None,
            "duration_s": round(elapsed, 3), "anticipation": antic, "owners": owners_out,
            "device": {"model": sc.device.model, "capacity_bps": sc.capacity_bps},
            "wall_s": round(wall_s, 3)}


def evaluate(scenario: ClusterScenario | str | Path, policies: Sequence[str],
             forecaster: str | None = None, seed: int | None = None,
             duration_s: float | None = None) -> list[dict[str, Any]]:
    """Run one seeded trace under each policy; one document per policy."""
    sc = scenario if isinstance(scenario, ClusterScenario) else load_cluster_scenario(scenario)
    if duration_s is not None:
        sc = replace(sc, duration_s=duration_s, spec=replace(sc.spec, duration_s=duration_s))
    seed = sc.seed if seed is None else seed
    kind = forecaster or sc.forecaster
    if kind not in FORECASTERS:
        raise ValueError(f"{kind!r} is not a forecaster (allowed: {', '.join(FORECASTERS)})")
    for p in policies:
        if p not in POLICIES:
            raise ValueError(f"{p!r} is not a policy here (allowed: {', '.join(POLICIES)})")
    trace = make_trace(sc, seed)
    msgs = forecast_messages(trace.history + trace.jobs, kind, seed)
    return [run_policy(sc, trace, p, kind, seed, msgs) for p in policies]


def format_table(docs: Sequence[Mapping[str, Any]]) -> str:
    """Policies side by side."""
    d0 = docs[0]
    head = (f"{d0['scenario']}  seed={d0['seed']}  forecaster="
            f"{next((d['forecaster'] for d in docs if d['forecaster']), '-')}  "
            f"capacity={units.human_rate(d0['device']['capacity_bps'])}")
    rows = [["policy", "borrower job latency", "owner slowdown P", "reclaim p50/p99/max",
             "utilization", "elapsed"]]
    for d in docs:
        a = d["anticipation"]
        r = a["reclaim_latency_ms"]
        rows.append([d["policy"], f"{a['borrower_mean_job_latency_s']:.2f}s",
                     f"{a['owner_slowdown_probability']:.4f} ({a['owner_slow_windows']}/"
                     f"{a['owner_windows']})",
                     f"{r['p50']:g}/{r['p99']:g}/{r['max']:g} ms", f"{a['utilization']:.3f}",
                     f"{d['duration_s']:g}s"])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                       for i, (c, w) in enumerate(zip(r, widths))).rstrip() for r in rows]
    return "\n".join([head] + lines)


__all__ = [
    "POLICIES",
    "ClusterScenario",
    "Owner",
    "evaluate",
    "format_table",
    "is_cluster_scenario",
    "load_cluster_scenario",
    "make_trace",
    "owner_demand",
    "owner_phases",
    "parse_cluster_scenario",
    "run_policy",
]
