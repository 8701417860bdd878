"""Issue 24 for leagues: what the league service refuses, by API and by mail, in the
caller's language (``code`` the same in every language), and a deadline's calendar event in
the reader's."""

from __future__ import annotations

from sqlalchemy import select

from service import players
from service.db import Database
from service.leagues.answers import read_answer
from service.models import Outbox
from tests.service.conftest import Client
from tests.service.gateway_kit import latest, reply
from tests.service.mails import parsed
from tests.service.test_api import start
from tests.service.test_gateway_flow import send
from tests.service.test_league_invitations_by_mail import ALICE, invite


def test_a_league_refusal_by_api_is_in_the_callers_language(admin: Client, alice: Client) -> None:
    english = alice.request("POST", "/leagues", json={"name": "x", "game": "countdown"})
    assert english.status_code == 403
    assert english.get_json()["error"]["message"] == (
        "only tournament directors and admins run leagues"
    )
    alice.ok("PATCH", "/players/me", {"language": "de"})
    german = alice.request("POST", "/leagues", json={"name": "x", "game": "countdown"})
    assert german.status_code == 403
    error = german.get_json()["error"]
    assert error["message"] == "nur Turnierleiter und Admins leiten Ligen"
    assert error["code"] == english.get_json()["error"]["code"]

    data = {"name": "Spring <Cup>", "game": "countdown"}
    league = admin.ok("POST", "/leagues", data, status=201)["league"]
    path = f"/leagues/{league['id']}/start"
    refused = admin.request("POST", path).get_json()["error"]
    assert refused["message"] == (
        f"league {league['id']} needs at least 2 players who accepted; it has 0"
    )
    admin.ok("PATCH", "/players/me", {"language": "de"})
    german = admin.request("POST", path).get_json()["error"]
    assert german["message"] == (
        f"Liga {league['id']} braucht mindestens 2 Spieler, die zugesagt haben; sie hat 0"
    )
    assert german["code"] == refused["code"] == "too_few_players"


def test_an_answer_that_is_no_answer_is_explained_in_the_readers_language() -> None:
    assert read_answer("vielleicht nächste Woche", "de") == (
        None,
        "wir haben in deiner Antwort weder Zusage noch Absage gefunden (wir lasen "
        "'vielleicht nächste Woche'): um die Einladung zu beantworten, antworte über der "
        "Markierungszeile mit annehmen (oder ja, oder ich bin dabei) oder mit ablehnen (oder "
        "nein danke); ein Gruß oder eine kurze Bemerkung darf daneben stehen, wie in „Ja, ich "
        "bin dabei!“",
    )
    assert read_answer("ja\nnein", "fr")[1].startswith(
        "nous avons trouvé dans votre réponse à la fois une acceptation et un refus : "
    )
    assert read_answer("Oui, avec plaisir !", "fr") == (True, "")
    assert read_answer("Нет, спасибо", "ru") == (False, "")


def test_a_german_players_unclear_answer_by_mail_is_answered_in_german(
    database: Database,
) -> None:
    with database.transaction() as session:
        alice, _ = players.create(session, None, {"name": "Alice", "emails": [ALICE]})
        players.update(session, alice, {"language": "de"})
    invite(database, ALICE)
    row = send(database, reply(latest(database, ALICE), ALICE, "3 Partien gleichzeitig?"))
    assert row.status == "rejected"
    assert "enthält eine Zahl, die keine Antwort hat" in (row.result or "")


def test_the_deadlines_calendar_event_is_in_the_readers_language(
    database: Database, alice: Client, bob: Client
) -> None:
    alice.ok("PATCH", "/players/me", {"language": "fr"})
    game = start(alice, bob, "countdown")["id"]
    with database.transaction() as session:
        rows = session.scalars(select(Outbox).where(Outbox.kind == "game_started"))
        mails = {row.player_id: parsed(row) for row in rows}
    events = {}
    for player_id, mail in mails.items():
        [part] = [p for p in mail.walk() if p.get_content_type() == "text/calendar"]
        content = part.get_content()
        text = content.decode() if isinstance(content, bytes) else str(content)
        events[player_id] = text.replace("\r\n ", "")
    assert f"SUMMARY:pbem nº {game} Countdown : échéance du tour 1" in events[alice.id]
    assert "DESCRIPTION:Le tour 1 de Countdown nº" in events[alice.id]
    assert f"SUMMARY:pbem #{game} Countdown: turn 1 deadline" in events[bob.id]


def test_the_league_page_follows_the_browsers_language(
    admin: Client, alice: Client, bob: Client, anonymous: Client
) -> None:
    data = {"name": "Spring <Cup>", "game": "countdown", "format": "swiss", "rounds": 2}
    league = admin.ok("POST", "/leagues", data, status=201)["league"]
    path = f"/leagues/{league['id']}"
    admin.ok("POST", f"{path}/players", {"players": [alice.id, bob.id]})
    english = anonymous.client.get(path).get_data(as_text=True)
    assert '<html lang="en">' in english and "A swiss tournament of Countdown" in english
    assert "Status: <strong>open</strong>" in english and "No one is playing yet." in english
    headers = {"Accept-Language": "de-AT,de;q=0.9,en;q=0.5"}
    german = anonymous.client.get(path, headers=headers).get_data(as_text=True)
    assert '<html lang="de">' in german
    assert "<title>Spring &lt;Cup&gt;: Tabelle</title>" in german
    assert "Ein Turnier nach Schweizer System in Countdown" in german
    assert "Stand: <strong>offen</strong>" in german and "Noch spielt niemand." in german
    assert "Punkte: Sieg 1, Remis 0,5, Niederlage 0" in german
    french = anonymous.client.get(path, headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert "Un tournoi au système suisse de Countdown" in french
