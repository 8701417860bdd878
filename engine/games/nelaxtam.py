"""Nelaxtam (Jorge Gómez Arrausi, 2003): a sealed invasion, then sealed simultaneous turns.

The rules are shared/rules/nelaxtam.md (NEL-1..NEL-18). Seat 0 is **O** (owns a1), seat 1 is
**X**; both order at once in every turn, so the seat order only fixes who is listed first.

Decisions the rule book leaves to the implementation:

* Troop names (NEL-3): O's troops are ``1``-``5``; X's troops are written ``A``-``E`` everywhere
  the engine writes them (orders, events, board, position string). X may also type ``1``-``5``
  (and any letter case); O may not use letters.
* Sea troops (NEL-4, NEL-5): a placement is legal when at least ``sea`` of the five troops stand
  on edge pieces; which troops those are is read from the placement, so an air troop may land on
  the edge too.
* Orders are validated when submitted against the position at the start of the turn: a move onto
  a destroyed or missing piece, a destroy of a missing piece, an order for a dead troop, two
  orders for one troop, and two troops ending on one piece (NEL-7) are rejected with a message;
  nothing is silently turned into a hold.
* Notation (NEL-16, NEL-17): the colon is optional in both phases and spaces around it are
  ignored (``1:ne``, ``1ne``, ``1 : ne``); ``-`` and ``hold`` both mean hold. The canonical text
  of action orders lists only the non-hold orders (``1:ne 3:xw``); when every troop holds it is
  the single word ``hold`` (``-`` alone reads the same). Invasion orders list all five troops.
* Quiet variant (NEL-10): a submission must contain exactly one non-hold order, unless no
  single order is legal (no troop can act, or every lone order would stack two troops), when
  ``hold`` is the only (and accepted) submission. A missed deadline
  still gives "every troop holds" (NEL-15).
* Default invasion (NEL-15): troops ``1``..``sea`` (A.. for X) are the sea troops. They take the
  side's own pieces along the rim in the order rank 1 from file a eastward, the last file
  northward, the last rank westward, then file a southward. The others take the free own pieces
  nearest the centre (Euclidean distance), ties by rank, then file.
* Position string (NEL-18): ``<rows> <phase> <calm>``, rows from the last rank down separated by
  ``/``; phase ``invasion`` or the number of the next action turn (the first is 1); calm is the
  count of consecutive action turns without destruction. An invasion position is always the
  untouched board with no troops (the invasion is secret, NEL-5).
* NEL-12 removal runs after the invasion too (a no-op there) and after every action turn; a
  removal is not a destruction for NEL-13's count.
* ``legal_actions`` during the invasion is an exact, lazily indexed sequence (there are about
  10^9 placements); in action turns it is the full list (at most 9^5 order sets).

An 8x8 invasion, then Diagram 6's double destruction in miniature (NEL-9):

>>> from engine import new_game
>>> state = new_game("nelaxtam", {"size": "8"}).initial_state()
>>> state = state.submit(0, "1:a1 2:c1 3:e1 4:d4 5:e5").submit(1, "A:b1 B:d1 C:f1 D:e4 E:d5")
>>> state = state.resolve().state
>>> for event in state.submit(0, "4:xe").submit(1, "D:xw").resolve().events:
...     print(event.text)
O troop 4 destroyed e4
X troop D destroyed d4
O troop 4 on d4 died
X troop D on e4 died
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, overload

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
    and_names,
)
from engine.errors import (
    N_,
    IllegalMoveError,
    Nn_,
    NotationError,
    PositionError,
    Reason,
    commas,
    state_lacks,
)
from engine.notation import Board, frame, split_orders
from engine.registry import register

__all__ = ["Nelaxtam", "NelaxtamState", "Orders", "Placement"]

TROOPS = 5
CALM_LIMIT = 10
SIDES = ("O", "X")
COLOURS = ("o", "x")
HOLD = "hold"
MOVES = {"ne": (1, 1), "nw": (-1, 1), "se": (1, -1), "sw": (-1, -1)}
DESTROYS = {"xn": (0, 1), "xe": (1, 0), "xs": (0, -1), "xw": (-1, 0)}
ORDER_CODES = (HOLD, *MOVES, *DESTROYS)
ORDER_HELP = Reason(
    "nel_order_help",
    N_("orders are hold (or -), a move ne, nw, se, sw or a destroy xn, xe, xs, xw"),
)
DESTROYED = "."
RANDOM_TRIES = 200


@functools.cache
def _geometry(size: int) -> tuple[tuple[str, ...], dict[str, tuple[int | None, ...]]]:
    """Square names and, per order code, each cell's neighbour that way (None: off board)."""
    board = Board(size, size)

    def neighbour(index: int, delta: tuple[int, int]) -> int | None:
        rank, file = divmod(index, size)
        file, rank = file + delta[0], rank + delta[1]
        return rank * size + file if board.contains(file, rank) else None

    cells = range(size**2)
    names = tuple(board.square(i % size, i // size) for i in cells)
    steps = {
        code: tuple(neighbour(i, delta) for i in cells)
        for code, delta in (*MOVES.items(), *DESTROYS.items())
    }
    return names, steps


def troop_label(seat: int, troop: int) -> str:
    """``1``-``5`` for O's troops, ``A``-``E`` for X's (NEL-3, NEL-18)."""
    return str(troop + 1) if seat == 0 else "ABCDE"[troop]


@dataclass(frozen=True)
class Placement:
    """Invasion orders of one seat: the square index of each troop 1-5 (NEL-5)."""

    seat: int
    squares: tuple[int, ...]


@dataclass(frozen=True)
class Orders:
    """Action orders of one seat: a code of ORDER_CODES per troop 1-5; dead ones hold (NEL-6)."""

    seat: int
    codes: tuple[str, ...]

    @classmethod
    def hold(cls, seat: int) -> Orders:
        return cls(seat, (HOLD,) * TROOPS)

    @property
    def acting(self) -> int:
        return sum(code != HOLD for code in self.codes)


Action = Placement | Orders


@register
class Nelaxtam(Game):
    name = "nelaxtam"
    title = "Nelaxtam"
    player_counts = (2,)
    cap_decision: ClassVar[str] = "score"
    OPTIONS: ClassVar[Mapping[str, Option]] = {
        "size": Option("12", ("8", "10", "12", "14", "16"), "board size, N x N (NEL-1)"),
        "sea": Option("3", ("0", "1", "2", "3", "4", "5"), "troops arriving by sea (NEL-4)"),
        "variant": Option("wild", ("wild", "quiet"), "quiet: one troop acts a turn (NEL-10)"),
    }

    def __init__(self, options: Mapping[str, str] | None = None, players: int | None = None):
        super().__init__(options, players)
        self.size = int(self.option("size"))
        self.board = Board(self.size, self.size)
        self._names, self._steps = _geometry(self.size)

    @property
    def seat_names(self) -> tuple[str, ...]:
        return SIDES

    @property
    def sea(self) -> int:
        return int(self.option("sea"))

    @property
    def quiet(self) -> bool:
        return self.option("variant") == "quiet"

    # -- geometry: a square is the index rank * size + file ------------------------------

    def square(self, index: int) -> str:
        return self._names[index]

    def colour(self, index: int) -> str:
        """The colour of the piece a cell starts with: a1 is O (NEL-2)."""
        rank, file = divmod(index, self.size)
        return COLOURS[(file + rank) % 2]

    def step(self, index: int, code: str) -> int | None:
        """The cell one move (``ne``...) or destroy (``xn``...) away, None off the board."""
        return self._steps[code][index]

    def on_edge(self, index: int) -> bool:
        rank, file = divmod(index, self.size)
        return min(file, rank) == 0 or max(file, rank) == self.size - 1

    def rim(self) -> tuple[int, ...]:
        """Edge cells from a1 east along rank 1, north, west along the top, south (NEL-15)."""
        last = self.size - 1
        cells = [(f, 0) for f in range(last + 1)]
        cells += [(last, r) for r in range(1, last + 1)]
        cells += [(f, last) for f in range(last - 1, -1, -1)]
        cells += [(0, r) for r in range(last - 1, 0, -1)]
        return tuple(rank * self.size + file for file, rank in cells)

    def virgin_pieces(self) -> str:
        return "".join(self.colour(index) for index in range(self.size**2))

    # -- the Game API --------------------------------------------------------------------

    def initial_state(self) -> NelaxtamState:
        empty = ((None,) * TROOPS, (None,) * TROOPS)
        return NelaxtamState(self, self.virgin_pieces(), empty, 0, 0)

    def parse_position(self, text: str) -> NelaxtamState:
        parts = text.split()
        if len(parts) != 3:
            reason = Reason(
                "nel_position",
                N_("a position is '<rows> <phase> <calm>', e.g. the board, 'invasion' and 0"),
            )
            raise PositionError(text, reason, rule="NEL-18")
        rows, phase, calm_text = parts
        pieces, troops = self._read_rows(text, rows)
        if phase.lower() == "invasion":
            turn = 0
        elif phase.isdigit() and int(phase) >= 1:
            turn = int(phase)
        else:
            reason = Reason(
                "nel_phase",
                N_("the phase {phase!r} is neither 'invasion' nor an action turn number from 1"),
                phase=phase,
            )
            raise PositionError(text, reason, rule="NEL-18")
        if not calm_text.isdigit() or int(calm_text) > min(CALM_LIMIT, max(turn - 1, 0)):
            reason = Reason(
                "nel_calm",
                N_(
                    "{calm!r} is not a count of turns without destruction "
                    "(0 to {limit}, and below the turn number)"
                ),
                calm=calm_text,
                limit=CALM_LIMIT,
            )
            raise PositionError(text, reason, rule="NEL-13")
        if turn == 0 and (pieces != self.virgin_pieces() or troops != self.initial_state().troops):
            reason = Reason(
                "nel_invasion_board",
                N_("during the invasion the board is untouched and holds no troops"),
            )
            raise PositionError(text, reason, rule="NEL-5")
        return NelaxtamState(self, pieces, troops, turn, int(calm_text))

    def _read_rows(
        self, text: str, rows_text: str
    ) -> tuple[str, tuple[tuple[int | None, ...], ...]]:
        rows = rows_text.split("/")
        if len(rows) != self.size or any(len(row) != self.size for row in rows):
            reason = Reason(
                "nel_board_rows",
                N_("the board needs {size} rows of {size} cells (option size)"),
                size=self.size,
            )
            raise PositionError(text, reason, rule="NEL-18")
        pieces: list[str] = []
        troops: list[list[int | None]] = [[None] * TROOPS, [None] * TROOPS]
        for index in range(self.size**2):
            rank, file = divmod(index, self.size)
            char = rows[self.size - 1 - rank][file]
            pieces.append(self._read_cell(text, index, char, troops))
        return "".join(pieces), (tuple(troops[0]), tuple(troops[1]))

    def _read_cell(self, text: str, index: int, char: str, troops: list[list[int | None]]) -> str:
        colour = self.colour(index)
        square = self.square(index)
        if char == DESTROYED:
            return DESTROYED
        if char in COLOURS or char in "12345ABCDE":
            seat = 0 if char in "o12345" else 1
            if COLOURS[seat] != colour:
                reason = Reason(
                    "nel_cell_colour",
                    N_("{square} is an {colour} cell; {char!r} cannot stand there"),
                    square=square,
                    colour=colour.upper(),
                    char=char,
                )
                raise PositionError(text, reason, rule="NEL-2")
            if char not in COLOURS:
                troop = "12345ABCDE".index(char) % TROOPS
                if troops[seat][troop] is not None:
                    reason = Reason(
                        "troop_on_board_twice",
                        N_("troop {troop} stands on the board twice"),
                        troop=char,
                    )
                    raise PositionError(text, reason, rule="NEL-18")
                troops[seat][troop] = index
            return colour
        reason = Reason(
            "nel_cell_char",
            N_("{char!r} on {square} is none of o, x, '.', 1-5 or A-E"),
            char=char,
            square=square,
        )
        raise PositionError(text, reason, rule="NEL-18")

    def state_from_json(self, data: Mapping[str, Any]) -> NelaxtamState:
        try:
            position, pending = data["position"], data.get("pending", [])
        except KeyError as missing:
            raise PositionError(str(dict(data))[:80], state_lacks(missing)) from None
        return self.parse_position(position)._with_pending_json(pending)


class _Placements(Sequence[Placement]):
    """Every legal invasion placement, in a fixed order, computed by index (NEL-5).

    Placements are grouped by which troops stand on edge pieces (at least ``sea`` of them);
    within a group, the edge troops and the inner troops each take an arrangement of
    distinct squares, numbered lexicographically.
    """

    def __init__(self, seat: int, edge: Sequence[int], inner: Sequence[int], sea: int) -> None:
        self._seat, self._sea = seat, sea
        self._edge, self._inner = tuple(edge), tuple(inner)
        self._blocks: list[tuple[tuple[bool, ...], int]] = []
        for on_edge in itertools.product((False, True), repeat=TROOPS):
            k = sum(on_edge)
            if k >= sea:
                count = math.perm(len(self._edge), k) * math.perm(len(self._inner), TROOPS - k)
                self._blocks.append((on_edge, count))
        self._length = sum(count for _, count in self._blocks)

    def __len__(self) -> int:
        return self._length

    def __contains__(self, item: object) -> bool:
        """Membership without listing: distinct own pieces, at least ``sea`` on the edge."""
        if not isinstance(item, Placement) or item.seat != self._seat:
            return False
        squares = item.squares
        if len(squares) != TROOPS or len(set(squares)) != TROOPS:
            return False
        on_edge = sum(square in self._edge for square in squares)
        inner = sum(square in self._inner for square in squares)
        return on_edge + inner == TROOPS and on_edge >= self._sea

    def _block(self, index: int) -> tuple[tuple[bool, ...], int]:
        """Which troops stand on the edge in placement ``index``, and its index there."""
        for on_edge, count in self._blocks:
            if index < count:
                return on_edge, index
            index -= count
        raise IndexError(index)

    @overload
    def __getitem__(self, index: int) -> Placement: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Placement]: ...

    def __getitem__(self, index: int | slice) -> Placement | Sequence[Placement]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(self._length)[index])
        if not -self._length <= index < self._length:
            raise IndexError(index)
        on_edge, index = self._block(index % self._length)
        k = sum(on_edge)
        edge_index, inner_index = divmod(index, math.perm(len(self._inner), TROOPS - k))
        edge = iter(_arrangement(self._edge, k, edge_index))
        inner = iter(_arrangement(self._inner, TROOPS - k, inner_index))
        return Placement(self._seat, tuple(next(edge) if flag else next(inner) for flag in on_edge))


def _arrangement(items: Sequence[int], k: int, index: int) -> list[int]:
    """The ``index``-th ordered choice of ``k`` distinct items, lexicographically."""
    pool, chosen = list(items), []
    for position in range(k):
        digit, index = divmod(index, math.perm(len(pool) - 1, k - position - 1))
        chosen.append(pool.pop(digit))
    return chosen


@dataclass(frozen=True)
class NelaxtamState(State):
    game: Nelaxtam
    pieces: str
    troops: tuple[tuple[int | None, ...], ...]
    turn: int
    calm: int
    pending: tuple[tuple[int, Any], ...] = ()
    simultaneous = True

    # -- who acts and how it ends --------------------------------------------------------

    @property
    def to_act(self) -> tuple[int, ...]:
        return () if self.outcome else (0, 1)

    @property
    def outcome(self) -> Outcome | None:
        if self.turn == 0:
            return None
        if self.calm >= CALM_LIMIT:
            o_score, x_score = self.scores()
            why = Reason(
                "nel_no_destruction",
                N_("O {o} : X {x}, {limit} action turns in a row without destruction"),
                o=o_score,
                x=x_score,
                limit=CALM_LIMIT,
            )
            termination = Termination.NO_PROGRESS
        elif not self.contact():
            o_score, x_score = self.scores()
            why = Reason(
                "nel_no_contact_end",
                N_("O {o} : X {x}, no X piece touches an O piece, nothing can be destroyed"),
                o=o_score,
                x=x_score,
            )
            termination = Termination.NO_CONTACT
        else:
            return None
        return Outcome.by_scores((o_score, x_score), why, termination)

    def adjudicate_at_cap(self) -> Outcome:
        """At a league's time cap the pieces in controlled groups decide (NEL-11, NEL-14)."""
        o_score, x_score = self.scores()
        why = Reason(
            "nel_cap",
            N_("O {o} : X {x} at the league's time cap (time cap)"),
            o=o_score,
            x=x_score,
        )
        return Outcome.by_scores((o_score, x_score), why, Termination.CAP)

    def contact(self) -> bool:
        """Whether some X piece is orthogonally adjacent to an O piece (NEL-13)."""
        for index, piece in enumerate(self.pieces):
            if piece == DESTROYED:
                continue
            for code in ("xe", "xn"):
                neighbour = self.game.step(index, code)
                if neighbour is not None and self.pieces[neighbour] not in (DESTROYED, piece):
                    return True
        return False

    def scores(self) -> tuple[int, int]:
        """Pieces in controlled groups per side (NEL-11, NEL-14)."""
        totals = []
        for seat in (0, 1):
            squares = self.troop_squares(seat)
            groups = _groups(self.game, self.pieces, COLOURS[seat])
            totals.append(sum(len(group) for group in groups if squares & set(group)))
        return totals[0], totals[1]

    def _alive(self, seat: int) -> list[str]:
        return [troop_label(seat, t) for t, s in enumerate(self.troops[seat]) if s is not None]

    def troop_squares(self, seat: int) -> set[int]:
        return {square for square in self.troops[seat] if square is not None}

    def occupant(self, index: int) -> tuple[int, int] | None:
        for seat in (0, 1):
            if index in self.troops[seat]:
                return seat, self.troops[seat].index(index)
        return None

    # -- notation ------------------------------------------------------------------------

    def parse(self, seat: int, text: str) -> Action:
        tokens = _tokens(text)
        if not tokens:
            reason = (
                Reason("no_orders_placement", N_("no orders found; write troop:square"))
                if self.turn == 0
                else Reason("no_orders", N_("no orders found"))
            )
            raise NotationError(text, reason, valid=self.examples(seat))
        if self.turn == 0:
            return self._parse_placement(seat, text, tokens)
        return self._parse_orders(seat, text, tokens)

    def _parse_troop(self, seat: int, token: str, label: str) -> int:
        if label.isdigit() and len(label) == 1 and "1" <= label <= "5":
            return int(label) - 1
        if seat == 1 and len(label) == 1 and "a" <= label <= "e":
            return "abcde".index(label)
        reason = Reason(
            "not_a_troop",
            N_("{label!r} is not a troop; {side}'s troops are {names}"),
            label=label,
            side=SIDES[seat],
            names="1-5" if seat == 0 else Reason("troops_of_x", N_("1-5 or A-E")),
        )
        raise NotationError(token, reason, rule="NEL-3")

    def _split_token(self, seat: int, token: str) -> tuple[int, str]:
        label, colon, rest = token.lower().partition(":")
        if not colon:
            label, rest = token[:1].lower(), token[1:].lower()
        if not rest:
            example = "1:a1" if self.turn == 0 else "1:ne"
            reason = Reason(
                "troop_and_order", N_("troop and what it does, e.g. {example}"), example=example
            )
            raise NotationError(token, reason, rule="NEL-17")
        return self._parse_troop(seat, token, label), rest

    def _parse_placement(self, seat: int, text: str, tokens: Sequence[str]) -> Placement:
        squares: dict[int, int] = {}
        for token in tokens:
            troop, square_text = self._split_token(seat, token)
            file, rank = self.game.board.parse_square(square_text, token)
            if troop in squares:
                reason = Reason(
                    "troop_placed_twice",
                    N_("troop {troop} is placed twice"),
                    troop=troop_label(seat, troop),
                )
                raise IllegalMoveError(token, reason, rule="NEL-5")
            squares[troop] = rank * self.game.size + file
        missing = [troop_label(seat, t) for t in range(TROOPS) if t not in squares]
        if missing:
            reason = Reason(
                "troops_missing",
                N_("the invasion places all five troops; missing: {missing}"),
                missing=", ".join(missing),
            )
            raise IllegalMoveError(text, reason, rule="NEL-16", valid=self.examples(seat))
        placement = Placement(seat, tuple(squares[t] for t in range(TROOPS)))
        self._check_placement(seat, text, placement)
        return placement

    def _check_placement(self, seat: int, text: str, placement: Placement) -> None:
        game, own = self.game, COLOURS[seat]
        for troop, index in enumerate(placement.squares):
            if game.colour(index) != own:
                reason = Reason(
                    "land_on_own_piece",
                    N_("{square} is an {colour} piece; troop {troop} must land on an {own} piece"),
                    square=game.square(index),
                    colour=game.colour(index).upper(),
                    troop=troop_label(seat, troop),
                    own=own.upper(),
                )
                raise IllegalMoveError(text, reason, rule="NEL-5")
        for index in placement.squares:
            if placement.squares.count(index) > 1:
                reason = Reason(
                    "two_troops_on",
                    N_("two troops on {square}; one troop per piece"),
                    square=game.square(index),
                )
                raise IllegalMoveError(text, reason, rule="NEL-5")
        on_edge = sum(game.on_edge(index) for index in placement.squares)
        if on_edge < game.sea:
            reason = Reason(
                "sea_landing",
                Nn_(
                    "{n} troops arrive by sea and must land on edge pieces; "
                    "only {on_edge} of these do",
                    "{n} troops arrive by sea and must land on edge pieces; "
                    "only {on_edge} of these do",
                ),
                n=game.sea,
                on_edge=on_edge,
            )
            raise IllegalMoveError(text, reason, rule="NEL-5", valid=self.examples(seat))

    def _parse_orders(self, seat: int, text: str, tokens: Sequence[str]) -> Orders:
        given: dict[int, str] = {}
        if len(tokens) == 1 and tokens[0].lower() in (HOLD, "-"):
            orders = Orders.hold(seat)
        else:
            codes = [HOLD] * TROOPS
            for token in tokens:
                troop, code = self._split_token(seat, token)
                code = HOLD if code == "-" else code
                if code not in ORDER_CODES:
                    reason = Reason(
                        "not_an_order",
                        N_("{code!r} is not an order; {help}"),
                        code=code,
                        help=ORDER_HELP,
                    )
                    raise NotationError(token, reason, rule="NEL-17")
                if troop in given:
                    reason = Reason(
                        "troop_two_orders",
                        N_("troop {troop} has two orders; one per troop"),
                        troop=troop_label(seat, troop),
                    )
                    raise IllegalMoveError(f"{given[troop]} {token}", reason, rule="NEL-6")
                given[troop], codes[troop] = token, code
            orders = Orders(seat, tuple(codes))
        self._check_orders(seat, orders, given)
        return orders

    def _check_orders(self, seat: int, orders: Orders, given: Mapping[int, str]) -> None:
        for troop, code in enumerate(orders.codes):
            if troop in given:
                self._check_order(seat, troop, code, given[troop])
        ends = self._ends(seat, orders)
        for troop, end in enumerate(ends):
            other = ends.index(end)
            if end is not None and other != troop:
                names = (troop_label(seat, other), troop_label(seat, troop))
                quoted = " ".join(
                    given.get(t, f"{troop_label(seat, t)}:hold") for t in (other, troop)
                )
                reason = Reason(
                    "troops_collide",
                    N_(
                        "troops {first} and {second} would both stand on "
                        "{square}; one troop per piece after the moves"
                    ),
                    first=names[0],
                    second=names[1],
                    square=self.game.square(end),
                )
                raise IllegalMoveError(quoted, reason, rule="NEL-7")
        if self.game.quiet and orders.acting != 1 and (orders.acting or self._single_orders(seat)):
            reason = Reason(
                "quiet_one_acts",
                Nn_(
                    "these orders make {n} troops act; in the quiet variant "
                    "exactly one troop acts each turn",
                    "these orders make {n} troops act; in the quiet variant "
                    "exactly one troop acts each turn",
                ),
                n=orders.acting,
            )
            quoted = " ".join(given.values()) or HOLD
            raise IllegalMoveError(quoted, reason, rule="NEL-10", valid=self.examples(seat))

    def _check_order(self, seat: int, troop: int, code: str, token: str) -> None:
        label = troop_label(seat, troop)
        start = self.troops[seat][troop]
        if start is None:
            if code == HOLD:
                return
            alive = ", ".join(self._alive(seat)) or Reason("none", N_("none"))
            reason = Reason(
                "troop_dead",
                N_("troop {troop} is dead; living troops: {alive}"),
                troop=label,
                alive=alive,
            )
            raise IllegalMoveError(token, reason, rule="NEL-9")
        if code == HOLD or code in self._troop_codes(seat, start):
            return
        here = self.game.square(start)
        target = self.game.step(start, code)
        valid = [f"{label}:{c}" for c in self._troop_codes(seat, start)]
        if target is None:
            reason = Reason(
                "order_off_board",
                N_("troop {troop} on {square} cannot {code}: off the board"),
                troop=label,
                square=here,
                code=code,
            )
            rule = "NEL-6"
        elif code in MOVES:
            reason = Reason(
                "move_onto_destroyed",
                N_(
                    "troop {troop} on {square} cannot move {code} to {target}: "
                    "that {colour} piece was destroyed"
                ),
                troop=label,
                square=here,
                code=code,
                target=self.game.square(target),
                colour=COLOURS[seat].upper(),
            )
            rule = "NEL-6"
        else:
            reason = Reason(
                "destroy_gone",
                N_("troop {troop} on {square} cannot destroy {target}: that piece is already gone"),
                troop=label,
                square=here,
                target=self.game.square(target),
            )
            rule = "NEL-6"
        raise IllegalMoveError(token, reason, rule=rule, valid=valid)

    def _troop_codes(self, seat: int, start: int) -> list[str]:
        """The non-hold orders a troop on ``start`` may be given (NEL-6)."""
        codes = []
        for code in ORDER_CODES[1:]:
            target = self.game.step(start, code)
            wanted = COLOURS[seat] if code in MOVES else COLOURS[1 - seat]
            if target is not None and self.pieces[target] == wanted:
                codes.append(code)
        return codes

    def _ends(self, seat: int, orders: Orders) -> list[int | None]:
        """Where each troop stands after the moves (NEL-7, NEL-8)."""
        ends: list[int | None] = []
        for start, code in zip(self.troops[seat], orders.codes, strict=True):
            if start is not None and code in MOVES:
                start = self.game.step(start, code)
            ends.append(start)
        return ends

    def _stacks(self, orders: Orders) -> bool:
        ends = [end for end in self._ends(orders.seat, orders) if end is not None]
        return len(set(ends)) < len(ends)

    def format(self, action: Action) -> str:
        seat = action.seat
        if isinstance(action, Placement):
            squares = action.squares
            return " ".join(
                f"{troop_label(seat, t)}:{self.game.square(s)}" for t, s in enumerate(squares)
            )
        texts = [f"{troop_label(seat, t)}:{c}" for t, c in enumerate(action.codes) if c != HOLD]
        return " ".join(texts) or HOLD

    # -- choices -------------------------------------------------------------------------

    def legal_actions(self, seat: int) -> Sequence[Action]:
        if seat not in self.to_act:
            return ()
        if self.turn == 0:
            return self._placements(seat)
        if self.game.quiet:
            return self._single_orders(seat) or [Orders.hold(seat)]
        every = (Orders(seat, codes) for codes in itertools.product(*self._choices(seat)))
        return [orders for orders in every if not self._stacks(orders)]

    def _choices(self, seat: int) -> list[tuple[str, ...]]:
        """Each troop's possible orders, hold first; a dead troop only holds."""
        return [
            (HOLD,) if start is None else (HOLD, *self._troop_codes(seat, start))
            for start in self.troops[seat]
        ]

    def _placements(self, seat: int) -> _Placements:
        game = self.game
        own = [i for i in range(game.size**2) if game.colour(i) == COLOURS[seat]]
        edge = [i for i in own if game.on_edge(i)]
        inner = [i for i in own if not game.on_edge(i)]
        return _Placements(seat, edge, inner, game.sea)

    def _single_orders(self, seat: int) -> list[Orders]:
        """Every legal order set in which exactly one troop acts (NEL-7, NEL-10)."""
        singles = []
        for troop, start in enumerate(self.troops[seat]):
            for code in self._troop_codes(seat, start) if start is not None else ():
                codes = tuple(code if t == troop else HOLD for t in range(TROOPS))
                orders = Orders(seat, codes)
                if not self._stacks(orders):
                    singles.append(orders)
        return singles

    def random_action(self, seat: int, rng: random.Random) -> Action:
        """Uniform over the legal actions, drawn without listing them."""
        if self.turn == 0:
            placements = self._placements(seat)
            return placements[rng.randrange(len(placements))]
        if self.game.quiet:
            return rng.choice(self._single_orders(seat) or [Orders.hold(seat)])
        choices = self._choices(seat)
        for _ in range(RANDOM_TRIES):
            orders = Orders(seat, tuple(rng.choice(codes) for codes in choices))
            if not self._stacks(orders):
                return orders
        return Orders.hold(seat)

    def examples(self, seat: int, count: int = 5) -> tuple[str, ...]:
        if seat not in self.to_act:
            return ()
        if self.turn == 0:
            placements = self._placements(seat)
            chosen = [self.default_action(seat), placements[len(placements) // 3]]
            return tuple(self.format(placement) for placement in chosen)
        singles = self._single_orders(seat)
        per_troop: dict[int, Orders] = {}
        for orders in singles:
            troop = next(t for t, code in enumerate(orders.codes) if code != HOLD)
            best = per_troop.get(troop)
            if best is None or (orders.codes[troop] in DESTROYS and best.codes[troop] in MOVES):
                per_troop[troop] = orders
        texts = [self.format(orders) for orders in per_troop.values()]
        if self.game.quiet:
            return tuple(texts[:count]) or (HOLD,)
        a_move = [self.format(o) for o in singles if any(c in MOVES for c in o.codes)][:1]
        destroys = {t: o.codes[t] for t, o in per_troop.items() if o.codes[t] in DESTROYS}
        together = tuple(destroys.get(t, HOLD) for t in range(TROOPS))
        combined = [self.format(Orders(seat, together))] if len(destroys) > 1 else []
        shown = dict.fromkeys([HOLD, *a_move, *texts])
        return (*list(shown)[: count - len(combined)], *combined)

    def default_action(self, seat: int) -> Action:
        """Every troop holds; the invasion default lands on the rim and centre (NEL-15)."""
        if self.turn:
            return Orders.hold(seat)
        game = self.game
        rim = [i for i in game.rim() if game.colour(i) == COLOURS[seat]]
        by_sea = rim[: game.sea]
        centre = (game.size - 1) / 2

        def distance(index: int) -> tuple[float, int]:
            rank, file = divmod(index, game.size)
            return (file - centre) ** 2 + (rank - centre) ** 2, index

        free = [
            i for i in range(game.size**2) if game.colour(i) == COLOURS[seat] and i not in by_sea
        ]
        by_air = sorted(free, key=distance)[: TROOPS - game.sea]
        return Placement(seat, (*by_sea, *by_air))

    # -- resolution ----------------------------------------------------------------------

    def _resolve(self, actions: Mapping[int, Action]) -> Resolution:
        if self.turn == 0:
            troops, events = self._land(actions)
            pieces, calm = self.pieces, 0
        else:
            troops, pieces, events = self._act(actions)
            calm = self.calm + 1 if pieces == self.pieces else 0
        pieces, removals = self._prune(pieces, troops)
        state = NelaxtamState(self.game, pieces, troops, self.turn + 1, calm)
        events += removals
        if state.outcome:
            over = Reason(
                "nel_game_over",
                N_("Game over: {reason} (NEL-13, NEL-14)"),
                reason=state.outcome.why or state.outcome.reason,
            )
            events.append(Event.told(over, "end"))
        return Resolution(state, tuple(events))

    def _land(
        self, actions: Mapping[int, Action]
    ) -> tuple[tuple[tuple[int | None, ...], ...], list[Event]]:
        """Both placements at once (NEL-5)."""
        troops, events = [], []
        for seat in (0, 1):
            squares = _placement(actions[seat]).squares
            troops.append(tuple[int | None, ...](squares))
            where = commas(
                [
                    Reason(
                        "nel_troop_on",
                        N_("{troop} on {square}"),
                        troop=troop_label(seat, t),
                        square=self.game.square(s),
                    )
                    for t, s in enumerate(squares)
                ]
            )
            landed = Reason(
                "nel_landed", N_("{side} landed troops {where}"), side=SIDES[seat], where=where
            )
            events.append(Event.told(landed, "place", seat))
        return tuple(troops), events

    def _act(
        self, actions: Mapping[int, Action]
    ) -> tuple[tuple[tuple[int | None, ...], ...], str, list[Event]]:
        """Moves, then destructions, then deaths (NEL-8, NEL-9)."""
        game = self.game
        troops = [list(self.troops[0]), list(self.troops[1])]
        events: list[Event] = []
        moved: set[tuple[int, int]] = set()
        hits: dict[int, list[int]] = {}
        for seat in (0, 1):
            for troop, code in enumerate(_orders(actions[seat]).codes):
                start = self.troops[seat][troop]
                if start is None or code == HOLD:
                    continue
                target = game.step(start, code)
                assert target is not None, "orders are validated against this position"
                if code in MOVES:
                    troops[seat][troop] = target
                    moved.add((seat, troop))
                    moved_why = Reason(
                        "nel_moved",
                        N_("{side} troop {troop} moved {start}-{target}"),
                        side=SIDES[seat],
                        troop=troop_label(seat, troop),
                        start=game.square(start),
                        target=game.square(target),
                    )
                    events.append(Event.told(moved_why, "move", seat))
                else:
                    hits.setdefault(target, []).append(troop)
        pieces = list(self.pieces)
        for target, hitters in hits.items():
            pieces[target] = DESTROYED
            seat = 1 if game.colour(target) == "o" else 0
            labels = [troop_label(seat, troop) for troop in hitters]
            where = game.square(target)
            destroyed = (
                Reason(
                    "nel_destroyed",
                    N_("{side} troop {troop} destroyed {square}"),
                    side=SIDES[seat],
                    troop=labels[0],
                    square=where,
                )
                if len(labels) == 1
                else Reason(
                    "nel_destroyed_together",
                    N_("{side} troops {troops} destroyed {square}"),
                    side=SIDES[seat],
                    troops=and_names(labels),
                    square=where,
                )
            )
            events.append(Event.told(destroyed, "destroy", seat))
        for seat in (0, 1):
            for troop, square in enumerate(troops[seat]):
                if square is not None and square in hits:
                    label, at = troop_label(seat, troop), game.square(square)
                    died = (
                        Reason(
                            "nel_died_arriving",
                            N_("{side} troop {troop} on {square} died after moving there"),
                            side=SIDES[seat],
                            troop=label,
                            square=at,
                        )
                        if (seat, troop) in moved
                        else Reason(
                            "nel_died",
                            N_("{side} troop {troop} on {square} died"),
                            side=SIDES[seat],
                            troop=label,
                            square=at,
                        )
                    )
                    events.append(Event.told(died, "death", seat))
                    troops[seat][troop] = None
        return (tuple(troops[0]), tuple(troops[1])), "".join(pieces), events

    def _prune(
        self, pieces: str, troops: tuple[tuple[int | None, ...], ...]
    ) -> tuple[str, list[Event]]:
        """Remove every group no troop of its side stands on (NEL-11, NEL-12)."""
        cells, events = list(pieces), []
        for seat in (0, 1):
            for group in _groups(self.game, pieces, COLOURS[seat]):
                if set(group).isdisjoint(troops[seat]):
                    for index in group:
                        cells[index] = DESTROYED
                    forms = Nn_(
                        "{side} group at {square} ({n} piece) removed: "
                        "no troop controls it (NEL-12)",
                        "{side} group at {square} ({n} pieces) removed: "
                        "no troop controls it (NEL-12)",
                    )
                    removed = Reason(
                        "nel_group_removed",
                        forms,
                        side=SIDES[seat],
                        square=self.game.square(group[0]),
                        n=len(group),
                    )
                    events.append(Event.told(removed, "remove", seat))
        return "".join(cells), events

    # -- output --------------------------------------------------------------------------

    def _labels(self) -> list[str]:
        """Each cell's character: territory, ``.``, or the troop standing there (NEL-18)."""
        cells = list(self.pieces)
        for seat in (0, 1):
            for troop, square in enumerate(self.troops[seat]):
                if square is not None:
                    cells[square] = troop_label(seat, troop)
        return cells

    def _rows(self) -> list[list[str]]:
        cells, size = self._labels(), self.game.size
        return [cells[rank * size : (rank + 1) * size] for rank in reversed(range(size))]

    def position(self) -> str:
        rows = "/".join("".join(row) for row in self._rows())
        return f"{rows} {self.turn or 'invasion'} {self.calm}"

    def ascii(self, viewer: int | None = None) -> str:
        size = self.game.size
        ranks = [str(rank) for rank in range(size, 0, -1)]
        return frame(self._rows(), self.game.board.file_letters, ranks)

    def grid(self, viewer: int | None = None) -> Grid:
        game, size = self.game, self.game.size
        rows = tuple(
            tuple(self._cell(rank * size + file) for file in range(size))
            for rank in reversed(range(size))
        )
        legend = (
            ("o", N_("O territory")),
            ("x", N_("X territory")),
            ("destroyed", N_("destroyed")),
        )
        return Grid(
            files=tuple(game.board.file_letters),
            ranks=tuple(str(rank) for rank in range(size, 0, -1)),
            rows=rows,
            legend=legend,
        )

    def _cell(self, index: int) -> Cell:
        square, piece = self.game.square(index), self.pieces[index]
        if piece == DESTROYED:
            return Cell(square, "", "destroyed", f"{square}: destroyed")
        title = f"{square}: {piece.upper()} territory"
        occupant = self.occupant(index)
        if occupant is None:
            return Cell(square, "", piece, title)
        label = troop_label(*occupant)
        return Cell(square, label, piece, f"{title}, {SIDES[occupant[0]]} troop {label}")

    def info_why(self, viewer: int | None = None) -> tuple[Reason, ...]:
        game = self.game
        legend = Reason(
            "nel_info_legend",
            N_("o x: territory   .: destroyed   1-5: O troops   A-E: X troops"),
        )
        if self.turn == 0:
            forms = Nn_(  # English says "troops" whatever the count
                "Invasion (NEL-5): {n} troops land by sea on edge pieces, {air} by air on any "
                "own piece; secret until both have placed",
                "Invasion (NEL-5): {n} troops land by sea on edge pieces, {air} by air on any "
                "own piece; secret until both have placed",
            )
            return (Reason("nel_info_invasion", forms, n=game.sea, air=TROOPS - game.sea), legend)
        alive = [
            Reason(
                "nel_alive",
                N_("{side} {troops}"),
                side=SIDES[seat],
                troops=" ".join(self._alive(seat)) or Reason("none", N_("none")),
            )
            for seat in (0, 1)
        ]
        o_score, x_score = self.scores()
        return (
            Reason(
                "nel_info_turn",
                N_(
                    "Turn {turn} (action, {variant} variant); turns without destruction: "
                    "{calm} of {limit} (NEL-13)"
                ),
                turn=self.number,
                variant=game.option("variant"),
                calm=self.calm,
                limit=CALM_LIMIT,
            ),
            Reason("nel_info_troops", N_("Troops: {o}; {x}"), o=alive[0], x=alive[1]),
            Reason("nel_info_score", N_("Score (NEL-14): O {o}, X {x}"), o=o_score, x=x_score),
            legend,
        )

    def status_reason(self, viewer: int | None = None) -> Reason:
        if self.outcome:
            return super().status_reason(viewer)
        if self.turn == 0:
            return Reason(
                "status_nelaxtam_invasion", N_("Turn 1 (invasion): placements due from O and X")
            )
        return Reason(
            "status_nelaxtam_due", N_("Turn {turn}: orders due from O and X"), turn=self.number
        )

    @property
    def number(self) -> int:
        """The turn as players and the service count it: the invasion is turn 1, so action
        turn ``n`` is turn ``n + 1`` (one vocabulary in mails, records and the API)."""
        return self.turn + 1

    def to_json(self) -> dict[str, Any]:
        return {
            **self.game.to_json(),
            "position": self.position(),
            "pending": self._pending_json(),
        }


def _placement(action: Action) -> Placement:
    if not isinstance(action, Placement):
        reason = Reason("invasion_placements", N_("the invasion takes placements"))
        raise IllegalMoveError(repr(action), reason, rule="NEL-16")
    return action


def _orders(action: Action) -> Orders:
    if not isinstance(action, Orders):
        reason = Reason("action_turn_orders", N_("an action turn takes troop orders"))
        raise IllegalMoveError(repr(action), reason, rule="NEL-17")
    return action


def _tokens(text: str) -> list[str]:
    """Orders split per C-1, with a bare troop label joined to what follows (``1 : ne``)."""
    tokens: list[str] = []
    for part in split_orders(text):
        if tokens and (part.startswith(":") or _is_bare_label(tokens[-1])):
            tokens[-1] += part
        else:
            tokens.append(part)
    return tokens


def _is_bare_label(token: str) -> bool:
    return len(token.rstrip(":")) == 1 and token[0].isalnum() and token.count(":") <= 1


def _groups(game: Nelaxtam, pieces: str, colour: str) -> Iterator[list[int]]:
    """The diagonally connected groups of ``colour``, each listed from its lowest square."""
    seen: set[int] = set()
    for first, piece in enumerate(pieces):
        if piece != colour or first in seen:
            continue
        group, frontier = [first], [first]
        seen.add(first)
        while frontier:
            index = frontier.pop()
            for code in MOVES:
                neighbour = game.step(index, code)
                if neighbour is not None and neighbour not in seen and pieces[neighbour] == colour:
                    seen.add(neighbour)
                    group.append(neighbour)
                    frontier.append(neighbour)
        yield group
