"""Rows show what is sent: their figures add up to the gauge's zones and to the report's totals."""

from __future__ import annotations

from hypothesis import given, settings

from ctxtui.core.planning.as_sent import history_tokens, row_figures
from ctxtui.core.planning.plan import Plan, Zone
from ctxtui.core.planning.planner import build_plan
from ctxtui.core.policies.policy import Policy
from ctxtui.core.session.models import Session
from ctxtui.core.simulation.report import build_report
from ctxtui.core.tokens.counts import SessionCounts
from tests.core.planning.test_plan_properties import QuarterTokenizer, policies, sessions
from tests.core.plans import hand_plan, small_session


def zone_sums(plan: Plan) -> dict[Zone, int]:
    """Σ of the rows' sent figures per zone, added up row by row (a check on the totals)."""
    sums = dict.fromkeys(Zone, 0)
    for i, sent in enumerate(plan.effective_tokens):
        sums[plan.zone(i)] += sent
    return sums


@settings(max_examples=300)
@given(case=sessions(), policy=policies())
def test_rows_add_up_to_the_zones_and_the_report_totals(
    case: tuple[Session, SessionCounts], policy: Policy
) -> None:
    session, counts = case
    plan = build_plan(session, policy, counts, QuarterTokenizer())
    report = build_report(session, plan, None)
    rows, totals = report["messages"], report["totals"]
    by_zone = {z.value: sum(m["sent_tokens"] for m in rows if m["zone"] == z.value) for z in Zone}
    assert by_zone == {
        "dropped": plan.totals.dropped,
        "kept": plan.totals.kept,
        "tail": plan.totals.tail,
    }
    assert by_zone["kept"] + by_zone["tail"] == totals["history_tokens"] == history_tokens(plan)
    assert by_zone["dropped"] == totals["dropped_tokens"]
    assert totals["system_tokens"] == counts.system_tokens
    assert totals["tool_defs_tokens"] == counts.tool_def_tokens
    assert totals["summary_tokens"] == counts.summary_tokens
    parts = (
        "system_tokens",
        "tool_defs_tokens",
        "summary_tokens",
        "history_tokens",
        "dropped_tokens",
    )
    assert sum(totals[k] for k in parts) == totals["tokens"]
    assert {z.value: v for z, v in zone_sums(plan).items()} == by_zone
    for m in rows:
        f = row_figures(plan, m["index"])
        assert (f.sent, f.original) == (m["sent_tokens"], m["tokens"])
        assert f.freed == m["tokens"] - m["sent_tokens"]
        assert bool(f.tag()) == (m["pruned"] or m["truncated"])


def test_a_pruned_row_shows_what_is_sent_and_tags_the_original() -> None:
    plan = hand_plan()  # message 2: 100 tokens stored, pruned to 10
    f = row_figures(plan, 2)
    assert (f.sent, f.original, f.freed, f.change) == (10, 100, 90, "pruned")
    assert f.tag() == "pruned · was 100 · −90 tok"
    assert f.detail() == "Sent as 10 tokens of its 100: pruned, which frees 90 tokens."
    whole = row_figures(plan, 4)
    assert (whole.tag(), whole.detail()) == ("", "Sent whole: 3 tokens.")
    report = build_report(small_session(), plan, None)
    assert report["messages"][2]["sent_tokens"] == 10
    assert report["totals"]["history_tokens"] == 20 + 10 + 5 + 3  # kept 1..2 and the tail


def test_a_one_token_row_reads_in_the_singular() -> None:
    plan = hand_plan((10, 20, 100, 1, 3))
    assert row_figures(plan, 3).detail() == "Sent whole: 1 token."
