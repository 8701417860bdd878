"""One-click play: the page behind the signed link in every game mail (``/play/<token>``).

The token (``service/mail/play_links.py``) names one player, one game and one turn; it is the
whole credential, so it opens nothing else and expires with its turn. The page shows the board
from the player's side (the engine's ``view(seat)``, turned round for the second seat when the
engine draws the same picture for everyone), the legal moves, and a form: type a move in the
mail notation, **Preview** it (the board after it; nothing stored, like ``POST .../preview``)
or **Send** it (``games.submit``, channel ``web``). Sealed orders then show as "sent, sealed"
(and may be replaced) until the turn resolves.

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
from service import conditional, games  # noqa: F401  (conditional: its hook answers moves)
from service.errors import ServiceError
from service.mail.play_links import PlayToken, read_play_token
from service.mail.render import render_board_html, square_colour
from service.models import Game, Player
from service.web import transaction

blueprint = Blueprint("play", __name__, template_folder="web_templates", static_folder="static")
MAX_LISTED = 600
"""More legal moves than this (sealed orders: thousands) are not listed, only examples."""
CHANNEL = "web"


@blueprint.route("/play/<token>", methods=["GET", "POST"])
def play_page(token: str) -> Any:
    found = read_play_token(current_app.extensions["pbem.database"].settings.secret(), token)
    if found is None:
        return render_template("not_found.html", what="This play link is not one of ours."), 404
    with transaction() as session:
        game = session.get(Game, found.game_id)
        player = session.get(Player, found.player_id)
        if game is None or player is None or games.seat_of(game, player) is None:
            return render_template("not_found.html", what="This play link opens no game."), 404
        if request.method == "POST":
            return _post(session, token, found, game, player)
        notice = request.args.get("done", "")
        return render_template("play.html", **page_context(session, found, game, player, notice))


def _post(session: Session, token: str, found: PlayToken, game: Game, player: Player) -> Any:
    text = request.form.get("move", "")
    if request.form.get("do") == "preview":
        try:
            after = games.preview(session, game.id, player, text)
        except ServiceError as error:
            context = page_context(session, found, game, player, "", text, error.message)
            return render_template("play.html", **context), error.status
        context = page_context(session, found, game, player, "", text, None, after)
        return render_template("play.html", **context)
    try:
        with session.begin_nested():  # a refused move leaves nothing behind
            games.submit(session, game.id, player, found.turn, text, CHANNEL)
    except ServiceError as error:
        context = page_context(session, found, game, player, "", text, error.message)
        return render_template("play.html", **context), error.status
    return redirect(url_for("play.play_page", token=token, done="sent"), code=303)


def page_context(
    session: Session,
    found: PlayToken,
    game: Game,
    player: Player,
    notice: str,
    typed: str = "",
    error: str | None = None,
    preview: dict[str, Any] | None = None,
) -> dict[str, Any]:
    seat = games.seat_of(game, player)
    assert seat is not None
    state = games.state_of(game)
    live = game.status == games.ACTIVE and game.turn == found.turn
    owes = live and seat in state.to_act
    own = state.orders_of(seat) if live and state.simultaneous else None
    view = state.view(seat).to_json()
    count = len(state.legal_actions(seat)) if owes else 0
    return {
        "game": games.summary(session, game, player, state),
        "view": view,
        "seat": seat,
        "seat_name": view["seat_names"][seat],
        "turn": found.turn,
        "live": live,
        "owes": owes,
        "sealed": state.simultaneous,
        "own_orders": None if own is None else state.format(own),
        "grid": _from_side(state, seat),
        "square_colour": square_colour,
        "legal_count": count,
        "legal": _legal(state, seat) if owes and count <= MAX_LISTED else [],
        "examples": list(state.examples(seat)) if owes else [],
        "mode": "assign" if game.name == "elasta" else "squares",
        "typed": typed,
        "error": error,
        "notice": notice,
        "preview": preview,
        "preview_board": _preview_board(state, seat, preview) if preview else None,
        "game_url": url_for("web.game_page", gid=str(game.id)),
    }


def _legal(state: State, seat: int) -> list[str]:
    return [state.format(action) for action in state.legal_actions(seat)]


def _turned(state: State, seat: int) -> bool:
    """The second of two seats sees the board turned round when the engine draws one picture
    for everybody (as Epaminondas does), so that their own pieces are at the bottom."""
    return seat == 1 and state.game.players == 2 and state.grid(seat) == state.grid(None)


def _turn_round(grid: dict[str, Any]) -> dict[str, Any]:
    return {
        **grid,
        "rows": [list(reversed(row)) for row in reversed(grid["rows"])],
        "files": grid["files"][::-1],
        "ranks": grid["ranks"][::-1],
    }


def _from_side(state: State, seat: int) -> dict[str, Any]:
    grid = state.grid(seat).to_json()
    return _turn_round(grid) if _turned(state, seat) else grid


def _preview_board(state: State, seat: int, preview: dict[str, Any]) -> Markup:
    view = dict(preview["view"])
    if _turned(state, seat):
        view["grid"] = _turn_round(view["grid"])
    return Markup(render_board_html(view))
