"""Control plane of the JBOF QoS data plane (docs/design.md#architecture).

Layers, lowest first; a module imports only from its own layer or lower ones
(tests/test_architecture.py checks the rules that can be checked: no cycles,
click only in ``cli``, ``dataplane`` never imports ``control``, no raw cffi here):

  errors, units          one-line errors; human units (docs/design.md#units)
  schema                 Key tables, typed parsers, the strict YAML loader
  scenario, config       scenario files (docs/design.md#scenarios); the daemon config
  config_schema, config_export  the config's keys; what a config becomes (Engine, YAML)
  simulator              dataplane's Simulator with scenario workloads
  ipc                    the one JSON-lines unix-socket server and client
  lending/               forecasts, their socket, the planner, the training-cluster
                         evaluation and its traces
  tune/                  the autotuner (offline and live) and the data-plane profiling
  bench/                 result documents (docs/design.md#result-documents) of sim and
                         live runs; live fio runs and their report
  daemon/                ``jbof serve``: the admin socket and ops, metrics, services
  cli/                   every ``jbof`` command (the only click code)
"""
