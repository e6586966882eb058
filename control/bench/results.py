"""Run scenarios in the simulator and build the result document (docs/design.md#result-documents).

    doc = run_scenario(load_scenario("configs/scenarios/read-vs-write.yaml"), "qos")
    doc["jain"], doc["tenants"][0]["share"], doc["tenants"][0]["lat_us"]["p99"]

Definitions (the same for ``jbof sim`` and the live harness):

* ``solo_bw_bytes`` / ``solo_lat_us``: the tenant's throughput and latency
  when it runs alone on the same device model and state, with the same seed,
  duration and workload (its startdelay/runtime/phases and sq_depth included),
  under policy ``fifo`` with its QoS settings (class, reserve, limits, SLO)
  removed -- the raw drive with nothing in the way.  Solo runs do not depend
  on the policy under test, so comparing several policies runs them once.
* ``share`` = bw_bytes / solo_bw_bytes (null if the tenant moves nothing alone).
* ``backlogged``: closed-loop tenants (iodepth-driven) always want more;
  open-loop ones (rate/rate_iops) only if they got < 95% of the bytes their
  schedule asked for.
* ``jain`` = (sum x)^2 / (n * sum x^2) over the shares x of backlogged tenants
  (1.0 when fewer than two tenants are backlogged).  Weights are not
  normalised out: 2:1 weights done right give Jain < 1 by design.
* ``utilization`` = sum of all shares (1.0 = the drive fully used, for this mix).
* ``slo_met`` = p99 <= latency_slo (null without an SLO; false if nothing completed).
"""
from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from control import units
from control.scenario import Device, Scenario, Tenant, load_scenario

SOLO_POLICY = "fifo"
OPEN_LOOP_SATISFIED = 0.95
DEFAULT_POLICY = "qos"
BIN_S = 0.1
DEFAULT_MAX_TENANTS = 256   # jbof_sched_default_cfg's max_tenants


# ------------------------------------------------------------- simulation ---

def device_overrides(device: Device) -> dict[str, int]:
    """jbof_ssd_cfg field overrides for a scenario's device section."""
    out: dict[str, int] = {}
    if device.fragmentation_pct is not None:
        out["frag_init_ppm"] = round(device.fragmentation_pct * 10_000)
    elif device.state == "fragmented":
        out["frag_init_ppm"] = 1_000_000
    elif device.state == "clean":
        out["frag_init_ppm"] = 0
    if device.capacity_bytes is not None:
        out["capacity_bytes"] = device.capacity_bytes
    return out


def make_simulator(scenario: Scenario, policy: str, seed: int | None = None,
                   tenants: Iterable[Tenant] | None = None, duration_s: float | None = None,
                   bin_s: float = BIN_S) -> Any:
    """A Simulator for the scenario's device with (some of) its tenants added."""
    from control.simulator import Simulator
    dur = scenario.duration_s if duration_s is None else duration_s
    chosen = list(scenario.tenants if tenants is None else tenants)
    sched = {"max_tenants": len(chosen)} if len(chosen) > DEFAULT_MAX_TENANTS else None
    sim = Simulator(device=scenario.device.model, policy=policy,
                    seed=scenario.seed if seed is None else seed,
                    ssd_overrides=device_overrides(scenario.device), sched_overrides=sched,
                    bin_s=bin_s, max_bins=max(1, int(dur / bin_s) + 2))
    for t in chosen:
        sim.add_scenario_tenant(t)
    return sim


def simulate(scenario: Scenario, policy: str, seed: int | None = None,
             duration_s: float | None = None, tenants: Iterable[Tenant] | None = None) -> Any:
    """Run the scenario (or a subset of its tenants) once; returns a dataplane SimResult."""
    dur = scenario.duration_s if duration_s is None else duration_s
    sim = make_simulator(scenario, policy, seed, tenants, dur)
    sim.run(dur)
    return sim.result()


@dataclass(frozen=True)
class Solo:
    """A tenant alone on the raw drive."""
    bw_bytes: float
    lat_us: Mapping[str, float]       # p50, p99, p999, max


def raw_tenant(t: Tenant) -> Tenant:
    """The tenant with its QoS settings removed (what the raw drive sees)."""
    return dataclasses.replace(t, klass="best-effort", weight=1, reserve_bps=0, limit_bps=0,
                               limit_iops=0, latency_slo_ns=0)


def solo_runs(scenario: Scenario, seed: int | None = None,
              duration_s: float | None = None) -> dict[str, Solo]:
    """Each tenant alone on the raw drive (policy fifo, no QoS settings)."""
    out: dict[str, Solo] = {}
    for t in scenario.tenants:
        r = simulate(scenario, SOLO_POLICY, seed, duration_s, tenants=[raw_tenant(t)])
        tr = r.tenant(t.name)
        out[t.name] = Solo(bw_bytes=tr.bw_bytes, lat_us=tr.lat.as_dict())
    return out


# --------------------------------------------------------------- document ---

@dataclass(frozen=True)
class Measured:
    """What one run measured for one tenant (from the simulator or a live fio run)."""
    name: str
    iops: float
    bw_bytes: float
    lat_us: Mapping[str, float]       # p50, p99, p999, max
    completed: int
    backlogged: bool
    extra: Mapping[str, Any] = field(default_factory=dict)


def jain(values: Sequence[float]) -> float:
    """Jain's fairness index; 1.0 for fewer than two values or all zeros."""
    xs = [float(v) for v in values]
    sq = sum(x * x for x in xs)
    if len(xs) < 2 or sq == 0.0:
        return 1.0
    return sum(xs) ** 2 / (len(xs) * sq)


def _num(x: float) -> float:
    return float(round(x, 6))


def document(scenario: Scenario, policy: str, mode: str, seed: int, duration_s: float,
             measured: Sequence[Measured], solo: Mapping[str, Solo],
             device: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON result document (docs/design.md#result-documents; plus a few extra fields)."""
    entries: list[dict[str, Any]] = []
    shares_backlogged: list[float] = []
    utilization = 0.0
    for m in measured:
        t = scenario.tenant(m.name)
        alone = solo.get(m.name)
        solo_bw = alone.bw_bytes if alone else 0.0
        share = m.bw_bytes / solo_bw if solo_bw > 0 else None
        if share is not None:
            utilization += share
            if m.backlogged:
                shares_backlogged.append(share)
        slo_us = t.latency_slo_ns / 1e3 if t.latency_slo_ns else None
        slo_met = None if slo_us is None else bool(m.completed and m.lat_us["p99"] <= slo_us)
        entries.append({
            "name": m.name,
            "iops": _num(m.iops),
            "bw_bytes": _num(m.bw_bytes),
            "lat_us": {k: _num(m.lat_us[k]) for k in ("p50", "p99", "p999", "max")},
            "solo_bw_bytes": _num(solo_bw),
            "solo_lat_us": None if alone is None else {k: _num(v) for k, v in alone.lat_us.items()},
            "share": None if share is None else _num(share),
            "slo_met": slo_met,
            "class": t.klass,
            "weight": t.weight,
            "latency_slo_us": slo_us,
            "backlogged": m.backlogged,
            **dict(m.extra),
        })
    return {
        "scenario": scenario.name,
        "policy": policy,
        "mode": mode,
        "seed": seed,
        "duration_s": _num(duration_s),
        "tenants": entries,
        "jain": _num(jain(shares_backlogged)),
        "utilization": _num(utilization),
        "device": dict(device),
    }


def zero_bins(timeline: Any, elapsed_s: float, bin_s: float) -> int:
    """Complete bins of the run (of bin_s seconds, from time 0) in which the tenant completed nothing."""
    n = min(len(timeline), int(elapsed_s / bin_s + 1e-9))
    return int(sum(1 for b in timeline[:n] if int(b) == 0))


def measured_from_sim(result: Any) -> list[Measured]:
    """Per-tenant measurements of a dataplane SimResult."""
    out = []
    for t in result.tenants:
        if t.open_loop:
            backlogged = t.demand_bytes > 0 and t.bytes < OPEN_LOOP_SATISFIED * t.demand_bytes
        else:
            backlogged = True
        out.append(Measured(
            name=t.name, iops=t.iops, bw_bytes=t.bw_bytes, lat_us=t.lat.as_dict(),
            completed=t.completed, backlogged=backlogged,
            extra={"read_ios": t.read_ios, "write_ios": t.write_ios,
                   "read_bytes": t.read_bytes, "write_bytes": t.write_bytes,
                   "cost_bytes": t.cost_bytes, "slo_violations": t.slo_violations,
                   "open_loop": t.open_loop, "demand_bytes": t.demand_bytes,
                   "busy_s": _num(t.busy_s), "queued_s": _num(t.queued_s),
                   "lat_mean_us": _num(t.lat.mean_us),
                   "zero_bins": zero_bins(t.timeline_bytes, result.elapsed_s, result.bin_s)}))
    return out


def device_info(scenario: Scenario, result: Any) -> dict[str, Any]:
    d = result.drive
    return {
        "model": scenario.device.model,
        "state": scenario.device.state,
        "fragmentation_pct": scenario.device.fragmentation_pct,
        "write_factor": _num(d["write_factor_x256"] / 256),
        "ctl_state": d.get("ctl_state_name"),
        "ctl_rate_cost_bps": d["rate_cost_bps"],
        "ctl_state_enter": dict(zip(("slowstart", "ok", "congestion", "overloaded"),
                                    d["state_enter"], strict=True)),
        "ssd": dict(result.ssd),
        "events": result.events,
    }


def run_scenario(scenario: Scenario | str | Path, policy: str | None = None,
                 seed: int | None = None, duration_s: float | None = None,
                 solo: Mapping[str, Solo] | None = None) -> dict[str, Any]:
    """Run one policy (plus the solo runs unless ``solo`` is given): the JSON document.

    ``scenario`` may be a loaded Scenario or a path to a scenario file."""
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario)
    policy = policy or scenario.policy or DEFAULT_POLICY
    seed = scenario.seed if seed is None else seed
    dur = scenario.duration_s if duration_s is None else duration_s
    if solo is None:
        solo = solo_runs(scenario, seed, dur)
    result = simulate(scenario, policy, seed, dur)
    return document(scenario, result.policy, "sim", seed, result.elapsed_s,
                    measured_from_sim(result), solo, device_info(scenario, result))


def compare(scenario: Scenario | str | Path, policies: Sequence[str], seed: int | None = None,
            duration_s: float | None = None) -> list[dict[str, Any]]:
    """One document per policy; the solo runs are shared."""
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario)
    seed = scenario.seed if seed is None else seed
    solo = solo_runs(scenario, seed, duration_s)
    return [run_scenario(scenario, p, seed, duration_s, solo=solo) for p in policies]


# ------------------------------------------------------------------ table ---

def text_table(rows: Sequence[Sequence[str]], right_from: int = 1) -> str:
    """Columns padded to their widest cell; columns from right_from on right-aligned."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) if i < right_from else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip()
                     for r in rows)


def _us(v: float) -> str:
    return units.human_duration(v * 1e3)


def _share(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}"


def format_table(doc: Mapping[str, Any]) -> str:
    """A readable table of one result document."""
    dev = doc["device"]
    head = (f"{doc['scenario']}  policy={doc['policy']}  {doc['mode']}  seed={doc['seed']}  "
            f"{doc['duration_s']:g}s  device={dev.get('model')}"
            + (f" ({dev['state']})" if dev.get("state") else ""))
    rows = [["tenant", "class", "iops", "bw", "p50", "p99", "p99.9", "max",
             "solo bw", "solo p99", "share", "slo"]]
    for t in doc["tenants"]:
        lat = t["lat_us"]
        some = t["iops"] > 0
        solo_lat = t.get("solo_lat_us") or {}
        slo = "-" if t["slo_met"] is None else (
            ("met " if t["slo_met"] else "MISS ") + _us(t["latency_slo_us"]))
        rows.append([t["name"], t.get("class", ""), units.human_count(t["iops"]),
                     units.human_rate(t["bw_bytes"])]
                    + [_us(lat[k]) if some else "-" for k in ("p50", "p99", "p999", "max")]
                    + [units.human_rate(t["solo_bw_bytes"]),
                       _us(solo_lat["p99"]) if solo_lat.get("p99") else "-",
                       _share(t["share"]), slo])
    foot = f"jain {doc['jain']:.3f}  utilization {doc['utilization']:.3f}"
    return "\n".join([head, text_table(rows, right_from=2), foot])


def format_comparison(docs: Sequence[Mapping[str, Any]]) -> str:
    """Policies side by side: Jain, utilization, and each tenant's share and p99."""
    names = [t["name"] for t in docs[0]["tenants"]]
    rows = [["policy", "jain", "util"] + [f"{n} share/p99" for n in names]]
    for d in docs:
        by = {t["name"]: t for t in d["tenants"]}
        rows.append([d["policy"], f"{d['jain']:.3f}", f"{d['utilization']:.3f}"]
                    + [f"{_share(by[n]['share'])} / "
                       + (_us(by[n]["lat_us"]["p99"]) if by[n]["iops"] > 0 else "-")
                       for n in names])
    return text_table(rows)


# ------------------------------------------------------------------ repeats ---
# ``jbof bench --repeat N`` runs everything N times; one number from one run on a
# shared, small machine is not a measurement.  A share above SHARE_MAX (a tenant
# faster beside others than alone: the solo baseline was disturbed) or a spread
# above SPREAD_MAX between runs marks the result unreliable, in the table and the
# report.

SHARE_MAX = 1.05
SPREAD_MAX = 0.10


def _stats(xs: Sequence[float]) -> dict[str, float]:
    s = sorted(xs)
    n = len(s)
    med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    spread = (s[-1] - s[0]) / med if med else 0.0
    return {"min": _num(s[0]), "median": _num(med), "max": _num(s[-1]),
            "spread": _num(spread)}


def combine_repeats(runs: Sequence[Sequence[Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """The documents of N repeats of the same bench (each a list, one doc per policy) as
    one list: each doc is the median repeat's (by utilization), with ``repeat`` holding
    min/median/max/spread of every share, the utilization and Jain's index, and
    ``unreliable`` the reasons (share > SHARE_MAX, spread > SPREAD_MAX)."""
    if not runs:
        return []
    out = []
    for i in range(len(runs[0])):
        docs = [r[i] for r in runs]
        by_util = sorted(docs, key=lambda d: d["utilization"] or 0.0)
        doc = copy.deepcopy(dict(by_util[len(by_util) // 2]))
        rep: dict[str, Any] = {"n": len(docs),
                               "utilization": _stats([d["utilization"] or 0.0 for d in docs]),
                               "jain": _stats([d["jain"] or 0.0 for d in docs]),
                               "share": {}}
        why: list[str] = []
        for t in doc["tenants"]:
            vals = [s for d in docs for x in d["tenants"] if x["name"] == t["name"]
                    for s in [x["share"]] if s is not None]
            if not vals:
                continue
            st = _stats(vals)
            rep["share"][t["name"]] = st
            if st["max"] > SHARE_MAX:
                why.append(f"{t['name']} share {st['max']:.2f} > {SHARE_MAX} (faster beside "
                           "others than alone: the solo baseline was disturbed)")
            if len(vals) > 1 and st["spread"] > SPREAD_MAX:
                why.append(f"{t['name']} share varies {st['spread']:.0%} between runs "
                           f"({st['min']:.2f}..{st['max']:.2f}) > {SPREAD_MAX:.0%}")
        u = rep["utilization"]
        if len(docs) > 1 and u["spread"] > SPREAD_MAX:
            why.append(f"utilization varies {u['spread']:.0%} between runs "
                       f"({u['min']:.2f}..{u['max']:.2f}) > {SPREAD_MAX:.0%}")
        doc["repeat"] = rep
        doc["unreliable"] = why
        out.append(doc)
    return out


def format_repeat(doc: Mapping[str, Any]) -> str:
    """The spread lines under a policy's table, and UNRELIABLE with the reasons."""
    rep = doc.get("repeat")
    if not rep:
        return ""
    u = rep["utilization"]
    lines = [f"{rep['n']} run{'s' if rep['n'] != 1 else ''}: utilization "
             f"{u['min']:.3f}/{u['median']:.3f}/{u['max']:.3f} (min/median/max, spread "
             f"{u['spread']:.0%}); shares "
             + ", ".join(f"{n} {s['min']:.2f}/{s['median']:.2f}/{s['max']:.2f}"
                         for n, s in rep["share"].items())]
    for w in doc.get("unreliable") or []:
        lines.append(f"UNRELIABLE: {w}")
    return "\n".join(lines)
