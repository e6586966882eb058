"""Autotuning the scheduler's knobs.

autotune        knob space, objective, index, the tuner and the offline (simulated) search
autotune_live   the tuner on a running ``jbof serve`` drive
profiling       windows of counters from a data plane (simulated or live)
"""
