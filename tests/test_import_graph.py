"""No import cycle between any two modules of ``ctxtui``, read from the real import graph.

import-linter's ``acyclic_siblings`` contract (``make check``) compares siblings only, so a
package's ``__init__`` importing a child that imports it back slips through; this test takes
every module of the graph grimp builds (the graph import-linter itself reads), lazy imports and
``TYPE_CHECKING`` imports included, and looks for modules that reach themselves.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import grimp
import pytest

KNOWN_CYCLES: set[frozenset[str]] = set()
"""Cycles tolerated for now: none. A new one is a design problem, not an entry here."""


def cycles(graph: grimp.ImportGraph) -> set[frozenset[str]]:
    """Every group of modules that import one another, directly or through others."""
    upstream = {m: graph.find_upstream_modules(m) for m in graph.modules}
    return {
        frozenset({m} | {n for n in upstream[m] if m in upstream[n]})
        for m in graph.modules
        if any(m in upstream[n] for n in upstream[m])
    }


def test_ctxtui_has_no_import_cycle_but_the_known_ones() -> None:
    found = cycles(grimp.build_graph("ctxtui"))
    new = [sorted(c) for c in found - KNOWN_CYCLES]
    assert not new, f"import cycles: {new}"
    fixed = [sorted(c) for c in KNOWN_CYCLES - found]
    assert not fixed, f"no longer cycles, remove them from KNOWN_CYCLES: {fixed}"


def test_the_shells_share_options_not_each_other() -> None:
    graph = grimp.build_graph("ctxtui")
    for module in graph.find_descendants("ctxtui.commands"):
        imported = graph.find_modules_directly_imported_by(module)
        assert not {m for m in imported if m == "ctxtui.cli" or m.startswith("ctxtui.tui")}


def test_a_cycle_through_a_package_init_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The case acyclic_siblings cannot see: a package and its own child."""
    pkg = tmp_path / "cyclepkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from cyclepkg.sub import leaf\n")
    (pkg / "sub" / "leaf.py").write_text("def f():\n    import cyclepkg.sub\n")
    (pkg / "other.py").write_text("import cyclepkg.sub.leaf\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "cyclepkg", raising=False)
    assert cycles(grimp.build_graph("cyclepkg", cache_dir=None)) == {
        frozenset({"cyclepkg.sub", "cyclepkg.sub.leaf"})
    }


_DYNAMIC = {"import_module", "__import__", "spec_from_file_location"}


def dynamic_imports(source: str) -> list[str]:
    """Calls that import a module by a computed or ``ctxtui`` name, which the graph cannot see.

    A name given as a plain string of a third-party package (``importlib.import_module(
    "tiktoken")``: optional at run time) is fine; anything else hides an edge of the graph.
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name not in _DYNAMIC or not node.args:
            continue
        first = node.args[0]
        literal = isinstance(first, ast.Constant) and isinstance(first.value, str)
        if not literal or str(first.value).split(".")[0] == "ctxtui":  # type: ignore[union-attr]
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def test_no_ctxtui_module_is_imported_by_name() -> None:
    """A lazy import is a plain ``import`` inside a function, never ``importlib`` by name."""
    root = Path(__file__).resolve().parents[1] / "ctxtui"
    hidden = {
        str(path.relative_to(root)): calls
        for path in sorted(root.rglob("*.py"))
        if (calls := dynamic_imports(path.read_text("utf-8")))
    }
    assert not hidden, hidden


@pytest.mark.parametrize(
    "source",
    [
        'importlib.import_module(f"ctxtui.commands.{name}")',
        'import_module("ctxtui.core.tokens")',
        "importlib.import_module(module_name(name))",
        '__import__("ctxtui.tui")',
    ],
)
def test_a_dynamic_import_of_ctxtui_is_found(source: str) -> None:
    assert dynamic_imports(source)


def test_a_third_party_module_by_name_is_allowed() -> None:
    assert not dynamic_imports('importlib.import_module("tiktoken")')
