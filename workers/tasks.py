"""Tasks take ids, call the service (which locks and re-checks), and return; a deadlock or
serialization failure runs the task's work again (``db.retrying``)."""

from __future__ import annotations

from service import db, schedule
from service.leagues import tasks as league_tasks
from service.mail import gateway, imap
from service.models import utcnow
from service.ops import health
from service.tasks import Task
from workers.app import celery


@celery.task(name=Task.RESOLVE_TURN)  # type: ignore[untyped-decorator]
@db.retrying
def resolve_turn(game_id: int, number: int, swept_at: str | None = None) -> bool:
    return schedule.resolve_turn(db.current(), game_id, number, swept_at)


@celery.task(name=Task.RESOLVE_TURNS)  # type: ignore[untyped-decorator]
def resolve_turns(turns: list[list[int]], swept_at: str | None = None) -> int:
    return schedule.resolve_turns(db.current(), turns, swept_at)


@celery.task(name=Task.SEND_BATCH)  # type: ignore[untyped-decorator]
def send_batch(outbox_ids: list[int]) -> int:
    return schedule.send_batch(db.current(), outbox_ids)


@celery.task(name=Task.SEND)  # type: ignore[untyped-decorator]
@db.retrying
def send(outbox_id: int) -> None:
    # A failure is recorded on the row with its next attempt; the sweep retries it then.
    schedule.send(db.current(), outbox_id)


@celery.task(name=Task.SEND_WEBHOOK)  # type: ignore[untyped-decorator]
@db.retrying
def send_webhook(delivery_id: int) -> None:
    # Like mail: a failure is recorded on the row with its next attempt; the sweep retries.
    schedule.send_webhook(db.current(), delivery_id)


@celery.task(name=Task.SWEEP)  # type: ignore[untyped-decorator]
@db.retrying
def sweep() -> dict[str, int]:
    done = schedule.sweep(db.current())
    health.record_beat(db.current().settings, utcnow())  # beat scheduled us: it is alive
    return done


@celery.task(name=Task.PROCESS_INBOUND)  # type: ignore[untyped-decorator]
@db.retrying
def process_inbound(inbound_id: int) -> str | None:
    return gateway.process(db.current(), inbound_id)


@celery.task(name=Task.INBOUND_SWEEP)  # type: ignore[untyped-decorator]
@db.retrying
def inbound_sweep() -> int:
    return gateway.sweep(db.current())


@celery.task(name=Task.IMAP_POLL)  # type: ignore[untyped-decorator]
@db.retrying
def imap_poll() -> int:
    return imap.poll(db.current())


@celery.task(name=Task.LEAGUE_ADVANCE)  # type: ignore[untyped-decorator]
@db.retrying
def league_advance(league_id: int) -> bool:
    return league_tasks.advance(db.current(), league_id)


@celery.task(name=Task.LEAGUE_SWEEP)  # type: ignore[untyped-decorator]
@db.retrying
def league_sweep() -> int:
    return league_tasks.sweep(db.current())
