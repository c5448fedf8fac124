"""Policy: presets, validation, and fitting a preset to a session's own window."""

from __future__ import annotations

import pytest

from ctxtui.core.policies.fit import fit_reserve
from ctxtui.core.policies.policy import PolicyError, policy_for_session, preset
from ctxtui.core.policies.presets import PRESETS
from ctxtui.core.session.models import Session, SessionMeta


def _session(window: int | None) -> Session:
    return Session(meta=SessionMeta(context_window=window))


def test_session_window_is_used_when_the_user_set_none() -> None:
    policy = policy_for_session("plan", _session(200_000))
    assert policy.context_window == 200_000
    assert policy.max_tokens == PRESETS["plan"].knobs["max_tokens"]


def test_user_window_wins_over_the_session() -> None:
    policy = policy_for_session("plan", _session(200_000), {"context_window": 64_000})
    assert policy.context_window == 64_000


def test_session_without_a_window_keeps_the_presets() -> None:
    policy = policy_for_session("picoclaw", _session(None))
    assert policy == preset("picoclaw")


def test_a_32k_window_gets_a_quarter_window_reserve() -> None:
    policy = policy_for_session("plan", _session(32_768))
    assert policy.max_tokens == 32_768 // 4
    assert policy.budget == 32_768 - 32_768 // 4


def test_a_user_reserve_is_never_refitted() -> None:
    policy = policy_for_session("plan", _session(32_768), {"max_tokens": 30_000})
    assert policy.max_tokens == 30_000


@pytest.mark.parametrize("window", [256, 1_000, 32_768, 65_536, 65_537, 131_072, 1_000_000])
def test_fitted_reserve_always_leaves_at_least_half_the_window(window: int) -> None:
    reserve = fit_reserve(window, 32_768)
    assert reserve < window
    assert reserve <= window // 2
    if window // 2 > 32_768:
        assert reserve == 32_768


def test_unknown_preset_names_the_known_ones() -> None:
    with pytest.raises(PolicyError, match="known: plan, picoclaw"):
        policy_for_session("nope", _session(None))


def test_with_changes_validates() -> None:
    with pytest.raises(PolicyError, match="tail_min_tokens"):
        preset("plan").with_changes(tail_min_tokens=9_000)
