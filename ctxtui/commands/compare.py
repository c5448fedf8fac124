"""``ctxtui compare``: one session under several presets, as a table or ``ctxtui.compare/1``."""

from __future__ import annotations

import argparse
from typing import Any

from ctxtui.commands.errors import CommandError
from ctxtui.commands.json_out import print_json
from ctxtui.commands.pipeline import load
from ctxtui.commands.replay import load_history
from ctxtui.commands.report import print_table
from ctxtui.core.compare import compare
from ctxtui.core.engine import Engine
from ctxtui.core.literal import visible
from ctxtui.core.policies.policy import PolicyError
from ctxtui.core.policies.presets import PRESETS
from ctxtui.core.pricing.cost_words import dollars
from ctxtui.core.wording import plural
from ctxtui.options import EXIT_OK, explain_policy_error, overrides_from
from ctxtui.system.count_cache import default_cache


def _presets(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in PRESETS]
    if unknown or not names:
        raise CommandError(
            f"--presets: unknown preset {', '.join(map(repr, unknown)) or '(none)'} "
            f"(known: {', '.join(PRESETS)})"
        )
    return names


def _zone(z: dict[str, int]) -> str:
    return f"{z['count']:,} ({z['tokens']:,} tok)"


def _tail(start: int, tail: dict[str, int]) -> str:
    """``tail from #35``, or ``no tail`` when it holds no message (``#35`` would name none)."""
    return f"tail from #{start:,}" if tail["count"] else "no tail"


def _now(p: dict[str, Any]) -> str:
    """What the preset does with the session as it ends, against its trigger: "over the
    trigger" is about the *next* request, which the transcript does not hold. PicoClaw legacy's
    after-turn summary, which replay does not simulate, is named for what it is."""
    if p["trigger"] is None:
        return (
            "no automatic compaction (the agent knows no window for the model) · prompt now "
            f"{p['tokens']:,} tok"
        )
    head = f"at {p['trigger']:,} tok · prompt now {p['tokens']:,} tok"
    if p["post_turn"]:
        return f"{head} · under it, past PicoClaw's after-turn limit: summarises after this turn"
    if p["compacts_now"]:
        return f"{head} · over it: compacts before the next request"
    return f"{head} · under it: no compaction before the next request"


def _replay_row(r: dict[str, Any]) -> str:
    """``260 requests · 3 simulated compactions (3 proactive) · peak 7,869 tok at request 91``."""
    reasons = ", ".join(f"{n:,} {reason}" for reason, n in r["compaction_reasons"].items())
    text = (
        f"{plural(r['requests'], 'request')} · {plural(r['compactions'], 'simulated compaction')}"
    )
    if reasons:
        text += f" ({reasons})"
    if r["peak_request"] is not None:
        text += f" · peak {r['peak_tokens']:,} tok at request {r['peak_request'] + 1:,}"
    if r["overflow_requests"]:
        text += f" · {plural(r['overflow_requests'], 'request')} over the window"
    if r.get("simulated_cost_usd") is not None:
        text += (
            f" · {dollars(r['simulated_cost_usd'])} simulated against "
            f"{dollars(r['recorded_cost_usd'])} recorded"
        )
    return text


def _table(doc: dict[str, Any]) -> Any:
    """One block per preset, label and value, so it reads in 80 columns."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    blocks: list[Any] = []
    for p in doc["presets"]:
        grid = Table.grid(padding=(0, 1))
        grid.add_column(style="bold", no_wrap=True, min_width=8)
        grid.add_column(overflow="fold")
        zones, pruned, after = p["zones"], p["pruned"], p["after_compaction"]
        replaced = after["replaced"]
        span = f"replaces #{replaced[0]:,}-#{replaced[1]:,}" if replaced else "replaces nothing"
        own, registry = p.get("window_unconfigured"), p.get("window_registry")
        unconfigured = (
            f" · {own:,} tok with none configured" if own is not None and own != p["window"] else ""
        )
        if registry is not None and registry != p["window"]:
            unconfigured += f" · the model's {registry:,} tok with it configured"
        grid.add_row(
            "window",
            f"{p['window']:,} tok ({p['window_source']}){unconfigured} · tokenizer "
            f"{p['tokenizer']}",
        )
        grid.add_row("trigger", _now(p))
        grid.add_row(
            "zones",
            f"{_tail(p['tail_start'], zones['tail'])} · kept {_zone(zones['kept'])} · dropped "
            f"{_zone(zones['dropped'])} · pruned {pruned['count']:,} "
            f"({pruned['tokens_freed']:,} tok freed)",
        )
        grid.add_row(
            "after",
            f"a compaction {span}: {after['requested']:,} tok requested, "
            f"{plural(after['messages'], 'message')}",
        )
        if p["replay"] is not None:
            grid.add_row("replay", _replay_row(p["replay"]))
        for warning in p["warnings"]:
            grid.add_row(Text("warning", style="yellow"), Text(visible(warning), style="yellow"))
        blocks += [Text(p["preset"], style="bold underline"), grid, Text()]
    return Group(*blocks[:-1])


def run(args: argparse.Namespace) -> int:
    names = _presets(args.presets)
    session = load(args)
    engine = Engine(session, default_cache())
    history = None
    if args.replay:  # the agent's own compactions hide earlier requests: read them too
        history = (
            Engine(load_history(args), default_cache())
            if session.meta.recorded_compactions
            else engine
        )
    given = overrides_from(args)
    try:
        doc = compare(engine, names, given, history)
    except PolicyError as err:
        raise CommandError(explain_policy_error(err, given)) from None
    if args.json:
        print_json(doc)  # the stdlib's text, written by orjson
    else:
        print_table(_table(doc))
    return EXIT_OK
