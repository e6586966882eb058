"""Owners and borrowers follow the daemon's tenants live (issue 15 part 3):
``Planner.set_roles``, ``ForecastService`` re-deriving roles every tick from
``live_tenants``, and ``jbof serve`` where ``tenant add/remove/set`` over the
admin socket re-plans at the next tick, with the ``jbof_planner_*`` metrics.
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from control.lending.forecast import Arrived, Forecast
from control.lending.forecast_server import ForecastService
from control.lending.planner import Planner, PlannerConfig
from control_helpers import scrape

MiB = 1 << 20
CAP = 2800 * MiB
LENT = CAP                  # everything lent, nothing held: no headroom
HELD = int(0.95 * CAP)      # C minus the headroom, once something is held


class Clock:
    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def test_set_roles_adds_and_removes_owners_and_borrowers() -> None:
    p = Planner(PlannerConfig(capacity_bps=CAP), {"a": 700 * MiB}, {"r": 0.0})
    p.source("sched").add_residuals([0.0] * 300)
    p.handle(Forecast(job="j", tenant="a", source="sched", issued_s=0.0,
                      arrival_s=50.0), 0.0)
    assert p.plan(1.0).limits == {"r": LENT}
    assert not p.set_roles({"a": 700 * MiB}, {"r": 0.0})            # nothing changed
    # a second owner (no source yet: held) and a second borrower (split evenly)
    assert p.set_roles({"a": 700 * MiB, "b": 1400 * MiB}, {"r": 0.0, "w": 0.0})
    assert p.static_pool_bps == CAP - 2100 * MiB
    plan = p.plan(1.0)
    assert plan.owners["b"].reason == "no-source"
    assert plan.limits == {"r": (HELD - 1400 * MiB) // 2, "w": (HELD - 1400 * MiB) // 2}
    # owner a leaves: its job is forgotten; r leaves the split
    assert p.set_roles({"b": 1400 * MiB}, {"w": 0.0})
    assert "j" not in p.jobs and "a" not in p.owner_source
    assert p.check(Arrived(job="j", tenant="a", at_s=2.0)) is not None
    assert p.plan(2.0).limits == {"w": CAP - 1400 * MiB}       # b held: static wins
    with pytest.raises(ValueError):
        p.set_roles({"w": MiB}, {"w": 0.0})


def _t(name: str, cls: str = "best-effort", reserve: int = 0, limit: int = 0) -> dict[str, Any]:
    return {"name": name, "class": cls, "reserve": reserve, "limit": limit}


def test_service_follows_live_tenants_at_the_next_tick(tmp_path: Path) -> None:
    tenants = [_t("own", "reserved", 700 * MiB), _t("scav", "scavenger")]
    applied: list[tuple[str, int]] = []
    released: list[str] = []
    clock = Clock(100.0)
    owners, borrowers = ForecastService.roles(tenants)
    svc = ForecastService(str(tmp_path / "f.sock"),
                          Planner(PlannerConfig(capacity_bps=CAP), owners, borrowers),
                          lambda n, b: applied.append((n, b)), clock=clock,
                          live_tenants=lambda: list(tenants), release=released.append)
    svc.tick()
    assert applied == [("scav", CAP - 700 * MiB)]
    # a scavenger added live gets a planned limit at the next tick; the pool is split
    tenants.append(_t("s2", "scavenger", limit=100 * MiB))
    svc.tick()
    half = (CAP - 700 * MiB) // 2
    assert applied[-2:] == [("scav", half), ("s2", 100 * MiB)]     # capped by its own limit
    assert svc.role_changes == 1
    # a new owner's reservation moves the static pool
    tenants.append(_t("own2", "latency", 700 * MiB))
    svc.tick()
    assert svc.applied == {"scav": (CAP - 1400 * MiB) // 2, "s2": 100 * MiB}
    # removed and reclassified borrowers are released and never applied again
    tenants[:] = [t for t in tenants if t["name"] != "s2"]
    tenants[1] = _t("scav", "best-effort")
    n = len(applied)
    svc.tick()
    svc.tick()
    assert sorted(released) == ["s2", "scav"] and len(applied) == n and svc.applied == {}
    # a reservation change (tenant set) on an owner
    tenants.append(_t("s3", "scavenger"))
    tenants[0] = _t("own", "reserved", 1400 * MiB)
    svc.tick()
    assert svc.applied == {"s3": CAP - 2100 * MiB}
    samples = {(s[0], tuple(sorted(s[1].items()))): s[2] for s in svc.metric_samples("d0")}
    assert samples[("jbof_planner_ticks_total", (("drive", "d0"),))] == 6
    assert samples[("jbof_planner_borrowers", (("drive", "d0"),))] == 1
    assert samples[("jbof_planner_borrower_limit_bytes_per_second",
                    (("drive", "d0"), ("tenant", "s3")))] == CAP - 2100 * MiB
    assert samples[("jbof_planner_lent_bytes_per_second",
                    (("drive", "d0"), ("tenant", "own")))] == 0         # no source: held
    assert samples[("jbof_planner_headroom_bytes_per_second", (("drive", "d0"),))] == \
        int(CAP * 0.05)


def test_tick_errors_are_counted(tmp_path: Path) -> None:
    def boom(n: str, b: int) -> None:
        raise OSError("engine says no")
    svc = ForecastService(str(tmp_path / "f.sock"),
                          Planner(PlannerConfig(capacity_bps=CAP), {}, {"s": 0.0}), boom)
    svc.tick()
    svc.tick()
    assert (svc.ticks, svc.tick_errors) == (2, 2)


# ------------------------------------------------------------ jbof serve ---

CONFIG = """\
drives: [{{name: d0, backend: memory, size: 64MiB}}]
tenants:
  - {{name: own, size: 8MiB, reserve: 700MiB/s, latency_slo: 5ms}}
  - {{name: scav, size: 8MiB, class: scavenger}}
forecast:
  socket: {sock}
  capacity: 2800MiB/s
  tick: 1s
  calibration: {{sched: {residuals}}}
"""


class Served:
    def __init__(self, tmp: Path, proc: Any) -> None:
        from control.daemon.admin import Client as AdminClient
        self.tmp, self.proc = tmp, proc
        self.admin_path = str(tmp / "admin.sock")
        with AdminClient(self.admin_path, timeout=10) as c:
            self.metrics_url = str(c.call("ping")["metrics"])

    def admin(self, op: str, **args: Any) -> Any:
        from control.daemon.admin import Client as AdminClient
        with AdminClient(self.admin_path, timeout=10) as c:
            return c.call(op, **args)

    def samples(self) -> dict[tuple[str, str], float]:
        return scrape(self.metrics_url, "tenant", "source")

    def limit(self, name: str) -> float:
        return self.samples().get(("jbof_tenant_limit_bytes_per_second", name), -1.0)


@pytest.fixture
def served() -> Iterator[Served]:
    import shutil
    import signal
    import subprocess
    import sys

    from control_helpers import short_tmp
    root = Path(__file__).resolve().parent.parent
    tmp = short_tmp()
    (tmp / "c.yaml").write_text(CONFIG.format(sock=tmp / "f.sock",
                                              residuals=[0.0] * 297 + [-0.5] * 3))
    proc = subprocess.Popen(
        [sys.executable, "-m", "control.cli", "serve", "--config", str(tmp / "c.yaml"),
         "--unix", str(tmp / "nbd.sock"), "--admin-socket", str(tmp / "admin.sock"),
         "--metrics", "127.0.0.1:0", "--log-level", "warning"],
        cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    first = proc.stdout.readline().strip()
    if not first.startswith("nbd+unix://"):
        proc.kill()
        raise AssertionError(f"serve did not start: {first!r} {proc.stderr and proc.stderr.read()}")
    try:
        yield Served(tmp, proc)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def until(cond: Any, timeout: float = 3.0) -> None:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError("not within %.1fs" % timeout)
        time.sleep(0.02)


# The scavengers below move no bytes, so the planner never measures their write
# fractions and plans them as writers (planner.py section 9): a written byte costs
# write_cost (4) read bytes, so each limit is its read-equivalent share / 4.
W = 4


@pytest.mark.needs_core
def test_serve_replans_tenants_added_removed_and_changed_live(served: Served) -> None:
    s = served
    until(lambda: s.limit("scav") == (CAP - 700 * MiB) // W)
    m = s.samples()
    assert m[("jbof_planner_borrower_limit_bytes_per_second", "scav")] == (CAP - 700 * MiB) // W
    assert m[("jbof_planner_borrower_write_ratio", "scav")] == 1.0        # unmeasured
    assert m[("jbof_planner_borrower_measured", "scav")] == 0
    assert m[("jbof_planner_owner_guarded", "own")] == 1                  # latency + SLO
    assert m[("jbof_planner_owners", "")] == 1 and m[("jbof_planner_ticks_total", "")] >= 1
    assert m[("jbof_planner_coverage_target_ratio", "sched")] == pytest.approx(0.99)
    assert m[("jbof_planner_fallback", "sched")] == 0
    # The tick is 1 s; a tenant op pokes the planner, so these take far less.
    t0 = time.monotonic()
    s.admin("tenant.add", name="s2", size="8MiB", **{"class": "scavenger"})
    half = (CAP - 700 * MiB) // 2 // W
    until(lambda: s.limit("s2") == half and s.limit("scav") == half, 0.8)
    assert time.monotonic() - t0 < 0.8
    # an owner's reservation raised live moves the static pool
    s.admin("tenant.set", name="own", reserve="1400MiB/s")
    until(lambda: s.limit("s2") == (CAP - 1400 * MiB) // 2 // W, 0.8)
    # a new owner
    s.admin("tenant.add", name="own2", size="8MiB", reserve="700MiB/s")
    until(lambda: s.limit("s2") == (CAP - 2100 * MiB) // 2 // W, 0.8)
    assert s.samples()[("jbof_planner_owners", "")] == 2
    # removed: gone from the planner; reclassified: its configured limit (none) back
    s.admin("tenant.remove", name="s2")
    until(lambda: s.limit("scav") == (CAP - 2100 * MiB) // W, 0.8)
    s.admin("tenant.set", name="scav", **{"class": "best-effort"})
    until(lambda: s.limit("scav") == 0, 0.8)
    m = s.samples()
    assert m[("jbof_planner_borrowers", "")] == 0
    assert ("jbof_planner_borrower_limit_bytes_per_second", "scav") not in m
    assert ("jbof_planner_borrower_limit_bytes_per_second", "s2") not in m
    assert m[("jbof_planner_role_changes_total", "")] >= 4
    assert m[("jbof_planner_tick_errors_total", "")] == 0
    rows = {r["name"]: r for r in s.admin("tenant.list")["tenants"]}
    assert not rows["scav"]["planned"] and rows["scav"]["limit_bps"] == 0
