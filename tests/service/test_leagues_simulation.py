"""Whole DB-backed leagues of 8 and 9 players, driven through the service layer with tasks
run inline: random wins, draws, losses on time (a real deadline passing) and withdrawals.

Each game is a two-player Countdown (a toy game in ``tests/service/toys.py``). The checks are
the format's promises, seen from the database: round robin meets every pair once whoever
withdrew, Swiss never repeats a game and never pairs a withdrawn player again, every round's
standings are mailed once, and the league finishes."""

from __future__ import annotations

import random
from collections import Counter
from datetime import timedelta
from itertools import combinations

import pytest
from sqlalchemy import select

from service import games, players
from service.db import Database
from service.leagues import director, leagues, ratings
from service.leagues.models import Entry, League, Pairing
from service.models import Game, Outbox, Player

ROUND_LIMIT = 40


def make_league(database: Database, size: int, form: str, **extra: object) -> int:
    with database.transaction() as session:
        director_, _ = players.create(
            session, None, {"name": "Tess", "emails": ["td@example.org"], "roles": ["td"]}
        )
        data = {
            "name": f"{form} of {size}",
            "game": extra.pop("game", "countdown"),
            "format": form,
            "join_code": "letmein",
            "time_control": {"days": 2},
            **extra,
        }
        league = leagues.create(session, director_, data)
        for number in range(1, size + 1):
            player, _ = players.create(
                session, None, {"name": f"P{number}", "emails": [f"p{number}@example.org"]}
            )
            leagues.join(session, league.id, player, "letmein")
        league_id = league.id
    with database.transaction() as session:
        leagues.start(session, league_id, session.get_one(Player, director_.id))
    return league_id


def play_one(database: Database, game_id: int, rng: random.Random, league_id: int) -> None:
    """Finish one game at random; a few players withdraw instead."""
    roll = rng.random()
    with database.transaction() as session:
        game = session.get_one(Game, game_id)
        if game.status != "active":
            return
        first, second = (seat.player for seat in game.seats)
        if roll < 0.05:
            td = session.scalars(select(Player).where(Player.name == "Tess")).one()
            director.withdraw(session, league_id, td, {"player": first.id, "reason": "moved away"})
        elif roll < 0.15:
            turn = games.current_turn(session, game)
            assert turn is not None and turn.deadline is not None
            games.resolve_turn(session, game_id, game.turn, turn.deadline + timedelta(seconds=1))
        elif roll < 0.35:
            games.draw(session, game_id, first, "offer")
            games.draw(session, game_id, second, "accept")
        else:
            games.resign(session, game_id, rng.choice([first, second]))


def playing(database: Database, league_id: int) -> list[int]:
    with database.transaction() as session:
        query = select(Pairing.game_id).where(
            Pairing.league_id == league_id, Pairing.status == "playing"
        )
        return sorted(gid for gid in session.scalars(query) if gid is not None)


def run_to_the_end(database: Database, league_id: int, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(ROUND_LIMIT):
        ids = playing(database, league_id)
        if not ids:
            break
        for game_id in ids:
            play_one(database, game_id, rng, league_id)
    with database.transaction() as session:
        assert session.get_one(League, league_id).status == "finished"


def rows_of(database: Database, league_id: int) -> tuple[League, list[Pairing], dict[int, Entry]]:
    with database.transaction() as session:
        league = session.get_one(League, league_id)
        rows = session.scalars(select(Pairing).where(Pairing.league_id == league_id)).all()
        entries = {e.id: e for e in league.entries}
        for entry in entries.values():
            _ = entry.player.name
        return league, list(rows), entries


def standings_mails(database: Database, league_id: int) -> Counter[str]:
    with database.transaction() as session:
        keys = session.scalars(
            select(Outbox.key).where(Outbox.key.like(f"league:{league_id}:%"))
        ).all()
    return Counter(key.split(":")[2] for key in keys if key)


@pytest.mark.parametrize("size", [8, 9])
@pytest.mark.parametrize("seed", [1, 2])
def test_a_round_robin_league_meets_every_pair_once(
    database: Database, size: int, seed: int
) -> None:
    league_id = make_league(database, size, "round_robin")
    run_to_the_end(database, league_id, seed)
    league, rows, entries = rows_of(database, league_id)
    rounds = size - 1 + size % 2
    assert league.round == rounds
    games_ = [r for r in rows if len(r.entries) == 2]
    met = Counter(frozenset(r.entries) for r in games_)
    assert set(met) == {frozenset(p) for p in combinations(entries, 2)}
    assert set(met.values()) == {1}
    assert all(r.status == "done" for r in rows)
    assert sum(len(r.entries) == 1 for r in rows) == (rounds if size % 2 else 0)
    withdrawn = {e.id for e in entries.values() if e.status == "withdrawn"}
    for row in games_:
        if row.game_id is None:  # settled at once: a withdrawn player's remaining game
            assert set(row.entries) & withdrawn and "withdrawal" in (row.forfeits or [])
    mails = standings_mails(database, league_id)
    assert {f"round{n}" for n in range(1, rounds + 1)} | {"final"} == set(mails)
    assert mails["final"] == size


@pytest.mark.parametrize("size", [8, 9])
@pytest.mark.parametrize("seed", [1, 2])
def test_a_swiss_league_never_repeats_a_game_nor_pairs_a_withdrawn_player(
    database: Database, size: int, seed: int
) -> None:
    league_id = make_league(database, size, "swiss", rounds=5)
    run_to_the_end(database, league_id, seed)
    league, rows, _entries = rows_of(database, league_id)
    assert league.round <= 5
    games_ = [r for r in rows if len(r.entries) == 2]
    met = Counter(frozenset(r.entries) for r in games_)
    assert set(met.values()) == {1}
    gone_after: dict[int, int] = {}
    for row in sorted(games_, key=lambda r: r.round):
        if "withdrawal" in (row.forfeits or []):
            loser = row.entries[row.forfeits.index("withdrawal")]
            gone_after.setdefault(loser, row.round)
    for row in rows:
        for entry in row.entries:
            assert row.round <= gone_after.get(entry, ROUND_LIMIT)
    for number in range(1, league.round + 1):
        seated = [e for r in rows if r.round == number for e in r.entries]
        assert len(seated) == len(set(seated))
    assert standings_mails(database, league_id)["final"] >= size - len(gone_after) - 1


def test_standings_add_up_and_rank_by_points(database: Database) -> None:
    league_id = make_league(database, 6, "round_robin", scoring={"win": 3, "draw": 1})
    run_to_the_end(database, league_id, 7)
    with database.transaction() as session:
        table = leagues.standings_json(session, session.get_one(League, league_id))
    points = [row["points"] for row in table["rows"]]
    assert points == sorted(points, reverse=True)
    decisive = sum(row["wins"] for row in table["rows"])
    draws = sum(row["draws"] for row in table["rows"]) // 2
    assert sum(points) == 3 * decisive + 2 * draws
    assert all(len(row["crosstable"]) == 6 for row in table["rows"])


def test_multiplayer_tables_seat_four_a_game_and_rate_with_openskill(database: Database) -> None:
    pytest.importorskip("engine.dice", reason="Elemento rolls dice")
    league_id = make_league(database, 8, "tables", game="elemento", rounds=2)
    rng = random.Random(3)
    for _ in range(ROUND_LIMIT):
        ids = playing(database, league_id)
        if not ids:
            break
        for game_id in ids:
            with database.transaction() as session:
                game = session.get_one(Game, game_id)
                assert game.players == 4
                games.resign(session, game_id, rng.choice(game.seats).player)
    league, rows, entries = rows_of(database, league_id)
    assert league.status == "finished" and league.round == 2
    assert all(len(r.entries) == 4 for r in rows)
    with database.transaction() as session:
        table = leagues.standings_json(session, session.get_one(League, league_id))
        rated = ratings.of_player(session, entries[rows[0].entries[0]].player_id)
    # each table: the three left tie first (1 for the resigner + ½ + ½ each), the resigner 0
    assert sum(row["points"] for row in table["rows"]) == 4 * (3 * 2)
    assert rated["ratings"][0]["system"] == "openskill"
    assert len(rated["history"]) == 2
