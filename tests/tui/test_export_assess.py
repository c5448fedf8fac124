"""The export dialog refuses what the session is read from (issue 9 item 1, in the app).

The dialog asks the same protected set as the core's writer, so a refused path is said at once
instead of after a confirmation.
"""

from __future__ import annotations

from pathlib import Path

from ctxtui.tui.screens.export import Risk, assess
from tests.importers.test_protected_paths import _opencode_storage, _picoclaw


def test_the_export_dialog_refuses_what_the_source_is_read_from(tmp_path: Path) -> None:
    jsonl, meta = _picoclaw(tmp_path)
    risk, problem = assess(meta, jsonl)
    assert risk is Risk.NONE and "never writes there" in problem
    storage = _opencode_storage(tmp_path)
    risk, problem = assess(storage / "part" / "x.json", storage)
    assert risk is Risk.NONE and "never writes there" in problem
    assert assess(tmp_path / "fine.json", jsonl) == (Risk.NONE, "")
