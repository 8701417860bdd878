"""The web pages behind a sign-in: ``/sign-in`` (a link by mail, no password), ``/me`` (own
games, a new API token) and ``/console`` (tournament directors: their leagues and running
games, stuck and late ones first, the players, and the director's actions).

A session is Flask's signed cookie (HttpOnly, SameSite=Lax, Secure behind https) holding the
player's id and a CSRF value that every form of these pages sends back; the player is read
afresh on each request, so a role taken away takes effect at once. A GET never changes
anything: mail scanners open links, so the mailed link shows a button and the POST behind it
signs in. Every action is a form, then a confirmation page, then one POST.
"""

from __future__ import annotations

import functools
import hmac
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from babel import Locale
from flask import (
    Blueprint,
    Response,
    current_app,
    g,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from sqlalchemy import select
from sqlalchemy.orm import Session

from service import games, i18n, players, web
from service.console import actions, desk, sign_in
from service.db import Database
from service.errors import ServiceError
from service.i18n import N_
from service.leagues import leagues, ownership
from service.leagues.page import STATUS_WORDS
from service.mail.links import read_settings_token
from service.mail.render import game_line_in
from service.models import Game, Player, Seat, utcnow

blueprint = Blueprint("console", __name__, template_folder="../web_templates")
MAX_ID = 2**31 - 1
MAX_ADDRESS = 254
OUT_OF_DATE = N_(
    "This form is out of date or did not come from this site: its check value does not match "
    "your session (were cookies cleared, or did you sign in again in another tab?). Nothing "
    "was done; open the page again and send it from there."
)


@contextmanager
def transaction() -> Iterator[Session]:
    database: Database = current_app.extensions["pbem.database"]
    with database.transaction() as db_session:
        yield db_session


def page_locale() -> str:
    """The language of these pages: the signed-in player's ``language``, else the browser's
    (``Accept-Language``), else English (``web.page_locale``); read once per request."""
    if "console_locale" not in g:
        player_id = session.get("player")
        player = None
        if isinstance(player_id, int):
            with transaction() as db_session:
                player = db_session.get(Player, player_id)
                g.console_locale = web.page_locale(player)
        else:
            g.console_locale = web.page_locale(None)
    return str(g.console_locale)


def _(message: str, **values: Any) -> str:
    """``message`` in the page's language (:func:`page_locale`)."""
    return i18n.gettext(page_locale(), message, **values)


def ngettext(singular: str, plural: str, n: int, **values: Any) -> str:
    return i18n.ngettext(page_locale(), singular, plural, n, **values)


def localized(view: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``view`` in the page's language: its templates, and the texts the console's
    helpers write (``desk``, ``actions``: :func:`i18n.current`)."""

    @functools.wraps(view)
    def in_language(*args: Any, **kwargs: Any) -> Any:
        with i18n.in_locale(page_locale()):
            return view(*args, **kwargs)

    return in_language


def settings() -> Any:
    return current_app.extensions["pbem.database"].settings


def csrf_token() -> str:
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(24)
    return str(session["csrf"])


@blueprint.context_processor
def page_values() -> dict[str, Any]:
    return {
        "csrf_token": csrf_token,
        "signed_in_name": session.get("name"),
        "locale": page_locale(),
        "status_words": STATUS_WORDS,
    }


@blueprint.app_template_filter("console_time")
def console_time(moment: datetime) -> str:
    """A time on these pages, in UTC: ``2025-03-01 18:00 UTC`` in English, else as the page's
    language writes a date (``01.03.2025, 18:00 UTC``)."""
    return utc_time(moment, i18n.current())


@blueprint.app_template_filter("console_iso_time")
def console_iso_time(iso: str) -> str:
    """A stored ISO time (a game's ``deadline``, UTC) as :func:`console_time` writes it."""
    locale = i18n.current()
    if locale == i18n.DEFAULT:
        return iso[:16].replace("T", " ") + " UTC"
    return utc_time(datetime.fromisoformat(iso), locale)


def utc_time(moment: datetime, locale: str) -> str:
    if locale == i18n.DEFAULT:
        return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    day = Locale.parse(locale).datetime_skeletons["yMd"].pattern
    return i18n.format_datetime(moment, locale, "UTC", day + ", HH:mm") + " UTC"


@blueprint.before_request
def check_form() -> Any:
    """Every POST of these pages carries the session's CSRF value; the settings page's button
    does not need it (its address is the player's key already)."""
    if request.method != "POST" or request.endpoint == "console.settings_sign_in":
        return None
    sent, kept = request.form.get("csrf", ""), session.get("csrf", "")
    if not kept or not hmac.compare_digest(sent.encode(), str(kept).encode()):
        return message_page(_("Form out of date"), _(OUT_OF_DATE), 400)
    return None


@blueprint.after_request
def private(response: Response) -> Response:
    """Signed-in pages are nobody else's: never cached, never framed (a framed confirmation
    button could be clicked by a trick)."""
    response.headers.setdefault("Cache-Control", "no-store")
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Content-Security-Policy"] = "frame-ancestors 'none'"
    return response


def message_page(title: str, text: str, status: int = 200, **extra: Any) -> Any:
    return render_template("console_message.html", title=title, text=text, **extra), status


def viewer(db_session: Session) -> Player | None:
    """The signed-in player, or None (no session, or a player no longer there)."""
    player_id = session.get("player")
    if not isinstance(player_id, int):
        return None
    return db_session.get(Player, player_id)


def to_sign_in() -> Any:
    return redirect(url_for("console.sign_in_page"), 303)


def forbidden(player: Player, why: str | None = None) -> Any:
    text = why or _(
        "%(name)s, the console is for tournament directors and admins, and your account "
        "is a player's. Your own games and API token are on your page.",
        name=player.name,
    )
    return render_template("console_forbidden.html", text=text), 403


def _id(text: str) -> int:
    value = int(text) if text.isascii() and text.isdigit() and len(text) <= 10 else 0
    return value if 1 <= value <= MAX_ID else 0


# -- signing in ---------------------------------------------------------------------------


@blueprint.route("/sign-in", methods=["GET", "POST"])
@localized
def sign_in_page() -> Any:
    if request.method == "GET":
        return render_template("console_sign_in.html", address="", sent=False)
    typed = request.form.get("address", "")
    address = typed.strip().lower()
    if not players.EMAIL.match(address) or len(address) > MAX_ADDRESS:
        error = _(
            "\u201c%(typed)s\u201d is not an e-mail address: write the address your mail from "
            "pbem comes to, such as ann@example.org.",
            typed=typed.strip()[:80],
        )
        return render_template("console_sign_in.html", address=typed, error=error), 400
    with transaction() as db_session:
        player = players.by_address(db_session, address)
        if player is not None:
            sign_in.mail_link(db_session, settings(), player, address)
    # the same answer for an address nobody has, and for one that had its links this hour
    return render_template("console_sign_in.html", address=address, sent=True)


@blueprint.route("/sign-in/<token>", methods=["GET", "POST"])
@localized
def sign_in_link(token: str) -> Any:
    player_id, problem = sign_in.read_sign_in_token(settings().secret(), token, time.time())
    with transaction() as db_session:
        player = db_session.get(Player, player_id) if player_id else None
        if player is None or problem == "invalid":
            return message_page(
                _("This sign-in link does not work"),
                _(
                    "It is not a link we made, or it was cut short (some mail programs break "
                    "long lines: copy the whole link). Ask for a new one."
                ),
                400,
                ask=True,
            )
        g.console_locale = web.page_locale(player)  # the link's player reads these pages
        if problem == "expired":
            ended = utc_time(sign_in.expiry_of(token), page_locale())
            minutes = int(sign_in.LIFETIME.total_seconds() // 60)
            return message_page(
                _("This sign-in link has expired"),
                ngettext(
                    "It worked until %(ended)s: a link works for %(num)s minute. Ask for a "
                    "new one.",
                    "It worked until %(ended)s: a link works for %(num)s minutes. Ask for a "
                    "new one.",
                    minutes,
                    ended=ended,
                ),
                410,
                ask=True,
            )
        if request.method == "POST":  # two tabs racing for one link: one signs in
            db_session.refresh(player, with_for_update=True)
        if sign_in.spent(player, token):
            return message_page(
                _("This sign-in link was used already"),
                _(
                    "Each link signs in once (and a newer link's use ends the older ones). "
                    "Ask for a new one."
                ),
                410,
                ask=True,
            )
        if request.method == "GET":
            with i18n.in_locale(page_locale()):
                return render_template("console_sign_in_link.html", name=player.name)
        sign_in.spend(player, token)
        director = player.has_role("td", "admin")
        session.clear()
        session.permanent = True
        session["player"], session["name"] = player.id, player.name
        session["csrf"] = secrets.token_urlsafe(24)
    return redirect(url_for("console.console" if director else "console.me"), 303)


@blueprint.post("/sign-out")
@localized
def sign_out() -> Any:
    page_locale()  # read before the session ends: the page is in the leaving player's language
    session.clear()
    return message_page(_("Signed out"), _("You are signed out on this browser."), ask=True)


@blueprint.post("/mail/<token>/sign-in")
@localized
def settings_sign_in(token: str) -> Any:
    """The button on the mail-settings page: a sign-in link to the player's own address."""
    with transaction() as db_session:
        player_id = read_settings_token(settings().secret(), token)
        player = db_session.get(Player, player_id) if player_id else None
        if player is None or player.address is None:
            return message_page(
                _("This link is not valid"), _("This mail-settings link is not valid."), 404
            )
        g.console_locale = web.page_locale(player)  # the settings page's player
        back = url_for("web.mail_settings", token=token)
        if not sign_in.mail_link(db_session, settings(), player, player.address):
            return message_page(
                _("Enough links for now"),
                ngettext(
                    "%(address)s got %(num)s sign-in link in the last hour; the newest works "
                    "for 30 minutes from when it was sent. Use it, or ask again in an hour.",
                    "%(address)s got %(num)s sign-in links in the last hour; the newest works "
                    "for 30 minutes from when it was sent. Use it, or ask again in an hour.",
                    sign_in.PER_HOUR,
                    address=player.address,
                ),
                429,
                back=back,
            )
        return message_page(
            _("A sign-in link is on its way"),
            _(
                "We mailed a sign-in link to %(address)s. It works for 30 minutes.",
                address=player.address,
            ),
            back=back,
        )


# -- a player's own page ------------------------------------------------------------------


@blueprint.get("/me")
@localized
def me() -> Any:
    with transaction() as db_session:
        player = viewer(db_session)
        if player is None:
            return to_sign_in()
        return render_template(
            "console_me.html", player=player, games=_own_games(db_session, player)
        )


def _own_games(db_session: Session, player: Player) -> list[dict[str, Any]]:
    query = (
        select(Game)
        .join(Seat, Seat.game_id == Game.id)
        .where(Seat.player_id == player.id)
        .order_by(Game.status != games.ACTIVE, Game.id.desc())
        .limit(200)
    )
    listed = []
    for game in db_session.scalars(query):
        state = games.state_of(game)
        data = games.summary(db_session, game, player, state=state)
        running = game.status == games.ACTIVE
        listed.append(
            {
                "id": game.id,
                "status": game.status,
                "status_line": game_line_in(
                    i18n.current(), state, None if running else game.result
                ),
                "yours": data["you"] in data["to_act"] and data["you"] not in data["submitted"],
                "deadline": data["deadline"],
            }
        )
    return listed


@blueprint.route("/me/token", methods=["GET", "POST"])
@localized
def new_token() -> Any:
    with transaction() as db_session:
        player = viewer(db_session)
        if player is None:
            return to_sign_in()
        if request.method == "GET":
            return render_template("console_token.html", token=None)
        token = players.issue_token(db_session, player)
    response = make_response(render_template("console_token.html", token=token))
    response.headers["Cache-Control"] = "no-store"
    return response


# -- the console --------------------------------------------------------------------------


@blueprint.get("/console")
@localized
def console() -> Any:
    with transaction() as db_session:
        player = viewer(db_session)
        if player is None:
            return to_sign_in()
        if not player.has_role("td", "admin"):
            return forbidden(player)
        now = utcnow()
        directed = desk.directed_leagues(db_session, player)
        found = desk.directed_games(db_session, player, directed)
        return render_template(
            "console.html",
            player=player,
            leagues=[desk.league_summary(db_session, league) for league in directed],
            rows=desk.rows_first_needing_a_look(db_session, found, now),
            now=now,
            ago=desk.ago,
            limit=desk.MAX_GAMES,
        )


@blueprint.get("/console/players")
@localized
def player_search() -> Any:
    with transaction() as db_session:
        player = viewer(db_session)
        if player is None:
            return to_sign_in()
        if not player.has_role("td", "admin"):
            return forbidden(player)
        text = request.args.get("q", "").replace("\x00", "")[:MAX_ADDRESS]
        found = desk.find_players(db_session, text, utcnow())
        return render_template("console_players.html", q=text, found=found, limit=desk.MAX_PLAYERS)


@blueprint.get("/console/game")
@localized
def open_game() -> Any:
    """The console's "game number" box."""
    number = request.args.get("gid", "").strip()
    return redirect(url_for("console.game_desk", gid=number or "0"), 303)


@blueprint.get("/console/games/<gid>")
@localized
def game_desk(gid: str) -> Any:
    return _target_page("game", gid)


@blueprint.get("/console/leagues/<lid>")
@localized
def league_desk(lid: str) -> Any:
    return _target_page("league", lid)


@blueprint.post("/console/games/<gid>/<name>")
@localized
def game_action(gid: str, name: str) -> Any:
    return _act("game", gid, name)


@blueprint.post("/console/leagues/<lid>/<name>")
@localized
def league_action(lid: str, name: str) -> Any:
    return _act("league", lid, name)


def _target_page(
    scope: str, text: str, error: str | None = None, status: int = 200, failed: str | None = None
) -> Any:
    """The page of one game or league with its action forms; ``failed``: the action whose
    form comes back filled in, above ``error``."""
    target = _id(text)
    with transaction() as db_session:
        player = viewer(db_session)
        if player is None:
            return to_sign_in()
        if not player.has_role("td", "admin"):
            return forbidden(player)
        if not target:
            not_a = (
                _("%(text)s is not a game number.", text=repr(text))
                if scope == "game"
                else _("%(text)s is not a league number.", text=repr(text))
            )
            return message_page(_("No such page"), not_a, 404)
        try:
            values = _target_values(db_session, player, scope, target)
        except ServiceError as refused:
            if refused.status == 403:
                return forbidden(player, refused.localized(page_locale()))
            title = (
                _("No game %(number)s", number=target)
                if scope == "game"
                else _("No league %(number)s", number=target)
            )
            return message_page(title, refused.localized(page_locale()), refused.status)
        form = request.form if request.method == "POST" else {}
        return render_template(
            "console_target.html",
            scope=scope,
            target=target,
            error=error,
            done=_done_note(),
            form=form,
            failed=failed,
            base=request.path if request.method == "GET" else request.path.rsplit("/", 1)[0],
            forfeits={key: _(label) for key, label in actions.FORFEITS.items()},
            **values,
        ), status


def _target_values(db_session: Session, player: Player, scope: str, target: int) -> dict[str, Any]:
    if scope == "game":
        ownership.check_game(db_session, player, target)
        game = games.get(db_session, target)
        state = games.state_of(game)
        return {
            "row": desk.game_row(db_session, game, utcnow()),
            # the engine's words in the page's language (a finished game's line stays as is)
            "status_line": game_line_in(
                i18n.current(), state, None if game.status == games.ACTIVE else game.result
            ),
            "running": game.status == games.ACTIVE,
            "actions": actions.GAME_ACTIONS,
            "seats": actions.seat_choices(db_session, target),
            "ago": desk.ago,
        }
    league = ownership.check_league(db_session, player, target)
    return {
        "league": desk.league_summary(db_session, league),
        "actions": actions.LEAGUE_ACTIONS,
        "seats": [],
        "running": league.status != leagues.FINISHED,
        "ago": desk.ago,
    }


def _done_note() -> str | None:
    note = session.pop("done", None)
    return str(note) if note else None


def _act(scope: str, text: str, name: str) -> Any:
    action = actions.ACTIONS.get((scope, name))
    target = _id(text)
    if action is None or not target:
        return message_page(
            _("No such action"), _("There is no action %(name)s here.", name=repr(name)), 404
        )
    form = {key: value for key, value in request.form.items() if key != "csrf"}
    if any("\x00" in value for value in form.values()):  # no database stores it in a text
        error = _("Not done: the form holds a NUL character, which no text here may contain.")
        return _target_page(scope, text, error, 400, action.name)
    if request.form.get("step") != "confirm":
        return _review(scope, text, action, target, form)
    try:
        with transaction() as db_session:
            player = viewer(db_session)
            if player is None:
                return to_sign_in()
            sentence = action.confirm(db_session, target, form)
            action.run(db_session, target, player, form)
    except ServiceError as refused:  # rolled back: the function's own words, on the page
        error = _("Not done: %(why)s.", why=refused.localized(page_locale()))
        return _target_page(scope, text, error, refused.status, action.name)
    session["done"] = _("Done: %(what)s.", what=sentence)
    if scope == "game":
        return redirect(url_for("console.game_desk", gid=target), 303)
    return redirect(url_for("console.league_desk", lid=target), 303)


def _review(
    scope: str, text: str, action: actions.Action, target: int, form: dict[str, str]
) -> Any:
    gap = actions.missing(action, form)
    if gap is not None:
        return _target_page(scope, text, gap, 400, action.name)
    with transaction() as db_session:
        player = viewer(db_session)
        if player is None:
            return to_sign_in()
        if not player.has_role("td", "admin"):
            return forbidden(player)
        try:
            check = ownership.check_game if scope == "game" else ownership.check_league
            check(db_session, player, target)
            sentence = action.confirm(db_session, target, form)
        except ServiceError as refused:
            if refused.status == 403:
                return forbidden(player, refused.localized(page_locale()))
            error = _("Not done: %(why)s.", why=refused.localized(page_locale()))
            return _target_page(scope, text, error, refused.status, action.name)
    fields = {key: value for key, value in form.items() if key != "step"}
    return render_template(
        "console_confirm.html",
        sentence=sentence,
        action=action,
        scope=scope,
        target=target,
        fields=fields,
        back=request.path.rsplit("/", 1)[0],
    )
