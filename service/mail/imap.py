"""IMAP polling, for a service that cannot receive mail itself (no MX record pointing at it).

Beat runs :func:`poll` every ``PBEM_IMAP_SECONDS``: it reads the unseen messages of
``PBEM_IMAP_FOLDER`` without marking them (``BODY.PEEK[]``), stores each through the gateway,
and only then marks it ``\\Seen``. A poll that dies between the two leaves the message unseen:
the next poll stores it again, which the gateway's deduplication turns into nothing. The
mailbox must receive the reply addresses, ``play+TOKEN@PBEM_MAIL_DOMAIN``: a mailbox
``play@`` that domain with plus addressing does.
"""

from __future__ import annotations

import imaplib
import logging

from service.config import Settings
from service.db import Database
from service.mail import gateway

log = logging.getLogger(__name__)

BATCH = 200
"""Messages stored per poll at most; the rest wait for the next one."""


def connect(settings: Settings) -> imaplib.IMAP4:
    kind = imaplib.IMAP4_SSL if settings.imap_ssl else imaplib.IMAP4
    client = kind(settings.imap_host, settings.imap_port, timeout=60)
    client.login(settings.imap_user, settings.imap_password)
    return client


def poll(database: Database) -> int:
    """Store the folder's unseen messages and mark them seen; returns how many were new."""
    settings = database.settings
    if not settings.imap_host:
        return 0
    client = connect(settings)
    stored = 0
    try:
        status, _ = client.select(_quoted(settings.imap_folder))
        if status != "OK":
            raise imaplib.IMAP4.error(f"cannot open folder {settings.imap_folder!r}")
        _, found = client.uid("SEARCH", "UNSEEN")
        uids = [uid.decode("ascii") for uid in (found[0] or b"").split()[:BATCH]]
        for uid in uids:
            raw = _fetch(client, uid)
            if raw is None:
                continue
            received = gateway.receive(database, raw, "imap")
            stored += not received.duplicate
            client.uid("STORE", uid, "+FLAGS", "(\\Seen)")
    finally:
        try:
            client.logout()
        except (OSError, imaplib.IMAP4.error):
            log.warning("IMAP logout failed", exc_info=True)
    return stored


def _fetch(client: imaplib.IMAP4, uid: str) -> bytes | None:
    status, data = client.uid("FETCH", uid, "(BODY.PEEK[])")
    if status != "OK":
        return None
    for item in data:
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], bytes):
            return item[1]
    return None


def _quoted(folder: str) -> str:
    return '"' + folder.replace("\\", "\\\\").replace('"', '\\"') + '"'
