"""One typography for every game: what phones, word processors and far-away keyboards type
becomes the plain characters the notations are written in, before anything reads the text.

``normalised(text)`` is applied where a reply's text enters reading (``extract.py`` hands it
on normalised, and ``reading.read_reply`` normalises what it is given: the function is
idempotent, so that is one normalisation however the text came). No engine needs to know
about any of this: each game's parser sees ``a1-a3`` whether the player's phone sent an en
dash, a full-width hyphen or a minus sign.

In order:

1. **Unicode NFKC**: full-width letters, digits and punctuation (``ａ１－ａ３``, the full-width
   colon ``：`` of Chinese, Japanese and Korean keyboards), compatibility forms and the many
   spaces (no-break, narrow, ideographic) become their plain forms.
2. **Invisible characters are dropped**: zero-width spaces and joiners, the byte-order mark,
   the soft hyphen, and every directional mark and control (LRM, RLM, ALM, the embedding,
   override and isolate controls) that right-to-left clients put around names, addresses
   and dates.
3. **Every dash-like character becomes ``-``**: the Unicode dash punctuation (hyphen,
   non-breaking hyphen, figure dash, en and em dash, horizontal bar, ...) and the minus
   signs; the katakana prolonged-sound mark and a box-drawing line only between two ASCII
   letters or digits (``ａ１ーａ３`` typed with a Japanese IME), as elsewhere they are writing.
4. **Curly quotes become straight ones**, and line and paragraph separators become newlines.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["normalised"]

_INVISIBLE = (
    "\u00ad\u180e\u200b\u200c\u200d\u2060\ufeff"  # soft hyphen, zero-width characters, BOM
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"  # bidi
)
_DASHES = (
    "".join(
        chr(code)
        for code in range(0x80, 0x110000)
        if unicodedata.category(chr(code)) == "Pd" and code not in (0x301C, 0x3030)
    )
    + "\u2212\u2043\u2796\u2e3a\u2e3b"
)
"""Dash punctuation (not the wave dashes, which are tildes in use) and the minus signs."""

_TABLE = {
    **dict.fromkeys(map(ord, _INVISIBLE)),
    **dict.fromkeys(map(ord, _DASHES), "-"),
    **dict.fromkeys(map(ord, "\u2018\u2019\u201a\u201b\u2032\u2035"), "'"),
    **dict.fromkeys(map(ord, "\u201c\u201d\u201e\u201f\u2033\u2036"), '"'),
    ord("\u2028"): "\n",
    ord("\u2029"): "\n",
}
# Dash look-alikes that are letters or drawings elsewhere: a dash only inside notation.
_DASH_BETWEEN_ASCII = re.compile(r"(?<=[A-Za-z0-9])[\u30fc\u2500\u2501](?=[A-Za-z0-9])")


def normalised(text: str) -> str:
    """``text`` in the one typography every game reads (module docstring).

    >>> normalised("ａ１－ａ３\\u200f, ｌ１ – ｌ４ and “d1—d4”： 1ー2")
    'a1-a3, l1 - l4 and "d1-d4": 1-2'
    """
    text = unicodedata.normalize("NFKC", text).translate(_TABLE)
    return _DASH_BETWEEN_ASCII.sub("-", text)
