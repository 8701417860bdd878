"""Anti-Grid (David M. McCord, 2009): two interleaved grids, flanking capture (ANT-1..ANT-18).

The rule book is ``shared/rules/anti-grid.md``; its geometry (ANT-1..ANT-5) is rebuilt from
text. Decisions this module makes where the rule book leaves room:

* **Which lines pass through a point.** A red point lies on two red lines (its rank and its
  file) and a blue point on two blue lines. A crossing lies on exactly one red line and one
  blue line: a crossing with an odd file index and an even rank index (``b3``) is on red rank
  3 and blue file b; one with an even file index and an odd rank index (``c2``) is on red
  file c and blue rank 2. No blue point lies on a red line and no red point on a blue line.
* **Moving (ANT-8).** A pawn moves along the lines *of its colour* through its point: two
  lines (four directions) from an own point, one line (two directions) from a crossing. The
  free-edge lines (Red's rank 1 and file a, Blue's top rank and right file) have no crossings;
  the cells between their points are no points, and a pawn passes over them freely.
* **Capturing (ANT-10).** The capture lines through the arrival point are *all* lines of the
  lattice that point belongs to, whatever their colour: a pawn arriving on a crossing looks
  along the red line and the blue line through it. This is what the rule book's example needs
  (Red arriving on crossing d9 along red rank 9 captures d6, d7 and d8 along blue file d). The
  "resting points" of a line are its points (own points and crossings), not the blank cells
  of a free edge. A run along an enemy line may mix pawns on points and on crossings; the
  flanking pawn stands on a crossing of that line.
* **Blockades (ANT-9).** Only crossings can be blockaded: a crossing is blocked for a mover
  when both enemy points next to it along the *enemy* line through it hold enemy pawns. A
  mover along its own line through that crossing may stop on it but not pass it. Only the
  points strictly between start and arrival are checked, so a pawn starting on a blocked
  crossing leaves it either way (and still stops at the next blocked crossing it meets).
* **ANT-11.** A pawn can only reach points of its own lines, none of which is an enemy point,
  so ANT-11 shows up as a refusal (``d3-d4`` for Red: d4 is a blue point) and as position
  strings that put a pawn on an enemy point being rejected. Nothing is ever removed for it.
* **End checks (ANT-12..ANT-15)** are made on the position as the player to move finds it, in
  this order: ANT-12 (one pawn or none; both sides at once, reachable only from a position
  string, is a draw), ANT-15 (the 60th move without a capture ends the game before the next
  turn starts, so it comes before the next player's turn checks), ANT-13 (no legal move),
  ANT-14 (every pawn on its side's unflankable points — its start points and its far corner
  — and no legal move leaving them).
* **Chains (ANT-16, option ``chain=on``).** An action is one :class:`Move` or, for a chain, a
  tuple of two or more. ``legal_actions`` lists the single moves only; ``parse`` validates a
  chain move by move: every move after the first must capture, and so must the one before
  it. "End conditions are checked after every single move" means: after each move of a chain
  the end checks are made on the position as the opponent would find it if the chain stopped
  there; if the game is over, the chain may not go on. ``random_action`` builds chains.
* **Position string (ANT-18).** The rows from the top rank are written cell by cell, ``/``
  between rows, then ``r`` or ``b`` for the side to move and the number of consecutive moves
  without a capture, e.g. ``..._B_B/... r 0``.

>>> state = AntiGrid({"board": "small"}).initial_state()
>>> len(state.legal_actions(0))
100
>>> state.play(0, "c1-c5").state.position().split()[1:]
['b', '1']
"""

from __future__ import annotations

import dataclasses
import random
import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

from engine.core import (
    Cell,
    Event,
    Game,
    Grid,
    Legend,
    Option,
    Outcome,
    Resolution,
    State,
    Termination,
    game_over,
)
from engine.errors import N_, IllegalMoveError, NotationError, PositionError, Reason, or_list
from engine.notation import Board, split_orders
from engine.registry import register

__all__ = ["AntiGrid", "AntiGridState", "Geometry", "Move", "geometry"]

RED, BLUE = 0, 1
COLOURS = ("red", "blue")
SEATS = ("Red", "Blue")
_COLOUR_WORDS = (Reason("colour_red", N_("red")), Reason("colour_blue", N_("blue")))
_SEAT_WORDS = (Reason("seat_red", N_("Red")), Reason("seat_blue", N_("Blue")))
"""Colours and seats as words in error messages, so that they are translated with them."""
PAWNS = ("R", "B")
EMPTY = "."
RED_POINT, BLUE_POINT, CROSSING, NO_POINT = "red-point", "blue-point", "crossing", "none"
OWN_POINT = (RED_POINT, BLUE_POINT)
QUIET_LIMIT = 60
SIDE_TOKENS = ("r", "b")

Ray = tuple[int, ...]


# -- geometry (ANT-1..ANT-6) ---------------------------------------------------------------


@dataclass(frozen=True)
class Geometry:
    """The lattice of one board size: points, lines, blockade guards and start points.

    Cells are numbered ``rank_index * size + file_index`` from a1.
    """

    n: int
    size: int
    kinds: tuple[str, ...]
    move_rays: tuple[tuple[tuple[Ray, ...], ...], ...]
    capture_rays: tuple[tuple[Ray, ...], ...]
    guards: tuple[tuple[tuple[int, int] | None, ...], ...]
    starts: tuple[tuple[int, ...], ...]
    havens: tuple[frozenset[int], ...]
    horizontal: tuple[tuple[bool, ...], ...]
    vertical: tuple[tuple[bool, ...], ...]

    @property
    def board(self) -> Board:
        return Board(self.size, self.size)

    def cell(self, x: int, y: int) -> int:
        return y * self.size + x

    def xy(self, cell: int) -> tuple[int, int]:
        return cell % self.size, cell // self.size

    def square(self, cell: int) -> str:
        x, y = self.xy(cell)
        return f"{string.ascii_lowercase[x]}{y + 1}"

    def line_name(self, origin: int, target: int) -> str:
        """'rank 5' or 'file d': the lattice row or column both cells stand on."""
        (x, y), (_, ty) = self.xy(origin), self.xy(target)
        return f"rank {y + 1}" if y == ty else f"file {string.ascii_lowercase[x]}"

    def line_colour(self, origin: int, target: int) -> int | None:
        """The colour of the line through both cells, if the lattice has one."""
        (x, y), (tx, ty) = self.xy(origin), self.xy(target)
        if y == ty:
            parity, spread = y % 2, (x, tx)
        elif x == tx:
            parity, spread = x % 2, (y, ty)
        else:
            return None
        last = self.size - 2 + parity
        return parity if min(spread) >= parity and max(spread) <= last else None


def _lines(n: int, colour: int) -> list[list[tuple[int, int]]]:
    """ANT-3: each colour's ranks and files, between its first and last point."""
    span = range(colour, 2 * n - 1 + colour)
    ranks = [[(x, y) for x in span] for y in span if y % 2 == colour]
    files = [[(x, y) for y in span] for x in span if x % 2 == colour]
    return ranks + files


@cache
def geometry(n: int) -> Geometry:
    """The board with n² points of each colour (ANT-1).

    >>> [geometry(8).kinds.count(kind) for kind in (RED_POINT, BLUE_POINT, CROSSING)]
    [64, 64, 98]
    """
    size = 2 * n
    lines = [_lines(n, RED), _lines(n, BLUE)]
    on_line = [{xy for line in lines[colour] for xy in line} for colour in (RED, BLUE)]

    def kind(x: int, y: int) -> str:
        if x % 2 == y % 2:
            return OWN_POINT[x % 2]
        return CROSSING if (x, y) in on_line[RED] and (x, y) in on_line[BLUE] else NO_POINT

    kinds = tuple(kind(x, y) for y in range(size) for x in range(size))

    def index(xy: tuple[int, int]) -> int:
        return xy[1] * size + xy[0]

    def rays(line: list[tuple[int, int]], at: int) -> list[Ray]:
        cells = [index(xy) for xy in line]
        points = [c for c in cells if kinds[c] != NO_POINT]
        spot = points.index(cells[at])
        return [tuple(reversed(points[:spot])), tuple(points[spot + 1 :])]

    move: list[list[list[Ray]]] = [[[] for _ in kinds] for _ in (RED, BLUE)]
    capture: list[list[Ray]] = [[] for _ in kinds]
    guards: list[list[tuple[int, int] | None]] = [[None] * len(kinds) for _ in (RED, BLUE)]
    for colour in (RED, BLUE):
        for line in lines[colour]:
            for at, xy in enumerate(line):
                cell = index(xy)
                if kinds[cell] == NO_POINT:
                    continue
                move[colour][cell] += rays(line, at)
                capture[cell] += rays(line, at)
                if kinds[cell] == CROSSING:
                    # The pawns guarding this crossing stand on this line: they stop the other side.
                    guards[1 - colour][cell] = (index(line[at - 1]), index(line[at + 1]))

    far = 2 * n - 2
    red_starts = [(x, 0) for x in range(0, size - 1, 2)] + [(0, y) for y in range(2, size - 1, 2)]
    blue_starts = [(size - 1 - x, size - 1 - y) for x, y in red_starts]
    starts = (
        tuple(sorted(index(xy) for xy in red_starts)),
        tuple(sorted(index(xy) for xy in blue_starts)),
    )
    havens = (
        frozenset((*starts[RED], index((far, far)))),
        frozenset((*starts[BLUE], index((1, 1)))),
    )
    horizontal = tuple(
        tuple(any({(x, y), (x + 1, y)} <= on_line[c] for c in (RED, BLUE)) for x in range(size))
        for y in range(size)
    )
    vertical = tuple(
        tuple(any({(x, y), (x, y + 1)} <= on_line[c] for c in (RED, BLUE)) for x in range(size))
        for y in range(size)
    )
    return Geometry(
        n=n,
        size=size,
        kinds=kinds,
        move_rays=tuple(tuple(tuple(r) for r in cells) for cells in move),
        capture_rays=tuple(tuple(r) for r in capture),
        guards=tuple(tuple(g) for g in guards),
        starts=starts,
        havens=havens,
        horizontal=horizontal,
        vertical=vertical,
    )


# -- the game ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Move:
    """One pawn's move from one cell to another (cell numbers of the board's Geometry)."""

    origin: int
    target: int


Action = Move | tuple[Move, ...]


@register
class AntiGrid(Game):
    """Anti-Grid for two players, Red (seat 0, moves first, ANT-7) and Blue."""

    name = "anti-grid"
    title = "Anti-Grid"
    OPTIONS = {
        "board": Option(
            "large", ("large", "small"), "large: 16x16, 15 pawns each; small: 12x12, 11 pawns"
        ),
        "chain": Option("off", ("off", "on"), "on: a capture lets you go on capturing (ANT-16)"),
    }

    @property
    def seat_names(self) -> tuple[str, ...]:
        return SEATS

    @property
    def geometry(self) -> Geometry:
        return geometry(8 if self.option("board") == "large" else 6)

    @property
    def chains(self) -> bool:
        return self.option("chain") == "on"

    def initial_state(self) -> AntiGridState:
        geo = self.geometry
        cells = [EMPTY] * len(geo.kinds)
        for colour in (RED, BLUE):
            for cell in geo.starts[colour]:
                cells[cell] = PAWNS[colour]
        return AntiGridState(self, "".join(cells), RED, 0)

    def parse_position(self, text: str) -> AntiGridState:
        geo = self.geometry
        parts = text.split()
        if len(parts) != 3:
            reason = Reason(
                "ant_position",
                N_("a position is <rows>/<...> <r|b> <moves without capture> (ANT-18)"),
            )
            raise PositionError(text, reason)
        rows, side, quiet = parts[0].split("/"), parts[1].lower(), parts[2]
        if len(rows) != geo.size or any(len(row) != geo.size for row in rows):
            reason = Reason(
                "ant_board_rows",
                N_("board={board} needs {size} rows of {size} cells (ANT-18)"),
                board=self.option("board"),
                size=geo.size,
            )
            raise PositionError(text, reason)
        if side not in SIDE_TOKENS or not quiet.isdigit():
            reason = Reason(
                "ant_side_count",
                N_("after the board come r or b (side to move) and a count of moves (ANT-18)"),
            )
            raise PositionError(text, reason)
        cells = [
            _read_cell(text, geo, cell, rows[geo.size - 1 - cell // geo.size][cell % geo.size])
            for cell in range(len(geo.kinds))
        ]
        return AntiGridState(self, "".join(cells), SIDE_TOKENS.index(side), int(quiet))

    def state_from_json(self, data: Mapping[str, Any]) -> AntiGridState:
        try:
            return self.parse_position(str(data["position"]))
        except KeyError:
            reason = Reason("lacks_position", N_("stored state lacks its position"))
            raise PositionError(str(dict(data))[:80], reason) from None


def _read_cell(text: str, geo: Geometry, cell: int, char: str) -> str:
    """One cell of a position string, checked against the point it describes."""
    kind = geo.kinds[cell]
    allowed = {
        RED_POINT: {".": EMPTY, "R": "R"},
        BLUE_POINT: {".": EMPTY, "B": "B"},
        CROSSING: {"+": EMPTY, "R": "R", "B": "B"},
        NO_POINT: {"_": EMPTY},
    }[kind]
    if char not in allowed:
        reason = Reason(
            "ant_cell",
            N_("{square} is {kind} and takes {shown}, not {char!r} ({rule})"),
            square=geo.square(cell),
            kind=_DESCRIPTIONS[kind],
            shown=or_list([repr(c) for c in allowed]),
            char=char,
            rule="ANT-11" if char in PAWNS else "ANT-18",
        )
        raise PositionError(text, reason)
    return allowed[char]


_DESCRIPTIONS = {
    RED_POINT: Reason("a_red_point", N_("a red point")),
    BLUE_POINT: Reason("a_blue_point", N_("a blue point")),
    CROSSING: Reason("a_crossing", N_("a crossing")),
    NO_POINT: Reason("no_point", N_("no point")),
}

_SPACED_DASH = re.compile(r"\s*-\s*")
_MOVE = re.compile(r"([a-z]+\d+)-([a-z]+\d+)x?")


@dataclass(frozen=True)
class AntiGridState(State):
    """A position: ``pawns`` has one character per cell (``R``, ``B`` or ``.``)."""

    game: AntiGrid
    pawns: str
    to_move: int
    quiet: int

    @property
    def geo(self) -> Geometry:
        return self.game.geometry

    # -- who acts --------------------------------------------------------------------------

    @property
    def to_act(self) -> tuple[int, ...]:
        return () if self.is_over else (self.to_move,)

    @property
    def outcome(self) -> Outcome | None:
        return self._ending

    @cached_property
    def _ending(self) -> Outcome | None:
        """ANT-12, ANT-15, ANT-13, ANT-14, in that order (see the module docstring)."""
        counts = [self.pawns.count(PAWNS[colour]) for colour in (RED, BLUE)]
        down = [colour for colour in (RED, BLUE) if counts[colour] <= 1]
        if len(down) == 2:
            why = Reason("ant_both_down", N_("both sides have one pawn or none (ANT-12)"))
            return Outcome.draw(2, why, Termination.CAPTURE)
        if down:
            loser = down[0]
            side = _SEAT_WORDS[loser]
            if counts[loser]:
                why = Reason(
                    "ant_one_pawn_left", N_("{side} has one pawn left (ANT-12)"), side=side
                )
            else:
                why = Reason("ant_no_pawn_left", N_("{side} has no pawn left (ANT-12)"), side=side)
            return Outcome.win(1 - loser, 2, why, Termination.CAPTURE)
        if self.quiet >= QUIET_LIMIT:
            why = Reason(
                "ant_no_capture",
                N_("{limit} moves without a capture; pawns Red {red}, Blue {blue} (ANT-15)"),
                limit=QUIET_LIMIT,
                red=counts[0],
                blue=counts[1],
            )
            return Outcome.by_scores(counts, why, Termination.NO_PROGRESS)
        mover = _SEAT_WORDS[self.to_move]
        if not self._moves:
            why = Reason("ant_no_legal_move", N_("{side} has no legal move (ANT-13)"), side=mover)
            return Outcome.win(1 - self.to_move, 2, why, Termination.NO_MOVES)
        havens = self.geo.havens[self.to_move]
        if all(cell in havens for cell in self._cells(self.to_move)) and all(
            move.target in havens for move in self._moves
        ):
            why = Reason(
                "ant_trapped",
                N_("{side}'s pawns are trapped on points where they cannot be flanked (ANT-14)"),
                side=mover,
            )
            return Outcome.win(1 - self.to_move, 2, why, Termination.TRAPPED)
        return None

    # -- rules -----------------------------------------------------------------------------

    def _cells(self, colour: int) -> list[int]:
        pawn = PAWNS[colour]
        return [cell for cell, here in enumerate(self.pawns) if here == pawn]

    def _blocked(self, cell: int, colour: int) -> bool:
        """ANT-9: a crossing between two enemy pawns on adjacent enemy points."""
        guard = self.geo.guards[colour][cell]
        enemy = PAWNS[1 - colour]
        return guard is not None and self.pawns[guard[0]] == self.pawns[guard[1]] == enemy

    def _targets(self, origin: int, colour: int) -> list[int]:
        """ANT-8/ANT-9: the points a pawn of ``colour`` on ``origin`` can reach."""
        reached = []
        for ray in self.geo.move_rays[colour][origin]:
            for cell in ray:
                if self.pawns[cell] != EMPTY:
                    break
                reached.append(cell)
                if self._blocked(cell, colour):
                    break
        return reached

    @cached_property
    def _moves(self) -> tuple[Move, ...]:
        """Every legal move of the side to move, pawn by pawn from a1."""
        return tuple(
            Move(origin, target)
            for origin in self._cells(self.to_move)
            for target in self._targets(origin, self.to_move)
        )

    def _captures(self, move: Move) -> tuple[int, ...]:
        """ANT-10: the enemy pawns the moved pawn flanks along every line through its point."""
        own, enemy = PAWNS[self.to_move], PAWNS[1 - self.to_move]
        taken: list[int] = []
        for ray in self.geo.capture_rays[move.target]:
            run: list[int] = []
            for cell in ray:
                here = self.pawns[cell]
                if here != enemy:
                    if here == own and run:
                        taken += run
                    break
                run.append(cell)
        return tuple(sorted(taken))

    def _step(self, move: Move) -> tuple[AntiGridState, tuple[int, ...]]:
        """The position after one legal move, the opponent to move, and what it captured."""
        captured = self._captures(move)
        cells = list(self.pawns)
        cells[move.target], cells[move.origin] = cells[move.origin], EMPTY
        for cell in captured:
            cells[cell] = EMPTY
        quiet = 0 if captured else self.quiet + 1
        return AntiGridState(self.game, "".join(cells), 1 - self.to_move, quiet), captured

    def _again(self) -> AntiGridState:
        """This position with the other side to move again: a chain goes on (ANT-16)."""
        return dataclasses.replace(self, to_move=1 - self.to_move)

    # -- notation --------------------------------------------------------------------------

    def format(self, action: Action) -> str:
        moves = action if isinstance(action, tuple) else (action,)
        return " ".join(f"{self.geo.square(m.origin)}-{self.geo.square(m.target)}" for m in moves)

    def parse(self, seat: int, text: str) -> Action:
        moves = self._read_moves(text)
        if len(moves) > 1 and not self.game.chains:
            reason = Reason(
                "one_move_per_turn",
                N_("one move per turn; capture chains need the option chain=on (ANT-16)"),
            )
            raise IllegalMoveError(text, reason)
        state = self if seat == self.to_move else self._again()
        for number, move in enumerate(moves):
            state._check(text, move)
            after, captured = state._step(move)
            if number and not captured:
                reason = Reason(
                    "chain_must_capture",
                    N_(
                        "{move} captures nothing, and every move after the first"
                        " in a chain must capture (ANT-16)"
                    ),
                    move=state.format(move),
                )
                raise IllegalMoveError(text, reason)
            if number + 1 < len(moves):
                state._check_chain_goes_on(text, move, after, captured)
                state = after._again()
        return moves[0] if len(moves) == 1 else tuple(moves)

    def _check_chain_goes_on(
        self, text: str, move: Move, after: AntiGridState, captured: tuple[int, ...]
    ) -> None:
        played = self.format(move)
        if not captured:
            reason = Reason(
                "chain_ends",
                N_(
                    "{move} captures nothing, so the turn ends with it; only a capture"
                    " lets a chain go on (ANT-16)"
                ),
                move=played,
            )
            raise IllegalMoveError(text, reason)
        if after.outcome is not None:
            reason = Reason(
                "chain_game_ends",
                N_("the game ends after {move} ({outcome}), so the chain stops there (ANT-16)"),
                move=played,
                outcome=after.outcome.reason,
            )
            raise IllegalMoveError(text, reason)

    def _read_moves(self, text: str) -> list[Move]:
        """ANT-17: ``<from>-<to>`` moves, a trailing x ignored, several for a chain."""
        tokens = [t for t in split_orders(_SPACED_DASH.sub("-", text.lower())) if t != "x"]
        if not tokens:
            reason = Reason(
                "ant_move_form",
                N_("a move is <from>-<to> along one of your lines, e.g. c1-c8 (ANT-17)"),
            )
            raise NotationError(text, reason, valid=self.examples(self.to_move))
        moves = []
        for token in tokens:
            match = _MOVE.fullmatch(token)
            if not match:
                reason = Reason(
                    "ant_not_a_move",
                    N_("{token!r} is not a move <from>-<to>, e.g. c1-c8 (ANT-17)"),
                    token=token,
                )
                raise NotationError(text, reason, valid=self.examples(self.to_move))
            board = self.geo.board
            origin, target = (board.parse_square(match[i], text) for i in (1, 2))
            moves.append(Move(self.geo.cell(*origin), self.geo.cell(*target)))
        return moves

    def _check(self, text: str, move: Move) -> None:
        """Raise an IllegalMoveError saying why ``move`` is illegal, if it is."""
        if move in self._moves:
            return
        geo, colour = self.geo, self.to_move
        origin, target = geo.square(move.origin), geo.square(move.target)
        own = [self.format(m) for m in self._moves if m.origin == move.origin]
        if self.pawns[move.origin] != PAWNS[colour]:
            holds = self.pawns[move.origin]
            reason = (
                Reason(
                    "origin_empty",
                    N_("{origin} is empty; {seat} moves a {colour} pawn (ANT-8)"),
                    origin=origin,
                    seat=_SEAT_WORDS[colour],
                    colour=_COLOUR_WORDS[colour],
                )
                if holds == EMPTY
                else Reason(
                    "origin_other_pawn",
                    N_("{origin} holds a {other} pawn; {seat} moves a {colour} pawn (ANT-8)"),
                    origin=origin,
                    other=_COLOUR_WORDS[PAWNS.index(holds)],
                    seat=_SEAT_WORDS[colour],
                    colour=_COLOUR_WORDS[colour],
                )
            )
            raise IllegalMoveError(text, reason, valid=self.examples(colour))
        raise IllegalMoveError(text, self._why_not(move, origin, target), valid=own)

    def _why_not(self, move: Move, origin: str, target: str) -> Reason:
        geo, colour = self.geo, self.to_move
        own, enemy = _COLOUR_WORDS[colour], _COLOUR_WORDS[1 - colour]
        kind = geo.kinds[move.target]
        if move.origin == move.target:
            return Reason("pawn_must_move", N_("a pawn must move at least one point (ANT-8)"))
        if kind == NO_POINT:
            template = N_("{target} is not a point, no pawn can rest there (ANT-4, ANT-8)")
            return Reason("not_a_point", template, target=target)
        if kind == OWN_POINT[1 - colour]:
            template = N_("{target} is a {enemy} point, where a {own} pawn may never rest (ANT-11)")
            return Reason("enemy_point", template, target=target, enemy=enemy, own=own)
        (x, y), (tx, ty) = geo.xy(move.origin), geo.xy(move.target)
        if x != tx and y != ty:
            template = N_("{origin} to {target} is not a straight line (ANT-8)")
            return Reason("not_straight", template, origin=origin, target=target)
        line = geo.line_colour(move.origin, move.target)
        if line != colour:
            return self._wrong_line(move, origin, target, line)
        ray = next(r for r in geo.move_rays[colour][move.origin] if move.target in r)
        for cell in ray[: ray.index(move.target)]:
            if self.pawns[cell] != EMPTY:
                template = N_("the move passes through an occupied point at {square} (ANT-8)")
                return Reason("passes_occupied", template, square=geo.square(cell))
            if self._blocked(cell, colour):
                guard = geo.guards[colour][cell] or (cell, cell)
                template = N_(
                    "blocked at crossing {square} by the {enemy} "
                    "pawns on {first} and {second}: the move must stop there (ANT-9)"
                )
                first, second = (geo.square(g) for g in guard)
                return Reason(
                    "blocked_crossing",
                    template,
                    square=geo.square(cell),
                    enemy=enemy,
                    first=first,
                    second=second,
                )
        template = N_("{target} is occupied; a pawn may not land on an occupied point (ANT-8)")
        return Reason("target_occupied", template, target=target)

    def _wrong_line(self, move: Move, origin: str, target: str, line: int | None) -> Reason:
        own = _COLOUR_WORDS[self.to_move]
        kind, which = self.geo.line_name(move.origin, move.target).split()
        along = (
            Reason("line_rank", N_("rank {rank}"), rank=which)
            if kind == "rank"
            else Reason("line_file", N_("file {file}"), file=which)
        )
        if line is not None:
            template = N_("{line}, a {colour} line")
            along = Reason("coloured_line", template, line=along, colour=_COLOUR_WORDS[line])
        template = N_(
            "{origin}-{target} runs along {along}; {own} pawns keep to {own} lines (ANT-8)"
        )
        return Reason("wrong_line", template, origin=origin, target=target, along=along, own=own)

    def legal_actions(self, seat: int) -> Sequence[Action]:
        if self.is_over or seat != self.to_move:
            return ()
        return self._moves

    def random_action(self, seat: int, rng: random.Random) -> Action:
        """A random legal move; with chain=on, captures go on at random (ANT-16)."""
        state, chain = self, [rng.choice(self._moves)]
        while self.game.chains and rng.random() < 0.5:
            after, captured = state._step(chain[-1])
            if not captured or after.is_over:
                break
            state = after._again()
            capturing = [m for m in state._moves if state._captures(m)]
            if not capturing:
                break
            chain.append(rng.choice(capturing))
        return chain[0] if len(chain) == 1 else tuple(chain)

    # -- stepping --------------------------------------------------------------------------

    def _resolve(self, actions: Mapping[int, Action]) -> Resolution:
        action = actions[self.to_move]
        state: AntiGridState = self
        events: list[Event] = []
        for move in action if isinstance(action, tuple) else (action,):
            if events:
                state = state._again()
            state, captured = state._step(move)
            side, played = _SEAT_WORDS[self.to_move], self.format(move)
            if captured:
                taken = ", ".join(self.geo.square(cell) for cell in captured)
                why = Reason(
                    "ant_captures",
                    N_("{side} {move} captures {squares}"),
                    side=side,
                    move=played,
                    squares=taken,
                )
                events.append(Event.told(why, "capture", self.to_move))
            else:
                why = Reason("ant_moved", N_("{side} {move}"), side=side, move=played)
                events.append(Event.told(why, "move", self.to_move))
        if state.outcome is not None:
            events.append(Event.told(game_over(state.outcome), "end"))
        return Resolution(state, tuple(events))

    # -- output ----------------------------------------------------------------------------

    def position(self) -> str:
        geo = self.geo
        symbols = {CROSSING: "+", RED_POINT: ".", BLUE_POINT: ".", NO_POINT: "_"}
        rows = []
        for y in reversed(range(geo.size)):
            row = ""
            for x in range(geo.size):
                cell = geo.cell(x, y)
                here = self.pawns[cell]
                row += here if here != EMPTY else symbols[geo.kinds[cell]]
            rows.append(row)
        return f"{'/'.join(rows)} {SIDE_TOKENS[self.to_move]} {self.quiet}"

    def ascii(self, viewer: int | None = None) -> str:
        """The two grids: red lines ``-`` ``|``, blue lines ``~`` ``:``, coordinates around."""
        geo = self.geo
        files = "   ".join(string.ascii_lowercase[: geo.size])
        lines = [f"     {files}"]
        for y in reversed(range(geo.size)):
            row = "".join(self._ascii_cell(x, y) for x in range(geo.size))
            lines.append(f" {y + 1:>2}  {row.rstrip():<{4 * geo.size - 3}}  {y + 1}")
            if y:
                links = "".join(self._ascii_link(x, y - 1).ljust(4) for x in range(geo.size))
                lines.append(f"     {links.rstrip()}")
        lines += [f"     {files}", "", *(why.render() for why in self.legend_why(viewer))]
        return "\n".join(lines)

    def legend_why(self, viewer: int | None = None) -> tuple[Reason, ...]:
        return (LEGEND,)

    def _ascii_cell(self, x: int, y: int) -> str:
        """A cell's mark and the horizontal line to its right neighbour, four columns."""
        geo = self.geo
        cell = geo.cell(x, y)
        here, kind = self.pawns[cell], geo.kinds[cell]
        across = geo.horizontal[y][x] or (x > 0 and geo.horizontal[y][x - 1])
        if here != EMPTY:
            mark = here
        elif kind != NO_POINT:
            mark = _MARKS[kind]
        elif across:
            mark = _HORIZONTAL[y % 2]
        else:
            mark = self._ascii_link(x, y) or (self._ascii_link(x, y - 1) if y else "") or " "
        return mark + (_HORIZONTAL[y % 2] * 3 if geo.horizontal[y][x] else "   ")

    def _ascii_link(self, x: int, y: int) -> str:
        """The vertical line mark between (x, y) and (x, y + 1), if a line runs there."""
        return _VERTICAL[x % 2] if y + 1 < self.geo.size and self.geo.vertical[y][x] else ""

    def grid(self, viewer: int | None = None) -> Grid:
        geo = self.geo
        rows = tuple(
            tuple(self._grid_cell(geo.cell(x, y)) for x in range(geo.size))
            for y in reversed(range(geo.size))
        )
        files = tuple(string.ascii_lowercase[: geo.size])
        ranks = tuple(str(y + 1) for y in reversed(range(geo.size)))
        legend = (
            ("R", N_("red pawn")),
            ("B", N_("blue pawn")),
            (RED_POINT, N_("red point: red pawns rest here")),
            (BLUE_POINT, N_("blue point: blue pawns rest here")),
            (CROSSING, N_("crossing: either side rests here")),
            (NO_POINT, N_("no point")),
        )
        return Grid(files, ranks, rows, legend)

    def _grid_cell(self, cell: int) -> Cell:
        square, kind, here = self.geo.square(cell), self.geo.kinds[cell], self.pawns[cell]
        if kind == NO_POINT:
            return Cell(square, "", kind, f"{square}: no point")
        what = "empty" if here == EMPTY else f"{COLOURS[PAWNS.index(here)]} pawn"
        text = "" if here == EMPTY else here
        return Cell(square, text, kind, f"{square}: {kind.replace('-', ' ')}, {what}")

    def info_why(self, viewer: int | None = None) -> tuple[Reason, ...]:
        red, blue = (self.pawns.count(PAWNS[colour]) for colour in (RED, BLUE))
        lines = [
            Reason("ant_info_pawns", N_("Pawns: Red {red}, Blue {blue}"), red=red, blue=blue),
            Reason(
                "ant_info_quiet",
                N_("Moves without a capture: {quiet} of {limit} (ANT-15)"),
                quiet=self.quiet,
                limit=QUIET_LIMIT,
            ),
        ]
        if self.game.chains:
            chains = N_("Capture chains are on: after a capture you may go on capturing (ANT-16)")
            lines.append(Reason("ant_info_chains", chains))
        return tuple(lines)

    def to_json(self) -> dict[str, Any]:
        return {**self.game.to_json(), "position": self.position()}


_MARKS = {RED_POINT: "o", BLUE_POINT: "*", CROSSING: "+"}
_HORIZONTAL = ("-", "~")
_VERTICAL = ("|", ":")
LEGEND = Legend(
    "ant_legend",
    (
        (
            ("R", Reason("ant_legend_red_pawn", N_("red pawn"))),
            ("o", Reason("ant_legend_red_point", N_("red point"))),
            ("- |", Reason("ant_legend_red_lines", N_("red lines"))),
            ("+", Reason("ant_legend_crossing", N_("crossing (either side rests)"))),
        ),
        (
            ("B", Reason("ant_legend_blue_pawn", N_("blue pawn"))),
            ("*", Reason("ant_legend_blue_point", N_("blue point"))),
            ("~ :", Reason("ant_legend_blue_lines", N_("blue lines"))),
        ),
    ),
    widths=(13, 15, 17),
)
"""The text board's legend (``ascii``): the marks, and what they mean in the reader's
language (English: ``R red pawn   o red point    - | red lines    + crossing ...``)."""
