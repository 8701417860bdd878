"""Issue 21, point 3: players can read the rules. ``/rules/<game>`` serves each game's rules,
written for players (notation first, with examples the engine accepts), every rule under its id
as an anchor; every mail links its game's rules, the ``help`` mail says how moves are written,
and every error that cites a rule links to it, by mail, in the API and on the play page."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

import engine
from service import rules
from service.db import Database
from tests.browser import (
    PHONE_WIDTHS,
    assert_fits,
    axe_violations,
    browser,
    screenshot,
    server,  # noqa: F401  (a fixture)
)
from tests.outside import SHARED
from tests.service.conftest import Client
from tests.service.gateway_kit import latest, mails, make_game, reply, text_of
from tests.service.test_gateway_reading import send
from tests.service.test_play_page import play_link, start

__all__ = ["browser"]  # the fixture, imported for the tests below

ROOT = Path(__file__).resolve().parents[2]
RULE_BOOKS = SHARED / "rules"
"""The rule books the text was written from; beside a checkout only, never needed."""
ALICE = "alice@example.org"
PREFIXES = {rules.book(name).ids[0].split("-")[0]: name for name in rules.names()}


class Anchors(HTMLParser):
    """The ids and the in-page links (``href="#..."``) of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.rule_headings: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.append(str(values["id"]))
            if tag == "h3":
                self.rule_headings.append(str(values["id"]))
        if tag == "a" and (values.get("href") or "").startswith("#"):
            self.links.append(str(values["href"])[1:])


def anchors(html: str) -> Anchors:
    parser = Anchors()
    parser.feed(html)
    return parser


def page(app: Flask, path: str) -> tuple[int, str]:
    response = app.test_client().get(path)
    return response.status_code, response.get_data(as_text=True)


# -- the pages --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", rules.names())
def test_each_game_has_a_rules_page_with_every_rule_under_its_id(app: Flask, name: str) -> None:
    """Issue 21, point 3: /rules/<game> answers for all five games, notation first; each rule
    of the committed text is a heading with its id, and each in-page link finds its anchor."""
    status, html = page(app, f"/rules/{name}")
    assert status == 200
    book = rules.book(name)
    found = anchors(html)
    committed = re.findall(r"^### ([A-Z]{3}-\d+) ", (rules.HERE / f"{name}.md").read_text(), re.M)
    assert found.rule_headings == committed == list(book.ids)
    assert len(set(found.ids)) == len(found.ids), "an id twice on one page"
    assert set(found.links) <= set(found.ids)
    assert html.index("How to write your") < html.index(f'id="{book.ids[0]}"')
    assert f"Rules of {book.title}" in html


def test_the_rules_index_links_every_game_and_an_unknown_game_is_a_clear_404(app: Flask) -> None:
    """Issue 21, point 3: /rules lists the five games; /rules/<unknown> says which exist."""
    status, html = page(app, "/rules")
    assert status == 200
    for name in rules.names():
        assert f'href="/rules/{name}"' in html
    status, html = page(app, "/rules/chess")
    assert status == 404
    assert "There are no rules for &#39;chess&#39;" in html
    assert all(f'href="/rules/{name}"' in html for name in rules.names())


def engine_citations() -> set[str]:
    """Every rule id of a game that the engine's sources name (its messages cite them)."""
    cited = set()
    for path in (ROOT / "engine").rglob("*.py"):
        for rule in rules.RULE_ID.findall(path.read_text(encoding="utf-8")):
            if rule.split("-")[0] in PREFIXES:
                cited.add(rule)
    return cited


def test_every_rule_the_engine_can_cite_has_an_anchor_on_its_games_page(app: Flask) -> None:
    """Issue 21, point 3: each rule id an error can cite links to an anchor that exists."""
    cited = engine_citations()
    assert {rule.split("-")[0] for rule in cited} == set(PREFIXES)
    pages = {name: anchors(page(app, f"/rules/{name}")[1]).ids for name in rules.names()}
    missing = sorted(rule for rule in cited if rule not in pages[PREFIXES[rule.split("-")[0]]])
    assert missing == []


@pytest.mark.parametrize("name", rules.names())
def test_the_notation_examples_are_read_by_the_engine(name: str) -> None:
    """Issue 21, point 3: the examples on the page are legal from the start (the ones shown as
    refused are refused), and the help mail's example too."""
    book = rules.book(name)
    legal = [example for example in book.examples if not example.refused]
    assert legal, f"the {name} page shows no example"
    for example in legal:
        example.check(name)
    for example in book.examples:
        if example.refused:
            with pytest.raises(engine.EngineError):
                example.check(name)
    rules.Example(book.example).check(name)


@pytest.mark.outside_material("rules")
@pytest.mark.parametrize("name", rules.names())
def test_every_rule_of_the_rule_book_is_on_the_page(name: str) -> None:
    """Issue 21, point 3: the page has each rule the book has (ELE-20 too), under its id."""
    book = (RULE_BOOKS / f"{name}.md").read_text(encoding="utf-8")
    ids = re.findall(r"\*\*([A-Z]{3}-\d+)\*\*", book)
    assert ids and sorted(ids) == sorted(rules.book(name).ids)


def test_rule_links_find_each_cited_rule_of_the_game_once() -> None:
    message = "illegal move 'a1-a2': a2 is not a point (ANT-4, ANT-8); see ANT-4, SHA-256, ANT-99"
    assert rules.rule_links("anti-grid", message, "https://x") == [
        ("ANT-4", "https://x/rules/anti-grid#ANT-4"),
        ("ANT-8", "https://x/rules/anti-grid#ANT-8"),
    ]
    assert rules.rule_links(None, "at most 1 square (EPA-5)") == [
        ("EPA-5", "/rules/epaminondas#EPA-5")
    ]
    assert rules.rule_links("elasta", "at most 1 square (EPA-5)") == []


# -- links from mails, the API and the play page ---------------------------------------------


def test_an_illegal_move_by_mail_is_answered_with_a_link_to_the_rule(
    app: Flask, database: Database
) -> None:
    """Issue 21, point 3: the error reply to an illegal move links the cited rule (EPA-5) in
    text and HTML, and the anchor is there on the rules page."""
    game_id, _, _ = make_game(database, "epaminondas")
    row = send(database, reply(latest(database, ALICE, game_id), ALICE, "b2-b4"))
    assert row.status == "rejected", row.result
    assert len(mails(database, ALICE, "error_reply")) == 1
    mail = latest(database, ALICE, game_id)
    link = f"{database.settings.public_url}/rules/epaminondas#EPA-5"
    text = text_of(mail)
    assert "(EPA-5)" in text and f"Rule EPA-5: {link}" in text
    html_part = mail.get_body(("html",))
    assert html_part is not None
    assert f'<a href="{link}"' in str(html_part.get_content())
    assert "EPA-5" in anchors(page(app, "/rules/epaminondas")[1]).ids
    assert f"Rules of Epaminondas: {database.settings.public_url}/rules/epaminondas" in text


def test_an_illegal_move_by_the_api_carries_the_link_to_the_rule(
    app: Flask, database: Database, alice: Client, bob: Client
) -> None:
    """Issue 21, point 3: the API's error body keeps code and message and adds the rules."""
    game_id = start(alice, bob, "epaminondas", {})
    response = alice.post(f"/games/{game_id}/moves", {"turn": 1, "text": "b2-b4"})
    assert response.status_code == 422
    error = response.get_json()["error"]
    assert error["code"] == "illegal_move" and "(EPA-5)" in error["message"]
    link = f"{database.settings.public_url}/rules/epaminondas#EPA-5"
    assert error["rules"] == [{"id": "EPA-5", "url": link}]
    stale = alice.post(f"/games/{game_id}/moves", {"turn": 7, "text": "a1-a3"}).get_json()
    assert "rules" not in stale["error"], "a refusal that cites no rule links none"
    alice.ok("POST", f"/games/{game_id}/moves", {"turn": 1, "text": "a1-a3"})
    branch = {"turn": 2, "text": "if b11-b10 then b2-b4"}
    refused = alice.post(f"/games/{game_id}/conditional", branch)
    assert refused.status_code == 422, refused.get_data(as_text=True)
    assert refused.get_json()["error"]["rules"] == [{"id": "EPA-5", "url": link}]


def test_the_play_page_links_the_rules_and_the_rule_its_error_cites(
    app: Flask, database: Database, alice: Client, bob: Client
) -> None:
    """Issue 21, point 3: the play page links the game's rules; its error links the rule."""
    game_id = start(alice, bob, "epaminondas", {})
    web = app.test_client()
    link = play_link(database, alice, game_id)
    assert 'href="/rules/epaminondas"' in web.get(link).get_data(as_text=True)
    wrong = web.post(link, data={"move": "b2-b4", "do": "play"}).get_data(as_text=True)
    assert '(<a href="/rules/epaminondas#EPA-5">EPA-5</a>)' in wrong


def test_the_help_mail_says_how_moves_are_written_and_links_the_rules(database: Database) -> None:
    """Issue 21, point 3: `help` names the game's notation with an example, not "the game's
    own notation", and links the rules page."""
    game_id, _, _ = make_game(database, "nelaxtam")
    send(database, reply(latest(database, ALICE, game_id), ALICE, "help"))
    [help_mail] = mails(database, ALICE, "help")
    text = text_of(latest(database, ALICE, game_id))
    book = rules.book("nelaxtam")
    flat = " ".join(text.split())
    assert "own notation" not in flat
    assert f"How to write a move in Nelaxtam #{game_id}: {book.summary}" in flat
    assert f"For example: {book.example}" in flat
    assert f"{database.settings.public_url}/rules/nelaxtam" in flat
    assert help_mail.kind == "help"


# -- phones and screen readers ----------------------------------------------------------------


@pytest.mark.parametrize("path", ["/rules", *(f"/rules/{name}" for name in rules.names())])
def test_the_rules_pages_fit_a_phone_and_axe_finds_nothing_serious(
    browser: Any,
    server: str,  # noqa: F811  (the fixture imported above)
    path: str,
) -> None:
    """Issue 21, points 1 and 3: each rules page fits 320 and 390 px without a sideways
    scroll, and axe-core reports no serious or critical violation (the screen at 390 px is
    kept in docs/screenshots/ for a person to look at)."""
    for width in PHONE_WIDTHS:
        page = browser.new_page(viewport={"width": width, "height": 900})
        try:
            page.goto(server + path)
            assert_fits(page, path)
            violations = axe_violations(page)
            assert violations == [], [str(v) for v in violations]
            if width == 390:
                screenshot(page, path.strip("/").replace("/", "-") + "-390", full_page=False)
        finally:
            page.close()
