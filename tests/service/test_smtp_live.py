"""Integration: real worker processes deliver the outbox to a real SMTP server on loopback
(aiosmtpd) that requires STARTTLS, with a certificate made here, and AUTH; while the server
is down, sends fail, stay in the outbox and go out once it is back."""

from __future__ import annotations

import asyncio
import datetime as dt
import ipaddress
import threading
from collections.abc import Iterator
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword
from sqlalchemy import select

from service.db import Database
from service.models import Outbox
from tests.service.live import live_database, live_env, settings_from, wait_for, worker_processes
from tests.service.test_live import clients

pytestmark = pytest.mark.integration

USER, PASSWORD = "pbem", "correct horse battery staple"


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and localhost, and its key (PEM files)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = dt.datetime.now(dt.UTC)
    names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert, private = directory / "cert.pem", directory / "key.pem"
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    private.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert, private


class Sink:
    """An SMTP server in a thread of its own: STARTTLS and AUTH required; keeps what it gets."""

    def __init__(self, cert: Path, key: Path) -> None:
        import ssl

        self.tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.tls.load_cert_chain(cert, key)
        self.received: list[tuple[str, list[str], bytes]] = []
        self.port = 0
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server: Any = None

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.received.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
        return "250 OK"

    def authenticate(
        self, server: Any, session: Any, envelope: Any, mechanism: str, auth: Any
    ) -> AuthResult:
        ok = isinstance(auth, LoginPassword) and (auth.login, auth.password) == (
            USER.encode(),
            PASSWORD.encode(),
        )
        return AuthResult(success=ok)

    def start(self) -> None:
        def factory() -> SMTP:
            return SMTP(
                self,
                hostname="localhost",
                tls_context=self.tls,
                require_starttls=True,
                auth_require_tls=True,
                auth_required=True,
                authenticator=self.authenticate,
            )

        create = self.loop.create_server(factory, "127.0.0.1", self.port)
        self.server = asyncio.run_coroutine_threadsafe(create, self.loop).result(10)
        self.port = self.server.sockets[0].getsockname()[1]

    def stop(self) -> None:
        self.server.close()
        asyncio.run_coroutine_threadsafe(self.server.wait_closed(), self.loop).result(10)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture
def sink(tmp_path: Path) -> Iterator[Sink]:
    server = Sink(*self_signed(tmp_path))
    server.start()
    yield server
    server.close()


@pytest.fixture
def smtp_env(migrated: str, tmp_path: Path, sink: Sink) -> dict[str, str]:
    return {
        **live_env(migrated, tmp_path / "live"),
        "PBEM_SMTP_HOST": "127.0.0.1",
        "PBEM_SMTP_PORT": str(sink.port),
        "PBEM_SMTP_USER": USER,
        "PBEM_SMTP_PASSWORD": PASSWORD,
        "PBEM_SMTP_CA_FILE": str(tmp_path / "cert.pem"),
        "PBEM_SEND_RETRY_SECONDS": "1",
        "PBEM_SECRET_KEY": "smtp-test-secret",
    }


@pytest.fixture
def live(smtp_env: dict[str, str]) -> Iterator[Database]:
    with live_database(smtp_env) as database:
        assert database.settings.mail_sender == "smtp"
        yield database


def unsent(database: Database) -> list[Outbox]:
    with database.transaction() as session:
        return list(session.scalars(select(Outbox).where(Outbox.sent_at.is_(None))))


def test_workers_deliver_over_starttls_with_auth_and_retry_while_the_server_is_down(
    live: Database, smtp_env: dict[str, str], sink: Sink
) -> None:
    _, alice, bob = clients(live)
    with worker_processes(smtp_env, beat=True):
        game = alice.ok("POST", "/games", {"game": "duel", "seats": [alice.id, bob.id]}, 201)
        game_id = game["game"]["id"]
        wait_for(lambda: len(sink.received) == 2, "deliver the two start mails")

        sink.stop()
        alice.ok("POST", f"/games/{game_id}/moves", {"turn": 1, "text": "3"})
        bob.ok("POST", f"/games/{game_id}/moves", {"turn": 1, "text": "1"})
        failing = wait_for(
            lambda: [row for row in unsent(live) if row.attempts >= 2] or None,
            "fail to send while the server is down, and try again",
        )
        assert all("Connection refused" in (row.last_error or "") for row in failing)
        sink.start()
        wait_for(lambda: not unsent(live) and len(sink.received) == 4, "deliver once it is back")

    by_rcpt = [rcpt for _, rcpt, _ in sink.received]
    assert sorted(by_rcpt) == [["alice@example.org"]] * 2 + [["bob@example.org"]] * 2
    assert {sender for sender, _, _ in sink.received} == {"pbem@pbem.localhost"}
    for _, _, content in sink.received:
        mail = message_from_bytes(content, policy=policy.default)
        assert mail["Auto-Submitted"] == "auto-generated"
        assert mail["References"].strip() == f"<game-{game_id}@pbem.localhost>"
        kinds = [part.get_content_type() for part in mail.walk()]
        assert "text/plain" in kinds and "text/html" in kinds


def test_an_untrusted_certificate_sends_nothing(smtp_env: dict[str, str], sink: Sink) -> None:
    """Without the test CA the server's certificate fails verification: no fallback."""
    import ssl
    from email.message import EmailMessage

    from service.notify import smtp_sender

    row = Outbox(id=1, kind="help", to_address="alice@example.org", subject="s", body="")
    mail = EmailMessage()
    mail.set_content("hello")
    untrusted = settings_from({**smtp_env, "PBEM_SMTP_CA_FILE": ""})
    with pytest.raises(ssl.SSLCertVerificationError):
        smtp_sender(untrusted, row, mail)
    assert sink.received == []
