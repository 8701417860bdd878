"""Issue 25, 5 with real Celery processes: a worker posts the deliveries after commit, beat's
sweep retries the one the receiver failed, and it arrives once more, not twice."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from service import webhooks
from service.db import Database
from service.models import WebhookDelivery
from tests.service.live import live_database, live_env, wait_for, worker_processes
from tests.service.test_live import clients
from tests.service.test_webhooks import Receiver

pytestmark = pytest.mark.integration


@pytest.fixture
def env(migrated: str, tmp_path: Path) -> dict[str, str]:
    made = live_env(migrated, tmp_path / "live")
    return {**made, "PBEM_WEBHOOKS_ALLOW_LOOPBACK": "1", "PBEM_SEND_RETRY_SECONDS": "1"}


@pytest.fixture
def live(env: dict[str, str]) -> Iterator[Database]:
    with live_database(env) as database:
        yield database


def test_a_worker_delivers_and_beat_retries_a_failed_delivery_once(
    live: Database, env: dict[str, str]
) -> None:
    receiver = Receiver()
    try:
        _, alice, bob = clients(live)
        made = bob.ok("POST", "/players/me/webhooks", {"url": receiver.url("/bob")}, status=201)
        secret = made["webhook"]["secret"]
        game = alice.ok("POST", "/games", {"game": "countdown", "seats": [alice.id, bob.id]}, 201)
        receiver.answers = [500]
        with worker_processes(env, beat=True):
            alice.ok("POST", f"/games/{game['game']['id']}/moves", {"turn": 1, "text": "take 2"})

            def all_sent() -> bool:
                with live.transaction() as session:
                    rows = session.scalars(select(WebhookDelivery)).all()
                    return len(rows) == 2 and all(row.sent_at for row in rows)

            wait_for(all_sent, "deliver both webhooks")
        seen = receiver.at("/bob")
        assert len(seen) == 3  # moved (500), your_turn, moved again
        ids: dict[str, set[str]] = {}
        for headers, body in seen:
            ids.setdefault(json.loads(body)["type"], set()).add(headers["Pbem-Delivery"])
        assert {kind: len(given) for kind, given in ids.items()} == {"moved": 1, "your_turn": 1}
        for headers, body in seen:
            assert webhooks.verify(secret, headers["Pbem-Signature"], body)
        assert sorted(json.loads(body)["type"] for _, body in seen) == [
            "moved",
            "moved",
            "your_turn",
        ]
    finally:
        receiver.server.shutdown()
        receiver.server.server_close()
