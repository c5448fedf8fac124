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

from ctxtui.agent_config.effective import Effective, Given, effective_policy
from ctxtui.core.engine import Engine
from ctxtui.core.literal import visible
from ctxtui.core.planning.plan import Plan
from ctxtui.core.policies.fit import fit_reserve
from ctxtui.core.policies.policy import Policy, PolicyError, policy_for_session, preset
from ctxtui.core.policies.preset_choice import (
    DEFAULT,
    FROM_OPTION,
    FROM_USER,
    PresetChoice,
    resolve_preset,
)
from ctxtui.core.policies.presets import DEFAULT_PRESET
from ctxtui.core.session.models import RecordedCompaction, Session
from ctxtui.core.simulation.estimate_check import drift_notice, estimator_for, is_exact
from ctxtui.core.simulation.reported import ReportedGap, reported_gap
from ctxtui.core.tokens.calibration import SessionFit, session_fit, tail_start
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.core.tuning.configured import AgentConfig, Configured
from ctxtui.core.tuning.observed import Observed, disagreement, observe, observed_phrase
from ctxtui.system.count_cache import default_cache
from ctxtui.tui.actions import needs_session

EXACT_TOKENIZERS = ("tiktoken:cl100k_base", "tiktoken:o200k_base")
"""The exact counts the estimate is judged against when the user counted with one of them."""


@dataclass(frozen=True, slots=True)
class MainState:
    """One session (or none yet) under one policy, and what the user has done to it.

    ``plan`` belongs to ``session``: a transition that replaces the session drops it until
    the counts for the new one are in. ``undo`` holds the sessions as they were before each
    applied compaction, oldest first. ``selection`` is the selected message's index.
    ``tokenizer_choice`` is a tokenizer the user asked for (an option, the palette or the
    settings panel): changing the preset or the file keeps it, where every other knob
    goes back to the preset's value.
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
    tokenizer_choice: str | None = None  # a tokenizer the user chose: presets do not reset it
    fit: SessionFit | None = None  # the transcript's calibration (core.tokens.calibration), on open
    history: Session | None = None  # the file read through the agent's compactions, once read
    # The history's compactions: they hold while a watched file grows without a new one, when
    # ``history`` (which no longer ends with the session) is dropped until read again.
    compactions: tuple[RecordedCompaction, ...] | None = None
    # Where ``preset_name`` came from; unpinned, each session opened takes its agent's preset.
    preset_origin: str = DEFAULT
    preset_pinned: bool = True
    # The agent's configured values laid over its preset when the session opened on it.
    configured: tuple[Configured, ...] = ()

    # -- starting and opening --------------------------------------------------------------

    @classmethod
    def start(
        cls,
        preset_name: str | None,
        overrides: Mapping[str, Any] | None = None,
        origin: str = FROM_OPTION,
    ) -> tuple[MainState, str | None]:
        """The state before any session, and the problem with ``overrides`` if refused.

        ``preset_name`` is the preset the user named (said to come from ``origin``); ``None``
        leaves each session opened on its agent's preset (``resolve_preset``).
        Refused options are dropped whole (the preset's own values stand) and said once.
        """
        if preset_name is None:
            state, problem = cls.start(DEFAULT_PRESET, overrides, DEFAULT)
            return replace(state, preset_pinned=False), problem
        wanted = dict(overrides or {})
        chosen = wanted.get("tokenizer")
        choice = chosen if isinstance(chosen, str) else None
        values = dict(wanted)
        window = values.get("context_window")
        if isinstance(window, int) and "max_tokens" not in values:
            # As for a session (and the CLI): a smaller window gets a reserve that fits it.
            base = preset(preset_name).max_tokens
            values["max_tokens"] = fit_reserve(window, base)
            if values["max_tokens"] < base:  # recorded where it happens, for the warning
                values["reserve_lowered_from"] = base
        try:
            policy = preset(preset_name, **values)
            return cls(
                policy, preset_name, wanted, tokenizer_choice=choice, preset_origin=origin
            ), None
        except PolicyError as err:
            return cls(preset(preset_name), preset_name, {}, preset_origin=origin), str(err)

    def opened(
        self,
        session: Session,
        path: Path | None,
        fit: SessionFit | None = None,
        agent_config: AgentConfig | None = None,
    ) -> tuple[MainState, str | None]:
        """A newly read session: its own policy, an empty undo stack, the first message.

        The policy is fitted to the session (its window), with ``agent_config`` (the agent's
        settings, read by the load worker) laid over it when the preset is that agent's, as
        the CLI does; options it refuses are dropped and the problem returned, the policy
        still fitted to this session.
        """
        problem: str | None = None
        name, origin = self.preset_name, self.preset_origin
        if not self.preset_pinned:
            choice = resolve_preset(session)
            name, origin = choice.name, choice.origin
        try:
            chosen = _effective(name, session, self.overrides, agent_config)
        except PolicyError as err:
            problem = str(err)
            chosen = _effective(name, session, {}, agent_config)
        policy = self._keep_tokenizer(chosen.policy)
        state = replace(
            self,
            configured=chosen.configured,
            policy=policy,
            path=path,
            undo=(),
            selection=0,
            history=None,
            compactions=None,
            preset_name=name,
            preset_origin=origin,
        )
        return state.with_session(session, fit), problem

    def with_session(self, session: Session, fit: SessionFit | None = None) -> MainState:
        """``session`` on screen, counted afresh (a new engine); the old plan is dropped.

        ``fit`` is the whole transcript's calibration, when the session is only its tail;
        without one the session's own (characters only, quick)."""
        fit = fit if fit is not None else session_fit(session)
        return replace(
            self, session=session, engine=Engine(session, default_cache()), plan=None, fit=fit
        )

    def grown(self, session: Session, fit: SessionFit | None = None) -> MainState:
        """The watched file read again: ``session`` replaces the one on screen, the selection
        stays. While a compaction is applied the compacted view stays and the grown session
        takes the bottom of the undo stack, so undoing returns to the live file.

        ``fit`` is the transcript's calibration read again after a new compaction; without
        one, a session still read from the same compaction keeps its fit, whose request
        numbers (counted from the transcript's first request) have not moved."""
        live = self.as_read
        same_start = live is not None and tail_start(session) == tail_start(live)
        compactions = self.compactions if same_start else _joined(self.compactions, session)
        if self.undo:
            undo = (session, *self.undo[1:])
            return replace(self, undo=undo, history=None, compactions=compactions)
        if fit is None and same_start and tail_start(session) is not None:
            fit = self.fit
        grown = replace(self, history=None, compactions=compactions)
        return grown.with_session(session, fit)

    def with_history(self, session: Session, history: Session, fit: SessionFit | None) -> MainState:
        """The full history of ``session`` (its normal read), read after it was drawn, and
        the whole transcript's ``fit`` when it has usage; unchanged when ``session`` is no
        longer the file on screen (another was opened, or it grew meanwhile)."""
        if session is not self.as_read:
            return self
        fit = fit if fit is not None else self.fit
        recorded = history.meta.recorded_compactions
        return replace(self, history=history, compactions=recorded, fit=fit)

    # -- policy and plan -------------------------------------------------------------------

    def with_policy(self, policy: Policy) -> MainState:
        """``policy`` as edited; a tokenizer different from the current one is a choice kept."""
        if policy.tokenizer != self.policy.tokenizer:
            return replace(self, policy=policy, tokenizer_choice=policy.tokenizer)
        return replace(self, policy=policy)

    def with_preset(self, name: str) -> MainState:
        """Every knob back to preset ``name``'s values, fitted to the session when one is open,
        except a tokenizer the user chose: switching presets must not silently recount."""
        policy = policy_for_session(name, self.session) if self.session else preset(name)
        return replace(
            self,
            policy=self._keep_tokenizer(policy),
            preset_name=name,
            preset_origin=FROM_USER,
            preset_pinned=True,
            configured=(),
        )

    @property
    def as_read(self) -> Session | None:
        """The session as read from the file: under the compactions applied since, if any
        (what the file recorded, whatever the view on screen)."""
        return self.undo[0] if self.undo else self.session

    @property
    def shows_a_segment(self) -> bool:
        """Whether the session on screen is only the agent's last segment of its file (read
        from its last compaction on, nothing applied since): views may offer the whole file."""
        session = self.session
        return (
            session is not None
            and bool(session.meta.recorded_compactions)
            and not session.meta.full_history
            and self.path is not None
            and not self.undo
        )

    @property
    def preset_words(self) -> str:
        """``claude-code, from the transcript``: the preset and where it came from."""
        return PresetChoice(self.policy.preset, self.preset_origin).words()

    @property
    def configured_words(self) -> str:
        """``trigger_buffer from ~/.claude/settings.json``: each configured value still in
        force, with its origin (a knob the user changed since is not the agent's any more)."""
        return " · ".join(
            f"{c.knob} from {c.origin}"
            for c in self.configured
            if getattr(self.policy, c.knob, None) == c.value
        )

    @property
    def observed(self) -> Observed:
        """The band of the agent's automatic compactions, from the full history once read."""
        recorded = self.compactions
        if recorded is None:
            recorded = self.session.meta.recorded_compactions if self.session is not None else ()
        return observe(recorded, self.policy)

    @property
    def observed_words(self) -> tuple[str, str]:
        """``agent compacted at 155,001–159,897 (10 auto)`` and the verdict where the band and
        the trigger in force disagree (``core.tuning.observed``'s words); empty strings
        without an automatic compaction, or where they agree. Until the full history is read
        the count says ``so far``: the session alone holds only the last compactions."""
        observed = self.observed
        # a segment's history is read after it (``jobs.read_whole``): until then, or if that
        # read failed, only the segment's own compactions are known
        partial = self.compactions is None and self.shows_a_segment
        phrase = observed_phrase(observed, so_far=partial)
        if phrase is None:
            return "", ""
        return phrase, disagreement(observed, self.policy, self.configured) or ""

    def with_tokenizer(self, spec: str) -> MainState:
        policy = self.policy.with_changes(tokenizer=spec)
        return replace(self, policy=policy, tokenizer_choice=spec)

    def _keep_tokenizer(self, policy: Policy) -> Policy:
        choice = self.tokenizer_choice
        if choice is None or policy.tokenizer == choice:
            return policy
        return policy.with_changes(tokenizer=choice)

    @property
    def kept_tokenizer(self) -> str:
        """The session bar's note when the user's tokenizer stands in for the preset's own:
        ``your choice, kept across presets; picoclaw's own is picoclaw``; empty otherwise."""
        choice = self.tokenizer_choice
        own = preset(self.policy.preset).tokenizer
        if choice is None or self.policy.tokenizer != choice or own == choice:
            return ""
        return f"your choice, kept across presets; {self.policy.preset}'s own is {own}"

    def planned(self, plan: Plan) -> MainState:
        return replace(self, plan=plan)

    # -- the estimator against an exact count ----------------------------------------------

    @property
    def estimator_policy(self) -> Policy:
        """The policy whose tokenizer is the estimate to judge: the current one when it is an
        estimator, else the preset's estimator (the plan's when the preset counts exactly)."""
        if not is_exact(self.policy.tokenizer):
            return self.policy
        return self.policy.with_changes(tokenizer=estimator_for(self.policy))

    def _exact_counts(self) -> SessionCounts | None:
        """An exact count of the session already made: the current tokenizer's, or one the
        user counted with before (switching back to an estimator keeps the yardstick)."""
        if self.engine is None:
            return None
        current = self.policy.tokenizer
        specs = [current] if is_exact(current) else list(EXACT_TOKENIZERS)
        for spec in specs:
            counts = self.engine.cached_counts(self.policy.with_changes(tokenizer=spec))
            if counts is not None and is_exact(counts.tokenizer.used):
                return counts
        return None

    @property
    def estimate_to_count(self) -> Policy | None:
        """The estimator's policy when an exact count is known and the estimate is not yet
        (counting with an estimator is quick); ``None`` when there is nothing to count."""
        if self.engine is None or self._exact_counts() is None:
            return None
        estimator = self.estimator_policy
        return None if self.engine.cached_counts(estimator) is not None else estimator

    @property
    def estimate_note(self) -> str:
        """How far the estimator is from the exact count, when both are known and it is off
        by more than 10 % (``core/simulation/estimate_check.py``); empty otherwise."""
        exact = self._exact_counts()
        if exact is None or self.engine is None:
            return ""
        estimated = self.engine.cached_counts(self.estimator_policy)
        return drift_notice(estimated, exact) if estimated is not None else ""

    @property
    def reported(self) -> ReportedGap | None:
        """The API's count of the last request with usage against the plan's count of it.

        ``None`` once a compaction is applied: the API counted a request with the history
        the compaction replaced, so set against the compacted session it would read as a
        huge estimator error."""
        if self.session is None or self.plan is None or self.compacted:
            return None
        return reported_gap(self.session, self.plan, self.fit)

    @property
    def counts_known(self) -> bool:
        """Whether the session is counted under the policy's tokenizer (planning is instant)."""
        return self.engine is not None and self.engine.cached_counts(self.policy) is not None

    @property
    def first_pass(self) -> Policy | None:
        """The estimator's policy to draw a new session with while its exact count runs:
        when nothing of this session is drawn yet and the policy counts exactly; else
        ``None`` (an estimator is quick, and a drawn plan stays until the new one is in)."""
        if self.engine is None or self.plan is not None or not is_exact(self.policy.tokenizer):
            return None
        return self.estimator_policy

    # -- selection, compaction and undo ----------------------------------------------------

    def selected(self, index: int) -> MainState:
        """Message ``index`` selected, clamped to the session."""
        last = len(self.session) - 1 if self.session is not None else 0
        return replace(self, selection=max(0, min(index, last)))

    def applied(self, compacted: Session) -> MainState:
        """``compacted`` replaces the session; the session as it was goes on the undo stack."""
        undo = (*self.undo, self.session) if self.session is not None else self.undo
        return replace(self, undo=undo).with_session(compacted, self.fit)

    def undone(self) -> MainState:
        """The session as before the last apply; unchanged when there is nothing to undo."""
        if not self.undo:
            return self
        return replace(self, undo=self.undo[:-1]).with_session(self.undo[-1], self.fit)

    @property
    def label(self) -> str:
        """The session as a view's title names it: the file's name and the model, if known."""
        name = visible(self.path.name) if self.path is not None else "session"
        model = self.session.meta.model if self.session is not None else None
        return f"{name} · {visible(model)}" if model else name

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

        The directory is the source's, else the working directory, else the home directory:
        the first that is not ctxtui's own package or source tree, where the bundled samples
        live and nothing of the user's belongs (the dialog starts in the directory of the
        last export instead, once there is one). Absolute: the dialog resolves what the user
        types against the default's directory, and a relative source
        (``ctxtui sample_sessions/x.json``) would otherwise be applied twice.
        """
        from ctxtui.samples import inside_install

        meta_source = session.meta.source_path
        source = Path(meta_source) if meta_source else self.path
        source = source.absolute() if source is not None else None
        stem = source.stem if source is not None else "session"
        candidates = [source.parent if source is not None else None, Path.cwd()]
        base = next((d for d in candidates if d is not None and not inside_install(d)), Path.home())
        return base.absolute() / f"{stem}.ctxtui.json", source


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


def _effective(
    name: str, session: Session, overrides: Mapping[str, Any], config: AgentConfig | None
) -> Effective:
    """The CLI's rule (``effective_policy``): preset ``name`` fitted to ``session``, ``config``
    over it when ``name`` is that agent's preset, the user's ``overrides`` over both."""

    def read(agent: str) -> AgentConfig:
        return config if config is not None and config.agent == agent else AgentConfig(agent)

    return effective_policy(name, session, Given(dict(overrides)), read=read)


def _joined(
    known: tuple[RecordedCompaction, ...] | None, grown: Session
) -> tuple[RecordedCompaction, ...] | None:
    """The history's compactions ``known`` and those ``grown`` (a watched file read from its
    new compaction on) recorded after them, told apart by their lines in the file; ``None``
    where a compaction has no line to tell it by (the history's read will say)."""
    if known is None:
        return None
    lines = [c.source_line for c in known]
    new = grown.meta.recorded_compactions
    if None in lines or any(c.source_line is None for c in new):
        return None
    last = max((line for line in lines if line is not None), default=-1)
    return known + tuple(c for c in new if c.source_line is not None and c.source_line > last)
