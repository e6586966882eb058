"""The config side of issue 13: listen.tls / tls_psk_file / insecure and the
tenants' tls_identity / allow_uids / allow_gids keys (validation in one line,
round trip, what the Engine gets), and `jbof serve` with TLS required serving
real nbdinfo clients.  Servers on unix sockets only; every call bounded.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import yaml

from control.config import ConfigError, parse_config
from control.config_export import document, engine_config
from dataplane import extension_available

ROOT = Path(__file__).resolve().parent.parent
MIB = 1 << 20
DRIVES = [{"name": "m", "backend": "memory", "size": "64MiB"}]


def psk_file(path: Path, keys: dict[str, str], mode: int = 0o600) -> str:
    path.write_text("".join(f"{k}:{v}\n" for k, v in keys.items()))
    os.chmod(path, mode)
    return str(path)


def cfg(listen: dict, tenants: list | None = None) -> dict:
    return {"drives": DRIVES, "listen": listen,
            "tenants": tenants if tenants is not None else [{"name": "a", "size": "16MiB"}]}


@pytest.mark.parametrize("listen,tenants,key,words", [
    ({"tcp": "0.0.0.0:10809"}, None, "listen.tcp", "insecure: true"),
    ({"tcp": "10.1.2.3:0", "tls": "allow", "tls_psk_file": "PSK"}, None, "listen.tcp", "not a loopback"),
    ({"unix": "s.sock", "tls": "require"}, None, "listen.tls", "tls_psk_file"),
    ({"unix": "s.sock", "tls": "sometimes"}, None, "listen.tls", "allowed: off, allow, require"),
    ({"unix": "s.sock", "tls": {"udp": "off"}}, None, "listen.tls", "unix: MODE"),
    ({"unix": "s.sock", "tls_psk_file": "LOOSE"}, None, "listen.tls_psk_file", "chmod 600"),
    ({"unix": "s.sock", "tls_psk_file": "/nonexistent/k.psk"}, None, "listen.tls_psk_file",
     "cannot read"),
    ({"unix": "s.sock", "insecure": "yes"}, None, "listen.insecure", "boolean"),
    ({"unix": "s.sock"}, [{"name": "a", "tls_identity": "a:b"}], "tenants[0].tls_identity", "':'"),
    ({"unix": "s.sock"}, [{"name": "a", "allow_uids": 1000}], "tenants[0].allow_uids", "list"),
    ({"unix": "s.sock"}, [{"name": "a", "allow_gids": [-1]}], "tenants[0].allow_gids", "range"),
])
def test_bad_security_config_is_one_line(tmp_path: Path, listen: dict, tenants: list | None,
                                         key: str, words: str) -> None:
    good = psk_file(tmp_path / "k.psk", {"a": "00" * 16})
    loose = psk_file(tmp_path / "loose.psk", {"a": "00" * 16}, mode=0o644)
    listen = {k: good if v == "PSK" else loose if v == "LOOSE" else v for k, v in listen.items()}
    with pytest.raises(ConfigError) as ei:
        parse_config(cfg(listen, tenants), "c.yaml")
    msg = str(ei.value)
    assert "\n" not in msg and msg.startswith(f"c.yaml: {key}:") and words in msg, msg


def test_security_config_accepted_round_trips_and_reaches_the_engine(tmp_path: Path) -> None:
    psk = psk_file(tmp_path / "k.psk", {"alice": "11" * 32})
    c = parse_config(cfg({"unix": "s.sock", "tcp": "0.0.0.0:0", "tls_psk_file": psk},
                         [{"name": "a", "size": "16MiB", "tls_identity": "alice",
                           "allow_uids": [0, 1000], "allow_gids": [100]},
                          {"name": "b", "size": "16MiB"}]), "c.yaml")
    assert c.listen.tls_mode("tcp") == "require" == c.listen.tls_mode("unix")
    ec = engine_config(c)
    assert ec["listen"]["tls"] == {"unix": "require", "tcp": "require"}
    assert ec["listen"]["tls_psk_file"] == psk
    a, b = ec["tenants"]
    assert (a["tls_identity"], a["allow_uids"], a["allow_gids"]) == ("alice", [0, 1000], [100])
    assert "tls_identity" not in b and "allow_uids" not in b
    again = parse_config(yaml.safe_load(yaml.safe_dump(document(c))), "again")
    assert again.tenants == c.tenants and again.listen == c.listen
    # plaintext off loopback only when the operator says so; loopback is fine
    parse_config(cfg({"tcp": "0.0.0.0:0", "insecure": True}), "c.yaml")
    parse_config(cfg({"tcp": "[::1]:0"}), "c.yaml")
    parse_config(cfg({"tcp": "localhost:0", "tls": {"tcp": "allow"}, "tls_psk_file": psk}), "c.yaml")
    # the command line's --tcp gets the same check
    plain = parse_config(cfg({"unix": "s.sock"}), "c.yaml")
    with pytest.raises(ConfigError, match="--tcp: listen.tcp: .*insecure"):
        plain.with_overrides(tcp="0.0.0.0:10809")


@pytest.mark.skipif(not extension_available(), reason="C core not built")
def test_serve_with_tls_required(tmp_path: Path) -> None:
    if shutil.which("nbdinfo") is None:
        pytest.skip("nbdinfo is not installed")
    from dataplane._jbof import lib
    if not lib.jbof_tls_available():
        pytest.skip("built without GnuTLS")
    tmp = tempfile.mkdtemp(prefix="jbof-", dir="/tmp")
    sock = os.path.join(tmp, "s.sock")
    ka, kb = os.urandom(32).hex(), os.urandom(32).hex()
    server = psk_file(tmp_path / "server.psk", {"alice": ka, "bob": kb})
    alice = psk_file(tmp_path / "alice.psk", {"alice": ka})
    c = tmp_path / "c.yaml"
    c.write_text(yaml.safe_dump({"drives": DRIVES, "listen": {"unix": sock, "tls_psk_file": server},
                                 "tenants": [{"name": "alice", "size": "16MiB"},
                                             {"name": "bob", "size": "16MiB"}]}))
    p = subprocess.Popen([sys.executable, "-m", "control.cli", "serve", "--config", str(c)],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout is not None and p.stderr is not None
    try:
        lines = [p.stdout.readline().strip() for _ in range(2)]
        assert lines == [f"nbds+unix:///alice?socket={sock}", f"nbds+unix:///bob?socket={sock}"], \
            p.stderr.read() if p.poll() is not None else lines

        def info(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(["nbdinfo", *args], capture_output=True, text=True, timeout=20)

        uri = f"nbds+unix://alice@/{{}}?socket={sock}&tls-psk-file={alice}"
        r = info("--size", uri.format("alice"))
        assert r.returncode == 0 and int(r.stdout) == 16 * MIB, r.stderr
        assert info("--size", uri.format("bob")).returncode != 0
        r = info("--list", "--json", uri.format(""))
        assert r.returncode == 0 and '"alice"' in r.stdout and "bob" not in r.stdout
        assert info("--size", f"nbd+unix:///alice?socket={sock}").returncode != 0  # plaintext
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=20) == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.mark.skipif(not extension_available(), reason="C core not built")
def test_serve_reloads_psk_on_sighup_and_jbof_tls_reload(tmp_path: Path) -> None:
    """Key rotation on a running `jbof serve`: `jbof tls reload` and SIGHUP re-read the PSK
    file; a bad file is one line (the CLI's error, the daemon's stderr) and the old keys stay."""
    if shutil.which("nbdinfo") is None:
        pytest.skip("nbdinfo is not installed")
    from click.testing import CliRunner
    from control.cli import main
    from dataplane._jbof import lib
    if not lib.jbof_tls_available():
        pytest.skip("built without GnuTLS")
    tmp = tempfile.mkdtemp(prefix="jbof-", dir="/tmp")
    sock, admin = os.path.join(tmp, "s.sock"), os.path.join(tmp, "admin.sock")
    k1, k2 = os.urandom(32).hex(), os.urandom(32).hex()
    server = psk_file(tmp_path / "server.psk", {"alice": k1})
    one, two = psk_file(tmp_path / "1.psk", {"alice": k1}), psk_file(tmp_path / "2.psk", {"alice": k2})
    c = tmp_path / "c.yaml"
    c.write_text(yaml.safe_dump({"drives": DRIVES, "listen": {"unix": sock, "tls_psk_file": server},
                                 "admin": {"socket": admin},
                                 "tenants": [{"name": "alice", "size": "16MiB"}]}))
    p = subprocess.Popen([sys.executable, "-m", "control.cli", "serve", "--config", str(c)],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout is not None and p.stderr is not None

    def opens(psk: str) -> bool:
        return subprocess.run(["nbdinfo", "--size",
                               f"nbds+unix://alice@/alice?socket={sock}&tls-psk-file={psk}"],
                              capture_output=True, text=True, timeout=20).returncode == 0

    def becomes(psk: str) -> bool:              # SIGHUP is handled within 0.5 s
        for _ in range(40):
            if opens(psk):
                return True
            time.sleep(0.1)
        return False

    try:
        assert p.stdout.readline().strip() == f"nbds+unix:///alice?socket={sock}"
        assert opens(one) and not opens(two)
        psk_file(tmp_path / "server.psk", {"alice": k2})
        r = CliRunner().invoke(main, ["tls", "reload", "--socket", admin])
        assert r.exit_code == 0 and "reloaded 1 PSK identities" in r.output, r.output
        assert opens(two) and not opens(one)
        psk_file(tmp_path / "server.psk", {"alice": k1})
        p.send_signal(signal.SIGHUP)
        assert becomes(one) and not opens(two)
        os.chmod(server, 0o644)                 # a bad file: the keys loaded before stay
        r = CliRunner().invoke(main, ["tls", "reload", "--socket", admin])
        assert r.exit_code != 0 and "chmod 600" in r.output and r.output.count("\n") == 1, r.output
        p.send_signal(signal.SIGHUP)
        time.sleep(1.0)
        assert opens(one) and p.poll() is None
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=20) == 0
        err = p.stderr.read()
        assert f"SIGHUP: reloaded 1 TLS PSK identities from {server}" in err, err
        bad = [ln for ln in err.splitlines() if "SIGHUP: " in ln and "chmod 600" in ln]
        assert len(bad) == 1 and "keys loaded before stay" in bad[0], err
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.mark.skipif(not extension_available(), reason="C core not built")
def test_live_tenant_add_with_access_rules() -> None:
    """jbof tenant add --tls-identity/--allow-uid reach the engine and the saved file."""
    from click.testing import CliRunner
    from control.cli import main
    from control_helpers import daemon
    cfg = "drives: [{name: d0, backend: memory, size: 64MiB}]\ntenants: [{name: a, size: 8MiB}]\n"
    with daemon(cfg) as d:
        r = CliRunner().invoke(main, ["tenant", "add", "c", "--size", "8MiB", "--tls-identity",
                                      "c-id", "--allow-uid", "0", "--allow-uid", "1000",
                                      "--socket", d.admin])
        assert r.exit_code == 0, r.output
        c = d.saved().tenant("c")                                  # live changes: the state file
        assert c.tls_identity == "c-id" and list(c.allow_uids) == [0, 1000]
        assert Path(d.config_path).read_text() == cfg             # the operator's file untouched
        assert d.engine.sec_stats()["access_rules"] == 2
        r = CliRunner().invoke(main, ["tenant", "add", "e", "--size", "8MiB", "--tls-identity",
                                      "e:x", "--socket", d.admin])
        assert r.exit_code != 0 and "':'" in r.output


@pytest.mark.skipif(not extension_available(), reason="C core not built")
def test_tls_reload_without_a_psk_file_is_one_line() -> None:
    from control.daemon.admin import AdminError
    from control_helpers import daemon
    with daemon("drives: [{name: d0, backend: memory, size: 64MiB}]\n") as d:
        with d.client() as c:
            with pytest.raises(AdminError) as ei:
                c.call("tls.reload")
            assert ei.value.code == "invalid" and "no PSK file is configured" in ei.value.message
            with pytest.raises(AdminError, match="takes no arguments"):
                c.call("tls.reload", name="x")
