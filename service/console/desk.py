"""What the director's console shows: the leagues and running games a director may act on
(``service/leagues/ownership.py`` decides; admins see all), each game with who is to move and
why it needs a look, and the players found by name or address.

A game is flagged, and listed first, when:

* **stuck**, the turn is due and not resolved: its deadline passed more than ``GRACE`` ago (the
  beat sweep resolves a due turn within a minute, so the sweep or the workers are not running),
  or every order of a sealed turn is in and nobody asked to wait, yet it is still open;
* **stuck**, paused long: a director's pause open for more than ``PAUSED_LONG``;
* **stuck**, quiet: nothing in the game's log for ``QUIET`` (no move, no order, no director);
* **late**: the deadline has passed, less than ``GRACE`` ago (the sweep should resolve it now).

Stuck games come first, then late ones, then the rest by deadline.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

import engine
from service import games, i18n
from service.i18n import N_
from service.leagues import ownership
from service.leagues.models import GamePause, League, LeagueDirector, Pairing
from service.models import Email, Game, LogEntry, Player, Seat

GRACE = timedelta(minutes=15)
PAUSED_LONG = timedelta(days=7)
QUIET = timedelta(days=14)
MAX_GAMES = 500
"""The console lists at most this many running games (stuck and late ones first)."""
MAX_PLAYERS = 50
STUCK, LATE = "stuck", "late"
FLAG_WORDS = {STUCK: N_("stuck"), LATE: N_("late")}
"""The flags as the pages show them (translated there; the keys are the pages' classes)."""


@dataclass
class GameRow:
    id: int
    title: str
    league: dict[str, Any] | None
    turn: int
    to_move: list[str]
    since: datetime | None
    deadline: datetime | None
    last_activity: datetime | None
    paused_since: datetime | None
    seats: list[dict[str, Any]]
    flags: list[tuple[str, str]] = field(default_factory=list)
    """(``stuck`` or ``late``, why in words), worst first."""

    @property
    def worst(self) -> str | None:
        return self.flags[0][0] if self.flags else None


def _(message: str, **values: Any) -> str:
    """``message`` in the page's language (:func:`i18n.in_locale`, set by the console's
    views), else English."""
    return i18n.gettext(i18n.current(), message, **values)


def ngettext(singular: str, plural: str, n: int, **values: Any) -> str:
    return i18n.ngettext(i18n.current(), singular, plural, n, **values)


def ago(delta: timedelta) -> str:
    """``3 days``, ``5 hours``, ``12 minutes``: how long, in the largest unit that reads (in
    the page's language, with its plural forms)."""
    seconds = max(0, int(delta.total_seconds()))
    if seconds >= 86400:
        return ngettext("%(num)s day", "%(num)s days", seconds // 86400)
    if seconds >= 3600:
        return ngettext("%(num)s hour", "%(num)s hours", seconds // 3600)
    if seconds >= 60:
        return ngettext("%(num)s minute", "%(num)s minutes", seconds // 60)
    return _("less than a minute")


# -- which leagues and games --------------------------------------------------------------


def directed_leagues(session: Session, actor: Player) -> list[League]:
    query = select(League).order_by(League.id.desc())
    if not actor.has_role("admin"):
        co = select(LeagueDirector.league_id).where(LeagueDirector.player_id == actor.id)
        query = query.where(or_(League.created_by == actor.id, League.id.in_(co)))
    return list(session.scalars(query))


def directed_games(session: Session, actor: Player, leagues: list[League]) -> list[Game]:
    """Running games of the director's leagues, and those they created outside any league."""
    query = select(Game).where(Game.status == games.ACTIVE).order_by(Game.id)
    if not actor.has_role("admin"):
        in_leagues = select(Pairing.game_id).where(
            Pairing.league_id.in_([league.id for league in leagues]),
            Pairing.game_id.is_not(None),
        )
        paired = select(Pairing.game_id).where(Pairing.game_id.is_not(None))
        own = (Game.created_by == actor.id) & Game.id.not_in(paired)
        query = query.where(or_(Game.id.in_(in_leagues), own))
    return list(session.scalars(query.limit(MAX_GAMES)))


# -- one game -----------------------------------------------------------------------------


def game_row(session: Session, game: Game, now: datetime) -> GameRow:
    turn = games.current_turn(session, game)
    data = games.summary(session, game, None, turn=turn)
    state_names = engine.game_class(game.name).title
    pending = [s for s in data["to_act"] if s not in data["submitted"]]
    names = {seat["seat"]: seat["player"]["name"] for seat in data["seats"]}
    pause = session.scalar(
        select(GamePause).where(GamePause.game_id == game.id, GamePause.resumed_at.is_(None))
    )
    last = session.scalar(select(func.max(LogEntry.at)).where(LogEntry.game_id == game.id))
    row = GameRow(
        id=game.id,
        title=state_names,
        league=_league(session, game),
        turn=game.turn,
        to_move=[names[s] for s in pending],
        since=turn.started_at if turn is not None and turn.resolved_at is None else None,
        deadline=turn.deadline if turn is not None and turn.resolved_at is None else None,
        last_activity=last,
        paused_since=pause.paused_at if pause else None,
        seats=[_seat(seat, now) for seat in game.seats],
    )
    ready = bool(data["to_act"]) and not pending and not data["waiting"]
    row.flags = _flags(row, ready and turn is not None and turn.phase == "sealed", now)
    return row


def _flags(row: GameRow, ready: bool, now: datetime) -> list[tuple[str, str]]:
    flags = []
    if row.deadline is not None and row.deadline <= now:
        late = now - row.deadline
        if late >= GRACE:
            flags.append(
                (
                    STUCK,
                    _(
                        "turn %(turn)s was due %(time)s ago and is not resolved: the sweep "
                        "resolves a due turn within a minute, so check that beat and the "
                        "workers run (or process it now)",
                        turn=row.turn,
                        time=ago(late),
                    ),
                )
            )
        else:
            flags.append((LATE, _("the deadline passed %(time)s ago", time=ago(late))))
    if ready:
        flags.append(
            (
                STUCK,
                _(
                    "every order of turn %(turn)s is in and nobody waits, yet it is open",
                    turn=row.turn,
                ),
            )
        )
    if row.paused_since is not None and now - row.paused_since >= PAUSED_LONG:
        flags.append((STUCK, _("paused for %(time)s", time=ago(now - row.paused_since))))
    if row.last_activity is not None and now - row.last_activity >= QUIET:
        flags.append(
            (STUCK, _("nothing has happened for %(time)s", time=ago(now - row.last_activity)))
        )
    return sorted(flags, key=lambda flag: flag[0] != STUCK)


def _seat(seat: Seat, now: datetime) -> dict[str, Any]:
    away = next((v for v in seat.player.vacations if v.starts <= now < v.ends), None)
    return {
        "player_id": seat.player_id,
        "name": seat.player.name,
        "missed": seat.missed,
        "vacation_until": away.ends if away else None,
    }


def _league(session: Session, game: Game) -> dict[str, Any] | None:
    query = (
        select(League.id, League.name, Pairing.round)
        .join(Pairing, Pairing.league_id == League.id)
        .where(Pairing.game_id == game.id)
    )
    found = session.execute(query).first()
    return None if found is None else {"id": found.id, "name": found.name, "round": found.round}


def rows_first_needing_a_look(session: Session, found: list[Game], now: datetime) -> list[GameRow]:
    """Stuck, then late, then the rest; each group by deadline (none last), then number."""
    rows = [game_row(session, game, now) for game in found]
    rank = {STUCK: 0, LATE: 1, None: 2}
    far = datetime.max.replace(tzinfo=now.tzinfo)
    return sorted(rows, key=lambda r: (rank[r.worst], r.deadline or far, r.id))


# -- leagues and players ------------------------------------------------------------------


def league_summary(session: Session, league: League) -> dict[str, Any]:
    running = select(func.count()).select_from(Pairing).join(Game, Game.id == Pairing.game_id)
    count = session.scalar(
        running.where(Pairing.league_id == league.id, Game.status == games.ACTIVE)
    )
    return {
        "id": league.id,
        "name": league.name,
        "status": league.status,
        "paused": league.paused,
        "round": league.round,
        "running": count or 0,
        "directors": [p.name for p in ownership.directors(session, league)],
    }


def find_players(session: Session, text: str, now: datetime) -> list[dict[str, Any]]:
    """Players whose name or one of whose addresses contains ``text`` (any letter case)."""
    wanted = text.strip()
    if not wanted:
        return []
    by_address = select(Email.player_id).where(Email.address.icontains(wanted, autoescape=True))
    query = (
        select(Player)
        .where(or_(Player.name.icontains(wanted, autoescape=True), Player.id.in_(by_address)))
        .order_by(Player.name, Player.id)
        .limit(MAX_PLAYERS)
    )
    found = []
    for player in session.scalars(query):
        running = select(func.count()).select_from(Seat).join(Game, Game.id == Seat.game_id)
        away = next((v for v in player.vacations if v.starts <= now < v.ends), None)
        found.append(
            {
                "id": player.id,
                "name": player.name,
                "roles": [role for role in player.roles if role != "player"],
                "addresses": [email.address for email in player.emails],
                "running": session.scalar(
                    running.where(Seat.player_id == player.id, Game.status == games.ACTIVE)
                ),
                "missed": session.scalar(
                    select(func.coalesce(func.sum(Seat.missed), 0))
                    .join(Game, Game.id == Seat.game_id)
                    .where(Seat.player_id == player.id, Game.status == games.ACTIVE)
                ),
                "vacation_until": away.ends if away else None,
            }
        )
    return found
