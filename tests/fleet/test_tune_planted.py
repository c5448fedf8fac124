"""``tune`` over a planted fleet of real PicoClaw transcripts whose best setting is known by
construction: every file is read, replayed under each candidate and scored as a user's would be.

PicoClaw legacy (window 131,072 = ``max_tokens`` 32,768 · 4; ``floor(chars · 2 / 5)``
tokens) summarizes after a turn when the history is over ``summarize_token_percent`` % of the
window, keeping the last turn; it checks nothing inside a turn. Each session has three turns,
each one tool call: the first two leave the history at a planted share of the window (52.5 to
72.5 %, halfway between two candidate percentages), and the third adds a 39,000-token output.

* A candidate at p % summarizes after the second turn exactly the sessions planted above p:
  p = 50 in all five levels, each 5 points more in one level fewer.
* Unsummarized, the 72.5 % session's third turn reaches 95,027 + 39,000 > 131,072 tokens: an
  overflow, so every p ≥ 75 is infeasible. The 67.5 % one reaches 127,474: it fits.
* Summarized, a session keeps its second turn (at most 47,514 tokens) and fits.

So the feasible candidate with the fewest compactions, and the recommendation (the sessions
carry no usage to price, so compactions decide), is p = 70.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli.main import main
from ctxtui.core.tuning.score import split

WINDOW = 131_072
LEVELS = (52.5, 57.5, 62.5, 67.5, 72.5)  # history after the second turn, % of the window
LAST_OUTPUT = 39_000  # tokens of the third turn's tool output
SEED = 7


def _text(tokens: int, word: str) -> str:
    """``tokens`` PicoClaw tokens of plain words (2.5 characters each), with no fact in them."""
    chars = tokens * 5 // 2
    return (f"{word} " * (chars // (len(word) + 1) + 1))[:chars]


def _turn(n: int, output_tokens: int) -> list[dict[str, Any]]:
    call = f"call_{n}"
    fetch = {"name": "web_fetch", "arguments": json.dumps({"q": "notes"})}
    return [
        {"role": "user", "content": f"look it up please {'abc'[n]}"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": call, "type": "function", "function": fetch}],
        },
        {"role": "tool", "content": _text(output_tokens, "lorem"), "tool_call_id": call},
        {"role": "assistant", "content": "done"},
    ]


def _write(directory: Path, name: str, level: float) -> None:
    half = int(WINDOW * level / 100) // 2
    lines = [*_turn(0, half), *_turn(1, half), *_turn(2, LAST_OUTPUT)]
    (directory / name).write_text("".join(json.dumps(m) + "\n" for m in lines))


@pytest.fixture
def planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no PicoClaw config of the user's
    monkeypatch.setenv("CTXTUI_CACHE_DIR", str(tmp_path / "cache"))
    directory = tmp_path / "fleet"
    directory.mkdir()
    for copy in "ab":
        for level in LEVELS:
            _write(directory, f"level-{level:04.1f}-{copy}.jsonl", level)
    return directory


def _level(path: str) -> float:
    return float(Path(path).name.split("-")[1])


def test_the_cheapest_feasible_setting_is_recommended(
    planted: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["tune", str(planted), "--agent", "picoclaw", "--seed", str(SEED), "--json"]
    assert main([*argv, "--workers", "1"]) == 0
    doc = json.loads(capsys.readouterr().out)
    train, test = doc["train"], doc["test"]
    assert (train, test) == split(doc["sessions"], SEED)
    # the construction needs an overflowing session among those chosen on
    assert any(_level(p) == 72.5 for p in train)

    by_percent: dict[int, list[dict[str, Any]]] = {}
    for candidate in doc["candidates"]:
        by_percent.setdefault(candidate["knobs"]["summarize_token_percent"], []).append(candidate)
    for percent, candidates in by_percent.items():
        above = sum(1 for p in train if _level(p) > percent)
        overflows = sum(1 for p in train if _level(p) == 72.5) if percent >= 75 else 0
        for c in candidates:  # the message threshold (20, 40, 80) never fires on 12 messages
            assert (c["compactions"], c["overflows"]) == (above, overflows), (percent, c)

    front = doc["pareto"]
    assert front and all(doc["candidates"][i]["overflows"] == 0 for i in front)
    best = doc["candidates"][doc["recommended"]]
    assert best["knobs"]["summarize_token_percent"] == 70
    # the held-out sessions, under the recommended point: only a 72.5 % one is summarized
    held = doc["held_out"]
    assert held["sessions"] == len(test) == 2
    assert held["compactions"] == sum(1 for p in test if _level(p) == 72.5)
    assert held["overflows"] == 0


def test_the_same_fleet_on_the_process_pool(
    planted: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["tune", str(planted), "--agent", "picoclaw", "--seed", str(SEED), "--json"]
    assert main([*argv, "--workers", "1"]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert main([*argv, "--workers", "2"]) == 0
    pooled = json.loads(capsys.readouterr().out)
    assert pooled == alone
