"""Finding 7: a seat's receipt, and when and how often it replaced its sealed orders, is its
author's alone until the turn resolves. Seen from the other seat and from a spectator."""

from __future__ import annotations

from service.db import Database
from tests.service.conftest import Client
from tests.service.test_api import start
from tests.service.test_secrecy import everything_seen


def sealed_turn(author: Client, opponent: Client, orders: list[str]) -> int:
    """A sealed game whose first seat sent each of ``orders`` in turn (each replacing the last)."""
    game = int(start(author, opponent)["id"])
    for text in orders:
        author.ok("POST", f"/games/{game}/moves", {"turn": 1, "text": text})
    return game


def record_text(viewer: Client, game: int) -> str:
    return str(viewer.get(f"/games/{game}/record").get_data(as_text=True))


def test_the_opponent_cannot_tell_how_often_orders_were_replaced(
    database: Database, alice: Client, bob: Client, anonymous: Client
) -> None:
    once = sealed_turn(alice, bob, ["3"])
    three_times = sealed_turn(alice, bob, ["1", "2", "3"])
    assert everything_seen(database, once, bob, anonymous) == everything_seen(
        database, three_times, bob, anonymous
    )


def test_an_open_turns_receipt_is_shown_to_its_author_alone(
    alice: Client, bob: Client, anonymous: Client
) -> None:
    game = sealed_turn(alice, bob, ["1", "3"])
    own = alice.ok("GET", f"/games/{game}")["game"]["receipt"]
    assert own in record_text(alice, game)
    assert own not in record_text(bob, game)
    assert own not in record_text(anonymous, game)
    bob_log = bob.ok("GET", f"/games/{game}/record")["log"]
    assert not [entry for entry in bob_log if entry["kind"] in ("orders", "withdrawn")]


def test_withdrawing_orders_is_not_shown_to_the_opponent_either(alice: Client, bob: Client) -> None:
    game = sealed_turn(alice, bob, ["2"])
    alice.ok("POST", f"/games/{game}/withdraw", {"turn": 1})
    assert [e["kind"] for e in bob.ok("GET", f"/games/{game}/record")["log"]] == [
        e["kind"] for e in bob.ok("GET", f"/games/{sealed_turn(alice, bob, [])}/record")["log"]
    ]


def test_once_the_turn_resolves_every_receipt_is_shown_to_everyone(
    alice: Client, bob: Client, anonymous: Client
) -> None:
    game = sealed_turn(alice, bob, ["1", "3"])
    alice_receipt = alice.ok("GET", f"/games/{game}")["game"]["receipt"]
    bob.ok("POST", f"/games/{game}/moves", {"turn": 1, "text": "1"})
    assert alice_receipt in record_text(bob, game)
    assert alice_receipt in record_text(anonymous, game)
    kinds = [e["kind"] for e in anonymous.ok("GET", f"/games/{game}/record")["log"]]
    assert kinds.count("orders") == 3
