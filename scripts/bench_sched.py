#!/usr/bin/env python3
"""Instructions per IO, counted by callgrind (repeatable on a noisy machine).

Runs build/bench_sched (or --big / --slo / --bw's binary) with N and 2N IOs under `valgrind --tool=callgrind`
and prints two figures, each (instructions(2N) - instructions(N)) / N, so
setup cancels out:

* whole program: every instruction of bench_sched -- the scheduler plus the
  harness that models the reactor and the drive (issue 12's figure);
* scheduler only: the instructions inside the public entry points
  jbof_sched_* (submit, dispatch, complete, complete_batch, next_event_ns) and everything they
  call: the inclusive cost of every call the harness makes into a jbof_sched_* function, read
  from the call edges of the same callgrind profile.  Calls from one jbof_sched_* function to
  another (GCC's `jbof_sched_complete_batch.cold` split, an entry point calling another) are
  inside the outer call's inclusive cost and are not counted twice.  (This replaced
  --toggle-collect=jbof_sched_*, which toggles collection on entry to and exit from EVERY
  matching function, nested ones included: a call into a `.cold` part turned collection off
  inside the scheduler, and the --big and --bw figures came out wrong.)
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

BIN = Path(__file__).resolve().parent.parent / "build" / "bench_sched"
BIN_BIG = BIN.with_name("bench_sched_big")  # -DBENCH_BIG=1: section 79's episodes (--big)
BIN_SLO = BIN.with_name("bench_sched_slo")  # -DBENCH_SLO=1: an SLO reader, a reservation, two buckets (--slo)
BIN_BW = BIN.with_name("bench_sched_bw")  # -DBENCH_BW=1: --big's writes beside a QD-2 reader, one bucket (--bw)
SCHED = "jbof_sched_"


def _sched_inclusive(profile: Path) -> int:
    """Inclusive instructions of the calls from outside jbof_sched_* into it.

    callgrind's format: `fn=` names the caller, `cfn=` the callee of the next
    `calls=` line, whose following line is "<position> <inclusive Ir>".  Names
    are compressed: "(id) name" the first time, "(id)" after."""
    names: dict[str, str] = {}
    fn = cfn = ""
    after_calls = False
    total = 0

    def name(tok: str) -> str:
        m = re.match(r"\((\d+)\)(?:\s+(.*))?$", tok)
        if not m:
            return tok
        if m.group(2):
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), "")

    with open(profile, encoding="utf-8", errors="replace") as f:
        for line in f:
            if after_calls:
                after_calls = False
                if cfn.startswith(SCHED) and not fn.startswith(SCHED):
                    total += int(line.split()[1])
            elif line.startswith("fn="):
                fn = name(line[3:].strip())
            elif line.startswith("cfn="):
                cfn = name(line[4:].strip())
            elif line.startswith("calls="):
                after_calls = True
    return total


def instructions(n: int, binary: Path = BIN) -> tuple[int, int]:
    """(whole program, scheduler entry points inclusive) instructions for n IOs."""
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "cg.out"
        p = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(binary), str(n)],
            capture_output=True, text=True, check=False,
        )
        if p.returncode != 0:
            sys.exit(f"bench_sched failed: {p.stderr.strip().splitlines()[-1:]}")
        m = re.search(r"Collected\s*:\s*(\d+)", p.stderr)
        if not m:
            sys.exit("could not read callgrind's instruction count")
        return int(m.group(1)), _sched_inclusive(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=200_000, help="IOs in the base run (default 200000)")
    ap.add_argument("--jobs", type=int, default=2, help="callgrind runs at once (default 2)")
    ap.add_argument("--big", action="store_true",
                    help="build/bench_sched_big: one write in 16 of 1 MiB, so section 79's write-debt episodes open")
    ap.add_argument("--slo", action="store_true",
                    help="build/bench_sched_slo: 12 tenants, an SLO reader (300 us) and a 100 MiB/s reservation "
                         "beside ten best-effort tenants, so qos runs two buckets")
    ap.add_argument("--bw", action="store_true",
                    help="build/bench_sched_bw: --big's 1 MiB writes beside 12 tenants, one a best-effort QD-2 4 KiB "
                         "reader (latency-bound), one bucket, so section 79's bw_serve walks the round")
    a = ap.parse_args()
    if a.big + a.slo + a.bw > 1:
        ap.error("--big, --slo and --bw are separate binaries: give one")
    binary = BIN_BIG if a.big else BIN_SLO if a.slo else BIN_BW if a.bw else BIN
    with ThreadPoolExecutor(max(1, a.jobs)) as ex:
        (w1, s1), (w2, s2) = ex.map(lambda k: instructions(k, binary=binary), (a.n, 2 * a.n))
    whole, sched = (w2 - w1) / a.n, (s2 - s1) / a.n
    print(f"instructions: N={a.n}: {w1:,}  2N: {w2:,} (whole program); {s1:,}  {s2:,} (jbof_sched_* inclusive)")
    mix = ("64 tenants, 25% writes, 1/16 of them 1 MiB" if a.big else
           "12 tenants: an SLO reader, a reservation, 10 best-effort at 25% writes; two buckets" if a.slo else
           "12 tenants: a QD-2 4 KiB reader, 11 at 25% writes, 1/16 of them 1 MiB; one bucket" if a.bw else
           "64 tenants, 25% writes")
    print(f"whole program:  {whole:.1f} instructions per IO (scheduler + harness; qos, {mix})")
    print(f"scheduler only: {sched:.1f} instructions per IO (jbof_sched_* entry points, inclusive); "
          f"harness {whole - sched:.1f}")


if __name__ == "__main__":
    main()
