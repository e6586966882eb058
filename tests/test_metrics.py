"""Prometheus metrics (control/daemon/metrics.py): naming conventions, numbers that
match fio's and the C histogram, live tenant changes, the Grafana dashboard."""
from __future__ import annotations

import json
import random
import re
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from control.daemon.metrics import JbofCollector, quantile

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.needs_core

CFG = """\
drives: [{name: d0, backend: emulated, model: dct983, size: 256MiB}]
tenants:
  - {name: a, size: 64MiB, latency_slo: 50us}
  - {name: b, size: 64MiB, weight: 3, limit: 100MiB/s}
"""


def scrape(url: str) -> dict[str, Any]:
    text = urllib.request.urlopen(url, timeout=10).read().decode()
    return {f.name: f for f in text_string_to_metric_families(text)}, text


def value(fams: dict[str, Any], sample: str, **labels: str) -> float:
    for fam in fams.values():
        for s in fam.samples:
            if s.name == sample and all(s.labels.get(k) == v for k, v in labels.items()):
                return float(s.value)
    raise KeyError((sample, labels))


def fio(uri: str, out: Path, *args: str) -> dict[str, Any]:
    from control_helpers import need
    need("fio")
    subprocess.run(["fio", "--name=job", "--ioengine=nbd", f"--uri={uri}", *args,
                    "--output-format=json", f"--output={out}"], check=True, timeout=60,
                   capture_output=True)
    return json.loads(out.read_text())["jobs"][0]


def test_names_units_labels_and_numbers_match_fio() -> None:
    from control_helpers import daemon
    with daemon(CFG, metrics=True) as d:
        job = fio(f"nbd+unix:///a?socket={d.nbd}", d.dir / "fio.json", "--rw=randrw",
                  "--bs=4k", "--size=8m", "--iodepth=8", "--randseed=1")
        fams, text = scrape(d.metrics_url)

        # conventions: one prefix, counters end in _total, labels tenant/drive only
        for name, fam in fams.items():
            assert name.startswith("jbof_"), name
            for s in fam.samples:
                assert set(s.labels) <= {"tenant", "drive", "le"}, s
                if fam.type == "counter" and not s.name.endswith("_created"):
                    assert s.name.endswith("_total"), s.name
        for line in text.splitlines():
            if line.startswith("# TYPE") and line.endswith("counter"):
                assert line.split()[2].endswith("_total"), line
        assert not any(re.search(r"_(ms|us|ns|millis|micros|kb|mb)\b", n) for n in fams)

        # the same IO counts and bytes as fio (exact: fio ran a fixed amount)
        r, w = job["read"], job["write"]
        assert r["total_ios"] + w["total_ios"] == 2048
        assert value(fams, "jbof_tenant_read_ios_total", tenant="a") == r["total_ios"]
        assert value(fams, "jbof_tenant_write_ios_total", tenant="a") == w["total_ios"]
        assert value(fams, "jbof_tenant_read_bytes_total", tenant="a") == r["io_bytes"]
        assert value(fams, "jbof_tenant_write_bytes_total", tenant="a") == w["io_bytes"]
        assert value(fams, "jbof_tenant_read_ios_total", tenant="b") == 0

        # latency: the histogram counts every IO; the server sees less than fio end to end
        count = value(fams, "jbof_tenant_latency_seconds_count", tenant="a")
        assert count == 2048
        assert value(fams, "jbof_tenant_latency_seconds_bucket", tenant="a", le="+Inf") == count
        les = sorted((float(s.labels["le"]), s.value)
                     for s in fams["jbof_tenant_latency_seconds"].samples
                     if s.name.endswith("_bucket") and s.labels["tenant"] == "a")
        assert all(a[1] <= b[1] for a, b in zip(les, les[1:]))
        mean_s = value(fams, "jbof_tenant_latency_seconds_sum", tenant="a") / count
        fio_mean_s = (r["lat_ns"]["mean"] * r["total_ios"] + w["lat_ns"]["mean"] * w["total_ios"]) \
            / 2048 / 1e9
        assert 0 < mean_s <= fio_mean_s * 1.1, (mean_s, fio_mean_s)
        # the bucket holding the C p50 has at least half the IOs at or below it
        p50_s = d.engine.tenant_latency("a")["p50"] / 1e9
        above = [c for le, c in les if le >= p50_s * 1.04]
        assert above and above[0] >= count / 2

        # SLO violations (50us target on an ~85us drive) and settings, base units
        assert value(fams, "jbof_tenant_slo_violations_total", tenant="a") > 0
        assert value(fams, "jbof_tenant_latency_slo_seconds", tenant="a") == pytest.approx(50e-6)
        assert value(fams, "jbof_tenant_limit_bytes_per_second", tenant="b") == 100 * 2**20
        assert value(fams, "jbof_tenant_weight", tenant="b") == 3
        assert value(fams, "jbof_tenant_class", tenant="a") == 0
        assert value(fams, "jbof_drive_completed_ios_total", drive="d0") == 2048
        assert value(fams, "jbof_drive_write_cost_factor", drive="d0") >= 1
        # the only tenant with IO has an SLO: qos's write pace (sched.c section 210) never holds beside it
        assert value(fams, "jbof_drive_write_pace_bytes_per_second", drive="d0") == 0
        assert value(fams, "jbof_drive_dispatch_rate_bytes_per_second", drive="d0") > 0
        assert 0 < value(fams, "jbof_drive_band_high_seconds", drive="d0") < 1
        assert value(fams, "jbof_drive_size_bytes", drive="d0") == 256 * 2**20
        assert value(fams, "jbof_requests_total") >= 2048


def test_tenants_added_and_removed_live_appear_and_vanish() -> None:
    from control_helpers import daemon
    with daemon(CFG, metrics=True) as d, d.client() as c:
        c.call("tenant.add", name="new", size="16MiB")
        fams, _ = scrape(d.metrics_url)
        assert value(fams, "jbof_tenant_weight", tenant="new", drive="d0") == 1
        c.call("tenant.remove", name="b")
        fams, text = scrape(d.metrics_url)
        assert 'tenant="b"' not in text and 'tenant="new"' in text


def test_write_pace_gauge_reports_the_schedulers_pace() -> None:
    """The pace gauge is the C stat write_pace_cost_bps as is (cost-bytes/s, 0 = off).
    Whether and when the pace holds is tested in C (test_wj_pace_ends, test_wj_pace_holds);
    here the daemon's drive stats are made to carry a pace (37.5 MB/s) and the scrape must
    show that number on that drive, not 0 and not another field's."""
    import yaml

    from control.config import parse_config
    from control_helpers import daemon

    class Paced:
        def __init__(self, engine: Any) -> None:
            self._e = engine

        def __getattr__(self, name: str) -> Any:
            return getattr(self._e, name)

        def drive_stats(self, name: str) -> Any:
            d = self._e.drive_stats(name)
            d["sched"] = dict(d["sched"], write_pace_cost_bps=37_500_000)
            return d

    cfg = parse_config(yaml.safe_load(CFG), "c")
    with daemon(CFG, metrics=True) as d:
        fams = {f.name: f for f in JbofCollector(Paced(d.engine), lambda: cfg).collect()}
        assert value(fams, "jbof_drive_write_pace_bytes_per_second", drive="d0") == 37_500_000
        # the unpatched daemon: nothing written beside the SLO tenant, no pace
        fams, _ = scrape(d.metrics_url)
        assert value(fams, "jbof_drive_write_pace_bytes_per_second", drive="d0") == 0


def test_a_failing_scrape_does_not_break_the_server(caplog: pytest.LogCaptureFixture) -> None:
    class Broken:
        def tenant_stats(self, name: str) -> Any:
            raise RuntimeError("boom")

        def stats(self) -> Any:
            raise RuntimeError("boom")

    import yaml

    from control.config import parse_config
    cfg = parse_config(yaml.safe_load(CFG), "c")
    assert list(JbofCollector(Broken(), lambda: cfg).collect()) == []
    assert "metrics scrape failed" in caplog.text


def test_quantile_matches_the_c_histogram() -> None:
    from dataplane._jbof import ffi, lib

    from control.daemon.metrics import hist_pairs
    rng = random.Random(7)
    for n in (1, 2, 10, 1000):
        h = ffi.new("jbof_hist *")
        lib.jbof_hist_reset(h)
        for _ in range(n):
            lib.jbof_hist_record(h, int(rng.lognormvariate(11, 1.5)))
        pairs = hist_pairs(list(h.buckets))
        out = ffi.new("uint64_t *")
        for q in (0.0, 0.5, 0.9, 0.99, 0.999, 1.0):
            assert lib.jbof_hist_quantile(h, q, out) == 0
            assert quantile(pairs, q, int(h.max_ns)) == int(out[0]), (n, q)


def test_grafana_dashboard_uses_only_exported_metrics() -> None:
    from control_helpers import daemon
    dash = json.loads((ROOT / "configs" / "grafana-dashboard.json").read_text())
    exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
    exprs += [v["definition"] for v in dash["templating"]["list"] if "definition" in v]
    used = {m for e in exprs for m in re.findall(r"\bjbof_[a-z_]+", e)}
    used -= {m for m in used if m.startswith("jbof_planner_")}   # with forecast: below
    assert len(used) >= 20
    with daemon(CFG, metrics=True) as d:
        _fams, text = scrape(d.metrics_url)
    exported = {line.split("{")[0].split()[0] for line in text.splitlines()
                if line.startswith("jbof_")}
    assert used <= exported, used - exported
    titles = " ".join(p["title"] for p in dash["panels"]).lower()
    for word in ("iops", "throughput", "latency", "queue", "throttled", "slo", "controller",
                 "dispatch", "write cost", "in-flight"):
        assert word in titles, word


def test_grafana_planner_row_uses_exported_planner_metrics() -> None:
    """The lending planner's row: every expression names jbof_planner_* metrics a
    daemon with a forecast: section exports, and README documents them."""
    from control_helpers import daemon, short_tmp
    dash = json.loads((ROOT / "configs" / "grafana-dashboard.json").read_text())
    panels = dash["panels"]
    row = next(i for i, p in enumerate(panels) if p["type"] == "row"
               and "planner" in p["title"].lower())
    mine = [p for p in panels[row + 1:] if p["type"] != "row"]
    assert len(mine) >= 5
    used = {m for p in mine for t in p["targets"]
            for m in re.findall(r"\bjbof_[a-z_]+", t["expr"])}
    for want in ("lent_bytes_per_second", "headroom_bytes_per_second",
                 "borrower_limit_bytes_per_second", "coverage_ratio", "coverage_target_ratio",
                 "fallback", "ticks_total", "tick_errors_total"):
        assert "jbof_planner_" + want in used, want
    sock = short_tmp() / "f.sock"
    cfg = CFG + f"""  - {{name: s, size: 32MiB, class: scavenger}}
  - {{name: o, size: 32MiB, reserve: 100MiB/s}}
forecast: {{socket: {sock}, capacity: 500MiB/s, tick: 20ms, calibration: {{sched: [0.0]}}}}
"""
    with daemon(cfg, metrics=True) as d:
        time.sleep(0.1)
        _fams, text = scrape(d.metrics_url)
    exported = {line.split("{")[0].split()[0] for line in text.splitlines()
                if line.startswith("jbof_planner_")}
    assert used <= exported, used - exported
    readme = (ROOT / "README.md").read_text()
    for name in exported:
        assert f"`{name}`" in readme, name


def test_readme_documents_every_metric() -> None:
    from control_helpers import daemon
    text = (ROOT / "README.md").read_text()
    doc = text[text.index("## Operating the daemon"):]
    doc = doc[:doc.index("\n## ", 1)]
    with daemon(CFG, metrics=True) as d:
        fams, _text = scrape(d.metrics_url)
    for fam in fams.values():
        name = fam.name + ("_total" if fam.type == "counter" else "")
        assert f"`{name}`" in doc, name
