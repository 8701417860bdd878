"""Integration: several worker machines on one PostgreSQL and one Redis. Two independent
worker processes with different hostnames take a deadline storm that two sweeps queued twice
over; every turn is resolved once, and every mail is written once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from service import games, players, schedule
from service.db import Database
from service.models import Game, Outbox, Step, Turn, utcnow
from tests.service.live import wait_for, worker_processes
from tests.service.test_live import env, live, live_env_of, queued  # noqa: F401  (fixtures)

pytestmark = pytest.mark.integration
GAMES = 60


def test_two_worker_machines_share_a_storm_and_resolve_each_turn_once(live: Database) -> None:  # noqa: F811
    quiet = Database(live.settings, dispatch=lambda name, args: None)
    with quiet.transaction() as session:
        alice, _ = players.create(session, None, {"name": "Alice", "emails": ["a@example.org"]})
        bob, _ = players.create(session, None, {"name": "Bob", "emails": ["b@example.org"]})
        data = {"game": "duel", "seats": [alice.id, bob.id]}
        ids = [games.create(session, alice, data).id for _ in range(GAMES)]
    later = utcnow() + timedelta(days=30)
    assert schedule.sweep(live, later)["turns"] == GAMES
    assert schedule.sweep(live, later)["turns"] == GAMES  # a second sweep queues them again
    with worker_processes(live_env_of(live), count=2):
        wait_for(lambda: queued(live) == 0 and resolved(live) == GAMES, "resolve the storm")
    with live.transaction() as session:
        steps = dict(
            session.execute(select(Step.game_id, func.count()).group_by(Step.game_id)).all()
        )
        turns = dict(
            session.execute(select(Turn.game_id, func.count()).group_by(Turn.game_id)).all()
        )
        at = set(session.scalars(select(Game.turn)))
        mail = session.scalars(select(Outbox.key).where(Outbox.kind == "default_orders")).all()
    assert all(steps[g] == 2 and turns[g] == 2 for g in ids)
    assert at == {2}
    assert sorted(mail) == sorted(f"turn:{g}:1:{s}" for g in ids for s in (0, 1))


def resolved(database: Database) -> int:
    with database.transaction() as session:
        query = select(func.count()).select_from(Turn).where(Turn.resolved_at.isnot(None))
        return int(session.scalar(query) or 0)
