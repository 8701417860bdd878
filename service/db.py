"""Engine, sessions and transactions; tasks queued in a transaction are sent after it commits.

Tasks leave through a port, a :data:`Dispatch` function: the worker package plugs Celery in
(``workers.app`` calls :func:`plug`); this layer knows only task names and arguments. A
process that has no port plugged in yet imports ``PBEM_TASK_PORT`` (``workers.app``) once.

SQLite (the embedded default) gets ``BEGIN IMMEDIATE`` for every transaction, so that two
workers serialise on the database lock the way ``SELECT ... FOR UPDATE`` serialises them on
PostgreSQL.

On PostgreSQL two transactions can still deadlock or fail to serialise (rows are locked in
the order of ``service/games/__init__.py``'s docstring: rare, not impossible): every
API request, every task and so the mail gateway run through :func:`retrying`, which runs the
whole unit of work again, a bounded number of times, when the database says so. That is
safe because a unit of work is one transaction whose queued tasks go out only after commit.
"""

from __future__ import annotations

import functools
import importlib
import logging
import os
import random
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, ParamSpec, TypeVar

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from service.config import Settings
from service.errors import Conflict

log = logging.getLogger(__name__)

Dispatch = Callable[[str, tuple[Any, ...]], None]
P = ParamSpec("P")
T = TypeVar("T")

RETRY_SQLSTATES = frozenset({"40001", "40P01"})
"""PostgreSQL's serialization_failure and deadlock_detected: the work may simply run again."""
ATTEMPTS = 6


class Busy(Conflict):
    """Still conflicting after every attempt: refused, nothing changed, worth another try."""

    code = "busy"


def is_conflict(error: BaseException | None) -> bool:
    """Whether ``error`` (or what caused it) is a deadlock or a serialization failure."""
    seen = 0
    while error is not None and seen < 10:
        original = error.orig if isinstance(error, DBAPIError) else error
        if getattr(original, "sqlstate", None) in RETRY_SQLSTATES:
            return True
        error, seen = error.__cause__ or error.__context__, seen + 1
    return False


def retrying(work: Callable[P, T]) -> Callable[P, T]:
    """Run ``work`` (one or more whole transactions) again on a deadlock or serialization
    failure, up to :data:`ATTEMPTS` times with a growing random pause; then :class:`Busy`."""

    @functools.wraps(work)
    def attempt(*args: P.args, **kwargs: P.kwargs) -> T:
        for number in range(1, ATTEMPTS + 1):
            try:
                return work(*args, **kwargs)
            except Exception as error:
                if not is_conflict(error):
                    raise
                log.info("%s: conflict on attempt %d, running it again", work.__name__, number)
                time.sleep(random.uniform(0, 0.02 * 2**number))
        raise Busy("the service was busy with a conflicting change; nothing was changed, try again")

    return attempt


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


class Work(Session):
    """One unit of work: the session of one transaction, and what the transaction gathers for
    after its commit, as typed fields (nothing passes between modules in ``session.info``).

    ``database``: the :class:`Database` it belongs to (settings, dispatch).
    ``queued``: tasks to send once the transaction commits (:func:`enqueue`).
    ``gathering``: while not None, the game mails held for one mail per reader and game
    (``service.notify.gather``/``release``; its items are ``notify``'s pending mails).
    ``league_rounds``: game id -> its league's id, name, the round and its ``max_game_days``
    (for the mails' cap notice), or None: read with
    the locked game (``games.aggregate.lock_row``) or by ``notify.league_round``.
    ``chain_heads``: game id -> its newest chain link's number and hash, or None before any:
    read once, after the game is locked, and kept by ``service.chain`` as it appends.
    ``conditionals``: game id -> whether it may have active conditional moves: read with the
    chain's head (``games.consequences``), set when one is added (``service.conditional``).
    ``webhooks``: game id -> whether a hook of its players or league exists: read with the
    locked game, or else with the chain's head (``service.webhooks.exists_for``), so that a
    game without hooks costs no statement for them.
    ``turns``: (game id, number) -> the turn row read with the locked game, or opened by it
    (``service.games``): the open turn's deadline and the last move's board are read from
    these rather than again (issue 23).
    ``outbox_batch``: while not None, the outbox rows written but not yet inserted, to insert
    in one statement (``notify``'s mails of one event, issue 23).
    ``last_moves``: (game id, turn, status) -> the last move's line and squares
    (``service.reader.last_move``), worked out once for every seat's mail.
    ``scenes``: game id -> (the game's moment, its scene): what every reader's view of an
    event is drawn from after commit (``notify.game_scene``), worked out once per event.
    """

    def __init__(self, *args: Any, database: Database | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.database = database
        self.queued: list[tuple[str, tuple[Any, ...]]] = []
        self.gathering: list[Any] | None = None
        self.league_rounds: dict[int, tuple[int, str, int, int | None] | None] = {}
        self.chain_heads: dict[int, tuple[int, str] | None] = {}
        self.turns: dict[tuple[int, int], Any] = {}
        self.conditionals: dict[int, bool] = {}
        self.webhooks: dict[int, bool] = {}
        self.outbox_batch: list[Any] | None = None
        self.last_moves: dict[tuple[int, int, str], Any] = {}  # reader.LastMove
        self.scenes: dict[int, tuple[tuple[Any, ...], dict[str, Any]]] = {}


@event.listens_for(Work, "after_soft_rollback")
@event.listens_for(Work, "after_commit")
def _forget_rows_read(session: Session, *rest: Any) -> None:
    """What was read with a locked game holds only while its transaction (or savepoint) does."""
    if isinstance(session, Work):
        session.league_rounds.clear()
        session.chain_heads.clear()
        session.turns.clear()
        session.conditionals.clear()
        session.webhooks.clear()
        session.last_moves.clear()
        session.scenes.clear()


def work_of(session: Session) -> Work:
    """``session`` as the unit of work it is (every session :class:`Database` makes is one)."""
    if not isinstance(session, Work):
        raise TypeError(f"not a unit of work: {session!r}")
    return session


class Database:
    """One engine and session factory for a settings object."""

    def __init__(self, settings: Settings, dispatch: Dispatch | None = None) -> None:
        self.settings = settings
        self.engine = _make_engine(settings.database_url)
        self.sessions = sessionmaker(
            self.engine, class_=Work, expire_on_commit=False, database=self
        )
        self.dispatch = dispatch or send_task

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """One unit of work; tasks queued with :func:`enqueue` go out after the commit."""
        session = self.sessions()
        try:
            with session.begin():
                yield session
            queued, session.queued = session.queued, []
        finally:
            session.close()
        held = _held.get()
        if held is not None:
            held.extend(queued)
        else:
            self.dispatch_all(queued)

    @contextmanager
    def held_tasks(self) -> Iterator[None]:
        """Tasks of every transaction inside go out together at the end (a batch of
        resolutions sends its mail as a few batches, not one task per mail). A crash before
        the end loses only the sending, which the sweep finds again."""
        held: list[tuple[str, tuple[Any, ...]]] = []
        token = _held.set(held)
        try:
            yield
        finally:
            _held.reset(token)
            self.dispatch_all(held)

    def dispatch_all(self, queued: Sequence[tuple[str, tuple[Any, ...]]]) -> None:
        """Each task once; tasks with a batch form go out as batches of their ids."""
        batches: dict[str, list[Any]] = {}
        unique = {(name, repr(args)): (name, args) for name, args in queued}
        for name, args in unique.values():
            if name in _batched and len(args) == 1:
                batches.setdefault(name, []).append(args[0])
            else:
                self.dispatch(name, args)
        for name, ids in batches.items():
            if len(ids) == 1:
                self.dispatch(name, (ids[0],))
                continue
            for start in range(0, len(ids), BATCH_SIZE):
                self.dispatch(_batched[name], (ids[start : start + BATCH_SIZE],))


BATCH_SIZE = 100
_batched: dict[str, str] = {}
_held: ContextVar[list[tuple[str, tuple[Any, ...]]] | None] = ContextVar("held", default=None)


def batch_as(task: str, batch_task: str) -> None:
    """Declare that ``batch_task`` takes a list of the ids ``task`` takes one at a time."""
    _batched[task] = batch_task


def enqueue(session: Session, name: str, *args: Any) -> None:
    """Send task ``name`` once the session's transaction commits (dropped on rollback)."""
    work_of(session).queued.append((name, args))


_port: Dispatch | None = None


def plug(dispatch: Dispatch) -> None:
    """The worker package's way of taking tasks (``workers.app`` plugs Celery in)."""
    global _port
    _port = dispatch


def send_task(name: str, args: tuple[Any, ...]) -> None:
    """Hand a task to the plugged-in port; if it fails the periodic sweep finds the work."""
    if _port is None:
        importlib.import_module(os.environ.get("PBEM_TASK_PORT") or "workers.app")
    try:
        if _port is None:
            raise LookupError("no task port plugged in")
        _port(name, args)
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
