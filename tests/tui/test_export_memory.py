"""Export remembers where the user last wrote (issue 13 item 14), and the compaction figures
say how many LLM calls the summary would take."""

from __future__ import annotations

from pathlib import Path

from screen_fixtures import compaction_result
from textual.widgets import Input

from ctxtui.core.compacting.notes import llm_calls_sentence
from ctxtui.tui.screens.compaction import figure_rows
from ctxtui.tui.screens.export import ExportScreen
from tests.tui.main_fixtures import app_for, demo_session
from tests.tui.test_snapshots_main import settle


async def test_the_next_export_starts_in_the_directory_of_the_last(tmp_path: Path) -> None:
    out = tmp_path / "exports"
    out.mkdir()
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, ExportScreen)
        first = app.screen.query_one("#path", Input)
        assert Path(first.value) == Path("/somewhere/private/demo.ctxtui.json")
        first.value = str(out / "mine.json")
        await pilot.press("enter")
        await settle(pilot)
        assert (out / "mine.json").is_file()
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, ExportScreen)
        again = Path(app.screen.query_one("#path", Input).value)
        assert again == out / "demo.ctxtui.json", "the last directory, this session's name"
        await pilot.press("escape")


def test_the_figures_say_how_many_llm_calls_the_summary_takes() -> None:
    for calls, said in (
        (1, "1 leaf-summary call for the whole"),
        (3, "3 leaf-summary calls, one per"),
    ):
        result = compaction_result(prompt_calls=calls)
        rows = dict(figure_rows(result))
        assert rows["LLM calls"] == llm_calls_sentence(result)
        assert rows["LLM calls"].startswith(said)
    dropped = compaction_result(prompt="")
    assert dict(figure_rows(dropped))["LLM calls"].startswith("none: this compaction style drops")
