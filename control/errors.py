"""Typed errors of the control plane.

Library code raises these; only the CLI turns them into one line on stderr and
a non-zero exit.  ``str(err)`` is always that one line.
"""
from __future__ import annotations


class JbofError(Exception):
    """An error meant for the user: its message is one complete line."""


class ConfigError(JbofError, ValueError):
    """A bad scenario/config value.

    ``str()`` reads ``SOURCE: KEY.PATH: what is wrong (what is allowed)``,
    e.g. ``s.yaml: tenants[1].workload.bs: '4x' is not a size (examples: 4k, 128KiB, 1MiB)``.
    """

    def __init__(self, source: str, path: str, message: str) -> None:
        self.source = source
        self.path = path
        self.message = " ".join(message.split())  # one line, always
        super().__init__(": ".join(p for p in (source, path, self.message) if p))
