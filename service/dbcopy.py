"""``pbem db copy --to URL``: move a whole service to another database (SQLite → PostgreSQL).

The target is migrated to the same schema, must hold no rows yet, and receives every table
of the models in foreign-key order, ids and all, in one transaction; then each id sequence
is moved past the copied ids and the row count of every table is compared. Players, tokens,
games in every state, turns, orders, steps, the log, leagues, ratings, the audit log, the
outbox (sent, unsent, failing) and inbound mail all go; the broker does not (queued tasks
are found again by the sweeps: due turns, unsent mail and unprocessed inbound mail).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from sqlalchemy import Table, func, select

from service import migrate, sequences
from service.db import Database
from service.models import Base

BATCH = 500


class CopyRefused(Exception):
    pass


@dataclass(frozen=True)
class TableCount:
    table: str
    source: int
    target: int

    @property
    def ok(self) -> bool:
        return self.source == self.target


def _tables() -> list[Table]:
    return list(Base.metadata.sorted_tables)


def _count(database: Database, table: Table) -> int:
    with database.engine.connect() as connection:
        return int(connection.scalar(select(func.count()).select_from(table)) or 0)


def copy(
    source: Database, target_url: str, progress: Callable[[str], None] = lambda _: None
) -> list[TableCount]:
    """Copy every table; returns the per-table counts (compare ``ok``)."""
    if target_url == source.settings.database_url:
        raise CopyRefused("the target is the database the service runs on")
    target = Database(replace(source.settings, database_url=target_url))
    try:
        migrate.upgrade(target)
        busy = [t.name for t in _tables() if _count(target, t)]
        if busy:
            raise CopyRefused(
                f"the target already holds rows (in {', '.join(busy)}): copy into an empty one"
            )
        with source.engine.connect() as reading, target.engine.begin() as writing:
            for table in _tables():
                rows = reading.execution_options(yield_per=BATCH).execute(
                    select(table).order_by(*table.primary_key.columns)
                )
                copied = 0
                for batch in rows.partitions(BATCH):
                    writing.execute(table.insert(), [dict(row._mapping) for row in batch])
                    copied += len(batch)
                if "id" in table.columns:
                    sequences.bump(writing, table.name)
                progress(f"{table.name}: {copied}")
        return [TableCount(t.name, _count(source, t), _count(target, t)) for t in _tables()]
    finally:
        target.engine.dispose()
