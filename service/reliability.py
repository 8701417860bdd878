"""A player's reliability over the last twelve months (issue 25, point 3), read from the rows
the games already keep; no table of its own.

- **games finished**: games the player held a seat in when they ended (finished, not void).
- **moves due**: each turn the player's seat had to act in, that ended by a move, by everyone's
  orders, or at its deadline (``Turn.resolved_by`` ``move``, ``orders``, ``deadline``,
  ``time``, ``forfeit``). A turn cut short by a resignation, a draw, a director or a void
  asked nothing of anyone, and a turn a director closed before its deadline passed neither.
- **moves on time**: of those, the ones the player sent (an order row of theirs that was
  played, resolved or voided at a forfeit) no later than the turn's deadline, pushed
  deadlines (vacations, extensions) counting as they stood at the end.
- **timeouts**: of those, the turns whose deadline passed without the seat's move: default
  orders played for it (``Order.status`` ``default``), a game lost on time, or the turn a
  forfeit ended. A move sent after the deadline, before the sweep noticed, is late: due, not
  on time, and no timeout.
- **forfeits**: finished games the player lost by forfeit: on time, after missed turns, or by
  withdrawing from a league (the end's ``by``, the end turn's ``resolved_by``), including a
  director's result marked as a forfeit.

A seat a director gave to a substitute (``audit_log`` ``replace_player``) counts for whoever
held it at the time: the turns before the change for the player who left, those after for
the substitute. A player with no move due in the window has nothing against them: their
share on time reads as none (``null``) and meets any league minimum.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from service import i18n
from service.errors import Forbidden, Written
from service.i18n import N_
from service.leagues.models import AuditEntry, League
from service.leagues.refusals import refused
from service.models import (
    Game,
    GameStatus,
    Order,
    OrderStatus,
    Player,
    ResolvedBy,
    Seat,
    Turn,
    utcnow,
)

WINDOW = timedelta(days=365)
"""The last twelve months."""
DUE = (
    ResolvedBy.MOVE,
    ResolvedBy.ORDERS,
    ResolvedBy.DEADLINE,
    ResolvedBy.TIME,
    ResolvedBy.FORFEIT,
)
"""How a turn ended when it asked its seats for a move."""
PASSED = (ResolvedBy.DEADLINE, ResolvedBy.TIME, ResolvedBy.FORFEIT)
"""Ends at a passed deadline: a due seat without its move timed out."""
FORFEITED = (ResolvedBy.TIME, ResolvedBy.FORFEIT, ResolvedBy.WITHDRAWAL)
"""A game's end ``by`` that makes its loser's loss a forfeit."""
SENT = (OrderStatus.PLAYED, OrderStatus.RESOLVED, OrderStatus.VOID)
"""Order statuses of a move the player sent and did not take back (``void``: the game ended
with it unresolved, as a forfeit of another seat does)."""


@dataclass(frozen=True)
class Reliability:
    since: datetime
    games_finished: int
    moves_due: int
    moves_on_time: int
    timeouts: int
    forfeits: int

    @property
    def on_time_percent(self) -> float | None:
        """Moves on time of moves due, in percent (one decimal), None with nothing due."""
        if not self.moves_due:
            return None
        return round(100.0 * self.moves_on_time / self.moves_due, 1)

    def to_json(self) -> dict[str, Any]:
        return {
            "since": self.since.isoformat(),
            "games_finished": self.games_finished,
            "moves_due": self.moves_due,
            "moves_on_time": self.moves_on_time,
            "on_time_percent": self.on_time_percent,
            "timeouts": self.timeouts,
            "forfeits": self.forfeits,
        }


def of_player(session: Session, player_id: int, now: datetime | None = None) -> Reliability:
    """``player_id``'s figures over the twelve months before ``now``."""
    since = (now or utcnow()) - WINDOW
    changes = _replacements(session)
    left = {game_id for game_id, _seat in changes if player_id in _holders(changes, game_id, _seat)}
    seated = select(Seat.game_id).where(Seat.player_id == player_id)
    rows = session.execute(
        select(Seat.game_id, Seat.seat, Seat.player_id).where(
            or_(Seat.game_id.in_(seated), Seat.game_id.in_(left))
        )
    ).all()
    current = {(game_id, seat): holder for game_id, seat, holder in rows}
    game_ids = sorted({game_id for game_id, _, _ in rows})
    if not game_ids:
        return Reliability(since, 0, 0, 0, 0, 0)

    def holder(game_id: int, seat: int, when: datetime) -> int:
        """Who held the seat at ``when``: the current player, or before a replacement the
        player who left."""
        held = current[(game_id, seat)]
        for at, leaving in reversed(changes.get((game_id, seat), [])):
            if when < at:
                held = leaving
        return held

    turns = session.scalars(
        select(Turn).where(
            Turn.game_id.in_(game_ids), Turn.resolved_at.is_not(None), Turn.resolved_at >= since
        )
    ).all()
    sent: dict[tuple[int, int, int], datetime] = {}
    defaulted: set[tuple[int, int, int]] = set()
    orders = session.execute(
        select(Order.game_id, Order.turn, Order.seat, Order.status, Order.created_at).where(
            Order.game_id.in_(game_ids),
            Order.status.in_([*SENT, OrderStatus.DEFAULT]),
        )
    ).all()
    for game_id, number, seat, status, created in orders:
        key = (game_id, number, seat)
        if status == OrderStatus.DEFAULT:
            defaulted.add(key)
        elif key not in sent or created < sent[key]:
            sent[key] = created  # the first move sent counts (a later one only replaced it)
    due = on_time = timeouts = 0
    for turn in turns:
        by = turn.resolved_by or ""
        if by not in DUE:
            continue
        assert turn.resolved_at is not None
        passed = turn.deadline is not None and turn.deadline <= turn.resolved_at
        if by in PASSED and not passed:
            continue  # a director's result of that kind, before any deadline passed
        for seat in turn.to_act:
            if holder(turn.game_id, seat, turn.resolved_at) != player_id:
                continue
            key = (turn.game_id, turn.number, seat)
            due += 1
            when = sent.get(key)
            if key in defaulted or (when is None and by in PASSED):
                timeouts += 1
            elif when is not None and (turn.deadline is None or when <= turn.deadline):
                on_time += 1
    finished = forfeits = 0
    games = session.scalars(
        select(Game).where(
            Game.id.in_(game_ids),
            Game.status == GameStatus.FINISHED,
            Game.finished_at.is_not(None),
            Game.finished_at >= since,
        )
    ).all()
    end_by = _end_by(session, games)
    for game in games:
        assert game.finished_at is not None
        mine = [
            seat
            for (game_id, seat) in current
            if game_id == game.id and holder(game.id, seat, game.finished_at) == player_id
        ]
        if not mine:
            continue
        finished += 1
        places = (game.result or {}).get("places") or []
        if end_by.get(game.id) in FORFEITED and places and max(places) != min(places):
            forfeits += any(places[seat] == max(places) for seat in mine if seat < len(places))
    return Reliability(since, finished, due, on_time, timeouts, forfeits)


def _replacements(session: Session) -> dict[tuple[int, int], list[tuple[datetime, int]]]:
    """Per (game, seat), when a director gave it to a substitute and who left, in order."""
    found: dict[tuple[int, int], list[tuple[datetime, int]]] = defaultdict(list)
    rows = session.execute(
        select(AuditEntry.game_id, AuditEntry.at, AuditEntry.detail)
        .where(AuditEntry.action == "replace_player", AuditEntry.game_id.is_not(None))
        .order_by(AuditEntry.id)
    ).all()
    for game_id, at, detail in rows:
        leaving, seat = (detail or {}).get("player"), (detail or {}).get("seat")
        if isinstance(leaving, int) and isinstance(seat, int):
            found[(game_id, seat)].append((at, leaving))
    return dict(found)


def _holders(
    changes: dict[tuple[int, int], list[tuple[datetime, int]]], game_id: int, seat: int
) -> set[int]:
    return {leaving for _at, leaving in changes.get((game_id, seat), [])}


def _end_by(session: Session, games: Any) -> dict[int, str]:
    """How each game ended: the ``resolved_by`` of the turn open when it ended."""
    wanted = {(game.id, game.turn) for game in games}
    if not wanted:
        return {}
    rows = session.execute(
        select(Turn.game_id, Turn.number, Turn.resolved_by).where(
            Turn.game_id.in_(sorted({game_id for game_id, _ in wanted}))
        )
    ).all()
    return {g: by or "" for g, n, by in rows if (g, n) in wanted}


# -- a league's minimum ------------------------------------------------------------------------


def minimum_of(league: League) -> dict[str, Any]:
    """The league's minimum: ``min_reliability`` (percent of moves on time) and
    ``max_forfeits``, those it sets."""
    settings = league.settings or {}
    return {k: settings[k] for k in ("min_reliability", "max_forfeits") if k in settings}


def check_minimum(
    session: Session, league: League, player: Player, now: datetime | None = None
) -> None:
    """Forbidden, quoting the player's figure and the minimum, when ``player`` falls short of
    the league's minimum."""
    minimum = minimum_of(league)
    if not minimum:
        return
    figures = of_player(session, player.id, now)
    least = minimum.get("min_reliability")
    percent = figures.on_time_percent
    if least is not None and percent is not None and percent < least:
        raise refused(
            Forbidden,
            N_(
                "league %(id)s takes players who made at least %(min)s%% of their moves on "
                "time over the last twelve months; %(name)s made %(percent)s%% (%(on_time)s of "
                "%(due)s) on time"
            ),
            "reliability",
            id=league.id,
            min=_number(least),
            name=player.name,
            percent=_number(percent),
            on_time=figures.moves_on_time,
            due=figures.moves_due,
        )
    most = minimum.get("max_forfeits")
    if most is not None and figures.forfeits > most:
        raise refused(
            Forbidden,
            N_(
                "league %(id)s limits the games a player lost by forfeit over the last twelve "
                "months to %(max)s; %(name)s lost %(forfeits)s by forfeit"
            ),
            "reliability",
            id=league.id,
            max=most,
            name=player.name,
            forfeits=figures.forfeits,
        )


def _number(value: float) -> Written:
    """A figure in a refusal, with the locale's decimal sign (``66.7``, ``66,7``)."""

    def write(locale: str) -> str:
        return f"{value:g}" if locale == i18n.DEFAULT else i18n.format_decimal(value, locale)

    return Written(write)
