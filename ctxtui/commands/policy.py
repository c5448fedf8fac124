"""``ctxtui policy [SESSION]``: the policy in force, each knob with where its value came from.

The layers, lowest first: the preset (fitted to SESSION when one is given), the agent's own
settings (``~/.claude/settings.json``, ``~/.codex/config.toml``, ...) when the preset is that
agent's, ctxtui's config, the flags. With SESSION, also the trigger the agent was seen to
use (its automatic compactions' band) and whether it agrees with the configured one.
"""

from __future__ import annotations

import argparse
from typing import Any

from ctxtui.commands.errors import CommandError
from ctxtui.commands.json_out import stdlib_text, write_stdout
from ctxtui.core.policies.preset_choice import resolve_preset
from ctxtui.core.session.models import Session
from ctxtui.options import EXIT_OK, explain_policy_error, flag_of, overrides_from

SCHEMA = "ctxtui.policy/1"


def session_preset(args: argparse.Namespace, session: Session | None) -> tuple[str, str]:
    """The preset and where it came from, by the rule every command follows
    (``core.policies.preset_choice``): ``--preset``, else the session's agent's, else plan."""
    choice = resolve_preset(session, args.preset)
    return choice.name, choice.origin


def document(args: argparse.Namespace) -> dict[str, Any]:
    """The ``ctxtui.policy/1`` document for the command line ``args``."""
    from ctxtui.agent_config.effective import Given, effective_policy
    from ctxtui.core.policies.policy import PolicyError

    session = history = None
    if args.session is not None:
        from ctxtui.commands.pipeline import load_views

        session, history = load_views(args)
    name, origin = session_preset(args, session)
    given = overrides_from(args)
    try:
        chosen = effective_policy(name, session, Given(given, {k: flag_of(k) for k in given}))
    except PolicyError as err:
        raise CommandError(explain_policy_error(err, given)) from None
    out: dict[str, Any] = {
        "schema": SCHEMA,
        "session": session.meta.source_path if session is not None else None,
        "preset": name,
        "preset_origin": origin,
        "trigger": chosen.policy.trigger,
        "knobs": chosen.rows(),
        "configured": chosen.configured_json(),
        "problems": list(chosen.config.problems) if chosen.config is not None else [],
    }
    if history is not None:
        observed = chosen.observed(history.meta.recorded_compactions)
        out["observed"] = observed.as_json()
        sentence = chosen.agreement(observed)
        if sentence is not None:
            out["observed"]["agreement"] = sentence
    return out


def lines(doc: dict[str, Any]) -> list[str]:
    """The document in words: the preset, each knob and its origin, then the agent's values,
    the observed band and the agreement."""
    from ctxtui.core.tuning.document import tuning_words

    trigger = doc["trigger"]
    out = [
        f"preset: {doc['preset']} ({doc['preset_origin']})",
        f"trigger: {trigger:,} tokens" if trigger is not None else "trigger: no auto-compaction",
        "",
    ]
    width = max(len(row["knob"]) for row in doc["knobs"])
    for row in doc["knobs"]:
        value = row["value"]
        shown = f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else value
        out.append(f"{row['knob']:<{width}}  {shown!s:<12}  {row['origin']}")
    extra = tuning_words(doc)
    extra += [f"could not read {p}" for p in doc["problems"]]
    return out + (["", *extra] if extra else [])


def run(args: argparse.Namespace) -> int:
    doc = document(args)
    if args.json:
        write_stdout(stdlib_text(doc))
    else:
        print("\n".join(lines(doc)))
    return EXIT_OK
