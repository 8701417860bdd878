"""Integration (issue 11): a scripted two-player mail conversation. Replies go in through the
real SMTP listener, a real Celery worker (with beat, sweeping every second) acts on them, and
every check reads the mails the service's SMTP sender delivered to a real SMTP sink.

It shows a draw offer reaching the opponent and being declined; the last error reply allowed
announcing the limit (and a well-formed move still played after it); no reminder for a turn
that opened inside the reminder's offset; a forfeit warning before the forfeit; and the
second seat's board turned with the last move marked.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import select

from service.db import Database
from service.mail.models import InboundMessage
from service.mail.render import LAST_MOVE_MARK
from service.mail.smtpd import Listener
from service.models import Game, Turn, utcnow
from tests.service.gateway_kit import game_row, make_game, reply, text_of
from tests.service.live import live_database, live_env, wait_for, worker_processes
from tests.service.test_gateway_smtp import Sink, SinkController, smtp_send

pytestmark = pytest.mark.integration

ALICE, BOB = "alice@example.org", "bob@example.org"
PER_HOUR = 2


@pytest.fixture
def sink() -> Iterator[tuple[Sink, int]]:
    handler = Sink()
    controller = SinkController(handler, hostname="127.0.0.1", port=0)
    controller.start()
    yield handler, controller.port
    controller.stop()


@pytest.fixture
def env(migrated: str, tmp_path: Path, sink: tuple[Sink, int]) -> dict[str, str]:
    return {
        **live_env(migrated, tmp_path / "var"),
        "PBEM_SMTP_HOST": "127.0.0.1",
        "PBEM_SMTP_PORT": str(sink[1]),
        "PBEM_SMTP_STARTTLS": "0",
        "PBEM_SECRET_KEY": "live-test-secret",
        "PBEM_ERROR_REPLIES_PER_HOUR": str(PER_HOUR),
        "PBEM_REMINDER_HOURS": "24",
        "PBEM_SMTPD_CHECK_SENDERS": "0",  # unsigned replies: see test_sender_authentication
    }


@pytest.fixture
def live(env: dict[str, str]) -> Iterator[Database]:
    with live_database(env) as database:
        yield database


def of_game(mailbox: Sink, who: str, game_id: int) -> list[EmailMessage]:
    return [m for m in mailbox.all(who) if f"[pbem #{game_id} " in str(m["Subject"])]


def with_subject(mailbox: Sink, who: str, game_id: int, words: str) -> list[EmailMessage]:
    return [m for m in of_game(mailbox, who, game_id) if words in str(m["Subject"])]


def answer(listener: Listener, mailbox: Sink, who: str, game_id: int, typed: str) -> None:
    """``who`` replies to their latest mail of the game, through the SMTP listener."""
    original = of_game(mailbox, who, game_id)[-1]
    smtp_send(listener, reply(original, who, typed), who, str(original["Reply-To"]))


def html_of(mail: EmailMessage) -> str:
    part = mail.get_body(("html",))
    assert isinstance(part, EmailMessage)
    return str(part.get_content())


def flat(text: str) -> str:
    return " ".join(text.split())


def inbound_results(database: Database) -> list[str]:
    with database.transaction() as session:
        query = select(InboundMessage.result).order_by(InboundMessage.id)
        return [result or "" for result in session.scalars(query)]


def turn_one(database: Database, game_id: int) -> tuple[list[float], int]:
    with database.transaction() as session:
        turn = session.scalar(select(Turn).where(Turn.game_id == game_id, Turn.number == 1))
        assert turn is not None
        return list(turn.reminders_sent), session.get_one(Game, game_id).turn


def close_turn(database: Database, game_id: int) -> None:
    """The current turn's deadline passes (the beat's sweep resolves it)."""
    with database.transaction() as session:
        game = session.get_one(Game, game_id)
        turn = session.scalar(select(Turn).where(Turn.game_id == game_id, Turn.number == game.turn))
        assert turn is not None
        turn.deadline = utcnow() - timedelta(seconds=1)


def test_a_two_player_mail_conversation(
    live: Database, env: dict[str, str], sink: tuple[Sink, int]
) -> None:
    mailbox, _ = sink
    listener = Listener(live, "127.0.0.1", 0)
    listener.start()
    try:
        with worker_processes(env, count=1, beat=True):
            epa, _, _ = make_game(live, game="epaminondas")
            elasta, _, _ = make_game(live, game="elasta")
            with live.transaction() as session:  # one-day sealed turns, two misses forfeit
                game = session.get_one(Game, elasta)
                game.time_control = {**game.time_control, "days": 1, "forfeit_after": 2}
                turn = session.scalar(select(Turn).where(Turn.game_id == elasta))
                assert turn is not None
                turn.deadline = turn.started_at + timedelta(days=1)

            # a draw offer made with a move reaches Bob, who declines it
            wait_for(lambda: of_game(mailbox, ALICE, epa), "mail the start")
            answer(listener, mailbox, ALICE, epa, "draw\na1-a3")
            offered = wait_for(
                lambda: with_subject(mailbox, BOB, epa, "Alice (White) offered a draw"),
                "tell Bob of the offer",
            )[0]
            moved = wait_for(
                lambda: with_subject(mailbox, BOB, epa, "played a1-a3"), "tell Bob of the move"
            )[0]
            assert "Draw offer: Alice (White) offers a draw" in flat(text_of(offered))
            answer(listener, mailbox, BOB, epa, "decline")
            wait_for(
                lambda: with_subject(mailbox, ALICE, epa, "Bob (Black) declined the draw offer"),
                "tell Alice of the decline",
            )

            # the second seat's board, turned, with the last move marked
            board = text_of(moved)
            lines = board.splitlines()
            header = next(line for line in lines if line.strip().startswith(("a b", "n m")))
            assert header.split()[0] == "n"
            assert "Last move (turn 1): White a1-a3 (marked < and ^)" in board
            assert next(line for line in lines if line.startswith("  1 |")).endswith("<")
            assert html_of(moved).count(LAST_MOVE_MARK) == 2

            # mistakes: answered up to the limit, the last answer announcing it
            for count in range(1, PER_HOUR + 2):
                answer(listener, mailbox, BOB, epa, "zz-zz")
                if count <= PER_HOUR:
                    wait_for(
                        lambda n=count: len(with_subject(mailbox, BOB, epa, "could not use")) == n,
                        "answer a mistake",
                    )
            wait_for(lambda: "rate limit" in inbound_results(live)[-1], "hold back the answer")
            errors = with_subject(mailbox, BOB, epa, "could not use")
            assert len(errors) == PER_HOUR
            assert "one mistake too many" not in text_of(errors[0])
            notice = flat(text_of(errors[-1]))
            assert "this is the last answer to a mistake we send you until" in notice
            assert 'Reply "help"' in notice
            # ... and a well-formed move is still played, and receipted in one line
            answer(listener, mailbox, BOB, epa, "a11-a10")
            wait_for(lambda: game_row(live, epa)["turn"] == 3, "play Bob's move")
            wait_for(lambda: with_subject(mailbox, BOB, epa, "You played a11-a10"), "receipt")

            # no reminder for a turn that opened inside the reminder's 24 hours
            wait_for(lambda: turn_one(live, elasta)[0] == [24.0], "consider the reminder")
            assert not with_subject(mailbox, ALICE, elasta, "Reminder")

            # a missed deadline warns of the forfeit the next miss brings
            wait_for(lambda: of_game(mailbox, BOB, elasta), "mail the sealed game")
            answer(listener, mailbox, BOB, elasta, "01234567")
            wait_for(lambda: with_subject(mailbox, BOB, elasta, "Orders received"), "receipt")
            close_turn(live, elasta)
            warned = wait_for(
                lambda: with_subject(mailbox, ALICE, elasta, "Deadline missed"), "warn Alice"
            )[0]
            assert "Miss the next deadline and you forfeit the game" in flat(text_of(warned))
            wait_for(lambda: with_subject(mailbox, BOB, elasta, "Turn 1 resolved"), "resolve")
            answer(listener, mailbox, BOB, elasta, "76543210")
            wait_for(lambda: with_subject(mailbox, BOB, elasta, "received for turn 2"), "receipt")
            close_turn(live, elasta)
            over = wait_for(lambda: with_subject(mailbox, ALICE, elasta, "Game over"), "forfeit")
    finally:
        listener.stop()
    assert "forfeited after 2 missed turns" in str(over[0]["Subject"])
    alice_mail = [str(m["Subject"]) for m in of_game(mailbox, ALICE, elasta)]
    warning_at = next(i for i, s in enumerate(alice_mail) if "Deadline missed" in s)
    assert warning_at < next(i for i, s in enumerate(alice_mail) if "Game over" in s)
    assert not with_subject(mailbox, ALICE, elasta, "Reminder")
