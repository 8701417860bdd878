"""The player-facing web pages in each reader's language (issue 24): every page in each of
the nine languages keeps none of the English page's sentences, ``<html lang>`` names the
language, and a page that belongs to a player (the play and settings pages behind their
links) speaks the language the player chose, whatever the browser asks for; other pages
speak the browser's (``Accept-Language``)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from flask import Flask

from service import i18n
from service.db import Database
from service.mail.links import settings_token
from service.models import Player
from tests.service.conftest import Client
from tests.service.gateway_kit import make_game
from tests.service.test_play_page import play_link, start

OTHERS = [code for code in i18n.LANGUAGES if code != "en"]
ENGINE = ("Epaminondas", "White", "Black", "to move", "16 stones, 0 on", "'s home row")
"""Text the engine words (game, seats, the position's lines), not these pages."""
OPTIONS = ("Board 8×8, anti-copy rule on.",)
"""The options in words (``service/wording.py``), shared with the mails."""


class _Text(HTMLParser):
    """The visible text of a page, one piece per text node (no scripts, styles, <pre> or
    <code>: notation, records and code stay as they are in every language)."""

    def __init__(self) -> None:
        super().__init__()
        self.pieces: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "pre", "code", "datalist", "option"):
            self.hidden += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "pre", "code", "datalist", "option"):
            self.hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self.hidden and data.strip():
            self.pieces.append(" ".join(data.split()))


def sentences(html: str, shared: tuple[str, ...] = ()) -> set[str]:
    """The page's English-looking sentences: text of three words or more, less ``shared``
    texts the page shows but other parts of the service word (names, the engine's status
    lines, the board's squares)."""
    parser = _Text()
    parser.feed(html)
    found = set()
    for piece in parser.pieces:
        for text in shared:
            piece = piece.replace(text, " ")
        for sentence in re.split(r"(?<=[.:;?!])\s+|\s+·\s+", piece):
            if len(re.findall(r"[A-Za-z]{2,}", sentence)) >= 3:
                found.add(sentence.strip())
    return found


def lang_of(html: str) -> str:
    found = re.search(r'<html lang="([\w-]+)">', html)
    assert found, "no <html lang>"
    return found[1]


def assert_translated(pages: dict[str, str], shared: tuple[str, ...] = ()) -> None:
    english = sentences(pages["en"], shared)
    assert english, "the English page has no sentences to compare"
    assert lang_of(pages["en"]) == "en"
    for code in OTHERS:
        assert lang_of(pages[code]) == code
        left = english & sentences(pages[code], shared)
        assert not left, f"{code}: still English: {sorted(left)}"


def set_language(database: Database, player_id: int, code: str | None) -> None:
    with database.transaction() as session:
        session.get_one(Player, player_id).language = code


def test_the_play_page_in_every_language_and_the_players_own_without_accept_language(
    app: Flask, database: Database, alice: Client, bob: Client
) -> None:
    game_id = start(alice, bob, "epaminondas", {"board": "8x8"})
    link = play_link(database, alice, game_id)
    web = app.test_client()
    shared = (*ENGINE, "Alice", "Bob", "turn 1")
    pages = {}
    for code in i18n.LANGUAGES:
        set_language(database, alice.id, code)
        page = web.post(link, data={"move": "a1-a3", "do": "preview"})
        pages[code] = page.get_data(as_text=True)
    assert "nothing sent yet" in pages["en"] and "noch nichts gesendet" in pages["de"]
    assert_translated(pages, shared)
    set_language(database, alice.id, "de")
    german = web.get(link).get_data(as_text=True)  # no Accept-Language at all
    assert lang_of(german) == "de" and "Erlaubte Züge" in german
    refused = web.post(
        link, data={"move": "a1-a8", "do": "play"}, headers={"Accept-Language": "fr"}
    )
    assert lang_of(refused.get_data(as_text=True)) == "de"  # the player's choice wins
    set_language(database, alice.id, None)
    french = web.get(link, headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert lang_of(french) == "fr" and "Coups permis" in french


def test_the_public_pages_speak_the_browsers_language(
    app: Flask, database: Database, alice: Client, bob: Client
) -> None:
    game_id = start(alice, bob, "epaminondas", {"board": "8x8"})
    web = app.test_client()
    for path, shared in (
        (f"/games/{game_id}", ENGINE + OPTIONS),
        (f"/players/{alice.id}", ENGINE),
        ("/games/999999", ()),
    ):
        pages = {
            code: web.get(path, headers={"Accept-Language": code}).get_data(as_text=True)
            for code in i18n.LANGUAGES
        }
        assert_translated(pages, shared)
    # The rule books' own text is another part's; their pages' frame is these templates'.
    rules = web.get("/rules", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert lang_of(rules) == "de" and "<h1>Spielregeln</h1>" in rules
    french = web.get(f"/games/{game_id}", headers={"Accept-Language": "fr"})
    assert lang_of(french.get_data(as_text=True)) == "fr"
    assert "Joueurs" in french.get_data(as_text=True)
    plain = web.get(f"/games/{game_id}").get_data(as_text=True)
    assert lang_of(plain) == "en" and "<h2>Players</h2>" in plain


@pytest.mark.parametrize("page", ["settings", "unsubscribe"])
def test_the_settings_pages_speak_the_players_language(
    app: Flask, database: Database, page: str
) -> None:
    _game, _alice, bob = make_game(database, game="epaminondas")
    path = f"/mail/{settings_token(database.settings.secret(), bob)}"
    path += "/unsubscribe" if page == "unsubscribe" else ""
    web = app.test_client()
    pages = {}
    for code in i18n.LANGUAGES:
        set_language(database, bob, code)
        pages[code] = web.get(path, headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert_translated(pages, ("Europe/Vienna", "America/New_York", "Asia/Tokyo"))
    if page == "settings":
        set_language(database, bob, "de")
        bad = web.post(path, data={"notify": "each", "time_zone": "Mars/Base"})
        assert bad.status_code == 400 and "keine uns bekannte Zeitzone" in bad.get_data(
            as_text=True
        )
