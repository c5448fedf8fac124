"""Properties every plan keeps (issue #3 §6), over random sessions and random valid policies.

Sessions are agent transcripts as they really come: turns of user requests, tool steps whose
results may arrive late (after a user interjection or a progress message), out of order, or
never, orphan results (a transcript cut after a call), and headless runs with no user at all.
Each property runs 500 examples.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtui.core.compacting.compaction import compact
from ctxtui.core.planning.plan import Plan, TailReason
from ctxtui.core.planning.planner import build_plan, history_budget
from ctxtui.core.policies.modes import (
    CompactionStyle,
    PruneMode,
    PruneStub,
    PruneTools,
    TailMode,
    TriggerCheck,
    TriggerCount,
)
from ctxtui.core.policies.policy import Policy, make_policy
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.session.models import Message, Session, ToolCall, ToolDefinition
from ctxtui.core.tokens.counting import count_session
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.core.tokens.tokenizers import TokenizerInfo


class QuarterTokenizer:
    """A tiny Tokenizer: a quarter token per character plus 3 per message."""

    name = "quarter"

    def count_text(self, text: str) -> int:
        return len(text) // 4

    def count_message(self, message: Message) -> int:
        return len(message.content) // 4 + 3

    def count_tool_defs(self, tools: Sequence[ToolDefinition]) -> int:
        return 10 * len(tools)

    def count_system(self, system_prompt: str) -> int:
        return len(system_prompt) // 4 + 3


TOKENIZER = QuarterTokenizer()
INFO = TokenizerInfo("quarter", "quarter")
# Tool outputs: lines of a's and b's, 0–60 characters, repeated 1–20 times by the strategy. One
# draw from a fixed pool, not a character-by-character text strategy: drawing the text was most
# of each example's cost, and the properties only care about lengths, lines and bytes.
_OUTPUTS = sorted(
    {("ab\n" * 20)[start : start + size] for start in range(3) for size in range(61)}
    | {"a" * size for size in range(0, 61, 5)}
    | {"\n" * size for size in (1, 2, 7)},
    key=lambda text: (len(text), text),
)
_output = st.sampled_from(_OUTPUTS)
_placement = st.sampled_from(["now", "now", "now", "later", "never"])
# Built once: a strategy made inside the draw was looked up (or built and validated) again at
# every draw, ~8 % of drawing a session. The choices, and so the examples, are the same.
_text_length = st.integers(0, 600)
_repeats = st.integers(1, 20)
_calls_in_a_step = st.integers(1, 3)
_interjection = st.sampled_from(["user", "assistant"])
_flag = st.booleans()
_headless_steps = st.integers(0, 2)
_turns = st.integers(0, 5)
_steps_in_a_turn = st.integers(0, 3)
_message_tokens = st.integers(0, 400)
_fixed_tokens = st.integers(0, 300)
_summary_tokens = st.integers(0, 200)


@st.composite
def transcripts(draw: st.DrawFn) -> Session:
    """A transcript whose tool results are paired by id, not necessarily adjacent."""
    messages: list[Message] = []
    next_id = 0

    def text(role: str) -> str:
        return role[0] * draw(_text_length)

    def result(call_id: str) -> Message:
        content = draw(_output) * draw(_repeats)
        return Message(role="tool", tool_call_id=call_id, tool_name="bash", content=content)

    def step() -> None:
        nonlocal next_id
        ids = [f"c{next_id + k}" for k in range(draw(_calls_in_a_step))]
        next_id += len(ids)
        calls = tuple(ToolCall(id=i, name="bash") for i in ids)
        messages.append(Message(role="assistant", content=text("assistant"), tool_calls=calls))
        later: list[str] = []
        for i in ids:
            placement = draw(_placement)
            if placement == "now":
                messages.append(result(i))
            elif placement == "later":
                later.append(i)
        if later:
            role = draw(_interjection)  # interjection or progress note
            messages.append(Message(role=role, content=text(role)))  # type: ignore[arg-type]
            for i in draw(st.permutations(later)):
                messages.append(result(i))

    if draw(_flag):
        messages.append(result("cut-off"))  # the transcript starts after a call: an orphan
    for _ in range(draw(_headless_steps)):  # a headless run before any user message
        step()
    for _ in range(draw(_turns)):
        messages.append(Message(role="user", content=text("user")))
        for _ in range(draw(_steps_in_a_turn)):
            step()
        if draw(_flag):
            messages.append(Message(role="assistant", content=text("assistant")))
    return Session(messages=tuple(messages))


@st.composite
def sessions(draw: st.DrawFn) -> tuple[Session, SessionCounts]:
    """A transcript with random per-message counts, so budgets bite at every position."""
    session = draw(transcripts())
    n = len(session)
    tokens = draw(st.lists(_message_tokens, min_size=n, max_size=n))
    counts = SessionCounts(
        INFO,
        tokens,
        system_tokens=draw(_fixed_tokens),
        tool_def_tokens=draw(_fixed_tokens),
        summary_tokens=draw(_summary_tokens),
    )
    return session, counts


# Knobs with no relation to one another, so any order of changes stays valid.
FREE_KNOBS: dict[str, st.SearchStrategy[Any]] = {
    "tail_mode": st.sampled_from(list(TailMode)),
    "tail_ratio": st.floats(0, 1),
    "tail_min_turns": st.integers(0, 3),
    "tail_items": st.integers(1, 20),
    "prune_mode": st.sampled_from(list(PruneMode)),
    "prune_protected_turns": st.integers(0, 3),
    "prune_threshold": st.integers(0, 3),
    "prune_protect_tokens": st.integers(0, 1_500),
    "prune_minimum_tokens": st.integers(0, 500),
    "truncate_enabled": st.booleans(),
    "truncate_max_lines": st.integers(1, 10),
    "truncate_max_bytes": st.integers(1, 60),
    "compact_trigger_ratio": st.floats(0.01, 1),
    "reserve_system_and_tools": st.booleans(),
    "compaction_style": st.sampled_from(list(CompactionStyle)),
    "tail_keep_active_turn": st.booleans(),
    "tail_max_turns": st.integers(0, 3),
    "prune_stub": st.sampled_from(list(PruneStub)),
    "prune_tools": st.sampled_from(list(PruneTools)),
    "prune_keep_results": st.integers(0, 4),
    "prune_size_output_text": st.booleans(),
    "prune_trigger_tokens": st.sampled_from([0, 0, 200, 2_000]),
    "trigger_check": st.sampled_from(list(TriggerCheck)),
    "trigger_count": st.sampled_from(list(TriggerCount)),
    "compact_after_turn": st.booleans(),
    "auto_compact": st.booleans(),
}


@st.composite
def policies(draw: st.DrawFn) -> Policy:
    window = draw(st.integers(256, 6_000))
    low = draw(st.integers(0, 3_000))
    values = {name: draw(strategy) for name, strategy in FREE_KNOBS.items()}
    values |= {
        "context_window": window,
        "max_tokens": draw(st.integers(0, window - 1)),
        "tail_min_tokens": low,
        "tail_max_tokens": draw(st.integers(low, 6_000)),
    }
    return make_policy(values)


def _plan(case: tuple[Session, SessionCounts], policy: Policy) -> Plan:
    session, counts = case
    return build_plan(session, policy, counts, TOKENIZER)


def _counted(plan: Plan) -> list[int]:
    """Per-message tokens as the tail rule sees them: truncated, not pruned."""
    tokens = list(plan.message_tokens)
    for i, t in plan.truncated.items():
        tokens[i] = t.tokens_after
    return tokens


def _splits(session: Session, boundary: int) -> bool:
    return any(call < boundary <= result for result, call in session.call_of_result.items())


@settings(max_examples=500)
@given(case=sessions(), policy=policies())
def test_zones_are_a_contiguous_suffix_that_stops_at_the_first_miss(
    case: tuple[Session, SessionCounts], policy: Policy
) -> None:
    plan = _plan(case, policy)
    n = len(case[0])
    assert 0 <= plan.kept_start <= plan.tail.start <= n
    zones = [plan.zone(i).value for i in range(n) if i not in plan.excluded]
    assert zones == sorted(zones, key=["dropped", "kept", "tail"].index)
    assert all(plan.kept_start <= i < n for i in plan.excluded)
    t = plan.totals
    assert t.dropped + t.kept + t.tail == t.history == sum(plan.effective_tokens)
    assert plan.tail.tokens == sum(plan.effective_tokens[plan.tail.start :])
    if policy.tail_mode is TailMode.TOKENS and policy.tail_keep_active_turn:
        assert n == 0 or plan.tail.start < n  # never an empty tail (X2)
    if plan.tail.reason is TailReason.BUDGET and policy.tail_mode is TailMode.TOKENS:
        # Stopped at the first message that did not fit, not before it and not past it (X1).
        counted = _counted(plan)
        assert sum(counted[plan.tail.start - 1 :]) > plan.tail.budget


@settings(max_examples=500)
@given(case=sessions(), policy=policies())
def test_no_tool_call_is_cut_from_its_results(
    case: tuple[Session, SessionCounts], policy: Policy
) -> None:
    session = case[0]
    plan = _plan(case, policy)
    n = len(session)
    if policy.tail_mode is not TailMode.TOKENS:
        return  # the plan's guarantee; PicoClaw as shipped breaks it (test_seahorse_properties)
    for boundary in (plan.kept_start, plan.tail.start):
        assert not _splits(session, boundary)
        if boundary < n and session.messages[boundary].role == "tool":
            # Only when no earlier message could start it: the tail is never empty (X2).
            assert all(
                session.messages[b].role == "tool" or _splits(session, b)
                for b in range(boundary + 1)
            )


@settings(max_examples=500)
@given(case=sessions(), policy=policies())
def test_tail_stays_in_budget_unless_a_floor_rule_says_otherwise(
    case: tuple[Session, SessionCounts], policy: Policy
) -> None:
    session, counts = case
    plan = _plan(case, policy)
    tail = plan.tail
    if policy.tail_mode is TailMode.TOKENS:
        # The plan's clamp of the adapter budget, capped at what history may use (X5, X42).
        adapter = policy.context_window - policy.max_tokens
        share = int(adapter * policy.tail_ratio)
        clamp = max(policy.tail_min_tokens, min(share, policy.tail_max_tokens))
        assert tail.budget == min(clamp, adapter, history_budget(policy, counts))
    assert tail.over_budget is (tail.tokens > tail.budget)
    budgeted = policy.tail_mode in (TailMode.TOKENS, TailMode.ITEMS)
    if budgeted and tail.reason not in (TailReason.MIN_TURNS, TailReason.ACTIVE_TURN):
        assert tail.tokens <= tail.budget
    starts = session.turn_starts
    if starts and policy.tail_mode is TailMode.TOKENS and policy.tail_keep_active_turn:
        assert tail.start <= starts[-1]  # the active turn is whole (X2)
        assert tail.turns >= min(policy.tail_min_turns, len(starts))  # X3


@settings(max_examples=500)
@given(case=sessions(), policy=policies())
def test_kept_history_fits_what_the_tail_left(
    case: tuple[Session, SessionCounts], policy: Policy
) -> None:
    plan = _plan(case, policy)
    assert plan.totals.kept <= max(0, history_budget(policy, case[1]) - plan.tail.tokens)


@settings(max_examples=500)
@given(case=sessions(), policy=policies())
def test_pruning_never_touches_the_tail_and_conserves_tokens(
    case: tuple[Session, SessionCounts], policy: Policy
) -> None:
    plan = _plan(case, policy)
    assert all(i < plan.tail.start for i in plan.pruned)
    assert all(case[0].messages[i].role == "tool" for i in plan.pruned)
    freed = plan.tokens_freed_by_pruning
    assert all(p.tokens_freed > 0 for p in plan.pruned.values())
    truncated = _counted(plan)
    assert sum(truncated) == sum(plan.effective_tokens) + freed
    for i in range(len(plan)):
        p = plan.pruned.get(i)
        assert plan.effective_tokens[i] == (truncated[i] if p is None else p.tokens_after)
        if p is not None:
            assert p.tokens_before == truncated[i]


@settings(max_examples=500)
@given(session=transcripts(), policy=policies(), reason=st.sampled_from(list(CompactReason)))
def test_compaction_conserves_tokens(
    session: Session, policy: Policy, reason: CompactReason
) -> None:
    """Request before = request after + (replaced − summary), every figure recounted.

    Pruning is off so that every survivor costs the same before and after (pruning decisions
    move with the turns, and are conserved on their own above).
    """
    policy = policy.with_changes(prune_mode=PruneMode.OFF)
    counts = count_session(session, TOKENIZER, INFO)
    assert counts is not None
    plan = build_plan(session, policy, counts, TOKENIZER)
    result = compact(session, plan, reason, TOKENIZER)
    after_counts = count_session(result.session, TOKENIZER, INFO)
    assert after_counts is not None
    after = build_plan(result.session, policy, after_counts, TOKENIZER)
    if result.replaced is None:
        assert result.session is session
        return
    first, last = result.replaced
    replaced = sum(plan.effective_tokens[first : last + 1])
    inserted = len(result.session) - (len(session) - (last - first + 1))
    added = (
        after_counts.summary_tokens
        - counts.summary_tokens
        + sum(after.effective_tokens[first : first + inserted])
    )
    assert plan.totals.requested == after.totals.requested + replaced - added
    assert result.tokens_before - result.tokens_after == result.replaced_tokens - (
        result.summary_tokens
    )
    if policy.compaction_style is CompactionStyle.SUMMARIZE:
        assert last < plan.tail.start  # the fresh tail is never summarised


@settings(max_examples=500)
@given(case=sessions(), policy=policies())
def test_compaction_need_matches_the_strict_trigger(
    case: tuple[Session, SessionCounts], policy: Policy
) -> None:
    plan = _plan(case, policy)
    trigger = policy.trigger
    assert plan.compaction.needed is (trigger is not None and plan.totals.tokens >= trigger)
    strict = policy.trigger_output_cap >= policy.max_tokens and not policy.trigger_inclusive
    if strict and policy.auto_compact:
        share = policy.trigger_threshold + policy.max_tokens  # the plan's strict check
        assert plan.compaction.needed is (plan.totals.requested > share)
    if plan.overflow is not None:
        assert plan.compaction.needed
        assert plan.overflow.requested_tokens > policy.context_window
        assert plan.overflow.reason


@settings(max_examples=500)
@given(
    case=sessions(),
    policy=policies(),
    changes=st.fixed_dictionaries({}, optional=FREE_KNOBS),
    data=st.data(),
)
def test_plan_is_the_same_whatever_order_knobs_change_in(
    case: tuple[Session, SessionCounts],
    policy: Policy,
    changes: dict[str, Any],
    data: st.DataObject,
) -> None:
    """Plans along both paths share the planner's caches, as they do in the app; the final
    plans must equal each other and one built from scratch (fresh counts, nothing cached)."""
    session, counts = case
    items = list(changes.items())
    ends: list[Plan] = []
    for order in (items, data.draw(st.permutations(items))):
        current = policy
        _plan(case, current)
        for name, value in order:
            current = current.with_changes(**{name: value})
            _plan(case, current)
        ends.append(_plan(case, current))
    fresh_counts = SessionCounts(
        counts.tokenizer,
        list(counts.message_tokens),
        counts.system_tokens,
        counts.tool_def_tokens,
        counts.summary_tokens,
    )
    assert ends[0] == ends[1] == build_plan(session, ends[0].policy, fresh_counts, TOKENIZER)
