"""control.units: table tests for every unit family plus round-trip properties."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from control import units as u

KiB, MiB, GiB = 1024, 1024**2, 1024**3


@pytest.mark.parametrize("raw,want", [
    ("4k", 4 * KiB), ("4K", 4 * KiB), ("4KiB", 4 * KiB), ("4kib", 4 * KiB), ("128KiB", 128 * KiB),
    ("1MiB", MiB), ("1m", MiB), ("1G", GiB), ("1GiB", GiB), ("2t", 2 * 1024**4),
    ("1KB", 1000), ("1MB", 10**6), ("1GB", 10**9), ("3TB", 3 * 10**12),   # SI, documented
    ("4096B", 4096), (" 4 k ", 4 * KiB), ("1.5MiB", 3 * MiB // 2),
    ("0.5k", 512), (".5k", 512), (0, 0), ("0", 0),
])
def test_parse_size(raw, want):
    assert u.parse_size(raw) == want


@pytest.mark.parametrize("raw,want", [("4096", 4096), (4096, 4096), (4096.0, 4096), ("4k", 4096)])
def test_parse_size_bare_bytes(raw, want):
    """IO block sizes keep fio's bare bytes (bs=4096)."""
    assert u.parse_size(raw, bare_bytes=True) == want


# Issue 14: a bare number is refused where a unit is required, with one line that
# shows the value with units.  Table: (parser, raw value, the exact message).
@pytest.mark.parametrize("parse,raw,msg", [
    (u.parse_rate, 100, "100 has no unit; write a rate such as 100MiB/s or 1GB/s"),
    (u.parse_rate, "100", "100 has no unit; write a rate such as 100MiB/s or 1GB/s"),
    (u.parse_rate, 1.5, "1.5 has no unit; write a rate such as 1.5MiB/s or 1GB/s"),
    (u.parse_duration_ns, 2, "2 has no unit; write a duration such as 2ms or 5s"),
    (u.parse_duration_ns, "2", "2 has no unit; write a duration such as 2ms or 5s"),
    (u.parse_duration_ns, 0.5, "0.5 has no unit; write a duration such as 0.5ms or 5s"),
    (u.parse_size, 12, "12 has no unit; write a size such as 12MiB or 4KiB"),
    (u.parse_size, "4096", "4096 has no unit; write a size such as 4096MiB or 4KiB"),
])
def test_bare_number_refused(parse, raw, msg):
    with pytest.raises(ValueError) as e:
        parse(raw)
    assert str(e.value) == msg


@pytest.mark.parametrize("parse", [u.parse_rate, u.parse_duration_ns, u.parse_size])
@pytest.mark.parametrize("raw", [0, "0", 0.0])
def test_zero_needs_no_unit(parse, raw):
    assert parse(raw) == 0


@pytest.mark.parametrize("raw,msg", [
    ("4x", "is not a size"), ("", "is not a size"), ("k", "is not a size"), ("4 kk", "is not a size"),
    ("-4k", "negative"), (-1, "negative"), ("0.3k", "whole number of bytes"), (0.5, "has no unit"),
    (True, "is not a size"), (None, "is not a size"), ([4], "is not a size"), ("1e3", "is not a size"),
    ("4k/s", "is not a size"), (float("nan"), "is not a size"), (float("inf"), "is not a size"),
    ("99999999999P", "too large"),
])
def test_parse_size_rejects(raw, msg):
    with pytest.raises(ValueError, match=msg) as e:
        u.parse_size(raw)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("raw,want_ns", [
    ("500us", 500_000), ("500µs", 500_000), ("1.5ms", 1_500_000), ("5s", 5 * 10**9),
    ("2m", 120 * 10**9), ("2min", 120 * 10**9), ("1h", 3600 * 10**9), ("250ns", 250),
    ("0", 0), ("0s", 0), (0, 0),
])
def test_parse_duration(raw, want_ns):
    assert u.parse_duration_ns(raw) == want_ns


@pytest.mark.parametrize("raw,msg", [
    ("5x", "is not a duration"), ("-1s", "negative"), (-2, "negative"), ("1.5ns", "whole number"),
    ("ms", "is not a duration"), (False, "is not a duration"), ("5 s s", "is not a duration"),
])
def test_parse_duration_rejects(raw, msg):
    with pytest.raises(ValueError, match=msg):
        u.parse_duration_ns(raw)


def test_duration_bare_unit_for_internal_callers():
    assert u.parse_duration_ns("50us") == 50_000
    assert u.parse_duration_ns(5, bare_unit="s") == 5 * 10**9
    with pytest.raises(ValueError, match="has no unit"):
        u.parse_duration_ns(50)


@pytest.mark.parametrize("raw,want", [
    ("200MiB/s", 200 * MiB), ("1GiB/s", GiB), ("3GB/s", 3 * 10**9), ("200m", 200 * MiB),
    ("200 MiB/s", 200 * MiB), ("1000B/s", 1000), ("1000b", 1000), ("0", 0),
])
def test_parse_rate(raw, want):
    assert u.parse_rate(raw) == want


@pytest.mark.parametrize("raw,msg", [
    ("-5MiB/s", "negative"), ("fast", "is not a rate"), ("5MiB/h", "is not a rate"), (-1, "negative"),
])
def test_parse_rate_rejects(raw, msg):
    with pytest.raises(ValueError, match=msg):
        u.parse_rate(raw)


@pytest.mark.parametrize("raw,want", [
    ("50k iops", 50_000), ("50kiops", 50_000), ("50K IOPS", 50_000), ("50000", 50_000),
    ("50k", 50_000), ("1.5M IOPS", 1_500_000), ("400k/s", 400_000), (7, 7),
])
def test_parse_iops(raw, want):
    assert u.parse_iops(raw) == want


@pytest.mark.parametrize("raw", ["50x iops", "-5k", "iops", "1.0001k"])
def test_parse_iops_rejects(raw):
    with pytest.raises(ValueError):
        u.parse_iops(raw)


@pytest.mark.parametrize("raw,want", [("50%", 50.0), ("50", 50.0), (12.5, 12.5), ("0%", 0.0),
                                      ("100", 100.0)])
def test_parse_percent(raw, want):
    assert u.parse_percent(raw) == want


@pytest.mark.parametrize("raw", ["101%", -1, "half", "50%%"])
def test_parse_percent_rejects(raw):
    with pytest.raises(ValueError):
        u.parse_percent(raw)


def test_format_examples():
    assert u.format_size(4096) == "4KiB"
    assert u.format_size(1536) == "1536B"
    assert u.format_size(0) == "0"
    assert u.format_duration(1_500_000) == "1500us"
    assert u.format_duration(5 * 10**9) == "5s"
    assert u.format_duration(0) == "0s"
    assert u.format_rate(200 * MiB) == "200MiB/s"
    assert u.format_iops(50_000) == "50k iops"
    assert u.human_size(1.5 * MiB) == "1.50MiB"
    assert u.human_duration(85_300) == "85.3us"
    assert u.human_count(412_345) == "412k"


# ---- properties: format -> parse is the identity; garbage never escapes as a non-ValueError

N = st.integers(min_value=0, max_value=2**60)


@given(N)
def test_size_round_trip(n):
    assert u.parse_size(u.format_size(n)) == n


@given(N)
def test_duration_round_trip(n):
    assert u.parse_duration_ns(u.format_duration(n)) == n


@given(N)
def test_rate_round_trip(n):
    assert u.parse_rate(u.format_rate(n)) == n


@given(N)
def test_iops_round_trip(n):
    assert u.parse_iops(u.format_iops(n)) == n


@given(st.integers(min_value=0, max_value=2**30), st.sampled_from(["", "k", "KiB", "m", "MiB", "g", "GiB"]))
def test_size_suffix_scales(n, suffix):
    mult = {"": 1, "k": KiB, "KiB": KiB, "m": MiB, "MiB": MiB, "g": GiB, "GiB": GiB}[suffix]
    assert u.parse_size(f"{n}{suffix}", bare_bytes=True) == n * mult


ANY = st.one_of(st.text(max_size=20), st.integers(), st.floats(), st.booleans(), st.none(),
                st.lists(st.integers(), max_size=2))


@settings(max_examples=300)
@given(ANY)
def test_garbage_gives_value_error_only(raw):
    for parse in (u.parse_size, u.parse_duration_ns, u.parse_rate, u.parse_iops, u.parse_percent):
        try:
            parse(raw)
        except ValueError as e:
            assert "\n" not in str(e)
