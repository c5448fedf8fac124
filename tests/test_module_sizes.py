"""ctxtui stays in small pieces: modules of one job, functions that fit on a screen.

A module that grows past these limits is doing two jobs (a screen doing a widget's, a worker's
or the state's; an importer doing a table's); the limits say where to move the code before it
is written, not after a review finds it. Data tables are module-level values, not functions,
so they are not held to the function limit.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "ctxtui"
MODULE_LINES = 450
SCREEN_LINES = 300
FUNCTION_LINES = 60


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_no_module_is_too_long() -> None:
    long = {}
    for path in _modules():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        limit = SCREEN_LINES if path.parent.name == "screens" else MODULE_LINES
        if lines > limit:
            long[str(path.relative_to(PACKAGE))] = lines
    assert not long, long


def test_no_function_is_too_long() -> None:
    long = {}
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > FUNCTION_LINES:
                    long[f"{path.relative_to(PACKAGE)}:{node.name}"] = length
    assert not long, long


def test_the_limits_see_every_module() -> None:
    names = {p.name for p in _modules()}
    assert {"main.py", "actions.py", "planner.py", "openai_chat.py", "cli.py"} <= names
