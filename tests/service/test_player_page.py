"""Ratings on players: current ratings in the player JSON (``/players/ID``, ``/players/me``),
and the public read-only player page ``/players/<id>`` (name, ratings, history, games with
links; everything escaped; no address or token; friendly 404), linked from game and league
pages, and opened in a real headless Chromium with no console errors."""

from __future__ import annotations

import re
from typing import Any

import pytest

from service.db import Database
from service.leagues import ratings
from tests.browser import CHROMIUM, CHROMIUM_ARGS, INSTALL_HINT
from tests.service.conftest import Client, new_player
from tests.service.test_api import start
from tests.service.test_web import HOSTILE, page, served  # noqa: F401  (served: a fixture)
from tests.system_tools import require_system_tool


def finished_game(alice: Client, bob: Client) -> int:
    game = int(start(alice, bob, "countdown")["id"])
    bob.ok("POST", f"/games/{game}/resign")
    return game


def test_player_json_carries_current_ratings(alice: Client, bob: Client, admin: Client) -> None:
    assert alice.ok("GET", "/players/me")["player"]["ratings"] == []
    finished_game(alice, bob)
    mine = alice.ok("GET", "/players/me")["player"]["ratings"]
    [rating] = mine
    assert rating["key"] == "countdown" and rating["system"] == ratings.GLICKO2
    assert rating["rating"] > 1500 and rating["games"] == 1
    assert rating["deviation"] < 350 and rating["volatility"] is not None
    assert rating["mu"] is None and rating["sigma"] is None
    seen_by_bob = bob.ok("GET", f"/players/{alice.id}")["player"]
    assert seen_by_bob["ratings"] == mine and "emails" not in seen_by_bob
    history = bob.ok("GET", f"/players/{alice.id}/ratings")
    assert history["ratings"] == mine and len(history["history"]) == 1


def test_the_player_page_shows_ratings_history_and_games(alice: Client, bob: Client) -> None:
    done = finished_game(alice, bob)
    running = int(start(alice, bob, "countdown")["id"])
    status, html = page(alice, f"/players/{alice.id}")
    assert status == 200
    assert "<h1>Alice</h1>" in html and "Glicko-2" in html and "RD " in html
    rating = alice.ok("GET", "/players/me")["player"]["ratings"][0]["rating"]
    assert str(rating) in html and "1500.0 →" in html
    active, finished = html.split("<h2>Finished games</h2>")
    assert f'href="/games/{running}"' in active.split("<h2>Active games</h2>")[1]
    assert f'href="/games/{done}"' in finished and "Game over" in finished
    assert f'href="/players/{bob.id}">Bob</a>' in html


def test_the_player_page_holds_no_private_data(
    database: Database, admin: Client, alice: Client
) -> None:
    eve = new_player(admin, "Eve")
    eve.ok("PATCH", "/players/me", {"name": HOSTILE})
    finished_game(eve, alice)
    for viewer, whom in ((alice, eve), (eve, eve), (eve, alice)):
        status, html = page(viewer, f"/players/{whom.id}")
        assert status == 200
        shown = re.sub(r"<style>.*?</style>", "", html, flags=re.S)  # (CSS has @media rules)
        assert "@" not in shown  # no address of anyone
        assert str(whom.token) not in html and str(viewer.token) not in html
    html = page(alice, f"/players/{eve.id}")[1]
    assert HOSTILE not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; Eve" in html


@pytest.mark.parametrize(
    "path", ["/players/999999", "/players/0", "/players/abc", "/players/9" + "9" * 40]
)
def test_an_unknown_player_gets_a_friendly_404(anonymous: Client, path: str) -> None:
    status, html = page(anonymous, path)
    assert status == 404 and "<h1>Not found</h1>" in html


def test_game_and_league_pages_link_to_player_pages(admin: Client, alice: Client) -> None:
    bob = new_player(admin, "Bob")
    game = finished_game(alice, bob)
    html = page(alice, f"/games/{game}")[1]
    assert f'<a href="/players/{alice.id}">Alice</a>' in html
    league = admin.ok("POST", "/leagues", {"name": "Cup", "game": "countdown"}, status=201)
    path = f"/leagues/{league['league']['id']}"
    admin.ok("POST", path + "/players", {"players": [alice.id, bob.id]})
    for person in (alice, bob):
        person.ok("POST", path + "/accept")
    admin.ok("POST", path + "/start")
    status, html = page(alice, path)
    assert status == 200
    assert f'<a href="/players/{alice.id}">Alice</a>' in html
    assert f'<a href="/players/{bob.id}">Bob</a>' in html


def test_the_player_page_opens_in_headless_chromium_without_errors(
    served: str,  # noqa: F811
    admin: Client,
    alice: Client,
    bob: Client,
) -> None:
    require_system_tool(CHROMIUM, INSTALL_HINT)
    from playwright.sync_api import sync_playwright

    finished_game(alice, bob)
    start(alice, bob, "countdown")
    problems: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": 800, "height": 900})
        tab.on("console", lambda m: problems.append(f"console {m.type}: {m.text}"))
        tab.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        tab.on(
            "request",
            lambda r: None if r.url.startswith(served) else problems.append(f"request {r.url}"),
        )
        response = tab.goto(f"{served}/players/{alice.id}", wait_until="load")
        title = tab.title()
        heading = tab.inner_text("h1")
        rows = tab.locator("table").first.locator("tbody tr").count()
        tab.click(f'a[href="/players/{bob.id}"] >> nth=0')
        tab.wait_for_load_state("load")
        followed: Any = tab.inner_text("h1")
        missing = tab.goto(f"{served}/players/424242", wait_until="load")
        browser.close()
    assert response is not None and response.status == 200
    assert missing is not None and missing.status == 404
    assert title == "Alice · pbem" and heading == "Alice" and rows == 1
    assert followed == "Bob"
    assert not [p for p in problems if "404" not in p]
