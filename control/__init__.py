"""Control plane of the JBOF QoS data plane: scenarios, units, results, the ``jbof`` CLI.

Modules are small and named after what they do: ``units`` (human units),
``scenario`` (scenario files -> typed dataclasses), ``results`` (simulation
runs -> the result document), ``cli`` (the ``jbof`` command), ``errors``.
"""
