"""The app's user settings: a JSON config file plus ``CTXTUI_`` environment variables."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from platformdirs import user_config_dir
from pydantic import BaseModel, Field, PrivateAttr, ValidationError
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
)
from textual.app import App

from ctxtui.core.policies.presets import DEFAULT_PRESET, PRESETS
from ctxtui.importers import NotRegularFileError, decode_error_reason, file_kind, open_regular

CONFIG_FILE_NAME = "config.json"

AnimationLevel = Literal["none", "basic", "full"]

if TYPE_CHECKING:
    PresetName = str
else:  # the presets' names as pydantic's choices, read from the preset table
    PresetName = Literal[tuple(PRESETS)]


class LLMSettings(BaseModel):
    """Who writes the compaction preview's summary when ``s`` is pressed there.

    The same words as ``ctxtui compact``'s flags (``--summarizer openai --llm-base-url
    --llm-model --llm-timeout``); the app's flags override these. The key is never stored here:
    it comes from ``OPENAI_API_KEY``.
    """

    summarizer: Literal["stand-in", "openai"] = "stand-in"
    base_url: str | None = None
    model: str | None = None
    timeout: float | None = None
    allow_http: bool = False

    _config_path: Path | None = PrivateAttr(default=None)

    @property
    def config_path(self) -> Path:
        """The config file an ``llm`` entry goes in: the one the app read (``load_settings``),
        so the advice to set one up names the file itself, not just ``config.json``."""
        return self._config_path or default_config_path()


class AppSettings(BaseSettings):
    """What a user may set once instead of on every launch.

    Environment variables beat the config file, so a one-off ``CTXTUI_THEME=nord ctxtui`` works
    without editing anything; nested fields use ``__`` (``CTXTUI_KEYS__COMPACT=k``).
    """

    model_config = SettingsConfigDict(
        env_prefix="CTXTUI_",
        env_nested_delimiter="__",
        extra="ignore",
        validate_default=True,
    )

    theme: str = Field(default="textual-dark", description="a Textual theme name")
    preset: PresetName = Field(
        default=DEFAULT_PRESET, description="the policy preset to start with"
    )
    tokenizer: str = Field(default="plan", description="tokenizer spec, e.g. tiktoken:o200k_base")
    keys: dict[str, str] = Field(
        default_factory=dict,
        description="binding id -> key(s), e.g. {'compact': 'k', 'help': 'f1,question_mark'}",
    )
    cursor_blink: bool = Field(default=True, description="blink the cursor in inputs")
    animation_level: AnimationLevel = Field(default="full", description="Textual animations")
    llm: LLMSettings = Field(
        default_factory=LLMSettings,
        description="the LLM summary: {'summarizer': 'openai', 'model': ..., 'base_url': ...}",
    )

    _problems: tuple[str, ...] = PrivateAttr(default=())
    reads_environment: ClassVar[bool] = True

    @property
    def problems(self) -> tuple[str, ...]:
        """Every setting that was ignored and why, one line each (empty when all applied)."""
        return self._problems

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # The config file arrives as init kwargs (see load_settings); env must override it.
        return (env_settings, init_settings) if cls.reads_environment else (init_settings,)


def default_config_path() -> Path:
    """Where ``config.json`` lives on this platform (``~/.config/ctxtui`` on Linux)."""
    return Path(user_config_dir("ctxtui")) / CONFIG_FILE_NAME


MAX_CONFIG_BYTES = 256 * 1024
"""The most of a config file read: a real one is a few KB."""


def _read_bounded(path: Path, limit: int) -> bytes:
    """At most ``limit`` bytes of a regular file, opened without blocking (a FIFO at the path
    must not stop the app from starting); ``ValueError`` names anything else found there."""
    try:
        file = open_regular(path)
    except NotRegularFileError as err:
        raise ValueError(f"expected a regular file, found {file_kind(err.mode)}") from None
    with file:
        size = os.fstat(file.fileno()).st_size
        if size > limit:
            raise ValueError(
                f"the file holds {size:,} bytes; a config is a few KB (at most {limit:,} are read)"
            )
        data = file.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"the file grew past {limit:,} bytes while it was read")
    return data


def _read_config(path: Path) -> dict[str, Any]:
    """The file's top-level object; a missing file is an empty config, not an error."""
    try:
        raw = _read_bounded(path, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return {}
    try:
        data = json.loads(raw.decode("utf-8"))
    except RecursionError:
        raise ValueError("the JSON is nested too deeply to be a config") from None
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, found {type(data).__name__}")
    return data


def _one_line(err: Exception) -> str:
    if isinstance(err, ValidationError):
        return "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'config'}: {e['msg']}" for e in err.errors()
        )
    if isinstance(err, json.JSONDecodeError):
        return f"{decode_error_reason(err)} at line {err.lineno} column {err.colno}"
    return str(err).splitlines()[0] if str(err) else type(err).__name__


def _env_problem(err: Exception) -> str:
    """One line on a ``CTXTUI_`` variable that could not be used."""
    if isinstance(err, ValidationError):
        return _one_line(err)
    field = re.search(r'field "(\w+)"', str(err))
    if field is not None:  # pydantic-settings could not parse the variable as JSON
        return f"CTXTUI_{field[1].upper()} is not valid JSON"
    return "a variable is nested too deeply" if isinstance(err, RecursionError) else str(err)


class _Pinned(AppSettings):
    """Settings from explicit values only: the environment is not consulted."""

    reads_environment = False


def valid_fields(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The fields of a config object that hold, and one line per field that does not.

    Each field is judged on its own, so a bad ``preset`` does not cost a good ``theme``;
    a name that is no setting (a typo) is listed with the names that are.
    """
    kept: dict[str, Any] = {}
    bad: list[str] = []
    known = AppSettings.model_fields
    for name, value in data.items():
        if name not in known:
            bad.append(f"{name}: not a setting (the settings: {', '.join(known)})")
            continue
        try:
            _Pinned(**{name: value})  # the environment is not consulted: judge the file alone
        except ValidationError as err:
            bad.append(_one_line(err))
            continue
        kept[name] = value
    return kept, bad


def load_settings(path: Path | None = None) -> AppSettings:
    """Settings from ``path`` (default: the user config file) and the environment.

    A broken file or variable must not stop the app from starting: every valid field of the
    file still applies, and ``settings.problems`` lists each one that was ignored and why.
    Only a file that is not a JSON object at all is ignored whole.
    """
    path = default_config_path() if path is None else path
    problems: list[str] = []
    try:
        data, bad = valid_fields(_read_config(path))
    except (OSError, ValueError) as err:  # JSONDecodeError is a ValueError
        problems.append(f"Ignored {path}: {_one_line(err)}")
        data, bad = {}, []
    problems += [f"Ignored in {path}: {line}" for line in bad]
    try:
        settings: AppSettings = AppSettings(**data)
    except (ValidationError, SettingsError, RecursionError) as err:
        problems.append(f"Ignored the CTXTUI_ environment: {_env_problem(err)}")
        settings = _Pinned(**data)
    settings._problems = tuple(problems)
    settings.llm._config_path = path
    return settings


DETERMINISTIC_CONFIG_PATH = Path("~/.config/ctxtui/config.json")
"""The config file as tests and snapshots name it: the same on every machine and user."""


def deterministic_settings(**overrides: Any) -> AppSettings:
    """Settings for tests and snapshots: nothing blinks, animates, or depends on the host.

    Neither the user's config file nor ``CTXTUI_`` variables can leak into a test run, and
    the config file's path is ``DETERMINISTIC_CONFIG_PATH``, never this machine's.
    """
    values: dict[str, Any] = {
        "theme": "textual-dark",
        "preset": "plan",
        "tokenizer": "plan",  # the offline estimator: no network, same counts everywhere
        "keys": {},
        "cursor_blink": False,
        "animation_level": "none",
        "llm": {},
    }
    values.update(overrides)
    settings = _Pinned(**values)
    settings.llm._config_path = DETERMINISTIC_CONFIG_PATH
    return settings


def apply_settings(
    app: App[Any], settings: AppSettings, keymap: dict[str, str] | None = None
) -> list[str]:
    """Put the look-and-feel settings on a running app; return notices for what was skipped.

    Presets and tokenizers are the app's own state and stay with it; this only sets what
    Textual owns (theme, keymap, animations), so it can run in ``on_mount`` of any app.
    ``keymap`` is the ``keys`` setting as the action registry resolved it (``actions.remap``).
    """
    notices: list[str] = []
    if settings.theme in app.available_themes:
        app.theme = settings.theme
    else:
        notices.append(f"Unknown theme {settings.theme!r}; keeping {app.theme!r}")
    app.animation_level = settings.animation_level
    app.set_keymap(settings.keys if keymap is None else keymap)
    return notices
