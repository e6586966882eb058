"""The admin socket: live control of a running ``jbof serve``.

Transport: a unix socket (mode 0600 by default: only the daemon's user -- and
root -- may connect; with no group/other bits in the mode the peer's uid is
checked too, SO_PEERCRED) carrying newline-delimited JSON.  One request per
line, one reply per line, in order:

    -> {"v": 1, "id": 7, "op": "tenant.set", "args": {"name": "B", "weight": 4}}
    <- {"v": 1, "id": 7, "ok": true, "result": {...}}
    <- {"v": 1, "id": 7, "ok": false, "error": {"code": "invalid",
        "message": "args.weight: 0 is out of range (allowed: 1..10000)"}}

``v`` (protocol version, required) must be 1; ``id`` (optional, any JSON
value) is echoed.  Arguments use the config file's keys and units
(control/config.py: ``"reserve": "200MiB/s"``, ``"latency_slo": "2ms"``;
plain integers are bytes, bytes/s, or seconds for durations).

Ops (``OPS``): ping, config.get, tenant.add, tenant.remove, tenant.set,
tenant.list, drive.list, drive.set, stats, tune.status, tune.set, shutdown.  Each change is
validated against the whole config (control.config.check_config), applied
to the running Engine (between two reactor batches; queued and in-flight IO
is neither dropped nor reordered), then persisted atomically (the previous
file kept as FILE.prev) when the daemon was started with --config.

Error codes: bad_json (not UTF-8 / not JSON), bad_request (not an object, no
op, bad args type), version, unknown_op, invalid (a bad argument: the
message names the key), not_found, exists, no_space (the drive has no room
for the namespace), engine (the data plane refused), persist (applied live
but not saved), too_long (a line above MAX_LINE_BYTES: the connection is
closed after the reply), busy (too many admin connections), forbidden
(peer uid), internal.  A bad request never stops the daemon.

The forecast planner (control/forecast_server.py, started by ControlPlane
when the config has a ``forecast:`` section) changes scavengers' limits
through the same Control: ``set_planned_limit`` takes the same lock as the
ops and applies the same way, but the change is never persisted -- the file
and ``config.get`` keep the configured limit, while ``live_config`` (what
/metrics, ``tenant.list`` and ``stats`` report) shows the limit in force.
A planned limit never raises a tenant above its configured limit, applies
to scavenger-class tenants only, and survives admin changes to the tenant.

The autotuner (control/autotune_live.py, started when the config has a
``tune:`` section) sets scheduler fields of a drive the same way:
``set_tuned_fields`` takes the lock, applies through Engine.configure_drive
and never persists; the operator's values of those fields are kept and
``clear_tuned`` puts them back (tuning disabled, daemon stopping).  A
``drive.set`` on a tuned drive first puts the operator's values back, then
applies the change, then tells the tuner (``on_drive_change``), which starts
over from the new settings.  ``tune.set`` (enable/disable) is saved to the
file's ``tune.enabled`` like any admin change; trials never are.
"""
from __future__ import annotations

import dataclasses
import errno
import json
import logging
import os
import selectors
import socket
import stat
import struct
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from control import units
from control.config import (
    Config,
    ConfigError,
    Tenant,
    check_config,
    document,
    drive_capacity_bps,
    drive_sched_overrides,
    dump_yaml,
    engine_tenant,
    forecast_settings,
    parse_drive_changes,
    parse_tenant_args,
    parse_tenant_changes,
    save_config,
    tenant_doc,
    tenant_live_settings,
    tenant_settings,
    tune_settings,
)
from control.errors import JbofError

log = logging.getLogger("jbof.admin")

PROTOCOL_VERSION = 1
MAX_LINE_BYTES = 64 * 1024
MAX_REPLY_BYTES = 64 * 1024 * 1024
IDLE_TIMEOUT_S = 300.0
OPS = ("ping", "config.get", "tenant.add", "tenant.remove", "tenant.set", "tenant.list",
       "drive.list", "drive.set", "stats", "tune.status", "tune.set", "shutdown")
_READ_ONLY_OPS = ("ping", "config.get", "tenant.list", "drive.list", "stats", "tune.status")


class AdminError(JbofError):
    """A structured admin error: ``code`` (see the module docstring) and a one-line message."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = " ".join(str(message).split())
        super().__init__(self.message)

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


def _errno_code(e: OSError) -> str:
    return {errno.ENOSPC: "no_space", errno.EEXIST: "exists",
            errno.ENOENT: "not_found"}.get(e.errno or 0, "engine")


# ------------------------------------------------------------------- control ---

class Control:
    """Applies admin ops to the running Engine and keeps the config (the
    truth for persistence) in step.  Ops are serialized by one lock."""

    def __init__(self, engine: Any, cfg: Config, persist_path: str | None,
                 on_shutdown: Callable[[], None], file_cfg: Config | None = None) -> None:
        self.engine = engine
        self._cfg = cfg
        self.persist_path = persist_path
        # what the file says outside drives/tenants (not the command line's overrides)
        self._file_cfg = file_cfg or cfg
        self._on_shutdown = on_shutdown
        self._lock = threading.Lock()
        self.metrics_url: str | None = None
        self.forecast_socket: str | None = None
        # tenant -> limit (bytes/s) the forecast planner set; never persisted.  Replaced,
        # never mutated, so readers need no lock.
        self._planned: dict[str, int] = {}
        # drive -> scheduler fields (dotted) the autotuner set, and the operator's values
        # of those fields; never persisted.  Replaced, never mutated.
        self._tuned: dict[str, dict[str, int]] = {}
        self._operator: dict[str, dict[str, int]] = {}
        self.tune: Any = None                 # control.autotune_live.TuneService
        self.on_drive_change: Callable[[str], None] | None = None   # must not block

    @property
    def config(self) -> Config:
        """The current config (an immutable object, replaced on each change)."""
        return self._cfg

    @property
    def live_config(self) -> Config:
        """The settings in force: the config with the planner's limits (never persisted)."""
        cfg, planned = self._cfg, self._planned
        if not planned:
            return cfg
        return dataclasses.replace(cfg, tenants=tuple(_in_force(t, planned)
                                                      for t in cfg.tenants))

    def set_planned_limit(self, name: str, bps: int) -> None:
        """The forecast planner's limit for scavenger ``name`` (bytes/s; 0 = none): applied
        like an admin change (same lock, same Engine call, between two reactor batches)
        but not persisted.  A tenant removed meanwhile is ignored; OSError/ValueError
        from the Engine propagate (the planner logs them and retries next tick)."""
        with self._lock:
            try:
                t = self._cfg.tenant(name)
            except KeyError:
                self._planned = {k: v for k, v in self._planned.items() if k != name}
                return
            planned = {**self._planned, name: int(bps)}
            before, after = _in_force(t, self._planned), _in_force(t, planned)
            if after != before:
                self.engine.set_tenant(name, **tenant_live_settings(after))
            self._planned = planned
        if after.limit != before.limit:
            log.info("planner: tenant %s limit %s -> %s", name, _rate(before.limit),
                     _rate(after.limit))

    def clear_planned(self) -> None:
        """Drop every planned limit; tenants get their configured settings back."""
        with self._lock:
            planned, self._planned = self._planned, {}
            for name in planned:
                try:
                    t = self._cfg.tenant(name)
                except KeyError:
                    continue
                if _in_force(t, planned) != t:
                    try:
                        self.engine.set_tenant(name, **tenant_live_settings(t))
                    except (OSError, ValueError) as e:
                        log.warning("cannot restore the limit of %s: %s", name, e)

    def set_tuned_fields(self, drive: str, fields: Mapping[str, int], policy: str) -> bool:
        """The autotuner's scheduler fields (dotted jbof_sched_cfg names) for ``drive``:
        applied like drive.set (same lock, Engine.configure_drive, between two reactor
        batches) but never persisted.  The operator's value of each field is read the
        first time the tuner sets it, for clear_tuned.  Refused (False) unless the drive
        runs ``policy`` (the knobs are that policy's).  OSError/ValueError from the
        Engine propagate (nothing changed)."""
        from control.profiling import flatten_fields
        with self._lock:
            if self._cfg.drive(drive).policy != policy:
                return False
            saved = self._operator.get(drive, {})
            new = [k for k in fields if k not in saved]
            if new:
                cur = flatten_fields(self.engine.drive_cfg(drive))
                saved = {**saved, **{k: cur[k] for k in new}}
            self.engine.configure_drive(drive, dict(fields))
            self._operator = {**self._operator, drive: saved}
            self._tuned = {**self._tuned, drive: {**self._tuned.get(drive, {}), **fields}}
        return True

    def tuned_fields(self, drive: str) -> tuple[dict[str, int], dict[str, int]]:
        """(fields the tuner has in force on drive, the operator's values of them)."""
        return dict(self._tuned.get(drive, {})), dict(self._operator.get(drive, {}))

    def clear_tuned(self, drive: str) -> dict[str, int]:
        """Put the operator's values back on every field the tuner set on drive; returns
        them (empty if the tuner had set nothing)."""
        with self._lock:
            return self._restore_operator(drive)

    def _restore_operator(self, drive: str) -> dict[str, int]:
        """clear_tuned with the lock held; an Engine failure is logged, not raised."""
        back = self._operator.get(drive, {})
        self._tuned = {k: v for k, v in self._tuned.items() if k != drive}
        self._operator = {k: v for k, v in self._operator.items() if k != drive}
        if back:
            try:
                self.engine.configure_drive(drive, back)
            except (OSError, ValueError) as e:
                log.warning("cannot restore the configured knobs of drive %s: %s", drive, e)
        return dict(back)

    def pin_sizes(self) -> None:
        """Tenants without a size got an equal share at start: record it, so a
        restart from the persisted file lays the namespaces out the same.
        Call once the Engine runs."""
        pinned = []
        for t in self._cfg.tenants:
            if t.size is None:
                t = dataclasses.replace(t, size=int(self.engine.tenant_stats(t.name)["size_bytes"]))
            pinned.append(t)
        self._cfg = dataclasses.replace(self._cfg, tenants=tuple(pinned))

    # -- dispatch ---------------------------------------------------------

    def handle(self, op: str, args: dict[str, Any], peer: str = "") -> Any:
        """Run one op; AdminError on failure.  Changes are logged with the peer."""
        fn = getattr(self, "op_" + op.replace(".", "_"), None) if op in OPS else None
        if fn is None:
            raise AdminError("unknown_op", f"unknown op {op!r} (allowed: {', '.join(OPS)})")
        try:
            if op in _READ_ONLY_OPS:
                return fn(args)
            if op == "tune.set":       # takes the lock itself: the tuner's restore needs it
                result = fn(args)
            else:
                with self._lock:
                    result = fn(args)
            log.info("%s %s %s", op, json.dumps(args, sort_keys=True, default=str), peer)
            return result
        except ConfigError as e:
            raise AdminError("invalid", str(e).removeprefix("admin: ")) from None

    def _commit(self, cfg: Config, what: str) -> dict[str, Any]:
        """Adopt cfg and persist it; the reply's ``persisted`` says where."""
        self._cfg = cfg
        if self.persist_path is None:
            return {"persisted": None}
        header = (f"# jbof serve config, rewritten by the admin socket ({what}) at "
                  f"{time.strftime('%Y-%m-%d %H:%M:%S %z')}.\n"
                  f"# The previous version is {Path(self.persist_path).name}.prev\n")
        try:
            save_config(self.file_form(cfg), self.persist_path, header)
        except OSError as e:
            log.error("could not save %s: %s", self.persist_path, e)
            raise AdminError("persist", f"applied to the running daemon, but saving "
                             f"{self.persist_path} failed: {e.strerror or e}") from None
        return {"persisted": self.persist_path}

    def _tenant(self, args: dict[str, Any]) -> Tenant:
        name = args.get("name")
        if not isinstance(name, str):
            raise AdminError("invalid", "args.name: is required (a tenant name)")
        try:
            return self._cfg.tenant(name)
        except KeyError:
            have = ", ".join(t.name for t in self._cfg.tenants) or "none"
            raise AdminError("not_found", f"no tenant named {name!r} (have: {have})") from None

    def _where(self, index: int) -> Callable[[int], str]:
        names = [t.name for t in self._cfg.tenants]

        def where(i: int) -> str:
            if i == index:
                return "args"
            return f"tenant '{names[i]}'" if i < len(names) else f"tenants[{i}]"
        return where

    # -- ops --------------------------------------------------------------

    def op_ping(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"version": PROTOCOL_VERSION, "ops": list(OPS), "pid": os.getpid(),
                "config": self.persist_path, "metrics": self.metrics_url,
                "forecast": self.forecast_socket, "nbd": self.engine.uris()}

    def file_form(self, cfg: Config | None = None) -> Config:
        """cfg (default: the current one) as the config file holds it: the
        command line's --unix/--tcp/--admin-socket/--metrics left out."""
        cfg = cfg or self._cfg
        return dataclasses.replace(self._file_cfg, drives=cfg.drives, tenants=cfg.tenants,
                                   tune=cfg.tune)

    def op_config_get(self, args: dict[str, Any]) -> dict[str, Any]:
        """The config a restart would use (the file's form of the current state)."""
        cfg = self.file_form()
        return {"path": self.persist_path, "config": document(cfg), "yaml": dump_yaml(cfg)}

    def op_tenant_add(self, args: dict[str, Any]) -> dict[str, Any]:
        cfg = self._cfg
        t = parse_tenant_args(args, cfg)
        if any(x.name == t.name for x in cfg.tenants):
            raise AdminError("exists", f"args.name: tenant {t.name!r} already exists")
        new = dataclasses.replace(cfg, tenants=cfg.tenants + (t,))
        check_config(new, "admin", self._where(len(cfg.tenants)))
        try:
            self.engine.add_tenant(engine_tenant(t))
        except OSError as e:
            raise AdminError(_errno_code(e), f"tenant {t.name!r}: {e}") from None
        except ValueError as e:
            raise AdminError("engine", f"tenant {t.name!r}: {e}") from None
        out = {"tenant": tenant_doc(t), "uris": self._uris(t.name)}
        out.update(self._commit(new, f"tenant.add {t.name}"))
        return out

    def _uris(self, name: str) -> list[str]:
        out = []
        for transport in ("unix", "tcp"):
            try:
                uri = self.engine.uri(name, transport)
            except ValueError:
                continue
            if uri not in out:
                out.append(uri)
        return out

    def op_tenant_remove(self, args: dict[str, Any]) -> dict[str, Any]:
        t = self._tenant(args)
        extra = set(args) - {"name"}
        if extra:
            raise AdminError("invalid", f"args.{sorted(extra)[0]}: unknown key (allowed: name)")
        try:
            self.engine.remove_tenant(t.name)
        except OSError as e:
            raise AdminError(_errno_code(e), f"tenant {t.name!r}: {e}") from None
        cfg = self._cfg
        new = dataclasses.replace(cfg, tenants=tuple(x for x in cfg.tenants if x.name != t.name))
        self._planned = {k: v for k, v in self._planned.items() if k != t.name}
        out: dict[str, Any] = {"tenant": t.name}
        out.update(self._commit(new, f"tenant.remove {t.name}"))
        return out

    def op_tenant_set(self, args: dict[str, Any]) -> dict[str, Any]:
        old = self._tenant(args)
        changes = parse_tenant_changes({k: v for k, v in args.items() if k != "name"})
        t = dataclasses.replace(old, **changes)
        cfg = self._cfg
        idx = [x.name for x in cfg.tenants].index(old.name)
        new = dataclasses.replace(cfg, tenants=tuple(t if i == idx else x
                                                     for i, x in enumerate(cfg.tenants)))
        check_config(new, "admin", self._where(idx))
        try:   # with the planner's limit, if it set one: it outlives admin changes
            self.engine.set_tenant(t.name, **tenant_live_settings(_in_force(t, self._planned)))
        except OSError as e:
            raise AdminError(_errno_code(e), f"tenant {t.name!r}: {e}") from None
        except ValueError as e:
            raise AdminError("engine", f"tenant {t.name!r}: {e}") from None
        before, after = tenant_settings(old), tenant_settings(t)
        changed = {k: [before[k], after[k]] for k in before if before[k] != after[k]}
        out = {"tenant": tenant_doc(t), "changed": changed}
        out.update(self._commit(new, f"tenant.set {t.name}"))
        return out

    def op_tenant_list(self, args: dict[str, Any]) -> dict[str, Any]:
        """Settings in force (a planned limit included; ``configured_limit_bps`` is the
        file's), URIs, open connections."""
        rows = []
        cfg, planned = self._cfg, self._planned
        for conf in cfg.tenants:
            t = _in_force(conf, planned)
            row: dict[str, Any] = {**tenant_doc(t), "class": t.effective_class,
                                   "size_bytes": t.size, "weight": t.weight,
                                   "reserve_bps": t.reserve, "limit_bps": t.limit,
                                   "limit_iops": t.limit_iops, "latency_slo_ns": t.latency_slo,
                                   "read_only": t.read_only, "uris": self._uris(t.name),
                                   "configured_limit_bps": conf.limit, "planned": t is not conf}
            try:
                st = self.engine.tenant_stats(t.name)
                row["connections"] = st["connections"]
            except (ValueError, OSError):
                row["connections"] = None
            rows.append(row)
        return {"tenants": rows}

    def op_drive_list(self, args: dict[str, Any]) -> dict[str, Any]:
        from control.config import drive_doc
        from control.metrics import read_drive
        rows = []
        for d in self._cfg.drives:
            row: dict[str, Any] = {**drive_doc(d)}
            cap, _why = drive_capacity_bps(d)
            row["capacity_bps"] = cap
            row["reserved_bps"] = sum(t.reserve for t in self._cfg.tenants if t.drive == d.name)
            row["live"] = read_drive(self.engine, d.name)
            row["tuned"] = self._tuned.get(d.name, {})   # the autotuner's, not persisted
            rows.append(row)
        return {"drives": rows}

    def op_drive_set(self, args: dict[str, Any]) -> dict[str, Any]:
        name = args.get("name")
        cfg = self._cfg
        try:
            old = cfg.drive(name) if isinstance(name, str) else None
        except KeyError:
            old = None
        if old is None:
            have = ", ".join(d.name for d in cfg.drives)
            raise AdminError("not_found", f"no drive named {name!r} (have: {have})")
        d = parse_drive_changes({k: v for k, v in args.items() if k != "name"}, old)
        # the operator's values first where the tuner set some; it starts over afterwards
        self._restore_operator(d.name)
        try:
            if d.policy != old.policy:
                self.engine.set_policy(d.name, d.policy)
            ctl = drive_sched_overrides(d).get("ctl", {})
            if d.band is None and (d.policy != old.policy or old.band is not None):
                ctl.update(_policy_band(d.policy))
            if ctl:
                self.engine.configure_drive(d.name, {"ctl": ctl})
        except OSError as e:
            raise AdminError(_errno_code(e), f"drive {d.name!r}: {e}") from None
        except ValueError as e:
            raise AdminError("engine", f"drive {d.name!r}: {e}") from None
        finally:
            if self.on_drive_change is not None:
                self.on_drive_change(d.name)
        new = dataclasses.replace(cfg, drives=tuple(d if x.name == d.name else x
                                                    for x in cfg.drives))
        from control.config import drive_doc
        out: dict[str, Any] = {"drive": drive_doc(d)}
        out.update(self._commit(new, f"drive.set {d.name}"))
        return out

    def op_stats(self, args: dict[str, Any]) -> dict[str, Any]:
        from control.metrics import read_stats
        extra = set(args) - {"hist"}
        if extra:
            raise AdminError("invalid", f"args.{sorted(extra)[0]}: unknown key (allowed: hist)")
        hist = args.get("hist", False)
        if not isinstance(hist, bool):
            raise AdminError("invalid", "args.hist: expected true or false")
        snap = read_stats(self.engine, self.live_config, hist=hist)
        for t in snap["tenants"]:
            t.pop("_buckets", None)
        snap["time"] = time.monotonic()
        return snap

    def _tuning(self) -> Any:
        if self.tune is None:
            raise AdminError("not_found", "tuning is off: the daemon's config has no tune: "
                             "section (see `jbof config keys`)")
        return self.tune

    def op_tune_status(self, args: dict[str, Any]) -> dict[str, Any]:
        """Each drive's tuner: enabled, state, knobs in force and configured, search."""
        if args:
            raise AdminError("invalid", f"args.{min(args)}: unknown key (tune.status "
                             "takes none)")
        return dict(self._tuning().status())

    def op_tune_set(self, args: dict[str, Any]) -> dict[str, Any]:
        """Enable or disable the tuner of a drive (runs without the lock held: disabling
        puts the configured knobs back through clear_tuned, which takes it)."""
        extra = set(args) - {"drive", "enabled"}
        if extra:
            raise AdminError("invalid", f"args.{min(extra)}: unknown key (allowed: "
                             "drive, enabled)")
        drive, enabled = args.get("drive"), args.get("enabled")
        if not isinstance(drive, str):
            raise AdminError("invalid", "args.drive: is required (a drive name)")
        if not isinstance(enabled, bool):
            raise AdminError("invalid", "args.enabled: is required (true or false)")
        svc = self._tuning()
        try:
            out: dict[str, Any] = dict(svc.set_enabled(drive, enabled))
        except KeyError:
            have = ", ".join(d.name for d in self._cfg.drives)
            raise AdminError("not_found", f"no drive named {drive!r} (have: {have})") from None
        except ValueError as e:
            raise AdminError("invalid", f"args.enabled: {e}") from None
        with self._lock:
            cfg = self._cfg
            on = svc.enabled_drives()
            if cfg.tune is None or _enabled_names(cfg.tune, cfg) == on:
                out["persisted"] = None
                return out
            new = dataclasses.replace(cfg, tune={**cfg.tune, "enabled": list(on)})
            out.update(self._commit(new, f"tune.set {drive}"))
        return out

    def op_shutdown(self, args: dict[str, Any]) -> dict[str, Any]:
        log.warning("shutdown requested over the admin socket")
        return {"stopping": True}

    def after(self, op: str) -> None:
        """Run after the reply to op was sent."""
        if op == "shutdown":
            self._on_shutdown()


def _in_force(t: Tenant, planned: Mapping[str, int]) -> Tenant:
    """Tenant t with the planner's limit, if any: scavengers only, never above the
    configured limit, never below the reservation."""
    bps = planned.get(t.name, 0)
    if not bps or t.effective_class != "scavenger":
        return t
    limit = max(min(bps, t.limit) if t.limit else bps, t.reserve)
    return t if limit == t.limit else dataclasses.replace(t, limit=limit)


def _enabled_names(raw_tune: Mapping[str, Any], cfg: Config) -> tuple[str, ...]:
    """The drives a tune: section as written enables, in config order."""
    en = raw_tune.get("enabled", True)
    names = [d.name for d in cfg.drives]
    if isinstance(en, bool):
        return tuple(names) if en else ()
    return tuple(n for n in names if n in en)


def _rate(bps: int) -> str:
    return units.format_rate(bps) if bps else "none"


def _policy_band(policy: str) -> dict[str, int]:
    """The band fields of a policy's default controller config (from the C core)."""
    from dataplane._jbof import ffi, lib

    from dataplane.sim import policy_code
    cfg = ffi.new("jbof_sched_cfg *")
    if lib.jbof_sched_default_cfg(policy_code(policy), cfg) < 0:
        return {}
    c = cfg.ctl
    return {"lat_min_ns": int(c.lat_min_ns), "lat_max_ns": int(c.lat_max_ns),
            "band_lo_pct": int(c.band_lo_pct), "band_hi_pct": int(c.band_hi_pct)}


# ------------------------------------------------------------------ protocol ---

def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def decode_request(line: bytes) -> tuple[Any, str, dict[str, Any]]:
    """(id, op, args) of one request line, or AdminError (carrying the id if known)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        raise AdminError("bad_json", f"request is not UTF-8 (byte {e.start})") from None
    try:
        req = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise AdminError("bad_json", "request is nested too deeply") from None
    except ValueError as e:
        raise AdminError("bad_json", f"request is not JSON: {e}") from None
    if not isinstance(req, dict):
        raise AdminError("bad_request", "a request is a JSON object "
                         '(example: {"v": 1, "op": "tenant.list"})')
    unknown = set(req) - {"v", "id", "op", "args"}
    if unknown:
        raise AdminError("bad_request", f"unknown request key {sorted(unknown)[0]!r} "
                         "(allowed: v, id, op, args)")
    if "v" not in req:
        raise AdminError("version", f"request has no protocol version (send \"v\": "
                         f"{PROTOCOL_VERSION})")
    if req["v"] != PROTOCOL_VERSION or isinstance(req["v"], bool):
        raise AdminError("version", f"protocol version {req['v']!r} is not supported "
                         f"(this daemon speaks {PROTOCOL_VERSION})")
    op = req.get("op")
    if not isinstance(op, str):
        raise AdminError("bad_request", f"request needs \"op\" (one of: {', '.join(OPS)})")
    args = req.get("args", {})
    if not isinstance(args, dict):
        raise AdminError("bad_request", "\"args\" must be a JSON object")
    return req.get("id"), op, args


def encode_reply(rid: Any, result: Any = None, error: AdminError | None = None) -> bytes:
    msg: dict[str, Any] = {"v": PROTOCOL_VERSION}
    if rid is not None:
        msg["id"] = rid
    if error is None:
        msg.update(ok=True, result=result)
    else:
        msg.update(ok=False, error=error.as_dict())
    return json.dumps(msg, separators=(",", ":"), default=str).encode() + b"\n"


def _peer(sock: socket.socket) -> tuple[int, int, int]:
    """(pid, uid, gid) of a unix socket peer."""
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        pid, uid, gid = struct.unpack("3i", raw)
        return pid, uid, gid
    except OSError:
        return -1, -1, -1


# -------------------------------------------------------------------- server ---

class AdminServer:
    """Serve Control over a unix socket: a thread accepting, one thread per
    connection (at most max_connections), bounded lines, idle timeout."""

    def __init__(self, control: Control, path: str, mode: int = 0o600,
                 max_connections: int = 16, max_line: int = MAX_LINE_BYTES,
                 idle_timeout: float = IDLE_TIMEOUT_S) -> None:
        self.control = control
        self.path = path
        self.mode = mode
        self.max_connections = max_connections
        self.max_line = max_line
        self.idle_timeout = idle_timeout
        self._sock: socket.socket | None = None
        self._inode: tuple[int, int] | None = None
        self._stop = threading.Event()
        self._wake_r, self._wake_w = -1, -1
        self._thread: threading.Thread | None = None
        self._conns: set[socket.socket] = set()
        self._conn_lock = threading.Lock()
        self._workers: list[threading.Thread] = []

    def start(self) -> None:
        """Bind (replacing a stale socket file), set the mode, then listen."""
        path = self.path
        parent = Path(path).parent
        if not parent.exists():
            parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            st = None
        if st is not None:
            if not stat.S_ISSOCK(st.st_mode):
                raise AdminError("exists", f"admin socket {path}: exists and is not a socket")
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            probe.settimeout(1.0)
            try:
                probe.connect(path)
            except (ConnectionRefusedError, FileNotFoundError):
                os.unlink(path)      # stale: nobody listens
            except OSError:
                pass
            else:
                raise AdminError("exists", f"admin socket {path}: another daemon is listening "
                                 "on it (set admin.socket or --admin-socket)")
            finally:
                probe.close()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(path)
            os.chmod(path, self.mode)          # before listen(): no window with a wider mode
            st = os.stat(path)
            self._inode = (st.st_dev, st.st_ino)
            sock.listen(min(64, self.max_connections * 2))
        except BaseException:
            sock.close()
            raise
        sock.setblocking(False)
        self._sock = sock
        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=self._accept_loop, name="jbof-admin", daemon=True)
        self._thread.start()
        log.info("admin socket %s (mode %04o)", path, self.mode)

    def _accept_loop(self) -> None:
        assert self._sock is not None
        sel = selectors.DefaultSelector()
        sel.register(self._sock, selectors.EVENT_READ)
        sel.register(self._wake_r, selectors.EVENT_READ)
        try:
            while not self._stop.is_set():
                for key, _ in sel.select():
                    if key.fileobj is not self._sock:
                        return
                    try:
                        conn, _addr = self._sock.accept()
                    except (BlockingIOError, InterruptedError):
                        continue
                    except OSError as e:
                        log.warning("admin accept: %s", e)
                        time.sleep(0.05)
                        continue
                    self._admit(conn)
        finally:
            sel.close()

    def _admit(self, conn: socket.socket) -> None:
        conn.setblocking(True)
        pid, uid, _gid = _peer(conn)
        if self.mode & 0o077 == 0 and uid not in (0, os.geteuid()):
            log.warning("admin: refused uid %d (pid %d)", uid, pid)
            self._send_quietly(conn, encode_reply(None, error=AdminError(
                "forbidden", "only the daemon's user may use this admin socket")))
            conn.close()
            return
        with self._conn_lock:
            busy = len(self._conns) >= self.max_connections
            if not busy:
                self._conns.add(conn)
        if busy:
            self._send_quietly(conn, encode_reply(None, error=AdminError(
                "busy", f"too many admin connections (max {self.max_connections}); retry")))
            conn.close()
            return
        t = threading.Thread(target=self._serve, args=(conn, f"(uid {uid} pid {pid})"),
                             name="jbof-admin-conn", daemon=True)
        self._workers = [w for w in self._workers if w.is_alive()] + [t]
        t.start()

    @staticmethod
    def _send_quietly(conn: socket.socket, data: bytes) -> bool:
        try:
            conn.settimeout(2.0)
            conn.sendall(data)
            return True
        except OSError:
            return False

    def _serve(self, conn: socket.socket, peer: str) -> None:
        buf = b""
        try:
            conn.settimeout(self.idle_timeout)
            while not self._stop.is_set():
                nl = buf.find(b"\n")
                if nl < 0:
                    if len(buf) > self.max_line:
                        self._send_quietly(conn, encode_reply(None, error=AdminError(
                            "too_long", f"request line longer than {self.max_line} bytes")))
                        return
                    try:
                        chunk = conn.recv(65536)
                    except (TimeoutError, OSError):
                        return
                    if not chunk:
                        if buf.strip():         # a last request without its newline
                            self._reply(conn, buf, peer)
                        return
                    buf += chunk
                    continue
                line, buf = buf[:nl], buf[nl + 1:]
                if len(line) > self.max_line:
                    self._send_quietly(conn, encode_reply(None, error=AdminError(
                        "too_long", f"request line longer than {self.max_line} bytes")))
                    return
                if not line.strip():
                    continue
                if not self._reply(conn, line, peer):
                    return
        finally:
            with self._conn_lock:
                self._conns.discard(conn)
            try:
                conn.close()
            except OSError:
                pass

    def _reply(self, conn: socket.socket, line: bytes, peer: str) -> bool:
        rid: Any = None
        op = ""
        try:
            rid, op, args = decode_request(line)
            reply = encode_reply(rid, self.control.handle(op, args, peer))
        except AdminError as e:
            if e.code not in ("bad_json", "bad_request", "version", "unknown_op"):
                log.info("admin %s failed: %s: %s %s", op, e.code, e.message, peer)
            reply = encode_reply(rid, error=e)
            op = ""
        except Exception as e:  # a bug must not kill the daemon: report it, keep serving
            log.exception("admin %s: internal error", op)
            reply = encode_reply(rid, error=AdminError(
                "internal", f"{type(e).__name__}: {e}"))
            op = ""
        ok = self._send_quietly(conn, reply)
        if op:
            self.control.after(op)
        if ok:
            conn.settimeout(self.idle_timeout)
        return ok

    def close(self) -> None:
        """Stop accepting, close every connection, remove the socket file."""
        self._stop.set()
        if self._wake_w >= 0:
            os.write(self._wake_w, b"x")
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._conn_lock:
            for c in list(self._conns):
                try:
                    c.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        for w in self._workers:
            w.join(timeout=5)
        if self._sock is not None:
            self._sock.close()
            self._sock = None
            try:
                st = os.stat(self.path)
                if (st.st_dev, st.st_ino) == self._inode:
                    os.unlink(self.path)
            except OSError:
                pass
        for fd in (self._wake_r, self._wake_w):
            if fd >= 0:
                os.close(fd)
        self._wake_r = self._wake_w = -1


# -------------------------------------------------------------------- client ---

class Client:
    """A blocking client of the admin socket: ``Client(path).call("tenant.list")``."""

    def __init__(self, path: str, timeout: float = 30.0) -> None:
        self.path = path
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout)
        try:
            self._sock.connect(path)
        except FileNotFoundError:
            self._sock.close()
            raise AdminError("connect", f"no admin socket at {path} (is `jbof serve` running? "
                             "give --socket PATH or set JBOF_ADMIN_SOCKET)") from None
        except PermissionError:
            self._sock.close()
            raise AdminError("connect", f"permission denied on admin socket {path} (run as "
                             "the daemon's user)") from None
        except ConnectionRefusedError:
            self._sock.close()
            raise AdminError("connect", f"nobody listens on admin socket {path} (is `jbof "
                             "serve` running?)") from None
        except OSError as e:
            self._sock.close()
            raise AdminError("connect", f"cannot connect to admin socket {path}: "
                             f"{e.strerror or e}") from None
        self._buf = b""
        self._next_id = 1

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._sock.close()

    def send_raw(self, data: bytes) -> None:
        self._sock.sendall(data)

    def read_reply(self) -> dict[str, Any]:
        """The next reply line, parsed."""
        while b"\n" not in self._buf:
            if len(self._buf) > MAX_REPLY_BYTES:
                raise AdminError("too_long", "reply longer than "
                                 f"{units.format_size(MAX_REPLY_BYTES)}")
            try:
                chunk = self._sock.recv(1 << 20)
            except TimeoutError:
                raise AdminError("timeout", f"no reply from {self.path}") from None
            except OSError as e:
                raise AdminError("connect", f"admin socket {self.path}: "
                                 f"{e.strerror or e}") from None
            if not chunk:
                raise AdminError("connect", f"admin socket {self.path} closed the connection")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        try:
            reply = json.loads(line)
        except ValueError:
            raise AdminError("bad_json", "the daemon sent a reply that is not JSON") from None
        if not isinstance(reply, dict):
            raise AdminError("bad_json", "the daemon sent a reply that is not an object")
        return reply

    def call(self, op: str, **args: Any) -> Any:
        """Send one request; return its result or raise AdminError(code, message)."""
        rid = self._next_id
        self._next_id += 1
        req = {"v": PROTOCOL_VERSION, "id": rid, "op": op, "args": args}
        try:
            self.send_raw(json.dumps(req).encode() + b"\n")
        except OSError as e:
            # the daemon may have refused us (busy, forbidden) and closed: read why
            try:
                reply = self.read_reply()
            except AdminError:
                raise AdminError("connect", f"admin socket {self.path}: "
                                 f"{e.strerror or e}") from None
        else:
            reply = self.read_reply()
        if reply.get("ok"):
            return reply.get("result")
        err = reply.get("error") or {}
        raise AdminError(str(err.get("code", "internal")), str(err.get("message", reply)))


# ------------------------------------------------------- the daemon's control ---

class ControlPlane:
    """What ``jbof serve`` starts next to the Engine: the admin socket and, if
    configured, the metrics server, the forecast service and the tuners.
    ``close()`` stops them (the tuners and the forecast service first: drives
    get their configured knobs and scavengers their configured limits back
    while the Engine still runs)."""

    def __init__(self, engine: Any, cfg: Config, persist_path: str | None,
                 on_shutdown: Callable[[], None], file_cfg: Config | None = None,
                 admin_explicit: bool = True) -> None:
        self.control = Control(engine, cfg, persist_path, on_shutdown, file_cfg)
        self.admin: AdminServer | None = None
        self.metrics: Any = None
        self.forecast: Any = None
        self.tune: Any = None
        self._cfg = cfg
        self._admin_explicit = admin_explicit

    def start(self) -> None:
        """Start the admin socket and metrics; the Engine must be running."""
        cfg = self._cfg
        self.control.pin_sizes()
        self.admin = AdminServer(self.control, cfg.admin_socket, cfg.admin.mode,
                                 cfg.admin.max_connections)
        try:
            self.admin.start()
        except AdminError as e:
            if self._admin_explicit or e.code != "exists":
                raise
            log.warning("%s; serving without an admin socket", e)
            self.admin = None
        if cfg.metrics is not None:
            from control.metrics import JbofCollector, MetricsServer
            collector = JbofCollector(self.control.engine, lambda: self.control.live_config,
                                      tune=self._tune_samples)
            self.metrics = MetricsServer(collector, cfg.metrics)
            try:
                self.metrics.start()
            except OSError as e:
                self.close()
                raise AdminError("metrics", f"metrics {cfg.metrics}: {e.strerror or e}") from None
            self.control.metrics_url = self.metrics.url
            log.info("metrics on %s", self.metrics.url)
        fcfg = forecast_settings(cfg)
        if fcfg is not None:
            self._start_forecast(fcfg)
        tcfg = tune_settings(cfg)
        if tcfg is not None:
            self._start_tune(tcfg)

    def _tune_samples(self) -> list[tuple[str, dict[str, str], float]]:
        svc = self.tune
        return svc.metric_samples() if svc is not None else []

    def _start_tune(self, tcfg: Mapping[str, Any]) -> None:
        """One tuner thread per drive (control/autotune_live.py); trials go through
        Control.set_tuned_fields (not persisted)."""
        from control.autotune_live import TuneService
        try:
            self.tune = TuneService(self.control, tcfg)
        except ConfigError as e:        # the index file: one line naming it
            self.close()
            raise AdminError("tune", str(e)) from None
        self.control.tune = self.tune
        self.control.on_drive_change = self.tune.drive_changed
        self.tune.start()

    def _start_forecast(self, fcfg: Mapping[str, Any]) -> None:
        """The forecast socket and planner over the tenants of fcfg's drive; the
        planner's limits go through Control.set_planned_limit (not persisted)."""
        from control.forecast_server import ForecastService
        tenants = [engine_tenant(t) for t in self.control.config.tenants
                   if t.drive == fcfg["drive"]]
        owners, borrowers = ForecastService.roles(tenants)
        if not borrowers:
            log.warning("forecast: no scavenger tenant on drive %s: nothing to lend",
                        fcfg["drive"])
        path = Path(fcfg["socket"])
        try:
            path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        except OSError as e:
            self.close()
            raise AdminError("forecast", f"forecast socket {path}: cannot create its "
                             f"directory: {e.strerror or e}") from None
        try:
            self.forecast = ForecastService.from_config(
                self.control.engine, fcfg, tenants, apply=self.control.set_planned_limit)
        except (OSError, ValueError) as e:   # the message names the socket
            self.close()
            raise AdminError("forecast", str(e)) from None
        self.control.forecast_socket = str(path)
        log.info("forecast socket %s (mode %04o): %d owner(s), %d scavenger(s) on drive %s",
                 path, fcfg["mode"], len(owners), len(borrowers), fcfg["drive"])

    def close(self) -> None:
        if self.tune is not None:
            self.control.on_drive_change = None
            self.tune.stop()            # puts every drive's configured knobs back
            self.tune = self.control.tune = None
        if self.forecast is not None:
            self.forecast.stop()
            self.forecast = None
            self.control.clear_planned()
            self.control.forecast_socket = None
        if self.metrics is not None:
            self.metrics.close()
            self.metrics = None
        if self.admin is not None:
            self.admin.close()
            self.admin = None
