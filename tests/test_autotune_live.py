"""Live autotuning (issue 7, control/tune/autotune_live.py): the tuner on a running
daemon.  In process: the tune: section of the config schema, the admin ops,
and the locked, never persisted path that applies and restores knobs.  As a
`jbof serve` subprocess under fio (nbd engine): trials happen while every IO
is served (no fio error, bytes move in every half second), `jbof tune
disable` puts the configured knobs back, trials never rewrite the config
file, and a finished search lands in the index and is reused with no trial.
"""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from control.daemon.admin import AdminError
from control.daemon.admin import Client as AdminClient

pytestmark = pytest.mark.needs_core
ROOT = Path(__file__).resolve().parent.parent
MIB = 1 << 20
KNOB_FIELDS = ("ctl.band_hi_pct", "ctl.band_lo_pct", "slot_bytes",
               "cost.write_factor_max_x256", "cost.write_factor_init_x256")


def jbof(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "control.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)


def wait_until(what: Callable[[], bool], timeout_s: float, every_s: float = 0.1,
               show: Callable[[], Any] = lambda: "") -> None:
    deadline = time.monotonic() + timeout_s
    while not what():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout_s}s: {show()}")
        time.sleep(every_s)


# ------------------------------------------------------------- the schema ---

def test_tune_section_defaults_agree_with_the_tuner_and_errors_are_one_line() -> None:
    from control.tune.autotune import TuneParams
    from control.tune.space import DEFAULT_KNOBS
    from control.config import ConfigError, parse_config, tune_settings
    from control.config_export import dump_yaml
    base = {"drives": [{"name": "d0", "backend": "memory", "size": "64MiB"},
                       {"name": "d1", "backend": "memory", "size": "64MiB", "policy": "gimbal"}]}
    assert tune_settings(parse_config(base, "c.yaml")) is None
    cfg = parse_config({**base, "tune": {}}, "c.yaml")
    got = tune_settings(cfg)
    p = TuneParams()
    assert got is not None and got["enabled"] == ("d0", "d1") and got["knobs"] == DEFAULT_KNOBS
    assert (got["period_s"], got["profile_s"], got["explore_cap"], got["slo_budget"],
            got["max_trials"]) == (p.base_period_s, p.profile_s, p.explore_cap, p.slo_budget,
                                   p.max_trials)
    # the section survives persistence as written
    again = parse_config(yaml.safe_load(dump_yaml(parse_config(
        {**base, "tune": {"enabled": ["d0"], "period": "100ms"}}, "c.yaml"))), "c.yaml")
    assert again.tune == {"enabled": ["d0"], "period": "100ms"}
    for tune, msg in (({"enabled": ["d9"]}, "tune.enabled: 'd9' is not a drive (have: d0, d1)"),
                      ({"period": "5ms"}, "tune.period: '5ms' is out of range"),
                      ({"knobs": ["band"]}, "tune.knobs: ['band'] is not a list of distinct knobs"),
                      ({"explore_cap": "0%"}, "tune.explore_cap: '0%' must be above 0%"),
                      ({"slo_budget": -1}, "tune.slo_budget: -1 is not a number"),
                      ({"trials": 3}, "tune.trials: unknown key")):
        with pytest.raises(ConfigError) as e:
            parse_config({**base, "tune": tune}, "c.yaml")
        assert str(e.value).startswith("c.yaml: " + msg), (str(e.value), msg)
        assert "\n" not in str(e.value)


def test_a_long_running_tuner_keeps_bounded_history_and_exact_counters() -> None:
    """A daemon runs for months: old episodes are dropped, their counters kept."""
    from control.tune.autotune import AutoTuner, TuneParams
    from control.tune.episode import Episode
    from control.tune.offline import sim_dataplane
    from control.scenario import load_scenario
    dp = sim_dataplane(load_scenario(ROOT / "configs" / "scenarios" / "tune-large-seq.yaml"), 1, 5)
    tuner = AutoTuner(dp, params=TuneParams(history=2))
    tuner.episodes += [Episode(start_s=0.0, signature=f"be:1m:r100@steady{i}", trials=3,
                               aborted=1, reused=i == 4) for i in range(5)]
    tuner.trial_log += [{"stage": "x"}] * 50
    tuner.run(0.0)               # starts an episode (which trims), then time is up
    assert len(tuner.episodes) == 2 and len(tuner.trial_log) == 20
    tot = tuner.totals()
    assert (tot["trials"], tot["aborted"], tot["reuses"], tot["searches"]) == (15, 5, 1, 5)
    m = {n: v for n, _labels, v in tuner.metric_samples()}
    assert m["jbof_tune_trials_total"] == 15 and m["jbof_tune_searches_total"] == 5


# ----------------------------------------------------------- in process ---

INPROC = """\
drives:
  - {{name: d0, backend: memory, size: 64MiB}}
  - {{name: d1, backend: memory, size: 64MiB, policy: gimbal}}
  - {{name: d2, backend: memory, size: 64MiB, band: 250us..1500us}}
tenants: [{{name: a, drive: d0}}, {{name: b, drive: d1}}, {{name: c, drive: d2}}]
tune: {{enabled: false, profile: 1s, index: {index}}}
"""


def fields(d: Any, drive: str) -> dict[str, int]:
    from control.tune.profiling import flatten_fields
    got = flatten_fields(d.engine.drive_cfg(drive))
    return {k: got[k] for k in KNOB_FIELDS}


def test_admin_ops_and_the_never_persisted_path(tmp_path: Path) -> None:
    """Knobs set by the tuner's path are in force but never saved; disabling,
    an operator's drive.set and the daemon stopping put the configured ones back."""
    from control_helpers import daemon
    with daemon(INPROC.format(index=tmp_path / "idx.json")) as d:
        ctl = d.plane.control
        configured = fields(d, "d0")
        file_before = d.config_path.read_bytes()
        with d.client() as c:
            st = c.call("tune.status")
            assert st["index"] == str(tmp_path / "idx.json")
            rows = {r["drive"]: r for r in st["drives"]}
            assert [rows[n]["state"] for n in ("d0", "d1", "d2")] == ["disabled"] * 3
            assert rows["d0"]["searched"] == ["band_hi_pct", "slot_bytes",
                                              "write_factor_max_x256"]
            assert rows["d2"]["searched"] == ["slot_bytes", "write_factor_max_x256"]  # fixed band
            assert "searched" not in rows["d1"]                      # gimbal: no tuner
            with pytest.raises(AdminError) as e:
                c.call("tune.set", drive="d1", enabled=True)
            assert e.value.code == "invalid" and "policy gimbal" in e.value.message
            with pytest.raises(AdminError) as e:
                c.call("tune.set", drive="d9", enabled=True)
            assert e.value.code == "not_found"
            with pytest.raises(AdminError) as e:
                c.call("tune.set", drive="d0", enabled="yes")
            assert e.value.code == "invalid" and "args.enabled" in e.value.message

            # the tuner's path (what LiveDataPlane.apply calls)
            trial = {"ctl.band_hi_pct": 700, "ctl.band_lo_pct": 350, "slot_bytes": 262144}
            assert ctl.set_tuned_fields("d0", trial, "qos")
            assert not ctl.set_tuned_fields("d1", trial, "qos")        # not a qos drive
            assert fields(d, "d0") == {**configured, **trial}
            assert c.call("drive.list")["drives"][0]["tuned"] == trial
            assert c.call("config.get")["config"]["drives"][0] == {
                "name": "d0", "backend": "memory", "size": "64MiB", "policy": "qos"}
            assert d.config_path.read_bytes() == file_before
            # disabling returns with the configured knobs in force
            res = c.call("tune.set", drive="d0", enabled=False)
            assert fields(d, "d0") == configured and res["knobs"] == res["configured"]
            assert res["persisted"] is None         # tune.enabled was already false

            # an operator's change: the configured knobs first, then the change
            assert ctl.set_tuned_fields("d0", trial, "qos")
            c.call("drive.set", name="d0", band="200%..400%")
            assert fields(d, "d0") == {**configured, "ctl.band_hi_pct": 400,
                                       "ctl.band_lo_pct": 200}
            assert ctl.tuned_fields("d0") == ({}, {})

            # enabling is saved to the state file (the operator asked), trials never are;
            # the operator's config file is never rewritten
            res = c.call("tune.set", drive="d0", enabled=True)
            assert res["enabled"] and res["persisted"] == str(d.state_path)
            assert d.saved().tune["enabled"] == ["d0"]
            assert d.config_path.read_bytes() == file_before
            # an idle drive is profiled, then waits for a mix: no search, no index entry
            wait_until(lambda: c.call("tune.status")["drives"][0]["state"] == "idle", 10)
            assert c.call("tune.status")["drives"][0]["trials_total"] == 0
        assert not (tmp_path / "idx.json").exists()
        now = fields(d, "d0")
        assert ctl.set_tuned_fields("d0", {"slot_bytes": 65536}, "qos")
        d.plane.close()                       # the daemon stopping
        assert fields(d, "d0") == now


def test_without_a_tune_section_the_ops_say_so_in_one_line() -> None:
    from control_helpers import daemon
    with daemon("drives: [{name: d0, backend: memory, size: 64MiB}]\n") as d:
        with d.client() as c:
            with pytest.raises(AdminError) as e:
                c.call("tune.status")
            assert e.value.code == "not_found" and "no tune: section" in e.value.message
        r = jbof("tune", "disable", "--drive", "d0", "--socket", d.admin)
        assert r.returncode == 1 and r.stderr.strip().count("\n") == 0
        assert "tuning is off" in r.stderr


# ------------------------------------------------------- jbof serve + fio ---

LIVE = """\
drives: [{{name: d0, backend: emulated, model: dct983, size: 1GiB}}]
tenants:
  - {{name: a, size: 256MiB, latency_slo: 20ms}}
  - {{name: b, size: 256MiB}}
tune: {{enabled: [d0], period: 100ms, profile: 1s, explore_cap: 100%, max_trials: {trials},
        index: {index}}}
"""


class Served:
    def __init__(self, tmp: Path, trials: int) -> None:
        self.tmp = tmp
        self.config = tmp / "c.yaml"
        self.index = tmp / "idx.json"
        self.admin = str(tmp / "admin.sock")
        self.nbd = str(tmp / "nbd.sock")
        self.config.write_text(LIVE.format(trials=trials, index=self.index))
        self._log = (tmp / "serve.log").open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "control.cli", "serve", "--config", str(self.config),
             "--unix", self.nbd, "--admin-socket", self.admin, "--metrics", "127.0.0.1:0",
             "--log-level", "warning"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=self._log, text=True)
        assert self.proc.stdout is not None
        first = self.proc.stdout.readline().strip()     # once NBD and admin accept
        if not first.startswith("nbd+unix://"):
            self.proc.kill()
            raise AssertionError(f"serve did not start: {first!r} "
                                 f"{(tmp / 'serve.log').read_text()}")
        self.metrics_url = str(self.call("ping")["metrics"])
        self.flow: list[int] = []           # bytes moved in each half second under fio
        self._watching = threading.Event()

    def call(self, op: str, **args: Any) -> Any:
        with AdminClient(self.admin, timeout=20) as c:
            return c.call(op, **args)

    def status(self) -> dict[str, Any]:
        return dict(self.call("tune.status")["drives"][0])

    def metrics(self) -> dict[tuple[str, str], float]:
        text = urllib.request.urlopen(self.metrics_url, timeout=10).read().decode()
        return {(s.name, s.labels.get("knob", "")): s.value
                for fam in text_string_to_metric_families(text) for s in fam.samples
                if s.name.startswith("jbof_tune_") and s.labels.get("drive") == "d0"}

    def fio(self, rw: str, runtime_s: float) -> subprocess.Popen[bytes]:
        """One fio process, one job per tenant (a: the SLO'd reader, b: rw)."""
        common = ["--ioengine=nbd", "--bs=64k", "--iodepth=8", "--size=64m",
                  "--time_based=1", f"--runtime={runtime_s}s"]
        return subprocess.Popen(
            ["fio", *common, "--output-format=json", f"--output={self.tmp / 'fio.json'}",
             "--name=a", f"--uri=nbd+unix:///a?socket={self.nbd}", "--rw=randread",
             "--name=b", f"--uri=nbd+unix:///b?socket={self.nbd}", f"--rw={rw}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def watch_flow(self) -> threading.Thread:
        """Record the bytes both tenants moved in every half second until stop_watch()."""
        def run() -> None:
            last = None
            while not self._watching.wait(0.5):
                snap = self.call("stats")
                total = sum(t["read_bytes"] + t["write_bytes"] for t in snap["tenants"])
                if last is not None:
                    self.flow.append(total - last)
                last = total
        th = threading.Thread(target=run, daemon=True)
        th.start()
        return th

    def fio_done(self, p: subprocess.Popen[bytes]) -> list[dict[str, Any]]:
        _out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        return list(json.loads((self.tmp / "fio.json").read_text())["jobs"])

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()

    def log(self) -> str:
        return (self.tmp / "serve.log").read_text()


@pytest.fixture
def serve_tuned() -> Iterator[Callable[[int], Served]]:
    from control_helpers import need, short_tmp
    need("fio")
    made: list[Served] = []
    tmp = short_tmp()

    def start(trials: int) -> Served:
        made.append(Served(tmp, trials))
        return made[-1]
    try:
        yield start
    finally:
        for s in made:
            s._watching.set()
            s.close()
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)


def test_trials_under_fio_then_disable_restores_and_the_file_is_never_rewritten(
        serve_tuned: Callable[[int], Served]) -> None:
    s = serve_tuned(30)
    file_before = s.config.read_bytes()
    r = jbof("tune", "status", "--socket", s.admin, "--json")
    assert r.returncode == 0, r.stderr
    st = json.loads(r.stdout)["drives"][0]
    configured = st["configured"]
    assert st["enabled"] and st["knobs"] == configured
    p = s.fio("randrw", 7)
    watcher = s.watch_flow()
    # profile (1 s), then trials: each one period of the incumbent, 2 settle periods
    # and 5-20 measured (100 ms periods, unless a phase is detected): ~1-2.5 s each
    wait_until(lambda: s.status()["trials_total"] >= 2, 12, 0.1, s.status)
    st = s.status()
    assert st["state"] == "exploring" and st["signature"]
    m = s.metrics()
    assert m[("jbof_tune_trials_total", "")] >= 2 and m[("jbof_tune_enabled", "")] == 1
    assert m[("jbof_tune_exploring", "")] == 1
    assert {k for (n, k) in m if n == "jbof_tune_knob"} == set(configured)
    assert s.config.read_bytes() == file_before           # trials never rewrite it
    assert not Path(f"{s.config}.prev").exists()

    r = jbof("tune", "disable", "--drive", "d0", "--json", "--socket", s.admin)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert not res["enabled"] and res["state"] == "disabled"
    assert res["knobs"] == configured == res["configured"]     # in force, read back
    assert s.call("drive.list")["drives"][0]["tuned"] == {}
    m = s.metrics()
    assert m[("jbof_tune_exploring", "")] == 0 and m[("jbof_tune_enabled", "")] == 0
    assert {k: m[("jbof_tune_knob", k)] for k in configured} == configured
    # the operator's disable is saved (tune.enabled) to the state file, never to the
    # config file; drives and tenants as configured
    from control.config import parse_config
    from control.state import state_config
    assert s.config.read_bytes() == file_before
    before = parse_config(yaml.safe_load(file_before))
    after = state_config(s.config.with_name(f"{s.config.stem}.state.yaml"))
    assert after.tune == {**(before.tune or {}), "enabled": []}
    # (plus each tenant's namespace offset, which the daemon records so that a restart
    # places it where it was: csrc/export.c section 2)
    import dataclasses
    assert [t.offset for t in after.tenants] == [0, 256 << 20]     # first fit, 256 MiB each
    placed = tuple(dataclasses.replace(t, offset=None) for t in after.tenants)
    assert (after.drives, placed) == (before.drives, before.tenants)

    jobs = s.fio_done(p)
    s._watching.set()
    watcher.join(5)
    assert [j["error"] for j in jobs] == [0, 0]
    assert all(j["read"]["io_bytes"] > 0 for j in jobs)
    assert len(s.flow) >= 6 and min(s.flow) > 0, s.flow     # served throughout
    assert "ERROR" not in s.log(), s.log()


def test_a_finished_search_is_indexed_and_reused_without_trials(
        serve_tuned: Callable[[int], Served]) -> None:
    s = serve_tuned(1)       # one trial, then halving between it and the incumbent
    # 24 s of IO: the first search and up to three off/on cycles finish while the mix
    # still runs, even on a loaded host (fio ending reads as a shift, a new search)
    p = s.fio("randread", 24)
    watcher = s.watch_flow()
    wait_until(lambda: s.status()["state"] == "exploiting", 8, 0.1, s.status)
    st = s.status()
    assert st["trials_total"] >= 1 and st["searches_total"] == 1, json.dumps(st)
    sig = st["signature"]
    idx = json.loads(s.index.read_text())
    assert idx["drives"]["d0"][sig]["knobs"] == st["best"] == st["knobs"]
    r = jbof("tune", "index", "--socket", s.admin)
    assert r.returncode == 0 and f"d0  {sig}  " in r.stdout, r.stdout + r.stderr

    # the same mix again (tuning off and on): profiled, found, applied, no trial.
    # The first profile starts with fio's first IO and may see the jobs' ramp-up as
    # a different mix (a phase, an idle tenant): the next profile then searches the
    # steady mix, indexes it, and the cycle after that must reuse it.  A search of a
    # signature already indexed is the failure.
    for cycle in range(3):
        trials, searches = st["trials_total"], st["searches_total"]
        assert json.loads(jbof("tune", "disable", "--drive", "d0", "--json", "--socket", s.admin
                               ).stdout)["knobs"] == st["configured"]
        assert json.loads(jbof("tune", "enable", "--drive", "d0", "--json", "--socket", s.admin
                               ).stdout)["enabled"]
        # profiling needs a few 100 ms periods; a loaded CI host is slower.  The status
        # is judged as first seen after the episode converged: a later shift may start
        # another search.
        seen: list[dict[str, Any]] = []
        wait_until(lambda: seen.append(s.status()) or seen[-1]["reuses_total"] == 1
                   or (seen[-1]["searches_total"] > searches and seen[-1]["state"] == "exploiting"),
                   10, 0.1, s.status)
        st = seen[-1]
        if st["reuses_total"] == 1:
            break
        assert st["signature"] != sig, f"indexed {sig} searched again: {json.dumps(st)}"
        print(f"cycle {cycle}: profiled {st['signature']} after {sig}: searched and indexed")
        sig = st["signature"]
        idx = json.loads(s.index.read_text())
    assert st["reuses_total"] == 1, json.dumps(st)
    assert st["state"] == "exploiting" and st["signature"] == sig, json.dumps(st)
    assert st["trials_total"] == trials and st["knobs"] == idx["drives"]["d0"][sig]["knobs"]
    assert s.metrics()[("jbof_tune_reuses_total", "")] == 1

    jobs = s.fio_done(p)
    s._watching.set()
    watcher.join(5)
    assert [j["error"] for j in jobs] == [0, 0]
    assert len(s.flow) >= 6 and min(s.flow) > 0, s.flow
    assert "ERROR" not in s.log(), s.log()


def test_a_reuse_counts_once_its_configuration_is_applied() -> None:
    """The live status is read while the tuner's thread runs: a reused episode whose configuration is
    not yet applied (converged_s unset) is not counted, so a status never shows reuses_total up with
    the state "exploring" and the old knobs in force (a CI run of the reuse test above saw that)."""
    from control.tune.autotune import AutoTuner
    from control.tune.episode import Episode
    from control.tune.offline import sim_dataplane
    from control.scenario import load_scenario
    dp = sim_dataplane(load_scenario(ROOT / "configs" / "scenarios" / "tune-large-seq.yaml"), 1, 5)
    tuner = AutoTuner(dp)
    ep = Episode(start_s=0.0, signature="be:1m:r100@steady", reused=True)
    tuner.episodes.append(ep)
    assert tuner.totals()["reuses"] == 0 and tuner.totals()["searches"] == 0
    ep.converged_s = 0.5
    assert tuner.totals()["reuses"] == 1 and tuner.totals()["searches"] == 0
    tuner.episodes.append(Episode(start_s=1.0, signature="be:1m:r100@steady", reused=True))
    assert tuner.totals()["reuses"] == 1     # the earlier reuse stays counted
