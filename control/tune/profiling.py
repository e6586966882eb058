"""Profiling for the autotuner: window counters, workload signature, periods.

1. Counters.  The data plane keeps cumulative counters per tenant (IOs and
   bytes by direction, the end-to-end latency histogram, SLO misses).  The
   autotuner never looks at single IOs: it takes a ``Sample`` of those
   counters at window boundaries and diffs two samples into a ``Window``
   (rates and a window p99 from the diffed histogram).  A sample costs one
   C call per tenant, so sampling every 10 ms is cheap next to the IO.

   The data plane is reached through the ``DataPlane`` protocol (SLOs,
   sample, advance, read and apply knobs).  ``SimDataPlane`` implements it
   on the simulator; ``control.tune.autotune_live.LiveDataPlane`` on the running
   daemon (sample = the Engine's per-tenant counters and histogram; advance
   = sleep; apply = the admin plane's locked, never persisted path).

2. The signature.  A workload mix is described by what the knobs care
   about, not by who runs it: for every active tenant its latency SLO, its
   mean IO size rounded to a power of two and its read share in steps of
   25%; then the phase structure of the mix, its period ("steady" or e.g.
   "1s").  Sorted and joined, those are the key of the autotuner's index:

       be:128k:r100|be:1m:r0|slo1ms:4k:r100@1s

   (a bursty input reader, a checkpoint writer, a latency-critical
   inference reader, repeating every second).  The same mix served by
   other tenants has the same signature.  Without the period (``quick``
   signature) it is cheap enough to recompute every period, which is how a
   change of mix is noticed.  A tenant with IO outstanding but nothing
   completed (starved) is active with size "?".  Only the mix period is in
   the key, not each tenant's: a reader bursting every 250 ms whose rate
   also dips at every 1 s checkpoint may show either period, while the lcm
   (below) is 1 s either way.

3. Periods.  Training IO repeats.  Over a profile of a few seconds, the
   IOs a tenant issues per 10 ms tick (its arrival rate) form a series x;
   its autocorrelation

       r(k) = sum_i (x_i - m)(x_{i+k} - m) / sum_i (x_i - m)^2 * n / (n - k)

   peaks at the period and its multiples.  The period is the smallest lag
   whose local-maximum r(k) is at least 85% of the highest peak (so the
   fundamental wins over its multiples), provided that peak reaches 0.3.
   Only a tenant that goes quiet -- at least 10% of its ticks below 5% of
   its mean rate -- has phases: a compute phase, the gap between
   checkpoints.  A closed-loop writer whose rate the drive's garbage
   collection modulates every second never goes quiet, and that rhythm is
   the drive's, not the workload's (measured: 0-4% quiet ticks for such a
   writer, 18% for a reader idle 100 ms of every 500 ms, 81% for a
   checkpoint writer).  A period below 100 ms (the cadence of a throttled
   client) is not a phase either.
   Periods are snapped to round values (within 8%) so the signature is
   stable and the periods of several tenants combine: the mix period is
   their least common multiple (at most MAX_MIX_PERIOD_S, else the longest).

   Worked example: a reader busy 150 ms then idle 100 ms issues ~200 IOs
   per busy tick and none per idle tick (40% quiet ticks); over 4.5 s
   (450 ticks) r(12) = -0.68, r(25) = 0.98, r(50) = 0.98: period 25 ticks
   = 250 ms.  With a checkpoint writer of period 1 s the mix period is
   lcm = 1 s.  Lags go up to a third of the profile (three periods seen at
   least: 1.5 s for the default 4.5 s profile).  A closed-loop client
   issues as its IOs complete, so a tenant the data plane throttles hard
   shows a weaker pattern; the low 0.3 threshold keeps it visible.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

NS = 1_000_000_000

# What a tenant's period looks like (ms): periods snap to the nearest of these.
ROUND_PERIODS_MS = (10, 20, 25, 40, 50, 75, 100, 125, 150, 200, 250, 300, 400, 500, 600, 750,
                    800, 1000, 1200, 1250, 1500, 2000, 2500, 3000, 4000, 5000, 6000, 8000, 10000)
SNAP_TOLERANCE = 0.08      # snap a period to a round value within 8%
QUIET_LEVEL = 0.05         # a tick with fewer arrivals than this x the mean is quiet
QUIET_MIN = 0.10           # a tenant with fewer quiet ticks than this is steady
PEAK_MIN_R = 0.3           # weakest autocorrelation peak taken as a period
PEAK_FRACTION = 0.85       # smallest lag whose peak reaches this share of the best
MAX_MIX_PERIOD_S = 4.0     # longest mix period (lcm) we hold trials for
MIN_PERIOD_S = 0.1         # faster rhythms (e.g. a throttled client's IO cadence) are steady
MIN_TENANT_BYTES = 4096    # a tenant that moved less in a window is not active
MIN_PERIOD_IOS = 64        # too few completions to see a period in
READ_SHARE_STEP = 0.25     # read share buckets: 0, 25, 50, 75, 100%


# ------------------------------------------------------------- counters ---

@dataclass(frozen=True)
class TenantCounters:
    """Cumulative counters of one tenant (since the data plane started)."""
    read_ios: int
    read_bytes: int
    write_ios: int
    write_bytes: int
    issued: int                 # IOs submitted (started), completed or not
    slo_violations: int         # completions slower than the SLO
    hist: np.ndarray            # latency histogram bucket counts (int64)


@dataclass(frozen=True)
class Sample:
    now_ns: int
    tenants: Mapping[str, TenantCounters]


class DataPlane(Protocol):
    """What the autotuner needs from a data plane (one drive).

    ``knobs`` are the flattened scheduler fields the autotuner may set
    (``ctl.band_hi_pct``, ``slot_bytes``, ...); ``apply`` changes them live,
    without dropping or reordering IO."""

    drive: str

    def slos_ns(self) -> Mapping[str, int]:
        """Tenant name -> latency SLO in ns (0 = none)."""

    def sample(self) -> Sample: ...

    def advance(self, seconds: float) -> None:
        """Let the data plane serve for this long (simulator: virtual time)."""

    def get_fields(self) -> dict[str, int]:
        """Current scheduler configuration as dotted field -> value."""

    def apply(self, fields: Mapping[str, int]) -> None:
        """Set scheduler fields (dotted names) live."""


def flatten_fields(d: Mapping[str, Any], prefix: str = "") -> dict[str, int]:
    """A nested struct dict (dataplane.cstruct.struct_dict) as dotted field -> integer."""
    out: dict[str, int] = {}
    for k, v in d.items():
        if isinstance(v, Mapping):
            out.update(flatten_fields(v, f"{prefix}{k}."))
        elif isinstance(v, int) and not isinstance(v, bool):
            out[f"{prefix}{k}"] = v
    return out


class SimDataPlane:
    """``DataPlane`` on a ``dataplane.sim.Simulator`` (virtual time)."""

    def __init__(self, sim: Any, slos_ns: Mapping[str, int], drive: str = "sim") -> None:
        self.sim = sim
        self.drive = drive
        self._slos = dict(slos_ns)

    def slos_ns(self) -> Mapping[str, int]:
        return self._slos

    def sample(self) -> Sample:
        out: dict[str, TenantCounters] = {}
        for name in self.sim.tenant_names:
            r = self.sim.tenant_result(name)
            out[name] = TenantCounters(read_ios=r.read_ios, read_bytes=r.read_bytes,
                                       write_ios=r.write_ios, write_bytes=r.write_bytes,
                                       issued=r.issued, slo_violations=r.slo_violations,
                                       hist=r.hist_counts.astype(np.int64))
        return Sample(now_ns=self.sim.now_ns, tenants=out)

    def advance(self, seconds: float) -> None:
        self.sim.run(seconds)

    def get_fields(self) -> dict[str, int]:
        return flatten_fields(self.sim.sched_cfg())

    def apply(self, fields: Mapping[str, int]) -> None:
        self.sim.configure(**dict(fields))


# --------------------------------------------------------------- windows ---

@dataclass(frozen=True)
class TenantWindow:
    read_ios: int
    read_bytes: int
    write_ios: int
    write_bytes: int
    issued: int
    slo_violations: int
    hist: np.ndarray
    outstanding: int            # issued but not completed at the window's end

    @property
    def ios(self) -> int:
        return self.read_ios + self.write_ios

    @property
    def bytes(self) -> int:
        return self.read_bytes + self.write_bytes

    def p99_ns(self) -> float:
        return quantile_ns(self.hist, 0.99)


@dataclass(frozen=True)
class Window:
    """What happened between two samples."""
    start_ns: int
    end_ns: int
    tenants: Mapping[str, TenantWindow]

    @property
    def seconds(self) -> float:
        return (self.end_ns - self.start_ns) / NS


def window(a: Sample, b: Sample) -> Window:
    """The counters of b minus those of a (b taken later)."""
    out: dict[str, TenantWindow] = {}
    for name, y in b.tenants.items():
        x = a.tenants.get(name)
        outstanding = y.issued - y.read_ios - y.write_ios
        if x is None:
            out[name] = TenantWindow(y.read_ios, y.read_bytes, y.write_ios, y.write_bytes,
                                     y.issued, y.slo_violations, y.hist, outstanding)
            continue
        out[name] = TenantWindow(y.read_ios - x.read_ios, y.read_bytes - x.read_bytes,
                                 y.write_ios - x.write_ios, y.write_bytes - x.write_bytes,
                                 y.issued - x.issued, y.slo_violations - x.slo_violations,
                                 y.hist - x.hist, outstanding)
    return Window(start_ns=a.now_ns, end_ns=b.now_ns, tenants=out)


def _edges_ns() -> np.ndarray:
    from dataplane.sim import hist_edges_ns
    return hist_edges_ns()


def quantile_ns(counts: np.ndarray, q: float) -> float:
    """Value at quantile q of a histogram's bucket counts: the low edge of the
    bucket holding the ceil(q * n)-th value (0 for an empty histogram)."""
    n = int(counts.sum())
    if n == 0:
        return 0.0
    rank = max(1, math.ceil(q * n))
    idx = int(np.searchsorted(np.cumsum(counts), rank))
    edges = _edges_ns()
    return float(edges[min(idx, len(edges) - 1)])


# ------------------------------------------------------------- signature ---

def size_label(mean_bytes: float) -> str:
    """Mean IO size rounded to a power of two: 4096 -> '4k', 1 MiB -> '1m'."""
    if mean_bytes <= 0:
        return "0"
    p = max(9, round(math.log2(mean_bytes)))
    if p >= 20:
        return f"{1 << (p - 20)}m"
    return f"{1 << (p - 10)}k" if p >= 10 else "512"


def period_label(period_s: float | None) -> str:
    if period_s is None:
        return "steady"
    ms = round(period_s * 1000)
    return f"{ms // 1000}s" if ms % 1000 == 0 else f"{ms}ms"


def slo_label(slo_ns: int) -> str:
    if not slo_ns:
        return "be"
    us = slo_ns / 1000
    if us >= 1000 and us % 1000 == 0:
        return f"slo{int(us // 1000)}ms"
    return f"slo{round(us)}us"


def tenant_descriptor(w: TenantWindow, slo_ns: int) -> str | None:
    """``slo:size:read-share`` of one tenant in a window; None if it was idle,
    size "?" if it moved nothing with IO outstanding (starved)."""
    if w.bytes < MIN_TENANT_BYTES or w.ios == 0:
        return f"{slo_label(slo_ns)}:?:r?" if w.outstanding > 0 else None
    share = round(w.read_ios / w.ios / READ_SHARE_STEP) * READ_SHARE_STEP
    return f"{slo_label(slo_ns)}:{size_label(w.bytes / w.ios)}:r{round(share * 100)}"


def quick_signature(w: Window, slos_ns: Mapping[str, int]) -> str:
    """The mix without its period (cheap: one window)."""
    parts = [d for name, tw in w.tenants.items()
             if (d := tenant_descriptor(tw, slos_ns.get(name, 0))) is not None]
    return "|".join(sorted(parts))


# ---------------------------------------------------------------- periods ---

def snap_period_s(period_s: float) -> float:
    """Snap to the nearest round period within SNAP_TOLERANCE, else to 10 ms."""
    ms = period_s * 1000
    best = min(ROUND_PERIODS_MS, key=lambda r: abs(math.log(ms / r)))
    if abs(ms / best - 1) <= SNAP_TOLERANCE:
        return best / 1000
    return max(10, round(ms / 10) * 10) / 1000


def detect_period(series: Sequence[float] | np.ndarray, tick_s: float,
                  max_period_s: float | None = None) -> float | None:
    """Period (seconds) of a per-tick activity series, None if steady or aperiodic.

    Needs three periods of data: lags up to a third of the series (a lag
    near half the series rests on too few products to be trusted)."""
    x = np.asarray(series, dtype=np.float64)
    n = len(x)
    if n < 8:
        return None
    m = float(x.mean())
    if m <= 0 or float((x <= QUIET_LEVEL * m).mean()) < QUIET_MIN:
        return None
    y = x - m
    denom = float((y * y).sum())
    if denom <= 0:
        return None
    max_lag = n // 3
    if max_period_s is not None:
        max_lag = min(max_lag, int(max_period_s / tick_s))
    if max_lag < 3:
        return None
    full = np.correlate(y, y, mode="full")[n - 1:n + max_lag + 1]
    lags = np.arange(len(full))
    r = full / denom * n / (n - lags)
    peaks = [k for k in range(2, len(r) - 1)
             if r[k] >= r[k - 1] and r[k] >= r[k + 1] and r[k] >= PEAK_MIN_R]
    if not peaks:
        return None
    best = max(float(r[k]) for k in peaks)
    k = min(k for k in peaks if r[k] >= PEAK_FRACTION * best)
    if k * tick_s < MIN_PERIOD_S:
        return None
    return snap_period_s(k * tick_s)


def mix_period_s(periods: Sequence[float | None]) -> float | None:
    """Least common multiple of the tenants' periods (10 ms grid), capped."""
    ms = [round(p * 1000) for p in periods if p]
    if not ms:
        return None
    lcm = 1
    for v in ms:
        lcm = lcm * v // math.gcd(lcm, v)
    if lcm > MAX_MIX_PERIOD_S * 1000:
        return max(ms) / 1000
    return lcm / 1000


@dataclass(frozen=True)
class Profile:
    """The result of profiling a data plane for a few seconds."""
    signature: str              # quick + "@" + mix period: the index key
    quick: str                  # without the period
    period_s: float | None      # the mix period (None: steady)
    tenant_periods: Mapping[str, float | None]
    window: Window              # the whole profile


def profile(samples: Sequence[Sample], slos_ns: Mapping[str, int],
            max_period_s: float = MAX_MIX_PERIOD_S) -> Profile:
    """Signature and periods from samples taken at a fixed tick."""
    if len(samples) < 2:
        raise ValueError("profiling needs at least two samples")
    tick_s = (samples[-1].now_ns - samples[0].now_ns) / NS / (len(samples) - 1)
    whole = window(samples[0], samples[-1])
    quick = quick_signature(whole, slos_ns)
    periods: dict[str, float | None] = {}
    for name, tw in whole.tenants.items():
        if tw.bytes < MIN_TENANT_BYTES or tw.ios < MIN_PERIOD_IOS:
            continue
        # a tenant added during the profile is in the later samples only (live churn)
        series = np.diff(np.array([s.tenants[name].issued for s in samples if name in s.tenants],
                                  dtype=np.float64))
        periods[name] = detect_period(series, tick_s, max_period_s)
    mix = mix_period_s(list(periods.values()))
    return Profile(signature=f"{quick}@{period_label(mix)}", quick=quick, period_s=mix,
                   tenant_periods=periods, window=whole)


# ------------------------------------------------------- change detection ---

class Cusum:
    """Two-sided CUSUM on standardised values (Page, 1954).

    After ``warmup`` values it fixes the reference mean m and spread s (s at
    least ``min_rel_sd`` of |m|, so a very steady series does not alarm on
    noise), then for each x:

        z = (x - m) / s;  hi = max(0, hi + z - k);  lo = max(0, lo - z - k)

    and alarms when hi or lo exceeds h.  k = 0.5, h = 5 detect a shift of
    one standard deviation in about 10 values with rare false alarms.
    Worked example: m = 100, s = 5; values drop to 90 (z = -2): lo grows by
    1.5 a value and alarms at the 4th."""

    def __init__(self, warmup: int = 4, k: float = 0.5, h: float = 5.0,
                 min_rel_sd: float = 0.05) -> None:
        self.warmup, self.k, self.h, self.min_rel_sd = warmup, k, h, min_rel_sd
        self._ref: list[float] = []
        self.mean = 0.0
        self.sd = 0.0
        self.hi = 0.0
        self.lo = 0.0

    def update(self, x: float) -> bool:
        """Feed one value; True when a change is detected (then reset)."""
        if len(self._ref) < self.warmup:
            self._ref.append(x)
            if len(self._ref) == self.warmup:
                self.mean = float(np.mean(self._ref))
                self.sd = max(float(np.std(self._ref)), self.min_rel_sd * abs(self.mean), 1e-12)
            return False
        z = (x - self.mean) / self.sd
        self.hi = max(0.0, self.hi + z - self.k)
        self.lo = max(0.0, self.lo - z - self.k)
        if self.hi > self.h or self.lo > self.h:
            self.reset()
            return True
        return False

    def reset(self) -> None:
        self._ref.clear()
        self.hi = self.lo = 0.0
