"""Round robin: Berger tables as published in the FIDE Handbook (C.05, Annex 1)."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from service.tournament.core import Forfeit, Outcome, Pairing, Result, withdrawn_players
from service.tournament.round_robin import RoundRobin, berger_table
from tests.tournament.simulate import play_league

PUBLISHED = {
    4: ["1-4 2-3", "4-3 1-2", "2-4 3-1"],
    6: ["1-6 2-5 3-4", "6-4 5-3 1-2", "2-6 3-1 4-5", "6-5 1-4 2-3", "3-6 4-2 5-1"],
    8: [
        "1-8 2-7 3-6 4-5",
        "8-5 6-4 7-3 1-2",
        "2-8 3-1 4-7 5-6",
        "8-6 7-5 1-4 2-3",
        "3-8 4-2 5-1 6-7",
        "8-7 1-6 2-5 3-4",
        "4-8 5-3 6-2 7-1",
    ],
}


@pytest.mark.parametrize("size", sorted(PUBLISHED))
def test_berger_table_matches_the_published_fide_table(size: int) -> None:
    printed = [" ".join(f"{a}-{b}" for a, b in rnd) for rnd in berger_table(size)]
    assert printed == PUBLISHED[size]


def test_odd_count_uses_the_dummy_number_for_byes() -> None:
    """Five players use the six-player table; meeting number 6 is the bye."""
    league = RoundRobin()
    entrants = ["a", "b", "c", "d", "e"]
    first = league.pairings(entrants, 1)
    assert first == [
        Pairing("b", "e", 1, 1),
        Pairing("c", "d", 1, 2),
        Pairing("a", None, 1, 3),
    ]
    byes = [p.first for r in range(1, 6) for p in league.pairings(entrants, r) if p.is_bye]
    assert sorted(byes) == entrants


def test_double_round_robin_reverses_seats_in_the_second_cycle() -> None:
    league = RoundRobin(cycles=2)
    entrants = ["a", "b", "c", "d"]
    assert league.round_count(4) == 6
    for r in range(1, 4):
        first_cycle = league.pairings(entrants, r)
        second_cycle = league.pairings(entrants, r + 3)
        assert [(p.second, p.first) for p in first_cycle] == [
            (p.first, p.second) for p in second_cycle
        ]


def test_schedule_continues_after_a_withdrawal_as_forfeits() -> None:
    league = RoundRobin()
    entrants = ["a", "b", "c", "d"]
    first = league.next_round(entrants, [])
    assert first is not None
    results = [
        Result.forfeited_by(first[0], "a", Forfeit.WITHDRAWAL),
        Result(first[1], Outcome.DRAW),
    ]
    assert withdrawn_players(results, ()) == {"a"}
    assert league.next_round(entrants, results) == league.pairings(entrants, 2)


@pytest.mark.parametrize("size", [8, 9])
@pytest.mark.parametrize("cycles", [1, 2])
@pytest.mark.parametrize("seed", range(5))
def test_simulated_league_meets_everyone_once_per_cycle(size: int, cycles: int, seed: int) -> None:
    entrants = [f"p{i}" for i in range(1, size + 1)]
    league = RoundRobin(cycles)
    rounds, results = play_league(league, entrants, seed)
    per_cycle = len(rounds) // cycles
    assert len(rounds) == league.round_count(size)
    for cycle in range(cycles):
        games = [p for rnd in rounds[cycle * per_cycle : (cycle + 1) * per_cycle] for p in rnd]
        met = Counter(frozenset(p.players) for p in games if not p.is_bye)
        assert met == Counter(frozenset(pair) for pair in combinations(entrants, 2))
        if cycles == 2 and cycle == 1:
            assert {(p.first, p.second) for p in games if not p.is_bye} == {
                (p.second, p.first) for rnd in rounds[:per_cycle] for p in rnd if not p.is_bye
            }
    for rnd in rounds:
        assert sorted(p for pairing in rnd for p in pairing.players) == sorted(entrants)
    firsts = Counter(p.first for rnd in rounds for p in rnd if not p.is_bye)
    seconds = Counter(p.second for rnd in rounds for p in rnd if not p.is_bye)
    if cycles == 1:
        assert all(abs(firsts[p] - seconds[p]) <= 1 for p in entrants)
        assert max(firsts.values()) - min(firsts[p] for p in entrants) <= 1
    else:
        assert all(firsts[p] == seconds[p] for p in entrants)
    assert len(results) == sum(len(rnd) for rnd in rounds)
