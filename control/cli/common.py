"""What every ``jbof`` command shares: one-line errors and the common option parsers.

Error convention: bad input -> ``click.UsageError``/``BadParameter`` (``BadValue``);
operational failures -> ``click.ClickException``.  Both print one line and
exit non-zero; no command ever prints a traceback (``run_guarded``).
"""
from __future__ import annotations

import logging
from typing import Any, Callable, Sequence, TypeVar

import click

from control import units
from control.errors import JbofError
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
    except OSError as e:  # includes dataplane.DataplaneError
        raise click.ClickException(" ".join(str(e).split())) from None
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
