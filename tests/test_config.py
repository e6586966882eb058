"""The daemon config (control/config.py) and bad input everywhere: a table of
malformed configs (each one clear line naming file, key and what is allowed)
and a table of malformed admin requests sent to a live daemon (each a
structured error; the daemon keeps serving, nothing is persisted)."""
from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from control.cli import main
from control.config import Config, ConfigError, effective_controller, load_config, parse_config
from control.config_export import document, dump_yaml
from control.config_schema import CONTROLLER_KEYS, schema_text
from dataplane import extension_available

ROOT = Path(__file__).resolve().parent.parent

BASE = """\
drives:
  - {name: d0, backend: memory, size: 1GiB, capacity: 1GiB/s}
  - {name: e0, backend: emulated, model: dct983, size: 4GiB}
tenants:
  - {name: a, drive: d0, size: 256MiB}
  - {name: b, drive: d0, size: 256MiB, weight: 2}
"""

ONE_DRIVE = "drives: [{name: d0, backend: memory, size: 1GiB, capacity: 1GiB/s}]\n"


def with_tenant(line: str) -> str:
    return BASE + f"  - {line}\n"


def with_drive(line: str) -> str:
    return f"drives:\n  - {line}\ntenants: []\n"


# (id, file content (str or bytes), key path in the message, phrase in the message)
BAD_CONFIGS: list[tuple[str, str | bytes, str, str]] = [
    ("empty", "", "", "is empty"),
    ("top-list", "- a\n- b\n", "", "expected a mapping of keys"),
    ("unknown-top-key", BASE + "tenant: []\n", "tenant", "did you mean 'tenants'"),
    ("no-drives", "tenants: []\n", "drives", "is required"),
    ("drives-not-list", "drives: {name: d0}\n", "drives", "expected a list of 1..64 drives"),
    ("drive-unknown-key", with_drive("{name: d0, backend: memory, sise: 1GiB}"),
     "drives[0].sise", "did you mean 'size'"),
    ("drive-bad-backend", with_drive("{name: d0, backend: tape, size: 1GiB}"),
     "drives[0].backend", "allowed: memory, file, emulated"),
    ("memory-without-size", with_drive("{name: d0, backend: memory}"), "drives[0].size",
     "is required for a memory drive"),
    ("file-without-path", with_drive("{name: d0, backend: file}"), "drives[0].path",
     "is required for a file drive"),
    ("duplicate-drive", "drives: [{name: d0, backend: memory, size: 1GiB},"
     " {name: d0, backend: memory, size: 1GiB}]\n", "drives[1].name", "already the name of"),
    ("bad-policy", with_drive("{name: d0, backend: memory, size: 1GiB, policy: yolo}"),
     "drives[0].policy", "allowed: fifo, rr"),
    ("bad-zero-cost", with_drive("{name: d0, backend: memory, size: 1GiB, zero_cost: writes}"),
     "drives[0].zero_cost", "'writes' is not allowed (allowed: auto, command, write)"),
    ("zero-cost-not-text", with_drive("{name: d0, backend: file, path: /dev/null, zero_cost: 1}"),
     "drives[0].zero_cost", "allowed: auto, command, write"),
    ("band-inverted", with_drive("{name: d0, backend: memory, size: 1GiB, band: 2ms..1ms}"),
     "drives[0].band", "need 0 < low < high"),
    ("band-pct-low", with_drive("{name: d0, backend: memory, size: 1GiB, band: 50%..300%}"),
     "drives[0].band", "100% <= low < high"),
    ("band-garbage", with_drive("{name: d0, backend: memory, size: 1GiB, band: fast}"),
     "drives[0].band", "is not a band"),
    ("ctl-min-above-max", with_drive("{name: d0, backend: memory, size: 1GiB, controller: "
                                     "{rate_min: 1GiB/s, rate_max: 100MiB/s}}"),
     "drives[0].controller.rate_min", "is above rate_max"),
    ("ctl-bucket-refill", with_drive("{name: d0, backend: memory, size: 1GiB, controller: "
                                     "{bucket: 1GiB}}"),
     "drives[0].controller.bucket", "to fill at rate_min"),
    ("ctl-unknown-knob", with_drive("{name: d0, backend: memory, size: 1GiB, controller: "
                                    "{rate: 1GiB/s}}"),
     "drives[0].controller.rate", "unknown key"),
    ("block-size-not-pow2", with_drive("{name: d0, backend: memory, size: 1GiB, "
                                       "block_size: 1000}"),
     "drives[0].block_size", "not a power of two"),
    ("weight-wrong-type", with_tenant("{name: c, drive: d0, size: 1MiB, weight: heavy}"),
     "tenants[2].weight", "is not an integer (allowed: 1..10000)"),
    ("weight-bool", with_tenant("{name: c, drive: d0, size: 1MiB, weight: true}"),
     "tenants[2].weight", "is not an integer"),
    ("weight-zero", with_tenant("{name: c, drive: d0, size: 1MiB, weight: 0}"),
     "tenants[2].weight", "out of range (allowed: 1..10000)"),
    ("size-garbage", with_tenant("{name: c, drive: d0, size: 4x}"), "tenants[2].size",
     "is not a size (examples: 4k, 128KiB, 1MiB)"),
    ("size-unaligned", with_tenant("{name: c, drive: d0, size: 1000B}"), "tenants[2].size",
     "out of range"),
    ("size-odd", with_tenant("{name: c, drive: d0, size: 6000B}"), "tenants[2].size",
     "not a multiple of 4KiB"),
    ("huge-size", with_tenant("{name: c, drive: d0, size: 2PiB}"), "tenants[2].size",
     "out of range (allowed: 4KiB..1PiB)"),
    ("huge-reserve-int", with_tenant("{name: c, drive: d0, size: 1MiB, "
                                     "reserve: 99999999999999999999999999B/s}"),
     "tenants[2].reserve", "too large"),
    # issue 14: a bare number where a unit is required (the exact line after the key)
    ("bare-limit", with_tenant("{name: c, drive: d0, size: 1MiB, limit: 100}"),
     "tenants[2].limit", "100 has no unit; write a rate such as 100MiB/s or 1GB/s"),
    ("bare-reserve", with_tenant("{name: c, drive: d0, size: 1MiB, reserve: 100}"),
     "tenants[2].reserve", "100 has no unit; write a rate such as 100MiB/s or 1GB/s"),
    ("bare-slo", with_tenant("{name: c, drive: d0, size: 1MiB, latency_slo: 2}"),
     "tenants[2].latency_slo", "2 has no unit; write a duration such as 2ms or 5s"),
    ("bare-slo-string", with_tenant("{name: c, drive: d0, size: 1MiB, latency_slo: '2'}"),
     "tenants[2].latency_slo", "2 has no unit; write a duration such as 2ms or 5s"),
    ("bare-size", with_tenant("{name: c, drive: d0, size: 4096}"),
     "tenants[2].size", "4096 has no unit; write a size such as 4096MiB or 4KiB"),
    ("huge-reserve-float", with_tenant("{name: c, drive: d0, size: 1MiB, reserve: 1e400}"),
     "tenants[2].reserve", "is not a rate"),
    ("huge-iops", with_tenant("{name: c, drive: d0, size: 1MiB, limit_iops: 10G iops}"),
     "tenants[2].limit_iops", "too large"),
    ("huge-slo", with_tenant("{name: c, drive: d0, size: 1MiB, latency_slo: 2m}"),
     "tenants[2].latency_slo", "too large (allowed: up to 60s"),
    ("negative-limit", with_tenant("{name: c, drive: d0, size: 1MiB, limit: -5MiB/s}"),
     "tenants[2].limit", "is negative"),
    ("duplicate-tenant", with_tenant("{name: a, drive: d0, size: 1MiB}"), "tenants[2].name",
     "'a' is already the name of tenants[0]"),
    ("unknown-drive", with_tenant("{name: c, drive: zz, size: 1MiB}"), "tenants[2].drive",
     "'zz' is not a drive (have: d0, e0)"),
    ("drive-needed", with_tenant("{name: c, size: 1MiB}"), "tenants[2].drive",
     "is required when there are several drives"),
    ("namespace-overlap", with_tenant("{name: c, drive: d0, size: 600MiB}"), "tenants[2].size",
     "no free space on drive 'd0': 512MiB of 1.00GiB free; need 600MiB"),
    ("no-room-for-unsized", with_tenant("{name: c, drive: d0, size: 512MiB}")
     + "  - {name: x, drive: d0}\n", "tenants[3].size", "left for 1 tenant(s) without a size"),
    ("reserve-above-capacity", ONE_DRIVE + "tenants:\n"
     "  - {name: a, reserve: 600MiB/s}\n  - {name: b, reserve: 500MiB/s}\n",
     "tenants[1].reserve", "add up to 1.07GiB/s, more than its capacity 1.00GiB/s"),
    ("reserve-above-limit", with_tenant("{name: c, drive: d0, size: 1MiB, reserve: 2MiB/s, "
                                        "limit: 1MiB/s}"),
     "tenants[2].reserve", "is above limit 1MiB/s"),
    ("latency-class-without-slo", with_tenant("{name: c, drive: d0, size: 1MiB, "
                                              "class: latency}"),
     "tenants[2].class", "class latency needs latency_slo"),
    ("reserved-class-without-reserve", with_tenant("{name: c, drive: d0, size: 1MiB, "
                                                   "class: reserved}"),
     "tenants[2].class", "class reserved needs reserve"),
    ("bad-class", with_tenant("{name: c, drive: d0, size: 1MiB, class: gold}"),
     "tenants[2].class", "allowed: latency, reserved, best-effort, scavenger"),
    ("bad-tenant-name", with_tenant("{name: 'a b', drive: d0, size: 1MiB}"), "tenants[2].name",
     "is not a name"),
    ("sq-depth-zero", with_tenant("{name: c, drive: d0, size: 1MiB, sq_depth: 0}"),
     "tenants[2].sq_depth", "out of range"),
    ("tenant-not-mapping", BASE + "  - c\n", "tenants[2]", "expected a mapping of keys"),
    ("tenant-null-value", with_tenant("{name: c, drive: d0, size: 1MiB, weight: }"),
     "tenants[2].weight", "has no value"),
    ("tenants-not-list", ONE_DRIVE + "tenants: {name: a}\n", "tenants",
     "expected a list of tenants"),
    ("duplicate-yaml-key", ONE_DRIVE + "tenants: []\ntenants: []\n", "line 3",
     "duplicate key 'tenants'"),
    ("truncated-yaml", "drives: [{name: d0, backend: memory\n", "line 2, column 1", "bad YAML"),
    ("non-utf8", b"drives: [{name: d\xff0, backend: memory, size: 1GiB}]\n", "",
     "is not UTF-8 text"),
    ("bad-tcp", ONE_DRIVE + "listen: {tcp: 'localhost'}\n", "listen.tcp", "is not HOST:PORT"),
    ("bad-port", ONE_DRIVE + "listen: {tcp: '127.0.0.1:99999'}\n", "listen.tcp",
     "is not HOST:PORT"),
    ("admin-mode-no-owner", ONE_DRIVE + "admin: {mode: '0400'}\n", "admin.mode",
     "must let the owner read and write"),
    ("admin-mode-garbage", ONE_DRIVE + "admin: {mode: rw}\n", "admin.mode",
     "is not an octal mode"),
    ("admin-socket-too-long", ONE_DRIVE + f"admin: {{socket: /tmp/{'x' * 120}}}\n",
     "admin.socket", "longer than 107 bytes"),
    ("metrics-no-port", ONE_DRIVE + "metrics: localhost\n", "metrics", "is not HOST:PORT"),
    # a tenant's offset (csrc/export.c section 2; the daemon writes it, operators may)
    ("offset-overlap", ONE_DRIVE + "tenants:\n  - {name: a, size: 32MiB, offset: 0}\n"
     "  - {name: b, size: 32MiB, offset: 16MiB}\n", "tenants[1].offset",
     "[16MiB, 48MiB) overlaps tenant 'a' at [0, 32MiB) (allowed: space no other tenant holds)"),
    ("offset-misaligned", ONE_DRIVE + "tenants: [{name: a, size: 32MiB, offset: 6KiB}]\n",
     "tenants[0].offset", "'6KiB' is not a multiple of 4KiB"),
    ("offset-block-size", "drives: [{name: d0, backend: memory, size: 1GiB, block_size: 64KiB}]\n"
     "tenants: [{name: a, size: 64KiB, offset: 32KiB}]\n", "tenants[0].offset",
     "32KiB is not a multiple of drive 'd0' block_size 64KiB"),
    ("offset-past-end", ONE_DRIVE + "tenants: [{name: a, size: 32MiB, offset: 1000MiB}]\n",
     "tenants[0].offset", "1000MiB + size 32MiB ends at 1032MiB, past the end of drive 'd0' "
     "(1GiB)"),
    ("offset-no-size", ONE_DRIVE + "tenants: [{name: a, offset: 0}]\n", "tenants[0].offset",
     "needs size"),
]

NEEDS_CORE = {"bad-model", "reserve-above-preset"}
if extension_available():
    BAD_CONFIGS += [
        ("bad-model", with_drive("{name: e0, backend: emulated, size: 1GiB, model: ssd9000}"),
         "drives[0].model", "is not a known model (allowed: dct983"),
        # dct983: min(3 GB/s link, 32 dies x 48 KiB / 70 us) = 3 GB/s = 2.79GiB/s
        ("reserve-above-preset", "drives: [{name: e0, backend: emulated, size: 4GiB}]\n"
         "tenants:\n  - {name: a, size: 1GiB, reserve: 2GiB/s}\n"
         "  - {name: b, size: 1GiB, reserve: 1GiB/s}\n",
         "tenants[1].reserve", "more than its capacity 2.79GiB/s (the dct983 preset's read "
         "bandwidth"),
    ]


@pytest.mark.parametrize("case", BAD_CONFIGS, ids=[c[0] for c in BAD_CONFIGS])
def test_bad_config_is_one_clear_line(tmp_path: Path, case: tuple) -> None:
    _id, text, path, phrase = case
    f = tmp_path / "bad.yaml"
    f.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(ConfigError) as info:
        load_config(f)
    msg = str(info.value)
    assert "\n" not in msg
    assert msg.startswith(f"{f}: "), msg
    if path:
        assert f": {path}: " in msg or f": {path}, " in msg, msg
    assert phrase in msg, msg


def test_bad_config_table_is_big_enough() -> None:
    assert len(BAD_CONFIGS) >= 30


def test_other_file_problems(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "missing.yaml")
    with pytest.raises(ConfigError, match="is a directory"):
        load_config(tmp_path)
    big = tmp_path / "big.yaml"
    big.write_text("# " + "x" * (1 << 20) + "\n" + ONE_DRIVE)
    with pytest.raises(ConfigError, match="a config file may be at most 1MiB"):
        load_config(big)


# ---------------------------------------------------------------- good input ---

def test_shipped_configs_are_valid() -> None:
    for name in ("default.yaml", "memory.yaml"):
        cfg = load_config(ROOT / "configs" / name)
        assert cfg.drives and cfg.tenants


def test_units_defaults_and_classes(tmp_path: Path) -> None:
    f = tmp_path / "c.yaml"
    f.write_text(ONE_DRIVE + "tenants:\n"
                 "  - {name: r, size: 128KiB, latency_slo: 500us, reserve: 200MiB/s}\n"
                 "  - {name: s, size: 1MiB, class: scavenger, limit_iops: 50k iops}\n"
                 "  - {name: w}\n"
                 "listen: {unix: x.sock, mode: 0660}\n")
    cfg = load_config(f)
    r, s, w = cfg.tenants
    assert (r.size, r.latency_slo, r.reserve, r.effective_class) == \
        (128 << 10, 500_000, 200 << 20, "latency")
    assert (s.effective_class, s.limit_iops) == ("scavenger", 50_000)
    assert (w.drive, w.size, w.weight, w.effective_class) == ("d0", None, 1, "best-effort")
    assert cfg.listen.mode == 0o660          # YAML's octal 0660
    assert cfg.admin.mode == 0o600
    assert cfg.admin_socket.endswith("/x.admin.sock")


def test_document_round_trips(tmp_path: Path) -> None:
    text = ("drives:\n  - {name: d0, backend: memory, size: 1GiB, band: 300us..2ms, capacity: "
            "2GB/s, controller: {rate_max: 3GiB/s, bucket: 128KiB}}\n"
            "  - {name: d1, backend: memory, size: 64MiB, policy: gimbal, band: 150%..400%,"
            " zero_cost: write}\n"
            "listen: {unix: /tmp/n.sock, mode: '0660', tcp: '127.0.0.1:0'}\n"
            "tenants:\n  - {name: a, drive: d0, size: 1536B, latency_slo: 1.5ms, "
            "reserve: 1000000B/s, limit: 3MB/s, limit_iops: 12345, sq_depth: 64, read_only: true}\n"
            "  - {name: b, drive: d1, weight: 7, class: scavenger}\n"
            "admin: {socket: a.sock, mode: '0660', max_connections: 3}\n"
            "metrics: '[::1]:9464'\n")
    with pytest.raises(ConfigError):   # 1536 is not a multiple of 4 KiB
        parse_config(yaml.safe_load(text), "c")
    cfg = parse_config(yaml.safe_load(text.replace("size: 1536B", "size: 12KiB")), "c")
    again = parse_config(yaml.safe_load(dump_yaml(cfg)), "c")
    assert again == cfg
    assert document(cfg)["tenants"][0]["reserve"] == "1000000B/s"
    assert document(cfg)["drives"][0]["band"] == "300us..2ms"
    assert (cfg.drives[0].zero_cost, cfg.drives[1].zero_cost) == ("auto", "write")
    assert "zero_cost" not in document(cfg)["drives"][0]         # the default is left out
    assert document(cfg)["drives"][1]["zero_cost"] == "write"
    # a tenant's offset round-trips too (the daemon writes it into the state file)
    placed = parse_config(yaml.safe_load(text.replace("size: 1536B",
                                                      "size: 12KiB, offset: 1MiB")), "c")
    assert placed.tenants[0].offset == 1 << 20
    assert document(placed)["tenants"][0]["offset"] == "1MiB"
    assert parse_config(yaml.safe_load(dump_yaml(placed)), "c") == placed


def test_controller_defaults_match_the_c_core() -> None:
    pytest.importorskip("dataplane.engine", reason="C core not built (make build)")
    from dataplane._jbof import ffi, lib
    c = ffi.new("jbof_sched_cfg *")
    assert lib.jbof_sched_default_cfg(lib.JBOF_POLICY_QOS, c) == 0
    e = effective_controller({})
    assert (e["rate_min"], e["rate_max"], e["rate_init"], e["bucket"]) == \
        (c.ctl.rate_min_cost_bps, c.ctl.rate_max_cost_bps, c.ctl.rate_init_cost_bps, c.ctl.bucket_bytes)
    assert "ewma_shift" not in e                  # the policy's own default applies
    for k in CONTROLLER_KEYS.values():            # the documented defaults parse to the same
        if k.default is not None:
            assert k.parse(k.default) == e[k.name]
    # a low rate_max pulls the starting rate down with it (else the C core refuses)
    assert effective_controller({"rate_max": 100 << 20})["rate_init"] == 100 << 20


def test_schema_text_lists_every_key() -> None:
    text = schema_text()
    for key in ("drives", "tenants", "admin", "metrics", "band", "controller", "capacity",
                "rate_max", "latency_slo", "limit_iops", "read_only", "mode", "max_connections"):
        assert f"  {key} " in text


# ----------------------------------------------------------- jbof config ---

def test_config_check_cli(tmp_path: Path) -> None:
    ok = CliRunner().invoke(main, ["config", "check", str(ROOT / "configs" / "default.yaml")])
    assert ok.exit_code == 0
    assert len(ok.stdout.strip().splitlines()) == 1 and ": ok: " in ok.stdout
    f = tmp_path / "bad.yaml"
    f.write_text(with_tenant("{name: a, drive: d0, size: 1MiB}"))
    bad = CliRunner().invoke(main, ["config", "check", str(f)])
    assert bad.exit_code != 0 and bad.stdout == ""
    lines = bad.stderr.strip().splitlines()
    assert len(lines) == 1 and "tenants[2].name" in lines[0] and "Traceback" not in bad.stderr


def test_config_check_subprocess_prints_nothing_but_the_summary(tmp_path: Path) -> None:
    r = subprocess.run(["python3", "-m", "control.cli", "config", "check",
                        str(ROOT / "configs" / "memory.yaml")], cwd=ROOT, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and r.stderr == "" and len(r.stdout.splitlines()) == 1


# ------------------------------------------------ bad admin requests, live ---

# (id, raw request line(s), error code, phrase in the message)
BAD_REQUESTS: list[tuple[str, bytes, str, str]] = [
    ("not-json", b"hello\n", "bad_json", "not JSON"),
    ("truncated-json", b'{"v": 1, "op": "tenant.list"\n', "bad_json", "not JSON"),
    ("non-utf8", b'{"v": 1, "op": "tenant.\xff"}\n', "bad_json", "not UTF-8"),
    ("nan", b'{"v": 1, "op": "tenant.add", "args": {"name": "c", "size": "1MiB", '
     b'"reserve": NaN}}\n', "bad_json", "key 'reserve': not a finite number"),
    ("deep-nesting", b"[" * 5000 + b"]" * 5000 + b"\n", "bad_json", "nested deeper than 64 levels"),
    ("not-object", b"[1, 2]\n", "bad_request", "a request is a JSON object"),
    ("no-version", b'{"op": "tenant.list"}\n', "version", 'send "v": 1'),
    ("future-version", b'{"v": 2, "op": "tenant.list"}\n', "version", "2 is not supported"),
    ("bool-version", b'{"v": true, "op": "ping"}\n', "version", "not supported"),
    ("no-op", b'{"v": 1}\n', "bad_request", 'needs "op"'),
    ("unknown-request-key", b'{"v": 1, "op": "ping", "opts": {}}\n', "bad_request",
     "unknown request key 'opts'"),
    ("unknown-op", b'{"v": 1, "op": "tenant.explode"}\n', "unknown_op", "allowed: ping"),
    ("args-not-object", b'{"v": 1, "op": "tenant.add", "args": [1]}\n', "bad_request",
     '"args" must be a JSON object'),
    ("add-no-size", b'{"v": 1, "op": "tenant.add", "args": {"name": "c"}}\n', "invalid",
     "args.size: is required"),
    ("add-wrong-type", b'{"v": 1, "op": "tenant.add", "args": {"name": "c", "size": "1MiB", '
     b'"weight": "heavy"}}\n', "invalid", "args.weight: 'heavy' is not an integer"),
    ("add-unknown-key", b'{"v": 1, "op": "tenant.add", "args": {"name": "c", "size": "1MiB", '
     b'"wieght": 2}}\n', "invalid", "did you mean 'weight'"),
    ("add-duplicate", b'{"v": 1, "op": "tenant.add", "args": {"name": "a", "size": "1MiB"}}\n',
     "exists", "tenant 'a' already exists"),
    ("add-unknown-drive", b'{"v": 1, "op": "tenant.add", "args": {"name": "c", "size": "1MiB", '
     b'"drive": "zz"}}\n', "invalid", "args.drive: 'zz' is not a drive"),
    ("add-overlap", b'{"v": 1, "op": "tenant.add", "args": {"name": "c", "size": "100GiB"}}\n',
     "invalid", "args.size: no free space on drive 'd0'"),
    ("add-reserve-above-capacity", b'{"v": 1, "op": "tenant.add", "args": {"name": "c", '
     b'"size": "1MiB", "reserve": "900MiB/s"}}\n', "invalid",
     "args.reserve: reservations on drive 'd0' add up to 1.07GiB/s, more than its capacity"),
    ("add-huge-weight", b'{"v": 1, "op": "tenant.add", "args": {"name": "c", "size": "1MiB", '
     b'"weight": 1000000000000000000000000000000}}\n', "invalid", "out of range"),
    ("add-huge-limit", b'{"v": 1, "op": "tenant.add", "args": {"name": "c", "size": "1MiB", '
     b'"limit": "5PiB/s"}}\n', "invalid", "args.limit: '5PiB/s' is too large"),
    ("add-bad-name", b'{"v": 1, "op": "tenant.add", "args": {"name": "../x", "size": "1MiB"}}\n',
     "invalid", "args.name: '../x' is not a name"),
    ("set-missing-tenant", b'{"v": 1, "op": "tenant.set", "args": {"name": "zz", "weight": 2}}\n',
     "not_found", "no tenant named 'zz'"),
    ("set-not-live", b'{"v": 1, "op": "tenant.set", "args": {"name": "a", "size": "2MiB"}}\n',
     "invalid", "args.size: cannot be changed live"),
    ("set-nothing", b'{"v": 1, "op": "tenant.set", "args": {"name": "a"}}\n', "invalid",
     "nothing to change"),
    ("set-bad-slo", b'{"v": 1, "op": "tenant.set", "args": {"name": "a", '
     b'"latency_slo": "fast"}}\n', "invalid", "args.latency_slo: 'fast' is not a duration"),
    ("set-reserve-above-capacity", b'{"v": 1, "op": "tenant.set", "args": {"name": "a", '
     b'"reserve": "2GiB/s"}}\n', "invalid", "args.reserve: reservations on drive 'd0'"),
    ("remove-missing", b'{"v": 1, "op": "tenant.remove", "args": {"name": "zz"}}\n',
     "not_found", "no tenant named 'zz'"),
    ("drive-bad-policy", b'{"v": 1, "op": "drive.set", "args": {"name": "d0", '
     b'"policy": "yolo"}}\n', "invalid", "args.policy: 'yolo' is not allowed"),
    ("drive-bad-band", b'{"v": 1, "op": "drive.set", "args": {"name": "d0", '
     b'"band": "3ms..1ms"}}\n', "invalid", "need 0 < low < high"),
    ("drive-not-live", b'{"v": 1, "op": "drive.set", "args": {"name": "d0", '
     b'"size": "2GiB"}}\n', "invalid", "args.size: cannot be changed live"),
    ("drive-missing", b'{"v": 1, "op": "drive.set", "args": {"name": "zz", '
     b'"policy": "qos"}}\n', "not_found", "no drive named 'zz'"),
    ("stats-bad-arg", b'{"v": 1, "op": "stats", "args": {"hist": "yes"}}\n', "invalid",
     "args.hist: expected true or false"),
    ("oversized-line", b'{"v": 1, "op": "ping", "id": "' + b"x" * 70000 + b'"}\n', "too_long",
     "longer than 65536 bytes"),
    ("oversized-no-newline", b"x" * 70000, "too_long", "longer than 65536 bytes"),
]

LIVE = """\
drives: [{name: d0, backend: memory, size: 256MiB, capacity: 1GiB/s}]
tenants:
  - {name: a, size: 64MiB, reserve: 200MiB/s}
  - {name: b, size: 64MiB}
"""


def _raw(path: str, data: bytes) -> dict:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    try:
        s.sendall(data)
        buf = b""
        while b"\n" not in buf:
            chunk = s.recv(65536)
            assert chunk, "the daemon closed without a reply"
            buf += chunk
        return json.loads(buf.split(b"\n", 1)[0])
    finally:
        s.close()


@pytest.mark.needs_core
def test_bad_admin_requests_get_structured_errors_and_the_daemon_keeps_serving() -> None:
    from control_helpers import daemon
    assert len(BAD_REQUESTS) >= 30
    with daemon(LIVE) as d:
        before = d.config_path.read_text()
        for case_id, data, code, phrase in BAD_REQUESTS:
            reply = _raw(d.admin, data)
            assert reply["ok"] is False and reply["v"] == 1, (case_id, reply)
            assert reply["error"]["code"] == code, (case_id, reply)
            assert phrase in reply["error"]["message"], (case_id, reply)
            assert "\n" not in reply["error"]["message"]
            with d.client() as c:        # still serving
                assert c.call("ping")["version"] == 1
        # nothing was applied or persisted, the data plane still serves both tenants
        assert d.config_path.read_text() == before
        assert not (d.dir / "c.yaml.prev").exists()
        assert sorted(d.engine.tenants()) == ["a", "b"]
        assert d.engine.stats()["running"] == 1
        with d.client() as c:
            assert [t["name"] for t in c.call("tenant.list")["tenants"]] == ["a", "b"]


@pytest.mark.needs_core
def test_requests_on_one_connection_keep_order_and_ids() -> None:
    from control_helpers import daemon
    with daemon(LIVE) as d:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        s.connect(d.admin)
        s.sendall(b'{"v": 1, "id": "x", "op": "ping"}\nnope\n\n'
                  b'{"v": 1, "id": 3, "op": "tenant.list"}\n')
        buf = b""
        while buf.count(b"\n") < 3:
            chunk = s.recv(65536)
            assert chunk
            buf += chunk
        s.close()
        r = [json.loads(x) for x in buf.splitlines()]
        assert (r[0]["id"], r[0]["ok"]) == ("x", True)
        assert (r[1].get("id"), r[1]["ok"], r[1]["error"]["code"]) == (None, False, "bad_json")
        assert (r[2]["id"], r[2]["ok"]) == (3, True)


def test_config_type_is_frozen() -> None:
    cfg = parse_config(yaml.safe_load(ONE_DRIVE), "c")
    assert isinstance(cfg, Config)
    import dataclasses
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.drives = ()  # type: ignore[misc]


def readme_section() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("## Operating the daemon")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def test_readme_documents_every_config_key_and_op() -> None:
    from control.daemon.admin import OPS
    from control.config_schema import SECTIONS
    doc = readme_section()
    for _title, keys in SECTIONS:
        for key in keys:
            assert f"`{key}`" in doc or f"`{key}[]`" in doc, key
    for op in OPS:
        assert f"`{op}`" in doc, op


def test_export_description_default_and_block_size_reach_the_engine() -> None:
    from control.config import check_config, parse_config
    from control.config_export import engine_drive, engine_tenant
    from control.errors import ConfigError
    doc = {"drives": [{"name": "d0", "backend": "memory", "size": "1GiB"}],
           "tenants": [{"name": "a", "size": "256MiB", "description": "training shards",
                        "default": True},
                       {"name": "b", "size": "256MiB"}]}
    cfg = parse_config(doc)
    check_config(cfg, "<t>")
    assert engine_drive(cfg.drives[0])["block_size"] == 0          # the backend's minimum
    a, b = (engine_tenant(t) for t in cfg.tenants)
    assert (a["description"], a["default"]) == ("training shards", True)
    assert "description" not in b and "default" not in b
    doc["tenants"][1]["default"] = True
    with pytest.raises(ConfigError, match=r"tenants\[1\]\.default: tenant 'a' is already the default"):
        check_config(parse_config(doc), "<t>")
    doc["tenants"][1] = {"name": "b", "size": "256MiB", "description": "x" * 256}
    with pytest.raises(ConfigError, match=r"tenants\[1\]\.description: is 256 bytes"):
        check_config(parse_config(doc), "<t>")


@pytest.mark.needs_core
def test_limits_and_tenant_budgets_reach_a_running_engine(tmp_path: Path) -> None:
    from control.config_export import engine_config
    from dataplane.engine import Engine
    doc = {"drives": [{"name": "d0", "backend": "memory", "size": "1GiB"}],
           "listen": {"unix": str(tmp_path / "nbd.sock")},
           "limits": {"connections": 64, "handshake_timeout": "2s", "handshake_idle": "500ms",
                      "buffer": "64MiB", "tenant_buffer": "8MiB", "scrub_rate": "1GiB/s"},
           "tenants": [{"name": "a", "size": "256MiB", "buffer": "16MiB", "max_connections": 4},
                       {"name": "b", "size": "256MiB"}]}
    spec = engine_config(parse_config(doc))
    assert spec["engine"] == {"max_connections": 64, "hs_timeout": 2 * 10**9,
                              "hs_idle": 5 * 10**8, "buffer_bytes": 64 << 20,
                              "tenant_buffer_bytes": 8 << 20, "scrub_rate": 1 << 30}
    assert (spec["tenants"][0]["buffer_bytes"], spec["tenants"][0]["max_connections"]) == \
        (16 << 20, 4)
    with Engine(spec) as eng:
        assert eng.tenant_stats("a")["buffer_budget_bytes"] == 16 << 20
        assert eng.tenant_stats("b")["buffer_budget_bytes"] == 8 << 20
    doc["limits"] = {"handshake_timeout": "1ms"}
    with pytest.raises(ConfigError, match=r"limits\.handshake_timeout"):
        parse_config(doc)
