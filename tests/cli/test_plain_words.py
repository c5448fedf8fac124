"""What the commands print for people holds no internal identifier: no reason code
(``fresh_tail_exceeds_window``), knob name (``tail_min_tokens``), PicoClaw wire name
(``proactive_budget``) or field name. Those stay in ``--json``, which scripts read.

A snake_case word is allowed only when the session itself holds it (a tool's name, a call
id, a file name): the transcript's words are shown literally.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ctxtui.cli.main import main
from ctxtui.core.policies.presets import PRESETS
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.samples import samples_dir

SNAKE = re.compile(r"(?<![\w./:#-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/-]|\.\w)")
TOKENIZER_SPECS = {"o200k_base", "cl100k_base"}  # values a user types after --tokenizer
SAMPLES = sorted(
    p
    for p in samples_dir().iterdir()
    if p.suffix in (".json", ".jsonl") and not p.name.endswith(".meta.json")
)


def identifiers(text: str, allowed: str = "") -> set[str]:
    """The snake_case words of ``text`` that neither ``allowed`` nor a tokenizer spec holds."""
    return {w for w in SNAKE.findall(text) if w not in TOKENIZER_SPECS and w not in allowed}


def _out(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main(list(argv)) in (0, 1)
    captured = capsys.readouterr()
    return captured.out + captured.err


def test_the_scan_finds_codes_and_spares_content_paths_and_specs() -> None:
    text = (
        "overflow · fresh_tail_exceeds_window · tail_min_tokens (2,000) · read_file "
        "sample_sessions/demo.json codex_rollout.jsonl tiktoken:o200k_base · o200k_base"
    )
    assert identifiers(text, allowed='{"name": "read_file"}') == {
        "fresh_tail_exceeds_window",
        "tail_min_tokens",
    }


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_report_and_compare_speak_plain_words(
    sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    content = sample.read_text(encoding="utf-8")
    for name in PRESETS:
        text = _out(capsys, "report", str(sample), "--preset", name)
        assert identifiers(text, content) == set(), (name, text)
    text = _out(capsys, "compare", str(sample), "--presets", ",".join(PRESETS), "--replay")
    assert identifiers(text, content) == set(), text
    for name in ("plan", "picoclaw", "picoclaw-seahorse", "codex"):
        text = _out(capsys, "compact", str(sample), "--preset", name)
        assert identifiers(text, content) == set(), (name, text)


@pytest.mark.parametrize(
    "argv", [["presets"], ["--help"], ["report", "--help"], ["compare", "--help"]]
)
def test_listings_and_help_speak_plain_words(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    with pytest.raises(SystemExit) if "--help" in argv else _NoExit():
        main(argv)
    text = capsys.readouterr().out
    assert text
    assert identifiers(text) == set(), text
    assert "defect" not in text and "sketch" not in text


def test_reason_labels_are_words() -> None:
    for reason in CompactReason:
        assert identifiers(reason.label) == set(), reason.label


class _NoExit:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None
