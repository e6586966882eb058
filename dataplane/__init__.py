"""Python binding of the JBOF QoS C core (built by dataplane/_build.py with cffi).

Importing this package never needs the compiled extension: the wrappers are
loaded on first use (``dataplane.Simulator``), so the pure-Python parts of the
project work -- and report a clear error -- before ``make build`` has run.

Errors from the C core (a negative errno) are raised as ``DataplaneError``,
an ``OSError`` whose message names the C function and the errno symbol.
"""
from __future__ import annotations

import errno as _errno
import os as _os
from typing import Any

ABI_VERSION = 4  # must equal JBOF_ABI_VERSION in csrc/include/jbof.h


class DataplaneError(OSError):
    """A C function returned a negative errno: ``jbof_sim_create: EINVAL (Invalid argument)``."""

    def __init__(self, rc: int, func: str, detail: str = "") -> None:
        code = -rc if rc < 0 else rc
        self.func = func
        self.errname = _errno.errorcode.get(code, f"E{code}")
        text = f"{func}: {self.errname} ({_os.strerror(code)})"
        super().__init__(code, text + (f": {detail}" if detail else ""))

    def __str__(self) -> str:
        return str(self.args[1])


def check(rc: int, func: str, detail: str = "") -> int:
    """Return rc if >= 0, else raise DataplaneError naming func and the errno."""
    if rc < 0:
        raise DataplaneError(rc, func, detail)
    return rc


def extension_available() -> bool:
    """True if the compiled extension imports (``make build`` has run)."""
    try:
        import dataplane._jbof  # noqa: F401
    except ImportError:
        return False
    return True


_LAZY = {"Simulator": "dataplane.sim", "SimResult": "dataplane.sim",
         "TenantResult": "dataplane.sim", "Latency": "dataplane.sim",
         "Engine": "dataplane.engine"}


def __getattr__(name: str) -> Any:
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'dataplane' has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(mod), name)


__all__ = ["ABI_VERSION", "DataplaneError", "check", "extension_available", *_LAZY]
