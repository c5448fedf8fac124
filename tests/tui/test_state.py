"""The main screen's state and the search bar's, as plain values: no app, no Pilot."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxtui.core.policies.policy import PolicyError
from ctxtui.core.session.models import Message, Session, SessionMeta
from ctxtui.tui.state import MainState, SearchState
from tests.tui.main_fixtures import demo_session


def small(n: int = 3, source: str = "") -> Session:
    messages = tuple(Message(role="user", content=f"m{i}") for i in range(n))
    return Session(messages=messages, meta=SessionMeta(source_path=source or None))


def test_start_applies_the_options_or_drops_them_whole() -> None:
    state, problem = MainState.start("plan", {"tail_max_tokens": 2_000})
    assert problem is None and state.policy.tail_max_tokens == 2_000
    refused, problem = MainState.start("plan", {"tail_min_tokens": -5})
    assert problem is not None and "tail_min_tokens" in problem
    assert refused.overrides == {}
    assert refused.policy == MainState.start("plan")[0].policy


def test_opening_fits_the_policy_to_the_session_and_resets_what_was_done() -> None:
    state, _ = MainState.start("plan", {"tail_max_tokens": 2_000})
    first = small(5)
    state, problem = state.opened(first, Path("a.json"))
    state = state.selected(4).applied(small(2))
    assert state.undo == (first,) and state.selection == 4
    second = small(3)
    opened, problem = state.opened(second, Path("b.json"))
    assert problem is None
    assert opened.session is second and opened.path == Path("b.json")
    assert opened.undo == () and opened.selection == 0 and opened.plan is None
    assert opened.engine is not None and opened.engine.session is second
    assert opened.policy.tail_max_tokens == 2_000, "the options apply to every session opened"


def test_options_a_session_refuses_are_dropped_for_its_own_window() -> None:
    session = demo_session().model_copy(update={"meta": SessionMeta(context_window=8_000)})
    state, _ = MainState.start("plan", {"max_tokens": 10_000})
    opened, problem = state.opened(session, None)
    assert problem is not None
    assert opened.policy.context_window == 8_000


def test_a_reserve_refused_for_picoclaws_window_is_said_of_the_reserve() -> None:
    """The app opens a PicoClaw session with the window 4 × the reserve given: a reserve of
    10 is refused for the window of 40 it makes, said of max_tokens, the option given."""
    session = small().model_copy(update={"meta": SessionMeta(format="picoclaw")})
    state, problem = MainState.start("picoclaw", {"max_tokens": 10})
    assert problem is None
    opened, problem = state.opened(session, None)
    assert problem is not None and problem.startswith("max_tokens (10) makes context_window 40")
    assert opened.policy.context_window == 131_072


def test_apply_stacks_the_old_session_and_undo_restores_it_in_order() -> None:
    original, once, twice = small(9), small(5), small(3)
    state = MainState.start("plan")[0].opened(original, None)[0]
    assert not state.compacted and not state.can("undo")
    state = state.applied(once).applied(twice)
    assert state.session is twice and state.undo == (original, once)
    assert state.compacted and state.can("undo")
    state = state.undone()
    assert state.session is once and state.plan is None
    state = state.undone()
    assert state.session is original and not state.compacted
    assert state.undone() is state, "nothing left to undo: unchanged"


def test_replacing_the_session_drops_the_plan_of_the_old_one() -> None:
    session = demo_session()
    state = MainState.start("plan")[0].opened(session, None)[0]
    assert state.engine is not None
    state = state.planned(state.engine.plan(state.policy))
    assert state.plan is not None
    assert state.applied(small(2)).plan is None


def test_selection_is_clamped_to_the_session() -> None:
    state = MainState.start("plan")[0].opened(small(4), None)[0]
    assert state.selected(10).selection == 3
    assert state.selected(-2).selection == 0
    assert MainState.start("plan")[0].selected(5).selection == 0


def test_without_a_session_only_open_settings_and_help_do_something() -> None:
    empty = MainState.start("plan")[0]
    assert [a for a in ("compact", "export", "search", "jump_tail") if empty.can(a)] == []
    assert empty.can("open") and empty.can("toggle_settings") and empty.can("help")
    loaded = empty.opened(small(), None)[0]
    assert loaded.can("compact") and loaded.can("search") and not loaded.can("undo")


def test_preset_and_tokenizer_changes_keep_the_old_state_when_refused() -> None:
    state = MainState.start("plan")[0].opened(small(), None)[0]
    assert state.with_preset("picoclaw").policy.preset == "picoclaw"
    assert state.with_tokenizer("picoclaw").policy.tokenizer == "picoclaw"
    with pytest.raises(PolicyError):
        state.with_preset("no-such-preset")
    assert state.policy.preset == "plan"


def test_export_goes_beside_the_source_and_never_relative(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    state = MainState.start("plan")[0].opened(small(source="sessions/x.jsonl"), None)[0]
    assert state.session is not None
    default, source = state.export_paths(state.session)
    assert source == tmp_path / "sessions" / "x.jsonl"
    assert default == tmp_path / "sessions" / "x.ctxtui.json"
    in_memory = MainState.start("plan")[0].opened(small(), None)[0]
    assert in_memory.session is not None
    assert in_memory.export_paths(in_memory.session) == (tmp_path / "session.ctxtui.json", None)


# -- search ----------------------------------------------------------------------------------


def test_a_new_query_starts_a_search_and_the_same_one_does_not() -> None:
    state, start = SearchState().asked("pytest")
    assert start and state.searching and state.matches == ()
    again, start = state.asked("pytest")
    assert not start and again is state


def test_an_answer_for_an_older_query_is_ignored() -> None:
    state, _ = SearchState().asked("new")
    assert state.found("old", (1, 2)) is state
    done = state.found("new", (4, 9))
    assert done.matches == (4, 9) and not done.searching


def test_next_match_wraps_round_and_says_where_it_is() -> None:
    state = SearchState("q", (3, 7, 12))
    assert state.next_after(0) == (3, "1 of 3")
    assert state.next_after(3) == (7, "2 of 3")
    assert state.next_after(12) == (3, "1 of 3 (from the top)")
    assert SearchState("q", (5,)).next_after(9) == (5, "1 of 1")
    assert SearchState("q", ()).next_after(0) == (None, "no match")
    many = SearchState("q", tuple(range(1, 2_001)))
    assert many.next_after(1_499) == (1_500, "1,500 of 2,000")


def test_a_chosen_tokenizer_survives_preset_changes_and_the_bar_says_so() -> None:
    state = MainState.start("plan")[0].opened(small(), None)[0]
    assert state.with_preset("picoclaw").policy.tokenizer == "picoclaw", "no choice: preset's"
    assert state.kept_tokenizer == ""
    chosen = state.with_tokenizer("tiktoken:cl100k_base").with_preset("picoclaw")
    assert chosen.policy.preset == "picoclaw"
    assert chosen.policy.tokenizer == "tiktoken:cl100k_base"
    assert chosen.kept_tokenizer == "your choice, kept across presets; picoclaw's own is picoclaw"
    assert chosen.with_preset("claude-code").kept_tokenizer == "", "the preset's own: no note"
    # The option the app started with is a choice, and so is the settings panel's tokenizer;
    # another knob edited in the panel is not. Opening another file keeps the choice.
    started = MainState.start("plan", {"tokenizer": "picoclaw"})[0]
    assert started.opened(small(), None)[0].with_preset("opencode").policy.tokenizer == "picoclaw"
    edited = state.with_policy(state.policy.with_changes(tokenizer="opencode"))
    assert edited.with_preset("picoclaw").policy.tokenizer == "opencode"
    knob = state.with_policy(state.policy.with_changes(tail_max_tokens=2_000))
    assert knob.with_preset("picoclaw").policy.tokenizer == "picoclaw"


def test_the_estimate_is_judged_once_an_exact_count_is_known() -> None:
    """No exact count, no note; with one, the estimator is counted too and its drift said."""
    state = MainState.start("plan")[0].opened(cjk_like(), None)[0]
    assert state.engine is not None
    state.engine.counts(state.policy)
    assert state.estimate_to_count is None and state.estimate_note == ""
    exact = state.with_tokenizer("tiktoken:cl100k_base")
    assert exact.engine is not None
    exact.engine.counts(exact.policy)
    estimator = exact.estimate_to_count
    assert estimator is None, "the plan estimator's count is already known"
    assert exact.estimate_note.startswith("the plan estimator undercounts this session by ")
    assert "against cl100k_base" in exact.estimate_note
    # Back on the estimator, the exact count already made is still the yardstick.
    assert exact.with_tokenizer("plan").estimate_note == exact.estimate_note
    fresh = MainState.start("plan", {"tokenizer": "tiktoken:cl100k_base"})[0]
    fresh = fresh.opened(cjk_like(), None)[0]
    assert fresh.engine is not None
    fresh.engine.counts(fresh.policy)
    to_count = fresh.estimate_to_count
    assert to_count is not None and to_count.tokenizer == "plan"


def cjk_like() -> Session:
    messages = tuple(
        Message(role=r, content="请帮我修复这个测试，它在四舍五入时失败了。" * 5)
        for r in ("user", "assistant") * 3
    )
    return Session(messages=messages)


def test_export_never_defaults_into_ctxtuis_own_package_or_source_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bundled demo lives in the package (a wheel) or the checkout: the default goes to
    the working directory instead, and to the home directory when that is the checkout too."""
    from ctxtui.samples import demo_session_path, install_dirs

    demo = demo_session_path()
    state = MainState.start("plan")[0].opened(small(source=str(demo)), None)[0]
    assert state.session is not None
    monkeypatch.chdir(tmp_path)
    assert state.export_paths(state.session) == (tmp_path / "demo.ctxtui.json", demo)
    monkeypatch.chdir(install_dirs()[-1])
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    default, _ = state.export_paths(state.session)
    assert default == tmp_path / "home" / "demo.ctxtui.json"


def test_a_grown_watched_file_replaces_the_session_but_not_a_compacted_view() -> None:
    state, _ = MainState.start("plan")
    state, _ = state.opened(small(3), Path("live.jsonl"))
    policy = state.policy
    grown = small(5)
    state = state.selected(1).grown(grown)
    assert state.session is grown and state.plan is None and state.selection == 1
    assert state.policy is policy and state.path == Path("live.jsonl")
    compacted = state.applied(small(2))
    later = small(7)
    kept = compacted.grown(later)
    assert kept.session is compacted.session, "the compacted view stays on screen"
    assert kept.undone().session is later, "undo returns to the live file as it is now"


def test_a_small_window_alone_gets_a_reserve_that_fits_it() -> None:
    """`ctxtui FILE --context-window 8000` was refused (the 32,768 reserve is bigger) while
    `ctxtui report FILE --context-window 8000` fitted the reserve; both fit it now."""
    state, problem = MainState.start("plan", {"context_window": 8_000})
    assert problem is None
    assert state.policy.context_window == 8_000 and state.policy.max_tokens < 8_000
    opened, problem = state.opened(small(), None)
    assert problem is None and opened.policy.context_window == 8_000


def test_the_api_figure_is_not_set_against_a_compacted_session() -> None:
    """After apply the gauge said "estimator error: undercounts by 84%": it compared the API's
    count of the old history with the compacted one. The figure is withheld once compacted."""
    from tests.tui.main_fixtures import demo_session

    session = demo_session()
    assert any(m.usage for m in session.messages)
    state = MainState.start("plan")[0].opened(session, None)[0]
    assert state.engine is not None
    state = state.planned(state.engine.plan(state.policy))
    assert state.reported is not None
    tail = session.model_copy(update={"messages": session.messages[-8:]})
    assert any(m.usage for m in tail.messages), "the usage survives in the kept tail"
    compacted = state.applied(tail)
    assert compacted.engine is not None
    compacted = compacted.planned(compacted.engine.plan(compacted.policy))
    assert compacted.reported is None
    assert compacted.undone().session is session


def test_a_reserve_fitted_at_start_is_recorded_as_lowered_and_a_typed_one_is_not() -> None:
    fitted, _ = MainState.start("plan", {"context_window": 32_768})
    assert (fitted.policy.max_tokens, fitted.policy.reserve_lowered_from) == (8_192, 32_768)
    typed, _ = MainState.start("plan", {"context_window": 32_768, "max_tokens": 8_192})
    assert (typed.policy.max_tokens, typed.policy.reserve_lowered_from) == (8_192, 0)


def _agent(format: str) -> Session:
    messages = tuple(Message(role="user", content=f"m{i}") for i in range(3))
    return Session(messages=messages, meta=SessionMeta(format=format, source_path="s.jsonl"))


def test_an_unpinned_start_opens_each_session_on_its_agents_preset() -> None:
    state, _ = MainState.start(None)
    codex = state.opened(_agent("codex"), None)[0]
    assert codex.policy.preset == "codex"
    assert codex.preset_words == "codex, from the transcript"
    # the next session opened (the picker) takes its own agent's preset again
    claude = codex.opened(_agent("claude-code"), None)[0]
    assert claude.preset_words == "claude-code, from the transcript"
    chat = claude.opened(_agent("openai-chat"), None)[0]
    assert chat.preset_words == "plan, the default"
    # a preset the user chooses holds for the sessions opened after it
    chosen = chat.with_preset("opencode")
    assert chosen.preset_words == "opencode, your choice"
    assert chosen.opened(_agent("codex"), None)[0].policy.preset == "opencode"


def test_a_preset_named_at_start_wins_over_the_transcript() -> None:
    state, _ = MainState.start("plan", origin="from your settings")
    opened = state.opened(_agent("claude-code"), None)[0]
    assert opened.preset_words == "plan, from your settings"


def test_the_agents_compactions_say_so_far_until_the_history_is_read() -> None:
    """A compacted transcript's normal read holds its last compaction only: the bar said
    "(1 auto)" as a fact for the seconds the full history took, then "(45 auto)"."""
    from ctxtui.importers import load_session
    from tests.tui.main_fixtures import replay_sample

    path = replay_sample()
    session, history = load_session(path), load_session(path, full_history=True)
    state, _ = MainState.start(None, {})
    state, _ = state.opened(session, path)
    before = state.observed_words[0]
    assert before.endswith(" auto so far)"), before
    after = state.with_history(session, history, None).observed_words[0]
    assert after.endswith(f"({len(history.meta.recorded_compactions)} auto)"), after


@pytest.mark.parametrize("joined", [True, False], ids=["lines", "no-lines"])
def test_a_grown_files_new_compaction_joins_the_historys_band(tmp_path: Path, joined: bool) -> None:
    """A watched file that grew a new compaction: the band counts it at once with the
    history's (told apart by their lines in the file), rather than falling back to the
    segment's "(1 auto so far)" until the history is read again; without lines to tell
    them apart, "so far" it is."""
    from ctxtui.importers import load_session
    from ctxtui.samples import samples_dir

    lines = (samples_dir() / "claude_code_replay.jsonl").read_text().splitlines(True)
    marks = [i for i, line in enumerate(lines) if "compact_boundary" in line]
    path = tmp_path / "live.jsonl"
    path.write_text("".join(lines[: marks[1] + 5]))
    shown, history = load_session(path), load_session(path, full_history=True)
    if not joined:  # as a format that records no line for its compactions
        unlined = tuple(c.model_copy(update={"source_line": None}) for c in
                        history.meta.recorded_compactions)  # fmt: skip
        history = history.model_copy(
            update={"meta": history.meta.model_copy(update={"recorded_compactions": unlined})}
        )
    state, _ = MainState.start("plan")[0].opened(shown, path)
    state = state.with_history(shown, history, None)
    assert state.observed_words[0].endswith("(2 auto)")
    path.write_text("".join(lines[: marks[2] + 5]))
    grown = state.grown(load_session(path))
    assert grown.history is None
    assert grown.observed_words[0].endswith("(3 auto)" if joined else "(1 auto so far)")
