"""Where the bundled sample sessions live, in a checkout and in an installed wheel.

The wheel ships them as ``ctxtui/sample_sessions`` (hatch ``force-include``); a checkout has
them at the repository root.
"""

from __future__ import annotations

from pathlib import Path

DEMO_NAME = "demo.json"

_PACKAGE_DIR = Path(__file__).resolve().parent


def _candidates() -> tuple[Path, ...]:
    """The installed copy first (it matches the installed code), then the checkout's."""
    return (_PACKAGE_DIR / "sample_sessions", _PACKAGE_DIR.parent / "sample_sessions")


def samples_dir() -> Path:
    """The directory holding the sample sessions; ``FileNotFoundError`` naming every place
    looked in, so a broken install says what is missing."""
    for path in _candidates():
        if path.is_dir():
            return path
    looked = ", ".join(str(p) for p in _candidates())
    raise FileNotFoundError(
        f"ctxtui's sample sessions are missing (looked in: {looked}); "
        "reinstall ctxtui or run from a source checkout"
    )


def demo_session_path() -> Path:
    """The bundled demo session that ``ctxtui`` opens when given no session."""
    path = samples_dir() / DEMO_NAME
    if not path.is_file():
        raise FileNotFoundError(
            f"the bundled demo session {path} is missing; reinstall ctxtui, or restore "
            "sample_sessions/ from git in a source checkout"
        )
    return path


def install_dirs() -> tuple[Path, ...]:
    """Where ctxtui itself lives: the installed package, and the source checkout around it
    (a directory holding ``pyproject.toml`` above the package). Nothing of the user's
    belongs in either, so an export never defaults into them."""
    dirs = [_PACKAGE_DIR]
    if (_PACKAGE_DIR.parent / "pyproject.toml").is_file():
        dirs.append(_PACKAGE_DIR.parent)
    return tuple(dirs)


def inside_install(path: Path) -> bool:
    """Whether ``path`` (resolved) is ctxtui's package or source tree, or inside either."""
    resolved = path.resolve()
    return any(resolved == d or resolved.is_relative_to(d) for d in install_dirs())
