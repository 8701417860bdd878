"""Outgoing messages: written to the outbox in the transaction that causes them, sent later.

Every mail is a template of ``email_templates/`` (see ``service/mail/render.py``). The
transaction that causes it writes only what to send (issue 23): kind, recipient, the kind's
context and the position the mail shows as of its event; the send task renders it after
commit (:func:`render`) and stores it whole, as the MIME message to send (``Outbox.body``),
so a retry sends the very same bytes. :func:`queue_mail` fills what every mail shares: the
reader's name, time zone and settings links, and for a game its id, public page, players
and the reader's own view, always ``state.view(seat of the reader)`` (a spectator's for
someone not seated).

Players choose ``each`` (every mail at once), ``digest`` (game news held for one mail a day,
see ``service/digest.py``) or ``none``. A held row stays in the outbox with ``kind``
``held:<kind>`` until the digest that carries it is queued; then it is marked sent. Answers to
a player's own mail (error replies, help, receipts) are never held nor suppressed.

While the mail gateway plays a player's reply, the game mails it causes are held
(:func:`gather`) and written at its end (:func:`release`), one per reader and game: the move,
the draw offer and the conditional move it set off reach the opponent in one mail, and the
author's mail answers the reply, saying what was done with each line.

Sending is at-least-once and idempotent per outbox row: the row is locked, skipped when
already sent, and a failure is recorded (attempts, error, next attempt) rather than lost.
"""

from __future__ import annotations

import email
import email.policy
import functools
import importlib
import itertools
import json
import logging
import os
import re
import smtplib
import ssl
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import parseaddr
from typing import Any, NamedTuple, ParamSpec, TypeVar

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, make_transient_to_detached

import engine
from engine import Event, State
from service import chain, db, i18n, receipts, rules
from service.config import Settings
from service.db import enqueue
from service.mail import dkim, outbound
from service.mail.addresses import make_reply_address
from service.mail.calendar import deadline_event
from service.mail.links import settings_token
from service.mail.play_links import play_token
from service.mail.render import (
    KINDS,
    duration,
    events_in,
    game_over_in,
    info_in,
    render_email,
    render_subject,
    result_reason_in,
    status_in,
)
from service.models import Game, GameNote, Order, OrderStatus, Outbox, Player, Turn, utcnow
from service.reader import drawn_view, forfeit_lines, scene_of, seen_by
from service.tasks import Task

log = logging.getLogger(__name__)

db.batch_as(Task.SEND, Task.SEND_BATCH)
MAX_BACKOFF = timedelta(hours=1)
SMTP_TIMEOUT = 60

HELD = "held:"
"""Kind prefix of a row held for its reader's daily digest."""
DIGESTED = frozenset(
    {"game_started", "your_turn", "turn_resolved", "opponent_moved", "default_orders", "vacation"}
)
"""Game news a digest reader gets once a day; the rest (reminders, game over, answers to their
own mail) is worth a mail of its own."""
ANSWERS = frozenset({"error_reply", "help", "confirm_resign", "confirm_reply", "reply_receipt"})
"""Kinds that answer a player's mail: ``Auto-Submitted: auto-replied``, sent whatever the
preference (so is any mail queued with ``in_reply_to``)."""
DEADLINE_KINDS = frozenset({"game_started", "your_turn", "reminder", "orders_received"})
CALENDAR_SUMMARY = i18n.N_("pbem #%(number)s %(game)s: turn %(turn)s deadline")
CALENDAR_DESCRIPTION = i18n.N_(
    "Turn %(turn)s of %(game)s #%(number)s closes now: reply to the game's latest mail with "
    "your move or orders before then. Game page: %(url)s"
)
"""The deadline's calendar event (``_calendar``), in the reader's language."""
"""Kinds that carry the deadline as an ``.ics`` event when the game is timed."""

P = ParamSpec("P")
T = TypeVar("T")
Sender = Callable[[Settings, Outbox, EmailMessage], None]


# -- queueing -----------------------------------------------------------------------------


def queue_mail(
    session: Session,
    *,
    kind: str,
    to: Player | str,
    game: Game | None,
    context: Mapping[str, Any],
    key: str | None = None,
    in_reply_to: str | None = None,
    reply_to: str | None = None,
    now: datetime | None = None,
) -> Outbox | None:
    """Write one outbox row for a template mail; ``context`` holds only what is kind-specific.

    Filled in (a caller's value wins, except ``view``, which a caller may not pass): the
    reader's ``player_name``, ``timezone``, ``preferences_url``, ``unsubscribe_url``; for a
    game ``game_id``, ``game_url``, ``players``, ``view`` (the reader's seat, or a spectator's
    for an address that is no player of the game), and where the kind needs them ``turn`` (the
    current one), ``deadline`` (of the open turn) and ``commitment``. Without a game the game
    values are all None (``error_reply``, ``help``).

    ``key``: at most one row per key; queueing it again returns the row already written.
    ``in_reply_to``: the Message-ID of the player's mail this answers.
    ``reply_to``: the Reply-To, when not the player's signed address for the game's turn (the
    default of a game mail): league invitations pass their signed league address, the
    confirmation of a held reply its signed confirmation address.
    Returns None when nothing was written: no address, or a player who wants no mail.
    """
    if kind not in KINDS:
        raise ValueError(f"no mail kind {kind!r}; known: {', '.join(KINDS)}")
    if "view" in context:
        raise ValueError("queue_mail draws the reader's view itself; pass no 'view'")
    answering = in_reply_to is not None or kind in ANSWERS
    gathered = db.work_of(session).gathering
    if gathered is not None and isinstance(to, Player) and game is not None and not answering:
        gathered.append(_Pending(kind, to, game, dict(context), key, reply_to, now))
        return None
    return _write(session, kind, to, game, context, key, in_reply_to, reply_to, now)


def _write(
    session: Session,
    kind: str,
    to: Player | str,
    game: Game | None,
    context: Mapping[str, Any],
    key: str | None,
    in_reply_to: str | None,
    reply_to: str | None,
    now: datetime | None,
    merged: Sequence[_Pending] = (),
    report: str | None = None,
    done: Sequence[str] = (),
) -> Outbox | None:
    """Store what to send (see :func:`queue_mail`); :func:`render` makes the mail after commit.
    ``merged``: the gathered mails to the same reader about the same game that this one
    carries (:func:`release`): their subjects join this one's, in the order they happened,
    and the body lists them.

    The row keeps the position the mail shows as of now (``position``: the event's scene,
    shared by its readers, and the reader's seat; :func:`game_scene`), so that sent later it
    never shows a later move (issue 23); the reader's view is drawn from it at render."""
    player = to if isinstance(to, Player) else None
    address = player.address if player is not None else str(to)
    answering = in_reply_to is not None or kind in ANSWERS
    if not address or (player is not None and player.notify == "none" and not answering):
        return None
    batch = db.work_of(session).outbox_batch
    if key is not None:
        existing: Outbox | None = next((row for row in batch or () if row.key == key), None)
        if existing is None and batch is None:  # a batch skips the keys the outbox holds
            existing = session.scalar(select(Outbox).where(Outbox.key == key))
        if existing is not None:
            return existing
    settings = settings_of(session)
    now = now or utcnow()
    scene = game_scene(session, settings, game)
    row = Outbox(
        key=key,
        game_id=game.id if game else None,
        player_id=player.id if player else None,
        kind=kind,
        to_address=address,
        subject="",
        body="",
        created_at=now,
        attempts=0,
        next_attempt_at=now + settings.requeue_after,
        turn=game.turn if game else None,
        in_reply_to=in_reply_to,
        reply_to=reply_to,
        report=report,
        context=freeze(dict(context)),
        position={
            "scene": scene,
            "seat": seat_of(game, player),
            "status": game.status if game else None,
        },
        merged=[
            {"kind": item.kind, "context": freeze(item.context), "carrier": item.context is context}
            for item in merged
        ]
        or None,
        done=list(done) or None,
    )
    if player is not None and player.notify == "digest" and kind in DIGESTED and not answering:
        row.kind = HELD + kind
    if batch is not None:  # inserted with the event's other mails (:func:`one_insert`)
        batch.append(row)
    else:
        session.add(row)
        _inserted(session, [row])
    return row


@contextmanager
def one_insert(session: Session) -> Iterator[None]:
    """The mails written inside go into the outbox in one INSERT at the end (one statement
    for every seat's mail of a turn, not a flush per row); their send tasks are queued then.
    A mail whose key the outbox already holds is not written again: the INSERT skips it
    (``ON CONFLICT DO NOTHING``) rather than each key being looked up first (issue 23). A
    mail written inside returns its new row even when the INSERT then skips it."""
    work = db.work_of(session)
    if work.outbox_batch is not None:
        yield
        return
    session.flush()  # what the event changed is visible to the queries of the mails
    work.outbox_batch = []
    try:
        with session.no_autoflush:
            yield
        rows = work.outbox_batch
    finally:
        work.outbox_batch = None
    _inserted(session, _unless_written(session, rows))


def inserted_together(act: Callable[P, T]) -> Callable[P, T]:
    """``act`` (taking the session first) writes its mails in one INSERT (:func:`one_insert`)."""

    @functools.wraps(act)
    def together(*args: P.args, **kwargs: P.kwargs) -> T:
        session = args[0]
        assert isinstance(session, Session)
        with one_insert(session):
            return act(*args, **kwargs)

    return together


def _unless_written(session: Session, rows: Sequence[Outbox]) -> list[Outbox]:
    """``rows`` in the session, in their order (the outbox's ids follow the events), those
    with a key the outbox does not hold yet inserted in one ``INSERT .. ON CONFLICT (key) DO
    NOTHING`` per run of keyed rows (the others dropped), those without a key flushed."""
    dialect = session.get_bind().dialect.name
    inserts: dict[str, Callable[..., Any]] = {
        "postgresql": postgresql.insert,
        "sqlite": sqlite.insert,
    }
    insert = inserts.get(dialect)
    if insert is None:  # another database: each key looked up
        rows = [row for row in rows if row.key is None or not _key_written(session, row.key)]
        session.add_all(rows)
        return list(rows)
    kept: list[Outbox] = []
    for keyed, run in itertools.groupby(rows, key=lambda row: row.key is not None):
        if keyed:
            kept += _insert_new(session, insert, list(run))
        else:
            run_rows = list(run)
            session.add_all(run_rows)
            session.flush()
            kept += run_rows
    return kept


def _insert_new(session: Session, insert: Callable[..., Any], rows: list[Outbox]) -> list[Outbox]:
    """The keyed ``rows`` whose key the outbox does not hold yet, inserted in one statement."""
    session.flush()  # a row written earlier in this transaction is a conflict too
    columns = [column.key for column in Outbox.__table__.columns if column.key != "id"]
    statement = (
        insert(Outbox)
        .values([{column: getattr(row, column) for column in columns} for row in rows])
        .on_conflict_do_nothing(index_elements=[Outbox.key])
        .returning(Outbox.id, Outbox.key)
    )
    ids = {key: row_id for row_id, key in session.execute(statement)}
    for row in rows:
        if row.key in ids:
            row.id = ids[row.key]
            make_transient_to_detached(row)  # as if read back: nothing more to write
            session.add(row)
    return [row for row in rows if row.key in ids]


def _key_written(session: Session, key: str) -> bool:
    return session.scalar(select(Outbox.id).where(Outbox.key == key)) is not None


def _inserted(session: Session, rows: Sequence[Outbox]) -> None:
    if not rows:
        return
    session.flush()
    for row in rows:
        if not row.kind.startswith(HELD):
            enqueue(session, Task.SEND, row.id)


def render(
    session: Session, settings: Settings, row: Outbox, scenes: Scenes | None = None
) -> Outbox:
    """Make the mail of a row from what it stores, once: the subject and the MIME message are
    stored at the first render, so that every later send (a retry) sends the same bytes.
    ``scenes``: what rows rendered together share (:class:`Scenes`)."""
    if row.body:
        return row
    kind = row.kind.removeprefix(HELD)
    player = session.get(Player, row.player_id) if row.player_id is not None else None
    position = row.position or {}  # every row _write makes has its scene
    reader = reader_context(settings, player, row.to_address)
    context = thaw(row.context or {})
    game, defaults = drawn_values(settings, position["scene"], position["seat"], player, scenes)

    def values_of(item_kind: str, item_context: Mapping[str, Any]) -> dict[str, Any]:
        return {
            **reader,
            **game,
            **{name: value for name, value in defaults.items() if name in KINDS[item_kind]},
            **item_context,
        }

    values = values_of(kind, context)
    if kind in NOTED and player is not None and row.game_id is not None:
        values["private_note"] = _private_note(session, player, row.game_id, row.to_address)
    if row.report is not None:
        values["report"] = row.report
    news = []
    for item in row.merged or []:
        item_values = values_of(item["kind"], thaw(item["context"]))
        subject = render_subject(item["kind"], item_values)
        news.append((subject.partition("] ")[2] or subject, bool(item["carrier"])))
    others = [summary for summary, carrier in news if not carrier]
    if others:
        values["also"] = others
    rendered = render_email(kind, values)
    if news:
        prefix = rendered.subject.partition("] ")[0] + "] " if "] " in rendered.subject else ""
        rendered = replace(rendered, subject=prefix + "; ".join(summary for summary, _ in news))
    if row.done:
        rendered = replace(rendered, subject="; ".join([rendered.subject, *row.done]))
    answering = row.in_reply_to is not None or kind in ANSWERS
    envelope = _envelope(settings, row, kind, player, answering, values)
    attachments = _calendar(settings, kind, row, position.get("status"), values)
    body = outbound.build(envelope, rendered, attachments).as_string()
    row.subject, row.body = rendered.subject[:200], body  # both or, on a failure, neither
    return row


NOTED = frozenset(
    {
        "your_turn",
        "opponent_moved",
        "turn_resolved",
        "default_orders",
        "game_started",
        "game_over",
        "reminder",
        "draw_news",
        "orders_received",
        "reply_receipt",
        "error_reply",
        "help",
        "confirm_reply",
        "confirm_resign",
    }
)
"""The one-game mails that show the board, and under it the reader's own private note on
the game (issue 25, 2): read for the mail's player alone, at its first render."""


def _private_note(session: Session, player: Player, game_id: int, to: str) -> str | None:
    """The note of ``player`` on the game, for a mail to one of their own addresses only."""
    if to.lower() not in {email.address.lower() for email in player.emails}:
        return None
    row = session.scalar(
        select(GameNote).where(GameNote.game_id == game_id, GameNote.player_id == player.id)
    )
    return row.text if row is not None else None


def rendered(session: Session, row: Outbox) -> Outbox:
    """``row`` with its subject and body, rendered now if no send has rendered them yet (the
    row locked and read again first, so that a send rendering it at once is not undone)."""
    if row.body:
        return row
    query = select(Outbox).where(Outbox.id == row.id).with_for_update()
    locked = session.scalars(query.execution_options(populate_existing=True)).one()
    return render(session, settings_of(session), locked)


def freeze(value: Any) -> Any:
    """``value`` as JSON: datetimes tagged (``{"$datetime": iso}``), tuples as lists."""
    if isinstance(value, datetime):
        return {DATETIME: value.isoformat()}
    if isinstance(value, Mapping):
        return {str(name): freeze(item) for name, item in value.items()}
    if isinstance(value, list | tuple):
        return [freeze(item) for item in value]
    return value


def thaw(value: Any) -> Any:
    """What :func:`freeze` stored, with its datetimes back."""
    if isinstance(value, dict):
        if len(value) == 1 and DATETIME in value:
            return datetime.fromisoformat(value[DATETIME])
        return {name: thaw(item) for name, item in value.items()}
    if isinstance(value, list):
        return [thaw(item) for item in value]
    return value


DATETIME = "$datetime"


# -- one reply, one mail per reader -----------------------------------------------------------

RANK = {
    "game_over": 4,
    **dict.fromkeys(
        ("turn_resolved", "default_orders", "opponent_moved", "move_receipt", "game_started"), 3
    ),
    "your_turn": 2,
}
"""Which gathered mail carries the others: the highest rank, the latest among equals (it
was written against the newest turn); the rest (draw news, vacations) rank 1."""


@dataclass
class _Pending:
    """A game mail gathered for :func:`release`: the arguments of :func:`queue_mail`."""

    kind: str
    to: Player
    game: Game
    context: dict[str, Any]
    key: str | None
    reply_to: str | None
    now: datetime | None


def gather(session: Session) -> None:
    """Hold the game mails to players queued from now on until :func:`release`: what one
    player's reply causes (their move, a draw offer, a conditional move it set off) reaches
    each reader as one mail (issue 21, point 5). Answers to a player's mail are not held."""
    db.work_of(session).gathering = []


def stop_gathering(session: Session) -> None:
    """Stop holding and forget what is held (after a failure nothing held is written)."""
    db.work_of(session).gathering = None


def gathered(session: Session) -> int:
    """How many mails are held now (a mark for :func:`forget_since`)."""
    return len(db.work_of(session).gathering or [])


def forget_since(session: Session, mark: int) -> None:
    """Drop the mails held after ``mark``: the act that queued them was rolled back."""
    held = db.work_of(session).gathering
    if held is not None:
        del held[mark:]


def holds_for(session: Session, player: Player, game: Game) -> bool:
    """Whether a held mail goes to ``player`` about ``game``."""
    return bool(_held_for(session, player, game))


def held_news(session: Session, player: Player, game: Game) -> list[str] | None:
    """What the mails held for ``player`` about ``game`` say (each its subject, without the
    prefix), for another answer to carry instead (:func:`drop`); None when there are none,
    or when one must go as it is (a game-over mail, with the record and the dice seed)."""
    theirs = _held_for(session, player, game)
    if not theirs or any(item.kind == "game_over" for item in theirs):
        return None
    return [_summary(session, item) for item in theirs]


def drop(session: Session, player: Player, game: Game) -> None:
    """Forget the mails held for ``player`` about ``game``: another answer carries them."""
    held: list[_Pending] = db.work_of(session).gathering or []
    theirs = _held_for(session, player, game)
    held[:] = [item for item in held if item not in theirs]


def _held_for(session: Session, player: Player, game: Game) -> list[_Pending]:
    held: list[_Pending] = db.work_of(session).gathering or []
    return [item for item in held if (item.to.id, item.game.id) == (player.id, game.id)]


@inserted_together
def release(
    session: Session,
    answer: tuple[Player, Game, str, str | None, Sequence[str]] | None = None,
) -> list[Outbox]:
    """Write the held mails, one per reader and game, and stop holding. The one of each group
    that ranks highest (``RANK``) is written, rendered now (the board as the reply left it),
    with the others' news: their subjects join its subject and its body lists them.
    ``answer``: (player, game, report, Message-ID, what else was done) of the reply that
    caused them; that player's mail about that game answers it, says what was done with each
    line, and its subject names what else was done (``draw offered``)."""
    work = db.work_of(session)
    held: list[_Pending] = work.gathering or []
    work.gathering = None
    groups: dict[tuple[int, int], list[_Pending]] = {}
    for item in held:
        groups.setdefault((item.to.id, item.game.id), []).append(item)
    written = []
    for (player_id, game_id), items in groups.items():
        if items[0].to.notify == "digest" and len(items) > 1:
            # A digest reader's game news waits for the digest, the rest goes at once: unmerged.
            for item in items[:-1]:
                row = _write(
                    session,
                    item.kind,
                    item.to,
                    item.game,
                    item.context,
                    item.key,
                    None,
                    item.reply_to,
                    item.now,
                )
                if row is not None:
                    written.append(row)
            items = items[-1:]
        main = max(reversed(items), key=lambda item: RANK.get(item.kind, 1))
        report, in_reply_to = None, None
        done: Sequence[str] = ()
        if answer is not None and (answer[0].id, answer[1].id) == (player_id, game_id):
            report, in_reply_to, done = answer[2], answer[3] or None, answer[4]
        row = _write(
            session,
            main.kind,
            main.to,
            main.game,
            main.context,
            main.key,
            in_reply_to,
            main.reply_to,
            main.now,
            merged=items if len(items) > 1 else (),
            report=report,
            done=done,
        )
        if row is not None:
            written.append(row)
    return written


def _summary(session: Session, item: _Pending) -> str:
    """What a gathered mail says in its subject, without the ``[pbem #1 Game]`` prefix."""
    settings = settings_of(session)
    values = {
        **reader_context(settings, item.to, item.to.address or ""),
        **game_context(session, settings, item.game, item.to, item.kind),
        **item.context,
    }
    subject = render_subject(item.kind, values)
    return subject.partition("] ")[2] or subject


def settings_of(session: Session) -> Settings:
    database = db.work_of(session).database
    return database.settings if database is not None else db.current().settings


def reader_context(settings: Settings, player: Player | None, address: str) -> dict[str, Any]:
    if player is None:
        page = f"{settings.public_url}/mail"
        return {
            "player_name": parseaddr(address)[1].partition("@")[0] or address,
            "timezone": "UTC",
            "preferences_url": page,
            "unsubscribe_url": page,
            "locale": i18n.DEFAULT,
        }
    page = f"{settings.public_url}/mail/{settings_token(settings.secret(), player.id)}"
    return {
        "player_name": player.name,
        "timezone": player.time_zone,
        "preferences_url": page,
        "unsubscribe_url": page + "/unsubscribe",
        "locale": i18n.locale_for(player),  # the templates' {% trans %} and _() (service/i18n.py)
    }


def game_context(
    session: Session, settings: Settings, game: Game | None, reader: Player | None, kind: str
) -> dict[str, Any]:
    """The GAME values of a mail to ``reader``, and the defaults of the kind's own values."""
    values, defaults = game_values(session, settings, game, reader)
    return {**values, **{name: value for name, value in defaults.items() if name in KINDS[kind]}}


def game_values(
    session: Session, settings: Settings, game: Game | None, reader: Player | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The GAME values of a mail to ``reader`` as the game stands now, and the defaults of
    the kinds' own values (``turn``, ``deadline``, ``commitment``) for a kind that takes them."""
    scene = game_scene(session, settings, game)
    return drawn_values(settings, scene, seat_of(game, reader), reader)


def seat_of(game: Game | None, reader: Player | None) -> int | None:
    if game is None or reader is None:
        return None
    return next((s.seat for s in game.seats if s.player_id == reader.id), None)


def game_scene(session: Session, settings: Settings, game: Game | None) -> dict[str, Any]:
    """What every reader's GAME values of a mail about ``game`` as it stands now are drawn from
    (:func:`drawn_values`), as JSON: the engine state and the facts of the moment, worked out
    once per event (every seat's mail of it shares one value; issue 23). The reader's view
    itself is drawn when the mail is rendered, after commit."""
    if game is None:
        return {"game_id": None}
    cache = db.work_of(session).scenes
    offers, missed = tuple(game.draw_offers or ()), tuple(seat.missed for seat in game.seats)
    moment: tuple[Any, ...] = (game.state, game.turn, game.status, game.result, offers, missed)
    cached = cache.get(game.id)
    if cached is not None and cached[0] == moment:
        found: dict[str, Any] = cached[1]
        return found
    state = engine.state_from_json(game.state)
    scene: dict[str, Any] = freeze(
        {
            "game_id": game.id,
            "rules_url": rules.game_url(settings.public_url, game.name),
            "chain_link": chain.head_line(session, game),
            "league": league_round(session, settings, game),
            "turn": game.turn,
            "deadline": open_deadline(session, game),
            "commitment": game.commitment,
            "view": scene_of(session, game, state),
        }
    )
    cache[game.id] = (moment, scene)
    return scene


class Scenes:
    """What the rows rendered together (:func:`render_many`) draw their readers' views from,
    worked out once: each scene thawed and its engine state parsed once, and each seat's view
    of it once (``reader.seen_by``), however many of the rows show it (issue 23: every seat's
    mail of an event carries the same scene). A scene is known by its stored JSON, so two
    rows share only what they would have drawn alike."""

    def __init__(self) -> None:
        self.scenes: dict[str, tuple[dict[str, Any], State | None]] = {}
        self.seen: dict[tuple[str, int | None], dict[str, Any]] = {}

    def drawn(
        self, frozen: Mapping[str, Any], seat: int | None
    ) -> tuple[dict[str, Any], State | None, dict[str, Any] | None]:
        """The thawed scene, its state and ``seat``'s view of it (None without a game)."""
        key = json.dumps(frozen, sort_keys=True)
        if key not in self.scenes:
            scene = thaw(frozen)
            facts = scene.get("view")
            self.scenes[key] = (scene, engine.state_from_json(facts["state"]) if facts else None)
        scene, state = self.scenes[key]
        if state is None:
            return scene, None, None
        if (key, seat) not in self.seen:
            self.seen[key, seat] = seen_by(scene["view"], state, seat)
        return scene, state, self.seen[key, seat]


def drawn_values(
    settings: Settings,
    frozen: Mapping[str, Any],
    seat: int | None,
    reader: Player | None,
    scenes: Scenes | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The GAME values of ``seat``'s reader (None: a spectator) from a :func:`game_scene`,
    with their own view (seat, board turned, words or grid), and the kinds' defaults.
    ``scenes``: the scenes already drawn by the rows rendered with this one."""
    scenes = scenes or Scenes()
    scene, state, seen = scenes.drawn(frozen, seat)
    game_id = scene["game_id"]
    if game_id is None:
        return {
            "game_id": None,
            "game_url": None,
            "rules_url": rules.url(settings.public_url),
            "view": None,
            "players": None,
        }, {}
    facts = scene["view"]
    flip = reader.board_flip if reader is not None else False
    board_text = reader.board_text if reader is not None else "grid"
    locale = i18n.locale_for(reader)
    view = drawn_view(facts, seat, flip, board_text, state, seen, locale)
    view["league"] = scene["league"]
    if state is not None:
        view["status"] = status_in(locale, state, seat, view["status"])
        view["info"] = info_in(locale, state, seat, view.get("info") or ())
        outcome = view.get("outcome")
        if isinstance(outcome, dict) and "reason" in outcome:
            why = state.outcome.why if state.outcome is not None else None
            told = {key: value for key, value in outcome.items() if key != "why"}
            view["outcome"] = told | {"reason": result_reason_in(locale, outcome, why)}
            if state.outcome is None:  # ended off the board: its status line is the result
                view["status"] = game_over_in(locale, outcome)
    turn, active = scene["turn"], facts["status"] == "active"
    defaults = {"turn": turn, "deadline": scene["deadline"], "commitment": scene["commitment"]}
    return {
        "game_id": game_id,
        "game_url": game_url(settings, game_id),
        "rules_url": scene["rules_url"],
        "chain_link": scene["chain_link"],
        "play_url": turn_play_url(settings, game_id, turn, active, reader, seat),
        "view": view,
        "players": facts["names"],
    }, defaults


def league_round(session: Session, settings: Settings, game: Game) -> dict[str, Any] | None:
    """The league and round a game is played in (its pairing, ``service.leagues.models``):
    ``{"name", "round", "text": "Spring League, round 2", "url"}``, or None (issue 21, 7)."""
    from service.leagues.models import League, Pairing

    cache = db.work_of(session).league_rounds  # mostly read with the locked game
    if game.id not in cache:
        query = (
            select(
                League.id,
                League.name,
                Pairing.round,
                League.settings["max_game_days"].as_integer().label("max_game_days"),
            )
            .join(Pairing, Pairing.league_id == League.id)
            .where(Pairing.game_id == game.id)
        )
        row = session.execute(query).first()
        cache[game.id] = None if row is None else (row.id, row.name, row.round, row.max_game_days)
    found = cache[game.id]
    if found is None:
        return None
    league_id, name, number, max_game_days = found
    name = " ".join(name.split())
    return {
        "name": name,
        "round": number,
        "text": f"{name}, round {number}",
        "url": f"{settings.public_url}/leagues/{league_id}",
        "cap": game_cap(game, max_game_days),
    }


def game_cap(game: Game, days: int | None) -> dict[str, Any] | None:
    """A league's cap on a game's days (issue 25 point 6), as the mails announce it: ``days``,
    ``on`` (when the sweep decides the game) and ``decision`` (``score`` or ``draw``)."""
    if not days:
        return None
    try:
        decision = engine.game_class(game.name).cap_decision
    except engine.EngineError:
        decision = "draw"
    return {"days": days, "on": game.created_at + timedelta(days=days), "decision": decision}


def play_url(settings: Settings, game: Game, reader: Player | None, seat: int | None) -> str | None:
    """The reader's signed one-click page for this turn (``service/play.py``), if they play."""
    return turn_play_url(settings, game.id, game.turn, game.status == "active", reader, seat)


def turn_play_url(
    settings: Settings,
    game_id: int,
    turn: int,
    active: bool,
    reader: Player | None,
    seat: int | None,
) -> str | None:
    """The reader's signed one-click page for this turn (``service/play.py``), if they play."""
    if reader is None or seat is None or not active or turn < 1:
        return None
    token = play_token(settings.secret(), game_id, reader.id, turn)
    return f"{settings.public_url}/play/{token}"


def game_url(settings: Settings, game_id: int) -> str:
    return f"{settings.public_url}/games/{game_id}"


def open_deadline(session: Session, game: Game) -> datetime | None:
    """The deadline of the game's open turn (None once it is over)."""
    if game.status != "active":
        return None
    turn = db.work_of(session).turns.get((game.id, game.turn))  # the locked game's, if known
    if turn is not None:
        deadline: datetime | None = turn.deadline if turn.resolved_at is None else None
        return deadline
    query = select(Turn.deadline).where(
        Turn.game_id == game.id, Turn.number == game.turn, Turn.resolved_at.is_(None)
    )
    return session.scalar(query)


def _envelope(
    settings: Settings,
    row: Outbox,
    kind: str,
    player: Player | None,
    answering: bool,
    values: Mapping[str, Any],
) -> outbound.Envelope:
    domain = settings.mail_domain
    root = outbound.thread_root(domain, row.game_id) if row.game_id is not None else None
    reply_to = row.reply_to
    if row.game_id is not None and player is not None and reply_to is None:
        turn = row.turn if row.turn is not None else 0
        reply_to = make_reply_address(settings.secret(), domain, row.game_id, player.id, turn)
    in_reply_to = row.in_reply_to
    return outbound.Envelope(
        sender=settings.mail_from,
        to_name=player.name if player else None,
        to_address=row.to_address,
        date=row.created_at,
        message_id=outbound.message_id(domain, row.game_id, row.id, kind),
        reply_to=reply_to,
        in_reply_to=in_reply_to or root,
        references=[ref for ref in (root, in_reply_to) if ref],
        auto_reply=answering,
        unsubscribe_url=values["unsubscribe_url"] if player is not None else None,
    )


def _calendar(
    settings: Settings, kind: str, row: Outbox, status: str | None, values: Mapping[str, Any]
) -> list[outbound.Attachment]:
    deadline = values.get("deadline")
    game_id = row.game_id
    if kind not in DEADLINE_KINDS or game_id is None or deadline is None or status != "active":
        return []
    turn = values.get("turn", row.turn)
    title = values["view"]["title"]
    locale = values.get("locale", i18n.DEFAULT)
    summary = i18n.gettext(
        locale,
        CALENDAR_SUMMARY,
        number=game_id,
        game=title,
        turn=turn,
    )
    description = i18n.gettext(
        locale,
        CALENDAR_DESCRIPTION,
        turn=turn,
        game=title,
        number=game_id,
        url=values["game_url"],
    )
    ics = deadline_event(
        uid=f"game-{game_id}-turn-{turn}@{settings.mail_domain}",
        deadline=deadline,
        stamp=row.created_at,
        summary=summary,
        description=description,
        url=values["game_url"],
    )
    return [outbound.Attachment(f"pbem-{game_id}-turn-{turn}.ics", ics)]


# -- what the service tells players -------------------------------------------------------


@inserted_together
def started(session: Session, game: Game) -> None:
    for seat in game.seats:
        key = f"start:{game.id}:{seat.seat}"
        context = {"start_position": game.start_position}
        queue_mail(
            session, kind="game_started", to=seat.player, game=game, context=context, key=key
        )


class OrderSeen(NamedTuple):
    """An order row of a turn as :func:`turn_result` reads it, when the unit of work that
    resolved the turn knows it from its events (``games.consequences``), not read back."""

    seat: int
    parsed: str
    channel: str
    status: str
    receipt: str | None = None
    receipt_salt: str | None = None


@inserted_together
def turn_result(
    session: Session,
    game: Game,
    state: State,
    events: Sequence[Event],
    turn: int,
    known: Sequence[OrderSeen] | None = None,
) -> None:
    """Tell every seat what turn ``turn`` brought, each through their own view.

    Sealed turns: ``turn_resolved``, or ``default_orders`` to a seat whose orders the deadline
    supplied. Moves: ``opponent_moved`` to the others; to the mover as they chose
    (``Player.own_copy``): ``turn_resolved`` (full), ``move_receipt`` (short) or nothing. A
    conditional move the service played for them is news to its author: always the full mail.

    ``known``: the turn's order rows (played, default, revealed), when the caller knows them
    all; else they are read, in one statement.
    """
    told = [event.to_json() for event in events]
    orders: Sequence[Order | OrderSeen] = (
        known if known is not None else _orders_of(session, game, turn)
    )
    defaults = {order.seat: order.parsed for order in orders if order.status == "default"}
    played = next((order for order in orders if order.status == "played"), None)
    sealed = receipts.revealed_of(game, turn, state.game.seat_names, orders)
    for seat in game.seats:
        locale = i18n.locale_for(seat.player)
        theirs = told if locale == i18n.DEFAULT else events_in(locale, events)
        context: dict[str, Any] = {"turn": turn, "events": theirs, "receipts": sealed}
        kind = "turn_resolved"
        if seat.seat in defaults:
            kind, context["orders"] = "default_orders", defaults[seat.seat]
        elif played is not None and played.seat != seat.seat:
            kind = "opponent_moved"
            context = {"mover": played.seat, "move": played.parsed, "events": theirs}
        elif played is not None and (
            played.channel == "conditional" or seat.player.own_copy == "full"
        ):  # the mover's own full copy: "You played ...", never "Turn 4 resolved"
            context |= {"move": played.parsed, "conditional": played.channel == "conditional"}
        elif played is not None:
            if seat.player.own_copy == "none":
                continue
            kind, context = "move_receipt", {"turn": turn, "move": played.parsed}
        key = turn_key(game.id, turn, seat.seat)
        queue_mail(session, kind=kind, to=seat.player, game=game, context=context, key=key)


def turn_key(game_id: int, turn: int, seat: int) -> str:
    """The key of a seat's mail about a resolved turn (:func:`turn_result`)."""
    return f"turn:{game_id}:{turn}:{seat}"


def told_turn(row: Outbox) -> int | None:
    """The turn a mail of :func:`turn_result` tells of (its key says it), None for another
    mail. Its ``events`` are that turn's, in the reader's language as of then: a held one
    gives them to the digest (``service/digest.py``)."""
    found = re.fullmatch(r"turn:(\d+):(\d+):(\d+)", row.key or "")
    return int(found[2]) if found is not None and int(found[1]) == row.game_id else None


def _orders_of(session: Session, game: Game, turn: int) -> Sequence[Order]:
    """The order rows of a resolved turn its mail tells of: the move played, or the orders
    revealed and the defaults the deadline supplied."""
    shown = (OrderStatus.PLAYED, OrderStatus.DEFAULT, receipts.REVEALED)
    query = select(Order).where(
        Order.game_id == game.id, Order.turn == turn, Order.status.in_(shown)
    )
    return session.scalars(query.order_by(Order.seat, Order.id)).all()


def your_turn(session: Session, game: Game, player: Player, deadline: datetime) -> None:
    """The turn is (still) the player's, with this deadline: after a director moved it."""
    key = f"due:{game.id}:{game.turn}:{player.id}:{deadline.isoformat()}"
    context = {"deadline": deadline}
    queue_mail(session, kind="your_turn", to=player, game=game, context=context, key=key)


def orders_received(
    session: Session,
    game: Game,
    player: Player,
    orders: str,
    receipt: str,
    in_reply_to: str | None = None,
) -> Outbox | None:
    """The receipt of sealed orders (the mail gateway sends it for orders that came by mail)."""
    return queue_mail(
        session,
        kind="orders_received",
        to=player,
        game=game,
        context={"orders": orders, "receipt": receipt},
        key=f"orders:{game.id}:{game.turn}:{receipt}",
        in_reply_to=in_reply_to,
    )


def reminder(
    session: Session,
    game: Game,
    state: State,
    player: Player,
    seat: int,
    turn: int,
    hours: float,
    deadline: datetime,
    now: datetime | None = None,
) -> None:
    """``hours``: the reminder's offset before the deadline (its key); the mail says the real
    time left, and what a miss costs: the forfeit count of a sealed game, the time bank of an
    alternating one."""
    now = now or utcnow()
    left = max(0.0, (deadline - now).total_seconds() / 3600)
    context = {
        "turn": turn,
        "deadline": deadline,
        "hours_left": left,
        "warning": reminder_warning(game, state, seat, left, i18n.locale_for(player)),
    }
    key = f"remind:{game.id}:{turn}:{hours:g}:{seat}"
    queue_mail(session, kind="reminder", to=player, game=game, context=context, key=key, now=now)


def reminder_warning(
    game: Game, state: State, seat: int, hours_left: float, locale: str = i18n.DEFAULT
) -> str:
    """What a miss costs, in ``locale``: the forfeit count of a sealed game, the time (bank)
    left of an alternating one."""
    if state.simultaneous:
        return " ".join(forfeit_lines(game, state, seat, always=True, locale=locale))
    with i18n.in_locale(locale):
        left = duration(hours_left)
    catalog = i18n.translations(locale)
    if game.time_control.get("bank"):
        message = catalog.ugettext(
            "Your time bank left for this move: %(left)s. If the deadline passes without "
            "your move, you lose the game on time."
        )
    else:
        message = catalog.ugettext(
            "Your time left for this move: %(left)s. If the deadline passes without your "
            "move, you lose the game on time."
        )
    return message % {"left": left}


def draw_news(session: Session, game: Game, seat: int, news: str) -> None:
    """Tell the other seats at once that the player at ``seat`` offered, accepted, declined
    or withdrew a draw."""
    for other in game.seats:
        if other.seat == seat:
            continue
        context = {"actor": seat, "news": news}
        queue_mail(session, kind="draw_news", to=other.player, game=game, context=context)


def takeback_news(
    session: Session, game: Game, seat: int, news: str, move: str = "", *, everyone: bool = False
) -> None:
    """Tell the other seat at once that the player at ``seat`` offered or declined a
    takeback; once a move was taken back (``move``), tell ``everyone`` (issue 25)."""
    for other in game.seats:
        if other.seat == seat and not everyone:
            continue
        context = {"actor": seat, "news": news, "move": move}
        queue_mail(session, kind="takeback_news", to=other.player, game=game, context=context)


def vacation(session: Session, game: Game, to: Player, away: Player, ends: datetime) -> None:
    context = {"away": away.name, "until": ends}
    queue_mail(session, kind="vacation", to=to, game=game, context=context)


@inserted_together
def ended(
    session: Session,
    game: Game,
    state: State,
    reason: str,
    record_of: Callable[[Player], str],
) -> None:
    """The result, each player's record of the game (``record_of(player)``, which the games
    module supplies), and the dice seed, secret until now."""
    sealed = receipts.revealed(session, game, game.turn, state.game.seat_names)  # last turn's
    for seat in game.seats:
        context = {
            "record": record_of(seat.player),
            "dice_seed": game.seed.hex() if game.seed else None,
            "commitment": game.commitment,
            "receipts": sealed,
        }
        key = f"end:{game.id}:{seat.seat}"
        queue_mail(session, kind="game_over", to=seat.player, game=game, context=context, key=key)


# -- sending ------------------------------------------------------------------------------


def message(row: Outbox) -> EmailMessage:
    """The stored message of a row, as queued."""
    return email.message_from_string(row.body, policy=email.policy.default)


def eml_sender(settings: Settings, row: Outbox, mail: EmailMessage) -> None:
    """The default sender: one ``.eml`` file per message (rewriting it on a retry)."""
    settings.mail_dir.mkdir(parents=True, exist_ok=True)
    path = settings.mail_dir / eml_name(row)
    partial = path.with_suffix(".part")
    partial.write_bytes(bytes(mail))
    os.replace(partial, path)


UNSAFE_IN_NAMES = re.compile(r"[^A-Za-z0-9._@+-]")


def eml_name(row: Outbox) -> str:
    """``00000012-game-3-bob@example.org-opponent_moved.eml``: the row id first (``ls``
    sorts by time), the game (none for mail of no game), the recipient, the kind last (so
    ``*-KIND.eml`` finds a kind). The address keeps only characters every file system takes,
    and at most 100 of them (a name must stay within 255 bytes)."""
    game = f"-game-{row.game_id}" if row.game_id is not None else ""
    recipient = UNSAFE_IN_NAMES.sub("_", row.to_address)[:100]
    kind = UNSAFE_IN_NAMES.sub("_", row.kind)
    return f"{row.id:08d}{game}-{recipient}-{kind}.eml"


def smtp_sender(settings: Settings, row: Outbox, mail: EmailMessage) -> None:
    """Hand the message to ``PBEM_SMTP_HOST``; with STARTTLS the server's certificate is
    verified (``PBEM_SMTP_CA_FILE`` adds a CA), and credentials only ever go over TLS."""
    with _smtp_connect(settings) as smtp:
        bounce_to = parseaddr(settings.mail_from)[1]
        smtp.send_message(mail, from_addr=bounce_to, to_addrs=[row.to_address])


def sender(settings: Settings) -> Sender:
    if settings.mail_sender == "eml":
        return eml_sender
    if settings.mail_sender == "smtp":
        return smtp_sender
    module, _, name = settings.mail_sender.partition(":")
    found: Sender = getattr(importlib.import_module(module), name)
    return found


class SmtpSession:
    """One SMTP connection for many messages (a batch), opened on the first and opened again
    after a failure; each message is handed over as the bytes stored in its row."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.smtp: smtplib.SMTP | None = None

    def deliver(self, row: Outbox, data: str | bytes) -> None:
        if self.smtp is None:
            self.smtp = _smtp_connect(self.settings)
        try:
            bounce_to = parseaddr(self.settings.mail_from)[1]
            self.smtp.sendmail(bounce_to, [row.to_address], data)
        except Exception:
            self.close()
            raise

    def close(self) -> None:
        if self.smtp is not None:
            try:
                self.smtp.quit()
            except (smtplib.SMTPException, OSError):
                self.smtp.close()
            self.smtp = None


def _signed_bytes(settings: Settings, row: Outbox) -> str | bytes:
    """What goes on the wire for a row: its stored text (7-bit; smtplib makes the line ends
    CRLF), or the message DKIM-signed when a key is configured."""
    if dkim.configured(settings) is None:
        return row.body
    signed = dkim.sign_if_configured(settings, message(row))
    return signed.as_bytes(policy=signed.policy.clone(linesep="\r\n"))


def _smtp_connect(settings: Settings) -> smtplib.SMTP:
    smtp = smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=SMTP_TIMEOUT)
    try:
        smtp.ehlo()
        if settings.smtp_starttls:
            context = ssl.create_default_context(cafile=settings.smtp_ca_file or None)
            smtp.starttls(context=context)
            smtp.ehlo()
        if settings.smtp_user:
            smtp.login(settings.smtp_user, settings.smtp_password)
    except BaseException:
        smtp.close()
        raise
    return smtp


def send(
    session: Session, settings: Settings, outbox_id: int, over: SmtpSession | None = None
) -> float | None:
    """Send one message unless already sent or held; on failure, seconds until the next try.
    ``over``: an SMTP session already open (a batch), used when the sender is ``smtp``."""
    query = select(Outbox).where(Outbox.id == outbox_id).with_for_update()
    row = session.scalar(query)
    if row is None or row.sent_at is not None or row.kind.startswith(HELD):
        return None
    now = utcnow()
    row.attempts += 1
    try:
        render(session, settings, row)  # once: a retry sends the bytes stored at the first try
        if over is not None:
            over.deliver(row, _signed_bytes(settings, row))
        else:
            sender(settings)(settings, row, dkim.sign_if_configured(settings, message(row)))
    except Exception as error:  # any sender failure is kept on the row and retried
        first = settings.send_retry_seconds
        backoff = min(timedelta(seconds=first * 2 ** (row.attempts - 1)), MAX_BACKOFF)
        row.last_error = f"{type(error).__name__}: {error}"[:2000]
        row.next_attempt_at = now + backoff
        log.warning(  # the failure is on the row; the operator sees one line too
            "sending outbox row %s to %s failed (attempt %s, next in %.0f s): %s",
            row.id,
            row.to_address,
            row.attempts,
            backoff.total_seconds(),
            row.last_error,
        )
        return backoff.total_seconds()
    row.sent_at = now
    row.last_error = None
    return None


def send_many(database: db.Database, outbox_ids: Sequence[int]) -> int:
    """Send each row in its own transaction (locked, skipped when sent), over one SMTP
    session when the sender is ``smtp``; a failed row keeps its error and the rest go on.
    Returns how many were sent now."""
    settings = database.settings
    render_many(database, outbox_ids)
    session = SmtpSession(settings) if settings.mail_sender == "smtp" else None
    sent = 0
    try:
        for outbox_id in outbox_ids:
            with database.transaction() as transaction:
                failed = send(transaction, settings, outbox_id, session) is not None
                # ``send`` answers None for a row skipped (sent already, held, gone) as well
                # as for one sent now; only the latter was changed (``send`` loaded it, so
                # this ``get`` is answered from the session without a query).
                row = transaction.get(Outbox, outbox_id)
                sent += not failed and row is not None and transaction.is_modified(row)
    finally:
        if session is not None:
            session.close()
    return sent


RENDER_CHUNK = 20
"""Rows rendered in one transaction: few statements, yet no long hold on their locks."""


def render_many(database: db.Database, outbox_ids: Sequence[int]) -> None:
    """Render the batch's rows not rendered yet, a chunk per transaction (the rows locked,
    their readers loaded in one query), before they are sent one by one. A row that cannot
    be rendered is left to :func:`send`, which records the failure on it. No savepoint per
    row: rendering a row reads what the chunk loaded and changes the row only at its end
    (:func:`render`), so a failed one leaves nothing to undo (two statements a mail less)."""
    settings = database.settings
    for start in range(0, len(outbox_ids), RENDER_CHUNK):
        chunk = list(outbox_ids[start : start + RENDER_CHUNK])
        with database.transaction() as session:
            query = (
                select(Outbox)
                .where(Outbox.id.in_(chunk), Outbox.sent_at.is_(None), Outbox.body == "")
                .where(Outbox.kind.not_like(HELD + "%"))
                .order_by(Outbox.id)
                .with_for_update()
            )
            rows = session.scalars(query).all()
            readers = {row.player_id for row in rows if row.player_id is not None}
            if readers:
                session.scalars(select(Player).where(Player.id.in_(readers))).all()
            scenes = Scenes()
            for row in rows:
                try:
                    render(session, settings, row, scenes)
                except SQLAlchemyError:  # the transaction is lost: the chunk's sends try again
                    raise
                except Exception:  # send() renders it again and keeps the error on the row
                    log.warning("rendering outbox row %s failed", row.id, exc_info=True)


def claim_due(session: Session, now: datetime, lease: timedelta) -> list[int]:
    """Unsent messages whose (next) attempt is due, leased for ``lease`` so that the next
    sweeps do not queue them again while their send task waits in the broker."""
    query = (
        select(Outbox)
        .where(
            Outbox.sent_at.is_(None),
            Outbox.kind.not_like(HELD + "%"),
            (Outbox.next_attempt_at.is_(None)) | (Outbox.next_attempt_at <= now),
        )
        .order_by(Outbox.id)
        .limit(500)
        .with_for_update(skip_locked=True)
    )
    rows = session.scalars(query).all()
    for row in rows:
        row.next_attempt_at = now + lease
    return [row.id for row in rows]
