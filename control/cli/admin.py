"""``jbof config|tenant|drive|stats``: check configs and drive a running
``jbof serve`` through its admin socket (control/daemon/admin.py).

Every command that talks to the daemon takes ``--socket PATH`` (default: the
global ``jbof -s PATH``, else $JBOF_ADMIN_SOCKET, else
$XDG_RUNTIME_DIR/jbof/admin.sock).  Tables by default; ``--json`` prints
objects that all have the same keys (null where a value is missing).  Option values
use the config file's units and are checked here with the same schema
(control/config.py) before anything is sent; the daemon checks them again
against the whole config.  Errors are one line on stderr and a non-zero exit.
"""
from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable
from typing import Any

import click

from control import units
from control.daemon.admin import AdminError, Client
from control.cli.common import BadValue, admin_socket_option, run_guarded, uniform
from control.config import load_config, resolve_socket_path
from control.config_export import summary
from control.config_schema import (
    CONTROLLER_KEYS,
    DEFAULT_ADMIN_SOCKET,
    DRIVE_KEYS,
    TENANT_KEYS,
    schema_text,
)
from control.daemon.metrics import quantile
from control.schema import Key

CTX = {"help_option_names": ["-h", "--help"]}


class NothingToDo(click.UsageError):
    """A usage error shown as one line (no usage banner)."""

    def show(self, file: Any = None) -> None:
        click.echo(f"Error: {self.format_message()}", err=True, file=file)


def default_socket() -> str:
    return resolve_socket_path(DEFAULT_ADMIN_SOCKET)


socket_option = admin_socket_option()


def _cli_message(msg: str) -> str:
    """``args.latency_slo: ...`` -> ``--latency-slo: ...`` (the daemon names the request's keys)."""
    return re.sub(r"\bargs\.(?:controller\.)?([a-z_]+)",
                  lambda m: "--" + m.group(1).replace("_", "-"), msg)


def call(socket_path: str, op: str, **args: Any) -> Any:
    """One request to the daemon; every failure becomes one ClickException line."""
    def go() -> Any:
        try:
            with Client(socket_path) as c:
                return c.call(op, **args)
        except AdminError as e:
            raise click.ClickException(_cli_message(e.message)) from None
    return run_guarded(go)


def schema_option(table: dict[str, Key], key: str, *decls: str, **kw: Any) -> Callable[..., Any]:
    """A click option whose value is checked by the config schema's parser
    (the raw text is what is sent: the daemon parses it again)."""
    k = table[key]

    def check(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        if value is None or ctx.resilient_parsing:
            return value
        try:
            k.parse(value)
        except ValueError as e:
            raise BadValue(str(e), param_hint=f"'{param.opts[0]}'") from None
        return value

    name = "--" + key.replace("_", "-")
    return click.option(name, *decls, callback=check, metavar=k.kind.upper(),
                        help=f"{k.doc}.", **kw)


def int_option(table: dict[str, Key], key: str) -> Callable[..., Any]:
    """Like schema_option, for integer keys (converted before sending)."""
    k = table[key]

    def check(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        if value is None or ctx.resilient_parsing:
            return value
        try:
            return k.parse(value)
        except ValueError as e:
            raise BadValue(str(e), param_hint=f"'{param.opts[0]}'") from None

    return click.option("--" + key.replace("_", "-"), callback=check, metavar="N",
                        help=f"{k.doc}.")


def table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()
             for r in [header, *rows]]
    return "\n".join(lines)


def _dur(ns: float) -> str:
    return "-" if not ns else units.human_duration(ns)


# --------------------------------------------------------------- jbof config ---

@click.group("config", context_settings=CTX, short_help="Check, show, diff and save configs; list the keys.")
def config() -> None:
    """Check daemon config files; show, diff and save the running daemon's config.

    The daemon never rewrites its config file: live changes go to its state
    file.  `config diff` shows what differs, `config save` writes the running
    config into the file (comments kept) or --to another.

    \b
    Example:
      jbof config check /etc/jbof/jbof.yaml
      jbof config keys
      jbof config diff
      jbof config save
    """


@config.command("check")
@click.argument("file", metavar="FILE")
@click.option("--state-dir", "state_dir", type=click.Path(file_okay=False), default=None,
              metavar="DIR", help="Read the state file (live admin changes) from DIR, as "
              "`jbof serve --state-dir DIR` does (default: beside FILE).")
@click.option("--no-host", "no_host", is_flag=True, default=False,
              help="Check the file and the state file only, not this machine (drive "
              "paths, O_DIRECT, sockets, ports): e.g. while the daemon runs.")
def config_check(file: str, state_dir: str | None, no_host: bool) -> None:
    """Validate FILE and what `jbof serve` would reject on this machine; on
    success print one summary line.

    Checked beyond the keys: the state file serve would read (beside FILE, or
    in --state-dir: its format, its scrub_pending, no tenant placed over
    removed space not zeroed yet -- the refusals of a start, same line), drive
    paths exist and are files or block devices of enough size, O_DIRECT works
    where `direct` is on, the unix sockets are not in use (connect test), the
    TCP addresses can be bound (bind test).  Exits non-zero with one line per
    problem.  --no-host skips the machine (paths, O_DIRECT, sockets, ports: a
    running daemon holds its sockets) but still reads the state file: its
    refusals need no drive, and they are what stops the next start.

    \b
    Example:
      jbof config check /etc/jbof/jbof.yaml --state-dir /var/lib/jbof
    """
    import dataclasses
    from pathlib import Path

    from control.preflight import problems
    from control.state import load_with_state, state_path_for, unplaced_unknown_size
    cfg = run_guarded(lambda: load_config(file))
    # what serve --config FILE [--state-dir DIR] starts from (control/cli/serve.py),
    # with --no-host too: the state's refusals need no drive
    path = str(Path(file).resolve())
    state = state_path_for(path, state_dir)
    loaded = run_guarded(lambda: load_with_state(cfg, path, state, host=not no_host))
    note = ""
    if state is not None and state.exists():
        note = (f"; state {state}" if loaded.used_state else
                f"; state {state} not applied (the file was edited after it)")
    cfg = dataclasses.replace(loaded.cfg, source=cfg.source)
    unknown = unplaced_unknown_size(cfg, loaded.scrub) if no_host else []
    if unknown:
        note += (f"; tenants without an offset on {', '.join(unknown)} not placed clear of "
                 "its pending space here (its size is known only on its host)")
    found = [] if no_host else problems(cfg)
    if found:
        for p in found:
            click.echo(f"Error: {file}: {p}", err=True)
        sys.exit(1)
    click.echo(summary(cfg) + note)


@config.command("keys")
def config_keys() -> None:
    """Print every config key with its type, meaning and default.

    \b
    Example:
      jbof config keys | grep -A12 'tenants\\[\\]'
    """
    click.echo(schema_text())


@config.command("show")
@socket_option
def config_show(socket_path: str) -> None:
    """Print the running daemon's config (what a restart would load: the config
    file with the state file's live changes).

    \b
    Example:
      jbof -s /run/jbof/admin.sock config show
    """
    res = call(socket_path, "config.get")
    click.echo(f"# config: {res.get('path') or 'the embedded default'}")
    click.echo(f"# state:  {res.get('state') or 'none (live changes are not persisted)'}")
    click.echo(res["yaml"], nl=False)


@config.command("diff")
@click.argument("file", metavar="[FILE]", required=False)
@socket_option
def config_diff(file: str | None, socket_path: str) -> None:
    """Show how the running config differs from FILE (default: the file the daemon
    was started with), as a unified diff; exit 1 when they differ.

    \b
    Example:
      jbof config diff
      jbof config diff /etc/jbof/jbof.yaml
    """
    from control.config_save import diff_text
    res = call(socket_path, "config.get")
    path = file or res.get("path")
    if not path:
        raise click.ClickException("the daemon runs the embedded default config: name a FILE "
                                   "to compare with")
    text = run_guarded(lambda: diff_text(path, res["config"]))
    if not text:
        click.echo(f"no differences: the daemon runs what {path} says")
        return
    click.echo(text, nl=False)
    sys.exit(1)


@config.command("save")
@click.option("--to", "to", metavar="FILE", default=None,
              help="Write here (default: over the file the daemon was started with).")
@socket_option
def config_save(to: str | None, socket_path: str) -> None:
    """Write the running config to a file, on request: over an existing config
    file its comments, order and spellings are kept (only what changed is
    rewritten); a new file gets the plain document.

    \b
    Example:
      jbof config save
      jbof config save --to /etc/jbof/jbof.yaml.new
    """
    from pathlib import Path as _P
    from control.config_save import save_new, save_over
    res = call(socket_path, "config.get")
    path = to or res.get("path")
    if not path:
        raise click.ClickException("the daemon runs the embedded default config: give --to FILE")
    if _P(path).exists():
        wrote = run_guarded(lambda: save_over(path, res["config"]))
        click.echo(f"saved the running config to {path} (comments kept)" if wrote
                   else f"{path} already says what the daemon runs: nothing written")
    else:
        run_guarded(lambda: save_new(path, res["yaml"], res["config"]))
        click.echo(f"saved the running config to {path}")


# --------------------------------------------------------------- jbof tenant ---

def tenant_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The live tenant settings (TENANT_LIVE_KEYS), shared by add and set."""
    for opt in reversed((
            int_option(TENANT_KEYS, "weight"),
            schema_option(TENANT_KEYS, "reserve"),
            schema_option(TENANT_KEYS, "limit"),
            schema_option(TENANT_KEYS, "limit_iops"),
            schema_option(TENANT_KEYS, "latency_slo"),
            schema_option(TENANT_KEYS, "class", "klass"),
            int_option(TENANT_KEYS, "sq_depth"))):
        fn = opt(fn)
    return fn


def _settings(**kw: Any) -> dict[str, Any]:
    out = {("class" if k == "klass" else k): v for k, v in kw.items() if v is not None}
    return out


@click.group("tenant", context_settings=CTX, short_help="Add, remove, change, list tenants live.")
def tenant() -> None:
    """Add, remove, change and list the tenants of a running daemon.

    Every change is applied between two batches of the data plane (no IO
    dropped or reordered) and saved to the daemon's state file (the config
    file is never rewritten; `jbof config save` writes it on request).

    \b
    Example:
      jbof tenant add ckpt --drive ssd0 --size 64GiB --weight 2 --limit 500MiB/s
      jbof tenant set ckpt --weight 4
      jbof tenant ls
      jbof tenant rm ckpt
    """


@tenant.command("add")
@click.argument("name")
@schema_option(TENANT_KEYS, "drive")
@schema_option(TENANT_KEYS, "size", required=True)
@schema_option(TENANT_KEYS, "offset")
@tenant_options
@click.option("--read-only", is_flag=True, default=False, help="Refuse writes (EPERM).")
@schema_option(TENANT_KEYS, "tls_identity")
@click.option("--allow-uid", "allow_uids", type=int, multiple=True,
              help="Unix sockets: a peer uid allowed to open it (repeatable; default: anyone).")
@click.option("--allow-gid", "allow_gids", type=int, multiple=True,
              help="Unix sockets: a peer gid allowed to open it (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print the daemon's reply as JSON.")
@socket_option
def tenant_add(name: str, drive: str | None, size: str, offset: str | None, read_only: bool,
               as_json: bool, socket_path: str, tls_identity: str | None,
               allow_uids: tuple[int, ...], allow_gids: tuple[int, ...],
               **settings: Any) -> None:
    """Add tenant NAME (a new NBD export) to the running daemon.

    \b
    Example:
      jbof tenant add reader2 --drive ssd0 --size 4GiB --latency-slo 2ms --reserve 100MiB/s
    """
    try:
        TENANT_KEYS["name"].parse(name)
    except ValueError as e:
        raise BadValue(str(e), param_hint="'NAME'") from None
    args: dict[str, Any] = {"name": name, "size": size, **_settings(**settings)}
    if drive is not None:
        args["drive"] = drive
    if offset is not None:
        args["offset"] = offset
    if read_only:
        args["read_only"] = True
    if tls_identity is not None:
        args["tls_identity"] = tls_identity
    for key, ids in (("allow_uids", allow_uids), ("allow_gids", allow_gids)):
        if ids:
            args[key] = list(ids)
    res = call(socket_path, "tenant.add", **args)
    if as_json:
        click.echo(json.dumps(res, indent=2))
        return
    t = res["tenant"]
    click.echo(f"added tenant {t['name']} on {t['drive']} ({t['size']}): "
               f"{' '.join(res.get('uris', []))}")


@tenant.command("rm")
@click.argument("name")
@click.option("--force", is_flag=True, default=False,
              help="Remove it even while clients are connected (their connections close).")
@click.option("--json", "as_json", is_flag=True, help="Print the daemon's reply as JSON.")
@socket_option
def tenant_rm(name: str, force: bool, as_json: bool, socket_path: str) -> None:
    """Remove tenant NAME; refused while it has open connections unless --force
    (then its queued IO is answered ESHUTDOWN, IO already in the drive completes,
    its connections close after their last replies: milliseconds, however
    throttled it was; other admin requests are served meanwhile).

    \b
    Example:
      jbof tenant rm reader2
      jbof tenant rm reader2 --force
    """
    args: dict[str, Any] = {"force": True} if force else {}
    res = call(socket_path, "tenant.remove", name=name, **args)
    if as_json:
        click.echo(json.dumps(res, indent=2))
        return
    click.echo(f"removed tenant {name}")


@tenant.command("set")
@click.argument("name")
@tenant_options
@click.option("--json", "as_json", is_flag=True, help="Print the daemon's reply as JSON.")
@socket_option
def tenant_set(name: str, as_json: bool, socket_path: str, **settings: Any) -> None:
    """Change tenant NAME's weight, rates, SLO or class live (0 clears a rate or SLO).

    \b
    Example:
      jbof tenant set trainer --weight 4 --limit 1GiB/s
    """
    args = _settings(**settings)
    if not args:
        raise NothingToDo("nothing to change: give at least one of --weight, --reserve, "
                               "--limit, --limit-iops, --latency-slo, --class, --sq-depth")
    res = call(socket_path, "tenant.set", name=name, **args)
    if as_json:
        click.echo(json.dumps(res, indent=2))
        return
    changed = ", ".join(f"{k} {a} -> {b}" for k, (a, b) in res["changed"].items())
    click.echo(f"tenant {name}: {changed or 'unchanged'}")


@tenant.command("ls")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@socket_option
def tenant_ls(as_json: bool, socket_path: str) -> None:
    """List the tenants and their settings.

    \b
    Example:
      jbof tenant ls --json
    """
    res = call(socket_path, "tenant.list")
    if as_json:
        click.echo(json.dumps(uniform(res["tenants"]), indent=2))
        return
    rows = [[t["name"], t["drive"], units.format_size(t["size_bytes"]) if t["size_bytes"] else "-",
             t["class"], str(t["weight"]),
             units.format_rate(t["reserve_bps"]) if t["reserve_bps"] else "-",
             units.format_rate(t["limit_bps"]) if t["limit_bps"] else "-",
             units.format_iops(t["limit_iops"]) if t["limit_iops"] else "-",
             units.format_duration(t["latency_slo_ns"]) if t["latency_slo_ns"] else "-",
             "ro" if t["read_only"] else "rw",
             "-" if t.get("connections") is None else str(t["connections"])]
            for t in res["tenants"]]
    click.echo(table(rows, ["TENANT", "DRIVE", "SIZE", "CLASS", "WEIGHT", "RESERVE", "LIMIT",
                            "LIMIT_IOPS", "SLO", "MODE", "CONNS"]))


# ---------------------------------------------------------------- jbof drive ---

@click.group("drive", context_settings=CTX, short_help="List drives; change policy or band live.")
def drive() -> None:
    """List the drives of a running daemon and change their policy, controller
    band or controller knobs live.

    \b
    Example:
      jbof drive ls
      jbof drive set ssd0 --policy gimbal
      jbof drive set ssd0 --band 300us..2ms --rate-max 2GiB/s
    """


@drive.command("ls")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@socket_option
def drive_ls(as_json: bool, socket_path: str) -> None:
    """List the drives: backend, policy, band, controller state and rate.

    \b
    Example:
      jbof drive ls
    """
    res = call(socket_path, "drive.list")
    if as_json:
        click.echo(json.dumps(uniform(res["drives"]), indent=2))
        return
    rows = []
    for d in res["drives"]:
        live = d["live"]
        cap = d.get("capacity_bps")
        rows.append([
            d["name"], d["backend"], live["policy"],
            units.human_size(live["size_bytes"]), units.human_size(live["allocated_bytes"]),
            f"{_dur(live['band_lo_ns'])}..{_dur(live['band_hi_ns'])}",
            live["ctl_state"], units.human_rate(live["rate_cost_bps"]),
            f"{live['write_factor']:.2f}", str(live["inflight_ios"]),
            f"{units.human_rate(d['reserved_bps'])} of {units.human_rate(cap) if cap else '-'}"])
    click.echo(table(rows, ["DRIVE", "BACKEND", "POLICY", "SIZE", "ALLOC", "BAND", "STATE",
                            "RATE", "WFACTOR", "INFLIGHT", "RESERVED"]))


@drive.command("set")
@click.argument("name")
@schema_option(DRIVE_KEYS, "policy")
@schema_option(DRIVE_KEYS, "band")
@schema_option(CONTROLLER_KEYS, "rate_min")
@schema_option(CONTROLLER_KEYS, "rate_max")
@schema_option(CONTROLLER_KEYS, "rate_init")
@schema_option(CONTROLLER_KEYS, "bucket")
@int_option(CONTROLLER_KEYS, "ewma_shift")
@click.option("--json", "as_json", is_flag=True, help="Print the daemon's reply as JSON.")
@socket_option
def drive_set(name: str, policy: str | None, band: str | None, as_json: bool,
              socket_path: str, **knobs: Any) -> None:
    """Change drive NAME's scheduling policy, controller band or knobs live
    (queued and in-flight IO is kept).

    \b
    Example:
      jbof drive set ssd0 --policy qos --band 150%..300%
    """
    args: dict[str, Any] = {}
    if policy is not None:
        args["policy"] = policy
    if band is not None:
        args["band"] = band
    ctl = {k: v for k, v in knobs.items() if v is not None}
    if ctl:
        args["controller"] = ctl
    if not args:
        raise NothingToDo("nothing to change: give --policy, --band or a controller knob")
    res = call(socket_path, "drive.set", name=name, **args)
    if as_json:
        click.echo(json.dumps(res, indent=2))
        return
    d = res["drive"]
    extra = f" band {d['band']}" if "band" in d else ""
    knob = (" controller " + ", ".join(f"{k} {v}" for k, v in d["controller"].items())
            if d.get("controller") else "")
    click.echo(f"drive {name}: policy {d['policy']}{extra}{knob}")


# ------------------------------------------------------------------ jbof tls ---

@click.group("tls", context_settings=CTX, short_help="Reload the TLS PSK file live (key rotation).")
def tls() -> None:
    """TLS of a running daemon (jbof serve): reload its PSK file."""


@tls.command("reload", short_help="Re-read the PSK file: new handshakes use its keys.")
@click.option("--json", "as_json", is_flag=True, help="Print the daemon's reply as JSON.")
@socket_option
def tls_reload(as_json: bool, socket_path: str) -> None:
    """Re-read listen.tls_psk_file: TLS handshakes from now on use its keys,
    open connections keep theirs.  A bad file (missing, readable by group or
    others, malformed) is a one-line error and the keys loaded before stay.
    SIGHUP to the daemon does the same.

    \b
    Example:
      jbof tls reload
    """
    res = call(socket_path, "tls.reload")
    if as_json:
        click.echo(json.dumps(res, indent=2))
        return
    click.echo(f"reloaded {res['keys']} PSK identities from {res['file']}")


# ---------------------------------------------------------------- jbof stats ---

def _pairs_delta(cur: list[list[int]], prev: list[list[int]] | None) -> list[list[int]]:
    before = {u: c for u, c in (prev or [])}
    return [[u, c - before.get(u, 0)] for u, c in cur if c - before.get(u, 0) > 0]


def interval_rows(prev: dict[str, Any], cur: dict[str, Any]) -> list[dict[str, Any]]:
    """Per-tenant rates over the interval between two ``stats`` snapshots (with hist),
    with the tenant's SLO, p99 against it and the share of IOs that missed it."""
    dt = max(1e-9, cur["time"] - prev["time"])
    before = {t["name"]: t for t in prev["tenants"]}
    rows = []
    for t in cur["tenants"]:
        p = before.get(t["name"])
        ios = t["read_ios"] + t["write_ios"] + t["other_ios"]
        nbytes = t["read_bytes"] + t["write_bytes"]
        p_ios = p["read_ios"] + p["write_ios"] + p["other_ios"] if p else 0
        p_bytes = p["read_bytes"] + p["write_bytes"] if p else 0
        pairs = _pairs_delta(t.get("hist", []), p.get("hist") if p else None)
        thr = t["throttled_ns"] - (p["throttled_ns"] if p else 0)
        misses = t["slo_violations"] - (p["slo_violations"] if p else 0)
        slo = t.get("latency_slo_ns") or 0
        p99 = quantile(pairs, 0.99)
        rows.append({
            "name": t["name"], "drive": t["drive"], "class": t["class"],
            "iops": (ios - p_ios) / dt, "bw_bytes": (nbytes - p_bytes) / dt,
            "p50_ns": quantile(pairs, 0.5), "p99_ns": p99,
            "queued": t["queued"], "inflight": t["inflight"],
            "throttled": t["throttled"], "throttled_pct": min(100.0, 100.0 * thr / (dt * 1e9)),
            "slo_violations": misses,
            "latency_slo_ns": slo or None,
            "p99_vs_slo": (p99 / slo) if slo and p99 else None,
            "slo_miss_pct": (100.0 * misses / (ios - p_ios)) if slo and ios > p_ios else None,
            "interval_s": dt,
        })
    return rows


def drive_rows(prev: dict[str, Any], cur: dict[str, Any],
               config: dict[str, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Per-drive state over the interval: ``idle`` when nothing completed and nothing is
    in flight (the controller's state means nothing then), rate, band (the configured
    one until the controller has measured one), utilization (throughput / capacity)."""
    dt = max(1e-9, cur["time"] - prev["time"])
    before = {d["name"]: d for d in prev.get("drives", [])}
    out = []
    for d in cur.get("drives", []):
        p = before.get(d["name"], {})
        done = d["completed"] - p.get("completed", 0)
        idle = done == 0 and not d["inflight_ios"]
        conf = (config or {}).get(d["name"], {})
        # the configured band from the start (a new one at once, IO or not); while IO
        # flows, what it is in force as durations when that reads differently
        band = conf.get("band_text") or conf.get("band") or "-"
        live = f"{_dur(d['band_lo_ns'])}..{_dur(d['band_hi_ns'])}" \
            if d["band_lo_ns"] and d["band_hi_ns"] else None
        if live and not idle and "%" in band:
            band = f"{band} = {live}"
        elif band == "-" and live:
            band = live
        bw = sum(r["read_bytes"] + r["write_bytes"] for r in cur["tenants"]
                 if r["drive"] == d["name"])
        pbw = sum(r["read_bytes"] + r["write_bytes"] for r in prev["tenants"]
                  if r["drive"] == d["name"])
        cap = conf.get("capacity_bps")
        out.append({"name": d["name"], "policy": d["policy"],
                    "state": "idle" if idle else d["ctl_state"],
                    "rate_cost_bps": None if idle else d["rate_cost_bps"], "band": band,
                    "bw_bytes": max(0, bw - pbw) / dt,
                    "utilization_pct": (100.0 * max(0, bw - pbw) / dt / cap) if cap else None,
                    "inflight": d["inflight_ios"], "interval_s": dt})
    return out


def _slo_cols(r: dict[str, Any]) -> list[str]:
    if not r.get("latency_slo_ns"):
        return ["-", "-", "-"]
    vs = "-" if r["p99_vs_slo"] is None else f"{r['p99_vs_slo']:.2f}x"
    miss = "-" if r["slo_miss_pct"] is None else f"{r['slo_miss_pct']:.1f}%"
    return [_dur(r["latency_slo_ns"]), vs, miss]


def format_interval(rows: list[dict[str, Any]],
                    drives: list[dict[str, Any]] | None = None) -> str:
    out = []
    for r in rows:
        thr = "yes" if r["throttled"] else "-"
        if r["throttled_pct"] >= 0.5:
            thr = f"{r['throttled_pct']:.0f}%" + (" now" if r["throttled"] else "")
        out.append([r["name"], r["drive"], r["class"], units.human_count(round(r["iops"])),
                    f"{r['bw_bytes'] / 1e6:.1f}", _dur(r["p50_ns"]), _dur(r["p99_ns"]),
                    *_slo_cols(r), str(r["queued"]), str(r["inflight"]), thr])
    text = table(out, ["TENANT", "DRIVE", "CLASS", "IOPS", "MB/s", "P50", "P99", "SLO",
                       "P99/SLO", "SLO_MISS", "QD", "INFLIGHT", "THROTTLED"])
    if drives:
        drow = [[d["name"], d["policy"], d["state"],
                 "-" if d["rate_cost_bps"] is None else units.human_rate(d["rate_cost_bps"]), d["band"],
                 f"{d['bw_bytes'] / 1e6:.1f}",
                 "-" if d["utilization_pct"] is None else f"{d['utilization_pct']:.0f}%",
                 str(d["inflight"])] for d in drives]
        text += "\n\n" + table(drow, ["DRIVE", "POLICY", "STATE", "RATE", "BAND", "MB/s",
                                       "UTIL", "INFLIGHT"])
    return text


@click.command("stats", context_settings=CTX, short_help="Per-tenant IOPS, MB/s, latency (iostat-like).")
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON: the daemon's cumulative snapshot (with --watch: one line of "
                   "interval rates per interval).")
@click.option("--watch", "-w", is_flag=True, help="Repeat every --interval until Ctrl-C.")
@click.option("--interval", "-i", default="1s", show_default=True, metavar="DURATION",
              help="Measurement interval.")
@click.option("--count", "-c", type=click.IntRange(0, 10**9), default=None,
              help="Stop after this many intervals (default: 1, or forever with --watch).")
@socket_option
def stats(as_json: bool, watch: bool, interval: str, count: int | None, socket_path: str) -> None:
    """Per-tenant IOPS, MB/s (10^6 bytes), p50/p99 latency over the interval,
    the latency SLO, p99 as a multiple of it and the share of IOs that missed
    it, queue depth, in-flight IOs, class and throttle state (share of the
    interval the tenant was held back by its limit); then one row per drive:
    controller state (idle without IO), rate, band, MB/s, utilization of its
    capacity.

    \b
    Example:
      jbof stats --watch --interval 2s
      jbof stats --json | jq '.tenants[] | {name, read_ios}'
    """
    try:
        ns = units.parse_duration_ns(interval)
    except ValueError as e:
        raise BadValue(str(e), param_hint="'--interval'") from None
    if not 10**7 <= ns <= 3600 * 10**9:
        raise BadValue("must be within 10ms..1h", param_hint="'--interval'")
    if as_json and not watch:
        click.echo(json.dumps(call(socket_path, "stats"), indent=2))
        return
    n = count if count is not None else (0 if watch else 1)
    dconf = {d["name"]: d for d in call(socket_path, "drive.list")["drives"]}
    prev = call(socket_path, "stats", hist=True)
    done = 0
    try:
        while n == 0 or done < n:
            time.sleep(ns / 1e9)
            cur = call(socket_path, "stats", hist=True)
            rows = interval_rows(prev, cur)
            drows = drive_rows(prev, cur, dconf)
            if as_json:
                click.echo(json.dumps({"time": cur["time"], "tenants": uniform(rows),
                                       "drives": uniform(drows)}))
            else:
                if watch:
                    click.echo(time.strftime("%H:%M:%S"))
                click.echo(format_interval(rows, drows))
                if watch:
                    click.echo("")
            sys.stdout.flush()
            prev = cur
            done += 1
    except KeyboardInterrupt:
        return
