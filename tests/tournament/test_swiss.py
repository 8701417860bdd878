"""Swiss: score-group pairing by maximum weight matching, byes, seats, withdrawals."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence

import pytest

from service.tournament.core import Forfeit, Outcome, Pairing, PointsScheme, Result
from service.tournament.swiss import (
    PairingImpossible,
    Swiss,
    SwissEntrant,
    pair_round,
    swiss_entrants,
)
from tests.tournament.simulate import play_league


def greedy_top_down(ranked: Sequence[SwissEntrant]) -> list[tuple[str, str]] | None:
    """The naive method: each unpaired player, best first, takes the best opponent not yet
    met. Returns None when it leaves players who cannot be paired."""
    left = list(ranked)
    games = []
    while len(left) > 1:
        top = left.pop(0)
        partner = next((e for e in left if e.player not in top.opponents), None)
        if partner is None:
            return None
        left.remove(partner)
        games.append((top.player, partner.player))
    return games


def test_matching_pairs_where_greedy_top_down_pairing_fails() -> None:
    """Four players on 1 point; c and d have met. Greedy pairs a-b and is left with c-d, a
    rematch. The matching finds a-c/b-d (or a-d/b-c)."""
    ranked = [
        SwissEntrant("a", 1, frozenset({"x"})),
        SwissEntrant("b", 1, frozenset({"y"})),
        SwissEntrant("c", 1, frozenset({"d"})),
        SwissEntrant("d", 1, frozenset({"c"})),
    ]
    assert greedy_top_down(ranked) is None
    pairs = {frozenset(p.players) for p in pair_round(ranked, 2)}
    assert frozenset({"c", "d"}) not in pairs
    assert len(pairs) == 2


def test_matching_floats_across_groups_only_as_far_as_needed() -> None:
    """Top group a, b (2 points) have met, so each floats down one group; greedy would
    pair a with c, then b with d, but b-d sends b two groups down when b-c and a-d are
    one each."""
    ranked = [
        SwissEntrant("a", 2, frozenset({"b"})),
        SwissEntrant("b", 2, frozenset({"a"})),
        SwissEntrant("c", 1),
        SwissEntrant("d", 0),
    ]
    pairs = {frozenset(p.players) for p in pair_round(ranked, 3)}
    assert frozenset({"a", "b"}) not in pairs
    assert len(pairs) == 2


def test_no_complete_pairing_raises() -> None:
    ranked = [SwissEntrant("a", 1, frozenset({"b"})), SwissEntrant("b", 1, frozenset({"a"}))]
    with pytest.raises(PairingImpossible, match="rematch"):
        pair_round(ranked, 2)


def test_bye_goes_to_the_lowest_scorer_without_a_bye() -> None:
    ranked = [
        SwissEntrant("a", 2),
        SwissEntrant("b", 1),
        SwissEntrant("c", 0, byes=1),
    ]
    pairings = pair_round(ranked, 3)
    assert pairings[-1] == Pairing("b", None, 3, 2)


def test_bye_is_scored_as_the_league_says() -> None:
    bye = Result.bye(Pairing("a", None, 1, 1))
    assert swiss_entrants(["a"], [bye], PointsScheme(bye=0.5))[0].points == 0.5
    assert swiss_entrants(["a"], [bye], PointsScheme(win=3, bye=3))[0].points == 3


def test_first_seat_goes_to_whoever_is_owed_it() -> None:
    ranked = [
        SwissEntrant("a", 1, seat_balance=1, last_seat_first=True),
        SwissEntrant("b", 1, seat_balance=-1, last_seat_first=False),
    ]
    assert pair_round(ranked, 2) == [Pairing("b", "a", 2, 1)]


def test_withdrawn_player_is_not_paired_again() -> None:
    league = Swiss(rounds=3)
    entrants = ["a", "b", "c", "d"]
    first = league.next_round(entrants, [])
    assert first is not None
    results = [
        Result.forfeited_by(first[0], first[0].first, Forfeit.WITHDRAWAL),
        Result(first[1], Outcome.DRAW),
    ]
    second = league.next_round(entrants, results)
    assert second is not None
    assert first[0].first not in {p for pairing in second for p in pairing.players}
    assert league.next_round(entrants, results, withdrawn={"b", "c", "d"}) is None


def test_event_ends_early_when_every_pairing_would_be_a_rematch() -> None:
    a_b = Pairing("a", "b", 1, 1)
    assert Swiss(rounds=3).next_round(["a", "b"], [Result(a_b, Outcome.DRAW)]) is None


def perfect_matchings(players: list[str]) -> Iterator[list[tuple[str, str]]]:
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for index, partner in enumerate(rest):
        for tail in perfect_matchings(rest[:index] + rest[index + 1 :]):
            yield [(first, partner), *tail]


def score_cost(ranked: Sequence[SwissEntrant], games: Sequence[tuple[str, str]]) -> int:
    """Sum of squared score-group distances, the bye counting as one group below."""
    groups = sorted({e.points for e in ranked}, reverse=True)
    group = {e.player: groups.index(e.points) for e in ranked} | {"BYE": len(groups)}
    return sum((group[a] - group[b]) ** 2 for a, b in games)


def best_possible_cost(ranked: Sequence[SwissEntrant]) -> int:
    """Brute force over every pairing without rematches, respecting the bye rule."""
    players = [e.player for e in ranked] + (["BYE"] if len(ranked) % 2 else [])
    by_id = {e.player: e for e in ranked}
    fewest_byes = min(e.byes for e in ranked)

    def allowed(a: str, b: str) -> bool:
        if "BYE" in (a, b):
            return by_id[b if a == "BYE" else a].byes == fewest_byes
        return b not in by_id[a].opponents

    return min(
        score_cost(ranked, m)
        for m in perfect_matchings(players)
        if all(allowed(a, b) for a, b in m)
    )


@pytest.mark.parametrize("size", [8, 9])
@pytest.mark.parametrize("seed", range(6))
def test_simulated_swiss_never_rematches_and_pairs_by_score(size: int, seed: int) -> None:
    entrants = [f"p{i}" for i in range(1, size + 1)]
    league = Swiss(rounds=5)
    rounds, results = play_league(league, entrants, seed)
    assert 1 <= len(rounds) <= 5
    met = Counter(frozenset(p.players) for rnd in rounds for p in rnd if not p.is_bye)
    assert max(met.values()) == 1
    byes = Counter(p.first for rnd in rounds for p in rnd if p.is_bye)
    for index, rnd in enumerate(rounds):
        before = [r for r in results if r.pairing.round <= index]
        gone = {r.loser for r in before if r.forfeit is Forfeit.WITHDRAWAL}
        active = [p for p in entrants if p not in gone]
        assert sorted(p for pairing in rnd for p in pairing.players) == sorted(active)
        ranked = swiss_entrants(active, before, PointsScheme())
        games = [(p.first, p.second or "BYE") for p in rnd]
        assert score_cost(ranked, games) == best_possible_cost(ranked)
    # A second bye only once nobody still active lacks one.
    if byes and max(byes.values()) > 1:
        assert all(byes[p] >= 1 for p in entrants if p not in gone)
    # Seat balance counts games played out; forfeits were not played in any seat.
    seated = [r.pairing for r in results if not r.pairing.is_bye and r.forfeit is None]
    firsts, seconds = Counter(p.first for p in seated), Counter(p.second for p in seated)
    assert all(abs(firsts[p] - seconds[p]) <= 2 for p in entrants)
