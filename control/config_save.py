"""``jbof config save`` and ``jbof config diff``: the running config against a file.

``save_over`` writes the running config's document into an existing config
file with ruamel.yaml's round trip, so the operator's comments, key order and
spellings survive: a value is written only where the running config differs
from what the file already means (``1000us`` stays ``1000us`` when the running
value is ``1ms``; a ``class:`` the file left to its default stays absent).
Drives and tenants are matched by name; new ones are appended, removed ones
dropped.  ``diff_text`` is a unified diff of the two normalized documents.
"""
from __future__ import annotations

import difflib
import io
import re
from pathlib import Path
from typing import Any

import yaml

from control.config import load_config
from control.config_export import document
from control.errors import ConfigError
from control.state import write_atomic

__all__ = ["diff_text", "normalized_yaml", "save_new", "save_over"]


def normalized_yaml(doc: dict[str, Any]) -> str:
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=False, width=100,
                          allow_unicode=True)


def diff_text(file_path: str, running: dict[str, Any]) -> str:
    """Unified diff file -> running of the normalized documents ('' when the same).
    A tenant's ``offset`` the file does not give is left out: the daemon records
    where it placed each namespace (control/state.py), which is not a change."""
    file_doc = document(load_config(file_path))
    given = {t["name"] for t in file_doc.get("tenants", []) if "offset" in t}
    running = {**running, "tenants": [
        t if t.get("name") in given else {k: v for k, v in t.items() if k != "offset"}
        for t in running.get("tenants", [])]}
    a = normalized_yaml(file_doc).splitlines(keepends=True)
    b = normalized_yaml(running).splitlines(keepends=True)
    return "".join(difflib.unified_diff(a, b, f"{file_path} (file)", "running (daemon)"))


def _merge(raw: Any, new: Any, old: Any) -> Any:
    """raw (round-trip node of the file) updated to mean ``new``; ``old`` is what raw
    means now (its normalized document).  Returns the node to store."""
    if isinstance(new, dict) and isinstance(raw, dict) and isinstance(old, dict):
        for k in [k for k in raw if k not in new and k in old]:
            del raw[k]
        for k, v in new.items():
            if k in raw:
                if v != old.get(k):
                    raw[k] = _merge(raw[k], v, old.get(k))
            elif v != old.get(k):
                raw[k] = v
        return raw
    if isinstance(new, list) and isinstance(raw, list) and isinstance(old, list) \
            and all(isinstance(x, dict) and "name" in x for x in new + old) \
            and all(isinstance(x, dict) for x in raw):
        old_by = {x["name"]: x for x in old}
        raw_by = {x.get("name"): x for x in raw}
        new_names = [x["name"] for x in new]
        for i in reversed(range(len(raw))):        # drop the removed ones, comments kept
            if raw[i].get("name") not in new_names:
                del raw[i]
        for x in new:
            if x["name"] in raw_by and x["name"] in old_by:
                _merge(raw_by[x["name"]], x, old_by[x["name"]])
            else:
                raw.append(x)
        return raw
    return new if new != old else raw


def save_over(path: str, running: dict[str, Any]) -> bool:
    """Write ``running`` into the config file at path, comments kept; False when the
    file already means the same (nothing written).  ConfigError when the result does
    not read back as the running config (the file is then untouched)."""
    from ruamel.yaml import YAML

    old = document(load_config(path))
    if normalized_yaml(old) == normalized_yaml(running):
        return False
    rt = YAML()
    rt.preserve_quotes = True
    rt.width = 100
    p = Path(path)
    original = p.read_text(encoding="utf-8")
    if re.search(r"^\s+- ", original, re.M) and not re.search(r"^- ", original, re.M) \
            and re.search(r"^[a-z_]+:\s*\n  - ", original, re.M):
        rt.indent(mapping=2, sequence=4, offset=2)     # "tenants:\n  - name: a" (indented)
    else:
        rt.indent(mapping=2, sequence=2, offset=0)     # "tenants:\n- name: a"
    raw = rt.load(original)
    if raw is None:
        raw = {}
    merged = _merge(raw, running, old)
    buf = io.StringIO()
    rt.dump(merged, buf)
    text = buf.getvalue()
    _check_means(text, running, path)
    write_atomic(p, text, p.stat().st_mode & 0o7777)
    return True


def save_new(path: str, yaml_text: str, running: dict[str, Any]) -> None:
    """Write the running config to a new file (or over one not to be merged)."""
    _check_means(yaml_text, running, path)
    p = Path(path)
    write_atomic(p, yaml_text, 0o644)


def _check_means(text: str, running: dict[str, Any], path: str) -> None:
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        got = document(load_config(f.name))
    if normalized_yaml(got) != normalized_yaml(running):
        raise ConfigError(path, "", "internal error: the merged file would not read back as "
                          "the running config; nothing written (use --to NEW_FILE)")
