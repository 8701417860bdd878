"""The game API itself, on a toy sealed-turn game (not registered)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from engine import (
    Event,
    Game,
    GameOverError,
    Grid,
    IllegalMoveError,
    NotationError,
    Option,
    OptionError,
    Outcome,
    Reason,
    Resolution,
    State,
    Termination,
)
from engine.errors import N_


class Duel(Game):
    """Both players name a number 1-3 at once; the higher number scores; first to 2 wins."""

    name = "duel"
    title = "Duel"
    OPTIONS = {"target": Option("2", ("1", "2"))}

    def initial_state(self) -> DuelState:
        return DuelState(self, (0, 0))

    def parse_position(self, text: str) -> DuelState:
        a, b = text.split()
        return DuelState(self, (int(a), int(b)))

    def state_from_json(self, data: Mapping[str, Any]) -> DuelState:
        state = DuelState(self, tuple(data["scores"]))
        return state._with_pending_json(data["pending"])


@dataclass(frozen=True)
class DuelState(State):
    game: Duel
    scores: tuple[int, ...]
    pending: tuple[tuple[int, Any], ...] = ()
    simultaneous = True

    @property
    def to_act(self) -> tuple[int, ...]:
        return () if self.outcome else (0, 1)

    @property
    def outcome(self) -> Outcome | None:
        for seat, score in enumerate(self.scores):
            if score >= int(self.game.option("target")):
                return Outcome.win(seat, 2, "reached the target")
        return None

    def parse(self, seat: int, text: str) -> int:
        if text.strip() not in {"1", "2", "3"}:
            reason = Reason("name_a_number", N_("name a number"))
            raise NotationError(text, reason, valid=["1", "2", "3"])
        return int(text)

    def format(self, action: int) -> str:
        return str(action)

    def legal_actions(self, seat: int) -> Sequence[int]:
        return (1, 2, 3)

    def default_action(self, seat: int) -> int:
        return 1

    def _resolve(self, actions: Mapping[int, int]) -> Resolution:
        a, b = actions[0], actions[1]
        scores = (self.scores[0] + (a > b), self.scores[1] + (b > a))
        return Resolution(DuelState(self.game, scores), (Event(f"{a} against {b}"),))

    def position(self) -> str:
        return f"{self.scores[0]} {self.scores[1]}"

    def ascii(self, viewer: int | None = None) -> str:
        return self.position()

    def grid(self, viewer: int | None = None) -> Grid:
        return Grid((), (), ())

    def to_json(self) -> dict[str, Any]:
        return {**self.game.to_json(), "scores": list(self.scores), "pending": self._pending_json()}


def test_submitted_orders_can_be_replaced_until_resolution() -> None:
    state = Duel().initial_state().submit(0, "3").submit(0, "2").submit(1, "1")
    assert state.orders_of(0) == 2
    assert state.resolve().state.scores == (1, 0)


def test_withdrawn_orders_fall_back_to_the_default_at_resolution() -> None:
    state = Duel().initial_state().submit(0, "3").withdraw(0).submit(1, "2")
    resolution = state.resolve()
    assert resolution.state.scores == (0, 1)
    assert [event.text for event in resolution.events] == ["1 against 2"]


def test_a_view_shows_own_orders_and_only_the_fact_of_the_others() -> None:
    state = Duel().initial_state().submit(0, "3")
    assert state.view(0).own_orders == "3"
    assert state.view(1).own_orders is None
    assert state.view(1).submitted == (0,)
    assert state.view(1) == Duel().initial_state().submit(0, "2").view(1)


def test_pending_orders_survive_the_json_round_trip() -> None:
    state = Duel().initial_state().submit(1, "2")
    assert Duel().state_from_json(state.to_json()) == state


def test_orders_after_the_end_are_refused() -> None:
    state = Duel({"target": "1"}).parse_position("1 0")
    with pytest.raises(GameOverError, match="game over"):
        state.submit(0, "1")


def test_a_sequential_play_is_refused_in_a_sealed_game() -> None:
    with pytest.raises(IllegalMoveError):
        Duel().initial_state().play(0, "1")


def test_syntax_errors_quote_the_input_and_list_what_is_valid() -> None:
    with pytest.raises(NotationError) as caught:
        Duel().initial_state().submit(0, "seven")
    assert str(caught.value) == "cannot read 'seven': name a number. Valid here: 1, 2, 3"


def test_unknown_options_and_values_are_explained() -> None:
    with pytest.raises(OptionError, match="Duel has no option 'size'"):
        Duel({"size": "3"})
    with pytest.raises(OptionError, match=r"Valid here: 1, 2"):
        Duel({"target": "5"})
    with pytest.raises(OptionError, match="played by 2 players"):
        Duel(players=3)


def test_games_are_values() -> None:
    assert Duel({"target": "1"}) == Duel({"TARGET": " 1 "})
    assert hash(Duel()) == hash(Duel({"target": "2"}))


def test_outcomes_give_places_points_and_result() -> None:
    assert Outcome.win(1, 2, "r").result == "0-1"
    assert Outcome.by_scores([3, 5, 3], "r").places == (2, 1, 2)
    assert Outcome.by_scores([3, 5, 3], "r").result == "2-1-2"
    assert Outcome.from_json(Outcome.draw(2, "r").to_json()).is_draw


def test_issue23_termination_round_trips_through_the_outcome_json() -> None:
    outcome = Outcome.win(0, 2, "White crossed (EPA-9)", Termination.GOAL)
    data = outcome.to_json()
    assert data["termination"] == "goal"
    assert Outcome.from_json(data) == outcome
    assert Outcome.from_json({**data, "termination": "no such ending"}) == outcome


@pytest.mark.parametrize(
    ("reason", "termination"),
    [
        ("White has more stones on the far home row (EPA-9)", Termination.GOAL),
        ("Blue has no legal move (ANT-13)", Termination.NO_MOVES),
        ("the same position occurred three times (EPA-11)", Termination.REPETITION),
        ("Dark placed all 8 stones (ELE-11)", Termination.GOAL),
        ("Dark reached 5 points (ELE-11)", Termination.SCORE),
        ("O 3 : X 5, 10 action turns in a row without destruction", Termination.NO_PROGRESS),
        ("White resigned", Termination.RESIGNATION),
        ("draw by agreement", Termination.AGREEMENT),
        ("Black lost on time", Termination.TIMEOUT),
        ("Black forfeited after 3 missed turns", Termination.FORFEIT),
        ("result set by the director: no show", Termination.ADJUDICATION),
        ("Ann withdrew from the league", Termination.WITHDRAWAL),
        ("reached the target", Termination.UNKNOWN),
    ],
)
def test_issue23_an_outcome_stored_without_termination_gets_the_one_its_reason_tells(
    reason: str, termination: Termination
) -> None:
    old = {"places": [1, 2], "reason": reason, "result": "1-0"}
    assert Outcome.from_json(old).termination is termination
    assert Outcome((1, 2), reason).termination is termination
