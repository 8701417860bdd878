"""Engine, sessions and transactions; tasks queued in a transaction are sent after it commits.

SQLite (the embedded default) gets ``BEGIN IMMEDIATE`` for every transaction, so that two
workers serialise on the database lock the way ``SELECT ... FOR UPDATE`` serialises them on
PostgreSQL.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from service.config import Settings

log = logging.getLogger(__name__)

Dispatch = Callable[[str, tuple[Any, ...]], None]


def _make_engine(url: str) -> Engine:
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True)
    engine = create_engine(url, connect_args={"timeout": 60})

    @event.listens_for(engine, "connect")
    def _no_implicit_transactions(dbapi_connection: Any, record: Any) -> None:
        dbapi_connection.isolation_level = None
        dbapi_connection.execute("PRAGMA foreign_keys = ON")

    @event.listens_for(engine, "begin")
    def _begin_immediate(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


class Database:
    """One engine and session factory for a settings object."""

    def __init__(self, settings: Settings, dispatch: Dispatch | None = None) -> None:
        self.settings = settings
        self.engine = _make_engine(settings.database_url)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        self.dispatch = dispatch or send_task

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """One unit of work; tasks queued with :func:`enqueue` go out after the commit."""
        session = self.sessions()
        session.info["database"] = self
        try:
            with session.begin():
                yield session
            queued = session.info.pop("queued", [])
        finally:
            session.close()
        for name, args in dict.fromkeys(queued):
            self.dispatch(name, args)


def enqueue(session: Session, name: str, *args: Any) -> None:
    """Send task ``name`` once the session's transaction commits (dropped on rollback)."""
    session.info.setdefault("queued", []).append((name, args))


def send_task(name: str, args: tuple[Any, ...]) -> None:
    """Hand a task to Celery; if the broker is down the periodic sweep finds the work later."""
    import workers.tasks  # noqa: F401  (registers the tasks)
    from workers.app import celery

    try:
        celery.tasks[name].apply_async(args=args)
    except Exception:  # the sweep re-finds every piece of work, so a lost send loses nothing
        log.warning("could not queue %s%r; the sweep will pick it up", name, args, exc_info=True)


_current: Database | None = None


def configure(settings: Settings, dispatch: Dispatch | None = None) -> Database:
    """Make ``settings`` the process's database; load extra game modules it names."""
    global _current
    settings.prepare()
    for module in settings.game_modules:
        importlib.import_module(module)
    if _current is not None:
        _current.engine.dispose()
    _current = Database(settings, dispatch)
    return _current


def current() -> Database:
    return _current if _current is not None else configure(Settings.from_env())
