"""Carry cost (``core.pricing.carry``): what each message cost while it stayed in the context."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from itertools import accumulate

from hypothesis import given
from hypothesis import strategies as st

from ctxtui.core.pricing.carry import _Rates, carry_costs
from ctxtui.core.pricing.cost import session_cost
from ctxtui.core.session.models import Message, RecordedCompaction, Session, SessionMeta, Usage
from ctxtui.core.tokens.calibration import live_starts
from ctxtui.importers import load_session
from ctxtui.samples import samples_dir

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
MODELS = ("claude-sonnet-4-5", "claude-opus-4-5", "gpt-5", "claude-nonexistent-9")


@st.composite
def sessions(draw: st.DrawFn) -> tuple[Session, list[int]]:
    """A session of user / tool / assistant messages with random usage on the replies,
    random message sizes and a few recorded compactions."""
    n = draw(st.integers(2, 40))
    messages: list[Message] = []
    tokens: list[int] = []
    for i in range(n):
        role = draw(st.sampled_from(("user", "tool", "assistant")))
        usage = None
        if role == "assistant" and draw(st.booleans()):
            prompt = draw(st.integers(0, 400_000))
            read = draw(st.integers(0, prompt))
            write = draw(st.integers(0, prompt - read))
            usage = Usage(
                prompt_total=prompt,
                cached_read=read,
                cache_write=write,
                cache_write_1h=draw(st.integers(0, write)),
                output=draw(st.integers(0, 5_000)),
            )
        messages.append(
            Message(
                role=role,
                content="x",
                tool_name="grep" if role == "tool" else None,
                tool_call_id="c" if role == "tool" else None,
                model=draw(st.sampled_from(MODELS)) if role == "assistant" else None,
                usage=usage,
                created_at=START + timedelta(seconds=30 * i),
            )
        )
        tokens.append(draw(st.integers(0, 20_000)))
    marks = draw(st.lists(st.integers(0, n - 1), max_size=3, unique=True))
    meta = SessionMeta(
        format="claude-code",
        recorded_compactions=tuple(RecordedCompaction(message_index=m) for m in sorted(marks)),
    )
    return Session(messages=tuple(messages), meta=meta), tokens


@given(sessions())
def test_carry_adds_up_to_the_recorded_input_cost(case: tuple[Session, list[int]]) -> None:
    session, tokens = case
    cost = session_cost(session)
    carry = carry_costs(session, cost, tokens)
    recorded = sum(
        (r.priced.total - r.priced.output for r in cost.requests if r.priced), Decimal(0)
    )
    assert carry.input_cost == recorded
    assert abs(sum(carry.cost, Decimal(0)) + carry.unattributed - recorded) <= Decimal("1e-15")
    assert all(c >= 0 for c in carry.cost) and carry.unattributed >= 0


@given(sessions())
def test_a_message_is_resent_by_every_later_request_until_compacted(
    case: tuple[Session, list[int]],
) -> None:
    session, tokens = case
    cost = session_cost(session)
    carry = carry_costs(session, cost, tokens)
    points = [r.message_index for r in cost.requests]
    starts = live_starts(session, points)
    for i in range(len(session.messages)):
        expected = sum(
            1
            for r, start in zip(cost.requests, starts, strict=True)
            if r.usage is not None and start <= i < r.message_index
        )
        assert carry.requests[i] == expected
        assert carry.tokens[i] == expected * tokens[i]


def test_a_message_alone_in_a_read_prompt_costs_its_reads() -> None:
    """One 1,000-token message read from the cache by two requests costs two reads of it."""
    usage = Usage(prompt_total=1_000, cached_read=1_000, output=1)
    messages = (
        Message(role="user", content="q"),
        Message(role="assistant", model="claude-sonnet-4-5", usage=usage, created_at=START),
        Message(role="assistant", model="claude-sonnet-4-5", usage=usage, created_at=START),
    )
    session = Session(messages=messages)
    cost = session_cost(session)
    carry = carry_costs(session, cost, [1_000, 0, 0])
    rates = cost.requests[0].rates
    assert rates is not None
    assert carry.cost[0] == 2 * 1_000 * rates.cache_read
    assert carry.requests == (2, 1, 0) and carry.unattributed == 0


def test_sample_tool_carry_covers_every_request() -> None:
    session = load_session(samples_dir() / "claude_code_replay.jsonl", full_history=True)
    cost = session_cost(session)
    carry = carry_costs(session, cost, [len(m.content) // 4 for m in session.messages])
    tools = carry.tools(session)
    assert {t.name for t in tools} == {"read_file", "grep", "run_tests", "list_dir"}
    assert sum(t.outputs for t in tools) == sum(1 for m in session.messages if m.role == "tool")
    assert all(t.cost > 0 for t in tools)
    assert abs(sum(carry.cost, Decimal(0)) + carry.unattributed - carry.input_cost) < Decimal(
        "1e-15"
    )


@given(
    sizes=st.lists(st.integers(0, 50), min_size=1, max_size=12),
    data=st.data(),
    rate=st.decimals(min_value=Decimal("0.0000001"), max_value=Decimal("0.01"), places=9),
)
def test_whole_token_spreading_is_the_decimal_spreading(
    sizes: list[int], data: st.DataObject, rate: Decimal
) -> None:
    """``spread_tokens`` (an unscaled prompt: positions are whole tokens) lays the same
    dollars, digit for digit, as ``spread`` does with the same positions as ``Decimal``."""
    prefix = [0, *accumulate(sizes)]
    n = len(sizes)
    start = data.draw(st.integers(0, n - 1), label="start")
    stop = data.draw(st.integers(start + 1, n), label="stop")
    x0 = data.draw(st.integers(prefix[start], prefix[stop]), label="x0")
    x1 = data.draw(st.integers(x0, prefix[stop]), label="x1")
    fast = _Rates(prefix, [Decimal(0)] * (n + 1), [Decimal(0)] * n)
    slow = _Rates(prefix, [Decimal(0)] * (n + 1), [Decimal(0)] * n)
    fast.spread_tokens(x0, x1, rate, start)
    slow.spread(Decimal(x0), Decimal(x1), rate / Decimal(1), range(start, stop))
    assert [str(d) for d in fast.direct] == [str(d) for d in slow.direct]
    assert [str(d) for d in fast.per_token] == [str(d) for d in slow.per_token]
