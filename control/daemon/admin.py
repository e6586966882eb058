"""The admin socket: live control of a running ``jbof serve``.

Transport: a unix socket (mode 0600 by default: only the daemon's user -- and
root -- may connect) carrying newline-delimited JSON, served by control/ipc.py's
``LineServer`` (its rules: peer uid check, connection cap, line limit, idle
timeout).  One request per line, one reply per line, in order:

    -> {"v": 1, "id": 7, "op": "tenant.set", "args": {"name": "B", "weight": 4}}
    <- {"v": 1, "id": 7, "ok": true, "result": {...}}
    <- {"v": 1, "id": 7, "ok": false, "error": {"code": "invalid",
        "message": "args.weight: 0 is out of range (allowed: 1..10000)"}}

``v`` (protocol version, required) must be 1; ``id`` (optional, any JSON
value) is echoed.  Arguments use the config file's keys and units
(control/config.py: ``"reserve": "200MiB/s"``, ``"latency_slo": "2ms"``;
plain integers are bytes, bytes/s, or seconds for durations).

Ops (``OPS``): ping, config.get, tenant.add, tenant.remove, tenant.set,
tenant.list, drive.list, drive.set, stats, tune.status, tune.set, tls.reload
(read listen.tls_psk_file again: new TLS handshakes use its keys, open
connections keep theirs; a bad file is an error and the old keys stay;
nothing is saved), shutdown.  Each change is
validated against the whole config (control.config.check_config), applied
to the running Engine (between two reactor batches; queued and in-flight IO
is neither dropped nor reordered), then persisted atomically (the previous
file kept as FILE.prev) when the daemon was started with --config.

Requests are decoded by control/ipc.py's ``loads_strict``: a duplicate key
(``{"v": 1, "op": "ping", "op": "shutdown"}``), NaN/Infinity or a number beyond
1.8e308, or nesting deeper than 64 levels is a ``bad_json`` error naming the
key -- never "the last one wins".

Bounds (control/ipc.py): lines up to 64 KiB; at most ``max_connections`` (16,
``admin.max_connections``) connections; a connection idle for
``IDLE_TIMEOUT_S`` (60 s: a CLI call takes milliseconds, a dashboard polls
more often) is closed, so idle clients cannot hold every slot.

Error codes: bad_json (not UTF-8 / not JSON / a duplicate key / a non-finite
number), bad_request (not an object, no
op, bad args type), version, unknown_op, invalid (a bad argument: the
message names the key), not_found, exists, no_space (the drive has no room
for the namespace), engine (the data plane refused), persist (applied live
but not saved), too_long (a line above MAX_LINE_BYTES: skipped, the
connection goes on), busy (too many admin connections), forbidden (peer uid),
internal.  A bad request never stops the daemon.

What each op does is control/daemon/operations.py's (``Operations``).
"""
from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from control.ipc import (
    MAX_LINE_BYTES,
    IpcError,
    JsonError,
    LineClient,
    LineServer,
    Peer,
    loads_strict,
)

log = logging.getLogger("jbof.admin")

PROTOCOL_VERSION = 1
IDLE_TIMEOUT_S = 60.0
OPS = ("ping", "config.get", "tenant.add", "tenant.remove", "tenant.set", "tenant.list",
       "drive.list", "drive.set", "stats", "tune.status", "tune.set", "tls.reload", "shutdown")
READ_ONLY_OPS = ("ping", "config.get", "tenant.list", "drive.list", "stats", "tune.status")
PROTOCOL_ERRORS = ("bad_json", "bad_request", "version", "unknown_op")


class AdminError(IpcError):
    """A structured admin error: ``code`` (see the module docstring) and a one-line message."""


# ------------------------------------------------------------------ protocol ---

def decode_request(line: bytes) -> tuple[Any, str, dict[str, Any]]:
    """(id, op, args) of one request line, or AdminError (carrying the id if known)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        raise AdminError("bad_json", f"request is not UTF-8 (byte {e.start})") from None
    try:
        req = loads_strict(text)
    except JsonError as e:
        raise AdminError("bad_json", f"request refused: {e}") from None
    except RecursionError:
        raise AdminError("bad_json", "request is nested too deeply") from None
    except ValueError as e:
        raise AdminError("bad_json", f"request is not JSON: {e}") from None
    if not isinstance(req, dict):
        raise AdminError("bad_request", "a request is a JSON object "
                         '(example: {"v": 1, "op": "tenant.list"})')
    unknown = set(req) - {"v", "id", "op", "args"}
    if unknown:
        raise AdminError("bad_request", f"unknown request key {sorted(unknown)[0]!r} "
                         "(allowed: v, id, op, args)")
    if "v" not in req:
        raise AdminError("version", f"request has no protocol version (send \"v\": "
                         f"{PROTOCOL_VERSION})")
    if req["v"] != PROTOCOL_VERSION or isinstance(req["v"], bool):
        raise AdminError("version", f"protocol version {req['v']!r} is not supported "
                         f"(this daemon speaks {PROTOCOL_VERSION})")
    op = req.get("op")
    if not isinstance(op, str):
        raise AdminError("bad_request", f"request needs \"op\" (one of: {', '.join(OPS)})")
    args = req.get("args", {})
    if not isinstance(args, dict):
        raise AdminError("bad_request", "\"args\" must be a JSON object")
    return req.get("id"), op, args


def encode_reply(rid: Any, result: Any = None, error: AdminError | None = None) -> bytes:
    msg: dict[str, Any] = {"v": PROTOCOL_VERSION}
    if rid is not None:
        msg["id"] = rid
    if error is None:
        msg.update(ok=True, result=result)
    else:
        msg.update(ok=False, error=error.as_dict())
    return json.dumps(msg, separators=(",", ":"), default=str).encode() + b"\n"


# -------------------------------------------------------------------- server ---

class AdminServer:
    """Serve ``control`` (an Operations: ``handle(op, args, peer)``, ``after(op)``) on
    a unix socket (control/ipc.py's LineServer)."""

    def __init__(self, control: Any, path: str, mode: int = 0o600,
                 max_connections: int = 16, max_line: int = MAX_LINE_BYTES,
                 idle_timeout: float = IDLE_TIMEOUT_S) -> None:
        self.control = control
        self.path = path
        self.mode = mode
        self._server = LineServer(
            path, self._reply, lambda code, msg: encode_reply(None, error=AdminError(code, msg)),
            what="admin socket", mode=mode, max_connections=max_connections,
            max_line=max_line, idle_timeout=idle_timeout, name="jbof-admin",
            in_use_hint="set admin.socket or --admin-socket")

    def start(self) -> None:
        """Bind (replacing a stale socket file), set the mode, then listen."""
        try:
            self._server.start()
        except IpcError as e:
            raise AdminError(e.code, e.message) from None
        log.info("admin socket %s (mode %04o)", self.path, self.mode)

    def close(self) -> None:
        """Stop accepting, close every connection, remove the socket file."""
        self._server.close()

    def _reply(self, line: bytes, peer: Peer) -> tuple[bytes, Callable[[], None] | None]:
        rid: Any = None
        op = ""
        try:
            rid, op, args = decode_request(line)
            reply = encode_reply(rid, self.control.handle(op, args, str(peer)))
        except AdminError as e:
            if e.code not in PROTOCOL_ERRORS:
                log.info("admin %s failed: %s: %s %s", op, e.code, e.message, peer)
            return encode_reply(rid, error=e), None
        except Exception as e:  # a bug must not kill the daemon: report it, keep serving
            log.exception("admin %s: internal error", op)
            return encode_reply(rid, error=AdminError("internal", f"{type(e).__name__}: {e}")), None
        return reply, lambda: self.control.after(op)


# -------------------------------------------------------------------- client ---

def _connect_error(path: str, e: OSError) -> str:
    if isinstance(e, FileNotFoundError):
        return (f"no admin socket at {path} (is `jbof serve` running? give --socket PATH or "
                "set JBOF_ADMIN_SOCKET)")
    if isinstance(e, PermissionError):
        return f"permission denied on admin socket {path} (run as the daemon's user)"
    if isinstance(e, ConnectionRefusedError):
        return f"nobody listens on admin socket {path} (is `jbof serve` running?)"
    return f"cannot connect to admin socket {path}: {e.strerror or e}"


class Client(LineClient):
    """A blocking client of the admin socket: ``Client(path).call("tenant.list")``."""

    def __init__(self, path: str, timeout: float = 30.0) -> None:
        super().__init__(path, timeout, AdminError, lambda e: _connect_error(path, e),
                         what="admin socket")
        self._next_id = 1

    def __enter__(self) -> Client:
        return self

    def call(self, op: str, **args: Any) -> Any:
        """Send one request; return its result or raise AdminError(code, message)."""
        rid = self._next_id
        self._next_id += 1
        req = {"v": PROTOCOL_VERSION, "id": rid, "op": op, "args": args}
        try:
            self.send_raw(json.dumps(req).encode() + b"\n")
        except AdminError as e:
            # the daemon may have refused us (busy, forbidden) and closed: read why
            try:
                reply = self.read_reply()
            except AdminError:
                raise e from None
        else:
            reply = self.read_reply()
        if reply.get("ok"):
            return reply.get("result")
        err = reply.get("error") or {}
        raise AdminError(str(err.get("code", "internal")), str(err.get("message", reply)))


__all__ = ["IDLE_TIMEOUT_S", "MAX_LINE_BYTES", "OPS", "PROTOCOL_VERSION", "AdminError",
           "AdminServer", "Client", "decode_request", "encode_reply"]
