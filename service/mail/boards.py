"""Boards from the reader's side, with the last move marked.

The engine draws every board from the first seat's side (``View.ascii`` and ``View.grid``).
A reader in the second seat of a game with a natural orientation sees it turned by 180
degrees, so that their own pieces stand at the bottom, unless they turned that off
(``Player.board_flip``). Which games have one, from the rule books:

* Epaminondas: White's home row is rank 1, Black's the last rank (EPA-1): Black turns it.
* Elasta: White sits at rank 1, Black at rank 8 (ELA-1): Black turns it.
* Anti-Grid: Red's free edges are the bottom rank and left file, Blue's the top rank and
  right file (ANT-5, ANT-6); the lattice is point-symmetric, so Blue turned by 180 degrees
  sees their pawns on the bottom and left edges exactly as Red does.
* Nelaxtam: none. Territory is checkered over the whole board and both sides invade
  anywhere (NEL-2, NEL-5); the board looks the same from either side.
* Elemento: none. Two to four players share four quadrants, nobody has a side.

The last move is what changed on the board since the last turn opened: the squares whose
picture differs between the spectator views of the two positions (so a sealed order never
shows before it resolves). Those squares are highlighted in the HTML grid; the plain text
gets a line naming the move and, where the board stays within 80 columns, a ``<`` after
each rank and a ``^`` under each file that the move touched.

All functions here are pure: they take and return ``View.to_json()`` mappings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine import Grid

FLIPPED_FOR: Mapping[str, int] = {"epaminondas": 1, "elasta": 1, "anti-grid": 1}
"""The seat that sees each oriented game turned around (see the module docstring)."""
TEXT_WIDTH = 80
_SQUARE = re.compile(r"([a-z]+)(\d+)")
_RANK_LINE = re.compile(r"^\s*(\d+)\s.*\s(\d+)\s*$")
_BORDERED = re.compile(r"^\s*\d+ \|.*\| \d+\s*$")


def should_flip(game: str, seat: int | None, wanted: bool) -> bool:
    return wanted and seat is not None and FLIPPED_FOR.get(game) == seat


def changed_squares(before: Grid, after: Grid) -> list[str]:
    """Squares whose cell (piece or shading) differs between two grids of the same board."""
    old = {cell.square: (cell.text, cell.style) for row in before.rows for cell in row}
    return [
        cell.square
        for row in after.rows
        for cell in row
        if old.get(cell.square) != (cell.text, cell.style)
    ]


def reader_view(
    view: Mapping[str, Any], flip: bool, last_move: str | None, squares: Sequence[str]
) -> dict[str, Any]:
    """``view`` as the reader sees it: turned when ``flip``, the last move marked."""
    shown = dict(view)  # the parts changed below are rebuilt, never edited in place
    marked = set(squares)
    if shown.get("grid", {}).get("rows"):
        shown["grid"] = _mark_grid(shown["grid"], marked)
    if flip:
        shown["grid"] = flip_grid(shown["grid"])
        shown["ascii"] = flip_ascii(shown["ascii"])
    shown["flipped"] = flip
    shown["last_move"] = last_move
    shown["last_squares"] = sorted(marked)
    if marked:
        shown["ascii"] = mark_ascii(shown["ascii"], marked)
    return shown


def _mark_grid(grid: Mapping[str, Any], marked: set[str]) -> dict[str, Any]:
    rows = [[{**cell, "last": cell["square"] in marked} for cell in row] for row in grid["rows"]]
    return {**grid, "rows": rows}


def flip_grid(grid: Mapping[str, Any]) -> dict[str, Any]:
    """The grid turned by 180 degrees: last rank on top, last file on the left."""
    return {
        **grid,
        "files": list(reversed(grid["files"])),
        "ranks": list(reversed(grid["ranks"])),
        "rows": [list(reversed(row)) for row in reversed(grid["rows"])],
    }


def _header(line: str) -> list[int] | None:
    """The columns of the file letters when ``line`` is a file header (``a b c ...``)."""
    words = line.split()
    if len(words) < 2 or not all(re.fullmatch(r"[a-z]", word) for word in words):
        return None
    steps = [ord(w) - ord(words[0]) for w in words]
    if steps not in (list(range(len(words))), [-step for step in range(len(words))]):
        return None
    return [match.start() for match in re.finditer(r"[a-z]", line)]


def flip_ascii(text: str) -> str:
    """An engine's ASCII board turned by 180 degrees.

    The boards share one shape: a file header above and below, rank lines between them with
    the rank number at both ends. Lines between the headers are reversed in order and each is
    mirrored about the board's middle column, rank numbers kept at the ends; the headers
    keep their letter columns with the letters in reverse order; a caption naming a side's
    rank above and below the board (Elasta's) swaps places. Lines outside (legends) stay.
    """
    lines = text.split("\n")
    headers = [index for index, line in enumerate(lines) if _header(line)]
    if len(headers) < 2:
        return text
    top, bottom = headers[0], headers[-1]
    letters = _header(lines[top]) or []
    bordered = [line for line in lines[top:bottom] if _BORDERED.match(line)]
    if bordered:
        sample = bordered[0]
        centre2 = sample.index("|") + sample.rindex("|")
    else:
        centre2 = letters[0] + letters[-1]
    low = letters[0]
    high = centre2 - low
    block = [_mirror(line, low, high) for line in lines[top : bottom + 1]]
    block.reverse()
    before, after = lines[:top], lines[bottom + 1 :]
    if before and after and "(rank" in before[-1] and "(rank" in after[0]:
        before, after = [*before[:-1], after[0]], [before[-1], *after[1:]]
    return "\n".join([*before, *block, *after])


def _mirror(line: str, low: int, high: int) -> str:
    columns = _header(line)
    if columns:
        chars = list(line)
        names = [line[column] for column in columns]
        for column, name in zip(columns, reversed(names), strict=True):
            chars[column] = name
        return "".join(chars)
    padded = line.ljust(high + 1)
    middle = padded[low : high + 1][::-1]
    return (padded[:low] + middle + padded[high + 1 :]).rstrip()


def mark_ascii(text: str, squares: Iterable[str]) -> str:
    """A ``<`` after each touched rank's line and a ``^`` under each touched file, when the
    board stays within 80 columns; otherwise the board as it was."""
    files, ranks = set(), set()
    for square in squares:
        match = _SQUARE.fullmatch(square)
        if match:
            files.add(match.group(1))
            ranks.add(match.group(2))
    lines = text.split("\n")
    headers = [index for index, line in enumerate(lines) if _header(line)]
    if not headers or not ranks:
        return text
    bottom = headers[-1]
    width = max(len(line) for line in lines[: bottom + 1])
    if width + 2 > TEXT_WIDTH:
        return text
    marked = []
    for index, line in enumerate(lines):
        match = _RANK_LINE.match(line) if headers[0] < index < bottom else None
        if match and match.group(2) in ranks:
            line = line.ljust(width) + " <"
        marked.append(line)
    columns = [c for c in (_header(lines[bottom]) or []) if lines[bottom][c] in files]
    if columns:
        arrows = [" "] * (max(columns) + 1)
        for column in columns:
            arrows[column] = "^"
        marked.insert(bottom + 1, "".join(arrows))
    return "\n".join(marked)
