"""The periodic sweep: finds due turns, due reminders and unsent mail; queues the work."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime

from service import digest, games, notify, send_delay, webhooks
from service.db import Database, enqueue
from service.models import utcnow
from service.tasks import Task

log = logging.getLogger(__name__)

RESOLVE_BATCH = 25
"""Due turns per resolving task: enough that a storm is a few hundred tasks rather than ten
thousand, few enough that both worker processes (and machines) share a storm."""


def sweep(database: Database, now: datetime | None = None) -> dict[str, int]:
    now = now or utcnow()
    with database.transaction() as session:
        turns = games.due_turns(session, now)
        reminders = games.reminders_due(session, database.settings.reminder_hours, now)
        mail = notify.claim_due(session, now, database.settings.requeue_after)
        for start in range(0, len(turns), RESOLVE_BATCH):
            batch = [list(pair) for pair in turns[start : start + RESOLVE_BATCH]]
            enqueue(session, Task.RESOLVE_TURNS, batch, now.isoformat())
        for outbox_id in mail:
            enqueue(session, Task.SEND, outbox_id)  # sent as batches after commit
        hooks = webhooks.claim_due(session, now, database.settings.requeue_after)
        for delivery_id in hooks:
            enqueue(session, Task.SEND_WEBHOOK, delivery_id)
        readers = digest.due(session, database.settings, now)
    reminded = 0
    for game_id, number in reminders:
        with database.transaction() as session:
            reminded += games.remind(
                session, game_id, number, database.settings.reminder_hours, now
            )
    with database.transaction() as session:
        held = send_delay.due(session, now)
    played = 0
    for held_id in held:  # each in its own transaction: locked, re-read, played once
        with database.transaction() as session:
            played += send_delay.play(session, held_id, now)
    digests = 0
    for player_id in readers:
        with database.transaction() as session:
            digests += digest.send(session, player_id, now) is not None
    return {
        "turns": len(turns),
        "reminders": reminded,
        "mail": len(mail),
        "digests": digests,
        "webhooks": len(hooks),
        "held_moves": played,
    }


def resolve_turn(
    database: Database, game_id: int, number: int, swept_at: str | None = None
) -> bool:
    """``swept_at``: when the sweep saw the turn due (a later clock never un-passes it)."""
    now = utcnow()
    if swept_at is not None:
        now = max(now, datetime.fromisoformat(swept_at))
    with database.transaction() as session:
        return games.resolve_turn(session, game_id, number, now)


def resolve_turns(
    database: Database, turns: Sequence[Sequence[int]], swept_at: str | None = None
) -> int:
    """Resolve many due turns, each in its own transaction (one that fails is logged and left
    for the next sweep; the rest go on); their mail is queued as a few send batches at the
    end. Returns how many were resolved here (a turn resolved already counts nothing)."""
    resolved = 0
    with database.held_tasks():
        for game_id, number in turns:
            try:
                resolved += resolve_turn(database, game_id, number, swept_at)
            except Exception:  # one bad game must not block the storm; the sweep retries it
                log.exception("could not resolve game %s turn %s", game_id, number)
    return resolved


def send_batch(database: Database, outbox_ids: Sequence[int]) -> int:
    return notify.send_many(database, outbox_ids)


def send_webhook(database: Database, delivery_id: int) -> float | None:
    with database.transaction() as session:
        return webhooks.send(session, database.settings, delivery_id)


def send(database: Database, outbox_id: int) -> float | None:
    with database.transaction() as session:
        return notify.send(session, database.settings, outbox_id)
