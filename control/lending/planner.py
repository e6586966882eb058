"""Anticipatory lending of owners' reserved bandwidth, robust to forecast errors (SIA).

Pure logic: no IO, no clock reads, no threads.  Every method takes ``now_s``
(seconds on any clock the caller chooses: Unix time in the daemon, virtual
time in the simulator), so tests drive it with an injected clock.

1. The problem.  Owners reserve bandwidth at their jobs' peak and hold it
   whether or not a job runs (static partitioning): most of it sits idle.
   Borrowers (scavenger-class tenants) could use it, but an owner whose job
   arrives while its reservation is lent is slowed until it is taken back.
   The cluster scheduler forecasts arrivals; its errors are neither bounded
   nor i.i.d. (heavy tails, drifting bias, outright wrong sources).

2. What the planner decides, every tick (e.g. 100 ms): for each owner how
   much of its reservation is *held* (0 = lent), and from that each
   borrower's ``limit_bps``:

       pool   = max(C - sum(R_o), C * (1 - headroom) - sum(held_o))
       limit  = pool / active borrowers / cost_per_byte(borrower)

   C is the drive's capacity (read-equivalent bytes/s), R_o the owners'
   reservations.  The first term is what static partitioning lends, so the
   planner never lends less than production does.  Borrowers get everything
   that is not held; what is held is only what an owner may draw within the
   reclaim horizon:

                                 held from readers         from writers
       idle, no job due          0                         0
       guarded, job due/running  0                         due: R_o (section 6),
                                                           running: min(R_o, sum D_j e^q_d)
       unguarded, job due        min(R_o, sum D_j e^q_d)   R_o
       unguarded, job running    min(R_o, sum D_j e^q_d)   the same
       untrusted / fallback /    R_o                       R_o
       no source / no demand

   D_j is the job's forecast peak cost-rate (a checkpointing job writes
   between its read bursts, so max(reads, write_cost x writes); otherwise
   their sum) and q_d the source's calibrated upper demand quantile (section
   3); the sums run over the jobs of that row.  A job is *due* from its
   calibrated reclaim time on (section 3): from then on its owner may arrive
   within the horizon, and what it will draw then is its demand, not its
   reservation.

   A *guarded* owner is latency-critical with an SLO: the data plane takes
   lent capacity back from readers IO by IO for it (csrc/sched.c section
   14: beside it, lent IO in flight is what the drive completes in a
   quarter of its SLO, from its first IO on), so nothing is held from
   readers for it -- the compute gaps between its read bursts, which no
   tick can follow, are lent, and so is the time between its calibrated
   reclaim and its arrival.  Holding a running owner's peak demand left
   borrowers 1.5x slower than naive sharing on the training-cluster
   scenario even with exact forecasts; without the hold and without section
   13, reading borrowers slowed owners (seed 1: 12 windows).  Writers still
   hold it: programs slow reads whatever is in flight, and GC debt is not
   taken back.  So the forecasts steer writers, unguarded owners and
   untrusted sources; an unguarded owner (reserved, no SLO) has only the
   reclaim bound and is held as before.  Guarding is only as safe as the
   borrowers' write fractions are true: the simulator knows them, the
   daemon measures them (section 9) and plans a borrower it has not
   measured yet as a writer.  ``is_guarded`` is the one rule both use.

   The headroom is kept while some owner holds anything (from readers or
   writers); with every owner idle and nothing due within the write
   horizon nobody can be slowed, and the whole of C is lent.

3. Calibration (per source).  For a forecast issued at t_f predicting arrival
   T (lead L = T - t_f) of a job that arrives at A, the residual is

       rho = ln((A - t_f) / L)            (< 0: earlier than predicted)

   kept in a ring buffer.  The owner must be held from

       reclaim_at = t_f + L * exp(q_alpha) - horizon

   where q_alpha is the conformal lower alpha-quantile of the ring (the
   k-th smallest residual, k = floor(alpha * (n + 1)); none if k < 1, and
   then the owner is held at once) and ``horizon`` is how long taking
   capacity back takes: one planner tick plus the data plane's own reclaim
   bound.  So P(owner arrives while lent) <= alpha: alpha *is* the slowdown
   budget over the reclaim horizon.  The same ring's upper quantile says when
   a job is a no-show (not arrived by t_f + L * exp(q_{1-alpha}) + horizon):
   its reservation is released.  Demand residuals ln(actual / predicted
   cost-rate) get their own ring; an active owner is held at
   min(R_o, predicted * exp(q_{1-alpha})).

4. Adaptive coverage (adaptive conformal inference).  Each arrival is an
   outcome: *miss* if rho < q_alpha (the owner would have arrived while
   lent), if it arrived unforecast, or after being released as a no-show.
   Then alpha <- alpha + gamma * (budget - miss) (gamma 0.002): a miss lowers
   a 1% alpha by 0.002, each covered arrival raises it by 0.00002, so the
   long-run miss rate tracks the budget even when the residuals drift.
   alpha <= 0 means "hold always" (no finite quantile is enough).

5. Fallback.  Independently of alpha, each arrival is judged against the
   quantile at the nominal budget.  Over the last W of those outcomes
   (W = 50), if P(Binomial(W, budget) >= misses) < p (1e-3) the source is
   not calibrated: every owner it forecasts falls back to static
   partitioning (held at R_o) until covered outcomes push the misses out of
   the window.  A source starts untrusted (no quantile until ~1/alpha
   residuals), so a new or broken source never makes the planner lend more
   than static partitioning does.

6. Writes.  A written byte costs the drive ``write_cost`` read bytes now and
   garbage collection later, which the data plane cannot take back: the
   write factor it learns falls while the write buffer absorbs writes and
   rises only once GC has fallen behind, and reads queue behind programs.
   So while some owner may read -- one runs, is due within ``horizon +
   write_horizon``, or is held for want of trust -- what is lent on top of
   the static partition is priced at write_cost * write_caution per written
   byte (4 x 4 = 16: about a fragmented drive's sustained random-write
   cost), and the pool for writing borrowers holds owners due within the
   write horizon in full: write lending stops earlier.  While every owner is
   idle with nothing due that soon, nobody reads while the debt is paid, and
   lent written bytes cost write_cost like the static partition's.  The
   price stands for the drive's write buffer: what slows an owner's reads
   is the buffer's occupancy (csrc/ssd.c 4 and 6), full once all writers
   together outrun its drain, not lent writes in flight -- so neither a
   data-plane cap on lent writes in flight nor writes kept to the owners'
   compute gaps makes lent writes safe, and a pace from what the scheduler
   does see (write completions, others' written bytes, owners' read
   latency) was slower and less safe than this price: at caution 3 the
   buffer never fills while owners run, so its drain is never observed,
   and a draining buffer alone (100 KiB, ~60-100 MB/s lent) already pushes
   a p99 near the SLO past it (docs/scheduler-log.md section 14 has the numbers).
   What the data plane does add is a backstop (section 14 there): a lent
   write slower than the tightest SLO while a latency-critical owner is
   active, once such an owner has missed its SLO, means the buffer filled
   and hurts: lent writes stop for a second.  The training-cluster scenario
   now runs write_caution 3 (a lent written byte costs 12): no owner slowed
   by robust or oracle on seeds 1-20 with noisy or biased forecasts (noisy:
   with or without the backstop), and robust/share 1.49 -> 1.44x,
   oracle/share 1.38 -> 1.33x against 4 (biased: 1.42 -> 1.37x).  2.5 slows owners on noisy seed 8 without the
   backstop (robust 1 window, oracle 5) and on biased seed 17 with it
   (robust, 1: p99 524 us on a nearly empty buffer); 2 even with it (noisy:
   robust seeds 10 and 17, oracle seed 1, one window each).
   Lending writers a guarded owner's running demand at write_cost and
   letting the data plane pace lent writes (100 MB/s beside an active
   owner) was slower and less safe (robust/share 1.61x, owners slowed on
   2 seeds).  The default stays 4: a drive whose buffer or drain differ
   is not measured.
   The write horizon is the buffer's drain, not the data plane's reclaim
   bound (which takes back lent IO in flight, not buffered bytes): a full
   64 MiB buffer drains in 0.4 s on the fragmented drive with no reads and
   0.8 s at 50% read utilisation; 0.5 s and 1 s slowed owners at arrivals.
   Writer jobs are what the planner costs borrowers (oracle: writer jobs
   2.2x share's latency, reader jobs 1.12x) and the drain is what holds
   them there: splitting the pool max-min, holding due owners at their
   demand or cutting writes later all land on the same safety frontier
   (docs/scheduler-log.md section 14, fourth pass).

7. Safety does not depend on the planner.  The data plane serves scavengers
   only when nobody else waits and caps their in-flight cost at what the
   drive completes in ``scavenger_reclaim_ns`` (csrc/sched.c, 3d), so lent
   capacity comes back within that bound (10 ms by default) even if the
   planner is wrong or late; tests/test_anticipation.py measures it.
   Beside a latency-critical tenant with an SLO the cap is a quarter of
   that SLO instead (section 14 there), which is what lets the planner
   lend a guarded owner to readers (section 2).

8. Worked example.  C = 2800 MiB/s, owners a, b, c reserve 700 each, so
   static partitioning leaves 700 to borrowers.  Source "sched" has 300
   residuals, alpha = 0.01, so q = the 3rd smallest = -0.9 (99% of jobs
   arrive after 41% of the predicted lead or later).  At t = 100 s it
   forecasts a in 20 s while b and c run (forecasts without demand: held at
   700 each).  a is lent until 100 + 20 * e^-0.9 - 0.2 = 107.93 s: pool =
   max(700, 2660 - 1400) = 1260.  Borrowers r (reads) and w (30% writes)
   split it: 350 static + 280 lent each.  r gets 630 MiB/s; w pays 0.7 + 0.3
   * 4 = 1.9 per byte of its static part and, since b and c run, 0.7 + 0.3 *
   16 = 5.5 per lent byte: 350 / 1.9 + 280 / 5.5 = 235 MiB/s, and only 184
   from 105.93 s (write horizon 2 s).  From 107.93 s a is due: held at 700,
   as its forecast named no demand; had it said 400 MiB/s of reads with q_d
   = 0.2, a would hold 400 * e^0.2 = 489 and r keep 350 + (2660 - 1889 -
   700) / 2 = 385.  Had b and c been latency-critical with an SLO
   (guarded), their running jobs would be held from writers only: pool =
   2660, r gets 350 + (2660 - 700) / 2 = 1330, w the same 235.  Had b and c
   been idle too, nothing would be held until 105.93 s: no headroom, r gets
   1400 and w 1400 / 1.9 = 736 MiB/s (no caution: no owner reads).  If a arrives at 103 s instead, rho = ln(3 / 20) = -1.90 < -0.9:
   a miss; alpha becomes 0.01 + 0.002 * (0.01 - 1) = 0.008 and q the 2nd
   smallest residual.  Five such misses among 50 arrivals (P = 1.5e-4 under
   a 1% budget) put "sched" in fallback: r and w get 350 and 184 again.

9. Borrowers' write fractions, live (``WriteMix``).  The simulator knows
   each borrower job's write fraction; the daemon measures it from the data
   plane's per-tenant byte counters, sampled every tick:

       w = written / (read + written)   over the last ``window_s`` (1 s)

   once the window holds ``min_bytes`` (8 MiB); a borrower that then goes
   quiet keeps its last w.  Before that it is planned as a writer, w = 1:
   a borrower planned as a reader draws from the pool that lends guarded
   owners' running jobs, so one that writes unmeasured would put lent
   writes next to a reading owner -- what section 6's prices and the write
   pool exist to prevent (unlimited writing scavengers slow owners on 9 of
   20 seeds of the training-cluster scenario).  w = 1 is the highest price
   and the write pool, so an unmeasured borrower never gets more than the
   planner gives any writer, and at least the static partition priced at
   ``write_cost``; a reader pays for it until it has moved 8 MiB (about a
   tick at that limit).  8 MiB because a writer whose first IOs happen to
   be reads would be measured a reader: at 128 KiB IOs that is 64 IOs, and
   a 20%-writer (the training-cluster scenario's) reads 64 in a row with
   probability 0.8^64 = 6e-7 (1 MiB, 8 IOs: 17%).  Writes raise w at the next tick
   (any write in the window makes it > 0, i.e. a writer: the write pool);
   w falls back to 0 only after a whole window without writes.  Counters
   that go backwards (a tenant removed and re-added) start over.

Policies beside ``robust`` for the evaluation: ``point`` mode takes forecasts
at face value (reclaims at T - horizon, no calibration, no fallback), which
is ``anticipate`` with real forecasts and ``oracle`` with exact ones.
"""
from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from control.errors import ConfigError
from control.lending.forecast import Arrived, Cancel, Demand, Finished, Forecast, Ls, Message
from control.schema import Key, p_choice, p_duration, p_int, p_percent, read_section, section

MODES = ("robust", "point")
MiB = 1 << 20


@dataclass(frozen=True)
class PlannerConfig:
    capacity_bps: int                    # C: read-equivalent bytes/s the drive sustains
    slowdown_budget: float = 0.01        # target P(owner arrives while its reservation is lent)
    horizon_s: float = 0.2               # reclaim horizon: planner tick + data-plane bound + margin
    write_horizon_s: float = 2.0         # writes stop this much earlier (GC debt)
    write_cost: float = 4.0              # read-equivalent cost of one written byte (planning)
    write_caution: float = 4.0           # extra price on lent written bytes (GC debt)
    headroom: float = 0.05               # fraction of C never lent
    ring: int = 512                      # residuals kept per source
    aci_gamma: float = 0.002             # adaptive-coverage step
    fallback_window: int = 50            # outcomes the fallback test looks at
    fallback_pvalue: float = 1e-3        # binomial tail that declares a source uncalibrated
    min_lead_s: float = 0.05             # floor on leads in the log residual
    min_limit_bps: int = MiB             # a lent-out borrower still gets this (0 would mean "no limit")
    mode: str = "robust"                 # robust | point

    def __post_init__(self) -> None:
        checks = [
            (self.capacity_bps > 0, "capacity_bps must be > 0"),
            (0.0 < self.slowdown_budget < 0.5, "slowdown_budget must be in (0, 0.5)"),
            (self.horizon_s >= 0 and self.write_horizon_s >= 0, "horizons must be >= 0"),
            (self.write_cost >= 1 and self.write_caution >= 1, "write_cost, write_caution >= 1"),
            (0.0 <= self.headroom < 1.0, "headroom must be in [0, 1)"),
            (self.ring >= 8 and self.fallback_window >= 5, "ring >= 8, fallback_window >= 5"),
            (0.0 < self.aci_gamma < 1.0, "aci_gamma must be in (0, 1)"),
            (0.0 < self.fallback_pvalue < 1.0, "fallback_pvalue must be in (0, 1)"),
            (self.min_lead_s > 0 and self.min_limit_bps >= 1, "min_lead_s > 0, min_limit_bps >= 1"),
            (self.mode in MODES, f"mode must be one of {', '.join(MODES)}"),
        ]
        for ok, what in checks:
            if not ok:
                raise ValueError(f"planner: {what}")


def _number(lo: float, hi: float) -> Any:
    def parse(v: Any) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
            raise ValueError(f"{v!r} is not a number in {lo:g}..{hi:g}")
        return float(v)
    return parse


# The planner's settings in config files (the training-cluster scenario's
# ``cluster.planner`` and the daemon's ``forecast.planner``): one table.
PLANNER_KEYS = section(
    Key("mode", "choice", p_choice(MODES), "robust (calibrated) | point (forecasts at face "
        "value)", "robust"),
    Key("slowdown_budget", "percent", p_percent, "P(owner arrives while lent) per job", "1%"),
    Key("horizon", "duration", p_duration(), "reclaim horizon: planner tick + the data "
        "plane's reclaim bound + margin", "200ms"),
    Key("write_horizon", "duration", p_duration(), "writes stop this much earlier", "2s"),
    Key("write_cost", "number", _number(1, 100), "read-equivalent cost of a written byte", 4.0),
    Key("write_caution", "number", _number(1, 100), "extra price of lent writes", 4.0),
    Key("headroom", "percent", p_percent, "capacity never lent", "5%"),
    Key("aci_gamma", "number", _number(1e-6, 0.5), "adaptive coverage step", 0.002),
    Key("fallback_window", "integer", p_int(5, 10000), "outcomes in the fallback test", 50),
    Key("fallback_pvalue", "number", _number(1e-12, 0.5), "fallback threshold", 0.001),
    Key("ring", "integer", p_int(8, 1 << 20), "residuals kept per source", 512),
)


def parse_planner_config(data: Any, src: str, where: str, capacity_bps: int) -> PlannerConfig:
    """A planner settings mapping (PLANNER_KEYS) -> PlannerConfig; ConfigError, one line."""
    got = read_section(data, PLANNER_KEYS, src, where)

    def val(k: str) -> Any:
        if k in got:
            return got[k]
        d = PLANNER_KEYS[k].default
        return PLANNER_KEYS[k].parse(d) if isinstance(d, str) else d
    try:
        return PlannerConfig(
            capacity_bps=capacity_bps, slowdown_budget=val("slowdown_budget") / 100.0,
            horizon_s=val("horizon") / 1e9, write_horizon_s=val("write_horizon") / 1e9,
            write_cost=val("write_cost"), write_caution=val("write_caution"),
            headroom=val("headroom") / 100.0, aci_gamma=val("aci_gamma"),
            fallback_window=val("fallback_window"), fallback_pvalue=val("fallback_pvalue"),
            ring=val("ring"), mode=val("mode"))
    except ValueError as e:
        raise ConfigError(src, where, str(e)) from None


def peak_cost(d: Demand, write_cost: float) -> float:
    """The highest read-equivalent rate a job with demand ``d`` asks for at once.

    A job that writes checkpoints (``checkpoint_bytes``) writes them between its
    read bursts, not during them, so its peak is the larger of the two rates;
    otherwise reads and writes may overlap and their costs add up."""
    if d.cost_bps or not d.checkpoint_bytes:
        return d.cost(write_cost)
    return max(float(d.read_bps), write_cost * d.write_bps)


def _check_roles(owners: Mapping[str, int], borrowers: Mapping[str, float]) -> None:
    for name, r in owners.items():
        if not isinstance(r, int) or r <= 0:
            raise ValueError(f"planner: owner {name!r} needs a reservation > 0, got {r!r}")
    for name, w in borrowers.items():
        if not 0.0 <= w <= 1.0:
            raise ValueError(f"planner: borrower {name!r} write fraction must be in [0, 1]")
    overlap = set(owners) & set(borrowers)
    if overlap:
        raise ValueError(f"planner: {sorted(overlap)[0]!r} cannot be owner and borrower")


def is_guarded(klass: str | None, latency_slo: float | int | None) -> bool:
    """Whether an owner is *guarded* (section 2): latency-critical with an SLO, the
    tenants beside which the data plane caps lent IO (csrc/sched.c section 14).
    The one rule of the simulator (anticipation.py) and the daemon
    (forecast_server.py)."""
    return klass == "latency" and float(latency_slo or 0) > 0


UNMEASURED = 1.0        # a borrower's write fraction before it is measured (section 9)


class WriteMix:
    """Borrowers' write fractions from their cumulative byte counters (section 9).

    ``observe(name, now_s, read_bytes, written_bytes)`` every tick; ``fraction(name)``
    is what the planner takes (``UNMEASURED`` until ``min_bytes`` moved in a window)."""

    def __init__(self, window_s: float = 1.0, min_bytes: int = 8 * MiB) -> None:
        if window_s <= 0 or min_bytes < 1:
            raise ValueError("write mix: window_s > 0, min_bytes >= 1")
        self.window_s = window_s
        self.min_bytes = min_bytes
        self._samples: dict[str, deque[tuple[float, int, int]]] = {}
        self._last: dict[str, float] = {}          # last measured fraction

    def observe(self, name: str, now_s: float, read_bytes: int, written_bytes: int) -> None:
        q = self._samples.get(name)
        if q is not None and (read_bytes < q[-1][1] or written_bytes < q[-1][2]):
            q = None                                # counters went back: a new tenant
            self._last.pop(name, None)
        if q is None:   # a tenant's counters start at 0 with it: its first bytes count
            q = self._samples[name] = deque([(now_s, 0, 0)])
        q.append((now_s, int(read_bytes), int(written_bytes)))
        # keep one sample at or before the window's start (the baseline)
        while len(q) > 2 and q[1][0] <= now_s - self.window_s:
            q.popleft()
        t0, r0, w0 = q[0]
        dr, dw = q[-1][1] - r0, q[-1][2] - w0
        if dr + dw >= self.min_bytes:
            self._last[name] = dw / (dr + dw)

    def measured(self, name: str) -> bool:
        return name in self._last

    def fraction(self, name: str) -> float:
        return self._last.get(name, UNMEASURED)

    def keep(self, names: Iterable[str]) -> None:
        """Forget every borrower not in ``names`` (it left the plan)."""
        keep = set(names)
        for n in [n for n in self._samples if n not in keep]:
            del self._samples[n]
            self._last.pop(n, None)


# -------------------------------------------------------------- calibrator ---

def conformal_lower(sorted_vals: list[float], alpha: float) -> float | None:
    """The k-th smallest value, k = floor(alpha * (n + 1)); None when k < 1 (no guarantee)."""
    k = math.floor(alpha * (len(sorted_vals) + 1))
    return sorted_vals[k - 1] if k >= 1 else None


def conformal_upper(sorted_vals: list[float], alpha: float) -> float | None:
    """The k-th smallest value, k = ceil((1 - alpha) * (n + 1)); None when k > n."""
    n = len(sorted_vals)
    k = math.ceil((1.0 - alpha) * (n + 1))
    return sorted_vals[k - 1] if 1 <= k <= n else None


def binomial_tail(n: int, k: int, p: float) -> float:
    """P(Binomial(n, p) >= k)."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    return min(1.0, sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1)))


class Calibrator:
    """One source's residuals (ring), adaptive coverage level and fallback test."""

    def __init__(self, cfg: PlannerConfig) -> None:
        self.cfg = cfg
        self.budget = cfg.slowdown_budget
        self.alpha = cfg.slowdown_budget
        self.ring: deque[float] = deque(maxlen=cfg.ring)
        self.demand_ring: deque[float] = deque(maxlen=cfg.ring)
        self.outcomes: deque[bool] = deque(maxlen=cfg.fallback_window)
        self._sorted: list[float] | None = None
        self._dsorted: list[float] | None = None
        self.arrivals = 0
        self.misses = 0
        self.noshows = 0

    # -- quantiles -----------------------------------------------------------

    def _vals(self) -> list[float]:
        if self._sorted is None:
            self._sorted = sorted(self.ring)
        return self._sorted

    def lower(self) -> float | None:
        """q_alpha of the arrival residuals (None: do not lend on this source's word)."""
        if self.alpha <= 0.0:
            return None
        return conformal_lower(self._vals(), min(self.alpha, 0.5))

    def upper(self) -> float | None:
        """q_{1-alpha} of the arrival residuals (None: never call a no-show)."""
        return conformal_upper(self._vals(), max(self.alpha, 1e-9) if self.alpha > 0 else 1e-9)

    def demand_upper(self) -> float | None:
        """q_{1-alpha} of ln(actual / predicted demand) (None: hold the full reservation)."""
        if self.alpha <= 0.0:
            return None
        if self._dsorted is None:
            self._dsorted = sorted(self.demand_ring)
        return conformal_upper(self._dsorted, self.alpha)

    # -- outcomes ------------------------------------------------------------

    def record(self, rho: float | None, forced_miss: bool = False) -> bool:
        """One arrival: its residual (None: it came unforecast) -> did it miss?

        Two judgements, both against the ring *before* this residual joins it:
        * the planner's (adaptive coverage): miss if rho < q_alpha; with no
          quantile the owner was held, so the arrival was covered.  alpha moves
          by gamma * (budget - miss) every time;
        * the source's calibration (fallback test): miss if rho < q_budget, the
          quantile at the nominal budget; not judged while the ring is too small.
        ``forced_miss``: the job came after being released as a no-show."""
        vals = self._vals()
        q = self.lower()
        q_nom = conformal_lower(vals, self.budget)
        nominal_miss: bool | None
        if rho is None or forced_miss:
            miss = nominal_miss = True
        else:
            miss = q is not None and rho < q
            nominal_miss = None if q_nom is None else rho < q_nom
        a = self.alpha + self.cfg.aci_gamma * (self.budget - (1.0 if miss else 0.0))
        self.alpha = min(0.5, max(-0.25, a))
        if nominal_miss is not None:
            self.outcomes.append(nominal_miss)
        if rho is not None:
            self.ring.append(rho)
            self._sorted = None
        self.arrivals += 1
        self.misses += miss
        return miss

    def add_residuals(self, rhos: Iterable[float]) -> None:
        """Warm start from stored residuals (e.g. a saved calibration), no outcomes."""
        self.ring.extend(float(r) for r in rhos)
        self._sorted = None

    def record_noshow(self) -> None:
        """A job released as a no-show.  Not a residual: censored values would only
        inflate the upper tail and delay the next release (a feedback loop)."""
        self.noshows += 1

    def record_demand(self, log_ratio: float) -> None:
        self.demand_ring.append(log_ratio)
        self._dsorted = None

    def fallback_p(self) -> float:
        """P-value of the recent misses under the budget (small: not calibrated)."""
        return binomial_tail(len(self.outcomes), sum(self.outcomes), self.budget)

    @property
    def fallback(self) -> bool:
        return self.fallback_p() < self.cfg.fallback_pvalue

    @property
    def trusted(self) -> bool:
        return not self.fallback and self.lower() is not None

    def state(self) -> dict[str, Any]:
        q, u = self.lower(), self.upper()
        return {"residuals": len(self.ring), "alpha": round(self.alpha, 6),
                "q_lower": None if q is None else round(q, 4),
                "q_upper": None if u is None else round(u, 4),
                "recent_outcomes": len(self.outcomes), "recent_misses": sum(self.outcomes),
                "fallback_p": round(self.fallback_p(), 6), "fallback": self.fallback,
                "trusted": self.trusted, "arrivals": self.arrivals, "misses": self.misses,
                "noshows": self.noshows}


# ----------------------------------------------------------------- planner ---

@dataclass
class Job:
    """What the planner knows about one owner job."""
    job: str
    tenant: str
    source: str
    forecast: Forecast | None
    state: str = "pending"               # pending | active | noshow | done | cancelled
    arrived_s: float | None = None
    finished_s: float | None = None
    demand_bps: float | None = None      # predicted read-equivalent cost-rate
    observed_bps: float | None = None


@dataclass(frozen=True)
class OwnerPlan:
    held_bps: int                        # reservation held (not lent) for reading borrowers
    held_write_bps: int                  # ... for writing borrowers (longer horizon)
    reason: str                          # active | due | fallback | untrusted | no-source | lent
    next_s: float | None = None          # when a pending forecast becomes due (reclaim_at)


@dataclass(frozen=True)
class Plan:
    at_s: float
    limits: dict[str, int]               # borrower -> limit_bps
    owners: dict[str, OwnerPlan]
    pool_bps: int
    write_pool_bps: int
    static_pool_bps: int


@dataclass
class _Borrower:
    write_fraction: float = 0.0
    active: bool = True


class Planner:
    """Decides owners' held reservations and borrowers' limits from forecasts.

    ``owners``: tenant -> reserve_bps; ``borrowers``: tenant -> write fraction;
    ``guarded``: the owners whose running jobs the data plane guards IO by IO
    (latency-critical tenants with an SLO, csrc/sched.c section 14; section 2).
    Feed messages with ``handle(msg, now_s)`` (or ``replay`` for history), tell it
    measured owner demand with ``observe_demand``, and ask ``plan(now_s)``."""

    def __init__(self, cfg: PlannerConfig, owners: Mapping[str, int],
                 borrowers: Mapping[str, float], guarded: Iterable[str] = ()) -> None:
        _check_roles(owners, borrowers)
        self.cfg = cfg
        self.owners = dict(owners)
        self.guarded = frozenset(guarded) & set(self.owners)
        self.borrowers = {n: _Borrower(w) for n, w in borrowers.items()}
        self.sources: dict[str, Calibrator] = {}
        self.jobs: dict[str, Job] = {}
        self.owner_source: dict[str, str] = {}
        self.last: Plan | None = None
        self.static_pool_bps = max(0, cfg.capacity_bps - sum(self.owners.values()))

    def set_roles(self, owners: Mapping[str, int], borrowers: Mapping[str, float],
                  guarded: Iterable[str] | None = None) -> bool:
        """Adopt new owner and borrower sets (tenants added, removed or changed live);
        True if anything changed.  A removed owner's jobs are forgotten (a later
        ``finished`` for one is ``unknown_job``); its source's calibration stays.  A
        kept borrower keeps its write fraction and activity; a new one starts active
        with the given write fraction.  The static pool follows the reservations.
        ``guarded`` (None: unchanged, limited to the owners) as in the constructor."""
        _check_roles(owners, borrowers)
        new_guarded = self.guarded if guarded is None else frozenset(guarded)
        new_guarded = new_guarded & set(owners)
        if (dict(owners) == self.owners and set(borrowers) == set(self.borrowers)
                and new_guarded == self.guarded):
            return False
        self.guarded = new_guarded
        gone = set(self.owners) - set(owners)
        if gone:
            self.jobs = {k: j for k, j in self.jobs.items() if j.tenant not in gone}
            self.owner_source = {o: s for o, s in self.owner_source.items() if o not in gone}
        self.owners = dict(owners)
        self.borrowers = {n: self.borrowers.get(n) or _Borrower(w) for n, w in borrowers.items()}
        self.static_pool_bps = max(0, self.cfg.capacity_bps - sum(self.owners.values()))
        return True

    # -- inputs --------------------------------------------------------------

    def source(self, name: str) -> Calibrator:
        cal = self.sources.get(name)
        if cal is None:
            cal = self.sources[name] = Calibrator(self.cfg)
        return cal

    def handle(self, msg: Message, now_s: float) -> dict[str, Any]:
        """Apply one validated message (``check`` it first); returns extra reply fields."""
        if isinstance(msg, Forecast):
            return self._forecast(msg)
        if isinstance(msg, Arrived):
            return self._arrived(msg)
        if isinstance(msg, Finished):
            return self._finished(msg)
        if isinstance(msg, Cancel):
            return self._cancel(msg)
        if isinstance(msg, Ls):
            return self.snapshot(now_s)
        raise TypeError(f"not a message: {msg!r}")

    def check(self, msg: Message) -> tuple[str, str, str] | None:
        """Why the planner cannot take this message: (code, key, text), or None."""
        if isinstance(msg, (Forecast, Arrived)) and msg.tenant not in self.owners:
            return ("unknown_tenant", "tenant", f"{msg.tenant!r} is not an owner tenant "
                    f"(owners: {', '.join(sorted(self.owners)) or 'none'})")
        if isinstance(msg, Forecast):
            j = self.jobs.get(msg.job)
            if j is not None and j.state not in ("pending", "noshow", "cancelled"):
                return ("invalid", "job", f"job {msg.job!r} already {j.state}")
        if isinstance(msg, (Finished, Cancel)):
            j = self.jobs.get(msg.job)
            if j is None:
                return ("unknown_job", "job", f"no job {msg.job!r}")
            if isinstance(msg, Cancel) and j.state != "pending":
                return ("invalid", "job", f"job {msg.job!r} is {j.state}, not pending")
        return None

    def set_borrowers(self, active: Mapping[str, float] | Iterable[str]) -> None:
        """Which borrowers want capacity now (others keep their last limit out of the split).
        A mapping also updates their write fractions."""
        names = dict(active) if isinstance(active, Mapping) else {n: None for n in active}
        for n, b in self.borrowers.items():
            b.active = n in names
            w = names.get(n)
            if w is not None:
                b.write_fraction = float(w)

    def observe_demand(self, job: str, cost_bps: float) -> None:
        """Measured read-equivalent cost-rate of a running owner job (demand calibration)."""
        j = self.jobs.get(job)
        if j is None or cost_bps <= 0:
            return
        j.observed_bps = float(cost_bps)
        if j.demand_bps:
            self.source(j.source).record_demand(math.log(cost_bps / j.demand_bps))

    def replay(self, events: Iterable[tuple[float, Message]]) -> None:
        """Feed a history of (time, message) pairs: warms the calibrators up."""
        for t, msg in events:
            if self.check(msg) is None:
                self.handle(msg, t)

    def _forecast(self, f: Forecast) -> dict[str, Any]:
        j = self.jobs.get(f.job)
        demand = peak_cost(f.demand, self.cfg.write_cost) if f.demand else None
        if j is None or j.state in ("noshow", "cancelled"):
            j = self.jobs[f.job] = Job(job=f.job, tenant=f.tenant, source=f.source, forecast=f,
                                       demand_bps=demand or None)
        else:                                # an update replaces the forecast
            j.forecast, j.tenant, j.source = f, f.tenant, f.source
            j.demand_bps = demand or j.demand_bps
        self.owner_source[f.tenant] = f.source
        self.source(f.source)
        return {"job": f.job}

    def _arrived(self, m: Arrived) -> dict[str, Any]:
        j = self.jobs.get(m.job)
        src = (j.source if j is not None else None) or m.source or self.owner_source.get(m.tenant)
        miss = None
        if src is not None:
            cal = self.source(src)
            if j is None or j.forecast is None:
                miss = cal.record(None)
            else:
                f = j.forecast
                rho = self._rho(f, m.at_s)
                miss = cal.record(rho, forced_miss=(j.state == "noshow"))
        if j is None:
            j = self.jobs[m.job] = Job(job=m.job, tenant=m.tenant, source=src or "", forecast=None)
        j.state, j.arrived_s = "active", m.at_s
        return {"job": m.job, "miss": miss}

    def _finished(self, m: Finished) -> dict[str, Any]:
        j = self.jobs[m.job]
        j.state, j.finished_s = "done", m.at_s
        return {"job": m.job}

    def _cancel(self, m: Cancel) -> dict[str, Any]:
        self.jobs[m.job].state = "cancelled"
        return {"job": m.job}

    def _rho(self, f: Forecast, at_s: float) -> float:
        lo = self.cfg.min_lead_s
        return math.log(max(at_s - f.issued_s, lo) / max(f.lead_s, lo))

    # -- decisions -----------------------------------------------------------

    def reclaim_at(self, j: Job) -> float | None:
        """When the owner of pending job j must be held (None: now / unknown)."""
        f = j.forecast
        if f is None:
            return None
        if self.cfg.mode == "point":
            return f.arrival_s - self.cfg.horizon_s
        q = self.source(j.source).lower()
        if q is None:
            return None
        return f.issued_s + max(f.lead_s, 0.0) * math.exp(q) - self.cfg.horizon_s

    def noshow_at(self, j: Job) -> float | None:
        f = j.forecast
        if f is None:
            return None
        if self.cfg.mode == "point":
            return f.arrival_s + max(f.lead_s, self.cfg.horizon_s)
        u = self.source(j.source).upper()
        if u is None:
            return None
        return f.issued_s + max(f.lead_s, self.cfg.min_lead_s) * math.exp(u) + self.cfg.horizon_s

    def _expire(self, now_s: float) -> None:
        for j in self.jobs.values():
            if j.state != "pending":
                continue
            t = self.noshow_at(j)
            if t is not None and now_s > t:
                j.state = "noshow"
                self.source(j.source).record_noshow()

    def _demand_hold(self, o: str, jobs: list[Job]) -> int:
        """What owner o's jobs (running or due) may draw: the sum of their calibrated
        demands (predicted cost-rate x exp(q_{1-alpha}) of the source's demand
        residuals), at most R_o; R_o if a job has no demand forecast or its source
        no demand quantile yet."""
        r = self.owners[o]
        need = 0.0
        for j in jobs:
            if j.demand_bps is None:
                return r
            if self.cfg.mode == "point":
                need += j.demand_bps
                continue
            u = self.source(j.source).demand_upper() if j.source else None
            if u is None:
                return r
            need += j.demand_bps * math.exp(u)
        return min(r, int(math.ceil(need)))

    def _owner(self, o: str, now_s: float) -> OwnerPlan:
        r = self.owners[o]
        mine = [j for j in self.jobs.values() if j.tenant == o]
        active = [j for j in mine if j.state == "active"]
        src = self.owner_source.get(o)
        robust = self.cfg.mode == "robust"
        if src is None:
            return OwnerPlan(r, r, "no-source")
        if robust:
            cal = self.source(src)
            if cal.fallback:
                return OwnerPlan(r, r, "fallback")
            if cal.lower() is None:
                return OwnerPlan(r, r, "untrusted")
        due: list[Job] = []
        write_due = False
        nxt: float | None = None
        for j in mine:
            if j.state != "pending":
                continue
            t = self.reclaim_at(j)
            if t is None or now_s >= t:
                due.append(j)
                continue
            if now_s >= t - self.cfg.write_horizon_s:
                write_due = True
            nxt = t if nxt is None else min(nxt, t)
        # writers: what the running and due jobs may draw (GC debt is not taken
        # back).  Readers: a guarded owner is the data plane's (csrc/sched.c
        # 14: lent IO in flight beside it is a quarter of its SLO, from its
        # first IO on), so nothing is held for it; an unguarded owner's running
        # and due jobs are held as from writers
        held_w = self._demand_hold(o, active + due) if active or due else 0
        held = 0 if o in self.guarded else held_w
        if due or write_due:
            held_w = r
        reason = "due" if due else "active" if active else "lent"
        return OwnerPlan(held, held_w, reason, nxt)

    def plan(self, now_s: float) -> Plan:
        """Owners' held reservations and borrowers' limits at ``now_s``."""
        self._expire(now_s)
        owners = {o: self._owner(o, now_s) for o in self.owners}
        # the headroom is a margin kept while some owner holds anything (it runs,
        # is due, is due within the write horizon, or is held for want of
        # trust); with every owner idle and nothing due that soon it would only
        # idle the drive
        held_any = any(p.held_bps or p.held_write_bps for p in owners.values())
        c = self.cfg.capacity_bps * ((1.0 - self.cfg.headroom) if held_any else 1.0)
        pool = max(self.static_pool_bps, int(c - sum(p.held_bps for p in owners.values())))
        wpool = max(self.static_pool_bps, int(c - sum(p.held_write_bps for p in owners.values())))
        # GC debt and read-behind-write interference hurt only owners that read
        # while it is paid: with every owner idle and none due within the write
        # horizon, a lent written byte costs what any written byte does
        quiet = all(p.held_write_bps == 0 for p in owners.values())
        caution = 1.0 if quiet else self.cfg.write_caution
        self.last = Plan(at_s=now_s, limits=self.split(pool, wpool, caution), owners=owners,
                         pool_bps=pool, write_pool_bps=wpool,
                         static_pool_bps=self.static_pool_bps)
        return self.last

    def split(self, pool: int, write_pool: int, caution: float | None = None) -> dict[str, int]:
        """Per-borrower limits: the pool shared evenly among active borrowers and
        converted to bytes/s at each one's cost per byte.  The static partition
        (never lent) is priced at ``write_cost``; what is lent on top, at
        ``write_cost * caution`` -- and writers draw it from ``write_pool``."""
        caution = self.cfg.write_caution if caution is None else caution
        act = [n for n, b in self.borrowers.items() if b.active] or list(self.borrowers)
        n_act = max(1, len(act))
        base = min(self.static_pool_bps, pool, write_pool) / n_act
        out: dict[str, int] = {}
        for n, b in self.borrowers.items():
            w = b.write_fraction
            lent = ((write_pool if w > 0 else pool) - base * n_act) / n_act
            cpb = (1.0 - w) + w * self.cfg.write_cost
            cpb_lent = (1.0 - w) + w * self.cfg.write_cost * caution
            out[n] = max(self.cfg.min_limit_bps, int(base / cpb + max(0.0, lent) / cpb_lent))
        return out

    # -- state ---------------------------------------------------------------

    def snapshot(self, now_s: float) -> dict[str, Any]:
        """Plain-data state for ``ls`` and metrics."""
        jobs = []
        for j in self.jobs.values():
            if j.state in ("done", "cancelled"):
                continue
            f = j.forecast
            r = self.reclaim_at(j) if j.state == "pending" else None
            jobs.append({"job": j.job, "tenant": j.tenant, "source": j.source, "state": j.state,
                         "arrival_in_s": None if f is None else round(f.arrival_s - now_s, 3),
                         "reclaim_in_s": None if r is None else round(r - now_s, 3),
                         "demand_bps": None if j.demand_bps is None else int(j.demand_bps)})
        last = self.last
        return {"mode": self.cfg.mode, "now_s": now_s, "jobs": jobs,
                "sources": {n: c.state() for n, c in self.sources.items()},
                "limits": {} if last is None else dict(last.limits),
                "owners": {} if last is None else {o: {"held_bps": p.held_bps,
                                                       "held_write_bps": p.held_write_bps,
                                                       "reason": p.reason,
                                                       "guarded": o in self.guarded}
                                                   for o, p in last.owners.items()},
                "borrowers": {n: {"write_fraction": round(b.write_fraction, 4),
                                  "active": b.active} for n, b in self.borrowers.items()},
                "pool_bps": None if last is None else last.pool_bps,
                "static_pool_bps": self.static_pool_bps}


__all__ = [
    "MODES",
    "Calibrator",
    "Job",
    "OwnerPlan",
    "Plan",
    "Planner",
    "PlannerConfig",
    "UNMEASURED",
    "WriteMix",
    "binomial_tail",
    "conformal_lower",
    "conformal_upper",
    "is_guarded",
]
