"""Where a prune broke the prefix, found without planning either context
(``cache_model.first_change_unplanned``), is what planning both finds: on every request of
the samples and generated transcripts whose prompt grew by less than its new messages, under
every preset and a few pruning knobs."""

from __future__ import annotations

from pathlib import Path

from ctxtui.core.engine import Engine
from ctxtui.core.policies.presets import PRESETS
from ctxtui.core.pricing.cache_model import UNPLANNED, _first_change, first_change_unplanned
from ctxtui.core.session.models import Session
from ctxtui.core.simulation.live_context import Counted
from ctxtui.core.simulation.replay import Replay, replay
from ctxtui.importers import load_session
from ctxtui.options import build_policy
from ctxtui.samples import samples_dir
from tests.generated import agent_lines

KNOBS: list[dict[str, object]] = [
    {},
    {"context_window": 60_000},
    {"prune_mode": "turns", "prune_threshold": 2},
    {"prune_mode": "results", "prune_keep_results": 3},
    {"prune_mode": "tokens", "prune_protect_tokens": 4_000, "prune_minimum_tokens": 1_000},
    # no compaction in a small window: contexts outgrow their budget and the plan drops the
    # oldest messages, which only a plan can tell
    {"auto_compact": False, "context_window": 24_000, "assembly_budget": True},
    {"auto_compact": False, "context_window": 24_000, "reserve_system_and_tools": True},
]


def _sessions(tmp_path: Path) -> list[Session]:
    found = [
        load_session(samples_dir() / name, full_history=True)
        for name in ("claude_code_replay.jsonl", "codex_replay.jsonl", "opencode_replay.json")
        if (samples_dir() / name).exists()
    ]
    for agent in ("claude-code", "codex"):
        path = tmp_path / f"{agent}.jsonl"
        path.write_bytes(agent_lines(agent, 30, 11))
        found.append(load_session(path, full_history=True))
    return found


def _replayed(session: Session, preset: str, knobs: dict[str, object]) -> Replay | None:
    try:
        policy = build_policy(preset, dict(knobs), session)
    except ValueError:  # a knob this preset refuses
        return None
    engine = Engine(session)
    counts = engine.counts(policy)
    assert counts is not None
    return replay(Counted(session, policy, counts, engine.tokenizer(policy)))


def test_the_unplanned_break_is_the_planned_one(tmp_path: Path) -> None:
    compared = unplanned = 0
    for session in _sessions(tmp_path):
        for preset in sorted(PRESETS):
            for knobs in KNOBS:
                walked = _replayed(session, preset, knobs)
                if walked is None:
                    continue
                requests, prefix = walked.requests, walked.counts.prefix
                for k in range(1, len(requests)):
                    now, then = requests[k], requests[k - 1]
                    if now.segment != then.segment:
                        continue
                    added = prefix[now.message_index] - prefix[then.message_index]
                    if now.simulated_tokens >= then.simulated_tokens + added:
                        continue  # nothing earlier changed: the what-if asks nothing
                    found = first_change_unplanned(walked, k)
                    compared += 1
                    if found is UNPLANNED:
                        continue
                    unplanned += 1
                    planned = _first_change(walked.context_at(k - 1), walked.context_at(k))
                    assert found == planned, (preset, knobs, k)
    assert compared >= 100 and unplanned >= compared // 2, (compared, unplanned)
