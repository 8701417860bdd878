"""PBEM_INBOUND_MAX_BYTES applies the same way on every way in: ``pbem mail inject``, the
webhook, IMAP and SMTP all refuse a message one byte over it (nothing stored, a clear
message) and take one exactly at it. (SMTP's 552 on the wire and IMAP's skip are tested
against the real servers in test_gateway_smtp.py and test_gateway_imap.py.)"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from service.cli import main
from service.db import Database
from service.mail import gateway, webhook
from service.mail.models import InboundMessage
from service.mail.smtpd import InboundHandler
from tests.service.conftest import run_inline
from tests.service.gateway_kit import with_attachment

LIMIT = 50_000


def stored(database: Database) -> int:
    with database.transaction() as session:
        return int(session.scalar(select(func.count()).select_from(InboundMessage)) or 0)


def message_of_size(size: int) -> bytes:
    raw = with_attachment("alice@example.org", "play+x@pbem.localhost", "take 1", size // 2)
    assert len(raw) < size
    return raw + b"\n" * (size - len(raw))  # the epilogue, after the last boundary


@pytest.fixture
def small(database: Database) -> Database:
    return Database(replace(database.settings, inbound_max_bytes=LIMIT), run_inline)


def test_the_gateway_refuses_a_message_over_the_limit_and_stores_nothing(small: Database) -> None:
    with pytest.raises(gateway.TooLarge) as refused:
        gateway.receive(small, message_of_size(LIMIT + 1), "imap")
    assert refused.value.message == (
        f"the message is {LIMIT + 1} bytes, more than the {LIMIT} bytes a message may have "
        "(PBEM_INBOUND_MAX_BYTES)"
    )
    assert stored(small) == 0
    assert not gateway.receive(small, message_of_size(LIMIT), "imap").duplicate
    assert stored(small) == 1


def test_pbem_mail_inject_refuses_over_the_limit_with_ex_dataerr(
    database: Database, tmp_path: Path
) -> None:
    settings = database.settings
    env = {
        "DATABASE_URL": settings.database_url,
        "PBEM_VAR_DIR": str(tmp_path / "var"),
        "PBEM_INBOUND_MAX_BYTES": str(LIMIT),
        "PBEM_EAGER": "1",
    }
    big = tmp_path / "big.eml"
    big.write_bytes(message_of_size(LIMIT + 1))
    result = CliRunner().invoke(main, ["mail", "inject", str(big)], env=env)
    assert result.exit_code == 65, result.output
    assert f"5.3.4 refused: the message is {LIMIT + 1} bytes" in result.output
    assert "nothing was stored" in result.output
    assert "Traceback" not in result.output
    assert stored(database) == 0
    fits = tmp_path / "fits.eml"
    fits.write_bytes(message_of_size(LIMIT))
    accepted = CliRunner().invoke(main, ["mail", "inject", str(fits)], env=env)
    assert accepted.exit_code == 0, accepted.output
    assert accepted.output.startswith("stored as inbound #")
    assert stored(database) == 1


def test_the_webhook_answers_413_over_the_limit(small: Database) -> None:
    from service.app import create_app

    settings = replace(small.settings, inbound_webhook_secret="s3cret")
    client = create_app(settings, dispatch=run_inline).test_client()
    for size, status in ((LIMIT + 1, 413), (LIMIT, 202)):
        raw = message_of_size(size)
        signed = {webhook.SIGNATURE_HEADER: webhook.signature("s3cret", raw)}
        answer = client.post("/inbound/mail", data=raw, headers=signed)
        assert answer.status_code == status, answer.get_data(as_text=True)
        assert answer.is_json
    assert stored(small) == 1


def test_the_smtp_handler_answers_552_when_the_gateway_refuses(small: Database) -> None:
    # aiosmtpd refuses first on the wire (data_size_limit); the handler agrees if it is reached.
    envelope = SimpleNamespace(
        original_content=message_of_size(LIMIT + 1), rcpt_tos=["x@y"], mail_from="a@b"
    )
    handler = InboundHandler(small)
    answer = asyncio.run(handler.handle_DATA(None, None, envelope))  # type: ignore[arg-type]
    assert answer.startswith("552 5.3.4 the message is")
    assert stored(small) == 0
