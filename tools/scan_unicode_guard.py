"""Re-derive the code points ``quicktok`` splits differently from tiktoken: a check for upgrades.

``ctxtui/core/tokens/tokenizers/unicode_guard.py`` lists the characters Unicode 17 added, which
``quicktok`` (Unicode 17 tables) and tiktoken's regex engine (Unicode 16) classify differently.
After upgrading either package, run

    .venv/bin/python tools/scan_unicode_guard.py

It encodes every code point in contexts where its class (letter, number, mark, other) changes
the split, with ``quicktok`` alone and with tiktoken over the same ranks and regex, for every
exact family, and prints the differing code points as ranges. It exits 1 if one of them is not
covered by ``RANGES`` (the guard must grow), 0 otherwise. A few minutes on two cores.
"""

from __future__ import annotations

import sys
import unicodedata

from ctxtui.core.tokens.tokenizers.encodings import load_quicktok
from ctxtui.core.tokens.tokenizers.exact import reference_encoding
from ctxtui.core.tokens.tokenizers.families import FAMILIES
from ctxtui.core.tokens.tokenizers.unicode_guard import RANGES, SURROGATES

CONTEXTS = ("aCb", " C1", "C.s", ".C", "ACa", "C's", "1C2", "aCA")


def differing(spec: str) -> list[int]:
    """Code points whose token ids differ between the two, in any context."""
    family = FAMILIES[spec]
    encoding = load_quicktok(family.quicktok)
    reference = reference_encoding(family, encoding).encode_ordinary
    normalize = (lambda t: unicodedata.normalize("NFC", t)) if family.nfc else (lambda t: t)
    out: list[int] = []
    for code_point in range(0x20, 0x110000):
        if SURROGATES[0] <= code_point <= SURROGATES[1]:
            continue
        char = chr(code_point)
        for context in CONTEXTS:
            text = context.replace("C", char)
            if encoding.encode_ordinary(text.encode()) != reference(normalize(text)):
                out.append(code_point)
                break
    return out


def as_ranges(code_points: list[int]) -> list[tuple[int, int]]:
    ranges: list[list[int]] = []
    for code_point in sorted(set(code_points)):
        if ranges and ranges[-1][1] == code_point - 1:
            ranges[-1][1] = code_point
        else:
            ranges.append([code_point, code_point])
    return [(low, high) for low, high in ranges]


def main() -> int:
    found: list[int] = []
    for spec in FAMILIES:
        here = differing(spec)
        print(f"{spec}: {len(here)} code points", flush=True)
        found.extend(here)
    for low, high in as_ranges(found):
        print(f"    (0x{low:04X}, 0x{high:04X}),")
    uncovered = [c for c in found if not any(lo <= c <= hi for lo, hi in RANGES)]
    if uncovered:
        print(f"not covered by RANGES: {[hex(c) for c in uncovered[:20]]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
