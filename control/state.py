"""The daemon's state file: live admin changes, kept beside the operator's config.

The config file the operator wrote is never rewritten by the daemon.  Every
persisted admin change (``tenant add``, ``drive set``, ...) writes the whole
running config, in the file's form, to a state file instead:

    /etc/jbof/jbof.yaml                 the operator's file (read only)
    /etc/jbof/jbof.state.yaml           beside it, or DIR/jbof.state.yaml with --state-dir DIR
    /etc/jbof/jbof.state.yaml.1 .. .4   the previous generations (GENERATIONS in all)

A write is atomic (temporary file, fsync, rename, fsync of the directory);
before it the generations shift by one (``.1`` -> ``.2``, ...).  The state
records the SHA-256 of the config file it was made from.  At start the daemon
loads the config and, when the state's base matches the file, the state on top
(its log line says which).  A config file edited after the state was written
wins and the state is set aside: the start writes the state again from the
file (change ``start: config file edited after the state``, the old one kept
as generation ``.1``), with the offsets it placed tenants at and the set-aside
state's pending space; a state written after the file changed (``jbof config save``, then
more live changes) still wins, and the log line says so.  ``jbof config
diff`` shows running vs file; ``jbof config save`` writes the running config
into the file (control/config_save.py), comments kept.

Besides the config (in which the daemon records every tenant's ``offset``, so
a restart puts each namespace back where it was, csrc/export.c section 2) the
state keeps ``scrub_pending``: per drive, the namespaces of removed tenants
whose zeroing the drive has not confirmed yet (dropped once the drive reports
``scrub_pending_bytes`` 0 at a save; the daemon saves once more at shutdown,
change ``scrub.done``, when that happened since the last save).  When the state is applied at start,
the Engine marks them dirty again before it serves (csrc/scrub.c section 6):
a restart never shows a removed tenant's bytes to the next owner.  Nor does a
start place a tenant over that space (place_clear_of_pending: a tenant without
an offset goes first fit clear of it; one given an offset over it, or fitting
only over it, is refused with one line), nor a live ``tenant add`` (the same
placement and line, control/daemon/operations.py; it waits for the zeroing or is
refused ``busy`` only when the tenant fits nowhere else).

Formats (``jbof_state:``): 2 since tenant offsets and ``scrub_pending``; 1
before them (its tenants carry no ``offset``).  A format-1 state is applied as
before -- its tenants placed first fit, as the daemon that wrote it placed them
-- and the start writes it again as format 2 (change ``state.format 1 -> 2``)
with the offsets recorded.  Any other format is refused at start with one line
naming it and the formats read (an older daemon cannot read format 2).
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from control import units
from control.config import (
    Config,
    Tenant,
    check_config,
    drive_size,
    parse_config,
    ranges_overlap,
)
from control.config_export import document
from control.errors import ConfigError
from control.schema import load_yaml
from dataplane import DataplaneError

__all__ = ["GENERATIONS", "STATE_FORMAT", "STATE_FORMATS", "Loaded", "ScrubPending",
           "StateFile", "file_sha256", "format_spans", "load_with_state", "offset_over_pending",
           "place_clear_of_pending", "unplaced_unknown_size",
           "scrub_pending", "state_config", "state_format", "state_path_for", "write_atomic"]

MIB = 1 << 20
GENERATIONS = 5          # the current state file and 4 older ones
STATE_FORMAT = 2          # what this daemon writes (``jbof_state:``)
STATE_FORMATS = (1, 2)    # what it reads: 1 = before tenant offsets and scrub_pending
START_CHANGE = "start: config file edited after the state"   # Loaded.start_change


def state_path_for(config_path: str | None, state_dir: str | None) -> Path | None:
    """Where live changes go: ``DIR/NAME.state.yaml`` with a state dir, else beside the
    config file; None for the embedded default config without a state dir."""
    stem = Path(config_path).stem if config_path else "default"
    if state_dir:
        return Path(state_dir) / f"{stem}.state.yaml"
    if config_path is None:
        return None
    p = Path(config_path)
    return p.with_name(f"{stem}.state.yaml")


def file_sha256(path: str | Path | None) -> str | None:
    if path is None:
        return None
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def write_atomic(path: str | Path, text: str, mode: int | None = None) -> None:
    """tmp file + fsync, rename over path, fsync the directory (OSError on failure;
    path is then untouched)."""
    p = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    dfd = os.open(p.parent, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


@dataclass
class StateFile:
    """The state file of one daemon: ``write`` persists a config, keeping generations."""
    path: Path
    base_sha256: str | None          # the config file's hash at start
    generations: int = GENERATIONS

    def generation_paths(self) -> list[Path]:
        return [self.path] + [Path(f"{self.path}.{i}") for i in range(1, self.generations)]

    def write(self, cfg: Config, what: str, scrub: ScrubPending | None = None) -> None:
        doc = {"jbof_state": STATE_FORMAT,
               "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
               "change": what,
               "base_sha256": self.base_sha256,
               "config": document(cfg)}
        if scrub:
            doc["scrub_pending"] = {d: [[units.format_size(o), units.format_size(n)]
                                        for o, n in rs] for d, rs in scrub.items() if rs}
        text = ("# jbof serve state: the running config after live admin changes.\n"
                "# Written by the daemon; the config file itself is never rewritten.\n"
                "# `jbof config diff` shows the difference, `jbof config save` writes it.\n"
                + yaml.safe_dump(doc, sort_keys=False, default_flow_style=None, width=100,
                                 allow_unicode=True))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        gens = self.generation_paths()
        for older, newer in zip(reversed(gens[1:]), reversed(gens[:-1])):
            if newer.exists():
                os.replace(newer, older)
        write_atomic(self.path, text, 0o600)


# drive -> [(offset, length)] of removed namespaces not yet confirmed zeroed
ScrubPending = dict[str, tuple[tuple[int, int], ...]]


@dataclass(frozen=True)
class Loaded:
    """What serve starts from: the config (with the state applied when it was), the
    log line that says so, the state's scrub_pending (applied with it), and the change
    the start writes the state with (None: no write; set when the file wins over an
    older state: the offsets placed then are saved at once)."""
    cfg: Config
    used_state: bool
    message: str
    scrub: ScrubPending = field(default_factory=dict)
    start_change: str | None = None


def load_with_state(file_cfg: Config, config_path: str | None,
                    state_path: Path | None, host: bool = True) -> Loaded:
    """file_cfg with the state on top when the state exists and was made from this
    config file; ConfigError (one line) when the state file is unreadable.  host=False
    (`jbof config check --no-host`): a drive whose size only its host knows (no `size`,
    its path not here) is not placed clear of its pending space, not refused."""
    shown = config_path or "the embedded default config"
    if state_path is None or not state_path.exists():
        where = f" (live changes go to {state_path})" if state_path else \
            " (live changes are not persisted: no --config or --state-dir)"
        return Loaded(file_cfg, False, f"jbof serve: config {shown}; no state{where}")
    src = str(state_path)
    try:
        raw = read_state_doc(state_path)
    except ConfigError as e:
        msg = e.message or "is not a jbof state file"
        if "move it away" not in msg:
            msg += " (move it away to start from the config alone)"
        raise ConfigError(src, "", msg) from None
    base = raw.get("base_sha256")
    note = ""
    if base is not None and base != file_sha256(config_path):
        if _mtime(config_path) >= _mtime(state_path):
            cfg, scrub, kept = _carry_over(file_cfg, raw, src, host)
            return Loaded(cfg, False,
                          f"jbof serve: config {shown}; state {src} (saved "
                          f"{raw.get('saved_at')}) NOT applied: the config file was edited "
                          f"after it; the file wins{kept}", scrub, START_CHANGE)
        note = " (the config file changed under the last daemon, e.g. `jbof config save`: " \
               "the newer state wins; see `jbof config diff`)"
    cfg = parse_config(raw["config"], f"{src}: config")
    scrub = scrub_pending(raw, cfg, src)
    cfg = place_clear_of_pending(cfg, scrub, f"{src}: config", host)
    note += _zeroing(scrub)
    return Loaded(cfg, True, f"jbof serve: config {shown} + state {src} (saved "
                  f"{raw.get('saved_at')} after {raw.get('change')}){note}", scrub)


def _zeroing(scrub: ScrubPending) -> str:
    return "; zeroing again " + ", ".join(
        f"{units.human_size(sum(n for _, n in rs))} of removed tenants' space on {d}"
        for d, rs in scrub.items()) if scrub else ""


def _carry_over(file_cfg: Config, raw: dict[str, Any],
                src: str, host: bool = True) -> tuple[Config, ScrubPending, str]:
    """The file wins over an older state, but only the state knows where the daemon
    placed namespaces and which removed space is not zeroed yet.  On drives the file
    still describes the same way (backend, path, size): a file tenant without an offset
    whose name and size match a state tenant gets its offset back (all or none: the
    result must pass check_config), and scrub_pending ranges inside the drive that no
    tenant of the file is placed on stay pending.  Returns (config, scrub, note)."""
    try:
        old = parse_config(raw["config"], f"{src}: config")
    except (ConfigError, KeyError):
        return file_cfg, {}, ""
    same = {d.name for d in file_cfg.drives for o in old.drives
            if (d.name, d.backend, d.path, d.size) == (o.name, o.backend, o.path, o.size)}
    placed = {t.name: t for t in old.tenants if t.drive in same and t.offset is not None}
    tenants, kept = [], 0
    for t in file_cfg.tenants:
        o = placed.get(t.name)
        if t.offset is None and o is not None and (o.drive, o.size) == (t.drive, t.size):
            t = dataclasses.replace(t, offset=o.offset)
            kept += 1
        tenants.append(t)
    cfg = dataclasses.replace(file_cfg, tenants=tuple(tenants))
    try:
        check_config(cfg, file_cfg.source)
    except ConfigError:
        cfg, kept = file_cfg, 0
    try:
        scrub = scrub_pending(raw, cfg, src, strict=False, drives=same)
    except ConfigError:
        scrub = {}
    _refuse_given_offsets_over(cfg, scrub, src)
    cfg = place_clear_of_pending(cfg, scrub, file_cfg.source, host)
    note = f"; {kept} tenant(s) kept where the state placed them" if kept else ""
    return cfg, scrub, note + _zeroing(scrub)


def scrub_pending(raw: dict[str, Any], cfg: Config, src: str, strict: bool = True,
                  drives: set[str] | None = None) -> ScrubPending:
    """The state's scrub_pending: {drive: [[offset, length], ...]} (ConfigError: one line).
    ``strict=False`` (a state set aside): ranges of drives not in ``drives`` or past a
    drive's end are left out instead of refused; ranges under a tenant with an offset
    are kept (_refuse_given_offsets_over refuses such a tenant: leaving the range out
    handed the old tenant's bytes to the new one)."""
    got = raw.get("scrub_pending") or {}
    where = "scrub_pending"
    if not isinstance(got, dict):
        raise ConfigError(src, where, "expected a mapping drive: [[offset, length], ...]")
    names = [d.name for d in cfg.drives]
    out: ScrubPending = {}
    for drive, ranges in got.items():
        if not strict and drive not in (drives or set()):
            continue
        if drive not in names:
            raise ConfigError(src, f"{where}.{drive}", f"is not a drive (have: {', '.join(names)})")
        if not isinstance(ranges, list):
            raise ConfigError(src, f"{where}.{drive}", "expected a list of [offset, length]")
        rs = []
        for i, r in enumerate(ranges):
            try:
                off, n = (units.parse_size(x) for x in r)
                if len(r) != 2 or n <= 0:
                    raise ValueError
            except (TypeError, ValueError):
                raise ConfigError(src, f"{where}.{drive}[{i}]", f"{r!r} is not [offset, "
                                  "length] (sizes, length above 0)") from None
            end = drive_size(cfg.drive(drive))
            if not strict and end is not None and off + n > end:
                continue
            over = [t for t in cfg.tenants if t.drive == drive and t.offset is not None and
                    t.size is not None and ranges_overlap(off, n, t.offset, t.size)]
            for t in over if strict else ():   # the daemon never places a tenant over it
                raise ConfigError(src, f"{where}.{drive}[{i}]", f"[{units.format_size(off)}, "
                                      f"{units.format_size(off + n)}) overlaps tenant "
                                      f"'{t.name}' (allowed: space no tenant holds; zeroing "
                                      "it would destroy that tenant's data)")
            rs.append((off, n))
        if rs:
            out[drive] = tuple(rs)
    return out


def _refuse_given_offsets_over(cfg: Config, scrub: ScrubPending, src: str) -> None:
    """A config file edited after the state may give a tenant an offset over space the
    state still lists as not zeroed (the state's own tenants never are): that tenant
    would read the removed tenant's bytes -- at once, or after a restart.  ConfigError
    (one line): the daemon does not start with it."""
    for i, t in enumerate(cfg.tenants):
        msg = offset_over_pending(t, scrub, src)
        if msg:
            raise ConfigError(cfg.source, f"tenants[{i}].offset", msg)


def offset_over_pending(t: Tenant, scrub: ScrubPending, src: str, live: bool = False) -> str | None:
    """The one line refusing tenant t, given an offset over space its drive has not
    zeroed yet (scrub: src's scrub_pending), else None.  At start (and in ``jbof config
    check``) and at a live ``tenant add`` alike; ``live`` only changes the advice."""
    if t.offset is None or t.size is None:
        return None
    over = [(o, n) for o, n in scrub.get(t.drive, ()) if ranges_overlap(t.offset, t.size, o, n)]
    if not over:
        return None
    advice = ("give an offset clear of it, or none (the tenant is then placed clear of it)"
              if live else "give an offset clear of it, or start once without this tenant "
              "(the drive zeroes that space while the daemon serves)")
    return (f"tenant '{t.name}' at {_span(t.offset, t.size)} overlaps removed tenants' "
            f"space drive '{t.drive}' has not zeroed yet ({format_spans(over)}, in {src}'s "
            f"scrub_pending): it would read their data; {advice}")


def place_clear_of_pending(cfg: Config, scrub: ScrubPending, src: str, host: bool = True) -> Config:
    """At start, before the Engine places anything: each tenant without an offset on a
    drive with pending (not yet zeroed) space gets one here -- the Engine's own first
    fit (csrc/export.c section 2a, jbof_place_first_fit through dataplane.placement:
    its alignment rules live only there; given offsets first, then config order) with
    the pending space counted as taken; a tenant without a size gets an equal share of
    what is left clear of the pending space, in whole MiB (the Engine's share would
    not fit beside it).  The Engine used to place such a tenant over
    the pending space (it reads zeroes there while the daemon runs), and the daemon
    then had to forget that space as pending: a restart before the drive had zeroed it
    showed the new tenant the removed one's bytes.  ConfigError (one line) when a
    tenant fits only over pending space.  host=False (a check away from the drive's
    host): a drive of unknown size is left as it is (unplaced_unknown_size names it)."""
    if not any(scrub.values()):
        return cfg
    from dataplane.placement import first_fit   # the compiled core: only when needed
    tenants = list(cfg.tenants)
    for d in cfg.drives:
        pending = list(scrub.get(d.name, ()))
        mine = [i for i, t in enumerate(tenants) if t.drive == d.name]
        if not pending or all(tenants[i].offset is not None for i in mine):
            continue
        end = drive_size(d)
        if end is None and not host:
            continue        # its host knows the size; `config check --no-host` says so
        if end is None:
            raise ConfigError(src, f"drives.{d.name}", "its size is unknown, so tenants "
                              "without an offset cannot be placed clear of the removed "
                              f"tenants' space it has not zeroed yet ({format_spans(pending)}): "
                              "give the drive a size, or the tenants offsets")
        block = d.block_size or 1
        fixed = sum(tenants[i].size or 0 for i in mine)
        open_ = [i for i in mine if tenants[i].size is None]
        left = end - fixed - sum(n for _, n in pending)      # pending: under no tenant
        share = left // len(open_) // MIB * MIB if open_ and left > 0 else 0
        placed = [(t.offset, t.size) for t in (tenants[i] for i in mine)
                  if t.offset is not None and t.size]
        for i in mine:
            t = tenants[i]
            if t.offset is not None:
                continue
            size = t.size if t.size is not None else share
            try:
                at = first_fit(end, block, size, placed + pending) if size else None
                if at is None and size and first_fit(end, block, size, placed) is None:
                    continue        # no room even over the pending space: the Engine says so
            except DataplaneError:  # EINVAL: a size not a multiple of the block
                continue            # left to the Engine, which refuses it with its line
            if at is None:
                what = units.format_size(size) if size else "no size: an equal share of the rest"
                raise ConfigError(src, f"tenants[{i}]", f"tenant '{t.name}' "
                                  f"({what}) fits on drive '{d.name}' only "
                                  "over removed tenants' space not zeroed yet "
                                  f"({format_spans(pending)}): a restart would show it their data; "
                                  "give it an offset clear of that space, or start once "
                                  "without it (the drive zeroes that space while the daemon "
                                  "serves)")
            tenants[i] = dataclasses.replace(t, offset=at, size=size)
            placed.append((at, size))
    return dataclasses.replace(cfg, tenants=tuple(tenants))



def unplaced_unknown_size(cfg: Config, scrub: ScrubPending) -> list[str]:
    """The drives place_clear_of_pending(host=False) left alone: pending space, a tenant
    without an offset, and a size only the drive's host knows."""
    return [d.name for d in cfg.drives
            if scrub.get(d.name) and drive_size(d) is None
            and any(t.drive == d.name and t.offset is None for t in cfg.tenants)]

def _span(off: int, n: int) -> str:
    return f"[{units.format_size(off)}, {units.format_size(off + n)})"


def format_spans(rs: list[tuple[int, int]] | tuple[tuple[int, int], ...]) -> str:
    """Byte ranges as the one-line errors show them: [0, 32MiB), [64MiB, 96MiB)."""
    return ", ".join(_span(o, n) for o, n in rs)


def _mtime(path: str | Path | None) -> float:
    try:
        return os.stat(path).st_mtime if path else 0.0
    except OSError:
        return 0.0


def read_state_doc(path: str | Path) -> dict[str, Any]:
    """The state file's document (ConfigError, one line: not a state file, or a
    format this daemon does not read -- e.g. one written by a newer jbof)."""
    raw = load_yaml(path)
    if not isinstance(raw, dict) or "jbof_state" not in raw:
        raise ConfigError(str(path), "", "is not a jbof state file")
    fmt = raw["jbof_state"]
    if isinstance(fmt, bool) or fmt not in STATE_FORMATS:
        raise ConfigError(str(path), "", f"jbof_state: format {fmt!r} is not supported; this "
                          f"jbof reads formats {', '.join(map(str, STATE_FORMATS))} (a newer "
                          "jbof wrote it? move it away to start from the config alone)")
    if not isinstance(raw.get("config"), dict):
        raise ConfigError(str(path), "", f"is not a jbof state file (format {fmt} without "
                          "a config mapping)")
    return raw


def state_format(path: str | Path) -> int | None:
    """The format of the state file at path; None when it is missing or unreadable."""
    try:
        return int(read_state_doc(path)["jbof_state"])
    except (ConfigError, OSError):
        return None


def state_config(path: str | Path) -> Config:
    """The config a state file holds (ConfigError: one line)."""
    return parse_config(read_state_doc(path)["config"], f"{path}: config")
