"""Each preset's figures as its agent ships them (docs/presets.md names the upstream files).

OpenCode: ``packages/opencode/src/session/overflow.ts`` ``usable()`` and ``compaction.ts``;
Codex: ``codex-rs/core/src/openai_models/model_family.rs`` and ``compact.rs``; PicoClaw:
``pkg/agent/context_legacy.go``, ``pipeline_setup.go``, ``instance.go`` and
``pkg/seahorse/short_compaction.go``; Claude Code: the API's ``clear_tool_uses`` default.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from ctxtui.core.compacting.compaction import approx_token_count, compact
from ctxtui.core.planning.picoclaw_legacy import force_compression_range
from ctxtui.core.planning.planner import build_plan
from ctxtui.core.policies.modes import TriggerCount
from ctxtui.core.policies.policy import Policy, policy_for_session, preset
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.session.models import Message, Session, SessionMeta, ToolCall, Usage
from ctxtui.core.simulation.live_context import Counted
from ctxtui.core.simulation.replay import EventKind, Replay, replay
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.core.tokens.tokenizers import TokenizerInfo
from ctxtui.importers import load_session
from ctxtui.samples import samples_dir
from tests.core.fakes import CharTokenizer

TOKENIZER = CharTokenizer()


def _counts(tokens: Sequence[int]) -> SessionCounts:
    return SessionCounts(TokenizerInfo("chars", "chars"), list(tokens), 0, 0)


def _session(*messages: Message, model: str | None = None) -> Session:
    return Session(messages=messages, meta=SessionMeta(model=model))


def _walk(session: Session, policy: Policy, tokens: Sequence[int]) -> Replay:
    return replay(Counted(session, policy, _counts(tokens), TOKENIZER))


# -- OpenCode ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "window", "trigger"),
    [
        ("claude-sonnet-4-5-20250929", None, 168_000),  # 200k window, 64k output → out 32,000
        ("gpt-5-codex", None, 252_000),  # input limit 272k − min(20,000, 32,000)
        (None, 1_000_000, 968_000),  # a 1M window: 1,000,000 − 32,000
    ],
)
def test_opencode_usable_is_overflow_ts(
    model: str | None, window: int | None, trigger: int
) -> None:
    session = _session(Message(role="user", content="hi"), model=model)
    overrides = {"context_window": window} if window else {}
    policy = policy_for_session("opencode", session, overrides)
    assert policy.trigger == trigger
    assert not policy.compacts(trigger - 1)  # isOverflow: count >= usable, not one token early
    assert policy.compacts(trigger)


def _turn(k: int, size: int) -> tuple[Message, ...]:
    call = ToolCall(id=f"c{k}", name="bash")
    return (
        Message(role="user", content=f"u{k}"),
        Message(role="assistant", tool_calls=(call,)),
        Message(role="tool", tool_call_id=f"c{k}", tool_name="bash", content="x" * size),
        Message(role="assistant", content=f"a{k}"),
    )


def test_opencode_tail_holds_at_most_two_turns() -> None:
    session = _session(*[m for k in range(6) for m in _turn(k, 10)])
    tokens = [TOKENIZER.count_message(m) for m in session.messages]
    policy = preset("opencode", context_window=200_000)  # a tail budget far above the session
    plan = build_plan(session, policy, _counts(tokens), TOKENIZER)
    assert plan.tail.start == session.turn_starts[-2]  # DEFAULT_TAIL_TURNS = 2
    assert plan.tail.reason.value == "max_turns"


def test_opencode_compacts_inside_the_first_turn() -> None:
    """Overflow is checked after every step, so one long turn compacts before it ends."""
    call = [ToolCall(id=f"c{k}", name="bash") for k in range(12)]
    messages: list[Message] = [Message(role="user", content="go")]
    for k in range(12):
        messages += [
            Message(role="assistant", tool_calls=(call[k],)),
            Message(role="tool", tool_call_id=f"c{k}", tool_name="bash", content="x" * 2_000),
        ]
    messages.append(Message(role="assistant", content="done"))
    session = _session(*messages)
    tokens = [TOKENIZER.count_message(m) for m in session.messages]
    policy = preset("opencode", context_window=20_000, max_tokens=4_000, tail_min_tokens=0)
    result = _walk(session, policy, tokens)
    assert session.turn_starts == (0,)
    assert result.compactions, "a single turn over usable must compact inside itself"
    assert result.compactions[0].request < len(result.requests) - 1


def test_opencode_and_codex_decide_from_the_previous_calls_reported_usage() -> None:
    """The local count stays below the trigger; the reported usage of the call before is over
    it, so the next request compacts (the transcript's figure decides, as upstream)."""
    big = Usage(prompt_total=9_000, output=500)
    messages: list[Message] = []
    for k in range(4):
        messages += [
            Message(role="user", content="q" * 100),
            Message(role="assistant", content="a" * 100, usage=big if k == 1 else None),
        ]
    session = _session(*messages)
    tokens = [TOKENIZER.count_message(m) for m in session.messages]
    base = {"context_window": 10_000, "max_tokens": 1_000, "tail_min_tokens": 0}
    local = _walk(session, preset("opencode", **base, trigger_count=TriggerCount.LOCAL), tokens)
    assert not local.compactions
    reported = _walk(session, preset("opencode", **base), tokens)  # the preset's own: reported
    assert [c.request for c in reported.compactions] == [2]
    codex = preset("codex", context_window=10_000)
    assert codex.trigger_count is TriggerCount.REPORTED_PLUS_NEW
    assert [c.request for c in _walk(session, codex, tokens).compactions] == [2]


def test_opencode_compacts_at_the_request_the_api_refuses() -> None:
    """The previous call reported little, but this prompt is over the window: the API refuses
    it (a context-overflow error) and OpenCode compacts at this request, not one later."""
    small = Usage(prompt_total=500, output=50)
    messages: list[Message] = []
    for k in range(4):
        messages += [
            Message(role="user", content=("q" * 12_000) if k == 2 else "q" * 100),
            Message(role="assistant", content="a" * 100, usage=small),
        ]
    session = _session(*messages)
    tokens = [TOKENIZER.count_message(m) for m in session.messages]
    policy = preset("opencode", context_window=10_000, max_tokens=1_000, tail_min_tokens=0)
    result = _walk(session, policy, tokens)
    assert result.requests[2].has(EventKind.COMPACTION)
    assert [c.request for c in result.compactions][:1] == [2]


def test_the_reported_count_decides_every_later_compaction_too() -> None:
    """After a simulated compaction the previous call's count (its simulated prompt plus its
    reported output) still decides: a prompt the local count would compact at once waits for
    the call that has it in its count, or for the API to refuse it."""
    usage = Usage(prompt_total=100, output=0)
    messages: list[Message] = []
    for _ in range(12):
        messages += [
            Message(role="user", content="q" * 4_000),
            Message(role="assistant", content="a" * 100, usage=usage),
        ]
    session = _session(*messages)
    tokens = [TOKENIZER.count_message(m) for m in session.messages]
    base = {"context_window": 12_000, "max_tokens": 1_000, "tail_min_tokens": 0}
    reported = _walk(session, preset("opencode", **base), tokens)
    trigger = reported.policy.trigger
    assert trigger is not None and len(reported.compactions) >= 2
    for c in reported.compactions[1:]:
        previous = reported.requests[c.request - 1]
        assert previous.simulated_tokens >= trigger or c.tokens_before > 12_000


# -- Codex ------------------------------------------------------------------------------------


def test_a_rollout_recording_258400_is_a_272000_window_and_compacts_at_244800(
    tmp_path: Path,
) -> None:
    text = (samples_dir() / "codex_rollout.jsonl").read_text(encoding="utf-8")
    path = tmp_path / "rollout.jsonl"
    path.write_text(text.replace('"model_context_window":272000', '"model_context_window":258400'))
    session = load_session(path)
    assert session.meta.context_window == 272_000  # effective_context_window_percent = 95
    policy = policy_for_session("codex", session)
    assert (policy.context_window, policy.trigger) == (272_000, 244_800)


def test_codex_has_no_auto_compaction_for_a_model_it_has_no_window_for() -> None:
    session = _session(Message(role="user", content="hi"), model="my-local-model")
    policy = policy_for_session("codex", session)
    assert policy.trigger is None
    assert not policy.compacts(10**9)
    known = policy_for_session("codex", session, {"context_window": 128_000})
    assert known.trigger == 115_200  # a configured window brings the 90 % back


@pytest.mark.parametrize(
    ("model", "trigger"),
    [
        ("claude-sonnet-4-5-20250929", None),  # derive_default_model_family: no window
        ("gemini-2.5-pro", None),
        ("gpt-5-codex", 244_800),  # find_family_for_model: 272,000 · 9/10
        ("o3", 180_000),
    ],
)
def test_codex_auto_compacts_only_the_models_its_registry_knows(
    model: str, trigger: int | None
) -> None:
    session = _session(Message(role="user", content="hi"), model=model)
    policy = policy_for_session("codex", session)
    assert policy.trigger == trigger
    assert policy_for_session("codex", session, {"context_window": 200_000}).trigger == 180_000


def test_codex_keeps_user_messages_counted_as_bytes_over_four_up_to_20000() -> None:
    sizes = [30_000, 40_000, 20_000]  # bytes: 7,500 / 10,000 / 5,000 Codex tokens
    messages: list[Message] = []
    for size in sizes:
        messages += [Message(role="user", content="é" * (size // 2)), Message(role="assistant")]
    session = _session(*messages)
    tokens = [TOKENIZER.count_message(m) for m in session.messages]
    policy = preset("codex", context_window=200_000)
    plan = build_plan(session, policy, _counts(tokens), TOKENIZER)
    done = compact(session, plan, CompactReason.PROACTIVE, TOKENIZER)
    kept = [m.content for m in done.session.messages if m.role == "user" and not m.is_summary]
    assert [approx_token_count(t) for t in kept[1:]] == [10_000, 5_000]
    # The crossing one is cut as truncate_text(message, Tokens(5,000)) cuts it: 10,000 bytes
    # from each end around the marker (compact.rs, build_compacted_history_with_limit).
    assert kept[0] == "é" * 5_000 + "…2500 tokens truncated…" + "é" * 5_000


def test_codex_estimates_the_items_since_the_last_output_as_bytes_over_four() -> None:
    """``get_total_token_usage``: the last response's total plus ``estimate_item_token_count``
    of the items after the last model output — their JSON bytes / 4, whatever a tokenizer says.
    The tool output here is counted 100 tokens but is 4,000 bytes: 8,600 + 1,0xx ≥ 9,000."""
    call = ToolCall(id="c1", name="shell")
    session = _session(
        Message(role="user", content="go"),
        Message(role="assistant", tool_calls=(call,), usage=Usage(prompt_total=8_500, output=100)),
        Message(role="tool", tool_call_id="c1", tool_name="shell", content="x" * 4_000),
        Message(role="assistant", content="done", usage=Usage(prompt_total=8_700, output=10)),
    )
    policy = preset("codex", context_window=10_000)
    assert policy.trigger == 9_000
    result = _walk(session, policy, [10, 10, 100, 10])
    assert [c.request for c in result.compactions] == [1]


def test_gpt_5_codex_truncates_tool_output_at_10000_tokens() -> None:
    session = _session(Message(role="user", content="hi"), model="gpt-5-codex")
    assert policy_for_session("codex", session).truncate_max_bytes == 40_000  # Tokens(10_000)
    other = _session(Message(role="user", content="hi"), model="gpt-5")
    policy = policy_for_session("codex", other)
    assert policy.truncate_max_bytes == 10_000  # Bytes(10_000)


@pytest.mark.parametrize(
    ("text", "budget", "tokens", "expected"),
    [
        # codex-rs/utils/string/src/truncate/tests.rs, as written there
        ("abcdef", 0, True, "…2 tokens truncated…"),
        ("😀😀😀😀😀😀😀😀😀😀\nsecond line with text\n", 32, True,
         "😀😀😀😀…8 tokens truncated… line with text\n"),
        ("😀😀😀😀😀😀😀😀😀😀\nsecond line with text\n", 20, False,
         "😀😀…21 chars truncated…with text\n"),
        ("short output", 400, True, "short output"),
    ],
)  # fmt: skip
def test_codex_truncates_the_middle_as_truncate_rs(
    text: str, budget: int, tokens: bool, expected: str
) -> None:
    from ctxtui.core.planning.head_tail import truncate_middle

    assert truncate_middle(text, budget, tokens=tokens) == expected


def test_codex_records_an_output_at_1_2_times_its_policy() -> None:
    """``process_item``: ``policy * 1.2`` — Bytes(10,000) keeps 12,000 bytes of an output."""
    from ctxtui.core.planning.head_tail import head_tail

    assert head_tail("x" * 12_000, 10**9, 10_000) is None
    shown = head_tail("x" * 12_001, 10**9, 10_000)
    assert shown == "x" * 6_000 + "…1 chars truncated…" + "x" * 6_000


# -- PicoClaw ------------------------------------------------------------------------------


def _chat_turns(turns: int, calls: int = 1) -> Session:
    messages: list[Message] = []
    for k in range(turns):
        messages.append(Message(role="user", content=f"q{k}"))
        for j in range(calls - 1):
            call = ToolCall(id=f"c{k}-{j}", name="bash")
            messages += [
                Message(role="assistant", tool_calls=(call,)),
                Message(role="tool", tool_call_id=f"c{k}-{j}", tool_name="bash", content="o"),
            ]
        messages.append(Message(role="assistant", content=f"a{k}"))
    return _session(*messages)


def test_picoclaw_checks_once_per_turn_before_its_first_call() -> None:
    session = _chat_turns(8, calls=3)  # 6 messages a turn, 3 calls
    tokens = [400] * len(session)
    policy = preset("picoclaw", context_window=6_000, max_tokens=1_000)
    result = _walk(session, policy, tokens)
    assert result.compactions
    firsts = set()
    seen: set[int] = set()
    for r in result.requests:
        turn = max(i for i, s in enumerate(session.turn_starts) if s < r.message_index)
        if turn not in seen:
            seen.add(turn)
            firsts.add(r.index)
    assert {c.request for c in result.compactions} <= firsts
    over = [r for r in result.requests if r.simulated_tokens + 1_000 > 6_000]
    assert any(r.index not in firsts for r in over)  # mid-turn requests stay over, unchecked


@pytest.mark.parametrize(("turns", "kept_from"), [(3, 1), (4, 2), (5, 2)])
def test_force_compression_cuts_at_turns_len_over_2_without_the_current_message(
    turns: int, kept_from: int
) -> None:
    """History of ``turns`` turns before the current user message: ``turns[len/2]``."""
    history = _chat_turns(turns)
    assert force_compression_range(history) == (0, history.turn_starts[kept_from] - 1)
    assert kept_from == turns // 2


def test_replay_cuts_the_history_before_the_turns_user_message() -> None:
    session = _chat_turns(4)  # turn starts 0, 2, 4, 6; the check before turn 3 sees 3 turns
    tokens = [300, 300, 300, 300, 300, 300, 1_500, 10]  # what goes outweighs the note
    policy = preset("picoclaw", context_window=4_000, max_tokens=1_000)
    result = _walk(session, policy, tokens)
    assert [c.request for c in result.compactions] == [3]
    assert result.segments[-1].start == 2  # turns[3 // 2] = 2 of the history 0..5


def test_force_compression_keeps_a_lone_earlier_user_message() -> None:
    call = ToolCall(id="c", name="bash")
    history = _session(
        Message(role="user", content="only ask"),
        Message(role="assistant", tool_calls=(call,)),
        Message(role="tool", tool_call_id="c", tool_name="bash", content="out"),
        Message(role="assistant", content="answer"),
    )
    assert force_compression_range(history) == (1, 3)
    tokens = [TOKENIZER.count_message(m) for m in history.messages]
    policy = preset("picoclaw", context_window=4_000, max_tokens=1_000)
    plan = build_plan(history, policy, _counts(tokens), TOKENIZER)
    done = compact(history, plan, CompactReason.PROACTIVE, TOKENIZER)
    assert [m.content for m in done.session.messages] == ["only ask"]
    assert done.session.meta.summary == (
        "[Emergency compression dropped 3 oldest messages due to context limit]"
    )


def _calls(*ids: str) -> Message:
    return Message(role="assistant", tool_calls=tuple(ToolCall(id=i, name="t") for i in ids))


def _result(call_id: str) -> Message:
    return Message(role="tool", tool_call_id=call_id, tool_name="t", content="r" * 400)


def test_picoclaw_sends_what_its_sanitizers_second_pass_keeps() -> None:
    """``TestSanitizeHistoryForProvider_PartialToolResultsInMiddle`` (``context_test.go``): the
    call to B and C has only B's result in its block, so the call and that result go."""
    session = _session(
        Message(role="user", content="first"),
        _calls("A"),
        _result("A"),
        Message(role="assistant", content="done"),
        Message(role="user", content="second"),
        _calls("B", "C"),
        _result("B"),
        Message(role="user", content="third"),
        _calls("D"),
        _result("D"),
        Message(role="assistant", content="all done"),
    )
    tokens = [TOKENIZER.count_message(m) for m in session.messages]
    policy = preset("picoclaw", context_window=100_000, max_tokens=1_000)
    plan = build_plan(session, policy, _counts(tokens), TOKENIZER)
    assert plan.excluded == frozenset({5, 6})
    assert plan.totals.kept + plan.totals.tail == sum(tokens) - tokens[5] - tokens[6]
    assert not plan.unpaired
    assert any("drops 2 message(s)" in w and "(#5, #6)" in w for w in plan.warnings)


def test_picoclaw_drops_duplicate_results_in_a_block() -> None:
    """``TestSanitizeHistoryForProvider_DuplicateToolResults``: the second A and B go."""
    session = _session(
        Message(role="user", content="do something"),
        _calls("A", "B"),
        _result("A"),
        _result("B"),
        _result("A"),
        _result("B"),
        Message(role="assistant", content="done"),
    )
    tokens = [TOKENIZER.count_message(m) for m in session.messages]
    plan = build_plan(session, preset("picoclaw"), _counts(tokens), TOKENIZER)
    assert plan.excluded == frozenset({4, 5})


def test_seahorse_compacts_a_leaf_after_every_turn() -> None:
    session = _chat_turns(12, calls=4)  # 8 messages a turn: past 32 items after 4 turns
    tokens = [50] * len(session)
    policy = preset("picoclaw-seahorse")  # a 131,072 window: the trigger never fires
    assert max(r.simulated_tokens for r in _walk(session, policy, tokens).requests) < 10_000
    result = _walk(session, policy, tokens)
    assert result.compactions
    assert all(c.tokens_before < (policy.trigger or 0) for c in result.compactions)
    starts = set(session.turn_starts)
    for c in result.compactions:
        stop = result.requests[c.request].message_index
        assert stop - 1 in starts  # the first call of a turn: the pass after the turn before


# -- the reserve ------------------------------------------------------------------------


def test_a_reserve_the_user_typed_is_not_called_lowered() -> None:
    session = _session(Message(role="user", content="hi"))
    typed = policy_for_session("plan", session, {"context_window": 32_768, "max_tokens": 8_192})
    plan = build_plan(session, typed, _counts([3]), TOKENIZER)
    assert not any("lowered" in w for w in plan.warnings)
    fitted = policy_for_session("plan", session, {"context_window": 32_768})
    assert (fitted.max_tokens, fitted.reserve_lowered_from) == (8_192, 32_768)
    plan = build_plan(session, fitted, _counts([3]), TOKENIZER)
    assert any("lowered from 32,768 to 8,192" in w for w in plan.warnings)


def test_compare_json_has_a_null_trigger_for_codex_on_an_unknown_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ctxtui.cli.main import main

    path = tmp_path / "c.json"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}))
    assert main(["compare", str(path), "--presets", "codex,plan", "--json"]) == 0
    by = {p["preset"]: p for p in json.loads(capsys.readouterr().out)["presets"]}
    assert by["codex"]["trigger"] is None
    assert by["plan"]["trigger"] == 98_305


def test_picoclaw_budgets_its_unconfigured_window_and_shows_the_registrys_beside() -> None:
    """With no ``context_window`` configured PicoClaw budgets ``max_tokens · 4`` (instance.go)
    and never looks the model up: 131,072 is the window, the registry's 200,000 the
    alternative (a configured ``context_window``)."""
    from ctxtui.core.policies.policy import registry_alternative, window_source_of

    session = _session(Message(role="user", content="hi"), model="claude-sonnet-4-5")
    policy = policy_for_session("picoclaw", session)
    assert (policy.context_window, policy.unconfigured_window) == (131_072, 131_072)
    assert window_source_of(policy, session).value == "preset"
    assert registry_alternative(policy, session) == {"window_registry": 200_000}
    assert policy_for_session("picoclaw", session, {"max_tokens": 8_192}).context_window == 32_768
    configured = policy_for_session("picoclaw", session, {"context_window": 200_000})
    assert configured.context_window == 200_000
    plan_policy = policy_for_session("plan", session)
    assert plan_policy.unconfigured_window is None and plan_policy.context_window == 200_000
    assert registry_alternative(plan_policy, session) == {}


# -- Claude Code's harness cap -----------------------------------------------------------


def test_claude_code_caps_a_bash_output_at_30000_characters() -> None:
    """``BASH_MAX_OUTPUT_LENGTH`` (default 30,000; middle-truncated, anthropics/claude-code
    #19901): a Bash output over it reaches the model as its two ends; a Read output does not."""
    from ctxtui.core.planning.truncated_previews import truncated_outputs
    from ctxtui.core.planning.truncation import harness_cap

    big = "\n".join(f"line {k:06d}" for k in range(4_000))  # 47,999 characters
    session = _session(
        Message(role="user", content="run it"),
        _calls("A", "B"),
        Message(role="tool", tool_call_id="A", tool_name="Bash", content=big),
        Message(role="tool", tool_call_id="B", tool_name="Read", content=big),
        Message(role="assistant", content="done"),
    )
    tokens = [TOKENIZER.count_message(m) for m in session.messages]
    policy = preset("claude-code", tokenizer="plan")
    cut = truncated_outputs(session, _counts(tokens), TOKENIZER, policy)
    assert set(cut) == {2}
    shown = harness_cap(big, 30_000)
    assert shown is not None and shown.startswith(big[:15_000]) and shown.endswith(big[-15_000:])
    assert cut[2].tokens_after == len(shown) + 1  # the chars tokenizer: the capped text
    assert harness_cap(big[:30_000], 30_000) is None
    from ctxtui.core.session.formats import format_info

    assert format_info("claude-code").output_cap == (policy.truncate_max_bytes, frozenset({"Bash"}))


def test_opencode_estimates_an_image_as_its_data_url_over_four() -> None:
    """``Token.estimate(JSON.stringify(modelMessages))``: an image is a ``file`` part whose
    ``data`` is the part's ``data:`` URL (OpenCode's ``toModelMessages`` keeps ``url``; the AI
    SDK's ``convertToModelMessages`` copies it into ``data``), so a 9,000-byte PNG adds its
    12,000 base64 characters, the 22 of ``data:image/png;base64,`` and the part's keys."""
    from ctxtui.core.session.models import ContentPart, PartKind
    from ctxtui.core.tokens.tokenizers.opencode import OpenCodeTokenizer

    image = ContentPart(kind=PartKind.IMAGE, media_type="image/png", byte_size=9_000)
    bare = Message(role="user", content="look")
    with_image = bare.model_copy(update={"parts": (image,)})
    tokenizer = OpenCodeTokenizer()
    added = tokenizer.count_message(with_image) - tokenizer.count_message(bare)
    part = '{"type":"file","mediaType":"image/png","data":"data:image/png;base64,' + 12_000 * "x"
    assert added == (len(part + '"},') + 2) // 4  # the part, its closing and the comma before
