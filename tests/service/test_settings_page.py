"""The mail-settings page behind the signed link in every mail (issue 21, point 9): a time
zone field that says clearly what it did not understand, the board-in-words choice, and no
"public and read-only" footer above a Save button."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from service.db import Database
from service.mail import gateway
from service.mail.links import settings_token
from service.models import Player
from tests.browser import PHONE_WIDTHS, assert_fits, axe_violations, browser, open_html
from tests.service.gateway_kit import inbound, latest, make_game, reply, text_of

__all__ = ["browser"]  # the Chromium fixture of tests/browser.py, used by name below
ALICE, BOB = "alice@example.org", "bob@example.org"
FORM = {"notify": "each", "own_copy": "short", "board_flip": "on", "board_text": "grid"}


def bob_page(app: Flask, database: Database) -> tuple[FlaskClient, str, int]:
    """Bob's settings page, as the link in his mails opens it, and his game with Alice."""
    game_id, _, bob = make_game(database, game="epaminondas")
    path = f"/mail/{settings_token(database.settings.secret(), bob)}"
    return app.test_client(), path, game_id


def bob(database: Database) -> Player:
    with database.transaction() as session:
        player = session.scalar(select(Player).where(Player.name == "Bob"))
        assert player is not None
        session.expunge(player)
        return player


def test_the_time_zone_is_saved_from_the_settings_page(app: Flask, database: Database) -> None:
    """Issue 21, point 9: the page has a time-zone field with the names to pick from, and
    saves what is chosen (in any letter case: the zone's own spelling is kept)."""
    client, path, _game_id = bob_page(app, database)
    page = client.get(path).get_data(as_text=True)
    assert 'name="time_zone"' in page and 'value="UTC"' in page
    assert '<datalist id="zones">' in page and '<option value="Europe/Vienna">' in page
    saved = client.post(path, data={**FORM, "time_zone": "America/New_York"})
    assert saved.status_code == 200
    assert "times in America/New_York" in saved.get_data(as_text=True)
    assert bob(database).time_zone == "America/New_York"
    assert client.post(path, data={**FORM, "time_zone": " europe/vienna "}).status_code == 200
    assert bob(database).time_zone == "Europe/Vienna"


def test_a_time_zone_not_known_is_refused_quoting_what_was_typed(
    app: Flask, database: Database
) -> None:
    """Issue 21, point 9: a misspelt zone gets a clear message that quotes it, shows it in
    the field again to correct, and saves nothing of the form."""
    client, path, _game_id = bob_page(app, database)
    answer = client.post(path, data={**FORM, "notify": "digest", "time_zone": "Europe/Viena"})
    assert answer.status_code == 400
    page = answer.get_data(as_text=True)
    assert "\u201cEurope/Viena\u201d is not a time zone we know" in page
    assert "such as Europe/Vienna" in page and "nothing was saved" in page
    assert 'value="Europe/Viena"' in page and 'aria-invalid="true"' in page
    player = bob(database)
    assert (player.time_zone, player.notify) == ("UTC", "each")
    hostile = client.post(path, data={**FORM, "time_zone": "<b>Mars</b>"}).get_data(as_text=True)
    assert "\u201c&lt;b&gt;Mars&lt;/b&gt;\u201d is not a time zone we know" in hostile
    empty = client.post(path, data={**FORM, "time_zone": " "})
    assert empty.status_code == 400
    assert "The time zone is empty. Write its IANA name" in empty.get_data(as_text=True)


def test_the_settings_page_does_not_call_itself_read_only(app: Flask, database: Database) -> None:
    """Issue 21, point 9: the page with a Save button says it is the player's own, not
    "public and read-only"; the public pages keep that footer."""
    client, path, game_id = bob_page(app, database)
    for page in (client.get(path), client.post(path, data=FORM), client.get(path + "/unsubscribe")):
        text = page.get_data(as_text=True)
        assert "read-only" not in text and "This page belongs to you" in text
    assert "public and read-only" in client.get("/mail").get_data(as_text=True)
    assert "public and read-only" in client.get(f"/games/{game_id}").get_data(as_text=True)


def test_words_only_chosen_on_the_settings_page_reach_the_next_mail(
    app: Flask, database: Database
) -> None:
    """Issue 21, point 10: Bob picks the words alone on his settings page; the next mail of
    his game, read back from the outbox, gives the position in words and draws no grid."""
    client, path, game_id = bob_page(app, database)
    assert 'name="board_text" value="grid" checked' in client.get(path).get_data(as_text=True)
    assert client.post(path, data={**FORM, "board_text": "words"}).status_code == 200
    assert bob(database).board_text == "words"
    raw = reply(latest(database, ALICE, game_id), ALICE, "a1-a3")
    assert inbound(database, gateway.receive(database, raw, "inject").id).status == "processed"
    text = text_of(latest(database, BOB, game_id))
    assert "Last move (turn 1): White a1-a3. Changed: a1 empty; a3 white stone." in text
    assert "Black: stones on a11 to n11, a12 to n12 (28)." in text
    assert not [line for line in text.splitlines() if " | " in line or "a b c" in line]
    refused = client.post(path, data={**FORM, "board_text": "braille"})
    assert refused.status_code == 400 and "braille is not one of the choices" in (
        refused.get_data(as_text=True)
    )


def test_the_settings_page_fits_a_phone_and_axe_finds_nothing_serious(
    app: Flask, database: Database, browser: Any
) -> None:
    """Issue 21, points 1, 9 and "Accessible boards": the settings page, as shown and after a
    refused time zone, fits 320 and 390 px and axe-core finds no serious or critical fault."""
    client, path, _ = bob_page(app, database)
    shown = client.get(path).get_data(as_text=True)
    refused = client.post(path, data={**FORM, "time_zone": "Europe/Viena"}).get_data(as_text=True)
    for what, html in (("settings page", shown), ("settings page with an error", refused)):
        for width in PHONE_WIDTHS:
            page = open_html(browser, html, width)
            try:
                assert_fits(page, f"{what} at {width}px")
                assert axe_violations(page) == [], what
            finally:
                page.close()
