"""The tune index: the best settings found per drive and mix signature, so a mix seen
before is tuned without a new search (a JSON file, written atomically).
"""
from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from control.errors import ConfigError

INDEX_VERSION = 1
INDEX_ENV = "JBOF_TUNE_INDEX"


def default_index_path() -> Path:
    env = os.environ.get(INDEX_ENV)
    if env:
        return Path(env)
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "jbof" / "tune-index.json"


class Index:
    """Best configs by drive and workload signature, persisted as JSON.

    ``{"version": 1, "drives": {DRIVE: {SIGNATURE: {"knobs": {...},
    "objective": J, "period_s": P, "trials": N, "updated_unix": T}}}}``.
    With ``path=None`` it lives in memory only."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.drives: dict[str, dict[str, dict[str, Any]]] = {}
        if path is not None and path.exists():
            self._load(path)

    def _load(self, path: Path) -> None:
        src = str(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigError(src, "", f"cannot read the tune index: {e}") from None
        except json.JSONDecodeError as e:
            raise ConfigError(src, f"line {e.lineno}", f"not JSON ({e.msg}); "
                              "remove the file to start a new index") from None
        if not isinstance(data, dict) or data.get("version") != INDEX_VERSION \
                or not isinstance(data.get("drives"), dict):
            raise ConfigError(src, "version", f"not a version {INDEX_VERSION} tune index "
                              "(remove the file to start a new one)")
        for drive, entries in data["drives"].items():
            if not isinstance(entries, dict) or not all(
                    isinstance(e, dict) and isinstance(e.get("knobs"), dict)
                    for e in entries.values()):
                raise ConfigError(src, f"drives.{drive}", "entries must map a signature to "
                                  "{knobs: {...}, objective: ...}")
            self.drives[str(drive)] = {str(k): v for k, v in entries.items()}

    def get(self, drive: str, signature: str) -> dict[str, Any] | None:
        return self.drives.get(drive, {}).get(signature)

    def put(self, drive: str, signature: str, entry: Mapping[str, Any]) -> None:
        self.drives.setdefault(drive, {})[signature] = dict(entry)
        self.save()

    def save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        doc = {"version": INDEX_VERSION, "drives": self.drives}
        fd, tmp = tempfile.mkstemp(prefix=".tune-index.", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=1, sort_keys=True)
                f.write("\n")
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
