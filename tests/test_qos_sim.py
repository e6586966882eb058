"""QoS properties asserted on seeded simulator runs (issue: the core's "what must be shown").

Each test runs a shipped scenario in virtual time with a fixed seed, so the
numbers are exact and repeatable; the bounds are the issue's.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from control.bench.results import compare, make_simulator, run_scenario
from control.scenario import load_scenario

SCEN = Path(__file__).resolve().parent.parent / "configs" / "scenarios"


def tenant(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(t for t in doc["tenants"] if t["name"] == name)


@pytest.fixture(scope="module")
def read_vs_write() -> dict[str, dict[str, Any]]:
    docs = compare(SCEN / "read-vs-write.yaml", ["fifo", "gimbal", "qos"], seed=1)
    return {d["policy"]: d for d in docs}


def test_fifo_shows_the_problem(read_vs_write: dict[str, dict[str, Any]]) -> None:
    d = read_vs_write["fifo"]
    r, w = tenant(d, "reader"), tenant(d, "writer")
    # the reader's share is far below the writer's ...
    assert r["share"] < 0.5 * w["share"], (r["share"], w["share"])
    # ... and its tail latency is inflated well beyond what it sees alone
    assert r["lat_us"]["p99"] > 3 * r["solo_lat_us"]["p99"]
    assert d["jain"] < 0.8


@pytest.mark.parametrize("policy", ["gimbal", "qos"])
def test_fair_and_busy(read_vs_write: dict[str, dict[str, Any]], policy: str) -> None:
    d = read_vs_write[policy]
    assert d["jain"] >= 0.95, d["jain"]
    assert d["utilization"] >= 0.85, d["utilization"]
    # utilization is a sum of shares of one drive: it cannot exceed 1 by much
    assert d["utilization"] <= 1.25


def test_queued_time_is_measured(read_vs_write: dict[str, dict[str, Any]]) -> None:
    """sched.c section 25: queued_s (time with IO waiting at the scheduler) is within the tenant's
    active time; fifo (up to max_inflight_ios) queues nothing here, qos keeps the 128 KiB writer
    waiting all the run (3.0 of 3.0 s) and the 4 KiB reader part of it.  The reader's share moves
    with the scheduler: 2.65 s when this test was written, 1.90 s before section 131, 0.67 s with
    it (its reads pass a mid-sized write's debt: Jain 0.962 -> 0.989), so the bound is the
    measurement's (a queued reader is seen queued, less than the writer), not a schedule's."""
    for policy, d in read_vs_write.items():
        for t in d["tenants"]:
            assert 0.0 <= t["queued_s"] <= t["busy_s"] + 1e-6, (policy, t)
    assert all(t["queued_s"] == 0.0 for t in read_vs_write["fifo"]["tenants"])
    w, r = tenant(read_vs_write["qos"], "writer"), tenant(read_vs_write["qos"], "reader")
    assert w["queued_s"] >= 0.99 * w["busy_s"], w
    assert 0.1 * r["busy_s"] <= r["queued_s"] < w["queued_s"], r


def test_latency_sensitive_reader_next_to_hogs() -> None:
    docs = {d["policy"]: d for d in compare(SCEN / "latency-vs-hogs.yaml", ["fifo", "qos"], seed=1)}
    q = tenant(docs["qos"], "kv-reader")
    f = tenant(docs["fifo"], "kv-reader")
    solo = q["solo_lat_us"]["p99"]
    assert q["lat_us"]["p99"] <= 2 * solo, (q["lat_us"]["p99"], solo)
    assert f["lat_us"]["p99"] > 5 * solo, (f["lat_us"]["p99"], solo)
    assert q["slo_met"] is True


def test_weights_split_cost_two_to_one() -> None:
    d = run_scenario(SCEN / "weights.yaml", "qos", seed=1)
    ratio = tenant(d, "heavy")["cost_bytes"] / tenant(d, "light")["cost_bytes"]
    assert 1.8 <= ratio <= 2.2, ratio


@pytest.mark.parametrize("policy", ["qos"])
def test_work_conservation(policy: str) -> None:
    """A lone backlogged tenant gets >= 95% of what the raw drive gives it.

    (gimbal, as published, caps a lone tenant at its 8 slots of 128 KiB and
    gets about 93% here; it is measured, not asserted.)"""
    sc = load_scenario(SCEN / "churn.yaml")
    sim = make_simulator(sc, policy, seed=1)
    sim.run(sc.duration_s)
    steady = sim.timeline("steady")          # bytes per 100 ms bin
    solo_sim = make_simulator(sc, "fifo", seed=1, tenants=[sc.tenants[0]])
    solo_sim.run(sc.duration_s)
    solo = solo_sim.timeline("steady")
    alone = np.r_[2:10, 32:40]               # bins with the visitor away (skip start-up)
    together = np.r_[12:30]
    assert steady[alone].sum() >= 0.95 * solo[alone].sum()
    # and while both run, the drive is shared, not handed to one tenant
    visitor = sim.timeline("visitor")
    assert 0.8 <= visitor[together].sum() / steady[together].sum() <= 1.25


SHIPPED = sorted(p for p in SCEN.glob("*.yaml") if "cluster" not in p.read_text())


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_qos_never_collapses(path: Path) -> None:
    """On every shipped scenario qos keeps the drive busy (>= 75% of fifo's
    utilization) and starves no tenant that is entitled to service (a
    scavenger may get nothing while others are backlogged)."""
    docs = {d["policy"]: d for d in compare(path, ["fifo", "qos"], seed=1, duration_s=2.0)}
    q, f = docs["qos"], docs["fifo"]
    sc = load_scenario(path)
    if not any(t.klass == "scavenger" or t.limit_bps or t.limit_iops for t in sc.tenants):
        # (fifo ignores limits and classes, so its utilization is no yardstick there)
        assert q["utilization"] >= 0.75 * f["utilization"], (q["utilization"], f["utilization"])
    for t in q["tenants"]:
        if t["class"] != "scavenger" and t["share"] is not None:
            assert t["share"] >= 0.03, (t["name"], t["share"])
