"""The public league page: standings, crosstable and rounds as one self-contained HTML page
(inline CSS, no scripts, nothing fetched from elsewhere; every name escaped)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined, select_autoescape
from sqlalchemy.orm import Session

import engine
from service import i18n
from service.leagues import leagues
from service.leagues.mail import FORMAT_NAMES, TIEBREAK_LABELS
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
ENVIRONMENT.filters["num"] = lambda value: f"{value:g}"
i18n.install(ENVIRONMENT)


def _game_text(game: dict[str, Any]) -> str:
    if game["status"] == "void":
        return "void"
    if game["status"] == "playing":
        return "playing"
    places, forfeits = game["places"] or [], game["forfeits"] or []
    if len(places) == 2:
        result = {(1, 2): "1-0", (2, 1): "0-1"}.get((places[0], places[1]), "½-½")
    else:
        result = "-".join(map(str, places))
    return result + (" (forfeit)" if any(forfeits) else "")


def render(session: Session, league: League) -> str:
    data = leagues.to_json(session, league, None)
    standings = leagues.standings_json(session, league)
    for round_ in data["rounds"]:
        for game in round_["games"]:
            game["text"] = _game_text(game)
    names = standings["tiebreaks"]
    status = league.status + (" (paused)" if league.paused else "")
    return ENVIRONMENT.get_template("league.html").render(
        league=league,
        title=engine.game_class(league.game).title,
        options=options_in_words(league.game, league.options or {}),
        format_name=FORMAT_NAMES[league.format].capitalize(),
        status=status,
        standings=standings,
        labels=TIEBREAK_LABELS,
        legend=", ".join(f"{TIEBREAK_LABELS[n][0]}: {TIEBREAK_LABELS[n][1]}" for n in names),
        crosstable=league.format != "tables" and bool(standings["rows"]),
        rounds=data["rounds"],
        players=[p["name"] for p in data["players"] if p["status"] in ("active", "withdrawn")],
    )
