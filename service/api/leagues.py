"""League routes under ``/api/v1`` (JSON) and the public league page ``/leagues/<id>``
(HTML); each takes ids, calls the league service and returns."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app

from service import games, webhooks
from service.api.v1 import body, caller, me, transaction, valid_id
from service.leagues import director, leagues, ownership, page, ratings, seasons
from service.leagues import standings as table
from service.players import get as get_player

blueprint = Blueprint("api_leagues", __name__, url_prefix="/api/v1")
pages = Blueprint("league_pages", __name__)


def _game(session: Any, game: Any) -> dict[str, Any]:
    return {"game": games.to_json(session, game, None)}


@blueprint.post("/leagues")
def create_league() -> Any:
    with transaction() as session:
        viewer = me(session)
        league = leagues.create(session, viewer, body())
        return {"league": leagues.to_json(session, league, viewer)}, 201


@blueprint.post("/leagues/next-season")
def next_season() -> Any:
    """One new league per finished division, players promoted and relegated."""
    with transaction() as session:
        viewer = me(session)
        created = seasons.next_season(session, viewer, body())
        return {"leagues": [leagues.to_json(session, league, viewer) for league in created]}, 201


@blueprint.get("/leagues")
def list_leagues() -> Any:
    with transaction() as session:
        return {"leagues": leagues.list_all(session)}


@blueprint.get("/leagues/<int:league_id>")
def read_league(league_id: int) -> Any:
    with transaction() as session:
        viewer = caller(session, required=False)
        league = leagues.get(session, valid_id(league_id))
        return {"league": leagues.to_json(session, league, viewer)}


@blueprint.post("/leagues/<int:league_id>/players")
def invite(league_id: int) -> Any:
    with transaction() as session:
        viewer = me(session)
        entries = leagues.invite(session, valid_id(league_id), viewer, body())
        league = leagues.get(session, league_id)
        invited = [{"entry": e.id, "id": e.player_id, "name": e.player.name} for e in entries]
        return {"invited": invited, "league": leagues.to_json(session, league, viewer)}


@blueprint.post("/leagues/<int:league_id>/join")
def join(league_id: int) -> Any:
    with transaction() as session:
        viewer = me(session)
        leagues.join(session, valid_id(league_id), viewer, body().get("code"))
        return {"league": leagues.to_json(session, leagues.get(session, league_id), viewer)}


@blueprint.post("/leagues/<int:league_id>/accept", defaults={"accept": True}, endpoint="accept")
@blueprint.post("/leagues/<int:league_id>/decline", defaults={"accept": False}, endpoint="decline")
def answer(league_id: int, accept: bool) -> Any:
    """Players accept or decline an invitation (no body)."""
    with transaction() as session:
        viewer = me(session)
        leagues.answer(session, valid_id(league_id), viewer, accept)
        return {"league": leagues.to_json(session, leagues.get(session, league_id), viewer)}


@blueprint.post("/leagues/<int:league_id>/pause", defaults={"pause": True}, endpoint="pause")
@blueprint.post("/leagues/<int:league_id>/resume", defaults={"pause": False}, endpoint="resume")
def pause_league(league_id: int, pause: bool) -> Any:
    """Directors pause or resume the league and its games: ``{"reason"}``."""
    with transaction() as session:
        viewer = me(session)
        tool = director.pause_league if pause else director.resume_league
        tool(session, valid_id(league_id), viewer, body().get("reason"))
        return {"league": leagues.to_json(session, leagues.get(session, league_id), viewer)}


@blueprint.post("/leagues/<int:league_id>/start")
def start(league_id: int) -> Any:
    with transaction() as session:
        viewer = me(session)
        league = leagues.start(session, valid_id(league_id), viewer)
        return {"league": leagues.to_json(session, league, viewer)}


@blueprint.get("/leagues/<int:league_id>/standings")
def standings(league_id: int) -> Any:
    with transaction() as session:
        league = leagues.get(session, valid_id(league_id))
        return {"standings": leagues.standings_json(session, league)}


@blueprint.get("/leagues/<int:league_id>/standings.csv")
def standings_csv(league_id: int) -> Any:
    with transaction() as session:
        league = leagues.get(session, valid_id(league_id))
        return Response(table.to_csv(session, league), mimetype="text/csv")


@blueprint.post("/leagues/<int:league_id>/withdraw")
def withdraw(league_id: int) -> Any:
    with transaction() as session:
        viewer = me(session)
        league = director.withdraw(session, valid_id(league_id), viewer, body())
        return {"league": leagues.to_json(session, league, viewer)}


@blueprint.post("/leagues/<int:league_id>/message")
def message(league_id: int) -> Any:
    with transaction() as session:
        return {"sent": director.message(session, valid_id(league_id), me(session), body())}


@blueprint.post("/leagues/<int:league_id>/days")
def set_days(league_id: int) -> Any:
    """Directors change ``invitation_days`` and ``max_game_days`` (issue 25 point 6)."""
    with transaction() as session:
        viewer = me(session)
        league = director.set_days(session, valid_id(league_id), viewer, body())
        return {"league": leagues.to_json(session, league, viewer)}


@blueprint.post("/leagues/<int:league_id>/directors")
def add_director(league_id: int) -> Any:
    """A league's director (or an admin) adds another tournament director to run it."""
    with transaction() as session:
        viewer = me(session)
        director.add_director(session, valid_id(league_id), viewer, body())
        return {"league": leagues.to_json(session, leagues.get(session, league_id), viewer)}, 201


@blueprint.get("/leagues/<int:league_id>/webhooks")
def league_webhooks(league_id: int) -> Any:
    with transaction() as session:
        league = ownership.check_league(session, me(session), valid_id(league_id))
        hooks = webhooks.list_of(session, league=league)
        return {"webhooks": [webhooks.to_json(session, hook) for hook in hooks]}


@blueprint.post("/leagues/<int:league_id>/webhooks")
def add_league_webhook(league_id: int) -> Any:
    with transaction() as session:
        viewer = me(session)
        league = ownership.check_league(session, viewer, valid_id(league_id))
        settings = current_app.extensions["pbem.database"].settings
        hook, secret = webhooks.create(session, settings, body(), league=league, actor=viewer)
        return {"webhook": webhooks.to_json(session, hook, secret)}, 201


@blueprint.delete("/leagues/<int:league_id>/webhooks/<int:webhook_id>")
def remove_league_webhook(league_id: int, webhook_id: int) -> Any:
    with transaction() as session:
        league = ownership.check_league(session, me(session), valid_id(league_id))
        webhooks.remove(session, valid_id(webhook_id), league=league)
        hooks = webhooks.list_of(session, league=league)
        return {"webhooks": [webhooks.to_json(session, hook) for hook in hooks]}


@blueprint.get("/leagues/<int:league_id>/audit")
def audit(league_id: int) -> Any:
    with transaction() as session:
        return {"audit": director.log(session, valid_id(league_id), me(session))}


@blueprint.post("/games/<int:game_id>/pause", defaults={"pause": True}, endpoint="pause_game")
@blueprint.post("/games/<int:game_id>/resume", defaults={"pause": False}, endpoint="resume_game")
def pause_game(game_id: int, pause: bool) -> Any:
    """Directors pause or resume a game's clock: ``{"reason"}``."""
    with transaction() as session:
        tool = director.pause_game if pause else director.resume_game
        return _game(session, tool(session, valid_id(game_id), me(session), body().get("reason")))


@blueprint.post("/games/<int:game_id>/extend")
def extend(game_id: int) -> Any:
    with transaction() as session:
        data = body()
        game = director.extend_deadline(
            session, valid_id(game_id), me(session), data.get("days"), data.get("reason")
        )
        return _game(session, game)


@blueprint.post("/games/<int:game_id>/replace")
def replace(game_id: int) -> Any:
    with transaction() as session:
        return _game(
            session, director.replace_player(session, valid_id(game_id), me(session), body())
        )


@blueprint.post("/games/<int:game_id>/result")
def set_result(game_id: int) -> Any:
    with transaction() as session:
        return _game(session, director.set_result(session, valid_id(game_id), me(session), body()))


@blueprint.post("/games/<int:game_id>/process")
def process(game_id: int) -> Any:
    with transaction() as session:
        viewer = me(session)
        game = director.process_now(session, valid_id(game_id), viewer, body().get("reason"))
        return _game(session, game)


@blueprint.post("/games/<int:game_id>/void")
def void(game_id: int) -> Any:
    with transaction() as session:
        viewer = me(session)
        return _game(
            session, director.void_game(session, valid_id(game_id), viewer, body().get("reason"))
        )


@blueprint.get("/players/<int:player_id>/ratings")
def player_ratings(player_id: int) -> Any:
    with transaction() as session:
        player = get_player(session, valid_id(player_id))
        return {"name": player.name, **ratings.of_player(session, player.id)}


@pages.get("/leagues/<int:league_id>")
def league_page(league_id: int) -> Any:
    with transaction() as session:
        league = leagues.get(session, valid_id(league_id))
        return Response(page.render(session, league), mimetype="text/html")
