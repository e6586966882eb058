"""What every ``jbof`` command shares: one-line errors and the common option parsers.

Error convention: bad input -> ``click.UsageError``/``BadParameter`` (``BadValue``);
operational failures -> ``click.ClickException``.  Both print one line and
exit non-zero; no command ever prints a traceback (``run_guarded``).
"""
from __future__ import annotations

import logging
import os
from typing import Any, Callable, Sequence, TypeVar

import click

from control import units
from control.errors import JbofError, explain_os_error
from control.scenario import POLICIES

T = TypeVar("T")


class BadValue(click.BadParameter):
    """A bad option value: one line (``Error: Invalid value for '--policy': ...``), no usage."""

    def show(self, file: Any = None) -> None:
        click.echo(f"Error: {self.format_message()}", err=True, file=file)


def duration_ns_option(duration: str | None, min_ns: int = 1,
                       too_short: str = "must be longer than zero") -> int | None:
    """--duration D in nanoseconds (None when not given), at least min_ns; one-line
    error otherwise."""
    if duration is None:
        return None
    try:
        ns = units.parse_duration_ns(duration)
    except ValueError as e:
        raise BadValue(str(e), param_hint="'--duration'") from None
    if ns < min_ns:
        raise BadValue(too_short, param_hint="'--duration'")
    return ns


def duration_option(duration: str | None) -> float | None:
    """--duration D in seconds (None when not given); one-line error otherwise."""
    ns = duration_ns_option(duration)
    return None if ns is None else ns / 1e9


def run_guarded(fn: Callable[[], T]) -> T:
    """Call fn; turn every failure into a one-line ClickException (never a traceback)."""
    try:
        return fn()
    except (click.ClickException, click.exceptions.Exit, click.Abort, KeyboardInterrupt):
        raise
    except JbofError as e:
        raise click.ClickException(str(e)) from None
    except ImportError as e:
        if "dataplane._jbof" in str(e) or "_jbof" in str(getattr(e, "name", "") or ""):
            raise click.ClickException("the C core is not built: run `make build` "
                                       f"({' '.join(str(e).split())})") from None
        raise click.ClickException(f"import failed: {' '.join(str(e).split())}") from None
    except OSError as e:  # includes dataplane.DataplaneError: in words when known
        raise click.ClickException(explain_os_error(e)) from None
    except ValueError as e:
        raise click.ClickException(" ".join(str(e).split())) from None
    except Exception as e:  # a bug: still one line, with a hint to get the details
        logging.getLogger("jbof").debug("internal error", exc_info=True)
        raise click.ClickException(f"internal error: {type(e).__name__}: "
                                   f"{' '.join(str(e).split())} (run with --log-level debug "
                                   "for the traceback)") from None


def parse_choices(values: Sequence[str], allowed: Sequence[str], what: str = "a policy",
                  option: str = "--policy") -> list[str]:
    """Repeated and/or comma-separated option values, validated against ``allowed``,
    duplicates dropped (order kept)."""
    out: list[str] = []
    for v in values:
        for name in v.split(","):
            name = name.strip()
            if not name:
                continue
            if name not in allowed:
                raise BadValue(f"'{name}' is not {what} (allowed: {', '.join(allowed)})",
                               param_hint=f"'{option}'")
            if name not in out:
                out.append(name)
    return out


def parse_policies(values: Sequence[str]) -> list[str]:
    """``--policy`` values: repeated and/or comma lists, validated, duplicates dropped."""
    return parse_choices(values, POLICIES)


def admin_socket(value: str | None) -> str:
    """The admin socket a command talks to: its own --socket, else the global
    ``jbof -s/--socket``, else $JBOF_ADMIN_SOCKET, else $XDG_RUNTIME_DIR/jbof/admin.sock."""
    if value:
        return value
    ctx = click.get_current_context(silent=True)
    root = ctx.find_root().obj if ctx is not None else None
    if getattr(root, "socket", None):
        return str(root.socket)
    if os.environ.get("JBOF_ADMIN_SOCKET"):
        return os.environ["JBOF_ADMIN_SOCKET"]
    from control.config import resolve_socket_path
    from control.config_schema import DEFAULT_ADMIN_SOCKET
    return resolve_socket_path(DEFAULT_ADMIN_SOCKET)


def admin_socket_option(dest: str = "socket_path") -> Any:
    """``--socket PATH`` of a command that talks to the daemon (see admin_socket)."""
    def resolve(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
        if ctx.resilient_parsing:
            return value
        return admin_socket(value)
    return click.option("--socket", dest, default=None, callback=resolve, metavar="PATH",
                        expose_value=True,
                        help="Admin socket of the running daemon (default: jbof -s PATH, else "
                             "$JBOF_ADMIN_SOCKET, else $XDG_RUNTIME_DIR/jbof/admin.sock).")


def uniform(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """JSON rows with the same keys each (their union, first-seen order; null if missing)."""
    keys: dict[str, None] = {}
    for r in rows:
        keys.update(dict.fromkeys(r))
    return [{k: r.get(k) for k in keys} for r in rows]
