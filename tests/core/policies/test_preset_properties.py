"""Properties of the agents' rules, over random transcripts: seahorse as shipped, PicoClaw's
request sanitizer, Codex's rebuilt history, OpenCode's tail and PicoClaw legacy's whole history.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtui.core.compacting.compaction import compact
from ctxtui.core.planning.picoclaw_sanitize import (
    PairIndex,
    SanitizerRun,
    sanitize_ranges,
    step,
    unpaired_sent,
)
from ctxtui.core.planning.plan import Plan, TailReason, Zone
from ctxtui.core.planning.planner import build_plan
from ctxtui.core.policies.policy import Policy, preset
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.session.models import Message, Session, ToolCall
from ctxtui.core.summaries.seahorse import FRESH_TAIL_COUNT
from ctxtui.core.summaries.templates import CODEX_SUMMARY_PREFIX
from ctxtui.core.tokens.counting import count_session
from tests.core.planning.test_plan_properties import INFO, TOKENIZER, transcripts


def _plan(session: Session, policy: Policy) -> Plan:
    counts = count_session(session, TOKENIZER, INFO)
    assert counts is not None
    return build_plan(session, policy, counts, TOKENIZER)


_windows = st.integers(300, 4_000)


@settings(max_examples=300)
@given(session=transcripts(), window=_windows, items=st.integers(1, 40), sanitize=st.booleans())
def test_seahorse_prompt_fits_the_budget_unless_the_active_turn_alone_does_not(
    session: Session, window: int, items: int, sanitize: bool
) -> None:
    policy = preset("picoclaw-seahorse", context_window=window, max_tokens=window // 4)
    policy = policy.with_changes(tail_items=items, sanitize_history=sanitize)
    plan = _plan(session, policy)
    budget = policy.context_window - policy.max_tokens
    sent = plan.totals.kept + plan.totals.tail
    if plan.tail.reason is TailReason.ACTIVE_TURN:
        assert plan.totals.kept == 0  # nothing older is added beside an over-budget turn
    else:
        assert sent <= budget
    n = len(session)
    for i in plan.excluded:
        assert plan.kept_start <= i < n
        assert plan.zone(i) is Zone.DROPPED
        if not sanitize:  # the hole: only items the trim took off the 32 (here N) items
            assert max(0, n - items) <= i < plan.tail.start
            assert plan.kept_start < max(0, n - items)  # older history is sent past the hole


def sanitize_history_for_provider(messages: list[Message]) -> list[int]:
    """PicoClaw's ``sanitizeHistoryForProvider`` (``pkg/agent/context.go``) transcribed as it
    reads, both passes: the indices it drops."""
    first: list[int] = []
    for i, m in enumerate(messages):
        if m.role == "system":
            continue
        if m.role == "tool":
            j = len(first) - 1
            while j >= 0 and messages[first[j]].role == "tool":
                j -= 1
            nearest = messages[first[j]] if j >= 0 else None
            if nearest is None or not (nearest.role == "assistant" and nearest.tool_calls):
                continue
        lead = not first or messages[first[-1]].role not in ("user", "tool")
        if m.role == "assistant" and m.tool_calls and lead:
            continue
        first.append(i)
    final: list[int] = []
    k = 0
    while k < len(first):
        m = messages[first[k]]
        if m.role == "assistant" and m.tool_calls:
            expected = {c.id: False for c in m.tool_calls if c.id}
            invalid = any(not c.id for c in m.tool_calls)
            block: list[int] = []
            j = k + 1
            while j < len(first) and messages[first[j]].role == "tool":
                tid = messages[first[j]].tool_call_id or ""
                if tid and tid in expected and not expected[tid]:
                    expected[tid] = True
                    block.append(first[j])
                j += 1
            if not invalid and all(expected.values()):
                final += [first[k], *block]
            k = j
            continue
        if m.role != "tool":
            final.append(first[k])
        k += 1
    return sorted(set(range(len(messages))) - set(final))


def _ranges(n: int, cuts: list[int]) -> list[tuple[int, int]]:
    points = sorted({min(c, n) for c in cuts} | {0, n})
    return [(a, b) for a, b in zip(points[::2], points[1::2], strict=False) if a < b]


@settings(max_examples=300)
@given(session=transcripts(), cuts=st.lists(st.integers(0, 60), min_size=0, max_size=4))
def test_the_sanitizer_over_ranges_matches_a_plain_run(session: Session, cuts: list[int]) -> None:
    ranges = _ranges(len(session), cuts)
    sanitized = sanitize_ranges(session, SanitizerRun.of(session), ranges)
    sent_order = [i for a, b in ranges for i in range(a, b)]
    oracle = sanitize_history_for_provider([session.messages[i] for i in sent_order])
    assert sorted(sanitized.dropped) == sorted(sent_order[k] for k in oracle)
    expected: list[int] = []
    state = 0
    for i in sent_order:
        keep, state = step(state, session.messages[i])
        if not keep:
            expected.append(i)
    assert list(sanitized.by_role) == expected
    # and what it still sends unpaired, checked against every pair
    dropped = sanitized.dropped
    sent = set(sent_order) - dropped
    flagged = unpaired_sent(PairIndex.of(session), ranges, dropped)
    for result, call in session.call_of_result.items():
        if result in sent and call not in sent:
            assert result in flagged
        if call in sent and result not in sent:
            assert call in flagged
    assert set(flagged) <= sent


_ids = st.sampled_from(["", "a", "b", "c"])


@st.composite
def _id_soup(draw: st.DrawFn) -> Session:
    """Roles and tool ids from a tiny alphabet: reused, unexpected, duplicate and empty ids."""
    messages: list[Message] = []
    for kind in draw(st.lists(st.sampled_from("uatTs"), max_size=40)):
        if kind == "a":
            calls = tuple(ToolCall(id=x, name="bash") for x in draw(st.lists(_ids, max_size=3)))
            messages.append(Message(role="assistant", tool_calls=calls))
        elif kind in "tT":
            messages.append(Message(role="tool", tool_call_id=draw(_ids) or None))
        else:
            messages.append(Message(role="user" if kind == "u" else "system"))
    return Session(messages=tuple(messages))


@settings(max_examples=500)
@given(session=_id_soup(), cuts=st.lists(st.integers(0, 40), min_size=0, max_size=4))
def test_the_second_pass_over_ranges_matches_picoclaws_own(
    session: Session, cuts: list[int]
) -> None:
    ranges = _ranges(len(session), cuts)
    sanitized = sanitize_ranges(session, SanitizerRun.of(session), ranges)
    sent_order = [i for a, b in ranges for i in range(a, b)]
    oracle = sanitize_history_for_provider([session.messages[i] for i in sent_order])
    assert sorted(sanitized.dropped) == sorted(sent_order[k] for k in oracle)


@settings(max_examples=200)
@given(session=transcripts(), cap=st.integers(0, 400))
def test_codex_rebuilds_user_messages_under_the_cap_and_one_summary(
    session: Session, cap: int
) -> None:
    policy = preset("codex", tokenizer="plan", compact_user_message_tokens=cap)
    plan = _plan(session, policy)
    result = compact(session, plan, CompactReason.PROACTIVE, TOKENIZER)
    if result.replaced is None:
        assert len(session) == 0
        return
    messages = result.session.messages
    assert all(m.role == "user" for m in messages)
    assert messages[-1].is_summary and messages[-1].content.startswith(CODEX_SUMMARY_PREFIX)
    assert sum(m.is_summary for m in messages) == 1
    kept = sum(TOKENIZER.count_message(m) for m in messages[:-1])
    # the quarter tokenizer's 3 per message, and the crossing message's "…N tokens truncated…"
    assert kept <= cap + 3 * len(messages[:-1]) + 10


@settings(max_examples=300)
@given(session=transcripts(), window=st.integers(20_000, 400_000))
def test_opencode_tail_never_exceeds_its_budget(session: Session, window: int) -> None:
    out = min(32_000, window // 4)
    policy = preset("opencode", tokenizer="plan", context_window=window, max_tokens=out)
    plan = _plan(session, policy)
    assert plan.tail.tokens <= plan.tail.budget
    assert 2_000 <= plan.tail.budget <= 15_000


@settings(max_examples=300)
@given(session=transcripts(), window=_windows)
def test_picoclaw_legacy_sends_the_whole_history(session: Session, window: int) -> None:
    plan = _plan(session, preset("picoclaw", context_window=window, max_tokens=window // 4))
    assert plan.kept_start == 0
    dropped = [i for i in range(len(session)) if plan.zone(i) is Zone.DROPPED]
    assert set(dropped) == set(plan.excluded)  # only what the request sanitizer drops
    if plan.compaction.needed and not plan.compaction.post_turn:
        assert plan.totals.tokens + policy_reserve(plan) > window  # forceCompression's check


def policy_reserve(plan: Plan) -> int:
    return plan.policy.max_tokens


def test_tail_count_is_seahorses() -> None:
    assert preset("picoclaw-seahorse").tail_items == FRESH_TAIL_COUNT
