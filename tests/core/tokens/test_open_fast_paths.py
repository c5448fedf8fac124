"""The open path's batch shortcuts give exactly what the one-at-a-time definitions give."""

from __future__ import annotations

import random
from itertools import accumulate

import pytest

from ctxtui.core.planning.tail import Boundaries
from ctxtui.core.session.models import ContentPart, Message, PartKind, Session, ToolCall
from ctxtui.core.tokens.tokenizers.estimator import PlanTokenizer

_TEXT = "ab é中\ud800x \n"


def _messages(seed: int, n: int) -> list[Message]:
    rng = random.Random(seed)
    out: list[Message] = []
    for i in range(n):
        text = "".join(rng.choice(_TEXT) for _ in range(rng.randint(0, 80)))
        role = rng.choice(["user", "assistant", "assistant", "tool", "tool", "system"])
        calls = tuple(
            ToolCall(
                id=rng.choice(["c1", "c2", "ée", f"c{i}"]),
                name=rng.choice(["ls", "中"]),
                arguments=text[: rng.randint(0, 30)],
                type=rng.choice(["function", "custom"]),
            )
            for _ in range(rng.randint(0, 2))
        )
        parts = tuple(
            rng.choice(
                [
                    ContentPart(kind=PartKind.IMAGE),
                    ContentPart(kind=PartKind.OTHER, token_estimate=7),
                    ContentPart(kind=PartKind.TEXT, text="x"),
                    ContentPart(kind=PartKind.OPAQUE, byte_size=5),
                ]
            )
            for _ in range(rng.randint(0, 2))
        )
        out.append(
            Message(
                role=role,  # type: ignore[arg-type]
                content=text,
                reasoning=text[: rng.randint(0, 10)],
                tool_calls=calls if role != "tool" else (),
                parts=parts,
                tool_call_id=rng.choice([None, "c1", "c2", "ée"]) if role == "tool" else None,
            )
        )
    return out


@pytest.mark.parametrize("ratio", [4.0, 1.0, 2.5, 0.7, 3.0, 7.0, 0.1, 1e6, 2.0**21])
def test_estimator_batch_counts_as_one_at_a_time(ratio: float) -> None:
    tokenizer = PlanTokenizer(ratio)
    messages = _messages(1, 600)
    assert tokenizer.count_messages(messages) == [tokenizer.count_message(m) for m in messages]


@pytest.mark.parametrize("ratio", [1.0, 2.0, 3.0, 4.0, 7.0, 13.0])
def test_whole_ratios_round_like_the_floats(ratio: float) -> None:
    tokenizer = PlanTokenizer(ratio)
    rng = random.Random(3)
    for chars in [*range(0, 2000), *(rng.randrange(1 << 28) for _ in range(2000))]:
        big = Message(role="user", content="x")
        expected = tokenizer.chars_to_tokens(chars)
        assert -(-chars // int(ratio)) == expected
        assert tokenizer.count_messages([big]) == [tokenizer.count_message(big)]


def _reference_boundaries(session: Session) -> bytearray:
    messages = session.messages
    n = len(messages)
    opened = [0] * (n + 1)
    for result, call in session.call_of_result.items():
        opened[call + 1] += 1
        opened[result + 1] -= 1
    pair = bytearray(
        c == 0 and m.role != "tool" for c, m in zip(accumulate(opened[:n]), messages, strict=True)
    )
    return pair + b"\x01"


@pytest.mark.parametrize("seed", range(8))
def test_boundaries_match_the_per_message_rule(seed: int) -> None:
    session = Session(messages=tuple(_messages(seed, 300)))
    bounds = Boundaries.of(session)
    assert bounds.pair == _reference_boundaries(session)


def test_session_index_matches_the_messages() -> None:
    session = Session(messages=tuple(_messages(5, 400)))
    messages = session.messages
    assert session.turn_starts == tuple(i for i, m in enumerate(messages) if m.role == "user")
    assert session.index.tool_results == tuple(
        i for i, m in enumerate(messages) if m.role == "tool"
    )
    assert session.index.tool_callers == tuple(i for i, m in enumerate(messages) if m.calls_tools)
    paired = session.call_of_result
    assert session.orphan_results == tuple(
        i for i, m in enumerate(messages) if m.role == "tool" and i not in paired
    )
