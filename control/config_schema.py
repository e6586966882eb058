"""The daemon config's keys (control/config.py reads the file with them): limits, the
parsers of config-only values (modes, paths, bands, ...), the ``Key`` tables of every
section and ``schema_text()`` (``jbof config keys``).  Units: docs/design.md#units.
"""
from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from control import units
from control.lending.forecast_server import FORECAST_KEYS
from control.lending.planner import PLANNER_KEYS
from control.scenario import CLASSES, POLICIES
from control.schema import (
    UNITS_HELP,
    Key,
    p_bool,
    p_choice,
    p_duration,
    p_int,
    p_name,
    p_percent,
    p_size,
    p_str,
    render_keys,
    section,
    show,
)


BACKENDS = ("memory", "file", "emulated")


IO_MODES = ("auto", "uring", "threads")
ZERO_COSTS = ("auto", "command", "write")   # csrc/include/jbof_nbd.h enum jbof_zero_cost


MAX_DRIVES = 64                 # csrc/reactor.h MAX_DRIVES


MAX_TENANTS_PER_DRIVE = 256     # jbof_sched_default_cfg max_tenants


MAX_TENANTS = 1024              # jbof_engine_cfg max_exports default


MAX_SIZE = 1 << 50              # 1 PiB: what the Engine accepts


MAX_RATE_BPS = 1 << 40          # 1 TiB/s: what jbof_sched_tenant_set accepts


MAX_IOPS = 1 << 32


MAX_SLO_NS = 60 * 10**9


MAX_FILE_BYTES = 1 << 20        # a config file larger than this is refused


MIB = 1 << 20


DEFAULT_NBD_SOCKET = "jbof/nbd.sock"


DEFAULT_ADMIN_SOCKET = "jbof/admin.sock"


DEFAULT_ADMIN_MODE = 0o600


# Controller defaults of every policy (jbof_sched_default_cfg; tests/test_config.py
# checks they agree with the C core).
CTL_RATE_MIN_BPS = 50 * MIB


CTL_RATE_MAX_BPS = 4 << 30


CTL_RATE_INIT_BPS = 1000 * MIB


CTL_BUCKET_BYTES = 256 * 1024


CTL_MAX_RATE_BPS = 1 << 38      # ctl.c CTL_MAX_RATE_BPS


CTL_MAX_REFILL_NS = 1 << 24     # ctl.c CTL_MAX_REFILL_NS


def _bounded(parse: Callable[[Any], int], hi: int, fmt: Callable[[int], str]) -> Callable[[Any], int]:
    def p(v: Any) -> int:
        n = parse(v)
        if n > hi:
            raise ValueError(f"{show(v)} is too large (allowed: up to {fmt(hi)})")
        return n
    return p


def p_size_in(lo: int, hi: int, multiple: int = 1,
              bare_bytes: bool = False) -> Callable[[Any], int]:
    """schema.p_size with the multiple named as a size (``4KiB``)."""
    return p_size(lo, hi, multiple, units.format_size, bare_bytes=bare_bytes)


p_rate = _bounded(units.parse_rate, MAX_RATE_BPS, units.format_rate)


p_iops = _bounded(units.parse_iops, MAX_IOPS, str)


def p_slo(v: Any) -> int:
    """A latency target; 0 means none."""
    ns = units.parse_duration_ns(v)
    if ns > MAX_SLO_NS:
        raise ValueError(f"{show(v)} is too large (allowed: up to 60s; 0 = none)")
    return ns


def p_path(v: Any) -> str:
    s = p_str(v)
    if not s or "\0" in s or len(s.encode()) > 1023:
        raise ValueError(f"{show(v)} is not a path (1..1023 bytes, no NUL)")
    return s


def p_mode(v: Any) -> int:
    """A permission mode: ``"0600"``, ``"600"``, ``0o600``, or YAML's octal int ``0600``."""
    if isinstance(v, bool):
        raise ValueError(f"{show(v)} is not a mode (examples: '0600', '0660')")
    if isinstance(v, str):
        m = re.fullmatch(r"(?:0o?)?([0-7]{3})", v.strip())
        if not m:
            raise ValueError(f"{show(v)} is not an octal mode (examples: '0600', '0660')")
        mode = int(m.group(1), 8)
    elif isinstance(v, int) and 0 <= v <= 0o777:
        mode = v
    else:
        raise ValueError(f"{show(v)} is not a mode (examples: '0600', '0660')")
    if mode & 0o600 != 0o600:
        raise ValueError(f"{format_mode(mode)} must let the owner read and write "
                         "(examples: '0600', '0660')")
    if mode & 0o111:
        raise ValueError(f"{format_mode(mode)} has execute bits; a socket needs only read and "
                         "write (examples: '0600', '0660')")
    return mode


def format_mode(mode: int) -> str:
    return f"0{mode:03o}"


def p_hostport(v: Any) -> str:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6); port 0 = any free port."""
    if isinstance(v, str):
        host, sep, port = v.strip().rpartition(":")
        if sep and host and port.isdigit() and int(port) <= 65535 and " " not in host:
            return v.strip()
    raise ValueError(f"{show(v)} is not HOST:PORT (examples: 127.0.0.1:9464, [::1]:0)")


@dataclass(frozen=True)
class Band:
    """The controller's latency band: fixed (``lo``/``hi`` in ns) or learned
    (``lo``/``hi`` in percent of the drive's unloaded read latency)."""
    learned: bool
    lo: int
    hi: int

    def text(self) -> str:
        if self.learned:
            return f"{self.lo}%..{self.hi}%"
        return f"{units.format_duration(self.lo)}..{units.format_duration(self.hi)}"

    def ctl_overrides(self) -> dict[str, int]:
        """jbof_ctl_cfg fields."""
        if self.learned:
            return {"band_lo_pct": self.lo, "band_hi_pct": self.hi}
        return {"lat_min_ns": self.lo, "lat_max_ns": self.hi, "band_lo_pct": 0, "band_hi_pct": 0}


BAND_EXAMPLES = "examples: 250us..1500us (fixed), 150%..300% (learned from the unloaded read latency)"


def p_band(v: Any) -> Band:
    if not isinstance(v, str) or v.count("..") != 1:
        raise ValueError(f"{show(v)} is not a band ({BAND_EXAMPLES})")
    lo_s, hi_s = (s.strip() for s in v.split(".."))
    if lo_s.endswith("%") and hi_s.endswith("%"):
        lo, hi = lo_s[:-1].strip(), hi_s[:-1].strip()
        if not (lo.isdigit() and hi.isdigit()):
            raise ValueError(f"{show(v)}: percentages must be whole numbers ({BAND_EXAMPLES})")
        a, b = int(lo), int(hi)
        if not 100 <= a < b <= 10000:
            raise ValueError(f"{show(v)}: need 100% <= low < high <= 10000%")
        return Band(True, a, b)
    try:
        a = units.parse_duration_ns(lo_s, bare_unit=None)
        b = units.parse_duration_ns(hi_s, bare_unit=None)
    except ValueError:
        raise ValueError(f"{show(v)} is not a band ({BAND_EXAMPLES})") from None
    if not 0 < a < b <= 60 * 10**9:
        raise ValueError(f"{show(v)}: need 0 < low < high <= 60s")
    return Band(False, a, b)


TOP_KEYS = section(
    Key("drives", "list", lambda v: v, "the drives: see drives[] keys", required=True),
    Key("listen", "mapping", lambda v: v, "where to accept NBD connections: see listen keys",
        "unix: jbof/nbd.sock"),
    Key("tenants", "list", lambda v: v, "the tenants, one NBD export each: see tenants[] keys",
        "none"),
    Key("admin", "mapping", lambda v: v, "the admin socket: see admin keys",
        "socket: next to listen.unix"),
    Key("metrics", "host:port", p_hostport, "serve Prometheus metrics on http://HOST:PORT/metrics "
        "(port 0 = any free port; default: off)"),
    Key("forecast", "mapping", lambda v: v, "the forecast socket and planner that lend owners' "
        "idle reservations to scavengers: see forecast keys (default: off)"),
    Key("tune", "mapping", lambda v: v, "online autotuning of the qos scheduler's knobs while "
        "every IO is served: see tune keys (default: off)"),
    Key("limits", "mapping", lambda v: v, "the data plane's resource bounds: connections, "
        "handshakes, buffers and request slots in all and per tenant, accept rate per peer, "
        "scrubbing: see limits keys"),
)


CONTROLLER_KEYS = section(
    Key("rate_min", "rate", _bounded(units.parse_rate, CTL_MAX_RATE_BPS, units.format_rate),
        "lowest dispatch rate, cost-bytes/s", units.format_rate(CTL_RATE_MIN_BPS)),
    Key("rate_max", "rate", _bounded(units.parse_rate, CTL_MAX_RATE_BPS, units.format_rate),
        "highest dispatch rate, cost-bytes/s", units.format_rate(CTL_RATE_MAX_BPS)),
    Key("rate_init", "rate", _bounded(units.parse_rate, CTL_MAX_RATE_BPS, units.format_rate),
        "starting dispatch rate (default: clamped into rate_min..rate_max)",
        units.format_rate(CTL_RATE_INIT_BPS)),
    Key("bucket", "size", p_size_in(4096, 1 << 30), "token bucket depth",
        units.format_size(CTL_BUCKET_BYTES)),
    Key("ewma_shift", "integer", p_int(0, 10), "latency EWMA weight 1/2^shift (default: the policy's, gimbal 1, qos 3)", None),
)


DRIVE_KEYS = section(
    Key("name", "name", p_name, "unique drive name", required=True),
    Key("backend", "choice", p_choice(BACKENDS), "memory | file | emulated", required=True),
    Key("path", "path", p_path, "file: a file or block device (required); emulated: optional "
        "sparse data file"),
    Key("size", "size", p_size_in(MIB, MAX_SIZE, 4096), "drive size (required for memory and "
        "emulated; file: default the file's size)"),
    Key("model", "preset", p_name, "emulated: SSD model preset", "dct983"),
    Key("policy", "choice", p_choice(POLICIES), f"scheduling policy ({', '.join(POLICIES)})",
        "qos"),
    Key("band", "band", p_band, "controller latency band: LOW..HIGH as durations (fixed) or "
        "percentages of the learned unloaded read latency (default: the policy's)"),
    Key("controller", "mapping", lambda v: v, "controller knobs: see drives[].controller keys"),
    Key("capacity", "rate", p_rate, "bandwidth the reservations on this drive may add up to "
        "(default: emulated = the preset's read bandwidth; memory/file = unchecked)"),
    Key("reactor", "integer", p_int(0, 63), "the reactor thread (limits.reactors) that owns "
        "this drive: all its tenants' IO runs there", "round robin"),
    Key("block_size", "size", p_size_in(1, MIB, bare_bytes=True), "minimum IO size and "
        "alignment advertised to clients (a power of two; raised to what O_DIRECT needs)",
        "the backend's minimum: 1 for memory and emulated, the O_DIRECT alignment for direct "
        "files"),
    Key("io_mode", "choice", p_choice(IO_MODES), "file: auto (io_uring, else threads) | uring | "
        "threads", "auto"),
    Key("direct", "boolean", p_bool, "file: use O_DIRECT when the file system allows it", True),
    Key("zero_cost", "choice", p_choice(ZERO_COSTS), "price of WRITE_ZEROES and TRIM: auto (as a "
        "write of the range where the backend may write it: a block device, a file whose "
        "fallocate cannot zero; else the command) | command | write (csrc/cost.c section 6)",
        "auto"),
    Key("seed", "integer", p_int(0, 2**63 - 1), "emulated: model seed", 1),
)


DRIVE_LIVE_KEYS = ("policy", "band", "controller")


TLS_MODES = ("off", "allow", "require")
MAX_ACCESS_IDS = 32             # csrc/include/jbof_tls.h JBOF_ACCESS_MAX_IDS


def p_tls(v: Any) -> str | dict[str, str]:
    """``off | allow | require`` for every listener, or ``{unix: MODE, tcp: MODE}``."""
    mode = p_choice(TLS_MODES)
    if isinstance(v, str):
        return mode(v)
    if isinstance(v, Mapping) and v and all(k in ("unix", "tcp") for k in v):
        return {str(k): mode(x) for k, x in v.items()}
    raise ValueError(f"{show(v)} is not a TLS mode (allowed: off, allow, require, or "
                     "{unix: MODE, tcp: MODE})")


def p_identity(v: Any) -> str:
    """A TLS-PSK identity: 1..255 bytes, no ':' (the PSK file's separator), no NUL/newline."""
    if (not isinstance(v, str) or not v or len(v.encode()) > 255
            or any(c in v for c in ":\0\n\r")):
        raise ValueError(f"{show(v)} is not a PSK identity (1..255 bytes, no ':')")
    return v


def p_ids(v: Any) -> tuple[int, ...]:
    """A list of numeric uids or gids (up to 32)."""
    ids = p_int(0, 2**32 - 2)
    if not isinstance(v, list) or len(v) > MAX_ACCESS_IDS:
        raise ValueError(f"{show(v)} is not a list of up to {MAX_ACCESS_IDS} numeric ids "
                         "(example: [1000, 1001])")
    return tuple(ids(x) for x in v)


def is_loopback_hostport(hostport: str) -> bool:
    """127.0.0.0/8, ::1 and localhost (what the engine binds for an empty host)."""
    host = hostport.rpartition(":")[0].strip("[]")
    if host in ("", "localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


LISTEN_KEYS = section(
    Key("unix", "path", p_path, "unix socket path; relative = under $XDG_RUNTIME_DIR (or /tmp)"),
    Key("mode", "mode", p_mode, "permissions of the unix socket (default: as the umask leaves "
        "them)"),
    Key("tcp", "host:port", p_hostport, "TCP address, e.g. 127.0.0.1:10809 (port 0 = any)"),
    Key("tls", "tls mode", p_tls, "NBD STARTTLS with TLS-PSK: off | allow (plaintext clients "
        "still served) | require (every option before STARTTLS refused), or {unix: MODE, "
        "tcp: MODE} (default: require with tls_psk_file, else off)"),
    Key("tls_psk_file", "path", p_path, "TLS-PSK keys, one identity:hexkey line per client "
        "(nbdkit/qemu format, e.g. from psktool); must be mode 0600 or stricter"),
    Key("insecure", "boolean", p_bool, "allow a TCP listener on a non-loopback address "
        "without tls: require (plaintext NBD on the network)", False),
)


ADMIN_KEYS = section(
    Key("socket", "path", p_path, "admin unix socket; relative = under $XDG_RUNTIME_DIR (or "
        "/tmp) (default: next to listen.unix: admin.sock for nbd.sock, NAME.admin.sock for "
        "NAME.sock)"),
    Key("mode", "mode", p_mode, "permissions of the admin socket; with no group/other bits "
        "only the daemon's user (and root) may connect", format_mode(DEFAULT_ADMIN_MODE)),
    Key("max_connections", "integer", p_int(1, 256), "admin connections served at once", 16),
)


TENANT_KEYS = section(
    Key("name", "name", p_name, "unique tenant name = its NBD export name", required=True),
    Key("drive", "name", p_name, "the drive holding its namespace (default: the only drive)"),
    Key("size", "size", p_size_in(4096, MAX_SIZE, 4096), "namespace size (default: an equal "
        "share of what the drive has left; required when added live)"),
    Key("offset", "size", p_size_in(0, MAX_SIZE, 4096), "where the namespace starts on its "
        "drive (a multiple of the drive block, inside the drive, clear of the other "
        "tenants; needs size).  Written into the state file by the daemon for every tenant, "
        "so a restart puts each namespace back where it was; leave it out to place first "
        "fit"),
    Key("read_only", "boolean", p_bool, "refuse writes (EPERM)", False),
    Key("description", "string", p_str, "NBD export description (nbdinfo --list; at most "
        "255 bytes)"),
    Key("default", "boolean", p_bool, "this tenant answers the empty NBD export name (at most "
        "one tenant; with a single tenant the empty name reaches it anyway)", False),
    Key("buffer", "size", p_size_in(4096, 1 << 40), "data buffers this tenant may hold",
        "limits.tenant_buffer"),
    Key("max_requests", "integer", p_int(1, 1 << 20), "request slots this tenant may hold",
        "limits.tenant_requests"),
    Key("max_connections", "integer", p_int(1, 65536), "established connections to this "
        "tenant's export", "limits.tenant_connections"),
    Key("class", "choice", p_choice(CLASSES), "latency | reserved | best-effort | scavenger "
        "(default: latency if latency_slo is set, else reserved if reserve is set, else "
        "best-effort)"),
    Key("weight", "integer", p_int(1, 10000), "share of what remains after reservations", 1),
    Key("reserve", "rate", p_rate, "minimum rate, bytes/s (0 = none)", "0"),
    Key("limit", "rate", p_rate, "maximum rate, bytes/s (0 = none)", "0"),
    Key("limit_iops", "iops", p_iops, "maximum IOs/s (0 = none)", "0"),
    Key("latency_slo", "duration", p_slo, "end-to-end latency target; met when p99 <= it "
        "(0 = none)", "0"),
    Key("sq_depth", "integer", p_int(1, 65536), "submission queue credits (default: 256)"),
    Key("tls_identity", "identity", p_identity, "the TLS-PSK identity allowed to list and open "
        "this export over TLS (default: the tenant name)"),
    Key("allow_uids", "list", p_ids, "unix sockets: only peers with one of these uids (or a "
        "gid in allow_gids) may list and open it; never served to plaintext TCP (default: "
        "anyone)"),
    Key("allow_gids", "list", p_ids, "unix sockets: peers whose primary gid is listed may "
        "list and open it (see allow_uids)"),
)


TENANT_LIVE_KEYS = ("weight", "class", "reserve", "limit", "limit_iops", "latency_slo", "sq_depth")


def p_tune_enabled(v: Any) -> bool | tuple[str, ...]:
    """``true`` (every drive), ``false`` (none) or a list of drive names."""
    if isinstance(v, bool):
        return v
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        names = tuple(p_name(x) for x in v)
        if len(set(names)) != len(names):
            raise ValueError(f"{show(v)} names a drive twice")
        return names
    raise ValueError(f"{show(v)} is not true, false or a list of drive names "
                     "(examples: true, [ssd0, ssd1])")


def p_knobs(v: Any) -> tuple[str, ...]:
    """A list of autotuner knobs (``jbof tune knobs``), or one comma-separated string."""
    from control.tune.space import KNOBS
    items = [x.strip() for x in v.split(",")] if isinstance(v, str) else v
    if not isinstance(items, list) or not items or not all(isinstance(x, str) for x in items) \
            or any(x not in KNOBS for x in items) or len(set(items)) != len(items):
        raise ValueError(f"{show(v)} is not a list of distinct knobs (allowed: "
                         f"{', '.join(KNOBS)})")
    return tuple(items)


def _p_duration_in(lo_ns: int, hi_ns: int) -> Callable[[Any], int]:
    parse = p_duration(positive=True)

    def p(v: Any) -> int:
        ns = parse(v)
        if not lo_ns <= ns <= hi_ns:
            raise ValueError(f"{show(v)} is out of range (allowed: "
                             f"{units.format_duration(lo_ns)}..{units.format_duration(hi_ns)})")
        return ns
    return p


def p_budget(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1e6:
        raise ValueError(f"{show(v)} is not a number of periods (allowed: 0..1000000)")
    return float(v)


def p_cap(v: Any) -> float:
    pct = p_percent(v)
    if pct <= 0:
        raise ValueError(f"{show(v)} must be above 0% (examples: 50%, 100%)")
    return pct / 100


TUNE_KEYS = section(
    Key("enabled", "drives", p_tune_enabled, "drives tuned from the start: true (every drive), "
        "false (none) or a list of names; the others can be enabled live (`jbof tune enable`)",
        True),
    Key("knobs", "list", p_knobs, "knobs searched (`jbof tune knobs`)",
        "band_hi_pct,slot_bytes,write_factor_max_x256"),
    Key("period", "duration", _p_duration_in(50 * 10**6, 10 * 10**9), "period of a steady mix: "
        "trials hold a configuration and are measured in whole periods (a phased mix uses its "
        "detected period)", "250ms"),
    Key("profile", "duration", _p_duration_in(10**9, 60 * 10**9), "profiling time before a "
        "search (signature and periods; periods up to a third of it are seen)", "4.5s"),
    Key("explore_cap", "percent", p_cap, "most of a search's time spent on trial "
        "configurations", "50%"),
    Key("slo_budget", "number", p_budget, "extra SLO-violating periods a search may cause", 10.0),
    Key("max_trials", "integer", p_int(1, 1000), "trials per search before the best so far is "
        "kept (plus successive halving of the best 4)", 30),
    Key("index", "path", p_path, "the index of best configurations by drive and workload "
        "signature (JSON; relative = under $XDG_STATE_HOME, else ~/.local/state) (default: "
        "$JBOF_TUNE_INDEX, else jbof/tune-index.json)"),
)


# limits: key -> the Engine config's "engine" key (dataplane/engine.py, csrc/budget.c)
LIMITS_ENGINE = {"connections": "max_connections", "handshake_connections": "max_hs_connections",
                 "handshake_timeout": "hs_timeout", "handshake_idle": "hs_idle",
                 "requests": "max_requests", "buffer": "buffer_bytes",
                 "tenant_buffer": "tenant_buffer_bytes", "tenant_requests": "tenant_requests",
                 "tenant_connections": "max_conns_per_tenant",
                 "peer_accept_rate": "peer_accept_rate", "peer_accept_burst": "peer_accept_burst",
                 "scrub_rate": "scrub_rate", "reactors": "reactors"}


def p_reactors(v: Any) -> int | list[int]:
    """limits.reactors: a thread count, or a list of CPUs (one pinned thread each)."""
    if isinstance(v, list):
        if not 1 <= len(v) <= 64:
            raise ValueError("expected 1..64 CPUs")
        cpus = [p_int(0, 1023)(c) for c in v]
        if len(set(cpus)) != len(cpus):
            raise ValueError("a CPU is listed twice")
        return cpus
    return p_int(1, 64)(v)

LIMITS_KEYS = section(
    Key("connections", "integer", p_int(1, 65536), "NBD connections open at once", 1024),
    Key("handshake_connections", "integer", p_int(1, 1 << 20), "connections still in the NBD "
        "handshake (the rest stay for established sessions; the oldest silent one is evicted "
        "when full)", "connections / 4"),
    Key("handshake_timeout", "duration", _p_duration_in(10**8, 3600 * 10**9), "a connection "
        "must finish its handshake within this", "10s"),
    Key("handshake_idle", "duration", _p_duration_in(10**8, 3600 * 10**9), "a connection that "
        "sends nothing for this long during its handshake is closed", "3s"),
    Key("requests", "integer", p_int(64, 1 << 20), "request slots, all tenants", 4096),
    Key("buffer", "size", p_size_in(32 * MIB, 1 << 40), "data buffer memory, all tenants",
        "256MiB"),
    Key("tenant_buffer", "size", p_size_in(4096, 1 << 40), "data buffers one tenant may hold; "
        "a tenant that stops reading its replies stops only its own intake",
        "buffer / tenants, within 4MiB..buffer/2"),
    Key("tenant_requests", "integer", p_int(1, 1 << 20), "request slots one tenant may hold",
        "requests / tenants, within 64..requests/2"),
    Key("tenant_connections", "integer", p_int(1, 65536), "established connections per "
        "tenant", 256),
    Key("peer_accept_rate", "integer", p_int(1, 1 << 20), "new connections per second one peer "
        "(unix: uid, tcp: IP address) may open", 256),
    Key("peer_accept_burst", "integer", p_int(1, 1 << 20), "... and in one burst", 1024),
    Key("reactors", "integer|list", p_reactors, "reactor threads serving NBD (csrc/reactor.h "
        "section 7): N, or a list of CPUs to pin one thread each to; drives are spread over "
        "them (drives[].reactor); connections, requests and buffer apply per reactor", 1),
    Key("scrub_rate", "rate", p_rate, "how fast a removed tenant's space is zeroed in the "
        "background, per drive (IO to unscrubbed space zeroes its overlap first)", "16GiB/s"),
)


SECTIONS: tuple[tuple[str, dict[str, Key]], ...] = (
    ("top level", TOP_KEYS),
    ("drives[]", DRIVE_KEYS),
    ("drives[].controller", CONTROLLER_KEYS),
    ("listen", LISTEN_KEYS),
    ("tenants[]", TENANT_KEYS),
    ("admin", ADMIN_KEYS),
    ("forecast", FORECAST_KEYS),
    ("forecast.planner", PLANNER_KEYS),
    ("tune", TUNE_KEYS),
    ("limits", LIMITS_KEYS),
)


def schema_text() -> str:
    """Every config key as a plain-text reference (``jbof config keys``)."""
    header = (f"Daemon config keys {UNITS_HELP}  Changeable live (admin\n"
              f"socket): tenants[] {', '.join(TENANT_LIVE_KEYS)}; drives[] "
              f"{', '.join(DRIVE_LIVE_KEYS)}; tune.enabled (jbof tune enable/disable).")
    return render_keys(header, SECTIONS, width=16)
