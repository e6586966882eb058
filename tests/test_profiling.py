"""Profiling for the autotuner: windows, p99, signatures, periods, CUSUM (issue 7)."""
from __future__ import annotations

import numpy as np
import pytest

from control.tune import profiling as pf
from control.scenario import load_scenario

pytestmark = pytest.mark.needs_core   # quantiles use the C histogram's bucket edges


def counters(read_ios: int = 0, read_bytes: int = 0, write_ios: int = 0, write_bytes: int = 0,
             issued: int | None = None, lat_ns: list[int] | None = None) -> pf.TenantCounters:
    from dataplane._jbof import lib
    hist = np.zeros(lib.JBOF_HIST_BUCKETS, dtype=np.int64)
    for v in lat_ns or []:
        hist[lib.jbof_hist_index(v)] += 1
    done = read_ios + write_ios
    return pf.TenantCounters(read_ios, read_bytes, write_ios, write_bytes,
                             done if issued is None else issued, 0, hist)


def sample(now_s: float, **tenants: pf.TenantCounters) -> pf.Sample:
    return pf.Sample(now_ns=round(now_s * pf.NS), tenants=tenants)


def test_window_diffs_counters_and_p99() -> None:
    a = sample(1.0, kv=counters(100, 409600, lat_ns=[100_000] * 100))
    lat = [100_000] * 100 + [200_000] * 198 + [5_000_000] * 2   # 200 new IOs, 2 slow
    b = sample(1.5, kv=counters(300, 1228800, issued=305, lat_ns=lat))
    w = pf.window(a, b)
    kv = w.tenants["kv"]
    assert w.seconds == pytest.approx(0.5)
    assert (kv.read_ios, kv.read_bytes, kv.ios, kv.outstanding) == (200, 819200, 200, 5)
    # 200 samples: the 198th is 200 us (within 3.2%), the 199th and 200th 5 ms
    assert kv.p99_ns() == pytest.approx(200_000, rel=0.04)
    assert pf.quantile_ns(kv.hist, 1.0) == pytest.approx(5_000_000, rel=0.04)
    assert pf.quantile_ns(np.zeros(4, dtype=np.int64), 0.99) == 0.0


def test_descriptors_and_quick_signature() -> None:
    assert pf.size_label(4096) == "4k" and pf.size_label(1 << 20) == "1m"
    assert pf.size_label(131072) == "128k" and pf.size_label(5000) == "4k"
    assert pf.slo_label(0) == "be" and pf.slo_label(1_000_000) == "slo1ms"
    assert pf.slo_label(500_000) == "slo500us"
    assert pf.period_label(None) == "steady" and pf.period_label(0.25) == "250ms"
    w = pf.window(sample(0), sample(
        1,
        kv=counters(1000, 4096000),                                     # 4 KiB reads
        mix=counters(700, 700 * 16384, 300, 300 * 16384),               # 70/30 16 KiB
        idle=counters(),                                                # did nothing
        starved=counters(issued=16)))                                   # stuck
    slos = {"kv": 1_000_000}
    assert pf.quick_signature(w, slos) == "be:16k:r75|be:?:r?|slo1ms:4k:r100"


@pytest.mark.parametrize("on,off,expect", [(15, 10, 0.25), (20, 80, 1.0), (40, 10, 0.5)])
def test_detect_period_of_bursts(on: int, off: int, expect: float) -> None:
    rng = np.random.default_rng(1)
    period = np.r_[np.ones(on), np.zeros(off)]
    x = np.tile(period, 450 // (on + off) + 1)[:450] * rng.normal(200, 20, 450)
    assert pf.detect_period(np.maximum(x, 0), 0.01) == pytest.approx(expect)


def test_steady_noise_and_fast_cadence_are_not_periods() -> None:
    rng = np.random.default_rng(2)
    assert pf.detect_period(rng.normal(1000, 100, 400), 0.01) is None   # cv 0.1
    assert pf.detect_period(rng.poisson(0.3, 400), 0.01) is None        # sparse, aperiodic
    cadence = np.tile([1.0, 0.0], 200)                                  # every 20 ms
    assert pf.detect_period(cadence, 0.01) is None
    # a rate the drive modulates every second but that never goes quiet
    t = np.arange(450)
    assert pf.detect_period(1000 * (1 + 0.6 * np.sin(2 * np.pi * t / 100)), 0.01) is None
    assert pf.detect_period(np.where(t % 100 < 80, 1000.0, 0.0), 0.01) == 1.0


def test_mix_period_is_the_lcm_of_snapped_periods() -> None:
    assert pf.snap_period_s(0.24) == 0.25 and pf.snap_period_s(0.97) == 1.0
    assert pf.mix_period_s([0.5, 1.0, None]) == 1.0
    assert pf.mix_period_s([0.25, 0.4]) == 2.0
    assert pf.mix_period_s([None, None]) is None
    assert pf.mix_period_s([0.3, 0.7]) == 2.1
    assert pf.mix_period_s([0.75, 3.1]) == 3.1      # lcm above the cap: the longest


def test_cusum_alarms_on_a_shift_not_on_noise() -> None:
    rng = np.random.default_rng(3)
    c = pf.Cusum()
    assert not any(c.update(x) for x in rng.normal(100, 3, 200))
    # a drop of 2 reference sds (sd floored at 5% of the mean) alarms within a few values
    alarms = [i for i, x in enumerate(rng.normal(90, 3, 20)) if c.update(x)]
    assert alarms and alarms[0] <= 6


def test_profile_finds_the_training_mix_and_its_period(scenario_dir) -> None:  # type: ignore[no-untyped-def]
    from control.tune.offline import sim_dataplane
    sc = load_scenario(scenario_dir / "tune-training.yaml")
    dp = sim_dataplane(sc, seed=1, horizon_s=10)
    samples = [dp.sample()]
    for _ in range(450):
        dp.advance(0.01)
        samples.append(dp.sample())
    prof = pf.profile(samples, dp.slos_ns())
    assert prof.signature == "be:128k:r100|be:1m:r0|slo1ms:4k:r100@1s"
    assert prof.period_s == 1.0
    assert prof.tenant_periods["trainer-ckpt"] == 1.0
    assert prof.tenant_periods["inference"] is None


def test_sim_dataplane_applies_fields_live(scenario_dir) -> None:  # type: ignore[no-untyped-def]
    from control.tune.offline import sim_dataplane
    dp = sim_dataplane(load_scenario(scenario_dir / "tune-large-seq.yaml"), 1, 5)
    assert dp.get_fields()["slot_bytes"] == 131072
    dp.advance(0.1)
    dp.apply({"slot_bytes": 262144, "ctl.band_hi_pct": 700, "ctl.band_lo_pct": 350})
    f = dp.get_fields()
    assert (f["slot_bytes"], f["ctl.band_hi_pct"], f["ctl.band_lo_pct"]) == (262144, 700, 350)
    dp.advance(0.1)
    assert dp.sample().now_ns == 200_000_000
