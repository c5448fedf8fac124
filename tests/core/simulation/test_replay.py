"""Replay on the sample sessions with recorded usage, and calibration on a known line.

The expected requests, reported figures and recorded compactions are read from the raw
files here, independently of the importers, so an importer that merges, drops or misplaces
a call fails these tests.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxtui.core.engine import Engine
from ctxtui.core.policies.policy import Policy, policy_for_session
from ctxtui.core.session.models import (
    Message,
    RecordedCompaction,
    Session,
    SessionMeta,
    ToolCall,
    Usage,
)
from ctxtui.core.simulation.live_context import Counted
from ctxtui.core.simulation.replay import (
    EventKind,
    Replay,
    ReplayStoppedError,
    replay,
)
from ctxtui.core.tokens.calibration import (
    Calibration,
    Fit,
    TokenizerError,
    calibrate,
    content_chars,
    fit_line,
    live_starts,
)
from ctxtui.core.tokens.counting import count_session
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.core.tokens.tokenizers import resolve
from ctxtui.importers import load_session
from ctxtui.samples import samples_dir

SAMPLES = samples_dir()


def _lines(name: str) -> list[dict[str, Any]]:
    text = (SAMPLES / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def claude_code_truth(name: str) -> tuple[list[int], list[tuple[int, str, int]]]:
    """Reported prompt per API message id, in order; boundaries as (request, trigger, pre)."""
    reported: dict[str, int] = {}
    boundaries: list[tuple[int, str, int]] = []
    for line in _lines(name):
        if line.get("subtype") == "compact_boundary":
            meta = line["compactMetadata"]
            boundaries.append((len(reported), meta["trigger"], meta["preTokens"]))
        message = line.get("message") or {}
        if line.get("type") == "assistant" and message.get("model") != "<synthetic>":
            u = message["usage"]
            total = u["input_tokens"] + u["cache_creation_input_tokens"]
            reported[message["id"]] = total + u["cache_read_input_tokens"]
    return list(reported.values()), boundaries


def codex_truth(name: str) -> tuple[list[int], list[tuple[int, None, int]]]:
    """Reported prompt per token_count event; compactions as (request, None, last reported)."""
    reported: list[int] = []
    compactions: list[tuple[int, None, int]] = []
    for line in _lines(name):
        payload = line.get("payload") or {}
        if line["type"] == "compacted":
            compactions.append((len(reported), None, reported[-1]))
        elif payload.get("type") == "token_count" and payload.get("info"):
            reported.append(payload["info"]["last_token_usage"]["input_tokens"])
    return reported, compactions


def _replay(path: Path, **knobs: Any) -> tuple[Replay, Engine, Policy]:
    session = load_session(path, full_history=True)
    policy = policy_for_session("plan", session, knobs)
    engine = Engine(session)
    counts = engine.counts(policy)
    assert counts is not None
    return replay(Counted(session, policy, counts, engine.tokenizer(policy))), engine, policy


LONG_SAMPLES: dict[str, tuple[Any, float, int]] = {
    "claude_code_replay.jsonl": (claude_code_truth, 3.3, 15_800),
    "codex_replay.jsonl": (codex_truth, 3.6, 9_000),
}


@pytest.mark.parametrize("name", sorted(LONG_SAMPLES))
def test_long_samples_replay_every_call_with_its_figures(name: str) -> None:
    truth, chars_per_token, offset = LONG_SAMPLES[name]
    reported, recorded = truth(name)
    result, engine, policy = _replay(SAMPLES / name)
    assert len(result.requests) == len(reported) >= 200
    assert [r.reported_tokens for r in result.requests] == reported
    assert len(recorded) >= 2
    assert [(rc.request, rc.trigger, rc.pre_tokens) for rc in result.recorded] == recorded
    for rc in result.recorded:
        assert rc.request is not None
        assert result.requests[rc.request].has(EventKind.RECORDED_COMPACTION)
    points = [r.message_index for r in result.requests]
    counts = {"plan": engine.counts(policy)}
    calibration = calibrate(result.session, points, counts)  # type: ignore[arg-type]
    assert calibration.samples == len(reported)
    assert calibration.fit.chars_per_token == pytest.approx(chars_per_token, abs=0.05)
    assert calibration.fit.offset_tokens == pytest.approx(offset, abs=200)
    assert calibration.errors[0].bias < 0  # the transcript lacks the system prompt and tools


def native_truth(name: str) -> tuple[list[int], list[tuple[int, None, int]]]:
    """A ctxtui native session: each assistant message is a call; its usage is its figure."""
    messages = json.loads((SAMPLES / name).read_text(encoding="utf-8"))["session"]["messages"]
    calls = [m for m in messages if m["role"] == "assistant" and not m.get("injected")]
    return [m["usage"]["prompt_total"] for m in calls], []


@pytest.mark.parametrize(
    ("name", "truth"),
    [
        ("claude_code_compacted.jsonl", claude_code_truth),
        ("codex_rollout.jsonl", codex_truth),
        ("demo.json", native_truth),
    ],
)
def test_short_samples_report_usage_where_the_transcript_has_it(name: str, truth: Any) -> None:
    reported, recorded = truth(name)
    result, engine, policy = _replay(SAMPLES / name)
    assert [r.reported_tokens for r in result.requests] == reported  # one request per call
    assert [(rc.request, rc.pre_tokens) for rc in result.recorded] == [
        (request, pre) for request, _, pre in recorded
    ]
    points = [r.message_index for r in result.requests]
    calibration = calibrate(result.session, points, {"plan": engine.counts(policy)})  # type: ignore[dict-item]
    assert calibration.samples == len(reported)
    assert calibration.fit.chars_per_token is not None and calibration.fit.chars_per_token > 0
    assert calibration.errors[0].median_abs_error > 0


def test_claude_code_sample_request_sits_after_its_boundary() -> None:
    """The first request after a boundary is the one whose prompt holds the summary."""
    result, _, _ = _replay(SAMPLES / "claude_code_replay.jsonl")
    messages = result.session.messages
    for rc in result.recorded:
        assert rc.request is not None
        summary = messages[rc.message_index]
        assert summary.is_summary
        request = result.requests[rc.request]
        assert rc.message_index < request.message_index
        assert result.requests[rc.request - 1].message_index < rc.message_index


def test_small_window_makes_a_sawtooth() -> None:
    result, _, policy = _replay(
        SAMPLES / "claude_code_replay.jsonl", context_window=8_000, max_tokens=1_000
    )
    assert len(result.compactions) >= 3
    for c in result.compactions:
        before = result.requests[c.request - 1].simulated_tokens
        at = result.requests[c.request].simulated_tokens
        assert c.tokens_after < c.tokens_before
        assert at == c.tokens_after < before
    assert result.peak_tokens <= policy.context_window


# --- calibration on a known line ------------------------------------------------------------


def _known_line_session(chars_per_token: int, offset: int) -> Session:
    """Requests whose reported prompt is exactly ``chars / chars_per_token + offset``."""
    messages: list[Message] = []
    chars = 0
    for k in range(1, 30):
        size = chars_per_token * (17 * k % 23 + 5) * 10
        user = Message(role="user", content="u" * size)
        messages.append(user)
        chars += content_chars(user)
        usage = Usage(prompt_total=chars // chars_per_token + offset, output=10)
        call = ToolCall(id=f"c{k}", name="read", arguments="a" * (chars_per_token * 4))
        messages.append(Message(role="assistant", tool_calls=(call,), usage=usage))
        chars += content_chars(messages[-1])
        result = Message(role="tool", tool_call_id=f"c{k}", content="r" * (chars_per_token * k))
        messages.append(result)
        chars += content_chars(result)
    return Session(messages=tuple(messages))


def test_calibration_recovers_three_chars_per_token_and_a_500_token_offset() -> None:
    session = _known_line_session(3, 500)
    tokenizer, info = resolve("plan", chars_per_token=4.0)
    counts = count_session(session, tokenizer, info)
    assert counts is not None
    result = calibrate(session, session.index.requests, {"plan": counts})
    assert result.samples == 29
    assert result.fit.chars_per_token == pytest.approx(3.0, abs=1e-9)
    assert result.fit.offset_tokens == pytest.approx(500.0, abs=1e-6)
    assert "fitted 3.0 chars/token + 500 tokens" in result.sentence()


def test_calibration_reads_only_the_context_since_the_agents_last_compaction() -> None:
    session = _known_line_session(3, 500)
    compacted = Session(
        messages=session.messages,
        meta=SessionMeta(recorded_compactions=(RecordedCompaction(message_index=30),)),
    )
    points = compacted.index.requests
    assert live_starts(compacted, points) == [0 if p < 30 else 30 for p in points]


def test_fit_claims_nothing_without_enough_distinct_sizes() -> None:
    assert fit_line([100, 200, 300, 400], [50, 80, 110, 140]).chars_per_token is None  # 4 only
    assert fit_line([100] * 6, [50, 60, 50, 60, 50, 60]).chars_per_token is None
    assert fit_line([100, 200, 300, 400, 500], [60, 50, 40, 30, 20]).chars_per_token is None
    assert fit_line([100, 200, 300, 400, 500], [60, 80, 100, 120, 140]) == Fit(5.0, 40.0)


def test_no_usage_says_so() -> None:
    session = Session(messages=(Message(role="user", content="hi"), Message(role="assistant")))
    counts = SessionCounts(resolve("plan")[1], [1, 1])
    result = calibrate(session, session.index.requests, {"plan": counts})
    assert result.samples == 0
    assert "no reported usage" in result.sentence()


def test_harness_written_assistant_messages_are_not_requests() -> None:
    session = Session(
        messages=(
            Message(role="user", content="go"),
            Message(role="assistant", content="done"),
            Message(role="assistant", content="[interrupted]", injected=True),
        )
    )
    assert session.index.requests == (1,)


def test_a_cursor_sees_the_context_of_each_request() -> None:
    """What the app's timeline asks: the rows, zones and stand-in at request ``k``."""
    result, _, _ = _replay(
        SAMPLES / "claude_code_replay.jsonl", context_window=8_000, max_tokens=1_000
    )
    compaction = result.compactions[1]
    k = compaction.request
    context = result.context_at(k)
    request = result.requests[k]
    assert context.stand_in and context.history_index(0) is None
    assert context.session.messages[0].is_summary
    assert context.start == compaction.replaced[1] + 1
    assert context.plan.totals.tokens == request.simulated_tokens
    last = len(context.session.messages) - 1  # the request's own message is not written yet
    assert context.history_index(last) == request.message_index - 1
    assert context.plan.zone(last).value == "tail"
    assert context.history_index(1) == context.start
    before = result.context_at(k - 1)
    assert before.start == compaction.replaced[0] < context.start
    assert result.request_of_message(request.message_index - 1) == k
    assert result.request_of_message(request.message_index) == k + 1
    assert result.request_of_message(len(result.session.messages)) is None


def test_the_calibration_sentence() -> None:
    calibration = Calibration(
        samples=40,
        errors=(
            TokenizerError("plan", 900.0, -0.31),
            TokenizerError("tiktoken:cl100k_base", 200.0, -0.09),
            TokenizerError("picoclaw", 300.0, 0.12),
        ),
        fit=Fit(3.1, 15_800.4),
    )
    assert calibration.sentence() == (
        "the plan estimator undercounts this session by 31%; cl100k undercounts by 9%; "
        "picoclaw overcounts by 12%; fitted 3.1 chars/token + 15,800 tokens not in the "
        "transcript (40 requests with reported usage)"
    )


def test_a_replay_reports_progress_and_stops_when_asked() -> None:
    session = load_session(SAMPLES / "claude_code_replay.jsonl", full_history=True)
    policy = policy_for_session("plan", session)
    engine = Engine(session)
    counts = engine.counts(policy)
    assert counts is not None
    seen: list[tuple[int, int]] = []
    tokenizer = engine.tokenizer(policy)
    replay(
        Counted(session, policy, counts, tokenizer), on_progress=lambda d, t: seen.append((d, t))
    )
    assert seen == [(0, 260), (256, 260)]
    with pytest.raises(ReplayStoppedError):
        replay(Counted(session, policy, counts, tokenizer), should_stop=lambda: True)
