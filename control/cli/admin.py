"""``jbof config|tenant|drive|stats``: check configs and drive a running
``jbof serve`` through its admin socket (control/daemon/admin.py).

Every command that talks to the daemon takes ``--socket PATH`` (default:
$JBOF_ADMIN_SOCKET, else $XDG_RUNTIME_DIR/jbof/admin.sock).  Option values
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
from control.cli.common import BadValue, run_guarded
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


socket_option = click.option(
    "--socket", "socket_path", envvar="JBOF_ADMIN_SOCKET", default=default_socket,
    show_default="$XDG_RUNTIME_DIR/jbof/admin.sock", metavar="PATH",
    help="Admin socket of the running daemon (env JBOF_ADMIN_SOCKET).")


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

@click.group("config", context_settings=CTX, short_help="Check a config file; show the keys.")
def config() -> None:
    """Check daemon config files and show the running daemon's config.

    \b
    Example:
      jbof config check configs/default.yaml
      jbof config keys
    """


@config.command("check")
@click.argument("file", metavar="FILE")
def config_check(file: str) -> None:
    """Validate FILE; on success print one summary line.

    Exits non-zero with one line naming the file, the key and what is
    allowed on the first problem.

    \b
    Example:
      jbof config check configs/default.yaml
    """
    cfg = run_guarded(lambda: load_config(file))
    click.echo(summary(cfg))


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
    """Print the running daemon's config (what a restart would load).

    \b
    Example:
      jbof config show --socket /run/jbof/admin.sock
    """
    res = call(socket_path, "config.get")
    if res.get("path"):
        click.echo(f"# {res['path']}")
    else:
        click.echo("# not persisted: the daemon was started without --config")
    click.echo(res["yaml"], nl=False)


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
    dropped or reordered) and saved to the daemon's config file.

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
@tenant_options
@click.option("--read-only", is_flag=True, default=False, help="Refuse writes (EPERM).")
@schema_option(TENANT_KEYS, "tls_identity")
@click.option("--allow-uid", "allow_uids", type=int, multiple=True,
              help="Unix sockets: a peer uid allowed to open it (repeatable; default: anyone).")
@click.option("--allow-gid", "allow_gids", type=int, multiple=True,
              help="Unix sockets: a peer gid allowed to open it (repeatable).")
@socket_option
def tenant_add(name: str, drive: str | None, size: str, read_only: bool, socket_path: str,
               tls_identity: str | None, allow_uids: tuple[int, ...],
               allow_gids: tuple[int, ...], **settings: Any) -> None:
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
    if read_only:
        args["read_only"] = True
    if tls_identity is not None:
        args["tls_identity"] = tls_identity
    for key, ids in (("allow_uids", allow_uids), ("allow_gids", allow_gids)):
        if ids:
            args[key] = list(ids)
    res = call(socket_path, "tenant.add", **args)
    t = res["tenant"]
    click.echo(f"added tenant {t['name']} on {t['drive']} ({t['size']}): "
               f"{' '.join(res.get('uris', []))}")


@tenant.command("rm")
@click.argument("name")
@socket_option
def tenant_rm(name: str, socket_path: str) -> None:
    """Remove tenant NAME: its connections close and its queued IO drains first.

    \b
    Example:
      jbof tenant rm reader2
    """
    call(socket_path, "tenant.remove", name=name)
    click.echo(f"removed tenant {name}")


@tenant.command("set")
@click.argument("name")
@tenant_options
@socket_option
def tenant_set(name: str, socket_path: str, **settings: Any) -> None:
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
        click.echo(json.dumps(res["tenants"], indent=2))
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
        click.echo(json.dumps(res["drives"], indent=2))
        return
    rows = []
    for d in res["drives"]:
        live = d["live"]
        cap = d.get("capacity_bps")
        rows.append([
            d["name"], d["backend"], live["policy"],
            units.human_size(live["size_bytes"]), units.human_size(live["allocated_bytes"]),
            f"{_dur(live['band_lo_ns'])}..{_dur(live['band_hi_ns'])}",
            live["ctl_state"], units.human_rate(live["rate_bps"]),
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
@socket_option
def drive_set(name: str, policy: str | None, band: str | None, socket_path: str,
              **knobs: Any) -> None:
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
    d = res["drive"]
    extra = f" band {d['band']}" if "band" in d else ""
    knob = f" controller {d['controller']}" if "controller" in d else ""
    click.echo(f"drive {name}: policy {d['policy']}{extra}{knob}")


# ---------------------------------------------------------------- jbof stats ---

def _pairs_delta(cur: list[list[int]], prev: list[list[int]] | None) -> list[list[int]]:
    before = {u: c for u, c in (prev or [])}
    return [[u, c - before.get(u, 0)] for u, c in cur if c - before.get(u, 0) > 0]


def interval_rows(prev: dict[str, Any], cur: dict[str, Any]) -> list[dict[str, Any]]:
    """Per-tenant rates over the interval between two ``stats`` snapshots (with hist)."""
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
        rows.append({
            "name": t["name"], "drive": t["drive"], "class": t["class"],
            "iops": (ios - p_ios) / dt, "bw_bytes": (nbytes - p_bytes) / dt,
            "p50_ns": quantile(pairs, 0.5), "p99_ns": quantile(pairs, 0.99),
            "queued": t["queued"], "inflight": t["inflight"],
            "throttled": t["throttled"], "throttled_pct": min(100.0, 100.0 * thr / (dt * 1e9)),
            "slo_violations": t["slo_violations"] - (p["slo_violations"] if p else 0),
            "interval_s": dt,
        })
    return rows


def format_interval(rows: list[dict[str, Any]]) -> str:
    out = []
    for r in rows:
        thr = "yes" if r["throttled"] else "-"
        if r["throttled_pct"] >= 0.5:
            thr = f"{r['throttled_pct']:.0f}%" + (" now" if r["throttled"] else "")
        out.append([r["name"], r["drive"], r["class"], units.human_count(round(r["iops"])),
                    f"{r['bw_bytes'] / 1e6:.1f}", _dur(r["p50_ns"]), _dur(r["p99_ns"]),
                    str(r["queued"]), str(r["inflight"]), thr])
    return table(out, ["TENANT", "DRIVE", "CLASS", "IOPS", "MB/s", "P50", "P99", "QD",
                       "INFLIGHT", "THROTTLED"])


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
    queue depth, in-flight IOs, class and throttle state (share of the
    interval the tenant was held back by its limit).

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
    prev = call(socket_path, "stats", hist=True)
    done = 0
    try:
        while n == 0 or done < n:
            time.sleep(ns / 1e9)
            cur = call(socket_path, "stats", hist=True)
            rows = interval_rows(prev, cur)
            if as_json:
                click.echo(json.dumps({"time": cur["time"], "tenants": rows}))
            else:
                if watch:
                    click.echo(time.strftime("%H:%M:%S"))
                click.echo(format_interval(rows))
                if watch:
                    click.echo("")
            sys.stdout.flush()
            prev = cur
            done += 1
    except KeyboardInterrupt:
        return
