"""Autotuning the scheduler's knobs (docs/design.md#lending-and-tuning).

autotune        the tuner: profiling, trials, guardrails, reuse (its docstring: the method)
space           the knobs, the grid of ``Point``s and the line search over it
objective       throughput at p99 within SLO
episode         what one tuning episode measured and decided
index           best settings per drive and mix signature (a JSON file)
offline         fixed settings scored in the simulator: grid search, default vs tuned
autotune_live   the tuner on a running ``jbof serve`` drive
profiling       counters of a data plane (simulated or live) into windows and profiles
"""
