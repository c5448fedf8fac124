"""``ctxtui fleet``: every session at once, one row each, and the figures over all of them.

The sessions ``ctxtui sessions`` lists (or the files and directories given) are read by
``ctxtui.fleet.job`` on a process pool over every core, or on a Dask cluster with ``--dask``;
the index (``ctxtui.fleet.index``) spares a second run every file that did not change. A table
for people, or one JSON document (schema ``ctxtui.fleet/1``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from functools import partial
from typing import Any, TextIO

from ctxtui.commands import pipeline
from ctxtui.commands.errors import CommandError
from ctxtui.core.error_text import clip
from ctxtui.core.fleet import Days, build_document, in_range, preset_totals
from ctxtui.core.literal import json_literal, json_names, literal_block, visible
from ctxtui.core.wording import band_words, counted, plural
from ctxtui.fleet.index import FleetIndex, default_path
from ctxtui.fleet.job import Spec, Target
from ctxtui.fleet.run import (
    ClusterUnreachableError,
    ExecutorFactory,
    FleetRun,
    Progress,
    RunHooks,
    dask_address,
    executor_for,
    path_targets,
    run_fleet,
    store_targets,
)
from ctxtui.options import EXIT_OK, explain_policy_error, overrides_from, stopped_exit

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
    from ctxtui.core.policies.presets import DEFAULT_PRESET, PRESETS

    compare = _compare_names(args.compare) if args.compare else ()
    for name in compare:
        if name not in PRESETS:
            raise CommandError(
                f"--compare: unknown preset {name!r}; expected: {', '.join(PRESETS)}"
            )
    presets = tuple(dict.fromkeys((args.preset or DEFAULT_PRESET, *compare)))
    given = overrides_from(args) if _knobs_given(args) else {}
    if given:  # a preset alone is valid; knobs may clash with one, or with each other
        from ctxtui.core.policies.policy import PolicyError
        from ctxtui.core.session.models import Session
        from ctxtui.options import build_policy

        for name in presets:
            try:  # fitted as to a session (an output reserve that fits a small window)
                build_policy(name, given, Session())
            except PolicyError as err:
                raise CommandError(explain_policy_error(err, given)) from None
    return Spec(
        presets=presets,
        overrides=tuple(sorted(given.items())),
        simulate=not args.no_simulate,
        format=args.format,
    )


_OWN_OPTIONS = frozenset(
    {"command", "paths", "json", "compare", "no_simulate", "no_cache", "workers", "dask"}
    | {"format", "preset", "by", "since", "until"}
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


def executor_from(args: argparse.Namespace) -> ExecutorFactory | None:
    """The pool the jobs run on; ``None`` (this process) for ``--workers 1``. A ``--dask``
    address is checked here, before any file is read."""
    if args.dask is None and args.workers == 1:
        return None
    if args.dask is not None:
        try:
            dask_address(args.dask)
        except ValueError as err:
            raise CommandError(f"--dask {clip(args.dask)}: {err}") from None
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise CommandError(
                "--dask needs the optional 'distributed' package: pip install 'ctxtui[dask]'"
            ) from None
    return partial(executor_for, dask=args.dask, workers=args.workers)


def document(run: FleetRun, spec: Spec, args: argparse.Namespace | None = None) -> dict[str, Any]:
    """The ``ctxtui.fleet/1`` document of a run (what finished, when it was interrupted),
    with the period and range ``args`` asks for (``--by``, ``--since``, ``--until``)."""
    preset = spec.presets[0] if spec.simulate else None
    rows = run.rows(preset)
    since, until = getattr(args, "since", None), getattr(args, "until", None)
    presets = []
    if spec.simulate and len(spec.presets) > 1:
        done = [run.finished[i] for i in sorted(run.finished)]
        keep = {id(r) for r in rows if in_range(r, since, until)}
        done = [f for f, r in zip(done, rows, strict=True) if id(r) in keep]
        for name in spec.presets:
            simulated = [f.simulated[name] for f in done if name in f.simulated]
            presets.append(preset_totals(name, simulated))
    days = Days(since, until, getattr(args, "by", None))
    return build_document(rows, preset=preset, presets=presets, complete=run.complete, days=days)


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
            hooks=RunHooks(on_progress=progress),
        )
    except ClusterUnreachableError as err:
        raise CommandError(f"--dask {clip(args.dask)}: {err}") from None
    finally:
        progress.close()
        if index is not None:
            index.close()
    if args.since and args.until and args.since > args.until:
        raise CommandError(f"--since {args.since} is after --until {args.until}")
    doc = document(result, spec, args)
    if args.json:
        write_json(doc)
    else:
        sys.stdout.write("".join(line + "\n" for line in render(doc, args.by)))
    return _ending(result, len(targets), args.dask, kept=index is not None)


EXIT_INCOMPLETE = 1
"""Some sessions have no figures: their worker died twice, or the Dask cluster was lost."""


def _ending(result: FleetRun, total: int, dask: str | None, *, kept: bool) -> int:
    """The run's last line on stderr, when it did not read everything, and the exit code."""
    done = f"{len(result.finished) - len(result.failed):,} of {total:,} sessions done"
    if kept:
        done += " (kept in the index)"
    if result.interrupted:
        print(f"ctxtui fleet: interrupted; {done}", file=sys.stderr)
        return stopped_exit(result.signal)
    if result.lost:
        print(
            f"ctxtui fleet: the Dask cluster at {clip(dask or '')} was lost ({result.lost}); "
            f"{done}",
            file=sys.stderr,
        )
        return EXIT_INCOMPLETE
    if result.failed:
        first = result.finished[min(result.failed)].base["error"]
        print(
            f"ctxtui fleet: {plural(len(result.failed), 'session')} failed twice "
            f"(first: {_shown(first or '')}); {done}",
            file=sys.stderr,
        )
        return EXIT_INCOMPLETE
    return EXIT_OK


def write_json(doc: dict[str, Any]) -> None:
    """The document on stdout, indented by two, valid UTF-8 whatever a path held, nothing a
    terminal acts on left raw (``json_literal``).

    Not ``report``'s writer: importing the report command would load the whole planning
    pipeline, most of a warm run's time.
    """
    import orjson

    try:
        data = orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
    except orjson.JSONEncodeError:  # a lone surrogate (a file name that is not UTF-8)
        text = json.dumps(doc, indent=2, ensure_ascii=False)
        data = (json_names(text) + "\n").encode("utf-8")
    sys.stdout.flush()
    sys.stdout.buffer.write(json_literal(data))
    sys.stdout.flush()


def _warn(stream: TextIO, text: str) -> None:
    print(f"ctxtui fleet: {literal_block(text)}", file=stream)


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


def render(doc: dict[str, Any], by: str | None = None) -> list[str]:
    """Sessions, the totals, per agent, per period with ``--by``, and (with ``--compare``)
    the recorded figures beside each preset's simulated ones. Every figure says whether it
    is recorded (what the agent did and paid) or simulated (under a preset)."""
    header = [name for name, _ in _COLUMNS]
    right = {i for i, (_, r) in enumerate(_COLUMNS) if r}
    lines = _columns(header, [_cells(row) for row in doc["sessions"]], right)
    t = doc["totals"]
    under = f" under {doc['preset']}" if doc["preset"] else ""
    lines += [
        "",
        f"{plural(t['sessions'], 'session')} · {counted(t['messages'], 'message')} · "
        f"{counted(t['requests'], 'request')} · "
        f"compactions {_n(t['compactions_recorded'])} recorded, "
        f"{_n(t['compactions_simulated'])} simulated{under} · peak {_n(t['peak_reported'])} "
        f"reported, {_n(t['peak_simulated'])} simulated · recorded ${_n(t['cost_usd'])}"
        + (f" · {t['errors']:,} unreadable" if t["errors"] else ""),
        "",
    ]
    groups = [
        (_shown(key), _n(g["sessions"]), _n(g["messages"]), _n(g["requests"]),
         _n(g["compactions_recorded"]), _n(g["compactions_simulated"]),
         _n(g["peak_reported"]), _n(g["peak_simulated"]), _n(g["cost_usd"]), "")
        for key, g in doc["by_agent"].items()
    ]  # fmt: skip
    names = ("AGENT", "SESSIONS", "MESSAGES", "REQUESTS", "COMPACTIONS REC", "COMPACTIONS SIM",
             "PEAK REPORTED", "PEAK SIMULATED", "RECORDED $", "")  # fmt: skip
    lines += _columns(names, groups, set(range(1, 9)))
    if by is not None:
        lines += ["", *_period_table(f"by_{by}", doc[f"by_{by}"])]
    if doc.get("presets"):
        r = doc["recorded"]
        presets = [
            ("recorded", _n(r["compactions_recorded"]), _n(r["peak_reported"]), _n(r["cost_usd"]))
        ] + [
            (p["preset"] + " (simulated)", _n(p["compactions_simulated"]),
             _n(p["peak_simulated"]), _n(p["cost_usd_simulated"]))
            for p in doc["presets"]
        ]  # fmt: skip
        lines += ["", *_columns(("PRESET", "COMPACTIONS", "PEAK", "COST $"), presets, {1, 2, 3})]
    return lines


_PERIOD_HEADINGS = {
    "by_day": "DAY (UTC)",
    "by_week": "WEEK FROM (UTC)",
    "by_month": "MONTH (UTC)",
    "by_block": "5-HOUR BLOCK FROM (UTC)",
}


def _period_table(key: str, periods: dict[str, dict[str, Any]]) -> list[str]:
    """The requests per period: each request counted in the period it was sent in."""
    rows = [
        (_period_label(key, label), _n(p["sessions"]), _n(p["requests"]),
         _n(p["compactions_recorded"]), _n(p["peak_reported"]), _n(p["cost_usd"]), "")
        for label, p in periods.items()
    ]  # fmt: skip
    names = (_PERIOD_HEADINGS[key], "SESSIONS", "REQUESTS", "COMPACTIONS REC", "PEAK REPORTED",
             "RECORDED $", "")  # fmt: skip
    return _columns(names, rows, {1, 2, 3, 4, 5})


def _period_label(key: str, label: str) -> str:
    return _utc(label) if key == "by_block" else label


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
    ("RECORDED $", True),
    ("SESSION", False),
)


def _shown(text: str) -> str:
    """A value from a session, printed literally: escapes and controls shown, never acted on."""
    return visible(text)


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
