"""The periodic sweep: finds due turns, due reminders and unsent mail; queues the work."""

from __future__ import annotations

from datetime import datetime

from service import digest, games, notify
from service.db import Database, enqueue
from service.models import utcnow


def sweep(database: Database, now: datetime | None = None) -> dict[str, int]:
    now = now or utcnow()
    with database.transaction() as session:
        turns = games.due_turns(session, now)
        reminders = games.reminders_due(session, database.settings.reminder_hours, now)
        mail = notify.claim_due(session, now, database.settings.requeue_after)
        for game_id, number in turns:
            enqueue(session, games.RESOLVE_TASK, game_id, number, now.isoformat())
        for outbox_id in mail:
            enqueue(session, notify.SEND_TASK, outbox_id)
        readers = digest.due(session, database.settings, now)
    reminded = 0
    for game_id, number in reminders:
        with database.transaction() as session:
            reminded += games.remind(
                session, game_id, number, database.settings.reminder_hours, now
            )
    digests = 0
    for player_id in readers:
        with database.transaction() as session:
            digests += digest.send(session, player_id, now) is not None
    return {"turns": len(turns), "reminders": reminded, "mail": len(mail), "digests": digests}


def resolve_turn(
    database: Database, game_id: int, number: int, swept_at: str | None = None
) -> bool:
    """``swept_at``: when the sweep saw the turn due (a later clock never un-passes it)."""
    now = utcnow()
    if swept_at is not None:
        now = max(now, datetime.fromisoformat(swept_at))
    with database.transaction() as session:
        return games.resolve_turn(session, game_id, number, now)


def send(database: Database, outbox_id: int) -> float | None:
    with database.transaction() as session:
        return notify.send(session, database.settings, outbox_id)
