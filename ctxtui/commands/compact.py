"""``ctxtui compact``: preview a compaction, or write the compacted session with ``-o`` (``-o -``:
standard output)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import textwrap
from typing import TYPE_CHECKING

from ctxtui.commands.errors import CommandError
from ctxtui.commands.pipeline import Planned, plan_session
from ctxtui.core.compacting.compaction import CompactionResult
from ctxtui.core.compacting.leaf_calls import leaf_calls, with_llm_summary
from ctxtui.core.compacting.notes import llm_calls_sentence, saving_words, stand_in_notice
from ctxtui.core.literal import literal_block, visible
from ctxtui.core.planning.overflow import overflow_words
from ctxtui.core.policies.policy import Policy
from ctxtui.core.policies.reason_effects import reason_effect
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.session.models import Session
from ctxtui.core.wording import a, plural
from ctxtui.importers import source_protection
from ctxtui.stores.guard import store_refusal
from ctxtui.system.export import (
    ExportError,
    check_target,
    native_bytes,
    write_session,
)
from ctxtui.system.output import check_stream

if TYPE_CHECKING:
    from ctxtui.llm.client import Endpoint


def describe(
    result: CompactionResult, policy: Policy | None = None, post_turn: bool = False
) -> str:
    """The outcome in a few lines: what was replaced, the tokens, the overflow if any; with
    ``policy``, what the reason changes under it (``post_turn``: past legacy's after-turn limit)."""
    lines = [f"reason: {result.reason.label}"]
    if policy is not None:
        effect = reason_effect(policy, result.reason, post_turn)
        lines.append(textwrap.fill(effect, 78, initial_indent="  ", subsequent_indent="  "))
    if result.replaced is None:
        lines.append(result.note or "nothing to compact")
    else:
        first, last = result.replaced
        what = f"#{first:,}-#{last:,} ({plural(result.messages_replaced, 'message')}, "
        what += f"{result.replaced_tokens:,} tok)"
        if result.summary_text and result.session.meta.summary and not result.prompt:
            lines.append(f"dropped {what}; the emergency note adds {result.summary_tokens:,} tok")
        else:
            lines.append(f"replaced {what} with {a(result.summary_tokens, 'tok')} summary")
        lines.append(f"{prompt_line(result)}; fresh tail now starts at #{result.tail_kept:,}")
        lines.append(request_line(result))
        lines.append(f"LLM calls: {llm_calls_sentence(result)}")
    if result.overflow is not None:
        o = result.overflow  # in words: the Error() text ran past 80 columns
        lines.append(
            f"still over the window: {o.requested_tokens:,} requested > {o.context_window:,}"
            f" (model {o.model})"
        )
        why = overflow_words(o.reason)
        lines.append(textwrap.fill(f"why: {why}", 78, initial_indent="  ", subsequent_indent="  "))
    return "\n".join(lines)


def say(text: str = "", *, end: str = "\n", flush: bool = False) -> None:
    """Print ``text`` with its control characters shown, never acted on (``␛[31m``): summaries
    and prompts quote tool outputs, whose escapes would otherwise drive the terminal."""
    print(literal_block(text), end=end, flush=flush)


STDOUT = "-"
"""``-o -``: the compacted session goes to standard output, the human-readable lines to stderr."""


def run(args: argparse.Namespace) -> int:
    try:
        reason = CompactReason.parse(args.reason)
    except ValueError as err:
        raise CommandError(str(err)) from None
    endpoint = _endpoint(args)  # bad LLM flags are refused before any work
    planned = plan_session(args)
    to_stdout = args.output == STDOUT
    protected = source_protection(planned.session.meta.source_path)
    if args.output is not None:
        # Refuse a bad -o before compacting, so a refusal prints nothing but its one line.
        try:
            if to_stdout:
                check_stream(sys.stdout, protected)
            else:
                if (refusal := store_refusal(args.output)) is not None:
                    raise CommandError(refusal)
                check_target(planned.session, args.output, protected=protected, force=args.force)
        except ExportError as err:
            raise CommandError(str(err)) from None
    result = planned.engine.compact(planned.policy, reason)
    # With -o -, stdout carries the document alone: everything said to the user goes to stderr.
    with contextlib.redirect_stdout(sys.stderr) if to_stdout else contextlib.nullcontext():
        session_out = _tell(args, planned, result, endpoint)
    if to_stdout:
        sys.stdout.flush()
        sys.stdout.buffer.write(native_bytes(session_out))
        sys.stdout.buffer.flush()
    elif args.output is not None:
        try:
            written = write_session(session_out, args.output, protected=protected, force=args.force)
        except ExportError as err:
            raise CommandError(str(err)) from None
        count = plural(len(result.session.messages), "message")
        print(f"wrote {visible(str(written))} ({count}, ctxtui native JSON)")
    return 0


def _tell(
    args: argparse.Namespace,
    planned: Planned,
    result: CompactionResult,
    endpoint: Endpoint | None,
) -> Session:
    """Print the outcome (and the preview, or the LLM's summary); the session to write.
    A failed LLM call is a ``CommandError`` after the stand-in has been shown."""
    for note in planned.notes:
        say(f"note: {note}")
    say(describe(result, planned.policy, planned.plan.compaction.post_turn))
    session_out = result.session
    llm_failed = None
    if endpoint is not None:
        session_out, llm_failed = _llm_summary(endpoint, planned, result)
    elif args.preview:
        say("\n=== summary ===")
        notice = stand_in_notice(result)
        if notice:
            say(f"({notice})\n")
        say(result.summary_text or "(no summary: nothing was replaced)")
    if args.preview:
        say("\n=== LLM prompt ===")
        if result.prompt_caption:
            say(f"({result.prompt_caption})\n")
        if result.prompt:
            say(result.prompt)
        elif result.replaced is None:
            say("(no LLM call: nothing was replaced)")
        else:
            say("(no LLM call: this compaction style drops messages)")
    if llm_failed is not None:
        raise CommandError(f"LLM summary failed: {llm_failed}")
    return session_out


def _endpoint(args: argparse.Namespace) -> Endpoint | None:
    """The LLM endpoint the flags name, or ``None`` for the stand-in summary."""
    if getattr(args, "summarizer", "stand-in") != "openai":
        return None
    from ctxtui.llm.client import resolve_endpoint
    from ctxtui.llm.wire import SummarizerError

    try:
        return resolve_endpoint(
            base_url=args.llm_base_url,
            model=args.llm_model,
            timeout=args.llm_timeout,
            env=os.environ,
            allow_http=bool(getattr(args, "llm_allow_http", False)),
        )
    except SummarizerError as err:
        raise CommandError(str(err)) from None


def _llm_summary(
    endpoint: Endpoint, planned: Planned, result: CompactionResult
) -> tuple[Session, str | None]:
    """Send the compaction's leaf calls to the endpoint and print the summary once it is whole;
    the session to write and the failure, if any (then the stand-in is printed instead). A call
    that fails half-way prints none of its text: a broken stream could hold 256 KB of it."""
    from ctxtui.llm.client import Hooks, summarize_leaves
    from ctxtui.llm.wire import SummarizerError

    calls = leaf_calls(
        planned.session, planned.plan, result, planned.engine.tokenizer(planned.policy)
    )
    if len(calls) == 0:
        say("\n=== summary ===")
        say(result.summary_text or "(no summary: nothing was replaced)")
        say(
            "(no LLM call: "
            + (
                "nothing was replaced)"
                if result.replaced is None
                else "this compaction style drops messages)"
            )
        )
        return result.session, None
    say("\n=== summary ===", flush=True)
    try:
        summary = summarize_leaves(endpoint, calls, Hooks(on_progress=_call_progress))
    except SummarizerError as err:
        say("(the local stand-in, because the LLM call failed)")
        say(result.summary_text)
        return result.session, str(err)
    say(summary.text)
    say(f"\n({summary.byline})")
    if summary.missing_sections:
        say(
            "warning: the summary lacks these template sections: "
            + ", ".join(summary.missing_sections)
        )
    recounted = with_llm_summary(result, summary.text, planned.engine.tokenizer(planned.policy))
    print(llm_figures(recounted))
    return recounted.session, None


def prompt_line(result: CompactionResult) -> str:
    """The prompt before and after, and what the compaction saves (or that it saves none)."""
    return (
        f"prompt: {result.prompt_before:,} -> {result.prompt_after:,} tok ({saving_words(result)})"
    )


def request_line(result: CompactionResult) -> str:
    """The request before and after, named as ``report`` names it: the prompt plus the output
    reserve, so it is not read as the prompt."""
    return (
        f"request: {result.tokens_before:,} -> {result.tokens_after:,} tok "
        f"= prompt + output reserve {result.output_reserve:,}"
    )


def llm_figures(result: CompactionResult) -> str:
    """The figures recounted for the LLM's summary (the stand-in's were said above)."""
    return (
        f"with the LLM's summary: the summary adds {result.summary_tokens:,} tok; "
        f"{prompt_line(result)}\n{request_line(result)}"
    )


def _call_progress(done: int, total: int) -> None:
    """Which leaf call is running, on a terminal only: piped stderr stays one line on error."""
    if total > 1 and done < total and sys.stderr.isatty():
        print(f"[leaf call {done + 1} of {total}]", file=sys.stderr, flush=True)
