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
        assert not {m for m in imported if m == "ctxtui.cli.main" or m.startswith("ctxtui.tui")}


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


# -- one import path per name --------------------------------------------------------------


def _defined(tree: ast.Module) -> tuple[set[str], list[ast.ImportFrom]]:
    """The names a module's top level defines (functions, classes, assignments, also under
    an ``if`` or ``try``), and its ``from`` imports there."""
    defined: set[str] = set()
    imports: list[ast.ImportFrom] = []
    statements = list(tree.body)
    while statements:
        node = statements.pop()
        if isinstance(node, (ast.If, ast.Try)):
            statements += [*node.body, *node.orelse, *getattr(node, "finalbody", [])]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.ImportFrom):
            imports.append(node)
    return defined, imports


def _modules(package: Path) -> dict[str, tuple[Path, bool]]:
    """Every module under ``package`` by dotted name, with whether it is a package face."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        face = parts[-1] == "__init__"
        found[".".join(parts[:-1] if face else parts)] = (path, face)
    return found


def reexports(package: Path, users: list[Path]) -> list[str]:
    """Names handed on by a module that does not define them and is not a package face.

    Two shapes: the module declares it (``from m import y as y``, or ``y`` in its
    ``__all__``), or another module imports ``y`` through it (``from module import y``).
    Either way ``y`` has two import paths; the one to keep is where ``y`` is defined.
    """
    modules = _modules(package)
    trees = {name: ast.parse(path.read_text("utf-8")) for name, (path, _) in modules.items()}
    defined = {name: _defined(tree)[0] for name, tree in trees.items()}
    found = []
    for name, (_, face) in modules.items():
        if face:
            continue
        _, imports = _defined(trees[name])
        declared = [a.name for i in imports for a in i.names if a.asname == a.name]
        for node in trees[name].body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
            ):
                listed = ast.literal_eval(node.value)
                declared += [n for n in listed if n not in defined[name]]
        found += [f"{name} hands on {y}" for y in declared]
    for user in users:
        for node in ast.walk(ast.parse(user.read_text("utf-8"))):
            if not isinstance(node, ast.ImportFrom) or node.level or node.module not in modules:
                continue
            if modules[node.module][1]:
                continue  # a package's face may hand on names
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}" in modules
                if alias.name not in defined[node.module] and not submodule:
                    found.append(
                        f"{user.name}:{node.lineno} imports {alias.name} via {node.module}"
                    )
    return found


def test_a_name_is_imported_from_where_it_is_defined() -> None:
    repo = Path(__file__).resolve().parents[1]
    users = [p for d in ("ctxtui", "tests", "bench", "tools") for p in (repo / d).rglob("*.py")]
    assert not reexports(repo / "ctxtui", users)


def test_a_reexport_is_found(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from pkg.home import thing\n")
    (pkg / "home.py").write_text("def thing(): ...\n")
    (pkg / "hop.py").write_text("from pkg.home import thing\n\ndef other(): ...\n")
    (pkg / "declares.py").write_text("from pkg.home import thing as thing\n")
    (pkg / "lists.py").write_text("from pkg.home import thing\n\n__all__ = ['thing']\n")
    (pkg / "user.py").write_text("from pkg.hop import thing, other\nfrom pkg import thing\n")
    found = reexports(pkg, [pkg / "user.py"])
    assert sorted(found) == [
        "pkg.declares hands on thing",
        "pkg.lists hands on thing",
        "user.py:1 imports thing via pkg.hop",
    ]
