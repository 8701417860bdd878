"""The tournament director's tools, each written to the audit log with who did it and why.

Pausing a game stops its clock: the open turn's deadline is lifted (so the sweep never finds
it due and no reminder goes out) and the time that was left is kept; resuming gives it back
from that moment. Players may still move while a game is paused; a move opens the next turn
with a fresh deadline as usual, which ends the pause. Pausing a league also stops new
rounds. A result set on a running game ends it through ``games.finish`` like any ending
(so ratings and the league hear of it); a corrected or voided result replays the ratings of
its key.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from engine import Outcome, Termination
from engine.errors import Reason
from service import games, notify, players
from service.db import enqueue
from service.errors import BadRequest, Conflict, Unprocessable
from service.games import LockedGame
from service.i18n import N_
from service.leagues import leagues, mail, ownership, ratings
from service.leagues.models import AuditEntry, GamePause, League, Pairing
from service.leagues.refusals import refused
from service.models import Game, GameStatus, Player, ResolvedBy, utcnow
from service.tasks import Task

FORFEIT_KINDS = {"time": "time", "missed_turns": "forfeit"}
"""A set result may be a forfeit: the kind, and the ``by`` that ``games.finish`` records."""


def audit(
    session: Session,
    actor: Player | None,
    action: str,
    reason: str,
    league_id: int | None = None,
    game_id: int | None = None,
    detail: Mapping[str, Any] | None = None,
) -> None:
    session.add(
        AuditEntry(
            actor_id=actor.id if actor else None,
            actor=actor.name if actor else "command line",
            action=action,
            league_id=league_id,
            game_id=game_id,
            reason=reason,
            detail=dict(detail or {}),
            at=utcnow(),
        )
    )


def _reason(value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 1000:
        raise refused(
            BadRequest, N_("give a reason (text, up to 1000 characters): it goes in the audit log")
        )
    return " ".join(value.split())


def _actor_name(actor: Player | None) -> str:
    return actor.name if actor else mail.DIRECTOR


def _active_game(session: Session, game_id: int) -> LockedGame:
    aggregate = games.load(session, game_id)
    game = aggregate.game
    if game.status != GameStatus.ACTIVE:
        raise refused(
            Conflict,
            N_("game %(id)s is not running (it is %(status)s)"),
            "game_over",
            id=game.id,
            status=game.status,
        )
    return aggregate


def _league_of(session: Session, game: Game) -> League | None:
    row = session.scalar(select(Pairing).where(Pairing.game_id == game.id))
    return session.get(League, row.league_id) if row else None


# -- games --------------------------------------------------------------------------------


def _open_pause(session: Session, game: Game) -> GamePause | None:
    query = select(GamePause).where(GamePause.game_id == game.id, GamePause.resumed_at.is_(None))
    return session.scalar(query)


def pause_game(
    session: Session, game_id: int, actor: Player | None, reason: Any, now: datetime | None = None
) -> Game:
    ownership.check_game(session, actor, game_id)
    why, now = _reason(reason), now or utcnow()
    aggregate = _active_game(session, game_id)
    game = aggregate.game
    _pause(session, aggregate, now)
    games.apply(session, aggregate, aggregate.paused(_actor_name(actor), why), now)
    audit(session, actor, "pause_game", why, _league_id(session, game), game.id)
    return game


def _pause(session: Session, aggregate: LockedGame, now: datetime) -> None:
    game = aggregate.game
    if _open_pause(session, game) is not None:
        raise refused(Conflict, N_("game %(id)s is already paused"), "paused", id=game.id)
    remaining = aggregate.hold_clock(now)
    session.add(GamePause(game_id=game.id, turn=game.turn, remaining=remaining, paused_at=now))


def resume_game(
    session: Session, game_id: int, actor: Player | None, reason: Any, now: datetime | None = None
) -> Game:
    ownership.check_game(session, actor, game_id)
    why, now = _reason(reason), now or utcnow()
    aggregate = games.load(session, game_id)
    game = aggregate.game
    if not _resume(session, aggregate, now):
        raise refused(Conflict, N_("game %(id)s is not paused"), "not_paused", id=game.id)
    games.apply(session, aggregate, aggregate.resumed(_actor_name(actor), why), now)
    audit(session, actor, "resume_game", why, _league_id(session, game), game.id)
    return game


def _resume(session: Session, aggregate: LockedGame, now: datetime) -> bool:
    pause = _open_pause(session, aggregate.game)
    if pause is None:
        return False
    pause.resumed_at = now
    aggregate.restart_clock(pause.turn, pause.remaining, now)
    return True


def _league_id(session: Session, game: Game) -> int | None:
    league = _league_of(session, game)
    return league.id if league else None


def extend_deadline(
    session: Session, game_id: int, actor: Player | None, days: Any, reason: Any
) -> Game:
    """Add ``days`` to the open turn's deadline (to the time left, while paused)."""
    ownership.check_game(session, actor, game_id)
    why = _reason(reason)
    if isinstance(days, bool) or not isinstance(days, int | float) or not 0 < days <= 365:
        raise refused(
            BadRequest,
            N_("days must be a number of days from 0 to 365; got %(given)s"),
            given=repr(days),
        )
    aggregate = _active_game(session, game_id)
    game = aggregate.game
    pause = _open_pause(session, game)
    if pause is None or pause.remaining is None:
        events = aggregate.extend_deadline(_actor_name(actor), days, why, paused=False)
    else:  # the pause keeps the time that was left: the days go there
        events = aggregate.extend_deadline(_actor_name(actor), days, why, paused=True)
        pause.remaining += days * 86400
    games.apply(session, aggregate, events, utcnow())
    audit(
        session, actor, "extend_deadline", why, _league_id(session, game), game.id, {"days": days}
    )
    return game


def replace_player(
    session: Session, game_id: int, actor: Player | None, data: Mapping[str, Any]
) -> Game:
    """``{"player": id leaving, "by": id taking the seat, "reason"}``; a league result still
    counts for the entry the seat was paired as."""
    ownership.check_game(session, actor, game_id)
    why = _reason(data.get("reason"))
    aggregate = _active_game(session, game_id)
    game = aggregate.game
    leaving, coming = data.get("player"), data.get("by")
    seat = next((s for s in game.seats if s.player_id == leaving), None)
    if seat is None:
        raise refused(
            Unprocessable,
            N_("player %(player)s has no seat in game %(id)s"),
            "no_seat",
            player=repr(leaving),
            id=game.id,
        )
    if not isinstance(coming, int) or isinstance(coming, bool):
        raise refused(BadRequest, N_("by must be the id of the player taking the seat"))
    substitute = players.get(session, coming)
    if any(s.player_id == substitute.id for s in game.seats):
        raise refused(
            Conflict,
            N_("%(name)s already plays in game %(id)s"),
            "seated",
            name=substitute.name,
            id=game.id,
        )
    events = aggregate.replace_seat(_actor_name(actor), seat, substitute, why)
    games.apply(session, aggregate, events, utcnow())
    detail = {"player": leaving, "by": substitute.id, "seat": seat.seat}
    audit(session, actor, "replace_player", why, _league_id(session, game), game.id, detail)
    notify.queue_mail(session, kind="game_started", to=substitute, game=game, context={})
    return game


def process_now(
    session: Session, game_id: int, actor: Player | None, reason: Any, now: datetime | None = None
) -> Game:
    """Resolve the open sealed turn at once, with default orders for seats that sent none."""
    ownership.check_game(session, actor, game_id)
    why, now = _reason(reason), now or utcnow()
    aggregate = _active_game(session, game_id)
    game = aggregate.game
    number = aggregate.due_now(now)
    audit(session, actor, "process_now", why, _league_id(session, game), game.id, {"turn": number})
    games.resolve_turn(session, game.id, number, now)
    return game


def _places(game: Game, result: Any) -> list[int]:
    """``1-0``, ``0-1``, ``1/2-1/2`` (or ``draw``) for two seats; places such as ``1-3-2``
    or ``[1, 3, 2]`` for more."""
    if game.players == 2 and isinstance(result, str):
        named = {"1-0": [1, 2], "0-1": [2, 1], "1/2-1/2": [1, 1], "draw": [1, 1]}
        if result.strip() in named:
            return named[result.strip()]
    if isinstance(result, str):
        parts = result.strip().split("-")
        result = [int(p) for p in parts] if all(p.isdigit() for p in parts) else None
    if (
        isinstance(result, list)
        and len(result) == game.players
        and all(isinstance(p, int) and not isinstance(p, bool) for p in result)
        and all(1 <= p <= game.players for p in result)
        and 1 in result
    ):
        return list(result)
    shown = "1-0, 0-1, 1/2-1/2" if game.players == 2 else N_("places such as 1-3-2")
    raise refused(
        Unprocessable,
        N_("cannot read the result %(given)s: give %(shown)s (one place per seat)"),
        "bad_result",
        given=repr(result),
        shown=shown,
    )


def set_result(
    session: Session,
    game_id: int,
    actor: Player | None,
    data: Mapping[str, Any],
    now: datetime | None = None,
) -> Game:
    """``{"result", "reason", "forfeit"?}``: end a running game with this result, or correct
    the result of a finished one. ``forfeit`` (``time`` or ``missed_turns``) marks the loss
    as a forfeit."""
    ownership.check_game(session, actor, game_id)
    why, now = _reason(data.get("reason")), now or utcnow()
    aggregate = games.load(session, game_id)
    game = aggregate.game
    places = _places(game, data.get("result"))
    forfeit = data.get("forfeit")
    if forfeit is not None and forfeit not in FORFEIT_KINDS:
        raise refused(
            BadRequest,
            N_("forfeit must be one of %(choices)s; got %(given)s"),
            choices=", ".join(FORFEIT_KINDS),
            given=repr(forfeit),
        )
    said = Reason("director_set", N_("result set by the director: {why}"), why=why)
    outcome = Outcome(tuple(places), said.render(), Termination.ADJUDICATION, said)
    league = _league_of(session, game)
    if game.status == GameStatus.ACTIVE:
        action = N_("set the result")
        by = FORFEIT_KINDS[forfeit] if forfeit else ResolvedBy.DIRECTOR
        events = aggregate.set_result(_actor_name(actor), outcome, why, by, now)
        games.apply(session, aggregate, events, now)
    elif game.status == GameStatus.FINISHED:
        action = N_("corrected the result")
        said = Reason("director_corrected", N_("result corrected by the director: {why}"), why=why)
        outcome = Outcome(tuple(places), said.render(), Termination.ADJUDICATION, said)
        events = aggregate.correct_result(_actor_name(actor), outcome, why)
        games.apply(session, aggregate, events, now)
        row = session.scalar(select(Pairing).where(Pairing.game_id == game.id))
        if row is not None and row.status == "done":
            leagues.record_result(row, places, forfeit, now)
        ratings.rebuild(
            session, ratings.key_of(game.name, game.options), ratings.system_of(game.players)
        )
    else:
        raise refused(
            Conflict, N_("game %(id)s was voided; its result cannot be set"), "void", id=game.id
        )
    detail = {"result": outcome.result, "forfeit": forfeit}
    audit(session, actor, "set_result", why, league.id if league else None, game.id, detail)
    mail.result(session, game, league, _actor_name(actor), action, outcome.result, why)
    if league is not None:
        enqueue(session, Task.LEAGUE_ADVANCE, league.id)
    return game


def void_game(
    session: Session, game_id: int, actor: Player | None, reason: Any, now: datetime | None = None
) -> Game:
    """The game counts for nobody: no result in the league, no rating."""
    ownership.check_game(session, actor, game_id)
    why, now = _reason(reason), now or utcnow()
    aggregate = games.load(session, game_id)
    game = aggregate.game
    if game.status == GameStatus.VOID:
        raise refused(Conflict, N_("game %(id)s is already void"), "void", id=game.id)
    was_rated = game.status == GameStatus.FINISHED
    games.apply(session, aggregate, aggregate.void(_actor_name(actor), why, now), now)
    row = session.scalar(select(Pairing).where(Pairing.game_id == game.id))
    league = session.get(League, row.league_id) if row else None
    if row is not None:
        row.status, row.places, row.forfeits, row.decided_at = "void", None, None, now
    if was_rated:
        ratings.rebuild(
            session, ratings.key_of(game.name, game.options), ratings.system_of(game.players)
        )
    audit(session, actor, "void_game", why, league.id if league else None, game.id)
    mail.result(session, game, league, _actor_name(actor), N_("voided the game"), N_("void"), why)
    if league is not None:
        enqueue(session, Task.LEAGUE_ADVANCE, league.id)
    return game


# -- leagues ------------------------------------------------------------------------------


def _league_games(session: Session, league: League) -> list[Game]:
    query = (
        select(Game)
        .join(Pairing, Pairing.game_id == Game.id)
        .where(Pairing.league_id == league.id, Game.status == GameStatus.ACTIVE)
        .order_by(Game.id)
    )
    return list(session.scalars(query))


def pause_league(
    session: Session, league_id: int, actor: Player | None, reason: Any, now: datetime | None = None
) -> League:
    ownership.check_league(session, actor, league_id)
    why, now = _reason(reason), now or utcnow()
    league = leagues.lock(session, league_id)
    if league.paused:
        raise refused(Conflict, N_("league %(id)s is already paused"), "paused", id=league.id)
    league.paused = True
    for game in _league_games(session, league):
        aggregate = games.load(session, game.id)
        if _open_pause(session, game) is None:
            _pause(session, aggregate, now)
            aggregate.log("paused", f"the league is paused: {why}")
    audit(session, actor, "pause_league", why, league.id)
    return league


def resume_league(
    session: Session, league_id: int, actor: Player | None, reason: Any, now: datetime | None = None
) -> League:
    ownership.check_league(session, actor, league_id)
    why, now = _reason(reason), now or utcnow()
    league = leagues.lock(session, league_id)
    if not league.paused:
        raise refused(Conflict, N_("league %(id)s is not paused"), "not_paused", id=league.id)
    league.paused = False
    for game in _league_games(session, league):
        aggregate = games.load(session, game.id)
        if _resume(session, aggregate, now):
            aggregate.log("resumed", f"the league is resumed: {why}")
    audit(session, actor, "resume_league", why, league.id)
    enqueue(session, Task.LEAGUE_ADVANCE, league.id)
    return league


def withdraw(
    session: Session,
    league_id: int,
    actor: Player | None,
    data: Mapping[str, Any],
    now: datetime | None = None,
) -> League:
    """``{"player": id, "reason"}``: their running games are lost by withdrawal; the format
    decides the rest (round robin: remaining games forfeited; Swiss, tables: no more
    pairings; knockout: out)."""
    ownership.check_league(session, actor, league_id)
    why, now = _reason(data.get("reason")), now or utcnow()
    league = leagues.lock(session, league_id)
    entry = next((e for e in league.entries if e.player_id == data.get("player")), None)
    if entry is None or entry.status not in ("active", "invited"):
        # 422, not 404: the league exists; what the body names is not in it
        raise refused(
            Unprocessable,
            N_("player %(player)s is not taking part in league %(id)s"),
            player=repr(data.get("player")),
            id=league.id,
        )
    if league.status == leagues.OPEN:  # not started: they simply leave
        entry.status = "declined"
    else:
        entry.status, entry.withdrawn_at = "withdrawn", now
    rows = session.scalars(
        select(Pairing)
        .where(Pairing.league_id == league.id, Pairing.status == "playing")
        .order_by(Pairing.game_id)  # games are locked in id order
    ).all()
    for row in rows:
        if entry.id not in row.entries or row.game_id is None:
            continue
        aggregate = games.load(session, row.game_id)
        if aggregate.game.status != GameStatus.ACTIVE:
            continue
        seat = row.entries.index(entry.id)
        places = tuple(2 if s == seat else 1 for s in range(aggregate.game.players))
        said = Reason("withdrew", N_("{name} withdrew from the league"), name=entry.player.name)
        outcome = Outcome(places, said.render(), Termination.WITHDRAWAL, said)
        games.finish(session, aggregate, outcome, ResolvedBy.WITHDRAWAL, now)
    audit(session, actor, "withdraw", why, league.id, detail={"player": entry.player_id})
    enqueue(session, Task.LEAGUE_ADVANCE, league.id)
    return league


def message(session: Session, league_id: int, actor: Player | None, data: Mapping[str, Any]) -> int:
    """``{"subject", "text"}`` mailed to everyone taking part; returns how many mails."""
    ownership.check_league(session, actor, league_id)
    league = leagues.get(session, league_id)
    subject, text = data.get("subject", "a message from the director"), data.get("text")
    if not isinstance(subject, str) or not subject.strip() or len(subject) > 120:
        raise refused(BadRequest, N_("subject must be a text of at most 120 characters"))
    if not isinstance(text, str) or not text.strip() or len(text) > 20000:
        raise refused(BadRequest, N_("text must be the message, at most 20000 characters"))
    sent = mail.message(session, league, _actor_name(actor), subject.strip(), text.strip())
    audit(session, actor, "message", subject.strip(), league.id, detail={"text": text.strip()})
    return sent


def log(session: Session, league_id: int, actor: Player | None) -> list[dict[str, Any]]:
    """The audit log of a league and its games, oldest first."""
    ownership.check_league(session, actor, league_id)
    league = leagues.get(session, league_id)
    game_ids = select(Pairing.game_id).where(Pairing.league_id == league.id)
    query = select(AuditEntry).where(
        (AuditEntry.league_id == league.id) | AuditEntry.game_id.in_(game_ids)
    )
    return [
        {
            "at": entry.at.isoformat(),
            "actor": entry.actor,
            "actor_id": entry.actor_id,
            "action": entry.action,
            "league": entry.league_id,
            "game": entry.game_id,
            "reason": entry.reason,
            "detail": entry.detail,
        }
        for entry in session.scalars(query.order_by(AuditEntry.id))
    ]


def set_days(
    session: Session, league_id: int, actor: Player | None, data: Mapping[str, Any]
) -> League:
    """``{"invitation_days"?, "max_game_days"?, "reason"}``: how long invitations stay open
    and the cap on a game's days, from now on (issue 25 point 6); on the audit log."""
    ownership.check_league(session, actor, league_id)
    why = _reason(data.get("reason"))
    league = leagues.lock(session, league_id)
    settings = dict(league.settings)
    for field in ("invitation_days", "max_game_days"):
        if data.get(field) is not None:
            settings[field] = leagues.whole_days(data[field], field)
    league.settings = settings
    detail = {f: settings.get(f) for f in ("invitation_days", "max_game_days")}
    audit(session, actor, "set_days", why, league.id, detail=detail)
    return league


def add_director(
    session: Session, league_id: int, actor: Player | None, data: Mapping[str, Any]
) -> Player:
    """``{"player": id or address}``: another tournament director co-directs the league."""
    added = ownership.add_director(session, league_id, actor, dict(data))
    why = f"{added.name} co-directs the league"
    audit(session, actor, "add_director", why, league_id, detail={"player": added.id})
    return added
