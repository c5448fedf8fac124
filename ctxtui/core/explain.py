"""``why``: one sentence saying why a message sits in its zone, shown verbatim by the app."""

from __future__ import annotations

from ctxtui.core.models import Session
from ctxtui.core.plan import Plan, TailReason, Zone

_TAIL_RULES: dict[TailReason, str] = {
    TailReason.BUDGET: "the newest {tokens:,} tokens fit its {budget:,}-token budget",
    TailReason.WHOLE_SESSION: "the whole session ({tokens:,} tokens) fits its {budget:,}-token "
    "budget",
    TailReason.TOOL_PAIR: "its start moved past tool results whose call fell outside it, "
    "leaving {tokens:,} of {budget:,} tokens",
    TailReason.MIN_TURNS: "the tail always holds the last {min_turns} turns, here {tokens:,} "
    "tokens against a {budget:,}-token budget",
    TailReason.ACTIVE_TURN: "the active turn is kept whole, {tokens:,} tokens against a "
    "{budget:,}-token budget",
    TailReason.ITEMS: "it is among the last {items} items, {tokens:,} of {budget:,} tokens",
    TailReason.EMPTY: "the session is empty",
}


def _history_budget(plan: Plan) -> int:
    t = plan.totals
    reserved = t.system + t.tool_defs + t.summary if plan.policy.reserve_system_and_tools else 0
    return max(0, t.budget - reserved)


def _zone_clause(plan: Plan, index: int, tokens: int) -> str:
    zone = plan.zone(index)
    tail = plan.tail
    if zone is Zone.TAIL:
        rule = _TAIL_RULES[tail.reason].format(
            tokens=tail.tokens,
            budget=tail.budget,
            min_turns=tail.min_turns,
            items=plan.policy.tail_items,
        )
        return f"is in the fresh tail because {rule}"
    remaining = max(0, _history_budget(plan) - tail.tokens)
    if zone is Zone.KEPT:
        return (
            f"is kept because its {tokens:,} tokens fit in the {remaining:,} tokens the history "
            "budget had left after the fresh tail"
        )
    return (
        f"is dropped because the {remaining:,} tokens left after the fresh tail ran out at "
        f"message {plan.kept_start:,}"
    )


def why(session: Session, plan: Plan, index: int) -> str:
    """One sentence: the zone rule that placed message ``index``, plus any prune or truncation."""
    if not 0 <= index < len(plan):
        raise IndexError(f"message {index:,} is not in a {len(plan):,}-message plan")
    role = session.messages[index].role
    tokens = plan.effective_tokens[index]
    sentence = f"Message {index:,} ({role}, {tokens:,} tokens) {_zone_clause(plan, index, tokens)}"
    truncated = plan.truncated.get(index)
    if truncated is not None:
        sentence += (
            f"; its output ({truncated.lines:,} lines, {truncated.bytes:,} bytes) is truncated "
            f"from {truncated.tokens_before:,} to {truncated.tokens_after:,} tokens"
        )
    pruned = plan.pruned.get(index)
    if pruned is not None:
        sentence += (
            f"; its output is pruned to the stub, {pruned.tokens_before:,} → "
            f"{pruned.tokens_after:,} tokens"
        )
    return sentence + "."
