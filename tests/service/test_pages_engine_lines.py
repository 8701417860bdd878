"""Issue 24: the lines the engine writes under a board (here Epaminondas' counts of stones)
on the play page and the game page, in the page's language; English as the engine wrote
them."""

from __future__ import annotations

import re
from html import unescape

from flask import Flask

from service.db import Database
from tests.service.conftest import Client
from tests.service.test_pages_in_languages import set_language
from tests.service.test_play_page import play_link, start

GERMAN = re.compile(r"Weiß: \d+ Steine, 0 auf der Grundreihe von Schwarz")
ENGLISH = re.compile(r"White: \d+ stones, 0 on Black's home row")


def test_the_play_page_shows_the_lines_under_the_board_in_the_player_s_language(
    app: Flask, database: Database, alice: Client, bob: Client
) -> None:
    game_id = start(alice, bob, "epaminondas", {"board": "8x8"})
    link = play_link(database, alice, game_id)
    web = app.test_client()
    english = unescape(web.get(link).get_data(as_text=True))
    assert ENGLISH.search(english) and not GERMAN.search(english)
    set_language(database, alice.id, "de")
    german = unescape(web.get(link).get_data(as_text=True))
    assert GERMAN.search(german) and not ENGLISH.search(german)
    assert "Schwarz: " in german and "Black: " not in german


def test_the_game_page_shows_them_in_the_browser_s_language(
    app: Flask, alice: Client, bob: Client
) -> None:
    game_id = start(alice, bob, "epaminondas", {"board": "8x8"})
    web = app.test_client()
    german = web.get(f"/games/{game_id}", headers={"Accept-Language": "de"})
    assert GERMAN.search(unescape(german.get_data(as_text=True)))
    english = unescape(web.get(f"/games/{game_id}").get_data(as_text=True))
    assert ENGLISH.search(english) and not GERMAN.search(english)


def test_a_preview_on_the_play_page_tells_what_would_happen_in_the_player_s_language(
    app: Flask, database: Database, alice: Client, bob: Client
) -> None:
    game_id = start(alice, bob, "epaminondas", {"board": "8x8"})
    link = play_link(database, alice, game_id)
    web = app.test_client()
    english = web.post(link, data={"move": "a1-a3", "do": "preview"}).get_data(as_text=True)
    assert "White played a1-a3." in english
    set_language(database, alice.id, "de")
    german = web.post(link, data={"move": "a1-a3", "do": "preview"}).get_data(as_text=True)
    assert "Weiß spielte a1-a3." in german and "White played" not in german


def test_the_game_page_names_the_seats_in_the_browser_s_language(
    app: Flask, alice: Client, bob: Client
) -> None:
    """The public game page's players table names the seats as the page's reader does; the
    API's game, data, keeps the engine's English names."""
    game_id = start(alice, bob, "epaminondas", {"board": "8x8"})
    web = app.test_client()
    german = web.get(f"/games/{game_id}", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "<tr><td>Weiß</td>" in german and "<tr><td>Schwarz</td>" in german
    assert "<tr><td>White</td>" not in german
    russian = web.get(f"/games/{game_id}", headers={"Accept-Language": "ru"}).get_data(as_text=True)
    assert "<tr><td>Белые</td>" in russian and "<tr><td>Чёрные</td>" in russian
    english = web.get(f"/games/{game_id}").get_data(as_text=True)
    assert "<tr><td>White</td>" in english and "<tr><td>Black</td>" in english
    headers = {"Authorization": f"Bearer {alice.token}", "Accept-Language": "de"}
    data = alice.client.get(f"/api/v1/games/{game_id}", headers=headers).get_json()
    assert [seat["name"] for seat in data["game"]["seats"]] == ["White", "Black"]


def test_a_players_page_lists_games_in_the_browser_s_language(
    app: Flask, alice: Client, bob: Client
) -> None:
    """Running games by their status line, ended ones by their result, the reason a
    resignation gives included, in the page's language; in English as before."""
    running = start(alice, bob, "epaminondas", {"board": "8x8"})
    ended = start(alice, bob, "epaminondas", {"board": "8x8"})
    alice.ok("POST", f"/games/{ended}/resign")
    web = app.test_client()
    page = f"/players/{bob.id}"
    german = unescape(web.get(page, headers={"Accept-Language": "de"}).get_data(as_text=True))
    assert f"#{running}" in german and "Weiß am Zug" in german, german
    assert "(Weiß hat aufgegeben)" in german and "White resigned" not in german
    english = unescape(web.get(page).get_data(as_text=True))
    assert "Game over: 0-1 (White resigned)" in english and "White to move" in english
