"""What a live run (control/bench/runner.py) needs from the scenario and the host: the
backend (``parse_backend``), the emulated drive model (``live_model``), each tenant's
namespace (``ns_size``), the checks (``check_live``), and ``BenchError``.
"""
from __future__ import annotations

from dataclasses import dataclass

from control.bench.fio import phase_spans
from control.errors import ConfigError, JbofError
from control.scenario import Scenario, Tenant

BACKENDS = ("emulated", "memory", "file:PATH")
LIVE_NS_MAX_BYTES = 1 << 30
START_TIMEOUT_S = 10.0
MIB = 1 << 20


class BenchError(JbofError):
    """The harness could not run; the message is one line."""


def rounded(x: float) -> float:
    """A float for a result document: 6 decimals."""
    return float(round(x, 6))


@dataclass(frozen=True)
class Backend:
    kind: str                   # emulated | memory | file
    path: str | None = None

    def __str__(self) -> str:
        return f"file:{self.path}" if self.kind == "file" else self.kind


def parse_backend(text: str) -> Backend:
    """``emulated``, ``memory`` or ``file:PATH`` (ValueError: one line)."""
    if text in ("emulated", "memory"):
        return Backend(text)
    if text.startswith("file:") and len(text) > 5:
        return Backend("file", text[5:])
    raise ValueError(f"'{text}' is not a backend (allowed: {', '.join(BACKENDS)})")


def live_model(scenario: Scenario) -> str:
    """The emulated backend's preset for the scenario's device (model + state)."""
    dev = scenario.device
    base = dev.model.removesuffix("-fragmented")
    if dev.fragmentation_pct is not None:
        if dev.fragmentation_pct not in (0.0, 100.0):
            raise ConfigError(scenario.source, "device.fragmentation",
                              f"{dev.fragmentation_pct:g}% cannot be emulated live (allowed "
                              "live: 0% or 100%, or state: clean|fragmented)")
        state = "fragmented" if dev.fragmentation_pct == 100.0 else "clean"
    else:
        state = dev.state or ("fragmented" if dev.model.endswith("-fragmented") else "clean")
    return base + "-fragmented" if state == "fragmented" else base


def ns_size(t: Tenant) -> int:
    """A tenant's live namespace: its workload size, capped, 4 KiB aligned, >= its largest IO."""
    assert t.workload is not None
    largest = max(bs for p in t.workload.phases for bs, _ in p.bssplit)
    size = min(t.workload.size_bytes, LIVE_NS_MAX_BYTES) // 4096 * 4096
    return max(size, -(-largest // 4096) * 4096)


def check_live(scenario: Scenario, run_ns: int) -> None:
    """Everything a live run needs from the scenario (ConfigError: one line)."""
    for i, t in enumerate(scenario.tenants):
        if t.workload is None:
            raise ConfigError(scenario.source, f"tenants[{i}].workload", "is required")
        phase_spans(t.workload, run_ns, scenario.source, f"tenants[{i}]")
