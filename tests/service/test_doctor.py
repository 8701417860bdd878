"""``pbem doctor`` on a local deployment made of real parts: the web app on a loopback HTTP
server, the real database and broker, an SMTP relay (aiosmtpd: STARTTLS with a certificate
made here, and AUTH) that hands the round trip's mail to an auto-responder, which replies
DKIM-signed to ``pbem mail smtpd``'s loopback listener. DNS (MX and DKIM records) is answered
from a local table. The doctor passes; then each hop is broken in turn, and the doctor names
that hop and exits 1."""

from __future__ import annotations

import asyncio
import itertools
import os
import secrets
import smtplib
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import dkim
import pytest
from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword
from click.testing import CliRunner
from sqlalchemy import select
from werkzeug.serving import make_server

from service import db
from service.cli import main
from service.config import Settings
from service.db import Database
from service.mail import authentication
from service.mail.addresses import (
    DoctorToken,
    make_doctor_address,
    make_league_address,
    read_any_address,
    read_reply_address,
)
from service.mail.models import PROCESSED, InboundMessage
from service.mail.smtpd import Listener
from service.models import Outbox, utcnow
from service.ops import doctor, health
from service.tasks import Task
from tests.service.conftest import TOYS, emptied, run_inline
from tests.service.gateway_kit import dkim_key
from tests.service.test_smtp_live import self_signed

DOMAIN = "pbem.example.org"
DIRECTOR = "director@example.org"
USER, PASSWORD = "pbem", "relay password"
SERVICE_KEY, SERVICE_RECORD = dkim_key()
DIRECTOR_KEY, DIRECTOR_RECORD = dkim_key()
_, OTHER_RECORD = dkim_key()


def free_port() -> int:
    """A loopback port nothing listens on (bound, then let go)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- the parts --------------------------------------------------------------------------------


@dataclass
class Dns:
    """The records the world would publish: our DKIM key, the director's, our MX."""

    txt: dict[str, bytes] = field(
        default_factory=lambda: {
            f"pbem._domainkey.{DOMAIN}": SERVICE_RECORD,
            "mail._domainkey.example.org": DIRECTOR_RECORD,
        }
    )

    def lookup(self, name: Any, timeout: int = 5) -> bytes | None:
        text = name.decode() if isinstance(name, bytes) else str(name)
        return self.txt.get(text.rstrip("."))


@pytest.fixture
def dns(monkeypatch: pytest.MonkeyPatch) -> Dns:
    table = Dns()
    monkeypatch.setattr(authentication, "dns_txt", table.lookup)
    monkeypatch.setattr(doctor, "mx_hosts", lambda domain: [f"mx.{domain}"])
    return table


class Relay:
    """The outgoing relay: STARTTLS and AUTH required. Mail to the director goes to the
    auto-responder, which answers its Reply-To through the smtpd listener (``sign``: with the
    director's DKIM key; ``reply``: at all)."""

    def __init__(self, cert: Path, key: Path) -> None:
        import ssl

        self.tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.tls.load_cert_chain(cert, key)
        self.received: list[bytes] = []
        self.inbound_port = 0
        self.reply, self.sign = True, True
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        factory = lambda: SMTP(  # noqa: E731
            self,
            hostname="localhost",
            tls_context=self.tls,
            require_starttls=True,
            auth_require_tls=True,
            auth_required=True,
            authenticator=self.authenticate,
        )
        create = self.loop.create_server(factory, "127.0.0.1", 0)
        self.server = asyncio.run_coroutine_threadsafe(create, self.loop).result(10)
        self.port = self.server.sockets[0].getsockname()[1]

    def authenticate(self, *args: Any) -> AuthResult:
        auth = args[-1]
        ok = isinstance(auth, LoginPassword) and (auth.login, auth.password) == (
            USER.encode(),
            PASSWORD.encode(),
        )
        return AuthResult(success=ok)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.received.append(envelope.content)
        if self.reply and DIRECTOR in envelope.rcpt_tos:
            # After the 250: the sender's transaction is still open until we answer.
            threading.Thread(target=self.respond, args=(envelope.content,)).start()
        return "250 OK"

    def respond(self, raw: bytes) -> None:
        asked = message_from_bytes(raw, policy=policy.default)
        answer = EmailMessage()
        answer["From"] = f"The Director <{DIRECTOR}>"
        answer["To"] = str(asked["Reply-To"])
        answer["Subject"] = f"Re: {asked['Subject']}"
        answer["Message-ID"] = f"<{secrets.token_hex(8)}@example.org>"
        answer["In-Reply-To"] = str(asked["Message-ID"])
        answer["Date"] = "Wed, 25 Nov 2026 20:00:00 +0000"
        answer.set_content("It works.\n")
        data = answer.as_bytes(policy=policy.default.clone(linesep="\r\n"))
        if self.sign:
            headers = [b"from", b"to", b"subject", b"message-id", b"date"]
            data = dkim.sign(data, b"mail", b"example.org", DIRECTOR_KEY, include_headers=headers)
            data += answer.as_bytes(policy=policy.default.clone(linesep="\r\n"))
        with smtplib.SMTP("127.0.0.1", self.inbound_port, timeout=30) as smtp:
            smtp.sendmail(DIRECTOR, [str(asked["Reply-To"])], data)

    def close(self) -> None:
        self.server.close()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@dataclass
class Deployment:
    env: dict[str, str]
    database: Database
    relay: Relay
    dns: Dns

    def doctor(self, *args: str, **changes: str) -> tuple[int, list[str]]:
        """``pbem doctor ARGS`` with the deployment's environment (and ``changes``)."""
        env = {**self.env, **changes}
        result = CliRunner().invoke(main, ["doctor", *args], env=env, catch_exceptions=False)
        return result.exit_code, result.output.splitlines()

    def sweep(self) -> None:
        """What beat does every PBEM_SWEEP_SECONDS: run the sweep task (it leaves the
        heartbeat)."""
        run_inline(Task.SWEEP, ())


def failed(lines: list[str]) -> set[str]:
    return {line[5:].partition(":")[0] for line in lines if line.startswith("FAIL ")}


@pytest.fixture
def deployment(
    migrated: str, tmp_path: Path, dns: Dns, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Deployment]:
    cert, key = self_signed(tmp_path)
    key_file = tmp_path / "dkim.pem"
    key_file.write_bytes(SERVICE_KEY)
    var = tmp_path / "var"
    broker = os.environ.get("REDIS_URL") or f"sqla+sqlite:///{var / 'broker.sqlite'}"
    relay = Relay(cert, key)
    env = {
        "DATABASE_URL": migrated,
        "PBEM_VAR_DIR": str(var),
        "PBEM_GAME_MODULES": TOYS,
        "CELERY_BROKER_URL": broker,
        "PBEM_QUEUE": f"pbem-doctor-{secrets.token_hex(4)}",
        "PBEM_MAIL_DOMAIN": DOMAIN,
        "PBEM_SECRET_KEY": "doctor-test-secret",
        "PBEM_DKIM_KEY_FILE": str(key_file),
        "PBEM_SMTP_HOST": "127.0.0.1",
        "PBEM_SMTP_PORT": str(relay.port),
        "PBEM_SMTP_USER": USER,
        "PBEM_SMTP_PASSWORD": PASSWORD,
        "PBEM_SMTP_CA_FILE": str(cert),
        "PBEM_SWEEP_SECONDS": "60",
    }
    for name, value in env.items():  # the listener and the web app read the same settings
        monkeypatch.setenv(name, value)
    database = db.configure(Settings.from_env(env), dispatch=run_inline)
    emptied(database)
    from service.app import create_app

    http = make_server("127.0.0.1", 0, create_app(database.settings, dispatch=run_inline))
    threading.Thread(target=http.serve_forever, daemon=True).start()
    env["PBEM_PUBLIC_URL"] = f"http://127.0.0.1:{http.server_port}"
    listener = Listener(database, "127.0.0.1", 0)
    listener.start()
    relay.inbound_port = listener.port
    deployed = Deployment(env, database, relay, dns)
    deployed.sweep()
    yield deployed
    listener.stop()
    http.shutdown()
    relay.close()
    database.engine.dispose()


# -- it passes ----------------------------------------------------------------------------


def test_the_doctor_passes_a_working_local_deployment_round_trip_included(
    deployment: Deployment,
) -> None:
    code, lines = deployment.doctor("--local", "--round-trip", DIRECTOR, "--timeout", "60")
    assert code == 0, "\n".join(lines)
    said = {line[5:].partition(":")[0]: line[:4].strip() for line in lines if line[:4].strip()}
    assert said["public URL"] == "warn"  # plain http: fine on this machine only
    for hop in (
        "inbound mail", "DKIM key", "DKIM record", "sender checks", "relay",
        "relay TLS", "relay login", "database", "migrations", "broker", "beat",
        "sent", "delivered back", "authenticated", "processed",
    ):  # fmt: skip
        assert said.get(hop) == "ok", f"{hop}: {lines}"
    authenticated = next(line for line in lines if line.startswith("ok   authenticated"))
    assert "DKIM check (d=example.org)" in authenticated
    sent = deployment.relay.received[0]
    assert (
        sent.startswith(b"DKIM-Signature:") and b"d=pbem.example.org" in sent.split(b"\r\n\r\n")[0]
    )


def test_the_doctors_reply_is_recorded_never_played_nor_answered(deployment: Deployment) -> None:
    code, lines = deployment.doctor("--local", "--round-trip", DIRECTOR, "--timeout", "60")
    assert code == 0, "\n".join(lines)
    with deployment.database.transaction() as session:
        (reply,) = session.scalars(select(InboundMessage)).all()
        outbox = session.scalars(select(Outbox)).all()
        assert reply.status == PROCESSED and reply.game_id is None and reply.player_id is None
        assert reply.result and reply.result.startswith("doctor round trip ")
        assert [row.kind for row in outbox] == ["doctor"]  # the probe only: no answer to it


def test_a_doctor_address_reads_as_a_doctor_token_and_never_as_a_game_or_league_one() -> None:
    address = make_doctor_address(b"k", DOMAIN, 12345)
    assert read_any_address(b"k", DOMAIN, address) == DoctorToken(12345)
    with pytest.raises(ValueError, match="not issued by us"):
        read_reply_address(b"k", DOMAIN, address)
    league = make_league_address(b"k", DOMAIN, 1, 2)
    assert not isinstance(read_any_address(b"k", DOMAIN, league), DoctorToken)
    with pytest.raises(ValueError, match="not issued by us"):
        read_any_address(b"other", DOMAIN, address)


def test_the_sweep_leaves_the_beat_heartbeat_the_doctor_reads(deployment: Deployment) -> None:
    settings = deployment.database.settings
    before = health.last_beat(settings)
    deployment.sweep()
    after = health.last_beat(settings)
    assert before is not None and after is not None and after >= before


# -- each hop broken in turn ------------------------------------------------------------------


def _unreachable_database(deployment: Deployment) -> dict[str, str]:
    if deployment.env["DATABASE_URL"].startswith("postgresql"):
        return {"DATABASE_URL": f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/none"}
    return {"DATABASE_URL": "sqlite:////nonexistent/folder/pbem.sqlite"}


def _stale_beat(deployment: Deployment) -> dict[str, str]:
    health.record_beat(deployment.database.settings, utcnow() - timedelta(hours=1))
    return {}


BREAKS: dict[str, tuple[Any, set[str]]] = {
    "public URL down": (
        lambda d: {"PBEM_PUBLIC_URL": f"http://127.0.0.1:{free_port()}"},
        {"public URL"},
    ),
    "relay down": (lambda d: {"PBEM_SMTP_PORT": str(free_port())}, {"relay"}),
    "wrong relay password": (lambda d: {"PBEM_SMTP_PASSWORD": "wrong"}, {"relay login"}),
    "DKIM record not matching": (
        lambda d: d.dns.txt.update({f"pbem._domainkey.{DOMAIN}": OTHER_RECORD}) or {},
        {"DKIM record"},
    ),
    "database unreachable": (_unreachable_database, {"database"}),
    "broker unreachable": (
        lambda d: {"CELERY_BROKER_URL": f"redis://127.0.0.1:{free_port()}/0"},
        {"broker", "beat"},  # the heartbeat lives next to the broker
    ),
    "beat not running": (_stale_beat, {"beat"}),
}


@pytest.mark.parametrize("broken", list(BREAKS))
def test_the_doctor_names_the_broken_hop_and_exits_1(deployment: Deployment, broken: str) -> None:
    breaking, hops = BREAKS[broken]
    code, lines = deployment.doctor("--local", **breaking(deployment))
    assert code == 1, "\n".join(lines)
    assert failed(lines) == hops, "\n".join(lines)
    fixes = [after for line, after in itertools.pairwise(lines) if line.startswith("FAIL")]
    assert all(fix.startswith("     fix: ") for fix in fixes)  # each failure says what to do


def test_a_reply_that_never_comes_back_fails_the_round_trip(deployment: Deployment) -> None:
    deployment.relay.reply = False
    code, lines = deployment.doctor("--local", "--round-trip", DIRECTOR, "--timeout", "2")
    assert code == 1
    assert failed(lines) == {"delivered back"}, "\n".join(lines)


def test_an_unsigned_reply_fails_as_unauthenticated(deployment: Deployment) -> None:
    deployment.relay.sign = False
    code, lines = deployment.doctor("--local", "--round-trip", DIRECTOR, "--timeout", "60")
    assert code == 1
    assert failed(lines) == {"authenticated"}, "\n".join(lines)
    refused = next(line for line in lines if line.startswith("FAIL authenticated"))
    assert "no DKIM signature of example.org" in refused


# -- live, not local: what suits a laptop fails -------------------------------------------


def test_a_live_check_fails_the_laptop_defaults_and_says_what_to_set(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("PBEM_DKIM_KEY_FILE", raising=False)
    monkeypatch.setattr(doctor, "mx_hosts", lambda domain: [])
    settings = Settings.from_env({"PBEM_VAR_DIR": str(tmp_path)})
    found = {
        result.hop: result
        for result in (
            doctor.public_url(settings, local=False),
            doctor.mail_domain(settings, local=False),
            doctor.inbound(settings, local=False, dns=True),
            *doctor.dkim_key(settings, local=False, dns=True),
            *doctor.relay(settings, local=False),
        )
    }
    assert {hop: r.state for hop, r in found.items()} == dict.fromkeys(found, "FAIL")
    assert "PBEM_PUBLIC_URL" in found["public URL"].fix
    assert "PBEM_MAIL_DOMAIN" in found["mail domain"].fix
    assert "MX" in found["inbound mail"].fix and "PBEM_IMAP_HOST" in found["inbound mail"].fix
    assert "dns-check --new-key" in found["DKIM key"].fix
    assert "PBEM_SMTP_HOST" in found["relay"].fix


def test_imap_mail_without_a_trusted_server_fails_the_sender_checks(tmp_path: Path) -> None:
    env = {"PBEM_VAR_DIR": str(tmp_path), "PBEM_IMAP_HOST": "imap.example.org"}
    result = doctor.sender_checks(Settings.from_env(env))
    assert result.state == "FAIL" and "PBEM_TRUSTED_AUTHSERV_IDS" in result.fix
    trusted = Settings.from_env({**env, "PBEM_TRUSTED_AUTHSERV_IDS": "mx.example.org"})
    assert doctor.sender_checks(trusted).state == "ok"
