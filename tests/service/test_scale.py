"""The resolution path at scale: the sweep's indexed due-turn query, batches of resolutions
(one bad game never blocks the rest), mail sent in batches; driven with an explicit ``now``."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from service import games, schedule
from service.db import Database, enqueue
from service.models import Outbox, Player
from service.tasks import Task
from tests.service.conftest import Client
from tests.service.test_api import start
from tests.service.test_schedule import turn_row


def test_due_turns_are_those_past_their_deadline_or_sealed_with_every_order_in(
    database: Database, alice: Client, bob: Client
) -> None:
    complete, waiting, half, late = (start(alice, bob)["id"] for _ in range(4))
    early = turn_row(database, complete).started_at
    bob.ok("POST", f"/games/{waiting}/wait", {"turn": 1, "wait": True})
    alice.ok("POST", f"/games/{half}/moves", {"turn": 1, "text": "3"})
    deadline = turn_row(database, late).deadline
    assert deadline is not None
    with database.transaction() as session:
        ann, ben = session.get_one(Player, alice.id), session.get_one(Player, bob.id)
        for game_id in (complete, waiting):
            games.submit(session, game_id, ann, 1, "3")
            games.submit(session, game_id, ben, 1, "2")
        session.flush()
        assert games.due_turns(session, early) == [(complete, 1)]
        after = deadline + timedelta(seconds=1)
        assert set(games.due_turns(session, after)) == {
            (g, 1) for g in (complete, waiting, half, late)
        }


def test_a_batch_resolves_each_turn_on_its_own_and_one_bad_game_blocks_none(
    database: Database, alice: Client, bob: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, bad, last = (start(alice, bob)["id"] for _ in range(3))
    now = turn_row(database, last).deadline + timedelta(seconds=1)  # type: ignore[operator]
    real = games.resolve_turn

    def fails_for_bad(session: Session, game_id: int, number: int, when: Any = None) -> bool:
        if game_id == bad:
            raise RuntimeError("a corrupt game")
        return real(session, game_id, number, when)

    monkeypatch.setattr(games, "resolve_turn", fails_for_bad)
    pairs = [[first, 1], [bad, 1], [last, 1]]
    assert schedule.resolve_turns(database, pairs, now.isoformat()) == 2
    assert schedule.resolve_turns(database, pairs, now.isoformat()) == 0  # once only
    monkeypatch.setattr(games, "resolve_turn", real)
    with database.transaction() as session:
        assert games.due_turns(session, now) == [(bad, 1)]
        sent = session.scalars(
            select(Outbox.kind).where(
                Outbox.game_id.in_([first, last]), Outbox.kind == "default_orders"
            )
        )
        assert len(list(sent)) == 4


def test_mail_queued_together_goes_out_as_one_batch(database: Database) -> None:
    seen: list[tuple[str, tuple[Any, ...]]] = []
    database.dispatch = lambda name, args: seen.append((name, args))
    with database.held_tasks():
        for outbox_id in (7, 8, 9):
            with database.transaction() as session:
                enqueue(session, Task.SEND, outbox_id)
                enqueue(session, Task.SEND, outbox_id)
    assert seen == [(Task.SEND_BATCH, ([7, 8, 9],))]
