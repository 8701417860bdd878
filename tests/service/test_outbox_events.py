"""Issue 23: the transaction writes what to send, the send task renders it after commit; a
mail shows the position of its own event, however late it is rendered, and a retry sends the
bytes of the first render."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import event, select

from service import db, games, notify
from service.db import Database
from service.models import Outbox
from tests.service.conftest import Client
from tests.service.mails import readable
from tests.service.test_api import start
from tests.service.test_secrecy import VOLATILE

SENT: list[bytes] = []


def failing_sender(*args: Any) -> None:
    raise ConnectionError("mail server unreachable")


def keeping_sender(settings: Any, row: Outbox, mail: Any) -> None:
    SENT.append(bytes(mail))


def rows(database: Database, kind: str) -> list[Outbox]:
    with database.transaction() as session:
        return list(session.scalars(select(Outbox).where(Outbox.kind == kind).order_by(Outbox.id)))


def test_issue_23_a_mail_rendered_after_later_moves_shows_its_own_move(
    database: Database, alice: Client, bob: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = start(alice, bob, "countdown")
    path = f"/games/{game['id']}/moves"
    with monkeypatch.context() as unsent:  # the send tasks wait (a busy worker)
        unsent.setattr(notify, "send", lambda *args, **kwargs: None)
        unsent.setattr(notify, "send_many", lambda *args, **kwargs: 0)
        alice.ok("POST", path, {"turn": 1, "text": "take 2"})
        first = rows(database, "opponent_moved")
        assert [row.body for row in first] == [""], "nothing is rendered in the transaction"
        bob.ok("POST", path, {"turn": 2, "text": "take 1"})
        alice.ok("POST", path, {"turn": 3, "text": "take 1"})
    ids = [row.id for row in rows(database, "opponent_moved")]
    assert len(ids) == 3
    assert notify.send_many(database, ids) == 3
    mails = {row.id: readable(row) for row in rows(database, "opponent_moved")}
    own = mails[first[0].id]
    assert "Last move (turn 1)" in own and "\nooooo\n" in own  # 7 - 2 left after its move
    assert "Last move (turn 3)" not in own and "Last move (turn 2)" not in own
    last = mails[ids[-1]]
    assert "Last move (turn 3)" in last and "\nooo\n" in last


def test_issue_23_a_retry_after_a_failed_send_sends_the_same_bytes(
    database: Database, alice: Client, bob: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = database.settings
    broken = type(settings)(**{**settings.__dict__, "mail_sender": f"{__name__}:failing_sender"})
    keeping = type(settings)(**{**settings.__dict__, "mail_sender": f"{__name__}:keeping_sender"})
    game = start(alice, bob, "countdown")
    with monkeypatch.context() as unsent:
        unsent.setattr(notify, "send", lambda *args, **kwargs: None)
        unsent.setattr(notify, "send_many", lambda *args, **kwargs: 0)
        alice.ok("POST", f"/games/{game['id']}/moves", {"turn": 1, "text": "take 2"})
    row_id = rows(database, "opponent_moved")[0].id
    with database.transaction() as session:
        assert notify.send(session, broken, row_id) is not None
    failed = rows(database, "opponent_moved")[0]
    assert failed.sent_at is None and failed.attempts == 1 and failed.body
    # the game moves on before the retry: the retry still sends what the first try made
    bob.ok("POST", f"/games/{game['id']}/moves", {"turn": 2, "text": "take 1"})
    SENT.clear()
    with database.transaction() as session:
        assert notify.send(session, keeping, row_id) is None
    again = rows(database, "opponent_moved")[0]
    assert again.sent_at is not None and again.body == failed.body
    assert again.subject == failed.subject
    assert len(SENT) == 1
    assert SENT[0] == bytes(notify.message(failed))
    with database.transaction() as session:  # sent: a task run twice sends nothing more
        assert notify.send(session, keeping, row_id) is None
    assert len(SENT) == 1


def test_issue_23_one_event_stores_one_scene_for_its_readers_and_no_drawn_view(
    database: Database, alice: Client, bob: Client
) -> None:
    """The transaction keeps the event's scene (engine state and facts), the same value for
    every reader, and each reader's seat; the views themselves are drawn at render."""
    game = start(alice, bob)
    alice.ok("POST", f"/games/{game['id']}/moves", {"turn": 1, "text": "3"})
    bob.ok("POST", f"/games/{game['id']}/moves", {"turn": 1, "text": "1"})
    resolved = rows(database, "turn_resolved")
    assert len(resolved) == 2
    first, second = (row.position for row in resolved)
    assert first["scene"] == second["scene"] and first["scene"]["turn"] == 2
    assert {first["seat"], second["seat"]} == {0, 1}
    assert "ascii" not in json.dumps(first), "no reader's board is drawn in the transaction"
    assert all("Turn 1" in readable(row) for row in resolved)


def draw_news_to_bob(
    database: Database, alice: Client, bob: Client, order: str, monkeypatch: pytest.MonkeyPatch
) -> str:
    """Bob's mail of Alice's draw offer, made while her sealed order stands, rendered after
    the turn resolved (its scene holds her order: the engine state of the event)."""
    game = start(alice, bob)
    path = f"/games/{game['id']}"
    with monkeypatch.context() as unsent:
        unsent.setattr(notify, "send", lambda *args, **kwargs: None)
        unsent.setattr(notify, "send_many", lambda *args, **kwargs: 0)
        alice.ok("POST", path + "/moves", {"turn": 1, "text": order})
        alice.ok("POST", path + "/draw/offer", {})
        news = [row for row in rows(database, "draw_news") if row.game_id == game["id"]]
        assert len(news) == 1 and news[0].player_id == bob.id and not news[0].body
        bob.ok("POST", path + "/moves", {"turn": 1, "text": "1"})
    assert notify.send_many(database, [news[0].id]) == 1
    with database.transaction() as session:
        row = session.get(Outbox, news[0].id)
        assert row is not None
        return VOLATILE.sub("~", readable(row))


def test_issue_23_a_view_drawn_after_commit_keeps_sealed_orders_sealed(
    database: Database, alice: Client, bob: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Secrecy at render time: the opponent's mail of a moment when Alice's orders stood
    reads the same whatever she ordered, though it is drawn after the turn resolved."""
    three = draw_news_to_bob(database, alice, bob, "3", monkeypatch)
    two = draw_news_to_bob(database, alice, bob, "2", monkeypatch)
    assert three == two
    assert "No move has been played yet." in three and "offers a draw" in three  # its moment


def test_issue_23_a_batch_writes_no_mail_twice_and_reads_no_key_to_know_it(
    database: Database, alice: Client, bob: Client
) -> None:
    """A mail's key makes it once only: written again in a batch (every seat's mail of an
    event), the INSERT skips the keys the outbox holds (``ON CONFLICT DO NOTHING``) rather
    than looking each key up first, and no send task is queued for them."""
    game = start(alice, bob)
    before = [row.id for row in rows(database, "game_started")]
    assert len(before) == 2
    statements: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
        statements.append(statement)

    with database.transaction() as session:
        found = games.get(session, game["id"])
        event.listen(database.engine, "before_cursor_execute", record)
        try:
            notify.started(session, found)
        finally:
            event.remove(database.engine, "before_cursor_execute", record)
        assert db.work_of(session).queued == []
    assert [row.id for row in rows(database, "game_started")] == before
    assert not [text for text in statements if "FROM outbox" in text]
    assert len([text for text in statements if "INSERT INTO outbox" in text]) == 1
