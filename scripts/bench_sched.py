#!/usr/bin/env python3
"""Scheduler instructions per IO, counted by callgrind (repeatable on a noisy machine).

Runs build/bench_sched with N and 2N IOs under `valgrind --tool=callgrind` and
prints (instructions(2N) - instructions(N)) / N: setup cancels out.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

BIN = Path(__file__).resolve().parent.parent / "build" / "bench_sched"


def instructions(n: int) -> int:
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={d}/cg.out", str(BIN), str(n)],
            capture_output=True, text=True, check=False,
        )
        if p.returncode != 0:
            sys.exit(f"bench_sched failed: {p.stderr.strip().splitlines()[-1:]}")
        m = re.search(r"Collected\s*:\s*(\d+)", p.stderr)
        if not m:
            sys.exit("could not read callgrind's instruction count")
        return int(m.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("-n", type=int, default=200_000, help="IOs in the base run (default 200000)")
    a = ap.parse_args()
    i1, i2 = instructions(a.n), instructions(2 * a.n)
    per_io = (i2 - i1) / a.n
    print(f"instructions: N={a.n}: {i1:,}  2N: {i2:,}")
    print(f"scheduler cost: {per_io:.1f} instructions per IO (qos, 64 tenants, 25% writes; target <= 300)")


if __name__ == "__main__":
    main()
