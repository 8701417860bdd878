"""Many threads race players and a director against each other on PostgreSQL: vacations
(which lock every game of the player; by API and by mail through the gateway),
resignations (by API and by mail) and draws (which end games and lock both
players for ratings), deadline changes and league results. Every request is either done or
refused with a reason (never a 5xx), and nothing is lost or doubled: one end per game, one
vacation row per vacation granted, one log line per deadline set, ratings changed once per
game and player."""

from __future__ import annotations

import os
import random
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import func, select

from service import db
from service.leagues.models import RatingChange
from service.mail import gateway
from service.mail.models import FAILED, RECEIVED, InboundMessage
from service.models import Game, LogEntry, Vacation
from tests.service.conftest import Client, new_player
from tests.service.gateway_kit import current_address, reply

pytestmark = pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith("postgresql"),
    reason="row locks, deadlocks and retries are PostgreSQL's: SQLite serialises every "
    "transaction (set DATABASE_URL=postgresql+psycopg://... to run it)",
)
THREADS = 16


def _answer(client: Client, method: str, path: str, json: Any = None) -> tuple[int, str]:
    if method == "MAIL":  # a reply through the gateway; its task runs inline, with retries
        database = db.current()
        received = gateway.receive(
            database, reply(None, client.player["emails"][0], json, to=path), "inject"
        )
        with database.transaction() as session:
            row = session.get_one(InboundMessage, received.id)
            return (200 if row.status == "processed" else 409), row.result or row.status
    fresh = Client(client.client.application.test_client(), client.token, client.player)
    response = fresh.request(method, path, json=json)
    body = response.get_json(silent=True) or {}
    return response.status_code, (body.get("error") or {}).get("message", "")


def _world(admin: Client) -> tuple[list[Client], list[tuple[int, Client, Client]], list[int]]:
    people = [new_player(admin, f"P{n}") for n in range(6)]
    games = []
    for i, first in enumerate(people):
        for second in people[i + 1 :]:
            made = admin.ok(
                "POST",
                "/games",
                {"game": "countdown", "seats": [first.id, second.id], "time_control": {"days": 3}},
                status=201,
            )
            games.append((made["game"]["id"], first, second))
    league = {"name": "Race Cup", "game": "countdown", "join_code": "race"}
    league_id = admin.ok("POST", "/leagues", league, status=201)["league"]["id"]
    for person in people[:4]:
        person.ok("POST", f"/leagues/{league_id}/join", {"code": "race"})
    admin.ok("POST", f"/leagues/{league_id}/start", {})
    rounds = admin.ok("GET", f"/leagues/{league_id}")["league"]["rounds"]
    league_games = [g["game"] for r in rounds for g in r["games"] if g.get("game")]
    return people, games, league_games


def test_racing_players_and_directors_lose_nothing_and_never_fail(
    admin: Client, database: db.Database
) -> None:
    people, games, league_games = _world(admin)
    by_id = {person.id: person for person in people}
    actions: list[tuple[str, Client, str, str, Any]] = []
    for game_id, first, second in games:
        actions += [
            ("resign", random.choice([first, second]), "POST", f"/games/{game_id}/resign", {}),
            ("offer", first, "POST", f"/games/{game_id}/draw/offer", {}),
            ("accept", second, "POST", f"/games/{game_id}/draw/accept", {}),
            (
                "deadline",
                admin,
                "PATCH",
                f"/games/{game_id}/deadline",
                {"deadline": "2031-01-01T12:00:00Z"},
            ),
        ]
    for game_id, first, _ in games[::3]:
        to = current_address(database, game_id, first.id)
        actions += [
            ("mail resign", first, "MAIL", to, "resign"),
            ("mail vacation", first, "MAIL", to, "vacation on"),
        ]
    for game_id in league_games:
        result = {"result": random.choice(["1-0", "0-1", "1/2-1/2"]), "reason": "race"}
        actions += [("result", admin, "POST", f"/games/{game_id}/result", result)] * 2
    for person in people:
        actions += [("vacation", person, "POST", "/players/me/vacation", {"days": 2})] * 3
    random.shuffle(actions)

    with ThreadPoolExecutor(THREADS) as pool:
        answers = list(pool.map(lambda a: (a[0], a[1], *_answer(a[1], a[2], a[3], a[4])), actions))

    failures = [(kind, status, why) for kind, _, status, why in answers if status >= 500]
    unexplained = [(kind, status) for kind, _, status, why in answers if status >= 400 and not why]
    statuses = Counter(status for *_, status, _ in answers)
    print(f"\nrace: {len(answers)} requests, {len(failures)} x 5xx, statuses {dict(statuses)}")
    assert failures == [] and unexplained == []
    done = Counter(kind for kind, _, status, _ in answers if status < 400)
    with database.transaction() as session:
        ends = Counter(
            session.scalars(select(LogEntry.game_id).where(LogEntry.kind == "end")).all()
        )
        finished = session.scalars(select(Game.id).where(Game.status == "finished")).all()
        assert all(ends[game_id] == 1 for game_id in finished), ends
        assert sum(ends.values()) == len(finished)
        deadlines = session.scalar(
            select(func.count()).select_from(LogEntry).where(LogEntry.kind == "deadline")
        )
        assert deadlines == done["deadline"]
        vacations = session.scalars(select(Vacation.player_id)).all()
        assert len(vacations) == done["vacation"] + done["mail vacation"]
        inbound = Counter(session.scalars(select(InboundMessage.status)).all())
        assert inbound[FAILED] == 0 and inbound[RECEIVED] == 0, inbound
        granted = Counter(
            client.id for kind, client, status, _ in answers if "vacation" in kind and status < 400
        )
        assert Counter(vacations) == granted
        changes = Counter(
            session.execute(select(RatingChange.game_id, RatingChange.player_id)).all()
        )
        assert all(count == 1 for count in changes.values()), changes
    assert set(by_id) >= {pid for pid in Counter(vacations)}
    assert done["resign"] + done["accept"] + done["result"] >= 1
