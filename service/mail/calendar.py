"""A deadline as an iCalendar (RFC 5545) event, written by hand: one VEVENT, few properties.

The UID is stable per game and turn, so a later notice about the same deadline (a reminder,
a deadline moved) updates the event in the reader's calendar instead of adding another;
``SEQUENCE`` grows with the time the notice was made, so the newest one wins.

Lines end in CRLF and are folded at 75 octets (never inside a UTF-8 character); text values
escape backslash, semicolon, comma and line breaks (RFC 5545 3.3.11).

>>> from datetime import UTC, datetime
>>> ics = deadline_event(
...     uid="game-7-turn-3@pbem.example",
...     deadline=datetime(2025, 3, 1, 17, 0, tzinfo=UTC),
...     stamp=datetime(2025, 2, 27, 9, 30, tzinfo=UTC),
...     summary="Deadline: turn 3, game #7; orders, please",
...     description="Reply to the mail.",
...     url="https://pbem.example/games/7",
... )
>>> print(ics.decode().replace("\\r\\n", "\\n"), end="")
BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//pbem//play-by-email board games//EN
CALSCALE:GREGORIAN
METHOD:PUBLISH
BEGIN:VEVENT
UID:game-7-turn-3@pbem.example
DTSTAMP:20250227T093000Z
SEQUENCE:82650
DTSTART:20250301T170000Z
SUMMARY:Deadline: turn 3\\, game #7\\; orders\\, please
DESCRIPTION:Reply to the mail.
URL:https://pbem.example/games/7
TRANSP:TRANSPARENT
BEGIN:VALARM
ACTION:DISPLAY
TRIGGER:-PT1H
DESCRIPTION:Deadline: turn 3\\, game #7\\; orders\\, please
END:VALARM
END:VEVENT
END:VCALENDAR
"""

from __future__ import annotations

from datetime import UTC, datetime

PRODID = "-//pbem//play-by-email board games//EN"
SEQUENCE_EPOCH = datetime(2025, 1, 1, tzinfo=UTC)
LINE_OCTETS = 75


def deadline_event(
    *, uid: str, deadline: datetime, stamp: datetime, summary: str, description: str, url: str
) -> bytes:
    """A calendar with one zero-length event at ``deadline`` and an alarm an hour before.

    No DTEND: an event with a DATE-TIME start and no end ends when it starts (RFC 5545 3.6.1).
    """
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        f"PRODID:{PRODID}",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        "BEGIN:VEVENT",
        f"UID:{uid}",
        f"DTSTAMP:{_utc(stamp)}",
        f"SEQUENCE:{_sequence(stamp)}",
        f"DTSTART:{_utc(deadline)}",
        f"SUMMARY:{_text(summary)}",
        f"DESCRIPTION:{_text(description)}",
        f"URL:{url}",
        "TRANSP:TRANSPARENT",
        "BEGIN:VALARM",
        "ACTION:DISPLAY",
        "TRIGGER:-PT1H",
        f"DESCRIPTION:{_text(summary)}",
        "END:VALARM",
        "END:VEVENT",
        "END:VCALENDAR",
    ]
    return b"".join(_fold(line) + b"\r\n" for line in lines)


def _utc(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise ValueError(f"calendar times must be aware, got {moment.isoformat()}")
    return moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _sequence(stamp: datetime) -> int:
    """Minutes since 2025: a later notice has a higher revision number."""
    return max(0, int((stamp - SEQUENCE_EPOCH).total_seconds() // 60))


def _text(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
    return escaped.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n")


def _fold(line: str) -> bytes:
    """Split a content line into 75-octet pieces, continuation lines starting with a space."""
    data = line.encode("utf-8")
    pieces, start, limit = [], 0, LINE_OCTETS
    while len(data) - start > limit:
        end = start + limit
        while end > start and (data[end] & 0xC0) == 0x80:  # not inside a UTF-8 character
            end -= 1
        pieces.append(data[start:end])
        start, limit = end, LINE_OCTETS - 1
    pieces.append(data[start:])
    return b"\r\n ".join(pieces)
