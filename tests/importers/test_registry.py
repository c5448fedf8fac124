"""A format is one row (``core.session.formats.FORMATS``) and one importer module
(``ctxtui.importers.IMPORTERS``): the two agree, and a toy format added as a row and a module
is found by detection, ``ctxtui formats``, the sessions listing, the provider and the
harness's output cap, with nothing else changed."""

from __future__ import annotations

import json
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli.main import main
from ctxtui.core.pricing import cost
from ctxtui.core.session import formats
from ctxtui.core.session.formats import FORMAT_NAMES, FormatInfo, StoreRoot, format_info
from ctxtui.core.session.models import Message, Session, Usage
from ctxtui.core.tokens.calibration import output_cap
from ctxtui.importers import IMPORTERS, FoundSession, StoreWalk, load_session
from ctxtui.importers._store_files import stat_entry
from ctxtui.importers._stream import Source
from ctxtui.stores.guard import store_refusal
from ctxtui.stores.listing import list_sessions


def test_every_row_has_its_importer_and_every_importer_its_row() -> None:
    assert sorted(IMPORTERS) == sorted(FORMAT_NAMES)
    for name, module in IMPORTERS.items():
        assert module.FORMAT is format_info(name)


TOY = FormatInfo(
    "toy-agent",
    "Toy Agent",
    "a format made up for this test",
    (".toy",),
    provider="toy-provider",
    output_cap=(10, frozenset({"Bash"})),
    agent="Toy",
    stores=(StoreRoot("TOY_HOME", ".toy", "sessions"),),
)


def _toy_module() -> types.ModuleType:
    """An importer as a new format's module would be: its row, sniff, load, and the optional
    path hint and store listing."""

    def sniff(path: Path, head: Any) -> int:
        return 95 if isinstance(head, dict) and head.get("toy") is True else 0

    def path_hint(path: Path) -> bool:
        return path.name.endswith(".toy")

    def load(source: Source) -> Session:
        said = json.loads(source.path.read_text("utf-8"))["said"]
        return Session(messages=[Message(role="user", content=said)])

    def list_store(walk: StoreWalk, root: Path) -> Iterator[FoundSession]:
        for file in walk.files(root, "*.toy"):
            yield stat_entry(TOY.name, file)

    module = types.ModuleType("toy_agent")
    module.__dict__.update(
        FORMAT=TOY, sniff=sniff, path_hint=path_hint, load=load, list_store=list_store
    )
    return module


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> FormatInfo:
    """The toy format registered for one test: its row and its module, nothing else."""
    monkeypatch.setattr(formats, "FORMATS", (*formats.FORMATS, TOY))
    monkeypatch.setitem(IMPORTERS, TOY.name, _toy_module())
    return TOY


def test_a_new_format_is_detected_by_its_path_hint_and_by_its_sniff(
    toy: FormatInfo, tmp_path: Path
) -> None:
    hinted = tmp_path / "one.toy"
    hinted.write_text(json.dumps({"said": "by name"}), encoding="utf-8")
    sniffed = tmp_path / "two.json"
    sniffed.write_text(json.dumps({"toy": True, "said": "by content"}), encoding="utf-8")
    assert load_session(hinted).meta.format == "toy-agent"
    assert load_session(sniffed).messages[0].content == "by content"
    assert load_session(sniffed, format="Toy_Agent").meta.format == "toy-agent"


def test_a_new_format_is_listed_by_the_formats_command(
    toy: FormatInfo, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["formats"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines if not line[0].isspace()][-1] == "toy-agent"


def test_a_new_format_s_store_is_listed_and_guarded(toy: FormatInfo, tmp_path: Path) -> None:
    store = tmp_path / "toyhome" / "sessions"
    store.mkdir(parents=True)
    (store / "s.toy").write_text("{}", encoding="utf-8")
    env = {"HOME": str(tmp_path / "home"), "TOY_HOME": str(tmp_path / "toyhome")}
    listed = list_sessions(env).sessions
    assert [(f.agent, f.path) for f in listed] == [("toy-agent", store / "s.toy")]
    refusal = store_refusal(store / "out.json", env)
    assert refusal is not None and "inside Toy's session store" in refusal


def test_a_new_format_s_provider_and_output_cap_are_read_from_its_row(
    toy: FormatInfo, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str | None] = []

    def table_for(model: str, provider: str | None, at: object) -> None:
        asked.append(provider)
        raise cost.NoPriceError(model)

    monkeypatch.setattr(cost, "table_for", table_for)
    reply = Message(role="assistant", content="ok", model="m", usage=Usage(prompt_total=5))
    session = Session(messages=[Message(role="user", content="hi"), reply])
    session = session.model_copy(
        update={"meta": session.meta.model_copy(update={"format": "toy-agent"})}
    )
    cost.session_cost(session, [1])
    assert asked == ["toy-provider"]
    assert output_cap("toy-agent") == (10, frozenset({"Bash"}))
