"""Measuring QoS: result documents, and ``jbof bench`` (scenarios run live with fio).

results  runs in the simulator -> result documents (docs/design.md#result-documents)
runner   run a scenario's tenants with fio, solo and together, per policy
live     what a live run needs: backend, drive model, namespace sizes, checks
targets  where the IO goes: the in-process Engine, a running jbof serve, nbdkit
fio      fio job files and fio's JSON output
report   plots and the report directory
"""
