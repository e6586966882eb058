"""The layering rules of docs/design.md#architecture, checked on the source text.

Nothing here imports the modules it checks: each file is parsed with ``ast`` and
its imports (top level and inside functions alike) become edges of a module
graph.  ``from pkg import name`` counts as an import of ``pkg.name`` when that
is a module of the tree, else of ``pkg``.

Rules:
  * only ``control/cli/`` imports click (the rest is usable without a CLI);
  * ``dataplane`` never imports ``control`` (the binding is the lowest layer);
  * ``control`` never touches the raw cffi objects (``dataplane._jbof``, or
    ``ffi``/``lib`` from any dataplane module): it goes through the typed
    wrappers of ``dataplane``;
  * no import cycles among the modules of ``control/`` and ``dataplane/``.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("control", "dataplane")


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the checked packages: dotted name -> file."""
    out: dict[str, Path] = {}
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            out[module_name(path, root)] = path
    return out


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules that module ``name`` (file ``path``) imports, resolved against ``known``
    where they are part of the tree (third-party names are kept as written)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    is_pkg = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_pkg else name.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            for a in node.names:
                sub = f"{mod}.{a.name}"
                out.add(sub if sub in known else mod)
    return out


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    mods = source_modules(root)
    known = set(mods)
    return {m: imports_of(m, p, known) for m, p in mods.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle (as a closed path ``[a, b, ..., a]``) among the graph's own
    nodes, or None.  A package's ``__init__`` is a module like any other: a package
    that imports its submodule and a submodule that imports a name from its package
    make a cycle (the classic half-initialised-module ImportError)."""
    WHITE, GREY, BLACK = 0, 1, 2
    color = {n: WHITE for n in graph}
    stack: list[str] = []

    def edges(n: str) -> list[str]:
        return sorted(m for m in graph[n] if m in graph and m != n)

    def visit(n: str) -> list[str] | None:
        color[n] = GREY
        stack.append(n)
        for m in edges(n):
            if color[m] == GREY:
                return stack[stack.index(m):] + [m]
            if color[m] == WHITE:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        color[n] = BLACK
        return None

    for n in sorted(graph):
        if color[n] == WHITE:
            found = visit(n)
            if found:
                return found
    return None


def _under(mod: str, pkg: str) -> bool:
    return mod == pkg or mod.startswith(pkg + ".")


# ---- self-checks: the checker itself finds what it must ------------------------------

def test_find_cycle_finds_a_cycle_and_only_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "os"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"p": {"p.x"}, "p.x": {"p"}}) == ["p", "p.x", "p"]
    assert find_cycle({"p": set(), "p.x": {"p"}}) is None
    assert find_cycle({"p.x": {"p.y"}, "p.y": {"p.x"}, "p": set()}) == ["p.x", "p.y", "p.x"]


def test_imports_of_resolves_submodules_and_relative_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "control"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from . import leaf\n")
    (pkg / "sub" / "leaf.py").write_text(
        "import click\n\ndef f():\n    from control.sub import leaf, CONST\n    from .. import other\n")
    (pkg / "other.py").write_text("from control.sub.leaf import f\n")
    mods = {module_name(p, tmp_path): p for p in sorted(pkg.rglob("*.py"))}
    known = set(mods)
    graph = {m: imports_of(m, p, known) for m, p in mods.items()}
    assert graph["control.sub"] == {"control.sub.leaf"}
    assert graph["control.sub.leaf"] == {"click", "control.sub.leaf", "control.sub", "control.other"}
    assert find_cycle(graph) == ["control.other", "control.sub.leaf", "control.other"]
    graph["control.other"] = set()
    assert find_cycle(graph) == ["control.sub", "control.sub.leaf", "control.sub"]


# ---- the rules ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph()


def test_the_tree_is_found(graph: dict[str, set[str]]) -> None:
    assert "control.cli" in graph and "dataplane.sim" in graph and len(graph) > 20


def test_only_the_cli_imports_click(graph: dict[str, set[str]]) -> None:
    bad = sorted(m for m, deps in graph.items()
                 if not _under(m, "control.cli") and any(_under(d, "click") for d in deps))
    assert not bad, f"modules outside control/cli/ that import click: {bad}"


def test_dataplane_never_imports_control(graph: dict[str, set[str]]) -> None:
    bad = sorted(f"{m} -> {d}" for m, deps in graph.items() if _under(m, "dataplane")
                 for d in deps if _under(d, "control"))
    assert not bad, f"dataplane imports control: {bad}"


def raw_cffi_uses(path: Path) -> list[str]:
    """Imports of the cffi objects ``ffi``/``lib`` (from any dataplane module) in a file."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dataplane"):
            out += [f"line {node.lineno}: from {node.module} import {a.name}"
                    for a in node.names if a.name in ("ffi", "lib")]
    return out


def test_raw_cffi_check_sees_both_spellings(tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    f.write_text("def g():\n    from dataplane.sim import ffi\n    from dataplane._jbof import lib\n")
    assert len(raw_cffi_uses(f)) == 2


def test_control_uses_the_typed_wrappers_not_raw_cffi(graph: dict[str, set[str]]) -> None:
    bad = sorted(m for m, deps in graph.items() if _under(m, "control")
                 and any(_under(d, "dataplane._jbof") for d in deps))
    assert not bad, f"control modules using dataplane._jbof (ffi/lib) directly: {bad}"
    raw = [f"{m} {use}" for m, p in source_modules().items() if _under(m, "control")
           for use in raw_cffi_uses(p)]
    assert not raw, f"control modules importing ffi/lib: {raw}"


def test_no_import_cycles(graph: dict[str, set[str]]) -> None:
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])
