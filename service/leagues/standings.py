"""From league rows to the pure tournament formats and back: pairing format, results,
standings with tie-breaks and the crosstable, as JSON and CSV."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from service.leagues.models import Entry, League, Pairing
from service.tournament import core, standings
from service.tournament.knockout import DrawRule, Knockout
from service.tournament.round_robin import RoundRobin
from service.tournament.standings import ROUND_ROBIN_TIEBREAKS, SWISS_TIEBREAKS, Tiebreak
from service.tournament.swiss import Swiss
from service.tournament.tables import MultiplayerTables, Table, TableResult

FORMATS = ("round_robin", "double_round_robin", "swiss", "knockout", "tables")
DEFAULT_TIEBREAKS: dict[str, tuple[Tiebreak, ...]] = {
    "round_robin": ROUND_ROBIN_TIEBREAKS,
    "double_round_robin": ROUND_ROBIN_TIEBREAKS,
    "swiss": SWISS_TIEBREAKS,
    "knockout": (Tiebreak.WINS,),
    "tables": (Tiebreak.WINS,),
}
FORFEITS = {kind.value: kind for kind in core.Forfeit}


def scheme(league: League) -> core.PointsScheme:
    return core.PointsScheme(**league.scoring)


def pairing_format(league: League) -> Any:
    """The pure format that pairs this league's rounds."""
    settings = league.settings
    if league.format == "round_robin":
        return RoundRobin(1)
    if league.format == "double_round_robin":
        return RoundRobin(2)
    if league.format == "swiss":
        return Swiss(settings["rounds"], scheme(league))
    if league.format == "knockout":
        return Knockout(DrawRule(settings.get("draw_rule", "replay")))
    return MultiplayerTables(settings["rounds"], league.scoring.get("bye", 0.0))


def entrant(entry_id: int) -> core.PlayerId:
    return str(entry_id)


def pairings_of(session: Session, league: League) -> list[Pairing]:
    query = select(Pairing).where(Pairing.league_id == league.id)
    return list(session.scalars(query.order_by(Pairing.round, Pairing.board)))


def two_player_result(row: Pairing) -> core.Result:
    """A decided two-player pairing (or bye) as the pure formats see it."""
    entries = [entrant(e) for e in row.entries]
    pairing = core.Pairing(
        entries[0], entries[1] if len(entries) > 1 else None, row.round, row.board
    )
    if pairing.is_bye:
        return core.Result.bye(pairing)
    places = row.places or [1, 1]
    forfeits = row.forfeits or [None, None]
    outcome = {
        (1, 2): core.Outcome.FIRST_WON,
        (2, 1): core.Outcome.SECOND_WON,
    }.get((places[0], places[1]), core.Outcome.DRAW)
    kind = next((FORFEITS[f] for f in forfeits if f), None)
    return core.Result(pairing, outcome, kind if outcome is not core.Outcome.DRAW else None)


def table_result(row: Pairing) -> TableResult:
    table = Table(tuple(entrant(e) for e in row.entries), row.round, row.board)
    forfeits = tuple(FORFEITS[f] if f else None for f in (row.forfeits or []))
    return TableResult(table, tuple(row.places or [1] * len(row.entries)), forfeits)


def decided(rows: Sequence[Pairing]) -> list[Pairing]:
    return [row for row in rows if row.status == "done"]


def results(league: League, rows: Sequence[Pairing]) -> list[Any]:
    """Pure results of every decided pairing (void ones count for nobody)."""
    if league.format == "tables":
        return [table_result(row) for row in decided(rows)]
    return [two_player_result(row) for row in decided(rows)]


def seeded_entries(league: League) -> list[Entry]:
    """Entries that took part (playing or withdrawn), in seed order."""
    taking_part = [e for e in league.entries if e.status in ("active", "withdrawn")]
    return sorted(taking_part, key=lambda e: (e.seed, e.id))


def withdrawn(league: League) -> set[core.PlayerId]:
    return {entrant(e.id) for e in league.entries if e.status == "withdrawn"}


def tiebreaks(league: League) -> list[Tiebreak]:
    return [Tiebreak(name) for name in league.tiebreaks]


def standing_rows(
    session: Session, league: League
) -> tuple[list[standings.StandingRow], list[Any], list[Entry]]:
    """Ranked rows, the results they come from, and the entries shown."""
    entries = seeded_entries(league)
    rows = pairings_of(session, league)
    found = results(league, rows)
    if league.settings.get("withdrawal") == "expunge":
        gone = withdrawn(league)
        entries = [e for e in entries if entrant(e.id) not in gone]
        found = [r for r in found if not gone & set(_players(r))]
    ids = [entrant(e.id) for e in entries]
    if league.format == "tables":
        ranked = standings.table_standings(ids, found, league.scoring.get("bye", 0.0))
    else:
        ranked = standings.standings(ids, found, scheme(league), tiebreaks(league))
    return ranked, found, entries


def _players(result: Any) -> tuple[str, ...]:
    if isinstance(result, TableResult):
        return result.table.players
    players: tuple[str, ...] = result.pairing.players
    return players


def to_json(
    session: Session, league: League, ratings: dict[int, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The standings: ranked rows with names, tie-breaks, ratings and crosstable marks."""
    ranked, found, entries = standing_rows(session, league)
    by_id = {entrant(e.id): e for e in entries}
    two_player = [r for r in found if not isinstance(r, TableResult)]
    document = standings.standings_json(ranked, two_player)
    order = [row.player for row in ranked]
    for row in document["rows"]:
        entry = by_id[row["player"]]
        marks = row.pop("results")
        row["entry"] = entry.id
        row["player"] = {"id": entry.player_id, "name": entry.player.name}
        row["withdrawn"] = entry.status == "withdrawn"
        row["rating"] = (ratings or {}).get(entry.player_id)
        own = entrant(entry.id)
        row["crosstable"] = [
            None if other == own else " ".join(marks.get(other, [])) for other in order
        ]
    if league.format == "tables":
        document["tables"] = _table_lines(found, by_id, order)
    return {
        "league": league.id,
        "name": league.name,
        "format": league.format,
        "round": league.round,
        "status": league.status,
        "scoring": league.scoring,
        **document,
    }


def _table_lines(found: Sequence[Any], by_id: dict[str, Entry], order: list[str]) -> list[Any]:
    lines = []
    for player in order:
        places = [
            {"round": r.table.round, "place": r.places[r.table.players.index(player)]}
            for r in found
            if player in r.table.players and not r.table.is_sit_out
        ]
        lines.append({"player": by_id[player].player.name, "places": places})
    return lines


def to_csv(session: Session, league: League) -> str:
    """The pure CSV (rank, player, points, tie-breaks, won/drawn/lost, crosstable), with the
    player column holding names instead of entry numbers."""
    ranked, found, entries = standing_rows(session, league)
    names = {entrant(e.id): e.player.name for e in entries}
    two_player = [r for r in found if not isinstance(r, TableResult)]
    text = standings.standings_csv(ranked, two_player)
    lines = list(csv.reader(io.StringIO(text)))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(lines[0])
    for line in lines[1:]:
        writer.writerow([line[0], names.get(line[1], line[1]), *line[2:]])
    return out.getvalue()
