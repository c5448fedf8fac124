"""What a compaction hid is counted without converting it: the count and the dropped token
counts are those of the conversion, for every Claude Code chain at hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxtui.importers._claude_messages import Entry, convert, count_messages
from ctxtui.importers._jsonl import Record, iter_records
from ctxtui.importers._stream import Dropped, open_file
from ctxtui.importers.claude_code import _collect, _newest_leaf, _walk
from ctxtui.samples import samples_dir

EXAMPLES = Path("/work/shared/reference/examples")
CLAUDE = sorted(
    p for p in [*samples_dir().glob("claude_code*.jsonl"), *EXAMPLES.glob("claude_code*.jsonl")]
)


@pytest.mark.parametrize("sample", CLAUDE, ids=[p.name for p in CLAUDE])
def test_counting_a_chain_is_converting_it(sample: Path) -> None:
    with open_file(sample) as source:
        entries = _collect(iter_records(source, [], typed=Entry)).whole()
    leaf = _newest_leaf(entries)
    assert leaf is not None
    chain = _walk(entries, leaf.value.uuid, [], True)
    counted, converted = Dropped(), Dropped()
    made = convert(chain, entries.tool_names, [], converted)
    assert count_messages(chain, counted) == len(made)
    assert counted.count == converted.count


def _line(**fields: object) -> Record:
    return Record(1, Entry(**fields))  # type: ignore[arg-type]


def test_counting_merges_split_responses_and_splits_tool_results() -> None:
    """The edges: a response split over lines (merged until a non-tool message comes
    between), user content around tool results, blocks without a type, out-of-range usage."""
    from ctxtui.importers._claude_messages import Body

    def assistant(msg_id: str, usage: object = None) -> Record:
        return _line(type="assistant", message=Body(id=msg_id, content=[], usage=usage))

    def user(content: object) -> Record:
        return _line(type="user", message=Body(content=content))

    result = {"type": "tool_result", "tool_use_id": "t", "content": "x"}
    chain = [
        assistant("a", {"input_tokens": -1, "output_tokens": 1e400}),
        user([result, {"type": "text", "text": "hi"}, result, {"text": "untyped"}]),
        assistant("a"),  # a user message came between: a message of its own
        assistant("b"),
        user([result]),
        assistant("b", {"input_tokens": 2**70}),  # only tool results between: merged
        user("plain"),
        _line(type="system", subtype="compact_boundary"),
    ]
    counted, converted = Dropped(), Dropped()
    made = convert(chain, {}, [], converted)
    assert count_messages(chain, counted) == len(made)
    assert counted.count == converted.count == 3


def test_a_new_compaction_counts_only_what_came_since_the_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Watching a session whose next compaction arrives: the messages it hides are counted on
    from the last count, not from the start, and the note is the whole read's."""
    from ctxtui.importers import _claude_messages, load_session
    from ctxtui.importers.resume import resume

    raw = (samples_dir() / "claude_code_replay.jsonl").read_bytes()
    third = raw.rindex(b"compact_boundary")
    cut = raw.rindex(b"\n", 0, third) + 1  # just before the third compaction
    path = tmp_path / "s.jsonl"
    path.write_bytes(raw[:cut])
    _, state = resume(path, None)
    counted: list[object] = []
    real = _claude_messages.MessageCount.add

    def add(self: _claude_messages.MessageCount, record: Record) -> None:
        counted.append(record)
        real(self, record)

    monkeypatch.setattr(_claude_messages.MessageCount, "add", add)
    path.write_bytes(raw)
    session, _ = resume(path, state)
    monkeypatch.undo()
    whole = load_session(path)
    assert session.model_dump() == whole.model_dump()
    before = next(w for w in whole.meta.events if w.startswith("compact boundary"))
    hidden = int(before.split(": ")[1].split(" ")[0].replace(",", ""))
    assert 0 < len(counted) < hidden  # only the entries since the second compaction's count
