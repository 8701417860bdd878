"""Reading the mails the service queued: parsed MIME, and their readable parts as text."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage

from service.models import Outbox


def parsed(row: Outbox) -> EmailMessage:
    return email.message_from_string(row.body, policy=email.policy.default)


def readable(row: Outbox) -> str:
    """Subject, then every part's decoded content (text, HTML, calendar), as a reader sees them."""
    mail = parsed(row)
    parts = [part for part in mail.walk() if not part.is_multipart()]
    contents = []
    for part in parts:
        content = part.get_content()
        text = content.decode() if isinstance(content, bytes) else str(content)
        contents.append(text.replace("\r\n ", "").replace("\r\n", "\n"))  # unfold iCalendar
    return "\n".join([str(mail["Subject"]), *contents])
