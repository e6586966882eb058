"""``jbof tune``: the online autotuner (control/tune/autotune.py) from the command line.

    jbof tune sim SCENARIO.yaml [--seed N] [--json]   run it in virtual time, compare
                                                      with the default and a grid search
    jbof tune index [--index FILE | --socket PATH] [--json]   the best configs found so far
    jbof tune status [--socket PATH] [--json]         a running daemon's tuners
    jbof tune enable|disable --drive D [--socket PATH]

``status``, ``enable`` and ``disable`` speak to a running ``jbof serve``
through its admin socket (control/daemon/admin.py's protocol): ops ``tune.status``
(no args) and ``tune.set`` (args ``drive``, ``enabled``; control/tune/autotune_live.py
does the work).  Without a daemon, or with one whose config has no ``tune:``
section, they fail with one line.  ``disable`` returns once the drive's
configured knobs are back in force.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import click

from control.tune.space import DEFAULT_KNOBS, KNOBS


def _fmt_rate(bps: float) -> str:
    return f"{bps / 1e9:.3f} GB/s"


@click.group()
def tune() -> None:
    """Autotune the data plane's knobs online, while every IO is served
    (simulate it, list the knobs, show the index of best configs,
    enable/disable per drive)."""


def _knob_list(text: str) -> list[str]:
    from control.cli.common import BadValue
    names = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in names if n not in KNOBS]
    if bad or not names or len(set(names)) != len(names):
        raise BadValue(f"'{text}' is not a list of distinct knobs "
                       f"(allowed: {', '.join(KNOBS)})", param_hint="'--knobs'")
    return names


def _side(space: Any, cfg: tuple[int, ...], score: Any) -> dict[str, Any]:
    return {"knobs": space.as_dict(cfg), **score.as_dict()}


@tune.command("sim")
@click.argument("scenario", metavar="SCENARIO.yaml")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), help="Override the scenario's seed.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@click.option("--knobs", "knobs", default=",".join(DEFAULT_KNOBS), show_default=True,
              metavar="K[,K...]", help=f"Knobs to tune ({', '.join(KNOBS)}).")
@click.option("--index", "index_path", type=click.Path(dir_okay=False),
              help="Tune index file to use and update (default: none, a fresh search; "
                   "run twice with the same file to see a known mix reused).")
@click.option("--slo-budget", type=click.FloatRange(0), default=None,
              help="Extra SLO-violating periods a search may cause (default 10).")
@click.option("--explore-cap", type=click.FloatRange(0, 1, min_open=True), default=None,
              help="Largest fraction of a search's time on trial configs (default 0.5).")
@click.option("--max-time", type=click.FloatRange(1, 3600), default=900.0, show_default=True,
              help="Virtual seconds the tuner may run before giving up.")
@click.option("--no-grid", is_flag=True, help="Skip the grid search (and the comparison).")
@click.option("--trials", "show_trials", is_flag=True, help="Include every trial in the JSON.")
def sim_cmd(scenario: str, seed: int | None, as_json: bool, knobs: str, index_path: str | None,
            slo_budget: float | None, explore_cap: float | None, max_time: float,
            no_grid: bool, show_trials: bool) -> None:
    """Run the autotuner on SCENARIO.yaml in virtual time until it has
    converged (plus a few periods of exploitation), then score the default
    config, the tuned one and the best of a grid search, each in a fresh run
    with the same seed.  The tuner tunes the qos policy (a scenario's
    ``policy`` is ignored).

    The objective is throughput at p99 within SLO (control/tune/autotune.py,
    section 2), in read-byte equivalents per second.  Example:

        jbof tune sim configs/scenarios/tune-training.yaml --json
    """
    names = _knob_list(knobs)

    def go() -> dict[str, Any]:
        from dataclasses import replace

        from control.tune.autotune import AutoTuner, TuneParams
        from control.tune.index import Index
        from control.tune.offline import compare, sim_dataplane
        from control.tune.space import Space
        from control.scenario import load_scenario
        sc = load_scenario(scenario)
        run_seed = sc.seed if seed is None else seed
        params = TuneParams()
        if slo_budget is not None:
            params = replace(params, slo_budget=slo_budget)
        if explore_cap is not None:
            params = replace(params, explore_cap=explore_cap)
        index = Index(Path(index_path) if index_path else None)
        dp = sim_dataplane(sc, run_seed, max_time + 60)
        tuner = AutoTuner(dp, Space.of(names), index, params)

        def done(t: AutoTuner) -> bool:
            ep = t.episodes[0] if t.episodes else None
            return ep is not None and ep.converged_s is not None \
                and t.now_s >= ep.converged_s + 5 * ep.period_s
        tuner.run(max_time, until=done)
        ep = tuner.episodes[0]
        doc: dict[str, Any] = {
            "scenario": sc.name, "seed": run_seed, "signature": ep.signature,
            "period_s": ep.period_s, "knobs": list(tuner.space.names),
            "active_knobs": [tuner.space.names[i] for i in tuner.active],
            "converged": ep.converged_s is not None,
            "periods_to_converge": ep.periods_to_converge,
            "exploration_slo_violations": round(ep.extra_violations, 3),
            "slo_budget": params.slo_budget, "explore_cap": params.explore_cap,
            "explore_fraction": ep.explore_fraction(), "reused": ep.reused,
            "trials": ep.trials, "aborted": ep.aborted, "pruned": ep.pruned,
            "online_objective": None if ep.exploit_objective is None
            else round(ep.exploit_objective, 1),
            "virtual_s": round(tuner.now_s, 3)}
        if not no_grid:
            prof = tuner.last_profile
            c = compare(sc, tuner.space, tuner.default, tuner.incumbent, tuner.active,
                        prof.period_s if prof else None, tuner.writes, run_seed)
            doc["default"] = _side(tuner.space, tuner.default, c.default)
            doc["tuned"] = _side(tuner.space, tuner.incumbent, c.tuned)
            doc["grid_best"] = {**_side(tuner.space, c.grid_best, c.grid_best_score),
                                "grid_points": c.grid_points}
            best = c.grid_best_score.objective
            doc["tuned_vs_grid"] = round(c.tuned.objective / best, 4) if best > 0 else None
            doc["evaluation"] = {"warm_s": c.horizon.warm_s, "measure_s": c.horizon.measure_s}
        else:
            doc["tuned"] = {"knobs": tuner.space.as_dict(tuner.incumbent),
                            "objective": round(ep.best_objective, 1)}
        if show_trials:
            doc["trial_log"] = tuner.trial_log
        return doc

    from control.cli.common import run_guarded
    doc = run_guarded(go)
    if as_json:
        click.echo(json.dumps(doc, indent=2))
        return
    click.echo(_sim_table(doc))


def _sim_table(doc: dict[str, Any]) -> str:
    knobs = doc["knobs"]
    lines = [(f"{doc['scenario']} (seed {doc['seed']})  signature {doc['signature']}  "
              f"period {doc['period_s']:g}s")]
    head = f"{'':<10}" + "".join(f"{k:>23}" for k in knobs) + f"{'objective':>16}  slo"
    lines.append(head)
    for side in ("default", "tuned", "grid_best"):
        d = doc.get(side)
        if not d:
            continue
        slo = "" if "slo_met" not in d else ("met" if d["slo_met"] else "MISSED")
        lines.append(f"{side.replace('_', ' '):<10}" + "".join(f"{d['knobs'][k]:>23}" for k in knobs)
                     + f"{_fmt_rate(d['objective']):>16}  {slo}")
    tail = (f"periods to converge {doc['periods_to_converge']}  trials {doc['trials']} "
            f"({doc['aborted']} aborted, {doc['pruned']} pruned)  extra SLO violations "
            f"{doc['exploration_slo_violations']:g} of {doc['slo_budget']:g}")
    if doc.get("reused"):
        tail += "  (signature known: no exploration)"
    if doc.get("tuned_vs_grid") is not None:
        tail = f"tuned/grid {doc['tuned_vs_grid']:.3f}  " + tail
    lines.append(tail)
    lines.append("(objective: throughput in read-byte equivalents per second, "
                 "penalised if a p99 exceeds its SLO)")
    return "\n".join(lines)


@tune.command("knobs")
def knobs_cmd() -> None:
    """List the knobs the tuner can search, their candidate values and meaning
    (the default search: band_hi_pct, slot_bytes, write_factor_max_x256)."""
    for k in KNOBS.values():
        vals = ", ".join(str(v) for v in k.values)
        more = "more aggressive upwards" if k.up_is_aggressive else "more aggressive downwards"
        click.echo(f"{k.name:<24} {vals}\n{'':<24} {k.doc}; {more}"
                   + ("; inert without writes" if k.writes_only else ""))


@tune.command("index")
@click.option("--index", "index_path", type=click.Path(dir_okay=False),
              help="Index file (default: $JBOF_TUNE_INDEX, else "
                   "$XDG_STATE_HOME/jbof/tune-index.json).")
@click.option("--socket", "socket_path", default=None, metavar="PATH",
              help="Read the index a running daemon uses (its tune.index), found through "
                   "this admin socket.")
@click.option("--json", "as_json", is_flag=True, help="Print the index as JSON.")
def index_cmd(index_path: str | None, socket_path: str | None, as_json: bool) -> None:
    """Show the best configuration found for each drive and workload signature."""
    from control.tune.index import Index, default_index_path
    from control.cli.common import run_guarded
    if index_path:
        path = Path(index_path)
    elif socket_path:
        path = Path(_call(socket_path, "tune.status")["index"])
    else:
        path = default_index_path()
    idx = run_guarded(lambda: Index(path))
    if as_json:
        click.echo(json.dumps({"path": str(path), "drives": idx.drives}, indent=2, sort_keys=True))
        return
    if not idx.drives:
        click.echo(f"{path}: no entries")
        return
    for drive, entries in sorted(idx.drives.items()):
        for sig, e in sorted(entries.items()):
            knobs = " ".join(f"{k}={v}" for k, v in e.get("knobs", {}).items())
            obj = e.get("objective")
            objs = _fmt_rate(obj) if isinstance(obj, (int, float)) and math.isfinite(obj) else "?"
            click.echo(f"{drive}  {sig}  {knobs}  objective {objs}  trials {e.get('trials', '?')}")


# ------------------------------------------------------------ live daemon ---

def _socket_option(fn: Any) -> Any:
    from control.cli.common import admin_socket_option
    return admin_socket_option()(fn)


def _call(socket_path: str, op: str, **args: Any) -> Any:
    """One admin request (control.daemon.admin's protocol); failures are one line."""
    from control.cli.admin import call
    return call(socket_path, op, **args)


def _knobs(k: Any) -> str:
    return " ".join(f"{n}={v}" for n, v in (k or {}).items()) or "-"


def _status_table(drives: list[dict[str, Any]]) -> str:
    from control.cli.admin import table
    rows = [[d["drive"], "on" if d.get("enabled") else "off", str(d.get("state")),
             str(d.get("trials_total", "-")), _knobs(d.get("knobs")),
             _knobs(d.get("configured")), d.get("reason") or ""] for d in drives]
    return table(rows, ["DRIVE", "TUNING", "STATE", "TRIALS", "KNOBS_IN_FORCE",
                        "CONFIGURED", "REASON"])


@tune.command("status")
@_socket_option
@click.option("--json", "as_json", is_flag=True, help="Print the reply as JSON.")
def status_cmd(socket_path: str, as_json: bool) -> None:
    """Show each drive's tuner: state (disabled, unavailable, profiling,
    exploring, exploiting, idle, error), knobs in force and configured, trials.
    Example:

        jbof -s $XDG_RUNTIME_DIR/jbof/admin.sock tune status
    """
    from control.cli.common import uniform
    res = _call(socket_path, "tune.status")
    if as_json:
        if isinstance(res.get("drives"), list):
            res = {**res, "drives": uniform(res["drives"])}
        click.echo(json.dumps(res, indent=2))
        return
    click.echo(f"index {res.get('index')}")
    click.echo(_status_table(res.get("drives", [])))


def _set(socket_path: str, drive: str, on: bool, as_json: bool) -> None:
    res = _call(socket_path, "tune.set", drive=drive, enabled=on)
    if as_json:
        click.echo(json.dumps(res, indent=2))
        return
    saved = f" (saved to {res['persisted']})" if res.get("persisted") else ""
    click.echo(f"drive {drive}: tuning {'on' if on else 'off'}, state {res.get('state')}, "
               f"knobs {_knobs(res.get('knobs'))}{saved}")


@tune.command("enable")
@click.option("--drive", required=True, metavar="D", help="Drive name (from the daemon config).")
@click.option("--json", "as_json", is_flag=True, help="Print the reply as JSON.")
@_socket_option
def enable_cmd(drive: str, as_json: bool, socket_path: str) -> None:
    """Let the tuner explore and apply configs on drive D (saved to the state
    file's tune.enabled)."""
    _set(socket_path, drive, True, as_json)


@tune.command("disable")
@click.option("--drive", required=True, metavar="D", help="Drive name (from the daemon config).")
@click.option("--json", "as_json", is_flag=True, help="Print the reply as JSON.")
@_socket_option
def disable_cmd(drive: str, as_json: bool, socket_path: str) -> None:
    """Stop the tuner on drive D and put its configured knobs back (returns once
    they are in force; saved to the state file's tune.enabled)."""
    _set(socket_path, drive, False, as_json)
