"""``why``: one sentence saying why a message sits in its zone, shown verbatim by the app.

Each sentence names the rule that placed the boundary and the figures it compared, so a user
can check it against the gauge; pruning, truncation and a pending compaction are clauses.
"""

from __future__ import annotations

from ctxtui.core.planning.plan import Plan, TailReason, Zone
from ctxtui.core.planning.prune import EffectiveTokens
from ctxtui.core.policies.modes import CompactionStyle, PruneStub, TailMode
from ctxtui.core.session.models import Session
from ctxtui.core.wording import a, plural

_TAIL_RULES: dict[TailReason, str] = {
    TailReason.BUDGET: "the newest {tokens} fit its {budget:,}-token budget",
    TailReason.WHOLE_SESSION: "the whole session ({tokens}) fits its {budget:,}-token budget",
    TailReason.TOOL_PAIR: "its start moved forward so that it does not begin inside a tool call "
    "and its results, leaving {tokens_of} {budget:,} tokens",
    TailReason.MIN_TURNS: "the tail always holds the last {min_turns}, here {tokens} against "
    "{a_budget} budget",
    TailReason.MAX_TURNS: "the tail holds at most the last {max_turns}, here {tokens} against "
    "{a_budget} budget",
    TailReason.ACTIVE_TURN: "the active turn is kept whole, {tokens} against {a_budget} budget",
    TailReason.ITEMS: "it is among the last {items}, {tokens_of} {budget:,} tokens",
    TailReason.TURN_START: "a summary keeps the last {messages} from a turn start, {tokens}",
    TailReason.NO_TAIL: "the policy keeps no verbatim tail",
    TailReason.EMPTY: "the session is empty",
}

_ITEMS_RULES: dict[TailReason, str] = {
    **_TAIL_RULES,
    TailReason.BUDGET: "its last {items} were over the {budget:,}-token budget, so the "
    "oldest were trimmed, leaving {tokens}",
    TailReason.WHOLE_SESSION: "the whole session ({tokens}) is within its last "
    "{items} and its {budget:,}-token budget",
    TailReason.TOOL_PAIR: "PicoClaw's provider-safe start moved it past leading tool results "
    "and tool calls, leaving {tokens_of} {budget:,} tokens",
}

_SAFE_START = "the kept history may not begin inside a tool call and its results"


def _history_budget(plan: Plan) -> int:
    t = plan.totals
    reserved = t.system + t.tool_defs + t.summary if plan.policy.reserve_system_and_tools else 0
    return max(0, t.budget - reserved)


def _span(plan: Plan, start: int, stop: int) -> int:
    """Σ effective tokens of ``messages[start:stop]``, in O(log n) for a planner's plan."""
    tokens = plan.effective_tokens
    left_out = sum(tokens[i] for i in plan.excluded if start <= i < stop)
    if isinstance(tokens, EffectiveTokens):
        return tokens.prefix(stop) - tokens.prefix(start) - left_out
    return sum(tokens[start:stop]) - left_out


def _tail_clause(plan: Plan) -> str:
    tail = plan.tail
    rules = _ITEMS_RULES if plan.policy.tail_mode is TailMode.ITEMS else _TAIL_RULES
    rule = rules[tail.reason].format(
        tokens=plural(tail.tokens, "token"),
        tokens_of=f"{tail.tokens:,} of",
        budget=tail.budget,
        a_budget=a(tail.budget, "token"),
        min_turns=plural(tail.min_turns, "turn"),
        max_turns=plural(plan.policy.tail_max_turns, "turn"),
        items=plural(plan.policy.tail_items, "item"),
        messages=plural(plan.policy.tail_items, "message"),
    )
    return f"is in the fresh tail because {rule}"


def _excluded_clause(plan: Plan, index: int) -> str:
    """Why a message inside the kept range or the tail is still left out."""
    policy = plan.policy
    n = len(plan)
    if policy.tail_mode is TailMode.ITEMS and n - policy.tail_items <= index < plan.tail.start:
        return (
            f"is dropped: the trim took it off the last {policy.tail_items} items, and seahorse "
            "fills the history only from before them, so the request has a hole here"
        )
    return (
        "is dropped by PicoClaw's request sanitizer: a tool message at the start of the history "
        "or not after a tool call, a tool call not after a user or tool message, a result its "
        "block's call did not ask for (or a second one), or a tool call whose results are not "
        "all in the block after it, which goes with that block"
    )


def _zone_clause(plan: Plan, index: int) -> str:
    if index in plan.excluded:
        return _excluded_clause(plan, index)
    if plan.zone(index) is Zone.TAIL:
        return _tail_clause(plan)
    if not plan.policy.assembly_budget:
        return "is kept because this policy sends the whole history until it compacts"
    remaining = max(0, _history_budget(plan) - plan.tail.tokens)
    span = _span(plan, index, plan.tail.start)
    left = f"the {plural(remaining, 'token')} the history budget left after the fresh tail"
    span_text = f"the history from it to the fresh tail ({plural(span, 'token')})"
    if plan.zone(index) is Zone.KEPT:
        return f"is kept because {span_text} fits in {left}"
    if span > remaining:
        return f"is dropped because {span_text} does not fit in {left}"
    return f"is dropped although {span_text} fits in {left}, because {_SAFE_START}"


def _compaction_clause(plan: Plan, index: int) -> str:
    need = plan.compaction
    if (
        not need.needed
        or need.replaced is None
        or not need.replaced[0] <= index <= need.replaced[1]
    ):
        return ""
    if need.post_turn:
        return "; the history is over PicoClaw's summarize trigger, and the summary replaces it"
    style = plan.policy.compaction_style
    if style is CompactionStyle.DROP_OLDEST_HALF:
        return "; the request is over its trigger, and PicoClaw's emergency compression drops it"
    if style is CompactionStyle.USER_MESSAGES:
        return (
            "; the request is over its trigger, and compaction keeps only recent user messages "
            "and a summary"
        )
    return "; the request is over its trigger, and compaction replaces it with the summary"


def why(session: Session, plan: Plan, index: int) -> str:
    """One sentence: the zone rule that placed message ``index``, plus any prune or truncation."""
    if not 0 <= index < len(plan):
        raise IndexError(f"message {index:,} is not in {a(len(plan), 'message')} plan")
    role = session.messages[index].role
    tokens = plan.effective_tokens[index]
    size = plural(tokens, "token")
    sentence = f"Message {index:,} ({role}, {size}) {_zone_clause(plan, index)}"
    truncated = plan.truncated.get(index)
    if truncated is not None:
        sentence += (
            f"; its output ({plural(truncated.lines, 'line')}, {plural(truncated.bytes, 'byte')}) "
            "is truncated "
            f"from {truncated.tokens_before:,} to {plural(truncated.tokens_after, 'token')}"
        )
    pruned = plan.pruned.get(index)
    if pruned is not None:
        stub = (
            "the plan's stub, which no expand tool can restore"
            if plan.policy.prune_stub is PruneStub.PLAN
            else f"{plan.policy.prune_stub.value!r}"
        )
        sentence += (
            f"; its output is replaced by {stub}, "
            f"{pruned.tokens_before:,} → {plural(pruned.tokens_after, 'token')}"
        )
    unpaired = plan.unpaired.get(index)
    if unpaired is not None:
        sentence += f"; warning: PicoClaw main sends it as {unpaired}, which providers reject"
    return sentence + _compaction_clause(plan, index) + "."
