"""What the league tasks run: one transaction each, locking and re-checking inside."""

from __future__ import annotations

from datetime import datetime

from service.db import Database, enqueue
from service.leagues import leagues
from service.models import utcnow
from service.tasks import Task


def advance(database: Database, league_id: int, now: datetime | None = None) -> bool:
    with database.transaction() as session:
        return leagues.advance(session, league_id, now or utcnow())


def sweep(database: Database, now: datetime | None = None) -> int:
    """Queue the advance task for every league due to start or to move on."""
    with database.transaction() as session:
        due = leagues.due(session, now or utcnow())
        for league_id in due:
            enqueue(session, Task.LEAGUE_ADVANCE, league_id)
    return len(due)
