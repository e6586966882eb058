"""``jbof bench``: run a scenario live with fio against the data plane (control/bench/runner.py)."""
from __future__ import annotations

import json
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from control.bench.live import Backend
from control.bench.runner import DEFAULT_POLICIES

T = TypeVar("T")


def _duration(value: str | None) -> int | None:
    from control.cli.common import duration_ns_option
    return duration_ns_option(value, 100_000_000,
                              f"'{value}' is too short for a live run (allowed: 100ms or more)")


def _backend(value: str | None) -> Backend:
    from control.bench.live import parse_backend
    from control.cli.common import BadValue
    try:
        return parse_backend(value or "emulated")
    except ValueError as e:
        raise BadValue(str(e), param_hint="'--backend'") from None


class _Progress:
    """Progress on stderr: one line per run; on a terminal also a live countdown."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.open = False

    def __call__(self, text: str, new_run: bool) -> None:
        if self.tty:
            sys.stderr.write(("\n" if new_run and self.open else "\r") + text + "\033[K")
            sys.stderr.flush()
            self.open = True
        elif new_run:
            click.echo(text, err=True)

    def end(self) -> None:
        if self.tty and self.open:
            sys.stderr.write("\n")
            self.open = False


def _interruptible(fn: Callable[[], T]) -> T:
    """Run fn with SIGTERM and SIGHUP raising KeyboardInterrupt (like Ctrl-C), so
    that whatever fn started is stopped on the way out."""
    def stop(_signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    old = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        return fn()
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def _combined(reps: list[Any]) -> Any:
    """N BenchResults as one: the docs combined (control.bench.results.combine_repeats),
    every warning once, each unreliable verdict as a warning naming its policy."""
    import dataclasses
    from control.bench.results import combine_repeats
    docs = combine_repeats([r.docs for r in reps])
    warnings = list(dict.fromkeys(w for r in reps for w in r.warnings))
    warnings += [f"{d['policy']}: unreliable: {w}" for d in docs for w in d["unreliable"]]
    return dataclasses.replace(reps[-1], docs=docs, warnings=warnings)   # plots: the last


@click.command("bench", short_help="Run a scenario live with fio, policies side by side.")
@click.argument("scenario", metavar="SCENARIO.yaml")
@click.option("--policy", "-p", "policies", multiple=True, metavar="P[,P...]",
              help="Policies to compare, repeat or comma-separate "
                   f"(default: {','.join(DEFAULT_POLICIES)}).")
@click.option("--backend", metavar="B", default=None,
              help="Data plane backend: emulated (default; the scenario's SSD model), memory, "
                   "or file:PATH.")
@click.option("--socket", "admin_socket", metavar="PATH", default=None,
              help="Bench a running `jbof serve` through its admin socket instead of starting "
                   "a data plane (its tenants must carry the scenario's names).")
@click.option("--out", "out_dir", metavar="DIR", type=click.Path(file_okay=False), default=None,
              help="Write report.md, results.json, PNG plots and every fio file here.")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON result documents.")
@click.option("--duration", metavar="D", default=None,
              help="Length of every run (default: the scenario's duration), e.g. 3s.")
@click.option("--compare-sim", is_flag=True,
              help="Also run the scenario in the simulator and report live/sim ratios "
                   "(emulated backend only).")
@click.option("--repeat", "repeat", type=click.IntRange(1, 100), default=3, show_default=True,
              metavar="N", help="Run everything N times; report min/median/max and flag "
              "shares > 1.05 or a run-to-run spread > 10% as unreliable.")
@click.option("--peers/--no-peers", default=True, show_default=True,
              help="Also run the nbdkit peers (memory plugin; rate filter) when installed.")
@click.option("--tune/--no-tune", default=True, show_default=True,
              help="Training-cluster scenarios: run the autotuner beside the data plane.")
def bench(scenario: str, policies: tuple[str, ...], backend: str | None,
          admin_socket: str | None, out_dir: str | None, as_json: bool, duration: str | None,
          compare_sim: bool, peers: bool, tune: bool, repeat: int) -> None:
    """Run SCENARIO.yaml live: one fio process per tenant (fio's nbd engine)
    against the data plane.  Each tenant runs alone first (policy fifo, no
    QoS settings), then all together under each policy in turn, then beside
    nbdkit (no QoS, and static caps with its rate filter) when installed.
    Prints per-tenant throughput, latency percentiles, share of solo
    throughput and Jain's index per policy (--json: the result documents).

    \b
    Example:
      jbof bench configs/scenarios/read-vs-write.yaml --out /tmp/rvw
      jbof bench configs/scenarios/latency-vs-hogs.yaml -p fifo,qos --compare-sim
      jbof bench configs/scenarios/training-live.yaml --out /tmp/tl   # a cluster trace live

    A training-cluster scenario (top-level 'cluster:') replays its trace live
    instead: policies static, share, robust (default: all three), the forecasts
    pushed over the forecast socket, one fio per job, compared with the
    simulator on the same trace (control/bench/lending.py).
    """
    from control.lending.anticipation import is_cluster_scenario
    if is_cluster_scenario(scenario):
        _bench_cluster(scenario, policies, out_dir, as_json, duration, tune)
        return
    from control.bench.runner import Bench, format_sim_ratios
    from control.bench.runner import compare_sim as run_sim
    from control.cli.common import BadValue, parse_policies, run_guarded
    from control.bench.results import format_comparison, format_table
    from control.scenario import load_scenario

    chosen = parse_policies(policies) or list(DEFAULT_POLICIES)
    run_ns = _duration(duration)
    if admin_socket is not None and backend is not None:
        raise BadValue("give --socket (a running daemon) or --backend, not both",
                       param_hint="'--socket'")
    be = _backend(backend)
    if compare_sim and (be.kind != "emulated" or admin_socket is not None):
        raise BadValue("needs the emulated backend (the simulator runs the same SSD model)",
                       param_hint="'--compare-sim'")
    sc = run_guarded(lambda: load_scenario(scenario))
    keep = out_dir is not None
    out = Path(out_dir) if out_dir else None
    if out is not None:
        run_guarded(lambda: out.mkdir(parents=True, exist_ok=True))
    # unix socket paths are short (108 bytes): fio files go under --out, sockets in /tmp
    work = out / "runs" if out is not None else Path(tempfile.mkdtemp(prefix="jbof-bench-"))
    sockdir = Path(tempfile.mkdtemp(prefix="jbofb-", dir="/tmp"))
    progress = _Progress()
    try:
        b = run_guarded(lambda: Bench(sc, chosen, backend=be, workdir=work, duration_ns=run_ns,
                                      peers=peers, admin_socket=admin_socket,
                                      progress=progress, sockdir=sockdir))
        try:
            reps = [run_guarded(lambda: _interruptible(b.run)) for _ in range(repeat)]
            res = _combined(reps)
        except KeyboardInterrupt:
            progress.end()
            click.echo("jbof bench: interrupted; every fio, nbdkit and data plane it started "
                       "was stopped", err=True)
            sys.exit(130)
        progress.end()
        if compare_sim:
            run_guarded(lambda: run_sim(res))
        if out is not None:
            from control.bench.report import write_report
            run_guarded(lambda: write_report(out, res))
    finally:
        progress.end()
        shutil.rmtree(sockdir, ignore_errors=True)
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    for note in res.notes:
        click.echo(f"note: {note}", err=True)
    for w in res.warnings:
        click.echo(f"warning: {w}", err=True)
    if as_json:
        docs: Any = res.docs[0] if len(res.docs) == 1 else res.docs
        click.echo(json.dumps(docs, indent=2))
        return
    from control.bench.results import format_repeat
    click.echo("\n\n".join("\n".join(x for x in (format_table(d), format_repeat(d)) if x)
                           for d in res.docs))
    if len(res.docs) > 1:
        click.echo("\n" + format_comparison(res.docs))
    if compare_sim:
        click.echo("\nlive / sim (emulated backend vs simulator, same model, seed, duration)\n"
                   + format_sim_ratios(res))
    if out is not None:
        click.echo(f"\nreport: {out / 'report.md'}")


def _bench_cluster(scenario: str, policies: tuple[str, ...], out_dir: str | None,
                   as_json: bool, duration: str | None, tune: bool) -> None:
    """``jbof bench CLUSTER.yaml``: control/bench/lending.py's live replay."""
    from control.bench.lending import LIVE_POLICIES, format_live_table, run_cluster_live
    from control.cli.common import run_guarded
    chosen = [p.strip() for v in policies for p in v.split(",") if p.strip()] \
        or list(LIVE_POLICIES)
    run_ns = _duration(duration)
    keep = out_dir is not None
    work = Path(out_dir) / "runs" if out_dir else Path(tempfile.mkdtemp(prefix="jbof-bench-"))
    progress = _Progress()
    try:
        docs = run_guarded(lambda: _interruptible(lambda: run_cluster_live(
            scenario, chosen, work, duration_s=None if run_ns is None else run_ns / 1e9,
            tune=tune, progress=progress)))
    except KeyboardInterrupt:
        progress.end()
        click.echo("jbof bench: interrupted; every fio and data plane it started was stopped",
                   err=True)
        sys.exit(130)
    finally:
        progress.end()
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    table = format_live_table(docs)
    if out_dir is not None:
        out = Path(out_dir)
        (out / "results.json").write_text(json.dumps(docs, indent=2) + "\n")
        (out / "report.md").write_text(
            f"# {docs[0]['scenario']} live (seed {docs[0]['seed']})\n\n```\n{table}\n```\n")
    if as_json:
        click.echo(json.dumps(docs, indent=2))
        return
    click.echo(table)
    if out_dir is not None:
        click.echo(f"\nreport: {Path(out_dir) / 'report.md'}")
