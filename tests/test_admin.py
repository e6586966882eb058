"""The admin socket (control/daemon/admin.py) and the CLI on it (control/cli/admin.py),
against an in-process daemon: every op changes the running Engine and the
persisted config; permissions; bounded connections; the CLI's one-line errors."""
from __future__ import annotations

import json
import os
import pwd
import shutil
import socket
import stat
import subprocess
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from control.daemon.admin import AdminError, AdminServer, Client
from control.daemon.operations import Operations
from control.cli import main
from control.config import load_config
from control.state import state_config

pytestmark = pytest.mark.needs_core

MIB = 1 << 20
CFG = """\
# hand-written: this comment goes when the daemon rewrites the file
drives: [{name: d0, backend: memory, size: 256MiB, capacity: 1GiB/s}]
tenants:
  - {name: a, size: 64MiB, reserve: 100MiB/s}
  - {name: b, size: 64MiB}
"""


def test_tenant_add_set_remove_are_live_and_persisted() -> None:
    from control_helpers import daemon
    with daemon(CFG) as d, d.client() as c:
        res = c.call("tenant.add", name="c", size="32MiB", weight=3, limit="50MiB/s",
                     latency_slo="5ms")
        assert res["uris"] == [f"nbd+unix:///c?socket={d.nbd}"]
        assert res["persisted"] == str(d.state_path)
        st = d.engine.tenant_stats("c")
        assert (st["size_bytes"], st["tenant"]["weight"], st["tenant"]["class"]) == \
            (32 * MIB, 3, "latency")
        saved = d.saved()
        assert [t.name for t in saved.tenants] == ["a", "b", "c"]
        assert saved.tenant("c").limit == 50 * MIB and saved.tenant("c").latency_slo == 5_000_000

        res = c.call("tenant.set", name="c", weight=7, latency_slo=0, limit=0)
        assert res["changed"] == {"weight": [3, 7], "class": ["latency", "best-effort"],
                                  "limit": ["50MiB/s", "0"], "latency_slo": ["5ms", "0"]}
        t = d.engine.tenant_stats("c")["tenant"]
        assert (t["weight"], t["class"]) == (7, "best-effort")   # class follows the SLO
        assert d.saved().tenant("c").weight == 7
        assert state_config(f"{d.state_path}.1").tenant("c").weight == 3   # a generation

        c.call("tenant.remove", name="c")
        assert "c" not in d.engine.tenants()
        assert [t.name for t in d.saved().tenants] == ["a", "b"]
        # the space is free again
        c.call("tenant.add", name="c2", size="32MiB")
        assert d.engine.tenant_stats("c2")["size_bytes"] == 32 * MIB


def test_equal_share_sizes_are_pinned_for_restarts() -> None:
    from control_helpers import daemon
    with daemon("drives: [{name: d0, backend: memory, size: 256MiB}]\n"
                "tenants: [{name: a, size: 56MiB}, {name: b}, {name: c}]\n") as d, d.client() as c:
        assert load_config(d.config_path).tenant("b").size is None
        c.call("tenant.set", name="a", weight=2)
        saved = d.saved()
        assert [t.size for t in saved.tenants] == [56 * MIB, 100 * MIB, 100 * MIB]


def test_restart_from_the_persisted_file_comes_back_the_same() -> None:
    from control_helpers import daemon

    from control.config_export import engine_config
    from dataplane.engine import Engine
    with daemon(CFG) as d:
        with d.client() as c:
            c.call("tenant.add", name="c", size="16MiB", weight=5)
            c.call("drive.set", name="d0", policy="gimbal", band="400us..3ms")
            live = {t: d.engine.tenant_stats(t)["tenant"] for t in d.engine.tenants()}
            sizes = {t: d.engine.tenant_stats(t)["size_bytes"] for t in d.engine.tenants()}
            ctl = d.engine.drive_cfg("d0")["ctl"]
        cfg = d.saved().with_overrides(unix=str(d.dir / "n2.sock"))
        eng = Engine(engine_config(cfg))
        eng.start()
        try:
            again = {t: eng.tenant_stats(t)["tenant"] for t in eng.tenants()}
            for name, t in live.items():
                for key in ("weight", "class"):
                    assert again[name][key] == t[key], (name, key)
                assert eng.tenant_stats(name)["size_bytes"] == sizes[name]
            assert eng.drive_stats("d0")["sched"]["policy"] == 4   # gimbal
            c2 = eng.drive_cfg("d0")["ctl"]
            assert (c2["lat_min_ns"], c2["lat_max_ns"]) == (ctl["lat_min_ns"], ctl["lat_max_ns"])
        finally:
            eng.close()


def test_drive_set_policy_band_and_knobs() -> None:
    from control_helpers import daemon
    with daemon(CFG) as d, d.client() as c:
        res = c.call("drive.set", name="d0", band="300us..2ms",
                     controller={"rate_max": "500MiB/s"})
        assert res["drive"]["band"] == "300us..2ms"
        ctl = d.engine.drive_cfg("d0")["ctl"]
        assert (ctl["lat_min_ns"], ctl["lat_max_ns"], ctl["band_lo_pct"]) == (300_000, 2_000_000, 0)
        assert (ctl["rate_max_cost_bps"], ctl["rate_init_cost_bps"]) == (500 * MIB, 500 * MIB)
        c.call("drive.set", name="d0", band="200%..400%")
        ctl = d.engine.drive_cfg("d0")["ctl"]
        assert (ctl["band_lo_pct"], ctl["band_hi_pct"]) == (200, 400)
        c.call("drive.set", name="d0", policy="fifo")
        assert d.engine.drive_stats("d0")["sched"]["policy"] == 0
        saved = d.saved().drive("d0")
        assert (saved.policy, saved.band.text(), saved.knobs()) == \
            ("fifo", "200%..400%", {"rate_max": 500 * MIB})
        drives = c.call("drive.list")["drives"]
        assert drives[0]["live"]["policy"] == "fifo" and drives[0]["capacity_bps"] == 1 << 30
        assert drives[0]["reserved_bps"] == 100 * MIB


def test_policy_switch_without_a_band_restores_the_policys_band() -> None:
    from control_helpers import daemon
    with daemon(CFG) as d, d.client() as c:
        c.call("drive.set", name="d0", policy="gimbal")
        ctl = d.engine.drive_cfg("d0")["ctl"]
        assert (ctl["band_lo_pct"], ctl["lat_min_ns"]) == (0, 250_000)     # gimbal's fixed band
        c.call("drive.set", name="d0", policy="qos")
        assert d.engine.drive_cfg("d0")["ctl"]["band_lo_pct"] == 150       # qos learns it


def test_stats_snapshot_and_config_get() -> None:
    from control_helpers import daemon
    with daemon(CFG) as d, d.client() as c:
        snap = c.call("stats", hist=True)
        assert [t["name"] for t in snap["tenants"]] == ["a", "b"]
        a = snap["tenants"][0]
        for key in ("read_ios", "write_bytes", "queued", "inflight", "throttled", "lat_ns",
                    "hist", "class", "slo_violations", "reserve_bps"):
            assert key in a
        assert a["class"] == "reserved" and a["reserve_bps"] == 100 * MIB
        assert snap["drives"][0]["name"] == "d0" and "time" in snap
        got = c.call("config.get")
        assert got["path"] == str(d.config_path) and got["state"] == str(d.state_path)
        assert yaml.safe_load(got["yaml"]) == got["config"]
        assert "listen" not in got["config"] and "admin" not in got["config"]  # CLI overrides
        info = c.call("ping")
        assert info["pid"] == os.getpid() and info["nbd"][0].startswith("nbd+unix:///a?")


def test_shutdown_replies_then_stops() -> None:
    from control_helpers import daemon
    with daemon(CFG) as d, d.client() as c:
        assert c.call("shutdown") == {"stopping": True}
        assert d.stop.wait(5)


def test_persist_failure_is_reported() -> None:
    from control_helpers import daemon
    with daemon(CFG) as d, d.client() as c:
        d.plane.control.state.path = d.config_path / "under-a-file" / "c.state.yaml"
        with pytest.raises(AdminError) as e:
            c.call("tenant.set", name="a", weight=2)
        assert e.value.code == "persist" and "applied to the running daemon" in e.value.message
        assert d.engine.tenant_stats("a")["tenant"]["weight"] == 2


def test_without_a_config_file_nothing_is_persisted() -> None:
    from control_helpers import daemon
    with daemon(CFG) as d, d.client() as c:
        d.plane.control.state = None
        assert c.call("tenant.set", name="a", weight=3)["persisted"] is None
        assert load_config(d.config_path).tenant("a").weight == 1


# -------------------------------------------------------------- permissions ---

def test_admin_socket_is_owner_only() -> None:
    from control_helpers import connect_as, daemon
    with daemon(CFG) as d:
        st = os.stat(d.admin)
        assert stat.S_ISSOCK(st.st_mode)
        assert stat.S_IMODE(st.st_mode) == 0o600
        assert st.st_uid == os.geteuid()
        if os.geteuid() != 0:
            pytest.skip("dropping privileges needs root")
        nobody = pwd.getpwnam("nobody")
        os.chmod(d.dir, 0o755)               # so only the socket's own mode stands in the way
        outcome, detail = connect_as(d.admin, nobody.pw_uid, nobody.pw_gid)
        assert (outcome, detail) == ("refused", "EACCES")
        # even if the file's mode were loosened behind the daemon's back, the peer
        # credential check refuses other users
        os.chmod(d.admin, 0o666)
        outcome, detail = connect_as(d.admin, nobody.pw_uid, nobody.pw_gid)
        assert outcome == "connected" and '"forbidden"' in detail
        with d.client() as c:                # the owner still gets in
            assert c.call("ping")["version"] == 1


def test_group_mode_is_applied() -> None:
    from control_helpers import daemon
    with daemon(CFG, mode=0o660) as d:
        assert stat.S_IMODE(os.stat(d.admin).st_mode) == 0o660


def test_bounded_connections() -> None:
    from control_helpers import daemon
    with daemon(CFG, max_connections=2) as d:
        held = [d.client(), d.client()]
        for c in held:
            assert c.call("ping")["version"] == 1
        with pytest.raises(AdminError) as e, d.client() as third:
            third.call("ping")
        assert e.value.code == "busy"
        held[0].close()
        deadline = time.monotonic() + 5
        while True:                           # the slot frees once the server sees the close
            try:
                with d.client() as c:
                    assert c.call("ping")["version"] == 1
                break
            except AdminError as err:
                assert err.code == "busy" and time.monotonic() < deadline
                time.sleep(0.05)
        held[1].close()


def test_stale_socket_is_replaced_and_a_live_one_refused(tmp_path: Path) -> None:
    from control_helpers import daemon, short_tmp
    with daemon(CFG) as d:
        other = AdminServer(d.plane.control, d.admin)
        with pytest.raises(AdminError, match="another daemon is listening"):
            other.start()
        other.close()
        with d.client() as c:
            assert c.call("ping")
    tmp = short_tmp()
    path = str(tmp / "stale.sock")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.close()                                 # a socket file nobody listens on
    ctl = Operations.__new__(Operations)
    srv = AdminServer(ctl, path)
    srv.start()
    try:
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    finally:
        srv.close()
    assert not os.path.exists(path)
    Path(path).write_text("not a socket")
    try:
        with pytest.raises(AdminError, match="exists and is not a socket"):
            AdminServer(ctl, path).start()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_client_connect_errors_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(AdminError) as e:
        Client(str(tmp_path / "none.sock"))
    assert e.value.code == "connect" and "is `jbof serve` running?" in e.value.message


# ---------------------------------------------------------------------- CLI ---

def run(*args: str):
    return CliRunner().invoke(main, list(args))


def one_error_line(res) -> str:
    assert res.exit_code != 0, res.output
    err = res.stderr.strip()
    assert "Traceback" not in res.output
    assert len(err.splitlines()) == 1, err
    return err


def test_cli_against_a_live_daemon() -> None:
    from control_helpers import daemon
    with daemon(CFG) as d:
        s = ["--socket", d.admin]
        r = run("tenant", "add", "c", "--size", "16MiB", "--weight", "2", "--latency-slo", "3ms",
                "--read-only", *s)
        assert r.exit_code == 0, r.output
        assert r.stdout.startswith("added tenant c on d0 (16MiB): nbd+unix:///c?socket=")
        assert d.engine.tenant_stats("c")["read_only"] == 1
        r = run("tenant", "set", "c", "--weight", "5", "--limit", "20MiB/s", *s)
        assert r.exit_code == 0 and r.stdout.strip() == \
            "tenant c: weight 2 -> 5, limit 0 -> 20MiB/s"
        r = run("tenant", "ls", *s)
        assert r.exit_code == 0
        lines = r.stdout.splitlines()
        assert lines[0].split()[:5] == ["TENANT", "DRIVE", "SIZE", "CLASS", "WEIGHT"]
        assert lines[3].split()[:5] == ["c", "d0", "16MiB", "latency", "5"]
        r = run("tenant", "ls", "--json", *s)
        assert [t["name"] for t in json.loads(r.stdout)] == ["a", "b", "c"]
        r = run("drive", "set", "d0", "--policy", "drr", "--rate-max", "800MiB/s", *s)
        assert r.exit_code == 0 and "policy drr" in r.stdout and "800MiB/s" in r.stdout
        r = run("drive", "ls", *s)
        assert r.exit_code == 0 and r.stdout.splitlines()[1].split()[:3] == ["d0", "memory", "drr"]
        r = run("stats", "--json", *s)
        assert r.exit_code == 0 and len(json.loads(r.stdout)["tenants"]) == 3
        r = run("stats", "--interval", "50ms", *s)
        assert r.exit_code == 0
        lines = r.stdout.splitlines()
        assert lines[0].split() == ["TENANT", "DRIVE", "CLASS", "IOPS", "MB/s", "P50", "P99",
                                    "SLO", "P99/SLO", "SLO_MISS", "QD", "INFLIGHT", "THROTTLED"]
        drive_hdr = lines.index(next(x for x in lines if x.startswith("DRIVE")))
        assert lines[drive_hdr].split() == ["DRIVE", "POLICY", "STATE", "RATE", "BAND", "MB/s",
                                            "UTIL", "INFLIGHT"]
        assert lines[drive_hdr + 1].split()[:3] == ["d0", "drr", "idle"]   # no IO: idle
        r = run("stats", "--watch", "--json", "--interval", "20ms", "--count", "2", *s)
        assert r.exit_code == 0 and len(r.stdout.splitlines()) == 2
        r = run("config", "show", *s)
        assert r.exit_code == 0 and r.stdout.startswith(f"# config: {d.config_path}\n")
        r = run("tenant", "rm", "c", *s)
        assert r.exit_code == 0 and r.stdout.strip() == "removed tenant c"

        # bad input: checked here with the config schema, or by the daemon; one line each
        assert "'--weight': 0 is out of range" in one_error_line(
            run("tenant", "set", "a", "--weight", "0", *s))
        assert "'--reserve': '5x' is not a rate" in one_error_line(
            run("tenant", "add", "z", "--size", "1MiB", "--reserve", "5x", *s))
        assert "no tenant named 'zz'" in one_error_line(run("tenant", "rm", "zz", *s))
        err = one_error_line(run("tenant", "add", "z", "--size", "1GiB", *s))
        assert err.startswith("Error: --size: no free space on drive 'd0'")
        err = one_error_line(run("tenant", "set", "a", "--reserve", "2GiB/s", *s))
        assert "--reserve: reservations on drive 'd0'" in err
        assert "nothing to change" in one_error_line(run("tenant", "set", "a", *s))
        assert "'--band'" in one_error_line(run("drive", "set", "d0", "--band", "x", *s))
        assert "no admin socket" in one_error_line(
            run("tenant", "ls", "--socket", str(d.dir / "nope.sock")))


def test_every_command_has_help_with_an_example() -> None:
    for cmd in (["config", "check"], ["config", "keys"], ["config", "show"],
                ["tenant", "add"], ["tenant", "rm"], ["tenant", "set"], ["tenant", "ls"],
                ["drive", "ls"], ["drive", "set"], ["stats"], ["tenant"], ["drive"], ["config"]):
        r = run(*cmd, "--help")
        assert r.exit_code == 0 and "Example:" in r.stdout, cmd
        if cmd[-1] not in ("check", "keys", "tenant", "drive", "config"):
            assert "--socket" in r.stdout, cmd


def test_socket_from_environment(tmp_path: Path) -> None:
    r = CliRunner(env={"JBOF_ADMIN_SOCKET": str(tmp_path / "env.sock")}).invoke(
        main, ["tenant", "ls"])
    assert r.exit_code != 0 and str(tmp_path / "env.sock") in r.stderr


def test_cli_subprocess_error_has_no_traceback(tmp_path: Path) -> None:
    r = subprocess.run(["python3", "-m", "control.cli", "stats", "--socket",
                        str(tmp_path / "x.sock")], capture_output=True, text=True, timeout=60,
                       cwd=Path(__file__).resolve().parent.parent)
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1 and "Traceback" not in r.stderr
