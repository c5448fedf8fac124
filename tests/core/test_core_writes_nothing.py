"""The core never writes to the disk: files, directories, renames and temp files belong to
``ctxtui.system`` (and the shells), so planning a session can never change the machine."""

from __future__ import annotations

import ast
from pathlib import Path

import ctxtui.core

CORE = Path(ctxtui.core.__file__).parent

WRITING_MODULES = {"tempfile", "shutil"}
"""Modules whose every use creates, moves or deletes files."""
WRITING_METHODS = {
    "write_text",
    "write_bytes",
    "mkdir",
    "touch",
    "unlink",
    "rmdir",
    "rename",
    "symlink_to",
    "hardlink_to",
    "chmod",
}
"""``Path`` methods that change the disk; ``Path.replace`` is told from ``str.replace`` and
``dataclasses.replace`` by its one argument and no keywords."""
WRITING_OS = {
    "open",
    "fdopen",
    "write",
    "replace",
    "rename",
    "remove",
    "unlink",
    "mkdir",
    "makedirs",
    "rmdir",
    "removedirs",
    "link",
    "symlink",
    "chmod",
    "truncate",
    "ftruncate",
    "mkfifo",
}
"""``os`` functions that write or change the disk (``os.open`` whatever its flags: the core
has no reason to hold a raw descriptor)."""


def _write_mode(call: ast.Call, position: int = 1) -> str | None:
    """The mode of an ``open(...)`` call (``position``: where its mode goes, 0 for
    ``Path.open``) when it may write; a mode that is not a literal counts."""
    mode = call.args[position] if len(call.args) > position else None
    mode = next((k.value for k in call.keywords if k.arg == "mode"), mode)
    if mode is None:
        return None
    if not (isinstance(mode, ast.Constant) and isinstance(mode.value, str)):
        return ast.unparse(mode)
    return mode.value if set(mode.value) & set("wax+") else None


def writes_in(source: str) -> list[str]:
    """Every disk write ``source`` could make, as ``line: what``."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names.append(node.module)
                if node.module == "os":
                    names += [f"os.{a.name}" for a in node.names if a.name in WRITING_OS]
            for name in names:
                if name.split(".")[0] in WRITING_MODULES or name in {f"os.{f}" for f in WRITING_OS}:
                    found.append(f"{node.lineno}: import {name}")
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "open":
            mode = _write_mode(node)
            if mode is not None:
                found.append(f"{node.lineno}: open(..., {mode!r})")
        elif isinstance(func, ast.Attribute):
            owner = func.value
            if isinstance(owner, ast.Name) and owner.id == "os" and func.attr in WRITING_OS:
                found.append(f"{node.lineno}: os.{func.attr}")
            elif func.attr in WRITING_METHODS or (
                func.attr == "replace" and len(node.args) == 1 and not node.keywords
            ):
                found.append(f"{node.lineno}: .{func.attr}()")
            elif func.attr == "open" and (mode := _write_mode(node, 0)) is not None:
                found.append(f"{node.lineno}: .open({mode!r})")
    return found


def test_no_core_module_writes_to_the_disk() -> None:
    modules = sorted(CORE.rglob("*.py"))
    assert len(modules) > 50  # the whole core is read, not an empty folder
    writes = {
        str(path.relative_to(CORE)): hits
        for path in modules
        if (hits := writes_in(path.read_text(encoding="utf-8")))
    }
    assert writes == {}


def test_the_check_sees_every_kind_of_write() -> None:
    """Each form of write the rule names is caught, and reading is not."""
    caught = [
        "open(p, 'w')",
        "open(p, mode='ab')",
        "open(p, 'r+')",
        "open(p, mode)",
        "path.open('x')",
        "os.replace(a, b)",
        "Path(tmp).replace(target)",
        "os.open(p, os.O_WRONLY | os.O_CREAT)",
        "os.fdopen(fd, 'wb')",
        "os.makedirs(p)",
        "path.write_text('x')",
        "path.write_bytes(b'x')",
        "path.mkdir(parents=True)",
        "path.unlink()",
        "import tempfile",
        "import shutil",
        "from tempfile import mkstemp",
        "from os import replace",
    ]
    for source in caught:
        assert writes_in(source), source
    read_only = [
        "open(p)",
        "open(p, 'rb')",
        "path.open()",
        "path.read_bytes()",
        "text.replace('a', 'b')",
        "dataclasses.replace(plan, rows=rows)",
        "os.stat(p)",
        "os.environ.get('X')",
        "import os.path",
        "from os import stat",
    ]
    for source in read_only:
        assert writes_in(source) == [], source
