"""PostgreSQL id sequences after rows were written with their ids given (an import keeping a
game's id, a copy of a whole service): the next id the database hands out must be past them.
SQLite needs nothing (its next id is always past the largest)."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session


def bump(bind: Session | Connection, table: str) -> None:
    engine = bind.get_bind() if isinstance(bind, Session) else bind.engine
    if engine.dialect.name != "postgresql":
        return
    bind.execute(
        text(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
            f"COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)"
        )
    )
