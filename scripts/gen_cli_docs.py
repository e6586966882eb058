#!/usr/bin/env python3
"""Generate docs/cli.md from the click help of every ``jbof`` command.

    python3 scripts/gen_cli_docs.py            # rewrite docs/cli.md
    python3 scripts/gen_cli_docs.py --check    # exit 1 if docs/cli.md is stale

tests/test_cli_docs.py checks that the checked-in page is what this prints.
The help is rendered at a fixed width (88) with no terminal, so the output does
not depend on who runs it.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import click  # noqa: E402

OUT = ROOT / "docs" / "cli.md"
WIDTH = 88


def _context(cmd: click.Command, name: str, parent: click.Context | None) -> click.Context:
    settings = {**cmd.context_settings, "terminal_width": WIDTH, "max_content_width": WIDTH}
    return click.Context(cmd, info_name=name, parent=parent, **settings)


def _walk(cmd: click.Command, path: list[str], parent: click.Context | None,
          out: list[str]) -> None:
    ctx = _context(cmd, path[-1], parent)
    level = min(len(path) + 1, 4)
    out += [f"{'#' * level} `{' '.join(path)}`", "", "```text", cmd.get_help(ctx).rstrip(),
            "```", ""]
    if isinstance(cmd, click.Group):
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            if sub is None or sub.hidden:
                continue
            _walk(sub, [*path, name], ctx, out)


def render() -> str:
    from control.cli import main
    out = ["# `jbof` command reference", "",
           "Generated from the commands' `--help` by `scripts/gen_cli_docs.py`; do not edit "
           "(tests/test_cli_docs.py checks it is current).  Units: rates `200MiB/s`, sizes "
           "`4GiB`, durations `2ms` (a bare number is refused; see README.md#units).", ""]
    # load every lazy command first: the root's listing then shows each command's own
    # short help, whatever was imported before (a test run imports them in any order)
    ctx = _context(main, "jbof", None)
    for name in main.list_commands(ctx):
        main.get_command(ctx, name)
    _walk(main, ["jbof"], None, out)
    return "\n".join(out).rstrip() + "\n"


def main_() -> int:
    text = render()
    if "--check" in sys.argv[1:]:
        if OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT} is stale: run python3 scripts/gen_cli_docs.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main_())
