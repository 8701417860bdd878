"""Issue 25, 2 in a real headless Chromium at a phone's 390 px: the play page's notes box
saves a note by its plain form, shows it back, and the page and the author's HTML mail with
the note fit the width with no serious accessibility violation."""

from __future__ import annotations

from typing import Any

from service.db import Database
from tests.browser import assert_fits, axe_violations, browser, open_html, screenshot, server
from tests.service.conftest import Client
from tests.service.gateway_kit import latest
from tests.service.test_play_page import play_link, start

__all__ = ["browser", "server"]  # the module's fixtures

NOTE = "Plan: keep 3 for the end; a long word to wrap: " + "antidisestablishmentarianism" * 3


def test_the_notes_box_at_390_px_saves_and_shows_the_note(
    browser: Any, server: str, database: Database, alice: Client, bob: Client
) -> None:
    game_id = start(alice, bob, "countdown", {"pile": "15"})
    page = browser.new_page(viewport={"width": 390, "height": 900})
    page.goto(server + play_link(database, alice, game_id))
    page.fill("#note", NOTE)
    with page.expect_navigation(wait_until="load"):
        page.click("#save-note")
    assert "saved" in page.inner_text("#note-saved")
    assert page.input_value("#note") == NOTE
    assert_fits(page, "the play page with a note")
    assert not axe_violations(page)
    page.locator("#notes").scroll_into_view_if_needed()
    screenshot(page, "notes-play-390", full_page=False)
    page.close()
    assert alice.ok("GET", f"/games/{game_id}/note")["note"] == NOTE

    alice.ok("POST", f"/games/{game_id}/moves", {"turn": 1, "text": "take 1"})
    bob.ok("POST", f"/games/{game_id}/moves", {"turn": 2, "text": "take 1"})
    part = latest(database, "alice@example.org", game_id).get_body(("html",))
    assert part is not None
    html = str(part.get_content())
    assert "antidisestablishmentarianism" in html
    mail = open_html(browser, html, 390)
    assert_fits(mail, "Alice's mail with her note")
    mail.close()
