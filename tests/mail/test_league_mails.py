"""issue 21, point 7, in the templates: every mail of a game played in a league names the
league and the round (subject, text and HTML), and the invitation states its terms in words
and answers by mail, with no API route that needs a token."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from service import i18n
from service.leagues import mail as league_mail
from service.mail.extract import REPLY_MARKER, extract_text
from service.mail.render import KINDS, render_email
from tests.browser import PHONE_WIDTHS, assert_fits, axe_violations, browser, open_html
from tests.mail.scenarios import BOARD_GAMES, DEADLINE, HOSTILE_NAME, LEAGUE, context

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


# -- issue 24: every league mail in the reader's language ------------------------------------

LEAGUE_KINDS = [kind for kind in KINDS if kind.startswith("league_")]
LEAGUE_VARIANTS: dict[str, list[dict[str, Any]]] = {
    "league_invitation": [{}],
    "league_answer": [{"accepted": True}, {"accepted": False}],
    "league_standings": [
        {"final": False, "next_round_at": None},
        {"final": False, "next_round_at": DEADLINE},
        {"final": True},
    ],
    "league_message": [{}],
    "league_result": [
        {"action": action, "result": result}
        for action, result in (
            ("set the result", "1-0"),
            ("corrected the result", "0-1"),
            ("voided the game", "void"),
        )
    ],
}
ENGLISH_ONLY = {
    "league_invitation": "invites you to the league",
    "league_answer": "the invitation to the league",
    "league_standings": "of the league",
    "league_message": "a message from",
    "league_result": "the tournament director",
}
"""A phrase of each kind's English text that no other language's mail may show."""


def _league_terms(locale: str) -> dict[str, Any]:
    """The ``league`` values ``league_context`` writes for a reader of ``locale``, from a
    league of each kind of terms the words cover."""
    entries = [SimpleNamespace(status="active")] * 4 + [SimpleNamespace(status="invited")] * 2
    league = SimpleNamespace(
        game="epaminondas",
        options={"board": "14x12", "anti_copy": "on"},
        seats=2,
        format="round_robin",
        entries=entries,
        scoring={"win": 1.0, "draw": 0.5, "loss": 0.0, "bye": 1.5, "forfeit_loss": 0.0},
        settings={"withdrawal": "expunge"},
        time_control={"days": 3},
    )
    terms = league_mail  # the helpers league_context calls, without a database
    return {
        **LEAGUE,
        "format": i18n.gettext(locale, terms.FORMAT_NAMES["swiss"]),
        "time_control": terms.time_control_line({"days": 2.5}, locale),
        "game_words": terms.game_in_words("nelaxtam", {"size": "8", "sea": "3"}, 3, locale),
        "players": terms.players_line(league, locale),  # type: ignore[arg-type]
        "scoring": terms.scoring_line(league, locale),  # type: ignore[arg-type]
        "forfeit": terms.forfeit_line(league, locale),  # type: ignore[arg-type]
    }


@pytest.mark.parametrize("code", i18n.LANGUAGES)
@pytest.mark.parametrize("kind", LEAGUE_KINDS)
def test_every_league_mail_reads_in_each_language(kind: str, code: str) -> None:
    """Subject, text and HTML of each league mail in each of the nine languages: no
    placeholder or template syntax left, text lines within 80 columns, a reply typed above
    still read, players' strings escaped, and (but in English) none of the English text."""
    for variant in LEAGUE_VARIANTS[kind]:
        values = {**context(kind, "epaminondas"), **variant, "locale": code}
        values["league"] = _league_terms(code)
        if kind == "league_standings":
            document = {
                "tiebreaks": ["sonneborn_berger", "buchholz"],
                "rows": [
                    {
                        "rank": 1,
                        "player": {"name": HOSTILE_NAME},
                        "points": 2.5,
                        "tiebreaks": {"sonneborn_berger": 1.25, "buchholz": 3.0},
                        "wins": 2,
                        "draws": 1,
                        "losses": 0,
                        "rating": {"rating": 1612.5},
                        "withdrawn": True,
                    }
                ],
            }
            values["standings"] = league_mail.standings_table(document, code)
        mail = render_email(kind, values)
        parts = (mail.subject, mail.text, mail.html)
        for part in parts:
            assert "%(" not in part and "{{" not in part and "{%" not in part
        assert mail.subject and "\n" not in mail.subject
        assert mail.text.split("\n", 1)[0] == REPLY_MARKER
        assert not [line for line in mail.text.splitlines() if len(line) > 80]
        assert extract_text(f"ja\n\n{mail.text}") == "ja"
        assert "<script" not in mail.html.lower()
        assert "https://pbem.example/leagues/3" in mail.text
        if code != "en":
            assert ENGLISH_ONLY[kind] not in mail.text + mail.html, (code, variant)
            english = render_email(kind, {**values, "locale": "en"})
            assert english.text != mail.text and english.html != mail.html


def test_the_league_terms_in_german() -> None:
    terms = _league_terms("de")
    assert terms["format"] == "ein Turnier nach Schweizer System"
    assert terms["game_words"] == ("Nelaxtam auf einem 8×8-Brett, 3 Truppen kommen über das Meer")
    assert terms["time_control"] == "2,5 Tage pro Zug"
    assert terms["players"] == "bisher 6 (4 zugesagt, 2 eingeladen); 2 pro Partie"
    assert terms["scoring"].startswith("Sieg 1 Punkt, Remis ½ Punkt, Niederlage 0 Punkte")
    assert "spielfrei 1,5 Punkte" in terms["scoring"]
    table = league_mail.standings_table({"tiebreaks": ["wins"], "rows": []}, "de")
    assert table["columns"] == ["#", "Spieler", "Pkt", "S", "S/R/N", "Rating"]
    assert table["legend"] == "S = Siege"
