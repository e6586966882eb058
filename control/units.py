"""Human units for sizes, durations, rates, IOPS and percentages.

Every parser is strict: it returns an exact integer (or float for percentages)
or raises ValueError with one line that quotes the input and shows examples.
Nothing else escapes (no TypeError, no OverflowError).

Sizes (bytes) -- binary by default, like fio's default ``kb_base=1024``:
    ``4096B``                       plain bytes (a bare ``4096`` only where ``bare_bytes``:
                                    IO block sizes, as fio's ``bs=4096``)
    ``4k`` ``4K`` ``4KiB`` ``4kib`` 4 * 1024           (k, m, g, t, p: powers of 1024)
    ``1.5MiB``                      1572864            (fractions allowed if the result is whole bytes)
    ``1KB`` ``1MB`` ``1GB`` ``1TB``  powers of 1000     (SI, as written on drive spec sheets;
                                                        note fio's default would read KB as 1024)
Durations (returned in integer nanoseconds):
    ``500ns`` ``500us`` (or ``µs``) ``1.5ms`` ``5s`` ``2m`` (or ``min``) ``1h``
    a bare number is refused (``latency_slo: 2`` would be 2 s; write ``2ms``).
Rates (bytes per second): a size with an optional ``/s``: ``200MiB/s``, ``1GiB/s``,
    ``3GB/s``, ``200m`` (fio's ``rate=`` spelling), ``100B/s``; a bare number is
    refused (``limit: 100`` would be 100 B/s).
Zero needs no unit anywhere (``limit: 0`` = none).
IOPS (IOs per second): decimal multipliers, because "400K IOPS" on a spec sheet means
    400,000: ``50000``, ``50k``, ``50k iops``, ``50kiops``, ``1.5M IOPS``, ``50k/s``.
Percentages: ``50%``, ``50``, ``12.5%``; within 0..100.

The ``format_*`` functions print the exact value back in the shortest unit that
divides it (``format_size(4096) == "4KiB"``) so that ``parse(format(x)) == x``;
the ``human_*`` functions round to three significant digits for tables.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction

__all__ = [
    "parse_size", "parse_duration_ns", "parse_rate", "parse_iops", "parse_percent",
    "format_size", "format_duration", "format_rate", "format_iops", "format_percent",
    "human_size", "human_duration", "human_rate", "human_count",
    "SIZE_EXAMPLES", "DURATION_EXAMPLES", "RATE_EXAMPLES", "IOPS_EXAMPLES",
]

SIZE_EXAMPLES = "examples: 4k, 128KiB, 1MiB"
DURATION_EXAMPLES = "examples: 500us, 1.5ms, 5s, 2m"
RATE_EXAMPLES = "examples: 200MiB/s, 1GiB/s, 3GB/s"
IOPS_EXAMPLES = "examples: 50000, 50k, 50k iops"
PERCENT_EXAMPLES = "examples: 50%, 12.5"

U64_MAX = 2**64 - 1

_BIN = {"": 1, "b": 1}
for _i, _p in enumerate("kmgtp", start=1):
    _BIN[_p] = 1024**_i
    _BIN[_p + "ib"] = 1024**_i
    _BIN[_p + "b"] = 1000**_i
# format_size writes these, largest first (exact divisors only).
_BIN_OUT = [("PiB", 1024**5), ("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)]

_DUR = {"ns": 1, "us": 1_000, "µs": 1_000, "μs": 1_000, "ms": 1_000_000, "s": 10**9,
        "m": 60 * 10**9, "min": 60 * 10**9, "h": 3600 * 10**9}
_DUR_OUT = [("h", 3600 * 10**9), ("m", 60 * 10**9), ("s", 10**9), ("ms", 10**6), ("us", 10**3), ("ns", 1)]

_DEC = {"": 1, "k": 1000, "m": 1000**2, "g": 1000**3}

_NUM = r"(\d+(?:\.\d+)?|\.\d+)"
_SIZE_RE = re.compile(_NUM + r"\s*([a-z]*)")
_DUR_RE = re.compile(_NUM + r"\s*([a-zµμ]*)")
_IOPS_RE = re.compile(_NUM + r"\s*([kmg]?)\s*(iops|/s)?")


def _no_unit(raw: object, what: str, examples: str) -> ValueError:
    """The one-line refusal of a bare number where a unit is required."""
    n = str(raw).strip()
    return ValueError(f"{n} has no unit; write {what} such as {examples.format(n=n)}")


_NO_UNIT_RATE = ("a rate", "{n}MiB/s or 1GB/s")
_NO_UNIT_SIZE = ("a size", "{n}MiB or 4KiB")
_NO_UNIT_DURATION = ("a duration", "{n}ms or 5s")
_BARE_RE = re.compile(_NUM)


def _bare(num: Fraction | None, raw: object) -> bool:
    """A non-zero number without a unit (a YAML number or a digits-only string)."""
    if num is not None:
        return num != 0
    text = str(raw).strip()
    return bool(_BARE_RE.fullmatch(text)) and Fraction(text) != 0


def _show(value: object) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _whole(value: Fraction, what: str, raw: object) -> int:
    if value.denominator != 1:
        raise ValueError(f"{_show(raw)} is not a whole number of {what}")
    if value > U64_MAX:
        raise ValueError(f"{_show(raw)} is too large")
    return int(value)


def _number(raw: object, what: str, examples: str) -> Fraction | None:
    """A YAML number (int/float, never bool) as a Fraction; None for strings."""
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        raise ValueError(f"{_show(raw)} is not {what} ({examples})")
    if isinstance(raw, str):
        return None
    if isinstance(raw, float) and not math.isfinite(raw):
        raise ValueError(f"{_show(raw)} is not {what} ({examples})")
    if raw < 0:
        raise ValueError(f"{_show(raw)} is negative; {what} must be >= 0")
    return Fraction(raw)


def _negative_text(text: str, raw: object, what: str) -> None:
    if text.startswith("-"):
        raise ValueError(f"{_show(raw)} is negative; {what} must be >= 0")


def parse_size(raw: object, *, bare_bytes: bool = False) -> int:
    """Bytes from ``4k``, ``128KiB``, ``1MiB``, ``1GB`` (SI), ``4096B``.

    A bare number (``4096``) is bytes only with ``bare_bytes`` (IO block sizes,
    fio's vocabulary); elsewhere it is refused.
    """
    num = _number(raw, "a size", SIZE_EXAMPLES)
    if not bare_bytes and _bare(num, raw):
        raise _no_unit(raw, *_NO_UNIT_SIZE)
    if num is not None:
        return _whole(num, "bytes", raw)
    text = str(raw).strip()
    _negative_text(text, raw, "a size")
    m = _SIZE_RE.fullmatch(text.lower())
    if not m or m.group(2) not in _BIN:
        raise ValueError(f"{_show(raw)} is not a size ({SIZE_EXAMPLES})")
    return _whole(Fraction(m.group(1)) * _BIN[m.group(2)], "bytes", raw)


def parse_duration_ns(raw: object, *, bare_unit: str | None = None) -> int:
    """Nanoseconds from ``500us``, ``1.5ms``, ``5s``, ``2m``, ``1h``.

    A bare non-zero number is refused unless ``bare_unit`` names its unit
    (for internal callers that hold seconds, never for user input).
    """
    num = _number(raw, "a duration", DURATION_EXAMPLES)
    if bare_unit is None and _bare(num, raw):
        raise _no_unit(raw, *_NO_UNIT_DURATION)
    if num is None:
        text = str(raw).strip()
        _negative_text(text, raw, "a duration")
        m = _DUR_RE.fullmatch(text.lower())
        if not m or (m.group(2) and m.group(2) not in _DUR):
            raise ValueError(f"{_show(raw)} is not a duration ({DURATION_EXAMPLES})")
        num, unit = Fraction(m.group(1)), m.group(2)
    else:
        unit = ""
    if not unit:
        unit = bare_unit or "s"    # only zero gets here without a bare_unit
    return _whole(num * _DUR[unit], "nanoseconds", raw)


def parse_rate(raw: object, *, bare_bytes: bool = False) -> int:
    """Bytes per second from ``200MiB/s``, ``1GiB/s``, ``3GB/s``, ``200m``, ``100B/s``.

    A bare number is bytes/s only with ``bare_bytes`` (JSON wire protocols that
    carry plain bytes/s); user input must carry its unit."""
    num = _number(raw, "a rate", RATE_EXAMPLES)
    if not bare_bytes and _bare(num, raw):
        raise _no_unit(raw, *_NO_UNIT_RATE)
    if num is not None:
        return _whole(num, "bytes/s", raw)
    text = str(raw).strip()
    _negative_text(text, raw, "a rate")
    low = text.lower()
    if low.endswith("/s"):
        low = low[:-2].rstrip()
    m = _SIZE_RE.fullmatch(low)
    if not m or m.group(2) not in _BIN:
        raise ValueError(f"{_show(raw)} is not a rate ({RATE_EXAMPLES})")
    return _whole(Fraction(m.group(1)) * _BIN[m.group(2)], "bytes/s", raw)


def parse_iops(raw: object) -> int:
    """IOs per second from ``50000``, ``50k``, ``50k iops``, ``1.5M IOPS``."""
    num = _number(raw, "an IO rate", IOPS_EXAMPLES)
    if num is not None:
        return _whole(num, "IOs/s", raw)
    text = str(raw).strip()
    _negative_text(text, raw, "an IO rate")
    m = _IOPS_RE.fullmatch(text.lower())
    if not m:
        raise ValueError(f"{_show(raw)} is not an IO rate ({IOPS_EXAMPLES})")
    return _whole(Fraction(m.group(1)) * _DEC[m.group(2)], "IOs/s", raw)


def parse_percent(raw: object) -> float:
    """A percentage in [0, 100] from ``50%``, ``50``, ``12.5``."""
    num = _number(raw, "a percentage", PERCENT_EXAMPLES)
    if num is None:
        text = str(raw).strip()
        _negative_text(text, raw, "a percentage")
        m = re.fullmatch(_NUM + r"\s*%?", text)
        if not m:
            raise ValueError(f"{_show(raw)} is not a percentage ({PERCENT_EXAMPLES})")
        num = Fraction(m.group(1))
    if num > 100:
        raise ValueError(f"{_show(raw)} is above 100%")
    return float(num)


# ------------------------------------------------------------ exact output ---

def _check_int(value: int, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} must be a non-negative integer, got {_show(value)}")


def format_size(nbytes: int) -> str:
    """Exact: ``4096 -> '4KiB'``, ``1536 -> '1536B'``, ``0 -> '0'`` (round-trips
    through parse_size)."""
    _check_int(nbytes, "a size")
    for name, mult in _BIN_OUT:
        if nbytes and nbytes % mult == 0:
            return f"{nbytes // mult}{name}"
    return f"{nbytes}B" if nbytes else "0"


def format_duration(ns: int) -> str:
    """Exact: ``1_500_000 -> '1500us'``, ``5e9 -> '5s'`` (round-trips)."""
    _check_int(ns, "a duration")
    if ns == 0:
        return "0s"
    for name, mult in _DUR_OUT:
        if ns % mult == 0:
            return f"{ns // mult}{name}"
    raise AssertionError("unreachable: ns is a multiple of 1")


def format_rate(bps: int) -> str:
    """Exact: ``200 * 2**20 -> '200MiB/s'`` (round-trips through parse_rate)."""
    return format_size(bps) + "/s"


def format_iops(iops: int) -> str:
    """Exact: ``50000 -> '50k iops'`` (round-trips through parse_iops)."""
    _check_int(iops, "an IO rate")
    for name, mult in (("G", 10**9), ("M", 10**6), ("k", 10**3)):
        if iops and iops % mult == 0:
            return f"{iops // mult}{name} iops"
    return f"{iops} iops"


def format_percent(pct: float) -> str:
    return f"{pct:g}%"


# ---------------------------------------------------------- table output ----

def _sig3(x: float) -> str:
    if x == 0:
        return "0"
    digits = max(0, 2 - int(math.floor(math.log10(abs(x)))))
    return f"{x:.{digits}f}"


def human_size(nbytes: float) -> str:
    """Rounded binary size for tables: ``1.50MiB``, ``812B``."""
    for name, mult in _BIN_OUT:
        if abs(nbytes) >= mult:
            return _sig3(nbytes / mult) + name
    return f"{nbytes:.0f}B"


def human_rate(bps: float) -> str:
    return human_size(bps) + "/s"


def human_count(n: float) -> str:
    """Rounded decimal count for tables: ``412k``, ``1.20M``, ``950``."""
    for name, mult in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(n) >= mult:
            return _sig3(n / mult) + name
    return _sig3(n) if n != int(n) else str(int(n))


def human_duration(ns: float) -> str:
    """Rounded duration for tables: ``85.3us``, ``1.20ms``, ``5.00s``."""
    for name, mult in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if abs(ns) >= mult:
            return _sig3(ns / mult) + name
    return f"{ns:.0f}ns"
