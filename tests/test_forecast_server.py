"""The forecast socket (control/lending/forecast_server.py), its client and ``jbof forecast``.

The service runs its own thread; its clock is injected (a list holding the
"now"), so the planner's decisions are exact while the socket is real.
"""
from __future__ import annotations

import json
import math
import os
import socket
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from control.cli import main
from control.lending.forecast import Client, ForecastError
from control.lending.forecast_server import ForecastService
from control.lending.planner import Planner, PlannerConfig

MiB = 1 << 20
CAP = 2800 * MiB


class Clock:
    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def make_planner(warm: bool = True) -> Planner:
    p = Planner(PlannerConfig(capacity_bps=CAP),
                {"team-a": 700 * MiB, "team-b": 700 * MiB, "team-c": 700 * MiB},
                {"batch": 0.0})
    if warm:   # q_0.01 = -0.9, the worked example of control/lending/planner.py
        p.source("sched").add_residuals([0.0] * 297 + [-0.9] * 3)
        for o in p.owners:
            p.owner_source[o] = "sched"
    return p


@pytest.fixture
def svc(tmp_path: Path) -> Iterator[tuple[ForecastService, Clock, list[tuple[str, int]]]]:
    clock = Clock(100.0)
    applied: list[tuple[str, int]] = []
    s = ForecastService(str(tmp_path / "f.sock"), make_planner(),
                        lambda t, bps: applied.append((t, bps)), tick_s=0.01, clock=clock,
                        mode=0o600)
    s.start()
    yield s, clock, applied
    s.stop()


def wait_for(cond: Callable[[], bool], timeout: float = 5.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.005)
    return cond()


def test_socket_has_its_own_mode(svc: Any) -> None:
    s, _, _ = svc
    st = os.stat(s.path)
    assert stat.S_ISSOCK(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600


def test_push_and_ls(svc: Any) -> None:
    s, clock, _ = svc
    with Client(s.path) as c:
        r = c.forecast("j1", "team-a", "sched", arrival_in=20, duration="10m",
                       demand={"read_rate": "500MiB/s"})
        assert r["ok"] and r["job"] == "j1" and r["type"] == "forecast"
        st = c.ls()
        assert [j["job"] for j in st["jobs"]] == ["j1"]
        j = st["jobs"][0]
        assert j["arrival_in_s"] == 20 and j["state"] == "pending"
        assert j["reclaim_in_s"] == pytest.approx(20 * math.exp(-0.9) - 0.2, abs=1e-3)
        assert st["sources"]["sched"]["trusted"]
        clock.t = 118.0                                 # ln(18 / 20) = -0.1 >= -0.9: covered
        assert c.arrived("j1", "team-a")["miss"] is False
        assert c.finished("j1")["ok"]
        assert c.ls()["jobs"] == []


def test_bad_messages_do_not_drop_the_connection(svc: Any) -> None:
    s, _, _ = svc
    with Client(s.path) as c:
        c.send_raw(b'{oops\n'
                   b'{"type": "forecast", "job": "j", "tenant": "team-a", "source": "s", '
                   b'"arrival_in": 5, "latency_slo": "1ms", "id": 1}\n'
                   b'\n'
                   b'{"type": "forecast", "job": "j", "tenant": "nobody", "source": "s", '
                   b'"arrival_in": 5, "id": 2}\n'
                   b'{"type": "cancel", "job": "ghost", "id": 3}\n'
                   b'{"type": "forecast", "job": "j", "tenant": "team-a", "source": "s", '
                   b'"arrival_in": 5, "id": 4}\n')
        replies = [c.read_reply() for _ in range(5)]
        assert [r.get("error", {}).get("code") for r in replies] == \
            ["bad_json", "invalid", "unknown_tenant", "unknown_job", None]
        assert replies[1]["error"]["key"] == "latency_slo" and replies[1]["id"] == 1
        assert replies[4] == {"ok": True, "type": "forecast", "id": 4, "job": "j"}
        # an over-long line: one too_long error, then business as usual
        c.send_raw(b"x" * (70 * 1024))
        c.send_raw(b"yyy\n" + b'{"type": "ls", "id": 5}\n')
        r = c.read_reply()
        assert r["error"]["code"] == "too_long"
        r = c.read_reply()
        assert r["ok"] and r["id"] == 5
        with pytest.raises(ForecastError) as e:
            c.cancel("nope")
        assert e.value.code == "unknown_job"


def test_limit_drops_ahead_of_predicted_arrival(svc: Any) -> None:
    """The borrower's limit falls at reclaim_at = 100 + 20 e^-0.9 - 0.2 = 107.93 s,
    12 s before the predicted arrival at 120 s."""
    s, clock, applied = svc
    assert wait_for(lambda: bool(applied))
    lent = applied[-1][1]
    assert applied[-1][0] == "batch" and lent == CAP       # all three owners lent, no headroom
    with Client(s.path) as c:
        c.forecast("j1", "team-a", "sched", arrival_in=20)
    clock.t = 105.0
    time.sleep(0.1)
    assert applied[-1][1] == lent
    clock.t = 107.8                  # due within the write horizon: the headroom is kept
    assert wait_for(lambda: applied[-1][1] == int(0.95 * CAP))
    clock.t = 108.0
    assert wait_for(lambda: applied[-1][1] < int(0.95 * CAP))
    assert applied[-1][1] == int(0.95 * CAP) - 700 * MiB      # due: held, and the headroom
    clock.t = 120.0                                                     # it arrives on time
    with Client(s.path) as c:
        c.arrived("j1", "team-a")
        c.finished("j1")
    assert wait_for(lambda: applied[-1][1] == lent)


def test_stale_socket_replaced_live_one_refused(tmp_path: Path) -> None:
    path = str(tmp_path / "f.sock")
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(path)
    stale.close()                                   # a dead daemon's socket file
    a = ForecastService(path, make_planner(), lambda t, b: None)
    a.start()
    try:
        b = ForecastService(path, make_planner(), lambda t, b: None)
        with pytest.raises(OSError, match="in use"):
            b.start()
    finally:
        a.stop()
    assert not os.path.exists(path)


def test_for_engine_wiring(tmp_path: Path) -> None:
    """What ``jbof serve`` will call: roles from its tenants, limits via Engine.set_tenant."""
    calls: list[tuple[str, dict[str, int]]] = []

    class FakeEngine:
        def set_tenant(self, name: str, **changes: int) -> None:
            calls.append((name, changes))

        def tenant_stats(self, name: str) -> dict[str, Any]:
            # every borrower has read 1 GiB: measured as a reader at the first tick
            return {"tenant": {"read_bytes": 1 << 30, "write_bytes": 0}}

    tenants = [{"name": "reader", "class": "latency", "reserve": 100 * MiB},
               {"name": "trainer", "class": "best-effort", "reserve": 0},
               {"name": "batch", "class": "scavenger", "reserve": 0},
               {"name": "capped", "class": "scavenger", "reserve": 0, "limit": 100 * MiB}]
    assert ForecastService.roles(tenants) == ({"reader": 100 * MiB},
                                              {"batch": 0.0, "capped": 0.0})
    s = ForecastService.for_engine(FakeEngine(), tenants, str(tmp_path / "f.sock"), CAP)
    try:
        assert wait_for(lambda: len(calls) >= 2)
        # no forecasting source yet: the owner is held, the borrowers split the static
        # partition -- never above a borrower's own configured limit
        assert dict(calls[:2]) == {"batch": {"limit": (CAP - 100 * MiB) // 2},
                                   "capped": {"limit": 100 * MiB}}
        # write fractions measured from the engine's counters; "reader" has no SLO
        assert s.write_mix is not None and s.write_mix.measured("batch")
        assert s.planner.guarded == frozenset()
    finally:
        s.stop()
    assert dict(calls[-2:]) == {"batch": {"limit": 0}, "capped": {"limit": 100 * MiB}}


def test_apply_errors_are_not_fatal(tmp_path: Path) -> None:
    def boom(t: str, b: int) -> None:
        raise RuntimeError("tenant gone")
    s = ForecastService(str(tmp_path / "f.sock"), make_planner(), boom, tick_s=0.01)
    s.start()
    try:
        time.sleep(0.05)
        with Client(s.path) as c:
            assert c.ls()["ok"]
    finally:
        s.stop()


def test_cli_push_and_ls(svc: Any) -> None:
    s, _, _ = svc
    run = CliRunner()
    r = run.invoke(main, ["forecast", "push", "--json", "--socket", s.path, "--job", "j9", "--tenant",
                          "team-b", "--source", "sched", "--arrival-in", "30s",
                          "--read-rate", "400MiB/s"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output.splitlines()[0])["ok"]
    r = run.invoke(main, ["forecast", "push", "--json", "--socket", s.path, "-"],
                   input='{"type": "arrived", "job": "j9", "tenant": "team-b"}\n'
                         '{"type": "arrived", "job": "j9", "tenant": "team-x"}\n')
    assert r.exit_code == 1
    lines = r.output.strip().splitlines()
    assert json.loads(lines[0])["ok"] and not json.loads(lines[1])["ok"]
    assert lines[-1] == "Error: 1 of 2 message(s) refused"
    r = run.invoke(main, ["forecast", "push", "--socket", s.path, "-"],      # table mode
                   input='{"type": "arrived", "job": "j9", "tenant": "team-x"}\n')
    assert r.output.startswith("message 1: refused: ") and "{" not in r.output.splitlines()[0]
    r = run.invoke(main, ["forecast", "ls", "--socket", s.path])
    assert r.exit_code == 0, r.output
    assert "j9" in r.output and "team-b" in r.output and "active" in r.output
    r = run.invoke(main, ["forecast", "ls", "--socket", s.path, "--json"])
    assert json.loads(r.output)["jobs"][0]["state"] == "active"


def test_cli_errors_are_one_line(tmp_path: Path) -> None:
    run = CliRunner()
    r = run.invoke(main, ["forecast", "ls", "--socket", str(tmp_path / "none.sock")])
    assert r.exit_code == 1
    assert r.output.startswith("Error: cannot connect to the forecast socket")
    assert len(r.output.strip().splitlines()) == 1
    r = run.invoke(main, ["forecast", "push", "--socket", str(tmp_path / "x"), "{nope"])
    assert r.exit_code == 2 and "is not JSON" in r.output
    r = run.invoke(main, ["forecast", "push", "--socket", str(tmp_path / "x"), "--job", "j"])
    assert r.exit_code == 2 and "--tenant" in r.output


def test_daemon_config_section_and_from_config(tmp_path: Path) -> None:
    """The daemon's ``forecast:`` section -> one call that starts the service."""
    from control.lending.forecast_server import parse_forecast_config
    raw = {"socket": str(tmp_path / "fc.sock"), "mode": "0600", "capacity": "2800MiB/s",
           "tick": "20ms", "planner": {"slowdown_budget": "1%", "horizon": "200ms"},
           "calibration": {"sched": [0.0] * 297 + [-0.9] * 3}}
    fcfg = parse_forecast_config(raw, "serve.yaml")
    assert fcfg["mode"] == 0o600 and fcfg["tick_s"] == 0.02
    assert fcfg["planner"].capacity_bps == CAP and fcfg["planner"].slowdown_budget == 0.01

    calls: list[tuple[str, dict[str, int]]] = []

    class FakeEngine:
        def set_tenant(self, name: str, **changes: int) -> None:
            calls.append((name, changes))

        def tenant_stats(self, name: str) -> dict[str, Any]:
            # every borrower has read 1 GiB: measured as a reader at the first tick
            return {"tenant": {"read_bytes": 1 << 30, "write_bytes": 0}}

    tenants = [{"name": "team-a", "class": "reserved", "reserve": 700 * MiB},
               {"name": "batch", "class": "scavenger", "reserve": 0}]
    s = ForecastService.from_config(FakeEngine(), fcfg, tenants)
    try:
        assert stat.S_IMODE(os.stat(s.path).st_mode) == 0o600
        assert s.planner.source("sched").lower() == -0.9          # warm-started
        with Client(s.path) as c:
            c.forecast("j1", "team-a", "sched", arrival_in=3600)   # lends team-a for ~24 min
        assert wait_for(lambda: calls[-1] == ("batch", {"limit": CAP}))
    finally:
        s.stop()


@pytest.mark.parametrize("raw,key", [
    ({}, "forecast.capacity"),
    ({"capacity": "fast"}, "forecast.capacity"),
    ({"capacity": "1GiB/s", "mode": "0999"}, "forecast.mode"),
    ({"capacity": "1GiB/s", "tick": "0s"}, "forecast.tick"),
    ({"capacity": "1GiB/s", "planner": {"slowdown_budget": "70%"}}, "forecast.planner"),
    ({"capacity": "1GiB/s", "planner": {"nope": 1}}, "forecast.planner.nope"),
    ({"capacity": "1GiB/s", "calibration": {"s": ["x"]}}, "forecast.calibration"),
    ({"capacity": "1GiB/s", "slo": "1ms"}, "forecast.slo"),
])
def test_daemon_config_errors(raw: dict[str, Any], key: str) -> None:
    from control.errors import ConfigError
    from control.lending.forecast_server import parse_forecast_config
    with pytest.raises(ConfigError) as e:
        parse_forecast_config(raw, "serve.yaml")
    assert e.value.path == key, str(e.value)
    assert str(e.value).startswith("serve.yaml: ") and "\n" not in str(e.value)
