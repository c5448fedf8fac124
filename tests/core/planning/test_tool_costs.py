"""Per-tool costs on a sample whose figures are worked out by hand below."""

from __future__ import annotations

from rich.console import Console

from ctxtui.commands.report_blocks import render_tools
from ctxtui.core.planning.plan import (
    CompactionNeed,
    FreshTail,
    Plan,
    PrunedOutput,
    TailReason,
    Totals,
    TruncatedOutput,
)
from ctxtui.core.planning.tool_costs import UNKNOWN_TOOL, call_shares, tool_costs
from ctxtui.core.policies.policy import preset
from ctxtui.core.session.models import Message, Session, ToolCall
from ctxtui.core.simulation.report import build_report
from ctxtui.core.tokens.tokenizers import TokenizerInfo

READ_A = ToolCall(id="r1", name="read_file", arguments='{"path":"a"}')  # 9 + 12 = 21 chars
BASH = ToolCall(id="b1", name="bash", arguments="ls")  # 4 + 2 = 6 chars
READ_B = ToolCall(id="r2", name="read_file", arguments='{"path":"b"}')  # 21 chars


def _session() -> Session:
    return Session(
        messages=(
            Message(role="user", content="go"),
            Message(role="assistant", content="ab", tool_calls=(READ_A, BASH)),  # 2 chars text
            Message(role="tool", tool_call_id="r1", tool_name="read_file", content="x" * 400),
            Message(role="tool", tool_call_id="b1", tool_name="bash", content="y" * 30),
            Message(role="assistant", tool_calls=(READ_B,)),
            Message(role="tool", tool_call_id="r2", tool_name="read_file", content="z" * 300),
            Message(role="tool", tool_call_id="gone", tool_name="grep", content="g"),  # orphan
            Message(role="tool", tool_call_id="gone2", content="?"),  # orphan, no name
        )
    )


STORED = (3, 58, 400, 30, 22, 300, 5, 2)
SENT = (3, 58, 10, 30, 22, 120, 5, 2)  # #2 pruned 400 → 10; #5 truncated 300 → 120


def _plan() -> Plan:
    history = sum(SENT)
    totals = Totals(
        window=10_000,
        output_reserve=1_000,
        system=50,
        tool_defs=40,
        summary=0,
        history=history,
        kept=history,
        tail=0,
        dropped=0,
    )
    return Plan(
        policy=preset("plan", context_window=10_000, max_tokens=1_000),
        tokenizer=TokenizerInfo("chars", "chars"),
        message_tokens=STORED,
        effective_tokens=SENT,
        kept_start=0,
        tail=FreshTail(8, 2_000, 0, TailReason.EMPTY, turns=0, min_turns=0),
        totals=totals,
        compaction=CompactionNeed(False, None, None, 0, 10_000),
        pruned={2: PrunedOutput(2, 400, 10)},
        truncated={5: TruncatedOutput(5, 300, 120, lines=3_000, bytes=90_000)},
    )


def test_calls_share_their_message_by_characters() -> None:
    # message 1: 58 tokens over 2 + 21 + 6 = 29 characters
    assert call_shares(_session().messages[1], 58) == [58 * 21 // 29, 58 * 6 // 29] == [42, 12]
    assert call_shares(Message(role="assistant", tool_calls=(READ_A, READ_B)), 22) == [11, 11]
    assert call_shares(Message(role="assistant", tool_calls=(ToolCall(id="e", name=""),)), 7) == [7]


def test_each_tool_with_hand_computed_figures() -> None:
    costs = tool_costs(_session(), _plan())
    got = {
        t.name: (
            t.calls,
            t.outputs,
            t.call_tokens,
            t.output_tokens,
            t.pruned_tokens,
            t.truncated_tokens,
        )
        for t in costs.tools
    }
    assert got == {
        # calls 42 (message 1) + 22 (message 4, all call); outputs 400 + 300
        "read_file": (2, 2, 42 + 22, 700, 390, 180),
        "bash": (1, 1, 12, 30, 0, 0),
        "grep": (0, 1, 0, 5, 0, 0),
        UNKNOWN_TOOL: (0, 1, 0, 2, 0, 0),
    }
    read = costs.by_name["read_file"]
    assert read.sent_tokens == 64 + 10 + 120
    request = 50 + 40 + sum(SENT)
    assert costs.request_tokens == request
    assert costs.share(read) == 194 / request
    assert [t.name for t in costs.tools] == ["read_file", "bash", "grep", UNKNOWN_TOOL]
    assert (costs.pruned_tokens, costs.truncated_tokens) == (390, 180)


def test_report_lists_tools_and_the_table_shows_what_pruning_freed() -> None:
    report = build_report(_session(), _plan(), None)
    assert report["tools"][0] == {
        "name": "read_file",
        "calls": 2,
        "call_tokens": 64,
        "output_tokens": 700,
        "pruned_tokens": 390,
        "truncated_tokens": 180,
        "outputs": 2,
        "sent_tokens": 194,
        "share": round(194 / (90 + sum(SENT)), 6),
    }
    console = Console(width=100, record=True, color_system=None)
    console.print(render_tools(report))
    text = console.export_text()
    assert "read_file" in text and "by pruning 390 tok · by truncation 180 tok" in text


def test_the_largest_output_of_a_tool_or_its_first_call() -> None:
    from ctxtui.core.planning.tool_costs import largest_output

    session, plan = _session(), _plan()
    assert largest_output(session, plan, "read_file") == 2  # 400 stored beats 300
    assert largest_output(session, plan, "bash") == 3
    assert largest_output(session, plan, UNKNOWN_TOOL) == 7
    calls_only = Session(messages=(Message(role="assistant", tool_calls=(BASH,)),))
    assert largest_output(calls_only, plan, "bash") == 0
    assert largest_output(session, plan, "no_such_tool") is None
