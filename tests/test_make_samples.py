"""``tools/make_samples.py``: the committed samples are the data, each kept in its layout.

The files must stay byte-identical to what their layout writes, so that a hand edit or a model
change shows up as a small diff, and ``--write`` must restore a mangled copy exactly.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pydantic import ValidationError

from tests.tools_loader import REPO, load_tool

tool = load_tool("make_samples")


@pytest.mark.parametrize("name", sorted(tool.LAYOUTS))
def test_each_committed_sample_is_in_its_layout(name: str) -> None:
    text, wanted = tool.canonical(name)
    assert text == wanted


def test_write_restores_mangled_copies_byte_for_byte(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in tool.LAYOUTS:
        shutil.copy2(REPO / "sample_sessions" / name, tmp_path / name)
    demo = tmp_path / "demo.json"
    demo.write_text(json.dumps(json.loads(demo.read_text("utf-8")), indent=4), "utf-8")
    codex = tmp_path / "codex_rollout.jsonl"
    lines = codex.read_text("utf-8").splitlines()
    codex.write_text("\n".join(json.dumps(json.loads(x)) for x in lines) + "\n\n", "utf-8")
    untouched = (tmp_path / "cjk_conversation.json").stat().st_mtime_ns

    assert tool.main(["--dir", str(tmp_path)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "demo.json: not in its layout (run with --write)",
        "codex_rollout.jsonl: not in its layout (run with --write)",
    ]
    assert tool.main(["--write", "--dir", str(tmp_path)]) == 0
    for name in tool.LAYOUTS:
        assert (tmp_path / name).read_bytes() == (REPO / "sample_sessions" / name).read_bytes()
    assert (tmp_path / "cjk_conversation.json").stat().st_mtime_ns == untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(tool.LAYOUTS)  # no temp file


def test_a_native_sample_the_model_refuses_is_not_written(tmp_path: Path) -> None:
    for name in tool.LAYOUTS:
        shutil.copy2(REPO / "sample_sessions" / name, tmp_path / name)
    demo = tmp_path / "demo.json"
    doc = json.loads(demo.read_text("utf-8"))
    doc["session"]["messages"][0]["role"] = "robot"
    before = json.dumps(doc)
    demo.write_text(before, "utf-8")
    with pytest.raises(ValidationError):
        tool.main(["--write", "--dir", str(tmp_path)])
    assert demo.read_text("utf-8") == before
