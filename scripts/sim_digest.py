#!/usr/bin/env python3
"""Determinism gate: one hash over the simulator's results.

Runs every scenario in configs/scenarios/*.yaml under every policy (a
training-cluster scenario under every lending policy, shortened with
--cluster-duration), and the 50-mix CI sample of tests/test_qos_sweep.py
(seed 11, every scheduling policy on each mix) and the sweep's regression
mixes (tests/fixtures/sweep/*.yaml, every policy), and prints one SHA-256 per
item and one over everything.  A change to the C core that is meant to be a
pure optimization must leave the final digest identical:

    PYTHONPATH=$PWD python3 scripts/sim_digest.py > /tmp/digest.txt

Items are independent, so `--jobs 2` runs them in two processes (same hashes).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CI_SEED, CI_N = 11, 50   # tests/test_qos_sweep.py's CI sample


WALL_KEYS = {"wall_s"}   # wall-clock fields: not the simulator's output


def _scrub(obj: object) -> object:
    if isinstance(obj, dict):
        return {k: _scrub(v) for k, v in obj.items() if k not in WALL_KEYS}
    if isinstance(obj, (list, tuple)):
        return [_scrub(v) for v in obj]
    return obj


def _h(obj: object) -> str:
    return hashlib.sha256(json.dumps(_scrub(obj), sort_keys=True, default=repr).encode()).hexdigest()


def _scenario(args: tuple[str, float]) -> tuple[str, str]:
    path, cluster_s = args
    from control.lending import anticipation
    if anticipation.is_cluster_scenario(path):
        sc = anticipation.load_cluster_scenario(path)
        docs = anticipation.evaluate(sc, list(anticipation.POLICIES), None, None, cluster_s)
    else:
        from control.bench.results import compare
        from control.scenario import POLICIES
        docs = compare(path, list(POLICIES))
    return f"scenario {Path(path).relative_to(ROOT)}", _h(docs)


def _mix(i: int) -> tuple[str, str]:
    from control.bench import sweep
    rep = sweep._one((CI_SEED, i))
    return f"mix {CI_SEED}-{i}", _h({"docs": rep.docs, "violations": [vars(v) for v in rep.violations]})


def _run(item: tuple[str, object]) -> tuple[str, str]:
    kind, arg = item
    return _scenario(arg) if kind == "scenario" else _mix(arg)  # type: ignore[arg-type]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=1, help="processes (at most 2) [1]")
    ap.add_argument("--cluster-duration", type=float, default=20.0,
                    help="seconds of trace for training-cluster scenarios [20]")
    ap.add_argument("--mixes", type=int, default=CI_N, help=f"CI-sample mixes [{CI_N}]")
    a = ap.parse_args()
    items: list[tuple[str, object]] = [("scenario", (str(p), a.cluster_duration))
                                       for p in sorted((ROOT / "configs" / "scenarios").glob("*.yaml"))]
    items += [("scenario", (str(p), a.cluster_duration))
              for p in sorted((ROOT / "tests" / "fixtures" / "sweep").glob("*.yaml"))]
    items += [("mix", i) for i in range(a.mixes)]
    if a.jobs > 1:
        import multiprocessing as mp
        with mp.get_context("fork").Pool(min(a.jobs, 2)) as pool:
            out = pool.map(_run, items, chunksize=1)
    else:
        out = [_run(it) for it in items]
    total = hashlib.sha256()
    for name, h in out:
        print(f"{h[:16]}  {name}", flush=True)
        total.update(f"{name} {h}\n".encode())
    print(f"digest {total.hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
