"""Issue 25 point 6: a league's cap on a game's days ends a running game; the engine decides it
(``State.adjudicate_at_cap``) by the rule book's score where the game counts one, otherwise as
a draw, with the ``cap`` termination."""

from __future__ import annotations

from dataclasses import replace

import engine
from engine import Termination


def test_elemento_at_the_cap_is_decided_by_points() -> None:
    state = engine.new_game("elemento", {}, 2).initial_state()
    assert engine.game_class("elemento").cap_decision == "score"
    outcome = replace(state, scores=(3, 1)).adjudicate_at_cap()  # type: ignore[type-var]
    assert outcome.places == (1, 2) and outcome.termination is Termination.CAP
    assert "points 3 : 1 at the league's time cap" in outcome.reason
    assert replace(state, scores=(2, 2)).adjudicate_at_cap().is_draw  # type: ignore[type-var]


def test_nelaxtam_at_the_cap_counts_pieces_in_controlled_groups() -> None:
    state = engine.new_game("nelaxtam", {}, 2).initial_state()
    outcome = state.adjudicate_at_cap()
    assert outcome.termination is Termination.CAP
    assert outcome.reason.startswith("O ") and "time cap" in outcome.reason


def test_a_game_without_a_score_is_a_draw_at_the_cap() -> None:
    for name in ("epaminondas", "elasta", "anti-grid"):
        assert engine.game_class(name).cap_decision == "draw"
        state = engine.new_game(name, {}, 2).initial_state()
        outcome = state.adjudicate_at_cap()
        assert outcome.is_draw and outcome.termination is Termination.CAP, name
        assert Termination.of_reason(outcome.reason) is Termination.CAP
