"""The OpenAPI 3.1 document of ``/api/v1``, written from the models of ``service.api.schemas``
(the same models the JSON gate validates request bodies with), and the table of routes it
describes. A test checks the table against the app's real routes."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import BaseModel, TypeAdapter

from service.api import schemas as s
from service.players import PAGE_DEFAULT, PAGE_MAX, SEARCH_MAX

BodyModel = type[s.Request] | str
"""A request model, or ``"GameIn"`` / ``"LeagueIn"``: one model per game (``schemas.by_game``)."""


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    summary: str
    auth: str  # "yes", "no" or "optional"
    body: BodyModel | None
    response: type[BaseModel] | str
    """The success body's model, or a media type for text (``text/plain``, ``text/csv``)."""
    status: int = 200

    @property
    def operation_id(self) -> str:
        name = f"{self.method}_{self.path}".replace("/", "_").replace(".", "_")
        return name.replace("{", "").replace("}", "").replace("-", "_")


DRAW = {"offer": "Offer a draw", "accept": "Accept the draw offered", "decline":
        "Decline the draw offered", "withdraw": "Withdraw your draw offer"}  # fmt: skip
TAKEBACK = {"offer": "Offer to take back your last move (until the opponent replies)",
            "accept": "Accept the takeback offered: the last move is undone",
            "decline": "Decline the takeback offered"}  # fmt: skip
ROUTES: list[Route] = [
    Route("get", "/health", "Liveness check", "no", None, s.Health),
    Route("get", "/openapi.json", "This document", "no", None, s.Response),
    Route("get", "/catalog", "Every game with its options and player counts", "no", None,
           s.Catalog),
    Route("post", "/players", "Create a player (directors, admins); returns the token once",
           "yes", s.PlayerIn, s.PlayerMade, 201),
    Route("get", "/players", "Players by name or address, a page at a time (directors, admins)",
           "yes", None, s.PlayerList),
    Route("get", "/players/me", "The caller's own account", "yes", None, s.PlayerOut),
    Route("patch", "/players/me", "Update own preferences", "yes", s.PreferencesIn,
           s.PlayerChanged),
    Route("post", "/players/me/token", "Replace the caller's API token", "yes", None, s.Token),
    Route("post", "/players/me/vacation", "Take leave from now for some days", "yes",
           s.VacationIn, s.PlayerChanged),
    Route("get", "/players/me/webhooks", "The caller's webhooks", "yes", None, s.Webhooks),
    Route("post", "/players/me/webhooks", "Add a webhook; its secret is shown this once",
           "yes", s.WebhookIn, s.WebhookOut, 201),
    Route("delete", "/players/me/webhooks/{webhook_id}", "Remove a webhook", "yes", None,
           s.Webhooks),
    Route("get", "/players/{player_id}", "A player (private fields to self and directors)",
           "yes", None, s.PlayerOut),
    Route("post", "/games", "Create a game", "yes", "GameIn", s.GameOut, 201),
    Route("get", "/games", "The caller's games: filter mine, waiting, active, finished, all",
           "yes", None, s.Games),
    Route("get", "/games/{game_id}", "A game as the caller may see it", "yes", None, s.GameOut),
    Route("get", "/games/{game_id}/spectate", "A game as a spectator sees it", "no", None,
           s.GameOut),
    Route("get", "/games/{game_id}/record", "Full JSON record: moves, orders, rolls, events",
           "optional", None, s.Record),
    Route("get", "/games/{game_id}/record.txt", "Compact text record with headers and moves",
           "optional", None, "text/plain"),
    Route("post", "/games/{game_id}/moves", "Play a move, or submit or replace sealed orders",
           "yes", s.MoveIn, s.GameOut),
    Route("post", "/games/{game_id}/withdraw", "Withdraw sealed orders", "yes", s.TurnIn,
           s.GameOut),
    Route("post", "/games/{game_id}/wait", "Hold a sealed turn open until its deadline", "yes",
           s.WaitIn, s.GameOut),
    Route("get", "/games/{game_id}/conditional",
           "The caller's own conditional moves (seen by nobody else)", "yes", None,
           s.ConditionalOut),
    Route("post", "/games/{game_id}/conditional",
           "Set (replace) conditional moves: lines 'if <their move> then <yours>'", "yes",
           s.ConditionalIn, s.ConditionalOut),
    Route("delete", "/games/{game_id}/conditional", "Withdraw conditional moves", "yes", None,
           s.ConditionalOut),
    Route("get", "/games/{game_id}/note", "The caller's private note on the game (theirs alone)",
           "yes", None, s.NoteOut),
    Route("put", "/games/{game_id}/note", "Set the caller's private note; empty text clears it",
           "yes", s.NoteIn, s.NoteOut),
    Route("post", "/games/{game_id}/preview", "The board after a move; nothing is stored",
           "yes", s.PreviewIn, s.Preview),
    Route("post", "/games/{game_id}/resign", "Resign", "yes", None, s.GameOut),
    *(Route("post", f"/games/{{game_id}}/draw/{action}", summary, "yes", None, s.GameOut)
      for action, summary in DRAW.items()),
    *(Route("post", f"/games/{{game_id}}/takeback/{action}", summary, "yes", None, s.GameOut)
      for action, summary in TAKEBACK.items()),
    Route("patch", "/games/{game_id}/deadline", "Set the current deadline (directors, admins)",
           "yes", s.DeadlineIn, s.GameOut),
    Route("post", "/leagues", "Create a league (directors, admins)", "yes", "LeagueIn",
           s.LeagueOut, 201),
    Route("get", "/leagues", "Every league", "no", None, s.Leagues),
    Route("post", "/leagues/next-season",
           "Next season of finished divisions, with promotion and relegation (directors)", "yes",
           s.NextSeasonIn, s.NewSeason, 201),
    Route("get", "/leagues/{league_id}", "A league: settings, players, rounds", "optional", None,
           s.LeagueOut),
    Route("post", "/leagues/{league_id}/players", "Invite players by e-mail or id", "yes",
           s.InviteIn, s.Invited),
    Route("post", "/leagues/{league_id}/join", "Join an open league with its code", "yes",
           s.JoinIn, s.LeagueOut),
    Route("post", "/leagues/{league_id}/accept", "Accept an invitation", "yes", None,
           s.LeagueOut),
    Route("post", "/leagues/{league_id}/decline", "Decline an invitation", "yes", None,
           s.LeagueOut),
    Route("post", "/leagues/{league_id}/pause", "Pause the league and its games (directors)",
           "yes", s.ReasonIn, s.LeagueOut),
    Route("post", "/leagues/{league_id}/resume", "Resume the league and its games (directors)",
           "yes", s.ReasonIn, s.LeagueOut),
    Route("post", "/leagues/{league_id}/start", "Start the league now (directors)", "yes", None,
           s.LeagueOut),
    Route("get", "/leagues/{league_id}/standings", "Standings with crosstable", "no", None,
           s.StandingsOut),
    Route("get", "/leagues/{league_id}/standings.csv", "Standings as CSV", "no", None,
           "text/csv"),
    Route("post", "/leagues/{league_id}/withdraw", "Withdraw a player (directors)", "yes",
           s.WithdrawIn, s.LeagueOut),
    Route("post", "/leagues/{league_id}/message", "Mail everyone in the league (directors)",
           "yes", s.MessageIn, s.Sent),
    Route("post", "/leagues/{league_id}/days",
           "Set invitation_days and max_game_days (directors)", "yes", s.DaysIn, s.LeagueOut),
    Route("post", "/leagues/{league_id}/directors",
           "Add a co-director (the league's directors, admins)", "yes", s.DirectorIn,
           s.LeagueOut, 201),
    Route("get", "/leagues/{league_id}/webhooks", "The league's webhooks (directors)", "yes",
           None, s.Webhooks),
    Route("post", "/leagues/{league_id}/webhooks",
           "Add a league webhook (directors); its secret is shown this once", "yes",
           s.WebhookIn, s.WebhookOut, 201),
    Route("delete", "/leagues/{league_id}/webhooks/{webhook_id}",
           "Remove a league webhook (directors)", "yes", None, s.Webhooks),
    Route("get", "/leagues/{league_id}/audit", "The directors' audit log", "yes", None, s.Audit),
    Route("post", "/games/{game_id}/pause", "Pause a game's clock (directors)", "yes",
           s.ReasonIn, s.GameOut),
    Route("post", "/games/{game_id}/resume", "Resume a game's clock (directors)", "yes",
           s.ReasonIn, s.GameOut),
    Route("post", "/games/{game_id}/extend", "Extend the deadline (directors)", "yes",
           s.ExtendIn, s.GameOut),
    Route("post", "/games/{game_id}/replace", "Give a seat to another player (directors)",
           "yes", s.ReplaceIn, s.GameOut),
    Route("post", "/games/{game_id}/result", "Set or correct a result (directors)", "yes",
           s.ResultIn, s.GameOut),
    Route("post", "/games/{game_id}/process", "Resolve the sealed turn now (directors)", "yes",
           s.ReasonIn, s.GameOut),
    Route("post", "/games/{game_id}/void", "Void a game (directors)", "yes", s.ReasonIn,
           s.GameOut),
    Route("get", "/players/{player_id}/ratings", "Ratings and rating history", "no", None,
           s.Ratings),
]  # fmt: skip


@cache
def _model_adapter(model: type[BaseModel]) -> TypeAdapter[Any]:
    return TypeAdapter(model)


def request_adapter(body: BodyModel) -> TypeAdapter[Any]:
    """What validates a request body of this kind (``service.api.gate``)."""
    return s.by_game(body) if isinstance(body, str) else _model_adapter(body)


_BY_ROUTE = {(route.method.upper(), route.path): route for route in ROUTES}


def route_for(method: str, path: str) -> Route | None:
    """The route of an OpenAPI path (``/games/{game_id}/moves``) and method, if documented."""
    return _BY_ROUTE.get((method.upper(), path))


# -- the document ---------------------------------------------------------------------------

ID = {"type": "integer", "minimum": 1, "maximum": s.MAX_ID}
COMPONENTS = "#/components/schemas/{model}"


def _schemas() -> tuple[dict[Any, Any], dict[str, Any]]:
    """Every body's schema (by route and part), and the shared definitions they refer to."""
    inputs: list[tuple[Any, Any, TypeAdapter[Any]]] = [
        (("error", "out"), "serialization", _model_adapter(s.Error))
    ]
    for route in ROUTES:
        if route.body is not None:
            inputs.append(((route, "in"), "validation", request_adapter(route.body)))
        if not isinstance(route.response, str):
            inputs.append(((route, "out"), "serialization", _model_adapter(route.response)))
    found, definitions = TypeAdapter.json_schemas(inputs, ref_template=COMPONENTS)
    return {key: _tidy(schema) for (key, _), schema in found.items()}, {
        name: _tidy(schema) for name, schema in definitions.get("$defs", {}).items()
    }


def _tidy(schema: Any) -> Any:
    """Without pydantic's generated titles, and without ``default: null`` on fields that
    may not be null (they are optional: leaving them out leaves them as they are)."""
    if isinstance(schema, list):
        return [_tidy(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    tidy = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "properties":
            tidy[key] = {name: _tidy(part) for name, part in value.items()}
        elif key == "default" and value is None and not _nullable(schema):
            continue
        else:
            tidy[key] = _tidy(value) if key not in ("const", "enum", "examples") else value
    return tidy


def _nullable(schema: dict[str, Any]) -> bool:
    options = schema.get("anyOf", []) + schema.get("oneOf", [])
    return schema.get("type") == "null" or any(o.get("type") == "null" for o in options)


def _parameters(route: Route) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for name in ("game_id", "player_id", "league_id", "webhook_id"):
        if "{" + name + "}" in route.path:
            found.append({"name": name, "in": "path", "required": True, "schema": ID})
    if route.path == "/games" and route.method == "get":
        filters = {"enum": ["mine", "waiting", "active", "finished", "all"], "default": "mine"}
        found.append({"name": "filter", "in": "query", "required": False, "schema": filters})
    if route.path == "/players" and route.method == "get":
        found.extend(_player_search())
    return found


def _player_search() -> list[dict[str, Any]]:
    """``GET /players``' query: a search text and the page (``service.players.directory``)."""
    search = {"type": "string", "maxLength": SEARCH_MAX, "pattern": s.NO_NUL}
    limit = {"type": "integer", "minimum": 1, "maximum": PAGE_MAX, "default": PAGE_DEFAULT}
    offset = {"type": "integer", "minimum": 0, "maximum": s.MAX_INTEGER, "default": 0}
    described = [
        ("q", search, "part of a name or an address, in any case (empty: every player)"),
        ("limit", limit, "players a page"),
        ("offset", offset, "players to skip: the last page's next_offset"),
    ]
    return [
        {"name": name, "in": "query", "required": False, "schema": schema, "description": text}
        for name, schema, text in described
    ]


TOO_LARGE = (
    "the body is larger than PBEM_MAX_BODY_BYTES (64 KiB unless set): a limit on bytes, "
    "which JSON Schema cannot state, on top of every length above"
)
UNAUTHORIZED = {
    "description": "no token, or one that is unknown or was replaced",
    "headers": {
        "WWW-Authenticate": {"required": True, "schema": {"type": "string", "const": "Bearer"}}
    },
}


def _operation(route: Route, bodies: dict[Any, Any]) -> dict[str, Any]:
    if isinstance(route.response, str):
        content = {route.response: {"schema": {"type": "string"}}}
    else:
        content = {"application/json": {"schema": bodies[(route, "out")]}}
    error = {"application/json": {"schema": bodies[("error", "out")]}}
    responses: dict[str, Any] = {
        str(route.status): {"description": "success", "content": content},
        "4XX": {"description": "refused, with the reason", "content": error},
    }
    if route.auth != "no":
        responses["401"] = {**UNAUTHORIZED, "content": error}
    if route.body is not None:
        responses["413"] = {"description": TOO_LARGE, "content": error}
    operation: dict[str, Any] = {
        "summary": route.summary,
        "operationId": route.operation_id,
        "parameters": _parameters(route),
        "responses": responses,
        "security": {"yes": [{"bearer": []}], "optional": [{}, {"bearer": []}], "no": []}[
            route.auth
        ],
    }
    if route.body is not None:
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": bodies[(route, "in")]}},
        }
    return operation


def document() -> dict[str, Any]:
    return dict(_document(tuple(s.game_names())))


@cache
def _document(games: tuple[str, ...]) -> dict[str, Any]:
    """Written once per set of registered games (they name the bodies of games and leagues)."""
    bodies, definitions = _schemas()
    paths: dict[str, dict[str, Any]] = {}
    for route in ROUTES:
        paths.setdefault(route.path, {})[route.method] = _operation(route, bodies)
    return {
        "openapi": "3.1.0",
        "info": {"title": "pbem play-by-email games", "version": "1"},
        "servers": [{"url": "/api/v1"}],
        "paths": paths,
        "components": {
            "schemas": definitions,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }
