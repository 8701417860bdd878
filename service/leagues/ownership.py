"""Who may run which league: its creator, its co-directors, and admins.

A director (role ``td``) acts only on leagues they created or were added to as a co-director,
and on the games of those leagues; a game outside any league belongs to the director who
created it. Admins act on everything, as does ``None``: the server's own command line run
without ``--by``. Every director tool asks here before it reads or changes anything, so a
foreign director learns nothing but that the league is not theirs.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from service import games, players
from service.errors import BadRequest, Conflict, Forbidden, NotFound, Unprocessable
from service.i18n import N_
from service.leagues.models import League, LeagueDirector, Pairing
from service.leagues.refusals import refused
from service.models import Player, utcnow


def directors(session: Session, league: League) -> list[Player]:
    """The creator first, then co-directors in the order they were added."""
    found = [session.get(Player, league.created_by)] if league.created_by else []
    query = select(LeagueDirector).where(LeagueDirector.league_id == league.id)
    found += [row.player for row in session.scalars(query.order_by(LeagueDirector.id))]
    return [player for player in found if player is not None]


def directs(session: Session, actor: Player | None, league: League) -> bool:
    if actor is None or actor.has_role("admin"):
        return True
    if not actor.has_role("td"):
        return False
    return any(player.id == actor.id for player in directors(session, league))


def require_director(actor: Player | None) -> None:
    """``None`` is the server's own command line, which may do anything."""
    if actor is not None and not actor.has_role("td", "admin"):
        raise refused(Forbidden, N_("only tournament directors and admins run leagues"))


def check_league(session: Session, actor: Player | None, league_id: int) -> League:
    """The league, if ``actor`` may run it; else 403 naming who does."""
    require_director(actor)
    league = session.get(League, league_id)
    if league is None:
        raise refused(NotFound, N_("there is no league %(id)s"), id=league_id)
    if not directs(session, actor, league):
        names = ", ".join(p.name for p in directors(session, league))
        assert actor is not None
        values = {"name": actor.name, "id": league.id, "league": league.name}
        if not names:
            raise refused(
                Forbidden,
                N_(
                    "%(name)s does not direct league %(id)s (%(league)s): only its directors "
                    "(an admin) and admins may; one of them can add you as a co-director"
                ),
                "not_your_league",
                **values,
            )
        raise refused(
            Forbidden,
            N_(
                "%(name)s does not direct league %(id)s (%(league)s): only its directors "
                "(%(directors)s) and admins may; one of them can add you as a co-director"
            ),
            "not_your_league",
            directors=names,
            **values,
        )
    return league


def check_game(session: Session, actor: Player | None, game_id: int) -> None:
    """A league game: the league's directors; any other game: the director who created it."""
    require_director(actor)
    if actor is None or actor.has_role("admin"):
        return
    game = games.get(session, game_id)
    pairing = session.scalar(select(Pairing).where(Pairing.game_id == game.id))
    if pairing is not None:
        check_league(session, actor, pairing.league_id)
    elif game.created_by != actor.id:
        raise refused(
            Forbidden,
            N_("%(name)s did not create game %(id)s: only its creator and admins may direct it"),
            "not_your_game",
            name=actor.name,
            id=game.id,
        )


def add_director(
    session: Session, league_id: int, actor: Player | None, data: dict[str, Any]
) -> Player:
    """``{"player": id or address}``: a tournament director (role td or admin) joins the
    league's directors; only its directors and admins may add one."""
    league = check_league(session, actor, league_id)
    ref = data.get("player")
    # 422, not 404, for a player the body names that does not exist: the league does
    if isinstance(ref, int) and not isinstance(ref, bool):
        player = _named(session.get(Player, ref), N_("there is no player %(ref)s"), ref)
    elif isinstance(ref, str) and "@" in ref:
        player = _named(
            players.by_address(session, ref), N_("no player has the address %(ref)s"), ref
        )
    else:
        raise refused(
            BadRequest, N_("player must be the id or e-mail address of a tournament director")
        )
    if not player.has_role("td", "admin"):
        raise refused(
            Unprocessable,
            N_("%(name)s is not a tournament director (role td) nor an admin"),
            "not_a_director",
            name=player.name,
        )
    if any(p.id == player.id for p in directors(session, league)):
        raise refused(
            Conflict,
            N_("%(name)s already directs league %(id)s"),
            "already_director",
            name=player.name,
            id=league.id,
        )
    session.add(
        LeagueDirector(
            league_id=league.id,
            player_id=player.id,
            added_by=actor.id if actor else None,
            added_at=utcnow(),
        )
    )
    session.flush()
    return player


def to_json(session: Session, league: League) -> list[dict[str, Any]]:
    return [{"id": p.id, "name": p.name} for p in directors(session, league)]


def copy_directors(session: Session, old: League, new: League) -> None:
    """Next season keeps the directors of the season before."""
    for player in directors(session, old):
        if player.id != new.created_by:
            session.add(LeagueDirector(league_id=new.id, player_id=player.id, added_at=utcnow()))
    session.flush()


def _named(player: Player | None, missing: str, ref: Any) -> Player:
    if player is None:
        raise refused(Unprocessable, missing, ref=ref)
    return player
