"""`jbof sim` end to end, and the Simulator plumbing under it (no fairness numbers here:
the QoS property tests own those)."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from dataplane import ABI_VERSION
from click.testing import CliRunner

from control.cli import main
from control.scenario import load_scenario

pytestmark = pytest.mark.needs_core

SMALL = """
name: small
duration: 300ms
tenants:
  - name: reader
    latency_slo: 2ms
    workload: {rw: randread, bs: 4k, iodepth: 8}
  - name: writer
    workload: {rw: write, bs: 128k, iodepth: 8}
"""


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def one_error_line(res) -> str:
    assert res.exit_code != 0
    out = res.output.strip()
    assert "Traceback" not in out
    assert len(out.splitlines()) == 1, out
    return out


def test_table(write_yaml):
    res = run("sim", str(write_yaml(SMALL)))
    assert res.exit_code == 0, res.output
    assert "small  policy=qos" in res.output
    for word in ("tenant", "reader", "writer", "p99", "share", "jain", "utilization"):
        assert word in res.output


def test_json_document(write_yaml):
    res = run("sim", str(write_yaml(SMALL)), "--json", "--policy", "fifo")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert {"scenario", "policy", "mode", "seed", "duration_s", "tenants", "jain", "utilization",
            "device"} <= set(doc)
    assert doc["policy"] == "fifo" and doc["mode"] == "sim" and doc["scenario"] == "small"
    assert doc["duration_s"] == pytest.approx(0.3)
    r, w = doc["tenants"]
    for t in (r, w):
        assert {"name", "iops", "bw_bytes", "lat_us", "solo_bw_bytes", "share", "slo_met"} <= set(t)
        assert set(t["lat_us"]) == {"p50", "p99", "p999", "max"}
        assert t["iops"] > 0 and t["bw_bytes"] > 0 and t["solo_bw_bytes"] > 0
        assert t["share"] == pytest.approx(t["bw_bytes"] / t["solo_bw_bytes"], rel=1e-5)
    assert isinstance(r["slo_met"], bool) and w["slo_met"] is None
    assert doc["utilization"] == pytest.approx(r["share"] + w["share"], rel=1e-5)
    assert 0 < doc["jain"] <= 1
    assert doc["device"]["model"] == "dct983"


def test_several_policies_give_an_array(write_yaml):
    f = str(write_yaml(SMALL))
    res = run("sim", f, "--json", "-p", "fifo,gimbal", "-p", "qos", "-p", "fifo")
    assert res.exit_code == 0, res.output
    docs = json.loads(res.output)
    assert [d["policy"] for d in docs] == ["fifo", "gimbal", "qos"]
    # solo runs are shared: the same baseline for every policy
    assert len({d["tenants"][0]["solo_bw_bytes"] for d in docs}) == 1
    table = run("sim", f, "-p", "fifo,qos")
    assert table.exit_code == 0 and "reader share/p99" in table.output


def test_seed_and_duration_overrides(write_yaml):
    f = str(write_yaml(SMALL))
    a = json.loads(run("sim", f, "--json", "--seed", "3", "--duration", "200ms").output)
    b = json.loads(run("sim", f, "--json", "--seed", "3", "--duration", "200ms").output)
    assert a["seed"] == 3 and a["duration_s"] == pytest.approx(0.2)
    assert a == b  # deterministic for a seed


def test_scenario_policy_is_the_default(write_yaml):
    doc = json.loads(run("sim", str(write_yaml("policy: drr\n" + SMALL)), "--json").output)
    assert doc["policy"] == "drr"


@pytest.mark.parametrize("args,needle", [
    (["--policy", "fastest"], "'fastest' is not a policy (allowed: fifo, rr"),
    (["--duration", "soon"], "'soon' is not a duration"),
    (["--duration", "0"], "longer than zero"),
])
def test_bad_options_one_line(write_yaml, args, needle):
    out = one_error_line(run("sim", str(write_yaml(SMALL)), *args))
    assert needle in out


@pytest.mark.parametrize("text,needle", [
    (SMALL.replace("bs: 4k", "bs: 4x"), "tenants[0].workload.bs: '4x' is not a size"),
    (SMALL.replace("iodepth: 8}", "iodepth: 8, colour: red}", 1), "tenants[0].workload.colour: unknown key"),
    (SMALL.replace("latency_slo: 2ms", "limit: -5MiB/s"), "tenants[0].limit: '-5MiB/s' is negative"),
    ("tenants: [", "bad YAML"),
])
def test_bad_scenario_one_line(write_yaml, text, needle):
    f = write_yaml(text)
    out = one_error_line(run("sim", str(f)))
    assert out.startswith(f"Error: {f}: ") and needle in out


def test_missing_file_one_line(tmp_path):
    out = one_error_line(run("sim", str(tmp_path / "nope.yaml")))
    assert "nope.yaml: no such file" in out


def test_keys_lists_the_schema():
    res = run("sim", "--keys")
    assert res.exit_code == 0 and "bssplit" in res.output and "latency_slo" in res.output


def test_version():
    res = run("version")
    assert res.exit_code == 0 and f"C ABI {ABI_VERSION}" in res.output and "dct983" in res.output


def test_module_entry_point_and_real_stderr(write_yaml):
    """python -m control.cli works; a bad file gives one stderr line, no traceback."""
    bad = write_yaml(SMALL.replace("bs: 4k", "bs: 4x"))
    p = subprocess.run([sys.executable, "-m", "control.cli", "sim", str(bad)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 and p.stdout == ""
    assert p.stderr.strip().count("\n") == 0 and "Traceback" not in p.stderr
    assert "is not a size" in p.stderr


# ---- the plumbing: Simulator and run_scenario -----------------------------------------------

def test_run_scenario_helper(scenario_dir):
    from control.bench.results import run_scenario
    sc = load_scenario(scenario_dir / "read-vs-write.yaml")
    doc = run_scenario(sc, "qos", seed=2, duration_s=0.2)
    assert doc["policy"] == "qos" and doc["seed"] == 2
    assert [t["name"] for t in doc["tenants"]] == ["reader", "writer"]
    assert all(t["solo_lat_us"]["p99"] > 0 for t in doc["tenants"])
    by_path = run_scenario(scenario_dir / "read-vs-write.yaml", "qos", seed=2, duration_s=0.2)
    assert by_path == doc


def test_simulator_steps_and_reads_back():
    from control.simulator import Simulator
    sim = Simulator(device="dct983", policy="qos", seed=1, bin_s=0.05)
    a = sim.add_tenant("a", {"rw": "randread", "bs": "4k", "iodepth": 4}, latency_slo_s=1e-3)
    b = sim.add_tenant("b", {"rw": "randwrite", "bs": "16k", "iodepth": 4})
    assert a != b
    sim.run(0.1)
    first = sim.result().tenant("a").completed
    sim.set_tenant("b", weight=3, limit_bps=50 << 20)
    sim.set_policy("drr")
    sim.configure(quantum_bytes=64 * 1024)
    sim.run(0.1)
    r = sim.result()
    assert r.policy == "drr" and r.elapsed_s == pytest.approx(0.2)
    ta = r.tenant("a")
    assert ta.klass == "latency" and ta.completed > first > 0
    assert r.tenant("b").weight == 3
    assert ta.hist_counts.dtype == np.uint64 and ta.hist_counts.shape == r.hist_edges_ns.shape
    assert int(ta.hist_counts.sum()) == ta.lat.count
    assert ta.lat.p50_us <= ta.lat.p99_us <= ta.lat.p999_us <= ta.lat.max_us
    assert len(ta.timeline_bytes) == 4 and int(ta.timeline_bytes.sum()) <= ta.bytes
    assert r.drive["tenants"] == 2 and "write_factor_x256" in r.drive and "reads" in r.ssd


def test_simulator_rejects_bad_arguments():
    from dataplane import DataplaneError
    from control.simulator import Simulator
    with pytest.raises(ValueError, match="not a known device model"):
        Simulator(device="floppy")
    with pytest.raises(ValueError, match="not a policy"):
        Simulator(policy="fastest")
    with pytest.raises(ValueError, match="unknown field 'no_such'"):
        Simulator(ssd_overrides={"no_such": 1})
    with pytest.raises(ValueError, match="expected an integer"):
        Simulator(sched_overrides={"ctl.lat_max_ns": "fast"})
    sim = Simulator()
    with pytest.raises(ValueError, match="is not a size"):
        sim.add_tenant("a", {"bs": "4x"})
    sim.add_tenant("a", {})
    with pytest.raises(ValueError, match="already exists"):
        sim.add_tenant("a", {})
    with pytest.raises(ValueError, match="weight must be"):
        sim.set_tenant("a", weight=0)
    with pytest.raises(ValueError, match="no tenant named"):
        sim.set_tenant("zz", weight=2)
    with pytest.raises(ValueError, match="seconds must be"):
        sim.run(-1)
    with pytest.raises(DataplaneError, match=r"jbof_sched_configure: E\w+"):
        sim.configure(max_tenants=0)


def test_lazy_commands_import_on_use():
    """Other modules' commands can be registered lazily; a broken one only breaks itself."""
    import click

    from control.cli.root import JbofGroup

    @click.group(cls=JbofGroup)
    def g() -> None:
        pass
    g.add_lazy_command("ver", "control.cli.root:version", "Print versions.")
    g.add_lazy_command("broken", "control.no_such_module:cmd", "Never works.")
    help_out = CliRunner().invoke(g, ["--help"]).output
    assert "ver" in help_out and "Never works." in help_out
    assert CliRunner().invoke(g, ["ver"]).exit_code == 0
    res = CliRunner().invoke(g, ["broken"])
    assert res.exit_code != 0 and "command 'broken' is unavailable" in res.output
    assert "Traceback" not in res.output
