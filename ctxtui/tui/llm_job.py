"""The compaction preview's LLM summary: who to ask, and the worker that asks.

``endpoint_for`` turns the app's ``llm`` settings (its flags over the config file) into an
``ctxtui.llm.client.Endpoint``, or refuses in one line that says how to set one up. ``summarize``
runs in a thread worker: it sends the compaction's leaf calls in order and only posts
messages (each streamed piece, which call is running, the result or the one-line failure),
each stamped with the request's ``ticket`` so answers to a cancelled request are ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from textual.message import Message
from textual.worker import get_current_worker

from ctxtui.core.compacting.leaf_calls import LeafCalls
from ctxtui.llm.client import (
    Endpoint,
    Hooks,
    LLMSummary,
    resolve_endpoint,
    summarize_leaves,
)
from ctxtui.llm.wire import Stop, SummarizerError
from ctxtui.tui.jobs import bug_line
from ctxtui.tui.settings import LLMSettings


def how_to_set_up(settings: LLMSettings) -> str:
    """One line on setting an LLM up: the flags, or the entry and the config file it goes in."""
    return (
        "No LLM set up: start ctxtui with --summarizer openai --llm-model NAME "
        "(--llm-base-url URL for another endpoint), or put "
        f'"llm": {{"summarizer": "openai", "model": NAME}} in {settings.config_path}; '
        "the key comes from OPENAI_API_KEY"
    )


def endpoint_for(settings: LLMSettings, env: Mapping[str, str]) -> Endpoint:
    """The endpoint the settings name; ``SummarizerError`` (one line) when there is none."""
    if settings.summarizer != "openai":
        raise SummarizerError(how_to_set_up(settings))
    return resolve_endpoint(
        base_url=settings.base_url,
        model=settings.model,
        timeout=settings.timeout,
        env=env,
        allow_http=settings.allow_http,
    )


@dataclass
class SummaryPiece(Message):
    """More text of the summary being written."""

    ticket: int
    text: str


@dataclass
class SummaryCall(Message):
    """Call ``index`` (from 0) of ``total`` is being sent; each call rewrites the summary."""

    ticket: int
    index: int
    total: int


@dataclass
class SummaryWritten(Message):
    """The model's summary, who wrote it and what it cost."""

    ticket: int
    summary: LLMSummary


@dataclass
class SummaryFailed(Message):
    """The call gave no summary; ``problem`` is one line."""

    ticket: int
    problem: str


Post = Callable[[Message], object]


def run_summary(
    post: Post, endpoint: Endpoint, calls: LeafCalls, ticket: int, stop: Stop | None = None
) -> None:
    """Send every leaf call in order, posting what happens; stops when the worker is cancelled
    or, at once (its socket shut), when ``stop`` is pressed."""
    worker = get_current_worker()
    pressed = stop or Stop()

    def should_stop() -> bool:
        return pressed() or worker.is_cancelled

    def piece(text: str) -> None:
        post(SummaryPiece(ticket, text))

    def progress(done: int, total: int) -> None:
        if done < total:
            post(SummaryCall(ticket, done, total))

    try:
        hooks = Hooks(piece, progress, pressed if stop is not None else should_stop)
        summary = summarize_leaves(endpoint, calls, hooks)
    except SummarizerError as err:
        post(SummaryFailed(ticket, str(err)))
    except Exception as err:  # a bug in the client must not take the app down
        post(SummaryFailed(ticket, bug_line(err)))
    else:
        post(SummaryWritten(ticket, summary))
