"""The API's count of the last request beside ctxtui's, and the words for the difference."""

from __future__ import annotations

from ctxtui.core.engine import Engine
from ctxtui.core.policies.policy import preset
from ctxtui.core.session.models import Message, Session, SessionMeta, ToolDefinition, Usage
from ctxtui.core.simulation.reported import ReportedGap, last_reported, reported_gap


def _session(*, system: str | None, tools: bool, model: str = "claude-sonnet-4-5") -> Session:
    usage = Usage(prompt_total=5_000, output=40, source="usage")
    return Session(
        messages=(
            Message(role="user", content="read the file " * 50),
            Message(role="assistant", content="reading", usage=Usage(prompt_total=4_000)),
            Message(role="user", content="and now the tests " * 50),
            Message(role="assistant", content="running", usage=usage),
            Message(role="user", content="thanks"),  # after the last call: not in its prompt
        ),
        system_prompt=system,
        tools=(ToolDefinition(name="read", description="Read a file"),) if tools else (),
        meta=SessionMeta(model=model),
    )


def _gap(session: Session, tokenizer: str = "plan") -> ReportedGap:
    policy = preset("plan", tokenizer=tokenizer)
    gap = reported_gap(session, Engine(session).plan(policy))
    assert gap is not None
    return gap


def test_the_last_request_with_usage_is_compared_with_the_count_of_its_own_prompt() -> None:
    session = _session(system=None, tools=False)
    last = last_reported(session)
    assert last is not None and (last.request, last.message_index) == (1, 3)
    plan = Engine(session).plan(preset("plan"))
    gap = reported_gap(session, plan)
    assert gap is not None
    assert gap.reported == 5_000 and gap.request == 1
    assert gap.estimated == sum(plan.message_tokens[:3])  # messages 3 and 4 are not in it
    assert gap.gap == 5_000 - gap.estimated > 0


def test_missing_system_prompt_and_tools_explain_an_undercount() -> None:
    gap = _gap(_session(system=None, tools=False))
    assert gap.missing == ("system prompt", "tool definitions")
    assert gap.reason() == "system prompt and tool definitions are not in the transcript"
    assert gap.reason(short=True) == "system/tools not in transcript"
    only = _gap(_session(system=None, tools=True))
    assert only.reason() == "system prompt is not in the transcript"


def test_a_complete_transcript_leaves_the_estimator_to_blame() -> None:
    gap = _gap(_session(system="You are an agent.", tools=True))
    assert gap.missing == ()
    percent = round(100 * gap.gap / gap.reported)
    assert gap.reason() == f"estimator error: plan undercounts by {percent}%"
    assert gap.reason(short=True) == f"estimator under by {percent}%"


def test_an_openai_encoding_is_named_as_not_claudes_tokenizer() -> None:
    claude = _gap(_session(system=None, tools=False), "tiktoken:cl100k_base")
    assert claude.foreign
    assert claude.reason().endswith("; cl100k is not Claude's tokenizer")
    assert claude.reason(short=True).endswith("; cl100k ≠ Claude")
    gpt = _gap(_session(system=None, tools=False, model="gpt-4.1"), "tiktoken:cl100k_base")
    assert not gpt.foreign and "Claude" not in gpt.reason()


def test_no_usage_no_gap() -> None:
    session = _session(system=None, tools=False)
    bare = session.model_copy(
        update={"messages": tuple(m.model_copy(update={"usage": None}) for m in session.messages)}
    )
    assert last_reported(bare) is None
    assert reported_gap(bare, Engine(bare).plan(preset("plan"))) is None


def test_a_session_read_from_its_last_compaction_numbers_requests_from_there() -> None:
    """The gauge says so; the timeline replays the full history and counts from its start."""
    from ctxtui.importers import load_session
    from ctxtui.samples import samples_dir

    path = samples_dir() / "claude_code_replay.jsonl"
    shown, history = load_session(path), load_session(path, full_history=True)
    plan = Engine(shown).plan(preset("plan"))
    gap = reported_gap(shown, plan)
    assert gap is not None and gap.since_compaction
    whole = reported_gap(history, Engine(history).plan(preset("plan")))
    assert whole is not None and not whole.since_compaction
    assert whole.request > gap.request  # the same last request, counted from further back
    assert not _gap(_session(system=None, tools=False)).since_compaction
