"""docs/formats.md cannot go stale: its schema block is the model's, its table lists all formats."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ctxtui.core.session.models import Session
from ctxtui.importers import FORMATS

DOC = Path(__file__).resolve().parents[2] / "docs" / "formats.md"
_SCHEMA_BLOCK = re.compile(
    r"<!-- session-schema:start -->\s*```json\n(.*?)\n```\s*<!-- session-schema:end -->", re.S
)


def test_schema_block_equals_the_generated_schema() -> None:
    match = _SCHEMA_BLOCK.search(DOC.read_text(encoding="utf-8"))
    assert match is not None, "the schema block markers are missing"
    assert json.loads(match.group(1)) == Session.model_json_schema()


def test_table_lists_every_format() -> None:
    text = DOC.read_text(encoding="utf-8")
    for info in FORMATS:
        assert f"| `{info.name}` | {info.title} |" in text
