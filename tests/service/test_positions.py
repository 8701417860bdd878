"""Games from a position (issue 15): a director starts a game at a position the engine
checks, by API, by ``pbem game create --position`` and for every game of a league; the
position is in the game log, the record and the first mail, and the game plays on from it."""

from __future__ import annotations

import email
from email.message import EmailMessage
from email.policy import default
from typing import Any

from click.testing import CliRunner
from sqlalchemy import select

from service.cli import main
from service.db import Database
from service.models import Outbox
from tests.service.conftest import Client, new_player

POSITION = "BBBBBBBB/8/8/8/8/8/8/WWWWWWWW w"
"""Epaminondas 8x8 with one row each: a themed start no game reaches from the usual one."""


def first_mails(database: Database, game_id: int) -> list[EmailMessage]:
    with database.transaction() as session:
        rows = session.scalars(
            select(Outbox).where(Outbox.game_id == game_id, Outbox.kind == "game_started")
        ).all()
        raw = [row.body for row in rows]
    return [email.message_from_string(body, policy=default) for body in raw]  # type: ignore[misc]


def text_of(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert part is not None
    return str(part.get_content())


def game_data(seats: list[int], **extra: Any) -> dict[str, Any]:
    return {"game": "epaminondas", "options": {"board": "8x8"}, "seats": seats, **extra}


def test_a_director_starts_a_game_from_a_position_and_it_plays_on(
    database: Database, admin: Client, alice: Client, bob: Client
) -> None:
    made = admin.ok("POST", "/games", game_data([alice.id, bob.id], position=POSITION), 201)
    game_id = made["game"]["id"]
    assert alice.ok("GET", f"/games/{game_id}")["game"]["view"]["position"] == POSITION
    record = admin.ok("GET", f"/games/{game_id}/record")
    assert record["start_position"] == POSITION
    assert record["turns"][0]["position"] == POSITION
    assert any(e["kind"] == "position" and POSITION in e["text"] for e in record["log"])
    text = admin.request("GET", f"/games/{game_id}/record.txt").get_data(as_text=True)
    assert f'[Position "{POSITION}"]' in text
    mails = first_mails(database, game_id)
    assert len(mails) == 2
    for mail in mails:
        assert POSITION in text_of(mail)
        html = mail.get_body(("html",))
        assert html is not None and POSITION in str(html.get_content())
    alice.ok("POST", f"/games/{game_id}/moves", {"turn": 1, "text": "a1-a2"})
    after = admin.ok("GET", f"/games/{game_id}/record")
    assert after["position"].startswith("BBBBBBBB/8/8/8/8/8/W7/1WWWWWWW")


def test_a_player_may_not_and_a_bad_position_is_explained(
    admin: Client, alice: Client, bob: Client
) -> None:
    refused = alice.request("POST", "/games", json=game_data([alice.id, bob.id], position=POSITION))
    assert refused.status_code == 403
    assert "directors and admins" in refused.get_json()["error"]["message"]
    bad = admin.request(
        "POST", "/games", json=game_data([alice.id, bob.id], position="BBBBBBBB/8 w")
    )
    assert bad.status_code == 422
    error = bad.get_json()["error"]
    assert error["code"] == "bad_position" and "'BBBBBBBB/8 w'" in error["message"]
    over = admin.request(
        "POST", "/games", json=game_data([alice.id, bob.id], position="8/8/8/8/8/8/8/WW6 b")
    )
    assert over.status_code in (409, 422), over.get_json()
    normal = alice.ok("POST", "/games", game_data([alice.id, bob.id]), 201)
    assert admin.ok("GET", f"/games/{normal['game']['id']}/record")["start_position"] is None


def test_the_command_line_creates_a_game_from_a_position(
    database: Database, admin: Client, alice: Client, bob: Client, cli_env: dict[str, str]
) -> None:
    args = ["game", "create", "epaminondas", "alice@example.org", "bob@example.org"]
    args += ["--by", "ada@example.org", "-o", "board=8x8", "--position", POSITION, "--days", "3"]
    result = CliRunner().invoke(main, args, env=cli_env)
    assert result.exit_code == 0, result.output
    game_id = int(result.output.strip())
    assert admin.ok("GET", f"/games/{game_id}/record")["start_position"] == POSITION
    bad = CliRunner().invoke(main, [*args[:-4], "--position", "nonsense"], env=cli_env)
    assert bad.exit_code == 2 and "error: bad position 'nonsense'" in bad.output
    by_player = [*args[:5], "--by", "alice@example.org", "--position", POSITION, "-o", "board=8x8"]
    refused = CliRunner().invoke(main, by_player, env=cli_env)
    assert refused.exit_code == 2 and "directors and admins" in refused.output


def test_every_game_of_a_league_starts_from_its_position(admin: Client) -> None:
    data = {
        "name": "Themed",
        "game": "epaminondas",
        "options": {"board": "8x8"},
        "position": POSITION,
    }
    bad = admin.request("POST", "/leagues", json={**data, "position": "x"})
    assert bad.status_code == 422
    league = admin.ok("POST", "/leagues", data, 201)["league"]
    people = [new_player(admin, name) for name in ("Alice", "Bob", "Cyd", "Dee")]
    admin.ok("POST", f"/leagues/{league['id']}/players", {"players": [p.id for p in people]})
    for person in people:
        person.ok("POST", f"/leagues/{league['id']}/accept")
    started = admin.ok("POST", f"/leagues/{league['id']}/start")["league"]
    assert started["settings"]["position"] == POSITION
    for played in started["rounds"][0]["games"]:
        record = admin.ok("GET", f"/games/{played['game']}/record")
        assert record["start_position"] == POSITION
