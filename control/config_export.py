"""What a ``Config`` (control/config.py) becomes: the Engine's config dicts
(``engine_config``, ``engine_tenant``, ...), the canonical YAML document and the
one-line summary.  Persistence is control/state.py's (live changes, atomically,
with generations) and control/config_save.py's (``jbof config save``); the
operator's config file is never rewritten by the daemon.
"""
from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import yaml

from control import units
from control.config import (
    Config,
    Drive,
    Tenant,
    drive_size,
    effective_controller,
    forecast_settings,
    limits_settings,
    tune_settings,
)
from control.config_schema import DEFAULT_ADMIN_MODE, TENANT_LIVE_KEYS, format_mode


def drive_sched_overrides(d: Drive) -> dict[str, Any]:
    """jbof_sched_cfg overrides of a drive (band and controller knobs)."""
    ctl: dict[str, int] = {}
    if d.band is not None:
        ctl.update(d.band.ctl_overrides())
    if d.controller:
        e = effective_controller(d.knobs())
        ctl.update(rate_min_cost_bps=e["rate_min"], rate_max_cost_bps=e["rate_max"],
                   rate_init_cost_bps=e["rate_init"], bucket_bytes=e["bucket"])
        if "ewma_shift" in e:
            ctl["ewma_shift"] = e["ewma_shift"]
    return {"ctl": ctl} if ctl else {}


def engine_drive(d: Drive) -> dict[str, Any]:
    out: dict[str, Any] = {"name": d.name, "backend": d.backend, "model": d.model,
                           "policy": d.policy, "block_size": d.block_size or 0,
                           "io_mode": d.io_mode, "direct": d.direct, "seed": d.seed,
                           "zero_cost": d.zero_cost,
                           "sched": drive_sched_overrides(d)}
    if d.size is not None:
        out["size"] = d.size
    if d.path is not None:
        out["path"] = d.path
    if d.reactor is not None:
        out["reactor"] = d.reactor
    return out


def _plain_fields(t: Tenant) -> dict[str, Any]:
    """The tenant keys that read the same in the Engine's dict and in the file
    (no units, no defaults written out)."""
    out: dict[str, Any] = {}
    if t.description:
        out["description"] = t.description
    if t.default:
        out["default"] = True
    if t.sq_depth is not None:
        out["sq_depth"] = t.sq_depth
    if t.tls_identity is not None:
        out["tls_identity"] = t.tls_identity
    if t.allow_uids:
        out["allow_uids"] = list(t.allow_uids)
    if t.allow_gids:
        out["allow_gids"] = list(t.allow_gids)
    return out


def engine_tenant(t: Tenant) -> dict[str, Any]:
    out: dict[str, Any] = {"name": t.name, "drive": t.drive, "read_only": t.read_only,
                           "weight": t.weight, "class": t.effective_class,
                           "reserve": t.reserve, "limit": t.limit, "limit_iops": t.limit_iops,
                           "latency_slo": t.latency_slo}
    if t.size is not None:
        out["size"] = t.size
    if t.offset is not None:
        out["offset"] = t.offset
    for k, ek in (("buffer", "buffer_bytes"), ("max_requests", "max_requests"),
                  ("max_connections", "max_connections")):
        if getattr(t, k) is not None:
            out[ek] = getattr(t, k)
    out.update(_plain_fields(t))
    return out


def tenant_live_settings(t: Tenant) -> dict[str, Any]:
    """The Engine.set_tenant keywords that make a running tenant match t."""
    spec = engine_tenant(t)
    return {k: spec[k] for k in TENANT_LIVE_KEYS if k in spec}


def engine_config(cfg: Config,
                  scrub: Mapping[str, Sequence[tuple[int, int]]] | None = None) -> dict[str, Any]:
    """The dataplane.engine.Engine config dict (integers, resolved socket paths);
    ``scrub``: drive -> ranges to mark dirty before serving (control/state.py's
    scrub_pending)."""
    listen: dict[str, Any] = {}
    if cfg.nbd_socket is not None:
        listen["unix"] = cfg.nbd_socket
    if cfg.listen.tcp is not None:
        listen["tcp"] = cfg.listen.tcp
    if cfg.listen.tls_psk_file is not None:
        listen["tls_psk_file"] = cfg.listen.tls_psk_file
    listen["tls"] = {k: cfg.listen.tls_mode(k) for k in ("unix", "tcp")}
    if cfg.listen.insecure:
        listen["insecure"] = True
    drives = [engine_drive(d) for d in cfg.drives]
    for d in drives:
        if scrub and scrub.get(d["name"]):
            d["scrub"] = [list(r) for r in scrub[d["name"]]]
    out = {"drives": drives,
           "tenants": [engine_tenant(t) for t in cfg.tenants],
           "listen": listen}
    if (limits := limits_settings(cfg)):
        out["engine"] = limits
    return out


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
    if d.block_size is not None:
        out["block_size"] = units.format_size(d.block_size)
    if d.io_mode != "auto":
        out["io_mode"] = d.io_mode
    if not d.direct:
        out["direct"] = False
    if d.zero_cost != "auto":
        out["zero_cost"] = d.zero_cost
    if d.seed != 1:
        out["seed"] = d.seed
    if d.reactor is not None:
        out["reactor"] = d.reactor
    return out


def tenant_doc(t: Tenant) -> dict[str, Any]:
    """A tenant in the file's form (human units; defaults left out)."""
    out: dict[str, Any] = {"name": t.name, "drive": t.drive}
    if t.size is not None:
        out["size"] = units.format_size(t.size)
    if t.offset is not None:
        out["offset"] = units.format_size(t.offset)
    if t.read_only:
        out["read_only"] = True
    if t.buffer is not None:
        out["buffer"] = units.format_size(t.buffer)
    for k in ("max_requests", "max_connections"):
        if getattr(t, k) is not None:
            out[k] = getattr(t, k)
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
    out.update(_plain_fields(t))
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
    if cfg.listen.tls is not None:
        lst["tls"] = cfg.listen.tls
    if cfg.listen.tls_psk_file is not None:
        lst["tls_psk_file"] = cfg.listen.tls_psk_file
    if cfg.listen.insecure:
        lst["insecure"] = True
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
    if cfg.limits is not None:
        out["limits"] = copy.deepcopy(cfg.limits)
    return out


def dump_yaml(cfg: Config, header: str = "") -> str:
    body = yaml.safe_dump(document(cfg), sort_keys=False, default_flow_style=None, width=100,
                          allow_unicode=True)
    return (header + body) if header else body


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
