"""``GET /healthz``: can this process reach the database and the broker? For a process
manager or a load balancer: 200 ``{"status": "ok", ...}`` or 503 saying what is down (and
one log line per failure).

The beat's heartbeat (:func:`record_beat`, :func:`last_beat`): every sweep, which beat
schedules, records its time next to the broker, so ``pbem doctor`` can tell whether beat
runs: a Redis key when the broker is Redis (shared by every host), else a file under
``var/`` (the SQLite broker lives there too, so every process shares that folder)."""

from __future__ import annotations

import logging
import os
from datetime import UTC, datetime
from typing import Any

from kombu.connection import Connection
from sqlalchemy import text

from service.config import Settings
from service.db import Database

log = logging.getLogger(__name__)
TIMEOUT = 3.0


def _database(database: Database) -> str:
    with database.engine.connect() as connection:
        connection.execute(text("SELECT 1"))
    return "ok"


def _broker(database: Database) -> str:
    broker = Connection(database.settings.broker_url, connect_timeout=TIMEOUT)  # type: ignore[no-untyped-call]
    with broker as connection:
        connection.ensure_connection(max_retries=1, timeout=TIMEOUT)
    return "ok"


def check(database: Database) -> tuple[dict[str, Any], int]:
    body: dict[str, Any] = {"status": "ok"}
    for name, probe in (("database", _database), ("broker", _broker)):
        try:
            body[name] = probe(database)
        except Exception as error:  # any failure is "down", said in one line
            reason = " ".join(f"{type(error).__name__}: {error}".split())[:300]
            body[name], body["status"] = f"down: {reason}", "down"
            log.error("health check: %s is down: %s", name, reason)
    return body, 200 if body["status"] == "ok" else 503


# -- the beat's heartbeat -----------------------------------------------------------------


def _heartbeat_key(settings: Settings) -> str:
    return f"pbem:{settings.queue}:beat-heartbeat"


def _heartbeat_file(settings: Settings) -> str:
    return str(settings.var_dir / "beat-heartbeat")


def _redis(settings: Settings) -> Any:
    import redis

    return redis.Redis.from_url(settings.broker_url, socket_timeout=TIMEOUT)


def record_beat(settings: Settings, now: datetime) -> None:
    """The time of a sweep, where :func:`last_beat` reads it; never raises (a heartbeat
    that cannot be written must not stop the sweep: ``pbem doctor`` then says beat is down)."""
    stamp = now.astimezone(UTC).isoformat()
    try:
        if settings.broker_url.startswith("redis"):
            _redis(settings).set(_heartbeat_key(settings), stamp)
            return
        path = _heartbeat_file(settings)
        with open(f"{path}.{os.getpid()}", "w") as draft:
            draft.write(stamp)
        os.replace(f"{path}.{os.getpid()}", path)
    except Exception:  # logged; the sweep's own work is done
        log.warning("could not record the beat's heartbeat", exc_info=True)


def last_beat(settings: Settings) -> datetime | None:
    """When a sweep last ran, or None if none ever did (here)."""
    if settings.broker_url.startswith("redis"):
        value = _redis(settings).get(_heartbeat_key(settings))
        text = value.decode() if value else ""
    else:
        try:
            with open(_heartbeat_file(settings)) as file:
                text = file.read().strip()
        except FileNotFoundError:
            text = ""
    return datetime.fromisoformat(text) if text else None
