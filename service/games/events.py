"""What a locked game's methods did, as typed values (issue 23).

The aggregate (:mod:`service.games.aggregate`) writes the game's rows and returns these; the
unit of work then hands them to the consumers (:mod:`service.games.consequences`): the chain,
notifications, leagues, conditional moves, the resolve task. An event says what happened,
never how a consumer should react.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from engine import Event, Outcome, State
from service.models import Player


@dataclass(frozen=True)
class Started:
    """A new game exists (before its first dice and its first turn)."""

    state: State


@dataclass(frozen=True)
class Moved:
    """An alternating move was applied (``channel``: api, mail, conditional...)."""

    turn: int
    seat: int
    text: str
    channel: str


@dataclass(frozen=True)
class OrdersSealed:
    """A seat submitted (or replaced) its sealed orders; only the receipt is public."""

    turn: int
    seat: int
    receipt: str


@dataclass(frozen=True)
class OrdersWithdrawn:
    turn: int
    seat: int


@dataclass(frozen=True)
class OrdersRevealed:
    """A seat's sealed orders applied as the turn resolved, with the salt opening the receipt
    (both None for default orders)."""

    turn: int
    seat: int
    text: str
    salt: str | None
    receipt: str | None


@dataclass(frozen=True)
class TurnReady:
    """Every seat is in and nobody waits: the turn may be resolved now."""

    turn: int


@dataclass(frozen=True)
class DiceRolled:
    turn: int
    roll: int
    outcome: str


@dataclass(frozen=True)
class TurnResolved:
    """Turn ``number`` closed (``by``: start, move, orders, deadline); ``opened`` is the next
    turn's number, or None when the game ended with it."""

    number: int
    by: str
    state: State
    told: Sequence[Event]
    opened: int | None


@dataclass(frozen=True)
class GameEnded:
    turn: int
    outcome: Outcome
    by: str
    state: State
    at: datetime


@dataclass(frozen=True)
class DeadlineChanged:
    """The open turn's deadline moved: by a director (``actor``; the seats ``owing`` are told)
    or a vacation (no actor)."""

    turn: int
    deadline: datetime | None
    actor: str | None = None
    owing: tuple[Player, ...] = ()


class DirectorAct(StrEnum):
    """A tournament director's act on one game, as the chain names it (``action``)."""

    PAUSE = "pause"
    RESUME = "resume"
    DEADLINE = "deadline"
    REPLACE = "replace"
    SET_RESULT = "set_result"
    CORRECT_RESULT = "correct_result"
    VOID = "void"


@dataclass(frozen=True)
class DirectorActed:
    """A director (``actor``, by name) acted on the game in ``turn``; ``detail`` is what the
    chain records of the act, as it always has: the reason (pause, resume), the new deadline
    and reason (deadline), the seat, player and reason (replace), or the result given."""

    turn: int
    actor: str
    act: DirectorAct
    detail: Any


@dataclass(frozen=True)
class DrawNews:
    """A draw offer made, accepted (not yet by all), declined or withdrawn."""

    player: Player
    seat: int
    news: str
    offers: tuple[int, ...]


@dataclass(frozen=True)
class TakebackNews:
    """A takeback offered or declined (issue 25): ``news`` says which, in English."""

    player: Player
    seat: int
    news: str


@dataclass(frozen=True)
class TakenBack:
    """The move ``text`` of ``seat`` (played in turn ``turn``) was taken back by consent:
    turn ``closed`` ended with it and turn ``opened`` has the position before the move,
    ``seat`` to move again."""

    turn: int
    seat: int
    text: str
    closed: int
    opened: int
    state: State


GameEvent = (
    Started
    | Moved
    | OrdersSealed
    | OrdersWithdrawn
    | OrdersRevealed
    | TurnReady
    | DiceRolled
    | TurnResolved
    | GameEnded
    | DeadlineChanged
    | DirectorActed
    | DrawNews
    | TakebackNews
    | TakenBack
)
