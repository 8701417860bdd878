"""issue 21, point 7, in the templates: every mail of a game played in a league names the
league and the round (subject, text and HTML), and the invitation states its terms in words
and answers by mail, with no API route that needs a token."""

from __future__ import annotations

from typing import Any

import pytest

from service.mail.render import KINDS, render_email
from tests.browser import PHONE_WIDTHS, assert_fits, axe_violations, browser, open_html
from tests.mail.scenarios import BOARD_GAMES, context

LEAGUE_ROUND = {
    "name": "Spring <League>",
    "round": 2,
    "text": "Spring <League>, round 2",
    "url": "https://pbem.example/leagues/3",
}
__all__ = ["browser"]  # the Chromium fixture of tests/browser.py
NOT_IN_A_LEAGUE_GAME = ("error_reply", "help", "invitation")  # no game, or before one
GAME_KINDS = [
    kind
    for kind, keys in KINDS.items()
    if "view" in keys and not kind.startswith("league_") and kind not in NOT_IN_A_LEAGUE_GAME
]


@pytest.mark.parametrize("game", BOARD_GAMES)
@pytest.mark.parametrize("kind", GAME_KINDS)
def test_a_league_game_mail_names_the_league_and_the_round(kind: str, game: str) -> None:
    values = context(kind, game)
    values["view"] = {**values["view"], "league": LEAGUE_ROUND}
    mail = render_email(kind, values)
    assert f"#{values['game_id']} " in mail.subject
    assert "· Spring <League>, round 2] " in mail.subject
    assert "League game: Spring <League>, round 2." in " ".join(mail.text.split())
    assert "League page: https://pbem.example/leagues/3" in mail.text
    assert (
        'League game: <a href="https://pbem.example/leagues/3"' in mail.html
        and "Spring &lt;League&gt;</a>, round 2." in mail.html
    )


@pytest.mark.parametrize("kind", GAME_KINDS)
def test_a_game_outside_a_league_names_none(kind: str) -> None:
    mail = render_email(kind, context(kind, "epaminondas"))
    assert "League" not in mail.subject and "League game" not in mail.text


def test_the_invitation_states_its_terms_and_answers_by_mail_only() -> None:
    mail = render_email("league_invitation", context("league_invitation", "epaminondas"))
    text = " ".join(mail.text.split())
    for part in (
        "a round robin of Epaminondas on a 14×12 board, with the anti-copy rule.",
        "Players: 6 so far (4 accepted, 2 invited); 2 in each game.",
        "Forfeits: a move not made by its deadline loses the game on time, a forfeit.",
        "Scoring: a win 1 point, a draw ½ point, a loss 0 points",
        "reply to this mail with accept (or yes, or count me in)",
        '"Yes, count me in!"',
    ):
        assert part in text
    assert "/api/" not in text + mail.html and "token" not in (text + mail.html).lower()


@pytest.mark.parametrize("width", PHONE_WIDTHS)
def test_the_invitation_and_a_league_game_mail_read_on_a_phone(browser: Any, width: int) -> None:
    """issue 21, point 7: the invitation's terms table and a league game mail's league line
    fit a phone, with no error in the page and no serious axe-core violation."""
    invitation = render_email("league_invitation", context("league_invitation", "epaminondas"))
    values = context("your_turn", "elemento")
    values["view"] = {**values["view"], "league": LEAGUE_ROUND}
    game_mail = render_email("your_turn", values)
    for what, html in (("league_invitation", invitation.html), ("your_turn", game_mail.html)):
        problems: list[str] = []
        page = open_html(browser, html, width, problems)
        try:
            assert_fits(page, what)
            assert axe_violations(page) == []
            assert problems == []
        finally:
            page.close()
