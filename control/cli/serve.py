"""``jbof serve``: the daemon (control/daemon/serve.py) behind one-line errors."""
from __future__ import annotations

import logging
from pathlib import Path

import click

from control.cli.common import run_guarded
from control.config import load_config
from control.daemon.serve import DEFAULT_CONFIG, run
from control.state import file_sha256, load_with_state, state_path_for

LOG_LEVELS = ("debug", "info", "warning", "error")


@click.command("serve", short_help="Serve tenants over NBD from a YAML config.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
              help="YAML config (default: the embedded default, one emulated drive shared by "
              "three tenants; `jbof config show` prints what runs).")
@click.option("--unix", "unix_path", default=None, metavar="PATH",
              help="Listen on this unix socket (replaces listen.unix).")
@click.option("--tcp", "tcp_addr", default=None, metavar="HOST:PORT",
              help="Listen on this TCP address (replaces listen.tcp).")
@click.option("--admin-socket", "admin_socket", default=None, metavar="PATH",
              help="Admin socket (replaces admin.socket).")
@click.option("--metrics", "metrics", default=None, metavar="HOST:PORT",
              help="Serve Prometheus metrics on http://HOST:PORT/metrics (replaces metrics).")
@click.option("--state-dir", "state_dir", type=click.Path(file_okay=False), default=None,
              metavar="DIR", help="Keep the state file (live admin changes) in DIR "
              "(default: beside --config; without either, changes are not persisted).")
@click.option("--log-level", type=click.Choice(LOG_LEVELS, case_sensitive=False),
              default="info", show_default=True, help="Logging verbosity (stderr).")
def serve(config_path: str | None, unix_path: str | None, tcp_addr: str | None,
          admin_socket: str | None, metrics: str | None, state_dir: str | None,
          log_level: str) -> None:
    """Serve the config's tenants over NBD until SIGINT/SIGTERM; print one URI per export.

    The config file is never rewritten: live admin changes go to a state file
    (NAME.state.yaml beside it, or in --state-dir; 5 generations kept), which
    is loaded on top of the config at the next start.  `jbof config diff`
    shows running vs file, `jbof config save` writes the running config.

    \b
    Example:
      jbof serve --config /etc/jbof/jbof.yaml --state-dir /var/lib/jbof \\
                 --metrics 127.0.0.1:9464
    """
    logging.getLogger().setLevel(getattr(logging, log_level.upper()))
    path = config_path or str(DEFAULT_CONFIG)
    if config_path is not None:
        config_path = str(Path(config_path).resolve())
    base_cfg = run_guarded(lambda: load_config(path))
    state = state_path_for(config_path, state_dir)
    loaded = run_guarded(lambda: load_with_state(base_cfg, config_path, state))
    file_cfg = loaded.cfg
    cfg = run_guarded(lambda: file_cfg.with_overrides(unix=unix_path, tcp=tcp_addr,
                                                       admin_socket=admin_socket,
                                                       metrics=metrics))
    run(cfg, file_cfg, str(state) if state else None, guard=run_guarded, out=click.echo,
        err=lambda line: click.echo(line, err=True), config_path=config_path,
        base_sha256=file_sha256(config_path), banner=loaded.message, scrub=loaded.scrub,
        start_change=loaded.start_change)
