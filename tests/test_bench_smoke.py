"""``python -m bench`` still runs: every section on a tiny session, one repeat, no timings."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

import bench.common
from bench.__main__ import MARK, SECTIONS, main, parse, render, run, write_doc
from bench.common import Result


@pytest.fixture(autouse=True)
def _tiny_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Generated sessions and the count cache go to tmp, not bench/out or the user's cache."""
    monkeypatch.setattr(bench.common, "OUT", tmp_path / "out")
    monkeypatch.setenv("CTXTUI_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture(autouse=True)
def _small_heap() -> Iterator[None]:
    """The bench collects before each timed call (``bench.common.timed``). Here that walks the
    test worker's whole heap (Textual, hypothesis, every test module): ~0.2 s a collection, and
    the re-plan section's 50 samples took 9 s. Frozen, the walk covers only what the section
    builds, as in the benchmark's own process."""
    gc.freeze()
    yield
    gc.unfreeze()


TINY = [
    "--sizes", "120,200", "--replay-sizes", "120,200", "--repeats", "1", "--frame-rows", "400",
    "--startup-rounds", "1", "--fleet-sessions", "6", "--fleet-mb", "0.02",
    "--usage-mb", "0.05,0.05", "--tune-sessions", "3", "--tune-mb", "0.02",
]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("section", SECTIONS)
def test_each_section_runs_on_a_tiny_session(section: str) -> None:
    """One test per section, so the workers of ``make test`` share them out."""
    from bench.fleet import ccusage

    if section == "usage" and ccusage() is None:
        pytest.skip("ccusage is not installed (npm install ccusage@20.0.24)")
    lines: list[str] = []
    results, _notes = run(parse([*TINY, "--only", section, "--no-doc"]), emit=lines.append)
    assert results and {r.section for r in results} == {section}
    assert all(r.baseline_value > 0 and r.subject_value >= 0 for r in results)
    assert all(" = " in line for line in lines if line.startswith("["))


def test_every_section_of_a_run_goes_into_the_doc() -> None:
    results = [Result(section, "1k", "subject", 1.0, "baseline", 2.0) for section in SECTIONS]
    doc = render(results, [], parse(TINY), 1.0)
    assert all(f"| {section} |" in doc for section in SECTIONS)
    assert "nproc" not in doc and "CPUs" in doc


def test_the_doc_keeps_its_hand_written_part(tmp_path: Path) -> None:
    doc = tmp_path / "PERFORMANCE.md"
    doc.write_text("# Performance\n\nNotes by hand.\n\n" + MARK + "\n\nold results\n")
    write_doc(doc, "new results\n")
    text = doc.read_text()
    assert "Notes by hand." in text and "new results" in text and "old results" not in text


def test_main_writes_the_doc(tmp_path: Path) -> None:
    doc = tmp_path / "PERF.md"
    code = main(["--sizes", "100", "--repeats", "1", "--only", "replan", "--doc", str(doc)])
    assert code == 0
    assert MARK in doc.read_text()


def test_a_result_reads_as_a_ratio() -> None:
    r = Result("open", "1k", "subject", 3.0, "baseline", 2.0, "s", 2.0)
    assert r.ratio == 1.5 and r.met is True
    assert "= 1.500" in r.line() and "met" in r.line()
    assert Result("x", "1k", "s", 1.0, "b", 0.0).ratio == float("inf")


@pytest.mark.slow
def test_the_ablation_runs_and_puts_every_switch_back() -> None:
    import gc

    import ctxtui.importers.openai_chat as openai_chat
    from ctxtui.importers import _reader

    before = (_reader._fast_json, _reader.gc_paused, openai_chat.gc_paused, gc.get_freeze_count)
    args = parse(["--sizes", "120", "--repeats", "1", "--only", "ablation", "--no-doc"])
    results, _notes = run(args, emit=lambda _line: None)
    assert [r.section for r in results] == ["ablation"] * 4
    assert all(r.baseline_value > 0 for r in results)
    after = (_reader._fast_json, _reader.gc_paused, openai_chat.gc_paused, gc.get_freeze_count)
    assert after == before


def test_the_summary_lists_every_figure_with_its_verdict() -> None:
    from bench.__main__ import summary

    results = [
        Result("open", "100k", "open+count+plan", 0.9, "json.load", 0.6, "s", 1.0),
        Result("startup", "-", "ctxtui --help", 0.12, "150 ms target", 0.15, "s", 1.0),
        Result("frame", "1M/1k", "1M rows", 2.0, "1k rows", 2.0),
    ]
    lines = summary(results).splitlines()
    assert lines[0].split() == ["figure", "value", "ratio", "target", "verdict"]
    assert lines[1].startswith("open 100k open+count+plan") and lines[1].endswith("MISSED")
    assert lines[2].startswith("startup - ctxtui --help") and lines[2].endswith("met")
    assert lines[3].endswith("reported")
    assert lines[-1] == "1 of 2 targets met"
    assert len(lines) <= 40  # one screen
