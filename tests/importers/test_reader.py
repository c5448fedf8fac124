"""The shared reader: JSONL recovery rules (formats.md §10.2), compression, BOM and CRLF."""

from __future__ import annotations

import gc
import gzip
import json
import operator
from pathlib import Path

import pytest

from ctxtui.core.errors import SessionLoadError
from ctxtui.importers import _reader
from ctxtui.importers._deep import deep_call
from ctxtui.importers._jsonl import iter_records, iter_values, read_head
from ctxtui.importers._reader import read_json_file
from ctxtui.importers._stream import open_file


def _records(path: Path) -> tuple[list[tuple[int, object]], list[str]]:
    warnings: list[str] = []
    with open_file(path) as source:
        got = [(r.line, r.value) for r in iter_records(source, warnings)]
    return got, warnings


def test_corrupt_middle_line_is_skipped_with_its_line_number(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": \n{"c": 3}\n')
    got, warnings = _records(path)
    assert got == [(1, {"a": 1}), (3, {"c": 3})]
    assert len(warnings) == 1
    assert warnings[0].startswith("line 2: skipped")


def test_cut_off_last_line_is_ignored_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2, "c": "unfini')
    got, warnings = _records(path)
    assert got == [(1, {"a": 1})]
    assert len(warnings) == 1
    assert "line 2: incomplete last line" in warnings[0]


def test_complete_last_line_without_newline_is_read(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2}')
    got, warnings = _records(path)
    assert got == [(1, {"a": 1}), (2, {"b": 2})]
    assert warnings == []


def test_two_values_on_one_line_are_both_read(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a": 1}{"b": 2}\n{"c": 3}\n')
    got, warnings = _records(path)
    assert got == [(1, {"a": 1}), (1, {"b": 2}), (2, {"c": 3})]
    assert warnings == []


def test_bom_crlf_and_blank_lines_are_accepted(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\r\n\r\n{"b": "x"}\r\n')
    got, warnings = _records(path)
    assert got == [(1, {"a": 1}), (3, {"b": "x"})]
    assert warnings == []


def test_invalid_utf8_inside_a_jsonl_line_is_replaced_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a": "ok"}\n{"a": "caf\xe9"}\n')
    got, warnings = _records(path)
    assert got == [(1, {"a": "ok"}), (2, {"a": "caf\ufffd"})]
    assert warnings == ["line 2: invalid UTF-8 bytes shown as U+FFFD"]  # never silently


def test_lone_surrogate_escapes_become_replacement_characters(tmp_path: Path) -> None:
    """``\\ud83d`` alone (a writer split an emoji) cannot be encoded, printed or tokenised."""
    line = '{"a\\udc00": ["x\\ud83dy", {"k": "\\ud83d\\ude00 ok"}]}'
    jsonl = tmp_path / "s.jsonl"
    jsonl.write_text(line + "\n")
    got, warnings = _records(jsonl)
    expected = {"a\ufffd": ["x\ufffdy", {"k": "\U0001f600 ok"}]}  # a real pair is kept
    assert got == [(1, expected)] and warnings == []
    doc = tmp_path / "d.json"
    doc.write_text("{\n" + line[1:])
    assert read_json_file(doc) == expected


def test_many_corrupt_lines_are_counted_not_listed(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"nope\n" * 30 + b'{"ok": 1}\n')
    got, warnings = _records(path)
    assert got == [(31, {"ok": 1})]
    assert len(warnings) == 21
    assert warnings[-1].startswith("10 more corrupt lines")


def test_gzip_file_is_read_transparently(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"a": 1}\n{"b": 2}\n'))
    got, _ = _records(path)
    assert got == [(1, {"a": 1}), (2, {"b": 2})]


def test_gzip_json_document_is_read(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(gzip.compress(b'{"messages": []}'))
    assert read_json_file(path) == {"messages": []}


def test_zstd_file_is_read_or_refused_with_a_message(tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard")
    path = tmp_path / "s.jsonl.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(b'{"a": 1}\n'))
    got, _ = _records(path)
    assert got == [(1, {"a": 1})]


def test_zstd_without_the_package_is_refused_clearly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "zstandard", None)
    path = tmp_path / "s.jsonl.zst"
    path.write_bytes(b"\x28\xb5\x2f\xfd" + b"\x00" * 16)
    with pytest.raises(SessionLoadError, match="zstandard"), open_file(path) as source:
        source.stream()


def test_read_json_accepts_a_bom(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(b'\xef\xbb\xbf{"a": [1, 2]}\r\n')
    assert read_json_file(path) == {"a": [1, 2]}


def test_read_json_reports_line_of_a_syntax_error(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_text('{\n  "a": 1,\n  "b": ]\n}\n')
    with pytest.raises(SessionLoadError) as info:
        read_json_file(path)
    assert info.value.line == 3
    assert "column" in str(info.value)


def _head(path: Path) -> object:
    with open_file(path) as source:
        return read_head(source)


def test_head_of_pretty_document_is_the_whole_document(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_text('{\n  "messages": []\n}\n')
    assert _head(path) == {"messages": []}


def test_head_of_jsonl_is_its_first_record(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"a": 1}\n{"b": 2}\n')
    assert _head(path) == {"a": 1}


def test_head_skips_a_corrupt_first_jsonl_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"a": broken\n{"b": 2}\n{"c": 3}\n')
    assert _head(path) == {"b": 2}


def test_iter_values_tells_a_document_from_jsonl(tmp_path: Path) -> None:
    doc = tmp_path / "doc.json"
    doc.write_text('[\n {"x": 1}\n]\n')
    lines = tmp_path / "s.jsonl"
    lines.write_text('{"x": 1}\n{"x": 2}\n')
    with open_file(doc) as one, open_file(lines) as many:
        assert [r.value for r in iter_values(one, [])] == [[{"x": 1}]]
        assert [r.value for r in iter_values(many, [])] == [{"x": 1}, {"x": 2}]


# --- the fast document path (pydantic-core's parser) and its stdlib fallback ----------------


def _depth_cases(n: int) -> dict[str, tuple[str, int]]:
    """Documents nesting ``n`` and ``n + 1`` levels by the reader's count, in every shape."""
    return {
        f"arrays {n}": ("[" * n + "]" * n, n),
        f"arrays {n + 1}": ("[" * (n + 1) + "]" * (n + 1), n + 1),
        f"objects {n}, empty innermost": ('{"a":' * (n - 1) + "{}" + "}" * (n - 1), n),
        f"objects {n + 1}, empty innermost": ('{"a":' * n + "{}" + "}" * n, n + 1),
        f"objects {n}, scalar innermost": ('{"a":' * n + "1" + "}" * n, n),
        f"objects {n + 1}, scalar innermost": ('{"a":' * (n + 1) + "1" + "}" * (n + 1), n + 1),
        f"mixed {n + 1} via a sibling": ('{"b":[],"a":' * n + "1" + "}" * n, n + 1),
    }


# pydantic-core stops at 200 levels and the reader at MAX_DEPTH: both edges, on both paths.
_DEPTH_CASES = {**_depth_cases(200), **_depth_cases(_reader.MAX_DEPTH)}


@pytest.mark.parametrize("name", sorted(_DEPTH_CASES))
@pytest.mark.parametrize("fast", [True, False], ids=["fast", "stdlib"])
@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gzip"])
def test_depth_limit_is_exact_on_every_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, fast: bool, compressed: bool
) -> None:
    """pydantic-core counts nesting its own way; the reader's limit must not move."""
    if not fast:
        monkeypatch.setattr(_reader, "_fast_json", lambda: None)
    text, levels = _DEPTH_CASES[name]
    path = tmp_path / "doc.json"
    data = text.encode()
    path.write_bytes(gzip.compress(data) if compressed else data)
    if levels > _reader.MAX_DEPTH:
        with pytest.raises(SessionLoadError, match=f"deeper than {_reader.MAX_DEPTH} levels"):
            read_json_file(path)
    else:  # parsed and compared with room for the recursion 1,000 levels take
        assert deep_call(operator.eq, read_json_file(path), deep_call(json.loads, text))


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a": [1, 2.5, -0.0, 1e400, NaN, 123456789012345678901234567890], "b": null}',
        b'{"k": 1, "k": 2, "s": "\\ud83d\\ude00 \\u00e9 \\n\\t\\"\\\\/"}',
        '["caf\u00e9", "\u4e2d\u6587", {"": true, "x": false}]'.encode(),
        b"  \r\n [ ] \n",
    ],
)
def test_fast_and_stdlib_paths_give_equal_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, raw: bytes
) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(raw)
    fast = read_json_file(path)
    monkeypatch.setattr(_reader, "_fast_json", lambda: None)
    slow = read_json_file(path)
    assert repr(fast) == repr(slow)  # repr: NaN != NaN, and -0.0 == 0.0 would hide a sign
    assert repr(slow) == repr(json.loads(raw))


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"[1], [2]", "more JSON after the first value"),  # one value each, not one document
        (b'{"a": 1} {"b": 2}', "more JSON after the first value"),
        (b'{"a": 1}}', "more text after the end of the document"),  # not more JSON
        (b'{"a": 1},', "more text after the end of the document"),
        (b"", "empty file"),
        (b" \n ", "empty file"),
        (b"5", "found a JSON number"),
        (b'["\x01"]', "binary data"),
        (b'{"a": "\xff"}', "invalid byte 0xff"),
        (b'{"a": "\\x"}', "Invalid \\\\escape"),
    ],
)
def test_documents_the_fast_parser_refuses_get_the_stdlib_wording(
    tmp_path: Path, raw: bytes, message: str
) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(raw)
    with pytest.raises(SessionLoadError, match=message):
        read_json_file(path)


def test_lone_surrogate_in_a_document_is_scrubbed(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(b'{"a": "x\\ud800y", "b": ["\\udc00"]}')
    assert read_json_file(path) == {"a": "x\ufffdy", "b": ["\ufffd"]}


def test_a_plain_document_is_parsed_without_walking_its_containers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file's bytes go to jiter as they are, and its own depth limit stands in for the
    walk of every container (``_FastJson.bare_depth``); the edges are pinned above."""
    path = tmp_path / "doc.json"
    path.write_bytes(b'{"a": [1, [2, {"c": 3}]], "b": "whole"}')

    def walked(value: object, limit: int = _reader.MAX_DEPTH) -> bool:
        raise AssertionError("the fast path walked the document")

    monkeypatch.setattr(_reader, "depth_exceeds", walked)
    assert read_json_file(path) == {"a": [1, [2, {"c": 3}]], "b": "whole"}


def test_gc_paused_nests_and_restores_the_collector() -> None:
    was = gc.isenabled()
    gc.enable()
    try:
        with _reader.gc_paused():
            assert not gc.isenabled()
            with _reader.gc_paused():
                assert not gc.isenabled()
            assert not gc.isenabled(), "the inner pause must not switch it back on"
        assert gc.isenabled()
        gc.disable()
        with _reader.gc_paused():
            pass
        assert not gc.isenabled(), "a collector that was off stays off"
    finally:
        if was:
            gc.enable()
        else:
            gc.disable()


def test_gc_paused_keeps_another_freeze_and_files_what_it_built_with_it() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with _reader.gc_paused():
            keep = [[] for _ in range(10)]
        # the earlier freeze stands, and the lists built meanwhile are not left young
        assert gc.get_freeze_count() >= frozen + len(keep)
    finally:
        gc.unfreeze()


def test_gc_paused_leaves_nothing_frozen_when_nothing_was() -> None:
    gc.unfreeze()
    with _reader.gc_paused():
        keep = [[] for _ in range(10)]
    assert gc.get_freeze_count() == 0 and keep


def test_gc_paused_resumes_after_an_error() -> None:
    was = gc.isenabled()
    gc.enable()
    try:
        with pytest.raises(ValueError), _reader.gc_paused():
            raise ValueError("boom")
        assert gc.isenabled()
    finally:
        if not was:
            gc.disable()


def test_this_pydantic_core_spares_both_checks() -> None:
    """The tests above run the fast path only if the probe vouches for it; say so if not."""
    fast = _reader._fast_json()
    assert fast is not None and (fast.depth, fast.bare_depth, fast.surrogates) == (True,) * 3


def test_jsonl_lines_give_the_same_records_and_warnings_on_both_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Clean lines go through pydantic-core, the rest through the stdlib; nothing may differ."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        b"\xef\xbb\xbf"
        + b"\r\n".join(
            [
                b'{"a": 1}',
                b"",
                b'{"a": 1}{"b": 2}',
                b'{"a": 1},{"b": 2}',
                b"[1],[2]",
                b'{"s": "\xff"}',
                b'{"s": "x\\ud800"}',
                b'{"s": "\\ud83d\\ude00", "k": 1, "k": 2}',
                b"[" * 200 + b"]" * 200,
                b"[" * 201 + b"]" * 201,
                b"5",
                b'{"b": ',
            ]
        )
        + b'\r\n{"cut": '
    )
    fast = _records(path)
    monkeypatch.setattr(_reader, "_fast_json", lambda: None)
    assert repr(fast) == repr(_records(path))


def test_a_jsonl_transcript_is_read_with_the_collector_paused(tmp_path: Path) -> None:
    """``load_session`` pauses the collector for every format, JSONL streams included: no
    collection runs while the records and messages pile up."""
    from ctxtui.importers import load_session

    path = tmp_path / "rollout.jsonl"
    lines = [
        {"timestamp": "2025-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": "s"}},
        *(
            {
                "timestamp": "2025-01-01T00:00:01Z",
                "type": "response_item",
                "payload": {"type": "message", "role": "user", "content": f"hello {i}"},
            }
            for i in range(3000)
        ),
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    runs: list[str] = []

    def note(phase: str, info: dict[str, int]) -> None:
        runs.append(phase)

    was = gc.isenabled()
    gc.enable()
    gc.callbacks.append(note)
    try:
        session = load_session(path)
    finally:
        gc.callbacks.remove(note)
        if not was:
            gc.disable()
    assert len(session.messages) == 3000
    assert runs == []
