"""The tools view: what each tool costs the request, and what pruning and truncation free.

Tool outputs are usually most of an agent's context, and the list shows them one message at
a time; this view adds them up per tool name (``core/tool_costs.py``, read off the plan on
screen, never recounted): calls, the tokens of its calls and of its outputs as stored, the
tokens pruning and truncation take off them, what is sent, and the share of the request.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Static

from ctxtui.core.rows import visible
from ctxtui.core.tool_costs import ToolCost, ToolCosts, largest_output, tool_costs
from ctxtui.core.wording import plural
from ctxtui.tui.state import MainState
from ctxtui.tui.widgets.footer import FittingFooter

COLUMNS: tuple[tuple[str, str], ...] = (
    ("tool", "tool"),
    ("calls", "calls"),
    ("outputs", "outputs"),
    ("call tok", "call_tokens"),
    ("output tok", "output_tokens"),
    ("pruned", "pruned_tokens"),
    ("truncated", "truncated_tokens"),
    ("sent", "sent_tokens"),
    ("share", "share"),
)
"""The table's columns: heading and key. Token columns are the plan tokenizer's tokens."""


def row_cells(costs: ToolCosts, cost: ToolCost) -> tuple[Text, ...]:
    """One tool's row: its name literally (a transcript's), its figures right-aligned."""
    figures = (
        cost.calls,
        cost.outputs,
        cost.call_tokens,
        cost.output_tokens,
        cost.pruned_tokens,
        cost.truncated_tokens,
        cost.sent_tokens,
    )
    cells = [Text(visible(cost.name), no_wrap=True, overflow="ellipsis")]
    cells += [Text(f"{n:,}", justify="right") for n in figures]
    cells.append(Text(f"{costs.share(cost):.1%}", justify="right"))
    return tuple(cells)


def freed_line(costs: ToolCosts, pruned_outputs: int, truncated_outputs: int) -> str:
    """What the policy takes off the tool outputs, in one sentence with its counts."""
    return (
        f"pruning frees {costs.pruned_tokens:,} tok "
        f"({plural(pruned_outputs, 'output')}) · truncation frees "
        f"{costs.truncated_tokens:,} tok ({plural(truncated_outputs, 'output')}) · "
        f"request {costs.request_tokens:,} tok"
    )


class ToolsScreen(Screen[int | None]):
    """Per tool: calls, tokens of calls and outputs, pruned and truncated, share of the request.

    Enter on a tool goes back to the main view at its largest output, to read it there.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,T", "close", "Back", id="tools.close", tooltip="Return to the main view"),
    ]

    DEFAULT_CSS = """
    ToolsScreen #tools-title { padding: 0 1; text-style: bold; }
    ToolsScreen #tools-freed { padding: 0 1; height: auto; }
    ToolsScreen DataTable { height: 1fr; margin: 1 0 0 0; }
    ToolsScreen #tools-note { padding: 0 1; color: $text-muted; height: auto; }
    """

    def __init__(self, state: MainState) -> None:
        super().__init__()
        self.state = state
        self.costs: ToolCosts | None = None

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="tools-title", markup=False)
        yield Static("", id="tools-freed", markup=False)
        yield DataTable(id="tools-table", cursor_type="row", zebra_stripes=True)
        yield Static(
            "call tok: a call's share of its assistant message · output tok: as stored · "
            "sent: calls + outputs after pruning and truncation · share: of the request · "
            "enter: go to the tool's largest output",
            id="tools-note",
            markup=False,
        )
        yield FittingFooter()

    def _title(self) -> str:
        plan = self.state.plan
        if self.state.session is None or plan is None:
            return "Tool costs: open a session first"
        source = self.state.path or self.state.session.meta.source_path
        name = visible(PurePath(source).name) if source else "(in memory)"
        return (
            f"Tool costs · {name} · preset {plan.policy.preset} · tokenizer {plan.tokenizer.used}"
        )

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for heading, key in COLUMNS:
            table.add_column(heading, key=key)
        session, plan = self.state.session, self.state.plan
        if session is None or plan is None:
            return
        self.costs = costs = tool_costs(session, plan)
        freed = self.query_one("#tools-freed", Static)
        if not costs.tools:
            freed.update("no tool calls or outputs in this session")
        else:
            freed.update(freed_line(costs, len(plan.pruned), len(plan.truncated)))
        for cost in costs.tools:
            table.add_row(*row_cells(costs, cost), key=cost.name)
        table.focus()

    def action_close(self) -> None:
        self.dismiss(None)

    @on(DataTable.RowSelected, "#tools-table")
    def _go_to_tool(self, event: DataTable.RowSelected) -> None:
        session, plan = self.state.session, self.state.plan
        if session is None or plan is None or event.row_key.value is None:
            return
        self.dismiss(largest_output(session, plan, event.row_key.value))
