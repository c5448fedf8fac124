"""Each agent's summary: its sections, the prompt its summariser is sent, and its size.

The stand-in's bullets laid out under another agent's headings, and the prompt that agent
would send. Sections and phrases are data, one block per agent (sources in docs/presets.md);
where only an opening sentence is known exactly, the rest is ctxtui's wording.
"""

from __future__ import annotations

from ctxtui.core.session.models import Message, Session
from ctxtui.core.summaries.seahorse import SUMMARY_SHARE, leaf_target
from ctxtui.core.summaries.summary import StructuredSummary
from ctxtui.core.summaries.summary_template import SummaryTemplate

# -- OpenCode --------------------------------------------------------------------------------

OPENCODE_HEADINGS: tuple[str, ...] = (
    "## Objective",
    "## Important Details",
    "## Work State",
    "### Completed",
    "### Active",
    "### Blocked",
    "## Next Move",
    "## Relevant Files",
)
"""OpenCode's summary headings, in the order its validator requires."""

OPENCODE_RULES = (
    "Summarize the conversation above so that work can continue from it. Fill in every "
    "section below, in this order, writing (none) under a section with nothing to record. "
    "Use terse bullets. Keep exact paths, commands, errors and identifiers. Number the steps "
    "under Next Move. Do not mention that this is a summary or a compaction."
)
OPENCODE_USER_MESSAGE = "What did we do so far?"
OPENCODE_SUMMARY_TOKENS = 4_096
"""OpenCode's ``SUMMARY_OUTPUT_TOKENS``."""
OPENCODE_TOOL_OUTPUT_CHARS = 2_000
"""OpenCode's serialiser cuts each tool result to this many characters."""

# -- Codex -------------------------------------------------------------------------------------

CODEX_PROMPT = (
    "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another "
    "LLM that will resume the task.\n"
    "\n"
    "Cover:\n"
    "- the goal the user set\n"
    "- the progress so far and the decisions taken\n"
    "- the context, constraints and preferences that still apply\n"
    "- what is left to do, as clear next steps\n"
    "- the data, examples and references needed to carry on\n"
    "\n"
    "Keep it short and structured so that the next model can pick up the work at once."
)
"""Codex's handoff prompt: its opening sentences exactly, the five points in ctxtui's words."""

CODEX_SUMMARY_PREFIX = (
    "Another language model started to solve this problem and produced a summary of its "
    "thinking process. Build on its work rather than repeating it; its summary follows."
)
"""The text before the summary in Codex's summary user message (first sentence exact)."""
CODEX_EMPTY_SUMMARY = "(no summary available)"


def codex_summary_message(summary: str) -> str:
    """``SUMMARY_PREFIX + "\\n" + summary`` (Codex's rebuilt history ends with it)."""
    return f"{CODEX_SUMMARY_PREFIX}\n{summary or CODEX_EMPTY_SUMMARY}"


# -- Claude Code -------------------------------------------------------------------------------

CLAUDE_CODE_SECTIONS: tuple[str, ...] = (
    "Primary Request and Intent",
    "Key Technical Concepts",
    "Files and Code Sections",
    "Errors and Fixes",
    "Problem Solving",
    "All user messages",
    "Pending Tasks",
    "Current Work",
    "Optional Next Step",
)
"""Claude Code's nine summary sections, in order."""

CLAUDE_CODE_CONTINUATION = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The summary below covers the earlier part of the conversation."
)
"""The opening of the user message Claude Code injects the summary in (first sentence exact)."""

CLAUDE_CODE_RULES = (
    "Write a detailed summary of the conversation so far. First think it through inside "
    "<analysis> tags; then give the summary inside <summary> tags with these numbered "
    "sections, in this order:"
)


# -- the layouts ---------------------------------------------------------------------------------

_LAYOUTS: dict[SummaryTemplate, tuple[tuple[str, tuple[str, ...]], ...]] = {
    # heading → the offline summary's sections whose bullets go under it
    SummaryTemplate.OPENCODE: (
        ("## Objective", ("Goal",)),
        ("## Important Details", ("Constraints", "Key Decisions")),
        ("## Work State", ()),
        ("### Completed", ("Progress",)),
        ("### Active", ()),
        ("### Blocked", ()),
        ("## Next Move", ("Next Steps",)),
        ("## Relevant Files", ("Critical Context",)),
    ),
    SummaryTemplate.CODEX: (
        ("Goal", ("Goal",)),
        ("Progress and decisions", ("Progress", "Key Decisions")),
        ("Context and constraints", ("Constraints",)),
        ("What remains", ("Next Steps",)),
        ("Critical data", ("Critical Context",)),
    ),
    SummaryTemplate.CLAUDE_CODE: tuple(
        (f"{n}. {title}", src)
        for n, (title, src) in enumerate(
            zip(
                CLAUDE_CODE_SECTIONS,
                (
                    ("Goal",),
                    ("Key Decisions",),
                    ("Critical Context",),
                    (),
                    ("Progress",),
                    ("Goal",),
                    ("Next Steps",),
                    (),
                    (),
                ),
                strict=True,
            ),
            start=1,
        )
    ),
}


def render_for(template: SummaryTemplate, summary: StructuredSummary) -> str:
    """The offline summary under ``template``'s headings (the plan's own for ``plan``)."""
    layout = _LAYOUTS.get(template)
    if layout is None:
        return summary.render_markdown()
    blocks: list[str] = []
    for heading, sources in layout:
        items = [item for title in sources for item in summary.section(title).items]
        if heading == "## Work State":
            blocks.append(heading)
            continue
        lines = [i.render() for i in items]
        if "Critical Context" in sources:
            lines.extend(summary.fact_bullets())
        body = "\n".join(lines) if lines else "(none)"
        blocks.append(f"{heading}\n{body}")
    text = "\n\n".join(blocks)
    if template is SummaryTemplate.CLAUDE_CODE:
        return f"<summary>\n{text}\n</summary>"
    return text


def labelled_transcript(session: Session, first: int, last: int) -> str:
    """Messages as OpenCode's serialiser labels them, tool results cut to 2,000 characters."""
    lines: list[str] = []
    for m in session.messages[first : last + 1]:
        lines.extend(_labelled(m))
    return "\n".join(lines)


def _labelled(m: Message) -> list[str]:
    if m.role == "tool":
        text = m.content
        if len(text) > OPENCODE_TOOL_OUTPUT_CHARS:
            text = text[:OPENCODE_TOOL_OUTPUT_CHARS] + "\n[truncated]"
        return [f"[{'Tool error' if m.is_error else 'Tool result'}]: {text}"]
    label = {"user": "User", "assistant": "Assistant"}.get(m.role, m.role.title())
    out = [f"[{label}]: {m.content}"] if m.content else []
    if m.reasoning:
        out.append(f"[Assistant reasoning]: {m.reasoning}")
    out += (f"[Assistant tool call]: {call.name}({call.arguments})" for call in m.tool_calls)
    out += (f"[Attached {p.media_type or p.kind.value}: {p.label}]" for p in m.media_parts)
    return out


def template_prompt(
    template: SummaryTemplate, session: Session, first: int, last: int
) -> str | None:
    """The prompt ``template``'s agent sends its summariser, or ``None`` for the plan's own."""
    if template not in _LAYOUTS:
        return None  # before the transcript: at 100k replaced messages it takes a second
    transcript = labelled_transcript(session, first, last)
    if template is SummaryTemplate.OPENCODE:
        headings = "\n".join(OPENCODE_HEADINGS)
        return f"{transcript}\n\n[User]: {OPENCODE_USER_MESSAGE}\n\n{OPENCODE_RULES}\n\n{headings}"
    if template is SummaryTemplate.CODEX:
        return f"{transcript}\n\n{CODEX_PROMPT}"
    if template is SummaryTemplate.CLAUDE_CODE:
        sections = "\n".join(f"{n}. {t}" for n, t in enumerate(CLAUDE_CODE_SECTIONS, start=1))
        return f"{transcript}\n\n{CLAUDE_CODE_RULES}\n{sections}"
    return None


SUMMARY_CAPS: dict[SummaryTemplate, int] = {
    SummaryTemplate.PLAN: 1_200,  # seahorse's leaf target, which the plan's prompt asks for
    SummaryTemplate.PICOCLAW: 1_200,
    SummaryTemplate.OPENCODE: OPENCODE_SUMMARY_TOKENS,
    # Codex and Claude Code publish no cap: OpenCode's, as an estimate
    SummaryTemplate.CODEX: OPENCODE_SUMMARY_TOKENS,
    SummaryTemplate.CLAUDE_CODE: OPENCODE_SUMMARY_TOKENS,
}


def summary_estimate(template: SummaryTemplate, input_tokens: int) -> int:
    """A forecast of a summary's size: ``min(cap, int(0.35 · input))`` (seahorse's share)."""
    if template in (SummaryTemplate.PLAN, SummaryTemplate.PICOCLAW):
        return leaf_target(input_tokens)
    cap = SUMMARY_CAPS[template]
    return min(cap, int(input_tokens * SUMMARY_SHARE))
