"""The ``jbof bench --out DIR`` report: report.md, results.json and PNG plots.

    report.md           a table per policy (and per nbdkit peer), a verdict per
                        tenant SLO, the fio / data plane cross-check, sim vs live
    results.json        the result documents (docs/design.md#result-documents, mode live),
                        the simulator's documents with --compare-sim, notes
    bandwidth.png       per-tenant bandwidth over time, one panel per policy
                        (fio's bandwidth logs, 100 ms averages)
    latency_cdf.png     completion latency CDF per tenant, one line per policy
                        (fio's clat histogram), the solo run dashed, the SLO dotted
    shares.png          each tenant's share of its solo throughput per policy,
                        Jain's index over the backlogged tenants above each group

Verdicts: ``latency_slo`` is met when p99 <= SLO (as in the document);
``reserve`` when the tenant got at least 95% of min(reserve, what it gets
alone); ``limit``/``limit_iops`` when it stayed within 105% of the limit.
"""
from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from control import units
from control.bench.runner import BenchResult, RunOutput, fio_version, sim_ratio_rows
from control.bench.fio import BW_LOG_MS
from control.bench.results import format_repeat

TOLERANCE = 0.05


# ---------------------------------------------------------------- verdicts ---

def _us(v: float) -> str:
    return units.human_duration(v * 1e3)


def verdicts(doc: Mapping[str, Any], tenant: Any) -> list[tuple[str, bool, str]]:
    """(SLO text, met, what was measured) for each SLO a tenant declares."""
    t = next(x for x in doc["tenants"] if x["name"] == tenant.name)
    out = []
    if tenant.latency_slo_ns:
        slo_us = tenant.latency_slo_ns / 1e3
        out.append((f"p99 <= {_us(slo_us)}", bool(t["slo_met"]), f"p99 {_us(t['lat_us']['p99'])}"))
    if tenant.reserve_bps:
        floor = min(tenant.reserve_bps, t["solo_bw_bytes"] or tenant.reserve_bps)
        out.append((f"reserve {units.human_rate(tenant.reserve_bps)}",
                    t["bw_bytes"] >= (1 - TOLERANCE) * floor, units.human_rate(t["bw_bytes"])))
    if tenant.limit_bps:
        out.append((f"limit {units.human_rate(tenant.limit_bps)}",
                    t["bw_bytes"] <= (1 + TOLERANCE) * tenant.limit_bps,
                    units.human_rate(t["bw_bytes"])))
    if tenant.limit_iops:
        out.append((f"limit {units.human_count(tenant.limit_iops)} IOPS",
                    t["iops"] <= (1 + TOLERANCE) * tenant.limit_iops,
                    f"{units.human_count(t['iops'])} IOPS"))
    return out


# ------------------------------------------------------------------ tables ---

def _md(rows: Sequence[Sequence[str]]) -> str:
    head, *body = rows
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(" --- " for _ in head) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in body]
    return "\n".join(lines)


def _share(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}"


def policy_table(doc: Mapping[str, Any]) -> str:
    rows = [["tenant", "class", "IOPS", "bandwidth", "p50", "p99", "p99.9", "max", "solo bw",
             "solo p99", "share"]]
    for t in doc["tenants"]:
        lat, solo = t["lat_us"], t.get("solo_lat_us") or {}
        some = t["iops"] > 0
        rows.append([t["name"], t.get("class", ""), units.human_count(t["iops"]),
                     units.human_rate(t["bw_bytes"])]
                    + [_us(lat[k]) if some else "-" for k in ("p50", "p99", "p999", "max")]
                    + [units.human_rate(t["solo_bw_bytes"]),
                       _us(solo["p99"]) if solo.get("p99") else "-", _share(t["share"])])
    return _md(rows)


def summary_table(docs: Sequence[Mapping[str, Any]]) -> str:
    names = [t["name"] for t in docs[0]["tenants"]]
    rows = [["policy", "Jain", "utilization"] + [f"{n} share / p99" for n in names]]
    for d in docs:
        by = {t["name"]: t for t in d["tenants"]}
        rows.append([d["policy"], f"{d['jain']:.3f}", f"{d['utilization']:.3f}"]
                    + [f"{_share(by[n]['share'])} / {_us(by[n]['lat_us']['p99'])}"
                       if by[n]["iops"] > 0 else "-" for n in names])
    return _md(rows)


def sim_table(res: BenchResult) -> str:
    return _md(sim_ratio_rows(res))


# ------------------------------------------------------------------- plots ---

def _pyplot() -> Any:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _shared_runs(res: BenchResult) -> list[RunOutput]:
    return [o for o in res.runs if o.run.kind == "shared"]


def plot_bandwidth(res: BenchResult, path: Path) -> None:
    plt = _pyplot()
    runs = _shared_runs(res)
    names = [t.name for t in res.scenario.tenants]
    fig, axes = plt.subplots(len(runs), 1, figsize=(10, 2.4 * len(runs) + 0.8), sharex=True,
                             squeeze=False)
    step = BW_LOG_MS / 1000
    for ax, o in zip(axes[:, 0], runs, strict=True):
        for n in names:
            ys = [v / 2**20 for v in o.timeline.get(n, [])]
            ax.plot([step * (k + 0.5) for k in range(len(ys))], ys, label=n, linewidth=1.2)
        ax.set_title(o.run.label, fontsize=10, loc="left")
        ax.set_ylabel("MiB/s")
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel(f"time since the first fio job started, s ({BW_LOG_MS} ms averages)")
    axes[0, 0].legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    fig.suptitle(f"{res.scenario.name}: per-tenant bandwidth over time (fio bandwidth logs)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _cdf(bins: Mapping[int, int]) -> tuple[list[float], list[float]]:
    total = sum(bins.values())
    xs, ys, cum = [], [], 0
    for ns in sorted(bins):
        cum += bins[ns]
        xs.append(ns / 1e3)
        ys.append(cum / total)
    return xs, ys


def plot_latency(res: BenchResult, path: Path) -> None:
    plt = _pyplot()
    tenants = list(res.scenario.tenants)
    cols = min(2, len(tenants))
    rows = -(-len(tenants) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 3.4 * rows + 0.6), squeeze=False)
    solo = {o.run.tenants[0]: o for o in res.runs if o.run.kind == "solo" and o.run.target == "jbof"}
    for k, t in enumerate(tenants):
        ax = axes[k // cols, k % cols]
        for o in _shared_runs(res):
            r = o.fio.get(t.name)
            if r is not None and r.bins:
                ax.plot(*_cdf(r.bins), label=o.run.label, linewidth=1.2)
        s = solo.get(t.name)
        if s is not None and s.fio[t.name].bins:
            ax.plot(*_cdf(s.fio[t.name].bins), label="alone", color="black", linestyle="--",
                    linewidth=1)
        if t.latency_slo_ns:
            ax.axvline(t.latency_slo_ns / 1e3, color="red", linestyle=":", linewidth=1,
                       label=f"SLO {units.human_duration(t.latency_slo_ns)}")
        ax.set_xscale("log")
        ax.set_ylim(0, 1.01)
        ax.set_title(t.name, fontsize=10, loc="left")
        ax.set_xlabel("completion latency (fio clat), us")
        ax.set_ylabel("fraction of IOs")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7, loc="lower right")
    for k in range(len(tenants), rows * cols):
        axes[k // cols, k % cols].set_visible(False)
    fig.suptitle(f"{res.scenario.name}: latency CDF per tenant")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_shares(res: BenchResult, path: Path) -> None:
    plt = _pyplot()
    docs = res.docs
    names = [t.name for t in res.scenario.tenants]
    width = 0.8 / max(1, len(names))
    fig, ax = plt.subplots(figsize=(max(6.0, 1.6 * len(docs) + 3.5), 4.2))
    top = 1.0
    for j, n in enumerate(names):
        vals = [next(t for t in d["tenants"] if t["name"] == n)["share"] or 0.0 for d in docs]
        top = max(top, *vals)
        ax.bar([i + (j - (len(names) - 1) / 2) * width for i in range(len(docs))], vals, width,
               label=n)
    for i, d in enumerate(docs):
        ax.text(i, top * 1.04, f"Jain {d['jain']:.2f}", ha="center", fontsize=9)
    ax.axhline(1.0 / len(names), color="gray", linestyle=":", linewidth=1,
               label=f"1/{len(names)} (equal split)")
    ax.set_xticks(range(len(docs)), [d["policy"] for d in docs])
    ax.set_ylim(0, top * 1.15)
    ax.set_ylabel("share = throughput / throughput alone")
    ax.set_title(f"{res.scenario.name}: shares of solo throughput and Jain's index")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ------------------------------------------------------------------ report ---

def markdown(res: BenchResult, plots: Sequence[str]) -> str:
    sc = res.scenario
    jbof = [d for d in res.docs if d.get("target") == "jbof"]
    peers = [d for d in res.docs if d.get("target") != "jbof"]
    model = jbof[0]["device"].get("model") if jbof and res.backend == "emulated" else None
    out = [f"# jbof bench: {sc.name}", ""]
    if sc.description:
        out += [sc.description, ""]
    out += [f"* scenario: `{sc.source}` (seed {sc.seed})",
            f"* data plane: backend {res.backend}" + (f", model {model}" if model else ""),
            f"* {len(res.runs)} runs of {res.duration_s:g} s: each tenant alone (fifo, no QoS "
            "settings), then all together per policy" + (", then the nbdkit peers" if peers
                                                          else ""),
            (f"* {fio_version()} (nbd engine, one process per tenant), {os.cpu_count()} CPUs, "
            f"{platform.machine()}, {time.strftime('%Y-%m-%d %H:%M')}"), ""]
    for note in res.notes:
        out += [f"> {note}", ""]
    bad = [d for d in res.docs if d.get("unreliable")]
    if bad:
        out += ["> **Unreliable results**: " + "; ".join(
            f"{d['policy']}: {', '.join(d['unreliable'])}" for d in bad)
            + ".  Rerun on an idle machine with more --repeat and a longer --duration.", ""]
    out += ["## Summary", "", summary_table(res.docs), "",
            ("share = throughput / throughput alone; Jain's index over the shares of backlogged "
            "tenants; utilization = sum of shares."), ""]
    out += ["## SLO verdicts", ""]
    any_slo = False
    for t in sc.tenants:
        per = [(d["policy"], verdicts(d, t)) for d in jbof]
        for k in range(len(per[0][1]) if per else 0):
            any_slo = True
            what = per[0][1][k][0]
            parts = [f"{'met' if v[k][1] else '**missed**'} under {p} ({v[k][2]})"
                     for p, v in per]
            out.append(f"* **{t.name}** {what}: " + "; ".join(parts))
    if not any_slo:
        out.append("No tenant declares an SLO (latency_slo, reserve, limit, limit_iops).")
    out.append("")
    for d in jbof:
        rep = format_repeat(d)
        out += [f"## {d['policy']}", "", policy_table(d), ""] + \
            ([f"    {x}" for x in rep.splitlines()] + [""] if rep else []) + [
                (f"Jain {d['jain']:.3f}, utilization {d['utilization']:.3f}.  At the end of the "
                f"run: controller {d['device'].get('ctl_state')}, write factor "
                f"{d['device'].get('write_factor')}."),
                ""]
    if peers:
        out += ["## Peers (nbdkit)", "",
                ("`nbdkit` is nbdkit's memory plugin, one server for all tenants (no QoS); "
                "`nbdkit-rate` caps each tenant at 1/N of its throughput alone on nbdkit with "
                "the rate filter (static caps).  Their shares are against their own solo runs "
                "on nbdkit."), ""]
        for d in peers:
            out += [f"### {d['policy']}", "", policy_table(d), "",
                    f"Jain {d['jain']:.3f}, utilization {d['utilization']:.3f}.", ""]
    if res.sim_docs is not None:
        out += ["## Simulator vs live", "",
                ("Ratios live / sim for the same scenario, seed and duration (the simulator "
                "runs the same SSD model in virtual time)."), "", sim_table(res), ""]
    out += ["## fio vs the data plane's counters", ""]
    checked = [o for o in res.runs if o.dp is not None]
    if res.warnings:
        out += [f"* {w}" for w in res.warnings] + [""]
    elif checked:
        out += [(f"fio's byte counts and the data plane's agree within 2% for every tenant in "
                f"all {len(checked)} data plane runs."), ""]
    else:
        out += ["No data plane counters were read.", ""]
    out += ["## Plots", ""]
    out += [f"![{p}]({p})" for p in plots] + [""]
    return "\n".join(out)


def write_report(out: Path, res: BenchResult) -> Path:
    """Write report.md, results.json and the plots into out; return report.md's path."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(
        {"live": res.docs, "sim": res.sim_docs, "notes": res.notes, "warnings": res.warnings},
        indent=2))
    plots = []
    for name, fn in (("bandwidth.png", plot_bandwidth), ("latency_cdf.png", plot_latency),
                     ("shares.png", plot_shares)):
        if res.docs:
            fn(res, out / name)
            plots.append(name)
    path = out / "report.md"
    path.write_text(markdown(res, plots))
    return path
