"""Mail commands in the player's language, through the real gateway path (issue 24): a
German player's ``aufgeben`` resigns, with the same confirmation rules as ``resign``;
``remis`` offers a draw and ``annehmen`` takes it; ``hilfe`` gets the help mail in German.
One command of each other language is run too."""

from __future__ import annotations

import pytest

from service.db import Database
from service.mail import gateway
from service.mail.models import InboundMessage
from service.models import Player
from tests.service.gateway_kit import (
    game_row,
    inbound,
    latest,
    mails,
    make_game,
    player_id,
    reply,
    text_of,
)

ALICE, BOB = "alice@example.org", "bob@example.org"


def send(database: Database, who: str, typed: str, game_id: int) -> InboundMessage:
    raw = reply(latest(database, who, game_id), who, typed)
    return inbound(database, gateway.receive(database, raw, "inject").id)


def speaks(database: Database, address: str, code: str) -> None:
    with database.transaction() as session:
        session.get_one(Player, player_id(database, address)).language = code


def test_a_german_players_aufgeben_resigns_only_when_meant(database: Database) -> None:
    """A doubtful "Soll ich aufgeben?" changes nothing and asks (a confirm_resign mail); "Ich
    gebe nicht auf" resigns nobody; "Aufgeben" alone ends the game, as "resign" does."""
    game_id, _, _ = make_game(database, "epaminondas")
    speaks(database, BOB, "de")
    row = send(database, BOB, "Soll ich aufgeben? Ich sehe keinen Ausweg.", game_id)
    assert row.status == "processed", row.result
    assert game_row(database, game_id)["status"] == "active"
    assert len(mails(database, BOB, "confirm_resign")) == 1
    send(database, BOB, "Ich gebe nicht auf!", game_id)
    assert game_row(database, game_id)["status"] == "active"
    row = send(database, BOB, "Aufgeben.", game_id)
    assert row.status == "processed", row.result
    assert game_row(database, game_id)["status"] == "finished"
    assert "resigned" in text_of(latest(database, ALICE, game_id))


def test_remis_offers_a_draw_and_annehmen_takes_it(database: Database) -> None:
    game_id, _, _ = make_game(database, "epaminondas")
    speaks(database, ALICE, "de")
    speaks(database, BOB, "de")
    row = send(database, ALICE, "Hallo Bob,\nRemis\nViele Grüße", game_id)
    assert "draw offered" in (row.result or ""), row.result
    row = send(database, BOB, "Ich nehme das Remis an.", game_id)
    assert "draw agreed" in (row.result or ""), row.result
    assert game_row(database, game_id)["status"] == "finished"


def test_hilfe_gets_the_help_mail_in_german(database: Database) -> None:
    game_id, _, _ = make_game(database, "epaminondas")
    speaks(database, BOB, "de")
    row = send(database, BOB, "Hilfe!", game_id)
    assert row.status == "processed", row.result
    [helped] = mails(database, BOB, "help")
    assert "Hilfe: die Befehle, die du uns mailen kannst" in helped.subject
    answer = text_of(latest(database, BOB, game_id))
    assert "Hallo Bob. Schreib einen Befehl" in answer
    for line in ("aufgeben / resign", "remis / draw", "hilfe / help", "die Partie aufgeben"):
        assert line in answer


@pytest.mark.parametrize(
    ("code", "typed", "done"),
    [
        ("fr", "Je propose la nulle", "draw offered"),
        ("es", "Tablas", "draw offered"),
        ("it", "Patta", "draw offered"),
        ("nl", "Remise", "draw offered"),
        ("pt", "Empate", "draw offered"),
        ("pl", "Proponuję remis", "draw offered"),
        ("ru", "Предлагаю ничью", "draw offered"),
    ],
)
def test_a_draw_is_offered_in_each_language(
    database: Database, code: str, typed: str, done: str
) -> None:
    game_id, _, _ = make_game(database, "epaminondas")
    speaks(database, ALICE, code)
    row = send(database, ALICE, typed, game_id)
    assert done in (row.result or ""), row.result


@pytest.mark.parametrize(
    ("code", "typed", "subject"),
    [
        ("fr", "Aide", "Aide : les commandes"),
        ("es", "Ayuda", "Ayuda: los comandos"),
        ("it", "Aiuto", "Aiuto: i comandi"),
        ("nl", "Help", "Help: de opdrachten"),
        ("pt", "Ajuda", "Ajuda: os comandos"),
        ("pl", "Pomoc", "Pomoc: polecenia"),
        ("ru", "Помощь", "Справка: команды"),
    ],
)
def test_help_in_each_language(database: Database, code: str, typed: str, subject: str) -> None:
    game_id, _, _ = make_game(database, "epaminondas")
    speaks(database, BOB, code)
    send(database, BOB, typed, game_id)
    [helped] = mails(database, BOB, "help")
    assert subject in helped.subject


@pytest.mark.parametrize(
    ("typed", "resigns"),
    [("Je n'abandonne pas", False), ("¿Me rindo?", False), ("Сдаюсь", True), ("Desisto", True)],
)
def test_resigning_in_other_languages_is_as_deliberate(
    database: Database, typed: str, resigns: bool
) -> None:
    game_id, _, _ = make_game(database, "epaminondas")
    send(database, BOB, typed, game_id)
    assert game_row(database, game_id)["status"] == ("finished" if resigns else "active")
