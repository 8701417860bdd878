"""The OpenAPI 3.1 document of ``/api/v1`` (a test checks it against the real routes)."""

from __future__ import annotations

from typing import Any

ERROR = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
        }
    },
}
OBJECT: dict[str, Any] = {"type": "object"}
ID = {"type": "integer", "minimum": 1, "maximum": 2**31 - 1}
TURN = {"type": "integer", "description": "the turn number the client saw"}
PLAYER_IN: dict[str, Any] = {
    "type": "object",
    "required": ["name", "emails"],
    "properties": {
        "name": {"type": "string"},
        "emails": {"type": "array", "items": {"type": "string", "format": "email"}},
        "roles": {"type": "array", "items": {"enum": ["player", "td", "admin"]}},
        "time_zone": {"type": "string"},
        "notify": {"enum": ["each", "none"]},
        "vacation_days_per_year": {"type": "number"},
    },
}
PREFERENCES = {
    "type": "object",
    "properties": {
        **{key: PLAYER_IN["properties"][key] for key in ("name", "emails", "time_zone", "notify")},
        "own_copy": {
            "enum": ["full", "short", "none"],
            "description": "the mail you get of your own move: all of it, a one-line receipt "
            "(default), or none",
        },
        "board_flip": {
            "type": "boolean",
            "description": "draw boards from your side (default true)",
        },
        "forwarded_addresses": {
            "type": "array",
            "items": {"type": "string", "format": "email"},
            "description": "own addresses whose mail comes through a forwarder: replies from "
            "them are played without sender authentication (SPF, DKIM, DMARC)",
        },
    },
}
TIME_CONTROL = {
    "type": "object",
    "properties": {
        "days": {"type": "number"},
        "skip_weekends": {"type": "boolean"},
        "forfeit_after": {"type": "integer"},
        "bank": {
            "type": ["object", "null"],
            "properties": {
                "initial_days": {"type": "number"},
                "increment_days": {"type": "number"},
                "max_days": {"type": "number"},
            },
        },
    },
}
GAME_IN = {
    "type": "object",
    "required": ["game", "seats"],
    "properties": {
        "game": {"type": "string"},
        "options": {"type": "object", "additionalProperties": {"type": "string"}},
        "seats": {"type": "array", "items": ID},
        "time_control": TIME_CONTROL,
        "position": {
            "type": "string",
            "description": "start from this position string of the game (directors, admins)",
        },
    },
}
MOVE_IN = {
    "type": "object",
    "required": ["turn", "text"],
    "properties": {"turn": TURN, "text": {"type": "string"}},
}
TURN_IN = {"type": "object", "required": ["turn"], "properties": {"turn": TURN}}
WAIT_IN = {
    "type": "object",
    "required": ["turn"],
    "properties": {"turn": TURN, "wait": {"type": "boolean"}},
}
TEXT_IN = {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}}
DAYS_IN = {"type": "object", "required": ["days"], "properties": {"days": {"type": "number"}}}
DEADLINE_IN = {
    "type": "object",
    "required": ["deadline"],
    "properties": {"deadline": {"type": "string", "format": "date-time"}},
}

REASON = {"type": "string", "description": "why: goes in the audit log"}
DIRECTOR_IN = {
    "type": "object",
    "required": ["player"],
    "properties": {
        "player": {
            "oneOf": [{"type": "integer"}, {"type": "string", "format": "email"}],
            "description": "a tournament director's player id or e-mail address",
        }
    },
}
REASON_IN = {"type": "object", "required": ["reason"], "properties": {"reason": REASON}}
LEAGUE_IN = {
    "type": "object",
    "required": ["name", "game"],
    "properties": {
        "name": {"type": "string"},
        "game": {"type": "string"},
        "options": {"type": "object", "additionalProperties": {"type": "string"}},
        "players": {"type": "integer", "description": "seats a game: 2, or 3-4 for tables"},
        "time_control": TIME_CONTROL,
        "format": {"enum": ["round_robin", "double_round_robin", "swiss", "knockout", "tables"]},
        "rounds": {"type": "integer", "description": "swiss and tables"},
        "draw_rule": {"enum": ["replay", "higher_seed", "second_seat"]},
        "scoring": {
            "type": "object",
            "properties": {
                key: {"type": "number"} for key in ("win", "draw", "loss", "bye", "forfeit_loss")
            },
        },
        "tiebreaks": {
            "type": "array",
            "items": {
                "enum": ["head_to_head", "sonneborn_berger", "buchholz", "median_buchholz", "wins"]
            },
        },
        "starts_at": {"type": ["string", "null"], "format": "date-time"},
        "round_days": {"type": ["number", "null"]},
        "withdrawal": {"enum": ["forfeit", "expunge"]},
        "join_code": {"type": ["string", "boolean"]},
        "position": {"type": "string", "description": "every game starts from this position"},
    },
}
INVITE_IN = {
    "type": "object",
    "required": ["players"],
    "properties": {
        "players": {
            "type": "array",
            "items": {
                "oneOf": [
                    {"type": "string", "format": "email"},
                    ID,
                    {
                        "type": "object",
                        "required": ["email"],
                        "properties": {"email": {"type": "string"}, "name": {"type": "string"}},
                    },
                ]
            },
        }
    },
}
NEXT_SEASON_IN = {
    "type": "object",
    "required": ["divisions"],
    "properties": {
        "divisions": {"type": "array", "items": ID, "description": "finished leagues, top first"},
        "promote": {"type": "integer", "minimum": 0, "default": 1},
        "relegate": {"type": "integer", "minimum": 0, "default": 1},
        "names": {"type": "array", "items": {"type": "string"}},
        "reason": REASON,
    },
}
CODE_IN = {"type": "object", "required": ["code"], "properties": {"code": {"type": "string"}}}
WITHDRAW_IN = {
    "type": "object",
    "required": ["player", "reason"],
    "properties": {"player": ID, "reason": REASON},
}
MESSAGE_IN = {
    "type": "object",
    "required": ["text"],
    "properties": {"subject": {"type": "string"}, "text": {"type": "string"}},
}
EXTEND_IN = {
    "type": "object",
    "required": ["days", "reason"],
    "properties": {"days": {"type": "number"}, "reason": REASON},
}
REPLACE_IN = {
    "type": "object",
    "required": ["player", "by", "reason"],
    "properties": {"player": ID, "by": ID, "reason": REASON},
}
RESULT_IN = {
    "type": "object",
    "required": ["result", "reason"],
    "properties": {
        "result": {
            "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "integer"}}],
            "description": "1-0, 0-1, 1/2-1/2, or one place per seat such as 1-3-2",
        },
        "forfeit": {"enum": ["time", "missed_turns"]},
        "reason": REASON,
    },
}

NUMBER_OR_NULL = {"type": ["number", "null"]}
RATING = {
    "type": "object",
    "description": "a current rating under one key (game, or game:board) and system",
    "required": ["key", "system", "rating", "deviation", "games"],
    "properties": {
        "key": {"type": "string", "examples": ["epaminondas:8x8"]},
        "system": {"enum": ["glicko2", "openskill"]},
        "rating": {
            "type": "number",
            "description": "Glicko-2: the rating; OpenSkill: the conservative mu - 3 sigma",
        },
        "deviation": {"type": "number", "description": "Glicko-2 RD, or OpenSkill sigma"},
        "volatility": {**NUMBER_OR_NULL, "description": "Glicko-2 only"},
        "mu": {**NUMBER_OR_NULL, "description": "OpenSkill only"},
        "sigma": {**NUMBER_OR_NULL, "description": "OpenSkill only"},
        "games": {"type": "integer"},
        "updated_at": {"type": "string", "format": "date-time"},
    },
}
PLAYER_OUT = {
    "type": "object",
    "required": ["player"],
    "properties": {
        "player": {
            "type": "object",
            "required": ["id", "name", "roles", "ratings"],
            "properties": {
                "id": ID,
                "name": {"type": "string"},
                "roles": {"type": "array", "items": {"type": "string"}},
                "ratings": {"type": "array", "items": RATING},
                "emails": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "private fields (emails, time_zone, notify, vacations) "
                    "only to the player and directors",
                },
            },
        }
    },
}
RATINGS_OUT = {
    "type": "object",
    "required": ["player", "name", "ratings", "history"],
    "properties": {
        "player": ID,
        "name": {"type": "string"},
        "ratings": {"type": "array", "items": RATING},
        "history": {
            "type": "array",
            "description": "one change per rated game, newest first",
            "items": {
                "type": "object",
                "properties": {
                    "game": ID,
                    "key": {"type": "string"},
                    "system": {"enum": ["glicko2", "openskill"]},
                    "before": {"type": "number"},
                    "after": {"type": "number"},
                    "deviation": {"type": "number"},
                    "at": {"type": "string", "format": "date-time"},
                },
            },
        },
    },
}
RESPONSES: dict[tuple[str, str], dict[str, Any]] = {
    ("get", "/players/me"): PLAYER_OUT,
    ("get", "/players/{player_id}"): PLAYER_OUT,
    ("get", "/players/{player_id}/ratings"): RATINGS_OUT,
}
"""Success bodies described in full; every other route answers a JSON object."""

# method, path, summary, auth ("yes", "no", "optional"), request schema, success status
ROUTES: list[tuple[str, str, str, str, dict[str, Any] | None, int]] = [
    ("get", "/health", "Liveness check", "no", None, 200),
    ("get", "/openapi.json", "This document", "no", None, 200),
    ("get", "/catalog", "Every game with its options and player counts", "no", None, 200),
    (
        "post",
        "/players",
        "Create a player (directors, admins); returns the token once",
        "yes",
        PLAYER_IN,
        201,
    ),
    ("get", "/players/me", "The caller's own account", "yes", None, 200),
    ("patch", "/players/me", "Update own preferences", "yes", PREFERENCES, 200),
    ("post", "/players/me/token", "Replace the caller's API token", "yes", None, 200),
    ("post", "/players/me/vacation", "Take leave from now for some days", "yes", DAYS_IN, 200),
    (
        "get",
        "/players/{player_id}",
        "A player (private fields to self and directors)",
        "yes",
        None,
        200,
    ),
    ("post", "/games", "Create a game", "yes", GAME_IN, 201),
    (
        "get",
        "/games",
        "The caller's games: filter mine, waiting, active, finished, all",
        "yes",
        None,
        200,
    ),
    ("get", "/games/{game_id}", "A game as the caller may see it", "yes", None, 200),
    ("get", "/games/{game_id}/spectate", "A game as a spectator sees it", "no", None, 200),
    (
        "get",
        "/games/{game_id}/record",
        "Full JSON record: moves, orders, rolls, events",
        "optional",
        None,
        200,
    ),
    (
        "get",
        "/games/{game_id}/record.txt",
        "Compact text record with headers and moves",
        "optional",
        None,
        200,
    ),
    (
        "post",
        "/games/{game_id}/moves",
        "Play a move, or submit or replace sealed orders",
        "yes",
        MOVE_IN,
        200,
    ),
    ("post", "/games/{game_id}/withdraw", "Withdraw sealed orders", "yes", TURN_IN, 200),
    (
        "post",
        "/games/{game_id}/wait",
        "Hold a sealed turn open until its deadline",
        "yes",
        WAIT_IN,
        200,
    ),
    (
        "get",
        "/games/{game_id}/conditional",
        "The caller's own conditional moves (seen by nobody else)",
        "yes",
        None,
        200,
    ),
    (
        "post",
        "/games/{game_id}/conditional",
        "Set (replace) conditional moves: lines 'if <their move> then <yours>'",
        "yes",
        MOVE_IN,
        200,
    ),
    ("delete", "/games/{game_id}/conditional", "Withdraw conditional moves", "yes", None, 200),
    (
        "post",
        "/games/{game_id}/preview",
        "The board after a move; nothing is stored",
        "yes",
        TEXT_IN,
        200,
    ),
    ("post", "/games/{game_id}/resign", "Resign", "yes", None, 200),
    ("post", "/games/{game_id}/draw/{action}", "Offer, accept or decline a draw", "yes", None, 200),
    (
        "patch",
        "/games/{game_id}/deadline",
        "Set the current deadline (directors, admins)",
        "yes",
        DEADLINE_IN,
        200,
    ),
    ("post", "/leagues", "Create a league (directors, admins)", "yes", LEAGUE_IN, 201),
    ("get", "/leagues", "Every league", "no", None, 200),
    (
        "post",
        "/leagues/next-season",
        "Next season of finished divisions, with promotion and relegation (directors)",
        "yes",
        NEXT_SEASON_IN,
        201,
    ),
    ("get", "/leagues/{league_id}", "A league: settings, players, rounds", "optional", None, 200),
    ("post", "/leagues/{league_id}/players", "Invite players by e-mail", "yes", INVITE_IN, 200),
    ("post", "/leagues/{league_id}/join", "Join an open league with its code", "yes", CODE_IN, 200),
    ("post", "/leagues/{league_id}/start", "Start the league now (directors)", "yes", None, 200),
    ("get", "/leagues/{league_id}/standings", "Standings with crosstable", "no", None, 200),
    ("get", "/leagues/{league_id}/standings.csv", "Standings as CSV", "no", None, 200),
    (
        "post",
        "/leagues/{league_id}/{action}",
        "Accept or decline an invitation; directors pause or resume the league and its games",
        "yes",
        {"type": "object", "properties": {"reason": REASON}},
        200,
    ),
    (
        "post",
        "/leagues/{league_id}/withdraw",
        "Withdraw a player (directors)",
        "yes",
        WITHDRAW_IN,
        200,
    ),
    (
        "post",
        "/leagues/{league_id}/message",
        "Mail everyone in the league (directors)",
        "yes",
        MESSAGE_IN,
        200,
    ),
    (
        "post",
        "/leagues/{league_id}/directors",
        "Add a co-director (the league's directors, admins)",
        "yes",
        DIRECTOR_IN,
        201,
    ),
    ("get", "/leagues/{league_id}/audit", "The directors' audit log", "yes", None, 200),
    (
        "post",
        "/games/{game_id}/{action}",
        "Pause or resume a game's clock (directors)",
        "yes",
        REASON_IN,
        200,
    ),
    ("post", "/games/{game_id}/extend", "Extend the deadline (directors)", "yes", EXTEND_IN, 200),
    (
        "post",
        "/games/{game_id}/replace",
        "Give a seat to another player (directors)",
        "yes",
        REPLACE_IN,
        200,
    ),
    (
        "post",
        "/games/{game_id}/result",
        "Set or correct a result (directors)",
        "yes",
        RESULT_IN,
        200,
    ),
    (
        "post",
        "/games/{game_id}/process",
        "Resolve the sealed turn now (directors)",
        "yes",
        REASON_IN,
        200,
    ),
    ("post", "/games/{game_id}/void", "Void a game (directors)", "yes", REASON_IN, 200),
    ("get", "/players/{player_id}/ratings", "Ratings and rating history", "no", None, 200),
]


def _parameters(path: str, method: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for name in ("game_id", "player_id", "league_id"):
        if "{" + name + "}" in path:
            found.append({"name": name, "in": "path", "required": True, "schema": ID})
    if "{action}" in path:
        actions = {"enum": ["offer", "accept", "decline", "withdraw"]}
        if path.startswith("/leagues/"):
            actions = {"enum": ["accept", "decline", "pause", "resume"]}
        elif not path.startswith("/games/{game_id}/draw/"):
            actions = {"enum": ["pause", "resume"]}
        found.append({"name": "action", "in": "path", "required": True, "schema": actions})
    if path == "/games" and method == "get":
        filters = {"enum": ["mine", "waiting", "active", "finished", "all"], "default": "mine"}
        found.append({"name": "filter", "in": "query", "required": False, "schema": filters})
    return found


def _operation(
    method: str, path: str, summary: str, auth: str, schema: dict[str, Any] | None, status: int
) -> dict[str, Any]:
    text = path.endswith(".txt")
    content = (
        {"text/plain": {"schema": {"type": "string"}}}
        if text
        else {"application/json": {"schema": RESPONSES.get((method, path), OBJECT)}}
    )
    if path.endswith(".csv"):
        content = {"text/csv": {"schema": {"type": "string"}}}
    errors = {"application/json": {"schema": ERROR}}
    operation: dict[str, Any] = {
        "summary": summary,
        "operationId": f"{method}_{path}".replace("/", "_").replace("{", "").replace("}", ""),
        "parameters": _parameters(path, method),
        "responses": {
            str(status): {"description": "success", "content": content},
            "4XX": {"description": "refused, with the reason", "content": errors},
        },
    }
    if auth == "yes":
        operation["security"] = [{"bearer": []}]
    elif auth == "optional":
        operation["security"] = [{}, {"bearer": []}]
    else:
        operation["security"] = []
    if schema is not None:
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": schema}},
        }
    return operation


def document() -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for method, path, summary, auth, schema, status in ROUTES:
        paths.setdefault(path, {})[method] = _operation(method, path, summary, auth, schema, status)
    return {
        "openapi": "3.1.0",
        "info": {"title": "pbem play-by-email games", "version": "1"},
        "servers": [{"url": "/api/v1"}],
        "paths": paths,
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
    }
