"""``python -m bench``: every issue #6 figure as a ratio, printed and written to PERFORMANCE.md."""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench import measures, stores
from bench.common import SIZES, Result, label, machine, session_file

DOC = Path(__file__).resolve().parent.parent / "docs" / "PERFORMANCE.md"
SECTIONS = (
    "open", "exact", "latency", "replan", "frame", "memory", "startup", "report", "replay",
    "fleet", "usage", "replay-presets", "retention", "pass", "tune",
)  # fmt: skip
EXTRA_SECTIONS = ("ablation", "watch", "listing")
"""Run only when named in ``--only``: what each of the open's speed-ups is worth; the
watched file and the sessions listing (``bench/stores.py``)."""


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    p.add_argument(
        "--sizes", default=",".join(map(str, SIZES)), help="session sizes, comma-separated"
    )
    p.add_argument(
        "--replay-sizes",
        default=",".join(map(str, measures.REPLAY_PRESET_SIZES)),
        help="the two session sizes of the replay-presets section (default %(default)s: "
        "9,999 and 49,999 requests)",
    )
    p.add_argument("--frame-rows", type=int, default=1_000_000, help="rows of the big frame test")
    p.add_argument("--repeats", type=int, default=3, help="repeats per figure (median kept)")
    p.add_argument(
        "--startup-rounds",
        type=int,
        default=measures.STARTUP_ROUNDS,
        help="at least this many runs of each start-up command (default %(default)s)",
    )
    p.add_argument(
        "--only",
        default=",".join(SECTIONS),
        help="sections to run, comma-separated: "
        + ", ".join(SECTIONS + EXTRA_SECTIONS)
        + f" (default: all but {', '.join(EXTRA_SECTIONS)})",
    )
    p.add_argument("--fleet-sessions", type=int, default=1000, help="sessions in the fleet section")
    p.add_argument("--fleet-mb", type=float, default=1.0, help="megabytes per fleet session")
    p.add_argument("--tune-sessions", type=int, default=100, help="sessions in the tune section")
    p.add_argument("--tune-mb", type=float, default=1.0, help="megabytes per tune session")
    p.add_argument(
        "--usage-mb",
        default="64,30",
        help="sizes of the Claude Code session and the Codex rollout of the usage and pass "
        "sections",
    )
    p.add_argument("--doc", type=Path, default=DOC, help="where to write the results")
    p.add_argument("--no-doc", action="store_true", help="print only")
    return p.parse_args(argv)


def run(
    args: argparse.Namespace, emit: Callable[[str], None] = print
) -> tuple[list[Result], list[str]]:
    """Every requested section; returns the figures and the notes (breakdowns, profiles)."""
    sizes = tuple(int(s) for s in args.sizes.split(","))
    only = set(args.only.split(","))
    big, small = max(sizes), min(sizes)
    results: list[Result] = []
    notes: list[str] = []

    def add(found: list[Result]) -> None:
        for r in found:
            emit(r.line())
        results.extend(found)
        # A section that ran the app leaves its session frozen (ctxtui.system.heap); the next
        # starts as a fresh process would. Left frozen, it made every later collection
        # cheaper and the replan section's 1k plans three times faster than alone.
        gc.unfreeze()

    for size in sizes:
        session_file(size)
    if "open" in only:
        for size in sizes:
            add(measures.open_ratio(size, args.repeats))
        notes.append(measures.open_breakdown(big, args.repeats))
        emit(notes[-1])
    if "ablation" in only:
        add(measures.open_ablation(big, args.repeats))
    if "exact" in only:
        for size in sizes:
            add(measures.exact_ratio(size, args.repeats))
    if "latency" in only:
        add(measures.input_latency(big))
    if "replan" in only:
        found = measures.replan_times((small, big), args.repeats)
        add(found)
        if any(r.met is False for r in found):
            notes.append(f"cProfile of one {label(big)} re-plan:\n" + measures.replan_profile(big))
            emit(notes[-1])
    if "frame" in only:
        add(measures.frame_ratio(args.repeats, big=args.frame_rows, small=min(1000, small)))
    if "memory" in only:
        add(measures.memory(big))
    if "startup" in only:
        add(measures.startup(args.repeats, args.startup_rounds))
    if "report" in only:
        add(measures.report_json(big, args.repeats))
        add(measures.report_json(big, 1, "tiktoken:cl100k_base", cache="off"))
        add(measures.report_json(big, 1, "tiktoken:cl100k_base", cache="warm"))
    if "replay" in only:
        for size in sizes:
            add(measures.replay_ratio(size, args.repeats))
        add(measures.timeline_latency(big))
    if "fleet" in only:
        from bench.fleet import fleet_sections

        add(fleet_sections(args.fleet_sessions, args.fleet_mb, args.repeats))
    if "usage" in only:
        from bench.fleet import usage_sections

        claude_mb, codex_mb = (float(x) for x in args.usage_mb.split(","))
        add(usage_sections(args.repeats, claude_mb, codex_mb, emit))
    if "pass" in only:
        from bench.one_pass import pass_sections

        claude_mb, codex_mb = (float(x) for x in args.usage_mb.split(","))
        fleet = (args.fleet_sessions, args.fleet_mb)
        add(pass_sections(args.repeats, claude_mb, codex_mb, emit, fleet))
    if "retention" in only:
        from bench.retention import retention_ratio

        for size in sizes:
            add(retention_ratio(size, args.repeats))
    if "watch" in only:
        add(stores.watch_flat())
        add(stores.watch_append())
    if "listing" in only:
        add(stores.listing())
    if "tune" in only:
        from bench.tune import tune_sections

        add(tune_sections(args.tune_sessions, args.tune_mb, args.repeats))
    if "replay-presets" in only:
        small_replay, big_replay = (int(s) for s in args.replay_sizes.split(","))
        add(measures.replay_presets(args.repeats, (small_replay, big_replay)))
    return results, notes


def render(results: list[Result], notes: list[str], args: argparse.Namespace, took: float) -> str:
    """The results as the Markdown section of PERFORMANCE.md that the benchmark owns."""
    m = machine()
    rows = [
        "| section | size | subject | baseline | ratio | target | verdict | note |",
        "|---|---|---|---|---|---|---|---|",
    ]
    from bench.common import fmt

    for r in results:
        target = f"≤ {r.target:g}" if r.target is not None else "—"
        rows.append(
            f"| {r.section} | {r.size} | {r.subject}: {fmt(r.subject_value, r.unit)} "
            f"| {r.baseline}: {fmt(r.baseline_value, r.unit)} | {r.ratio:.3f} | {target} "
            f"| {r.verdict()} | {r.note} |"
        )
    command = "python -m bench " + " ".join(
        f"--{k.replace('_', '-')} {v}"
        for k, v in (
            ("sizes", args.sizes),
            ("repeats", args.repeats),
            ("frame_rows", args.frame_rows),
            ("only", args.only),
            ("fleet_sessions", args.fleet_sessions),
            ("fleet_mb", args.fleet_mb),
            ("usage_mb", args.usage_mb),
        )
    )
    lines = [
        "## Latest results",
        "",
        f"Machine: {m['nproc']} CPUs ({m['cpu']}), Python {m['python']}, {m['platform']}; "
        f"the benchmark took {took:.0f} s. Shared machine: ratios, not seconds, are the figures.",
        "",
        "Reproduce: `make bench` (equivalently `.venv/bin/" + command + "`).",
        "",
        *rows,
    ]
    for note in notes:
        lines += ["", "```", note.rstrip(), "```"]
    return "\n".join(lines) + "\n"


def summary(results: list[Result]) -> str:
    """Every figure of the run on one screen: what, ratio, target, verdict; targets first."""
    from bench.common import fmt

    ordered = sorted(results, key=lambda r: r.target is None)
    width = max((len(f"{r.section} {r.size} {r.subject}") for r in ordered), default=10)
    width = min(width, 58)
    lines = [f"{'figure':<{width}}  {'value':>10}  {'ratio':>7}  {'target':>7}  verdict"]
    for r in ordered:
        name = f"{r.section} {r.size} {r.subject}"
        name = name if len(name) <= width else name[: width - 1] + "…"
        target = f"≤ {r.target:g}" if r.target is not None else "—"
        lines.append(
            f"{name:<{width}}  {fmt(r.subject_value, r.unit):>10}  {r.ratio:>7.3f}  "
            f"{target:>7}  {r.verdict()}"
        )
    met = sum(r.met is True for r in results)
    targeted = sum(r.met is not None for r in results)
    lines.append(f"{met} of {targeted} targets met")
    return "\n".join(lines)


MARK = "<!-- bench:results -->"


def write_doc(path: Path, section: str) -> None:
    """Replace everything after the marker in ``path`` (the hand-written part stays)."""
    head = ""
    if path.exists():
        text = path.read_text(encoding="utf-8")
        head = text.split(MARK, 1)[0] if MARK in text else text.rstrip() + "\n\n"
    else:
        head = "# Performance\n\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(head + MARK + "\n\n" + section, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    # The user's count cache is left alone: the bench gets its own, empty at the start.
    with tempfile.TemporaryDirectory(prefix="ctxtui-bench-cache-") as cache_dir:
        os.environ["CTXTUI_CACHE_DIR"] = cache_dir
        start = time.perf_counter()
        results, notes = run(args)
        took = time.perf_counter() - start
    print()
    print(summary(results))
    print(f"benchmark took {took:.0f} s")
    if not args.no_doc:
        write_doc(args.doc, render(results, notes, args, took))
        print(f"wrote {args.doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
