"""The knobs the autotuner turns and the grid it searches (control/tune/autotune.py explains
why these knobs and how the search walks the grid).

A ``Point`` is one setting of every knob of a ``Space`` (a tuple of values, in the
space's knob order); ``Space.fields`` turns it into scheduler fields.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import product
from typing import Any

from control.errors import ConfigError

TUNED_POLICY = "qos"


@dataclass(frozen=True)
class Knob:
    """One tunable: its candidate values (ascending), and which way is aggressive."""
    name: str                         # also its unit, e.g. slot_bytes
    values: tuple[int, ...]
    up_is_aggressive: bool            # a larger value lets more work into the drive
    doc: str
    to_fields: Callable[[int], dict[str, int]]
    field: str                        # the sched field that reads the value back
    writes_only: bool = False         # inert unless some tenant writes

    def fields(self, v: int) -> dict[str, int]:
        return self.to_fields(v)


def _band_fields(v: int) -> dict[str, int]:
    return {"ctl.band_hi_pct": v, "ctl.band_lo_pct": max(100, v // 2)}


def _wf_fields(v: int) -> dict[str, int]:
    return {"cost.write_factor_max_x256": v, "cost.write_factor_init_x256": v}


KNOBS: dict[str, Knob] = {k.name: k for k in (
    Knob("band_hi_pct", (200, 300, 450, 700, 1200), True,
         "latency band ceiling, % of the drive's learned unloaded read latency "
         "(floor: half of it, at least 100%)", _band_fields, "ctl.band_hi_pct"),
    Knob("slot_bytes", (65536, 131072, 262144), True,
         "virtual slot size; the drive's in-flight window is total_slots of them",
         lambda v: {"slot_bytes": v}, "slot_bytes"),
    Knob("write_factor_max_x256", (512, 1024, 2304), False,
         "highest write price the estimator may learn (x256), also its start",
         _wf_fields, "cost.write_factor_max_x256", writes_only=True),
    Knob("rate_max_bps", (1 << 30, 2 << 30, 4 << 30), True,
         "drive window: the controller's highest dispatch rate (cost bytes/s)",
         lambda v: {"ctl.rate_max_cost_bps": v}, "ctl.rate_max_cost_bps"),
)}


DEFAULT_KNOBS = ("band_hi_pct", "slot_bytes", "write_factor_max_x256")


Point = tuple[int, ...]          # one value per knob of a Space, in its order


@dataclass(frozen=True)
class Space:
    """The grid searched: some knobs, each with its ordered candidate values."""
    knobs: tuple[Knob, ...]

    @classmethod
    def of(cls, names: Sequence[str] = DEFAULT_KNOBS) -> Space:
        out = []
        for n in names:
            if n not in KNOBS:
                raise ConfigError("--knobs", n, f"is not a knob (allowed: {', '.join(KNOBS)})")
            out.append(KNOBS[n])
        if not out or len(set(names)) != len(names):
            raise ConfigError("--knobs", "", "give one or more distinct knobs "
                              f"(allowed: {', '.join(KNOBS)})")
        return cls(tuple(out))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.knobs)

    def size(self) -> int:
        return math.prod(len(k.values) for k in self.knobs)

    def grid(self, base: Point | None = None, active: Sequence[int] | None = None
             ) -> Iterator[Point]:
        """Every config; with ``active``, only those knobs vary (the others
        keep base's values)."""
        if active is None or base is None:
            return iter(product(*(k.values for k in self.knobs)))
        return iter(product(*(k.values if i in active else (base[i],)
                              for i, k in enumerate(self.knobs))))

    def active(self, writes: bool) -> tuple[int, ...]:
        """Indices of the knobs that can matter: write-price knobs are inert
        (exactly: reads are priced without them) while nobody writes."""
        return tuple(i for i, k in enumerate(self.knobs) if writes or not k.writes_only)

    def step(self, cfg: Point, i: int, aggressive: bool) -> Point | None:
        """cfg with knob i one candidate more (or less) aggressive; None at the edge."""
        k = self.knobs[i]
        j = k.values.index(cfg[i]) + (1 if aggressive == k.up_is_aggressive else -1)
        if not 0 <= j < len(k.values):
            return None
        return cfg[:i] + (k.values[j],) + cfg[i + 1:]

    def fields(self, cfg: Point) -> dict[str, int]:
        out: dict[str, int] = {}
        for k, v in zip(self.knobs, cfg):
            out.update(k.fields(v))
        return out

    def read(self, fields: Mapping[str, int]) -> Point:
        return tuple(int(fields[k.field]) for k in self.knobs)

    def including(self, cfg: Point) -> Space:
        """The space with cfg's values added where they are not candidates."""
        return Space(tuple(k if v in k.values else replace(k, values=tuple(sorted(k.values + (v,))))
                           for k, v in zip(self.knobs, cfg)))

    def as_dict(self, cfg: Point) -> dict[str, int]:
        return dict(zip(self.names, cfg))

    def from_dict(self, d: Mapping[str, Any]) -> Point | None:
        try:
            return tuple(int(d[n]) for n in self.names)
        except (KeyError, TypeError, ValueError):
            return None

    def at_least_as_aggressive(self, c: Point, than: Point) -> bool:
        return all((a >= b) if k.up_is_aggressive else (a <= b)
                   for k, a, b in zip(self.knobs, c, than))


def golden_section(line: Sequence[Point], value: Callable[[Point], float],
                   tol: float = 0.0, conservative_first: bool = True) -> Point:
    """Best point of an ordered line of configs, assuming J is unimodal along it.

    Discrete golden-section search: probe two interior points at 0.382 and
    0.618 of [lo, hi], drop the side of the worse one, repeat until three or
    fewer points remain, then take the best of those.  ``value`` caches, so a
    point probed twice costs one trial.  Values within ``tol`` (relative) of
    each other are ties, won by the conservative side (index 0 if
    ``conservative_first``): the best configs sit at the edge of what the
    SLO allows, and headroom left on one knob may be spent on another.
    Worked example, 5 values: probe 1 and 3; if J(1) >= J(3) keep [0, 3],
    probe 1 and 2 (1 cached), keep [0, 2] or [1, 3], take the best of the
    last three: 3-4 trials."""
    def better(i: int, j: int) -> bool:
        """line[i] at least as good as line[j], ties to the conservative side."""
        vi, vj = value(line[i]), value(line[j])
        if abs(vi - vj) <= tol * max(abs(vi), abs(vj)):
            return (i < j) == conservative_first
        return vi > vj

    lo, hi = 0, len(line) - 1
    while hi - lo > 2:
        c = lo + math.floor(0.382 * (hi - lo))
        d = hi - math.floor(0.382 * (hi - lo))
        if c == d:
            d = c + 1
        if better(c, d):
            hi = d
        else:
            lo = c
    best = lo
    for i in range(lo + 1, hi + 1):
        if not better(best, i):
            best = i
    return line[best]
