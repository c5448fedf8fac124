"""``ctxtui report``: the plan for a session, as a table or as the ``ctxtui.report/1`` JSON."""

from __future__ import annotations

import argparse
import json

from ctxtui.commands.pipeline import plan_session
from ctxtui.core.report import build_report, render_report

EXIT_OK = 0
EXIT_OVER = 1


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
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        from rich.console import Console

        Console(highlight=False).print(render_report(report))
    over = args.fail_over is not None and report["totals"]["used_ratio"] > args.fail_over
    return EXIT_OVER if over else EXIT_OK
