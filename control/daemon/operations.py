"""What the admin ops do: ``Operations`` applies each op to the running Engine
and keeps the config (the truth for persistence) in step.

The forecast planner (control/lending/forecast_server.py, started by Services
when the config has a ``forecast:`` section) changes scavengers' limits
through the same Operations: ``set_planned_limit`` takes the same lock as the
ops and applies the same way, but the change is never persisted -- the file
and ``config.get`` keep the configured limit, while ``live_config`` (what
/metrics, ``tenant.list`` and ``stats`` report) shows the limit in force.
A planned limit never raises a tenant above its configured limit, applies
to scavenger-class tenants only, and survives admin changes to the tenant.

The autotuner (control/tune/autotune_live.py, started when the config has a
``tune:`` section) sets scheduler fields of a drive the same way:
``set_tuned_fields`` takes the lock, applies through Engine.configure_drive
and never persists; the operator's values of those fields are kept and
``clear_tuned`` puts them back (tuning disabled, daemon stopping).  A
``drive.set`` on a tuned drive first puts the operator's values back, then
applies the change, then tells the tuner (``on_drive_change``), which starts
over from the new settings.  ``tune.set`` (enable/disable) is saved to the
state's ``tune.enabled`` like any admin change; trials never are.

Persistence: the operator's config file is never rewritten.  A change is
saved to the state file (control/state.py: beside the config or under
--state-dir, atomic, GENERATIONS kept); every mutating op takes
``persist: false`` to apply a change without saving it (``jbof bench`` uses
it for its temporary changes).

Placement across restarts (csrc/export.c section 2, csrc/scrub.c section 6):
every tenant's namespace offset is recorded in the config (``pin_sizes`` at
start, ``tenant.add`` after the Engine placed it), so the state file puts each
namespace back where it was.  A removed tenant's namespace stays in the
state's ``scrub_pending`` until its drive reports nothing left to zero (checked
at each save, and at shutdown: ``save_scrub_done``); a restart marks it dirty
again.  ``tenant.add`` never places a
tenant over such space: a tenant without an offset goes first fit clear of it
(control/state.py place_clear_of_pending, as at start), one given an offset over
it is refused with the start's one line; when it fits only over it, while the
drive still zeroes it, the op waits (up to
ADD_SCRUB_WAIT_S of estimated work at limits.scrub_rate; without the ops lock,
so other admin ops are answered meanwhile) or is refused with one line naming
the pending ranges -- else a restart would zero the new tenant's data, or show
it the old tenant's.

The wire protocol and the socket are control/daemon/admin.py's.
"""
from __future__ import annotations

import dataclasses
import errno
import json
import logging
import os
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
    drive_capacity_bps,
    limits_settings,
    ranges_overlap,
    parse_drive_changes,
    parse_tenant_args,
    parse_tenant_changes,
)
from control.config_export import (
    document,
    drive_sched_overrides,
    dump_yaml,
    engine_tenant,
    tenant_doc,
    tenant_live_settings,
    tenant_settings,
)
from control.config_schema import LIMITS_KEYS, p_rate
from control.daemon.admin import OPS, PROTOCOL_VERSION, READ_ONLY_OPS, AdminError
from control.state import (
    STATE_FORMAT,
    ScrubPending,
    StateFile,
    format_spans,
    offset_over_pending,
    place_clear_of_pending,
    state_format,
)

log = logging.getLogger("jbof.admin")

ADD_SCRUB_WAIT_S = 5.0          # tenant.add waits this long at most for a drive's zeroing
DEFAULT_SCRUB_BPS = p_rate(LIMITS_KEYS["scrub_rate"].default)   # limits.scrub_rate's default


def _errno_code(e: OSError) -> str:
    return {errno.ENOSPC: "no_space", errno.EEXIST: "exists",
            errno.ENOENT: "not_found"}.get(e.errno or 0, "engine")


class Operations:
    """Applies admin ops to the running Engine and keeps the config (the
    truth for persistence) in step.  Ops are serialized by one lock."""

    def __init__(self, engine: Any, cfg: Config, persist_path: str | None,
                 on_shutdown: Callable[[], None], file_cfg: Config | None = None,
                 scrub: ScrubPending | None = None) -> None:
        self.engine = engine
        # drive -> removed namespaces not confirmed zeroed yet (the state's scrub_pending)
        self._scrub: ScrubPending = dict(scrub or {})
        self._saved_scrub: ScrubPending = dict(self._scrub)   # what the state file holds
        self._cfg = cfg
        self.persist_path = persist_path      # the state file (never the config file)
        self.state = StateFile(Path(persist_path), None) if persist_path else None
        self.config_path: str | None = None   # the operator's file (read only)
        self.start_change: str | None = None  # write the state at start (control/state.py Loaded)
        self._persist = True                  # the current op's ``persist`` argument
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
        self.tune: Any = None                 # control.tune.autotune_live.TuneService
        self.on_drive_change: Callable[[str], None] | None = None   # must not block
        # told after tenant.add/remove/set (the forecast service's poke: re-plan now)
        self.on_tenant_change: Callable[[], None] | None = None     # must not block
        # tenants being removed (tenant.remove runs the Engine's part without the lock);
        # replaced, never mutated
        self._removing: frozenset[str] = frozenset()

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
            if name in self._removing:
                return
            planned = {**self._planned, name: int(bps)}
            before, after = _in_force(t, self._planned), _in_force(t, planned)
            if after != before:
                self.engine.set_tenant(name, **tenant_live_settings(after))
            self._planned = planned
        if after.limit != before.limit:
            log.info("planner: tenant %s limit %s -> %s", name, _rate(before.limit),
                     _rate(after.limit))

    def drop_planned(self, name: str) -> None:
        """Tenant ``name`` left the planner (removed, or no longer a scavenger): forget
        its planned limit and put its configured settings back if they differ."""
        with self._lock:
            planned = self._planned
            if name not in planned:
                return
            self._planned = {k: v for k, v in planned.items() if k != name}
            try:
                t = self._cfg.tenant(name)
            except KeyError:
                return
            if _in_force(t, planned) != t:
                self.engine.set_tenant(name, **tenant_live_settings(t))

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
        from control.tune.profiling import flatten_fields
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
        """Tenants without a size got an equal share at start, tenants without an
        offset were placed first fit: record both, so a restart from the persisted
        file lays the namespaces out the same.  Call once the Engine runs."""
        pinned = []
        for t in self._cfg.tenants:
            if t.size is None or t.offset is None:
                st = self.engine.tenant_stats(t.name)
                t = dataclasses.replace(t, size=int(st["size_bytes"]),
                                        offset=int(st["ns_base_bytes"]))
            pinned.append(t)
        self._cfg = dataclasses.replace(self._cfg, tenants=tuple(pinned))
        self._settle_scrub()
        if self.start_change:
            self._save_at_start(self.start_change)
        elif self.state is not None and state_format(self.state.path) == 1:
            # a format-1 state (control/state.py: written before tenant offsets were)
            # is written again as format 2 with every tenant's offset, so a later
            # start -- also one where an edited config file wins and only the state
            # knows the layout -- puts each namespace back where this one placed it
            self._save_at_start(f"state.format 1 -> {STATE_FORMAT}")

    def _save_at_start(self, what: str) -> None:
        """At start, after pin_sizes, when the config file won over an older state
        (control/state.py Loaded.start_change) or the state is format 1: write it now -- atomically, the
        old one kept as generation .1 -- so the offsets placed at this start and the
        space still pending are saved at once, not only at the next change or shutdown
        (a crash before then started the next time from the file alone).  Errors are
        logged (the daemon serves anyway)."""
        if self.state is None:
            return
        try:
            self.state.write(self.file_form(), what, self._scrub)
            self._saved_scrub = self._scrub
        except OSError as e:
            log.error("could not save %s: %s", self.persist_path, e)

    def _settle_scrub(self) -> None:
        """At start, a last guard: no tenant may hold space the state has pending
        (control/state.py's place_clear_of_pending places tenants without an offset
        clear of it and refuses offsets over it; before, a tenant of an edited config
        was placed first fit over it, the space was forgotten as pending after a 5 s
        wait, and a restart before the drive had zeroed it showed the tenant the
        removed one's bytes).  Should one still, the start waits -- without a cap --
        until its drive has zeroed it, and only then forgets it: a restart must
        neither zero a tenant's data nor show it another's."""
        for drive, rs in list(self._scrub.items()):
            held = [(t.offset or 0, t.size or 0) for t in self._cfg.tenants if t.drive == drive]
            if not any(ranges_overlap(o, m, b, n) for o, m in rs for b, n in held):
                continue
            log.warning("a tenant holds space drive '%s' has not zeroed yet; waiting until "
                        "it is zeroed: %s", drive, self._scrub_busy(drive).message)
            while int(self.engine.drive_stats(drive)["scrub_pending_bytes"]):
                time.sleep(0.05)
            self._scrub_refresh()

    def _scrub_refresh(self) -> None:
        """Forget the removed namespaces of drives that report nothing left to zero."""
        for drive in [d for d, rs in self._scrub.items() if rs]:
            try:
                left = int(self.engine.drive_stats(drive)["scrub_pending_bytes"])
            except (OSError, ValueError, KeyError, RuntimeError):   # RuntimeError: closed
                continue
            if left == 0:
                self._scrub = {k: v for k, v in self._scrub.items() if k != drive}

    def save_scrub_done(self) -> None:
        """At shutdown: when a drive finished zeroing space the state file still lists,
        write the state once more (change ``scrub.done``), so the next start does not
        zero it again nor hold tenant.add back for it.  Never writes when the state
        lists nothing (a ``persist: false`` bench that removed its temporary tenant
        leaves no state file behind).  Errors are logged."""
        with self._lock:
            if self.state is None or not self._saved_scrub:
                return
            self._scrub_refresh()
            if self._scrub == self._saved_scrub:
                return
            try:
                self.state.write(self.file_form(), "scrub.done", self._scrub)
                self._saved_scrub = self._scrub
            except OSError as e:
                log.error("could not save %s: %s", self.persist_path, e)

    def _scrub_place(self, t: Tenant, new: Config) -> tuple[Tenant, Config, str | None]:
        """With the lock held, before tenant t (the last of new) is placed, on a drive
        that still zeroes removed space (see the module docstring): the same placement
        as a start (control/state.py place_clear_of_pending) -- without an offset, t
        gets the first fit clear of that space; given an offset over it, AdminError
        ``invalid`` with the start's one line.  Returns (t, new, None) to place, or
        (t, new, drive) when t fits on its drive only over space still being zeroed."""
        self._scrub_refresh()
        pending = self._scrub.get(t.drive, ())
        if not pending:
            return t, new, None
        scrub = {t.drive: pending}
        msg = offset_over_pending(t, scrub, self.persist_path or "the daemon", live=True)
        if msg:
            raise AdminError("invalid", f"args.offset: {msg}")
        if t.offset is not None:
            return t, new, None             # placed clear of it
        try:
            placed = place_clear_of_pending(new, scrub, "admin")
        except ConfigError:
            return t, new, t.drive          # fits only over it: wait, or busy
        t = placed.tenants[-1]              # None offset: no room at all (the Engine says so)
        return t, dataclasses.replace(new, tenants=new.tenants[:-1] + (t,)), None

    def _scrub_rate(self) -> int:
        return int(limits_settings(self._cfg).get("scrub_rate") or DEFAULT_SCRUB_BPS)

    def _scrub_wait(self, drive: str) -> None:
        """Wait until drive has nothing left to zero, if that takes at most
        ADD_SCRUB_WAIT_S at limits.scrub_rate (bounded by twice that plus 1 s).  Reads
        only the Engine's counters: called WITHOUT the lock (tenant.add), so other
        admin ops are answered meanwhile."""
        rate = self._scrub_rate()
        try:
            left = int(self.engine.drive_stats(drive)["scrub_pending_bytes"])
            est = left / rate
            deadline = time.monotonic() + 2 * est + 1.0
            while left and est <= ADD_SCRUB_WAIT_S and time.monotonic() < deadline:
                time.sleep(0.01)
                left = int(self.engine.drive_stats(drive)["scrub_pending_bytes"])
        except (OSError, ValueError, KeyError, RuntimeError):   # RuntimeError: closed
            return                  # the caller checks again under the lock

    def _scrub_busy(self, drive: str) -> AdminError:
        """tenant.add's one-line refusal while drive still zeroes removed space."""
        rate = self._scrub_rate()
        try:
            left = int(self.engine.drive_stats(drive)["scrub_pending_bytes"])
        except (OSError, ValueError, KeyError, RuntimeError):   # RuntimeError: closed
            left = sum(n for _, n in self._scrub.get(drive, ()))
        where = format_spans(self._scrub.get(drive, ()))
        return AdminError("busy", f"drive '{drive}' still has {units.human_size(left)} of "
                          f"removed tenants' space being zeroed ({where}; limits.scrub_rate "
                          f"{units.format_rate(rate)}: about {max(1, round(left / rate))} s); "
                          "a new tenant is placed there only once it is zeroed, so that no "
                          "restart shows it the old data, and it fits nowhere else on the "
                          "drive: retry then")

    # -- dispatch ---------------------------------------------------------

    def handle(self, op: str, args: dict[str, Any], peer: str = "") -> Any:
        """Run one op; AdminError on failure.  Changes are logged with the peer."""
        fn = getattr(self, "op_" + op.replace(".", "_"), None) if op in OPS else None
        if fn is None:
            raise AdminError("unknown_op", f"unknown op {op!r} (allowed: {', '.join(OPS)})")
        try:
            if op in READ_ONLY_OPS:
                return fn(args)
            persist = args.get("persist", True)
            if not isinstance(persist, bool):
                raise AdminError("invalid", "args.persist: is not true or false")
            args = {k: v for k, v in args.items() if k != "persist"}
            if op == "tune.set":       # takes the lock itself: the tuner's restore needs it
                self._persist = persist
                result = fn(args)
            elif op == "tenant.remove":  # takes the lock itself, not while the Engine removes
                result = self._tenant_remove(args, persist)
            elif op == "tenant.add":     # takes the lock itself, not while the drive zeroes
                result = self._tenant_add(args, persist)
            else:
                with self._lock:
                    self._persist = persist
                    result = fn(args)
            log.info("%s %s %s", op, json.dumps(args, sort_keys=True, default=str), peer)
            if op.startswith("tenant.") and self.on_tenant_change is not None:
                self.on_tenant_change()
            return result
        except ConfigError as e:
            raise AdminError("invalid", str(e).removeprefix("admin: ")) from None

    def _commit(self, cfg: Config, what: str) -> dict[str, Any]:
        """Adopt cfg and save it to the state file (unless the op said ``persist:
        false``); the reply's ``persisted`` says where (None: not saved)."""
        self._cfg = cfg
        if self.state is None or not self._persist:
            return {"persisted": None}
        self._scrub_refresh()
        try:
            self.state.write(self.file_form(cfg), what, self._scrub)
            self._saved_scrub = self._scrub
        except OSError as e:
            log.error("could not save %s: %s", self.persist_path, e)
            raise AdminError("persist", f"applied to the running daemon, but saving "
                             f"{self.persist_path} failed: {e.strerror or e}") from None
        return {"persisted": self.persist_path}

    def _tenant(self, args: dict[str, Any]) -> Tenant:
        name = args.get("name")
        if not isinstance(name, str):
            raise AdminError("invalid", "args.name: is required (a tenant name)")
        if name in self._removing:
            raise AdminError("not_found", f"tenant {name!r} is being removed")
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
                "config": self.config_path, "state": self.persist_path,
                "metrics": self.metrics_url,
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
        return {"path": self.config_path, "state": self.persist_path,
                "config": document(cfg), "yaml": dump_yaml(cfg)}

    def op_tenant_add(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._tenant_add(args, self._persist)

    def _tenant_add(self, args: dict[str, Any], persist: bool) -> dict[str, Any]:
        """tenant.add.  On a drive still zeroing removed space, a tenant without an
        offset is placed first fit clear of it, one given an offset over it is refused
        (_scrub_place); when it fits only over it, the op waits for the zeroing
        (_scrub_wait, at most ADD_SCRUB_WAIT_S of estimated work) WITHOUT the lock --
        other admin ops, a tenant.remove or tenant.set included, are answered meanwhile
        (it used to hold the lock for up to 11 s) -- then checks everything again under
        the lock, since the config may have changed; still blocked: AdminError ``busy``
        (one line)."""
        waited = False
        while True:
            with self._lock:
                cfg = self._cfg
                t = parse_tenant_args(args, cfg)
                if any(x.name == t.name for x in cfg.tenants):
                    raise AdminError("exists", f"args.name: tenant {t.name!r} already exists")
                new = dataclasses.replace(cfg, tenants=cfg.tenants + (t,))
                check_config(new, "admin", self._where(len(cfg.tenants)))
                t, new, drive = self._scrub_place(t, new)
                if drive is None:
                    self._persist = persist
                    return self._place(t, new)
                if waited:
                    raise self._scrub_busy(drive)
            self._scrub_wait(drive)
            waited = True

    def _place(self, t: Tenant, new: Config) -> dict[str, Any]:
        """tenant.add's Engine part and commit (the lock held)."""
        try:
            self.engine.add_tenant(engine_tenant(t))
        except OSError as e:
            raise AdminError(_errno_code(e), f"tenant {t.name!r}: {e}") from None
        except ValueError as e:
            raise AdminError("engine", f"tenant {t.name!r}: {e}") from None
        if t.offset is None:          # first fit: record where, for restarts
            t = dataclasses.replace(t, offset=int(self.engine.tenant_stats(t.name)
                                                  ["ns_base_bytes"]))
            new = dataclasses.replace(new, tenants=new.tenants[:-1] + (t,))
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
        return self._tenant_remove(args, self._persist)

    def _tenant_remove(self, args: dict[str, Any], persist: bool) -> dict[str, Any]:
        """tenant.remove in three steps, the middle one without the lock: (1) under the
        lock, check and mark the tenant as being removed (ops on it now answer
        not_found); (2) the Engine removes it -- its queued IO is answered ESHUTDOWN,
        its connections close after their last replies, in-flight IO completes
        (csrc/export.c section 4: bounded, milliseconds on RAM) -- while other admin
        ops run; (3) under the lock, drop it from the config and persist."""
        with self._lock:
            t = self._tenant(args)
            extra = set(args) - {"name", "force"}
            if extra:
                raise AdminError("invalid", f"args.{sorted(extra)[0]}: unknown key (allowed: "
                                 "name, force)")
            force = args.get("force", False)
            if not isinstance(force, bool):
                raise AdminError("invalid", "args.force: expected true or false")
            if not force:
                try:
                    conns = int(self.engine.tenant_stats(t.name)["connections"])
                except (ValueError, OSError, KeyError, TypeError):
                    conns = 0
                if conns:
                    raise AdminError("busy", f"tenant {t.name!r} has {conns} open connection"
                                     f"{'' if conns == 1 else 's'}; disconnect the clients or "
                                     "force it (args.force)")
            self._removing = self._removing | {t.name}
        try:
            try:
                st = self.engine.tenant_stats(t.name)
                space = (int(st["ns_base_bytes"]), int(st["size_bytes"]))
                self.engine.remove_tenant(t.name)
            except OSError as e:
                raise AdminError(_errno_code(e), f"tenant {t.name!r}: {e}") from None
            with self._lock:
                # its space is zeroed lazily: keep it in the state until the drive is done
                self._scrub = {**self._scrub,
                               t.drive: tuple(self._scrub.get(t.drive, ())) + (space,)}
                cfg = self._cfg
                new = dataclasses.replace(cfg, tenants=tuple(x for x in cfg.tenants
                                                             if x.name != t.name))
                self._planned = {k: v for k, v in self._planned.items() if k != t.name}
                out: dict[str, Any] = {"tenant": t.name}
                self._persist = persist
                out.update(self._commit(new, f"tenant.remove {t.name}"))
                return out
        finally:
            with self._lock:
                self._removing = self._removing - {t.name}

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
            row: dict[str, Any] = {**_TENANT_ROW, **tenant_doc(t), "class": t.effective_class,
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
        from control.config_export import drive_doc
        from control.daemon.metrics import read_drive
        rows = []
        for d in self._cfg.drives:
            row: dict[str, Any] = {**drive_doc(d)}
            cap, _why = drive_capacity_bps(d)
            row["capacity_bps"] = cap
            row["reserved_bps"] = sum(t.reserve for t in self._cfg.tenants if t.drive == d.name)
            row["live"] = read_drive(self.engine, d.name)
            row["tuned"] = self._tuned.get(d.name, {})   # the autotuner's, not persisted
            row["band_text"] = d.band.text() if d.band is not None else _band_text(d.policy)
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
        from control.config_export import drive_doc
        out: dict[str, Any] = {"drive": drive_doc(d)}
        out.update(self._commit(new, f"drive.set {d.name}"))
        return out

    def op_stats(self, args: dict[str, Any]) -> dict[str, Any]:
        from control.daemon.metrics import read_stats
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

    def op_tls_reload(self, args: dict[str, Any]) -> dict[str, Any]:
        """Re-read the PSK file (key rotation): new handshakes use its keys; on a bad file
        the keys loaded before stay.  Nothing to persist: the file is the truth."""
        if args:
            raise AdminError("invalid", f"args.{sorted(args)[0]}: tls.reload takes no arguments")
        try:
            keys = self.engine.reload_psk()
        except ValueError as e:         # EngineConfigError: missing, or readable by others
            raise AdminError("invalid", f"{e} (the keys loaded before stay)") from None
        except OSError as e:
            raise AdminError("engine", str(e)) from None
        return {"file": self.engine.psk_file, "keys": keys, "persisted": None}

    def op_shutdown(self, args: dict[str, Any]) -> dict[str, Any]:
        log.warning("shutdown requested over the admin socket")
        return {"stopping": True}

    def after(self, op: str) -> None:
        """Run after the reply to op was sent."""
        if op == "shutdown":
            self._on_shutdown()


# every tenant.list row has these keys (null where the tenant has no value)
_TENANT_ROW: dict[str, Any] = dict.fromkeys(("name", "drive", "size", "read_only",
                                             "description", "default", "class", "weight",
                                             "reserve", "limit", "limit_iops", "latency_slo",
                                             "sq_depth"))


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


def _band_text(policy: str) -> str | None:
    """A policy's default band as the config writes it (``150%..300%``, ``250us..1500us``)."""
    b = _policy_band(policy)
    if not b:
        return None
    if b["band_lo_pct"] and b["band_hi_pct"]:
        return f"{b['band_lo_pct']}%..{b['band_hi_pct']}%"
    if b["lat_min_ns"] and b["lat_max_ns"]:
        return f"{units.format_duration(b['lat_min_ns'])}..{units.format_duration(b['lat_max_ns'])}"
    return None


def _policy_band(policy: str) -> dict[str, int]:
    """The band fields of a policy's default controller config (from the C core)."""
    from dataplane.sim import default_sched_cfg
    try:
        c = default_sched_cfg(policy)["ctl"]
    except OSError:
        return {}
    return {k: int(c[k]) for k in ("lat_min_ns", "lat_max_ns", "band_lo_pct", "band_hi_pct")}


