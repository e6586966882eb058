"""fio for the live harness: per-tenant job files from a scenario's workload,
fio processes in their own process groups, and fio's output read back.

1. One fio process per tenant.  A tenant's workload becomes one fio job per
   active phase occurrence, all in that tenant's job file, each placed in
   time with fio's own ``startdelay`` and ``runtime`` (``time_based``):

       workload {rw: randread, bs: 128k, iodepth: 16}, startdelay 0,
       phases [150ms active, 100ms idle], loop_phases, run 1s
       -> jobs p0 (startdelay 0, runtime 150ms), p1 (250ms, 150ms),
          p2 (500ms, 150ms), p3 (750ms, 150ms)

   That is exactly the simulator's phase clock (csrc/wl.c): phases run in
   order from startdelay, loop if asked, a last phase without a duration
   runs to the end, ``runtime`` cuts everything.  A tenant needs at most
   ``MAX_JOBS`` jobs (each opens its own NBD connection when it starts);
   more is a one-line error naming the phases.

2. Keys.  rw, rwmixread, bs/bssplit, iodepth, thinktime, size map to fio's
   options of the same name.  ``rate``/``rate_iops`` are one budget for all
   IOs in the scenario but per direction in fio, so a mixed workload gets
   ``rate=R*mix,R*(1-mix)``: rate=160MiB/s with rwmixread=70 becomes
   ``rate=117440512,50331648``.  ``thinktime`` is close, not equal: fio
   drains its queue before it thinks, the simulator thinks per IO slot.

3. Output.  fio runs with ``--output-format=json+`` (the completion latency
   histogram, ``clat_ns.bins``, merged here over the tenant's jobs and both
   directions, so percentiles are exact to fio's ~1.5% bins) and writes
   bandwidth logs averaged over ``BW_LOG_MS`` with unix-epoch timestamps,
   so tenants in different fio processes share one time axis.  Bandwidth
   log values are KiB/s.
"""
from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from control.errors import ConfigError, JbofError
from control.scenario import Phase, Tenant, Workload

MAX_JOBS = 64
BW_LOG_MS = 100
KILL_GRACE_S = 3.0


class FioError(JbofError):
    """fio could not run or failed; the message is one line."""


# ----------------------------------------------------------------- job files ---

@dataclass(frozen=True)
class Span:
    """One fio job: a phase active from start_ns for duration_ns (run time)."""
    start_ns: int
    duration_ns: int
    phase: Phase


def phase_spans(w: Workload, run_ns: int, src: str = "<scenario>",
                where: str = "tenant") -> list[Span]:
    """The active phase occurrences of a workload in a run of run_ns (csrc/wl.c's clock)."""
    start = w.startdelay_ns
    end = run_ns if not w.runtime_ns else min(run_ns, start + w.runtime_ns)
    out: list[Span] = []
    t = start
    i = 0
    if w.loop and not all(p.duration_ns for p in w.phases):
        raise ConfigError(src, f"{where}.phases", "looping phases each need a duration")
    while t < end:
        p = w.phases[i]
        d = p.duration_ns if p.duration_ns else end - t     # a last open phase: to the end
        if not p.idle:
            out.append(Span(t, min(d, end - t), p))
            if len(out) > MAX_JOBS:
                raise ConfigError(src, f"{where}.phases", f"needs more than {MAX_JOBS} fio jobs "
                                  f"in {run_ns / 1e9:g}s (one per active phase occurrence); "
                                  "use a shorter --duration or longer phases")
        t += d
        i += 1
        if i == len(w.phases):
            if not w.loop:
                break
            i = 0
    return out


def _us(ns: int) -> str:
    return f"{max(1, round(ns / 1000))}us"


def _split(total: int, mix_pct: int, rw: str) -> str:
    """fio's per-direction rate for a scenario's total rate."""
    if rw not in ("rw", "randrw") or mix_pct in (0, 100):
        return str(total)
    r = total * mix_pct // 100
    return f"{max(r, 1)},{max(total - r, 1)}"


def phase_options(p: Phase) -> list[str]:
    """fio options of one phase (rw, mix, block sizes, depth, rate, thinktime)."""
    opts = [f"rw={p.rw}"]
    if p.rw in ("rw", "randrw"):
        opts.append(f"rwmixread={p.rwmixread}")
    if len(p.bssplit) == 1:
        opts.append(f"bs={p.bssplit[0][0]}")
    else:
        opts.append("bssplit=" + ":".join(f"{bs}/{pct}" for bs, pct in p.bssplit))
    opts.append(f"iodepth={p.iodepth}")
    if p.rate_bps:
        opts.append(f"rate={_split(p.rate_bps, p.rwmixread, p.rw)}")
    if p.rate_iops:
        opts.append(f"rate_iops={_split(p.rate_iops, p.rwmixread, p.rw)}")
    if p.thinktime_ns:
        opts.append(f"thinktime={_us(p.thinktime_ns)}")
    return opts


def job_file(tenant: Tenant, uri: str, run_ns: int, *, seed: int, size_bytes: int,
             offset_bytes: int = 0, log_prefix: str | None = None,
             src: str = "<scenario>", where: str = "tenant") -> str:
    """The fio job file of one tenant for a run of run_ns (nothing to do: no jobs)."""
    if tenant.workload is None:
        raise ConfigError(src, f"{where}.workload", "is required for a live run")
    spans = phase_spans(tenant.workload, run_ns, src, where)
    lines = ["[global]", "ioengine=nbd", f"uri={uri}", "thread=1", "time_based=1",
             "norandommap=1", "randrepeat=0", f"randseed={seed}", f"size={size_bytes}",
             "group_reporting=0"]
    if offset_bytes:
        lines.append(f"offset={offset_bytes}")
    if log_prefix is not None:
        lines += [f"write_bw_log={log_prefix}", f"log_avg_msec={BW_LOG_MS}", "log_unix_epoch=1"]
    for k, s in enumerate(spans):
        lines.append(f"[{tenant.name}.p{k}]")
        if s.start_ns:
            lines.append(f"startdelay={_us(s.start_ns)}")
        lines.append(f"runtime={_us(s.duration_ns)}")
        lines += phase_options(s.phase)
    return "\n".join(lines) + "\n"


def demand_bytes(w: Workload, run_ns: int) -> float:
    """Bytes an open-loop workload asks for in the run (0 for closed loop phases)."""
    total = 0.0
    for s in phase_spans(w, run_ns):
        p = s.phase
        mean_bs = sum(bs * pct for bs, pct in p.bssplit) / 100
        rate = float(p.rate_bps) if p.rate_bps else p.rate_iops * mean_bs
        total += rate * s.duration_ns / 1e9
    return total


# -------------------------------------------------------------------- output ---

@dataclass
class FioResult:
    """What fio measured for one tenant (all its jobs, both directions)."""
    read_bytes: int = 0
    write_bytes: int = 0
    read_ios: int = 0
    write_ios: int = 0
    errors: int = 0
    max_ns: int = 0
    bins: dict[int, int] = field(default_factory=dict)   # clat ns -> count
    job_runtime_ms: list[int] = field(default_factory=list)   # per job, in job file order

    def active_s(self, starts_ns: Sequence[int], run_ns: int) -> float:
        """The run's length as this tenant saw it: the run, or longer if its last
        job ended later (fio waits for the IOs in flight at the end of runtime)."""
        end = max((s / 1e9 + ms / 1e3 for s, ms in zip(starts_ns, self.job_runtime_ms)),
                  default=0.0)
        return max(run_ns / 1e9, end)

    @property
    def bytes(self) -> int:
        return self.read_bytes + self.write_bytes

    @property
    def ios(self) -> int:
        return self.read_ios + self.write_ios

    def quantile_ns(self, q: float) -> float:
        """fio's clat at quantile q: the bin holding rank ceil(q * count)."""
        total = sum(self.bins.values())
        if total == 0:
            return 0.0
        rank = max(1, math.ceil(q * total))
        cum = 0
        for ns in sorted(self.bins):
            cum += self.bins[ns]
            if cum >= rank:
                return float(min(ns, self.max_ns) if self.max_ns else ns)
        return float(self.max_ns)

    def lat_us(self) -> dict[str, float]:
        return {"p50": self.quantile_ns(0.5) / 1e3, "p99": self.quantile_ns(0.99) / 1e3,
                "p999": self.quantile_ns(0.999) / 1e3, "max": self.max_ns / 1e3}


def parse_output(text: str, where: str = "fio") -> FioResult:
    """fio's json+ output (possibly after the nbd engine's 'connected' lines)."""
    start = text.find("\n{")
    start = 0 if text.startswith("{") else start + 1 if start >= 0 else -1
    if start < 0:
        raise FioError(f"{where}: no JSON in fio's output")
    try:
        doc = json.loads(text[start:])
    except ValueError as e:
        raise FioError(f"{where}: fio's JSON output is not readable ({e})") from None
    out = FioResult()
    for job in doc.get("jobs", []):
        out.errors += int(job.get("error", 0))
        out.job_runtime_ms.append(int(job.get("job_runtime", 0)))
        for side in ("read", "write"):
            s = job.get(side) or {}
            if side == "read":
                out.read_bytes += int(s.get("io_bytes", 0))
                out.read_ios += int(s.get("total_ios", 0))
            else:
                out.write_bytes += int(s.get("io_bytes", 0))
                out.write_ios += int(s.get("total_ios", 0))
            clat = s.get("clat_ns") or {}
            out.max_ns = max(out.max_ns, int(clat.get("max", 0)))
            for ns, count in (clat.get("bins") or {}).items():
                out.bins[int(ns)] = out.bins.get(int(ns), 0) + int(count)
    return out


def first_log_ms(paths: Sequence[Path]) -> float | None:
    """The earliest timestamp (unix ms) in some bandwidth logs, or None."""
    first = None
    for p in paths:
        try:
            with open(p) as f:
                line = f.readline()
            ts = float(line.split(",")[0])
        except (OSError, ValueError, IndexError):
            continue
        first = ts if first is None else min(first, ts)
    return first


def read_bw_logs(paths: Sequence[Path], t0_ms: float, run_s: float,
                 bin_s: float = BW_LOG_MS / 1000) -> list[float]:
    """Bytes/s per bin of bin_s from t0 (unix ms), summed over jobs and directions.

    Each log entry is fio's average over the window since the previous entry
    of the same direction (the first: BW_LOG_MS); its bytes are spread over
    the bins that window overlaps."""
    nbins = max(1, math.ceil(run_s / bin_s))
    acc = [0.0] * nbins
    bin_ms = bin_s * 1000
    for p in paths:
        try:
            lines = p.read_text().splitlines()
        except OSError:
            continue
        last: dict[str, float] = {}
        for line in lines:
            parts = [x.strip() for x in line.split(",")]
            if len(parts) < 3:
                continue
            try:
                ts_ms, kib_s = float(parts[0]) - t0_ms, float(parts[1])
            except ValueError:
                continue
            start = last.get(parts[2], ts_ms - BW_LOG_MS)
            last[parts[2]] = ts_ms
            if ts_ms <= start:
                continue                      # a repeated entry
            k = max(0, int(start // bin_ms))
            while k < nbins and k * bin_ms < ts_ms:
                lo, hi = max(start, k * bin_ms), min(ts_ms, (k + 1) * bin_ms)
                acc[k] += kib_s * 1024 * (hi - lo) / bin_ms
                k += 1
    return acc


# ----------------------------------------------------------------- processes ---

class FioProcess:
    """fio on one job file, in its own process group (so it can be stopped whole)."""

    def __init__(self, name: str, jobfile: Path, output: Path, fio: str = "fio") -> None:
        self.name = name
        self.output = output
        self.stderr_path = output.with_suffix(".stderr")
        with open(self.stderr_path, "wb") as err:
            self.proc = subprocess.Popen(
                [fio, str(jobfile), "--output-format=json+", f"--output={output}"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                start_new_session=True)

    def poll(self) -> int | None:
        return self.proc.poll()

    def stop(self) -> None:
        """SIGTERM the group, then SIGKILL after KILL_GRACE_S; reap."""
        if self.proc.poll() is not None:
            return
        for sig, wait_s in ((signal.SIGTERM, KILL_GRACE_S), (signal.SIGKILL, KILL_GRACE_S)):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.proc.wait(timeout=wait_s)
                return
            except subprocess.TimeoutExpired:
                continue

    def why(self) -> str:
        try:
            lines = [ln.strip() for ln in self.stderr_path.read_text(errors="replace").splitlines()
                     if ln.strip()]
        except OSError:
            lines = []
        return lines[-1] if lines else "no message"

    def result(self) -> FioResult:
        try:
            text = self.output.read_text(errors="replace")
        except OSError as e:
            raise FioError(f"fio for tenant {self.name}: no output ({e.strerror})") from None
        return parse_output(text, f"fio for tenant {self.name}")


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT / SIGTERM / SIGHUP for the body and raise KeyboardInterrupt after it
    if one came.  An fio is in its own session, so a Ctrl-C does not reach it: one
    arriving between its start and its registration would leave an fio that nothing
    stops (and a bench that waits for its connection).  Outside the main thread, where
    handlers cannot be set, the body runs as is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got: list[int] = []
    old = {s: signal.signal(s, lambda n, _f: got.append(n))
           for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
           if signal.getsignal(s) is not signal.SIG_IGN}          # an ignored one stays ignored
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h if h is not None else signal.SIG_DFL)
    if got:
        raise KeyboardInterrupt


def run_all(jobs: Mapping[str, Path], outdir: Path, timeout_s: float,
            tick: Callable[[], None] | None = None, fio: str = "fio") -> dict[str, FioResult]:
    """Start one fio per job file at once and wait for all (bounded by timeout_s).

    A failing fio stops the others and raises FioError; so do the timeout and
    KeyboardInterrupt (re-raised) -- no fio outlives this call."""
    procs: list[FioProcess] = []
    try:
        with _signals_held():                   # each fio registered before a stop can come
            for name, jobfile in jobs.items():
                procs.append(FioProcess(name, jobfile, outdir / f"{name}.json", fio))
        deadline = time.monotonic() + timeout_s
        while True:
            rcs = [p.poll() for p in procs]
            for p, rc in zip(procs, rcs, strict=True):
                if rc is not None and rc != 0:
                    raise FioError(f"fio for tenant {p.name} failed (exit {rc}): {p.why()}")
            if all(rc == 0 for rc in rcs):
                break
            if time.monotonic() > deadline:
                raise FioError(f"fio did not finish within {timeout_s:.0f}s (stopped)")
            if tick is not None:
                tick()
            time.sleep(0.1)
        out = {p.name: p.result() for p in procs}
    finally:
        for p in procs:
            p.stop()
    for name, r in out.items():
        if r.errors:
            raise FioError(f"fio for tenant {name} reported IO errors (error {r.errors})")
    return out
