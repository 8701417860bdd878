"""The words of a text mail's board in the reader's language, through the real gateway
(issue 24): Anti-grid's legend, Elemento's quadrants, stones and how to place, Elasta's sides
and legend; the board's marks and letters stay. A mailed ``preview`` lists its events in the
player's language; the stored result and an English reader's mail keep today's English."""

from __future__ import annotations

import pytest

from service.db import Database
from service.mail import gateway
from tests.service.gateway_kit import inbound, latest, make_game, reply
from tests.service.test_board_in_languages import ALICE, BOB, parts, speaks

ANTI_GRID = {
    "de": ("  R roter Bauer   o roter Punkt   - | rote Linien", "  + Kreuzung (für beide Seiten)"),
    "ru": ("  R красная пешка  o красная точка  - | красные линии", "  + перекрёсток"),
    "pl": ("  R czerwony pion   o czerwony punkt   - | czerwone linie", "  + skrzyżowanie"),
}
ELEMENTO = {
    "de": (
        "Quadranten G grün, Y gelb, R rot, B blau (groß: jetzt auf den Würfeln).",
        "Eigene Farbe nach Element setzen: F@c1; Zug: b2-b3.",
    ),
    "ru": (
        "Квадранты G зелёный, Y жёлтый, R красный, B синий (заглавная: сейчас на костях).",
        "Ставьте свой цвет по стихии: F@c1; ход: b2-b3.",
    ),
    "pl": (
        "Ćwiartki G zielona, Y żółta, R czerwona, B niebieska (wielka litera: wyrzucona).",
        "Stawiaj swój kolor według żywiołu: F@c1; ruch: b2-b3.",
    ),
}


@pytest.mark.parametrize("code", ["de", "ru", "pl"])
def test_anti_grid_s_legend_reaches_the_reader_in_their_language(
    database: Database, code: str
) -> None:
    game_id, _, _ = make_game(database, "anti-grid")
    speaks(database, ALICE, "en")
    speaks(database, BOB, code)
    raw = reply(latest(database, ALICE, game_id), ALICE, "c1-c2")
    assert inbound(database, gateway.receive(database, raw, "inject").id).status == "processed"
    text, _ = parts(database, BOB, "opponent_moved")
    first, crossing = ANTI_GRID[code]
    assert first in text.split("\n") and crossing in text
    assert "red pawn" not in text and "blue lines" not in text


@pytest.mark.parametrize("code", ["de", "ru", "pl"])
def test_elemento_s_legend_reaches_the_reader_in_their_language(
    database: Database, code: str
) -> None:
    make_game(database, "elemento")
    speaks(database, BOB, code)
    make_game(database, "elemento")
    text, _ = parts(database, BOB, "game_started")
    lines = text.split("\n")
    quadrants, how = ELEMENTO[code]
    assert quadrants in lines and how in lines
    assert "Quadrants G green" not in text and "Place your own colour" not in text
    assert "g:." in text.lower()  # the board itself as it is (capitals: on the dice)


def test_an_english_reader_s_legend_is_as_before(database: Database) -> None:
    make_game(database, "elemento")
    speaks(database, BOB, "en")
    make_game(database, "elemento")
    text, _ = parts(database, BOB, "game_started")
    lines = text.split("\n")
    assert "Quadrants G green, Y yellow, R red, B blue (capital: on the dice now)." in lines
    assert "Stones F fire, W water, E earth, A air (board: capital light, small dark)." in lines
    assert "Place your own colour by element: F@c1; move: b2-b3." in lines


def test_elasta_s_sides_and_legend_in_german_for_black_turned_around(database: Database) -> None:
    """Bob plays Black: his board is turned (Weiß above, Schwarz below), in German."""
    make_game(database, "elasta")
    speaks(database, BOB, "de")
    make_game(database, "elasta")
    text, _ = parts(database, BOB, "game_started")
    lines = text.split("\n")
    top = next(index for index, line in enumerate(lines) if "(Reihe " in line)
    assert lines[top] == "                 Weiß (Reihe 1)"
    assert "                Schwarz (Reihe 8)" in lines[top + 1 :]
    assert "  . Seite von Weiß  # Seite von Schwarz  === Kampflinie (Stab)" in lines
    assert "(rank" not in text and "battle line (stick)" not in text


def test_a_preview_lists_its_events_in_the_player_s_language(database: Database) -> None:
    """``Vorschau a1-a3``: a German player reads what would happen in German; the stored
    result, for the operator, stays English; an English player's answer is as before."""
    game_id, _, _ = make_game(database, "epaminondas")
    speaks(database, ALICE, "de")
    raw = reply(latest(database, ALICE, game_id), ALICE, "Vorschau a1-a3")
    row = inbound(database, gateway.receive(database, raw, "inject").id)
    assert row.status == "processed" and "\n- White played a1-a3." in (row.result or "")
    text = " ".join(_answer(database).split())
    assert "- Weiß spielte a1-a3." in text and "White played" not in text
    speaks(database, ALICE, "en")
    raw = reply(latest(database, ALICE, game_id), ALICE, "preview a1-a3")
    assert inbound(database, gateway.receive(database, raw, "inject").id).status == "processed"
    assert "- White played a1-a3." in _answer(database)


def test_a_preview_of_anti_grid_shows_the_legend_in_the_player_s_language(
    database: Database,
) -> None:
    game_id, _, _ = make_game(database, "anti-grid")
    speaks(database, ALICE, "ru")
    raw = reply(latest(database, ALICE, game_id), ALICE, "preview c1-c2")
    row = inbound(database, gateway.receive(database, raw, "inject").id)
    assert row.status == "processed" and "  R red pawn   o red point" in (row.result or "")
    text = _answer(database)
    assert ANTI_GRID["ru"][0] in text.split("\n") and "red pawn" not in text


def _answer(database: Database) -> str:
    """The plain text of the latest mail to Alice (the gateway's answer)."""
    from email import message_from_string, policy
    from email.message import EmailMessage

    from tests.service.gateway_kit import mails

    parsed = message_from_string(mails(database, ALICE)[-1].body, policy=policy.default)
    assert isinstance(parsed, EmailMessage)
    body = parsed.get_body(("plain",))
    assert body is not None
    return str(body.get_content())
