"""``ctxtui fleet``'s observed column: the band of each session's automatic compactions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxtui.cli.main import main
from tests.core.tuning.test_observed import MANUAL, PLANTED, planted_transcript


def test_the_band_of_the_automatic_compactions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = planted_transcript(tmp_path / "s.jsonl", PLANTED, MANUAL)
    assert main(["fleet", str(path), "--json", "--workers", "1", "--no-cache"]) == 0
    [row] = json.loads(capsys.readouterr().out)["sessions"]
    assert (row["observed_low"], row["observed_high"]) == (155_001, 159_897)
    assert row["compactions_recorded"] == 7  # the manual ones are counted, not fitted
    assert main(["fleet", str(path), "--workers", "1", "--no-cache"]) == 0
    out = capsys.readouterr().out
    assert "OBSERVED TRIGGER" in out and "155,001–159,897" in out
