"""Tasks take ids, call the service (which locks and re-checks), and return."""

from __future__ import annotations

from typing import Any

from service import db, schedule
from workers.app import celery

MAX_SEND_RETRIES = 8


@celery.task(name="pbem.resolve_turn")  # type: ignore[untyped-decorator]
def resolve_turn(game_id: int, number: int, swept_at: str | None = None) -> bool:
    return schedule.resolve_turn(db.current(), game_id, number, swept_at)


@celery.task(  # type: ignore[untyped-decorator]
    name="pbem.send", bind=True, max_retries=MAX_SEND_RETRIES
)
def send(self: Any, outbox_id: int) -> None:
    retry_in = schedule.send(db.current(), outbox_id)
    if retry_in is not None and not celery.conf.task_always_eager:
        raise self.retry(countdown=retry_in)


@celery.task(name="pbem.sweep")  # type: ignore[untyped-decorator]
def sweep() -> dict[str, int]:
    return schedule.sweep(db.current())
