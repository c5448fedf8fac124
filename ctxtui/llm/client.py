"""A real LLM summary, optional: send the compaction prompt to an OpenAI-compatible endpoint.

The preview's summary is a local, deterministic stand-in; this module sends the exact prompt the
preview shows to any chat-completions endpoint (OpenAI, OpenRouter, Ollama, vLLM, llama.cpp's
server, LM Studio) and streams the answer back. It lives outside ``ctxtui.core`` because it does
network I/O; both shells call it from a worker thread.

Rules that make it safe to leave on: one request at a time; ``timeout`` bounds each attempt as a
whole, name lookup included (a watchdog shuts the socket at the deadline, so a server dripping a
byte at a time cannot stretch it), and a call with its one retry ends within twice the timeout;
the retry happens only before any text arrived (so it never duplicates streamed text); at most
``MAX_ANSWER_BYTES`` are read, before and after decoding (a summary is a few KB; a gzip bomb or
an endless body is refused); a ``Stop`` pressed in another thread shuts the socket at once; a
key never travels in clear text to another machine unless asked; every failure is a
``SummarizerError`` whose text is one line, with control characters shown, never acted on, and
no URL credentials. A summary that needs several leaf calls runs them in order, each given the
previous call's summary as its previous context, so the last answer covers the whole range.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import SplitResult, urlsplit

from ctxtui.core.errors import StopCheck
from ctxtui.core.literal import visible
from ctxtui.core.summaries.summary import SUMMARY_TEMPLATE
from ctxtui.llm.wire import (
    MAX_ANSWER_BYTES,
    SummarizerError,
    SummaryCancelledError,
    Watchdog,
    capped_body,
    error_body,
    lines_of,
    one_line,
    read_capped,
    shown_url,
)

if TYPE_CHECKING:
    from ctxtui.core.compacting.leaf_calls import LeafCalls

__all__ = [
    "CallUsage",
    "Endpoint",
    "Hooks",
    "LLMSummary",
    "complete",
    "resolve_endpoint",
    "summarize",
    "summarize_leaves",
]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 600.0
MAX_SUMMARY_CHARS = 256 * 1024
"""Characters of summary text accepted from one call: a summary is a few KB."""
TEMPERATURE = 0.3
_LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}

Delta = Callable[[str], None]


def _no_text(_text: str) -> None:
    return None


def _no_progress(_done: int, _total: int) -> None:
    return None


def _never() -> bool:
    return False


@dataclass(frozen=True, slots=True)
class Hooks:
    """Who hears a summary while it is written and who may stop it: each piece of text as it
    streams in, each call as it starts (``done, total``), and a check made between pieces."""

    on_delta: Delta = _no_text
    on_progress: Callable[[int, int], None] = _no_progress
    should_stop: StopCheck = _never


QUIET = Hooks()
"""Nobody listens, nothing stops the call but its timeout."""


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where to send the prompt and how long to wait for it."""

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = DEFAULT_TIMEOUT

    @property
    def is_loopback(self) -> bool:
        return (urlsplit(self.base_url).hostname or "") in _LOOPBACK

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    @property
    def shown(self) -> str:
        """The base URL as messages show it (``shown_url``)."""
        return shown_url(self.base_url)


def _checked_url(url: str, source: str) -> SplitResult:
    """The parts of an http(s) base URL, or ``SummarizerError`` naming what is wrong."""
    if any(not c.isprintable() or c.isspace() for c in url):
        raise SummarizerError(
            f"{source}: expected a URL, found spaces or control characters in '{shown_url(url)}'"
        )
    try:
        parts = urlsplit(url)
        _ = parts.port  # a port that is not a number raises here
        host = parts.hostname
    except ValueError as err:
        raise SummarizerError(
            f"{source}: not a valid URL ({visible(str(err))}): '{shown_url(url)}'"
        ) from None
    if parts.scheme not in ("http", "https"):
        raise SummarizerError(f"{source}: expected an http(s) URL, got '{shown_url(url)}'")
    if not host:
        raise SummarizerError(f"{source}: expected a host in the URL, got '{shown_url(url)}'")
    return parts


def resolve_endpoint(
    *,
    base_url: str | None,
    model: str | None,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
    allow_http: bool = False,
) -> Endpoint:
    """The endpoint from flags, then ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``, then defaults.

    A key is required except on a loopback address, where local servers (Ollama, llama.cpp)
    take none, and is sent over plain ``http`` only to loopback or when ``allow_http``: anyone
    on the way could read it.
    """
    env = env or {}
    source = "--llm-base-url" if base_url else "OPENAI_BASE_URL"
    url = base_url or env.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
    parts = _checked_url(url, source)
    if not model:
        raise SummarizerError("--llm-model: name the model that should write the summary")
    wait = DEFAULT_TIMEOUT if timeout is None else timeout
    if not 0 < wait <= MAX_TIMEOUT:
        raise SummarizerError(f"--llm-timeout: expected seconds in (0, {MAX_TIMEOUT:g}]")
    endpoint = Endpoint(url, model, env.get("OPENAI_API_KEY") or None, wait)
    if endpoint.api_key is None and not endpoint.is_loopback:
        raise SummarizerError(
            f"no API key for {shown_url(url)}: set OPENAI_API_KEY (a local server on 127.0.0.1 "
            "needs none)"
        )
    if endpoint.api_key and parts.scheme == "http" and not endpoint.is_loopback and not allow_http:
        raise SummarizerError(
            f"refusing to send OPENAI_API_KEY in clear text to {shown_url(url)}: anyone on the "
            "network between could read it; use https, or --llm-allow-http if you trust it"
        )
    return endpoint


@dataclass(frozen=True, slots=True)
class CallUsage:
    """Tokens the endpoint reported for the calls (0 when it reported none)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __add__(self, other: CallUsage) -> CallUsage:
        return CallUsage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
        )


@dataclass(frozen=True, slots=True)
class LLMSummary:
    """The model's summary, who wrote it, what it cost, and which template sections it lacks."""

    text: str
    model: str
    usage: CallUsage
    calls: int
    missing_sections: tuple[str, ...] = field(default=())

    @property
    def byline(self) -> str:
        tokens = f"{self.usage.prompt_tokens:,} in + {self.usage.completion_tokens:,} out"
        calls = "1 call" if self.calls == 1 else f"{self.calls:,} calls"
        return f"written by {visible(self.model)} ({calls}, {tokens} tokens)"


def template_headings(template: str) -> tuple[str, ...]:
    """The Markdown headings of a summary template, in order (``## Goal``, ...)."""
    return tuple(line.strip() for line in template.splitlines() if line.startswith("#"))


def missing_sections(text: str, headings: Sequence[str]) -> tuple[str, ...]:
    """The template headings the summary does not contain as a line of its own."""
    lines = {line.strip() for line in text.splitlines()}
    return tuple(h for h in headings if h not in lines)


class _RetryableError(SummarizerError):
    """A failure worth one more try: no connection, a timeout, a 429 or a 5xx."""


def _error_detail(body: bytes) -> str:
    try:
        doc = json.loads(body)
    except ValueError:
        doc = None
    err = doc.get("error") if isinstance(doc, dict) else None
    if isinstance(err, dict):
        err = err.get("message")
    return one_line(err if isinstance(err, str) else body.decode("utf-8", "replace"), 120)


def _chunks(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    """The JSON payloads of a server-sent-events stream, until ``[DONE]``."""
    for line in lines:
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            return
        try:
            payload = json.loads(data)
        except (ValueError, RecursionError):
            raise SummarizerError(
                f"the endpoint sent a stream line that is not JSON: '{one_line(data, 60)}'"
            ) from None
        if isinstance(payload, dict):
            yield payload


def _usage(doc: Mapping[str, Any]) -> CallUsage | None:
    usage = doc.get("usage")
    if not isinstance(usage, dict):
        return None
    values = [usage.get("prompt_tokens"), usage.get("completion_tokens")]
    ints = [v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else 0 for v in values]
    return CallUsage(ints[0], ints[1])


def _delta_text(chunk: Mapping[str, Any]) -> str:
    choices = chunk.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return ""
    part = choices[0].get("delta") or choices[0].get("message") or {}
    content = part.get("content") if isinstance(part, dict) else None
    return content if isinstance(content, str) else ""


@dataclass
class _Answer:
    text: list[str] = field(default_factory=list)
    model: str = ""
    usage: CallUsage = field(default_factory=CallUsage)
    chars: int = 0

    def add(self, text: str, on_delta: Delta) -> None:
        """Take a piece of the summary, refusing an answer longer than any summary."""
        self.chars += len(text)
        if self.chars > MAX_SUMMARY_CHARS:
            raise SummarizerError(
                f"the model's answer passed {MAX_SUMMARY_CHARS // 1024:,} KB of text, far more "
                "than a summary: stopped reading"
            )
        self.text.append(text)
        on_delta(text)


def _request_body(endpoint: Endpoint, prompt: str) -> dict[str, Any]:
    return {
        "model": endpoint.model,
        "messages": [{"role": "user", "content": prompt}],
        "temperature": TEMPERATURE,
        "stream": True,
        "stream_options": {"include_usage": True},
    }


def _read_answer(response: Any, answer: _Answer, hooks: Hooks) -> None:
    """Fill ``answer`` from a streamed (or, from servers that ignore ``stream``, plain) reply."""
    if "text/event-stream" not in response.headers.get("content-type", ""):
        try:
            doc = json.loads(read_capped(response, MAX_ANSWER_BYTES, "answer"))
        except (ValueError, RecursionError):
            raise SummarizerError("the endpoint's answer is not JSON") from None
        if not isinstance(doc, dict):
            raise SummarizerError("the endpoint's answer is not a JSON object")
        answer.add(_delta_text(doc), hooks.on_delta)
        model = doc.get("model")
        answer.model = model if isinstance(model, str) and model else answer.model
        answer.usage = _usage(doc) or answer.usage
        return
    for chunk in _chunks(lines_of(capped_body(response, MAX_ANSWER_BYTES))):
        if hooks.should_stop():
            raise SummaryCancelledError("cancelled: the summary call was stopped")
        text = _delta_text(chunk)
        if text:
            answer.add(text, hooks.on_delta)
        if isinstance(chunk.get("model"), str) and chunk["model"]:
            answer.model = chunk["model"]
        answer.usage = _usage(chunk) or answer.usage


@dataclass(frozen=True, slots=True)
class _Call:
    """One chat completion: the client it goes through, where, what it sends, who hears it."""

    client: Any
    endpoint: Endpoint
    prompt: str
    hooks: Hooks


def _call_once(call: _Call, seconds: float) -> _Answer:
    """One attempt, ended by its watchdog whatever it waits for.

    The request runs in a thread of its own, because one wait is out of the watchdog's reach:
    the host name's lookup (``getaddrinfo``) blocks before there is a socket to shut. When the
    watchdog fires, the attempt is over for the caller; a lookup still hanging is left to end
    in its daemon thread, and its socket is shut as soon as it connects.
    """
    endpoint = call.endpoint
    answer = _Answer(model=endpoint.model)
    timed_out = _RetryableError(f"no answer from {endpoint.shown} within {endpoint.timeout:g} s")
    failure: list[BaseException] = []
    done = threading.Event()

    def attempt() -> None:
        try:
            _request(call, watchdog, answer, timed_out)
        except BaseException as exc:  # raised again in the caller's thread
            failure.append(exc)
        finally:
            done.set()

    with Watchdog(seconds, call.hooks.should_stop) as watchdog:
        threading.Thread(target=attempt, name="ctxtui-llm-attempt", daemon=True).start()
        while not done.wait(POLL_SECONDS):
            if watchdog.fired.is_set():
                done.wait(SHUT_GRACE)  # a shut socket's read returns at once
                break
    if not done.is_set():
        _raise_if_fired(watchdog, answer, timed_out)
    if failure:
        raise failure[0]
    return answer


POLL_SECONDS = 0.05
SHUT_GRACE = 0.2
"""Seconds an attempt whose socket was shut gets to return before the caller moves on."""


def _request(call: _Call, watchdog: Watchdog, answer: _Answer, timed_out: _RetryableError) -> None:
    import httpx

    endpoint = call.endpoint
    headers = {"Accept": "text/event-stream", "Accept-Encoding": "gzip, identity"}
    if endpoint.api_key:
        headers["Authorization"] = f"Bearer {endpoint.api_key}"
    where = endpoint.shown
    try:
        with call.client.stream(
            "POST",
            endpoint.url,
            json=_request_body(endpoint, call.prompt),
            headers=headers,
            extensions={"trace": watchdog.trace},
        ) as response:
            if response.status_code >= 400:
                body = error_body(response)
                if endpoint.api_key:  # a server that echoes the key must not get it shown
                    body = body.replace(endpoint.api_key.encode(), b"[the key]")
                detail = _error_detail(body)
                message = f"the endpoint refused the request: HTTP {response.status_code}"
                message += f" ({detail})" if detail else ""
                retry = response.status_code == 429 or response.status_code >= 500
                raise (_RetryableError if retry else SummarizerError)(message)
            _read_answer(response, answer, call.hooks)
    except httpx.TimeoutException:
        raise timed_out from None
    except (httpx.InvalidURL, httpx.UnsupportedProtocol) as err:
        raise SummarizerError(f"cannot call {where}: {one_line(str(err), 80)}") from None
    except httpx.TransportError as err:
        _raise_if_fired(watchdog, answer, timed_out)
        if answer.text:
            raise SummarizerError(f"the stream broke off: {one_line(str(err), 80)}") from None
        reason = one_line(str(err), 80)
        raise _RetryableError(f"cannot reach {where}: {reason}") from None
    # A shut socket can also read as the end of a body that runs until the connection
    # closes (a server-sent-events stream): an answer cut short is still a timeout.
    _raise_if_fired(watchdog, answer, timed_out)


def _raise_if_fired(watchdog: Watchdog, answer: _Answer, timed_out: _RetryableError) -> None:
    if watchdog.reason == "stopped":
        raise SummaryCancelledError("cancelled: the summary call was stopped") from None
    if watchdog.reason == "timeout":
        raise (SummarizerError(str(timed_out)) if answer.text else timed_out) from None


def _client(endpoint: Endpoint) -> Any:
    """A client that keeps no idle connection: each attempt's socket is its own (``Watchdog``)."""
    import httpx

    return httpx.Client(
        timeout=httpx.Timeout(endpoint.timeout),
        limits=httpx.Limits(max_keepalive_connections=0),
    )


def complete(
    endpoint: Endpoint, prompt: str, *, hooks: Hooks = QUIET, client: Any = None
) -> _Answer:
    """One chat completion, streamed; one retry when nothing had arrived yet.

    Each attempt gets ``endpoint.timeout`` seconds, the retry no more than what is left of
    twice that, so the whole call ends within ``2 * timeout``.
    """
    owned = client is None
    client = client or _client(endpoint)
    streamed: list[str] = []
    deadline = time.monotonic() + 2 * endpoint.timeout

    def counting(text: str) -> None:
        streamed.append(text)
        hooks.on_delta(text)

    call = _Call(client, endpoint, prompt, replace(hooks, on_delta=counting))
    try:
        try:
            return _call_once(call, endpoint.timeout)
        except _RetryableError as first:
            left = min(endpoint.timeout, deadline - time.monotonic())
            if streamed or hooks.should_stop() or left <= 0.05:
                raise SummarizerError(str(first)) from None
            try:
                return _call_once(call, left)
            except _RetryableError as second:
                raise SummarizerError(f"{second} (tried twice)") from None
    finally:
        if owned:
            client.close()


def summarize(
    endpoint: Endpoint,
    prompt_for: Callable[[int, str], str],
    calls: int,
    headings: Sequence[str] = (),
    hooks: Hooks = QUIET,
) -> LLMSummary:
    """Run ``calls`` leaf calls in order; ``prompt_for(i, previous)`` builds call ``i``'s prompt.

    ``previous`` is the summary the previous call wrote ("" for the first), so each call folds
    the history so far into its answer and the last answer is the summary of the whole range.
    """
    if calls < 1:
        raise SummarizerError("nothing to summarise: the compaction replaces no message")
    usage, model, previous = CallUsage(), endpoint.model, ""
    with _client(endpoint) as client:
        for i in range(calls):
            hooks.on_progress(i, calls)
            if hooks.should_stop():
                raise SummaryCancelledError("cancelled: the summary call was stopped")
            answer = complete(endpoint, prompt_for(i, previous), hooks=hooks, client=client)
            previous = "".join(answer.text).strip()
            usage, model = usage + answer.usage, answer.model or model
            if not previous:
                raise SummarizerError(f"the model returned an empty summary (call {i + 1})")
    hooks.on_progress(calls, calls)
    return LLMSummary(previous, model, usage, calls, missing_sections(previous, headings))


def summarize_leaves(endpoint: Endpoint, calls: LeafCalls, hooks: Hooks = QUIET) -> LLMSummary:
    """One compaction's leaf calls sent in order; a structured summary is checked against the
    plan's template headings (both shells send them so)."""
    headings = template_headings(SUMMARY_TEMPLATE) if calls.structured else ()
    return summarize(endpoint, calls.prompt, len(calls), headings, hooks)
