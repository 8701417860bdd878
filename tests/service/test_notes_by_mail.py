"""Issue 25, 2: private notes per game by mail and on the play page, and their secrecy.

``note <text>`` (``Notiz``, ``nota``, ``заметка``...) sets the author's note, ``note -``
clears it; the author's own game mails show it, nobody else ever sees it."""

from __future__ import annotations

from service import notes
from service.db import Database
from service.mail import gateway
from service.mail.models import InboundMessage
from service.models import Game, Player
from tests.service.gateway_kit import inbound, latest, mails, make_game, reply, text_of

ALICE, BOB = "alice@example.org", "bob@example.org"
SECRET = "Plan: keep 3 for the end -- zq8x"


def send(database: Database, raw: bytes) -> InboundMessage:
    return inbound(database, gateway.receive(database, raw, "inject").id)


def note_of(database: Database, game_id: int, player_id: int) -> str | None:
    with database.transaction() as session:
        game = session.get_one(Game, game_id)
        return notes.get(session, game, session.get_one(Player, player_id))


def test_a_reply_plays_the_move_and_saves_the_note(database: Database) -> None:
    game_id, alice, bob = make_game(database, options={"pile": "15"})
    row = send(database, reply(latest(database, ALICE, game_id), ALICE, f"take 2\nnote {SECRET}"))
    assert row.status == "processed", row.result
    assert note_of(database, game_id, alice) == SECRET
    assert note_of(database, game_id, bob) is None
    assert "zq8x" not in (row.result or "")
    print(row.result)
    for mail in mails(database, ALICE):
        print(mail.kind, mail.body[-3000:])


def test_x(database: Database) -> None:
    game_id, alice, bob = make_game(database, options={"pile": "15"})
    send(database, reply(latest(database, ALICE, game_id), ALICE, f"note {SECRET}\nsecond line d1-d4"))
    send(database, reply(latest(database, BOB, game_id), BOB, "take 1"))
    m = latest(database, ALICE, game_id)
    print(text_of(m))
    print(m.get_body(("html",)).get_content()[-1500:])
