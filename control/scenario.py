"""Scenario files (docs/design.md#scenarios): load, validate, return typed dataclasses.

A scenario names a device, a duration and tenants whose workloads use fio's
vocabulary.  One schema -- the ``Key`` tables below -- drives validation, the
defaults and the documentation (``schema_text()``, shown by ``jbof sim --keys``).
Every error is one ``ConfigError`` line naming the file, the key path and what
is allowed, e.g.::

    s.yaml: tenants[1].workload.bs: '4x' is not a size (examples: 4k, 128KiB, 1MiB)

Conventions (also in the module docs of control/units.py):
  * sizes are binary (``4k`` = 4096), ``KB``/``MB``/``GB`` are SI (1000-based);
  * a bare number for a duration is seconds, except ``thinktime`` which needs a
    unit (fio reads a bare thinktime as microseconds; we refuse to guess);
  * defaults follow fio where fio has one (rw=read, bs=4k, iodepth=1, rwmixread=50).

Phases: a tenant's ``phases`` list runs in order, each phase a ``duration`` plus
overrides of the tenant's ``workload`` keys (or ``idle: true``); ``loop_phases``
cycles them.  Giving ``bs`` or ``bssplit`` in a phase replaces both of the
base's; likewise ``rate``/``rate_iops`` and ``rwmixread``/``rwmixwrite``.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from control import units
from control.errors import ConfigError
from control.schema import (
    NAME_RE,
    Key,
    UNITS_HELP,
    check_tenant_class,
    describe,
    key_default,
    load_yaml,
    p_bool,
    p_choice,
    p_duration,
    p_int,
    p_iops,
    p_name,
    p_percent,
    p_percent_int,
    p_rate,
    p_size,
    p_str,
    read_section,
    render_keys,
    section,
    show,
    tenant_class,
)

# Names in the order of the C enums (csrc/include/jbof.h); tests check they agree.
POLICIES = ("fifo", "rr", "token-bucket", "drr", "gimbal", "qos")
RW_MODES = ("read", "write", "randread", "randwrite", "rw", "randrw")
RW_ALIASES = {"readwrite": "rw"}
CLASSES = ("latency", "reserved", "best-effort", "scavenger")
DEVICE_STATES = ("clean", "fragmented")

MAX_PHASES = 16       # JBOF_WL_MAX_PHASES
MAX_BSSPLIT = 8       # JBOF_WL_MAX_BS
MAX_TENANTS = 1024     # the simulator's limit (sim.c)
SECTOR_BYTES = 512
MAX_BS_BYTES = 16 * 1024 * 1024
DEFAULT_MODEL = "dct983"


# ------------------------------------------------------------ typed output ---

@dataclass(frozen=True)
class Phase:
    """One workload phase in C units (jbof_wl_phase)."""
    duration_ns: int                        # 0 = until the end
    idle: bool
    rw: str                                 # one of RW_MODES
    rwmixread: int                          # percent of reads for rw/randrw
    bssplit: tuple[tuple[int, int], ...]    # (block size bytes, percent), sums to 100
    iodepth: int
    rate_bps: int                           # open loop bytes/s (0 = closed loop)
    rate_iops: int                          # open loop IOs/s (0 = closed loop)
    thinktime_ns: int

    @property
    def open_loop(self) -> bool:
        return not self.idle and (self.rate_bps > 0 or self.rate_iops > 0)


@dataclass(frozen=True)
class Workload:
    """A tenant's IO generator (jbof_wl)."""
    phases: tuple[Phase, ...]
    loop: bool = False
    startdelay_ns: int = 0
    runtime_ns: int = 0                     # 0 = until the simulation ends
    size_bytes: int = 8 << 30               # namespace size (offset range)

    @property
    def open_loop(self) -> bool:
        """True if every active phase is rate-driven (never backlogged by design)."""
        active = [p for p in self.phases if not p.idle]
        return bool(active) and all(p.open_loop for p in active)


@dataclass(frozen=True)
class Tenant:
    name: str
    klass: str                              # one of CLASSES
    weight: int
    reserve_bps: int
    limit_bps: int
    limit_iops: int
    latency_slo_ns: int                     # 0 = none
    sq_depth: int | None                    # None = the C default
    workload: Workload | None               # None only where no workload is needed (daemon)


@dataclass(frozen=True)
class Device:
    model: str
    state: str | None                       # clean | fragmented | None = as the preset ships
    fragmentation_pct: float | None         # explicit override of the state's level
    capacity_bytes: int | None


@dataclass(frozen=True)
class Scenario:
    name: str
    source: str
    description: str
    device: Device
    duration_ns: int
    seed: int
    policy: str | None
    tenants: tuple[Tenant, ...]

    @property
    def duration_s(self) -> float:
        return self.duration_ns / 1e9

    def tenant(self, name: str) -> Tenant:
        for t in self.tenants:
            if t.name == name:
                return t
        raise KeyError(name)


MAX_WL_RATE_BPS = 1 << 40     # what the workload generator accepts (wl.c)
MAX_WL_RATE_IOPS = 1 << 30


def p_wl_rate(v: Any) -> int:
    n = units.parse_rate(v)
    if n > MAX_WL_RATE_BPS:
        raise ValueError(f"{show(v)} is out of range (allowed: 0..1TiB/s)")
    return n


def p_wl_iops(v: Any) -> int:
    n = units.parse_iops(v)
    if n > MAX_WL_RATE_IOPS:
        raise ValueError(f"{show(v)} is out of range (allowed: 0..{MAX_WL_RATE_IOPS})")
    return n


_BS = p_size(SECTOR_BYTES, MAX_BS_BYTES, SECTOR_BYTES, bare_bytes=True)  # fio: bs=4096


def p_bssplit(v: Any) -> tuple[tuple[int, int], ...]:
    """fio's ``4k/50:64k/50``, or a list of ``"4k/50"`` strings or ``{bs, pct}`` maps."""
    if isinstance(v, str):
        items: list[Any] = [s for s in v.split(":")]
    elif isinstance(v, list):
        items = v
    else:
        raise ValueError(f"{show(v)} is not a bssplit (examples: '4k/50:64k/50', "
                         "['4k/50', '64k/50'])")
    if not items or len(items) > MAX_BSSPLIT:
        raise ValueError(f"bssplit needs 1..{MAX_BSSPLIT} entries, got {len(items)}")
    out: list[tuple[int, int]] = []
    for item in items:
        if isinstance(item, str) and item.count("/") == 1:
            bs_raw, pct_raw = (s.strip() for s in item.split("/"))
        elif isinstance(item, dict) and set(item) == {"bs", "pct"}:
            bs_raw, pct_raw = item["bs"], item["pct"]
        else:
            raise ValueError(f"bssplit entry {show(item)} is not SIZE/PERCENT "
                             "(examples: '4k/50', {bs: 4k, pct: 50})")
        try:
            bs = _BS(bs_raw)
        except ValueError as e:
            raise ValueError(f"bssplit entry {show(item)}: {e}") from None
        try:
            pct = p_percent_int(pct_raw)
        except ValueError as e:
            raise ValueError(f"bssplit entry {show(item)}: {e}") from None
        out.append((bs, pct))
    total = sum(p for _, p in out)
    if total != 100:
        raise ValueError(f"bssplit percentages sum to {total}, not 100")
    return tuple(out)


# ------------------------------------------------------------------ schema ---

SCENARIO_KEYS = section(
    Key("name", "name", p_name, "scenario name (default: the file name without .yaml)"),
    Key("description", "string", p_str, "free text", ""),
    Key("device", "mapping", lambda v: v, "the drive: see device keys", {}),
    Key("duration", "duration", p_duration(positive=True), "virtual time to simulate", "5s"),
    Key("seed", "integer", p_int(0, 2**63 - 1), "random seed (same seed, same result)", 1),
    Key("policy", "policy", p_choice(POLICIES), "default policy if the CLI gives none "
        f"({', '.join(POLICIES)})"),
    Key("tenants", "list", lambda v: v, "the tenants: see tenant keys", required=True),
)

DEVICE_KEYS = section(
    Key("model", "preset", p_name, "SSD model preset (e.g. dct983)", DEFAULT_MODEL),
    Key("state", "choice", p_choice(DEVICE_STATES), "starting state: clean or fragmented "
        "(fragmented = steady state after sustained random writes; default: the preset's)"),
    Key("fragmentation", "percent", p_percent, "starting fragmentation level "
        "(0% = clean .. 100% = fully fragmented); overrides state"),
    Key("capacity", "size", p_size(1 << 20), "override the preset's capacity"),
)

TENANT_KEYS = section(
    Key("name", "name", p_name, "unique tenant name", required=True),
    Key("class", "choice", p_choice(CLASSES), "latency | reserved | best-effort | scavenger "
        "(default: latency if latency_slo is set, else reserved if reserve is set, "
        "else best-effort)"),
    Key("weight", "integer", p_int(1, 10000), "share of what remains after reservations", 1),
    Key("reserve", "rate", p_rate, "minimum rate, bytes/s (0 = none)", 0),
    Key("limit", "rate", p_rate, "maximum rate, bytes/s (0 = none)", 0),
    Key("limit_iops", "iops", p_iops, "maximum IOs/s (0 = none)", 0),
    Key("latency_slo", "duration", p_duration(positive=True),
        "end-to-end latency target; the tenant meets it when its p99 <= this"),
    Key("sq_depth", "integer", p_int(1, 65536), "submission queue credits (default: the C default)"),
    Key("workload", "mapping", lambda v: v, "fio-like workload: see workload keys", required=True),
    Key("phases", "list", lambda v: v, f"up to {MAX_PHASES} phases: see phase keys"),
    Key("loop_phases", "boolean", p_bool, "cycle through the phases until the end", False),
)

_PHASE_WORKLOAD_KEYS = (
    Key("rw", "choice", p_choice(RW_MODES, RW_ALIASES),
        "read | write | randread | randwrite | rw (alias readwrite) | randrw", "read"),
    Key("rwmixread", "percent", p_percent_int, "percent of reads for rw/randrw", 50),
    Key("rwmixwrite", "percent", p_percent_int, "percent of writes (= 100 - rwmixread)"),
    Key("bs", "size", _BS, f"block size, a multiple of {SECTOR_BYTES} up to 16MiB", "4k"),
    Key("bssplit", "bssplit", p_bssplit, "block size mix, fio syntax '4k/50:64k/50' or a "
        "list; percentages sum to 100; replaces bs"),
    Key("iodepth", "integer", p_int(1, 65536), "max outstanding IOs (closed loop depth)", 1),
    Key("rate", "rate", p_wl_rate, "open loop: issue this many bytes/s (0 = closed loop)", 0),
    Key("rate_iops", "iops", p_wl_iops, "open loop: issue this many IOs/s (0 = closed loop)", 0),
    Key("thinktime", "duration", p_duration(),
        "pause after each completion before the next issue (unit required)", 0),
)

WORKLOAD_KEYS = section(
    *_PHASE_WORKLOAD_KEYS,
    Key("startdelay", "duration", p_duration(), "start this long after time 0", 0),
    Key("runtime", "duration", p_duration(), "stop after this long (0 = until the end)", 0),
    Key("size", "size", p_size(4096, 1 << 50), "offset range the IOs cover (the tenant's namespace)",
        "8GiB"),
)

PHASE_KEYS = section(
    Key("duration", "duration", p_duration(positive=True),
        "how long the phase lasts (only the last phase may omit it: until the end)"),
    Key("idle", "boolean", p_bool, "issue nothing during this phase", False),
    *_PHASE_WORKLOAD_KEYS,
)

SECTIONS: tuple[tuple[str, dict[str, Key]], ...] = (
    ("scenario", SCENARIO_KEYS),
    ("device", DEVICE_KEYS),
    ("tenants[]", TENANT_KEYS),
    ("tenants[].workload", WORKLOAD_KEYS),
    ("tenants[].phases[]", PHASE_KEYS),
)


def schema_text() -> str:
    """The scenario keys as a plain-text reference (``jbof sim --keys``)."""
    return render_keys(f"Scenario file keys {UNITS_HELP}", SECTIONS,
                       inherited=lambda keys, k: keys is PHASE_KEYS and k.name in WORKLOAD_KEYS)


# -------------------------------------------------------------- validation ---

def _mix(given: dict[str, Any], src: str, where: str) -> int | None:
    if "rwmixread" in given and "rwmixwrite" in given:
        raise ConfigError(src, f"{where}.rwmixwrite", "give rwmixread or rwmixwrite, not both")
    if "rwmixwrite" in given:
        return 100 - int(given["rwmixwrite"])
    mix = given.get("rwmixread")
    return None if mix is None else int(mix)


def _exclusive(given: dict[str, Any], a: str, b: str, src: str, where: str) -> None:
    if a in given and b in given:
        raise ConfigError(src, f"{where}.{b}", f"give {a} or {b}, not both")


def _phase_fields(given: dict[str, Any], base: dict[str, Any], src: str, where: str) -> dict[str, Any]:
    """Effective phase fields: base overridden by given (grouped keys replace together)."""
    _exclusive(given, "bs", "bssplit", src, where)
    _exclusive(given, "rate", "rate_iops", src, where)
    out = dict(base)
    if "rw" in given:
        out["rw"] = given["rw"]
    mix = _mix(given, src, where)
    if mix is not None:
        out["rwmixread"] = mix
    if "bs" in given:
        out["bssplit"] = ((given["bs"], 100),)
    if "bssplit" in given:
        out["bssplit"] = given["bssplit"]
    if "rate" in given or "rate_iops" in given:
        out["rate_bps"] = given.get("rate", 0)
        out["rate_iops"] = given.get("rate_iops", 0)
    if "iodepth" in given:
        out["iodepth"] = given["iodepth"]
    if "thinktime" in given:
        out["thinktime_ns"] = given["thinktime"]
    return out


def parse_workload(data: Any, src: str = "<workload>", where: str = "workload",
                   phases: Any = None, loop: bool = False,
                   phases_where: str = "phases") -> Workload:
    """Validate a workload mapping (plus an optional phases list) into a Workload."""
    w = read_section(data, WORKLOAD_KEYS, src, where)
    base = _phase_fields(w, {
        "rw": key_default(WORKLOAD_KEYS, "rw"),
        "rwmixread": key_default(WORKLOAD_KEYS, "rwmixread"),
        "bssplit": ((key_default(WORKLOAD_KEYS, "bs"), 100),),
        "iodepth": key_default(WORKLOAD_KEYS, "iodepth"),
        "rate_bps": 0, "rate_iops": 0, "thinktime_ns": 0,
    }, src, where)
    out_phases: list[Phase] = []
    if phases is None:
        out_phases.append(Phase(duration_ns=0, idle=False, **base))
    else:
        if not isinstance(phases, list) or not phases:
            raise ConfigError(src, phases_where, f"expected a list of 1..{MAX_PHASES} phases, "
                              f"got {describe(phases)}")
        if len(phases) > MAX_PHASES:
            raise ConfigError(src, phases_where, f"has {len(phases)} phases (allowed: 1..{MAX_PHASES})")
        for i, raw in enumerate(phases):
            pw = f"{phases_where}[{i}]"
            given = read_section(raw, PHASE_KEYS, src, pw)
            last = i == len(phases) - 1
            if "duration" not in given and (not last or loop):
                why = "when loop_phases is true" if loop else "except in the last phase"
                raise ConfigError(src, f"{pw}.duration", f"is required {why}")
            fields = _phase_fields(given, base, src, pw)
            out_phases.append(Phase(duration_ns=given.get("duration", 0),
                                    idle=given.get("idle", False), **fields))
    if loop and phases is None:
        raise ConfigError(src, phases_where.replace("phases", "loop_phases"),
                          "loop_phases needs a phases list")
    size = w.get("size", key_default(WORKLOAD_KEYS, "size"))
    largest = max(bs for p in out_phases for bs, _ in p.bssplit)
    if largest > size:
        raise ConfigError(src, f"{where}.size", f"{units.format_size(size)} is smaller than the "
                          f"largest block size {units.format_size(largest)}")
    return Workload(phases=tuple(out_phases), loop=loop,
                    startdelay_ns=w.get("startdelay", 0), runtime_ns=w.get("runtime", 0),
                    size_bytes=size)


def parse_tenant(data: Any, src: str, where: str, require_workload: bool = True) -> Tenant:
    """Validate one tenant mapping (shared with the daemon config's tenants list)."""
    t = read_section(data, TENANT_KEYS, src, where, optional=() if require_workload else ("workload",))
    reserve, limit = t.get("reserve", 0), t.get("limit", 0)
    slo = t.get("latency_slo", 0)
    klass = tenant_class(t.get("class"), slo, reserve)
    check_tenant_class(src, where, klass, slo, reserve, limit)
    if "loop_phases" in t and "phases" not in t:
        raise ConfigError(src, f"{where}.loop_phases", "loop_phases needs a phases list")
    workload = None
    if "workload" in t:
        workload = parse_workload(t["workload"], src, f"{where}.workload",
                                  phases=t.get("phases"), loop=t.get("loop_phases", False),
                                  phases_where=f"{where}.phases")
    return Tenant(name=t["name"], klass=klass, weight=t.get("weight", 1),
                  reserve_bps=reserve, limit_bps=limit, limit_iops=t.get("limit_iops", 0),
                  latency_slo_ns=slo, sq_depth=t.get("sq_depth"), workload=workload)


def parse_tenants(data: Any, src: str, where: str = "tenants",
                  require_workload: bool = True) -> tuple[Tenant, ...]:
    if not isinstance(data, list) or not data:
        raise ConfigError(src, where, f"expected a list of tenants, got {describe(data)}")
    if len(data) > MAX_TENANTS:
        raise ConfigError(src, where, f"has {len(data)} tenants (allowed: 1..{MAX_TENANTS})")
    out: list[Tenant] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(data):
        t = parse_tenant(raw, src, f"{where}[{i}]", require_workload)
        if t.name in seen:
            raise ConfigError(src, f"{where}[{i}].name",
                              f"'{t.name}' is already the name of {where}[{seen[t.name]}]")
        seen[t.name] = i
        out.append(t)
    return tuple(out)


def known_models() -> tuple[str, ...] | None:
    """Preset names from the C core, or None if the extension is not built."""
    try:
        from dataplane.sim import preset_names
    except ImportError:
        return None
    return preset_names()


def parse_device(data: Any, src: str, where: str = "device") -> Device:
    """A device mapping, or just a model name (``device: dct983``)."""
    if isinstance(data, str):
        data = {"model": data}
    d = read_section(data, DEVICE_KEYS, src, where)
    model = d.get("model", DEFAULT_MODEL)
    models = known_models()
    if models is not None and model not in models:
        raise ConfigError(src, f"{where}.model", f"{show(model)} is not a known model "
                          f"(allowed: {', '.join(models)})")
    if "state" in d and "fragmentation" in d:
        raise ConfigError(src, f"{where}.fragmentation", "give state or fragmentation, not both")
    return Device(model=model, state=d.get("state"),
                  fragmentation_pct=d.get("fragmentation"), capacity_bytes=d.get("capacity"))


def parse_scenario(data: Any, src: str = "<scenario>", default_name: str = "scenario") -> Scenario:
    s = read_section(data, SCENARIO_KEYS, src, "")
    return Scenario(
        name=s.get("name", default_name),
        source=src,
        description=s.get("description", ""),
        device=parse_device(s.get("device", {}), src),
        duration_ns=s.get("duration", key_default(SCENARIO_KEYS, "duration")),
        seed=s.get("seed", key_default(SCENARIO_KEYS, "seed")),
        policy=s.get("policy"),
        tenants=parse_tenants(s["tenants"], src),
    )


# -------------------------------------------------------------------- YAML ---

def load_scenario(path: str | Path) -> Scenario:
    """Load and validate a scenario file (raises ConfigError, one line)."""
    data = load_yaml(path)
    if data is None:
        raise ConfigError(str(path), "", "is empty (a scenario needs at least tenants:)")
    stem = Path(path).name
    for suffix in (".yaml", ".yml"):
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
    name = stem if NAME_RE.fullmatch(stem) else "scenario"
    return parse_scenario(data, str(path), default_name=name)
