"""A seeded mutation fuzzer over every bundled sample and reference example (issue 9).

Each seed file is shrunk to a few records (the shapes matter, not the bulk), then mutated
by type swaps, truncations, byte flips, absurd numbers, deep nesting and joined lines, and
given to the CLI's ``main()`` in process. Whatever the mutant, the promise holds: exit 0, 1
or 2, never a traceback, exactly one stderr line on exit 2, and the source directory left
byte for byte as it was. A few mutants also run as real processes, for the real exit codes.

The budget is fixed (``CTXTUI_FUZZ_CASES`` mutants per seed, default 5, a few seconds in
all); raise it locally to hunt: ``CTXTUI_FUZZ_CASES=200 pytest tests/test_fuzz_inputs.py``,
with ``CTXTUI_FUZZ_ROUND=b`` (any word) for another draw.
Every failure names the seed file and the case number, which replay it exactly.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli.main import main
from ctxtui.importers import FORMAT_NAMES
from ctxtui.samples import samples_dir

CASES = int(os.environ.get("CTXTUI_FUZZ_CASES", "5"))
ROUND = os.environ.get("CTXTUI_FUZZ_ROUND", "")
"""Set to any word to draw other mutants than CI's (a case replays by seed, round and number)."""
EXAMPLES = Path("/work/shared/reference/examples")
KEEP_RECORDS = 10
"""Records (messages, lines) a seed is shrunk to before mutating."""


def _seeds() -> list[Path]:
    found = sorted(p for p in samples_dir().iterdir() if p.suffix in (".json", ".jsonl"))
    found = [p for p in found if not p.name.endswith(".meta.json")]
    if EXAMPLES.is_dir():  # the test examples, where this machine has them
        found += sorted(p for p in EXAMPLES.iterdir() if not p.name.endswith(".meta.json"))
    return found


# --- shrinking a seed ------------------------------------------------------------------------


def _shrink_value(value: Any) -> Any:
    """A document with its long lists cut to their first ``KEEP_RECORDS`` items."""
    if isinstance(value, list):
        return [_shrink_value(v) for v in value[:KEEP_RECORDS]]
    if isinstance(value, dict):
        return {k: _shrink_value(v) for k, v in value.items()}
    return value


def _shrunk(seed: Path) -> bytes:
    data = seed.read_bytes()
    if seed.suffix == ".jsonl":
        return b"".join(data.splitlines(keepends=True)[: KEEP_RECORDS * 2])
    if seed.suffix == ".json":
        return json.dumps(_shrink_value(json.loads(data)), ensure_ascii=False).encode()
    return data


def _place(seed: Path, case_dir: Path) -> Path:
    """The seed, shrunk, in a directory of its own (with its sidecar); the path to open."""
    target = case_dir / seed.name
    if seed.is_dir():
        shutil.copytree(seed, target)
        return target
    target.write_bytes(_shrunk(seed))
    meta = seed.with_name(seed.name.removesuffix(".jsonl") + ".meta.json")
    if seed.suffix == ".jsonl" and meta.is_file():
        (case_dir / meta.name).write_bytes(meta.read_bytes())
    return target


# --- mutations -------------------------------------------------------------------------------

_ODD_VALUES: list[Any] = [
    None,
    True,
    "",
    "x" * 3000,
    "\x1b[31m[b]red[/b]\u202e\ud800",
    [],
    {},
    [[[]]],
    {"role": {"role": []}},
    -1,
    0.5,
]
_HUGE_NUMBERS = ["1e400", "-1e400", "Infinity", "-Infinity", "NaN", "1" + "0" * 5000, "1e308"]


def _nodes(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            found += _nodes(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += _nodes(v, (*path, i))
    return found


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = _replace(value[head], rest, new)
    return copy


_MARK = "__ctxtui_fuzz_number__"


def _swap_in_json(rng: random.Random, text: str) -> str:
    """One node of a JSON value replaced by a value of another type or an absurd number."""
    value = json.loads(text)
    path = rng.choice(_nodes(value))
    roll = rng.random()
    if roll < 0.35:
        return json.dumps(_replace(value, path, _MARK)).replace(
            f'"{_MARK}"', rng.choice(_HUGE_NUMBERS)
        )
    if roll < 0.45:
        levels = rng.choice([250, 990, 1100])
        nested = '{"a":' * levels + "1" + "}" * levels
        return json.dumps(_replace(value, path, _MARK)).replace(f'"{_MARK}"', nested)
    return json.dumps(_replace(value, path, rng.choice(_ODD_VALUES)))


def _type_swap(rng: random.Random, data: bytes, suffix: str) -> bytes:
    if suffix == ".json":
        return _swap_in_json(rng, data.decode()).encode()
    lines = data.split(b"\n")
    full = [i for i, line in enumerate(lines) if line.strip()]
    if not full:
        return data
    i = rng.choice(full)
    try:
        lines[i] = _swap_in_json(rng, lines[i].decode()).encode()
    except ValueError:
        return data
    return b"\n".join(lines)


def _truncate(rng: random.Random, data: bytes, suffix: str) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def _flip_bytes(rng: random.Random, data: bytes, suffix: str) -> bytes:
    if not data:
        return data
    out = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        out[rng.randrange(len(out))] = rng.choice([0x00, 0xFF, 0x80, 0x22, 0x7B, 0x5D, 0x0A])
    return bytes(out)


def _keep(rng: random.Random, data: bytes, suffix: str) -> bytes:
    return data


def _join_lines(rng: random.Random, data: bytes, suffix: str) -> bytes:
    """Crash-and-append: newlines dropped, so several values share a line."""
    return data.replace(b"\n", b"", rng.randint(1, 5))


_MUTATORS: list[Callable[[random.Random, bytes, str], bytes]] = [
    _type_swap,
    _type_swap,
    _truncate,
    _flip_bytes,
    _join_lines,
]


def _mutate(rng: random.Random, target: Path) -> str:
    """Mutate the seed in place (one file of a directory seed); returns what was done."""
    victim = target
    if target.is_dir():
        victim = rng.choice(sorted(p for p in target.rglob("*") if p.is_file()))
    elif rng.random() < 0.2:  # now and then the sidecar (a PicoClaw .meta.json), if any
        victim = rng.choice(sorted(p for p in target.parent.iterdir() if p.is_file()))
    data = victim.read_bytes()
    binary = victim.suffix not in (".json", ".jsonl")
    mutator = rng.choice(_MUTATORS[2:4] if binary else _MUTATORS)
    mutated = mutator(rng, data, victim.suffix)
    what = f"{mutator.__name__} of {victim.name}"
    if not binary and rng.random() < 0.25:  # the same, compressed (and maybe damaged)
        packed = gzip.compress(mutated) if rng.random() < 0.5 else _zstd(mutated)
        mutated = rng.choice([_truncate, _flip_bytes, _keep])(rng, packed, "")
        what += ", compressed"
    victim.write_bytes(mutated)
    return what


def _zstd(data: bytes) -> bytes:
    import zstandard

    return zstandard.ZstdCompressor().compress(data)


# --- the promise -----------------------------------------------------------------------------


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _run(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's own exits
            code = exc.code if isinstance(exc.code, int) else 2
    return code, err.getvalue()


def _check(argv: list[str], code: int, err: str, where: str) -> None:
    assert code in (0, 1, 2), f"{where}: exit {code}"
    assert "Traceback" not in err, f"{where}: {err}"
    if code == 2:
        assert len(err.splitlines()) == 1, f"{where}: stderr is not one line: {err!r}"


@pytest.mark.parametrize("seed", _seeds(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_mutants_keep_the_promise(seed: Path, tmp_path: Path) -> None:
    for case in range(CASES):
        rng = random.Random(f"{seed.name}:{ROUND}{case}")
        case_dir = tmp_path / f"case{case}"
        case_dir.mkdir()
        target = _place(seed, case_dir)
        what = _mutate(rng, target)
        before = _digest(case_dir)
        out = tmp_path / f"out{case}.json"
        forced = rng.choice(FORMAT_NAMES)
        for argv in (
            ["report", str(target)],
            ["report", str(target), "--json", "--context-window", "2000"],
            ["report", str(target), "--format", forced],
            ["compact", str(target), "-o", str(out), "--context-window", "2000"],
        ):
            where = f"{seed.name} case {case} ({what}): ctxtui {' '.join(argv[:1] + argv[2:])}"
            try:
                code, err = _run(argv)
            except Exception:
                pytest.fail(f"{where}: raised\n{traceback.format_exc()}")
            _check(argv, code, err, where)
        assert _digest(case_dir) == before, f"{seed.name} case {case}: the source changed"


def test_real_processes_exit_with_the_real_codes(tmp_path: Path) -> None:
    """In process, exit codes are return values; here they are the process's own."""
    demo = samples_dir() / "demo.json"
    cases = {
        "good.json": _shrunk(demo),
        "cut.json": _shrunk(demo)[:-40],
        "huge.json": b'{"n": 1'
        + b"0" * 5000
        + b', "messages": [{"role": "user", "content": "x"}]}',
        "bad.jsonl.zst": b"\x28\xb5\x2f\xfd" + bytes(range(200)),
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
    before = _digest(tmp_path)
    for name in cases:
        done = subprocess.run(
            [sys.executable, "-m", "ctxtui", "report", str(tmp_path / name)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        _check([], done.returncode, done.stderr, name)
        assert (done.returncode == 0) == (name in ("good.json", "huge.json")), done.stderr
    assert _digest(tmp_path) == before


# --- hostile environments (issue 25) ----------------------------------------------------------


def _environments(tmp_path: Path) -> dict[str, tuple[dict[str, str], dict[str, Any]]]:
    """Each hostile state of the process's surroundings: extra variables, ``Popen`` options."""
    config = tmp_path / "config"
    (config / "ctxtui").mkdir(parents=True)
    os.mkfifo(config / "ctxtui" / "config.json")
    zero = tmp_path / "zero-config"
    (zero / "ctxtui").mkdir(parents=True)
    (zero / "ctxtui" / "config.json").symlink_to("/dev/zero")
    return {
        "closed stdout": ({}, {"preexec_fn": lambda: os.close(1)}),
        "full stdout": ({}, {"stdout": "/dev/full"}),
        "FIFO config": ({"XDG_CONFIG_HOME": str(config)}, {}),
        "/dev/zero config": ({"XDG_CONFIG_HOME": str(zero)}, {}),
        "bad CTXTUI_ JSON": ({"CTXTUI_KEYS": "{bad", "CTXTUI_LLM": "[" * 5000}, {}),
        "bad OPENAI_BASE_URL": ({"OPENAI_BASE_URL": "http://[::1:18080/v1\x1b]0;x\x07"}, {}),
    }


_HOSTILE_COMMANDS = [
    ["report", "{demo}"],
    ["compact", "{demo}", "--summarizer", "openai", "--llm-model", "m"],
    ["compact", "{demo}", "--summarizer", "openai", "--llm-model", "m",
     "--llm-base-url", "http://127.0.0.1:abc/v1"],
    ["formats"],
    ["serve", "--port", "70000"],
    ["serve", "--host", "999.1.1.1", "--port", "0"],
    ["presets", "--json"],
]  # fmt: skip


def test_hostile_environments_keep_the_promise(tmp_path: Path) -> None:
    """Real processes in each hostile environment, a seeded draw of commands each."""
    demo = str(samples_dir() / "demo.json")
    home = tmp_path / "home"
    home.mkdir()
    for name, (extra, options) in _environments(tmp_path).items():
        rng = random.Random(f"{name}:{ROUND}")
        for argv in rng.sample(_HOSTILE_COMMANDS, 2):
            argv = [a.replace("{demo}", demo) for a in argv]
            env = {**os.environ, "HOME": str(home), **extra}
            env.pop("OPENAI_API_KEY", None)
            kwargs = dict(options)
            stdout = kwargs.pop("stdout", None)
            with open(stdout or os.devnull, "w") as out:
                done = subprocess.run(
                    [sys.executable, "-m", "ctxtui", *argv],
                    stdout=out,
                    stderr=subprocess.PIPE,
                    text=True,
                    timeout=60,
                    env=env,
                    **kwargs,
                )
            where = f"{name}: ctxtui {' '.join(argv[:1] + argv[2:])}"
            _check(argv, done.returncode, done.stderr, where)
            assert "\x1b" not in done.stderr and "\x07" not in done.stderr, where
