"""The inbound gateway: every channel hands a raw message to :func:`receive`, a worker runs
:func:`process` on it.

``receive`` stores the raw bytes first, once: the same message delivered twice (an MTA retry,
an IMAP poll that ran twice, a webhook redelivered) finds its row by Message-ID, or by the
hash of its bytes when it has none, and changes nothing. ``process`` locks the row, does
nothing unless it is still ``received``, and records what came of it, so a message is acted
on once and is never lost: a crash inside is rolled back to a savepoint and the row is marked
``failed`` with the reason, its raw bytes kept.

Who is writing: the message must be addressed to a reply address we issued (see
``addresses.py``: it names the game, the player and the turn) *and* come from one of that
player's addresses, a From that ``authentication.py`` believes (DMARC, SPF, DKIM, the
envelope sender). A From that nobody could vouch for either way (no signature, no verdict)
is held instead, and played by :func:`confirm_held` once the registered mailbox confirms it
(``confirmation.py``), unless every line only reads (``commands.READ_ONLY``: answered at
once, it changes nothing); everything else changes nothing. The reply is read by ``reading.py``
(the game, through ``games.action_reader``, decides which text is the move) and its commands
run in order through the service layer; the player gets one answer saying what was done with
each and which lines were ignored, and each other player one mail with everything the reply
did (``notify.gather``/``notify.release``: a move, a draw offer and the conditional move it
set off arrive together), except that mail which looks machine-sent is never answered (no
loops) and error replies to one address are rate-limited.

A reply to a league invitation comes to the player's league address instead (a second kind
of token, naming the league and the player). After the same checks, it must hold one clear
answer, ``accept`` (``yes``, ``join``) or ``decline`` (``no``), alone on its lines (greetings
aside); it goes through ``leagues.answer`` and is confirmed with a ``league_answer`` mail.
An unsigned one is held like a move until the mailbox confirms it, while the league is open.
Anything else changes nothing and gets one error reply saying how to answer.

A reply to ``pbem doctor --round-trip`` comes to a doctor address (a third kind of token): it
is recorded with who vouched for its From (``authentication.vouched_by``), and is never
played nor answered; ``pbem doctor`` reads its result.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.parser import BytesHeaderParser
from email.policy import compat32
from email.utils import getaddresses
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, joinedload

from service import conditional, games, i18n, notes, notify, players, send_delay
from service.config import Settings
from service.db import Database, enqueue, is_conflict
from service.errors import ServiceError
from service.i18n import N_, Said
from service.mail import authentication, confirmation, header_lines, language
from service.mail.addresses import (
    AddressError,
    ConfirmToken,
    DoctorToken,
    LeagueToken,
    ReplyToken,
    read_any_address,
)
from service.mail.commands import READ_ONLY, Command, Kind, take_conditionals
from service.mail.extract import Reply, extract_reply
from service.mail.guard import ErrorReplyLimiter, unanswerable
from service.mail.models import (
    EXPIRED,
    FAILED,
    HELD,
    HOLDING,
    IGNORED,
    PLAYED,
    PROCESSED,
    RECEIVED,
    REJECTED,
    HeldReply,
    InboundMessage,
)
from service.mail.reading import Ignored, ignored_line, quoted, read_reply, take_note
from service.mail.render import ascii_in, events_in
from service.mail.storable import clean_reply, storable
from service.mail.words import position_in_words
from service.models import Email, Game, Outbox, Player, utcnow
from service.notify import queue_mail
from service.tasks import Task

log = logging.getLogger(__name__)

CHANNEL = "mail"
"""What ``orders.channel`` says for moves that came by mail."""
UNKNOWN_ANSWERED = "unknown address: answered with how to take part"
NOBODY_TO_ANSWER = "its sender is no registered address of the player a reply address names"
RESULT_CHARS = 4000
MAX_ATTEMPTS = 5
"""Tries of one message (each committed before its work) before it is marked failed."""


# -- receiving ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Received:
    """Where a message was stored, and whether it had arrived before."""

    id: int
    duplicate: bool


def message_id_of(raw: bytes) -> str:
    """The Message-ID header of a raw message, or "" (never raises on garbage)."""
    try:
        headers = BytesHeaderParser(policy=compat32).parsebytes(raw)
        value = str(headers.get("Message-ID", "") or "")
    except Exception:  # hostile mail: no Message-ID is a fine answer
        return ""
    return " ".join(value.split())[:998]


def dedup_key(raw: bytes, message_id: str | None = None) -> str:
    """``message_id``: the raw message's :func:`message_id_of`, when the caller has it."""
    message_id = message_id_of(raw) if message_id is None else message_id
    if message_id:
        return "mid:" + hashlib.sha256(message_id.encode("utf-8", "replace")).hexdigest()
    return "sha:" + hashlib.sha256(raw).hexdigest()


class TooLarge(ServiceError):
    """A message past ``PBEM_INBOUND_MAX_BYTES``: every way in refuses it, nothing is stored
    (SMTP answers 552, the webhook 413, ``pbem mail inject`` exits 65, IMAP leaves it)."""

    status = 413
    code = "too_large"

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(
            f"the message is {size} bytes, more than the {limit} bytes a message may have "
            "(PBEM_INBOUND_MAX_BYTES)"
        )
        self.size, self.limit = size, limit


def check_size(settings: Settings, raw: bytes) -> None:
    """Raise :class:`TooLarge` past ``PBEM_INBOUND_MAX_BYTES`` (the one limit of every way in)."""
    if len(raw) > settings.inbound_max_bytes:
        raise TooLarge(len(raw), settings.inbound_max_bytes)


class AmbiguousHeaders(ServiceError):
    """A message whose header lines mail readers could split two ways (``header_lines.py``):
    every way in refuses it, nothing is stored (SMTP answers 550 5.6.0, the webhook 400,
    ``pbem mail inject`` exits 65, IMAP leaves it in the mailbox, flagged seen)."""

    status = 400
    code = "ambiguous_headers"

    def __init__(self, why: str) -> None:
        super().__init__(f"the message is refused: {why}")


def check_header_block(raw: bytes) -> None:
    """Raise :class:`AmbiguousHeaders` unless every reader splits the header lines alike."""
    if why := header_lines.problem(raw):
        raise AmbiguousHeaders(why)


def receive(
    database: Database,
    raw: bytes,
    channel: str,
    recipients: Sequence[str] = (),
    envelope_from: str | None = None,
) -> Received:
    """Store ``raw`` (once) and queue its processing after the commit; ``envelope_from`` is
    the SMTP ``MAIL FROM`` when our own listener took the message; :class:`TooLarge` past the
    size limit, :class:`AmbiguousHeaders` for header lines that could be split two ways."""
    check_size(database.settings, raw)
    check_header_block(raw)
    message_id = message_id_of(raw)  # the headers parsed once, for the key and the row
    key = dedup_key(raw, message_id)
    try:
        with database.transaction() as session:
            found = session.scalar(select(InboundMessage.id).where(InboundMessage.dedup_key == key))
            if found is not None:
                return Received(found, True)
            row = InboundMessage(
                dedup_key=key,
                message_id=storable(message_id) or None,
                content_hash=hashlib.sha256(raw).hexdigest(),
                raw=raw,
                channel=channel,
                recipient=storable(", ".join(recipients))[:254] or None,
                envelope_from=None if envelope_from is None else storable(envelope_from)[:254],
                status=RECEIVED,
                attempts=0,
            )
            session.add(row)
            session.flush()
            enqueue(session, Task.PROCESS_INBOUND, row.id)
            return Received(row.id, False)
    except IntegrityError:  # the same message, stored by a racing delivery a moment ago
        with database.transaction() as session:
            stored = session.scalar(
                select(InboundMessage.id).where(InboundMessage.dedup_key == key)
            )
        if stored is None:
            raise
        return Received(stored, True)


def stale(session: Session, now: datetime, after: timedelta) -> list[int]:
    """Messages whose processing task was lost (broker down, worker killed): queue again,
    once per ``after``, so a backlog waiting in the broker is not queued twice over."""
    query = (
        select(InboundMessage)
        .where(
            InboundMessage.status == RECEIVED,
            InboundMessage.received_at <= now - after,
            (InboundMessage.requeue_at.is_(None)) | (InboundMessage.requeue_at <= now),
        )
        .order_by(InboundMessage.id)
        .limit(500)
        .with_for_update(skip_locked=True)
    )
    rows = session.scalars(query).all()
    for row in rows:
        row.requeue_at = now + after
    return [row.id for row in rows]


# -- processing -----------------------------------------------------------------------------


def process(database: Database, inbound_id: int, now: datetime | None = None) -> str | None:
    """Act on a stored message once; returns its status (None if there is no such row).

    The attempt is counted and committed before the work, so a message whose work cannot be
    committed, or that kills its worker, is not tried for ever: when the work's own commit
    fails, a fresh transaction marks it failed; past ``MAX_ATTEMPTS`` it is failed too. Either
    way its sender hears that nothing was played, and the raw mail is kept."""
    now = now or utcnow()
    status = _count_attempt(database, inbound_id, now)
    if status != RECEIVED:
        return status
    try:
        return _work(database, inbound_id, now)
    except Exception as error:
        if is_conflict(error):  # not the message's fault: the task runs it all again
            raise
        log.exception("inbound message %s could not be committed", inbound_id)
        return _give_up(database, inbound_id, now, f"{type(error).__name__}: {error}")


def _locked(session: Session, inbound_id: int) -> InboundMessage | None:
    query = (
        select(InboundMessage)
        .where(InboundMessage.id == inbound_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    return session.scalar(query)


def _count_attempt(database: Database, inbound_id: int, now: datetime) -> str | None:
    """RECEIVED when the message is to be worked on now (its attempt committed), else its
    status: already done, or failed here because it has had its ``MAX_ATTEMPTS``."""
    with database.transaction() as session:
        if _counted(session, inbound_id):  # the usual case, in one statement
            return RECEIVED
        row = _locked(session, inbound_id)
        if row is None or row.status != RECEIVED:
            return row.status if row else None
        if row.attempts >= MAX_ATTEMPTS:
            _fail(session, database.settings, row, now, f"gave up after {row.attempts} attempts")
            return FAILED
        row.attempts += 1
        return RECEIVED


def _counted(session: Session, inbound_id: int) -> bool:
    """Count one more attempt of a message still to be worked on and under its
    ``MAX_ATTEMPTS``, in one locking UPDATE (no read first: one round trip per reply);
    False when there is no such row, and :func:`_count_attempt` reads why."""
    query = (
        update(InboundMessage)
        .where(
            InboundMessage.id == inbound_id,
            InboundMessage.status == RECEIVED,
            InboundMessage.attempts < MAX_ATTEMPTS,
        )
        .values(attempts=InboundMessage.attempts + 1)
        .returning(InboundMessage.id)
        .execution_options(synchronize_session=False)
    )
    return session.scalar(query) is not None


def _work(database: Database, inbound_id: int, now: datetime) -> str | None:
    with database.transaction() as session:
        row = _locked(session, inbound_id)
        if row is None or row.status != RECEIVED:  # a racing worker got there first
            return row.status if row else None
        reply = clean_reply(extract_reply(row.raw))
        sender = reply.sender[:254] or None
        try:
            with session.begin_nested():
                # Set inside the savepoint so that it is written with the handling's first
                # change, not in an UPDATE of its own; set again below, after a rollback.
                row.sender = sender
                status, result = _Handling(session, database.settings, row, reply, now).run()
        except Exception as error:  # kept on the row with the raw mail; the worker lives on
            if is_conflict(error):
                raise
            log.exception("inbound message %s failed", inbound_id)
            status, result = FAILED, f"{type(error).__name__}: {error}"
            row.sender = sender
            _apologise(session, database.settings, row, reply, now)
        row.status, row.result, row.processed_at = status, storable(result)[:RESULT_CHARS], now
        return status


def _give_up(database: Database, inbound_id: int, now: datetime, why: str) -> str | None:
    with database.transaction() as session:
        row = _locked(session, inbound_id)
        if row is None or row.status != RECEIVED:
            return row.status if row else None
        _fail(session, database.settings, row, now, why)
        return FAILED


def _fail(
    session: Session, settings: Settings, row: InboundMessage, now: datetime, why: str
) -> None:
    row.status, row.result, row.processed_at = FAILED, storable(why)[:RESULT_CHARS], now
    try:
        reply = clean_reply(extract_reply(row.raw))
    except Exception:  # the mail that broke the work may break its reading too
        reply = Reply("")
    _apologise(session, settings, row, reply, now)


def _apologise(
    session: Session, settings: Settings, row: InboundMessage, reply: Reply, now: datetime
) -> None:
    """After a failure on our side, one (rate-limited) word to the player the reply address
    names, at a registered address (never to an unauthenticated From); never raises."""
    try:
        with session.begin_nested():
            found = _registered_address(session, settings, row, reply)
            if found is None or unanswerable(reply, settings.mail_domain):
                return
            to, reader = confirmation.answer_to(settings, *found)
            error = i18n.gettext(i18n.locale_for(found[0]), FAILED_ON_OUR_SIDE)
            _error_reply(
                session, settings, to, None, "", error, "", now, reply.message_id, reader=reader
            )
    except Exception:
        log.exception("could not tell the sender of inbound message %s", row.id)


def _registered_address(
    session: Session, settings: Settings, row: InboundMessage, reply: Reply
) -> tuple[Player, str] | None:
    """Whom an answer about ``row`` may go to: the player its reply address names, at one
    of their addresses (the From when it is one of theirs), or None when no reply address of
    ours names a player. Anyone can write any From: an answer never goes to one we do not
    know."""
    player = session.get(Player, row.player_id) if row.player_id else None
    if player is None:
        token = _first_token(settings, row)
        if token is not None and not isinstance(token, DoctorToken):  # it names nobody
            player = session.get(Player, token.player_id)
    if player is None:
        return None
    address = _address_of(player, reply.sender)
    return (player, address) if address else None


def _address_of(player: Player, sender: str) -> str | None:
    """``sender`` when it is one of ``player``'s addresses, else their first address."""
    owned = [email.address for email in player.emails]
    return sender.lower() if sender.lower() in owned else player.address


AnyToken = ReplyToken | LeagueToken | DoctorToken | ConfirmToken


def _first_token(settings: Settings, row: InboundMessage) -> AnyToken | None:
    for address in _recipients(row):
        try:
            return read_any_address(settings.secret(), settings.mail_domain, address)
        except AddressError:
            continue
    return None


DOCTOR_RESULT = "doctor round trip "
"""How the result of a reply to ``pbem doctor --round-trip`` begins."""


def doctor_token(settings: Settings, row: InboundMessage) -> DoctorToken | None:
    """The round trip a stored message answers, when its first address of ours (the one the
    gateway acts on) is a doctor address."""
    token = _first_token(settings, row)
    return token if isinstance(token, DoctorToken) else None


@dataclass
class _Done:
    """What happened to one command line."""

    command: Command
    ok: bool
    text: str
    """In English: the message's stored result, for the operator."""
    self_notifying: bool = False
    headline: str = ""
    """What was done in a few words, for the subject of a ``reply_receipt`` (in the player's
    language)."""
    shown: str | None = None
    """``text`` in the player's language, for their answer (None: ``text`` is already so)."""


@dataclass
class _Handling:
    """One message, from its recipients to its answer (inside a savepoint)."""

    session: Session
    settings: Settings
    row: InboundMessage
    reply: Reply
    now: datetime
    done: list[_Done] = field(default_factory=list)
    ignored: Sequence[Ignored] = ()
    confirmed: bool = False
    """The registered mailbox confirmed this held reply (``confirm_held``): what nobody
    could authenticate is played now; a failed check still refuses."""
    addressed: tuple[AnyToken | None, list[str]] | None = None
    """What :meth:`_addressed` read, once."""

    def run(self) -> tuple[str, str]:
        if self.reply.sender_problem:  # not one clear author (extract.author_of): nobody's move
            return self._refuse(self.reply.sender_said or self.reply.sender_problem)
        token, _codes = self._addressed()
        doctor = token if isinstance(token, DoctorToken) else None  # as ``doctor_token`` reads
        if doctor is not None:  # before the no-reply rules: a doctor's reply is never answered
            return self._doctor_reply(doctor)
        quiet = unanswerable(self.reply, self.settings.mail_domain)
        if quiet:
            return IGNORED, f"not answered: {quiet}"
        token, problem = self._token()
        if token is None:
            return problem
        if isinstance(token, LeagueToken):
            return self._league_reply(token)
        if isinstance(token, DoctorToken):  # found above already; here for completeness
            return self._doctor_reply(token)
        if isinstance(token, ConfirmToken):
            return self._confirmation(token)
        # With their addresses and seats, read below: two statements, not four; the row's
        # sender is written later, with its game and player, in one UPDATE.
        with self.session.no_autoflush:
            player = self.session.get(Player, token.player_id, options=[joinedload(Player.emails)])
            game = self.session.get(Game, token.game_id, options=[joinedload(Game.seats)])
        if player is None or game is None:
            return self._refuse(Said.of(NO_SUCH_GAME_OR_PLAYER))
        self.row.game_id = game.id
        owner = {email.address for email in player.emails}
        if self.reply.sender.lower() not in owner:  # answered to the player, who knows the game
            return self._refuse(Said.of(NOT_YOURS, sender=self.reply.sender), game)
        self.row.player_id = player.id
        doubt = authentication.for_player(self.row, self.reply.sender, player, self.settings)
        if doubt is not None and not doubt.confirmable:
            return self._refuse(_failed(doubt.reason, game, player), game)
        if games.seat_of(game, player) is None:
            return self._refuse(Said.of(NOT_IN_GAME, name=player.name, number=game.id))
        if doubt is not None and not self.confirmed and not self._reads_only(player, game):
            row, reply = self.row, self.reply  # nobody could tell: ask the mailbox
            args = (self.session, self.settings, row, reply, player, game, token, doubt.reason)
            return confirmation.hold(*args)
        return self._commands(player, game, token)

    def _reads_only(self, player: Player, game: Game) -> bool:
        """Whether every line of the reply only reads (``commands.READ_ONLY``: help, the
        board, a preview): answered at once to the registered address, it changes nothing,
        so it needs no confirmation. Read as :meth:`_commands` reads it."""
        typed, note = take_note(self.reply.text)
        typed, conditional_lines = take_conditionals(typed)
        if conditional_lines is not None or note is not None:
            return False
        judge = games.action_reader(self.session, game.id, player)
        commands = read_reply(typed, judge, self.reply.signature, judge.legal).commands
        asks = [c for c in commands if c.kind is not Kind.GREETING]
        return bool(asks) and all(c.kind in READ_ONLY for c in asks)

    # -- who is it for ----------------------------------------------------------------------

    def _addressed(self) -> tuple[AnyToken | None, list[str]]:
        """The first recipient that is an address of ours, read (its token), and why each
        recipient before it is none: read once per message, the headers parsed once."""
        if self.addressed is None:
            secret, domain = self.settings.secret(), self.settings.mail_domain
            codes: list[str] = []
            token: AnyToken | None = None
            for address in _recipients(self.row):
                try:
                    token = read_any_address(secret, domain, address)
                    break
                except AddressError as error:
                    codes.append(error.code)
            self.addressed = (token, codes)
        return self.addressed

    def _token(self) -> tuple[AnyToken | None, tuple[str, str]]:
        token, codes = self._addressed()
        if token is not None:
            return token, ("", "")
        domain = self.settings.mail_domain
        if "forged" in codes:
            return None, self._refuse(Said.of(REPLY_ADDRESS_FORGED))
        if "unknown" in codes:
            return None, self._unknown()
        return None, (IGNORED, f"not addressed to {domain}")

    def _refuse(self, said: str | Said, game: Game | None = None) -> tuple[str, str]:
        """Refuse. The answer goes to an address of the player the reply address names,
        never to a From we do not know: anyone can write any From, and the service must not
        mail a stranger's victim. It speaks to them by name, with their signed links, in
        their language (``said``; the result keeps the English); it names the game only once
        the From was found to be theirs (``game``)."""
        why = str(said)
        found = _registered_address(self.session, self.settings, self.row, self.reply)
        if found is None:
            return REJECTED, f"refused: {why} (not answered: {NOBODY_TO_ANSWER})"
        shown = said.in_(i18n.locale_for(found[0])) if isinstance(said, Said) else said
        to, reader = confirmation.answer_to(self.settings, *found, game)
        sent = _error_reply(
            self.session,
            self.settings,
            to,
            game,
            self.reply.text,
            shown,
            "",
            self.now,
            self.reply.message_id,
            reader=reader,
        )
        return REJECTED, f"refused: {why}" + ("" if sent else " (not answered: rate limit)")

    def _unknown(self) -> tuple[str, str]:
        """Mail to an address of ours that is no reply address: how to take part, once, and
        only to a registered player whose From is believed (else nobody is answered)."""
        known = self.session.scalar(select(Email).where(Email.address == self.reply.sender.lower()))
        if known is None or authentication.for_player(
            self.row, self.reply.sender, known.player, self.settings
        ):  # held nowhere: only a believed From hears how to take part
            return REJECTED, f"unknown address: not answered ({NOBODY_TO_ANSWER})"
        answered = self.session.scalar(
            select(func.count())
            .select_from(InboundMessage)
            .where(
                InboundMessage.sender == self.row.sender,
                InboundMessage.result == UNKNOWN_ANSWERED,
            )
        )
        if answered:
            return REJECTED, "unknown address: already answered once"
        to, reader = confirmation.answer_to(self.settings, known.player, known.address)
        report = i18n.gettext(i18n.locale_for(known.player), HOW_TO_TAKE_PART)
        context = {**reader, "report": report}
        _queue(self.session, "help", to, None, context, self.reply.message_id)
        return REJECTED, UNKNOWN_ANSWERED

    # -- a reply to ``pbem doctor --round-trip`` ---------------------------------------------

    def _doctor_reply(self, token: DoctorToken) -> tuple[str, str]:
        """Recorded with who vouched for its From (as for a player's move), never played nor
        answered: ``pbem doctor`` reads the result."""
        row, sender = self.row, self.reply.sender
        args = (row.raw, sender, row.channel, row.envelope_from, self.settings)
        why = authentication.refusal(*args)
        how = authentication.vouched_by(row.raw, row.channel, row.envelope_from, self.settings)
        said = f"{DOCTOR_RESULT}{token.check} from {sender}: "
        if why:
            return REJECTED, f"{said}not authenticated: {why}"
        if not how:
            return REJECTED, f"{said}not authenticated: nobody vouched for its From"
        return PROCESSED, f"{said}authenticated by {how}"

    # -- a reply to a confirmation mail ------------------------------------------------------

    def _confirmation(self, token: ConfirmToken) -> tuple[str, str]:
        """``yes`` to a confirmation mail plays the held reply it names. The code in the
        address proves the mailbox got that mail; the From must be that mailbox too, and
        may be unsigned, but not fail a check."""
        held = self.session.get(HeldReply, token.held_id)
        player = self.session.get(Player, token.player_id)
        if held is None or player is None or held.player_id != player.id:
            return self._refuse(Said.of(NO_HELD_REPLY))
        if not confirmation.code_fits(held, token.code):
            return self._refuse(Said.of(CONFIRMATION_FORGED))
        self.row.game_id = held.game_id
        if self.reply.sender.lower() != held.address:
            came = {"sender": self.reply.sender, "address": held.address}
            return self._refuse(Said.of(CONFIRMED_ELSEWHERE, **came))
        self.row.player_id = player.id
        doubt = authentication.for_player(self.row, self.reply.sender, player, self.settings)
        if doubt is not None and not doubt.confirmable:
            return self._refuse(_failed(doubt.reason, None, player))
        if not confirmation.says_yes(self.reply.text):
            first = next((ln.strip() for ln in self.reply.text.splitlines() if ln.strip()), "")
            locale = i18n.locale_for(player)
            read = quoted(first) if first else i18n.gettext(locale, NOTHING_TYPED)
            error = NOT_YES % {"read": quoted(first) if first else NOTHING_TYPED}
            game = self.session.get(Game, held.game_id) if held.game_id else None
            to, reader = confirmation.answer_to(self.settings, player, held.address, game)
            sent = _error_reply(
                self.session,
                self.settings,
                to,
                game,
                self.reply.text,
                i18n.gettext(locale, NOT_YES, read=read),
                "",
                self.now,
                self.reply.message_id,
                reader=reader,
            )
            return REJECTED, f"not confirmed: {error}" + ("" if sent else " (rate limit)")
        said = confirm_held(self.session, self.settings, held.id, self.now)
        return PROCESSED, f"confirmed held reply {held.id}: {said}"

    # -- a reply to a league invitation ------------------------------------------------------

    def _league_reply(self, token: LeagueToken) -> tuple[str, str]:
        from service.leagues import leagues, mail
        from service.leagues.models import League

        player = self.session.get(Player, token.player_id)
        league = self.session.get(League, token.league_id)
        if player is None or league is None:
            return self._refuse(Said.of(NO_SUCH_LEAGUE_OR_PLAYER))
        owner = {email.address for email in player.emails}
        if self.reply.sender.lower() not in owner:
            return self._refuse(Said.of(NOT_YOURS, sender=self.reply.sender))
        self.row.player_id = player.id
        doubt = authentication.for_player(self.row, self.reply.sender, player, self.settings)
        if doubt is not None and not doubt.confirmable:
            return self._refuse(_failed(doubt.reason, None, player))
        answer, problem = _league_answer(self.reply.text, i18n.locale_for(player))
        if doubt is not None and not self.confirmed and answer is not None:
            if league.status == leagues.OPEN:  # nobody could tell: ask the mailbox
                args = (self.session, self.settings, self.row, self.reply, player, league)
                return confirmation.hold_league_answer(*args, doubt.reason)
            answer, problem = None, _league_closed(league).in_(i18n.locale_for(player))
        reply_to = mail.reply_address(self.session, league, player)
        if answer is not None:
            try:
                with self.session.begin_nested():
                    leagues.answer(self.session, league.id, player, answer)
                    mail.answered(self.session, league, player, answer, self.reply.message_id)
                    said = "accepted" if answer else "declined"
                    return PROCESSED, f"league {league.id}: invitation {said}"
            except ServiceError as error:
                problem = error.localized(i18n.locale_for(player))
        sent = _error_reply(
            self.session,
            self.settings,
            player,
            None,
            self.reply.text,
            problem,
            "",
            self.now,
            self.reply.message_id,
            reply_to,
        )
        result = f"league {league.id}: {problem}"
        return REJECTED, result + ("" if sent else " (not answered: rate limit)")

    # -- what it asks for -------------------------------------------------------------------

    def _commands(self, player: Player, game: Game, token: ReplyToken) -> tuple[str, str]:
        # A private note is taken out first (its text is nothing else: issue 25, 2), then
        # conditional lines (``if X then Y``): their notation is no move.
        typed, note = take_note(self.reply.text)
        typed, conditional_lines = take_conditionals(typed)
        language.default_from_reply(player, "\n".join((self.reply.text, *self.reply.signature)))
        judge = games.action_reader(self.session, game.id, player)
        reading = read_reply(
            typed, judge, self.reply.signature, judge.legal, i18n.locale_for(player)
        )
        self.ignored = reading.ignored
        commands = list(reading.commands)
        if conditional_lines is not None:  # after any move of the same reply: it answers that
            commands.append(conditional_lines)
        if note is not None:
            commands.append(note)
        if not commands:
            locale = i18n.locale_for(player)
            why = self.reply.problem or "nothing typed above the quoted text"
            shown_why = self.reply.problem or i18n.gettext(locale, NOTHING_TYPED)
            if self.reply.text and not self.reply.problem:
                why = "only lines that are neither a move nor a command"
                shown_why = i18n.gettext(locale, NO_COMMAND_LINES)
            error = i18n.gettext(locale, NO_COMMAND, why=shown_why)
            sent = _error_reply(
                self.session,
                self.settings,
                player,
                game,
                self.reply.text,
                error,
                "",
                self.now,
                self.reply.message_id,
                ignored=ignored_line(reading.ignored, locale),
            )
            unanswered = "" if sent else " (not answered: rate limit)"
            return REJECTED, f"nothing to act on: {why}{unanswered}"
        first_mail = self.session.scalar(select(func.max(Outbox.id))) or 0
        # What the reply causes reaches each player as one mail (issue 21, point 5).
        notify.gather(self.session)
        try:
            for command in commands:
                self.done.append(self._one(command, player, game, token))
            return self._answer(player, game, first_mail)
        finally:  # released by the answer; after a failure nothing held is written
            notify.stop_gathering(self.session)

    def _one(self, command: Command, player: Player, game: Game, token: ReplyToken) -> _Done:
        if command.kind is Kind.IGNORED:
            locale = i18n.locale_for(player)
            shown = i18n.gettext(locale, IGNORED_LINE, note=i18n.gettext(locale, command.note))
            return _Done(command, True, f"ignored: {command.note}", shown=shown)
        if command.kind is Kind.ERROR:  # how to write the command (``commands._HOW_TO``)
            shown = i18n.gettext(i18n.locale_for(player), command.note)
            return _Done(command, False, command.note, shown=shown)
        mark = notify.gathered(self.session)
        try:
            with self.session.begin_nested():
                return self._act(command, player, game, token)
        except ServiceError as error:
            notify.forget_since(self.session, mark)  # its mails were rolled back with it
            return _Done(command, False, error.localized(i18n.locale_for(player)))

    def _act(self, command: Command, player: Player, game: Game, token: ReplyToken) -> _Done:
        session, now, gid = self.session, self.now, game.id
        kind, locale = command.kind, i18n.locale_for(player)

        def say(message: str, **values: Any) -> str:
            return i18n.gettext(locale, message, **values)

        if kind is Kind.MOVE:
            # Whether turns are sealed is the game's kind (a class attribute of its state):
            # no need to lock and read the game again, ``games.submit`` does that.
            move = command.argument
            if games.state_of(game).simultaneous:
                games.submit(session, gid, player, token.turn, move, CHANNEL, now)
                text = f"orders {move} received (sealed until the turn resolves)"
                shown = say(
                    N_("orders %(orders)s received (sealed until the turn resolves)"), orders=move
                )
                noted = _noted(command)
                return _Done(
                    command,
                    True,
                    text + noted,
                    headline=say(N_("Orders received")),
                    shown=shown + noted,
                )
            if player.send_delay_minutes > 0:
                row = send_delay.hold(session, game, player, token.turn, move, now)
                text, shown = send_delay.receipt(row, player)
                headline = say(N_("Your move %(move)s is held"), move=move)
                return _Done(command, True, text, headline=headline, shown=shown)
            games.submit(session, gid, player, token.turn, move, CHANNEL, now)
            played = f"played {move}{_noted(command)}"
            return _Done(
                command,
                True,
                played,
                self_notifying=True,
                headline=say(N_("You played %(move)s"), move=move),
                shown=say(N_("played %(move)s"), move=move) + _noted(command),
            )
        if kind is Kind.CONDITIONAL:
            moved = any(d.ok and d.command.kind is Kind.MOVE for d in self.done)
            turn = games.lock(session, gid).turn if moved else token.turn
            tree = conditional.set_tree(session, gid, player, turn, command.argument, CHANNEL, now)
            lines = "".join(f"\n  {line}" for line in tree["lines"])
            text = f"conditional moves set, seen by you alone:{lines}"
            shown = say(N_("conditional moves set, seen by you alone:")) + lines
            headline = say(N_("Conditional moves set"))
            return _Done(command, True, text, headline=headline, shown=shown)
        if kind is Kind.PREVIEW:
            seat, resolution = games.previewed(session, gid, player, command.argument)
            view = resolution.state.view(seat).to_json()
            events = "".join(f"\n- {e.text}" for e in resolution.events)
            # The events, the words and the board's legend in the player's language (issue
            # 24); the stored result stays English.
            events_shown = "".join(f"\n- {e['text']}" for e in events_in(locale, resolution.events))
            board = "\n".join(position_in_words(view))  # issue 21, point 10
            with i18n.in_locale(locale):
                board_shown = "\n".join(position_in_words(view))
            if player.board_text != "words":
                board += f"\n\n{view['ascii']}"
                board_shown += f"\n\n{ascii_in(locale, resolution.state, seat, view['ascii'])}"
            text = f"nothing stored; after it:{events}\n{board}"
            shown = say(N_("nothing stored; after it:")) + f"{events_shown}\n{board_shown}"
            headline = say(N_("Preview of %(move)s"), move=command.argument)
            return _Done(command, True, text, headline=headline, shown=shown)
        if kind is Kind.CONFIRM:
            # Resigning is deliberate: a doubtful one is asked about, never applied.
            text = f"not done: {command.note}; to resign, reply 'resign' alone on a line"
            shown = say(NOT_RESIGNED, note=say(command.note))
            return _Done(command, True, text, shown=shown)
        if kind is Kind.RESIGN:
            games.resign(session, gid, player, now)
            shown = say(N_("you resigned; the game is over"))
            return _Done(
                command, True, "you resigned; the game is over", self_notifying=True, shown=shown
            )
        if kind is Kind.TAKEBACK or (
            kind in (Kind.ACCEPT, Kind.DECLINE) and _takeback_offered_to(game, player)
        ):
            action = command.argument or ("accept" if kind is Kind.ACCEPT else "decline")
            games.takeback(session, gid, player, action, now)
            said = {
                "offer": N_("takeback offered (your opponent is told at once)"),
                "accept": N_("takeback accepted: the move was taken back"),
                "decline": N_("takeback declined (your opponent is told at once)"),
            }
            headlines = {
                "offer": N_("Takeback offered"),
                "accept": N_("Takeback accepted"),
                "decline": N_("Takeback declined"),
            }
            return _Done(
                command,
                True,
                said[action],
                self_notifying=action == "accept",
                headline=say(headlines[action]),
                shown=say(said[action]),
            )
        if kind is Kind.UNDO:
            text, shown = send_delay.undo(session, gid, player, now)
            return _Done(command, True, text, headline=say(N_("Move cancelled")), shown=shown)
        if kind is Kind.DELAY:
            minutes = send_delay.valid_delay(int(command.argument))
            player.send_delay_minutes = minutes
            if minutes:
                message = N_(
                    "send delay set to %(minutes)s minutes: your mailed moves wait that long, "
                    "and 'undo' cancels them"
                )
                text = message % {"minutes": minutes}
                shown = say(message, minutes=minutes)
                headline = say(N_("Send delay: %(minutes)s minutes"), minutes=minutes)
            else:
                text = N_("send delay off: your mailed moves are played at once")
                shown, headline = say(text), say(N_("Send delay off"))
            return _Done(command, True, text, headline=headline, shown=shown)
        if kind in (Kind.DRAW, Kind.ACCEPT, Kind.DECLINE):
            action = {Kind.DRAW: "offer", Kind.ACCEPT: "accept", Kind.DECLINE: "decline"}[kind]
            action = "withdraw" if command.argument == "off" else action
            after_game = games.draw(session, gid, player, action, now)
            if after_game.status != games.ACTIVE:
                shown = say(N_("draw agreed; the game is over"))
                text = "draw agreed; the game is over"
                return _Done(command, True, text, self_notifying=True, shown=shown)
            said = {
                "offer": N_("draw offered (your opponent is told at once)"),
                "accept": N_("draw accepted"),
                "decline": N_("draw offer declined (your opponent is told at once)"),
                "withdraw": N_("draw offer withdrawn (your opponent is told at once)"),
            }
            headlines = {
                "offer": N_("Draw offered"),
                "accept": N_("Draw accepted"),
                "decline": N_("Draw offer declined"),
                "withdraw": N_("Draw offer withdrawn"),
            }
            return _Done(
                command,
                True,
                said[action],
                headline=say(headlines[action]),
                shown=say(said[action]),
            )
        if kind is Kind.WAIT:
            on = command.argument != "off"
            games.wait_for_deadline(session, gid, player, token.turn, on)
            text = "this turn waits for its deadline" if on else "no longer waiting"
            headline = say(
                N_("This turn waits for its deadline") if on else N_("No longer waiting")
            )
            shown = say(N_("this turn waits for its deadline") if on else N_("no longer waiting"))
            return _Done(command, True, text, headline=headline, shown=shown)
        if kind is Kind.VACATION:
            if command.argument == "off":
                players.end_vacation(session, player, now)
                headline, shown = say(N_("Vacation ended")), say(N_("vacation ended"))
                return _Done(command, True, "vacation ended", headline=headline, shown=shown)
            ends = players.start_vacation(session, player, now)
            text = f"on vacation until {ends:%Y-%m-%d %H:%M} UTC"
            if locale == i18n.DEFAULT:
                return _Done(command, True, text, headline=text.capitalize())
            until = i18n.format_datetime(ends, locale, player.time_zone, "short")
            headline = say(N_("On vacation until %(until)s"), until=until)
            shown = say(N_("on vacation until %(until)s"), until=until)
            return _Done(command, True, text, headline=headline, shown=shown)
        if kind is Kind.NOTE:
            # The note is quoted in no report: the stored result, logs and the receipt say
            # only what was done (the author's own mails show the note itself).
            if notes.set_note(session, game, player, command.argument) is None:
                text, shown = "note cleared", say(N_("your private note on this game is cleared"))
                return _Done(command, True, text, headline=say(N_("Note cleared")), shown=shown)
            size = len(command.argument.strip())
            text = f"note saved ({size} characters), seen by you alone"
            shown = i18n.translations(locale).ungettext(
                "your private note on this game is saved (%(num)s character), seen by you alone",
                "your private note on this game is saved (%(num)s characters), seen by you alone",
                size,
            ) % {"num": size}
            return _Done(command, True, text, headline=say(N_("Note saved")), shown=shown)
        if kind is Kind.LANGUAGE:
            text, headline = language.choose(player, command.argument, self.reply.text)
            return _Done(command, True, text, headline=headline)
        if kind is Kind.BOARD:
            shown = say(N_("the board is below"))
            text = "the board is below"
            return _Done(command, True, text, headline=say(N_("The board")), shown=shown)
        if kind is Kind.HELP:
            shown = say(N_("the commands are below"))
            return _Done(command, True, "the commands are below", shown=shown)
        why = say(N_("cannot do %(what)s by mail"), what=repr(kind.value))
        return _Done(command, False, why)

    # -- the answer -------------------------------------------------------------------------

    def _report(
        self, done: Sequence[_Done], *, ignored: bool = True, locale: str | None = None
    ) -> str:
        """What was done with each command, then every line ignored (``reading.py``): in
        English (the stored result), or for a reader in ``locale``."""
        shown = [d.text if locale is None or d.shown is None else d.shown for d in done]
        lines = [f"{quoted(d.command.line)}: {text}" for d, text in zip(done, shown, strict=True)]
        last = ignored_line(self.ignored, locale or i18n.DEFAULT)
        return "\n".join([*lines, last] if ignored else lines)

    def _answer(self, player: Player, game: Game, first_mail: int) -> tuple[str, str]:
        """One answer to the author and one mail to each other player (issue 21, point 5):
        the mails the reply caused, held since it was read, are written now, merged per
        reader; the author's answers this mail and says what was done with each line."""
        report = self._report(self.done)
        locale = i18n.locale_for(player)
        shown = self._report(self.done, locale=locale)
        failed = [d for d in self.done if not d.ok]
        worked = [d for d in self.done if d.ok and d.command.kind is not Kind.IGNORED]
        status = PROCESSED if worked else REJECTED
        besides = [d.headline for d in worked if d.headline and not d.self_notifying]
        also_done = [line[:1].lower() + line[1:] for line in dict.fromkeys(besides)]
        answer = (player, game, shown, self.reply.message_id, also_done)
        if failed:
            received = "\n".join(d.command.line for d in failed)
            error = _one_valid_list([d.text for d in failed], locale)
            others = self._report([d for d in self.done if d.ok], ignored=False, locale=locale)
            # The error reply is the one answer: it carries the author's own news too.
            held = notify.held_news(self.session, player, game)
            sent = _error_reply(
                self.session,
                self.settings,
                player,
                game,
                received,
                error,
                others,
                self.now,
                self.reply.message_id,
                done=bool(worked),
                ignored=ignored_line(self.ignored, locale),
                also=held or [],
            )
            if sent and held:
                notify.drop(self.session, player, game)
            notify.release(self.session, answer)
            return status, report + ("" if sent else "\n(error reply not sent: rate limit)")
        unsure = next((d for d in worked if d.command.kind is Kind.CONFIRM), None)
        if unsure is not None:  # the answer asks whether they resign, and how to
            context = {"report": shown, "said": quoted(unsure.command.line)}
            _queue(self.session, "confirm_resign", player, game, context, self.reply.message_id)
            notify.release(self.session, answer)
            return status, report
        if notify.holds_for(self.session, player, game):  # the author's own mail answers
            notify.release(self.session, answer)
            return status, report
        mailed = self.session.scalar(
            select(func.count())
            .select_from(Outbox)
            .where(Outbox.id > first_mail, Outbox.player_id == player.id, Outbox.game_id == game.id)
        )
        if not (
            all(d.self_notifying for d in worked) and (mailed or _wants_no_copy(player, worked))
        ):
            self._confirm(player, game, shown)
        notify.release(self.session)
        return status, report

    def _confirm(self, player: Player, game: Game, report: str) -> None:
        """The answer to a reply that caused its author no mail of their own: the receipt of
        sealed orders, the list of commands asked for, or a receipt of what was done."""
        seat = games.seat_of(game, player)
        turn = games.current_turn(self.session, game)
        done = [d for d in self.done if d.ok and d.command.kind is not Kind.IGNORED]
        kinds = {d.command.kind for d in done}
        deadline = turn.deadline if turn is not None and turn.resolved_at is None else None
        context: dict[str, Any] = {"report": report, "turn": game.turn, "deadline": deadline}
        order = games.sealed_order(self.session, game, seat) if seat is not None else None
        if Kind.MOVE in kinds and order is not None:
            context |= {"orders": order.parsed, "receipt": order.receipt}
            _queue(self.session, "orders_received", player, game, context, self.reply.message_id)
        elif Kind.HELP in kinds or not done:
            _queue(self.session, "help", player, game, context, self.reply.message_id)
        else:
            headlines = list(dict.fromkeys(d.headline for d in done if d.headline))
            read = i18n.gettext(i18n.locale_for(player), N_("Your mail was read"))
            context["headline"] = "; ".join(headlines) or read
            _queue(self.session, "reply_receipt", player, game, context, self.reply.message_id)


def confirm_held(
    session: Session, settings: Settings, held_id: int, now: datetime, locale: str = i18n.DEFAULT
) -> str:
    """Play held reply ``held_id`` now, through the same handling as any reply, as if it
    had arrived authenticated: the same answers, threaded under it. Once: confirming again
    plays nothing; a hold whose turn is over (or that a newer reply replaced) plays nothing
    and its author is told. Returns what came of it, in words for the player (in
    ``locale``: the confirmation page's)."""
    held = session.scalar(
        select(HeldReply)
        .where(HeldReply.id == held_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    if held is None:
        return i18n.gettext(locale, NO_SUCH_HELD_REPLY)
    if held.state != HOLDING:
        return i18n.gettext(locale, NOTHING_MORE_DONE, over=hold_over(held, locale))
    row = _locked(session, held.inbound_id)
    if held.league_id is not None:
        return _confirm_league_answer(session, settings, held, row, now, locale)
    game = session.get(Game, held.game_id) if held.game_id else None
    if row is None or game is None or row.status != HELD:
        held.state, held.decided_at = EXPIRED, now
        return i18n.gettext(locale, NO_LONGER_PLAYED)
    reply = clean_reply(extract_reply(row.raw))
    if game.status != games.ACTIVE or game.turn != held.turn:
        return _expire(session, settings, held, row, reply, game, now, locale)
    return _play_held(session, settings, held, row, reply, now, locale)


def _play_held(
    session: Session,
    settings: Settings,
    held: HeldReply,
    row: InboundMessage,
    reply: Reply,
    now: datetime,
    locale: str = i18n.DEFAULT,
) -> str:
    row.status = RECEIVED  # the handling sees it as a message just read, once
    with session.begin_nested():
        handling = _Handling(session, settings, row, reply, now, confirmed=True)
        status, result = handling.run()
    row.status, row.result, row.processed_at = status, storable(result)[:RESULT_CHARS], now
    held.state, held.decided_at, held.outcome = PLAYED, now, storable(result)[:RESULT_CHARS]
    if held.league_id is not None:
        said = ANSWER_TAKEN if status == PROCESSED else ANSWER_READ
    else:
        said = REPLY_PLAYED if status == PROCESSED else REPLY_READ
    return i18n.gettext(locale, said, result=result)


def _confirm_league_answer(
    session: Session,
    settings: Settings,
    held: HeldReply,
    row: InboundMessage | None,
    now: datetime,
    locale: str = i18n.DEFAULT,
) -> str:
    """A held answer to a league invitation is taken while the league is still open for
    answers; once it started (or finished) nothing is done, and its author is told."""
    from service.leagues.leagues import OPEN, lock

    league = lock(session, held.league_id) if held.league_id else None
    if row is None or league is None or row.status != HELD:
        held.state, held.decided_at = EXPIRED, now
        return i18n.gettext(locale, NO_LONGER_TAKEN)
    reply = clean_reply(extract_reply(row.raw))
    if league.status == OPEN:
        return _play_held(session, settings, held, row, reply, now, locale)
    closed = Said.of(HELD_ANSWER_CLOSED, name=league.name, why=_league_closed(league))
    said = str(closed)
    held.state, held.decided_at, held.outcome = EXPIRED, now, said
    row.status, row.result, row.processed_at = REJECTED, f"hold expired: {said}", now
    player = session.get_one(Player, held.player_id)
    to, reader = confirmation.answer_to(settings, player, held.address)
    shown = closed.in_(i18n.locale_for(player))
    _error_reply(
        session, settings, to, None, reply.text, shown, "", now, reply.message_id, reader=reader
    )
    status = i18n.gettext(locale, LEAGUE_STATES.get(league.status, league.status))
    return i18n.gettext(locale, LEAGUE_NOT_OPEN, status=status)


NO_SUCH_HELD_REPLY = N_("there is no such held reply")
NOTHING_MORE_DONE = N_("%(over)s; nothing more was done")
NO_LONGER_PLAYED = N_("it can no longer be played")
NO_LONGER_TAKEN = N_("it can no longer be taken")
ANSWER_TAKEN = N_("your answer was taken")
ANSWER_READ = N_("your answer was read: %(result)s")
REPLY_PLAYED = N_("your reply was played")
REPLY_READ = N_("your reply was read: %(result)s")
LEAGUE_NOT_OPEN = N_("the league is no longer open for answers (%(status)s): nothing was done")
LEAGUE_STATES = {"running": N_("running"), "finished": N_("finished")}


def _league_closed(league: Any) -> Said:
    """Why an answer to an invitation to ``league`` can no longer be taken, in words."""
    done = LEAGUE_FINISHED if league.status == "finished" else LEAGUE_STARTED
    return Said.of(done, id=league.id, name=league.name)


LEAGUE_FINISHED = N_(
    "league %(id)s (%(name)s) has finished, so entries are closed and invitations can no "
    "longer be answered"
)
LEAGUE_STARTED = N_(
    "league %(id)s (%(name)s) has started, so entries are closed and invitations can no "
    "longer be answered"
)
HELD_ANSWER_CLOSED = N_("your held answer to the invitation to %(name)s was not taken: %(why)s")


def hold_over(held: HeldReply, locale: str = i18n.DEFAULT) -> str:
    """What became of a hold that is no longer held, in words for its author (in
    ``locale``)."""
    if held.league_id is not None:
        said = LEAGUE_HOLD_OVER.get(held.state, DEALT_WITH)
    else:
        said = HOLD_OVER.get(held.state, DEALT_WITH)
    return i18n.gettext(locale, said)


DEALT_WITH = N_("it was already dealt with")
LEAGUE_HOLD_OVER = {
    PLAYED: N_("your answer was already confirmed and taken"),
    "replaced": N_("a newer answer of yours replaced it"),
    EXPIRED: N_("the league was no longer open for answers when it was confirmed"),
}


HOLD_OVER = {
    PLAYED: N_("your reply was already confirmed and played"),
    "replaced": N_("a newer reply of yours for the same turn replaced it"),
    EXPIRED: N_("its turn was over before it was confirmed"),
    "cancelled": N_("it was cancelled"),
}


def _expire(
    session: Session,
    settings: Settings,
    held: HeldReply,
    row: InboundMessage,
    reply: Reply,
    game: Game,
    now: datetime,
    locale: str = i18n.DEFAULT,
) -> str:
    """The turn moved on: nothing is played, and the player hears so, plainly (what came of
    it returned in ``locale``)."""
    ended = game.status != games.ACTIVE
    over = "the game is over" if ended else f"it is turn {game.turn} now"
    values = {"turn": held.turn, "number": game.id}
    said = HELD_TOO_LATE % {**values, "over": over}
    held.state, held.decided_at, held.outcome = EXPIRED, now, said
    row.status, row.result, row.processed_at = REJECTED, f"hold expired: {said}", now
    player = session.get_one(Player, held.player_id)
    to, reader = confirmation.answer_to(settings, player, held.address, game)
    locale = i18n.locale_for(player)
    now_over = (
        i18n.gettext(locale, GAME_ENDED)
        if ended
        else i18n.gettext(locale, TURN_NOW, turn=game.turn)
    )
    _error_reply(
        session,
        settings,
        to,
        game,
        reply.text,
        i18n.gettext(locale, HELD_TOO_LATE, **values, over=now_over),
        "",
        now,
        reply.message_id,
        reader=reader,
    )
    said = i18n.gettext(locale, GAME_ENDED if ended else TURN_NOW, turn=game.turn)
    return i18n.gettext(locale, TURN_IS_OVER, turn=held.turn, over=said)


TURN_IS_OVER = N_("turn %(turn)s is over (%(over)s): nothing was played")


FAILED_AUTHENTICATION = N_(
    "a mail with your address as its sender was not played, because %(why)s. If you sent "
    "it, send it again straight from your own mailbox (a forwarder or mailing list changes "
    "mail so that its signature no longer checks out)"
)
FAILED_AUTHENTICATION_SEATED = N_(
    "a mail with your address as its sender was not played, because %(why)s. If you sent "
    "it, send it again straight from your own mailbox (a forwarder or mailing list changes "
    "mail so that its signature no longer checks out) or play in your browser with the link "
    "at the foot of this mail"
)
FAILED_ON_OUR_SIDE = N_(
    "Something went wrong on our side while reading your mail. It is kept and will be looked "
    "at; nothing was played. Please try again later."
)


def _failed(why: Said, game: Game | None, player: Player) -> Said:
    """What a reply that failed sender authentication is answered, in the player's language:
    what happened, why (the check's own words), and what to do (never the API: a player who
    only mails has no token)."""
    seated = game is not None and game.status == games.ACTIVE and games.seat_of(game, player)
    text = FAILED_AUTHENTICATION_SEATED if seated else FAILED_AUTHENTICATION
    return Said.of(text, why=why)


def _takeback_offered_to(game: Game, player: Player) -> bool:
    """Whether a bare ``accept`` / ``decline`` answers a takeback: one is offered to the
    player in this turn and no draw offer is open (issue 25)."""
    offer = game.takeback_offer or {}
    if offer.get("turn") != game.turn or game.draw_offers:
        return False
    return any(s.seat != offer.get("seat") and s.player_id == player.id for s in game.seats)


def _noted(command: Command) -> str:
    """What a move's reading adds to the answer: " (you took back 'd1-d4')", or ""."""
    return f" ({command.note})" if command.kind is Kind.MOVE and command.note else ""


@functools.cache
def _valid_here(locale: str) -> re.Pattern[str]:
    """The engine's "Valid here: ..." tail as ``locale`` writes it (``. Valid here: `` in
    English): the words between the message and the list in the engine's translated frame."""
    translate, _ = i18n.translators(locale)
    frame = translate("{message}. Valid here: {shown}")
    separator = frame.split("{message}", 1)[-1].split("{shown}", 1)[0]
    return re.compile(re.escape(separator) + ".*$", re.DOTALL)


def _one_valid_list(errors: Sequence[str], locale: str = i18n.DEFAULT) -> str:
    """The errors of one reply joined; the engine's "Valid here: ..." list only once, on the
    last error that has it (issue 21, point 4: an error reply listed it twice)."""
    valid_here = _valid_here(locale)
    last = max((n for n, text in enumerate(errors) if valid_here.search(text)), default=-1)
    kept = [text if n == last else valid_here.sub("", text) for n, text in enumerate(errors)]
    return "; ".join(kept)


def _wants_no_copy(player: Player, worked: Sequence[_Done]) -> bool:
    """A mover who chose no copy of their own moves gets no mail for a move alone."""
    return player.own_copy == "none" and all(d.command.kind is Kind.MOVE for d in worked)


IGNORED_LINE = N_("ignored: %(note)s")
NOT_RESIGNED = N_("not done: %(note)s; to resign, reply 'resign' alone on a line")
NOTHING_TYPED = N_("nothing typed above the quoted text")
NO_COMMAND_LINES = N_("only lines that are neither a move nor a command")
NO_COMMAND = N_(
    "we found no move or command in your reply (%(why)s). Type it above the marker line, "
    "alone on a line."
)

NOT_YES = N_(
    "we read %(read)s, not yes, so your held reply was not played. To play it, reply to the "
    "confirmation mail with yes alone on the first line (or use its link); to leave it "
    "unplayed, do nothing"
)
HELD_TOO_LATE = N_(
    "your held reply was for turn %(turn)s of game %(number)s, and %(over)s, so it was not "
    "played. To move now, reply to the latest mail from the game (or use its play link)"
)
GAME_ENDED = N_("the game is over")
TURN_NOW = N_("it is turn %(turn)s now")

NOT_YOURS = N_(
    "a mail to your reply address came from %(sender)s, which is not one of your addresses, "
    "so it was not played: reply from the address we write to"
)
HOW_TO_TAKE_PART = N_(
    "This address is not one of our reply addresses, so your mail went to no game. To play, "
    "ask a tournament director or a friend who plays here to create a game with you; every "
    "mail we send you then has its own reply address: just reply to it."
)
NO_SUCH_GAME_OR_PLAYER = N_("this reply address names a game or player that does not exist")
NO_SUCH_LEAGUE_OR_PLAYER = N_("this reply address names a league or player that does not exist")
NOT_IN_GAME = N_("%(name)s does not play in game %(number)s")
REPLY_ADDRESS_FORGED = N_("this reply address was not issued by us")
NO_HELD_REPLY = N_("this confirmation address names no held reply")
CONFIRMATION_FORGED = N_("this confirmation address was not issued by us")
CONFIRMED_ELSEWHERE = N_(
    "a confirmation of your held reply came from %(sender)s, not from %(address)s, where we "
    "sent the confirmation, so it was not taken"
)


def _league_answer(text: str, locale: str) -> tuple[bool | None, str]:
    """The one answer a reply to an invitation gives, or None and why it gives none (in
    ``locale``): read as prose, like a move reply ("Yes, count me in!"), by
    ``service.leagues.answers``."""
    from service.leagues.answers import read_answer

    return read_answer(text, locale)


def _recipients(row: InboundMessage) -> list[str]:
    """Envelope recipients first, then the headers a forwarding MTA or the client keeps."""
    found = [part.strip() for part in (row.recipient or "").split(",") if part.strip()]
    try:
        headers = BytesHeaderParser(policy=compat32).parsebytes(row.raw)
        fields = ("Delivered-To", "X-Original-To", "To", "Cc")
        values = [str(v) for name in fields for v in (headers.get_all(name) or [])]
        found += [address for _, address in getaddresses(values) if address]
    except Exception:  # garbage headers: the envelope is all we know
        pass
    return list(dict.fromkeys(found))


def _queue(
    session: Session,
    kind: str,
    to: Player | str,
    game: Game | None,
    context: Mapping[str, Any],
    answering: str,
    reply_to: str | None = None,
) -> None:
    """One answer, threaded under the mail it answers (``answering``: its Message-ID)."""
    queue_mail(
        session,
        kind=kind,
        to=to,
        game=game,
        context=context,
        in_reply_to=answering or None,
        reply_to=reply_to,
    )


def error_replies_sent(session: Session, address: str, since: datetime) -> list[datetime]:
    query = select(Outbox.created_at).where(
        Outbox.kind == "error_reply",
        func.lower(Outbox.to_address) == address.lower(),
        Outbox.created_at > since,
    )
    return list(session.scalars(query))


def _error_reply(
    session: Session,
    settings: Settings,
    to: Player | str,
    game: Game | None,
    received: str,
    error: str,
    report: str,
    now: datetime,
    answering: str,
    reply_to: str | None = None,
    *,
    done: bool = False,
    ignored: str = "",
    also: Sequence[str] = (),
    reader: Mapping[str, Any] | None = None,
) -> bool:
    """One error reply unless the address had too many lately; whether it was queued.
    ``reader``: the reader's values when ``to`` is an address of a player (name, links)."""
    address = to if isinstance(to, str) else (to.address or "")
    if not address:
        return False
    limiter = ErrorReplyLimiter(settings.error_replies_per_hour, settings.error_replies_per_day)
    decision = limiter.decide(error_replies_sent(session, address, now - limiter.lookback), now)
    if not decision.allowed:
        log.info("no error reply to %s: %s", address, decision.reason)
        return False
    context: dict[str, Any] = {
        "received": received or "(nothing)",
        "error": error,
        "report": report,
        "quiet_until": quiet_until(limiter, session, address, now),
        "done": done,
        "ignored": ignored,
        # the error lists valid moves itself, in the reader's language (the engine's words)
        "lists_valid": bool(_valid_here(i18n.locale_for(to)).search(error)),
    }
    if also:
        context["also"] = list(also)
    _queue(session, "error_reply", to, game, {**(reader or {}), **context}, answering, reply_to)
    return True


def quiet_until(
    limiter: ErrorReplyLimiter, session: Session, address: str, now: datetime
) -> datetime | None:
    """When the error reply about to go out is the last the limit allows for now: the time
    after which mistakes are answered again (the mail says so, so nobody is left in silence)."""
    sent = [*error_replies_sent(session, address, now - limiter.lookback), now]
    after = limiter.decide(sent, now)
    return None if after.allowed else after.retry_at


def sweep(database: Database, now: datetime | None = None) -> int:
    """Queue again the messages whose processing task was lost; returns how many."""
    now = now or utcnow()
    with database.transaction() as session:
        found = stale(session, now, database.settings.requeue_after)
        for inbound_id in found:
            enqueue(session, Task.PROCESS_INBOUND, inbound_id)
    return len(found)
