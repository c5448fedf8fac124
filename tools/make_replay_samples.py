"""Regenerate the replay samples: ``.venv/bin/python tools/make_replay_samples.py``.

Two long agent sessions with usage on every request and compactions the agent ran itself, so
``ctxtui replay`` has a sawtooth to show and figures to calibrate against:

* ``claude_code_replay.jsonl`` — Claude Code: each response written as two lines sharing one
  ``message.id`` and its usage, ``compact_boundary`` lines with ``preTokens`` followed by the
  ``isCompactSummary`` user entry;
* ``codex_replay.jsonl`` — Codex: a ``token_count`` event after every response, ``compacted``
  lines with a ``replacement_history`` (the last user prompt and the summary);
* ``claude_code_cache_story.jsonl`` — Claude Code with usage that follows the prompt cache,
  so each cause of a cache miss happens once (``CacheStory``).

The reported prompt of each request is a known line in the characters the model had read,
``OFFSET + chars / CHARS_PER_TOKEN`` plus at most 1 % of seeded noise, where the offset stands
for the system prompt and tool definitions a transcript does not hold. The same seed always
gives byte-identical files. Everything in them is invented.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent / "sample_sessions"

WORDS = [
    "parser",
    "token",
    "budget",
    "cache",
    "window",
    "retry",
    "config",
    "schema",
    "request",
    "handler",
    "module",
    "test",
    "fixture",
    "branch",
    "commit",
    "refactor",
    "invoice",
    "ledger",
    "export",
    "import",
    "queue",
    "worker",
    "timeout",
    "latency",
    "metric",
]
TOOLS = ("read_file", "grep", "run_tests", "list_dir")
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@dataclass
class Agent:
    """The agent's own view of its context: characters since its last compaction."""

    rng: random.Random
    offset: int
    chars_per_token: float
    compact_at: int
    live_chars: int = 0
    clock: int = 0
    lines: list[dict[str, Any]] = field(default_factory=list)

    def text(self, low: int, high: int) -> str:
        size = self.rng.randint(low, high)
        words: list[str] = []
        while sum(len(w) + 1 for w in words) < size:
            words.append(self.rng.choice(WORDS))
        return " ".join(words)[:size]

    def output(self) -> str:
        rows = [f"{i:4d}  {self.text(20, 70)}" for i in range(1, self.rng.randint(4, 14))]
        return "\n".join(rows)

    def prompt_tokens(self) -> int:
        exact = self.offset + self.live_chars / self.chars_per_token
        return round(exact * (1 + self.rng.uniform(-0.01, 0.01)))

    def now(self) -> str:
        self.clock += 7
        return (START + timedelta(seconds=self.clock)).isoformat().replace("+00:00", "Z")


def compact_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# --- Claude Code -----------------------------------------------------------------------------


class ClaudeCode(Agent):
    session_id = "5f1c2a9e-0d7b-4c3e-9a61-2b8f3e7d4c10"

    def __init__(self) -> None:
        super().__init__(random.Random(12), offset=15_800, chars_per_token=3.3, compact_at=28_000)
        self.parent: str | None = None
        self.serial = 0

    def entry(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.serial += 1
        uuid = f"00000000-0000-4000-8000-{self.serial:012d}"
        line = {
            "type": kind,
            "uuid": uuid,
            "parentUuid": self.parent,
            "isSidechain": False,
            "sessionId": self.session_id,
            "timestamp": self.now(),
            **fields,
        }
        self.parent = uuid
        self.lines.append(line)
        return line

    def user(self, content: Any, chars: int, **flags: Any) -> None:
        self.entry("user", message={"role": "user", "content": content}, **flags)
        self.live_chars += chars

    def response(self, text: str, call: dict[str, Any] | None) -> None:
        """One API response, written as a text line and (if it calls a tool) a tool_use line."""
        prompt = self.prompt_tokens()
        read = max(0, prompt - self.rng.randint(200, 2_000))
        usage = {
            "input_tokens": 3,
            "cache_creation_input_tokens": prompt - read - 3,
            "cache_read_input_tokens": read,
            "output_tokens": self.rng.randint(40, 400),
        }
        msg_id = f"msg_{self.serial:08d}"
        blocks: list[dict[str, Any]] = [{"type": "text", "text": text}]
        if call is not None:
            blocks.append({"type": "tool_use", **call})
        for block in blocks:
            message = {
                "id": msg_id,
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [block],
                "usage": usage,
            }
            self.entry("assistant", message=message, requestId=f"req_{msg_id}")
        self.live_chars += len(text) + (len(compact_json(call["input"])) if call else 0)

    def compact(self) -> None:
        pre = self.prompt_tokens()
        last = self.parent
        self.parent = None
        self.entry(
            "system",
            subtype="compact_boundary",
            content="Conversation compacted",
            logicalParentUuid=last,
            level="info",
            compactMetadata={"trigger": "auto", "preTokens": pre},
        )
        self.live_chars = 0
        summary = (
            "This session is being continued from a previous conversation that ran out of "
            "context. Summary: " + self.text(1_500, 2_500)
        )
        self.user(summary, len(summary), isCompactSummary=True, isVisibleInTranscriptOnly=True)

    def turn(self, number: int) -> None:
        prompt = f"Turn {number}: {self.text(60, 300)}"
        self.user(prompt, len(prompt))
        for _ in range(self.rng.randint(2, 6)):
            call_id = f"toolu_{self.serial:08d}"
            call = {
                "id": call_id,
                "name": self.rng.choice(TOOLS),
                "input": {"path": f"src/{self.rng.choice(WORDS)}.py"},
            }
            self.response(self.text(20, 160), call)
            out = self.output()
            block = {"type": "tool_result", "tool_use_id": call_id, "content": out}
            self.user([block], len(out), toolUseResult={"stdout": out[:40]})
            if self.prompt_tokens() > self.compact_at:
                self.compact()
        self.response(self.text(80, 500), None)


# --- Codex -----------------------------------------------------------------------------------


class Codex(Agent):
    instructions = (
        "You are Codex, a coding agent. Work in the repository; run tests before you finish."
    )

    def __init__(self) -> None:
        super().__init__(random.Random(13), offset=9_000, chars_per_token=3.6, compact_at=24_000)
        self.last_user = ""
        self.emit(
            "session_meta",
            {
                "id": "0197c3a1-7e2b-7c4d-9f10-3a2b1c0d9e8f",
                "cwd": "/work/app",
                "originator": "codex_cli_rs",
                "cli_version": "0.48.0",
                "base_instructions": {"text": self.instructions},
            },
        )
        self.live_chars = len(self.instructions)
        self.turn_context()

    def emit(self, kind: str, payload: dict[str, Any]) -> None:
        self.lines.append({"timestamp": self.now(), "type": kind, "payload": payload})

    def turn_context(self) -> None:
        self.emit("turn_context", {"cwd": "/work/app", "model": "gpt-5-codex", "effort": "medium"})

    def item(self, payload: dict[str, Any], chars: int) -> None:
        self.emit("response_item", payload)
        self.live_chars += chars

    def token_count(self, prompt: int) -> None:
        out = self.rng.randint(40, 400)
        last = {
            "input_tokens": prompt,
            "cached_input_tokens": max(0, prompt - 1_500),
            "output_tokens": out,
            "reasoning_output_tokens": out // 3,
            "total_tokens": prompt + out,
        }
        info = {
            "total_token_usage": last,
            "last_token_usage": last,
            "model_context_window": 272_000,
        }
        self.emit("event_msg", {"type": "token_count", "info": info, "rate_limits": None})

    def response(self, text: str, call: dict[str, Any] | None) -> None:
        prompt = self.prompt_tokens()
        summary = self.text(20, 120)
        self.item(
            {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": summary}],
                "encrypted_content": "gAAAA" + "x" * 40,
            },
            len(summary),
        )
        if call is None:
            content = [{"type": "output_text", "text": text}]
            self.item({"type": "message", "role": "assistant", "content": content}, len(text))
        else:
            self.item({"type": "function_call", **call}, len(call["arguments"]))
        self.token_count(prompt)

    def compact(self) -> None:
        summary = "Summary of the work so far: " + self.text(1_200, 2_000)
        kept = {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": self.last_user}],
        }
        note = {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": summary}],
        }
        self.emit("compacted", {"message": summary, "replacement_history": [kept, note]})
        self.emit("event_msg", {"type": "context_compacted"})
        self.live_chars = len(self.instructions) + len(self.last_user) + len(summary)
        self.turn_context()

    def turn(self, number: int) -> None:
        self.last_user = f"Turn {number}: {self.text(60, 300)}"
        content = [{"type": "input_text", "text": self.last_user}]
        self.item({"type": "message", "role": "user", "content": content}, len(self.last_user))
        for _ in range(self.rng.randint(2, 6)):
            call_id = f"call_{len(self.lines):06d}"
            command = compact_json({"command": ["bash", "-lc", f"rg {self.rng.choice(WORDS)}"]})
            self.response("", {"name": "shell", "arguments": command, "call_id": call_id})
            out = self.output()
            self.item({"type": "function_call_output", "call_id": call_id, "output": out}, len(out))
            if self.prompt_tokens() > self.compact_at:
                self.compact()
        self.response(self.text(80, 500), None)


class CacheStory(ClaudeCode):
    """A Claude Code session whose usage follows Anthropic's prompt cache, so that each cause
    of a cache miss happens once: the cold first request, a 6-minute pause (past the 5-minute
    lifetime), a switch of model (each model has its own cache), a compaction (only the system
    prompt and tools stay cached), and a 20-minute pause after 1-hour writes (no miss)."""

    session_id = "7a3e9c21-4b8d-4f2e-a0c6-1d5e8f2b9a47"

    def __init__(self) -> None:
        super().__init__()
        self.rng = random.Random(14)
        self.model = "claude-sonnet-4-5"
        self.one_hour = False
        self.cached: tuple[str, int, int] | None = None  # (model, prompt tokens, clock)
        self.compacted = False

    def pause(self, seconds: int) -> None:
        self.clock += seconds

    def prompt_tokens(self) -> int:
        return round(self.offset + self.live_chars / self.chars_per_token)  # exact: no noise

    def response(self, text: str, call: dict[str, Any] | None) -> None:
        prompt = self.prompt_tokens()
        lifetime = 3_600 if self.one_hour else 300
        read = 0
        if self.cached is not None:
            model, size, clock = self.cached
            if model == self.model and self.clock - clock <= lifetime:
                read = self.offset if self.compacted else size
        write = prompt - read - 3
        creation = {
            "ephemeral_5m_input_tokens": 0 if self.one_hour else write,
            "ephemeral_1h_input_tokens": write if self.one_hour else 0,
        }
        usage = {
            "input_tokens": 3,
            "cache_creation_input_tokens": write,
            "cache_read_input_tokens": read,
            "cache_creation": creation,
            "output_tokens": self.rng.randint(40, 400),
        }
        self.cached = (self.model, prompt, self.clock)
        self.compacted = False
        msg_id = f"msg_{self.serial:08d}"
        blocks: list[dict[str, Any]] = [{"type": "text", "text": text}]
        if call is not None:
            blocks.append({"type": "tool_use", **call})
        for block in blocks:
            message = {
                "id": msg_id,
                "type": "message",
                "role": "assistant",
                "model": self.model,
                "content": [block],
                "usage": usage,
            }
            self.entry("assistant", message=message, requestId=f"req_{msg_id}")
        self.live_chars += len(text) + (len(compact_json(call["input"])) if call else 0)

    def turn(self, number: int) -> None:
        prompt = f"Turn {number}: {self.text(60, 300)}"
        self.user(prompt, len(prompt))
        for _ in range(2):
            call_id = f"toolu_{self.serial:08d}"
            call = {
                "id": call_id,
                "name": self.rng.choice(TOOLS),
                "input": {"path": f"src/{self.rng.choice(WORDS)}.py"},
            }
            self.response(self.text(20, 160), call)
            out = self.output()
            block = {"type": "tool_result", "tool_use_id": call_id, "content": out}
            self.user([block], len(out), toolUseResult={"stdout": out[:40]})
        self.response(self.text(80, 500), None)

    def story(self) -> None:
        for n in range(1, 3):
            self.turn(n)  # the first request is cold: first_request
        self.pause(6 * 60)
        self.turn(3)  # past the 5-minute lifetime: ttl_expired
        self.model = "claude-opus-4-5"
        self.turn(4)  # another model, another cache: model_changed
        self.turn(5)
        self.compact()
        self.compacted = True
        self.turn(6)  # only the system prompt and tools stay cached: compaction
        self.one_hour = True
        self.turn(7)
        self.pause(20 * 60)
        self.turn(8)  # written with the 1-hour lifetime: still a hit


def write(path: Path, lines: list[dict[str, Any]]) -> None:
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    print(f"{path.name}: {len(lines):,} lines, {len(text.encode()):,} bytes")


def main() -> None:
    claude = ClaudeCode()
    for n in range(1, 51):
        claude.turn(n)
    write(HERE / "claude_code_replay.jsonl", claude.lines)
    codex = Codex()
    for n in range(1, 51):
        codex.turn(n)
    write(HERE / "codex_replay.jsonl", codex.lines)
    story = CacheStory()
    story.story()
    write(HERE / "claude_code_cache_story.jsonl", story.lines)


if __name__ == "__main__":
    main()
