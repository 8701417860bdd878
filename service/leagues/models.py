"""The league tables: leagues, entries, rounds, pairings, ratings and the audit log.

They share ``service.models.Base``; ``service.models`` imports this module at its end so the
metadata (and Alembic) always sees them. Migration ``0003`` creates them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from service.models import Base, Player, utcnow


class League(Base):
    __tablename__ = "leagues"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    game: Mapped[str] = mapped_column(String(40))
    options: Mapped[dict[str, Any]]
    seats: Mapped[int] = mapped_column(Integer)
    time_control: Mapped[dict[str, Any]]
    format: Mapped[str] = mapped_column(String(24))
    settings: Mapped[dict[str, Any]]
    scoring: Mapped[dict[str, Any]]
    tiebreaks: Mapped[list[Any]]
    status: Mapped[str] = mapped_column(String(16), default="open", index=True)
    paused: Mapped[bool] = mapped_column(default=False)
    starts_at: Mapped[datetime | None]
    join_code: Mapped[str | None] = mapped_column(String(40))
    round: Mapped[int] = mapped_column(Integer, default=0)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None]

    entries: Mapped[list[Entry]] = relationship(order_by="Entry.id", back_populates="league")


class Entry(Base):
    """A player's place in a league; results count for the entry (a substitute plays for it)."""

    __tablename__ = "league_entries"
    __table_args__ = (UniqueConstraint("league_id", "player_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"), index=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    status: Mapped[str] = mapped_column(String(16), default="invited")
    seed: Mapped[int] = mapped_column(Integer, default=0)
    joined_at: Mapped[datetime] = mapped_column(default=utcnow)
    answered_at: Mapped[datetime | None]
    withdrawn_at: Mapped[datetime | None]

    league: Mapped[League] = relationship(back_populates="entries")
    player: Mapped[Player] = relationship()


class Round(Base):
    __tablename__ = "league_rounds"
    __table_args__ = (UniqueConstraint("league_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None]


class Pairing(Base):
    """One game (or bye, or sit-out) of a round, between entries in seat order.

    ``places`` holds a finishing place per seat once decided (a bye: ``[1]``); ``forfeits``
    the forfeit kind per seat (``time``, ``missed_turns``, ``withdrawal``) or None.
    """

    __tablename__ = "league_pairings"
    __table_args__ = (UniqueConstraint("league_id", "round", "board"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"), index=True)
    round: Mapped[int] = mapped_column(Integer)
    board: Mapped[int] = mapped_column(Integer)
    entries: Mapped[list[Any]]
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"), index=True, unique=True)
    status: Mapped[str] = mapped_column(String(16), default="playing")
    places: Mapped[list[Any] | None]
    forfeits: Mapped[list[Any] | None]
    decided_at: Mapped[datetime | None]


class Rating(Base):
    """A player's current rating under one key (game, or game and board size) and system."""

    __tablename__ = "ratings"
    __table_args__ = (UniqueConstraint("player_id", "key", "system"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    key: Mapped[str] = mapped_column(String(80))
    system: Mapped[str] = mapped_column(String(16))
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float | None] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class RatingChange(Base):
    """Rating history: one row per player per rated game."""

    __tablename__ = "rating_history"

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    key: Mapped[str] = mapped_column(String(80))
    system: Mapped[str] = mapped_column(String(16))
    rating_before: Mapped[float] = mapped_column(Float)
    deviation_before: Mapped[float] = mapped_column(Float)
    rating_after: Mapped[float] = mapped_column(Float)
    deviation_after: Mapped[float] = mapped_column(Float)
    volatility_after: Mapped[float | None] = mapped_column(Float)
    at: Mapped[datetime] = mapped_column(default=utcnow)


class AuditEntry(Base):
    """Every director's action: who, what, on which league or game, and why."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(default=utcnow)
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    actor: Mapped[str] = mapped_column(String(80))
    action: Mapped[str] = mapped_column(String(32))
    league_id: Mapped[int | None] = mapped_column(ForeignKey("leagues.id"), index=True)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"), index=True)
    reason: Mapped[str] = mapped_column(Text)
    detail: Mapped[dict[str, Any]]


class GamePause(Base):
    """A paused game: its clock stopped with ``remaining`` seconds left on the turn."""

    __tablename__ = "game_pauses"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    turn: Mapped[int] = mapped_column(Integer)
    remaining: Mapped[float | None] = mapped_column(Float)
    paused_at: Mapped[datetime] = mapped_column(default=utcnow)
    resumed_at: Mapped[datetime | None]


class LeagueDirector(Base):
    """A co-director: besides its creator, these directors may run the league (migration 0006)."""

    __tablename__ = "league_directors"
    __table_args__ = (UniqueConstraint("league_id", "player_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"), index=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    added_by: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    added_at: Mapped[datetime] = mapped_column(default=utcnow)

    player: Mapped[Player] = relationship(foreign_keys=[player_id])
