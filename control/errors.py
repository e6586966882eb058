"""Typed errors of the control plane.

Library code raises these; only the CLI turns them into one line on stderr and
a non-zero exit.  ``str(err)`` is always that one line.
"""
from __future__ import annotations


class JbofError(Exception):
    """An error meant for the user: its message is one complete line."""


class ConfigError(JbofError, ValueError):
    """A bad scenario/config value.

    ``str()`` reads ``SOURCE: KEY.PATH: what is wrong (what is allowed)``,
    e.g. ``s.yaml: tenants[1].workload.bs: '4x' is not a size (examples: 4k, 128KiB, 1MiB)``.
    """

    def __init__(self, source: str, path: str, message: str) -> None:
        self.source = source
        self.path = path
        self.message = " ".join(message.split())  # one line, always
        super().__init__(": ".join(p for p in (source, path, self.message) if p))


# ----------------------------------------------------------- C errors in words ---
# The one place that turns a C call's errno into a sentence naming the object
# (``jbof_engine_listen_unix: EADDRINUSE`` -> "the unix socket ... is in use ...").
# ``what`` is the object the call was about (the DataplaneError's detail).

_SENTENCES: dict[tuple[str, str], str] = {
    ("jbof_engine_add_drive", "ENOENT"): "{what}: the path does not exist",
    ("jbof_engine_add_drive", "EACCES"): "{what}: permission denied opening the path",
    ("jbof_engine_add_drive", "EPERM"): "{what}: permission denied opening the path",
    ("jbof_engine_add_drive", "EISDIR"): "{what}: the path is a directory, not a file or "
                                         "block device",
    ("jbof_engine_add_drive", "EINVAL"): "{what}: the backend refused the drive (O_DIRECT "
                                         "unsupported, or a size/block size it cannot use; "
                                         "try direct: false)",
    ("jbof_engine_add_drive", "ENOSPC"): "{what}: the file is smaller than the drive size",
    ("jbof_engine_add_drive", "EBUSY"): "{what}: the device is in use (mounted or opened "
                                        "exclusively)",
    ("jbof_engine_listen_unix", "EADDRINUSE"): "the unix socket {what} is in use by another "
                                               "process (is a jbof serve running? stop it or "
                                               "choose another --unix)",
    ("jbof_engine_listen_unix", "EACCES"): "cannot create the unix socket {what}: permission "
                                           "denied",
    ("jbof_engine_listen_unix", "ENOENT"): "cannot create the unix socket {what}: its "
                                           "directory does not exist",
    ("jbof_engine_listen_unix", "ENAMETOOLONG"): "the unix socket path {what} is too long "
                                                 "(at most 107 bytes)",
    ("jbof_engine_listen_tcp", "EADDRINUSE"): "the TCP address {what} is in use by another "
                                              "process (choose another port)",
    ("jbof_engine_listen_tcp", "EACCES"): "cannot listen on {what}: permission denied "
                                          "(ports below 1024 need privileges)",
    ("jbof_engine_listen_tcp", "EADDRNOTAVAIL"): "cannot listen on {what}: no local interface "
                                                 "has that address",
    ("jbof_engine_export_add", "ENOSPC"): "{what}: no free space on the drive",
    ("jbof_engine_export_add", "EEXIST"): "{what}: a tenant of that name exists",
}

_ANY_CALL: dict[str, str] = {
    "ENOENT": "{what}: no such file or directory",
    "EACCES": "{what}: permission denied",
    "EADDRINUSE": "{what}: the address is in use by another process",
    "ENOMEM": "{what}: out of memory",
    "ENOSPC": "{what}: no space left",
}


def explain_c_error(func: str, errname: str, what: str) -> str | None:
    """A C call's failure as one plain sentence naming the object, or None when there is
    no better wording than the C error itself."""
    text = _SENTENCES.get((func, errname)) or _ANY_CALL.get(errname)
    return text.format(what=what or "the data plane") if text else None


def explain_os_error(e: OSError) -> str:
    """One line for an OSError: a DataplaneError (``func``/``errname`` attributes) in
    words when known (the C error kept in brackets), else the error's own text."""
    func, errname = getattr(e, "func", None), getattr(e, "errname", None)
    if func and errname:
        detail = str(e).split(": ", 2)[2] if str(e).count(": ") >= 2 else ""
        text = explain_c_error(func, errname, detail)
        if text:
            return f"{text} [{func}: {errname}]"
    return " ".join(str(e).split())
