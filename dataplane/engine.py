"""The live NBD target: drives, tenants (one NBD export each), listeners and
one or more C reactor threads (csrc/engine.c; overview in csrc/reactor.h) that serve them
without the GIL.

    eng = Engine({"drives": [{"name": "d0", "backend": "memory", "size": 1 << 30}],
                  "tenants": [{"name": "t0", "drive": "d0"}],
                  "listen": {"unix": "/tmp/jbof.sock"}})
    eng.start()
    eng.uris()             # ['nbd+unix:///t0?socket=/tmp/jbof.sock']
    eng.set_tenant("t0", weight=4)
    eng.tenant_stats("t0")["tenant"]["completed"]
    eng.stop()

The config is already parsed: sizes and rates are integers (bytes, bytes/s),
durations integer nanoseconds (``control.daemon.serve`` reads the YAML with human
units and produces this dict).  Keys:

    drives[]:  name, backend (memory | file | emulated), size, path, model,
               policy, block_size (0 = the backend's minimum: 1 for memory,
               emulated and buffered files, O_DIRECT's alignment otherwise),
               io_mode (auto | uring | threads), direct,
               zero_cost (auto | command | write: how WRITE_ZEROES and TRIM
               are priced, csrc/cost.c section 6),
               seed, queue_depth, threads, sched (overrides of jbof_sched_cfg),
               error_every (fault injection: every Nth IO fails with EIO),
               reactor (the reactor thread that owns it; default round robin),
               scrub ([[offset, length], ...]: space marked dirty before the
               engine serves -- it reads as zeroes until zeroed; the daemon
               restores a removed tenant's unscrubbed space with it, csrc/scrub.c)
    tenants[]: name, drive (default: the only drive), size (default: an equal
               share of what the drive has left), offset (where the namespace
               starts on the drive: a multiple of its block, inside it, clear of
               the others; default: first fit, csrc/export.c section 2;
               tenants with an offset are placed first), read_only, weight, class,
               reserve, limit, limit_iops, latency_slo, sq_depth,
               description (NBD export description, <= 255 bytes, shown by
               `nbdinfo --list`), default (true: also served under the empty
               export name, e.g. nbd+unix:///?socket=...; one tenant at most),
               and the tenant's budgets (0 = engine default): buffer_bytes,
               max_requests, max_connections (csrc/budget.c),
               tls_identity (PSK identity that may open it over TLS; default:
               the tenant name), allow_uids / allow_gids (unix sockets: peer
               uid or gid must be listed; default: anyone)
    listen:    unix (path), tcp ("host:port", port 0 = any),
               tls (off | allow | require, or {unix: MODE, tcp: MODE};
               default: require when tls_psk_file is given, else off),
               tls_psk_file (nbdkit-format "identity:hexkey" file, mode 0600),
               insecure (true = allow plaintext TCP on a non-loopback address)
    engine:    max_connections, max_requests, max_conn_requests,
               buffer_bytes, drain_timeout, and the per-tenant budgets and
               handshake guard (csrc/budget.c): tenant_buffer_bytes,
               tenant_requests, max_conns_per_tenant, max_hs_connections,
               peer_accept_rate (connections/s), peer_accept_burst,
               hs_timeout (ns), hs_idle (ns), scrub_rate (bytes/s, background
               zeroing of removed namespaces, csrc/scrub.c), reactors (N
               threads, or a list of CPUs: one thread pinned to each; default
               1; slots, buffers and the limits above are per reactor;
               csrc/reactor.h section 7)

Every control call (set_tenant, set_policy, stats, ...) is applied by the
reactor between two batches; it is safe from any Python thread.  Bad input
raises EngineConfigError (a ValueError naming the key); a C failure raises
dataplane.DataplaneError naming the C function and errno.
"""
from __future__ import annotations

import ipaddress
import os
import threading
from collections.abc import Mapping
from typing import Any

from dataplane import ABI_VERSION, DataplaneError, check
from dataplane._jbof import ffi, lib
from dataplane.cstruct import set_fields, struct_dict

if lib.JBOF_ABI_VERSION != ABI_VERSION:
    raise ImportError(f"dataplane._jbof has ABI {lib.JBOF_ABI_VERSION}, the Python side "
                      f"expects {ABI_VERSION}: rebuild with `make build`")

__all__ = ["BACKENDS", "CLASSES", "IO_MODES", "Engine", "EngineConfigError"]

BACKENDS = {"memory": lib.JBOF_BACKEND_MEMORY, "file": lib.JBOF_BACKEND_FILE,
            "emulated": lib.JBOF_BACKEND_EMULATED}
IO_MODES = {"auto": lib.JBOF_IO_AUTO, "uring": lib.JBOF_IO_URING, "threads": lib.JBOF_IO_THREADS}
ZERO_COSTS = {"auto": lib.JBOF_ZERO_COST_AUTO, "command": lib.JBOF_ZERO_COST_COMMAND,
              "write": lib.JBOF_ZERO_COST_WRITE}
IO_MODE_NAMES = {lib.JBOF_IO_AUTO: "auto", lib.JBOF_IO_URING: "uring",
                 lib.JBOF_IO_THREADS: "threads", lib.JBOF_IO_INLINE: "inline"}
CLASSES = {"latency": lib.JBOF_CLASS_LATENCY, "reserved": lib.JBOF_CLASS_RESERVED,
           "best-effort": lib.JBOF_CLASS_BEST_EFFORT, "scavenger": lib.JBOF_CLASS_SCAVENGER}
CLASS_NAMES = {v: k for k, v in CLASSES.items()}
CTL_STATES = ("slowstart", "ok", "congestion", "overloaded")
MIB = 1 << 20
U64 = 2**64 - 1

DRIVE_KEYS = ("name", "backend", "size", "path", "model", "policy", "block_size", "io_mode",
              "direct", "seed", "queue_depth", "threads", "sched", "error_every", "reactor",
              "scrub", "zero_cost")
TENANT_KEYS = ("name", "drive", "size", "offset", "read_only", "weight", "class", "reserve",
                "limit", "limit_iops", "latency_slo", "sq_depth", "description", "default",
                "buffer_bytes", "max_requests", "max_connections", "tls_identity", "allow_uids",
                "allow_gids")
TENANT_LIVE_KEYS = ("weight", "class", "reserve", "limit", "limit_iops", "latency_slo", "sq_depth")
LISTEN_KEYS = ("unix", "tcp", "tls", "tls_psk_file", "insecure")
TLS_MODES = {"off": lib.JBOF_TLS_OFF, "allow": lib.JBOF_TLS_ALLOW, "require": lib.JBOF_TLS_REQUIRE}
ENGINE_KEYS = ("max_connections", "max_requests", "max_conn_requests", "buffer_bytes",
               "drain_timeout", "tenant_buffer_bytes", "tenant_requests", "max_conns_per_tenant",
               "max_hs_connections", "peer_accept_rate", "peer_accept_burst", "hs_timeout",
               "hs_idle", "scrub_rate", "reactors")
MAX_REACTORS = 64
# engine key -> jbof_engine_cfg field
ENGINE_FIELDS = {"max_connections": "max_connections", "max_requests": "max_requests",
                 "max_conn_requests": "max_conn_requests", "buffer_bytes": "buffer_bytes",
                 "drain_timeout": "drain_timeout_ns", "tenant_buffer_bytes": "tenant_buffer_bytes",
                 "tenant_requests": "tenant_requests",
                 "max_conns_per_tenant": "max_conns_per_tenant",
                 "max_hs_connections": "max_hs_connections",
                 "peer_accept_rate": "peer_accept_rate", "peer_accept_burst": "peer_accept_burst",
                 "hs_timeout": "hs_timeout_ns", "hs_idle": "hs_idle_ns",
                 "scrub_rate": "scrub_rate_bps"}
TOP_KEYS = ("drives", "tenants", "listen", "engine")


def _check_reactors(v: Any) -> tuple[int, list[int]]:
    """engine.reactors: a count (unpinned threads) or a list of CPUs (one pinned thread each)."""
    if isinstance(v, (list, tuple)):
        if not v or len(v) > MAX_REACTORS:
            raise EngineConfigError("engine.reactors", f"expected 1..{MAX_REACTORS} CPUs")
        cpus = [_int(c, f"engine.reactors[{i}]", 0, 1023) for i, c in enumerate(v)]
        if len(set(cpus)) != len(cpus):
            raise EngineConfigError("engine.reactors", "a CPU is listed twice")
        return len(cpus), cpus
    return _int(v, "engine.reactors", 1, MAX_REACTORS), []


def _bytes(n: int) -> str:
    """A byte count as the config writes it when it can (32MiB, 8KiB), else bytes."""
    if n == 0:
        return "0"
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    return f"{n} bytes"


class EngineConfigError(ValueError):
    """A bad Engine config value; ``str()`` is ``KEY.PATH: what is wrong (what is allowed)``."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = " ".join(message.split())
        super().__init__(f"{path}: {self.message}" if path else self.message)


# ----------------------------------------------------------- validation ---

def _keys(data: Any, allowed: tuple[str, ...], where: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise EngineConfigError(where, f"expected a mapping, got {type(data).__name__}")
    for k in data:
        if k not in allowed:
            raise EngineConfigError(f"{where}.{k}" if where else str(k),
                                    f"unknown key (allowed: {', '.join(allowed)})")
    return data


def _int(v: Any, where: str, lo: int = 0, hi: int = U64) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise EngineConfigError(where, f"expected an integer in {lo}..{hi}, got {v!r}")
    return v


def _str(v: Any, where: str, max_len: int) -> str:
    if not isinstance(v, str) or not v or len(v.encode()) > max_len or "\0" in v:
        raise EngineConfigError(where, f"expected a non-empty string of at most {max_len} bytes, "
                                f"got {v!r}")
    return v


def _choice(v: Any, options: Mapping[str, int], where: str) -> int:
    if v not in options:
        raise EngineConfigError(where, f"{v!r} is not allowed (allowed: {', '.join(options)})")
    return options[v]


def _bool(v: Any, where: str) -> bool:
    if not isinstance(v, bool):
        raise EngineConfigError(where, f"expected true or false, got {v!r}")
    return v


def _policy(v: Any, where: str) -> int:
    code = lib.jbof_policy_from_name(v.encode()) if isinstance(v, str) else -1
    if code < 0:
        names = [ffi.string(lib.jbof_policy_name(i)).decode() for i in range(lib.JBOF_POLICY_COUNT)]
        raise EngineConfigError(where, f"{v!r} is not a policy (allowed: {', '.join(names)})")
    return int(code)


def _klass(t: Mapping[str, Any]) -> str:
    if "class" in t:
        return str(t["class"])
    return ("latency" if t.get("latency_slo") else
            "reserved" if t.get("reserve") else "best-effort")


def parse_tcp(v: Any, where: str) -> tuple[str, int]:
    """``"127.0.0.1:10809"`` / ``"[::1]:0"`` / ``"localhost:0"`` -> (host literal, port)."""
    if not isinstance(v, str) or ":" not in v:
        raise EngineConfigError(where, f"expected HOST:PORT, got {v!r}")
    host, _, port = v.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    host = "127.0.0.1" if host in ("", "localhost") else host
    if not port.isdigit() or int(port) > 65535:
        raise EngineConfigError(where, f"port must be 0..65535, got {port!r}")
    return host, int(port)


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8 and ::1 (the only addresses plaintext NBD may use by default)."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_psk_file(path: Any, where: str) -> str:
    """The PSK file must exist and be private to its owner (mode 0600 or stricter)."""
    p = _str(path, where, 4095)
    try:
        st = os.stat(p)
    except OSError as e:
        raise EngineConfigError(where, f"cannot read {p}: {e.strerror}") from None
    if st.st_mode & 0o077:
        raise EngineConfigError(where, f"{p} has mode {st.st_mode & 0o777:04o}; a PSK file must "
                                f"not be readable by group or others (chmod 600 {p})")
    return p


def _ids(v: Any, where: str) -> list[int]:
    if not isinstance(v, list) or len(v) > lib.JBOF_ACCESS_MAX_IDS:
        raise EngineConfigError(where, f"expected a list of at most {lib.JBOF_ACCESS_MAX_IDS} "
                                f"numeric ids, got {v!r}")
    return [_int(x, f"{where}[{i}]", 0, 2**32 - 2) for i, x in enumerate(v)]


def _set_struct(cdata: Any, overrides: Mapping[str, Any], where: str) -> None:
    """Set integer fields of a C struct from a (nested) mapping (dataplane.cstruct)."""
    try:
        set_fields(cdata, overrides, where)
    except ValueError as e:
        path, _, msg = str(e).partition(": ")
        raise EngineConfigError(path, msg) from None


# ---------------------------------------------------------------- engine ---

class Engine:
    """Serve tenants over NBD from a config dict (see the module docstring)."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        cfg = _keys(config, TOP_KEYS, "")
        drives = cfg.get("drives")
        if not isinstance(drives, list) or not drives:
            raise EngineConfigError("drives", "expected a non-empty list of drives")
        self._drives: list[dict[str, Any]] = []
        self._drive_ids: dict[str, int] = {}
        for i, d in enumerate(drives):
            self._drives.append(self._check_drive(d, f"drives[{i}]"))
            name = self._drives[-1]["name"]
            if name in self._drive_ids:
                raise EngineConfigError(f"drives[{i}].name", f"{name!r} is used twice")
            self._drive_ids[name] = i
        tenants = cfg.get("tenants", [])
        if not isinstance(tenants, list):
            raise EngineConfigError("tenants", "expected a list of tenants")
        self._tenants: dict[str, dict[str, Any]] = {}
        for i, t in enumerate(tenants):
            tt = self._check_tenant(t, f"tenants[{i}]")
            if tt["name"] in self._tenants:
                raise EngineConfigError(f"tenants[{i}].name", f"{tt['name']!r} is used twice")
            self._tenants[tt["name"]] = tt
        listen = _keys(cfg.get("listen", {}), LISTEN_KEYS, "listen")
        self._unix: str | None = None
        self._tcp: tuple[str, int] | None = None
        if listen.get("unix") is not None:
            self._unix = _str(listen["unix"], "listen.unix", 107)
        if listen.get("tcp") is not None:
            self._tcp = parse_tcp(listen["tcp"], "listen.tcp")
        if self._unix is None and self._tcp is None:
            raise EngineConfigError("listen", "give unix: PATH and/or tcp: HOST:PORT")
        self._psk: str | None = None
        if listen.get("tls_psk_file") is not None:
            self._psk = check_psk_file(listen["tls_psk_file"], "listen.tls_psk_file")
        default_tls = "require" if self._psk else "off"
        tls = listen.get("tls", default_tls)
        if isinstance(tls, Mapping):
            tls = _keys(tls, ("unix", "tcp"), "listen.tls")
            modes = {k: tls.get(k, default_tls) for k in ("unix", "tcp")}
        else:
            modes = {"unix": tls, "tcp": tls}
        self._tls = {k: _choice(v, TLS_MODES, "listen.tls") for k, v in modes.items()}
        used = [k for k, v in (("unix", self._unix), ("tcp", self._tcp)) if v is not None]
        if self._psk is None and any(self._tls[k] != lib.JBOF_TLS_OFF for k in used):
            raise EngineConfigError("listen.tls", "TLS needs listen.tls_psk_file "
                                    "(identity:hexkey lines, mode 0600)")
        self._insecure = _bool(listen.get("insecure", False), "listen.insecure")
        if (self._tcp is not None and not is_loopback(self._tcp[0])
                and self._tls["tcp"] != lib.JBOF_TLS_REQUIRE and not self._insecure):
            raise EngineConfigError("listen.tcp", f"{self._tcp[0]} is not a loopback address and "
                                    "TLS is not required: set listen.tls: require (with "
                                    "tls_psk_file), or insecure: true to serve plaintext NBD "
                                    "to the network")
        ecfg = _keys(cfg.get("engine", {}), ENGINE_KEYS, "engine")
        # reactors: N threads, or a list of CPUs (one pinned thread each); csrc/reactor.h s. 7
        self._reactors, self._cpus = _check_reactors(ecfg.pop("reactors", 1))
        self._ecfg = {k: _int(v, f"engine.{k}", 0, 2**63 - 1) for k, v in ecfg.items()}
        for i, d in enumerate(self._drives):
            if d["reactor"] >= self._reactors:
                raise EngineConfigError(f"drives[{i}].reactor", f"{d['reactor']} is not below "
                                        f"engine.reactors ({self._reactors})")
        self._tcp_port: int | None = None
        self._eng: Any = None
        self._lock = threading.Lock()
        self._state = "new"

    # -- validation ----------------------------------------------------------

    @staticmethod
    def _check_drive(d: Any, where: str) -> dict[str, Any]:
        d = _keys(d, DRIVE_KEYS, where)
        out: dict[str, Any] = {"name": _str(d.get("name"), f"{where}.name", 63)}
        out["backend"] = _choice(d.get("backend"), BACKENDS, f"{where}.backend")
        out["size"] = _int(d.get("size", 0), f"{where}.size", 0, 1 << 50)
        if out["backend"] != lib.JBOF_BACKEND_FILE and out["size"] == 0:
            raise EngineConfigError(f"{where}.size", "is required for memory and emulated drives")
        out["path"] = d.get("path") or ""
        if out["path"]:
            out["path"] = _str(out["path"], f"{where}.path", 1023)
        if out["backend"] == lib.JBOF_BACKEND_FILE and not out["path"]:
            raise EngineConfigError(f"{where}.path", "is required for a file drive")
        out["model"] = _str(d.get("model", "dct983"), f"{where}.model", 63)
        out["policy"] = _policy(d.get("policy", "qos"), f"{where}.policy")
        bs = _int(d.get("block_size", 0), f"{where}.block_size", 0, 1 << 20)
        if bs and bs & (bs - 1):
            raise EngineConfigError(f"{where}.block_size", f"{bs} is not a power of two")
        out["block_size"] = bs
        out["io_mode"] = _choice(d.get("io_mode", "auto"), IO_MODES, f"{where}.io_mode")
        out["direct"] = _bool(d.get("direct", True), f"{where}.direct")
        out["zero_cost"] = _choice(d.get("zero_cost", "auto"), ZERO_COSTS, f"{where}.zero_cost")
        out["seed"] = _int(d.get("seed", 1), f"{where}.seed")
        out["queue_depth"] = _int(d.get("queue_depth", 0), f"{where}.queue_depth", 0, 4096)
        out["threads"] = _int(d.get("threads", 0), f"{where}.threads", 0, 64)
        out["error_every"] = _int(d.get("error_every", 0), f"{where}.error_every", 0, 2**32 - 1)
        # the reactor thread that owns the drive; -1 = round robin by drive index
        out["reactor"] = _int(d.get("reactor", -1), f"{where}.reactor", -1, MAX_REACTORS - 1)
        scrub = d.get("scrub", [])
        if not isinstance(scrub, list) or not all(
                isinstance(r, (list, tuple)) and len(r) == 2 for r in scrub):
            raise EngineConfigError(f"{where}.scrub", "expected a list of [offset, length] pairs")
        out["scrub"] = [(_int(r[0], f"{where}.scrub[{i}]"), _int(r[1], f"{where}.scrub[{i}]", 1))
                        for i, r in enumerate(scrub)]
        sched = d.get("sched", {})
        if not isinstance(sched, Mapping):
            raise EngineConfigError(f"{where}.sched", "expected a mapping of jbof_sched_cfg fields")
        out["sched"] = dict(sched)
        return out

    def _check_tenant(self, t: Any, where: str) -> dict[str, Any]:
        t = _keys(t, TENANT_KEYS, where)
        out: dict[str, Any] = {"name": _str(t.get("name"), f"{where}.name",
                                            lib.JBOF_NBD_NAME_MAX_BYTES)}
        drive = t.get("drive")
        if drive is None:
            if len(self._drives) != 1:
                raise EngineConfigError(f"{where}.drive", "is required when there are several drives")
            drive = self._drives[0]["name"]
        if drive not in self._drive_ids:
            raise EngineConfigError(f"{where}.drive", f"{drive!r} is not a drive "
                                    f"(have: {', '.join(self._drive_ids)})")
        out["drive"] = drive
        out["size"] = _int(t.get("size", 0), f"{where}.size", 0, 1 << 50)
        if t.get("offset") is not None:
            out["offset"] = _int(t["offset"], f"{where}.offset", 0, 1 << 50)
        out["read_only"] = _bool(t.get("read_only", False), f"{where}.read_only")
        desc = t.get("description") or ""
        if desc:
            desc = _str(desc, f"{where}.description", lib.JBOF_NBD_DESC_MAX_BYTES)
        out["description"] = desc
        out["default"] = _bool(t.get("default", False), f"{where}.default")
        if out["default"] and any(x.get("default") for x in self._tenants.values()):
            raise EngineConfigError(f"{where}.default", "only one tenant can be the default export")
        out["buffer_bytes"] = _int(t.get("buffer_bytes", 0), f"{where}.buffer_bytes", 0, 1 << 50)
        out["max_requests"] = _int(t.get("max_requests", 0), f"{where}.max_requests", 0, 1 << 20)
        out["max_connections"] = _int(t.get("max_connections", 0), f"{where}.max_connections",
                                      0, 65536)
        out["tls_identity"] = _str(t.get("tls_identity", out["name"]), f"{where}.tls_identity",
                                   lib.JBOF_TLS_IDENTITY_MAX_BYTES)
        if ":" in out["tls_identity"]:
            raise EngineConfigError(f"{where}.tls_identity", "must not contain ':' (PSK file format)")
        out["allow_uids"] = _ids(t.get("allow_uids", []), f"{where}.allow_uids")
        out["allow_gids"] = _ids(t.get("allow_gids", []), f"{where}.allow_gids")
        out.update(self._check_live(t, where))
        return out

    @staticmethod
    def _check_live(t: Mapping[str, Any], where: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if "weight" in t:
            out["weight"] = _int(t["weight"], f"{where}.weight", 1, 10000)
        if "class" in t:
            _choice(t["class"], CLASSES, f"{where}.class")
            out["class"] = t["class"]
        for k in ("reserve", "limit", "limit_iops", "latency_slo"):
            if k in t:
                out[k] = _int(t[k], f"{where}.{k}")
        if t.get("sq_depth") is not None:
            out["sq_depth"] = _int(t["sq_depth"], f"{where}.sq_depth", 1, 65536)
        return out

    @staticmethod
    def _tenant_cfg(t: Mapping[str, Any]) -> Any:
        tc = ffi.new("jbof_tenant_cfg *")
        check(lib.jbof_tenant_default_cfg(tc), "jbof_tenant_default_cfg")
        tc.weight = t.get("weight", 1)
        tc.klass = CLASSES[_klass(t)]
        tc.reserve_bps = t.get("reserve", 0)
        tc.limit_bps = t.get("limit", 0)
        tc.limit_iops = t.get("limit_iops", 0)
        tc.latency_slo_ns = t.get("latency_slo", 0)
        if "sq_depth" in t:
            tc.sq_depth = t["sq_depth"]
        return tc

    # -- lifecycle -----------------------------------------------------------

    def start(self) -> None:
        """Open the drives, add the tenants, listen, start the reactor thread."""
        with self._lock:
            if self._state != "new":
                raise RuntimeError(f"engine is {self._state}; an Engine starts once")
            ec = ffi.new("jbof_engine_cfg *")
            for key, field in ENGINE_FIELDS.items():
                try:
                    setattr(ec, field, self._ecfg.get(key, 0))
                except OverflowError:
                    raise EngineConfigError(f"engine.{key}", "is out of range") from None
            ec.reactors = self._reactors
            ec.ncpus = len(self._cpus)
            for i, cpu in enumerate(self._cpus):
                ec.cpus[i] = cpu
            pp = ffi.new("jbof_engine **")
            check(lib.jbof_engine_create(ec, pp), "jbof_engine_create")
            self._eng = ffi.gc(pp[0], lib.jbof_engine_destroy)
            try:
                self._open()
            except BaseException:
                self._release()
                raise
            self._state = "running"

    def _open(self) -> None:
        for i, d in enumerate(self._drives):
            dc = ffi.new("jbof_drive_cfg *")
            dc.name = d["name"].encode()
            dc.path = d["path"].encode()
            dc.model = d["model"].encode()
            dc.backend = d["backend"]
            dc.io_mode = d["io_mode"]
            dc.size_bytes = d["size"]
            dc.block_bytes = d["block_size"]
            dc.queue_depth = d["queue_depth"]
            dc.threads = d["threads"]
            dc.direct = 1 if d["direct"] else 0
            dc.zero_cost = d["zero_cost"]
            dc.seed = d["seed"]
            dc.error_every = d["error_every"]
            dc.reactor = d["reactor"]
            check(lib.jbof_sched_default_cfg(d["policy"], ffi.addressof(dc.sched)),
                  "jbof_sched_default_cfg")
            _set_struct(dc.sched, d["sched"], f"drives[{i}].sched")
            check(lib.jbof_engine_add_drive(self._eng, dc, ffi.NULL), "jbof_engine_add_drive",
                  f"drive {d['name']!r} ({d['path'] or 'backend ' + str(d['backend'])})")
        self._default_sizes()
        # stale space first: a tenant placed over it reads zeroes, not the old bytes
        for i, d in enumerate(self._drives):
            for j, (off, length) in enumerate(d["scrub"]):
                check(lib.jbof_drive_scrub_mark(self._eng, i, off, length),
                      "jbof_drive_scrub_mark", f"drives[{i}].scrub[{j}]: [{_bytes(off)}, "
                      f"{_bytes(off + length)}) of drive {d['name']!r} (allowed: inside the "
                      "drive, multiples of its block)")
        # given offsets first: a first-fit namespace must not take their space
        order = sorted(enumerate(self._tenants.values()), key=lambda it: "offset" not in it[1])
        for i, t in order:
            self._add_export(t, f"tenants[{i}]")
        if self._psk is not None:
            check(lib.jbof_engine_tls_load_psk(self._eng, self._psk.encode()),
                  "jbof_engine_tls_load_psk", self._psk)
        if self._unix is not None:
            os.makedirs(os.path.dirname(os.path.abspath(self._unix)), exist_ok=True)
            sec = ffi.new("jbof_listen_sec *", {"tls": self._tls["unix"]})
            check(lib.jbof_engine_listen_unix_sec(self._eng, self._unix.encode(), sec),
                  "jbof_engine_listen_unix_sec", self._unix)
        if self._tcp is not None:
            port = ffi.new("uint16_t *")
            sec = ffi.new("jbof_listen_sec *", {"tls": self._tls["tcp"],
                                                "insecure": int(self._insecure)})
            check(lib.jbof_engine_listen_tcp_sec(self._eng, self._tcp[0].encode(), self._tcp[1],
                                                 port, sec),
                  "jbof_engine_listen_tcp_sec", f"{self._tcp[0]}:{self._tcp[1]}")
            self._tcp_port = int(port[0])
        check(lib.jbof_engine_start(self._eng), "jbof_engine_start")

    def _default_sizes(self) -> None:
        """Tenants without a size share what their drive has left, in whole MiB."""
        for name in self._drive_ids:
            mine = [t for t in self._tenants.values() if t["drive"] == name]
            fixed = sum(t["size"] for t in mine)
            open_ = [t for t in mine if not t["size"]]
            if not open_:
                continue
            total = self.drive_stats(name)["size_bytes"]
            share = (total - fixed) // len(open_) // MIB * MIB if total > fixed else 0
            if share == 0:
                raise EngineConfigError(f"tenants[{list(self._tenants).index(open_[0]['name'])}].size",
                                        f"drive {name!r} has no room left for tenants without a size")
            for t in open_:
                t["size"] = share

    def _set_access(self, t: Mapping[str, Any]) -> None:
        """The tenant's access rule goes in before its export, so no client sees it unguarded."""
        acc = ffi.new("jbof_export_access *")
        acc.tls_identity = t["tls_identity"].encode()
        acc.nuids = len(t["allow_uids"])
        acc.ngids = len(t["allow_gids"])
        for i, u in enumerate(t["allow_uids"]):
            acc.uids[i] = u
        for i, g in enumerate(t["allow_gids"]):
            acc.gids[i] = g
        check(lib.jbof_engine_set_access(self._eng, t["name"].encode(), acc),
              "jbof_engine_set_access", t["name"])

    def _namespaces(self, drive: str) -> list[tuple[str, int, int]]:
        """(name, base, size) of the namespaces on drive, in place now."""
        out = []
        st = ffi.new("jbof_export_stats *")
        for name, t in self._tenants.items():
            if t["drive"] == drive and \
                    lib.jbof_engine_export_stats(self._eng, name.encode(), st) == 0:
                out.append((name, int(st.ns_base_bytes), int(st.size_bytes)))
        return out

    def _check_offset(self, t: Mapping[str, Any], where: str) -> None:
        """A given offset: a multiple of the drive's block, inside it, clear of the
        namespaces in place (EngineConfigError: one line saying what is allowed)."""
        off, size, drive = t["offset"], t["size"], t["drive"]
        info = ffi.new("jbof_drive_info *")
        check(lib.jbof_engine_drive_stats(self._eng, self._drive_ids[drive], info),
              "jbof_engine_drive_stats", drive)
        blk, total = int(info.block_bytes), int(info.size_bytes)
        if off % blk:
            raise EngineConfigError(f"{where}.offset", f"{_bytes(off)} is not a multiple of the "
                                    f"drive block ({blk} bytes) (allowed: multiples of {blk} "
                                    "bytes)")
        if off + size > total:
            raise EngineConfigError(f"{where}.offset", f"{_bytes(off)} + size {_bytes(size)} "
                                    f"ends at {_bytes(off + size)}, past the end of drive "
                                    f"{drive!r} ({_bytes(total)})")
        for name, base, n in self._namespaces(drive):
            if off < base + n and base < off + size:
                raise EngineConfigError(f"{where}.offset", f"[{_bytes(off)}, "
                                        f"{_bytes(off + size)}) overlaps tenant {name!r} at "
                                        f"[{_bytes(base)}, {_bytes(base + n)}) (allowed: space "
                                        "no other tenant holds)")

    def _add_export(self, t: Mapping[str, Any], where: str) -> None:
        if "offset" in t:
            self._check_offset(t, where)
        self._set_access(t)
        xc = ffi.new("jbof_export_cfg *")
        xc.name = t["name"].encode()
        xc.drive = self._drive_ids[t["drive"]]
        xc.read_only = 1 if t["read_only"] else 0
        xc.size_bytes = t["size"]
        xc.tenant = self._tenant_cfg(t)[0]
        xc.description = t.get("description", "").encode()
        xc.is_default = 1 if t.get("default") else 0
        xc.buffer_bytes = t.get("buffer_bytes", 0)
        xc.max_requests = t.get("max_requests", 0)
        xc.max_connections = t.get("max_connections", 0)
        if "offset" in t:
            xc.at_base = 1
            xc.base_bytes = t["offset"]
        check(lib.jbof_engine_export_add(self._eng, xc), "jbof_engine_export_add",
              f"tenant {t['name']!r} ({t['size']} bytes on drive {t['drive']!r})")

    def stop(self) -> None:
        """Graceful stop: no new connections, drain in-flight IO, sync, close.  Idempotent."""
        with self._lock:
            if self._eng is not None and self._state == "running":
                check(lib.jbof_engine_stop(self._eng), "jbof_engine_stop")
                self._state = "stopped"

    def close(self) -> None:
        """Stop and free the C engine (the unix socket file is removed)."""
        self.stop()
        with self._lock:
            self._release()
            self._state = "closed"

    def _release(self) -> None:
        if self._eng is not None:
            eng, self._eng = self._eng, None
            ffi.release(eng)  # runs jbof_engine_destroy now

    def __enter__(self) -> Engine:
        if self._state == "new":
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- where to connect ----------------------------------------------------

    @property
    def unix_path(self) -> str | None:
        return self._unix

    @property
    def tcp_address(self) -> tuple[str, int] | None:
        if self._tcp is None:
            return None
        return self._tcp[0], self._tcp_port if self._tcp_port is not None else self._tcp[1]

    def tenants(self) -> list[str]:
        return list(self._tenants)

    def uri(self, tenant: str, transport: str = "unix") -> str:
        """NBD URI of one export: ``nbd+unix:///NAME?socket=PATH`` or ``nbd://HOST:PORT/NAME``."""
        self._tenant(tenant)
        if transport == "unix" and self._unix is not None:
            s = "nbds" if self._tls["unix"] == lib.JBOF_TLS_REQUIRE else "nbd"
            return f"{s}+unix:///{tenant}?socket={self._unix}"
        addr = self.tcp_address
        if transport in ("unix", "tcp") and addr is not None:
            host = f"[{addr[0]}]" if ":" in addr[0] else addr[0]
            s = "nbds" if self._tls["tcp"] == lib.JBOF_TLS_REQUIRE else "nbd"
            return f"{s}://{host}:{addr[1]}/{tenant}"
        raise ValueError(f"no {transport} listener")

    def uris(self) -> list[str]:
        """One URI per export and listener (unix first)."""
        out = []
        for name in self._tenants:
            if self._unix is not None:
                out.append(self.uri(name, "unix"))
            if self._tcp is not None:
                out.append(self.uri(name, "tcp"))
        return out

    # -- control -------------------------------------------------------------

    def _need(self) -> Any:
        if self._eng is None:
            raise RuntimeError("engine is not started (or already closed)")
        return self._eng

    def _tenant(self, name: str) -> dict[str, Any]:
        try:
            return self._tenants[name]
        except KeyError:
            raise EngineConfigError("tenant", f"no tenant named {name!r} "
                                    f"(have: {', '.join(self._tenants)})") from None

    def _drive(self, name: str) -> int:
        try:
            return self._drive_ids[name]
        except KeyError:
            raise EngineConfigError("drive", f"no drive named {name!r} "
                                    f"(have: {', '.join(self._drive_ids)})") from None

    def add_tenant(self, spec: Mapping[str, Any]) -> None:
        """Add a tenant (a new export) live; keys as in the config's tenants[]."""
        t = self._check_tenant(spec, f"tenant {spec.get('name', '?')!r}"
                               if isinstance(spec, Mapping) else "tenant")
        if t["name"] in self._tenants:
            raise EngineConfigError("tenant.name", f"{t['name']!r} already exists")
        if not t["size"]:
            raise EngineConfigError("tenant.size", "is required for a tenant added live")
        self._need()
        self._add_export(t, f"tenant {t['name']!r}")
        self._tenants[t["name"]] = t

    def remove_tenant(self, name: str) -> None:
        """Remove a tenant live: its queued IO is answered ESHUTDOWN, in-flight IO
        completes, its connections close after their last replies (csrc/export.c
        section 4; bounded).  Releases the GIL while the engine works."""
        self._tenant(name)
        check(lib.jbof_engine_export_remove(self._need(), name.encode()),
              "jbof_engine_export_remove", name)
        check(lib.jbof_engine_set_access(self._need(), name.encode(), ffi.NULL),
              "jbof_engine_set_access", name)
        del self._tenants[name]

    def set_tenant(self, name: str, **changes: Any) -> None:
        """Change weight, class, reserve, limit, limit_iops, latency_slo, sq_depth live."""
        cur = self._tenant(name)
        bad = [k for k in changes if k not in TENANT_LIVE_KEYS]
        if bad:
            raise EngineConfigError(f"tenant {name!r}.{bad[0]}", "cannot be changed live "
                                    f"(allowed: {', '.join(TENANT_LIVE_KEYS)})")
        new = dict(cur)
        new.update(self._check_live(changes, f"tenant {name!r}"))
        check(lib.jbof_engine_export_set(self._need(), name.encode(), self._tenant_cfg(new)),
              "jbof_engine_export_set", name)
        self._tenants[name] = new

    def set_policy(self, drive: str, policy: str) -> None:
        """Switch a drive's scheduling policy live (queued and in-flight IO kept)."""
        code = _policy(policy, "policy")
        check(lib.jbof_engine_drive_set_policy(self._need(), self._drive(drive), code),
              "jbof_engine_drive_set_policy", f"{drive}: {policy}")

    def drive_cfg(self, drive: str) -> dict[str, Any]:
        out = ffi.new("jbof_sched_cfg *")
        check(lib.jbof_engine_drive_get_cfg(self._need(), self._drive(drive), out),
              "jbof_engine_drive_get_cfg", drive)
        return struct_dict(out)

    def configure_drive(self, drive: str, overrides: Mapping[str, Any]) -> None:
        """Change scheduler parameters (jbof_sched_cfg fields, nested) live."""
        idx = self._drive(drive)
        cfg = ffi.new("jbof_sched_cfg *")
        check(lib.jbof_engine_drive_get_cfg(self._need(), idx, cfg), "jbof_engine_drive_get_cfg")
        _set_struct(cfg[0], overrides, f"drive {drive!r}")
        check(lib.jbof_engine_drive_configure(self._need(), idx, cfg),
              "jbof_engine_drive_configure", drive)

    # -- statistics ----------------------------------------------------------

    def tenant_stats(self, name: str) -> dict[str, Any]:
        """Counters of one tenant: the scheduler's (``tenant``) and the reactor's."""
        self._tenant(name)
        out = ffi.new("jbof_export_stats *")
        check(lib.jbof_engine_export_stats(self._need(), name.encode(), out),
              "jbof_engine_export_stats", name)
        d = struct_dict(out)
        d["tenant"]["class"] = CLASS_NAMES.get(d["tenant"].pop("klass"), "?")
        return d

    def tenant_latency(self, name: str) -> dict[str, int]:
        """End-to-end latency quantiles of one tenant, ns: count, p50, p99, p999, max."""
        self._tenant(name)
        h = ffi.new("jbof_hist *")
        check(lib.jbof_engine_export_hist(self._need(), name.encode(), h),
              "jbof_engine_export_hist", name)
        q = ffi.new("uint64_t *")
        out = {"count": int(h.count), "max": int(h.max_ns)}
        for key, qq in (("p50", 0.5), ("p99", 0.99), ("p999", 0.999)):
            check(lib.jbof_hist_quantile(h, qq, q), "jbof_hist_quantile")
            out[key] = int(q[0])
        return out

    def tenant_hist(self, name: str) -> dict[str, Any]:
        """End-to-end latency histogram of one tenant: count, sum_ns, max_ns, min_ns and
        buckets (bucket i counts [jbof_hist_bucket_low(i), jbof_hist_bucket_low(i + 1)))."""
        self._tenant(name)
        h = ffi.new("jbof_hist *")
        check(lib.jbof_engine_export_hist(self._need(), name.encode(), h),
              "jbof_engine_export_hist", name)
        return struct_dict(h)

    def scrub_mark(self, drive: str, offset: int, length: int) -> None:
        """Mark [offset, offset + length) of a drive dirty: it reads as zeroes until
        zeroed (csrc/scrub.c); refused over a tenant's namespace (EBUSY)."""
        check(lib.jbof_drive_scrub_mark(self._need(), self._drive(drive), offset, length),
              "jbof_drive_scrub_mark", f"{drive}: [{_bytes(offset)}, {_bytes(offset + length)})")

    def drive_stats(self, name: str) -> dict[str, Any]:
        """Scheduler, controller, backend (and SSD model) counters of one drive."""
        out = ffi.new("jbof_drive_info *")
        check(lib.jbof_engine_drive_stats(self._need(), self._drive(name), out),
              "jbof_engine_drive_stats", name)
        d = struct_dict(out)
        d["sched"]["ctl_state"] = CTL_STATES[d["sched"]["ctl_state"]] \
            if d["sched"]["ctl_state"] < len(CTL_STATES) else "?"
        d["io_mode"] = IO_MODE_NAMES.get(d["io_mode"], "?")
        d["zero_cost"] = {v: k for k, v in ZERO_COSTS.items()}.get(d["zero_cost"], "?")
        d["backend"] = {v: k for k, v in BACKENDS.items()}.get(d["backend"], "?")
        return d

    def stats(self) -> dict[str, Any]:
        """Engine-wide counters (connections, protocol errors, buffers, ...)."""
        out = ffi.new("jbof_engine_stats *")
        check(lib.jbof_engine_get_stats(self._need(), out), "jbof_engine_get_stats")
        return struct_dict(out)

    @property
    def reactors(self) -> int:
        """Reactor threads (engine.reactors)."""
        return self._reactors

    def reactor_stats(self, reactor: int) -> dict[str, Any]:
        """One reactor thread's counters (``stats()`` sums them)."""
        out = ffi.new("jbof_engine_stats *")
        check(lib.jbof_engine_reactor_stats(self._need(), reactor, out),
              "jbof_engine_reactor_stats", f"reactor {reactor}")
        return struct_dict(out)

    def drive_reactor(self, drive: str) -> int:
        """The reactor thread that owns a drive."""
        rc = lib.jbof_engine_drive_reactor(self._need(), self._drive(drive))
        check(rc, "jbof_engine_drive_reactor", drive)
        return int(rc)

    def sec_stats(self) -> dict[str, Any]:
        """Authentication counters: TLS handshakes / failures, TLS-required refusals, denials."""
        out = ffi.new("jbof_sec_stats *")
        check(lib.jbof_engine_sec_stats(self._need(), out), "jbof_engine_sec_stats")
        return struct_dict(out)

    @property
    def psk_file(self) -> str | None:
        """listen.tls_psk_file (None: TLS off)."""
        return self._psk

    def reload_psk(self) -> int:
        """Read listen.tls_psk_file again (key rotation without a restart): TLS handshakes
        from now on use its keys, open connections keep their sessions.  A bad file
        (missing, readable by group or others, malformed) raises EngineConfigError /
        EngineError and the keys loaded before stay.  Returns the identities loaded."""
        if self._psk is None:
            raise EngineConfigError("listen.tls_psk_file", "no PSK file is configured (TLS is "
                                    "off): nothing to reload")
        check_psk_file(self._psk, "listen.tls_psk_file")
        check(lib.jbof_engine_tls_load_psk(self._need(), self._psk.encode()),
              "jbof_engine_tls_load_psk", f"{self._psk} (the keys loaded before stay)")
        return int(self.sec_stats()["keys"])


# Re-exported for callers that catch C failures.
EngineError = DataplaneError
