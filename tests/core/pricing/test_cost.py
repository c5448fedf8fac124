"""Per-request dollars and cache misses (``core.pricing.cost``, ``core.pricing.prices``): the price
table's own figures, a null cost for a model it lacks, and each miss cause from its evidence
only."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from genai_prices import Usage as PriceUsage
from genai_prices import calc_price
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtui.core.pricing import prices
from ctxtui.core.pricing.cost import MissCause, session_cost, token_usage
from ctxtui.core.pricing.price_source import PRICE_VERSION
from ctxtui.core.pricing.prices import NoPriceError, TokenUsage, table_for
from ctxtui.core.session.models import Message, RecordedCompaction, Session, SessionMeta, Usage
from ctxtui.importers import load_session
from ctxtui.samples import samples_dir

SONNET = "claude-sonnet-4-5"
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def exact_price(
    usage: TokenUsage, model: str, provider: str | None, at: datetime | None
) -> Decimal:
    """The package's own ``calc_price`` total, which the price table must match."""
    when = at or datetime.now(UTC)
    priced = PriceUsage(
        input_tokens=usage.prompt,
        cache_read_tokens=usage.cache_read,
        cache_write_tokens=usage.cache_write,
        cache_write_1h_tokens=usage.cache_write_1h,
        output_tokens=usage.output,
    )
    calc = calc_price(priced, model, provider_id=provider, genai_request_timestamp=when)
    return Decimal(calc.total_price)


@pytest.mark.parametrize(
    ("name", "provider"),
    [("claude_code_replay.jsonl", "anthropic"), ("codex_replay.jsonl", "openai")],
)
def test_every_sample_request_costs_what_the_table_says(name: str, provider: str) -> None:
    session = load_session(samples_dir() / name, full_history=True)
    cost = session_cost(session)
    assert cost.requests_unpriced == 0 and len(cost.priced) == len(cost.requests) > 200
    total = Decimal(0)
    for r in cost.requests:
        assert r.usage is not None and r.priced is not None and r.model is not None
        assert r.priced.total == exact_price(r.usage, r.model, provider, r.sent_at)
        parts = r.priced.input + r.priced.cache_write + r.priced.cache_read + r.priced.output
        assert parts == r.priced.total
        total += r.priced.total
    assert cost.total == total


@given(
    prompt=st.integers(0, 1_200_000),
    read=st.integers(0, 1_200_000),
    write_5m=st.integers(0, 400_000),
    write_1h=st.integers(0, 400_000),
    output=st.integers(0, 200_000),
    model=st.sampled_from(
        [("claude-sonnet-4-5", "anthropic"), ("gpt-5-codex", "openai"), ("gpt-4o", "openai")]
    ),
)
@settings(max_examples=300, deadline=None)
def test_a_price_is_the_packages_own_sum_at_every_tier(
    prompt: int, read: int, write_5m: int, write_1h: int, output: int, model: tuple[str, str]
) -> None:
    """ctxtui prices by per-token rates (thirty times quicker); across the prompt-size tiers
    (Sonnet's above 200k) the total is still exactly ``calc_price``'s."""
    read = min(read, prompt)
    write_5m = min(write_5m, prompt - read)
    write_1h = min(write_1h, prompt - read - write_5m)
    usage = TokenUsage(prompt, read, write_5m, write_1h, output)
    name, provider = model
    assert table_for(name, provider, START).price(usage).total == exact_price(
        usage, name, provider, START
    )


def test_rates_kept_per_tier_change_exactly_where_the_package_changes_tier() -> None:
    """A table keeps one set of rates per tier; a prompt at a tier's start and one token past
    it are priced as ``calc_price`` prices them, in either order of first use."""
    for prompts in ((199_999, 200_000, 200_001, 5), (200_001, 200_000, 5, 199_999)):
        prices._table.cache_clear()  # a fresh table: its rates computed in this order
        for prompt in prompts:
            usage = TokenUsage(prompt, cache_read=prompt // 2, output=1_000)
            assert table_for(SONNET, "anthropic", START).price(usage).total == exact_price(
                usage, SONNET, "anthropic", START
            )


def test_sonnet_prices_the_one_hour_write_above_the_five_minute_one() -> None:
    table = table_for(SONNET, "anthropic", START)
    five = table.price(TokenUsage(prompt=10_000, cache_write_5m=10_000))
    hour = table.price(TokenUsage(prompt=10_000, cache_write_1h=10_000))
    read = table.price(TokenUsage(prompt=10_000, cache_read=10_000))
    plain = table.price(TokenUsage(prompt=10_000))
    assert read.total < plain.total < five.total < hour.total
    assert five.cache_write == five.total and hour.input == 0


def test_a_model_without_a_price_is_named_and_costs_null() -> None:
    with pytest.raises(NoPriceError):
        table_for("claude-nonexistent-9", "anthropic", START)
    session = _session([_reply(1000, 0, model="claude-nonexistent-9")])
    cost = session_cost(session)
    assert cost.requests[0].cost is None and cost.requests_unpriced == 1
    assert cost.total == 0
    assert any("no price for model claude-nonexistent-9" in w for w in cost.warnings())


def test_no_near_name_is_tried() -> None:
    """A prefix of a real model id is not a model: nothing is fuzzy-matched."""
    with pytest.raises(NoPriceError):
        table_for("claude-sonnet", "anthropic", START)


def test_usage_is_read_with_the_one_hour_part() -> None:
    usage = token_usage(Usage(prompt_total=100, cached_read=40, cache_write=50, cache_write_1h=30))
    assert usage == TokenUsage(prompt=100, cache_read=40, cache_write_5m=20, cache_write_1h=30)
    assert usage.uncached == 10


def test_price_source_names_the_package_and_version() -> None:
    cost = session_cost(_session([_reply(1000, 0)]))
    assert cost.price_source.startswith(f"genai-prices {PRICE_VERSION}")


# --- miss causes: each from a session holding exactly that evidence ---------------------------


def _reply(
    prompt: int,
    read: int,
    *,
    at: int = 0,
    model: str = SONNET,
    write_1h: bool = False,
) -> Message:
    write = prompt - read
    return Message(
        role="assistant",
        content="ok",
        model=model,
        created_at=START + timedelta(seconds=at),
        usage=Usage(
            prompt_total=prompt,
            cached_read=read,
            cache_write=write,
            cache_write_1h=write if write_1h else 0,
            output=10,
        ),
    )


def _session(
    replies: list[Message], compaction_before: int | None = None, summary_before: int | None = None
) -> Session:
    messages: list[Message] = []
    recorded = []
    for k, reply in enumerate(replies):
        if k == compaction_before:
            recorded.append(RecordedCompaction(message_index=len(messages)))
        summary = k == summary_before
        at = reply.created_at
        messages.append(Message(role="user", content=f"q{k}", created_at=at, is_summary=summary))
        messages.append(reply)
    meta = SessionMeta(format="claude-code", recorded_compactions=tuple(recorded))
    return Session(messages=tuple(messages), meta=meta)


def _causes(session: Session) -> list[MissCause | None]:
    return [r.miss.cause if r.miss else None for r in session_cost(session).requests]


def test_a_warm_session_has_no_miss() -> None:
    replies = [_reply(10_000, 9_000, at=0), _reply(11_000, 10_000, at=30)]
    assert _causes(_session(replies)) == [None, None]


def test_first_request() -> None:
    assert _causes(_session([_reply(10_000, 0)])) == [MissCause.FIRST_REQUEST]


def test_ttl_expired_after_six_minutes() -> None:
    replies = [_reply(10_000, 9_500, at=0), _reply(11_000, 2_000, at=6 * 60)]
    assert _causes(_session(replies)) == [None, MissCause.TTL_EXPIRED]


def test_a_one_hour_write_outlives_six_minutes_but_not_an_hour() -> None:
    short = [_reply(10_000, 9_000, write_1h=True), _reply(11_000, 2_000, at=6 * 60)]
    assert _causes(_session(short)) == [None, MissCause.UNKNOWN]
    long = [_reply(10_000, 9_000, write_1h=True), _reply(11_000, 2_000, at=61 * 60)]
    assert _causes(_session(long)) == [None, MissCause.TTL_EXPIRED]


def _two_lifetimes(prompt: int, read: int, hour: int, *, at: int = 0) -> Message:
    """A reply that wrote ``hour`` tokens with the 1-hour lifetime after its read, the rest
    of its prompt with 5 minutes."""
    return Message(
        role="assistant",
        content="ok",
        model=SONNET,
        created_at=START + timedelta(seconds=at),
        usage=Usage(
            prompt_total=prompt,
            cached_read=read,
            cache_write=prompt - read,
            cache_write_1h=hour,
            output=10,
        ),
    )


def test_each_part_of_a_write_expires_after_its_own_lifetime() -> None:
    """1-hour writes up to 12,000 and 5-minute ones to 20,000: after 20 minutes the request
    reads exactly the 1-hour part, and the 5-minute part's lifetime explains the miss."""
    before = _two_lifetimes(20_000, 9_000, 3_000)
    after = _two_lifetimes(21_000, 12_000, 0, at=20 * 60)
    assert _causes(_session([before, after]))[1] == MissCause.TTL_EXPIRED
    # within 5 minutes both parts live: the same read has no lifetime to blame
    soon = _two_lifetimes(21_000, 12_000, 0, at=4 * 60)
    assert _causes(_session([before, soon]))[1] == MissCause.UNKNOWN
    # a 1-hour part big enough for a hit on its own: an expired tail explains no miss
    mostly = _two_lifetimes(20_000, 9_000, 10_000)
    assert _causes(_session([mostly, after]))[1] == MissCause.UNKNOWN


def test_a_later_five_minute_write_keeps_the_one_hour_part_it_read() -> None:
    replies = [
        _two_lifetimes(20_000, 9_000, 3_000),
        _two_lifetimes(21_000, 20_000, 0, at=30),  # 5-minute writes only, the prefix read
        _two_lifetimes(22_000, 12_000, 0, at=30 + 10 * 60),
    ]
    assert _causes(_session(replies))[1:] == [None, MissCause.TTL_EXPIRED]


class _PrefixCache:
    """A provider's prefix cache as the API documents it: an entry per breakpoint, each with
    its own lifetime, refreshed when read; a request reads the longest live entry."""

    def __init__(self) -> None:
        self.entries: dict[int, tuple[datetime, timedelta]] = {}

    def request(self, at: datetime, hour_mark: int, end: int) -> tuple[int, int, int]:
        """Read, 1-hour write and 5-minute write for a prompt of ``end`` tokens whose 1-hour
        breakpoint is at ``hour_mark``."""
        live = {p: e for p, e in self.entries.items() if e[0] >= at and p <= end}
        read = max(live, default=0)
        self.entries = {p: (at + ttl, ttl) for p, (_, ttl) in live.items()}
        hour = max(0, hour_mark - read)
        if hour_mark > read:
            self.entries[hour_mark] = (at + timedelta(hours=1), timedelta(hours=1))
        self.entries[end] = (at + timedelta(minutes=5), timedelta(minutes=5))
        return read, hour, end - read - hour


def _like_claude_code(seed: int) -> Session:
    """A session shaped like a real Claude Code one: the system prompt and each finished turn
    cached for an hour, the turn in progress for 5 minutes; quick tool calls, pauses while a
    sub-agent works (2–9 minutes) or the user is away (5–50 minutes, now and then longer)."""
    import random

    rng = random.Random(seed)
    cache = _PrefixCache()
    clock, size, hour_mark = START, 14_000, 14_000
    messages: list[Message] = []
    for _ in range(30):  # turns
        hour_mark = size  # the turn's history, up to the user's new message, for an hour
        for _ in range(rng.randint(1, 6)):  # requests in the turn
            size += rng.randint(300, 3_000) if rng.random() < 0.8 else rng.randint(5_000, 20_000)
            read, hour, _ = cache.request(clock, hour_mark, size)
            messages.append(Message(role="user", content="q", created_at=clock))
            messages.append(
                Message(
                    role="assistant",
                    content="ok",
                    model=SONNET,
                    created_at=clock,
                    usage=Usage(
                        prompt_total=size,
                        cached_read=read,
                        cache_write=size - read,
                        cache_write_1h=hour,
                        output=50,
                    ),
                )
            )
            clock += timedelta(seconds=rng.randint(3, 40))
            if rng.random() < 0.1:
                clock += timedelta(seconds=rng.randint(120, 540))  # a sub-agent runs
        clock += timedelta(seconds=rng.choice([20, 60, 336, 900, 1_500, 2_790, 4_000]))
    return Session(messages=tuple(messages), meta=SessionMeta(format="claude-code"))


@pytest.mark.parametrize("seed", range(8))
def test_a_session_like_claude_codes_has_no_unknown_miss_a_lifetime_explains(seed: int) -> None:
    """Every miss of this cache comes from a lifetime (the prefix is only appended to), and
    every one is said to: none ``unknown`` (the whole write judged by 1 hour left several)."""
    causes = _causes(_like_claude_code(seed))
    assert MissCause.TTL_EXPIRED in causes
    assert set(causes) <= {None, MissCause.FIRST_REQUEST, MissCause.TTL_EXPIRED}


def test_model_changed() -> None:
    replies = [_reply(10_000, 9_500), _reply(11_000, 0, at=30, model="claude-opus-4-5")]
    assert _causes(_session(replies)) == [None, MissCause.MODEL_CHANGED]


def test_compaction_recorded_by_the_agent() -> None:
    replies = [_reply(10_000, 9_500), _reply(12_000, 3_000, at=30)]
    assert _causes(_session(replies, compaction_before=1)) == [None, MissCause.COMPACTION]


def test_compaction_seen_as_a_summary_in_the_history() -> None:
    replies = [_reply(10_000, 9_500), _reply(12_000, 3_000, at=30)]
    assert _causes(_session(replies, summary_before=1)) == [None, MissCause.COMPACTION]


def test_a_summary_before_unpriced_requests_still_explains_the_next_miss() -> None:
    unpriced = Message(role="assistant", content="ok", created_at=START + timedelta(seconds=10))
    replies = [_reply(10_000, 9_500), unpriced, unpriced, _reply(12_000, 3_000, at=30)]
    assert _causes(_session(replies, summary_before=1))[3] == MissCause.COMPACTION
    assert _causes(_session(replies, summary_before=2))[3] == MissCause.COMPACTION
    assert _causes(_session(replies))[3] == MissCause.UNKNOWN


class _CountedReads(tuple[Message, ...]):
    reads = 0

    def __getitem__(self, key: Any) -> Any:
        type(self).reads += 1
        return super().__getitem__(key)


def test_requests_without_usage_are_scanned_once_not_from_the_start_each_time() -> None:
    """A session that records no usage (every request unpriced) costs a look at each message,
    not one per message per request: 20,000 such messages took half a minute in the app."""
    n = 4_000
    plain = _session([Message(role="assistant", content="ok") for _ in range(n // 2)])
    messages = _CountedReads(plain.messages)
    session = Session.model_construct(
        messages=messages, system_prompt=None, tools=(), meta=plain.meta
    )
    _CountedReads.reads = 0
    cost = session_cost(session, points=tuple(range(1, n, 2)))
    assert len(cost.requests) == n // 2 and cost.requests_with_usage == 0
    assert _CountedReads.reads < 4 * n


def test_prefix_changed_when_the_prompt_shrank_without_a_compaction() -> None:
    replies = [_reply(10_000, 9_500), _reply(8_000, 3_000, at=30)]
    assert _causes(_session(replies)) == [None, MissCause.PREFIX_CHANGED]


def test_no_evidence_is_unknown_never_a_guess() -> None:
    replies = [_reply(10_000, 9_500), _reply(11_000, 3_000, at=30)]
    assert _causes(_session(replies)) == [None, MissCause.UNKNOWN]


def test_a_miss_says_what_it_rewrote_and_what_that_cost() -> None:
    replies = [_reply(10_000, 9_500), _reply(11_000, 3_000, at=6 * 60)]
    miss = session_cost(_session(replies)).requests[1].miss
    assert miss is not None and miss.tokens_rewritten == 7_000
    table = table_for(SONNET, "anthropic", START)
    rates = table.rates(11_000)
    assert miss.extra_cost == 7_000 * (rates.cache_write_5m - rates.cache_read)
