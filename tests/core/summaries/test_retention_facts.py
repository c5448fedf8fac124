"""The retention audit: planted facts of every kind, a summary keeping a known subset."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtui.core.session.models import Message, Session, ToolCall
from ctxtui.core.summaries.retention import Reading, Segment, audit, duplicated_lines
from ctxtui.core.summaries.segment_facts import KINDS, fact_key, segment_facts, texts

PLANTED = Session(
    system_prompt="You are a careful coding agent working in a repository.",
    messages=(
        Message(
            role="user",
            content="Please never touch `config_loader` in src/app/settings.py. "
            "The limit is 2.5 s, see https://example.com/spec and #1234.",
        ),
        Message(
            role="assistant",
            content="I'll check how ParseError is raised.",
            tool_calls=(
                ToolCall(
                    id="c1",
                    name="bash",
                    arguments=json.dumps({"command": "pytest tests/test_app.py::test_limit -x"}),
                ),
            ),
        ),
        Message(
            role="tool",
            tool_call_id="c1",
            tool_name="bash",
            content="collected 3 items\n"
            "FAILED tests/test_app.py::test_limit - ValueError: limit exceeded\n"
            "3 tests ran in 0.42s",
        ),
        Message(role="assistant", content="The fix belongs in parse_limit(), version 1.4.2."),
        # after the compaction
        Message(role="user", content="Run the check on src/app/settings.py again."),
        Message(role="assistant", content="Rerunning; ParseError was the culprit."),
    ),
)

EXPECTED = [
    ("identifier", "config_loader", 0),
    ("path", "src/app/settings.py", 0),
    ("instruction", "Please never touch `config_loader` in src/app/settings.py.", 0),
    ("number", "2.5 s", 0),
    ("url", "https://example.com/spec", 0),
    ("number", "#1234", 0),
    ("command", "pytest tests/test_app.py::test_limit -x", 1),
    ("test", "tests/test_app.py::test_limit", 1),
    ("identifier", "ParseError", 1),
    ("error", "FAILED tests/test_app.py::test_limit - ValueError: limit exceeded", 2),
    ("error", "ValueError", 2),
    ("number", "3 tests", 2),
    ("number", "0.42s", 2),
    ("identifier", "parse_limit", 3),
    ("number", "1.4.2", 3),
]

SUMMARY = (
    "## Goal\n- Fix the limit check in ./src/app/settings.py.\n"
    "## Progress\n- Ran `pytest tests/test_app.py::test_limit -x`: it raised 'ValueError'.\n"
    "- Issue #1234."
)


def planted_audit() -> tuple[Segment, list[tuple[str, str, int]]]:
    segment = Segment.of(PLANTED, 0, 3, 100, Reading(PLANTED.messages[4:]))
    facts = [(f.kind, f.text, f.message_index) for f in segment.facts]
    return segment, facts


def test_planted_facts_are_found_exactly() -> None:
    _, facts = planted_audit()
    assert sorted(facts) == sorted(EXPECTED)


def test_planted_summary_keeps_exactly_the_planted_subset() -> None:
    segment, _ = planted_audit()
    result = audit(segment, SUMMARY, "stand-in", 40)
    assert result.kinds == {
        "path": (1, 1),
        "command": (1, 1),
        "error": (1, 2),
        "test": (1, 1),
        "identifier": (0, 3),
        "number": (1, 5),
        "url": (0, 1),
        "instruction": (0, 1),
    }
    dropped = [(r.fact.kind, r.fact.text, r.salience, r.needed_after) for r in result.dropped]
    assert dropped == [
        # needed after (ParseError is named again) ranks first
        ("identifier", "ParseError", 4, True),
        # then typed by the user, in the order of the segment (kinds in their table order)
        ("identifier", "config_loader", 2, False),
        ("number", "2.5 s", 2, False),
        ("url", "https://example.com/spec", 2, False),
        ("instruction", "Please never touch `config_loader` in src/app/settings.py.", 2, False),
        ("error", "FAILED tests/test_app.py::test_limit - ValueError: limit exceeded", 0, False),
        ("number", "3 tests", 0, False),
        ("number", "0.42s", 0, False),
        ("identifier", "parse_limit", 0, False),
        ("number", "1.4.2", 0, False),
    ]
    # the path is used again after and kept; ParseError is used again and lost
    assert result.needed_after == (1, 2)
    block = result.block()
    assert block["kinds"]["error"] == {"kept": 1, "total": 2}
    assert block["replaced"] == {"from": 0, "to": 3, "tokens": 100}
    assert block["needed_after"] == {"kept": 1, "total": 2}
    assert set(block) == {
        "source", "request", "replaced", "summary_tokens", "kinds", "dropped",
        "needed_after", "duplicated_lines",
    }  # fmt: skip
    assert set(block["dropped"][0]) == {"kind", "text", "message_index", "salience", "needed_after"}


def test_normalised_match_ignores_case_quotes_prefix_and_punctuation() -> None:
    assert fact_key("./SRC/App.py.") == "src/app.py"
    assert fact_key("`Foo`,") == "foo"
    segment = Segment.of(PLANTED, 0, 0, 1)
    result = audit(segment, 'see HTTPS://EXAMPLE.COM/SPEC! and "SRC/APP/SETTINGS.PY"', "llm", 1)
    assert result.kinds["url"] == (1, 1)
    assert result.kinds["path"] == (1, 1)


def test_a_path_named_from_its_project_down_is_kept() -> None:
    session = Session(messages=(Message(role="user", content="Edit /home/dev/p/docs/a.rst"),))
    segment = Segment.of(session, 0, 0, 1)
    assert audit(segment, "changed docs/a.rst", "recorded", 1).kinds["path"] == (1, 1)
    assert audit(segment, "changed a.rst", "recorded", 1).kinds["path"] == (0, 1)


def test_duplicated_lines_repeat_the_kept_context_or_each_other() -> None:
    context = "you are a careful coding agent working in a repository."
    summary = (
        "# Summary\nYou are a careful coding agent working in a repository.\n"
        "- the same bullet is written here twice\n- the same bullet is written here twice\n"
        "## Goal\n## Goal\nshort\nshort"
    )
    assert duplicated_lines(summary, context) == 2


def test_hostile_text_is_cut_and_cleaned() -> None:
    huge = "ZeroDivisionError: " + "x" * 2_000_000
    session = Session(
        messages=(
            Message(role="user", content="Never run [bold]rm[/bold] \x1b[31mnow\x1b[0m, please."),
            Message(role="tool", content=huge),
        )
    )
    facts = segment_facts(session, 0, 1)
    assert all(len(f.text) <= 150 and "\x1b" not in f.text for f in facts)
    assert ("instruction", "Never run [bold]rm[/bold] now, please.") in [
        (f.kind, f.text) for f in facts
    ]


WORDS = st.sampled_from(
    [
        "fix", "the", "src/a.py", "./lib/b.ts", "tests/t.py::test_x", "`make_it`", "FooBar",
        "2.5 s", "#12", "v1.2.3", "https://x.org/p", "Please don't", "never", "must",
        "ValueError:", "Traceback", "FAILED", "error:", "x=3", "\n", ". ", "'", '"', "ÄÖ", "ß",
        "İ", "Σ", "\x1b[31m", "\t",
    ]
)  # fmt: skip
TEXT = st.lists(WORDS, max_size=25).map(" ".join)
MESSAGES = st.lists(
    st.tuples(st.sampled_from(["user", "assistant", "tool"]), TEXT, TEXT), min_size=1, max_size=6
)


def _session(rows: list[tuple[str, str, str]]) -> Session:
    messages = []
    for role, text, command in rows:
        calls = (
            (ToolCall(id="c", name="bash", arguments=json.dumps({"command": command})),)
            if role == "assistant"
            else ()
        )
        messages.append(Message(role=role, content=text, tool_calls=calls))
    return Session(messages=tuple(messages))


@settings(max_examples=200, deadline=None)
@given(MESSAGES)
def test_the_whole_text_keeps_every_fact_and_nothing_keeps_none(
    rows: list[tuple[str, str, str]],
) -> None:
    session = _session(rows)
    last = len(session.messages) - 1
    segment = Segment.of(session, 0, last, 1)
    whole = audit(segment, "\n".join(t for m in session.messages for t in texts(m)), "stand-in", 1)
    assert whole.kept == len(whole.retained)
    assert all(k == t for k, t in whole.kinds.values())
    empty = audit(segment, "", "stand-in", 0)
    assert empty.kept == 0
    assert set(empty.kinds) == set(KINDS)


BUDGETS = st.sampled_from([8, 64, 16_384, 262_144])


@settings(max_examples=150, deadline=None)
@given(MESSAGES, st.data())
def test_facts_found_once_are_the_facts_found_afresh(
    rows: list[tuple[str, str, str]], data: st.DataObject
) -> None:
    """Segments merged from a session's kept facts (read before under other ranges and
    limits) equal the same segments of a copy read for the first time."""
    session = _session(rows)
    top = len(session.messages) - 1
    ends = st.integers(0, top)
    for a, b, budget in data.draw(st.lists(st.tuples(ends, ends, BUDGETS), max_size=5)):
        first, last = min(a, b), max(a, b)
        warmed = segment_facts(session, first, last, budget)
        assert warmed == segment_facts(session.model_copy(), first, last, budget)


def test_all_audits_of_a_session_read_each_message_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every recorded compaction and its stand-in (whose fact lines read the same messages
    again): each message's facts are extracted once, and auditing again extracts none."""
    from ctxtui.core.engine import Engine
    from ctxtui.core.policies.policy import Policy
    from ctxtui.core.simulation.retention_audits import recorded_audits
    from ctxtui.core.summaries import segment_facts as module
    from ctxtui.importers import load_session
    from ctxtui.samples import samples_dir

    session = load_session(samples_dir() / "claude_code_replay.jsonl", full_history=True)
    policy = Policy()
    engine = Engine(session)
    counts = engine.counts(policy)
    assert counts is not None
    read: Counter[int] = Counter()
    extract = module.message_facts

    def counted(m: Message, limit: int = module.HEAD_CHARS + module.TAIL_CHARS) -> Any:
        read[id(m)] += 1
        return extract(m, limit)

    monkeypatch.setattr(module, "message_facts", counted)
    first = recorded_audits(session, policy, counts, engine.tokenizer(policy))
    assert len(first) == 6 and len(read) > 400
    assert max(read.values()) == 1
    read.clear()
    again = recorded_audits(session, policy, counts, engine.tokenizer(policy))
    assert not read
    assert [a.block() for a in again] == [a.block() for a in first]


@pytest.mark.parametrize(
    "name", ["claude_code_replay.jsonl", "claude_code_compacted.jsonl", "codex_replay.jsonl"]
)
def test_the_last_recorded_audit_alone_is_the_last_of_them_all(name: str) -> None:
    """The session bar's audit of the last compaction (``last_recorded_audit``) is the one
    auditing every compaction ends with, so the note says what ``retention`` says."""
    from ctxtui.core.engine import Engine
    from ctxtui.core.policies.policy import Policy
    from ctxtui.core.simulation.retention_audits import last_recorded_audit, recorded_audits
    from ctxtui.importers import load_session
    from ctxtui.samples import samples_dir

    session = load_session(samples_dir() / name, full_history=True)
    policy = Policy()
    engine = Engine(session)
    counts = engine.counts(policy)
    assert counts is not None
    every = recorded_audits(session, policy, counts, engine.tokenizer(policy), False)
    assert every, "the sample records a compaction with something before it"
    assert last_recorded_audit(session, counts) == every[-1]
    for cut in range(1, len(session.meta.recorded_compactions)):  # fewer compactions so far
        fewer = session.model_copy(
            update={
                "meta": session.meta.model_copy(
                    update={"recorded_compactions": session.meta.recorded_compactions[:cut]}
                )
            }
        )
        shown = recorded_audits(fewer, policy, counts, engine.tokenizer(policy), False)
        assert last_recorded_audit(fewer, counts) == (shown[-1] if shown else None)


def test_two_compactions_in_a_row_audit_the_summary_that_follows_them() -> None:
    """Two boundaries with nothing between share a mark; the agent's summary follows the
    second, and the audit reads it (it found none, and said "lost 0 of 0")."""
    from ctxtui.core.engine import Engine
    from ctxtui.core.policies.policy import Policy
    from ctxtui.core.session.models import RecordedCompaction, SessionMeta
    from ctxtui.core.simulation.retention_audits import last_recorded_audit, recorded_audits

    before = [
        Message(role="user", content="Fix the parser in src/parser.py"),
        Message(role="assistant", content="I changed src/parser.py to use the lexer."),
    ]
    summary = Message(
        role="user", content="Summary: fixed src/parser.py with the lexer.", is_summary=True
    )
    after = [Message(role="user", content="Now test src/parser.py again.")]
    marks = (RecordedCompaction(message_index=2), RecordedCompaction(message_index=2))
    session = Session(
        messages=(*before, summary, *after),
        meta=SessionMeta(recorded_compactions=marks, full_history=True),
    )
    policy = Policy()
    engine = Engine(session)
    counts = engine.counts(policy)
    assert counts is not None
    (audit,) = recorded_audits(session, policy, counts, engine.tokenizer(policy), False)
    assert audit.summary_tokens == counts.message_tokens[2], "the summary is the one after"
    assert audit.needed_after[1] > 0, "what follows the summary is read for the facts used"
    assert last_recorded_audit(session, counts) == audit


def test_a_compaction_whose_summary_is_not_written_yet_is_not_audited(tmp_path: Any) -> None:
    """A transcript read as its agent writes it can end at a compact boundary, the summary
    still to come: that is no summary that kept nothing (it was audited as "lost 13 of
    13"), and the last compaction's note is not the one before's either."""
    from ctxtui.core.engine import Engine
    from ctxtui.core.policies.policy import Policy
    from ctxtui.core.simulation.retention_audits import last_recorded_audit, recorded_audits
    from ctxtui.importers import load_session
    from ctxtui.samples import samples_dir

    lines = (samples_dir() / "claude_code_replay.jsonl").read_text().splitlines(True)
    marks = [i for i, line in enumerate(lines) if "compact_boundary" in line]
    path = tmp_path / "cut.jsonl"
    path.write_text("".join(lines[: marks[-1] + 1]))  # the boundary, not its summary
    session = load_session(path, full_history=True)
    assert len(session.meta.recorded_compactions) == len(marks)
    policy = Policy()
    engine = Engine(session)
    counts = engine.counts(policy)
    assert counts is not None
    audits = recorded_audits(session, policy, counts, engine.tokenizer(policy), False)
    assert len(audits) == len(marks) - 1, "the earlier compactions, each with its summary"
    assert last_recorded_audit(session, counts) is None
