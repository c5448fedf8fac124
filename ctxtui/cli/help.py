"""The words of ``ctxtui --help`` and each command's ``--help``, and the formatter that lays
them out: prose wrapped to the terminal, examples kept as written."""

from __future__ import annotations

import argparse
import re
import textwrap

from ctxtui.core.policies.policy import KNOBS
from ctxtui.core.policies.presets import DEFAULT_PRESET, PRESETS
from ctxtui.core.pricing.price_source import PRICE_NOTE
from ctxtui.core.session.formats import FORMATS
from ctxtui.core.tokens.specs import TOKENIZERS, TokenizerSpec

DESCRIPTION = """\
See where an LLM agent's context window goes.

ctxtui opens an agent session, counts the tokens of every message, and shows the
plan a context manager would make: the protected fresh tail, the tool outputs it
would prune or truncate, what would be dropped, and the structured summary a
compaction would write.
"""

SESSION_HELP = (
    "a transcript file: OpenAI Chat or Responses, Anthropic Messages, Claude Code, Codex, "
    "PicoClaw (JSONL, legacy JSON, seahorse.db), OpenCode (JSON storage or .db), ShareGPT, "
    "or ctxtui's own JSON; .gz and .zst files are read too. A directory works for OpenCode "
    "storage and PicoClaw sessions. The format is detected (see 'ctxtui formats')"
)


def add_json_option(p: argparse.ArgumentParser, schema: str = "") -> None:
    """``--json``, worded once for every command that prints one document (``schema``: its
    schema, when the help names it)."""
    words = f"print one JSON document ({schema})" if schema else "print one JSON document"
    p.add_argument("--json", action="store_true", help=words)


def _listed(specs: list[TokenizerSpec]) -> str:
    return ", ".join(f"'{t.spec}' ({t.what})" for t in specs)


def _or(words: list[str], last: str = "or") -> str:
    return f"{', '.join(words[:-1])} {last} {words[-1]}" if len(words) > 1 else "".join(words)


def _preset_tokenizers() -> str:
    """Each preset's tokenizer: ``plan: plan; …; codex and claude-code: the transcript's
    model's, else o200k_base and cl100k_base``."""
    own = [p for p in PRESETS.values() if not p.knobs.get("tokenizer_from_model")]
    model = [p for p in PRESETS.values() if p.knobs.get("tokenizer_from_model")]
    default = KNOBS["tokenizer"].default
    named = [f"{p.name}: {p.knobs.get('tokenizer', default)}" for p in own]
    if model:
        specs = [str(p.knobs.get("tokenizer", default)).removeprefix("tiktoken:") for p in model]
        names = _or([p.name for p in model], "and")
        named.append(f"{names}: the transcript's model's, else {_or(specs, 'and')}")
    return "; ".join(named)


_ESTIMATES = [t for t in TOKENIZERS if not t.exact]
_EXACT = [t for t in TOKENIZERS if t.exact]
_HOW_MANY = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")

TOKENIZER_HELP = (
    f"how tokens are counted: {_listed(_ESTIMATES)}, or exactly: {_listed(_EXACT)}. "
    f"{_EXACT[0].spec} works offline, and so do the other {_HOW_MANY[len(_EXACT) - 1]}; other "
    "tiktoken:ENCODING names need a download, and without one the count falls back to "
    f"cl100k_base and the report says so; default: the preset's own ({_preset_tokenizers()})"
)

PRESET_HELP = (
    "the knobs' starting values: "
    + _or([f"{p.name} ({p.note})" if p.note else p.name for p in PRESETS.values()])
    + "; 'ctxtui presets' says what each does; default: the preset of the agent that wrote "
    + "the transcript ("
    + ", ".join(
        f"{f.title} {f.preset}" + "".join(f", its {end} store {p}" for end, p in f.store_presets)
        for f in FORMATS
        if f.preset != DEFAULT_PRESET
    )
    + f"), else {DEFAULT_PRESET}"
)

_STORED = [f for f in FORMATS if f.stores]


def _variable(agent: str, variable: str) -> str:
    """A store's variable, with its agent named unless the variable already says it."""
    return variable if variable.startswith(agent.split()[0].upper()) else f"{variable} ({agent})"


SESSIONS_DESCRIPTION = (
    f"List the sessions {_or([f.agent for f in _STORED], 'and')} wrote in their standard "
    "stores, newest first, with the agent, start time, model, size and project; Claude "
    "Code sub-agents are listed under their parent. Each store honours its agent's "
    "variable: "
    + ", ".join(_variable(f.agent, s.env) for f in _STORED for s in f.stores if s.env)
    + ". The OPEN column is what to pass to 'ctxtui'. What cannot be read (a directory "
    "without permission, a FIFO named like a session) is skipped and counted on stderr."
)
"""``ctxtui sessions``' description: the agents and their variables are the formats' rows."""

APP_EPILOG_HEAD = "  ctxtui [SESSION]          open the app (no SESSION: the bundled demo session)"

REPORT_EPILOG = f"""\
The budget is the window less the output reserve (--max-tokens); the request is
the prompt (system + tools + history, after pruning and truncation) plus that
reserve, and the used ratio is request / window. --json adds the session's cost
and cache figures over every request it recorded. {PRICE_NOTE}

examples:
  ctxtui report session.jsonl
  ctxtui report session.json --json | jq .totals
  ctxtui report session.json --context-window 32768 --max-tokens 4096
  ctxtui report session.json --tokenizer tiktoken:cl100k_base --fail-over 0.9
"""

COMPACT_EPILOG = """\
Without --preview or -o, prints what the compaction would replace and the
tokens it would save.

examples:
  ctxtui compact session.jsonl --preview
  ctxtui compact session.jsonl -o compacted.json
  ctxtui report compacted.json                     # read it back
"""


REPLAY_EPILOG = f"""\
Each request is a call the agent made (the point before an assistant message).
Simulated is the prompt the policy would have sent, with its own compactions;
reported is what the API counted, where the transcript recorded it. Each request
with usage is priced, with its cache hit ratio and, for a cache miss, its cause.
{PRICE_NOTE}

examples:
  ctxtui replay session.jsonl
  ctxtui replay session.jsonl --context-window 32768 --json | jq .compactions
"""


RETENTION_EPILOG = """\
Kept: the summary holds the fact (case, quotes, ./ and trailing punctuation aside).
Needed after: the messages after the compaction use the fact again; "lost 3 of 5"
is what made the agent re-read or re-ask. dup.: summary lines that repeat the
kept context (the system prompt, what the compaction kept) or each other.

examples:
  ctxtui retention session.jsonl
  ctxtui retention session.jsonl --json | jq '.compactions[].needed_after'
"""


_ASCII_SPACE = re.compile(r"[ \t\n]+")
"""Whitespace a help line may break at; the no-break space in ``≥\u00a00`` is not."""


class HelpFormatter(argparse.HelpFormatter):
    """Wraps prose paragraphs to the terminal, keeps indented blocks (examples) as written,
    and never breaks an option name at its hyphen (``--chars-`` / ``per-token``)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(
            _ASCII_SPACE.sub(" ", text).strip(),
            width,
            break_on_hyphens=False,
            break_long_words=False,
        )

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        blocks: list[str] = []
        for block in text.strip("\n").split("\n\n"):
            if any(line.startswith(" ") or line.endswith(":") for line in block.splitlines()):
                blocks.append("\n".join(indent + line for line in block.splitlines()))
            else:
                blocks.append(
                    textwrap.fill(
                        _ASCII_SPACE.sub(" ", block).strip(),
                        width,
                        initial_indent=indent,
                        subsequent_indent=indent,
                        break_on_hyphens=False,
                    )
                )
        return "\n\n".join(blocks) + "\n"
