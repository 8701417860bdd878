"""Test-only games registered for the service tests (and their worker processes, through
``PBEM_GAME_MODULES=tests.service.toys``): the sealed toy ``Duel`` from the engine tests and
``Countdown``, a sequential take-away game, and ``DiceCountdown``, the same with a die roll
before every move (at most the roll may be taken)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine import (
    Event,
    Game,
    Grid,
    IllegalMoveError,
    NotationError,
    Option,
    Outcome,
    Resolution,
    State,
    register,
)
from tests.engine.test_core import Duel


class Countdown(Game):
    """Take 1 or 2 stones (with dice: at most the roll); who takes the last stone wins."""

    name = "countdown"
    title = "Countdown"
    OPTIONS = {"pile": Option("7", ("3", "7", "15"))}

    def _state(self, pile: int, mover: int, roll: int | None) -> CountdownState:
        return CountdownState(self, pile, mover, roll)

    def initial_state(self) -> CountdownState:
        return self._state(int(self.option("pile")), 0, None)

    def parse_position(self, text: str) -> CountdownState:
        pile, mover, roll = text.split()
        return self._state(int(pile), int(mover), None if roll == "-" else int(roll))

    def state_from_json(self, data: Mapping[str, Any]) -> CountdownState:
        return self._state(data["pile"], data["mover"], data["roll"])


class DiceCountdown(Countdown):
    name = "dicecountdown"
    title = "Dice Countdown"

    def _state(self, pile: int, mover: int, roll: int | None) -> CountdownState:
        return DiceCountdownState(self, pile, mover, roll)


@dataclass(frozen=True)
class CountdownState(State):
    game: Countdown
    pile: int
    mover: int
    roll: int | None

    _dice = False

    @property
    def to_act(self) -> tuple[int, ...]:
        if self.outcome or (self._dice and self.roll is None):
            return ()
        return (self.mover,)

    @property
    def outcome(self) -> Outcome | None:
        if self.pile == 0:
            return Outcome.win(1 - self.mover, 2, "took the last stone")
        return None

    def _most(self) -> int:
        return min(self.pile, 2 if self.roll is None else self.roll)

    def parse(self, seat: int, text: str) -> int:
        words = text.lower().split()
        if len(words) != 2 or words[0] != "take" or not words[1].isdigit():
            raise NotationError(text, "write 'take N'", valid=self.examples(seat))
        count = int(words[1])
        if not 1 <= count <= self._most():
            raise IllegalMoveError(text, f"take from 1 to {self._most()} stones")
        return count

    def format(self, action: int) -> str:
        return f"take {action}"

    def legal_actions(self, seat: int) -> Sequence[int]:
        return tuple(range(1, self._most() + 1))

    def _resolve(self, actions: Mapping[int, int]) -> Resolution:
        taken = actions[self.mover]
        after = replace(self, pile=self.pile - taken, mover=1 - self.mover, roll=None)
        return Resolution(after, (Event(f"Player {self.mover + 1} took {taken}", "move"),))

    def position(self) -> str:
        return f"{self.pile} {self.mover} {'-' if self.roll is None else self.roll}"

    def ascii(self, viewer: int | None = None) -> str:
        return "o" * self.pile or "(empty)"

    def grid(self, viewer: int | None = None) -> Grid:
        return Grid((), (), ())

    def to_json(self) -> dict[str, Any]:
        return {**self.game.to_json(), "pile": self.pile, "mover": self.mover, "roll": self.roll}


@dataclass(frozen=True)
class DiceCountdownState(CountdownState):
    _dice = True

    def chance_outcomes(self) -> tuple[str, ...]:
        return ("1", "2") if self.roll is None and not self.outcome else ()

    def apply_chance(self, outcome: str) -> Resolution:
        return Resolution(replace(self, roll=int(outcome)), (Event(f"rolled {outcome}", "roll"),))


register(Duel)
register(Countdown)
register(DiceCountdown)
