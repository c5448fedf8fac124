"""The session bar says what the figures alone hide: a kept tokenizer, the estimator's drift,
messages PicoClaw's meta ``skip`` hides, what the last recorded compaction lost, and a long
file name fitted to the width."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual.app import App

from ctxtui.core.engine import Engine
from ctxtui.core.policies.policy import preset
from ctxtui.core.session.models import Message, Session, SessionMeta
from ctxtui.core.simulation.estimate_check import drift_notice
from ctxtui.tui.cells import flow, shorten_name
from ctxtui.tui.widgets.session_bar import SessionBar
from tests.tui.main_fixtures import (
    CLAUDE_NAME,
    SnapCompare,
    app_for,
    apply_compaction,
    demo_session,
    llm_app,
    replay_sample,
    settle,
    then,
    until,
)


def bar_text(app: App[Any]) -> str:
    return str(app.screen_stack[0].query_one(SessionBar).render())


def minified_session() -> Session:
    """A minified JSON tool output: the plan estimator counts it about half of cl100k."""
    data = json.dumps(
        [{"id": i, "k": f"v{i}", "x": [i, i * 2, {"a": None}]} for i in range(3_000)],
        separators=(",", ":"),
    )
    return Session(
        messages=(
            Message(role="user", content="Summarise this data"),
            Message(role="assistant", content=data),
        ),
        meta=SessionMeta(source_path="/somewhere/private/minified.json"),
    )


def prose_and_code_session() -> Session:
    """Prose the estimator overcounts and code it undercounts, within 10 % of cl100k."""
    prose = "The committee reviewed the proposal carefully and agreed to continue. " * 10
    return Session(
        messages=(
            Message(role="user", content=prose),
            Message(role="assistant", content="value = compute(x, y)\n" * 60),
        ),
        meta=SessionMeta(source_path="/somewhere/private/prose.json"),
    )


async def test_a_chosen_tokenizer_is_kept_when_the_preset_changes() -> None:
    app = app_for(demo_session())
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        main = app.screen_stack[0]
        main.action_tokenizer("tiktoken:cl100k_base")  # type: ignore[attr-defined]
        await settle(pilot)
        main.action_preset("picoclaw")  # type: ignore[attr-defined]
        await settle(pilot)
        assert main.policy.preset == "picoclaw"  # type: ignore[attr-defined]
        assert main.policy.tokenizer == "tiktoken:cl100k_base"  # type: ignore[attr-defined]
        text = bar_text(app)
        assert "preset picoclaw, your choice · tokenizer tiktoken:cl100k_base" in text
        assert "your choice, kept across presets; picoclaw's own is picoclaw" in text


async def test_the_bar_says_how_far_the_estimator_is_off_once_counted_exactly() -> None:
    session = minified_session()
    engine = Engine(session)
    expected = drift_notice(
        engine.counts(preset("plan")),
        engine.counts(preset("plan", tokenizer="tiktoken:cl100k_base")),
    )
    assert expected.startswith("the plan estimator undercounts this session by 4")
    app = app_for(session)
    async with app.run_test(size=(200, 30)) as pilot:
        await settle(pilot)
        assert "estimator" not in bar_text(app), "no exact count yet: nothing to say"
        app.screen_stack[0].action_tokenizer("tiktoken:cl100k_base")  # type: ignore[attr-defined]
        await settle(pilot)
        assert expected in bar_text(app)


async def test_an_exact_start_counts_the_estimate_and_a_close_one_is_left_unsaid() -> None:
    for session, said in ((minified_session(), True), (prose_and_code_session(), False)):
        app = app_for(session, tokenizer="tiktoken:cl100k_base")
        async with app.run_test(size=(200, 30)) as pilot:
            await settle(pilot)
            await settle(pilot)
            assert ("the plan estimator undercounts" in bar_text(app)) is said


async def test_messages_hidden_by_the_meta_skip_are_counted_in_the_bar() -> None:
    session = demo_session().model_copy(
        update={
            "meta": SessionMeta(source_path="/x/chat.jsonl", format="picoclaw", hidden_messages=40)
        }
    )
    app = app_for(session)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        assert "32 messages (+40 hidden by the meta's skip)" in bar_text(app)


SUMMARY = (
    "The user asked to fix the rounding in pricing.py; round_cents now uses Decimal and the "
    "bulk discount test passes."
)


def picoclaw_with_meta() -> Session:
    """The demo as PicoClaw would keep it after a compaction: a meta summary and a skip."""
    meta = SessionMeta(
        source_path="/somewhere/private/chat.jsonl",
        format="picoclaw",
        summary=SUMMARY,
        hidden_messages=12,
    )
    return demo_session().model_copy(update={"meta": meta})


def test_meta_summary_row_120x40(snap_compare: SnapCompare) -> None:
    """Under the session bar ("chat.jsonl · picoclaw · 32 messages (+12 hidden by the meta's
    skip)"), a row of its own: "meta summary · N tok · The user asked to fix the rounding…",
    N being the gauge's summary segment; the list starts at message 0 below it."""
    assert snap_compare(app_for(picoclaw_with_meta(), preset="picoclaw"), terminal_size=(120, 40))


async def test_the_meta_summary_row_counts_what_the_gauge_does_and_search_finds_it() -> None:
    app = app_for(picoclaw_with_meta(), preset="picoclaw")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.screen_stack[0]
        plan = main.plan  # type: ignore[attr-defined]
        assert plan.totals.summary > 0
        # the summary's row follows the bar's phrases (two lines of them: the preset says
        # where it came from)
        second = next(x for x in bar_text(app).splitlines() if x.startswith("meta summary"))
        assert second.startswith(f"meta summary · {plan.totals.summary:,} tok · The user asked")
        status = main.query_one("#search-status")
        for query, said in (
            ("decimal", "no message; found in the meta summary"),
            ("round_cents", "1 of 6 · also in the meta summary"),
        ):
            await pilot.press("slash", *query, "enter")
            await settle(pilot)
            assert str(status.render()).startswith(said), query  # type: ignore[attr-defined]
            await pilot.press("escape")


def test_kept_tokenizer_and_estimate_120x40(snap_compare: SnapCompare) -> None:
    """cl100k chosen, then the picoclaw preset: the bar says "tokenizer tiktoken:cl100k_base
    (your choice, kept across presets; picoclaw's own is picoclaw)" and, in the warning
    colour, how far PicoClaw's estimator is from cl100k on this minified JSON (about half)."""

    async def choose(pilot: Any) -> None:
        main = pilot.app.screen_stack[0]
        main.action_tokenizer("tiktoken:cl100k_base")
        await settle(pilot)
        main.action_preset("picoclaw")
        await settle(pilot)

    app = app_for(minified_session())
    assert snap_compare(app, terminal_size=(120, 40), run_before=then(choose))


async def test_one_message_is_counted_in_the_singular() -> None:
    session = Session(messages=(Message(role="user", content="hello"),))
    async with app_for(session).run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        text = bar_text(pilot.app)
        assert "1 message ·" in text and "1 messages" not in text


async def test_the_session_bar_says_what_the_last_recorded_compaction_lost() -> None:
    from ctxtui.tui.widgets.session_bar import SessionBar
    from tests.tui.main_fixtures import settle

    app = app_for(replay_sample())
    async with app.run_test(size=(200, 40)) as pilot:
        bar = pilot.app.screen.query_one(SessionBar)
        await until(pilot, lambda: bool(bar._retention), "the note")
        await settle(pilot)
        text = str(bar.render())
        # recorded compaction 3 of the sample: 14 facts used again after it, all lost
        assert "last compaction lost 14 of 14 facts needed after it" in text
        assert "so far" not in text.split("needed after it")[1][:8], "a file not watched"


async def test_no_note_without_a_recorded_compaction() -> None:
    from ctxtui.tui.widgets.session_bar import SessionBar
    from tests.tui.main_fixtures import settle

    app = llm_app(None)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        assert "last compaction" not in str(pilot.app.screen.query_one(SessionBar).render())


async def test_the_session_bar_breaks_between_phrases_after_a_compaction() -> None:
    app = app_for(demo_session(name=CLAUDE_NAME))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await apply_compaction(pilot)
        main = app.screen_stack[0]
        bar = main.query_one(SessionBar)
        lines = str(bar.render()).split("\n")
        assert any("compacted (u undoes, 1 deep)" in line for line in lines), lines
        assert CLAUDE_NAME in lines[0], "120 columns hold the whole name"


def test_flow_breaks_only_between_phrases() -> None:
    phrases = [Text("a" * 10), Text("compacted (u undoes, 1 deep)"), Text("b" * 5)]
    lines = flow(phrases, Text(" · "), 30)
    assert [line.plain for line in lines] == [
        "aaaaaaaaaa",
        "compacted (u undoes, 1 deep)",
        "bbbbb",
    ]
    assert [line.plain for line in flow([Text("x" * 25)], Text(" · "), 10)] == [
        "x" * 10,
        "x" * 10,
        "x" * 5,
    ]


def test_a_long_name_keeps_its_head_and_suffix() -> None:
    assert shorten_name(CLAUDE_NAME, 16) == "cde583fb-….jsonl"
    assert shorten_name("short.json", 16) == "short.json"
    assert len(shorten_name(CLAUDE_NAME, 4)) == 16, "never under NAME_CELLS"


HOSTILE_NAME = "\x1b]0;PWNED\x07\x1b]52;c;aGk=\x07\x1b[2J\x1bX\x9b31m\u202eevil.json"
ACTING = ("\x1b", "\x9b", "\u202e", "\x07")


async def test_a_hostile_file_name_reaches_no_terminal(tmp_path: Any) -> None:
    """The loading line, the session bar and a view's title show a hostile name's escapes
    (OSC title and clipboard, CSI, C1, bidi) as pictures: none reaches the screen's text."""
    from pathlib import Path

    from ctxtui.tui.app import make_app
    from ctxtui.tui.screens.main import file_label
    from ctxtui.tui.settings import deterministic_settings
    from tests.tui.main_fixtures import screen_lines, write_native

    path = write_native(Path(tmp_path) / HOSTILE_NAME, demo_session())
    assert not any(c in file_label(path) for c in ACTING)
    assert "␛]0;PWNED" in file_label(path)
    app = make_app(path, settings=deterministic_settings())
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert app.main.session is not None
        shown = "\n".join(screen_lines(app))
        assert "␛]0;PWNED" in shown
        assert not any(c in shown for c in ACTING)
        assert not any(c in app.main.state.label for c in ACTING)
        svg = app.export_screenshot()
        assert not any(c in svg for c in ACTING)


async def test_the_bar_says_where_the_preset_came_from_and_the_recorded_total() -> None:
    """A Claude Code session opens on claude-code, said to come from the transcript, and the
    bar gives what the whole file recorded (before the agent's compactions too)."""
    from ctxtui.core.pricing.cost import session_cost
    from ctxtui.core.pricing.cost_words import dollars
    from ctxtui.importers import load_session
    from ctxtui.tui.app import make_app
    from ctxtui.tui.settings import _Pinned

    whole = session_cost(load_session(replay_sample(), full_history=True))
    settings = _Pinned(theme="textual-dark", tokenizer="plan", cursor_blink=False)
    app = make_app(replay_sample(), settings=settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await until(pilot, lambda: "recorded $" in bar_text(app), "the total")
        text = bar_text(app)
        assert "preset claude-code, from the transcript" in text
        assert f"recorded {dollars(whole.total)}" in text


async def test_at_80x24_the_notes_share_one_row() -> None:
    """The retention note, the estimator's drift and the import notes took four rows of
    the list at 80×24; they share one, cut to the width."""
    app = app_for(replay_sample(), context_window=200_000, max_tokens=32_000)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await until(pilot, lambda: "lost" in bar_text(app), "the retention note")
        lines = bar_text(app).splitlines()
        assert len(lines) <= 4, lines
        assert "last compaction lost" in lines[-1] and "recorded compactio" in lines[-1]


def _agents_app() -> Any:
    """The replay sample opened as a user with no preset set opens it: on its agent's."""
    from ctxtui.tui.app import make_app
    from ctxtui.tui.settings import _Pinned

    settings = _Pinned(theme="textual-dark", tokenizer="plan", cursor_blink=False, keys={})
    return make_app(replay_sample(), settings=settings)


async def _with_total(pilot: Any) -> None:
    await until(pilot, lambda: "recorded $" in bar_text(pilot.app), "the recorded total")
    await until(pilot, lambda: "lost" in bar_text(pilot.app), "the retention note")
    await settle(pilot)


def test_agents_preset_and_recorded_total_120x40(snap_compare: SnapCompare) -> None:
    """A Claude Code session opened with no preset named: the bar reads "preset claude-code,
    from the transcript", then "recorded $3.53" (every request of the file), the retention
    note, and "last recorded compaction: compact boundary at line 636 …"; the gauge's API line
    ends "last request $0.0108 · cache hit 99%"."""
    assert snap_compare(_agents_app(), terminal_size=(120, 40), run_before=then(_with_total))


def test_agents_preset_and_recorded_total_80x24(snap_compare: SnapCompare) -> None:
    """The same at 80×24: the gauge keeps "last request $0.0108", the bar "recorded $3.53"
    and one row for the notes (what the compaction lost, the estimator, the recorded
    compaction), so the list keeps its rows."""
    assert snap_compare(_agents_app(), terminal_size=(80, 24), run_before=then(_with_total))


async def test_the_recorded_dollars_are_the_files_through_apply_and_undo() -> None:
    """What the file recorded was spent: a compaction applied on screen does not change it
    (it priced the compacted view, $0.3352 → $0.2260 on the demo), nor does undoing it."""
    from ctxtui.samples import samples_dir
    from ctxtui.tui.app import make_app
    from ctxtui.tui.settings import deterministic_settings
    from ctxtui.tui.start import Start
    from tests.tui.main_fixtures import apply_compaction, settle

    app = make_app(samples_dir() / "demo.json", Start(), settings=deterministic_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)

        def recorded() -> str:
            bar = str(app.main.query_one(SessionBar).render())
            return next(w for w in bar.split() if w.startswith("$"))

        before = recorded()
        await apply_compaction(pilot)
        await settle(pilot)
        assert app.main.state.undo, "a compaction is applied"
        assert recorded() == before
        await pilot.press("u")
        await settle(pilot)
        assert recorded() == before
