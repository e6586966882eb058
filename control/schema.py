"""The one way configuration files are described and read: typed parsers, ``Key``
tables, the strict YAML loader, and the plain-text key reference.

Scenario files (control/scenario.py), the daemon config (control/config.py),
the forecast section (control/lending/forecast_server.py), the planner and the
training-cluster scenarios all declare their keys as ``Key`` tables (``section``)
and read a mapping with ``read_section``: one ``ConfigError`` line naming the
file, the key path and what is allowed.  Units: docs/design.md#units.

``load_yaml`` is the one YAML reader of the control plane (configs, scenarios,
training-cluster scenarios).  A config file may come from anywhere, so it is
bounded before anything walks it -- each bound a one-line ConfigError, never a
hang, a MemoryError or a RecursionError:

  * ``MAX_YAML_BYTES`` (16 MiB): the largest real file is a few KiB;
  * ``MAX_YAML_DEPTH`` (64 levels of mappings/sequences, aliases included):
    real files nest 4-5 deep; Python's recursion limit (1000) would be hit
    near 300;
  * ``MAX_YAML_ALIASES`` (100 ``*alias`` uses) and ``MAX_YAML_NODES`` (100 000
    nodes once every alias is expanded): PyYAML shares an aliased object, so
    a 578-byte "billion laughs" file loads as a few dozen objects, but
    validating or printing it visits 10^9 of them.  Nodes are counted on the
    composed graph (each shared node once, memoised), so refusing costs
    O(file size).  Recursive aliases (``&a [*a]``) are refused.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

import yaml

from control import units
from control.errors import ConfigError

# ----------------------------------------------------------------- parsers ---
# Each parser takes the raw YAML value and returns the typed value or raises
# ValueError with a message that needs only the key path in front of it.

Parser = Callable[[Any], Any]


def tenant_class(klass: str | None, latency_slo: float, reserve: int) -> str:
    """A tenant's class: the one given, else latency with an SLO, reserved with a
    reserve, else best-effort."""
    return klass or ("latency" if latency_slo else "reserved" if reserve else "best-effort")


def check_tenant_class(src: str, where: str, klass: str | None, latency_slo: float, reserve: int,
                       limit: int) -> None:
    """The class / reserve / limit consistency every tenant must have (daemon config,
    scenario files, admin changes): a ConfigError naming the key, else None."""
    if reserve and limit and reserve > limit:
        raise ConfigError(src, f"{where}.reserve", f"{units.format_rate(reserve)} is above "
                          f"limit {units.format_rate(limit)}")
    if klass == "latency" and not latency_slo:
        raise ConfigError(src, f"{where}.class", "class latency needs latency_slo")
    if klass == "reserved" and not reserve:
        raise ConfigError(src, f"{where}.class", "class reserved needs reserve")


def show(v: Any) -> str:
    text = repr(v) if isinstance(v, str) else str(v)
    return text if len(text) <= 40 else text[:37] + "..."


def p_str(v: Any) -> str:
    if not isinstance(v, str):
        raise ValueError(f"{show(v)} is not a string")
    return v


NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def p_name(v: Any) -> str:
    if not isinstance(v, str) or not NAME_RE.fullmatch(v):
        raise ValueError(f"{show(v)} is not a name (letters, digits, '_', '.', '-'; up to 64)")
    return v


def p_bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise ValueError(f"{show(v)} is not a boolean (true or false)")
    return v


def p_int(lo: int, hi: int) -> Parser:
    def parse(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            if isinstance(v, str) and re.fullmatch(r"\d+", v.strip()):
                v = int(v)
            else:
                raise ValueError(f"{show(v)} is not an integer (allowed: {lo}..{hi})")
        if not lo <= v <= hi:
            raise ValueError(f"{v} is out of range (allowed: {lo}..{hi})")
        return int(v)
    return parse


def p_choice(options: tuple[str, ...], aliases: Mapping[str, str] | None = None) -> Parser:
    def parse(v: Any) -> str:
        if isinstance(v, str):
            v2 = (aliases or {}).get(v, v)
            if v2 in options:
                return v2
        raise ValueError(f"{show(v)} is not allowed (allowed: {', '.join(options)})")
    return parse


def p_size(lo: int = 0, hi: int = units.U64_MAX, multiple: int = 1,
           show_multiple: Callable[[int], str] = lambda m: f"{m} bytes",
           bare_bytes: bool = False) -> Parser:
    """A size in lo..hi bytes, a multiple of ``multiple`` (named by ``show_multiple``).

    ``bare_bytes``: a plain number is bytes (IO block sizes, as in fio's ``bs=4096``);
    otherwise a unit is required."""
    def parse(v: Any) -> int:
        n = units.parse_size(v, bare_bytes=bare_bytes)
        if not lo <= n <= hi:
            raise ValueError(f"{show(v)} is out of range (allowed: "
                             f"{units.format_size(lo)}..{units.format_size(hi)})")
        if n % multiple:
            raise ValueError(f"{show(v)} is not a multiple of {show_multiple(multiple)}")
        return n
    return parse


def p_duration(positive: bool = False) -> Parser:
    """A duration with its unit (a bare number is refused; zero needs none)."""
    def parse(v: Any) -> int:
        ns = units.parse_duration_ns(v)
        if positive and ns == 0:
            raise ValueError(f"{show(v)} must be longer than zero ({units.DURATION_EXAMPLES})")
        return ns
    return parse


def p_rate(v: Any) -> int:
    return units.parse_rate(v)


def p_iops(v: Any) -> int:
    return units.parse_iops(v)


def p_percent_int(v: Any) -> int:
    pct = units.parse_percent(v)
    if pct != int(pct):
        raise ValueError(f"{show(v)} is not a whole percentage (allowed: 0..100)")
    return int(pct)


def p_percent(v: Any) -> float:
    return units.parse_percent(v)


# ------------------------------------------------------------------- keys ---

@dataclass(frozen=True)
class Key:
    name: str
    kind: str           # the value's type in words, for the docs
    parse: Parser
    doc: str
    default: Any = None
    required: bool = False


def section(*keys: Key) -> dict[str, Key]:
    return {k.name: k for k in keys}


UNITS_HELP = ("(units required: sizes 4k=4KiB, KB/MB/GB are SI, a bare number only\n"
              "for block sizes (bytes, as fio); durations 500us, 1.5ms, 5s; rates 200MiB/s;\n"
              "iops 50k; 0 needs no unit).  Defaults in [brackets].")


def render_keys(header: str, sections: tuple[tuple[str, dict[str, Key]], ...], width: int = 13,
                inherited: Callable[[dict[str, Key], Key], bool] = lambda keys, k: False) -> str:
    """Key tables as a plain-text reference (``jbof sim --keys``, ``jbof config keys``)."""
    lines = [header]
    for title, keys in sections:
        lines.append("")
        lines.append(f"{title}:")
        for k in keys.values():
            req = " (required)" if k.required else ""
            shown = str(k.default).lower() if isinstance(k.default, bool) else k.default
            dflt = f" [{shown}]" if k.default not in (None, {}, "") else ""
            if inherited(keys, k):
                dflt = " [the workload's]"
            lines.append(f"  {k.name:<{width}} {k.kind:<9} {k.doc}{req}{dflt}")
    return "\n".join(lines)


# -------------------------------------------------------------- validation ---

def describe(v: Any) -> str:
    """A raw value in words for an error message: "a mapping", "a list", "nothing" or the value."""
    if isinstance(v, dict):
        return "a mapping"
    if isinstance(v, list):
        return "a list"
    if v is None:
        return "nothing"
    return show(v)


def read_section(data: Any, keys: dict[str, Key], src: str, where: str,
          optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """Check one mapping against its Key table; return the parsed values (only keys given).

    Keys named in ``optional`` are not required even if the table says so."""
    if not isinstance(data, dict):
        raise ConfigError(src, where, f"expected a mapping of keys, got {describe(data)}")
    out: dict[str, Any] = {}
    for raw_key, raw in data.items():
        path = f"{where}.{raw_key}" if where else str(raw_key)
        key = keys.get(raw_key) if isinstance(raw_key, str) else None
        if key is None:
            close = difflib.get_close_matches(str(raw_key), list(keys), n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise ConfigError(src, path, f"unknown key; {hint}(allowed: {', '.join(keys)})")
        if raw is None:
            raise ConfigError(src, path, "has no value (remove the key or give one)")
        try:
            out[raw_key] = key.parse(raw)
        except ValueError as e:
            raise ConfigError(src, path, str(e)) from None
    for key in keys.values():
        if key.required and key.name not in out and key.name not in optional:
            raise ConfigError(src, f"{where}.{key.name}" if where else key.name, "is required")
    return out


def key_default(keys: dict[str, Key], name: str) -> Any:
    """A key's documented default, parsed (so the docs and the code cannot disagree)."""
    d = keys[name].default
    return keys[name].parse(d) if isinstance(d, str) else d


# -------------------------------------------------------------------- YAML ---

MAX_YAML_BYTES = 16 << 20
MAX_YAML_DEPTH = 64
MAX_YAML_ALIASES = 100
MAX_YAML_NODES = 100_000


class _YamlLimit(yaml.YAMLError):
    """A bound of the module docstring exceeded (the message is the one line)."""


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys (PyYAML silently keeps the last) and
    the bounds of the module docstring (depth, aliases, expanded size)."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_YAML_ALIASES:
                raise _YamlLimit(f"more than {MAX_YAML_ALIASES} YAML aliases")
            return super().compose_node(parent, index)
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise _YamlLimit(f"YAML nesting deeper than {MAX_YAML_DEPTH} levels")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def get_single_node(self) -> Any:
        node = super().get_single_node()
        if node is not None:
            _measure(node, 1, {}, set())
        return node


def _measure(node: Any, depth: int, memo: dict[int, tuple[int, int]],
             path: set[int]) -> tuple[int, int]:
    """(expanded node count, height) of a composed node; _YamlLimit past a bound.
    Shared (aliased) nodes are measured once; recursion depth <= MAX_YAML_DEPTH."""
    key = id(node)
    if key in memo:
        count, height = memo[key]
    else:
        if key in path:
            raise _YamlLimit("recursive YAML alias (a node that contains itself)")
        if depth > MAX_YAML_DEPTH:
            raise _YamlLimit(f"YAML nesting deeper than {MAX_YAML_DEPTH} levels (through aliases)")
        count, height = 1, 1
        if isinstance(node, (yaml.SequenceNode, yaml.MappingNode)):
            path.add(key)
            kids = node.value if isinstance(node, yaml.SequenceNode) else \
                [n for pair in node.value for n in pair]
            for kid in kids:
                c, h = _measure(kid, depth + 1, memo, path)
                count += c
                height = max(height, h + 1)
                if count > MAX_YAML_NODES:
                    raise _YamlLimit(f"YAML expands to more than {MAX_YAML_NODES} nodes "
                                     "(aliases)")
            path.discard(key)
        memo[key] = (count, height)
    if depth - 1 + height > MAX_YAML_DEPTH:
        raise _YamlLimit(f"YAML nesting deeper than {MAX_YAML_DEPTH} levels (through aliases)")
    return count, height


def _mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    out: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, "a key must be a plain value", key_node.start_mark) from None
        if key in out:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {show(key)}", key_node.start_mark)
        out[key] = loader.construct_object(value_node, deep=True)
    return out


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def load_yaml(path: str | Path) -> Any:
    """Read a YAML file; every failure is a one-line ConfigError naming the file."""
    src = str(path)
    p = Path(path)
    try:
        with p.open("rb") as f:
            raw = f.read(MAX_YAML_BYTES + 1)
        if len(raw) > MAX_YAML_BYTES:
            raise ConfigError(src, "", f"larger than {MAX_YAML_BYTES >> 20} MiB "
                              "(not a config file)")
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(src, "", "no such file") from None
    except IsADirectoryError:
        raise ConfigError(src, "", "is a directory, not a scenario file") from None
    except UnicodeDecodeError:
        raise ConfigError(src, "", "is not UTF-8 text") from None
    except OSError as e:
        raise ConfigError(src, "", f"cannot read: {e.strerror or e}") from None
    try:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 (SafeLoader subclass)
    except _YamlLimit as e:
        raise ConfigError(src, "", str(e)) from None
    except RecursionError:        # cannot happen within the bounds; never a traceback
        raise ConfigError(src, "", f"YAML nesting deeper than {MAX_YAML_DEPTH} levels") from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        what = e.problem or e.context or "invalid YAML"
        raise ConfigError(src, where, f"bad YAML: {what}") from None
    except yaml.YAMLError as e:
        raise ConfigError(src, "", f"bad YAML: {e}") from None
