"""Issue 21, point 3, in the mails: every mail of a game links that game's rules, an error
reply links each rule its error cites (the id itself is the link in HTML), and ``help`` says how
moves are written. (The walk through the service: ``tests/service/test_rules_pages.py``.)"""

from __future__ import annotations

import pytest

from service import rules
from service.mail.render import KINDS, render_email
from tests.mail.scenarios import BOARD_GAMES, NO_GAME, context

WITH_RULES = [kind for kind in KINDS if "rules_url" in context(kind, BOARD_GAMES[0])]


@pytest.mark.parametrize("name", BOARD_GAMES)
@pytest.mark.parametrize("kind", WITH_RULES)
def test_every_mail_links_the_rules_of_its_game(kind: str, name: str) -> None:
    """Issue 21, point 3: the footer of each mail kind links the game's rules page (the list
    of every game's rules for a mail outside a game)."""
    values = context(kind, name)
    mail = render_email(kind, values)
    url = values["rules_url"]
    if values["view"] is not None:
        assert url.endswith(f"/rules/{name}")
        assert f"Rules of {values['view']['title']}: {url}" in mail.text
    else:
        assert f"Rules of the games: {url}" in mail.text
    assert f'<a href="{url}"' in mail.html


@pytest.mark.parametrize("name", BOARD_GAMES)
def test_an_error_reply_links_each_rule_its_error_cites(name: str) -> None:
    """Issue 21, point 3: "(EPA-5)" in an error becomes a link to /rules/<game>#EPA-5, in text
    under the reason and in HTML on the id itself; an id of another game is no link."""
    first, second = rules.book(name).ids[4:6]
    error = f"illegal move 'x': <b>no</b> ({first}, {second}); compare SHA-256 and ZZZ-1"
    values = {**context("error_reply", name), "error": error}
    mail = render_email("error_reply", values)
    for rule in (first, second):
        link = f"{values['rules_url']}#{rule}"
        assert f"Rule {rule}: {link}" in mail.text
        assert f'<a href="{link}" style=' in mail.html and f">{rule}</a>" in mail.html
    assert "&lt;b&gt;no&lt;/b&gt;" in mail.html
    assert "SHA-256</a>" not in mail.html and "ZZZ-1</a>" not in mail.html


@pytest.mark.parametrize("name", BOARD_GAMES)
def test_the_help_mail_says_how_moves_are_written(name: str) -> None:
    """Issue 21, point 3: help gives the game's notation and an example, and a help mail
    outside a game gives every game's."""
    mail = render_email("help", context("help", name))
    book = rules.book(name)
    flat = " ".join(mail.text.split())
    assert book.summary in flat and f"For example: {book.example}" in flat
    assert "own notation" not in flat
    outside = render_email("help", {**context("help", name), **NO_GAME})
    flat = " ".join(outside.text.split())
    for other in rules.names():
        assert f"{rules.book(other).title}: {rules.book(other).summary}" in flat
