"""The inbound mail table: every raw message is stored before anything reads it.

A message is stored once (``dedup_key`` is unique: its Message-ID, or the hash of its bytes
when it has none), then processed by a worker; ``status`` and ``result`` say what came of it,
so nothing that arrived is ever lost, even a message that crashed its processing.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from service.models import Base, utcnow

RECEIVED, PROCESSED, IGNORED, REJECTED, FAILED, HELD = (
    "received",
    "processed",
    "ignored",
    "rejected",
    "failed",
    "held",
)
STATUSES = (RECEIVED, PROCESSED, IGNORED, REJECTED, FAILED, HELD)
"""``held``: a reply nobody could authenticate, kept until its author confirms it
(``held_replies``, ``service/mail/confirmation.py``); then it ends as any other."""
CHANNELS = ("smtp", "inject", "webhook", "imap")


class InboundMessage(Base):
    """One raw message as it arrived, and what the gateway did with it."""

    __tablename__ = "inbound_messages"

    id: Mapped[int] = mapped_column(primary_key=True)
    dedup_key: Mapped[str] = mapped_column(String(80), unique=True)
    message_id: Mapped[str | None] = mapped_column(String(998))
    content_hash: Mapped[str] = mapped_column(String(64), index=True)
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    channel: Mapped[str] = mapped_column(String(16))
    recipient: Mapped[str | None] = mapped_column(String(254))
    envelope_from: Mapped[str | None] = mapped_column(String(254))
    """SMTP ``MAIL FROM`` as our own listener received it (other channels: unknown)."""
    received_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    status: Mapped[str] = mapped_column(String(16), default=RECEIVED, index=True)
    result: Mapped[str | None] = mapped_column(Text)
    sender: Mapped[str | None] = mapped_column(String(254), index=True)
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), index=True)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"), index=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    processed_at: Mapped[datetime | None]
    requeue_at: Mapped[datetime | None]


HOLDING, PLAYED, REPLACED, EXPIRED, CANCELLED = "held", "played", "replaced", "expired", "cancelled"
HOLD_STATES = (HOLDING, PLAYED, REPLACED, EXPIRED, CANCELLED)


class HeldReply(Base):
    """A reply from one of the player's addresses that nothing vouched for (no signature, no
    trusted verdict), kept unplayed until the mailbox confirms it with the code only it got.

    Either a reply to a game (``game_id`` and ``turn``) or an answer to a league invitation
    (``league_id``). One row per inbound message (a message delivered twice is held once); at
    most one ``held`` row per game, player and turn, and per league and player (a newer reply
    replaces the older). The code is stored as its SHA-256 only: the database alone cannot
    confirm anything."""

    __tablename__ = "held_replies"
    __table_args__ = (
        Index("ix_held_replies_seat_turn", "game_id", "player_id", "turn"),
        Index("ix_held_replies_league_player", "league_id", "player_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    inbound_id: Mapped[int] = mapped_column(ForeignKey("inbound_messages.id"), unique=True)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"))
    league_id: Mapped[int | None] = mapped_column(ForeignKey("leagues.id"))
    """Set instead of ``game_id`` and ``turn`` for a held answer to a league invitation."""
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    turn: Mapped[int | None] = mapped_column(Integer)
    address: Mapped[str] = mapped_column(String(254))
    """The registered address the reply came from: the confirmation goes there, and only a
    ``yes`` from it counts."""
    code_hash: Mapped[str] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(16), default=HOLDING)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    decided_at: Mapped[datetime | None]
    outcome: Mapped[str | None] = mapped_column(Text)
