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
from markupsafe import escape

import engine
from service import i18n, rules
from service.db import Database
from service.models import Player
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
from tests.service.gateway_kit import latest, mails, make_game, player_id, reply, text_of
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


# -- in every language (issue 24) ------------------------------------------------------------

RULE_HEADING = re.compile(r"^### ([A-Z]{3}-\d+) ", re.M)
MOVES = re.compile(r"^```(?:example|refused)\b.*?^```$", re.M | re.S)
"""An ```` ```example ```` or ```` ```refused ```` block, its options and moves."""
TRANSLATED = [
    (code, name) for name in rules.names() for code in rules.languages(name) if code != i18n.DEFAULT
]
"""Every rules page written in another language: whatever ``service/rules/<lang>/`` holds."""


def test_every_translated_rules_file_is_of_a_supported_language_and_game() -> None:
    """A file the service would never show (``service/rules/xx/`` or a misspelt game) is a
    mistake, not a translation."""
    for folder in (path for path in rules.HERE.iterdir() if path.is_dir()):
        if folder.name == "__pycache__":
            continue
        assert folder.name in i18n.LANGUAGES and folder.name != i18n.DEFAULT, folder
        assert {path.stem for path in folder.glob("*.md")} <= set(rules.names()), folder


@pytest.mark.parametrize(("code", "name"), TRANSLATED)
def test_a_translated_rules_page_keeps_the_ids_the_moves_and_the_front_matter(
    code: str, name: str
) -> None:
    """Issue 24: a page in another language has the English page's front matter keys (all
    filled; the same ``players`` and ``example``), its rule ids in the same order and its
    example and refused blocks byte for byte."""
    english = (rules.HERE / f"{name}.md").read_text(encoding="utf-8")
    text = (rules.HERE / code / f"{name}.md").read_text(encoding="utf-8")
    english_meta, _ = rules._front_matter(english)
    meta, _ = rules._front_matter(text)
    assert set(meta) == set(english_meta) and all(meta.values()), meta
    assert (meta["players"], meta["example"]) == (english_meta["players"], english_meta["example"])
    assert RULE_HEADING.findall(text) == RULE_HEADING.findall(english)
    assert MOVES.findall(text) == MOVES.findall(english)
    book, source = rules.book(name, code), rules.book(name)
    assert (book.locale, book.ids, book.examples) == (code, source.ids, source.examples)


def answered(name: str, example: rules.Example, code: str) -> str:
    """The engine's answer to a refused ``example`` in language ``code``, as its page shows it
    (each cited rule a link to its anchor)."""
    with pytest.raises(engine.EngineError) as refused:
        example.check(name)
    answer = refused.value.render(*i18n.translators(code))
    return str(rules.linked(answer, [(rule, f"#{rule}") for rule in rules.RULE_ID.findall(answer)]))


@pytest.mark.parametrize(("code", "name"), TRANSLATED)
def test_a_translated_page_shows_every_rule_and_the_engines_answers_in_its_language(
    app: Flask, code: str, name: str
) -> None:
    """Issue 24: the page in the reader's language has each rule under its id, in-page links
    that find their anchors, ``<html lang>`` its language, and each refused move answered
    with the engine's words in that language."""
    response = app.test_client().get(f"/rules/{name}", headers={"Accept-Language": code})
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    found = anchors(html)
    assert found.rule_headings == list(rules.book(name).ids)
    assert set(found.links) <= set(found.ids)
    assert f'<html lang="{code}">' in html
    for example in rules.book(name, code).examples:
        if example.refused:
            assert answered(name, example, code) in html


def test_the_rules_page_is_in_german_for_a_german_browser(app: Flask) -> None:
    """Issue 24: ``Accept-Language: de`` gets the German page, its refused moves answered in
    German; the index lists the games with their German titles and summaries."""
    if "de" not in rules.languages("epaminondas"):
        pytest.skip("no German rules of Epaminondas")
    german = rules.book("epaminondas", "de")
    headers = {"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}
    html = app.test_client().get("/rules/epaminondas", headers=headers).get_data(as_text=True)
    assert '<html lang="de">' in html and german.html in html
    assert "How to write your" not in html and "we answer" not in html
    refused = rules.Example("b2-b4", refused=True)
    assert answered("epaminondas", refused, "de") != answered("epaminondas", refused, "en")
    assert answered("epaminondas", refused, "de") in html
    index = app.test_client().get("/rules", headers=headers).get_data(as_text=True)
    assert '<html lang="de">' in index and str(escape(german.summary)) in index
    english = app.test_client().get("/rules/epaminondas").get_data(as_text=True)
    assert '<html lang="en">' in english and "Rules of Epaminondas" in english


def test_the_rules_page_is_in_the_signed_in_players_language(
    app: Flask, database: Database, alice: Client
) -> None:
    """Issue 24: a signed-in player reads the rules in the language they chose, whatever
    their browser asks for."""
    if "de" not in rules.languages("nelaxtam"):
        pytest.skip("no German rules of Nelaxtam")
    with database.transaction() as session:
        player = session.get(Player, alice.id)
        assert player is not None
        player.language = "de"
    web = app.test_client()
    with web.session_transaction() as cookie:
        cookie["player"] = alice.id
    headers = {"Accept-Language": "fr"}
    html = web.get("/rules/nelaxtam", headers=headers).get_data(as_text=True)
    assert '<html lang="de">' in html and rules.book("nelaxtam", "de").html in html


def test_a_language_without_the_games_rules_gets_the_english_page(
    app: Flask, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 24: where a game's rules are not written in the reader's language, the page is
    the English one, in English throughout (``<html lang="en">``), and the links to rules
    are the same in every language."""
    for name in rules.names():
        (tmp_path / f"{name}.md").write_text(rules.source(name).read_text(encoding="utf-8"))
    (tmp_path / "de").mkdir()
    english = rules.source("elasta").read_text(encoding="utf-8")
    (tmp_path / "de" / "elasta.md").write_text(english.replace("title: Elasta", "title: Elasta!"))
    monkeypatch.setattr(rules, "HERE", tmp_path)
    rules._book.cache_clear()
    try:
        assert rules.languages("epaminondas") == (i18n.DEFAULT,)
        assert rules.book("epaminondas", "de") == rules.book("epaminondas")
        assert rules.book("elasta", "de").title == "Elasta!"
        assert rules.book("elasta", "xx").locale == i18n.DEFAULT
        headers = {"Accept-Language": "de"}
        html = app.test_client().get("/rules/epaminondas", headers=headers).get_data(as_text=True)
        assert '<html lang="en">' in html and "Rules of Epaminondas" in html
        assert "we answer" in html
        assert rules.rule_links(None, "(EPA-5)") == [("EPA-5", "/rules/epaminondas#EPA-5")]
        assert rules.notation("elasta", "de")["title"] == "Elasta!"
        assert rules.notation("epaminondas", "de")["summary"] == rules.book("epaminondas").summary
    finally:
        rules._book.cache_clear()


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


def test_the_help_mail_gives_the_notation_in_the_readers_language(database: Database) -> None:
    """Issue 24: a German player's ``help`` mail says how moves are written in German (the
    summary of the German rules page), with the same example move."""
    if "de" not in rules.languages("nelaxtam"):
        pytest.skip("no German rules of Nelaxtam")
    game_id, _, _ = make_game(database, "nelaxtam")
    with database.transaction() as session:
        player = session.get(Player, player_id(database, ALICE))
        assert player is not None
        player.language = "de"
    send(database, reply(latest(database, ALICE, game_id), ALICE, "help"))
    flat = " ".join(text_of(latest(database, ALICE, game_id)).split())
    german = rules.book("nelaxtam", "de")
    assert german.summary != rules.book("nelaxtam").summary
    assert german.summary in flat and german.example in flat


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


@pytest.mark.parametrize("code", sorted({code for code, _ in TRANSLATED}))
def test_the_translated_rules_pages_fit_a_phone_and_axe_finds_nothing_serious(
    browser: Any,
    server: str,  # noqa: F811  (the fixture imported above)
    code: str,
) -> None:
    """Issue 24: in each language, the index and every translated page of a game fit 320 and
    390 px (longer words than English must not widen them), and axe-core reports no serious
    or critical violation."""
    paths = ["/rules", *(f"/rules/{name}" for language, name in TRANSLATED if language == code)]
    for width in PHONE_WIDTHS:
        page = browser.new_page(
            viewport={"width": width, "height": 900}, extra_http_headers={"Accept-Language": code}
        )
        try:
            for path in paths:
                page.goto(server + path)
                assert page.get_attribute("html", "lang") == code
                assert_fits(page, f"{path} ({code})")
                violations = axe_violations(page)
                assert violations == [], [str(v) for v in violations]
        finally:
            page.close()
