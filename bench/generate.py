"""Deterministic generator of large OpenAI-chat sessions for the benchmarks.

The mix follows issue #6: most messages 50–2,000 characters, about 5 % tool outputs of
5–50 KB. Turns look like an agent loop (user → assistant tool call → tool result → assistant
answer) so that the planner's tail, pruning and pairing rules all have work to do. The same
size and seed always give byte-identical files, so benchmark runs compare like with like.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

VOCABULARY = (
    "context window budget token tail prune summary compaction agent tool output request "
    "model assistant user session message estimate overflow reserve policy boundary the a of "
    "to and in for is on with that this file test error line function return value"
)
WORDS = tuple(VOCABULARY.split())

TOOLS = ("read_file", "exec", "grep", "web_fetch", "list_dir")


def _text(rng: random.Random, chars: int) -> str:
    out: list[str] = []
    n = 0
    while n < chars:
        w = rng.choice(WORDS)
        out.append(w)
        n += len(w) + 1
    return " ".join(out)[:chars]


def _tool_output(rng: random.Random, size: int) -> str:
    lines: list[str] = []
    n = 0
    i = 0
    while n < size:
        i += 1
        line = f"{i:5d}  {_text(rng, rng.randint(20, 100))}"
        lines.append(line)
        n += len(line) + 1
    return "\n".join(lines)[:size]


def generate_messages(count: int, seed: int = 6) -> list[dict[str, object]]:
    """``count`` chat messages in agent-loop order (the first is the system prompt)."""
    rng = random.Random(seed + count)
    messages: list[dict[str, object]] = [
        {"role": "system", "content": "You are a coding agent. " + _text(rng, 400)}
    ]
    call = 0
    while len(messages) < count:
        messages.append({"role": "user", "content": _text(rng, rng.randint(50, 600))})
        # a few tool round trips per turn; ~5 % of all messages are big tool outputs
        for _ in range(rng.randint(1, 4)):
            if len(messages) + 2 >= count:
                break
            call += 1
            call_id = f"call_{call:07d}"
            name = rng.choice(TOOLS)
            args = json.dumps({"path": f"src/module_{rng.randint(1, 500)}.py"})
            messages.append(
                {
                    "role": "assistant",
                    "content": _text(rng, rng.randint(50, 300)),
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": args},
                        }
                    ],
                }
            )
            big = rng.random() < 0.16  # 1 in 6 results is big ≈ 5 % of all messages
            size = rng.randint(5_000, 50_000) if big else rng.randint(50, 2_000)
            messages.append(
                {"role": "tool", "tool_call_id": call_id, "content": _tool_output(rng, size)}
            )
        if len(messages) < count:
            messages.append({"role": "assistant", "content": _text(rng, rng.randint(50, 2_000))})
    return messages[:count]


def write_session(path: Path, count: int, seed: int = 6) -> Path:
    """Write an OpenAI-chat ``{"model", "messages"}`` document of ``count`` messages."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        return path
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as f:
        f.write('{"model": "bench-model", "messages": [\n')
        for i, m in enumerate(generate_messages(count, seed)):
            if i:
                f.write(",\n")
            f.write(json.dumps(m, ensure_ascii=False))
        f.write("\n]}\n")
    tmp.replace(path)
    return path
