"""A player's send delay (issue 25): moves they mail are held a few minutes before they count.

A player with ``send_delay_minutes`` above 0 (``PATCH /api/v1/players/me``, or the mail
command ``delay 5``) has each alternating move they mail checked at once (their turn, a legal
move: refused at once otherwise) and kept as a :class:`~service.models.HeldMove`; the receipt
says when it will be played and that ``undo`` cancels it. The beat's sweep
(``schedule.sweep``) plays each held move that is due through ``games.submit``, the normal
write path, as if it had arrived then. Each is locked and re-read first, so a sweep run twice
plays it once. A move that no longer fits (the game ended, the turn moved on) is ``failed``
and the player is told why. A newer held move replaces an older one of the same game.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from service import games, i18n, notify, players
from service.errors import Conflict, ServiceError
from service.i18n import N_
from service.models import Game, HeldMove, Player

HELD, PLAYED, UNDONE, FAILED = "held", "played", "undone", "failed"
CHANNEL = "mail"

NOTHING_HELD = N_("you have no move held by your send delay in this game to cancel")
WILL_BE_PLAYED = N_("your move %(move)s will be played at %(when)s unless you reply 'undo'")
CANCELLED = N_("your held move %(move)s was cancelled; nothing was played")
NOT_PLAYED = N_("your held move %(move)s was not played: %(why)s")


def valid_delay(value: Any) -> int:
    """A send delay in whole minutes, 0 (off) to a day (``players.valid_delay``)."""
    return players.valid_delay(value)


def hold(
    session: Session, game: Game, player: Player, turn: Any, text: str, now: datetime
) -> HeldMove:
    """Check the move now (the turn, legal for the player) and hold it until it is due."""
    games.check_turn(session, game, turn)
    games.preview(session, game.id, player, text)
    for earlier in _held(session, game.id, player.id):
        earlier.status, earlier.result = UNDONE, "replaced by a later move"
    row = HeldMove(
        game_id=game.id,
        player_id=player.id,
        turn=int(turn),
        text=text,
        due_at=now + timedelta(minutes=player.send_delay_minutes),
        status=HELD,
        created_at=now,
    )
    session.add(row)
    session.flush()
    return row


def receipt(row: HeldMove, player: Player) -> tuple[str, str]:
    """What the receipt says of a held move: in English (stored) and in the player's language."""
    locale = i18n.locale_for(player)
    english = WILL_BE_PLAYED % {"move": row.text, "when": f"{row.due_at:%H:%M} UTC"}
    when = i18n.format_datetime(row.due_at, locale, player.time_zone, "short")
    return english, i18n.gettext(locale, WILL_BE_PLAYED, move=row.text, when=when)


def undo(session: Session, game_id: int, player: Player, now: datetime) -> tuple[str, str]:
    """Cancel the player's held move in this game: (English, the player's language)."""
    rows = _held(session, game_id, player.id)
    if not rows:
        raise Conflict(NOTHING_HELD, "nothing_held")
    for row in rows:
        row.status, row.result = UNDONE, f"undone at {now.isoformat()}"
    move = rows[-1].text
    locale = i18n.locale_for(player)
    return CANCELLED % {"move": move}, i18n.gettext(locale, CANCELLED, move=move)


def due(session: Session, now: datetime) -> list[int]:
    """The held moves whose time has come, oldest first."""
    query = select(HeldMove.id).where(HeldMove.status == HELD, HeldMove.due_at <= now)
    return list(session.scalars(query.order_by(HeldMove.due_at, HeldMove.id)))


def play(session: Session, held_id: int, now: datetime) -> bool:
    """Play one held move if it is still held (locked and re-read: twice plays once)."""
    row = session.scalar(select(HeldMove).where(HeldMove.id == held_id).with_for_update())
    if row is None or row.status != HELD or row.due_at > now:
        return False
    player = session.get_one(Player, row.player_id)
    try:
        with session.begin_nested():
            games.submit(session, row.game_id, player, row.turn, row.text, CHANNEL, now)
    except ServiceError as error:
        row.status, row.result = FAILED, str(error)
        locale = i18n.locale_for(player)
        why = error.localized(locale)
        said = i18n.gettext(locale, NOT_PLAYED, move=row.text, why=why)
        game = session.get_one(Game, row.game_id)
        notify.queue_mail(
            session,
            kind="error_reply",
            to=player,
            game=game,
            context={"received": row.text, "error": said},
        )
        return False
    row.status, row.result = PLAYED, f"played at {now.isoformat()}"
    return True


def _held(session: Session, game_id: int, player_id: int) -> list[HeldMove]:
    query = select(HeldMove).where(
        HeldMove.game_id == game_id, HeldMove.player_id == player_id, HeldMove.status == HELD
    )
    return list(session.scalars(query.order_by(HeldMove.id).with_for_update()))
