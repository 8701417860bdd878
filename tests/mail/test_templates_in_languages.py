"""The game mails in each of the nine languages (issue 24): every kind renders without a
defect in every language, and a German or Russian reader finds none of the sentences the
mail's own templates write in English.

What stays English on purpose is left out of the comparison: the board (drawn from the
engine's view), the engine's event texts, the revealed receipts, notation, names and links.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import pytest

from service import i18n
from service.mail.extract import REPLY_MARKER, extract_text
from service.mail.render import (
    ENVIRONMENT,
    RenderedEmail,
    render_board_text,
    render_email,
    status_in,
)
from tests.mail.scenarios import BOARD_GAMES, HOSTILE_NAME, context, scenario

GAME_KINDS = (
    "invitation",
    "game_started",
    "your_turn",
    "orders_received",
    "turn_resolved",
    "opponent_moved",
    "reminder",
    "draw_news",
    "takeback_news",
    "default_orders",
    "game_over",
)
"""The mails of a game that issue 24 puts in the reader's language, frame and parts too."""
NOT_ENGLISH = ("de", "ru")
URL = re.compile(r"https?://\S+")


@functools.cache
def mail(kind: str, name: str, locale: str) -> tuple[RenderedEmail, dict[str, Any]]:
    values = {**context(kind, name), "locale": locale}
    return render_email(kind, values), values


@pytest.mark.parametrize("locale", i18n.LANGUAGES)
@pytest.mark.parametrize("kind", GAME_KINDS)
def test_every_game_mail_renders_without_a_defect_in_every_language(kind: str, locale: str) -> None:
    for name in BOARD_GAMES:
        rendered, values = mail(kind, name, locale)
        where = f"{kind} of {name} in {locale}"
        subject = rendered.subject
        assert subject and "\n" not in subject and subject == subject.strip(), where
        assert rendered.text.split("\n", 1)[0] == REPLY_MARKER, where
        assert not [line for line in rendered.text.splitlines() if len(line) > 80], where
        assert extract_text(f"a1-a3\n\n{rendered.text}") == "a1-a3", where
        quoted = f"<div>a1-a3</div><blockquote>{rendered.html}</blockquote>"
        assert extract_text(quoted, html=True) == "a1-a3", where
        for url in (values["preferences_url"], values["unsubscribe_url"], values["game_url"]):
            assert url in rendered.text, where
            assert f'href="{url}"' in rendered.html, where
        assert f'<html lang="{locale}">' in rendered.html, where
        assert "<script" not in rendered.html.lower(), where


def _kept_english(kind: str, name: str) -> list[str]:
    """What the English mail says that is no sentence of its templates: the board and the
    engine's words about it, the events, the revealed receipts, what a miss costs, the
    result and its reason, the record (whitespace made single spaces)."""
    _, values = mail(kind, name, "en")
    view = values["view"]
    kept = render_board_text(view).split("\n\n")
    kept += [event["text"] for event in values.get("events") or ()]
    if values.get("receipts"):
        kept += ENVIRONMENT.get_template("_receipts.txt").render(values).split("\n\n")
    kept += [values.get("warning") or "", values.get("record") or "", str(values.get("orders"))]
    kept += [*view.get("offers", ()), *view.get("info", ()), view["status"]]
    if view.get("outcome"):
        kept += [view["outcome"]["result"], view["outcome"]["reason"]]
    return sorted({_spaced(text) for text in kept if text.strip()}, key=len, reverse=True)


def _spaced(text: str) -> str:
    return " ".join(text.split())


def _sentences(text: str, kept: list[str]) -> set[str]:
    """The sentences of a text part above the signature that say something in words, once
    the kept English, URLs and the player's name are taken out."""
    body = _spaced(URL.sub(" ", text.split("\n--\n")[0].replace(REPLY_MARKER, "")))
    for block in kept:
        body = body.replace(block, " ")
    body = body.replace(HOSTILE_NAME, " ")
    found = set()
    for sentence in re.split(r"(?<=[.:;!?])\s+", body):
        sentence = sentence.strip()
        if re.search(r"[^\W\d_]{4,}", sentence):
            found.add(sentence)
    return found


@pytest.mark.parametrize("locale", NOT_ENGLISH)
@pytest.mark.parametrize("kind", GAME_KINDS)
def test_no_english_sentence_of_the_templates_is_left(kind: str, locale: str) -> None:
    for name in BOARD_GAMES:
        english, _ = mail(kind, name, "en")
        local, _ = mail(kind, name, locale)
        kept = _kept_english(kind, name)
        local_text = _spaced(local.text)
        left = [s for s in _sentences(english.text, kept) if s in local_text]
        assert not left, f"{kind} of {name} in {locale} still says: {sorted(left)}"
        footer = english.text.split("\n--\n")[1]
        for label in ("Game page:", "Mail settings:", "Unsubscribe:", "Rules of"):
            if label in footer:
                assert label not in local.text.split("\n--\n")[1], (kind, name, label)
        kept_words = _words(" ".join(_kept_subject_words(kind, name))) | {"pbem"}
        english_words = _words(english.subject) - kept_words
        assert not english_words & _words(local.subject), f"{kind} of {name}: {local.subject}"


def _words(text: str) -> set[str]:
    return {word.casefold() for word in re.findall(r"[^\W\d_]{4,}", text)}


def _kept_subject_words(kind: str, name: str) -> list[str]:
    """What a subject may carry in English: the game's title and status, the player's moves
    and names, the engine's result and reason."""
    _, values = mail(kind, name, "en")
    view = values["view"]
    kept = [view["title"], view["status"], *view["seat_names"], str(values.get("move") or "")]
    kept += [str(player) for player in values.get("players") or () if player]
    kept += [str(values.get("inviter") or "")]
    if view.get("outcome"):
        kept += [view["outcome"]["result"], view["outcome"]["reason"]]
    return kept


def test_dates_and_durations_are_written_the_reader_s_way() -> None:
    german, _ = mail("reminder", "epaminondas", "de")
    russian, _ = mail("reminder", "epaminondas", "ru")
    english, _ = mail("reminder", "epaminondas", "en")
    assert "Sat 1 Mar 2025, 18:00 CET (Europe/Paris)" in " ".join(english.text.split())
    assert "Sa., 1. März 2025, 18:00 CET (Europe/Paris)" in " ".join(german.text.split())
    assert "Stunden" in german.subject and "час" in russian.subject


@pytest.mark.parametrize("name", BOARD_GAMES)
def test_the_status_line_is_in_the_reader_s_language(name: str) -> None:
    """``notify`` puts the engine's status (``status_reason``) in the reader's language in
    every game mail's view: the subject, the board's caption and the text board say it."""
    play = scenario(name)
    for state in (play.opening, play.step.state):
        for seat in (0, None):
            english = state.status(seat)
            assert status_in("en", state, seat, english) == english
            for locale in NOT_ENGLISH:
                assert status_in(locale, state, seat, english) != english, (name, locale)
            # a status the view words otherwise (a game of its own words) stays as it is
            assert status_in("de", state, seat, "Something else") == "Something else"


def test_the_html_board_s_own_words_are_translated() -> None:
    """The legend, the battle line, the last move's ring and the squares' names."""
    german, _ = mail("turn_resolved", "elasta", "de")
    assert "Kampflinie (die Stäbe)" in german.html
    assert "vom letzten Zug verändert" in german.html
    assert "Seite von Weiß an der Kampflinie" in german.html
    assert 'aria-label="a1, Seite von Weiß; Stab a auf ' in german.html  # the squares' names
    assert "White's side" not in german.html
    assert ", letzter Zug" in german.html and ", last move" not in german.html
    text, _ = mail("turn_resolved", "epaminondas", "ru")
    assert "Доска Epaminondas, вертикали с " in text.html
