"""The HTTP API on toy games, with tasks run inline: moves, sealed orders, errors, records."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.service.conftest import Client

DUEL = {"game": "duel", "time_control": {"days": 2}}


def start(creator: Client, other: Client, game: str = "duel", **extra: Any) -> dict[str, Any]:
    data = {"game": game, "seats": [creator.id, other.id], **extra}
    return creator.ok("POST", "/games", data, status=201)["game"]


def test_a_sequential_move_applies_at_once(alice: Client, bob: Client) -> None:
    game = start(alice, bob, "countdown")
    after = alice.ok("POST", f"/games/{game['id']}/moves", {"turn": 1, "text": "take 2"})
    assert after["game"]["turn"] == 2
    assert after["game"]["view"]["position"] == "5 1 -"
    assert bob.ok("GET", f"/games/{game['id']}")["game"]["to_act"] == [1]


def test_a_sealed_turn_resolves_when_both_seats_submitted(alice: Client, bob: Client) -> None:
    game = start(alice, bob)
    path = f"/games/{game['id']}"
    alice.ok("POST", path + "/moves", {"turn": 1, "text": "3"})
    alice.ok("POST", path + "/moves", {"turn": 1, "text": "2"})
    assert bob.ok("GET", path)["game"]["turn"] == 1
    bob.ok("POST", path + "/moves", {"turn": 1, "text": "1"})
    seen = bob.ok("GET", path)["game"]
    assert seen["turn"] == 2 and seen["view"]["position"] == "1 0"
    orders = {
        (o["seat"], o["parsed"], o["status"]) for o in bob.ok("GET", path + "/record")["orders"]
    }
    assert (0, "2", "resolved") in orders and (1, "1", "resolved") in orders


def test_withdrawn_orders_do_not_count(alice: Client, bob: Client) -> None:
    game = start(alice, bob)
    path = f"/games/{game['id']}"
    alice.ok("POST", path + "/moves", {"turn": 1, "text": "3"})
    alice.ok("POST", path + "/withdraw", {"turn": 1})
    bob.ok("POST", path + "/moves", {"turn": 1, "text": "2"})
    assert alice.ok("GET", path)["game"]["turn"] == 1
    again = alice.request("POST", path + "/withdraw", json={"turn": 1})
    assert again.status_code == 409


def test_a_seat_may_hold_the_turn_open_until_the_deadline(alice: Client, bob: Client) -> None:
    game = start(alice, bob)
    path = f"/games/{game['id']}"
    alice.ok("POST", path + "/wait", {"turn": 1, "wait": True})
    alice.ok("POST", path + "/moves", {"turn": 1, "text": "3"})
    bob.ok("POST", path + "/moves", {"turn": 1, "text": "2"})
    assert alice.ok("GET", path)["game"]["turn"] == 1
    alice.ok("POST", path + "/wait", {"turn": 1, "wait": False})
    assert alice.ok("GET", path)["game"]["turn"] == 2


def test_a_stale_turn_number_is_refused_with_what_changed(alice: Client, bob: Client) -> None:
    game = start(alice, bob)
    path = f"/games/{game['id']}"
    alice.ok("POST", path + "/moves", {"turn": 1, "text": "3"})
    bob.ok("POST", path + "/moves", {"turn": 1, "text": "1"})
    response = alice.request("POST", path + "/moves", json={"turn": 1, "text": "2"})
    assert response.status_code == 409
    error = response.get_json()["error"]
    assert error["code"] == "turn_moved_on"
    assert "it is now turn 2" in error["message"] and "3 against 1" in error["message"]


def test_engine_errors_come_back_verbatim_as_4xx(alice: Client, bob: Client) -> None:
    game = start(alice, bob)
    response = alice.request("POST", f"/games/{game['id']}/moves", json={"turn": 1, "text": "x"})
    assert response.status_code == 422
    assert response.get_json() == {
        "error": {
            "code": "cannot_read",
            "message": "cannot read 'x': name a number. Valid here: 1, 2, 3",
            "reason": "name_a_number",
        }
    }


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ({"game": "chess", "seats": []}, "unknown_game"),
        ({"game": "duel", "seats": [1, 2], "options": {"size": "9"}}, "bad_option"),
        ({"game": "duel"}, "bad_request"),
        ({"game": "duel", "seats": [1, 2], "time_control": {"days": -1}}, "bad_request"),
        ({"game": "duel", "seats": [1, 2], "time_control": {"hours": 1}}, "bad_request"),
    ],
)
def test_bad_game_requests_are_explained(admin: Client, data: dict[str, Any], code: str) -> None:
    response = admin.request("POST", "/games", json=data)
    assert 400 <= response.status_code < 500
    assert response.get_json()["error"]["code"] == code


def test_bad_json_oversize_bodies_and_unknown_routes_are_json_4xx(alice: Client) -> None:
    bad = alice.client.post(
        "/api/v1/games",
        data="{not json",
        content_type="application/json",
        headers={"Authorization": f"Bearer {alice.token}"},
    )
    assert bad.status_code == 400 and "JSON object" in bad.get_json()["error"]["message"]
    huge = alice.request("POST", "/games", json={"game": "x" * 200_000})
    assert huge.status_code == 413 and "error" in huge.get_json()
    assert alice.request("GET", "/nowhere").get_json()["error"]["code"] == "not_found"
    assert alice.request("GET", "/games/99999999999").status_code == 400
    nul = alice.request("PATCH", "/players/me", json={"name": "a\x00b"})
    assert nul.status_code == 400


def test_tokens_authenticate_and_rotate(alice: Client, anonymous: Client) -> None:
    assert anonymous.request("GET", "/players/me").status_code == 401
    old = alice.token
    token = alice.ok("POST", "/players/me/token")["token"]
    assert alice.request("GET", "/players/me").status_code == 401
    alice.token = token
    assert alice.ok("GET", "/players/me")["player"]["name"] == "Alice"
    assert old != token


def test_only_directors_create_players(alice: Client) -> None:
    response = alice.request("POST", "/players", json={"name": "Eve", "emails": ["e@x.org"]})
    assert response.status_code == 403


def test_players_update_their_own_preferences(alice: Client, bob: Client) -> None:
    data = {"time_zone": "Europe/Vienna", "notify": "none"}
    assert alice.ok("PATCH", "/players/me", data)["player"]["time_zone"] == "Europe/Vienna"
    assert alice.request("PATCH", "/players/me", json={"time_zone": "Mars/Base"}).status_code == 400
    public = bob.ok("GET", f"/players/{alice.id}")["player"]
    assert "emails" not in public and public["name"] == "Alice"


def test_resignation_ends_the_game(alice: Client, bob: Client) -> None:
    game = start(alice, bob)
    done = bob.ok("POST", f"/games/{game['id']}/resign")["game"]
    assert done["status"] == "finished" and done["result"]["result"] == "1-0"
    again = alice.request("POST", f"/games/{game['id']}/moves", json={"turn": 1, "text": "1"})
    assert again.status_code == 409 and again.get_json()["error"]["code"] == "game_over"


def test_a_draw_needs_every_seat(alice: Client, bob: Client) -> None:
    game = start(alice, bob)
    path = f"/games/{game['id']}/draw"
    assert alice.request("POST", path + "/accept").status_code == 409
    alice.ok("POST", path + "/offer")
    bob.ok("POST", path + "/decline")
    alice.ok("POST", path + "/offer")
    done = bob.ok("POST", path + "/accept")["game"]
    assert done["result"]["result"] == "1/2-1/2" and done["result"]["reason"] == "draw by agreement"


def test_preview_stores_nothing_and_hides_the_opponents_orders(alice: Client, bob: Client) -> None:
    game = start(alice, bob)
    path = f"/games/{game['id']}"
    bob.ok("POST", path + "/moves", {"turn": 1, "text": "3"})
    seen = alice.ok("POST", path + "/preview", {"text": "2"})
    assert seen["view"]["position"] == "1 0"  # against Bob's default 1, not his real 3
    assert alice.ok("GET", path)["game"]["view"]["position"] == "0 0"


def test_lists_filter_mine_waiting_and_finished(alice: Client, bob: Client) -> None:
    first = start(alice, bob, "countdown")
    second = start(alice, bob)
    bob.ok("POST", f"/games/{second['id']}/resign")
    assert [g["id"] for g in alice.ok("GET", "/games")["games"]] == [first["id"], second["id"]]
    assert [g["id"] for g in alice.ok("GET", "/games?filter=waiting")["games"]] == [first["id"]]
    assert [g["id"] for g in bob.ok("GET", "/games?filter=waiting")["games"]] == []
    assert [g["id"] for g in bob.ok("GET", "/games?filter=finished")["games"]] == [second["id"]]


def test_records_export_every_move_as_json_and_text(alice: Client, bob: Client) -> None:
    game = start(alice, bob, "countdown", options={"pile": "3"})
    path = f"/games/{game['id']}"
    alice.ok("POST", path + "/moves", {"turn": 1, "text": "take 1"})
    bob.ok("POST", path + "/moves", {"turn": 2, "text": "take 2"})
    data = alice.ok("GET", path + "/record")
    assert data["steps"] == [
        {"kind": "move", "seat": 0, "text": "take 1"},
        {"kind": "move", "seat": 1, "text": "take 2"},
    ]
    assert data["result"]["result"] == "0-1"
    assert {"game", "options", "players", "game_id", "commitment", "seed"} <= set(data)
    text = alice.client.get(f"/api/v1{path}/record.txt").get_data(as_text=True)
    assert '[Result "0-1"]' in text and "1. take 1 2. take 2 0-1" in text
    json.dumps(data)
