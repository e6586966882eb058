"""Training-cluster traces: a seeded synthetic generator, Helios/Philly loaders, forecasters.

A trace is a list of jobs.  *Owner* jobs belong to tenants with a reservation
(one job at a time per owner); they are submitted, wait in the cluster
scheduler's queue, start (their IO *arrives* at the drive), and run with a
training IO profile: per-iteration read bursts and periodic checkpoint writes.
*Borrower* jobs belong to nobody's reservation; they run as scavenger tenants
and finish when they have moved their bytes.

Field names follow the public traces so a real one can be dropped in:

* Helios (SenseTime, SC'21) ``cluster_log.csv``: ``job_id, user, vc, gpu_num,
  cpu_num, node_num, state, submit_time, start_time, end_time, duration, queue``
  with times as ``YYYY-MM-DD HH:MM:SS``;
* Philly (Microsoft, ATC'19) ``cluster_job_log`` (JSON list): ``jobid, user, vc,
  status, submitted_time, attempts[{start_time, end_time, detail[{ip, gpus}]}]``.

Neither carries IO, so the loader draws each job's IO profile from its GPU count
with a seeded generator (or reads our extra columns when a file has them:
``role, read_bps, write_bps, iteration_s, burst_frac, checkpoint_period_s,
checkpoint_bytes, bytes_total, write_fraction``).  Real traces span months; the
evaluation compresses time with ``time_scale`` (0.01 maps 100 s to 1 s).

Generator (``generate``): submissions per owner and for borrowers follow a
diurnal Poisson process, rate(t) = mean * (1 + amplitude * sin(2 pi t /
period)), drawn by thinning; queueing delays (forecast leads) and durations
are log-normal (heavy-tailed), borrower sizes log-normal and capped.

Forecasters (``forecast_messages``) turn a trace into the wire messages a
cluster scheduler would send (control/lending/forecast.py), with errors:

* ``oracle``: exact arrivals, durations and demand;
* ``noisy``: the predicted lead is off by a log-normal factor (sigma 0.25),
  an autocorrelated bias (AR(1), phi 0.9, sd 0.3) and a heavy tail (5% of
  forecasts off by a further e^Exp(1)); 3% phantom jobs that never come
  (half of them cancelled); demand off by 15%;
* ``biased``: consistently late (predicts 1.65x the real lead) and demand 30%
  low; 5% phantoms;
* ``adversarial``: wrong in the harmful direction and drifting: jobs arrive
  between 1/2 and 1/4.5 of the predicted lead, and the factor grows by 3% per
  job without bound; demand half the truth; 20% phantoms; 10% of jobs arrive
  with no forecast at all.
"""
from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np

from control.errors import ConfigError

FORECASTERS = ("oracle", "noisy", "biased", "adversarial")
ROLES = ("owner", "borrower")
TIME_FMT = "%Y-%m-%d %H:%M:%S"
EPOCH = datetime(2020, 4, 1, tzinfo=timezone.utc)   # synthetic traces start here
MiB = 1 << 20
HELIOS_FIELDS = ("job_id", "user", "vc", "gpu_num", "cpu_num", "node_num", "state",
                 "submit_time", "start_time", "end_time", "duration", "queue")
IO_FIELDS = ("role", "read_bps", "write_bps", "iteration_s", "burst_frac",
             "checkpoint_period_s", "checkpoint_bytes", "bytes_total", "write_fraction")


# ------------------------------------------------------------------ records ---

@dataclass(frozen=True)
class IOProfile:
    """A job's IO.  Owners: open-loop read bursts of ``read_bps`` for
    ``burst_frac`` of each ``iteration_s``, plus a checkpoint of
    ``checkpoint_bytes`` written at ``write_bps`` every ``checkpoint_period_s``.
    Borrowers: closed loop, ``write_fraction`` of their IOs are writes."""
    read_bps: int = 0
    write_bps: int = 0
    iteration_s: float = 0.25
    burst_frac: float = 0.6
    checkpoint_period_s: float = 0.0
    checkpoint_bytes: int = 0
    bytes_total: int = 0
    write_fraction: float = 0.0

    def peak_cost_bps(self, write_cost: float) -> float:
        """Highest read-equivalent rate the job asks for (owners)."""
        return max(float(self.read_bps), write_cost * self.write_bps)


@dataclass(frozen=True)
class TraceJob:
    job_id: str
    user: str              # the tenant (owners) or the borrower's user
    vc: str
    role: str              # owner | borrower
    gpu_num: int
    submit_s: float        # seconds from the trace start
    start_s: float         # when its IO arrives at the drive
    end_s: float           # owners: when it stops (borrowers: as recorded, unused)
    state: str
    io: IOProfile

    @property
    def lead_s(self) -> float:
        return self.start_s - self.submit_s

    @property
    def duration_s(self) -> float:
        return self.end_s - self.start_s


@dataclass(frozen=True)
class Trace:
    jobs: tuple[TraceJob, ...]          # the measured window, sorted by start
    history: tuple[TraceJob, ...] = ()  # owner jobs before time 0 (calibrator warm-up)

    def owners(self) -> tuple[TraceJob, ...]:
        return tuple(j for j in self.jobs if j.role == "owner")

    def borrowers(self) -> tuple[TraceJob, ...]:
        return tuple(j for j in self.jobs if j.role == "borrower")


# ------------------------------------------------------------------- specs ---

@dataclass(frozen=True)
class Lognormal:
    median: float
    sigma: float
    lo: float = 0.0
    hi: float = math.inf

    def draw(self, rng: np.random.Generator) -> float:
        return float(min(self.hi, max(self.lo, self.median * math.exp(self.sigma * rng.standard_normal()))))


@dataclass(frozen=True)
class OwnerJobs:
    """How owners' jobs look (shared by all owners)."""
    jobs_per_min: float = 2.5
    duration_s: Lognormal = Lognormal(8.0, 0.8, 2.0, 40.0)
    lead_s: Lognormal = Lognormal(5.0, 0.7, 1.0, 30.0)
    gap_s: float = 0.5                   # minimum pause between two jobs of one owner
    demand: tuple[float, float] = (0.6, 0.9)   # peak read rate as a fraction of the reservation
    iteration_s: tuple[float, float] = (0.2, 0.4)
    burst_frac: tuple[float, float] = (0.4, 0.7)
    checkpoint_period_s: float = 2.0
    checkpoint_bytes: int = 64 * MiB
    checkpoint_rate: tuple[float, float] = (0.05, 0.10)   # write rate, share of the reservation
    gpus: tuple[int, ...] = (8, 16, 32)


@dataclass(frozen=True)
class BorrowerJobs:
    jobs_per_min: float = 12.0
    size_bytes: Lognormal = Lognormal(3 * 1024 * MiB, 1.0, 256 * MiB, 16 * 1024 * MiB)
    writers: float = 0.25                # fraction of borrower jobs that write
    write_fraction: float = 0.3          # a writer's share of writes
    gpus: tuple[int, ...] = (1, 2, 4, 8)


@dataclass(frozen=True)
class TraceSpec:
    owners: tuple[tuple[str, int], ...]   # (tenant, reserve_bps)
    duration_s: float = 90.0
    owner_jobs: OwnerJobs = OwnerJobs()
    borrower_jobs: BorrowerJobs = BorrowerJobs()
    diurnal_period_s: float = 60.0
    diurnal_amplitude: float = 0.5
    history_jobs: int = 300               # owner jobs generated before time 0
    write_cost: float = 4.0


# --------------------------------------------------------------- generator ---

def diurnal_arrivals(rng: np.random.Generator, per_min: float, t0: float, t1: float,
                     period_s: float, amplitude: float, phase: float = 0.0) -> list[float]:
    """Poisson arrivals in [t0, t1) with rate per_min/60 * (1 + a sin(2 pi t / P + phase))."""
    if per_min <= 0 or t1 <= t0:
        return []
    peak = per_min / 60.0 * (1.0 + abs(amplitude))
    out: list[float] = []
    t = t0
    while True:
        t += float(rng.exponential(1.0 / peak))
        if t >= t1:
            return out
        rate = per_min / 60.0 * (1.0 + amplitude * math.sin(2 * math.pi * t / period_s + phase))
        if rng.random() * peak < rate:
            out.append(t)


def owner_profile(rng: np.random.Generator, reserve_bps: int, spec: OwnerJobs,
                  write_cost: float) -> IOProfile:
    """Peak read rate and checkpoint write rate, fractions of the reservation
    (the checkpoint's cost, write_cost x its rate, must fit in the reservation too)."""
    read = int(reserve_bps * rng.uniform(*spec.demand)) // MiB * MiB
    write = 0
    if spec.checkpoint_bytes and spec.checkpoint_period_s:
        share = min(float(rng.uniform(*spec.checkpoint_rate)), 1.0 / write_cost)
        write = max(MiB, int(reserve_bps * share) // MiB * MiB)
    return IOProfile(read_bps=max(MiB, read), write_bps=write,
                     iteration_s=round(float(rng.uniform(*spec.iteration_s)), 3),
                     burst_frac=round(float(rng.uniform(*spec.burst_frac)), 3),
                     checkpoint_period_s=spec.checkpoint_period_s if write else 0.0,
                     checkpoint_bytes=spec.checkpoint_bytes if write else 0)


def _owner_jobs(rng: np.random.Generator, name: str, reserve: int, spec: TraceSpec,
                t0: float, t1: float, phase: float, prefix: str) -> list[TraceJob]:
    oj = spec.owner_jobs
    out: list[TraceJob] = []
    free_at = t0
    for k, sub in enumerate(diurnal_arrivals(rng, oj.jobs_per_min, t0, t1,
                                             spec.diurnal_period_s, spec.diurnal_amplitude, phase)):
        start = max(sub + oj.lead_s.draw(rng), free_at)
        dur = oj.duration_s.draw(rng)
        prof = owner_profile(rng, reserve, oj, spec.write_cost)
        gpus = int(rng.choice(oj.gpus))
        out.append(TraceJob(job_id=f"{prefix}{name}-{k}", user=name, vc=name, role="owner",
                            gpu_num=gpus, submit_s=round(sub, 3), start_s=round(start, 3),
                            end_s=round(start + dur, 3), state="COMPLETED", io=prof))
        free_at = start + dur + oj.gap_s
    return out


def generate(spec: TraceSpec, seed: int) -> Trace:
    """A seeded synthetic trace over [0, duration) plus owner-job history before 0."""
    jobs: list[TraceJob] = []
    hist: list[TraceJob] = []
    for i, (name, reserve) in enumerate(spec.owners):
        phase = 2 * math.pi * i / max(1, len(spec.owners))
        orng = np.random.default_rng([seed, 1, i])
        jobs += [j for j in _owner_jobs(orng, name, reserve, spec, 0.0, spec.duration_s, phase, "")
                 if j.start_s < spec.duration_s]
        if spec.history_jobs:
            # history: enough time for history_jobs / len(owners) jobs of this owner
            per = spec.history_jobs / max(1, len(spec.owners))
            span = per / max(spec.owner_jobs.jobs_per_min, 1e-9) * 60.0
            hrng = np.random.default_rng([seed, 2, i])
            h = _owner_jobs(hrng, name, reserve, spec, -span - 120.0, -120.0, phase, "h-")
            hist += [j for j in h if j.end_s < 0]
    bj = spec.borrower_jobs
    brng = np.random.default_rng([seed, 3])
    for k, t in enumerate(diurnal_arrivals(brng, bj.jobs_per_min, 0.0, spec.duration_s,
                                           spec.diurnal_period_s, spec.diurnal_amplitude)):
        size = int(bj.size_bytes.draw(brng)) // MiB * MiB
        wf = bj.write_fraction if brng.random() < bj.writers else 0.0
        jobs.append(TraceJob(job_id=f"b-{k}", user=f"b{k}", vc="spot", role="borrower",
                             gpu_num=int(brng.choice(bj.gpus)), submit_s=round(t, 3),
                             start_s=round(t, 3), end_s=round(t, 3), state="COMPLETED",
                             io=IOProfile(bytes_total=max(MiB, size), write_fraction=wf)))
    jobs.sort(key=lambda j: (j.start_s, j.job_id))
    hist.sort(key=lambda j: (j.submit_s, j.job_id))
    return Trace(jobs=tuple(jobs), history=tuple(hist))


# ----------------------------------------------------------------- loaders ---

def _ts(s: float, time_scale: float) -> str:
    return (EPOCH + timedelta(seconds=round(s / time_scale))).strftime(TIME_FMT)


def _parse_ts(v: Any, src: str, where: str) -> float:
    if not isinstance(v, str):
        raise ConfigError(src, where, f"{v!r} is not a time ({TIME_FMT})")
    try:
        return datetime.strptime(v.strip(), TIME_FMT).replace(tzinfo=timezone.utc).timestamp()
    except ValueError:
        raise ConfigError(src, where, f"{v!r} is not a time ({TIME_FMT})") from None


def write_helios(trace: Trace, time_scale: float = 1.0 / 60.0) -> str:
    """The trace as a Helios ``cluster_log.csv`` (plus our IO columns).

    ``time_scale``: trace seconds per file second (1/60: a trace second is a minute)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(HELIOS_FIELDS + IO_FIELDS)
    for j in trace.jobs:
        p = j.io
        w.writerow([j.job_id, j.user, j.vc, j.gpu_num, j.gpu_num * 6, max(1, j.gpu_num // 8),
                    j.state, _ts(j.submit_s, time_scale), _ts(j.start_s, time_scale),
                    _ts(j.end_s, time_scale), round((j.end_s - j.start_s) / time_scale),
                    round((j.start_s - j.submit_s) / time_scale),
                    j.role, p.read_bps, p.write_bps, p.iteration_s, p.burst_frac,
                    p.checkpoint_period_s, p.checkpoint_bytes, p.bytes_total, p.write_fraction])
    return buf.getvalue()


@dataclass(frozen=True)
class RawJob:
    """One job as a public trace records it (times in seconds since the Unix epoch)."""
    job_id: str
    user: str
    vc: str
    gpu_num: int
    submit: float
    start: float | None
    end: float | None
    state: str
    extra: Mapping[str, str] = field(default_factory=dict)


def _opt_ts(v: Any, src: str, where: str) -> float | None:
    """A time, or None for a job that never started/ended (empty, None, NaN)."""
    if v is None or (isinstance(v, str) and v.strip() in ("", "None", "NaN")):
        return None
    return _parse_ts(v, src, where)


def read_helios(path: str | Path) -> list[RawJob]:
    """Rows of a Helios ``cluster_log.csv`` (one-line ConfigError on bad input)."""
    src = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(src, "", f"cannot read: {e.strerror or e}") from None
    rows = list(csv.DictReader(io.StringIO(text)))
    if not rows:
        raise ConfigError(src, "", "no jobs (expected a Helios cluster_log.csv with a header)")
    missing = [f for f in ("job_id", "user", "vc", "gpu_num", "state", "submit_time",
                           "start_time", "end_time") if f not in rows[0]]
    if missing:
        raise ConfigError(src, "header", f"missing column(s) {', '.join(missing)} "
                          f"(Helios: {', '.join(HELIOS_FIELDS)})")
    out = []
    for i, r in enumerate(rows):
        where = f"line {i + 2}"
        try:
            gpus = int(r["gpu_num"])
        except (TypeError, ValueError):
            raise ConfigError(src, f"{where}.gpu_num", f"{r['gpu_num']!r} is not an integer") from None

        start, end = (_opt_ts(r.get(k), src, f"{where}.{k}") for k in ("start_time", "end_time"))
        out.append(RawJob(job_id=r["job_id"], user=r["user"], vc=r["vc"], gpu_num=gpus,
                          submit=_parse_ts(r["submit_time"], src, f"{where}.submit_time"),
                          start=start, end=end, state=r["state"],
                          extra={k: r[k] for k in IO_FIELDS if r.get(k) not in (None, "")}))
    return out


def read_philly(path: str | Path) -> list[RawJob]:
    """Jobs of a Philly ``cluster_job_log`` (JSON list); the first attempt's start and
    the last attempt's end; GPUs counted over the first attempt's hosts."""
    src = str(path)
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigError(src, "", f"cannot read: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise ConfigError(src, f"line {e.lineno}", f"bad JSON: {e.msg}") from None
    if not isinstance(data, list) or not data:
        raise ConfigError(src, "", "expected a non-empty JSON list of jobs (Philly cluster_job_log)")
    out = []
    for i, j in enumerate(data):
        where = f"[{i}]"
        if not isinstance(j, dict):
            raise ConfigError(src, where, "expected a job object")
        for k in ("jobid", "user", "vc", "status", "submitted_time", "attempts"):
            if k not in j:
                raise ConfigError(src, f"{where}.{k}", "is required (Philly cluster_job_log)")
        att = j["attempts"]
        if not isinstance(att, list):
            raise ConfigError(src, f"{where}.attempts", "expected a list")
        if att and not all(isinstance(a, dict) for a in att):
            raise ConfigError(src, f"{where}.attempts", "expected a list of attempt objects")
        start = _opt_ts(att[0].get("start_time"), src, f"{where}.attempts[0].start_time") if att else None
        end = _opt_ts(att[-1].get("end_time"), src, f"{where}.attempts[-1].end_time") if att else None
        gpus = sum(len(d.get("gpus", [])) for d in (att[0].get("detail") or [])
                   if isinstance(d, dict)) if att else 0
        out.append(RawJob(job_id=str(j["jobid"]), user=str(j["user"]), vc=str(j["vc"]),
                          gpu_num=gpus, submit=_parse_ts(j["submitted_time"], src,
                                                         f"{where}.submitted_time"),
                          start=start, end=end, state=str(j["status"])))
    return out


def load_trace(path: str | Path, fmt: str, owners: Mapping[str, int], seed: int,
               time_scale: float = 1.0 / 60.0, owner_jobs: OwnerJobs = OwnerJobs(),
               borrower_jobs: BorrowerJobs = BorrowerJobs(), write_cost: float = 4.0,
               max_duration_s: float | None = None) -> Trace:
    """A public-format trace as a Trace: jobs whose ``user`` or ``vc`` names an owner
    tenant are that owner's (one at a time: overlapping ones are pushed back), the
    rest are borrowers; unfinished jobs are dropped; time starts at the first
    submission and is scaled by ``time_scale``; missing IO profiles are drawn
    from the seed (borrower bytes from GPUs x duration)."""
    if fmt not in ("helios", "philly"):
        raise ConfigError(str(path), "format", f"{fmt!r} is not allowed (allowed: helios, philly)")
    raw = read_helios(path) if fmt == "helios" else read_philly(path)
    done = [(r, r.start, r.end) for r in raw
            if r.start is not None and r.end is not None and r.end >= r.start]
    if not done:
        raise ConfigError(str(path), "", "no job with a start and an end time")
    t0 = min(r.submit for r, _, _ in done)
    rng = np.random.default_rng([seed, 4])
    jobs: list[TraceJob] = []
    free_at: dict[str, float] = {}
    for r, r_start, r_end in sorted(done, key=lambda x: (x[1], x[0].job_id)):
        owner = r.user if r.user in owners else r.vc if r.vc in owners else None
        sub = (r.submit - t0) * time_scale
        began = max(r_start, r.submit)
        start = (began - t0) * time_scale
        dur = (r_end - began) * time_scale
        if max_duration_s is not None and start >= max_duration_s:
            continue
        ex = r.extra
        if owner is not None:
            start = max(start, free_at.get(owner, 0.0))
            if "read_bps" in ex:
                prof = IOProfile(read_bps=int(ex["read_bps"]), write_bps=int(ex.get("write_bps", 0)),
                                 iteration_s=float(ex.get("iteration_s", 0.25)),
                                 burst_frac=float(ex.get("burst_frac", 0.6)),
                                 checkpoint_period_s=float(ex.get("checkpoint_period_s", 0)),
                                 checkpoint_bytes=int(ex.get("checkpoint_bytes", 0)))
            else:
                prof = owner_profile(rng, owners[owner], owner_jobs, write_cost)
            dur = max(dur, 0.5)
            free_at[owner] = start + dur + owner_jobs.gap_s
            jobs.append(TraceJob(job_id=r.job_id, user=owner, vc=r.vc, role="owner",
                                 gpu_num=r.gpu_num, submit_s=round(sub, 3),
                                 start_s=round(start, 3), end_s=round(start + dur, 3),
                                 state=r.state, io=prof))
        else:
            if "bytes_total" in ex and int(ex["bytes_total"]) > 0:
                size, wf = int(ex["bytes_total"]), float(ex.get("write_fraction", 0))
            else:
                # data a job reads scales with its GPUs and how long it runs
                per = borrower_jobs.size_bytes.median / 4.0 / max(1.0, owner_jobs.duration_s.median)
                size = int(min(borrower_jobs.size_bytes.hi,
                               max(borrower_jobs.size_bytes.lo, per * max(1, r.gpu_num) * max(dur, 1.0))))
                wf = borrower_jobs.write_fraction if rng.random() < borrower_jobs.writers else 0.0
            jobs.append(TraceJob(job_id=r.job_id, user=r.user, vc=r.vc, role="borrower",
                                 gpu_num=r.gpu_num, submit_s=round(start, 3),
                                 start_s=round(start, 3), end_s=round(start + dur, 3),
                                 state=r.state, io=IOProfile(bytes_total=size // MiB * MiB or MiB,
                                                             write_fraction=wf)))
    jobs.sort(key=lambda j: (j.start_s, j.job_id))
    return Trace(jobs=tuple(jobs))


# -------------------------------------------------------------- forecasters ---

@dataclass(frozen=True)
class ForecasterModel:
    """Error model of one forecaster (see the module docs)."""
    lead_bias: float = 0.0          # added to ln(predicted lead / real lead)
    lead_sigma: float = 0.0         # i.i.d. log-normal noise
    ar_phi: float = 0.0             # AR(1) autocorrelated bias ...
    ar_sd: float = 0.0              # ... with this stationary standard deviation
    tail_p: float = 0.0             # probability of a heavy-tail error ...
    tail_scale: float = 0.0         # ... of size Exp(scale), either sign
    drift_per_job: float = 0.0      # deterministic growth of the log error, per job
    late_factor: tuple[float, float] = (0.0, 0.0)   # adversarial: ln(pred/real) ~ U(lo, hi)
    demand_factor: float = 1.0
    demand_sigma: float = 0.0
    duration_sigma: float = 0.0
    phantom_p: float = 0.0          # per real job: a forecast for a job that never comes
    cancel_p: float = 0.0           # share of phantoms the scheduler cancels
    silent_p: float = 0.0           # per real job: no forecast at all


MODELS: dict[str, ForecasterModel] = {
    "oracle": ForecasterModel(),
    "noisy": ForecasterModel(lead_sigma=0.25, ar_phi=0.9, ar_sd=0.3, tail_p=0.05,
                             tail_scale=1.0, demand_sigma=0.15, duration_sigma=0.4,
                             phantom_p=0.03, cancel_p=0.5),
    "biased": ForecasterModel(lead_bias=0.5, lead_sigma=0.1, demand_factor=0.7,
                              duration_sigma=0.3, phantom_p=0.05),
    "adversarial": ForecasterModel(late_factor=(math.log(2.0), math.log(4.5)),
                                   drift_per_job=0.03, demand_factor=0.5,
                                   duration_sigma=1.0, phantom_p=0.2, silent_p=0.1),
}


def _demand_msg(p: IOProfile, factor: float) -> dict[str, Any]:
    d: dict[str, Any] = {"read_rate": max(1, int(p.read_bps * factor)),
                         "bssplit": "128k/100"}
    if p.write_bps:
        d["write_rate"] = max(1, int(p.write_bps * factor))
        d["checkpoint_period"] = p.checkpoint_period_s
        d["checkpoint_bytes"] = p.checkpoint_bytes
    return d


def forecast_messages(jobs: Sequence[TraceJob], kind: str, seed: int,
                      source: str = "sched") -> list[tuple[float, dict[str, Any]]]:
    """The scheduler's messages about owner jobs, as (time, wire message) sorted by time.

    Each real job: a ``forecast`` at its submission (absolute ``arrival_at``),
    ``arrived`` at its start, ``finished`` at its end.  Pass a trace's history and
    its jobs together so both share one error process (drift, autocorrelation)."""
    if kind not in MODELS:
        raise ValueError(f"{kind!r} is not a forecaster (allowed: {', '.join(FORECASTERS)})")
    m = MODELS[kind]
    rng = np.random.default_rng([seed, 5, FORECASTERS.index(kind)])
    out: list[tuple[float, dict[str, Any]]] = []
    ar = 0.0
    if m.ar_sd:
        ar = float(rng.normal(0.0, m.ar_sd))
    owners = [j for j in jobs if j.role == "owner"]
    for k, j in enumerate(sorted(owners, key=lambda j: (j.submit_s, j.job_id))):
        err = m.lead_bias + m.drift_per_job * k
        if m.lead_sigma:
            err += float(rng.normal(0.0, m.lead_sigma))
        if m.ar_sd:
            ar = m.ar_phi * ar + math.sqrt(1 - m.ar_phi**2) * float(rng.normal(0.0, m.ar_sd))
            err += ar
        if m.tail_p and rng.random() < m.tail_p:
            err += float(rng.exponential(m.tail_scale)) * (1 if rng.random() < 0.5 else -1)
        if m.late_factor != (0.0, 0.0):
            err += float(rng.uniform(*m.late_factor))
        lead_pred = max(0.05, j.lead_s) * math.exp(err)
        dur = j.duration_s * (math.exp(float(rng.normal(0.0, m.duration_sigma)))
                              if m.duration_sigma else 1.0)
        dfac = m.demand_factor * (math.exp(float(rng.normal(0.0, m.demand_sigma)))
                                  if m.demand_sigma else 1.0)
        silent = m.silent_p and rng.random() < m.silent_p
        if not silent:
            out.append((j.submit_s, {"type": "forecast", "job": j.job_id, "tenant": j.user,
                                     "source": source, "arrival_at": j.submit_s + lead_pred,
                                     "duration": round(max(dur, 0.01), 6),
                                     "demand": _demand_msg(j.io, dfac)}))
        out.append((j.start_s, {"type": "arrived", "job": j.job_id, "tenant": j.user,
                                "source": source, "at": j.start_s}))
        out.append((j.end_s, {"type": "finished", "job": j.job_id, "at": j.end_s}))
        if m.phantom_p and rng.random() < m.phantom_p:
            t = j.submit_s + float(rng.uniform(0.0, max(1.0, j.duration_s)))
            lead = max(0.5, j.lead_s) * math.exp(err)
            pid = f"phantom-{j.job_id}"
            out.append((t, {"type": "forecast", "job": pid, "tenant": j.user, "source": source,
                            "arrival_at": t + lead, "duration": round(max(dur, 0.01), 6),
                            "demand": _demand_msg(j.io, dfac)}))
            if rng.random() < m.cancel_p:
                out.append((t + lead * float(rng.uniform(0.3, 1.5)),
                            {"type": "cancel", "job": pid, "source": source}))
    out.sort(key=lambda e: (e[0], _ORDER[e[1]["type"]]))
    return out


_ORDER = {"forecast": 0, "cancel": 1, "arrived": 2, "finished": 3}


__all__ = [
    "FORECASTERS",
    "MODELS",
    "BorrowerJobs",
    "ForecasterModel",
    "IOProfile",
    "Lognormal",
    "OwnerJobs",
    "RawJob",
    "Trace",
    "TraceJob",
    "TraceSpec",
    "diurnal_arrivals",
    "forecast_messages",
    "generate",
    "load_trace",
    "read_helios",
    "read_philly",
    "write_helios",
]
