#!/usr/bin/env python3
"""Run the qos invariant sweep (control/bench/sweep.py): N random mixes, every policy on each.

    python3 scripts/qos_sweep.py -n 1000 --seed 1 --jobs 2 --out sweep-failures

Prints a table of violations by invariant, writes each violating mix as a
scenario YAML (replay with `jbof sim FILE -p gimbal,qos`) and exits 1 on any
violation.  `make sweep` runs it; `jbof sim --sweep N --seed S` is the same.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from control.bench import sweep  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=1000, help="number of mixes [1000]")
    ap.add_argument("--seed", type=int, default=1, help="sweep seed [1]")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes, at most 2 [2]")
    ap.add_argument("--out", default="sweep-failures", help="where violating mixes go [sweep-failures]")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    return sweep.main(a.n, a.seed, max(1, min(a.jobs, 2)), a.out, verbose=a.verbose)


if __name__ == "__main__":
    sys.exit(main())
