"""``jbof serve``: the daemon (control/daemon/serve.py) behind one-line errors."""
from __future__ import annotations

import logging

import click

from control.cli.common import run_guarded
from control.config import load_config
from control.daemon.serve import DEFAULT_CONFIG, run

LOG_LEVELS = ("debug", "info", "warning", "error")


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
    logging.getLogger().setLevel(getattr(logging, log_level.upper()))
    path = config_path or str(DEFAULT_CONFIG)
    file_cfg = run_guarded(lambda: load_config(path))
    cfg = run_guarded(lambda: file_cfg.with_overrides(unix=unix_path, tcp=tcp_addr,
                                                       admin_socket=admin_socket,
                                                       metrics=metrics))
    run(cfg, file_cfg, config_path, guard=run_guarded, out=click.echo,
        err=lambda line: click.echo(line, err=True))
