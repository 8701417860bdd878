"""The public game page and the mail-settings pages: what a spectator sees, escaping, friendly
404s, one-click unsubscribe, and the page in a real headless Chromium with no console errors."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from werkzeug.serving import make_server

from service.mail.links import settings_token
from tests.browser import CHROMIUM, CHROMIUM_ARGS, INSTALL_HINT
from tests.service.conftest import Client, new_player
from tests.service.test_api import start
from tests.system_tools import require_system_tool

VOLATILE = re.compile(r'#\d+|Id &#34;\d+&#34;|datetime="[^"]*"|\d{4}[-.]\d\d[-.]\d\d[T \d:]*')
HOSTILE = '<script>alert("x")</script> & Eve'


def page(client: Client, path: str) -> tuple[int, str]:
    response = client.client.get(path)
    return response.status_code, response.get_data(as_text=True)


def test_a_game_page_shows_board_seats_and_what_happened(alice: Client, bob: Client) -> None:
    game = start(alice, bob, "countdown")["id"]
    alice.ok("POST", f"/games/{game}/moves", {"turn": 1, "text": "take 2"})
    status, html = page(alice, f"/games/{game}")
    assert status == 200
    assert f"Countdown #{game}" in html and "Alice" in html and "Bob" in html
    assert "Player 1 took 2" in html and "1. take 2" in html
    assert "<pre" in html and "ooooo" in html  # the toy's board has no grid: its ASCII picture


def test_player_names_are_escaped(admin: Client, alice: Client) -> None:
    eve = new_player(admin, "Eve")
    eve.ok("PATCH", "/players/me", {"name": HOSTILE})
    game = start(alice, eve, "countdown")["id"]
    status, html = page(alice, f"/games/{game}")
    assert status == 200 and HOSTILE not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; Eve" in html


@pytest.mark.parametrize("path", ["/games/999999", "/games/0", "/games/abc", "/games/9" + "9" * 40])
def test_an_unknown_game_gets_a_friendly_404(anonymous: Client, path: str) -> None:
    status, html = page(anonymous, path)
    assert status == 404 and "<h1>Not found</h1>" in html


def test_the_spectator_page_never_shows_sealed_orders(alice: Client, bob: Client) -> None:
    """The same page whatever Alice sealed, until the turn resolves."""
    seen = []
    for order in ("3", "2"):
        game = start(alice, bob)["id"]
        alice.ok("POST", f"/games/{game}/moves", {"turn": 1, "text": order})
        status, html = page(bob, f"/games/{game}")
        assert status == 200
        seen.append(
            re.sub(
                r"#\d+|Id &#34;\d+&#34;|datetime=\"[^\"]*\"|\d{4}[-.]\d\d[-.]\d\d[T \d:]*",
                "~",
                html,
            )
        )
    assert seen[0] == seen[1]
    bob.ok("POST", f"/games/{game}/moves", {"turn": 1, "text": "1"})
    assert "2 | 1" in page(bob, f"/games/{game}")[1]


def test_the_dice_seed_shows_only_once_the_game_is_over(
    database: Any, alice: Client, bob: Client
) -> None:
    game = start(alice, bob, "dicecountdown")["id"]
    assert "Dice seed, revealed" not in page(alice, f"/games/{game}")[1]
    bob.ok("POST", f"/games/{game}/resign")
    assert "Dice seed, revealed" in page(alice, f"/games/{game}")[1]


def test_mail_settings_and_one_click_unsubscribe(database: Any, alice: Client) -> None:
    token = settings_token(database.settings.secret(), alice.id)
    status, html = page(alice, f"/mail/{token}")
    assert status == 200 and 'value="each" checked' in html
    assert alice.client.get(f"/mail/{token}/unsubscribe").status_code == 200
    assert alice.ok("GET", "/players/me")["player"]["notify"] == "each"  # a GET changes nothing
    saved = alice.client.post(f"/mail/{token}", data={"notify": "digest"})
    assert saved.status_code == 200 and alice.ok("GET", "/players/me")["player"]["notify"] == (
        "digest"
    )
    assert alice.client.post(f"/mail/{token}", data={"notify": "often"}).status_code == 400
    one_click = alice.client.post(
        f"/mail/{token}/unsubscribe", data={"List-Unsubscribe": "One-Click"}
    )
    assert one_click.status_code == 200
    assert alice.ok("GET", "/players/me")["player"]["notify"] == "none"
    forged = token.split(".")[0] + ".aaaaaaaaaaaaaaaaaaaa"
    assert alice.client.post(f"/mail/{forged}/unsubscribe").status_code == 404


@pytest.fixture
def served(app: Flask) -> Iterator[str]:
    """The app on a real loopback socket (port 0: a free one)."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join()


@pytest.mark.parametrize("game_name", ["epaminondas", "dicecountdown"])
def test_the_game_page_opens_in_headless_chromium_without_errors(
    served: str, admin: Client, alice: Client, bob: Client, game_name: str
) -> None:
    require_system_tool(CHROMIUM, INSTALL_HINT)
    from playwright.sync_api import sync_playwright

    game = start(alice, bob, game_name)["id"]
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
        response = tab.goto(f"{served}/games/{game}", wait_until="load")
        title = tab.title()
        missing = tab.goto(f"{served}/games/424242", wait_until="load")
        browser.close()
    assert response is not None and response.status == 200
    assert missing is not None and missing.status == 404
    assert title.endswith("· pbem") and f"#{game}" in title
    assert not [p for p in problems if "404" not in p]
