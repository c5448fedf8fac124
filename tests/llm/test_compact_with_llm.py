"""``ctxtui compact --summarizer openai`` against a real server on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxtui.cli.main import main
from ctxtui.samples import samples_dir
from tests.llm.server import SUMMARY, Behaviour, serve

SESSION = samples_dir() / "coding_agent_overflow.json"
SMALL = ["--context-window", "32768", "--max-tokens", "4096"]


def _compact(url: str, *extra: str) -> list[str]:
    return [
        "compact", str(SESSION), *SMALL, "--summarizer", "openai",
        "--llm-base-url", url, "--llm-model", "m", *extra,
    ]  # fmt: skip


def test_preview_prints_the_servers_summary_and_who_wrote_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with serve() as (url, behaviour):
        assert main(_compact(url, "--preview")) == 0
    out = capsys.readouterr().out
    summary = out.split("=== summary ===\n", 1)[1].split("=== LLM prompt ===", 1)[0]
    assert summary.startswith(SUMMARY)
    calls = len(behaviour.requests)
    assert calls == 2  # the replaced range is two leaf chunks
    usage = f"{100 * calls} in + {40 * calls} out tokens"
    assert f"(written by served-model ({calls} calls, {usage}))" in summary
    assert "warning" not in summary  # every template section is there
    first, second = (r["messages"][0]["content"] for r in behaviour.requests)
    assert first in out  # the prompt the preview shows is the first one sent
    assert f"<previous_context>\n{SUMMARY.strip()}\n</previous_context>" in second


def test_the_written_session_carries_the_models_summary(tmp_path: Path) -> None:
    out = tmp_path / "compacted.json"
    with serve() as (url, _):
        assert main(_compact(url, "-o", str(out))) == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    summaries = [m for m in doc["session"]["messages"] if m.get("is_summary")]
    assert [m["content"] for m in summaries] == [SUMMARY.strip()]


def test_a_failure_is_one_line_and_the_stand_in_is_still_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "compacted.json"
    with serve(Behaviour(mode="status", status=401)) as (url, _):
        assert main(_compact(url, "--preview", "-o", str(out))) == 2
    captured = capsys.readouterr()
    assert captured.err.strip().count("\n") == 0
    assert "LLM summary failed: the endpoint refused the request: HTTP 401" in captured.err
    assert "# Summary of Previous Conversation" in captured.out  # the stand-in, not lost
    assert not out.exists()


def test_missing_sections_are_named(capsys: pytest.CaptureFixture[str]) -> None:
    with serve(Behaviour(text="## Goal\nship it\n")) as (url, _):
        assert main(_compact(url, "--preview")) == 0
    out = capsys.readouterr().out
    (line,) = [x for x in out.splitlines() if x.startswith("warning:")]
    assert "## Constraints, ## Progress" in line
    assert "## Goal" not in line


def test_no_model_is_refused_before_any_work(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "compact",
        str(SESSION),
        "--summarizer",
        "openai",
        "--llm-base-url",
        "http://127.0.0.1:9/v1",
    ]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == (
        "ctxtui compact: error: --llm-model: name the model that should write the summary"
    )


def test_the_figures_are_recounted_for_the_models_summary(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The stand-in's figures come first; once the model's summary is in, the prompt is
    recounted for it (a long answer adds more and saves less than the stand-in)."""
    import re

    long_summary = SUMMARY + "\n".join(f"- detail {i} of the earlier work" for i in range(300))
    with serve(Behaviour(text=long_summary)) as (url, _):
        assert main(_compact(url)) == 0
    out = capsys.readouterr().out
    figures = r"prompt: ([\d,]+) -> ([\d,]+) tok \((saved|grows by) ([\d,]+) tok"
    stand_in = re.search(figures, out)
    llm = re.search(r"with the LLM's summary: the summary adds ([\d,]+) tok; " + figures, out)
    assert stand_in is not None and llm is not None

    def signed(groups: tuple[str, ...]) -> list[int]:
        """The numbers, a growth as a negative saving."""
        out = []
        for i, g in enumerate(groups):
            if g in ("saved", "grows by"):
                continue
            value = int(g.replace(",", ""))
            out.append(-value if i and groups[i - 1] == "grows by" else value)
        return out

    n = [*signed(stand_in.groups()), *signed(llm.groups())]
    before, after, saved, adds, before2, after2, saved2 = n
    assert before2 == before and after2 > after + 1_000 and saved2 == before2 - after2
    assert saved - saved2 == after2 - after  # what the stand-in saved, less the growth
    assert adds > 1_000
