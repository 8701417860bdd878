"""Elemento (Besedic & Lepuschitz, Selecta 2006): 2–4 players, two colour dice.

The rule book is ``shared/rules/elemento.md`` (ELE-1..ELE-20); this module follows it and
records here the decisions it had to make.

Seats, chance steps and turns
-----------------------------
* Seat names: 2 players ``Light`` (seat 0, starts, ELE-5) and ``Dark``; 3–4 players
  ``North``, ``East``, ``South``, ``West`` (seats 1–4, as they joined). The rule book names no
  seats and draws the turn order at random (ELE-13), so a seat's name says where it sits, never
  when it plays: numbered seats read as an order ("You play Player 1" while Player 3 moved
  first, issue 21). Position strings keep the seat numbers (``1`` North .. ``4`` West).
* The engine never draws random numbers. A chance step is due whenever dice are needed: the
  outcomes are the four equally likely rolls ``G+R``, ``G+B``, ``Y+R``, ``Y+B`` (top die first,
  ELE-3). With 3–4 players the seating order (ELE-13) is the first chance step: its outcomes are
  the equally likely turn orders written ``2-1-3`` (seat 2, East, plays first, then North, then
  South).
* ``dice=rolled`` (default): a roll is due before every turn. ``dice=turned`` (ELE-16): one roll
  before the first turn, then the die of the quadrant the stone was placed on (after a move: left
  from) is turned to its other colour; after a pass both dice are rolled again.
* ELE-8: when the player to act can neither place nor move, the engine passes for them inside
  the same step (event ``Light cannot place or move: pass``); the next player's dice are then due.
  A state never waits for a player who has no legal action.
* ELE-12: "every player passes twice in a row" is read as 2 × players consecutive passes with no
  placement or move between; the game then ends on points (equal best scores share first place).
* ELE-20 (decided in the rule book after this engine had it as a project rule): the game also
  ends on points after 10 turns per player in a row (20 with 2 players) without a placement or a
  point (moves that complete nothing and passes count). Without it a game can loop forever: with
  ``dice=turned`` the dice are deterministic after the first roll, and positions arise where each
  player's only legal action is a move that the next player's only move undoes (random playouts
  hit such loops in about 1 game of 400). Random 2-player play with rolled dice never came near
  the limit (longest quiet run seen: 11 turns in 2,000 games).

Scoring and removals
--------------------
* A placement or move completes the rank and/or file through the square it fills when that line
  is then full (a move along a line leaves a gap in it, so a move completes at most one line).
* ELE-10 (2 players): choices per completed line are ``own`` and ``opp`` when the line holds
  opponent stones, ``own`` and ``keep`` when it holds only the scorer's (``opp`` would remove
  nothing there, so it is refused). Default ``opp``, else ``keep``.
* ELE-15 (3–4 players): ``light`` or ``dark`` when the line holds both colours; a single-colour
  line is removed whole, so its one valid choice is its colour. Default: the colour with fewer
  stones in the line, light on a tie (a single-colour line: its colour).
* Choices of one turn apply together; a stone on two completed lines goes if either choice
  removes it (ELE-10). An action always carries the choice for every line it completes: a text
  without choices gets the defaults, and the canonical text lists them all (rank before file),
  so ``parse(format(a)) == a``.
* ELE-11 (2 players only): placing one's 8th stone wins at once. Otherwise the first to 5 points
  wins; with 3–4 players the first to 3 (ELE-15). A turn that ends the game still scores its
  lines but removes nothing (the choices are moot), so the final board of an all-stones win
  shows all eight stones and the position string needs no extra mark for it.

Notation (ELE-18, C-1)
----------------------
Placement ``E@a4`` (3–4 players ``LE@a4`` / ``DE@a4``), move ``b2-b3``, then one ``<line>:<choice>``
per completed line: ``W@d1 1:opp d:keep``. Input is case-insensitive and spaces, commas and
semicolons are ignored (C-1): ``e @ A4, 1 : opp`` reads as ``E@a4 1:opp``. In a 2-player game a
colour prefix is accepted when it is the player's own. Illegal moves name the rule they break.

Position string (ELE-19)
------------------------
``<rank 4>/<rank 3>/<rank 2>/<rank 1> <supply> <scores> <turn> <dice> <passes> <quiet>`` and,
with 3–4 players, ``<seating order>``.

* Squares: ``.`` empty, ``F W E A`` light, ``f w e a`` dark.
* Supply: 2 players ``<light>/<dark>``, 3–4 players the common supply; ``-`` when empty. It
  always agrees with the board (every stone not on the board is in a supply).
* Scores ``2-1``. Turn: ``L``/``D``, or the seat number ``1``–``4``, of the player whose turn it
  is (``?`` before the seating draw). Dice ``G+R``, ``?`` while a roll is due.
* Passes: consecutive passes (ELE-12). Quiet: turns in a row without a placement or a point.
* Seating order ``2-1-3`` (``?`` before the draw).
* The rule book's own five-field form ``<board> <supply> <scores> <turn> <dice>`` is read too:
  passes and quiet turns are then 0 and, with 3–4 players, the seats play in number order.

>>> state = Elemento().initial_state()
>>> state.position()
'..../..../..../.... FFWWEEAA/ffwweeaa 0-0 L ? 0 0'
>>> state = state.apply_chance("G+R").state
>>> len(state.legal_actions(0))
32
>>> state.format(state.parse(0, "e @ A4"))
'E@a4'
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from engine.core import (
    Cell,
    Event,
    Game,
    Grid,
    Option,
    Outcome,
    Resolution,
    State,
    Termination,
    game_over,
)
from engine.errors import (
    N_,
    NO_CHANCE_STEP,
    IllegalMoveError,
    Nn_,
    NotationError,
    PositionError,
    Reason,
    and_list,
    commas,
    or_list,
)
from engine.notation import Board
from engine.registry import register

__all__ = ["Elemento", "ElementoState", "Move", "Placement"]

BOARD = Board(files=4, ranks=4)
FILES = "abcd"
SQUARES = range(16)
EMPTY = "."
ELEMENTS = "fwea"
ELEMENT_NAMES = {"f": "fire", "w": "water", "e": "earth", "a": "air"}
STONES = "FWEAfwea"
COPIES = 2
COLOUR_NAMES = {"G": "green", "Y": "yellow", "R": "red", "B": "blue"}
LEGEND_WORDS = (
    *(N_("light fire"), N_("light water"), N_("light earth"), N_("light air")),
    *(N_("dark fire"), N_("dark water"), N_("dark earth"), N_("dark air")),
    *(N_("green quadrant"), N_("yellow quadrant"), N_("red quadrant"), N_("blue quadrant")),
)
"""The grid legend's words (``_stone_name`` and the quadrants), marked for the service to
translate where it shows them."""
OTHER_FACE = {"G": "Y", "Y": "G", "R": "B", "B": "R"}
_SEPARATORS = re.compile(r"[\s,;]+")
_HEAD = re.compile(r"(?P<stone>[a-z]*)@(?P<square>[a-z]\d)|(?P<origin>[a-z]\d)-(?P<target>[a-z]\d)")
_CHOICE = re.compile(r"(?P<line>[^:]):(?P<word>[a-z]+?)(?=[^:]:|$)")
ROLLS = ("G+R", "G+B", "Y+R", "Y+B")
QUIET_TURNS_PER_PLAYER = 10
CHOICES_2P = ("own", "opp", "keep")
CHOICES_MULTI = ("light", "dark")
SEAT_NAMES_MULTI = ("North", "East", "South", "West")
RULE_BOOK_FIELDS = ("<board>", "<supply>", "<scores>", "<turn>", "<dice>")


def _square(index: int) -> str:
    return BOARD.square(index % 4, index // 4)


def _index(file: int, rank: int) -> int:
    return rank * 4 + file


def _quadrant(index: int) -> str:
    """ELE-1: green top left, yellow top right, red bottom left, blue bottom right."""
    file, rank = index % 4, index // 4
    return ("R", "B", "G", "Y")[(rank >= 2) * 2 + (file >= 2)]


def _rank_line(index: int) -> str:
    return str(index // 4 + 1)


def _file_line(index: int) -> str:
    return FILES[index % 4]


def _line_squares(line: str) -> tuple[int, ...]:
    if line.isdigit():
        rank = int(line) - 1
        return tuple(_index(file, rank) for file in range(4))
    file = FILES.index(line)
    return tuple(_index(file, rank) for rank in range(4))


def _line_name(line: str) -> str:
    return f"rank {line}" if line.isdigit() else f"file {line}"


def _groups(index: int) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """The rank, file and quadrant through a square, named for messages (ELE-4)."""
    quadrant = _quadrant(index)
    return (
        (_line_name(_rank_line(index)), _line_squares(_rank_line(index))),
        (_line_name(_file_line(index)), _line_squares(_file_line(index))),
        (
            f"the {COLOUR_NAMES[quadrant]} quadrant",
            tuple(i for i in SQUARES if _quadrant(i) == quadrant),
        ),
    )


GROUPS = tuple(_groups(index) for index in SQUARES)


def _is_light(stone: str) -> bool:
    return stone.isupper()


def _stone_name(stone: str) -> str:
    return f"{'light' if _is_light(stone) else 'dark'} {ELEMENT_NAMES[stone.lower()]}"


_ELEMENT_WORDS = {
    "f": Reason("element_fire", N_("fire")),
    "w": Reason("element_water", N_("water")),
    "e": Reason("element_earth", N_("earth")),
    "a": Reason("element_air", N_("air")),
}
_COLOUR_WORDS = {
    "G": Reason("colour_green", N_("green")),
    "Y": Reason("colour_yellow", N_("yellow")),
    "R": Reason("colour_red", N_("red")),
    "B": Reason("colour_blue", N_("blue")),
}
"""Elements and dice colours as words in error messages, so that they are translated."""


def _stone_words(stone: str) -> Reason:
    """``light fire`` for error messages (translated with them); see :func:`_stone_name`."""
    element = _ELEMENT_WORDS[stone.lower()]
    if _is_light(stone):
        return Reason("light_stone", N_("light {element}"), element=element)
    return Reason("dark_stone", N_("dark {element}"), element=element)


def _line_words(line: str) -> Reason:
    """``rank 3`` or ``file c`` for error messages; see :func:`_line_name`."""
    if line.isdigit():
        return Reason("line_rank", N_("rank {rank}"), rank=line)
    return Reason("line_file", N_("file {file}"), file=line)


def _removes_light(choice: str, seat: int) -> bool:
    """Whether a removal choice takes the light stones: ``light``/``dark`` name the colour
    (ELE-15, any seat); ``own``/``opp`` are relative to the scorer, Light being seat 0 (ELE-10)."""
    if choice in CHOICES_MULTI:
        return choice == "light"
    return (choice == "own") == (seat == 0)


def _neighbours(index: int) -> tuple[int, ...]:
    file, rank = index % 4, index // 4
    steps = ((0, 1), (0, -1), (1, 0), (-1, 0))
    return tuple(
        _index(file + df, rank + dr) for df, dr in steps if BOARD.contains(file + df, rank + dr)
    )


@dataclass(frozen=True)
class Placement:
    """ELE-6: a stone from the supply onto an empty square; ``choices`` per completed line."""

    stone: str
    square: int
    choices: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Move:
    """ELE-7/ELE-14: a stone one square orthogonally; ``choices`` per completed line."""

    origin: int
    target: int
    choices: tuple[tuple[str, str], ...] = ()


Action = Placement | Move


@register
class Elemento(Game):
    """Elemento for 2, 3 or 4 players (ELE-1..ELE-20)."""

    name = "elemento"
    title = "Elemento"
    player_counts = (2, 3, 4)
    cap_decision: ClassVar[str] = "score"
    OPTIONS: ClassVar[Mapping[str, Option]] = {
        "dice": Option(
            "rolled", ("rolled", "turned"), "rolled before every turn, or turned (ELE-16)"
        ),
    }

    @property
    def seat_names(self) -> tuple[str, ...]:
        if self.players == 2:
            return ("Light", "Dark")
        return SEAT_NAMES_MULTI[: self.players]

    @property
    def target(self) -> int:
        """Points that win: 5 with 2 players (ELE-11), 3 with more (ELE-15)."""
        return 5 if self.players == 2 else 3

    @property
    def quiet_limit(self) -> int:
        """Turns in a row without a placement or a point that end the game (ELE-20)."""
        return QUIET_TURNS_PER_PLAYER * self.players

    @property
    def turned(self) -> bool:
        return self.option("dice") == "turned"

    def initial_state(self) -> ElementoState:
        order = (0, 1) if self.players == 2 else ()
        return ElementoState(self, EMPTY * 16, (0,) * self.players, order, 0, "", 0, 0)

    def seat_label(self, seat: int) -> str:
        return "LD"[seat] if self.players == 2 else str(seat + 1)

    def parse_position(self, text: str) -> ElementoState:
        return _PositionReader(self, text).read()

    def state_from_json(self, data: Mapping[str, Any]) -> ElementoState:
        position = data.get("position")
        if not isinstance(position, str):
            reason = Reason(
                "elemento_lacks_position", N_("stored Elemento state lacks its position")
            )
            raise PositionError(str(dict(data))[:80], reason)
        return self.parse_position(position)


@dataclass(frozen=True)
class ElementoState(State):
    """A position: ``board`` holds 16 characters, index ``rank * 4 + file`` (a1 first).

    ``order`` is the seating order (empty until drawn), ``turn`` an index into it, ``dice`` the
    pair to play with (empty while a roll is due), ``passes`` the consecutive passes, ``quiet``
    the turns in a row without a placement or a point.
    """

    game: Elemento
    board: str
    scores: tuple[int, ...]
    order: tuple[int, ...]
    turn: int
    dice: str
    passes: int
    quiet: int

    # -- who acts ------------------------------------------------------------------------

    @property
    def seat(self) -> int | None:
        """The seat whose turn it is (None before the seating draw)."""
        return self.order[self.turn] if self.order else None

    @property
    def to_act(self) -> tuple[int, ...]:
        if self.outcome or not self.dice or self.seat is None:
            return ()
        return (self.seat,)

    def adjudicate_at_cap(self) -> Outcome:
        """At a league's time cap the points decide (as ELE-12 ends on points)."""
        points = " : ".join(str(score) for score in self.scores)
        why = Reason(
            "ele_cap", N_("points {points} at the league's time cap (time cap)"), points=points
        )
        return Outcome.by_scores(self.scores, why, Termination.CAP)

    @property
    def outcome(self) -> Outcome | None:
        game, names = self.game, self.game.seat_names
        if game.players == 2:
            for seat in (0, 1):
                if not self.supply(seat):
                    why = Reason(
                        "ele_all_placed",
                        N_("{name} placed all 8 stones (ELE-11)"),
                        name=names[seat],
                    )
                    return Outcome.win(seat, 2, why, Termination.GOAL)
        best = max(self.scores)
        if best >= game.target:
            leader = names[self.scores.index(best)]
            rule = "ELE-11" if game.players == 2 else "ELE-15"
            forms = Nn_("{name} reached {n} point ({rule})", "{name} reached {n} points ({rule})")
            why = Reason("ele_target", forms, name=leader, n=game.target, rule=rule)
            return Outcome.by_scores(self.scores, why, Termination.SCORE)
        if self.passes >= 2 * game.players:
            why = Reason("ele_passes", N_("every player passed twice in a row (ELE-12)"))
            return Outcome.by_scores(self.scores, why, Termination.PASSES)
        if self.quiet >= game.quiet_limit:
            forms = Nn_(
                "{n} turn in a row without a placement or a point (ELE-20)",
                "{n} turns in a row without a placement or a point (ELE-20)",
            )
            why = Reason("ele_quiet", forms, n=self.quiet)
            return Outcome.by_scores(self.scores, why, Termination.NO_PROGRESS)
        return None

    def chance_outcomes(self) -> tuple[str, ...]:
        if self.outcome or self.dice:
            return ()
        if not self.order:
            seats = range(1, self.game.players + 1)
            return tuple("-".join(map(str, order)) for order in itertools.permutations(seats))
        return ROLLS

    def apply_chance(self, outcome: str) -> Resolution:
        outcomes = self.chance_outcomes()
        text = outcome.strip().upper()
        if text not in outcomes:
            if not outcomes:
                raise IllegalMoveError(outcome, NO_CHANCE_STEP)
            reason = Reason("not_an_outcome", N_("not a possible outcome here"))
            raise IllegalMoveError(outcome, reason, valid=outcomes[:6])
        if not self.order:
            order = tuple(int(seat) - 1 for seat in text.split("-"))
            names = ", ".join(self.game.seat_names[seat] for seat in order)
            drawn = replace(self, order=order, turn=0)
            drawn_why = Reason("ele_seating", N_("seating order drawn: {names}"), names=names)
            return Resolution(drawn, (Event.told(drawn_why, "seating"),))
        rolled = replace(self, dice=text)
        rolled_why = Reason("ele_rolled", N_("rolled {dice}"), dice=text)
        return rolled._settle((Event.told(rolled_why, "roll", self.seat),))

    def status_reason(self, viewer: int | None = None) -> Reason:
        if self.chance_outcomes() and self.seat is not None:
            name = self.game.seat_names[self.seat]
            return Reason("status_elemento_dice", N_("Waiting for the dice of {name}"), name=name)
        if self.chance_outcomes():
            return Reason("status_elemento_seating", N_("Waiting for the seating draw (ELE-13)"))
        return super().status_reason(viewer)

    # -- supplies and the constraint -----------------------------------------------------

    def supply(self, seat: int | None = None) -> str:
        """Stones off the board: one player's (2 players) or the common supply (3–4)."""
        stones = STONES if seat is None else (STONES[:4] if seat == 0 else STONES[4:])
        return "".join(stone * (COPIES - self.board.count(stone)) for stone in stones)

    def _stones_for(self, seat: int) -> str:
        """The distinct stones ``seat`` may place now (ELE-6, ELE-13)."""
        own = self.supply(seat if self.game.players == 2 else None)
        return "".join(stone for stone in STONES if stone in own)

    def _conflicts(self, element: str, index: int, vacated: int | None = None) -> list[str]:
        """Ranks, files and quadrants through ``index`` already holding ``element`` (ELE-4)."""
        found = []
        for name, squares in GROUPS[index]:
            hits = [
                _square(other)
                for other in squares
                if other not in (index, vacated) and self.board[other].lower() == element
            ]
            if hits:
                found.append(f"{name} ({', '.join(hits)})")
        return found

    def _fits(self, element: str, index: int, vacated: int | None = None) -> bool:
        return not any(
            other not in (index, vacated) and self.board[other].lower() == element
            for _, squares in GROUPS[index]
            for other in squares
        )

    def _rolled(self, index: int) -> bool:
        return _quadrant(index) in self.dice

    def _owns(self, seat: int, stone: str) -> bool:
        """2 players move only their own stones (ELE-7); 3–4 players any stone (ELE-14)."""
        return self.game.players > 2 or _is_light(stone) == (seat == 0)

    # -- legal actions -------------------------------------------------------------------

    def _placements(self, seat: int) -> list[tuple[str, int]]:
        stones = self._stones_for(seat)
        return [
            (stone, index)
            for index in SQUARES
            if self.board[index] == EMPTY and self._rolled(index)
            for stone in stones
            if self._fits(stone.lower(), index)
        ]

    def _moves(self, seat: int) -> list[tuple[int, int]]:
        return [
            (origin, target)
            for origin in SQUARES
            if self.board[origin] != EMPTY
            and self._rolled(origin)
            and self._owns(seat, self.board[origin])
            for target in _neighbours(origin)
            if self.board[target] == EMPTY
            and self._fits(self.board[origin].lower(), target, origin)
        ]

    def legal_actions(self, seat: int) -> Sequence[Action]:
        if seat not in self.to_act:
            return []
        return self._all_actions(seat)

    def _all_actions(self, seat: int) -> list[Action]:
        actions: list[Action] = []
        if placements := self._placements(seat):
            for stone, index in placements:
                after = self._board_with(index, stone)
                for choices in self._choice_sets(seat, after, index):
                    actions.append(Placement(stone, index, choices))
            return actions
        for origin, target in self._moves(seat):
            after = self._board_with(target, self.board[origin], origin)
            for choices in self._choice_sets(seat, after, target):
                actions.append(Move(origin, target, choices))
        return actions

    def _board_with(self, index: int, stone: str, vacated: int | None = None) -> str:
        cells = list(self.board)
        cells[index] = stone
        if vacated is not None:
            cells[vacated] = EMPTY
        return "".join(cells)

    @staticmethod
    def _completed(board: str, index: int) -> tuple[str, ...]:
        """ELE-9: the rank and/or file through ``index`` that are full (rank first)."""
        lines = (_rank_line(index), _file_line(index))
        return tuple(line for line in lines if all(board[i] != EMPTY for i in _line_squares(line)))

    def _valid_choices(self, seat: int, board: str, line: str) -> tuple[str, ...]:
        """ELE-10 / ELE-15: what the scorer may choose for one completed line, default first."""
        stones = [board[i] for i in _line_squares(line)]
        light = sum(_is_light(stone) for stone in stones)
        dark = len(stones) - light
        if self.game.players == 2:
            opponent = dark if seat == 0 else light
            return ("opp", "own") if opponent else ("keep", "own")
        if not dark:
            return ("light",)
        if not light:
            return ("dark",)
        return ("light", "dark") if light <= dark else ("dark", "light")

    def _choice_sets(self, seat: int, board: str, index: int) -> list[tuple[tuple[str, str], ...]]:
        lines = self._completed(board, index)
        options = [
            [(line, choice) for choice in self._valid_choices(seat, board, line)] for line in lines
        ]
        return [tuple(combo) for combo in itertools.product(*options)]

    # -- notation ------------------------------------------------------------------------

    def format(self, action: Action) -> str:
        if isinstance(action, Placement):
            element = action.stone.upper()
            colour = "" if self.game.players == 2 else ("L" if _is_light(action.stone) else "D")
            text = f"{colour}{element}@{_square(action.square)}"
        else:
            text = f"{_square(action.origin)}-{_square(action.target)}"
        return " ".join([text, *(f"{line}:{choice}" for line, choice in action.choices)])

    def parse(self, seat: int, text: str) -> Action:
        return _MoveReader(self, seat, text).read()

    # -- stepping ------------------------------------------------------------------------

    def _resolve(self, actions: Mapping[int, Action]) -> Resolution:
        ((seat, action),) = actions.items()
        name = self.game.seat_names[seat]
        if isinstance(action, Placement):
            index, left = action.square, action.square
            board = self._board_with(index, action.stone)
            placed = Reason(
                "ele_placed",
                N_("{name} placed {stone} on {square}"),
                name=name,
                stone=_stone_words(action.stone),
                square=_square(index),
            )
            events = [Event.told(placed, "move", seat)]
        else:
            index, left = action.target, action.origin
            stone = self.board[action.origin]
            board = self._board_with(index, stone, action.origin)
            moved = Reason(
                "ele_moved",
                N_("{name} moved {stone} {origin}-{target}"),
                name=name,
                stone=_stone_words(stone),
                origin=_square(action.origin),
                target=_square(index),
            )
            events = [Event.told(moved, "move", seat)]
        scores = list(self.scores)
        scores[seat] += len(action.choices)
        for line, _ in action.choices:
            completed = Reason(
                "ele_completed",
                N_("{name} completed {line}: 1 point"),
                name=name,
                line=_line_words(line),
            )
            events.append(Event.told(completed, "score", seat))
        quiet = 0 if isinstance(action, Placement) or action.choices else self.quiet + 1
        after = replace(self, board=board, scores=tuple(scores), passes=0, quiet=quiet)
        if after.outcome is None:
            after = replace(after, board=self._remove(seat, board, action.choices, events))
        if after.outcome is not None:
            events.append(Event.told(game_over(after.outcome), "end"))
            return Resolution(after, tuple(events))
        dice = ""
        if self.game.turned:
            dice = self._turn_die(_quadrant(left))
            turned = Reason(
                "ele_dice_turned", N_("the dice are turned to {dice} (ELE-16)"), dice=dice
            )
            events.append(Event.told(turned, "dice", seat))
        return replace(after, turn=(self.turn + 1) % len(self.order), dice=dice)._settle(
            tuple(events)
        )

    def _remove(
        self, seat: int, board: str, choices: Sequence[tuple[str, str]], events: list[Event]
    ) -> str:
        """ELE-10 / ELE-15: all choices together; removed stones go back to the supply."""
        name, cells = self.game.seat_names[seat], list(board)
        for line, choice in choices:
            if choice == "keep":
                keeps = Reason(
                    "ele_keeps", N_("{name} keeps {line}"), name=name, line=_line_words(line)
                )
                events.append(Event.told(keeps, "remove", seat))
                continue
            light = _removes_light(choice, seat)
            gone = [
                i for i in _line_squares(line) if board[i] != EMPTY and _is_light(board[i]) == light
            ]
            for i in gone:
                cells[i] = EMPTY
            squares = ", ".join(_square(i) for i in gone)
            removes = (
                Reason(
                    "ele_removes_light",
                    N_("{name} removes the light stones of {line}: {squares}"),
                    name=name,
                    line=_line_words(line),
                    squares=squares,
                )
                if light
                else Reason(
                    "ele_removes_dark",
                    N_("{name} removes the dark stones of {line}: {squares}"),
                    name=name,
                    line=_line_words(line),
                    squares=squares,
                )
            )
            events.append(Event.told(removes, "remove", seat))
        return "".join(cells)

    def _turn_die(self, colour: str) -> str:
        """ELE-16: the die showing ``colour`` turns to its other face."""
        top, bottom = self.dice.split("+")
        if colour == top:
            top = OTHER_FACE[top]
        else:
            bottom = OTHER_FACE[bottom]
        return f"{top}+{bottom}"

    def _settle(self, events: tuple[Event, ...]) -> Resolution:
        """ELE-8: a player with dice but no legal action passes at once."""
        if self.to_act and not self._all_actions(self.to_act[0]):
            name = self.game.seat_names[self.to_act[0]]
            passed = replace(
                self,
                turn=(self.turn + 1) % len(self.order),
                dice="",
                passes=self.passes + 1,
                quiet=self.quiet + 1,
            )
            why = Reason("ele_pass", N_("{name} cannot place or move: pass"), name=name)
            events = (*events, Event.told(why, "pass", self.seat))
            if passed.outcome is not None:
                events = (*events, Event.told(game_over(passed.outcome), "end"))
            return Resolution(passed, events)
        return Resolution(self, events)

    def fast_perft(self, depth: int) -> int:
        """perft through chance steps: every outcome is a branch, but not a ply."""
        return _perft(self, depth)

    # -- output --------------------------------------------------------------------------

    def position(self) -> str:
        ranks = "/".join(self.board[rank * 4 : rank * 4 + 4] for rank in (3, 2, 1, 0))
        if self.game.players == 2:
            supply = "/".join(self.supply(seat) or "-" for seat in (0, 1))
        else:
            supply = self.supply() or "-"
        scores = "-".join(map(str, self.scores))
        turn = "?" if self.seat is None else self.game.seat_label(self.seat)
        fields = [ranks, supply, scores, turn, self.dice or "?", str(self.passes), str(self.quiet)]
        if self.game.players > 2:
            fields.append("-".join(str(seat + 1) for seat in self.order) or "?")
        return " ".join(fields)

    def ascii(self, viewer: int | None = None) -> str:
        """Quadrants divided; each cell quadrant letter (capital when rolled) and stone."""
        header = "       a     b     c     d"
        rule = "   +-----------+-----------+"
        lines = [header, rule]
        for rank in (3, 2, 1, 0):
            cells = []
            for file in range(4):
                index = _index(file, rank)
                quadrant = _quadrant(index)
                letter = quadrant if quadrant in self.dice else quadrant.lower()
                cells.append(f"{letter}:{self.board[index]}")
            number = rank + 1
            lines.append(
                f" {number} | {cells[0]}   {cells[1]} | {cells[2]}   {cells[3]} | {number}"
            )
            if rank == 2:
                lines.append(rule)
        lines += [rule, header, *(why.render() for why in self.legend_why(viewer))]
        return "\n".join(lines)

    def legend_why(self, viewer: int | None = None) -> tuple[Reason, ...]:
        """The quadrants' letters, then how stones are drawn and how a move names them
        (ELE-18): the board shows light stones as capitals and dark ones as small letters, but
        a placement never writes a small letter: 2 players write the element only, 3–4 players
        L or D and the element. The letters stay in every language (they are the board's and
        the notation's)."""
        quadrants = N_("Quadrants G green, Y yellow, R red, B blue (capital: on the dice now).")
        drawn = N_("Stones F fire, W water, E earth, A air (board: capital light, small dark).")
        if self.game.players == 2:
            how = Reason(
                "ele_legend_place_2", N_("Place your own colour by element: F@c1; move: b2-b3.")
            )
        else:
            how = Reason(
                "ele_legend_place_multi",
                N_("Place with L (light) or D (dark) first: LF@c1, DW@d1; move: b2-b3."),
            )
        return (
            Reason("ele_legend_quadrants", quadrants),
            Reason("ele_legend_stones", drawn),
            how,
        )

    def grid(self, viewer: int | None = None) -> Grid:
        rows = []
        for rank in (3, 2, 1, 0):
            row = []
            for file in range(4):
                index = _index(file, rank)
                stone = self.board[index]
                colour = COLOUR_NAMES[_quadrant(index)]
                what = "empty" if stone == EMPTY else _stone_name(stone)
                title = f"{_square(index)}: {colour}, {what}"
                text = "" if stone == EMPTY else stone
                row.append(Cell(_square(index), text, colour, title))
            rows.append(tuple(row))
        legend = tuple((stone, _stone_name(stone)) for stone in STONES) + tuple(
            (word, f"{word} quadrant") for word in COLOUR_NAMES.values()
        )
        return Grid(tuple(FILES), ("4", "3", "2", "1"), tuple(rows), legend)

    def info_why(self, viewer: int | None = None) -> tuple[Reason, ...]:
        names, game = self.game.seat_names, self.game
        scores = commas(
            [
                Reason("ele_seat_score", "{name} {score}", name=names[seat], score=score)
                for seat, score in enumerate(self.scores)
            ]
        )
        lines = [
            Reason(
                "ele_info_score",
                N_("Score: {scores} (first to {target} wins)"),
                scores=scores,
                target=game.target,
            )
        ]
        if game.players == 2:
            lines.append(
                Reason(
                    "ele_info_supply",
                    N_("Supply: {light_name} {light}, {dark_name} {dark}"),
                    light_name=names[0],
                    light=self.supply(0) or "-",
                    dark_name=names[1],
                    dark=self.supply(1) or "-",
                )
            )
        else:
            common = Reason(
                "ele_info_common", N_("Common supply: {supply}"), supply=self.supply() or "-"
            )
            lines.append(common)
            if self.order:
                order = commas([Reason.literal(names[seat]) for seat in self.order])
                lines.append(
                    Reason(
                        "ele_info_order",
                        N_("Turn order (drawn, ELE-13): {order}; {name} first"),
                        order=order,
                        name=names[self.order[0]],
                    )
                )
        if self.dice:
            first, second = (_COLOUR_WORDS[c] for c in self.dice.split("+"))
            colours = Reason("or_list", N_("{first} or {rest}"), first=first, rest=second)
            lines.append(
                Reason(
                    "ele_info_dice_turned",
                    N_("Dice (turned, ELE-16): {dice} ({colours})"),
                    dice=self.dice,
                    colours=colours,
                )
                if game.turned
                else Reason(
                    "ele_info_dice", N_("Dice: {dice} ({colours})"), dice=self.dice, colours=colours
                )
            )
        elif self.order:
            lines.append(
                Reason("ele_info_to_turn", N_("Dice (turned, ELE-16): to be rolled"))
                if game.turned
                else Reason("ele_info_to_roll", N_("Dice: to be rolled"))
            )
        if self.quiet >= game.quiet_limit // 2:
            lines.append(
                Reason(
                    "ele_info_quiet",
                    N_(
                        "Turns without a placement or a point: {quiet} "
                        "(the game ends at {limit}, ELE-20)"
                    ),
                    quiet=self.quiet,
                    limit=game.quiet_limit,
                )
            )
        if self.passes:
            lines.append(
                Reason(
                    "ele_info_passes",
                    N_("Passes in a row: {passes} (the game ends at {limit}, ELE-12)"),
                    passes=self.passes,
                    limit=2 * game.players,
                )
            )
        return tuple(lines)

    def to_json(self) -> dict[str, Any]:
        return {**self.game.to_json(), "position": self.position()}


def _perft(state: State, depth: int) -> int:
    if depth == 0:
        return 1
    if state.is_over:
        return 0
    if outcomes := state.chance_outcomes():
        return sum(_perft(state.apply_chance(outcome).state, depth) for outcome in outcomes)
    seat = state.to_act[0]
    actions = state.legal_actions(seat)
    if depth == 1:
        return len(actions)
    return sum(_perft(state.play(seat, action).state, depth - 1) for action in actions)


def _clash(conflicts: Sequence[str], stone: str) -> Reason:
    """ELE-4 in words, e.g. ``rank 3 (d3) and file c (c2) already hold fire``."""
    return Reason(
        "element_clash",
        Nn_("{held} already holds {element}", "{held} already hold {element}"),
        n=len(conflicts),
        held=and_list(conflicts),
        element=_ELEMENT_WORDS[stone.lower()],
    )


class _MoveReader:
    """Reads one move text (ELE-18) against a state, with messages naming the rule."""

    def __init__(self, state: ElementoState, seat: int, text: str) -> None:
        self.state, self.seat, self.text = state, seat, text

    def syntax(self, reason: Reason) -> NotationError:
        examples = self.state.examples(self.seat, 3)
        return NotationError(self.text, reason, rule="ELE-18", valid=examples)

    def illegal(self, reason: Reason, rule: str) -> IllegalMoveError:
        return IllegalMoveError(self.text, reason, rule=rule)

    def read(self) -> Action:
        if not self.state.dice:
            reason = Reason("dice_not_rolled", N_("the dice have not been rolled yet"))
            raise IllegalMoveError(self.text, reason, rule="ELE-6")
        compact = _SEPARATORS.sub("", self.text.lower())
        head = _HEAD.match(compact)
        if not head:
            raise self.syntax(
                Reason("ele_move_form", N_("write a placement like E@a4 or a move like b2-b3"))
            )
        if head["square"]:
            action: Action = self._placement(head["stone"], head["square"])
        else:
            action = self._move(head["origin"], head["target"])
        return self._with_choices(action, self._choices(compact, head.end()))

    def _choices(self, compact: str, start: int) -> list[tuple[str, str]]:
        """The ``<line>:<choice>`` pairs after the move, in the order written."""
        pairs = []
        while start < len(compact):
            found = _CHOICE.match(compact, start)
            if not found:
                example = "1:light" if self.state.game.players > 2 else "1:opp"
                rest = compact[start:]
                template = N_("after the move come removal choices like {example}, not {rest!r}")
                raise self.syntax(Reason("ele_choices_form", template, example=example, rest=rest))
            pairs.append((found["line"], found["word"]))
            start = found.end()
        return pairs

    def _parse_square(self, text: str) -> int:
        file, rank = BOARD.parse_square(text, self.text)
        return _index(file, rank)

    def _placement(self, stone_text: str, square_text: str) -> Placement:
        players = self.state.game.players
        example = "E@a4" if players == 2 else or_list(["LE@a4", "DE@a4"])
        if len(stone_text) not in (1, 2) or stone_text[-1] not in ELEMENTS:
            template = N_("a placement is <element>@<square> with F W E A, e.g. {example}")
            raise self.syntax(Reason("ele_placement_form", template, example=example))
        colour = stone_text[0] if len(stone_text) == 2 else ""
        if colour and colour not in "ld":
            template = N_("the colour before the element is L (light) or D (dark)")
            raise self.syntax(Reason("ele_colour_letter", template))
        index = self._parse_square(square_text)
        element = stone_text[-1]
        if players == 2:
            own = "l" if self.seat == 0 else "d"
            if colour and colour != own:
                reason = (
                    Reason("place_own_light", N_("you place only your own (light) stones"))
                    if own == "l"
                    else Reason("place_own_dark", N_("you place only your own (dark) stones"))
                )
                raise self.illegal(reason, "ELE-6")
            stone = element.upper() if self.seat == 0 else element
        elif not colour:
            template = N_("say the colour too in a {players}-player game: {example}")
            raise self.syntax(Reason("say_colour", template, players=players, example=example))
        else:
            stone = element.upper() if colour == "l" else element
        self._check_placement(stone, index)
        return Placement(stone, index)

    def _check_placement(self, stone: str, index: int) -> None:
        state, square = self.state, _square(index)
        if not state._rolled(index):
            raise self.illegal(self._colour_reason(index, "place"), "ELE-6")
        if state.board[index] != EMPTY:
            raise self.illegal(_not_empty(square, state.board[index]), "ELE-6")
        if stone not in state._stones_for(self.seat):
            words = _stone_words(stone)
            reason = (
                Reason("none_left_own", N_("no {stone} stone is left in your supply"), stone=words)
                if state.game.players == 2
                else Reason(
                    "none_left_common",
                    N_("no {stone} stone is left in the common supply"),
                    stone=words,
                )
            )
            raise self.illegal(reason, "ELE-6")
        if conflicts := state._conflicts(stone.lower(), index):
            raise self.illegal(_clash(conflicts, stone), "ELE-4")

    def _colour_reason(self, index: int, verb: str) -> Reason:
        first, second = (_COLOUR_WORDS[c] for c in self.state.dice.split("+"))
        square, colour, dice = _square(index), _COLOUR_WORDS[_quadrant(index)], self.state.dice
        if verb == "place":
            template = N_(
                "{square} is {colour} but the dice show {dice}: "
                "place on a {first} or {second} square"
            )
            return Reason(
                "wrong_colour_place",
                template,
                square=square,
                colour=colour,
                dice=dice,
                first=first,
                second=second,
            )
        template = N_(
            "{square} is {colour} but the dice show {dice}: move from a {first} or {second} square"
        )
        return Reason(
            "wrong_colour_move",
            template,
            square=square,
            colour=colour,
            dice=dice,
            first=first,
            second=second,
        )

    def _move(self, origin_text: str, target_text: str) -> Move:
        origin, target = self._parse_square(origin_text), self._parse_square(target_text)
        state = self.state
        rule = "ELE-7" if state.game.players == 2 else "ELE-14"
        if placements := state._placements(self.seat):
            example = self.state.format(Placement(*placements[0]))
            template = N_("a move is allowed only when no placement is possible; e.g. {example}")
            raise self.illegal(Reason("placement_first", template, example=example), "ELE-7")
        stone = state.board[origin]
        if stone == EMPTY:
            template = N_("there is no stone on {square}")
            raise self.illegal(Reason("no_stone_on", template, square=_square(origin)), rule)
        if not state._owns(self.seat, stone):
            template = N_("{square} holds a {stone} stone; you move only your own stones")
            reason = Reason(
                "move_own_only", template, square=_square(origin), stone=_stone_words(stone)
            )
            raise self.illegal(reason, rule)
        if not state._rolled(origin):
            raise self.illegal(self._colour_reason(origin, "move"), rule)
        if target not in _neighbours(origin):
            template = N_("a stone moves one square up, down, left or right")
            raise self.illegal(Reason("one_square_step", template), rule)
        if state.board[target] != EMPTY:
            raise self.illegal(_not_empty(_square(target), state.board[target]), rule)
        if conflicts := state._conflicts(stone.lower(), target, origin):
            raise self.illegal(_clash(conflicts, stone), "ELE-4")
        return Move(origin, target)

    def _with_choices(self, action: Action, pairs: Sequence[tuple[str, str]]) -> Action:
        state = self.state
        multi = state.game.players > 2
        rule = "ELE-15" if multi else "ELE-10"
        words = CHOICES_MULTI if multi else CHOICES_2P
        if isinstance(action, Placement):
            index = action.square
            board = state._board_with(index, action.stone)
        else:
            index = action.target
            board = state._board_with(index, state.board[action.origin], action.origin)
        completed = ElementoState._completed(board, index)
        given: dict[str, str] = {}
        for line, choice in pairs:
            if line not in "1234abcd":
                template = N_("{line!r} is no line: a rank 1 to 4 or a file a to d")
                raise self.syntax(Reason("no_such_line", template, line=line))
            if choice not in words:
                template = N_("a removal choice is one of {choices}")
                raise self.syntax(Reason("removal_choices", template, choices=", ".join(words)))
            if line in given:
                template = N_("{line} has two choices")
                raise self.syntax(Reason("line_two_choices", template, line=_line_words(line)))
            if line not in completed:
                raise self.illegal(_not_completed(line, completed, action), rule)
            valid = state._valid_choices(self.seat, board, line)
            if choice not in valid:
                raise self.illegal(self._choice_reason(line, choice, valid), rule)
            given[line] = choice
        choices = tuple(
            (line, given.get(line, state._valid_choices(self.seat, board, line)[0]))
            for line in completed
        )
        return replace(action, choices=choices)

    def _choice_reason(self, line: str, choice: str, valid: Sequence[str]) -> Reason:
        name = _line_words(line)
        options = or_list([f"{line}:{word}" for word in sorted(valid)])
        if choice == "keep":
            template = N_("{line} holds opponent stones: keep is not possible, write {options}")
            return Reason("keep_impossible", template, line=name, options=options)
        if choice == "opp":
            template = N_("{line} holds no opponent stones: write {options}")
            return Reason("no_opponent_stones", template, line=name, options=options)
        template = N_("{line} holds only {which} stones and is removed whole: write {options}")
        return Reason("removed_whole", template, line=name, which=valid[0], options=options)


def _not_empty(square: str, occupant: str) -> Reason:
    template = N_("{square} is not empty: {stone} stands there")
    return Reason("square_not_empty", template, square=square, stone=_stone_words(occupant))


def _not_completed(line: str, completed: Sequence[str], action: Action) -> Reason:
    done = ", ".join(_line_name(done) for done in completed) or Reason("none", N_("none"))
    words = _line_words(line)
    if isinstance(action, Placement):
        template = N_("{line} is not completed by this placement (completed: {done})")
        return Reason("not_completed_placement", template, line=words, done=done)
    template = N_("{line} is not completed by this move (completed: {done})")
    return Reason("not_completed_move", template, line=words, done=done)


class _PositionReader:
    """Reads a position string (ELE-19)."""

    def __init__(self, game: Elemento, text: str) -> None:
        self.game, self.text = game, text

    def error(self, reason: Reason) -> PositionError:
        return PositionError(self.text, reason, rule="ELE-19")

    def read(self) -> ElementoState:
        game = self.game
        fields = self.text.split()
        full = 7 if game.players == 2 else 8
        if len(fields) == len(RULE_BOOK_FIELDS):
            fields += self._rule_book_defaults(fields[3])
        if len(fields) != full:
            form = "<board> <supply> <scores> <turn> <dice> <passes> <quiet>"
            if game.players > 2:
                form += " <seating order>"
            short = " ".join(RULE_BOOK_FIELDS)
            template = N_("expected {count} fields: {form} (or the rule book's 5: {short})")
            raise self.error(Reason("ele_fields", template, count=full, form=form, short=short))
        board = self._board(fields[0])
        self._supply(board, fields[1])
        scores = self._scores(fields[2])
        order = (0, 1) if game.players == 2 else self._order(fields[7])
        turn = self._turn(fields[3], order)
        dice = self._dice(fields[4], order)
        passes = self._counter(Reason("passes", N_("passes")), fields[5], 2 * game.players)
        quiet = self._counter(Reason("quiet_turns", N_("quiet turns")), fields[6], game.quiet_limit)
        state = ElementoState(game, board, scores, order, turn, dice, passes, quiet)
        if state.to_act and not state._all_actions(state.to_act[0]):
            name = game.seat_names[state.to_act[0]]
            template = N_(
                "{seat} cannot place or move with {dice} and would have passed "
                "(ELE-8); give the position after the pass"
            )
            raise self.error(Reason("would_have_passed", template, seat=name, dice=dice))
        return state

    def _rule_book_defaults(self, turn: str) -> list[str]:
        """The project-only fields of the rule book's five-field form (ELE-19): no passes, no
        quiet turns, and with 3–4 players the seats in number order (``?`` before the draw)."""
        if self.game.players == 2:
            return ["0", "0"]
        order = "?" if turn == "?" else "-".join(map(str, range(1, self.game.players + 1)))
        return ["0", "0", order]

    def _counter(self, name: Reason, text: str, limit: int) -> int:
        if not text.isdigit() or int(text) > limit:
            template = N_("{name} {text!r} is not a number from 0 to {limit}")
            raise self.error(Reason("ele_counter", template, name=name, text=text, limit=limit))
        return int(text)

    def _board(self, text: str) -> str:
        ranks = text.split("/")
        if len(ranks) != 4 or any(len(rank) != 4 for rank in ranks):
            template = N_("the board is 4 ranks of 4 squares, rank 4 first: ..../..../..../....")
            raise self.error(Reason("ele_board_shape", template))
        board = "".join(reversed(ranks))
        if bad := set(board) - set(STONES + EMPTY):
            template = N_("unknown board letters {letters}; use . F W E A f w e a")
            raise self.error(Reason("ele_board_letters", template, letters="".join(sorted(bad))))
        for stone in STONES:
            if board.count(stone) > COPIES:
                template = N_("more than {copies} {stone} stones on the board")
                reason = Reason(
                    "too_many_stones", template, copies=COPIES, stone=_stone_words(stone)
                )
                raise self.error(reason)
        probe = ElementoState(self.game, board, (), (), 0, "", 0, 0)
        for index in SQUARES:
            if board[index] != EMPTY and (clash := probe._conflicts(board[index].lower(), index)):
                template = N_("{element} on {square} repeats in {group} (ELE-4)")
                reason = Reason(
                    "element_repeats",
                    template,
                    element=_ELEMENT_WORDS[board[index].lower()],
                    square=_square(index),
                    group=clash[0],
                )
                raise self.error(reason)
        return board

    def _supply(self, board: str, text: str) -> None:
        probe = ElementoState(self.game, board, (), (), 0, "", 0, 0)
        if self.game.players == 2:
            expected = "/".join(probe.supply(seat) or "-" for seat in (0, 1))
        else:
            expected = probe.supply() or "-"
        if text != expected:
            template = N_("supply {text!r} does not match the board, which leaves {expected}")
            raise self.error(Reason("supply_mismatch", template, text=text, expected=expected))

    def _scores(self, text: str) -> tuple[int, ...]:
        parts = text.split("-")
        if len(parts) != self.game.players or not all(part.isdigit() for part in parts):
            template = N_("scores {text!r} are one number per player, like 0-0")
            raise self.error(Reason("ele_scores", template, text=text))
        return tuple(int(part) for part in parts)

    def _order(self, text: str) -> tuple[int, ...]:
        if text == "?":
            return ()
        seats = text.split("-")
        wanted = sorted(str(seat) for seat in range(1, self.game.players + 1))
        if sorted(seats) != wanted:
            template = N_("seating order {text!r} is each seat once, like {example}")
            raise self.error(Reason("seating_order", template, text=text, example="-".join(wanted)))
        return tuple(int(seat) - 1 for seat in seats)

    def _turn(self, text: str, order: tuple[int, ...]) -> int:
        labels = [self.game.seat_label(seat) for seat in range(self.game.players)]
        if not order:
            if text != "?":
                template = N_("before the seating draw the turn is '?'")
                raise self.error(Reason("turn_before_draw", template))
            return 0
        if text.upper() not in labels:
            template = N_("turn {text!r} is one of {labels}")
            raise self.error(Reason("ele_turn", template, text=text, labels=", ".join(labels)))
        return order.index(labels.index(text.upper()))

    def _dice(self, text: str, order: tuple[int, ...]) -> str:
        if text == "?":
            return ""
        if text.upper() not in ROLLS or not order:
            template = N_("dice {text!r} are ? or one of {rolls}")
            raise self.error(Reason("ele_dice", template, text=text, rolls=", ".join(ROLLS)))
        return text.upper()
