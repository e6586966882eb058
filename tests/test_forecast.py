"""The forecast wire schema (control/lending/forecast.py): what is accepted, what is refused and how."""
from __future__ import annotations

import json
from typing import Any

import pytest

from control.lending.forecast import (
    MAX_LINE_BYTES,
    Arrived,
    Cancel,
    Finished,
    Forecast,
    Ls,
    MessageError,
    decode_line,
    encode,
    error_reply,
    ok_reply,
    parse_message,
)

MiB = 1 << 20
NOW = 1000.0


def fc(**kw: Any) -> dict[str, Any]:
    m: dict[str, Any] = {"type": "forecast", "job": "j1", "tenant": "team-a", "source": "sched",
                         "arrival_in": 30}
    m.update(kw)
    return {k: v for k, v in m.items() if v is not None}


def test_forecast_offset_and_absolute() -> None:
    f = parse_message(fc(), NOW)
    assert isinstance(f, Forecast)
    assert (f.job, f.tenant, f.source, f.issued_s, f.arrival_s) == ("j1", "team-a", "sched", NOW, NOW + 30)
    assert f.lead_s == 30
    f = parse_message(fc(arrival_in="1.5m"), NOW)
    assert isinstance(f, Forecast) and f.arrival_s == NOW + 90
    f = parse_message(fc(arrival_in=None, arrival_at=1234.5), NOW)
    assert isinstance(f, Forecast) and f.arrival_s == 1234.5


def test_forecast_full() -> None:
    f = parse_message(fc(arrival_quantiles={"0.1": 20, "0.9": "45s"}, duration="10m",
                         duration_quantiles={"0.5": 500, "0.9": "15m"},
                         demand={"read_rate": "600MiB/s", "write_rate": 100 * MiB,
                                 "bssplit": "128k/90:1m/10", "checkpoint_period": "60s",
                                 "checkpoint_bytes": "4GiB"}, id="r1"), NOW)
    assert isinstance(f, Forecast)
    assert f.arrival_quantiles == ((0.1, NOW + 20), (0.9, NOW + 45))
    assert f.duration_s == 600 and f.duration_quantiles == ((0.5, 500.0), (0.9, 900.0))
    d = f.demand
    assert d is not None and d.read_bps == 600 * MiB and d.write_bps == 100 * MiB
    assert d.bssplit == ((131072, 90), (1 << 20, 10))
    assert d.checkpoint_period_s == 60 and d.checkpoint_bytes == 4 << 30
    assert d.cost(4.0) == 1000 * MiB
    f = parse_message(fc(demand={"cost_rate": "1GiB/s"}), NOW)
    assert isinstance(f, Forecast) and f.demand is not None and f.demand.cost(9.0) == 1 << 30


def test_other_messages() -> None:
    a = parse_message({"type": "arrived", "job": "j1", "tenant": "team-a"}, NOW)
    assert a == Arrived("j1", "team-a", NOW)
    a = parse_message({"type": "arrived", "job": "j1", "tenant": "team-a", "at": 5,
                       "source": "s"}, NOW)
    assert a == Arrived("j1", "team-a", 5.0, "s")
    assert parse_message({"type": "finished", "job": "j1"}, NOW) == Finished("j1", NOW)
    assert parse_message({"type": "cancel", "job": "j1", "id": 7}, NOW) == Cancel("j1")
    assert parse_message({"type": "ls"}, NOW) == Ls()


@pytest.mark.parametrize("msg,code,key", [
    ({"type": "nope"}, "unknown_type", "type"),
    ({"job": "j"}, "unknown_type", "type"),
    (fc(latency_slo="1ms"), "invalid", "latency_slo"),          # a forecaster cannot set SLOs
    (fc(reserve="1GiB/s"), "invalid", "reserve"),
    (fc(limit=5), "invalid", "limit"),
    (fc(job=None), "invalid", "job"),
    (fc(job=""), "invalid", "job"),
    (fc(job=" j"), "invalid", "job"),
    (fc(job="x" * 200), "invalid", "job"),
    (fc(tenant=7), "invalid", "tenant"),
    (fc(arrival_in=None), "invalid", "arrival_in"),
    (fc(arrival_at=5.0), "invalid", "arrival_in"),               # both
    (fc(arrival_in=-1), "invalid", "arrival_in"),
    (fc(arrival_in="soon"), "invalid", "arrival_in"),
    (fc(arrival_in=True), "invalid", "arrival_in"),
    (fc(arrival_in=float("nan")), "invalid", "arrival_in"),
    (fc(arrival_in=1e12), "invalid", "arrival_in"),
    (fc(arrival_in=None, arrival_at="noon"), "invalid", "arrival_at"),
    (fc(arrival_quantiles={"1.5": 3}), "invalid", "arrival_quantiles.1.5"),
    (fc(arrival_quantiles={"0.1": 30, "0.9": 10}), "invalid", "arrival_quantiles"),
    (fc(arrival_quantiles=[1, 2]), "invalid", "arrival_quantiles"),
    (fc(duration=0), "invalid", "duration"),
    (fc(demand={"read_rate": "fast"}), "invalid", "demand.read_rate"),
    (fc(demand={"iops": 5}), "invalid", "demand.iops"),
    (fc(demand={"cost_rate": 5, "read_rate": 5}), "invalid", "demand.cost_rate"),
    (fc(demand={"checkpoint_period": "1m"}), "invalid", "demand"),
    (fc(demand={"bssplit": "4k/50"}), "invalid", "demand.bssplit"),
    (fc(demand=5), "invalid", "demand"),
    (fc(id=[1]), "invalid", "id"),
    ({"type": "arrived", "job": "j"}, "invalid", "tenant"),
    ({"type": "finished", "job": "j", "at": -1}, "invalid", "at"),
    ({"type": "ls", "job": "j"}, "invalid", "job"),
])
def test_refused(msg: dict[str, Any], code: str, key: str) -> None:
    with pytest.raises(MessageError) as e:
        parse_message(msg, NOW)
    assert (e.value.code, e.value.key) == (code, key), str(e.value)
    assert "\n" not in e.value.message and e.value.message


@pytest.mark.parametrize("line,code", [
    (b"{not json", "bad_json"),
    (b"[1, 2]", "bad_json"),
    (b"\xff\xfe", "bad_json"),
    (b"x" * (MAX_LINE_BYTES + 1), "too_long"),
])
def test_decode_line_errors(line: bytes, code: str) -> None:
    with pytest.raises(MessageError) as e:
        decode_line(line)
    assert e.value.code == code


def test_replies_are_one_json_line() -> None:
    assert decode_line(b'{"type": "ls"}') == {"type": "ls"}
    r = error_reply(MessageError("invalid", "job", "bad\nthing"), 3)
    line = encode(r)
    assert line.count(b"\n") == 1 and line.endswith(b"\n")
    assert json.loads(line) == {"ok": False, "id": 3,
                                "error": {"code": "invalid", "key": "job", "message": "bad thing"}}
    assert ok_reply("forecast", "x", job="j") == {"ok": True, "type": "forecast", "id": "x", "job": "j"}
