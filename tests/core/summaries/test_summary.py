"""The structured summary: the template byte for byte, each section's sources, the LLM prompt."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtui.core.session.models import Message, Session, SessionMeta, ToolCall
from ctxtui.core.summaries.leaf_prompt import (
    build_llm_prompt,
    leaf_target_tokens,
    legacy_fallback_text,
    render_segment,
)
from ctxtui.core.summaries.summary import SUMMARY_TEMPLATE, build_structured_summary


def _session() -> Session:
    t = datetime(2025, 3, 4, 5, 6, tzinfo=UTC)
    return Session(
        messages=(
            Message(role="user", content="Add a --json flag to the report command.", created_at=t),
            Message(
                role="assistant",
                content="I'll use argparse because click is not a dependency.",
                tool_calls=(
                    ToolCall(id="c1", name="read_file", arguments='{"path": "src/cli.py"}'),
                ),
            ),
            Message(role="tool", tool_call_id="c1", content="def main(): ..."),
            Message(
                role="assistant",
                tool_calls=(ToolCall(id="c2", name="bash", arguments='{"command": "pytest -q"}'),),
            ),
            Message(
                role="tool",
                tool_call_id="c2",
                is_error=True,
                content="FAILED tests/test_cli.py::test_json - AssertionError",
            ),
            Message(role="user", content="You must not change the table output. Keep it small."),
            Message(
                role="assistant",
                content="Plan:\n1. Fix test_json\n2. Run the full suite",
            ),
            Message(role="user", content="thanks", injected=True),
        )
    )


def test_template_is_the_plans_skeleton() -> None:
    assert len(SUMMARY_TEMPLATE) == 326
    headings = re.findall(r"^## (.+)$", SUMMARY_TEMPLATE, re.MULTILINE)
    assert headings == [
        "Goal",
        "Constraints",
        "Progress",
        "Key Decisions",
        "Next Steps",
        "Critical Context",
    ]
    assert SUMMARY_TEMPLATE.startswith("# Summary of Previous Conversation\n\n## Goal\n")
    assert "- [Decision 1 with rationale]\n- [Decision 2 with rationale]" in SUMMARY_TEMPLATE
    assert SUMMARY_TEMPLATE.endswith("## Critical Context\n[Any other context needed to continue]")
    # a blank line between every block
    assert SUMMARY_TEMPLATE.count("\n\n") == 6


def test_goal_lists_typed_user_requests_with_their_index() -> None:
    goal = build_structured_summary(_session(), 0, 7).section("Goal")
    assert [i.index for i in goal.items] == [0, 5]  # #7 was injected by the harness
    assert goal.items[0].text.startswith("Add a --json flag")


def test_constraints_come_from_user_text() -> None:
    items = build_structured_summary(_session(), 0, 7).section("Constraints").items
    assert [(i.text, i.index) for i in items] == [("You must not change the table output.", 5)]


def test_progress_pairs_calls_with_non_error_results() -> None:
    items = build_structured_summary(_session(), 0, 7).section("Progress").items
    assert [(i.text, i.index) for i in items] == [("read_file(src/cli.py)", 2)]


def test_progress_ignores_calls_outside_the_range() -> None:
    assert build_structured_summary(_session(), 2, 7).section("Progress").items == ()


def test_decisions_come_from_assistant_sentences() -> None:
    items = build_structured_summary(_session(), 0, 7).section("Key Decisions").items
    assert [i.index for i in items] == [1]
    assert "because click" in items[0].text


def test_next_steps_are_the_last_stated_plan() -> None:
    items = build_structured_summary(_session(), 0, 7).section("Next Steps").items
    assert [(i.text, i.index) for i in items] == [("Fix test_json", 6), ("Run the full suite", 6)]


def test_critical_context_has_files_and_errors() -> None:
    texts = [
        (i.text, i.index) for i in build_structured_summary(_session(), 0, 7).sections[-1].items
    ]
    assert ("Error: FAILED tests/test_cli.py::test_json - AssertionError", 4) in texts
    assert ("File: tests/test_cli.py", 4) in texts


def test_empty_sections_say_so_and_headings_match_the_template() -> None:
    s = Session(messages=(Message(role="assistant", content="ok"),))
    text = build_structured_summary(s, 0, 0).render_markdown()
    assert re.findall(r"^#{1,2} .+$", text, re.MULTILINE) == re.findall(
        r"^#{1,2} .+$", SUMMARY_TEMPLATE, re.MULTILINE
    )
    # never as if the range were empty: what it held, and its content when nothing was found
    assert "none found" not in text
    assert "(replaces messages #0-#0: 1 assistant)" in text
    assert text.count("(none)") == 5
    assert text.endswith("## Critical Context\n- assistant: ok (#0)")


def test_a_range_of_harness_messages_says_what_it_held() -> None:
    # issue 29: a Claude Code session starting with injected messages read "(none found in
    # messages #0-#0)" in every section
    s = Session(
        messages=(
            Message(role="user", content="<command-name>/clear</command-name>", injected=True),
            Message(
                role="user", content="Caveat: the messages below were generated", injected=True
            ),
        )
    )
    text = build_structured_summary(s, 0, 1).render_markdown()
    assert "(replaces messages #0-#1: 2 user)" in text
    assert "- user: Caveat: the messages below were generated (#1)" in text


def test_rendered_bullets_cite_indices() -> None:
    text = build_structured_summary(_session(), 0, 7).render_markdown()
    assert "- read_file(src/cli.py) (#2)" in text


@given(st.integers(min_value=0, max_value=60))
def test_sections_are_bounded(n: int) -> None:
    msgs = tuple(Message(role="user", content=f"request {k} must be fast") for k in range(n + 1))
    summary = build_structured_summary(Session(messages=msgs), 0, n)
    for section in summary.sections:
        assert len(section.items) <= 8
    constraints = summary.section("Constraints")
    assert len(constraints.items) + constraints.omitted == n + 1
    assert constraints.items[-1].index == n  # the newest are kept
    goal = summary.section("Goal")
    assert len(goal.items) + goal.omitted == n + 1
    assert goal.items[0].index == 0  # the first request states the objective


def test_range_is_checked() -> None:
    with pytest.raises(ValueError, match="outside"):
        build_structured_summary(_session(), 3, 99)


def test_plain_prompt_is_picoclaws_leaf_prompt() -> None:
    p = build_llm_prompt(_session(), (0, 1), structured=False, target_tokens=321)
    assert p.startswith(
        "You summarize a SEGMENT of a conversation for future model turns.\n"
        "Treat this as incremental memory compaction input, not a full-conversation summary."
    )
    assert "- No preamble, headings, or markdown formatting." in p
    assert '- If no file operations appear, include exactly: "Files: none".' in p
    assert "Expand for details about: <comma-separated list of what was dropped or compressed>" in p
    assert "Target length: about 321 tokens or less." in p
    assert "<previous_context>\n(none)\n</previous_context>" in p
    assert p.endswith(
        "<conversation_segment>\n[2025-03-04 05:06 UTC]\nAdd a --json flag to the report "
        "command.\n\nI'll use argparse because click is not a "
        "dependency.\n\n\n</conversation_segment>"
    )
    assert "## Goal" not in p


def test_structured_prompt_adds_template_and_resolves_x19() -> None:
    p = build_llm_prompt(_session(), (0, 1), structured=True, target_tokens=200)
    assert SUMMARY_TEMPLATE in p
    assert "replace the" in p and "No preamble, headings, or markdown formatting" in p
    assert '"Files: none") inside "## Critical Context"' in p
    assert p.index("<template>") < p.index("<previous_context>")


def test_previous_context_uses_earlier_summaries_or_meta_summary() -> None:
    s = Session(
        messages=(
            Message(role="user", content="old summary A", is_summary=True),
            Message(role="user", content="hello"),
        ),
        meta=SessionMeta(summary="meta summary"),
    )
    assert "<previous_context>\nold summary A\n</previous_context>" in build_llm_prompt(
        s, (1, 1), False, 10
    )
    s2 = s.model_copy(update={"messages": s.messages[1:]})
    assert "<previous_context>\nmeta summary\n</previous_context>" in build_llm_prompt(
        s2, (0, 0), False, 10
    )


def test_segment_omits_roles_and_renders_tool_calls() -> None:
    seg = render_segment(_session(), 3, 3)
    assert seg == 'bash({"command": "pytest -q"})\n\n'  # no time: no time line


def test_leaf_target() -> None:
    assert leaf_target_tokens(1000) == 350
    assert leaf_target_tokens(100_000) == 1200
    assert leaf_target_tokens(100, floor=135) == 135


def test_legacy_fallback_cuts_at_2048_bytes_without_splitting() -> None:
    s = Session(messages=(Message(role="user", content="é" * 2000),))
    text = legacy_fallback_text(s, 0, 0)
    body, note = text.rsplit("\n", 1)
    assert note == "[Truncated from 1 messages]"
    assert len(body.encode()) <= 2048 and body == "é" * 1024


def test_errors_defined_in_source_code_are_not_errors_that_happened() -> None:
    """A file read full of ``raise FooError`` crowded out the failure the agent was fixing."""
    source = "\n".join(
        [
            "285     raise ReadingError(f'reading {r!r} has no quantity')",
            "class BasketError(ValueError):",
            "    except KeyError:",
            "# TypeError is raised below",
        ]
    )
    log = "E   wxingest.errors.IngestError: line 1213 not after the previous one"
    session = Session(
        messages=(
            Message(role="user", content="Why does the ingest crash?"),
            Message(
                role="assistant",
                tool_calls=(ToolCall(id="r", name="read_file", arguments='{"path": "p.py"}'),),
            ),
            Message(role="tool", tool_call_id="r", content=source),
            Message(
                role="assistant",
                tool_calls=(ToolCall(id="t", name="bash", arguments='{"command": "pytest"}'),),
            ),
            Message(role="tool", tool_call_id="t", content=log),
        )
    )
    critical = build_structured_summary(session, 0, 4).section("Critical Context")
    errors = [(item.text, item.index) for item in critical.items if item.text.startswith("Error")]
    assert errors == [("Error: " + " ".join(log.split()), 4)]


def test_critical_context_ignores_paths_in_plain_tool_output() -> None:
    """A directory listing names many files; only the ones worked on or failing matter."""
    s = Session(
        messages=(
            Message(role="user", content="Look at src/app.py please"),
            Message(
                role="assistant",
                tool_calls=(ToolCall(id="c1", name="ls", arguments='{"path": "src/"}'),),
            ),
            Message(role="tool", tool_call_id="c1", content="src/a.py\nsrc/b.py\nsrc/c.py"),
        )
    )
    texts = [i.text for i in build_structured_summary(s, 0, 2).sections[-1].items]
    assert "File: src/app.py" in texts
    assert not any(t.startswith("File: src/a.py") or "src/b.py" in t for t in texts)


def test_next_steps_come_from_a_recent_reply_only() -> None:
    """A plan stated long ago is history: only the newest replies are searched for one."""
    from ctxtui.core.summaries.summary import PLAN_LOOKBACK

    old_plan = Message(role="assistant", content="Next I will rewrite the parser.")
    chatter = [Message(role="assistant", content="Done.")] * PLAN_LOOKBACK
    s = Session(messages=(old_plan, *chatter))
    assert build_structured_summary(s, 0, len(s) - 1).sections[4].items == ()
    recent = Session(messages=(*chatter, old_plan))
    items = build_structured_summary(recent, 0, len(recent) - 1).sections[4].items
    assert [i.index for i in items] == [PLAN_LOOKBACK]


def test_only_the_newest_text_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A range with more than SCAN_CHARS of text: the sections read the newest messages only
    (bounded work on a 100k-message range), the goal still opens with the first request, and
    the summary says which messages were not read."""
    import ctxtui.core.summaries.summary as summary

    monkeypatch.setattr(summary, "SCAN_CHARS", 100)
    msgs = tuple(
        Message(role="user", content=f"request {k:02d} must be fast") for k in range(30)
    )  # 23 characters each: the newest four fit in 100
    s = build_structured_summary(Session(messages=msgs), 0, 29)
    assert (s.read_from, s.unread) == (26, 26)
    constraints = s.section("Constraints")
    assert [i.index for i in constraints.items] == [26, 27, 28, 29]
    assert constraints.omitted == 0  # of what was read: a lower bound
    goal = s.section("Goal")
    assert [i.index for i in goal.items] == [0, 26, 27, 28, 29]
    text = s.render_markdown()
    assert "(from messages #26-#29; the 26 older ones were not read, except for the first " in text
    whole = build_structured_summary(Session(messages=msgs[:4]), 0, 3)
    assert (whole.read_from, whole.unread) == (0, 0)
    assert "not read" not in whole.render_markdown()


def test_one_message_is_read_however_long(monkeypatch: pytest.MonkeyPatch) -> None:
    import ctxtui.core.summaries.summary as summary

    monkeypatch.setattr(summary, "SCAN_CHARS", 10)
    msgs = (
        Message(role="user", content="Keep it short."),
        Message(role="user", content="You must not change the table output. " * 3),
    )
    s = build_structured_summary(Session(messages=msgs), 0, 1)
    assert s.read_from == 1
    assert [i.index for i in s.section("Constraints").items] == [1]
    assert [i.index for i in s.section("Goal").items] == [0, 1]


@settings(max_examples=300)
@given(st.text(alphabet="ab1é_-./ \npyc+", max_size=40))
def test_file_paths_finds_what_the_path_pattern_finds(text: str) -> None:
    """The slash-or-dot shortcut never hides a path, and a diff's sides are read as the file."""
    from ctxtui.core.summaries.text_rules import PATH, file_paths, is_diff

    expected = [m.group(1) for m in PATH.finditer(text)]
    if is_diff(text):
        expected = [re.sub(r"^[ab]/(?=.)", "", p) for p in expected]
    assert list(file_paths(text)) == expected
