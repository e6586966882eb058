"""Simulator: virtual-time runs of the C scheduler + SSD model + workload generators.

Workloads are plain data (control.scenario.Workload's shape); the control
plane's subclass control.simulator.Simulator also reads fio-style dicts:

    from control.simulator import Simulator
    sim = Simulator(device="dct983", policy="qos", seed=1)
    sim.add_tenant("reader", {"rw": "randread", "bs": "4k", "iodepth": 32}, latency_slo_s=500e-6)
    sim.add_tenant("writer", {"rw": "write", "bs": "128k", "iodepth": 32})
    sim.run(2.0)                      # advance virtual time by 2 s (callable again)
    sim.set_tenant("writer", weight=2)
    sim.run(1.0)
    r = sim.result()                  # cumulative since time 0
    r.tenant("reader").lat.p99_us, r.tenant("reader").hist_counts, r.hist_edges_ns

Everything per IO happens in C (csrc/sim.c); Python only configures, steps
and reads counters.  Every C object has its destroy attached with ffi.gc;
every C return code is checked and raised as DataplaneError (errno name).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from dataplane import ABI_VERSION, DataplaneError, check
from dataplane._jbof import ffi, lib
from dataplane.cstruct import set_fields, struct_dict

if lib.JBOF_ABI_VERSION != ABI_VERSION:
    raise ImportError(f"dataplane._jbof has ABI {lib.JBOF_ABI_VERSION}, the Python side "
                      f"expects {ABI_VERSION}: rebuild with `make build`")

NS = 1_000_000_000
DEFAULT_MAX_BINS = 4096

RW_CODES = {"read": lib.JBOF_RW_READ, "write": lib.JBOF_RW_WRITE,
            "randread": lib.JBOF_RW_RANDREAD, "randwrite": lib.JBOF_RW_RANDWRITE,
            "rw": lib.JBOF_RW_RW, "readwrite": lib.JBOF_RW_RW, "randrw": lib.JBOF_RW_RANDRW}
CLASS_CODES = {"latency": lib.JBOF_CLASS_LATENCY, "reserved": lib.JBOF_CLASS_RESERVED,
               "best-effort": lib.JBOF_CLASS_BEST_EFFORT, "scavenger": lib.JBOF_CLASS_SCAVENGER}
CLASS_NAMES = {v: k for k, v in CLASS_CODES.items()}
CTL_STATES = ("slowstart", "ok", "congestion", "overloaded")


def _cstr(p: Any) -> str | None:
    return None if p == ffi.NULL else ffi.string(p).decode()


@functools.cache
def preset_names() -> tuple[str, ...]:
    """SSD model presets known to the C core (``jbof_ssd_preset_name``)."""
    out = []
    for i in range(1024):
        name = _cstr(lib.jbof_ssd_preset_name(i))
        if name is None:
            break
        out.append(name)
    return tuple(out)


@functools.cache
def policy_names() -> tuple[str, ...]:
    """Policy names in enum order (``jbof_policy_name``)."""
    return tuple(_cstr(lib.jbof_policy_name(i)) or f"policy{i}"
                 for i in range(lib.JBOF_POLICY_COUNT))


def policy_code(name: str) -> int:
    if not isinstance(name, str):
        raise ValueError(f"{name!r} is not a policy (allowed: {', '.join(policy_names())})")
    code = lib.jbof_policy_from_name(name.encode())
    if code < 0:
        raise ValueError(f"{name!r} is not a policy (allowed: {', '.join(policy_names())})")
    return int(code)


def c_abi_version() -> int:
    """The ABI version the compiled C core reports (``JBOF_ABI_VERSION``)."""
    return int(lib.JBOF_ABI_VERSION)


def default_sched_cfg(policy: str) -> dict[str, Any]:
    """A policy's default scheduler config (``jbof_sched_default_cfg``) as a nested dict."""
    cfg = ffi.new("jbof_sched_cfg *")
    check(lib.jbof_sched_default_cfg(policy_code(policy), cfg), "jbof_sched_default_cfg",
          policy)
    return struct_dict(cfg)


def ssd_preset_cfg(model: str) -> dict[str, Any] | None:
    """An SSD model preset's config (``jbof_ssd_preset``) as a nested dict; None if the
    model is not a preset."""
    cfg = ffi.new("jbof_ssd_cfg *")
    if lib.jbof_ssd_preset(model.encode(), cfg) < 0:
        return None
    return struct_dict(cfg)


@functools.cache
def hist_edges_ns() -> np.ndarray:
    """Lower edge (ns) of each histogram bucket; bucket i covers [edges[i], edges[i+1])."""
    edges = np.array([lib.jbof_hist_bucket_low(i) for i in range(lib.JBOF_HIST_BUCKETS)],
                     dtype=np.uint64)
    edges.setflags(write=False)
    return edges


# ------------------------------------------------------------------ results ---

@dataclass(frozen=True)
class Latency:
    """End-to-end (submit -> complete) latency in microseconds."""
    count: int
    mean_us: float
    p50_us: float
    p99_us: float
    p999_us: float
    max_us: float

    def as_dict(self) -> dict[str, float]:
        return {"p50": self.p50_us, "p99": self.p99_us, "p999": self.p999_us, "max": self.max_us}


@dataclass(frozen=True)
class TenantResult:
    name: str
    id: int
    klass: str
    weight: int
    open_loop: bool
    elapsed_s: float
    iops: float                   # completed IOs / elapsed virtual time
    bw_bytes: float               # completed bytes / elapsed virtual time
    read_ios: int
    write_ios: int
    read_bytes: int
    write_bytes: int
    issued: int
    completed: int
    errors: int
    cost_bytes: int               # cost of completed IO (read-byte equivalents)
    busy_s: float                 # time the workload was active
    throttled_s: float            # time held back by its limit
    queued_s: float               # time with >= 1 IO waiting at the scheduler (sched.c section 25)
    demand_bytes: int             # what an open-loop schedule asked for (0 = closed loop)
    slo_violations: int
    lat: Latency
    hist_counts: np.ndarray = field(repr=False)     # uint64[JBOF_HIST_BUCKETS]
    timeline_bytes: np.ndarray = field(repr=False)  # uint64 bytes completed per bin

    @property
    def bytes(self) -> int:
        return self.read_bytes + self.write_bytes


@dataclass(frozen=True)
class SimResult:
    device: str
    policy: str
    seed: int
    elapsed_s: float
    events: int
    bin_s: float
    tenants: tuple[TenantResult, ...]
    drive: dict[str, Any]         # jbof_drive_stats (+ ctl_state_name)
    ssd: dict[str, Any]           # jbof_ssd_stats
    hist_edges_ns: np.ndarray = field(repr=False)

    def tenant(self, name: str) -> TenantResult:
        for t in self.tenants:
            if t.name == name:
                return t
        raise KeyError(name)


# ---------------------------------------------------------------- simulator ---

@dataclass
class _Tenant:
    id: int
    name: str
    cfg: Any                      # jbof_tenant_cfg * (kept: the C API has no getter)
    open_loop: bool


def _klass_default(klass: str | None, latency_slo_s: float, reserve_bps: int) -> str:
    if klass is not None:
        return klass
    return "latency" if latency_slo_s else "reserved" if reserve_bps else "best-effort"


def _wl_struct(wl: Any) -> Any:
    """A jbof_wl from plain workload data: an object with startdelay_ns, runtime_ns,
    size_bytes, loop and phases (each with duration_ns, idle, rw, rwmixread, iodepth,
    bssplit ((bytes, percent), ...), rate_bps, rate_iops, thinktime_ns) -- the shape of
    control.scenario.Workload."""
    c = ffi.new("jbof_wl *")
    c.startdelay_ns = wl.startdelay_ns
    c.runtime_ns = wl.runtime_ns
    c.size_bytes = wl.size_bytes
    c.nphases = len(wl.phases)
    c.loop = 1 if wl.loop else 0
    if not 1 <= len(wl.phases) <= lib.JBOF_WL_MAX_PHASES:
        raise ValueError(f"a workload has 1..{lib.JBOF_WL_MAX_PHASES} phases, got {len(wl.phases)}")
    for i, p in enumerate(wl.phases):
        cp = c.phases[i]
        cp.duration_ns = p.duration_ns
        cp.idle = 1 if p.idle else 0
        cp.rw = RW_CODES[p.rw]
        cp.rwmixread_pct = p.rwmixread
        cp.iodepth = p.iodepth
        if not 1 <= len(p.bssplit) <= lib.JBOF_WL_MAX_BS:
            raise ValueError(f"bssplit has 1..{lib.JBOF_WL_MAX_BS} entries, got {len(p.bssplit)}")
        cp.nbs = len(p.bssplit)
        for j, (bs, pct) in enumerate(p.bssplit):
            cp.bs[j] = bs
            cp.bs_pct[j] = pct
        cp.rate_bps = p.rate_bps
        cp.rate_iops = p.rate_iops
        cp.thinktime_ns = p.thinktime_ns
    return c


class Simulator:
    """One drive, one scheduler, N tenants with workload generators, in virtual time.

    ``ssd_overrides`` sets jbof_ssd_cfg fields after the preset is loaded
    (e.g. ``{"frag_init_ppm": 1_000_000}``); ``sched_overrides`` sets
    jbof_sched_cfg fields after the policy's defaults (nested dicts or dotted
    keys: ``{"ctl.lat_max_ns": 1_000_000}``).  The timeline keeps
    ``max_bins`` bins of ``bin_s`` seconds.
    """

    def __init__(self, device: str = "dct983", policy: str = "qos", seed: int = 1,
                 ssd_overrides: Mapping[str, Any] | None = None,
                 sched_overrides: Mapping[str, Any] | None = None,
                 bin_s: float = 0.1, max_bins: int = DEFAULT_MAX_BINS) -> None:
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64:
            raise ValueError(f"seed must be an integer in 0..2^64-1, got {seed!r}")
        if not (isinstance(bin_s, (int, float)) and math.isfinite(bin_s) and bin_s > 0):
            raise ValueError(f"bin_s must be a positive number of seconds, got {bin_s!r}")
        if not isinstance(max_bins, int) or not 1 <= max_bins <= 2**32 - 1:
            raise ValueError(f"max_bins must be in 1..2^32-1, got {max_bins!r}")
        cfg = ffi.new("jbof_sim_cfg *")
        pcode = policy_code(policy)
        check(lib.jbof_sched_default_cfg(pcode, ffi.addressof(cfg[0], "sched")),
              "jbof_sched_default_cfg")
        if not isinstance(device, str):
            raise ValueError(f"device must be a preset name, got {device!r}")
        rc = lib.jbof_ssd_preset(device.encode(), ffi.addressof(cfg[0], "ssd"))
        if rc < 0:
            raise ValueError(f"{device!r} is not a known device model "
                             f"(allowed: {', '.join(preset_names())})")
        set_fields(cfg[0].ssd, ssd_overrides or {}, "ssd")
        set_fields(cfg[0].sched, sched_overrides or {}, "sched")
        cfg.sched.policy = pcode
        cfg.seed = seed
        cfg.bin_ns = max(1, round(bin_s * NS))
        cfg.max_bins = max_bins
        out = ffi.new("jbof_sim **")
        check(lib.jbof_sim_create(cfg, out), "jbof_sim_create")
        self._sim = ffi.gc(out[0], lib.jbof_sim_destroy)
        self._sched = lib.jbof_sim_sched(self._sim)   # owned by the sim (kept alive by self._sim)
        self._ssd = lib.jbof_sim_ssd(self._sim)
        self.device = device
        self.seed = seed
        self.bin_s = cfg.bin_ns / NS
        self.max_bins = max_bins
        self._policy = policy_names()[pcode]
        self._tenants: dict[str, _Tenant] = {}

    # -- configuration -------------------------------------------------------

    def _as_workload(self, workload: Any, name: str, phases: Any, loop_phases: bool) -> Any:
        """The workload data to build a jbof_wl from (a subclass may parse other forms)."""
        if isinstance(workload, Mapping):
            raise TypeError(f"tenant {name!r}: dataplane.sim.Simulator takes workload data "
                            "(a control.scenario.Workload); fio-style dicts are parsed by "
                            "control.simulator.Simulator")
        if phases is not None:
            raise ValueError("phases go into the Workload itself when passing a Workload")
        return workload

    def add_tenant(self, name: str, workload: Any, *, phases: Any = None,
                   loop_phases: bool = False, weight: int = 1, klass: str | None = None,
                   reserve_bps: int = 0, limit_bps: int = 0, limit_iops: int = 0,
                   latency_slo_s: float = 0.0, sq_depth: int | None = None) -> int:
        """Add a tenant; returns its id.  ``workload`` is plain workload data (the shape
        of control.scenario.Workload, see ``_wl_struct``); control.simulator.Simulator
        also takes fio-style dicts (``{"rw": "randread", "bs": "4k", "iodepth": 32}``).
        ``klass`` defaults to latency if latency_slo_s, reserved if reserve_bps,
        else best-effort."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"tenant name must be a non-empty string, got {name!r}")
        if name in self._tenants:
            raise ValueError(f"tenant {name!r} already exists")
        wl = self._as_workload(workload, name, phases, loop_phases)
        tc = ffi.new("jbof_tenant_cfg *")
        check(lib.jbof_tenant_default_cfg(tc), "jbof_tenant_default_cfg")
        klass = _klass_default(klass, latency_slo_s, reserve_bps)
        self._fill_tenant(tc, name, weight=weight, klass=klass, reserve_bps=reserve_bps,
                          limit_bps=limit_bps, limit_iops=limit_iops,
                          latency_slo_s=latency_slo_s, sq_depth=sq_depth)
        idp = ffi.new("uint32_t *")
        check(lib.jbof_sim_add_tenant(self._sim, tc, _wl_struct(wl), idp),
              "jbof_sim_add_tenant", f"tenant {name!r}")
        self._tenants[name] = _Tenant(id=idp[0], name=name, cfg=tc, open_loop=wl.open_loop)
        return int(idp[0])

    def add_scenario_tenant(self, tenant: Any) -> int:
        """Add a control.scenario.Tenant."""
        return self.add_tenant(tenant.name, tenant.workload, weight=tenant.weight,
                               klass=tenant.klass, reserve_bps=tenant.reserve_bps,
                               limit_bps=tenant.limit_bps, limit_iops=tenant.limit_iops,
                               latency_slo_s=tenant.latency_slo_ns / NS,
                               sq_depth=tenant.sq_depth)

    def set_tenant(self, name: str, **changes: Any) -> None:
        """Change a tenant live: weight, klass, reserve_bps, limit_bps, limit_iops,
        latency_slo_s, sq_depth (queued and in-flight IO are kept)."""
        t = self._tenant(name)
        allowed = {"weight", "klass", "reserve_bps", "limit_bps", "limit_iops",
                   "latency_slo_s", "sq_depth"}
        unknown = set(changes) - allowed
        if unknown:
            raise ValueError(f"set_tenant: unknown setting(s) {sorted(unknown)} "
                             f"(allowed: {', '.join(sorted(allowed))})")
        tc = ffi.new("jbof_tenant_cfg *", t.cfg[0])
        self._fill_tenant(tc, name, **changes)
        check(lib.jbof_sched_tenant_set(self._sched, t.id, tc, self.now_ns),
              "jbof_sched_tenant_set", f"tenant {name!r}")
        t.cfg = tc
        # as the live reactor: dispatch under the new knobs now, not at the next
        # event (sim.c, scheduler-log section 376)
        check(lib.jbof_sim_pump(self._sim), "jbof_sim_pump")

    def set_workload(self, name: str, workload: Any, *, phases: Any = None,
                     loop_phases: bool = False) -> None:
        """Replace a tenant's workload from now on (its phases restart)."""
        t = self._tenant(name)
        wl = self._as_workload(workload, name, phases, loop_phases)
        check(lib.jbof_sim_set_workload(self._sim, t.id, _wl_struct(wl)),
              "jbof_sim_set_workload", f"tenant {name!r}")
        t.open_loop = wl.open_loop

    def set_policy(self, policy: str) -> None:
        """Switch the scheduling policy live (queued and in-flight IO are kept)."""
        code = policy_code(policy)
        check(lib.jbof_sched_set_policy(self._sched, code, self.now_ns), "jbof_sched_set_policy")
        self._policy = policy_names()[code]
        check(lib.jbof_sim_pump(self._sim), "jbof_sim_pump")  # section 376, as set_tenant

    def configure(self, **overrides: Any) -> None:
        """Change scheduler parameters live: ``configure(quantum_bytes=65536,
        ctl={"lat_max_ns": 1_000_000})`` (fields of jbof_sched_cfg)."""
        cfg = ffi.new("jbof_sched_cfg *")
        check(lib.jbof_sched_get_cfg(self._sched, cfg), "jbof_sched_get_cfg")
        set_fields(cfg, overrides, "sched")
        check(lib.jbof_sched_configure(self._sched, cfg, self.now_ns), "jbof_sched_configure")

    def sched_cfg(self) -> dict[str, Any]:
        cfg = ffi.new("jbof_sched_cfg *")
        check(lib.jbof_sched_get_cfg(self._sched, cfg), "jbof_sched_get_cfg")
        return struct_dict(cfg)

    @staticmethod
    def _fill_tenant(tc: Any, name: str, **kw: Any) -> None:
        def rate(key: str) -> int:
            v = kw[key]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
                    or v < 0 or v >= 2**64:
                raise ValueError(f"tenant {name!r}: {key} must be >= 0, got {v!r}")
            return int(v)
        if "weight" in kw:
            w = kw["weight"]
            if isinstance(w, bool) or not isinstance(w, int) or not 1 <= w <= 10000:
                raise ValueError(f"tenant {name!r}: weight must be an integer in 1..10000, got {w!r}")
            tc.weight = w
        if "klass" in kw:
            k = kw["klass"]
            if k not in CLASS_CODES:
                raise ValueError(f"tenant {name!r}: class {k!r} is not allowed "
                                 f"(allowed: {', '.join(CLASS_CODES)})")
            tc.klass = CLASS_CODES[k]
        for key in ("reserve_bps", "limit_bps", "limit_iops"):
            if key in kw:
                setattr(tc, key, rate(key))
        if "latency_slo_s" in kw:
            tc.latency_slo_ns = round(_nonneg(kw["latency_slo_s"], name) * NS)
        if kw.get("sq_depth") is not None:
            d = kw["sq_depth"]
            if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 65536:
                raise ValueError(f"tenant {name!r}: sq_depth must be in 1..65536, got {d!r}")
            tc.sq_depth = d

    def _tenant(self, name: str) -> _Tenant:
        try:
            return self._tenants[name]
        except KeyError:
            raise ValueError(f"no tenant named {name!r} (have: {', '.join(self._tenants)})") from None

    # -- running -------------------------------------------------------------

    @property
    def now_ns(self) -> int:
        return int(lib.jbof_sim_now(self._sim))

    @property
    def now_s(self) -> float:
        return self.now_ns / NS

    @property
    def events(self) -> int:
        return int(lib.jbof_sim_events(self._sim))

    @property
    def policy(self) -> str:
        return self._policy

    @property
    def tenant_names(self) -> tuple[str, ...]:
        return tuple(self._tenants)

    def run(self, seconds: float) -> None:
        """Advance virtual time by ``seconds`` (may be called repeatedly)."""
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) \
                or not math.isfinite(seconds) or seconds < 0:
            raise ValueError(f"run: seconds must be a finite number >= 0, got {seconds!r}")
        self.run_until_ns(self.now_ns + round(seconds * NS))

    def run_until_ns(self, until_ns: int) -> None:
        """Advance virtual time to the absolute ``until_ns``."""
        check(lib.jbof_sim_run(self._sim, until_ns), "jbof_sim_run")

    # -- reading -------------------------------------------------------------

    def hist(self, name: str) -> tuple[Latency, np.ndarray]:
        """One tenant's latency summary and raw bucket counts (uint64 numpy array)."""
        t = self._tenant(name)
        h = ffi.new("jbof_hist *")
        check(lib.jbof_sched_tenant_hist(self._sched, t.id, h), "jbof_sched_tenant_hist")
        counts = np.frombuffer(ffi.buffer(h.buckets), dtype=np.uint64).copy()
        q = ffi.new("uint64_t *")

        def quant(p: float) -> float:
            check(lib.jbof_hist_quantile(h, p, q), "jbof_hist_quantile")
            return int(q[0]) / 1e3
        lat = Latency(count=h.count, mean_us=(h.sum_ns / h.count / 1e3) if h.count else 0.0,
                      p50_us=quant(0.5), p99_us=quant(0.99), p999_us=quant(0.999),
                      max_us=h.max_ns / 1e3)
        return lat, counts

    def timeline(self, name: str) -> np.ndarray:
        """Bytes completed per bin of ``bin_s`` seconds, up to now (uint64 numpy array)."""
        t = self._tenant(name)
        nbins = min(self.max_bins, max(1, math.ceil(self.now_ns / (self.bin_s * NS))))
        buf = ffi.new("uint64_t[]", nbins)
        n = check(lib.jbof_sim_tenant_timeline(self._sim, t.id, buf, nbins),
                  "jbof_sim_tenant_timeline")
        return np.frombuffer(ffi.buffer(buf, 8 * min(n, nbins)), dtype=np.uint64).copy()

    def tenant_stats(self, name: str) -> dict[str, Any]:
        """The scheduler's counters of one tenant now (jbof_tenant_stats: queued,
        inflight, completed, flushed, ...): one cheap C call, for fine-grained probes."""
        t = self._tenant(name)
        st = ffi.new("jbof_tenant_stats *")
        check(lib.jbof_sched_tenant_stats(self._sched, t.id, st), "jbof_sched_tenant_stats",
              f"tenant {name!r}")
        return struct_dict(st)

    def tenant_result(self, name: str) -> TenantResult:
        t = self._tenant(name)
        r = ffi.new("jbof_tenant_result *")
        check(lib.jbof_sim_tenant_result(self._sim, t.id, r), "jbof_sim_tenant_result")
        st = ffi.new("jbof_tenant_stats *")
        check(lib.jbof_sched_tenant_stats(self._sched, t.id, st), "jbof_sched_tenant_stats")
        lat, counts = self.hist(name)
        elapsed = self.now_s
        done = r.read_ios + r.write_ios
        nbytes = r.read_bytes + r.write_bytes
        return TenantResult(
            name=name, id=t.id, klass=CLASS_NAMES.get(st.klass, str(st.klass)), weight=st.weight,
            open_loop=t.open_loop, elapsed_s=elapsed,
            iops=done / elapsed if elapsed else 0.0,
            bw_bytes=nbytes / elapsed if elapsed else 0.0,
            read_ios=r.read_ios, write_ios=r.write_ios,
            read_bytes=r.read_bytes, write_bytes=r.write_bytes,
            issued=r.issued, completed=r.completed, errors=st.errors,
            cost_bytes=st.cost_completed, busy_s=r.busy_ns / NS,
            throttled_s=st.throttled_ns / NS,
            queued_s=r.queued_ns / NS,
            demand_bytes=r.demand_bytes,
            slo_violations=r.slo_violations, lat=lat, hist_counts=counts,
            timeline_bytes=self.timeline(name))

    def drive_stats(self) -> dict[str, Any]:
        d = ffi.new("jbof_drive_stats *")
        check(lib.jbof_sched_drive_stats(self._sched, d), "jbof_sched_drive_stats")
        out = struct_dict(d)
        out["policy_name"] = policy_names()[d.policy] if d.policy < len(policy_names()) else None
        out["ctl_state_name"] = CTL_STATES[d.ctl_state] if d.ctl_state < len(CTL_STATES) else None
        return out

    def ssd_stats(self) -> dict[str, Any]:
        s = ffi.new("jbof_ssd_stats *")
        check(lib.jbof_ssd_stats_get(self._ssd, s), "jbof_ssd_stats_get")
        return struct_dict(s)

    def result(self) -> SimResult:
        """Everything measured since time 0 (cumulative; diff two results for an interval)."""
        return SimResult(device=self.device, policy=self._policy, seed=self.seed,
                         elapsed_s=self.now_s, events=self.events, bin_s=self.bin_s,
                         tenants=tuple(self.tenant_result(n) for n in self._tenants),
                         drive=self.drive_stats(), ssd=self.ssd_stats(),
                         hist_edges_ns=hist_edges_ns())


def _nonneg(v: Any, name: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
        raise ValueError(f"tenant {name!r}: latency_slo_s must be >= 0 seconds, got {v!r}")
    return float(v)


__all__ = ["Simulator", "SimResult", "TenantResult", "Latency", "DataplaneError",
           "preset_names", "policy_names", "policy_code", "hist_edges_ns", "c_abi_version",
           "default_sched_cfg", "ssd_preset_cfg",
           "struct_dict", "set_fields", "RW_CODES", "CLASS_CODES"]
