"""The one JSON-lines unix-socket server and client (docs/design.md#architecture).

Both of ``jbof serve``'s control sockets -- the admin socket
(control/daemon/admin.py) and the forecast socket
(control/lending/forecast_server.py) -- are a ``LineServer``; their clients are
a ``LineClient``.  What the lines mean (requests, replies, error objects) is the
service's; the transport follows one set of rules:

  * the socket file: its directory is created (0700) if missing; an existing
    file that is not a socket is refused (``exists``), a live socket is refused
    (``exists``: "another daemon is listening on it"), a stale one is replaced;
    it is bound under a umask and chmod-ed to ``mode`` before ``listen()``, so it
    is never reachable with a wider mode; ``close()`` removes it (if it is still
    ours: same inode);
  * peers: when ``mode`` gives no group/other access, a peer whose uid is
    neither the daemon's nor root's (SO_PEERCRED) gets a ``forbidden`` error line
    and is disconnected;
  * at most ``max_connections`` at a time, and at most ``max_per_peer`` from one
    peer process (SO_PEERCRED pid; None: no per-peer cap): one more gets a
    ``busy`` error line and is disconnected.  The cap bounds the server's threads
    and buffers (one thread and at most ``max_line`` + 64 KiB of buffer each); the
    per-peer cap keeps one runaway client from taking every slot;
  * one thread per connection, requests answered in order, one reply line each;
    blank lines are ignored; a last request without its newline is answered at EOF;
  * a line longer than ``max_line`` bytes gets one ``too_long`` error line and is
    skipped (up to its newline); the connection goes on;
  * a connection idle for ``idle_timeout`` seconds (None: never) is closed, and
    so is one whose reply cannot be sent within ``SEND_TIMEOUT_S``: idle clients
    give their slot back, so a slot-squatter delays a good client by at most
    ``idle_timeout``;
  * a handler exception never stops the server: the handler turns bad input
    into its own error reply; anything else (a bug) is logged with its
    traceback, answered with an ``internal`` error line and the connection
    closed.  Nothing a client sends can end the accept thread.

Requests are JSON; ``loads_strict`` is the one decoder of both sockets.  It
refuses what ``json.loads`` lets through silently: duplicate keys (``json``
keeps the last: ``{"op": "ping", "op": "shutdown"}`` would be a shutdown),
NaN/Infinity and numbers that overflow to infinity (``1e999``), and nesting
deeper than ``MAX_JSON_DEPTH`` (64: no request is deeper than 4); each is a
one-line ``JsonError`` naming the key.

The client side (``LineClient``): connect (failures -> ``error("connect", ...)``
with the service's wording), send a line, read a reply line of at most
``MAX_REPLY_BYTES``, decoded as a JSON object (else ``bad_json``); timeouts
are ``timeout``, a closed connection ``connect``.
"""
from __future__ import annotations

import json
import logging
import math
import os
import selectors
import socket
import stat
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from control import units
from control.errors import JbofError

log = logging.getLogger("jbof.ipc")

MAX_LINE_BYTES = 64 * 1024
MAX_REPLY_BYTES = 64 * 1024 * 1024
MAX_JSON_DEPTH = 64
SEND_TIMEOUT_S = 10.0

__all__ = ["MAX_JSON_DEPTH", "MAX_LINE_BYTES", "MAX_REPLY_BYTES", "IpcError", "JsonError",
           "LineClient", "LineServer", "Peer", "loads_strict"]


# ------------------------------------------------------------- strict JSON ---

class JsonError(ValueError):
    """A request that is not acceptable JSON: ``key`` (the offending key, "" if
    none) and a one-line ``message``."""

    def __init__(self, key: str, message: str) -> None:
        self.key = key
        self.message = " ".join(message.split())
        super().__init__(f"key {key!r}: {self.message}" if key else self.message)


def _nonfinite(v: Any) -> bool:
    """A float that is NaN or infinite, in ``v`` or in a list directly inside it."""
    if isinstance(v, float):
        return not math.isfinite(v)
    if isinstance(v, list):
        return any(_nonfinite(x) for x in v if isinstance(x, (float, list)))
    return False


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise JsonError(k, "duplicate key")
        if _nonfinite(v):
            raise JsonError(k, "not a finite number (NaN, Infinity and numbers beyond "
                            "1.8e308 are refused)")
        out[k] = v
    return out


def _depth_ok(text: str) -> bool:
    """No more than MAX_JSON_DEPTH nested [ / { (outside strings): checked before
    parsing, so a deep request costs one scan, never a RecursionError."""
    depth = 0
    in_str = esc = False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return False
        elif ch in "]}":
            depth -= 1
    return True


def loads_strict(text: str) -> Any:
    """``json.loads`` that refuses duplicate keys, non-finite numbers and deep nesting
    (JsonError, one line naming the key); other bad JSON is ``json.JSONDecodeError``."""
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH and not _depth_ok(text):
        raise JsonError("", f"nested deeper than {MAX_JSON_DEPTH} levels")
    obj = json.loads(text, object_pairs_hook=_pairs, parse_constant=lambda c: math.nan)
    if _nonfinite(obj):
        raise JsonError("", "not a finite number (NaN, Infinity and numbers beyond "
                        "1.8e308 are refused)")
    return obj


class IpcError(JbofError):
    """A structured error: ``code`` (a word: exists, busy, connect, ...) and a one-line message."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = " ".join(str(message).split())
        super().__init__(self.message)

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


@dataclass(frozen=True)
class Peer:
    """Who is on the other end of a connection (SO_PEERCRED; -1 when unknown)."""
    pid: int
    uid: int
    gid: int

    def __str__(self) -> str:
        return f"(uid {self.uid} pid {self.pid})"


def peer_of(sock: socket.socket) -> Peer:
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        return Peer(*struct.unpack("3i", raw))
    except OSError:
        return Peer(-1, -1, -1)


# A handler answers one request line: (reply line, an action to run once the reply
# is sent, or None).  ``error_line(code, message)`` is the service's error reply for
# the transport's own errors (too_long, busy, forbidden).
Handler = Callable[[bytes, Peer], "tuple[bytes, Callable[[], None] | None]"]
ErrorLine = Callable[[str, str], bytes]


class LineServer:
    """A unix-socket server of newline-delimited requests (the rules: module docstring)."""

    def __init__(self, path: str, handler: Handler, error_line: ErrorLine, *,
                 what: str = "socket", mode: int = 0o600, max_connections: int = 16,
                 max_line: int = MAX_LINE_BYTES, idle_timeout: float | None = None,
                 name: str = "jbof-ipc", in_use_hint: str = "",
                 max_per_peer: int | None = None) -> None:
        self.path = path
        self.in_use_hint = f" ({in_use_hint})" if in_use_hint else ""
        self.handler = handler
        self.error_line = error_line
        self.what = what
        self.mode = mode
        self.max_connections = max_connections
        self.max_per_peer = max_per_peer
        self.max_line = max_line
        self.idle_timeout = idle_timeout
        self.name = name
        self._sock: socket.socket | None = None
        self._inode: tuple[int, int] | None = None
        self._stop = threading.Event()
        self._wake_r, self._wake_w = -1, -1
        self._thread: threading.Thread | None = None
        self._conns: set[socket.socket] = set()
        self._per_peer: dict[int, int] = {}      # pid -> open connections
        self.internal_errors = 0                 # handler bugs (logged; tests read it)
        self._conn_lock = threading.Lock()
        self._workers: list[threading.Thread] = []

    # -- the socket file ---------------------------------------------------------

    def start(self) -> None:
        """Bind (replacing a stale socket file), set the mode, listen, start accepting."""
        path = self.path
        parent = Path(path).parent
        if not parent.exists():
            parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            st = None
        if st is not None:
            if not stat.S_ISSOCK(st.st_mode):
                raise IpcError("exists", f"{self.what} {path}: exists and is not a socket")
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            probe.settimeout(1.0)
            try:
                probe.connect(path)
            except (ConnectionRefusedError, FileNotFoundError):
                os.unlink(path)      # stale: nobody listens
            except OSError:
                pass
            else:
                raise IpcError("exists", f"{self.what} {path}: in use: another daemon is "
                               f"listening on it{self.in_use_hint}")
            finally:
                probe.close()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            old = os.umask(0o777 & ~self.mode)
            try:
                sock.bind(path)
            finally:
                os.umask(old)
            os.chmod(path, self.mode)          # before listen(): no window with a wider mode
            st = os.stat(path)
            self._inode = (st.st_dev, st.st_ino)
            sock.listen(max(128, self.max_connections * 4))   # room for bursts
        except BaseException:
            sock.close()
            raise
        sock.setblocking(False)
        self._sock = sock
        self._stop.clear()
        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=self._accept_loop, name=self.name, daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop accepting, close every connection, remove the socket file."""
        self._stop.set()
        if self._wake_w >= 0:
            os.write(self._wake_w, b"x")
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        with self._conn_lock:
            for c in list(self._conns):
                try:
                    c.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        for w in self._workers:
            w.join(timeout=5)
        self._workers = []
        if self._sock is not None:
            self._sock.close()
            self._sock = None
            try:
                st = os.stat(self.path)
                if (st.st_dev, st.st_ino) == self._inode:
                    os.unlink(self.path)
            except OSError:
                pass
        for fd in (self._wake_r, self._wake_w):
            if fd >= 0:
                os.close(fd)
        self._wake_r = self._wake_w = -1

    # -- connections -------------------------------------------------------------

    def _accept_loop(self) -> None:
        assert self._sock is not None
        sel = selectors.DefaultSelector()
        sel.register(self._sock, selectors.EVENT_READ)
        sel.register(self._wake_r, selectors.EVENT_READ)
        try:
            while not self._stop.is_set():
                for key, _ in sel.select():
                    if key.fileobj is not self._sock:
                        return
                    try:
                        conn, _addr = self._sock.accept()
                    except (BlockingIOError, InterruptedError):
                        continue
                    except OSError as e:
                        log.warning("%s accept: %s", self.what, e)
                        time.sleep(0.05)
                        continue
                    try:
                        self._admit(conn)
                    except Exception:     # e.g. no thread can be started: drop it, go on
                        log.exception("%s: cannot serve a connection", self.what)
                        self._release(conn, peer_of(conn))
                        conn.close()
        finally:
            sel.close()

    def _admit(self, conn: socket.socket) -> None:
        conn.setblocking(True)
        peer = peer_of(conn)
        if self.mode & 0o077 == 0 and peer.uid not in (0, os.geteuid()):
            log.warning("%s: refused uid %d (pid %d)", self.what, peer.uid, peer.pid)
            self._send(conn, self.error_line(
                "forbidden", f"only the daemon's user may use this {self.what}"))
            conn.close()
            return
        with self._conn_lock:
            mine = self._per_peer.get(peer.pid, 0)
            if len(self._conns) >= self.max_connections:
                busy = f"too many {self.what} connections (max {self.max_connections}); retry"
            elif self.max_per_peer is not None and mine >= self.max_per_peer:
                busy = (f"too many {self.what} connections from this process "
                        f"(max {self.max_per_peer}); retry")
            else:
                busy = ""
                self._conns.add(conn)
                self._per_peer[peer.pid] = mine + 1
        if busy:
            log.warning("%s: busy: refused %s", self.what, peer)
            self._send(conn, self.error_line("busy", busy))
            conn.close()
            return
        t = threading.Thread(target=self._serve, args=(conn, peer),
                             name=f"{self.name}-conn", daemon=True)
        self._workers = [w for w in self._workers if w.is_alive()] + [t]
        t.start()

    def _release(self, conn: socket.socket, peer: Peer) -> None:
        with self._conn_lock:
            if conn in self._conns:
                self._conns.discard(conn)
                n = self._per_peer.get(peer.pid, 0) - 1
                if n > 0:
                    self._per_peer[peer.pid] = n
                else:
                    self._per_peer.pop(peer.pid, None)

    @staticmethod
    def _send(conn: socket.socket, data: bytes) -> bool:
        try:
            conn.settimeout(SEND_TIMEOUT_S)
            conn.sendall(data)
            return True
        except OSError:
            return False

    def _too_long(self) -> bytes:
        return self.error_line("too_long", f"request line longer than {self.max_line} bytes")

    def _serve(self, conn: socket.socket, peer: Peer) -> None:
        buf = b""
        skipping = False          # inside an over-long line: drop up to its newline
        try:
            while not self._stop.is_set():
                nl = buf.find(b"\n")
                if nl < 0:
                    if len(buf) > self.max_line:
                        if not skipping and not self._send(conn, self._too_long()):
                            return
                        skipping, buf = True, b""
                    conn.settimeout(self.idle_timeout)
                    try:
                        chunk = conn.recv(65536)
                    except OSError:       # idle timeout, reset
                        return
                    if not chunk:
                        if buf.strip() and not skipping:   # a last request without newline
                            self._answer(conn, buf, peer)
                        return
                    buf += chunk
                    continue
                line, buf = buf[:nl], buf[nl + 1:]
                if skipping:              # the tail of an over-long line
                    skipping = False
                    continue
                if not line.strip():
                    continue
                if len(line) > self.max_line:
                    if not self._send(conn, self._too_long()):
                        return
                    continue
                if not self._answer(conn, line, peer):
                    return
        except Exception:             # a transport bug: never let it out of the thread
            self.internal_errors += 1
            log.exception("%s: internal error, connection of %s closed", self.what, peer)
        finally:
            self._release(conn, peer)
            try:
                conn.close()
            except OSError:
                pass

    def _answer(self, conn: socket.socket, line: bytes, peer: Peer) -> bool:
        try:
            reply, after = self.handler(line, peer)
        except Exception as e:    # the handler's own bug: log it, say so, drop the connection
            self.internal_errors += 1
            log.exception("%s: internal error (request from %s)", self.what, peer)
            try:
                self._send(conn, self.error_line(
                    "internal", f"internal error ({type(e).__name__}); see the daemon's log"))
            except Exception:
                log.exception("%s: cannot report the internal error", self.what)
            return False
        ok = self._send(conn, reply)
        if after is not None:
            try:
                after()
            except Exception:
                self.internal_errors += 1
                log.exception("%s: internal error after a reply (to %s)", self.what, peer)
                return False
        return ok


class LineClient:
    """A blocking client: one request line out, one reply line (a JSON object) back.

    ``error(code, message)`` builds the service's exception; ``connect_error(e)``
    words a failed connect (the service knows what to suggest)."""

    def __init__(self, path: str, timeout: float, error: Callable[[str, str], Exception],
                 connect_error: Callable[[OSError], str], what: str = "socket") -> None:
        self.path = path
        self.what = what
        self._error = error
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout)
        try:
            self._sock.connect(path)
        except OSError as e:
            self._sock.close()
            raise error("connect", connect_error(e)) from None
        self._buf = b""

    def __enter__(self) -> LineClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._sock.close()

    def send_raw(self, data: bytes) -> None:
        """Send bytes as they are (tests use this for malformed input)."""
        try:
            self._sock.sendall(data)
        except OSError as e:
            raise self._error("connect", f"{self.what} {self.path}: {e.strerror or e}") from None

    def read_reply(self) -> dict[str, Any]:
        """The next reply line, decoded (a JSON object)."""
        while b"\n" not in self._buf:
            if len(self._buf) > MAX_REPLY_BYTES:
                raise self._error("too_long", "reply longer than "
                                  f"{units.format_size(MAX_REPLY_BYTES)}")
            try:
                chunk = self._sock.recv(1 << 20)
            except TimeoutError:
                raise self._error("timeout", f"no reply from {self.path}") from None
            except OSError as e:
                raise self._error("connect", f"{self.what} {self.path}: "
                                  f"{e.strerror or e}") from None
            if not chunk:
                raise self._error("connect", f"{self.what} {self.path} closed the connection")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        try:
            reply = json.loads(line)
        except ValueError:
            raise self._error("bad_json", f"{self.what} {self.path} sent a reply that is "
                              "not JSON") from None
        if not isinstance(reply, dict):
            raise self._error("bad_json", f"{self.what} {self.path} sent a reply that is "
                              "not an object")
        return reply
