"""``jbof forecast push|ls``: talk to the daemon's forecast socket from scripts.

    jbof forecast push '{"type": "forecast", "job": "j1", "tenant": "team-a",
                         "source": "sched", "arrival_in": "30s"}'
    jbof forecast push --job j1 --tenant team-a --source sched --arrival-in 30s \\
                       --duration 10m --read-rate 600MiB/s
    some-scheduler | jbof forecast push -          # one JSON message per line
    jbof forecast ls [--json]

Each reply is printed as one JSON line; ``push`` exits non-zero if any message
was refused.  The socket defaults to ``jbof/forecast.sock`` under
$XDG_RUNTIME_DIR (or /tmp), like the NBD socket; ``--socket`` or
$JBOF_FORECAST_SOCKET override it.
"""
from __future__ import annotations

import json
import sys
from typing import Any

import click

DEFAULT_SOCKET = "jbof/forecast.sock"


def _path(socket: str | None) -> str:
    from control.lending.forecast_server import socket_path
    return socket_path(socket or DEFAULT_SOCKET)


_socket_opt = click.option("--socket", "socket", envvar="JBOF_FORECAST_SOCKET", metavar="PATH",
                           help=f"Forecast socket (default: $XDG_RUNTIME_DIR/{DEFAULT_SOCKET}).")


@click.group()
def forecast() -> None:
    """Push training-job forecasts to the daemon's planner; list what it knows."""


@forecast.command()
@_socket_opt
@click.argument("messages", nargs=-1, metavar="[JSON|-]...")
@click.option("--job", help="Build a forecast message: the job id.")
@click.option("--tenant", help="... the owner tenant.")
@click.option("--source", default="cli", show_default=True, help="... the forecast source.")
@click.option("--arrival-in", "arrival_in", metavar="D", help="... arrival from now (30s, 2m).")
@click.option("--arrival-at", "arrival_at", type=float, metavar="T",
              help="... arrival, absolute seconds on the server's clock.")
@click.option("--duration", metavar="D", help="... predicted duration.")
@click.option("--read-rate", "read_rate", metavar="R", help="... read demand (600MiB/s).")
@click.option("--write-rate", "write_rate", metavar="R", help="... write demand.")
@click.option("--json", "as_json", is_flag=True, help="Print the replies as JSON, one a line.")
def push(socket: str | None, messages: tuple[str, ...], job: str | None, tenant: str | None,
         source: str, arrival_in: str | None, arrival_at: float | None, duration: str | None,
         read_rate: str | None, write_rate: str | None, as_json: bool) -> None:
    """Send messages (JSON objects, or '-' for one per line on stdin); print one line
    per reply (--json: the replies)."""
    from control.cli.common import BadValue, run_guarded
    from control.lending.forecast import Client, encode
    msgs: list[Any] = []
    for i, m in enumerate(messages):
        if m == "-":
            msgs += [line for line in sys.stdin.read().splitlines() if line.strip()]
            continue
        try:
            msgs.append(json.loads(m))
        except json.JSONDecodeError as e:
            raise BadValue(f"message {i + 1} is not JSON: {e.msg}", param_hint="'MESSAGES'") from None
    if job is not None or tenant is not None:
        if not job or not tenant or (arrival_in is None) == (arrival_at is None):
            raise click.UsageError("a forecast from options needs --job, --tenant and one of "
                                   "--arrival-in/--arrival-at")
        f: dict[str, Any] = {"type": "forecast", "job": job, "tenant": tenant, "source": source}
        if arrival_in is not None:
            f["arrival_in"] = arrival_in
        if arrival_at is not None:
            f["arrival_at"] = arrival_at
        if duration is not None:
            f["duration"] = duration
        demand = {k: v for k, v in (("read_rate", read_rate), ("write_rate", write_rate)) if v}
        if demand:
            f["demand"] = demand
        msgs.append(f)
    if not msgs:
        raise click.UsageError("nothing to send (give JSON messages, '-' or --job/--tenant)")

    def go() -> list[dict[str, Any]]:
        out = []
        with Client(_path(socket)) as c:
            for m in msgs:      # stdin lines go as they are: the server judges them
                c.send_raw(m.encode() + b"\n" if isinstance(m, str) else encode(m))
                out.append(c.read_reply())
        return out

    replies = run_guarded(go)
    for i, r in enumerate(replies, 1):
        if as_json:
            click.echo(json.dumps(r, separators=(",", ":")))
            continue
        what = ", ".join(f"{k} {_plain(v)}" for k, v in r.items() if k not in ("ok", "error"))
        if r.get("ok"):
            click.echo(f"message {i}: ok" + (f": {what}" if what else ""))
        else:
            err = r.get("error")
            msg = err.get("message", err) if isinstance(err, dict) else err
            click.echo(f"message {i}: refused: {msg}")
    bad = sum(not r.get("ok") for r in replies)
    if bad:
        raise click.ClickException(f"{bad} of {len(replies)} message(s) refused")


def _plain(v: Any) -> str:
    """A reply value as text for the table (no Python reprs)."""
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} {_plain(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_plain(x) for x in v) + "]"
    return "-" if v is None else str(v)


@forecast.command(name="ls")
@_socket_opt
@click.option("--json", "as_json", is_flag=True, help="Print the planner's state as JSON.")
def ls_cmd(socket: str | None, as_json: bool) -> None:
    """Show pending and running jobs, each source's calibration and the lent limits."""
    from control import units
    from control.cli.common import run_guarded
    from control.lending.forecast import Client

    def go() -> dict[str, Any]:
        with Client(_path(socket)) as c:
            return c.ls()
    st = run_guarded(go)
    if as_json:
        click.echo(json.dumps(st, indent=2))
        return
    click.echo(f"planner mode {st.get('mode')}  static pool "
               f"{units.human_rate(st.get('static_pool_bps') or 0)}  lent pool "
               f"{units.human_rate(st.get('pool_bps') or 0)}")
    jobs = st.get("jobs", [])
    click.echo(f"jobs ({len(jobs)}):")
    for j in jobs:
        arr = "-" if j["arrival_in_s"] is None else f"{j['arrival_in_s']:+.1f}s"
        rec = "-" if j["reclaim_in_s"] is None else f"{j['reclaim_in_s']:+.1f}s"
        click.echo(f"  {j['job']:<20} {j['tenant']:<12} {j['source']:<10} {j['state']:<8} "
                   f"arrival {arr:>9}  reclaim {rec:>9}")
    click.echo("sources:")
    for name, s in st.get("sources", {}).items():
        state = "fallback" if s["fallback"] else "trusted" if s["trusted"] else "untrusted"
        click.echo(f"  {name:<12} {state:<9} residuals {s['residuals']:<5} alpha {s['alpha']:<8} "
                   f"misses {s['recent_misses']}/{s['recent_outcomes']}")
    click.echo("owners:")
    for o, p in st.get("owners", {}).items():
        w = p.get("held_write_bps")
        click.echo(f"  {o:<12} held {units.human_rate(p['held_bps']):>10}"
                   + (f"  from writers {units.human_rate(w):>10}" if w is not None else "")
                   + f"  {p['reason']}" + ("  guarded" if p.get("guarded") else ""))
    click.echo("borrower limits:")
    borrowers = st.get("borrowers", {})
    for b, v in st.get("limits", {}).items():
        info = borrowers.get(b, {})
        mix = ("" if "write_fraction" not in info else
               f"  writes {info['write_fraction']:.2f}"
               + ("" if info.get("measured", True) else " (not measured yet: a writer)"))
        click.echo(f"  {b:<12} {units.human_rate(v):>10}{mix}")
