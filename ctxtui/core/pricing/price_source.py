"""Where ctxtui's dollar figures come from, in words; cheap to import (``--help`` says it)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

PRICE_PACKAGE = "genai-prices"
try:
    PRICE_VERSION = version(PRICE_PACKAGE)
except PackageNotFoundError:  # pragma: no cover - a required dependency
    PRICE_VERSION = "missing"
PRICE_SOURCE = f"{PRICE_PACKAGE} {PRICE_VERSION} (offline table bundled with the package)"
"""Named in ``--help``, the JSON's ``price_source`` and docs/cost.md."""
PRICE_NOTE = (
    f"Dollars come from the offline price table of {PRICE_PACKAGE} {PRICE_VERSION}, at the "
    "price in force on each request's date; a model it lacks costs null, with a warning "
    "naming it (docs/cost.md)."
)
