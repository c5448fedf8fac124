"""``ctxtui report``: the plan for a session, as a table or as the ``ctxtui.report/1`` JSON."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from ctxtui.cli import EXIT_OK, EXIT_OVER
from ctxtui.commands.pipeline import Planned, plan_session
from ctxtui.core.estimate_check import EstimateDrift, estimate_drift, estimator_for, is_exact
from ctxtui.core.report import build_report, display_text, render_report

if TYPE_CHECKING:
    from rich.console import RenderableType


def print_table(renderable: RenderableType) -> None:
    """Print with rich; into a pipe or file, without the padding rich adds to every line."""
    from rich.console import Console

    console = Console(highlight=False)
    if console.is_terminal:
        console.print(renderable)
        return
    with console.capture() as captured:
        console.print(renderable)
    sys.stdout.write("".join(line.rstrip() + "\n" for line in captured.get().splitlines()))


def _estimate(planned: Planned) -> EstimateDrift | None:
    """The estimator against the exact count, when the report counted exactly.

    Only then: the estimate is cheap to add to an exact count, while an exact count added to
    every default report would make it as slow as tiktoken.
    """
    counts = planned.engine.cached_counts(planned.policy)
    if counts is None or not is_exact(counts.tokenizer.used):
        return None
    estimator = planned.policy.with_changes(tokenizer=estimator_for(planned.policy))
    estimated = planned.engine.counts(estimator)
    return estimate_drift(estimated, counts) if estimated is not None else None


def run(args: argparse.Namespace) -> int:
    planned = plan_session(args)
    plan = planned.plan
    # A compaction is only simulated when the plan calls for one, so tokens_after and the
    # overflow describe the request as it would be sent.
    result = (
        planned.engine.compact(planned.policy, plan.compaction.reason)
        if (plan.compaction.needed and plan.compaction.reason is not None)
        else None
    )
    report = build_report(planned.session, plan, result, estimate=_estimate(planned))
    report["session"]["warnings"].extend(planned.notes)
    if args.json:
        # One document and nothing else on stdout, valid UTF-8 whatever the session held.
        sys.stdout.write(display_text(json.dumps(report, indent=2, ensure_ascii=False)) + "\n")
    else:
        from rich.console import Group
        from rich.text import Text

        from ctxtui.commands.report_blocks import render_estimate, render_tools

        blocks = [render_report(report), Text(), render_tools(report)]
        estimate = render_estimate(report)
        if estimate is not None:
            blocks += [Text(), estimate]
        print_table(Group(*blocks))
    over = args.fail_over is not None and report["totals"]["used_ratio"] > args.fail_over
    return EXIT_OVER if over else EXIT_OK
