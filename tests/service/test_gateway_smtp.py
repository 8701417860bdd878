"""Integration: the real SMTP listener and a real SMTP sink (both aiosmtpd) on loopback.

Players get their mail from the sink, as the service's SMTP sender delivered it, and answer
with ``smtplib`` to the Reply-To, as their mail client would: Gmail, Outlook, Apple Mail, a
phone, HTML only and Latin-1. A whole alternating game and a whole sealed game are played.
"""

from __future__ import annotations

import email
import email.policy
import smtplib
import threading
from collections.abc import Iterator
from dataclasses import replace
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from service import db
from service.db import Database
from service.mail.smtpd import Listener
from tests.service.conftest import emptied, make_settings, run_inline
from tests.service.gateway_kit import game_row, make_game, reply, text_of, with_attachment

pytestmark = pytest.mark.integration


class Sink:
    """aiosmtpd handler that keeps every delivered message."""

    def __init__(self) -> None:
        self.messages: list[tuple[list[str], bytes]] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self.lock:
            self.messages.append((list(envelope.rcpt_tos), bytes(envelope.original_content)))
        return "250 OK"

    def latest(self, address: str) -> EmailMessage:
        with self.lock:
            found = [raw for rcpts, raw in self.messages if address in rcpts]
        assert found, f"no mail delivered to {address}"
        parsed = email.message_from_bytes(found[-1], policy=email.policy.default)
        assert isinstance(parsed, EmailMessage)
        return parsed

    def all(self, address: str) -> list[EmailMessage]:
        with self.lock:
            found = [raw for rcpts, raw in self.messages if address in rcpts]
        return [
            email.message_from_bytes(raw, _class=EmailMessage, policy=email.policy.default)
            for raw in found
        ]


class SinkController(Controller):
    def _trigger_server(self) -> None:
        server: Any = self.server
        if self.port == 0:
            self.port = server.sockets[0].getsockname()[1]
        super()._trigger_server()  # type: ignore[no-untyped-call]


@pytest.fixture
def sink() -> Iterator[Sink]:
    handler = Sink()
    controller = SinkController(handler, hostname="127.0.0.1", port=0)
    controller.start()
    handler.port = controller.port  # type: ignore[attr-defined]
    yield handler
    controller.stop()


@pytest.fixture
def wired(migrated: str, tmp_path: Path, sink: Sink) -> Iterator[tuple[Database, Listener]]:
    """The database with tasks inline, mail sent to the sink, and the listener on a free port."""
    settings = make_settings(
        migrated,
        tmp_path / "var",
        PBEM_SMTP_HOST="127.0.0.1",
        PBEM_SMTP_PORT=str(sink.port),  # type: ignore[attr-defined]
        PBEM_SMTP_STARTTLS="0",
        PBEM_INBOUND_MAX_BYTES=str(20 * 1024 * 1024),
        PBEM_SMTPD_CHECK_SENDERS="0",  # these clients do not sign: test_sender_authentication
    )
    database = db.configure(settings, dispatch=run_inline)
    emptied(database)
    listener = Listener(database, "127.0.0.1", 0)
    listener.start()
    yield database, listener
    listener.stop()
    database.engine.dispose()


def smtp_send(listener: Listener, raw: bytes, sender: str, to: str) -> None:
    with smtplib.SMTP(listener.hostname, listener.port, timeout=60) as client:
        client.sendmail(sender, [to], raw)


def answer(sink: Sink, listener: Listener, who: str, typed: str, shape: str) -> EmailMessage:
    """``who`` replies to their latest mail through the listener; returns what they replied to."""
    original = sink.latest(who)
    raw = reply(original, who, typed, shape=shape)
    smtp_send(listener, raw, who, str(original["Reply-To"]))
    return original


def test_a_whole_alternating_game_by_mail(sink: Sink, wired: tuple[Database, Listener]) -> None:
    database, listener = wired
    game_id, _, _ = make_game(database, options={"pile": "7"})
    plays = [
        ("alice@example.org", "take 2", "gmail"),
        ("bob@example.org", "take 1", "outlook"),
        ("alice@example.org", "take 2", "apple"),
        ("bob@example.org", "take 1", "phone"),
        ("alice@example.org", "take 1", "html"),
    ]
    for who, typed, shape in plays:
        answer(sink, listener, who, typed, shape)
    assert game_row(database, game_id)["status"] == "finished"
    over = sink.latest("bob@example.org")
    assert "took the last stone" in text_of(over)
    assert str(over["In-Reply-To"]) or str(over["References"])


def test_a_whole_sealed_game_by_mail(sink: Sink, wired: tuple[Database, Listener]) -> None:
    database, listener = wired
    game_id, _, _ = make_game(database, "duel")
    shapes = iter(["latin1", "gmail", "outlook", "apple", "phone", "html", "plain", "gmail"])
    while game_row(database, game_id)["status"] == "active":
        answer(sink, listener, "alice@example.org", "3", next(shapes))
        receipt = sink.latest("alice@example.org")
        # The first reply, in the latin1 shape, signs off "Viele Grüße": Alice is German from
        # then on (issue 24), and so are her receipts.
        assert "Befehle für Runde" in str(receipt["Subject"])
        answer(sink, listener, "bob@example.org", "1", next(shapes))
    subjects = [str(mail["Subject"]) for mail in sink.all("bob@example.org")]
    assert any("over" in subject.lower() for subject in subjects), subjects


def test_the_listener_is_no_open_relay(sink: Sink, wired: tuple[Database, Listener]) -> None:
    _, listener = wired
    with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        smtp_send(listener, b"Subject: hi\r\n\r\nhello\r\n", "a@example.org", "b@example.com")
    code, text = refused.value.recipients["b@example.com"]
    assert code == 550 and b"relay" in text


def test_the_listener_refuses_oversized_mail(sink: Sink, wired: tuple[Database, Listener]) -> None:
    database, _ = wired
    small = replace(database.settings, inbound_max_bytes=100_000)
    listener = Listener(db.Database(small, run_inline), "127.0.0.1", 0)
    listener.start()
    try:
        raw = with_attachment("alice@example.org", "play+x@pbem.localhost", "take 1", 200_000)
        with pytest.raises(smtplib.SMTPSenderRefused) as refused:
            smtp_send(listener, raw, "alice@example.org", "play+x@pbem.localhost")
        assert refused.value.smtp_code == 552
        with smtplib.SMTP(listener.hostname, listener.port) as client:
            client.ehlo()
            assert client.has_extn("size") and client.esmtp_features["size"] == "100000"
            client.mail("alice@example.org")
            client.rcpt("play+x@pbem.localhost")
            code, _ = client.data(raw)
        assert code == 552
    finally:
        listener.stop()


def test_a_ten_megabyte_attachment_still_plays(
    sink: Sink, wired: tuple[Database, Listener]
) -> None:
    database, listener = wired
    game_id, _, _ = make_game(database)
    original = sink.latest("alice@example.org")
    to = str(original["Reply-To"])
    smtp_send(listener, with_attachment("alice@example.org", to, "take 1", 10_000_000), "a@x", to)
    assert game_row(database, game_id)["turn"] == 2
