"""Health, metrics and status (issue 15): a backlog made in the test (overdue turns, mail
unsent and failing, an inbound message failed) shows in ``/metrics`` (read back with the
Prometheus client's own parser), in ``pbem status`` and its JSON; ``/healthz`` says 200 with
the database and broker reachable and 503 naming the broker when it is not; failures are
one log line each, in text or JSON."""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner
from flask import Flask
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import select, update

from service.app import create_app
from service.cli import main
from service.config import Settings
from service.db import Database
from service.mail.models import InboundMessage
from service.models import Outbox
from service.ops import logs
from tests.service.conftest import TOYS, Client, run_inline


def backlog(database: Database, admin: Client, alice: Client, bob: Client) -> None:
    """Two overdue turns (oldest an hour), three unsent mails (one failing), one inbound
    message failed."""
    for hours in (1, 0.5):
        data = {"game": "countdown", "seats": [alice.id, bob.id]}
        game_id = admin.ok("POST", "/games", data, 201)["game"]["id"]
        past = (datetime.now(UTC) - timedelta(hours=hours)).isoformat()
        admin.ok("PATCH", f"/games/{game_id}/deadline", {"deadline": past})
    with database.transaction() as session:
        ids = session.scalars(select(Outbox.id).where(Outbox.sent_at.is_not(None))).all()
        session.execute(update(Outbox).where(Outbox.id.in_(ids[:3])).values(sent_at=None))
        session.execute(
            update(Outbox).where(Outbox.id == ids[0]).values(last_error="SMTP 451", attempts=2)
        )
        raw = b"Subject: x\r\n\r\nbroken"
        session.add(
            InboundMessage(
                dedup_key="test-1",
                content_hash=hashlib.sha256(raw).hexdigest(),
                raw=raw,
                channel="inject",
                status="failed",
                attempts=1,
            )
        )


def test_a_backlog_shows_in_metrics_and_status_and_health_is_ok(
    database: Database, app: Flask, admin: Client, alice: Client, bob: Client, settings: Settings
) -> None:
    backlog(database, admin, alice, bob)
    client = app.test_client()
    answer = client.get("/metrics")
    assert answer.status_code == 200 and answer.mimetype == "text/plain"
    samples = {
        sample.name: sample.value
        for family in text_string_to_metric_families(answer.get_data(as_text=True))
        for sample in family.samples
    }
    assert samples["pbem_turns_due"] == 2
    assert 3590 < samples["pbem_oldest_due_turn_age_seconds"] < 3700
    assert samples["pbem_outbox_unsent"] == 3
    assert samples["pbem_outbox_failing"] == 1
    assert samples["pbem_inbound_failed"] == 1
    assert samples["pbem_games_active"] == 2
    assert samples["pbem_mails_sent_last_minute"] >= 1
    assert "pbem_resolutions_last_minute" in samples and "pbem_mails_sent_total" in samples

    health = client.get("/healthz")
    assert health.status_code == 200
    assert health.get_json() == {"status": "ok", "database": "ok", "broker": "ok"}

    env = {
        "DATABASE_URL": settings.database_url,
        "PBEM_VAR_DIR": str(settings.var_dir),
        "PBEM_GAME_MODULES": TOYS,
    }
    shown = CliRunner().invoke(main, ["status"], env=env)
    assert shown.exit_code == 0, shown.output
    assert "turns due                  2 (oldest due for 1 h 0 min)" in shown.output
    assert "mail unsent                3 (1 failing)" in shown.output
    assert "inbound mail failed        1" in shown.output
    as_json = json.loads(CliRunner().invoke(main, ["status", "--json"], env=env).output)
    assert as_json["turns_due"] == 2 and as_json["outbox_failing"] == 1
    assert as_json["broker"] == "ok"


def test_health_is_503_naming_what_is_down_in_one_log_line(
    database: Database, caplog: pytest.LogCaptureFixture
) -> None:
    down = replace(database.settings, broker_url="redis://127.0.0.1:9/0")
    app = create_app(down, dispatch=run_inline)
    with caplog.at_level(logging.ERROR, logger="service.ops.health"):
        answer = app.test_client().get("/healthz")
    assert answer.status_code == 503
    body = answer.get_json()
    assert body["status"] == "down" and body["database"] == "ok"
    assert body["broker"].startswith("down: ")
    [record] = caplog.records
    assert "health check: broker is down" in record.getMessage()
    assert "\n" not in logs.OneLine().format(record)


def test_failures_are_one_line_each_in_text_or_json(capsys: pytest.CaptureFixture[str]) -> None:
    log = logging.getLogger("pbem.test")
    for kind in ("text", "json"):
        logs.setup(kind)
        try:
            raise ValueError("the outbox row 7\nwould not send")
        except ValueError:
            log.exception("sending failed")
        line = capsys.readouterr().err.strip()
        assert "\n" not in line
        if kind == "json":
            entry = json.loads(line)
            assert entry["level"] == "ERROR" and entry["message"] == "sending failed"
            assert entry["error"] == "ValueError: the outbox row 7 would not send"
        else:
            assert line.endswith(
                "ERROR pbem.test: sending failed | ValueError: the outbox row 7 would not send"
            )
    logs.setup("text")
