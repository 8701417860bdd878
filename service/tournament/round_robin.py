"""Round robin by the Berger tables (FIDE Handbook C.05, Annex 1).

Entrants are numbered 1..n in the order given (the service draws lots or seeds them).
For an odd count a dummy number n+1 is added; whoever meets it has a bye that round.
A double round robin repeats the first cycle with the seats reversed, so every pair
plays both seats.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from service.tournament.core import Pairing, PlayerId, Result, next_round_number

NumberPair = tuple[int, int]


def berger_table(player_count: int) -> list[list[NumberPair]]:
    """Rounds of (first seat, second seat) numbers, boards in the published order.

    >>> berger_table(4)
    [[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]
    """
    if player_count < 2:
        raise ValueError(f"a round robin needs at least 2 players, got {player_count}")
    n = player_count + player_count % 2
    half = n // 2
    # Round 1 is 1-n, 2-(n-1), ...; each later round adds n/2 (mod n-1) to every number
    # except n, and n alternates seats on board 1. This reproduces the printed tables.
    rounds = []
    boards = [(1, n)] + [(k + 1, n - k) for k in range(1, half)]
    for round_index in range(n - 1):
        first_board = boards[0] if round_index % 2 == 0 else (n, boards[0][0])
        rounds.append([first_board, *boards[1:]])
        boards = [(_shift(a, half, n), _shift(b, half, n)) for a, b in boards]
        boards[0] = (boards[0][0], n)
    return rounds


def _shift(number: int, by: int, n: int) -> int:
    if number == n:
        return n
    return (number - 1 + by) % (n - 1) + 1


@dataclass(frozen=True)
class RoundRobin:
    """Single (``cycles=1``) or double (``cycles=2``) round robin."""

    cycles: int = 1

    def round_count(self, entrant_count: int) -> int:
        return len(berger_table(entrant_count)) * self.cycles

    def next_round(
        self,
        entrants: Sequence[PlayerId],
        results: Sequence[Result],
        withdrawn: Collection[PlayerId] = (),
    ) -> list[Pairing] | None:
        """The fixed schedule goes on whoever withdrew: their games are forfeits
        (``core.automatic_results``), so every pair still meets once per cycle."""
        round_no = next_round_number(results)
        if round_no > self.round_count(len(entrants)):
            return None
        return self.pairings(entrants, round_no)

    def pairings(self, entrants: Sequence[PlayerId], round_no: int) -> list[Pairing]:
        table = berger_table(len(entrants))
        cycle, index = divmod(round_no - 1, len(table))
        games: list[tuple[PlayerId, PlayerId | None]] = []
        for a, b in table[index]:
            first, second = (a, b) if cycle % 2 == 0 else (b, a)
            seated = [
                p for p in (_entrant(entrants, first), _entrant(entrants, second)) if p is not None
            ]
            games.append((seated[0], seated[1] if len(seated) == 2 else None))
        # The bye (a game against the dummy number) goes after the boards actually played.
        games.sort(key=lambda game: game[1] is None)
        return [Pairing(a, b, round_no, board) for board, (a, b) in enumerate(games, 1)]


def _entrant(entrants: Sequence[PlayerId], number: int) -> PlayerId | None:
    return entrants[number - 1] if number <= len(entrants) else None
