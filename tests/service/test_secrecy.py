"""Sealed orders stay sealed: every route, record and message looks the same to the opponent
and to a spectator whatever the author ordered, until the turn resolves."""

from __future__ import annotations

import json
import re
from typing import Any

from sqlalchemy import select

from service.db import Database
from service.models import Outbox
from tests.service.conftest import Client
from tests.service.mails import readable
from tests.service.test_api import start

VOLATILE = re.compile(
    r'[0-9a-f]{64}|\d{4}-\d\d-\d\dT[\d:.+]+|#\d+|game \d+|"(id|game_id)":\s*"?\d+"?|Id "\d+"'
    r"|games/\d+|game-\d+|/play/[\w.]+|(DTSTAMP|SEQUENCE|DTSTART):\w+|\d+ \w{3} \d{4}, \d\d:\d\d"
)


def everything_seen(
    database: Database, game_id: int, viewer: Client, anonymous: Client
) -> list[str]:
    path = f"/games/{game_id}"
    seen = [
        viewer.get(path).get_data(as_text=True),
        viewer.get("/games").get_data(as_text=True),
        viewer.get("/games?filter=waiting").get_data(as_text=True),
        viewer.get(path + "/record").get_data(as_text=True),
        viewer.get(path + "/record.txt").get_data(as_text=True),
        anonymous.get(path + "/spectate").get_data(as_text=True),
        anonymous.get(path + "/record").get_data(as_text=True),
        anonymous.get(path + "/record.txt").get_data(as_text=True),
    ]
    with database.transaction() as session:
        rows = session.scalars(
            select(Outbox)
            .where(Outbox.game_id == game_id, Outbox.player_id == viewer.id)
            .order_by(Outbox.id)
        )
        seen += [readable(row) for row in rows]
    return [VOLATILE.sub("~", text) for text in seen]


def sealed_game(alice: Client, bob: Client, order: str) -> int:
    game = start(alice, bob)
    alice.ok("POST", f"/games/{game['id']}/moves", {"turn": 1, "text": order})
    return int(game["id"])


def test_no_route_shows_sealed_orders_to_the_opponent_or_a_spectator(
    database: Database, alice: Client, bob: Client, anonymous: Client
) -> None:
    three = sealed_game(alice, bob, "3")
    two = sealed_game(alice, bob, "2")
    assert everything_seen(database, three, bob, anonymous) == everything_seen(
        database, two, bob, anonymous
    )
    own = alice.ok("GET", f"/games/{three}")["game"]
    assert own["view"]["own_orders"] == "3" and own["receipt"]
    mine = [o["parsed"] for o in alice.ok("GET", f"/games/{three}/record")["orders"]]
    assert mine == ["3"]
    assert bob.ok("GET", f"/games/{three}/record")["orders"] == []


def test_orders_are_revealed_once_the_turn_resolves(alice: Client, bob: Client) -> None:
    game = sealed_game(alice, bob, "3")
    bob.ok("POST", f"/games/{game}/moves", {"turn": 1, "text": "1"})
    orders: list[dict[str, Any]] = bob.ok("GET", f"/games/{game}/record")["orders"]
    assert [(o["seat"], o["parsed"]) for o in orders] == [(0, "3"), (1, "1")]
    assert all(o["receipt_salt"] for o in orders)
    json.dumps(orders)


def test_orders_of_a_turn_ended_by_resignation_stay_sealed(alice: Client, bob: Client) -> None:
    game = sealed_game(alice, bob, "3")
    bob.ok("POST", f"/games/{game}/resign")
    assert bob.ok("GET", f"/games/{game}/record")["orders"] == []
