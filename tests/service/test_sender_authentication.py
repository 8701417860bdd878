"""Sender authentication (``service/mail/authentication.py``): a forged From with the
player's valid reply address is refused, with the answer going to the player's registered
address; the genuine player's DKIM-signed reply is played. Direct mail goes through the real
SMTP listener on loopback; DKIM keys come from a local table instead of DNS."""

from __future__ import annotations

import smtplib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dkim
import pytest
from sqlalchemy import select

from service import db, players
from service.db import Database
from service.mail import authentication, gateway
from service.mail.models import InboundMessage
from service.mail.smtpd import Listener
from service.models import Player
from tests.service.conftest import emptied, make_settings, run_inline
from tests.service.gateway_kit import (
    current_address,
    dkim_key,
    game_row,
    latest,
    mails,
    make_game,
    reply,
    text_of,
)

ALICE, BOB = "alice@example.org", "bob@example.org"
TRUSTED = "mx.pbem.test"
SELECTOR = b"mail"


GENUINE, GENUINE_RECORD = dkim_key()
FORGER, _ = dkim_key()


@pytest.fixture(autouse=True)
def local_dns(monkeypatch: pytest.MonkeyPatch) -> None:
    """example.org publishes the genuine key under selector ``mail``; nothing else exists."""

    def txt(name: Any, timeout: int = 5) -> bytes | None:
        wanted = b"mail._domainkey.example.org."
        given = name if isinstance(name, bytes) else str(name).encode()
        return GENUINE_RECORD if given.rstrip(b".") + b"." == wanted else None

    monkeypatch.setattr(authentication, "dns_txt", txt)


def _crlf(raw: bytes) -> bytes:
    return raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def signed(raw: bytes, key: bytes, domain: bytes = b"example.org") -> bytes:
    raw = _crlf(raw)
    headers = [b"from", b"to", b"subject", b"message-id", b"date"]
    return dkim.sign(raw, SELECTOR, domain, key, include_headers=headers) + raw


def _database(migrated: str, tmp_path: Path, **extra: str) -> Database:
    settings = make_settings(migrated, tmp_path / "var", **extra)
    database = db.configure(settings, dispatch=run_inline)
    emptied(database)
    return database


@pytest.fixture
def trusting(migrated: str, tmp_path: Path) -> Iterator[Database]:
    database = _database(migrated, tmp_path, PBEM_TRUSTED_AUTHSERV_IDS=f"{TRUSTED}, other.test")
    yield database
    database.engine.dispose()


@pytest.fixture
def listening(migrated: str, tmp_path: Path) -> Iterator[tuple[Database, Listener]]:
    database = _database(migrated, tmp_path)
    listener = Listener(database, "127.0.0.1", 0)
    listener.start()
    yield database, listener
    listener.stop()
    database.engine.dispose()


def _move(database: Database, game_id: int, alice: int, typed: str = "take 1") -> bytes:
    """Alice's reply to her game's current reply address, from her own address."""
    return reply(None, ALICE, typed, to=current_address(database, game_id, alice))


def _last_inbound(database: Database) -> InboundMessage:
    with database.transaction() as session:
        row = session.scalars(select(InboundMessage).order_by(InboundMessage.id.desc())).first()
        assert row is not None
        return row


def _held_for_alice(database: Database, words: str) -> None:
    """Nothing vouched either way: held, and only Alice's own mailbox is asked to confirm."""
    row = _last_inbound(database)
    assert row.status == "held" and words in (row.result or ""), row.result
    assert mails(database, ALICE, "confirm_reply")
    assert not mails(database, "forger@evil.test")


def _refused_to_alice(database: Database, words: str) -> None:
    row = _last_inbound(database)
    assert row.status == "rejected" and words in (row.result or ""), row.result
    assert mails(database, ALICE, "error_reply")
    answer = latest(database, ALICE)
    assert "error" in str(answer["Subject"]) or "could not use" in str(answer["Subject"])
    assert words in " ".join(text_of(answer).split())
    assert not mails(database, "forger@evil.test")


# -- the receiving server's verdict ---------------------------------------------------------


def _with_results(raw: bytes, *headers: str) -> bytes:
    return "".join(f"Authentication-Results: {h}\r\n" for h in headers).encode() + _crlf(raw)


def test_a_forged_from_is_refused_when_our_trusted_server_says_dmarc_failed(
    trusting: Database,
) -> None:
    game_id, alice, _ = make_game(trusting, options={"pile": "7"})
    forged = _with_results(
        _move(trusting, game_id, alice),
        f"{TRUSTED}; spf=fail smtp.mailfrom=evil.test; dmarc=fail header.from=example.org",
        "evil.test; dmarc=pass header.from=example.org",  # below ours, from nobody we trust
    )
    gateway.receive(trusting, forged, "inject")
    assert game_row(trusting, game_id)["turn"] == 1
    _refused_to_alice(trusting, "DMARC failed for example.org")


def test_without_dmarc_an_aligned_spf_or_dkim_pass_is_enough_else_the_reply_is_held(
    trusting: Database,
) -> None:
    game_id, alice, _ = make_game(trusting, options={"pile": "7"})
    unaligned = _with_results(
        _move(trusting, game_id, alice), f"{TRUSTED}; spf=pass smtp.mailfrom=evil.test"
    )
    gateway.receive(trusting, unaligned, "inject")
    assert game_row(trusting, game_id)["turn"] == 1
    _held_for_alice(trusting, "no DMARC pass and no SPF or DKIM pass for example.org")
    aligned = _with_results(
        _move(trusting, game_id, alice, "take 2"),
        f"{TRUSTED}; spf=pass smtp.mailfrom=alice@example.org; dmarc=none",
    )
    gateway.receive(trusting, aligned, "inject")
    assert game_row(trusting, game_id)["turn"] == 2


def test_an_spf_or_dkim_fail_of_the_from_domain_without_a_pass_is_refused_not_held(
    trusting: Database,
) -> None:
    game_id, alice, _ = make_game(trusting, options={"pile": "7"})
    for n, verdict in enumerate(
        ("spf=fail smtp.mailfrom=alice@example.org", "dkim=fail header.d=example.org"), 1
    ):
        failed = _with_results(_move(trusting, game_id, alice), f"{TRUSTED}; {verdict}")
        gateway.receive(trusting, failed, "inject")
        assert game_row(trusting, game_id)["turn"] == 1
        _refused_to_alice(trusting, "failed for example.org")
        assert len(mails(trusting, ALICE, "error_reply")) == n
    assert not mails(trusting, ALICE, "confirm_reply")


def test_a_dmarc_pass_from_the_trusted_server_plays_the_move(trusting: Database) -> None:
    game_id, alice, _ = make_game(trusting, options={"pile": "7"})
    genuine = _with_results(
        _move(trusting, game_id, alice), f"{TRUSTED}; dmarc=pass header.from=example.org"
    )
    gateway.receive(trusting, genuine, "inject")
    assert _last_inbound(trusting).status == "processed"
    assert game_row(trusting, game_id)["turn"] == 2


# -- our own listener: DKIM and the envelope sender -----------------------------------------


def _send(listener: Listener, raw: bytes, envelope_from: str, to: str) -> None:
    with smtplib.SMTP(listener.hostname, listener.port, timeout=60) as client:
        client.sendmail(envelope_from, [to], raw)


def test_the_genuine_players_dkim_signed_reply_is_played(
    listening: tuple[Database, Listener],
) -> None:
    database, listener = listening
    game_id, alice, _ = make_game(database, options={"pile": "7"})
    to = current_address(database, game_id, alice)
    _send(listener, signed(_move(database, game_id, alice), GENUINE), ALICE, to)
    assert _last_inbound(database).envelope_from == ALICE
    assert _last_inbound(database).status == "processed"
    assert game_row(database, game_id)["turn"] == 2


def test_a_forged_from_whose_dkim_does_not_verify_is_refused_and_an_unsigned_one_held(
    listening: tuple[Database, Listener],
) -> None:
    database, listener = listening
    game_id, alice, _ = make_game(database, options={"pile": "7"})
    to = current_address(database, game_id, alice)
    _send(listener, signed(_move(database, game_id, alice), FORGER), ALICE, to)
    assert game_row(database, game_id)["turn"] == 1
    _refused_to_alice(database, "the DKIM signature of example.org does not verify")
    _send(listener, _crlf(_move(database, game_id, alice, "take 2")), ALICE, to)
    assert game_row(database, game_id)["turn"] == 1
    _held_for_alice(database, "carries no DKIM signature of example.org")


def test_a_genuine_signature_from_a_foreign_envelope_sender_is_refused(
    listening: tuple[Database, Listener],
) -> None:
    database, listener = listening
    game_id, alice, _ = make_game(database, options={"pile": "7"})
    to = current_address(database, game_id, alice)
    _send(listener, signed(_move(database, game_id, alice), GENUINE), "forger@evil.test", to)
    assert game_row(database, game_id)["turn"] == 1
    _refused_to_alice(database, "the envelope sender (forger@evil.test) is not of example.org")


def test_a_forwarded_address_the_player_named_is_not_checked(
    listening: tuple[Database, Listener],
) -> None:
    database, listener = listening
    game_id, alice, _ = make_game(database, options={"pile": "7"})
    with database.transaction() as session:
        player = session.get_one(Player, alice)
        players.update(session, player, {"forwarded_addresses": [ALICE]})
        assert players.to_json(player, private=True)["forwarded_addresses"] == [ALICE]
    to = current_address(database, game_id, alice)
    _send(listener, _crlf(_move(database, game_id, alice)), "list-bounces@forwarder.test", to)
    assert game_row(database, game_id)["turn"] == 2


def test_a_reply_from_another_address_to_a_players_reply_address_is_never_played(
    listening: tuple[Database, Listener],
) -> None:
    database, _ = listening
    game_id, alice, _ = make_game(database, options={"pile": "7"})
    to = current_address(database, game_id, alice)
    for sender in (BOB, "alice@example.org.evil.test", "someone@example.org"):
        raw = reply(None, sender, "take 1", to=to)
        gateway.receive(database, raw, "inject")
        assert game_row(database, game_id)["turn"] == 1
        assert _last_inbound(database).status == "rejected"


def test_alignment_is_relaxed_but_not_loose() -> None:
    assert authentication.aligned("example.org", "example.org")
    assert authentication.aligned("mail.example.org", "example.org")
    assert authentication.aligned("example.org", "eu.example.org")
    assert not authentication.aligned("example.org.evil.test", "example.org")
    assert not authentication.aligned("evilexample.org", "example.org")
    assert not authentication.aligned("org", "example.org")
    assert not authentication.aligned("", "example.org")


@pytest.mark.parametrize(
    ("language", "dmarc", "spf"),
    [
        (
            "de",
            "DMARC ist für example.org fehlgeschlagen (laut Prüfung durch mx.pbem.test): das"
            " From ist gefälscht",
            "SPF ist für example.org fehlgeschlagen (laut Prüfung durch mx.pbem.test): das"
            " From ist gefälscht",
        ),
        (
            "pl",
            "DMARC nie powiódł się dla example.org (według sprawdzenia przez mx.pbem.test):"
            " From jest sfałszowany",
            "SPF nie powiódł się dla example.org (według sprawdzenia przez mx.pbem.test):"
            " From jest sfałszowany",
        ),
    ],
)
def test_the_checks_reason_is_in_the_players_language(
    trusting: Database, language: str, dmarc: str, spf: str
) -> None:
    """Issue 24: the reason the check gives, inside the failed-authentication answer, is in
    the player's language too; the stored result keeps the English."""
    game_id, alice, _ = make_game(trusting, options={"pile": "7"})
    with trusting.transaction() as session:
        session.get_one(Player, alice).language = language
    for header, said, english in (
        (f"{TRUSTED}; dmarc=fail header.from=example.org", dmarc, "DMARC failed for"),
        (f"{TRUSTED}; spf=fail smtp.mailfrom=example.org", spf, "SPF failed for"),
    ):
        gateway.receive(trusting, _with_results(_move(trusting, game_id, alice), header), "inject")
        assert english in (_last_inbound(trusting).result or "")
        answer = " ".join(text_of(latest(trusting, ALICE)).split())
        assert said in answer, answer
        assert "failed for" not in answer and "forged" not in answer
