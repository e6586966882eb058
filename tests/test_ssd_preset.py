"""The emulated SSD presets, measured through the simulator the way a user sees them.

One tenant, policy fifo (no QoS in the way), a closed-loop fio-like workload;
throughput and mean latency are taken over [warmup, end) by differencing the
tenant's result counters and latency histogram (submit -> complete).  The
tolerances are the calibration targets of docs/ssd-model.md; each measurement
is a few tens of thousands of simulated IOs, all generated in C.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

jbof = pytest.importorskip("dataplane._jbof", reason="extension not built (make build)")
ffi, lib = jbof.ffi, jbof.lib

if not hasattr(lib, "jbof_sim_create"):
    pytest.skip("simulator not built yet", allow_module_level=True)

MS = 1_000_000
KIB = 1024
# Namespace of the one tenant: most of the drive, so random IO spreads over it.
NS_BYTES = 900 * 10**9


@dataclass
class Window:
    iops: float
    bps: float
    mean_lat_us: float
    ios: int


def _ssd_cfg(preset: str) -> Any:
    cfg = ffi.new("jbof_ssd_cfg *")
    assert lib.jbof_ssd_preset(preset.encode(), cfg) == 0
    return cfg


def _snapshot(sim: Any, tid: int) -> tuple[int, int, int, int]:
    res = ffi.new("jbof_tenant_result *")
    hist = ffi.new("jbof_hist *")
    assert lib.jbof_sim_tenant_result(sim, tid, res) == 0
    assert lib.jbof_sched_tenant_hist(lib.jbof_sim_sched(sim), tid, hist) == 0
    return res.completed, res.read_bytes + res.write_bytes, hist.count, hist.sum_ns


@dataclass(frozen=True)
class Load:
    rw: int
    bs: int
    iodepth: int
    rwmixread_pct: int = 0
    rate_bps: int = 0


def measure_many(preset: str, loads: list[Load], warmup_ns: int, end_ns: int,
                 seed: int = 1) -> list[Window]:
    """One closed-loop tenant per load for end_ns of virtual time; figures over [warmup, end)."""
    cfg = ffi.new("jbof_sim_cfg *")
    assert lib.jbof_sched_default_cfg(lib.JBOF_POLICY_FIFO, ffi.addressof(cfg, "sched")) == 0
    cfg.sched.max_inflight_ios = 1024
    cfg.ssd = _ssd_cfg(preset)[0]
    cfg.seed = seed
    cfg.bin_ns = 100 * MS
    cfg.max_bins = 64
    simp = ffi.new("jbof_sim **")
    assert lib.jbof_sim_create(cfg, simp) == 0
    sim = ffi.gc(simp[0], lib.jbof_sim_destroy)

    ids = []
    for load in loads:
        tc = ffi.new("jbof_tenant_cfg *")
        assert lib.jbof_tenant_default_cfg(tc) == 0
        tc.sq_depth = 1024
        wl = ffi.new("jbof_wl *")
        wl.size_bytes = NS_BYTES // len(loads)
        wl.nphases = 1
        ph = wl.phases[0]
        ph.rw = load.rw
        ph.rwmixread_pct = load.rwmixread_pct
        ph.iodepth = load.iodepth
        ph.rate_bps = load.rate_bps
        ph.nbs = 1
        ph.bs[0] = load.bs
        ph.bs_pct[0] = 100
        tid = ffi.new("uint32_t *")
        assert lib.jbof_sim_add_tenant(sim, tc, wl, tid) == 0
        ids.append(tid[0])

    assert lib.jbof_sim_run(sim, warmup_ns) == 0
    before = [_snapshot(sim, i) for i in ids]
    assert lib.jbof_sim_run(sim, end_ns) == 0
    after = [_snapshot(sim, i) for i in ids]
    secs = (end_ns - warmup_ns) / 1e9
    out = []
    for (c0, b0, n0, s0), (c1, b1, n1, s1) in zip(before, after):
        n = n1 - n0
        out.append(Window(iops=(c1 - c0) / secs, bps=(b1 - b0) / secs,
                          mean_lat_us=(s1 - s0) / n / 1e3 if n else 0.0, ios=c1 - c0))
    return out


def measure(preset: str, rw: int, bs: int, iodepth: int, warmup_ns: int, end_ns: int,
            seed: int = 1, rwmixread_pct: int = 0) -> Window:
    return measure_many(preset, [Load(rw, bs, iodepth, rwmixread_pct)], warmup_ns, end_ns, seed)[0]


def test_presets_enumerate_and_load() -> None:
    names = []
    i = 0
    while (p := lib.jbof_ssd_preset_name(i)) != ffi.NULL:
        names.append(ffi.string(p).decode())
        i += 1
    assert {"dct983", "dct983-fragmented", "sata-ssd"} <= set(names)
    for name in names:
        cfg = _ssd_cfg(name)
        d = ffi.new("jbof_ssd **")
        assert lib.jbof_ssd_create(cfg, 1, d) == 0
        lib.jbof_ssd_destroy(d[0])
    assert _ssd_cfg("dct983").frag_init_ppm == 0
    assert _ssd_cfg("dct983-fragmented").frag_init_ppm == 1_000_000
    assert lib.jbof_ssd_preset(b"no-such-drive", ffi.new("jbof_ssd_cfg *")) == -2  # -ENOENT


def test_randread_qd1_latency() -> None:
    # 2.5 us controller + 78 us tR + 1.4 us link + 3.2 us fixed = 85 us
    w = measure("dct983", lib.JBOF_RW_RANDREAD, 4 * KIB, 1, 2 * MS, 30 * MS)
    assert 75 <= w.mean_lat_us <= 95, w


def test_randread_iops_saturates_at_high_qd() -> None:
    w = measure("dct983", lib.JBOF_RW_RANDREAD, 4 * KIB, 256, 20 * MS, 100 * MS)
    assert 360e3 <= w.iops <= 420e3, w


def test_randread_qd32_below_cap() -> None:
    # Die collisions (balls in bins) keep QD32 below the 400K controller cap.
    w = measure("dct983", lib.JBOF_RW_RANDREAD, 4 * KIB, 32, 10 * MS, 60 * MS)
    assert 230e3 <= w.iops <= 360e3, w


def test_latency_knee() -> None:
    qd1 = measure("dct983", lib.JBOF_RW_RANDREAD, 4 * KIB, 1, 2 * MS, 30 * MS)
    qd8 = measure("dct983", lib.JBOF_RW_RANDREAD, 4 * KIB, 8, 2 * MS, 30 * MS)
    qd512 = measure("dct983", lib.JBOF_RW_RANDREAD, 4 * KIB, 512, 10 * MS, 40 * MS)
    assert qd8.mean_lat_us < 1.2 * qd1.mean_lat_us, (qd1, qd8)
    # Past the knee latency is Little's law: 512 / 400K IOPS = 1.28 ms.
    assert qd512.mean_lat_us > 3 * qd1.mean_lat_us, (qd1, qd512)


def test_seqread_bandwidth() -> None:
    w = measure("dct983", lib.JBOF_RW_READ, 128 * KIB, 32, 10 * MS, 100 * MS)
    assert 2.7e9 <= w.bps <= 3.3e9, w


def test_seqwrite_sustained_clean() -> None:
    # The 64 MiB buffer fills in ~35 ms at QD32; then programs limit to 1 GB/s.
    w = measure("dct983", lib.JBOF_RW_WRITE, 128 * KIB, 32, 200 * MS, 1200 * MS)
    assert 0.85e9 <= w.bps <= 1.15e9, w


def test_randwrite_sustained_fragmented() -> None:
    # WA 6.1 on a fragmented drive: 1 GB/s / 6.1 / 4 KiB = 40K IOPS.
    w = measure("dct983-fragmented", lib.JBOF_RW_RANDWRITE, 4 * KIB, 32, 200 * MS, 1200 * MS)
    assert 32e3 <= w.iops <= 48e3, w


def test_write_latency_into_buffer() -> None:
    w = measure("dct983", lib.JBOF_RW_RANDWRITE, 4 * KIB, 1, 1 * MS, 10 * MS)
    assert 15 <= w.mean_lat_us <= 25, w


def test_deterministic_for_a_seed() -> None:
    args = ("dct983", lib.JBOF_RW_RANDRW, 4 * KIB, 16, 0, 20 * MS)
    a = measure(*args, seed=5, rwmixread_pct=70)
    b = measure(*args, seed=5, rwmixread_pct=70)
    c = measure(*args, seed=6, rwmixread_pct=70)
    assert a == b
    assert a != c


def test_a_saturating_writer_crowds_out_readers() -> None:
    # The writer keeps the buffer full, so programs are not suspended and
    # reads wait behind them (ssd.c section 6): the reader collapses while
    # the writer keeps most of its throughput, and the drive is split, not
    # shared for free (the shares add up to about 1).
    reader = Load(lib.JBOF_RW_RANDREAD, 4 * KIB, 32)
    writer = Load(lib.JBOF_RW_WRITE, 128 * KIB, 32)
    warm, end = 200 * MS, 500 * MS
    r_solo = measure_many("dct983", [reader], warm, end)[0]
    w_solo = measure_many("dct983", [writer], warm, end)[0]
    r_mix, w_mix = measure_many("dct983", [reader, writer], warm, end)
    r_share, w_share = r_mix.bps / r_solo.bps, w_mix.bps / w_solo.bps
    assert r_share < 0.3 and w_share > 0.7, (r_share, w_share)
    assert 0.85 <= r_share + w_share <= 1.3, (r_share, w_share)
    assert r_mix.mean_lat_us > 3 * r_solo.mean_lat_us, (r_solo, r_mix)


def test_a_throttled_writer_leaves_readers_room() -> None:
    # Held below the drain rate (0.5 of 1.0 GB/s) the writer never fills the
    # buffer: reads only pay suspends and even program slices.
    reader = Load(lib.JBOF_RW_RANDREAD, 4 * KIB, 32)
    writer = Load(lib.JBOF_RW_WRITE, 128 * KIB, 32, rate_bps=500_000_000)
    warm, end = 200 * MS, 500 * MS
    r_solo = measure_many("dct983", [reader], warm, end)[0]
    r_mix, w_mix = measure_many("dct983", [reader, writer], warm, end)
    assert 0.45e9 <= w_mix.bps <= 0.55e9, w_mix
    assert r_mix.bps > 0.5 * r_solo.bps, (r_solo, r_mix)

if __name__ == "__main__":
    # `python3 tests/test_ssd_preset.py`: the table docs/ssd-model.md quotes.
    def show(name: str, w: Window) -> None:
        print(f"  {name:34s} {w.iops:9.0f} IOPS {w.bps / 1e9:6.3f} GB/s  mean {w.mean_lat_us:8.1f} us")

    R, W, RW = lib.JBOF_RW_RANDREAD, lib.JBOF_RW_WRITE, lib.JBOF_RW_RANDWRITE
    print("dct983 through the simulator (one fifo tenant per load):")
    show("4K randread QD1", measure("dct983", R, 4 * KIB, 1, 2 * MS, 30 * MS))
    show("4K randread QD8", measure("dct983", R, 4 * KIB, 8, 2 * MS, 30 * MS))
    show("4K randread QD32", measure("dct983", R, 4 * KIB, 32, 10 * MS, 60 * MS))
    show("4K randread QD256", measure("dct983", R, 4 * KIB, 256, 20 * MS, 100 * MS))
    show("4K randread QD512", measure("dct983", R, 4 * KIB, 512, 10 * MS, 40 * MS))
    show("128K seqread QD32", measure("dct983", lib.JBOF_RW_READ, 128 * KIB, 32, 10 * MS, 100 * MS))
    show("4K randwrite QD1", measure("dct983", RW, 4 * KIB, 1, 1 * MS, 10 * MS))
    show("128K seqwrite QD32 clean 0.2-1.2s", measure("dct983", W, 128 * KIB, 32, 200 * MS, 1200 * MS))
    show("4K randwrite QD32 frag 0.2-1.2s", measure("dct983-fragmented", RW, 4 * KIB, 32, 200 * MS, 1200 * MS))
    for preset in ("dct983", "dct983-fragmented"):
        for qd in (1, 32, 256):
            reader, writer = Load(R, 4 * KIB, qd), Load(W, 128 * KIB, 32)
            r0 = measure_many(preset, [reader], 300 * MS, 1300 * MS)[0]
            w0 = measure_many(preset, [writer], 300 * MS, 1300 * MS)[0]
            r1, w1 = measure_many(preset, [reader, writer], 300 * MS, 1300 * MS)
            print(f"{preset}: 4K randread QD{qd} + 128K seqwrite QD32, 0.3-1.3 s "
                  f"(shares {r1.bps / r0.bps:.2f} + {w1.bps / w0.bps:.2f})")
            show("  reader alone", r0)
            show("  writer alone", w0)
            show("  reader with writer", r1)
            show("  writer with reader", w1)
    reader = Load(R, 4 * KIB, 32)
    r0 = measure_many("dct983", [reader], 300 * MS, 1300 * MS)[0]
    print("dct983: 4K randread QD32 + 128K seqwrite QD32 held at a rate, 0.3-1.3 s")
    for rate in (900, 800, 700, 600, 500, 400, 300):
        writer = Load(W, 128 * KIB, 32, rate_bps=rate * 1_000_000)
        r1, w1 = measure_many("dct983", [reader, writer], 300 * MS, 1300 * MS)
        print(f"  writer {rate} MB/s: reader share {r1.bps / r0.bps:.2f}, mean {r1.mean_lat_us:6.1f} us; "
              f"writer {w1.bps / 1e9:.3f} GB/s")
