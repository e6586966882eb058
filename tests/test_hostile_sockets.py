"""Hostile clients (issue 13, part 5): what an attacker on the same host tried.

Each test is bounded in time and uses unix sockets only.  The admin socket runs
in an in-process daemon (needs the C core); the forecast socket and the YAML
loader do not need it.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from control.lending.forecast import Client
from control.lending.forecast_server import ForecastService
from test_forecast_server import Clock, make_planner

ROOT = Path(__file__).resolve().parent.parent
MiB = 1 << 20


def wait_for(cond: Callable[[], bool], timeout: float = 10.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.01)
    return cond()


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def raw(path: str, line: bytes, timeout: float = 5.0) -> dict[str, Any]:
    """One request line on a fresh connection, its reply decoded."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(path)
        s.sendall(line)
        buf = b""
        while b"\n" not in buf:
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
    return json.loads(buf.split(b"\n")[0])


@pytest.fixture
def fsvc(tmp_path: Path) -> Iterator[tuple[ForecastService, Clock, list[tuple[str, int]]]]:
    clock = Clock(time.time())
    applied: list[tuple[str, int]] = []
    s = ForecastService(str(tmp_path / "f.sock"), make_planner(),
                        lambda t, bps: applied.append((t, bps)), tick_s=0.05, clock=clock,
                        mode=0o600)
    s.start()
    yield s, clock, applied
    s.stop()


# ------------------------------------------------------------- admin socket ---

@pytest.mark.needs_core
def test_duplicate_op_cannot_shut_the_daemon_down() -> None:
    from control_helpers import daemon
    from test_admin import CFG
    with daemon(CFG) as d:
        r = raw(d.admin, b'{"v":1,"op":"ping","op":"shutdown"}\n')
        assert r["ok"] is False and r["error"]["code"] == "bad_json"
        assert "'op'" in r["error"]["message"] and "duplicate" in r["error"]["message"]
        for line in (b'{"v":1,"v":1,"op":"shutdown"}\n',
                     b'{"v":1,"op":"tenant.set","args":{"name":"a","weight":NaN}}\n',
                     b'{"v":1,"op":"tenant.set","args":{"name":"a","limit":1e999}}\n',
                     b'{"v":1,"op":"tenant.set","args":{"name":"a","name":"b"}}\n'):
            r = raw(d.admin, line)
            assert r["ok"] is False and r["error"]["code"] == "bad_json", (line, r)
            assert "\n" not in r["error"]["message"]
        time.sleep(0.2)
        assert not d.stop.is_set()
        with d.client() as c:
            assert c.call("ping")["version"] == 1


@pytest.mark.needs_core
def test_admin_handler_bugs_answer_internal_and_keep_serving(monkeypatch: Any) -> None:
    from control_helpers import daemon
    from test_admin import CFG
    with daemon(CFG) as d:
        ctl = d.plane.control
        monkeypatch.setattr(ctl, "handle", lambda *a: (_ for _ in ()).throw(KeyError("boom")))
        r = raw(d.admin, b'{"v":1,"op":"ping"}\n')
        assert r["error"]["code"] == "internal" and "KeyError" in r["error"]["message"]
        monkeypatch.undo()
        monkeypatch.setattr(ctl, "after", lambda op: 1 / 0)      # after the reply
        assert raw(d.admin, b'{"v":1,"op":"ping"}\n')["ok"] is True
        monkeypatch.undo()
        with d.client() as c:
            assert c.call("ping")["version"] == 1
        assert not d.stop.is_set()


# ---------------------------------------------------------- forecast socket ---

NOW_LINES = [
    (b'{"type":"arrived","job":"x","tenant":"team-a","at":1.7e308}', "invalid", "at"),
    (b'{"type":"finished","job":"x","at":NaN}', "bad_json", "at"),
    (b'{"type":"forecast","job":"y","tenant":"team-a","source":"sched",'
     b'"arrival_at":1.7e308}', "invalid", "arrival_at"),
    (b'{"type":"forecast","job":"y","tenant":"team-a","source":"sched",'
     b'"arrival_in":Infinity}', "bad_json", "arrival_in"),
    (b'{"type":"forecast","job":"y","tenant":"team-a","source":"sched",'
     b'"arrival_in":1e999}', "bad_json", "arrival_in"),
    (b'{"type":"forecast","job":"y","tenant":"team-a","source":"sched",'
     b'"arrival_in":-5}', "invalid", "arrival_in"),
    (b'{"type":"forecast","job":"y","tenant":"team-a","source":"sched",'
     b'"arrival_in":5,"duration":"-1s"}', "invalid", "duration"),
    (b'{"type":"forecast","job":"y","tenant":"team-a","source":"sched",'
     b'"arrival_quantiles":{"0.9":-Infinity},"arrival_in":5}', "bad_json", "0.9"),
    (b'{"type":"ls","type":"cancel","job":"z"}', "bad_json", "type"),
    (b'{"type":"arrived","job":"x","tenant":"team-a","at":1e13}', "invalid", "at"),
]


def test_non_finite_and_out_of_range_times_are_refused(fsvc: Any) -> None:
    s, _, _ = fsvc
    ticks = s.tick_errors
    for line, code, key in NOW_LINES:
        r = raw(s.path, line + b"\n")
        assert r["ok"] is False and r["error"]["code"] == code, (line, r)
        assert r["error"]["key"] == key, (line, r)
    with Client(s.path) as c:                # still serving; the planner still plans
        assert c.ls()["jobs"] == []
    assert s._thread is not None and s._thread.is_alive() and s.tick_errors == ticks
    s.tick()


def test_forecast_flood_is_bounded(tmp_path: Path) -> None:
    clock = Clock(time.time())
    s = ForecastService(str(tmp_path / "f.sock"), make_planner(), lambda t, bps: None,
                        tick_s=0.1, clock=clock, mode=0o600)
    s.start()
    try:
        rss0 = rss_bytes()
        codes: dict[str, int] = {}
        with Client(s.path, timeout_s=60) as c:
            for k in range(0, 100_000, 2000):
                for r in c.request_many([
                        {"type": "forecast", "job": f"f{i}", "tenant": "team-b",
                         "source": f"s{i % 50}", "arrival_in": 30} for i in range(k, k + 2000)],
                        check=False):
                    code = "ok" if r["ok"] else r["error"]["code"]
                    codes[code] = codes.get(code, 0) + 1
            svc = c.ls()["service"]
        assert codes["ok"] <= s.max_jobs and codes["limit"] >= 100_000 - s.max_jobs
        assert set(codes) == {"ok", "limit"}
        assert svc["jobs"] <= svc["max_jobs"] == 1024 and svc["sources"] <= 32
        assert max(svc["live_per_source"].values()) <= svc["max_jobs_per_source"]
        assert rss_bytes() - rss0 < 40 * MiB            # was +81 MB and never freed
        # a tick's work is bounded by the caps (1024 jobs: a few ms, not 100K jobs)
        t0 = time.process_time()
        for _ in range(10):
            s.tick()
        assert (time.process_time() - t0) / 10 < 0.05
        # the forecasts' time passes: everything is forgotten, ticks are idle again
        clock.t += 30 + 2 * 3600
        assert wait_for(lambda: len(s.planner.jobs) == 0, timeout=10)
        t0 = time.process_time()
        for _ in range(10):
            s.tick()
        assert (time.process_time() - t0) / 10 < 0.005
        with Client(s.path) as c:                      # and new forecasts are welcome
            assert c.forecast("late", "team-a", "sched", arrival_in=30)["ok"]
    finally:
        s.stop()


def test_per_source_cap_and_finished_jobs_free_slots(fsvc: Any) -> None:
    s, clock, _ = fsvc
    s.max_jobs, s.max_jobs_per_source = 8, 4
    with Client(s.path) as c:
        for i in range(4):
            c.forecast(f"a{i}", "team-a", "sched", arrival_in=30)
        with pytest.raises(Exception) as e:
            c.forecast("a4", "team-a", "sched", arrival_in=30)
        assert getattr(e.value, "code", "") == "limit" and e.value.key == "source"
        c.forecast("a0", "team-a", "sched", arrival_in=40)     # an update: not a new job
        for i in range(4):
            c.forecast(f"b{i}", "team-b", "other", arrival_in=30)
        with pytest.raises(Exception) as e:
            c.forecast("c0", "team-c", "third", arrival_in=30)
        assert e.value.code == "limit" and e.value.key == "job"
        c.cancel("b0")
        c.arrived("a1", "team-a")
        c.finished("a1")
        assert c.forecast("c0", "team-c", "third", arrival_in=30)["ok"]   # ended jobs went


def test_sources_are_capped(fsvc: Any) -> None:
    s, _, _ = fsvc
    s.max_sources = len(s.planner.sources) + 1
    with Client(s.path) as c:
        c.forecast("j1", "team-a", "new-source", arrival_in=30)
        with pytest.raises(Exception) as e:
            c.forecast("j2", "team-a", "yet-another", arrival_in=30)
        assert e.value.code == "limit" and e.value.key == "source"


def test_idle_connections_are_capped_then_timed_out(tmp_path: Path) -> None:
    s = ForecastService(str(tmp_path / "f.sock"), make_planner(), lambda t, bps: None,
                        tick_s=0.1, clock=Clock(time.time()), mode=0o600, idle_timeout_s=1.0)
    s.max_clients_per_peer = None          # every connection is this process's
    s.start()
    held: list[socket.socket] = []
    try:
        for _ in range(70):
            c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            c.settimeout(5)
            assert wait_for(lambda: c.connect_ex(s.path) == 0, timeout=5)
            held.append(c)
        busy = []
        for c in held[64:]:                # the 65th on: one busy line, then closed
            busy.append(json.loads(c.recv(4096).split(b"\n")[0])["error"]["code"])
        assert busy == ["busy"] * 6
        # the idle 64 are closed by the server within the idle timeout (+ slack)
        t0 = time.monotonic()
        for c in held[:64]:
            assert c.recv(4096) == b""
        assert time.monotonic() - t0 < 5
        with Client(s.path) as good:       # a well-behaved client is served again
            assert good.ls()["ok"]
    finally:
        for c in held:
            c.close()
        s.stop()


SQUATTER = """
import socket, sys, time
held, busy = [], 0
for _ in range(40):
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.connect(sys.argv[1]); c.settimeout(0.2)
    try:
        busy += b'"busy"' in c.recv(4096)
    except OSError:
        pass
    held.append(c)
print(busy, flush=True)
time.sleep(30)
"""


def test_one_process_cannot_take_every_slot(fsvc: Any) -> None:
    s, _, _ = fsvc
    p = subprocess.Popen([sys.executable, "-c", SQUATTER, s.path], stdout=subprocess.PIPE,
                         text=True)
    try:
        line = p.stdout.readline() if p.stdout else ""
        assert int(line) == 40 - 16          # 16 per process, the rest refused
        with Client(s.path) as good:           # another process still gets served at once
            assert good.ls()["ok"]
    finally:
        p.kill()
        p.wait(timeout=10)


def test_handler_exception_does_not_kill_the_server(fsvc: Any, monkeypatch: Any) -> None:
    s, _, _ = fsvc
    server = s._server
    monkeypatch.setattr(s, "handle_line", lambda line: (_ for _ in ()).throw(
        RuntimeError("injected")))
    r = raw(s.path, b'{"type":"ls"}\n')
    assert r["ok"] is False and r["error"]["code"] == "internal"
    assert server is not None and server.internal_errors == 1
    monkeypatch.undo()
    with Client(s.path) as c:
        assert c.ls()["ok"]
    assert server._thread is not None and server._thread.is_alive()


def test_planner_survives_failing_ticks(fsvc: Any, monkeypatch: Any) -> None:
    s, _, applied = fsvc
    real = s.planner.plan
    monkeypatch.setattr(s.planner, "plan", lambda now: (_ for _ in ()).throw(
        ValueError("injected planner bug")))
    assert wait_for(lambda: s.tick_errors >= 3)
    static = s.planner.split(s.planner.static_pool_bps, s.planner.static_pool_bps, 1.0)
    assert wait_for(lambda: s.applied == static)       # owners keep their reservations
    assert s._thread is not None and s._thread.is_alive()
    with Client(s.path) as c:
        assert c.ls()["service"]["tick_errors"] >= 3
    monkeypatch.setattr(s.planner, "plan", real)
    assert wait_for(lambda: s.applied == real(s.clock()).limits)   # planning again
    assert s._thread.is_alive()


# --------------------------------------------------------------------- YAML ---

def bomb(levels: int = 9) -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    prev = "a"
    for name in "bcdefghijk"[:levels - 1]:
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
        prev = name
    return "\n".join(lines) + "\n"


YAML_ATTACKS = {
    "billion-laughs": (bomb(), "YAML expands to more than 100000 nodes"),
    "deep-flow": ("x: " + "[" * 20000 + "]" * 20000 + "\n", "YAML nesting deeper than 64 levels"),
    "deep-block": ("".join("  " * i + f"k{i}:\n" for i in range(200)) + "  " * 200 + "v: 1\n",
                   "YAML nesting deeper than 64 levels"),
    "deep-through-aliases": ("a: &a " + "[" * 60 + "1" + "]" * 60 + "\nb: &b [*a]\nc: [[[[*b]]]]\n",
                             "YAML nesting deeper than 64 levels"),
    "recursive-alias": ("a: &a [*a]\n", "recursive YAML alias"),
    "many-aliases": ("x: &x 1\n" + "".join(f"y{i}: *x\n" for i in range(150)),
                     "more than 100 YAML aliases"),
}


@pytest.mark.parametrize("name", sorted(YAML_ATTACKS))
def test_config_check_refuses_hostile_yaml(tmp_path: Path, name: str) -> None:
    text, phrase = YAML_ATTACKS[name]
    f = tmp_path / "config.yaml"
    f.write_text(text)
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "control.cli", "config", "check", str(f)],
                       capture_output=True, text=True, timeout=30, cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode != 0
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
    assert f"config.yaml: {phrase}" in r.stderr, r.stderr
    assert time.monotonic() - t0 < 15


def test_yaml_size_is_bounded(tmp_path: Path) -> None:
    from control.errors import ConfigError
    from control.schema import MAX_YAML_BYTES, load_yaml
    f = tmp_path / "big.yaml"
    with f.open("wb") as out:
        out.truncate(MAX_YAML_BYTES + 1)       # sparse: no 16 MiB written
    with pytest.raises(ConfigError, match="larger than 16 MiB"):
        load_yaml(f)


def test_real_configs_are_within_the_yaml_bounds() -> None:
    from control.schema import load_yaml
    files = sorted(ROOT.glob("configs/**/*.yaml"))
    assert files
    for f in files:
        load_yaml(f)
