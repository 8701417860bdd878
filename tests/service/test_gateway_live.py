"""Integration: replies arrive at the real SMTP listener, real Celery worker processes read
them and mail the answers through the service's SMTP sender to a real SMTP sink.

The listener stores each message and queues its processing on the broker; nothing in this
process acts on a reply. Both players' reply addresses carry a signed token, and the worker
processes share the listener's secret through ``PBEM_SECRET_KEY``.
"""

from __future__ import annotations

from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest

from service.db import Database
from service.mail.addresses import AddressError, read_reply_address
from service.mail.models import InboundMessage
from service.mail.smtpd import Listener
from tests.service.gateway_kit import game_row, make_game, reply, text_of
from tests.service.live import live_database, live_env, wait_for, worker_processes
from tests.service.test_gateway_smtp import Sink, SinkController, smtp_send

pytestmark = pytest.mark.integration


@pytest.fixture
def sink() -> Iterator[tuple[Sink, int]]:
    handler = Sink()
    controller = SinkController(handler, hostname="127.0.0.1", port=0)
    controller.start()
    yield handler, controller.port
    controller.stop()


@pytest.fixture
def env(migrated: str, tmp_path: Path, sink: tuple[Sink, int]) -> dict[str, str]:
    return {
        **live_env(migrated, tmp_path / "var"),
        "PBEM_SMTP_HOST": "127.0.0.1",
        "PBEM_SMTP_PORT": str(sink[1]),
        "PBEM_SMTP_STARTTLS": "0",
        "PBEM_SECRET_KEY": "live-test-secret",
        "PBEM_SMTPD_CHECK_SENDERS": "0",  # unsigned replies: see test_sender_authentication
    }


@pytest.fixture
def live(env: dict[str, str]) -> Iterator[Database]:
    with live_database(env) as database:
        yield database


def test_workers_play_a_game_from_smtp_replies(
    live: Database, env: dict[str, str], sink: tuple[Sink, int]
) -> None:
    mailbox, _ = sink
    listener = Listener(live, "127.0.0.1", 0)
    listener.start()
    try:
        with worker_processes(env, count=2, beat=True):
            game_id, _, _ = make_game(live, options={"pile": "3"})
            moves = [("alice@example.org", "gmail"), ("bob@example.org", "outlook")]
            moves.append(("alice@example.org", "phone"))
            for number, (who, shape) in enumerate(moves, start=1):
                original: EmailMessage = wait_for(
                    lambda who=who, n=number: _mail_for_turn(mailbox, who, n), f"mail {who}"
                )
                to = str(original["Reply-To"])
                smtp_send(listener, reply(original, who, "take 1", shape=shape), who, to)
                wait_for(lambda n=number: _moved_on(live, game_id, n), "play the move")
            wait_for(lambda: game_row(live, game_id)["status"] == "finished", "end the game")
            bad = reply(mailbox.latest("bob@example.org"), "bob@example.org", "take 5")
            smtp_send(listener, bad, "bob@example.org", "play+zz@pbem.localhost")
            wait_for(lambda: _statuses(live).count("rejected") == 1, "refuse a forged token")
            over = wait_for(
                lambda: _subject_with(mailbox, "alice@example.org", "over"), "mail game over"
            )
    finally:
        listener.stop()
    assert "took the last stone" in text_of(over)
    assert _statuses(live) == ["processed"] * 3 + ["rejected"]


def _mail_for_turn(mailbox: Sink, who: str, turn: int) -> EmailMessage | None:
    """The latest mail to ``who`` whose reply address names turn ``turn``."""
    for mail in reversed(mailbox.all(who)):
        address = str(mail["Reply-To"] or "")
        try:
            token = read_reply_address("live-test-secret", "pbem.localhost", address)
        except AddressError:
            continue
        if token.turn == turn:
            return mail
    return None


def _subject_with(mailbox: Sink, who: str, word: str) -> EmailMessage | None:
    return next((m for m in mailbox.all(who) if word in str(m["Subject"]).lower()), None)


def _statuses(database: Database) -> list[str]:
    from sqlalchemy import select

    with database.transaction() as session:
        query = select(InboundMessage.status).order_by(InboundMessage.id)
        return list(session.scalars(query))


def _moved_on(database: Database, game_id: int, turn: int) -> bool:
    row = game_row(database, game_id)
    return bool(row["turn"] > turn or row["status"] == "finished")
