"""The texts around a mail's board in the reader's language, through the real gateway
(issue 24): the last move's line, the board in words, the HTML squares' names and the seat
names. Records, the chain and an English reader's mail keep today's English."""

from __future__ import annotations

from datetime import timedelta
from email import message_from_string, policy
from email.message import EmailMessage

import pytest
from sqlalchemy import select

from service import games
from service.db import Database
from service.mail import gateway
from service.models import Game, Player, Turn
from tests.service.gateway_kit import inbound, latest, mails, make_game, player_id, reply

ALICE, BOB = "alice@example.org", "bob@example.org"


def speaks(database: Database, address: str, code: str, board_text: str = "grid") -> None:
    with database.transaction() as session:
        player = session.get_one(Player, player_id(database, address))
        player.language, player.board_text = code, board_text


def parts(database: Database, address: str, kind: str) -> tuple[str, str]:
    """The plain text and the HTML of the latest ``kind`` mail to ``address``."""
    parsed = message_from_string(mails(database, address, kind)[-1].body, policy=policy.default)
    assert isinstance(parsed, EmailMessage)
    text, html = (parsed.get_body((form,)) for form in ("plain", "html"))
    assert text is not None and html is not None
    return str(text.get_content()), str(html.get_content())


def alice_plays_a1_a3(database: Database, bob: str) -> int:
    game_id, _, _ = make_game(database, "epaminondas")
    speaks(database, ALICE, "en")
    speaks(database, BOB, bob)
    raw = reply(latest(database, ALICE, game_id), ALICE, "a1-a3")
    assert inbound(database, gateway.receive(database, raw, "inject").id).status == "processed"
    return game_id


@pytest.mark.parametrize(
    ("code", "line", "words", "square", "seat"),
    [
        (
            "de",
            "Letzter Zug (Runde 1): Weiß a1-a3",
            "Letzter Zug (Runde 1): Weiß a1-a3. Geänderte Felder: a1: leer; a3: weißer Stein.",
            "a3, weißer Stein, letzter Zug",
            "Schwarz",
        ),
        (
            "ru",
            "Последний ход (ход №1): Белые a1-a3",
            "Последний ход (ход №1): Белые a1-a3. Изменённые поля: a1 — пусто; a3 — белый камень.",
            "a3, белый камень, последний ход",
            "Чёрные",
        ),
        (
            "pl",
            "Ostatni ruch (tura 1): Białe a1-a3",
            "Ostatni ruch (tura 1): Białe a1-a3. Zmienione pola: a1: puste; a3: biały kamień.",
            "a3, biały kamień, ostatni ruch",
            "Czarne",
        ),
    ],
)
def test_the_opponents_move_reaches_the_reader_in_their_language(
    database: Database, code: str, line: str, words: str, square: str, seat: str
) -> None:
    """Bob reads Alice's move in his language: the last move's line, the words that
    describe the board (text part), each square's name (HTML part) and his seat."""
    game_id, _, _ = make_game(database, "epaminondas")
    speaks(database, BOB, code)
    raw = reply(latest(database, ALICE, game_id), ALICE, "a1-a3")
    assert inbound(database, gateway.receive(database, raw, "inject").id).status == "processed"
    text, html = parts(database, BOB, "opponent_moved")
    flat = " ".join(text.split())
    assert words in flat and line in flat
    assert "Last move" not in text and "Changed:" not in text and "White a1-a3" not in text
    assert f'aria-label="{square}"' in html
    assert line in html and "Last move" not in html and "white stone" not in html
    assert seat in flat


def test_seat_names_in_the_readers_language_and_english_unchanged(database: Database) -> None:
    """A German Bob plays Schwarz against Alice (Weiß); Alice, in English, reads the move
    line and the squares exactly as before."""
    game_id = alice_plays_a1_a3(database, bob="de")
    raw = reply(latest(database, BOB, game_id), BOB, "a11-a10")
    assert inbound(database, gateway.receive(database, raw, "inject").id).status == "processed"
    text, html = parts(database, ALICE, "opponent_moved")
    flat = " ".join(text.split())
    assert "Last move (turn 2): Black a11-a10. Changed: a10 black stone; a11 empty." in flat
    assert "White: stones on " in flat and "Bob (Black) played a11-a10" in flat
    assert 'aria-label="a10, black stone, last move"' in html
    german, _ = parts(database, BOB, "opponent_moved")
    assert f"Alice (Weiß) hat in Epaminondas #{game_id} a1-a3 gespielt." in " ".join(german.split())
    make_game(database, "epaminondas")
    text, html = parts(database, BOB, "game_started")
    assert "Du spielst Schwarz gegen Alice (Weiß)." in " ".join(text.split())
    assert "Du spielst <strong>Schwarz</strong> gegen Alice (Weiß)." in html


def test_the_board_in_words_alone_in_german(database: Database) -> None:
    """A German reader who chose the board in words gets the German words and no grid."""
    game_id, _, _ = make_game(database, "epaminondas")
    speaks(database, BOB, "de", board_text="words")
    raw = reply(latest(database, ALICE, game_id), ALICE, "a1-a3")
    assert inbound(database, gateway.receive(database, raw, "inject").id).status == "processed"
    text, _ = parts(database, BOB, "opponent_moved")
    flat = " ".join(text.split())
    assert (
        "Weiß: Steine auf " in flat and "Schwarz: Steine auf a11 bis n11, a12 bis n12 (28)." in flat
    )


def test_the_missed_deadline_line_under_the_board_in_german(database: Database) -> None:
    """Alice, in German, misses a sealed turn of Elasta: the mail of her default orders
    warns her under the board in German, text and HTML; the last move names Weiß."""
    game_id, _, _ = make_game(database, "elasta")
    with database.transaction() as session:
        game = session.get_one(Game, game_id)
        game.time_control = {**game.time_control, "forfeit_after": 2, "days": 2}
    speaks(database, ALICE, "de")
    raw = reply(latest(database, BOB, game_id), BOB, "01234567")
    assert inbound(database, gateway.receive(database, raw, "inject").id).status == "processed"
    with database.transaction() as session:
        game = session.get_one(Game, game_id)
        turn = session.scalar(select(Turn).where(Turn.game_id == game_id, Turn.number == 1))
        assert turn is not None and turn.deadline is not None
        games.resolve_turn(session, game_id, 1, turn.deadline + timedelta(days=1))
    text, html = parts(database, ALICE, "default_orders")
    warning = (
        "Du hast 1 Frist in Folge verpasst. Verpasst du die nächste Frist, verlierst du die "
        "Partie kampflos (ein weiterer Ausfall verliert)."
    )
    assert warning in " ".join(text.split()) and warning in html
    assert "You have missed" not in text and "You have missed" not in html
    assert "Letzter Zug (Runde 1): Weiß " in " ".join(text.split())
    assert "Seite von Weiß: " in text


def test_a_preview_describes_the_board_in_the_players_language(database: Database) -> None:
    """``Vorschau a1-a3`` answers a German player with the board after it in German words
    (the stored result, for the operator, stays English)."""
    game_id, _, _ = make_game(database, "epaminondas")
    speaks(database, ALICE, "de")
    raw = reply(latest(database, ALICE, game_id), ALICE, "Vorschau a1-a3")
    row = inbound(database, gateway.receive(database, raw, "inject").id)
    assert row.status == "processed" and "White: stones on " in (row.result or "")
    answer = mails(database, ALICE)[-1]
    text = message_from_string(answer.body, policy=policy.default)
    assert isinstance(text, EmailMessage)
    body = text.get_body(("plain",))
    assert body is not None
    flat = " ".join(str(body.get_content()).split())
    assert "Weiß: Steine auf " in flat and "White: stones on " not in flat


def test_the_draw_offer_under_the_board_in_the_readers_language(database: Database) -> None:
    """Alice offers a draw: German Bob reads the offer under the board in German, with the
    German command words; Alice, in English, reads her own offer's line as before."""
    game_id, _, _ = make_game(database, "epaminondas")
    speaks(database, ALICE, "en")
    speaks(database, BOB, "de")
    raw = reply(latest(database, ALICE, game_id), ALICE, "a1-a3\ndraw")
    assert inbound(database, gateway.receive(database, raw, "inject").id).status == "processed"
    kind = mails(database, BOB)[-1].kind
    text, html = parts(database, BOB, kind)
    offer = (
        "Remisangebot: Alice (Weiß) bietet Remis an. Antworte „annehmen“ (oder „remis“), um "
        "anzunehmen, „ablehnen“, um abzulehnen; das Angebot verfällt, wenn du ziehst, ohne zu "
        "antworten."
    )
    assert offer in " ".join(text.split()) and offer in html
    assert "Draw offer" not in text
    raw = reply(latest(database, ALICE, game_id), ALICE, "board")
    assert inbound(database, gateway.receive(database, raw, "inject").id).status == "processed"
    text, _ = parts(database, ALICE, mails(database, ALICE)[-1].kind)
    assert (
        'Your draw offer stands until your opponent answers or moves; reply "draw off" to take '
        "it back." in " ".join(text.split())
    )
