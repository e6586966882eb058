"""``jbof config check``: what ``jbof serve`` would reject, found before it runs.

Beyond the file's validation (control/config.py) this looks at the machine:
drive paths exist (or, with ``size``, can be created: the file backend creates
a missing file in an existing directory) and are regular files or block
devices big enough for the drive's size, O_DIRECT opens where ``direct`` is requested, the unix sockets
are not in use by a running process (a connect test), their directories can
be created, and the TCP addresses (NBD ``listen.tcp``, ``metrics``) can be
bound (a bind test).  Each problem is one sentence naming the object.
"""
from __future__ import annotations

import errno
import os
import socket
import stat
from pathlib import Path

from control.config import Config, _file_size, forecast_settings

__all__ = ["problems"]


def _drive_problems(cfg: Config) -> list[str]:
    out = []
    for d in cfg.drives:
        if d.backend != "file" or d.path is None:
            if d.backend == "emulated" and d.path is not None:
                parent = Path(d.path).resolve().parent
                if not parent.is_dir():
                    out.append(f"drive {d.name}: the directory of its data file {d.path} "
                               "does not exist")
            continue
        p = d.path
        try:
            st = os.stat(p)
        except FileNotFoundError:
            parent = Path(p).parent
            if not parent.is_dir():
                out.append(f"drive {d.name}: {p} does not exist, nor does its directory "
                           f"{parent} (fix drives[].path)")
            elif d.size is None:
                out.append(f"drive {d.name}: {p} does not exist (create it, e.g. "
                           f"`truncate -s 64GiB {p}`, give drives[].size to have serve "
                           "create it, or fix drives[].path)")
            elif not os.access(parent, os.W_OK | os.X_OK):
                out.append(f"drive {d.name}: {p} does not exist and {parent} is not "
                           "writable, so serve cannot create it")
            continue                        # serve creates it with drives[].size
        except PermissionError:
            out.append(f"drive {d.name}: {p}: permission denied")
            continue
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISBLK(st.st_mode)):
            out.append(f"drive {d.name}: {p} is not a regular file or block device")
            continue
        have = _file_size(p)
        if d.size is not None and have is not None and have < d.size \
                and stat.S_ISBLK(st.st_mode):
            out.append(f"drive {d.name}: {p} holds {have} bytes, less than its size "
                       f"{_size_text(d.size)}")
        if have is not None and have < (1 << 20) and d.size is None:
            out.append(f"drive {d.name}: {p} is smaller than 1 MiB (give drives[].size or "
                       "grow the file)")
        if not os.access(p, os.R_OK | os.W_OK):
            out.append(f"drive {d.name}: {p} is not readable and writable by this user")
            continue
        if d.direct and hasattr(os, "O_DIRECT"):
            try:
                fd = os.open(p, os.O_RDWR | os.O_DIRECT)
                os.close(fd)
            except OSError as e:
                if e.errno == errno.EINVAL:
                    out.append(f"drive {d.name}: the file system of {p} does not support "
                               "O_DIRECT (set direct: false)")
                else:
                    out.append(f"drive {d.name}: cannot open {p}: {e.strerror}")
    return out


def _unix_problem(what: str, path: str) -> str | None:
    p = Path(path)
    if p.exists():
        if not stat.S_ISSOCK(p.stat().st_mode):
            return f"{what} {path} exists and is not a socket"
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.settimeout(1.0)
            s.connect(path)
            return (f"{what} {path} is in use by a running process (is a jbof serve "
                    "running? stop it or choose another path)")
        except OSError:
            return None            # a stale socket file: serve replaces it
        finally:
            s.close()
    parent = p.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"{what} {path}: cannot create it ({parent} is not writable)"
    if len(os.fsencode(path)) > 107:
        return f"{what} {path} is too long for a unix socket (at most 107 bytes)"
    return None


def _tcp_problem(what: str, hostport: str) -> str | None:
    host, _, port_s = hostport.rpartition(":")
    host = host.strip("[]")
    port = int(port_s)
    if port == 0:
        return None
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as e:
        return f"{what} {hostport}: cannot resolve {host} ({e.strerror})"
    fam, typ, proto, _c, addr = infos[0]
    s = socket.socket(fam, typ, proto)
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(addr)
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            return f"{what} {hostport} is in use by another process (choose another port)"
        if e.errno == errno.EACCES:
            return f"{what} {hostport}: permission denied (ports below 1024 need privileges)"
        if e.errno == errno.EADDRNOTAVAIL:
            return f"{what} {hostport}: no local interface has that address"
        return f"{what} {hostport}: cannot bind: {e.strerror}"
    finally:
        s.close()
    return None


def problems(cfg: Config) -> list[str]:
    """Everything serve would reject on this machine, one sentence each ([] = none)."""
    out = _drive_problems(cfg)
    socks = [("the NBD socket (listen.unix)", cfg.nbd_socket),
             ("the admin socket (admin.socket)", cfg.admin_socket)]
    fs = forecast_settings(cfg)
    if fs:
        socks.append(("the forecast socket (forecast.socket)", fs["socket"]))
    for what, path in socks:
        if path:
            msg = _unix_problem(what, str(path))
            if msg:
                out.append(msg)
    for what, addr in (("the NBD TCP address (listen.tcp)", cfg.listen.tcp),
                       ("the metrics address (metrics)", cfg.metrics)):
        if addr:
            msg = _tcp_problem(what, addr)
            if msg:
                out.append(msg)
    return out
