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
* seeds on which robust slowed an owner (target: none).

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


def one_seed(args: tuple[str, str, int]) -> tuple[int, dict[str, dict[str, Any]]]:
    from control.lending.anticipation import evaluate
    scen, forecaster, seed = args
    docs = evaluate(scen, list(POLICIES), forecaster=forecaster, seed=seed)
    return seed, {d["policy"]: d["anticipation"] for d in docs}


def geo(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def text_table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths))).rstrip() for r in rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenario", default=str(SCEN))
    ap.add_argument("--forecaster", default="noisy")
    ap.add_argument("--seeds", default="1-20", help="e.g. 1-20 or 1,3,7")
    ap.add_argument("--jobs", type=int, default=1, help="parallel processes")
    a = ap.parse_args()
    if "-" in a.seeds:
        lo, hi = (int(x) for x in a.seeds.split("-"))
        seeds = list(range(lo, hi + 1))
    else:
        seeds = [int(x) for x in a.seeds.split(",")]
    work = [(a.scenario, a.forecaster, s) for s in seeds]
    if a.jobs > 1:
        with ProcessPoolExecutor(a.jobs) as ex:
            res = dict(ex.map(one_seed, work))
    else:
        res = dict(map(one_seed, work))

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
    return 0


if __name__ == "__main__":
    sys.exit(main())
