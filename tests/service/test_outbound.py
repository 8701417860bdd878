"""The mails the service really queues: template parts, one thread per game, automatic-mail
and unsubscribe headers, signed Reply-To, deadline calendar events, and the daily digest."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage, MIMEPart
from email.policy import EmailPolicy
from typing import Any

from sqlalchemy import select

from service import digest, notify, schedule
from service.config import Settings
from service.db import Database
from service.mail import outbound
from service.mail.addresses import read_reply_address
from service.mail.outbound import Attachment, Envelope, _Policy, build, from_header, message_id
from service.mail.render import RenderedEmail
from service.models import Game, Outbox, Player
from tests.service.conftest import Client
from tests.service.mails import parsed, readable
from tests.service.test_api import start
from tests.service.test_schedule import after_deadline, turn_row

AUTOMATIC = {
    "game_started",
    "turn_resolved",
    "move_receipt",
    "draw_news",
    "default_orders",
    "opponent_moved",
    "your_turn",
    "reminder",
    "vacation",
    "game_over",
    "orders_received",
}
ANSWERS = {"error_reply", "help"}
WITH_CALENDAR = {"game_started", "your_turn", "reminder", "orders_received"}


def outbox(database: Database) -> list[Outbox]:
    with database.transaction() as session:
        return list(session.scalars(select(Outbox).order_by(Outbox.id)))


def alternative(mail: EmailMessage) -> MIMEPart:
    if mail.get_content_type() == "multipart/alternative":
        return mail
    assert mail.get_content_type() == "multipart/mixed"
    return next(p for p in mail.iter_parts() if p.get_content_type() == "multipart/alternative")


def calendar(mail: EmailMessage) -> str | None:
    found = [p for p in mail.walk() if p.get_content_type() == "text/calendar"]
    if not found:
        return None
    assert found[0].get_filename(failobj="").endswith(".ics")
    content = found[0].get_content()
    text = content.decode() if isinstance(content, bytes) else str(content)
    return text.replace("\r\n ", "")


def play_every_kind(database: Database, admin: Client, alice: Client, bob: Client) -> list[int]:
    """Drive games through the service until every kind of mail has been queued once."""
    sealed = start(alice, bob, time_control={"days": 3, "forfeit_after": 0})["id"]
    alice.ok("POST", f"/games/{sealed}/moves", {"turn": 1, "text": "3"})
    deadline = turn_row(database, sealed).deadline
    assert deadline is not None
    schedule.sweep(database, deadline - timedelta(hours=1))  # reminder to Bob
    schedule.sweep(database, after_deadline(database, sealed))  # default orders for Bob
    admin.ok("PATCH", f"/games/{sealed}/deadline", {"deadline": "2031-01-01T12:00:00Z"})
    alice.ok("POST", "/players/me/vacation", {"days": 2})
    moves = start(alice, bob, "dicecountdown")["id"]
    alice.ok("POST", f"/games/{moves}/moves", {"turn": 1, "text": "take 1"})
    alice.ok("POST", f"/games/{moves}/draw/offer")
    bob.ok("POST", f"/games/{moves}/resign")
    with database.transaction() as session:
        game = session.get_one(Game, sealed)
        player = session.get_one(Player, alice.id)
        notify.orders_received(session, game, player, "2", "ab" * 32, "<m1@example.org>")
        context = {"received": "e9-e9", "error": "no square e9 (C-1)"}
        notify.queue_mail(
            session,
            kind="error_reply",
            to=player,
            game=game,
            context=context,
            in_reply_to="<m2@example.org>",
        )
        notify.queue_mail(session, kind="help", to="stranger@example.net", game=None, context={})
    return [sealed, moves]


def test_every_notification_is_a_threaded_template_mail(
    database: Database, admin: Client, alice: Client, bob: Client
) -> None:
    play_every_kind(database, admin, alice, bob)
    rows = outbox(database)
    assert {row.kind for row in rows} == AUTOMATIC | ANSWERS
    settings = database.settings
    ids = [str(parsed(row)["Message-ID"]) for row in rows]
    assert len(set(ids)) == len(rows)
    for row in rows:
        check_mail(settings, row)
    assert all(row.sent_at for row in rows)
    assert len(list(settings.mail_dir.glob("*.eml"))) == len(rows)


def check_mail(settings: Settings, row: Outbox) -> None:
    mail = parsed(row)
    kind = row.kind
    parts = [p.get_content_type() for p in alternative(mail).iter_parts()]
    assert parts == ["text/plain", "text/html"], kind
    assert mail["Message-ID"] and mail["Date"] and mail["From"] == from_header(settings.mail_from)
    answering = kind in ANSWERS or kind == "orders_received"  # queued with in_reply_to
    expected = "auto-replied" if answering else "auto-generated"
    assert mail["Auto-Submitted"] == expected, kind
    if row.game_id is None:
        assert mail["Reply-To"] is None and mail["List-Unsubscribe"] is None
        return
    root = f"<game-{row.game_id}@{settings.mail_domain}>"
    assert root in str(mail["References"]).split(), kind
    if kind == "error_reply":
        assert mail["In-Reply-To"] == "<m2@example.org>"
    elif kind == "orders_received":
        assert mail["In-Reply-To"] == "<m1@example.org>"
    else:
        assert mail["In-Reply-To"] == root
    token = read_reply_address(settings.secret(), settings.mail_domain, str(mail["Reply-To"]))
    assert (token.game_id, token.player_id) == (row.game_id, row.player_id)
    unsubscribe = str(mail["List-Unsubscribe"]).strip()
    assert unsubscribe.startswith(f"<{settings.public_url}/mail/") and unsubscribe.endswith(">")
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    event = calendar(mail)
    if kind in WITH_CALENDAR:
        assert event is not None, kind
        assert f"UID:game-{row.game_id}-turn-" in event and "DTSTART:" in event
    else:
        assert event is None, kind


def test_a_reply_address_names_the_turn_the_mail_was_about(
    database: Database, alice: Client, bob: Client
) -> None:
    game = start(alice, bob)["id"]
    alice.ok("POST", f"/games/{game}/moves", {"turn": 1, "text": "3"})
    bob.ok("POST", f"/games/{game}/moves", {"turn": 1, "text": "1"})
    settings = database.settings
    turns = {
        row.kind: read_reply_address(
            settings.secret(), settings.mail_domain, str(parsed(row)["Reply-To"])
        ).turn
        for row in outbox(database)
        if row.player_id == bob.id
    }
    assert turns == {"game_started": 1, "turn_resolved": 2}


def test_notices_of_one_deadline_share_one_calendar_event(
    database: Database, admin: Client, alice: Client, bob: Client
) -> None:
    game = start(alice, bob, time_control={"days": 3})["id"]
    alice.ok("POST", f"/games/{game}/moves", {"turn": 1, "text": "3"})
    deadline = turn_row(database, game).deadline
    assert deadline is not None
    schedule.sweep(database, deadline - timedelta(hours=1))
    admin.ok("PATCH", f"/games/{game}/deadline", {"deadline": "2031-01-01T12:00:00Z"})
    events = {
        row.kind: calendar(parsed(row))
        for row in outbox(database)
        if row.player_id == bob.id and row.kind in WITH_CALENDAR
    }
    assert set(events) == {"game_started", "reminder", "your_turn"}
    uids = {
        line for text in events.values() if text for line in text.split("\r\n") if "UID" in line
    }
    assert uids == {f"UID:game-{game}-turn-1@{database.settings.mail_domain}"}
    assert "DTSTART:20310101T120000Z" in str(events["your_turn"])
    assert f"DTSTART:{deadline:%Y%m%dT%H%M%S}Z" in str(events["reminder"])


# -- the daily digest ---------------------------------------------------------------------


def digest_reader(alice: Client) -> None:
    alice.ok("PATCH", "/players/me", {"notify": "digest", "time_zone": "Asia/Tokyo"})


def test_a_digest_reader_gets_game_news_once_a_day_in_one_mail(
    database: Database, alice: Client, bob: Client
) -> None:
    digest_reader(alice)
    game = start(alice, bob)["id"]
    alice.ok("POST", f"/games/{game}/moves", {"turn": 1, "text": "3"})
    bob.ok("POST", f"/games/{game}/moves", {"turn": 1, "text": "1"})
    held = [row for row in outbox(database) if row.player_id == alice.id]
    assert {row.kind for row in held} == {"held:game_started", "held:turn_resolved"}
    assert not any(row.sent_at for row in held)
    files = {path.name for path in database.settings.mail_dir.glob("*.eml")}
    assert not any(f"{row.id:08d}-" in name for row in held for name in files)

    created = held[0].created_at
    before = digest.morning(created, "Asia/Tokyo", database.settings.digest_hour)
    assert schedule.sweep(database, created + timedelta(minutes=1))["digests"] == 0
    next_morning = before + timedelta(days=1, minutes=1)
    assert schedule.sweep(database, next_morning)["digests"] == 1
    assert schedule.sweep(database, next_morning + timedelta(hours=2))["digests"] == 0

    rows = [row for row in outbox(database) if row.player_id == alice.id]
    digests = [row for row in rows if row.kind == "digest"]
    assert len(digests) == 1 and digests[0].sent_at is not None
    assert all(row.sent_at for row in rows)
    text = readable(digests[0])
    assert f"Duel #{game}" in text and "- 3 against 1" in text
    mail = parsed(digests[0])
    assert mail["Auto-Submitted"] == "auto-generated" and mail["List-Unsubscribe"]
    settings = database.settings
    address = next(
        word for word in text.split() if word.startswith("play+") and "@" in word
    ).rstrip(".")
    token = read_reply_address(settings.secret(), settings.mail_domain, address)
    assert (token.game_id, token.player_id, token.turn) == (game, alice.id, 2)


def test_held_mail_is_released_when_the_reader_goes_back_to_every_mail(
    database: Database, alice: Client, bob: Client
) -> None:
    digest_reader(alice)
    start(alice, bob)
    alice.ok("PATCH", "/players/me", {"notify": "each"})
    later = outbox(database)[0].created_at + timedelta(days=1, hours=1)
    assert schedule.sweep(database, later)["digests"] == 0
    mine = [row for row in outbox(database) if row.player_id == alice.id]
    assert [(row.kind, bool(row.sent_at)) for row in mine] == [("game_started", True)]


def test_answers_to_a_digest_readers_mail_are_never_held(
    database: Database, alice: Client, bob: Client
) -> None:
    digest_reader(alice)
    game = start(alice, bob)["id"]
    with database.transaction() as session:
        row = notify.queue_mail(
            session,
            kind="your_turn",
            to=session.get_one(Player, alice.id),
            game=session.get_one(Game, game),
            context={},
            in_reply_to="<board@example.org>",
        )
        assert row is not None and row.kind == "your_turn"


def test_a_batch_counts_only_the_mail_it_sent_now(database: Database, alice: Client) -> None:
    """Issue 23: ``send_many`` counted a row sent already (skipped) as sent."""
    with database.transaction() as session:
        player = session.get_one(Player, alice.id)
        rows = [
            notify.queue_mail(session, kind="help", to=player, game=None, context={})
            for _ in range(3)
        ]
        ids = [row.id for row in rows if row is not None]
    assert len(ids) == 3  # sent as they were queued (the tests run tasks inline) ...
    with database.transaction() as session:
        for row in session.scalars(select(Outbox).where(Outbox.id.in_(ids[1:]))):
            row.sent_at = None  # ... so two are made unsent again; the first stays sent
    assert notify.send_many(database, ids) == 2
    assert notify.send_many(database, ids) == 0
    assert all(row.sent_at is not None for row in outbox(database) if row.id in ids)


def test_a_row_that_cannot_be_rendered_costs_its_batch_nothing(
    database: Database, alice: Client, monkeypatch: Any
) -> None:
    """Issue 23: rendered together without a savepoint per row, a row whose render fails is
    left as it was (no subject without a body), the others are rendered and sent, and the
    failure is kept on the row for its next try."""
    with database.transaction() as session:
        player = session.get_one(Player, alice.id)
        rows = [
            notify.queue_mail(session, kind="help", to=player, game=None, context={})
            for _ in range(3)
        ]
        ids = [row.id for row in rows if row is not None]
    with database.transaction() as session:
        for row in session.scalars(select(Outbox).where(Outbox.id.in_(ids))):
            row.sent_at, row.subject, row.body = None, "", ""
    envelope = notify._envelope

    def failing(settings: Settings, row: Outbox, *args: Any) -> Any:
        if row.id == ids[1]:
            raise RuntimeError("no envelope today")
        return envelope(settings, row, *args)

    monkeypatch.setattr(notify, "_envelope", failing)
    assert notify.send_many(database, ids) == 2
    kept = {row.id: row for row in outbox(database) if row.id in ids}
    assert (kept[ids[1]].subject, kept[ids[1]].body, kept[ids[1]].sent_at) == ("", "", None)
    assert "no envelope today" in (kept[ids[1]].last_error or "")
    assert all(kept[i].sent_at is not None and kept[i].body for i in (ids[0], ids[2]))


def test_headers_parsed_once_give_the_bytes_of_a_fresh_parse(monkeypatch: Any) -> None:
    """Issue 23: a header value is parsed once and shared by every message that sets it; the
    stored message is byte for byte what the email package writes parsing each afresh."""
    envelopes = [
        Envelope(
            sender=sender,
            to_name=name,
            to_address=address,
            date=datetime(2026, 11, 26, 6, minute, tzinfo=UTC),
            message_id=message_id("pbem.example", game, 40 + minute, "opponent_moved"),
            reply_to=f"pbem+g{game}.t3.x@pbem.example" if game else None,
            in_reply_to="<a@b.example>" if minute % 2 else None,
            references=("<game-7@pbem.example>", "<a@b.example>") if minute % 2 else (),
            auto_reply=bool(minute % 2),
            unsubscribe_url="https://pbem.example/mail/abc/unsubscribe",
        )
        for minute, (sender, name, address, game) in enumerate(
            [
                ("pbem@pbem.example", "Bob", "bob@example.org", 7),
                ("Play <pbem@pbem.example>", "Zoë Ñandú", "zoe@example.org", 7),
                ("pbem@pbem.example", 'A "quoted", name', "a.b+c@example.org", None),
                ("pbem@pbem.example", "Bob", "bob@example.org", 7),
            ]
        )
    ]
    mails = [
        RenderedEmail("[pbem #7 Elasta] Alice moved", "Text =\nline two\n", "<p>HTML</p>\n"),
        RenderedEmail("Ünïcode subject " * 9, "naïve text\n" * 3, "<p>naïve</p>\n"),
    ]
    ics = Attachment("turn.ics", b"BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n")
    cases = [(e, m, a) for e in envelopes for m in mails for a in ((), (ics,))]
    shared = [build(*case).as_string() for case in cases * 2]

    class Fresh(_Policy):
        def header_store_parse(self, name: str, value: Any) -> tuple[str, Any]:
            return EmailPolicy.header_store_parse(self, name, value)

    monkeypatch.setattr(outbound, "POLICY", Fresh())
    fresh = [build(*case).as_string() for case in cases * 2]
    strip = re.compile(r"=+\d{19}==")  # the MIME boundaries are random in both
    assert [strip.sub("", text) for text in shared] == [strip.sub("", text) for text in fresh]
