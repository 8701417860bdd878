"""DKIM signing of outgoing mail (issue 15): with a key configured, a mail the service sends
(as an ``.eml`` file, and over SMTP to a real aiosmtpd server on loopback) verifies with
dkimpy's own verifier against the DKIM record ``pbem mail dns-check`` tells the operator to
publish (the verifier's DNS lookup answered from that printed record); a changed mail does
not; without a key nothing is signed; a key that cannot be read fails the send, kept on the
outbox row."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dkim
import pytest
from click.testing import CliRunner
from sqlalchemy import select

from service import db
from service.cli import main
from service.config import Settings
from service.db import Database
from service.mail import dkim as signing
from service.models import Outbox
from service.ops import logs
from tests.service.conftest import Client, make_settings, run_inline
from tests.service.test_gateway_smtp import SinkController

FROM = "Club Games <games@club.example.org>"


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    path = tmp_path / "dkim.pem"
    signing.new_key(path)
    return path


def published(settings: Settings, key_file: Path) -> dict[str, bytes]:
    """The TXT records exactly as ``pbem mail dns-check`` prints them, read back."""
    env = {
        "DATABASE_URL": settings.database_url,
        "PBEM_VAR_DIR": str(settings.var_dir),
        "PBEM_MAIL_FROM": FROM,
        "PBEM_DKIM_KEY_FILE": str(key_file),
    }
    result = CliRunner().invoke(main, ["mail", "dns-check"], env=env)
    assert result.exit_code == 0, result.output
    records = {}
    for line in result.output.splitlines():
        found = re.match(r"^(\S+)\. IN TXT (.*)$", line)
        if found:
            records[found[1]] = "".join(re.findall(r'"([^"]*)"', found[2])).encode()
    assert "a signed sample verifies" in result.output
    return records


def lookup(records: dict[str, bytes]) -> Any:
    def dnsfunc(name: bytes | str, timeout: int = 5) -> bytes | None:
        text = name.decode() if isinstance(name, bytes) else name
        return records.get(text.rstrip("."))

    return dnsfunc


@pytest.fixture
def signing_service(
    settings: Settings, key_file: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Database]:
    monkeypatch.setenv("PBEM_DKIM_KEY_FILE", str(key_file))
    signed = make_settings(
        settings.database_url,
        settings.var_dir,
        PBEM_MAIL_FROM=FROM,
        PBEM_MAIL_DOMAIN="club.example.org",
    )
    yield db.configure(signed, dispatch=run_inline)


def start_game(admin: Client, alice: Client, bob: Client) -> int:
    data = {"game": "countdown", "seats": [alice.id, bob.id]}
    return int(admin.ok("POST", "/games", data, 201)["game"]["id"])


def test_a_mail_written_by_the_service_verifies_against_the_published_key(
    database: Database,
    admin: Client,
    alice: Client,
    bob: Client,
    signing_service: Database,
    key_file: Path,
) -> None:
    records = published(signing_service.settings, key_file)
    assert records["pbem._domainkey.club.example.org"].startswith(b"v=DKIM1; k=rsa; p=")
    assert records["_dmarc.club.example.org"].startswith(b"v=DMARC1;")
    game_id = start_game(admin, alice, bob)
    with signing_service.transaction() as session:
        row = session.scalars(select(Outbox).where(Outbox.game_id == game_id)).first()
        assert row is not None and row.sent_at is not None
        row_id = row.id
    [written] = Path(signing_service.settings.mail_dir).glob(f"{row_id:08d}-*.eml")
    raw = written.read_bytes()
    assert raw.startswith(
        b"DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=club.example.org;"
    )
    signature = raw.split(b"\n\n")[0]
    assert b"list-unsubscribe" in signature.lower() and b"s=pbem" in signature
    assert dkim.verify(raw, dnsfunc=lookup(records))
    changed = raw.replace(b"Subject: ", b"Subject: Re: ", 1)
    assert not dkim.verify(changed, dnsfunc=lookup(records))


class Keep:
    def __init__(self) -> None:
        self.received: list[bytes] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.received.append(envelope.original_content or envelope.content)
        return "250 OK"


def test_a_mail_sent_over_smtp_arrives_signed_and_verifies(
    database: Database,
    admin: Client,
    alice: Client,
    bob: Client,
    settings: Settings,
    key_file: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    handler = Keep()
    controller = SinkController(handler, hostname="127.0.0.1", port=0)
    controller.start()
    try:
        port = controller.port
        monkeypatch.setenv("PBEM_DKIM_KEY_FILE", str(key_file))
        smtp = make_settings(
            settings.database_url,
            settings.var_dir,
            PBEM_MAIL_FROM=FROM,
            PBEM_SMTP_HOST="127.0.0.1",
            PBEM_SMTP_PORT=str(port),
            PBEM_SMTP_STARTTLS="0",
        )
        db.configure(smtp, dispatch=run_inline)
        start_game(admin, alice, bob)
    finally:
        controller.stop()
    assert len(handler.received) == 2
    records = published(smtp, key_file)
    for raw in handler.received:
        assert raw.startswith(b"DKIM-Signature: ")
        assert dkim.verify(raw, dnsfunc=lookup(records))


def test_without_a_key_nothing_is_signed_and_a_bad_key_fails_the_send_on_the_row(
    database: Database,
    admin: Client,
    alice: Client,
    bob: Client,
    settings: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.delenv("PBEM_DKIM_KEY_FILE", raising=False)
    start_game(admin, alice, bob)
    assert all(
        not path.read_bytes().startswith(b"DKIM-Signature")
        for path in Path(settings.mail_dir).glob("*.eml")
    )
    monkeypatch.setenv("PBEM_DKIM_KEY_FILE", str(tmp_path / "missing.pem"))
    with caplog.at_level(logging.WARNING, logger="service.notify"):
        start_game(admin, alice, bob)
    lines = [logs.OneLine().format(r) for r in caplog.records if r.name == "service.notify"]
    assert len(lines) == 2 and all("\n" not in line for line in lines)
    assert "failed (attempt 1, next in 30 s): DkimError: cannot read" in lines[0]
    with database.transaction() as session:
        failing = session.scalars(select(Outbox).where(Outbox.sent_at.is_(None))).all()
    assert len(failing) == 2
    assert all("DkimError: cannot read PBEM_DKIM_KEY_FILE" in (r.last_error or "") for r in failing)
