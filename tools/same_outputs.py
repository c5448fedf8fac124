"""Check that a refactoring changed no figure: every JSON output per sample, byte for byte.

    python tools/same_outputs.py save DIR    # before: write every output under DIR
    python tools/same_outputs.py check DIR   # after: exit 1 and name each output that differs
    python tools/same_outputs.py check DIR --generated   # also two generated transcripts
    python tools/same_outputs.py check DIR --extra FILE  # also ``replay --json FILE``
    python tools/same_outputs.py save DIR --tree ../before   # another checkout's code and samples

Every bundled sample is run through ``report --json``, ``replay --json``, ``compare --json
--replay``, ``retention --json`` and ``fleet --json --no-cache`` with the installed ``ctxtui``
(the interpreter running this script), so a move of code that must not change behaviour is
checked byte for byte. ``--generated`` adds a Claude Code session and a Codex rollout with
recorded compactions, written at run time into a temporary directory by the bench's generator
(the same bytes every time); ``--extra`` adds ``replay --json`` of any file (a big one: only
replay, the slowest and widest output). A directory saved without an output leaves it
unchecked (a baseline older than the command). Not shipped.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
ROOT = HERE
"""The tree whose code and samples are run (``--tree``); the generator is always this one's."""
COMMANDS: dict[str, list[str]] = {
    "report": ["report", "--json"],
    "replay": ["replay", "--json"],
    "compare": ["compare", "--json", "--replay"],
    "retention": ["retention", "--json"],
    "fleet": ["fleet", "--json", "--no-cache", "--workers", "1"],
}
GENERATED = (("claude-code", 2.5, 7), ("codex", 1.5, 8))
"""(agent, megabytes, seed): big enough for a few recorded compactions, quick to run."""
ENV = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LC_ALL": "C.UTF-8"}


def samples() -> list[Path]:
    """Every bundled session, its meta sidecars and the samples' README excepted."""
    return sorted(
        p
        for p in (ROOT / "sample_sessions").iterdir()
        if p.is_file() and p.name != "README.md" and not p.name.endswith(".meta.json")
    )


def generate(directory: Path) -> list[Path]:
    """The generated transcripts, written into ``directory/generated``."""
    sys.path.insert(0, str(HERE))
    from bench.fleet import write_transcript

    out = directory / "generated"
    return [
        write_transcript(agent, mb, seed, out / f"{agent}-{mb:g}mb-{seed}.jsonl")
        for agent, mb, seed in GENERATED
    ]


def _run(argv: list[str], cwd: Path) -> bytes:
    """Standard output and exit code of ``python -m ctxtui ARGV`` in ``cwd``."""
    done = subprocess.run(
        [sys.executable, "-m", "ctxtui", *argv],
        cwd=cwd,  # paths that read the same anywhere
        capture_output=True,
        check=False,
        env={**ENV, "PYTHONPATH": str(ROOT)},  # this checkout's code
    )
    return done.stdout + f"\nexit {done.returncode}\n".encode()


def outputs(generated: bool, extra: list[Path]) -> dict[str, bytes]:
    """``{"<sample>.<command>": stdout and exit code}`` for every sample and command."""
    found: dict[str, bytes] = {}
    for sample in samples():
        for name, argv in COMMANDS.items():
            found[f"{sample.name}.{name}"] = _run([*argv, f"sample_sessions/{sample.name}"], ROOT)
    if generated:
        with tempfile.TemporaryDirectory(prefix="same-outputs-") as tmp:
            for path in generate(Path(tmp)):
                relative = str(path.relative_to(tmp))
                for name, argv in COMMANDS.items():
                    found[f"{path.name}.{name}"] = _run([*argv, relative], Path(tmp))
    for path in extra:
        found[f"{path.name}.replay"] = _run(["replay", "--json", str(path.resolve())], ROOT)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["save", "check"])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--generated", action="store_true", help="add generated transcripts")
    parser.add_argument("--extra", type=Path, action="append", default=[], help="add a file")
    parser.add_argument("--tree", type=Path, default=HERE, help="the code to run")
    args = parser.parse_args(argv)
    global ROOT
    ROOT = args.tree.resolve()
    now = outputs(args.generated, args.extra)
    if args.mode == "save":
        args.directory.mkdir(parents=True, exist_ok=True)
        for key, data in now.items():
            (args.directory / f"{key}.out").write_bytes(data)
        print(f"saved {len(now)} outputs in {args.directory}")
        return 0
    saved = {k: args.directory / f"{k}.out" for k in now}
    missing = [k for k, p in saved.items() if not p.exists()]
    checked = {k: v for k, v in now.items() if k not in missing}
    differ = [k for k, v in checked.items() if saved[k].read_bytes() != v]
    for key in differ:
        print(f"differs: {key}")
    if missing:
        print(f"not in {args.directory} (unchecked): {', '.join(missing)}")
    print(f"{len(checked) - len(differ)} of {len(checked)} outputs identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
