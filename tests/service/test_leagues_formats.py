"""Knockout and double round robin leagues on the database, driven through the service layer
with tasks run inline (like ``test_leagues_simulation.py``): a knockout ends with one winner
and settles a drawn game by the director's ``draw_rule``; a double round robin meets every
pair twice, once with each player in the first seat."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import combinations

import pytest

from service import games
from service.db import Database
from service.leagues import leagues
from service.leagues import standings as table
from service.leagues.models import League, Pairing
from service.models import Game
from tests.service.test_leagues_simulation import (
    ROUND_LIMIT,
    make_league,
    playing,
    rows_of,
    run_to_the_end,
)


def draw(database: Database, game_id: int) -> None:
    with database.transaction() as session:
        game = session.get_one(Game, game_id)
        first, second = (seat.player for seat in game.seats)
        games.draw(session, game_id, first, "offer")
        games.draw(session, game_id, second, "accept")


def first_seat_resigns(database: Database, game_id: int) -> None:
    with database.transaction() as session:
        game = session.get_one(Game, game_id)
        games.resign(session, game_id, game.seats[0].player)


def play_knockout(database: Database, league_id: int, decide: Callable[[int, int], bool]) -> None:
    """Play every game: ``decide(game id, games the pair played before)`` True means the
    first seat resigns, False a draw."""
    for _ in range(ROUND_LIMIT):
        ids = playing(database, league_id)
        if not ids:
            break
        _, rows, _ = rows_of(database, league_id)
        for game_id in ids:
            row = next(r for r in rows if r.game_id == game_id)
            before = sum(set(r.entries) == set(row.entries) and r.game_id != game_id for r in rows)
            if decide(game_id, before):
                first_seat_resigns(database, game_id)
            else:
                draw(database, game_id)
    with database.transaction() as session:
        assert session.get_one(League, league_id).status == "finished"


def champion(database: Database, league_id: int) -> int:
    """The entry the pure knockout names the winner, cross-checked against the final."""
    league, rows, _ = rows_of(database, league_id)
    with database.transaction() as session:
        loaded = session.get_one(League, league_id)
        entrants = [table.entrant(e.id) for e in table.seeded_entries(loaded)]
        winner = table.pairing_format(loaded).winner(
            entrants, table.results(loaded, table.pairings_of(session, loaded))
        )
    assert winner is not None
    last = [r for r in rows if r.round == league.round]
    assert len(last) == 1 and int(winner) in last[0].entries  # one final, the winner in it
    return int(winner)


def eliminated(rows: list[Pairing], entry: int) -> bool:
    """Whether ``entry`` lost its last match's deciding game outright."""
    played = [r for r in rows if entry in r.entries and len(r.entries) == 2]
    last = max(played, key=lambda r: r.round) if played else None
    if last is None or last.places is None or last.places[0] == last.places[1]:
        return False
    return last.places[last.entries.index(entry)] == 2


@pytest.mark.parametrize("size", [6, 8])
def test_a_knockout_ends_with_one_winner_and_replays_a_draw_with_seats_swapped(
    database: Database, size: int
) -> None:
    """draw_rule replay: each match's first game is drawn, the replay decides it."""
    league_id = make_league(database, size, "knockout", draw_rule="replay")
    play_knockout(database, league_id, lambda _game, before: before > 0)
    league, rows, entries = rows_of(database, league_id)
    winner = champion(database, league_id)
    matches = Counter(frozenset(r.entries) for r in rows if len(r.entries) == 2)
    assert set(matches.values()) == {2}  # a draw, then the replay
    for pair in matches:
        first, replay = sorted(
            (r for r in rows if frozenset(r.entries) == pair), key=lambda r: r.round
        )
        assert first.places == [1, 1] and replay.entries == first.entries[::-1]
        assert replay.places == [2, 1]  # the first seat of the replay resigned
    assert len(matches) == size - 1  # each match puts one player out; byes are no games
    still_in = [e for e in entries if not eliminated(rows, e)]
    assert still_in == [winner]
    assert league.round == 2 * 3  # three stages of a game and its replay


def test_a_knockout_with_higher_seed_sends_the_higher_seed_through_a_draw(
    database: Database,
) -> None:
    league_id = make_league(database, 8, "knockout", draw_rule="higher_seed")
    play_knockout(database, league_id, lambda _game, _before: False)  # every game drawn
    league, rows, entries = rows_of(database, league_id)
    assert league.round == 3 and len(rows) == 4 + 2 + 1  # no replays
    winner = champion(database, league_id)
    assert entries[winner].seed == 1
    assert all(row.places == [1, 1] for row in rows)
    stages = [
        {frozenset(entries[e].seed for e in r.entries) for r in rows if r.round == n}
        for n in (1, 2, 3)
    ]
    assert stages == [
        {frozenset({1, 8}), frozenset({4, 5}), frozenset({2, 7}), frozenset({3, 6})},
        {frozenset({1, 4}), frozenset({2, 3})},
        {frozenset({1, 2})},
    ]


def test_a_knockout_with_second_seat_sends_the_second_seat_through_a_draw(
    database: Database,
) -> None:
    league_id = make_league(database, 4, "knockout", draw_rule="second_seat")
    play_knockout(database, league_id, lambda _game, _before: False)
    league, rows, _ = rows_of(database, league_id)
    assert league.round == 2 and len(rows) == 3
    first_round = [r for r in rows if r.round == 1]
    [final] = [r for r in rows if r.round == 2]
    assert set(final.entries) == {r.entries[1] for r in first_round}
    assert champion(database, league_id) == final.entries[1]


def test_a_knockout_replay_falls_back_to_the_higher_seed_after_two_replays(
    database: Database,
) -> None:
    league_id = make_league(database, 2, "knockout", draw_rule="replay")
    play_knockout(database, league_id, lambda _game, _before: False)
    _, rows, entries = rows_of(database, league_id)
    assert len(rows) == 3 and [r.entries for r in rows][1] == rows[0].entries[::-1]
    assert entries[champion(database, league_id)].seed == 1


@pytest.mark.parametrize(("size", "seed"), [(4, 1), (5, 2), (6, 3)])
def test_a_double_round_robin_meets_every_pair_twice_with_seats_swapped(
    database: Database, size: int, seed: int
) -> None:
    league_id = make_league(database, size, "double_round_robin")
    run_to_the_end(database, league_id, seed)
    league, rows, entries = rows_of(database, league_id)
    rounds = 2 * (size - 1 + size % 2)
    assert league.round == rounds and all(r.status == "done" for r in rows)
    seatings = Counter(tuple(r.entries) for r in rows if len(r.entries) == 2)
    for a, b in combinations(entries, 2):
        assert seatings[(a, b)] == 1 and seatings[(b, a)] == 1
    assert sum(seatings.values()) == size * (size - 1)
    with database.transaction() as session:  # the games seat the players as paired
        for row in rows:
            if row.game_id is None:
                continue
            game = session.get_one(Game, row.game_id)
            assert [s.player_id for s in game.seats] == [entries[e].player_id for e in row.entries]
        standings = leagues.standings_json(session, session.get_one(League, league_id))
    played = {row["entry"]: row["played"] for row in standings["rows"]}
    assert all(count == 2 * (size - 1) for count in played.values())
