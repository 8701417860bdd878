"""Elasta (Michail Antonow, 2003): rules ELA-1..ELA-14 of ``shared/rules/elasta.md``.

Both players secretly assign their chips 0-7 to the files a-h; in every file the higher chip
pushes the battle-line stick one square toward the enemy, then the rubber band contracts until
no two neighbouring sticks are more than two squares apart.

>>> state = Elasta().initial_state().submit(0, "01234567").submit(1, "7 6 5 4 3 2 1 0")
>>> after = state.resolve().state
>>> after.position()
'33335555 2 0'
>>> contract((2, 2, 4, 6, 2, 5, 5, 2))[-1]
(2, 2, 4, 5, 3, 4, 4, 3)

Decisions not in the rule book:

* The position string (ELA-14) accepts any heights 0-8, also neighbours more than two apart, so
  the original's diagrams (the pushes before contraction, ``22462552 3 0``) can be shown; the
  next resolution contracts them. Ten space-separated heights-and-counters are read as well
  (``2 2 4 6 2 5 5 2 3 0``); the canonical form is ``22462552 3 0``. The unchanged-turn count
  runs 0-10 and cannot exceed the turns already played (turn number - 1).
* The turn number is that of the turn about to be played; it starts at 1.
* A state read from a position string has no revealed assignments, so both default orders are
  ``01234567`` there (ELA-12); the last assignments live in the JSON state only.
* A stick that moves by contraction counts as moved for ELA-11, so a turn is unchanged only if
  every height after contraction equals the height before the turn.
* The picture is the same for both seats: rank 1 (White) at the bottom, as in C-1.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from engine.core import (
    Caption,
    Cell,
    Event,
    Game,
    Grid,
    Legend,
    Outcome,
    Resolution,
    State,
    Termination,
)
from engine.errors import (
    GAME_ENDED,
    N_,
    GameOverError,
    Nn_,
    NotationError,
    NTranslate,
    PositionError,
    Reason,
    Translate,
    and_list,
    commas,
    joined,
    state_lacks,
)
from engine.notation import split_orders
from engine.registry import register

__all__ = ["Elasta", "ElastaState", "contract", "read_orders", "rubber_band_pass"]

Heights = tuple[int, ...]
Assignment = tuple[int, ...]

FILES = "abcdefgh"
CHIPS = range(8)
TOP = 8
MAX_GAP = 2
DRAW_AFTER_UNCHANGED = 10
START: Heights = (4,) * len(FILES)
FIRST_DEFAULT: Assignment = tuple(CHIPS)
WHITE, BLACK = 0, 1
SEATS = ("White", "Black")
_SIDE_WORDS = (Reason("colour_white", N_("White")), Reason("colour_black", N_("Black")))

DIGITS = "0123456789"
_PAIRS = re.compile(r"(?:[a-z][0-9])+")
_PAIR = re.compile(r"([a-z])([0-9])")
_NUMBER = re.compile(r"[0-9]+")
_FORMS = Reason(
    "elasta_forms",
    N_("eight chips for files a..h like 01472653, or file+chip pairs like a0 b1 c4 d7 ..."),
)


@functools.cache
def all_assignments() -> tuple[Assignment, ...]:
    """The 40,320 ways to lay the chips 0-7 on the files a-h (ELA-5)."""
    return tuple(itertools.permutations(CHIPS))


# -- the rubber band (ELA-7, ELA-8) ---------------------------------------------------------


def _sign(value: int) -> int:
    return (value > 0) - (value < 0)


def rubber_band_pass(heights: Heights) -> Heights:
    """One contraction pass (ELA-7): every over-stretched pair pulls its ends one square together.

    A stick moves at most one square: pulls in the same direction count once, opposite ones
    cancel.

    >>> rubber_band_pass((2, 2, 4, 6, 2, 5, 5, 2))
    (2, 2, 4, 5, 3, 4, 4, 3)
    >>> rubber_band_pass((0, 3, 6))
    (1, 3, 5)
    """
    pulls = [0] * len(heights)
    for left in range(len(heights) - 1):
        gap = heights[left + 1] - heights[left]
        if abs(gap) > MAX_GAP:
            pulls[left] += _sign(gap)
            pulls[left + 1] -= _sign(gap)
    return tuple(height + _sign(pull) for height, pull in zip(heights, pulls, strict=True))


def is_contracted(heights: Heights) -> bool:
    return all(abs(b - a) <= MAX_GAP for a, b in itertools.pairwise(heights))


def contract(heights: Heights) -> tuple[Heights, ...]:
    """The heights after each pass, repeated until no gap exceeds 2 (ELA-8); () if none is due.

    >>> contract((6, 2, 3, 4, 1, 4, 6, 6))
    ((5, 3, 3, 3, 2, 3, 6, 6), (5, 3, 3, 3, 2, 4, 5, 6))
    """
    passes: list[Heights] = []
    while not is_contracted(heights):
        heights = rubber_band_pass(heights)
        passes.append(heights)
    return tuple(passes)


# -- notation (ELA-13, ELA-14) --------------------------------------------------------------


def format_orders(assignment: Assignment) -> str:
    return "".join(str(chip) for chip in assignment)


def read_orders(text: str) -> Assignment:
    """Chips for files a..h from either form of ELA-13; NotationError naming the problem.

    >>> read_orders("0 1 4 7 2 6 5 3") == read_orders("h3 g5 f6 e2 d7 c4 b1 a0")
    True
    >>> read_orders("01472663")
    Traceback (most recent call last):
    ...
    engine.errors.NotationError: cannot read '01472663': chip 6 is given twice and chip 5 is \
missing; each chip 0-7 is used exactly once (ELA-13)
    >>> read_orders("01234567 extra")
    Traceback (most recent call last):
    ...
    engine.errors.NotationError: cannot read '01234567 extra': 'extra' is not a chip number; \
write eight chips for files a..h like 01472653, or file+chip pairs like a0 b1 c4 d7 ... (ELA-13)
    """
    words = split_orders(text.lower())
    if not words:
        reason = Reason("no_orders_write", N_("no orders found: write {forms}"), forms=_FORMS)
        raise NotationError(text, reason, rule="ELA-13")
    if not any(char.isalpha() for word in words for char in word):
        return _read_digits(text, "".join(words))
    if words[0].isdigit():
        # The text starts in the digits form: quote the first word that is not digits.
        stray = next(word for word in words if not word.isdigit())
        reason = Reason(
            "not_a_chip",
            N_("{word!r} is not a chip number; write {forms}"),
            word=stray,
            forms=_FORMS,
        )
        raise NotationError(text, reason, rule="ELA-13")
    return _read_pairs(text, words)


def _read_digits(text: str, digits: str) -> Assignment:
    for char in digits:
        if char not in DIGITS:
            reason = Reason(
                "not_a_chip",
                N_("{word!r} is not a chip number; write {forms}"),
                word=char,
                forms=_FORMS,
            )
            raise NotationError(text, reason, rule="ELA-13")
    chips = [int(char) for char in digits]
    _check_chip_numbers(text, chips)
    problems = _chip_problems(chips)
    if len(chips) != len(FILES):
        count = Reason(
            "chip_count",
            Nn_(
                "{n} chips given, but each of the 8 files a..h needs one",
                "{n} chips given, but each of the 8 files a..h needs one",
            ),
            n=len(chips),
        )
        problems = [count, *problems]
    _raise_if(text, problems)
    return tuple(chips)


def _read_pairs(text: str, words: Sequence[str]) -> Assignment:
    chip_of: dict[str, int] = {}
    problems: list[Reason] = []
    doubled: set[str] = set()
    for word in words:
        if not _PAIRS.fullmatch(word):
            reason = Reason(
                "not_a_pair",
                N_("{word!r} is not a file letter a-h followed by a chip 0-7, like c4"),
                word=word,
            )
            raise NotationError(text, reason, rule="ELA-13")
        for file, digit in _PAIR.findall(word):
            if file not in FILES:
                reason = Reason(
                    "no_such_file", N_("there is no file {file}: files run a to h"), file=file
                )
                raise NotationError(text, reason, rule="ELA-13")
            _check_chip_numbers(text, [int(digit)])
            if file in chip_of and file not in doubled:
                doubled.add(file)
                problems.append(Reason("file_twice", N_("file {file} is given twice"), file=file))
            chip_of.setdefault(file, int(digit))
    missing = [file for file in FILES if file not in chip_of]
    if missing:
        forms = Nn_("file {files} has no chip", "files {files} have no chip")
        problems.append(Reason("files_no_chip", forms, n=len(missing), files=and_list(missing)))
    if not problems:
        problems = _chip_problems(list(chip_of.values()))
    _raise_if(text, problems)
    return tuple(chip_of[file] for file in FILES)


def _check_chip_numbers(text: str, chips: Sequence[int]) -> None:
    too_high = sorted({chip for chip in chips if chip not in CHIPS})
    if too_high:
        forms = Nn_(
            "there is no chip {chips}: chips are numbered 0 to 7",
            "there is no chips {chips}: chips are numbered 0 to 7",
        )
        reason = Reason("no_such_chip", forms, n=len(too_high), chips=and_list(too_high))
        raise NotationError(text, reason, rule="ELA-13")


def _chip_problems(chips: Sequence[int]) -> list[Reason]:
    repeated = [chip for chip in CHIPS if chips.count(chip) > 1]
    missing = [chip for chip in CHIPS if chip not in chips]
    problems = []
    if repeated:
        twice = Nn_("chip {chips} is given twice", "chips {chips} are given twice")
        problems.append(Reason("chips_twice", twice, n=len(repeated), chips=and_list(repeated)))
    if missing:
        lacking = Nn_("chip {chips} is missing", "chips {chips} are missing")
        problems.append(Reason("chips_missing", lacking, n=len(missing), chips=and_list(missing)))
    if not problems:
        return []
    both = (
        Reason("both", N_("{first} and {second}"), first=problems[0], second=problems[1])
        if len(problems) == 2
        else problems[0]
    )
    once = N_("{problems}; each chip 0-7 is used exactly once")
    return [Reason("chips_once", once, problems=both)]


def _raise_if(text: str, problems: Sequence[Reason]) -> None:
    if problems:
        raise NotationError(text, joined(problems), rule="ELA-13")


def _read_position(text: str) -> tuple[Heights, int, int]:
    words = text.split()
    if len(words) == len(FILES) + 2:
        words = ["".join(words[: len(FILES)]), *words[len(FILES) :]]
    example = Reason("elasta_position_example", N_("e.g. 44444444 1 0"))
    if len(words) != 3:
        reason = Reason(
            "elasta_position",
            N_("write the eight heights a..h, the turn number and the unchanged count, {example}"),
            example=example,
        )
        raise PositionError(text, reason, rule="ELA-14")
    line, turn_text, unchanged_text = words
    if len(line) != len(FILES) or not _NUMBER.fullmatch(line):
        reason = Reason(
            "not_heights",
            N_("{line!r} is not eight heights, one digit 0-8 for each file a..h"),
            line=line,
        )
        raise PositionError(text, reason, rule="ELA-14")
    heights = tuple(int(char) for char in line)
    if max(heights) > TOP:
        reason = Reason(
            "height_off_board",
            N_("height {height} is off the board: a stick stands at 0 to 8"),
            height=max(heights),
        )
        raise PositionError(text, reason, rule="ELA-2")
    if not _NUMBER.fullmatch(turn_text) or int(turn_text) < 1:
        reason = Reason(
            "turn_number",
            N_("the turn number {turn!r} must be a whole number from 1"),
            turn=turn_text,
        )
        raise PositionError(text, reason, rule="ELA-14")
    turn = int(turn_text)
    limit = min(DRAW_AFTER_UNCHANGED, turn - 1)
    if not _NUMBER.fullmatch(unchanged_text) or int(unchanged_text) > limit:
        reason = Reason(
            "unchanged_count",
            N_("the unchanged-turn count {count!r} must be 0 to {limit} on turn {turn}"),
            count=unchanged_text,
            limit=limit,
            turn=turn,
        )
        raise PositionError(text, reason, rule="ELA-11")
    return heights, turn, int(unchanged_text)


# -- the game -------------------------------------------------------------------------------


@register
class Elasta(Game):
    """Elasta for two players, White (rank 1) and Black (rank 8); no options (ELA-15)."""

    name = "elasta"
    title = "Elasta"
    player_counts = (2,)

    @property
    def seat_names(self) -> tuple[str, ...]:
        return SEATS

    def initial_state(self) -> ElastaState:
        return ElastaState(self)

    def parse_position(self, text: str) -> ElastaState:
        heights, turn, unchanged = _read_position(text)
        return ElastaState(self, heights, turn, unchanged)

    def state_from_json(self, data: Mapping[str, Any]) -> ElastaState:
        try:
            state = self.parse_position(data["position"])
            previous = data["previous"]
            pending = data["pending"]
        except KeyError as missing:
            raise PositionError(str(dict(data))[:80], state_lacks(missing)) from None
        if previous is not None:
            try:
                white, black = (read_orders(text) for text in previous)
            except (NotationError, ValueError) as error:
                reason = Reason(
                    "stored_last_orders", N_("stored last orders do not read: {error}"), error=error
                )
                raise PositionError(str(previous), reason) from None
            state = dataclasses.replace(state, previous=(white, black))
        return state._with_pending_json(pending)


@dataclass(frozen=True)
class ElastaState(State):
    """Stick heights a..h, the turn about to be played, the unchanged-turn count (ELA-11) and
    both players' assignments of the last turn (public once revealed; ELA-12 defaults)."""

    game: Elasta
    heights: Heights = START
    turn: int = 1
    unchanged: int = 0
    previous: tuple[Assignment, Assignment] | None = None
    pending: tuple[tuple[int, Assignment], ...] = ()
    simultaneous = True

    # -- who acts --------------------------------------------------------------------------

    @property
    def to_act(self) -> tuple[int, ...]:
        return () if self.is_over else (WHITE, BLACK)

    @property
    def outcome(self) -> Outcome | None:
        white_files = [FILES[i] for i, height in enumerate(self.heights) if height == TOP]
        black_files = [FILES[i] for i, height in enumerate(self.heights) if height == 0]
        if white_files and black_files:
            why = Reason(
                "ela_both_lines", N_("both ground lines reached in the same turn (ELA-10)")
            )
            return Outcome.draw(2, why, Termination.GOAL)
        if white_files:
            forms = Nn_(
                "the battle line reached Black's ground line in file {files} (ELA-10)",
                "the battle line reached Black's ground line in files {files} (ELA-10)",
            )
            why = Reason(
                "ela_reached_black", forms, n=len(white_files), files=and_list(white_files)
            )
            return Outcome.win(WHITE, 2, why, Termination.GOAL)
        if black_files:
            forms = Nn_(
                "the battle line reached White's ground line in file {files} (ELA-10)",
                "the battle line reached White's ground line in files {files} (ELA-10)",
            )
            why = Reason(
                "ela_reached_white", forms, n=len(black_files), files=and_list(black_files)
            )
            return Outcome.win(BLACK, 2, why, Termination.GOAL)
        if self.unchanged >= DRAW_AFTER_UNCHANGED:
            why = Reason(
                "ela_unchanged", N_("ten turns in a row left every stick where it was (ELA-11)")
            )
            return Outcome.draw(2, why, Termination.NO_PROGRESS)
        return None

    # -- notation --------------------------------------------------------------------------

    def parse(self, seat: int, text: str) -> Assignment:
        if self.is_over:
            raise GameOverError(text, GAME_ENDED)
        return read_orders(text)

    def format(self, action: Assignment) -> str:
        return format_orders(action)

    def legal_actions(self, seat: int) -> Sequence[Assignment]:
        return () if self.is_over else all_assignments()

    def random_action(self, seat: int, rng: random.Random) -> Assignment:
        return tuple(rng.sample(CHIPS, len(CHIPS)))

    def examples(self, seat: int, count: int = 5) -> tuple[str, ...]:
        if seat not in self.to_act:
            return ()
        default = self.default_action(seat)
        shown = [
            format_orders(default),
            " ".join(str(chip) for chip in reversed(default)),
            "a0 b1 c4 d7 e2 f6 g5 h3",
            "34251607",
            "h0 g1 f2 e3 d4 c5 b6 a7",
        ]
        return tuple(shown[:count])

    # -- stepping --------------------------------------------------------------------------

    def default_action(self, seat: int) -> Assignment:
        """ELA-12: the previous turn's assignment, ``01234567`` on the first turn."""
        return FIRST_DEFAULT if self.previous is None else self.previous[seat]

    def _resolve(self, actions: Mapping[int, Assignment]) -> Resolution:
        white, black = actions[WHITE], actions[BLACK]
        revealed = Reason(
            "ela_revealed",
            N_("turn {turn} chips revealed (files a..h): White {white}, Black {black}"),
            turn=self.turn,
            white=format_orders(white),
            black=format_orders(black),
        )
        events = [Event.told(revealed, "reveal")]
        pushed = []
        for file, height, white_chip, black_chip in zip(
            FILES, self.heights, white, black, strict=True
        ):
            new_height, text = _push(height, white_chip, black_chip)
            pushed.append(new_height)
            why = Reason("ela_file", N_("file {file}: {push}"), file=file, push=text)
            events.append(Event.told(why, "push", _winner(white_chip, black_chip)))
        heights = tuple(pushed)
        for number, after in enumerate(contract(heights), start=1):
            events.append(Event.told(_pass_text(number, heights, after), "contract"))
            heights = after
        unchanged = self.unchanged + 1 if heights == self.heights else 0
        state = ElastaState(self.game, heights, self.turn + 1, unchanged, (white, black))
        events.append(Event.told(_line_text(heights, unchanged), "line"))
        if state.outcome:
            ended = state.outcome.why or state.outcome.reason
            over = Reason("ela_game_over", N_("game over: {reason}"), reason=ended)
            events.append(Event.told(over, "end"))
        return Resolution(state, tuple(events))

    # -- output ----------------------------------------------------------------------------

    def position(self) -> str:
        return f"{''.join(map(str, self.heights))} {self.turn} {self.unchanged}"

    def status_reason(self, viewer: int | None = None) -> Reason:
        if self.outcome:
            return super().status_reason(viewer)
        sent, turn = self.submitted(), self.turn
        if not sent:
            return Reason(
                "status_elasta_due", N_("Turn {turn}: orders due from White and Black"), turn=turn
            )
        if len(sent) == len(SEATS):
            return Reason(
                "status_elasta_sent", N_("Turn {turn}: both players have sent orders"), turn=turn
            )
        return Reason(
            "status_elasta_waiting",
            N_("Turn {turn}: {sent} has sent orders, waiting for {waiting}"),
            turn=turn,
            sent=SEATS[sent[0]],
            waiting=SEATS[1 - sent[0]],
        )

    def ascii(self, viewer: int | None = None) -> str:
        """Ranks 8..1 with the border lines between them; a stick is ``===`` on its border.

        >>> print(Elasta().parse_position("22462552 3 0").ascii())  # doctest: +ELLIPSIS
                         Black (rank 8)
                a   b   c   d   e   f   g   h
              +---------------------------------+
              |                                 |
            8 |  #   #   #   #   #   #   #   #  | 8
        ...
            6 |  #   #   #   .   #   #   #   #  | 6
              |                     === ===     |
            5 |  #   #   #   .   #   .   .   #  | 5
        ...
        """
        files_line = "        " + "   ".join(FILES)
        edge = "      +" + "-" * 33 + "+"
        black, white, legend = (why.render() for why in self.legend_why(viewer))
        lines = [black, files_line, edge, self._border_row(TOP)]
        for rank in range(TOP, 0, -1):
            cells = ["." if rank <= height else "#" for height in self.heights]
            lines.append(f"    {rank} |  " + "   ".join(cells) + f"  | {rank}")
            lines.append(self._border_row(rank - 1))
        lines += [edge, files_line, white, legend]
        return "\n".join(lines)

    def legend_why(self, viewer: int | None = None) -> tuple[Reason, ...]:
        """The sides' captions above and below the board, and its legend."""
        return _LEGEND

    def _border_row(self, border: int) -> str:
        marks = ["===" if height == border else "   " for height in self.heights]
        return "      | " + " ".join(marks) + " |"

    def grid(self, viewer: int | None = None) -> Grid:
        rows = []
        for rank in range(TOP, 0, -1):
            row = []
            for file, height in zip(FILES, self.heights, strict=True):
                side, style = ("White", "white-side") if rank <= height else ("Black", "black-side")
                title = f"{file}{rank}: {side}'s side; {_stick_title(file, height)}"
                row.append(Cell(f"{file}{rank}", "", style, title))
            rows.append(tuple(row))
        legend = (
            ("white-side", N_("White's side of the battle line")),
            ("black-side", N_("Black's side")),
        )
        ranks = tuple(str(rank) for rank in range(TOP, 0, -1))
        return Grid(tuple(FILES), ranks, tuple(rows), legend)

    def info_why(self, viewer: int | None = None) -> tuple[Reason, ...]:
        lines = [
            Reason(
                "ela_info_line",
                N_("Turn {turn}. Battle line (ranks on White's side): {line}"),
                turn=self.turn,
                line=_line(self.heights),
            ),
            Reason(
                "ela_info_unchanged",
                N_("Turns in a row with no stick moved: {n} (ten make a draw, ELA-11)"),
                n=self.unchanged,
            ),
        ]
        if self.previous is not None:
            white, black = self.previous
            labels = (
                Reason("ela_chips_of", N_("Chips of turn {turn}:"), turn=self.turn - 1),
                _SIDE_WORDS[WHITE],
                _SIDE_WORDS[BLACK],
            )
            rows = (FILES, white, black)
            lines += [
                _TableRow(
                    "ela_chips_row", "{label}{row}", labels=labels, index=index, row=row, indent=2
                )
                for index, row in enumerate("  ".join(map(str, row)) for row in rows)
            ]
        if not self.is_over:
            defaults = commas(
                [
                    Reason(
                        "ela_seat_orders",
                        N_("{side} {orders}"),
                        side=_SIDE_WORDS[seat],
                        orders=format_orders(self.default_action(seat)),
                    )
                    for seat in self.to_act
                ]
            )
            lines.append(
                Reason(
                    "ela_info_defaults",
                    N_("Default orders if none arrive (ELA-12): {defaults}"),
                    defaults=defaults,
                )
            )
        return tuple(lines)

    # -- storage ---------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        previous = None if self.previous is None else [format_orders(a) for a in self.previous]
        return {
            **self.game.to_json(),
            "position": self.position(),
            "previous": previous,
            "pending": self._pending_json(),
        }


def _caption(seat: int) -> Caption:
    """``Black (rank 8)`` above the board, ``White (rank 1)`` below, centred on it."""
    rank = TOP if seat == BLACK else 1
    words = Reason("ela_board_side", N_("{side} (rank {rank})"), side=SEATS[seat], rank=rank)
    return Caption("ela_board_caption", words, middle=24)


_LEGEND = (
    _caption(BLACK),
    _caption(WHITE),
    Legend(
        "ela_legend",
        (
            (
                (".", Reason("ela_legend_white_side", N_("White's side"))),
                ("#", Reason("ela_legend_black_side", N_("Black's side"))),
                ("===", Reason("ela_legend_stick", N_("battle line (stick)"))),
            ),
        ),
        widths=(17, 17),
    ),
)
"""The words of the text board (``ascii``): the captions and the legend."""


# -- narration ------------------------------------------------------------------------------


class _TableRow(Reason):
    """A row of a table under the board: its label (``labels[index]``, every label after the
    first indented by ``indent``) padded to the widest label of the table, in every
    language."""

    def render(self, translate: Translate = N_, ntranslate: NTranslate | None = None) -> str:
        indent = " " * cast("int", self.params["indent"])
        labels = [
            (indent if number else "") + label.render(translate, ntranslate)
            for number, label in enumerate(cast("Sequence[Reason]", self.params["labels"]))
        ]
        width = max(len(label) for label in labels) + 2
        return labels[cast("int", self.params["index"])].ljust(width) + str(self.params["row"])


def _winner(white_chip: int, black_chip: int) -> int | None:
    if white_chip == black_chip:
        return None
    return WHITE if white_chip > black_chip else BLACK


def _push(height: int, white_chip: int, black_chip: int) -> tuple[int, Reason]:
    """ELA-6: one square toward the loser's side, whatever the difference."""
    if white_chip == black_chip:
        template = N_("White {white} ties Black {black}, the stick stays at {height}")
        return height, Reason(
            "ela_tie", template, height=height, white=white_chip, black=black_chip
        )
    if white_chip > black_chip:
        template = N_("White {white} beats Black {black}, the stick moves up to {height}")
        return height + 1, Reason(
            "ela_up", template, height=height + 1, white=white_chip, black=black_chip
        )
    template = N_("Black {black} beats White {white}, the stick moves down to {height}")
    return height - 1, Reason(
        "ela_down", template, height=height - 1, white=white_chip, black=black_chip
    )


def _pass_text(number: int, before: Heights, after: Heights) -> Reason:
    gaps = [
        f"{FILES[i]}-{FILES[i + 1]} ({abs(before[i + 1] - before[i])})"
        for i in range(len(before) - 1)
        if abs(before[i + 1] - before[i]) > MAX_GAP
    ]
    moves = [
        Reason("ela_band_up", N_("{file} up to {height}"), file=file, height=new)
        if new > old
        else Reason("ela_band_down", N_("{file} down to {height}"), file=file, height=new)
        for file, old, new in zip(FILES, before, after, strict=True)
        if new != old
    ]
    held = [
        FILES[i] for i in range(len(before)) if before[i] == after[i] and _pulled_both(before, i)
    ]
    text = Reason(
        "ela_band_pass",
        N_("rubber band pass {number}, stretched at {gaps}: {moves}"),
        number=number,
        gaps=", ".join(gaps),
        moves=commas(moves),
    )
    if held:
        forms = Nn_(
            "{text}; file {files} held (pulled both ways)",
            "{text}; files {files} held (pulled both ways)",
        )
        return Reason("ela_band_held", forms, text=text, n=len(held), files=and_list(held))
    return text


def _pulled_both(heights: Heights, index: int) -> bool:
    pulls = {
        _sign(heights[other] - heights[index])
        for other in (index - 1, index + 1)
        if 0 <= other < len(heights) and abs(heights[other] - heights[index]) > MAX_GAP
    }
    return pulls == {1, -1}


def _line_text(heights: Heights, unchanged: int) -> Reason:
    if unchanged:
        forms = Nn_(
            "battle line now: {line} (no stick moved; {n} such turn in a row)",
            "battle line now: {line} (no stick moved; {n} such turns in a row)",
        )
        return Reason("ela_line_still", forms, line=_line(heights), n=unchanged)
    return Reason("ela_line", N_("battle line now: {line}"), line=_line(heights))


def _line(heights: Heights) -> str:
    return " ".join(f"{file}{height}" for file, height in zip(FILES, heights, strict=True))


def _files(files: Sequence[str]) -> str:
    return _names("file", files)


def _names(noun: str, items: Sequence[object]) -> str:
    """``chip 3``, ``chips 3 and 5``, ``files a, b and c`` (event texts)."""
    words = [str(item) for item in items]
    if len(words) == 1:
        return f"{noun} {words[0]}"
    return f"{noun}s {', '.join(words[:-1])} and {words[-1]}"


def _stick_title(file: str, height: int) -> str:
    if height == 0:
        return f"stick {file} at 0, on White's ground line"
    if height == TOP:
        return f"stick {file} at 8, on Black's ground line"
    return f"stick {file} at {height}, between {file}{height} and {file}{height + 1}"
