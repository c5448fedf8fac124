"""The preview's prompt tab says why there is no prompt, in the case that applies."""

from __future__ import annotations

from ctxtui.tui.compaction_text import PROMPT_PREVIEW_CHARS, prompt_preview


def test_no_prompt_says_whether_nothing_was_replaced_or_the_style_drops() -> None:
    assert "every message is in the fresh tail" in prompt_preview("", replaced=False)
    assert "drops messages" in prompt_preview("", replaced=True)


def test_a_long_prompt_is_cut_and_says_how_to_see_it_whole() -> None:
    shown = prompt_preview("x" * (PROMPT_PREVIEW_CHARS + 10))
    assert shown.startswith("x" * 100) and "10 more bytes not shown here" in shown
    assert prompt_preview("short") == "short"
