"""What every PicoClaw store shares: the roles it writes and how a media reference is counted.

The JSONL/JSON reader (``picoclaw.py``) and the seahorse database reader
(``_picoclaw_sqlite.py``) both import these, so neither has to import the other back.
"""

from __future__ import annotations

from ctxtui.core.session.models import ContentPart, PartKind

MEDIA_TOKEN_ESTIMATE = 256
"""PicoClaw's own estimator counts every media item as 256 tokens (docs/presets.md, "picoclaw")."""

ROLES = frozenset({"system", "user", "assistant", "tool"})


def media_part(ref: str, mime: str | None) -> ContentPart:
    """A media reference as a part: an image when its type says so, other media otherwise."""
    kind = PartKind.IMAGE if mime is None or mime.startswith("image/") else PartKind.OTHER
    return ContentPart(kind=kind, media_type=mime, label=ref, token_estimate=MEDIA_TOKEN_ESTIMATE)
