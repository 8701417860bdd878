"""Shared value types of every tournament format: pairings, results, forfeits, points."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

PlayerId = str


@dataclass(frozen=True)
class Pairing:
    """One game of a round; ``second is None`` is a bye for ``first``.

    ``first`` takes the first seat (white in chess terms) and moves first.
    """

    first: PlayerId
    second: PlayerId | None
    round: int
    board: int

    @property
    def is_bye(self) -> bool:
        return self.second is None

    @property
    def players(self) -> tuple[PlayerId, ...]:
        return (self.first,) if self.second is None else (self.first, self.second)

    def opponent(self, player: PlayerId) -> PlayerId | None:
        if player == self.first:
            return self.second
        if player == self.second:
            return self.first
        raise ValueError(f"{player!r} does not play in {self}")


class Outcome(StrEnum):
    FIRST_WON = "1-0"
    SECOND_WON = "0-1"
    DRAW = "1/2-1/2"
    BYE = "bye"


class Forfeit(StrEnum):
    """Why a game was decided without being played out; the loser forfeited."""

    TIME = "time"
    MISSED_TURNS = "missed_turns"
    WITHDRAWAL = "withdrawal"


@dataclass(frozen=True)
class Result:
    pairing: Pairing
    outcome: Outcome
    forfeit: Forfeit | None = None

    def __post_init__(self) -> None:
        if (self.outcome is Outcome.BYE) != self.pairing.is_bye:
            raise ValueError(f"outcome {self.outcome} does not fit pairing {self.pairing}")
        if self.forfeit is not None and self.outcome in (Outcome.DRAW, Outcome.BYE):
            raise ValueError("a forfeit always has a winner")

    @classmethod
    def bye(cls, pairing: Pairing) -> Result:
        return cls(pairing, Outcome.BYE)

    @classmethod
    def forfeited_by(cls, pairing: Pairing, loser: PlayerId, kind: Forfeit) -> Result:
        won = Outcome.SECOND_WON if loser == pairing.first else Outcome.FIRST_WON
        pairing.opponent(loser)  # raises if the loser is not in this game
        return cls(pairing, won, kind)

    def score_of(self, player: PlayerId) -> float:
        """Game score 1, ½ or 0 for ``player`` (a bye scores 1 here; leagues weigh it)."""
        if self.outcome is Outcome.BYE or self.outcome is Outcome.DRAW:
            return 1.0 if self.outcome is Outcome.BYE else 0.5
        return 1.0 if self.winner == player else 0.0

    @property
    def winner(self) -> PlayerId | None:
        if self.outcome is Outcome.FIRST_WON or self.outcome is Outcome.BYE:
            return self.pairing.first
        if self.outcome is Outcome.SECOND_WON:
            return self.pairing.second
        return None

    @property
    def loser(self) -> PlayerId | None:
        if self.outcome is Outcome.FIRST_WON:
            return self.pairing.second
        if self.outcome is Outcome.SECOND_WON:
            return self.pairing.first
        return None


@dataclass(frozen=True)
class PointsScheme:
    """League points per result; a league may pay a bye like a win, a draw or nothing."""

    win: float = 1.0
    draw: float = 0.5
    loss: float = 0.0
    bye: float = 1.0
    forfeit_loss: float = 0.0

    def points(self, result: Result, player: PlayerId) -> float:
        if result.outcome is Outcome.BYE:
            return self.bye
        if result.outcome is Outcome.DRAW:
            return self.draw
        if result.winner == player:
            return self.win
        return self.forfeit_loss if result.forfeit is not None else self.loss


class PairingFormat(Protocol):
    """What the service drives: ask for the next round once the current one is complete."""

    def next_round(
        self,
        entrants: Sequence[PlayerId],
        results: Sequence[Result],
        withdrawn: Collection[PlayerId] = (),
    ) -> list[Pairing] | None: ...


def next_round_number(results: Iterable[Result]) -> int:
    return 1 + max((r.pairing.round for r in results), default=0)


def withdrawn_players(results: Iterable[Result], withdrawn: Collection[PlayerId]) -> set[PlayerId]:
    """Players who withdrew, whether announced to the TD or through a forfeited game."""
    out = set(withdrawn)
    out.update(r.loser for r in results if r.forfeit is Forfeit.WITHDRAWAL and r.loser is not None)
    return out


def automatic_results(pairings: Iterable[Pairing], withdrawn: Collection[PlayerId]) -> list[Result]:
    """Results the service records at once instead of starting games: byes, and games of a
    withdrawn player (a fixed round-robin schedule keeps them; they are lost by withdrawal).
    When both players withdrew the first seat's loss is recorded, so the game still counts
    as played once for the schedule."""
    results = []
    for pairing in pairings:
        if pairing.second is None:
            results.append(Result.bye(pairing))
        elif pairing.first in withdrawn:
            results.append(Result.forfeited_by(pairing, pairing.first, Forfeit.WITHDRAWAL))
        elif pairing.second in withdrawn:
            results.append(Result.forfeited_by(pairing, pairing.second, Forfeit.WITHDRAWAL))
    return results
