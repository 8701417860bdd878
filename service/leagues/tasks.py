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
    """Lapse invitations and end capped games (issue 25 point 6), then queue the advance
    task for every league due to start or to move on."""
    now = now or utcnow()
    with database.transaction() as session:
        leagues.expire_invitations(session, now)
        leagues.cap_games(session, now)
    with database.transaction() as session:
        due = leagues.due(session, now)
        for league_id in due:
            enqueue(session, Task.LEAGUE_ADVANCE, league_id)
    return len(due)
