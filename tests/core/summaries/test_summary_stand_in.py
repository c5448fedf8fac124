"""The stand-in summary as a newcomer reads it (issue 13 item 7): clean quotes, real paths,
decisions found, honest omissions, citations that survive the compaction being applied."""

from __future__ import annotations

import json
import re

import pytest

from ctxtui.core.compacting.notes import STAND_IN_NOTICE, stand_in_notice
from ctxtui.core.engine import Engine
from ctxtui.core.policies.policy import policy_for_session
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.session.models import Message, Session, ToolCall
from ctxtui.core.summaries.summary import MAX_ITEMS, build_structured_summary
from ctxtui.core.summaries.text_rules import clean_text, decision_sentences, patch_target
from ctxtui.importers import load_session
from ctxtui.samples import demo_session_path

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _patch_call(call_id: str, path: str) -> Message:
    patch = f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-x\n+y\n"
    args = json.dumps({"patch": patch})
    return Message(
        role="assistant", tool_calls=(ToolCall(id=call_id, name="apply_patch", arguments=args),)
    )


def test_escapes_and_control_characters_never_reach_the_summary() -> None:
    hostile = "\x1b[31mError: boom in src/app.py\x1b[0m\x07 \u202eevil\r\n\x1b]0;title\x07done"
    session = Session(
        messages=(
            Message(role="user", content="\x1b[1mFix\x1b[0m the \x00build"),
            Message(
                role="assistant",
                tool_calls=(
                    ToolCall(id="c", name="bash", arguments='{"command": "make\\u001b[2J"}'),
                ),
            ),
            Message(role="tool", tool_call_id="c", content=hostile),
            Message(
                role="assistant",
                content="Found it.\x1b[K The \x1b[32mbuild\x1b[0m script is wrong.",
            ),
        )
    )
    text = build_structured_summary(session, 0, 3).render_markdown()
    assert "\x1b" not in text and not _CONTROL.search(text)
    assert "- Error: Error: boom in src/app.py evil (#2)" in text
    assert "- Fix the build (#0)" in text
    assert "bash(make) (#2)" in text
    assert "Found it. The build script is wrong. (#3)" in text


def test_clean_text_keeps_text_and_line_breaks() -> None:
    assert clean_text("a\x1b[31mb\x1b[0m\tc\r\nd\x85e\x9b2Jf") == "ab\tc\ndef"
    assert clean_text("plain text") == "plain text"


def test_a_diffs_sides_are_one_file() -> None:
    session = Session(
        messages=(
            Message(role="user", content="Rename the flag in src/cli.py"),
            _patch_call("p", "src/cli.py"),
            Message(role="tool", tool_call_id="p", content="Applied 1 hunk."),
            Message(role="assistant", content="Files under a/b.py stay where they are."),
        )
    )
    summary = build_structured_summary(session, 0, 3)
    files = [i.text for i in summary.section("Critical Context").items]
    assert "File: src/cli.py" in files
    assert not any(f in files for f in ("File: a/src/cli.py", "File: b/src/cli.py"))
    assert "File: a/b.py" in files  # no diff there: a real directory "a"
    assert [i.text for i in summary.section("Progress").items] == ["apply_patch(src/cli.py)"]
    assert patch_target("--- a/x.py\n+++ /dev/null\n") == "x.py"


@pytest.mark.parametrize(
    ("reply", "found"),
    [
        (
            "Found it. The cache key ignores the locale.",
            "Found it. The cache key ignores the locale.",
        ),
        ("Let's keep the old parser for now.", "Let's keep the old parser for now."),
        ("I'll use sqlite for the index.", "I'll use sqlite for the index."),
        ("We decided to vendor the schema.", "We decided to vendor the schema."),
        ("Use a set instead of a list here.", "Use a set instead of a list here."),
    ],
)
def test_decisions_are_found(reply: str, found: str) -> None:
    assert list(decision_sentences(re.split(r"(?<=\.)\s+", reply))) == [found]


def test_key_decisions_on_the_demo() -> None:
    session = load_session(str(demo_session_path()))
    policy = policy_for_session("plan", session)
    result = Engine(session).compact(policy, CompactReason.PROACTIVE)
    assert result.summary is not None
    decisions = result.summary.section("Key Decisions").items
    assert decisions and decisions[0].text.startswith("Found it. The Oslo export has naive")


def _files(n: int) -> list[Message]:
    return [Message(role="user", content=f"look at src/f{k}.py") for k in range(n)]


def _errors(n: int) -> list[Message]:
    out: list[Message] = []
    for k in range(n):
        out.append(Message(role="assistant", tool_calls=(ToolCall(id=f"e{k}", name="bash"),)))
        out.append(Message(role="tool", tool_call_id=f"e{k}", content=f"Error: case {k}"))
    return out


@pytest.mark.parametrize(
    ("files", "errors", "omitted"),
    [(6, 1, 0), (1, 7, 0), (MAX_ITEMS, 0, 0), (MAX_ITEMS + 1, 0, 1), (6, 6, 4)],
)
def test_items_are_omitted_only_when_the_section_is_full(
    files: int, errors: int, omitted: int
) -> None:
    messages = (*_files(files), *_errors(errors))
    summary = build_structured_summary(Session(messages=messages), 0, len(messages) - 1)
    section = summary.section("Critical Context")
    assert section.omitted == omitted
    assert len(section.items) == min(files + errors, MAX_ITEMS)
    text = summary.render_markdown()
    if omitted:
        noun = "item" if omitted == 1 else "items"
        assert f"- ({omitted} {noun} omitted: a section keeps at most {MAX_ITEMS})" in text
    else:
        assert "omitted" not in text


def test_citations_still_lead_back_after_the_compaction_is_applied() -> None:
    session = load_session(str(demo_session_path()))
    policy = policy_for_session("plan", session)
    result = Engine(session).compact(policy, CompactReason.PROACTIVE)
    assert result.replaced is not None and result.summary is not None
    first, last = result.replaced
    applied = result.session.messages[first]  # the summary, as the compacted session holds it
    assert applied.is_summary
    assert "(#N cites message N as numbered before this compaction.)" in applied.content
    cited = [int(n) for n in re.findall(r"\(#(\d+)\)", applied.content)]
    assert cited and all(first <= n <= last for n in cited)
    for item in result.summary.section("Goal").items:  # each cite is the message it quotes
        assert session.messages[item.index].content.startswith(item.text.rstrip("…"))


def test_the_preview_says_it_is_a_stand_in() -> None:
    session = load_session(str(demo_session_path()))
    result = Engine(session).compact(policy_for_session("plan", session), CompactReason.PROACTIVE)
    notice = stand_in_notice(result)
    assert notice.startswith(STAND_IN_NOTICE)
    assert "local, deterministic stand-in for the LLM's summary" in notice
