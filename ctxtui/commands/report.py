"""``ctxtui report``: the plan for a session, as a table or as the ``ctxtui.report/1`` JSON."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from ctxtui.cli import EXIT_OK, EXIT_OVER
from ctxtui.commands.pipeline import plan_session
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
    report = build_report(planned.session, plan, result)
    report["session"]["warnings"].extend(planned.notes)
    if args.json:
        # One document and nothing else on stdout, valid UTF-8 whatever the session held.
        sys.stdout.write(display_text(json.dumps(report, indent=2, ensure_ascii=False)) + "\n")
    else:
        from rich.console import Group
        from rich.text import Text

        from ctxtui.commands.render_tools import render_tools

        print_table(Group(render_report(report), Text(), render_tools(report)))
    over = args.fail_over is not None and report["totals"]["used_ratio"] > args.fail_over
    return EXIT_OVER if over else EXIT_OK
