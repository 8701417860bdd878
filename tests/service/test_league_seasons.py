"""The next season of two finished divisions (issue 7), through the API: the top of the
lower division goes up, the bottom of the upper one goes down, each new league keeps its
division's settings and invites its players by mail, the audit log says who and why, and
the director is refused clearly when the request cannot make sense."""

from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner
from flask import Flask
from sqlalchemy import select

from service import games, players
from service.cli import main
from service.db import Database
from service.leagues import leagues, seasons
from service.leagues.models import League, Pairing
from service.models import Game, Outbox, Player
from tests.service.conftest import Client

SETTINGS: dict[str, Any] = {
    "game": "countdown",
    "format": "round_robin",
    "time_control": {"days": 2, "forfeit_after": 1},
    "scoring": {"win": 3, "draw": 1, "loss": 0, "bye": 3},
    "tiebreaks": ["wins", "head_to_head"],
    "withdrawal": "expunge",
    "join_code": "season",
}


@pytest.fixture
def td(app: Flask, database: Database) -> Client:
    with database.transaction() as session:
        data = {"name": "Tess", "emails": ["td@example.org"], "roles": ["td"]}
        player, token = players.create(session, None, data)
        info = players.to_json(player, private=True)
    return Client(app.test_client(), token, info)


def number(player: Player) -> int:
    return int(player.name[1:])


def finished_division(database: Database, td: Client, label: str, low_wins: bool) -> int:
    """A round robin of four, ``<label>1``..``<label>4``; in every game the lower-numbered
    player wins if ``low_wins``, else the higher-numbered: a clean 9-6-3-0 table."""
    league_id: int = td.ok("POST", "/leagues", {"name": label, **SETTINGS}, status=201)["league"][
        "id"
    ]
    with database.transaction() as session:
        for n in range(1, 5):
            data = {"name": f"{label}{n}", "emails": [f"{label.lower()}{n}@example.org"]}
            player, _ = players.create(session, None, data)
            leagues.join(session, league_id, player, "season")
    td.ok("POST", f"/leagues/{league_id}/start")
    for _ in range(10):
        with database.transaction() as session:
            query = select(Pairing.game_id).where(
                Pairing.league_id == league_id, Pairing.status == "playing"
            )
            ids = [gid for gid in session.scalars(query) if gid is not None]
        if not ids:
            break
        for game_id in ids:
            with database.transaction() as session:
                seated = [seat.player for seat in session.get_one(Game, game_id).seats]
                loser = max(seated, key=number) if low_wins else min(seated, key=number)
                games.resign(session, game_id, loser)
    with database.transaction() as session:
        assert session.get_one(League, league_id).status == "finished"
    return league_id


def names_in_order(td: Client, league_id: int) -> list[str]:
    rows = td.ok("GET", f"/leagues/{league_id}/standings")["standings"]["rows"]
    return [row["player"]["name"] for row in rows]


def invitations(database: Database) -> list[str]:
    with database.transaction() as session:
        query = select(Outbox.to_address).where(Outbox.kind == "league_invitation")
        return sorted(session.scalars(query))


def test_the_next_season_moves_one_up_and_one_down_and_keeps_the_settings(
    database: Database, td: Client
) -> None:
    upper = finished_division(database, td, "A", low_wins=True)
    lower = finished_division(database, td, "B", low_wins=False)
    assert names_in_order(td, upper) == ["A1", "A2", "A3", "A4"]
    assert names_in_order(td, lower) == ["B4", "B3", "B2", "B1"]  # standings, not entry order
    assert invitations(database) == []  # everyone joined by code

    body = {"divisions": [upper, lower], "promote": 1, "relegate": 1, "reason": "autumn"}
    created = td.ok("POST", "/leagues/next-season", body, status=201)["leagues"]

    top, bottom = created
    assert [p["name"] for p in top["players"]] == ["A1", "A2", "A3", "B4"]
    assert [p["name"] for p in bottom["players"]] == ["A4", "B3", "B2", "B1"]
    assert {p["status"] for p in top["players"] + bottom["players"]} == {"invited"}
    assert (top["name"], bottom["name"]) == ("A → season 2", "B → season 2")
    old = td.ok("GET", f"/leagues/{upper}")["league"]
    for new in created:
        assert new["status"] == "open" and new["round"] == 0
        for field in ("game", "options", "format", "time_control", "scoring", "tiebreaks"):
            assert new[field] == old[field], field
        assert new["settings"] == old["settings"]
        assert new["join_code"] is None  # invited players only
    everyone = [f"{d}{n}@example.org" for d in "ab" for n in range(1, 5)]
    assert invitations(database) == sorted(everyone)  # one invitation mail each

    log = td.ok("GET", f"/leagues/{top['id']}/audit")["audit"]
    assert [(e["action"], e["actor"], e["reason"]) for e in log] == [
        ("next_season", "Tess", "autumn")
    ]
    status, text = error(td, body)  # a finished season is continued once
    assert status == 409 and f"league {upper} (A) already has its next season: league " in text


def test_names_given_by_the_director_and_wider_moves(database: Database, td: Client) -> None:
    upper = finished_division(database, td, "A", low_wins=True)
    lower = finished_division(database, td, "B", low_wins=True)
    body = {"divisions": [upper, lower], "promote": 2, "relegate": 2, "names": ["Gold", "Iron"]}
    top, bottom = td.ok("POST", "/leagues/next-season", body, status=201)["leagues"]
    assert (top["name"], bottom["name"]) == ("Gold", "Iron")
    assert [p["name"] for p in top["players"]] == ["A1", "A2", "B1", "B2"]
    assert [p["name"] for p in bottom["players"]] == ["A3", "A4", "B3", "B4"]


def test_season_names_count_on() -> None:
    assert seasons._next_name("Premier") == "Premier → season 2"
    assert seasons._next_name("Premier → season 2") == "Premier → season 3"
    assert seasons._next_name("Premier season 9") == "Premier → season 10"
    assert len(seasons._next_name("x" * 80)) == 80


def error(client: Client, body: Any) -> tuple[int, str]:
    response = client.request("POST", "/leagues/next-season", body)
    message: str = response.get_json()["error"]["message"]
    return response.status_code, message


def test_refusals_say_why(database: Database, td: Client, alice: Client) -> None:
    done = finished_division(database, td, "A", low_wins=True)
    still_open = td.ok("POST", "/leagues", {"name": "C", **SETTINGS}, status=201)["league"]["id"]

    status, text = error(td, {"divisions": [done, still_open]})
    assert status == 409 and f"league {still_open} (C) is open, not finished" in text
    status, text = error(td, {"divisions": []})
    assert status == 400 and "divisions must hold at least 1 item" in text
    status, text = error(td, {"divisions": [done, done]})
    assert status == 400 and f"divisions lists {done} twice" in text
    status, text = error(td, {"divisions": [done], "names": ["X", "Y"]})
    assert status == 422 and "one per division" in text
    status, text = error(td, {"divisions": [done, done + 1000]})
    assert status == 404 and f"no league {done + 1000}" in text
    status, text = error(alice, {"divisions": [done]})
    assert status == 403 and "tournament directors" in text
    status, text = error(td, {"divisions": [done], "promote": -1})
    assert status == 400 and "promote must be a whole number" in text
    with database.transaction() as session:
        assert session.scalar(select(League.id).where(League.name.like("%season%"))) is None


def test_the_command_line_makes_the_next_season(
    database: Database, td: Client, cli_env: dict[str, str]
) -> None:
    upper = finished_division(database, td, "A", low_wins=True)
    lower = finished_division(database, td, "B", low_wins=True)
    args = ["league", "--by", "td@example.org", "next-season", str(upper), str(lower)]
    result = CliRunner().invoke(main, [*args, "--promote", "2", "--relegate", "1"], env=cli_env)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0].endswith("A → season 2  (5 invited)")
    assert result.output.splitlines()[1].endswith("B → season 2  (3 invited)")
    again = CliRunner().invoke(main, [*args, "--reason", "twice"], env=cli_env)
    assert again.exit_code == 2 and "already has its next season" in again.output
