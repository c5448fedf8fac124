"""Every decision identifier the code cites (X12, D3, …) has its entry in docs/decisions.md.

A comment that says "defect X24" is only useful if a maintainer can look X24 up inside the
repository; this keeps the references and the document from drifting apart.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CITED = re.compile(r"\b([XD][0-9]{1,2})\b")
HEADING = re.compile(r"^### ([XD][0-9]{1,2}) — ", re.MULTILINE)


def _documented() -> set[str]:
    return set(HEADING.findall((ROOT / "docs" / "decisions.md").read_text(encoding="utf-8")))


def _cited() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "ctxtui").rglob("*.py")):
        for ident in CITED.findall(path.read_text(encoding="utf-8")):
            found.setdefault(ident, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_cited_identifier_has_an_entry() -> None:
    documented = _documented()
    missing = {ident: files for ident, files in _cited().items() if ident not in documented}
    assert not missing, f"cited in code but not in docs/decisions.md: {missing}"


def test_entries_are_numbered_once() -> None:
    text = (ROOT / "docs" / "decisions.md").read_text(encoding="utf-8")
    headings = HEADING.findall(text)
    assert len(headings) == len(set(headings))
    assert len(headings) >= 20


def test_every_entry_names_a_test_that_exists() -> None:
    text = (ROOT / "docs" / "decisions.md").read_text(encoding="utf-8")
    for path in set(re.findall(r"`(tests/[\w/]+\.py)", text)):
        assert (ROOT / path).is_file(), path
