"""Counting a whole session under one tokenizer, in chunks that report progress and can stop.

Counting is the pipeline's one slow step, so it runs in a worker: it reports
``on_progress(done, total)`` after every chunk and returns ``None`` rather than a partial count
once ``should_stop()`` says so. Given a ``CountStore`` (the shells pass the on-disk one), exact
counts are kept across runs by content hash, so a second open only counts the messages it has
not seen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ctxtui.core.errors import StopCheck
from ctxtui.core.session.models import Message, Session
from ctxtui.core.tokens.count_store import CountStore, message_keys, tokenizer_key
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.core.tokens.tokenizers import (
    PICOCLAW,
    PLAN,
    BatchTokenizer,
    Tokenizer,
    TokenizerInfo,
    resolve,
)
from ctxtui.core.tokens.tokenizers.encodings import quicktok_loaded
from ctxtui.core.tokens.tokenizers.families import FAMILIES
from ctxtui.core.tokens.tokenizers.picoclaw import summary_section

Progress = Callable[[int, int], None]

DEFAULT_CHUNK = 2000
"""Messages per chunk: small enough to stop soon, large enough that progress callbacks (which
post messages to the app) stay rare."""

DRIFT_TIKTOKEN = "tiktoken:cl100k_base"


@dataclass(frozen=True, slots=True)
class Pace:
    """How a counting pass runs: ``chunk`` messages at a time, telling ``on_progress`` after
    each and asking ``should_stop`` before each (``None``: nobody listens, nothing stops it)."""

    on_progress: Progress | None = None
    should_stop: StopCheck | None = None
    chunk: int = DEFAULT_CHUNK


UNWATCHED = Pace()


def _counter(tokenizer: Tokenizer) -> Callable[[Sequence[Message]], list[int]]:
    if isinstance(tokenizer, BatchTokenizer):
        return tokenizer.count_messages
    count = tokenizer.count_message
    return lambda messages: [count(m) for m in messages]


def count_summary(tokenizer: Tokenizer, summary: str | None) -> int:
    """What an out-of-band summary adds to the request: its system-prompt section, if any."""
    return tokenizer.count_text(summary_section(summary)) if summary else 0


def count_session(
    session: Session,
    tokenizer: Tokenizer,
    info: TokenizerInfo,
    pace: Pace = UNWATCHED,
    *,
    cache: CountStore | None = None,
) -> SessionCounts | None:
    """Every message's tokens plus system prompt, tool definitions and carried summary (as the
    text it adds to the system prompt), counted at ``pace``. ``cache``: where counts are kept
    across runs, if any."""
    chunk = pace.chunk
    if chunk < 1:
        raise ValueError(f"chunk must be ≥ 1, got {chunk}")
    stop = pace.should_stop or (lambda: False)
    if stop():
        return None
    system_tokens = tokenizer.count_system(session.system_prompt or "")
    tool_def_tokens = tokenizer.count_tool_defs(session.tools)
    summary_tokens = count_summary(tokenizer, session.meta.summary)

    messages = session.messages
    total = len(messages)
    run = _Pass(_counter(tokenizer), chunk, pace.on_progress, stop)
    store = cache
    if store is not None and not store.wants(tokenizer.name, messages):
        store = None
    message_tokens: list[int] = []
    if store is None:
        for start in range(0, total, chunk):
            if stop():
                return None
            message_tokens.extend(run.count_many(messages[start : start + chunk]))
            run.progress(len(message_tokens), total)
    else:
        result = _count_cached(messages, message_keys(session), tokenizer, store, run)
        if result is None:
            return None
        message_tokens = result
    if stop():
        return None
    return SessionCounts(
        tokenizer=info,
        message_tokens=tuple(message_tokens),
        system_tokens=system_tokens,
        tool_def_tokens=tool_def_tokens,
        summary_tokens=summary_tokens,
    )


@dataclass(frozen=True, slots=True)
class _Pass:
    """How a counting pass goes: the counter, the chunk, who hears progress, what stops it."""

    count_many: Callable[[Sequence[Message]], list[int]]
    chunk: int
    on_progress: Progress | None
    stop: StopCheck

    def progress(self, done: int, total: int) -> None:
        if self.on_progress is not None:
            self.on_progress(done, total)


def _count_cached(
    messages: Sequence[Message],
    hashes: Sequence[bytes],
    tokenizer: Tokenizer,
    store: CountStore,
    run: _Pass,
) -> list[int] | None:
    """The chunked pass, counting only cache misses; new counts are written back once a pass
    completes (a stopped pass writes nothing)."""
    name = tokenizer_key(
        tokenizer.name,
        getattr(tokenizer, "chars_per_token", None),
        getattr(tokenizer, "backend", None),
    )
    known = store.load(name)
    total = len(messages)
    keys: list[bytes] = []
    out: list[int] = []
    missed = 0
    chunk, stop = run.chunk, run.stop
    for start in range(0, total, chunk):
        if stop():
            return None
        part = messages[start : start + chunk]
        part_keys = hashes[start : start + chunk]
        found = [known.get(k) for k in part_keys]
        misses = [i for i, hit in enumerate(found) if hit is None]
        if misses:
            missed += len(misses)
            fresh = run.count_many([part[i] for i in misses])
            for i, n in zip(misses, fresh, strict=True):
                found[i] = n
        keys.extend(part_keys)
        out.extend(n for n in found if n is not None)
        run.progress(len(out), total)
    if missed and not stop():
        store.store(name, zip(keys, out, strict=True), known)
    return out


def count_message_everywhere(message: Message, chars_per_token: float) -> dict[str, int]:
    """One message under the plan, PicoClaw and cl100k, for the detail pane's drift view; a
    tokenizer that could not be had is left out, and cl100k uses tiktoken's bundled copy
    unless ``quicktok`` is loaded already (a shorter hold on the GIL)."""
    out: dict[str, int] = {}
    fast = quicktok_loaded(FAMILIES[DRIFT_TIKTOKEN].quicktok)
    for spec in (PLAN, PICOCLAW, DRIFT_TIKTOKEN):
        tokenizer, info = resolve(spec, chars_per_token=chars_per_token, fast=fast)
        if not info.fell_back:
            out[spec] = tokenizer.count_message(message)
    return out
