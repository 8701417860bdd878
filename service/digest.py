"""The daily digest: game news held for players who chose ``notify: digest``, sent as one mail.

:func:`service.notify.queue_mail` keeps such a player's game news in the outbox as
``held:<kind>`` rows. Each sweep asks :func:`due` which players' morning (``digest_hour``
o'clock in their own time zone) has come with mail held from before it; :func:`send` then
queues one digest (key ``digest:<player>:<local date>``, so a sweep running twice sends one)
and marks the held rows sent: they went out inside it. A player who switched back to ``each``
gets their held rows released as they were.

A digest lists each game its held mail was about, seen from the player's own seat as the
game stands now, with what happened since the oldest held mail of that game and, where the
player is to act, the game's signed reply address: they get no per-game mail to answer.
The events are said in the reader's language as the held mails of their turns said them (a
turn stores its events' English text only, not their reasons).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from engine.errors import Reason
from service import i18n, notify
from service.config import Settings
from service.db import enqueue
from service.mail.addresses import make_reply_address
from service.mail.render import told_in
from service.models import Game, Outbox, Player, Turn
from service.tasks import Task

URGENT = timedelta(hours=24)
"""A game waiting for the reader with less time left than this is flagged (as AbstractPlay does)."""

EVENTS_SLACK = timedelta(minutes=10)
"""A turn's resolution is stamped a moment before the mail about it: look back this far."""


def morning(now: datetime, zone: str, hour: int) -> datetime:
    """The latest ``hour`` o'clock in ``zone`` at or before ``now``."""
    local = now.astimezone(ZoneInfo(zone))
    today = datetime.combine(local.date(), time(hour), tzinfo=local.tzinfo)
    return today if today <= local else today - timedelta(days=1)


def due(session: Session, settings: Settings, now: datetime) -> list[int]:
    """Players with mail held from before their latest morning and no digest for it yet."""
    query = (
        select(Outbox.player_id, func.min(Outbox.created_at))
        .where(Outbox.kind.like(notify.HELD + "%"), Outbox.sent_at.is_(None))
        .group_by(Outbox.player_id)
    )
    found = []
    for player_id, oldest in session.execute(query):
        player = session.get(Player, player_id)
        if player is None:
            continue
        start = morning(now, player.time_zone, settings.digest_hour)
        if oldest < start and not session.scalar(
            select(Outbox.id).where(Outbox.key == _key(player, start))
        ):
            found.append(player.id)
    return found


def send(session: Session, player_id: int, now: datetime) -> Outbox | None:
    """Queue the player's digest of every held row (or release them); None if nothing to do."""
    settings = notify.settings_of(session)
    player = session.scalar(select(Player).where(Player.id == player_id).with_for_update())
    if player is None:
        return None
    held = session.scalars(
        select(Outbox)
        .where(
            Outbox.player_id == player.id,
            Outbox.kind.like(notify.HELD + "%"),
            Outbox.sent_at.is_(None),
        )
        .order_by(Outbox.id)
        .with_for_update()
    ).all()
    if not held:
        return None
    if player.notify != "digest":
        for row in held:
            row.kind = row.kind.removeprefix(notify.HELD)
            row.next_attempt_at = now + notify.settings_of(session).requeue_after
            enqueue(session, Task.SEND, row.id)
        return None
    key = _key(player, morning(now, player.time_zone, settings.digest_hour))
    games = _games(session, settings, player, held, now)
    waiting = [entry for entry in games if entry["urgency"] is not None]
    context = {
        "date": now,
        "games": games,
        "next_game_url": (waiting[0]["play_url"] or waiting[0]["game_url"]) if waiting else None,
    }
    digest = notify.queue_mail(
        session, kind="digest", to=player, game=None, context=context, key=key, now=now
    )
    for row in held:
        row.sent_at = now
    return digest


def _key(player: Player, start: datetime) -> str:
    return f"digest:{player.id}:{start.date().isoformat()}"


def _games(
    session: Session, settings: Settings, player: Player, held: Sequence[Outbox], now: datetime
) -> list[dict[str, Any]]:
    """One entry per game, most urgent first: those waiting for the reader, least time left
    first (no deadline last), then the others by game number."""
    since: dict[int, datetime] = {}
    for row in held:
        if row.game_id is not None and row.game_id not in since:
            since[row.game_id] = row.created_at
    told = _told(player, held)
    entries = []
    for game_id, oldest in since.items():
        game = session.get_one(Game, game_id)
        said = told.get(game_id, {})
        entry = notify.game_context(session, settings, game, player, "digest")
        turns = session.scalars(
            select(Turn)
            .where(Turn.game_id == game.id, Turn.resolved_at >= oldest - EVENTS_SLACK)
            .order_by(Turn.number)
        )
        locale = i18n.locale_for(player)
        entry["events"] = [
            event for turn in turns for event in _in_language(turn, said.get(turn.number), locale)
        ]
        entry["deadline"] = notify.open_deadline(session, game)
        entry["reply_to"] = make_reply_address(
            settings.secret(), settings.mail_domain, game.id, player.id, game.turn
        )
        view = entry["view"]
        waits = view["viewer"] in view["to_act"] and view["viewer"] not in view["submitted"]
        entry["urgency"] = _urgency(entry["deadline"], now) if waits else None
        entry["urgent"] = entry["urgency"] == "urgent"
        entries.append(entry)
    entries.sort(key=lambda entry: _most_urgent_first(entry))
    return entries


def _told(player: Player, held: Sequence[Outbox]) -> dict[int, dict[int, list[Any]]]:
    """The events of each turn the held rows tell of, by game and turn, as they were said to
    the reader (:func:`notify.told_turn`): in their language, where the turn's stored events
    are English only. Nothing for an English reader: the stored events are theirs."""
    told: dict[int, dict[int, list[Any]]] = {}
    if i18n.locale_for(player) == i18n.DEFAULT:
        return told
    for row in held:
        number = notify.told_turn(row)
        events = (row.context or {}).get("events")
        if row.game_id is not None and number is not None and isinstance(events, list):
            told.setdefault(row.game_id, {})[number] = events
    return told


def _in_language(
    turn: Turn, said: list[Any] | None, locale: str = i18n.DEFAULT
) -> list[dict[str, Any]]:
    """The turn's stored events in ``locale``: from their stored reasons (``why``, kept since
    the write path stores them); for a turn stored without, each with the text ``said`` gave
    it where ``said`` (a held mail's events of this turn) tells the same events: as many, of
    the same kinds and seats. Else in English."""
    stored: list[dict[str, Any]] = list(turn.events or [])
    if locale != i18n.DEFAULT and stored and all("why" in event for event in stored):
        return [_said_in(event, locale) for event in stored]
    events = [{k: v for k, v in event.items() if k != "why"} for event in stored]
    if said is None or len(said) != len(events):
        return events
    pairs = list(zip(events, said, strict=True))
    if not all(
        isinstance(told, dict)
        and isinstance(told.get("text"), str)
        and (told.get("kind"), told.get("seat")) == (event.get("kind"), event.get("seat"))
        for event, told in pairs
    ):
        return events
    return [event | {"text": told["text"]} for event, told in pairs]


def _said_in(event: dict[str, Any], locale: str) -> dict[str, Any]:
    """A stored event, its text said in ``locale`` by its reason where the reason still says
    the stored English (``render.told_in``), else as stored."""
    told = {key: value for key, value in event.items() if key != "why"}
    try:
        why = Reason.from_json(event["why"])
    except (KeyError, TypeError, ValueError):  # a row written by hand, say: keep its English
        return told
    return told | {"text": told_in(locale, why, str(event.get("text", "")))}


def _urgency(deadline: datetime | None, now: datetime) -> str:
    """``urgent`` (under :data:`URGENT` left), ``due`` (a deadline further off), ``open``."""
    if deadline is None:
        return "open"
    return "urgent" if deadline - now < URGENT else "due"


def _most_urgent_first(entry: dict[str, Any]) -> tuple[int, float, int]:
    if entry["urgency"] is None:
        return (2, 0.0, entry["game_id"])
    deadline = entry["deadline"]
    if deadline is None:
        return (1, 0.0, entry["game_id"])
    return (0, deadline.timestamp(), entry["game_id"])
