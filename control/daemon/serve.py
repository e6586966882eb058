"""``jbof serve``: run the live NBD target from a YAML config.

    jbof serve [--config FILE] [--unix PATH] [--tcp HOST:PORT]
               [--admin-socket PATH] [--metrics HOST:PORT] [--log-level LEVEL]

The config (the embedded default when --config is not given) is validated
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
    admin: {socket: jbof/admin.sock, mode: "0600"}   # live control (control/daemon/admin.py)
    metrics: 127.0.0.1:9464      # optional: Prometheus /metrics (control/daemon/metrics.py)
    forecast:                    # optional: the forecast socket and planner (forecast_server.py)
      socket: jbof/forecast.sock
      capacity: 2800MiB/s
    tune: {enabled: [ssd0]}      # optional: online autotuning (autotune_live.py)

Once it accepts connections (NBD and the admin socket) it prints one NBD URI
per export and listener (``nbd+unix:///NAME?socket=PATH``) and runs until
SIGINT, SIGTERM or the admin ``shutdown`` op, then stops gracefully
(in-flight IO drains, data is synced).  SIGHUP re-reads the TLS PSK file
(the admin op ``tls.reload``: new handshakes use the new keys, open
connections keep theirs; a bad file is one line on stderr and the old keys
stay).  Changes made over the admin socket
are saved to a state file (control/state.py: NAME.state.yaml beside --config
FILE, or under --state-dir); the config file is never rewritten.  With a
``forecast:`` section the forecast service starts after the admin socket and
stops before the Engine closes; the limits its planner gives scavengers are
applied like admin changes but never saved.  With a ``tune:`` section one
tuner thread per drive starts last and stops first (each drive gets its
configured knobs back before the Engine closes); its trials and choices are
applied like admin changes but never saved to the config.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any, Callable, TypeVar

from control.config import Config, load_config, parse_config, runtime_dir
from control.config_export import engine_config
from control.config import resolve_socket_path as socket_path

T = TypeVar("T")

__all__ = ["DEFAULT_CONFIG", "load_serve_config", "parse_serve_config", "run", "runtime_dir",
           "socket_path"]

DEFAULT_CONFIG = Path(__file__).resolve().parents[2] / "configs" / "default.yaml"


def parse_serve_config(data: Any, src: str, unix: str | None = None,
                       tcp: str | None = None) -> dict[str, Any]:
    """Validate a serve config; return the dataplane.engine.Engine config dict."""
    return engine_config(parse_config(data, src).with_overrides(unix=unix, tcp=tcp))


def load_serve_config(path: str | Path, unix: str | None = None,
                      tcp: str | None = None) -> dict[str, Any]:
    """Read and validate a serve config file (ConfigError: one line)."""
    return engine_config(load_config(path).with_overrides(unix=unix, tcp=tcp))


def sd_notify(message: str) -> bool:
    """Tell systemd (Type=notify, contrib/jbof.service) when $NOTIFY_SOCKET is set;
    False when not run by it or the datagram cannot be sent."""
    import socket
    path = os.environ.get("NOTIFY_SOCKET")
    if not path:
        return False
    if path.startswith("@"):
        path = "\0" + path[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
            s.connect(path)
            s.sendall(message.encode())
        return True
    except OSError:
        return False


def reload_psk(control: Any) -> str:
    """SIGHUP: the admin op tls.reload (new TLS handshakes use the PSK file's keys, open
    connections keep theirs); one line for stderr, also when it failed (the old keys stay)."""
    from control.daemon.admin import AdminError
    try:
        res = control.handle("tls.reload", {}, "SIGHUP")
    except AdminError as e:
        return f"jbof serve: SIGHUP: {e.message}"
    except Exception as e:      # noqa: BLE001 -- a signal never stops the daemon
        return f"jbof serve: SIGHUP: {type(e).__name__}: {e}"
    return f"jbof serve: SIGHUP: reloaded {res['keys']} TLS PSK identities from {res['file']}"


def run(cfg: Config, file_cfg: Config, persist_path: str | None,
        guard: Callable[[Callable[[], T]], T] = lambda fn: fn(),
        out: Callable[[str], None] = print, err: Callable[[str], None] = print,
        config_path: str | None = None, base_sha256: str | None = None,
        banner: str | None = None, scrub: Any = None,
        start_change: str | None = None) -> None:
    """Run the Engine and its services (admin socket, metrics, forecast, tuners) for
    ``cfg`` until SIGINT/SIGTERM or the admin ``shutdown`` op; print one NBD URI per
    export with ``out`` once serving.  ``guard`` wraps each step that may fail (the CLI
    turns failures into one line); changes over the admin socket go to the state
    file persist_path (control/state.py), never to config_path.  ``scrub``: the state's
    scrub_pending, marked dirty before the Engine serves and kept in the state until
    the drive reports it zeroed.  ``start_change``: write the state at start with
    that change (control/state.py Loaded.start_change)."""
    from control.daemon.services import Services

    def make() -> Any:
        from dataplane.engine import Engine
        return Engine(engine_config(cfg, scrub))

    eng = guard(make)
    stop = threading.Event()
    services = Services(eng, cfg, persist_path, stop.set, file_cfg,
                        admin_explicit=cfg.admin.socket is not None, scrub=scrub)
    services.control.config_path = config_path
    services.control.start_change = start_change
    if services.control.state is not None:
        services.control.state.base_sha256 = base_sha256
    old = {s: signal.signal(s, lambda *_: stop.set()) for s in (signal.SIGINT, signal.SIGTERM)}
    hup = threading.Event()     # SIGHUP: re-read the TLS PSK file (the admin op tls.reload)
    old[signal.SIGHUP] = signal.signal(signal.SIGHUP, lambda *_: hup.set())
    try:
        guard(eng.start)
        if cfg.listen.mode is not None and cfg.nbd_socket is not None:
            guard(lambda: os.chmod(str(cfg.nbd_socket), int(cfg.listen.mode or 0)))
        guard(services.start)
        if banner:
            err(banner)          # what it loaded: the config, and the state on top or not
        for uri in eng.uris():
            out(uri)
        sys.stdout.flush()
        sd_notify("READY=1\nSTATUS=serving " + ", ".join(eng.uris()))
        while not stop.wait(0.5):
            if hup.is_set():        # handled here, not in the handler: it takes the ops lock
                hup.clear()
                err(reload_psk(services.control))
        sd_notify("STOPPING=1")
        st = eng.stats()
        services.close()
        guard(eng.close)
        err(f"jbof serve: stopped after {st['requests']} requests on "
            f"{st['accepted']} connections")
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        services.close()
        eng.close()
