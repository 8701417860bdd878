"""``pbem game ...``: create a game (from a position too), export and import its record.

Straight on the database, like ``pbem league``. Errors print one line and exit with status 2.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, TextIO

import click

from service import games, records
from service.cli.engine import parse_options
from service.cli.league import _player, _session


@click.group("game")
def game_group() -> None:
    """Games: create one (from a position too), export or import its record."""


@game_group.command("create")
@click.argument("game_name", metavar="GAME")
@click.argument("seats", nargs=-1, required=True, metavar="PLAYER...")
@click.option("--by", required=True, metavar="EMAIL", help="The director creating the game.")
@click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE")
@click.option("--position", metavar="POS", help="Start from this position string.")
@click.option("--days", type=float, help="Days per turn (or per move).")
@click.option("--forfeit-after", type=int, help="Missed turns in a row that forfeit (0: never).")
def create_command(
    game_name: str,
    seats: tuple[str, ...],
    by: str,
    options: tuple[str, ...],
    position: str | None,
    days: float | None,
    forfeit_after: int | None,
) -> None:
    """Create a game of GAME between PLAYERs (e-mail addresses or ids, in seat order) and
    print its id; its players get the first mail."""
    data: dict[str, Any] = {"game": game_name, "options": parse_options(options)}
    control = {"days": days, "forfeit_after": forfeit_after}
    if any(value is not None for value in control.values()):
        data["time_control"] = {k: v for k, v in control.items() if v is not None}
    if position is not None:
        data["position"] = position
    with _session() as session:
        actor = _player(session, by)
        data["seats"] = [_player(session, seat).id for seat in seats]
        game = games.create(session, actor, data)
        click.echo(game.id)


@game_group.command("export")
@click.argument("game_id", metavar="ID", type=int)
@click.option("--out", "-o", type=click.Path(dir_okay=False), help="Write here, not stdout.")
def export_command(game_id: int, out: str | None) -> None:
    """Print GAME's JSON record with what an import needs. For a running game with dice it
    holds the secret seed: keep the file like a database backup."""
    with _session() as session:
        document = json.dumps(records.export(session, game_id), indent=2, ensure_ascii=False)
    if out:
        Path(out).write_text(document + "\n", encoding="utf-8")
    else:
        click.echo(document)


@game_group.command("import")
@click.argument("source", metavar="FILE", type=click.File("r", encoding="utf-8"))
@click.option("--by", metavar="EMAIL", help="The director importing (else: the command line).")
def import_command(source: TextIO, by: str | None) -> None:
    """Replay an exported record (FILE, or - for stdin) through the engine and store it; a
    record that does not replay is refused with where and why."""
    try:
        data = json.load(source)
    except ValueError as error:
        click.echo(f"error: the file is not JSON: {error}", err=True)
        sys.exit(2)
    with _session() as session:
        actor = _player(session, by) if by else None
        game = records.import_record(session, data, actor)
        click.echo(f"imported game {game.id} ({game.name}, turn {game.turn}, {game.status})")
