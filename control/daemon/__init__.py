"""``jbof serve``: the Engine's companions (docs/design.md#architecture).

serve       load the config, run the Engine and its services until stopped
services    what runs next to the Engine: admin socket, metrics, forecast, tuners
operations  what each admin op does to the Engine and the live config
admin       the admin socket's protocol, server and client
metrics     the Prometheus exporter
"""
