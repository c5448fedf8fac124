"""The exact tokenizer families ctxtui counts offline, and which models use which.

Each family is a byte-level BPE vocabulary (shipped in ``quicktok-v1``), the reference
tokenizer's pre-tokenizer regex, so tiktoken built from the same ranks counts exactly what
``quicktok`` counts, and the chat framing its models wrap around every message.

* ``tiktoken:cl100k_base`` — GPT-4, GPT-3.5; OpenAI's published ranks.
* ``tiktoken:o200k_base`` — GPT-4o, GPT-4.1, GPT-5, the o-series, Codex, gpt-oss.
* ``llama3`` — Llama 3, 3.1, 3.2 and 3.3: Meta's ranks (cl100k's 100,256 tokens plus 28,000).
* ``qwen2`` — Qwen2, Qwen2.5 and Qwen3 (one vocabulary of 151,643 tokens), text NFC-normalised
  first as its tokenizer does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CL100K = "tiktoken:cl100k_base"
O200K = "tiktoken:o200k_base"
LLAMA3 = "llama3"
QWEN2 = "qwen2"


@dataclass(frozen=True, slots=True)
class Framing:
    """Tokens a chat template adds around the text, per item: counted from each family's
    template, except the tool-definition allowances (no family documents that text)."""

    per_message: int
    per_name: int = 1
    per_tool_call: int = 8
    per_tool_def: int = 8
    per_tool_list: int = 12


OPENAI_FRAMING = Framing(per_message=3)
"""``<|start|>``, the role/body separator and ``<|end|>`` (OpenAI cookbook, "How to count
tokens with tiktoken"); a name costs one separator, a tool call ~8 tokens of JSON wrapper."""

LLAMA3_FRAMING = Framing(per_message=4, per_tool_call=8)
"""``<|start_header_id|>`` role ``<|end_header_id|>`` ``\\n\\n`` … ``<|eot_id|>``; a tool call
is the JSON object ``{"name": …, "parameters": …}`` (8 tokens around name and arguments)."""

CHATML_FRAMING = Framing(per_message=4, per_tool_call=11)
"""``<|im_start|>`` role ``\\n`` … ``<|im_end|>`` ``\\n``; a tool call is
``<tool_call>\\n{"name": …, "arguments": …}\\n</tool_call>`` (11 tokens around its parts)."""


CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_O200K_LETTERS = r"""[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]"""
_O200K_LOWER = r"""[\p{Ll}\p{Lm}\p{Lo}\p{M}]"""
_O200K_SUFFIX = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?"""
O200K_PATTERN = "|".join(
    [
        rf"""[^\r\n\p{{L}}\p{{N}}]?{_O200K_LETTERS}*{_O200K_LOWER}+{_O200K_SUFFIX}""",
        rf"""[^\r\n\p{{L}}\p{{N}}]?{_O200K_LETTERS}+{_O200K_LOWER}*{_O200K_SUFFIX}""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
LLAMA3_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"""
    r"""| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
QWEN2_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"""
    r"""| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)


@dataclass(frozen=True, slots=True)
class Family:
    """One exact tokenizer: its spec, where its vocabulary comes from, how text is split."""

    spec: str
    models: str
    """Who uses it, for help texts and the docs."""
    quicktok: str
    """The encoding's name in ``quicktok``."""
    pattern: str
    """The reference pre-tokenizer regex (tiktoken's, Meta's, Qwen's)."""
    framing: Framing
    tiktoken: str | None = None
    """tiktoken's own name for the encoding, when tiktoken has one."""
    nfc: bool = False
    """Whether text is NFC-normalised before it is split (Qwen's tokenizer does)."""


FAMILIES: dict[str, Family] = {
    f.spec: f
    for f in (
        Family(
            CL100K, "GPT-4, GPT-3.5", "cl100k_base", CL100K_PATTERN, OPENAI_FRAMING, "cl100k_base"
        ),
        Family(
            O200K,
            "GPT-4o, GPT-4.1, GPT-5, o1/o3/o4, Codex, gpt-oss",
            "o200k_base",
            O200K_PATTERN,
            OPENAI_FRAMING,
            "o200k_base",
        ),
        Family(LLAMA3, "Llama 3, 3.1, 3.2, 3.3", "llama3", LLAMA3_PATTERN, LLAMA3_FRAMING),
        Family(QWEN2, "Qwen2, Qwen2.5, Qwen3", "qwen3", QWEN2_PATTERN, CHATML_FRAMING, nfc=True),
    )
}
"""Every family counted exactly offline, by spec."""


_MODEL_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    # Each family's names, matched at the start of the id or after a dotted vendor prefix
    # (Bedrock's ``us.meta.llama3-1-70b-instruct-v1:0``).
    (re.compile(r"(?:^|\.)(?:" + "|".join(names) + ")"), spec)
    for names, spec in (
        (
            (r"(chatgpt-)?gpt-4o", r"gpt-4\.[15]", r"gpt-5", r"o[134](-|$)", "codex", "gpt-oss"),
            O200K,
        ),
        ((r"gpt-4(-|$)", r"gpt-3\.5", "gpt-35"), CL100K),
        ((r"(meta-)?llama-?3(\b|[.\-_:])", "llama-v3"), LLAMA3),
        ((r"qwen-?(1\.5|2|3)", "qwq"), QWEN2),
    )
)


def tokenizer_for_model(model_id: str | None) -> str | None:
    """The exact tokenizer spec of the model a transcript names, or ``None`` when unknown.

    Ids come dated (``gpt-4o-2024-08-06``), prefixed (``openai/gpt-5``,
    ``us.meta.llama3-1-70b-v1:0``) or tagged (``qwen2.5-coder:7b``); Claude, Gemini and
    vocabularies ctxtui does not ship (Llama 2 and 4, Qwen 1, Mistral) give ``None``.
    """
    if not model_id:
        return None
    name = model_id.strip().lower().rsplit("/", 1)[-1]
    for pattern, spec in _MODEL_RULES:
        if pattern.search(name):
            return spec
    return None
