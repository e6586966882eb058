"""Forecast messages from the training cluster's scheduler: schema, validation, client.

The scheduler (or any script) talks to the daemon's *forecast socket* -- a unix
socket separate from the admin socket, with its own file mode -- one JSON object
per line, one reply line per request line.  A forecaster can announce and retract
jobs; it can never change an SLO, a reservation or a limit: no message has such
a field, and unknown keys are refused.

Requests (``type`` selects the kind; ``id`` is optional and echoed back)::

  {"type": "forecast", "job": "j42", "tenant": "team-a", "source": "sched",
   "arrival_in": 30,                       # or "arrival_at": <seconds, server clock>
   "arrival_quantiles": {"0.1": 20, "0.9": 45},   # same base as the point
   "duration": "10m", "duration_quantiles": {"0.9": "25m"},
   "demand": {"read_rate": "600MiB/s", "write_rate": "100MiB/s",   # or "cost_rate"
              "bssplit": "128k/90:1m/10", "checkpoint_period": "60s",
              "checkpoint_bytes": "4GiB"}}
  {"type": "arrived",  "job": "j42", "tenant": "team-a"}        # optional "at", "source"
  {"type": "finished", "job": "j42"}                            # optional "at", "tenant"
  {"type": "cancel",   "job": "j42"}                            # optional "source"
  {"type": "ls"}                                                # the planner's state

Times are seconds (a number) or durations with a unit ("500ms", "2m");
``arrival_at``/``at`` are absolute seconds on the server's clock (Unix time for
``jbof serve``).  Durations and offsets are 0..10 years (``MAX_TIME_S``; no
negative durations), absolute times within now +- 1e12 s (``MAX_INSTANT_S``,
~31 700 years: the adversarial source of control/lending/trace.py forecasts
over a century out on purpose, and any such bound keeps the planner's sums
finite); beyond that a number is a bug or an attack (1.7e308 overflows every sum the planner makes),
never a forecast.  Lines are decoded by control/ipc.py's ``loads_strict``: a
duplicate key, NaN/Infinity or a number beyond 1.8e308 is ``bad_json`` naming
the key.  Rates accept bytes/s numbers or "200MiB/s"; sizes "4GiB".

Replies: ``{"ok": true, "type": ..., "id": ...}`` (plus the state for ``ls``) or
``{"ok": false, "id": ..., "error": {"code": CODE, "key": KEY, "message": LINE}}``
with CODE one of ``bad_json``, ``too_long``, ``invalid``, ``unknown_type``,
``unknown_tenant``, ``unknown_job``, ``limit`` (too many live forecasts, jobs
or sources: control/lending/forecast_server.py's bounds), ``busy`` (too many
connections), ``internal``.  A bad line gets its error
reply and the connection carries on with the next line.
"""
from __future__ import annotations

import json
import math
import socket
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Union

from control import units
from control.errors import JbofError
from control.ipc import MAX_LINE_BYTES, JsonError, LineClient, loads_strict

MAX_NAME = 128
MAX_QUANTILES = 16
MAX_TIME_S = 10 * 365 * 86400.0        # offsets and durations: at most ten years
MAX_INSTANT_S = 1e12                    # absolute times: within now +- 1e12 s (~31 700 years)
MESSAGE_TYPES = ("forecast", "arrived", "finished", "cancel", "ls")
ERROR_CODES = ("bad_json", "too_long", "invalid", "unknown_type", "unknown_tenant",
               "unknown_job", "limit", "busy", "internal")


class MessageError(ValueError):
    """A message that cannot be accepted: ``code``, the offending ``key``, one line."""

    def __init__(self, code: str, key: str, message: str) -> None:
        self.code = code
        self.key = key
        self.message = " ".join(message.split())
        super().__init__(f"{key}: {self.message}" if key else self.message)

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "key": self.key, "message": self.message}


class ForecastError(JbofError):
    """The server refused a request (``code``/``key`` as in its reply) or cannot be reached."""

    def __init__(self, message: str, code: str = "io", key: str = "") -> None:
        self.code = code
        self.key = key
        super().__init__(" ".join(message.split()))


# ------------------------------------------------------------ typed messages ---

@dataclass(frozen=True)
class Demand:
    """A job's predicted IO demand while it runs (rates in bytes/s)."""
    read_bps: int = 0
    write_bps: int = 0
    cost_bps: int = 0                        # read-equivalent cost-rate, if the source knows it
    bssplit: tuple[tuple[int, int], ...] = ()
    checkpoint_period_s: float = 0.0
    checkpoint_bytes: int = 0

    def cost(self, write_cost: float) -> float:
        """Read-equivalent bytes/s: ``cost_bps`` if given, else reads + write_cost x writes."""
        if self.cost_bps:
            return float(self.cost_bps)
        return self.read_bps + write_cost * self.write_bps


@dataclass(frozen=True)
class Forecast:
    job: str
    tenant: str
    source: str
    issued_s: float                          # when the server received it (its clock)
    arrival_s: float                         # predicted arrival, absolute
    arrival_quantiles: tuple[tuple[float, float], ...] = ()   # (level, absolute time)
    duration_s: float | None = None
    duration_quantiles: tuple[tuple[float, float], ...] = ()  # (level, seconds)
    demand: Demand | None = None

    @property
    def lead_s(self) -> float:
        return self.arrival_s - self.issued_s


@dataclass(frozen=True)
class Arrived:
    job: str
    tenant: str
    at_s: float
    source: str | None = None


@dataclass(frozen=True)
class Finished:
    job: str
    at_s: float
    tenant: str | None = None


@dataclass(frozen=True)
class Cancel:
    job: str
    source: str | None = None


@dataclass(frozen=True)
class Ls:
    pass


Message = Union[Forecast, Arrived, Finished, Cancel, Ls]


# ------------------------------------------------------------------ parsing ---

_KEYS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # type: (required, optional)
    "forecast": (("job", "tenant", "source"),
                 ("arrival_in", "arrival_at", "arrival_quantiles", "duration",
                  "duration_quantiles", "demand")),
    "arrived": (("job", "tenant"), ("at", "source")),
    "finished": (("job",), ("at", "tenant")),
    "cancel": (("job",), ("source",)),
    "ls": ((), ()),
}
DEMAND_KEYS = ("read_rate", "write_rate", "cost_rate", "bssplit", "checkpoint_period",
               "checkpoint_bytes")


def _bad(key: str, message: str) -> MessageError:
    return MessageError("invalid", key, message)


def _name(v: Any, key: str) -> str:
    if not isinstance(v, str) or not v or len(v) > MAX_NAME or not v.isprintable() \
            or v != v.strip():
        raise _bad(key, f"expected a non-empty printable string of at most {MAX_NAME} "
                   "characters without surrounding spaces")
    return v


def _seconds(v: Any, key: str, allow_zero: bool = True) -> float:
    """A number of seconds or a duration string with a unit."""
    if isinstance(v, bool):
        raise _bad(key, "expected seconds (a number) or a duration like '30s'")
    if isinstance(v, (int, float)):
        s = float(v)
        if not math.isfinite(s) or s < 0:
            raise _bad(key, f"{v!r} is not a duration >= 0 seconds")
    elif isinstance(v, str):
        try:
            s = units.parse_duration_ns(v) / 1e9
        except ValueError as e:
            raise _bad(key, str(e)) from None
    else:
        raise _bad(key, "expected seconds (a number) or a duration like '30s'")
    if s > MAX_TIME_S or (not allow_zero and s == 0):
        raise _bad(key, f"{v!r} is out of range (allowed: {'0' if allow_zero else '>0'}.."
                   "10 years)")
    return s


def _instant(v: Any, key: str, now_s: float) -> float:
    """An absolute time: seconds on the server's clock, within now +- MAX_INSTANT_S."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
        raise _bad(key, "expected an absolute time in seconds on the server's clock "
                   "(a number >= 0)")
    if abs(v - now_s) > MAX_INSTANT_S:
        raise _bad(key, f"{v!r} is out of range (allowed: the server's clock, now "
                   f"{now_s:.0f}, +- 1e12 seconds)")
    return float(v)


def _rate(v: Any, key: str) -> int:
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    try:
        return units.parse_rate(v, bare_bytes=True)   # the wire carries bytes/s
    except ValueError as e:
        raise _bad(key, str(e)) from None


def _size(v: Any, key: str) -> int:
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    try:
        return units.parse_size(v, bare_bytes=True)   # the wire carries bytes
    except ValueError as e:
        raise _bad(key, str(e)) from None


def _quantiles(v: Any, key: str, value: Any) -> tuple[tuple[float, Any], ...]:
    """``{"0.1": x, "0.9": y}``: levels in (0, 1), values nondecreasing with the level."""
    if not isinstance(v, dict) or not v:
        raise _bad(key, 'expected a mapping of levels to values, e.g. {"0.1": 20, "0.9": 45}')
    if len(v) > MAX_QUANTILES:
        raise _bad(key, f"has {len(v)} quantiles (allowed: 1..{MAX_QUANTILES})")
    out = []
    for raw_level, raw in v.items():
        try:
            level = float(raw_level)
        except (TypeError, ValueError):
            level = math.nan
        if not 0.0 < level < 1.0:
            raise _bad(f"{key}.{raw_level}", "a quantile level must be a number in (0, 1)")
        out.append((level, value(raw, f"{key}.{raw_level}")))
    out.sort()
    for (l0, v0), (l1, v1) in zip(out, out[1:]):
        if v1 < v0:
            raise _bad(key, f"quantile {l1} is below quantile {l0} (values must not decrease)")
    return tuple(out)


def _bssplit(v: Any, key: str) -> tuple[tuple[int, int], ...]:
    from control.scenario import p_bssplit
    try:
        return p_bssplit(v)
    except ValueError as e:
        raise _bad(key, str(e)) from None


def _demand(v: Any, key: str) -> Demand:
    if not isinstance(v, dict):
        raise _bad(key, f"expected a mapping with keys {', '.join(DEMAND_KEYS)}")
    for k in v:
        if k not in DEMAND_KEYS:
            raise _bad(f"{key}.{k}", f"unknown key (allowed: {', '.join(DEMAND_KEYS)})")
    if "cost_rate" in v and ("read_rate" in v or "write_rate" in v):
        raise _bad(f"{key}.cost_rate", "give cost_rate or read_rate/write_rate, not both")
    d = Demand(
        read_bps=_rate(v["read_rate"], f"{key}.read_rate") if "read_rate" in v else 0,
        write_bps=_rate(v["write_rate"], f"{key}.write_rate") if "write_rate" in v else 0,
        cost_bps=_rate(v["cost_rate"], f"{key}.cost_rate") if "cost_rate" in v else 0,
        bssplit=_bssplit(v["bssplit"], f"{key}.bssplit") if "bssplit" in v else (),
        checkpoint_period_s=(_seconds(v["checkpoint_period"], f"{key}.checkpoint_period")
                             if "checkpoint_period" in v else 0.0),
        checkpoint_bytes=(_size(v["checkpoint_bytes"], f"{key}.checkpoint_bytes")
                          if "checkpoint_bytes" in v else 0))
    if bool(d.checkpoint_period_s) != bool(d.checkpoint_bytes):
        raise _bad(key, "checkpoint_period and checkpoint_bytes go together")
    return d


def decode_line(line: bytes | str) -> dict[str, Any]:
    """One line of the wire protocol as a JSON object (MessageError otherwise)."""
    if isinstance(line, bytes):
        if len(line) > MAX_LINE_BYTES:
            raise MessageError("too_long", "", f"line longer than {MAX_LINE_BYTES} bytes")
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError:
            raise MessageError("bad_json", "", "not UTF-8 text") from None
    try:
        obj = loads_strict(line)
    except JsonError as e:
        raise MessageError("bad_json", e.key, e.message) from None
    except (json.JSONDecodeError, RecursionError) as e:
        raise MessageError("bad_json", "", f"not JSON: {getattr(e, 'msg', e)}") from None
    if not isinstance(obj, dict):
        raise MessageError("bad_json", "", "expected a JSON object per line")
    return obj


def request_id(obj: Mapping[str, Any]) -> Any:
    """The request's ``id`` if it is usable in a reply (string <= 128 chars or integer)."""
    rid = obj.get("id")
    if isinstance(rid, str) and len(rid) <= MAX_NAME:
        return rid
    if isinstance(rid, int) and not isinstance(rid, bool) and abs(rid) < 2**53:
        return rid
    return None


def parse_message(obj: Mapping[str, Any], now_s: float) -> Message:
    """Validate one decoded request; ``now_s`` is the receiver's clock (for offsets)."""
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in _KEYS:
        raise MessageError("unknown_type", "type", f"{kind!r} is not a message type "
                           f"(allowed: {', '.join(MESSAGE_TYPES)})")
    required, optional = _KEYS[kind]
    allowed = set(required) | set(optional) | {"type", "id"}
    for k in obj:
        if k not in allowed:
            raise _bad(str(k), f"unknown key for a {kind} message (allowed: "
                       f"{', '.join(sorted(allowed))})")
    for k in required:
        if k not in obj:
            raise _bad(k, f"is required in a {kind} message")
    if "id" in obj and request_id(obj) is None:
        raise _bad("id", "expected a string of at most 128 characters or an integer")
    if kind == "ls":
        return Ls()
    job = _name(obj["job"], "job")
    if kind == "forecast":
        return _forecast(obj, job, now_s)
    if kind == "arrived":
        return Arrived(job=job, tenant=_name(obj["tenant"], "tenant"),
                       at_s=_instant(obj["at"], "at", now_s) if "at" in obj else now_s,
                       source=_name(obj["source"], "source") if "source" in obj else None)
    if kind == "finished":
        return Finished(job=job, at_s=_instant(obj["at"], "at", now_s) if "at" in obj else now_s,
                        tenant=_name(obj["tenant"], "tenant") if "tenant" in obj else None)
    return Cancel(job=job, source=_name(obj["source"], "source") if "source" in obj else None)


def _forecast(obj: Mapping[str, Any], job: str, now_s: float) -> Forecast:
    has_in, has_at = "arrival_in" in obj, "arrival_at" in obj
    if has_in == has_at:
        raise _bad("arrival_in", "give exactly one of arrival_in (seconds from now) and "
                   "arrival_at (absolute seconds)")
    if has_in:
        arrival = now_s + _seconds(obj["arrival_in"], "arrival_in")
        quant = (_quantiles(obj["arrival_quantiles"], "arrival_quantiles", _seconds)
                 if "arrival_quantiles" in obj else ())
        quant = tuple((lv, now_s + off) for lv, off in quant)
    else:
        arrival = _instant(obj["arrival_at"], "arrival_at", now_s)
        quant = (_quantiles(obj["arrival_quantiles"], "arrival_quantiles",
                            lambda v, k: _instant(v, k, now_s))
                 if "arrival_quantiles" in obj else ())
    dur = _seconds(obj["duration"], "duration", allow_zero=False) if "duration" in obj else None
    dq = (_quantiles(obj["duration_quantiles"], "duration_quantiles", _seconds)
          if "duration_quantiles" in obj else ())
    return Forecast(job=job, tenant=_name(obj["tenant"], "tenant"),
                    source=_name(obj["source"], "source"), issued_s=now_s, arrival_s=arrival,
                    arrival_quantiles=quant, duration_s=dur, duration_quantiles=dq,
                    demand=_demand(obj["demand"], "demand") if "demand" in obj else None)


def message_dict(msg: Message) -> dict[str, Any]:
    """A parsed message as plain data (for logs and ``ls``)."""
    out = asdict(msg)
    out["type"] = type(msg).__name__.lower()
    return out


def ok_reply(kind: str, rid: Any = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"ok": True, "type": kind}
    if rid is not None:
        out["id"] = rid
    out.update(extra)
    return out


def error_reply(err: MessageError, rid: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"ok": False, "error": err.as_dict()}
    if rid is not None:
        out["id"] = rid
    return out


def encode(obj: Mapping[str, Any]) -> bytes:
    """One wire line (compact JSON + newline; NaN/Infinity never appear)."""
    return (json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n").encode()


# ------------------------------------------------------------------- client ---

class Client(LineClient):
    """A blocking client of the forecast socket (one request, one reply line).

        with Client(path) as c:
            c.forecast("j42", "team-a", "sched", arrival_in=30, duration=600,
                       demand={"read_rate": "600MiB/s"})
            c.arrived("j42", "team-a")
            c.ls()["jobs"]

    Refused requests raise ForecastError (``code``/``key`` from the reply).
    """

    def __init__(self, path: str, timeout_s: float = 5.0) -> None:
        super().__init__(path, timeout_s, lambda code, message: ForecastError(message, code),
                         lambda e: f"cannot connect to the forecast socket {path}: "
                                   f"{e.strerror or e}",
                         what="forecast socket")
        self._next_id = 1

    def __enter__(self) -> Client:
        return self

    def request(self, msg: Mapping[str, Any], check: bool = True) -> dict[str, Any]:
        """Send one message, wait for its reply; raise ForecastError on ``ok: false``."""
        return self.request_many([msg], check)[0]

    def request_many(self, msgs: list[Mapping[str, Any]],
                     check: bool = True) -> list[dict[str, Any]]:
        """Pipeline several messages (one write), return their replies in order."""
        out_msgs = []
        for m in msgs:
            m = dict(m)
            if "id" not in m:
                m["id"] = self._next_id
                self._next_id += 1
            out_msgs.append(m)
        try:
            data = b"".join(encode(m) for m in out_msgs)
        except (TypeError, ValueError) as e:
            raise ForecastError(f"cannot encode the message as JSON: {e}", "invalid") from None
        self.send_raw(data)
        replies = [self.read_reply() for _ in out_msgs]
        if check:
            for r in replies:
                if not r.get("ok"):
                    err = r.get("error") or {}
                    key = err.get("key", "")
                    raise ForecastError(f"{key + ': ' if key else ''}{err.get('message', r)}",
                                        err.get("code", "invalid"), key)
        return replies

    # -- conveniences -------------------------------------------------------

    def forecast(self, job: str, tenant: str, source: str, *, arrival_in: Any = None,
                 arrival_at: float | None = None, **optional: Any) -> dict[str, Any]:
        """Announce a job: ``arrival_in`` (seconds/duration) or ``arrival_at`` (absolute);
        optional keys: arrival_quantiles, duration, duration_quantiles, demand."""
        msg: dict[str, Any] = {"type": "forecast", "job": job, "tenant": tenant, "source": source}
        if arrival_in is not None:
            msg["arrival_in"] = arrival_in
        if arrival_at is not None:
            msg["arrival_at"] = arrival_at
        msg.update({k: v for k, v in optional.items() if v is not None})
        return self.request(msg)

    def arrived(self, job: str, tenant: str, at: float | None = None) -> dict[str, Any]:
        msg: dict[str, Any] = {"type": "arrived", "job": job, "tenant": tenant}
        if at is not None:
            msg["at"] = at
        return self.request(msg)

    def finished(self, job: str, at: float | None = None) -> dict[str, Any]:
        msg: dict[str, Any] = {"type": "finished", "job": job}
        if at is not None:
            msg["at"] = at
        return self.request(msg)

    def cancel(self, job: str) -> dict[str, Any]:
        return self.request({"type": "cancel", "job": job})

    def ls(self) -> dict[str, Any]:
        return self.request({"type": "ls"})


__all__ = [
    "ERROR_CODES",
    "MAX_LINE_BYTES",
    "MESSAGE_TYPES",
    "Arrived",
    "Cancel",
    "Client",
    "Demand",
    "Finished",
    "Forecast",
    "ForecastError",
    "Ls",
    "Message",
    "MessageError",
    "decode_line",
    "encode",
    "error_reply",
    "message_dict",
    "ok_reply",
    "parse_message",
    "request_id",
]
