"""The data plane's Simulator (dataplane/sim.py) with the control plane's workload
vocabulary: a tenant's workload may be a control.scenario.Workload or a fio-style
dict (``{"rw": "randread", "bs": "4k", "iodepth": 32}``), parsed and validated by
control/scenario.py (docs/design.md#scenarios).  dataplane never imports control:
this subclass is where the two meet."""
from __future__ import annotations

from typing import Any

from control.scenario import Workload, parse_workload
from dataplane import sim as _sim

__all__ = ["Simulator"]


class Simulator(_sim.Simulator):
    """``dataplane.sim.Simulator`` whose workloads may also be fio-style dicts."""

    def _as_workload(self, workload: Any, name: str, phases: Any, loop_phases: bool) -> Any:
        if isinstance(workload, Workload):
            return super()._as_workload(workload, name, phases, loop_phases)
        return parse_workload(workload, src=f"tenant {name}", where="workload",
                              phases=phases, loop=loop_phases)
