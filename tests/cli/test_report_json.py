"""``ctxtui report --json`` writes with orjson: the same document the stdlib encoder wrote."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli.main import main
from ctxtui.commands import json_out
from ctxtui.commands.json_out import stdlib_text as encode_json
from ctxtui.core.literal import json_names
from ctxtui.core.simulation.report import build_report
from tests.core.plans import hand_plan, small_session

REPO = Path(__file__).resolve().parents[2]
SAMPLES = sorted(
    p
    for p in (REPO / "sample_sessions").iterdir()
    if p.suffix in (".json", ".jsonl") and not p.name.endswith(".meta.json")
)


def stdlib_json(report: dict[str, Any]) -> bytes:
    """What ``ctxtui report --json`` wrote before orjson: ``json.dumps(indent=2)``."""
    return (json_names(json.dumps(report, indent=2, ensure_ascii=False)) + "\n").encode()


def _run(capsys: pytest.CaptureFixture[bytes], path: Path) -> bytes:
    capsys.readouterr()
    assert main(["report", str(path), "--json"]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_every_sample_reads_the_same_as_with_the_stdlib_encoder(
    sample: Path,
    tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for sidecar in sample.parent.glob(sample.stem + ".meta.json"):
        shutil.copy(sidecar, tmp_path / sidecar.name)
    path = tmp_path / sample.name
    shutil.copy(sample, path)

    def stdlib_used(_text: str) -> str:
        raise AssertionError("the fast path was not taken")

    with monkeypatch.context() as patch:
        patch.setattr(json_out, "json_names", stdlib_used)
        fast = _run(capsysbinary, path)
    # the stdlib's own text of the same document (floats read back exactly)
    slow = (json.dumps(json.loads(fast), indent=2, ensure_ascii=False) + "\n").encode()
    assert fast == slow  # byte for byte, too, on these documents
    assert json.loads(fast)["schema"] == "ctxtui.report/1"


def test_what_orjson_refuses_or_writes_otherwise_goes_the_stdlib_way() -> None:
    """A lone surrogate (a file name that is not UTF-8), an integer past 64 bits, NaN."""
    base = build_report(small_session(), hand_plan(), None)
    assert encode_json(base) == stdlib_json(base)
    surrogate = json.loads(json.dumps(base))
    surrogate["session"]["path"] = "caf\udce9.json"
    huge = json.loads(json.dumps(base))
    huge["totals"]["tokens"] = 2**70
    nan = json.loads(json.dumps(base))
    nan["totals"]["used_ratio"] = float("nan")
    for report in (surrogate, huge, nan):
        out = encode_json(report)
        assert out == stdlib_json(report)
        out.decode("utf-8")  # valid UTF-8 whatever the session held
    assert json.loads(encode_json(surrogate))["session"]["path"] == "caf\\xe9.json"
    assert b'"used_ratio": NaN' in encode_json(nan)  # as before, not orjson's null


@pytest.mark.parametrize("preset", ["plan", "opencode", "claude-code"])
@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_the_window_split_matches_the_plan_the_gauge_draws(
    sample: Path, preset: str, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """``totals.categories`` and the gauge read one plan through one rule: free is the window
    less the prompt and what is kept at the top (``Totals.free_under``), and that top is the
    trigger's headroom. Under the plan preset the headroom is the output reserve, so the
    JSON's free and buffer are the gauge's free and reserve to the token."""
    from ctxtui.core.engine import Engine
    from ctxtui.core.policies.policy import policy_for_session
    from ctxtui.importers import load_session

    capsysbinary.readouterr()
    assert main(["report", str(sample), "--json", "--preset", preset]) == 0
    doc = json.loads(capsysbinary.readouterr().out)
    cats = {c["name"]: c["tokens"] for c in doc["totals"]["categories"]}
    session = load_session(sample)
    policy = policy_for_session(preset, session, {})
    t = Engine(session).plan(policy).totals
    assert cats["autocompact buffer"] == policy.headroom
    assert cats["free"] == t.free_under(policy.headroom)
    assert cats["system prompt"] + cats["tool definitions"] + cats["messages"] == t.tokens
    if preset == "plan":
        assert (cats["free"], cats["autocompact buffer"]) == (t.free, t.output_reserve)
        assert doc["totals"]["budget"] == t.window - cats["autocompact buffer"]
