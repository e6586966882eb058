"""Helpers of the control-plane tests: an in-process daemon (Engine + admin
socket + optional metrics) on short unix socket paths, and tool checks."""
from __future__ import annotations

import errno
import os
import shutil
import socket
import tempfile
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

MIB = 1 << 20


def need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"{tool} is not installed")
    return path


def short_tmp() -> Path:
    """A short directory for unix sockets (sun_path is 108 bytes)."""
    return Path(tempfile.mkdtemp(prefix="jbofc-", dir="/tmp"))


@dataclass
class Daemon:
    engine: Any
    plane: Any
    stop: threading.Event
    dir: Path
    config_path: Path
    admin: str
    nbd: str
    state_path: Path          # where live changes are saved (the config file never is)

    def saved(self) -> Any:
        """The config a restart would load: the state file's."""
        from control.state import state_config
        return state_config(self.state_path)

    @property
    def metrics_url(self) -> str:
        return str(self.plane.control.metrics_url)

    def client(self) -> Any:
        from control.daemon.admin import Client
        return Client(self.admin, timeout=20)


@contextmanager
def daemon(config_text: str, metrics: bool = False, restart: Path | None = None,
           keep: bool = False, **admin: Any) -> Iterator[Daemon]:
    """Serve config_text (YAML) in this process; sockets in a fresh short dir
    (removed at the end unless ``keep``).  ``restart=DIR``: start again in the DIR
    of a stopped daemon from its config file and state file, like ``jbof serve``
    (config_text is ignored; DIR is kept)."""
    from control.daemon.services import Services
    from control.config import load_config
    from control.config_export import engine_config
    from control.state import file_sha256, load_with_state
    from dataplane.engine import Engine

    tmp = restart or short_tmp()
    path = tmp / "c.yaml"
    scrub: dict[str, Any] = {}
    start_change = None
    if restart is None:
        path.write_text(textwrap.dedent(config_text))
        file_cfg = load_config(path)
    else:
        loaded = load_with_state(load_config(path), str(path), tmp / "c.state.yaml")
        file_cfg = loaded.cfg
        scrub = dict(loaded.scrub)
        start_change = loaded.start_change
    cfg = file_cfg.with_overrides(unix=str(tmp / "nbd.sock"), admin_socket=str(tmp / "admin.sock"),
                                  metrics="127.0.0.1:0" if metrics else None)
    if admin:
        import dataclasses
        cfg = dataclasses.replace(cfg, admin=dataclasses.replace(cfg.admin, **admin))
    eng = Engine(engine_config(cfg, scrub))
    eng.start()
    stop = threading.Event()
    state = tmp / "c.state.yaml"
    plane = Services(eng, cfg, str(state), stop.set, file_cfg, scrub=scrub)
    plane.control.config_path = str(path)
    plane.control.start_change = start_change
    if plane.control.state is not None:     # as jbof serve: the state names its base
        plane.control.state.base_sha256 = file_sha256(path)
    try:
        plane.start()
        yield Daemon(eng, plane, stop, tmp, path, cfg.admin_socket, str(tmp / "nbd.sock"), state)
    finally:
        plane.close()
        eng.close()
        if restart is None and not keep:
            shutil.rmtree(tmp, ignore_errors=True)


def connect_as(path: str, uid: int, gid: int) -> tuple[str, str]:
    """Connect to path from a child that dropped to uid/gid; (outcome, detail)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:                                 # child: no exec, no pytest
        try:
            os.close(r)
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(5)
            try:
                s.connect(path)
                s.settimeout(1)
                try:                          # a refusal comes at once, unasked
                    data = s.recv(4096)
                except TimeoutError:
                    s.settimeout(5)
                    s.sendall(b'{"v": 1, "op": "tenant.list"}\n')
                    data = s.recv(4096)
                out = "connected:" + data.decode(errors="replace")
            except OSError as e:
                out = f"refused:{errno.errorcode.get(e.errno or 0, e.errno)}"
            os.write(w, out.encode()[:4000])
        finally:
            os._exit(0)
    os.close(w)
    data = b""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        chunk = os.read(r, 4096)
        if not chunk:
            break
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    outcome, _, detail = data.decode().partition(":")
    return outcome, detail


def scrape(url: str, *labels: str) -> dict[tuple[str, str], float]:
    """Every sample of the daemon's /metrics, keyed by (metric name, the value of
    the first of ``labels`` the sample has, else "")."""
    import urllib.request

    from prometheus_client.parser import text_string_to_metric_families
    text = urllib.request.urlopen(url, timeout=10).read().decode()
    return {(s.name, next((s.labels[k] for k in labels if s.labels.get(k)), "")): s.value
            for fam in text_string_to_metric_families(text) for s in fam.samples}
