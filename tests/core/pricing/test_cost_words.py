"""Dollar figures in words say what they cover: one request, the whole file, or the
requests after the agent's last compaction."""

from __future__ import annotations

from ctxtui.core.pricing.cost import session_cost
from ctxtui.core.pricing.cost_words import (
    cost_line,
    covered_requests,
    dollars,
    last_request_words,
    session_total_words,
)
from ctxtui.core.session.models import Session
from ctxtui.importers import load_session
from ctxtui.samples import samples_dir


def test_a_segment_names_the_requests_it_covers() -> None:
    assert covered_requests(14, 923) == (
        "requests 924–937 of the file (after the agent's last compaction)"
    )
    assert covered_requests(1, 0) == "request 1 of the file (after the agent's last compaction)"
    assert covered_requests(14, None) == "the 14 requests after the agent's last compaction"
    entries = {"plan": {"recorded_cost_usd": 0.35, "simulated_cost_usd": 0.3}}
    line = cost_line(("plan",), entries, covered_requests(14, 923))
    assert line.startswith("replayed in dollars over requests 924–937 of the file")
    assert cost_line(("plan",), entries).startswith("replayed in dollars: recorded $0.3500")


def test_the_session_bar_gives_the_recorded_total_with_its_sub_agents() -> None:
    session = load_session(samples_dir() / "claude_code_cache_story.jsonl", full_history=True)
    cost = session_cost(session)
    assert session_total_words(cost) == f"recorded {dollars(cost.total)}"
    both = session_total_words(cost, [cost, cost])
    assert both == f"recorded {dollars(cost.total)} · {dollars(3 * cost.total)} with 2 sub-agents"
    assert session_total_words(cost, [cost]).endswith(" with 1 sub-agent")
    last = last_request_words(cost)
    assert last.startswith("last request $") and "cache hit" in last
    empty = session_cost(Session())
    assert session_total_words(empty) == "" and last_request_words(empty) == ""
