"""Guarded owners live (planner.py sections 2 and 9): the daemon measures each
scavenger's write fraction from the data plane's byte counters and, while a
latency-critical owner with an SLO runs, lends its reservation to the scavenger
measured as a reader and holds it from the one measured as a writer -- the
simulator's planner, with the real daemon services (Engine on a memory drive,
admin plane, forecast service, /metrics) and a tiny NBD client instead of fio.

C = 2800 MiB/s, owner ``own`` (class latency, SLO 5 ms) reserves 700 MiB/s, so
static partitioning leaves 2100 to the scavengers ``rd`` and ``wr`` (1050 each).
A written byte costs write_cost = 4 read bytes, lent ones 4 x write_caution
while an owner reads:

    nothing moved yet        both unmeasured: writers   rd 262.5, wr 262.5 MiB/s
    rd read, wr wrote 8 MiB  own held (no source yet)   rd 1050,  wr 262.5
    own's job runs, guarded  lent to readers (pool      rd 1050 + (2660 - 2100) / 2
                             0.95 C), held from writers    = 1330, wr 262.5
    own made class reserved  unguarded: held from both  rd 1050,  wr 262.5
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from control.lending.planner import WriteMix
from control_helpers import scrape

MiB = 1 << 20


# ------------------------------------------------------------- WriteMix ---

def test_write_mix_is_a_writer_until_measured_and_follows_a_window() -> None:
    assert WriteMix().min_bytes == 8 * MiB
    m = WriteMix(window_s=1.0, min_bytes=MiB)
    m.observe("b", 0.0, 0, 0)
    assert not m.measured("b") and m.fraction("b") == 1.0       # unmeasured: a writer
    m.observe("b", 0.1, MiB // 2, 0)
    assert not m.measured("b")                                  # under min_bytes
    m.observe("b", 0.2, 3 * MiB, MiB)
    assert m.measured("b") and m.fraction("b") == pytest.approx(0.25)
    # reads only from here: the window still holds the writes ...
    m.observe("b", 0.7, 10 * MiB, MiB)
    assert 0 < m.fraction("b") < 0.25
    # ... until a whole window has passed without one
    m.observe("b", 1.5, 20 * MiB, MiB)
    m.observe("b", 2.6, 30 * MiB, MiB)
    assert m.fraction("b") == 0.0
    # a write shows at once (any written byte makes it a writer: the write pool)
    m.observe("b", 2.7, 30 * MiB, MiB + 4096)
    assert m.fraction("b") > 0
    # quiet: the last measurement stays
    f = m.fraction("b")
    m.observe("b", 9.0, 30 * MiB, MiB + 4096)
    assert m.fraction("b") == f
    # counters that go back (removed and re-added): unmeasured again
    m.observe("b", 9.1, 0, 0)
    assert not m.measured("b") and m.fraction("b") == 1.0
    # a new tenant's first bytes count from zero
    m.observe("c", 10.0, 2 * MiB, 0)
    assert m.measured("c") and m.fraction("c") == 0.0
    m.keep(["c"])
    assert not m.measured("b") and m.measured("c")


def test_is_guarded_is_latency_with_an_slo() -> None:
    from control.lending.forecast_server import ForecastService
    from control.lending.planner import is_guarded
    assert is_guarded("latency", 0.002) and is_guarded("latency", 5_000_000)
    assert not is_guarded("latency", 0) and not is_guarded("reserved", 0.002)
    tenants = [{"name": "a", "class": "latency", "reserve": MiB, "latency_slo": 5_000_000},
               {"name": "b", "class": "reserved", "reserve": MiB, "latency_slo": 5_000_000},
               {"name": "c", "class": "latency", "reserve": 0, "latency_slo": 5_000_000},
               {"name": "s", "class": "scavenger"}]
    assert ForecastService.guarded(tenants) == ["a"]           # owners only


# ------------------------------------------------- the daemon, in process ---

CONFIG = """\
drives: [{{name: d0, backend: memory, size: 64MiB}}]
tenants:
  - {{name: own, size: 16MiB, reserve: 700MiB/s, latency_slo: 5ms}}
  - {{name: rd, size: 8MiB, class: scavenger}}
  - {{name: wr, size: 8MiB, class: scavenger}}
forecast:
  socket: {sock}
  capacity: 2800MiB/s
  tick: 20ms
  calibration: {{sched: {residuals}}}
"""


def _samples(url: str) -> dict[tuple[str, str], float]:
    return scrape(url, "tenant", "source")


def _until(cond: Callable[[], bool], timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"not within {timeout}s")
        time.sleep(0.02)


@pytest.mark.needs_core
def test_daemon_lends_a_guarded_owner_to_the_reader_and_holds_it_from_the_writer() -> None:
    from control_helpers import daemon, short_tmp
    from test_nbd_protocol import NBD

    from control.lending.forecast import Client
    sock = short_tmp() / "f.sock"
    residuals = [0.0] * 297 + [-0.5] * 3
    with daemon(CONFIG.format(sock=sock, residuals=residuals), metrics=True) as d:
        url = d.metrics_url

        def limit(name: str) -> float:
            return _samples(url).get(("jbof_planner_borrower_limit_bytes_per_second", name), -1)
        _until(lambda: limit("rd") == 262.5 * MiB and limit("wr") == 262.5 * MiB)
        m = _samples(url)
        assert m[("jbof_planner_owner_guarded", "own")] == 1
        assert m[("jbof_planner_borrower_measured", "rd")] == 0
        assert m[("jbof_planner_borrower_write_ratio", "wr")] == 1.0

        # rd reads 8 MiB, wr writes 8 MiB over NBD: measured at the next tick
        for name in ("rd", "wr"):
            c = NBD(d.nbd, name)
            try:
                for i in range(8):
                    if name == "rd":
                        assert c.read(i * MiB, MiB)[0] == 0
                    else:
                        assert c.write(i * MiB, b"\xab" * MiB) == 0
            finally:
                c.close()
        _until(lambda: _samples(url)[("jbof_planner_borrower_measured", "wr")] == 1
               and _samples(url)[("jbof_planner_borrower_measured", "rd")] == 1)
        m = _samples(url)
        assert m[("jbof_planner_borrower_write_ratio", "rd")] == 0.0
        assert m[("jbof_planner_borrower_write_ratio", "wr")] == 1.0
        _until(lambda: limit("rd") == 1050 * MiB and limit("wr") == 262.5 * MiB)  # no source

        # own's job runs: guarded, so lent to rd and held from wr
        with Client(str(sock)) as c:
            c.forecast("j1", "own", "sched", arrival_in=3.0)
            c.arrived("j1", "own")
            _until(lambda: limit("rd") == 1330 * MiB)
            assert limit("wr") == 262.5 * MiB
            st: dict[str, Any] = c.ls()
        assert st["owners"]["own"]["guarded"] and st["owners"]["own"]["held_bps"] == 0
        assert st["owners"]["own"]["held_write_bps"] == 700 * MiB
        assert st["borrowers"]["wr"] == {"write_fraction": 1.0, "active": True,
                                         "measured": True}
        m = _samples(url)
        assert m[("jbof_planner_held_bytes_per_second", "own")] == 0
        assert m[("jbof_planner_held_write_bytes_per_second", "own")] == 700 * MiB
        assert m[("jbof_tenant_limit_bytes_per_second", "rd")] == 1330 * MiB   # applied

        # the guard follows the tenants in force: a reserved owner is held from both
        with d.client() as a:
            a.call("tenant.set", name="own", **{"class": "reserved"})
        _until(lambda: limit("rd") == 1050 * MiB)
        assert limit("wr") == 262.5 * MiB
        assert _samples(url)[("jbof_planner_owner_guarded", "own")] == 0
