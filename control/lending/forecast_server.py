"""The forecast socket: newline-delimited JSON on a unix socket, feeding the planner.

    svc = ForecastService(path, planner, apply=lambda tenant, bps: engine.set_tenant(tenant, limit=bps))
    svc.start()            # one thread: accepts, reads, replies, ticks the planner
    ...
    svc.stop()

or, from ``jbof serve``, in one call (owners: tenants with a reservation;
borrowers: scavenger-class tenants of the serve config)::

    svc = ForecastService.from_config(engine, parse_forecast_config(raw, src), tenants)

where ``raw`` is the daemon config's ``forecast:`` section (FORECAST_KEYS)::

    forecast:
      socket: jbof/forecast.sock     # relative paths live under $XDG_RUNTIME_DIR (or /tmp)
      mode: "0660"
      drive: ssd0                    # whose tenants it plans (default: the only drive)
      capacity: 2800MiB/s            # what the drive sustains, read-equivalent bytes/s
      tick: 100ms
      planner: {slowdown_budget: 1%, horizon: 200ms}     # control/lending/planner.py PLANNER_KEYS
      calibration: {sched: [0.0, -0.3, 0.2]}   # optional warm start: residuals per source

The socket is separate from the admin socket and has its own file mode
(default 0o660): a forecaster can send forecast/arrived/finished/cancel/ls
and nothing else (control/lending/forecast.py refuses every other key), so it can
never change an SLO, a reservation or a limit directly; limits change only
through the planner, which never lends less than static partitioning does.

The socket is control/ipc.py's ``LineServer`` (the rules of both control
sockets: lines up to 64 KiB, a longer line gets a ``too_long`` error and is
skipped, duplicate keys and non-finite numbers are ``bad_json``, ...); a bad
line gets its error reply and the next line is read as usual.  A ticker
thread: every ``tick_s`` the planner plans at ``clock()`` and ``apply`` is
called for each borrower whose limit changed (exceptions are logged, never
fatal); a borrower's own configured limit stays an upper bound, and ``stop()``
restores it.  ``clock`` is injectable: tests drive ``tick()`` by hand.

Bounds.  Anyone who can open the socket must not be able to grow the daemon's
memory or CPU without limit, so every resource a client can create is capped
(a refusal is an error reply, ``limit`` or ``busy``, naming the key):

  * connections: at most ``MAX_CLIENTS`` (64) at once, ``MAX_CLIENTS_PER_PEER``
    (16) from one process: one thread and <= 128 KiB of buffers each.  A
    connection that sends nothing for ``idle_timeout`` (``forecast.idle_timeout``,
    default ``IDLE_TIMEOUT_S`` = 60 s) is closed: a forecaster reconnects per
    batch (``jbof forecast`` and ``Client`` do), so idle slot-squatters give way
    within a minute;
  * jobs the planner tracks: at most ``MAX_JOBS`` (4096) in all and
    ``MAX_JOBS_PER_SOURCE`` (1024) live (pending or running) forecasts per
    source; sources (each a calibrator: two rings of ``ring`` residuals, ~40 KiB)
    at most ``MAX_SOURCES`` (64).  A cluster scheduler forecasts its queue --
    hundreds of jobs -- so these are 10x what a real one needs, and they keep
    each tick (O(owners x jobs)) under a few ms: a flood of 100 000 forecasts
    costs ~10 MiB and leaves the ticker about as busy as 4096 real jobs would;
  * expiry: a job whose last time -- its finish, or else the latest arrival its
    forecast names -- is more than ``EXPIRE_S`` (1 h) in the past is forgotten
    (checked at most once a second of the clock, and at once when ``MAX_JOBS``
    is reached: then finished, cancelled and no-show jobs go first).  An hour
    keeps what a late ``arrived``/``finished`` needs (a no-show that arrives
    after all still counts as a miss);
  * a tick that raises is logged (traceback), counted (``tick_errors`` in
    ``ls``) and answered with the static partition -- owners keep their whole
    reservations -- until a tick succeeds again; the ticker never stops.

Owners and borrowers follow the daemon's tenants live: given ``live_tenants`` (a
callable returning the planned drive's tenant dicts now -- ``jbof serve``
passes its admin plane's config), every tick first re-derives the roles
(``roles()``: owner = a reservation and not scavenger, borrower = scavenger)
and each borrower's configured limit, and hands changes to
``Planner.set_roles``.  So a tenant added, removed or changed (``tenant
add/rm/set``: class, reserve, limit) is planned at the next tick without a
restart: a new scavenger gets a planned limit, a removed or reclassified one
is released (``release(name)``, default ``apply(name, configured)``) and its
limit is never applied again, an owner's new reservation moves the static
pool.  ``poke()`` asks for that tick now (the admin plane calls it after a
tenant op, so a new scavenger does not wait out a long tick).

Guarded owners and measured writers, as in the simulator (planner.py
sections 2 and 9).  ``for_engine`` (so ``jbof serve``) reads each borrower's
byte counters from the data plane every tick (``counters``: the Engine's
``tenant_stats``), turns them into its write fraction over the last second
(``WriteMix``; a writer, w = 1, until it has moved 8 MiB) and hands the
fractions to ``Planner.set_borrowers``, the call the simulator makes with
the trace's fractions.  Owners that ``is_guarded`` names (class latency
with a latency_slo: the tenants csrc/sched.c section 14 yields to IO by IO)
are guarded, from the tenants in force like the roles: their running and
due jobs are lent to borrowers measured as readers and held from the rest.
A service built without ``counters`` guards nobody (tests that plan
borrowers at fixed fractions).

Counters for /metrics (``metric_samples(drive)``, the ``jbof_planner_*``
families): ticks, tick errors (the plan raised or an apply failed), role
changes; gauges from the last plan (lent and held per owner, held from
writers, whether it is guarded, borrower limits, each borrower's write
fraction and whether it is measured yet, the headroom never lent, pools)
and per source the calibrator's observed coverage (1 - misses / arrivals)
against its target (1 - slowdown budget) and fallback state.
"""
from __future__ import annotations

import logging
import math
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from control.errors import ConfigError
from control.ipc import IpcError, LineServer, Peer
from control.lending.forecast import (
    Arrived,
    Cancel,
    Finished,
    Forecast,
    Ls,
    MessageError,
    decode_line,
    encode,
    error_reply,
    ok_reply,
    parse_message,
    request_id,
)
from control.lending.planner import (
    Plan,
    Planner,
    PlannerConfig,
    WriteMix,
    is_guarded,
    parse_planner_config,
)
from control.schema import Key, p_duration, p_rate, p_str, read_section, section

log = logging.getLogger("jbof.forecast")
MAX_CLIENTS = 64
MAX_CLIENTS_PER_PEER = 16
IDLE_TIMEOUT_S = 60.0
MAX_JOBS = 1024
MAX_JOBS_PER_SOURCE = 256
MAX_SOURCES = 32
EXPIRE_S = 3600.0
ENDED_KEEP_S = 600.0
PRUNE_EVERY_S = 1.0
DEFAULT_MODE = 0o660
_LIVE = ("pending", "active")


DEFAULT_SOCKET = "jbof/forecast.sock"


def socket_path(raw: str) -> str:
    """Relative socket paths live under $XDG_RUNTIME_DIR (or /tmp), like the NBD socket."""
    p = os.path.expanduser(raw)
    return p if os.path.isabs(p) else os.path.join(os.environ.get("XDG_RUNTIME_DIR") or "/tmp", p)


def _p_mode(v: Any) -> int:
    if isinstance(v, str) and v.strip() and set(v.strip()) <= set("01234567"):
        n = int(v.strip(), 8)
    elif isinstance(v, int) and not isinstance(v, bool):
        n = v
    else:
        n = -1
    if not 0 <= n <= 0o777:
        raise ValueError(f"{v!r} is not a file mode (examples: \"0660\", \"0600\")")
    return n


def _p_calibration(v: Any) -> dict[str, list[float]]:
    if not isinstance(v, dict):
        raise ValueError("expected a mapping of source name to a list of residuals")
    out: dict[str, list[float]] = {}
    for name, vals in v.items():
        if not isinstance(name, str) or not isinstance(vals, list) or not all(
                isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
                for x in vals):
            raise ValueError(f"{name!r}: expected a list of numbers (ln(actual / predicted lead))")
        out[name] = [float(x) for x in vals]
    return out


FORECAST_KEYS = section(
    Key("socket", "path", p_str, "forecast socket (relative: under $XDG_RUNTIME_DIR)",
        DEFAULT_SOCKET),
    Key("mode", "octal", _p_mode, "the socket's file mode (its own: not the admin socket's)",
        "0660"),
    Key("drive", "name", p_str, "the drive whose owners (tenants with a reserve) and "
        "scavengers it plans (default: the only drive)"),
    Key("capacity", "rate", p_rate, "what the drive sustains, read-equivalent bytes/s",
        required=True),
    Key("tick", "duration", p_duration(positive=True), "planner period", "100ms"),
    Key("idle_timeout", "duration", p_duration(positive=True), "close a connection that "
        "sends nothing this long (1s..1h)", "60s"),
    Key("planner", "mapping", lambda v: v, "planner settings: see forecast.planner keys", {}),
    Key("calibration", "mapping", _p_calibration, "warm start: source name -> list of arrival "
        "residuals ln(actual / predicted lead); a source needs ~1/slowdown_budget of them "
        "before it is trusted", {}),
)


def parse_forecast_config(data: Any, src: str, where: str = "forecast") -> dict[str, Any]:
    """The daemon config's ``forecast:`` section, validated (ConfigError, one line)."""
    got = read_section(data, FORECAST_KEYS, src, where)
    cap = got["capacity"]
    if cap <= 0:
        raise ConfigError(src, f"{where}.capacity", "must be > 0")
    tick = got.get("tick", 100_000_000) / 1e9
    if not 0.001 <= tick <= 60:
        raise ConfigError(src, f"{where}.tick", "must be in 1ms..60s")
    idle = got.get("idle_timeout", int(IDLE_TIMEOUT_S * 1e9)) / 1e9
    if not 1 <= idle <= 3600:
        raise ConfigError(src, f"{where}.idle_timeout", "must be in 1s..1h")
    path = socket_path(got.get("socket", DEFAULT_SOCKET))
    if len(os.fsencode(path)) > 107:
        raise ConfigError(src, f"{where}.socket", f"{path!r} is longer than 107 bytes")
    return {"socket": path, "mode": got.get("mode", DEFAULT_MODE), "tick_s": tick,
            "idle_timeout_s": idle,
            "drive": got.get("drive"),
            "planner": parse_planner_config(got.get("planner", {}), src, f"{where}.planner", cap),
            "calibration": got.get("calibration", {})}


class ForecastService:
    """The forecast socket server plus the planner's periodic tick, in one thread."""

    def __init__(self, path: str, planner: Planner, apply: Callable[[str, int], None],
                 tick_s: float = 0.1, clock: Callable[[], float] = time.time,
                 mode: int = DEFAULT_MODE, configured: Mapping[str, int] | None = None,
                 idle_timeout_s: float | None = IDLE_TIMEOUT_S,
                 live_tenants: Callable[[], Sequence[Mapping[str, Any]]] | None = None,
                 release: Callable[[str], None] | None = None,
                 counters: Callable[[str], tuple[int, int]] | None = None,
                 write_mix: WriteMix | None = None) -> None:
        """``configured``: each borrower's own limit (bytes/s, 0 = none).  The planner
        never raises a borrower above it, and ``stop()`` puts it back.  ``live_tenants``:
        the planned drive's tenant dicts now (roles and configured limits follow them
        every tick); ``release(name)``: a borrower that left the plan (default:
        ``apply(name, configured)``).  ``counters(name)``: a borrower's cumulative
        (read, written) bytes -- with it every tick measures the borrowers' write
        fractions (``write_mix``, planner.py section 9) and guards the owners
        ``is_guarded`` names; without it borrowers keep the fractions they were
        planned with and nobody is guarded (a guarded owner is lent to readers, so
        it needs measured writers).  The caps (module docstring) are attributes:
        tests lower them."""
        if not 0.001 <= tick_s <= 60:
            raise ValueError(f"forecast service: tick_s must be in 1ms..60s, got {tick_s!r}")
        if not 0 <= mode <= 0o777:
            raise ValueError(f"forecast service: mode must be a file mode, got {mode!r}")
        if len(os.fsencode(path)) > 107:
            raise ValueError(f"forecast socket path {path!r} is longer than 107 bytes")
        self.path = path
        self.planner = planner
        self.apply = apply
        self.tick_s = tick_s
        self.clock = clock
        self.mode = mode
        self.configured = dict(configured or {})
        self.applied: dict[str, int] = {}
        self.idle_timeout_s = idle_timeout_s
        self.max_clients, self.max_clients_per_peer = MAX_CLIENTS, MAX_CLIENTS_PER_PEER
        self.max_jobs, self.max_jobs_per_source = MAX_JOBS, MAX_JOBS_PER_SOURCE
        self.max_sources, self.expire_s, self.ended_keep_s = MAX_SOURCES, EXPIRE_S, ENDED_KEEP_S
        self.refused = 0                # requests refused with ``limit``
        self._live: dict[str, int] = {}  # source -> live jobs (recounted at each prune)
        self._pruned_at = -math.inf
        self._forced_at = -math.inf
        self._ended = False             # a job finished or was cancelled since a forced prune
        self.live_tenants = live_tenants
        self._release = release
        self.counters = counters
        self.write_mix = (write_mix or WriteMix()) if counters is not None else None
        self.ticks = 0
        self.tick_errors = 0            # ticks that raised or failed to apply (ls, metrics)
        self.role_changes = 0
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._server: LineServer | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    # -- wiring helpers --------------------------------------------------------

    @staticmethod
    def roles(tenants: Sequence[Mapping[str, Any]]) -> tuple[dict[str, int], dict[str, float]]:
        """Owners (reserve > 0, not scavenger) and borrowers (scavenger) of a serve config."""
        owners = {t["name"]: int(t.get("reserve", 0)) for t in tenants
                  if t.get("class") != "scavenger" and int(t.get("reserve", 0)) > 0}
        borrowers = {t["name"]: 0.0 for t in tenants if t.get("class") == "scavenger"}
        return owners, borrowers

    @classmethod
    def guarded(cls, tenants: Sequence[Mapping[str, Any]]) -> list[str]:
        """The owners of a serve config the planner guards (planner.is_guarded: class
        latency with a latency_slo, the data plane's csrc/sched.c section 14)."""
        owners, _ = cls.roles(tenants)
        return [t["name"] for t in tenants if t["name"] in owners
                and is_guarded(t.get("class"), t.get("latency_slo", 0))]

    @classmethod
    def for_engine(cls, engine: Any, tenants: Sequence[Mapping[str, Any]], path: str,
                   capacity_bps: int, cfg: PlannerConfig | None = None,
                   calibration: Mapping[str, Sequence[float]] | None = None,
                   apply: Callable[[str, int], None] | None = None,
                   **kw: Any) -> ForecastService:
        """A started service that sets scavengers' ``limit`` on a dataplane.engine.Engine
        (or through ``apply(tenant, bps)``: ``jbof serve`` passes its admin plane's)."""
        owners, borrowers = cls.roles(tenants)
        # guarded owners as in the simulator (planner.py section 2), since each
        # scavenger's write fraction is measured from the data plane's counters
        # every tick (section 9; a writer until measured)
        planner = Planner(cfg or PlannerConfig(capacity_bps=capacity_bps), owners, borrowers,
                          guarded=cls.guarded(tenants))
        for source, residuals in (calibration or {}).items():
            planner.source(source).add_residuals(residuals)
        configured = cls.configured_limits(tenants, borrowers)
        if apply is None:
            def apply(name: str, bps: int) -> None:
                engine.set_tenant(name, limit=bps)
        if "counters" not in kw:
            def counters(name: str) -> tuple[int, int]:
                st = engine.tenant_stats(name)["tenant"]
                return int(st["read_bytes"]), int(st["write_bytes"])
            kw["counters"] = counters
        svc = cls(path, planner, apply, configured=configured, **kw)
        svc.start()
        return svc

    @staticmethod
    def configured_limits(tenants: Sequence[Mapping[str, Any]],
                          borrowers: Mapping[str, float]) -> dict[str, int]:
        return {t["name"]: int(t.get("limit", 0) or 0) for t in tenants if t["name"] in borrowers}

    @classmethod
    def from_config(cls, engine: Any, fcfg: Mapping[str, Any],
                    tenants: Sequence[Mapping[str, Any]],
                    apply: Callable[[str, int], None] | None = None,
                    **kw: Any) -> ForecastService:
        """``jbof serve``'s one call: ``fcfg`` from parse_forecast_config, ``tenants`` the
        engine config's tenant dicts (name, class, reserve) on the planned drive
        (``kw``: e.g. ``live_tenants=`` a callable for live roles, ``release=``)."""
        pc: PlannerConfig = fcfg["planner"]
        return cls.for_engine(engine, tenants, fcfg["socket"], pc.capacity_bps, cfg=pc,
                              calibration=fcfg.get("calibration"), apply=apply,
                              tick_s=fcfg["tick_s"], mode=fcfg["mode"],
                              idle_timeout_s=fcfg.get("idle_timeout_s", IDLE_TIMEOUT_S), **kw)

    # -- requests and ticks (thread-safe) ------------------------------------

    def handle(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        """One decoded request -> its reply (never raises for bad input)."""
        rid = request_id(obj)
        with self._lock:
            now = self.clock()
            try:
                msg = parse_message(obj, now)
                why = self.planner.check(msg) or self._admit(msg, now)
                if why is not None:
                    raise MessageError(*why)
                extra = self.planner.handle(msg, now)
                if isinstance(msg, (Finished, Cancel)):
                    self._ended = True
                if isinstance(msg, Ls):
                    mix = self.write_mix
                    borrowers = {n: dict(v, measured=mix is None or mix.measured(n))
                                 for n, v in extra.get("borrowers", {}).items()}
                    extra = dict(extra, applied=dict(self.applied), borrowers=borrowers,
                                 service=self._service_state())
            except MessageError as e:
                return error_reply(e, rid)
            except Exception as e:  # a planner bug must not kill the connection
                log.exception("forecast: internal error")
                return error_reply(MessageError("internal", "", f"{type(e).__name__}: {e}"), rid)
            kind = str(obj.get("type"))
            return ok_reply(kind, rid, **{k: v for k, v in extra.items() if v is not None})

    # -- bounds (module docstring) -------------------------------------------

    def _admit(self, msg: Any, now: float) -> tuple[str, str, str] | None:
        """Why a message that would create a job or a source is over a cap, or None.
        Called with the lock held, after planner.check."""
        if not isinstance(msg, (Forecast, Arrived)):
            return None
        p = self.planner
        if msg.source is not None and msg.source not in p.sources \
                and len(p.sources) >= self.max_sources:
            self.refused += 1
            return ("limit", "source", f"{len(p.sources)} forecast sources already (max "
                    f"{self.max_sources}); reuse a source name")
        j = p.jobs.get(msg.job)
        if j is not None and not (isinstance(msg, Forecast) and j.state not in _LIVE):
            return None                  # an update of a job already counted
        if j is None and len(p.jobs) >= self.max_jobs:
            # a forced prune is a scan of every job: only when one may have ended
            # (finished/cancel since the last one) or once a second, never per message
            if self._ended or time.monotonic() - self._forced_at >= PRUNE_EVERY_S:
                self._forced_at = time.monotonic()
                self._prune(now, force=True)
            if len(p.jobs) >= self.max_jobs:
                self.refused += 1
                return ("limit", "job", f"{len(p.jobs)} jobs tracked already (max "
                        f"{self.max_jobs}); send finished/cancel for old ones or retry later")
        if isinstance(msg, Forecast):
            if self._live.get(msg.source, 0) >= self.max_jobs_per_source:
                self._recount()
            n = self._live.get(msg.source, 0)
            if n >= self.max_jobs_per_source:
                self.refused += 1
                return ("limit", "source", f"source {msg.source!r} has {n} live forecasts "
                        f"(max {self.max_jobs_per_source}); send finished/cancel for old ones")
            self._live[msg.source] = n + 1
        return None

    def _recount(self) -> None:
        live: dict[str, int] = {}
        for j in self.planner.jobs.values():
            if j.state in _LIVE and j.forecast is not None:
                live[j.source] = live.get(j.source, 0) + 1
        self._live = live

    def _prune(self, now: float, force: bool = False) -> int:
        """Forget pending jobs whose last time is more than ``expire_s`` past, ended
        ones (finished, cancelled, no-show) ``ended_keep_s`` past (``force``: every
        ended job).  Returns how many went."""
        if not force and now - self._pruned_at < PRUNE_EVERY_S:
            return 0
        self._pruned_at = now
        if force:
            self._ended = False
        jobs = self.planner.jobs
        gone = [name for name, j in jobs.items()
                if (force and j.state not in _LIVE) or _last_time(j) < now - (
                    self.expire_s if j.state in _LIVE else self.ended_keep_s)]
        for name in gone:
            del jobs[name]
        self._recount()
        return len(gone)

    def _service_state(self) -> dict[str, Any]:
        return {"jobs": len(self.planner.jobs), "max_jobs": self.max_jobs,
                "live_per_source": dict(self._live),
                "max_jobs_per_source": self.max_jobs_per_source,
                "sources": len(self.planner.sources), "max_sources": self.max_sources,
                "refused": self.refused, "tick_errors": self.tick_errors}

    def handle_line(self, line: bytes) -> dict[str, Any]:
        try:
            obj = decode_line(line)
        except MessageError as e:
            return error_reply(e)
        return self.handle(obj)

    def tick(self) -> Plan:
        """Follow the tenants' roles, plan now and apply the limits that changed.
        Raises when planning fails (the ticker counts it and falls back)."""
        failed = False
        try:
            with self._lock:
                now = self.clock()
                self._prune(now)
                released = self._follow_roles()
                self._measure(now)
                plan = self.planner.plan(now)
                limits = {n: min(v, self.configured[n]) if self.configured.get(n) else v
                          for n, v in plan.limits.items()}
                changed = {n: v for n, v in limits.items() if self.applied.get(n) != v}
        except Exception:
            self.ticks += 1
            raise
        for name, back in released.items():
            try:
                self.release(name, back)
            except Exception:
                failed = True
                log.exception("forecast: cannot release %s", name)
        for name, bps in changed.items():
            try:
                self.apply(name, bps)
            except Exception:
                failed = True
                log.exception("forecast: cannot set limit of %s", name)
                continue
            self.applied[name] = bps
        self.ticks += 1
        self.tick_errors += failed
        return plan

    def release(self, name: str, configured: int) -> None:
        """Borrower ``name`` left the plan: its configured limit back, never planned again
        (unless it becomes a borrower again)."""
        if self._release is not None:
            self._release(name)
        else:
            self.apply(name, configured)

    def _follow_roles(self) -> dict[str, int]:
        """Roles from ``tenants()`` into the planner (lock held); the borrowers that left,
        with the configured limit they had (to release outside the lock)."""
        if self.live_tenants is None:
            return {}
        tenants = list(self.live_tenants())
        owners, borrowers = self.roles(tenants)
        old = self.configured
        self.configured = self.configured_limits(tenants, borrowers)
        guarded = self.guarded(tenants) if self.counters is not None else None
        if self.planner.set_roles(owners, borrowers, guarded=guarded):
            self.role_changes += 1
            log.info("forecast: planning %d owner(s) (%s), %d scavenger(s) (%s)", len(owners),
                     ", ".join(sorted(owners)) or "none", len(borrowers),
                     ", ".join(sorted(borrowers)) or "none")
        gone = {n: old.get(n, 0) for n in self.applied if n not in borrowers}
        for n in gone:
            del self.applied[n]
        return gone

    def _measure(self, now: float) -> None:
        """Each borrower's write fraction from its counters into the planner (lock
        held; planner.py section 9).  A borrower whose counters cannot be read keeps
        its last measurement (or stays a writer)."""
        mix = self.write_mix
        if mix is None or self.counters is None:
            return
        names = list(self.planner.borrowers)
        for n in names:
            try:
                r, w = self.counters(n)
            except Exception:       # removed meanwhile, or an engine error: next tick
                continue
            mix.observe(n, now, r, w)
        mix.keep(names)
        self.planner.set_borrowers({n: mix.fraction(n) for n in names})

    def poke(self) -> None:
        """Tick now (from any thread; returns at once): roles changed."""
        self._wake.set()

    def metric_samples(self, drive: str) -> list[tuple[str, dict[str, str], float]]:
        """The ``jbof_planner_*`` samples (name, labels, value; ``_total`` = counter)."""
        with self._lock:
            p = self.planner
            plan = p.last
            owners = dict(p.owners)
            guarded = set(p.guarded)
            mix = self.write_mix
            fractions = {n: (b.write_fraction, mix is None or mix.measured(n))
                         for n, b in p.borrowers.items()}
            sources = {n: (c.arrivals, c.misses, c.fallback, c.budget)
                       for n, c in p.sources.items()}
            cap, headroom = p.cfg.capacity_bps, p.cfg.headroom
            applied = dict(self.applied)
        d = {"drive": drive}
        out: list[tuple[str, dict[str, str], float]] = [
            ("jbof_planner_ticks_total", d, float(self.ticks)),
            ("jbof_planner_tick_errors_total", d, float(self.tick_errors)),
            ("jbof_planner_role_changes_total", d, float(self.role_changes)),
            ("jbof_planner_capacity_bytes_per_second", d, float(cap)),
            ("jbof_planner_headroom_bytes_per_second", d, float(int(cap * headroom))),
            ("jbof_planner_owners", d, float(len(owners))),
            ("jbof_planner_borrowers", d, float(len(p.borrowers)))]
        if plan is not None:
            out += [("jbof_planner_pool_bytes_per_second", d, float(plan.pool_bps)),
                    ("jbof_planner_static_pool_bytes_per_second", d,
                     float(p.static_pool_bps))]
            for o, op in sorted(plan.owners.items()):
                if o not in owners:
                    continue
                lab = {**d, "tenant": o}
                out += [("jbof_planner_held_bytes_per_second", lab, float(op.held_bps)),
                        ("jbof_planner_lent_bytes_per_second", lab,
                         float(max(0, owners[o] - op.held_bps))),
                        ("jbof_planner_held_write_bytes_per_second", lab,
                         float(op.held_write_bps))]
        for o in sorted(owners):
            out.append(("jbof_planner_owner_guarded", {**d, "tenant": o}, float(o in guarded)))
        for b, (w, measured) in sorted(fractions.items()):
            lab = {**d, "tenant": b}
            out += [("jbof_planner_borrower_write_ratio", lab, float(w)),
                    ("jbof_planner_borrower_measured", lab, float(measured))]
        for b in sorted(p.borrowers):
            if b in applied:
                out.append(("jbof_planner_borrower_limit_bytes_per_second",
                            {**d, "tenant": b}, float(applied[b])))
        for name, (arrivals, misses, fallback, budget) in sorted(sources.items()):
            lab = {**d, "source": name}
            cov = 1.0 - misses / arrivals if arrivals else 1.0
            out += [("jbof_planner_coverage_ratio", lab, cov),
                    ("jbof_planner_coverage_target_ratio", lab, 1.0 - budget),
                    ("jbof_planner_arrivals_total", lab, float(arrivals)),
                    ("jbof_planner_misses_total", lab, float(misses)),
                    ("jbof_planner_fallback", lab, float(bool(fallback)))]
        return out

    # -- the socket ----------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("forecast service already started")
        server = LineServer(self.path, self._reply, _error_line, what="forecast socket",
                            mode=self.mode, max_connections=self.max_clients,
                            max_per_peer=self.max_clients_per_peer,
                            idle_timeout=self.idle_timeout_s, name="jbof-forecast")
        try:
            server.start()
        except IpcError as e:
            raise OSError(f"cannot listen on the {e.message}") from None
        except OSError as e:
            raise OSError(f"cannot listen on the forecast socket {self.path}: "
                          f"{e.strerror or e}") from None
        self._server = server
        self._stop.clear()
        self.tick()
        self._thread = threading.Thread(target=self._tick_loop, name="jbof-forecast-tick",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop serving; borrowers get their configured limits back."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        if self._server is not None:
            self._server.close()
            self._server = None
        for name in list(self.applied):
            try:
                self.apply(name, self.configured.get(name, 0))
            except Exception:
                log.exception("forecast: cannot restore the limit of %s", name)
        self.applied.clear()

    def __enter__(self) -> ForecastService:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _reply(self, line: bytes, _peer: Peer) -> tuple[bytes, None]:
        reply = self.handle_line(line)
        try:
            return encode(reply), None
        except (TypeError, ValueError) as e:     # e.g. a non-finite number in a reply
            log.exception("forecast: cannot encode a reply")
            return encode(error_reply(MessageError("internal", "", f"cannot encode the "
                                                   f"reply: {e}"), reply.get("id"))), None

    def _tick_failed(self) -> None:
        """A tick raised: log it (first ones in full, then at powers of two), count
        it, and fall back to the static partition until a tick succeeds."""
        self.tick_errors += 1
        n = self.tick_errors
        if n <= 3 or n & (n - 1) == 0:
            log.exception("forecast: planner tick failed (%d so far); borrowers get the "
                          "static partition until it recovers", n)
        try:
            with self._lock:
                p = self.planner
                static = p.split(p.static_pool_bps, p.static_pool_bps, 1.0)
            for name, bps in static.items():
                bps = min(bps, self.configured[name]) if self.configured.get(name) else bps
                if self.applied.get(name) != bps:
                    self.apply(name, bps)
                    self.applied[name] = bps
        except Exception:
            if n <= 3:
                log.exception("forecast: cannot apply the static partition either")

    def _tick_loop(self) -> None:
        next_tick = time.monotonic() + self.tick_s
        while True:
            if self._wake.wait(max(0.0, next_tick - time.monotonic())):
                self._wake.clear()
                next_tick = time.monotonic()     # poked: tick now, the period from here
            if self._stop.is_set():
                break
            next_tick += self.tick_s
            if next_tick < time.monotonic():       # fell behind: do not burst
                next_tick = time.monotonic() + self.tick_s
            try:
                self.tick()
            except Exception:
                self._tick_failed()


def _last_time(j: Any) -> float:
    """The last time a job's record is about: its finish, else the latest arrival its
    forecast names, else its arrival (expiry counts from it)."""
    if j.finished_s is not None:
        return float(j.finished_s)
    if j.state == "active":
        return math.inf                  # running: kept until finished (or MAX_JOBS)
    f = j.forecast
    if f is not None:
        return max([f.arrival_s, f.issued_s] + [t for _, t in f.arrival_quantiles])
    return j.arrived_s if j.arrived_s is not None else -math.inf


def _error_line(code: str, message: str) -> bytes:
    return encode(error_reply(MessageError(code, "", message)))


__all__ = ["DEFAULT_MODE", "EXPIRE_S", "IDLE_TIMEOUT_S", "MAX_CLIENTS", "MAX_CLIENTS_PER_PEER",
           "MAX_JOBS", "MAX_JOBS_PER_SOURCE", "MAX_SOURCES", "ForecastService"]
