"""A knob or a preset is one row: every shell reads the tables in ``core.policies.policy`` and
``core.policies.presets``, so nothing else has to list it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ctxtui.cli.main import main
from ctxtui.core.policies.policy import KNOBS
from ctxtui.options import knob_help, range_words
from ctxtui.samples import demo_session_path


@pytest.mark.parametrize("knob", [k for k in KNOBS.values() if k.flag], ids=lambda k: k.name)
def test_every_row_with_a_flag_is_an_option_with_its_rows_words(
    knob: object, capsys: pytest.CaptureFixture[str]
) -> None:
    from ctxtui.core.policies.policy import Knob

    assert isinstance(knob, Knob) and knob.flag is not None
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    entry = text.split(f" {knob.flag} ", 1)[1]
    if knob.numeric:
        metavar = "N" if knob.kind is int else "F"
        assert entry.startswith(" ".join(f"{metavar} {knob_help(knob)}".split()))
        assert " ".join(range_words(knob).split()) in entry
    elif knob.kind is not str:
        assert entry.startswith(f"MODE {knob.help}: {', '.join(knob.choices)}")


def test_the_options_are_exactly_the_rows_with_a_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    policy_group = capsys.readouterr().out.split("\npolicy:\n", 1)[1]
    flags = [w for w in policy_group.split() if w.startswith("--") and w[2:3].isalpha()]
    listed = list(dict.fromkeys(f for f in flags if f in {k.flag for k in KNOBS.values()}))
    assert listed == [k.flag for k in KNOBS.values() if k.flag]


@pytest.mark.parametrize("name", ["context_window", "max_tokens"])
def test_compare_takes_the_window_knobs_from_their_rows(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    knob = KNOBS[name]
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    entry = text.split(f" {knob.flag} ", 1)[1]
    assert entry.startswith(" ".join(f"N {knob_help(knob)}".split()))
    with pytest.raises(SystemExit):
        main(["compare", str(demo_session_path()), str(knob.flag), "100000001"])
    refused = f"{knob.flag}: expected {range_words(knob)}, got 100000001"
    assert refused in " ".join(capsys.readouterr().err.split())


NEW_PRESET = """
import sys
from ctxtui.core.policies.presets import PRESETS, Preset
PRESETS["tiny"] = Preset("tiny", "a tiny window for tests", knobs={"context_window": 4_096,
    "max_tokens": 512, "tail_ratio": 0.5}, note="one row in a test")
from ctxtui.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", NEW_PRESET, *argv],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(sys.path)},
    )


def test_a_preset_row_reaches_the_listing_the_help_and_the_policy() -> None:
    listing = _run("presets")
    assert "tiny" in listing.stdout and "a tiny window for tests" in listing.stdout
    helped = " ".join(_run("report", "--help").stdout.split())
    assert "tiny (one row in a test)" in helped and "4,096 (tiny)" in helped
    assert "picoclaw-seahorse: picoclaw; opencode: opencode; tiny: plan;" in helped
    knobs = " ".join(_run("presets", "--knobs").stdout.split())
    assert "4,096 (tiny)" in knobs and "unused by tiny" not in knobs.split("tail_ratio")[1][:300]
    report = _run("report", str(demo_session_path()), "--preset", "tiny", "--json")
    assert report.returncode == 0, report.stderr
    policy = json.loads(report.stdout)["policy"]
    assert (policy["preset"], policy["tail_ratio"]) == ("tiny", 0.5)


def test_the_knob_listing_is_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    """``ctxtui presets --knobs`` (docs/presets.md points to it) names every row, with its
    group, range, flag and help."""
    assert main(["presets", "--knobs"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    for knob in KNOBS.values():
        assert f"{knob.group}: " in text and f" {knob.name} " in text
        assert " ".join(knob.help.split()) in text
        if knob.flag:
            assert knob.flag in text.split(f" {knob.name} ", 1)[1][:120]


def test_the_tokenizer_specs_are_one_list(capsys: pytest.CaptureFixture[str]) -> None:
    """The selector, the policy's check, the cache's exact prefixes and ``--tokenizer``'s help
    and error all read ``tokens.specs.TOKENIZERS``; every spec there is one a counter knows."""
    from ctxtui.core.policies.policy import preset
    from ctxtui.core.tokens.count_store import CACHED_PREFIXES
    from ctxtui.core.tokens.specs import TOKENIZERS
    from ctxtui.core.tokens.tokenizers import FAMILIES, available_tokenizers
    from ctxtui.options import tokenizer_problem

    specs = [t.spec for t in TOKENIZERS]
    assert list(available_tokenizers()) == specs
    assert [t.spec for t in TOKENIZERS if t.exact] == list(FAMILIES)
    assert all(t.spec.startswith(CACHED_PREFIXES) == t.exact for t in TOKENIZERS)
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for t in TOKENIZERS:
        assert preset("plan", tokenizer=t.spec).tokenizer == t.spec
        assert tokenizer_problem(t.spec) is None
        assert f"'{t.spec}' ({' '.join(t.what.split())})" in text


def test_help_reads_the_tables_without_pydantic_or_textual() -> None:
    """``--help`` and the parsers are built from the knob table at run time, so the table's
    module must stay light: no pydantic (the session model), no Textual."""
    child = (
        "import sys\n"
        "from ctxtui.cli.main import build_app_parser, build_command_parsers\n"
        "build_app_parser().format_help()\n"
        "build_command_parsers()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'textual')"
        " or m in ('ctxtui.core.session.models', 'ctxtui.importers')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", child], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"


NEW_KNOB = """
import importlib.util, sys
from pathlib import Path
import ctxtui.core.policies.presets  # noqa: F401 -- the policy module's own imports, loaded
path = Path(sys.argv[1])
row = ('    tail_extra: int = knob(5, "fresh tail", "an extra knob for a test", low=0, '
       'unit="tokens", flag="--tail-extra")\\n')
source = path.read_text(encoding="utf-8").replace("    # fmt: on\\n", row + "    # fmt: on\\n", 1)
spec = importlib.util.spec_from_loader("ctxtui.core.policies.policy", loader=None)
module = importlib.util.module_from_spec(spec)
module.__file__ = str(path)
sys.modules[spec.name] = module
exec(compile(source, str(path), "exec"), module.__dict__)
if sys.argv[2] == "panel":
    from ctxtui.tui.widgets.settings_panel import PANEL_KNOBS, knob_heading
    print([k.name for k in PANEL_KNOBS if k.name == "tail_extra"], knob_heading("tail_extra"))
    sys.exit(0)
from ctxtui.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


def _with_a_new_knob(*argv: str) -> subprocess.CompletedProcess[str]:
    import ctxtui.core.policies.policy as policy

    return subprocess.run(
        [sys.executable, "-c", NEW_KNOB, str(policy.__file__), *argv],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(sys.path)},
    )


def test_a_knob_row_is_all_it_takes() -> None:
    """One line added to ``Policy``'s table reaches the validation, the option, ``--help``,
    the knob listing, the JSON report and the settings panel, with nothing else edited."""
    helped = " ".join(_with_a_new_knob("report", "--help").stdout.split())
    assert "--tail-extra N fresh tail: an extra knob for a test; ≥ 0; default: 5" in helped
    listing = _with_a_new_knob("presets", "--knobs").stdout
    assert "  tail_extra (tokens, ≥\u00a00, --tail-extra)" in listing
    demo = str(demo_session_path())
    report = _with_a_new_knob("report", demo, "--tail-extra", "3", "--json")
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["policy"]["tail_extra"] == 3
    refused = _with_a_new_knob("report", demo, "--tail-extra", "-1")
    said = refused.stderr.replace("\u00a0", " ")
    assert refused.returncode == 2 and "--tail-extra: expected ≥ 0, got -1" in said
    panel = _with_a_new_knob("panel")
    assert panel.stdout.startswith("['tail_extra'] tail extra (tokens, ≥\u00a00)"), panel.stderr
