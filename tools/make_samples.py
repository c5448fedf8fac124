"""Check or rewrite the bundled sample sessions: ``.venv/bin/python tools/make_samples.py``.

The committed files in ``sample_sessions/`` are the data. They were first generated from
seeded Python stories (see this file's git history); what matters now is the files themselves,
and ``tests/test_sample_sessions.py`` pins each one's format and counts. This tool keeps them
in one canonical layout per file, so a hand edit, a ``jq`` rewrite or a change to ctxtui's own
session model produces a small, reviewable diff and never a reformatted file:

* ``make_samples.py`` (or ``--check``) says which files are not in their layout, exit 1 if any;
* ``make_samples.py --write`` rewrites those files in place (atomically).

Either way the native demo is validated by ``ctxtui.core.session.models``, so a model change that
breaks it (a renamed or removed field) fails here, not in the app.

Every name, path and host in the samples is invented.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ctxtui.core.session.models import Session

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "sample_sessions"


def _json(*, ascii_only: bool, indent: int) -> Callable[[str], str]:
    def layout(text: str) -> str:
        return json.dumps(json.loads(text), ensure_ascii=ascii_only, indent=indent) + "\n"

    return layout


def _jsonl(text: str) -> str:
    """One compact JSON value per line, as agents write their logs; blank lines dropped."""
    return "".join(
        json.dumps(json.loads(line), ensure_ascii=False, separators=(",", ":")) + "\n"
        for line in text.splitlines()
        if line.strip()
    )


def _native(text: str) -> str:
    """ctxtui's own format, validated by the session model; a field the model added since,
    with its default, is not written in (the file stays as it was)."""
    doc: dict[str, Any] = json.loads(text)
    Session.model_validate(doc["session"])
    return json.dumps(doc, indent=1) + "\n"


LAYOUTS: dict[str, Callable[[str], str]] = {
    "demo.json": _native,
    "coding_agent_overflow.json": _json(ascii_only=True, indent=1),
    "markup_and_ansi.json": _json(ascii_only=True, indent=1),  # escapes stay \u001b, \u0000
    "cjk_conversation.json": _json(ascii_only=False, indent=1),  # the CJK text stays readable
    "picoclaw_long_chat.jsonl": _jsonl,
    "picoclaw_long_chat.meta.json": _json(ascii_only=False, indent=2),  # as PicoClaw writes it
    "claude_code_compacted.jsonl": _jsonl,
    "codex_rollout.jsonl": _jsonl,
}
"""Each sample's canonical layout: how the agent (or ctxtui) that the sample imitates writes
it. A new sample made by another generator is not listed and is left alone."""


def canonical(name: str, directory: Path = SAMPLES) -> tuple[str, str]:
    """The file's text as it is, and as its layout writes it."""
    text = (directory / name).read_text(encoding="utf-8")
    return text, LAYOUTS[name](text)


def _replace(path: Path, text: str) -> None:
    """Write ``text`` beside ``path`` and rename it over, so an interruption leaves either
    the old file or the new one."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="report files out of layout (default)")
    mode.add_argument("--write", action="store_true", help="rewrite them in their layout")
    parser.add_argument("--dir", type=Path, default=SAMPLES, help="default: sample_sessions/")
    args = parser.parse_args(argv)
    off: list[str] = []
    for name in LAYOUTS:
        text, wanted = canonical(name, args.dir)
        if text == wanted:
            continue
        off.append(name)
        if args.write:
            _replace(args.dir / name, wanted)
    verb = "rewrote" if args.write else "not in its layout (run with --write)"
    for name in off:
        print(f"{name}: {verb}")
    return 1 if off and not args.write else 0


if __name__ == "__main__":
    sys.exit(main())
