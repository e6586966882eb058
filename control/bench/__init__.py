"""``jbof bench``: scenarios run live with fio against ``jbof serve``.

runner   run a scenario's tenants with fio, solo and together, per policy
fio      fio job files and fio's JSON output
report   plots and the report directory
"""
