"""``pbem demo`` and ``pbem mail reply``: a game to play by mail on one machine.

``reply_to_latest`` writes the mail a client would send when a player answers their latest
mail of a game: addressed to its Reply-To, threaded under it, the typed text on top and the
original quoted below it (which the gateway must, and does, ignore).
"""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

from sqlalchemy import select
from sqlalchemy.orm import Session

from engine import State
from service import games, notify, players
from service.models import Game, Outbox, Player, utcnow

DEMO_PLAYERS = (("Alice", "alice@example.org"), ("Bob", "bob@example.org"))
DEMO_GAME = "epaminondas"


def create_demo(session: Session, game_name: str = DEMO_GAME) -> tuple[Game, list[Player]]:
    """Alice and Bob (made once, found again later) and a new game between them."""
    seated = []
    for name, address in DEMO_PLAYERS:
        player = players.by_address(session, address)
        if player is None:
            player, _ = players.create(session, None, {"name": name, "emails": [address]})
        seated.append(player)
    game = games.create(session, seated[0], {"game": game_name, "seats": [p.id for p in seated]})
    return game, seated


def first_move(state: State, seat: int) -> str:
    """A valid first move of ``seat``: now, or after the other seats' example moves."""
    for _ in range(len(state.game.seat_names)):
        examples = state.view(seat).examples
        if seat in state.to_act and examples:
            return examples[0]
        if state.simultaneous or not state.to_act or state.is_over:
            break
        mover = state.to_act[0]
        state = state.play(mover, state.view(mover).examples[0]).state
    return "MOVE"


def latest_mail(session: Session, address: str, game_id: int) -> EmailMessage | None:
    """The latest mail written to ``address`` about a game, parsed."""
    row = session.scalar(
        select(Outbox)
        .where(Outbox.game_id == game_id, Outbox.to_address == address.strip().lower())
        .order_by(Outbox.id.desc())
        .limit(1)
    )
    if row is None:
        return None
    body = notify.rendered(session, row).body  # a mail not sent yet is rendered now
    parsed = email.message_from_string(body, policy=email.policy.default)
    assert isinstance(parsed, EmailMessage)
    return parsed


def reply_to_latest(session: Session, sender: str, game_id: int, text: str) -> bytes | None:
    """The raw reply of ``sender`` to their latest mail of the game, or None if they have none."""
    original = latest_mail(session, sender, game_id)
    if original is None:
        return None
    part = original.get_body(("plain",))
    quoted = part.get_content() if isinstance(part, EmailMessage) else ""
    reply = EmailMessage()
    reply["From"] = sender
    reply["To"] = original.get("Reply-To") or original.get("From", "")
    subject = str(original.get("Subject", ""))
    reply["Subject"] = subject if subject.lower().startswith("re:") else f"Re: {subject}"
    reply["Date"] = format_datetime(utcnow())
    reply["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or "localhost")
    original_id = str(original.get("Message-ID", ""))
    if original_id:
        reply["In-Reply-To"] = original_id
        reply["References"] = original_id
    attribution = f"On {original.get('Date', 'an earlier day')}, {original.get('From')} wrote:"
    quote = "\n".join("> " + line if line else ">" for line in quoted.splitlines())
    reply.set_content(f"{text.strip()}\n\n{attribution}\n{quote}\n")
    return bytes(reply)
