"""One-click play: the page behind the signed link in every game mail (``/play/<token>``).

The token (``service/mail/play_links.py``) names one player, one game and one turn; it is the
whole credential, so it opens nothing else and expires with its turn. The page shows the board
from the player's side (the engine's ``view(seat)``, turned as in the player's mails:
``mail/boards.py`` ``should_flip``), the legal moves, and a form: type a move in the
mail notation, **Preview** it (the board after it; nothing stored, like ``POST .../preview``)
or **Send** it (``games.submit``, channel ``web``). Sealed orders then show as "sent, sealed"
with their receipt (and may be replaced) until the turn resolves, and get the same
``orders_received`` mail as orders sent by mail. After a move one notice says what happened and
what comes next. The last move is named and its squares ringed (``reader.last_move``: what
changed since the last turn opened, in the spectator's view, so sealed orders never show); the
board and its preview fit any width from 320 px (cells share the width, squares keep square).

Everything works without JavaScript. ``static/play.js`` (no build step) adds clicking: clicked
squares narrow the legal moves to those through them, in order, and fill the text box; for
Elasta a chip is chosen, then a file. A GET changes nothing (mail link checkers follow links).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, redirect, render_template, request, url_for
from markupsafe import Markup
from sqlalchemy.orm import Session

from engine import State
from service import games, i18n, notes, notify, reader
from service.errors import ServiceError
from service.i18n import N_
from service.mail.boards import flip_grid, should_flip
from service.mail.play_links import PlayToken, read_play_token
from service.mail.render import info_in, legend, square_colour, status_in
from service.mail.words import seat_name, titler
from service.models import Game, Player
from service.web import not_found, page_locale, transaction

blueprint = Blueprint("play", __name__, template_folder="web_templates", static_folder="static")
MAX_LISTED = 600
"""More legal moves than this (sealed orders: thousands) are not listed, only examples."""
CHANNEL = "web"


@blueprint.app_template_filter("code")
def code(text: str) -> Markup:
    """``text`` as code, escaped: for a placeholder of a translated sentence, whose words a
    translator may order around it."""
    return Markup("<code>%s</code>") % text


@blueprint.route("/play/<token>", methods=["GET", "POST"])
def play_page(token: str) -> Any:
    found = read_play_token(current_app.extensions["pbem.database"].settings.secret(), token)
    if found is None:
        return not_found(N_("This play link is not one of ours."))
    with transaction() as session:
        game = session.get(Game, found.game_id)
        player = session.get(Player, found.player_id)
        if game is None or player is None or games.seat_of(game, player) is None:
            return not_found(N_("This play link opens no game."))
        if request.method == "POST":
            return _post(session, token, found, game, player)
        notice = request.args.get("done", "")
        return render_template("play.html", **page_context(session, found, game, player, notice))


def _post(session: Session, token: str, found: PlayToken, game: Game, player: Player) -> Any:
    if request.form.get("do") == "note":
        return _save_note(session, token, found, game, player)
    text = request.form.get("move", "")
    if request.form.get("do") == "preview":
        try:
            after = games.preview(session, game.id, player, text, page_locale(player))
        except ServiceError as error:
            context = page_context(session, found, game, player, "", text, error)
            return render_template("play.html", **context), error.status
        context = page_context(session, found, game, player, "", text, None, after)
        return render_template("play.html", **context)
    try:
        with session.begin_nested():  # a refused move leaves nothing behind
            games.submit(session, game.id, player, found.turn, text, CHANNEL)
    except ServiceError as error:
        context = page_context(session, found, game, player, "", text, error)
        return render_template("play.html", **context), error.status
    seat = games.seat_of(game, player)
    order = games.sealed_order(session, game, seat) if seat is not None else None
    if order is not None and order.receipt:  # the same receipt a mailed order gets
        notify.orders_received(session, game, player, order.parsed, order.receipt)
    return redirect(url_for("play.play_page", token=token, done="sent"), code=303)


def _save_note(session: Session, token: str, found: PlayToken, game: Game, player: Player) -> Any:
    """The notes box (issue 25, 2): replace the player's private note, or clear it when
    empty; a refused note (too long) is shown again as typed, with why."""
    typed = request.form.get("note", "").replace("\r\n", "\n")
    try:
        with session.begin_nested():
            saved = notes.set_note(session, game, player, typed)
    except ServiceError as error:
        context = page_context(session, found, game, player, "", note_typed=typed)
        context["note_error"] = error.localized(context["locale"])
        return render_template("play.html", **context), error.status
    done = "note" if saved is not None else "note-cleared"
    return redirect(url_for("play.play_page", token=token, done=done, _anchor="notes"), code=303)


def page_context(
    session: Session,
    found: PlayToken,
    game: Game,
    player: Player,
    notice: str,
    typed: str = "",
    error: ServiceError | None = None,
    preview: dict[str, Any] | None = None,
    note_typed: str | None = None,
) -> dict[str, Any]:
    """The play page's context, in ``player``'s language (else the browser's)."""
    locale = page_locale(player)
    seat = games.seat_of(game, player)
    assert seat is not None
    state = games.state_of(game)
    live = game.status == games.ACTIVE and game.turn == found.turn
    owes = live and seat in state.to_act
    own = state.orders_of(seat) if live and state.simultaneous else None
    view = state.view(seat).to_json()
    view["info"] = info_in(locale, state, seat, view["info"])
    count = len(state.legal_actions(seat)) if owes else 0
    last_move, last_squares = reader.last_move(session, game, state, locale)
    turned = should_flip(game.name, seat, player.board_flip)
    drawn = state.grid(seat).to_json()
    data = games.summary(session, game, player, state)
    return {
        "game": data,
        "view": view,
        "seat": seat,
        "seat_name": seat_name(view["seat_names"][seat], locale),
        "turn": found.turn,
        "zone": player.time_zone,
        "live": live,
        "owes": owes,
        "sealed": state.simultaneous,
        "own_orders": None if own is None else state.format(own),
        "receipt": _receipt(session, game, seat) if own is not None else None,
        "grid": _from_side(_titled(locale, game.name, drawn), turned),
        "last_move": last_move,
        "last_squares": set(last_squares),
        "next": _next(locale, game, state, seat, data["status_line"])
        if notice and not live
        else "",
        "square_colour": square_colour,
        "legend": _legend_in(locale, drawn),
        "status": status_in(locale, state, seat, view["status"]),
        "legal_count": count,
        "legal": _legal(state, seat) if owes and count <= MAX_LISTED else [],
        "examples": list(state.examples(seat)) if owes else [],
        "mode": "assign" if game.name == "elasta" else "squares",
        "typed": typed,
        "error": error.localized(locale) if error is not None else None,
        "notice": notice,
        "locale": locale,
        "preview": preview,
        "preview_grid": _from_side(_titled(locale, game.name, preview["view"]["grid"]), turned)
        if preview
        else None,
        "game_url": url_for("web.game_page", gid=str(game.id)),
        # The player's own private note (issue 25, 2): this page is theirs alone.
        "note": notes.get(session, game, player) if note_typed is None else note_typed,
        "note_max": notes.MAX_LENGTH,
        "note_error": None,
    }


def _receipt(session: Session, game: Game, seat: int) -> str | None:
    order = games.sealed_order(session, game, seat)
    return order.receipt if order is not None else None


def _legal(state: State, seat: int) -> list[str]:
    return [state.format(action) for action in state.legal_actions(seat)]


def _from_side(grid: dict[str, Any], turned: bool) -> dict[str, Any]:
    """A grid as the viewer sees it, turned as in their mails (``mail/boards.py``: Black in
    Epaminondas and Elasta, Blue in Anti-Grid, unless they turned that off); the board and
    its preview alike."""
    return flip_grid(grid) if turned else grid


def _titled(locale: str, name: str, grid: dict[str, Any]) -> dict[str, Any]:
    """A grid whose squares' titles are in ``locale`` (the engine writes them in English)."""
    if locale == i18n.DEFAULT or not grid.get("rows"):
        return grid
    with i18n.in_locale(locale):
        title = titler({"game": name, "grid": grid})
        if title is None:
            return grid
        rows = [[{**cell, "title": title(cell)} for cell in row] for row in grid["rows"]]
    return {**grid, "rows": rows}


def _legend_in(locale: str, drawn: dict[str, Any]) -> list[Any]:
    """The board's legend in the page's language (the engine marks its words ``N_``)."""
    if not drawn["legend"]:
        return []
    with i18n.in_locale(locale):
        return legend(drawn)


def _next(locale: str, game: Game, state: State, seat: int, status_line: str) -> str:
    """After a move or orders were taken: what comes next, for the notice that says so."""
    _, ngettext = i18n.translators(locale)
    if game.status != games.ACTIVE:
        return f"{status_line}."
    if seat in state.to_act:
        if state.simultaneous:
            text = _(
                "Turn %(turn)s is open, and it wants your orders: the link for it is in your "
                "newest mail about this game."
            )
        else:
            text = _(
                "Turn %(turn)s is open, and it wants your move: the link for it is in your "
                "newest mail about this game."
            )
        return text % {"turn": game.turn}
    if not state.to_act:
        text = _("Turn %(turn)s opens shortly; we mail you when it is your turn, with a new link.")
        return text % {"turn": game.turn}
    names = state.game.seat_names
    players = {s.seat: s.player.name for s in game.seats}
    movers = [f"{players.get(s, names[s])} ({names[s]})" for s in state.to_act]
    who = movers[0]
    for mover in movers[1:]:
        who = _("%(first)s and %(second)s") % {"first": who, "second": mover}
    text = ngettext(
        "Next, %(who)s plays turn %(turn)s; we mail you when it is your turn, with a new link.",
        "Next, %(who)s play turn %(turn)s; we mail you when it is your turn, with a new link.",
        len(movers),
    )
    return text % {"who": who, "turn": game.turn}
