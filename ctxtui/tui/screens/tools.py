"""The tools view: what each tool costs the prompt, and what pruning and truncation free.

Tool outputs are usually most of an agent's context, and the list shows them one message at
a time; this view adds them up per tool name (``core/planning/tool_costs.py``, read off the plan on
screen, never recounted): calls, the tokens of its calls and of its outputs as stored, the
tokens pruning and truncation take off them, what is sent, and the share of the prompt (the
request without the output reserve the gauge adds).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path, PurePath
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Static

from ctxtui.core.engine import Engine
from ctxtui.core.literal import visible
from ctxtui.core.planning.plan import Plan
from ctxtui.core.planning.tool_costs import ToolCost, ToolCosts, largest_output, tool_costs
from ctxtui.core.pricing.cost_words import CostView, dollars
from ctxtui.core.session.models import Session
from ctxtui.core.wording import plural
from ctxtui.system.count_cache import default_cache
from ctxtui.tui.cost_jobs import CostReady, price_session
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
    ("$", "carry_usd"),
)
"""The table's columns: heading and key. Token columns are the plan tokenizer's tokens; ``$``
is what the tool's outputs and calls cost while they stayed in the context (carry cost)."""

SHORT_HEADINGS: dict[str, str] = {"outputs": "outs", "call tok": "call", "output tok": "out",
                                  "truncated": "trunc"}  # fmt: skip
"""Headings that give way to these, all at once, before any heading is cut (80 columns):
the note under the table says what each stands for."""

SHORT_NOTE = "outs: outputs · call, out: tokens of the calls and of the outputs · trunc: truncated"

NOTE = (
    "call tok: a call's share of its assistant message · output tok: as stored · "
    "sent: calls + outputs after pruning and truncation · share: of the prompt · "
    "$: its cost while in the context · enter: go to the tool's largest output"
)

PRICING = "…"
"""The ``$`` cell while the session is being priced."""


def row_cells(costs: ToolCosts, cost: ToolCost, carry: str = PRICING) -> tuple[Text, ...]:
    """One tool's row: its name literally (a transcript's), its figures right-aligned;
    ``carry`` is the ``$`` cell."""
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
    cells += [Text(f"{n:,}", justify="right", no_wrap=True, overflow="ellipsis") for n in figures]
    cells.append(
        Text(f"{costs.share(cost):.1%}", justify="right", no_wrap=True, overflow="ellipsis")
    )
    cells.append(Text(carry, justify="right", no_wrap=True, overflow="ellipsis"))
    return tuple(cells)


def carry_cells(view: CostView | None) -> dict[str, str]:
    """Each tool's ``$`` cell from a priced session (``—`` where nothing could be priced)."""
    if view is None or not view.cost.priced:
        return {}
    return {name: dollars(t.cost) for name, t in view.tools().items()}


def fit_widths(natural: Sequence[int], floors: Sequence[int], room: int) -> list[int]:
    """Column widths that fit in ``room`` cells, each column cut as little as it can be.

    Columns first give up what they have above their ``floor`` (a heading wider than its
    figures, the end of a long tool name), the widest first; only when that is not enough
    are the figures themselves cut. Every column keeps at least one cell, and a table that
    fits keeps its natural widths.
    """
    widths = list(natural)
    excess = sum(widths) - room
    for floor in (list(floors), [1] * len(widths)):
        while excess > 0:
            over = [i for i in range(len(widths)) if widths[i] > floor[i]]
            if not over:
                break
            widest = max(over, key=lambda i: (widths[i] - floor[i], i))
            widths[widest] -= 1
            excess -= 1
    return widths


TOOL_NAME_FLOOR = 8
"""Cells a tool's name keeps before any figure is cut: enough to tell the tools apart."""


class ToolTable(DataTable[Text]):
    """The tools table, fitted to its width: a cell that does not fit ends in ``…``.

    A ``DataTable`` sizes columns to their content and scrolls sideways, so at 80 columns the
    share column was clipped at the screen's edge with nothing to say it was cut. This one
    lays its columns out again on every resize, narrowing the widest first.
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._rows: list[tuple[str, tuple[Text, ...]]] = []
        self._fitted_to = -1
        self.short = False  # the short headings are in use (the note explains them)

    def show(self, rows: Sequence[tuple[str, tuple[Text, ...]]]) -> None:
        """Rows as ``(key, cells)``, under ``COLUMNS``."""
        self._rows = list(rows)
        self._fitted_to = -1
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        room = self.scrollable_content_region.width or self.app.size.width
        if room == self._fitted_to:
            return
        self._fitted_to = room
        content = [
            max([1, *(cell_len(cells[i].plain) for _, cells in self._rows)])
            for i in range(len(COLUMNS))
        ]
        space = room - 2 * self.cell_padding * len(COLUMNS)
        headings = [heading for heading, _ in COLUMNS]
        natural = [max(cell_len(h), w) for h, w in zip(headings, content, strict=True)]
        self.short = sum(natural) > space
        if self.short:  # short headings, explained under the table, before a cut one
            headings = [SHORT_HEADINGS.get(h, h) for h in headings]
            natural = [max(cell_len(h), w) for h, w in zip(headings, content, strict=True)]
        floors = [min(content[0], TOOL_NAME_FLOOR), *content[1:]]
        widths = fit_widths(natural, floors, space)
        row = self.cursor_row
        self.clear(columns=True)
        for heading, (_, key), width in zip(headings, COLUMNS, widths, strict=True):
            label = Text(heading, no_wrap=True, overflow="ellipsis")
            self.add_column(label, width=width, key=key)
        for key, cells in self._rows:
            self.add_row(*cells, key=key)
        if self._rows:
            self.move_cursor(row=min(row, len(self._rows) - 1))


def freed_line(costs: ToolCosts, pruned_outputs: int, truncated_outputs: int) -> str:
    """What the policy takes off the tool outputs, in one sentence with its counts."""
    return (
        f"pruning frees {costs.pruned_tokens:,} tok "
        f"({plural(pruned_outputs, 'output')}) · truncation frees "
        f"{costs.truncated_tokens:,} tok ({plural(truncated_outputs, 'output')}) · "
        f"prompt {costs.request_tokens:,} tok"
    )


class ToolsScreen(Screen[int | None]):
    """Per tool: calls, tokens of calls and outputs, pruned and truncated, share of the request.

    Enter on a tool goes back to the main view at its largest output, to read it there.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,T", "close", "Back", id="tools.close", tooltip="Return to the main view"),
        Binding(
            "w",
            "scope",
            "Whole/segment",
            id="tools.scope",
            tooltip="The whole file, or only the messages after the agent's last compaction",
            show=False,  # the title names it where it applies
        ),
    ]

    DEFAULT_CSS = """
    ToolsScreen #tools-title { padding: 0 1; text-style: bold; }
    ToolsScreen #tools-freed { padding: 0 1; height: auto; }
    ToolsScreen DataTable { height: 1fr; margin: 1 0 0 0; }
    ToolsScreen #tools-note { padding: 0 1; color: $text-muted; height: auto; }
    """

    @dataclass
    class WholeRead(Message):
        """The whole file counted and planned: ``session`` holds the one on the main screen
        as its messages from ``offset`` on."""

        session: Session
        plan: Plan
        offset: int

    def __init__(self, state: MainState) -> None:
        super().__init__()
        self.state = state
        self.costs: ToolCosts | None = None
        self.whole: ToolsScreen.WholeRead | None = None  # the whole file, once read
        self.showing_whole = (
            self.state.shows_a_segment
        )  # a segment of a file: the whole file at first

    @property
    def shown(self) -> tuple[Session, Plan] | None:
        """The session and plan the table adds up: the whole file's or the main screen's."""
        if self.showing_whole and self.whole is not None:
            return self.whole.session, self.whole.plan
        if self.state.session is None or self.state.plan is None:
            return None
        return self.state.session, self.state.plan

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="tools-title", markup=False)
        yield Static("", id="tools-freed", markup=False)
        yield ToolTable(id="tools-table")
        yield Static(NOTE, id="tools-note", markup=False)
        yield FittingFooter()

    def on_resize(self) -> None:
        self.call_after_refresh(self._explain_headings)

    def _explain_headings(self) -> None:
        """The note says what the short headings stand for while they are shown."""
        short = self.query_one(ToolTable).short
        self.query_one("#tools-note", Static).update(f"{SHORT_NOTE} · {NOTE}" if short else NOTE)

    def _title(self) -> str:
        plan = self.state.plan
        if self.state.session is None or plan is None:
            return "Tool costs: open a session first"
        source = self.state.path or self.state.session.meta.source_path
        name = visible(PurePath(source).name) if source else "(in memory)"
        head = (
            f"Tool costs · {name} · preset {plan.policy.preset} · tokenizer {plan.tokenizer.used}"
        )
        if not self.state.shows_a_segment:
            return head
        count = plural(len(self.state.session), "message")
        if not self.showing_whole:
            return f"{head}\nthe last segment: the {count} after the agent's last compaction (w)"
        if self.whole is None:
            return f"{head}\nreading the whole file… (the last segment's {count} meanwhile)"
        compactions = plural(len(self.whole.session.meta.recorded_compactions), "compaction")
        whole = plural(len(self.whole.session), "message")
        scope = f"the whole file: {whole}, through the agent's {compactions}"
        return f"{head}\n{scope} (w: last segment)"

    def on_mount(self) -> None:
        if self.showing_whole and self.state.path is not None and self.state.session is not None:
            job = partial(self._read_whole, self.state.path, self.state.session)
            self.run_worker(job, group="tools-whole", description="tools-whole", thread=True)
        self._show()

    def _read_whole(self, path: Path, shown: Session) -> None:
        """The file read through the agent's compactions (the main screen's reading when it
        has one), counted and planned under the main screen's policy (a worker's: it only
        posts)."""
        from ctxtui.core.simulation.replay import shown_offset
        from ctxtui.importers import load_session

        try:
            history = self.state.history or load_session(path, shown.meta.format, full_history=True)
            offset = shown_offset(history, shown)
            if offset is None:
                return
            engine = Engine(history, default_cache())
            counts = engine.counts(self.state.policy)
            assert counts is not None  # no stop check was given
            plan = engine.plan(self.state.policy, counts)
        except Exception:  # the segment stands, said so in the title
            return
        self.post_message(self.WholeRead(history, plan, offset))

    @on(WholeRead)
    def _whole_read(self, event: WholeRead) -> None:
        self.whole = event
        self._show()

    def action_scope(self) -> None:
        """The whole file, or the agent's last segment (what the main screen shows)."""
        if self.state.shows_a_segment:
            self.showing_whole = not self.showing_whole
            self._show()

    def _show(self) -> None:
        self.query_one("#tools-title", Static).update(self._title())
        table = self.query_one(ToolTable)
        shown = self.shown
        if shown is None:
            table.show([])
            return
        session, plan = shown
        self.costs = costs = tool_costs(session, plan)
        freed = self.query_one("#tools-freed", Static)
        if not costs.tools:
            freed.update("no tool calls or outputs in this session")
        else:
            freed.update(freed_line(costs, len(plan.pruned), len(plan.truncated)))
        table.show([(cost.name, row_cells(costs, cost)) for cost in costs.tools])
        table.focus()
        if costs.tools:
            job = partial(price_session, self.post_message, session, plan.message_tokens)
            self.run_worker(job, group="tools-cost", description="tools-cost", thread=True)

    @on(CostReady)
    def _priced(self, event: CostReady) -> None:
        shown = self.shown
        if self.costs is None or shown is None or event.session is not shown[0]:
            return
        carry = carry_cells(event.view)
        costs = self.costs
        rows = [(c.name, row_cells(costs, c, carry.get(c.name, "—"))) for c in costs.tools]
        self.query_one(ToolTable).show(rows)

    def action_close(self) -> None:
        self.dismiss(None)

    @on(DataTable.RowSelected, "#tools-table")
    def _go_to_tool(self, event: DataTable.RowSelected) -> None:
        shown = self.shown
        if shown is None or event.row_key.value is None:
            return
        index = largest_output(*shown, event.row_key.value)
        offset = self.whole.offset if self.showing_whole and self.whole is not None else 0
        if index is not None and index < offset:
            self.notify(
                "Its largest output is before the agent's last compaction: w shows "
                "the last segment's tools, which the main view holds."
            )
            return
        self.dismiss(None if index is None else index - offset)
