"""End to end: a four-player round robin through the API in this process and a real Celery
worker (with beat) beside it, on this run's database and broker, mail as ``.eml`` files.

Invitations go out, the players accept (one by replying to the invitation mail, through
``gateway.receive`` and the worker; the others through the API), the director starts the
league; each round's games
are finished through the API (a resignation and a draw), the worker records the results,
closes the round, mails the standings and starts the next round's games; at the end the
final standings are mailed. Everything is checked in the ``.eml`` files the worker wrote."""

from __future__ import annotations

import email
from collections.abc import Iterator
from email.policy import default
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from service import players
from service.db import Database
from service.mail import gateway
from service.mail.models import InboundMessage
from service.models import Outbox
from tests.service.conftest import Client
from tests.service.gateway_kit import reply
from tests.service.live import live_database, live_env, wait_for, worker_processes

pytestmark = pytest.mark.integration


@pytest.fixture
def live(migrated: str, tmp_path: Path) -> Iterator[tuple[Database, dict[str, str]]]:
    env = live_env(migrated, tmp_path / "live")
    with live_database(env) as database:
        yield database, env


def clients(database: Database) -> list[Client]:
    from service.app import create_app

    app = create_app(database.settings)
    made = []
    with database.transaction() as session:
        for name, roles in (("Tess", ["td"]), ("Ann", []), ("Ben", []), ("Cat", []), ("Dan", [])):
            data = {"name": name, "emails": [f"{name.lower()}@example.org"], "roles": roles}
            player, token = players.create(session, None, data)
            made.append(Client(app.test_client(), token, players.to_json(player, True)))
    return made


def entry_status(td: Client, path: str, player_id: int) -> str:
    players_ = td.ok("GET", path)["league"]["players"]
    return str(next(p["status"] for p in players_ if p["id"] == player_id))


def unsent(database: Database) -> int:
    with database.transaction() as session:
        query = select(func.count()).select_from(Outbox).where(Outbox.sent_at.is_(None))
        return session.scalar(query) or 0


def mails(database: Database, kind: str) -> list[email.message.EmailMessage]:
    found = sorted(Path(database.settings.mail_dir).glob(f"*-{kind}.eml"))
    return [email.message_from_bytes(path.read_bytes(), policy=default) for path in found]  # type: ignore[misc]


def text_of(message: Any) -> str:
    return str(message.get_body(preferencelist=("plain",)).get_content())


def test_a_four_player_round_robin_runs_through_the_real_worker(
    live: tuple[Database, dict[str, str]],
) -> None:
    database, env = live
    td, *people = clients(database)
    by_id = {p.id: p for p in people}
    data = {"name": "Club Championship", "game": "countdown", "time_control": {"days": 3}}
    league = td.ok("POST", "/leagues", data, status=201)["league"]
    path = f"/leagues/{league['id']}"
    td.ok("POST", path + "/players", {"players": [f"{p.player['emails'][0]}" for p in people]})
    with worker_processes(env, beat=True):
        wait_for(lambda: len(mails(database, "league_invitation")) == 4, "mail the invitations")
        by_mail, *by_api = people
        address = by_mail.player["emails"][0]
        invitation = next(
            m for m in mails(database, "league_invitation") if address in str(m["To"])
        )
        stored = gateway.receive(database, reply(invitation, address, "Accept!"), "inject")
        wait_for(lambda: entry_status(td, path, by_mail.id) == "active", "accept by mail")
        wait_for(lambda: mails(database, "league_answer"), "confirm the answer by mail")
        with database.transaction() as session:
            assert session.get_one(InboundMessage, stored.id).status == "processed"
        for person in by_api:
            person.ok("POST", path + "/accept")
        td.ok("POST", path + "/start")
        for round_no in (1, 2, 3):
            current = wait_for(
                lambda n=round_no: (lambda got: got if got["round"] == n else None)(
                    td.ok("GET", path)["league"]
                ),
                f"start round {round_no}",
            )
            first, second = current["rounds"][round_no - 1]["games"]
            game = td.ok("GET", f"/games/{first['game']}")["game"]
            by_id[game["seats"][1]["player"]["id"]].ok("POST", f"/games/{first['game']}/resign")
            game = td.ok("GET", f"/games/{second['game']}")["game"]
            seated = [by_id[seat["player"]["id"]] for seat in game["seats"]]
            seated[0].ok("POST", f"/games/{second['game']}/draw/offer")
            seated[1].ok("POST", f"/games/{second['game']}/draw/accept")
        wait_for(lambda: td.ok("GET", path)["league"]["status"] == "finished", "finish the league")
        wait_for(lambda: unsent(database) == 0, "send every mail")
    standings = mails(database, "league_standings")
    assert len(standings) == 4 * 3 + 4
    subjects = sorted({str(m["Subject"]) for m in standings})
    prefix = f"[pbem league #{league['id']}] Club Championship:"
    assert subjects == [
        f"{prefix} final standings",
        *(f"{prefix} standings after round {n}" for n in (1, 2, 3)),
    ]
    final = next(m for m in standings if "final" in str(m["Subject"]))
    body = text_of(final)
    for person in people:
        assert person.player["name"] in body
    table = td.ok("GET", path + "/standings")["standings"]
    assert sum(row["points"] for row in table["rows"]) == 6
    assert len(mails(database, "game_started")) == 12
    assert {str(m["To"]) for m in mails(database, "league_invitation")} == {
        f"{p.player['name']} <{p.player['emails'][0]}>" for p in people
    }
