"""Helpers of the control-plane tests: an in-process daemon (Engine + admin
socket + optional metrics) on short unix socket paths, and tool checks."""
from __future__ import annotations

import shutil
import tempfile
import textwrap
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

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

    @property
    def metrics_url(self) -> str:
        return str(self.plane.control.metrics_url)

    def client(self) -> Any:
        from control.admin import Client
        return Client(self.admin, timeout=20)


@contextmanager
def daemon(config_text: str, metrics: bool = False, **admin: Any) -> Iterator[Daemon]:
    """Serve config_text (YAML) in this process; sockets in a fresh short dir."""
    from control.admin import ControlPlane
    from control.config import load_config, engine_config
    from dataplane.engine import Engine

    tmp = short_tmp()
    path = tmp / "c.yaml"
    path.write_text(textwrap.dedent(config_text))
    file_cfg = load_config(path)
    cfg = file_cfg.with_overrides(unix=str(tmp / "nbd.sock"), admin_socket=str(tmp / "admin.sock"),
                                  metrics="127.0.0.1:0" if metrics else None)
    if admin:
        import dataclasses
        cfg = dataclasses.replace(cfg, admin=dataclasses.replace(cfg.admin, **admin))
    eng = Engine(engine_config(cfg))
    eng.start()
    stop = threading.Event()
    plane = ControlPlane(eng, cfg, str(path), stop.set, file_cfg)
    try:
        plane.start()
        yield Daemon(eng, plane, stop, tmp, path, cfg.admin_socket, str(tmp / "nbd.sock"))
    finally:
        plane.close()
        eng.close()
        shutil.rmtree(tmp, ignore_errors=True)
