"""``pbem db copy`` (issue 15): a service on SQLite with games in every state, a league and
mail sent, unsent and failing is copied to an empty PostgreSQL schema; every table's count
matches, and the copied service runs on there with real worker and beat processes: the
overdue sealed turn resolves, the unsent and failing mail goes out, players' tokens still
work, a move plays and a new game takes the next free id."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine, func, select, text, update
from sqlalchemy.exc import OperationalError

from service import db
from service.cli import main
from service.config import Settings
from service.db import Database
from service.models import Game, Outbox, Turn
from tests.service.conftest import TOYS, Client
from tests.service.live import live_env, settings_from, wait_for, worker_processes
from workers.app import configure

pytestmark = pytest.mark.integration

POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


@pytest.fixture
def empty_postgres() -> Iterator[str]:
    base = os.environ.get("DATABASE_URL", "")
    base = base.split("?")[0] if base.startswith("postgresql") else POSTGRES
    schema = f"pbem_copy_{secrets.token_hex(4)}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text(f"CREATE SCHEMA {schema}"))
    except OperationalError as error:
        pytest.skip(f"no PostgreSQL at {base}: {error}")
    yield f"{base}?options=-csearch_path%3D{schema}"
    with admin.connect() as connection:
        connection.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    admin.dispose()


def a_busy_service(database: Database, admin: Client, alice: Client, bob: Client) -> dict[str, int]:
    """Games running, sealed with orders pending, resigned and void; a league; mail."""
    seats = [alice.id, bob.id]
    running = admin.ok(
        "POST", "/games", {"game": "epaminondas", "options": {"board": "8x8"}, "seats": seats}, 201
    )["game"]["id"]
    alice.ok("POST", f"/games/{running}/moves", {"turn": 1, "text": "a1-a3"})
    sealed = admin.ok("POST", "/games", {"game": "duel", "seats": seats}, 201)["game"]["id"]
    alice.ok("POST", f"/games/{sealed}/moves", {"turn": 1, "text": "3"})
    past = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
    admin.ok("PATCH", f"/games/{sealed}/deadline", {"deadline": past})
    resigned = admin.ok("POST", "/games", {"game": "countdown", "seats": seats}, 201)["game"]["id"]
    bob.ok("POST", f"/games/{resigned}/resign")
    void = admin.ok("POST", "/games", {"game": "countdown", "seats": seats}, 201)["game"]["id"]
    admin.ok("POST", f"/games/{void}/void", {"reason": "test"})
    league = admin.ok("POST", "/leagues", {"name": "Club", "game": "countdown"}, 201)["league"]
    admin.ok("POST", f"/leagues/{league['id']}/players", {"players": seats})
    alice.ok("POST", f"/leagues/{league['id']}/accept")
    with database.transaction() as session:
        ids = session.scalars(select(Outbox.id).order_by(Outbox.id)).all()
        session.execute(update(Outbox).where(Outbox.id.in_(ids[:2])).values(sent_at=None))
        session.execute(
            update(Outbox)
            .where(Outbox.id == ids[2])
            .values(
                sent_at=None,
                attempts=3,
                last_error="SMTP 451: try again later",
                next_attempt_at=datetime.now(UTC) - timedelta(minutes=5),
            )
        )
    return {"running": running, "sealed": sealed, "resigned": resigned, "void": void}


def test_a_sqlite_service_moves_to_postgresql_and_runs_on_with_real_workers(
    database: Database,
    admin: Client,
    alice: Client,
    bob: Client,
    settings: Settings,
    empty_postgres: str,
    tmp_path: Path,
) -> None:
    if not database.is_sqlite:
        pytest.skip("the copy starts from SQLite")
    ids = a_busy_service(database, admin, alice, bob)
    env = {
        "DATABASE_URL": settings.database_url,
        "PBEM_VAR_DIR": str(settings.var_dir),
        "PBEM_GAME_MODULES": TOYS,
    }
    result = CliRunner().invoke(main, ["db", "copy", "--to", empty_postgres], env=env)
    assert result.exit_code == 0, result.output
    lines = {line.split()[0]: line for line in result.output.splitlines()}
    for table in ("players", "games", "turns", "orders", "outbox", "leagues", "league_entries"):
        assert lines[table].endswith("ok"), result.output
    again = CliRunner().invoke(main, ["db", "copy", "--to", empty_postgres], env=env)
    assert again.exit_code == 2 and "already holds rows" in again.output

    live = live_env(empty_postgres, tmp_path / "copied")
    target_settings = settings_from(live)
    configure(target_settings)
    target = db.configure(target_settings)
    from service.app import create_app

    app = create_app(target_settings)
    alice_there = Client(app.test_client(), alice.token, alice.player)
    admin_there = Client(app.test_client(), admin.token, admin.player)
    try:
        with worker_processes(live, beat=True):
            resolved = wait_for(lambda: turn_resolved(target, ids["sealed"]), "resolve the turn")
            assert resolved == "deadline"
            wait_for(lambda: unsent(target) == 0, "send the unsent and failing mail")
            game = alice_there.ok("GET", f"/games/{ids['running']}")["game"]
            assert game["turn"] == 2 and game["status"] == "active"
            new = admin_there.ok(
                "POST", "/games", {"game": "countdown", "seats": [alice.id, bob.id]}, 201
            )
            assert new["game"]["id"] == max(ids.values()) + 1
            wait_for(lambda: unsent(target) == 0, "send the new game's mail")
        assert statuses(target) == {
            ids["running"]: "active",
            ids["sealed"]: "active",
            ids["resigned"]: "finished",
            ids["void"]: "void",
            new["game"]["id"]: "active",
        }
    finally:
        target.engine.dispose()


def turn_resolved(database: Database, game_id: int) -> Any:
    with database.transaction() as session:
        turn = session.scalar(select(Turn).where(Turn.game_id == game_id, Turn.number == 1))
        return turn.resolved_by if turn is not None and turn.resolved_at else None


def unsent(database: Database) -> int:
    with database.transaction() as session:
        query = select(func.count()).select_from(Outbox).where(Outbox.sent_at.is_(None))
        return int(session.scalar(query) or 0)


def statuses(database: Database) -> dict[int, str]:
    with database.transaction() as session:
        return {g.id: g.status for g in session.scalars(select(Game))}
