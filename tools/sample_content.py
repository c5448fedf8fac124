"""Plausible filler for the sample sessions: Python modules, pytest logs, CSV rows, shell output.

Why a generator instead of pasted text: the samples must be big (tens of thousands of tokens)
yet contain no real code or personal data, and must come out byte-identical on every run so
the committed files and the tests' expected counts never drift. Everything here is driven by
a seeded ``random.Random``; nothing reads the clock or the environment.
"""

from __future__ import annotations

import random
import textwrap

VERBS = (
    "load", "parse", "build", "validate", "normalise", "merge", "apply", "compute", "resolve",
    "render", "collect", "filter", "split", "format", "check", "reconcile", "lookup", "group",
)  # fmt: skip
NOUNS = (
    "order", "line", "discount", "rate", "tier", "invoice", "currency", "total", "basket",
    "coupon", "tax", "region", "reading", "station", "window", "batch", "record", "header",
)  # fmt: skip
ATTRS = (
    "amount", "quantity", "code", "region", "created_at", "currency", "sku", "weight",
    "station_id", "label", "precision", "offset",
)  # fmt: skip

_FUNC_TEMPLATES: tuple[str, ...] = (
    '''
    def {fn}({arg}: Iterable[{Cls}]) -> list[{Cls}]:
        """{Doc} the {noun}s that carry a {attr}; the rest are logged and skipped."""
        kept: list[{Cls}] = []
        for item in {arg}:
            if item.{attr} is None:
                log.debug("skipping %r: no {attr}", item)
                continue
            kept.append(item)
        return kept
    ''',
    '''
    def {fn}({arg}: {Cls}, *, strict: bool = False) -> {Cls}:
        """{Doc} one {noun}, raising in strict mode so bad input surfaces early."""
        if {arg}.{attr} is None:
            if strict:
                raise {Cls}Error(f"{noun} {{{arg}!r}} has no {attr}")
            return {arg}
        value = {arg}.{attr}
        if isinstance(value, str):
            value = value.strip()
        return replace({arg}, {attr}=value)
    ''',
    '''
    def {fn}({arg}: Mapping[str, {Cls}]) -> dict[str, int]:
        """{Doc} a count per {attr}, used by the nightly report."""
        counts: dict[str, int] = defaultdict(int)
        for key, item in sorted({arg}.items()):
            bucket = str(item.{attr} or "unknown")
            counts[bucket] += 1
            if counts[bucket] > MAX_PER_BUCKET:
                log.warning("bucket %s over limit at %s", bucket, key)
        return dict(counts)
    ''',
    '''
    def {fn}(raw: str) -> {Cls}:
        """{Doc} a {noun} from its wire form ``<{attr}>:<value>``."""
        head, sep, tail = raw.partition(":")
        if not sep:
            raise {Cls}Error(f"expected '<{attr}>:<value>', got {{raw!r}}")
        try:
            value = Decimal(tail)
        except InvalidOperation:
            raise {Cls}Error(f"not a number: {{tail!r}}") from None
        return {Cls}({attr}=head, amount=value)
    ''',
    '''
    class {Cls}{Suffix}:
        """{Doc}s {noun}s lazily; keeps a small cache because lookups repeat per batch."""

        def __init__(self, source: {Cls}Source, cache_size: int = 256) -> None:
            self._source = source
            self._cache: dict[str, {Cls}] = {{}}
            self._cache_size = cache_size

        def get(self, key: str) -> {Cls}:
            if key in self._cache:
                return self._cache[key]
            item = self._source.fetch(key)
            if len(self._cache) >= self._cache_size:
                self._cache.pop(next(iter(self._cache)))
            self._cache[key] = item
            return item

        def clear(self) -> None:
            self._cache.clear()
    ''',
    '''
    def {fn}(a: {Cls}, b: {Cls}) -> {Cls}:
        """{Doc} two {noun}s; the later {attr} wins, amounts add up."""
        if a.currency != b.currency:
            raise CurrencyMismatch(a.currency, b.currency)
        return {Cls}(
            {attr}=b.{attr} if b.{attr} is not None else a.{attr},
            amount=a.amount + b.amount,
            currency=a.currency,
        )
    ''',
    '''
    def {fn}({arg}: Sequence[{Cls}], size: int = 50) -> Iterator[list[{Cls}]]:
        """{Doc} {noun}s in batches so one slow {attr} does not stall the rest."""
        if size <= 0:
            raise ValueError("size must be positive")
        batch: list[{Cls}] = []
        for item in {arg}:
            batch.append(item)
            if len(batch) == size:
                yield batch
                batch = []
        if batch:
            yield batch
    ''',
)


def _camel(word: str) -> str:
    return "".join(p.capitalize() for p in word.split("_"))


def python_module(rng: random.Random, doc: str, imports: str, core: str, n_funcs: int) -> str:
    """A module: a docstring, imports, hand-written ``core`` code, then ``n_funcs`` fillers."""
    parts = [f'"""{doc}"""\n', textwrap.dedent(imports).strip() + "\n", textwrap.dedent(core)]
    seen: set[str] = set()
    while len(seen) < n_funcs:
        verb, noun, attr = rng.choice(VERBS), rng.choice(NOUNS), rng.choice(ATTRS)
        fn = f"{verb}_{noun}s" if rng.random() < 0.5 else f"{verb}_{noun}_{attr}"
        if fn in seen:
            continue
        seen.add(fn)
        tpl = rng.choice(_FUNC_TEMPLATES)
        parts.append(
            textwrap.dedent(tpl).format(
                fn=fn,
                arg=f"{noun}s",
                Cls=_camel(noun),
                Suffix=rng.choice(("Index", "Cache", "Resolver")),
                Doc=verb.capitalize(),
                noun=noun,
                attr=attr,
            )
        )
    return "\n".join(parts)


def numbered(text: str, start: int = 1) -> str:
    """``cat -n`` style numbering, the way read_file tools return source."""
    return "\n".join(f"{i:6d}\t{line}" for i, line in enumerate(text.splitlines(), start))


def pytest_log(
    rng: random.Random,
    root: str,
    test_files: dict[str, int],
    failures: list[tuple[str, str]],
    duration: float,
    verbose: bool = True,
    log_lines: int = 0,
) -> str:
    """A ``pytest -v`` run: a header, one line per test, then tracebacks and a summary.

    ``failures`` is ``[(node_id, traceback_body)]``; those tests print FAILED.
    """
    failed = {node for node, _ in failures}
    names: list[str] = []
    for path, count in test_files.items():
        for _ in range(count):
            verb, noun = rng.choice(VERBS), rng.choice(NOUNS)
            case = f"{path}::test_{verb}_{noun}"
            if rng.random() < 0.3:
                case += f"[{rng.choice(ATTRS)}-{rng.randint(1, 99)}]"
            names.append(case)
    names.extend(sorted(failed - set(names)))
    names.sort()
    total = len(names)
    out = [
        "=" * 29 + " test session starts " + "=" * 30,
        f"platform linux -- Python 3.11.9, pytest-8.2.1, pluggy-1.5.0 -- {root}/.venv/bin/python",
        "cachedir: .pytest_cache",
        "hypothesis profile 'default'",
        f"rootdir: {root}",
        "configfile: pyproject.toml",
        "plugins: cov-5.0.0, hypothesis-6.100.1, xdist-3.6.1",
        f"collecting ... collected {total} items",
        "",
    ]
    if verbose:
        for i, name in enumerate(names):
            status = (
                "FAILED" if name in failed else ("SKIPPED" if rng.random() < 0.02 else "PASSED")
            )
            pct = f"[{(i + 1) * 100 // total:3d}%]"
            out.append(f"{name} {status}".ljust(72) + pct)
    else:
        line = ""
        for name in names:
            line += "F" if name in failed else "."
            if len(line) == 72:
                out.append(line)
                line = ""
        if line:
            out.append(line)
    if failures:
        out += ["", "=" * 35 + " FAILURES " + "=" * 35]
        for node, body in failures:
            title = node.split("::", 1)[1]
            out.append(f" {title} ".center(80, "_"))
            out.append(textwrap.dedent(body).strip("\n"))
            if log_lines:
                out.append("-" * 28 + " Captured log call " + "-" * 29)
                for k in range(log_lines):
                    lvl = rng.choice(("DEBUG", "DEBUG", "INFO", "WARNING"))
                    mod = rng.choice(NOUNS)
                    out.append(
                        f"{lvl:<8} shopfront.{mod}:{mod}.py:"
                        f"{rng.randint(20, 480)} {rng.choice(VERBS)} {rng.choice(NOUNS)} "
                        f"id={rng.randint(1000, 9999)} {rng.choice(ATTRS)}="
                        f"{rng.randint(0, 500)}.{rng.randint(0, 99):02d} step={k}"
                    )
        out += ["", "=" * 27 + " short test summary info " + "=" * 28]
        for node, body in failures:
            last = [ln for ln in body.splitlines() if ln.strip().startswith("E ")]
            reason = last[0].strip()[1:].strip() if last else "failed"
            out.append(f"FAILED {node} - {reason}"[:160])
    n_failed = len(failures)
    passed = total - n_failed
    summary = f"{n_failed} failed, {passed} passed" if n_failed else f"{passed} passed"
    out.append(f" {summary} in {duration:.2f}s ".center(80, "="))
    return "\n".join(out) + "\n"


def shell_output(command: str, body: str, exit_code: int = 0, wall: float = 0.4) -> str:
    """The plain-text envelope coding agents' shell tools return."""
    return f"$ {command}\nexit code: {exit_code}\nwall time: {wall:.2f}s\n\n{body}"
