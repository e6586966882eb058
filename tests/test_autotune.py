"""The online autotuner against an offline grid search, in the simulator (issue 7).

What must be shown, asserted on seeded runs of the four tune-* scenarios:
the tuned config's objective is within 5% of the grid optimum, reached
within the tuner's period bound; extra SLO violations stay within the
budget; the optimum differs between scenarios; a recurring signature is
served from the index with no exploration.
"""
from __future__ import annotations

import json
import math
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from control.cli import main
from control.errors import ConfigError
from control.scenario import Scenario, load_scenario
from control.tune import autotune as at
from control.tune import episode as tepisode
from control.tune import index as tindex
from control.tune import objective, offline
from control.tune import space as tspace
from control.tune.profiling import Sample, TenantCounters, window

SCEN = Path(__file__).resolve().parent.parent / "configs" / "scenarios"
SCENARIOS = ("tune-small-random", "tune-large-seq", "tune-gc-writes", "tune-training")
SEED = 1

needs_core = pytest.mark.needs_core


@dataclass
class Run:
    scenario: Scenario
    tuner: at.AutoTuner
    cmp: offline.Comparison
    index_path: Path

    @property
    def episode(self) -> tepisode.Episode:
        return self.tuner.episodes[0]


_RUNS: dict[str, Run] = {}


def converged(t: at.AutoTuner) -> bool:
    return bool(t.episodes) and t.episodes[0].converged_s is not None


def tuned_run(name: str, tmp_root: Path) -> Run:
    """Tune the scenario once per test session (the expensive part), then
    score default, tuned and the grid in fresh runs."""
    if name not in _RUNS:
        sc = load_scenario(SCEN / f"{name}.yaml")
        index_path = tmp_root / f"{name}-index.json"
        tuner = at.AutoTuner(offline.sim_dataplane(sc, SEED, 900), tspace.Space.of(),
                             tindex.Index(index_path))
        tuner.run(900, until=converged)
        prof = tuner.last_profile
        assert prof is not None
        c = offline.compare(sc, tuner.space, tuner.default, tuner.incumbent, tuner.active,
                       prof.period_s, tuner.writes, SEED)
        _RUNS[name] = Run(sc, tuner, c, index_path)
    return _RUNS[name]


@pytest.fixture(scope="module")
def tmp_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tune")


# ------------------------------------------------------- what must be shown ---

@needs_core
@pytest.mark.parametrize("name", SCENARIOS)
def test_tuned_within_5pct_of_the_grid_optimum(name: str, tmp_root: Path) -> None:
    r = tuned_run(name, tmp_root)
    ep, c = r.episode, r.cmp
    assert ep.converged_s is not None and not ep.reused
    ratio = c.tuned.objective / c.grid_best_score.objective
    assert ratio >= 0.95, (name, r.tuner.space.as_dict(r.tuner.incumbent), ratio,
                           r.tuner.space.as_dict(c.grid_best))
    # reached within a bounded number of periods ...
    assert ep.periods_to_converge is not None
    assert ep.periods_to_converge <= r.tuner.period_bound(), (ep.periods_to_converge,
                                                              r.tuner.period_bound())
    # ... spending at most the exploration cap on trials (+ one trial of rounding)
    frac = ep.explore_fraction()
    assert frac is not None and frac <= r.tuner.params.explore_cap + 0.05
    # extra SLO violations during exploration within the budget
    assert ep.extra_violations <= r.tuner.params.slo_budget
    # the tuned config meets every SLO over the evaluation
    assert c.tuned.slo_met


@needs_core
def test_the_optimum_differs_between_scenarios(tmp_root: Path) -> None:
    runs = {n: tuned_run(n, tmp_root) for n in SCENARIOS}
    bests = {n: r.cmp.grid_best for n, r in runs.items()}
    assert len(set(bests.values())) >= 3, bests
    # one scenario's optimum is >5% off on another: at least three scenarios
    # have an optimum that does not carry over (grid scores, knobs that are
    # inert in the other scenario taken at its default)
    def on(other: Run, cfg: tuple[int, ...]) -> float:
        active = other.tuner.active
        mapped = tuple(v if i in active else other.tuner.default[i] for i, v in enumerate(cfg))
        return other.cmp.grid[mapped].objective / max(s.objective for s in other.cmp.grid.values())
    specific = [n for n, r in runs.items()
                if any(on(o, r.cmp.grid_best) < 0.95 for m, o in runs.items() if m != n)]
    assert len(specific) >= 3, specific
    # (how far the default is from the optimum depends on the core's
    # defaults, which improve: `jbof tune sim` shows it, nothing asserts it)


@needs_core
@pytest.mark.parametrize("name", ["tune-training", "tune-gc-writes"])
def test_second_occurrence_converges_with_no_exploration(name: str, tmp_root: Path) -> None:
    first = tuned_run(name, tmp_root)
    stored = json.loads(first.index_path.read_text())
    dp = offline.sim_dataplane(first.scenario, SEED + 1, 60)
    drive = dp.drive
    assert first.episode.signature in stored["drives"][drive]
    again = at.AutoTuner(dp, tspace.Space.of(), tindex.Index(first.index_path))
    again.run(60, until=converged)
    ep = again.episodes[0]
    assert ep.signature == first.episode.signature
    assert ep.reused and ep.trials == 0 and again.trial_log == []
    assert again.incumbent == first.tuner.incumbent
    assert ep.periods_to_converge == math.ceil(again.params.profile_s / ep.period_s - 1e-9)


# ------------------------------------------------------------ guardrails ---

@needs_core
def test_guardrails_abort_prune_and_keep_the_budget(write_yaml: Callable[..., Path]) -> None:
    """A reader with a 500 us SLO next to a deep random writer on a fragmented
    drive: aggressive configs (loose band, big slots, cheap writes) break the
    SLO.  Those trials are aborted, configs even more aggressive are pruned
    without a trial, and the budget is never exceeded (here 4.5 of its 10
    extra violations are spent).  (The SLO was 1 ms until sched.c section 37
    kept this writer's pace beside the SLO tenant: since then no config tried
    breaks 1 ms, nothing is aborted.  The writer's IO was 64 KiB until
    sections 55 and 56 (section 56 stops a writer filling the write buffer
    whatever the reader's mean latency): since then one config tried breaks
    500 us and nothing is pruned; with 128 KiB writes 4 were aborted, 3 pruned;
    since sections 76-81, 2 aborted, 2 pruned.  Since sched.c section 272
    (one bucket beside the SLO tenant under its guards, scheduler-log 277)
    no config tried breaks 500 us with 128 KiB writes -- 8.85 extra
    violations spent, nothing aborted -- so the writer's IO is 512 KiB: 3
    aborted, 5 pruned.)"""
    sc = load_scenario(write_yaml("""
        device: {model: dct983, state: fragmented}
        tenants:
          - name: kv
            latency_slo: 500us
            workload: {rw: randread, bs: 4k, iodepth: 8}
          - name: ingest
            workload: {rw: randwrite, bs: 512k, iodepth: 32}
        """))
    params = at.TuneParams()
    tuner = at.AutoTuner(offline.sim_dataplane(sc, SEED, 400), tspace.Space.of(), tindex.Index(None), params)
    tuner.run(400, until=converged)
    ep = tuner.episodes[0]
    aborted = [tuple(t["knobs"].values()) for t in tuner.trial_log if t["aborted"]]
    assert ep.aborted >= 1 and aborted and ep.pruned >= 1
    assert 0 < ep.extra_violations <= params.slo_budget
    assert tuner.incumbent not in aborted
    # no trial ever ran a config at least as aggressive as one aborted before it
    seen: list[tuple[int, ...]] = []
    for t in tuner.trial_log:
        cfg = tuple(t["knobs"].values())
        if t["stage"].startswith("coordinate") or t["stage"] == "diagonal":
            assert not any(tuner.space.at_least_as_aggressive(cfg, a) for a in seen), cfg
        if t["aborted"]:
            seen.append(cfg)
    # the tuned config meets the SLO in a fresh run
    hz = offline.Evaluation(0.5, 1.0)
    assert offline.evaluate(sc, tuner.space, tuner.incumbent, SEED, hz).slo_met


@needs_core
def test_write_price_is_inert_without_writes(tmp_root: Path) -> None:
    r = tuned_run("tune-large-seq", tmp_root)
    space = r.tuner.space
    assert space.names[r.tuner.active[-1]] != "write_factor_max_x256"
    assert "write_factor_max_x256" not in [space.names[i] for i in r.tuner.active]
    hz = offline.Evaluation(0.5, 0.5)
    a = offline.evaluate(r.scenario, space, (700, 131072, 512), SEED, hz)
    b = offline.evaluate(r.scenario, space, (700, 131072, 2304), SEED, hz)
    assert a == b
    w = tuned_run("tune-gc-writes", tmp_root)
    assert "write_factor_max_x256" in [w.tuner.space.names[i] for i in w.tuner.active]


@needs_core
def test_mix_change_reprofiles_and_a_known_mix_is_reused(write_yaml: Callable[..., Path]) -> None:
    """A loader that is there for 40 s and away for 40 s: the tuner notices each
    change within a few periods, and the second time the first mix returns
    it applies the stored config without a trial."""
    path = write_yaml("""
        device: {model: dct983}
        tenants:
          - name: kv
            latency_slo: 2ms
            workload: {rw: randread, bs: 16k, iodepth: 8}
          - name: loader
            workload: {rw: read, bs: 1m, iodepth: 16}
            loop_phases: true
            phases:
              - {duration: 40s}
              - {duration: 40s, idle: true}
        """)
    sc = load_scenario(path)
    tuner = at.AutoTuner(offline.sim_dataplane(sc, SEED, 200), tspace.Space.of(["band_hi_pct"]),
                         tindex.Index(None), at.TuneParams(max_measure=1, halving_k=2))
    tuner.run(150)
    eps = tuner.episodes
    assert [e.reason for e in eps] == ["start", "mix", "mix", "mix"], [e.as_dict() for e in eps]
    a, b = eps[0].signature, eps[1].signature
    assert a != b and [e.signature for e in eps[2:]] == [a, b]
    # each mix seen before is served from the index: no trial
    for again, first in ((eps[2], eps[0]), (eps[3], eps[1])):
        assert again.reused and again.trials == 0 and again.best == first.best
    # noticed quickly: each new episode starts within 2 periods of the change
    for e, change in zip(eps[1:], (40.0, 80.0, 120.0)):
        assert change <= e.start_s <= change + 2 * eps[0].period_s + 1e-6, (e.start_s, change)


# ------------------------------------------------------------ components ---

def test_golden_section_finds_a_unimodal_peak_in_few_probes() -> None:
    line = [(v,) for v in range(5)]

    def probe(peak: int) -> tuple[tuple[int, ...], int]:
        cache: dict[tuple[int, ...], float] = {}

        def value(c: tuple[int, ...]) -> float:
            if c not in cache:
                cache[c] = -abs(c[0] - peak)
            return cache[c]
        return tspace.golden_section(line, value), len(cache)
    for peak in range(5):
        best, trials = probe(peak)
        assert best == (peak,) and trials <= 4
    # ties go to the conservative end unless the other side is better by > tol
    flat: Callable[[tuple[int, ...]], float] = lambda c: 100.0 + 0.1 * c[0]
    assert tspace.golden_section(line, flat, tol=0.01) == (0,)
    assert tspace.golden_section(line, flat, tol=0.01, conservative_first=False) == (4,)
    assert tspace.golden_section(line, flat) == (4,)


@needs_core
def test_score_penalises_slo_misses_and_starvation() -> None:
    from dataplane._jbof import lib

    def counters(read_ios: int = 0, read_bytes: int = 0, write_ios: int = 0,
                 write_bytes: int = 0, issued: int | None = None,
                 lat_ns: list[int] | None = None) -> TenantCounters:
        hist = np.zeros(lib.JBOF_HIST_BUCKETS, dtype=np.int64)
        for v in lat_ns or []:
            hist[lib.jbof_hist_index(v)] += 1
        done = read_ios + write_ios
        return TenantCounters(read_ios, read_bytes, write_ios, write_bytes,
                              done if issued is None else issued, 0, hist)

    def sample(now_s: float, **tenants: TenantCounters) -> Sample:
        return Sample(now_ns=round(now_s * 1e9), tenants=tenants)
    ok = window(sample(0), sample(1, kv=counters(1000, 4096000, lat_ns=[500_000] * 1000),
                                  bulk=counters(0, 0, 100, 100 << 20)))
    s = objective.score(ok, {"kv": 1_000_000})
    t = 1000 * (3584 + 4096) + 3 * (100 * 3584 + (100 << 20))
    assert s.throughput == pytest.approx(t) and s.objective == pytest.approx(t) and s.slo_met
    slow = window(sample(0), sample(1, kv=counters(1000, 4096000, lat_ns=[2_000_000] * 1000)))
    s2 = objective.score(slow, {"kv": 1_000_000})
    assert not s2.slo_met
    assert s2.objective == pytest.approx(s2.throughput / 2.0 ** 4, rel=0.07)  # p99 ~2 ms: 1/16
    starved = window(sample(0), sample(1, kv=counters(issued=4)))
    assert objective.score(starved, {"kv": 1_000_000}).objective == 0.0
    assert objective.period_violated(starved, {"kv": 1_000_000})


def test_space_fields_steps_and_dominance() -> None:
    sp = tspace.Space.of()
    cfg = (300, 131072, 2304)
    assert sp.fields(cfg) == {"ctl.band_hi_pct": 300, "ctl.band_lo_pct": 150, "slot_bytes": 131072,
                              "cost.write_factor_max_x256": 2304,
                              "cost.write_factor_init_x256": 2304}
    assert sp.size() == 45 and len(list(sp.grid(cfg, sp.active(False)))) == 15
    assert sp.step(cfg, 0, True) == (450, 131072, 2304)
    assert sp.step(cfg, 2, True) == (300, 131072, 1024)      # a lower price is more aggressive
    assert sp.step(cfg, 2, False) is None                    # already the highest
    assert sp.at_least_as_aggressive((700, 262144, 1024), cfg)
    assert not sp.at_least_as_aggressive((700, 65536, 1024), cfg)
    assert sp.including((333, 131072, 2304)).knobs[0].values == (200, 300, 333, 450, 700, 1200)
    with pytest.raises(ConfigError, match="not a knob"):
        tspace.Space.of(["band"])
    rate = tspace.Space.of(["rate_max_bps", "band_hi_pct"])
    assert rate.fields((2 << 30, 700)) == {"ctl.rate_max_cost_bps": 2 << 30, "ctl.band_hi_pct": 700,
                                           "ctl.band_lo_pct": 350}


@needs_core
def test_every_knob_applies_to_a_running_simulator(scenario_dir: Path) -> None:
    dp = offline.sim_dataplane(load_scenario(scenario_dir / "tune-gc-writes.yaml"), SEED, 5)
    sp = tspace.Space.of(list(tspace.KNOBS))
    tuner = at.AutoTuner(dp, sp, tindex.Index(None))
    assert tuner.space.size() >= sp.size()      # the defaults are candidates (added if not)
    assert tuner.default in set(tuner.space.grid())
    for cfg in (min(sp.grid()), max(sp.grid())):
        dp.apply(sp.fields(cfg))
        assert sp.read(dp.get_fields()) == cfg
        dp.advance(0.05)
    st = tuner.status()
    assert st["enabled"] and st["knobs"] == st["default"] and st["episode"] is None
    m = {(n, lab.get("knob", "")): v for n, lab, v in tuner.metric_samples()}
    assert m[("jbof_tune_trials_total", "")] == 0 and m[("jbof_tune_enabled", "")] == 1
    assert m[("jbof_tune_knob", "band_hi_pct")] == tuner.default[0]


def test_index_round_trip_and_bad_files(tmp_path: Path) -> None:
    p = tmp_path / "sub" / "index.json"
    idx = tindex.Index(p)
    idx.put("dct983", "be:4k:r100@steady", {"knobs": {"band_hi_pct": 450}, "objective": 1.0})
    again = tindex.Index(p)
    entry = again.get("dct983", "be:4k:r100@steady")
    assert entry is not None and entry["knobs"] == {"band_hi_pct": 450}
    assert again.get("dct983", "other") is None
    assert [f.name for f in p.parent.iterdir()] == ["index.json"]    # no temp file left
    p.write_text("{not json")
    with pytest.raises(ConfigError, match="not JSON") as e:
        tindex.Index(p)
    assert "\n" not in str(e.value)
    p.write_text(json.dumps({"version": 9, "drives": {}}))
    with pytest.raises(ConfigError, match="version 1"):
        tindex.Index(p)


# ------------------------------------------------------------------- CLI ---

@needs_core
def test_cli_sim_prints_one_json_document(tmp_path: Path) -> None:
    idx = tmp_path / "i.json"
    args = ["tune", "sim", str(SCEN / "tune-large-seq.yaml"), "--seed", "2", "--json",
            "--index", str(idx)]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    for side in ("default", "tuned", "grid_best"):
        assert set(doc[side]["knobs"]) == {"band_hi_pct", "slot_bytes", "write_factor_max_x256"}
        assert doc[side]["objective"] > 0
    assert doc["tuned"]["objective"] >= 0.95 * doc["grid_best"]["objective"]
    assert isinstance(doc["periods_to_converge"], int)
    assert doc["exploration_slo_violations"] <= doc["slo_budget"]
    assert doc["grid_best"]["grid_points"] == 15 and not doc["reused"]
    # the same mix again with the same index: no exploration
    res2 = CliRunner().invoke(main, args[:-2] + ["--index", str(idx), "--no-grid"])
    doc2 = json.loads(res2.output)
    assert doc2["reused"] and doc2["trials"] == 0
    assert doc2["tuned"]["knobs"] == doc["tuned"]["knobs"]
    res3 = CliRunner().invoke(main, ["tune", "index", "--index", str(idx)])
    assert res3.exit_code == 0 and "be:1m:r100" in res3.output


def test_cli_lists_the_knobs() -> None:
    res = CliRunner().invoke(main, ["tune", "knobs"])
    assert res.exit_code == 0
    for k in tspace.KNOBS.values():
        assert k.name in res.output and k.doc in res.output


def test_cli_errors_are_one_line(tmp_path: Path) -> None:
    r = CliRunner()
    bad = r.invoke(main, ["tune", "sim", "x.yaml", "--knobs", "band"])
    assert bad.exit_code != 0 and "not a list of distinct knobs" in bad.output
    gone = tmp_path / "no.sock"
    for args in (["tune", "status"], ["tune", "enable", "--drive", "ssd0"],
                 ["tune", "disable", "--drive", "ssd0"]):
        res = r.invoke(main, args + ["--socket", str(gone)])
        assert res.exit_code == 1
        assert res.output.strip().count("\n") == 0
        assert f"no admin socket at {gone}" in res.output
    (tmp_path / "i.json").write_text("[]")
    res = r.invoke(main, ["tune", "index", "--index", str(tmp_path / "i.json")])
    assert res.exit_code == 1 and "version 1 tune index" in res.output
    res = r.invoke(main, ["tune", "index", "--index", str(tmp_path / "none.json")])
    assert res.exit_code == 0 and "no entries" in res.output


def test_cli_live_commands_speak_the_admin_protocol(tmp_path: Path) -> None:
    """A stand-in daemon on a unix socket (control/daemon/admin.py's protocol): what
    the tuner commands send, and how they show results and errors -- e.g. a
    daemon without a tuner answers unknown_op."""
    path = tmp_path / "admin.sock"
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(str(path))
    srv.listen(4)
    seen: list[dict[str, Any]] = []

    def serve() -> None:
        for _ in range(4):
            conn, _addr = srv.accept()
            with conn:
                req = json.loads(conn.makefile().readline())
                seen.append(req)
                args = req["args"]
                if req["op"] == "tune.status":
                    reply = {"ok": True, "result": {"ssd0": {"enabled": True}}}
                elif args.get("drive") == "ssd0":
                    reply = {"ok": True, "result": {"ssd0": {"enabled": args["enabled"]}}}
                elif args.get("drive") == "old":
                    reply = {"ok": False, "error": {"code": "unknown_op",
                                                    "message": "unknown op 'tune.set'"}}
                else:
                    reply = {"ok": False, "error": {"code": "not_found",
                                                    "message": f"no drive {args['drive']!r}"}}
                conn.sendall(json.dumps({"v": 1, "id": req.get("id"), **reply}).encode() + b"\n")
    th = threading.Thread(target=serve, daemon=True)
    th.start()
    r = CliRunner()
    res = r.invoke(main, ["tune", "status", "--json", "--socket", str(path)])
    assert res.exit_code == 0 and json.loads(res.output) == {"ssd0": {"enabled": True}}
    res = r.invoke(main, ["tune", "disable", "--drive", "ssd0", "--json", "--socket", str(path)])
    assert res.exit_code == 0 and json.loads(res.output) == {"ssd0": {"enabled": False}}
    res = r.invoke(main, ["tune", "enable", "--drive", "ssd9", "--socket", str(path)])
    assert res.exit_code == 1 and "no drive 'ssd9'" in res.output
    res = r.invoke(main, ["tune", "enable", "--drive", "old", "--socket", str(path)])
    assert res.exit_code == 1 and "unknown op 'tune.set'" in res.output
    th.join(5)
    srv.close()
    assert [(q["v"], q["op"], q["args"]) for q in seen] == [
        (1, "tune.status", {}), (1, "tune.set", {"drive": "ssd0", "enabled": False}),
        (1, "tune.set", {"drive": "ssd9", "enabled": True}),
        (1, "tune.set", {"drive": "old", "enabled": True})]


def test_profile_survives_a_tenant_added_mid_profile() -> None:
    """Tenants come and go live (borrowers added per job): a tenant missing from the
    first samples must not fail the profile (it did: KeyError, tuner disabled)."""
    import numpy as np

    from control.tune.profiling import Sample, TenantCounters, profile
    hist = np.zeros(8, dtype=np.int64)

    def c(n: int) -> TenantCounters:
        return TenantCounters(read_ios=n, read_bytes=n << 20, write_ios=0, write_bytes=0,
                              issued=n, slo_violations=0, hist=hist)
    samples = [Sample(now_ns=i * 100_000_000,
                      tenants={"a": c(100 * i), **({"new": c(100 * (i - 5))} if i >= 5 else {})})
               for i in range(20)]
    p = profile(samples, {"a": 0, "new": 0})
    assert "new" in p.window.tenants
