"""Issue 25, point 1: takeback by consent (a) and the send delay of mailed moves (b), played
through the real gateway (and the API), on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from service import chain, records, schedule
from service.db import Database
from service.mail import gateway
from service.mail.models import InboundMessage
from service.models import Game, HeldMove, Player, Step, utcnow
from tests.service.conftest import Client
from tests.service.gateway_kit import game_row, inbound, latest, mails, make_game, reply, text_of

ALICE, BOB = "alice@example.org", "bob@example.org"


def send(database: Database, raw: bytes) -> InboundMessage:
    return inbound(database, gateway.receive(database, raw, "inject").id)


def answer(database: Database, address: str, game_id: int, typed: str) -> InboundMessage:
    return send(database, reply(latest(database, address, game_id), address, typed))


def pile(database: Database, game_id: int) -> str:
    with database.transaction() as session:
        return str(session.get_one(Game, game_id).state)


def moves(database: Database, game_id: int) -> list[str]:
    with database.transaction() as session:
        query = select(Step.text).where(Step.game_id == game_id).order_by(Step.number)
        return list(session.scalars(query))


# -- (a) takeback by consent -------------------------------------------------------------------


def test_takeback_offered_and_accepted_by_mail_undoes_the_move(database: Database) -> None:
    game_id, _, _ = make_game(database, options={"pile": "7"})
    before = pile(database, game_id)
    answer(database, ALICE, game_id, "take 2")
    assert game_row(database, game_id)["turn"] == 2
    row = answer(database, ALICE, game_id, "takeback")
    assert row.status == "processed" and "takeback offered" in (row.result or ""), row.result
    assert "offered to take back their last move" in text_of(latest(database, BOB, game_id))
    row = answer(database, BOB, game_id, "takeback accept")
    assert row.status == "processed" and "taken back" in (row.result or ""), row.result
    assert pile(database, game_id) == before  # the position before Alice's move
    assert game_row(database, game_id)["turn"] == 3 and moves(database, game_id) == []
    for address in (ALICE, BOB):  # every player is told
        assert mails(database, address, "takeback_news")
    assert "take 2" in text_of(latest(database, ALICE, game_id))
    answer(database, ALICE, game_id, "take 1")  # Alice moves again, as she likes
    assert moves(database, game_id) == ["take 1"]


def test_takeback_declined_by_mail_keeps_the_move(database: Database) -> None:
    game_id, _, _ = make_game(database, options={"pile": "7"})
    answer(database, ALICE, game_id, "take 2")
    answer(database, ALICE, game_id, "zurücknehmen")  # the German word works for anyone
    row = answer(database, BOB, game_id, "decline")  # a bare decline answers the takeback
    assert row.status == "processed" and "takeback declined" in (row.result or ""), row.result
    assert moves(database, game_id) == ["take 2"] and game_row(database, game_id)["turn"] == 2
    assert "declined the takeback" in text_of(latest(database, ALICE, game_id))


def test_takeback_after_the_opponent_moved_is_refused(database: Database) -> None:
    game_id, _, _ = make_game(database, options={"pile": "7"})
    answer(database, ALICE, game_id, "take 2")
    answer(database, BOB, game_id, "take 1")
    row = answer(database, ALICE, game_id, "takeback")
    assert row.status == "rejected", row.result
    assert "too late to take back your move: Bob" in (row.result or "") or "has moved since" in (
        row.result or ""
    ), row.result
    # an offer made in time lapses once a move is played after it
    answer(database, BOB, game_id, "takeback")
    answer(database, ALICE, game_id, "take 1")
    row = answer(database, ALICE, game_id, "takeback accept")
    assert row.status == "rejected" and "has lapsed" in (row.result or ""), row.result
    assert moves(database, game_id) == ["take 2", "take 1", "take 1"]


@pytest.mark.parametrize(
    ("name", "options", "first", "instead"),
    [
        ("countdown", {"pile": "7"}, "take 2", "take 1"),
        ("epaminondas", {}, "a1-a3", "a1-c3"),
        ("anti-grid", {}, "c1-c4", "c1-c3"),
    ],
)
def test_takeback_by_api_and_the_exported_record_verifies(
    database: Database,
    alice: Client,
    bob: Client,
    name: str,
    options: dict[str, str],
    first: str,
    instead: str,
) -> None:
    game_id, _, _ = make_game(database, name, options)
    alice.ok("POST", f"/games/{game_id}/moves", {"turn": 1, "text": first})
    refused = bob.request("POST", f"/games/{game_id}/takeback/accept")
    assert refused.status_code == 409 and refused.get_json()["error"]["code"] == "no_offer"
    offered = alice.ok("POST", f"/games/{game_id}/takeback/offer")["game"]
    assert offered["takeback_offer"] == 0
    game = bob.ok("POST", f"/games/{game_id}/takeback/accept")["game"]
    assert game["turn"] == 3 and game["to_act"] == [0] and game["takeback_offer"] is None
    alice.ok("POST", f"/games/{game_id}/moves", {"turn": 3, "text": instead})
    record = alice.ok("GET", f"/games/{game_id}/record")
    assert [link["kind"] for link in record["chain"]] == ["start", "move", "takeback", "move"]
    report = chain.verify(record)
    assert report.ok, report.lines
    assert [step["text"] for step in record["steps"]] == [instead]
    forged = {**record, "steps": [{"kind": "move", "seat": 0, "text": first}, *record["steps"]]}
    assert not chain.verify(forged).ok  # the record's steps must be the chain's
    links = record["chain"][:3]  # start, move, takeback: then the same takeback again
    data, prev = links[2]["data"], links[2]["hash"]
    again = {"n": 3, "prev": prev, "kind": "takeback", "data": data}
    again["hash"] = chain.link_hash(3, prev, "takeback", data)
    report = chain.verify({**record, "chain": [*links, again], "steps": []})
    assert "which is not the last step" in str(report.fault), report.lines


def test_a_record_with_a_takeback_imports(database: Database, alice: Client, bob: Client) -> None:
    game_id, _, _ = make_game(database, options={"pile": "7"})
    alice.ok("POST", f"/games/{game_id}/moves", {"turn": 1, "text": "take 2"})
    alice.ok("POST", f"/games/{game_id}/takeback/offer")
    bob.ok("POST", f"/games/{game_id}/takeback/accept")
    alice.ok("POST", f"/games/{game_id}/moves", {"turn": 3, "text": "take 1"})
    with database.transaction() as session:
        data = records.export(session, game_id)
        admin = session.scalars(select(Player).where(Player.name == "Ada Admin")).one()
        game = records.import_record(session, data, admin)
        assert (game.turn, game.state["pile"]) == (4, 6)
        assert chain.verify(records.export(session, game.id)).ok


def test_takeback_refused_in_sealed_games_and_games_with_dice(database: Database) -> None:
    for name in ("elasta", "elemento"):
        game_id, _, _ = make_game(database, name)
        row = answer(database, ALICE, game_id, "takeback")
        assert row.status == "rejected", row.result
        assert "has no takebacks" in (row.result or ""), row.result
    answer(database, ALICE, game_id, "Sprache de\nzurücknehmen")  # refused in German too
    said = " ".join(text_of(latest(database, ALICE, game_id)).split())
    assert "Elemento kennt keine Zugrücknahme" in said, said


# -- (b) send delay ----------------------------------------------------------------------------


def test_send_delay_holds_a_mailed_move_and_undo_cancels_it(
    database: Database, alice: Client
) -> None:
    game_id, _, _ = make_game(database, options={"pile": "7"})
    me = alice.ok("PATCH", "/players/me", {"send_delay_minutes": 5})["player"]
    assert me["send_delay_minutes"] == 5
    assert alice.request("PATCH", "/players/me", {"send_delay_minutes": -1}).status_code == 400
    row = answer(database, ALICE, game_id, "take 2")
    assert row.status == "processed", row.result
    assert "your move take 2 will be played at" in (row.result or "")
    assert "unless you reply 'undo'" in (row.result or "")
    receipt = " ".join(text_of(latest(database, ALICE, game_id)).split())
    assert "your move take 2 will be played at" in receipt, receipt
    assert moves(database, game_id) == [] and game_row(database, game_id)["turn"] == 1
    row = answer(database, ALICE, game_id, "undo")
    assert row.status == "processed" and "was cancelled" in (row.result or ""), row.result
    schedule.sweep(database, utcnow() + timedelta(minutes=10))
    assert moves(database, game_id) == []
    row = answer(database, ALICE, game_id, "undo")
    assert row.status == "rejected" and "no move held" in (row.result or ""), row.result


def test_send_delay_by_mail_then_the_sweep_plays_the_move_once(database: Database) -> None:
    game_id, _, _ = make_game(database, options={"pile": "7"})
    row = answer(database, ALICE, game_id, "delay 5")
    assert row.status == "processed" and "send delay set to 5 minutes" in (row.result or "")
    answer(database, ALICE, game_id, "take 2")
    schedule.sweep(database, utcnow() + timedelta(minutes=1))  # not due yet
    assert moves(database, game_id) == []
    later = utcnow() + timedelta(minutes=6)
    assert schedule.sweep(database, later)["held_moves"] == 1
    assert schedule.sweep(database, later)["held_moves"] == 0  # twice plays once
    assert moves(database, game_id) == ["take 2"] and game_row(database, game_id)["turn"] == 2
    with database.transaction() as session:
        [held] = session.scalars(select(HeldMove).where(HeldMove.game_id == game_id)).all()
        assert held.status == "played"
    assert "take 2" in text_of(latest(database, BOB, game_id))
