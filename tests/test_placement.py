"""Data safety across daemon restarts on a file drive (csrc/export.c section 2,
csrc/scrub.c section 5, control/state.py): a tenant's namespace stays where it
was (the state file keeps each tenant's ``offset``), and a removed tenant's space
that was not yet zeroed is dirty again after a restart (the state file keeps it
as ``scrub_pending``), so nobody reads another tenant's bytes."""
from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from test_hostile_nbd import CMD_READ, CMD_WRITE, nbd_call, nbd_connect

pytestmark = pytest.mark.needs_core

MIB = 1 << 20
PAT_A = bytes(range(256)) * 16          # what tenant a writes
PAT_B = bytes(reversed(range(256))) * 16


def _cfg(img: str, first: str, second: str, scrub_rate: str | None = None) -> str:
    lim = f"limits: {{scrub_rate: {scrub_rate}}}\n" if scrub_rate else ""
    return (f"drives: [{{name: d0, backend: file, path: {img}, size: 128MiB}}]\n"
            f"tenants:\n  - {{name: {first}, size: 32MiB}}\n  - {{name: {second}, size: 32MiB}}\n"
            + lim)


def _write(sock: str, name: str, pat: bytes, offs: tuple[int, ...] = (0, 31 * MIB)) -> None:
    s = nbd_connect(sock, name)
    for off in offs:
        assert nbd_call(s, CMD_WRITE, off, len(pat), pat)[0] == 0
    s.close()


def _read(sock: str, name: str, offs: tuple[int, ...] = (0, 31 * MIB)) -> list[bytes]:
    s = nbd_connect(sock, name)
    out = []
    for off in offs:
        err, data = nbd_call(s, CMD_READ, off, 4096)
        assert err == 0
        out.append(data)
    s.close()
    return out


def test_restart_after_removing_the_first_tenant_keeps_the_others_data() -> None:
    """(1) a at 0, b at 32 MiB; b writes; a is removed live; after a restart from
    the state b is where it was and reads its own bytes (it used to be placed first
    fit at a's old offset and read a's bytes)."""
    from control_helpers import daemon, short_tmp
    tmp = short_tmp()
    img = str(tmp / "disk.img")
    try:
        with daemon(_cfg(img, "a", "b"), keep=True) as d, d.client() as c:
            assert d.engine.tenant_stats("b")["ns_base_bytes"] == 32 * MIB
            _write(d.nbd, "a", PAT_A)
            _write(d.nbd, "b", PAT_B)
            c.call("tenant.remove", name="a", force=True)
            assert d.saved().tenant("b").offset == 32 * MIB
        with daemon("", restart=d.dir) as d2:
            assert d2.engine.tenant_stats("b")["ns_base_bytes"] == 32 * MIB
            assert _read(d2.nbd, "b") == [PAT_B, PAT_B]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(d.dir, ignore_errors=True)


def _remove_a_at_a_slow_scrub(img: str) -> tuple[Any, int]:
    """A daemon with b at 0 and a at 32 MiB on a file drive scrubbing at 1 MiB/s: a
    writes PAT_A and is removed; returns the (stopped, kept) daemon and the drive's
    scrub_pending_bytes just after the removal."""
    from control_helpers import daemon
    with daemon(_cfg(img, "b", "a", "1MiB/s"), keep=True) as d, d.client() as c:
        _write(d.nbd, "a", PAT_A)
        c.call("tenant.remove", name="a", force=True)
        return d, int(d.engine.drive_stats("d0")["scrub_pending_bytes"])


def test_restart_before_the_scrub_finished_keeps_the_space_dirty() -> None:
    """(2) b at 0, a at 32 MiB; a writes and is removed with the scrub at 1 MiB/s
    (32 s of work); restart: the drive reports a's space pending again; a live add is
    placed clear of it (as a start places tenants), one given an offset over it is
    refused with the start's one line, and one that fits only over it is refused
    (``busy``, one line) until it is zeroed -- none reads a's bytes."""
    from control_helpers import daemon, short_tmp
    from control.daemon.admin import AdminError
    tmp = short_tmp()
    img = str(tmp / "disk.img")
    try:
        d, pending = _remove_a_at_a_slow_scrub(img)
        assert pending > 16 * MIB
        with daemon("", restart=d.dir) as d2, d2.client() as c2:
            assert d2.engine.drive_stats("d0")["scrub_pending_bytes"] > 16 * MIB
            # an offset over it: the start's one line
            from click.testing import CliRunner

            from control.cli import main
            res = CliRunner().invoke(main, ["-s", d2.admin, "tenant", "add", "c", "--size",
                                            "32MiB", "--offset", "48MiB"])
            assert res.exit_code != 0 and len(res.output.strip().splitlines()) == 1, res.output
            assert "tenant 'c' at [48MiB, 80MiB) overlaps removed tenants' space drive 'd0' " \
                   "has not zeroed yet ([32MiB, 64MiB), in " in res.output, res.output
            # no offset: first fit clear of it, at once; the state keeps the pending space
            t0 = time.monotonic()
            c2.call("tenant.add", name="c", size="32MiB")
            assert time.monotonic() - t0 < 1.0
            assert d2.engine.tenant_stats("c")["ns_base_bytes"] == 64 * MIB
            assert d2.saved().tenant("c").offset == 64 * MIB
            raw = yaml.safe_load(d2.state_path.read_text())
            assert raw["scrub_pending"] == {"d0": [["32MiB", "32MiB"]]}
            c2.call("tenant.add", name="e", size="16MiB")
            assert d2.engine.tenant_stats("e")["ns_base_bytes"] == 96 * MIB
            # 32 MiB fits only over it now: refused (32 s of zeroing > ADD_SCRUB_WAIT_S)
            with pytest.raises(AdminError) as e:
                c2.call("tenant.add", name="f", size="32MiB")
            msg = str(e.value)
            assert "\n" not in msg and "being zeroed" in msg, msg
            c2.call("tenant.add", name="g", size="16MiB", offset="112MiB")  # clear of it
            # the file still holds a's bytes where the scrubber has not been: that is
            # why the space must stay dirty (scrub.c section 5)
            with open(img, "rb") as f:
                f.seek(32 * MIB + 31 * MIB)
                assert f.read(4096) == PAT_A
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(d.dir, ignore_errors=True)


def test_restart_then_a_new_tenant_over_removed_space_reads_zeroes() -> None:
    """(2) with the default scrub rate: after the restart the pending space is zeroed
    (in milliseconds) and c, placed at a's old offset, reads zeroes, not a's bytes."""
    from control_helpers import daemon, short_tmp
    tmp = short_tmp()
    img = str(tmp / "disk.img")
    try:
        d, _ = _remove_a_at_a_slow_scrub(img)
        # restart with a fast scrub rate (the state's limits win over the file's)
        state = d.dir / "c.state.yaml"
        text = state.read_text()
        assert "scrub_rate: 1MiB/s" in text and "scrub_pending" in text
        state.write_text(text.replace("scrub_rate: 1MiB/s", "scrub_rate: 16GiB/s"))
        with daemon("", restart=d.dir) as d2, d2.client() as c2:
            deadline = time.monotonic() + 30
            while d2.engine.drive_stats("d0")["scrub_pending_bytes"] and \
                    time.monotonic() < deadline:
                time.sleep(0.01)
            res = c2.call("tenant.add", name="c", size="32MiB")
            assert d2.engine.tenant_stats("c")["ns_base_bytes"] == 32 * MIB, res
            assert _read(d2.nbd, "c") == [bytes(4096), bytes(4096)]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(d.dir, ignore_errors=True)


def _edit_after_state(d: Any, new_line: str) -> None:
    """The operator mirrors `tenant rm a` in the config file and adds new_line,
    after the state was written (the file wins at the next start)."""
    f = d.dir / "c.yaml"
    f.write_text(f.read_text().replace("  - {name: a, size: 32MiB}\n", "")
                 .replace("limits:", f"  - {new_line}\nlimits:"))
    st = os.stat(d.dir / "c.state.yaml")
    os.utime(f, (st.st_atime + 2, st.st_mtime + 2))     # edited after the state


def test_config_edited_after_the_state_keeps_placement_and_pending_space() -> None:
    """The operator mirrors `tenant rm a` in the config file (and adds tenant n) and
    restarts: the file wins over the older state, yet b stays at 32 MiB (its offset
    is carried over from the state), a's unzeroed space is pending again, and n is
    placed first fit clear of it (64 MiB), reading zeroes; the state keeps a's space
    pending, so no later restart shows n a's bytes.  (n used to be placed over a's
    space and the space forgotten as pending after a 5 s wait: a restart before the
    1 MiB/s scrub got there showed n a's bytes at its 31 MiB.)"""
    from control_helpers import daemon, short_tmp
    tmp = short_tmp()
    img = str(tmp / "disk.img")
    try:
        with daemon(_cfg(img, "a", "b", "1MiB/s"), keep=True) as d, d.client() as c:
            _write(d.nbd, "a", PAT_A)
            _write(d.nbd, "b", PAT_B)
            c.call("tenant.remove", name="a", force=True)
        _edit_after_state(d, "{name: n, size: 32MiB}")
        for _ in range(2):                   # the edited start, then one from its state
            with daemon("", restart=d.dir) as d2, d2.client() as c2:
                assert d2.engine.tenant_stats("b")["ns_base_bytes"] == 32 * MIB
                assert _read(d2.nbd, "b") == [PAT_B, PAT_B]
                assert d2.engine.tenant_stats("n")["ns_base_bytes"] == 64 * MIB
                assert _read(d2.nbd, "n") == [bytes(4096), bytes(4096)]
                assert d2.engine.drive_stats("d0")["scrub_pending_bytes"] > 16 * MIB
                c2.call("tenant.set", name="b", weight=2)
                raw = yaml.safe_load(d2.state_path.read_text())
                assert raw["scrub_pending"] == {"d0": [["0", "32MiB"]]}
                assert {t["name"]: t["offset"] for t in raw["config"]["tenants"]} == \
                    {"b": "32MiB", "n": "64MiB"}
        with open(img, "rb") as f:           # a's bytes are still there: still pending
            f.seek(31 * MIB)
            assert f.read(4096) == PAT_A
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(d.dir, ignore_errors=True)


def test_config_edited_with_an_offset_over_pending_space_is_refused() -> None:
    """The edited file gives n an offset over a's space that is not zeroed yet: the
    start is refused with one line (the range used to be dropped from the pending
    list, and n read a's bytes at once)."""
    from control.config import load_config
    from control.errors import ConfigError
    from control.state import load_with_state
    from control_helpers import daemon, short_tmp
    tmp = short_tmp()
    img = str(tmp / "disk.img")
    try:
        with daemon(_cfg(img, "a", "b", "1MiB/s"), keep=True) as d, d.client() as c:
            _write(d.nbd, "a", PAT_A)
            c.call("tenant.remove", name="a", force=True)
        _edit_after_state(d, "{name: n, size: 16MiB, offset: 16MiB}")
        f = d.dir / "c.yaml"
        with pytest.raises(ConfigError) as e:
            load_with_state(load_config(f), str(f), d.dir / "c.state.yaml")
        msg = str(e.value)
        assert "\n" not in msg and msg.startswith(f"{f}: tenants[1].offset: tenant 'n' at "
                                                   "[16MiB, 32MiB) overlaps removed tenants' "
                                                   "space drive 'd0' has not zeroed yet "
                                                   "([0, 32MiB), in "), msg
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(d.dir, ignore_errors=True)


MEM = "drives: [{name: d0, backend: memory, size: 128MiB, block_size: 4096}]\n"


@pytest.mark.parametrize("tenants,pending,want", [
    # first fit clear of the pending space and of the given offsets, config order
    ("[{name: b, size: 32MiB, offset: 32MiB}, {name: n, size: 32MiB}]",
     "[[0, 32MiB]]", {"b": (32, 32), "n": (64, 32)}),
    ("[{name: n, size: 8MiB}, {name: m, size: 8MiB}]",
     "[[0, 4MiB], [12MiB, 4MiB]]", {"n": (4, 8), "m": (16, 8)}),
    ("[{name: n, size: 4MiB}]", "[[0, 1MiB]]", {"n": (1, 4)}),
    # not a multiple of 1 MiB: the drive's block (4 KiB)
    ("[{name: n, size: 12KiB}]", "[[0, 8KiB]]", {"n": (8 / 1024, 12 / 1024)}),
    # no size: an equal share of what is left clear of the pending space, whole MiB
    ("[{name: b, size: 32MiB, offset: 0}, {name: n}, {name: m}]",
     "[[32MiB, 16MiB]]", {"b": (0, 32), "n": (48, 40), "m": (88, 40)}),
    # no room even over the pending space: left to the Engine (no_space)
    ("[{name: b, size: 32MiB, offset: 32MiB}, {name: n, size: 80MiB}]", "[[0, 8MiB]]",
     {"n": None}),
    # nothing pending: the Engine's first fit, untouched
    ("[{name: n, size: 32MiB}]", "[]", {"n": None}),
])
def test_tenants_are_placed_clear_of_pending_space(tenants: str, pending: str,
                                                   want: dict[str, Any]) -> None:
    from control.config import parse_config
    from control.state import place_clear_of_pending, scrub_pending
    cfg = parse_config(yaml.safe_load(MEM + f"tenants: {tenants}\n"), "c.yaml")
    scrub = scrub_pending({"scrub_pending": {"d0": yaml.safe_load(pending)}}, cfg, "s")
    got = place_clear_of_pending(cfg, scrub, "c.yaml")
    for name, w in want.items():
        t = got.tenant(name)
        if w is None:
            assert t.offset is None, t
        else:
            assert (t.offset / MIB, t.size / MIB) == w, t


def test_the_daemon_places_with_the_engines_first_fit() -> None:
    """place_clear_of_pending has no first fit of its own: it asks csrc/export.c's
    (jbof_place_first_fit, section 2a), so the alignment rules live once; the
    binding maps ENOSPC to None and refuses bad arguments."""
    import inspect

    from control import state
    from dataplane import DataplaneError
    from dataplane.placement import first_fit
    src = inspect.getsource(state)
    assert "def _first_fit" not in src and "first_fit(end, block, size" in src
    # the drive's block above 4 KiB aligns a size that is not a multiple of 1 MiB
    cfg_ = MEM.replace("block_size: 4096", "block_size: 65536")
    from control.config import parse_config
    from control.state import place_clear_of_pending, scrub_pending
    cfg = parse_config(yaml.safe_load(cfg_ + "tenants: [{name: n, size: 192KiB}]\n"), "c.yaml")
    scrub = scrub_pending({"scrub_pending": {"d0": [[0, "64KiB"]]}}, cfg, "s")
    assert place_clear_of_pending(cfg, scrub, "c.yaml").tenant("n").offset == 64 << 10
    assert first_fit(128 * MIB, 4096, 32 * MIB, [(0, 32 * MIB), (64 * MIB, 32 * MIB)]) == 32 * MIB
    assert first_fit(128 * MIB, 4096, 40 * MIB, [(0, 32 * MIB), (64 * MIB, 32 * MIB)]) is None
    assert first_fit(128 * MIB, 0, 12 << 10, [(0, 8 << 10)]) == 8 << 10
    for bad in [(128 * MIB, 3, 4096, []), (128 * MIB, 4096, 0, []),
                (128 * MIB, 4096, 512, []), (128 * MIB, 4096, MIB, [(MIB, 0)]),
                (128 * MIB, 4096, MIB, [((1 << 64) - 1, 1)])]:
        with pytest.raises(DataplaneError, match="jbof_place_first_fit: EINVAL"):
            first_fit(*bad)
    with pytest.raises(ValueError, match="in \\[0, 2\\^64\\)"):
        first_fit(128 * MIB, 4096, MIB, [(-1, MIB)])


@pytest.mark.parametrize("tenants,pending,phrase", [
    ("[{name: b, size: 32MiB, offset: 64MiB}, {name: n, size: 64MiB}]", "[[0, 32MiB]]",
     "c.yaml: tenants[1]: tenant 'n' (64MiB) fits on drive 'd0' only over removed tenants' "
     "space not zeroed yet ([0, 32MiB)): a restart would show it their data; give it an "
     "offset clear of that space, or start once without it"),
    ("[{name: n, size: 100MiB}]", "[[64MiB, 1MiB]]", "tenant 'n' (100MiB) fits on drive"),
    ("[{name: b, size: 32MiB, offset: 0}, {name: n}]", "[[32MiB, 96MiB]]",
     "tenant 'n' (no size: an equal share of the rest) fits on drive 'd0' only over"),
])
def test_a_tenant_that_fits_only_over_pending_space_is_one_line(tenants: str, pending: str,
                                                                 phrase: str) -> None:
    from control.config import parse_config
    from control.errors import ConfigError
    from control.state import place_clear_of_pending, scrub_pending
    cfg = parse_config(yaml.safe_load(MEM + f"tenants: {tenants}\n"), "c.yaml")
    scrub = scrub_pending({"scrub_pending": {"d0": yaml.safe_load(pending)}}, cfg, "s")
    with pytest.raises(ConfigError) as e:
        place_clear_of_pending(cfg, scrub, "c.yaml")
    msg = str(e.value)
    assert "\n" not in msg and phrase in msg, msg


def test_shutdown_after_the_scrub_finished_forgets_the_pending_space() -> None:
    """The state lists a's space at `tenant rm a`; once the drive reports it zeroed,
    the daemon's shutdown writes the state once more without it (scrub.done), so the
    next start neither zeroes it again nor holds tenant.add back."""
    from control_helpers import daemon, short_tmp
    tmp = short_tmp()
    img = str(tmp / "disk.img")
    try:
        with daemon(_cfg(img, "a", "b", "64MiB/s"), keep=True) as d, d.client() as c:
            _write(d.nbd, "a", PAT_A)
            c.call("tenant.remove", name="a", force=True)
            assert yaml.safe_load(d.state_path.read_text())["scrub_pending"] == \
                {"d0": [["0", "32MiB"]]}
            deadline = time.monotonic() + 10
            while d.engine.drive_stats("d0")["scrub_pending_bytes"] and \
                    time.monotonic() < deadline:
                time.sleep(0.02)
        raw = yaml.safe_load(d.state_path.read_text())
        assert raw["change"] == "scrub.done" and "scrub_pending" not in raw
        assert [t["name"] for t in raw["config"]["tenants"]] == ["b"]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(d.dir, ignore_errors=True)


def test_engine_scrub_key_marks_space_dirty_before_serving() -> None:
    """The Engine's drives[].scrub ranges (what the daemon restores at start) read as
    zeroes to a tenant placed over them, before the background got there."""
    from dataplane.engine import Engine
    tmp = tempfile.mkdtemp(prefix="jbof-p-", dir="/tmp")
    img, sock = os.path.join(tmp, "disk.img"), os.path.join(tmp, "s")
    drive: dict[str, Any] = {"name": "d", "backend": "file", "size": 64 * MIB, "path": img}
    try:
        with open(img, "wb") as f:
            f.truncate(64 * MIB)
            f.seek(32 * MIB + 31 * MIB)
            f.write(PAT_A)
        with Engine({"drives": [{**drive, "scrub": [[32 * MIB, 32 * MIB]]}],
                     "tenants": [{"name": "c", "size": 32 * MIB, "offset": 32 * MIB}],
                     "listen": {"unix": sock}, "engine": {"scrub_rate": MIB}}) as eng:
            assert eng.drive_stats("d")["scrub_pending_bytes"] > 16 * MIB
            assert _read(sock, "c") == [bytes(4096), bytes(4096)]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.mark.parametrize("offset,phrase", [
    (16 * MIB, "overlaps tenant 'a' at [0, 32MiB)"),
    (6 * 1024, "is not a multiple of the drive block"),
    (112 * MIB, "past the end of drive 'd0'"),
])
def test_engine_bad_offset_is_one_line(offset: int, phrase: str) -> None:
    """The Engine checks an offset against the namespaces in place (a live add)."""
    from dataplane.engine import Engine, EngineConfigError
    tmp = tempfile.mkdtemp(prefix="jbof-p-", dir="/tmp")
    try:
        with Engine({"drives": [{"name": "d0", "backend": "memory", "size": 128 * MIB,
                                 "block_size": 4096}],
                     "tenants": [{"name": "a", "size": 32 * MIB}],
                     "listen": {"unix": os.path.join(tmp, "s")}}) as eng:
            with pytest.raises(EngineConfigError) as info:
                eng.add_tenant({"name": "b", "size": 32 * MIB, "offset": offset})
            msg = str(info.value)
            assert "\n" not in msg and phrase in msg, msg
            eng.add_tenant({"name": "b", "size": 32 * MIB, "offset": 64 * MIB})
            assert eng.tenant_stats("b")["ns_base_bytes"] == 64 * MIB
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.mark.parametrize("pending,phrase", [
    ("[[0, 32MiB]]", "scrub_pending.d0[0]: [0, 32MiB) overlaps tenant 'b'"),
    ("[[32MiB]]", "scrub_pending.d0[0]: ['32MiB'] is not [offset, length]"),
    ("{x: 1}", "scrub_pending.d0: expected a list of [offset, length]"),
])
def test_bad_scrub_pending_in_the_state_is_one_line(tmp_path: Path, pending: str,
                                                    phrase: str) -> None:
    """A state whose scrub_pending would zero a tenant's data, or is malformed, is
    refused at start with one line (the daemon never writes one)."""
    from control.config import load_config
    from control.errors import ConfigError
    from control.state import file_sha256, load_with_state
    f = tmp_path / "c.yaml"
    f.write_text("drives: [{name: d0, backend: memory, size: 128MiB}]\n"
                 "tenants: [{name: b, size: 32MiB}]\n")
    st = tmp_path / "c.state.yaml"
    st.write_text(f"jbof_state: 2\nbase_sha256: {file_sha256(f)}\nconfig:\n"
                  "  drives: [{name: d0, backend: memory, size: 128MiB}]\n"
                  "  tenants: [{name: b, size: 32MiB, offset: 0}]\n"
                  f"scrub_pending:\n  d0: {pending}\n")
    with pytest.raises(ConfigError) as info:
        load_with_state(load_config(f), str(f), st)
    msg = str(info.value)
    assert "\n" not in msg and phrase in msg, msg


def test_add_waiting_for_the_scrub_does_not_block_other_admin_requests() -> None:
    """tenant.add that fits only over space its drive still zeroes (the drive is
    full otherwise) waits for the zeroing (here
    ~4.6 s of work at 7 MiB/s) without the ops lock: tenant.list, stats and even a
    tenant.set answer within 1 s meanwhile (the wait used to hold the lock, up to
    11 s: tenant.set took 4.4 s here); the add then lands first fit on the zeroed
    space.  (The add may still end refused with ``busy`` if the host is so loaded
    that the reactor cannot run the scrub's steps in time: the lock is what is
    tested.)"""
    import threading

    from control_helpers import daemon
    from control.daemon.admin import AdminError
    cfg = ("drives: [{name: d0, backend: memory, size: 128MiB}]\n"
           "tenants:\n  - {name: a, size: 32MiB}\n  - {name: b, size: 32MiB}\n"
           "  - {name: x, size: 64MiB}\n"
           "limits: {scrub_rate: 7MiB/s}\n")
    with daemon(cfg) as d, d.client() as c:
        _write(d.nbd, "a", PAT_A)
        c.call("stats")                      # its first call imports the metrics code
        c.call("tenant.remove", name="a", force=True)
        assert d.engine.drive_stats("d0")["scrub_pending_bytes"] > 16 * MIB
        got: dict[str, Any] = {}

        def add() -> None:
            t0 = time.monotonic()
            with d.client() as c2:
                try:
                    got["add"] = c2.call("tenant.add", name="c", size="32MiB")
                except AdminError as e:
                    got["error"] = e
            got["add_s"] = time.monotonic() - t0

        th = threading.Thread(target=add)
        th.start()
        time.sleep(0.3)                      # the add is waiting now
        for op, args in (("tenant.list", {}), ("stats", {}),
                         ("tenant.set", {"name": "b", "weight": 3})):
            t0 = time.monotonic()
            c.call(op, **args)
            assert time.monotonic() - t0 < 1.0, op
        assert th.is_alive(), "the add did not wait for the zeroing"
        th.join(timeout=30)
        assert got["add_s"] > 1.0
        assert d.saved().tenant("b").weight == 3
        if "error" in got:
            e = got["error"]
            assert e.code == "busy" and "being zeroed ([0, 32MiB);" in e.message, e.message
            return
        assert d.engine.tenant_stats("c")["ns_base_bytes"] == 0
        assert d.saved().tenant("c").offset == 0
        assert _read(d.nbd, "c") == [bytes(4096), bytes(4096)]


def test_add_refused_while_the_scrub_is_long_names_the_pending_range() -> None:
    """Zeroing that takes more than ADD_SCRUB_WAIT_S: tenant.add that fits only over
    it is refused at once with one line naming the pending range, the rate and the
    time left."""
    from control_helpers import daemon
    from control.daemon.admin import AdminError
    cfg = ("drives: [{name: d0, backend: memory, size: 128MiB}]\n"
           "tenants:\n  - {name: a, size: 32MiB}\n  - {name: b, size: 32MiB}\n"
           "  - {name: x, size: 64MiB}\n"
           "limits: {scrub_rate: 1MiB/s}\n")
    with daemon(cfg) as d, d.client() as c:
        c.call("tenant.remove", name="a", force=True)
        t0 = time.monotonic()
        with pytest.raises(AdminError) as e:
            c.call("tenant.add", name="c", size="32MiB")
        assert time.monotonic() - t0 < 1.0
        msg = e.value.message
        assert e.value.code == "busy" and "\n" not in msg, msg
        assert "being zeroed ([0, 32MiB); limits.scrub_rate 1MiB/s: about 3" in msg, msg


@pytest.mark.parametrize("args,want", [
    ({"size": "32MiB"}, 64 * MIB),                    # first fit clear of [0, 32MiB)
    ({"size": "64MiB"}, 64 * MIB),
    ({"size": "16MiB"}, 64 * MIB),
    ({"size": "32MiB", "offset": "96MiB"}, 96 * MIB),  # given, clear of it
    ({"size": "16MiB", "offset": "8MiB"},
     "invalid: args.offset: tenant 'c' at [8MiB, 24MiB) overlaps removed tenants' space "
     "drive 'd0' has not zeroed yet ([0, 32MiB), in "),
    ({"size": "8MiB", "offset": "0"}, "invalid: args.offset: tenant 'c' at [0, 8MiB) overlaps"),
    ({"size": "96MiB"}, "no_space: tenant 'c'"),        # fits nowhere: the Engine says so
])
def test_live_add_is_placed_clear_of_pending_space(args: dict[str, Any], want: Any) -> None:
    """A live tenant.add uses the start's placement (control/state.py
    place_clear_of_pending): a at 0 removed while the drive zeroes at 1 MiB/s, b at
    32 MiB: an add without an offset lands first fit clear of a's space at once (it
    used to wait, then be refused ``busy``); one given an offset over it is refused
    with the start's one line; one that fits nowhere is the Engine's no_space (one that
    fits only over it is still ``busy``: the two tests below)."""
    from control_helpers import daemon
    from control.daemon.admin import AdminError
    cfg = ("drives: [{name: d0, backend: memory, size: 128MiB}]\n"
           "tenants:\n  - {name: a, size: 32MiB}\n  - {name: b, size: 32MiB}\n"
           "limits: {scrub_rate: 1MiB/s}\n")
    with daemon(cfg) as d, d.client() as c:
        _write(d.nbd, "a", PAT_A)
        c.call("tenant.remove", name="a", force=True)
        t0 = time.monotonic()
        if isinstance(want, int):
            c.call("tenant.add", name="c", **args)
            assert time.monotonic() - t0 < 1.0
            assert d.engine.tenant_stats("c")["ns_base_bytes"] == want
            assert d.saved().tenant("c").offset == want
            assert _read(d.nbd, "c", (0, 15 * MIB)) == [bytes(4096), bytes(4096)]
            assert d.engine.drive_stats("d0")["scrub_pending_bytes"] > 16 * MIB
            return
        with pytest.raises(AdminError) as e:
            c.call("tenant.add", name="c", **args)
        assert time.monotonic() - t0 < 1.0
        msg = f"{e.value.code}: {e.value.message}"
        assert "\n" not in msg and msg.startswith(want), msg
        assert "c" not in [t["name"] for t in c.call("tenant.list")["tenants"]]


def test_a_start_where_the_edited_config_wins_writes_the_state() -> None:
    """The file wins over an older state: the start writes the state at once (change
    'start: config file edited after the state', based on the edited file, the old
    state kept as .1) with the offsets it placed -- n at 64 MiB, clear of a's pending
    space -- and that space still pending; before, they were saved only at the next
    change or shutdown, so a crash meanwhile started the next time from the file
    alone (then n is placed again, without the state's knowledge)."""
    from control_helpers import daemon, short_tmp
    from control.state import file_sha256
    tmp = short_tmp()
    img = str(tmp / "disk.img")
    try:
        with daemon(_cfg(img, "a", "b", "1MiB/s"), keep=True) as d, d.client() as c:
            c.call("tenant.remove", name="a", force=True)
        old = (d.dir / "c.state.yaml").read_text()
        _edit_after_state(d, "{name: n, size: 32MiB}")
        with daemon("", restart=d.dir) as d2:
            raw = yaml.safe_load(d2.state_path.read_text())   # no change made: the start's
            assert raw["change"] == "start: config file edited after the state"
            assert raw["jbof_state"] == 2
            assert raw["base_sha256"] == file_sha256(d.dir / "c.yaml")
            assert {t["name"]: t["offset"] for t in raw["config"]["tenants"]} == \
                {"b": "32MiB", "n": "64MiB"}
            assert raw["scrub_pending"] == {"d0": [["0", "32MiB"]]}
            assert (d.dir / "c.state.yaml.1").read_text() == old
            assert not list(d.dir.glob(".c.state.yaml.*.tmp"))   # written atomically
        # the next start applies it (its base is the file now): same layout, no write
        with daemon("", restart=d.dir) as d3:
            assert d3.engine.tenant_stats("n")["ns_base_bytes"] == 64 * MIB
            assert d3.engine.drive_stats("d0")["scrub_pending_bytes"] > 16 * MIB
            raw = yaml.safe_load(d3.state_path.read_text())
            assert raw["change"] == "start: config file edited after the state"
            assert (d.dir / "c.state.yaml.1").read_text() == old
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(d.dir, ignore_errors=True)
