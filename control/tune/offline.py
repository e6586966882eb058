"""The autotuner's yardsticks in the simulator: fixed settings scored on fresh runs
(``evaluate``), the full grid (``grid_search``) and default vs tuned vs grid optimum
(``compare``, what ``jbof tune sim`` reports).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from control.tune.objective import Score, score
from control.tune.profiling import SimDataPlane, window
from control.tune.space import TUNED_POLICY, Point, Space

@dataclass(frozen=True)
class Evaluation:
    warm_s: float
    measure_s: float


def evaluation_horizon(period_s: float | None, writes: bool) -> Evaluation:
    """How long a fixed-config run warms up and is measured.

    Warm-up: 0.5 s for a read-only mix (the controller learns the drive in
    milliseconds), 3 s with writes: the write price starts at its maximum
    (write_factor_init = max) and takes seconds to settle -- a shorter
    warm-up would favour a low cap on the price for what is only a head
    start.  Measured: 1 s of a steady mix (its objective varies by well
    under 1% from one second to the next); 4 whole periods of a phased one
    (compare() measures the finalists longer).  Both in whole periods."""
    warm = 3.0 if writes else 0.5
    if period_s is None:
        return Evaluation(warm, 1.0)
    return Evaluation(max(1, math.ceil(warm / period_s - 1e-9)) * period_s, 4 * period_s)


def sim_dataplane(scenario: Any, seed: int | None = None, horizon_s: float = 600.0) -> SimDataPlane:
    """A SimDataPlane on a fresh simulator of the scenario, policy qos (the
    knobs are qos's: the learned band exists only there)."""
    from control.bench.results import make_simulator
    sim = make_simulator(scenario, TUNED_POLICY, seed,
                         duration_s=horizon_s, bin_s=max(0.1, horizon_s / 1000))
    drive = scenario.device.model + (f"/{scenario.device.state}" if scenario.device.state else "")
    return SimDataPlane(sim, {t.name: t.latency_slo_ns for t in scenario.tenants}, drive=drive)


def evaluate(scenario: Any, space: Space, cfg: Point, seed: int | None,
             horizon: Evaluation) -> Score:
    """J of one fixed config on a fresh simulator (what the grid search measures)."""
    dp = sim_dataplane(scenario, seed, horizon.warm_s + horizon.measure_s + 1)
    dp.apply(space.fields(cfg))
    dp.advance(horizon.warm_s)
    a = dp.sample()
    dp.advance(horizon.measure_s)
    return score(window(a, dp.sample()), dp.slos_ns())


def grid_search(scenario: Any, space: Space, seed: int | None, horizon: Evaluation,
                base: Point | None = None, active: Sequence[int] | None = None
                ) -> list[tuple[Point, Score]]:
    """Every config of the space (only the ``active`` knobs varied), best first."""
    out = [(cfg, evaluate(scenario, space, cfg, seed, horizon))
           for cfg in space.grid(base, active)]
    out.sort(key=lambda cs: -cs[1].objective)
    return out


@dataclass(frozen=True)
class Comparison:
    """Default, tuned and grid optimum, scored alike (fresh runs, same seed)."""
    default: Score
    tuned: Score
    grid_best: Point
    grid_best_score: Score
    grid_points: int
    horizon: Evaluation
    grid: Mapping[Point, Score]     # every grid point (evaluation_horizon)


REFINE_TOP = 5        # grid points re-measured for a phased mix ...
REFINE_FACTOR = 4     # ... this many times longer


def compare(scenario: Any, space: Space, default: Point, tuned: Point,
            active: Sequence[int], period_s: float | None, writes: bool,
            seed: int | None) -> Comparison:
    """Score default, tuned and the grid optimum of the ``active`` knobs.

    Each grid point is one fresh run (evaluation_horizon).  A phased mix
    varies from period to period, so the best of 80 short runs is partly
    luck (the best of many noisy values is biased up): the top REFINE_TOP
    points are measured again REFINE_FACTOR times longer, and default,
    tuned and the optimum are all scored on that longer horizon."""
    hz = evaluation_horizon(period_s, writes)
    grid = grid_search(scenario, space, seed, hz, default, active)
    final = hz
    scores: dict[Point, Score] = {c: s for c, s in grid}
    top = [c for c, _ in grid[:REFINE_TOP]]
    if period_s is not None:
        final = Evaluation(hz.warm_s, hz.measure_s * REFINE_FACTOR)
        scores = {c: evaluate(scenario, space, c, seed, final) for c in top}
    best = max(top, key=lambda c: scores[c].objective)

    def scored(c: Point) -> Score:
        if c not in scores:
            scores[c] = evaluate(scenario, space, c, seed, final)
        return scores[c]
    return Comparison(default=scored(default), tuned=scored(tuned), grid_best=best,
                      grid_best_score=scores[best], grid_points=len(grid), horizon=final,
                      grid=dict(grid))
