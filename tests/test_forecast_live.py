"""Live anticipatory lending: `jbof serve` as a subprocess with a ``forecast:``
section; forecasts pushed over its forecast socket move the scavenger's limit
in /metrics ahead of the predicted arrival, and the limit comes back when the
job finishes.  The planner's limits are applied like admin changes but never
written to the config file; the forecast socket reports bad messages one by
one, keeps the connection, and has no way to change an SLO.

Timeline (C = 2800 MiB/s, owner ``own`` reserves 700 MiB/s, headroom 5% while
anything is held; the warm-start calibration gives source ``sched`` q_0.01 = -0.5):

    before any forecast      own has no source: held       scav 2100 MiB/s (C - R)
    t0    forecast in 3 s    own lent (held from writers:  scav 2660 MiB/s (0.95 C)
                             due within the 2 s write
                             horizon, so the headroom)
    t0 + 3 e^-0.5 - 0.2 s    own due (= t0 + 1.62 s)       scav 2100 MiB/s
    t0 + 3 s   arrived       own active, held              scav 2100 MiB/s
    finished                 own idle, nothing held        scav 2800 MiB/s (C)

``own`` has an SLO but class ``reserved``: it is not guarded (planner.py
section 2), so it is held while due and running; ``scav`` reads 8 MiB first,
so the planner has measured it as a reader (section 9; unmeasured, it would be
planned as a writer).  tests/test_lending_guarded.py has a guarded owner.
"""
from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from control.daemon.admin import Client as AdminClient
from control.lending.forecast import Client, ForecastError

pytestmark = pytest.mark.needs_core
ROOT = Path(__file__).resolve().parent.parent
MIB = 1 << 20
CAP = 2800 * MIB
STATIC = CAP - 700 * MIB                 # what static partitioning lends
LENT = int(0.95 * CAP)                   # own lent, due within the write horizon
IDLE = CAP                               # nothing held: no headroom
LEAD_S = 3.0
RECLAIM_S = LEAD_S * 0.6065306597126334 - 0.2     # 3 e^-0.5 - horizon = 1.62 s

CONFIG = """\
drives: [{{name: d0, backend: memory, size: 64MiB}}]
tenants:
  - {{name: own, size: 16MiB, reserve: 700MiB/s, latency_slo: 5ms, class: reserved}}
  - {{name: scav, size: 16MiB, class: scavenger}}
forecast:
  socket: {sock}
  mode: "0600"
  capacity: 2800MiB/s
  tick: 20ms
  planner: {{slowdown_budget: 1%, horizon: 200ms}}
  calibration: {{sched: {residuals}}}
"""


class Served:
    def __init__(self, tmp: Path, proc: subprocess.Popen[str]) -> None:
        self.tmp, self.proc = tmp, proc
        self.admin = str(tmp / "admin.sock")
        self.forecast = str(tmp / "f.sock")
        self.config = tmp / "c.yaml"
        with AdminClient(self.admin, timeout=10) as c:
            self.ping = c.call("ping")
        self.metrics_url = str(self.ping["metrics"])

    def metric(self, name: str, tenant: str) -> float:
        text = urllib.request.urlopen(self.metrics_url, timeout=5).read().decode()
        for fam in text_string_to_metric_families(text):
            for s in fam.samples:
                if s.name == name and s.labels.get("tenant") == tenant:
                    return float(s.value)
        raise KeyError((name, tenant))

    def limit(self) -> int:
        return int(self.metric("jbof_tenant_limit_bytes_per_second", "scav"))


@pytest.fixture
def served() -> Iterator[Served]:
    from control_helpers import short_tmp
    tmp = short_tmp()
    residuals = [0.0] * 297 + [-0.5] * 3          # conformal q_0.01 = the 3rd smallest
    (tmp / "c.yaml").write_text(CONFIG.format(sock=tmp / "f.sock", residuals=residuals))
    proc = subprocess.Popen(
        [sys.executable, "-m", "control.cli", "serve", "--config", str(tmp / "c.yaml"),
         "--unix", str(tmp / "nbd.sock"), "--admin-socket", str(tmp / "admin.sock"),
         "--metrics", "127.0.0.1:0", "--log-level", "warning"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    first = proc.stdout.readline().strip()     # printed once NBD, admin and forecast accept
    if not first.startswith("nbd+unix://"):
        proc.kill()
        err = proc.stderr.read() if proc.stderr is not None else ""
        raise AssertionError(f"serve did not start: {first!r} {err}")
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
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)


def _state(config: Path) -> Path:
    """The state file serve keeps beside its config (live admin changes)."""
    return config.with_name(f"{config.stem}.state.yaml")


def read_some(s: Served, tenant: str, n: int = 8) -> None:
    """n MiB read by ``tenant`` over NBD, and the planner has measured it."""
    from test_nbd_protocol import NBD
    c = NBD(str(s.tmp / "nbd.sock"), tenant)
    try:
        for i in range(n):
            err, _ = c.read(i * MIB, MIB)
            assert err == 0
    finally:
        c.close()
    wait_until(lambda: s.metric("jbof_planner_borrower_measured", tenant) == 1, 5)
    assert s.metric("jbof_planner_borrower_write_ratio", tenant) == 0.0


def wait_until(what: Callable[[], bool], timeout_s: float, every_s: float = 0.02) -> float:
    """Poll until what() holds; the monotonic time it first held (AssertionError after
    timeout_s)."""
    deadline = time.monotonic() + timeout_s
    while True:
        if what():
            return time.monotonic()
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout_s}s")
        time.sleep(every_s)


def test_forecast_moves_the_scavenger_limit_ahead_of_the_arrival(served: Served) -> None:
    s = served
    assert s.ping["forecast"] == s.forecast
    assert stat.S_IMODE(os.stat(s.forecast).st_mode) == 0o600      # its own mode
    file_before = s.config.read_bytes()
    read_some(s, "scav")
    # Before any forecast the owner is held: scav gets what static partitioning leaves.
    wait_until(lambda: s.limit() == STATIC, 5)

    with Client(s.forecast) as c:
        t0 = time.monotonic()
        c.forecast("j1", "own", "sched", arrival_in=LEAD_S)
        t_lent = wait_until(lambda: s.limit() == LENT, 1.0)
        assert t_lent - t0 < RECLAIM_S

        # A planned limit shows in `jbof tenant ls` and survives an admin change to
        # another tenant, whose persisting leaves scav's configured (no) limit in the file.
        with AdminClient(s.admin, timeout=10) as a:
            rows = {r["name"]: r for r in a.call("tenant.list")["tenants"]}
            assert rows["scav"]["limit_bps"] == LENT and rows["scav"]["planned"]
            assert rows["scav"]["configured_limit_bps"] == 0
            assert s.config.read_bytes() == file_before          # ticks never write it
            a.call("tenant.set", name="own", weight=2)
        saved = yaml.safe_load(_state(s.config).read_text())["config"]   # live changes
        assert "limit" not in next(t for t in saved["tenants"] if t["name"] == "scav")
        assert saved["forecast"]["capacity"] == "2800MiB/s"      # the section is kept
        assert s.limit() == LENT

        # Reclaimed before the predicted arrival, and held until the job arrives.
        t_drop = wait_until(lambda: s.limit() == STATIC, LEAD_S + 1.0)
        drop_s = t_drop - t0
        assert RECLAIM_S - 0.3 < drop_s < LEAD_S, drop_s
        while time.monotonic() < t0 + LEAD_S:
            assert s.limit() == STATIC
            time.sleep(0.05)
        c.arrived("j1", "own")
        t_arrived = time.monotonic()
        time.sleep(0.2)                                          # ten ticks
        assert s.limit() == STATIC                               # the owner runs: held

    r = subprocess.run([sys.executable, "-m", "control.cli", "forecast", "push", "--json",
                        "--socket", s.forecast, json.dumps({"type": "finished", "job": "j1"})],
                       cwd=ROOT, capture_output=True, text=True, timeout=30, check=False)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["ok"] is True
    t_back = wait_until(lambda: s.limit() == IDLE, 2.0)
    print(f"\ntimeline (s after the forecast; predicted arrival {LEAD_S:.2f}, planned "
          f"reclaim {RECLAIM_S:.2f}): lent at {t_lent - t0:.3f}, reclaimed at {drop_s:.3f}, "
          f"arrived at {t_arrived - t0:.3f}, lent again at {t_back - t0:.3f} "
          f"(limits {LENT / MIB:.0f} -> {STATIC / MIB:.0f} -> {IDLE / MIB:.0f} MiB/s)")

    # Shutdown: the forecast service stops before the data plane, and cleanly.
    s.proc.send_signal(signal.SIGTERM)
    assert s.proc.wait(timeout=20) == 0
    assert s.proc.stderr is not None
    err = s.proc.stderr.read()
    assert "Traceback" not in err and "stopped after" in err, err
    assert not os.path.exists(s.forecast)
    assert s.config.read_bytes() == file_before          # the config file: never rewritten
    assert "limit" not in next(t for t in yaml.safe_load(_state(s.config).read_text())
                               ["config"]["tenants"] if t["name"] == "scav")


def test_forecast_socket_errors_keep_the_connection_and_cannot_change_slos(
        served: Served) -> None:
    s = served
    slo = s.metric("jbof_tenant_latency_slo_seconds", "own")
    reserve = s.metric("jbof_tenant_reserve_bytes_per_second", "own")
    assert (slo, reserve) == (0.005, 700 * MIB)
    with Client(s.forecast) as c:
        c.send_raw(b'{"type": "forecast", "job": \n')
        bad = c.read_reply()
        assert bad["ok"] is False and bad["error"]["code"] == "bad_json"
        assert set(bad["error"]) == {"code", "key", "message"}
        attempts: list[Mapping[str, Any]] = [
            {"type": "forecast", "job": "j9", "tenant": "own", "source": "sched",
             "arrival_in": 60, "latency_slo": "1ms"},
            {"type": "forecast", "job": "j9", "tenant": "own", "source": "sched",
             "arrival_in": 60, "demand": {"reserve": "1GiB/s"}},
            {"type": "tenant.set", "name": "own", "latency_slo": "1ms"},
            {"v": 1, "op": "tenant.set", "args": {"name": "own", "latency_slo": "1ms"}},
            {"type": "forecast", "job": "j9", "tenant": "scav", "source": "sched",
             "arrival_in": 60},
        ]
        replies = c.request_many(attempts, check=False)
        codes = [r["error"]["code"] if not r["ok"] else "ok" for r in replies]
        assert codes == ["invalid", "invalid", "unknown_type", "unknown_type",
                         "unknown_tenant"], replies
        assert replies[0]["error"]["key"] == "latency_slo"
        with pytest.raises(ForecastError) as e:
            c.cancel("nope")
        assert e.value.code == "unknown_job"
        assert "jobs" in c.ls()                                  # the same connection
    assert s.metric("jbof_tenant_latency_slo_seconds", "own") == slo
    assert s.metric("jbof_tenant_reserve_bytes_per_second", "own") == reserve
    with AdminClient(s.admin, timeout=10) as a:
        own = next(t for t in a.call("tenant.list")["tenants"] if t["name"] == "own")
    assert own["latency_slo_ns"] == 5_000_000 and own["reserve_bps"] == 700 * MIB


# ------------------------------------------- the config section, in process ---

ONE = """\
drives: [{name: d0, backend: memory, size: 64MiB}]
tenants:
  - {name: own, size: 16MiB, reserve: 700MiB/s}
  - {name: scav, size: 16MiB, class: scavenger, limit: 2GiB/s}
  - {name: be, size: 16MiB}
"""


def test_forecast_section_is_part_of_the_one_schema(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from control.cli import main
    from control.config import forecast_settings, load_config, parse_config
    from control.config_export import dump_yaml
    from control.state import write_atomic
    from control.config_schema import SECTIONS, schema_text
    titles = [t for t, _ in SECTIONS]
    assert "forecast" in titles and "forecast.planner" in titles
    text = schema_text()
    for key in ("capacity", "calibration", "slowdown_budget", "fallback_window", "tick"):
        assert f"  {key} " in text
    raw = yaml.safe_load(ONE + f"forecast: {{socket: {tmp_path}/f.sock, capacity: 2800MiB/s, "
                         "planner: {horizon: 300ms}, calibration: {sched: [0.0, -0.1]}}\n")
    cfg = parse_config(raw, "d.yaml")
    fs = forecast_settings(cfg)
    assert fs is not None and fs["drive"] == "d0" and fs["socket"] == f"{tmp_path}/f.sock"
    assert fs["planner"].horizon_s == 0.3 and fs["calibration"] == {"sched": [0.0, -0.1]}
    f = tmp_path / "d.yaml"
    write_atomic(f, dump_yaml(cfg))          # the canonical document keeps the section
    assert load_config(f) == dataclasses_replace_source(cfg, str(f))
    assert forecast_settings(parse_config(yaml.safe_load(ONE), "d.yaml")) is None
    r = CliRunner().invoke(main, ["config", "check", str(f)])
    assert r.exit_code == 0 and f"forecast {tmp_path}/f.sock" in r.stdout


def dataclasses_replace_source(cfg: Any, src: str) -> Any:
    import dataclasses
    return dataclasses.replace(cfg, source=src)


@pytest.mark.parametrize("extra,key", [
    ("forecast: {socket: f.sock}", "forecast.capacity"),
    ("forecast: {capacity: 1GiB/s, planner: {nope: 1}}", "forecast.planner.nope"),
    ("forecast: {capacity: 1GiB/s, drive: d9}", "forecast.drive"),
    ("forecast: {capacity: 1GiB/s, latency_slo: 1ms}", "forecast.latency_slo"),
    ("forecast: [1]", "forecast"),
])
def test_forecast_section_errors_are_one_line(extra: str, key: str) -> None:
    from control.config import parse_config
    from control.errors import ConfigError
    with pytest.raises(ConfigError) as e:
        parse_config(yaml.safe_load(ONE + extra), "d.yaml")
    assert e.value.path == key and str(e.value).startswith("d.yaml: ") and "\n" not in str(e.value)


def test_forecast_capacity_is_checked_against_the_drive() -> None:
    from control.config import parse_config
    from control.errors import ConfigError
    two = ("drives: [{name: a, backend: memory, size: 64MiB, capacity: 1GiB/s}, "
           "{name: b, backend: memory, size: 64MiB}]\n")
    with pytest.raises(ConfigError) as e:
        parse_config(yaml.safe_load(two + "forecast: {capacity: 1GiB/s}"), "d.yaml")
    assert e.value.path == "forecast.drive" and "several drives" in str(e.value)
    with pytest.raises(ConfigError) as e:
        parse_config(yaml.safe_load(two + "forecast: {drive: a, capacity: 2GiB/s}"), "d.yaml")
    assert e.value.path == "forecast.capacity" and "above drive 'a'" in str(e.value)
    parse_config(yaml.safe_load(two + "forecast: {drive: b, capacity: 2GiB/s}"), "d.yaml")


class FakeEngine:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def set_tenant(self, name: str, **settings: Any) -> None:
        self.calls.append((name, settings))

    def uri(self, name: str, transport: str) -> str:
        raise ValueError(f"no {transport} listener")

    def tenant_stats(self, name: str) -> dict[str, Any]:
        return {"connections": 0}


def test_planned_limits_are_live_capped_and_never_persisted(tmp_path: Path) -> None:
    from control.daemon.operations import Operations
    from control.config import load_config
    f = tmp_path / "d.yaml"
    f.write_text(ONE)
    cfg = load_config(f)
    eng = FakeEngine()
    ctl = Operations(eng, cfg, str(tmp_path / "d.state.yaml"), lambda: None)
    ctl.set_planned_limit("scav", 1 * 1024 * MIB)
    assert eng.calls[-1] == ("scav", {**eng.calls[-1][1], "limit": 1024 * MIB})
    assert ctl.live_config.tenant("scav").limit == 1024 * MIB
    assert ctl.config.tenant("scav").limit == 2048 * MIB          # configured: unchanged
    assert f.read_text() == ONE                                   # nothing written
    ctl.set_planned_limit("scav", 3 * 1024 * MIB)                 # capped by its own limit
    assert ctl.live_config.tenant("scav").limit == 2048 * MIB
    n = len(eng.calls)
    ctl.set_planned_limit("be", 5 * MIB)                          # not a scavenger: ignored
    ctl.set_planned_limit("gone", 5 * MIB)                        # not a tenant: ignored
    assert len(eng.calls) == n and ctl.live_config.tenant("be").limit == 0
    ctl.set_planned_limit("scav", 100 * MIB)
    # an admin change to the scavenger applies the planned limit with it and saves only
    # the configured settings
    ctl.handle("tenant.set", {"name": "scav", "weight": 3})
    assert eng.calls[-1] == ("scav", {**eng.calls[-1][1], "weight": 3, "limit": 100 * MIB})
    assert f.read_text() == ONE                                   # never the config file
    saved = yaml.safe_load((tmp_path / "d.state.yaml").read_text())["config"]
    assert next(t for t in saved["tenants"] if t["name"] == "scav")["limit"] == "2GiB/s"
    rows = {r["name"]: r for r in ctl.handle("tenant.list", {})["tenants"]}
    assert rows["scav"]["limit_bps"] == 100 * MIB and rows["scav"]["planned"]
    assert rows["scav"]["configured_limit_bps"] == 2048 * MIB and not rows["own"]["planned"]
    ctl.clear_planned()
    assert eng.calls[-1][1]["limit"] == 2048 * MIB
    assert ctl.live_config == ctl.config
