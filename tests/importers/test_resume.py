"""A session read in pieces, its importer state stored and loaded between them
(``importers.resume``), is the session one read of the whole file gives: for every sample and
generated transcript of each format whose importer reads records one at a time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxtui.core.errors import SessionLoadError
from ctxtui.importers import load_session, resume
from ctxtui.samples import samples_dir
from tests.generated import agent_lines

EXAMPLES = Path("/work/shared/reference/examples")
RESUMED = ("claude-code", "codex", "openai-chat", "picoclaw")


def _format(path: Path) -> str | None:
    try:
        return load_session(path).meta.format
    except SessionLoadError:
        return None


def _generated(name: str) -> bytes:
    """A small transcript from the generator of the benchmarks' large ones (split responses,
    compactions, cache writes of both lifetimes), so their shapes are read in pieces too."""
    if name == "openai-chat":
        return _chat_lines()
    if name == "picoclaw":
        return _picoclaw_lines()
    return agent_lines(name, 39, 7)


PICOCLAW_META = {
    "key": "sk_generated",
    "summary": "Earlier: the user asked about files.",
    "skip": 7,
}
"""The meta written beside the generated PicoClaw file: its first 7 lines are summarized."""


def _picoclaw_lines() -> bytes:
    """PicoClaw lines: calls and their results, a transient thought line, blank and corrupt
    lines (which ``skip`` counts when they hold something)."""
    rows: list[str] = []
    for i in range(25):
        call = {"id": f"c{i}", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
        rows.append(json.dumps({"role": "user", "content": f"question {i} " + "y" * (i * 5)}))
        rows.append(json.dumps({"role": "assistant", "content": "", "tool_calls": [call]}))
        rows.append(json.dumps({"role": "tool", "tool_call_id": f"c{i}", "content": f"ls {i}"}))
        rows.append(json.dumps({"role": "assistant", "reasoning_content": "hm", "content": ""}))
        rows.append(json.dumps({"role": "assistant", "content": f"answer {i}", "model_name": "m"}))
    rows.insert(3, "")
    rows.insert(5, '{"role": "user", "content": ')
    rows.insert(9, '{"not": "a message"}')
    return ("\n".join(rows) + "\n").encode()


def _chat_lines() -> bytes:
    """OpenAI Chat messages one per line: calls and their results, usage, a corrupt line."""
    rows: list[dict[str, object]] = [{"role": "system", "content": "be brief"}]
    for i in range(30):
        call = {"id": f"c{i}", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
        rows.append({"role": "user", "content": f"question {i} " + "x" * (i * 7)})
        rows.append({"role": "assistant", "content": None, "tool_calls": [call]})
        rows.append({"role": "tool", "tool_call_id": f"c{i}", "content": f"files {i}"})
        usage = {"prompt_tokens": 10 * i, "completion_tokens": 2}
        rows.append({"role": "assistant", "content": f"answer {i}", "usage": usage})
    lines = [json.dumps(r) for r in rows]
    lines.insert(9, '{"role": "user", "content": ')
    return ("\n".join(lines) + "\n").encode()


FILES = sorted(
    p for p in [*samples_dir().glob("*.jsonl"), *EXAMPLES.glob("*.jsonl")] if _format(p) in RESUMED
)
LATE_SKIP = 120
"""The skip of ``generated-picoclaw-late``: its line is met late in the file, so reads of
the pieces before it search on from where the last one stopped."""
TRANSCRIPTS = [
    *(p.name for p in FILES),
    *(f"generated-{name}" for name in RESUMED),
    "generated-picoclaw-late",
]


def _raw(name: str) -> tuple[bytes, str]:
    """A transcript's bytes and its format (a generated Chat file is told, not detected)."""
    if name.startswith("generated-"):
        format = name.removeprefix("generated-").removesuffix("-late")
        return _generated(format), format
    path = next(p for p in FILES if p.name == name)
    return path.read_bytes(), str(_format(path))


def _meta(name: str, target: Path) -> None:
    """A PicoClaw transcript's meta (its ``skip`` and summary) beside its pieces."""
    meta = target.with_name(target.name.removesuffix(".jsonl") + ".meta.json")
    if name == "generated-picoclaw":
        meta.write_text(json.dumps(PICOCLAW_META))
        return
    if name == "generated-picoclaw-late":
        meta.write_text(json.dumps({**PICOCLAW_META, "skip": LATE_SKIP}))
        return
    path = next((p for p in FILES if p.name == name), None)
    if path is not None and path.with_name(path.stem + ".meta.json").is_file():
        meta.write_bytes(path.with_name(path.stem + ".meta.json").read_bytes())


def test_every_resumed_format_has_transcripts(tmp_path: Path) -> None:
    formats = {_format(p) for p in FILES}
    for name in RESUMED:
        path = tmp_path / f"{name}.jsonl"
        path.write_bytes(_generated(name))
        assert load_session(path, name).messages
    assert formats == {"claude-code", "codex", "picoclaw"}


@pytest.mark.parametrize("sample", TRANSCRIPTS)
@pytest.mark.parametrize("full_history", [False, True], ids=["load", "history"])
@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_reading_on_from_a_stored_state_gives_the_whole_read(
    sample: str,
    full_history: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    data: st.DataObject,
) -> None:
    raw, format = _raw(sample)
    cuts = data.draw(st.lists(st.integers(1, len(raw) - 1), max_size=4), label="cuts")
    target = tmp_path / f"piece-{len(cuts)}-{sum(cuts)}.jsonl"
    _meta(sample, target)
    starts: list[int] = []
    real_start = resume.Resumable.start.__func__  # type: ignore[attr-defined]

    def start(cls: type[resume.Resumable], source, *args, **kwargs):  # type: ignore[no-untyped-def]
        starts.append(source.size)
        return real_start(cls, source, *args, **kwargs)

    monkeypatch.setattr(resume.Resumable, "start", classmethod(start))
    state: bytes | None = None
    for cut in [*sorted(set(cuts)), len(raw)]:
        target.write_bytes(raw[:cut])  # split anywhere: half-written lines included
        had_state = state is not None
        starts.clear()
        try:
            session, state = resume.resume(target, state, format, full_history=full_history)
        except SessionLoadError:  # a head too short to tell the format yet
            state = None
            continue
        if had_state:
            assert starts == [], "read on from the stored state, not from the start"
    assert state is not None, "a state was kept to read on from"
    whole = load_session(target, format, full_history=full_history)
    assert session.model_dump() == whole.model_dump()


def test_a_file_that_is_not_an_append_is_read_whole(tmp_path: Path) -> None:
    sample = samples_dir() / "codex_replay.jsonl"
    target = tmp_path / "s.jsonl"
    raw = sample.read_bytes()
    target.write_bytes(raw[: len(raw) // 2])
    _, state = resume.resume(target, None)
    shorter = raw[: len(raw) // 3]
    target.write_bytes(shorter)  # shrank
    session, state = resume.resume(target, state)
    assert session.model_dump() == load_session(target).model_dump()
    target.write_bytes(b" " + raw)  # rewritten: the first bytes differ
    session, _ = resume.resume(target, state)
    assert session.model_dump() == load_session(target).model_dump()


def test_a_state_of_another_kind_is_not_resumed(tmp_path: Path) -> None:
    """Bytes that are not a state, or a state read for the other kind of read, are ignored."""
    target = tmp_path / "s.jsonl"
    target.write_bytes((samples_dir() / "codex_replay.jsonl").read_bytes())
    _, history = resume.resume(target, None, full_history=True)
    for state in (b"not a state", history):
        session, _ = resume.resume(target, state)
        assert session.model_dump() == load_session(target).model_dump()


def test_a_skip_not_met_yet_is_searched_for_from_where_the_last_search_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a PicoClaw file holds fewer lines than its meta's ``skip``, each read searches
    only the lines appended since (``--watch`` does not scan the whole file every time)."""
    from ctxtui.importers import _stream, picoclaw

    raw = _picoclaw_lines()
    target = tmp_path / "s.jsonl"
    target.with_name("s.meta.json").write_text(json.dumps({**PICOCLAW_META, "skip": 10**6}))
    offsets: list[int] = []  # where each search for the skip's line began
    searching = [False]
    real_stream, real_search = _stream.Source.stream, picoclaw._line_after_skip

    def stream(self: _stream.Source, offset: int = 0) -> Any:
        if searching[0]:
            offsets.append(offset)
        return real_stream(self, offset)

    def search(*args: Any) -> Any:
        searching[0] = True
        try:
            return real_search(*args)
        finally:
            searching[0] = False

    monkeypatch.setattr(_stream.Source, "stream", stream)
    monkeypatch.setattr(picoclaw, "_line_after_skip", search)
    state: bytes | None = None
    cuts = [len(raw) // 3, len(raw) * 2 // 3, len(raw)]
    for cut in cuts:
        target.write_bytes(raw[: raw.rfind(b"\n", 0, cut) + 1])
        offsets.clear()
        session, state = resume.resume(target, state)
    assert state is not None
    assert offsets and min(offsets) > len(raw) // 3, offsets  # not from the start again
    assert session.model_dump() == load_session(target).model_dump()
