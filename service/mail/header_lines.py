"""Header lines that every reader of a message splits alike, or the reason they may not be.

Three parsers read a message's header lines before a move is played: Python's email package
(the From, Authentication-Results), dkimpy (DKIM-Signature, and what each signature covers)
and the mail server that wrote Authentication-Results. They agree on where a header line ends
only when every line ends the same way. Python's parser also ends a line at a bare CR, and
``str.splitlines`` (which parts of the email package use) at VT, FF and 0x1C-0x1E as well;
dkimpy ends lines at CRLF or LF only. ``X-Mailer: x<CR>DKIM-Signature: ... d=example.org`` is
then two header fields to one reader and one to the other, which once let an attacker's own
valid signature pass as the player's.

So the header block (from the first byte to the first empty line, as far as either parser
could take it) is refused when it holds:

* a bare CR (one not followed by LF);
* VT, FF or 0x1C-0x1E, anywhere in it;
* lines ending in CRLF and lines ending in a bare LF, mixed.

A header block whose lines all end in LF is fine: that is how mail looks on a unix machine
(``pbem mail inject`` from a pipe, a webhook, an IMAP server), and both parsers split it alike.
The body is not looked at (its lines are split only by the MIME parser, after the headers).
"""

from __future__ import annotations

import re

_EMPTY_LINE = re.compile(rb"\n\r?\n")
"""The first empty line as dkimpy finds it (``\\r?\\n`` twice); Python's can only be later
or earlier by a stray CR, which is refused, so the block taken here holds both readers'."""
_STRAY = re.compile(rb"\r(?!\n)|[\x0b\x0c\x1c-\x1e]")
_BARE_LF = re.compile(rb"(?<!\r)\n")
_NAMES = {
    b"\r": "a bare CR",
    b"\x0b": "a VT (0x0B)",
    b"\x0c": "an FF (0x0C)",
    b"\x1c": "a 0x1C",
    b"\x1d": "a 0x1D",
    b"\x1e": "a 0x1E",
}


def header_block(raw: bytes) -> bytes:
    """The header block: ``raw`` up to and with the line end before the first empty line
    (all of ``raw`` when it has none)."""
    end = _EMPTY_LINE.search(raw)
    return raw if end is None else raw[: end.start() + 1]


def problem(raw: bytes) -> str:
    """Why the header lines of ``raw`` could be split two ways, or "" when they cannot."""
    block = header_block(raw)
    stray = _STRAY.search(block)
    if stray is not None:
        line = block.count(b"\n", 0, stray.start()) + 1
        return (
            f"header line {line} holds {_NAMES[stray.group()]}, which mail readers take "
            "differently (a header line ends in CRLF, or in LF alone)"
        )
    if b"\r\n" in block and _BARE_LF.search(block):
        return "its header lines end in CRLF and in a bare LF, mixed (end all of them alike)"
    return ""
