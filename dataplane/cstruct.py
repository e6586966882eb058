"""C structs <-> Python mappings, shared by the Simulator and the Engine wrappers.

``struct_dict`` reads any cffi struct (nested structs and arrays recurse);
``set_fields`` writes integer fields from a nested mapping or dotted keys and
raises ValueError naming the field and what is allowed.
"""
from __future__ import annotations

from typing import Any, Mapping

from dataplane._jbof import ffi


def struct_dict(cdata: Any) -> dict[str, Any]:
    """A C struct (or pointer to one) as a dict; nested structs and arrays recurse."""
    t = ffi.typeof(cdata)
    if t.kind == "pointer":
        cdata, t = cdata[0], t.item
    out: dict[str, Any] = {}
    for name, fld in t.fields:
        if name.startswith("pad") or name.startswith("_"):
            continue
        v = getattr(cdata, name)
        if fld.type.kind == "struct":
            out[name] = struct_dict(v)
        elif fld.type.kind == "array":
            out[name] = list(v)
        else:
            out[name] = v
    return out


def set_fields(cdata: Any, overrides: Mapping[str, Any], what: str) -> None:
    """Set integer fields of a C struct from a mapping (nested dicts or dotted keys).

    ``{"ctl": {"lat_max_ns": 1_000_000}}`` and ``{"ctl.lat_max_ns": 1_000_000}``
    are the same.  Unknown fields and non-integers raise ValueError."""
    t = ffi.typeof(cdata)
    if t.kind == "pointer":
        cdata, t = cdata[0], t.item
    fields = dict(t.fields)
    for key, value in overrides.items():
        head, _, rest = str(key).partition(".")
        fld = fields.get(head)
        if fld is None or head == "pad":
            allowed = ", ".join(n for n in fields if n != "pad")
            raise ValueError(f"{what}: unknown field {key!r} (allowed: {allowed})")
        if fld.type.kind == "struct":
            sub = {rest: value} if rest else value
            if not isinstance(sub, Mapping):
                raise ValueError(f"{what}.{head}: expected a mapping of fields")
            set_fields(getattr(cdata, head), sub, f"{what}.{head}")
            continue
        if rest or fld.type.kind != "primitive" or isinstance(value, bool) \
                or not isinstance(value, int):
            raise ValueError(f"{what}.{key}: expected an integer, got {value!r}")
        try:
            setattr(cdata, head, value)
        except OverflowError:
            raise ValueError(f"{what}.{key}: {value} is out of range for {fld.type.cname}") from None
