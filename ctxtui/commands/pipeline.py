"""The steps every session command shares: load, build the policy, count with progress, plan.

Each step turns the core's own errors (``SessionLoadError``, ``PolicyError``, a bad tokenizer
spec) into a ``CommandError``, so the user sees one line naming the file or the knob.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from typing import TextIO

from ctxtui.cli import POLICY_FLAGS, policy_overrides
from ctxtui.commands.errors import CommandError
from ctxtui.core.engine import Engine
from ctxtui.core.errors import SessionLoadError
from ctxtui.core.models import Session
from ctxtui.core.plan import Plan
from ctxtui.core.policy import Policy, PolicyError, policy_for_session

PROGRESS_AFTER_SECONDS = 0.5  # quick counts never flash a progress line


@dataclass(frozen=True, slots=True)
class Planned:
    """A loaded session with its engine, policy and plan."""

    session: Session
    engine: Engine
    policy: Policy
    plan: Plan


def load(args: argparse.Namespace) -> Session:
    """Read SESSION with the importers (read-only), or fail with one line."""
    from ctxtui.importers import load_session

    try:
        return load_session(args.session, format=args.format)
    except SessionLoadError as err:
        raise CommandError(str(err)) from None
    except OSError as err:
        raise CommandError(f"{args.session}: {err.strerror or err}") from None


def build_policy(args: argparse.Namespace, session: Session) -> Policy:
    """The preset fitted to the session (its window), with the knobs given on the command line.

    A knob out of range is named by the option the user typed.
    """
    try:
        return policy_for_session(args.preset, session, policy_overrides(args))
    except PolicyError as err:
        raise CommandError(_name_flags(str(err))) from None


def _name_flags(message: str) -> str:
    """``tail_ratio: …`` → ``--tail-ratio (tail_ratio): …``, so the user sees what they typed."""
    for flag, knob in POLICY_FLAGS.items():
        if message.startswith(f"{knob}:"):
            if knob == "tokenizer":
                return "--tokenizer: expected plan, picoclaw or tiktoken:ENCODING"
            option = "--" + flag.replace("_", "-")
            return f"{option} ({knob}){message[len(knob) :]}"
    return message


class Progress:
    """A ``counting … n / total`` line on stderr, only on a terminal and only when slow."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._enabled = stream.isatty()
        self._started = time.monotonic()
        self._shown = False

    def __call__(self, done: int, total: int) -> None:
        if not self._enabled or time.monotonic() - self._started < PROGRESS_AFTER_SECONDS:
            return
        self._stream.write(f"\rcounting tokens: {done:,} / {total:,} messages")
        self._stream.flush()
        self._shown = True

    def close(self) -> None:
        if self._shown:
            self._stream.write("\r\033[K")
            self._stream.flush()


def plan_session(args: argparse.Namespace) -> Planned:
    """Load, build the policy, count (showing progress when slow) and plan."""
    session = load(args)
    policy = build_policy(args, session)
    engine = Engine(session)
    progress = Progress(sys.stderr)
    try:
        counts = engine.counts(policy, on_progress=progress)
    except ValueError as err:
        raise CommandError(f"--tokenizer: {err}") from None
    finally:
        progress.close()
    assert counts is not None  # no stop check was given
    return Planned(session, engine, policy, engine.plan(policy, counts))
