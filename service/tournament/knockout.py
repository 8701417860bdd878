"""Single-elimination knockout with a seeded bracket.

The bracket has the next power of two slots; seeds are placed in the standard order
(1 v 8, 4 v 5, 2 v 7, 3 v 6 for eight), so the top seeds meet as late as possible and the
missing bottom seeds become byes for the top seeds. A drawn game is settled by the rule
the TD chose: a replay with seats swapped (falling back to the higher seed after
``max_replays`` replays so a match always ends), the higher seed going through, or the
second seat going through (it had the disadvantage of moving second).

Each game is one round number; replays take later round numbers, and a stage's next
games wait until every match of the stage is decided.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum

from service.tournament.core import (
    Outcome,
    Pairing,
    PlayerId,
    Result,
    next_round_number,
)

Slot = PlayerId | None  # None is an empty bracket slot: its opponent has a bye


class DrawRule(StrEnum):
    REPLAY = "replay"
    HIGHER_SEED = "higher_seed"
    SECOND_SEAT = "second_seat"


def bracket_order(size: int) -> list[int]:
    """Seed numbers in bracket order; adjacent pairs meet in the first stage.

    >>> bracket_order(8)
    [1, 8, 4, 5, 2, 7, 3, 6]
    """
    order = [1]
    while len(order) < size:
        # Each seed s is joined by the seed that makes their sum one more than the new size.
        order = [seed for s in order for seed in (s, 2 * len(order) + 1 - s)]
    return order


def first_stage(entrants: Sequence[PlayerId]) -> list[Slot]:
    size = 1
    while size < len(entrants):
        size *= 2
    return [entrants[s - 1] if s <= len(entrants) else None for s in bracket_order(size)]


@dataclass(frozen=True)
class Knockout:
    draw_rule: DrawRule = DrawRule.REPLAY
    max_replays: int = 2

    def next_round(
        self,
        entrants: Sequence[PlayerId],
        results: Sequence[Result],
        withdrawn: Collection[PlayerId] = (),
    ) -> list[Pairing] | None:
        """Games still needed in the current stage; ``None`` once there is a winner.
        A withdrawn player's pending game is lost by withdrawal (``core.automatic_results``)."""
        del withdrawn  # a withdrawal is settled through the game it forfeits
        stage = self._current_stage(entrants, results)
        if len(stage) == 1:
            return None
        round_no = next_round_number(results)
        seed = {player: index for index, player in enumerate(entrants)}
        games = []
        for a, b in zip(stage[::2], stage[1::2], strict=True):
            if a is not None and b is not None and self._winner(a, b, results, seed) is None:
                games.append(self._seating(a, b, results, seed))
        return [Pairing(a, b, round_no, board) for board, (a, b) in enumerate(games, 1)]

    def winner(self, entrants: Sequence[PlayerId], results: Sequence[Result]) -> PlayerId | None:
        stage = self._current_stage(entrants, results)
        return stage[0] if len(stage) == 1 else None

    def _current_stage(self, entrants: Sequence[PlayerId], results: Sequence[Result]) -> list[Slot]:
        """Advance the bracket through every stage whose matches are all decided."""
        seed = {player: index for index, player in enumerate(entrants)}
        stage = first_stage(entrants)
        while len(stage) > 1:
            winners: list[Slot] = []
            for a, b in zip(stage[::2], stage[1::2], strict=True):
                if a is None or b is None:
                    winners.append(a if b is None else b)
                    continue
                winner = self._winner(a, b, results, seed)
                if winner is None:
                    return stage
                winners.append(winner)
            stage = winners
        return stage

    def _winner(
        self, a: PlayerId, b: PlayerId, results: Sequence[Result], seed: dict[str, int]
    ) -> PlayerId | None:
        games = _games_between(a, b, results)
        if not games:
            return None
        last = games[-1]
        if last.outcome is not Outcome.DRAW:
            return last.winner
        rule = self.draw_rule
        if rule is DrawRule.REPLAY and len(games) > self.max_replays:
            rule = DrawRule.HIGHER_SEED
        if rule is DrawRule.HIGHER_SEED:
            return a if seed[a] < seed[b] else b
        if rule is DrawRule.SECOND_SEAT:
            return last.pairing.second
        return None

    def _seating(
        self, a: PlayerId, b: PlayerId, results: Sequence[Result], seed: dict[str, int]
    ) -> tuple[PlayerId, PlayerId]:
        """Higher seed sits first in the first game; each replay swaps the seats."""
        games = _games_between(a, b, results)
        if games:
            last = games[-1].pairing
            return last.second or b, last.first
        return (a, b) if seed[a] < seed[b] else (b, a)


def _games_between(a: PlayerId, b: PlayerId, results: Sequence[Result]) -> list[Result]:
    # Two players meet in at most one match of a knockout, so these are all its games.
    games = [r for r in results if set(r.pairing.players) == {a, b}]
    return sorted(games, key=lambda r: r.pairing.round)
