"""The gateway on a real database, tasks run inline: a reply is stored once, read, checked for
who wrote it, acted on through the service layer, and answered once (or never, for machines)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from flask import Flask
from sqlalchemy import func, select

from service import games
from service.db import Database
from service.mail import gateway, webhook
from service.mail.models import InboundMessage
from service.models import Order, Outbox
from service.tasks import Task
from tests.service.gateway_kit import (
    SHAPES,
    current_address,
    game_row,
    inbound,
    latest,
    mails,
    make_game,
    player_id,
    reply,
    reply_address,
    text_of,
    with_attachment,
)

ALICE, BOB, CAROL = "alice@example.org", "bob@example.org", "carol@example.org"


def send(database: Database, raw: bytes, channel: str = "inject") -> InboundMessage:
    return inbound(database, gateway.receive(database, raw, channel).id)


def error_replies(database: Database, address: str) -> list[str]:
    return [row.body for row in mails(database, address, "error_reply")]


@pytest.mark.parametrize("shape", SHAPES)
def test_a_reply_from_any_client_plays_the_move(database: Database, shape: str) -> None:
    game_id, _, _ = make_game(database, options={"pile": "7"})
    row = send(database, reply(latest(database, ALICE, game_id), ALICE, "take 2", shape=shape))
    assert row.status == "processed", row.result
    assert game_row(database, game_id)["turn"] == 2
    assert "take 2" in text_of(latest(database, BOB, game_id))
    assert not error_replies(database, ALICE)


def test_the_same_message_twice_is_stored_and_played_once(database: Database) -> None:
    game_id, _, _ = make_game(database)
    raw = reply(latest(database, ALICE, game_id), ALICE, "take 1")
    first = gateway.receive(database, raw, "smtp")
    again = gateway.receive(database, raw, "imap")
    assert again == gateway.Received(first.id, True)
    assert gateway.process(database, first.id) == "processed"
    with database.transaction() as session:
        assert session.scalar(select(func.count()).select_from(Order)) == 1
        assert session.scalar(select(func.count()).select_from(InboundMessage)) == 1


def test_a_message_without_message_id_is_deduplicated_by_its_bytes(database: Database) -> None:
    game_id, _, _ = make_game(database)
    raw = reply(latest(database, ALICE, game_id), ALICE, "take 1")
    raw = b"\n".join(line for line in raw.split(b"\n") if not line.startswith(b"Message-ID"))
    assert gateway.receive(database, raw, "inject").duplicate is False
    assert gateway.receive(database, raw, "inject").duplicate is True


def test_sealed_orders_are_confirmed_with_their_receipt(database: Database) -> None:
    game_id, _, _ = make_game(database, "duel")
    row = send(database, reply(latest(database, ALICE, game_id), ALICE, "2"))
    assert row.status == "processed", row.result
    confirmation = latest(database, ALICE, game_id)
    with database.transaction() as session:
        order = session.scalars(select(Order).where(Order.status == "current")).one()
    assert order.receipt and order.receipt in text_of(confirmation)
    assert "Orders received" in str(confirmation["Subject"])
    assert "2" not in text_of(latest(database, BOB, game_id)).split("Receipt")[0][-5:]


def test_a_reply_to_an_outdated_mail_is_refused_with_the_current_board(
    database: Database,
) -> None:
    game_id, alice, _ = make_game(database, options={"pile": "7"})
    old = reply_address(database, game_id, alice, 1)
    send(database, reply(latest(database, ALICE, game_id), ALICE, "take 1"))
    bob_mail = latest(database, BOB, game_id)
    send(database, reply(bob_mail, BOB, "take 1"))
    row = send(database, reply(None, ALICE, "take 2", to=old))
    assert row.status == "rejected"
    assert game_row(database, game_id)["turn"] == 3
    error = text_of(latest(database, ALICE, game_id))
    assert "turn 1 is over" in error and "ooooo" in error


@pytest.mark.parametrize("sender", [CAROL, "alice@evil.example"])
def test_a_foreign_sender_changes_nothing_and_learns_nothing(
    database: Database, sender: str
) -> None:
    game_id, _, _ = make_game(database)
    before = game_row(database, game_id)
    row = send(database, reply(latest(database, ALICE, game_id), sender, "take 1"))
    assert (row.status, game_row(database, game_id)) == ("rejected", before)
    assert "not one of your addresses" in (row.result or "")
    assert mails(database, sender, "error_reply") == []
    told = text_of(latest(database, ALICE))  # the owner of the reply address is told
    assert sender in told and "not one of your addresses" in told


def test_a_forged_token_changes_nothing(database: Database) -> None:
    game_id, alice, _ = make_game(database)
    real = current_address(database, game_id, alice)
    local, _, domain = real.partition("@")
    forged = local[:-3] + ("aaa" if not local.endswith("aaa") else "bbb") + "@" + domain
    row = send(database, reply(None, ALICE, "take 1", to=forged))
    assert row.status == "rejected" and "not issued by us" in (row.result or "")
    assert game_row(database, game_id)["turn"] == 1


def test_a_token_of_another_game_is_refused(database: Database) -> None:
    first, _, _ = make_game(database)
    second, _, _ = make_game(database)
    carol_game = reply_address(database, first, player_id(database, BOB), 1)
    # Bob's own address for game 1, used by Alice: the sender does not own the token.
    row = send(database, reply(None, ALICE, "take 1", to=carol_game))
    assert row.status == "rejected"
    assert game_row(database, first)["turn"] == 1 and game_row(database, second)["turn"] == 1


def test_mail_to_an_unknown_address_is_answered_once_and_only_to_a_player(
    database: Database,
) -> None:
    make_game(database)
    for sender in (ALICE, ALICE, CAROL):
        row = send(database, reply(None, sender, "hello, can I play?", to="info@pbem.localhost"))
        assert row.status == "rejected"
    assert len(mails(database, ALICE, "help")) == 1
    assert mails(database, CAROL) == []  # not a player: no mail to a From nobody vouches for
    assert "reply address" in text_of(latest(database, ALICE))


def test_mail_for_another_domain_is_ignored(database: Database) -> None:
    row = send(database, reply(None, CAROL, "take 1", to="someone@example.com"))
    assert row.status == "ignored" and not mails(database, CAROL)


@pytest.mark.parametrize(
    "headers",
    [
        {"Auto-Submitted": "auto-replied"},
        {"Precedence": "bulk"},
        {"X-Autoreply": "yes"},
    ],
)
def test_machine_mail_is_never_answered(database: Database, headers: dict[str, str]) -> None:
    game_id, _, _ = make_game(database)
    raw = reply(latest(database, ALICE, game_id), ALICE, "I am out of office", headers=headers)
    before = len(mails(database, ALICE))
    row = send(database, raw)
    assert row.status == "ignored" and len(mails(database, ALICE)) == before


def test_a_bounce_is_never_answered(database: Database) -> None:
    raw = (
        b"From: MAILER-DAEMON@example.org\r\nTo: play+x@pbem.localhost\r\n"
        b"Subject: Undelivered Mail Returned to Sender\r\nContent-Type: text/plain\r\n\r\n"
        b"The mail system could not deliver your message.\r\n"
    )
    row = send(database, raw)
    assert row.status == "ignored" and not mails(database, "mailer-daemon@example.org")


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("", "nothing typed"),
        ("take 9", "take from 1 to 2 stones"),
        ("take 1\ntake 2", "we read 2 different moves in your reply ('take 1', 'take 2')"),
        ("resign now", "Ignored: 'resign now' (not a command alone on its line: to resign,"),
    ],
)
def test_a_bad_reply_gets_one_clear_answer(database: Database, typed: str, expected: str) -> None:
    game_id, _, _ = make_game(database)
    row = send(database, reply(latest(database, ALICE, game_id), ALICE, typed))
    assert row.status == "rejected", row.result
    [answer] = error_replies(database, ALICE)
    assert expected in answer.replace("=\n", "") or expected in text_of(latest(database, ALICE))
    assert game_row(database, game_id)["turn"] == 1


def test_a_move_meant_for_another_game_is_refused_by_this_games_rules(
    database: Database,
) -> None:
    game_id, _, _ = make_game(database)
    row = send(database, reply(latest(database, ALICE, game_id), ALICE, "a1-a3"))
    assert row.status == "rejected"
    assert "a1-a3" in text_of(latest(database, ALICE, game_id))


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\x00\xff garbage \xfe",
        b"From: alice@example.org\r\nTo: play+abc@pbem.localhost\r\nContent-Type: multipart/mixed;"
        b' boundary="x"\r\n\r\n--x\r\nContent-Type: image/png\r\n\r\nPNG\r\n--x--\r\n',
        b"Content-Type: multipart/alternative; boundary=\r\n\r\n--\r\n\r\n",
    ],
)
def test_broken_mail_is_kept_and_never_crashes(database: Database, raw: bytes) -> None:
    row = send(database, raw)
    assert row.status in ("ignored", "rejected") and row.raw == raw


def test_a_large_attachment_does_not_hide_the_move(database: Database) -> None:
    game_id, alice, _ = make_game(database)
    to = current_address(database, game_id, alice)
    row = send(database, with_attachment(ALICE, to, "take 1", 10 * 1024 * 1024))
    assert row.status == "processed" and game_row(database, game_id)["turn"] == 2


def test_several_commands_are_each_reported(database: Database) -> None:
    game_id, _, _ = make_game(database, options={"pile": "7"})
    typed = "Hi Bob,\npreview take 1\ntake 1\ndraw\nhelp"
    row = send(database, reply(latest(database, ALICE, game_id), ALICE, typed))
    assert row.status == "processed"
    result = row.result or ""
    for line in ("'take 1': played", "'draw': draw offered", "'help': the commands are below"):
        assert line in result
    assert "'preview take 1': nothing stored" in result
    answer = text_of(latest(database, ALICE, game_id))
    assert "What we did with your mail" in answer and "draw offered" in answer


def test_board_preview_and_draw_by_mail(database: Database) -> None:
    game_id, _, _ = make_game(database, options={"pile": "7"})
    row = send(database, reply(latest(database, ALICE, game_id), ALICE, "preview take 2\nboard"))
    assert row.status == "processed" and game_row(database, game_id)["turn"] == 1
    assert "ooooo" in (row.result or "")
    send(database, reply(latest(database, ALICE, game_id), ALICE, "draw"))
    row = send(database, reply(latest(database, BOB, game_id), BOB, "accept"))
    assert "draw agreed" in (row.result or "")
    assert game_row(database, game_id)["status"] == "finished"


def test_resign_by_mail_ends_the_game(database: Database) -> None:
    game_id, _, _ = make_game(database)
    row = send(database, reply(latest(database, BOB, game_id), BOB, "Resign."))
    assert row.status == "processed" and game_row(database, game_id)["status"] == "finished"
    assert "resigned" in text_of(latest(database, ALICE, game_id))


def test_wait_holds_a_sealed_turn_until_the_deadline(database: Database) -> None:
    game_id, _, _ = make_game(database, "duel")
    send(database, reply(latest(database, ALICE, game_id), ALICE, "3\nwait"))
    send(database, reply(latest(database, BOB, game_id), BOB, "1"))
    assert game_row(database, game_id)["turn"] == 1
    send(database, reply(latest(database, ALICE, game_id), ALICE, "wait off"))
    assert game_row(database, game_id)["turn"] == 2


def test_vacation_on_and_off_by_mail(database: Database) -> None:
    game_id, _, _ = make_game(database)
    row = send(database, reply(latest(database, BOB, game_id), BOB, "vacation on"))
    assert "on vacation until" in (row.result or "")
    row = send(database, reply(latest(database, BOB, game_id), BOB, "vacation on"))
    assert "already on vacation" in (row.result or "")
    row = send(database, reply(latest(database, BOB, game_id), BOB, "vacation off"))
    assert "vacation ended" in (row.result or "")


def test_error_replies_to_one_address_are_rate_limited(database: Database) -> None:
    game_id, _, _ = make_game(database)
    for attempt in range(7):
        send(database, reply(latest(database, ALICE, game_id), ALICE, f"take {attempt + 5}"))
    assert len(error_replies(database, ALICE)) == database.settings.error_replies_per_hour


def test_a_crash_is_kept_as_failed_and_changes_nothing(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, _, _ = make_game(database)
    original_submit = games.submit

    def explode(*args: object, **kwargs: object) -> object:
        original_submit(*args, **kwargs)  # type: ignore[arg-type]
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(games, "submit", explode)
    raw = reply(latest(database, ALICE, game_id), ALICE, "take 1")
    row = send(database, raw)
    assert row.status == "failed" and "disk on fire" in (row.result or "")
    assert row.raw == raw and game_row(database, game_id)["turn"] == 1
    assert "went wrong on our side" in text_of(latest(database, ALICE))
    assert gateway.process(database, row.id) == "failed"


def test_a_lost_task_is_found_by_the_sweep(database: Database) -> None:
    from datetime import timedelta

    from service.models import utcnow

    game_id, _, _ = make_game(database)
    raw = reply(latest(database, ALICE, game_id), ALICE, "take 1")
    database.dispatch = lambda name, args: None  # the broker lost the task
    stored = gateway.receive(database, raw, "smtp")
    assert inbound(database, stored.id).status == "received"
    assert gateway.sweep(database, utcnow()) == 0
    found: list[tuple[str, tuple[object, ...]]] = []
    database.dispatch = lambda name, args: found.append((name, args))
    assert gateway.sweep(database, utcnow() + timedelta(minutes=5)) == 1
    assert found == [(Task.PROCESS_INBOUND, (stored.id,))]


def test_the_webhook_checks_the_signature(database: Database) -> None:
    from dataclasses import replace

    from service.app import create_app
    from tests.service.conftest import run_inline

    settings = replace(database.settings, inbound_webhook_secret="s3cret")
    app: Flask = create_app(settings, dispatch=run_inline)
    client = app.test_client()
    game_id, _, _ = make_game(database)
    raw = reply(latest(database, ALICE, game_id), ALICE, "take 1")
    assert client.post("/inbound/mail", data=raw).status_code == 401
    bad = {webhook.SIGNATURE_HEADER: webhook.signature("wrong", raw)}
    assert client.post("/inbound/mail", data=raw, headers=bad).status_code == 403
    assert (
        client.post("/inbound/mail", data=raw, headers={"Authorization": "Bearer x"}).status_code
        == 403
    )
    good = {webhook.SIGNATURE_HEADER: webhook.signature("s3cret", raw)}
    answer = client.post("/inbound/mail", data=raw, headers=good)
    assert answer.status_code == 202 and answer.get_json()["duplicate"] is False
    again = client.post("/inbound/mail", data=raw, headers={"Authorization": "Bearer s3cret"})
    assert again.status_code == 202 and again.get_json()["duplicate"] is True
    assert game_row(database, game_id)["turn"] == 2
    big = b"x" * (settings.max_body_bytes + 10)
    signed = {webhook.SIGNATURE_HEADER: webhook.signature("s3cret", big)}
    assert client.post("/inbound/mail", data=big, headers=signed).status_code == 202
    with database.transaction() as session:
        assert session.scalar(select(func.count()).select_from(Outbox)) > 0


def test_the_webhook_is_off_without_a_secret(app: Flask) -> None:
    assert app.test_client().post("/inbound/mail", data=b"x").status_code == 404


def test_a_lost_processing_task_is_queued_again_once_per_lease(database: Database) -> None:
    """The sweep re-queues an unprocessed message, but not on every sweep while it waits."""
    raw = b"Subject: lost\r\n\r\ntake 1\r\n"
    with database.transaction() as session:
        row = InboundMessage(
            dedup_key=gateway.dedup_key(raw),
            content_hash="0" * 64,
            raw=raw,
            channel="smtp",
            status=gateway.RECEIVED,
        )
        session.add(row)
        session.flush()
        lease = timedelta(minutes=2)
        stored_id, later = row.id, row.received_at + lease
    with database.transaction() as session:
        assert gateway.stale(session, later, lease) == [stored_id]
    with database.transaction() as session:
        assert gateway.stale(session, later + timedelta(seconds=59), lease) == []
    with database.transaction() as session:
        assert gateway.stale(session, later + lease, lease) == [stored_id]
