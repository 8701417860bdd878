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
* ``From``: the configured ``PBEM_MAIL_FROM``, given the display name ``pbem`` when it has
  none, so a mail reader shows who writes (issue 21, point 4).
* ``Subject``: folded by the email package's own policy, whose first line always holds text.
* ``List-Unsubscribe`` with ``List-Unsubscribe-Post: List-Unsubscribe=One-Click`` (RFC 8058).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from email.header import Header
from email.message import EmailMessage
from email.policy import EmailPolicy
from email.utils import format_datetime, formataddr, parseaddr
from typing import Any

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


SENDER_NAME = "pbem"
"""The display name of the ``From`` when ``PBEM_MAIL_FROM`` gives an address alone."""


def from_header(sender: str) -> str:
    """``pbem <pbem@example.org>`` for a bare address; a configured name is kept."""
    name, address = parseaddr(sender)
    return formataddr((name or SENDER_NAME, address)) if address else sender


FOLD_WIDTH = 78


def fold_subject(subject: str, width: int = FOLD_WIDTH) -> str:
    """``Subject: ...`` folded at spaces (as RFC 2047 encoded words when it is not ASCII), its
    first line never empty: the email package's own folder may start the value on the next
    line, which some readers show as an empty subject (issue 21, point 4)."""
    text = " ".join(str(subject).split())
    if not text.isascii():
        encoded = Header(text, "utf-8", header_name="Subject").encode(
            linesep="\n", maxlinelen=width
        )
        return f"Subject: {encoded}\n"
    lines = [f"Subject: {text.split(' ')[0]}" if text else "Subject: "]
    for word in text.split(" ")[1:]:
        if len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(" " + word)
    return "\n".join(lines) + "\n"


class _Policy(EmailPolicy):
    """The default policy, with :func:`fold_subject` folding the subject, and each header
    value parsed once: most of a mail's header lines (``From``, ``MIME-Version``, the parts'
    ``Content-Type``) are the same in every mail, and parsing them was a fifth of a mail's
    render (issue 23). A parsed header is never changed (setting one stores a new one), so
    every message may share it, and the bytes stay those the email package writes."""

    def header_store_parse(self, name: str, value: Any) -> tuple[str, Any]:
        if type(value) is str:
            return _stored(self, name, value)
        return super().header_store_parse(name, value)

    def fold(self, name: str, value: str) -> str:
        if name.lower() == "subject":
            return fold_subject(value).replace("\n", self.linesep)
        folded: str = super().fold(name, value)
        return folded

    def fold_binary(self, name: str, value: str) -> bytes:
        if name.lower() == "subject":
            return self.fold(name, value).encode("ascii")
        return super().fold_binary(name, value)


@functools.lru_cache(maxsize=2048)
def _stored(policy: EmailPolicy, name: str, value: str) -> tuple[str, Any]:
    stored: tuple[str, Any] = EmailPolicy.header_store_parse(policy, name, value)
    return stored


POLICY = _Policy()


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
    message = EmailMessage(policy=POLICY)
    message["From"] = from_header(envelope.sender)
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
