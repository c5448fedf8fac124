"""Issue 9's crashes: absurd numbers, corrupt streams, damaged SQLite, deep nesting, long lines.

Each input is built here and must load (keeping what is sound) or be refused with one line
naming the file, never a traceback.
"""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import zstandard

from ctxtui.core.errors import SessionLoadError
from ctxtui.core.session.json_depth import MAX_DEPTH
from ctxtui.importers import _reader, load_session
from ctxtui.importers._jsonl import iter_records
from ctxtui.importers._parts import as_int, normalise_usage, tool_definition
from ctxtui.importers._reader import read_json_file
from ctxtui.importers._stream import Dropped, open_file

HUGE = "1" + "0" * 5000
"""An integer past CPython's 4,300-digit limit for ``int`` <-> ``str``."""


def _refusal(path: Path, format: str | None = None) -> str:
    with pytest.raises(SessionLoadError) as info:
        load_session(path, format)
    message = str(info.value)
    assert "\n" not in message and message.startswith(str(path)), message
    assert "Error:" not in message and "Error(" not in message, "no exception class names"
    return message


def _chat(usage: str, content: str = '"hi"') -> str:
    return (
        '{"messages": [{"role": "user", "content": ' + content + "}, "
        '{"role": "assistant", "content": "yes"}], '
        '"usage": {"prompt_tokens": ' + usage + ', "completion_tokens": 3}}'
    )


# --- item 7: usage fields holding inf, NaN, huge numbers ---------------------------------


@pytest.mark.parametrize("value", ["1e400", "-1e400", "Infinity", "NaN", HUGE, "1e13", "-5"])
def test_absurd_usage_is_dropped_and_the_rest_kept(tmp_path: Path, value: str) -> None:
    path = tmp_path / "chat.json"
    path.write_text(_chat(value))
    session = load_session(path)
    assert [m.role for m in session.messages] == ["user", "assistant"]
    usage = session.messages[-1].usage
    assert usage is not None
    assert usage.prompt_total is None, "the absurd count is dropped"
    assert usage.output == 3, "the sound count beside it is kept"
    assert session.meta.warnings == (
        "1 token counts ignored: not finite, negative or over 1,000,000,000,000",
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [(12, 12), (12.9, 12), (0, 0), (10**12, 10**12), (10**12 + 1, None), (float("inf"), None)],
)
def test_as_int_keeps_counts_and_drops_what_is_not_one(value: Any, expected: int | None) -> None:
    assert as_int(value, Dropped()) == expected
    nan, true, text = float("nan"), True, "5"
    assert as_int(nan, Dropped()) is None and as_int(true, Dropped()) is None
    assert as_int(text, Dropped()) is None


@pytest.mark.parametrize(
    "usage",
    [
        {"input_tokens": float("inf"), "cache_read_input_tokens": 5, "output_tokens": 1},
        {"input_tokens": float("inf"), "cached_input_tokens": 5, "output_tokens": 1},
        {"input": float("inf"), "cache": {"read": 5, "write": 0}, "output": 1},
        {"input_tokens": float("inf"), "output_tokens": 1},
    ],
)
def test_every_usage_shape_drops_an_infinite_count(usage: dict[str, Any]) -> None:
    normalised = normalise_usage(usage, Dropped())
    assert normalised is not None
    assert normalised.prompt_total is None and normalised.output == 1


def test_infinite_usage_in_a_claude_code_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    user: dict[str, Any] = {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s"}
    user["message"] = {"role": "user", "content": "hi"}
    reply: dict[str, Any] = {"type": "assistant", "uuid": "a1", "parentUuid": "u1"}
    reply["message"] = {
        "id": "m1",
        "role": "assistant",
        "model": "claude-x",
        "content": [{"type": "text", "text": "yes"}],
        "usage": {"input_tokens": "INF", "output_tokens": 4},
    }
    path.write_text(json.dumps(user) + "\n" + json.dumps(reply).replace('"INF"', "Infinity") + "\n")
    session = load_session(path, "claude-code")
    assert [m.content for m in session.messages] == ["hi", "yes"]
    usage = session.messages[1].usage
    assert usage is not None and usage.prompt_total is None and usage.output == 4
    assert any(w.startswith("1 token counts ignored") for w in session.meta.warnings)


def test_only_numbers_out_of_range_count_as_dropped() -> None:
    dropped = Dropped()
    assert as_int(-1, dropped) is None and as_int(float("nan"), dropped) is None
    assert as_int("x", dropped) is None and as_int(5, dropped) == 5
    assert dropped.count == 2, "numbers out of range count; other types do not"


# --- item 8: integers past the 4,300-digit limit, wherever JSON is parsed ----------------


def test_huge_integer_in_a_document_field_nobody_reads(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(_chat("7").replace('"messages"', '"seed": ' + HUGE + ', "messages"'))
    session = load_session(path)
    assert [m.content for m in session.messages] == ["hi", "yes"]
    assert session.messages[-1].usage is not None
    assert session.messages[-1].usage.prompt_total == 7


def test_huge_integer_in_tool_arguments_is_kept_as_text(tmp_path: Path) -> None:
    call = '{"id": "c1", "type": "function", "function": {"name": "f", "arguments": {"n": '
    path = tmp_path / "chat.json"
    path.write_text(
        '{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", '
        '"tool_calls": [' + call + HUGE + "}}}]}]}"
    )
    session = load_session(path)
    assert session.messages[1].tool_calls[0].arguments == '{"n":Infinity}'


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "stdlib"])
def test_huge_integer_on_a_jsonl_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast: bool
) -> None:
    if not fast:
        monkeypatch.setattr(_reader, "_fast_json", lambda: None)
    path = tmp_path / "chat.jsonl"
    path.write_text(
        '{"role": "user", "content": "hi", "n": ' + HUGE + "}\n"
        '{"role": "assistant", "content": "yes"}\n'
    )
    warnings: list[str] = []
    records = records_of(path, warnings)
    assert [r.value["content"] for r in records] == ["hi", "yes"]
    assert records[0].value["n"] == float("inf") and warnings == []
    assert [m.content for m in load_session(path).messages] == ["hi", "yes"]


def test_huge_integer_inside_tool_arguments_held_as_a_string(tmp_path: Path) -> None:
    path = tmp_path / "share.json"
    convo = [
        {"from": "human", "value": "hi"},
        {"from": "gpt", "value": "yes"},
    ]
    tools = '[{"name": "f", "parameters": {"type": "object", "default": ' + HUGE + "}}]"
    path.write_text(json.dumps([{"conversations": convo, "tools": tools}]))
    session = load_session(path, "sharegpt")
    assert [m.content for m in session.messages] == ["hi", "yes"]
    assert [t.name for t in session.tools] == ["f"]
    assert session.tools[0].parameters["default"] == float("inf")


# --- item 9: corrupt and truncated compressed files --------------------------------------

_JSONL = b"".join(
    json.dumps({"role": r, "content": f"message {i} " + "x" * 50}).encode() + b"\n"
    for i, r in enumerate(["user", "assistant"] * 200)
)


def _zstd(data: bytes) -> bytes:
    return zstandard.ZstdCompressor().compress(data)


@pytest.mark.parametrize("kind", ["gzip", "zstd"])
@pytest.mark.parametrize("name", ["s.jsonl", "s.json"])
def test_truncated_compressed_file_says_truncated_not_empty(
    tmp_path: Path, kind: str, name: str
) -> None:
    data = _JSONL if name.endswith("l") else json.dumps({"messages": [1] * 2000}).encode()
    packed = gzip.compress(data) if kind == "gzip" else _zstd(data)
    path = tmp_path / name
    path.write_bytes(packed[: len(packed) // 2])
    message = _refusal(path)
    assert f"truncated compressed data: the file ends inside the {kind} stream" in message
    assert "empty" not in message


@pytest.mark.parametrize("kind", ["gzip", "zstd"])
def test_corrupt_compressed_file_is_one_plain_line(tmp_path: Path, kind: str) -> None:
    packed = bytearray(gzip.compress(_JSONL) if kind == "gzip" else _zstd(_JSONL))
    for offset in (12, len(packed) // 2, len(packed) - 6):
        packed[offset] ^= 0xFF
    path = tmp_path / "s.jsonl"
    path.write_bytes(bytes(packed))
    message = _refusal(path, "openai-chat")
    assert f"corrupt compressed data: bad {kind} stream" in message
    assert "ZstdError" not in message and "zlib" not in message


def test_garbage_after_a_gzip_member_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(gzip.compress(_JSONL) + b"not gzip at all")
    assert "unexpected bytes after the gzip stream" in _refusal(path, "openai-chat")


@pytest.mark.parametrize("kind", ["gzip", "zstd"])
def test_concatenated_members_and_padding_are_read_whole(tmp_path: Path, kind: str) -> None:
    pack = gzip.compress if kind == "gzip" else _zstd
    half = len(_JSONL) // 2
    cut = _JSONL.rindex(b"\n", 0, half) + 1
    path = tmp_path / "s.jsonl"
    path.write_bytes(pack(_JSONL[:cut]) + pack(_JSONL[cut:]) + b"\x00" * 64)
    warnings: list[str] = []
    assert len(records_of(path, warnings)) == 400 and warnings == []


def test_decompression_past_the_cap_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ctxtui.importers import _stream

    monkeypatch.setattr(_stream, "MIN_INFLATE_CAP", 4096)
    monkeypatch.setattr(_stream, "MAX_INFLATE_RATIO", 2)
    path = tmp_path / "s.jsonl"
    path.write_bytes(gzip.compress(_JSONL))
    assert "inflates to more than" in _refusal(path, "openai-chat")


# --- item 10: a SQLite file with a byte-flipped schema -----------------------------------


def test_sqlite_schema_with_invalid_utf8_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "seahorse.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE context_items (id INTEGER PRIMARY KEY, zzzz TEXT)")
    con.execute("CREATE TABLE message_parts (id INTEGER PRIMARY KEY)")
    con.commit()
    con.close()
    data = path.read_bytes()
    at = data.index(b"zzzz")
    path.write_bytes(data[:at] + b"1\xff\xfe\xfd" + data[at + 4 :])  # bad SQL, not UTF-8
    for fmt in (None, "picoclaw", "opencode"):
        message = _refusal(path, fmt)
        assert "malformed database: its schema holds bytes that are not UTF-8" in message
        assert "UnicodeDecodeError" not in message


# --- item 12: wording -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("2024-01-01 12:00:03 started the server\nready\n", "'2024-01-01 12:00:03 star…'"),
        ("12 apples\n13 pears\n", "'12 apples'"),
        ("hello world\n", "'hello world'"),
    ],
)
def test_a_plain_text_log_is_called_plain_text(tmp_path: Path, text: str, quoted: str) -> None:
    path = tmp_path / "server.log"
    path.write_text(text)
    message = _refusal(path)
    assert message.endswith(f":1: expected JSON, found plain text {quoted}")
    assert "JSON number" not in message


# --- item 16: many values on one line are read in linear time ----------------------------


class _CountingPattern:
    """Stands in for a compiled pattern and adds up how much text ``search`` was given."""

    def __init__(self, pattern: Any) -> None:
        self.pattern = pattern
        self.scanned = 0

    def search(self, text: str, pos: int = 0) -> Any:
        self.scanned += len(text) - pos
        return self.pattern.search(text, pos)


def test_a_line_of_many_values_is_scanned_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once per value, the scan of the whole line made 40,000 values take 58 s."""
    counter = _CountingPattern(_reader._SURROGATE_ESCAPE)
    monkeypatch.setattr(_reader, "_SURROGATE_ESCAPE", counter)
    line = "".join(json.dumps({"role": "user", "content": f"m{i}"}) for i in range(2000))
    path = tmp_path / "s.jsonl"
    path.write_text(line + "\n")
    warnings: list[str] = []
    records = records_of(path, warnings)
    assert len(records) == 2000 and warnings == []
    assert records[-1].value == {"role": "user", "content": "m1999"}
    assert counter.scanned <= 2 * len(line)


# --- item 17: valid nesting up to MAX_DEPTH loads, deeper is refused ---------------------


def _nested(levels: int) -> str:
    return '{"a":' * levels + "1" + "}" * levels


def _anthropic_with_tool_input(levels: int) -> str:
    call = '{"type": "tool_use", "id": "t1", "name": "f", "input": ' + _nested(levels) + "}"
    result = '{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}'
    return (
        '{"model": "claude-x", "messages": [{"role": "user", "content": "hi"}, '
        '{"role": "assistant", "content": [' + call + "]}, "
        '{"role": "user", "content": [' + result + "]}]}"
    )


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "stdlib"])
def test_tool_input_nesting_past_the_old_limit_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast: bool
) -> None:
    if not fast:
        monkeypatch.setattr(_reader, "_fast_json", lambda: None)
    levels = MAX_DEPTH - 6  # the document nests 6 levels more than the tool input
    path = tmp_path / "deep.json"
    path.write_text(_anthropic_with_tool_input(levels))
    session = load_session(path)
    call = session.messages[1].tool_calls[0]
    assert call.name == "f" and call.arguments == _nested(levels).replace(" ", "")
    assert [m.role for m in session.messages] == ["user", "assistant", "tool"]


def test_nesting_past_max_depth_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text(_anthropic_with_tool_input(MAX_DEPTH))
    assert f"nesting deeper than {MAX_DEPTH} levels" in _refusal(path)


def test_deep_jsonl_lines_load_and_deeper_ones_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    deep = '{"role": "user", "content": "deep", "x": ' + _nested(MAX_DEPTH - 1) + "}"
    too_deep = '{"role": "user", "content": "x", "x": ' + _nested(MAX_DEPTH) + "}"
    path.write_text(deep + "\n" + too_deep + '\n{"role": "assistant", "content": "ok"}\n')
    warnings: list[str] = []
    records = records_of(path, warnings)
    assert [r.value["content"] for r in records] == ["deep", "ok"]
    assert warnings == [f"line 2: skipped, not valid JSON (nesting deeper than {MAX_DEPTH} levels)"]


def test_a_tool_schema_too_deep_to_walk_is_kept_empty() -> None:
    deep = json.loads(_nested(150))
    assert tool_definition({"name": "f", "parameters": deep}).parameters == deep  # type: ignore[union-attr]
    deeper: Any = {"type": "object"}
    for _ in range(300):
        deeper = {"a": deeper}
    kept = tool_definition({"name": "g", "parameters": deeper})
    assert kept is not None and kept.name == "g" and kept.parameters == {}


def test_absurd_nesting_read_whole_is_refused_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(SessionLoadError, match=f"deeper than {MAX_DEPTH} levels"):
        read_json_file(path)


# --- found by the fuzzer (tests/test_fuzz_inputs.py) -------------------------------------

_DEEP_KIND = _nested(990)


@pytest.mark.parametrize(
    ("format", "document", "expected"),
    [
        (
            "openai-chat",
            '{"messages": [{"role": "user", "content": [{"type": ' + _DEEP_KIND + "}]}]}",
            [("user", "unknown")],
        ),
        (
            "openai-chat",
            '{"messages": [{"role": "user", "content": [{"type": "file", "file": '
            '{"filename": ' + _DEEP_KIND + "}}]}]}",
            [("user", "file")],
        ),
        (
            "openai-responses",
            '{"input": [{"type": "message", "role": "user", "content": [{"type": '
            + _DEEP_KIND
            + "}]}]}",
            [("user", "unknown")],
        ),
    ],
    ids=["chat-part-type", "chat-file-name", "responses-part-type"],
)
def test_a_deeply_nested_kind_is_not_turned_into_a_label(
    tmp_path: Path, format: str, document: str, expected: list[tuple[str, str]]
) -> None:
    """``str()`` of a 990-level object recursed past Python's limit (a traceback)."""
    path = tmp_path / "s.json"
    path.write_text(document)
    session = load_session(path, format)
    assert [(m.role, m.parts[0].label) for m in session.messages] == expected


def test_a_tool_result_name_that_is_not_a_string_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(
        json.dumps(
            {
                "messages": [
                    {"role": "user", "content": "hi"},
                    {"role": "tool", "tool_call_id": "c9", "name": {"x": [1]}, "content": "ok"},
                ]
            }
        )
    )
    session = load_session(path, "openai-chat")
    assert [(m.role, m.content, m.tool_name) for m in session.messages] == [
        ("user", "hi", None),
        ("tool", "ok", None),
    ]


@pytest.mark.parametrize("bad", ["deep", "long"])
@pytest.mark.parametrize(
    ("format", "build", "warning"),
    [
        (
            "openai-chat",
            lambda v: '{"messages": [{"role": "user", "content": "hi"}, {"role": ' + v + "}]}",
            "message 1: unknown role {} skipped",
        ),
        (
            "anthropic",
            lambda v: '{"messages": [{"role": "user", "content": "hi"}, {"role": ' + v + "}]}",
            "message 1: unknown role {} skipped",
        ),
        (
            "openai-responses",
            lambda v: '{"input": [{"role": "user", "content": "hi"}, {"type": ' + v + "}]}",
            "item 1: unknown item type {} skipped",
        ),
        (
            "sharegpt",
            lambda v: (
                '[{"conversations": [{"from": "human", "value": "hi"}, {"from": '
                + v
                + ', "value": "x"}]}]'
            ),
            "message 1: unknown speaker {} skipped",
        ),
    ],
    ids=["chat-role", "anthropic-role", "responses-type", "sharegpt-speaker"],
)
def test_a_warning_quotes_a_bad_value_briefly(
    tmp_path: Path, format: str, build: Any, warning: str, bad: str
) -> None:
    """``{role!r}`` of a 990-level object recursed past Python's limit; of a 100,000-character
    string it made a 100,000-character warning."""
    value, shown = (
        (_nested(990), "an object") if bad == "deep" else ('"' + "r" * 100_000 + '"', "'")
    )
    path = tmp_path / "s.json"
    path.write_text(build(value))
    session = load_session(path, format)
    assert [m.content for m in session.messages] == ["hi"]
    found = [w for w in session.meta.warnings if "unknown" in w]
    assert len(found) == 1 and len(found[0]) < 100, found
    if bad == "long":
        shown = "'" + "r" * 40 + "…'"
    elif format == "sharegpt":  # a speaker is read as text, so an object as its JSON
        shown = "'" + '{"a":' * 8 + "…'"
    expected = warning.format(shown)
    assert found[0] == expected


@pytest.mark.parametrize("window", [10**4200, 10**9, 100])
def test_a_declared_window_out_of_range_is_ignored_with_a_warning(
    tmp_path: Path, window: int
) -> None:
    """It used to be refused as if typed as ``--context-window``, naming a flag never given."""
    from ctxtui.core.session.models import Message, Session, SessionMeta
    from ctxtui.system.export import native_document

    session = Session(
        messages=(Message(role="user", content="hi"),), meta=SessionMeta(context_window=300)
    )
    doc = native_document(session)
    doc["session"]["meta"]["context_window"] = window
    path = tmp_path / "native.json"
    path.write_text(json.dumps(doc))
    loaded = load_session(path)
    assert loaded.meta.context_window is None
    assert [m.content for m in loaded.messages] == ["hi"]
    (warning,) = loaded.meta.warnings
    assert warning.startswith("the file's context window (") and len(warning) < 120
    assert warning.endswith("tokens) is outside 256 to 100,000,000; ignored")


def test_an_unknown_object_is_described_in_one_short_line(tmp_path: Path) -> None:
    """Its keys are quoted cut short and escaped: a key may be 100,000 characters, or hold a
    newline that would break the one-line promise."""
    path = tmp_path / "odd.json"
    path.write_text(json.dumps({"k" * 100_000: 1, "two\nlines": 2, "": 3}))
    message = _refusal(path)
    assert message.endswith(
        "no known format: expected a transcript, found a JSON object with keys: "
        + "k" * 24
        + "…, two⏎lines, ''"
    )


@pytest.mark.parametrize("first", [b"a" * (3 << 20), b"2024-01-01 started\n" + b"more\n" * 10])
def test_plain_text_is_refused_without_reading_the_whole_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: bytes
) -> None:
    """Detection used to parse the whole file as one document to learn it was not JSON; a
    first line longer than the bounded head was read whole, too."""
    from ctxtui.importers import _jsonl

    def whole_file(source: Any) -> Any:
        raise AssertionError("read_json was called on plain text")

    monkeypatch.setattr(_jsonl, "read_json", whole_file)
    path = tmp_path / "server.log"
    path.write_bytes(first)
    assert ":1: expected JSON, found plain text '" in _refusal(path)


def test_a_sqlite_error_quoting_several_lines_of_schema_is_one_line(tmp_path: Path) -> None:
    """SQLite quotes the damaged schema's SQL, newlines and all, in its error message."""
    path = tmp_path / "opencode.db"
    con = sqlite3.connect(path)
    columns = "".join(f", x{i}" for i in range(60))
    con.execute("CREATE TABLE session (id TEXT,\n  title TEXT,\n  note TEXT" + columns + ")")
    con.execute("CREATE TABLE message (id TEXT)")
    con.execute("CREATE TABLE part (id TEXT)")
    con.commit()
    con.close()
    data = path.read_bytes()
    at = data.index(b"(id TEXT,\n")
    path.write_bytes(data[:at] + b'"' + data[at + 1 :])  # an unclosed quote: bad token
    for fmt in (None, "opencode"):
        message = _refusal(path, fmt)
        assert 'unrecognized token: ""id TEXT, title TEXT, note TEXT, x0, x1' in message
        assert message.endswith("…)") and len(message) < len(str(path)) + 250


def test_a_codex_message_role_that_is_an_object_is_counted_not_printed(tmp_path: Path) -> None:
    """``f"message/{role}"`` of a 990-level object recursed past Python's limit."""
    meta = {"type": "session_meta", "payload": {"id": "s1"}}
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    odd = dict(item, role="ROLE")
    lines = [json.dumps({"type": "response_item", "payload": p}) for p in (item, odd)]
    path = tmp_path / "rollout.jsonl"
    path.write_text(
        json.dumps(meta) + "\n" + lines[0] + "\n" + lines[1].replace('"ROLE"', _nested(990)) + "\n"
    )
    session = load_session(path, "codex")
    assert [(m.role, m.content) for m in session.messages] == [("user", "hi")]
    assert session.meta.warnings == ("record types not read: message/an object ×1",)


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gzip"])
def test_a_line_longer_than_the_limit_is_skipped_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compressed: bool
) -> None:
    from ctxtui.importers import _stream

    monkeypatch.setattr(_stream, "MAX_LINE_BYTES", 4096)
    long_line = json.dumps({"role": "user", "content": "x" * 10_000}).encode()
    data = (
        b'{"role": "user", "content": "a"}\n' + long_line + b'\n{"role": "user", "content": "b"}\n'
    )
    path = tmp_path / "s.jsonl"
    path.write_bytes(gzip.compress(data) if compressed else data)
    warnings: list[str] = []
    records = records_of(path, warnings)
    assert [(r.line, r.value["content"]) for r in records] == [(1, "a"), (3, "b")]
    assert warnings == ["line 2: skipped, longer than 4,096 bytes"]


def test_a_cut_off_last_line_longer_than_the_limit_ends_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ctxtui.importers import _stream

    monkeypatch.setattr(_stream, "MAX_LINE_BYTES", 4096)
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"role": "user", "content": "a"}\n{"content": "' + b"y" * 10_000)
    warnings: list[str] = []
    assert [r.value["content"] for r in records_of(path, warnings)] == ["a"]
    assert warnings == ["line 2: skipped, longer than 4,096 bytes"]


def records_of(path: Path, warnings: list[str]) -> list[Any]:
    with open_file(path) as source:
        return list(iter_records(source, warnings))
