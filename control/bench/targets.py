"""Where a live run's IO goes (control/bench/runner.py picks one per run): the
in-process Engine (``EngineTarget``), a running ``jbof serve`` reached over its admin
socket (``DaemonTarget``), or nbdkit as a peer without QoS (``NbdkitTarget``).
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from control import units
from control.bench.live import (
    MIB,
    START_TIMEOUT_S,
    Backend,
    BenchError,
    live_model,
    ns_size,
    rounded,
)
from control.scenario import Scenario, Tenant


@dataclass(frozen=True)
class Export:
    uri: str
    size_bytes: int
    offset_bytes: int = 0


@dataclass(frozen=True)
class Counters:
    """A tenant's data-plane counters over one run."""
    bytes: int                  # read + write bytes completed
    queued_ns: int              # time with >= 1 IO waiting at the scheduler (sched.c section 25)
    cost_bytes: int = 0         # cost of the completed IO, read-byte equivalents (csrc/cost.c)

    def __sub__(self, base: Counters) -> Counters:
        return Counters(self.bytes - base.bytes, self.queued_ns - base.queued_ns,
                        self.cost_bytes - base.cost_bytes)


def tenant_counters(t: Mapping[str, Any]) -> Counters:
    """Counters of one tenant's stats (the engine's ``tenant`` dict or an admin ``stats`` row):
    both close the open queued interval at the time they were read.  The cost is the
    scheduler's ``cost_completed`` (named ``cost_bytes`` in an admin row), the counter the
    simulator's ``cost_bytes`` reads."""
    cost = t["cost_completed"] if "cost_completed" in t else t["cost_bytes"]
    return Counters(int(t["read_bytes"] + t["write_bytes"]), int(t["queued_ns"]), int(cost))


class Target(Protocol):
    """Something fio can be pointed at for one run."""
    name: str

    def open(self, policy: str, tenants: Sequence[Tenant]) -> dict[str, Export]: ...
    def counters(self) -> dict[str, Counters] | None: ...
    def device(self) -> dict[str, Any]: ...
    def close(self) -> None: ...


class EngineTarget:
    """A fresh in-process Engine (dataplane.engine) per run."""
    name = "jbof"

    def __init__(self, scenario: Scenario, backend: Backend, sockdir: Path) -> None:
        self.scenario = scenario
        self.backend = backend
        self.sockdir = sockdir
        self.model = live_model(scenario) if backend.kind == "emulated" else None
        self._eng: Any = None
        self._n = 0

    def _config(self, policy: str, tenants: Sequence[Tenant], sock: str) -> dict[str, Any]:
        sizes = {t.name: ns_size(t) for t in tenants}
        total = -(-sum(sizes.values()) // MIB) * MIB
        drive: dict[str, Any] = {"name": "d0", "backend": self.backend.kind, "size": total,
                                 "policy": policy, "seed": self.scenario.seed}
        if self.model is not None:
            drive["model"] = self.model
        if self.backend.kind == "file":
            drive["path"] = self.backend.path
        specs = []
        for t in tenants:
            spec: dict[str, Any] = {"name": t.name, "drive": "d0", "size": sizes[t.name],
                                    "class": t.klass, "weight": t.weight,
                                    "reserve": t.reserve_bps, "limit": t.limit_bps,
                                    "limit_iops": t.limit_iops, "latency_slo": t.latency_slo_ns}
            if t.sq_depth is not None:
                spec["sq_depth"] = t.sq_depth
            specs.append(spec)
        return {"drives": [drive], "tenants": specs, "listen": {"unix": sock}}

    def open(self, policy: str, tenants: Sequence[Tenant]) -> dict[str, Export]:
        from dataplane.engine import Engine
        self._n += 1
        sock = str(self.sockdir / f"jbof{self._n}.sock")
        eng = Engine(self._config(policy, tenants, sock))
        eng.start()
        self._eng = eng
        return {t.name: Export(eng.uri(t.name), ns_size(t)) for t in tenants}

    def counters(self) -> dict[str, Counters]:
        return {name: tenant_counters(self._eng.tenant_stats(name)["tenant"])
                for name in self._eng.tenants()}

    def device(self) -> dict[str, Any]:
        d = self._eng.drive_stats("d0")
        s = d["sched"]
        out = {"target": "jbof", "backend": str(self.backend),
               "model": self.model or f"{self.backend} backend",
               "state": self.scenario.device.state,
               "write_factor": rounded(s["write_factor_x256"] / 256), "ctl_state": s["ctl_state"],
               "ctl_rate_cost_bps": s["rate_cost_bps"], "backend_errors": d["backend_errors"]}
        if self.backend.kind == "emulated":
            out["ssd"] = d["ssd"]
        return out

    def close(self) -> None:
        if self._eng is not None:
            eng, self._eng = self._eng, None
            eng.close()


def _settings(t: Tenant) -> dict[str, Any]:
    """Admin tenant.set arguments that give a daemon tenant t's QoS settings."""
    return {"class": t.klass, "weight": t.weight, "reserve": units.format_rate(t.reserve_bps),
            "limit": units.format_rate(t.limit_bps), "limit_iops": t.limit_iops,
            "latency_slo": units.format_duration(t.latency_slo_ns) if t.latency_slo_ns else 0}


class DaemonTarget:
    """A running ``jbof serve`` reached through its admin socket (control.daemon.admin.Client)."""
    name = "jbof"

    def __init__(self, admin_socket: str, scenario: Scenario) -> None:
        from control.daemon.admin import Client
        self.path = admin_socket
        self.client = Client(admin_socket, timeout=30)
        rows = {r["name"]: r for r in self.client.call("tenant.list")["tenants"]}
        missing = [t.name for t in scenario.tenants if t.name not in rows]
        if missing:
            self.client.close()
            raise BenchError(f"{admin_socket}: the daemon has no tenant named "
                             f"{', '.join(repr(m) for m in missing)} (have: "
                             f"{', '.join(rows) or 'none'}); add them with `jbof tenant add`")
        drives = {rows[t.name]["drive"] for t in scenario.tenants}
        if len(drives) != 1:
            self.client.close()
            raise BenchError(f"{admin_socket}: the scenario's tenants are on drives "
                             f"{', '.join(sorted(drives))}; they must share one drive")
        self.drive: str = drives.pop()
        self.rows = rows
        cfg = self.client.call("config.get")["config"]
        self.orig_policy = next(d for d in cfg["drives"] if d["name"] == self.drive)["policy"]
        self.orig_tenants = {t["name"]: t for t in cfg.get("tenants", [])}
        self._base: dict[str, Counters] = {}
        self._touched: set[str] = set()
        self._last: dict[str, Any] = {}

    def _counters(self) -> tuple[dict[str, Counters], dict[str, Any]]:
        snap = self.client.call("stats")
        per = {t["name"]: tenant_counters(t) for t in snap["tenants"]}
        drive: dict[str, Any] = next((d for d in snap["drives"] if d["name"] == self.drive), {})
        return per, drive

    def open(self, policy: str, tenants: Sequence[Tenant]) -> dict[str, Export]:
        self.client.call("drive.set", name=self.drive, policy=policy, persist=False)
        out = {}
        for t in tenants:
            self.client.call("tenant.set", name=t.name, persist=False, **_settings(t))
            self._touched.add(t.name)
            row = self.rows[t.name]
            uri = next((u for u in row["uris"] if u.startswith("nbd+unix")), row["uris"][0])
            out[t.name] = Export(uri, min(ns_size(t), int(row["size_bytes"])) // 4096 * 4096)
        self._base, _ = self._counters()
        return out

    def counters(self) -> dict[str, Counters]:
        """Since open(): the daemon's counters run on across runs."""
        now, self._last = self._counters()
        zero = Counters(0, 0, 0)
        return {k: v - self._base.get(k, zero) for k, v in now.items()}

    def device(self) -> dict[str, Any]:
        d = self._last
        return {"target": "jbof", "backend": d.get("backend"), "admin_socket": self.path,
                "write_factor": d.get("write_factor"), "ctl_state": d.get("ctl_state"),
                "ctl_rate_cost_bps": d.get("rate_cost_bps")}

    def close(self) -> None:
        pass

    def restore(self) -> None:
        """Put the daemon's policy and the touched tenants' settings back."""
        try:
            self.client.call("drive.set", name=self.drive, policy=self.orig_policy, persist=False)
            for name in sorted(self._touched):
                o = self.orig_tenants.get(name, {})
                args: dict[str, Any] = {"weight": o.get("weight", 1), "reserve": o.get("reserve", 0),
                                        "limit": o.get("limit", 0),
                                        "limit_iops": o.get("limit_iops", 0),
                                        "latency_slo": o.get("latency_slo", 0),
                                        "class": o.get("class", self.rows[name]["class"])}
                self.client.call("tenant.set", name=name, persist=False, **args)
        finally:
            self.client.close()


def _accepts(path: str) -> bool:
    """True once something listens on the unix socket path (bind comes before listen)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.settimeout(1.0)
        s.connect(path)
        return True
    except OSError:
        return False
    finally:
        s.close()


class ServerProcess:
    """A server subprocess in its own process group, serving a unix socket."""

    def __init__(self, argv: Sequence[str], sock: str, log: Path) -> None:
        self.sock = sock
        with open(log, "wb") as err:
            self.proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=err,
                                         start_new_session=True)
        self.log = log
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _accepts(sock):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                tail = log.read_text(errors="replace").strip().splitlines()
                raise BenchError(f"{argv[0]} did not start: "
                                 f"{tail[-1] if tail else 'no message'}")
            time.sleep(0.02)

    def stop(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if self.proc.poll() is not None:
                break
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                continue
        try:
            os.unlink(self.sock)
        except OSError:
            pass


class NbdkitTarget:
    """nbdkit's memory plugin: one server and export for all tenants (each at
    its own offset), or with ``caps_bps`` one server per tenant behind the
    rate filter."""

    def __init__(self, sockdir: Path, logdir: Path,
                 caps_bps: Mapping[str, float] | None = None) -> None:
        self.sockdir = sockdir
        self.logdir = logdir
        self.caps = dict(caps_bps) if caps_bps is not None else None
        self.name = "nbdkit-rate" if caps_bps is not None else "nbdkit"
        self._servers: list[ServerProcess] = []
        self._n = 0

    def _start(self, size: int, extra: Sequence[str]) -> str:
        self._n += 1
        sock = str(self.sockdir / f"{self.name}{self._n}.sock")
        argv = ["nbdkit", "-f", "--exit-with-parent", "-U", sock, *extra[:1], "memory",
                str(size), *extra[1:]]
        self._servers.append(ServerProcess(argv, sock, self.logdir / f"{self.name}{self._n}.log"))
        return sock

    def open(self, policy: str, tenants: Sequence[Tenant]) -> dict[str, Export]:
        out: dict[str, Export] = {}
        if self.caps is None:
            sizes = [ns_size(t) for t in tenants]
            sock = self._start(sum(sizes), [])
            off = 0
            for t, size in zip(tenants, sizes, strict=True):
                out[t.name] = Export(f"nbd+unix:///?socket={sock}", size, off)
                off += size
            return out
        for t in tenants:
            bits = max(8 * 1024, int(self.caps[t.name] * 8))
            sock = self._start(ns_size(t), ["--filter=rate", f"rate={bits}", "burstiness=0.1"])
            out[t.name] = Export(f"nbd+unix:///?socket={sock}", ns_size(t))
        return out

    def counters(self) -> None:
        return None

    def device(self) -> dict[str, Any]:
        out: dict[str, Any] = {"target": self.name, "model": "nbdkit memory plugin"}
        if self.caps is not None:
            out["filter"] = "rate"
            out["caps_bps"] = {k: rounded(v) for k, v in self.caps.items()}
        return out

    def close(self) -> None:
        for s in self._servers:
            s.stop()
        self._servers = []
