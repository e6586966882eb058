#!/usr/bin/env python3
"""One reactor vs several: aggregate NBD throughput (``make bench-reactors``).

Two memory drives, one tenant each, served by an in-process Engine with
engine.reactors = 1 or 2 (csrc/reactor.h section 7; with 2, drive i runs on
reactor i).  One fio (nbd engine, 4 KiB random reads, --jobs connections per
tenant, iodepth 32, --runtime seconds) drives both tenants at once.  Runs
alternate 1, 2, 1, 2, ...; the result is the median aggregate IOPS of each and
their ratio, with the cores each side used while fio ran (the server's CPU
time from getrusage(RUSAGE_SELF): the reactors are this process's threads;
fio's from RUSAGE_CHILDREN), so a ratio bounded by the cores fio leaves the
server is visible as such.

Pinning: with --pin (default), reactor i is pinned to CPU i of --server-cpus
and fio runs under ``taskset -c --client-cpus``.  On a 2-core machine server
and client cannot be kept apart: both default to all CPUs, so the ratio is
bounded by the client's share of the cores -- report it as such.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dataplane.engine import Engine  # noqa: E402

MIB = 1 << 20


def cpu_list(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def cpu_s(who: int) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def one_run(reactors: int, args: argparse.Namespace, tmp: str) -> tuple[float, float, float]:
    sock = os.path.join(tmp, f"r{reactors}.sock")
    cpus = cpu_list(args.server_cpus)
    eng_cfg: dict[str, object] = {"reactors": cpus[:reactors] if args.pin else reactors}
    if args.pin and len(cpus) < reactors:
        eng_cfg["reactors"] = reactors
    eng = Engine({"drives": [{"name": f"d{i}", "backend": "memory", "size": 256 * MIB,
                              "policy": args.policy} for i in range(2)],
                  "tenants": [{"name": f"t{i}", "drive": f"d{i}", "size": 128 * MIB}
                              for i in range(2)],
                  "listen": {"unix": sock}, "engine": eng_cfg})
    with eng:
        jobs = "".join(f"[t{i}]\nuri=nbd+unix:///t{i}?socket={sock}\nnumjobs={args.jobs}\n"
                       for i in range(2))
        job = Path(tmp, "r.fio")
        job.write_text("[global]\nioengine=nbd\nrw=randread\nbs=4k\niodepth=32\n"
                       f"time_based=1\nruntime={args.runtime}\nramp_time=1\nsize=128m\n"
                       "group_reporting=0\nnorandommap=1\n" + jobs)
        out = Path(tmp, "r.json")
        argv = ["fio", str(job), "--output-format=json", f"--output={out}"]
        if args.pin and args.client_cpus:
            argv = ["taskset", "-c", args.client_cpus] + argv
        t0, s0, c0 = time.monotonic(), cpu_s(resource.RUSAGE_SELF), cpu_s(resource.RUSAGE_CHILDREN)
        r = subprocess.run(argv, capture_output=True, text=True, cwd=tmp,
                           timeout=args.runtime + 60, check=False)
        wall = time.monotonic() - t0
        server = (cpu_s(resource.RUSAGE_SELF) - s0) / wall
        client = (cpu_s(resource.RUSAGE_CHILDREN) - c0) / wall
        if r.returncode != 0:
            raise RuntimeError(f"fio failed: {r.stderr[-1000:]}")
        doc = json.loads(out.read_text())
        iops = sum(j["read"]["iops"] for j in doc["jobs"])
        per = [eng.reactor_stats(i)["requests"] for i in range(reactors)]
    print(f"  reactors={reactors}: {iops / 1e3:8.1f} K IOPS  server {server:.2f} cores, "
          f"fio {client:.2f} cores  (requests per reactor: {per})", flush=True)
    return iops, server, client


def main() -> int:
    ncpu = os.cpu_count() or 1
    allc = f"0-{ncpu - 1}"
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5, help="runs of each (alternating)")
    ap.add_argument("--runtime", type=int, default=5, help="seconds per run")
    ap.add_argument("--jobs", type=int, default=2, help="fio connections per tenant")
    ap.add_argument("--policy", default="qos")
    ap.add_argument("--server-cpus", default=allc, help="CPUs for the reactors (pinned)")
    ap.add_argument("--client-cpus", default=allc, help="CPUs for fio (taskset)")
    ap.add_argument("--no-pin", dest="pin", action="store_false")
    args = ap.parse_args()
    if not shutil.which("fio"):
        print("fio is not installed", file=sys.stderr)
        return 2
    print(f"2 memory drives, 1 tenant each, fio 4k randread iodepth 32, {args.jobs} jobs/tenant, "
          f"{args.runtime}s x {args.reps} alternating runs; server CPUs {args.server_cpus}, "
          f"fio CPUs {args.client_cpus}, pin={args.pin}, {ncpu} CPUs")
    res: dict[int, list[tuple[float, float, float]]] = {1: [], 2: []}
    tmp = tempfile.mkdtemp(prefix="jbof-br-", dir="/tmp")
    try:
        for _ in range(args.reps):
            for n in (1, 2):
                res[n].append(one_run(n, args, tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    med = {n: [statistics.median(x[k] for x in res[n]) for k in range(3)] for n in res}
    (m1, s1, c1), (m2, s2, c2) = med[1], med[2]
    print(f"median IOPS: 1 reactor {m1 / 1e3:.1f} K, 2 reactors {m2 / 1e3:.1f} K; "
          f"ratio 2/1 = {m2 / m1:.2f}")
    print(f"median cores while fio ran: server {s1:.2f} (1 reactor) vs {s2:.2f} (2 reactors), "
          f"fio {c1:.2f} vs {c2:.2f}, of {ncpu}; server CPU per IO {s1 / m1 * 1e6:.2f} vs "
          f"{s2 / m2 * 1e6:.2f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
