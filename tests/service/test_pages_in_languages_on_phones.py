"""Issue 24 in the field: the pages in every language on a phone.

German compounds, French no-break spaces before colons and Russian words are longer than
their English, and a line that fits in English can push a page sideways in another language.
Each page a player opens (the play page of the widest board, the public game page, the
player page, a league page, the mail-settings page) is opened in headless Chromium from the
app on a real loopback HTTP server, in each of the eight other languages, at 320 and 390 px:
the page speaks that language (``<html lang>``) and is never wider than the viewport.
Screenshots of the play page at 390 px go to ``docs/screenshots/page-play-<lang>-390.png``
when ``SCREENSHOTS=1``.
"""

from __future__ import annotations

from typing import Any

import pytest

from service import i18n
from service.db import Database
from service.mail.links import settings_token
from service.models import Player
from tests.browser import (
    PHONE_WIDTHS,
    assert_fits,
    browser,  # noqa: F401  (a fixture)
    screenshot,
    server,  # noqa: F401  (a fixture)
)
from tests.service.conftest import Client, new_player
from tests.service.test_pages_on_phones import play_once
from tests.service.test_play_page import play_link

OTHERS = [code for code in i18n.LANGUAGES if code != "en"]


def set_language(database: Database, player_id: int, code: str) -> None:
    with database.transaction() as session:
        session.get_one(Player, player_id).language = code


def pages_of(database: Database, admin: Client, people: list[Client]) -> dict[str, str]:
    """The pages to open, by name: a played Epaminondas 14x12 (the widest board), its play
    page for the player to move, the player page, a league page and the settings page."""
    seats = [people[0].id, people[1].id]
    data = {"game": "epaminondas", "options": {"board": "14x12"}, "seats": seats}
    game_id = int(people[0].ok("POST", "/games", data, status=201)["game"]["id"])
    play_once(database, game_id)  # Black (people[1]) to move
    league = admin.ok("POST", "/leagues", {"name": "Winter cup", "game": "countdown"}, status=201)
    token = settings_token(database.settings.secret(), people[1].id)
    return {
        "play": play_link(database, people[1], game_id),
        "game": f"/games/{game_id}",
        "player": f"/players/{people[1].id}",
        "league": f"/leagues/{league['league']['id']}",
        "mail-settings": f"/mail/{token}",
    }


@pytest.mark.parametrize("code", OTHERS)
def test_every_page_in_each_language_fits_a_phone(
    browser: Any,  # noqa: F811
    server: str,  # noqa: F811
    database: Database,
    admin: Client,
    code: str,
) -> None:
    """Issue 24 (pages) at issue 21's phone widths: in ``code``, whether the page follows the
    player's chosen language (play, settings) or the browser's (game, player, league), each
    page names its language and fits 320 and 390 px."""
    people = [new_player(admin, name) for name in ("Alice", "Bob")]
    pages = pages_of(database, admin, people)  # (the links are read from English mails)
    for person in people:
        set_language(database, person.id, code)
    problems: list[str] = []
    for width in PHONE_WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": 900}, locale=code)
        page = context.new_page()
        for name, path in pages.items():
            page.goto(server + path, wait_until="load")
            lang = page.get_attribute("html", "lang") or ""
            if not lang.startswith(code):
                problems.append(f"{name}: <html lang={lang!r}>, not {code}")
            try:
                assert_fits(page, f"{name} in {code} at {width}")
            except AssertionError as error:
                problems.append(str(error))
            if name == "play" and width == 390:
                screenshot(page, f"page-play-{code}-390")
        context.close()
    assert not problems, "\n".join(problems)
