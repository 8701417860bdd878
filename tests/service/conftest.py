"""Service fixtures: a migrated database (SQLite, or PostgreSQL in a fresh schema when
``DATABASE_URL`` says so), an app whose tasks run inline, and API clients per player."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import create_engine, text

import tests.service.toys  # noqa: F401  (registers the toy games at collection)
from service import db, migrate, players
from service.config import Settings
from service.models import Base

TOYS = "tests.service.toys"


@pytest.fixture(scope="session")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A database for this test run only: a new schema on PostgreSQL, a new file on SQLite."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgresql"):
        yield f"sqlite:///{tmp_path_factory.mktemp('db') / 'test.sqlite'}"
        return
    schema = f"pbem_test_{secrets.token_hex(4)}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f"CREATE SCHEMA {schema}"))
    separator = "&" if "?" in url else "?"
    yield f"{url}{separator}options=-csearch_path%3D{schema}"
    with admin.connect() as connection:
        connection.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    admin.dispose()


def make_settings(database_url: str, var_dir: Path, **extra: str) -> Settings:
    env = {
        "DATABASE_URL": database_url,
        "PBEM_VAR_DIR": str(var_dir),
        "PBEM_GAME_MODULES": TOYS,
        **extra,
    }
    return Settings.from_env(env)


@pytest.fixture(scope="session")
def migrated(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    database = db.Database(make_settings(database_url, tmp_path_factory.mktemp("var")))
    migrate.upgrade(database)
    database.engine.dispose()
    return database_url


@pytest.fixture
def settings(migrated: str, tmp_path: Path) -> Settings:
    return make_settings(migrated, tmp_path / "var")


def emptied(database: db.Database) -> db.Database:
    """``database`` with every row of the run's shared schema deleted: each test starts empty."""
    with database.engine.begin() as connection:
        for table in reversed(Base.metadata.sorted_tables):
            connection.execute(table.delete())
    return database


def run_inline(name: str, args: tuple[Any, ...]) -> None:
    import workers.tasks  # noqa: F401  (registers the tasks)
    from workers.app import celery

    celery.tasks[name].apply(args=args)


@pytest.fixture
def database(settings: Settings) -> Iterator[db.Database]:
    database = db.configure(settings, dispatch=run_inline)
    emptied(database)
    yield database
    database.engine.dispose()


@pytest.fixture
def cli_env(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The environment a ``pbem`` command run by ``CliRunner`` reads (this run's database and
    toy games), its tasks run inline as the app's do."""
    configure = db.configure
    monkeypatch.setattr(db, "configure", lambda given: configure(given, dispatch=run_inline))
    return {
        "DATABASE_URL": settings.database_url,
        "PBEM_VAR_DIR": str(settings.var_dir),
        "PBEM_GAME_MODULES": TOYS,
    }


@pytest.fixture
def app(database: db.Database) -> Flask:
    from service.app import create_app

    return create_app(database.settings, dispatch=run_inline)


class Client:
    """The test client with one player's token on every request."""

    def __init__(self, client: FlaskClient, token: str | None, player: dict[str, Any]) -> None:
        self.client, self.token, self.player = client, token, player

    @property
    def id(self) -> int:
        return int(self.player["id"])

    def request(self, method: str, path: str, json: Any = None, **kwargs: Any) -> Any:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return self.client.open(
            "/api/v1" + path, method=method, json=json, headers=headers, **kwargs
        )

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, json: Any = None, **kwargs: Any) -> Any:
        return self.request("POST", path, json=json if json is not None else {}, **kwargs)

    def patch(self, path: str, json: Any = None) -> Any:
        return self.request("PATCH", path, json=json)

    def ok(self, method: str, path: str, json: Any = None, status: int = 200) -> Any:
        response = self.request(method, path, json=json)
        assert response.status_code == status, response.get_data(as_text=True)
        return response.get_json()


@pytest.fixture
def admin(app: Flask, database: db.Database) -> Client:
    with database.transaction() as session:
        data = {"name": "Ada Admin", "emails": ["ada@example.org"], "roles": ["admin"]}
        player, token = players.create(session, None, data)
        info = players.to_json(player, private=True)
    return Client(app.test_client(), token, info)


def new_player(admin: Client, name: str) -> Client:
    data = {"name": name, "emails": [f"{name.lower()}@example.org"]}
    made = admin.ok("POST", "/players", data, status=201)
    return Client(admin.client.application.test_client(), made["token"], made["player"])


@pytest.fixture
def alice(admin: Client) -> Client:
    return new_player(admin, "Alice")


@pytest.fixture
def bob(admin: Client) -> Client:
    return new_player(admin, "Bob")


@pytest.fixture
def anonymous(app: Flask) -> Client:
    return Client(app.test_client(), None, {"id": 0})
