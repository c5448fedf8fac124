"""``ctxtui compact``: preview a compaction, or write the compacted session with ``-o``."""

from __future__ import annotations

import argparse
import textwrap

from ctxtui.commands.errors import CommandError
from ctxtui.commands.pipeline import plan_session
from ctxtui.core.compaction import CompactionResult
from ctxtui.core.export import ExportError, check_target, write_session
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
        why = textwrap.fill(
            f"why: {o.reason.replace('_', ' ')}", 78, initial_indent="  ", subsequent_indent="  "
        )
        lines.append(
            f"still over the window: {o.requested_tokens:,} requested > {o.context_window:,}"
            f" (model {o.model})\n{why}"
        )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    try:
        reason = CompactReason.parse(args.reason)
    except ValueError as err:
        raise CommandError(str(err)) from None
    planned = plan_session(args)
    if args.output is not None:
        # Refuse a bad -o before compacting, so a refusal prints nothing but its one line.
        try:
            check_target(planned.session, args.output, force=args.force)
        except ExportError as err:
            raise CommandError(str(err)) from None
    result = planned.engine.compact(planned.policy, reason)
    for note in planned.notes:
        print(f"note: {note}")
    print(describe(result))
    if args.preview:
        print("\n=== summary ===")
        print(result.summary_text or "(no summary: nothing was replaced)")
        print("\n=== LLM prompt ===")
        if result.prompt_caption:
            print(f"({result.prompt_caption})\n")
        if result.prompt:
            print(result.prompt)
        elif result.replaced is None:
            print("(no LLM call: nothing was replaced)")
        else:
            print("(no LLM call: this compaction style drops messages)")
    if args.output is not None:
        try:
            written = write_session(result.session, args.output, force=args.force)
        except ExportError as err:
            raise CommandError(str(err)) from None
        print(f"wrote {written} ({len(result.session.messages):,} messages, ctxtui native JSON)")
    return 0
