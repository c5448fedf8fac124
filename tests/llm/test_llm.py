"""The LLM summariser against a real HTTP server on 127.0.0.1 (no mocks of the client)."""

from __future__ import annotations

import threading

import pytest

from ctxtui.core.compacting.leaf_calls import LeafCalls
from ctxtui.core.session.models import Message, Session
from ctxtui.core.summaries.summary import SUMMARY_TEMPLATE
from ctxtui.llm.client import (
    Endpoint,
    Hooks,
    missing_sections,
    resolve_endpoint,
    summarize,
    summarize_leaves,
    template_headings,
)
from ctxtui.llm.wire import SummarizerError, SummaryCancelledError
from tests.llm.server import SUMMARY, Behaviour, serve

HEADINGS = template_headings(SUMMARY_TEMPLATE)


def _endpoint(url: str, timeout: float = 5.0) -> Endpoint:
    return Endpoint(url, "m", None, timeout)


def test_a_streamed_summary_arrives_in_pieces_with_its_usage() -> None:
    pieces: list[str] = []
    with serve() as (url, behaviour):
        result = summarize(
            _endpoint(url), lambda i, prev: "PROMPT", 1, HEADINGS, Hooks(on_delta=pieces.append)
        )
    assert result.text == SUMMARY.strip()
    assert len(pieces) > 3 and "".join(pieces) == SUMMARY
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (100, 40)
    assert result.model == "served-model"
    assert result.missing_sections == ()
    (request,) = behaviour.requests
    assert request["model"] == "m" and request["stream"] is True
    assert request["messages"] == [{"role": "user", "content": "PROMPT"}]
    assert result.byline == "written by served-model (1 call, 100 in + 40 out tokens)"


def test_a_plain_json_answer_is_accepted_too() -> None:
    with serve(Behaviour(mode="json")) as (url, _):
        result = summarize(_endpoint(url), lambda i, prev: "P", 1, HEADINGS)
    assert result.text == SUMMARY.strip() and result.usage.completion_tokens == 40


def test_leaf_calls_run_in_order_each_given_the_previous_summary() -> None:
    seen: list[tuple[int, str]] = []
    progress: list[tuple[int, int]] = []

    def prompt_for(i: int, previous: str) -> str:
        seen.append((i, previous))
        return f"call {i}"

    with serve() as (url, behaviour):
        result = summarize(
            _endpoint(url),
            prompt_for,
            3,
            HEADINGS,
            Hooks(on_progress=lambda d, t: progress.append((d, t))),
        )
    assert [i for i, _ in seen] == [0, 1, 2]
    assert seen[0][1] == "" and seen[1][1] == SUMMARY.strip()
    assert [r["messages"][0]["content"] for r in behaviour.requests] == [
        "call 0",
        "call 1",
        "call 2",
    ]
    assert progress == [(0, 3), (1, 3), (2, 3), (3, 3)]
    assert result.calls == 3 and result.usage.prompt_tokens == 300


def test_missing_template_sections_are_named() -> None:
    with serve(Behaviour(text="## Goal\nonly a goal\n")) as (url, _):
        result = summarize(_endpoint(url), lambda i, prev: "P", 1, HEADINGS)
    assert "## Goal" not in result.missing_sections
    assert "## Next Steps" in result.missing_sections
    assert missing_sections("## Goal\n## Next Steps", ["## Goal", "## Next Steps"]) == ()


@pytest.mark.parametrize("structured", [True, False])
def test_leaf_calls_are_sent_in_order_and_checked_against_the_template_if_structured(
    structured: bool,
) -> None:
    session = Session(
        messages=(Message(role="user", content="first"), Message(role="user", content="second"))
    )
    calls = LeafCalls(session, ((0, 0), (1, 1)), (100, 100), structured)
    with serve(Behaviour(text="## Goal\nFix it.\n")) as (url, behaviour):
        result = summarize_leaves(_endpoint(url), calls)
    sent = [r["messages"][0]["content"] for r in behaviour.requests]
    assert sent == [calls.prompt(0), calls.prompt(1, "## Goal\nFix it.")]
    assert result.calls == 2
    assert ("## Next Steps" in result.missing_sections) is structured


@pytest.mark.parametrize("status", [400, 401, 404])
def test_a_refusal_is_one_line_and_not_retried(status: int) -> None:
    with (
        serve(Behaviour(mode="status", status=status)) as (url, behaviour),
        pytest.raises(
            SummarizerError, match=rf"^the endpoint refused the request: HTTP {status} \(refused"
        ) as err,
    ):
        summarize(_endpoint(url), lambda i, prev: "P", 1)
    assert "\n" not in str(err.value)
    assert len(behaviour.requests) == 1


def test_a_server_error_is_retried_once() -> None:
    with serve(Behaviour(script=["status"], status=503)) as (url, behaviour):
        result = summarize(_endpoint(url), lambda i, prev: "P", 1)
    assert result.text == SUMMARY.strip() and len(behaviour.requests) == 2


def test_two_server_errors_give_up_saying_so() -> None:
    with (
        serve(Behaviour(mode="status", status=500)) as (url, behaviour),
        pytest.raises(SummarizerError, match=r"HTTP 500.*tried twice"),
    ):
        summarize(_endpoint(url), lambda i, prev: "P", 1)
    assert len(behaviour.requests) == 2


def test_a_stalled_stream_times_out() -> None:
    """Two tries of 0.3 s, given up while the server still stalls (60 s): judged by what the
    server saw, not by a clock a loaded machine would stretch."""
    behaviour = Behaviour(mode="stall", stall_seconds=60)
    with (
        serve(behaviour) as (url, _),
        pytest.raises(
            SummarizerError, match=r"no answer from http://127\.0\.0\.1:\d+/v1 within 0\.3 s"
        ),
    ):
        try:
            summarize(_endpoint(url, timeout=0.3), lambda i, prev: "P", 1)
        finally:
            assert not behaviour.stall_over.is_set(), "the client waited the stall out"
    assert len(behaviour.requests) == 2


def test_a_stream_that_stalls_after_text_is_not_retried() -> None:
    with (
        serve(Behaviour(mode="stall-mid", stall_seconds=2)) as (url, behaviour),
        pytest.raises(SummarizerError, match=r"within 0\.3 s"),
    ):
        summarize(_endpoint(url, timeout=0.3), lambda i, prev: "P", 1)
    assert len(behaviour.requests) == 1  # a retry would stream the same text twice


def test_bad_json_in_the_stream_is_one_line() -> None:
    with (
        serve(Behaviour(mode="badjson")) as (url, _),
        pytest.raises(SummarizerError, match="not JSON"),
    ):
        summarize(_endpoint(url), lambda i, prev: "P", 1)


def test_an_answer_its_content_encoding_does_not_decode_is_one_line() -> None:
    """httpx raises DecodingError, which is not a transport error: it escaped as a bug."""
    with (
        serve(Behaviour(mode="badgzip")) as (url, behaviour),
        pytest.raises(SummarizerError, match="the endpoint's answer could not be decoded: "),
    ):
        summarize(_endpoint(url), lambda i, prev: "P", 1)
    assert len(behaviour.requests) == 1


def test_nobody_listening_is_one_line() -> None:
    with serve() as (url, _):
        dead = url
    with pytest.raises(SummarizerError, match=r"^cannot reach http://127\.0\.0\.1.*tried twice"):
        summarize(_endpoint(dead, timeout=1), lambda i, prev: "P", 1)


def test_cancelling_stops_the_stream() -> None:
    stop = threading.Event()
    with serve() as (url, _), pytest.raises(SummaryCancelledError):
        summarize(
            _endpoint(url),
            lambda i, prev: "P",
            1,
            hooks=Hooks(on_delta=lambda _text: stop.set(), should_stop=stop.is_set),
        )


def test_the_key_is_sent_as_a_bearer_token() -> None:
    with serve() as (url, behaviour):
        summarize(Endpoint(url, "m", "sk-test"), lambda i, prev: "P", 1)
    assert behaviour.headers[0]["Authorization"] == "Bearer sk-test"


def test_endpoint_needs_a_key_except_on_loopback() -> None:
    local = resolve_endpoint(base_url="http://127.0.0.1:9/v1", model="m", env={})
    assert local.api_key is None
    with pytest.raises(SummarizerError, match=r"no API key .*OPENAI_API_KEY"):
        resolve_endpoint(base_url=None, model="gpt-5", env={})
    remote = resolve_endpoint(base_url=None, model="gpt-5", env={"OPENAI_API_KEY": "k"})
    assert (remote.url, remote.api_key) == ("https://api.openai.com/v1/chat/completions", "k")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"base_url": "ftp://x", "model": "m"}, "expected an http"),
        ({"base_url": "http://127.0.0.1/v1", "model": None}, "--llm-model"),
        ({"base_url": "http://127.0.0.1/v1", "model": "m", "timeout": 0}, "--llm-timeout"),
        ({"base_url": "http://127.0.0.1/v1", "model": "m", "timeout": 1e9}, "--llm-timeout"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(SummarizerError, match=message):
        resolve_endpoint(env={}, **kwargs)  # type: ignore[arg-type]
