"""Private notes per game (issue 25, 2; lichess #5155): one per game and player, for its
author alone. A note is no game state, so it goes nowhere near ``service.games``' write path:
no event, record, chain link, log entry or other player's view ever carries it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from service.errors import BadRequest, Forbidden
from service.i18n import N_
from service.models import Game, GameNote, Player, utcnow

MAX_LENGTH = 2000


def get(session: Session, game: Game, player: Player | None) -> str | None:
    """The player's note on the game, or None."""
    if player is None:
        return None
    row = _row(session, game, player)
    return row.text if row else None


def set_note(session: Session, game: Game, player: Player, text: str) -> str | None:
    """Replace the player's note (blank text clears it); a player of the game only."""
    if not any(seat.player_id == player.id for seat in game.seats):
        raise Forbidden(N_("only the players of a game keep notes on it"))
    text = text.strip()
    if len(text) > MAX_LENGTH:
        raise BadRequest(
            N_("a note is at most %(most)s characters; this one has %(length)s"),
            "too_long",
            values={"most": MAX_LENGTH, "length": len(text)},
        )
    row = _row(session, game, player)
    if not text:
        if row is not None:
            session.delete(row)
        return None
    if row is None:
        row = GameNote(game_id=game.id, player_id=player.id, text=text)
        session.add(row)
    row.text, row.updated_at = text, utcnow()
    return text


def clear(session: Session, game: Game, player: Player) -> None:
    set_note(session, game, player, "")


def to_json(session: Session, game: Game, player: Player | None) -> dict[str, Any]:
    return {"game_id": game.id, "note": get(session, game, player)}


def _row(session: Session, game: Game, player: Player) -> GameNote | None:
    return session.scalar(
        select(GameNote).where(GameNote.game_id == game.id, GameNote.player_id == player.id)
    )
