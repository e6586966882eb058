"""The daemon's config (``jbof serve --config FILE``): THE schema, validation,
cross-checks, the Engine dict, and atomic persistence.

One schema -- the ``Key`` tables below -- drives validation of the file, the
admin socket's arguments (``control.admin``), the CLI's option help
(``control.admin_cli``) and the docs (``schema_text()``, ``jbof config keys``).
Every problem is one ``ConfigError`` line naming the file, the key path and
what is allowed::

    d.yaml: tenants[2].reserve: '5x' is not a rate (examples: 200MiB/s, 1GiB/s, 3GB/s)

A config::

    drives:
      - name: ssd0
        backend: emulated          # memory | file | emulated
        model: dct983              # emulated: SSD model preset
        size: 12GiB                # required for memory/emulated
        policy: qos
        band: 300us..2ms           # controller band: fixed (durations) or learned (150%..300%)
        controller: {rate_max: 2GiB/s}
    listen: {unix: jbof/nbd.sock, mode: "0660", tcp: 127.0.0.1:10809}
    tenants:
      - {name: reader, drive: ssd0, size: 4GiB, latency_slo: 2ms, reserve: 100MiB/s}
      - {name: trainer, drive: ssd0, size: 4GiB, weight: 2}
    admin: {socket: jbof/admin.sock, mode: "0600"}
    metrics: 127.0.0.1:9464
    forecast:                      # optional: lend owners' idle reservations to scavengers
      socket: jbof/forecast.sock   # from the scheduler's forecasts (control/forecast_server.py)
      capacity: 2800MiB/s
      planner: {slowdown_budget: 1%}
    tune:                          # optional: online autotuning of the qos knobs
      enabled: [ssd0]              # (control/autotune_live.py); never rewrites this file
      period: 250ms

Cross-checks (``check_config``): tenant names unique, drives exist, namespace
sizes fit their drive (namespaces are laid out one after another, so a sum
above the drive size means two would overlap), reservations on a drive add up
to at most its capacity estimate (``drive_capacity_bps``: the ``capacity`` key,
else for an emulated drive the preset's best-case read bandwidth, min(link,
dies x page / tR) = 3 GB/s for dct983; memory and file drives without
``capacity`` are not checked), at most 256 tenants per drive, class
consistency (latency needs latency_slo, reserved needs reserve, reserve <=
limit) and bounds on every number (no huge values reach the C core).  The
``forecast:`` section is read by its own Key tables (FORECAST_KEYS of
control/forecast_server.py, PLANNER_KEYS of control/planner.py: part of this
schema, listed by ``jbof config keys``); its ``drive`` must exist and its
``capacity`` may not exceed that drive's capacity estimate.  The ``tune:``
section (TUNE_KEYS, parsed by ``tune_settings``) names existing drives only;
a drive that does not run ``qos`` is simply not tuned while it does not.

Persistence (``save_config``): the new config is written to a temporary file
in the same directory, fsynced, the current file is kept as ``FILE.prev``, and
the new one renamed over ``FILE`` (then the directory is fsynced): a crash
leaves either the old or the new config, never a mix.  Comments of a
hand-written file are not kept (the file is rewritten in canonical form).
"""
from __future__ import annotations

import copy
import dataclasses
import errno
import functools
import os
import re
import stat
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from control import units
from control.errors import ConfigError
from control.forecast_server import FORECAST_KEYS, parse_forecast_config
from control.planner import PLANNER_KEYS
from control.scenario import (
    CLASSES,
    POLICIES,
    UNITS_HELP,
    Key,
    _default,
    _read,
    _section,
    _show,
    load_yaml,
    render_keys,
    p_bool,
    p_choice,
    p_duration,
    p_int,
    p_name,
    p_percent,
    p_str,
)

__all__ = [
    "CONTROLLER_KEYS",
    "DEFAULT_ADMIN_SOCKET",
    "DRIVE_KEYS",
    "DRIVE_LIVE_KEYS",
    "TENANT_KEYS",
    "TENANT_LIVE_KEYS",
    "Admin",
    "Band",
    "Config",
    "ConfigError",
    "Drive",
    "Listen",
    "Tenant",
    "check_config",
    "document",
    "drive_capacity_bps",
    "dump_yaml",
    "engine_config",
    "forecast_settings",
    "load_config",
    "parse_config",
    "parse_drive_changes",
    "parse_tenant_args",
    "parse_tenant_changes",
    "resolve_socket_path",
    "runtime_dir",
    "save_config",
    "schema_text",
    "summary",
    "tune_settings",
]

BACKENDS = ("memory", "file", "emulated")
IO_MODES = ("auto", "uring", "threads")
MAX_DRIVES = 64                 # csrc/reactor.h MAX_DRIVES
MAX_TENANTS_PER_DRIVE = 256     # jbof_sched_default_cfg max_tenants
MAX_TENANTS = 1024              # jbof_engine_cfg max_exports default
MAX_SIZE = 1 << 50              # 1 PiB: what the Engine accepts
MAX_RATE_BPS = 1 << 40          # 1 TiB/s: what jbof_sched_tenant_set accepts
MAX_IOPS = 1 << 32
MAX_SLO_NS = 60 * 10**9
MAX_FILE_BYTES = 1 << 20        # a config file larger than this is refused
MIB = 1 << 20
DEFAULT_NBD_SOCKET = "jbof/nbd.sock"
DEFAULT_ADMIN_SOCKET = "jbof/admin.sock"
DEFAULT_ADMIN_MODE = 0o600

# Controller defaults of every policy (jbof_sched_default_cfg; tests/test_config.py
# checks they agree with the C core).
CTL_RATE_MIN_BPS = 50 * MIB
CTL_RATE_MAX_BPS = 4 << 30
CTL_RATE_INIT_BPS = 1000 * MIB
CTL_BUCKET_BYTES = 256 * 1024
CTL_MAX_RATE_BPS = 1 << 38      # ctl.c CTL_MAX_RATE_BPS
CTL_MAX_REFILL_NS = 1 << 24     # ctl.c CTL_MAX_REFILL_NS


# ------------------------------------------------------------------ parsers ---

def _bounded(parse: Callable[[Any], int], hi: int, fmt: Callable[[int], str]) -> Callable[[Any], int]:
    def p(v: Any) -> int:
        n = parse(v)
        if n > hi:
            raise ValueError(f"{_show(v)} is too large (allowed: up to {fmt(hi)})")
        return n
    return p


def p_size_in(lo: int, hi: int, multiple: int = 1) -> Callable[[Any], int]:
    def p(v: Any) -> int:
        n = units.parse_size(v)
        if not lo <= n <= hi:
            raise ValueError(f"{_show(v)} is out of range (allowed: "
                             f"{units.format_size(lo)}..{units.format_size(hi)})")
        if n % multiple:
            raise ValueError(f"{_show(v)} is not a multiple of {units.format_size(multiple)}")
        return n
    return p


p_rate = _bounded(units.parse_rate, MAX_RATE_BPS, units.format_rate)
p_iops = _bounded(units.parse_iops, MAX_IOPS, str)


def p_slo(v: Any) -> int:
    """A latency target; 0 means none."""
    ns = units.parse_duration_ns(v)
    if ns > MAX_SLO_NS:
        raise ValueError(f"{_show(v)} is too large (allowed: up to 60s; 0 = none)")
    return ns


def p_path(v: Any) -> str:
    s = p_str(v)
    if not s or "\0" in s or len(s.encode()) > 1023:
        raise ValueError(f"{_show(v)} is not a path (1..1023 bytes, no NUL)")
    return s


def p_mode(v: Any) -> int:
    """A permission mode: ``"0600"``, ``"600"``, ``0o600``, or YAML's octal int ``0600``."""
    if isinstance(v, bool):
        raise ValueError(f"{_show(v)} is not a mode (examples: '0600', '0660')")
    if isinstance(v, str):
        m = re.fullmatch(r"(?:0o?)?([0-7]{3})", v.strip())
        if not m:
            raise ValueError(f"{_show(v)} is not an octal mode (examples: '0600', '0660')")
        mode = int(m.group(1), 8)
    elif isinstance(v, int) and 0 <= v <= 0o777:
        mode = v
    else:
        raise ValueError(f"{_show(v)} is not a mode (examples: '0600', '0660')")
    if mode & 0o600 != 0o600:
        raise ValueError(f"{format_mode(mode)} must let the owner read and write "
                         "(examples: '0600', '0660')")
    if mode & 0o111:
        raise ValueError(f"{format_mode(mode)} has execute bits; a socket needs only read and "
                         "write (examples: '0600', '0660')")
    return mode


def format_mode(mode: int) -> str:
    return f"0{mode:03o}"


def p_hostport(v: Any) -> str:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6); port 0 = any free port."""
    if isinstance(v, str):
        host, sep, port = v.strip().rpartition(":")
        if sep and host and port.isdigit() and int(port) <= 65535 and " " not in host:
            return v.strip()
    raise ValueError(f"{_show(v)} is not HOST:PORT (examples: 127.0.0.1:9464, [::1]:0)")


@dataclass(frozen=True)
class Band:
    """The controller's latency band: fixed (``lo``/``hi`` in ns) or learned
    (``lo``/``hi`` in percent of the drive's unloaded read latency)."""
    learned: bool
    lo: int
    hi: int

    def text(self) -> str:
        if self.learned:
            return f"{self.lo}%..{self.hi}%"
        return f"{units.format_duration(self.lo)}..{units.format_duration(self.hi)}"

    def ctl_overrides(self) -> dict[str, int]:
        """jbof_ctl_cfg fields."""
        if self.learned:
            return {"band_lo_pct": self.lo, "band_hi_pct": self.hi}
        return {"lat_min_ns": self.lo, "lat_max_ns": self.hi, "band_lo_pct": 0, "band_hi_pct": 0}


BAND_EXAMPLES = "examples: 250us..1500us (fixed), 150%..300% (learned from the unloaded read latency)"


def p_band(v: Any) -> Band:
    if not isinstance(v, str) or v.count("..") != 1:
        raise ValueError(f"{_show(v)} is not a band ({BAND_EXAMPLES})")
    lo_s, hi_s = (s.strip() for s in v.split(".."))
    if lo_s.endswith("%") and hi_s.endswith("%"):
        lo, hi = lo_s[:-1].strip(), hi_s[:-1].strip()
        if not (lo.isdigit() and hi.isdigit()):
            raise ValueError(f"{_show(v)}: percentages must be whole numbers ({BAND_EXAMPLES})")
        a, b = int(lo), int(hi)
        if not 100 <= a < b <= 10000:
            raise ValueError(f"{_show(v)}: need 100% <= low < high <= 10000%")
        return Band(True, a, b)
    try:
        a = units.parse_duration_ns(lo_s, bare_unit=None)
        b = units.parse_duration_ns(hi_s, bare_unit=None)
    except ValueError:
        raise ValueError(f"{_show(v)} is not a band ({BAND_EXAMPLES})") from None
    if not 0 < a < b <= 60 * 10**9:
        raise ValueError(f"{_show(v)}: need 0 < low < high <= 60s")
    return Band(False, a, b)


# ------------------------------------------------------------------- schema ---

TOP_KEYS = _section(
    Key("drives", "list", lambda v: v, "the drives: see drives[] keys", required=True),
    Key("listen", "mapping", lambda v: v, "where to accept NBD connections: see listen keys",
        "unix: jbof/nbd.sock"),
    Key("tenants", "list", lambda v: v, "the tenants, one NBD export each: see tenants[] keys",
        "none"),
    Key("admin", "mapping", lambda v: v, "the admin socket: see admin keys",
        "socket: next to listen.unix"),
    Key("metrics", "host:port", p_hostport, "serve Prometheus metrics on http://HOST:PORT/metrics "
        "(port 0 = any free port; default: off)"),
    Key("forecast", "mapping", lambda v: v, "the forecast socket and planner that lend owners' "
        "idle reservations to scavengers: see forecast keys (default: off)"),
    Key("tune", "mapping", lambda v: v, "online autotuning of the qos scheduler's knobs while "
        "every IO is served: see tune keys (default: off)"),
)

CONTROLLER_KEYS = _section(
    Key("rate_min", "rate", _bounded(units.parse_rate, CTL_MAX_RATE_BPS, units.format_rate),
        "lowest dispatch rate, cost-bytes/s", units.format_rate(CTL_RATE_MIN_BPS)),
    Key("rate_max", "rate", _bounded(units.parse_rate, CTL_MAX_RATE_BPS, units.format_rate),
        "highest dispatch rate, cost-bytes/s", units.format_rate(CTL_RATE_MAX_BPS)),
    Key("rate_init", "rate", _bounded(units.parse_rate, CTL_MAX_RATE_BPS, units.format_rate),
        "starting dispatch rate (default: clamped into rate_min..rate_max)",
        units.format_rate(CTL_RATE_INIT_BPS)),
    Key("bucket", "size", p_size_in(4096, 1 << 30), "token bucket depth",
        units.format_size(CTL_BUCKET_BYTES)),
    Key("ewma_shift", "integer", p_int(0, 10), "latency EWMA weight 1/2^shift (default: the policy's, gimbal 1, qos 3)", None),
)

DRIVE_KEYS = _section(
    Key("name", "name", p_name, "unique drive name", required=True),
    Key("backend", "choice", p_choice(BACKENDS), "memory | file | emulated", required=True),
    Key("path", "path", p_path, "file: a file or block device (required); emulated: optional "
        "sparse data file"),
    Key("size", "size", p_size_in(MIB, MAX_SIZE, 4096), "drive size (required for memory and "
        "emulated; file: default the file's size)"),
    Key("model", "preset", p_name, "emulated: SSD model preset", "dct983"),
    Key("policy", "choice", p_choice(POLICIES), f"scheduling policy ({', '.join(POLICIES)})",
        "qos"),
    Key("band", "band", p_band, "controller latency band: LOW..HIGH as durations (fixed) or "
        "percentages of the learned unloaded read latency (default: the policy's)"),
    Key("controller", "mapping", lambda v: v, "controller knobs: see drives[].controller keys"),
    Key("capacity", "rate", p_rate, "bandwidth the reservations on this drive may add up to "
        "(default: emulated = the preset's read bandwidth; memory/file = unchecked)"),
    Key("block_size", "size", p_size_in(512, MIB), "minimum IO size and alignment (a power of "
        "two; raised to what O_DIRECT needs)", "512"),
    Key("io_mode", "choice", p_choice(IO_MODES), "file: auto (io_uring, else threads) | uring | "
        "threads", "auto"),
    Key("direct", "boolean", p_bool, "file: use O_DIRECT when the file system allows it", True),
    Key("seed", "integer", p_int(0, 2**63 - 1), "emulated: model seed", 1),
)
DRIVE_LIVE_KEYS = ("policy", "band", "controller")

LISTEN_KEYS = _section(
    Key("unix", "path", p_path, "unix socket path; relative = under $XDG_RUNTIME_DIR (or /tmp)"),
    Key("mode", "mode", p_mode, "permissions of the unix socket (default: as the umask leaves "
        "them)"),
    Key("tcp", "host:port", p_hostport, "TCP address, e.g. 127.0.0.1:10809 (port 0 = any)"),
)

ADMIN_KEYS = _section(
    Key("socket", "path", p_path, "admin unix socket; relative = under $XDG_RUNTIME_DIR (or "
        "/tmp) (default: next to listen.unix: admin.sock for nbd.sock, NAME.admin.sock for "
        "NAME.sock)"),
    Key("mode", "mode", p_mode, "permissions of the admin socket; with no group/other bits "
        "only the daemon's user (and root) may connect", format_mode(DEFAULT_ADMIN_MODE)),
    Key("max_connections", "integer", p_int(1, 256), "admin connections served at once", 16),
)

TENANT_KEYS = _section(
    Key("name", "name", p_name, "unique tenant name = its NBD export name", required=True),
    Key("drive", "name", p_name, "the drive holding its namespace (default: the only drive)"),
    Key("size", "size", p_size_in(4096, MAX_SIZE, 4096), "namespace size (default: an equal "
        "share of what the drive has left; required when added live)"),
    Key("read_only", "boolean", p_bool, "refuse writes (EPERM)", False),
    Key("class", "choice", p_choice(CLASSES), "latency | reserved | best-effort | scavenger "
        "(default: latency if latency_slo is set, else reserved if reserve is set, else "
        "best-effort)"),
    Key("weight", "integer", p_int(1, 10000), "share of what remains after reservations", 1),
    Key("reserve", "rate", p_rate, "minimum rate, bytes/s (0 = none)", "0"),
    Key("limit", "rate", p_rate, "maximum rate, bytes/s (0 = none)", "0"),
    Key("limit_iops", "iops", p_iops, "maximum IOs/s (0 = none)", "0"),
    Key("latency_slo", "duration", p_slo, "end-to-end latency target; met when p99 <= it "
        "(0 = none)", "0"),
    Key("sq_depth", "integer", p_int(1, 65536), "submission queue credits (default: 256)"),
)
TENANT_LIVE_KEYS = ("weight", "class", "reserve", "limit", "limit_iops", "latency_slo", "sq_depth")


def p_tune_enabled(v: Any) -> bool | tuple[str, ...]:
    """``true`` (every drive), ``false`` (none) or a list of drive names."""
    if isinstance(v, bool):
        return v
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        names = tuple(p_name(x) for x in v)
        if len(set(names)) != len(names):
            raise ValueError(f"{_show(v)} names a drive twice")
        return names
    raise ValueError(f"{_show(v)} is not true, false or a list of drive names "
                     "(examples: true, [ssd0, ssd1])")


def p_knobs(v: Any) -> tuple[str, ...]:
    """A list of autotuner knobs (``jbof tune knobs``), or one comma-separated string."""
    from control.autotune import KNOBS
    items = [x.strip() for x in v.split(",")] if isinstance(v, str) else v
    if not isinstance(items, list) or not items or not all(isinstance(x, str) for x in items) \
            or any(x not in KNOBS for x in items) or len(set(items)) != len(items):
        raise ValueError(f"{_show(v)} is not a list of distinct knobs (allowed: "
                         f"{', '.join(KNOBS)})")
    return tuple(items)


def _p_duration_in(lo_ns: int, hi_ns: int) -> Callable[[Any], int]:
    parse = p_duration(positive=True)

    def p(v: Any) -> int:
        ns = parse(v)
        if not lo_ns <= ns <= hi_ns:
            raise ValueError(f"{_show(v)} is out of range (allowed: "
                             f"{units.format_duration(lo_ns)}..{units.format_duration(hi_ns)})")
        return ns
    return p


def p_budget(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1e6:
        raise ValueError(f"{_show(v)} is not a number of periods (allowed: 0..1000000)")
    return float(v)


def p_cap(v: Any) -> float:
    pct = p_percent(v)
    if pct <= 0:
        raise ValueError(f"{_show(v)} must be above 0% (examples: 50%, 100%)")
    return pct / 100


TUNE_KEYS = _section(
    Key("enabled", "drives", p_tune_enabled, "drives tuned from the start: true (every drive), "
        "false (none) or a list of names; the others can be enabled live (`jbof tune enable`)",
        True),
    Key("knobs", "list", p_knobs, "knobs searched (`jbof tune knobs`)",
        "band_hi_pct,slot_bytes,write_factor_max_x256"),
    Key("period", "duration", _p_duration_in(50 * 10**6, 10 * 10**9), "period of a steady mix: "
        "trials hold a configuration and are measured in whole periods (a phased mix uses its "
        "detected period)", "250ms"),
    Key("profile", "duration", _p_duration_in(10**9, 60 * 10**9), "profiling time before a "
        "search (signature and periods; periods up to a third of it are seen)", "4.5s"),
    Key("explore_cap", "percent", p_cap, "most of a search's time spent on trial "
        "configurations", "50%"),
    Key("slo_budget", "number", p_budget, "extra SLO-violating periods a search may cause", 10.0),
    Key("max_trials", "integer", p_int(1, 1000), "trials per search before the best so far is "
        "kept (plus successive halving of the best 4)", 30),
    Key("index", "path", p_path, "the index of best configurations by drive and workload "
        "signature (JSON; relative = under $XDG_STATE_HOME, else ~/.local/state) (default: "
        "$JBOF_TUNE_INDEX, else jbof/tune-index.json)"),
)

SECTIONS: tuple[tuple[str, dict[str, Key]], ...] = (
    ("top level", TOP_KEYS),
    ("drives[]", DRIVE_KEYS),
    ("drives[].controller", CONTROLLER_KEYS),
    ("listen", LISTEN_KEYS),
    ("tenants[]", TENANT_KEYS),
    ("admin", ADMIN_KEYS),
    ("forecast", FORECAST_KEYS),
    ("forecast.planner", PLANNER_KEYS),
    ("tune", TUNE_KEYS),
)


def schema_text() -> str:
    """Every config key as a plain-text reference (``jbof config keys``)."""
    header = (f"Daemon config keys {UNITS_HELP}  Changeable live (admin\n"
              f"socket): tenants[] {', '.join(TENANT_LIVE_KEYS)}; drives[] "
              f"{', '.join(DRIVE_LIVE_KEYS)}; tune.enabled (jbof tune enable/disable).")
    return render_keys(header, SECTIONS, width=16)


# -------------------------------------------------------------- typed model ---

@dataclass(frozen=True)
class Drive:
    name: str
    backend: str
    path: str | None = None
    size: int | None = None             # bytes; None = the file's size (file backend)
    model: str = "dct983"
    policy: str = "qos"
    band: Band | None = None            # None = the policy's
    controller: tuple[tuple[str, int], ...] = ()   # given knobs, CONTROLLER_KEYS order
    capacity: int | None = None         # bytes/s; None = estimated (drive_capacity_bps)
    block_size: int = 512
    io_mode: str = "auto"
    direct: bool = True
    seed: int = 1

    def knobs(self) -> dict[str, int]:
        return dict(self.controller)


@dataclass(frozen=True)
class Tenant:
    name: str
    drive: str
    size: int | None = None             # bytes; None = an equal share of what is left
    read_only: bool = False
    klass: str | None = None            # as given; see effective_class
    weight: int = 1
    reserve: int = 0                    # bytes/s
    limit: int = 0                      # bytes/s
    limit_iops: int = 0
    latency_slo: int = 0                # ns
    sq_depth: int | None = None

    @property
    def effective_class(self) -> str:
        if self.klass:
            return self.klass
        return "latency" if self.latency_slo else "reserved" if self.reserve else "best-effort"


@dataclass(frozen=True)
class Listen:
    unix: str | None = None             # as written (relative = under runtime_dir())
    mode: int | None = None
    tcp: str | None = None


@dataclass(frozen=True)
class Admin:
    socket: str | None = None           # None = admin.sock next to listen.unix
    mode: int = DEFAULT_ADMIN_MODE
    max_connections: int = 16


@dataclass(frozen=True)
class Config:
    drives: tuple[Drive, ...]
    tenants: tuple[Tenant, ...] = ()
    listen: Listen = field(default_factory=Listen)
    admin: Admin = field(default_factory=Admin)
    metrics: str | None = None
    source: str = "<config>"
    # the forecast: section as written (validated; parsed by forecast_settings())
    forecast: dict[str, Any] | None = field(default=None, hash=False)
    # the tune: section as written (validated; parsed by tune_settings())
    tune: dict[str, Any] | None = field(default=None, hash=False)

    def drive(self, name: str) -> Drive:
        for d in self.drives:
            if d.name == name:
                return d
        raise KeyError(name)

    def tenant(self, name: str) -> Tenant:
        for t in self.tenants:
            if t.name == name:
                return t
        raise KeyError(name)

    def with_overrides(self, unix: str | None = None, tcp: str | None = None,
                       admin_socket: str | None = None, metrics: str | None = None) -> Config:
        """The command line's --unix/--tcp/--admin-socket/--metrics over the file's values."""
        listen, admin, met = self.listen, self.admin, self.metrics
        for opt, value, parse in (("--unix", unix, p_path), ("--tcp", tcp, p_hostport),
                                  ("--admin-socket", admin_socket, p_path),
                                  ("--metrics", metrics, p_hostport)):
            if value is None:
                continue
            try:
                parse(value)
            except ValueError as e:
                raise ConfigError(opt, "", str(e)) from None
        if unix is not None:
            listen = dataclasses.replace(listen, unix=unix)
        if tcp is not None:
            listen = dataclasses.replace(listen, tcp=tcp)
        if admin_socket is not None:
            admin = dataclasses.replace(admin, socket=admin_socket)
        if metrics is not None:
            met = metrics
        return dataclasses.replace(self, listen=listen, admin=admin, metrics=met)

    # -- resolved socket paths (relative paths live under runtime_dir()) --

    @property
    def nbd_socket(self) -> str | None:
        if self.listen.unix is None and self.listen.tcp is not None:
            return None
        return resolve_socket_path(self.listen.unix or DEFAULT_NBD_SOCKET)

    @property
    def admin_socket(self) -> str:
        if self.admin.socket is not None:
            return resolve_socket_path(self.admin.socket)
        nbd = self.nbd_socket
        if nbd is None:
            return resolve_socket_path(DEFAULT_ADMIN_SOCKET)
        p = Path(nbd)
        stem = p.name.removesuffix(".sock")
        return str(p.parent / ("admin.sock" if stem == "nbd" else f"{stem}.admin.sock"))


def runtime_dir() -> Path:
    """Where relative socket paths live: $XDG_RUNTIME_DIR, else /tmp."""
    return Path(os.environ.get("XDG_RUNTIME_DIR") or "/tmp")


def resolve_socket_path(raw: str) -> str:
    p = Path(os.path.expanduser(raw))
    return str(p if p.is_absolute() else runtime_dir() / p)


# ------------------------------------------------------------------ parsing ---

def _parse_drive(raw: Any, src: str, where: str) -> Drive:
    d = _read(raw, DRIVE_KEYS, src, where)
    if d["backend"] != "file" and "size" not in d:
        raise ConfigError(src, f"{where}.size", f"is required for a {d['backend']} drive")
    if d["backend"] == "file" and "path" not in d:
        raise ConfigError(src, f"{where}.path", "is required for a file drive")
    bs = d.get("block_size", 512)
    if bs & (bs - 1):
        raise ConfigError(src, f"{where}.block_size", f"{bs} is not a power of two")
    if "size" in d and d["size"] % bs:
        raise ConfigError(src, f"{where}.size", f"is not a multiple of block_size {bs}")
    if d.get("model") is not None:
        models = _known_models()
        if models is not None and d["model"] not in models:
            raise ConfigError(src, f"{where}.model", f"{_show(d['model'])} is not a known model "
                              f"(allowed: {', '.join(models)})")
    knobs: tuple[tuple[str, int], ...] = ()
    if "controller" in d:
        c = _read(d["controller"], CONTROLLER_KEYS, src, f"{where}.controller")
        knobs = tuple((k, c[k]) for k in CONTROLLER_KEYS if k in c)
        _check_controller(dict(knobs), src, f"{where}.controller")
    fields = {k: v for k, v in d.items() if k not in ("controller",)}
    return Drive(controller=knobs, **fields)


def effective_controller(knobs: Mapping[str, int]) -> dict[str, int]:
    """The controller's rates and bucket with defaults filled in: a rate_max
    below the default rate_init (or rate_min) pulls those down with it."""
    rmax = knobs.get("rate_max", CTL_RATE_MAX_BPS)
    rmin = knobs.get("rate_min", min(CTL_RATE_MIN_BPS, rmax))
    rinit = knobs.get("rate_init", max(rmin, min(CTL_RATE_INIT_BPS, rmax)))
    out = {"rate_min": rmin, "rate_max": rmax, "rate_init": rinit,
           "bucket": knobs.get("bucket", CTL_BUCKET_BYTES)}
    if "ewma_shift" in knobs:        # else the policy's own (jbof_sched_default_cfg)
        out["ewma_shift"] = knobs["ewma_shift"]
    return out


def _check_controller(knobs: Mapping[str, int], src: str, where: str) -> None:
    e = effective_controller(knobs)
    fr = units.format_rate
    if e["rate_min"] == 0:
        raise ConfigError(src, f"{where}.rate_min", "must be above 0")
    if e["rate_min"] > e["rate_max"]:
        raise ConfigError(src, f"{where}.rate_min", f"{fr(e['rate_min'])} is above rate_max "
                          f"{fr(e['rate_max'])}")
    if not e["rate_min"] <= e["rate_init"] <= e["rate_max"]:
        raise ConfigError(src, f"{where}.rate_init", f"{fr(e['rate_init'])} is outside "
                          f"rate_min..rate_max ({fr(e['rate_min'])}..{fr(e['rate_max'])})")
    refill_ns = e["bucket"] * 10**9 // e["rate_min"]
    if refill_ns > CTL_MAX_REFILL_NS:
        key = "bucket" if "bucket" in knobs else "rate_min"
        raise ConfigError(src, f"{where}.{key}", f"a {units.format_size(e['bucket'])} bucket "
                          f"takes {units.human_duration(refill_ns)} to fill at rate_min "
                          f"{fr(e['rate_min'])} (allowed: up to "
                          f"{units.human_duration(CTL_MAX_REFILL_NS)}: a smaller bucket or a "
                          "higher rate_min)")


def _tenant_from(t: Mapping[str, Any], drive: str) -> Tenant:
    return Tenant(name=t["name"], drive=drive, size=t.get("size"),
                  read_only=t.get("read_only", False), klass=t.get("class"),
                  weight=t.get("weight", 1), reserve=t.get("reserve", 0),
                  limit=t.get("limit", 0), limit_iops=t.get("limit_iops", 0),
                  latency_slo=t.get("latency_slo", 0), sq_depth=t.get("sq_depth"))


def _default_drive(drive: str | None, drives: tuple[Drive, ...], src: str, where: str) -> str:
    names = [d.name for d in drives]
    if drive is None:
        if len(names) != 1:
            raise ConfigError(src, f"{where}.drive", "is required when there are several drives "
                              f"(have: {', '.join(names)})")
        return names[0]
    if drive not in names:
        raise ConfigError(src, f"{where}.drive", f"'{drive}' is not a drive "
                          f"(have: {', '.join(names)})")
    return drive


def parse_config(data: Any, src: str = "<config>") -> Config:
    """Validate a config document (parsed YAML) into a Config; ConfigError on any problem."""
    if data is None:
        raise ConfigError(src, "", "is empty (a config needs at least drives:)")
    top = _read(data, TOP_KEYS, src, "")
    raw_drives = top["drives"]
    if not isinstance(raw_drives, list) or not 1 <= len(raw_drives) <= MAX_DRIVES:
        raise ConfigError(src, "drives", f"expected a list of 1..{MAX_DRIVES} drives")
    drives: list[Drive] = []
    for i, raw in enumerate(raw_drives):
        d = _parse_drive(raw, src, f"drives[{i}]")
        for j, x in enumerate(drives):
            if x.name == d.name:
                raise ConfigError(src, f"drives[{i}].name",
                                  f"'{d.name}' is already the name of drives[{j}]")
        drives.append(d)

    lst = _read(top.get("listen", {}), LISTEN_KEYS, src, "listen")
    listen = Listen(unix=lst.get("unix"), mode=lst.get("mode"), tcp=lst.get("tcp"))
    if listen.mode is not None and listen.unix is None and listen.tcp is not None:
        raise ConfigError(src, "listen.mode", "applies to listen.unix, which is not set")
    adm = _read(top.get("admin", {}), ADMIN_KEYS, src, "admin")
    admin = Admin(**adm)

    raw_tenants = top.get("tenants", [])
    if not isinstance(raw_tenants, list):
        raise ConfigError(src, "tenants", "expected a list of tenants")
    if len(raw_tenants) > MAX_TENANTS:
        raise ConfigError(src, "tenants", f"has {len(raw_tenants)} tenants "
                          f"(allowed: up to {MAX_TENANTS})")
    tenants: list[Tenant] = []
    for i, raw in enumerate(raw_tenants):
        where = f"tenants[{i}]"
        t = _read(raw, TENANT_KEYS, src, where)
        for j, other in enumerate(tenants):
            if other.name == t["name"]:
                raise ConfigError(src, f"{where}.name",
                                  f"'{other.name}' is already the name of tenants[{j}]")
        tenants.append(_tenant_from(t, _default_drive(t.get("drive"), tuple(drives), src, where)))
    forecast = None
    if "forecast" in top:
        _check_forecast(top["forecast"], tuple(drives), src)
        forecast = copy.deepcopy(top["forecast"])
    tune = None
    if "tune" in top:
        _check_tune(top["tune"], tuple(drives), src)
        tune = copy.deepcopy(top["tune"])
    cfg = Config(drives=tuple(drives), tenants=tuple(tenants), listen=listen, admin=admin,
                 metrics=top.get("metrics"), source=src, forecast=forecast, tune=tune)
    check_config(cfg, src)
    for name, path in (("listen.unix", cfg.nbd_socket), ("admin.socket", cfg.admin_socket)):
        if path is not None and len(path.encode()) > 107:
            raise ConfigError(src, name, f"{path!r} is longer than 107 bytes (a unix socket "
                              "path limit)")
    return cfg


def _check_forecast(raw: Any, drives: tuple[Drive, ...], src: str) -> dict[str, Any]:
    """The forecast: section parsed (FORECAST_KEYS, PLANNER_KEYS), its drive resolved."""
    got = parse_forecast_config(raw, src)
    name = _default_drive(got["drive"], drives, src, "forecast")
    d = next(x for x in drives if x.name == name)
    cap, why = drive_capacity_bps(d)
    want = got["planner"].capacity_bps
    if cap is not None and want > cap:
        raise ConfigError(src, "forecast.capacity", f"{units.human_rate(want)} is above drive "
                          f"'{name}' capacity {units.human_rate(cap)} ({why})")
    got["drive"] = name
    return got


def forecast_settings(cfg: Config) -> dict[str, Any] | None:
    """The parsed forecast: section (control.forecast_server.parse_forecast_config's dict,
    ``drive`` resolved), or None when the config has none."""
    if cfg.forecast is None:
        return None
    return _check_forecast(cfg.forecast, cfg.drives, cfg.source)


def _check_tune(raw: Any, drives: tuple[Drive, ...], src: str) -> dict[str, Any]:
    """The tune: section parsed (TUNE_KEYS, defaults filled in), ``enabled`` as drive names."""
    got = _read(raw, TUNE_KEYS, src, "tune")
    out = {k: got[k] if k in got else _default(TUNE_KEYS, k) for k in TUNE_KEYS if k != "index"}
    names = [d.name for d in drives]
    en = out["enabled"]
    if isinstance(en, bool):
        out["enabled"] = tuple(names) if en else ()
    for n in out["enabled"]:
        if n not in names:
            raise ConfigError(src, "tune.enabled", f"'{n}' is not a drive (have: {', '.join(names)})")
    out["period_s"] = out.pop("period") / 1e9
    out["profile_s"] = out.pop("profile") / 1e9
    if "index" in got:
        p = Path(os.path.expanduser(got["index"]))
        state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"),
                                                                 ".local", "state")
        out["index"] = str(p if p.is_absolute() else Path(state) / p)
    else:
        from control.autotune import default_index_path
        out["index"] = str(default_index_path())
    return out


def tune_settings(cfg: Config) -> dict[str, Any] | None:
    """The parsed tune: section -- ``enabled`` (drive names), ``knobs``, ``period_s``,
    ``profile_s``, ``explore_cap`` (a fraction), ``slo_budget``, ``max_trials``, ``index``
    (a resolved path) -- or None when the config has none (no tuning)."""
    if cfg.tune is None:
        return None
    return _check_tune(cfg.tune, cfg.drives, cfg.source)


def load_config(path: str | Path) -> Config:
    """Read and validate a config file (ConfigError: one line naming the file)."""
    src = str(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ConfigError(src, "", "no such file") from None
    except OSError as e:
        raise ConfigError(src, "", f"cannot read: {e.strerror or e}") from None
    if stat.S_ISDIR(st.st_mode):
        raise ConfigError(src, "", "is a directory, not a config file")
    if st.st_size > MAX_FILE_BYTES:
        raise ConfigError(src, "", f"is {units.human_size(st.st_size)}; a config file may be at "
                          f"most {units.format_size(MAX_FILE_BYTES)}")
    return parse_config(load_yaml(path), src)


# ------------------------------------------------------------- cross-checks ---

@functools.cache
def _known_models() -> tuple[str, ...] | None:
    try:
        from dataplane.sim import preset_names
    except ImportError:
        return None
    return preset_names()


@functools.cache
def _preset_read_bps(model: str) -> int | None:
    """Best-case read bandwidth of an SSD model preset: min(link, dies x page / tR)."""
    try:
        from dataplane._jbof import ffi, lib
    except ImportError:
        return None
    cfg = ffi.new("jbof_ssd_cfg *")
    if lib.jbof_ssd_preset(model.encode(), cfg) < 0 or cfg.read_page_ns == 0:
        return None
    dies_bps = cfg.units * cfg.page_bytes * 10**9 // cfg.read_page_ns
    return int(min(cfg.link_bps, dies_bps))


def drive_capacity_bps(d: Drive) -> tuple[int | None, str]:
    """(bytes/s the reservations on drive d may add up to, where that figure comes from)."""
    if d.capacity is not None:
        return d.capacity, "its configured capacity"
    if d.backend == "emulated":
        bps = _preset_read_bps(d.model)
        if bps is not None:
            return bps, f"the {d.model} preset's read bandwidth; set capacity to change it"
    return None, "unknown"


def _file_size(path: str | None) -> int | None:
    """Size of an existing regular file or readable block device, else None."""
    if not path:
        return None
    try:
        st = os.stat(path)
        if stat.S_ISREG(st.st_mode):
            return st.st_size
        if stat.S_ISBLK(st.st_mode):
            fd = os.open(path, os.O_RDONLY)
            try:
                return os.lseek(fd, 0, os.SEEK_END)
            finally:
                os.close(fd)
    except OSError:
        return None
    return None


def drive_size(d: Drive) -> int | None:
    return d.size if d.size is not None else _file_size(d.path)


def default_tenant_where(i: int) -> str:
    return f"tenants[{i}]"


def check_config(cfg: Config, src: str,
                 where: Callable[[int], str] = default_tenant_where) -> None:
    """Cross-checks over the whole config (see the module docstring).

    ``where(i)`` names tenant i in messages: ``tenants[i]`` for a file; the
    admin socket names the tenant being changed ``args``."""
    fr = units.format_rate
    per_drive: dict[str, list[int]] = {d.name: [] for d in cfg.drives}
    for i, t in enumerate(cfg.tenants):
        w = where(i)
        if t.drive not in per_drive:
            raise ConfigError(src, f"{w}.drive", f"'{t.drive}' is not a drive "
                              f"(have: {', '.join(per_drive)})")
        per_drive[t.drive].append(i)
        if t.reserve and t.limit and t.reserve > t.limit:
            raise ConfigError(src, f"{w}.reserve", f"{fr(t.reserve)} is above limit "
                              f"{fr(t.limit)}")
        if t.klass == "latency" and not t.latency_slo:
            raise ConfigError(src, f"{w}.class", "class latency needs latency_slo")
        if t.klass == "reserved" and not t.reserve:
            raise ConfigError(src, f"{w}.class", "class reserved needs reserve")
        d = cfg.drive(t.drive)
        if t.size is not None and t.size % d.block_size:
            raise ConfigError(src, f"{w}.size", f"{units.format_size(t.size)} is not a multiple "
                              f"of drive '{d.name}' block_size {d.block_size}")
    for d in cfg.drives:
        mine = per_drive[d.name]
        if len(mine) > MAX_TENANTS_PER_DRIVE:
            raise ConfigError(src, f"{where(mine[MAX_TENANTS_PER_DRIVE])}.drive",
                              f"drive '{d.name}' has more than {MAX_TENANTS_PER_DRIVE} tenants")
        size = drive_size(d)
        if size is not None:
            used = 0
            for i in mine:
                t = cfg.tenants[i]
                used += t.size or 0
                if used > size:
                    raise ConfigError(src, f"{where(i)}.size", f"namespaces on drive '{d.name}' "
                                      f"would overlap: they add up to {units.format_size(used)}, "
                                      f"more than its {units.format_size(size)}")
            unsized = [i for i in mine if cfg.tenants[i].size is None]
            if unsized and (size - used) // len(unsized) < MIB:
                raise ConfigError(src, f"{where(unsized[0])}.size", f"drive '{d.name}' has "
                                  f"{units.human_size(size - used)} left for {len(unsized)} "
                                  "tenant(s) without a size (each needs at least 1MiB)")
        cap, why = drive_capacity_bps(d)
        if cap is not None:
            total = 0
            for i in mine:
                total += cfg.tenants[i].reserve
                if cfg.tenants[i].reserve and total > cap:
                    raise ConfigError(src, f"{where(i)}.reserve", f"reservations on drive "
                                      f"'{d.name}' add up to {units.human_rate(total)}, more "
                                      f"than its capacity {units.human_rate(cap)} ({why})")


# ---------------------------------------------------------- live arguments ---

def parse_tenant_args(args: Any, cfg: Config, src: str = "admin") -> Tenant:
    """A new tenant from admin-socket arguments (same keys and units as the file)."""
    t = _read(args, TENANT_KEYS, src, "args")
    if "size" not in t:
        raise ConfigError(src, "args.size", "is required for a tenant added live")
    return _tenant_from(t, _default_drive(t.get("drive"), cfg.drives, src, "args"))


def parse_tenant_changes(args: Any, src: str = "admin") -> dict[str, Any]:
    """Live tenant changes (``TENANT_LIVE_KEYS``) as Tenant field values."""
    if not isinstance(args, dict):
        raise ConfigError(src, "args", "expected a mapping of keys")
    for k in args:
        if k in TENANT_KEYS and k not in TENANT_LIVE_KEYS:
            raise ConfigError(src, f"args.{k}", "cannot be changed live (remove the tenant and "
                              f"add it again; live: {', '.join(TENANT_LIVE_KEYS)})")
    live = {k: TENANT_KEYS[k] for k in TENANT_LIVE_KEYS}
    given = _read(args, live, src, "args")
    if not given:
        raise ConfigError(src, "args", f"nothing to change (give one of: "
                          f"{', '.join(TENANT_LIVE_KEYS)})")
    return {("klass" if k == "class" else k): v for k, v in given.items()}


def parse_drive_changes(args: Any, drive: Drive, src: str = "admin") -> Drive:
    """A drive with live changes (policy, band, controller) applied."""
    if not isinstance(args, dict):
        raise ConfigError(src, "args", "expected a mapping of keys")
    for k in args:
        if k in DRIVE_KEYS and k not in DRIVE_LIVE_KEYS:
            raise ConfigError(src, f"args.{k}", "cannot be changed live (edit the config and "
                              f"restart; live: {', '.join(DRIVE_LIVE_KEYS)})")
    given = _read(args, {k: DRIVE_KEYS[k] for k in DRIVE_LIVE_KEYS}, src, "args")
    if not given:
        raise ConfigError(src, "args", f"nothing to change (give one of: "
                          f"{', '.join(DRIVE_LIVE_KEYS)})")
    out = drive
    if "policy" in given:
        out = dataclasses.replace(out, policy=given["policy"])
    if "band" in given:
        out = dataclasses.replace(out, band=given["band"])
    if "controller" in given:
        c = _read(given["controller"], CONTROLLER_KEYS, src, "args.controller")
        knobs = {**out.knobs(), **c}
        _check_controller(knobs, src, "args.controller")
        out = dataclasses.replace(out, controller=tuple((k, knobs[k]) for k in CONTROLLER_KEYS
                                                        if k in knobs))
    return out


# ------------------------------------------------------------ Engine config ---

def drive_sched_overrides(d: Drive) -> dict[str, Any]:
    """jbof_sched_cfg overrides of a drive (band and controller knobs)."""
    ctl: dict[str, int] = {}
    if d.band is not None:
        ctl.update(d.band.ctl_overrides())
    if d.controller:
        e = effective_controller(d.knobs())
        ctl.update(rate_min_bps=e["rate_min"], rate_max_bps=e["rate_max"],
                   rate_init_bps=e["rate_init"], bucket_bytes=e["bucket"])
        if "ewma_shift" in e:
            ctl["ewma_shift"] = e["ewma_shift"]
    return {"ctl": ctl} if ctl else {}


def engine_drive(d: Drive) -> dict[str, Any]:
    out: dict[str, Any] = {"name": d.name, "backend": d.backend, "model": d.model,
                           "policy": d.policy, "block_size": d.block_size,
                           "io_mode": d.io_mode, "direct": d.direct, "seed": d.seed,
                           "sched": drive_sched_overrides(d)}
    if d.size is not None:
        out["size"] = d.size
    if d.path is not None:
        out["path"] = d.path
    return out


def engine_tenant(t: Tenant) -> dict[str, Any]:
    out: dict[str, Any] = {"name": t.name, "drive": t.drive, "read_only": t.read_only,
                           "weight": t.weight, "class": t.effective_class,
                           "reserve": t.reserve, "limit": t.limit, "limit_iops": t.limit_iops,
                           "latency_slo": t.latency_slo}
    if t.size is not None:
        out["size"] = t.size
    if t.sq_depth is not None:
        out["sq_depth"] = t.sq_depth
    return out


def tenant_live_settings(t: Tenant) -> dict[str, Any]:
    """The Engine.set_tenant keywords that make a running tenant match t."""
    spec = engine_tenant(t)
    return {k: spec[k] for k in TENANT_LIVE_KEYS if k in spec}


def engine_config(cfg: Config) -> dict[str, Any]:
    """The dataplane.engine.Engine config dict (integers, resolved socket paths)."""
    listen: dict[str, Any] = {}
    if cfg.nbd_socket is not None:
        listen["unix"] = cfg.nbd_socket
    if cfg.listen.tcp is not None:
        listen["tcp"] = cfg.listen.tcp
    return {"drives": [engine_drive(d) for d in cfg.drives],
            "tenants": [engine_tenant(t) for t in cfg.tenants],
            "listen": listen}


# ------------------------------------------------------------- persistence ---

def drive_doc(d: Drive) -> dict[str, Any]:
    out: dict[str, Any] = {"name": d.name, "backend": d.backend}
    if d.path is not None:
        out["path"] = d.path
    if d.size is not None:
        out["size"] = units.format_size(d.size)
    if d.backend == "emulated" or d.model != "dct983":
        out["model"] = d.model
    out["policy"] = d.policy
    if d.band is not None:
        out["band"] = d.band.text()
    if d.controller:
        fmt: dict[str, Callable[[int], Any]] = {
            "rate_min": units.format_rate, "rate_max": units.format_rate,
            "rate_init": units.format_rate, "bucket": units.format_size, "ewma_shift": int}
        out["controller"] = {k: fmt[k](v) for k, v in d.controller}
    if d.capacity is not None:
        out["capacity"] = units.format_rate(d.capacity)
    if d.block_size != 512:
        out["block_size"] = units.format_size(d.block_size)
    if d.io_mode != "auto":
        out["io_mode"] = d.io_mode
    if not d.direct:
        out["direct"] = False
    if d.seed != 1:
        out["seed"] = d.seed
    return out


def tenant_doc(t: Tenant) -> dict[str, Any]:
    """A tenant in the file's form (human units; defaults left out)."""
    out: dict[str, Any] = {"name": t.name, "drive": t.drive}
    if t.size is not None:
        out["size"] = units.format_size(t.size)
    if t.read_only:
        out["read_only"] = True
    if t.klass is not None:
        out["class"] = t.klass
    if t.weight != 1:
        out["weight"] = t.weight
    if t.reserve:
        out["reserve"] = units.format_rate(t.reserve)
    if t.limit:
        out["limit"] = units.format_rate(t.limit)
    if t.limit_iops:
        out["limit_iops"] = units.format_iops(t.limit_iops)
    if t.latency_slo:
        out["latency_slo"] = units.format_duration(t.latency_slo)
    if t.sq_depth is not None:
        out["sq_depth"] = t.sq_depth
    return out


def tenant_settings(t: Tenant) -> dict[str, Any]:
    """A tenant's live settings in human units, defaults included (``0`` = none)."""
    return {"weight": t.weight, "class": t.effective_class,
            "reserve": units.format_rate(t.reserve) if t.reserve else "0",
            "limit": units.format_rate(t.limit) if t.limit else "0",
            "limit_iops": units.format_iops(t.limit_iops) if t.limit_iops else "0",
            "latency_slo": units.format_duration(t.latency_slo) if t.latency_slo else "0",
            "sq_depth": t.sq_depth if t.sq_depth is not None else "default"}


def document(cfg: Config) -> dict[str, Any]:
    """The config as a YAML-ready document in human units (parse_config round-trips it)."""
    out: dict[str, Any] = {"drives": [drive_doc(d) for d in cfg.drives]}
    lst: dict[str, Any] = {}
    if cfg.listen.unix is not None:
        lst["unix"] = cfg.listen.unix
    if cfg.listen.mode is not None:
        lst["mode"] = format_mode(cfg.listen.mode)
    if cfg.listen.tcp is not None:
        lst["tcp"] = cfg.listen.tcp
    if lst:
        out["listen"] = lst
    out["tenants"] = [tenant_doc(t) for t in cfg.tenants]
    adm: dict[str, Any] = {}
    if cfg.admin.socket is not None:
        adm["socket"] = cfg.admin.socket
    if cfg.admin.mode != DEFAULT_ADMIN_MODE:
        adm["mode"] = format_mode(cfg.admin.mode)
    if cfg.admin.max_connections != 16:
        adm["max_connections"] = cfg.admin.max_connections
    if adm:
        out["admin"] = adm
    if cfg.metrics is not None:
        out["metrics"] = cfg.metrics
    if cfg.forecast is not None:
        out["forecast"] = copy.deepcopy(cfg.forecast)
    if cfg.tune is not None:
        out["tune"] = copy.deepcopy(cfg.tune)
    return out


def dump_yaml(cfg: Config, header: str = "") -> str:
    body = yaml.safe_dump(document(cfg), sort_keys=False, default_flow_style=None, width=100,
                          allow_unicode=True)
    return (header + body) if header else body


def save_config(cfg: Config, path: str | Path, header: str = "") -> None:
    """Write cfg to path atomically, keeping the current file as ``path.prev``.

    tmp file + fsync, link the current file to ``.prev`` (atomically, via a
    rename), rename tmp over path, fsync the directory.  OSError on failure
    (the current file is then untouched)."""
    p = Path(path)
    text = dump_yaml(cfg, header)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.chmod(tmp, stat.S_IMODE(os.stat(p).st_mode))
        except FileNotFoundError:
            pass
        if p.exists():
            prev_tmp = f"{tmp}.prev"
            try:
                os.link(p, prev_tmp)
            except OSError as e:
                if e.errno not in (errno.EPERM, errno.EXDEV, errno.EMLINK, errno.ENOTSUP):
                    raise
                with open(p, "rb") as src, open(prev_tmp, "wb") as dst:
                    dst.write(src.read())
                    dst.flush()
                    os.fsync(dst.fileno())
            os.replace(prev_tmp, f"{p}.prev")
        os.replace(tmp, p)
    except BaseException:
        for leftover in (tmp, f"{tmp}.prev"):
            try:
                os.unlink(leftover)
            except FileNotFoundError:
                pass
        raise
    dfd = os.open(p.parent, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def summary(cfg: Config) -> str:
    """One line: what the config serves (``jbof config check``)."""
    parts = []
    for d in cfg.drives:
        mine = [t for t in cfg.tenants if t.drive == d.name]
        size = drive_size(d)
        used = sum(t.size or 0 for t in mine)
        room = f"{units.human_size(used)}/{units.human_size(size)}" if size else "size of file"
        parts.append(f"{d.name} ({d.backend}, {d.policy}, {len(mine)} tenant"
                     f"{'' if len(mine) == 1 else 's'}, {room})")
    listen = ", ".join(x for x in (cfg.nbd_socket, cfg.listen.tcp) if x)
    return (f"{cfg.source}: ok: {len(cfg.drives)} drive{'' if len(cfg.drives) == 1 else 's'}: "
            f"{'; '.join(parts)}; NBD on {listen}; admin {cfg.admin_socket}; "
            f"metrics {cfg.metrics or 'off'}"
            + (f"; forecast {fs['socket']}" if (fs := forecast_settings(cfg)) else "")
            + (f"; tune {','.join(ts['enabled']) or 'off until enabled'}"
               if (ts := tune_settings(cfg)) else ""))
