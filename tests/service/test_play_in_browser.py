"""One-click play in a real headless Chromium: a whole Epaminondas game (8×8) and an Elasta
turn played by clicking through the signed links the players' mails carry, against the
service on a real HTTP server on loopback. Screenshots of each game's page go to
``docs/screenshots/``.

The browser is ``tests/browser.py``'s (the system Chromium, never ``playwright install``).
"""

from __future__ import annotations

import random
from typing import Any

from service import chain, games
from service.db import Database
from tests.browser import browser, screenshot, server
from tests.service.conftest import Client
from tests.service.mails import readable
from tests.service.test_play_page import latest_mail, play_link, start

__all__ = ["browser", "server"]  # the module's fixtures


def new_page(browser: Any, problems: list[str], base: str) -> Any:
    page = browser.new_page(viewport={"width": 800, "height": 1000})
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}"))
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on(
        "request",
        lambda r: None if r.url.startswith(base) else problems.append(f"outside: {r.url}"),
    )
    return page


def click_move(page: Any, move: str) -> None:
    """Click the squares of ``move`` in order; pick it from the offered choices if needed."""
    for square in _squares(move):
        page.click(f"#board td[data-square='{square}']")
    if page.input_value("#move") != move:
        page.click(f"#choices button[data-move='{move}']")
    assert page.input_value("#move") == move


def forward(legal: list[str], seat: int) -> list[str]:
    """The moves that advance furthest toward the far row (so the game ends in fewer moves)."""

    def gain(move: str) -> int:
        ranks = [int(square[1:]) for square in _squares(move)]
        return (ranks[-1] - ranks[0]) * (1 if seat == 0 else -1)

    best = max(gain(move) for move in legal)
    return [move for move in legal if gain(move) == best]


def _squares(move: str) -> list[str]:
    import re

    return re.findall(r"[a-z][0-9]+", move)


def test_a_whole_epaminondas_game_played_by_clicking_through_the_signed_links(
    browser: Any, server: str, database: Database, alice: Client, bob: Client
) -> None:
    game_id = start(alice, bob, "epaminondas", {"board": "8x8"})
    seats, rng, problems = [alice, bob], random.Random(16), []
    page = new_page(browser, problems, server)
    moves = 0
    while True:
        with database.transaction() as session:
            game = games.get(session, game_id)
            if game.status != games.ACTIVE:
                break
            mover = games.state_of(game).to_act[0]
        page.goto(server + play_link(database, seats[mover], game_id))
        legal = page.eval_on_selector_all("#legal li", "items => items.map(i => i.dataset.move)")
        move = rng.choice(forward(legal, mover))
        click_move(page, move)
        if moves in (0, 1):
            with page.expect_navigation(wait_until="load"):  # the form's POST, then its answer
                page.click("#preview")
            assert page.locator("#preview-title").count() == 1
            assert page.input_value("#move") == move
            if moves == 1:  # Black: the preview is drawn from Black's side, as the board
                corners = "els => [els[0].dataset.square, els[els.length - 1].dataset.square]"
                board = page.eval_on_selector_all("#board td[data-square]", corners)
                shown = page.eval_on_selector_all("#preview-grid td[data-square]", corners)
                assert board == shown == ["h1", "a8"], (board, shown)
                click_move(page, move)  # show the clicked squares in the screenshot
                screenshot(page, "epaminondas-play")
        page.click("#send")
        assert f"Your move for turn {moves + 1} is played." in page.inner_text("#done")
        assert page.locator("#expired").count() == 0  # no "which is over" under it
        moves += 1
        assert moves < 400
    record = alice.ok("GET", f"/games/{game_id}/record")
    assert record["status"] == "finished" and len(record["chain"]) == moves + 2
    assert {o["channel"] for o in record["orders"]} == {"web"}
    assert chain.verify(record).ok, chain.verify(record).summary()
    page.close()
    assert not problems


def test_an_elasta_turn_played_by_clicking_chips_onto_files(
    browser: Any, server: str, database: Database, alice: Client, bob: Client
) -> None:
    game_id = start(alice, bob, "elasta", {})
    problems: list[str] = []
    page = new_page(browser, problems, server)
    orders = {0: "a7 b6 c5 d4 e3 f2 g1 h0", 1: "a0 b1 c2 d3 e4 f5 g6 h7"}
    for seat, player in enumerate((alice, bob)):
        link = server + play_link(database, player, game_id)
        page.goto(link)
        for token in orders[seat].split():
            page.click(f"#chips button[data-chip='{token[1]}']")
            page.click(f"#board td[data-square='{token[0]}4']")
        assert page.input_value("#move") == orders[seat]
        with page.expect_navigation(wait_until="load"):
            page.click("#preview")
        assert page.locator("#preview-board table").count() == 1
        page.click("#send")
        if seat == 0:
            assert "sent, sealed" in page.inner_text("#sealed")
            assert page.locator("#done").count() == 0
            # issue 21, point 6: the receipt mail a mailed order gets, with the same receipt
            shown = page.inner_text("#sealed code.hash")
            receipt = latest_mail(database, player, game_id)
            assert receipt.kind == "orders_received" and f"Receipt: {shown}" in readable(receipt)
            screenshot(page, "elasta-play")
    assert page.locator("#expired").count() == 0
    assert "the turn has resolved with them. Turn 2 is open" in page.inner_text("#done")
    record = bob.ok("GET", f"/games/{game_id}/record")
    applied = {(o["seat"], o["parsed"], o["channel"]) for o in record["orders"]}
    assert (0, "76543210", "web") in applied and (1, "01234567", "web") in applied
    page.close()
    assert not problems
