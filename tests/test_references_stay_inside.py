"""Code and docs cite only what a maintainer can open in this repository.

The importers and the presets were written against reference notes that are not part of the
repository; a comment saying "see §2.7" or "formats.md §10.5" points nowhere for anyone else.
What the code needs to say lives in ``docs/``, and a citation names the page and its heading:
``docs/presets.md, "picoclaw"``.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = re.compile(r"§|algorithms\.md|shared/reference|\.\./shared|reference `formats\.md`")
DOC_CITATION = re.compile(r'docs/([\w-]+\.md)(?:, "([^"]+)")?')


def _sources() -> list[Path]:
    files = [*(ROOT / "ctxtui").rglob("*.py"), *(ROOT / "bench").rglob("*.py")]
    files += [*(ROOT / "tools").rglob("*.py"), *(ROOT / "docs").glob("*.md")]
    files += [ROOT / "README.md", ROOT / "ARCHITECTURE.md"]
    return sorted(p for p in files if p.is_file())


def test_nothing_cites_material_outside_the_repository() -> None:
    offenders = [
        f"{p.relative_to(ROOT)}:{n}: {line.strip()[:80]}"
        for p in _sources()
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1)
        if OUTSIDE.search(line)
    ]
    assert not offenders, "\n".join(offenders)


def test_every_cited_doc_and_heading_exists() -> None:
    missing: list[str] = []
    for path in sorted((ROOT / "ctxtui").rglob("*.py")):
        text = " ".join(path.read_text(encoding="utf-8").split())  # citations may wrap
        for page, heading in DOC_CITATION.findall(text):
            doc = ROOT / "docs" / page
            if not doc.is_file():
                missing.append(f"{path.relative_to(ROOT)}: docs/{page}")
                continue
            headings = re.findall(r"^#+ (.+)$", doc.read_text(encoding="utf-8"), re.MULTILINE)
            if heading and not any(h.strip() == heading or h.endswith(heading) for h in headings):
                missing.append(f'{path.relative_to(ROOT)}: docs/{page}, "{heading}"')
    assert not missing, missing
