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

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from control import units
from control.errors import ConfigError, JbofError
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
from control.bench.results import (
    text_table,
    OPEN_LOOP_SATISFIED,
    SOLO_POLICY,
    Measured,
    Solo,
    document,
    raw_tenant,
)
from control.scenario import Scenario, Tenant

BACKENDS = ("emulated", "memory", "file:PATH")
DEFAULT_POLICIES = ("fifo", "gimbal", "qos")
LIVE_NS_MAX_BYTES = 1 << 30
MISMATCH = 0.02
RUN_SLACK_S = 30.0          # fio start-up and drain allowed beyond the run's duration
START_TIMEOUT_S = 10.0
PEERS = ("nbdkit", "nbdkit-rate")
MIB = 1 << 20

Progress = Callable[[str, bool], None]     # (text, starts a new run)


class BenchError(JbofError):
    """The harness could not run; the message is one line."""


def _num(x: float) -> float:
    return float(round(x, 6))


# ------------------------------------------------------------------ inputs ---

@dataclass(frozen=True)
class Backend:
    kind: str                   # emulated | memory | file
    path: str | None = None

    def __str__(self) -> str:
        return f"file:{self.path}" if self.kind == "file" else self.kind


def parse_backend(text: str) -> Backend:
    """``emulated``, ``memory`` or ``file:PATH`` (ValueError: one line)."""
    if text in ("emulated", "memory"):
        return Backend(text)
    if text.startswith("file:") and len(text) > 5:
        return Backend("file", text[5:])
    raise ValueError(f"'{text}' is not a backend (allowed: {', '.join(BACKENDS)})")


def live_model(scenario: Scenario) -> str:
    """The emulated backend's preset for the scenario's device (model + state)."""
    dev = scenario.device
    base = dev.model.removesuffix("-fragmented")
    if dev.fragmentation_pct is not None:
        if dev.fragmentation_pct not in (0.0, 100.0):
            raise ConfigError(scenario.source, "device.fragmentation",
                              f"{dev.fragmentation_pct:g}% cannot be emulated live (allowed "
                              "live: 0% or 100%, or state: clean|fragmented)")
        state = "fragmented" if dev.fragmentation_pct == 100.0 else "clean"
    else:
        state = dev.state or ("fragmented" if dev.model.endswith("-fragmented") else "clean")
    return base + "-fragmented" if state == "fragmented" else base


def ns_size(t: Tenant) -> int:
    """A tenant's live namespace: its workload size, capped, 4 KiB aligned, >= its largest IO."""
    assert t.workload is not None
    largest = max(bs for p in t.workload.phases for bs, _ in p.bssplit)
    size = min(t.workload.size_bytes, LIVE_NS_MAX_BYTES) // 4096 * 4096
    return max(size, -(-largest // 4096) * 4096)


def check_live(scenario: Scenario, run_ns: int) -> None:
    """Everything a live run needs from the scenario (ConfigError: one line)."""
    for i, t in enumerate(scenario.tenants):
        if t.workload is None:
            raise ConfigError(scenario.source, f"tenants[{i}].workload", "is required")
        phase_spans(t.workload, run_ns, scenario.source, f"tenants[{i}]")


# ----------------------------------------------------------------- targets ---

@dataclass(frozen=True)
class Export:
    uri: str
    size_bytes: int
    offset_bytes: int = 0


class Target(Protocol):
    """Something fio can be pointed at for one run."""
    name: str

    def open(self, policy: str, tenants: Sequence[Tenant]) -> dict[str, Export]: ...
    def counters(self) -> dict[str, int] | None: ...
    def device(self) -> dict[str, Any]: ...
    def close(self) -> None: ...


class EngineTarget:
    """A fresh in-process Engine (dataplane.engine) per run."""
    name = "jbof"

    def __init__(self, scenario: Scenario, backend: Backend, sockdir: Path) -> None:
        self.scenario = scenario
        self.backend = backend
        self.sockdir = sockdir
        self.model = live_model(scenario) if backend.kind == "emulated" else None
        self._eng: Any = None
        self._n = 0

    def _config(self, policy: str, tenants: Sequence[Tenant], sock: str) -> dict[str, Any]:
        sizes = {t.name: ns_size(t) for t in tenants}
        total = -(-sum(sizes.values()) // MIB) * MIB
        drive: dict[str, Any] = {"name": "d0", "backend": self.backend.kind, "size": total,
                                 "policy": policy, "seed": self.scenario.seed}
        if self.model is not None:
            drive["model"] = self.model
        if self.backend.kind == "file":
            drive["path"] = self.backend.path
        specs = []
        for t in tenants:
            spec: dict[str, Any] = {"name": t.name, "drive": "d0", "size": sizes[t.name],
                                    "class": t.klass, "weight": t.weight,
                                    "reserve": t.reserve_bps, "limit": t.limit_bps,
                                    "limit_iops": t.limit_iops, "latency_slo": t.latency_slo_ns}
            if t.sq_depth is not None:
                spec["sq_depth"] = t.sq_depth
            specs.append(spec)
        return {"drives": [drive], "tenants": specs, "listen": {"unix": sock}}

    def open(self, policy: str, tenants: Sequence[Tenant]) -> dict[str, Export]:
        from dataplane.engine import Engine
        self._n += 1
        sock = str(self.sockdir / f"jbof{self._n}.sock")
        eng = Engine(self._config(policy, tenants, sock))
        eng.start()
        self._eng = eng
        return {t.name: Export(eng.uri(t.name), ns_size(t)) for t in tenants}

    def counters(self) -> dict[str, int]:
        out = {}
        for name in self._eng.tenants():
            t = self._eng.tenant_stats(name)["tenant"]
            out[name] = int(t["read_bytes"] + t["write_bytes"])
        return out

    def device(self) -> dict[str, Any]:
        d = self._eng.drive_stats("d0")
        s = d["sched"]
        out = {"target": "jbof", "backend": str(self.backend),
               "model": self.model or f"{self.backend} backend",
               "state": self.scenario.device.state,
               "write_factor": _num(s["write_factor_x256"] / 256), "ctl_state": s["ctl_state"],
               "ctl_rate_bps": s["rate_bps"], "backend_errors": d["backend_errors"]}
        if self.backend.kind == "emulated":
            out["ssd"] = d["ssd"]
        return out

    def close(self) -> None:
        if self._eng is not None:
            eng, self._eng = self._eng, None
            eng.close()


def _settings(t: Tenant) -> dict[str, Any]:
    """Admin tenant.set arguments that give a daemon tenant t's QoS settings."""
    return {"class": t.klass, "weight": t.weight, "reserve": t.reserve_bps,
            "limit": t.limit_bps, "limit_iops": t.limit_iops,
            "latency_slo": units.format_duration(t.latency_slo_ns) if t.latency_slo_ns else 0}


class DaemonTarget:
    """A running ``jbof serve`` reached through its admin socket (control.daemon.admin.Client)."""
    name = "jbof"

    def __init__(self, admin_socket: str, scenario: Scenario) -> None:
        from control.daemon.admin import Client
        self.path = admin_socket
        self.client = Client(admin_socket, timeout=30)
        rows = {r["name"]: r for r in self.client.call("tenant.list")["tenants"]}
        missing = [t.name for t in scenario.tenants if t.name not in rows]
        if missing:
            self.client.close()
            raise BenchError(f"{admin_socket}: the daemon has no tenant named "
                             f"{', '.join(repr(m) for m in missing)} (have: "
                             f"{', '.join(rows) or 'none'}); add them with `jbof tenant add`")
        drives = {rows[t.name]["drive"] for t in scenario.tenants}
        if len(drives) != 1:
            self.client.close()
            raise BenchError(f"{admin_socket}: the scenario's tenants are on drives "
                             f"{', '.join(sorted(drives))}; they must share one drive")
        self.drive: str = drives.pop()
        self.rows = rows
        cfg = self.client.call("config.get")["config"]
        self.orig_policy = next(d for d in cfg["drives"] if d["name"] == self.drive)["policy"]
        self.orig_tenants = {t["name"]: t for t in cfg.get("tenants", [])}
        self._base: dict[str, int] = {}
        self._touched: set[str] = set()
        self._last: dict[str, Any] = {}

    def _bytes(self) -> tuple[dict[str, int], dict[str, Any]]:
        snap = self.client.call("stats")
        per = {t["name"]: int(t["read_bytes"] + t["write_bytes"]) for t in snap["tenants"]}
        drive: dict[str, Any] = next((d for d in snap["drives"] if d["name"] == self.drive), {})
        return per, drive

    def open(self, policy: str, tenants: Sequence[Tenant]) -> dict[str, Export]:
        self.client.call("drive.set", name=self.drive, policy=policy)
        out = {}
        for t in tenants:
            self.client.call("tenant.set", name=t.name, **_settings(t))
            self._touched.add(t.name)
            row = self.rows[t.name]
            uri = next((u for u in row["uris"] if u.startswith("nbd+unix")), row["uris"][0])
            out[t.name] = Export(uri, min(ns_size(t), int(row["size_bytes"])) // 4096 * 4096)
        self._base, _ = self._bytes()
        return out

    def counters(self) -> dict[str, int]:
        now, self._last = self._bytes()
        return {k: v - self._base.get(k, 0) for k, v in now.items()}

    def device(self) -> dict[str, Any]:
        d = self._last
        return {"target": "jbof", "backend": d.get("backend"), "admin_socket": self.path,
                "write_factor": d.get("write_factor"), "ctl_state": d.get("ctl_state"),
                "ctl_rate_bps": d.get("rate_bps")}

    def close(self) -> None:
        pass

    def restore(self) -> None:
        """Put the daemon's policy and the touched tenants' settings back."""
        try:
            self.client.call("drive.set", name=self.drive, policy=self.orig_policy)
            for name in sorted(self._touched):
                o = self.orig_tenants.get(name, {})
                args: dict[str, Any] = {"weight": o.get("weight", 1), "reserve": o.get("reserve", 0),
                                        "limit": o.get("limit", 0),
                                        "limit_iops": o.get("limit_iops", 0),
                                        "latency_slo": o.get("latency_slo", 0),
                                        "class": o.get("class", self.rows[name]["class"])}
                self.client.call("tenant.set", name=name, **args)
        finally:
            self.client.close()


def _accepts(path: str) -> bool:
    """True once something listens on the unix socket path (bind comes before listen)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.settimeout(1.0)
        s.connect(path)
        return True
    except OSError:
        return False
    finally:
        s.close()


class ServerProcess:
    """A server subprocess in its own process group, serving a unix socket."""

    def __init__(self, argv: Sequence[str], sock: str, log: Path) -> None:
        self.sock = sock
        with open(log, "wb") as err:
            self.proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=err,
                                         start_new_session=True)
        self.log = log
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _accepts(sock):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                tail = log.read_text(errors="replace").strip().splitlines()
                raise BenchError(f"{argv[0]} did not start: "
                                 f"{tail[-1] if tail else 'no message'}")
            time.sleep(0.02)

    def stop(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if self.proc.poll() is not None:
                break
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                continue
        try:
            os.unlink(self.sock)
        except OSError:
            pass


class NbdkitTarget:
    """nbdkit's memory plugin: one server and export for all tenants (each at
    its own offset), or with ``caps_bps`` one server per tenant behind the
    rate filter."""

    def __init__(self, sockdir: Path, logdir: Path,
                 caps_bps: Mapping[str, float] | None = None) -> None:
        self.sockdir = sockdir
        self.logdir = logdir
        self.caps = dict(caps_bps) if caps_bps is not None else None
        self.name = "nbdkit-rate" if caps_bps is not None else "nbdkit"
        self._servers: list[ServerProcess] = []
        self._n = 0

    def _start(self, size: int, extra: Sequence[str]) -> str:
        self._n += 1
        sock = str(self.sockdir / f"{self.name}{self._n}.sock")
        argv = ["nbdkit", "-f", "--exit-with-parent", "-U", sock, *extra[:1], "memory",
                str(size), *extra[1:]]
        self._servers.append(ServerProcess(argv, sock, self.logdir / f"{self.name}{self._n}.log"))
        return sock

    def open(self, policy: str, tenants: Sequence[Tenant]) -> dict[str, Export]:
        out: dict[str, Export] = {}
        if self.caps is None:
            sizes = [ns_size(t) for t in tenants]
            sock = self._start(sum(sizes), [])
            off = 0
            for t, size in zip(tenants, sizes, strict=True):
                out[t.name] = Export(f"nbd+unix:///?socket={sock}", size, off)
                off += size
            return out
        for t in tenants:
            bits = max(8 * 1024, int(self.caps[t.name] * 8))
            sock = self._start(ns_size(t), ["--filter=rate", f"rate={bits}", "burstiness=0.1"])
            out[t.name] = Export(f"nbd+unix:///?socket={sock}", ns_size(t))
        return out

    def counters(self) -> None:
        return None

    def device(self) -> dict[str, Any]:
        out: dict[str, Any] = {"target": self.name, "model": "nbdkit memory plugin"}
        if self.caps is not None:
            out["filter"] = "rate"
            out["caps_bps"] = {k: _num(v) for k, v in self.caps.items()}
        return out

    def close(self) -> None:
        for s in self._servers:
            s.stop()
        self._servers = []


# -------------------------------------------------------------------- runs ---

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
    dp_bytes: dict[str, int] | None
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
                ref = dp.get(n, 0)
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
                "demand_bytes": _num(demand)}
            if out.dp_bytes is not None:
                ref = out.dp_bytes.get(t.name, 0)
                extra["dp_bytes"] = ref
                extra["fio_vs_dp"] = _num((r.bytes - ref) / ref) if ref else None
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


# ------------------------------------------------------------- sim vs live ---

def compare_sim(result: BenchResult) -> list[dict[str, Any]]:
    """Run the same policies in the simulator for the same duration; attach
    live/sim ratios to the live documents (``vs_sim``); return the sim docs."""
    from control.bench.results import compare
    sim_docs = compare(result.scenario, result.policies, result.scenario.seed, result.duration_s)
    by_policy = {d["policy"]: d for d in sim_docs}

    def ratio(a: float | None, b: float | None) -> float | None:
        return _num(a / b) if a is not None and b else None

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
