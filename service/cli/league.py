"""``pbem league ...``: the tournament director's commands, straight on the database.

Every command takes ``--by EMAIL`` (the director acting, for the audit log; without it the
log says "command line"). Players are named by e-mail address or id. Errors print one line
and exit with status 2.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click
from sqlalchemy.orm import Session

from service import db, migrate, players
from service.config import Settings
from service.errors import NotFound, ServiceError
from service.leagues import director, leagues, seasons
from service.leagues import mail as league_mail
from service.leagues import standings as table
from service.models import Player

FORMATS = click.Choice(list(table.FORMATS))


@contextmanager
def _session() -> Iterator[Session]:
    database = db.configure(Settings.from_env())
    migrate.upgrade(database)
    try:
        with database.transaction() as session:
            yield session
    except ServiceError as error:
        click.echo(f"error: {error.message}", err=True)
        sys.exit(2)


def _player(session: Session, ref: str) -> Player:
    if ref.isdigit():
        return players.get(session, int(ref))
    found = players.by_address(session, ref)
    if found is None:
        raise NotFound(f"no player has the address {ref}")
    return found


def _actor(session: Session) -> Player | None:
    ref = click.get_current_context().find_root().obj or {}
    by = ref.get("by") if isinstance(ref, dict) else None
    return _player(session, by) if by else None


def _show(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


@click.group("league")
@click.option("--by", metavar="EMAIL", help="The director acting (for the audit log).")
@click.pass_context
def league_group(context: click.Context, by: str | None) -> None:
    """Leagues: create, invite, start, watch and intervene."""
    context.find_root().obj = {"by": by}


@league_group.command("create")
@click.argument("name")
@click.option("--game", required=True, help="A game name, e.g. epaminondas.")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE", help="Game option.")
@click.option("--format", "form", type=FORMATS, default="round_robin", show_default=True)
@click.option("--players", type=int, help="Seats per game for tables: 3 or 4.")
@click.option("--rounds", type=int, help="Rounds of a Swiss or of tables.")
@click.option("--draw-rule", type=click.Choice(["replay", "higher_seed", "second_seat"]))
@click.option(
    "--points", metavar="win=1,draw=0.5,...", help="Points for win, draw, loss, bye, forfeit_loss."
)
@click.option("--tiebreak", "tiebreaks", multiple=True, help="Tie-breaks in order.")
@click.option("--starts", help="Start automatically at this ISO 8601 time.")
@click.option(
    "--round-days", type=float, help="Start round N no sooner than N-1 times this after the start."
)
@click.option("--days", type=float, help="Days per turn.")
@click.option("--forfeit-after", type=int, help="Missed turns in a row that forfeit (0: never).")
@click.option("--withdrawal", type=click.Choice(list(leagues.WITHDRAWAL_RULES)))
@click.option("--join-code", help="Players may join with this code.")
@click.option(
    "--min-reliability",
    type=float,
    help="To join: at least this percent of moves on time over the last twelve months.",
)
@click.option(
    "--max-forfeits",
    type=int,
    help="To join: at most this many games lost by forfeit over the last twelve months.",
)
@click.option("--invitation-days", type=int, help="Days an invitation stays open before it lapses.")
@click.option("--max-game-days", type=int, help="Days a game may last before it is adjudicated.")
def create_command(name: str, options: tuple[str, ...], form: str, **given: Any) -> None:
    """Create a league and print its id."""
    data: dict[str, Any] = {"name": name, "game": given["game"], "format": form}
    data["options"] = dict(option.partition("=")[::2] for option in options)
    control = {"days": given["days"], "forfeit_after": given["forfeit_after"]}
    if any(value is not None for value in control.values()):
        data["time_control"] = {k: v for k, v in control.items() if v is not None}
    if given["points"]:
        pairs = [part.partition("=") for part in given["points"].split(",") if part]
        try:
            data["scoring"] = {key.strip(): float(value) for key, _, value in pairs}
        except ValueError:
            click.echo(
                f"error: cannot read --points {given['points']!r}: write win=3,draw=1", err=True
            )
            sys.exit(2)
    fields = {
        "players": "players", "rounds": "rounds", "draw_rule": "draw_rule",
        "starts": "starts_at", "round_days": "round_days", "withdrawal": "withdrawal",
        "join_code": "join_code", "min_reliability": "min_reliability",
        "max_forfeits": "max_forfeits", "invitation_days": "invitation_days",
        "max_game_days": "max_game_days",
    }  # fmt: skip
    data |= {field: given[option] for option, field in fields.items() if given[option] is not None}
    if given["tiebreaks"]:
        data["tiebreaks"] = list(given["tiebreaks"])
    with _session() as session:
        click.echo(leagues.create(session, _actor(session), data).id)


@league_group.command("invite")
@click.argument("league", type=int)
@click.argument("emails", nargs=-1, required=True)
def invite_command(league: int, emails: tuple[str, ...]) -> None:
    """Invite players by e-mail (new addresses become players); each gets a mail."""
    with _session() as session:
        invited = leagues.invite(session, league, _actor(session), {"players": list(emails)})
        for entry in invited:
            click.echo(f"invited {entry.player.name} <{entry.player.address}>")


@league_group.command("accept")
@click.argument("league", type=int)
@click.argument("player")
@click.option("--decline", is_flag=True, help="Record a refusal instead.")
def accept_command(league: int, player: str, decline: bool) -> None:
    """Record a player's answer to their invitation (e.g. one they mailed you)."""
    with _session() as session:
        entry = leagues.answer(session, league, _player(session, player), not decline)
        click.echo(f"{entry.player.name}: {entry.status}")


@league_group.command("start")
@click.argument("league", type=int)
def start_command(league: int) -> None:
    """Start now: pair round 1 and create its games."""
    with _session() as session:
        started = leagues.start(session, league, _actor(session))
        click.echo(f"league {started.id} started: round {started.round}")


@league_group.command("next-season")
@click.argument("divisions", type=int, nargs=-1, required=True)
@click.option("--promote", type=int, default=1, show_default=True, help="Up from each division.")
@click.option("--relegate", type=int, default=1, show_default=True, help="Down from each.")
@click.option("--name", "names", multiple=True, help="A new league's name, once per division.")
@click.option("--reason", help="Why (goes in the audit log).")
def next_season_command(
    divisions: tuple[int, ...],
    promote: int,
    relegate: int,
    names: tuple[str, ...],
    reason: str | None,
) -> None:
    """New leagues for the next season of finished DIVISIONS (top first): the best PROMOTE
    of each go up, the worst RELEGATE go down, everyone is invited again."""
    data: dict[str, Any] = {"divisions": list(divisions), "promote": promote, "relegate": relegate}
    if names:
        data["names"] = list(names)
    if reason:
        data["reason"] = reason
    with _session() as session:
        for league in seasons.next_season(session, _actor(session), data):
            click.echo(f"{league.id}  {league.name}  ({len(league.entries)} invited)")


@league_group.command("list")
def list_command() -> None:
    """Every league, one a line."""
    with _session() as session:
        for item in leagues.list_all(session):
            click.echo(
                f"{item['id']:>4}  {item['status']:<8} round {item['round']:<3} "
                f"{item['entries']:>3} players  {item['game']:<12} {item['name']}"
            )


@league_group.command("show")
@click.argument("league", type=int)
def show_command(league: int) -> None:
    """Settings, players and every round's games, as JSON."""
    with _session() as session:
        _show(leagues.to_json(session, leagues.get(session, league), _actor(session)))


@league_group.command("standings")
@click.argument("league", type=int)
@click.option("--csv", "as_csv", is_flag=True, help="CSV with the crosstable.")
@click.option("--json", "as_json", is_flag=True, help="The API's JSON.")
def standings_command(league: int, as_csv: bool, as_json: bool) -> None:
    """The standings: a text table, CSV or JSON."""
    with _session() as session:
        found = leagues.get(session, league)
        if as_csv:
            click.echo(table.to_csv(session, found), nl=False)
            return
        document = leagues.standings_json(session, found)
        if as_json:
            _show(document)
            return
        lines = league_mail.standings_table(document)
        click.echo(lines["header"])
        for row in lines["rows"]:
            click.echo(row["line"])


def _tool(run: Callable[[Session, Player | None], Any], done: str) -> None:
    with _session() as session:
        run(session, _actor(session))
        click.echo(done)


REASON = click.option("--reason", required=True, help="Why (goes in the audit log).")


@league_group.command("pause")
@click.option("--league", "league_id", type=int, help="Pause this league and all its games.")
@click.option("--game", "game_id", type=int, help="Pause this game's clock.")
@REASON
def pause_command(league_id: int | None, game_id: int | None, reason: str) -> None:
    """Stop a game's clock, or a whole league (no new rounds, every clock stopped)."""
    _pause_or_resume("pause", league_id, game_id, reason)


@league_group.command("resume")
@click.option("--league", "league_id", type=int, help="Resume this league and its games.")
@click.option("--game", "game_id", type=int, help="Resume this game's clock.")
@REASON
def resume_command(league_id: int | None, game_id: int | None, reason: str) -> None:
    """Give a paused game the time it had left, or resume a whole league."""
    _pause_or_resume("resume", league_id, game_id, reason)


def _pause_or_resume(action: str, league_id: int | None, game_id: int | None, reason: str) -> None:
    if (league_id is None) == (game_id is None):
        click.echo("error: give exactly one of --league and --game", err=True)
        sys.exit(2)
    pause = action == "pause"
    if league_id is not None:
        on_league = director.pause_league if pause else director.resume_league
        _tool(lambda s, a: on_league(s, league_id, a, reason), f"league {league_id}: {action}d")
    else:
        assert game_id is not None
        on_game = director.pause_game if pause else director.resume_game
        _tool(lambda s, a: on_game(s, game_id, a, reason), f"game {game_id}: {action}d")


@league_group.command("extend")
@click.argument("game", type=int)
@click.argument("days", type=float)
@REASON
def extend_command(game: int, days: float, reason: str) -> None:
    """Add DAYS to the deadline of GAME's open turn."""
    _tool(lambda s, a: director.extend_deadline(s, game, a, days, reason), f"game {game}: extended")


@league_group.command("replace")
@click.argument("game", type=int)
@click.argument("leaving")
@click.argument("substitute")
@REASON
def replace_command(game: int, leaving: str, substitute: str, reason: str) -> None:
    """Give LEAVING's seat in GAME to SUBSTITUTE (e-mail addresses or ids)."""

    def run(session: Session, actor: Player | None) -> None:
        data = {
            "player": _player(session, leaving).id,
            "by": _player(session, substitute).id,
            "reason": reason,
        }
        director.replace_player(session, game, actor, data)

    _tool(run, f"game {game}: seat replaced")


@league_group.command("result")
@click.argument("game", type=int)
@click.argument("result")
@click.option("--forfeit", type=click.Choice(["time", "missed_turns"]), help="A loss by forfeit.")
@REASON
def result_command(game: int, result: str, forfeit: str | None, reason: str) -> None:
    """Set (running game) or correct (finished game) the result: 1-0, 0-1, 1/2-1/2, 1-3-2."""
    data = {"result": result, "reason": reason, "forfeit": forfeit}
    _tool(lambda s, a: director.set_result(s, game, a, data), f"game {game}: result {result}")


@league_group.command("process")
@click.argument("game", type=int)
@REASON
def process_command(game: int, reason: str) -> None:
    """Resolve GAME's sealed turn now (default orders for seats that sent none)."""
    _tool(lambda s, a: director.process_now(s, game, a, reason), f"game {game}: turn processed")


@league_group.command("void")
@click.argument("game", type=int)
@REASON
def void_command(game: int, reason: str) -> None:
    """Void GAME: it counts for nobody, in the league or the ratings."""
    _tool(lambda s, a: director.void_game(s, game, a, reason), f"game {game}: void")


@league_group.command("withdraw")
@click.argument("league", type=int)
@click.argument("player")
@REASON
def withdraw_command(league: int, player: str, reason: str) -> None:
    """Withdraw PLAYER: running games are lost by withdrawal, the format does the rest."""

    def run(session: Session, actor: Player | None) -> None:
        data = {"player": _player(session, player).id, "reason": reason}
        director.withdraw(session, league, actor, data)

    _tool(run, f"league {league}: {player} withdrawn")


@league_group.command("message")
@click.argument("league", type=int)
@click.argument("text")
@click.option("--subject", default="a message from the director", show_default=True)
def message_command(league: int, text: str, subject: str) -> None:
    """Mail TEXT to everyone in LEAGUE."""
    with _session() as session:
        data = {"subject": subject, "text": text}
        sent = director.message(session, league, _actor(session), data)
        click.echo(f"{sent} mails queued")


@league_group.command("add-director")
@click.argument("league", type=int)
@click.argument("player")
def add_director_command(league: int, player: str) -> None:
    """Make PLAYER (a tournament director, by e-mail or id) a co-director of LEAGUE."""

    def run(session: Session, actor: Player | None) -> None:
        added = director.add_director(
            session, league, actor, {"player": _player(session, player).id}
        )
        click.echo(f"league {league}: {added.name} co-directs")

    _tool(run, "done")


@league_group.command("audit")
@click.argument("league", type=int)
def audit_command(league: int) -> None:
    """The audit log of LEAGUE and its games: when, who, what, why."""
    with _session() as session:
        for entry in director.log(session, league, _actor(session)):
            where = f"game {entry['game']}" if entry["game"] else f"league {entry['league']}"
            head = f"{entry['at'][:19]}  {entry['actor']}  {entry['action']}"
            click.echo(f"{head} ({where}): {entry['reason']}")
