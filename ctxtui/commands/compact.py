"""``ctxtui compact``: preview a compaction, or write the compacted session with ``-o`` (``-o -``:
standard output)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from typing import TextIO

from ctxtui.commands.errors import CommandError
from ctxtui.commands.pipeline import plan_session
from ctxtui.core.compaction import CompactionResult
from ctxtui.core.export import (
    ExportError,
    check_target,
    native_bytes,
    source_protection,
    write_session,
)
from ctxtui.core.output import check_stream
from ctxtui.core.reasons import CompactReason


def _reason_label(reason: CompactReason) -> str:
    wire = reason.picoclaw_name
    return f"{reason.value} (PicoClaw: {wire})" if wire else f"{reason.value} (no PicoClaw name)"


def describe(result: CompactionResult) -> str:
    """The outcome in a few lines: what was replaced, the tokens, the overflow if any."""
    lines = [f"reason: {_reason_label(result.reason)}"]
    if result.replaced is None:
        lines.append(result.note or "nothing to compact")
    else:
        first, last = result.replaced
        what = f"#{first:,}-#{last:,} ({result.messages_replaced:,} messages, "
        what += f"{result.replaced_tokens:,} tok)"
        if result.summary_text and result.session.meta.summary and not result.prompt:
            lines.append(f"dropped {what}; the emergency note adds {result.summary_tokens:,} tok")
        else:
            lines.append(f"replaced {what} with a {result.summary_tokens:,}-tok summary")
        lines.append(
            f"request: {result.tokens_before:,} -> {result.tokens_after:,} tok "
            f"(saved {result.tokens_saved:,}); fresh tail now starts at #{result.tail_kept:,}"
        )
    if result.overflow is not None:
        o = result.overflow  # in words: the Error() text ran past 80 columns
        lines.append(
            f"still over the window: {o.requested_tokens:,} requested > {o.context_window:,}"
            f" (model {o.model})\n  why: {o.reason.replace('_', ' ')}"
        )
    return "\n".join(lines)


STDOUT = "-"
"""``-o -``: the compacted session goes to standard output, the human-readable lines to stderr."""


def run(args: argparse.Namespace) -> int:
    try:
        reason = CompactReason.parse(args.reason)
    except ValueError as err:
        raise CommandError(str(err)) from None
    planned = plan_session(args)
    to_stdout = args.output == STDOUT
    if args.output is not None:
        # Refuse a bad -o before compacting, so a refusal prints nothing but its one line.
        try:
            if to_stdout:
                check_stream(sys.stdout, source_protection(planned.session.meta.source_path))
            else:
                check_target(planned.session, args.output, force=args.force)
        except ExportError as err:
            raise CommandError(str(err)) from None
    result = planned.engine.compact(planned.policy, reason)
    _print_outcome(args, planned.notes, result, sys.stderr if to_stdout else sys.stdout)
    if to_stdout:
        sys.stdout.flush()
        sys.stdout.buffer.write(native_bytes(result.session))
        sys.stdout.buffer.flush()
    elif args.output is not None:
        try:
            written = write_session(result.session, args.output, force=args.force)
        except ExportError as err:
            raise CommandError(str(err)) from None
        print(f"wrote {written} ({len(result.session.messages):,} messages, ctxtui native JSON)")
    return 0


def _print_outcome(
    args: argparse.Namespace, notes: Iterable[str], result: CompactionResult, out: TextIO
) -> None:
    for note in notes:
        print(f"note: {note}", file=out)
    print(describe(result), file=out)
    if not args.preview:
        return
    print("\n=== summary ===", file=out)
    print(result.summary_text or "(no summary: nothing was replaced)", file=out)
    print("\n=== LLM prompt ===", file=out)
    if result.prompt_caption:
        print(f"({result.prompt_caption})\n", file=out)
    if result.prompt:
        print(result.prompt, file=out)
    elif result.replaced is None:
        print("(no LLM call: nothing was replaced)", file=out)
    else:
        print("(no LLM call: this compaction style drops messages)", file=out)
