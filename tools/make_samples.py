# ruff: noqa: E501  (embedded sample data: source listings, logs and CJK prose keep their lines)
"""Regenerate the sample sessions: ``.venv/bin/python tools/make_samples.py``.

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

TOOLS = Path(__file__).resolve().parent
HERE = TOOLS.parent / "sample_sessions"  # where the samples are written
sys.path.insert(0, str(TOOLS))
sys.path.insert(0, str(TOOLS.parent))

from sample_content import numbered, pytest_log, python_module, shell_output  # noqa: E402

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
            "__init__",
            "cart",
            "catalog",
            "errors",
            "invoice",
            "money",
            "pricing",
            "refunds",
            "tax",
            "shipping",
            "vouchers",
            "export/csv",
            "export/pdf",
            "api/routes",
            "api/schemas",
            "api/auth",
            "db/models",
            "db/session",
            "db/migrations",
        )
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
    st.assistant(
        f"The Oslo fixture ingests cleanly now: {DEMO_ROWS:,} readings, strictly increasing."
    )

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


def _with_usage(msgs: list[Message], system: str, tools: Sequence[ToolDefinition]) -> list[Message]:
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


# ---------------------------------------------------------------------------------------------
# 2. picoclaw_long_chat.jsonl + .meta.json: an everyday assistant chat over many turns
# ---------------------------------------------------------------------------------------------

_RECIPE = """\
Here's a weeknight version that serves four and takes about 40 minutes.

**Ingredients**
- 300 g red lentils, rinsed
- 1 onion, 2 garlic cloves, a thumb of ginger
- 1 tbsp curry powder, 1 tsp cumin seeds, ½ tsp turmeric
- 400 ml coconut milk, 600 ml vegetable stock
- 200 g spinach, juice of ½ lime, salt

**Method**
1. Fry the cumin seeds in oil for 30 seconds, then the chopped onion for 8 minutes.
2. Add garlic, ginger and the ground spices; stir for a minute.
3. Add lentils, coconut milk and stock. Simmer 20–25 minutes, stirring now and then,
   until the lentils have collapsed.
4. Stir in the spinach until wilted, season, finish with lime.

Serve with rice or flatbread. It keeps three days in the fridge and freezes well; add a
splash of water when reheating because it thickens overnight.
"""

_EMAIL = """\
Subject: Moving our Thursday sync to 10:30

Hi all,

From next week our Thursday sync moves from 09:00 to 10:30, same room (Fjord, 3rd floor)
and same video link. The earlier slot clashed with the school run for several of us, and
10:30 also works better for the colleagues joining from Lisbon.

Nothing else changes: the agenda document stays where it is, and please keep adding items
by Wednesday evening so we can skim them beforehand.

If 10:30 doesn't work for you at all, reply to me directly and we'll find a way.

Thanks,
Sam
"""

_PAGE = """\
Riverside Community Garden — Opening hours and plot rules (updated March 2026)

Opening hours: daily 07:00–21:00 from April to September, 08:00–18:00 October to March.
The gate code changes on the first of each month and is sent to plot holders by email.

Plots: 48 plots of 10 m², rented per season (April–March). Fee: 45 EUR, reduced 25 EUR.
Waiting list: currently about 14 months. Shared tools are in the green shed; please clean
and return them the same day. Hoses may not be left running unattended. Compost bins:
green waste only; no cooked food, no diseased plants, no weeds that have gone to seed.

Work days: the second Saturday of every month, 10:00–13:00. Plot holders are asked to
attend at least three per season. Coffee and cake provided.

Pesticides: none, including "organic" sprays, except by written agreement with the
committee for specific pests. Slug pellets: ferric phosphate only.

Contact: committee@garden.example.org
"""

_TRIP = """\
A relaxed three-day plan, assuming you arrive Friday evening:

**Saturday — old town and the harbour**
- Morning: the market hall opens at 08:00; breakfast there before it gets busy.
- Walk the old town loop (about 3 km): cathedral, the guild houses, the city wall.
- Lunch by the harbour; the fish soup places are cheapest away from the main quay.
- Afternoon: the maritime museum (2 hours is enough), then the harbour ferry at sunset.

**Sunday — the islands**
- The 09:15 ferry to the outer island takes 40 minutes; return ferries run hourly.
- A 7 km coastal path circles the island; bring water, there's one café at the lighthouse.
- Evening: most restaurants close early on Sundays, so book a table.

**Monday — slow morning and home**
- The botanical garden is free before 11:00.
- Leave two hours for the airport bus on a Monday; the ring road is slow.

Budget roughly 90–120 EUR per person per day including the museum and ferries.
"""


def _nginx_log(rng: random.Random, n: int) -> str:
    """An nginx error log tail: the kind of long, repetitive tool output that pruning targets."""
    paths = (
        "/cloud/remote.php/dav/files/dev/",
        "/cloud/index.php/apps/photos/api/v1/albums",
        "/git/dev/notes.git/info/refs",
        "/cloud/ocs/v2.php/apps/notifications/api/v2/",
    )
    errs = (
        "upstream timed out (110: Connection timed out) while reading response header from "
        "upstream",
        "client intended to send too large body: 1073741912 bytes",
        'open() "/srv/www/favicon.ico" failed (2: No such file or directory)',
        "connect() failed (111: Connection refused) while connecting to upstream",
    )
    out = []
    for i in range(n):
        out.append(
            f"2026/03/06 {14 + i // 40:02d}:{(i * 3) % 60:02d}:{(i * 17) % 60:02d} [error] "
            f"{rng.randint(800, 900)}#{rng.randint(800, 900)}: *{rng.randint(10000, 99999)} "
            f"{rng.choice(errs)}, client: 192.0.2.{rng.randint(2, 250)}, server: "
            f'home.example.net, request: "{rng.choice(("GET", "PROPFIND", "PUT"))} '
            f'{rng.choice(paths)} HTTP/2.0", upstream: "fastcgi://unix:/run/php/php8.2-fpm.sock:", '
            f'host: "home.example.net"'
        )
    return "\n".join(out) + "\n"


def _release_notes(rng: random.Random) -> str:
    """A long fetched web page: release notes with many small bullet points."""
    areas = ("Files", "Photos", "Calendar", "Contacts", "Talk", "Server", "Security", "Mail")
    verbs = ("Fix", "Improve", "Speed up", "Add", "Remove", "Harden", "Clarify", "Update")
    things = (
        "upload of large files",
        "thumbnail generation",
        "the sharing dialog",
        "WebDAV locking",
        "background job scheduling",
        "the admin overview",
        "CalDAV sync for recurring events",
        "two-factor setup",
        "the search index",
        "memory use of the preview worker",
        "dark theme contrast",
        "the occ CLI help",
    )
    out = ["HomeCloud Server 31.0.4 — release notes", "=" * 40, ""]
    for area in areas:
        out.append(f"## {area}")
        for _ in range(rng.randint(9, 14)):
            out.append(
                f"- {rng.choice(verbs)} {rng.choice(things)} "
                f"(#{rng.randint(40000, 49999)}, backport of #{rng.randint(38000, 39999)})"
            )
        out.append("")
    out.append(
        "Upgrade notes: run `occ upgrade` after replacing the code; PHP 8.1 is the "
        "minimum. Back up the database first."
    )
    return "\n".join(out) + "\n"


_MEALS = """\
Here's a vegetarian-leaning plan for the week, built so leftovers roll forward and the
shopping stays short.

| Day | Dinner | Leftover for lunch |
|---|---|---|
| Mon | Lentil and tomato curry with rice | curry |
| Tue | Sheet-pan gnocchi with peppers, red onion and feta | — |
| Wed | Bean chilli with jacket potatoes | chilli |
| Thu | Salmon (or tofu), greens and noodles with ginger-soy dressing | — |
| Fri | Homemade pizza: dough in the morning, toppings from the fridge | pizza |
| Sat | Big vegetable soup with bread and cheese | soup |
| Sun | Roast chicken thighs (or halloumi) with roast roots and gravy | roots |

**Shopping list (on top of pantry basics):** 2 onions, garlic, ginger, 3 peppers,
1 red onion, 500 g gnocchi, 200 g feta, 2 tins kidney beans, 2 tins tomatoes,
4 large potatoes, 2 salmon fillets or 400 g tofu, pak choi, noodles, 500 g flour,
yeast, mozzarella, carrots, parsnips, leek, celery, chicken thighs or halloumi, bread.

**Prep tips**
- Cook double rice on Monday; it becomes Wednesday's side if you prefer it to potatoes.
- The chilli freezes well; freeze half for a busy week.
- Start the pizza dough before work on Friday and leave it in the fridge.
"""

_STORY = """\
**Sami the Seahorse and the Lost Lantern**

Deep in a bay where the kelp swayed like green curtains, there lived a small seahorse
called Sami. Sami was slower than the fish and smaller than the crabs, but Sami had the
best tail-grip in the whole bay — once Sami held on to something, nothing could shake it
loose.

One evening, the old lantern-fish, Mira, came swimming by in a panic. "My light!" she
cried. "It slipped off in the current and drifted into the Tangle." The Tangle was the
darkest part of the kelp forest, where the currents twisted and even the bravest fish got
lost.

"I'll find it," said Sami. The fish laughed. "You? You're so slow!"

But Sami had a plan. Sami wrapped that famous tail around one kelp stem, then the next,
and the next, pulling along stem by stem while the current roared past. The fast fish were
swept away, but Sami held on. Deep in the Tangle, something glowed: Mira's light, caught
between two stones.

Sami curled a tail around it and made the long, careful way back. When Mira's light shone
again, the whole bay cheered — and from that night on, whenever someone needed to cross
the Tangle, they asked Sami to lead the way.

*The end.*
"""


def _pico_turns() -> list[tuple[str, ...]]:
    """The chat script: ("u", text) | ("a", text) | ("t", tool, args_json, output, reasoning)."""
    return [
        ("u", "Good morning! What's a quick breakfast with oats that isn't porridge?"),
        (
            "a",
            "Overnight oats (oats, yoghurt, milk, fruit, left in the fridge) or oat pancakes: "
            "blend 100 g oats with a banana, an egg and a splash of milk, then fry small "
            "rounds for 2 minutes a side.",
        ),
        ("u", "Pancakes. Thanks!"),
        ("a", "Enjoy. A pinch of cinnamon in the batter works well with banana."),
        ("u", "Can you check the weather for Tromsø this weekend?"),
        (
            "t",
            "web_fetch",
            '{"url": "https://weather.example.com/api/v1/forecast?city=tromso&days=3"}',
            '{"city":"Tromsø","days":[{"date":"2026-03-07","min":-6,"max":-1,"summary":"snow showers",'
            '"wind_ms":9},{"date":"2026-03-08","min":-8,"max":-3,"summary":"clear, aurora likely",'
            '"wind_ms":4},{"date":"2026-03-09","min":-4,"max":0,"summary":"cloudy","wind_ms":6}]}',
            "User wants the weekend forecast; fetch it.",
        ),
        (
            "a",
            "Tromsø this weekend: Saturday snow showers, −6 to −1 °C and windy; Sunday clear "
            "and colder (−8 to −3 °C) with a good chance of aurora; Monday cloudy around 0 °C.",
        ),
        ("u", "Sunday night for the northern lights then. What should I wear?"),
        (
            "a",
            "Layers: thermal base layer, fleece or wool mid-layer, insulated jacket and "
            "windproof trousers. Warm boots with thick wool socks, a hat that covers your "
            "ears, and mittens over thin gloves so you can use your phone camera. Bring a "
            "thermos — you'll be standing still for a long time.",
        ),
        ("u", "I need a lentil curry recipe for four people tonight."),
        ("a", _RECIPE),
        ("u", "no coconut milk in the house. alternative?"),
        (
            "a",
            "Use 200 g plain yoghurt stirred in off the heat at the end (so it doesn't split), "
            "or 400 g chopped tomatoes added with the stock for a tangier curry.",
        ),
        ("u", "tomatoes it is"),
        ("a", "Good choice — add a pinch of sugar if the tomatoes are sharp."),
        (
            "u",
            "Help me write an email to my team moving our Thursday meeting from 9 to 10:30. "
            "Reason: school run, and Lisbon colleagues.",
        ),
        ("a", _EMAIL),
        ("u", "Make it shorter, it's a small team."),
        (
            "a",
            "Subject: Thursday sync → 10:30\n\nHi all, from next week our Thursday sync "
            "moves to 10:30 (same room and link) — easier around the school run and for "
            "Lisbon. Agenda items by Wednesday evening as usual. Thanks, Sam",
        ),
        ("u", "perfect"),
        ("a", "Glad it works. Want me to remind you to send it?"),
        ("u", "No, sent already. How much disk space is left on the home server?"),
        (
            "t",
            "exec",
            '{"command": "df -h /srv /home"}',
            "Filesystem      Size  Used Avail Use% Mounted on\n"
            "/dev/sda2       916G  801G   69G  93% /srv\n"
            "/dev/sdb1       1.8T  1.1T  643G  63% /home\n",
            "Run df on the server.",
        ),
        (
            "a",
            "/srv is at 93 % (69 GB free of 916 GB); /home has 643 GB free (63 % used). "
            "/srv is the one to watch.",
        ),
        ("u", "What's eating /srv?"),
        (
            "t",
            "exec",
            '{"command": "du -xh --max-depth=1 /srv | sort -rh | head -n 12"}',
            "801G\t/srv\n512G\t/srv/media\n171G\t/srv/backups\n64G\t/srv/photos-import\n"
            "31G\t/srv/docker\n12G\t/srv/nextcloud\n6.1G\t/srv/logs\n2.3G\t/srv/git\n"
            "1.1G\t/srv/www\n420M\t/srv/scratch\n",
            "Find the big directories.",
        ),
        (
            "a",
            "Mostly media (512 GB) and backups (171 GB). /srv/photos-import (64 GB) looks "
            "like a one-off import — if those photos are already in your library, that's "
            "the easiest space to free. /srv/logs at 6 GB could also be rotated.",
        ),
        ("u", "photos-import is a duplicate, I'll delete it myself later"),
        ("a", "Sounds good. That brings /srv down to about 86 %."),
        (
            "u",
            "Remind me what the rules are for the community garden plot? The page is "
            "garden.example.org/rules",
        ),
        (
            "t",
            "web_fetch",
            '{"url": "https://garden.example.org/rules"}',
            _PAGE,
            "Fetch the garden rules page.",
        ),
        (
            "a",
            "Key points: open 07:00–21:00 in summer (08:00–18:00 in winter); the gate code "
            "changes monthly; work days are the second Saturday of each month 10:00–13:00 "
            "and you're asked to attend three per season; no pesticides at all, slug pellets "
            "only ferric phosphate; green waste only in the compost.",
        ),
        ("u", "when's the next work day?"),
        ("a", "The second Saturday of March 2026 is 14 March, 10:00–13:00."),
        (
            "u",
            "ok. Plan a 3-day city trip for me and my partner, somewhere coastal, not too "
            "expensive, early May.",
        ),
        ("a", _TRIP),
        ("u", "sounds lovely. which city did you have in mind though? 😄"),
        (
            "a",
            "Fair point — I described a generic harbour town. That plan fits Bergen or "
            "Gothenburg well; for lower prices in early May, Gdańsk is a great match: old "
            "town, harbour, a ferry to the Hel peninsula, and meals at about half the price.",
        ),
        ("u", "Gdańsk! Flights from Oslo?"),
        (
            "t",
            "web_fetch",
            '{"url": "https://flights.example.com/search?from=OSL&to=GDN&month=2026-05"}',
            '{"route":"OSL-GDN","results":[{"date":"2026-05-01","dep":"07:05","arr":"08:50",'
            '"price_eur":49},{"date":"2026-05-01","dep":"18:40","arr":"20:25","price_eur":72},'
            '{"date":"2026-05-04","dep":"21:10","arr":"22:55","price_eur":38}],"currency":"EUR"}',
            "Search flights OSL-GDN in May.",
        ),
        (
            "a",
            "Direct flights exist: 1 May 07:05 → 08:50 for 49 EUR or 18:40 → 20:25 for 72 "
            "EUR; back on 4 May 21:10 → 22:55 for 38 EUR. Prices per person, one way.",
        ),
        ("u", "Morning flight out, evening back. Total for two?"),
        ("a", "(49 + 38) × 2 = 174 EUR for both of you, before baggage."),
        ("u", "great. totally unrelated: how do I get candle wax out of a tablecloth?"),
        (
            "a",
            "Let it harden (an ice cube helps), scrape off what you can, then put paper "
            "towel on both sides and iron on low heat — the paper soaks up the wax. Move to a "
            "clean patch of paper until nothing more transfers. Treat any colour stain with "
            "a little washing-up liquid, then wash as usual.",
        ),
        ("u", "worked!"),
        ("a", "Excellent."),
        ("u", "What's 18% of 2,340?"),
        ("a", "421.20"),
        ("u", "and with 25% VAT on top of 2,340?"),
        ("a", "2,925.00 (2,340 × 1.25)."),
        ("u", "Can you check if the backup job ran last night?"),
        (
            "t",
            "exec",
            '{"command": "journalctl -u restic-backup --since yesterday --no-pager | tail -n 15"}',
            "\n".join(
                f"Mar 06 02:{m:02d}:{(m * 7) % 60:02d} homeserver restic[{4100 + m}]: {line}"
                for m, line in enumerate(
                    [
                        "open repository",
                        "lock repository",
                        "using parent snapshot 3f1a9c2e",
                        "load index files",
                        "start scan on [/srv/nextcloud /srv/git /home/dev]",
                        "start backup on [/srv/nextcloud /srv/git /home/dev]",
                        "scan finished in 41.122s: 182311 files, 96.402 GiB",
                        "Files:         212 new,   1043 changed, 181056 unmodified",
                        "Dirs:           18 new,    301 changed,  20544 unmodified",
                        "Added to the repository: 1.822 GiB (1.104 GiB stored)",
                        "processed 182311 files, 96.402 GiB in 3:12",
                        "snapshot 8d02be71 saved",
                        "restic-backup.service: Deactivated successfully.",
                    ]
                )
            )
            + "\n",
            "Check the systemd journal for the backup unit.",
        ),
        (
            "a",
            "Yes — it ran at 02:00 and finished cleanly: snapshot 8d02be71, 1.8 GiB added "
            "(1.1 GiB after deduplication), 182,311 files in about 3 minutes.",
        ),
        ("u", "👍"),
        ("a", "👍"),
        ("u", "Explain like I'm 12: why does the moon look bigger near the horizon?"),
        (
            "a",
            "It isn't actually bigger — a photo shows the same size. Your brain is doing "
            "the trick. Near the horizon you see the moon next to trees and houses, and your "
            "brain thinks 'it's far away behind all that', so it decides the moon must be "
            "huge. High in the sky there's nothing to compare it with, so it looks smaller. "
            "It's called the moon illusion, and scientists still argue about the details!",
        ),
        ("u", "my kid says thanks"),
        (
            "a",
            "Tell them to try the paper-tube test: look at the horizon moon through a rolled "
            "up sheet of paper and the illusion disappears.",
        ),
        ("u", "Set a shopping list: oats, bananas, eggs, tomatoes, lentils, rice, dish soap"),
        (
            "t",
            "exec",
            '{"command": "todo add --list shopping oats bananas eggs tomatoes lentils rice \'dish soap\'"}',
            "Added 7 items to list 'shopping' (now 9 items).",
            "Use the todo CLI.",
        ),
        ("a", "Added 7 items; your shopping list now has 9 items (2 were already on it)."),
        ("u", "what were the other 2?"),
        (
            "t",
            "exec",
            '{"command": "todo show --list shopping"}',
            "shopping (9)\n  [ ] coffee\n  [ ] batteries AA\n  [ ] oats\n  [ ] bananas\n"
            "  [ ] eggs\n  [ ] tomatoes\n  [ ] lentils\n  [ ] rice\n  [ ] dish soap\n",
            "Show the list.",
        ),
        ("a", "Coffee and AA batteries."),
        ("u", "Translate 'where is the ferry to Hel?' into Polish"),
        ("a", '„Skąd odpływa prom na Hel?" (literally: where does the ferry to Hel leave from?)'),
        (
            "u",
            "Thanks. One more: a short birthday message for my colleague Jonas, 40 today, "
            "loves cycling",
        ),
        (
            "a",
            "Happy 40th, Jonas! May the next decade bring tailwinds, smooth roads and "
            "plenty of cake at the top of every climb. 🚴",
        ),
        ("u", "lovely"),
        ("a", "Have a good day!"),
        (
            "u",
            "Can you plan dinners for next week? Mostly vegetarian, two of us, lunches "
            "from leftovers.",
        ),
        ("a", _MEALS),
        ("u", "swap the salmon for something cheaper"),
        (
            "a",
            "Thursday becomes egg-fried rice with frozen peas, spring onions and the "
            "leftover Monday rice — cheaper and uses what you have.",
        ),
        ("u", "The cloud web UI is slow tonight. Can you look at the nginx error log?"),
        (
            "t",
            "exec",
            '{"command": "tail -n 120 /var/log/nginx/error.log"}',
            _nginx_log(random.Random(61), 120),
            "Tail the nginx error log.",
        ),
        (
            "a",
            "Most errors are upstream timeouts from php-fpm on WebDAV and photo-album "
            "requests, plus a few 'connection refused' — php-fpm looks overloaded or "
            "restarting. Check `systemctl status php8.2-fpm` and consider raising "
            "`pm.max_children`; the favicon 404s are harmless.",
        ),
        ("u", "Is there a newer HomeCloud release that might help?"),
        (
            "t",
            "web_fetch",
            '{"url": "https://homecloud.example.org/changelog/31.0.4"}',
            _release_notes(random.Random(62)),
            "Fetch the release notes.",
        ),
        (
            "a",
            "31.0.4 is out. Relevant for you: several fixes to thumbnail generation and the "
            "preview worker's memory use, and faster WebDAV locking — which matches the "
            "timeouts you're seeing. Back up the database, replace the code, run `occ "
            "upgrade`; PHP 8.1 is the minimum, and you're on 8.2.",
        ),
        ("u", "I'll upgrade on Saturday. Bedtime story request: a seahorse, for a 6-year-old."),
        ("a", _STORY),
        ("u", "she loved it"),
        ("a", "I'm so glad! Sami can have more adventures any time."),
        ("u", "Back again. Summarise what we planned for Gdańsk in 3 bullet points."),
        (
            "a",
            "- Fly OSL → GDN on 1 May at 07:05, back 4 May at 21:10 (174 EUR for two).\n"
            "- Saturday: old town, market hall, harbour; Sunday: ferry to the Hel peninsula "
            "and the coastal path.\n"
            "- Budget about 90–120 EUR per person per day; book Sunday dinner in advance.",
        ),
        ("u", "add sunscreen to the shopping list, it's for the trip"),
        (
            "t",
            "exec",
            '{"command": "todo add --list shopping sunscreen"}',
            "Added 1 item to list 'shopping' (now 10 items).",
            "One more item.",
        ),
        ("a", "Added — 10 items on the list now."),
        ("u", "what time is it in Lisbon right now?"),
        ("a", "It's 23:58 in Lisbon (one hour behind Oslo)."),
        ("u", "good night!"),
        ("a", "Good night — sleep well."),
    ]


def picoclaw_long_chat() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    rng = random.Random(6002)
    now = datetime(2026, 3, 6, 7, 12, 3, tzinfo=UTC)
    model = "gpt-4.1-mini"
    lines: list[dict[str, Any]] = []
    n_call = 0

    def stamp(lo: float, hi: float) -> str:
        nonlocal now
        now += timedelta(seconds=rng.uniform(lo, hi), microseconds=rng.randint(0, 999_999))
        return now.strftime("%Y-%m-%dT%H:%M:%S.%f") + f"{rng.randint(0, 999):03d}Z"

    for item in _pico_turns():
        if item[0] == "u":
            lines.append({"role": "user", "content": item[1], "created_at": stamp(60, 3600)})
        elif item[0] == "a":
            lines.append(
                {
                    "role": "assistant",
                    "content": item[1],
                    "model_name": model,
                    "created_at": stamp(2, 9),
                }
            )
        else:
            _, name, args, output, reasoning = item
            n_call += 1
            cid = f"call_pc{n_call:02d}"
            lines.append(
                {
                    "role": "assistant",
                    "content": "",
                    "model_name": model,
                    "created_at": stamp(1, 4),
                    "reasoning_content": reasoning,
                    "tool_calls": [
                        {
                            "id": cid,
                            "type": "function",
                            "function": {"name": name, "arguments": args},
                        }
                    ],
                }
            )
            lines.append(
                {
                    "role": "tool",
                    "content": output,
                    "created_at": stamp(0.3, 3),
                    "tool_call_id": cid,
                }
            )
    meta = {
        "key": "sk_v1_5c0ffee0d15ea5e0000000000000000000000000000000000000000000000a1",
        "summary": "",
        "skip": 0,
        "count": len(lines),
        "created_at": lines[0]["created_at"][:19] + "Z",
        "updated_at": lines[-1]["created_at"][:19] + "Z",
        "scope": {
            "version": 1,
            "agent_id": "main",
            "channel": "telegram",
            "account": "bot1",
            "dimensions": ["chat"],
            "values": {"chat": "direct:10001"},
        },
        "aliases": ["agent:main:telegram:direct:10001"],
    }
    return lines, meta


# ---------------------------------------------------------------------------------------------
# 3. claude_code_compacted.jsonl: Claude Code transcript with a compaction mid-file
# ---------------------------------------------------------------------------------------------

CC_SESSION = "5e551090-0000-4000-8000-00000000c0de"
CC_CWD = "/home/dev/handbook"


class ClaudeCode:
    """Writes Claude Code lines: the uuid chain, per-block assistant split, shared usage."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.now = datetime(2026, 1, 19, 13, 2, 11, tzinfo=UTC)
        self.parent: str | None = None
        self.n = 0
        self.rng = random.Random(3003)

    def _env(self, kind: str, lo: float = 0.2, hi: float = 4.0) -> dict[str, Any]:
        self.n += 1
        self.now += timedelta(milliseconds=int(self.rng.uniform(lo, hi) * 1000))
        uid = f"{self.n:08x}-cc00-4000-8000-{self.n * 7919:012x}"
        env = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": CC_CWD,
            "sessionId": CC_SESSION,
            "version": "2.1.14",
            "gitBranch": "docs-xref",
            "type": kind,
            "uuid": uid,
            "timestamp": self.now.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        }
        self.parent = uid
        return env

    def user(self, content: Any, **extra: Any) -> str:
        line = self._env("user", 20, 180)
        line["message"] = {"role": "user", "content": content}
        line.update(extra)
        self.lines.append(line)
        return str(line["uuid"])

    def assistant(self, blocks: list[dict[str, Any]], usage: dict[str, int], stop: str) -> str:
        """One API response, written as one line per content block with the same usage."""
        msg_id = f"msg_01{self.rng.getrandbits(64):016X}"
        req_id = f"req_01{self.rng.getrandbits(64):016X}"
        full_usage = {**usage, "service_tier": "standard"}
        for i, block in enumerate(blocks):
            line = self._env("assistant")
            line["requestId"] = req_id
            line["message"] = {
                "id": msg_id,
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5-20250929",
                "content": [block],
                "stop_reason": stop if i == len(blocks) - 1 else None,
                "stop_sequence": None,
                "usage": full_usage,
            }
            self.lines.append(line)
        return msg_id

    def result(
        self, tool_use_id: str, text: str, rich: dict[str, Any], error: bool = False
    ) -> None:
        source = self.parent
        self.user(
            [{"type": "tool_result", "tool_use_id": tool_use_id, "content": text,
              "is_error": error}],
            toolUseResult=rich,
            sourceToolAssistantUUID=source,
        )  # fmt: skip


def _sphinx_log(rng: random.Random, warnings: int, broken: bool) -> str:
    pages = (
        "install",
        "config",
        "deploy/docker",
        "deploy/systemd",
        "api/index",
        "api/auth",
        "api/webhooks",
        "howto/backup",
        "howto/restore",
        "faq",
        "changelog",
        "glossary",
    )
    out = [
        "sphinx-build -W --keep-going -b html docs docs/_build/html",
        "Running Sphinx v7.3.7",
        "loading translations [en]... done",
        "making output directory... done",
        "loading intersphinx inventory 'python' from https://docs.python.org/3/objects.inv ...",
        "building [mo]: targets for 0 po files that are out of date",
        f"building [html]: targets for {len(pages) * 4} source files that are out of date",
        "updating environment: [new config] 48 added, 0 changed, 0 removed",
    ]
    for i in range(48):
        out.append(f"reading sources... [{(i + 1) * 100 // 48:3d}%] {pages[i % len(pages)]}")
    for _ in range(warnings):
        page = rng.choice(pages)
        out.append(
            f"{CC_CWD}/docs/{page}.rst:{rng.randint(5, 300)}: WARNING: undefined label: "
            f"'{rng.choice(pages).replace('/', '-')}-{rng.choice(('intro', 'options', 'limits'))}'"
        )
    if broken:
        out.append(
            f"{CC_CWD}/docs/howto/restore.rst:41: WARNING: py:func reference target not found: "
            "handbook.backup.restore_snapshot [ref.func]"
        )
    for i in range(48):
        out.append(f"writing output... [{(i + 1) * 100 // 48:3d}%] {pages[i % len(pages)]}")
    if broken or warnings:
        out.append(f"build finished with problems, {warnings + int(broken)} warnings.")
        out.append("make: *** [Makefile:20: html] Error 1")
    else:
        out.append("build succeeded.")
    return "\n".join(out) + "\n"


def claude_code_compacted() -> list[dict[str, Any]]:
    cc = ClaudeCode()
    rng = random.Random(3004)
    backup_src = python_module(
        rng,
        "Backups for the handbook service: snapshots, retention and restore.",
        """\
        from __future__ import annotations

        import logging
        from collections import defaultdict
        from collections.abc import Iterable, Iterator, Mapping, Sequence
        from dataclasses import dataclass, replace
        from decimal import Decimal, InvalidOperation

        log = logging.getLogger(__name__)
        MAX_PER_BUCKET = 100
        """,
        "",
        22,
    )
    lines = cc.lines
    lines.append(
        {
            "type": "file-history-snapshot",
            "messageId": "00000001-cc00-4000-8000-000000001eef",
            "snapshot": {
                "messageId": "00000001-cc00-4000-8000-000000001eef",
                "trackedFileBackups": {},
                "timestamp": "2026-01-19T13:02:11.000Z",
            },
            "isSnapshotUpdate": False,
        }
    )
    cc.user(
        "<system-reminder>\nAs you answer the user's questions, you can use the following "
        "context:\n# claudeMd\nContents of /home/dev/handbook/CLAUDE.md (project "
        "instructions):\n\n- Docs are built with `make -C docs html`; warnings are errors.\n"
        "- Never edit files under docs/_build.\n</system-reminder>",
        isMeta=True,
    )
    cc.user("The docs build fails on CI with a broken cross-reference. Can you fix it?")
    use = {"input_tokens": 4, "cache_creation_input_tokens": 6120, "cache_read_input_tokens": 11875,
           "output_tokens": 212}  # fmt: skip
    cc.assistant(
        [
            {
                "type": "thinking",
                "thinking": "Run the docs build to see the exact warning.",
                "signature": "EqMBCkYIBxgCKkB" + "x" * 180 + "==",
            },
            {"type": "text", "text": "Let me reproduce the build failure first."},
            {
                "type": "tool_use",
                "id": "toolu_01DocsBuild0001",
                "name": "Bash",
                "input": {"command": "make -C docs html", "description": "Build the docs"},
            },
        ],
        use,
        "tool_use",
    )
    log = _sphinx_log(rng, 0, True)
    cc.result(
        "toolu_01DocsBuild0001",
        log,
        {"stdout": log, "stderr": "", "interrupted": False, "isImage": False},
        error=True,
    )
    use = {"input_tokens": 6, "cache_creation_input_tokens": 2410, "cache_read_input_tokens": 17995,
           "output_tokens": 164}  # fmt: skip
    cc.assistant(
        [
            {
                "type": "text",
                "text": "The reference `handbook.backup.restore_snapshot` is not "
                "found. I'll read the backup module and search for the function.",
            },
            {
                "type": "tool_use",
                "id": "toolu_01ReadBackup002",
                "name": "Read",
                "input": {"file_path": f"{CC_CWD}/src/handbook/backup.py"},
            },
            {
                "type": "tool_use",
                "id": "toolu_01GrepRestore03",
                "name": "Grep",
                "input": {
                    "pattern": "restore_snapshot|def restore",
                    "output_mode": "content",
                    "-n": True,
                },
            },
        ],
        use,
        "tool_use",
    )
    body = numbered(backup_src + "\n\ndef restore(snapshot_id: str, target: Path) -> None:\n"
                    '    """Restore a snapshot into ``target`` (renamed from restore_snapshot '
                    'in 0.9)."""\n    ...\n')  # fmt: skip
    cc.result(
        "toolu_01ReadBackup002",
        body,
        {
            "type": "text",
            "file": {
                "filePath": f"{CC_CWD}/src/handbook/backup.py",
                "content": backup_src,
                "numLines": body.count("\n") + 1,
                "startLine": 1,
                "totalLines": body.count("\n") + 1,
            },
        },
    )
    grep = (
        "src/handbook/backup.py:171:def restore(snapshot_id: str, target: Path) -> None:\n"
        "docs/howto/restore.rst:41:Call :py:func:`handbook.backup.restore_snapshot` with the\n"
        "CHANGELOG.md:88:- `restore_snapshot` renamed to `restore` (0.9).\n"
    )
    cc.result(
        "toolu_01GrepRestore03",
        grep,
        {"mode": "content", "numFiles": 3, "filenames": [], "content": grep, "numLines": 3},
    )
    use = {"input_tokens": 5, "cache_creation_input_tokens": 7702, "cache_read_input_tokens": 20405,
           "output_tokens": 301}  # fmt: skip
    old = "Call :py:func:`handbook.backup.restore_snapshot` with the"
    new = "Call :py:func:`handbook.backup.restore` with the"
    cc.assistant(
        [
            {
                "type": "text",
                "text": "The function was renamed to `restore` in 0.9 but the "
                "how-to still uses the old name. Updating the reference.",
            },
            {
                "type": "tool_use",
                "id": "toolu_01EditRestore04",
                "name": "Edit",
                "input": {
                    "file_path": f"{CC_CWD}/docs/howto/restore.rst",
                    "old_string": old,
                    "new_string": new,
                },
            },
        ],
        use,
        "tool_use",
    )
    cc.result(
        "toolu_01EditRestore04",
        f"The file {CC_CWD}/docs/howto/restore.rst has been updated. Here's the result of "
        "running `cat -n` on a snippet of the edited file:\n    40\t\n    41\t" + new + "\n",
        {
            "filePath": f"{CC_CWD}/docs/howto/restore.rst",
            "oldString": old,
            "newString": new,
            "originalFile": "Restoring a backup\n==================\n\n" + old + "\n",
            "structuredPatch": [
                {
                    "oldStart": 41,
                    "oldLines": 1,
                    "newStart": 41,
                    "newLines": 1,
                    "lines": [f"-{old}", f"+{new}"],
                }
            ],
            "userModified": False,
            "replaceAll": False,
        },
    )
    use = {"input_tokens": 5, "cache_creation_input_tokens": 390, "cache_read_input_tokens": 28107,
           "output_tokens": 58}  # fmt: skip
    cc.assistant(
        [{"type": "tool_use", "id": "toolu_01DocsBuild0005", "name": "Bash",
          "input": {"command": "make -C docs html", "description": "Rebuild the docs"}}],
        use,
        "tool_use",
    )  # fmt: skip
    log = _sphinx_log(rng, 14, False)
    cc.result(
        "toolu_01DocsBuild0005",
        log,
        {"stdout": log, "stderr": "", "interrupted": False, "isImage": False},
        error=True,
    )
    use = {"input_tokens": 6, "cache_creation_input_tokens": 3011, "cache_read_input_tokens": 28497,
           "output_tokens": 140}  # fmt: skip
    cc.assistant(
        [{"type": "text", "text": "The broken reference is fixed, but -W now surfaces 14 "
          "undefined-label warnings that CI had been hiding behind the first error. They "
          "all point at section labels that were renamed. Want me to fix those too?"}],
        use,
        "end_turn",
    )  # fmt: skip
    cc.user("Yes please, fix all of them.")
    use = {"input_tokens": 4, "cache_creation_input_tokens": 201, "cache_read_input_tokens": 31508,
           "output_tokens": 96}  # fmt: skip
    cc.assistant(
        [{"type": "tool_use", "id": "toolu_01GrepLabels06", "name": "Grep",
          "input": {"pattern": "^\\.\\. _", "path": "docs", "output_mode": "content",
                    "-n": True}}],
        use,
        "tool_use",
    )  # fmt: skip
    labels = "\n".join(
        f"docs/{p}.rst:{rng.randint(1, 200)}:.. _{p.replace('/', '-')}-{k}:"
        for p in ("install", "config", "deploy/docker", "deploy/systemd", "api/index",
                  "api/auth", "api/webhooks", "howto/backup", "howto/restore", "faq")
        for k in ("overview", "options", "limits-and-quotas", "troubleshooting")
    )  # fmt: skip
    cc.result(
        "toolu_01GrepLabels06",
        labels + "\n",
        {"mode": "content", "numFiles": 10, "filenames": [], "content": labels, "numLines": 40},
    )
    use = {"input_tokens": 4, "cache_creation_input_tokens": 1877, "cache_read_input_tokens": 31709,
           "output_tokens": 740}  # fmt: skip
    cc.assistant(
        [
            {
                "type": "thinking",
                "thinking": "The labels gained a longer suffix: -intro → "
                "-overview, -limits → -limits-and-quotas. A sed over docs/*.rst is safe because "
                "the old names appear only inside :ref: roles.",
                "signature": "EqQBCkYIBx" + "y" * 200,
            },
            {
                "type": "tool_use",
                "id": "toolu_01SedLabels007",
                "name": "Bash",
                "input": {
                    "command": "grep -rl ':ref:' docs --include='*.rst' | xargs sed -i "
                    "-e 's/-intro>`/-overview>`/g' -e 's/-limits>`/-limits-and-quotas>`/g'",
                    "description": "Rename old label references",
                },
            },
        ],
        use,
        "tool_use",
    )
    cc.result(
        "toolu_01SedLabels007",
        "",
        {"stdout": "", "stderr": "", "interrupted": False, "isImage": False},
    )
    use = {"input_tokens": 4, "cache_creation_input_tokens": 150, "cache_read_input_tokens": 33586,
           "output_tokens": 60}  # fmt: skip
    cc.assistant(
        [{"type": "tool_use", "id": "toolu_01DocsBuild0008", "name": "Bash",
          "input": {"command": "make -C docs html", "description": "Rebuild the docs"}}],
        use,
        "tool_use",
    )  # fmt: skip
    log = _sphinx_log(rng, 0, False)
    cc.result(
        "toolu_01DocsBuild0008",
        log,
        {"stdout": log, "stderr": "", "interrupted": False, "isImage": False},
    )
    use = {"input_tokens": 6, "cache_creation_input_tokens": 2650, "cache_read_input_tokens": 33736,
           "output_tokens": 88}  # fmt: skip
    last = cc.assistant(
        [{"type": "text", "text": "The docs build cleanly with -W now: one renamed function "
          "reference and 14 renamed section labels fixed."}],
        use,
        "end_turn",
    )  # fmt: skip
    del last
    pre_leaf = cc.parent
    cc.user(
        "<command-name>/compact</command-name>\n<command-message>compact</command-message>\n"
        "<command-args></command-args>"
    )
    # The boundary starts a new chain; logicalParentUuid links back to the old one.
    cc.parent = None
    boundary = cc._env("system", 30, 60)
    boundary.update(
        {
            "subtype": "compact_boundary",
            "content": "Conversation compacted",
            "isMeta": False,
            "level": "info",
            "logicalParentUuid": pre_leaf,
            "compactMetadata": {"trigger": "manual", "preTokens": 36474},
        }
    )
    lines.append(boundary)
    cc.user(
        "This session is being continued from a previous conversation that ran out of "
        "context. The summary below covers the earlier portion of the conversation.\n\n"
        "Summary:\n1. Primary Request and Intent:\n   The user asked to fix the docs build, "
        "which failed on CI with a broken cross-reference, then to fix all remaining "
        "warnings.\n\n2. Key Technical Concepts:\n   - Sphinx with -W (warnings are errors)\n"
        "   - :py:func: and :ref: roles; section labels\n\n3. Files and Code Sections:\n"
        "   - docs/howto/restore.rst: `handbook.backup.restore_snapshot` → "
        "`handbook.backup.restore` (renamed in 0.9)\n   - docs/*.rst: 14 :ref: targets "
        "renamed (-intro → -overview, -limits → -limits-and-quotas)\n\n4. Errors and fixes:\n"
        "   - Broken py:func reference; then 14 undefined labels surfaced by -W.\n\n"
        "5. Current Work:\n   `make -C docs html` succeeds.\n\n6. Pending Tasks:\n   None.",
        isCompactSummary=True,
        isVisibleInTranscriptOnly=True,
    )
    cc.user("Thanks. Can you add a CI check so a renamed function breaks the docs job early?")
    use = {"input_tokens": 4, "cache_creation_input_tokens": 5230, "cache_read_input_tokens": 11875,
           "output_tokens": 120}  # fmt: skip
    cc.assistant(
        [
            {"type": "text", "text": "I'll look at the current CI workflow first."},
            {
                "type": "tool_use",
                "id": "toolu_01ReadCI000009",
                "name": "Read",
                "input": {"file_path": f"{CC_CWD}/.github/workflows/docs.yml"},
            },
        ],
        use,
        "tool_use",
    )
    ci = (
        "name: docs\non:\n  pull_request:\n  push:\n    branches: [main]\njobs:\n  build:\n"
        "    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n"
        "      - uses: actions/setup-python@v5\n        with:\n          python-version: "
        "'3.12'\n      - run: pip install -e '.[docs]'\n      - run: make -C docs html\n"
    )
    cc.result(
        "toolu_01ReadCI000009",
        numbered(ci),
        {"type": "text", "file": {"filePath": f"{CC_CWD}/.github/workflows/docs.yml",
                                  "content": ci, "numLines": 15, "startLine": 1,
                                  "totalLines": 15}},
    )  # fmt: skip
    use = {"input_tokens": 5, "cache_creation_input_tokens": 610, "cache_read_input_tokens": 17105,
           "output_tokens": 210}  # fmt: skip
    new_ci = ci.replace(
        "      - run: make -C docs html\n",
        "      - run: make -C docs html SPHINXOPTS='-W --keep-going -n'\n",
    )
    cc.assistant(
        [{"type": "tool_use", "id": "toolu_01EditCI000010", "name": "Edit",
          "input": {"file_path": f"{CC_CWD}/.github/workflows/docs.yml",
                    "old_string": "      - run: make -C docs html\n",
                    "new_string": "      - run: make -C docs html SPHINXOPTS='-W --keep-going -n'\n"}}],
        use,
        "tool_use",
    )  # fmt: skip
    cc.result(
        "toolu_01EditCI000010",
        f"The file {CC_CWD}/.github/workflows/docs.yml has been updated.",
        {"filePath": f"{CC_CWD}/.github/workflows/docs.yml", "oldString": ci,
         "newString": new_ci, "originalFile": ci, "structuredPatch": [],
         "userModified": False, "replaceAll": False},
    )  # fmt: skip
    use = {"input_tokens": 5, "cache_creation_input_tokens": 330, "cache_read_input_tokens": 17715,
           "output_tokens": 75}  # fmt: skip
    cc.assistant(
        [{"type": "text", "text": "Done: the docs job now runs Sphinx in nit-picky mode (-n) "
          "with warnings as errors, so any missing reference target fails the PR."}],
        use,
        "end_turn",
    )  # fmt: skip
    lines.append(
        {"type": "summary", "summary": "Fix docs cross-references and harden the docs CI job",
         "leafUuid": cc.parent}
    )  # fmt: skip
    return lines


# ---------------------------------------------------------------------------------------------
# 4. codex_rollout.jsonl: Codex CLI rollout, current envelope
# ---------------------------------------------------------------------------------------------

CODEX_CWD = "/home/dev/linkcheck"


def codex_rollout() -> list[dict[str, Any]]:
    rng = random.Random(5005)
    now = datetime(2026, 2, 3, 16, 20, 0, tzinfo=UTC)
    out: list[dict[str, Any]] = []
    totals = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0,
              "reasoning_output_tokens": 0, "total_tokens": 0}  # fmt: skip
    prompt = 7400
    n_call = 0

    def emit(kind: str, payload: dict[str, Any], lo: float = 0.05, hi: float = 2.0) -> None:
        nonlocal now
        now += timedelta(milliseconds=int(rng.uniform(lo, hi) * 1000))
        ts = now.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        out.append({"timestamp": ts, "type": kind, "payload": payload})

    def item(payload: dict[str, Any], lo: float = 0.05, hi: float = 2.0) -> None:
        emit("response_item", payload, lo, hi)

    def tokens(added: int, output: int, reasoning: int) -> None:
        nonlocal prompt
        last = {"input_tokens": prompt, "cached_input_tokens": (prompt * 9 // 10) // 64 * 64,
                "output_tokens": output, "reasoning_output_tokens": reasoning,
                "total_tokens": prompt + output}  # fmt: skip
        for k in totals:
            totals[k] += last[k]
        emit(
            "event_msg",
            {"type": "token_count",
             "info": {"total_token_usage": dict(totals), "last_token_usage": last,
                      "model_context_window": 272000},
             "rate_limits": {"primary": {"used_percent": 4.0, "window_minutes": 300,
                                         "resets_in_seconds": 14400},
                             "secondary": {"used_percent": 1.0, "window_minutes": 10080,
                                           "resets_in_seconds": 500000}}},
        )  # fmt: skip
        prompt += added + output

    def user(text: str, turn: str) -> None:
        emit(
            "turn_context",
            {"turn_id": turn, "cwd": CODEX_CWD, "approval_policy": "on-request",
             "sandbox_policy": {"type": "workspace-write", "network_access": False},
             "model": "gpt-5-codex", "effort": "medium", "summary": "auto",
             "current_date": "2026-02-03", "timezone": "Europe/Berlin"},
            5, 60,
        )  # fmt: skip
        emit("event_msg", {"type": "task_started", "turn_id": turn, "model_context_window": 272000})
        item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})
        emit("event_msg", {"type": "user_message", "message": text, "images": [],
                           "local_images": [], "text_elements": []})  # fmt: skip

    def think(summary: str) -> None:
        blob = "gAAAAABp" + "".join(
            rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            for _ in range(rng.randint(600, 1400))
        )
        item({"type": "reasoning", "summary": [{"type": "summary_text", "text": summary}],
              "content": None, "encrypted_content": blob}, 1, 6)  # fmt: skip
        emit("event_msg", {"type": "agent_reasoning", "text": summary})

    def shell(cmd: str, output: str, code: int = 0) -> None:
        nonlocal n_call
        n_call += 1
        cid = f"call_cx{n_call:02d}{rng.getrandbits(40):010x}"
        item({"type": "function_call", "name": "shell",
              "arguments": json.dumps({"command": ["bash", "-lc", cmd], "workdir": CODEX_CWD,
                                       "timeout_ms": 120000}),
              "call_id": cid})  # fmt: skip
        tokens(len(output) // 4, rng.randint(40, 160), rng.randint(0, 96))
        wall = rng.uniform(0.05, 4.0)
        emit("event_msg", {"type": "exec_command_end", "call_id": cid, "exit_code": code,
                           "aggregated_output": output[:10000], "duration_ms": int(wall * 1000)},
             0.1, 4)  # fmt: skip
        item({"type": "function_call_output", "call_id": cid,
              "output": f"Exit code: {code}\nWall time: {wall:.1f} seconds\nOutput:\n{output}"})  # fmt: skip

    def say(text: str) -> None:
        item({"type": "message", "role": "assistant", "id": f"msg_{rng.getrandbits(64):016x}",
              "phase": "final_answer",
              "content": [{"type": "output_text", "text": text}]}, 1, 8)  # fmt: skip
        emit("event_msg", {"type": "agent_message", "message": text, "phase": "final_answer"})
        tokens(0, len(text) // 4 + 20, rng.randint(0, 64))

    emit("session_meta", {
        "id": "019c2a00-5e55-7000-8000-00000000c0de",
        "timestamp": "2026-02-03T16:20:00.000Z",
        "cwd": CODEX_CWD,
        "originator": "codex-tui",
        "cli_version": "0.98.0",
        "source": "cli",
        "model_provider": "openai",
        "base_instructions": {"text": (
            "You are Codex, a coding agent running in a terminal on the user's computer. "
            "You and the user share the same workspace. Keep going until the task is "
            "resolved. Use the shell tool to read files and run commands; prefer `rg` for "
            "search. Make minimal, focused changes and verify them by running the tests. "
            "When you finish, summarise what changed and how it was verified."
        )},
        "git": {"commit_hash": "3c9e1f0a7b2d4e6f8a0b1c2d3e4f5a6b7c8d9e0f", "branch": "main",
                "repository_url": "https://git.example.com/dev/linkcheck.git"},
    }, 0, 0)  # fmt: skip
    item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": (
        "<environment_context>\n  <cwd>/home/dev/linkcheck</cwd>\n  <approval_policy>on-request"
        "</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>"
        "restricted</network_access>\n  <shell>bash</shell>\n</environment_context>")}]})  # fmt: skip

    user("`linkcheck` reports relative links in Markdown as broken. Find out why and fix it.", "t1")
    think("**Exploring the link resolver**")
    shell("rg -n 'def resolve' -g '*.py'", "src/linkcheck/resolve.py:14:def resolve_link(base: "
          "str, href: str) -> str:\nsrc/linkcheck/resolve.py:41:def resolve_all(page: Page) -> "
          "list[str]:\n")  # fmt: skip
    resolve_src = python_module(
        rng,
        "Resolve hrefs found on a page into absolute URLs.",
        """\
        from __future__ import annotations

        import logging
        from collections import defaultdict
        from collections.abc import Iterable, Iterator, Mapping, Sequence
        from dataclasses import dataclass, replace
        from decimal import Decimal, InvalidOperation
        from urllib.parse import urljoin, urlsplit

        log = logging.getLogger(__name__)
        MAX_PER_BUCKET = 50
        """,
        '''
        def resolve_link(base: str, href: str) -> str:
            """Absolute URL for ``href`` found on the page at ``base``."""
            if urlsplit(href).scheme:
                return href
            return urljoin(base.rstrip("/") + "/", href)
        ''',
        12,
    )
    shell("sed -n '1,200p' src/linkcheck/resolve.py", resolve_src)
    think("**Spotting the trailing-slash bug**")
    shell("python -c \"from linkcheck.resolve import resolve_link; print(resolve_link("
          "'https://docs.example.com/guide/intro.md', 'setup.md'))\"",
          "https://docs.example.com/guide/intro.md/setup.md\n")  # fmt: skip
    shell(
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/linkcheck/resolve.py\n"
        '@@\n-    return urljoin(base.rstrip("/") + "/", href)\n+    return urljoin(base, href)\n'
        "*** End Patch\nEOF",
        "Success. Updated the following files:\nM src/linkcheck/resolve.py\n",
    )
    tests = pytest_log(rng, CODEX_CWD, {"tests/test_resolve.py": 24, "tests/test_crawl.py": 30},
                       [], 1.62)  # fmt: skip
    shell("pytest -q", tests)
    say("`resolve_link` appended a slash to every base URL, so `guide/intro.md` was treated "
        "as a directory and `setup.md` resolved to `guide/intro.md/setup.md`. `urljoin` "
        "already handles page-relative links, so the fix is to pass the base unchanged. "
        "All tests pass.")  # fmt: skip
    emit("event_msg", {"type": "task_complete", "turn_id": "t1", "duration_ms": 48210,
                       "last_agent_message": "`resolve_link` appended a slash…"})  # fmt: skip

    user("Add a regression test for that and for a base URL that really is a directory.", "t2")
    think("**Adding regression tests**")
    shell(
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: tests/test_resolve.py\n@@\n"
        "+def test_relative_to_page() -> None:\n"
        "+    assert resolve_link('https://d.example.com/g/intro.md', 'setup.md') == "
        "'https://d.example.com/g/setup.md'\n+\n+\n"
        "+def test_relative_to_directory() -> None:\n"
        "+    assert resolve_link('https://d.example.com/g/', 'setup.md') == "
        "'https://d.example.com/g/setup.md'\n*** End Patch\nEOF",
        "Success. Updated the following files:\nM tests/test_resolve.py\n",
    )
    shell("pytest -q tests/test_resolve.py", pytest_log(
        rng, CODEX_CWD, {"tests/test_resolve.py": 26}, [], 0.44, verbose=False))  # fmt: skip
    say("Added `test_relative_to_page` and `test_relative_to_directory`; both pass along with "
        "the rest of tests/test_resolve.py.")  # fmt: skip
    emit("event_msg", {"type": "task_complete", "turn_id": "t2", "duration_ms": 20500,
                       "last_agent_message": "Added test_relative_to_page…"})  # fmt: skip
    return out


# ---------------------------------------------------------------------------------------------
# 5. cjk_conversation.json: Anthropic Messages request in Chinese and Japanese
# ---------------------------------------------------------------------------------------------


def cjk_conversation() -> dict[str, Any]:
    log_zh = "\n".join(
        f"2026-01-2{d} 0{h}:1{m}:0{m} 错误 [订单服务] 用户 {1000 + d * 10 + m} 的订单金额计算失败："
        f"折扣券“新春满减”与会员折扣叠加后出现负数（-{m}.{h}0 元），已回滚事务。"
        for d in range(1, 4)
        for h in range(1, 4)
        for m in range(1, 4)
    )
    log_ja = "\n".join(
        f"[警告] 2026-01-23 10:{m:02d} 注文処理: クーポン「春のセール」の割引額が合計金額を"
        f"超えました（注文番号 JP-{5000 + m}、差額 {m * 37} 円）。処理を中断します。"
        for m in range(12)
    )
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 4096,
        "system": "你是一名资深后端工程师，熟悉 Python 和支付系统。请用用户使用的语言回答。"
        "ユーザーが日本語で質問した場合は日本語で答えてください。",
        "tools": [
            {
                "name": "search_logs",
                "description": "在生产日志中搜索（只读）。Search production logs (read-only).",
                "input_schema": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "description": "搜索关键词"},
                        "service": {"type": "string"},
                    },
                    "required": ["query"],
                },
            }
        ],
        "messages": [
            {
                "role": "user",
                "content": "我们的订单服务最近出现了一个奇怪的问题：有些订单在同时使用优惠券和会员折扣时，"
                "最终金额会变成负数。这个问题只在春节促销期间出现。你能帮我看看可能的原因吗？",
            },
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "thinking",
                        "thinking": "先查日志，确认负数金额出现的条件。",
                        "signature": "EqQBCkYIBxgCKkA" + "z" * 120,
                    },
                    {"type": "text", "text": "好的，我先在日志里搜索相关的错误记录。"},
                    {
                        "type": "tool_use",
                        "id": "toolu_01CjkSearch0001",
                        "name": "search_logs",
                        "input": {"query": "订单金额计算失败 折扣", "service": "订单服务"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_01CjkSearch0001",
                        "content": log_zh,
                    },
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "text",
                        "text": "从日志来看，问题出在折扣叠加的顺序上：满减券按原价计算门槛，"
                        "但会员折扣先把价格降到了门槛以下，随后满减仍然按原价的减免额扣除，"
                        "所以结果变成负数。\n\n建议的修复：\n1. 先应用会员折扣，再用折后价判断满减门槛；\n"
                        "2. 对最终金额做下限保护：`max(合计, Decimal('0.01'))`；\n"
                        "3. 为“会员折扣 + 满减券”的组合补充单元测试。",
                    }
                ],
            },
            {
                "role": "user",
                "content": "ありがとうございます。日本のストアでも同じような問題が報告されています。"
                "クーポン「春のセール」で割引額が合計金額を超えるケースです。同じ原因でしょうか？",
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "日本ストアのログも確認します。"},
                    {
                        "type": "tool_use",
                        "id": "toolu_01CjkSearch0002",
                        "name": "search_logs",
                        "input": {"query": "クーポン 割引額 超え", "service": "注文処理"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_01CjkSearch0002",
                        "content": [{"type": "text", "text": log_ja}],
                    },
                    {
                        "type": "text",
                        "text": "円は小数点以下がないので、その点も気をつけてください。",
                    },
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "text",
                        "text": "はい、同じ原因です。会員割引を先に適用したあと、クーポンの条件判定を"
                        "元の金額で行っているため、割引額が合計を超えてしまいます。\n\n"
                        "修正方針は中国ストアと同じですが、日本円は最小単位が 1 円なので、"
                        "丸めは `quantize(Decimal('1'))` で行い、下限は 1 円にしてください。"
                        "また、割引額の上限を「割引前の合計金額」ではなく「会員割引後の金額」に"
                        "するテストを追加することをおすすめします。",
                    }
                ],
            },
            {
                "role": "user",
                "content": "好的，明白了。谢谢！/ 了解しました。ありがとうございます！",
            },
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "不客气！修复后如需代码审查，随时告诉我。🙂"}],
            },
        ],
    }


# ---------------------------------------------------------------------------------------------
# 6. markup_and_ansi.json: OpenAI Chat whose tool outputs would break a naive renderer
# ---------------------------------------------------------------------------------------------


def markup_and_ansi() -> Session:
    rng = random.Random(6006)
    st = Story(datetime(2026, 1, 8, 22, 1, 0, tzinfo=UTC), "gpt-4.1-mini", "call_mk", 66)
    st.user("Run the build script and tell me what failed. Output is colourful, sorry.")
    ids = st.assistant("", [("run_shell", {"command": "./build.sh --verbose"})])
    esc = "\x1b"
    build = (
        f"{esc}[1m{esc}[34m==> Building wheel{esc}[0m\n"
        f"{esc}[32m✔{esc}[0m compiled 41 modules\n"
        f"{esc}[33mwarning{esc}[0m: deprecated option {esc}[4m--legacy{esc}[24m\n"
        f"{esc}[31merror{esc}[0m: test [bold]broken[/bold] failed: [red]oops[/red]\n"
        "rich says: [bold magenta]Hello[/] [link=https://example.com]link[/link] [/]\n"
        "textual markup: [$accent]themed[/] [@click=app.quit]quit[/] [b]unclosed\n"
        "escaped brackets: \\[not markup] and [[double]] and [/nothing-open]\n"
        "progress: 10%\r 50%\r100%\r\n"
        "bell here ->\x07<- and backspaces: abc\x08\x08\x08xyz\n"
        "nul byte ->\x00<- form feed ->\x0c<- vertical tab ->\x0b<-\n"
        f"{esc}]0;window title{esc}\\ osc sequence above, then {esc}[2J clear-screen\n"
        "model tokens: <|endoftext|> <|im_start|>system <|im_end|> <|fim_prefix|>\n"
        "zero-width: a\u200bb\u200dc  rtl: \u202eabc\u202c  combining: e\u0301\n"
    )
    st.result(ids[0], build, is_error=True)
    st.assistant(
        "The build compiled but the test `broken` failed (the log says “oops”). The output "
        "also contains terminal escape codes and markup-like text, which I've ignored."
    )
    st.user("What's in the minified bundle? It's one enormous line.")
    ids = st.assistant("", [("read_file", {"path": "dist/app.min.js"})])
    chunks = []
    size = 0
    while size < 200_000:
        fn = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(2))
        piece = (
            f'function {fn}(e,t){{return e["[bold]"]?t.map(n=>n*{rng.randint(2, 97)}):'
            f"'{esc}[3{rng.randint(1, 7)}m'+e.k+'[/]'}};"
        )
        chunks.append(piece)
        size += len(piece)
    bundle = "".join(chunks)
    st.result(ids[0], bundle)
    st.assistant(
        f"It is a single {len(bundle):,}-character line of minified functions; several embed "
        "ANSI colour codes and `[bold]`/`[/]` strings in their literals."
    )
    st.user("Last one: show me the raw bytes of the README header.")
    ids = st.assistant("", [("run_shell", {"command": "head -c 64 README.md | cat -v"})])
    st.result(ids[0], "# Demo [/]\r\n\t[red]x[/red] \x1b[0m\x7f\x00 <|endoftext|>\n")
    st.assistant("The header contains a stray `[/]`, a CRLF line ending, DEL and NUL bytes.")
    return Session(
        messages=tuple(st.messages),
        system_prompt="You are a build assistant. [bold]Never[/bold] run destructive commands.",
        tools=CODING_TOOLS[:2],
        meta=SessionMeta(model="gpt-4.1-mini"),
    )


def main() -> None:
    write_json("coding_agent_overflow.json", to_openai(coding_agent_overflow()))
    write_native("demo.json", demo())
    lines, meta = picoclaw_long_chat()
    write_jsonl("picoclaw_long_chat.jsonl", lines)
    (HERE / "picoclaw_long_chat.meta.json").write_text(
        json.dumps(meta, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    write_jsonl("claude_code_compacted.jsonl", claude_code_compacted())
    write_jsonl("codex_rollout.jsonl", codex_rollout())
    write_json("cjk_conversation.json", cjk_conversation(), ascii_only=False)
    write_json("markup_and_ansi.json", to_openai(markup_and_ansi()))


if __name__ == "__main__":
    main()
