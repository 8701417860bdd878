"""``/api/v1``: JSON in, JSON out; each route takes ids, calls the service and returns."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask import Blueprint, Response, current_app, g, request
from sqlalchemy.orm import Session
from werkzeug.exceptions import HTTPException

from service import conditional, games, i18n, notes, openapi, players, reliability, webhooks
from service.api import gate
from service.db import Database
from service.errors import BadRequest, Unauthorized
from service.i18n import N_
from service.leagues import ownership, ratings
from service.models import Player

blueprint = Blueprint("api_v1", __name__, url_prefix="/api/v1")
MAX_ID = 2**31 - 1


@contextmanager
def transaction() -> Iterator[Session]:
    database: Database = current_app.extensions["pbem.database"]
    with database.transaction() as session:
        yield session


def caller(session: Session, required: bool = True) -> Player | None:
    header = request.headers.get("Authorization", "")
    if not header:
        if required:
            raise Unauthorized(N_("send your API token as 'Authorization: Bearer <token>'"))
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized(N_("the Authorization header must read 'Bearer <token>'"))
    # the language of this request's refusals: the player's, else the browser's; set before
    # the lookup, so that an unknown token's refusal does not look the token up again
    # (``service.app.caller_locale``)
    g.caller_locale = i18n.best_of(request.accept_languages)
    player = players.authenticate(session, token.strip())
    g.caller_locale = i18n.supported(player.language) or g.caller_locale
    return player


def me(session: Session) -> Player:
    player = caller(session)
    assert player is not None
    return player


def body() -> dict[str, Any]:
    """The request's JSON object, as the gate (``service.api.gate``) read and checked it."""
    data = g.get("json_body")
    if not isinstance(data, dict):
        raise BadRequest(
            N_("the request body must be a JSON object (Content-Type: application/json)")
        )
    return data


def read_body(cache: bool = True) -> bytes:
    """The request body; a body the WSGI server cannot read is a 400 ``bad_body``. The web
    process's own server refuses a false ``Transfer-Encoding: chunked``, a bad chunk size or
    a cut connection before Flask runs (``service.web_worker``); another server may leave
    them to this read (gunicorn's sync worker raises ``InvalidChunkSize`` here)."""
    try:
        return request.get_data(cache=cache)
    except HTTPException:
        raise  # already an answer: 413 past the size limit, 400 for a client gone
    except Exception as error:  # whatever the server raises, it is about these bytes
        raise BadRequest(
            N_("the request body cannot be read: %(error)s"), "bad_body", values={"error": error}
        ) from None


def read_json_body() -> None:
    """Run before every request (see ``service.app``): API bodies pass the gate once."""
    if not request.path.startswith("/api/") or not request.is_json or request.url_rule is None:
        return
    route = gate.route_for(request.method, request.url_rule.rule)
    if route is not None and route.auth == "yes" and not request.headers.get("Authorization"):
        raise Unauthorized(N_("send your API token as 'Authorization: Bearer <token>'"))
    raw = read_body()
    if raw.strip():
        g.json_body = gate.read(raw, gate.model_for(request.method, request.url_rule.rule))


def valid_id(value: int) -> int:
    if not 1 <= value <= MAX_ID:
        raise BadRequest(N_("%(value)s is not an id"), values={"value": value})
    return value


def player_json(session: Session, player: Player, private: bool) -> dict[str, Any]:
    """A player as ``players.to_json`` gives it, with their current ratings and reliability
    (public)."""
    return {
        **players.to_json(player, private),
        "ratings": ratings.current(session, player.id),
        "reliability": reliability.of_player(session, player.id).to_json(),
    }


@blueprint.get("/health")
def health() -> Any:
    return {"status": "ok"}


@blueprint.get("/openapi.json")
def openapi_document() -> Any:
    return openapi.document()


@blueprint.get("/catalog")
def catalog() -> Any:
    return {"games": games.catalog()}


@blueprint.post("/players")
def create_player() -> Any:
    with transaction() as session:
        player, token = players.create(session, me(session), body())
        return {"player": players.to_json(player, private=True), "token": token}, 201


@blueprint.get("/players")
def list_players() -> Any:
    with transaction() as session:
        viewer = me(session)
        search = request.args.get("q", "")
        limit = query_int("limit", players.PAGE_DEFAULT)
        offset = query_int("offset", 0)
        return players.directory(session, viewer, search, limit, offset)


def query_int(name: str, default: int) -> int:
    """A whole number in the query string (``?limit=20``), or ``default`` when absent."""
    given = request.args.get(name)
    if given is None:
        return default
    if not given.isascii() or not given.isdigit() or len(given) > 10:
        raise BadRequest(
            N_("%(name)s must be a whole number, not %(given)r"),
            values={"name": name, "given": given[:20]},
        )
    return int(given)


@blueprint.get("/players/me")
def read_me() -> Any:
    with transaction() as session:
        return {"player": player_json(session, me(session), private=True)}


@blueprint.patch("/players/me")
def update_me() -> Any:
    with transaction() as session:
        player = players.update(session, me(session), body())
        return {"player": players.to_json(player, private=True)}


@blueprint.post("/players/me/token")
def rotate_token() -> Any:
    with transaction() as session:
        return {"token": players.issue_token(session, me(session))}


@blueprint.post("/players/me/vacation")
def take_vacation() -> Any:
    with transaction() as session:
        player = me(session)
        players.take_vacation(session, player, body().get("days"))
        return {"player": players.to_json(player, private=True)}


@blueprint.get("/players/me/webhooks")
def own_webhooks() -> Any:
    with transaction() as session:
        hooks = webhooks.list_of(session, player=me(session))
        return {"webhooks": [webhooks.to_json(session, hook) for hook in hooks]}


@blueprint.post("/players/me/webhooks")
def add_webhook() -> Any:
    with transaction() as session:
        player, database = me(session), current_app.extensions["pbem.database"]
        hook, secret = webhooks.create(session, database.settings, body(), player=player)
        return {"webhook": webhooks.to_json(session, hook, secret)}, 201


@blueprint.delete("/players/me/webhooks/<int:webhook_id>")
def remove_webhook(webhook_id: int) -> Any:
    with transaction() as session:
        player = me(session)
        webhooks.remove(session, valid_id(webhook_id), player=player)
        hooks = webhooks.list_of(session, player=player)
        return {"webhooks": [webhooks.to_json(session, hook) for hook in hooks]}


@blueprint.get("/players/<int:player_id>")
def read_player(player_id: int) -> Any:
    with transaction() as session:
        viewer = me(session)
        player = players.get(session, valid_id(player_id))
        private = viewer.id == player.id or viewer.has_role("td", "admin")
        return {"player": player_json(session, player, private=private)}


@blueprint.post("/games")
def create_game() -> Any:
    with transaction() as session:
        viewer = me(session)
        game = games.create(session, viewer, body())
        return {"game": games.to_json(session, game, viewer)}, 201


@blueprint.get("/games")
def list_games() -> Any:
    with transaction() as session:
        return {"games": games.list_for(session, me(session), request.args.get("filter", "mine"))}


@blueprint.get("/games/<int:gid>")
def read_game(gid: int) -> Any:
    with transaction() as session:
        viewer = me(session)
        return {"game": games.to_json(session, games.get(session, valid_id(gid)), viewer)}


@blueprint.get("/games/<int:gid>/spectate")
def spectate(gid: int) -> Any:
    with transaction() as session:
        return {"game": games.to_json(session, games.get(session, valid_id(gid)), None)}


@blueprint.get("/games/<int:gid>/record")
def record(gid: int) -> Any:
    with transaction() as session:
        viewer = caller(session, required=False)
        return games.record(session, games.get(session, valid_id(gid)), viewer)


@blueprint.get("/games/<int:gid>/record.txt")
def text_record(gid: int) -> Any:
    with transaction() as session:
        viewer = caller(session, required=False)
        text = games.text_record(session, games.get(session, valid_id(gid)), viewer)
        return Response(text, mimetype="text/plain")


@blueprint.post("/games/<int:gid>/moves")
def submit(gid: int) -> Any:
    with transaction() as session:
        viewer, data = me(session), body()
        game = games.submit(session, valid_id(gid), viewer, data.get("turn"), data.get("text"))
        return {"game": games.to_json(session, game, viewer)}


@blueprint.post("/games/<int:gid>/withdraw")
def withdraw(gid: int) -> Any:
    with transaction() as session:
        viewer = me(session)
        game = games.withdraw(session, valid_id(gid), viewer, body().get("turn"))
        return {"game": games.to_json(session, game, viewer)}


@blueprint.post("/games/<int:gid>/wait")
def wait(gid: int) -> Any:
    with transaction() as session:
        viewer, data = me(session), body()
        game = games.wait_for_deadline(
            session, valid_id(gid), viewer, data.get("turn"), data.get("wait", True)
        )
        return {"game": games.to_json(session, game, viewer)}


@blueprint.get("/games/<int:gid>/conditional")
def own_conditional(gid: int) -> Any:
    with transaction() as session:
        game = games.get(session, valid_id(gid))
        return {"conditional": conditional.own(session, game, me(session))}


@blueprint.post("/games/<int:gid>/conditional")
def set_conditional(gid: int) -> Any:
    with transaction() as session:
        viewer, data = me(session), body()
        tree = conditional.set_tree(
            session, valid_id(gid), viewer, data.get("turn"), data.get("text")
        )
        return {"conditional": tree}


@blueprint.delete("/games/<int:gid>/conditional")
def withdraw_conditional(gid: int) -> Any:
    with transaction() as session:
        return conditional.withdraw(session, valid_id(gid), me(session))


@blueprint.get("/games/<int:gid>/note")
def own_note(gid: int) -> Any:
    with transaction() as session:
        return notes.to_json(session, games.get(session, valid_id(gid)), me(session))


@blueprint.put("/games/<int:gid>/note")
def set_note(gid: int) -> Any:
    with transaction() as session:
        viewer, data = me(session), body()
        game = games.get(session, valid_id(gid))
        notes.set_note(session, game, viewer, data.get("text", ""))
        return notes.to_json(session, game, viewer)


@blueprint.post("/games/<int:gid>/preview")
def preview(gid: int) -> Any:
    with transaction() as session:
        return games.preview(session, valid_id(gid), me(session), body().get("text"))


@blueprint.post("/games/<int:gid>/resign")
def resign(gid: int) -> Any:
    with transaction() as session:
        viewer = me(session)
        game = games.resign(session, valid_id(gid), viewer)
        return {"game": games.to_json(session, game, viewer)}


@blueprint.post("/games/<int:gid>/draw/offer", defaults={"action": "offer"}, endpoint="draw_offer")
@blueprint.post(
    "/games/<int:gid>/draw/accept", defaults={"action": "accept"}, endpoint="draw_accept"
)
@blueprint.post(
    "/games/<int:gid>/draw/decline", defaults={"action": "decline"}, endpoint="draw_decline"
)
@blueprint.post(
    "/games/<int:gid>/draw/withdraw", defaults={"action": "withdraw"}, endpoint="draw_withdraw"
)
def draw(gid: int, action: str) -> Any:
    """One route per action (each its own operation in the document), one view for all."""
    with transaction() as session:
        viewer = me(session)
        game = games.draw(session, valid_id(gid), viewer, action)
        return {"game": games.to_json(session, game, viewer)}


@blueprint.post(
    "/games/<int:gid>/takeback/offer", defaults={"action": "offer"}, endpoint="takeback_offer"
)
@blueprint.post(
    "/games/<int:gid>/takeback/accept", defaults={"action": "accept"}, endpoint="takeback_accept"
)
@blueprint.post(
    "/games/<int:gid>/takeback/decline",
    defaults={"action": "decline"},
    endpoint="takeback_decline",
)
def takeback(gid: int, action: str) -> Any:
    """Offer to take one's last move back, or answer the opponent's offer (issue 25)."""
    with transaction() as session:
        viewer = me(session)
        game = games.takeback(session, valid_id(gid), viewer, action)
        return {"game": games.to_json(session, game, viewer)}


@blueprint.patch("/games/<int:gid>/deadline")
def set_deadline(gid: int) -> Any:
    with transaction() as session:
        viewer = me(session)
        ownership.check_game(session, viewer, valid_id(gid))
        game = games.set_deadline(session, valid_id(gid), viewer, body().get("deadline"))
        return {"game": games.to_json(session, game, viewer)}
