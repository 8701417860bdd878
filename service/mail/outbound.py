"""The outgoing MIME message of one rendered mail: parts, threading and list headers.

* Parts: ``multipart/alternative`` (plain text, then HTML); with a calendar event the whole is
  ``multipart/mixed`` (the alternative, then ``text/calendar`` as an ``.ics`` attachment).
  Both text parts are quoted-printable, so the stored message is 7-bit and any server takes it.
* Threading: every mail of a game answers the game's root ``<game-ID@domain>``, which never
  exists as a message of its own, so each player's mail client gathers the game in one thread.
  A reply to a player's mail answers that mail and keeps the root in ``References``.
* ``Message-ID``: ``<game-ID.ROW.KIND@domain>`` (``<mail.ROW.KIND@domain>`` outside a game)
  from the outbox row, so every retry of one row sends the same id and duplicates collapse.
* ``Auto-Submitted``: ``auto-replied`` answering a player's mail, ``auto-generated`` otherwise
  (RFC 3834), plus ``X-Auto-Response-Suppress`` so servers send no out-of-office back.
* ``List-Unsubscribe`` with ``List-Unsubscribe-Post: List-Unsubscribe=One-Click`` (RFC 8058).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime, formataddr

from service.mail.render import RenderedEmail, one_line


@dataclass(frozen=True)
class Envelope:
    """Everything about a mail but its rendered content."""

    sender: str
    to_name: str | None
    to_address: str
    date: datetime
    message_id: str
    reply_to: str | None = None
    in_reply_to: str | None = None
    references: Sequence[str] = ()
    auto_reply: bool = False
    unsubscribe_url: str | None = None


@dataclass(frozen=True)
class Attachment:
    filename: str
    content: bytes
    maintype: str = "text"
    subtype: str = "calendar"
    params: tuple[tuple[str, str], ...] = (("method", "PUBLISH"), ("charset", "utf-8"))


def thread_root(domain: str, game_id: int) -> str:
    return f"<game-{game_id}@{domain}>"


def message_id(domain: str, game_id: int | None, row_id: int, kind: str) -> str:
    kind = kind.replace("_", "-")
    if game_id is None:
        return f"<mail.{row_id}.{kind}@{domain}>"
    return f"<game-{game_id}.{row_id}.{kind}@{domain}>"


def build(
    envelope: Envelope, mail: RenderedEmail, attachments: Sequence[Attachment] = ()
) -> EmailMessage:
    message = EmailMessage()
    message["From"] = envelope.sender
    name = one_line(envelope.to_name) if envelope.to_name else ""
    message["To"] = formataddr((name, envelope.to_address)) if name else envelope.to_address
    message["Subject"] = mail.subject
    message["Date"] = format_datetime(envelope.date)
    message["Message-ID"] = envelope.message_id
    if envelope.in_reply_to:
        message["In-Reply-To"] = envelope.in_reply_to
    if envelope.references:
        message["References"] = " ".join(dict.fromkeys(envelope.references))
    if envelope.reply_to:
        message["Reply-To"] = envelope.reply_to
    message["Auto-Submitted"] = "auto-replied" if envelope.auto_reply else "auto-generated"
    message["X-Auto-Response-Suppress"] = "All"
    if envelope.unsubscribe_url:
        message["List-Unsubscribe"] = f"<{envelope.unsubscribe_url}>"
        message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message.set_content(mail.text, cte="quoted-printable")
    message.add_alternative(mail.html, subtype="html", cte="quoted-printable")
    for item in attachments:
        message.add_attachment(
            item.content,
            maintype=item.maintype,
            subtype=item.subtype,
            filename=item.filename,
            params=dict(item.params),
        )
    return message
