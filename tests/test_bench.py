"""The live harness (`jbof bench`, control/bench/runner.py, control/bench/fio.py, control/bench/report.py).

Unit tests: scenario workloads -> fio job files (keys, phases, rates), fio's
output read back, backends and device mapping, one-line errors.  Integration
(fio + the C core): a two-tenant scenario live with fifo and qos, the report
and its plots, the nbdkit peers, and a running daemon through --socket.
Every live run is short (0.5-2 s) and every loop is bounded.
"""
from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from control.bench.live import Backend, live_model, ns_size, parse_backend
from control.bench.runner import plan
from control.cli import main
from control.errors import ConfigError
from control.bench.fio import (
    demand_bytes,
    job_file,
    parse_output,
    phase_spans,
    read_bw_logs,
)
from control.scenario import load_scenario, parse_scenario

MS = 1_000_000
S = 1_000_000_000
MIB = 1 << 20


def scenario(text: str) -> Any:
    import yaml
    return parse_scenario(yaml.safe_load(textwrap.dedent(text)), "t.yaml")


def tenant(workload: str, phases: str = "", extra: str = "") -> Any:
    """One tenant from YAML flow snippets (workload, phases, other tenant keys)."""
    import yaml
    t: dict[str, Any] = {"name": "a", "workload": yaml.safe_load(workload)}
    if phases:
        t["phases"] = yaml.safe_load(phases)
    if extra:
        t.update(yaml.safe_load("{" + extra + "}"))
    return parse_scenario({"tenants": [t]}, "t.yaml").tenants[0]


def options(text: str) -> list[dict[str, str]]:
    """A job file as one dict per section (the global one first)."""
    out: list[dict[str, str]] = []
    for line in text.splitlines():
        if line.startswith("["):
            out.append({"_name": line.strip("[]")})
        elif "=" in line:
            k, _, v = line.partition("=")
            out[-1][k] = v
    return out


# ------------------------------------------------------------- job files ---

def test_job_file_translates_the_workload_keys() -> None:
    t = tenant("{rw: randrw, rwmixread: 70, bssplit: '4k/50:16k/30:64k/20', iodepth: 16, "
               "rate: 100MiB/s, thinktime: 50us}")
    g, j = options(job_file(t, "nbd+unix:///a?socket=/s", 2 * S, seed=7, size_bytes=64 * MIB,
                            log_prefix="/tmp/x/a"))
    assert g["ioengine"] == "nbd" and g["uri"] == "nbd+unix:///a?socket=/s"
    assert g["time_based"] == "1" and g["randseed"] == "7" and g["size"] == str(64 * MIB)
    assert g["write_bw_log"] == "/tmp/x/a" and g["log_unix_epoch"] == "1"
    assert j["rw"] == "randrw" and j["rwmixread"] == "70" and j["iodepth"] == "16"
    assert j["bssplit"] == "4096/50:16384/30:65536/20"
    # one budget in the scenario, per direction in fio: 70% reads, 30% writes
    assert j["rate"] == f"{100 * MIB * 70 // 100},{100 * MIB - 100 * MIB * 70 // 100}"
    assert j["thinktime"] == "50us" and j["runtime"] == "2000000us" and "startdelay" not in j


def test_job_file_pure_modes_and_iops() -> None:
    t = tenant("{rw: write, bs: 128k, iodepth: 32, rate_iops: 2k}")
    _, j = options(job_file(t, "u", S, seed=1, size_bytes=MIB, offset_bytes=4 * MIB))
    assert (j["rw"], j["bs"], j["rate_iops"]) == ("write", "131072", "2000")
    assert "rwmixread" not in j
    assert options(job_file(t, "u", S, seed=1, size_bytes=MIB, offset_bytes=4 * MIB))[0][
        "offset"] == str(4 * MIB)


def test_looping_phases_become_one_job_each() -> None:
    # training.yaml's trainer-input: 150 ms reading, 100 ms computing, looped
    t = tenant("{rw: randread, bs: 128k, iodepth: 16}",
               "[{duration: 150ms}, {duration: 100ms, idle: true}]", "loop_phases: true")
    spans = phase_spans(t.workload, 1 * S)
    assert [(s.start_ns // MS, s.duration_ns // MS) for s in spans] == \
        [(0, 150), (250, 150), (500, 150), (750, 150)]
    jobs = options(job_file(t, "u", 1 * S, seed=1, size_bytes=MIB))[1:]
    assert [j.get("startdelay") for j in jobs] == [None, "250000us", "500000us", "750000us"]
    assert all(j["runtime"] == "150000us" for j in jobs)


def test_phases_startdelay_runtime_and_an_open_last_phase() -> None:
    t = tenant("{rw: read, bs: 4k, startdelay: 1s, runtime: 2s}",
               "[{duration: 500ms, rw: write, bs: 1m}, {idle: true, duration: 200ms}, "
               "{rw: randread}]")
    spans = phase_spans(t.workload, 4 * S)
    assert [(s.start_ns // MS, s.duration_ns // MS, s.phase.rw) for s in spans] == \
        [(1000, 500, "write"), (1700, 1300, "randread")]        # cut at startdelay + runtime
    assert phase_spans(t.workload, 1200 * MS)[-1].duration_ns == 200 * MS   # cut by the run


def test_too_many_phase_jobs_is_one_line() -> None:
    t = tenant("{rw: read}", "[{duration: 10ms}, {duration: 10ms, idle: true}]",
               "loop_phases: true")
    with pytest.raises(ConfigError) as e:
        phase_spans(t.workload, 5 * S, "t.yaml", "tenants[0]")
    assert str(e.value).startswith("t.yaml: tenants[0].phases: needs more than 64 fio jobs")


def test_demand_of_open_loop_phases() -> None:
    t = tenant("{rw: randread, bs: 4k, rate: 10MiB/s}",
               "[{duration: 1s}, {duration: 1s, idle: true}]", "loop_phases: true")
    assert demand_bytes(t.workload, 4 * S) == pytest.approx(2 * 10 * MIB)


# ----------------------------------------------------------------- output ---

FIO_JSON = {"jobs": [
    {"jobname": "a.p0", "error": 0, "job_runtime": 1010,
     "read": {"io_bytes": 4096 * 98, "total_ios": 98,
              "clat_ns": {"max": 900_000, "bins": {"100000": 97, "900000": 1}}},
     "write": {"io_bytes": 0, "total_ios": 0, "clat_ns": {"max": 0}}},
    {"jobname": "a.p1", "error": 0, "job_runtime": 500,
     "read": {"io_bytes": 0, "total_ios": 0, "clat_ns": {"max": 0}},
     "write": {"io_bytes": 65536 * 2, "total_ios": 2,
               "clat_ns": {"max": 5_000_000, "bins": {"5000000": 1, "100000": 1}}}}]}


def test_fio_output_merges_jobs_and_directions() -> None:
    text = "fio: connected to NBD server\nfio: connected to NBD server\n" + json.dumps(FIO_JSON)
    r = parse_output(text)
    assert (r.read_ios, r.write_ios, r.bytes) == (98, 2, 4096 * 98 + 65536 * 2)
    assert r.bins == {100000: 98, 900000: 1, 5000000: 1}
    lat = r.lat_us()
    assert lat["p50"] == 100.0 and lat["p99"] == 900.0 and lat["max"] == 5000.0
    # the tenant's run: the second job started at 2 s and ran 0.5 s (its drain included)
    assert r.active_s([0, 2 * S], 2 * S) == pytest.approx(2.5)
    assert r.active_s([0, S], 2 * S) == pytest.approx(2.0)


def test_fio_output_without_json_is_one_line() -> None:
    from control.bench.fio import FioError
    with pytest.raises(FioError, match="^fio for tenant a: no JSON"):
        parse_output("fio: connected to NBD server\n", "fio for tenant a")


def test_bandwidth_logs_are_spread_over_bins(tmp_path: Path) -> None:
    log = tmp_path / "a_bw.1.log"
    # KiB/s averaged over the window that ends at each timestamp (ms)
    log.write_text("1100, 1024, 0, 0, 0\n1250, 2048, 0, 0, 0\n1250, 2048, 0, 0, 0\n"
                   "1200, 1024, 1, 0, 0\n")
    bins = read_bw_logs([log], t0_ms=1000, run_s=0.3)
    # read: 1 MiB/s over [1000, 1100], 2 MiB/s over [1100, 1250]; write: 1 MiB/s [1100, 1200]
    assert [round(b / MIB, 3) for b in bins] == [1.0, 3.0, 1.0]
    assert sum(b * 0.1 for b in bins) == pytest.approx((0.1 + 0.3 + 0.1) * MIB)


# ------------------------------------------------------------- live setup ---

def test_backends() -> None:
    assert parse_backend("emulated") == Backend("emulated")
    assert parse_backend("file:/tmp/d.img") == Backend("file", "/tmp/d.img")
    assert str(parse_backend("file:/x")) == "file:/x"
    for bad in ("ram", "file:", "emulated "):
        with pytest.raises(ValueError, match="is not a backend .allowed: emulated, memory, "
                                             "file:PATH."):
            parse_backend(bad)


@pytest.mark.needs_core
def test_device_maps_to_a_preset() -> None:
    base = "tenants: [{name: a, workload: {rw: read}}]\n"
    assert live_model(scenario("device: {model: dct983}\n" + base)) == "dct983"
    assert live_model(scenario("device: {model: dct983, state: fragmented}\n" + base)) == \
        "dct983-fragmented"
    assert live_model(scenario("device: {model: dct983-fragmented, state: clean}\n" + base)) == \
        "dct983"
    assert live_model(scenario("device: {model: sata-ssd, fragmentation: 100%}\n" + base)) == \
        "sata-ssd-fragmented"
    with pytest.raises(ConfigError, match="^t.yaml: device.fragmentation: 40% cannot be "
                                          "emulated live"):
        live_model(scenario("device: {model: dct983, fragmentation: 40%}\n" + base))


def test_namespace_size_is_capped_and_aligned() -> None:
    assert ns_size(tenant("{rw: read, size: 64MiB}")) == 64 * MIB
    assert ns_size(tenant("{rw: read}")) == 1 << 30                  # 8 GiB default, capped
    assert ns_size(tenant("{rw: read, bs: 16k, size: 20000B}")) == 16384


def test_plan_order() -> None:
    sc = scenario("tenants: [{name: a, workload: {}}, {name: b, workload: {}}]")
    runs = plan(sc, ["fifo", "qos"], peers=True)
    assert [r.title for r in runs] == [
        "fifo, solo a", "fifo, solo b", "fifo, shared", "qos, shared",
        "nbdkit, solo a", "nbdkit, solo b", "nbdkit, shared", "nbdkit-rate, shared"]


def test_every_shipped_scenario_is_live_ready(scenario_dir: Path) -> None:
    from control.bench.live import check_live
    for path in sorted(scenario_dir.glob("*.yaml")):
        from control.lending.anticipation import is_cluster_scenario
        if is_cluster_scenario(path):     # a cluster trace: tests/test_bench_lending.py
            continue
        sc = load_scenario(path)
        check_live(sc, sc.duration_ns)
        for t in sc.tenants:
            job_file(t, "nbd+unix:///x?socket=/s", sc.duration_ns, seed=1, size_bytes=ns_size(t))


# -------------------------------------------------------------------- CLI ---

def bench(*args: str) -> Any:
    """``jbof bench`` with one repeat unless asked (CI time is bounded)."""
    extra = [] if "--repeat" in args else ["--repeat", "1"]
    return CliRunner().invoke(main, ["bench", *args, *extra])


def one_error_line(res: Any) -> str:
    assert res.exit_code != 0, res.output
    out = res.output.strip()
    assert "Traceback" not in out and len(out.splitlines()) == 1, out
    return out


@pytest.mark.parametrize("args,expect", [
    (["--backend", "ram"], "Invalid value for '--backend': 'ram' is not a backend"),
    (["--policy", "fast"], "Invalid value for '--policy': 'fast' is not a policy"),
    (["--duration", "10ms"], "Invalid value for '--duration': '10ms' is too short"),
    (["--duration", "soon"], "Invalid value for '--duration': 'soon'"),
    (["--socket", "/tmp/x.sock", "--backend", "memory"], "not both"),
    (["--compare-sim", "--backend", "memory"], ("Invalid value for '--compare-sim': needs the "
                                               "emulated backend")),
])
def test_bad_options_are_one_line(scenario_dir: Path, args: list[str], expect: str) -> None:
    assert expect in one_error_line(bench(str(scenario_dir / "weights.yaml"), *args))


def test_bad_scenarios_are_one_line(tmp_path: Path) -> None:
    assert "no such file" in one_error_line(bench(str(tmp_path / "nope.yaml")))
    p = tmp_path / "s.yaml"
    p.write_text("tenants: [{name: a, workload: {rw: read, bs: 4x}}]\n")
    assert "tenants[0].workload.bs: '4x' is not a size" in one_error_line(bench(str(p)))
    p.write_text("cluster: {}\ntenants: []\n")     # a cluster trace: replayed live
    assert "tenants: unknown key" in one_error_line(bench(str(p), "--no-tune"))


@pytest.mark.needs_core
def test_unsupported_live_device_is_one_line(tmp_path: Path) -> None:
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed")
    p = tmp_path / "s.yaml"
    p.write_text("device: {model: dct983, fragmentation: 40%}\n"
                 "tenants: [{name: a, workload: {rw: read}}]\n")
    assert "device.fragmentation: 40% cannot be emulated live" in one_error_line(bench(str(p)))


def test_no_daemon_is_one_line(tmp_path: Path, scenario_dir: Path) -> None:
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed")
    out = one_error_line(bench(str(scenario_dir / "weights.yaml"), "--socket",
                               str(tmp_path / "none.sock")))
    assert "no admin socket at" in out


# ------------------------------------------------------------- live runs ---

TWO = """\
name: kv-vs-checkpoint
description: a latency-sensitive reader next to a capped checkpoint writer
device: {model: dct983, state: fragmented}
duration: 2s
seed: 1
tenants:
  - name: kv
    latency_slo: 500us
    workload: {rw: randread, bs: 4k, iodepth: 2}
  - name: ckpt
    limit: 64MiB/s
    workload: {rw: write, bs: 1m, iodepth: 16}
"""


# fio times a job with its own clock (clocksource=cpu: the TSC calibrated against the system
# clock at its start, else CLOCK_MONOTONIC_RAW); the data plane's queued time runs on
# CLOCK_MONOTONIC, which NTP slews by at most 500 ppm.  A second of one reads as 1 s +- 1000 ppm
# of the other (500 ppm slew + fio's calibration: its 50 samples here span 400 ppm,
# `fio --debug=time`), so queued_s <= busy_s holds to 0.1% of busy_s (control.bench.runner's
# _busy_s already takes fio's whole-ms job_runtime at its upper bound).
CLOCK_RATE_SLACK = 1e-3


def queued_within_busy(t: dict) -> bool:
    return 0.0 <= t["queued_s"] <= t["busy_s"] * (1 + CLOCK_RATE_SLACK)


def read_cost(policy: str, read_bytes: int, bs: int) -> int:
    """cost_bytes of read_bytes of bs-byte reads under the policy's cost model (csrc/cost.c)."""
    from dataplane.sim import default_sched_cfg
    c = default_sched_cfg(policy)["cost"]
    return read_bytes // bs * c["read_base_bytes"] + read_bytes * c["read_per_byte_x256"] // 256


def live_prereqs() -> None:
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed")
    pytest.importorskip("dataplane.engine", reason="C core not built (make build)")


@pytest.mark.needs_core
def test_qos_beats_fifo_live(tmp_path: Path) -> None:
    """fio against the emulated fragmented drive, 2 s per run (4 runs).

    Under fifo the writer's 1 MiB writes (garbage collection) hold up the
    reader; under qos the writer is held to its limit and the reader is
    served first.  Measured on a loaded 2-core machine: Jain 0.69-0.78
    (fifo) vs 0.83-0.90 (qos), reader p99 6.5-9 ms vs 4-5 ms (the rest of
    qos's p99 is the client's CPU, not the drive)."""
    live_prereqs()
    p = tmp_path / "two.yaml"
    p.write_text(TWO)
    out = tmp_path / "out"
    res = bench(str(p), "-p", "fifo,qos", "--no-peers", "--json", "--out", str(out))
    assert res.exit_code == 0, res.output
    docs = {d["policy"]: d for d in json.loads(res.stdout)}
    fifo, qos = docs["fifo"], docs["qos"]
    assert fifo["mode"] == qos["mode"] == "live" and qos["duration_s"] == 2.0
    kv = {d: next(t for t in docs[d]["tenants"] if t["name"] == "kv") for d in docs}
    assert qos["jain"] > fifo["jain"], (qos["jain"], fifo["jain"])
    assert kv["qos"]["lat_us"]["p99"] < kv["fifo"]["lat_us"]["p99"], \
        (kv["qos"]["lat_us"], kv["fifo"]["lat_us"])
    for d in docs.values():
        for t in d["tenants"]:
            assert t["iops"] > 0 and t["solo_bw_bytes"] > 0 and t["share"] is not None
            # fio's bytes against the data plane's counters
            assert t["dp_bytes"] > 0 and abs(t["fio_vs_dp"]) <= 0.02, t
            # as the simulator's documents: active time, and time with IO waiting at the scheduler
            assert 2.0 <= t["busy_s"] < 3.0, t
            assert queued_within_busy(t), (d["policy"], t["name"], t["queued_s"], t["busy_s"])
            # ... and the cost of its completed IO (read-byte equivalents): a write costs at
            # least its bytes (write factor >= 1)
            assert t["cost_bytes"] >= t["dp_bytes"] > 0, (t["cost_bytes"], t["dp_bytes"])
        # the reader's cost is its bytes at the read price: 4 KiB reads, a command's base each
        kv_d = next(t for t in d["tenants"] if t["name"] == "kv")
        assert kv_d["cost_bytes"] == read_cost(d["policy"], kv_d["dp_bytes"], 4096), kv_d
    # the writer held to its limit by qos waits at the scheduler most of its run
    ckpt = next(t for t in qos["tenants"] if t["name"] == "ckpt")
    assert ckpt["queued_s"] > 0.5 * ckpt["busy_s"], ckpt
    # the report and its plots
    text = (out / "report.md").read_text()
    for word in ("## Summary", "## SLO verdicts", "**kv** p99 <= 500us", "limit 64.0MiB/s",
                 "## fifo", "## qos", "bandwidth.png", "latency_cdf.png", "shares.png"):
        assert word in text, word
    for png in ("bandwidth.png", "latency_cdf.png", "shares.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    saved = json.loads((out / "results.json").read_text())
    assert [d["policy"] for d in saved["live"]] == ["fifo", "qos"]
    assert sorted(f.name for f in (out / "runs" / "run03-fifo-shared").glob("*.fio")) == \
        ["ckpt.fio", "kv.fio"]


SMALL = """\
name: small
duration: 600ms
tenants:
  - name: r
    workload: {rw: randread, bs: 4k, iodepth: 4, size: 16MiB}
  - name: w
    workload: {rw: write, bs: 64k, iodepth: 4, size: 16MiB}
"""


@pytest.mark.needs_core
def test_peers_and_compare_sim(tmp_path: Path) -> None:
    """One policy on the emulated drive, the sim beside it, and the nbdkit peers."""
    live_prereqs()
    if shutil.which("nbdkit") is None:
        pytest.skip("nbdkit is not installed")
    p = tmp_path / "small.yaml"
    p.write_text(SMALL)
    res = bench(str(p), "-p", "qos", "--compare-sim", "--out", str(tmp_path / "o"))
    assert res.exit_code == 0, res.output
    for word in ("small  policy=qos  live", "policy=nbdkit  live", "policy=nbdkit-rate  live",
                 "bw live/sim", "run 7/7: nbdkit-rate, shared"):
        assert word in res.output, word
    saved = json.loads((tmp_path / "o" / "results.json").read_text())
    live = {d["policy"]: d for d in saved["live"]}
    assert set(live) == {"qos", "nbdkit", "nbdkit-rate"}
    assert saved["sim"][0]["mode"] == "sim" and live["qos"]["vs_sim"]["jain"] is not None
    assert all(t["vs_sim"]["bw"] > 0 for t in live["qos"]["tenants"])
    caps = live["nbdkit-rate"]["device"]["caps_bps"]
    solo = {t["name"]: t["solo_bw_bytes"] for t in live["nbdkit"]["tenants"]}
    assert caps == pytest.approx({n: bw / 2 for n, bw in solo.items()}, rel=1e-3)
    assert "dp_bytes" not in live["nbdkit"]["tenants"][0]
    assert "queued_s" not in live["nbdkit"]["tenants"][0]    # nbdkit has no scheduler to ask
    assert all(queued_within_busy(t) for t in live["qos"]["tenants"]), live["qos"]["tenants"]
    assert "cost_bytes" not in live["nbdkit"]["tenants"][0]
    assert "## Peers (nbdkit)" in (tmp_path / "o" / "report.md").read_text()


@pytest.mark.needs_core
def test_running_daemon_through_the_admin_socket() -> None:
    """--socket: policy switched live, tenant settings set for each run and put back."""
    live_prereqs()
    from control_helpers import daemon
    cfg = """\
    drives: [{name: d0, backend: memory, size: 64MiB, policy: gimbal}]
    tenants:
      - {name: r, size: 16MiB, weight: 3}
      - {name: w, size: 16MiB}
    """
    with daemon(cfg) as d:
        p = d.dir / "small.yaml"
        p.write_text(SMALL.replace("600ms", "500ms"))
        before = d.config_path.read_bytes()
        res = bench(str(p), "-p", "fifo,qos", "--socket", d.admin, "--no-peers", "--json",
                    "--repeat", "2")
        assert res.exit_code == 0, res.output
        docs = json.loads(res.stdout)
        assert [x["policy"] for x in docs] == ["fifo", "qos"]
        assert all(x["repeat"]["n"] == 2 and isinstance(x["unreliable"], list) for x in docs)
        # its temporary changes are never persisted: no state file, the config untouched
        assert d.config_path.read_bytes() == before and not d.state_path.exists()
        assert all(t["dp_bytes"] > 0 for x in docs for t in x["tenants"])
        # the daemon's counters run on across runs: each document has its own run's (queued
        # time, bytes and cost differenced alike, or the reader's read price would not match)
        for x in docs:
            for t in x["tenants"]:
                assert queued_within_busy(t), (x["policy"], t["name"], t["queued_s"], t["busy_s"])
            by = {t["name"]: t for t in x["tenants"]}
            assert by["r"]["cost_bytes"] == read_cost(x["policy"], by["r"]["dp_bytes"], 4096), \
                (x["policy"], by["r"])
            assert by["w"]["cost_bytes"] >= by["w"]["dp_bytes"], (x["policy"], by["w"])
        with d.client() as c:       # the daemon's own settings are back
            rows = {t["name"]: t for t in c.call("tenant.list")["tenants"]}
            drive = c.call("drive.list")["drives"][0]
        assert rows["r"]["weight"] == 3 and rows["w"]["weight"] == 1
        assert drive["policy"] == "gimbal"


# ------------------------------------------------- stopping what it started ---

def test_a_failing_fio_stops_the_others(tmp_path: Path) -> None:
    """One tenant's fio fails at once; the other (30 s of fio's null engine) is stopped."""
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed")
    import time

    from control.bench.fio import FioError, run_all
    good, bad = tmp_path / "good.fio", tmp_path / "bad.fio"
    good.write_text("[g]\nioengine=null\nsize=1m\ntime_based=1\nruntime=30\nrate_iops=100\n")
    bad.write_text("[b]\nioengine=nbd\nuri=nbd+unix:///x?socket=/nonexistent.sock\nsize=1m\n")
    t0 = time.monotonic()
    with pytest.raises(FioError, match="^fio for tenant bad failed .exit 1.: .*nbd"):
        run_all({"good": good, "bad": bad}, tmp_path, timeout_s=60)
    assert time.monotonic() - t0 < 15
    assert not any(Path(f"/proc/{pid}").exists() and "fio" in Path(f"/proc/{pid}/comm")
                   .read_text() for pid in _children())


def test_a_stop_while_fio_starts_stops_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGINT right after the first fio started, before the next is started (the
    moment test_interrupt_stops_everything aims at): run_all raises KeyboardInterrupt
    only once every fio it started is registered, and stops them all."""
    import os
    import signal

    from control.bench import fio as fiomod
    sleeper = tmp_path / "fakefio"
    sleeper.write_text("#!/bin/sh\nexec sleep 30\n")
    sleeper.chmod(0o755)
    started: list[fiomod.FioProcess] = []
    real = fiomod.FioProcess.__init__

    def init(self: fiomod.FioProcess, *a: object, **k: object) -> None:
        real(self, *a, **k)             # type: ignore[arg-type]
        started.append(self)
        if len(started) == 1:
            os.kill(os.getpid(), signal.SIGINT)
    monkeypatch.setattr(fiomod.FioProcess, "__init__", init)
    jobs = {n: tmp_path / f"{n}.fio" for n in ("a", "b")}
    old = signal.signal(signal.SIGINT, signal.default_int_handler)   # ignored in a background suite
    try:
        with pytest.raises(KeyboardInterrupt):
            fiomod.run_all(jobs, tmp_path, timeout_s=60, fio=str(sleeper))
    finally:
        signal.signal(signal.SIGINT, old)
    assert len(started) == 2
    assert all(p.proc.poll() is not None for p in started)


def _children() -> list[int]:
    import os
    me = str(os.getpid())
    out = []
    for d in Path("/proc").iterdir():
        try:
            if d.name.isdigit() and (d / "stat").read_text().rsplit(")", 1)[1].split()[1] == me:
                out.append(int(d.name))
        except (OSError, IndexError):
            continue
    return out


@pytest.mark.needs_core
@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_interrupt_stops_everything(tmp_path: Path, sig: str) -> None:
    """Ctrl-C (or SIGTERM) in the middle of a run: exit 130, no fio left, no temp files."""
    live_prereqs()
    import os
    import signal
    import subprocess
    import sys
    import time
    p = tmp_path / "small.yaml"
    p.write_text(SMALL)
    env = dict(os.environ, TMPDIR=str(tmp_path))
    # SIGINT at its default in the child (Python then raises KeyboardInterrupt): a suite
    # started in the background inherits it ignored, and the bench with it
    proc = subprocess.Popen([sys.executable, "-m", "control.cli", "bench", str(p), "-p", "fifo",
                             "--backend", "memory", "--duration", "20s", "--no-peers", "--repeat", "1"],
                            stderr=subprocess.PIPE, text=True, env=env,
                            cwd=Path(__file__).resolve().parent.parent,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    kids: list[str] = []
    deadline = time.monotonic() + 20
    while not kids and time.monotonic() < deadline:      # wait for the first fio
        time.sleep(0.2)
        kids = subprocess.run(["pgrep", "-P", str(proc.pid), "fio"], capture_output=True,
                              text=True, check=False).stdout.split()
    assert kids, "no fio started"
    proc.send_signal(getattr(signal, sig))
    assert proc.wait(timeout=30) == 130
    err = proc.stderr.read() if proc.stderr else ""
    assert "interrupted" in err and "Traceback" not in err, err
    assert not any(Path(f"/proc/{k}").exists() for k in kids)
    assert not list(tmp_path.glob("jbof-bench-*"))


def test_bench_sched_counts_the_scheduler_from_call_edges(tmp_path: Path) -> None:
    """scripts/bench_sched.py's scheduler-only figure is the inclusive cost of
    the harness's calls into jbof_sched_*: a call from one jbof_sched_*
    function into another (GCC's .cold part) is inside the outer call and is
    not counted again -- the nesting --toggle-collect got wrong."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "bench_sched", Path(__file__).resolve().parent.parent / "scripts" / "bench_sched.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    profile = tmp_path / "cg.out"
    profile.write_text(textwrap.dedent("""\
        events: Ir
        fn=(1) main
        10 50
        cfn=(2) jbof_sched_complete_batch
        calls=3 100
        11 900
        cfn=(3) jbof_sched_submit
        calls=1 200
        +1 40
        fn=(2)
        100 700
        cfn=(4) jbof_sched_complete_batch.cold
        calls=2 300
        +2 200
        fn=(4)
        300 200
        fn=(5) helper
        5 7
        cfn=(3)
        calls=1 200
        6 60
        """))
    assert mod._sched_inclusive(profile) == 900 + 40 + 60
