"""NBD completeness (issue 14 part 4): structured replies, base:allocation
and BLOCK_STATUS, CACHE, FAST_ZERO, the default export, descriptions and
block size 1 -- with a small spec-written client (doc/proto.md of
NetworkBlockDevice/nbd) and with real clients: nbdinfo --map / --list,
nbdcopy and sparse qemu-img convert, whose bytes read the engine counts.
Each real-client test skips when its tool is missing.
"""
from __future__ import annotations

import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
from collections.abc import Iterator
from typing import Any

import pytest

engine_mod = pytest.importorskip("dataplane.engine", reason="C core not built (make build)")
Engine = engine_mod.Engine
EngineConfigError = engine_mod.EngineConfigError

MIB, GIB = 1 << 20, 1 << 30
IHAVEOPT, REPMAGIC = 0x49484156454F5054, 0x3E889045565A9
REQ_MAGIC, SIMPLE_MAGIC, CHUNK_MAGIC = 0x25609513, 0x67446698, 0x668E33EF
OPT_GO, OPT_STRUCTURED, OPT_LIST_META, OPT_SET_META = 7, 8, 9, 10
REP_ACK, REP_INFO, REP_META = 1, 3, 4
REP_ERR_INVALID = 2**31 + 3
INFO_EXPORT, INFO_DESCRIPTION, INFO_BLOCK_SIZE = 0, 2, 3
CMD_READ, CMD_WRITE, CMD_TRIM, CMD_CACHE, CMD_WRITE_ZEROES, CMD_BLOCK_STATUS = 0, 1, 4, 5, 6, 7
FLAG_NO_HOLE, FLAG_DF, FLAG_REQ_ONE, FLAG_FAST_ZERO = 2, 4, 8, 16
TF_DF, TF_CACHE, TF_FAST_ZERO = 1 << 7, 1 << 10, 1 << 11
T_NONE, T_DATA, T_HOLE, T_BS, T_ERROR = 0, 1, 2, 5, 32769
HOLE_ZERO = 3
EINVAL, ENOTSUP = 22, 95
TIMEOUT = 10.0


def need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"{tool} is not installed")
    return path


class Client:
    """Fixed newstyle, optional structured replies and base:allocation."""

    def __init__(self, sock: str, export: str, structured: bool = True, meta: bool = True,
                 go: bool = True) -> None:
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(TIMEOUT)
        self.s.connect(sock)
        self.recv(18)
        self.s.sendall(struct.pack(">I", 3))
        self.ctx = None
        if structured:
            assert self.option(OPT_STRUCTURED) == [(REP_ACK, b"")]
        if meta:
            q = b"base:allocation"
            n = export.encode()
            replies = self.option(OPT_SET_META, struct.pack(">I", len(n)) + n +
                                  struct.pack(">II", 1, len(q)) + q)
            assert replies[-1][0] == REP_ACK, replies
            if structured:
                assert replies[0][0] == REP_META and replies[0][1][4:] == q
                self.ctx = struct.unpack(">I", replies[0][1][:4])[0]
        self.h = 0
        if not go:
            return
        n = export.encode()
        replies = self.option(OPT_GO, struct.pack(">I", len(n)) + n + struct.pack(">HH", 1, INFO_BLOCK_SIZE))
        assert replies[-1][0] == REP_ACK, replies
        for t, d in replies:
            if t == REP_INFO and struct.unpack(">H", d[:2])[0] == INFO_EXPORT:
                self.size, self.tflags = struct.unpack(">QH", d[2:])
            if t == REP_INFO and struct.unpack(">H", d[:2])[0] == INFO_BLOCK_SIZE:
                self.block = struct.unpack(">III", d[2:])

    def close(self) -> None:
        self.s.close()

    def recv(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.s.recv(n - len(buf))
            assert chunk, "server closed"
            buf += chunk
        return bytes(buf)

    def option(self, opt: int, data: bytes = b"") -> list[tuple[int, bytes]]:
        self.s.sendall(struct.pack(">QII", IHAVEOPT, opt, len(data)) + data)
        out = []
        while True:
            magic, ropt, rtype, rlen = struct.unpack(">QIII", self.recv(20))
            assert magic == REPMAGIC and ropt == opt
            out.append((rtype, self.recv(rlen)))
            if rtype not in (2, REP_INFO, REP_META):
                return out

    def send(self, cmd: int, off: int, length: int, flags: int = 0, data: bytes = b"") -> int:
        self.h += 1
        self.s.sendall(struct.pack(">IHHQQI", REQ_MAGIC, flags, cmd, self.h, off, length) + data)
        return self.h

    def reply(self, h: int, read_len: int = 0) -> tuple[str, Any]:
        """('simple', (err, data)) or ('chunks', [(flags, type, payload)])."""
        magic = struct.unpack(">I", self.recv(4))[0]
        if magic == SIMPLE_MAGIC:
            err, rh = struct.unpack(">IQ", self.recv(12))
            assert rh == h
            return "simple", (err, self.recv(read_len) if err == 0 else b"")
        assert magic == CHUNK_MAGIC
        chunks = []
        while True:
            flags, typ, rh, length = struct.unpack(">HHQI", self.recv(16))
            assert rh == h
            chunks.append((flags, typ, self.recv(length)))
            if flags & 1:
                return "chunks", chunks
            assert struct.unpack(">I", self.recv(4))[0] == CHUNK_MAGIC

    def call(self, cmd: int, off: int, length: int, flags: int = 0, data: bytes = b"",
             read_len: int = 0) -> tuple[str, Any]:
        return self.reply(self.send(cmd, off, length, flags, data), read_len)

    def write(self, off: int, data: bytes) -> None:
        assert self.call(CMD_WRITE, off, len(data), data=data) == ("simple", (0, b""))

    def extents(self, off: int, length: int, flags: int = 0) -> list[tuple[int, int]]:
        kind, chunks = self.call(CMD_BLOCK_STATUS, off, length, flags)
        assert kind == "chunks" and len(chunks) == 1 and chunks[0][1] == T_BS, chunks
        p = chunks[0][2]
        assert struct.unpack(">I", p[:4])[0] == self.ctx
        return [struct.unpack(">II", p[i:i + 8]) for i in range(4, len(p), 8)]


@pytest.fixture(scope="module")
def srv() -> Iterator[dict[str, Any]]:
    tmp = tempfile.mkdtemp(prefix="jbof-", dir="/tmp")
    sock = os.path.join(tmp, "s.sock")
    eng = Engine({"drives": [{"name": "m", "backend": "memory", "size": 64 * MIB}],
                  "tenants": [{"name": "a", "size": 16 * MIB, "description": "tenant a, gold"},
                              {"name": "b", "size": 16 * MIB, "default": True},
                              {"name": "ro", "size": 4 * MIB, "read_only": True}],
                  "listen": {"unix": sock}})
    eng.start()
    yield {"engine": eng, "sock": sock, "tmp": tmp}
    eng.close()
    shutil.rmtree(tmp, ignore_errors=True)


def test_structured_read_and_errors(srv: dict[str, Any]) -> None:
    c = Client(srv["sock"], "a")
    assert c.tflags & TF_DF and c.tflags & TF_CACHE and c.tflags & TF_FAST_ZERO
    assert c.block[0] == 1  # memory: any byte offset
    c.write(4097, b"hello")
    kind, chunks = c.call(CMD_READ, 4096, 8, FLAG_DF)
    assert kind == "chunks" and len(chunks) == 1
    flags, typ, payload = chunks[0]
    assert flags == 1 and typ == T_DATA
    assert struct.unpack(">Q", payload[:8])[0] == 4096  # the export's offset, not the drive's
    assert payload[8:] == b"\0hello\0\0"
    # an error on READ is a structured ERROR chunk
    kind, chunks = c.call(CMD_READ, 16 * MIB - 4, 8)
    assert kind == "chunks" and chunks[0][:2] == (1, T_ERROR)
    assert struct.unpack(">IH", chunks[0][2]) == (EINVAL, 0)
    # an empty READ is one NONE chunk; other commands keep simple replies
    assert c.call(CMD_READ, 0, 0) == ("chunks", [(1, T_NONE, b"")])
    assert c.call(CMD_CACHE, 0, 8 * MIB) == ("simple", (0, b""))
    assert c.call(CMD_CACHE, 16 * MIB, 1) == ("simple", (EINVAL, b""))
    c.close()
    assert srv["engine"].tenant_stats("a")["cache"] == 1  # the refused one is an error reply


def test_simple_replies_without_negotiation(srv: dict[str, Any]) -> None:
    c = Client(srv["sock"], "a", structured=False, meta=False)
    assert not c.tflags & TF_DF
    c.write(0, b"abc")
    assert c.call(CMD_READ, 0, 3, read_len=3) == ("simple", (0, b"abc"))
    assert c.call(CMD_READ, 0, 3, FLAG_DF) == ("simple", (EINVAL, b""))
    assert c.call(CMD_BLOCK_STATUS, 0, 4096) == ("simple", (EINVAL, b""))
    c.close()


def test_set_meta_needs_structured(srv: dict[str, Any]) -> None:
    c = Client(srv["sock"], "a", structured=False, meta=False, go=False)
    n = b"a"
    r = c.option(OPT_SET_META, struct.pack(">I", 1) + n + struct.pack(">II", 1, 15) + b"base:allocation")
    assert r[-1][0] == REP_ERR_INVALID
    r = c.option(OPT_LIST_META, struct.pack(">I", 1) + n + struct.pack(">I", 0))
    assert r == [(REP_META, struct.pack(">I", 1) + b"base:allocation"), (REP_ACK, b"")]
    c.close()


def test_block_status_extents_scoped_to_the_namespace(srv: dict[str, Any]) -> None:
    a, b = Client(srv["sock"], "a"), Client(srv["sock"], "b")
    a.write(0, b"A" * MIB)                       # a's data must never show in b
    b.write(MIB, b"B" * 8192)
    b.write(4 * MIB + 100, b"C")                 # a byte makes its 4 KiB chunk data
    ext = b.extents(0, 16 * MIB)
    assert ext == [(MIB, HOLE_ZERO), (8192, 0), (3 * MIB - 8192, HOLE_ZERO), (4096, 0),
                   (12 * MIB - 4096, HOLE_ZERO)]
    assert sum(n for n, _ in ext) == 16 * MIB
    assert b.extents(MIB + 4096, 100) == [(100, 0)]                   # clipped to the request
    assert b.extents(0, 16 * MIB, FLAG_REQ_ONE) == [(MIB, HOLE_ZERO)]  # REQ_ONE: one extent
    # zeroing whole chunks turns them back into holes (edges stay data)
    assert b.call(CMD_WRITE_ZEROES, MIB, 8192) == ("simple", (0, b""))
    assert b.extents(0, 2 * MIB)[0] == (2 * MIB, HOLE_ZERO)
    assert b.call(CMD_TRIM, 4 * MIB, 4096) == ("simple", (0, b""))
    assert b.extents(0, 16 * MIB) == [(16 * MIB, HOLE_ZERO)]
    assert a.extents(0, 2 * MIB) == [(MIB, 0), (MIB, HOLE_ZERO)]
    assert b.call(CMD_BLOCK_STATUS, 16 * MIB - 1, 2)[1][0][1] == T_ERROR  # beyond the end
    ro = Client(srv["sock"], "ro")
    assert ro.extents(0, 4 * MIB) == [(4 * MIB, HOLE_ZERO)]
    assert srv["engine"].tenant_stats("b")["block_status"] >= 5
    for c in (a, b, ro):
        c.close()


def test_block_status_sees_a_completed_write(srv: dict[str, Any]) -> None:
    """Pipelined: WRITE then BLOCK_STATUS after its reply; the write shows."""
    c = Client(srv["sock"], "a")
    for i in range(50):
        off = 8 * MIB + i * 65536
        c.write(off, b"w" * 4096)
        assert c.extents(off, 4096) == [(4096, 0)]
    c.close()


def test_fast_zero(srv: dict[str, Any]) -> None:
    c = Client(srv["sock"], "a")
    c.write(2 * MIB, b"z" * 8192)
    assert c.call(CMD_WRITE_ZEROES, 2 * MIB, 8192, FLAG_FAST_ZERO | FLAG_NO_HOLE) == ("simple", (0, b""))
    assert c.call(CMD_READ, 2 * MIB, 8192)[1][0][2][8:] == bytes(8192)
    assert c.call(CMD_WRITE, 0, 1, FLAG_FAST_ZERO, b"x") == ("simple", (EINVAL, b""))
    c.close()


def test_fast_zero_refused_when_it_would_write() -> None:
    """tmpfs cannot ZERO_RANGE: a NO_HOLE zero would be written, so FAST_ZERO
    gets ENOTSUP; without FAST_ZERO the zeroes are written."""
    if not os.path.isdir("/dev/shm"):
        pytest.skip("no /dev/shm")
    tmp = tempfile.mkdtemp(prefix="jbof-", dir="/tmp")
    img = tempfile.mktemp(prefix="jbof-fz-", dir="/dev/shm")
    sock = os.path.join(tmp, "s.sock")
    eng = Engine({"drives": [{"name": "f", "backend": "file", "path": img, "size": 8 * MIB,
                              "io_mode": "threads"}],
                  "tenants": [{"name": "t"}], "listen": {"unix": sock}})
    try:
        with eng:
            c = Client(sock, "t")
            c.write(0, b"q" * 8192)  # tmpfs may take O_DIRECT: keep to 512-byte blocks
            kind, (err, _) = c.call(CMD_WRITE_ZEROES, 0, 8192, FLAG_FAST_ZERO | FLAG_NO_HOLE)
            assert err in (0, ENOTSUP)  # 0 only on a tmpfs that learnt ZERO_RANGE
            if err == ENOTSUP:
                assert c.call(CMD_READ, 0, 512)[1][0][2][8:] == b"q" * 512  # untouched
            assert c.call(CMD_WRITE_ZEROES, 0, 8192, FLAG_NO_HOLE) == ("simple", (0, b""))
            assert c.call(CMD_READ, 0, 512)[1][0][2][8:] == bytes(512)
            # PUNCH_HOLE is fast on tmpfs, and the hole shows in block status
            assert c.call(CMD_WRITE_ZEROES, 0, 8192, FLAG_FAST_ZERO) == ("simple", (0, b""))
            assert c.extents(0, 8 * MIB) == [(8 * MIB, HOLE_ZERO)]
            c.close()
    finally:
        os.unlink(img)
        shutil.rmtree(tmp, ignore_errors=True)


def test_zeroing_that_writes_costs_what_its_bytes_cost_as_writes() -> None:
    """csrc/cost.c section 6.  A file on tmpfs cannot ZERO_RANGE: its NO_HOLE zeroing
    writes the zero buffer, so it is charged as the same bytes of 1 MiB writes (in 1 MiB
    pieces); its PUNCH_HOLE zeroing and a memory drive's zeroing cost one command;
    zero_cost: write charges any zeroing as writes, TRIM too.  Write factor fixed at 9:
    a 1 MiB piece costs 3584 + 9 MiB, a command 3584."""
    if not os.path.isdir("/dev/shm"):
        pytest.skip("no /dev/shm")
    tmp = tempfile.mkdtemp(prefix="jbof-", dir="/tmp")
    img = tempfile.mktemp(prefix="jbof-zc-", dir="/dev/shm")
    sock = os.path.join(tmp, "s.sock")
    fixed = {"cost": {"learn": 0}}
    n = 64 * MIB
    piece, cmd = 3584 + 9 * MIB, 3584
    eng = Engine({"drives": [{"name": "f", "backend": "file", "path": img, "size": 2 * n,
                              "sched": fixed},
                             {"name": "m", "backend": "memory", "size": 2 * n, "sched": fixed},
                             {"name": "w", "backend": "memory", "size": 2 * n, "sched": fixed,
                              "zero_cost": "write"}],
                  "tenants": [{"name": "fz", "drive": "f", "size": n},
                              {"name": "fw", "drive": "f", "size": n},
                              {"name": "mz", "drive": "m"}, {"name": "wz", "drive": "w"}],
                  "listen": {"unix": sock}})

    def cost(c: Client, x: str, *call: Any) -> int:
        before = eng.tenant_stats(x)["tenant"]["cost_completed"]
        assert c.call(*call)[1][0] == 0
        return eng.tenant_stats(x)["tenant"]["cost_completed"] - before

    try:
        with eng:
            assert (eng.drive_stats("f")["zero_writes"], eng.drive_stats("f")["zero_cost"]) == (2, "auto")
            assert (eng.drive_stats("m")["zero_writes"], eng.drive_stats("w")["zero_cost"]) == (0, "write")
            fz, fw = Client(sock, "fz", structured=False, meta=False), Client(sock, "fw", structured=False, meta=False)
            fz.write(0, b"q" * MIB)
            assert cost(fz, "fz", CMD_WRITE_ZEROES, 0, n, FLAG_NO_HOLE) == (n // MIB) * piece
            assert fz.call(CMD_READ, 0, MIB, read_len=MIB)[1][1] == bytes(MIB)
            # the same bytes as 1 MiB writes cost the same
            data = b"w" * MIB
            before = eng.tenant_stats("fw")["tenant"]["cost_completed"]
            for off in range(0, n, 8 * MIB):
                hs = [fw.send(CMD_WRITE, off + i * MIB, MIB, 0, data) for i in range(8)]
                assert all(fw.reply(h)[1][0] == 0 for h in hs)
            assert eng.tenant_stats("fw")["tenant"]["cost_completed"] - before == (n // MIB) * piece
            assert cost(fz, "fz", CMD_WRITE_ZEROES, 0, n) == cmd          # PUNCH_HOLE: metadata
            assert cost(fz, "fz", CMD_TRIM, 0, n) == cmd
            mz = Client(sock, "mz", structured=False, meta=False)
            assert cost(mz, "mz", CMD_WRITE_ZEROES, 0, n, FLAG_NO_HOLE) == cmd
            wz = Client(sock, "wz", structured=False, meta=False)
            assert cost(wz, "wz", CMD_TRIM, 0, n) == (n // MIB) * piece
            for c in (fz, fw, mz, wz):
                c.close()
    finally:
        os.unlink(img)
        shutil.rmtree(tmp, ignore_errors=True)


def test_engine_config_keys() -> None:
    base = {"drives": [{"name": "m", "backend": "memory", "size": 16 * MIB}],
            "listen": {"unix": "/tmp/unused.sock"}}
    with pytest.raises(EngineConfigError, match="default"):
        Engine({**base, "tenants": [{"name": "a", "default": True}, {"name": "b", "default": True}]})
    with pytest.raises(EngineConfigError, match="description"):
        Engine({**base, "tenants": [{"name": "a", "description": "x" * 256}]})
    with pytest.raises(EngineConfigError, match=r"zero_cost.*allowed: auto, command, write"):
        Engine({**base, "drives": [{**base["drives"][0], "zero_cost": "writes"}]})


# ------------------------------------------------------- real clients ---

def nbdinfo(*args: str) -> str:
    r = subprocess.run([need("nbdinfo"), *args], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_nbdinfo_list_descriptions_and_default(srv: dict[str, Any]) -> None:
    out = nbdinfo("--list", f"nbd+unix:///?socket={srv['sock']}")
    assert "description: tenant a, gold" in out
    assert "base:allocation" in out and "can_fast_zero: true" in out and "can_cache: true" in out
    # the empty name is tenant b
    assert nbdinfo("--size", f"nbd+unix:///?socket={srv['sock']}").strip() == str(16 * MIB)
    assert 'export="b"' in nbdinfo(f"nbd+unix:///?socket={srv['sock']}")


def seed_sparse(path: str, size: int, offsets: list[int], chunk: int = MIB) -> None:
    with open(path, "wb") as f:
        f.truncate(size)
        for off in offsets:
            f.seek(off)
            f.write(bytes([0x5A]) * chunk)


@pytest.mark.parametrize("backend", ["memory", "file", "emulated"])
def test_nbdinfo_map(backend: str) -> None:
    need("nbdinfo")
    nbdcopy = need("nbdcopy")
    tmp = tempfile.mkdtemp(prefix="jbof-", dir="/tmp")
    sock = os.path.join(tmp, "s.sock")
    drive: dict[str, Any] = {"name": "d", "backend": backend, "size": 128 * MIB}
    if backend == "file":
        drive["path"] = os.path.join(tmp, "disk.img")
    eng = Engine({"drives": [drive], "tenants": [{"name": "x", "size": 64 * MIB},
                                                 {"name": "t", "size": 64 * MIB}],
                  "listen": {"unix": sock}})
    try:
        with eng:
            seed = os.path.join(tmp, "seed.img")
            seed_sparse(seed, 64 * MIB, [0], 64 * MIB)   # x is all data ...
            assert subprocess.run([nbdcopy, seed, f"nbd+unix:///x?socket={sock}"], timeout=60).returncode == 0
            seed_sparse(seed, 64 * MIB, [MIB, 40 * MIB])   # ... t has 2 MiB of it
            uri = f"nbd+unix:///t?socket={sock}"
            assert subprocess.run([nbdcopy, seed, uri], timeout=60).returncode == 0
            rows = [ln.split() for ln in nbdinfo("--map", uri).splitlines() if ln.strip()]
            got = [(int(r[0]), int(r[1]), int(r[2])) for r in rows]
            assert got == [(0, MIB, 3), (MIB, MIB, 0), (2 * MIB, 38 * MIB, 3), (40 * MIB, MIB, 0),
                           (41 * MIB, 23 * MIB, 3)], got
            assert eng.tenant_stats("t")["tx_payload_bytes"] == 0  # no data was read
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="module")
def sparse_gib() -> Iterator[dict[str, Any]]:
    """A 1 GiB export holding 3 MiB of data (start, a third in, end)."""
    nbdcopy = need("nbdcopy")
    tmp = tempfile.mkdtemp(prefix="jbof-", dir="/tmp")
    sock = os.path.join(tmp, "s.sock")
    eng = Engine({"drives": [{"name": "m", "backend": "memory", "size": GIB}],
                  "tenants": [{"name": "t"}], "listen": {"unix": sock}})
    eng.start()
    seed = os.path.join(tmp, "seed.img")
    offsets = [0, 341 * MIB, GIB - MIB]
    seed_sparse(seed, GIB, offsets)
    uri = f"nbd+unix:///t?socket={sock}"
    assert subprocess.run([nbdcopy, seed, uri], timeout=60).returncode == 0
    yield {"engine": eng, "uri": uri, "tmp": tmp, "seed": seed, "offsets": offsets}
    eng.close()
    shutil.rmtree(tmp, ignore_errors=True)


def check_copy(env: dict[str, Any], out: str) -> None:
    st = os.stat(out)
    assert st.st_size == GIB
    assert st.st_blocks * 512 < 64 * MIB  # written sparse
    with open(out, "rb") as f:
        for off in env["offsets"]:
            f.seek(off)
            assert f.read(MIB) == bytes([0x5A]) * MIB
        f.seek(100 * MIB)
        assert f.read(MIB) == bytes(MIB)


@pytest.mark.parametrize("tool", ["nbdcopy", "qemu-img"])
def test_sparse_copy_reads_only_data(sparse_gib: dict[str, Any], tool: str) -> None:
    """Before base:allocation both tools read all 1 GiB (about 0.7-1 s here
    per GiB); now they read the 3 MiB of data."""
    exe = need(tool)
    out = os.path.join(sparse_gib["tmp"], f"out-{tool}.img")
    eng = sparse_gib["engine"]
    before = eng.tenant_stats("t")["tx_payload_bytes"]
    cmd = ([exe, sparse_gib["uri"], out] if tool == "nbdcopy" else
           [exe, "convert", "-f", "raw", "-O", "raw", "-S", "4k", sparse_gib["uri"], out])
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    took = time.monotonic() - t0
    assert r.returncode == 0, r.stderr
    read = eng.tenant_stats("t")["tx_payload_bytes"] - before
    print(f"{tool}: {took:.2f} s, {read} bytes read of {GIB}")
    assert read <= 8 * MIB, read
    assert took < 30
    check_copy(sparse_gib, out)
    os.unlink(out)


def test_odd_sized_neighbours_do_not_share_a_chunk() -> None:
    """Block size 1 allows any namespace size; namespaces still start on
    4 KiB boundaries, the granularity of the memory map, so a write at the
    very end of one never shows in the next."""
    tmp = tempfile.mkdtemp(prefix="jbof-", dir="/tmp")
    sock = os.path.join(tmp, "s.sock")
    eng = Engine({"drives": [{"name": "m", "backend": "memory", "size": 16 * MIB}],
                  "tenants": [{"name": "a", "size": 5000}, {"name": "b", "size": 4 * MIB + 4096}],
                  "listen": {"unix": sock}})
    try:
        with eng:
            assert eng.tenant_stats("b")["ns_base_bytes"] == 8192
            a, b = Client(sock, "a"), Client(sock, "b")
            a.write(4999, b"!")
            assert a.extents(0, 5000) == [(4096, HOLE_ZERO), (904, 0)]
            assert b.extents(0, 4 * MIB + 4096) == [(4 * MIB + 4096, HOLE_ZERO)]
            a.close()
            b.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_a_tenants_zeroing_does_not_slow_the_scrub() -> None:
    """csrc/scrub.c section 7: a tenant's WRITE_ZEROES and TRIM (zeroing the backend
    does on the IO path, charged to the tenant by its scheduler) draw nothing from the
    scrub's rate bucket and are not counted as scrubbed.  z zeroes its own 128 MiB
    over and over (hundreds of MiB/s) while the removed a's 32 MiB is scrubbed at
    4 MiB/s: the scrub keeps its rate (drawn from the bucket, z would have stopped it)."""
    tmp = tempfile.mkdtemp(prefix="jbof-", dir="/tmp")
    sock = os.path.join(tmp, "s.sock")
    rate = 4 * MIB
    try:
        with Engine({"drives": [{"name": "m", "backend": "memory", "size": 256 * MIB}],
                     "tenants": [{"name": "a", "size": 32 * MIB}, {"name": "z", "size": 128 * MIB}],
                     "listen": {"unix": sock}, "engine": {"scrub_rate": rate}}) as eng:
            a = Client(sock, "a")
            a.write(0, b"A" * MIB)
            a.close()
            eng.remove_tenant("a")
            z = Client(sock, "z")
            s0, t0 = eng.drive_stats("m")["scrubbed_bytes"], time.monotonic()
            zeroed = 0
            while time.monotonic() - t0 < 1.5:
                for off in range(0, 128 * MIB, 16 * MIB):
                    assert z.call(CMD_WRITE_ZEROES, off, 16 * MIB) == ("simple", (0, b""))
                    assert z.call(CMD_TRIM, off, 16 * MIB) == ("simple", (0, b""))
                    zeroed += 32 * MIB
            info, t1 = eng.drive_stats("m"), time.monotonic()
            z.close()
            done, want = info["scrubbed_bytes"] - s0, rate * (t1 - t0)
            print(f"z zeroed {zeroed / MIB:.0f} MiB; scrubbed {done / MIB:.2f} MiB in "
                  f"{t1 - t0:.2f} s at {rate / MIB:.0f} MiB/s ({want / MIB:.2f} MiB)")
            assert zeroed > 4 * want, (zeroed, want)         # z zeroed well above the rate
            assert 0.5 * want <= done <= 1.25 * want + 64 * 1024, (done, want, zeroed)
            # only a's space counts: z's zeroes are neither scrubbed nor pending
            assert info["scrubbed_bytes"] + info["scrub_pending_bytes"] == 32 * MIB
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.mark.parametrize("rate", ["slow", "default"])
def test_block_status_shows_nothing_of_a_removed_tenant(rate: str) -> None:
    """A new owner's map is all hole, whether the scrubber has reached the
    old owner's space yet (slow: block status zeroes it first, as an IO
    would) or has already zeroed it (default)."""
    tmp = tempfile.mkdtemp(prefix="jbof-", dir="/tmp")
    sock = os.path.join(tmp, "s.sock")
    ecfg = {"scrub_rate": MIB} if rate == "slow" else {}
    try:
        with Engine({"drives": [{"name": "m", "backend": "memory", "size": 64 * MIB}],
                     "tenants": [{"name": "a", "size": 16 * MIB}],
                     "listen": {"unix": sock}, "engine": ecfg}) as eng:
            a = Client(sock, "a")
            a.write(0, b"A" * MIB)
            a.write(9 * MIB, b"A" * 4096)
            assert a.extents(0, 16 * MIB)[0] == (MIB, 0)
            a.close()
            eng.remove_tenant("a")
            eng.add_tenant({"name": "b", "size": 16 * MIB})
            if rate == "default":
                deadline = time.monotonic() + 10
                while eng.drive_stats("m")["scrub_pending_bytes"] and time.monotonic() < deadline:
                    time.sleep(0.05)
            b = Client(sock, "b")
            assert b.extents(0, 16 * MIB) == [(16 * MIB, HOLE_ZERO)]
            b.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
