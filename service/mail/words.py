"""The board in words: the last move and the position as piece lists by side.

A screen reader reads the ASCII board character by character ("bar, dot, dot, W, ..."), so
every game mail's text part gives, before the grid, what stands where as sentences (issue 21,
point 10; lichess's blind mode gives a position the same way)::

    Last move (turn 1): White a1-a3. Changed: a1 empty; a3 white stone.
    White: stones on b1 to n1, a2 to n2, a3 (28).
    Black: stones on a11 to n11, a12 to n12 (28).

A player who sets ``board_text`` to ``words`` gets these lines and no grid.

Everything is read from ``View.to_json()`` (with the keys ``service/mail/boards.py``
adds: ``last_move``, ``last_squares``), so the function is pure and works on any seat's view,
turned or not. Squares are listed rank by rank from rank 1 (file a first); three or more
neighbouring squares on one rank are written as a range ``a1 to n1``. When listing file by
file, with ranges along a file (``b1 to b7``), takes fewer items, the list goes file by file.
Both ends of a range share a rank or a file, so a range names exactly the squares between.
A sentence longer than a mail line is folded by :func:`fold`.

The words are in the locale being rendered (``service.i18n.current``, which a mail sets to
its reader's); square names stay as the notation writes them. English is the text below.
"""

from __future__ import annotations

import functools
import re
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from service import i18n
from service.i18n import N_

Cell = Mapping[str, Any]
View = Mapping[str, Any]

_SQUARE = re.compile(r"([a-z]+)(\d+)")
RUN = 3
"""Neighbouring squares on a line from which a range is written instead of each square."""
WIDTH = 80
_DIGIT = re.compile(r"\d")

SEAT_WORDS = (N_("Light"), N_("Dark"), N_("North"), N_("East"), N_("South"), N_("West"))
"""Seat names the engine's catalog does not hold (White, Black, Red and Blue it does: its
error messages name the sides); O and X are letters, the same in every language."""
_TRANSLATED_SEATS = frozenset({"White", "Black", "Red", "Blue", *SEAT_WORDS})


POSITION_LINE_LEADS: tuple[tuple[str, str], ...] = (
    ("%(side)s: stone on %(squares)s (%(num)s).", "%(side)s: stones on %(squares)s (%(num)s)."),
    ("%(side)s: pawn on %(squares)s (%(num)s).", "%(side)s: pawns on %(squares)s (%(num)s)."),
    (
        "%(side)s's side: %(squares)s (%(num)s square).",
        "%(side)s's side: %(squares)s (%(num)s squares).",
    ),
    ("%(side)s: troops %(troops)s (%(num)s).", "%(side)s: troops %(troops)s (%(num)s)."),
    ("Destroyed: %(squares)s (%(num)s).", ""),
    ("Destroyed: %(squares)s.", ""),
    ("Territory: %(parts)s.", ""),
    ("Quadrants: %(quadrants)s.", ""),
)
"""The sentences that begin a line of a position in words and list squares (singular and
plural, or a text and ""): the reply reader knows them in every language, so that our mail
pasted under a reply without its quote marks is never read as orders."""


def seat_name(english: str, locale: str | None = None) -> str:
    """A seat's name (``State.game.seat_names``) in ``locale`` (else the one rendered):
    records and the chain keep the English one, mails and pages show this."""
    locale = locale or i18n.current()
    if english not in _TRANSLATED_SEATS or locale == i18n.DEFAULT:
        return english
    return i18n.gettext(locale, english)


def _(message: str, **values: Any) -> str:
    """``message`` in the locale being rendered, its ``%(name)s`` filled from ``values``."""
    return i18n.gettext(i18n.current(), message, **values)


def ngettext(singular: str, plural: str, number: int, **values: Any) -> str:
    """The form of ``singular``/``plural`` for ``number`` (``%(num)s``) in that locale."""
    return i18n.ngettext(i18n.current(), singular, plural, number, **values)


def fold(sentence: str, width: int = WIDTH) -> str:
    """``sentence`` on lines of at most ``width`` columns, broken after a list item (``, ``
    or ``; ``) and, only for an item longer than a line, at a space.

    Every line after the first is indented and holds a word: a break inside a list goes on
    with "and" (``a11,`` / ``  and a13, a15 (15).``), and so does any line that would hold
    only square names and numbers. A reply that pastes our mail without its quote marks
    then has no line that ``service/mail/reading.py`` takes for a line of notation.
    """
    if len(sentence) <= width:
        return sentence
    lines: list[str] = []
    for piece in re.split(r"(?<=[,;]) ", sentence):
        if lines and len(lines[-1]) + 1 + len(piece) <= width:
            lines[-1] += " " + piece
            continue
        if lines:
            piece = (f"  {_and()} " if lines[-1].endswith(",") else "  ") + piece
        lines += _spaced(piece, width)
    return "\n".join(_worded(line) if index else line for index, line in enumerate(lines))


def _spaced(text: str, width: int) -> list[str]:
    if len(text) <= width:
        return [text]
    indent = text[: len(text) - len(text.lstrip())]
    return textwrap.wrap(
        text.lstrip(),
        width,
        initial_indent=indent,
        subsequent_indent="  ",
        break_long_words=False,
        break_on_hyphens=False,
    )


def _worded(line: str) -> str:
    """A continuation line as it is when it has a word (no digit in it), else with "and"."""
    if any(not _DIGIT.search(token) for token in line.split()):
        return line
    return f"  {_and()} " + line.strip()


def _and() -> str:
    """The word a folded list goes on with (``  and a13, a15 (15).``)."""
    return _("and")


def position_in_words(view: View, width: int = WIDTH) -> list[str]:
    """The last move (when the view has one) and the position: one sentence each, folded
    to ``width`` columns (see :func:`fold`)."""
    return [fold(sentence, width) for sentence in sentences(view)]


def sentences(view: View) -> list[str]:
    """The last move (when the view has one) and the position, one sentence each."""
    lines = []
    cells = [cell for row in (view.get("grid") or {}).get("rows") or () for cell in row]
    describe = _GAMES.get(str(view.get("game")), _Generic)(view)
    if view.get("last_move"):
        lines.append(_last_move(view, cells, describe))
    elif "last_move" in view:
        lines.append(_("No move has been played yet."))
    if cells:
        lines += describe.position(cells)
    return lines


def squares_in_words(squares: Iterable[str]) -> str:
    """``a1, c1, a2 to a5`` (see the module docstring): every square once, ranges on a line."""
    parsed = sorted({_parse(square) for square in squares}, key=lambda sq: (sq[2], sq[1]))
    if not parsed:
        return _("none")
    by_rank = _runs(parsed, along_rank=True)
    by_file = _runs(sorted(parsed, key=lambda sq: (sq[1], sq[2])), along_rank=False)
    return ", ".join(by_file if len(by_file) < len(by_rank) else by_rank)


def expand(words: str) -> list[str]:
    """The squares a list written by :func:`squares_in_words` names (for checking it)."""
    found = []
    for item in words.split(", "):
        ends = item.split(" to ")
        if len(ends) == 1:
            found.append(ends[0])
            continue
        (file1, f1, r1), (_file2, f2, r2) = (_parse(end) for end in ends)
        prefix_rank = r1 == r2
        if prefix_rank:
            found += [f"{_file_name(f)}{r1}" for f in range(f1, f2 + 1)]
        else:
            found += [f"{file1}{r}" for r in range(r1, r2 + 1)]
    return found


@functools.lru_cache(maxsize=4096)
def _parse(square: str) -> tuple[str, int, int]:
    # Memoised: a board's sentences sort and group its squares several times, each time by
    # these numbers, and the same few hundred square names come back in every mail (issue 23).
    match = _SQUARE.fullmatch(square)
    if not match:
        return (square, 0, 0)
    letters, rank = match.groups()
    index = 0
    for letter in letters:
        index = index * 26 + ord(letter) - ord("a") + 1
    return (letters, index - 1, int(rank))


def _file_name(index: int) -> str:
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(ord("a") + rest) + name
    return name


def _runs(squares: Sequence[tuple[str, int, int]], along_rank: bool) -> list[str]:
    items: list[str] = []
    run: list[tuple[str, int, int]] = []

    def close() -> None:
        if len(run) >= RUN:
            items.append(_("%(first)s to %(last)s", first=_name(run[0]), last=_name(run[-1])))
        else:
            items.extend(_name(square) for square in run)
        run.clear()

    for square in squares:
        if run:
            last = run[-1]
            same_line = last[2] == square[2] if along_rank else last[0] == square[0]
            step = square[1] - last[1] if along_rank else square[2] - last[2]
            if not (same_line and step == 1):
                close()
        run.append(square)
    close()
    return items


def _name(square: tuple[str, int, int]) -> str:
    return f"{square[0]}{square[2]}"


def _last_move(view: View, cells: Sequence[Cell], describe: _Generic) -> str:
    line = str(view["last_move"]).rstrip(".") + "."
    changed = set(view.get("last_squares") or ())
    if not changed:
        return line
    groups: dict[str, list[str]] = {}
    for cell in sorted(cells, key=lambda cell: _parse(cell["square"])[::-1]):
        if cell["square"] in changed:
            groups.setdefault(describe.cell(cell), []).append(cell["square"])
    parts = [
        _("%(squares)s %(what)s", squares=squares_in_words(squares), what=what)
        for what, squares in groups.items()
    ]
    return _("%(line)s Changed: %(parts)s.", line=line, parts="; ".join(parts))


# --- the games ---------------------------------------------------------------------------------


class _Generic:
    """Any game: the pieces by the legend's names, in the legend's order."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.names = list(view.get("seat_names") or ())
        grid = view.get("grid") or {}
        self.legend = {str(key): _(str(name)) for key, name in grid.get("legend") or ()}

    def cell(self, cell: Cell) -> str:
        """What stands on a square, in a few words."""
        text = str(cell["text"])
        return self.legend.get(text, text) if text else _("empty")

    def title(self, cell: Cell) -> str:
        """The square's hover title: ``c3: white stone``."""
        return _("%(square)s: %(what)s", square=cell["square"], what=self.cell(cell))

    def position(self, cells: Sequence[Cell]) -> list[str]:
        pieces = _by(cells, lambda cell: cell["text"])
        pieces.pop("", None)
        return [
            _(
                "%(what)s: %(squares)s (%(num)s).",
                what=self.legend.get(text, text),
                squares=squares_in_words(squares),
                num=len(squares),
            )
            for text, squares in pieces.items()
        ]

    def side(self, seat: int, fallback: str) -> str:
        return seat_name(self.names[seat] if seat < len(self.names) else fallback)


def _by(cells: Iterable[Cell], key: Callable[[Cell], str]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for cell in cells:
        groups.setdefault(key(cell), []).append(cell["square"])
    return groups


def _stones(side: str, squares: Sequence[str]) -> str:
    if not squares:
        return _("%(side)s: no stones.", side=side)
    return ngettext(
        "%(side)s: stone on %(squares)s (%(num)s).",
        "%(side)s: stones on %(squares)s (%(num)s).",
        len(squares),
        side=side,
        squares=squares_in_words(squares),
    )


def _pawns(side: str, squares: Sequence[str]) -> str:
    if not squares:
        return _("%(side)s: no pawns.", side=side)
    return ngettext(
        "%(side)s: pawn on %(squares)s (%(num)s).",
        "%(side)s: pawns on %(squares)s (%(num)s).",
        len(squares),
        side=side,
        squares=squares_in_words(squares),
    )


class _Epaminondas(_Generic):
    """White's and Black's stones (EPA-1)."""

    PIECES = {"W": N_("white stone"), "B": N_("black stone")}

    def cell(self, cell: Cell) -> str:
        return _(self.PIECES.get(cell["text"], "empty"))

    def position(self, cells: Sequence[Cell]) -> list[str]:
        stones = _by(cells, lambda cell: cell["text"])
        return [
            _stones(self.side(seat, colour), stones.get(letter, []))
            for seat, (letter, colour) in enumerate((("W", "White"), ("B", "Black")))
        ]


class _AntiGrid(_Generic):
    """Red's and Blue's pawns; the points of the lattice never change (ANT-1)."""

    PIECES = {"R": "red pawn", "B": "blue pawn"}  # the engine's words (its catalog)
    POINTS = {
        "red-point": N_("red point"),
        "blue-point": N_("blue point"),
        "crossing": N_("crossing"),
    }

    def cell(self, cell: Cell) -> str:
        return _(self.PIECES.get(cell["text"], "empty"))

    def title(self, cell: Cell) -> str:
        square, kind = cell["square"], str(cell["style"])
        if kind not in self.POINTS:
            return _("%(square)s: %(what)s", square=square, what=_("no point"))
        return _(
            "%(square)s: %(point)s, %(what)s",
            square=square,
            point=_(self.POINTS[kind]),
            what=self.cell(cell),
        )

    def position(self, cells: Sequence[Cell]) -> list[str]:
        pawns = _by(cells, lambda cell: cell["text"])
        return [
            _pawns(self.side(seat, colour), pawns.get(letter, []))
            for seat, (letter, colour) in enumerate((("R", "Red"), ("B", "Blue")))
        ]


class _Elasta(_Generic):
    """No pieces: the battle line splits every file into White's side and Black's (ELA-1)."""

    SIDES = {"white-side": 0, "black-side": 1}

    def cell(self, cell: Cell) -> str:
        seat = self.SIDES.get(cell["style"])
        if seat is None:
            return str(cell["style"])
        return _("now %(side)s's side", side=self.side(seat, ("White", "Black")[seat]))

    def title(self, cell: Cell) -> str:
        """``a3: White's side; stick a at 4, between a4 and a5``: the stick of the square's
        file from the grid's sides."""
        square, style = str(cell["square"]), str(cell["style"])
        seat = self.SIDES.get(style)
        if seat is None:
            return super().title(cell)
        file = _parse(square)[0]
        column = [
            row_cell
            for row in (self.view.get("grid") or {}).get("rows") or ()
            for row_cell in row
            if _parse(str(row_cell["square"]))[0] == file
        ]
        height = sum(row_cell["style"] == "white-side" for row_cell in column)
        if height == 0:
            stick = _("stick %(file)s at 0, on White's ground line", file=file)
        elif height == len(column):
            stick = _(
                "stick %(file)s at %(height)s, on Black's ground line", file=file, height=height
            )
        else:
            stick = _(
                "stick %(file)s at %(height)s, between %(below)s and %(above)s",
                file=file,
                height=height,
                below=f"{file}{height}",
                above=f"{file}{height + 1}",
            )
        side = self.side(seat, ("White", "Black")[seat])
        return _("%(square)s: %(side)s's side; %(stick)s", square=square, side=side, stick=stick)

    def position(self, cells: Sequence[Cell]) -> list[str]:
        sides = _by(cells, lambda cell: cell["style"])
        lines = []
        for style, seat in self.SIDES.items():
            squares = sides.get(style, [])
            name = self.side(seat, ("White", "Black")[seat])
            lines.append(
                ngettext(
                    "%(side)s's side: %(squares)s (%(num)s square).",
                    "%(side)s's side: %(squares)s (%(num)s squares).",
                    len(squares),
                    side=name,
                    squares=squares_in_words(squares),
                )
            )
        return lines


class _Nelaxtam(_Generic):
    """Troops of O (1-5) and X (A-E) on a checkered territory with destroyed squares."""

    def cell(self, cell: Cell) -> str:
        if cell["style"] == "destroyed":
            return _("destroyed")
        if cell["text"]:
            return _("%(side)s troop %(troop)s", side=self._owner(cell["text"]), troop=cell["text"])
        return _("empty")

    def title(self, cell: Cell) -> str:
        square, style = cell["square"], str(cell["style"])
        if style == "destroyed" or style not in ("o", "x"):
            return super().title(cell)
        land = _(f"{style.upper()} territory")
        if not cell["text"]:
            return _("%(square)s: %(what)s", square=square, what=land)
        return _("%(square)s: %(land)s, %(what)s", square=square, land=land, what=self.cell(cell))

    def _owner(self, label: str) -> str:
        seat = 0 if label.isdigit() else 1
        return self.side(seat, ("O", "X")[seat])

    def position(self, cells: Sequence[Cell]) -> list[str]:
        lines = []
        for seat in (0, 1):
            troops = sorted(
                (
                    cell
                    for cell in cells
                    if cell["text"] and (cell["text"].isdigit() == (seat == 0))
                ),
                key=lambda cell: cell["text"],
            )
            side = self.side(seat, ("O", "X")[seat])
            if troops:
                listed = ", ".join(
                    _("%(piece)s on %(square)s", piece=cell["text"], square=cell["square"])
                    for cell in troops
                )
                lines.append(
                    ngettext(
                        "%(side)s: troops %(troops)s (%(num)s).",
                        "%(side)s: troops %(troops)s (%(num)s).",
                        len(troops),
                        side=side,
                        troops=listed,
                    )
                )
            else:
                lines.append(_("%(side)s: no troops on the board.", side=side))
        lines.append(self._territory(cells))
        destroyed = [cell["square"] for cell in cells if cell["style"] == "destroyed"]
        if destroyed:
            lines.append(
                _(
                    "Destroyed: %(squares)s (%(num)s).",
                    squares=squares_in_words(destroyed),
                    num=len(destroyed),
                )
            )
        else:
            lines.append(_("Destroyed: %(squares)s.", squares=squares_in_words(destroyed)))
        return lines

    def _territory(self, cells: Sequence[Cell]) -> str:
        owners = {"o": self.side(0, "O"), "x": self.side(1, "X")}
        land = [cell for cell in cells if cell["style"] in owners]
        counts = {style: sum(cell["style"] == style for cell in land) for style in owners}
        colours = {
            style: {_parity(c["square"]) for c in land if c["style"] == style} for style in owners
        }
        o_colour, x_colour = colours["o"], colours["x"]
        if len(o_colour) <= 1 and len(x_colour) <= 1 and not o_colour & x_colour:
            o_parity = next(iter(o_colour), 1 - next(iter(x_colour), 1 - _parity("a1")))
            o_like, x_like = ("a1", "b1") if o_parity == _parity("a1") else ("b1", "a1")
            return _(
                "Territory: checkered; %(o)s on the squares of %(o_like)s's colour "
                "(%(o_left)s left), %(x)s on those of %(x_like)s's colour (%(x_left)s left).",
                o=owners["o"],
                o_like=o_like,
                o_left=counts["o"],
                x=owners["x"],
                x_like=x_like,
                x_left=counts["x"],
            )
        parts = [
            _(
                "%(side)s %(squares)s (%(num)s)",
                side=owners[style],
                squares=squares_in_words(sq),
                num=len(sq),
            )
            for style, sq in _by(land, lambda cell: cell["style"]).items()
        ]
        return _("Territory: %(parts)s.", parts="; ".join(parts))


def _parity(square: str) -> int:
    _letters, file, rank = _parse(square)
    return (file + rank) % 2


class _Elemento(_Generic):
    """Light and dark stones of four elements on four coloured quadrants (ELE-1, ELE-2)."""

    SHADES = (
        ("Light", True, N_("Light stones"), N_("light")),
        ("Dark", False, N_("Dark stones"), N_("dark")),
    )

    def cell(self, cell: Cell) -> str:
        text = str(cell["text"])
        return self.legend.get(text, text) if text else _("empty")

    def title(self, cell: Cell) -> str:
        return _(
            "%(square)s: %(colour)s, %(what)s",
            square=cell["square"],
            colour=_(str(cell["style"])),
            what=self.cell(cell),
        )

    def position(self, cells: Sequence[Cell]) -> list[str]:
        two = len(self.names) == 2
        lines = []
        for seat, (shade, light, stones_word, shade_word) in enumerate(self.SHADES):
            stones = [c for c in cells if c["text"] and c["text"].isupper() == light]
            side = _(stones_word)
            if two:
                english = self.names[seat] if seat < len(self.names) else shade
                name = self.side(seat, shade)
                side = (
                    name
                    if english.lower() == shade.lower()
                    else _("%(name)s (%(shade)s)", name=name, shade=_(shade_word))
                )
            if not stones:
                lines.append(_("%(side)s: none on the board.", side=side))
                continue
            listed = ", ".join(
                _(
                    "%(piece)s on %(square)s",
                    piece=self._element(cell["text"]),
                    square=cell["square"],
                )
                for cell in sorted(stones, key=lambda c: (_parse(c["square"])[2], c["square"]))
            )
            lines.append(
                _("%(side)s: %(stones)s (%(num)s).", side=side, stones=listed, num=len(stones))
            )
        quadrants = _by(cells, lambda cell: cell["style"])
        listed = "; ".join(
            _("%(colour)s %(squares)s", colour=_(colour), squares=squares_in_words(sq))
            for colour, sq in quadrants.items()
        )
        lines.append(_("Quadrants: %(quadrants)s.", quadrants=listed))
        return lines

    def _element(self, stone: str) -> str:
        grid = self.view.get("grid") or {}
        english = {str(key): str(name) for key, name in grid.get("legend") or ()}
        return _(english.get(stone, stone).split(" ", 1)[-1])


_GAMES: Mapping[str, type[_Generic]] = {
    "epaminondas": _Epaminondas,
    "anti-grid": _AntiGrid,
    "elasta": _Elasta,
    "nelaxtam": _Nelaxtam,
    "elemento": _Elemento,
}


def titler(view: View) -> Callable[[Cell], str] | None:
    """What gives each square of ``view``'s board its hover title in the locale being
    rendered, or None in English: the engine's own titles are English."""
    if i18n.current() == i18n.DEFAULT:
        return None
    describe = _GAMES.get(str(view.get("game")), _Generic)(view)

    def title(cell: Cell) -> str:
        return describe.title(cell) if cell.get("title") else ""

    return title


def cell_title(view: View, cell: Cell) -> str:
    """A square's hover title in the locale being rendered: the engine's own (English) one
    in English, else the square and what stands there in the reader's words."""
    title = titler(view)
    return title(cell) if title is not None else str(cell.get("title") or "")
