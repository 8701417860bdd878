"""The next season of a set of divisions: promotion and relegation between finished leagues.

The divisions are finished leagues, top first. Each one's final standings (the league's own
order, tie-breaks included) go through the pure :func:`service.tournament.divisions.next_season`;
each division then gets a new league with the old one's settings, and its players are invited
to it as a director's invitation would (so each gets the invitation mail). Withdrawn players
leave. No new table: the audit entry ``next_season`` on each new league names the league it
follows, which is also what refuses a second next season of the same league.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from service.errors import BadRequest, Conflict, Unprocessable
from service.i18n import N_
from service.leagues import director, leagues, ownership
from service.leagues import standings as table
from service.leagues.models import AuditEntry, League
from service.leagues.refusals import refused
from service.models import Player
from service.tournament.divisions import next_season as moves

ACTION = "next_season"
SEASON = re.compile(r"^(?P<base>.*?)\s*(?:→\s*)?season (?P<number>\d+)$")


def next_season(session: Session, actor: Player | None, data: Mapping[str, Any]) -> list[League]:
    """``{"divisions": [league ids, top first], "promote": n, "relegate": n, "names"?: [...],
    "reason"?: text}``: one new, open league per division, its players invited."""
    leagues.require_director(actor)
    ids = _division_ids(data.get("divisions"))
    for league_id in ids:
        ownership.check_league(session, actor, league_id)
    promote = leagues._whole(data.get("promote", 1), "promote", 0, 99)
    relegate = leagues._whole(data.get("relegate", 1), "relegate", 0, 99)
    names = _names(data.get("names"), len(ids))
    locked = {league_id: leagues.lock(session, league_id) for league_id in sorted(ids)}
    divisions = [locked[league_id] for league_id in ids]
    for league in divisions:
        _check_finished(session, league)
    final, leaving = _final_standings(session, divisions)
    try:
        seasons = moves(final, promote, relegate, leaving)
    except ValueError as error:
        raise refused(
            Unprocessable,
            N_("cannot move players between these divisions: %(why)s"),
            why=str(error),
        ) from error
    reason = data.get("reason") or f"next season of leagues {', '.join(map(str, ids))}"
    if not isinstance(reason, str) or len(reason) > 1000:
        raise refused(BadRequest, N_("reason must be a text of at most 1000 characters"))
    created = []
    for index, (old, members) in enumerate(zip(divisions, seasons, strict=True)):
        new = leagues.create(session, actor, _settings(old, names[index]))
        ownership.copy_directors(session, old, new)
        if members:
            leagues.invite(session, new.id, actor, {"players": [int(p) for p in members]})
        detail = {
            "previous": old.id,
            "divisions": ids,
            "division": index + 1,
            "promote": promote,
            "relegate": relegate,
            "players": [int(p) for p in members],
        }
        director.audit(session, actor, ACTION, reason, new.id, detail=detail)
        created.append(new)
    return created


def _division_ids(given: Any) -> list[int]:
    if not isinstance(given, list) or not given:
        raise refused(
            BadRequest, N_("divisions must be a non-empty list of league ids, top division first")
        )
    if not all(isinstance(i, int) and not isinstance(i, bool) and i > 0 for i in given):
        raise refused(
            BadRequest,
            N_("divisions must be league ids (whole numbers); got %(given)s"),
            given=repr(given),
        )
    twice = sorted({i for i in given if given.count(i) > 1})
    if twice:
        raise refused(
            BadRequest,
            N_("league %(ids)s is listed twice in divisions"),
            ids=", ".join(map(str, twice)),
        )
    return list(given)


def _names(given: Any, count: int) -> list[str | None]:
    if given is None:
        return [None] * count
    if not isinstance(given, list) or len(given) != count:
        raise refused(
            Unprocessable,
            N_("names must be a list of %(count)s names, one per division"),
            count=count,
        )
    if not all(isinstance(name, str) for name in given):
        raise refused(BadRequest, N_("names must be texts"))
    return list(given)


def _check_finished(session: Session, league: League) -> None:
    if league.status != leagues.FINISHED:
        raise refused(
            Conflict,
            N_(
                "league %(id)s (%(name)s) is %(status)s, not finished: a next season starts "
                "from final standings"
            ),
            "league_not_finished",
            id=league.id,
            name=league.name,
            status=league.status,
        )
    for entry in session.scalars(select(AuditEntry).where(AuditEntry.action == ACTION)):
        if entry.detail.get("previous") == league.id:
            raise refused(
                Conflict,
                N_("league %(id)s (%(name)s) already has its next season: league %(next)s"),
                "season_exists",
                id=league.id,
                name=league.name,
                next=entry.league_id,
            )


def _final_standings(
    session: Session, divisions: Sequence[League]
) -> tuple[list[list[str]], set[str]]:
    """Player ids (as text) best first per division, and those who withdrew."""
    final: list[list[str]] = []
    leaving: set[str] = set()
    seen: dict[int, League] = {}
    for league in divisions:
        ranked, _, entries = table.standing_rows(session, league)
        by_entry = {table.entrant(e.id): e for e in entries}
        for entry in league.entries:
            if entry.status == "withdrawn":
                leaving.add(str(entry.player_id))
            if entry.status in ("active", "withdrawn"):
                other = seen.setdefault(entry.player_id, league)
                if other is not league:
                    raise refused(
                        Unprocessable,
                        N_(
                            "%(name)s played in both league %(other)s and league %(id)s: a "
                            "player belongs to one division"
                        ),
                        name=entry.player.name,
                        other=other.id,
                        id=league.id,
                    )
        final.append([str(by_entry[row.player].player_id) for row in ranked])
    return final, leaving


def _settings(old: League, name: str | None) -> dict[str, Any]:
    """The old league's settings as :func:`leagues.create` takes them."""
    data: dict[str, Any] = {
        "name": name or _next_name(old.name),
        "game": old.game,
        "options": old.options,
        "time_control": old.time_control,
        "format": old.format,
        "scoring": old.scoring,
        "tiebreaks": old.tiebreaks,
        "withdrawal": old.settings.get("withdrawal", "forfeit"),
        "round_days": old.settings.get("round_days"),
    }
    if old.format == "tables":
        data["players"] = old.seats
    for field in ("rounds", "draw_rule", "position"):
        if field in old.settings:
            data[field] = old.settings[field]
    return data


def _next_name(name: str) -> str:
    """ "Premier" -> "Premier → season 2"; "Premier → season 2" -> "Premier → season 3"."""
    found = SEASON.match(name)
    base, number = (found["base"], int(found["number"])) if found else (name, 1)
    suffix = f" → season {number + 1}"
    return base[: 80 - len(suffix)] + suffix
