"""Regenerate the sample sessions in this directory: ``.venv/bin/python sample_sessions/_generate.py``.

Why generated: the big samples (a coding agent over a 32k window, the bundled demo) need tens
of thousands of tokens of plausible source and logs, and the demo must always validate against
``ctxtui.core.models``. Building them from Python objects with a fixed seed keeps every file
byte-identical across runs, so the committed files, the README and the expected counts in
``tests/test_sample_sessions.py`` stay in step. All names, paths and hosts are invented.
"""

from __future__ import annotations

import json
import random
import sys
import textwrap
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from _gen_content import numbered, pytest_log, python_module, shell_output  # noqa: E402

from ctxtui.core.models import (  # noqa: E402
    Message,
    Session,
    SessionMeta,
    ToolCall,
    ToolDefinition,
    Usage,
)

UTC = timezone.utc


# ---------------------------------------------------------------------------------------------
# A tiny builder: stories are written as native messages, then serialised per format.
# ---------------------------------------------------------------------------------------------


class Story:
    """Appends messages with ascending timestamps and unique, paired tool-call ids."""

    def __init__(self, start: datetime, model: str, id_prefix: str, seed: int) -> None:
        self.messages: list[Message] = []
        self.now = start
        self.model = model
        self.prefix = id_prefix
        self.rng = random.Random(seed)
        self._n = 0
        self._names: dict[str, str] = {}

    def _tick(self, lo: float = 2.0, hi: float = 25.0) -> datetime:
        self.now += timedelta(seconds=round(self.rng.uniform(lo, hi), 3))
        return self.now

    def user(self, text: str) -> None:
        self.messages.append(Message(role="user", content=text, created_at=self._tick(30, 240)))

    def assistant(
        self, text: str = "", calls: Sequence[tuple[str, dict[str, Any]]] = (), reasoning: str = ""
    ) -> list[str]:
        """An assistant message; returns the ids of its tool calls, in order."""
        tcs: list[ToolCall] = []
        for name, args in calls:
            self._n += 1
            cid = f"{self.prefix}{self._n:03d}"
            self._names[cid] = name
            tcs.append(ToolCall(id=cid, name=name, arguments=json.dumps(args)))
        self.messages.append(
            Message(
                role="assistant",
                content=text,
                tool_calls=tuple(tcs),
                reasoning=reasoning,
                created_at=self._tick(),
                model=self.model,
            )
        )
        return [tc.id for tc in tcs]

    def result(self, call_id: str, text: str, is_error: bool = False) -> None:
        self.messages.append(
            Message(
                role="tool",
                content=text,
                tool_call_id=call_id,
                tool_name=self._names[call_id],
                is_error=is_error,
                created_at=self._tick(0.2, 6.0),
            )
        )


def tool(name: str, description: str, props: dict[str, Any], required: list[str]) -> ToolDefinition:
    """A function tool definition with a JSON-schema object for its parameters."""
    return ToolDefinition(
        name=name,
        description=description,
        parameters={"type": "object", "properties": props, "required": required},
    )


CODING_TOOLS = (
    tool(
        "read_file",
        "Read a text file from the workspace. Returns the contents with line numbers. Use "
        "offset/limit for files longer than 2000 lines.",
        {
            "path": {"type": "string", "description": "path relative to the workspace root"},
            "offset": {"type": "integer", "description": "first line to return (1-based)"},
            "limit": {"type": "integer", "description": "maximum number of lines"},
        },
        ["path"],
    ),
    tool(
        "run_shell",
        "Run a shell command in the workspace and return its exit code, stdout and stderr. "
        "Commands time out after 120 seconds. Prefer non-interactive flags.",
        {
            "command": {"type": "string", "description": "the command line, run with bash -lc"},
            "timeout": {"type": "integer", "description": "seconds, at most 600"},
        },
        ["command"],
    ),
    tool(
        "search_code",
        "Search the workspace with a regular expression (ripgrep syntax). Returns matching "
        "lines as path:line:text, at most 200 matches.",
        {
            "pattern": {"type": "string"},
            "glob": {"type": "string", "description": "restrict to files matching this glob"},
        },
        ["pattern"],
    ),
    tool(
        "apply_patch",
        "Apply a unified diff to the workspace. The diff must apply cleanly; on conflict "
        "nothing is changed and the rejected hunks are returned.",
        {"patch": {"type": "string", "description": "a unified diff (--- a/ +++ b/ headers)"}},
        ["patch"],
    ),
)

CODING_SYSTEM = textwrap.dedent(
    """\
    You are a careful software engineering agent working in a Python repository on the
    user's machine. You can read files, search the code, run shell commands and apply
    patches through the tools provided.

    Working rules:
    - Reproduce a failure before changing code; run the narrowest failing test first.
    - Read the code you are about to change, and the tests that cover it.
    - Keep patches minimal and in the style of the surrounding code. Never weaken a test
      to make it pass; if a test is wrong, say why before changing it.
    - After a change, re-run the failing test, then the whole suite.
    - Money is always decimal.Decimal, never float. Rounding is explicit.
    - Explain what you found and what you changed in a few short paragraphs at the end.

    The workspace root is {root}. The project uses pytest, ruff and mypy --strict.
    """
)


def to_openai(session: Session) -> dict[str, Any]:
    """OpenAI Chat Completions request shape (formats.md §1): system first, string arguments."""
    msgs: list[dict[str, Any]] = []
    if session.system_prompt:
        msgs.append({"role": "system", "content": session.system_prompt})
    for m in session.messages:
        if m.role == "assistant":
            d: dict[str, Any] = {"role": "assistant", "content": m.content or None}
            if m.tool_calls:
                d["tool_calls"] = [
                    {
                        "id": tc.id,
                        "type": "function",
                        "function": {"name": tc.name, "arguments": tc.arguments},
                    }
                    for tc in m.tool_calls
                ]
            msgs.append(d)
        elif m.role == "tool":
            msgs.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": m.content})
        else:
            msgs.append({"role": m.role, "content": m.content})
    return {
        "model": session.meta.model,
        "messages": msgs,
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": dict(t.parameters),
                },
            }
            for t in session.tools
        ],
    }


def write_json(name: str, doc: Any, ascii_only: bool = True) -> Path:
    path = HERE / name
    text = json.dumps(doc, ensure_ascii=ascii_only, indent=1) + "\n"
    path.write_text(text, encoding="utf-8", newline="\n")
    return path


def write_jsonl(name: str, lines: Sequence[dict[str, Any]]) -> Path:
    path = HERE / name
    body = "".join(json.dumps(x, ensure_ascii=False, separators=(",", ":")) + "\n" for x in lines)
    path.write_text(body, encoding="utf-8", newline="\n")
    return path


# ---------------------------------------------------------------------------------------------
# 1. coding_agent_overflow.json: OpenAI Chat, a coding agent fixing a rounding bug (~50k tokens)
# ---------------------------------------------------------------------------------------------

SHOP = "/home/dev/shopfront"

PRICING_IMPORTS = """\
    from __future__ import annotations

    import logging
    from collections import defaultdict
    from collections.abc import Iterable, Iterator, Mapping, Sequence
    from dataclasses import dataclass, replace
    from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, InvalidOperation

    from shopfront.catalog import Product, Variant
    from shopfront.errors import CurrencyMismatch, PricingError
    from shopfront.money import CENT, Money, quantize

    log = logging.getLogger(__name__)

    MAX_PER_BUCKET = 10_000
"""

PRICING_CORE = '''
    BULK_TIERS: tuple[tuple[int, Decimal], ...] = (
        (10, Decimal("0.05")),
        (50, Decimal("0.10")),
        (200, Decimal("0.15")),
    )


    @dataclass(frozen=True)
    class PriceLine:
        """One basket line after pricing: what the invoice prints."""

        sku: str
        quantity: int
        unit_price: Money
        discount_rate: Decimal = Decimal("0")

        @property
        def gross(self) -> Money:
            return self.unit_price * self.quantity

        @property
        def net(self) -> Money:
            return apply_bulk_discount(self.unit_price, self.quantity, self.discount_rate)


    def bulk_rate(quantity: int) -> Decimal:
        """The discount rate for a quantity: the highest tier it reaches."""
        rate = Decimal("0")
        for threshold, tier_rate in BULK_TIERS:
            if quantity >= threshold:
                rate = tier_rate
        return rate


    def apply_bulk_discount(unit: Money, quantity: int, rate: Decimal) -> Money:
        """Net price of ``quantity`` units after a bulk discount of ``rate``.

        The discounted unit price is rounded to the cent first so that the invoice's
        per-unit column adds up.
        """
        if quantity < 0:
            raise PricingError(f"negative quantity: {quantity}")
        discounted = quantize(unit.amount * (1 - rate), rounding=ROUND_HALF_EVEN)
        return Money(discounted * quantity, unit.currency)


    def price_line(variant: Variant, quantity: int) -> PriceLine:
        """Price one basket line from the catalogue variant."""
        unit = variant.list_price
        if variant.product.no_discount:
            return PriceLine(variant.sku, quantity, unit)
        return PriceLine(variant.sku, quantity, unit, bulk_rate(quantity))


    def price_basket(lines: Mapping[Variant, int]) -> list[PriceLine]:
        """Price every line; lines with zero quantity are dropped, not priced at zero."""
        priced = [price_line(v, q) for v, q in lines.items() if q]
        log.debug("priced %d lines", len(priced))
        return priced


    def basket_total(lines: Sequence[PriceLine]) -> Money:
        """Sum of net prices; all lines must share one currency."""
        if not lines:
            return Money(Decimal("0.00"), "EUR")
        currency = lines[0].unit_price.currency
        total = Decimal("0")
        for line in lines:
            if line.unit_price.currency != currency:
                raise CurrencyMismatch(currency, line.unit_price.currency)
            total += line.net.amount
        return Money(quantize(total, rounding=ROUND_HALF_UP), currency)
'''

MONEY_CORE = '''
    CENT = Decimal("0.01")
    YEN = Decimal("1")
    MINOR_UNITS: dict[str, Decimal] = {"EUR": CENT, "USD": CENT, "GBP": CENT, "JPY": YEN}


    def quantize(amount: Decimal, *, rounding: str = ROUND_HALF_UP, unit: Decimal = CENT) -> Decimal:
        """Round ``amount`` to ``unit``; the rounding mode is always explicit at call sites."""
        return amount.quantize(unit, rounding=rounding)


    @dataclass(frozen=True)
    class Money:
        """An amount in one currency. Arithmetic keeps full precision; rounding is explicit."""

        amount: Decimal
        currency: str

        def __mul__(self, factor: int | Decimal) -> Money:
            return Money(self.amount * Decimal(factor), self.currency)

        def __add__(self, other: Money) -> Money:
            if other.currency != self.currency:
                raise CurrencyMismatch(self.currency, other.currency)
            return Money(self.amount + other.amount, self.currency)

        def rounded(self) -> Money:
            unit = MINOR_UNITS.get(self.currency, CENT)
            return Money(quantize(self.amount, unit=unit), self.currency)
'''

TEST_PRICING_CORE = '''
    @pytest.mark.parametrize(
        ("qty", "unit", "expected"),
        [
            (12, "9.99", "113.89"),
            (12, "0.35", "3.99"),
            (60, "1.15", "62.10"),
            (250, "0.07", "14.88"),
        ],
    )
    def test_bulk_discount_rounding(qty: int, unit: str, expected: str) -> None:
        """The discount is applied to the line, then rounded once (finance ticket FIN-212)."""
        line = price_line(make_variant(unit), qty)
        assert line.net.rounded().amount == Decimal(expected)


    def test_no_discount_products_keep_list_price() -> None:
        variant = make_variant("5.00", no_discount=True)
        assert price_line(variant, 500).net.amount == Decimal("2500.00")


    def test_basket_total_rejects_mixed_currencies() -> None:
        lines = [price_line(make_variant("1.00"), 1), price_line(make_variant("1.00", "USD"), 1)]
        with pytest.raises(CurrencyMismatch):
            basket_total(lines)
'''

TRACE_BULK = """\
    qty = {qty}, unit = '{unit}', expected = '{exp}'

        @pytest.mark.parametrize(
            ("qty", "unit", "expected"),
            [
                (12, "9.99", "113.89"),
                (12, "0.35", "3.99"),
                (60, "1.15", "62.10"),
                (250, "0.07", "14.88"),
            ],
        )
        def test_bulk_discount_rounding(qty: int, unit: str, expected: str) -> None:
            \"\"\"The discount is applied to the line, then rounded once (finance ticket FIN-212).\"\"\"
            line = price_line(make_variant(unit), qty)
    >       assert line.net.rounded().amount == Decimal(expected)
    E       AssertionError: assert Decimal('{got}') == Decimal('{exp}')
    E        +  where Decimal('{got}') = Money(amount=Decimal('{got}'), currency='EUR').amount
    E        +    where Money(amount=Decimal('{got}'), currency='EUR') = <bound method Money.rounded>()

    tests/test_pricing.py:{lineno}: AssertionError
"""

TRACE_INVOICE = """\
        def test_invoice_lines_add_up_to_total(sample_order: Order) -> None:
            invoice = build_invoice(sample_order)
            per_line = sum((ln.net_rounded.amount for ln in invoice.lines), Decimal("0"))
    >       assert per_line == invoice.total.amount
    E       AssertionError: assert Decimal('{a}') == Decimal('{b}')

    tests/test_invoice.py:{lineno}: AssertionError
    ----------------------------- Captured stdout call -----------------------------
    invoice INV-2024-00417 for customer C-{cust}: 7 lines, currency EUR
"""


def coding_agent_overflow() -> Session:
    rng = random.Random(4001)
    st = Story(datetime(2026, 3, 2, 9, 14, 5, tzinfo=UTC), "gpt-4.1", "call_cf", 41)

    pricing_src = python_module(
        rng,
        "Pricing rules for the shopfront checkout: list prices, bulk discounts and totals.",
        PRICING_IMPORTS,
        PRICING_CORE,
        52,
    )
    money_src = python_module(
        rng,
        "Money: a Decimal amount plus an ISO currency code, with explicit rounding.",
        PRICING_IMPORTS.replace("from shopfront.money import CENT, Money, quantize\n", ""),
        MONEY_CORE,
        30,
    )
    test_src = python_module(
        rng,
        "Tests for shopfront.pricing.",
        """\
        from __future__ import annotations

        from decimal import Decimal

        import pytest

        from shopfront.errors import CurrencyMismatch
        from shopfront.pricing import basket_total, price_line
        from tests.factories import make_variant
        """,
        TEST_PRICING_CORE,
        6,
    )
    invoice_src = python_module(
        rng,
        "Invoices: turn a priced order into printable lines, VAT and a total.",
        PRICING_IMPORTS,
        "",
        50,
    )

    st.user(
        "CI is red on main since the decimal refactor: "
        "tests/test_pricing.py::test_bulk_discount_rounding fails for a couple of the "
        "parametrized cases. Finance says line totals must be rounded once, after the "
        "discount. Can you find and fix it? Don't touch the expected values in the test, "
        "they come from the finance ticket."
    )
    ids = st.assistant(
        "I'll start by reproducing the failure and reading the pricing module and its tests.",
        [
            ("run_shell", {"command": "pytest -x -q tests/test_pricing.py"}),
            ("read_file", {"path": "src/shopfront/pricing.py"}),
            ("read_file", {"path": "tests/test_pricing.py"}),
        ],
    )
    fails = [
        (
            "tests/test_pricing.py::test_bulk_discount_rounding[12-9.99-113.89]",
            TRACE_BULK.format(qty=12, unit="9.99", exp="113.89", got="113.88", lineno=31),
        ),
    ]
    st.result(
        ids[0],
        shell_output(
            "pytest -x -q tests/test_pricing.py",
            pytest_log(rng, SHOP, {"tests/test_pricing.py": 20}, fails, 1.84, verbose=False),
            exit_code=1,
            wall=2.3,
        ),
        is_error=True,
    )
    st.result(ids[1], numbered(pricing_src))
    st.result(ids[2], numbered(test_src))

    ids = st.assistant(
        "The failing case is 12 × 9.99 with a 5 % discount: 9.99 × 0.95 = 9.4905, which "
        "`apply_bulk_discount` rounds to 9.49 *per unit* before multiplying (12 × 9.49 = "
        "113.88), while finance expects 113.886 → 113.89. Let me check every call site of "
        "`quantize` and the Money type before changing anything.",
        [
            ("search_code", {"pattern": r"quantize\(", "glob": "src/**/*.py"}),
            ("read_file", {"path": "src/shopfront/money.py"}),
        ],
    )
    hits = []
    for _ in range(46):
        hits.append(
            f"src/shopfront/{rng.choice(['pricing', 'invoice', 'tax', 'refunds', 'money'])}.py:"
            f"{rng.randint(20, 420)}:        amount = quantize({rng.choice(['total', 'net', 'vat', 'line.amount', 'value'])}"
            f", rounding={rng.choice(['ROUND_HALF_UP', 'ROUND_HALF_EVEN'])})"
        )
    st.result(ids[0], "\n".join(sorted(hits)) + "\n46 matches in 5 files\n")
    st.result(ids[1], numbered(money_src))

    patch1 = textwrap.dedent(
        """\
        --- a/src/shopfront/pricing.py
        +++ b/src/shopfront/pricing.py
        @@ -62,12 +62,12 @@ def bulk_rate(quantity: int) -> Decimal:
         def apply_bulk_discount(unit: Money, quantity: int, rate: Decimal) -> Money:
             \"\"\"Net price of ``quantity`` units after a bulk discount of ``rate``.

        -    The discounted unit price is rounded to the cent first so that the invoice's
        -    per-unit column adds up.
        +    Full precision throughout; the line is rounded once, by the caller, after the
        +    discount (finance ticket FIN-212). Rounding per unit lost up to 0.5 ct per unit.
             \"\"\"
             if quantity < 0:
                 raise PricingError(f"negative quantity: {quantity}")
        -    discounted = quantize(unit.amount * (1 - rate), rounding=ROUND_HALF_EVEN)
        -    return Money(discounted * quantity, unit.currency)
        +    return Money(unit.amount * quantity * (1 - rate), unit.currency)
        """
    )
    ids = st.assistant(
        "Confirmed: the per-unit `quantize(..., ROUND_HALF_EVEN)` is the bug, and it also "
        "uses banker's rounding where the rest of the code uses ROUND_HALF_UP. I'll keep full "
        "precision in `apply_bulk_discount` and let `Money.rounded()` round the line once.",
        [("apply_patch", {"patch": patch1})],
    )
    st.result(ids[0], "Applied 1 hunk to src/shopfront/pricing.py.\n")

    files = {
        "tests/test_cart.py": 34,
        "tests/test_catalog.py": 41,
        "tests/test_invoice.py": 38,
        "tests/test_money.py": 29,
        "tests/test_pricing.py": 22,
        "tests/test_refunds.py": 27,
        "tests/test_tax.py": 33,
    }
    inv_fails = [
        (
            "tests/test_invoice.py::test_invoice_lines_add_up_to_total",
            TRACE_INVOICE.format(a="412.37", b="412.38", lineno=88, cust=rng.randint(1000, 9999)),
        ),
        (
            "tests/test_invoice.py::test_invoice_vat_breakdown[EUR]",
            TRACE_INVOICE.format(a="78.35", b="78.36", lineno=121, cust=rng.randint(1000, 9999)),
        ),
    ]
    ids = st.assistant("", [("run_shell", {"command": "pytest -v"})])
    st.result(
        ids[0],
        shell_output(
            "pytest -v",
            pytest_log(rng, SHOP, files, inv_fails, 6.12, log_lines=60),
            exit_code=1,
            wall=7.0,
        ),
        is_error=True,
    )
    st.assistant(
        "`test_bulk_discount_rounding` passes now, but two invoice tests fail: the invoice "
        "sums rounded line amounts and compares them with a total rounded once, so they can "
        "differ by a cent. That assumption was only true by accident while every unit price "
        "was pre-rounded. How do you want invoices to reconcile — adjust the last line, or "
        "round the total from the rounded lines?"
    )

    st.user(
        "Round the total from the rounded lines — that's what the printed invoice shows and "
        "what the accountants reconcile against. But be careful: JPY has no minor unit, and "
        "EUR must keep ROUND_HALF_UP."
    )
    ids = st.assistant(
        "Understood. Reading the invoice module and running only the invoice tests verbosely.",
        [
            ("read_file", {"path": "src/shopfront/invoice.py"}),
            ("run_shell", {"command": "pytest -vv tests/test_invoice.py"}),
        ],
    )
    st.result(ids[0], numbered(invoice_src))
    st.result(
        ids[1],
        shell_output(
            "pytest -vv tests/test_invoice.py",
            pytest_log(rng, SHOP, {"tests/test_invoice.py": 38}, inv_fails, 1.31, log_lines=150),
            exit_code=1,
            wall=1.9,
        ),
        is_error=True,
    )
    patch2 = textwrap.dedent(
        """\
        --- a/src/shopfront/invoice.py
        +++ b/src/shopfront/invoice.py
        @@ -141,9 +141,11 @@ def build_invoice(order: Order) -> Invoice:
             lines = [InvoiceLine.from_price_line(pl) for pl in price_basket(order.lines)]
        -    total = basket_total([ln.price_line for ln in lines])
        +    # The printed invoice is the contract: the total is the sum of the rounded lines,
        +    # each rounded in its currency's minor unit (JPY has none).
        +    total = sum((ln.net_rounded for ln in lines), Money(Decimal("0"), order.currency))
             vat = compute_vat(lines, order.region)
        -    return Invoice(order.id, lines, total, vat)
        +    return Invoice(order.id, lines, total.rounded(), vat)
        """
    )
    ids = st.assistant(
        "The invoice total comes from `basket_total`, which re-rounds the unrounded sum. I'll "
        "sum the rounded lines instead; `Money.rounded()` already picks the minor unit per "
        "currency, so JPY stays whole yen.",
        [("apply_patch", {"patch": patch2})],
    )
    st.result(ids[0], "Applied 1 hunk to src/shopfront/invoice.py.\n")
    ids = st.assistant(
        "",
        [
            ("run_shell", {"command": "pytest -v"}),
            ("run_shell", {"command": "ruff check src tests && mypy --strict src"}),
        ],
    )
    st.result(ids[0], shell_output("pytest -v", pytest_log(rng, SHOP, files, [], 6.40), wall=7.2))
    st.result(
        ids[1],
        shell_output(
            "ruff check src tests && mypy --strict src",
            "All checks passed!\nSuccess: no issues found in 23 source files\n",
            wall=3.1,
        ),
    )
    st.assistant(
        "The whole suite passes; ruff and mypy are clean.\n\n"
        "**Cause.** `apply_bulk_discount` rounded the discounted *unit* price (with "
        "ROUND_HALF_EVEN) before multiplying by the quantity, losing up to half a cent per "
        "unit. **Fix.** Full precision until the line is rounded once in `Money.rounded()` "
        "(ROUND_HALF_UP, per-currency minor unit). **Follow-on.** Invoice totals are now the "
        "sum of the rounded lines, so the printed lines always add up to the printed total."
    )

    st.user("Nice. Last thing: run the suite with coverage and tell me what's least covered.")
    ids = st.assistant(
        "", [("run_shell", {"command": "pytest -q --cov=shopfront --cov-report=term-missing"})]
    )
    rows = []
    for mod in sorted(
        f"src/shopfront/{n}.py"
        for n in (
            "__init__", "cart", "catalog", "errors", "invoice", "money", "pricing", "refunds",
            "tax", "shipping", "vouchers", "export/csv", "export/pdf", "api/routes",
            "api/schemas", "api/auth", "db/models", "db/session", "db/migrations",
        )  # fmt: skip
    ):
        stmts = rng.randint(12, 420)
        miss = rng.randint(0, stmts // 3)
        missing = ", ".join(
            f"{a}-{a + rng.randint(1, 9)}" for a in sorted(rng.sample(range(20, 480), min(miss, 9)))
        )
        pct = 100 * (stmts - miss) // stmts
        rows.append(f"{mod:<34}{stmts:>6}{miss:>6}{pct:>6}%   {missing}")
    cov = (
        pytest_log(rng, SHOP, files, [], 9.81)
        + "\n---------- coverage: platform linux, python 3.11.9-final-0 -----------\n"
        + f"{'Name':<34}{'Stmts':>6}{'Miss':>6}{'Cover':>7}   Missing\n"
        + "-" * 100
        + "\n"
        + "\n".join(rows)
        + "\n"
    )
    st.result(ids[0], shell_output("pytest -q --cov=shopfront --cov-report=term-missing", cov))
    st.assistant(
        "Coverage is 87 % overall. The least covered modules are the PDF export and the "
        "database migrations; both are exercised only by the slow integration job. The code "
        "touched today (pricing, invoice, money) is above 95 %."
    )
    return Session(
        messages=tuple(st.messages),
        system_prompt=CODING_SYSTEM.format(root=SHOP),
        tools=CODING_TOOLS,
        meta=SessionMeta(model="gpt-4.1", title="Fix bulk-discount rounding (FIN-212)"),
    )


# ---------------------------------------------------------------------------------------------
# 7. demo.json: ctxtui native, a 32k-window coding session that is already over budget
# ---------------------------------------------------------------------------------------------

WX = "/home/dev/wxingest"
DEMO_ROWS = 1_480

WX_IMPORTS = """\
    from __future__ import annotations

    import csv
    import logging
    from collections import defaultdict
    from collections.abc import Iterable, Iterator, Mapping, Sequence
    from dataclasses import dataclass, replace
    from datetime import datetime, timezone
    from decimal import Decimal, InvalidOperation
    from zoneinfo import ZoneInfo

    from wxingest.errors import IngestError
    from wxingest.stations import Station, lookup_station

    log = logging.getLogger(__name__)

    MAX_PER_BUCKET = 5_000
"""

WX_PARSER_CORE = '''
    @dataclass(frozen=True)
    class Reading:
        """One row of a station export, normalised to UTC."""

        station_id: str
        observed_at: datetime
        temperature_c: Decimal
        pressure_hpa: Decimal | None
        wind_ms: Decimal | None


    def parse_timestamp(raw: str, station: Station) -> datetime:
        """Parse a station timestamp. Exports are documented as UTC ISO-8601."""
        value = datetime.fromisoformat(raw)
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value


    def parse_row(row: Mapping[str, str], station: Station) -> Reading:
        """One CSV row; empty optional columns become None, never zero."""
        return Reading(
            station_id=station.id,
            observed_at=parse_timestamp(row["time"], station),
            temperature_c=Decimal(row["temp_c"]),
            pressure_hpa=Decimal(row["pressure_hpa"]) if row["pressure_hpa"] else None,
            wind_ms=Decimal(row["wind_ms"]) if row["wind_ms"] else None,
        )


    def read_export(lines: Iterable[str], station: Station) -> Iterator[Reading]:
        """Stream readings; rows must be strictly increasing in time."""
        previous: datetime | None = None
        for n, row in enumerate(csv.DictReader(lines), start=2):
            reading = parse_row(row, station)
            if previous is not None and reading.observed_at <= previous:
                raise IngestError(
                    f"{station.id} line {n}: time {reading.observed_at.isoformat()} "
                    f"not after {previous.isoformat()}"
                )
            previous = reading.observed_at
            yield reading
'''

WX_TRACE = """\
        def test_ingest_fixture_exports(fixture_path: Path) -> None:
            station = lookup_station(fixture_path.stem)
            with fixture_path.open() as fh:
    >           readings = list(read_export(fh, station))

    tests/test_ingest.py:44:
    _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _

    lines = <_io.TextIOWrapper name='tests/fixtures/no-osl-07.csv' mode='r' encoding='UTF-8'>
    station = Station(id='no-osl-07', name='Oslo Blindern (test)', tz='Europe/Oslo')

        def read_export(lines: Iterable[str], station: Station) -> Iterator[Reading]:
            previous: datetime | None = None
            for n, row in enumerate(csv.DictReader(lines), start=2):
                reading = parse_row(row, station)
                if previous is not None and reading.observed_at <= previous:
    >               raise IngestError(
                        f"{station.id} line {n}: time {reading.observed_at.isoformat()} "
                        f"not after {previous.isoformat()}"
                    )
    E               wxingest.errors.IngestError: no-osl-07 line 1213: time \
2025-10-26T02:00:00+00:00 not after 2025-10-26T02:50:00+00:00

    src/wxingest/parser.py:67: IngestError
"""


def demo() -> Session:
    rng = random.Random(7007)
    st = Story(datetime(2026, 2, 11, 7, 40, 12, tzinfo=UTC), "gpt-4.1", "call_demo", 77)
    parser_src = python_module(
        rng,
        "Parse weather-station CSV exports into readings, normalised to UTC.",
        WX_IMPORTS,
        WX_PARSER_CORE,
        50,
    )
    jobs_src = python_module(
        rng, "The nightly ingest job: fetch, parse, store, alert.", WX_IMPORTS, "", 44
    )
    stations_src = python_module(
        rng, "The station registry: ids, names, time zones, calibration.", WX_IMPORTS, "", 30
    )
    test_files = {
        "tests/test_alerts.py": 18,
        "tests/test_ingest.py": 31,
        "tests/test_parser.py": 36,
        "tests/test_stations.py": 14,
        "tests/test_store.py": 22,
    }
    fail = [("tests/test_ingest.py::test_ingest_fixture_exports[no-osl-07]", WX_TRACE)]

    st.user(
        "The nightly ingest crashed on the Oslo station export (alert from "
        "ingest@wx.example.com: 'IngestError: time not after previous'). It started on "
        "26 October. Can you find out why?"
    )
    ids = st.assistant(
        "I'll reproduce it with the test fixture and read the parser and the job.",
        [
            ("run_shell", {"command": "pytest -v tests/test_ingest.py"}),
            ("read_file", {"path": "src/wxingest/parser.py"}),
            ("read_file", {"path": "src/wxingest/jobs.py"}),
            ("read_file", {"path": "src/wxingest/stations.py"}),
        ],
        reasoning="An ordering error on 26 October smells like the end of daylight saving "
        "time. Reproduce first, then read how timestamps are parsed.",
    )
    st.result(
        ids[0],
        shell_output(
            "pytest -v tests/test_ingest.py",
            pytest_log(rng, WX, {"tests/test_ingest.py": 31}, fail, 2.07, log_lines=80),
            exit_code=1,
            wall=2.6,
        ),
        is_error=True,
    )
    st.result(ids[1], numbered(parser_src))
    st.result(ids[2], numbered(jobs_src))
    st.result(ids[3], numbered(stations_src))

    # The raw export: just over the 51,200-byte truncation limit, so the plan truncates it.
    rows = ["time,temp_c,pressure_hpa,wind_ms"]
    t = datetime(2025, 10, 17, 15, 0)  # UTC; the export shows naive Oslo time
    for _ in range(DEMO_ROWS):
        t += timedelta(minutes=10)
        shown = t + timedelta(hours=2 if t < datetime(2025, 10, 26, 1, 0) else 1)
        rows.append(
            f"{shown.isoformat(timespec='seconds')},{rng.uniform(-2, 11):.1f},"
            f"{rng.uniform(990, 1030):.1f},{'' if rng.random() < 0.05 else f'{rng.uniform(0, 14):.1f}'}"
        )
    ids = st.assistant(
        "The parser assumes naive timestamps are UTC. Let me look at the raw export around "
        "the failing line.",
        [("run_shell", {"command": "cat tests/fixtures/no-osl-07.csv"})],
    )
    st.result(ids[0], shell_output("cat tests/fixtures/no-osl-07.csv", "\n".join(rows) + "\n"))
    st.assistant(
        "Found it. The Oslo export has naive local timestamps: at 03:00 CEST on 26 October "
        "the clock goes back to 02:00 CET, so the rows repeat 02:00–02:50 and the parser, "
        "treating them as UTC, sees time going backwards. Every other station exports UTC, "
        "which is why only Oslo broke. Shall I parse naive timestamps in the station's own "
        "time zone (`Station.tz`), using `fold` to tell the repeated hour apart?"
    )

    st.user(
        "Yes, but careful: only naive timestamps are local. Some stations already send an "
        "offset and those must not move."
    )
    patch = textwrap.dedent(
        """\
        --- a/src/wxingest/parser.py
        +++ b/src/wxingest/parser.py
        @@ -31,9 +31,18 @@ class Reading:
         def parse_timestamp(raw: str, station: Station) -> datetime:
        -    \"\"\"Parse a station timestamp. Exports are documented as UTC ISO-8601.\"\"\"
        +    \"\"\"Parse a station timestamp; naive values are local to the station.
        +
        +    Some exports (Oslo) write naive local time, so the hour repeated when daylight
        +    saving ends appears twice. ``fold`` marks the second pass (PEP 495).
        +    \"\"\"
             value = datetime.fromisoformat(raw)
        -    if value.tzinfo is None:
        -        value = value.replace(tzinfo=timezone.utc)
        -    return value
        +    if value.tzinfo is not None:
        +        return value.astimezone(timezone.utc)
        +    return value.replace(tzinfo=ZoneInfo(station.tz)).astimezone(timezone.utc)
        """
    )
    ids = st.assistant(
        "", [("apply_patch", {"patch": patch})], reasoning="Minimal change first; fold later."
    )
    st.result(ids[0], "Applied 1 hunk to src/wxingest/parser.py.\n")
    ids = st.assistant("", [("run_shell", {"command": "pytest -v tests/test_ingest.py"})])
    st.result(
        ids[0],
        shell_output(
            "pytest -v tests/test_ingest.py",
            pytest_log(rng, WX, {"tests/test_ingest.py": 31}, fail, 2.11, log_lines=25),
            exit_code=1,
            wall=2.5,
        ),
        is_error=True,
    )
    patch2 = textwrap.dedent(
        """\
        --- a/src/wxingest/parser.py
        +++ b/src/wxingest/parser.py
        @@ -55,6 +55,12 @@ def read_export(lines: Iterable[str], station: Station) -> Iterator[Reading]:
             previous: datetime | None = None
        +    previous_naive: datetime | None = None
             for n, row in enumerate(csv.DictReader(lines), start=2):
        +        naive = datetime.fromisoformat(row["time"])
        +        if naive.tzinfo is None and previous_naive is not None and naive <= previous_naive:
        +            # The repeated hour after DST ends: second pass has fold=1.
        +            row = {**row, "time": naive.replace(fold=1).isoformat()}
        +        previous_naive = naive if naive.tzinfo is None else None
                 reading = parse_row(row, station)
        """
    )
    ids = st.assistant(
        "Still failing: without `fold`, 02:00 local maps to the first pass both times. The "
        "row order tells us which pass we are in, so `read_export` sets `fold=1` when a naive "
        "time steps backwards.",
        [("apply_patch", {"patch": patch2})],
    )
    st.result(ids[0], "Applied 1 hunk to src/wxingest/parser.py.\n")
    ids = st.assistant("", [("run_shell", {"command": "pytest -v tests/test_ingest.py"})])
    st.result(
        ids[0],
        shell_output(
            "pytest -v tests/test_ingest.py",
            pytest_log(rng, WX, {"tests/test_ingest.py": 31}, [], 2.02),
            wall=2.4,
        ),
    )
    st.assistant(f"The Oslo fixture ingests cleanly now: {DEMO_ROWS:,} readings, strictly increasing.")

    st.user("Add a regression test for the repeated hour, and one for an explicit offset.")
    test_patch = textwrap.dedent(
        """\
        --- a/tests/test_parser.py
        +++ b/tests/test_parser.py
        @@ -210,3 +210,24 @@ def test_empty_optional_columns_are_none() -> None:
        +
        +
        +def test_repeated_hour_after_dst_end_is_increasing() -> None:
        +    oslo = Station(id="no-test", name="Test", tz="Europe/Oslo")
        +    lines = [
        +        "time,temp_c,pressure_hpa,wind_ms",
        +        "2025-10-26T02:50:00,4.1,1011.0,3.2",
        +        "2025-10-26T02:00:00,4.0,1011.1,3.0",
        +    ]
        +    first, second = read_export(lines, oslo)
        +    assert second.observed_at - first.observed_at == timedelta(minutes=10)
        +
        +
        +def test_explicit_offset_is_not_shifted() -> None:
        +    oslo = Station(id="no-test", name="Test", tz="Europe/Oslo")
        +    got = parse_timestamp("2025-10-26T02:00:00+00:00", oslo)
        +    assert got == datetime(2025, 10, 26, 2, 0, tzinfo=timezone.utc)
        """
    )
    ids = st.assistant(
        "",
        [
            ("apply_patch", {"patch": test_patch}),
            ("run_shell", {"command": "pytest -q tests/test_parser.py"}),
        ],
    )
    st.result(ids[0], "Applied 1 hunk to tests/test_parser.py.\n")
    st.result(
        ids[1],
        shell_output(
            "pytest -q tests/test_parser.py",
            pytest_log(rng, WX, {"tests/test_parser.py": 38}, [], 0.91, verbose=False),
            wall=1.3,
        ),
    )
    st.assistant("Both regression tests pass, together with the existing parser tests.")

    st.user("Run the whole suite and the linters before I merge.")
    ids = st.assistant(
        "",
        [
            ("run_shell", {"command": "pytest -v"}),
            ("run_shell", {"command": "ruff check . && mypy --strict src"}),
        ],
    )
    st.result(ids[0], shell_output("pytest -v", pytest_log(rng, WX, test_files, [], 5.48)))
    st.result(
        ids[1],
        shell_output(
            "ruff check . && mypy --strict src",
            "All checks passed!\nSuccess: no issues found in 17 source files\n",
            wall=2.8,
        ),
    )
    st.assistant("Everything is green: the full suite passes and ruff and mypy are clean.")

    st.user("Write a one-paragraph changelog entry.")
    st.assistant(
        "**Fixed:** stations that export naive local timestamps (Oslo Blindern) no longer "
        "break the nightly ingest when daylight saving time ends. Naive times are now read in "
        "the station's time zone, the repeated hour is disambiguated with `fold`, and "
        "timestamps with an explicit offset are converted to UTC unchanged."
    )
    st.user("Thanks! Draft the PR description too.")
    st.assistant(
        "**Parse naive station timestamps in local time (fixes the 26 October ingest "
        "crash)**\n\n"
        "The Oslo export writes naive local time. When DST ended, 02:00–02:50 appeared twice "
        "and `read_export` rejected the second pass as going backwards.\n\n"
        "- `parse_timestamp`: naive → station zone → UTC; aware values are only converted.\n"
        "- `read_export`: a naive time that steps backwards gets `fold=1`.\n"
        "- Two regression tests (repeated hour; explicit offset).\n\n"
        "Tested: full suite, ruff, mypy --strict."
    )

    msgs = _with_usage(list(st.messages), CODING_SYSTEM.format(root=WX), CODING_TOOLS)
    return Session(
        messages=tuple(msgs),
        system_prompt=CODING_SYSTEM.format(root=WX),
        tools=CODING_TOOLS,
        meta=SessionMeta(
            format="native",
            model="gpt-4.1",
            context_window=32_768,
            title="Oslo ingest crash after DST ends",
        ),
    )


def _with_usage(
    msgs: list[Message], system: str, tools: Sequence[ToolDefinition]
) -> list[Message]:
    """Attach plausible reported usage to assistant messages.

    The prompt of request *k* is everything before assistant message *k*; the numbers are a
    chars/3.7 estimate so that they differ a little from ctxtui's own 4-chars estimate, the
    way real API usage does.
    """
    fixed = len(system) + sum(
        len(t.name) + len(t.description) + len(json.dumps(dict(t.parameters))) for t in tools
    )
    out: list[Message] = []
    seen = fixed
    previous = 0
    for m in msgs:
        if m.role == "assistant":
            prompt = int(seen / 3.7) + 12
            out_toks = max(8, (len(m.content) + len(m.reasoning)) // 4) + sum(
                len(tc.arguments) // 4 + 6 for tc in m.tool_calls
            )
            m = m.model_copy(
                update={
                    "usage": Usage(
                        prompt_total=prompt,
                        cached_read=(previous // 1024) * 1024,
                        output=out_toks,
                        reasoning=len(m.reasoning) // 4 if m.reasoning else None,
                        source="usage.prompt_tokens",
                    )
                }
            )
            previous = prompt
        seen += len(m.content) + len(m.reasoning) + sum(len(tc.arguments) for tc in m.tool_calls)
        out.append(m)
    return out


def write_native(name: str, session: Session) -> Path:
    """ctxtui's own format; re-validated so a model change fails here, not in the app."""
    doc = {"schema": "ctxtui.session/1", "session": session.model_dump(mode="json")}
    Session.model_validate(doc["session"])
    return write_json(name, doc)


def main() -> None:
    write_json("coding_agent_overflow.json", to_openai(coding_agent_overflow()))
    write_native("demo.json", demo())


if __name__ == "__main__":
    main()
