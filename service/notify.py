"""Outgoing messages: written to the outbox in the transaction that causes them, sent later.

Everything a player is told about a board goes through ``state.view(seat)``. Sending is
at-least-once and idempotent per outbox row: the row is locked, skipped when already sent,
and a failure is recorded (attempts, error, next attempt) rather than lost.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

from sqlalchemy import select
from sqlalchemy.orm import Session

from engine import Event, State
from service.config import Settings
from service.db import enqueue
from service.models import Game, Outbox, Player, utcnow

SEND_TASK = "pbem.send"
MAX_BACKOFF = timedelta(hours=1)

Sender = Callable[[Settings, Outbox, EmailMessage], None]


def _write(
    session: Session,
    game: Game | None,
    player: Player,
    kind: str,
    subject: str,
    body: str,
    key: str | None = None,
) -> None:
    if player.notify == "none" or player.address is None:
        return
    if key and session.scalar(select(Outbox.id).where(Outbox.key == key)):
        return
    row = Outbox(
        key=key,
        game_id=game.id if game else None,
        player_id=player.id,
        kind=kind,
        to_address=player.address,
        subject=subject,
        body=body,
    )
    session.add(row)
    session.flush()
    enqueue(session, SEND_TASK, row.id)


def _subject(game: Game, text: str) -> str:
    return f"[pbem #{game.id} {game.name}] {text}"


def board(state: State, seat: int | None) -> str:
    view = state.view(seat)
    lines = [view.ascii, "", *view.info, view.status]
    if view.examples:
        lines.append("For example: " + ", ".join(view.examples))
    return "\n".join(lines)


def turn_result(
    session: Session, game: Game, state: State, events: Sequence[Event], turn: int
) -> None:
    """Tell every seat what happened and where things stand, each through their own view."""
    told = "\n".join(f"- {event.text}" for event in events) or "- (nothing to report)"
    for seat in game.seats:
        body = f"Turn {turn} of game #{game.id}:\n{told}\n\n{board(state, seat.seat)}\n"
        subject = _subject(game, state.view(seat.seat).status)
        _write(
            session, game, seat.player, "turn", subject, body, f"turn:{game.id}:{turn}:{seat.seat}"
        )


def started(session: Session, game: Game, state: State) -> None:
    names = ", ".join(f"{s.player.name} ({state.game.seat_names[s.seat]})" for s in game.seats)
    commitment = f"\nDice seed commitment (SHA-256): {game.commitment}\n" if game.commitment else ""
    for seat in game.seats:
        body = (
            f"A new game of {state.game.title}: {names}.{commitment}\n{board(state, seat.seat)}\n"
        )
        key = f"start:{game.id}:{seat.seat}"
        _write(session, game, seat.player, "start", _subject(game, "new game"), body, key)


def reminder(
    session: Session,
    game: Game,
    state: State,
    player: Player,
    seat: int,
    turn: int,
    hours: float,
    deadline: datetime,
) -> None:
    body = (
        f"Reminder: your move in game #{game.id} is due by {deadline.isoformat()} "
        f"(in about {hours:g} hours).\n\n{board(state, seat)}\n"
    )
    key = f"remind:{game.id}:{turn}:{hours:g}:{seat}"
    _write(session, game, player, "reminder", _subject(game, "reminder"), body, key)


def vacation(session: Session, game: Game, to: Player, away: Player, ends: datetime) -> None:
    body = (
        f"{away.name} is on vacation until {ends.isoformat()}. Their clock in game #{game.id} "
        f"is stopped and sealed-turn deadlines move back accordingly.\n"
    )
    _write(session, game, to, "vacation", _subject(game, f"{away.name} is on vacation"), body)


def ended(session: Session, game: Game, state: State, reason: str) -> None:
    seed = f"\nDice seed (hex): {game.seed.hex()}\n" if game.seed else ""
    for seat in game.seats:
        body = f"Game #{game.id} is over: {reason}.{seed}\n{board(state, seat.seat)}\n"
        key = f"end:{game.id}:{seat.seat}"
        _write(session, game, seat.player, "end", _subject(game, "game over"), body, key)


def message(settings: Settings, row: Outbox) -> EmailMessage:
    mail = EmailMessage()
    mail["From"] = settings.mail_from
    mail["To"] = row.to_address
    mail["Subject"] = row.subject
    mail["Date"] = format_datetime(row.created_at)
    mail["Message-ID"] = make_msgid(idstring=f"outbox-{row.id}", domain="pbem.local")
    mail.set_content(row.body)
    return mail


def eml_sender(settings: Settings, row: Outbox, mail: EmailMessage) -> None:
    """The default sender: one ``.eml`` file per message (rewriting it on a retry)."""
    settings.mail_dir.mkdir(parents=True, exist_ok=True)
    path = settings.mail_dir / f"{row.id:08d}-{row.kind}.eml"
    partial = path.with_suffix(".part")
    partial.write_bytes(bytes(mail))
    os.replace(partial, path)


def sender(settings: Settings) -> Sender:
    if settings.mail_sender == "eml":
        return eml_sender
    module, _, name = settings.mail_sender.partition(":")
    found: Sender = getattr(importlib.import_module(module), name)
    return found


def send(session: Session, settings: Settings, outbox_id: int) -> float | None:
    """Send one message unless already sent; on failure, seconds until the next try."""
    query = select(Outbox).where(Outbox.id == outbox_id).with_for_update()
    row = session.scalar(query)
    if row is None or row.sent_at is not None:
        return None
    now = utcnow()
    row.attempts += 1
    try:
        sender(settings)(settings, row, message(settings, row))
    except Exception as error:  # any sender failure is kept on the row and retried
        backoff = min(timedelta(seconds=30 * 2 ** (row.attempts - 1)), MAX_BACKOFF)
        row.last_error = f"{type(error).__name__}: {error}"[:2000]
        row.next_attempt_at = now + backoff
        return backoff.total_seconds()
    row.sent_at = now
    row.last_error = None
    return None


def due(session: Session, now: datetime) -> list[int]:
    """Unsent messages whose (next) attempt is due: the sweep re-queues them."""
    query = select(Outbox.id).where(
        Outbox.sent_at.is_(None),
        (Outbox.next_attempt_at.is_(None)) | (Outbox.next_attempt_at <= now),
    )
    return list(session.scalars(query.order_by(Outbox.id).limit(500)))
