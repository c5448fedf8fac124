"""``ctxtui.options``, the one place both shells read knobs, exit codes and policies from, and
the table of sub-commands the CLI is built from."""

from __future__ import annotations

import importlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtui.cli.args import COMMANDS, Command
from ctxtui.cli.main import main
from ctxtui.core.error_text import clip, clip_path, show_number
from ctxtui.core.policies.policy import FIELDS, KNOBS, PolicyError, make_policy, preset
from ctxtui.core.policies.presets import PRESETS
from ctxtui.core.session.models import Message, Session, SessionMeta
from ctxtui.options import (
    EXIT_INTERNAL,
    EXIT_USAGE,
    build_policy,
    dest,
    explain_policy_error,
    knob_help,
    knob_label,
    overrides_from,
    range_sentence,
    range_words,
    unused_reason,
)


def test_every_policy_field_but_its_records_is_one_row_of_the_table() -> None:
    assert list(KNOBS) == [f for f in FIELDS if f not in ("preset", "reserve_lowered_from")]
    window = KNOBS["context_window"]
    assert (window.low, window.high, window.kind) == (256, 100_000_000, int)
    assert range_words(window) == "256 to 100,000,000"
    assert range_sentence(window) == "a whole number from 256 to 100,000,000"
    assert range_sentence(KNOBS["tail_items"]) == "a whole number, 1 or more"
    assert range_sentence(KNOBS["compact_trigger_ratio"]) == "a number above 0 and at most 1"
    assert knob_label("tail_min_tokens") == "tail min tokens"
    assert dest(KNOBS["tail_min_tokens"]) == "tail_min"


def test_every_numeric_knob_says_what_it_counts() -> None:
    units = {name: knob.unit for name, knob in KNOBS.items() if knob.numeric}
    assert all(units.values()), [name for name, unit in units.items() if not unit]
    assert units["context_window"] == "tokens" and units["tail_min_turns"] == "turns"


def test_knobs_a_mode_switches_off_are_unused_with_the_reason() -> None:
    """picoclaw's tail is in items and its pruning and truncation are off: the panel disables
    those knobs (issue 13 item 5); a mode that reads a knob makes it count again."""
    picoclaw = preset("picoclaw").as_dict()
    for field, words in (
        ("tail_min_tokens", "last N items"),
        ("prune_protected_turns", "prune mode is off"),
        ("prune_stub", "prune mode is off"),
        ("truncate_max_lines", "truncation is off"),
        ("compact_user_message_tokens", "user_messages"),
    ):
        assert words in (unused_reason(field, picoclaw) or ""), field
    assert unused_reason("context_window", picoclaw) is None
    assert unused_reason("tail_items", picoclaw) is None
    turns = {**picoclaw, "prune_mode": "turns", "truncate_enabled": True}
    assert unused_reason("prune_protected_turns", turns) is None
    assert unused_reason("prune_threshold", turns) is None
    assert unused_reason("truncate_max_lines", turns) is None
    assert unused_reason("prune_keep_results", turns) == (
        "only the results prune modes read it, not turns"
    )
    assert unused_reason("chars_per_token", {"tokenizer": "llama3"}) == (
        "only the plan tokenizer divides by it, and tokens are counted with llama3"
    )


def test_help_text_is_unchanged_by_the_panel_only_rules() -> None:
    """The prune and truncate rules concern knobs that are not options: --help still shows
    one default for the window and the unused presets for the tail."""
    assert "unused" not in knob_help(KNOBS["context_window"])
    assert "unused by picoclaw" in knob_help(KNOBS["tail_min_tokens"])


UNRELATED = {
    **PRESETS["plan"].values,
    "tail_min_tokens": 0,
    "tail_max_tokens": 10**9,
    "max_tokens": 0,
    "context_window": 1_000,
}
"""The plan's values with the knobs that relate to others moved out of each other's way."""


@pytest.mark.parametrize("field", [n for n, k in KNOBS.items() if k.numeric])
def test_a_knob_accepts_exactly_what_the_policy_accepts(field: str) -> None:
    knob = KNOBS[field]
    edges = [v for v in (knob.low, knob.high) if v is not None]
    for edge in edges:
        for value in (edge - 1e-9, edge, edge + 1e-9):
            value = round(value) if knob.kind is int else value
            try:
                make_policy({**UNRELATED, field: value})
                policy_ok = True
            except PolicyError as err:
                policy_ok = err.problems[0].bound == "relation"  # checked below
                assert policy_ok or [(p.field, p.bound) for p in err.problems] == [(field, "range")]
                policy_ok = False
            if field in ("max_tokens", "context_window") and knob.accepts(value):
                continue  # their relation (reserve < window) may refuse an in-range value
            assert knob.accepts(value) == policy_ok, (field, value)


def test_a_refused_value_is_a_structured_problem_worded_by_each_shell() -> None:
    with pytest.raises(PolicyError) as info:
        preset("plan", tail_ratio=1.5, tail_items=0)
    assert [(p.field, p.value, p.bound) for p in info.value.problems] == [
        ("tail_ratio", 1.5, "range"),
        ("tail_items", 0, "range"),
    ]
    assert explain_policy_error(info.value) == (
        "--tail-ratio: expected 0 to 1, got 1.5; --tail-items: expected ≥\u00a01, got 0"
    )
    with pytest.raises(PolicyError) as info:
        preset("plan", tokenizer="gpt9")
    assert explain_policy_error(info.value) == (
        "--tokenizer: expected plan, picoclaw, opencode, tiktoken:ENCODING, llama3 or qwen2"
    )
    with pytest.raises(PolicyError, match="prune_mode: expected off, turns, tokens, results"):
        preset("plan", prune_mode="sometimes")


def test_build_policy_fits_a_session_and_keeps_what_was_given() -> None:
    session = Session(
        messages=(Message(role="user", content="hi"),), meta=SessionMeta(context_window=32_768)
    )
    bare = build_policy("plan")
    assert bare == make_policy(PRESETS["plan"].values)
    fitted = build_policy("plan", {"tail_ratio": 0.5}, session)
    assert (fitted.context_window, fitted.max_tokens, fitted.tail_ratio) == (32_768, 8_192, 0.5)
    given = build_policy("picoclaw", {"context_window": 8_000, "max_tokens": 1_000}, session)
    assert (given.preset, given.context_window, given.max_tokens) == ("picoclaw", 8_000, 1_000)
    with pytest.raises(PolicyError, match="unknown preset"):
        build_policy("nope", {}, session)


def test_a_relation_is_explained_in_flags_and_values() -> None:
    with pytest.raises(PolicyError) as info:
        build_policy("plan", {"tail_min_tokens": 9_000})
    assert explain_policy_error(info.value) == (
        "--tail-min (9,000) must not exceed --tail-max (8,000)"
    )


def test_overrides_are_the_flags_given_by_field() -> None:
    class Args:
        tokenizer = "picoclaw"
        tail_min = 10
        tail_ratio = None
        chars_per_token = 2.5

    assert overrides_from(Args()) == {
        "tokenizer": "picoclaw",
        "tail_min_tokens": 10,
        "chars_per_token": 2.5,
    }


def test_echoes_are_short_and_numbers_keep_their_digits() -> None:
    assert clip("abc") == "'abc'"
    assert clip("x" * 1_000) == "'" + "x" * 39 + "…' (1,000 characters)"
    assert clip("a\nb") == "'a⏎b'"
    assert clip("\x1b]0;t\x07\x9b") == "'␛]0;t␇�'"  # shown as core.literal shows it
    long_path = "/tmp/" + "d" * 200 + "/session.json"
    assert clip_path(long_path).endswith("/session.json' (218 characters)")
    assert show_number(32_768) == "32,768"
    assert show_number(1.0000001) == "1.0000001"
    assert show_number(1e-310) == "1e-310"
    assert show_number(10**400) == "a 401-digit number"
    assert EXIT_USAGE == 2 and EXIT_INTERNAL not in (0, 1, 2)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name)
def test_each_command_row_has_its_module_and_its_help(
    command: object, capsys: pytest.CaptureFixture[str]
) -> None:
    assert isinstance(command, Command)
    module = importlib.import_module(f"ctxtui.commands.{command.name}")
    assert callable(module.run)
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    overview = capsys.readouterr().out
    assert f"ctxtui {command.name}" in overview and command.summary in overview
    with pytest.raises(SystemExit):
        main([command.name, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert ("SESSION" in text) == (command.session != "none")
    own_knobs = command.name == "fleet"  # replays every session it reads under the knobs
    assert ("--chars-per-token" in text) == (
        (command.session != "none" and command.policy) or own_knobs
    )


@pytest.mark.parametrize("argv", [[], *([c.name] for c in COMMANDS)], ids=str)
def test_every_help_fits_80_columns(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    lines = capsys.readouterr().out.splitlines()
    assert lines and max(len(line) for line in lines) <= 80


@given(data=st.data())
@settings(max_examples=200, deadline=None)
def test_the_policy_accepts_a_value_exactly_when_its_row_does(data: st.DataObject) -> None:
    """Any value of a numeric knob, in range or not: the policy takes it iff the row's range
    does, and a refusal is one problem naming that knob, its value and ``range``."""
    knob = data.draw(st.sampled_from([k for k in KNOBS.values() if k.numeric]))
    if knob.kind is int:
        value: float = data.draw(st.integers(min_value=-(10**12), max_value=10**12))
    else:
        value = data.draw(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False))
    try:
        make_policy({**UNRELATED, knob.name: value})
    except PolicyError as err:
        if err.problems[0].bound != "relation":
            assert [(p.field, p.value, p.bound) for p in err.problems] == [
                (knob.name, value, "range")
            ]
            assert not knob.accepts(value)
    else:
        assert knob.accepts(value)


def test_compare_words_a_refused_knob_as_report_does(capsys: pytest.CaptureFixture[str]) -> None:
    from ctxtui.samples import demo_session_path

    demo = str(demo_session_path())
    with pytest.raises(SystemExit) as refused:  # at the flag, as report refuses it
        main(["compare", demo, "--context-window", "100"])
    assert refused.value.code == EXIT_USAGE
    assert "--context-window: expected 256 to 100,000,000, got 100" in capsys.readouterr().err
    assert main(["compare", demo, "--context-window", "1000", "--max-tokens", "2000"]) == EXIT_USAGE
    assert "--max-tokens (2,000) must be smaller than --context-window (1,000)" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize(
    ("reserve", "side"),
    [("10", "40 tokens"), ("30000000", "120,000,000 tokens")],
)
def test_a_reserve_that_makes_picoclaws_window_refused_names_the_reserve(
    reserve: str, side: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """PicoClaw's window is 4 × --max-tokens when the session sets none: a reserve that makes
    it out of range is refused as the --max-tokens given, with the window it makes, never as
    a --context-window no one typed."""
    from ctxtui.samples import samples_dir

    picoclaw = str(samples_dir() / "picoclaw_long_chat.jsonl")
    for command in ("report", "replay", "policy"):
        assert main([command, picoclaw, "--max-tokens", reserve]) == EXIT_USAGE
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert "--context-window" not in err
        assert f"--max-tokens {show_number(int(reserve))} makes the context window {side}" in err
    bound = "below its minimum of 256" if reserve == "10" else "above its maximum of 100,000,000"
    assert bound in err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["--max-tokens", "200000"],
            "--max-tokens (200,000) must be smaller than the context window (32,768; set it "
            "with --context-window)",
        ),
        (
            ["--tail-max", "100"],
            "the tail min tokens (2,000; set it with --tail-min) must not exceed --tail-max (100)",
        ),
        (
            ["--tail-min", "9000", "--tail-max", "5"],
            "--tail-min (9,000) must not exceed --tail-max (5)",
        ),
    ],
)
def test_a_relation_names_as_typed_only_the_flags_given(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--max-tokens 200000`` on a transcript with a 32,768 window was refused against
    ``--context-window (32,768)``, a flag never typed: the other side is named by its value
    and the flag that would set it."""
    from ctxtui.samples import demo_session_path

    assert main(["report", str(demo_session_path()), *argv]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert said in err, err
