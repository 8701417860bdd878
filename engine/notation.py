"""Notation shared by every game: squares (C-1), order lists and the ASCII board frame.

>>> board = Board(files=3, ranks=2)
>>> board.parse_square("B2", "b2-a1")
(1, 1)
>>> board.square(2, 0)
'c1'
>>> split_orders("a0, b1;c4\\n d7")
['a0', 'b1', 'c4', 'd7']
>>> print(frame([["W", ".", "."], [".", ".", "B"]], "abc", ["2", "1"]))
     a b c
   +-------+
 2 | W . . | 2
 1 | . . B | 1
   +-------+
     a b c
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import N_, NotationError, Reason

__all__ = ["Board", "frame", "split_orders"]

_SQUARE = re.compile(r"([a-z])(\d{1,2})")
_SEPARATORS = re.compile(r"[\s,;]+")


def split_orders(text: str) -> list[str]:
    """Split a message into orders at spaces, commas, semicolons and newlines (C-1)."""
    return [part for part in _SEPARATORS.split(text.strip()) if part]


@dataclass(frozen=True)
class Board:
    """A rectangle of squares named file letter + rank number, a1 bottom left (C-1)."""

    files: int
    ranks: int

    @property
    def file_letters(self) -> str:
        return string.ascii_lowercase[: self.files]

    def square(self, file: int, rank: int) -> str:
        return f"{string.ascii_lowercase[file]}{rank + 1}"

    def contains(self, file: int, rank: int) -> bool:
        return 0 <= file < self.files and 0 <= rank < self.ranks

    def parse_square(self, text: str, whole: str | None = None) -> tuple[int, int]:
        """(file, rank) from 0 for a square name; NotationError quoting ``whole``."""
        quoted = text if whole is None else whole
        match = _SQUARE.fullmatch(text.strip().lower())
        last = self.square(self.files - 1, self.ranks - 1)
        if not match:
            reason = Reason(
                "not_a_square",
                N_("{square!r} is not a square like a1 or {last}"),
                square=text,
                last=last,
            )
            raise NotationError(quoted, reason)
        file, rank = ord(match[1]) - ord("a"), int(match[2]) - 1
        if not self.contains(file, rank):
            reason = Reason(
                "off_the_board",
                N_("{square!r} is off the board (a1 to {last})"),
                square=text,
                last=last,
            )
            raise NotationError(quoted, reason)
        return file, rank


def frame(rows: Sequence[Sequence[str]], files: Sequence[str], ranks: Sequence[str]) -> str:
    """Cells (rows from the top) framed with coordinates on all four sides.

    Every cell is padded to the widest cell; ``ranks`` label the rows top to bottom.
    """
    width = max(1, *(len(cell) for row in rows for cell in row), *(len(f) for f in files))
    label = max(len(r) for r in ranks)
    pad = " " * (label + 2)
    header = pad + "  " + " ".join(f.center(width) for f in files).rstrip()
    rule = pad + "+" + "-" * ((width + 1) * len(files) + 1) + "+"
    body = [
        f" {rank:>{label}} | " + " ".join(cell.center(width) for cell in row) + f" | {rank}"
        for rank, row in zip(ranks, rows, strict=True)
    ]
    return "\n".join([header, rule, *body, rule, header])
