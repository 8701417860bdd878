"""Integration: the API in this process, real Celery worker and beat processes beside it.

Every registered game (the toys and every real game in ``engine/games``) is played by two
players through the API: a whole game to its end (in sealed games the first turn resolves
by the deadline with default orders), a resignation and a draw by agreement. Then two
workers race over one turn."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from kombu.exceptions import ChannelError
from sqlalchemy import func, select

import engine
from service import games, players
from service.db import Database
from service.models import Game, LogEntry, Outbox, Step, Turn
from tests.service.conftest import Client
from tests.service.live import live_database, live_env, wait_for, worker_processes
from workers.app import celery
from workers.tasks import resolve_turn

pytestmark = pytest.mark.integration


@pytest.fixture(scope="session")
def env(migrated: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return live_env(migrated, tmp_path_factory.mktemp("live"))


@pytest.fixture
def live(env: dict[str, str]) -> Iterator[Database]:
    with live_database(env) as database:
        yield database


def clients(database: Database) -> tuple[Client, Client, Client]:
    from service.app import create_app

    app = create_app(database.settings)
    made = []
    with database.transaction() as session:
        for name, roles in (("Ada", ["admin"]), ("Alice", []), ("Bob", [])):
            data = {"name": name, "emails": [f"{name.lower()}@example.org"], "roles": roles}
            player, token = players.create(session, None, data)
            made.append(Client(app.test_client(), token, players.to_json(player, True)))
    return made[0], made[1], made[2]


def has_dice(name: str) -> bool:
    state = engine.new_game(name, players=2).initial_state()
    return type(state).chance_outcomes is not engine.State.chance_outcomes


def choose(database: Database, game_id: int, seat: int, rng: random.Random) -> str:
    with database.transaction() as session:
        state = games.state_of(session.get_one(Game, game_id))
    return state.format(state.random_action(seat, rng))


def wait_turn_over(seat: Client, game_id: int, turn: int) -> dict[str, Any]:
    def moved() -> Any:
        game = seat.ok("GET", f"/games/{game_id}")["game"]
        return game if game["turn"] != turn or game["status"] != "active" else None

    return wait_for(moved, f"resolve turn {turn} of game {game_id}")


def play_to_the_end(database: Database, admin: Client, seats: list[Client], name: str) -> None:
    rng = random.Random(name)
    created = seats[0].ok("POST", "/games", {"game": name, "seats": [s.id for s in seats]}, 201)
    game_id, by_deadline = created["game"]["id"], False
    game = created["game"]
    while game["status"] == "active":
        turn, to_act = game["turn"], game["to_act"]
        if not game["view"]["simultaneous"]:
            text = choose(database, game_id, to_act[0], rng)
            game = seats[to_act[0]].ok(
                "POST", f"/games/{game_id}/moves", {"turn": turn, "text": text}
            )["game"]
            continue
        submitting = to_act[:1] if not by_deadline else to_act
        for seat in submitting:
            text = choose(database, game_id, seat, rng)
            seats[seat].ok("POST", f"/games/{game_id}/moves", {"turn": turn, "text": text})
        if not by_deadline:
            past = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
            admin.ok("PATCH", f"/games/{game_id}/deadline", {"deadline": past})
        game = wait_turn_over(seats[0], game_id, turn)
        if not by_deadline:
            events = admin.ok("GET", f"/games/{game_id}/record")["turns"][turn - 1]["events"]
            assert any(event["kind"] == "default" for event in events), events
            by_deadline = True
    record = admin.ok("GET", f"/games/{game_id}/record")
    assert record["result"]["reason"] == game["result"]["reason"]
    assert len(record["steps"]) >= 1


@pytest.mark.parametrize("name", engine.names())
def test_two_players_play_every_game_through_the_api_with_real_workers(
    live: Database, name: str
) -> None:
    if has_dice(name):
        pytest.importorskip("engine.dice", reason="engine/dice.py has not landed yet")
    admin, alice, bob = clients(live)
    with worker_processes(live_env_of(live), beat=True):
        play_to_the_end(live, admin, [alice, bob], name)
        resigned = alice.ok("POST", "/games", {"game": name, "seats": [alice.id, bob.id]}, 201)
        result = bob.ok("POST", f"/games/{resigned['game']['id']}/resign")["game"]["result"]
        assert result["reason"] == f"{engine.new_game(name).seat_names[1]} resigned"
        drawn = alice.ok("POST", "/games", {"game": name, "seats": [alice.id, bob.id]}, 201)
        alice.ok("POST", f"/games/{drawn['game']['id']}/draw/offer")
        result = bob.ok("POST", f"/games/{drawn['game']['id']}/draw/accept")["game"]["result"]
        assert result["reason"] == "draw by agreement"
        wait_for(lambda: unsent(live) == 0, "send every message")
    assert len(list(Path(live.settings.mail_dir).glob("*.eml"))) >= 6


def live_env_of(database: Database) -> dict[str, str]:
    settings = database.settings
    return {
        "DATABASE_URL": settings.database_url,
        "PBEM_VAR_DIR": str(settings.var_dir),
        "PBEM_GAME_MODULES": ",".join(settings.game_modules),
        "PBEM_QUEUE": settings.queue,
        "CELERY_BROKER_URL": settings.broker_url,
        "PBEM_SWEEP_SECONDS": str(settings.sweep_seconds),
        "PBEM_REQUEUE_SECONDS": str(settings.requeue_seconds),
    }


def unsent(database: Database) -> int:
    with database.transaction() as session:
        query = select(func.count()).select_from(Outbox).where(Outbox.sent_at.is_(None))
        return session.scalar(query) or 0


def queued(database: Database) -> int:
    """Messages waiting in this run's queue (Redis drops an empty queue: that counts as 0)."""
    with celery.connection_for_write() as connection:
        channel = connection.default_channel
        try:
            declared = channel.queue_declare(database.settings.queue, passive=True)
        except ChannelError:
            return 0
        finally:
            _close_broker_session(channel)
        return int(declared.message_count)


def _close_broker_session(channel: Any) -> None:
    """Kombu's SQLAlchemy transport leaves each channel's session open in a transaction, and
    closing the channel does not end it: a poll loop would drain the broker's pool."""
    session = getattr(channel, "_session", None)
    if session is not None:
        session.close()


def test_two_workers_racing_over_one_turn_resolve_it_once(live: Database) -> None:
    quiet = Database(live.settings, dispatch=lambda name, args: None)
    with quiet.transaction() as session:
        data = {"name": "Alice", "emails": ["alice@example.org"]}
        alice, _ = players.create(session, None, data)
        bob, _ = players.create(session, None, {"name": "Bob", "emails": ["bob@example.org"]})
        game = games.create(session, alice, {"game": "duel", "seats": [alice.id, bob.id]})
        games.submit(session, game.id, alice, 1, "3")
        games.submit(session, game.id, bob, 1, "2")
        game_id = game.id
    for _ in range(20):
        resolve_turn.apply_async(args=(game_id, 1))
    with worker_processes(live_env_of(live), count=2):
        wait_for(lambda: queued(live) == 0, "take every task")
    with live.transaction() as session:
        game = session.get_one(Game, game_id)
        turns = session.scalars(select(Turn).where(Turn.game_id == game_id)).all()
        steps = session.scalar(
            select(func.count()).select_from(Step).where(Step.game_id == game_id)
        )
        told = session.scalars(select(LogEntry.text).where(LogEntry.kind == "info")).all()
        mail = session.scalars(select(Outbox.key).where(Outbox.kind == "turn_resolved")).all()
    assert game.turn == 2 and [t.number for t in turns] == [1, 2]
    assert turns[0].resolved_by == "orders" and steps == 2
    assert told == ["3 against 2"]
    assert sorted(mail) == [f"turn:{game_id}:1:0", f"turn:{game_id}:1:1"]
