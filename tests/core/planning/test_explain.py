"""explain.why: one sentence per message naming the rule that placed it, with its figures."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from ctxtui.core.planning.explain import why
from ctxtui.core.planning.plan import Plan, TailReason, Zone
from ctxtui.core.planning.planner import build_plan, history_budget
from ctxtui.core.policies.policy import Policy, preset
from ctxtui.core.session.models import Message, Session, ToolCall
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.core.tokens.tokenizers import TokenizerInfo
from ctxtui.core.wording import plural
from tests.core.fakes import CharTokenizer
from tests.core.planning.test_plan_properties import QuarterTokenizer, policies, sessions


def _build(policy: Policy) -> tuple[Session, Plan]:
    messages: list[Message] = []
    for t in range(12):
        call = ToolCall(id=f"c{t}", name="bash")
        messages += [
            Message(role="user", content="q" * 400),
            Message(role="assistant", tool_calls=(call,)),
            Message(role="tool", tool_call_id=f"c{t}", tool_name="bash", content="y\n" * 400),
        ]
    session = Session(messages=tuple(messages))
    tokenizer = CharTokenizer()
    counts = SessionCounts(
        TokenizerInfo("chars", "chars"), [tokenizer.count_message(m) for m in messages]
    )
    return session, build_plan(session, policy, counts, tokenizer)


POLICY = preset("plan", context_window=5_000, max_tokens=1_000, truncate_max_lines=100)


def test_every_message_gets_one_sentence_naming_its_zone() -> None:
    session, plan = _build(POLICY)
    seen = set()
    for i in range(len(plan)):
        text = why(session, plan, i)
        zone = plan.zone(i)
        seen.add(zone)
        assert text.endswith(".") and text.count(". ") == 0
        assert {Zone.TAIL: "fresh tail", Zone.KEPT: "is kept", Zone.DROPPED: "dropped"}[
            zone
        ] in text
        assert plural(plan.effective_tokens[i], "token") in text
    assert seen == set(Zone)


def test_tail_sentence_names_the_rule_and_its_figures() -> None:
    session, plan = _build(POLICY)
    text = why(session, plan, len(plan) - 1)
    assert f"{plan.tail.tokens:,}" in text and f"{plan.tail.budget:,}" in text


def test_min_turns_rule_is_named() -> None:
    session, plan = _build(POLICY.with_changes(tail_min_turns=3))
    assert "last 3 turns" in why(session, plan, len(plan) - 1)


def test_pruned_and_truncated_figures_are_given() -> None:
    session, plan = _build(POLICY)
    index = next(iter(plan.pruned))
    text = why(session, plan, index)
    pruned, truncated = plan.pruned[index], plan.truncated[index]
    assert f"{pruned.tokens_before:,} → {pruned.tokens_after:,}" in text
    assert f"from {truncated.tokens_before:,} to {truncated.tokens_after:,}" in text


def test_out_of_range_index_is_an_error() -> None:
    session, plan = _build(POLICY)
    with pytest.raises(IndexError):
        why(session, plan, len(plan))


# One case per zone and tail reason, with counts set by hand so each rule is what decides.


def _msgs(roles: str) -> list[Message]:
    """``u`` user, ``a`` answer, ``c`` tool call, ``t`` the latest call's result."""
    out: list[Message] = []
    call = ""
    for k, r in enumerate(roles):
        if r == "c":
            call = f"c{k}"
            out.append(Message(role="assistant", tool_calls=(ToolCall(id=call, name="t"),)))
        elif r == "t":
            out.append(Message(role="tool", tool_call_id=call))
        else:
            out.append(Message(role="user" if r == "u" else "assistant"))
    return out


def _hand(roles: str, tokens: list[int], **knobs: object) -> tuple[Session, Plan]:
    session = Session(messages=tuple(_msgs(roles)))
    values: dict[str, object] = {
        "context_window": 300,
        "max_tokens": 100,
        "tail_min_tokens": 0,
        "tail_min_turns": 0,
        "prune_mode": "off",
        "truncate_enabled": False,
    }
    values.update(knobs)
    counts = SessionCounts(TokenizerInfo("chars", "chars"), tokens)
    return session, build_plan(session, preset("plan", **values), counts, CharTokenizer())


def _check_tail(session: Session, plan: Plan, reason: TailReason, phrase: str) -> None:
    assert plan.tail.reason is reason
    text = why(session, plan, len(plan) - 1)
    assert phrase in text
    assert f"{plan.tail.tokens:,}" in text and f"{plan.tail.budget:,}" in text
    assert text.endswith(".") and ". " not in text


def test_tail_by_budget() -> None:
    session, plan = _hand("uauaua", [10] * 6, tail_max_tokens=35)
    _check_tail(session, plan, TailReason.BUDGET, "the newest 30 tokens fit its 35-token budget")


def test_tail_whole_session() -> None:
    session, plan = _hand("uaua", [10] * 4)
    _check_tail(session, plan, TailReason.WHOLE_SESSION, "the whole session (40 tokens) fits")


def test_tail_moved_for_a_tool_pair() -> None:
    session, plan = _hand("ucutaua", [10] * 7, tail_max_tokens=50)
    _check_tail(session, plan, TailReason.TOOL_PAIR, "does not begin inside a tool call")


def test_tail_held_for_min_turns() -> None:
    session, plan = _hand("uauaua", [100] * 6, tail_max_tokens=150, tail_min_turns=2)
    _check_tail(session, plan, TailReason.MIN_TURNS, "always holds the last 2 turns")
    assert plan.tail.over_budget


def test_tail_held_for_the_active_turn() -> None:
    session, plan = _hand("uauct", [10, 10, 10, 10, 900])
    _check_tail(session, plan, TailReason.ACTIVE_TURN, "the active turn is kept whole, 920 tokens")


def test_tail_items() -> None:
    session, plan = _hand("uauaua", [10] * 6, tail_mode="items", tail_items=3)
    _check_tail(session, plan, TailReason.ITEMS, "among the last 3 items, 30 of 200 tokens")


def test_tail_items_trimmed_to_the_budget() -> None:
    session, plan = _hand("ua" * 5, [30] * 10, tail_mode="items")
    _check_tail(session, plan, TailReason.BUDGET, "the oldest were trimmed, leaving 180 tokens")


def test_tail_items_whole_session() -> None:
    session, plan = _hand("uaua", [10] * 4, tail_mode="items")
    _check_tail(session, plan, TailReason.WHOLE_SESSION, "is within its last 32 items")


def test_tail_items_provider_safe_start() -> None:
    session, plan = _hand("ua" + "uct" * 12, [10] * 38, tail_mode="items")
    _check_tail(session, plan, TailReason.TOOL_PAIR, "provider-safe start moved it past")


def _span(plan: Plan, index: int) -> int:
    return sum(plan.effective_tokens[index : plan.tail.start])


def test_kept_names_the_span_to_the_tail_and_what_was_left() -> None:
    session, plan = _hand("ua" * 5, [30] * 10, tail_max_tokens=60)
    assert (plan.tail.start, plan.kept_start) == (8, 4)
    text = why(session, plan, 5)
    assert f"is kept because the history from it to the fresh tail ({_span(plan, 5)} tokens)" in (
        text
    )
    assert "fits in the 140 tokens the history budget left" in text


def test_dropped_because_the_span_does_not_fit() -> None:
    session, plan = _hand("ua" * 5, [30] * 10, tail_max_tokens=60)
    text = why(session, plan, 3)
    assert plan.zone(3) is Zone.DROPPED and _span(plan, 3) == 150
    assert "is dropped because the history from it to the fresh tail (150 tokens) does not" in text
    assert "does not fit in the 140 tokens" in text


def test_dropped_to_keep_a_tool_pair_whole() -> None:
    session, plan = _hand("uactauaua", [30] * 9, tail_max_tokens=60)
    assert (plan.tail.start, plan.kept_start) == (7, 4)
    text = why(session, plan, 3)
    assert "is dropped although the history from it to the fresh tail (120 tokens) fits" in text
    assert "may not begin inside a tool call and its results" in text
    budget_drop = why(session, plan, 2)
    assert "does not fit in the 140 tokens" in budget_drop


def test_dropped_by_picoclaws_request_sanitizer() -> None:
    session, plan = _hand(
        "uactauaua", [30] * 9, tail_mode="items", tail_items=2, sanitize_history=True
    )
    assert (plan.tail.start, plan.kept_start) == (7, 3)  # main fills to the first miss
    assert plan.excluded == frozenset({3})  # the result would lead the history
    assert "dropped by PicoClaw's request sanitizer" in why(session, plan, 3)


def test_x26_pruned_output_is_labelled_unrecoverable() -> None:
    session, plan = _build(POLICY)
    index = next(iter(plan.pruned))
    assert "replaced by the plan's stub, which no expand tool can restore" in why(
        session, plan, index
    )


@pytest.mark.parametrize(
    ("preset_name", "phrase"),
    [
        ("plan", "compaction replaces it with the summary"),
        ("picoclaw", "PicoClaw's emergency compression drops it"),
    ],
)
def test_a_pending_compaction_is_named(preset_name: str, phrase: str) -> None:
    session = Session(messages=tuple(_msgs("ua" * 6)))
    counts = SessionCounts(TokenizerInfo("chars", "chars"), [60] * 12)
    policy = preset(preset_name, context_window=600, max_tokens=100, tail_min_turns=1)
    plan = build_plan(session, policy, counts, CharTokenizer())
    assert plan.compaction.needed and plan.compaction.replaced is not None
    assert phrase in why(session, plan, 0)
    assert phrase not in why(session, plan, len(plan) - 1)


@settings(max_examples=200)
@given(case=sessions(), policy=policies())
def test_every_sentence_agrees_with_the_figures(
    case: tuple[Session, SessionCounts], policy: Policy
) -> None:
    session, counts = case
    plan = build_plan(session, policy, counts, QuarterTokenizer())
    left = max(0, history_budget(policy, counts) - plan.tail.tokens)
    for i in range(len(plan)):
        text = why(session, plan, i)
        assert text.endswith(".") and ". " not in text
        zone = plan.zone(i)
        if i in plan.excluded:
            assert zone is Zone.DROPPED and "is dropped" in text
            continue
        if not policy.assembly_budget and zone is not Zone.TAIL:
            assert "sends the whole history" in text
            continue
        if zone is Zone.TAIL:
            assert "is in the fresh tail because" in text
            continue
        span = sum(
            t
            for k, t in enumerate(plan.effective_tokens[i : plan.tail.start], start=i)
            if k not in plan.excluded
        )
        assert f"({plural(span, 'token')})" in text and f"the {plural(left, 'token')} " in text
        if zone is Zone.KEPT:
            assert "is kept because" in text and span <= left
        elif span > left:
            assert "is dropped because" in text and "does not fit" in text
        else:
            assert "is dropped although" in text


def test_counted_nouns_agree_with_one_and_two() -> None:
    """A one-token message and a one-turn minimum read in the singular, and budgets starting
    with an eight take "an" (issue 13: no "1 tokens", no "a 8,000")."""
    for n, noun in ((1, "1 token)"), (2, "2 tokens)")):
        session = Session(messages=tuple(_msgs("u")))
        counts = SessionCounts(TokenizerInfo("chars", "chars"), [n])
        policy = preset("plan", tail_min_turns=1, tail_min_tokens=8_000, tail_max_tokens=8_000)
        plan = build_plan(session, policy, counts, CharTokenizer())
        text = why(session, plan, 0)
        assert noun in text
        assert " a 8" not in text
