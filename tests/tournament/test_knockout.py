"""Knockout: seeded bracket, byes for the top seeds, the TD's rule for drawn games."""

from __future__ import annotations

import pytest

from service.tournament.core import Outcome, Pairing, Result
from service.tournament.knockout import DrawRule, Knockout, bracket_order, first_stage
from tests.tournament.simulate import play_league


def test_bracket_keeps_top_seeds_apart_until_the_end() -> None:
    assert bracket_order(4) == [1, 4, 2, 3]
    assert bracket_order(16)[:4] == [1, 16, 8, 9]


def test_missing_bottom_seeds_are_byes_for_the_top_seeds() -> None:
    assert first_stage(["s1", "s2", "s3", "s4", "s5", "s6"]) == [
        "s1",
        None,
        "s4",
        "s5",
        "s2",
        None,
        "s3",
        "s6",
    ]
    first = Knockout().next_round(["s1", "s2", "s3", "s4", "s5", "s6"], [])
    assert first == [Pairing("s4", "s5", 1, 1), Pairing("s3", "s6", 1, 2)]


def draw_first_round(rule: DrawRule, max_replays: int = 2) -> tuple[Knockout, list[Result]]:
    league = Knockout(rule, max_replays)
    game = Pairing("a", "b", 1, 1)
    return league, [Result(game, Outcome.DRAW)]


def test_replay_swaps_seats_until_a_game_is_decisive() -> None:
    league, results = draw_first_round(DrawRule.REPLAY)
    assert league.next_round(["a", "b"], results) == [Pairing("b", "a", 2, 1)]
    results.append(Result(Pairing("b", "a", 2, 1), Outcome.FIRST_WON))
    assert league.next_round(["a", "b"], results) is None
    assert league.winner(["a", "b"], results) == "b"


def test_replays_fall_back_to_the_higher_seed() -> None:
    league, results = draw_first_round(DrawRule.REPLAY, max_replays=1)
    results.append(Result(Pairing("b", "a", 2, 1), Outcome.DRAW))
    assert league.winner(["a", "b"], results) == "a"


@pytest.mark.parametrize(
    ("rule", "winner"), [(DrawRule.HIGHER_SEED, "a"), (DrawRule.SECOND_SEAT, "b")]
)
def test_draw_decided_by_the_chosen_tiebreak(rule: DrawRule, winner: str) -> None:
    league, results = draw_first_round(rule)
    assert league.winner(["a", "b"], results) == winner


def test_next_stage_waits_for_every_match() -> None:
    league = Knockout(DrawRule.REPLAY)
    entrants = ["a", "b", "c", "d"]
    first = league.next_round(entrants, [])
    assert first == [Pairing("a", "d", 1, 1), Pairing("b", "c", 1, 2)]
    results = [Result(first[0], Outcome.FIRST_WON), Result(first[1], Outcome.DRAW)]
    assert league.next_round(entrants, results) == [Pairing("c", "b", 2, 1)]
    results.append(Result(Pairing("c", "b", 2, 1), Outcome.SECOND_WON))
    assert league.next_round(entrants, results) == [Pairing("a", "b", 3, 1)]


@pytest.mark.parametrize("size", [8, 9])
@pytest.mark.parametrize("rule", list(DrawRule))
@pytest.mark.parametrize("seed", range(5))
def test_simulated_knockout_has_a_single_winner(size: int, rule: DrawRule, seed: int) -> None:
    entrants = [f"p{i}" for i in range(1, size + 1)]
    # Enough replays that a fallback to the higher seed does not end a match in the run.
    league = Knockout(rule, max_replays=50)
    rounds, results = play_league(league, entrants, seed)
    winner = league.winner(entrants, results)
    assert winner in entrants
    losers = {r.loser for r in results if r.loser is not None}
    undefeated = [p for p in entrants if p not in losers]
    if rule is DrawRule.REPLAY:
        assert set(undefeated) <= {winner}
    # Each match eliminates exactly one player, so n players need n - 1 matches.
    matches = {frozenset(r.pairing.players) for r in results}
    assert len(matches) == size - 1
    for rnd in rounds:
        players = [p for pairing in rnd for p in pairing.players]
        assert len(players) == len(set(players))
