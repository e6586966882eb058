"""`jbof bench CLUSTER.yaml` (control/bench/lending.py): a tiny training-cluster
trace replayed live -- owner and borrower fio jobs started and stopped by the
trace, borrowers added and removed live through the admin plane, forecasts
pushed over the forecast socket for ``robust`` -- produces the simulator's
metrics per policy with live/sim ratios.  Bounded: ~4 s of trace plus drain
per policy (< 60 s wall for the three).  The autotuner is off here (speed);
the documented full run has it on.
"""
from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
import yaml

pytestmark = [pytest.mark.needs_core,
              pytest.mark.skipif(shutil.which("fio") is None, reason="needs fio")]

TINY = """\
name: training-tiny
device: {model: dct983}
duration: 4s
seed: 8
cluster:
  capacity: 2800MiB/s
  tick: 100ms
  drain: 8s
  history: 100
  owners:
    - {name: own, reserve: 700MiB/s, latency_slo: 2ms, class: latency}
  owner_jobs: {jobs_per_min: 30, duration: 2s, duration_max: 3s, lead: 1s, lead_min: 500ms,
               lead_max: 2s, iteration: [300ms, 300ms], checkpoint_period: 0s, iodepth: 8}
  borrower_jobs: {jobs_per_min: 45, size: 96MiB, size_min: 64MiB, size_max: 128MiB,
                  writers: 0%, bs: 128k, iodepth: 8}
"""


def test_tiny_trace_runs_live_for_each_policy(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from control.cli import main
    from control.lending.anticipation import load_cluster_scenario, make_trace
    sc_path = tmp_path / "tiny.yaml"
    sc_path.write_text(TINY)
    sc = load_cluster_scenario(sc_path)
    trace = make_trace(sc, sc.seed)
    assert len(trace.owners()) == 1 and len(trace.borrowers()) == 3
    t0 = time.monotonic()
    r = CliRunner().invoke(main, ["bench", str(sc_path), "--no-tune", "--out",
                                  str(tmp_path / "out")])
    wall = time.monotonic() - t0
    assert r.exit_code == 0, r.output
    docs = json.loads((tmp_path / "out" / "results.json").read_text())
    assert [d["policy"] for d in docs] == ["static", "share", "robust"]
    for d in docs:
        a = d["anticipation"]
        assert d["mode"] == "live" and a["borrower_jobs"] == 3 and a["owner_jobs"] == 1
        assert a["borrower_mean_job_latency_s"] > 0 and a["owner_windows"] > 0
        assert 0 <= a["owner_slowdown_probability"] <= 1
        assert set(d["vs_sim"]) >= {"borrower_mean_job_latency_s", "owner_slowdown_probability"}
        assert d["sim"]["borrower_mean_job_latency_s"] >= 0 and d["sim"]["owner_windows"] > 0
    robust = docs[2]["anticipation"]
    assert robust["messages_refused"] == 0
    # the planner followed the borrowers added and removed live, without errors
    assert robust["planner"]["role_changes"] >= 2 and robust["planner"]["tick_errors"] == 0
    assert robust["planner"]["sources"]["sched"]["arrivals"] == 1
    for word in ("static", "share", "robust", "live/sim"):
        assert word in r.output
    report = (tmp_path / "out" / "report.md").read_text()
    assert "borrower job latency" in report
    assert (tmp_path / "out" / "runs" / "robust").is_dir()
    print(f"\n{r.output}\nwall {wall:.1f}s")
    assert wall < 90, wall          # < 60 s on an idle machine


def test_live_lending_policies_are_checked(tmp_path: Path) -> None:
    from control.bench.lending import run_cluster_live
    from control.bench.live import BenchError
    p = tmp_path / "tiny.yaml"
    p.write_text(TINY)
    with pytest.raises(BenchError, match="oracle"):
        run_cluster_live(p, ["oracle"], tmp_path)


def test_training_live_scenario_parses() -> None:
    from control.lending.anticipation import load_cluster_scenario
    root = Path(__file__).resolve().parent.parent
    sc = load_cluster_scenario(root / "configs" / "scenarios" / "training-live.yaml")
    assert sc.duration_s <= 60 and len(sc.owners) == 2
    assert yaml.safe_load((root / "configs" / "scenarios" / "training-live.yaml").read_text())
