"""A real LLM summary, optional: send the compaction prompt to an OpenAI-compatible endpoint.

The preview's summary is a local, deterministic stand-in; this module sends the exact prompt the
preview shows to any chat-completions endpoint (OpenAI, OpenRouter, Ollama, vLLM, llama.cpp's
server, LM Studio) and streams the answer back. It lives outside ``ctxtui.core`` because it does
network I/O; both shells call it from a worker thread.

Rules that make it safe to leave on: one request at a time, a timeout on every read (a stalled
stream fails after ``timeout`` seconds without data), at most one retry and only before any text
arrived (so a retry never duplicates streamed text), cancellation checked between chunks, and
every failure turned into a ``SummarizerError`` whose text is one line. A summary that needs
several leaf calls runs them in order, each given the previous call's summary as its previous
context, so the last answer covers the whole range.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 600.0
TEMPERATURE = 0.3
_LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}

Delta = Callable[[str], None]
StopCheck = Callable[[], bool]


class SummarizerError(Exception):
    """An LLM call that did not give a summary; ``str()`` is one line for the user."""


class SummaryCancelledError(SummarizerError):
    """The user stopped the call."""


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where to send the prompt and how long to wait for it."""

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = DEFAULT_TIMEOUT

    @property
    def is_loopback(self) -> bool:
        return (urlsplit(self.base_url).hostname or "") in _LOOPBACK

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"


def resolve_endpoint(
    *,
    base_url: str | None,
    model: str | None,
    api_key: str | None = None,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
) -> Endpoint:
    """The endpoint from flags, then ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``, then defaults.

    A key is required except on a loopback address, where local servers (Ollama, llama.cpp)
    take none.
    """
    env = env or {}
    url = base_url or env.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
    if urlsplit(url).scheme not in ("http", "https"):
        raise SummarizerError(f"--llm-base-url: expected an http(s) URL, got {url[:80]!r}")
    if not model:
        raise SummarizerError("--llm-model: name the model that should write the summary")
    wait = DEFAULT_TIMEOUT if timeout is None else timeout
    if not 0 < wait <= MAX_TIMEOUT:
        raise SummarizerError(f"--llm-timeout: expected seconds in (0, {MAX_TIMEOUT:g}]")
    endpoint = Endpoint(url, model, api_key or env.get("OPENAI_API_KEY") or None, wait)
    if endpoint.api_key is None and not endpoint.is_loopback:
        raise SummarizerError(
            f"no API key for {url}: set OPENAI_API_KEY (a local server on 127.0.0.1 needs none)"
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
        return f"written by {self.model} ({calls}, {tokens} tokens)"


def template_headings(template: str) -> tuple[str, ...]:
    """The Markdown headings of a summary template, in order (``## Goal``, ...)."""
    return tuple(line.strip() for line in template.splitlines() if line.startswith("#"))


def missing_sections(text: str, headings: Sequence[str]) -> tuple[str, ...]:
    """The template headings the summary does not contain as a line of its own."""
    lines = {line.strip() for line in text.splitlines()}
    return tuple(h for h in headings if h not in lines)


def _one_line(text: str, limit: int = 160) -> str:
    flat = re.sub(r"\s+", " ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


class _RetryableError(SummarizerError):
    """A failure worth one more try: no connection, a timeout, a 429 or a 5xx."""


def _error_detail(body: bytes) -> str:
    try:
        doc = json.loads(body)
    except ValueError:
        return _one_line(body.decode("utf-8", "replace"), 120)
    if isinstance(doc, dict):
        err = doc.get("error")
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            return _one_line(err["message"], 120)
        if isinstance(err, str):
            return _one_line(err, 120)
    return _one_line(body.decode("utf-8", "replace"), 120)


def _chunks(lines: Iterator[str], should_stop: StopCheck) -> Iterator[dict[str, Any]]:
    """The JSON payloads of a server-sent-events stream, until ``[DONE]``."""
    for line in lines:
        if should_stop():
            raise SummaryCancelledError("cancelled: the summary call was stopped")
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            return
        try:
            payload = json.loads(data)
        except ValueError:
            raise SummarizerError(
                f"the endpoint sent a stream line that is not JSON: {_one_line(data, 60)!r}"
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


def _request_body(endpoint: Endpoint, prompt: str) -> dict[str, Any]:
    return {
        "model": endpoint.model,
        "messages": [{"role": "user", "content": prompt}],
        "temperature": TEMPERATURE,
        "stream": True,
        "stream_options": {"include_usage": True},
    }


def _read_answer(response: Any, answer: _Answer, on_delta: Delta, should_stop: StopCheck) -> None:
    """Fill ``answer`` from a streamed (or, from servers that ignore ``stream``, plain) reply."""
    if "text/event-stream" not in response.headers.get("content-type", ""):
        try:
            doc = json.loads(response.read())
        except ValueError:
            raise SummarizerError("the endpoint's answer is not JSON") from None
        if not isinstance(doc, dict):
            raise SummarizerError("the endpoint's answer is not a JSON object")
        text = _delta_text(doc)
        answer.text.append(text)
        on_delta(text)
        model = doc.get("model")
        answer.model = model if isinstance(model, str) and model else answer.model
        answer.usage = _usage(doc) or answer.usage
        return
    for chunk in _chunks(response.iter_lines(), should_stop):
        text = _delta_text(chunk)
        if text:
            answer.text.append(text)
            on_delta(text)
        if isinstance(chunk.get("model"), str) and chunk["model"]:
            answer.model = chunk["model"]
        answer.usage = _usage(chunk) or answer.usage


def _call_once(
    client: Any, endpoint: Endpoint, prompt: str, on_delta: Delta, should_stop: StopCheck
) -> _Answer:
    import httpx

    headers = {"Accept": "text/event-stream"}
    if endpoint.api_key:
        headers["Authorization"] = f"Bearer {endpoint.api_key}"
    answer = _Answer(model=endpoint.model)
    try:
        with client.stream(
            "POST", endpoint.url, json=_request_body(endpoint, prompt), headers=headers
        ) as response:
            if response.status_code >= 400:
                detail = _error_detail(response.read())
                message = f"the endpoint refused the request: HTTP {response.status_code}"
                message += f" ({detail})" if detail else ""
                retry = response.status_code == 429 or response.status_code >= 500
                raise (_RetryableError if retry else SummarizerError)(message)
            _read_answer(response, answer, on_delta, should_stop)
    except httpx.TimeoutException:
        raise _RetryableError(
            f"no answer from {endpoint.base_url} within {endpoint.timeout:g} s"
        ) from None
    except httpx.DecodingError as err:  # a body its Content-Encoding does not decode
        reason = _one_line(str(err), 80)
        raise SummarizerError(f"the endpoint's answer could not be decoded: {reason}") from None
    except httpx.TransportError as err:
        if answer.text:
            raise SummarizerError(f"the stream broke off: {_one_line(str(err), 80)}") from None
        reason = _one_line(str(err), 80)
        raise _RetryableError(f"cannot reach {endpoint.base_url}: {reason}") from None
    return answer


def complete(
    endpoint: Endpoint,
    prompt: str,
    *,
    on_delta: Delta = lambda _text: None,
    should_stop: StopCheck = lambda: False,
    client: Any = None,
) -> _Answer:
    """One chat completion, streamed; one retry when nothing had arrived yet."""
    import httpx

    owned = client is None
    client = client or httpx.Client(timeout=httpx.Timeout(endpoint.timeout))
    streamed: list[str] = []

    def counting(text: str) -> None:
        streamed.append(text)
        on_delta(text)

    try:
        try:
            return _call_once(client, endpoint, prompt, counting, should_stop)
        except _RetryableError as first:
            if streamed or should_stop():
                raise SummarizerError(str(first)) from None
            try:
                return _call_once(client, endpoint, prompt, counting, should_stop)
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
    *,
    on_delta: Delta = lambda _text: None,
    on_progress: Callable[[int, int], None] = lambda _done, _total: None,
    should_stop: StopCheck = lambda: False,
) -> LLMSummary:
    """Run ``calls`` leaf calls in order; ``prompt_for(i, previous)`` builds call ``i``'s prompt.

    ``previous`` is the summary the previous call wrote ("" for the first), so each call folds
    the history so far into its answer and the last answer is the summary of the whole range.
    """
    import httpx

    if calls < 1:
        raise SummarizerError("nothing to summarise: the compaction replaces no message")
    usage, model, previous = CallUsage(), endpoint.model, ""
    with httpx.Client(timeout=httpx.Timeout(endpoint.timeout)) as client:
        for i in range(calls):
            on_progress(i, calls)
            if should_stop():
                raise SummaryCancelledError("cancelled: the summary call was stopped")
            answer = complete(
                endpoint,
                prompt_for(i, previous),
                on_delta=on_delta,
                should_stop=should_stop,
                client=client,
            )
            previous = "".join(answer.text).strip()
            usage, model = usage + answer.usage, answer.model or model
            if not previous:
                raise SummarizerError(f"the model returned an empty summary (call {i + 1})")
    on_progress(calls, calls)
    return LLMSummary(previous, model, usage, calls, missing_sections(previous, headings))
