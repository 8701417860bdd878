"""Issue 24, the engine's words in the reader's language, through the real gateway: what a
turn brought (a move, Elasta's revealed chips, pushes and battle line) reaches a German,
Russian or Polish player in their language, while an English player reads what the engine
wrote, word for word."""

from __future__ import annotations

from email import message_from_string, policy
from email.message import EmailMessage

from service import games, players
from service.db import Database
from service.mail import gateway
from service.models import Player
from tests.service.gateway_kit import inbound, latest, mails, make_game, player_id, reply, text_of

ALICE, BOB = "alice@example.org", "bob@example.org"


def speaks(database: Database, address: str, code: str) -> None:
    with database.transaction() as session:
        session.get_one(Player, player_id(database, address)).language = code


def send(database: Database, who: str, typed: str, game_id: int) -> None:
    raw = reply(latest(database, who, game_id), who, typed)
    assert inbound(database, gateway.receive(database, raw, "inject").id).status == "processed"


def text(database: Database, address: str, kind: str) -> str:
    row = mails(database, address, kind)[-1]
    parsed = message_from_string(row.body, policy=policy.default)
    assert isinstance(parsed, EmailMessage)
    return " ".join(text_of(parsed).split())


def test_a_german_player_reads_the_opponents_move_in_german(database: Database) -> None:
    game_id, _, _ = make_game(database, "epaminondas")
    speaks(database, BOB, "de")
    send(database, ALICE, "a1-a3", game_id)
    told = text(database, BOB, "opponent_moved")
    assert "Weiß spielte a1-a3." in told
    assert "White played" not in told


def test_elasta_s_turn_reaches_russian_and_polish_players_in_their_language(
    database: Database,
) -> None:
    game_id, _, _ = make_game(database, "elasta")
    speaks(database, ALICE, "ru")
    speaks(database, BOB, "pl")
    send(database, ALICE, "76543210", game_id)
    send(database, BOB, "01234567", game_id)
    russian, polish = text(database, ALICE, "turn_resolved"), text(database, BOB, "turn_resolved")
    assert "открытые фишки" in russian and "линия фронта теперь:" in russian
    assert "odkryte żetony" in polish and "linia bitwy teraz:" in polish
    for told in (russian, polish):
        for english in ("chips revealed", "battle line now", "beats", "the stick"):
            assert english not in told, (english, told)


def test_an_english_player_reads_the_engine_s_own_words(database: Database) -> None:
    game_id, _, _ = make_game(database, "elasta")
    speaks(database, BOB, "de")
    send(database, ALICE, "76543210", game_id)
    send(database, BOB, "01234567", game_id)
    told = text(database, ALICE, "turn_resolved")
    assert "turn 1 chips revealed (files a..h): White 76543210, Black 01234567" in told
    assert "battle line now:" in told
    assert "Kampflinie jetzt:" in text(database, BOB, "turn_resolved")


NEAR_THE_END = "21235577 4 0"
"""An Elasta position where White's 25670413 against Black's 32647510 pushes stick h onto
Black's ground line (ELA-10)."""


def test_the_result_of_elasta_reaches_german_and_russian_players_in_their_language(
    database: Database,
) -> None:
    game_id, _, _ = make_game(database, "elasta")  # Alice and Bob
    with database.transaction() as session:
        seated = [players.by_address(session, address) for address in (ALICE, BOB)]
        assert seated[0] is not None and seated[1] is not None
        data = {"game": "elasta", "seats": [p.id for p in seated], "position": NEAR_THE_END}
        game_id = games.create(session, seated[0], data, position_allowed=True).id
    speaks(database, ALICE, "de")
    speaks(database, BOB, "ru")
    send(database, ALICE, "25670413", game_id)
    send(database, BOB, "32647510", game_id)
    german, russian = text(database, ALICE, "game_over"), text(database, BOB, "game_over")
    assert "die Kampflinie erreichte die Grundlinie von Schwarz in Linie h (ELA-10)" in german
    assert "линия фронта достигла базовой линии чёрных на вертикали h (ELA-10)" in russian
    for told in (german, russian):
        mail = told.split("[Game ")[0]  # the record (PGN tags) stays as the engine wrote it
        assert "battle line reached" not in mail and "ground line" not in mail, mail
    assert "Spiel zu Ende: 1-0 (die Kampflinie erreichte" in german  # the status line
