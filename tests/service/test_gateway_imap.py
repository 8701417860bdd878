"""Integration: the IMAP poller against a real IMAP server, Debian's Dovecot, on loopback.

Dovecot runs in the foreground with a configuration of its own in a temporary folder: Maildir
storage, a passwd-file of users, a self-signed certificate for IMAPS and STARTTLS. Replies
shaped like real mail clients' are delivered into the mailbox with APPEND, as an MTA's local
delivery would put them there; the poller (in this process, or in real worker and beat
processes) stores them through the gateway, which plays the moves.

Dovecot treats a connection whose two ends share an address as secure, so on 127.0.0.1 it
takes plain logins; on 127.0.0.2 (from 127.0.0.1) it refuses them, as a server reached over
a network does, and offers STARTTLS. ``SSL_CERT_FILE`` names the test certificate: the
poller verifies certificates with the default trust store, which that variable replaces.
"""

from __future__ import annotations

import imaplib
import logging
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import func, select

from service import db
from service.db import Database
from service.mail import imap
from service.mail.models import InboundMessage
from service.models import Base
from tests.service.gateway_kit import (
    current_address,
    game_row,
    latest,
    make_game,
    player_id,
    reply,
    with_attachment,
)
from tests.service.live import live_env, settings_from, wait_for, worker_processes
from tests.system_tools import require_system_tool
from workers.app import configure

pytestmark = pytest.mark.integration

DOVECOT = shutil.which("dovecot") or "/usr/sbin/dovecot"
USER, PASSWORD = "play", "secret"
TRICKY_USER, TRICKY_PASSWORD = "tricky", 'pa ss"wörd\\{3}'
"""A password imaplib's LOGIN cannot send (non-ASCII, quotes, a literal-like brace)."""
SECURE, INSECURE = "127.0.0.1", "127.0.0.2"


class Dovecot:
    """One Dovecot instance: plain IMAP on ``port`` (both loopback addresses), IMAPS on
    ``tls_port``; ``restart`` brings it back on the same ports."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.port, self.tls_port = _free_port(), _free_port()
        self.cert = root / "cert.pem"
        self.users = root / "users"
        self.log = root / "dovecot.log"
        self.process: subprocess.Popen[bytes] | None = None
        self._configure()

    def _configure(self) -> None:
        root = self.root
        subprocess.run(
            [
                *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2"),
                *("-keyout", str(root / "key.pem"), "-out", str(self.cert)),
                *("-subj", "/CN=localhost"),
                *("-addext", f"subjectAltName=IP:{SECURE},IP:{INSECURE},DNS:localhost"),
            ],
            check=True,
            capture_output=True,
        )
        self.set_password(PASSWORD)
        # Dovecot's login processes must not run as root, and no mail user may be root.
        me = pwd.getpwuid(os.getuid()).pw_name
        login, mail = ("dovenull", "dovecot") if os.getuid() == 0 else (me, me)
        (root / "mail").mkdir()
        shutil.chown(root / "mail", mail, mail)
        (root / "dovecot.conf").write_text(
            f"""
protocols = imap
listen = {SECURE}, {INSECURE}
base_dir = {root}/run
state_dir = {root}/state
instance_name = pbem-test-{self.port}
log_path = {self.log}
default_login_user = {login}
default_internal_user = {mail}
first_valid_uid = 1
auth_failure_delay = 0
ssl = yes
ssl_cert = <{self.cert}
ssl_key = <{root}/key.pem
mail_location = maildir:{root}/mail/%u
passdb {{
  driver = passwd-file
  args = scheme=PLAIN {self.users}
}}
userdb {{
  driver = static
  args = uid={mail} gid={mail} home={root}/mail/%u
}}
service imap-login {{
  inet_listener imap {{
    port = {self.port}
  }}
  inet_listener imaps {{
    port = {self.tls_port}
    ssl = yes
  }}
}}
"""
        )

    def set_password(self, password: str) -> None:
        """Dovecot reads the passwd-file again when it changes."""
        lines = [f"{USER}:{{PLAIN}}{password}::::", f"{TRICKY_USER}:{{PLAIN}}{TRICKY_PASSWORD}::::"]
        self.users.write_text("\n".join(lines) + "\n")
        later = time.time() + 1  # a new mtime even within the same second
        os.utime(self.users, (later, later))

    def start(self) -> None:
        command = [DOVECOT, "-F", "-c", str(self.root / "dovecot.conf")]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while not all(_listening(SECURE, p) for p in (self.port, self.tls_port)):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"Dovecot did not start: {self.log.read_text()}")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)
            self.process = None

    def client(self, user: str = USER, password: str = PASSWORD) -> imaplib.IMAP4:
        client = imaplib.IMAP4(SECURE, self.port, timeout=30)
        secret = f"\0{user}\0{password}".encode()  # LOGIN cannot send a non-ASCII password
        client.authenticate("PLAIN", lambda _challenge: secret)
        return client

    def deliver(self, *raws: bytes, folder: str = "INBOX", user: str = USER) -> None:
        client = self.client(user, TRICKY_PASSWORD if user == TRICKY_USER else PASSWORD)
        try:
            for raw in raws:
                status, answer = client.append(imap._mailbox_name(folder), None, None, raw)
                assert status == "OK", answer
        finally:
            client.logout()

    def unseen(self, folder: str = "INBOX") -> list[bytes]:
        client = self.client()
        try:
            client.select(imap._mailbox_name(folder), readonly=True)
            _, found = client.uid("SEARCH", "UNSEEN")
            return (found[0] or b"").split()
        finally:
            client.logout()

    def settings(self, **changes: object) -> dict[str, object]:
        """The service's IMAP settings for this server (plain IMAP on the secure address)."""
        base: dict[str, object] = {
            "imap_host": SECURE,
            "imap_port": self.port,
            "imap_ssl": False,
            "imap_user": USER,
            "imap_password": PASSWORD,
            "imap_folder": "INBOX",
        }
        return base | changes


@pytest.fixture(scope="module")
def dovecot() -> Iterator[Dovecot]:
    require_system_tool(DOVECOT, "apt-get install dovecot-imapd")
    # A folder every user can pass through: Dovecot's login processes run as another user.
    root = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
    root.chmod(0o755)
    server = Dovecot(root)
    server.start()
    yield server
    server.stop()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def mailbox(
    database: Database, dovecot: Dovecot, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Database]:
    """The database, its settings pointed at an emptied Dovecot mailbox whose certificate
    this process trusts."""
    monkeypatch.setenv("SSL_CERT_FILE", str(dovecot.cert))
    dovecot.set_password(PASSWORD)
    _empty(dovecot)
    database.settings = replace(database.settings, **dovecot.settings())  # type: ignore[arg-type]
    yield database


def _empty(dovecot: Dovecot) -> None:
    client = dovecot.client()
    try:
        for folder in ("INBOX", "Züge & Co"):
            status, exists = client.select(imap._mailbox_name(folder))
            if status == "OK" and exists[0] != b"0":
                client.store("1:*", "+FLAGS.SILENT", "(\\Deleted)")
                client.expunge()
    finally:
        client.logout()


def _alice_and_bob(database: Database) -> tuple[int, bytes]:
    """A game with a pile of 3 and Alice's reply taking 1 (as Gmail writes it)."""
    game_id, _, _ = make_game(database, options={"pile": "3"})
    original = latest(database, "alice@example.org", game_id)
    return game_id, reply(original, "alice@example.org", "take 1", shape="gmail")


def _stored(database: Database) -> list[tuple[str, str]]:
    with database.transaction() as session:
        rows = session.execute(
            select(InboundMessage.channel, InboundMessage.status).order_by(InboundMessage.id)
        )
        return [(channel, status) for channel, status in rows]


# -- in this process ---------------------------------------------------------------------------


def test_replies_in_the_mailbox_are_played_once_and_flagged_seen(
    mailbox: Database, dovecot: Dovecot
) -> None:
    game_id, alices = _alice_and_bob(mailbox)
    dovecot.deliver(alices)
    assert dovecot.unseen()
    assert imap.poll(mailbox) == 1
    assert game_row(mailbox, game_id)["turn"] == 2
    assert dovecot.unseen() == []
    original = latest(mailbox, "bob@example.org", game_id)
    dovecot.deliver(reply(original, "bob@example.org", "take 1", shape="outlook"))
    assert imap.poll(mailbox) == 1
    assert imap.poll(mailbox) == 0  # flagged seen: not fetched again
    assert game_row(mailbox, game_id)["turn"] == 3
    assert _stored(mailbox) == [("imap", "processed")] * 2


def test_a_message_delivered_twice_is_played_once(mailbox: Database, dovecot: Dovecot) -> None:
    game_id, alices = _alice_and_bob(mailbox)
    dovecot.deliver(alices, alices)
    assert imap.poll(mailbox) == 1
    assert dovecot.unseen() == []
    assert game_row(mailbox, game_id)["turn"] == 2
    assert _stored(mailbox) == [("imap", "processed")]


@pytest.mark.parametrize(
    "garbage",
    [
        b"\xff\xfe not a message at all \x80\x81",
        b"From: \r\nContent-Type: multipart/mixed; boundary=\r\n\r\n--\r\n\r\n",
        b"Subject: =?utf-8?B?broken?=\r\n" + b"x" * 5000 + b"\r\n",
    ],
    ids=["bytes", "broken-mime", "long-line"],
)
def test_garbage_in_the_mailbox_is_stored_and_the_poll_goes_on(
    mailbox: Database, dovecot: Dovecot, garbage: bytes
) -> None:
    game_id, alices = _alice_and_bob(mailbox)
    dovecot.deliver(garbage, alices)
    assert imap.poll(mailbox) == 2
    assert dovecot.unseen() == []
    assert game_row(mailbox, game_id)["turn"] == 2
    stored = _stored(mailbox)
    assert stored[1] == ("imap", "processed")
    assert stored[0][1] in ("ignored", "rejected")


def test_imaps_with_a_trusted_certificate(mailbox: Database, dovecot: Dovecot) -> None:
    mailbox.settings = replace(mailbox.settings, imap_port=dovecot.tls_port, imap_ssl=True)
    game_id, alices = _alice_and_bob(mailbox)
    dovecot.deliver(alices)
    assert imap.poll(mailbox) == 1
    assert game_row(mailbox, game_id)["turn"] == 2


def test_starttls_where_the_server_refuses_plain_logins(
    mailbox: Database, dovecot: Dovecot
) -> None:
    plain = imaplib.IMAP4(INSECURE, dovecot.port, timeout=30)
    assert "LOGINDISABLED" in plain.capabilities
    plain.shutdown()
    mailbox.settings = replace(mailbox.settings, imap_host=INSECURE)
    game_id, alices = _alice_and_bob(mailbox)
    dovecot.deliver(alices)
    assert imap.poll(mailbox) == 1
    assert game_row(mailbox, game_id)["turn"] == 2
    logins = [line for line in dovecot.log.read_text().splitlines() if "Login: " in line]
    assert f"lip={INSECURE}, mpid=" in logins[-1] and ", TLS, " in logins[-1]


def test_an_untrusted_certificate_is_refused_before_the_password_is_sent(
    mailbox: Database,
    dovecot: Dovecot,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE")
    mailbox.settings = replace(mailbox.settings, imap_port=dovecot.tls_port, imap_ssl=True)
    dovecot.deliver(_alice_and_bob(mailbox)[1])
    with caplog.at_level(logging.ERROR, logger="service.mail.imap"):
        assert imap.poll(mailbox) == 0
    assert _failure(caplog).startswith(f"IMAP poll failed: TLS with {SECURE}:{dovecot.tls_port}")
    assert "CERTIFICATE_VERIFY_FAILED" in _failure(caplog)
    assert _stored(mailbox) == []
    assert len(dovecot.unseen()) == 1


def test_a_non_ascii_folder_and_password(mailbox: Database, dovecot: Dovecot) -> None:
    folder = "Züge & Co"
    client = dovecot.client(TRICKY_USER, TRICKY_PASSWORD)
    client.create(imap._mailbox_name(folder))
    listed = client.list()[1]
    client.logout()
    assert any(b'"Z&APw-ge &- Co"' in line for line in listed if isinstance(line, bytes))
    mailbox.settings = replace(
        mailbox.settings,
        imap_user=TRICKY_USER,
        imap_password=TRICKY_PASSWORD,
        imap_folder=folder,
    )
    game_id, alices = _alice_and_bob(mailbox)
    dovecot.deliver(alices, folder=folder, user=TRICKY_USER)
    assert imap.poll(mailbox) == 1
    assert game_row(mailbox, game_id)["turn"] == 2


def test_a_large_message_is_read_whole(mailbox: Database, dovecot: Dovecot) -> None:
    game_id, _ = _alice_and_bob(mailbox)
    to = current_address(mailbox, game_id, player_id(mailbox, "alice@example.org"))
    dovecot.deliver(with_attachment("alice@example.org", to, "take 1", 3 * 1024 * 1024))
    assert imap.poll(mailbox) == 1
    assert game_row(mailbox, game_id)["turn"] == 2
    with mailbox.transaction() as session:
        size = session.scalar(select(func.length(InboundMessage.raw)))
    assert size is not None and size > 4 * 1024 * 1024  # base64 of 3 MiB, nothing cut


def test_a_message_over_the_size_limit_is_left_in_the_mailbox(
    mailbox: Database, dovecot: Dovecot, caplog: pytest.LogCaptureFixture
) -> None:
    mailbox.settings = replace(mailbox.settings, inbound_max_bytes=100_000)
    game_id, alices = _alice_and_bob(mailbox)
    to = current_address(mailbox, game_id, player_id(mailbox, "alice@example.org"))
    dovecot.deliver(with_attachment("alice@example.org", to, "take 1", 200_000), alices)
    with caplog.at_level(logging.WARNING, logger="service.mail.imap"):
        assert imap.poll(mailbox) == 1
    assert "more than PBEM_INBOUND_MAX_BYTES (100000): not read" in caplog.text
    assert "From: alice@example.org Subject: Re: move" in caplog.text
    assert dovecot.unseen() == []
    assert _stored(mailbox) == [("imap", "processed")]


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"imap_port": 0}, "cannot connect to 127.0.0.1:"),
        ({"imap_folder": "Nowhere"}, "cannot open folder 'Nowhere' on 127.0.0.1:"),
        ({"imap_password": "wrong"}, "refused the login of 'play': [AUTHENTICATIONFAILED]"),
    ],
    ids=["server-down", "no-such-folder", "wrong-password"],  # Dovecot slows logins after
)
def test_a_mailbox_that_cannot_be_read_is_one_logged_error(
    mailbox: Database,
    dovecot: Dovecot,
    caplog: pytest.LogCaptureFixture,
    changes: dict[str, object],
    expected: str,
) -> None:
    if changes.get("imap_port") == 0:
        changes = {"imap_port": _free_port()}  # nothing listens there
    mailbox.settings = replace(mailbox.settings, **changes)  # type: ignore[arg-type]
    dovecot.deliver(_alice_and_bob(mailbox)[1])
    with caplog.at_level(logging.ERROR, logger="service.mail.imap"):
        assert imap.poll(mailbox) == 0
    assert expected in _failure(caplog)
    with pytest.raises(imap.PollError, match=r"127\.0\.0\.1:\d+"):
        imap.fetch_new(mailbox)
    assert _stored(mailbox) == []


def _failure(caplog: pytest.LogCaptureFixture) -> str:
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1 and errors[0].exc_info is None  # one line, no traceback
    return errors[0].getMessage()


# -- real worker and beat processes ------------------------------------------------------------


@pytest.fixture
def live(
    migrated: str, tmp_path: Path, dovecot: Dovecot
) -> Iterator[tuple[Database, dict[str, str]]]:
    dovecot.set_password(PASSWORD)
    _empty(dovecot)
    env = {
        **live_env(migrated, tmp_path / "var"),
        "PBEM_SECRET_KEY": "imap-live-secret",
        "PBEM_IMAP_HOST": SECURE,
        "PBEM_IMAP_PORT": str(dovecot.tls_port),
        "PBEM_IMAP_SSL": "1",
        "PBEM_IMAP_USER": USER,
        "PBEM_IMAP_PASSWORD": PASSWORD,
        "PBEM_IMAP_SECONDS": "1",
        "SSL_CERT_FILE": str(dovecot.cert),
    }
    settings = settings_from(env)
    configure(settings)
    database = db.configure(settings)
    with database.engine.begin() as connection:
        for table in reversed(Base.metadata.sorted_tables):
            connection.execute(table.delete())
    yield database, env
    database.engine.dispose()


def test_workers_and_beat_play_a_game_from_the_mailbox_through_outages(
    live: tuple[Database, dict[str, str]], dovecot: Dovecot, capfd: pytest.CaptureFixture[str]
) -> None:
    database, env = live
    logged = _Log(capfd)
    with worker_processes(env, count=2, beat=True):
        game_id, alices = _alice_and_bob(database)
        dovecot.deliver(alices)
        wait_for(lambda: game_row(database, game_id)["turn"] == 2, "play Alice's move")
        original = latest(database, "bob@example.org", game_id)
        bobs = reply(original, "bob@example.org", "take 1", shape="phone")
        dovecot.deliver(bobs, bobs)
        wait_for(lambda: game_row(database, game_id)["turn"] == 3, "play Bob's move")

        dovecot.stop()
        wait_for(lambda: logged.has("IMAP poll failed: cannot connect to"), "log the outage")
        dovecot.set_password("changed")
        dovecot.start()
        wait_for(lambda: logged.has("refused the login of 'play'"), "log the refused login")
        dovecot.set_password(PASSWORD)
        original = latest(database, "alice@example.org", game_id)
        dovecot.deliver(reply(original, "alice@example.org", "take 1", shape="apple"))
        wait_for(lambda: game_row(database, game_id)["status"] == "finished", "end the game")
        wait_for(lambda: _stored(database) == [("imap", "processed")] * 3, "process all")
    assert dovecot.unseen() == []
    assert "Traceback" not in logged.text


class _Log:
    """What the worker processes wrote to stderr so far (they inherit the test's)."""

    def __init__(self, capfd: pytest.CaptureFixture[str]) -> None:
        self.capfd = capfd
        self.text = ""

    def has(self, words: str) -> bool:
        captured = self.capfd.readouterr()
        self.text += captured.out + captured.err
        return words in self.text


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((SECURE, 0))
        return int(probe.getsockname()[1])


def _listening(host: str, port: int) -> bool:
    try:
        socket.create_connection((host, port), timeout=1).close()
    except OSError:
        return False
    return True
