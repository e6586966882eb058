"""``jbof serve``: run the live NBD target from a YAML config.

    jbof serve [--config FILE] [--unix PATH] [--tcp HOST:PORT]

The config (``configs/default.yaml`` when --config is not given):

    drives:                      # one backend + one scheduler each
      - name: ssd0
        backend: emulated        # memory | file | emulated
        model: dct983            # emulated: SSD model preset
        size: 12GiB              # required for memory/emulated; file: default = file size
        path: /dev/nvme0n1       # file: file or block device; emulated: optional sparse file
        policy: qos              # fifo | rr | token-bucket | drr | gimbal | qos
    listen:
      unix: jbof/nbd.sock        # relative paths live under $XDG_RUNTIME_DIR (or /tmp)
      tcp: 127.0.0.1:10809       # optional
    tenants:                     # one NBD export each; same keys as a scenario's tenants,
      - name: reader             # plus drive, size and read_only (no workload)
        drive: ssd0
        size: 4GiB
        latency_slo: 1ms

Once it accepts connections it prints one NBD URI per export and listener
(``nbd+unix:///NAME?socket=PATH``) and runs until SIGINT or SIGTERM, then
stops gracefully (in-flight IO drains, data is synced).
"""
from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import click

from control import units
from control.errors import ConfigError
from control.scenario import (
    POLICIES,
    Key,
    _read,
    _section,
    load_yaml,
    p_bool,
    p_choice,
    p_int,
    p_name,
    p_size,
    p_str,
    parse_tenant,
)

DEFAULT_CONFIG = Path(__file__).resolve().parent.parent / "configs" / "default.yaml"
BACKENDS = ("memory", "file", "emulated")
IO_MODES = ("auto", "uring", "threads")
MAX_DRIVES = 64


def _p_tcp(v: Any) -> str:
    s = p_str(v)
    _host, sep, port = s.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"{s!r} is not HOST:PORT (example: 127.0.0.1:10809)")
    return s


TOP_KEYS = _section(
    Key("drives", "list", lambda v: v, "the drives: see drive keys", required=True),
    Key("listen", "mapping", lambda v: v, "where to accept NBD connections: unix, tcp"),
    Key("tenants", "list", lambda v: v, "the tenants (one NBD export each)", required=True),
)

DRIVE_KEYS = _section(
    Key("name", "name", p_name, "unique drive name", required=True),
    Key("backend", "choice", p_choice(BACKENDS), "memory | file | emulated", required=True),
    Key("path", "path", p_str, "file: a file or block device; emulated: optional sparse data file"),
    Key("size", "size", p_size(1 << 20, 1 << 50, 4096),
        "drive size (required for memory and emulated; file: default the file's size)"),
    Key("model", "preset", p_name, "emulated: SSD model preset", "dct983"),
    Key("policy", "choice", p_choice(POLICIES), f"scheduling policy ({', '.join(POLICIES)})", "qos"),
    Key("block_size", "size", p_size(512, 1 << 20), "minimum IO size and alignment "
        "(raised to what O_DIRECT needs)", 512),
    Key("io_mode", "choice", p_choice(IO_MODES), "file: auto (io_uring, else threads) | uring | "
        "threads", "auto"),
    Key("direct", "boolean", p_bool, "file: use O_DIRECT when the file system allows it", True),
    Key("seed", "integer", p_int(0, 2**63 - 1), "emulated: model seed", 1),
)

LISTEN_KEYS = _section(
    Key("unix", "path", p_str, "unix socket path; relative = under $XDG_RUNTIME_DIR (or /tmp)"),
    Key("tcp", "host:port", _p_tcp, "TCP address, e.g. 127.0.0.1:10809 (port 0 = any)"),
)

SERVE_TENANT_KEYS = _section(
    Key("drive", "name", p_name, "the drive holding this tenant's namespace "
        "(default: the only drive)"),
    Key("size", "size", p_size(4096, 1 << 50, 4096), "namespace size "
        "(default: an equal share of what the drive has left)"),
    Key("read_only", "boolean", p_bool, "refuse writes (EPERM)", False),
)


def runtime_dir() -> Path:
    """Where relative socket paths live: $XDG_RUNTIME_DIR, else /tmp."""
    return Path(os.environ.get("XDG_RUNTIME_DIR") or "/tmp")


def socket_path(raw: str) -> str:
    p = Path(os.path.expanduser(raw))
    return str(p if p.is_absolute() else runtime_dir() / p)


def parse_serve_config(data: Any, src: str, unix: str | None = None,
                       tcp: str | None = None) -> dict[str, Any]:
    """Validate a serve config; return the dataplane.engine.Engine config dict."""
    if data is None:
        raise ConfigError(src, "", "is empty (a config needs drives: and tenants:)")
    top = _read(data, TOP_KEYS, src, "")
    if not isinstance(top["drives"], list) or not 1 <= len(top["drives"]) <= MAX_DRIVES:
        raise ConfigError(src, "drives", f"expected a list of 1..{MAX_DRIVES} drives")
    drives: list[dict[str, Any]] = []
    for i, raw in enumerate(top["drives"]):
        d = _read(raw, DRIVE_KEYS, src, f"drives[{i}]")
        if d["backend"] != "file" and "size" not in d:
            raise ConfigError(src, f"drives[{i}].size", f"is required for a {d['backend']} drive")
        if d["backend"] == "file" and "path" not in d:
            raise ConfigError(src, f"drives[{i}].path", "is required for a file drive")
        if any(x["name"] == d["name"] for x in drives):
            raise ConfigError(src, f"drives[{i}].name", f"'{d['name']}' is used twice")
        drives.append(d)
    names = [d["name"] for d in drives]

    listen = _read(top.get("listen", {}), LISTEN_KEYS, src, "listen")
    if unix is not None:
        listen["unix"] = unix
    if tcp is not None:
        try:
            listen["tcp"] = _p_tcp(tcp)
        except ValueError as e:
            raise ConfigError("--tcp", "", str(e)) from None
    if not listen:
        listen["unix"] = "jbof/nbd.sock"
    if "unix" in listen:
        listen["unix"] = socket_path(listen["unix"])
        if len(listen["unix"].encode()) > 107:
            raise ConfigError(src, "listen.unix", f"{listen['unix']!r} is longer than 107 bytes")

    if not isinstance(top["tenants"], list) or not top["tenants"]:
        raise ConfigError(src, "tenants", "expected a non-empty list of tenants")
    tenants: list[dict[str, Any]] = []
    for i, raw in enumerate(top["tenants"]):
        where = f"tenants[{i}]"
        if not isinstance(raw, dict):
            raise ConfigError(src, where, "expected a mapping of keys")
        mine = {k: v for k, v in raw.items() if k in SERVE_TENANT_KEYS}
        rest = {k: v for k, v in raw.items() if k not in SERVE_TENANT_KEYS}
        extra = _read(mine, SERVE_TENANT_KEYS, src, where)
        t = parse_tenant(rest, src, where, require_workload=False)
        if t.workload is not None:
            raise ConfigError(src, f"{where}.workload", "a served tenant has no workload "
                              "(run fio against its export)")
        drive = extra.get("drive") or (names[0] if len(names) == 1 else None)
        if drive is None:
            raise ConfigError(src, f"{where}.drive", "is required when there are several drives "
                              f"(have: {', '.join(names)})")
        if drive not in names:
            raise ConfigError(src, f"{where}.drive", f"'{drive}' is not a drive "
                              f"(have: {', '.join(names)})")
        if any(x["name"] == t.name for x in tenants):
            raise ConfigError(src, f"{where}.name", f"'{t.name}' is used twice")
        spec: dict[str, Any] = {"name": t.name, "drive": drive, "read_only": extra.get("read_only", False),
                                "weight": t.weight, "class": t.klass, "reserve": t.reserve_bps,
                                "limit": t.limit_bps, "limit_iops": t.limit_iops,
                                "latency_slo": t.latency_slo_ns}
        if "size" in extra:
            spec["size"] = extra["size"]
        if t.sq_depth is not None:
            spec["sq_depth"] = t.sq_depth
        tenants.append(spec)
    for d in drives:
        sized = sum(t.get("size", 0) for t in tenants if t["drive"] == d["name"])
        if "size" in d and sized > d["size"]:
            raise ConfigError(src, "tenants", f"tenant sizes on drive '{d['name']}' add up to "
                              f"{units.human_size(sized)}, more than its {units.human_size(d['size'])}")
    return {"drives": drives, "listen": listen, "tenants": tenants}


def load_serve_config(path: str | Path, unix: str | None = None,
                      tcp: str | None = None) -> dict[str, Any]:
    """Read and validate a serve config file (ConfigError: one line)."""
    return parse_serve_config(load_yaml(path), str(path), unix=unix, tcp=tcp)


@click.command("serve", short_help="Serve tenants over NBD from a YAML config.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
              help="YAML config (default: the embedded configs/default.yaml).")
@click.option("--unix", "unix_path", default=None, metavar="PATH",
              help="Listen on this unix socket (replaces listen.unix).")
@click.option("--tcp", "tcp_addr", default=None, metavar="HOST:PORT",
              help="Listen on this TCP address (replaces listen.tcp).")
def serve(config_path: str | None, unix_path: str | None, tcp_addr: str | None) -> None:
    """Serve the config's tenants over NBD until SIGINT/SIGTERM; print one URI per export."""
    from control.cli import run_guarded

    path = config_path or str(DEFAULT_CONFIG)
    cfg = run_guarded(lambda: load_serve_config(path, unix=unix_path, tcp=tcp_addr))

    def make() -> Any:
        from dataplane.engine import Engine
        return Engine(cfg)

    eng = run_guarded(make)
    stop = threading.Event()
    old = {s: signal.signal(s, lambda *_: stop.set()) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        run_guarded(eng.start)
        for uri in eng.uris():
            click.echo(uri)
        sys.stdout.flush()
        while not stop.wait(0.5):
            pass
        st = eng.stats()
        run_guarded(eng.close)
        click.echo(f"jbof serve: stopped after {st['requests']} requests on "
                   f"{st['accepted']} connections", err=True)
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        eng.close()
