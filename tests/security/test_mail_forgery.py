"""Nobody moves for a player by forging mail (security audit: findings 1 and 2).

Every forgery here is aimed at Alice's sealed orders in a game of duel, whose reply address
the attacker (Mallory, of evil.test, a domain with a DKIM key of its own) has seen quoted.
After each one the game and its orders must be as they were: 0 forged moves. Alice's own
DKIM-signed reply is played all the same (the control).

1. **Header lines split two ways.** Python's email parser ends a header line at a bare CR,
   dkimpy only at CRLF or LF, so ``X-Mailer: x<CR>DKIM-Signature: ... d=example.org`` is two
   header fields to one and one to the other. Set above Mallory's own valid signature, the
   fake ``d=example.org`` was Python's signature 0 and Mallory's was dkimpy's: the player's
   sealed orders were replaced through the real SMTP listener. Now a header block with a
   bare CR, a bare LF among CRLFs, VT, FF or 0x1C-0x1E is refused at every way in before
   anything reads it, and the DKIM domain checked is the one dkimpy verified.
2. **Verdicts and Froms read two ways.** A trusted ``dmarc=pass`` counted whatever domain it
   was for, and ``parseaddr`` read ``alice@example.org <mallory@evil.test>`` as Alice while
   the mail server had judged Mallory. Now a DMARC verdict counts only for the From's own
   domain, and a From that is not exactly one mailbox is refused.

DKIM keys come from a local zone (``authentication.dns_txt``) that publishes example.org's and
evil.test's keys, each under the selector ``mail``.
"""

from __future__ import annotations

import base64
import logging
import shutil
import smtplib
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import dkim
import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from service import db
from service.cli import main
from service.db import Database
from service.mail import authentication, gateway, imap, webhook
from service.mail.extract import extract_reply
from service.mail.models import InboundMessage
from service.mail.smtpd import Listener
from service.models import Order
from tests.service.conftest import emptied, make_settings, run_inline
from tests.service.gateway_kit import current_address, dkim_key, game_row, make_game, reply
from tests.service.test_gateway_imap import DOVECOT, Dovecot
from tests.system_tools import require_system_tool

pytestmark = pytest.mark.integration

ALICE, MALLORY = "alice@example.org", "mallory@evil.test"
TRUSTED = "mx.pbem.test"
SELECTOR = b"mail"
SIGNED_FIELDS = [b"from", b"to", b"subject", b"message-id", b"date"]

STRAY_LINE_BREAKS = {
    "bare-CR": b"\r",
    "bare-LF": b"\n",
    "VT": b"\x0b",
    "FF": b"\x0c",
    "0x1C": b"\x1c",
    "0x1D": b"\x1d",
    "0x1E": b"\x1e",
}
"""What ends a header line for some reader of it but not for another."""


ALICES_KEY, ALICES_RECORD = dkim_key()
MALLORYS_KEY, MALLORYS_RECORD = dkim_key()
ZONE = {
    b"mail._domainkey.example.org.": ALICES_RECORD,
    b"mail._domainkey.evil.test.": MALLORYS_RECORD,
}


@pytest.fixture(autouse=True)
def local_dns(monkeypatch: pytest.MonkeyPatch) -> None:
    def txt(name: Any, timeout: int = 5) -> bytes | None:
        given = name if isinstance(name, bytes) else str(name).encode()
        return ZONE.get(given.rstrip(b".") + b".")

    monkeypatch.setattr(authentication, "dns_txt", txt)


def _database(migrated: str, tmp_path: Path, **extra: str) -> Database:
    database = db.configure(make_settings(migrated, tmp_path / "var", **extra), dispatch=run_inline)
    emptied(database)
    return database


@pytest.fixture
def listening(migrated: str, tmp_path: Path) -> Iterator[tuple[Database, Listener]]:
    """The real SMTP listener, checking DKIM and the envelope sender itself (the default)."""
    database = _database(migrated, tmp_path)
    listener = Listener(database, "127.0.0.1", 0)
    listener.start()
    yield database, listener
    listener.stop()
    database.engine.dispose()


@pytest.fixture
def trusting(migrated: str, tmp_path: Path) -> Iterator[Database]:
    """Mail through a mail server whose Authentication-Results we trust."""
    database = _database(migrated, tmp_path, PBEM_TRUSTED_AUTHSERV_IDS=TRUSTED)
    yield database
    database.engine.dispose()


# -- the game, the mail, and counting forged moves ----------------------------------------------


class SealedGame:
    """Alice's and Bob's game of duel, and what a forged move would change."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.id, self.alice, _ = make_game(database, "duel")

    def to_alice(self) -> str:
        """Alice's reply address for the current turn (quoted in her mail, so not secret)."""
        return current_address(self.database, self.id, self.alice)

    def mail(self, typed: str, sender: str = ALICE, headers: dict[str, str] | None = None) -> bytes:
        """A new reply (its own Message-ID) to Alice's address, as it goes over the wire."""
        return _crlf(reply(None, sender, typed, to=self.to_alice(), headers=headers))

    def orders(self) -> list[tuple[Any, ...]]:
        with self.database.transaction() as session:
            rows = session.execute(
                select(Order.turn, Order.seat, Order.parsed, Order.status)
                .where(Order.game_id == self.id)
                .order_by(Order.id)
            )
            return [tuple(row) for row in rows]

    def board(self) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
        """The game row (turn, status, state) and every order of the game."""
        return game_row(self.database, self.id), self.orders()


class Forgeries:
    """Forgeries sent at one game, one by one: each that changed its board is a forged move;
    what the way in answered (or the inbound row says) is kept by name."""

    def __init__(self, game: SealedGame) -> None:
        self.game = game
        self.moved: list[str] = []
        self.answers: dict[str, Any] = {}

    def attempt(self, name: str, deliver: Callable[[bytes], Any], raw: bytes) -> None:
        before = self.game.board()
        self.answers[name] = deliver(raw)
        if self.game.board() != before:
            self.moved.append(name)

    def assert_none_moved(self) -> None:
        assert self.moved == [], f"{len(self.moved)} forged moves: {self.moved}"


def _crlf(raw: bytes) -> bytes:
    return raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def _signature(raw: bytes, key: bytes = ALICES_KEY, domain: bytes = b"example.org") -> bytes:
    """The DKIM-Signature header line ``domain`` makes for ``raw`` (dkimpy folds it)."""
    return bytes(dkim.sign(raw, SELECTOR, domain, key, include_headers=SIGNED_FIELDS))


def _signed(raw: bytes) -> bytes:
    """``raw`` with Alice's DKIM signature (example.org): her genuine mail."""
    return _signature(raw) + raw


def _by_mallory(raw: bytes) -> bytes:
    """``raw`` with Mallory's own DKIM signature (evil.test), which verifies."""
    return _signature(raw, MALLORYS_KEY, b"evil.test") + raw


FAKE_SIGNATURE = (
    b"DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.org; s=mail;\r\n"
    b"\th=from:to:subject; bh=" + base64.b64encode(bytes(32)) + b";\r\n"
    b"\tb=" + base64.b64encode(bytes(256)) + b"\r\n"
)
"""A DKIM-Signature claiming example.org, folded over three lines; it cannot verify."""


def _split_header_forgery(game: SealedGame, typed: str, line_break: bytes) -> bytes:
    """The audit's forgery: the fake example.org signature, a header field of its own to
    Python after ``line_break`` but part of an X-Mailer line to dkimpy, above Mallory's
    valid signature; From and MAIL FROM are Alice's."""
    hidden = b"X-Mailer: pbem-forger 1.0" + line_break + FAKE_SIGNATURE
    return hidden + _by_mallory(game.mail(typed))


def _sending(listener: Listener, to: str, envelope_from: str = ALICE) -> Callable[[bytes], int]:
    """Delivery through the real SMTP listener; returns its answer to DATA (250: stored)."""

    def send(raw: bytes) -> int:
        with smtplib.SMTP(listener.hostname, listener.port, timeout=60) as client:
            try:
                client.sendmail(envelope_from, [to], raw)
            except smtplib.SMTPDataError as refused:
                return refused.smtp_code
        return 250

    return send


def _stored(database: Database) -> int:
    with database.transaction() as session:
        return int(session.scalar(select(func.count()).select_from(InboundMessage)) or 0)


def _last_result(database: Database) -> tuple[str, str]:
    with database.transaction() as session:
        row = session.scalars(select(InboundMessage).order_by(InboundMessage.id.desc())).first()
        assert row is not None
        return row.status, row.result or ""


# -- finding 1: header lines split two ways, through the real SMTP listener ---------------------


def test_control_alices_own_signed_orders_are_played_through_the_listener(
    listening: tuple[Database, Listener],
) -> None:
    database, listener = listening
    game = SealedGame(database)
    send = _sending(listener, game.to_alice())
    assert send(_signed(game.mail("3"))) == 250
    assert game.orders() == [(1, 0, "3", "current")]
    # Her signature, folded over lines as dkimpy writes it, below Mallory's: still hers.
    both = _by_mallory(_signed(game.mail("2")))
    assert both.count(b"DKIM-Signature:") == 2 and b"\r\n " in both.split(b"\r\nContent-")[0]
    assert send(both) == 250
    assert game.orders()[-1] == (1, 0, "2", "current")


def test_no_header_line_split_two_ways_lends_alices_domain_to_mallorys_signature(
    listening: tuple[Database, Listener],
) -> None:
    database, listener = listening
    game = SealedGame(database)
    send = _sending(listener, game.to_alice())
    assert send(_signed(game.mail("3"))) == 250
    forgeries = Forgeries(game)
    for name, line_break in STRAY_LINE_BREAKS.items():
        forgeries.attempt(name, send, _split_header_forgery(game, "1", line_break))
    forgeries.assert_none_moved()
    assert forgeries.answers == dict.fromkeys(STRAY_LINE_BREAKS, 550)
    assert _stored(database) == 1  # Alice's own reply, nothing else
    assert game.orders() == [(1, 0, "3", "current")]


@pytest.mark.parametrize("line_break", STRAY_LINE_BREAKS.values(), ids=STRAY_LINE_BREAKS.keys())
def test_past_the_door_too_the_dkim_domain_is_the_one_dkimpy_verified(
    listening: tuple[Database, Listener], line_break: bytes
) -> None:
    # Mail stored before the ways in refused such header lines is still judged rightly.
    database, _ = listening
    game = SealedGame(database)
    forged = _split_header_forgery(game, "1", line_break)
    why = authentication.refusal(forged, ALICE, "smtp", ALICE, database.settings)
    assert why, "Mallory's signature was taken for example.org's"
    genuine = _signed(game.mail("1"))
    assert authentication.refusal(genuine, ALICE, "smtp", ALICE, database.settings) == ""


def test_folded_and_duplicate_dkim_signatures_lend_no_domain(
    listening: tuple[Database, Listener],
) -> None:
    database, listener = listening
    game = SealedGame(database)
    send = _sending(listener, game.to_alice())
    assert send(_signed(game.mail("3"))) == 250
    forged: dict[str, Callable[[], bytes]] = {
        "a folded example.org signature above Mallory's": lambda: (
            FAKE_SIGNATURE + _by_mallory(game.mail("1"))
        ),
        "Mallory's signature twice": lambda: _by_mallory(_by_mallory(game.mail("1"))),
        "Alice's signature of another mail above Mallory's": lambda: (
            _signature(game.mail("2")) + _by_mallory(game.mail("1"))
        ),
        "Mallory's signature, Mallory as Sender": lambda: _by_mallory(
            game.mail("1", headers={"Sender": MALLORY})
        ),
    }
    forgeries = Forgeries(game)
    results = {}
    for name, build in forged.items():
        forgeries.attempt(name, send, build())
        results[name] = _last_result(database)
    forgeries.assert_none_moved()
    assert forgeries.answers == dict.fromkeys(forged, 250)  # stored, then refused or held
    failing = {
        "a folded example.org signature above Mallory's",
        "Alice's signature of another mail above Mallory's",
    }
    for name, (status, result) in results.items():
        # An example.org signature that does not verify refuses; none at all holds the mail
        # for Alice's own mailbox to confirm (Mallory never sees the code).
        expected = "rejected" if name in failing else "held"
        assert status == expected and "DKIM signature of example.org" in result, (name, result)


# -- at every way in, a header block that could be split two ways is refused ---------------------

Way = Callable[[Database, Listener, bytes, Path], tuple[bool, str]]


def _by_inject(database: Database, _: Listener, raw: bytes, tmp_path: Path) -> tuple[bool, str]:
    env = {
        "DATABASE_URL": database.settings.database_url,
        "PBEM_VAR_DIR": str(tmp_path / "var"),
        "PBEM_GAME_MODULES": "tests.service.toys",
        "PBEM_EAGER": "1",
    }
    path = tmp_path / "message.eml"
    path.write_bytes(raw)
    result = CliRunner().invoke(main, ["mail", "inject", str(path)], env=env)
    assert result.exit_code in (0, 65), result.output
    assert "Traceback" not in result.output
    return result.exit_code == 65, result.output


def _by_webhook(database: Database, _: Listener, raw: bytes, __: Path) -> tuple[bool, str]:
    from service.app import create_app

    settings = replace(database.settings, inbound_webhook_secret="s3cret")
    client = create_app(settings, dispatch=run_inline).test_client()
    signed = {webhook.SIGNATURE_HEADER: webhook.signature("s3cret", raw)}
    answer = client.post("/inbound/mail", data=raw, headers=signed)
    assert answer.status_code in (202, 400) and answer.is_json
    return answer.status_code == 400, str(answer.get_json())


def _by_smtp(_: Database, listener: Listener, raw: bytes, __: Path) -> tuple[bool, str]:
    with smtplib.SMTP(listener.hostname, listener.port, timeout=60) as client:
        try:
            client.sendmail(ALICE, ["play+x@pbem.localhost"], raw)
        except smtplib.SMTPDataError as refused:
            said = refused.smtp_error
            return True, f"{refused.smtp_code} {said.decode() if isinstance(said, bytes) else said}"
    return False, "250"


WAYS_IN: dict[str, Way] = {"inject": _by_inject, "webhook": _by_webhook, "smtp": _by_smtp}
REFUSED_AS = {
    "inject": "5.6.0 the message is refused",
    "webhook": "ambiguous_headers",
    "smtp": "550 5.6.0",
}


def _message(line_break: bytes = b"\r\n", body: bytes = b"take 1\r\n") -> bytes:
    """A small message whose third header line ends in ``line_break``."""
    unique = base64.b16encode(line_break + body).decode()
    return (
        b"From: alice@example.org\r\nTo: play+x@pbem.localhost\r\nX-Mailer: x"
        + line_break
        + f"Subject: Re: move\r\nMessage-ID: <{unique}@example.org>\r\n\r\n".encode()
        + body
    )


@pytest.mark.parametrize("way", WAYS_IN.keys())
@pytest.mark.parametrize("line_break", STRAY_LINE_BREAKS.values(), ids=STRAY_LINE_BREAKS.keys())
def test_a_header_block_that_could_be_split_two_ways_is_refused_at_every_way_in(
    listening: tuple[Database, Listener], tmp_path: Path, way: str, line_break: bytes
) -> None:
    database, listener = listening
    refused, said = WAYS_IN[way](database, listener, _message(line_break), tmp_path)
    assert refused, said
    assert REFUSED_AS[way] in said
    assert "header line 3 holds" in said or "CRLF and in a bare LF, mixed" in said, said
    assert _stored(database) == 0


@pytest.mark.parametrize("way", WAYS_IN.keys())
def test_unix_line_ends_and_odd_bytes_in_the_body_are_still_taken(
    listening: tuple[Database, Listener], tmp_path: Path, way: str
) -> None:
    database, listener = listening
    taken = [_message(body=b"take 1\rand\x0bmore\x1c\r\n")]
    if way != "smtp":  # SMTP itself ends lines in CRLF
        taken.append(_message().replace(b"\r\n", b"\n"))
    for raw in taken:
        refused, said = WAYS_IN[way](database, listener, raw, tmp_path)
        assert not refused, said
    assert _stored(database) == len(taken)


def test_the_imap_poller_leaves_such_a_message_in_the_mailbox_flagged_seen(
    listening: tuple[Database, Listener],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Dovecot itself turns a bare CR or LF into CRLF; VT, FF and 0x1C-0x1E it keeps.
    require_system_tool(DOVECOT, "apt-get install dovecot-imapd")
    database, _ = listening
    root = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
    root.chmod(0o755)
    dovecot = Dovecot(root)
    dovecot.start()
    monkeypatch.setenv("SSL_CERT_FILE", str(dovecot.cert))
    try:
        database.settings = replace(database.settings, **dovecot.settings())  # type: ignore[arg-type]
        kept = [b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e"]
        dovecot.deliver(*(_message(line_break) for line_break in kept), _message())
        with caplog.at_level(logging.WARNING, logger="service.mail.imap"):
            assert imap.poll(database) == 1
        assert _stored(database) == 1
        assert dovecot.unseen() == []
        refused = [
            r.getMessage() for r in caplog.records if "not stored, flagged seen" in r.getMessage()
        ]
        assert len(refused) == len(kept)
        assert all("header line 3 holds" in line for line in refused), refused
    finally:
        dovecot.stop()
        shutil.rmtree(root, ignore_errors=True)


# -- finding 2: what our mail server vouched for, and whose From it was -----------------------


def _vouched(raw: bytes, *results: str) -> bytes:
    """``raw`` with our trusted mail server's Authentication-Results on top."""
    return "".join(f"Authentication-Results: {TRUSTED}; {r}\r\n" for r in results).encode() + raw


def _from(raw: bytes, *froms: str) -> bytes:
    """``raw`` with its From header replaced by one From header for each of ``froms``."""
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = [line for line in head.split(b"\r\n") if not line.lower().startswith(b"from:")]
    return b"\r\n".join([*(f"From: {f}".encode() for f in froms), *lines]) + b"\r\n\r\n" + body


def _injecting(database: Database) -> Callable[[bytes], tuple[str, str]]:
    def inject(raw: bytes) -> tuple[str, str]:
        gateway.receive(database, raw, "inject")
        return _last_result(database)

    return inject


def test_control_a_dmarc_pass_for_alices_domain_plays_her_orders(trusting: Database) -> None:
    game = SealedGame(trusting)
    inject = _injecting(trusting)
    status, result = inject(_vouched(game.mail("3"), "dmarc=pass header.from=example.org"))
    assert status == "processed", result
    assert game.orders() == [(1, 0, "3", "current")]


FOREIGN_VERDICTS = {
    "dmarc pass for evil.test": ["dmarc=pass header.from=evil.test"],
    "dmarc pass for a lookalike": ["dmarc=pass header.from=example.org.evil.test"],
    "dmarc pass for no domain": ["dmarc=pass"],
    "ours failed, listed before another's pass": [
        "dmarc=fail header.from=example.org; dmarc=pass header.from=evil.test"
    ],
    "dkim pass for evil.test": ["dkim=pass header.d=evil.test"],
    "spf pass for evil.test": ["spf=pass smtp.mailfrom=mallory@evil.test"],
}


def test_a_trusted_verdict_counts_only_for_the_from_domain(trusting: Database) -> None:
    game = SealedGame(trusting)
    inject = _injecting(trusting)
    inject(_vouched(game.mail("3"), "dmarc=pass header.from=example.org"))
    forgeries = Forgeries(game)
    for name, results in FOREIGN_VERDICTS.items():
        forgeries.attempt(name, inject, _vouched(game.mail("1"), *results))
    forgeries.assert_none_moved()
    for name, (status, result) in forgeries.answers.items():
        # No verdict for example.org holds the mail for Alice's own mailbox to confirm.
        expected = "rejected" if "failed" in name else "held"
        assert status == expected and "for example.org" in result, (name, result)
    assert game.orders() == [(1, 0, "3", "current")]


def test_a_dmarc_fail_for_another_domain_does_not_decide_for_alices(trusting: Database) -> None:
    game = SealedGame(trusting)
    raw = _vouched(
        game.mail("3"),
        "dmarc=fail header.from=evil.test; spf=pass smtp.mailfrom=alice@example.org",
    )
    assert _injecting(trusting)(raw)[0] == "processed"
    assert game.orders() == [(1, 0, "3", "current")]


FROMS_READ_TWO_WAYS = {
    "an address as the display name": ("alice@example.org <mallory@evil.test>",),
    "a quoted address as the display name": ('"alice@example.org" <mallory@evil.test>',),
    "an encoded-word display name": ("=?utf-8?q?alice=40example=2Eorg?= <mallory@evil.test>",),
    "an address in a comment": ("alice@example.org (mallory@evil.test)",),
    "two addresses": ("alice@example.org, mallory@evil.test",),
    "a group": ("players: alice@example.org, mallory@evil.test;",),
    "a group of Alice alone": ("players: alice@example.org;",),
    "two From headers": ("alice@example.org", "mallory@evil.test"),
    "two From headers, Mallory's first": ("mallory@evil.test", "alice@example.org"),
}
"""Froms that name Alice to one reader and Mallory to another. Mallory's mail server vouches
for her own domain (``dmarc=pass header.from=evil.test``)."""


def test_a_from_that_is_not_exactly_one_mailbox_is_refused(trusting: Database) -> None:
    game = SealedGame(trusting)
    inject = _injecting(trusting)
    inject(_vouched(game.mail("3"), "dmarc=pass header.from=example.org"))
    forgeries = Forgeries(game)
    for name, froms in FROMS_READ_TWO_WAYS.items():
        raw = _vouched(_from(game.mail("1"), *froms), "dmarc=pass header.from=evil.test")
        forgeries.attempt(name, inject, raw)
    forgeries.assert_none_moved()
    for name, (status, result) in forgeries.answers.items():
        assert status == "rejected" and "From" in result, (name, result)


def test_the_sender_header_is_not_the_author(trusting: Database) -> None:
    game = SealedGame(trusting)
    inject = _injecting(trusting)
    inject(_vouched(game.mail("3"), "dmarc=pass header.from=example.org"))
    forgeries = Forgeries(game)
    by_mallory_with_alice_as_sender = game.mail("1", sender=MALLORY, headers={"Sender": ALICE})
    by_alice_with_mallory_as_sender = game.mail("1", headers={"Sender": MALLORY})
    for name, raw in (
        ("Sender: alice", by_mallory_with_alice_as_sender),
        ("From: alice, Sender: mallory", by_alice_with_mallory_as_sender),
    ):
        vouched = _vouched(raw, "dmarc=pass header.from=evil.test")
        forgeries.attempt(name, inject, vouched)
    forgeries.assert_none_moved()
    assert {name: status for name, (status, _) in forgeries.answers.items()} == {
        "Sender: alice": "rejected",  # the From is Mallory's: not Alice's address
        "From: alice, Sender: mallory": "held",  # nothing vouched for alice: she is asked
    }


ONE_AUTHOR = {
    "name and address": ("Alice <alice@example.org>",),
    "address alone": ("alice@example.org",),
    "the address as its own name": ('"alice@example.org" <alice@example.org>',),
    "the address as its own name, other case": ("Alice@Example.ORG <alice@example.org>",),
    "a comment": ("alice@example.org (Alice)",),
    "an encoded-word name": ("=?utf-8?q?J=C3=B6rg?= <alice@example.org>",),
    "an obsolete name": ("J. Smith <alice@example.org>",),
}


@pytest.mark.parametrize(
    ("froms", "author"),
    [
        *((froms, ALICE) for froms in ONE_AUTHOR.values()),
        *((froms, "") for froms in FROMS_READ_TWO_WAYS.values()),
    ],
    ids=[*ONE_AUTHOR, *FROMS_READ_TWO_WAYS],
)
def test_the_gateway_and_authentication_read_one_and_the_same_author(
    trusting: Database, froms: tuple[str, ...], author: str
) -> None:
    raw = _from(_crlf(reply(None, ALICE, "take 1", to="play+x@pbem.localhost")), *froms)
    read = extract_reply(raw)
    assert (read.sender, bool(read.sender_problem)) == (author, not author)
    vouched = _vouched(raw, "dmarc=pass header.from=example.org")
    why = authentication.refusal(vouched, ALICE, "inject", None, trusting.settings)
    assert (why == "") == (author == ALICE), why
