"""Dollar prices of recorded token usage, from the offline table ``genai-prices`` ships.

The only module that talks to the price package, and no price is written here: the model id
is looked up as recorded (the package's matching rules, none of ctxtui's), at the price of the
request's date. Its ``input_tokens`` *includes* cached tokens, so a prompt is given whole.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from functools import lru_cache
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:  # the package is imported when a price is first looked up, not before
    from genai_prices.types import ModelPrice

__all__ = ["NoPriceError", "PriceTable", "TokenUsage"]

PER_MTOK = 1_000_000


class NoPriceError(LookupError):
    """The price table has no price for this model (``args[0]`` names it)."""


class TokenUsage(msgspec.Struct, frozen=True):
    """One request's tokens as recorded: ``prompt`` is the whole prompt, cache reads and
    writes included; ``uncached`` is what was neither read from nor written to the cache."""

    prompt: int
    cache_read: int = 0
    cache_write_5m: int = 0
    cache_write_1h: int = 0
    output: int = 0
    reasoning: int = 0

    @property
    def cache_write(self) -> int:
        return self.cache_write_5m + self.cache_write_1h

    @property
    def uncached(self) -> int:
        return max(0, self.prompt - self.cache_read - self.cache_write)


class Priced(msgspec.Struct, frozen=True):
    """A request's price in USD, with its parts (they add up to ``total``)."""

    total: Decimal
    input: Decimal
    cache_write: Decimal
    cache_read: Decimal
    output: Decimal
    model_id: str  # the table's model the recorded id resolved to


@dataclass(frozen=True, slots=True)
class Rates:
    """USD per token of each kind for one model on one date, at one prompt size's tier."""

    input: Decimal
    cache_read: Decimal
    cache_write_5m: Decimal
    cache_write_1h: Decimal
    output: Decimal

    def of(self, usage: TokenUsage) -> Decimal:
        return (
            self.input * usage.uncached
            + self.cache_read * usage.cache_read
            + self.cache_write_5m * usage.cache_write_5m
            + self.cache_write_1h * usage.cache_write_1h
            + self.output * usage.output
        )


_RATE_KEYS = {
    "input": ("input_mtok",),
    "cache_read": ("cache_read_mtok", "input_mtok"),
    "cache_write_5m": ("cache_write_5m_mtok", "cache_write_mtok", "input_mtok"),
    "cache_write_1h": ("cache_write_1h_mtok", "cache_write_mtok", "input_mtok"),
    "output": ("output_mtok",),
}
"""Each kind of token's price keys, in the order tried: a kind the table has no price for is
charged as plain input, as the package does."""


@dataclass(frozen=True, slots=True)
class PriceTable:
    """The table's prices for one model on one date; ``price`` is the package's own sum."""

    model_price: ModelPrice
    model_id: str
    _tiers: tuple[int, ...] = field(default=(), compare=False, repr=False)
    _rates: dict[int, Rates] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, model_price: ModelPrice, model_id: str) -> PriceTable:
        """The table with the prompt sizes at which any of its prices changes tier."""
        from genai_prices.types import TieredPrices

        starts: set[int] = set()
        for keys in _RATE_KEYS.values():
            for key in keys:
                price = getattr(model_price, key, None)
                if isinstance(price, TieredPrices):
                    starts.update(int(tier.start) for tier in price.tiers)
        return cls(model_price, model_id, tuple(sorted(starts)))

    def price(self, usage: TokenUsage) -> Priced:
        """The request's price: each kind of token at its rate for this prompt's tier; the
        same sum as the package's slower ``calc_price`` (the tests compare the two)."""
        rates = self.rates(usage.prompt)
        rest = rates.input * usage.uncached
        read = rates.cache_read * usage.cache_read
        write = (
            rates.cache_write_5m * usage.cache_write_5m
            + rates.cache_write_1h * usage.cache_write_1h
        )
        output = rates.output * usage.output
        return Priced(rest + read + write + output, rest, write, read, output, self.model_id)

    def rates(self, prompt: int) -> Rates:
        """Per-token prices at the tier ``prompt`` falls in, computed once per tier: prices
        change only where a prompt passes a tier's start (the package's ``prompt > start``)."""
        tier = bisect_left(self._tiers, prompt) if self._tiers else 0
        found = self._rates.get(tier)
        if found is None:
            found = self._rates[tier] = self._compute(prompt)
        return found

    def _compute(self, prompt: int) -> Rates:
        from genai_prices.types import calc_unit_price

        mp = self.model_price

        def rate(keys: tuple[str, ...]) -> Decimal:
            for key in keys:
                price = getattr(mp, key, None)
                if price is not None:
                    return calc_unit_price(price, 1, prompt, PER_MTOK)
            return Decimal(0)

        return Rates(**{kind: rate(keys) for kind, keys in _RATE_KEYS.items()})


def table_for(model: str, provider: str | None, at: datetime | None) -> PriceTable:
    """The prices of ``model`` on the date of ``at`` (today when unknown); ``NoPriceError``
    when the table has no such model: nothing is guessed."""
    if at is None:
        at = datetime.now(UTC)
    day = (at.astimezone(UTC) if at.tzinfo is not None else at).date()
    return _table(model, provider, day)


@lru_cache(maxsize=512)
def _table(model: str, provider: str | None, day: date) -> PriceTable:
    from genai_prices import Usage as PriceUsage
    from genai_prices import calc_price

    when = datetime(day.year, day.month, day.day, 12, tzinfo=UTC)
    try:
        calc = calc_price(
            PriceUsage(input_tokens=0), model, provider_id=provider, genai_request_timestamp=when
        )
    except LookupError:
        raise NoPriceError(model) from None
    return PriceTable.of(calc.model_price, calc.model.id)


def price(usage: TokenUsage, model: str, provider: str | None, at: datetime | None) -> Priced:
    """The recorded ``usage`` of one request of ``model`` priced by the table."""
    return table_for(model, provider, at).price(usage)
