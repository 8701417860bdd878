"""Issue 22, point 4, in a real headless Chromium against the service on a loopback HTTP
server: a director signs in through the link of the mail the service wrote (its ``.eml``),
sees the stuck and late games first, and does every action through its confirmation page,
each landing in the audit log; a player signs in from the button of their mail-settings page,
is refused the console with a 403 page, and gets a new API token (the old one then fails).
Every page fits 320 and 390 px phones and a desktop, with no serious axe-core finding.
"""

from __future__ import annotations

import email
import email.policy
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

from service.db import Database
from service.mail.links import settings_token
from tests.browser import (
    DESKTOP_WIDTH,
    PHONE_WIDTHS,
    assert_fits,
    axe_violations,
    browser,
    screenshot,
    server,
)
from tests.service.conftest import Client
from tests.service.test_console import TESS, audit, make_world, move_deadline

__all__ = ["browser", "server"]  # the module's fixtures
LINK = re.compile(r"https?://\S+?(/sign-in/[\w.]+)")


def mailed_link(database: Database, address: str) -> str:
    """The path of the sign-in link in the newest ``.eml`` the service wrote to ``address``."""
    files = sorted(Path(database.settings.mail_dir).glob("*-sign_in.eml"))
    for path in reversed(files):
        mail = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        if address in str(mail["To"]):
            text = mail.get_body(("plain",))
            assert text is not None
            found = LINK.search(text.get_content())
            assert found, "the sign-in mail carries no link"
            return found[1]
    raise AssertionError(f"no sign-in mail to {address} was written")


def click_and_wait(page: Any, selector: str) -> None:
    """Click what sends a form or follows a link, and wait for the next page to load."""
    with page.expect_navigation():
        page.click(selector)


def looks_right(page: Any, name: str) -> None:
    """The page fits every width without a sideways scroll, and axe-core finds nothing
    serious; a screenshot at 390 px (kept with ``SCREENSHOTS=1``)."""
    for width in (*PHONE_WIDTHS, DESKTOP_WIDTH):
        page.set_viewport_size({"width": width, "height": 900})
        assert_fits(page, f"{name} at {width}px")
        if width == 390:
            screenshot(page, f"console-{name}-390")
    page.set_viewport_size({"width": 390, "height": 900})
    found = axe_violations(page)
    assert not found, f"{name}: " + "; ".join(map(str, found))


def test_a_director_signs_in_by_the_mailed_link_and_acts_through_each_confirmation(
    browser: Any, server: str, database: Database, admin: Client
) -> None:
    world = make_world(admin)
    game, league = world.league_games[0], world.league_id
    stuck, late = world.league_games[1], world.own_game
    move_deadline(database, stuck, -timedelta(hours=3))
    move_deadline(database, late, -timedelta(minutes=5))
    page = browser.new_page(viewport={"width": 390, "height": 900})
    page.goto(server + "/sign-in")
    looks_right(page, "sign-in")
    page.fill("#address", TESS)
    click_and_wait(page, "button[type=submit]")
    assert "a sign-in link is on its way" in page.inner_text("main")
    page.goto(server + mailed_link(database, TESS))
    looks_right(page, "sign-in-link")
    click_and_wait(page, "main button[type=submit]")
    assert page.url == server + "/console"
    flags = page.eval_on_selector_all(
        "#games tbody tr", "rows => rows.map(r => [Number(r.dataset.game), r.dataset.flag])"
    )
    assert flags == [[stuck, "stuck"], [late, "late"], [game, None]]
    looks_right(page, "console")
    page.fill("#q", "example.org")
    click_and_wait(page, "form[action$='/console/players'] button")
    assert "eve@example.org" in page.inner_text("#players")
    looks_right(page, "players")
    alice = world.people[0]
    steps = [
        ("game", game, "pause", {"reason": "in hospital"}, "pause_game"),
        ("game", game, "extend", {"days": "2", "reason": "postal strike"}, "extend_deadline"),
        ("game", game, "resume", {"reason": "back home"}, "resume_game"),
        ("game", game, "process", {"reason": "both asked"}, "process_now"),
        ("game", game, "replace", {"by": "eve@example.org", "reason": "ill"}, "replace_player"),
        ("game", game, "result", {"result": "1-0", "reason": "never moved"}, "set_result"),
        ("league", league, "message", {"subject": "Round 2", "text": "Monday."}, "message"),
        ("league", league, "pause", {"reason": "holidays"}, "pause_league"),
        ("league", league, "resume", {"reason": "holidays over"}, "resume_league"),
    ]
    for number, (scope, target, name, fields, logged) in enumerate(steps):
        page.goto(f"{server}/console/{scope}s/{target}")
        if number in (0, 6):
            looks_right(page, f"{scope}-desk")
        if name == "replace":
            page.select_option("#replace-player", str(alice.id))
        for field, value in fields.items():
            page.fill(f"#{name}-{field}", value)
        click_and_wait(page, f"#act-{name} button[type=submit]")
        sentence = page.inner_text("#sentence")
        assert str(target) in sentence, sentence
        if number == 0:
            assert sentence == f"Pause game {game} because in hospital?"
            looks_right(page, "confirm")
        click_and_wait(page, "#confirm button[type=submit]")
        assert page.inner_text("#done").startswith("Done: "), page.inner_text("main")
        entry = audit(database)[-1]
        assert entry[0] == logged and entry[3] == "Tess"
        assert entry[4] == fields.get("reason", fields.get("subject"))
    assert [row[0] for row in audit(database)] == [step[4] for step in steps]
    page.close()


def test_a_player_signs_in_from_the_settings_page_is_refused_the_console_and_renews_the_token(
    browser: Any, server: str, database: Database, admin: Client
) -> None:
    world = make_world(admin)
    alice = world.people[0]
    page = browser.new_page(viewport={"width": 320, "height": 900})
    page.goto(f"{server}/mail/{settings_token(database.settings.secret(), alice.id)}")
    click_and_wait(page, "text=Send me a sign-in link")
    assert "We mailed a sign-in link to alice@example.org" in page.inner_text("main")
    link = mailed_link(database, "alice@example.org")
    number, expires, tag = link.rsplit("/", 1)[1].split(".")
    refused = page.goto(f"{server}/sign-in/{number}.{int(expires) + 60}.{tag}")
    assert refused is not None and refused.status == 400
    assert "This sign-in link does not work" in page.inner_text("main")
    page.goto(server + link)
    click_and_wait(page, "main button[type=submit]")
    assert page.url == server + "/me"
    looks_right(page, "me")
    answer = page.goto(server + "/console")
    assert answer is not None and answer.status == 403
    assert "This page is for tournament directors" in page.inner_text("main")
    looks_right(page, "forbidden")
    page.goto(server + "/me")
    click_and_wait(page, "text=Get a new API token")
    looks_right(page, "token-confirm")
    assert alice.get("/players/me").status_code == 200
    click_and_wait(page, "text=Confirm: replace my API token")
    token = page.inner_text("#token").strip()
    looks_right(page, "token")
    assert alice.get("/players/me").status_code == 401
    assert Client(alice.client, token, alice.player).ok("GET", "/players/me")["player"]["id"] == (
        alice.id
    )
    page.close()


def test_the_console_in_german_fits_a_320_px_phone_too(
    browser: Any, server: str, database: Database, admin: Client
) -> None:
    """Issue 24: German's long words (Turnierleiter-Konsole, Prüfprotokoll) wrap at 320 px;
    the director's language is her own, the sign-in pages follow the browser's."""
    world = make_world(admin)
    world.tess.ok("PATCH", "/players/me", {"language": "de"})
    world.people[0].ok("PATCH", "/players/me", {"language": "de"})
    game, league, late = world.league_games[0], world.league_id, world.own_game
    move_deadline(database, world.league_games[1], -timedelta(hours=3))
    move_deadline(database, late, -timedelta(minutes=5))
    page = browser.new_page(
        viewport={"width": 320, "height": 900}, extra_http_headers={"Accept-Language": "de"}
    )
    page.goto(server + "/sign-in")
    assert page.inner_text("h1") == "Anmelden"
    looks_right(page, "de-sign-in")
    page.fill("#address", TESS)
    click_and_wait(page, "button[type=submit]")
    looks_right(page, "de-sign-in-sent")
    page.goto(server + mailed_link(database, TESS))
    looks_right(page, "de-sign-in-link")
    click_and_wait(page, "main button[type=submit]")
    assert page.inner_text("h1") == "Turnierleiter-Konsole"
    looks_right(page, "de-console")
    page.goto(f"{server}/console/players?q=example.org")
    looks_right(page, "de-players")
    page.goto(f"{server}/console/leagues/{league}")
    looks_right(page, "de-league-desk")
    page.goto(f"{server}/console/games/{game}")
    looks_right(page, "de-game-desk")
    page.fill("#result-result", "1-0")
    page.select_option("#result-forfeit", "missed_turns")
    page.fill("#result-reason", "Spielerin hat seit Wochen nicht gezogen")
    click_and_wait(page, "#act-result button[type=submit]")
    assert page.inner_text("#sentence").startswith(f"Ergebnis von Partie {game} auf 1-0 setzen")
    looks_right(page, "de-confirm")
    click_and_wait(page, "#confirm button[type=submit]")
    assert page.inner_text("#done").startswith("Erledigt: "), page.inner_text("main")
    looks_right(page, "de-done")
    page.goto(f"{server}/console/games/{late}")
    page.fill("#resume-reason", "Versehen")
    click_and_wait(page, "#act-resume button[type=submit]")
    click_and_wait(page, "#confirm button[type=submit]")
    assert page.inner_text("#error").startswith("Nicht getan: "), page.inner_text("main")
    looks_right(page, "de-refused")
    page.close()
    alice = browser.new_page(viewport={"width": 320, "height": 900})
    alice.goto(f"{server}/mail/{settings_token(database.settings.secret(), world.people[0].id)}")
    click_and_wait(alice, "main form[action$='/sign-in'] button")
    looks_right(alice, "de-link-sent")
    alice.goto(server + mailed_link(database, "alice@example.org"))
    click_and_wait(alice, "main button[type=submit]")
    looks_right(alice, "de-me")
    alice.goto(server + "/console")
    assert alice.inner_text("h1") == "Diese Seite ist für Turnierleiter"
    looks_right(alice, "de-forbidden")
    alice.goto(server + "/me/token")
    looks_right(alice, "de-token-confirm")
    alice.close()
