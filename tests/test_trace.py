"""Training-cluster traces (control/lending/trace.py): generator, public-format loaders, forecasters."""
from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from control.errors import ConfigError
from control.lending.forecast import Forecast, parse_message
from control.lending.trace import (
    BorrowerJobs,
    Lognormal,
    OwnerJobs,
    TraceSpec,
    diurnal_arrivals,
    forecast_messages,
    generate,
    load_trace,
    read_helios,
    read_philly,
    write_helios,
)

FIX = Path(__file__).resolve().parent / "fixtures"
MiB = 1 << 20
OWNERS = (("team-a", 700 * MiB), ("team-b", 700 * MiB), ("team-c", 700 * MiB))
SPEC = TraceSpec(owners=OWNERS, duration_s=120.0, history_jobs=60,
                 owner_jobs=OwnerJobs(jobs_per_min=1.5),
                 borrower_jobs=BorrowerJobs(jobs_per_min=6.0))


def test_generate_is_seeded() -> None:
    a, b, c = generate(SPEC, 7), generate(SPEC, 7), generate(SPEC, 8)
    assert a == b
    assert a.jobs != c.jobs
    assert a.owners() and a.borrowers() and a.history


def test_generated_jobs_are_well_formed() -> None:
    t = generate(SPEC, 7)
    oj = SPEC.owner_jobs
    for name, reserve in OWNERS:
        js = sorted((j for j in t.owners() if j.user == name), key=lambda j: j.start_s)
        for prev, j in zip(js, js[1:]):
            assert j.start_s >= prev.end_s + oj.gap_s - 1e-6     # one job at a time per owner
        for j in js:
            assert j.lead_s >= oj.lead_s.lo - 1e-6
            assert 0 < j.duration_s <= oj.duration_s.hi + 1e-6
            assert oj.demand[0] * reserve - MiB <= j.io.read_bps <= oj.demand[1] * reserve
            assert j.io.write_bps * SPEC.write_cost <= reserve      # checkpoint cost fits
            assert 0 <= j.start_s < SPEC.duration_s
    for j in t.borrowers():
        b = SPEC.borrower_jobs.size_bytes
        assert b.lo - MiB <= j.io.bytes_total <= b.hi
        assert j.io.write_fraction in (0.0, SPEC.borrower_jobs.write_fraction)
    assert all(j.end_s < 0 for j in t.history)
    assert all(j.role == "owner" for j in t.history)


def test_diurnal_poisson() -> None:
    """Rate 60/min with amplitude 50% over 100 periods: about 6000 arrivals, and the
    half-period around the peak gets (1 + 2a/pi) / (1 - 2a/pi) = 1.9x the other."""
    rng = np.random.default_rng(1)
    ts = diurnal_arrivals(rng, 60.0, 0.0, 6000.0, 60.0, 0.5)
    assert 5700 <= len(ts) <= 6300
    phase = np.array([(t % 60.0) / 60.0 for t in ts])
    high = np.sum(phase < 0.5)
    low = len(ts) - high
    assert 1.6 <= high / low <= 2.2, high / low
    assert diurnal_arrivals(rng, 0.0, 0.0, 10.0, 60.0, 0.5) == []


def test_lognormal_clamped() -> None:
    rng = np.random.default_rng(1)
    d = Lognormal(8.0, 2.0, 1.0, 20.0)
    xs = [d.draw(rng) for _ in range(2000)]
    assert min(xs) == 1.0 and max(xs) == 20.0
    assert 6.0 < float(np.median(xs)) < 10.0


def test_helios_fixture() -> None:
    raw = read_helios(FIX / "helios_cluster_log.csv")
    assert len(raw) == 6
    assert raw[0].job_id == "8x1a2" and raw[0].gpu_num == 8 and raw[0].start - raw[0].submit == 300
    assert raw[4].start is None and raw[4].state == "CANCELLED"
    t = load_trace(FIX / "helios_cluster_log.csv", "helios", {"vcEwI": 700 * MiB}, seed=1,
                   time_scale=1 / 60)
    assert len(t.jobs) == 5                                   # the cancelled job never ran
    own = t.owners()
    assert [j.job_id for j in own] == ["8x1a2", "8x1a4"] and {j.user for j in own} == {"vcEwI"}
    first = own[0]
    assert first.submit_s == 0.0 and first.start_s == pytest.approx(5.0)   # time starts at the
    #                                                          first submission; 5 min -> 5 s
    assert first.duration_s == pytest.approx(40.0)            # 40 minutes -> 40 s
    assert first.io.read_bps > 0
    bor = {j.job_id: j for j in t.borrowers()}
    assert set(bor) == {"8x1a3", "8x1a5", "8x1a7"}
    assert all(j.io.bytes_total >= MiB for j in bor.values())


def test_philly_fixture() -> None:
    raw = read_philly(FIX / "philly_cluster_job_log.json")
    assert [r.gpu_num for r in raw] == [4, 1, 4, 0]
    assert raw[1].end - raw[1].start == 30 * 60               # first start to last end
    assert raw[3].start is None
    t = load_trace(FIX / "philly_cluster_job_log.json", "philly", {"a0d5a3": 700 * MiB},
                   seed=1, time_scale=1 / 60)
    assert [j.job_id for j in t.owners()] == ["application_1506638472019_10238",
                                              "application_1506638472019_10240"]
    assert len(t.borrowers()) == 1


def test_synthetic_trace_round_trips_through_helios(tmp_path: Path) -> None:
    t = generate(SPEC, 3)
    p = tmp_path / "cluster_log.csv"
    p.write_text(write_helios(t, time_scale=1 / 60))
    back = load_trace(p, "helios", dict(OWNERS), seed=3, time_scale=1 / 60)
    assert len(back.jobs) == len(t.jobs)
    by_id = {j.job_id: j for j in back.jobs}
    for j in t.jobs:
        b = by_id[j.job_id]
        assert b.role == j.role and b.io.read_bps == j.io.read_bps
        assert b.io.bytes_total == j.io.bytes_total
        assert abs((b.start_s - b.submit_s) - j.lead_s) <= 1 / 60 + 1e-9   # whole file seconds


@pytest.mark.parametrize("text,where", [
    ("job_id,user\n1,u\n", "header"),
    ("", ""),
])
def test_bad_helios_files(tmp_path: Path, text: str, where: str) -> None:
    p = tmp_path / "bad.csv"
    p.write_text(text)
    with pytest.raises(ConfigError) as e:
        read_helios(p)
    assert e.value.path == where and "\n" not in str(e.value)


def test_bad_philly_and_missing_files(tmp_path: Path) -> None:
    p = tmp_path / "bad.json"
    p.write_text('[{"jobid": 1}]')
    with pytest.raises(ConfigError, match=r"\[0\]\.user: is required"):
        read_philly(p)
    p.write_text("{")
    with pytest.raises(ConfigError, match="bad JSON"):
        read_philly(p)
    with pytest.raises(ConfigError, match="cannot read"):
        read_helios(tmp_path / "none.csv")
    with pytest.raises(ConfigError, match="format"):
        load_trace(p, "csv", {}, 1)


# ------------------------------------------------------------- forecasters ---

def _residuals(kind: str, seed: int = 7) -> tuple[list[float], int, int]:
    """ln(actual lead / predicted lead) of each forecast job, phantoms, silent jobs
    (over a 600-job history plus the trace: enough jobs to see the tails)."""
    t = generate(replace(SPEC, history_jobs=600), seed)
    jobs = {j.job_id: j for j in t.history + t.jobs}
    msgs = forecast_messages(t.history + t.jobs, kind, seed)
    off = -min(when for when, _ in msgs) + 1.0        # the history lies before time 0
    rho, phantoms, forecast = [], 0, set()
    for when, m in msgs:
        m = {k: (v + off if k in ("arrival_at", "at") else v) for k, v in m.items()}
        msg = parse_message(m, when + off)            # every message passes the wire schema
        if isinstance(msg, Forecast):
            if msg.job.startswith("phantom-"):
                phantoms += 1
                continue
            j = jobs[msg.job]
            forecast.add(msg.job)
            rho.append(math.log(max(j.lead_s, 0.05) / msg.lead_s))
    silent = sum(1 for j in jobs.values() if j.role == "owner" and j.job_id not in forecast)
    return rho, phantoms, silent


def test_oracle_is_exact() -> None:
    rho, phantoms, silent = _residuals("oracle")
    assert max(abs(r) for r in rho) < 1e-9 and phantoms == 0 and silent == 0


def test_noisy_is_heavy_tailed_and_autocorrelated() -> None:
    rho, phantoms, _ = _residuals("noisy")
    r = np.array(rho)
    assert 0.3 < r.std() < 0.8
    assert abs(np.median(r)) < 0.3
    assert (r < -1.0).mean() > 0.005                  # a heavy early tail a normal model misses
    lag1 = np.corrcoef(r[:-1], r[1:])[0, 1]
    assert lag1 > 0.3, lag1                           # the AR(1) bias
    assert phantoms >= 1


def test_biased_is_consistently_late() -> None:
    rho, _, _ = _residuals("biased")
    r = np.array(rho)
    assert (r < 0).mean() > 0.95 and -0.7 < float(np.median(r)) < -0.3


def test_adversarial_is_harmful_and_drifts() -> None:
    rho, phantoms, silent = _residuals("adversarial")
    r = np.array(rho)
    assert (r < -0.69).all()                          # always at least 2x too late
    half = len(r) // 2
    assert r[half:].mean() < r[:half].mean() - 1.0    # and worse and worse
    assert phantoms >= 5 and silent >= 3


def test_unknown_forecaster() -> None:
    with pytest.raises(ValueError, match="not a forecaster"):
        forecast_messages([], "psychic", 1)
