#!/usr/bin/env python3
"""Simulator speed: simulated IOs per second of wall time.

8 closed-loop tenants (4 KiB and 16 KiB random reads, 64 KiB and 128 KiB
writes, mixed) on the dct983 model under a policy (default qos), several
runs, median printed.  The machine is shared: quote the median and the
spread, never one run.  Target: >= 2 million simulated IOs per wall second.
"""
from __future__ import annotations

import argparse
import statistics
import time

from control.simulator import Simulator

WORKLOADS = [
    {"rw": "randread", "bs": "4k", "iodepth": 32},
    {"rw": "randread", "bs": "4k", "iodepth": 8},
    {"rw": "randread", "bs": "16k", "iodepth": 16},
    {"rw": "read", "bs": "128k", "iodepth": 8},
    {"rw": "write", "bs": "128k", "iodepth": 8},
    {"rw": "randwrite", "bs": "4k", "iodepth": 16},
    {"rw": "randrw", "rwmixread": 70, "bs": "8k", "iodepth": 16},
    {"rw": "randread", "bs": "4k", "iodepth": 2},
]


def one_run(policy: str, seconds: float, seed: int) -> tuple[float, int]:
    sim = Simulator(device="dct983", policy=policy, seed=seed)
    for i, w in enumerate(WORKLOADS):
        sim.add_tenant(f"t{i}", w)
    t0 = time.perf_counter()
    sim.run(seconds)
    wall = time.perf_counter() - t0
    ios = sum(sim.tenant_result(f"t{i}").completed for i in range(len(WORKLOADS)))
    return ios / wall, ios


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--policy", default="qos")
    ap.add_argument("--seconds", type=float, default=5.0, help="virtual seconds per run")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    rates = []
    for r in range(a.runs):
        rate, ios = one_run(a.policy, a.seconds, seed=r + 1)
        rates.append(rate)
        print(f"run {r + 1}: {ios:,} IOs in {a.seconds:g} virtual s, {rate / 1e6:.2f} M simulated IOs per wall s")
    med = statistics.median(rates)
    print(f"median {med / 1e6:.2f} M IOs/s (min {min(rates) / 1e6:.2f}, max {max(rates) / 1e6:.2f}), "
          f"policy {a.policy}, 8 tenants; target >= 2.00 M")


if __name__ == "__main__":
    main()
