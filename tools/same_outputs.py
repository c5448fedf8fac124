"""Check that a refactoring changed no figure: the JSON of report, replay and compare per sample.

    python tools/same_outputs.py save DIR    # before: write every output under DIR
    python tools/same_outputs.py check DIR   # after: exit 1 and name each output that differs

Every bundled sample is run through ``report --json``, ``replay --json`` and ``compare --json
--replay`` with the installed ``ctxtui`` (the interpreter running this script), so a move of
code that must not change behaviour is checked byte for byte. Not shipped.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sessions"
COMMANDS: dict[str, list[str]] = {
    "report": ["report", "--json"],
    "replay": ["replay", "--json"],
    "compare": ["compare", "--json", "--replay"],
}


def samples() -> list[Path]:
    """Every bundled session, its meta sidecars and the samples' README excepted."""
    return sorted(
        p
        for p in SAMPLES.iterdir()
        if p.is_file() and p.name != "README.md" and not p.name.endswith(".meta.json")
    )


def outputs() -> dict[str, bytes]:
    """``{"<sample>.<command>": stdout and exit code}`` for every sample and command."""
    found: dict[str, bytes] = {}
    for sample in samples():
        for name, argv in COMMANDS.items():
            done = subprocess.run(
                [sys.executable, "-m", "ctxtui", *argv, f"{SAMPLES.name}/{sample.name}"],
                cwd=SAMPLES.parent,  # this checkout's code, and paths that read the same anywhere
                capture_output=True,
                check=False,
                env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LC_ALL": "C.UTF-8"},
            )
            found[f"{sample.name}.{name}"] = done.stdout + f"\nexit {done.returncode}\n".encode()
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["save", "check"])
    parser.add_argument("directory", type=Path)
    args = parser.parse_args(argv)
    now = outputs()
    if args.mode == "save":
        args.directory.mkdir(parents=True, exist_ok=True)
        for key, data in now.items():
            (args.directory / f"{key}.out").write_bytes(data)
        print(f"saved {len(now)} outputs in {args.directory}")
        return 0
    differ = [k for k, v in now.items() if (args.directory / f"{k}.out").read_bytes() != v]
    for key in differ:
        print(f"differs: {key}")
    print(f"{len(now) - len(differ)} of {len(now)} outputs identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
