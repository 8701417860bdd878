"""What an operator watches: the backlog (turns due, mail unsent or failing, inbound mail
failed) and the throughput (resolutions and mails in the last minute), read from the
database at each look, so every web process and ``pbem status`` tell the same.

:func:`exposition` writes them in the Prometheus text format (0.0.4) by hand: a handful of
unlabelled gauges and counters computed per scrape need no client library (whose registry
and multiprocess mode are built for counting inside long-lived processes).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from service.mail.models import InboundMessage
from service.models import Game, GameStatus, Outbox, Turn, utcnow

HELD = "held:%"
"""Digest rows wait on purpose (``held:<kind>``): they are no backlog."""


@dataclass(frozen=True)
class Snapshot:
    turns_due: int
    oldest_due_turn_age_seconds: float
    outbox_unsent: int
    outbox_failing: int
    inbound_failed: int
    resolutions_last_minute: int
    mails_sent_last_minute: int
    turns_resolved_total: int
    mails_sent_total: int
    games_active: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


HELP: dict[str, tuple[str, str]] = {
    "turns_due": ("gauge", "Open turns whose deadline has passed, not yet resolved."),
    "oldest_due_turn_age_seconds": ("gauge", "How long the oldest due turn has been due."),
    "outbox_unsent": ("gauge", "Mails written but not sent yet (digest holds excluded)."),
    "outbox_failing": ("gauge", "Unsent mails whose last attempt failed."),
    "inbound_failed": ("gauge", "Inbound messages whose processing failed."),
    "resolutions_last_minute": ("gauge", "Turns resolved in the last 60 seconds."),
    "mails_sent_last_minute": ("gauge", "Mails sent in the last 60 seconds."),
    "turns_resolved_total": ("counter", "Turns resolved since the service began."),
    "mails_sent_total": ("counter", "Mails sent since the service began."),
    "games_active": ("gauge", "Games in progress."),
}


def _count(session: Session, query: Any) -> int:
    return int(session.scalar(query) or 0)


def snapshot(session: Session, now: datetime | None = None) -> Snapshot:
    now = now or utcnow()
    minute_ago = now - timedelta(seconds=60)
    due = (
        select(func.count(), func.min(Turn.deadline))
        .select_from(Turn)
        .join(Game, Game.id == Turn.game_id)
        .where(
            Game.status == GameStatus.ACTIVE,
            Turn.number == Game.turn,
            Turn.resolved_at.is_(None),
            Turn.deadline <= now,
        )
    )
    due_count, oldest = session.execute(due).one()
    unsent = (
        select(func.count())
        .select_from(Outbox)
        .where(Outbox.sent_at.is_(None), Outbox.kind.not_like(HELD))
    )
    resolved = select(func.count()).select_from(Turn).where(Turn.resolved_at.is_not(None))
    sent = select(func.count()).select_from(Outbox).where(Outbox.sent_at.is_not(None))
    if oldest is not None and oldest.tzinfo is None:  # a bare SQL aggregate skips the type
        oldest = oldest.replace(tzinfo=now.tzinfo)
    return Snapshot(
        turns_due=int(due_count or 0),
        oldest_due_turn_age_seconds=(now - oldest).total_seconds() if oldest else 0.0,
        outbox_unsent=_count(session, unsent),
        outbox_failing=_count(session, unsent.where(Outbox.last_error.is_not(None))),
        inbound_failed=_count(
            session,
            select(func.count())
            .select_from(InboundMessage)
            .where(InboundMessage.status == "failed"),
        ),
        resolutions_last_minute=_count(session, resolved.where(Turn.resolved_at > minute_ago)),
        mails_sent_last_minute=_count(session, sent.where(Outbox.sent_at > minute_ago)),
        turns_resolved_total=_count(session, resolved),
        mails_sent_total=_count(session, sent),
        games_active=_count(
            session, select(func.count()).select_from(Game).where(Game.status == GameStatus.ACTIVE)
        ),
    )


def exposition(snap: Snapshot) -> str:
    """The Prometheus text format: ``# HELP``, ``# TYPE`` and one sample per metric."""
    lines = []
    for name, value in snap.to_json().items():
        kind, text = HELP[name]
        lines += [
            f"# HELP pbem_{name} {text}",
            f"# TYPE pbem_{name} {kind}",
            f"pbem_{name} {float(value):g}" if isinstance(value, float) else f"pbem_{name} {value}",
        ]
    return "\n".join(lines) + "\n"


def for_people(snap: Snapshot) -> list[str]:
    """``pbem status``: the same figures, in words."""
    age = snap.oldest_due_turn_age_seconds
    return [
        f"games in progress          {snap.games_active}",
        f"turns due                  {snap.turns_due}"
        + (f" (oldest due for {_duration(age)})" if snap.turns_due else ""),
        f"mail unsent                {snap.outbox_unsent} ({snap.outbox_failing} failing)",
        f"inbound mail failed        {snap.inbound_failed}",
        f"last minute                {snap.resolutions_last_minute} turns resolved, "
        f"{snap.mails_sent_last_minute} mails sent",
        f"since the start            {snap.turns_resolved_total} turns resolved, "
        f"{snap.mails_sent_total} mails sent",
    ]


def _duration(seconds: float) -> str:
    minutes, _ = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min" if minutes else f"{int(seconds)} s"
