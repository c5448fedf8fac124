"""The busy row (``widgets/busy.py``): its clock while work runs."""

from __future__ import annotations

from textual.app import App, ComposeResult

from ctxtui.tui.widgets.busy import BusyRow, format_elapsed


class BusyApp(App[None]):
    def __init__(self, clock: list[float]) -> None:
        super().__init__()
        self.clock = clock

    def compose(self) -> ComposeResult:
        yield BusyRow(id="busy", clock=lambda: self.clock[0])


def test_elapsed_time_in_seconds_then_minutes() -> None:
    assert format_elapsed(0.4) == "0 s"
    assert format_elapsed(59.9) == "59 s"
    assert format_elapsed(125) == "2 min 05 s"


async def test_busy_row_counts_the_seconds_since_it_started() -> None:
    now = [100.0]
    app = BusyApp(now)
    async with app.run_test(size=(80, 5)) as pilot:
        row = app.query_one(BusyRow)
        assert not row.display and row.text == ""
        row.start("loading big.json (228.9 MB)…")
        assert row.display and row.text == "loading big.json (228.9 MB)…"
        now[0] = 103.2
        row.tick()
        await pilot.pause()
        assert str(row.query_one("#progress-elapsed").render()) == "3 s"
        row.advance(50, 100)
        row.stop()
        assert not row.display and row.text == ""
        row.start("counting…", total=10)
        assert str(row.query_one("#progress-elapsed").render()) == "", "a new task starts at 0"
