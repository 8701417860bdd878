"""Issue 25 point 6, games that end: an unanswered league invitation lapses after the league's
``invitation_days`` (the sweep frees the seat once, however often it runs, and mails the player;
accepting afterwards is refused by mail and by API), and a league's ``max_game_days`` ends a
game the sweep finds at its cap: by the rule book's score where it counts one, else a draw,
announced in the game's mails beforehand and explained in the game-over mail."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from click.testing import CliRunner
from sqlalchemy import select

from service import players
from service.cli import main
from service.db import Database
from service.leagues import leagues
from service.leagues import tasks as league_tasks
from service.leagues.models import Entry, League
from service.models import Game, utcnow
from tests.service.conftest import Client, new_player
from tests.service.gateway_kit import latest, mails, reply, text_of
from tests.service.test_gateway_flow import send
from tests.service.test_leagues_api import games_of, league

ALICE = "alice@example.org"


def later(days: float) -> Any:
    return utcnow() + timedelta(days=days)


def entry_status(database: Database, league_id: int, address: str) -> str:
    with database.transaction() as session:
        player = players.by_address(session, address)
        assert player is not None
        query = select(Entry.status).where(
            Entry.league_id == league_id, Entry.player_id == player.id
        )
        return str(session.scalar(query))


def test_an_unanswered_invitation_lapses_once_and_a_late_accept_is_refused_by_mail(
    database: Database, admin: Client
) -> None:
    made = league(admin, invitation_days=3)
    assert made["settings"]["invitation_days"] == 3
    alice = new_player(admin, "Alice")
    admin.ok("POST", f"/leagues/{made['id']}/players", {"players": [alice.id]})
    invitation = latest(database, ALICE)
    assert "The invitation expires" in " ".join(text_of(invitation).split())

    league_tasks.sweep(database, later(2))  # not yet
    assert entry_status(database, made["id"], ALICE) == "invited"
    league_tasks.sweep(database, later(3.1))
    league_tasks.sweep(database, later(3.2))  # twice = once
    assert entry_status(database, made["id"], ALICE) == "expired"
    [told] = [m for m in mails(database, ALICE, "league_message") if "expired" in m.subject]
    assert "your seat is free again" in " ".join(told.body.split())

    row = send(database, reply(invitation, ALICE, "accept"))
    assert row.status == "rejected"
    assert "expired" in (row.result or "")
    [refusal] = mails(database, ALICE, "error_reply")
    assert "ask the league's director to invite you again" in " ".join(refusal.body.split())

    answer = alice.request("POST", f"/leagues/{made['id']}/accept")
    assert answer.status_code == 409
    assert answer.get_json()["error"]["code"] == "invitation_expired"
    german = alice.client.post(
        f"/api/v1/leagues/{made['id']}/accept",
        headers={"Authorization": f"Bearer {alice.token}", "Accept-Language": "de"},
    )
    assert "abgelaufen" in german.get_json()["error"]["message"]


def test_accepting_in_time_after_the_days_but_before_the_sweep_is_refused_too(
    database: Database, admin: Client
) -> None:
    made = league(admin, invitation_days=1)
    alice = new_player(admin, "Alice")
    admin.ok("POST", f"/leagues/{made['id']}/players", {"players": [alice.id]})
    with database.transaction() as session:
        entry = session.scalar(select(Entry).where(Entry.league_id == made["id"]))
        assert entry is not None
        entry.joined_at = later(-2)  # invited two days ago; no sweep has run since
    answer = alice.request("POST", f"/leagues/{made['id']}/accept")
    assert answer.status_code == 409, answer.get_json()


def capped(admin: Client, game: str, days: int) -> tuple[dict[str, Any], list[Client]]:
    made = league(admin, game=game, max_game_days=days)
    people = [new_player(admin, name) for name in ("Alice", "Bob")]
    admin.ok("POST", f"/leagues/{made['id']}/players", {"players": [p.id for p in people]})
    for person in people:
        person.ok("POST", f"/leagues/{made['id']}/accept")
    return admin.ok("POST", f"/leagues/{made['id']}/start")["league"], people


def game_of(database: Database, game_id: int) -> Game:
    with database.transaction() as session:
        game = session.get(Game, game_id)
        assert game is not None
        session.expunge(game)
        return game


def test_a_game_without_a_score_is_drawn_at_the_cap_announced_in_advance(
    database: Database, admin: Client
) -> None:
    data, people = capped(admin, "countdown", 10)
    [pairing] = games_of(data, 1)
    started = " ".join(mails(database, ALICE, "game_started")[0].body.split())
    assert "This league ends games after 10 days" in started
    assert "the game is decided as a draw" in started
    game = admin.ok("GET", f"/games/{pairing['game']}")["game"]
    first = next(p for p in people if p.id == game["seats"][0]["player"]["id"])
    first.ok("POST", f"/games/{pairing['game']}/moves", {"turn": 1, "text": "take 1"})
    other = "bob@example.org" if first.id == people[0].id else ALICE
    [turn] = mails(database, other, "your_turn") or mails(database, other, "opponent_moved")
    assert "This league ends games after 10 days" in " ".join(turn.body.split())

    league_tasks.sweep(database, later(9))
    assert game_of(database, pairing["game"]).status == "active"
    league_tasks.sweep(database, later(10.1))
    league_tasks.sweep(database, later(10.2))  # twice = once
    game = game_of(database, pairing["game"])
    assert game.status == "finished" and game.result is not None
    assert game.result["result"] == "1/2-1/2" and game.result["termination"] == "cap"
    [over] = mails(database, ALICE, "game_over")
    body = " ".join(over.body.split())
    assert "cap of 10 days on a game was reached" in body
    with database.transaction() as session:
        row = session.get(League, data["id"])
        assert row is not None and row.status == "finished"  # the league took the result


def test_a_scored_game_is_decided_by_its_score_at_the_cap(
    database: Database, admin: Client
) -> None:
    data, _people = capped(admin, "nelaxtam", 5)
    [pairing] = games_of(data, 1)
    started = " ".join(mails(database, ALICE, "game_started")[0].body.split())
    assert "decided by the score the rule book counts" in started
    league_tasks.sweep(database, later(5.5))
    game = game_of(database, pairing["game"])
    assert game.status == "finished" and game.result is not None
    assert game.result["termination"] == "cap"
    assert game.result["reason"].startswith("O 0 : X 0 at the league's time cap")


def test_bad_day_settings_are_explained(admin: Client) -> None:
    for field in ("invitation_days", "max_game_days"):
        answer = admin.request(
            "POST", "/leagues", json={"name": "x", "game": "countdown", field: 0}
        )
        assert answer.status_code == 400
        assert field in answer.get_json()["error"]["message"]
    assert leagues.INVITATION_DAYS == 14


def test_a_director_sets_the_days_on_the_audit_log(admin: Client, alice: Client) -> None:
    made = league(admin)
    assert made["settings"]["invitation_days"] == 14 and "max_game_days" not in made["settings"]
    path = f"/leagues/{made['id']}/days"
    data = {"invitation_days": 7, "max_game_days": 30, "reason": "a short season"}
    assert alice.request("POST", path, json=data).status_code == 403
    changed = admin.ok("POST", path, data)["league"]
    assert changed["settings"]["invitation_days"] == 7
    assert changed["settings"]["max_game_days"] == 30
    entries = admin.ok("GET", f"/leagues/{made['id']}/audit")["audit"]
    assert entries[-1]["action"] == "set_days"


def test_a_director_sets_both_limits_from_the_command_line(
    database: Database, admin: Client, cli_env: dict[str, str]
) -> None:
    args = ["league", "create", "Short Cup", "--game", "countdown"]
    args += ["--invitation-days", "4", "--max-game-days", "60"]
    result = CliRunner().invoke(main, args, env=cli_env)
    assert result.exit_code == 0, result.output
    with database.transaction() as session:
        made = session.get_one(League, int(result.output))
        assert (made.settings["invitation_days"], made.settings["max_game_days"]) == (4, 60)
