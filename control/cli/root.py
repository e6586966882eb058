"""The ``jbof`` command line: the root click group plus ``sim`` and ``version``.

Other modules register their commands here with ONE line each, at the bottom:

    main.add_command(some_module.command)                      # imported eagerly, or
    main.add_lazy_command("serve", "control.cli.serve:serve", "Serve NBD ...")  # on first use

Lazy commands keep ``jbof sim`` fast and working even if another command's
module cannot be imported (its error is then reported when it is invoked).

Errors: see control/cli/common.py (one line, never a traceback).
"""
from __future__ import annotations

import importlib
import logging
import sys
from dataclasses import dataclass
from typing import Any

import click

from control.cli.sim import sim
LOG_LEVELS = ("debug", "info", "warning", "error")


@dataclass
class CliState:
    """Shared state in ``ctx.obj`` for all subcommands."""
    log_level: str = "warning"
    socket: str | None = None          # jbof -s/--socket: the admin socket for every command


class JbofGroup(click.Group):
    """A click group that also knows commands by ``module:attr`` and imports them on use."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lazy: dict[str, tuple[str, str]] = {}

    def add_lazy_command(self, name: str, target: str, short_help: str) -> None:
        self._lazy[name] = (target, short_help)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self._lazy))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        cmd = super().get_command(ctx, name)
        if cmd is not None or name not in self._lazy:
            return cmd
        target = self._lazy[name][0]
        mod_name, _, attr = target.partition(":")
        try:
            cmd = getattr(importlib.import_module(mod_name), attr)
            if not isinstance(cmd, click.Command):
                raise TypeError(f"{target} is not a click command")
        except Exception as e:  # an unavailable command must not break the others
            raise click.ClickException(f"command '{name}' is unavailable: "
                                       f"{type(e).__name__}: {e}") from None
        self.add_command(cmd, name)
        return cmd

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            if name in self.commands:
                cmd = self.commands[name]
                if cmd.hidden:
                    continue
                rows.append((name, cmd.get_short_help_str(formatter.width)))
            else:
                rows.append((name, self._lazy[name][1]))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def version_line() -> str:
    """``jbof 0.1.0  C ABI ...``: the package version, the C core's ABI and what it supports."""
    from importlib import metadata
    try:
        ver = metadata.version("jbof-qos")
    except metadata.PackageNotFoundError:
        ver = "unknown (not installed)"
    line = f"jbof {ver}"
    try:
        from dataplane.sim import c_abi_version, policy_names, preset_names
        line += (f"  C ABI {c_abi_version()}  policies: {', '.join(policy_names())}"
                 f"  devices: {', '.join(preset_names())}")
    except ImportError:
        line += "  (C core not built: run `make build`)"
    return line


def _print_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(version_line())
        ctx.exit()


@click.group(cls=JbofGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True,
              callback=_print_version, help="Print the version and exit.")
@click.option("-s", "--socket", "socket", default=None, metavar="PATH",
              help="Admin socket of the running daemon, for every command that talks to it "
                   "(a command's own --socket wins; default: $JBOF_ADMIN_SOCKET, else "
                   "$XDG_RUNTIME_DIR/jbof/admin.sock).")
@click.option("--log-level", type=click.Choice(LOG_LEVELS, case_sensitive=False),
              default="warning", show_default=True, help="Logging verbosity (stderr).")
@click.pass_context
def main(ctx: click.Context, socket: str | None, log_level: str) -> None:
    """JBOF QoS data plane: multi-tenant storage QoS for SmartNIC JBOFs.

    \b
    Example:
      jbof -s /run/jbof/admin.sock tenant ls
      jbof config check /etc/jbof/jbof.yaml
    """
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, log_level.upper()),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    ctx.obj = CliState(log_level=log_level.lower(), socket=socket)


@main.command()
def version() -> None:
    """Print the package version, the C core's ABI and what it supports."""
    click.echo(version_line())


# ---- commands of other modules: one line each --------------------------------
main.add_command(sim)
main.add_lazy_command("serve", "control.cli.serve:serve", "Serve tenants over NBD from a YAML config.")
main.add_lazy_command("tune", "control.cli.tune:tune", "Autotune the data plane's knobs online (sim, index, status, enable/disable).")
main.add_lazy_command("forecast", "control.cli.forecast:forecast", "Push job forecasts to the planner; list them.")
main.add_lazy_command("config", "control.cli.admin:config", "Check, show, diff and save configs; list the keys.")
main.add_lazy_command("tenant", "control.cli.admin:tenant", "Add, remove, change, list tenants live.")
main.add_lazy_command("drive", "control.cli.admin:drive", "List drives; change policy or band live.")
main.add_lazy_command("stats", "control.cli.admin:stats", "Per-tenant IOPS, MB/s, latency (iostat-like).")
main.add_lazy_command("tls", "control.cli.admin:tls", "Reload the TLS PSK file live (key rotation).")
main.add_lazy_command("bench", "control.cli.bench:bench", "Run a scenario live with fio, policies side by side.")
