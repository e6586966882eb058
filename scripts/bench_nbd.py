#!/usr/bin/env python3
"""Benchmark the live NBD target against nbdkit's memory plugin (``make bench-nbd``).

Same fio job for both servers (fio's nbd engine over a unix socket), runs
alternate ours / nbdkit, medians of --reps runs:

    4k-randread   1 tenant,  4 KiB random reads, iodepth 32
    4-tenants     4 tenants (nbdkit: 4 connections to its one export), 4 KiB, iodepth 32 each
    128k-randread 1 tenant,  128 KiB random reads, iodepth 32

Ours is `jbof serve` with a memory drive and the qos policy (configs/memory.yaml
shape).  CPU time per IO is the server process's utime+stime (/proc/PID/stat,
all threads) over the run divided by the IOs fio completed.

Then (unless --no-qos) the QoS demo on the emulated drive: a 4 KiB random
reader and a 128 KiB sequential writer, each alone, then together under fifo
and qos; shares are throughput over solo throughput, Jain's index over the
two shares (the simulator's read-vs-write scenario).  The default model is
dct983-fragmented: fio's nbd engine pushes only ~300 MiB/s of 128 KiB writes
per job on a small machine, which a clean dct983 absorbs without
interference, while a fragmented one (garbage collection) is saturated.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


class Server:
    """A server process serving NBD on a unix socket."""

    def __init__(self, argv: list[str], sock: str, lines: int) -> None:
        self.sock = sock
        self.p = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True)
        assert self.p.stdout is not None and self.p.stderr is not None
        self.err = self.p.stderr
        for _ in range(lines):  # jbof serve prints its URIs once it accepts
            if not self.p.stdout.readline():
                raise RuntimeError(f"{argv[0]} failed: {self.err.read()[-500:]}")
        deadline = time.monotonic() + 10
        while not os.path.exists(sock):
            if time.monotonic() > deadline or self.p.poll() is not None:
                raise RuntimeError(f"{argv} did not start: {self.err.read()[-500:]}")
            time.sleep(0.05)

    def cpu(self) -> float:
        return cpu_seconds(self.p.pid)

    def stop(self) -> None:
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()


def jbof_server(tmp: str, name: str, yaml_text: str, ntenants: int) -> Server:
    cfg = Path(tmp, f"{name}.yaml")
    cfg.write_text(yaml_text)
    sock = os.path.join(tmp, f"{name}.sock")
    return Server([sys.executable, "-m", "control.cli", "serve", "--config", str(cfg),
                   "--unix", sock], sock, ntenants)


def nbdkit_server(tmp: str, name: str) -> Server:
    sock = os.path.join(tmp, f"{name}.sock")
    return Server(["nbdkit", "-f", "-U", sock, "memory", "1G"], sock, 0)


def run_fio_json(tmp: str | Path, name: str, text: str, runtime: float) -> dict[str, Any]:
    """Run the fio job file ``text`` (as tmp/NAME.fio); its JSON output, parsed."""
    job = Path(tmp, f"{name}.fio")
    job.write_text(text)
    out = Path(tmp, f"{name}.json")
    r = subprocess.run(["fio", str(job), "--output-format=json", f"--output={out}"],
                       capture_output=True, text=True, timeout=runtime * 4 + 60)
    if r.returncode != 0:
        raise RuntimeError(f"fio failed: {r.stderr[-800:]}")
    return json.loads(out.read_text())


def run_fio(tmp: str, jobs: list[tuple[str, str]], runtime: float, extra: str = "") -> dict[str, Any]:
    """jobs: (name, uri).  Returns per-job results and the totals."""
    text = (f"[global]\nioengine=nbd\ntime_based=1\nruntime={runtime}\nramp_time=0.5\n"
            f"group_reporting=0\n{extra}")
    text += "".join(f"[{n}]\nuri={u}\n" for n, u in jobs)
    doc = run_fio_json(tmp, "job", text, runtime)
    res: dict[str, Any] = {"jobs": {}}
    for j in doc["jobs"]:
        side = j["read"] if j["read"]["total_ios"] else j["write"]
        res["jobs"][j["jobname"]] = {
            "iops": side["iops"], "bw_bytes": side["bw_bytes"],
            "ios": j["read"]["total_ios"] + j["write"]["total_ios"],
            "p99_us": side["clat_ns"]["percentile"].get("99.000000", 0) / 1000,
            "errors": j["error"]}
    res["iops"] = sum(v["iops"] for v in res["jobs"].values())
    res["bw_bytes"] = sum(v["bw_bytes"] for v in res["jobs"].values())
    res["ios"] = sum(v["ios"] for v in res["jobs"].values())
    if any(v["errors"] for v in res["jobs"].values()):
        raise RuntimeError(f"fio reported errors: {res['jobs']}")
    return res


def memory_yaml(tenants: int, policy: str = "qos") -> str:
    t = "".join(f"  - {{name: t{i}, drive: mem0, size: {1024 // tenants}MiB}}\n"
                for i in range(tenants))
    return (f"drives: [{{name: mem0, backend: memory, size: 1GiB, policy: {policy}}}]\n"
            f"tenants:\n{t}")


CASES = {
    "4k-randread": (1, "rw=randread\nbs=4k\niodepth=32\n"),
    "4-tenants": (4, "rw=randread\nbs=4k\niodepth=32\n"),
    "128k-randread": (1, "rw=randread\nbs=128k\niodepth=32\n"),
}


def bench_case(tmp: str, case: str, reps: int, runtime: float) -> dict[str, Any]:
    ntenants, extra = CASES[case]
    ours = jbof_server(tmp, f"jbof-{case}", memory_yaml(ntenants), ntenants)
    kit = nbdkit_server(tmp, f"nbdkit-{case}")
    runs: dict[str, list[dict[str, float]]] = {"jbof": [], "nbdkit": []}
    try:
        for _ in range(reps):
            for name, srv in (("jbof", ours), ("nbdkit", kit)):
                if name == "jbof":
                    jobs = [(f"t{i}", f"nbd+unix:///t{i}?socket={srv.sock}") for i in range(ntenants)]
                else:
                    jobs = [(f"t{i}", f"nbd+unix:///?socket={srv.sock}") for i in range(ntenants)]
                c0, w0 = srv.cpu(), time.monotonic()
                r = run_fio(tmp, jobs, runtime, extra + "size=1g\n" if ntenants == 1
                            else extra + f"size={1024 // ntenants}m\n")
                cpu = srv.cpu() - c0
                wall = time.monotonic() - w0
                runs[name].append({"iops": r["iops"], "bw_bytes": r["bw_bytes"],
                                   "cpu_us_per_io": cpu / max(r["ios"], 1) * 1e6,
                                   "cpu_cores": cpu / wall})
    finally:
        ours.stop()
        kit.stop()
    out: dict[str, Any] = {"case": case}
    for name, rs in runs.items():
        out[name] = {k: statistics.median(x[k] for x in rs) for k in rs[0]}
        out[name]["runs_iops"] = [round(x["iops"]) for x in rs]
    out["iops_ratio"] = out["jbof"]["iops"] / out["nbdkit"]["iops"]
    out["cpu_ratio"] = out["jbof"]["cpu_us_per_io"] / out["nbdkit"]["cpu_us_per_io"]
    return out


def qos_demo(tmp: str, runtime: float, model: str) -> dict[str, Any]:
    """Emulated drive: reader (4k randread qd32) vs writer (128k write qd32),
    each alone, then together under fifo and qos."""
    res: dict[str, Any] = {}
    for run in ("reader-solo", "writer-solo", "fifo", "qos"):
        policy = run if run in ("fifo", "qos") else "qos"
        yaml_text = (f"drives: [{{name: ssd0, backend: emulated, model: {model}, size: 8GiB, "
                     f"policy: {policy}}}]\n"
                     "tenants:\n  - {name: reader, size: 4GiB}\n  - {name: writer, size: 4GiB}\n")
        srv = jbof_server(tmp, f"qos-{run}", yaml_text, 2)
        try:
            sock = srv.sock
            text = f"[global]\nioengine=nbd\ntime_based=1\nruntime={runtime}\nramp_time=1\n"
            if run != "writer-solo":
                text += (f"[reader]\nuri=nbd+unix:///reader?socket={sock}\nrw=randread\nbs=4k\n"
                         "iodepth=32\nsize=4g\n")
            if run != "reader-solo":
                text += (f"[writer]\nuri=nbd+unix:///writer?socket={sock}\nrw=write\nbs=128k\n"
                         "iodepth=32\nsize=4g\n")
            row: dict[str, Any] = {}
            for j in run_fio_json(tmp, "qos", text, runtime)["jobs"]:
                side = j["read"] if j["jobname"] == "reader" else j["write"]
                row[j["jobname"]] = {
                    "iops": side["iops"], "bw_MiBps": side["bw_bytes"] / 2**20,
                    "p99_us": side["clat_ns"]["percentile"].get("99.000000", 0) / 1000}
            res[run] = row
        finally:
            srv.stop()
    solo_r = res["reader-solo"]["reader"]["iops"]
    solo_w = res["writer-solo"]["writer"]["bw_MiBps"]
    for policy in ("fifo", "qos"):
        row = res[policy]
        a = row["reader"]["iops"] / solo_r if solo_r else 0.0
        b = row["writer"]["bw_MiBps"] / solo_w if solo_w else 0.0
        row["reader_share"], row["writer_share"] = a, b
        row["jain"] = (a + b) ** 2 / (2 * (a * a + b * b)) if a or b else 0.0
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5, help="alternating runs per server (median)")
    ap.add_argument("--runtime", type=float, default=3.0, help="seconds per fio run")
    ap.add_argument("--cases", default=",".join(CASES), help="comma list of " + ", ".join(CASES))
    ap.add_argument("--no-qos", action="store_true", help="skip the emulated-drive QoS demo")
    ap.add_argument("--qos-model", default="dct983-fragmented",
                    help="SSD model preset of the QoS demo (default: dct983-fragmented)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = ap.parse_args()
    for tool in ("fio", "nbdkit"):
        if shutil.which(tool) is None:
            print(f"bench_nbd: {tool} is not installed (apt install fio nbdkit)", file=sys.stderr)
            return 2
    tmp = tempfile.mkdtemp(prefix="jbof-bench-", dir="/tmp")
    results: dict[str, Any] = {"cases": [], "reps": args.reps, "runtime_s": args.runtime}
    try:
        print(f"{'case':<15} {'jbof IOPS':>11} {'nbdkit IOPS':>12} {'ratio':>6} "
              f"{'jbof us/IO':>11} {'nbdkit us/IO':>13} {'jbof cores':>11} {'nbdkit cores':>13}")
        for case in args.cases.split(","):
            r = bench_case(tmp, case, args.reps, args.runtime)
            results["cases"].append(r)
            j, k = r["jbof"], r["nbdkit"]
            print(f"{case:<15} {j['iops']:>11.0f} {k['iops']:>12.0f} {r['iops_ratio']:>5.2f}x "
                  f"{j['cpu_us_per_io']:>11.2f} {k['cpu_us_per_io']:>13.2f} "
                  f"{j['cpu_cores']:>11.2f} {k['cpu_cores']:>13.2f}", flush=True)
        if not args.no_qos:
            q = qos_demo(tmp, max(args.runtime, 4.0), args.qos_model)
            results["qos"] = q
            print(f"\nQoS live, emulated {args.qos_model}: reader 4k randread qd32 + "
                  "writer 128k write qd32 (fio)")
            print(f"{'run':<12} {'reader IOPS':>12} {'reader p99':>11} {'writer MiB/s':>13} "
                  f"{'writer p99':>11} {'shares r/w':>11} {'jain':>5}")
            for run in ("reader-solo", "writer-solo", "fifo", "qos"):
                row = q[run]
                rd, wr = row.get("reader"), row.get("writer")
                shares = (f"{row['reader_share']:.2f}/{row['writer_share']:.2f}"
                          if "jain" in row else "-")
                print(f"{run:<12} {rd['iops'] if rd else 0:>12.0f} "
                      f"{(str(round(rd['p99_us'])) + 'us') if rd else '-':>11} "
                      f"{wr['bw_MiBps'] if wr else 0:>13.0f} "
                      f"{(str(round(wr['p99_us'])) + 'us') if wr else '-':>11} {shares:>11} "
                      f"{row.get('jain', 0.0):>5.2f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
