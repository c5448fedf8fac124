"""The steps every session command shares: load, build the policy, count with progress, plan.

Each step turns the core's errors (``SessionLoadError``, ``PolicyError``) into a one-line
``CommandError`` naming the file or the knob; single values were checked at their flags.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from ctxtui.commands.errors import CommandError
from ctxtui.core.engine import Engine
from ctxtui.core.errors import SessionLoadError
from ctxtui.core.planning.plan import Plan
from ctxtui.core.policies.policy import Policy, PolicyError
from ctxtui.core.policies.preset_choice import resolve_preset
from ctxtui.core.session.models import Session
from ctxtui.options import explain_policy_error, flag_of, overrides_from, unused_reason
from ctxtui.system.count_cache import default_cache
from ctxtui.system.heap import keep_out_of_collections

if TYPE_CHECKING:
    from ctxtui.agent_config.effective import Effective

PROGRESS_AFTER_SECONDS = 0.5  # quick counts never flash a progress line


@dataclass(frozen=True, slots=True)
class Planned:
    """A loaded session with its engine, policy and plan, and notes about the command line
    (knobs given that the policy ignores), which the commands show beside the plan."""

    session: Session
    engine: Engine
    policy: Policy
    plan: Plan
    notes: tuple[str, ...] = ()
    effective: Effective | None = None  # the agent's settings laid over its preset, origins
    history: Session | None = None  # the full history, when asked for: ``session`` is its tail

    @property
    def whole(self) -> Session:
        """The session with every request it recorded: its history, or itself."""
        return self.history if self.history is not None else self.session


def load(args: argparse.Namespace, *, full_history: bool = False) -> Session:
    """Read SESSION with the importers (read-only), or fail with one line; ``full_history``
    keeps the messages before the agent's own compactions too (what ``replay`` walks)."""
    from ctxtui.importers import load_session

    try:
        session = load_session(args.session, format=args.format, full_history=full_history)
    except SessionLoadError as err:
        raise CommandError(str(err)) from None
    except OSError as err:
        raise CommandError(f"{args.session}: {err.strerror or err}") from None
    keep_out_of_collections(len(session))
    return session


def load_views(args: argparse.Namespace) -> tuple[Session, Session]:
    """SESSION as normally read and its full history (the same object when the agent never
    compacted it), from one read of the file where its format allows, or fail with one line."""
    from ctxtui.importers import load_views as read_views

    try:
        shown, history = read_views(args.session, format=args.format)
    except SessionLoadError as err:
        raise CommandError(str(err)) from None
    except OSError as err:
        raise CommandError(f"{args.session}: {err.strerror or err}") from None
    keep_out_of_collections(len(history))
    return shown, history


def build_policy(args: argparse.Namespace, session: Session) -> Policy:
    """The preset fitted to the session's window, the agent's configured values when the
    preset is that agent's, then the command line's knobs; a failing relation
    (``--tail-min`` above ``--tail-max``) is named by the options typed."""
    return effective(args, session).policy


def effective(args: argparse.Namespace, session: Session) -> Effective:
    """The preset fitted to the session, the agent's configured values over it (when the
    preset is that agent's), then the command line's knobs, each with its origin."""
    from ctxtui.agent_config.effective import Given, effective_policy

    given = overrides_from(args)
    names = {knob: flag_of(knob) for knob in given}
    choice = resolve_preset(session, args.preset)
    try:
        return effective_policy(choice.name, session, Given(given, names))
    except PolicyError as err:
        raise CommandError(explain_policy_error(err, given)) from None


def ignored_knobs(args: argparse.Namespace, policy: Policy, tokenizer_used: str) -> list[str]:
    """Notes for the knobs the user gave that change nothing under this policy."""
    values = {**policy.as_dict(), "tokenizer": tokenizer_used}
    notes: list[str] = []
    for field in overrides_from(args):
        reason = unused_reason(field, values)
        if reason is not None:
            notes.append(f"{flag_of(field)} has no effect: {reason}")
    return notes


class Progress:
    """A ``counting … n / total`` line on stderr, only on a terminal and only when slow:
    ``show`` waits ``after`` seconds, then draws at most once per ``every`` (always ``final``)."""

    def __init__(
        self, stream: TextIO, *, after: float = PROGRESS_AFTER_SECONDS, every: float = 0.0
    ) -> None:
        self._stream = stream
        self._enabled = stream.isatty()
        self._started = time.monotonic()
        self._after, self._every = after, every
        self._last = 0.0
        self._shown = False

    def __call__(self, done: int, total: int) -> None:
        self.show(f"counting tokens: {done:,} / {total:,} messages")

    def show(self, words: str, *, final: bool = False) -> None:
        now = time.monotonic()
        if not self._enabled or now - self._started < self._after:
            return
        if now - self._last < self._every and not final:
            return
        self._last = now
        self._stream.write("\r\033[K" + words)
        self._stream.flush()
        self._shown = True

    def close(self) -> None:
        if self._shown:
            self._stream.write("\r\033[K")
            self._stream.flush()


@contextmanager
def counting() -> Iterator[Progress]:
    """A progress line on stderr while the body counts; a tokenizer that cannot be had (a
    ``ValueError``) becomes a ``--tokenizer`` error."""
    progress = Progress(sys.stderr)
    try:
        yield progress
    except ValueError as err:
        raise CommandError(f"--tokenizer: {err}") from None
    finally:
        progress.close()


def plan_session(args: argparse.Namespace, *, with_history: bool = False) -> Planned:
    """Load, build the policy, count (showing progress when slow) and plan; ``with_history``
    keeps the full history too (``Planned.whole``), from the same read where it can."""
    history: Session | None = None
    if with_history:
        session, history = load_views(args)
        history = None if history is session else history
    else:
        session = load(args)
    chosen = effective(args, session)
    policy = chosen.policy
    engine = Engine(session, default_cache())
    with counting() as progress:
        counts = engine.counts(policy, on_progress=progress)
    assert counts is not None  # no stop check was given
    plan = engine.plan(policy, counts)
    notes = ignored_knobs(args, policy, plan.tokenizer.used)
    return Planned(session, engine, policy, plan, tuple(notes), chosen, history)
