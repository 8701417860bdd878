"""IMAP polling, for a service that cannot receive mail itself (no MX record pointing at it).

Beat runs :func:`poll` every ``PBEM_IMAP_SECONDS``: it reads the unseen messages of
``PBEM_IMAP_FOLDER`` without marking them (``BODY.PEEK[]``), stores each through the gateway,
and only then marks it ``\\Seen``. A poll that dies between the two leaves the message unseen:
the next poll stores it again, which the gateway's deduplication turns into nothing. The
mailbox must receive the reply addresses, ``play+TOKEN@PBEM_MAIL_DOMAIN``: a mailbox
``play@`` that domain with plus addressing does.

The connection is TLS with a verified certificate (the system's CAs, or ``SSL_CERT_FILE``):
IMAPS with ``PBEM_IMAP_SSL=1``; with ``0``, STARTTLS whenever the server offers it (a
server that refuses plain logins, as Dovecot does by default, always offers it), plain text
only when it does not. A mailbox that cannot be read (server down, certificate not
trusted, login refused, no such folder) is one logged error per poll, never a crashed
worker; the next poll tries again. Messages larger than ``PBEM_INBOUND_MAX_BYTES`` are not
downloaded: they are flagged seen and logged, and stay in the mailbox for a person to read;
so do messages whose header lines could be split two ways (``header_lines.py``), which the
gateway refuses on every way in.
"""

from __future__ import annotations

import base64
import imaplib
import logging
import re
import ssl
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from service.config import Settings
from service.db import Database
from service.mail import gateway

log = logging.getLogger(__name__)

BATCH = 200
"""Messages stored per poll at most; the rest wait for the next one."""
TIMEOUT = 60.0
"""Seconds one network read or write may take before the poll gives up."""

_SIZES = re.compile(rb"UID (\d+)|RFC822\.SIZE (\d+)")
_NOT_PRINTABLE_ASCII = re.compile(r"[^ -~]+|&")


class PollError(Exception):
    """The mailbox could not be read; the message says where and why, for the log."""


def poll(database: Database) -> int:
    """Beat's task: store the folder's unseen messages; returns how many were new.

    A mailbox that cannot be read is logged (one line: where, and why) and counts 0."""
    if not database.settings.imap_host:
        return 0
    try:
        return fetch_new(database)
    except PollError as error:
        log.error("IMAP poll failed: %s", error)
        return 0


def fetch_new(database: Database) -> int:
    """Store the folder's unseen messages and flag them seen; raises :class:`PollError`."""
    settings = database.settings
    stored = 0
    with session(settings) as client:
        for uid, size in _unseen(client, settings):
            if size > settings.inbound_max_bytes:
                _skip_large(client, uid, size, settings.inbound_max_bytes)
                continue
            raw = _fetch(client, uid)
            if raw is None:  # expunged meanwhile
                continue
            if len(raw) > settings.inbound_max_bytes:  # the server's RFC822.SIZE was short
                _skip_large(client, uid, len(raw), settings.inbound_max_bytes)
                continue
            try:
                received = gateway.receive(database, raw, "imap")
            except gateway.AmbiguousHeaders as error:
                _skip_ambiguous(client, uid, error.message)
                continue
            stored += not received.duplicate
            _flag_seen(client, uid)
    return stored


@contextmanager
def session(settings: Settings) -> Iterator[imaplib.IMAP4]:
    """A logged-in connection with ``PBEM_IMAP_FOLDER`` selected; protocol and network
    failures inside come out as :class:`PollError`."""
    where = f"{settings.imap_host}:{settings.imap_port}"
    client = connect(settings)
    try:
        status, answer = client.select(_mailbox_name(settings.imap_folder))
        if status != "OK":
            raise PollError(
                f"cannot open folder {settings.imap_folder!r} on {where}: " + _said(answer)
            )
        yield client
    except (OSError, imaplib.IMAP4.error) as error:
        raise PollError(f"connection to {where} failed: {_reason(error)}") from error
    finally:
        try:
            client.logout()
        except (OSError, imaplib.IMAP4.error):
            log.debug("IMAP logout from %s failed", where, exc_info=True)


def connect(settings: Settings) -> imaplib.IMAP4:
    """Connect (TLS as the module says) and log in; raises :class:`PollError`."""
    host, port, user = settings.imap_host, settings.imap_port, settings.imap_user
    where = f"{host}:{port}"
    context = ssl.create_default_context()
    client: imaplib.IMAP4 | None = None
    try:
        if settings.imap_ssl:
            client = imaplib.IMAP4_SSL(host, port, ssl_context=context, timeout=TIMEOUT)
        else:
            client = imaplib.IMAP4(host, port, timeout=TIMEOUT)
            if "STARTTLS" in client.capabilities:
                client.starttls(ssl_context=context)
    except ssl.SSLError as error:
        _close(client)
        raise PollError(f"TLS with {where} failed: {_reason(error)}") from error
    except (OSError, imaplib.IMAP4.error) as error:
        _close(client)
        raise PollError(f"cannot connect to {where}: {_reason(error)}") from error
    try:
        _login(client, user, settings.imap_password)
    except (OSError, imaplib.IMAP4.error, UnicodeError) as error:
        _close(client)
        raise PollError(f"{where} refused the login of {user!r}: {_reason(error)}") from error
    return client


def _close(client: imaplib.IMAP4 | None) -> None:
    if client is not None:
        with suppress(OSError):
            client.shutdown()


def _login(client: imaplib.IMAP4, user: str, password: str) -> None:
    """SASL PLAIN where offered (it carries any UTF-8 password), else LOGIN (ASCII only)."""
    if "AUTH=PLAIN" in client.capabilities:
        secret = f"\0{user}\0{password}".encode()
        client.authenticate("PLAIN", lambda _challenge: secret)
    else:
        client.login(user, password)


def _unseen(client: imaplib.IMAP4, settings: Settings) -> list[tuple[str, int]]:
    """The first BATCH unseen messages, oldest first: (UID, size in bytes)."""
    status, found = client.uid("SEARCH", "UNSEEN")
    if status != "OK":
        raise PollError(f"cannot search folder {settings.imap_folder!r}: {_said(found)}")
    uids = sorted({int(uid) for uid in (found[0] or b"").split()})[:BATCH]
    if not uids:
        return []
    status, data = client.uid("FETCH", ",".join(map(str, uids)), "(RFC822.SIZE)")
    if status != "OK":
        raise PollError(f"cannot read message sizes: {_said(data)}")
    sizes: dict[int, int] = {}
    for item in data:
        line = item[0] if isinstance(item, tuple) else item
        if not isinstance(line, bytes):
            continue
        uid = size = None
        for uid_text, size_text in _SIZES.findall(line):
            uid = int(uid_text) if uid_text else uid
            size = int(size_text) if size_text else size
        if uid is not None and size is not None:
            sizes[uid] = size
    return [(str(uid), sizes[uid]) for uid in uids if uid in sizes]


def _fetch(client: imaplib.IMAP4, uid: str) -> bytes | None:
    status, data = client.uid("FETCH", uid, "(BODY.PEEK[])")
    if status != "OK":
        return None
    for item in data:  # an unsolicited FETCH (another client's flag change) has no literal
        if isinstance(item, tuple) and b"BODY[]" in item[0] and isinstance(item[1], bytes):
            return item[1]
    return None


def _flag_seen(client: imaplib.IMAP4, uid: str) -> None:
    status, answer = client.uid("STORE", uid, "+FLAGS.SILENT", "(\\Seen)")
    if status != "OK":  # stored already: the next poll's copy is a duplicate, nothing more
        log.warning("IMAP: cannot flag message UID %s seen: %s", uid, _said(answer))


def _skip_large(client: imaplib.IMAP4, uid: str, size: int, limit: int) -> None:
    status, data = client.uid("FETCH", uid, "(BODY.PEEK[HEADER.FIELDS (FROM SUBJECT)])")
    header = next((i[1] for i in data if isinstance(i, tuple)), b"") if status == "OK" else b""
    said = " ".join(bytes(header).decode("utf-8", "replace").split())
    log.warning(
        "IMAP: message UID %s is %d bytes, more than PBEM_INBOUND_MAX_BYTES (%d): not read, "
        "flagged seen, left in the mailbox (%s)",
        uid,
        size,
        limit,
        said or "no From or Subject",
    )
    _flag_seen(client, uid)


def _skip_ambiguous(client: imaplib.IMAP4, uid: str, refusal: str) -> None:
    log.warning(
        "IMAP: message UID %s: %s; not stored, flagged seen, left in the mailbox",
        uid,
        refusal,
    )
    _flag_seen(client, uid)


def _mailbox_name(folder: str) -> str:
    """``folder`` as a quoted IMAP mailbox name, non-ASCII in modified UTF-7 (RFC 3501 5.1.3)."""
    name = _NOT_PRINTABLE_ASCII.sub(_utf7, folder)
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _utf7(match: re.Match[str]) -> str:
    text = match.group()
    if text == "&":
        return "&-"
    chunk = base64.b64encode(text.encode("utf-16-be")).rstrip(b"=").decode("ascii")
    return "&" + chunk.replace("/", ",") + "-"


def _reason(error: BaseException) -> str:
    """An exception as one readable line (imaplib puts the server's bytes in its args)."""
    if any(isinstance(arg, bytes) for arg in error.args):
        return _said(list(error.args))
    return str(error) or type(error).__name__


def _said(answer: object) -> str:
    """The server's words in an imaplib answer list, as text."""
    if not isinstance(answer, list):
        return str(answer)
    words = [a.decode("utf-8", "replace") if isinstance(a, bytes) else str(a) for a in answer]
    return " ".join(w for w in words if w) or "no reason given"
