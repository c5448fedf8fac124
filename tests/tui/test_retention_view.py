"""The retention audit in the app: the compaction preview's Lost tab (the stand-in's audit, then
the LLM's once its summary arrives from a real server on 127.0.0.1), shown literally."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Label, Static, TabbedContent

from ctxtui.core.session.models import Message, Session
from ctxtui.core.simulation.retention_audits import recorded_audits
from ctxtui.core.summaries.retention import audit
from ctxtui.tui.screens.compaction import CompactionPreviewScreen
from ctxtui.tui.screens.retention import RecordedAuditScreen
from ctxtui.tui.widgets.retention import RetentionView
from tests.llm.server import SUMMARY, serve
from tests.tui.main_fixtures import SnapCompare, app_for, llm_app, open_preview, until


@pytest.fixture(autouse=True)
def _no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def _headline(screen: CompactionPreviewScreen) -> str:
    return str(screen.query_one("#retention-headline", Static).render())


def _rows(audit_: Any) -> list[tuple[str, str, str, str]]:
    return [
        (r.fact.kind, f"#{r.fact.message_index:,} {r.fact.role}",
         "yes" if r.needed_after else "", r.fact.text)
        for r in audit_.dropped
    ]  # fmt: skip


def _lost(view: RetentionView) -> list[tuple[str, ...]]:
    """The rows the Lost table shows, as plain strings."""
    table = view.query_one("#retention-lost", DataTable)
    return [tuple(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]


async def _lost_tab(pilot: Pilot[Any]) -> CompactionPreviewScreen:
    screen = await open_preview(pilot)
    screen.query_one(TabbedContent).active = "lost-tab"
    await pilot.pause()
    return screen


async def test_the_lost_tab_lists_what_the_stand_in_dropped() -> None:
    app = llm_app(None)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _lost_tab(pilot)
        expected = screen.audit
        assert expected is not None and expected.source == "stand-in"
        assert expected.segment.first == screen.result.replaced[0]  # type: ignore[index]
        view = screen.query_one(RetentionView)
        assert _lost(view) == _rows(expected)
        assert _headline(screen).startswith(
            f"stand-in keeps {expected.kept:,} of {len(expected.retained):,} facts"
        )


async def test_the_llm_summary_updates_the_lost_tab() -> None:
    with serve() as (url, _behaviour):
        app = llm_app(url)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await _lost_tab(pilot)
            stand_in = screen.audit
            assert stand_in is not None
            await pilot.press("s")
            await until(pilot, lambda: screen.llm_summary is not None, "the summary")
            await pilot.pause()
            llm = audit(stand_in.segment, SUMMARY.strip(), "llm", 0)
            view = screen.query_one(RetentionView)
            assert view.audit is not None and view.audit.source == "llm"
            assert _lost(view) == _rows(llm)
            assert len(_lost(view)) > len(_rows(stand_in))  # the test server's summary is short
            assert _headline(screen).startswith(f"llm keeps {llm.kept:,} of")
            assert f"(the stand-in kept {stand_in.kept:,}, lost" in _headline(screen)


async def test_facts_are_shown_literally() -> None:
    turns = [
        m
        for k in range(12)
        for m in (
            Message(
                role="user",
                content=f"Never touch [bold]mod_{k}[/bold] or \x1b[31mthe config\x1b[0m, please.",
            ),
            Message(role="assistant", content=f"Done with step {k}: parse_{k}() " + "x" * 3000),
        )
    ]
    app = app_for(Session(messages=tuple(turns)), context_window=8192, max_tokens=1024)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _lost_tab(pilot)
        rows = _lost(screen.query_one(RetentionView))
        assert rows and all("\x1b" not in cell for row in rows for cell in row)
        assert any("[bold]mod_" in row[3] for row in rows)  # markup shown as typed


def test_preview_lost_tab_retention(snap_compare: SnapCompare) -> None:
    """The Lost tab once the LLM's summary has arrived (from the loopback test server).

    The reader should see the headline "llm keeps N of M facts · lost K of the J used again
    after (the stand-in kept …, lost …)", a muted line of kept/total per kind, and a table
    (kind, from, needed after?, fact) of the facts the LLM's summary dropped, most salient
    first, "yes" where the messages after the range used the fact again.
    """

    async def run_before(pilot: Pilot[Any]) -> None:
        screen = await _lost_tab(pilot)
        await pilot.press("s")
        await until(pilot, lambda: screen.llm_summary is not None, "the summary")
        screen.query_one(TabbedContent).active = "lost-tab"
        await pilot.pause()

    with serve() as (url, _behaviour):
        assert snap_compare(llm_app(url), terminal_size=(120, 40), run_before=run_before)


async def _audit_from_timeline(pilot: Pilot[Any]) -> RecordedAuditScreen:
    from tests.tui.main_fixtures import open_timeline

    timeline = await open_timeline(pilot)
    assert timeline.replay is not None
    await pilot.press("a")
    screen = pilot.app.screen
    assert isinstance(screen, RecordedAuditScreen)
    await until(pilot, lambda: screen.done, "the audit")
    await pilot.pause()
    return screen


async def test_the_timeline_opens_the_recorded_compactions_audit() -> None:
    from tests.tui.main_fixtures import SMALL_WINDOW, replay_sample

    app = app_for(replay_sample(), context_window=SMALL_WINDOW)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _audit_from_timeline(pilot)
        r = screen.replay
        assert r is not None
        audits = recorded_audits(r.session, r.policy, r.counts, r.tokenizer)
        recorded = [a for a in audits if a.source == "recorded"]
        assert len(recorded) == 3
        shown, beside = screen.found  # type: ignore[misc]
        # the cursor starts on the last request: the last recorded compaction
        assert shown.segment.first == recorded[-1].segment.first
        assert shown.source == "recorded" and beside is not None and beside.source == "stand-in"
        view = screen.query_one(RetentionView)
        assert _lost(view) == _rows(recorded[-1])
        title = str(screen.query_one("#title", Label).render())
        assert title.startswith("Recorded compaction at request ")
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, RecordedAuditScreen)


async def test_a_session_without_recorded_compactions_says_so() -> None:
    app = llm_app(None)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _audit_from_timeline(pilot)
        title = str(screen.query_one("#title", Label).render())
        assert title == "No compaction recorded in this session: nothing to audit."


def test_timeline_audit_retention(snap_compare: SnapCompare) -> None:
    """The audit the timeline's `a` opens on the Claude Code replay sample.

    The reader should see "Recorded compaction at request 225 · replaced #304–#450 …", the
    headline "recorded keeps 0 of 22 facts · lost 14 of the 14 used again after it (the stand-in
    kept …)", "path 0/22", and the lost paths with "yes" where they were used again.
    """
    from tests.tui.main_fixtures import SMALL_WINDOW, replay_sample

    async def run_before(pilot: Pilot[Any]) -> None:
        await _audit_from_timeline(pilot)

    app = app_for(replay_sample(), context_window=SMALL_WINDOW)
    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


def test_timeline_audit_retention_80x24(snap_compare: SnapCompare) -> None:
    """The same audit at 80x24: the title, the headline and "path 0/22" wrap within the
    dialog, and the lost table shows every short column and the start of each fact."""
    from tests.tui.main_fixtures import SMALL_WINDOW, replay_sample

    async def run_before(pilot: Pilot[Any]) -> None:
        await _audit_from_timeline(pilot)

    app = app_for(replay_sample(), context_window=SMALL_WINDOW)
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


async def test_a_on_the_main_screen_audits_the_agents_last_compaction() -> None:
    from tests.tui.main_fixtures import replay_sample, settle

    app = app_for(replay_sample())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        screen = pilot.app.screen
        assert isinstance(screen, RecordedAuditScreen)
        await until(pilot, lambda: screen.done, "the audit")
        title = str(screen.query_one("#title", Label).render())
        assert title.startswith("Recorded compaction at request 225 ")
        # the audit counts with the estimator, the main list with the preset's tokenizer
        assert title.endswith(" tok, counted by plan"), title


async def test_c_with_nothing_to_compact_offers_the_recorded_compactions_audit() -> None:
    """Under plan the sample's last segment is all fresh tail: `c` said "nothing to compact"
    and its Lost tab "No summary to audit"; it now opens the agent's own compaction's audit."""
    from tests.tui.main_fixtures import replay_sample, settle

    app = app_for(replay_sample(), context_window=200_000, max_tokens=32_000)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await until(pilot, lambda: isinstance(pilot.app.screen, RecordedAuditScreen), "audit")
        screen = pilot.app.screen
        assert isinstance(screen, RecordedAuditScreen)
        await until(pilot, lambda: screen.done, "the audit")
        title = str(screen.query_one("#title", Label).render())
        assert title.startswith("Nothing to compact: every message is in the fresh tail.\n")
        assert "Recorded compaction at request 225" in title
