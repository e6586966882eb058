"""Live autotuning: the autotuner of control/tune/autotune.py on the running daemon.

1. What runs.  ``jbof serve`` with a ``tune:`` section (control/config.py
   TUNE_KEYS) starts a ``TuneService``: one thread per drive, each running
   an ``AutoTuner`` over a ``LiveDataPlane`` -- profile, reuse the index's
   configuration for a known mix or search (trials held for whole periods
   under the SLO guardrails, the exploration cap and the SLO budget), then
   exploit until the mix or the objective shifts.  Nothing here touches an
   IO: the reactor keeps serving every request while the knobs change.

2. Counters.  A sample is, for each tenant of the drive, the Engine's
   cumulative counters (``tenant_stats``: IOs and bytes by direction, SLO
   misses) and its latency histogram (``tenant_hist``); the autotuner diffs
   two samples into a window.  ``issued`` = submitted - other IOs - errors,
   so that issued - reads - writes is what is queued or in the drive.  Two C
   calls per tenant, answered by the reactor between two batches: every
   10 ms while profiling, every window (100 ms) otherwise.

3. Applying a configuration.  ``Operations.set_tuned_fields`` (control/daemon/operations.py):
   the admin ops' lock, ``Engine.configure_drive`` between two reactor
   batches (queued and in-flight IO kept: work-conserving), never written to
   the config file.  The operator's value of every field the tuner sets is
   kept, and put back (``Operations.clear_tuned``):

     - when tuning is disabled (``tune.set``): before the reply, so
       ``jbof tune disable`` returns with the configured knobs in force;
     - when the operator changes the drive (``drive.set``): the change
       applies over the configured knobs and the tuner starts over from it;
     - when the daemon stops (before the Engine), or the tuner fails (the
       error is logged and shown by ``tune.status``; that drive's tuner is
       disabled).

   A tuner whose data plane is closed (disabled, stopping) has its further
   applies refused under the same small lock (``LiveDataPlane.gate``) that
   closes it, so nothing it does after ``tune.set`` returns can change the
   drive.

4. What is persisted.  Trials and chosen configurations never reach the
   config file: a chosen configuration is what the tuner found for a mix,
   not the operator's intent, and two of the knobs (slot size, write price)
   have no config key.  They are persisted in the index (``tune.index``,
   JSON, written atomically), keyed by drive and workload signature: after
   a restart, a known mix gets its best configuration right after
   profiling, with no trials.  ``jbof tune index`` shows it; an operator who
   wants a tuned band without tuning sets it with ``jbof drive set --band``.
   What the operator asks for is saved like every admin change: ``tune.set``
   (enable/disable a drive) rewrites ``tune.enabled`` in the file.

5. Which drives.  The knobs are the qos policy's (the learned band exists
   only there): a drive running another policy is not tuned while it does
   (``tune.status`` says why).  A drive with a fixed band (``band:
   250us..1500us``) keeps it: ``band_hi_pct`` is left out of its search.

6. Time.  ``advance`` waits on an event until a deadline that moves by
   exactly the step (ticks do not drift; after a stall it resynchronises),
   so a stop, a disable or an operator's change interrupts a wait at once
   and the tuner unwinds at the next window boundary (``until``).
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from control.tune.autotune import AutoTuner, TuneParams
from control.tune.index import Index
from control.tune.space import KNOBS, TUNED_POLICY, Space
from control.tune.profiling import NS, Sample, TenantCounters, flatten_fields

log = logging.getLogger("jbof.tune")

RUN_S = 10 * 365 * 86400.0      # one run() lasts until it is interrupted
SHIFT_BLOCK_S = 1.0             # exploiting: the change detector's values span >= 1 s
HISTORY = 64                    # episodes kept in memory (counters keep counting)


class LiveDataPlane:
    """``profiling.DataPlane`` on the running daemon, for one drive."""

    def __init__(self, control: Any, drive: str, interrupt: threading.Event) -> None:
        self.control = control
        self.drive = drive
        self._interrupt = interrupt
        self.gate = threading.Lock()    # guards ``open``; held while applying
        self.open = False               # applies allowed (tuning on, not stopping)
        self._next_ns = 0

    def _tenants(self) -> list[Any]:
        return [t for t in self.control.config.tenants if t.drive == self.drive]

    def slos_ns(self) -> Mapping[str, int]:
        return {t.name: t.latency_slo for t in self._tenants()}

    def sample(self) -> Sample:
        eng = self.control.engine
        out: dict[str, TenantCounters] = {}
        for t in self._tenants():
            try:
                st = eng.tenant_stats(t.name)["tenant"]
                h = eng.tenant_hist(t.name)
            except (ValueError, OSError):       # removed meanwhile
                continue
            out[t.name] = TenantCounters(
                read_ios=st["read_ios"], read_bytes=st["read_bytes"],
                write_ios=st["write_ios"], write_bytes=st["write_bytes"],
                issued=st["submitted"] - st["other_ios"] - st["errors"],
                slo_violations=st["slo_violations"],
                hist=np.asarray(h["buckets"], dtype=np.int64))
        return Sample(now_ns=time.monotonic_ns(), tenants=out)

    def advance(self, seconds: float) -> None:
        """Wait until the next tick (step ``seconds`` after the last one); returns
        early when interrupted."""
        now = time.monotonic_ns()
        step = round(seconds * NS)
        target = self._next_ns + step
        if target < now - step:          # first call, or a stall: start from now
            target = now + step
        self._next_ns = target
        if target > now:
            self._interrupt.wait((target - now) / NS)

    def get_fields(self) -> dict[str, int]:
        return flatten_fields(self.control.engine.drive_cfg(self.drive))

    def apply(self, fields: Mapping[str, int]) -> None:
        """Through the admin plane's lock, never persisted; refused once closed."""
        with self.gate:
            if self.open:
                self.control.set_tuned_fields(self.drive, fields, TUNED_POLICY)


class SharedIndex(Index):
    """The daemon's index: one for every drive's tuner (a lock around lookups and
    updates); a failed save is logged, not fatal (the entry stays in memory)."""

    def __init__(self, path: Path | None) -> None:
        super().__init__(path)
        self._lock = threading.Lock()

    def get(self, drive: str, signature: str) -> dict[str, Any] | None:
        with self._lock:
            return super().get(drive, signature)

    def put(self, drive: str, signature: str, entry: Mapping[str, Any]) -> None:
        with self._lock:
            super().put(drive, signature, entry)

    def save(self) -> None:
        try:
            super().save()
        except OSError as e:
            log.warning("tune index %s not saved: %s", self.path, e.strerror or e)


class DriveTuner:
    """One drive's tuner thread: enable/disable, restart on operator changes, status."""

    def __init__(self, control: Any, drive: str, knobs: tuple[str, ...], index: Index,
                 params: TuneParams, enabled: bool) -> None:
        self.control = control
        self.drive = drive
        self.enabled = enabled
        self.error: str | None = None
        self._knobs = knobs
        self._index = index
        self._params = params
        self._stop = threading.Event()
        self._wake = threading.Event()          # leave the idle wait
        self._interrupt = threading.Event()     # cut a run's wait short (until holds)
        self._restart = False
        self._running = False
        self.dp = LiveDataPlane(control, drive, self._interrupt)
        space = self._space() if self.idle_reason() is None else None
        self.tuner: AutoTuner | None = (AutoTuner(self.dp, space, index, params)
                                        if space is not None else None)
        if self.tuner is not None:
            self.tuner.enabled = enabled
        self._thread = threading.Thread(target=self._loop, name=f"jbof-tune-{drive}",
                                        daemon=True)

    # -- what can be tuned ---------------------------------------------------

    def _space(self) -> Space | None:
        """The configured knobs, without band_hi_pct on a fixed band (None: nothing)."""
        fields = self.dp.get_fields()
        knobs = tuple(KNOBS[n] for n in self._knobs
                      if not (n == "band_hi_pct" and fields.get("ctl.band_hi_pct", 0) == 0))
        return Space(knobs) if knobs else None

    def idle_reason(self) -> str | None:
        """Why this drive cannot be tuned now (None: it can)."""
        try:
            policy = self.control.config.drive(self.drive).policy
        except KeyError:
            return "no such drive"
        if policy != TUNED_POLICY:
            return f"policy {policy}: the tuner tunes the {TUNED_POLICY} policy's knobs"
        if self._space() is None:
            return "nothing to tune: the band is fixed and band_hi_pct is the only knob"
        return None

    # -- the thread ------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()

    def _until(self, _t: AutoTuner) -> bool:
        return self._stop.is_set() or not self.enabled or self._restart

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            self._interrupt.clear()
            self._restart = False
            if not self.enabled or self.idle_reason() is not None:
                self._wake.wait()
                continue
            try:
                self._run()
            except Exception as e:  # the data plane keeps serving; this tuner stops
                log.error("tuner of drive %s failed and is disabled: %s: %s", self.drive,
                          type(e).__name__, e, exc_info=log.isEnabledFor(logging.DEBUG))
                self.error = f"{type(e).__name__}: {e}"
                with self.dp.gate:
                    self.enabled = False
                    self.dp.open = False
            finally:
                self._running = False
                back = self.control.clear_tuned(self.drive)
                if back:
                    log.info("drive %s: configured knobs back in force", self.drive)

    def _run(self) -> None:
        space = self._space()
        if space is None:
            return
        if self.tuner is None:
            self.tuner = AutoTuner(self.dp, space, self._index, self._params)
        else:
            self.tuner.rebase(space)
        with self.dp.gate:
            if not self.enabled or self._stop.is_set():
                return
            self.tuner.enabled = True
            self.dp.open = True
        self._running = True
        log.info("drive %s: tuning %s from %s", self.drive, ", ".join(self.tuner.space.names),
                 self.tuner.space.as_dict(self.tuner.default))
        self.tuner.run(RUN_S, until=self._until)

    # -- control ---------------------------------------------------------------

    def set_enabled(self, on: bool) -> dict[str, Any]:
        """Enable (ValueError if the drive cannot be tuned) or disable; disabling
        returns once the configured knobs are back in force."""
        if on:
            why = self.idle_reason()
            if why is not None:
                raise ValueError(f"drive {self.drive} cannot be tuned: {why}")
            if self.enabled:
                return self.status()        # already on: its search goes on
        with self.dp.gate:
            self.enabled = on
            if on:
                self.error = None
            else:
                self.dp.open = False
            if self.tuner is not None:
                self.tuner.enabled = on
        if not on:
            self.control.clear_tuned(self.drive)
        self.restart()
        self._wake.set()
        return self.status()

    def restart(self) -> None:
        """Start over from the drive's current settings (the operator changed them)."""
        self._restart = True
        self._interrupt.set()
        self._wake.set()

    def stop(self) -> None:
        """Close the data plane (no further applies), stop the thread, put the
        configured knobs back."""
        self._stop.set()
        with self.dp.gate:
            self.dp.open = False
        self._interrupt.set()
        self._wake.set()

    def join(self) -> None:
        self._thread.join(timeout=10)
        if self._thread.is_alive():
            log.warning("tuner of drive %s did not stop within 10s", self.drive)
        self.control.clear_tuned(self.drive)

    # -- reporting -------------------------------------------------------------

    def state(self) -> str:
        """disabled | error (disabled after a failure) | unavailable (cannot be tuned
        now) | profiling | exploring (a search runs) | exploiting | idle (no IO)."""
        if not self.enabled:
            return "error" if self.error else "disabled"
        if self.idle_reason() is not None:
            return "unavailable"
        t = self.tuner
        ep = t.episodes[-1] if t is not None and t.episodes else None
        if not self._running or ep is None or not ep.signature:
            return "profiling"
        if ep.converged_s is None:
            return "exploring"
        return "idle" if ep.idle else "exploiting"

    def knobs(self) -> tuple[dict[str, int], dict[str, int]]:
        """(knob values in force, the operator's configured values) of the searched knobs."""
        t = self.tuner
        if t is None:
            return {}, {}
        fields = self.dp.get_fields()
        _tuned, operator = self.control.tuned_fields(self.drive)
        return (t.space.as_dict(t.space.read(fields)),
                t.space.as_dict(t.space.read({**fields, **operator})))

    def status(self) -> dict[str, Any]:
        # the tuner's thread runs on while this reads: the totals first, then the state and the
        # knobs, so a reuse counted (only once its knobs are applied and its episode converged)
        # is never shown beside the state or knobs from before it
        t = self.tuner
        st, tot = (t.status(), t.totals()) if t is not None else ({}, {})
        state = self.state()
        in_force, configured = self.knobs()
        out: dict[str, Any] = {"drive": self.drive, "enabled": self.enabled, "state": state,
                               "reason": self.error if state == "error" else
                               self.idle_reason() if state == "unavailable" else None,
                               "knobs": in_force, "configured": configured}
        if t is not None:
            ep = t.episodes[-1] if t.episodes else None
            out.update(searched=list(t.space.names), best=st["knobs"],
                       signature=ep.signature if ep else None,
                       period_s=ep.period_s if ep and ep.signature else None,
                       trials_total=st["trials_total"], aborted_total=st["aborted_total"],
                       searches_total=int(tot["searches"]), reuses_total=int(tot["reuses"]),
                       episode=st["episode"])
        return out

    def metric_samples(self) -> list[tuple[str, dict[str, str], float]]:
        d = {"drive": self.drive}
        out: list[tuple[str, dict[str, str], float]] = [
            ("jbof_tune_enabled", d, float(self.enabled)),
            ("jbof_tune_exploring", d, float(self.state() == "exploring"))]
        t = self.tuner
        if t is not None:
            out += [s for s in t.metric_samples()
                    if s[0] not in ("jbof_tune_enabled", "jbof_tune_knob")]
            out += [("jbof_tune_knob", {**d, "knob": n}, float(v))
                    for n, v in self.knobs()[0].items()]
        return out


class TuneService:
    """Every drive's tuner, one shared index.  ``settings`` is
    control.config.tune_settings's dict.  ConfigError if the index file
    cannot be read."""

    def __init__(self, control: Any, settings: Mapping[str, Any]) -> None:
        self.settings = dict(settings)
        self.index = SharedIndex(Path(settings["index"]))
        params = TuneParams(base_period_s=settings["period_s"], profile_s=settings["profile_s"],
                            explore_cap=settings["explore_cap"],
                            slo_budget=settings["slo_budget"], max_trials=settings["max_trials"],
                            shift_block_s=SHIFT_BLOCK_S, history=HISTORY)
        params.check()
        self.tuners = {d.name: DriveTuner(control, d.name, tuple(settings["knobs"]), self.index,
                                          params, d.name in settings["enabled"])
                       for d in control.config.drives}

    def start(self) -> None:
        for t in self.tuners.values():
            why = t.idle_reason()
            if t.enabled and why is not None:
                log.warning("drive %s is not tuned: %s", t.drive, why)
            t.start()
        log.info("tuning %s (index %s)",
                 ", ".join(n for n, t in self.tuners.items() if t.enabled) or "no drive yet",
                 self.index.path)

    def stop(self) -> None:
        """Stop every tuner; each drive gets its configured knobs back."""
        for t in self.tuners.values():
            t.stop()
        for t in self.tuners.values():
            t.join()

    def drive_changed(self, drive: str) -> None:
        """Operations.on_drive_change: the operator changed the drive (never blocks)."""
        t = self.tuners.get(drive)
        if t is not None:
            t.restart()

    def set_enabled(self, drive: str, on: bool) -> dict[str, Any]:
        """KeyError: no such drive; ValueError: it cannot be tuned."""
        return self.tuners[drive].set_enabled(on)

    def enabled_drives(self) -> tuple[str, ...]:
        return tuple(n for n, t in self.tuners.items() if t.enabled)

    def status(self) -> dict[str, Any]:
        s = self.settings
        return {"index": str(self.index.path),
                "settings": {"knobs": list(s["knobs"]), "period_s": s["period_s"],
                             "profile_s": s["profile_s"], "explore_cap": s["explore_cap"],
                             "slo_budget": s["slo_budget"], "max_trials": s["max_trials"]},
                "drives": [t.status() for t in self.tuners.values()]}

    def metric_samples(self) -> list[tuple[str, dict[str, str], float]]:
        return [x for t in self.tuners.values() for x in t.metric_samples()]
