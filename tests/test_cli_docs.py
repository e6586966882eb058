"""docs/cli.md is what scripts/gen_cli_docs.py prints from the click help."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_checked_in_cli_docs_match_the_generator() -> None:
    spec = importlib.util.spec_from_file_location("gen_cli_docs", ROOT / "scripts" / "gen_cli_docs.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    want = gen.render()
    have = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert have == want, "docs/cli.md is stale: run python3 scripts/gen_cli_docs.py"
    for cmd in ("jbof config diff", "jbof config save", "jbof tenant rm", "jbof stats"):
        assert f"`{cmd}`" in have
