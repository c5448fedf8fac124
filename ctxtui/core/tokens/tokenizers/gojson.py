"""Go's ``json.Marshal`` output for decoded JSON values, so tool schemas weigh what Go sends.

PicoClaw charges a tool definition by its marshalled parameters' bytes; Go sorts keys, adds no
spaces, escapes ``<`` ``>`` ``&`` U+2028 U+2029, and prints floats shortest, without ``.0``
and without exponents between 1e-6 and 1e21.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

_GO_ESCAPES = (
    ("<", "\\u003c"),
    (">", "\\u003e"),
    ("&", "\\u0026"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)


def go_string(text: str) -> str:
    """A JSON string literal as Go's encoder writes it (HTML-safe escaping on)."""
    out = json.dumps(text, ensure_ascii=False)
    for raw, escaped in _GO_ESCAPES:
        if raw in out:
            out = out.replace(raw, escaped)
    return out


def go_float(value: float) -> str:
    """A float64 as Go's encoder writes it: shortest digits, ``1`` not ``1.0``."""
    if not math.isfinite(value):
        raise ValueError(f"Go's json.Marshal rejects the non-finite number {value!r}")
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    shortest = repr(value)
    magnitude = abs(value)
    if magnitude < 1e-6 or magnitude >= 1e21:
        mantissa, exponent = repr(float(value)).split("e")
        sign, digits = exponent[0], exponent[1:]
        if sign == "-" and len(digits) == 2 and digits[0] == "0":
            digits = digits[1]  # Go cleans e-09 to e-9, but keeps e+21
        return f"{mantissa}e{sign}{digits}"
    fixed = format(Decimal(shortest), "f")
    if "." in fixed:
        fixed = fixed.rstrip("0").rstrip(".")
    return fixed


def go_json(value: Any) -> str:
    """``json.Marshal(value)`` for a value decoded from JSON (dicts, lists, scalars)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return go_string(value)
    if isinstance(value, int):
        # Go decodes every JSON number to float64, so huge integers print in float form.
        return go_float(float(value)) if abs(value) >= 10**21 else str(value)
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, Mapping):
        items = sorted(((str(k), v) for k, v in value.items()), key=lambda kv: kv[0])
        return "{" + ",".join(f"{go_string(k)}:{go_json(v)}" for k, v in items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(go_json(v) for v in value) + "]"
    raise TypeError(f"not a JSON value: {type(value).__name__}")
