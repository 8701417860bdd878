"""The public league page: standings, crosstable and rounds as one self-contained HTML page
(inline CSS, no scripts, nothing fetched from elsewhere; every name escaped)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import has_request_context, request
from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined, select_autoescape
from sqlalchemy.orm import Session

import engine
from service import i18n
from service.i18n import N_
from service.leagues import leagues
from service.leagues.mail import FORMAT_NAMES, TIEBREAK_LABELS, reliability_line
from service.leagues.models import League
from service.wording import options_in_words

ENVIRONMENT = Environment(
    loader=ChoiceLoader(  # the page's own template, and the pages' shared partials
        [
            FileSystemLoader(Path(__file__).with_name("templates")),
            FileSystemLoader(Path(__file__).parents[1] / "web_templates"),
        ]
    ),
    autoescape=select_autoescape(enabled_extensions=("html",)),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def _number(value: float) -> str:
    """``2.5`` as the page's reader writes it (``2,5``); English keeps Python's ``:g``."""
    locale = i18n.current()
    return f"{value:g}" if locale == i18n.DEFAULT else i18n.format_decimal(value, locale)


ENVIRONMENT.filters["num"] = _number
i18n.install(ENVIRONMENT)


STATUS_WORDS = {
    leagues.OPEN: N_("open"),
    leagues.RUNNING: N_("running"),
    leagues.FINISHED: N_("finished"),
}
"""A league's status as the page says it, in English (translated where shown)."""


def _game_text(game: dict[str, Any], locale: str = i18n.DEFAULT) -> str:
    if game["status"] == "void":
        return i18n.gettext(locale, N_("void"))
    if game["status"] == "playing":
        return i18n.gettext(locale, N_("playing"))
    places, forfeits = game["places"] or [], game["forfeits"] or []
    if len(places) == 2:
        result = {(1, 2): "1-0", (2, 1): "0-1"}.get((places[0], places[1]), "½-½")
    else:
        result = "-".join(map(str, places))
    return result + (i18n.gettext(locale, N_(" (forfeit)")) if any(forfeits) else "")


def _capitalized(text: str, locale: str) -> str:
    # English as it always was ("A swiss tournament"); other languages keep their nouns
    return text.capitalize() if locale == i18n.DEFAULT else text[:1].upper() + text[1:]


def browser_locale() -> str:
    """The page's locale for a reader nobody signed in: the browser's (``Accept-Language``)
    among the supported ones, else English (``web.page_locale`` without a player)."""
    found = i18n.best_of(request.accept_languages) if has_request_context() else None
    return found or i18n.DEFAULT


def render(session: Session, league: League, locale: str | None = None) -> str:
    """The page in ``locale``: by default the browser's (the page is public: it has no
    signed-in reader)."""
    locale = i18n.supported(locale) or browser_locale()

    def _(message: str) -> str:
        return i18n.gettext(locale, message)

    data = leagues.to_json(session, league, None)
    standings = leagues.standings_json(session, league)
    for round_ in data["rounds"]:
        for game in round_["games"]:
            game["text"] = _game_text(game, locale)
    names = standings["tiebreaks"]
    status = _(STATUS_WORDS.get(league.status, league.status))
    if league.paused:
        status += _(" (paused)")
    format_name = _(FORMAT_NAMES[league.format])
    labels = {name: (_(short), _(long)) for name, (short, long) in TIEBREAK_LABELS.items()}
    with i18n.in_locale(locale):
        return ENVIRONMENT.get_template("league.html").render(
            locale=locale,
            league=league,
            title=engine.game_class(league.game).title,
            options=options_in_words(league.game, league.options or {}),
            format_name=_capitalized(format_name, locale),
            status=status,
            reliability=reliability_line(league, locale),
            standings=standings,
            labels=labels,
            legend=", ".join(f"{labels[n][0]}: {labels[n][1]}" for n in names),
            crosstable=league.format != "tables" and bool(standings["rows"]),
            rounds=data["rounds"],
            players=[p["name"] for p in data["players"] if p["status"] in ("active", "withdrawn")],
        )
