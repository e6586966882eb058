"""The daemon's config (``jbof serve --config FILE``): the typed model, validation,
cross-checks and live changes.  Its keys are control/config_schema.py's; what a
config becomes (the Engine's dicts, the YAML document, the saved file) is
control/config_export.py's.

One schema -- the ``Key`` tables of config_schema.py -- drives validation of the file, the
admin socket's arguments (``control.daemon.admin``), the CLI's option help
(``control.cli.admin``) and the docs (``schema_text()``, ``jbof config keys``).
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
      socket: jbof/forecast.sock   # from the scheduler's forecasts (control/lending/forecast_server.py)
      capacity: 2800MiB/s
      planner: {slowdown_budget: 1%}
    tune:                          # optional: online autotuning of the qos knobs
      enabled: [ssd0]              # (control/tune/autotune_live.py); never rewrites this file
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
control/lending/forecast_server.py, PLANNER_KEYS of control/lending/planner.py: part of this
schema, listed by ``jbof config keys``); its ``drive`` must exist and its
``capacity`` may not exceed that drive's capacity estimate.  The ``tune:``
section (TUNE_KEYS, parsed by ``tune_settings``) names existing drives only;
a drive that does not run ``qos`` is simply not tuned while it does not.
"""
from __future__ import annotations

import copy
import dataclasses
import functools
import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from control import units
from control.config_schema import (
    ADMIN_KEYS,
    CONTROLLER_KEYS,
    CTL_BUCKET_BYTES,
    CTL_MAX_REFILL_NS,
    CTL_RATE_INIT_BPS,
    CTL_RATE_MAX_BPS,
    CTL_RATE_MIN_BPS,
    DEFAULT_ADMIN_MODE,
    DEFAULT_ADMIN_SOCKET,
    DEFAULT_NBD_SOCKET,
    DRIVE_KEYS,
    DRIVE_LIVE_KEYS,
    LISTEN_KEYS,
    MAX_DRIVES,
    MAX_FILE_BYTES,
    MAX_TENANTS,
    MAX_TENANTS_PER_DRIVE,
    MIB,
    TENANT_KEYS,
    TENANT_LIVE_KEYS,
    TOP_KEYS,
    LIMITS_ENGINE,
    LIMITS_KEYS,
    TUNE_KEYS,
    Band,
    is_loopback_hostport,
    p_hostport,
    p_path,
)
from control.errors import ConfigError
from control.lending.forecast_server import parse_forecast_config
from control.schema import (Key, check_tenant_class, key_default, load_yaml, read_section, show,
                            tenant_class)


__all__ = [
    "Admin",
    "Config",
    "ConfigError",
    "Drive",
    "Listen",
    "Tenant",
    "check_config",
    "drive_capacity_bps",
    "forecast_settings",
    "load_config",
    "parse_config",
    "parse_drive_changes",
    "parse_tenant_args",
    "parse_tenant_changes",
    "resolve_socket_path",
    "runtime_dir",
    "tune_settings",
]


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
    block_size: int | None = None     # None = the backend's minimum
    io_mode: str = "auto"
    direct: bool = True
    zero_cost: str = "auto"             # auto | command | write (csrc/cost.c section 6)
    seed: int = 1
    reactor: int | None = None          # None = round robin (limits.reactors)

    def knobs(self) -> dict[str, int]:
        return dict(self.controller)


@dataclass(frozen=True)
class Tenant:
    name: str
    drive: str
    size: int | None = None             # bytes; None = an equal share of what is left
    offset: int | None = None           # bytes into the drive; None = first fit
    read_only: bool = False
    buffer: int | None = None           # bytes; None = limits.tenant_buffer
    max_requests: int | None = None
    max_connections: int | None = None
    description: str | None = None
    default: bool = False
    klass: str | None = None            # as given; see effective_class
    weight: int = 1
    reserve: int = 0                    # bytes/s
    limit: int = 0                      # bytes/s
    limit_iops: int = 0
    latency_slo: int = 0                # ns
    sq_depth: int | None = None
    tls_identity: str | None = None     # None = the tenant name
    allow_uids: tuple[int, ...] = ()
    allow_gids: tuple[int, ...] = ()

    @property
    def effective_class(self) -> str:
        return tenant_class(self.klass, self.latency_slo, self.reserve)


@dataclass(frozen=True)
class Listen:
    unix: str | None = None             # as written (relative = under runtime_dir())
    mode: int | None = None
    tcp: str | None = None
    tls: str | dict[str, str] | None = field(default=None, hash=False)  # as written
    tls_psk_file: str | None = None
    insecure: bool = False

    def tls_mode(self, listener: str) -> str:
        """off | allow | require for "unix" or "tcp" (default: require with a PSK file)."""
        default = "require" if self.tls_psk_file else "off"
        if isinstance(self.tls, dict):
            return self.tls.get(listener, default)
        return self.tls or default


def check_listen(listen: Listen, src: str) -> None:
    """TLS needs a private PSK file; plaintext TCP off loopback needs insecure: true."""
    if listen.tls_psk_file is not None:
        p = listen.tls_psk_file
        try:
            mode = os.stat(p).st_mode
        except OSError as e:
            raise ConfigError(src, "listen.tls_psk_file", f"cannot read {p}: {e.strerror}") from None
        if mode & 0o077:
            raise ConfigError(src, "listen.tls_psk_file",
                              f"{p} has mode {stat.S_IMODE(mode):04o}; a PSK file must not be "
                              f"readable by group or others (chmod 600 {p})")
    used = [k for k, v in (("unix", listen.unix), ("tcp", listen.tcp)) if v is not None] or ["unix"]
    if listen.tls_psk_file is None and any(listen.tls_mode(k) != "off" for k in used):
        raise ConfigError(src, "listen.tls", "TLS needs listen.tls_psk_file (identity:hexkey "
                          "lines, mode 0600)")
    if (listen.tcp is not None and not is_loopback_hostport(listen.tcp)
            and listen.tls_mode("tcp") != "require" and not listen.insecure):
        raise ConfigError(src, "listen.tcp", f"{listen.tcp} is not a loopback address and TLS "
                          "is not required: set listen.tls: require (with tls_psk_file), or "
                          "insecure: true to serve plaintext NBD to the network")


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
    # the limits: section as written (validated; parsed by limits_settings())
    limits: dict[str, Any] | None = field(default=None, hash=False)

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
        if tcp is not None:
            check_listen(listen, "--tcp")
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


def _parse_drive(raw: Any, src: str, where: str) -> Drive:
    d = read_section(raw, DRIVE_KEYS, src, where)
    if d["backend"] != "file" and "size" not in d:
        raise ConfigError(src, f"{where}.size", f"is required for a {d['backend']} drive")
    if d["backend"] == "file" and "path" not in d:
        raise ConfigError(src, f"{where}.path", "is required for a file drive")
    bs = d.get("block_size", 1)
    if bs & (bs - 1):
        raise ConfigError(src, f"{where}.block_size", f"{bs} is not a power of two")
    if "size" in d and d["size"] % bs:
        raise ConfigError(src, f"{where}.size", f"is not a multiple of block_size {bs}")
    if d.get("model") is not None:
        models = _known_models()
        if models is not None and d["model"] not in models:
            raise ConfigError(src, f"{where}.model", f"{show(d['model'])} is not a known model "
                              f"(allowed: {', '.join(models)})")
    knobs: tuple[tuple[str, int], ...] = ()
    if "controller" in d:
        c = read_section(d["controller"], CONTROLLER_KEYS, src, f"{where}.controller")
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
    return Tenant(name=t["name"], drive=drive, size=t.get("size"), offset=t.get("offset"),
                  read_only=t.get("read_only", False), description=t.get("description"),
                  buffer=t.get("buffer"), max_requests=t.get("max_requests"),
                  max_connections=t.get("max_connections"),
                  default=t.get("default", False), klass=t.get("class"),
                  weight=t.get("weight", 1), reserve=t.get("reserve", 0),
                  limit=t.get("limit", 0), limit_iops=t.get("limit_iops", 0),
                  latency_slo=t.get("latency_slo", 0), sq_depth=t.get("sq_depth"),
                  tls_identity=t.get("tls_identity"), allow_uids=t.get("allow_uids", ()),
                  allow_gids=t.get("allow_gids", ()))


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
    top = read_section(data, TOP_KEYS, src, "")
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

    lst = read_section(top.get("listen", {}), LISTEN_KEYS, src, "listen")
    listen = Listen(unix=lst.get("unix"), mode=lst.get("mode"), tcp=lst.get("tcp"),
                    tls=lst.get("tls"), tls_psk_file=lst.get("tls_psk_file"),
                    insecure=lst.get("insecure", False))
    check_listen(listen, src)
    if listen.mode is not None and listen.unix is None and listen.tcp is not None:
        raise ConfigError(src, "listen.mode", "applies to listen.unix, which is not set")
    adm = read_section(top.get("admin", {}), ADMIN_KEYS, src, "admin")
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
        t = read_section(raw, TENANT_KEYS, src, where)
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
    limits = None
    if "limits" in top:
        lim = read_section(top["limits"], LIMITS_KEYS, src, "limits")
        for key, total, dflt in (("handshake_connections", "connections", 1024),
                                 ("tenant_connections", "connections", 1024),
                                 ("tenant_requests", "requests", 4096),
                                 ("tenant_buffer", "buffer", 256 << 20)):
            if key in lim and lim[key] > lim.get(total, dflt):
                raise ConfigError(src, f"limits.{key}", f"{lim[key]} is above limits.{total} "
                                  f"{lim.get(total, dflt)}")
        limits = copy.deepcopy(top["limits"])
    cfg = Config(drives=tuple(drives), tenants=tuple(tenants), listen=listen, admin=admin,
                 metrics=top.get("metrics"), source=src, forecast=forecast, tune=tune,
                 limits=limits)
    check_config(cfg, src)
    for name, path in (("listen.unix", cfg.nbd_socket), ("admin.socket", cfg.admin_socket)):
        if path is not None and len(path.encode()) > 107:
            raise ConfigError(src, name, f"{path!r} is longer than 107 bytes (a unix socket "
                              "path limit)")
    return cfg


def limits_settings(cfg: Config) -> dict[str, Any]:
    """The limits: section as the Engine config's "engine" mapping (csrc/budget.c)."""
    if not cfg.limits:
        return {}
    got = read_section(cfg.limits, LIMITS_KEYS, cfg.source, "limits")
    return {LIMITS_ENGINE[k]: v for k, v in got.items()}


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
    """The parsed forecast: section (control.lending.forecast_server.parse_forecast_config's dict,
    ``drive`` resolved), or None when the config has none."""
    if cfg.forecast is None:
        return None
    return _check_forecast(cfg.forecast, cfg.drives, cfg.source)


def _check_tune(raw: Any, drives: tuple[Drive, ...], src: str) -> dict[str, Any]:
    """The tune: section parsed (TUNE_KEYS, defaults filled in), ``enabled`` as drive names."""
    got = read_section(raw, TUNE_KEYS, src, "tune")
    out = {k: got[k] if k in got else key_default(TUNE_KEYS, k) for k in TUNE_KEYS if k != "index"}
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
        from control.tune.index import default_index_path
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
        from dataplane.sim import ssd_preset_cfg
    except ImportError:
        return None
    cfg = ssd_preset_cfg(model)
    if cfg is None or cfg["read_page_ns"] == 0:
        return None
    dies_bps = cfg["units"] * cfg["page_bytes"] * 10**9 // cfg["read_page_ns"]
    return int(min(cfg["link_bps"], dies_bps))


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
    per_drive: dict[str, list[int]] = {d.name: [] for d in cfg.drives}
    default_of: str | None = None
    for i, t in enumerate(cfg.tenants):
        w = where(i)
        if t.description is not None and len(t.description.encode()) > 255:
            raise ConfigError(src, f"{w}.description", f"is {len(t.description.encode())} bytes "
                              "(allowed: up to 255)")
        if t.default:
            if default_of is not None:
                raise ConfigError(src, f"{w}.default", f"tenant '{default_of}' is already the "
                                  "default export (allowed: one)")
            default_of = t.name
        if t.drive not in per_drive:
            raise ConfigError(src, f"{w}.drive", f"'{t.drive}' is not a drive "
                              f"(have: {', '.join(per_drive)})")
        per_drive[t.drive].append(i)
        check_tenant_class(src, w, t.klass, t.latency_slo, t.reserve, t.limit)
        d = cfg.drive(t.drive)
        if t.size is not None and d.block_size and t.size % d.block_size:
            raise ConfigError(src, f"{w}.size", f"{units.format_size(t.size)} is not a multiple "
                              f"of drive '{d.name}' block_size {d.block_size}")
        if t.offset is not None:
            _check_offset(cfg, i, src, w)
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
                    free = size - (used - (t.size or 0))
                    raise ConfigError(src, f"{where(i)}.size", f"no free space on drive "
                                      f"'{d.name}': {units.human_size(free)} of "
                                      f"{units.human_size(size)} free; need "
                                      f"{units.human_size(t.size or 0)} (namespaces are laid "
                                      "out one after another)")
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


def ranges_overlap(a_off: int, a_len: int, b_off: int, b_len: int) -> bool:
    """Do [a_off, a_off + a_len) and [b_off, b_off + b_len) share a byte?  (Namespaces
    and not-yet-zeroed space on a drive: this module, control/state.py, the daemon.)"""
    return a_off < b_off + b_len and b_off < a_off + a_len


def _check_offset(cfg: Config, i: int, src: str, w: str) -> None:
    """Tenant i's given offset: with a size, a multiple of the drive's block_size,
    inside the drive when its size is known, clear of the given offsets before it (the
    Engine checks it again against what is in place)."""
    t = cfg.tenants[i]
    d = cfg.drive(t.drive)
    fs = units.format_size
    off = t.offset or 0
    if t.size is None:
        raise ConfigError(src, f"{w}.offset", "needs size (an equal share is not known before "
                          "the daemon starts)")
    if d.block_size and off % d.block_size:
        raise ConfigError(src, f"{w}.offset", f"{fs(off)} is not a multiple of drive "
                          f"'{d.name}' block_size {fs(d.block_size)}")
    size = drive_size(d)
    if size is not None and off + t.size > size:
        raise ConfigError(src, f"{w}.offset", f"{fs(off)} + size {fs(t.size)} ends at "
                          f"{fs(off + t.size)}, past the end of drive '{d.name}' ({fs(size)})")
    for o in cfg.tenants[:i]:
        if o.drive != t.drive or o.offset is None or o.size is None:
            continue
        if ranges_overlap(off, t.size, o.offset, o.size):
            raise ConfigError(src, f"{w}.offset", f"[{fs(off)}, {fs(off + t.size)}) overlaps "
                              f"tenant '{o.name}' at [{fs(o.offset)}, {fs(o.offset + o.size)}) "
                              "(allowed: space no other tenant holds)")


def parse_tenant_args(args: Any, cfg: Config, src: str = "admin") -> Tenant:
    """A new tenant from admin-socket arguments (same keys and units as the file)."""
    t = read_section(args, TENANT_KEYS, src, "args")
    if "size" not in t:
        raise ConfigError(src, "args.size", "is required for a tenant added live")
    return _tenant_from(t, _default_drive(t.get("drive"), cfg.drives, src, "args"))


def _live_changes(args: Any, keys: Mapping[str, Key], live: tuple[str, ...], src: str,
                  otherwise: str) -> dict[str, Any]:
    """The keys of ``live`` in admin ``args``, parsed; a key of ``keys`` that is not live is
    refused (``otherwise`` says how to change it), and so is an empty change."""
    if not isinstance(args, dict):
        raise ConfigError(src, "args", "expected a mapping of keys")
    for k in args:
        if k in keys and k not in live:
            raise ConfigError(src, f"args.{k}", f"cannot be changed live ({otherwise}; "
                              f"live: {', '.join(live)})")
    given = read_section(args, {k: keys[k] for k in live}, src, "args")
    if not given:
        raise ConfigError(src, "args", f"nothing to change (give one of: {', '.join(live)})")
    return given


def parse_tenant_changes(args: Any, src: str = "admin") -> dict[str, Any]:
    """Live tenant changes (``TENANT_LIVE_KEYS``) as Tenant field values."""
    given = _live_changes(args, TENANT_KEYS, TENANT_LIVE_KEYS, src,
                          "remove the tenant and add it again")
    return {("klass" if k == "class" else k): v for k, v in given.items()}


def parse_drive_changes(args: Any, drive: Drive, src: str = "admin") -> Drive:
    """A drive with live changes (policy, band, controller) applied."""
    given = _live_changes(args, DRIVE_KEYS, DRIVE_LIVE_KEYS, src, "edit the config and restart")
    out = drive
    if "policy" in given:
        out = dataclasses.replace(out, policy=given["policy"])
    if "band" in given:
        out = dataclasses.replace(out, band=given["band"])
    if "controller" in given:
        c = read_section(given["controller"], CONTROLLER_KEYS, src, "args.controller")
        knobs = {**out.knobs(), **c}
        _check_controller(knobs, src, "args.controller")
        out = dataclasses.replace(out, controller=tuple((k, knobs[k]) for k in CONTROLLER_KEYS
                                                        if k in knobs))
    return out
