"""The live QoS harness (``jbof bench``): a scenario's tenants as real fio
processes, one per tenant, against the served data plane; policies side by
side; nbdkit as a peer nobody here wrote.

1. Runs, in this order (each ``duration`` long; progress on stderr as
   ``run 3/9: qos, shared, 14s left``):

     solo      each tenant alone, policy fifo, its QoS settings removed
               (control.bench.results.raw_tenant) -- the raw drive, as in jbof sim;
     shared    all tenants together, once per policy;
     peers     if nbdkit is installed: each tenant alone on nbdkit's memory
               plugin, then all together on it (``nbdkit``: the no-QoS peer),
               then all together with each tenant behind nbdkit's rate
               filter capped at 1/N of its solo throughput there
               (``nbdkit-rate``: the static-cap peer; one nbdkit per tenant,
               because the filter has one rate per server).

   With the default in-process target every run gets a fresh Engine (the
   emulated drive starts in the same state each time, as the simulator
   does), so switching policy is a restart.  With ``--socket`` the runs go
   to a running ``jbof serve``: the policy is switched live (admin
   ``drive.set``), tenant settings with ``tenant.set``, and both are put
   back at the end (the daemon persists them like any admin change).

2. Results are the result document (docs/design.md#result-documents) with ``mode: "live"``
   (control.bench.results.document): throughput and clat percentiles from fio's
   own JSON, shares against the solo runs, Jain's index.  Each tenant's
   bytes as fio counted them are checked against the data plane's counters
   for the same run; more than ``MISMATCH`` apart is a warning.

3. Live limits (one-line errors otherwise): the emulated drive takes a
   preset (``dct983``) or its ``-fragmented`` twin, so ``device.state``
   maps to one of them and ``device.fragmentation`` must be 0% or 100%.
   Each tenant's namespace is its workload ``size`` capped at
   ``LIVE_NS_MAX_BYTES`` (sequential streams wrap sooner; the emulated
   drive's timing does not depend on where in the namespace an IO lands
   beyond sequential detection).  Phases: see control/bench/fio.py.

Nothing started here outlives a run: fio processes and nbdkit servers run in
their own process groups and are stopped (TERM, then KILL) when a run ends,
fails, times out or is interrupted; Engines are closed.
"""
from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from control import units
from control.bench.fio import (
    BW_LOG_MS,
    FioResult,
    demand_bytes,
    first_log_ms,
    job_file,
    phase_spans,
    read_bw_logs,
    run_all,
)
from control.bench.live import Backend, BenchError, check_live, live_model, rounded
from control.bench.results import (
    OPEN_LOOP_SATISFIED,
    SOLO_POLICY,
    Measured,
    Solo,
    document,
    raw_tenant,
    text_table,
)
from control.bench.targets import Counters, DaemonTarget, EngineTarget, NbdkitTarget, Target
from control.scenario import Scenario, Tenant

DEFAULT_POLICIES = ("fifo", "gimbal", "qos")
MISMATCH = 0.02
RUN_SLACK_S = 30.0          # fio start-up and drain allowed beyond the run's duration
PEERS = ("nbdkit", "nbdkit-rate")


Progress = Callable[[str, bool], None]     # (text, starts a new run)


@dataclass(frozen=True)
class Run:
    target: str                 # jbof | nbdkit | nbdkit-rate
    label: str                  # the policy, or the peer's name
    kind: str                   # solo | shared
    tenants: tuple[str, ...]

    @property
    def title(self) -> str:
        who = self.label if self.target == "jbof" else self.target
        return f"{who}, {self.kind}" + (f" {self.tenants[0]}" if self.kind == "solo" else "")


@dataclass
class RunOutput:
    run: Run
    fio: dict[str, FioResult]
    timeline: dict[str, list[float]]           # bytes/s per BW_LOG_MS bin
    dp: dict[str, Counters] | None             # the data plane's own counters (not nbdkit's)
    device: dict[str, Any]
    wall_s: float
    warnings: list[str] = field(default_factory=list)


@dataclass
class BenchResult:
    scenario: Scenario
    backend: str
    duration_s: float
    policies: list[str]
    docs: list[dict[str, Any]]                 # one per policy, then one per peer
    runs: list[RunOutput]
    warnings: list[str]
    notes: list[str]
    sim_docs: list[dict[str, Any]] | None = None


def plan(scenario: Scenario, policies: Sequence[str], peers: bool) -> list[Run]:
    names = tuple(t.name for t in scenario.tenants)
    runs = [Run("jbof", SOLO_POLICY, "solo", (n,)) for n in names]
    runs += [Run("jbof", p, "shared", names) for p in policies]
    if peers:
        runs += [Run("nbdkit", "nbdkit", "solo", (n,)) for n in names]
        runs += [Run("nbdkit", "nbdkit", "shared", names),
                 Run("nbdkit-rate", "nbdkit-rate", "shared", names)]
    return runs


def fio_version() -> str:
    try:
        r = subprocess.run(["fio", "--version"], capture_output=True, text=True, timeout=10,
                           check=False)
        return r.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


class Bench:
    """One ``jbof bench`` invocation: plan, run, build the documents."""

    def __init__(self, scenario: Scenario, policies: Sequence[str], *, backend: Backend,
                 workdir: Path, duration_ns: int | None = None, peers: bool = True,
                 admin_socket: str | None = None, progress: Progress | None = None,
                 sockdir: Path | None = None) -> None:
        self.scenario = scenario
        self.sockdir = sockdir or workdir
        self.policies = list(policies)
        self.backend = backend
        self.workdir = workdir
        self.run_ns = duration_ns or scenario.duration_ns
        self.admin_socket = admin_socket
        self.progress = progress
        self.notes: list[str] = []
        self._overhead_s = 1.0          # per-run cost beyond the duration (measured as we go)
        self._last_tick = 0.0
        if shutil.which("fio") is None:
            raise BenchError("fio is not installed (apt install fio; it needs the nbd engine)")
        check_live(scenario, self.run_ns)
        if backend.kind == "emulated" and admin_socket is None:
            live_model(scenario)
        if peers and shutil.which("nbdkit") is None:
            self.notes.append("nbdkit is not installed: the nbdkit peers were skipped "
                              "(apt install nbdkit)")
            peers = False
        self.runs = plan(scenario, self.policies, peers)

    # -- one run --------------------------------------------------------

    def _execute(self, i: int, run: Run, target: Target) -> RunOutput:
        by_name = {t.name: t for t in self.scenario.tenants}
        tenants = [by_name[n] for n in run.tenants]
        if run.kind == "solo":
            tenants = [raw_tenant(t) for t in tenants]
        rundir = self.workdir / f"run{i + 1:02d}-{run.label}-{run.kind}" \
            f"{'-' + run.tenants[0] if run.kind == 'solo' else ''}"
        rundir.mkdir(parents=True, exist_ok=True)
        policy = SOLO_POLICY if run.kind == "solo" else run.label
        t_start = time.monotonic()
        exports = target.open(policy, tenants)
        try:
            jobs = {}
            for t in tenants:
                idx = list(by_name).index(t.name)
                assert t.workload is not None
                if not phase_spans(t.workload, self.run_ns):
                    continue                    # nothing to do in this run (startdelay)
                e = exports[t.name]
                text = job_file(t, e.uri, self.run_ns, seed=self.scenario.seed * 1000 + idx + 1,
                                size_bytes=e.size_bytes, offset_bytes=e.offset_bytes,
                                log_prefix=str(rundir / t.name), src=self.scenario.source,
                                where=f"tenants[{idx}]")
                jobs[t.name] = rundir / f"{t.name}.fio"
                jobs[t.name].write_text(text)
            results = run_all(jobs, rundir, self.run_ns / 1e9 + RUN_SLACK_S,
                              tick=lambda: self._tick(i, run, t_start))
            results.update({t.name: FioResult() for t in tenants if t.name not in results})
            dp = target.counters()
            device = target.device()
        finally:
            target.close()
        run_s = self.run_ns / 1e9
        logs = {n: sorted(rundir.glob(f"{n}_bw.*.log")) for n in results}
        # time 0 = when the first job started (its first entry closes its first window)
        first = first_log_ms([p for ps in logs.values() for p in ps])
        t0_ms = (first or 0.0) - BW_LOG_MS
        timeline = {n: read_bw_logs(ps, t0_ms, run_s) for n, ps in logs.items()}
        out = RunOutput(run, results, timeline, dp, device, time.monotonic() - t_start)
        if dp is not None:
            for n, r in results.items():
                ref = dp[n].bytes if n in dp else 0
                diff = abs(r.bytes - ref) / ref if ref else (1.0 if r.bytes else 0.0)
                if diff > MISMATCH:
                    out.warnings.append(f"{run.title}: tenant {n}: fio counted "
                                        f"{units.human_size(r.bytes)}, the data plane "
                                        f"{units.human_size(ref)} ({diff:.1%} apart)")
        return out

    def _remaining_s(self, i: int, t_start: float) -> float:
        per = self.run_ns / 1e9 + self._overhead_s
        left_this = max(0.0, per - (time.monotonic() - t_start))
        return left_this + per * (len(self.runs) - i - 1)

    def _tick(self, i: int, run: Run, t_start: float) -> None:
        now = time.monotonic()
        if self.progress is None or now - self._last_tick < 1.0:
            return
        self._last_tick = now
        self.progress(self._line(i, run, t_start), False)

    def _line(self, i: int, run: Run, t_start: float) -> str:
        return (f"run {i + 1}/{len(self.runs)}: {run.title}, "
                f"{self._remaining_s(i, t_start):.0f}s left")

    # -- all runs -------------------------------------------------------

    def run(self) -> BenchResult:
        outs: list[RunOutput] = []
        self.workdir.mkdir(parents=True, exist_ok=True)
        daemon = DaemonTarget(self.admin_socket, self.scenario) if self.admin_socket else None
        jbof: Target = daemon if daemon is not None else \
            EngineTarget(self.scenario, self.backend, self.sockdir)
        kit = NbdkitTarget(self.sockdir, self.workdir)
        try:
            for i, run in enumerate(self.runs):
                if self.progress is not None:
                    self.progress(self._line(i, run, time.monotonic()), True)
                target: Target
                if run.target == "jbof":
                    target = jbof
                elif run.target == "nbdkit":
                    target = kit
                else:
                    target = NbdkitTarget(self.sockdir, self.workdir, self._caps(outs))
                out = self._execute(i, run, target)
                outs.append(out)
                done = len(outs)
                self._overhead_s = (sum(o.wall_s for o in outs) / done) - self.run_ns / 1e9
                self._overhead_s = max(self._overhead_s, 0.0)
        finally:
            if daemon is not None:
                daemon.restore()
        return self._result(outs)

    def _caps(self, outs: Sequence[RunOutput]) -> dict[str, float]:
        """nbdkit-rate: each tenant capped at 1/N of what it got alone on nbdkit."""
        n = len(self.scenario.tenants)
        return {name: s.bw_bytes / n for name, s in self._solo(outs, "nbdkit").items()}

    # -- documents ------------------------------------------------------

    def _seconds(self, t: Tenant, r: FioResult) -> float:
        assert t.workload is not None
        starts = [s.start_ns for s in phase_spans(t.workload, self.run_ns)]
        return r.active_s(starts, self.run_ns)

    def _busy_s(self, t: Tenant, r: FioResult) -> float:
        """The time the tenant's workload was active, as the simulator's busy_s (csrc/sim.c:
        from its startdelay to its runtime's end or the run's end), plus fio's tail of IO in
        flight at the end.

        A job's IO is all submitted after its clock starts and completed before its
        ``job_runtime`` is taken (fio waits for the IO in flight), so the data plane's queued
        time for a one-phase tenant lies inside it.  fio reports ``job_runtime`` in whole ms
        rounded down (``mtime_since_now(&td->epoch)``): its upper bound (+1 ms) is used, so
        queued_s <= busy_s holds up to the two processes' clock rates (fio's TSC or
        CLOCK_MONOTONIC_RAW against the data plane's CLOCK_MONOTONIC)."""
        assert t.workload is not None
        w = t.workload
        spans = phase_spans(w, self.run_ns)
        if not spans:
            return 0.0
        end_ns = min(self.run_ns, w.startdelay_ns + w.runtime_ns) if w.runtime_ns else self.run_ns
        tail_s = max((s.start_ns / 1e9 + (ms + 1) / 1e3
                      for s, ms in zip(spans, r.job_runtime_ms) if ms),
                     default=0.0)
        return max(end_ns / 1e9, tail_s) - w.startdelay_ns / 1e9

    def _measured(self, out: RunOutput) -> list[Measured]:
        ms = []
        for t in self.scenario.tenants:
            r = out.fio[t.name]
            run_s = self._seconds(t, r)
            assert t.workload is not None
            demand = demand_bytes(t.workload, self.run_ns)
            open_loop = t.workload.open_loop
            backlogged = (not open_loop) or (demand > 0 and r.bytes < OPEN_LOOP_SATISFIED * demand)
            extra: dict[str, Any] = {
                "read_ios": r.read_ios, "write_ios": r.write_ios, "read_bytes": r.read_bytes,
                "write_bytes": r.write_bytes, "open_loop": open_loop,
                "demand_bytes": rounded(demand)}
            if out.dp is not None:
                c = out.dp.get(t.name, Counters(0, 0, 0))
                ref = c.bytes
                extra["dp_bytes"] = ref
                extra["fio_vs_dp"] = rounded((r.bytes - ref) / ref) if ref else None
                # as in the simulator's documents (control.bench.results.measured_from_sim)
                extra["busy_s"] = rounded(self._busy_s(t, r))
                extra["queued_s"] = rounded(c.queued_ns / 1e9)
                extra["cost_bytes"] = c.cost_bytes
            ms.append(Measured(name=t.name, iops=r.ios / run_s, bw_bytes=r.bytes / run_s,
                               lat_us=r.lat_us(), completed=r.ios, backlogged=backlogged,
                               extra=extra))
        return ms

    def _solo(self, outs: Sequence[RunOutput], target: str) -> dict[str, Solo]:
        by_name = {t.name: t for t in self.scenario.tenants}
        out = {}
        for o in outs:
            if o.run.target == target and o.run.kind == "solo":
                name = o.run.tenants[0]
                r = o.fio[name]
                out[name] = Solo(r.bytes / self._seconds(by_name[name], r), r.lat_us())
        return out

    def _result(self, outs: list[RunOutput]) -> BenchResult:
        docs = []
        for o in outs:
            if o.run.kind != "shared":
                continue
            solo_target = "jbof" if o.run.target == "jbof" else "nbdkit"
            doc = document(self.scenario, o.run.label, "live", self.scenario.seed,
                           self.run_ns / 1e9, self._measured(o),
                           self._solo(outs, solo_target), o.device)
            doc["target"] = o.run.target
            doc["backend"] = str(self.backend) if o.run.target == "jbof" else "memory"
            doc["warnings"] = o.warnings + [w for s in outs if s.run.kind == "solo"
                                            and s.run.target == solo_target for w in s.warnings]
            docs.append(doc)
        return BenchResult(self.scenario, str(self.backend), self.run_ns / 1e9, self.policies,
                           docs, outs, [w for o in outs for w in o.warnings], self.notes)


def compare_sim(result: BenchResult) -> list[dict[str, Any]]:
    """Run the same policies in the simulator for the same duration; attach
    live/sim ratios to the live documents (``vs_sim``); return the sim docs."""
    from control.bench.results import compare
    sim_docs = compare(result.scenario, result.policies, result.scenario.seed, result.duration_s)
    by_policy = {d["policy"]: d for d in sim_docs}

    def ratio(a: float | None, b: float | None) -> float | None:
        return rounded(a / b) if a is not None and b else None

    for doc in result.docs:
        sim = by_policy.get(doc["policy"])
        if sim is None or doc.get("target") != "jbof":
            continue
        st = {t["name"]: t for t in sim["tenants"]}
        for t in doc["tenants"]:
            s = st[t["name"]]
            t["vs_sim"] = {"bw": ratio(t["bw_bytes"], s["bw_bytes"]),
                           "p99": ratio(t["lat_us"]["p99"], s["lat_us"]["p99"]),
                           "share": ratio(t["share"], s["share"]),
                           "solo_bw": ratio(t["solo_bw_bytes"], s["solo_bw_bytes"])}
        doc["vs_sim"] = {"jain": ratio(doc["jain"], sim["jain"]),
                         "utilization": ratio(doc["utilization"], sim["utilization"])}
    result.sim_docs = sim_docs
    return sim_docs


def sim_ratio_rows(result: BenchResult) -> list[list[str]]:
    """Per policy and tenant: live/sim for bandwidth, p99, share, solo bandwidth; and Jain."""
    rows = [["policy", "tenant", "bw live/sim", "p99 live/sim", "share live/sim",
             "solo bw live/sim", "Jain live/sim"]]

    def f(x: float | None) -> str:
        return "-" if x is None else f"{x:.2f}"

    for doc in result.docs:
        if "vs_sim" not in doc:
            continue
        for k, t in enumerate(doc["tenants"]):
            v = t["vs_sim"]
            rows.append([doc["policy"] if k == 0 else "", t["name"], f(v["bw"]), f(v["p99"]),
                         f(v["share"]), f(v["solo_bw"]),
                         f(doc["vs_sim"]["jain"]) if k == 0 else ""])
    return rows


def format_sim_ratios(result: BenchResult) -> str:
    return text_table(sim_ratio_rows(result), right_from=2)
