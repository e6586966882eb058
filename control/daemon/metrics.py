"""Prometheus metrics of the running data plane, read from the C counters at
scrape time (no per-IO Python), and the one function that reads those
counters for both the metrics and the admin socket's ``stats`` op.

Names: one prefix ``jbof_``, base units (seconds, bytes), ``_total`` on
counters, labels ``tenant`` and ``drive`` only.  Per tenant (labels tenant,
drive):

    jbof_tenant_read_ios_total, jbof_tenant_write_ios_total, jbof_tenant_other_ios_total
    jbof_tenant_read_bytes_total, jbof_tenant_write_bytes_total
    jbof_tenant_errors_total               IOs that completed with an error
    jbof_tenant_cost_bytes_total           completed cost, read-byte equivalents
    jbof_tenant_latency_seconds            histogram, end to end (queue + drive)
    jbof_tenant_queue_depth                IOs waiting in its submission queue
    jbof_tenant_inflight_ios               IOs in the drive
    jbof_tenant_inflight_cost_bytes
    jbof_tenant_throttled                  1 while held back by its limit
    jbof_tenant_throttled_seconds_total    time backlogged but held back by its limit
    jbof_tenant_queued_seconds_total       time with >= 1 IO waiting at the scheduler (not yet dispatched)
    jbof_tenant_slo_violations_total       completions slower than its latency_slo
    jbof_tenant_weight, jbof_tenant_class (0 latency, 1 reserved, 2 best-effort, 3 scavenger)
    jbof_tenant_reserve_bytes_per_second, jbof_tenant_limit_bytes_per_second,
    jbof_tenant_latency_slo_seconds        its settings in force (0 = none); a scavenger's
                                           limit is the forecast planner's while it lends
    jbof_tenant_connections                NBD connections open now

Per drive (label drive):

    jbof_drive_controller_state            0 slowstart, 1 ok, 2 congestion, 3 overloaded
    jbof_drive_dispatch_rate_bytes_per_second   the controller's dispatch budget (cost-bytes/s)
    jbof_drive_write_cost_factor           a write byte costs this many read bytes
    jbof_drive_inflight_ios, jbof_drive_inflight_cost_bytes
    jbof_drive_band_low_seconds, jbof_drive_band_high_seconds   latency band in force
    jbof_drive_threshold_seconds           the controller's dynamic latency threshold
    jbof_drive_read_latency_ewma_seconds, jbof_drive_write_latency_ewma_seconds
    jbof_drive_base_read_latency_seconds   learned unloaded read latency (0 = not yet)
    jbof_drive_dispatched_ios_total, jbof_drive_completed_ios_total
    jbof_drive_backend_errors_total
    jbof_drive_tenants, jbof_drive_backlogged_tenants
    jbof_drive_size_bytes, jbof_drive_allocated_bytes

Engine-wide: jbof_connections, jbof_connections_accepted_total,
jbof_requests_total, jbof_protocol_errors_total; authentication (csrc/tls.c):
jbof_tls_handshakes_total, jbof_tls_failures_total (wrong key, unknown
identity), jbof_tls_required_total (options refused before STARTTLS),
jbof_export_denied_total (another tenant's export asked for).

With a ``tune:`` section, per tuned drive (label drive; ``knob`` for the knob
values), from control/tune/autotune_live.py:

    jbof_tune_enabled, jbof_tune_exploring     1 while tuning / while a search runs
    jbof_tune_trials_total, jbof_tune_trials_aborted_total, jbof_tune_trials_pruned_total
    jbof_tune_searches_total, jbof_tune_reuses_total    searches run; known mixes reused
    jbof_tune_trial_seconds_total          time served with trial configurations
    jbof_tune_extra_slo_violations_total   SLO-violating periods trials added
    jbof_tune_objective                    the chosen configuration's objective
    jbof_tune_knob{knob=...}               knob values in force

With a ``forecast:`` section, the lending planner (control/lending/forecast_server.py;
label drive, plus tenant for owners and borrowers, source for forecast sources):

    jbof_planner_ticks_total, jbof_planner_tick_errors_total    plans made; failed ones
    jbof_planner_role_changes_total        owner/borrower sets changed live (tenant ops)
    jbof_planner_owners, jbof_planner_borrowers    tenants planned now
    jbof_planner_capacity_bytes_per_second what the drive sustains (forecast.capacity)
    jbof_planner_headroom_bytes_per_second capacity held back, never lent
    jbof_planner_pool_bytes_per_second, jbof_planner_static_pool_bytes_per_second
                                           what borrowers share now; static partitioning's
    jbof_planner_lent_bytes_per_second{tenant}   an owner's reservation lent now
    jbof_planner_held_bytes_per_second{tenant}   ... held for it
    jbof_planner_borrower_limit_bytes_per_second{tenant}   the limit applied to a borrower
    jbof_planner_held_write_bytes_per_second{tenant}   an owner's reservation held from writers
    jbof_planner_owner_guarded{tenant}     1 if lent to readers while it runs (planner.py 2)
    jbof_planner_borrower_write_ratio{tenant}   a borrower's measured write fraction (1 unmeasured)
    jbof_planner_borrower_measured{tenant} 1 once that fraction is measured
    jbof_planner_coverage_ratio{source}    observed coverage: 1 - misses / arrivals
    jbof_planner_coverage_target_ratio{source}   its target: 1 - slowdown budget
    jbof_planner_arrivals_total{source}, jbof_planner_misses_total{source}
    jbof_planner_fallback{source}          1 while the source is in fallback (static)

The latency histogram comes from the C log-linear histogram (csrc/hist.c,
32 sub-buckets per power of two): the count for ``le`` is the IOs in C
buckets whose whole range is <= le, so it is exact to within one C bucket
(3.2%) below each boundary.
"""
from __future__ import annotations

import functools
import logging
import math
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from control.config import Config
from control.scenario import CLASSES, POLICIES

log = logging.getLogger("jbof.metrics")

# Latency histogram boundaries, seconds.
LATENCY_BOUNDS_S = (25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3,
                    50e-3, 100e-3, 250e-3, 500e-3, 1.0, 2.5)
CTL_STATES = ("slowstart", "ok", "congestion", "overloaded")
TUNE_HELP = {
    "jbof_tune_enabled": "1 while the drive's tuner is enabled.",
    "jbof_tune_exploring": "1 while a search (trials of other configurations) runs.",
    "jbof_tune_searches_total": "Searches run (mixes not found in the index).",
    "jbof_tune_reuses_total": "Mixes found in the index: best configuration applied, no trials.",
    "jbof_tune_trials_total": "Trial configurations tried.",
    "jbof_tune_trials_aborted_total": "Trials stopped by the SLO guardrail.",
    "jbof_tune_trials_pruned_total": "Configurations skipped as dominated by an aborted one.",
    "jbof_tune_trial_seconds_total": "Time served with trial configurations.",
    "jbof_tune_extra_slo_violations_total": "SLO-violating periods the trials added.",
    "jbof_tune_objective": "Objective of the chosen configuration (read-byte equivalents/s "
                           "at p99 within SLO).",
    "jbof_tune_knob": "Knob values in force on the drive (label knob).",
}
PLANNER_HELP = {
    "jbof_planner_ticks_total": "Planner ticks (plans made and applied).",
    "jbof_planner_tick_errors_total": "Planner ticks that failed or could not apply a limit.",
    "jbof_planner_role_changes_total": "Owner/borrower sets changed live by tenant ops.",
    "jbof_planner_owners": "Owner tenants (a reservation, not scavenger) planned now.",
    "jbof_planner_borrowers": "Borrower (scavenger) tenants planned now.",
    "jbof_planner_capacity_bytes_per_second": "Drive capacity the planner assumes "
                                              "(read-equivalent bytes/s).",
    "jbof_planner_headroom_bytes_per_second": "Capacity held back, never lent.",
    "jbof_planner_pool_bytes_per_second": "What borrowers share now (read-equivalent).",
    "jbof_planner_static_pool_bytes_per_second": "What static partitioning would lend.",
    "jbof_planner_lent_bytes_per_second": "Part of an owner's reservation lent now.",
    "jbof_planner_held_bytes_per_second": "Part of an owner's reservation held for it now.",
    "jbof_planner_borrower_limit_bytes_per_second": "Limit the planner applied to a borrower.",
    "jbof_planner_held_write_bytes_per_second": "Part of an owner's reservation held from "
                                                "writing borrowers now.",
    "jbof_planner_owner_guarded": "1 if the owner is guarded (latency-critical with an SLO): "
                                  "its running jobs are lent to reading borrowers.",
    "jbof_planner_borrower_write_ratio": "A borrower's write fraction as planned: written / "
                                         "moved bytes over the last second (1 until measured).",
    "jbof_planner_borrower_measured": "1 once the borrower's write fraction is measured "
                                      "(else it is planned as a writer).",
    "jbof_planner_coverage_ratio": "Observed coverage of a forecast source: 1 - misses / "
                                   "arrivals (1 before any arrival).",
    "jbof_planner_coverage_target_ratio": "Coverage target: 1 - slowdown budget.",
    "jbof_planner_arrivals_total": "Owner arrivals judged against a source's forecasts.",
    "jbof_planner_misses_total": "Arrivals that came while the owner was lent (or unforecast).",
    "jbof_planner_fallback": "1 while the source is in fallback (its owners held at static).",
}
SAMPLE_HELP = {**TUNE_HELP, **PLANNER_HELP}
Sample = tuple[str, dict[str, str], float]


# ------------------------------------------------------------ reading stats ---

@functools.cache
def _bucket_upper_ns() -> Any:
    """Inclusive upper edge (ns) of each C histogram bucket (last: unbounded)."""
    import numpy as np

    from dataplane.sim import hist_edges_ns
    edges = hist_edges_ns().astype(np.float64)
    upper = np.empty_like(edges)
    upper[:-1] = edges[1:] - 1
    upper[-1] = np.inf
    return upper


def hist_pairs(buckets: Sequence[int]) -> list[list[int]]:
    """Non-empty buckets as ``[upper_ns, count]`` (upper edge inclusive; -1 = unbounded)."""
    upper = _bucket_upper_ns()
    out = []
    for i, c in enumerate(buckets):
        if c:
            u = upper[i]
            out.append([int(u) if u != float("inf") else -1, int(c)])
    return out


def quantile(pairs: Iterable[Sequence[int]], q: float, max_ns: int | None = None) -> int:
    """Value at quantile q of ``[upper_ns, count]`` pairs, as jbof_hist_quantile
    reports it: the upper edge of the bucket holding rank ceil(q * count),
    clamped to max_ns.  0 when empty."""
    items = sorted((u if u >= 0 else (max_ns or 0), c) for u, c in pairs if c > 0)
    total = sum(c for _, c in items)
    if total == 0:
        return 0
    rank = max(1, math.ceil(q * total))
    cum = 0
    for upper, c in items:
        cum += c
        if cum >= rank:
            return min(upper, max_ns) if max_ns else upper
    return items[-1][0]


def read_tenant(engine: Any, name: str, drive: str, hist: bool = False) -> dict[str, Any]:
    """One tenant's counters, settings and latency summary (two C calls)."""
    st = engine.tenant_stats(name)
    h = engine.tenant_hist(name)
    t = st["tenant"]
    pairs = hist_pairs(h["buckets"])
    out: dict[str, Any] = {
        "name": name, "drive": drive, "class": t["class"], "weight": t["weight"],
        "read_ios": t["read_ios"], "write_ios": t["write_ios"], "other_ios": t["other_ios"],
        "read_bytes": t["read_bytes"], "write_bytes": t["write_bytes"],
        "completed": t["completed"], "errors": t["errors"], "cost_bytes": t["cost_completed"],
        "queued": t["queued"], "inflight": t["inflight"], "inflight_cost": t["inflight_cost"],
        "throttled": bool(t["throttled"]), "throttled_ns": t["throttled_ns"],
        "queued_ns": t["queued_ns"],
        "slo_violations": t["slo_violations"], "connections": st["connections"],
        "stalled": st["stalled"], "size_bytes": st["size_bytes"],
        "stall_max_ns": st["stall_max_ns"], "stall_now_ns": st["stall_now_ns"],
        "flushed": st["flushed_requests"],
        "lat_ns": {"count": h["count"], "sum": h["sum_ns"], "max": h["max_ns"],
                   "p50": quantile(pairs, 0.5, h["max_ns"]),
                   "p99": quantile(pairs, 0.99, h["max_ns"]),
                   "p999": quantile(pairs, 0.999, h["max_ns"])},
    }
    if hist:
        out["hist"] = pairs
        out["_buckets"] = h["buckets"]
    return out


def read_drive(engine: Any, name: str) -> dict[str, Any]:
    d = engine.drive_stats(name)
    s = d["sched"]
    return {
        "name": name, "backend": d["backend"],
        "policy": POLICIES[s["policy"]] if s["policy"] < len(POLICIES) else "?",
        "ctl_state": s["ctl_state"], "rate_cost_bps": s["rate_cost_bps"], "tokens": s["tokens"],
        "write_factor": s["write_factor_x256"] / 256.0,
        "inflight_ios": s["inflight_ios"], "inflight_cost": s["inflight_cost"],
        "band_lo_ns": s["band_lo_ns"], "band_hi_ns": s["band_hi_ns"],
        "threshold_ns": s["threshold_ns"], "base_read_ns": s["base_read_ns"],
        "ewma_read_ns": s["ewma_read_ns"], "ewma_write_ns": s["ewma_write_ns"],
        "dispatched": s["dispatched"], "completed": s["completed"],
        "tenants": s["tenants"], "backlogged": s["backlogged"],
        "write_pace_cost_bps": s["write_pace_cost_bps"],
        "size_bytes": d["size_bytes"], "allocated_bytes": d["allocated_bytes"],
        "backend_errors": d["backend_errors"], "io_mode": d["io_mode"],
    }


SEC_COUNTERS = {
    "tls_handshakes": ("jbof_tls_handshakes", "TLS-PSK sessions established."),
    "tls_failures": ("jbof_tls_failures", "TLS handshakes failed: wrong key, unknown identity."),
    "tls_required": ("jbof_tls_required", "Options refused because TLS is required."),
    "denied": ("jbof_export_denied", "Requests to open an export the client may not open."),
}


def read_stats(engine: Any, cfg: Config, hist: bool = False) -> dict[str, Any]:
    """A snapshot of every tenant and drive of cfg.  A tenant removed meanwhile is skipped."""
    ts = []
    for t in cfg.tenants:
        try:
            row = read_tenant(engine, t.name, t.drive, hist)
        except (ValueError, OSError):   # removed between the config read and now
            continue
        row.update(reserve_bps=t.reserve, limit_bps=t.limit, limit_iops=t.limit_iops,
                   latency_slo_ns=t.latency_slo)
        ts.append(row)
    e = engine.stats()
    sec = engine.sec_stats() if hasattr(engine, "sec_stats") else {}
    return {"tenants": ts, "drives": [read_drive(engine, d.name) for d in cfg.drives],
            "engine": {"connections": e["connections"], "accepted": e["accepted"],
                       "requests": e["requests"], "protocol_errors": e["protocol_errors"],
                       **{k: sec.get(k, 0) for k in SEC_COUNTERS}}}


# ---------------------------------------------------------------- collector ---

class JbofCollector:
    """A prometheus-client custom collector: reads the Engine at scrape time.

    ``config()`` returns the daemon's settings in force (the admin plane's
    ``Operations.live_config``: tenants added or removed live appear or vanish,
    and a limit the forecast planner set shows, though it is not persisted);
    ``tune()`` the tuners' and the planner's samples (``(name, labels, value)``; ``_total``
    names are counters)."""

    def __init__(self, engine: Any, config: Callable[[], Config],
                 tune: Callable[[], list[Sample]] | None = None) -> None:
        self._engine = engine
        self._config = config
        self._tune = tune

    def describe(self) -> list[Any]:
        return []      # families depend on live tenants: no describe-time collect

    def collect(self) -> Iterator[Any]:
        try:
            families = self._families(read_stats(self._engine, self._config(), hist=True))
            if self._tune is not None:
                families += _sample_families(self._tune())
        except Exception:  # a scrape must never take the daemon down; log it
            log.warning("metrics scrape failed", exc_info=True)
            return
        yield from families

    def _families(self, snap: dict[str, Any]) -> list[Any]:
        from prometheus_client.core import (
            CounterMetricFamily,
            GaugeMetricFamily,
            HistogramMetricFamily,
        )
        TL = ["tenant", "drive"]

        def fam(kind: Any, name: str, doc: str, labels: list[str]) -> Any:
            return kind(name, doc, labels=labels)

        tc = {k: fam(CounterMetricFamily, f"jbof_tenant_{k}", doc, TL) for k, doc in (
            ("read_ios", "Read IOs completed."), ("write_ios", "Write IOs completed."),
            ("other_ios", "Flush/trim/write-zeroes IOs completed."),
            ("read_bytes", "Bytes read."), ("write_bytes", "Bytes written."),
            ("errors", "IOs completed with an error."),
            ("cost_bytes", "Completed IO cost in read-byte equivalents."),
            ("throttled_seconds", "Time backlogged but held back by the tenant's limit."),
            ("queued_seconds", "Time with at least one IO waiting at the scheduler (not yet dispatched)."),
            ("slo_violations", "Completions slower than the tenant's latency SLO."))}
        tg = {k: fam(GaugeMetricFamily, f"jbof_tenant_{k}", doc, TL) for k, doc in (
            ("queue_depth", "IOs waiting in the tenant's submission queue."),
            ("inflight_ios", "IOs of the tenant in the drive."),
            ("inflight_cost_bytes", "Cost of the tenant's IOs in the drive."),
            ("throttled", "1 while the tenant is held back by its limit."),
            ("weight", "Scheduling weight."),
            ("class", "Class: 0 latency, 1 reserved, 2 best-effort, 3 scavenger."),
            ("connections", "NBD connections open now."),
            ("reserve_bytes_per_second", "Reserved rate (0 = none)."),
            ("limit_bytes_per_second",
             "Rate limit in force (0 = none); a scavenger's may be the forecast planner's."),
            ("latency_slo_seconds", "Latency target (0 = none)."))}
        lat = HistogramMetricFamily("jbof_tenant_latency_seconds",
                                    "End-to-end IO latency (queue + drive).", labels=TL)
        upper = _bucket_upper_ns()
        import numpy as np
        cuts = [int(np.searchsorted(upper, b * 1e9, side="right")) for b in LATENCY_BOUNDS_S]
        for t in snap["tenants"]:
            lv = [t["name"], t["drive"]]
            for k in ("read_ios", "write_ios", "other_ios", "read_bytes", "write_bytes", "errors",
                      "slo_violations"):
                tc[k].add_metric(lv, t[k])
            tc["cost_bytes"].add_metric(lv, t["cost_bytes"])
            tc["throttled_seconds"].add_metric(lv, t["throttled_ns"] / 1e9)
            tc["queued_seconds"].add_metric(lv, t["queued_ns"] / 1e9)
            tg["queue_depth"].add_metric(lv, t["queued"])
            tg["inflight_ios"].add_metric(lv, t["inflight"])
            tg["inflight_cost_bytes"].add_metric(lv, t["inflight_cost"])
            tg["throttled"].add_metric(lv, 1 if t["throttled"] else 0)
            tg["weight"].add_metric(lv, t["weight"])
            tg["class"].add_metric(lv, CLASSES.index(t["class"]) if t["class"] in CLASSES else -1)
            tg["connections"].add_metric(lv, t["connections"])
            tg["reserve_bytes_per_second"].add_metric(lv, t["reserve_bps"])
            tg["limit_bytes_per_second"].add_metric(lv, t["limit_bps"])
            tg["latency_slo_seconds"].add_metric(lv, t["latency_slo_ns"] / 1e9)
            cum = np.cumsum(np.asarray(t["_buckets"], dtype=np.float64))
            buckets = [(f"{b:g}", float(cum[k - 1]) if k else 0.0)
                       for b, k in zip(LATENCY_BOUNDS_S, cuts)]
            buckets.append(("+Inf", float(t["lat_ns"]["count"])))
            lat.add_metric(lv, buckets, sum_value=t["lat_ns"]["sum"] / 1e9)
        e = snap["engine"]
        return [*tc.values(), *tg.values(), lat,
                *self._drives(snap["drives"], CounterMetricFamily, GaugeMetricFamily),
                GaugeMetricFamily("jbof_connections", "NBD connections open now.",
                                  value=e["connections"]),
                CounterMetricFamily("jbof_connections_accepted", "NBD connections accepted.",
                                    value=e["accepted"]),
                CounterMetricFamily("jbof_requests", "NBD requests parsed.", value=e["requests"]),
                CounterMetricFamily("jbof_protocol_errors",
                                    "Connections closed for a protocol violation.",
                                    value=e["protocol_errors"]),
                *(CounterMetricFamily(name, doc, value=e[k])
                  for k, (name, doc) in SEC_COUNTERS.items())]

    @staticmethod
    def _drives(drives: list[dict[str, Any]], counter: Any, gauge: Any) -> list[Any]:
        L = ["drive"]
        g = {k: gauge(f"jbof_drive_{k}", doc, labels=L) for k, doc in (
            ("controller_state", "Controller state: 0 slowstart, 1 ok, 2 congestion, "
             "3 overloaded."),
            ("dispatch_rate_bytes_per_second", "Controller's dispatch budget, cost-bytes/s."),
            ("write_cost_factor", "A written byte costs this many read bytes."),
            ("write_pace_bytes_per_second", "Writes paced toward a full write buffer's drain, "
             "cost-bytes/s (0 = no pace)."),
            ("inflight_ios", "IOs in the drive."),
            ("inflight_cost_bytes", "Cost of the IOs in the drive."),
            ("band_low_seconds", "Latency band floor in force."),
            ("band_high_seconds", "Latency band ceiling in force."),
            ("threshold_seconds", "Controller's dynamic latency threshold."),
            ("read_latency_ewma_seconds", "EWMA of read completion latency."),
            ("write_latency_ewma_seconds", "EWMA of write completion latency."),
            ("base_read_latency_seconds", "Learned unloaded read latency (0 = not yet)."),
            ("tenants", "Tenants on the drive."),
            ("backlogged_tenants", "Tenants with queued IO."),
            ("size_bytes", "Drive size."),
            ("allocated_bytes", "Bytes given to namespaces."))}
        c = {k: counter(f"jbof_drive_{k}", doc, labels=L) for k, doc in (
            ("dispatched_ios", "IOs dispatched to the drive."),
            ("completed_ios", "IOs completed by the drive."),
            ("backend_errors", "Backend IO errors."))}
        for d in drives:
            lv = [d["name"]]
            g["controller_state"].add_metric(lv, CTL_STATES.index(d["ctl_state"])
                                             if d["ctl_state"] in CTL_STATES else -1)
            for key, field, scale in (
                    ("dispatch_rate_bytes_per_second", "rate_cost_bps", 1.0),
                    ("write_cost_factor", "write_factor", 1.0),
                    ("write_pace_bytes_per_second", "write_pace_cost_bps", 1.0),
                    ("inflight_ios", "inflight_ios", 1.0),
                    ("inflight_cost_bytes", "inflight_cost", 1.0),
                    ("band_low_seconds", "band_lo_ns", 1e-9),
                    ("band_high_seconds", "band_hi_ns", 1e-9),
                    ("threshold_seconds", "threshold_ns", 1e-9),
                    ("read_latency_ewma_seconds", "ewma_read_ns", 1e-9),
                    ("write_latency_ewma_seconds", "ewma_write_ns", 1e-9),
                    ("base_read_latency_seconds", "base_read_ns", 1e-9),
                    ("tenants", "tenants", 1.0), ("backlogged_tenants", "backlogged", 1.0),
                    ("size_bytes", "size_bytes", 1.0),
                    ("allocated_bytes", "allocated_bytes", 1.0)):
                g[key].add_metric(lv, d[field] * scale)
            c["dispatched_ios"].add_metric(lv, d["dispatched"])
            c["completed_ios"].add_metric(lv, d["completed"])
            c["backend_errors"].add_metric(lv, d["backend_errors"])
        return [*g.values(), *c.values()]


def _sample_families(samples: list[Sample]) -> list[Any]:
    """Metric families from (name, labels, value) samples: one family per name, a
    counter if the name ends in _total."""
    from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
    fams: dict[str, tuple[Any, list[str]]] = {}
    for name, labels, value in samples:
        if name not in fams:
            base = name.removesuffix("_total")
            kind = CounterMetricFamily if base != name else GaugeMetricFamily
            fams[name] = (kind(base, SAMPLE_HELP.get(name, name), labels=list(labels)),
                          list(labels))
        fam, keys = fams[name]
        fam.add_metric([labels[k] for k in keys], value)
    return [fam for fam, _keys in fams.values()]


# ------------------------------------------------------------- HTTP server ---

class MetricsServer:
    """``/metrics`` over HTTP on HOST:PORT (port 0 = any; see ``.port``)."""

    def __init__(self, collector: JbofCollector, hostport: str) -> None:
        from prometheus_client import CollectorRegistry
        host, _, port = hostport.rpartition(":")
        self.host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
        self._want_port = int(port)
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(collector)
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self.port = 0

    def start(self) -> None:
        from prometheus_client import start_http_server
        server, thread = start_http_server(self._want_port, addr=self.host,
                                           registry=self.registry)
        self._server, self._thread = server, thread
        self.port = int(server.server_address[1])

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/metrics"

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
