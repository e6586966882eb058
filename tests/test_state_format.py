"""The state file's format (control/state.py): 2 is written, 1 and 2 are read (1:
before tenant offsets -- placed first fit as before, then written again as format
2 with the offsets recorded), anything else is one line naming the format and the
formats read; bad state files are one line each."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from control.config import load_config
from control.errors import ConfigError
from control.state import STATE_FORMAT, STATE_FORMATS, file_sha256, load_with_state

MIB = 1 << 20
CONFIG = ("drives: [{name: d0, backend: memory, size: 128MiB}]\n"
          "tenants:\n  - {name: a, size: 32MiB}\n  - {name: b, size: 32MiB}\n")


def _state(f: Path, fmt: str, tenants: str, extra: str = "") -> str:
    return (f"jbof_state: {fmt}\nsaved_at: x\nchange: tenant.set b\n"
            f"base_sha256: {file_sha256(f)}\nconfig:\n"
            "  drives: [{name: d0, backend: memory, size: 128MiB}]\n"
            f"  tenants: {tenants}\n{extra}")


def test_formats_read_and_written() -> None:
    assert STATE_FORMAT == 2 and STATE_FORMATS == (1, 2)


@pytest.mark.parametrize("fmt,tenants,extra,offsets,scrub", [
    # format 1 as older daemons wrote it: no offsets (placed first fit at start)
    ("1", "[{name: a, size: 32MiB}, {name: b, size: 32MiB, weight: 3}]", "",
     {"a": None, "b": None}, {}),
    # format 1 as written between the offsets and this bump: offsets kept
    ("1", "[{name: b, size: 32MiB, weight: 3, offset: 32MiB}]", "",
     {"b": 32 * MIB}, {}),
    # format 2: offsets and pending space
    ("2", "[{name: b, size: 32MiB, weight: 3, offset: 32MiB}]",
     "scrub_pending: {d0: [[0, 32MiB]]}\n", {"b": 32 * MIB}, {"d0": ((0, 32 * MIB),)}),
])
def test_state_formats_are_applied(tmp_path: Path, fmt: str, tenants: str, extra: str,
                                   offsets: dict[str, int | None],
                                   scrub: dict[str, tuple[tuple[int, int], ...]]) -> None:
    f = tmp_path / "c.yaml"
    f.write_text(CONFIG)
    st = tmp_path / "c.state.yaml"
    st.write_text(_state(f, fmt, tenants, extra))
    got = load_with_state(load_config(f), str(f), st)
    assert got.used_state and got.cfg.tenant("b").weight == 3
    assert {t.name: t.offset for t in got.cfg.tenants} == offsets
    assert got.scrub == scrub


@pytest.mark.parametrize("text,phrase", [
    ("jbof_state: 3\nconfig: {}\n", "jbof_state: format 3 is not supported; this jbof reads "
     "formats 1, 2 (a newer jbof wrote it? move it away to start from the config alone)"),
    ("jbof_state: 0\nconfig: {}\n", "format 0 is not supported; this jbof reads formats 1, 2"),
    ("jbof_state: '2'\nconfig: {}\n", "format '2' is not supported"),
    ("jbof_state: true\nconfig: {}\n", "format True is not supported"),
    ("jbof_state: 2\n", "is not a jbof state file (format 2 without a config mapping)"),
    ("jbof_state: 1\nconfig: [a]\n", "is not a jbof state file (format 1 without a config"),
    ("drives: []\n", "is not a jbof state file (move it away"),
    ("", "is not a jbof state file"),
    ("- 1\n", "is not a jbof state file"),
    ("jbof_state: [\n", "c.state.yaml"),
])
def test_bad_state_files_are_one_line(tmp_path: Path, text: str, phrase: str) -> None:
    f = tmp_path / "c.yaml"
    f.write_text(CONFIG)
    st = tmp_path / "c.state.yaml"
    st.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_with_state(load_config(f), str(f), st)
    msg = str(info.value)
    assert "\n" not in msg and phrase in msg and msg.startswith(str(st)), msg


@pytest.mark.needs_core
def test_a_format_1_state_is_placed_as_before_and_written_again_as_format_2() -> None:
    """A format-1 state (no offsets) is applied, its tenants placed first fit as the
    daemon that wrote it placed them, and the start writes it again as format 2 with
    every offset (the format-1 file kept as generation .1)."""
    from control_helpers import daemon, short_tmp
    tmp = short_tmp()
    try:
        f = tmp / "c.yaml"
        f.write_text(CONFIG)
        old = _state(f, "1", "[{name: a, size: 32MiB}, {name: b, size: 32MiB, weight: 3}]")
        (tmp / "c.state.yaml").write_text(old)
        with daemon("", restart=tmp) as d:
            assert d.engine.tenant_stats("b")["ns_base_bytes"] == 32 * MIB
            raw = yaml.safe_load(d.state_path.read_text())
            assert raw["jbof_state"] == 2 and raw["change"] == "state.format 1 -> 2"
            assert {t["name"]: t["offset"] for t in raw["config"]["tenants"]} == \
                {"a": "0", "b": "32MiB"}
            assert d.saved().tenant("b").weight == 3
            assert (tmp / "c.state.yaml.1").read_text() == old
        # a format-2 state is not written again at start
        with daemon("", restart=tmp) as d:
            assert yaml.safe_load(d.state_path.read_text())["change"] == "state.format 1 -> 2"
            assert not (tmp / "c.state.yaml.2").exists()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
