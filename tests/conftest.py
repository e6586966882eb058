"""Shared pytest helpers.

* ``@pytest.mark.needs_core``: the test needs the compiled C core
  (``dataplane._jbof``); it is skipped with a clear reason when the
  extension is not built, so pure-Python suites run anywhere.
* ``scenario_dir``: configs/scenarios of this checkout.
* ``write_yaml(text, name="s.yaml")``: write a file in tmp_path, return its path.
"""
from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Callable

import pytest

from dataplane import extension_available

ROOT = Path(__file__).resolve().parent.parent
SCENARIO_DIR = ROOT / "configs" / "scenarios"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "needs_core: needs the compiled C core (make build)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if extension_available():
        return
    skip = pytest.mark.skip(reason="C core not built: run `make build`")
    for item in items:
        if "needs_core" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def scenario_dir() -> Path:
    return SCENARIO_DIR


@pytest.fixture
def write_yaml(tmp_path: Path) -> Callable[..., Path]:
    def write(text: str, name: str = "s.yaml") -> Path:
        p = tmp_path / name
        p.write_text(textwrap.dedent(text))
        return p
    return write
