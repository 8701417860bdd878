"""``pbem status``: the service at a glance, for a person (``/metrics`` for Prometheus)."""

from __future__ import annotations

import json
import sys

import click
from sqlalchemy.exc import SQLAlchemyError

from service import db
from service.config import Settings
from service.ops import health, metrics


@click.command("status")
@click.option("--json", "as_json", is_flag=True, help="The figures as one JSON object.")
def status_command(as_json: bool) -> None:
    """Database and broker reachable, turns due, mail unsent and failing, inbound mail
    failed, and what the last minute brought. Exit 1 when something is down."""
    database = db.configure(Settings.from_env())
    checked, code = health.check(database)
    figures = None
    if checked["database"] == "ok":
        try:
            with database.transaction() as session:
                figures = metrics.snapshot(session)
        except SQLAlchemyError as error:
            reason = " ".join(str(error).split())[:200]
            checked["database"], code = f"unreadable (run pbem db upgrade?): {reason}", 503
    if as_json:
        click.echo(json.dumps({**checked, **(figures.to_json() if figures else {})}))
    else:
        click.echo(f"database                   {checked['database']}")
        click.echo(f"broker                     {checked['broker']}")
        for line in metrics.for_people(figures) if figures else []:
            click.echo(line)
    sys.exit(0 if code == 200 else 1)
