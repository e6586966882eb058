"""``jbof sim``: run a scenario in virtual time (a training-cluster scenario goes to
control/lending/anticipation.py's evaluation)."""
from __future__ import annotations

import json
from typing import Any, Sequence

import click

from control.cli.common import BadValue, duration_option, parse_choices, parse_policies, run_guarded
from control.scenario import POLICIES


def _print_keys(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from control.scenario import schema_text
    click.echo(schema_text())
    ctx.exit(0)


@click.command()
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
                   "checked (control/bench/sweep.py); violating mixes go to sweep-failures/.")
def sim(scenario: str | None, policies: tuple[str, ...], seed: int | None, duration: str | None,
        as_json: bool, forecaster: str | None, sweep_n: int | None) -> None:
    """Run SCENARIO.yaml in virtual time on the emulated drive and report per-tenant
    throughput, latency percentiles, share of solo throughput, Jain's index and
    utilization.  Each tenant is also run alone (policy fifo) to get its solo
    throughput."""
    if sweep_n is not None:
        from control.bench.sweep import main as sweep_main
        raise SystemExit(sweep_main(sweep_n, 1 if seed is None else seed, echo=click.echo))
    if scenario is None:
        raise click.UsageError("Missing argument 'SCENARIO.yaml' (or give --sweep N).")
    from control.lending.anticipation import is_cluster_scenario
    if forecaster is not None or is_cluster_scenario(scenario):
        return cluster_sim(scenario, policies, seed, duration, as_json, forecaster)
    chosen = parse_policies(policies)
    duration_s = duration_option(duration)

    def go() -> list[dict[str, Any]]:
        from control.bench.results import DEFAULT_POLICY, compare
        from control.scenario import load_scenario
        sc = load_scenario(scenario)
        return compare(sc, chosen or [sc.policy or DEFAULT_POLICY], seed, duration_s)

    docs = run_guarded(go)
    if as_json:
        click.echo(json.dumps(docs[0] if len(docs) == 1 else docs, indent=2))
        return
    from control.bench.results import format_comparison, format_table
    click.echo("\n\n".join(format_table(d) for d in docs))
    if len(docs) > 1:
        click.echo("\n" + format_comparison(docs))


def cluster_sim(scenario: str, policies: Sequence[str], seed: int | None, duration: str | None,
                as_json: bool, forecaster: str | None) -> None:
    """``jbof sim`` on a training-cluster scenario (control/lending/anticipation.py)."""
    from control.lending import anticipation
    from control.lending.trace import FORECASTERS
    chosen = parse_choices(policies, anticipation.POLICIES,
                           "a policy of a training-cluster scenario")
    if forecaster is not None and forecaster not in FORECASTERS:
        raise BadValue(f"'{forecaster}' is not a forecaster (allowed: {', '.join(FORECASTERS)})",
                       param_hint="'--forecaster'")
    duration_s = duration_option(duration)

    def go() -> list[dict[str, Any]]:
        sc = anticipation.load_cluster_scenario(scenario)
        return anticipation.evaluate(sc, chosen or list(anticipation.POLICIES), forecaster,
                                     seed, duration_s)
    docs = run_guarded(go)
    if as_json:
        click.echo(json.dumps(docs[0] if len(docs) == 1 else docs, indent=2))
    else:
        click.echo(anticipation.format_table(docs))
