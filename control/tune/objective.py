"""The autotuner's objective: throughput at p99 within SLO (control/tune/autotune.py,
section 2, has the formula and a worked example).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from control.tune.profiling import Window

# Objective prices (section 2).
A_REF_BYTES = 3584
WRITE_PRICE_REF = 3
PENALTY_EXP = 4
MIN_PERIOD_SLO_IOS = 20      # fewer completions in a period: its p99 says nothing


@dataclass(frozen=True)
class Score:
    objective: float                  # J, read-byte equivalents per second
    throughput: float                 # T
    worst_ratio: float                # max p99 / SLO (0 without SLOs, inf if starved)
    p99_us: Mapping[str, float | None]  # tenants with an SLO (None: starved)

    @property
    def slo_met(self) -> bool:
        return self.worst_ratio <= 1.0

    def as_dict(self) -> dict[str, Any]:
        return {"objective": round(self.objective, 1), "throughput": round(self.throughput, 1),
                "slo_met": self.slo_met,
                "p99_us": {k: (round(v, 1) if v is not None else None)
                           for k, v in self.p99_us.items()}}


def score(w: Window, slos_ns: Mapping[str, int]) -> Score:
    """J of a window (section 2)."""
    secs = w.seconds
    if secs <= 0:
        raise ValueError("an empty window has no score")
    t = sum(A_REF_BYTES * tw.read_ios + tw.read_bytes
            + WRITE_PRICE_REF * (A_REF_BYTES * tw.write_ios + tw.write_bytes)
            for tw in w.tenants.values()) / secs
    worst = 0.0
    p99s: dict[str, float | None] = {}
    for name, slo in slos_ns.items():
        tw = w.tenants.get(name)
        if not slo or tw is None:
            continue
        if tw.ios == 0:
            if tw.outstanding > 0:
                worst = math.inf
                p99s[name] = None
            continue
        p = tw.p99_ns()
        p99s[name] = p / 1e3
        worst = max(worst, p / slo)
    j = t if worst <= 1.0 else (0.0 if math.isinf(worst) else t * worst ** -PENALTY_EXP)
    return Score(objective=j, throughput=t, worst_ratio=worst, p99_us=p99s)


def period_violated(w: Window, slos_ns: Mapping[str, int]) -> bool:
    """Some SLO'd tenant's p99 over this period exceeded its SLO (or it starved)."""
    for name, slo in slos_ns.items():
        tw = w.tenants.get(name)
        if not slo or tw is None:
            continue
        if tw.ios == 0 and tw.outstanding > 0:
            return True
        if tw.ios >= MIN_PERIOD_SLO_IOS and tw.p99_ns() > slo:
            return True
    return False
