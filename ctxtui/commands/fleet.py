"""``ctxtui fleet``: every session at once, one row each, and the figures over all of them.

The sessions ``ctxtui sessions`` lists (or the files and directories given) are read by
``ctxtui.fleet.job`` on a process pool over every core, or on a Dask cluster with ``--dask``;
the index (``ctxtui.fleet.index``) spares a second run every file that did not change. A table
for people, or one JSON document (schema ``ctxtui.fleet/1``).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from functools import partial
from typing import Any, TextIO

from ctxtui.commands import pipeline
from ctxtui.commands.errors import CommandError
from ctxtui.core.fleet import build_document, preset_totals
from ctxtui.core.wording import band_words, counted, plural
from ctxtui.fleet.index import FleetIndex, default_path
from ctxtui.fleet.job import Spec, Target
from ctxtui.fleet.run import (
    FleetRun,
    Progress,
    executor_for,
    path_targets,
    run_fleet,
    store_targets,
)
from ctxtui.options import EXIT_INTERRUPTED, EXIT_OK, explain_policy_error, overrides_from

PROGRESS_AFTER_SECONDS = 0.5
PROGRESS_EVERY_SECONDS = 0.1


class ProgressLine:
    """``fleet: 312 / 1,000 sessions · 85 read · 41/s · 17 s left`` on stderr, on a terminal
    and only once the run is slow enough to need it (drawn by ``pipeline.Progress``)."""

    def __init__(self, stream: TextIO) -> None:
        self._line = pipeline.Progress(
            stream, after=PROGRESS_AFTER_SECONDS, every=PROGRESS_EVERY_SECONDS
        )

    def __call__(self, p: Progress) -> None:
        self._line.show(p.words(), final=p.done >= p.total)

    def close(self) -> None:
        self._line.close()


def spec_from(args: argparse.Namespace) -> Spec:
    """The policies to replay under: ``--preset`` (first) and ``--compare``'s, with the knobs.

    Every preset and the knobs are checked here, before a file is read: a bad knob is one
    line, not one error row per session.
    """
    from ctxtui.core.policies.presets import PRESETS

    compare = _compare_names(args.compare) if args.compare else ()
    for name in compare:
        if name not in PRESETS:
            raise CommandError(
                f"--compare: unknown preset {name!r}; expected: {', '.join(PRESETS)}"
            )
    presets = tuple(dict.fromkeys((args.preset, *compare)))
    given = overrides_from(args) if _knobs_given(args) else {}
    if given:  # a preset alone is valid; knobs may clash with one, or with each other
        from ctxtui.core.policies.policy import PolicyError
        from ctxtui.core.session.models import Session
        from ctxtui.options import build_policy

        for name in presets:
            try:  # fitted as to a session (an output reserve that fits a small window)
                build_policy(name, given, Session())
            except PolicyError as err:
                raise CommandError(explain_policy_error(err)) from None
    return Spec(
        presets=presets,
        overrides=tuple(sorted(given.items())),
        simulate=not args.no_simulate,
        format=args.format,
    )


_OWN_OPTIONS = frozenset(
    {"command", "paths", "json", "compare", "no_simulate", "no_cache", "workers", "dask"}
    | {"format", "preset"}
)


def _knobs_given(args: argparse.Namespace) -> bool:
    """Whether any policy knob was given, without building the knobs' table (which imports
    the policy model: a third of a warm run)."""
    return any(v is not None for k, v in vars(args).items() if k not in _OWN_OPTIONS)


def _compare_names(text: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    if not names:
        raise CommandError("--compare: expected preset names separated by commas")
    return names


def targets_from(args: argparse.Namespace, index: FleetIndex | None = None) -> list[Target]:
    if not args.paths:
        return store_targets()
    try:
        return path_targets(args.paths, index)
    except FileNotFoundError as err:
        raise CommandError(f"no such file or directory: {err.args[0]}") from None


def executor_from(
    args: argparse.Namespace,
) -> Callable[[], AbstractContextManager[Executor]] | None:
    """The pool the jobs run on; ``None`` (this process) for ``--workers 1``."""
    if args.dask is None and args.workers == 1:
        return None
    if args.dask is not None:
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise CommandError(
                "--dask needs the optional 'distributed' package: pip install 'ctxtui[dask]'"
            ) from None
    return partial(executor_for, dask=args.dask, workers=args.workers)


def document(run: FleetRun, spec: Spec) -> dict[str, Any]:
    """The ``ctxtui.fleet/1`` document of a run (what finished, when it was interrupted)."""
    preset = spec.presets[0] if spec.simulate else None
    rows = run.rows(preset)
    presets = []
    if spec.simulate and len(spec.presets) > 1:
        done = [run.finished[i] for i in sorted(run.finished)]
        for name in spec.presets:
            simulated = [f.simulated[name] for f in done if name in f.simulated]
            presets.append(preset_totals(name, simulated, rows))
    return build_document(rows, preset=preset, presets=presets, complete=run.complete)


def run(args: argparse.Namespace) -> int:
    spec = spec_from(args)
    warn = partial(_warn, sys.stderr)
    index = None if args.no_cache else FleetIndex(default_path(), warn)
    try:
        targets = targets_from(args, index)
    except BaseException:
        if index is not None:
            index.close()
        raise
    if not targets and not args.json:
        where = (
            "the paths given"
            if args.paths
            else "the Claude Code, Codex, OpenCode or PicoClaw stores"
        )
        print(
            f"no sessions found in {where} (see 'ctxtui fleet --help' for where ctxtui looks)",
            file=sys.stderr,
        )
        if index is not None:
            index.close()
        return EXIT_OK
    progress = ProgressLine(sys.stderr)
    try:
        result = run_fleet(
            targets,
            spec,
            executor=executor_from(args),
            index=index,
            on_progress=progress,
        )
    except OSError as err:  # --dask: the scheduler cannot be reached
        raise CommandError(f"--dask {args.dask}: {err}") from None
    finally:
        progress.close()
        if index is not None:
            index.close()
    doc = document(result, spec)
    if args.json:
        write_json(doc)
    else:
        sys.stdout.write("".join(line + "\n" for line in render(doc)))
    if result.interrupted:
        print(
            f"ctxtui fleet: interrupted; {len(result.finished):,} of {len(targets):,} "
            "sessions done (kept in the index)",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    return EXIT_OK


def write_json(doc: dict[str, Any]) -> None:
    """The document on stdout, indented by two, valid UTF-8 whatever a path held.

    Not ``report``'s writer: importing the report command would load the whole planning
    pipeline, most of a warm run's time.
    """
    import orjson

    try:
        data = orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
    except orjson.JSONEncodeError:  # a lone surrogate (a file name that is not UTF-8)
        text = json.dumps(doc, indent=2, ensure_ascii=False)
        data = (_SURROGATE.sub("\ufffd", text) + "\n").encode("utf-8")
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.flush()


_SURROGATE = re.compile("[\ud800-\udfff]")


def _warn(stream: TextIO, text: str) -> None:
    print(f"ctxtui fleet: {text}", file=stream)


# -- the table ----------------------------------------------------------------------------


def _n(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.2f}"
    return f"{value:,}"


def _columns(header: Sequence[str], rows: Sequence[Sequence[str]], right: set[int]) -> list[str]:
    """Rows aligned in columns (the last one left as it is), as ``ctxtui sessions`` prints."""
    table: list[Sequence[str]] = [header, *rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(header) - 1)]
    lines = []
    for row in table:
        cells = [
            cell.rjust(w) if i in right else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(row[:-1], widths, strict=True))
        ]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return lines


def render(doc: dict[str, Any]) -> list[str]:
    """Sessions, then the totals, then per agent (and per preset with ``--compare``)."""
    header = [name for name, _ in _COLUMNS]
    right = {i for i, (_, r) in enumerate(_COLUMNS) if r}
    lines = _columns(header, [_cells(row) for row in doc["sessions"]], right)
    t = doc["totals"]
    lines += [
        "",
        f"{plural(t['sessions'], 'session')} · {counted(t['messages'], 'message')} · "
        f"{counted(t['requests'], 'request')} · "
        f"compactions {_n(t['compactions_recorded'])} recorded, "
        f"{_n(t['compactions_simulated'])} simulated · peak {_n(t['peak_reported'])} "
        f"reported, {_n(t['peak_simulated'])} simulated · cost ${_n(t['cost_usd'])}"
        + (f" ({doc['preset']})" if doc["preset"] else "")
        + (f" · {t['errors']:,} unreadable" if t["errors"] else ""),
        "",
    ]
    groups = [
        (_shown(key), _n(g["sessions"]), _n(g["messages"]), _n(g["requests"]),
         _n(g["compactions_simulated"]), _n(g["peak_simulated"]), "")
        for key, g in doc["by_agent"].items()
    ]  # fmt: skip
    names = ("AGENT", "SESSIONS", "MESSAGES", "REQUESTS", "COMPACTIONS", "PEAK", "")
    lines += _columns(names, groups, {1, 2, 3, 4, 5})
    if doc.get("presets"):
        presets = [
            (p["preset"], _n(p["compactions"]), _n(p["peak"]), _n(p["cost_usd"]))
            for p in doc["presets"]
        ]
        lines += ["", *_columns(("PRESET", "COMPACTIONS", "PEAK", "COST $"), presets, {1, 2, 3})]
    return lines


_COLUMNS = (
    ("AGENT", False),
    ("STARTED (UTC)", False),
    ("MODEL", False),
    ("MESSAGES", True),
    ("REQUESTS", True),
    ("COMPACTIONS REC/SIM", True),
    ("OBSERVED TRIGGER", True),
    ("PEAK REPORTED", True),
    ("PEAK SIMULATED", True),
    ("TOP TOOL", False),
    ("COST $", True),
    ("SESSION", False),
)


def _shown(text: str) -> str:
    """A value from a session, printed literally: escapes and controls shown, never acted on."""
    from ctxtui.core.planning.rows import visible
    from ctxtui.core.simulation.report import display_text

    return visible(display_text(text))


def _utc(started: str | None) -> str:
    if started is None:
        return "-"
    try:
        when = datetime.fromisoformat(started)
    except ValueError:
        return started[:16]
    if when.tzinfo is not None:
        when = when.astimezone(UTC)
    return when.strftime("%Y-%m-%d %H:%M")


def _cells(row: dict[str, Any]) -> Sequence[str]:
    agent = ("  └ sub-agent" if row["parent"] else row["agent"] or "?")[:16]  # openai-responses
    started = _utc(row["started"])
    where = f"error: {row['error']}" if row["error"] else row["path"]
    return (
        agent,
        started,
        _shown(row["model"] or "-")[:28],
        _n(row["messages"]),
        _n(row["requests"]),
        f"{_n(row['compactions_recorded'])}/{_n(row['compactions_simulated'])}",
        band_words(row["observed_low"], row["observed_high"]),
        _n(row["peak_reported"]),
        _n(row["peak_simulated"]),
        _shown(row["top_tool"] or "-")[:24],
        _n(row["cost_usd"]),
        _shown(where),
    )
