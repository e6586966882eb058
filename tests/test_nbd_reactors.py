"""Several reactor threads (csrc/reactor.h section 7): two memory drives on two
reactors, real clients (fio, nbdcopy, TLS-PSK) against tenants of both.  Reactor 0
accepts and handshakes every connection; a tenant of drive 1 is handed to
reactor 1, which counts all its requests."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

engine_mod = pytest.importorskip("dataplane.engine", reason="C core not built (make build)")
Engine = engine_mod.Engine
EngineConfigError = engine_mod.EngineConfigError

MIB = 1 << 20
TENANTS = {"a0": "d0", "b0": "d0", "a1": "d1", "b1": "d1"}
TIMEOUT = 120


def need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"{tool} is not installed")
    return path


def write_psk(path: str, keys: dict[str, str]) -> str:
    Path(path).write_text("".join(f"{k}:{v}\n" for k, v in keys.items()))
    os.chmod(path, 0o600)
    return path


@pytest.fixture(params=["unix", "tls"])
def served(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    tmp = tempfile.mkdtemp(prefix="jbof-r-", dir="/tmp")
    sock = os.path.join(tmp, "s.sock")
    listen: dict[str, Any] = {"unix": sock}
    keys = {t: os.urandom(32).hex() for t in TENANTS}
    if request.param == "tls":
        listen.update(tls="require", tls_psk_file=write_psk(os.path.join(tmp, "srv.psk"), keys))
    eng = Engine({"drives": [{"name": "d0", "backend": "memory", "size": 128 * MIB},
                             {"name": "d1", "backend": "memory", "size": 128 * MIB}],
                  "tenants": [{"name": t, "drive": d, "size": 32 * MIB}
                              for t, d in TENANTS.items()],
                  "listen": listen, "engine": {"reactors": 2}})
    eng.start()
    yield {"engine": eng, "sock": sock, "tmp": tmp, "mode": request.param, "keys": keys}
    eng.close()
    shutil.rmtree(tmp, ignore_errors=True)


def uri(s: dict[str, Any], t: str) -> str:
    if s["mode"] == "tls":
        psk = os.path.join(s["tmp"], f"{t}.psk")
        if not os.path.exists(psk):
            write_psk(psk, {t: s["keys"][t]})
        return f"nbds+unix://{t}@/{t}?socket={s['sock']}&tls-psk-file={psk}"
    return f"nbd+unix:///{t}?socket={s['sock']}"


def test_drives_round_robin(served: dict[str, Any]) -> None:
    eng = served["engine"]
    assert eng.reactors == 2
    assert eng.drive_reactor("d0") == 0 and eng.drive_reactor("d1") == 1
    assert eng.stats()["reactors"] == 2
    assert eng.reactor_stats(1)["exports"] == 2


def test_nbdcopy_both_drives_io_stays_on_its_reactor(served: dict[str, Any]) -> None:
    """Drive 1's tenant first: reactor 0 accepts and hands over but counts no
    request; then drive 0's tenant: reactor 1 counts none of its requests."""
    eng, tmp = served["engine"], served["tmp"]
    nbdcopy = need("nbdcopy")
    src = Path(tmp, "src.bin")
    src.write_bytes(os.urandom(5 * MIB + 4096))
    seen = {0: eng.reactor_stats(0)["requests"], 1: eng.reactor_stats(1)["requests"]}
    for t, home in (("a1", 1), ("a0", 0)):
        back = Path(tmp, f"back-{t}.bin")
        for args in ([str(src), uri(served, t)], [uri(served, t), str(back)]):
            r = subprocess.run([nbdcopy, "--flush", *args], capture_output=True, text=True,
                               timeout=TIMEOUT, check=False)
            assert r.returncode == 0, r.stderr
        assert back.read_bytes()[: src.stat().st_size] == src.read_bytes()
        now = {i: eng.reactor_stats(i)["requests"] for i in (0, 1)}
        assert now[home] > seen[home], t
        assert now[1 - home] == seen[1 - home], f"{t}: IO crossed to reactor {1 - home}"
        seen = now
    r0, r1 = eng.reactor_stats(0), eng.reactor_stats(1)
    assert r1["accepted"] == 0 and r0["accepted"] >= 2
    assert r0["handoffs_out"] == r1["handoffs_in"] >= 1
    assert eng.tenant_stats("a1")["tenant"]["write_bytes"] >= 5 * MIB
    assert eng.stats()["protocol_errors"] == 0


def test_fio_verify_tenants_on_both_drives(served: dict[str, Any]) -> None:
    if served["mode"] == "tls":
        pytest.skip("fio's nbd engine cannot pass a PSK file")
    need("fio")
    sock, tmp, eng = served["sock"], served["tmp"], served["engine"]
    jobs = "".join(f"[{t}]\nuri=nbd+unix:///{t}?socket={sock}\n" for t in TENANTS)
    job = Path(tmp, "verify.fio")
    job.write_text("[global]\nioengine=nbd\nrw=randwrite\nbssplit=4k/60:64k/30:128k/10\n"
                   "iodepth=16\nsize=8m\nverify=crc32c\nverify_fatal=1\ndo_verify=1\n"
                   "randrepeat=0\n" + jobs)
    r = subprocess.run([need("fio"), str(job), "--output-format=json",
                        f"--output={tmp}/verify.json"], capture_output=True, text=True,
                       timeout=TIMEOUT, cwd=tmp, check=False)
    assert r.returncode == 0, r.stderr[-2000:]
    for j in json.loads(Path(tmp, "verify.json").read_text())["jobs"]:
        assert j["error"] == 0, j["jobname"]
    for t in TENANTS:
        st = eng.tenant_stats(t)
        assert st["error_replies"] == 0
        assert st["tenant"]["write_bytes"] >= 8 * MIB and st["tenant"]["read_bytes"] >= 8 * MIB
    assert eng.reactor_stats(0)["requests"] > 0 and eng.reactor_stats(1)["requests"] > 0


def test_live_tenant_add_remove_on_reactor_1(served: dict[str, Any]) -> None:
    eng = served["engine"]
    if served["mode"] == "tls":
        pytest.skip("the directory does not depend on TLS")
    nbdinfo = need("nbdinfo")
    eng.remove_tenant("b1")
    r = subprocess.run([nbdinfo, "--size", uri(served, "b1")], capture_output=True, text=True,
                       timeout=TIMEOUT, check=False)
    assert r.returncode != 0
    assert eng.drive_stats("d1")["exports"] == 1


@pytest.mark.parametrize("bad", [0, 65, [], [0, 0], "x"])
def test_bad_reactors(bad: Any) -> None:
    with pytest.raises(EngineConfigError):
        Engine({"drives": [{"name": "d", "backend": "memory", "size": MIB}],
                "listen": {"unix": "/tmp/none.sock"}, "engine": {"reactors": bad}})


def test_drive_reactor_out_of_range() -> None:
    with pytest.raises(EngineConfigError):
        Engine({"drives": [{"name": "d", "backend": "memory", "size": MIB, "reactor": 1}],
                "listen": {"unix": "/tmp/none.sock"}, "engine": {"reactors": 1}})


def test_pinned_reactors() -> None:
    ncpu = len(os.sched_getaffinity(0))
    cpus = sorted(os.sched_getaffinity(0))[:2] if ncpu >= 2 else [0, 0]
    if len(set(cpus)) < 2:
        pytest.skip("needs two CPUs")
    tmp = tempfile.mkdtemp(prefix="jbof-r-", dir="/tmp")
    eng = Engine({"drives": [{"name": "d0", "backend": "memory", "size": 16 * MIB},
                             {"name": "d1", "backend": "memory", "size": 16 * MIB,
                              "reactor": 0}],
                  "tenants": [{"name": "t0", "drive": "d0"}, {"name": "t1", "drive": "d1"}],
                  "listen": {"unix": os.path.join(tmp, "s")}, "engine": {"reactors": cpus}})
    with eng:
        assert eng.drive_reactor("d1") == 0
        assert eng.reactor_stats(1)["exports"] == 0
    shutil.rmtree(tmp, ignore_errors=True)
