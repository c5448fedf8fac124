"""The main screen's state as a plain value: session, policy, plan, undo stack and selection.

Every change is a method that returns a new ``MainState`` (or raises ``PolicyError`` and
leaves the old one standing), so each rule (what opening a session resets, what undo
restores, which keys do something) is tested without a terminal (``tests/tui/test_state.py``).
The screen holds one ``MainState``, replaces it in its handlers and renders it; workers never
touch it. A new view gets this object and reads what it needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ctxtui.core.engine import Engine
from ctxtui.core.models import Session
from ctxtui.core.plan import Plan
from ctxtui.core.policy import Policy, PolicyError, policy_for_session, preset
from ctxtui.tui.actions import needs_session


@dataclass(frozen=True, slots=True)
class MainState:
    """One session (or none yet) under one policy, and what the user has done to it.

    ``plan`` belongs to ``session``: a transition that replaces the session drops it until
    the counts for the new one are in. ``undo`` holds the sessions as they were before each
    applied compaction, oldest first. ``selection`` is the selected message's index.
    """

    policy: Policy
    preset_name: str = "plan"
    overrides: Mapping[str, Any] = field(default_factory=dict)
    session: Session | None = None
    path: Path | None = None
    engine: Engine | None = None
    plan: Plan | None = None
    undo: tuple[Session, ...] = ()
    selection: int = 0

    # -- starting and opening --------------------------------------------------------------

    @classmethod
    def start(
        cls, preset_name: str, overrides: Mapping[str, Any] | None = None
    ) -> tuple[MainState, str | None]:
        """The state before any session, and the problem with ``overrides`` if refused.

        Refused options are dropped whole (the preset's own values stand) and said once.
        """
        wanted = dict(overrides or {})
        try:
            return cls(preset(preset_name, **wanted), preset_name, wanted), None
        except PolicyError as err:
            return cls(preset(preset_name), preset_name, {}), str(err)

    def opened(self, session: Session, path: Path | None) -> tuple[MainState, str | None]:
        """A newly read session: its own policy, an empty undo stack, the first message.

        The policy is fitted to the session (its window); options it refuses are dropped and
        the problem returned, the policy still fitted to this session.
        """
        problem: str | None = None
        try:
            policy = policy_for_session(self.preset_name, session, dict(self.overrides))
        except PolicyError as err:
            problem = str(err)
            policy = policy_for_session(self.preset_name, session)
        state = replace(self, policy=policy, path=path, undo=(), selection=0)
        return state.with_session(session), problem

    def with_session(self, session: Session) -> MainState:
        """``session`` on screen, counted afresh (a new engine); the old plan is dropped."""
        return replace(self, session=session, engine=Engine(session), plan=None)

    def grown(self, session: Session) -> MainState:
        """The watched file read again: ``session`` replaces the one on screen, the selection
        stays. While a compaction is applied the compacted view stays and the grown session
        takes the bottom of the undo stack, so undoing returns to the live file."""
        if self.undo:
            return replace(self, undo=(session, *self.undo[1:]))
        return self.with_session(session)

    # -- policy and plan -------------------------------------------------------------------

    def with_policy(self, policy: Policy) -> MainState:
        return replace(self, policy=policy)

    def with_preset(self, name: str) -> MainState:
        """Every knob back to preset ``name``'s values, fitted to the session when one is open."""
        policy = policy_for_session(name, self.session) if self.session else preset(name)
        return replace(self, policy=policy)

    def with_tokenizer(self, spec: str) -> MainState:
        return replace(self, policy=self.policy.with_changes(tokenizer=spec))

    def planned(self, plan: Plan) -> MainState:
        return replace(self, plan=plan)

    @property
    def counts_known(self) -> bool:
        """Whether the session is counted under the policy's tokenizer (planning is instant)."""
        return self.engine is not None and self.engine.cached_counts(self.policy) is not None

    # -- selection, compaction and undo ----------------------------------------------------

    def selected(self, index: int) -> MainState:
        """Message ``index`` selected, clamped to the session."""
        last = len(self.session) - 1 if self.session is not None else 0
        return replace(self, selection=max(0, min(index, last)))

    def applied(self, compacted: Session) -> MainState:
        """``compacted`` replaces the session; the session as it was goes on the undo stack."""
        undo = (*self.undo, self.session) if self.session is not None else self.undo
        return replace(self, undo=undo).with_session(compacted)

    def undone(self) -> MainState:
        """The session as before the last apply; unchanged when there is nothing to undo."""
        if not self.undo:
            return self
        return replace(self, undo=self.undo[:-1]).with_session(self.undo[-1])

    @property
    def compacted(self) -> bool:
        """Whether the session on screen is the result of an applied compaction."""
        return bool(self.undo)

    def can(self, action: str) -> bool:
        """Whether ``action`` has anything to act on (its key is dimmed when not)."""
        if needs_session(action) and self.session is None:
            return False
        return not (action == "undo" and not self.undo)

    # -- export ----------------------------------------------------------------------------

    def export_paths(self, session: Session) -> tuple[Path, Path | None]:
        """Where ``session`` is exported by default, and the source file it must not overwrite.

        Absolute: the dialog resolves what the user types against the default's directory, and
        a relative source (``ctxtui sample_sessions/x.json``) would otherwise be applied twice.
        """
        meta_source = session.meta.source_path
        source = Path(meta_source) if meta_source else self.path
        source = source.absolute() if source is not None else None
        base = source.parent if source is not None else Path.cwd()
        stem = source.stem if source is not None else "session"
        return base / f"{stem}.ctxtui.json", source


@dataclass(frozen=True, slots=True)
class SearchState:
    """What the search bar knows: the query last searched for and the messages holding it.

    ``searching`` is true between asking and the worker's answer; ``n`` pressed meanwhile
    waits for the answer instead of searching again.
    """

    query: str = ""
    matches: tuple[int, ...] = ()
    searching: bool = False

    def asked(self, query: str) -> tuple[SearchState, bool]:
        """The state after ``query`` is asked for, and whether a search must start for it."""
        if query == self.query:
            return self, False
        return SearchState(query, (), searching=True), True

    def found(self, query: str, matches: tuple[int, ...]) -> SearchState:
        """The worker's answer for ``query``; an answer for an older query changes nothing."""
        if query != self.query:
            return self
        return SearchState(query, matches, searching=False)

    def next_after(self, cursor: int) -> tuple[int | None, str]:
        """The first match after ``cursor`` (wrapping to the top) and what the bar says."""
        if not self.matches:
            return None, "no match"
        after = [i for i in self.matches if i > cursor]
        target = after[0] if after else self.matches[0]
        wrapped = " (from the top)" if not after and len(self.matches) > 1 else ""
        place = self.matches.index(target) + 1
        return target, f"{place:,} of {len(self.matches):,}{wrapped}"
