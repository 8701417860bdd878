"""``pbem run`` (web + worker + beat), ``pbem db upgrade`` and ``pbem player add``."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import click

from service import db, migrate, players
from service.config import Settings

PROCESSES = {
    "web": ["-m", "flask", "--app", "service.app:create_app", "run", "--port", "{port}"],
    "worker": ["-m", "celery", "-A", "workers.app", "worker", "--pool=solo", "--loglevel=INFO"],
    "beat": ["-m", "celery", "-A", "workers.app", "beat", "--loglevel=INFO"],
    "smtp": ["-c", "from service.cli import main; main(['mail', 'smtpd'])"],
}


@click.command("run")
@click.option("--port", default=5000, show_default=True, help="Port of the web API.")
def run_command(port: int) -> None:
    """Migrate, then run web, worker and beat until Ctrl-C (embedded defaults need no server)."""
    migrate.upgrade(db.configure(Settings.from_env()))
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    children = [
        subprocess.Popen([sys.executable, *(a.format(port=port) for a in args)])
        for args in PROCESSES.values()
    ]
    click.echo(f"pbem: API on http://127.0.0.1:{port}/api/v1 (Ctrl-C stops everything)")
    try:
        while all(child.poll() is None for child in children):
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        for child in children:
            child.wait()


@click.group("db")
def db_group() -> None:
    """The database schema."""


@db_group.command("upgrade")
def upgrade_command() -> None:
    """Apply every migration (creates the SQLite file under var/ by default)."""
    migrate.upgrade(db.configure(Settings.from_env()))
    click.echo("database is up to date")


@click.group("player")
def player_group() -> None:
    """Player accounts."""


@player_group.command("add")
@click.argument("name")
@click.argument("email")
@click.option("--role", "roles", multiple=True, type=click.Choice(["player", "td", "admin"]))
def add_command(name: str, email: str, roles: tuple[str, ...]) -> None:
    """Create a player and print their API token (the only time it is shown)."""
    from service.errors import ServiceError

    database = db.configure(Settings.from_env())
    migrate.upgrade(database)
    try:
        with database.transaction() as session:
            data = {"name": name, "emails": [email], "roles": list(roles) or ["player"]}
            _, token = players.create(session, None, data)
    except ServiceError as error:
        click.echo(f"error: {error.message}", err=True)
        sys.exit(2)
    click.echo(token)
