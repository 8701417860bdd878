"""``GET /healthz``: can this process reach the database and the broker? For a process
manager or a load balancer: 200 ``{"status": "ok", ...}`` or 503 saying what is down (and
one log line per failure)."""

from __future__ import annotations

import logging
from typing import Any

from kombu.connection import Connection
from sqlalchemy import text

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
