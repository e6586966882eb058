"""``jbof serve``: run the live NBD target from a YAML config.

    jbof serve [--config FILE] [--unix PATH] [--tcp HOST:PORT]
               [--admin-socket PATH] [--metrics HOST:PORT] [--log-level LEVEL]

The config (``configs/default.yaml`` when --config is not given) is validated
by control/config.py (``jbof config keys`` lists every key):

    drives:                      # one backend + one scheduler each
      - name: ssd0
        backend: emulated        # memory | file | emulated
        model: dct983            # emulated: SSD model preset
        size: 12GiB              # required for memory/emulated; file: default = file size
        path: /dev/nvme0n1       # file: file or block device; emulated: optional sparse file
        policy: qos              # fifo | rr | token-bucket | drr | gimbal | qos
    listen:
      unix: jbof/nbd.sock        # relative paths live under $XDG_RUNTIME_DIR (or /tmp)
      tcp: 127.0.0.1:10809       # optional
    tenants:                     # one NBD export each; same keys as a scenario's tenants,
      - name: reader             # plus drive, size and read_only (no workload)
        drive: ssd0
        size: 4GiB
        latency_slo: 1ms
    admin: {socket: jbof/admin.sock, mode: "0600"}   # live control (control/admin.py)
    metrics: 127.0.0.1:9464      # optional: Prometheus /metrics (control/metrics.py)
    forecast:                    # optional: the forecast socket and planner (forecast_server.py)
      socket: jbof/forecast.sock
      capacity: 2800MiB/s
    tune: {enabled: [ssd0]}      # optional: online autotuning (autotune_live.py)

Once it accepts connections (NBD and the admin socket) it prints one NBD URI
per export and listener (``nbd+unix:///NAME?socket=PATH``) and runs until
SIGINT, SIGTERM or the admin ``shutdown`` op, then stops gracefully
(in-flight IO drains, data is synced).  Changes made over the admin socket
are saved to --config FILE (never to the embedded default).  With a
``forecast:`` section the forecast service starts after the admin socket and
stops before the Engine closes; the limits its planner gives scavengers are
applied like admin changes but never saved.  With a ``tune:`` section one
tuner thread per drive starts last and stops first (each drive gets its
configured knobs back before the Engine closes); its trials and choices are
applied like admin changes but never saved to the config.
"""
from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import click

from control.config import engine_config, load_config, parse_config, runtime_dir
from control.config import resolve_socket_path as socket_path

__all__ = ["load_serve_config", "parse_serve_config", "runtime_dir", "serve", "socket_path"]

DEFAULT_CONFIG = Path(__file__).resolve().parent.parent / "configs" / "default.yaml"
LOG_LEVELS = ("debug", "info", "warning", "error")


def parse_serve_config(data: Any, src: str, unix: str | None = None,
                       tcp: str | None = None) -> dict[str, Any]:
    """Validate a serve config; return the dataplane.engine.Engine config dict."""
    return engine_config(parse_config(data, src).with_overrides(unix=unix, tcp=tcp))


def load_serve_config(path: str | Path, unix: str | None = None,
                      tcp: str | None = None) -> dict[str, Any]:
    """Read and validate a serve config file (ConfigError: one line)."""
    return engine_config(load_config(path).with_overrides(unix=unix, tcp=tcp))


@click.command("serve", short_help="Serve tenants over NBD from a YAML config.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
              help="YAML config (default: the embedded configs/default.yaml).")
@click.option("--unix", "unix_path", default=None, metavar="PATH",
              help="Listen on this unix socket (replaces listen.unix).")
@click.option("--tcp", "tcp_addr", default=None, metavar="HOST:PORT",
              help="Listen on this TCP address (replaces listen.tcp).")
@click.option("--admin-socket", "admin_socket", default=None, metavar="PATH",
              help="Admin socket (replaces admin.socket).")
@click.option("--metrics", "metrics", default=None, metavar="HOST:PORT",
              help="Serve Prometheus metrics on http://HOST:PORT/metrics (replaces metrics).")
@click.option("--log-level", type=click.Choice(LOG_LEVELS, case_sensitive=False),
              default="info", show_default=True, help="Logging verbosity (stderr).")
def serve(config_path: str | None, unix_path: str | None, tcp_addr: str | None,
          admin_socket: str | None, metrics: str | None, log_level: str) -> None:
    """Serve the config's tenants over NBD until SIGINT/SIGTERM; print one URI per export.

    \b
    Example:
      jbof serve --config configs/default.yaml --metrics 127.0.0.1:9464
    """
    from control.admin import ControlPlane
    from control.cli import run_guarded

    logging.getLogger().setLevel(getattr(logging, log_level.upper()))
    path = config_path or str(DEFAULT_CONFIG)
    file_cfg = run_guarded(lambda: load_config(path))
    cfg = run_guarded(lambda: file_cfg.with_overrides(unix=unix_path, tcp=tcp_addr,
                                                       admin_socket=admin_socket,
                                                       metrics=metrics))

    def make() -> Any:
        from dataplane.engine import Engine
        return Engine(engine_config(cfg))

    eng = run_guarded(make)
    stop = threading.Event()
    plane = ControlPlane(eng, cfg, config_path, stop.set, file_cfg,
                         admin_explicit=cfg.admin.socket is not None)
    old = {s: signal.signal(s, lambda *_: stop.set()) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        run_guarded(eng.start)
        if cfg.listen.mode is not None and cfg.nbd_socket is not None:
            run_guarded(lambda: os.chmod(str(cfg.nbd_socket), int(cfg.listen.mode or 0)))
        run_guarded(plane.start)
        for uri in eng.uris():
            click.echo(uri)
        sys.stdout.flush()
        while not stop.wait(0.5):
            pass
        st = eng.stats()
        plane.close()
        run_guarded(eng.close)
        click.echo(f"jbof serve: stopped after {st['requests']} requests on "
                   f"{st['accepted']} connections", err=True)
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        plane.close()
        eng.close()
