"""Issue 25, 5: outgoing webhooks per player and per league, signed like Stripe's, in the
generic JSON, Discord and Slack formats, retried like mail and sent once; a real HTTP
receiver on the loopback interface takes them (``PBEM_WEBHOOKS_ALLOW_LOOPBACK=1``)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select

from service import schedule, webhooks
from service.config import Settings
from service.db import Database
from service.errors import Unprocessable
from service.mail.links import settings_token
from service.models import Game, Webhook, WebhookDelivery, utcnow
from tests.service.conftest import Client, make_settings, new_player
from tests.service.test_api import start
from tests.service.test_leagues_api import four, games_of, league


@pytest.fixture
def settings(migrated: str, tmp_path: Path) -> Settings:
    return make_settings(migrated, tmp_path / "var", PBEM_WEBHOOKS_ALLOW_LOOPBACK="1")


class Receiver:
    """An HTTP server on 127.0.0.1 that keeps every request and answers the statuses queued
    in ``answers`` first, then 200."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str], bytes]] = []
        self.answers: list[int] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests.append((self.path, dict(self.headers.items()), body))
                status = receiver.answers.pop(0) if receiver.answers else 200
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def at(self, path: str) -> list[tuple[dict[str, str], bytes]]:
        return [(headers, body) for seen, headers, body in self.requests if seen == path]

    def events(self, path: str) -> list[dict[str, Any]]:
        return [json.loads(body) for _, body in self.at(path)]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    made = Receiver()
    yield made
    made.server.shutdown()
    made.server.server_close()


def hook(client: Client, url: str, **extra: Any) -> dict[str, Any]:
    made: dict[str, Any] = client.ok(
        "POST", "/players/me/webhooks", {"url": url, **extra}, status=201
    )["webhook"]
    return made


def deliveries(database: Database) -> list[WebhookDelivery]:
    with database.transaction() as session:
        return list(session.scalars(select(WebhookDelivery).order_by(WebhookDelivery.id)))


def test_signed_events_reach_a_receiver_a_failed_one_is_retried_and_sent_once(
    database: Database, alice: Client, bob: Client, receiver: Receiver
) -> None:
    made = hook(bob, receiver.url("/bob"))
    secret = made["secret"]
    assert secret.startswith("whsec_") and made["events"] == list(webhooks.EVENTS)
    game = start(alice, bob, "countdown")
    assert receiver.at("/bob") == []  # Alice is to move: nothing for Bob yet

    receiver.answers = [500]  # the receiver fails the first delivery
    alice.ok("POST", f"/games/{game['id']}/moves", {"turn": 1, "text": "take 2"})
    first, second = receiver.at("/bob")
    moved, your_turn = (json.loads(body) for _, body in (first, second))
    assert (moved["type"], moved["move"], moved["player"]) == ("moved", "take 2", "Alice")
    assert (your_turn["type"], your_turn["turn"], your_turn["seat"]) == ("your_turn", 2, 1)
    assert your_turn["game"]["id"] == game["id"] and your_turn["game"]["url"].endswith(
        f"/games/{game['id']}"
    )
    failed = deliveries(database)[0]
    assert failed.sent_at is None and failed.last_status == 500 and failed.attempts == 1

    # the sweep after the backoff sends it again, with the same delivery id and body
    schedule.sweep(database, utcnow() + timedelta(minutes=5))
    retried = receiver.at("/bob")[2]
    assert retried[1] == first[1]
    assert retried[0]["Pbem-Delivery"] == first[0]["Pbem-Delivery"] == moved["delivery"]
    assert retried[0]["Pbem-Event"] == "moved"
    # a task run twice (or a second sweep) sends nothing again
    schedule.send_webhook(database, failed.id)
    schedule.sweep(database, utcnow() + timedelta(hours=2))
    assert len(receiver.at("/bob")) == 3
    sent = deliveries(database)[0]
    assert (sent.attempts, sent.last_status, sent.sent_at is not None) == (2, 200, True)

    for headers, body in receiver.at("/bob"):
        assert webhooks.verify(secret, headers["Pbem-Signature"], body)
        assert not webhooks.verify("whsec_" + "0" * 48, headers["Pbem-Signature"], body)
        assert not webhooks.verify(secret, headers["Pbem-Signature"], body + b" ")
    headers = first[0]
    stamp = int(headers["Pbem-Signature"].split(",")[0].removeprefix("t="))
    assert headers["Pbem-Signature"] == webhooks.sign(secret, stamp, first[1])
    assert abs(stamp - utcnow().timestamp()) < 60
    assert bob.ok("GET", "/players/me/webhooks")["webhooks"][0]["last_delivery"]["status"] == 200


def test_sealed_orders_and_dice_seeds_reach_the_other_player_only_once_public(
    database: Database, alice: Client, bob: Client, receiver: Receiver
) -> None:
    hook(bob, receiver.url("/bob"))
    hook(alice, receiver.url("/alice"))
    game = start(alice, bob, "duel")
    seen_at_start = len(receiver.requests)
    alice.ok("POST", f"/games/{game['id']}/moves", {"turn": 1, "text": "3"})
    alice.ok("POST", f"/games/{game['id']}/moves", {"turn": 1, "text": "2"})
    assert len(receiver.requests) == seen_at_start  # sealing writes no delivery, not even hers
    assert len(deliveries(database)) == seen_at_start

    bob.ok("POST", f"/games/{game['id']}/moves", {"turn": 1, "text": "1"})
    resolved = next(e for e in receiver.events("/bob") if e["type"] == "resolved")
    assert resolved["turn"] == 1 and resolved["by"] == "orders"
    assert {(o["player"], o["orders"]) for o in resolved["orders"]} == {
        ("Alice", "2"),
        ("Bob", "1"),
    }

    rolled = start(alice, bob, "dicecountdown")
    alice.ok("POST", f"/games/{rolled['id']}/moves", {"turn": 1, "text": "take 1"})
    with database.transaction() as session:
        seeds = [g.seed for g in session.scalars(select(Game)) if g.seed]
    assert seeds
    for _, _, body in receiver.requests:
        for seed in seeds:
            assert seed.hex().encode() not in body and seed not in body


def test_discord_and_slack_get_their_shapes_in_the_players_language(
    database: Database, alice: Client, bob: Client, receiver: Receiver
) -> None:
    alice.ok("PATCH", "/players/me", {"language": "de"})
    hook(alice, receiver.url("/discord"), format="discord", events=["your_turn"])
    hook(alice, receiver.url("/slack"), format="slack")
    game = start(alice, bob, "countdown")
    (discord,) = receiver.events("/discord")
    (slack,) = receiver.events("/slack")
    assert list(discord) == ["content"] and list(slack) == ["text"]
    assert discord["content"].startswith(f"Du bist am Zug in countdown (Partie {game['id']})")
    assert discord["content"] == slack["text"]
    assert discord["content"].endswith(f"/games/{game['id']}")
    alice.ok("POST", f"/games/{game['id']}/resign")
    assert len(receiver.events("/discord")) == 1  # it carries your_turn only
    assert "ist beendet" in receiver.events("/slack")[-1]["text"]


def test_webhooks_are_managed_by_api_and_bad_urls_are_explained(
    database: Database, alice: Client, bob: Client, receiver: Receiver
) -> None:
    made = hook(alice, receiver.url("/a"), events=["result", "moved"])
    listed = alice.ok("GET", "/players/me/webhooks")["webhooks"]
    assert [h["id"] for h in listed] == [made["id"]] and "secret" not in listed[0]
    assert listed[0]["events"] == ["result", "moved"] and listed[0]["format"] == "json"
    assert bob.ok("GET", "/players/me/webhooks")["webhooks"] == []

    for url, code in (
        ("ftp://example.org/hook", "bad_webhook_url"),
        ("example.org/hook", "bad_webhook_url"),
        ("http://10.1.2.3/hook", "private_webhook_url"),
        ("http://[fd00::1]/hook", "private_webhook_url"),
        ("http://169.254.169.254/latest", "private_webhook_url"),
        ("https://user:pw@example.org/", "bad_webhook_url"),
    ):
        answer = alice.request("POST", "/players/me/webhooks", json={"url": url})
        assert answer.status_code == 422 and answer.get_json()["error"]["code"] == code, url
    bad_event = alice.request(
        "POST", "/players/me/webhooks", json={"url": "https://example.org/", "events": ["x"]}
    )
    assert bad_event.status_code == 400 and "your_turn" in bad_event.get_data(as_text=True)

    # loopback only when the config flag is on (it is in these tests)
    with pytest.raises(Unprocessable):
        webhooks.check_url("http://127.0.0.1:9/hook", allow_loopback=False)
    with pytest.raises(Unprocessable):
        webhooks.check_url("http://localhost/hook", allow_loopback=False)
    assert webhooks.check_url("http://127.0.0.1:9/hook", allow_loopback=True)

    for number in range(4):
        hook(alice, f"https://example.org/{number}")
    full = alice.request("POST", "/players/me/webhooks", json={"url": "https://example.org/6"})
    assert full.status_code == 409 and full.get_json()["error"]["code"] == "too_many_webhooks"

    assert bob.request("DELETE", f"/players/me/webhooks/{made['id']}").status_code == 404
    left = alice.ok("DELETE", f"/players/me/webhooks/{made['id']}")["webhooks"]
    assert made["id"] not in [h["id"] for h in left] and len(left) == 4


def test_a_league_hook_carries_results_and_standings_and_only_directors_manage_it(
    database: Database, admin: Client, receiver: Receiver
) -> None:
    made = league(admin)
    path = f"/leagues/{made['id']}/webhooks"
    people = four(admin)
    outsider = new_player(admin, "Eve")
    assert outsider.request("GET", path).status_code == 403
    refused = outsider.request("POST", path, json={"url": receiver.url("/x")})
    assert refused.status_code == 403
    with_turns = admin.request(
        "POST", path, json={"url": receiver.url("/x"), "events": ["your_turn"]}
    )
    assert with_turns.status_code == 422
    admin.ok("POST", path, {"url": receiver.url("/league"), "format": "slack"}, status=201)
    assert len(admin.ok("GET", path)["webhooks"]) == 1

    admin.ok("POST", f"/leagues/{made['id']}/players", {"players": [p.id for p in people]})
    for person in people:
        person.ok("POST", f"/leagues/{made['id']}/accept")
    data = admin.ok("POST", f"/leagues/{made['id']}/start")["league"]
    by_id = {p.id: p for p in people}
    for played in games_of(data, 1):
        game = admin.ok("GET", f"/games/{played['game']}")["game"]
        by_id[game["seats"][1]["player"]["id"]].ok("POST", f"/games/{played['game']}/resign")
    texts = [event["text"] for event in receiver.events("/league")]
    assert sum(" has ended: " in text for text in texts) == 2
    (table,) = [
        text for text in texts if text.startswith("Standings of Spring <Cup> after round 1:")
    ]
    assert len(table.splitlines()) == 5


def test_the_settings_page_lists_adds_and_removes_webhooks_in_the_players_language(
    app: Flask, database: Database, alice: Client, receiver: Receiver
) -> None:
    alice.ok("PATCH", "/players/me", {"language": "fr"})
    path = f"/mail/{settings_token(database.settings.secret(), alice.id)}"
    browser = app.test_client()
    assert "Aucun webhook" in browser.get(path).get_data(as_text=True)

    refused = browser.post(path + "/webhooks", data={"url": "http://10.0.0.7/x", "format": "json"})
    assert refused.status_code == 422  # as the API answers the same refusal
    assert "10.0.0.7" in refused.get_data(as_text=True) and "adresse priv" in refused.get_data(
        as_text=True
    )

    form = {"url": receiver.url("/page"), "format": "slack", "event_your_turn": "on"}
    added = browser.post(path + "/webhooks", data=form).get_data(as_text=True)
    (made,) = alice.ok("GET", "/players/me/webhooks")["webhooks"]
    assert made["events"] == ["your_turn"] and made["format"] == "slack"
    assert receiver.url("/page") in added and "whsec_" in added  # the secret, this once
    page = browser.get(path).get_data(as_text=True)
    assert receiver.url("/page") in page and "whsec_" not in page and "votre tour" in page

    removed = browser.post(path + f"/webhooks/{made['id']}/remove")
    assert removed.status_code == 200 and receiver.url("/page") not in removed.get_data(
        as_text=True
    )
    assert alice.ok("GET", "/players/me/webhooks")["webhooks"] == []


def test_a_name_that_resolves_to_a_private_address_is_refused_where_it_connects(
    database: Database, alice: Client, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check is made on the addresses connected to: a public name that resolves to a
    private or loopback one at send time (DNS rebinding) is not reached."""
    made = hook(alice, "http://hooks.example.org:9/x")
    real = socket.getaddrinfo
    port = receiver.server.server_address[1]

    def rebound(host: str, *args: Any, **kwargs: Any) -> Any:
        if host == "hooks.example.org":
            return real("127.0.0.1", port, type=socket.SOCK_STREAM)
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", rebound)
    with database.transaction() as session:
        hooked = session.get_one(Webhook, made["id"])
        row = WebhookDelivery(
            uid="d1", webhook_id=hooked.id, event="moved", event_id="x", body="{}", attempts=0
        )
        session.add(row)
        session.flush()
        production = replace(database.settings, webhooks_allow_loopback=False)
        assert webhooks.send(session, production, row.id) is not None
        assert "private or local" in (row.last_error or "")
    assert receiver.requests == []
