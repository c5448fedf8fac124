"""The arguments of the command line: each value checked at its flag, the options every
session command shares, and ``COMMANDS``, one row per sub-command with its own options.

A new sub-command is a row here and a module ``ctxtui.commands.<name>`` with ``run(args)``;
``ctxtui.cli.main`` builds the parsers and the ``--help`` overview from the rows.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ctxtui.cli.fleet import cache_options, fleet_options
from ctxtui.cli.help import (
    COMPACT_EPILOG,
    PRESET_HELP,
    REPLAY_EPILOG,
    REPORT_EPILOG,
    RETENTION_EPILOG,
    SESSIONS_DESCRIPTION,
    TOKENIZER_HELP,
    add_json_option,
)
from ctxtui.cli.tune import tune_options
from ctxtui.core.error_text import clip
from ctxtui.core.policies.policy import KNOBS
from ctxtui.core.policies.presets import COMPARED, PRESETS
from ctxtui.options import dest, knob_help, knob_problem, tokenizer_problem

if TYPE_CHECKING:
    from ctxtui.core.policies.policy import Knob

# -- option values: checked at the flag, so a bad one never reaches the app or a count --------


def _whole(text: str) -> int:
    """A whole number; ``_`` and ``,`` group digits as people write them (32_768, 4,096)."""
    try:
        return int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {clip(text)}") from None


def _finite(text: str) -> float:
    """A finite number; NaN would pass every range check as 'not out of range'."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {clip(text)}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {clip(text)}")
    return value


def _count(text: str) -> int:
    """A whole number ≥ 0."""
    value = _whole(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number ≥ 0, got {clip(text)}")
    return value


def _port(text: str) -> int:
    """A TCP port, 0 to 65535 (0: the kernel picks a free one)."""
    value = _whole(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port from 0 to 65535, got {clip(text)}")
    return value


def _positive(text: str) -> int:
    """A whole number ≥ 1."""
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number ≥ 1, got {clip(text)}")
    return value


def _knob_value(knob: Knob) -> Callable[[str], float]:
    """The ``type=`` of a knob's option: its kind, then its own range from the policy."""

    def parse(text: str) -> float:
        value = _whole(text) if knob.kind is int else _finite(text)
        problem = knob_problem(knob, value, text.strip())
        if problem is not None:
            raise argparse.ArgumentTypeError(problem)
        return value

    parse.__name__ = dest(knob)  # argparse names the type in a few of its own messages
    return parse


def _tokenizer(text: str) -> str:
    problem = tokenizer_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


def _fail_ratio(text: str) -> float:
    """The --fail-over threshold: a ratio > 0 (1.0 is exactly the window)."""
    value = _finite(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a ratio > 0 such as 0.9, got {clip(text)}")
    return value


def add_app_options(p: argparse.ArgumentParser) -> None:
    """What only the app does: start on the sessions picker, follow a growing transcript."""
    p.add_argument(
        "--pick",
        action="store_true",
        help="start on the open dialog: the sessions your agents wrote (Claude Code, Codex, "
        "OpenCode, PicoClaw) and the bundled samples, filtered by typing",
    )
    p.add_argument(
        "--watch",
        action="store_true",
        help="follow SESSION while an agent is still writing it: new records are read as they "
        "are appended and the plan updates live",
    )


def add_session_options(p: argparse.ArgumentParser) -> None:
    """Options shared by every command that reads a session."""
    from ctxtui.core.session.formats import FORMAT_NAMES  # not the importers: --help stays light

    p.add_argument(
        "--format",
        metavar="NAME",
        help="read SESSION as this format instead of detecting it: " + ", ".join(FORMAT_NAMES),
    )


def add_policy_options(p: argparse.ArgumentParser) -> None:
    """The policy knobs, shared by the app, ``report`` and ``compact``: every row of the knob
    table with a flag, in the table's order, its range and help read from the row."""
    g = p.add_argument_group(
        "policy",
        "What the simulated context manager does. Each knob starts from the preset's value; "
        "'unused by X' means preset X ignores it.",
    )
    g.add_argument(
        "--preset", choices=tuple(PRESETS), default=None, metavar="NAME", help=PRESET_HELP
    )
    for knob in KNOBS.values():
        _add_knob_option(g, knob)


def _add_knob_option(g: argparse._ActionsContainer, knob: Knob) -> None:
    """A knob's option, if it has a flag: its values checked and its help worded by its row."""
    if knob.flag is None:
        return
    if knob.kind is str:  # the tokenizer: a spec, worded by the tokenizer list
        kind: dict[str, Any] = {"type": _tokenizer, "metavar": "SPEC", "help": TOKENIZER_HELP}
    elif knob.choices:
        choices = ", ".join(knob.choices)
        kind = {"choices": knob.choices, "metavar": "MODE"}
        kind["help"] = f"{knob.help}: {choices}{knob.note}; default: the preset's"
    else:
        kind = {"type": _knob_value(knob), "metavar": "N" if knob.kind is int else "F"}
        kind["help"] = knob_help(knob).replace("%", "%%")  # argparse formats help with %
    g.add_argument(knob.flag, dest=dest(knob), **kind)


# -- the sub-commands ------------------------------------------------------------------------


def _report_options(p: argparse.ArgumentParser) -> None:
    add_json_option(p)
    p.add_argument(
        "--html",
        action="store_true",
        help="write one self-contained HTML page (gauge, timeline chart, message and tool "
        "tables; it loads nothing) to attach to a pull request or a CI run",
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="write the --html page or the --json document to OUT, atomically (never over "
        "SESSION; -o - is standard output)",
    )
    p.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    p.add_argument(
        "--tune",
        action="store_true",
        help="with --html or --json: replay the session under each candidate of its agent's "
        "settings and add the tune figure (ctxtui tune on this one session)",
    )
    p.add_argument(
        "--fail-over",
        type=_fail_ratio,
        metavar="RATIO",
        help="exit 1 when the used ratio (request / window) exceeds RATIO, a number > 0 "
        "such as 0.9 (1 is exactly full); for CI",
    )


def add_llm_options(p: argparse.ArgumentParser) -> None:
    """Who writes the summary: shared by ``compact`` and the app's compaction preview."""
    llm = p.add_argument_group(
        "LLM summary",
        "By default the summary is ctxtui's local, deterministic stand-in. With --summarizer "
        "openai the exact LLM prompt the preview shows is sent to an OpenAI-compatible endpoint "
        "(OpenAI, OpenRouter, Ollama, vLLM, llama.cpp, LM Studio) and its answer is the "
        "summary; the key comes from OPENAI_API_KEY (a server on 127.0.0.1 needs none).",
    )
    llm.add_argument(
        "--summarizer",
        choices=("stand-in", "openai"),
        default="stand-in",
        help="who writes the summary; default: stand-in",
    )
    llm.add_argument(
        "--llm-base-url",
        metavar="URL",
        help="the endpoint's base URL, e.g. http://127.0.0.1:11434/v1; default: "
        "OPENAI_BASE_URL, else https://api.openai.com/v1",
    )
    llm.add_argument("--llm-model", metavar="NAME", help="the model that writes the summary")
    llm.add_argument(
        "--llm-timeout",
        type=_finite,
        metavar="SECONDS",
        help="seconds each attempt may take as a whole; with its one retry a call ends within "
        "twice this, so the default, 60, can wait 120 s before it gives up (per call: a long "
        "history is summarised in several)",
    )
    llm.add_argument(
        "--llm-allow-http",
        action="store_true",
        default=None,
        help="send OPENAI_API_KEY over plain http to a host other than this machine (refused "
        "by default: anyone on the network between could read it)",
    )


def _compact_options(compact: argparse.ArgumentParser) -> None:
    compact.add_argument(
        "--reason",
        default="proactive",
        choices=("proactive", "retry", "overflow"),
        help="why the compaction runs, recorded in the result: proactive (over budget before "
        "a call), retry (the provider refused the request), overflow (nothing else fits); "
        "default: proactive",
    )
    compact.add_argument(
        "--preview", action="store_true", help="print the summary and the LLM prompt"
    )
    compact.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="write the compacted session to OUT as ctxtui native JSON (never over SESSION or "
        "a file it is read from); -o - writes it to stdout and the summary lines to stderr",
    )
    compact.add_argument(
        "--force", action="store_true", help="allow -o to overwrite an existing file"
    )
    add_llm_options(compact)


def _compare_options(compare: argparse.ArgumentParser) -> None:
    compare.add_argument(
        "--presets",
        default=",".join(COMPARED),
        metavar="A,B,...",
        help=f"the presets to compare, comma-separated; default: {','.join(COMPARED)}",
    )
    add_json_option(compare)
    _add_knob_option(compare, KNOBS["context_window"])  # for every preset compared
    _add_knob_option(compare, KNOBS["max_tokens"])
    compare.add_argument(
        "--replay",
        action="store_true",
        help="also replay every request under each preset: its simulated compactions and "
        "peak prompt over the session",
    )


def _presets_options(presets: argparse.ArgumentParser) -> None:
    presets.add_argument(
        "--knobs", action="store_true", help="list the knobs and each preset's value instead"
    )


def _sessions_options(sessions: argparse.ArgumentParser) -> None:
    add_json_option(sessions)
    sessions.add_argument(
        "--count",
        action="store_true",
        help="count the messages of every session the fleet's index does not hold: the whole "
        "file, each message once, as 'ctxtui fleet' counts them (opens those sessions; slower)",
    )


def _serve_options(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to bind; default: 127.0.0.1 (loopback)"
    )
    serve.add_argument(
        "--port", type=_port, default=8000, help="port to bind (0: any free one); default: 8000"
    )
    serve.add_argument(
        "--public-url", metavar="URL", help="the URL browsers use, when behind a proxy"
    )
    serve.add_argument(
        "--max-apps",
        type=_positive,
        default=4,
        metavar="N",
        help="most apps (browser tabs) running at once; one more gets a refusal page; default: 4",
    )
    serve.add_argument(
        "--export-dir",
        metavar="DIR",
        help="the one directory the served app may write to (export with e); default: none, "
        "the served app writes no file",
    )


@dataclass(frozen=True, slots=True)
class Command:
    """One sub-command of ``ctxtui``; its code is ``ctxtui.commands.<name>.run(args) -> int``.
    One that reads a session takes SESSION, ``--format``, its own options, then the policy
    knobs, so ``--help`` reads input, command, policy."""

    name: str
    synopsis: str  # after "ctxtui NAME" in the overview: "SESSION"
    summary: str  # one line in the overview of ``ctxtui --help``
    help: str  # one line in ``ctxtui COMMAND`` usage
    description: str
    epilog: str | None = None
    add_options: Callable[[argparse.ArgumentParser], None] | None = None
    session: Literal["required", "optional", "none"] = "required"
    policy: bool = True  # takes --preset and the knobs (compare takes its own)


COMMANDS: tuple[Command, ...] = (
    Command(
        "report",
        "SESSION",
        "print the plan as a table, or as JSON with --json",
        "print the plan for a session",
        "Print the plan for a session: tokens, zones, fresh tail, pruning, compaction and "
        "overflow. Without --json a table for people; with --json one JSON document (schema "
        "ctxtui.report/1) for scripts, and nothing else on stdout.",
        REPORT_EPILOG,
        _report_options,
    ),
    Command(
        "compact",
        "SESSION",
        "preview a compaction, or write the compacted session",
        "preview or write a compaction",
        "Compact a session: replace the history outside the fresh tail with a structured "
        "summary (picoclaw: at the window, drop the oldest half of the turns; past its "
        "after-turn limit, summarise all but the newest messages). --preview prints the summary "
        "and the exact LLM prompt; -o writes the compacted session as ctxtui JSON, atomically. "
        "SESSION is never modified.",
        COMPACT_EPILOG,
        _compact_options,
    ),
    Command(
        "replay",
        "SESSION",
        "each request in turn: simulated and reported prompts",
        "replay a session request by request under a policy",
        "Walk every request the agent sent, in order: the prompt the policy would have sent "
        "(compacting when its trigger fires), the prompt the API reported, the compactions the "
        "agent really ran, and how far each tokenizer is from the reported figures. Without "
        "--json a table; with --json one document (schema ctxtui.replay/2).",
        REPLAY_EPILOG,
        add_json_option,
    ),
    Command(
        "retention",
        "SESSION",
        "what each compaction summary kept of its history",
        "audit what each compaction summary kept",
        "Audit every compaction summary of a session: the facts of the messages it replaced "
        "(paths, commands, errors, tests, identifiers, numbers, URLs, the user's instructions), "
        "which it kept, and which of those it lost that the agent used again afterwards. Each "
        "compaction the agent recorded is shown beside ctxtui's stand-in summary of the same "
        "messages, then the stand-in a compaction would write now. Without --json a table; with "
        "--json one document (schema ctxtui.retention/2). docs/retention.md has the rules.",
        RETENTION_EPILOG,
        add_json_option,
    ),
    Command(
        "compare",
        "SESSION",
        "one session under several presets, side by side",
        "one session under several presets, side by side",
        "Plan one session under several presets: window and its source, trigger, request, "
        "whether the next request compacts, tail start, kept/dropped/pruned, and the request "
        "after a compaction; --replay adds, per preset, the simulated compactions and peak "
        "prompt over every request of the session. --json prints schema ctxtui.compare/1.",
        add_options=_compare_options,
        policy=False,
    ),
    Command(
        "policy",
        "[SESSION]",
        "the policy in force, each knob with its origin",
        "the effective policy, each knob with where it came from",
        "Print the policy in force: every knob with where its value came from (the preset, "
        "the agent's own settings such as ~/.claude/settings.json or ~/.codex/config.toml when "
        "the preset is that agent's, ctxtui's config, a flag). With SESSION the preset is "
        "fitted to it (its agent's preset unless --preset is given), and the trigger the agent "
        "was seen to use (the band of its automatic compactions) is compared with the "
        "configured one. --json prints schema ctxtui.policy/1.",
        add_options=add_json_option,
        session="optional",
    ),
    Command(
        "presets",
        "",
        "list the policy presets, one line each",
        "list the policy presets",
        "List the policy presets, one line each: what each agent's context manager does "
        "(docs/presets.md has the figures). --knobs lists every knob instead: its range, its "
        "option and each preset's value.",
        add_options=_presets_options,
        session="none",
    ),
    Command(
        "formats",
        "",
        "list the transcript formats ctxtui reads",
        "list the transcript formats ctxtui reads",
        "List the transcript formats ctxtui reads: the name to give --format, and what each "
        "one is.",
        session="none",
    ),
    Command(
        "sessions",
        "",
        "list the sessions your coding agents wrote",
        "list the sessions your agents wrote",
        SESSIONS_DESCRIPTION,
        add_options=_sessions_options,
        session="none",
    ),
    Command(
        "fleet",
        "[PATH...]",
        "every session at once: one row each, totals, presets",
        "every session at once, one row each",
        "Read every session 'ctxtui sessions' lists (or the files and directories given) on "
        "every core, and print one row per session: agent, project, model, start, messages "
        "(the whole file), requests, recorded and simulated compactions, peak prompt (reported "
        "and simulated), top tool, recorded cost; then totals and groups by agent, model and "
        "project, and with --by each request in its day, week, month or 5-hour block. "
        "--compare replays the fleet under several presets beside what was recorded. Results "
        "are kept in an index in the user's cache directory, so a second run reads only the "
        "files that changed; with --no-simulate, a Claude Code or Codex session that only grew "
        "is read from its last turn on. --json prints schema ctxtui.fleet/1. Exit 1 when "
        "some sessions have no figures (their worker died twice, or the Dask cluster was "
        "lost); 128 + the signal when stopped.",
        add_options=lambda p: fleet_options(p, _count, add_policy_options),
        session="none",
        policy=False,  # it adds the knobs itself, for every session
    ),
    Command(
        "tune",
        "[PATH...]",
        "better settings for --agent, from its sessions",
        "search an agent's compaction settings over its sessions",
        "Replay every session (default: every session of the agent 'ctxtui sessions' lists) "
        "under each candidate value of the settings the agent exposes, within the ranges it "
        "accepts, and score each candidate over the fleet: dollars with the prefix-cache model, "
        "compactions, overflows (any makes a candidate infeasible), facts needed after a "
        "compaction and lost, peak fill. Prints the Pareto front and one recommended point, "
        "chosen on a seeded random 80 % of the sessions and scored on the other 20 %. "
        "--json prints schema ctxtui.tune/1. docs/tune.md has the rules and their sources.",
        add_options=lambda p: tune_options(p, _count),
        session="none",
        policy=False,
    ),
    Command(
        "cache",
        "clear",
        "clear what ctxtui keeps between runs",
        "clear what ctxtui keeps between runs",
        "Remove what ctxtui keeps in the user's cache directory between runs: the fleet index "
        "the exact token counts and the facts found in big sessions' messages. Only files "
        "ctxtui wrote go (they carry "
        "its mark): another program's file of the same name is kept and named. Sessions are "
        "never touched.",
        add_options=cache_options,
        session="none",
    ),
    Command(
        "serve",
        "[SESSION]",
        "serve the app to a web browser (on 127.0.0.1)",
        "serve the app to a web browser",
        "Serve the app to a web browser with textual-serve: each visitor gets their own ctxtui "
        "on SESSION (default: the bundled demo). Open the URL it prints: it holds a secret "
        "token made for this launch, and nothing else (no other page, no WebSocket from "
        "another origin) opens the app. It binds to 127.0.0.1; binding to any other address "
        "shows the session's contents to whoever can reach it and has the URL. Ctrl+C, "
        "SIGTERM or SIGHUP stops it: exit 128 + the signal (130, 143, 129).",
        add_options=_serve_options,
        session="optional",
    ),
)
"""Every sub-command, in the order ``--help`` lists them. A new one is a row here plus its
module in ``ctxtui/commands/``."""

SUBCOMMANDS = tuple(c.name for c in COMMANDS)
