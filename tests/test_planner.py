"""The planner (control/lending/planner.py): calibration, adaptive coverage, fallback, decisions.

Pure logic with an injected clock: every call passes ``now``; nothing sleeps.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from control.lending.forecast import Arrived, Cancel, Demand, Finished, Forecast, parse_message
from control.lending.planner import (
    Calibrator,
    Planner,
    PlannerConfig,
    binomial_tail,
    conformal_lower,
    conformal_upper,
    peak_cost,
)

MiB = 1 << 20
CAP = 2800 * MiB


def cfg(**kw: object) -> PlannerConfig:
    return PlannerConfig(capacity_bps=CAP, **kw)  # type: ignore[arg-type]


def planner(**kw: object) -> Planner:
    return Planner(cfg(**kw), {"a": 700 * MiB, "b": 700 * MiB, "c": 700 * MiB},
                   {"r": 0.0, "w": 0.3})


def fc(job: str, tenant: str, now: float, lead: float, source: str = "sched",
       demand: Demand | None = None) -> Forecast:
    return Forecast(job=job, tenant=tenant, source=source, issued_s=now, arrival_s=now + lead,
                    demand=demand)


def feed(p: Planner, msg: object, now: float) -> dict[str, object]:
    assert p.check(msg) is None, p.check(msg)  # type: ignore[arg-type]
    return p.handle(msg, now)  # type: ignore[arg-type]


def warm(p: Planner, source: str = "sched") -> None:
    """The worked example's calibration: 297 exact forecasts and 3 at rho = -0.9."""
    p.source(source).add_residuals([0.0] * 297 + [-0.9] * 3)
    for o in p.owners:
        p.owner_source[o] = source


# ------------------------------------------------------------- quantiles ---

def test_conformal_quantiles() -> None:
    vals = sorted(float(i) for i in range(1, 100))          # 99 values
    assert conformal_lower(vals, 0.01) == 1.0               # k = floor(0.01 * 100) = 1
    assert conformal_lower(vals, 0.005) is None             # k = 0: no guarantee possible
    assert conformal_lower(vals, 0.1) == 10.0
    assert conformal_upper(vals, 0.01) == 99.0              # k = ceil(0.99 * 100) = 99
    assert conformal_upper(vals, 0.005) is None
    assert conformal_lower([], 0.5) is None


def test_binomial_tail() -> None:
    assert binomial_tail(50, 0, 0.01) == 1.0
    assert binomial_tail(50, 51, 0.01) == 0.0
    assert binomial_tail(50, 5, 0.01) == pytest.approx(1.46e-4, rel=0.01)   # the header's number
    assert binomial_tail(1, 1, 0.3) == pytest.approx(0.3)


# ------------------------------------------------------------ calibrator ---

def _stream(eps: float, gamma: float, shift: float, seed: int = 1, n0: int = 1000,
            n1: int = 2000) -> tuple[float, int | None, int | None, Calibrator]:
    c = Calibrator(PlannerConfig(capacity_bps=1, slowdown_budget=eps, aci_gamma=gamma))
    rng = np.random.default_rng(seed)
    for x in rng.normal(0.0, 1.0, n0):
        c.record(float(x))
    m0, fell, back = c.misses, None, None
    for i, x in enumerate(rng.normal(shift, 1.0, n1)):
        c.record(float(x))
        if fell is None and c.fallback:
            fell = i
        if fell is not None and back is None and not c.fallback:
            back = i
    return (c.misses - m0) / n1, fell, back, c


@pytest.mark.parametrize("eps,n1,lo,hi", [(0.05, 2000, 0.035, 0.065), (0.01, 6000, 0.005, 0.017)])
def test_calibrator_coverage_iid(eps: float, n1: int, lo: float, hi: float) -> None:
    """i.i.d. residuals: the miss rate is the budget (binomial noise: 2000 x 5% is 100 +- 10)."""
    rate, _, _, c = _stream(eps, 0.002, 0.0, n1=n1)
    assert lo <= rate <= hi, rate
    assert 0.5 * eps <= c.alpha <= 1.5 * eps


def test_calibrator_coverage_shifted() -> None:
    """Arrivals suddenly 2 sigma earlier: the plain conformal quantile misses ~7.5% of
    the next 2000 arrivals for a 5% budget while the ring catches up; with adaptive
    coverage the miss rate stays at the budget.  Same for every seed tried (1..7)."""
    for seed in (1, 2, 3):
        plain, _, _, _ = _stream(0.05, 1e-9, -2.0, seed=seed)
        aci, _, _, _ = _stream(0.05, 0.002, -2.0, seed=seed)
        assert plain > 0.065, plain
        assert aci <= 0.055, aci
        assert aci < plain - 0.015


def test_fallback_trigger_and_recovery() -> None:
    """The shift trips the binomial test within a few arrivals; it clears once the
    misses leave the 50-outcome window (the ring has adapted by then)."""
    _, fell, back, c = _stream(0.01, 0.002, -2.0)
    assert fell is not None and fell <= 20, fell
    assert back is not None and back <= 200, back
    assert not c.fallback
    # i.i.d.: no false alarm at a 1% budget over 6000 arrivals
    _, fell_iid, _, _ = _stream(0.01, 0.002, 0.0, n1=6000)
    assert fell_iid is None


def test_fallback_threshold_exact() -> None:
    c = Calibrator(cfg(fallback_window=50))
    c.add_residuals([0.0] * 400)
    for _ in range(46):
        c.record(0.0)
    # ever earlier arrivals (drift): each one is below everything the ring has seen
    for k in range(4):
        assert c.record(-5.0 - k)
        assert not c.fallback, k                    # 4 misses in 50: P = 1.6e-3 > 1e-3
    c.record(-9.0)                                  # 5 in 50: P = 1.5e-4
    assert c.fallback and c.fallback_p() < 1e-3


def test_untrusted_until_enough_residuals() -> None:
    """With a 1% budget the conformal quantile needs 99 residuals: until then, hold."""
    c = Calibrator(cfg())
    c.add_residuals([0.0] * 98)
    assert c.lower() is None and not c.trusted
    c.add_residuals([0.0])
    assert c.lower() == 0.0 and c.trusted


def test_aci_alpha_moves() -> None:
    c = Calibrator(cfg())
    c.add_residuals([0.0] * 297 + [-0.9] * 3)
    assert c.lower() == -0.9
    assert c.record(math.log(3 / 20))               # the header's miss
    assert c.alpha == pytest.approx(0.01 + 0.002 * (0.01 - 1))
    assert c.lower() == -0.9                        # k = floor(0.00802 * 302) = 2: still -0.9
    before = c.alpha
    assert not c.record(0.0)
    assert c.alpha == pytest.approx(before + 0.002 * 0.01)


# --------------------------------------------------------------- planner ---

def test_worked_example() -> None:
    """The numbers of section 8 of control/lending/planner.py."""
    p = planner()
    warm(p)
    for o in "bc":
        feed(p, fc(f"j{o}", o, 80.0, 10.0), 80.0)
        assert feed(p, Arrived(f"j{o}", o, 90.0), 90.0)["miss"] is False
    feed(p, fc("ja", "a", 100.0, 20.0), 100.0)
    reclaim = 100 + 20 * math.exp(-0.9) - 0.2
    assert p.reclaim_at(p.jobs["ja"]) == pytest.approx(reclaim)
    pl = p.plan(100.0)
    assert pl.pool_bps == 1260 * MiB
    assert pl.limits["r"] == 630 * MiB
    assert pl.limits["w"] == int(350 * MiB / 1.9 + 280 * MiB / 5.5)       # 235 MiB/s
    assert pl.owners["a"].reason == "lent" and pl.owners["a"].next_s == pytest.approx(reclaim)
    pl = p.plan(reclaim - 2.0 + 0.01)                # inside the write horizon
    assert pl.limits["r"] == 630 * MiB
    assert pl.limits["w"] == int(350 * MiB / 1.9)
    pl = p.plan(reclaim + 0.01)
    assert pl.owners["a"].reason == "due"
    assert pl.limits["r"] == 350 * MiB and pl.limits["w"] == int(350 * MiB / 1.9)


def test_worked_example_guarded_and_idle() -> None:
    """Section 8's variants: b and c guarded (held from writers only), or idle."""
    p = Planner(cfg(), {"a": 700 * MiB, "b": 700 * MiB, "c": 700 * MiB},
                {"r": 0.0, "w": 0.3}, guarded=["b", "c"])
    warm(p)
    for o in "bc":
        feed(p, fc(f"j{o}", o, 80.0, 10.0), 80.0)
        feed(p, Arrived(f"j{o}", o, 90.0), 90.0)
    feed(p, fc("ja", "a", 100.0, 20.0), 100.0)
    pl = p.plan(100.0)
    assert pl.pool_bps == 2660 * MiB and pl.write_pool_bps == 1260 * MiB
    assert pl.limits["r"] == 1330 * MiB
    assert pl.limits["w"] == int(350 * MiB / 1.9 + 280 * MiB / 5.5)       # 235 MiB/s
    q = planner()
    warm(q)
    feed(q, fc("ja", "a", 100.0, 20.0), 100.0)
    pl = q.plan(100.0)
    assert pl.pool_bps == 2800 * MiB                                      # no headroom
    assert pl.limits["r"] == 1400 * MiB and pl.limits["w"] == int(1400 * MiB / 1.9)
    assert q.plan(106.0).pool_bps == 2660 * MiB       # a due within the write horizon


def test_never_less_than_static() -> None:
    """Everything held (untrusted source): exactly static partitioning's limits."""
    p = planner()
    feed(p, fc("ja", "a", 0.0, 30.0), 0.0)
    feed(p, fc("jb", "b", 0.0, 30.0), 0.0)
    feed(p, fc("jc", "c", 0.0, 30.0), 0.0)
    pl = p.plan(1.0)
    assert {o.reason for o in pl.owners.values()} == {"untrusted"}
    assert pl.pool_bps == pl.static_pool_bps == 700 * MiB
    assert pl.limits == p.split(700 * MiB, 700 * MiB, caution=1.0)


def test_owner_without_source_is_held() -> None:
    p = planner()
    warm(p)
    del p.owner_source["a"]
    pl = p.plan(0.0)
    assert pl.owners["a"].reason == "no-source" and pl.owners["a"].held_bps == 700 * MiB
    assert pl.owners["b"].reason == "lent" and pl.owners["b"].held_bps == 0
    assert pl.pool_bps == 2660 * MiB - 700 * MiB


def test_job_lifecycle() -> None:
    p = planner()
    warm(p)
    feed(p, fc("j1", "a", 10.0, 10.0), 10.0)
    assert p.plan(10.0).owners["a"].reason == "lent"
    r = feed(p, Arrived("j1", "a", 19.0), 19.0)
    assert r["miss"] is False                        # ln(9/10) = -0.105 >= -0.9
    assert p.plan(19.1).owners["a"].reason == "active"
    assert p.plan(19.1).owners["a"].held_bps == 700 * MiB      # no demand forecast: all of R
    feed(p, Finished("j1", 40.0), 40.0)
    assert p.plan(40.0).owners["a"].reason == "lent"
    # a cancelled forecast releases the owner at once
    feed(p, fc("j2", "a", 50.0, 1.0), 50.0)
    assert p.plan(50.9).owners["a"].reason == "due"
    feed(p, Cancel("j2"), 51.0)
    assert p.plan(51.0).owners["a"].reason == "lent"


def test_active_owner_held_at_calibrated_demand() -> None:
    p = planner()
    warm(p)
    p.source("sched").demand_ring.extend([0.0] * 200 + [0.2] * 2)
    d = Demand(read_bps=400 * MiB)
    feed(p, fc("j1", "a", 0.0, 5.0, demand=d), 0.0)
    feed(p, Arrived("j1", "a", 5.0), 5.0)
    held = p.plan(5.1).owners["a"].held_bps
    assert held == math.ceil(400 * MiB * math.exp(0.2))          # upper quantile = 0.2
    p.observe_demand("j1", 400 * MiB * math.exp(0.5))
    assert len(p.source("sched").demand_ring) == 203


def test_guarded_running_owner_is_lent_to_readers_not_writers() -> None:
    """A guarded owner is the data plane's (csrc/sched.c 14): readers' limits hold
    nothing for its running or due jobs; writers' hold them as for any owner."""
    d = Demand(read_bps=400 * MiB)
    need = math.ceil(400 * MiB * math.exp(0.2))
    for guarded, pool in ((("a",), 2660 * MiB), ((), 2660 * MiB - need)):
        p = Planner(cfg(), {"a": 700 * MiB, "b": 700 * MiB, "c": 700 * MiB},
                    {"r": 0.0, "w": 0.3}, guarded=guarded)
        warm(p)
        p.source("sched").demand_ring.extend([0.0] * 200 + [0.2] * 2)
        feed(p, fc("j1", "a", 0.0, 5.0, demand=d), 0.0)
        feed(p, Arrived("j1", "a", 5.0), 5.0)
        pl = p.plan(5.1)
        assert pl.owners["a"].reason == "active"
        assert pl.owners["a"].held_bps == (0 if guarded else need)
        assert pl.owners["a"].held_write_bps == need
        assert pl.pool_bps == pool                     # headroom: something is held
        assert pl.write_pool_bps == 2660 * MiB - need
        feed(p, fc("j2", "a", 5.1, 10.0, demand=d), 5.1)     # a's next job, due soon
        pl = p.plan(5.1 + 10 * math.exp(-0.9) - 0.19)
        assert pl.owners["a"].reason == "due"
        assert pl.owners["a"].held_bps == (0 if guarded else min(700 * MiB, 2 * need))
        assert pl.owners["a"].held_write_bps == 700 * MiB


def test_guarded_follows_roles() -> None:
    p = Planner(cfg(), {"a": 700 * MiB}, {"r": 0.0}, guarded=["a", "ghost"])
    assert p.guarded == {"a"}                          # only owners
    assert not p.set_roles({"a": 700 * MiB}, {"r": 0.0})
    assert p.set_roles({"a": 700 * MiB}, {"r": 0.0}, guarded=[])
    assert p.guarded == frozenset()
    assert not p.set_roles({"a": 700 * MiB}, {"r": 0.0})   # None: unchanged
    assert p.set_roles({"a": 700 * MiB, "b": 700 * MiB}, {"r": 0.0}, guarded=["a", "b"])
    assert p.set_roles({"b": 700 * MiB}, {"r": 0.0})       # a removed: no longer guarded
    assert p.guarded == {"b"}


def test_due_owner_held_at_its_calibrated_demand() -> None:
    """Within the reclaim horizon of its arrival quantile an owner may need only what
    its job will draw: the calibrated demand is held, not the whole reservation."""
    p = planner()
    warm(p)
    p.source("sched").demand_ring.extend([0.0] * 200 + [0.2] * 2)
    feed(p, fc("j1", "a", 0.0, 10.0, demand=Demand(read_bps=400 * MiB)), 0.0)
    due = 10 * math.exp(-0.9) - 0.2
    assert p.plan(due - 0.01).owners["a"].held_bps == 0
    pl = p.plan(due + 0.01)
    need = math.ceil(400 * MiB * math.exp(0.2))
    assert pl.owners["a"].reason == "due" and pl.owners["a"].held_bps == need
    assert pl.owners["a"].held_write_bps == 700 * MiB        # writers still stop
    assert pl.pool_bps == 2660 * MiB - need
    # no demand forecast, or no demand quantile yet: the whole reservation
    feed(p, fc("j2", "b", 0.0, 10.0), 0.0)
    assert p.plan(due + 0.01).owners["b"].held_bps == 700 * MiB
    q = planner()
    warm(q)
    feed(q, fc("j1", "a", 0.0, 10.0, demand=Demand(read_bps=400 * MiB)), 0.0)
    assert q.plan(due + 0.01).owners["a"].held_bps == 700 * MiB


def test_peak_cost_of_checkpointing_jobs() -> None:
    """Checkpoints are written between read bursts: the peak is the larger rate."""
    ck = Demand(read_bps=600 * MiB, write_bps=70 * MiB, checkpoint_period_s=2.0,
                checkpoint_bytes=64 * MiB)
    assert peak_cost(ck, 4.0) == 600 * MiB
    assert peak_cost(Demand(read_bps=100 * MiB, write_bps=70 * MiB, checkpoint_period_s=2.0,
                            checkpoint_bytes=64 * MiB), 4.0) == 280 * MiB
    mixed = Demand(read_bps=600 * MiB, write_bps=70 * MiB)    # may overlap: they add up
    assert peak_cost(mixed, 4.0) == 880 * MiB
    assert peak_cost(Demand(cost_bps=5 * MiB, checkpoint_bytes=1), 4.0) == 5 * MiB


def test_write_caution_only_while_an_owner_may_read() -> None:
    """Lent writes pay write_cost x write_caution while some owner runs or is due
    within the write horizon, and plain write_cost while every owner is idle."""
    p = planner()
    warm(p)
    pl = p.plan(0.0)                                   # everyone idle, nothing forecast
    assert pl.pool_bps == pl.write_pool_bps == 2800 * MiB   # nothing held: no headroom
    assert pl.limits["w"] == int(1400 * MiB / 1.9)     # 350 static + 1050 lent, both at 1.9
    feed(p, fc("ja", "a", 0.0, 5.0), 0.0)
    feed(p, Arrived("ja", "a", 5.0), 5.0)              # a runs (no demand forecast: all of R)
    pl = p.plan(5.0)
    assert pl.pool_bps == 1960 * MiB
    assert pl.limits["w"] == int(350 * MiB / 1.9 + 630 * MiB / 5.5)


def test_noshow_release_and_late_arrival_is_a_miss() -> None:
    p = planner()
    p.source("sched").add_residuals([0.0] * 295 + [0.5] * 5)      # q_upper = 0.5
    for o in p.owners:
        p.owner_source[o] = "sched"
    feed(p, fc("ghost", "a", 0.0, 10.0), 0.0)
    t_noshow = 10 * math.exp(0.5) + 0.2
    assert p.noshow_at(p.jobs["ghost"]) == pytest.approx(t_noshow)
    assert p.plan(t_noshow - 0.1).owners["a"].reason == "due"
    assert p.plan(t_noshow + 0.1).owners["a"].reason == "lent"
    assert p.jobs["ghost"].state == "noshow" and p.source("sched").noshows == 1
    r = feed(p, Arrived("ghost", "a", 30.0), 30.0)
    assert r["miss"] is True


def test_unforecast_arrival_is_a_miss() -> None:
    p = planner()
    warm(p)
    r = feed(p, Arrived("surprise", "a", 5.0), 5.0)
    assert r["miss"] is True and p.source("sched").misses == 1
    assert p.plan(5.0).owners["a"].reason == "active"


def test_fallback_holds_every_owner_of_the_source() -> None:
    p = planner()
    warm(p)
    assert p.plan(0.0).pool_bps == 2800 * MiB
    t = 1.0
    for i in range(5):                                # five surprises
        feed(p, fc(f"j{i}", "a", t, 100.0), t)
        feed(p, Arrived(f"j{i}", "a", t + 1.0), t + 1.0)
        feed(p, Finished(f"j{i}", t + 2.0), t + 2.0)
        t += 3.0
    assert p.source("sched").fallback
    pl = p.plan(t)
    assert {o.reason for o in pl.owners.values()} == {"fallback"}
    assert pl.pool_bps == 700 * MiB


def test_point_mode_trusts_the_forecast() -> None:
    p = planner(mode="point")
    p.owner_source.update({o: "sched" for o in p.owners})
    feed(p, fc("j1", "a", 0.0, 10.0), 0.0)
    assert p.plan(9.7).owners["a"].reason == "lent"
    assert p.plan(9.81).owners["a"].reason == "due"        # T - horizon
    assert p.plan(20.3).owners["a"].reason == "lent"       # no-show after T + lead


def test_messages_checked() -> None:
    p = planner()
    assert p.check(fc("j", "nobody", 0.0, 1.0))[0] == "unknown_tenant"   # type: ignore[index]
    assert p.check(Finished("nope", 1.0))[0] == "unknown_job"            # type: ignore[index]
    feed(p, fc("j", "a", 0.0, 1.0), 0.0)
    feed(p, Arrived("j", "a", 1.0), 1.0)
    assert p.check(Cancel("j"))[0] == "invalid"                          # type: ignore[index]
    assert p.check(fc("j", "a", 2.0, 1.0))[0] == "invalid"               # type: ignore[index]


def test_wire_messages_drive_the_planner() -> None:
    p = planner()
    warm(p)
    msg = parse_message({"type": "forecast", "job": "j", "tenant": "a", "source": "sched",
                         "arrival_in": "20s", "demand": {"read_rate": "400MiB/s"}}, 100.0)
    feed(p, msg, 100.0)
    assert p.reclaim_at(p.jobs["j"]) == pytest.approx(100 + 20 * math.exp(-0.9) - 0.2)
    snap = p.snapshot(101.0)
    assert snap["jobs"][0]["job"] == "j" and snap["sources"]["sched"]["trusted"]


@pytest.mark.parametrize("bad", [dict(capacity_bps=0), dict(slowdown_budget=0.0),
                                 dict(headroom=1.0), dict(mode="yolo"), dict(write_cost=0.5)])
def test_config_validation(bad: dict[str, object]) -> None:
    args: dict[str, object] = {"capacity_bps": CAP}
    args.update(bad)
    with pytest.raises(ValueError, match="planner"):
        PlannerConfig(**args)  # type: ignore[arg-type]


def test_roles_validated() -> None:
    with pytest.raises(ValueError, match="reservation"):
        Planner(cfg(), {"a": 0}, {})
    with pytest.raises(ValueError, match="owner and borrower"):
        Planner(cfg(), {"a": MiB}, {"a": 0.0})
    with pytest.raises(ValueError, match="write fraction"):
        Planner(cfg(), {"a": MiB}, {"b": 2.0})
