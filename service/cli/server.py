"""``pbem run`` (web + worker + beat), ``pbem db upgrade`` and ``pbem player add|list|token``."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from typing import Any

import click

from service import db, migrate, players
from service.config import Settings

PROCESSES = {
    "web": [
        "-m",
        "gunicorn",
        "--config",
        "python:service.gunicorn_conf",
        "--bind",
        "{bind}",
        "--workers",
        "{workers}",
        "service.app:create_app()",
    ],
    "worker": ["-m", "celery", "-A", "workers.app", "worker", "--pool=solo", "--loglevel=INFO"],
    "beat": ["-m", "celery", "-A", "workers.app", "beat", "--loglevel=INFO"],
    "smtp": ["-c", "from service.cli import main; main(['mail', 'smtpd'])"],
}


WEB_HOST = "127.0.0.1"  # loopback unless PBEM_WEB_BIND opens it (see service.gunicorn_conf)
STOP_SECONDS = 30  # a process still running this long after SIGTERM is killed


def web_address(port: int) -> tuple[str, int]:
    """Where the API listens: ``PBEM_WEB_BIND`` (``HOST:PORT``, as gunicorn reads it in
    ``Procfile``'s ``web``) when set, else loopback on ``port``."""
    bind = os.environ.get("PBEM_WEB_BIND", "").strip()
    if not bind:
        return WEB_HOST, port
    host, _, number = bind.rpartition(":")
    if not host or not number.isdigit():
        raise click.UsageError(
            f"PBEM_WEB_BIND must read HOST:PORT (e.g. 0.0.0.0:8000), not {bind!r}"
        )
    return host.strip("[]"), int(number)


def bind_option(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def cannot_listen(host: str, port: int) -> str | None:
    """Why ``host:port`` cannot be listened on now (e.g. another server has it), or None."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the servers do
        try:
            probe.bind((host, port))
        except OSError as error:
            return error.strerror or str(error)
    return None


def _check_ports(settings: Settings, web_host: str, port: int) -> None:
    """Stop with exit status 1 before starting anything when a listening port is taken."""
    web_fix = (
        "change PBEM_WEB_BIND" if os.environ.get("PBEM_WEB_BIND") else "choose another with --port"
    )
    wanted = [
        (web_host, port, "the web API", web_fix),
        (settings.smtpd_host, settings.smtpd_port, "the SMTP listener", "set PBEM_SMTPD_PORT"),
    ]
    for host, number, what, fix in wanted:
        if reason := cannot_listen(host, number):
            click.echo(
                f"error: cannot start {what} on {host}:{number}: {reason} "
                f"(is another pbem run going?); {fix}",
                err=True,
            )
            sys.exit(1)


@click.command("run")
@click.option(
    "--port",
    default=5000,
    envvar="PBEM_PORT",
    show_default=True,
    help="Port of the web API on 127.0.0.1 (PBEM_WEB_BIND=HOST:PORT listens elsewhere).",
)
def run_command(port: int) -> None:
    """Migrate, then run web, worker, beat and the SMTP listener until Ctrl-C (embedded
    defaults need no server). Exit status 1 when a port is taken or a process stops."""
    settings = Settings.from_env()
    web_host, port = web_address(port)
    _check_ports(settings, web_host, port)
    bind = bind_option(web_host, port)
    migrate.upgrade(db.configure(settings))
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from service import gunicorn_conf  # here: only ``run`` needs the web's settings

    workers = gunicorn_conf.workers_setting(shared=True)
    # The port reaches every process: the links in mails follow it (``config.local_url``).
    env = {**os.environ, "PBEM_PORT": str(port)}
    children = {
        name: subprocess.Popen(
            [sys.executable, *(a.format(bind=bind, workers=workers) for a in args)], env=env
        )
        for name, args in PROCESSES.items()
    }
    click.echo(f"pbem: API on http://{bind}/api/v1 (Ctrl-C stops everything)")
    stopped: list[str] = []
    try:
        while not stopped:
            time.sleep(0.5)
            stopped = [name for name, child in children.items() if child.poll() is not None]
    except KeyboardInterrupt:
        pass
    finally:
        for child in children.values():
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        for name, child in children.items():
            try:
                child.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                click.echo(f"pbem: the {name} process did not stop; killed it", err=True)
                child.kill()
                child.wait()
    if stopped:
        name = stopped[0]
        status = children[name].returncode
        click.echo(
            f"error: the {name} process stopped (exit status {status}); stopped the others",
            err=True,
        )
        sys.exit(1)


@click.group("db")
def db_group() -> None:
    """The database schema."""


@db_group.command("upgrade")
def upgrade_command() -> None:
    """Apply every migration (creates the SQLite file under var/ by default)."""
    migrate.upgrade(db.configure(Settings.from_env()))
    click.echo("database is up to date")


@db_group.command("copy")
@click.option("--to", "target", required=True, metavar="URL", help="The empty database to fill.")
def copy_command(target: str) -> None:
    """Copy the whole service (players, games, leagues, outbox, inbound mail) from this
    database (DATABASE_URL) to an empty one, e.g. postgresql+psycopg://user@host/pbem, then
    compare the row counts of every table; exit 1 if any differs."""
    from service import dbcopy

    source = db.configure(Settings.from_env())
    migrate.upgrade(source)
    try:
        counts = dbcopy.copy(source, target)
    except dbcopy.CopyRefused as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)
    for count in counts:
        mark = "ok" if count.ok else "DIFFERS"
        click.echo(f"{count.table:<24} {count.source:>8} -> {count.target:>8}  {mark}")
    if not all(count.ok for count in counts):
        click.echo("error: the copy is incomplete: some tables differ", err=True)
        sys.exit(1)
    click.echo(
        f"copied {sum(c.target for c in counts)} rows; run the service with DATABASE_URL set "
        "to the new database and the same PBEM_SECRET_KEY (or var/secret_key)"
    )


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


@player_group.command("list")
@click.option("--search", default="", metavar="TEXT", help="Part of a name or an address.")
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON instead of a table.")
def list_command(search: str, as_json: bool) -> None:
    """Every player (or those matching TEXT, in any case): id, name, roles, addresses and
    games (active/all), in id order."""
    from service.errors import ServiceError

    database = db.configure(Settings.from_env())
    migrate.upgrade(database)
    found: list[dict[str, Any]] = []
    try:
        with database.transaction() as session:
            offset: int | None = 0
            while offset is not None:  # page by page, as the API's clients read it
                page = players.directory(session, None, search, players.PAGE_MAX, offset)
                found += page["players"]
                offset = page["next_offset"]
    except ServiceError as error:
        click.echo(f"error: {error.message}", err=True)
        sys.exit(2)
    if as_json:
        click.echo(json.dumps({"players": found}, indent=2, ensure_ascii=False))
    elif not found:
        click.echo("no players" + (f" match {search!r}" if search else ""))
    else:
        click.echo(_table(found))


def _table(found: list[dict[str, Any]]) -> str:
    """Columns as wide as their longest cell; a player's addresses comma-separated."""
    header = ("ID", "NAME", "ROLES", "ADDRESSES", "GAMES")
    rows = [
        (
            str(item["id"]),
            item["name"],
            ",".join(item["roles"]),
            ", ".join(item["emails"]),
            f"{item['active_games']}/{item['games']}",
        )
        for item in found
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    )


@player_group.command("token")
@click.argument("email")
def token_command(email: str) -> None:
    """Issue a new API token for the player with address EMAIL and print it (the only time
    it is shown); their earlier token stops working."""
    database = db.configure(Settings.from_env())
    migrate.upgrade(database)
    with database.transaction() as session:
        player = players.by_address(session, email)
        if player is None:
            click.echo(
                f"error: no player has the address {email.strip()!r}; "
                "see `pbem player list --search TEXT`",
                err=True,
            )
            sys.exit(2)
        token = players.issue_token(session, player)
    click.echo(token)
