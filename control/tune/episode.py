"""What one tuning episode of the autotuner (control/tune/autotune.py) measured and
decided: per-config measurements (``Measured``), the episode's record (``Episode``)
and the totals ``AutoTuner.totals()`` keeps over episodes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from control.tune.objective import Score


@dataclass
class Measured:
    """All measurements of one config in one search (duration-weighted)."""
    seconds: float = 0.0
    j_s: float = 0.0
    t_s: float = 0.0
    ratio_s: float = 0.0
    aborted: bool = False

    def add(self, s: Score, seconds: float) -> None:
        self.seconds += seconds
        self.j_s += s.objective * seconds
        self.t_s += s.throughput * seconds
        self.ratio_s += min(s.worst_ratio, 1e6) * seconds

    @property
    def j(self) -> float:
        return self.j_s / self.seconds if self.seconds else 0.0

    @property
    def t(self) -> float:
        return self.t_s / self.seconds if self.seconds else 0.0

    @property
    def ratio(self) -> float:
        return self.ratio_s / self.seconds if self.seconds else 0.0


@dataclass
class Episode:
    """One profile -> (reuse | search) -> exploit cycle."""
    start_s: float
    signature: str = ""
    period_s: float = 0.0
    reused: bool = False
    reason: str = "start"           # start | mix | shift
    trials: int = 0
    aborted: int = 0
    pruned: int = 0
    trial_s: float = 0.0
    extra_violations: float = 0.0
    budget_exhausted: bool = False
    converged_s: float | None = None
    periods_to_converge: int | None = None
    best: dict[str, int] = field(default_factory=dict)
    best_objective: float = 0.0
    exploit_s: float = 0.0          # time served with the winner since
    exploit_j_s: float = 0.0        # ... and its objective x seconds

    @property
    def idle(self) -> bool:
        """The profile saw no IO (no mix to tune for)."""
        return self.signature.startswith("@")

    @property
    def exploit_objective(self) -> float | None:
        """Mean J while exploiting (what the tuned config delivers online)."""
        return self.exploit_j_s / self.exploit_s if self.exploit_s else None

    def explore_fraction(self) -> float | None:
        """Time on trial configs / time from the start to convergence."""
        if self.converged_s is None or self.converged_s <= self.start_s:
            return None
        return round(self.trial_s / (self.converged_s - self.start_s), 3)

    def as_dict(self) -> dict[str, Any]:
        return {"start_s": round(self.start_s, 3), "reason": self.reason,
                "signature": self.signature, "period_s": self.period_s, "reused": self.reused,
                "trials": self.trials, "aborted": self.aborted, "pruned": self.pruned,
                "explore_fraction": self.explore_fraction(),
                "exploration_slo_violations": round(self.extra_violations, 3),
                "budget_exhausted": self.budget_exhausted,
                "periods_to_converge": self.periods_to_converge,
                "best": self.best, "best_objective": round(self.best_objective, 1),
                "exploit_objective": None if self.exploit_objective is None
                else round(self.exploit_objective, 1)}


EPISODE_TOTALS = ("searches", "reuses", "trials", "aborted", "pruned", "trial_s", "extra_violations")


def episode_counts(e: Episode) -> dict[str, float]:
    return {"searches": float(not (e.reused or e.idle)), "reuses": float(e.reused),
            "trials": float(e.trials), "aborted": float(e.aborted), "pruned": float(e.pruned),
            "trial_s": e.trial_s, "extra_violations": e.extra_violations}
