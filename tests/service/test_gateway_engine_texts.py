"""Issue 24, the engine's words in the reader's language, through the real gateway: what a
turn brought (a move, Elasta's revealed chips, pushes and battle line) reaches a German,
Russian or Polish player in their language, while an English player reads what the engine
wrote, word for word."""

from __future__ import annotations

from email import message_from_string, policy
from email.message import EmailMessage

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
