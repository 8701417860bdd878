"""Issue 23: the inbound path, made faster, does what it did. A worker's reply costs few round
trips of the gateway's own (the attempt counted in one statement; the reply's row written
once with its sender, game and player, once with its result), and a crash still keeps the
sender with the raw mail."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import event

from service import games
from service.db import Database
from service.mail import gateway
from service.mail.models import RECEIVED, InboundMessage
from tests.service.gateway_kit import game_row, inbound, latest, make_game, reply

ALICE = "alice@example.org"


def stored(database: Database, raw: bytes) -> int:
    """The message stored as ``receive`` stores it, its processing not queued (run below)."""
    with database.transaction() as session:
        row = InboundMessage(
            dedup_key=gateway.dedup_key(raw),
            content_hash=hashlib.sha256(raw).hexdigest(),
            raw=raw,
            channel="inject",
            status=RECEIVED,
            attempts=0,
        )
        session.add(row)
        session.flush()
        return row.id


@contextmanager
def statements(database: Database) -> Iterator[list[str]]:
    seen: list[str] = []

    def note(_conn: object, _cursor: object, statement: str, *_rest: object) -> None:
        if not statement.startswith("BEGIN"):  # SQLite's own BEGIN IMMEDIATE, not a query
            seen.append(" ".join(statement.split()))

    event.listen(database.engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(database.engine, "before_cursor_execute", note)


def test_an_attempt_is_counted_in_one_statement(database: Database) -> None:
    game_id, _, _ = make_game(database)
    inbound_id = stored(database, reply(latest(database, ALICE, game_id), ALICE, "take 1"))
    with statements(database) as seen:
        assert gateway._count_attempt(database, inbound_id, gateway.utcnow()) == RECEIVED
    assert len(seen) == 1 and seen[0].startswith("UPDATE inbound_messages SET attempts")
    assert inbound(database, inbound_id).attempts == 1


def test_a_move_by_mail_writes_its_row_three_times(database: Database) -> None:
    game_id, _, _ = make_game(database)
    inbound_id = stored(database, reply(latest(database, ALICE, game_id), ALICE, "take 1"))
    with statements(database) as seen:
        assert gateway.process(database, inbound_id) == "processed"
    writes = [s for s in seen if s.startswith("UPDATE inbound_messages")]
    assert len(writes) == 3, writes  # the attempt; sender, game and player; the result
    assert "sender" in writes[1] and "game_id" in writes[1] and "player_id" in writes[1]
    row = inbound(database, inbound_id)
    assert (row.sender, row.game_id, row.attempts) == (ALICE, game_id, 1)
    assert game_row(database, game_id)["turn"] == 2


def test_a_crash_keeps_the_sender_with_the_raw_mail(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, _, _ = make_game(database)

    def explode(*args: object, **kwargs: object) -> object:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(games, "submit", explode)
    inbound_id = stored(database, reply(latest(database, ALICE, game_id), ALICE, "take 1"))
    assert gateway.process(database, inbound_id) == "failed"
    row = inbound(database, inbound_id)
    assert row.sender == ALICE and row.game_id is None and "disk on fire" in (row.result or "")
