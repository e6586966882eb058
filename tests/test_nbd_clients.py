"""Real NBD clients against the target: fio's nbd engine (several tenants at
once, verify=crc32c) on every backend, nbdinfo --list, nbdcopy round trips,
and the `jbof serve` command.  Each test skips when its tool is missing.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

engine_mod = pytest.importorskip("dataplane.engine", reason="C core not built (make build)")
Engine = engine_mod.Engine

MIB = 1 << 20
ROOT = Path(__file__).resolve().parent.parent
TENANTS = ("t0", "t1", "t2")


def need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"{tool} is not installed")
    return path


def short_tmp() -> str:
    """A short directory for unix sockets (sun_path is 108 bytes)."""
    return tempfile.mkdtemp(prefix="jbof-", dir="/tmp")


def drive_spec(backend: str, tmp: str) -> dict[str, Any]:
    if backend == "memory":
        return {"name": "d", "backend": "memory", "size": 128 * MIB}
    if backend.startswith("file"):
        return {"name": "d", "backend": "file", "path": os.path.join(tmp, "disk.img"),
                "size": 128 * MIB, "io_mode": backend.partition("-")[2] or "auto"}
    return {"name": "d", "backend": "emulated", "size": 128 * MIB, "model": "dct983"}


@pytest.fixture(params=["memory", "file-uring", "file-threads", "emulated"])
def served(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    tmp = short_tmp()
    sock = os.path.join(tmp, "s.sock")
    eng = Engine({"drives": [drive_spec(request.param, tmp)],
                  "tenants": [{"name": t, "size": 32 * MIB} for t in TENANTS],
                  "listen": {"unix": sock}})
    eng.start()
    info = eng.drive_stats("d")
    if request.param == "file-uring" and info["io_mode"] != "uring":
        eng.close()
        pytest.skip("io_uring is not available here")
    yield {"engine": eng, "sock": sock, "tmp": tmp, "backend": request.param}
    eng.close()
    shutil.rmtree(tmp, ignore_errors=True)


def run_fio(jobfile: str, out: str, timeout: float = 60) -> dict[str, Any]:
    # run in the job's folder: fio drops verify state files into its cwd
    r = subprocess.run([need("fio"), jobfile, "--output-format=json", f"--output={out}"],
                       capture_output=True, text=True, timeout=timeout, cwd=os.path.dirname(jobfile))
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(Path(out).read_text())


def test_fio_verify_several_tenants(served: dict[str, Any]) -> None:
    """Random writes then reads with crc32c verification, three tenants at once."""
    sock, tmp, eng = served["sock"], served["tmp"], served["engine"]
    jobs = "".join(f"[{t}]\nuri=nbd+unix:///{t}?socket={sock}\n" for t in TENANTS)
    job = Path(tmp, "verify.fio")
    job.write_text("[global]\nioengine=nbd\nrw=randwrite\nbssplit=4k/60:64k/30:128k/10\n"
                   "iodepth=16\nsize=8m\nverify=crc32c\nverify_fatal=1\ndo_verify=1\n"
                   "randrepeat=0\n" + jobs)
    res = run_fio(str(job), os.path.join(tmp, "verify.json"))
    for j in res["jobs"]:
        assert j["error"] == 0, j["jobname"]
        assert j["write"]["total_ios"] > 0 and j["read"]["total_ios"] > 0, j["jobname"]
    for t in TENANTS:
        st = eng.tenant_stats(t)
        assert st["error_replies"] == 0
        assert st["tenant"]["write_bytes"] >= 8 * MIB and st["tenant"]["read_bytes"] >= 8 * MIB
    assert eng.stats()["protocol_errors"] == 0


def test_nbdinfo_lists_exports(served: dict[str, Any]) -> None:
    if served["backend"] != "memory":
        pytest.skip("listing does not depend on the backend")
    r = subprocess.run([need("nbdinfo"), "--list", "--json",
                        f"nbd+unix:///?socket={served['sock']}"],
                       capture_output=True, text=True, timeout=20)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    exports = {e["export-name"]: e for e in doc["exports"]}
    assert sorted(exports) == sorted(TENANTS)
    for e in exports.values():
        assert e["export-size"] == 32 * MIB
        assert e["can_flush"] and e["can_fua"] and e["can_trim"] and e["can_zero"]
        assert e["can_multi_conn"] and not e["is_read_only"]
        assert e["block_size_minimum"] == 1  # memory: any byte offset
        assert e["can_cache"] and e["can_fast_zero"] and e["can_df"]


def test_tcp_listener() -> None:
    nbdinfo = need("nbdinfo")
    eng = Engine({"drives": [{"name": "d", "backend": "memory", "size": 16 * MIB}],
                  "tenants": [{"name": "t0"}], "listen": {"tcp": "127.0.0.1:0"}})
    with eng:
        host, port = eng.tcp_address
        assert host == "127.0.0.1" and port > 0
        assert eng.uris() == [f"nbd://127.0.0.1:{port}/t0"]
        r = subprocess.run([nbdinfo, "--size", eng.uris()[0]], capture_output=True, text=True, check=False,
                           timeout=20)
        assert r.returncode == 0 and int(r.stdout) == 16 * MIB, r.stderr


def test_nbdcopy_round_trip(served: dict[str, Any]) -> None:
    if served["backend"] == "file-threads":
        pytest.skip("file-uring covers the file backend")
    sock, tmp = served["sock"], served["tmp"]
    nbdcopy = need("nbdcopy")
    src, back = Path(tmp, "src.bin"), Path(tmp, "back.bin")
    src.write_bytes(os.urandom(9 * MIB + 4096))
    uri = f"nbd+unix:///t1?socket={sock}"
    for args in ([str(src), uri], [uri, str(back)]):
        r = subprocess.run([nbdcopy, "--flush", *args], capture_output=True, text=True, check=False, timeout=60)
        assert r.returncode == 0, r.stderr
    data = back.read_bytes()
    assert data[: src.stat().st_size] == src.read_bytes()
    assert data[src.stat().st_size:] == bytes(len(data) - src.stat().st_size)  # rest is zero


def test_serve_command(tmp_path: Path) -> None:
    need("nbdinfo")
    tmp = short_tmp()
    sock = os.path.join(tmp, "serve.sock")
    cfg = tmp_path / "c.yaml"
    cfg.write_text("drives: [{name: m, backend: memory, size: 64MiB}]\n"
                   "listen: {unix: /nonexistent/overridden.sock}\n"
                   "tenants:\n  - {name: alpha, size: 16MiB}\n  - {name: beta, weight: 2}\n")
    p = subprocess.Popen([sys.executable, "-m", "control.cli", "serve", "--config", str(cfg),
                          "--unix", sock], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    assert p.stdout is not None and p.stderr is not None
    try:
        lines = [p.stdout.readline().strip() for _ in range(2)]
        assert lines == [f"nbd+unix:///alpha?socket={sock}", f"nbd+unix:///beta?socket={sock}"], \
            p.stderr.read() if p.poll() is not None else lines
        r = subprocess.run(["nbdinfo", "--size", lines[1]], capture_output=True, text=True, check=False,
                           timeout=20)
        assert r.returncode == 0 and int(r.stdout) == 48 * MIB  # what alpha left
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=20) == 0
        assert "stopped" in p.stderr.read()
        assert not os.path.exists(sock)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def test_serve_bad_config_is_one_line(tmp_path: Path) -> None:
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("drives: [{name: m, backend: tape, size: 64MiB}]\ntenants: [{name: a}]\n")
    r = subprocess.run([sys.executable, "-m", "control.cli", "serve", "--config", str(cfg)],
                       cwd=ROOT, capture_output=True, text=True, timeout=20)
    assert r.returncode != 0
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and "drives[0].backend" in err[0] and "memory" in err[0]
