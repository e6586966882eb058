"""Online, work-conserving autotuning of the data plane's knobs (after Astra, ASPLOS'19).

1. The problem.  The best latency band, slot size and write price depend on
   the drive and on the tenant mix, and a training mix repeats (epochs,
   per-iteration bursts, checkpoints).  The autotuner finds good settings
   while the data plane keeps serving every IO: a trial only changes knobs
   of the running scheduler (jbof_sched_configure keeps queued and
   in-flight IO), nothing is ever held back for the sake of measuring.

2. The objective: throughput at p99 within SLO.  Over a measurement
   interval I (whole periods of the mix):

       T = sum over tenants of (A * reads + read bytes + W * (A * writes + write bytes)) / |I|

   in read-byte equivalents per second, with FIXED prices A = 3584 bytes per
   command and W = 3 per written byte (the dct983 profile's per-command
   cost and its sequential read/write bandwidth ratio).  Fixed, because the
   scheduler's own write factor is one of the knobs: pricing with it would
   let the tuner raise throughput by raising prices.  With r = the largest
   p99 / SLO over the tenants that have an SLO (p99 of the interval's
   latency histogram; a tenant with IO outstanding and nothing completed
   has r = infinity):

       J = T                    if r <= 1 (every SLO met)
       J = T * r^-4             otherwise

   A config 10% over an SLO loses a third of its throughput, so trading
   latency for bandwidth never pays, yet J stays continuous for the search.
   Worked example: T = 3.0e9 with the reader's p99 at 1.1 ms against a
   1 ms SLO gives J = 3.0e9 / 1.1^4 = 2.05e9 -- below a config that meets
   the SLO at 2.2e9.

3. Trials hold one configuration for whole periods of the mix (profiling.py
   finds the period; a steady mix uses a base period of 250 ms): one
   period of the incumbent first (gap: the operating point the controller
   reaches depends on where it came from, so every trial starts from the
   same place), then settle periods (served, not scored: the controller and
   the cost estimator adapt), then at least 2 measured periods, extended
   up to 4x while the per-period objective's relative standard error is
   above 2% (a phased mix is noisier).  With three or more periods the
   trial's objective is the median of its periods' (else that of the whole
   measurement): a period hit by a rare drive event -- a burst of
   garbage collection, a latency spike -- does not decide between two
   configs.  Every period is split into windows
   of about 100 ms, the granularity of the guardrails:

     - abort: a trial whose p99 so far exceeds (1 + margin) x max(SLO, the
       incumbent's p99) for a tenant with an SLO (margin 20%) is stopped at
       the end of that window and the incumbent restored; so is one with 2
       or more periods over an SLO, more than half of its periods (and more
       than the incumbent has);
     - budget: a period in which some SLO'd tenant's p99 exceeds its SLO is
       a violation; during trials each one costs (1 - the incumbent's own
       violation rate), i.e. only violations beyond what the incumbent
       would have caused count.  A trial period starts only if its worst
       case fits in the budget (default 10), so the total never exceeds
       it; when it does not fit, the search stops with the best so far;
     - exploration cap: before a trial, the incumbent is held (whole
       periods) until trial time stays <= cap x the time since the search
       began (cap 0.5: at most half the time on trial configs).

4. Pruning.  The space is a small grid (KNOBS; default: band x slot x write
   price = 5 x 3 x 3 = 45 points), searched in stages:

     a. inert knobs are left out: the write price changes nothing (exactly:
        reads are priced without it) while no tenant writes;
     b. staged coordinate search: one knob at a time, in KNOBS order, the
        others held at the best so far; then "trades" -- one knob a step
        more aggressive and another a step less -- which climb the ridge
        where the best configs sit (e.g. a looser band with smaller slots);
        repeated while something improves, two passes at most;
     c. golden-section search along each ordered knob (J along one knob is
        roughly unimodal: too tight throttles, too loose breaks the SLO),
        which finds the best of 5 values in 3-4 trials instead of 5; values
        within 1% are ties, won by the less aggressive one (headroom left on
        one knob may be spent on another);
     d. dominance elimination: every knob has a direction that lets more
        work into the drive; a config at least as aggressive on every knob
        as an aborted one is not tried (it would break the SLO too); and a
        config that measured exactly like a better-ranked one (the knobs it
        differs in made no difference) skips the final round;
     e. successive halving: the best K = 4 survivors are measured again for
        4, then 8 periods, keeping the better half each time (the mean over
        all their measurements), which protects the final pick from one
        lucky measurement.

   Worked example (tune-training: period 1 s; 3 knobs): the profile takes
   5 periods, the coordinate and trade stages about 15 trials of 4-10
   periods each, halving 4 + 2 trials of 5 and 9 periods; at cap 0.5 that
   is 150-250 periods (period_bound(): 693).  tune-large-seq (steady,
   read-only: 2 knobs, 250 ms periods): 12-15 trials, ~120 periods = 30 s.

5. The index.  The winner is stored under the drive and the workload
   signature (profiling.py) in a JSON file (written atomically), with its
   objective and the period.  When a signature is seen again -- later in
   the run or in another run -- its best config is applied right after
   profiling: no trial at all.

6. Change detection.  While exploiting, the objective of every period feeds a
   two-sided CUSUM (profiling.Cusum) and every period's quick signature is
   compared with the profiled one.  Two periods of another mix -> profile
   again (then reuse or explore); a CUSUM alarm with the same mix (the drive
   or the workload's intensity shifted) -> explore again from the current
   config and update the index entry.  Live, "period" means a block of whole
   periods of at least ``shift_block_s`` (1 s): one 100 ms period of a real
   drive and client on a shared host varies by tens of percent (a client
   descheduled for 50 ms), which would make a CUSUM of single periods alarm
   within seconds of every convergence; the simulator's periods do not vary
   so (``shift_block_s`` = 0: single periods).
"""
from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from control.errors import ConfigError
from control.tune.episode import EPISODE_TOTALS, Episode, Measured, episode_counts
from control.tune.index import Index
from control.tune.objective import Score, period_violated, score
from control.tune.profiling import (
    Cusum,
    DataPlane,
    NS,
    Profile,
    Sample,
    Window,
    profile,
    quick_signature,
    window,
)
from control.tune.space import Point, Space, golden_section


log = logging.getLogger("jbof.tune")


MIN_GUARD_SLO_IOS = 50       # fewer completions in a trial so far: no abort yet


@dataclass(frozen=True)
class TuneParams:
    window_s: float = 0.1           # guard/accounting granularity
    tick_s: float = 0.01            # profiling sample interval
    profile_s: float = 4.5          # profiling length (periods up to a third of it are seen)
    base_period_s: float = 0.25     # the "period" of a steady mix
    settle_s: float = 0.2           # served, not scored, after a change (whole periods)
    measure_s: float = 0.5          # scored per trial at least (whole periods, >= 2)
    max_measure: int = 4            # ... extended up to this many times while noisy
    se_target: float = 0.02         # ... until the per-period J's relative std error is this
    explore_cap: float = 0.5        # at most this fraction of a search's time on trials
    gap_periods: int = 1            # incumbent periods before every trial
    slo_margin: float = 0.2         # abort a trial at p99 > (1 + margin) x max(SLO, incumbent)
    abort_violations: int = 2       # ... or once this many (and most) of its periods violated
    slo_budget: float = 10.0        # extra violated periods allowed per search
    max_trials: int = 30            # coordinate and diagonal stages
    passes: int = 2                 # coordinate passes
    halving_k: int = 4              # candidates entering successive halving
    min_gain: float = 0.01          # a coordinate move must gain 1%
    mix_change_periods: int = 2     # periods of another mix before re-profiling
    shift_block_s: float = 0.0      # exploiting: periods judged in blocks this long (0: one)
    history: int = 0                # episodes (x10 trial-log entries) kept; 0: all (a daemon
                                    # runs for months: older ones are only summed in totals())

    def check(self) -> None:
        for name in ("window_s", "tick_s", "profile_s", "base_period_s", "measure_s"):
            if not getattr(self, name) > 0:
                raise ConfigError("tune", name, "must be > 0")
        if not 0 < self.explore_cap <= 1:
            raise ConfigError("tune", "explore_cap", "must be in (0, 1]")
        if self.slo_margin < 0 or self.slo_budget < 0 or self.shift_block_s < 0:
            raise ConfigError("tune", "slo_margin/slo_budget/shift_block_s", "must be >= 0")
        if self.max_trials < 1 or self.passes < 1 or self.halving_k < 1 or self.history < 0:
            raise ConfigError("tune", "max_trials/passes/halving_k/history", "must be >= 1")


class _Stop(Exception):
    """The run's time is up (unwinds a search at a window boundary)."""


class _BudgetSpent(Exception):
    """The exploration's SLO budget cannot cover another trial period."""


class AutoTuner:
    """Runs profile -> reuse or search -> exploit on one data plane.

    ``run(seconds)`` drives the data plane (simulator: virtual time) and
    returns when the time is up, with the incumbent in force.  The live
    daemon runs it in a thread per drive (control/tune/autotune_live.py: ``until``
    stops it at a window boundary when tuning is disabled, the operator
    changes the drive or the daemon stops; ``rebase()`` before the next
    run); ``status()`` and ``metric_samples()`` feed tune.status and /metrics."""

    def __init__(self, dp: DataPlane, space: Space | None = None, index: Index | None = None,
                 params: TuneParams | None = None) -> None:
        self.dp = dp
        self.params = params or TuneParams()
        self.params.check()
        self.index = index if index is not None else Index(None)
        base = space or Space.of()
        self.incumbent = base.read(dp.get_fields())
        self.default = self.incumbent
        self.space = base.including(self.incumbent)
        self.slos = dict(dp.slos_ns())
        self.enabled = True
        self.episodes: list[Episode] = []
        self.trial_log: list[dict[str, Any]] = []
        self._dropped: dict[str, float] = dict.fromkeys(EPISODE_TOTALS, 0.0)   # trimmed history
        self._in_force = self.incumbent
        self._deadline_ns = 0
        self._until: Callable[[AutoTuner], bool] | None = None
        self._last: Sample | None = None
        self._period_s = self.params.base_period_s
        self._profile: Profile | None = None
        self._active: tuple[int, ...] = tuple(range(len(self.space.knobs)))
        self._writes = True
        # the incumbent's record, for the guard and for "extra" violations
        self._inc_periods = 0
        self._inc_violated = 0
        self._inc_ratio = 0.0
        self._inc_measured: Measured | None = None   # during a search

    # -- time ------------------------------------------------------------

    @property
    def now_s(self) -> float:
        return self._sample().now_ns / NS

    def _sample(self) -> Sample:
        if self._last is None:
            self._last = self.dp.sample()
        return self._last

    def _advance(self, seconds: float) -> Sample:
        if self._sample().now_ns >= self._deadline_ns or (self._until and self._until(self)):
            raise _Stop
        self.dp.advance(seconds)
        self._last = self.dp.sample()
        return self._last

    def _apply(self, cfg: Point) -> None:
        if cfg != self._in_force:
            self.dp.apply(self.space.fields(cfg))
            self._in_force = cfg

    def _windows_per_period(self) -> tuple[int, float]:
        n = max(1, round(self._period_s / self.params.window_s))
        return n, self._period_s / n

    def _periods(self, seconds: float) -> int:
        return max(1, math.ceil(seconds / self._period_s - 1e-9))

    # -- the loop ----------------------------------------------------------

    def run(self, seconds: float, until: Callable[[AutoTuner], bool] | None = None) -> None:
        """Serve for ``seconds`` (or until ``until(self)`` holds at a window
        boundary).  A later call starts over with a profile (a known mix is
        then reused at once)."""
        self._last = None      # live: time passed since the last call
        self._deadline_ns = self._sample().now_ns + round(seconds * NS)
        self._until = until
        try:
            reason = "start" if not self.episodes else "resume"
            while True:
                if not self.enabled:
                    self._apply(self.default)
                    self._advance(self.params.window_s)
                    continue
                reason = self._episode(reason)
        except _Stop:
            self._apply(self.incumbent if self.enabled else self.default)

    def rebase(self, space: Space | None = None) -> None:
        """Start over from the knobs in force on the data plane (live: the
        operator changed the drive, or tuning was off): they become the
        default and the incumbent, over ``space`` if given; history (episodes,
        trial log) is kept.  The next run() profiles first (and reads the SLOs
        again, as every profile does)."""
        base = space or self.space
        cur = base.read(self.dp.get_fields())
        self.space = base.including(cur)
        self.default = self.incumbent = self._in_force = cur
        self._profile = None
        self._active = tuple(range(len(self.space.knobs)))
        self._inc_periods = self._inc_violated = 0
        self._inc_ratio = 0.0

    def _episode(self, reason: str) -> str:
        ep = Episode(start_s=self.now_s, reason=reason)
        self.episodes.append(ep)
        self._trim()
        before = self._profile.signature if self._profile else None
        prof = self._do_profile()
        if reason == "shift" and prof.signature != before:
            ep.reason = reason = "mix"      # the objective moved because the mix did
        ep.signature = prof.signature
        ep.period_s = self._period_s
        entry = self.index.get(self.dp.drive, prof.signature)
        cfg = self.space.from_dict(entry["knobs"]) if entry and reason != "shift" else None
        if ep.idle:       # nobody did IO: nothing to measure, wait for a mix (live: idle drive)
            self._commit(ep, self.incumbent, 0.0)
        elif cfg is not None:
            ep.reused = True
            self._commit(ep, cfg, float(entry.get("objective", 0.0)) if entry else 0.0)
            log.info("signature %s seen before: applied %s", prof.signature, ep.best)
        else:
            best, j = self._search(ep)
            self._commit(ep, best, j)
            self.index.put(self.dp.drive, prof.signature, {
                "knobs": ep.best, "objective": round(j, 1), "period_s": self._period_s,
                "trials": ep.trials, "updated_unix": round(time.time())})
        return self._exploit(prof)

    def _commit(self, ep: Episode, cfg: Point, j: float) -> None:
        if cfg != self.incumbent:
            self._inc_periods = self._inc_violated = 0
        self.incumbent = cfg
        self._apply(cfg)
        ep.converged_s = self.now_s
        ep.periods_to_converge = self._periods(ep.converged_s - ep.start_s)
        ep.best = self.space.as_dict(cfg)
        ep.best_objective = j

    # -- profiling ---------------------------------------------------------

    def _do_profile(self) -> Profile:
        p = self.params
        self.slos = dict(self.dp.slos_ns())     # live: tenants and SLOs change
        self._apply(self.incumbent)
        samples = [self._sample()]
        for _ in range(max(2, round(p.profile_s / p.tick_s))):
            samples.append(self._advance(p.tick_s))
        prof = profile(samples, self.slos)
        self._profile = prof
        self._period_s = prof.period_s or p.base_period_s
        self._writes = any(tw.write_ios for tw in prof.window.tenants.values())
        self._active = self.space.active(self._writes)
        # the incumbent's record from the profile, in whole periods
        per = max(1, round(self._period_s / p.tick_s))
        for i in range(0, len(samples) - per, per):
            self._note_incumbent(window(samples[i], samples[i + per]))
        self._inc_ratio = score(prof.window, self.slos).worst_ratio
        return prof

    def _note_incumbent(self, period: Window) -> None:
        self._inc_periods += 1
        self._inc_violated += period_violated(period, self.slos)

    def _inc_violation_rate(self) -> float:
        return self._inc_violated / self._inc_periods if self._inc_periods else 0.0

    # -- serving -------------------------------------------------------------

    def _serve_period(self, guard: Callable[[Sample], bool] | None = None) -> tuple[Window, bool]:
        """Serve one period in windows; stop early if guard(sample) trips.

        Returns the period's window and whether the guard tripped."""
        n, wlen = self._windows_per_period()
        start = self._sample()
        for _ in range(n):
            cur = self._advance(wlen)
            if guard is not None and guard(cur):
                return window(start, cur), True
        return window(start, self._sample()), False

    def _hold_incumbent(self, periods: int) -> Window:
        """Serve the incumbent for whole periods; returns the whole window
        (also a measurement of the incumbent for a search in progress)."""
        self._apply(self.incumbent)
        start = self._sample()
        for _ in range(periods):
            self._note_incumbent(self._serve_period()[0])
        w = window(start, self._sample())
        s = score(w, self.slos)
        self._inc_ratio = s.worst_ratio
        if self._inc_measured is not None:
            self._inc_measured.add(s, w.seconds)
        return w

    def _trial(self, ep: Episode, cfg: Point, min_periods: int, stage: str,
               adaptive: bool = True) -> tuple[Score, float] | None:
        """Hold cfg for settle periods, then measure it for min_periods (if
        adaptive, longer while the per-period objective's relative standard
        error exceeds se_target, up to max_measure x min_periods), under the
        guardrails.

        Returns the measured score and the seconds it covers, None if the
        trial was aborted.  Raises _BudgetSpent when the SLO budget cannot
        cover the next period."""
        p = self.params
        settle = self._periods(p.settle_s) if p.settle_s > 0 else 0
        max_periods = min_periods * (p.max_measure if adaptive else 1)
        # exploration cap: hold the incumbent until this trial fits under it,
        # and for gap_periods at least, so every trial starts from the
        # incumbent's state (the operating point the controller reaches
        # depends on where it came from, not only on the knobs)
        trial_s = (settle + min_periods) * self._period_s
        need = (ep.trial_s + trial_s) / p.explore_cap - (self.now_s - ep.start_s) - trial_s
        self._hold_incumbent(max(p.gap_periods, self._periods(need) if need > 1e-9 else 0))
        charge = 1.0 - self._inc_violation_rate()
        limit = (1.0 + p.slo_margin) * max(1.0, self._inc_ratio)
        self._apply(cfg)
        ep.trials += 1
        start = self._sample()
        measure_from: Sample | None = None
        js: list[float] = []
        i = violated = 0
        while True:
            if i == settle:
                measure_from = self._sample()
            if ep.extra_violations + charge > p.slo_budget:
                ep.budget_exhausted = True
                self._record(ep, cfg, stage, None, start)
                self._apply(self.incumbent)
                raise _BudgetSpent
            t0 = self._sample().now_ns
            per, tripped = self._serve_period(
                lambda cur: self._guard_trips(window(start, cur), limit))
            ep.trial_s += (self._sample().now_ns - t0) / NS
            if period_violated(per, self.slos):
                ep.extra_violations += charge
                violated += 1
                tripped = tripped or (violated >= p.abort_violations and violated > (i + 1) / 2
                                      and violated > self._inc_violation_rate() * (i + 1))
            if tripped:
                ep.aborted += 1
                self._record(ep, cfg, stage, None, start)
                self._apply(self.incumbent)
                return None
            i += 1
            if i > settle:
                js.append(score(per, self.slos).objective)
                if len(js) >= max_periods or (len(js) >= min_periods and _rel_se(js) <= p.se_target):
                    break
        assert measure_from is not None
        w = window(measure_from, self._sample())
        s = score(w, self.slos)
        if len(js) >= 3:
            s = replace(s, objective=sorted(js)[len(js) // 2])
        self._record(ep, cfg, stage, s, start)
        return s, w.seconds

    def _guard_trips(self, w: Window, limit: float) -> bool:
        for name, slo in self.slos.items():
            tw = w.tenants.get(name)
            if not slo or tw is None:
                continue
            if tw.ios == 0 and tw.outstanding > 0 and w.seconds >= self.params.window_s:
                return True
            if tw.ios >= MIN_GUARD_SLO_IOS and tw.p99_ns() > limit * slo:
                return True
        return False

    def _record(self, ep: Episode, cfg: Point, stage: str, s: Score | None,
                start: Sample) -> None:
        entry = {"t_s": round(start.now_ns / NS, 3), "stage": stage,
                 "knobs": self.space.as_dict(cfg), "aborted": s is None,
                 "seconds": round((self._sample().now_ns - start.now_ns) / NS, 3),
                 "objective": round(s.objective, 1) if s else None,
                 "worst_ratio": round(s.worst_ratio, 3) if s and math.isfinite(s.worst_ratio)
                 else None}
        self.trial_log.append(entry)
        log.debug("trial %s", entry)

    # -- the search (section 4) -----------------------------------------------

    def _search(self, ep: Episode) -> tuple[Point, float]:
        p = self.params
        results: dict[Point, Measured] = {}
        inc = self.incumbent
        assert self._profile is not None
        m0 = self._inc_measured = Measured()
        m0.add(score(self._profile.window, self.slos), self._profile.window.seconds)
        results[inc] = m0
        measure_periods = max(2, self._periods(p.measure_s))
        aborted: list[Point] = []

        def value(cfg: Point) -> float:
            """J of cfg, running a trial if it was never measured (-1: pruned/aborted)."""
            if cfg in results:
                m = results[cfg]
                return -1.0 if m.aborted else m.j
            if any(self.space.at_least_as_aggressive(cfg, a) for a in aborted):
                ep.pruned += 1
                results[cfg] = Measured(aborted=True)
                return -1.0
            if ep.trials >= p.max_trials:
                return -1.0
            got = self._trial(ep, cfg, measure_periods, stage)
            m = results[cfg] = Measured()
            if got is None:
                m.aborted = True
                aborted.append(cfg)
                return -1.0
            m.add(*got)
            return m.j

        best = inc
        stage = "coordinate"
        active = self._active
        try:
            for _ in range(p.passes):
                moved = False
                for ki in active:
                    knob = self.space.knobs[ki]
                    stage = f"coordinate:{knob.name}"
                    line = [best[:ki] + (v,) + best[ki + 1:] for v in knob.values]
                    cand = golden_section(line, value, p.min_gain, knob.up_is_aggressive)
                    if value(cand) > value(best) * (1 + p.min_gain):
                        best, moved = cand, True
                # trades: one knob a step more aggressive, another a step less
                # (a ridge that one-knob moves cannot climb)
                stage = "diagonal"
                for i in active:
                    for j in active:
                        up = self.space.step(best, i, True) if i != j else None
                        trade = self.space.step(up, j, False) if up is not None else None
                        if trade is not None and value(trade) > value(best) * (1 + p.min_gain):
                            best, moved = trade, True
                if not moved or ep.trials >= p.max_trials:
                    break
            stage = "halving"
            best = self._halving(ep, results, best, measure_periods)
        except _BudgetSpent:
            log.info("exploration SLO budget spent after %d trials", ep.trials)
        self._inc_measured = None
        # the best measured config (an incumbent never beaten stays)
        live = {c: m for c, m in results.items() if not m.aborted and m.seconds > 0}
        if best not in live:
            best = max(live, key=lambda c: live[c].j)
        return best, live[best].j

    def _halving(self, ep: Episode, results: dict[Point, Measured], best: Point,
                 measure_periods: int) -> Point:
        p = self.params
        live = [c for c, m in results.items() if not m.aborted and m.seconds > 0]
        live.sort(key=lambda c: -results[c].j)
        cands: list[Point] = []
        for c in live:
            mc = results[c]
            if any((results[d].t, results[d].ratio) == (mc.t, mc.ratio) for d in cands):
                continue    # measured exactly like a better-ranked one: same behaviour
            cands.append(c)
            if len(cands) == p.halving_k:
                break
        periods = measure_periods
        while len(cands) > 1:
            periods *= 2
            for c in cands:
                if c == self.incumbent:
                    self._hold_incumbent(periods)     # measures it
                    continue
                got = self._trial(ep, c, periods, f"halving:{len(cands)}", adaptive=False)
                if got is None:
                    results[c].aborted = True
                else:
                    results[c].add(*got)
            cands = [c for c in cands if not results[c].aborted]
            cands.sort(key=lambda c: -results[c].j)
            cands = cands[:max(1, math.ceil(len(cands) / 2))]
        return cands[0] if cands else best

    # -- exploiting (section 6) ------------------------------------------------

    def _exploit(self, prof: Profile) -> str:
        cusum = Cusum()
        other = 0
        ep = self.episodes[-1]
        block = self._periods(self.params.shift_block_s) if self.params.shift_block_s > 0 else 1
        while True:
            w = self._hold_incumbent(block)
            j = score(w, self.slos).objective
            ep.exploit_s += w.seconds
            ep.exploit_j_s += j * w.seconds
            if not self.enabled:
                return "resume"
            if quick_signature(w, self.slos) != prof.quick:
                other += 1
                if other >= self.params.mix_change_periods:
                    log.info("mix changed: %s", quick_signature(w, self.slos))
                    return "mix"
                continue
            other = 0
            if cusum.update(j):
                log.info("objective shifted under signature %s", prof.signature)
                return "shift"

    # -- reporting ---------------------------------------------------------------

    def period_bound(self) -> int:
        """Most periods a search can take from the start of its profile to
        its commit, for the current period and knobs (the convergence bound).

        Coordinate and diagonal trials: max_trials x (settle + the longest
        measurement); halving: K candidates at 2m, K/2 at 4m, ...; the cap
        stretches trial time by 1/explore_cap; every trial adds gap periods
        and one period of rounding."""
        p = self.params
        settle = self._periods(p.settle_s) if p.settle_s > 0 else 0
        m = max(2, self._periods(p.measure_s))
        trial_periods = p.max_trials * (settle + m * p.max_measure)
        n, k, per = p.max_trials, p.halving_k, m
        while k > 1:
            per *= 2
            trial_periods += k * (settle + per)
            n += k
            k = math.ceil(k / 2)
        return (self._periods(p.profile_s) + math.ceil(trial_periods / p.explore_cap)
                + n * (p.gap_periods + 1))

    @property
    def last_profile(self) -> Profile | None:
        return self._profile

    @property
    def active(self) -> tuple[int, ...]:
        """Indices of the knobs the last search varied."""
        return self._active

    @property
    def writes(self) -> bool:
        """Whether the last profile saw writes."""
        return self._writes

    def _trim(self) -> None:
        """Keep params.history episodes (and 10x as many trial-log entries); the
        counters of older ones go into totals()."""
        keep = self.params.history
        if not keep:
            return
        while len(self.episodes) > keep:
            for k, v in episode_counts(self.episodes.pop(0)).items():
                self._dropped[k] += v
        del self.trial_log[:max(0, len(self.trial_log) - 10 * keep)]

    def totals(self) -> dict[str, float]:
        """Counters over every episode so far: searches (profiles that found a new
        mix), reuses (mixes found in the index), trials, aborted, pruned, trial_s,
        extra_violations."""
        out = dict(self._dropped)
        for e in self.episodes:
            for k, v in episode_counts(e).items():
                out[k] += v
        cur = self.episodes[-1] if self.episodes else None
        if cur is not None and cur.reused and cur.converged_s is None:
            # a reuse counts once its configuration is applied (_commit sets converged_s after
            # the apply): the live status, read from another thread, never shows a reuse beside
            # the state and knobs from before it
            out["reuses"] -= 1.0
        return out

    def metric_samples(self) -> list[tuple[str, dict[str, str], float]]:
        """Prometheus samples (name, labels, value) for the daemon's collector:
        counters over all searches, the knobs in force and the objective of the
        last configuration chosen."""
        d = {"drive": self.dp.drive}
        tot = self.totals()
        chosen = [e for e in self.episodes if e.converged_s is not None]
        out: list[tuple[str, dict[str, str], float]] = [
            ("jbof_tune_enabled", d, float(self.enabled)),
            ("jbof_tune_searches_total", d, tot["searches"]),
            ("jbof_tune_reuses_total", d, tot["reuses"]),
            ("jbof_tune_trials_total", d, tot["trials"]),
            ("jbof_tune_trials_aborted_total", d, tot["aborted"]),
            ("jbof_tune_trials_pruned_total", d, tot["pruned"]),
            ("jbof_tune_trial_seconds_total", d, tot["trial_s"]),
            ("jbof_tune_extra_slo_violations_total", d, tot["extra_violations"]),
            ("jbof_tune_objective", d, chosen[-1].best_objective if chosen else 0.0)]
        out += [("jbof_tune_knob", {**d, "knob": n}, float(v))
                for n, v in self.space.as_dict(self.incumbent).items()]
        return out

    def status(self) -> dict[str, Any]:
        """For ``jbof tune status`` and metrics: where the tuner stands."""
        ep = self.episodes[-1] if self.episodes else None
        tot = self.totals()
        return {"drive": self.dp.drive, "enabled": self.enabled,
                "knobs": self.space.as_dict(self.incumbent),
                "default": self.space.as_dict(self.default),
                "trials_total": int(tot["trials"]), "aborted_total": int(tot["aborted"]),
                "episode": ep.as_dict() if ep else None}


def _rel_se(xs: Sequence[float]) -> float:
    """Relative standard error of the mean (inf for fewer than two values)."""
    if len(xs) < 2:
        return math.inf
    m = sum(xs) / len(xs)
    var = sum((x - m) ** 2 for x in xs) / (len(xs) - 1)
    return math.sqrt(var / len(xs)) / m if m > 0 else math.inf
