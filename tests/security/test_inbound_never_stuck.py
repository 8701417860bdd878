"""Finding 3: no inbound message can be stuck. A reply holding NUL or a lone surrogate
anywhere (typed, made by a charset, in a header) is read, stored and answered; a message whose
work cannot be committed is marked failed and its player told; one that kills its worker is
failed after ``MAX_ATTEMPTS``, counted in ``/metrics`` and listed by ``pbem mail status``.

The NUL cases fail on PostgreSQL without the cleaning (its text and JSON columns refuse NUL),
so CI runs this file there too."""

from __future__ import annotations

import base64
import random
from datetime import timedelta
from email.message import EmailMessage

import pytest
from click.testing import CliRunner
from flask import Flask
from sqlalchemy import func, select
from sqlalchemy.exc import DataError

from service.cli import main
from service.config import Settings
from service.db import Database
from service.mail import authentication, gateway
from service.mail.models import FAILED, RECEIVED, InboundMessage
from service.models import utcnow
from tests.service.conftest import TOYS
from tests.service.gateway_kit import (
    SHAPES,
    current_address,
    inbound,
    latest,
    mails,
    make_game,
    reply,
    text_of,
)
from tests.service.test_mime_fuzz import _crlf

ALICE = "alice@example.org"
STORED = ("processed", "rejected", "ignored")


@pytest.fixture(autouse=True)
def no_dns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(authentication, "dns_txt", lambda name, timeout=5: None)


def alices_reply(database: Database, typed: str = "take 1") -> bytes:
    game_id, alice, _ = make_game(database, options={"pile": "15"})
    return _crlf(reply(None, ALICE, typed, to=current_address(database, game_id, alice)))


def deliver(database: Database, raw: bytes) -> InboundMessage:
    received = gateway.receive(database, raw, "inject", ())
    gateway.process(database, received.id)
    return inbound(database, received.id)


def with_body(raw: bytes, body: bytes, headers: bytes = b"") -> bytes:
    head, _, _ = raw.partition(b"\r\n\r\n")
    return headers + head + b"\r\n\r\n" + body


def nul_replies(raw: bytes) -> dict[str, bytes]:
    """The shapes the audit sent, each a reply by Alice to her own reply address."""
    head = raw.partition(b"\r\n\r\n")[0]
    plain = head.replace(b"Content-Transfer-Encoding: base64", b"Content-Transfer-Encoding: 8bit")
    b64 = base64.encodebytes(b"board\r\nhi\x00there\r\n")
    return {
        "typed NUL": with_body(plain, b"board\r\nhi\x00there\r\n"),
        "NUL decoded from base64": with_body(raw, b64),
        "NUL decoded from quoted-printable": with_body(
            plain.replace(b"8bit", b"quoted-printable"), b"take 1=00\r\n"
        ),
        "NUL from a UTF-16 charset": with_body(
            plain.replace(b'charset="utf-8"', b'charset="utf-16-le"'),
            "take 1\r\n".encode("utf-16-le"),
        ),
        "undecodable bytes (lone surrogates)": with_body(plain, b"take 1 \xff\xfe\xed\xa0\x80\r\n"),
        "NUL in the Subject": raw.replace(b"Subject: ", b"Subject: \x00", 1),
        "NUL in the Message-ID": raw.replace(b"Message-ID: <", b"Message-ID: <\x00", 1),
        "lone surrogate bytes in From's name": raw.replace(
            b"From: ", b"From: J\xf6rg <", 1
        ).replace(b"example.org\r\nTo:", b"example.org>\r\nTo:", 1),
        "NUL in a header of its own": with_body(raw, b"take 1\r\n", b"X-Note: a\x00b\r\n"),
    }


def test_a_reply_with_nul_or_lone_surrogates_is_stored_and_answered(database: Database) -> None:
    for name, raw in nul_replies(alices_reply(database)).items():
        row = deliver(database, raw)
        assert (row.status, row.attempts) in {(s, 1) for s in STORED}, (name, row.result)
        assert "\x00" not in (row.result or "") and "\x00" not in (row.sender or "")


@pytest.mark.parametrize("poison", [b"\x00", b"\xff\xfe", b"\xed\xa0\x80"])
def test_poison_in_every_header_is_stored_and_answered(database: Database, poison: bytes) -> None:
    raw = alices_reply(database)
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    for index, line in enumerate(lines):
        name, colon, value = line.partition(b":")
        poisoned = [*lines[:index], name + colon + b" " + poison + value, *lines[index + 1 :]]
        unique = b"\r\n".join(poisoned).replace(b"Message-ID: <", f"Message-ID: <{index}.".encode())
        try:
            row = deliver(database, unique + b"\r\n\r\n" + body)
        except gateway.ServiceError:  # refused at the door, nothing stored: fine too
            continue
        assert (row.status, row.attempts) in {(s, 1) for s in STORED}, (name, row.result)


@pytest.mark.parametrize("shape", SHAPES)
def test_a_nul_typed_in_any_clients_reply_is_dropped_and_the_move_played(
    database: Database, shape: str
) -> None:
    game_id, alice, _ = make_game(database, options={"pile": "15"})
    raw = reply(
        None, ALICE, "take\x00 1", to=current_address(database, game_id, alice), shape=shape
    )
    row = deliver(database, raw)
    assert row.status == "processed", row.result


def test_a_typed_nul_is_dropped_and_the_move_on_its_line_is_played(database: Database) -> None:
    raw = alices_reply(database)
    row = deliver(database, with_body(raw.partition(b"\r\n\r\n")[0], b"take\x00 1\r\n"))
    assert row.status == "processed", row.result


def test_a_work_commit_that_fails_marks_the_row_failed_and_tells_the_player(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = alices_reply(database)

    def commit_fails(*args: object) -> None:
        raise DataError("UPDATE inbound_messages", {}, ValueError("a value the database refused"))

    monkeypatch.setattr(gateway, "_work", commit_fails)
    row = deliver(database, raw)
    assert (row.status, row.attempts) == (FAILED, 1)
    assert "refused" in (row.result or "")
    assert "went wrong on our side" in text_of(latest(database, ALICE))


def test_a_message_that_kills_its_worker_fails_after_max_attempts(
    database: Database, app: Flask, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = alices_reply(database)
    monkeypatch.setattr(database, "dispatch", lambda name, args: None)  # the worker runs it
    received = gateway.receive(database, raw, "inject", ())

    def killed(*args: object) -> None:
        raise SystemExit("the worker was killed")  # not an Exception: nothing inside catches it

    with monkeypatch.context() as patch:
        patch.setattr(gateway._Handling, "run", killed)
        for attempt in range(1, gateway.MAX_ATTEMPTS + 1):
            with pytest.raises(SystemExit):
                gateway.process(database, received.id)
            assert (
                inbound(database, received.id).status,
                inbound(database, received.id).attempts,
            ) == (
                RECEIVED,
                attempt,
            )
    assert gateway.process(database, received.id) == FAILED
    row = inbound(database, received.id)
    assert row.status == FAILED and "gave up after" in (row.result or "")
    assert len(mails(database, ALICE, "error_reply")) == 1
    assert "pbem_inbound_failed 1\n" in app.test_client().get("/metrics").get_data(as_text=True)
    env = {
        "DATABASE_URL": settings.database_url,
        "PBEM_VAR_DIR": str(settings.var_dir),
        "PBEM_GAME_MODULES": TOYS,
    }
    shown = CliRunner().invoke(main, ["mail", "status", "--last", "0"], env=env)
    assert shown.exit_code == 0, shown.output
    assert f"#{received.id} inject failed after {gateway.MAX_ATTEMPTS} attempts" in shown.output


def hostile(rng: random.Random, base: bytes) -> bytes:
    """A reply mutated the ways hostile mail is: NUL and undecodable bytes spliced into the
    headers or the body, cut short, charsets and encodings that decode to NUL."""
    head, _, body = base.partition(b"\r\n\r\n")
    poison = rng.choice([b"\x00", b"\xff", b"\xed\xa0\x80", b"\x00\xff", b"=00", b"\xc0\x80"])
    where = rng.choice(["head", "body", "both", "charset", "cut"])
    if where in ("head", "both"):
        at = rng.randrange(len(head))
        head = head[:at] + poison + head[at:]
    if where in ("body", "both"):
        at = rng.randrange(len(body) + 1)
        body = body[:at] + poison + body[at:]
    if where == "charset":
        charset = rng.choice([b"utf-16", b"utf-32-be", b"x-unknown", b"iso-2022-jp", b"gb18030"])
        head = head.replace(b"utf-8", charset)
    raw = head + b"\r\n\r\n" + body
    if where == "cut":
        raw = raw[: rng.randrange(1, len(raw))] + poison
    return raw


def test_300_hostile_messages_leave_no_row_stuck(
    database: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(19)
    base = alices_reply(database, "take 1")
    refused_at_the_door = 0
    for n in range(300):
        raw = hostile(rng, base).replace(b"Message-ID: <", f"Message-ID: <{n}.".encode(), 1)
        try:
            received = gateway.receive(database, raw, rng.choice(["inject", "imap", "webhook"]))
        except gateway.ServiceError:  # refused before storing: the sender's server is told
            refused_at_the_door += 1
            continue
        gateway.process(database, received.id)
    later = utcnow() + timedelta(hours=1)
    with database.transaction() as session:
        stuck = session.scalar(
            select(func.count())
            .select_from(InboundMessage)
            .where(InboundMessage.status == RECEIVED)
        )
        statuses = dict(
            session.execute(
                select(InboundMessage.status, func.count()).group_by(InboundMessage.status)
            ).all()
        )
        assert gateway.stale(session, later, timedelta(minutes=2)) == []
    with capsys.disabled():
        print(f"\n300 hostile messages: {statuses}, refused before storing {refused_at_the_door}")
    assert stuck == 0
    assert statuses.get(FAILED, 0) == 0


def test_the_mail_row_of_each_answer_holds_no_nul(database: Database) -> None:
    deliver(database, nul_replies(alices_reply(database))["typed NUL"])
    for mail in mails(database, ALICE):
        assert "\x00" not in mail.body
    parsed: EmailMessage = latest(database, ALICE)
    assert "hithere" in text_of(parsed) or "hi" in text_of(parsed)
