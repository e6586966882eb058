#!/usr/bin/env python3
"""Anticipatory lending over many seeds: the issue-15 table and summaries.

Runs configs/scenarios/training-cluster.yaml (control/anticipation.py) under
static, share, robust and oracle for each seed with one forecaster (default
noisy, seeds 1-20) and prints, per seed, each policy's mean borrower job
latency and owner slow windows, then:

* static / robust borrower latency: minimum over seeds and geometric mean
  (targets: >= 2x on every seed, >= 4x geometric mean);
* robust / share and oracle / share borrower latency, geometric mean
  (targets: <= 1.3x and <= 1.1x);
* seeds on which robust slowed an owner (target: none);
* where robust's and oracle's borrower latency goes against share: reader
  jobs and writer jobs apart (mean latency ratio, geometric mean over seeds)
  and the whole ratio with writer jobs, or reader jobs, at share's latency;
* robust's and oracle's slow windows and near-SLO windows (p99 > 90% of the
  SLO, not slowed) over all seeds: the margin.  Slow windows are rare, so
  whether a seed shows one is close to chance: ``--jitter N`` reruns robust
  and oracle with the planner's headroom moved by -0.01, +0.01, +0.02, ...
  points (N runs; 0.28 MB/s of lending: it moves the trajectory, not the
  margin) and totals them (on the tree
  of 2026-12-01 the four runs of --jitter 3 gave 0, 1, 2 and 5 slow
  windows, 6, 17, 20 and 17 near ones; csrc/sched.c section 14).

``--frontier C/H,...`` then reruns robust and oracle with the planner's
write_caution set to C and its headroom to H% at each point (with --jitter,
at the moved headrooms too) and prints, per point, robust/share and
oracle/share against slow and near windows: how much borrower latency a
looser planner buys and what it costs owners (csrc/sched.c section 14 and
docs/design.md have the frontier of 2026-12-01).

Measured, never asserted (tests/test_anticipation.py asserts the safety
properties).  Each seed takes a few wall seconds; ``--jobs`` runs seeds in
parallel processes.
"""
from __future__ import annotations

import argparse
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SCEN = ROOT / "configs" / "scenarios" / "training-cluster.yaml"
POLICIES = ("static", "share", "robust", "oracle")


def one_seed(args: tuple[str, str, int, float, tuple[str, ...], tuple[tuple[str, float], ...]]
             ) -> tuple[int, dict[str, dict[str, Any]]]:
    from dataclasses import replace

    from control.lending.anticipation import evaluate, load_cluster_scenario
    scen, forecaster, seed, dh, pols, sets = args
    sc = load_cluster_scenario(scen)
    if sets:
        sc = replace(sc, planner=replace(sc.planner, **dict(sets)))
    if dh:
        sc = replace(sc, planner=replace(sc.planner, headroom=sc.planner.headroom + dh))
    docs = evaluate(sc, list(pols), forecaster=forecaster, seed=seed)
    return seed, {d["policy"]: d["anticipation"] for d in docs}


def margin(res: dict[int, dict[str, dict[str, Any]]], p: str) -> tuple[int, int, list[int]]:
    """Policy p's slow windows, near-SLO windows and the seeds it slowed."""
    return (sum(r[p]["owner_slow_windows"] for r in res.values()),
            sum(r[p]["owner_near_slo_windows"] for r in res.values()),
            sorted(s for s, r in res.items() if r[p]["owner_slow_windows"]))


def by_kind(res: dict[int, dict[str, dict[str, Any]]], p: str) -> str:
    """Policy p's borrower latency against share by job kind: each kind's mean
    latency ratio and p's whole ratio with the other kind at share's latency
    (geometric means over seeds; a seed without a kind is left out of its ratio)."""
    kind: dict[str, list[float]] = {"reader": [], "writer": []}
    cf: dict[str, list[float]] = {"reader": [], "writer": []}
    for r in res.values():
        a, sh = r[p], r["share"]
        n = a["borrower_jobs_by_kind"]
        lp, ls = a["borrower_job_latency_by_kind_s"], sh["borrower_job_latency_by_kind_s"]
        tot = sum(n.values())
        if not tot:
            continue
        for k in kind:
            if n[k]:
                kind[k].append(lp[k] / ls[k])
            # the whole mean with kind k's jobs at share's latency
            o = "writer" if k == "reader" else "reader"
            m = (n[k] * (ls[k] or 0.0) + n[o] * (lp[o] or 0.0)) / tot
            cf[k].append(m / sh["borrower_mean_job_latency_s"])
    return (f"{p}/share by job kind: reader jobs {geo(kind['reader']):.2f}x, writer jobs "
            f"{geo(kind['writer']):.2f}x; whole with writer jobs at share's latency "
            f"{geo(cf['writer']):.2f}x, with reader jobs at share's {geo(cf['reader']):.2f}x")


def geo(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main() -> int:
    from control.bench.results import text_table
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenario", default=str(SCEN))
    ap.add_argument("--forecaster", default="noisy")
    ap.add_argument("--seeds", default="1-20", help="e.g. 1-20 or 1,3,7")
    ap.add_argument("--jobs", type=int, default=1, help="parallel processes")
    ap.add_argument("--jitter", type=int, default=0, help="also rerun robust and oracle N times "
                    "with the headroom moved by -0.01, +0.01, +0.02, ... points")
    ap.add_argument("--frontier", default=[], type=frontier_points, metavar="C/H,...",
                    help="also rerun robust and oracle with the planner's write_caution C and "
                    "headroom H%% set, e.g. 3/5,2/5,1/5,1/0 (each with --jitter), and print "
                    "latency against owner slow and near windows per point")
    a = ap.parse_args()
    if "-" in a.seeds:
        lo, hi = (int(x) for x in a.seeds.split("-"))
        seeds = list(range(lo, hi + 1))
    else:
        seeds = [int(x) for x in a.seeds.split(",")]
    def run(dh: float, pols: tuple[str, ...], sets: tuple[tuple[str, float], ...] = ()
            ) -> dict[int, dict[str, dict[str, Any]]]:
        work = [(a.scenario, a.forecaster, s, dh, pols, sets) for s in seeds]
        if a.jobs > 1:
            with ProcessPoolExecutor(a.jobs) as ex:
                return dict(ex.map(one_seed, work))
        return dict(map(one_seed, work))
    res = run(0.0, POLICIES)

    rows = [["seed"] + [f"{p} lat (slow)" for p in POLICIES]
            + ["static/robust", "robust/share", "oracle/share"]]
    st_rb: list[float] = []
    rb_sh: list[float] = []
    or_sh: list[float] = []
    slowed: list[int] = []
    for s in seeds:
        r = res[s]
        lat = {p: r[p]["borrower_mean_job_latency_s"] for p in POLICIES}
        st_rb.append(lat["static"] / lat["robust"])
        rb_sh.append(lat["robust"] / lat["share"])
        or_sh.append(lat["oracle"] / lat["share"])
        if r["robust"]["owner_slow_windows"]:
            slowed.append(s)
        rows.append([str(s)] + [f"{lat[p]:.2f}s ({r[p]['owner_slow_windows']}/"
                                f"{r[p]['owner_windows']})" for p in POLICIES]
                    + [f"{st_rb[-1]:.2f}x", f"{rb_sh[-1]:.2f}x", f"{or_sh[-1]:.2f}x"])
    print(f"{Path(a.scenario).name}  forecaster={a.forecaster}  seeds={a.seeds}  "
          "(borrower mean job latency; owner slow windows / windows)")
    print(text_table(rows))
    print()
    print(f"static/robust  min {min(st_rb):.2f}x  geomean {geo(st_rb):.2f}x"
          "   (target >= 2x every seed, >= 4x geomean)")
    print(f"robust/share   geomean {geo(rb_sh):.2f}x  max {max(rb_sh):.2f}x   (target <= 1.3x)")
    print(f"oracle/share   geomean {geo(or_sh):.2f}x  max {max(or_sh):.2f}x   (target <= 1.1x)")
    print(f"robust owner slow windows: {'none' if not slowed else 'seeds ' + ', '.join(map(str, slowed))}"
          "   (target: none)")
    for p in ("robust", "oracle"):
        print(by_kind(res, p))
    sw, nw, ss = margin(res, "share")
    print(f"share (the 1.0x reference): {sw} slow windows on {len(ss)} of {len(seeds)} seeds, "
          f"{nw} near")
    dhs = [(-1 if i == 0 else i) * 1e-4 for i in range(a.jitter)]
    runs = [(0.0, res)]
    for dh in dhs:
        runs.append((dh, run(dh, ("robust", "oracle"))))
    for dh, r in runs:
        txt = []
        for p in ("robust", "oracle"):
            sw, nw, ss = margin(r, p)
            txt.append(f"{p} {sw} slow{' (seeds ' + ', '.join(map(str, ss)) + ')' if ss else ''}, "
                       f"{nw} near")
        print(f"headroom {100 * dh:+.2f} pt: " + "; ".join(txt)
              + ("   (near: p99 > 90% of the SLO, not slowed)" if dh == 0 else ""))
    if a.jitter:
        tot = {p: [sum(margin(r, p)[k] for _, r in runs) for k in (0, 1)] for p in ("robust", "oracle")}
        print(f"over {len(runs)} runs: " + "; ".join(f"{p} {v[0]} slow, {v[1]} near"
                                                      for p, v in tot.items()))
    if a.frontier:
        from control.lending.anticipation import load_cluster_scenario
        pc = load_cluster_scenario(a.scenario).planner
        frontier(a.frontier, runs, run, dhs, (pc.write_caution, pc.headroom))
    return 0


def frontier_points(text: str) -> list[tuple[float, float]]:
    """--frontier's C/H,... as (write_caution, headroom %) pairs; a clear error otherwise."""
    pts = []
    for pt in text.split(","):
        try:
            c, h = (float(x) for x in pt.split("/"))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{pt!r} is not C/H (write_caution / headroom %, e.g. 3/5)") from None
        if not (c >= 1 and 0 <= h < 100):
            raise argparse.ArgumentTypeError(f"{pt!r}: write_caution must be >= 1 and headroom in [0, 100)")
        pts.append((c, h))
    return pts


def frontier(spec: list[tuple[float, float]], runs: list[tuple[float, dict[int, dict[str, dict[str, Any]]]]], run: Any,
             dhs: list[float], base: tuple[float, float]) -> None:
    """Robust and oracle at each write_caution / headroom point of ``spec``
    against share from the base run: latency ratios (nominal headroom) and
    owner slow / near windows, nominal and totalled over the --jitter runs
    (at headroom 0 the -0.01 point run moves up instead, to +N x 0.01).  The
    scenario's own point reuses the base runs."""
    res = runs[0][1]
    n_runs = len(runs)
    share = {s: r["share"]["borrower_mean_job_latency_s"] for s, r in res.items()}
    rows = [["caution", "headroom", "robust/share", "oracle/share", "robust slow (seeds)",
             "oracle slow (seeds)", "near r/o"]
            + ([f"over {n_runs} runs: slow r/o", "near r/o"] if dhs else [])]
    for c, h in spec:
        sets = (("write_caution", c), ("headroom", h / 100.0))
        own = abs(c - base[0]) < 1e-9 and abs(h / 100.0 - base[1]) < 1e-9
        r0 = res if own else run(0.0, ("robust", "oracle"), sets)
        ratio = {p: geo([r0[s][p]["borrower_mean_job_latency_s"] / share[s] for s in share])
                 for p in ("robust", "oracle")}
        m0 = {p: margin(r0, p) for p in ("robust", "oracle")}
        row = [f"{c:g}", f"{h:g}%", f"{ratio['robust']:.2f}x", f"{ratio['oracle']:.2f}x"]
        row += [f"{m0[p][0]}" + (f" ({','.join(map(str, m0[p][2]))})" if m0[p][2] else "")
                for p in ("robust", "oracle")]
        row.append(f"{m0['robust'][1]}/{m0['oracle'][1]}")
        if dhs:
            tot = {p: [m0[p][0], m0[p][1]] for p in ("robust", "oracle")}
            for i, dh in enumerate(dhs):
                if own:
                    rj = runs[1 + i][1]
                else:
                    rj = run(dh if h / 100.0 + dh >= 0 else len(dhs) * 1e-4, ("robust", "oracle"), sets)
                for p in ("robust", "oracle"):
                    m = margin(rj, p)
                    tot[p][0] += m[0]
                    tot[p][1] += m[1]
            row += [f"{tot['robust'][0]}/{tot['oracle'][0]}", f"{tot['robust'][1]}/{tot['oracle'][1]}"]
        rows.append(row)
        print(f"frontier: caution {c:g}, headroom {h:g}%: " + ", ".join(
            f"{k} {v}" for k, v in zip(rows[0][2:], row[2:])), flush=True)
    print()
    print("frontier (write_caution / headroom set on the planner; ratios: borrower mean job "
          "latency geomean over seeds against share; near: p99 > 90% of the SLO, not slowed)")
    from control.bench.results import text_table
    print(text_table(rows))


if __name__ == "__main__":
    sys.exit(main())
