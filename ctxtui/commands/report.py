"""``ctxtui report``: the plan for a session, as a table or as the ``ctxtui.report/1`` JSON."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxtui.commands.cost_blocks import (
    add_carry,
    cost_blocks,
    cost_sentence,
    whole_session_tokens,
)
from ctxtui.commands.errors import CommandError
from ctxtui.commands.json_out import stdlib_text, write_stdout
from ctxtui.commands.pipeline import Planned, plan_session
from ctxtui.core.compacting.compaction import compact
from ctxtui.core.literal import literal_block, visible
from ctxtui.core.simulation.estimate_check import (
    EstimateDrift,
    estimate_drift,
    estimator_for,
    is_exact,
)
from ctxtui.core.simulation.report import build_report
from ctxtui.importers import gc_paused, source_protection
from ctxtui.options import EXIT_OK, EXIT_OVER
from ctxtui.stores.guard import store_refusal
from ctxtui.system.output import OutputError, atomic_write, check_output, check_stream

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderableType, RenderResult

    from ctxtui.core.session.models import Session
    from ctxtui.core.tokens.calibration import SessionFit


def print_table(renderable: RenderableType) -> None:
    """Print with rich; into a pipe or file, without the padding rich adds to every line.
    Every piece of text passes through ``literal_block`` on its way out: a renderer that
    forgot to escape a name still cannot drive the terminal."""
    from rich.console import Console

    console = Console(highlight=False)
    literal = _Literal(renderable)
    if console.is_terminal:
        console.print(literal)
        return
    with console.capture() as captured:
        console.print(literal)
    sys.stdout.write("".join(line.rstrip() + "\n" for line in captured.get().splitlines()))


class _Literal:
    """A renderable whose text segments are shown literally (rich's own styles stay: they are
    segments' styles, not text)."""

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.segment import Segment

        for segment in console.render(self.renderable, options):
            text = segment.text
            if segment.control or text.isprintable() or text == "\n":
                yield segment
            else:
                yield Segment(literal_block(text), segment.style)


def _estimate(planned: Planned) -> EstimateDrift | None:
    """The estimator against the exact count, only when the report counted exactly: an exact
    count added to every default report would make it slow."""
    counts = planned.engine.cached_counts(planned.policy)
    if counts is None or not is_exact(counts.tokenizer.used):
        return None
    estimator = planned.policy.with_changes(tokenizer=estimator_for(planned.policy))
    estimated = planned.engine.counts(estimator)
    return estimate_drift(estimated, counts) if estimated is not None else None


def _fit(planned: Planned, whole: Session) -> SessionFit | None:
    """The calibration over the whole transcript (``whole``, read once for the cost too), when
    the session was read from the agent's last compaction on; else ``None`` (``build_report``
    fits the session itself)."""
    session = planned.session
    if whole is session or not any(m.usage is not None for m in session.messages):
        return None
    from ctxtui.core.tokens.calibration import history_fit

    return history_fit(whole, session)


def add_tuning(report: dict[str, Any], planned: Planned, history: Session | None) -> None:
    """``observed`` (the band of the agent's automatic compactions, its manual ones) and
    ``configured`` (the agent's settings laid over its preset, each with its origin)."""
    chosen = planned.effective
    if chosen is None:
        return
    recorded = (history or planned.session).meta.recorded_compactions
    observed = chosen.observed(recorded)
    report["observed"] = observed.as_json()
    report["configured"] = chosen.configured_json()
    sentence = chosen.agreement(observed)
    if sentence is not None:
        report["observed"]["agreement"] = sentence


def _tune(args: argparse.Namespace, planned: Planned) -> dict[str, Any]:
    """``ctxtui tune`` on this one session, for the session's agent (ctxtui's plan for a
    format no agent's settings describe)."""
    from ctxtui.agent_config import read_agent_config
    from ctxtui.core.tuning.space import SPACES
    from ctxtui.fleet.job import Target
    from ctxtui.fleet.tune import agent_search, run_tune

    agent = planned.session.meta.format
    search = agent_search(agent if agent in SPACES else "plan", read_agent_config)
    return search.document(run_tune([Target(args.session)], search.spec(args.format)))


def _write(
    args: argparse.Namespace, planned: Planned, report: dict[str, Any], whole: Session
) -> None:
    """The HTML page (or with ``--json``, the document) to ``-o``'s file, atomically and with
    every write's checks (``ctxtui.system.output``), or to standard output."""
    if args.html:
        from ctxtui.commands.report_html import render_html, timeline_figures

        history = whole if whole.meta.full_history else None  # else read in full there
        data = render_html(report, timeline_figures(args, history)).encode("utf-8")
    elif args.json:
        data = stdlib_text(report)
    else:
        raise CommandError("-o: expected --html or --json with it (the table is for a terminal)")
    protected = source_protection(planned.session.meta.source_path)
    try:
        if args.output in (None, "-"):
            check_stream(sys.stdout, protected)
            write_stdout(data)
            return
        if (refusal := store_refusal(args.output)) is not None:
            raise CommandError(refusal)
        source = planned.session.meta.source_path
        target = check_output(
            args.output,
            protected=protected,
            force=args.force,
            source=Path(source) if source else None,
        )
        atomic_write(target, (data,))
    except OutputError as err:
        raise CommandError(str(err)) from None
    print(
        f"wrote {visible(str(target))} ({'HTML' if args.html else 'JSON'} report)", file=sys.stderr
    )


def run(args: argparse.Namespace) -> int:
    planned = plan_session(args, with_history=True)
    plan = planned.plan
    # A compaction is only simulated when the plan calls for one, so tokens_after and the
    # overflow describe the request as it would be sent. The plan in hand is the one the
    # engine would build again for it.
    result = (
        compact(
            planned.session,
            plan,
            plan.compaction.reason,
            planned.engine.tokenizer(planned.policy),
        )
        if (plan.compaction.needed and plan.compaction.reason is not None)
        else None
    )
    whole, history = planned.whole, planned.history
    # One dict per message, 100k of them, none in a cycle: the collector would only re-walk
    # them while they are built (half the time of building them, without the pause).
    with gc_paused():
        report = build_report(
            planned.session, plan, result, estimate=_estimate(planned), fit=_fit(planned, whole)
        )
    add_tuning(report, planned, history)
    if getattr(args, "tune", False):
        report["tune"] = _tune(args, planned)
    report["session"]["warnings"].extend(planned.notes)
    costs = cost_blocks(whole)
    report["cost"], report["cache"] = costs.cost_json(), costs.cache_json()
    add_carry(report, costs, whole_session_tokens(planned, whole))
    report["session"]["warnings"].extend(costs.warnings)
    if args.html or args.output is not None:
        _write(args, planned, report, whole)
    elif args.json:
        # One document and nothing else on stdout, never appended onto the source (``>>``)
        try:
            check_stream(sys.stdout, source_protection(planned.session.meta.source_path))
        except OutputError as err:
            raise CommandError(str(err)) from None
        write_stdout(stdlib_text(report))
    else:
        from rich.console import Group
        from rich.text import Text

        from ctxtui.commands.render_report import render_report
        from ctxtui.commands.report_blocks import render_estimate, render_tools, tuning_lines

        blocks = [render_report(report), Text(), render_tools(report)]
        estimate = render_estimate(report)
        if estimate is not None:
            blocks += [Text(), estimate]
        blocks += [Text(), Text(cost_sentence(report["cost"], report["cache"]))]
        blocks += [Text(line) for line in tuning_lines(report)]
        print_table(Group(*blocks))
    over = args.fail_over is not None and report["totals"]["used_ratio"] > args.fail_over
    return EXIT_OVER if over else EXIT_OK
