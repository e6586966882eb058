"""`jbof serve` as a subprocess, driven only through the `jbof` CLI, the admin
socket and /metrics, with fio on its NBD exports: add a tenant while fio runs
on another, move its share with its weight, remove it cleanly, and find the
metrics consistent with what fio measured; admin socket permissions."""
from __future__ import annotations

import json
import os
import pwd
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from control.daemon.admin import AdminError, Client
from control_helpers import scrape as scrape_url

pytestmark = pytest.mark.needs_core
ROOT = Path(__file__).resolve().parent.parent
MIB = 1 << 20

# A RAM drive whose controller is capped at 100 MiB/s of cost (a 64 KiB read
# costs 64 KiB + 3.5 KiB): two backlogged readers then split ~95 MiB/s of data
# by weight, ~1450 IOs/s -- cheap for two shared cores.  (qos does not pace a
# tenant that is alone: a runs at RAM speed before b arrives and after b ends.)  A fixed band far above
# the RAM's ~10 us latency keeps the controller at rate_max (a band learned
# from a 6 us base would read memcpy jitter as congestion).
CONFIG = """\
drives:
  - name: d0
    backend: memory
    size: 512MiB
    band: 250us..1500us
    controller: {rate_max: 100MiB/s}
tenants:
  - {name: a, size: 128MiB}
"""


def jbof(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "control.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


class Served:
    def __init__(self, tmp: Path, proc: subprocess.Popen[str], uris: list[str]) -> None:
        self.tmp, self.proc, self.uris = tmp, proc, uris
        self.admin = str(tmp / "admin.sock")
        self.nbd = str(tmp / "nbd.sock")
        self.config = tmp / "c.yaml"

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return jbof(*args, "--socket", self.admin)

    def call(self, op: str, **args: Any) -> Any:
        with Client(self.admin, timeout=20) as c:
            return c.call(op, **args)


def start_serve(tmp: Path, config: str, *extra: str) -> Served:
    (tmp / "c.yaml").write_text(config)
    proc = subprocess.Popen(
        [sys.executable, "-m", "control.cli", "serve", "--config", str(tmp / "c.yaml"),
         "--unix", str(tmp / "nbd.sock"), "--admin-socket", str(tmp / "admin.sock"),
         "--metrics", "127.0.0.1:0", "--log-level", "warning", *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    first = proc.stdout.readline().strip()      # printed once NBD and admin both accept
    if not first.startswith("nbd+unix://"):
        proc.kill()
        raise AssertionError(f"serve did not start: {first!r} {proc.stderr.read()}")
    return Served(tmp, proc, [first])


@pytest.fixture
def served() -> Iterator[Served]:
    from control_helpers import need, short_tmp
    need("fio")
    tmp = short_tmp()
    s = start_serve(tmp, CONFIG)
    try:
        yield s
    finally:
        if s.proc.poll() is None:
            s.proc.send_signal(signal.SIGTERM)
            try:
                s.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                s.proc.kill()
                s.proc.wait()
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)


FIO_RUNTIME_S = 300     # longer than any run: the test stops fio itself (stop_fio)


def fio(s: Served, tenant: str) -> subprocess.Popen[bytes]:
    """A backlogged reader on the tenant, until stop_fio: fixed runtimes were eaten
    by CLI and fio start-up on two loaded cores (load average >= 9), and the checks
    then ran after fio had ended."""
    return subprocess.Popen(
        ["fio", f"--name={tenant}", "--ioengine=nbd",
         f"--uri=nbd+unix:///{tenant}?socket={s.nbd}", "--rw=randread", "--bs=64k",
         "--iodepth=16", "--size=128m", "--time_based=1", f"--runtime={FIO_RUNTIME_S}s",
         "--output-format=json", f"--output={s.tmp / (tenant + '.json')}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def stop_fio(s: Served, p: subprocess.Popen[bytes], tenant: str) -> dict[str, Any]:
    """SIGTERM fio and return its read stats.  fio 3.x stops submitting, reaps the IO
    in flight, writes its JSON report after a 'fio: terminating on signal 15' line and
    exits 128; the report must be the only other thing, with no job error."""
    assert p.poll() is None, f"{tenant}'s fio ended before the test stopped it"
    p.send_signal(signal.SIGTERM)
    _out, err = p.communicate(timeout=60)
    assert p.returncode in (0, 128), (p.returncode, err)
    text = (s.tmp / f"{tenant}.json").read_text()
    head, brace, body = text.partition("{")
    assert brace and head.strip() in ("", "fio: terminating on signal 15"), head
    job = json.loads(brace + body)["jobs"][0]
    assert job["error"] == 0
    return dict(job["read"])


def scrape(s: Served) -> dict[tuple[str, str], float]:
    return scrape_url(s.call("ping")["metrics"], "tenant", "drive")


def read_bytes(s: Served) -> tuple[float, dict[str, int]]:
    snap = s.call("stats")
    return snap["time"], {t["name"]: t["read_bytes"] for t in snap["tenants"]}


def wait_reading(s: Served, tenant: str, timeout_s: float = 60.0) -> None:
    """Until the tenant's fio has connected and IO flows (bounded)."""
    deadline = time.monotonic() + timeout_s
    while read_bytes(s)[1].get(tenant, 0) < 4 * MIB:
        assert time.monotonic() < deadline, f"{tenant}'s fio never started reading"
        time.sleep(0.05)
    time.sleep(0.1)


def share_within(s: Served, tenant: str, lo: float, hi: float, within_s: float = 1.0,
                 window_s: float = 0.25) -> list[float]:
    """Shares of consecutive windows until one lies in [lo, hi] or within_s has
    passed (a window can be off when the shared CPUs briefly starve one fio)."""
    shares: list[float] = []
    t0 = time.monotonic()
    while time.monotonic() - t0 < within_s:
        shares.append(share_of(s, tenant, window_s))
        if lo <= shares[-1] <= hi:
            break
    return shares


def share_of(s: Served, tenant: str, window_s: float) -> float:
    """The tenant's share of the bytes read over the next window_s seconds (the
    next window in which anything was read: on a loaded 2-core host both fio
    processes can be descheduled for a whole window)."""
    for _ in range(8):
        _t0, b0 = read_bytes(s)
        time.sleep(window_s)
        _t1, b1 = read_bytes(s)
        got = {k: b1[k] - b0.get(k, 0) for k in b1}
        total = sum(got.values())
        if total > 0:
            break
    assert total > 0, "nothing was read in 8 windows"
    return got.get(tenant, 0) / total


def test_add_weight_remove_live_under_fio_and_metrics_agree(served: Served) -> None:
    s = served
    fa = fio(s, "a")
    wait_reading(s, "a")

    # add a tenant while fio runs on the other one
    r = s.cli("tenant", "add", "b", "--drive", "d0", "--size", "128MiB")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("added tenant b on d0 (128MiB): nbd+unix:///b?socket=")
    fb = fio(s, "b")
    wait_reading(s, "b")                    # fio connected, both backlogged

    # the `jbof stats` table's source while both run: both tenants move, p50 measured
    r = s.cli("stats", "--json", "--watch", "--interval", "200ms", "--count", "1")
    assert r.returncode == 0, r.stderr
    rows = {x["name"]: x for x in json.loads(r.stdout)["tenants"]}
    assert rows["a"]["iops"] > 0 and rows["b"]["iops"] > 0 and rows["b"]["p50_ns"] > 0
    assert rows["b"]["class"] == "best-effort" and rows["b"]["queued"] >= 0

    # equal weights: an equal split (1:1 within 15 points)
    before = share_within(s, "b", 0.35, 0.65)
    assert 0.35 <= before[-1] <= 0.65, before

    # weight 8: within a second of the change b gets ~8/9 (applied between batches)
    r = s.cli("tenant", "set", "b", "--weight", "8")
    assert r.returncode == 0 and r.stdout.strip() == "tenant b: weight 1 -> 8", r.stderr
    t_applied = time.monotonic()
    after = share_within(s, "b", 0.8, 1.0)
    assert after[-1] >= 0.8, (before, after)
    assert time.monotonic() - t_applied < 1.2, after

    # b's fio stops cleanly; the metrics count exactly what fio read
    res_b = stop_fio(s, fb, "b")
    m = scrape(s)
    assert m[("jbof_tenant_read_bytes_total", "b")] == res_b["io_bytes"]
    assert m[("jbof_tenant_read_ios_total", "b")] == res_b["total_ios"]
    assert m[("jbof_tenant_weight", "b")] == 8

    # remove it cleanly, while a keeps running
    r = s.cli("tenant", "rm", "b")
    assert r.returncode == 0 and r.stdout.strip() == "removed tenant b", r.stderr
    r = s.cli("tenant", "ls", "--json")
    assert [t["name"] for t in json.loads(r.stdout)] == ["a"]
    assert s.config.read_text() == CONFIG                 # the operator's file: never rewritten
    assert "name: b" not in (s.tmp / "c.state.yaml").read_text()
    gens = [(s.tmp / f"c.state.yaml.{i}").read_text() for i in range(1, 5)
            if (s.tmp / f"c.state.yaml.{i}").exists()]
    assert any("name: b" in g and "weight: 8" in g for g in gens)
    assert s.proc.poll() is None

    res_a = stop_fio(s, fa, "a")
    m = scrape(s)
    assert ("jbof_tenant_read_bytes_total", "b") not in m
    assert m[("jbof_tenant_read_bytes_total", "a")] == res_a["io_bytes"]
    assert m[("jbof_tenant_read_ios_total", "a")] == res_a["total_ios"]
    assert m[("jbof_tenant_latency_seconds_count", "a")] == res_a["total_ios"]
    # the server's latency (queue + drive) is part of fio's end-to-end latency
    server_mean = m[("jbof_tenant_latency_seconds_sum", "a")] / res_a["total_ios"]
    assert server_mean <= res_a["lat_ns"]["mean"] / 1e9 * 1.1
    assert m[("jbof_drive_dispatch_rate_bytes_per_second", "d0")] <= 100 * MIB

    # stop over the admin socket: a graceful exit, sockets removed
    assert s.call("shutdown") == {"stopping": True}
    assert s.proc.wait(timeout=20) == 0
    assert not os.path.exists(s.admin) and not os.path.exists(s.nbd)


def test_admin_socket_permissions_and_bad_requests_on_the_daemon() -> None:
    from control_helpers import connect_as, need, short_tmp
    tmp = short_tmp()
    s = start_serve(tmp, CONFIG.replace("tenants:", "listen: {mode: '0660'}\ntenants:"))
    try:
        st = os.stat(s.admin)
        assert stat.S_ISSOCK(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600
        assert st.st_uid == os.geteuid()
        assert stat.S_IMODE(os.stat(s.nbd).st_mode) == 0o660     # listen.mode
        if os.geteuid() == 0:                # a dropped-privilege client cannot connect
            nobody = pwd.getpwnam("nobody")
            os.chmod(tmp, 0o755)
            assert connect_as(s.admin, nobody.pw_uid, nobody.pw_gid) == ("refused", "EACCES")
        # garbage on the admin socket: errors, and the daemon keeps serving NBD and admin
        with Client(s.admin) as c:
            for raw in (b"\xff\xfe\n", b'{"v": 1, "op": "tenant.add", "args": {"name": "x"\n',
                        b"[" * 3000 + b"\n", b'{"v": 1, "op": "drive.set", "args": '
                        b'{"name": "d0", "band": "9ms..1ms"}}\n'):
                c.send_raw(raw)
                reply = c.read_reply()
                assert reply["ok"] is False and reply["error"]["code"] in ("bad_json", "invalid")
            with pytest.raises(AdminError, match="too long|longer than"):
                c.send_raw(b"x" * 70000 + b"\n")
                reply = c.read_reply()
                raise AdminError(reply["error"]["code"], reply["error"]["message"])
        r = s.cli("tenant", "ls")
        assert r.returncode == 0 and r.stdout.splitlines()[1].split()[0] == "a"
        if need("nbdinfo"):
            out = subprocess.run(["nbdinfo", "--size", s.uris[0]], capture_output=True,
                                 text=True, timeout=20)
            assert out.returncode == 0 and int(out.stdout) == 128 * MIB
        s.proc.send_signal(signal.SIGTERM)
        assert s.proc.wait(timeout=20) == 0
    finally:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)


def test_serve_refuses_a_bad_override_and_a_busy_admin_socket() -> None:
    from control_helpers import short_tmp
    tmp = short_tmp()
    (tmp / "c.yaml").write_text(CONFIG)
    r = jbof("serve", "--config", str(tmp / "c.yaml"), "--unix", str(tmp / "n.sock"),
             "--metrics", "localhost")
    assert r.returncode != 0 and r.stderr.strip().splitlines() == [
        "Error: --metrics: 'localhost' is not HOST:PORT (examples: 127.0.0.1:9464, [::1]:0)"]
    s = start_serve(tmp, CONFIG)
    try:
        r = jbof("serve", "--config", str(tmp / "c.yaml"), "--unix", str(tmp / "n2.sock"),
                 "--admin-socket", s.admin)
        assert r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1
        assert "another daemon is listening" in r.stderr
        assert s.call("ping")["pid"] == s.proc.pid
    finally:
        s.proc.send_signal(signal.SIGTERM)
        s.proc.wait(timeout=20)
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)
