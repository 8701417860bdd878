"""The inbound mail table: every raw message is stored before anything reads it.

A message is stored once (``dedup_key`` is unique: its Message-ID, or the hash of its bytes
when it has none), then processed by a worker; ``status`` and ``result`` say what came of it,
so nothing that arrived is ever lost, even a message that crashed its processing.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from service.models import Base, utcnow

RECEIVED, PROCESSED, IGNORED, REJECTED, FAILED = (
    "received",
    "processed",
    "ignored",
    "rejected",
    "failed",
)
STATUSES = (RECEIVED, PROCESSED, IGNORED, REJECTED, FAILED)
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
