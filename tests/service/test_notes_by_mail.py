"""Issue 25, 2: private notes per game, by mail and on the play page, and their secrecy.

``note <text>`` (``Notiz``, ``nota``, ``заметка``... in any of the nine languages) sets the
author's note on the game, ``note -`` clears it; a reply may carry a move and a note. The
author's own game mails show it under the board; nobody else ever sees it: not the other
player's mails, API views or pages, the record export, the hash chain, the game log, the
stored results of inbound mail or the server's log lines. Both seats are tested."""

from __future__ import annotations

import json
import logging

import pytest
from flask import Flask
from sqlalchemy import select

from service import i18n, notes, records
from service.db import Database
from service.mail import gateway
from service.mail.commands import Kind, read_note
from service.mail.models import InboundMessage
from service.mail.phrases import COMMAND_PHRASES
from service.mail.reading import take_note
from service.models import ChainLink, Game, LogEntry, Outbox, Player
from tests.service.conftest import Client
from tests.service.gateway_kit import inbound, latest, mails, reply, text_of
from tests.service.mails import readable
from tests.service.test_play_page import play_link, start

ALICE, BOB = "alice@example.org", "bob@example.org"
NOTED = "Your note on this game (seen by you alone):"
SECRET = {ALICE: "Keep 3 for the end -- zq8x", BOB: "Alice bluffs; then take 2 -- kw7v"}


def send(database: Database, raw: bytes) -> InboundMessage:
    return inbound(database, gateway.receive(database, raw, "inject").id)


def note_of(database: Database, game_id: int, player: Client) -> str | None:
    with database.transaction() as session:
        game = session.get_one(Game, game_id)
        return notes.get(session, game, session.get_one(Player, player.id))


def turn_of(database: Database, game_id: int) -> int:
    with database.transaction() as session:
        return session.get_one(Game, game_id).turn


def html_of(database: Database, address: str, game_id: int) -> str:
    part = latest(database, address, game_id).get_body(("html",))
    assert part is not None
    return str(part.get_content())


# -- the command, in every language -----------------------------------------------------------


@pytest.mark.parametrize(
    "word", ["note", "Note:", *(table["note"][0] for table in COMMAND_PHRASES.values())]
)
def test_note_is_understood_in_all_nine_languages(word: str) -> None:
    found = read_note(f"{word} plan A, then d1-d4")
    assert found is not None and found.kind is Kind.NOTE
    assert found.argument == "plan A, then d1-d4" and "plan" not in found.line
    cleared = read_note(f"{word} -")
    assert cleared is not None and cleared.argument == ""
    assert read_note(word) is None  # the word alone is no command: nothing is cleared by it


def test_nota_bene_is_a_remark_not_a_note() -> None:
    """A line "Nota bene, take 2" starts no note (Italian, Spanish and Portuguese write ``nota``):
    its line is read as any other line, so nothing in it is silently taken as a note."""
    assert read_note("nota bene, take 2") is None
    assert read_note("Nota Bene: c1-c4") is None
    assert read_note("nota: bene is a fine square") is not None


def test_the_lines_below_a_note_belong_to_it_and_are_never_a_move() -> None:
    rest, found = take_note("take 1\nnote my plan:\nthen take 3\n\nthanks")
    assert found is not None and found.argument == "my plan:\nthen take 3"
    assert rest == "take 1\n\nthanks"


# -- by mail, through the gateway -------------------------------------------------------------


def test_a_reply_plays_its_move_and_saves_its_note_for_each_seat_alone(
    app: Flask,
    database: Database,
    alice: Client,
    bob: Client,
    anonymous: Client,
    caplog: pytest.LogCaptureFixture,
) -> None:
    game_id = start(alice, bob, "countdown", {"pile": "15"})
    with caplog.at_level(logging.DEBUG):
        first = reply(latest(database, ALICE, game_id), ALICE, f"take 2\nnote {SECRET[ALICE]}")
        row = send(database, first)
        assert row.status == "processed", row.result
        assert (
            turn_of(database, game_id) == 2 and note_of(database, game_id, alice) == SECRET[ALICE]
        )
        # Bob in German words, from another client; his note's "take 2" is no move of his.
        typed = f"Notiz: {SECRET[BOB]}\n\ntake 1"
        row = send(database, reply(latest(database, BOB, game_id), BOB, typed, shape="gmail"))
        assert row.status == "processed", row.result
        assert turn_of(database, game_id) == 3 and note_of(database, game_id, bob) == SECRET[BOB]

    # Each author's own mails: the receipt says it was saved; the board mails show the note.
    receipt = text_of(latest(database, BOB, game_id))
    assert "your private note on this game is saved (33 characters)" in receipt
    alices = text_of(latest(database, ALICE, game_id))  # Bob moved: her turn, with her note
    assert NOTED in alices and SECRET[ALICE] in alices
    assert NOTED in html_of(database, ALICE, game_id)
    assert "zq8x" in html_of(database, ALICE, game_id)
    assert alice.ok("GET", f"/games/{game_id}/note")["note"] == SECRET[ALICE]
    assert bob.ok("GET", f"/games/{game_id}/note")["note"] == SECRET[BOB]

    # Never anywhere the other one, or anybody else, looks.
    for author, other, mark in ((alice, bob, "zq8x"), (bob, alice, "kw7v")):
        their_address = f"{other.player['name'].lower()}@example.org"
        seen = [readable(row) for row in mails(database, their_address)]
        seen += [
            other.get(f"/games/{game_id}").get_data(as_text=True),
            other.get(f"/games/{game_id}/note").get_data(as_text=True),
            other.get(f"/games/{game_id}/record").get_data(as_text=True),
            other.get(f"/games/{game_id}/record.txt").get_data(as_text=True),
            other.get("/games?filter=mine").get_data(as_text=True),
            anonymous.get(f"/games/{game_id}/spectate").get_data(as_text=True),
            app.test_client().get(f"/games/{game_id}").get_data(as_text=True),
            app.test_client().get(play_link(database, other, game_id)).get_data(as_text=True),
        ]
        assert all(mark not in text for text in seen), author.player["name"]
    with database.transaction() as session:
        exported = json.dumps(records.export(session, game_id))
        kept = [
            exported,
            *(repr(tuple(r)) for r in session.execute(select(ChainLink))),
            *(repr(tuple(r)) for r in session.execute(select(LogEntry))),
            *(str(r.result) for r in session.scalars(select(InboundMessage))),
            *(str(r.report) for r in session.scalars(select(Outbox))),
        ]
    logged = [record.getMessage() for record in caplog.records]
    for mark in ("zq8x", "kw7v"):
        assert all(mark not in text for text in kept + logged)


def test_note_dash_clears_and_a_too_long_note_is_refused_while_the_move_is_played(
    database: Database, alice: Client, bob: Client
) -> None:
    game_id = start(alice, bob, "countdown", {"pile": "15"})
    send(database, reply(latest(database, ALICE, game_id), ALICE, "note first plan"))
    assert note_of(database, game_id, alice) == "first plan"
    long = "x" * 2001
    row = send(database, reply(latest(database, ALICE, game_id), ALICE, f"take 1\nnote {long}"))
    assert turn_of(database, game_id) == 2, row.result  # the move of the same mail is played
    assert note_of(database, game_id, alice) == "first plan"
    refusal = readable(mails(database, ALICE, "error_reply")[-1])
    assert "a note is at most 2000 characters; this one has 2001" in refusal
    assert long not in refusal
    send(database, reply(latest(database, ALICE, game_id), ALICE, "note -"))
    assert note_of(database, game_id, alice) is None
    assert "your private note on this game is cleared" in text_of(latest(database, ALICE, game_id))


def test_the_receipt_and_the_refusal_are_in_the_authors_language(
    database: Database, alice: Client, bob: Client
) -> None:
    alice.ok("PATCH", "/players/me", {"language": "de"})
    game_id = start(alice, bob, "countdown", {"pile": "15"})
    send(database, reply(latest(database, ALICE, game_id), ALICE, "notiz Plan B"))
    said = i18n.ngettext(
        "de",
        "your private note on this game is saved (%(num)s character), seen by you alone",
        "your private note on this game is saved (%(num)s characters), seen by you alone",
        6,
        num=6,
    )
    assert said != "your private note on this game is saved (6 characters), seen by you alone"
    assert said in text_of(latest(database, ALICE, game_id))
    send(database, reply(latest(database, ALICE, game_id), ALICE, "notiz " + "y" * 2500))
    refusal = readable(mails(database, ALICE, "error_reply")[-1])
    assert "2000" in refusal and "2500" in refusal and "a note is at most" not in refusal
    assert i18n.gettext("de", NOTED) in text_of(latest(database, ALICE, game_id))


# -- the notes box of the play page -----------------------------------------------------------


def test_the_play_page_notes_box_saves_shows_and_clears_without_javascript(
    app: Flask, database: Database, alice: Client, bob: Client
) -> None:
    game_id = start(alice, bob, "countdown", {"pile": "15"})
    web, link = app.test_client(), play_link(database, alice, game_id)
    page = web.get(link).get_data(as_text=True)
    assert 'id="note-form"' in page and '<textarea id="note" name="note"' in page
    saved = web.post(link, data={"do": "note", "note": "A <b>plan</b>\r\nline 2"})
    assert saved.status_code == 303 and saved.location.endswith("#notes")
    page = web.get(saved.location).get_data(as_text=True)
    assert 'id="note-saved"' in page and "A &lt;b&gt;plan&lt;/b&gt;\nline 2</textarea>" in page
    assert note_of(database, game_id, alice) == "A <b>plan</b>\nline 2"
    assert "plan" not in web.get(play_link(database, bob, game_id)).get_data(as_text=True)

    refused = web.post(link, data={"do": "note", "note": "z" * 2001})
    assert refused.status_code == 400
    body = refused.get_data(as_text=True)
    assert 'id="note-error"' in body and "z" * 2001 in body  # kept as typed, to shorten
    assert note_of(database, game_id, alice) == "A <b>plan</b>\nline 2"
    web.post(link, data={"do": "note", "note": "  "})
    assert note_of(database, game_id, alice) is None
    assert turn_of(database, game_id) == 1  # a note is no move
