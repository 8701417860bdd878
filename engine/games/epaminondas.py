"""Epaminondas (Robert Abbott, 1975): phalanxes of stones race to the far home row.

Rules EPA-1..EPA-13 are in ``shared/rules/epaminondas.md``. Rule decisions made here:

* **EPA-5, directions.** A phalanx moves along its own line in either direction: north/south,
  east/west or along a diagonal. "Never sideways" means never across its own line, which the
  tail + direction model already guarantees (the moving group is the line of stones in the
  direction of travel). Moves along a rank are allowed: the rule book's reference counts need
  them (perft(3) from the 14x12 start is 1,787,292 with them and 1,532,388 without), and so do
  all 3,061 positions of the outside corpus.
* **EPA-8.** A move "puts a stone on the opponent's home row" when a stone of the moving group
  ends on that row. Only such moves are tested for the mirror symmetry.
* **EPA-9 to EPA-11** are checked in that order whenever a player is to move. EPA-11 counts
  positions (board and player to move) since the last capture: a capture can never be undone,
  so no earlier position can recur. The counts travel in the JSON, not in the position string.
* **EPA-12.** ``x`` written for a move that captures nothing is refused as an illegal move
  (the player has misread the board); ``-`` for a capture is accepted.

Stones are bitboards: one Python int per colour, square (file, rank) at bit
``rank * (files + 1) + file``. The extra, always empty column stops shifts from wrapping
from one edge of the board to the other.

>>> game = Epaminondas({"board": "8x8"})
>>> state = game.initial_state()
>>> len(state.legal_actions(0))
60
>>> after = state.play(0, "a1-a3").state
>>> after.position()
'BBBBBBBB/BBBBBBBB/8/8/8/W7/WWWWWWWW/1WWWWWWW b'
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

from engine.core import Cell, Event, Game, Grid, Option, Outcome, Resolution, State, Termination
from engine.errors import N_, IllegalMoveError, Nn_, NotationError, PositionError, Reason
from engine.notation import Board, frame
from engine.registry import register

__all__ = ["Epaminondas", "EpaminondasState", "Layout", "Move"]

WHITE, BLACK = 0, 1
COLOURS = ("White", "Black")
_COLOUR_WORDS = (Reason("colour_white", N_("White")), Reason("colour_black", N_("Black")))
"""The colours as words in error messages, so that they are translated with them."""
LETTERS = ("W", "B")

Key = tuple[int, int, int]
"""A position for EPA-11: white stones, black stones, seat to move."""


class Move(NamedTuple):
    """A phalanx move (EPA-5): tail and destination squares as bit indices.

    ``step`` is the bit offset of one square in the direction of travel and ``size`` the
    number of moving stones (the tail and every own stone contiguous with it that way).
    """

    tail: int
    dest: int
    step: int
    size: int


class Layout:
    """Bit geometry of one board size: squares, rows, the eight direction steps."""

    def __init__(self, files: int, ranks: int) -> None:
        self.files = files
        self.ranks = ranks
        self.pitch = files + 1
        self.board = Board(files, ranks)
        row = (1 << files) - 1
        self.row = row
        self.rank_masks = tuple(row << (rank * self.pitch) for rank in range(ranks))
        self.mask = sum(self.rank_masks)
        self.home = (self.rank_masks[0], self.rank_masks[-1])
        pitch = self.pitch
        self.steps = (pitch, pitch + 1, 1, 1 - pitch, -pitch, -pitch - 1, -1, pitch - 1)

    def bit(self, file: int, rank: int) -> int:
        return rank * self.pitch + file

    def square(self, bit: int) -> str:
        return self.board.square(bit % self.pitch, bit // self.pitch)

    def mirror(self, stones: int) -> int:
        """Stones reflected across the middle of the board, rank r to rank R+1-r (EPA-8)."""
        pitch, row, top = self.pitch, self.row, self.ranks - 1
        return sum(
            ((stones >> (rank * pitch)) & row) << ((top - rank) * pitch) for rank in range(top + 1)
        )

    def squares(self, stones: int) -> Iterator[int]:
        while stones:
            low = stones & -stones
            yield low.bit_length() - 1
            stones ^= low


def destinations(own: int, enemy: int, layout: Layout) -> Iterator[tuple[int, int, int, int, int]]:
    """All moves of ``own``, grouped: ``(step, size, distance, to_empty, to_capture)``.

    For one direction, group size and distance, ``to_empty`` holds the empty squares the
    front stone can reach and ``to_capture`` the enemy stones it can capture (EPA-5..EPA-7).
    The tail of each move lies ``(size - 1 + distance)`` steps back from its destination.
    """
    mask = layout.mask
    empty = mask ^ own ^ enemy
    for step in layout.steps:
        back = -step
        # run: own stones starting a line of >= size own stones in this direction;
        # hostile: enemy stones starting a line of >= size enemy stones (too many to capture).
        run, hostile, size = own, enemy, 1
        while run:
            longer = own & (run >> step if step > 0 else run << back)
            tails = run ^ longer
            if tails:
                reach = size * step
                hit = (tails << reach if step > 0 else tails >> -reach) & mask
                capturable = enemy ^ hostile
                distance = 1
                while hit:
                    free = hit & empty
                    taken = hit & capturable
                    if free or taken:
                        yield step, size, distance, free, taken
                    if distance == size:
                        break
                    distance += 1
                    hit = (free << step if step > 0 else free >> back) & mask
            run = longer
            hostile = enemy & (hostile >> step if step > 0 else hostile << back)
            size += 1


def apply_move(own: int, enemy: int, move: Move) -> tuple[int, int, int]:
    """``(own, enemy, captured)`` after ``move``, which is taken to be legal."""
    tail, dest, step, size = move
    group = 0
    square = tail
    for _ in range(size):
        group |= 1 << square
        square += step
    offset = dest - square + step
    moved = group << offset if offset > 0 else group >> -offset
    captured = 0
    square = dest
    while square >= 0 and (enemy >> square) & 1:
        captured |= 1 << square
        square += step
    return (own ^ group) | moved, enemy ^ captured, captured


@register
class Epaminondas(Game):
    """Epaminondas on 14x12 (or 8x8), with the anti-copy rule EPA-8 on or off."""

    name = "epaminondas"
    title = "Epaminondas"
    player_counts = (2,)
    OPTIONS = {
        "board": Option("14x12", ("14x12", "8x8"), "files x ranks (EPA-1)"),
        "anti_copy": Option("on", ("on", "off"), "the anti-copy rule (EPA-8)"),
    }

    def __init__(self, options: Mapping[str, str] | None = None, players: int | None = None):
        super().__init__(options, players)
        files, ranks = (int(part) for part in self.option("board").split("x"))
        self.layout = Layout(files, ranks)
        self.anti_copy = self.option("anti_copy") == "on"

    @property
    def seat_names(self) -> tuple[str, ...]:
        return COLOURS

    def initial_state(self) -> EpaminondasState:
        """EPA-2: each side fills its two home-side ranks; White moves first (EPA-3)."""
        ranks = self.layout.rank_masks
        return EpaminondasState.fresh(self, ranks[0] | ranks[1], ranks[-1] | ranks[-2], WHITE)

    def parse_position(self, text: str) -> EpaminondasState:
        white, black, mover = self._read_position(text)
        return EpaminondasState.fresh(self, white, black, mover)

    def _read_position(self, text: str) -> Key:
        """EPA-13: ranks from the top, ``W``/``B``/digits, then ``w`` or ``b``."""
        layout = self.layout
        parts = text.split()
        if len(parts) != 2:
            reason = Reason(
                "epa_position",
                N_("expected the ranks, a space, then w or b for the player to move"),
            )
            raise PositionError(text, reason, rule="EPA-13")
        rows, side = parts[0].split("/"), parts[1].lower()
        if side not in ("w", "b"):
            reason = Reason(
                "epa_side", N_("the player to move is w or b, not {side!r}"), side=parts[1]
            )
            raise PositionError(text, reason)
        if len(rows) != layout.ranks:
            reason = Reason(
                "epa_rank_count",
                N_("expected {ranks} ranks separated by '/', found {found}"),
                ranks=layout.ranks,
                found=len(rows),
            )
            raise PositionError(text, reason, rule="EPA-13")
        stones = [0, 0]
        for index, row in enumerate(rows):
            rank = layout.ranks - 1 - index
            file = 0
            for token in re.findall(r"\d+|\D", row):
                if token.isdigit():
                    file += int(token)
                    continue
                colour = "WB".find(token.upper())
                if colour < 0:
                    reason = Reason(
                        "epa_rank_token",
                        N_("rank {rank} has {token!r}; use W, B or digits for empty squares"),
                        rank=rank + 1,
                        token=token,
                    )
                    raise PositionError(text, reason, rule="EPA-13")
                if file < layout.files:
                    stones[colour] |= 1 << layout.bit(file, rank)
                file += 1
            if file != layout.files:
                reason = Reason(
                    "epa_rank_width",
                    N_("rank {rank} ({row!r}) covers {covered} squares, not {files}"),
                    rank=rank + 1,
                    row=row,
                    covered=file,
                    files=layout.files,
                )
                raise PositionError(text, reason, rule="EPA-13")
        return stones[WHITE], stones[BLACK], "wb".index(side)

    def state_from_json(self, data: Mapping[str, Any]) -> EpaminondasState:
        try:
            white, black, mover = self._read_position(data["position"])
            repetitions = tuple(
                (self._read_position(position), int(count))
                for position, count in data["repetitions"]
            )
        except (KeyError, TypeError, ValueError) as error:
            reason = Reason("state_damaged", N_("stored state is damaged: {error}"), error=error)
            raise PositionError(str(dict(data))[:80], reason) from None
        if any(count < 1 for _, count in repetitions):
            reason = Reason("repetition_counts", N_("repetition counts must be >= 1"))
            raise PositionError(str(data["repetitions"])[:80], reason)
        return EpaminondasState(self, white, black, mover, repetitions)


_MOVE = re.compile(r"([a-z]\d{1,2})\s*([-x])\s*([a-z]\d{1,2})")
_DASHES = str.maketrans({"–": "-", "—": "-", "×": "x"})


@dataclass(frozen=True)
class EpaminondasState(State):
    """A position: both colours' stones, the seat to move and the EPA-11 repetition counts.

    ``repetitions`` pairs each position seen since the last capture with how often it has
    occurred, in order of first sight; the current position is always among them.
    """

    game: Epaminondas
    white: int
    black: int
    mover: int
    repetitions: tuple[tuple[Key, int], ...] = ()

    @classmethod
    def fresh(cls, game: Epaminondas, white: int, black: int, mover: int) -> EpaminondasState:
        return cls(game, white, black, mover, (((white, black, mover), 1),))

    # -- rules ---------------------------------------------------------------------------

    @property
    def layout(self) -> Layout:
        return self.game.layout

    def stones(self, seat: int) -> tuple[int, int]:
        """``(own, enemy)`` bitboards from ``seat``'s side."""
        return (self.white, self.black) if seat == WHITE else (self.black, self.white)

    @property
    def key(self) -> Key:
        return self.white, self.black, self.mover

    def crossings(self, seat: int) -> int:
        """Stones of ``seat`` on the opponent's home row (EPA-9)."""
        own, _ = self.stones(seat)
        return (own & self.layout.home[1 - seat]).bit_count()

    def copies(self, seat: int, move: Move) -> bool:
        """EPA-8: would ``move`` by ``seat`` reach the opponent's home row and leave the
        board its own mirror image with colours swapped?"""
        layout = self.layout
        own, enemy = self.stones(seat)
        if own.bit_count() > enemy.bit_count():  # a move never adds enemy stones
            return False
        after, enemy_after, _ = apply_move(own, enemy, move)
        moved = after & ~own
        if not moved & layout.home[1 - seat] or after.bit_count() != enemy_after.bit_count():
            return False
        return layout.mirror(after) == enemy_after

    def generated_moves(self, seat: int | None = None) -> list[Move]:
        """Every move the rules EPA-5..EPA-8 allow ``seat`` (default: the player to move),
        whether or not the game has already ended; unsorted."""
        seat = self.mover if seat is None else seat
        own, enemy = self.stones(seat)
        target = self.layout.home[1 - seat] if self.game.anti_copy else 0
        moves: list[Move] = []
        append = moves.append
        for step, size, distance, free, taken in destinations(own, enemy, self.layout):
            back = (size - 1 + distance) * step
            for dests in (free, taken):
                while dests:
                    low = dests & -dests
                    dest = low.bit_length() - 1
                    dests ^= low
                    move = Move(dest - back, dest, step, size)
                    if not (low & target and self.copies(seat, move)):
                        append(move)
        return moves

    def count_moves(self, seat: int | None = None) -> int:
        """``len(generated_moves(seat))``, counted by popcount without listing the moves."""
        seat = self.mover if seat is None else seat
        own, enemy = self.stones(seat)
        target = self.layout.home[1 - seat] if self.game.anti_copy else 0
        total = 0
        for step, size, distance, free, taken in destinations(own, enemy, self.layout):
            total += free.bit_count() + taken.bit_count()
            landing = (free | taken) & target
            if landing:
                back = (size - 1 + distance) * step
                for dest in self.layout.squares(landing):
                    total -= self.copies(seat, Move(dest - back, dest, step, size))
        return total

    @cached_property
    def _legal(self) -> tuple[Move, ...]:
        return tuple(sorted(self.generated_moves()))

    @cached_property
    def outcome(self) -> Outcome | None:
        """EPA-9, then EPA-10, then EPA-11, for the player to move."""
        mover, other = self.mover, 1 - self.mover
        side = _COLOUR_WORDS[mover]
        if self.crossings(mover) > self.crossings(other):
            why = Reason(
                "epa_more_across",
                N_("{side} has more stones on the far home row (EPA-9)"),
                side=side,
            )
            return Outcome.win(mover, 2, why, Termination.GOAL)
        if not self._legal:
            why = Reason("epa_no_legal_move", N_("{side} has no legal move (EPA-10)"), side=side)
            return Outcome.win(other, 2, why, Termination.NO_MOVES)
        if dict(self.repetitions).get(self.key, 0) >= 3:
            why = Reason("epa_repetition", N_("the same position occurred three times (EPA-11)"))
            return Outcome.draw(2, why, Termination.REPETITION)
        return None

    @property
    def to_act(self) -> tuple[int, ...]:
        return () if self.outcome else (self.mover,)

    def legal_actions(self, seat: int) -> Sequence[Move]:
        return self._legal if seat in self.to_act else ()

    def after(self, move: Move) -> EpaminondasState:
        """The state after the player to move plays ``move`` (taken to be legal)."""
        own, enemy, captured = apply_move(*self.stones(self.mover), move)
        white, black = (own, enemy) if self.mover == WHITE else (enemy, own)
        key = (white, black, 1 - self.mover)
        seen = () if captured else self.repetitions
        counts = dict(seen)
        counts[key] = counts.get(key, 0) + 1
        return EpaminondasState(self.game, white, black, 1 - self.mover, tuple(counts.items()))

    def _resolve(self, actions: Mapping[int, Move]) -> Resolution:
        seat = self.mover
        move = actions[seat]
        enemy = self.stones(seat)[1]
        state = self.after(move)
        side = _COLOUR_WORDS[seat]
        played = Reason(
            "epa_played", N_("{side} played {move}."), side=side, move=self.format(move)
        )
        events = [Event.told(played, "move", seat)]
        taken = enemy & ~state.stones(seat)[1]
        if taken:
            names = ", ".join(self.layout.square(bit) for bit in self.layout.squares(taken))
            count = taken.bit_count()
            if seat == WHITE:
                forms = Nn_(
                    "White captured {n} Black stone: {squares}.",
                    "White captured {n} Black stones: {squares}.",
                )
            else:
                forms = Nn_(
                    "Black captured {n} White stone: {squares}.",
                    "Black captured {n} White stones: {squares}.",
                )
            why = Reason("epa_captured", forms, n=count, squares=names)
            events.append(Event.told(why, "capture", seat))
        if state.outcome:
            over = Reason(
                "event_game_over_dot",
                N_("Game over: {reason}."),
                reason=state.outcome.why or state.outcome.reason,
            )
            events.append(Event.told(over, "end"))
        return Resolution(state, tuple(events))

    # -- perft ---------------------------------------------------------------------------

    def fast_perft(self, depth: int) -> int:
        """Move paths of ``depth`` plies, the last ply counted by popcount (engine.perft)."""
        if depth == 0:
            return 1
        if self.is_over:
            return 0
        return self._perft(depth, dict(self.repetitions))

    def _perft(self, depth: int, counts: dict[Key, int]) -> int:
        if depth == 1:
            return self.count_moves()
        total = 0
        for move in self.generated_moves():
            own, enemy, captured = apply_move(*self.stones(self.mover), move)
            white, black = (own, enemy) if self.mover == WHITE else (enemy, own)
            child = EpaminondasState(self.game, white, black, 1 - self.mover)
            seen = {} if captured else counts
            seen[child.key] = seen.get(child.key, 0) + 1
            if not child._ends(seen[child.key]):
                total += child._perft(depth - 1, seen)
            seen[child.key] -= 1
        return total

    def _ends(self, occurrences: int) -> bool:
        """EPA-9 or EPA-11 ends the game here (EPA-10 leaves nothing to count anyway)."""
        return self.crossings(self.mover) > self.crossings(1 - self.mover) or occurrences >= 3

    # -- notation ------------------------------------------------------------------------

    def format(self, action: Move) -> str:
        """EPA-12: ``<tail>-<dest>``, ``x`` instead of ``-`` for a capture."""
        tail, dest = action.tail, action.dest
        enemy = self.black if (self.white >> tail) & 1 else self.white
        sign = "x" if (enemy >> dest) & 1 else "-"
        return f"{self.layout.square(tail)}{sign}{self.layout.square(dest)}"

    def parse(self, seat: int, text: str) -> Move:
        cleaned = text.strip().lower().translate(_DASHES)
        match = _MOVE.fullmatch(cleaned)
        if not match:
            reason = Reason(
                "epa_move_form",
                N_("a move is <tail>-<dest>: the tail stone, then where the front stone lands"),
            )
            raise NotationError(text, reason, rule="EPA-12", valid=self.examples(seat))
        layout = self.layout
        tail_file, tail_rank = layout.board.parse_square(match[1], text)
        dest_file, dest_rank = layout.board.parse_square(match[3], text)
        files, ranks = dest_file - tail_file, dest_rank - tail_rank
        if files == ranks == 0:
            reason = Reason("same_square", N_("the tail and the destination are the same square"))
            raise NotationError(text, reason)
        if files and ranks and abs(files) != abs(ranks):
            reason = Reason(
                "not_in_line",
                N_("{dest} is not on a file, rank or diagonal through {tail}"),
                dest=match[3],
                tail=match[1],
            )
            raise NotationError(text, reason, rule="EPA-12")
        step = (ranks > 0) - (ranks < 0)
        step = step * layout.pitch + (files > 0) - (files < 0)
        span = max(abs(files), abs(ranks))
        tail = layout.bit(tail_file, tail_rank)
        move = self._phalanx_move(seat, text, tail, step, span, capture=match[2] == "x")
        if self.game.anti_copy and self.copies(seat, move):
            reason = Reason(
                "mirror_image",
                N_(
                    "it reaches the far home row and leaves the board a mirror image of itself"
                    " with colours swapped"
                ),
            )
            raise IllegalMoveError(text, reason, rule="EPA-8")
        return move

    def _phalanx_move(
        self, seat: int, text: str, tail: int, step: int, span: int, *, capture: bool
    ) -> Move:
        """The move ``span`` steps from ``tail``, or the EPA-5..EPA-7 rule it breaks."""
        layout = self.layout
        own, enemy = self.stones(seat)
        name = layout.square
        if not (own >> tail) & 1:
            if (enemy >> tail) & 1:
                reason = Reason(
                    "holds_enemy_stone",
                    N_("{square} holds a {enemy} stone; you play {own}"),
                    square=name(tail),
                    enemy=_COLOUR_WORDS[1 - seat],
                    own=_COLOUR_WORDS[seat],
                )
            else:
                reason = Reason(
                    "no_stone_on", N_("there is no stone on {square}"), square=name(tail)
                )
            raise IllegalMoveError(text, reason, rule="EPA-5")
        size = 1
        while tail + size * step >= 0 and (own >> (tail + size * step)) & 1:
            size += 1
        front = tail + (size - 1) * step
        dest = tail + span * step
        if span < size:
            reason = Reason(
                "own_line_stone",
                N_(
                    "{dest} holds your own stone of the moving line {tail}-{front};"
                    " name the square where its front stone {front} lands"
                ),
                dest=name(dest),
                tail=name(tail),
                front=name(front),
            )
            raise IllegalMoveError(text, reason, rule="EPA-12")
        distance = span - size + 1
        if distance > size:
            reason = (
                Reason("single_stone_range", N_("a single stone moves at most 1 square"))
                if size == 1
                else Reason(
                    "phalanx_range",
                    Nn_(
                        "the {n} stones {tail}-{front} move at most {n} squares",
                        "the {n} stones {tail}-{front} move at most {n} squares",
                    ),
                    n=size,
                    tail=name(tail),
                    front=name(front),
                )
            )
            raise IllegalMoveError(text, reason, rule="EPA-5")
        for square in range(front + step, dest, step):
            if ((own | enemy) >> square) & 1:
                reason = (
                    Reason(
                        "pass_over_own",
                        N_("the front stone would pass over your own stone on {square}"),
                        square=name(square),
                    )
                    if (own >> square) & 1
                    else Reason(
                        "pass_over_enemy",
                        N_("the front stone would pass over a {enemy} stone on {square}"),
                        enemy=_COLOUR_WORDS[1 - seat],
                        square=name(square),
                    )
                )
                raise IllegalMoveError(text, reason, rule="EPA-6")
        if (own >> dest) & 1:
            reason = Reason(
                "onto_own_stone",
                N_("{square} holds your own stone; a phalanx never moves onto its own stones"),
                square=name(dest),
            )
            raise IllegalMoveError(text, reason, rule="EPA-5")
        if (enemy >> dest) & 1:
            self._check_capture(seat, text, dest, step, size)
        elif capture:
            reason = Reason(
                "nothing_to_capture",
                N_("{dest} is empty, there is nothing to capture; write {tail}-{dest}"),
                dest=name(dest),
                tail=name(tail),
            )
            raise IllegalMoveError(text, reason, rule="EPA-12")
        return Move(tail, dest, step, size)

    def _check_capture(self, seat: int, text: str, dest: int, step: int, size: int) -> None:
        if size == 1:
            reason = Reason("single_never_captures", N_("a single stone never captures"))
            raise IllegalMoveError(text, reason, rule="EPA-7")
        enemy = self.stones(seat)[1]
        hit, square = 0, dest
        while square >= 0 and (enemy >> square) & 1:
            hit += 1
            square += step
        if hit >= size:
            reason = Reason(
                "capture_too_few",
                Nn_(
                    "{n} moving stones cannot capture the {hit} {enemy} stones in"
                    " line from {square}: it takes strictly more moving stones",
                    "{n} moving stones cannot capture the {hit} {enemy} stones in"
                    " line from {square}: it takes strictly more moving stones",
                ),
                n=size,
                hit=hit,
                enemy=_COLOUR_WORDS[1 - seat],
                square=self.layout.square(dest),
            )
            raise IllegalMoveError(text, reason, rule="EPA-7")

    # -- output --------------------------------------------------------------------------

    def _letter(self, bit: int) -> str:
        if (self.white >> bit) & 1:
            return "W"
        if (self.black >> bit) & 1:
            return "B"
        return ""

    def position(self) -> str:
        layout = self.layout
        rows = []
        for rank in reversed(range(layout.ranks)):
            text, gap = "", 0
            for file in range(layout.files):
                letter = self._letter(layout.bit(file, rank))
                if letter:
                    text += (str(gap) if gap else "") + letter
                    gap = 0
                else:
                    gap += 1
            rows.append(text + (str(gap) if gap else ""))
        return "/".join(rows) + " " + "wb"[self.mover]

    def _rows(self) -> list[list[int]]:
        layout = self.layout
        return [
            [layout.bit(file, rank) for file in range(layout.files)]
            for rank in reversed(range(layout.ranks))
        ]

    def _rank_labels(self) -> list[str]:
        return [str(rank + 1) for rank in reversed(range(self.layout.ranks))]

    def ascii(self, viewer: int | None = None) -> str:
        cells = [[self._letter(bit) or "." for bit in row] for row in self._rows()]
        return frame(cells, self.layout.board.file_letters, self._rank_labels())

    def grid(self, viewer: int | None = None) -> Grid:
        names = {"W": "white stone", "B": "black stone", "": "empty"}
        styles = {"W": "white", "B": "black", "": "empty"}
        rows = tuple(
            tuple(
                Cell(
                    square=self.layout.square(bit),
                    text=letter,
                    style=styles[letter],
                    title=f"{self.layout.square(bit)}: {names[letter]}",
                )
                for bit, letter in ((bit, self._letter(bit)) for bit in row)
            )
            for row in self._rows()
        )
        legend = (("W", N_("White stone")), ("B", N_("Black stone")))
        files = tuple(self.layout.board.file_letters)
        return Grid(files, tuple(self._rank_labels()), rows, legend)

    def info_why(self, viewer: int | None = None) -> tuple[Reason, ...]:
        white, black = (self.stones(seat)[0].bit_count() for seat in (WHITE, BLACK))
        # English says "stones" whatever the count.
        white_forms = Nn_(
            "White: {n} stones, {crossings} on Black's home row",
            "White: {n} stones, {crossings} on Black's home row",
        )
        black_forms = Nn_(
            "Black: {n} stones, {crossings} on White's home row",
            "Black: {n} stones, {crossings} on White's home row",
        )
        return (
            Reason("epa_info_white", white_forms, n=white, crossings=self.crossings(WHITE)),
            Reason("epa_info_black", black_forms, n=black, crossings=self.crossings(BLACK)),
        )

    # -- storage -------------------------------------------------------------------------

    def _position_of(self, key: Key) -> str:
        return EpaminondasState.fresh(self.game, *key).position()

    def to_json(self) -> dict[str, Any]:
        return {
            **self.game.to_json(),
            "position": self.position(),
            "repetitions": [[self._position_of(key), count] for key, count in self.repetitions],
        }
