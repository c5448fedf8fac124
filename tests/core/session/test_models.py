"""The session model's derived indices."""

from __future__ import annotations

from ctxtui.core.session.models import Message, Session, ToolCall


def _session() -> Session:
    return Session(
        messages=(
            Message(role="user", content="hi"),
            Message(role="assistant", tool_calls=(ToolCall(id="a", name="ls"),)),
            Message(role="tool", tool_call_id="a", content="x"),
            Message(role="tool", tool_call_id="zz", content="orphan"),
            Message(role="user", content="again"),
        )
    )


def test_turns_and_pairs_are_derived() -> None:
    s = _session()
    assert s.turn_starts == (0, 4)
    assert s.call_of_result == {2: 1}
    assert s.results_of_call == {1: (2,)}
    assert s.orphan_results == (3,)
    assert len(s.index.tool_results) == 2


def test_model_copy_recomputes_derived_indices() -> None:
    s = _session()
    _ = (s.turn_starts, s.call_of_result, s.orphan_results)  # fill the caches
    shorter = s.model_copy(update={"messages": s.messages[:1]})
    assert shorter.turn_starts == (0,)
    assert shorter.call_of_result == {}
    assert shorter.orphan_results == ()


def test_totals_free_and_over_by() -> None:
    from ctxtui.core.planning.plan import Totals

    fits = Totals(1_000, 200, 100, 50, 0, 400, 300, 100, 0)
    assert (fits.requested, fits.free, fits.over_by) == (750, 250, 0)
    over = Totals(1_000, 200, 100, 50, 0, 900, 800, 100, 0)
    assert (over.requested, over.free, over.over_by) == (1_250, 0, 250)


def test_trusted_instances_are_the_validated_ones() -> None:
    """``trusted`` skips validation only: equal, equally dumped, copied, hashed and pickled,
    with the same fields set and every default filled."""
    import pickle
    from datetime import UTC, datetime

    from ctxtui.core.session.models import ContentPart, PartKind, Usage

    part = {"kind": PartKind.TEXT, "text": "a", "label": ""}
    usage = {"prompt_total": 10, "cached_read": 4, "output": 2, "source": "x"}
    call = {"id": "c1", "name": "ls", "arguments": "{}"}
    message = {
        "role": "assistant",
        "content": "a",
        "parts": (ContentPart(**part),),
        "tool_calls": (ToolCall(**call),),
        "usage": Usage(**usage),
        "created_at": datetime(2026, 1, 2, tzinfo=UTC),
        "source_line": 3,
    }
    for cls, fields in ((ContentPart, part), (Usage, usage), (ToolCall, call), (Message, message)):
        made, checked = cls.trusted(**fields), cls(**fields)
        assert made == checked and hash(made) == hash(checked)
        assert made.model_dump() == checked.model_dump()
        assert made.model_fields_set == checked.model_fields_set
        assert pickle.loads(pickle.dumps(made)) == checked
    copied = Message.trusted(**message).model_copy(update={"content": "b"})
    assert copied == Message(**{**message, "content": "b"})
    assert Message.trusted(role="user").reasoning == "" and Usage.trusted().source == ""
