"""Issue 14, "the operator's tool": the config file is never rewritten (state file,
generations, diff, save with comments kept), config check finds what serve would
reject, C errors in words, CLI consistency (--version, global -s, --json keys,
tenant rm --force), bench --repeat flagging."""
from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from control.cli import main
from control.config import load_config
from control.config_export import document
from control.daemon.admin import AdminError
from control.daemon.operations import Operations
from control.state import GENERATIONS, StateFile, file_sha256, load_with_state, state_config

MIB = 1 << 20

COMMENTED = """\
# the operator's own words: keep them
drives:
  - name: d0              # the only drive
    backend: memory
    size: 256MiB
tenants:
  - name: a               # latency-critical
    size: 64MiB
    latency_slo: 1000us   # spelled the operator's way
  - name: b
    size: 64MiB
"""


class FakeEngine:
    """What Operations needs of an Engine, with open connections to choose."""

    def __init__(self, conns: int = 0) -> None:
        self.conns = conns
        self.removed: list[str] = []

    def set_tenant(self, name: str, **settings: Any) -> None:
        pass

    def add_tenant(self, t: Any) -> None:
        pass

    def remove_tenant(self, name: str) -> None:
        self.removed.append(name)

    def tenant_stats(self, name: str) -> dict[str, Any]:
        return {"connections": self.conns, "ns_base_bytes": 0, "size_bytes": 64 << 20}

    def drive_stats(self, name: str) -> dict[str, Any]:
        return {"scrub_pending_bytes": 0}

    def uri(self, name: str, transport: str) -> str:
        if transport != "unix":
            raise ValueError("no tcp")
        return f"nbd+unix:///{name}?socket=/x"

    def uris(self) -> list[str]:
        return []


def _ops(tmp_path: Path, conns: int = 0) -> tuple[Operations, Path, Path]:
    f = tmp_path / "jbof.yaml"
    f.write_text(COMMENTED)
    state = tmp_path / "jbof.state.yaml"
    cfg = load_config(f)
    ops = Operations(FakeEngine(conns), cfg, str(state), lambda: None)
    ops.config_path = str(f)
    assert ops.state is not None
    ops.state.base_sha256 = file_sha256(f)
    return ops, f, state


# ---------------------------------------------------------------- state file ---

def test_admin_changes_never_touch_the_config_file_and_keep_generations(tmp_path: Path) -> None:
    ops, f, state = _ops(tmp_path)
    before = f.read_bytes()
    for w in range(2, 2 + GENERATIONS + 2):
        res = ops.handle("tenant.set", {"name": "b", "weight": w})
        assert res["persisted"] == str(state)
    assert f.read_bytes() == before                                    # byte for byte
    assert not Path(f"{f}.prev").exists()
    assert state_config(state).tenant("b").weight == GENERATIONS + 3
    gens = [Path(f"{state}.{i}") for i in range(1, GENERATIONS)]
    assert all(g.exists() for g in gens) and not Path(f"{state}.{GENERATIONS}").exists()
    assert [state_config(g).tenant("b").weight for g in gens] == \
        [GENERATIONS + 2 - i for i in range(GENERATIONS - 1)]


def test_persist_false_applies_without_saving(tmp_path: Path) -> None:
    ops, f, state = _ops(tmp_path)
    res = ops.handle("tenant.set", {"name": "b", "weight": 9, "persist": False})
    assert res["persisted"] is None and ops.config.tenant("b").weight == 9
    assert not state.exists()
    with pytest.raises(AdminError) as e:
        ops.handle("tenant.set", {"name": "b", "weight": 2, "persist": "no"})
    assert e.value.code == "invalid" and "args.persist" in e.value.message


def test_start_loads_the_state_only_when_made_from_this_file(tmp_path: Path) -> None:
    ops, f, state = _ops(tmp_path)
    ops.handle("tenant.set", {"name": "b", "weight": 5})
    got = load_with_state(load_config(f), str(f), state)
    assert got.used_state and got.cfg.tenant("b").weight == 5
    assert f"config {f} + state {state}" in got.message and "tenant.set b" in got.message
    import os
    f.write_text(COMMENTED + "# edited by hand\n")            # the operator edits the file
    st = state.stat().st_mtime
    os.utime(f, (st + 5, st + 5))                                # ... after the state
    got = load_with_state(load_config(f), str(f), state)
    assert not got.used_state and got.cfg.tenant("b").weight == 1
    assert "NOT applied: the config file was edited after it" in got.message
    os.utime(f, (st - 5, st - 5))         # a file changed before the last state (config save)
    got = load_with_state(load_config(f), str(f), state)
    assert got.used_state and got.cfg.tenant("b").weight == 5 and "newer state wins" in got.message
    none = load_with_state(load_config(f), str(f), tmp_path / "none.state.yaml")
    assert not none.used_state and "no state" in none.message


def test_a_corrupt_state_file_is_one_line(tmp_path: Path) -> None:
    from control.errors import ConfigError
    f = tmp_path / "jbof.yaml"
    f.write_text(COMMENTED)
    bad = tmp_path / "jbof.state.yaml"
    bad.write_text("drives: []\n")
    with pytest.raises(ConfigError) as e:
        load_with_state(load_config(f), str(f), bad)
    assert "is not a jbof state file" in str(e.value) and "\n" not in str(e.value)


# ------------------------------------------------------------ diff and save ---

def test_diff_and_save_round_trip_keeps_comments(tmp_path: Path) -> None:
    from control.config_save import diff_text, save_over
    ops, f, state = _ops(tmp_path)
    assert diff_text(str(f), document(ops.file_form())) == ""
    ops.handle("tenant.set", {"name": "b", "weight": 4, "limit": "200MiB/s"})
    ops.handle("tenant.add", {"name": "c", "size": "32MiB"})
    ops.handle("tenant.remove", {"name": "a"})
    running = document(ops.file_form())
    d = diff_text(str(f), running)
    assert "+  weight: 4" in d and "+- name: c" in d and "-- name: a" in d
    assert save_over(str(f), running)
    text = f.read_text()
    assert text.startswith("# the operator's own words: keep them\n")
    assert "# the only drive" in text and "class:" not in text
    assert "name: a" not in text and "latency-critical" not in text     # a's lines went
    assert document(load_config(f)) == running                          # means the same
    assert diff_text(str(f), running) == ""
    assert not save_over(str(f), running)                              # nothing to write


def test_save_keeps_the_operators_spelling_of_an_unchanged_value(tmp_path: Path) -> None:
    from control.config_save import save_over
    ops, f, _state = _ops(tmp_path)
    ops.handle("tenant.set", {"name": "b", "weight": 3})
    assert save_over(str(f), document(ops.file_form()))
    text = f.read_text()
    assert "latency_slo: 1000us   # spelled the operator's way" in text
    assert "weight: 3" in text


def test_config_diff_and_save_cli(tmp_path: Path) -> None:
    from control_helpers import daemon
    with daemon(COMMENTED) as d:
        r = CliRunner()
        s = ["--socket", d.admin]
        res = r.invoke(main, ["config", "diff", *s])
        assert res.exit_code == 0 and "no differences" in res.output
        with d.client() as c:
            c.call("tenant.set", name="b", weight=6)
        before = d.config_path.read_bytes()
        res = r.invoke(main, ["-s", d.admin, "config", "diff"])           # the global -s
        assert res.exit_code == 1 and "+  weight: 6" in res.output
        assert d.config_path.read_bytes() == before
        new = tmp_path / "new.yaml"
        res = r.invoke(main, ["config", "save", "--to", str(new), *s])
        assert res.exit_code == 0 and load_config(new).tenant("b").weight == 6
        res = r.invoke(main, ["config", "save", *s])
        assert res.exit_code == 0 and "comments kept" in res.output
        assert "# the operator's own words" in d.config_path.read_text()
        assert load_config(d.config_path).tenant("b").weight == 6


# ------------------------------------------------------------- config check ---

def _check(tmp_path: Path, text: str) -> Any:
    f = tmp_path / "c.yaml"
    f.write_text(text)
    return CliRunner().invoke(main, ["config", "check", str(f)])


@pytest.mark.parametrize("path,size,want", [
    ("nope.img", "", "drive d0: {d}/nope.img does not exist (create it"),
    ("nodir/nope.img", ", size: 64MiB",
     "drive d0: {d}/nodir/nope.img does not exist, nor does its directory {d}/nodir"),
])
def test_check_missing_drive_path(tmp_path: Path, path: str, size: str, want: str) -> None:
    res = _check(tmp_path, f"drives: [{{name: d0, backend: file, path: {tmp_path}/{path}"
                           f"{size}}}]\nlisten: {{unix: {tmp_path}/n.sock}}\n")
    assert res.exit_code == 1, res.output
    assert want.format(d=tmp_path) in res.output
    # with a size, in an existing directory: serve creates the file, so it passes
    ok = _check(tmp_path, f"drives: [{{name: d0, backend: file, path: {tmp_path}/new.img, "
                          f"size: 64MiB, direct: false}}]\nlisten: {{unix: {tmp_path}/n.sock}}\n")
    assert ok.exit_code == 0, ok.output


def test_check_busy_unix_socket(tmp_path: Path) -> None:
    sock = tmp_path / "busy.sock"
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(str(sock))
    srv.listen(1)
    try:
        res = _check(tmp_path, f"drives: [{{name: d0, backend: memory, size: 64MiB}}]\n"
                               f"listen: {{unix: {sock}}}\n"
                               f"admin: {{socket: {tmp_path}/a.sock}}\n")
        assert res.exit_code == 1
        assert f"the NBD socket (listen.unix) {sock} is in use by a running process" \
            in res.output
    finally:
        srv.close()


def test_check_bound_tcp_port(tmp_path: Path) -> None:
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    port = srv.getsockname()[1]
    try:
        res = _check(tmp_path, f"drives: [{{name: d0, backend: memory, size: 64MiB}}]\n"
                               f"listen: {{unix: {tmp_path}/n.sock, tcp: 127.0.0.1:{port}}}\n"
                               f"admin: {{socket: {tmp_path}/a.sock}}\n"
                               f"metrics: 127.0.0.1:{port}\n")
        assert res.exit_code == 1
        assert f"the NBD TCP address (listen.tcp) 127.0.0.1:{port} is in use" in res.output
        assert f"the metrics address (metrics) 127.0.0.1:{port} is in use" in res.output
    finally:
        srv.close()


def test_check_passes_a_good_file_and_the_default_config(tmp_path: Path) -> None:
    img = tmp_path / "d.img"
    img.write_bytes(b"\0" * (4 * MIB))
    res = _check(tmp_path, f"drives: [{{name: d0, backend: file, path: {img}, direct: false}}]\n"
                           f"listen: {{unix: {tmp_path}/n.sock}}\n")
    assert res.exit_code == 0, res.output
    from control.daemon.serve import DEFAULT_CONFIG
    cfg = load_config(DEFAULT_CONFIG)
    free = cfg.drives[0].size - sum(t.size or 0 for t in cfg.tenants)
    assert free >= 2 << 30          # the README's live `tenant add ckpt --size 2GiB` fits


@pytest.mark.parametrize("func,err,detail,want", [
    ("jbof_engine_add_drive", -2, "drive 'd0' (/nope)",
     "drive 'd0' (/nope): the path does not exist [jbof_engine_add_drive: ENOENT]"),
    ("jbof_engine_listen_unix", -98, "/run/jbof/nbd.sock",
     "the unix socket /run/jbof/nbd.sock is in use by another process (is a jbof serve "
     "running? stop it or choose another --unix) [jbof_engine_listen_unix: EADDRINUSE]"),
    ("jbof_engine_listen_tcp", -98, "0.0.0.0:10809",
     "the TCP address 0.0.0.0:10809 is in use by another process (choose another port) "
     "[jbof_engine_listen_tcp: EADDRINUSE]"),
])
def test_c_errors_in_words(func: str, err: int, detail: str, want: str) -> None:
    from dataplane import DataplaneError
    from control.errors import explain_os_error
    assert explain_os_error(DataplaneError(err, func, detail)) == want


# ---------------------------------------------------------------------- CLI ---

def test_version_flag_and_global_socket() -> None:
    r = CliRunner()
    res = r.invoke(main, ["--version"])
    assert res.exit_code == 0 and res.output.startswith("jbof ")
    res = r.invoke(main, ["-s", "/nonexistent/admin.sock", "tenant", "ls"])
    assert res.exit_code == 1 and "/nonexistent/admin.sock" in res.output
    res = r.invoke(main, ["-s", "/nonexistent/a.sock", "tenant", "ls", "--socket",
                          "/nonexistent/b.sock"])                  # the command's own wins
    assert "/nonexistent/b.sock" in res.output


def test_json_objects_have_the_same_keys() -> None:
    from control_helpers import daemon
    with daemon("drives: [{name: d0, backend: memory, size: 256MiB}]\n"
                "tenants:\n  - {name: a, size: 64MiB, latency_slo: 2ms, reserve: 10MiB/s}\n"
                "  - {name: b, size: 64MiB, class: scavenger, limit: 1GiB/s}\n"
                "  - {name: c}\n") as d:
        r = CliRunner()
        for args in (["tenant", "ls", "--json"], ["drive", "ls", "--json"]):
            rows = json.loads(r.invoke(main, [*args, "--socket", d.admin]).output)
            assert len({tuple(x) for x in rows}) == 1, args
        res = r.invoke(main, ["stats", "--json", "--watch", "--count", "1", "--interval",
                              "20ms", "--socket", d.admin])
        line = json.loads(res.output.splitlines()[0])
        assert len({tuple(x) for x in line["tenants"]}) == 1
        assert line["drives"][0]["state"] == "idle"
        for t in line["tenants"]:
            assert "slo_miss_pct" in t and "p99_vs_slo" in t


def test_tenant_rm_refuses_while_connected_unless_forced(tmp_path: Path) -> None:
    ops, _f, _state = _ops(tmp_path, conns=2)
    with pytest.raises(AdminError) as e:
        ops.handle("tenant.remove", {"name": "b"})
    assert e.value.code == "busy" and "2 open connections" in e.value.message
    assert ops.handle("tenant.remove", {"name": "b", "force": True})["tenant"] == "b"


def test_table_mode_prints_no_raw_json_or_reprs() -> None:
    from control.cli.forecast import _plain
    assert _plain({"job": "j1", "limits": {"scav": 5}, "x": None}) == \
        "{job j1, limits {scav 5}, x -}"


# -------------------------------------------------------------------- bench ---

def _doc(policy: str, shares: dict[str, float], util: float | None = None) -> dict[str, Any]:
    return {"policy": policy, "jain": 0.9, "utilization": util if util is not None
            else sum(shares.values()),
            "tenants": [{"name": n, "share": s} for n, s in shares.items()]}


def test_bench_repeat_flags_shares_above_one_and_spread() -> None:
    from control.bench.results import combine_repeats, format_repeat
    steady = [[_doc("qos", {"r": 0.50, "w": 0.45})] for _ in range(3)]
    (ok,) = combine_repeats(steady)
    assert ok["unreliable"] == [] and ok["repeat"]["n"] == 3
    assert ok["repeat"]["share"]["r"] == {"min": 0.5, "median": 0.5, "max": 0.5, "spread": 0.0}
    noisy = [[_doc("qos", {"r": 0.5, "w": w})] for w in (0.40, 1.82, 0.45)]
    (bad,) = combine_repeats(noisy)
    why = " ".join(bad["unreliable"])
    assert "w share 1.82 > 1.05" in why and "w share varies" in why
    assert "utilization varies" in why
    assert bad["utilization"] == pytest.approx(0.95)                  # the median repeat
    text = format_repeat(bad)
    assert "3 runs: utilization" in text and "UNRELIABLE: w share 1.82 > 1.05" in text
    (one,) = combine_repeats([[_doc("fifo", {"r": 1.2})]])
    assert one["unreliable"] == ["r share 1.20 > 1.05 (faster beside others than alone: the "
                                 "solo baseline was disturbed)"]


def test_bench_repeat_option() -> None:
    res = CliRunner().invoke(main, ["bench", "--help"])
    assert "--repeat N" in res.output and "[default: 3;" in res.output
    res = CliRunner().invoke(main, ["bench", "x.yaml", "--repeat", "0"])
    assert res.exit_code == 2


def test_serve_help_points_nowhere_into_the_repository() -> None:
    res = CliRunner().invoke(main, ["serve", "--help"])
    assert "configs/default.yaml" not in res.output and "--state-dir" in res.output
    assert yaml is not None


# ------------------------------------------------- config check: the state file ---

_DRV = "drives: [{{name: d0, backend: memory, size: 128MiB}}]\n"
_NET = "listen: {{unix: {d}/n.sock}}\nadmin: {{socket: {d}/a.sock}}\n"


def _state_doc(d: Path, base: str, tenants: str, extra: str = "", fmt: str = "2") -> str:
    net = _NET.format(d=d).replace("\n", "\n  ")
    return (f"jbof_state: {fmt}\nsaved_at: x\nchange: tenant.remove a\nbase_sha256: {base}\n"
            f"config:\n  {_DRV.format()}  tenants: {tenants}\n  {net}\n{extra}")


# (config file tenants, state file (None: none) given (dir, base sha, ...), edited after
#  the state?, exit code, what the one output line holds)
_B_C = "[{name: b, size: 32MiB, offset: 32MiB}, {name: c, size: 32MiB, offset: 64MiB}]"
_PENDING = "scrub_pending: {d0: [[0, 32MiB]]}\n"
CHECK_STATE = [
    ("no-state", None, False, 0, ": ok: 1 drive: d0 (memory, qos, 2 tenants, 64.0MiB/128MiB)"),
    ("applied", lambda d, b: _state_doc(d, b, _B_C[:-1] + ", {name: e, size: 16MiB, offset: "
                                        "96MiB}]", _PENDING), False, 0,
     "3 tenants, 80.0MiB/128MiB); NBD on"),
    ("format-3", lambda d, b: _state_doc(d, b, _B_C, fmt="3"), False, 1,
     "jbof_state: format 3 is not supported; this jbof reads formats 1, 2"),
    ("not-a-state", lambda d, b: "just: text\n", False, 1, "is not a jbof state file"),
    ("pending-under-a-tenant",
     lambda d, b: _state_doc(d, b, _B_C, "scrub_pending: {d0: [[48MiB, 8MiB]]}\n"), False, 1,
     "scrub_pending.d0[0]: [48MiB, 56MiB) overlaps tenant 'b'"),
    ("edited-offset-over-pending", lambda d, b: _state_doc(d, "0" * 64, _B_C, _PENDING), True,
     1, "tenants[2].offset: tenant 'n' at [16MiB, 48MiB) overlaps removed tenants' space "
        "drive 'd0' has not zeroed yet ([0, 32MiB)"),
    ("edited-fits-only-over-pending", lambda d, b: _state_doc(d, "0" * 64, _B_C, _PENDING),
     True, 1, "tenant 'm' (32MiB) fits on drive 'd0' only over removed tenants' space not "
              "zeroed yet ([0, 32MiB))"),
    ("edited-placed-clear", lambda d, b: _state_doc(d, "0" * 64, _B_C, _PENDING), True, 0,
     "not applied (the file was edited after it)"),
]
_FILE_TENANTS = {
    "edited-offset-over-pending": "  - {name: n, size: 32MiB, offset: 16MiB}\n",
    "edited-fits-only-over-pending": "  - {name: x, size: 32MiB, offset: 96MiB}\n"
                                     "  - {name: m, size: 32MiB}\n",
    "edited-placed-clear": "  - {name: n, size: 16MiB}\n",
}


@pytest.mark.parametrize("case,state,edited,code,want", CHECK_STATE,
                         ids=[c[0] for c in CHECK_STATE])
@pytest.mark.parametrize("state_dir", [False, True])
def test_check_reads_the_state_file_serve_would(tmp_path: Path, case: str, state: Any,
                                                 edited: bool, code: int, want: str,
                                                 state_dir: bool) -> None:
    """`jbof config check` reads the state file `jbof serve` would (beside the file, or
    in --state-dir) and refuses what a start refuses with the same one line (serve's
    load_with_state raises it) and exit 1 -- before, it checked the file alone and the
    systemd pre-start check passed a start that then failed."""
    import os
    sd = tmp_path / "state"
    sd.mkdir()
    f = tmp_path / "c.yaml"
    f.write_text(_DRV.format() + "tenants:\n  - {name: b, size: 32MiB}\n"
                 "  - {name: c, size: 32MiB}\n" + _FILE_TENANTS.get(case, "")
                 + _NET.format(d=tmp_path))
    where = sd if state_dir else tmp_path
    if state is not None:
        st = where / "c.state.yaml"
        st.write_text(state(tmp_path, file_sha256(f)))
        t = os.stat(st).st_mtime
        os.utime(f, (t + (2 if edited else -2), t + (2 if edited else -2)))
    args = ["config", "check", str(f)] + (["--state-dir", str(sd)] if state_dir else [])
    res = CliRunner().invoke(main, args)
    out = (res.stdout if code == 0 else res.stderr).strip().splitlines()
    assert res.exit_code == code and len(out) == 1 and want in out[0], res.output
    if code:
        with pytest.raises(Exception) as e:      # what serve's start says, word for word
            load_with_state(load_config(f), str(f.resolve()), where / "c.state.yaml")
        assert out[0] == f"Error: {e.value}", (out[0], str(e.value))
    # --no-host skips the machine, not the state file: the same line and exit code
    # (it used to check the file alone: exit 0 on every case, the start then refused)
    nh = CliRunner().invoke(main, args + ["--no-host"])
    assert (nh.exit_code, nh.stdout, nh.stderr) == (res.exit_code, res.stdout, res.stderr)


def test_check_no_host_reads_the_state_without_the_drives(tmp_path: Path) -> None:
    """--no-host does not look at the machine (here: a drive file that does not exist,
    as on a machine that does not serve it) but reports the state's refusals, which
    need no drive: an edited file's offset over a pending range stops the start."""
    import os
    f = tmp_path / "c.yaml"
    drv = (f"drives: [{{name: d0, backend: file, path: {tmp_path}/no/such/dir/d0.img, "
           "size: 128MiB}]\n")
    f.write_text(drv + "tenants:\n  - {name: b, size: 32MiB}\n  - {name: c, size: 32MiB}\n"
                 + _NET.format(d=tmp_path))
    st = tmp_path / "c.state.yaml"
    st.write_text(_state_doc(tmp_path, file_sha256(f), _B_C, _PENDING)
                  .replace(_DRV.format(), drv))
    args = ["config", "check", str(f)]
    ok = CliRunner().invoke(main, args + ["--no-host"])
    assert ok.exit_code == 0 and ok.stdout.rstrip().endswith(f"; state {st}"), ok.output
    host = CliRunner().invoke(main, args)                 # the machine: the path is missing
    assert host.exit_code == 1 and "does not exist" in host.stderr, host.output
    f.write_text(f.read_text().replace("  - {name: c, size: 32MiB}\n",
                                       "  - {name: c, size: 32MiB}\n"
                                       "  - {name: n, size: 16MiB, offset: 16MiB}\n"))
    t = os.stat(st).st_mtime
    os.utime(f, (t + 2, t + 2))                            # edited after the state: the file wins
    nh = CliRunner().invoke(main, args + ["--no-host"])
    line = nh.stderr.strip()
    assert nh.exit_code == 1 and "\n" not in line, nh.output
    assert "tenants[2].offset: tenant 'n' at [16MiB, 32MiB) overlaps removed tenants' space " \
           "drive 'd0' has not zeroed yet ([0, 32MiB)" in line, line


def test_check_no_host_leaves_a_drive_of_unknown_size_to_its_host(tmp_path: Path) -> None:
    """A file drive without `size` whose path is not on this machine: only its host
    knows the size, so placing tenants without an offset clear of its pending space
    is for the start there.  --no-host says so and passes (it used to refuse: "its
    size is unknown"); a check on this machine still refuses, as the start here would."""
    f = tmp_path / "c.yaml"
    drv = f"drives: [{{name: d0, backend: file, path: {tmp_path}/no/such/dir/d0.img}}]\n"
    f.write_text(drv + "tenants:\n  - {name: b, size: 32MiB}\n  - {name: c, size: 32MiB}\n"
                 + _NET.format(d=tmp_path))
    st = tmp_path / "c.state.yaml"
    st.write_text(_state_doc(tmp_path, file_sha256(f),
                             "[{name: b, size: 32MiB}, {name: c, size: 32MiB}]", _PENDING)
                  .replace(_DRV.format(), drv))
    args = ["config", "check", str(f)]
    nh = CliRunner().invoke(main, args + ["--no-host"])
    assert nh.exit_code == 0 and nh.stderr == "", nh.output
    assert nh.stdout.rstrip().endswith(f"; state {st}; tenants without an offset on d0 not placed "
                                       "clear of its pending space here (its size is known only "
                                       "on its host)"), nh.output
    host = CliRunner().invoke(main, args)
    assert host.exit_code == 1 and len(host.stderr.strip().splitlines()) == 1, host.output
    assert "its size is unknown" in host.stderr, host.output


def test_check_without_state_dir_does_not_read_the_one_in_it(tmp_path: Path) -> None:
    """serve without --state-dir reads the state beside the file: so does check."""
    sd = tmp_path / "state"
    sd.mkdir()
    f = tmp_path / "c.yaml"
    f.write_text(_DRV.format() + "tenants:\n  - {name: b, size: 32MiB}\n"
                 + _NET.format(d=tmp_path))
    (sd / "c.state.yaml").write_text("jbof_state: 3\nconfig: {}\n")
    assert CliRunner().invoke(main, ["config", "check", str(f)]).exit_code == 0
    res = CliRunner().invoke(main, ["config", "check", str(f), "--state-dir", str(sd)])
    assert res.exit_code == 1 and "format 3 is not supported" in res.stderr, res.output
