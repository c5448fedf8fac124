"""Undo answers every press: what it took back, or that there was nothing to take back."""

from __future__ import annotations

from ctxtui.tui.command_palette import NOTHING_TO_UNDO
from tests.tui.main_fixtures import app_for, apply_compaction, demo_session
from tests.tui.test_snapshots_main import record_toasts, settle


async def test_undo_says_what_it_undid_and_when_there_is_nothing_to_undo() -> None:
    """`u` used to restore the session without a word, and with nothing applied (the key is
    dimmed) pressing it did nothing at all."""
    session = demo_session(turns=20)
    app = app_for(session)
    seen: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await record_toasts(seen)(pilot)
        await pilot.press("u")
        await pilot.pause()
        assert seen == [NOTHING_TO_UNDO]

        await apply_compaction(pilot)
        compacted = len(app.screen.session)  # type: ignore[attr-defined]
        seen.clear()
        await pilot.press("u")
        await settle(pilot)
        assert len(app.screen.session) == len(session)  # type: ignore[attr-defined]
        assert seen == [
            f"Undid the compaction: back to {len(session)} messages "
            f"(the compacted session had {compacted})."
        ]

        seen.clear()
        await pilot.press("u")
        await pilot.pause()
        assert seen == [NOTHING_TO_UNDO]
