"""The ``jbof`` command line: a root click group plus ``sim`` and ``version``.

Other modules register their commands here with ONE line each, at the bottom:

    main.add_command(some_module.command)                      # imported eagerly, or
    main.add_lazy_command("serve", "control.serve:serve", "Serve NBD ...")  # on first use

Lazy commands keep ``jbof sim`` fast and working even if another command's
module cannot be imported (its error is then reported when it is invoked).

Error convention: bad input -> ``click.UsageError``/``BadParameter``;
operational failures -> ``click.ClickException``.  Both print one line and
exit non-zero; no command ever prints a traceback (``run_guarded``).
"""
from __future__ import annotations

import importlib
import json
import logging
import sys
from dataclasses import dataclass
from typing import Any, Callable, TypeVar

import click

from control import units
from control.errors import JbofError
from control.scenario import POLICIES

T = TypeVar("T")
LOG_LEVELS = ("debug", "info", "warning", "error")


@dataclass
class CliState:
    """Shared state in ``ctx.obj`` for all subcommands."""
    log_level: str = "warning"


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


def duration_option(duration: str | None) -> float | None:
    """--duration D in seconds (None when not given); one-line error otherwise."""
    if duration is None:
        return None
    try:
        ns = units.parse_duration_ns(duration)
    except ValueError as e:
        raise BadValue(str(e), param_hint="'--duration'") from None
    if ns == 0:
        raise BadValue("must be longer than zero", param_hint="'--duration'")
    return ns / 1e9


def run_guarded(fn: Callable[[], T]) -> T:
    """Call fn; turn every failure into a one-line ClickException (never a traceback)."""
    try:
        return fn()
    except (click.ClickException, click.exceptions.Exit, click.Abort, KeyboardInterrupt):
        raise
    except JbofError as e:
        raise click.ClickException(str(e)) from None
    except ImportError as e:
        if "dataplane._jbof" in str(e) or "_jbof" in str(getattr(e, "name", "") or ""):
            raise click.ClickException("the C core is not built: run `make build` "
                                       f"({' '.join(str(e).split())})") from None
        raise click.ClickException(f"import failed: {' '.join(str(e).split())}") from None
    except OSError as e:  # includes dataplane.DataplaneError
        raise click.ClickException(" ".join(str(e).split())) from None
    except ValueError as e:
        raise click.ClickException(" ".join(str(e).split())) from None
    except Exception as e:  # a bug: still one line, with a hint to get the details
        logging.getLogger("jbof").debug("internal error", exc_info=True)
        raise click.ClickException(f"internal error: {type(e).__name__}: "
                                   f"{' '.join(str(e).split())} (run with --log-level debug "
                                   "for the traceback)") from None


@click.group(cls=JbofGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--log-level", type=click.Choice(LOG_LEVELS, case_sensitive=False),
              default="warning", show_default=True, help="Logging verbosity (stderr).")
@click.pass_context
def main(ctx: click.Context, log_level: str) -> None:
    """JBOF QoS data plane: multi-tenant storage QoS for SmartNIC JBOFs."""
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, log_level.upper()),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    ctx.obj = CliState(log_level=log_level.lower())


class BadValue(click.BadParameter):
    """A bad option value: one line (``Error: Invalid value for '--policy': ...``), no usage."""

    def show(self, file: Any = None) -> None:
        click.echo(f"Error: {self.format_message()}", err=True, file=file)


def parse_policies(values: tuple[str, ...]) -> list[str]:
    """``--policy`` values: repeated and/or comma lists, validated, duplicates dropped."""
    out: list[str] = []
    for v in values:
        for name in v.split(","):
            name = name.strip()
            if not name:
                continue
            if name not in POLICIES:
                raise BadValue(f"'{name}' is not a policy (allowed: {', '.join(POLICIES)})",
                                         param_hint="'--policy'")
            if name not in out:
                out.append(name)
    return out


def _print_keys(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from control.scenario import schema_text
    click.echo(schema_text())
    ctx.exit(0)


@main.command()
@click.argument("scenario", metavar="SCENARIO.yaml", required=False)
@click.option("--policy", "-p", "policies", multiple=True, metavar="P[,P...]",
              help=f"Policy to run; repeat or comma-separate to compare ({', '.join(POLICIES)}). "
                   "Default: the scenario's policy, else qos.")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), help="Override the scenario's seed.")
@click.option("--duration", metavar="D", help="Override the scenario's duration (e.g. 2s, 500ms).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the JSON result document (an array for several policies).")
@click.option("--keys", is_flag=True, is_eager=True, expose_value=False, callback=_print_keys,
              help="Print the scenario file keys and exit.")
@click.option("--forecaster", metavar="F", help="Training-cluster scenarios (a top-level "
              "'cluster:'): oracle, noisy, biased or adversarial forecasts; their policies are "
              "static, share, anticipate, robust, oracle.")
@click.option("--sweep", "sweep_n", type=click.IntRange(1), metavar="N",
              help="Instead of a scenario: N random mixes, every policy on each, qos invariants "
                   "checked (control/sweep.py); violating mixes go to sweep-failures/.")
def sim(scenario: str | None, policies: tuple[str, ...], seed: int | None, duration: str | None,
        as_json: bool, forecaster: str | None, sweep_n: int | None) -> None:
    """Run SCENARIO.yaml in virtual time on the emulated drive and report per-tenant
    throughput, latency percentiles, share of solo throughput, Jain's index and
    utilization.  Each tenant is also run alone (policy fifo) to get its solo
    throughput."""
    if sweep_n is not None:
        from control.sweep import main as sweep_main
        raise SystemExit(sweep_main(sweep_n, 1 if seed is None else seed, echo=click.echo))
    if scenario is None:
        raise click.UsageError("Missing argument 'SCENARIO.yaml' (or give --sweep N).")
    from control.anticipation import is_cluster_scenario, sim_command
    if forecaster is not None or is_cluster_scenario(scenario):
        return sim_command(scenario, policies, seed, duration, as_json, forecaster)
    chosen = parse_policies(policies)
    duration_s = duration_option(duration)

    def go() -> list[dict[str, Any]]:
        from control.results import DEFAULT_POLICY, compare
        from control.scenario import load_scenario
        sc = load_scenario(scenario)
        return compare(sc, chosen or [sc.policy or DEFAULT_POLICY], seed, duration_s)

    docs = run_guarded(go)
    if as_json:
        click.echo(json.dumps(docs[0] if len(docs) == 1 else docs, indent=2))
        return
    from control.results import format_comparison, format_table
    click.echo("\n\n".join(format_table(d) for d in docs))
    if len(docs) > 1:
        click.echo("\n" + format_comparison(docs))


@main.command()
def version() -> None:
    """Print the package version, the C core's ABI and what it supports."""
    from importlib import metadata
    try:
        ver = metadata.version("jbof-qos")
    except metadata.PackageNotFoundError:
        ver = "unknown (not installed)"
    line = f"jbof {ver}"
    try:
        from dataplane._jbof import lib
        from dataplane.sim import policy_names, preset_names
        line += (f"  C ABI {lib.JBOF_ABI_VERSION}  policies: {', '.join(policy_names())}"
                 f"  devices: {', '.join(preset_names())}")
    except ImportError:
        line += "  (C core not built: run `make build`)"
    click.echo(line)


# ---- commands of other modules: one line each --------------------------------
main.add_lazy_command("serve", "control.serve:serve", "Serve tenants over NBD from a YAML config.")
main.add_lazy_command("tune", "control.tune_cli:tune", "Autotune the data plane's knobs online (sim, index, status, enable/disable).")
main.add_lazy_command("forecast", "control.forecast_cli:forecast", "Push job forecasts to the planner; list them.")
main.add_lazy_command("config", "control.admin_cli:config", "Check a config file; show the keys.")
main.add_lazy_command("tenant", "control.admin_cli:tenant", "Add, remove, change, list tenants live.")
main.add_lazy_command("drive", "control.admin_cli:drive", "List drives; change policy or band live.")
main.add_lazy_command("stats", "control.admin_cli:stats", "Per-tenant IOPS, MB/s, latency (iostat-like).")
main.add_lazy_command("bench", "control.bench_cli:bench", "Run a scenario live with fio, policies side by side.")


if __name__ == "__main__":
    main()
