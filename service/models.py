"""The database schema (SQLAlchemy 2.x); changes go through Alembic migrations."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    text,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, query_expression, relationship


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in and out, stored naive so SQLite and PostgreSQL agree."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        return None if value is None else value.replace(tzinfo=UTC)


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    type_annotation_map = {datetime: UTCDateTime, dict[str, Any]: JSON, list[Any]: JSON}


ROLES = ("player", "td", "admin")
NOTIFY = ("each", "digest", "none")
OWN_COPY = ("full", "short", "none")
"""What the mover of an alternating game gets of their own move: the whole mail, a one-line
receipt, or nothing (mail answers to their own mail still come)."""
BOARD_TEXT = ("grid", "words")
WEBHOOK_FORMATS = ("json", "discord", "slack")
"""Generic JSON signed with HMAC-SHA256, or a Discord or Slack incoming-webhook message."""
WEBHOOK_EVENTS = ("your_turn", "moved", "resolved", "result", "standings")
"""What a webhook may carry (``service/webhooks.py``); a league's has no ``your_turn``."""
"""The board in a mail's text part: the position in words and the ASCII grid, or the words
alone (a screen reader reads the grid character by character)."""


class GameStatus(StrEnum):
    """``Game.status``; the values are the strings stored (no migration)."""

    ACTIVE = "active"
    FINISHED = "finished"
    VOID = "void"


class OrderStatus(StrEnum):
    """``Order.status``: ``current`` until the turn moves on; ``played`` (an alternating move),
    ``resolved`` (sealed orders applied), ``default`` (given at the deadline) were applied;
    ``replaced``, ``withdrawn`` and ``void`` were not."""

    CURRENT = "current"
    PLAYED = "played"
    RESOLVED = "resolved"
    DEFAULT = "default"
    REPLACED = "replaced"
    WITHDRAWN = "withdrawn"
    VOID = "void"


APPLIED = (OrderStatus.PLAYED, OrderStatus.RESOLVED, OrderStatus.DEFAULT)
"""Order statuses whose orders the engine applied (revealed to everyone)."""


class ResolvedBy(StrEnum):
    """``Turn.resolved_by``, and the ``by`` of a game's end (the chain's ``end`` link)."""

    START = "start"
    MOVE = "move"
    ORDERS = "orders"
    DEADLINE = "deadline"
    TIME = "time"
    FORFEIT = "forfeit"
    RESIGN = "resign"
    DRAW = "draw"
    DIRECTOR = "director"
    WITHDRAWAL = "withdrawal"
    VOID = "void"
    IMPORT = "import"
    TAKEBACK = "takeback"
    CAP = "cap"


class Player(Base):
    __tablename__ = "players"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    roles: Mapped[list[Any]] = mapped_column(default=lambda: ["player"])
    time_zone: Mapped[str] = mapped_column(String(64), default="UTC")
    notify: Mapped[str] = mapped_column(String(16), default="each")
    own_copy: Mapped[str] = mapped_column(String(8), default="short", server_default="short")
    board_flip: Mapped[bool] = mapped_column(default=True, server_default=true())
    board_text: Mapped[str] = mapped_column(String(8), default="grid", server_default="grid")
    language: Mapped[str | None] = mapped_column(String(8), default=None)
    """The language the player reads (``service.i18n.LANGUAGES``); None: not chosen yet (the
    first reply whose language shows sets it, ``gateway``; pages follow the browser)."""
    vacation_days_per_year: Mapped[float] = mapped_column(Float, default=21.0)
    send_delay_minutes: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Moves this player mails are held this many minutes before they are played, so an
    ``undo`` can still cancel them (0: played at once; migration 0015, issue 25)."""
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    sign_in_spent_until: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    """The expiry (Unix seconds) of the newest sign-in link used: that link and every older
    one (they expire sooner) sign in no more (``service/console/sign_in.py``)."""

    emails: Mapped[list[Email]] = relationship(
        back_populates="player", order_by="Email.id", cascade="all, delete-orphan"
    )
    tokens: Mapped[list[ApiToken]] = relationship(cascade="all, delete-orphan")
    vacations: Mapped[list[Vacation]] = relationship(order_by="Vacation.starts")

    def has_role(self, *roles: str) -> bool:
        return any(role in self.roles for role in roles)

    @property
    def address(self) -> str | None:
        return self.emails[0].address if self.emails else None


class Email(Base):
    __tablename__ = "emails"

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    address: Mapped[str] = mapped_column(String(254), unique=True)
    sender_checks: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    """False: mail from this address comes through a forwarder, which breaks SPF and DKIM,
    so the gateway does not ask for sender authentication (the player chose so)."""

    player: Mapped[Player] = relationship(back_populates="emails")


class ApiToken(Base):
    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    revoked_at: Mapped[datetime | None]


class Vacation(Base):
    __tablename__ = "vacations"

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    starts: Mapped[datetime]
    ends: Mapped[datetime]
    days: Mapped[float] = mapped_column(Float)


class Game(Base):
    __tablename__ = "games"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    options: Mapped[dict[str, Any]]
    players: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="active", index=True)
    time_control: Mapped[dict[str, Any]]
    state: Mapped[dict[str, Any]]
    turn: Mapped[int] = mapped_column(Integer, default=0)
    rolls: Mapped[int] = mapped_column(Integer, default=0)
    draw_offers: Mapped[list[Any]] = mapped_column(default=list)
    takeback_offer: Mapped[dict[str, Any] | None] = mapped_column(default=None)
    """``{"seat", "turn"}``: the seat that offered to take its last move back, in the turn it
    was made (valid while ``turn`` is the game's turn; migration 0015, issue 25)."""
    result: Mapped[dict[str, Any] | None]
    seed: Mapped[bytes | None] = mapped_column(LargeBinary)
    commitment: Mapped[str | None] = mapped_column(String(128))
    created_by: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None]
    start_position: Mapped[str | None] = mapped_column(Text)
    """Set when a director started the game from a position (migration 0006)."""

    seats: Mapped[list[Seat]] = relationship(order_by="Seat.seat", back_populates="game")
    open_turn: Mapped[Turn | None] = relationship(
        primaryjoin="and_(Game.id == foreign(Turn.game_id), Game.turn == foreign(Turn.number))",
        viewonly=True,
        uselist=False,
    )
    """The row of turn ``Game.turn``, read with the locked game (``service.games.aggregate``);
    view-only: a turn the transaction opens is not seen here until the game is read again."""
    steps_taken: Mapped[int | None] = query_expression()
    """How many step rows the game has, when the query asked (``with_expression``): the
    locked game reads it in the locking statement, to number its next step."""


class Seat(Base):
    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("game_id", "seat"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    missed: Mapped[int] = mapped_column(Integer, default=0)
    bank_seconds: Mapped[float | None] = mapped_column(Float)

    game: Mapped[Game] = relationship(back_populates="seats")
    player: Mapped[Player] = relationship()


class Turn(Base):
    """One decision point: a sequential move or a sealed turn, with its deadline."""

    __tablename__ = "turns"
    __table_args__ = (
        UniqueConstraint("game_id", "number"),
        # the sweep's due turns: only open turns, by deadline (a small index that stays small)
        Index(
            "ix_turns_open_deadline",
            "deadline",
            postgresql_where=text("resolved_at IS NULL"),
            sqlite_where=text("resolved_at IS NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    phase: Mapped[str] = mapped_column(String(16))
    to_act: Mapped[list[Any]]
    state: Mapped[dict[str, Any]]
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    deadline: Mapped[datetime | None] = mapped_column(index=True)
    waiting: Mapped[list[Any]] = mapped_column(default=list)
    reminders_sent: Mapped[list[Any]] = mapped_column(default=list)
    resolved_at: Mapped[datetime | None] = mapped_column(index=True)
    resolved_by: Mapped[str | None] = mapped_column(String(16))
    events: Mapped[list[Any]] = mapped_column(default=list)


class Order(Base):
    """A move or sealed orders as received; sealed ones are shown to their author only."""

    __tablename__ = "orders"
    # a turn's current orders (sealed turns complete? whose orders to retire?)
    __table_args__ = (Index("ix_orders_game_turn_status", "game_id", "turn", "status"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    turn: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    text: Mapped[str] = mapped_column(Text)
    parsed: Mapped[str] = mapped_column(Text)
    channel: Mapped[str] = mapped_column(String(16), default="api")
    sealed: Mapped[bool] = mapped_column(Boolean, default=False)
    status: Mapped[str] = mapped_column(String(16), default="current")
    receipt: Mapped[str | None] = mapped_column(String(64))
    receipt_salt: Mapped[str | None] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Step(Base):
    """What the engine applied, in order: chance outcomes and moves (the replayable record)."""

    __tablename__ = "steps"
    __table_args__ = (UniqueConstraint("game_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    turn: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))
    seat: Mapped[int | None] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)


class HeldMove(Base):
    """A move received by mail from a player with a send delay: played by the sweep at
    ``due_at`` (``status`` ``held``, then ``played``, ``undone`` or ``failed``; issue 25)."""

    __tablename__ = "held_moves"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    turn: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    due_at: Mapped[datetime] = mapped_column(index=True)
    status: Mapped[str] = mapped_column(String(16), default="held", index=True)
    result: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ChainLink(Base):
    """One link of a game's hash chain (see ``service/chain.py``); append-only."""

    __tablename__ = "chain_links"
    __table_args__ = (UniqueConstraint("game_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))
    data: Mapped[dict[str, Any]]
    prev: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64))


class GameNote(Base):
    """A player's private note on a game (``service/notes.py``, issue 25, 2): shown to its
    author alone, and no game state: no event, record, chain link or log entry carries it."""

    __tablename__ = "game_notes"
    __table_args__ = (UniqueConstraint("game_id", "player_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    text: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class ConditionalMove(Base):
    """A seat's standing answers to moves not yet played (``service/conditional.py``);
    visible to its author only."""

    __tablename__ = "conditional_moves"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    text: Mapped[str] = mapped_column(Text)
    tree: Mapped[list[Any]]
    turn: Mapped[int] = mapped_column(Integer)
    channel: Mapped[str] = mapped_column(String(16), default="api")
    status: Mapped[str] = mapped_column(String(16), default="active")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    ended_at: Mapped[datetime | None]


class LogEntry(Base):
    """Append-only history of a game; never holds the text of unrevealed sealed orders."""

    __tablename__ = "game_log"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    at: Mapped[datetime] = mapped_column(default=utcnow)
    turn: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(32))
    seat: Mapped[int | None] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)


class Outbox(Base):
    """A message to send; written in the transaction that caused it, sent after commit.

    The transaction writes what to send (issue 23): the kind, the recipient, the game and its
    turn at the event, the kind's own ``context`` and the ``position`` the mail shows (the
    game values as of its event, the reader's view among them), and for a mail that carries
    gathered ones their ``merged`` items, the ``report`` and what was ``done``. The send task
    renders it after commit and stores ``subject`` and ``body`` (empty until then) at the
    first render, so that a retry sends the same bytes.
    """

    __tablename__ = "outbox"

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str | None] = mapped_column(String(200), unique=True)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"), index=True)
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    kind: Mapped[str] = mapped_column(String(32))
    to_address: Mapped[str] = mapped_column(String(254))
    subject: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(index=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime | None]
    last_error: Mapped[str | None] = mapped_column(Text)
    turn: Mapped[int | None] = mapped_column(Integer)
    in_reply_to: Mapped[str | None] = mapped_column(Text)
    reply_to: Mapped[str | None] = mapped_column(Text)
    report: Mapped[str | None] = mapped_column(Text)
    context: Mapped[dict[str, Any] | None]
    position: Mapped[dict[str, Any] | None]
    merged: Mapped[list[Any] | None]
    done: Mapped[list[Any] | None]


class Webhook(Base):
    """An outgoing webhook of a player or of a league (``service/webhooks.py``, issue 25, 5).
    ``secret`` signs the generic JSON format; it is shown once, when the hook is made."""

    __tablename__ = "webhooks"

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), index=True)
    league_id: Mapped[int | None] = mapped_column(ForeignKey("leagues.id"), index=True)
    url: Mapped[str] = mapped_column(Text)
    format: Mapped[str] = mapped_column(String(16))
    events: Mapped[list[Any]]
    secret: Mapped[str] = mapped_column(String(80))
    created_by: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class WebhookDelivery(Base):
    """One event for one webhook: its ``body`` (the exact bytes sent, made in the transaction
    of the event, so no later state and no secret of the game can slip in) and how sending it
    went. ``uid`` is the delivery's id for receivers (``Pbem-Delivery``), the same on every
    retry; sent once: the send task locks the row and skips it when ``sent_at`` is set."""

    __tablename__ = "webhook_deliveries"

    id: Mapped[int] = mapped_column(primary_key=True)
    uid: Mapped[str] = mapped_column(String(40), unique=True)
    webhook_id: Mapped[int] = mapped_column(ForeignKey("webhooks.id"), index=True)
    event: Mapped[str] = mapped_column(String(16))
    event_id: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(index=True)
    failed_at: Mapped[datetime | None]
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime | None]
    last_status: Mapped[int | None] = mapped_column(Integer)
    last_error: Mapped[str | None] = mapped_column(Text)


import service.leagues.models  # noqa: E402  (the league tables share this metadata)
import service.mail.models  # noqa: E402, F401  (the inbound mail table shares this metadata)
