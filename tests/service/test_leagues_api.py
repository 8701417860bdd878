"""Leagues over the HTTP API with tasks run inline: creating, inviting, accepting, rounds,
standings (JSON, CSV, the public page), ratings, and every director's tool with its audit."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select

from service.db import Database
from service.leagues.models import GamePause
from service.models import Outbox, Turn
from tests.service.conftest import Client, new_player

HOSTILE = '<script>alert(1)</script> & "Eve"'


def league(admin: Client, **extra: Any) -> dict[str, Any]:
    data = {"name": "Spring <Cup>", "game": "countdown", "time_control": {"days": 2}, **extra}
    return admin.ok("POST", "/leagues", data, status=201)["league"]


def four(admin: Client) -> list[Client]:
    return [new_player(admin, name) for name in ("Alice", "Bob", "Cyd", "Dee")]


def running(admin: Client, **extra: Any) -> tuple[dict[str, Any], list[Client]]:
    made = league(admin, **extra)
    people = four(admin)
    admin.ok("POST", f"/leagues/{made['id']}/players", {"players": [p.id for p in people]})
    for person in people:
        person.ok("POST", f"/leagues/{made['id']}/accept")
    return admin.ok("POST", f"/leagues/{made['id']}/start")["league"], people


def games_of(data: dict[str, Any], round_no: int) -> list[dict[str, Any]]:
    return data["rounds"][round_no - 1]["games"]


def outbox(database: Database, kind: str) -> list[Outbox]:
    with database.transaction() as session:
        return list(session.scalars(select(Outbox).where(Outbox.kind == kind)))


def test_only_directors_create_leagues_and_bad_settings_are_explained(
    admin: Client, alice: Client
) -> None:
    refused = alice.request("POST", "/leagues", json={"name": "x", "game": "countdown"})
    assert refused.status_code == 403
    for bad, words in (
        ({"format": "ladder"}, "format must be one of"),
        ({"format": "swiss"}, "rounds must be a whole number"),
        ({"format": "tables"}, "format must be one of round_robin, double_round_robin, swiss,"),
        ({"scoring": {"win": "three"}}, "scoring.win must be a number"),
        ({"tiebreaks": ["coin"]}, "tiebreaks[0] must be one of head_to_head, "),
        ({"starts_at": "tomorrow"}, "starts_at must be an ISO 8601 date and time with a time"),
    ):
        data = {"name": "x", "game": "countdown", **bad}
        answer = admin.request("POST", "/leagues", json=data)
        assert answer.status_code == 400, answer.get_json()
        assert words in answer.get_json()["error"]["message"]


def test_invited_by_email_a_new_address_becomes_a_player_and_gets_a_mail(
    database: Database, admin: Client
) -> None:
    made = league(admin)
    invited = admin.ok(
        "POST",
        f"/leagues/{made['id']}/players",
        {"players": [{"email": "New.Comer@Example.org", "name": HOSTILE}]},
    )["invited"]
    assert invited[0]["name"] == HOSTILE
    mails = outbox(database, "league_invitation")
    assert [m.to_address for m in mails] == ["new.comer@example.org"]
    assert "Spring <Cup>" in mails[0].subject


def test_a_join_code_lets_players_in_and_a_wrong_one_does_not(admin: Client) -> None:
    made = league(admin, join_code="open sesame")
    assert made["join_code"] == "open sesame"
    alice, bob = new_player(admin, "Alice"), new_player(admin, "Bob")
    assert (
        alice.request("POST", f"/leagues/{made['id']}/join", json={"code": "x"}).status_code == 403
    )
    alice.ok("POST", f"/leagues/{made['id']}/join", {"code": "open sesame"})
    public = bob.ok("GET", f"/leagues/{made['id']}")["league"]
    assert public["join_code"] is None and public["open_to_join"]
    assert [p["status"] for p in public["players"]] == ["active"]


def test_starting_pairs_round_one_and_each_game_mails_its_players(
    database: Database, admin: Client
) -> None:
    data, people = running(admin)
    assert data["status"] == "running" and data["round"] == 1
    first = games_of(data, 1)
    assert len(first) == 2 and all(g["status"] == "playing" for g in first)
    game = people[0].ok("GET", f"/games/{first[0]['game']}")["game"]
    assert game["status"] == "active"
    assert {m.kind for m in outbox(database, "game_started")} == {"game_started"}


def test_a_round_ends_the_next_starts_and_standings_are_mailed(
    database: Database, admin: Client
) -> None:
    data, people = running(admin)
    by_id = {p.id: p for p in people}
    for played in games_of(data, 1):
        game = admin.ok("GET", f"/games/{played['game']}")["game"]
        loser = by_id[game["seats"][1]["player"]["id"]]
        loser.ok("POST", f"/games/{played['game']}/resign")
    after = admin.ok("GET", f"/leagues/{data['id']}")["league"]
    assert after["round"] == 2
    assert len(outbox(database, "league_standings")) == 4
    table = admin.ok("GET", f"/leagues/{data['id']}/standings")["standings"]
    assert [row["points"] for row in table["rows"]] == [1, 1, 0, 0]
    assert table["tiebreaks"] == ["head_to_head", "sonneborn_berger", "wins"]
    assert table["rows"][0]["rating"]["rating"] > 1500
    lines = list(
        csv.reader(
            io.StringIO(admin.get(f"/leagues/{data['id']}/standings.csv").get_data(as_text=True))
        )
    )
    assert lines[0][:3] == ["rank", "player", "points"] and len(lines) == 5


def test_the_public_page_shows_standings_and_escapes_names(
    admin: Client, anonymous: Client
) -> None:
    data, people = running(admin)
    people[0].ok("PATCH", "/players/me", {"name": HOSTILE})
    page = anonymous.client.get(f"/leagues/{data['id']}")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert "<script>" not in html and "&lt;script&gt;" in html and "Spring &lt;Cup&gt;" in html
    assert "Crosstable" in html and "src=" not in html and "http" not in html
    assert anonymous.client.get("/leagues/999").status_code == 404


def test_ratings_follow_each_game_with_a_history(admin: Client, anonymous: Client) -> None:
    data, people = running(admin)
    played = games_of(data, 1)[0]
    game = admin.ok("GET", f"/games/{played['game']}")["game"]
    winner, loser = (seat["player"]["id"] for seat in game["seats"])
    by_id = {p.id: p for p in people}
    by_id[loser].ok("POST", f"/games/{played['game']}/resign")
    rated = anonymous.ok("GET", f"/players/{winner}/ratings")
    assert rated["ratings"][0]["key"] == "countdown"
    assert rated["ratings"][0]["system"] == "glicko2" and rated["ratings"][0]["rating"] > 1500
    assert rated["history"][0]["game"] == played["game"]
    assert anonymous.ok("GET", f"/players/{loser}/ratings")["ratings"][0]["rating"] < 1500


def audit_actions(admin: Client, league_id: int) -> list[str]:
    return [entry["action"] for entry in admin.ok("GET", f"/leagues/{league_id}/audit")["audit"]]


def test_directors_pause_resume_and_extend_a_game_on_the_record(
    database: Database, admin: Client
) -> None:
    data, people = running(admin)
    game_id = games_of(data, 1)[0]["game"]
    path = f"/games/{game_id}"
    assert people[0].request("POST", path + "/pause", json={"reason": "x"}).status_code == 403
    assert admin.request("POST", path + "/pause", json={}).status_code == 400
    admin.ok("POST", path + "/pause", {"reason": "player in hospital"})
    assert admin.ok("GET", path)["game"]["deadline"] is None
    admin.ok("POST", path + "/extend", {"days": 3, "reason": "long stay"})
    admin.ok("POST", path + "/resume", {"reason": "back home"})
    deadline = datetime.fromisoformat(admin.ok("GET", path)["game"]["deadline"])
    assert deadline > datetime.now(UTC) + timedelta(days=4.9)
    admin.ok("POST", path + "/extend", {"days": 1, "reason": "post strike"})
    later = datetime.fromisoformat(admin.ok("GET", path)["game"]["deadline"])
    assert later - deadline == timedelta(days=1)
    assert audit_actions(admin, data["id"]) == [
        "pause_game", "extend_deadline", "resume_game", "extend_deadline"
    ]  # fmt: skip
    audit = admin.ok("GET", f"/leagues/{data['id']}/audit")["audit"]
    assert audit[0]["actor"] == "Ada Admin" and audit[0]["reason"] == "player in hospital"
    with database.transaction() as session:
        assert session.scalars(select(GamePause)).one().resumed_at is not None


def test_pausing_the_league_stops_every_clock_and_the_next_round(admin: Client) -> None:
    data, people = running(admin)
    admin.ok("POST", f"/leagues/{data['id']}/pause", {"reason": "holidays"})
    for played in games_of(data, 1):
        assert admin.ok("GET", f"/games/{played['game']}")["game"]["deadline"] is None
        game = admin.ok("GET", f"/games/{played['game']}")["game"]
        loser = next(p for p in people if p.id == game["seats"][0]["player"]["id"])
        loser.ok("POST", f"/games/{played['game']}/resign")
    assert admin.ok("GET", f"/leagues/{data['id']}")["league"]["round"] == 1
    admin.ok("POST", f"/leagues/{data['id']}/resume", {"reason": "back"})
    assert admin.ok("GET", f"/leagues/{data['id']}")["league"]["round"] == 2


def test_a_result_is_set_corrected_and_voided_with_mails_and_ratings(
    database: Database, admin: Client
) -> None:
    data, _people = running(admin)
    game_id = games_of(data, 1)[0]["game"]
    path = f"/games/{game_id}"
    bad = admin.request("POST", path + "/result", json={"result": "2-0", "reason": "x"})
    assert bad.status_code == 422 and "1-0, 0-1, 1/2-1/2" in bad.get_json()["error"]["message"]
    over = admin.ok("POST", path + "/result", {"result": "1-0", "reason": "agreed by phone"})
    assert over["game"]["result"]["result"] == "1-0"
    assert over["game"]["result"]["termination"] == "adjudication"  # issue 23
    admin.ok("POST", path + "/result", {"result": "0-1", "reason": "scoresheet error"})
    record = admin.ok("GET", path + "/record")
    assert record["result"]["result"] == "0-1"
    assert record["result"]["termination"] == "adjudication"
    assert any("corrected" in entry["text"] for entry in record["log"])
    first = record["seats"][0]["player_id"]
    assert admin.ok("GET", f"/players/{first}/ratings")["ratings"][0]["rating"] < 1500
    table = admin.ok("GET", f"/leagues/{data['id']}/standings")["standings"]
    by_player = {row["player"]["id"]: row for row in table["rows"]}
    assert by_player[first]["points"] == 0
    admin.ok("POST", path + "/void", {"reason": "played by the wrong people"})
    assert admin.ok("GET", f"/players/{first}/ratings")["ratings"] == []
    table = admin.ok("GET", f"/leagues/{data['id']}/standings")["standings"]
    assert {row["player"]["id"]: row["played"] for row in table["rows"]}[first] == 0
    assert len(outbox(database, "league_result")) == 6
    assert audit_actions(admin, data["id"]) == ["set_result", "set_result", "void_game"]


def test_a_substitute_takes_a_seat_and_the_result_counts_for_the_entry(
    admin: Client,
) -> None:
    data, _people = running(admin)
    game_id = games_of(data, 1)[0]["game"]
    game = admin.ok("GET", f"/games/{game_id}")["game"]
    leaving = game["seats"][0]["player"]["id"]
    sub = new_player(admin, "Sub")
    admin.ok(
        "POST", f"/games/{game_id}/replace", {"player": leaving, "by": sub.id, "reason": "ill"}
    )
    sub.ok("POST", f"/games/{game_id}/resign")
    result = admin.ok("GET", f"/games/{game_id}")["game"]["result"]
    assert result["termination"] == "resignation"  # issue 23: read from the reason
    table = admin.ok("GET", f"/leagues/{data['id']}/standings")["standings"]
    assert {row["player"]["id"]: row["losses"] for row in table["rows"]}[leaving] == 1


def test_withdrawing_forfeits_running_games_and_messages_reach_everyone(
    database: Database, admin: Client
) -> None:
    data, people = running(admin)
    gone = people[0]
    admin.ok("POST", f"/leagues/{data['id']}/withdraw", {"player": gone.id, "reason": "moved"})
    table = admin.ok("GET", f"/leagues/{data['id']}/standings")["standings"]
    row = next(r for r in table["rows"] if r["player"]["id"] == gone.id)
    assert row["withdrawn"] and row["forfeit_losses"] == 1
    sent = admin.ok(
        "POST", f"/leagues/{data['id']}/message", {"subject": "Hi", "text": "Round 2 soon"}
    )
    assert sent["sent"] == 4
    assert audit_actions(admin, data["id"]) == ["withdraw", "message"]


def test_processing_a_sealed_turn_now_uses_default_orders(
    database: Database, admin: Client
) -> None:
    made = league(admin, game="duel")
    people = four(admin)
    admin.ok("POST", f"/leagues/{made['id']}/players", {"players": [p.id for p in people]})
    for person in people:
        person.ok("POST", f"/leagues/{made['id']}/accept")
    data = admin.ok("POST", f"/leagues/{made['id']}/start")["league"]
    game_id = games_of(data, 1)[0]["game"]
    admin.ok("POST", f"/games/{game_id}/process", {"reason": "both asked for it"})
    with database.transaction() as session:
        turn = session.scalars(select(Turn).where(Turn.game_id == game_id, Turn.number == 1)).one()
    assert turn.resolved_at is not None and turn.resolved_by == "deadline"
