"""What the service benchmarks share: PostgreSQL + Redis as on CI, a schema and a queue of the
run's own, real worker / web / SMTP processes, and bulk set-up of players and games.

Never imported by the service or its tests: only ``bench/*.py`` use it.
"""

from __future__ import annotations

import os
import secrets
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PG_URL = os.environ.get("BENCH_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")


def ensure_services() -> None:
    """Start PostgreSQL and Redis the way ``.ci/run`` does when they are not running."""
    script = ROOT / ".ci" / "run"
    text = script.read_text()
    function = text[text.index("ensure_services() {") : text.index("\n}\n") + 3]
    subprocess.run(["bash", "-c", function + "\nensure_services"], check=False)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def service_env(**extra: str) -> Iterator[dict[str, str]]:
    """A fresh PostgreSQL schema (migrated) and Redis queue; the env every process gets.

    The bench process itself is configured from it (``os.environ``) before the service is
    imported further, so ``service.db`` and ``workers.app`` point at the same places.
    """
    from sqlalchemy import create_engine, text

    ensure_services()
    schema = f"pbem_bench_{secrets.token_hex(4)}"
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f"CREATE SCHEMA {schema}"))
    var = Path(os.environ.get("TMPDIR", "/tmp")) / schema
    env = {
        "DATABASE_URL": f"{PG_URL}?options=-csearch_path%3D{schema}",
        "CELERY_BROKER_URL": REDIS_URL,
        "PBEM_QUEUE": schema,
        "PBEM_VAR_DIR": str(var),
        "PBEM_SECRET_KEY": "bench-" + secrets.token_hex(8),
        "PBEM_SWEEP_SECONDS": "3600",
        "PBEM_REQUEUE_SECONDS": "3600",
        "PBEM_REMINDER_HOURS": "",
        "PYTHONPATH": str(ROOT),
        **extra,
    }
    os.environ.update(env)
    from service import db, migrate
    from service.config import Settings
    from workers import app as worker_app

    worker_app.configure(Settings.from_env())
    database = db.configure(Settings.from_env())
    migrate.upgrade(database)
    try:
        yield env
    finally:
        database.engine.dispose()
        with admin.connect() as connection:
            connection.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()
        _drop_queue(schema)


def _drop_queue(queue: str) -> None:
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    client.delete(queue, f"_kombu.binding.{queue}")
    client.close()


class Processes:
    """Child processes started for one run, stopped (by their own ids) at the end."""

    def __init__(self) -> None:
        self.children: list[subprocess.Popen[bytes]] = []

    def start(
        self, argv: Sequence[str], env: dict[str, str], ready: str | None = None, timeout=120.0
    ) -> subprocess.Popen[bytes]:
        """Start ``argv``; with ``ready``, wait until that text appears in its output."""
        child = subprocess.Popen(
            list(argv),
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        self.children.append(child)
        seen = threading.Event()
        lines: list[str] = []

        def pump() -> None:
            assert child.stdout is not None
            for raw in child.stdout:
                line = raw.decode(errors="replace")
                if len(lines) < 2000:
                    lines.append(line)
                if ready and ready in line:
                    seen.set()
                if os.environ.get("BENCH_VERBOSE"):
                    sys.stderr.write(line)

        threading.Thread(target=pump, daemon=True).start()
        if ready and not seen.wait(timeout):
            raise RuntimeError(f"{argv[:4]} never said {ready!r}:\n{''.join(lines[-30:])}")
        return child

    def stop(self) -> None:
        for child in self.children:
            if child.poll() is None:
                child.terminate()
        for child in self.children:
            try:
                child.wait(timeout=30)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        self.children.clear()


@contextmanager
def processes() -> Iterator[Processes]:
    running = Processes()
    try:
        yield running
    finally:
        running.stop()


def worker_argv(app: str = "workers.app", concurrency: int = 2, name: str = "bench1") -> list[str]:
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        app,
        "worker",
        f"--concurrency={concurrency}",
        "--loglevel=INFO",
        "-n",
        f"{name}-{secrets.token_hex(3)}@%h",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]


WORKER_READY = "ready."


def wait_until(check: Callable[[], Any], limit: float, what: str, every: float = 0.1) -> float:
    """Poll ``check`` until truthy; the monotonic time it was first seen true."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if check():
            return time.monotonic()
        time.sleep(every)
    raise SystemExit(f"gave up after {limit:.0f} s waiting for {what}")


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def load_note() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} / {five:.1f} on {os.cpu_count()} cores"


# -- bulk set-up ---------------------------------------------------------------------------


def add_players(count: int, notify: str = "each") -> list[int]:
    """``count`` players with one address each, inserted in bulk; their ids."""
    from sqlalchemy import insert

    from service import db
    from service.models import Email, Player

    tag = secrets.token_hex(3)
    with db.current().transaction() as session:
        ids = list(
            session.scalars(
                insert(Player).returning(Player.id),
                [
                    {"name": f"P{tag}{i}", "roles": ["player"], "notify": notify}
                    for i in range(count)
                ],
            )
        )
        session.execute(
            insert(Email),
            [{"player_id": pid, "address": f"p{pid}.{tag}@example.org"} for pid in ids],
        )
    return ids


def token_for(player_id: int) -> str:
    """A fresh API token of the player (as ``pbem player add`` would print)."""
    from service import db, players
    from service.models import Player

    with db.current().transaction() as session:
        player = session.get_one(Player, player_id)
        return players.issue_token(session, player)


def clone_games(template_id: int, seat_pairs: Sequence[tuple[int, int]]) -> list[int]:
    """Copies of game ``template_id`` (as it stands: its state and its open turn) with other
    players in its seats; inserted in bulk, so a 10,000-game storm is set up in seconds."""
    from sqlalchemy import insert, select

    from service import db
    from service.models import Game, Seat, Turn

    with db.current().transaction() as session:
        game = session.get_one(Game, template_id)
        turn = session.scalar(select(Turn).where(Turn.game_id == game.id, Turn.number == game.turn))
        assert turn is not None
        copy = {
            column: getattr(game, column)
            for column in (
                "name",
                "options",
                "players",
                "status",
                "time_control",
                "state",
                "turn",
                "rolls",
                "draw_offers",
                "seed",
                "commitment",
                "created_by",
                "created_at",
            )
        }
        ids = list(session.scalars(insert(Game).returning(Game.id), [copy for _ in seat_pairs]))
        session.execute(
            insert(Seat),
            [
                {"game_id": gid, "seat": seat, "player_id": pid, "missed": 0}
                for gid, pair in zip(ids, seat_pairs, strict=True)
                for seat, pid in enumerate(pair)
            ],
        )
        session.execute(
            insert(Turn),
            [
                {
                    "game_id": gid,
                    "number": turn.number,
                    "phase": turn.phase,
                    "to_act": turn.to_act,
                    "state": turn.state,
                    "started_at": turn.started_at,
                    "deadline": turn.deadline,
                    "waiting": [],
                    "reminders_sent": [],
                    "events": [],
                }
                for gid in ids
            ],
        )
    return ids


def new_game(name: str, seats: Sequence[int], days: float = 3) -> int:
    """One game made through the service (no mail: its players want none while set up)."""
    from service import db, games
    from service.models import Player

    with db.current().transaction() as session:
        actor = session.get_one(Player, seats[0])
        data = {"game": name, "seats": list(seats), "time_control": {"days": days}}
        return games.create(session, actor, data).id


def set_notify(player_ids: Sequence[int], notify: str) -> None:
    from sqlalchemy import update

    from service import db
    from service.models import Player

    with db.current().transaction() as session:
        session.execute(update(Player).where(Player.id.in_(player_ids)).values(notify=notify))


def print_table(title: str, rows: Sequence[tuple[str, str]]) -> None:
    print(f"\n== {title} ==")
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"  {name.ljust(width)}  {value}")
