"""The compare view: one session under several presets at once, a lane per preset.

A developer choosing or tuning a policy asks "what would OpenCode keep here that Codex
drops?". The main view answers for one preset; this view plans the session under each chosen
preset (as shipped, fitted to the session's model) and shows, per preset, a one-line gauge
(prompt against window and trigger) and a lane of glyphs beside every message. Planning runs
in a thread worker that only posts its result: each preset may count with its own tokenizer.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, SelectionList, Static
from textual.worker import get_current_worker

from ctxtui.core.compare import PresetPlan, plan_presets
from ctxtui.core.engine import Engine
from ctxtui.core.planning.plan import Pressure
from ctxtui.core.policies.presets import COMPARED, PRESETS
from ctxtui.core.pricing.cost_words import cost_line, covered_requests
from ctxtui.core.session.models import Session
from ctxtui.core.wording import plural
from ctxtui.tui.cost_jobs import PresetCostsReady, price_presets
from ctxtui.tui.screens.dialog import Dialog, button_row
from ctxtui.tui.state import MainState
from ctxtui.tui.timeline_jobs import HistoryReady, read_history
from ctxtui.tui.widgets.compare_lanes import GLYPHS, LANE_CELLS, CompareLanes, lane_mark
from ctxtui.tui.widgets.footer import FittingFooter

DEFAULT_PRESETS = COMPARED
"""The agents' policies side by side, plus the plan (the rows marked so); ``p`` chooses others."""

WINDOW_KNOBS = ("context_window", "max_tokens")
"""The user's knobs every preset takes over: the window is the model's, not the policy's."""

GAUGE_CELLS = 16
LEGEND = "  ".join(f"{glyph} {mark}" for mark, glyph in GLYPHS.items())


WHOLE_FILE_GAUGES = "gauges: the whole file as one prompt, never sent as such (the agent compacted)"
"""Said above the gauges over a compacted transcript's whole file: its total against one
window reads as an overflow otherwise."""


def gauge_line(number: int, entry: PresetPlan, width: int, name_cells: int) -> Text:
    """``1 plan ███▌░░░│░ 5,828 / 200,000 · trigger 167,233 · tail #0 · window: registry``.

    The bar is the prompt against the window, ``│`` marks the trigger; its colour is the
    main gauge's (normal, past the trigger, past the window). What matters most comes first,
    so a narrow terminal cuts the window's source, not the figures.
    """
    t = entry.plan.totals
    style = {
        Pressure.OK: "green",
        Pressure.WARNING: "yellow",
        Pressure.ERROR: "red",
    }[entry.plan.pressure]
    filled = min(GAUGE_CELLS, round(GAUGE_CELLS * t.tokens / max(1, t.window)))
    trigger_at = (
        min(GAUGE_CELLS - 1, GAUGE_CELLS * t.trigger // max(1, t.window))
        if t.trigger is not None
        else -1
    )
    line = Text(no_wrap=True, end="")
    line.append(f"{number} ", "bold")
    line.append(f"{entry.name:<{name_cells}} ", "bold")
    for cell in range(GAUGE_CELLS):
        if cell == trigger_at and cell >= filled:
            line.append("│", "yellow")
        else:
            line.append("█" if cell < filled else "░", style if cell < filled else "dim")
    trigger = f"trigger {t.trigger:,}" if t.trigger is not None else "no auto-compaction"
    line.append(f" {t.tokens:,} / {t.window:,} · {trigger}")
    line.append(f" · {entry.plan.tail_words()}")
    # As `ctxtui compare` words it: the plan is of the whole transcript, so going over the
    # trigger means the *next* request compacts; PicoClaw legacy's summary comes after a turn.
    if entry.plan.compaction.post_turn:
        line.append(" · summarises after this turn", "bold")
    elif entry.plan.compaction.needed:
        line.append(" · compacts before the next request", "bold")
    line.append(f" · window: {entry.window_source}", "dim")
    line.truncate(width, overflow="ellipsis")
    return line


class PlansReady(Message):
    """Every chosen preset's plan, in order."""

    def __init__(self, plans: tuple[PresetPlan, ...]) -> None:
        super().__init__()
        self.plans = plans


class PresetPicker(Dialog[tuple[str, ...]]):
    """Choose the presets to compare (at least one), in the table's order."""

    DIALOG_ID = "compare-presets"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "apply", "Compare", id="compare-presets.apply", priority=True),
    ]
    DEFAULT_CSS = """
    PresetPicker > #dialog { width: 50; }
    PresetPicker SelectionList { height: auto; max-height: 12; }
    """

    def __init__(self, chosen: Sequence[str]) -> None:
        super().__init__()
        self._chosen = tuple(chosen)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("Presets to compare", id="title")
            yield SelectionList[str](
                *((name, name, name in self._chosen) for name in PRESETS), id="presets"
            )
            yield Static("space: choose · enter: compare", id="hint")
            yield button_row(Button("Compare", id="apply", variant="primary"))

    def action_apply(self) -> None:
        chosen = tuple(self.query_one(SelectionList).selected)
        if chosen:
            self.dismiss(tuple(n for n in PRESETS if n in chosen))
        else:
            self.notify("Choose at least one preset.", severity="warning")

    def on_button_pressed(self) -> None:
        self.action_apply()


class CompareScreen(Screen[int | None]):
    """The session under several presets; Escape returns to the main view at the cursor."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape,v",
            "close",
            "Back",
            id="compare.close",
            tooltip="Return to the main view at the selected message",
        ),
        Binding(
            "p", "choose", "Presets", id="compare.choose", tooltip="Choose which presets to compare"
        ),
        Binding(
            "w",
            "scope",
            "Whole/segment",
            id="compare.scope",
            tooltip="The whole file, or only the messages after the agent's last compaction",
            show=False,  # the title names it where it applies
        ),
    ]

    DEFAULT_CSS = """
    CompareScreen #compare-title { padding: 0 1; text-style: bold; }
    CompareScreen #compare-gauges { padding: 0 1; height: auto; }
    CompareScreen #compare-heading { color: $text-muted; }
    CompareScreen #compare-cost { padding: 0 1; height: auto; display: none; }
    CompareScreen CompareLanes { height: 1fr; }
    CompareScreen #compare-status {
        padding: 0 1;
        height: 1;
        background: $panel;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    CompareScreen #compare-legend { padding: 0 1; color: $text-muted; }
    """

    def __init__(self, state: MainState, presets: Sequence[str] = DEFAULT_PRESETS) -> None:
        super().__init__()
        self.state = state
        self.presets = tuple(presets)
        self.plans: tuple[PresetPlan, ...] = ()
        self.whole: HistoryReady | None = None  # the whole file, once read
        self.showing_whole = self.state.shows_a_segment

    @property
    def source(self) -> tuple[Session, Engine, int] | None:
        """The session compared, its engine, and where the main screen's first message is
        in it: the whole file once read (by default), else the main screen's."""
        if self.showing_whole and self.whole is not None:
            return self.whole.session, self.whole.engine, self.whole.offset
        if self.state.session is None or self.state.engine is None:
            return None
        return self.state.session, self.state.engine, 0

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="compare-title")
        yield Static("planning…", id="compare-gauges")
        yield Static("", id="compare-cost")
        yield Static("", id="compare-heading")
        yield CompareLanes(id="compare-lanes")
        yield Static("", id="compare-status")
        yield Static(f"{LEGEND}   p: choose presets · esc: back", id="compare-legend")
        yield FittingFooter()

    def _title(self) -> str:
        session = self.state.session
        if session is None:
            return "Compare presets: open a session first"
        count = plural(len(session.messages), "message")
        head = f"Compare presets · {self.state.label}"
        if not self.state.shows_a_segment:
            return f"{head} · {count}"
        if not self.showing_whole:
            return f"{head} · the last segment: the {count} after the agent's last compaction (w)"
        if self.whole is None:
            return f"{head} · reading the whole file… (the last segment's {count} meanwhile)"
        whole = plural(len(self.whole.session), "message")
        return f"{head} · the whole file: {whole} (w: last segment)"

    def on_mount(self) -> None:
        self.query_one(CompareLanes).cursor = self.state.selection
        self.query_one(CompareLanes).focus()
        if self.showing_whole and self.state.session is not None and self.state.engine:
            job = partial(read_history, self.post_message, self.state.path)
            work = partial(job, self.state.session, self.state.engine, self.state.history)
            self.run_worker(work, group="compare-whole", description="compare-whole", thread=True)
        self._plan_all()

    @on(HistoryReady)
    def _whole_read(self, event: HistoryReady) -> None:
        if not event.offset:  # nothing more than the main screen's
            return
        self.whole = event
        if self.showing_whole:
            self._rescope()

    def action_scope(self) -> None:
        """The whole file, or the agent's last segment (what the main screen shows)."""
        if not self.state.shows_a_segment:
            return
        lanes = self.query_one(CompareLanes)
        index = lanes.cursor - (self.source[2] if self.source else 0)  # the main screen's
        self.showing_whole = not self.showing_whole
        self._rescope(index)

    def _rescope(self, index: int | None = None) -> None:
        """Plan the presets again over the session now shown, the cursor on the same message."""
        main = self.state.selection if index is None else index
        source = self.source
        offset = source[2] if source is not None else 0
        self.query_one("#compare-title", Static).update(self._title())
        self.query_one(CompareLanes).cursor = max(0, main) + offset
        self.query_one("#compare-cost", Static).display = False
        self._plan_all()

    def _plan_all(self) -> None:
        source = self.source
        engine = source[1] if source is not None else None
        if engine is None:
            self.query_one("#compare-gauges", Static).update("no session")
            return
        self.query_one("#compare-gauges", Static).update(
            f"planning {plural(len(self.presets), 'preset')}…"
        )
        overrides = {k: v for k, v in self.state.overrides.items() if k in WINDOW_KNOBS}
        self._plan_worker(engine, self.presets, overrides)

    @work(thread=True, exclusive=True, exit_on_error=False, group="compare")
    def _plan_worker(
        self, engine: Engine, presets: tuple[str, ...], overrides: dict[str, object]
    ) -> None:
        worker = get_current_worker()
        plans = plan_presets(engine, presets, overrides, lambda: worker.is_cancelled)
        if plans is not None:
            self.post_message(PlansReady(plans))

    @on(PlansReady)
    def _show(self, event: PlansReady) -> None:
        source = self.source
        if source is None or any(len(p.plan.message_tokens) != len(source[0]) for p in event.plans):
            return  # plans of the other scope, overtaken
        session = source[0]
        self.plans = event.plans
        lanes = self.query_one(CompareLanes)
        lanes.show(session, event.plans)
        self._draw_gauges()
        pad = " " * (lanes.index_width() + 1 + 4 + 1)
        numbers = "".join(f"{n + 1}".ljust(LANE_CELLS) for n in range(len(event.plans)))
        heading = Text(f"{pad}{numbers}message", no_wrap=True, end="")
        self.query_one("#compare-heading", Static).update(heading)
        self._describe(lanes.cursor)
        self._price_all()

    # -- dollars: each preset's replay priced ----------------------------------------------

    def _price_all(self) -> None:
        source = self.source
        engine = source[1] if source is not None else None
        if engine is None:
            return
        overrides = {k: v for k, v in self.state.overrides.items() if k in WINDOW_KNOBS}
        self._price_worker(engine, self.presets, overrides)

    @work(thread=True, exclusive=True, exit_on_error=False, group="compare-cost")
    def _price_worker(
        self, engine: Engine, presets: tuple[str, ...], overrides: dict[str, object]
    ) -> None:
        worker = get_current_worker()
        price_presets(self.post_message, engine, presets, overrides, lambda: worker.is_cancelled)

    @on(PresetCostsReady)
    def _priced(self, event: PresetCostsReady) -> None:
        if event.presets != self.presets:
            return
        words = cost_line(event.presets, event.entries, self._segment(event.entries))
        line = self.query_one("#compare-cost", Static)
        line.update(Text(words, end=""))
        line.display = bool(words)

    def _segment(self, entries: dict[str, dict[str, object]]) -> str:
        """Which requests of the file the replays cover, when the session on screen is
        only the agent's last segment (``""``: the whole file)."""
        session = self.state.session
        if session is None or not session.meta.recorded_compactions:
            return ""
        if session.meta.full_history or (self.showing_whole and self.whole is not None):
            return ""
        requests = next((e["requests"] for e in entries.values()), 0)
        first = self.state.fit.first_request if self.state.fit is not None else None
        return covered_requests(requests if isinstance(requests, int) else 0, first)

    def _draw_gauges(self) -> None:
        """A gauge line per preset; over the whole file of a compacted transcript, a first
        line saying what those gauges measure: no request held the whole file."""
        width = max(20, self.size.width - 2)
        name_cells = max(len(p.name) for p in self.plans)
        gauges = [gauge_line(n + 1, entry, width, name_cells) for n, entry in enumerate(self.plans)]
        if self.showing_whole and self.whole is not None:
            note = Text(WHOLE_FILE_GAUGES, style="dim", no_wrap=True, end="")
            note.truncate(width, overflow="ellipsis")
            gauges.insert(0, note)
        self.query_one("#compare-gauges", Static).update(Text("\n").join(gauges))

    def on_resize(self) -> None:
        if self.plans:
            self._draw_gauges()

    @on(CompareLanes.Moved)
    def _moved(self, event: CompareLanes.Moved) -> None:
        self._describe(event.index)

    def _describe(self, index: int) -> None:
        """The status line: what each preset does with the message under the cursor."""
        if not self.plans:
            return
        marks = ", ".join(f"{p.name} {lane_mark(p.plan, index)}" for p in self.plans)
        self.query_one("#compare-status", Static).update(f"#{index:,}: {marks}")

    def action_close(self) -> None:
        offset = self.source[2] if self.source is not None else 0
        index = self.query_one(CompareLanes).cursor - offset
        self.dismiss(index if index >= 0 else None)

    def action_choose(self) -> None:
        def chosen(presets: tuple[str, ...] | None) -> None:
            if presets and presets != self.presets:
                self.presets = presets
                self._plan_all()

        self.app.push_screen(PresetPicker(self.presets), chosen)
