"""The calibration fit believed only where it is plausible, and never fed opaque bytes."""

from __future__ import annotations

import pytest

from ctxtui.core.session.models import ContentPart, Message, PartKind
from ctxtui.core.tokens.calibration import (
    MIN_FIT_SAMPLES,
    PLAUSIBLE_CHARS_PER_TOKEN,
    Fit,
    content_chars,
    fit_problem,
    session_fit,
)
from ctxtui.importers import load_session
from ctxtui.samples import samples_dir

SAMPLES = sorted(
    p for p in samples_dir().iterdir() if p.suffix in (".json", ".jsonl") and ".meta" not in p.name
)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_bundled_sample_reads_2_to_6_chars_per_token_or_says_why(path: object) -> None:
    session = load_session(str(path), full_history=True)
    fit = session_fit(session)
    if not fit.samples:
        return  # no usage: nothing is claimed
    low, high = PLAUSIBLE_CHARS_PER_TOKEN
    cpt = fit.fit.chars_per_token
    if fit.plausible:
        assert cpt is not None and low <= cpt <= high
    else:
        assert fit.problem and fit.as_json()["plausible"] is False
        assert fit.as_json()["reason"] == fit.problem


def test_the_reasons() -> None:
    assert "a fit needs 5" in fit_problem(MIN_FIT_SAMPLES - 1, Fit(3.0, 100.0))
    assert "do not grow" in fit_problem(20, Fit(None, None))
    assert "52.4 chars/token, outside 2–6" in fit_problem(20, Fit(52.4, 100.0))
    assert "negative offset" in fit_problem(20, Fit(3.5, -900.0))
    assert fit_problem(20, Fit(3.5, 900.0)) == ""


def test_images_and_encrypted_reasoning_are_not_characters() -> None:
    """A megabyte of base64 image and an encrypted blob add nothing to the fit's characters."""
    plain = Message(role="user", content="look at this", reasoning="thinking")
    heavy = plain.model_copy(
        update={
            "parts": (
                ContentPart(kind=PartKind.TEXT, text="look at this"),
                ContentPart(kind=PartKind.IMAGE, byte_size=1_000_000, width=800, height=600),
                ContentPart(kind=PartKind.OPAQUE, byte_size=50_000, label="encrypted_content"),
            )
        }
    )
    assert content_chars(heavy) == content_chars(plain) == len("look at this") + len("thinking")


def test_claude_codes_bash_cap_bounds_an_output_in_the_fit() -> None:
    """Claude Code sends at most 30,000 characters of a Bash output: a 200,000-character one
    in the transcript counts 30,000 in a Claude Code session, all of it elsewhere."""
    from ctxtui.core.tokens.calibration import output_cap

    huge = Message(role="tool", content="x" * 200_000, tool_name="Bash", tool_call_id="t")
    other = huge.model_copy(update={"tool_name": "Read"})
    cap = output_cap("claude-code")
    assert content_chars(huge, cap) == 30_000
    assert content_chars(other, cap) == 200_000
    assert content_chars(huge, output_cap("openai-chat")) == 200_000
