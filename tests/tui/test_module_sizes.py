"""The Textual shell stays in small pieces: modules of one job, functions that fit on a screen.

A screen that grows past these limits is doing a widget's, a worker's or the state's job; the
limits say where to move the code before it is written, not after a review finds it.
"""

from __future__ import annotations

import ast
from pathlib import Path

TUI = Path(__file__).resolve().parents[2] / "ctxtui" / "tui"
MODULE_LINES = 450
SCREEN_LINES = 300
FUNCTION_LINES = 60


def _modules() -> list[Path]:
    return sorted(TUI.rglob("*.py"))


def test_no_tui_module_is_too_long() -> None:
    long = {}
    for path in _modules():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        limit = SCREEN_LINES if path.parent.name == "screens" else MODULE_LINES
        if lines > limit:
            long[str(path.relative_to(TUI))] = lines
    assert not long, long


def test_no_tui_function_is_too_long() -> None:
    long = {}
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > FUNCTION_LINES:
                    long[f"{path.relative_to(TUI)}:{node.name}"] = length
    assert not long, long


def test_the_limits_see_every_module() -> None:
    names = {p.name for p in _modules()}
    assert {"main.py", "actions.py", "state.py", "message_list.py"} <= names
