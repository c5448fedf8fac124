"""Transcripts from ``tools/make_replay_samples.py``, the generator of the benchmarks' large
ones (split responses, compactions, cache writes of both lifetimes), for the tests that read
their shapes."""

from __future__ import annotations

import functools
import json
from types import ModuleType

from tests.tools_loader import load_tool


@functools.cache
def replay_samples() -> ModuleType:
    return load_tool("make_replay_samples")


@functools.cache
def agent_lines(agent: str, turns: int, seed: int) -> bytes:
    """A Claude Code transcript (``agent`` ``claude-code``) or a Codex rollout of ``turns``
    turns, as JSONL bytes; the same bytes for the same arguments."""
    tool = replay_samples()
    maker = tool.ClaudeCode() if agent == "claude-code" else tool.Codex()
    maker.rng.seed(seed)
    for turn in range(1, turns + 1):
        maker.turn(turn)
    lines = (json.dumps(v, ensure_ascii=False, separators=(",", ":")) for v in maker.lines)
    return "".join(line + "\n" for line in lines).encode()


def growing_transcripts() -> dict[str, bytes]:
    """The Claude Code and Codex transcripts a grown file is read on from
    (``importers.appended``): generated ones and the samples, by a short name."""
    from ctxtui.samples import samples_dir

    samples = samples_dir()
    return {
        "generated": agent_lines("claude-code", 39, 7),
        "codex-generated": agent_lines("codex", 39, 7),
        "codex-replay": (samples / "codex_replay.jsonl").read_bytes(),
        "compacted": (samples / "claude_code_compacted.jsonl").read_bytes(),
        "replay": (samples / "claude_code_replay.jsonl").read_bytes(),
        "cache-story": (samples / "claude_code_cache_story.jsonl").read_bytes(),
    }


def line_end(raw: bytes, at: int) -> int:
    """The end of the line byte ``at`` falls in (the file's end at most)."""
    end = raw.find(b"\n", at)
    return len(raw) if end < 0 else end + 1
