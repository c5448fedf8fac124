"""The timeline view: the session over time, one request at a time (docs/replay.md).

The main view shows one moment, the whole transcript as the next request. This view replays
every request the agent sent under the policy (``ctxtui.core.simulation.replay``): a chart of the
simulated prompt against the one the API reported, the trigger and the window, with the
compactions on the way; a cursor per request; and below, the context as the model saw it at
that request, the simulated summary standing in for what it replaced. The transcript's full
history is read when it has one (before the agent's own compactions), so its compactions show
too. Reading, replaying and rebuilding a context run in workers; keys keep answering.
"""

from __future__ import annotations

from functools import partial
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Static

from ctxtui.core.literal import visible
from ctxtui.core.policies.policy import policy_for_session
from ctxtui.core.pricing.cost_words import miss_legend
from ctxtui.core.simulation.replay import ContextAt, Replay
from ctxtui.core.simulation.reported import ReportedGap
from ctxtui.core.wording import plural
from ctxtui.options import debugging
from ctxtui.tui.cells import NAME_CELLS, flow, shorten_name, whole_words
from ctxtui.tui.cost_jobs import price_replay
from ctxtui.tui.screens.preset_choice import PresetChoice
from ctxtui.tui.screens.retention import RecordedAuditScreen
from ctxtui.tui.state import MainState
from ctxtui.tui.timeline_jobs import (
    ContextReady,
    HistoryReady,
    ReplayFailed,
    ReplayProgress,
    ReplayReady,
    context_at,
    read_history,
    run_replay,
)
from ctxtui.tui.timeline_words import event_words, observed_band, timeline_title
from ctxtui.tui.widgets.cost_strip import CostSeries
from ctxtui.tui.widgets.footer import FittingFooter
from ctxtui.tui.widgets.message_list import MessageList, Numbering
from ctxtui.tui.widgets.theme_style import component_style
from ctxtui.tui.widgets.timeline_chart import ChartFigures, TimelineChart

WINDOW_KNOBS = ("context_window", "max_tokens")
"""The user's knobs a newly chosen preset keeps: the window is the model's, not the policy's."""

LEGEND_SERIES = ("simulated", "reported", "window", "trigger")
AUDIT_TIP = "The retention audit of the agent's recorded compaction at (or before) the cursor"
LEGEND_MARKS = (
    "C simulated compaction",
    "R recorded compaction",
    "! over the window",
    "+ several events",
)
COST_LEGEND = "▇ dollars per request (gutter: the costliest)"
"""The cost row's bars explained; the miss row's marks follow (``miss_legend``)."""
KEYS = ("←→ request", "tab list")
SHORT_COST_LEGEND = "? names the cost and miss marks"
"""A short screen's pointer to the help, which names them (``miss_legend``)."""
SHORT_ROWS = 30
"""Under this many rows the legend names the series, the marks and the keys only: in full it
took the rows the context list needs (at 80×24 the list could not be seen or reached)."""


class TimelineScreen(Screen[int | None]):
    """Replay under the main screen's policy; Escape or Enter returns to the request's message."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape,enter,l",
            "close",
            "Back",
            id="timeline.close",
            tooltip="Return to the main view at the selected request's message",
        ),
        Binding(
            "p",
            "choose",
            "Preset",
            id="timeline.choose",
            tooltip="Replay the session under another preset",
        ),
        Binding("a", "audit", "Audit", id="timeline.audit", tooltip=AUDIT_TIP, show=False),
    ]

    DEFAULT_CSS = """
    TimelineScreen #timeline-title { padding: 0 1; text-style: bold; height: 1; }
    TimelineScreen TimelineChart { height: 45%; min-height: 6; }
    TimelineScreen #timeline-legend { padding: 0 1; color: $text-muted; height: auto; }
    TimelineScreen #timeline-gap { padding: 0 1; color: $text-muted; height: 1; display: none; }
    TimelineScreen #timeline-status { padding: 0 1; height: 1; background: $panel; }
    TimelineScreen #timeline-heading { padding: 0 1; height: 1; color: $text-muted; }
    TimelineScreen #timeline-context { height: 1fr; }
    """

    def __init__(self, state: MainState) -> None:
        super().__init__()
        self.state = state
        self.preset_name = state.preset_name
        self.policy = state.policy
        self.history: HistoryReady | None = None
        self.replay: Replay | None = None
        self.gap: ReportedGap | None = None
        self.context: ContextAt | None = None
        self._context_busy = False

    def compose(self) -> ComposeResult:
        yield Static(Text(self._title(), no_wrap=True, overflow="ellipsis"), id="timeline-title")
        yield TimelineChart(id="timeline-chart")
        yield CostSeries(id="timeline-cost")
        yield Static("", id="timeline-legend")
        yield Static("", id="timeline-gap")
        yield Static("reading the session…", id="timeline-status")
        yield Static("", id="timeline-heading")
        yield MessageList(id="timeline-context")
        yield FittingFooter()

    @property
    def chart(self) -> TimelineChart:
        return self.query_one(TimelineChart)

    @property
    def context_list(self) -> MessageList:
        return self.query_one("#timeline-context", MessageList)

    def _title(self) -> str:
        """The title in the width: the model, then the middle of the file's name, give way
        before whole words are left out (a title cut to ``… .jsonl ·`` said nothing)."""
        if self.state.session is None:
            return "Timeline: open a session first"
        width = (self.size.width or self.app.size.width) - 2
        name = visible(self.state.path.name) if self.state.path is not None else "session"
        title = ""
        for label in (self.state.label, name, shorten_name(name, NAME_CELLS)):
            if self.replay is None:
                title = f"Timeline · {label}"
            else:
                title = timeline_title(label, self.replay, self.preset_name, width)
            if cell_len(title) <= width:
                return title
        return whole_words(title, width)

    def _status(self, text: str) -> None:
        self.query_one("#timeline-status", Static).update(Text(text, no_wrap=True, end=""))

    def on_mount(self) -> None:
        self.chart.focus()
        self._draw_legend()
        if self.state.session is None or self.state.engine is None:
            self._status("no session")
            return
        job = partial(read_history, self.post_message, self.state.path, read=self.state.history)
        self._run(job, self.state.session, self.state.engine, group="timeline-history")

    def _run(self, job: Any, *args: Any, group: str) -> None:
        """Run ``job(*args)`` in a thread worker. The description is given: Textual's default
        is the ``repr`` of the call, which for a replay of 20,000 messages took a second."""
        work = partial(job, *args)
        self.run_worker(
            work, name=group, group=group, description=group,
            thread=True, exclusive=True, exit_on_error=debugging(),  # see jobs.bug_line
        )  # fmt: skip

    def _draw_legend(self) -> None:
        """Each series in its colour, and each mark, named, in as many lines as it needs;
        under ``SHORT_ROWS`` rows, the series, the marks and the keys alone."""
        chart = self.chart
        phrases = [Text.assemble(("⣿ ", chart.series_style(name)), name) for name in LEGEND_SERIES]
        phrases += [Text(mark) for mark in LEGEND_MARKS]
        short = 0 < (self.size.height or self.app.size.height) < SHORT_ROWS
        band = observed_band(self.replay) if self.replay is not None and not short else None
        if band:  # where the R marks sat: the trigger the agent was seen to use
            phrases.append(Text(band))
        if self.query_one(CostSeries).priced:  # the rows under the chart
            if short:
                phrases.append(Text(SHORT_COST_LEGEND))
            else:
                phrases.append(Text(COST_LEGEND))
                phrases += [Text(f"miss {m}" if i == 0 else m) for i, m in enumerate(miss_legend())]
        phrases += [Text(key, component_style(chart, "timeline-chart--axis")) for key in KEYS]
        width = max(1, (self.size.width or self.app.size.width) - 2)
        legend = Text("\n").join(flow(phrases, Text("  "), width))
        self.query_one("#timeline-legend", Static).update(legend)

    def on_resize(self) -> None:
        """The title, the legend and the gap line fitted to the width: the gap in the words of
        the gauge, report and replay (the longest that fits); hidden without usage."""
        title = Text(self._title(), no_wrap=True, overflow="ellipsis")
        self.query_one("#timeline-title", Static).update(title)
        self._draw_legend()
        line = self.query_one("#timeline-gap", Static)
        line.display = self.gap is not None
        if self.gap is not None:
            words = self.gap.line_for(self.size.width - 2)
            line.update(Text(words, no_wrap=True, overflow="ellipsis", end=""))

    # -- replaying -------------------------------------------------------------------------

    @on(HistoryReady)
    def _history_ready(self, event: HistoryReady) -> None:
        self.history = event
        self._replay()

    def _replay(self) -> None:
        assert self.history is not None
        self._status(f"replaying under {self.preset_name}…")
        # the main screen's fit is this history's once it read it (else fitted in the worker)
        fit = self.state.fit if self.history.offset and self.state.history is not None else None
        self._run(
            run_replay, self.post_message, self.history.engine, self.policy, fit, group="timeline"
        )

    @on(ReplayProgress)
    def _progress(self, event: ReplayProgress) -> None:
        if event.policy is not self.policy:
            return  # the last words of a walk a newer preset superseded
        self._status(f"replaying under {self.preset_name}… {event.done:,} of {event.total:,}")

    @on(ReplayFailed)
    def _failed(self, event: ReplayFailed) -> None:
        self._status(event.problem)

    @on(ReplayReady)
    def _replayed(self, event: ReplayReady) -> None:
        if event.replay.policy is not self.policy:
            return
        first = self.replay is None
        self.replay = event.replay
        self.gap = event.gap
        self.on_resize()
        cursor = self._start_request() if first else None
        if not len(event.replay):
            self._status("no requests: the transcript has no assistant message to replay")
        self.chart.show(ChartFigures.of(event.replay), cursor)
        self._moved(TimelineChart.Moved(self.chart.cursor))
        series = self.query_one(CostSeries)  # it prices the replay and shows it
        series.expect(event.replay, self.preset_name)
        self._run(price_replay, series.post_message, event.replay, group="timeline-cost")

    def _start_request(self) -> int:
        """The request that produced the main screen's selected message, else the last one."""
        assert self.replay is not None and self.history is not None
        k = self.replay.request_of_message(self.state.selection + self.history.offset - 1)
        return len(self.replay) - 1 if k is None else k

    # -- the cursor ------------------------------------------------------------------------

    @on(CostSeries.Priced)
    def _priced(self) -> None:
        self._draw_legend()

    @on(TimelineChart.Moved)
    def _moved(self, event: TimelineChart.Moved) -> None:
        if self.replay is None or not len(self.replay):
            return
        self._describe(event.index)
        self.query_one(CostSeries).move(event.index)
        if not self._context_busy:
            self._context_busy = True
            self._run(context_at, self.post_message, self.replay, event.index, group="context")

    def _describe(self, k: int) -> None:
        """The status line, in long words when the width allows and short ones when not."""
        assert self.replay is not None and self.history is not None
        request = self.replay.requests[k]
        reported = request.reported_tokens
        main = request.message_index - self.history.offset
        shown = "—" if reported is None else f"{reported:,}"
        events = event_words(request)
        long = [
            f"request {k + 1:,} of {len(self.replay):,}",
            f"message #{request.message_index:,}",
            f"simulated {request.simulated_tokens:,}",
            f"reported {shown}",
        ]
        short = [
            f"request {k + 1:,}/{len(self.replay):,}",
            f"#{request.message_index:,}",
            f"sim {request.simulated_tokens:,}",
            f"API {shown}",
        ]
        if self.history.offset:
            long[1] += f" (#{main:,} in the main view)" if main >= 0 else " (before the main view)"
            short[1] += f" (main #{main:,})" if main >= 0 else " (not in main)"
        text = " · ".join([*long, events] if events else long)
        if len(text) > self.size.width - 2:
            text = " · ".join([*short, events] if events else short)
        self._status(text)

    @on(ContextReady)
    def _context_ready(self, event: ContextReady) -> None:
        self._context_busy = False
        if self.replay is None:
            return
        if event.replay is not self.replay or event.request != self.chart.cursor:
            self._moved(TimelineChart.Moved(self.chart.cursor))  # it moved on meanwhile
            return
        self.context = ctx = event.context
        if ctx is None:
            self.query_one("#timeline-heading", Static).update("the context could not be rebuilt")
            return
        assert self.history is not None
        numbering = Numbering(ctx.start, len(self.history.session.messages), int(ctx.stand_in))
        self.context_list.show(ctx.session, ctx.plan, numbering)
        self.query_one("#timeline-heading", Static).update(self._heading(ctx))

    def _heading(self, ctx: ContextAt) -> Text:
        """What the list below shows, in a line: size, the stand-in, and where the tail begins."""
        t = ctx.plan.totals
        sent = len(ctx.session.messages)
        words = [f"the model's context: {plural(sent, 'message')}, {t.tokens:,} tok"]
        if ctx.stand_in:
            words.append(f"S = simulated summary of #0–#{ctx.start - 1:,}")
        elif ctx.start:
            words.append(f"#0–#{ctx.start - 1:,} dropped by earlier compactions")
        first = ctx.history_index(ctx.plan.tail.start)
        words.append("fresh tail from " + ("S" if first is None else f"#{first:,}"))
        return Text(" · ".join(words), no_wrap=True, end="")

    # -- leaving and choosing --------------------------------------------------------------

    def action_close(self) -> None:
        """Back to the main screen, on the message the request produced when it shows there."""
        if self.replay is None or self.history is None or not len(self.replay):
            self.dismiss(None)
            return
        main = self.replay.requests[self.chart.cursor].message_index - self.history.offset
        self.dismiss(main if main >= 0 else None)

    def action_audit(self) -> None:
        """The retention audit of the recorded compaction at (or before) the cursor."""
        if self.replay is not None and len(self.replay):
            self.app.push_screen(RecordedAuditScreen(self.replay, self.chart.cursor))

    def action_choose(self) -> None:
        def chosen(name: str | None) -> None:
            if name is None or self.history is None or name == self.preset_name:
                return
            overrides = {k: v for k, v in self.state.overrides.items() if k in WINDOW_KNOBS}
            self.preset_name = name
            self.policy = policy_for_session(name, self.history.session, overrides)
            self._replay()

        self.app.push_screen(PresetChoice(self.preset_name), chosen)
