"""Pruning old tool outputs to the plan's stub, by turns (the plan, fixed) or by tokens (OpenCode).

Pruning yields ``PrunedOutput`` figures, never a modified session. Both rules prune a
contiguous run of an index built once per session and tokenizer (``ToolOutputs``), so a
re-plan finds the run by binary search.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Collection, Hashable, ItemsView, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from operator import sub
from typing import overload

from ctxtui.core.planning.plan import PrunedOutput
from ctxtui.core.policies.modes import PruneStub
from ctxtui.core.policies.policy import Policy
from ctxtui.core.session.models import Message, PartKind, Session
from ctxtui.core.tokens.tokenizers import Tokenizer

STUB: str = PruneStub.PLAN.value
"""The plan's stub text (its ``PruneStub`` row). Seahorse cannot expand it back (X26)."""

CLAUDE_CODE_TOOLS = frozenset(
    {"Read", "Bash", "Grep", "Glob", "Edit", "Write", "WebFetch", "WebSearch"}
)
"""The tools whose old results Claude Code's microcompact clears."""
OPENCODE_PROTECTED_TOOLS = frozenset({"skill"})
"""OpenCode's ``PRUNE_PROTECTED_TOOLS``: never pruned, and not counted toward the protection."""


def prunable_tool(tool_name: str | None, tools: str) -> bool:
    """Whether a result of ``tool_name`` may be pruned under ``Policy.prune_tools``."""
    if tools == "claude_code":
        return tool_name in CLAUDE_CODE_TOOLS
    if tools == "all_but_skill":
        return tool_name not in OPENCODE_PROTECTED_TOOLS
    return True


class StubCost:
    """Tokens a tool result costs once its text is the stub, counted once per shape (tool, id
    length, no media): every tokenizer charges the id by its length or not at all."""

    __slots__ = ("_count", "_known", "_stub")

    def __init__(self, count_message: Callable[[Message], int], stub: str = STUB) -> None:
        self._count = count_message
        self._known: dict[Hashable, int] = {}
        self._stub = stub

    def __call__(self, message: Message) -> int:
        parts = message.parts
        media = tuple(p for p in parts if p.kind is not PartKind.TEXT) if parts else ()
        call_id = message.tool_call_id
        id_bytes = (
            (len(call_id) if call_id.isascii() else len(call_id.encode("utf-8", "surrogatepass")))
            if call_id
            else 0
        )
        key = (
            message.role,
            id_bytes,
            message.name,
            message.tool_name,
            message.reasoning,
            message.tool_calls,
            media,
        )
        cost = self._known.get(key)
        if cost is None:
            shape = Message(
                role=message.role,
                content=self._stub,
                parts=media,
                tool_calls=message.tool_calls,
                tool_call_id="x" * id_bytes if id_bytes else None,
                tool_name=message.tool_name,
                reasoning=message.reasoning,
                name=message.name,
            )
            cost = self._known[key] = self._count(shape)
        return cost


@dataclass(frozen=True, slots=True)
class ToolOutputs:
    """A session's tool results with their token figures, built once per session and tokenizer;
    ``prunable``: those whose stub is smaller (X25) and that are not stubs already (X27)."""

    indices: Sequence[int]  # every tool result, ascending
    cum_tokens: Sequence[int]  # prefix sums of their sizes (tokens, or the raw text's), + 1
    stubbed: Sequence[int]  # results that already hold the stub
    prunable: Sequence[int]
    before: Sequence[int]
    after: Sequence[int]
    cum_freed: Sequence[int]  # prefix sums of before − after, len(prunable) + 1

    def window(self, start: int, stop: int, shift: int) -> ToolOutputs:
        """The results in ``[start, stop)``, renumbered by ``shift``: the index a session made
        of those messages (plus ``shift - start`` others before them, none a tool result)
        would build, without counting a stub again."""
        lo, hi = bisect_left(self.indices, start), bisect_left(self.indices, stop)
        plo, phi = bisect_left(self.prunable, start), bisect_left(self.prunable, stop)
        base, freed = self.cum_tokens[lo], self.cum_freed[plo]
        return ToolOutputs(
            indices=[i + shift for i in self.indices[lo:hi]],
            cum_tokens=[t - base for t in self.cum_tokens[lo : hi + 1]],
            stubbed=[
                i + shift
                for i in self.stubbed[
                    bisect_left(self.stubbed, start) : bisect_left(self.stubbed, stop)
                ]
            ],
            prunable=[i + shift for i in self.prunable[plo:phi]],
            before=self.before[plo:phi],
            after=self.after[plo:phi],
            cum_freed=[f - freed for f in self.cum_freed[plo : phi + 1]],
        )


@dataclass(frozen=True, slots=True)
class PruneRule:
    """Which tool outputs a prune may stub and how it measures them: ``stub`` is the text put
    in their place, tools ``tools`` excludes are neither pruned nor protected, and ``size(i)``
    is what the protection measures (OpenCode: the raw text), by default the message's tokens."""

    stub: str = STUB
    tools: str = "all"
    size: Callable[[int], int] | None = None


EVERY_OUTPUT = PruneRule()


def index_tool_outputs(
    session: Session,
    tokens: Sequence[int],
    stub_tokens: Callable[[int], int],
    rule: PruneRule = EVERY_OUTPUT,
) -> ToolOutputs:
    """Index the tool results under ``rule``; ``stub_tokens(i)`` counts message ``i`` with the
    stub as content."""
    stub, tools, size = rule.stub, rule.tools, rule.size
    messages = session.messages
    results = session.index.tool_results
    indices = (
        list(results)
        if tools == "all"
        else [i for i in results if prunable_tool(messages[i].tool_name, tools)]
    )
    stubbed: list[int] = []
    prunable: list[int] = []
    before: list[int] = []
    after: list[int] = []
    for i in indices:
        if messages[i].content == stub:
            stubbed.append(i)
            continue
        cost = stub_tokens(i)
        if cost < tokens[i]:
            prunable.append(i)
            before.append(tokens[i])
            after.append(cost)
    return ToolOutputs(
        indices=indices,
        cum_tokens=[0, *accumulate(size(i) if size else tokens[i] for i in indices)],
        stubbed=stubbed,
        prunable=prunable,
        before=before,
        after=after,
        cum_freed=[0, *accumulate(b - a for b, a in zip(before, after, strict=True))],
    )


def output_size(
    policy: Policy,
    tokenizer: Tokenizer,
    messages: Sequence[Message],
    tokens: Sequence[int],
    truncated: Collection[int],
) -> Callable[[int], int] | None:
    """How the tokens prune mode measures a result: its text with ``prune_size_output_text``
    (OpenCode's ``Token.estimate(part.state.output)``; a truncated output is stored as its
    preview, so that one is its message's tokens), else the message's tokens (``None``)."""
    if not policy.prune_size_output_text:
        return None
    return lambda i: tokens[i] if i in truncated else tokenizer.count_text(messages[i].content)


class _PrunedItems(ItemsView[int, PrunedOutput]):
    _mapping: PrunedRun

    def __iter__(self) -> Iterator[tuple[int, PrunedOutput]]:
        run = self._mapping
        o = run._outputs
        for p in range(run._lo, run._hi):
            index = o.prunable[p]
            yield (
                index,
                PrunedOutput(index=index, tokens_before=o.before[p], tokens_after=o.after[p]),
            )


class PrunedRun(Mapping[int, PrunedOutput]):
    """The pruned outputs: ``prunable[lo:hi]`` of a ``ToolOutputs``, as a read-only mapping."""

    __slots__ = ("_hi", "_lo", "_outputs")

    def __init__(self, outputs: ToolOutputs, lo: int = 0, hi: int = 0) -> None:
        self._outputs = outputs
        self._lo = lo
        self._hi = max(lo, hi)

    def _position(self, index: int) -> int:
        p = bisect_left(self._outputs.prunable, index, self._lo, self._hi)
        if p < self._hi and self._outputs.prunable[p] == index:
            return p
        return -1

    def __getitem__(self, index: int) -> PrunedOutput:
        p = self._position(index)
        if p < 0:
            raise KeyError(index)
        o = self._outputs
        return PrunedOutput(index=index, tokens_before=o.before[p], tokens_after=o.after[p])

    def __contains__(self, index: object) -> bool:
        return isinstance(index, int) and self._position(index) >= 0

    def __iter__(self) -> Iterator[int]:
        return iter(self._outputs.prunable[self._lo : self._hi])

    def items(self) -> ItemsView[int, PrunedOutput]:
        """Every pruned output in order, read off the arrays in one pass (``Mapping``'s
        default would look each key up again)."""
        return _PrunedItems(self)

    def after(self) -> Iterator[tuple[int, int]]:
        """(index, tokens as sent) per pruned output, in order, building no ``PrunedOutput``."""
        o, lo, hi = self._outputs, self._lo, self._hi
        return zip(o.prunable[lo:hi], o.after[lo:hi], strict=True)

    def freed(self) -> Iterator[tuple[int, int]]:
        """(index, tokens freed) per pruned output, in order, building no ``PrunedOutput``."""
        o, lo, hi = self._outputs, self._lo, self._hi
        return zip(o.prunable[lo:hi], map(sub, o.before[lo:hi], o.after[lo:hi]), strict=True)

    def __len__(self) -> int:
        return self._hi - self._lo

    def __repr__(self) -> str:
        return f"PrunedRun({len(self):,} outputs, {self.tokens_freed:,} tokens freed)"

    @property
    def tokens_freed(self) -> int:
        return self._outputs.cum_freed[self._hi] - self._outputs.cum_freed[self._lo]

    def freed_before(self, stop: int) -> int:
        """Tokens freed among messages ``[:stop]``, in O(log n)."""
        o = self._outputs
        p = min(max(bisect_left(o.prunable, stop), self._lo), self._hi)
        return o.cum_freed[p] - o.cum_freed[self._lo]


def prune_by_turns(outputs: ToolOutputs, boundary: int, threshold: int) -> PrunedRun:
    """Stub every prunable output before ``boundary`` if at least ``threshold`` of them are."""
    count = bisect_left(outputs.prunable, boundary)
    if count == 0 or count < threshold:
        return PrunedRun(outputs)
    return PrunedRun(outputs, 0, count)


def prune_by_tokens(
    outputs: ToolOutputs, boundary: int, protect_tokens: int, minimum_tokens: int
) -> PrunedRun:
    """OpenCode's prune (docs/presets.md): walking back from ``boundary`` to an earlier stub,
    keep the newest ``protect_tokens`` of output and stub the rest, if it measures more than
    ``minimum_tokens``."""
    hi = bisect_left(outputs.indices, boundary)
    stubs = bisect_left(outputs.stubbed, boundary)
    floor = outputs.stubbed[stubs - 1] + 1 if stubs else 0
    lo = bisect_left(outputs.indices, floor, 0, hi)
    cum = outputs.cum_tokens
    # Outputs at positions < q have a running total (from the boundary) above the protection.
    q = bisect_left(cum, cum[hi] - protect_tokens, lo, hi + 1)
    if q <= lo:
        return PrunedRun(outputs)
    first = bisect_left(outputs.prunable, outputs.indices[lo])
    last = bisect_right(outputs.prunable, outputs.indices[q - 1])
    run = PrunedRun(outputs, first, last)
    if len(run) == 0 or cum[q] - cum[lo] <= minimum_tokens:
        return PrunedRun(outputs)
    return run


def prune_by_results(outputs: ToolOutputs, boundary: int, keep: int) -> PrunedRun:
    """Claude Code's microcompact: every eligible result before ``boundary`` but the newest
    ``keep`` is stubbed."""
    indices = outputs.indices
    position = len(indices) - keep
    cut = indices[position] if 0 <= position < len(indices) else (0 if position < 0 else boundary)
    count = bisect_left(outputs.prunable, min(cut, boundary))
    return PrunedRun(outputs, 0, count)


class EffectiveTokens(Sequence[int]):
    """Per-message tokens after truncation and pruning, without copying the whole list."""

    __slots__ = ("_base", "_prefix", "_pruned")

    def __init__(self, base: Sequence[int], prefix: Sequence[int], pruned: PrunedRun) -> None:
        self._base = base
        self._prefix = prefix
        self._pruned = pruned

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[int]: ...

    def __getitem__(self, index: int | slice) -> int | Sequence[int]:
        if isinstance(index, slice):
            return list(self)[index]
        if index < 0:
            index += len(self._base)
        if not 0 <= index < len(self._base):
            raise IndexError(index)
        if index in self._pruned:
            return self._pruned[index].tokens_after
        return self._base[index]

    def __len__(self) -> int:
        return len(self._base)

    def __iter__(self) -> Iterator[int]:
        # A lookup per pruned output, not a bisect per message (a report walks all 100k).
        tokens = list(self._base)
        for i, after in self._pruned.after():
            tokens[i] = after
        return iter(tokens)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"EffectiveTokens({len(self):,} messages, {len(self._pruned):,} pruned)"

    def prefix(self, stop: int) -> int:
        """Σ effective tokens of ``messages[:stop]`` in O(log n)."""
        return self._prefix[stop] - self._pruned.freed_before(stop)
