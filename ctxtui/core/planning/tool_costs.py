"""What each tool costs the request: its calls, its outputs, and what pruning and truncation free.

Read off the plan, never recounted. A call has no count of its own: its tokens are its
message's shared out by characters, floored, so calls never claim more than the message holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ctxtui.core.planning.plan import Plan, PrunedOutput
from ctxtui.core.planning.prune import PrunedRun
from ctxtui.core.session.models import Message, Session

UNKNOWN_TOOL = "(unknown tool)"
"""The name for a result whose call is not in the session and which names no tool itself."""


@dataclass(slots=True)
class ToolCost:
    """One tool's share of the request, in tokens of the plan's tokenizer."""

    name: str
    calls: int = 0
    outputs: int = 0
    call_tokens: int = 0
    output_tokens: int = 0  # as stored, before truncation and pruning
    pruned_tokens: int = 0  # freed by pruning its outputs
    truncated_tokens: int = 0  # freed by truncating its outputs (negative: the notice costs more)

    @property
    def sent_tokens(self) -> int:
        """What the request carries for this tool: its calls and its outputs as sent."""
        return self.call_tokens + self.output_tokens - self.pruned_tokens - self.truncated_tokens


@dataclass(frozen=True, slots=True)
class ToolCosts:
    """Every tool's cost, the most expensive (as sent) first, against the request's size."""

    tools: tuple[ToolCost, ...]
    request_tokens: int  # the prompt (no output reserve): system, tool defs, summary, history
    by_name: dict[str, ToolCost] = field(default_factory=dict)

    def share(self, cost: ToolCost) -> float:
        """The tool's share of the prompt, the output reserve left out (0.0 for none)."""
        return cost.sent_tokens / self.request_tokens if self.request_tokens else 0.0

    @property
    def pruned_tokens(self) -> int:
        return sum(t.pruned_tokens for t in self.tools)

    @property
    def truncated_tokens(self) -> int:
        return sum(t.truncated_tokens for t in self.tools)


def call_shares(message: Message, tokens: int) -> list[int]:
    """The tokens of each of ``message``'s tool calls, shared out of ``tokens`` by characters
    (equally when the message has none)."""
    calls = message.tool_calls
    if len(calls) == 1:  # most callers; a report shares out ~36k of them
        weight = len(calls[0].name) + len(calls[0].arguments)
        total = weight + len(message.content) + len(message.reasoning)
        return [tokens * weight // total if total else tokens]
    weights = [len(c.name) + len(c.arguments) for c in calls]
    total = sum(weights) + len(message.content) + len(message.reasoning)
    if total == 0:
        weights, total = [1] * len(weights), len(weights)
    return [tokens * w // total for w in weights]


def _result_names(session: Session) -> dict[int, str]:
    """Each tool result's tool: its call's name when the call is in the session."""
    names: dict[int, str] = {}
    messages = session.messages
    for result, call_index in session.call_of_result.items():
        wanted = messages[result].tool_call_id
        for call in messages[call_index].tool_calls:
            if call.id == wanted:
                names[result] = call.name
                break
    return names


def _freed(pruned: Mapping[int, PrunedOutput]) -> Iterable[tuple[int, int]]:
    """(index, tokens freed) per pruned output; a plan's ``PrunedRun`` gives them without
    building an object per output."""
    if isinstance(pruned, PrunedRun):
        return pruned.freed()
    return ((i, p.tokens_freed) for i, p in pruned.items())


def _name(message: Message, paired: str | None) -> str:
    return paired or message.tool_name or UNKNOWN_TOOL


def result_tool_names(session: Session) -> dict[int, str]:
    """Each tool result's tool, named as the tools view names it (its call's name first)."""
    names = _result_names(session)
    messages = session.messages
    return {i: _name(messages[i], names.get(i)) for i in session.index.tool_results}


def tool_costs(session: Session, plan: Plan) -> ToolCosts:
    """Per tool name: calls, outputs, their tokens, and what pruning and truncation free.
    Sums go into plain dicts, one pass per kind, and become ``ToolCost`` objects at the end."""
    names = _result_names(session)
    stored: Sequence[int] = plan.message_tokens
    messages = session.messages
    index = session.index  # only the callers and the results, not every message (100k)
    calls: dict[str, int] = {}
    call_tokens: dict[str, int] = {}
    for i in index.tool_callers:
        m = messages[i]
        for call, tokens in zip(m.tool_calls, call_shares(m, stored[i]), strict=True):
            name = call.name or UNKNOWN_TOOL
            calls[name] = calls.get(name, 0) + 1
            call_tokens[name] = call_tokens.get(name, 0) + tokens
    result_name = {i: _name(messages[i], names.get(i)) for i in index.tool_results}
    outputs: dict[str, int] = {}
    output_tokens: dict[str, int] = {}
    for i, name in result_name.items():
        outputs[name] = outputs.get(name, 0) + 1
        output_tokens[name] = output_tokens.get(name, 0) + stored[i]
    truncated: dict[str, int] = {}
    for i, t in plan.truncated.items():
        name = result_name.get(i) or _name(messages[i], names.get(i))
        truncated[name] = truncated.get(name, 0) + t.tokens_freed
    pruned: dict[str, int] = {}
    for i, freed in _freed(plan.pruned):
        name = result_name.get(i) or _name(messages[i], names.get(i))
        pruned[name] = pruned.get(name, 0) + freed
    costs = {
        name: ToolCost(
            name,
            calls=calls.get(name, 0),
            outputs=outputs.get(name, 0),
            call_tokens=call_tokens.get(name, 0),
            output_tokens=output_tokens.get(name, 0),
            pruned_tokens=pruned.get(name, 0),
            truncated_tokens=truncated.get(name, 0),
        )
        for name in {**calls, **outputs, **truncated, **pruned}
    }
    ordered = sorted(costs.values(), key=lambda t: (-t.sent_tokens, t.name))
    return ToolCosts(tuple(ordered), plan.totals.tokens, costs)


def largest_output(session: Session, plan: Plan, name: str) -> int | None:
    """The index of ``name``'s largest output as stored (the first of equals), or of its
    first call when it has no output; ``None`` when the session has neither."""
    names = _result_names(session)
    best: int | None = None
    first_call: int | None = None
    for i, m in enumerate(session.messages):
        if m.role == "tool" and _name(m, names.get(i)) == name:
            if best is None or plan.message_tokens[i] > plan.message_tokens[best]:
                best = i
        elif first_call is None and any((c.name or UNKNOWN_TOOL) == name for c in m.tool_calls):
            first_call = i
    return best if best is not None else first_call
