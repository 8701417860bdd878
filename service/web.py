"""Public pages: a read-only page per game (``/games/<id>``), linked from every mail, one per
player (``/players/<id>``: name, ratings, rating history, games; never an address or a
token), and the mail-settings pages behind the signed links in every mail's footer and
``List-Unsubscribe``.

A game page shows what a spectator may see and nothing more: ``state.view(None)``, the turns'
public events, moves once applied, and the dice seed only once the game is over. Pages are
HTML (Jinja2 autoescaping every player-supplied string); an unknown game or link gets a
friendly 404 page, never a 500. Unsubscribing takes a POST (RFC 8058 one-click, or the button
on the page): a GET never changes anything, as link checkers in mail systems follow links.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask import Blueprint, current_app, render_template, request
from flask import session as browser_session
from markupsafe import Markup
from sqlalchemy import select
from sqlalchemy.orm import Session, object_session

import engine
from service import games, i18n, players, reader, reliability, webhooks
from service.api.schemas import ZONES
from service.db import Database
from service.errors import NotFound, ServiceError
from service.i18n import N_
from service.leagues import ratings
from service.mail import confirmation, gateway
from service.mail.extract import extract_reply
from service.mail.links import read_settings_token
from service.mail.models import HOLDING, HeldReply, InboundMessage
from service.mail.render import game_line_in, info_in, render_board_html
from service.mail.storable import clean_reply
from service.mail.words import seat_name
from service.models import BOARD_TEXT, NOTIFY, OWN_COPY, Game, Player, Seat, Turn, utcnow
from service.wording import options_in_words

blueprint = Blueprint("web", __name__, template_folder="web_templates")
MAX_ID = 2**31 - 1
PAGE_GAMES = 200
"""The player page lists this many games of each kind, newest first."""
PAGE_HISTORY = 100
CHOICES = {
    "each": N_("every mail: each move and turn as it happens"),
    "digest": N_("one digest a day, in your morning, with everything new in your games"),
    "none": N_("no mail at all (you still get answers to the mails you send us)"),
}
assert set(CHOICES) == set(NOTIFY)
OWN_COPY_CHOICES = {
    "short": N_("a one-line receipt"),
    "full": N_("the whole mail, with the board"),
    "none": N_("nothing (mistakes are still answered)"),
}
assert set(OWN_COPY_CHOICES) == set(OWN_COPY)
BOARD_TEXT_CHOICES = {
    "grid": N_("the position in words, then the board drawn in characters"),
    "words": N_("the position in words only (best with a screen reader)"),
}
assert set(BOARD_TEXT_CHOICES) == set(BOARD_TEXT)


LANGUAGE_CHOICES = {code: i18n.language_name(code) for code in i18n.LANGUAGES}
"""The settings page's languages, each by its own name."""


def page_locale(player: Player | None) -> str:
    """The locale of a page for ``player``: the language they chose, else the browser's
    (``Accept-Language``) among the supported ones, else English."""
    chosen = i18n.supported(player.language) if player is not None else None
    return chosen or i18n.best_of(request.accept_languages) or i18n.DEFAULT


@functools.cache
def zones() -> dict[str, str]:
    """The time zones the settings page offers and accepts (the API's, ``schemas.ZONES``), by
    their case-folded spelling."""
    return {zone.casefold(): zone for zone in sorted(ZONES)}


@contextmanager
def transaction() -> Iterator[Session]:
    database: Database = current_app.extensions["pbem.database"]
    with database.transaction() as session:
        yield session


log = logging.getLogger(__name__)


def not_found(what: str, **values: Any) -> Any:
    """The 404 page, ``what`` (a ``%(name)s`` text, filled from ``values``) in the reader's
    language (the browser's)."""
    return render_template("not_found.html", what=_in(None, what, **values)), 404


def _in(player: Player | None, message: str, **values: Any) -> str:
    """``message`` in the language of a page for ``player`` (:func:`page_locale`)."""
    return i18n.gettext(page_locale(player), message, **values)


@blueprint.get("/games/<gid>")
def game_page(gid: str) -> Any:
    game_id = int(gid) if gid.isdigit() and len(gid) <= 10 else 0
    if not 1 <= game_id <= MAX_ID:
        return not_found(
            N_("There is no game %(typed)s: game numbers are whole numbers."), typed=repr(gid)
        )
    with transaction() as session:
        try:
            game = games.get(session, game_id)
        except NotFound:
            return not_found(N_("There is no game %(id)s."), id=game_id)
        return render_template("game.html", **game_page_context(session, game))


def game_page_context(session: Session, game: Game) -> dict[str, Any]:
    state = games.state_of(game)
    # A spectator's view with the last move marked (what changed since the last turn opened,
    # so sealed orders never show), as in the mails.
    view = reader.view_for(session, game, state, None, None)
    locale = page_locale(None)
    view["info"] = info_in(locale, state, None, view.get("info") or ())
    turns = session.scalars(select(Turn).where(Turn.game_id == game.id).order_by(Turn.number)).all()
    data = games.summary(session, game, None, state)
    # The seats as the page's reader names them (the API's summary keeps the English names).
    data["seats"] = [seat | {"name": seat_name(seat["name"], locale)} for seat in data["seats"]]
    return {
        "game": data,
        "view": view,
        "options_line": options_in_words(game.name, game.options or {}),
        "board": Markup(render_board_html(view)),
        "turns": [turn for turn in turns if turn.resolved_at is not None],
        "record": games.text_record(session, game, None),
        "seed": game.seed.hex() if game.seed and game.status == games.FINISHED else None,
    }


@blueprint.get("/players/<pid>")
def player_page(pid: str) -> Any:
    player_id = int(pid) if pid.isdigit() and len(pid) <= 10 else 0
    if not 1 <= player_id <= MAX_ID:
        return not_found(
            N_("There is no player %(typed)s: player numbers are whole numbers."), typed=repr(pid)
        )
    with transaction() as session:
        try:
            player = players.get(session, player_id)
        except NotFound:
            return not_found(N_("There is no player %(id)s."), id=player_id)
        # Public, but the signed-in player's own page is in the language they chose.
        own = browser_session.get("player") == player.id
        locale = page_locale(player if own else None)
        context = player_page_context(session, player, locale)
        return render_template("player.html", locale=locale, **context)


def player_page_context(
    session: Session, player: Player, locale: str = i18n.DEFAULT
) -> dict[str, Any]:
    """What anyone may see of a player: the name, ratings and games (public pages already)."""
    rated = ratings.of_player(session, player.id)
    return {
        "player": {"id": player.id, "name": player.name},
        "ratings": rated["ratings"],
        "history": rated["history"][:PAGE_HISTORY],
        "systems": {ratings.GLICKO2: "Glicko-2", ratings.OPENSKILL: "OpenSkill"},
        "active": _games_of(session, player, locale, active=True),
        "finished": _games_of(session, player, locale, active=False),
        "reliability": reliability.of_player(session, player.id),
    }


def _games_of(session: Session, player: Player, locale: str, active: bool) -> list[dict[str, Any]]:
    status = Game.status == games.ACTIVE
    query = (
        select(Game)
        .join(Seat, Seat.game_id == Game.id)
        .where(Seat.player_id == player.id, status if active else ~status)
        .order_by(Game.id.desc())
        .limit(PAGE_GAMES)
    )
    listed = []
    for game in session.scalars(query):
        state = games.state_of(game)
        data = games.summary(session, game, None, state=state)
        listed.append(
            {
                "id": game.id,
                "title": engine.game_class(game.name).title,
                "opponents": [s["player"] for s in data["seats"] if s["player"]["id"] != player.id],
                "status_line": game_line_in(locale, state, None if active else game.result),
            }
        )
    return listed


@blueprint.get("/mail")
def mail_page() -> Any:
    return render_template(
        "mail.html",
        player=None,
        choices=CHOICES,
        own_copy_choices=OWN_COPY_CHOICES,
        board_text_choices=BOARD_TEXT_CHOICES,
        zones=zones().values(),
        saved=False,
    )


@blueprint.route("/mail/<token>", methods=["GET", "POST"])
def mail_settings(token: str) -> Any:
    with transaction() as session:
        player = _player(session, token)
        if player is None:
            return not_found(N_("This mail-settings link is not valid (or no longer is)."))
        if request.method != "POST":
            return _settings_page(player)
        form = request.form
        choice = form.get("notify", "")
        own_copy = form.get("own_copy", player.own_copy)
        board_text = form.get("board_text", player.board_text)
        typed_zone = form.get("time_zone", player.time_zone)
        zone = zones().get(typed_zone.strip().casefold())
        language = form.get("language", player.language or "")
        chosen = (
            (choice, CHOICES),
            (own_copy, OWN_COPY_CHOICES),
            (board_text, BOARD_TEXT_CHOICES),
            *([(language, LANGUAGE_CHOICES)] if "language" in form else []),
        )
        for value, known in chosen:
            if value not in known:
                error = _in(player, N_("%(value)s is not one of the choices below."), value=value)
                return _settings_page(player, error=error), 400
        if zone is None:
            what = (
                _in(player, N_("\u201c%(zone)s\u201d is not a time zone we know."), zone=typed_zone)
                if typed_zone.strip()
                else _in(player, N_("The time zone is empty."))
            )
            advice = _in(
                player,
                N_(
                    "Write its IANA name, such as Europe/Vienna, America/New_York or UTC (the "
                    "field offers them as you type); nothing was saved."
                ),
            )
            error = f"{what} {advice}"
            return _settings_page(player, error=error, typed_zone=typed_zone), 400
        player.notify, player.own_copy, player.board_text = choice, own_copy, board_text
        player.time_zone = zone
        if "language" in form:
            player.language = language
        if "own_copy" in form:  # the form with the board settings was sent
            player.board_flip = form.get("board_flip") == "on"
        return _settings_page(player, saved=True)


@blueprint.post("/mail/<token>/webhooks")
def add_webhook(token: str) -> Any:
    """The settings page's webhook form (issue 25, 5): the new hook's secret is shown once."""
    with transaction() as session:
        player = _player(session, token)
        if player is None:
            return not_found(N_("This mail-settings link is not valid (or no longer is)."))
        database: Database = current_app.extensions["pbem.database"]
        chosen = [event for event in webhooks.EVENTS if request.form.get(f"event_{event}")]
        data = {
            "url": request.form.get("url", ""),
            "format": request.form.get("format", "json"),
            "events": chosen,
        }
        try:
            with session.begin_nested():
                hook, secret = webhooks.create(session, database.settings, data, player=player)
        except ServiceError as error:
            message = error.localized(page_locale(player))
            return _settings_page(player, error=message, hooks=session), error.status
        return _settings_page(player, hooks=session, new_hook=(hook.id, secret))


@blueprint.post("/mail/<token>/webhooks/<int:hook_id>/remove")
def remove_webhook(token: str, hook_id: int) -> Any:
    with transaction() as session:
        player = _player(session, token)
        if player is None:
            return not_found(N_("This mail-settings link is not valid (or no longer is)."))
        try:
            webhooks.remove(session, hook_id, player=player)
        except ServiceError as error:
            message = error.localized(page_locale(player))
            return _settings_page(player, error=message, hooks=session), 404
        return _settings_page(player, hooks=session, removed=True)


def _settings_page(
    player: Player,
    saved: bool = False,
    error: str | None = None,
    typed_zone: str | None = None,
    hooks: Session | None = None,
    new_hook: tuple[int, str] | None = None,
    removed: bool = False,
) -> str:
    if hooks is None:
        hooks = object_session(player)
    return render_template(
        "mail.html",
        player=player,
        choices=CHOICES,
        own_copy_choices=OWN_COPY_CHOICES,
        board_text_choices=BOARD_TEXT_CHOICES,
        language_choices=LANGUAGE_CHOICES,
        language=page_locale(player),
        locale=page_locale(player),
        zones=zones().values(),
        typed_zone=player.time_zone if typed_zone is None else typed_zone,
        saved=saved,
        webhooks=webhooks.list_of(hooks, player=player) if hooks is not None else [],
        webhook_events=webhooks.EVENT_LABELS,
        webhook_formats=webhooks.FORMAT_LABELS,
        new_hook=new_hook,
        removed=removed,
        **({"error": error} if error is not None else {}),
    )


@blueprint.route("/mail/<token>/unsubscribe", methods=["GET", "POST"])
def unsubscribe(token: str) -> Any:
    with transaction() as session:
        player = _player(session, token)
        if player is None:
            return not_found(N_("This unsubscribe link is not valid (or no longer is)."))
        if request.method == "POST":
            player.notify = "none"
        return render_template(
            "unsubscribe.html",
            player=player,
            done=request.method == "POST",
            token=token,
            locale=page_locale(player),
        )


def _player(session: Session, token: str) -> Player | None:
    database: Database = current_app.extensions["pbem.database"]
    player_id = read_settings_token(database.settings.secret(), token)
    return session.get(Player, player_id) if player_id else None


# -- confirming a held reply (service/mail/confirmation.py) ------------------------------------


@blueprint.route("/confirm/<token>", methods=["GET", "POST"])
def confirm_reply(token: str) -> Any:
    """The signed link of a ``confirm_reply`` mail: the GET shows the held reply and a
    button, changing nothing (mail scanners fetch links); the POST plays it, once."""
    database: Database = current_app.extensions["pbem.database"]
    found = confirmation.read_link(database.settings, token)
    missing = N_("This confirmation link is not valid (or no longer is).")
    if found is None:
        return not_found(missing)
    try:
        with transaction() as session:
            held = session.get(HeldReply, found.held_id)
            player = session.get(Player, found.player_id)
            if held is None or player is None or held.player_id != player.id:
                return not_found(missing)
            if not confirmation.code_fits(held, found.code):
                return not_found(missing)
            done = ""
            if request.method == "POST":
                locale = page_locale(player)
                done = gateway.confirm_held(session, database.settings, held.id, utcnow(), locale)
            page = _confirm_context(session, held, player, done)
            return render_template("confirm.html", locale=page_locale(player), **page)
    except Exception:  # rolled back: nothing was played, and the player may simply try again
        log.exception("confirming held reply %s failed", found.held_id)
        return render_template("confirm_failed.html"), 503


def _confirm_context(
    session: Session, held: HeldReply, player: Player, done: str
) -> dict[str, Any]:
    row = session.get_one(InboundMessage, held.inbound_id)
    shown = {
        "player": player,
        "done": done,
        "state": held.state,
        "over": gateway.hold_over(held, page_locale(player)),
        "address": held.address,
        "held": confirmation.quoted_lines(clean_reply(extract_reply(row.raw)).text),
        "holding": held.state == HOLDING,
        "league": None,
    }
    if held.league_id is not None:  # an answer to a league invitation
        return {**shown, **confirmation.league_page(session, held)}
    game = session.get_one(Game, held.game_id)
    expired = ""
    if game.status != games.ACTIVE:
        expired = _in(player, N_("the game is over"))
    elif game.turn != held.turn:
        expired = _in(player, N_("it is turn %(turn)s now"), turn=game.turn)
    return {
        **shown,
        "expired": expired,
        "title": engine.game_class(game.name).title,
        "game_id": game.id,
        "game_url": f"/games/{game.id}",
        "turn": held.turn,
    }
