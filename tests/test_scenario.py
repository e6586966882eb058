"""control.scenario: every shipped scenario loads; bad input gives one line naming file and key."""
from __future__ import annotations

from pathlib import Path

import pytest

from control.errors import ConfigError
from control.scenario import (
    CLASSES,
    POLICIES,
    RW_MODES,
    SECTIONS,
    load_scenario,
    parse_scenario,
    parse_tenants,
    parse_workload,
    schema_text,
)

GOOD = """
name: t
device: {model: dct983}
duration: 2s
seed: 7
tenants:
  - name: a
    latency_slo: 500us
    workload: {rw: randread, bs: 4k, iodepth: 32}
  - name: b
    weight: 2
    limit: 1GiB/s
    workload: {rw: write, bs: 128k, iodepth: 32}
"""


def test_good_scenario_parses(write_yaml):
    sc = load_scenario(write_yaml(GOOD))
    assert sc.name == "t" and sc.seed == 7 and sc.duration_ns == 2 * 10**9
    a, b = sc.tenants
    assert a.klass == "latency" and a.latency_slo_ns == 500_000
    assert b.klass == "best-effort" and b.weight == 2 and b.limit_bps == 1 << 30
    (pa,) = a.workload.phases
    assert pa.rw == "randread" and pa.bssplit == ((4096, 100),) and pa.iodepth == 32
    assert not a.workload.open_loop


def test_defaults_follow_fio(write_yaml):
    sc = load_scenario(write_yaml("tenants: [{name: x, workload: {}}]", "my-file.yaml"))
    assert sc.name == "my-file" and sc.seed == 1 and sc.duration_ns == 5 * 10**9
    assert sc.device.model == "dct983" and sc.device.state is None and sc.policy is None
    (p,) = sc.tenants[0].workload.phases
    assert (p.rw, p.bssplit, p.iodepth, p.rwmixread) == ("read", ((4096, 100),), 1, 50)
    assert sc.tenants[0].klass == "best-effort" and sc.tenants[0].weight == 1


def test_class_defaults():
    ts = parse_tenants([
        {"name": "l", "latency_slo": "1ms", "workload": {}},
        {"name": "r", "reserve": "100MiB/s", "workload": {}},
        {"name": "s", "class": "scavenger", "workload": {}},
    ], "x")
    assert [t.klass for t in ts] == ["latency", "reserved", "scavenger"]


def test_bssplit_forms_agree():
    want = ((4096, 50), (65536, 50))
    for v in ("4k/50:64k/50", ["4k/50", "64k/50"], [{"bs": "4k", "pct": 50}, {"bs": "64k", "pct": 50}]):
        (p,) = parse_workload({"bssplit": v}).phases
        assert p.bssplit == want


def test_phases_inherit_and_override():
    wl = parse_workload({"rw": "randread", "bs": "4k", "iodepth": 8, "rate": "100MiB/s"},
                        phases=[{"duration": "1s"}, {"duration": "500ms", "bs": "64k", "rate_iops": "1k"},
                                {"duration": "1s", "idle": True}], loop=True)
    p0, p1, p2 = wl.phases
    assert p0.bssplit == ((4096, 100),) and p0.rate_bps == 100 << 20 and p0.iodepth == 8
    assert p1.bssplit == ((65536, 100),) and p1.rate_bps == 0 and p1.rate_iops == 1000
    assert p2.idle and wl.loop and p1.duration_ns == 500_000_000
    assert wl.open_loop


def test_rwmixwrite_is_complement():
    (p,) = parse_workload({"rw": "randrw", "rwmixwrite": 30}).phases
    assert p.rwmixread == 70


def test_device_shorthand_and_state():
    sc = parse_scenario({"device": "dct983", "tenants": [{"name": "a", "workload": {}}]})
    assert sc.device.model == "dct983"
    sc = parse_scenario({"device": {"state": "fragmented"}, "tenants": [{"name": "a", "workload": {}}]})
    assert sc.device.state == "fragmented"


def test_daemon_tenants_need_no_workload():
    (t,) = parse_tenants([{"name": "a", "weight": 3}], "serve.yaml", require_workload=False)
    assert t.workload is None and t.weight == 3


def test_names_agree_with_the_c_core():
    pytest.importorskip("dataplane._jbof")
    from dataplane.sim import CLASS_CODES, RW_CODES, policy_names
    assert policy_names() == POLICIES
    assert set(RW_CODES) >= set(RW_MODES)
    assert tuple(CLASS_CODES) == CLASSES


def test_schema_documents_every_key():
    text = schema_text()
    for _title, keys in SECTIONS:
        for name in keys:
            assert f"  {name} " in text


from control.lending.anticipation import is_cluster_scenario  # noqa: E402

# training-cluster scenarios (a `cluster:` section) have their own schema and
# loader (control.lending.anticipation, tests/test_anticipation.py)
SHIPPED = sorted(p for p in (Path(__file__).resolve().parent.parent / "configs" / "scenarios").glob("*.yaml")
                 if not is_cluster_scenario(p))


def test_the_expected_scenarios_ship():
    names = {p.stem for p in SHIPPED}
    assert {"read-vs-write", "mixed-sizes", "latency-vs-hogs", "weights", "churn",
            "fragmented", "training", "reservations"} <= names


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_scenarios_load(path):
    sc = load_scenario(path)
    assert sc.name == path.stem
    assert sc.tenants and 1 <= sc.duration_s <= 30


# ---- bad input: (yaml text, key path in the message, what the message says) ---------------

T = "tenants:\n  - name: a\n    workload: {rw: randread}\n"   # a valid tenant list to append to

BAD = [
    ("unknown-top", "colour: red\n" + T, "colour", "unknown key"),
    ("typo-suggests", "tenants:\n  - name: a\n    workload: {iodpeth: 4}\n", "tenants[0].workload.iodpeth",
     "did you mean 'iodepth'"),
    ("bs-not-size", "tenants:\n  - name: a\n    workload: {bs: 4x}\n", "tenants[0].workload.bs",
     "'4x' is not a size (examples: 4k, 128KiB, 1MiB)"),
    ("bs-not-sector", "tenants:\n  - name: a\n    workload: {bs: 1000}\n", "tenants[0].workload.bs",
     "not a multiple of 512 bytes"),
    ("bs-too-small", "tenants:\n  - name: a\n    workload: {bs: 256}\n", "tenants[0].workload.bs",
     "256 is out of range (allowed: 512B..16MiB)"),
    ("negative-rate", "tenants:\n  - name: a\n    workload: {rate: -5MiB/s}\n", "tenants[0].workload.rate",
     "negative"),
    ("negative-limit", "tenants:\n  - name: a\n    limit: -1\n    workload: {}\n", "tenants[0].limit",
     "negative"),
    ("rate-garbage", "tenants:\n  - name: a\n    reserve: lots\n    workload: {}\n", "tenants[0].reserve",
     "is not a rate"),
    ("unknown-policy", "policy: fastest\n" + T, "policy", "allowed: fifo, rr, token-bucket"),
    ("unknown-rw", "tenants:\n  - name: a\n    workload: {rw: scramble}\n", "tenants[0].workload.rw",
     "allowed: read, write"),
    ("unknown-class", "tenants:\n  - name: a\n    class: gold\n    workload: {}\n", "tenants[0].class",
     "allowed: latency, reserved"),
    ("unknown-state", "device: {state: dirty}\n" + T, "device.state", "allowed: clean, fragmented"),
    ("duplicate-names", "tenants:\n  - {name: a, workload: {}}\n  - {name: a, workload: {}}\n",
     "tenants[1].name", "already the name of tenants[0]"),
    ("duplicate-yaml-key", "seed: 1\nseed: 2\n" + T, "line 2", "duplicate key 'seed'"),
    ("bad-yaml", "tenants: [\n", "line", "bad YAML"),
    ("not-mapping", "- just\n- a list\n", "", "expected a mapping"),
    ("empty-file", "", "", "is empty"),
    ("tenants-missing", "seed: 1\n", "tenants", "is required"),
    ("tenants-not-list", "tenants: {name: a}\n", "tenants", "expected a list of tenants"),
    ("tenant-name-missing", "tenants:\n  - workload: {}\n", "tenants[0].name", "is required"),
    ("workload-missing", "tenants:\n  - name: a\n", "tenants[0].workload", "is required"),
    ("workload-not-mapping", "tenants:\n  - name: a\n    workload: randread\n", "tenants[0].workload",
     "expected a mapping"),
    ("bssplit-sum", "tenants:\n  - name: a\n    workload: {bssplit: '4k/50:64k/40'}\n",
     "tenants[0].workload.bssplit", "sum to 90, not 100"),
    ("bssplit-entry", "tenants:\n  - name: a\n    workload: {bssplit: '4k-50'}\n",
     "tenants[0].workload.bssplit", "not SIZE/PERCENT"),
    ("bs-and-bssplit", "tenants:\n  - name: a\n    workload: {bs: 4k, bssplit: '4k/100'}\n",
     "tenants[0].workload.bssplit", "not both"),
    ("iodepth-zero", "tenants:\n  - name: a\n    workload: {iodepth: 0}\n", "tenants[0].workload.iodepth",
     "out of range (allowed: 1..65536)"),
    ("iodepth-text", "tenants:\n  - name: a\n    workload: {iodepth: deep}\n", "tenants[0].workload.iodepth",
     "is not an integer"),
    ("weight-bool", "tenants:\n  - name: a\n    weight: yes\n    workload: {}\n", "tenants[0].weight",
     "is not an integer"),
    ("duration-zero", "duration: 0s\n" + T, "duration", "longer than zero"),
    ("duration-garbage", "duration: soon\n" + T, "duration", "is not a duration"),
    ("thinktime-bare", "tenants:\n  - name: a\n    workload: {thinktime: 50}\n", "tenants[0].workload.thinktime",
     "50 has no unit; write a duration such as 50ms or 5s"),
    ("bare-limit", "tenants:\n  - name: a\n    limit: 100\n    workload: {}\n", "tenants[0].limit",
     "100 has no unit; write a rate such as 100MiB/s or 1GB/s"),
    ("bare-slo", "tenants:\n  - name: a\n    latency_slo: 2\n    workload: {}\n",
     "tenants[0].latency_slo", "2 has no unit; write a duration such as 2ms or 5s"),
    ("bare-duration", "duration: 5\ntenants:\n  - name: a\n    workload: {}\n", "duration",
     "5 has no unit; write a duration such as 5ms or 5s"),
    ("bare-wl-size", "tenants:\n  - name: a\n    workload: {size: 1000000}\n",
     "tenants[0].workload.size", "1000000 has no unit; write a size such as 1000000MiB or 4KiB"),
    ("rwmix-over", "tenants:\n  - name: a\n    workload: {rw: randrw, rwmixread: 120}\n",
     "tenants[0].workload.rwmixread", "above 100%"),
    ("reserve-over-limit", "tenants:\n  - name: a\n    reserve: 2GiB/s\n    limit: 1GiB/s\n    workload: {}\n",
     "tenants[0].reserve", "above limit"),
    ("latency-class-no-slo", "tenants:\n  - name: a\n    class: latency\n    workload: {}\n",
     "tenants[0].class", "needs latency_slo"),
    ("phase-unknown-key", "tenants:\n  - name: a\n    workload: {}\n    phases: [{duration: 1s, startdelay: 1s}]\n",
     "tenants[0].phases[0].startdelay", "unknown key"),
    ("phase-needs-duration", "tenants:\n  - name: a\n    workload: {}\n    phases: [{bs: 4k}, {bs: 8k}]\n",
     "tenants[0].phases[0].duration", "is required"),
    ("loop-needs-phases", "tenants:\n  - name: a\n    loop_phases: true\n    workload: {}\n",
     "tenants[0].loop_phases", "needs a phases list"),
    ("too-many-phases", "tenants:\n  - name: a\n    workload: {}\n    phases: [" + ", ".join(["{duration: 1s}"] * 17)
     + "]\n", "tenants[0].phases", "allowed: 1..16"),
    ("bad-name", "tenants:\n  - name: 'a b'\n    workload: {}\n", "tenants[0].name", "is not a name"),
    ("null-value", "seed:\n" + T, "seed", "has no value"),
    ("non-string-key", "tenants:\n  - name: a\n    workload: {1: 2}\n", "tenants[0].workload.1", "unknown key"),
    ("size-below-bs", "tenants:\n  - name: a\n    workload: {size: 8k, bs: 64k}\n", "tenants[0].workload.size",
     "smaller than the largest block size 64KiB"),
    ("rate-too-high", "tenants:\n  - name: a\n    workload: {rate: 2TiB/s}\n", "tenants[0].workload.rate",
     "out of range"),
    ("size-too-small", "tenants:\n  - name: a\n    workload: {size: 1k}\n", "tenants[0].workload.size",
     "out of range"),
]


@pytest.mark.parametrize("text,path,msg", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_scenario_is_one_line(write_yaml, text, path, msg):
    f = write_yaml(text)
    with pytest.raises(ConfigError) as e:
        load_scenario(f)
    line = str(e.value)
    assert "\n" not in line
    assert line.startswith(f"{f}: ")
    assert path in line and msg in line, line


def test_unknown_model(write_yaml):
    pytest.importorskip("dataplane._jbof")
    f = write_yaml("device: {model: floppy}\n" + T)
    with pytest.raises(ConfigError, match=r"device\.model: 'floppy' is not a known model \(allowed: dct983"):
        load_scenario(f)


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="nope.yaml: no such file"):
        load_scenario(tmp_path / "nope.yaml")


def test_directory(tmp_path):
    with pytest.raises(ConfigError, match="is a directory"):
        load_scenario(tmp_path)


def test_not_utf8(tmp_path):
    f = tmp_path / "bin.yaml"
    f.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_scenario(f)


def test_bad_table_is_broad():
    assert len(BAD) >= 20
