"""The ``cost`` and ``cache`` blocks ``report --json`` and ``replay --json`` share.

The session is priced over every request it recorded, its sub-agents' files too for
``total_with_subagents_usd``; ``core.pricing.cost`` prices, this module finds and reads files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxtui.commands.pipeline import Planned
from ctxtui.core.engine import Engine
from ctxtui.core.pricing.carry import Carry, carry_costs, carry_json
from ctxtui.core.pricing.cost import SessionCost, cache_json, cost_json, session_cost, usd
from ctxtui.core.pricing.cost_words import CAUSE_WORDS
from ctxtui.core.session.models import Session
from ctxtui.core.wording import plural
from ctxtui.importers.subagents import read_subagents
from ctxtui.system.count_cache import default_cache


@dataclass(frozen=True)
class CostBlocks:
    cost: SessionCost
    subagents: tuple[SessionCost, ...]
    warnings: tuple[str, ...]
    session: Session

    def carry(self, message_tokens: Sequence[int]) -> Carry:
        return carry_costs(self.session, self.cost, message_tokens)

    def cost_json(self) -> dict[str, object]:
        return cost_json(self.cost, self.subagents)

    def cache_json(self) -> dict[str, object]:
        return cache_json(self.cost)


def cost_blocks(session: Session, points: Sequence[int] | None = None) -> CostBlocks:
    """``session`` priced (``points``: its requests, by default every assistant reply), with
    its sub-agents; a sub-agent that cannot be read is named in a warning and left out."""
    cost = session_cost(session, points)
    warnings = cost.warnings()
    subs: list[SessionCost] = []
    path = session.meta.source_path
    sessions, problems = read_subagents(path, session.meta.format) if path else ([], [])
    warnings.extend(problems)
    for sub_path, sub_session in sessions:
        sub = session_cost(sub_session)
        subs.append(sub)
        warnings.extend(f"sub-agent {sub_path}: {w}" for w in sub.warnings())
    return CostBlocks(cost, tuple(subs), tuple(warnings), session)


def cost_sentence(cost: Mapping[str, Any], cache: Mapping[str, Any]) -> str:
    """The ``cost`` and ``cache`` blocks in one line for the tables."""
    if not cost["requests_priced"]:
        unpriced = cost["requests_unpriced"]
        return (
            f"cost: unknown ({plural(unpriced, 'request')} with usage but no price)"
            if (unpriced)
            else "cost: unknown (no request recorded its usage)"
        )
    priced = plural(cost["requests_priced"], "request")
    words = [f"recorded cost ${cost['total_usd']:,.4f} over {priced}"]
    if cost["subagents"]:
        words.append(
            f"${cost['total_with_subagents_usd']:,.4f} with "
            f"{plural(cost['subagents'], 'sub-agent')}"
        )
    if cache["hit_ratio"] is not None:
        words.append(f"cache hit ratio {cache['hit_ratio']:.1%}")
    misses = cache["misses"]
    if misses:
        listed = ", ".join(
            f"{m['count']:,} {CAUSE_WORDS.get(cause, cause.replace('_', ' '))}"
            for cause, m in misses.items()
        )
        words.append(f"cache misses: {listed}")
    return " · ".join(words)


def whole_session_tokens(planned: Planned, whole: Session) -> Sequence[int]:
    """Message sizes of ``whole`` for carry costs: the plan's own counts when it is the
    planned session, else the plan estimator's (only proportions within a prompt matter)."""
    if whole is planned.session:
        counts = planned.engine.counts(planned.policy)
    else:
        counts = Engine(whole, default_cache()).counts(
            planned.policy.with_changes(tokenizer=ESTIMATOR)
        )
    assert counts is not None  # no stop check was given
    return counts.message_tokens


ESTIMATOR = "plan"


def add_carry(report: dict[str, Any], blocks: CostBlocks, tokens: Sequence[int]) -> None:
    """The report's ``carry`` block, and each of its ``tools[]`` its whole-session carry."""
    carry = blocks.carry(tokens)
    tools = carry.tools(blocks.session)
    report["carry"] = carry_json(blocks.session, carry, tools)
    by_name = {t.name: t for t in tools}
    for tool in report["tools"]:
        found = by_name.get(tool["name"])
        tool["carry_tokens"] = found.tokens if found else 0
        tool["carry_usd"] = usd(found.cost) if found else 0.0


def whatif_sentence(block: Mapping[str, Any]) -> str:
    """Recorded against simulated in one line: dollars, cache hit ratio, compactions."""
    rec, sim = block["recorded"], block["simulated"]

    def ratio(value: float | None) -> str:
        return "—" if value is None else f"{value:.1%}"

    return (
        f"what-if ({block['preset']}): simulated ${sim['cost_usd']:,.4f} against "
        f"${rec['cost_usd']:,.4f} recorded · cache hit ratio {ratio(sim['cache_hit_ratio'])} "
        f"against {ratio(rec['cache_hit_ratio'])} · {plural(sim['compactions'], 'compaction')} "
        f"against {rec['compactions']:,}"
    )
