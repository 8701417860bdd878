"""Standings after any number of results: points, tie-breaks, crosstable, JSON and CSV.

Tie-breaks (league points throughout, so they follow the league's points scheme):
- head-to-head: points scored in games against the players tied with you on points;
- Sonneborn-Berger: each opponent's points times your game score against them (1, ½, 0);
- Buchholz: the sum of your opponents' points;
- median Buchholz: Buchholz without the best and the worst opponent;
- wins: games won (forfeit wins included).
Rule decisions: a bye has no opponent, so it adds nothing to Sonneborn-Berger or Buchholz;
a forfeited game counts like a played one with its real opponent. Players level on points
and every tie-break share a rank and are listed in entry order.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from service.tournament.core import Outcome, PlayerId, PointsScheme, Result
from service.tournament.tables import TableResult


class Tiebreak(StrEnum):
    HEAD_TO_HEAD = "head_to_head"
    SONNEBORN_BERGER = "sonneborn_berger"
    BUCHHOLZ = "buchholz"
    MEDIAN_BUCHHOLZ = "median_buchholz"
    WINS = "wins"


ROUND_ROBIN_TIEBREAKS = (Tiebreak.HEAD_TO_HEAD, Tiebreak.SONNEBORN_BERGER, Tiebreak.WINS)
SWISS_TIEBREAKS = (Tiebreak.BUCHHOLZ, Tiebreak.MEDIAN_BUCHHOLZ, Tiebreak.SONNEBORN_BERGER)


@dataclass(frozen=True)
class StandingRow:
    rank: int
    player: PlayerId
    points: float
    played: int
    wins: int
    draws: int
    losses: int
    byes: int
    forfeit_losses: int
    tiebreaks: tuple[tuple[str, float], ...]


def standings(
    entrants: Sequence[PlayerId],
    results: Sequence[Result],
    scheme: PointsScheme | None = None,
    tiebreaks: Sequence[Tiebreak] = ROUND_ROBIN_TIEBREAKS,
) -> list[StandingRow]:
    scheme = scheme or PointsScheme()
    points = {p: 0.0 for p in entrants}
    for result in results:
        for player in result.pairing.players:
            points[player] += scheme.points(result, player)
    rows = [_row(p, results, points, tiebreaks) for p in entrants]
    return _ranked(rows, entrants)


def _row(
    player: PlayerId,
    results: Sequence[Result],
    points: dict[PlayerId, float],
    tiebreaks: Sequence[Tiebreak],
) -> StandingRow:
    mine = [r for r in results if player in r.pairing.players]
    games = [r for r in mine if not r.pairing.is_bye]
    return StandingRow(
        rank=0,
        player=player,
        points=points[player],
        played=len(games),
        wins=sum(r.winner == player for r in games),
        draws=sum(r.outcome is Outcome.DRAW for r in games),
        losses=sum(r.loser == player for r in games),
        byes=len(mine) - len(games),
        forfeit_losses=sum(r.loser == player and r.forfeit is not None for r in games),
        tiebreaks=tuple((t.value, _tiebreak(t, player, games, points)) for t in tiebreaks),
    )


def _tiebreak(
    kind: Tiebreak, player: PlayerId, games: Sequence[Result], points: dict[PlayerId, float]
) -> float:
    opponents = [(_opponent(r, player), r.score_of(player)) for r in games]
    if kind is Tiebreak.HEAD_TO_HEAD:
        tied = {p for p, v in points.items() if v == points[player]}
        return sum(score for opp, score in opponents if opp in tied)
    if kind is Tiebreak.SONNEBORN_BERGER:
        return sum(points[opp] * score for opp, score in opponents)
    if kind is Tiebreak.BUCHHOLZ:
        return sum(points[opp] for opp, _ in opponents)
    if kind is Tiebreak.MEDIAN_BUCHHOLZ:
        return sum(sorted(points[opp] for opp, _ in opponents)[1:-1])
    return float(sum(score == 1.0 for _, score in opponents))


def _opponent(result: Result, player: PlayerId) -> PlayerId:
    opponent = result.pairing.opponent(player)
    assert opponent is not None, "byes are filtered out before tie-breaks"
    return opponent


def _ranked(rows: list[StandingRow], entrants: Sequence[PlayerId]) -> list[StandingRow]:
    order = {p: i for i, p in enumerate(entrants)}

    def strength(row: StandingRow) -> tuple[float, ...]:
        return (row.points, *(value for _, value in row.tiebreaks))

    rows.sort(key=lambda r: (tuple(-v for v in strength(r)), order[r.player]))
    ranked: list[StandingRow] = []
    for index, row in enumerate(rows):
        shares = ranked and strength(ranked[-1]) == strength(row)
        rank = ranked[-1].rank if shares else index + 1
        ranked.append(replace(row, rank=rank))
    return ranked


def crosstable(results: Sequence[Result]) -> dict[PlayerId, dict[PlayerId, list[str]]]:
    """Each player's marks against each opponent in round order: 1, ½, 0, and + / - for a
    game won or lost by forfeit."""
    table: dict[PlayerId, dict[PlayerId, list[str]]] = {}
    for result in sorted(results, key=lambda r: (r.pairing.round, r.pairing.board)):
        if result.pairing.is_bye:
            continue
        for player in result.pairing.players:
            opponent = _opponent(result, player)
            table.setdefault(player, {}).setdefault(opponent, []).append(_mark(result, player))
    return table


def _mark(result: Result, player: PlayerId) -> str:
    if result.forfeit is not None:
        return "+" if result.winner == player else "-"
    return {1.0: "1", 0.5: "½", 0.0: "0"}[result.score_of(player)]


def standings_json(rows: Sequence[StandingRow], results: Sequence[Result]) -> dict[str, Any]:
    """A JSON-able document of the standings with each player's crosstable line."""
    cross = crosstable(results)
    return {
        "tiebreaks": [name for name, _ in rows[0].tiebreaks] if rows else [],
        "rows": [
            {
                "rank": row.rank,
                "player": row.player,
                "points": row.points,
                "played": row.played,
                "wins": row.wins,
                "draws": row.draws,
                "losses": row.losses,
                "byes": row.byes,
                "forfeit_losses": row.forfeit_losses,
                "tiebreaks": dict(row.tiebreaks),
                "results": cross.get(row.player, {}),
            }
            for row in rows
        ],
    }


def standings_csv(rows: Sequence[StandingRow], results: Sequence[Result]) -> str:
    """The standings as CSV with a crosstable: column N holds the marks against the
    player listed N-th (several games joined by spaces)."""
    cross = crosstable(results)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    names = [name for name, _ in rows[0].tiebreaks] if rows else []
    writer.writerow(
        [
            "rank",
            "player",
            "points",
            *names,
            "won",
            "drawn",
            "lost",
            *(str(n) for n in range(1, len(rows) + 1)),
        ]
    )
    for row in rows:
        line = cross.get(row.player, {})
        writer.writerow(
            [
                row.rank,
                row.player,
                _number(row.points),
                *(_number(value) for _, value in row.tiebreaks),
                row.wins,
                row.draws,
                row.losses,
                *(
                    " ".join(line.get(other.player, [])) if other is not row else "x"
                    for other in rows
                ),
            ]
        )
    return out.getvalue()


def _number(value: float) -> str:
    return f"{value:g}"


def table_standings(
    entrants: Sequence[PlayerId], results: Sequence[TableResult], sit_out_points: float = 0.0
) -> list[StandingRow]:
    """Multiplayer standings: place points, then first places as the tie-break."""
    rows = []
    for player in entrants:
        mine = [r for r in results if player in r.table.players]
        played = [r for r in mine if not r.table.is_sit_out]
        places = [r.places[r.table.players.index(player)] for r in played]
        forfeits = [r.forfeits[r.table.players.index(player)] for r in played if r.forfeits]
        firsts = places.count(1)
        rows.append(
            StandingRow(
                rank=0,
                player=player,
                points=sum(r.points()[player] for r in played)
                + sit_out_points * (len(mine) - len(played)),
                played=len(played),
                wins=firsts,
                draws=0,
                losses=len(played) - firsts,
                byes=len(mine) - len(played),
                forfeit_losses=sum(f is not None for f in forfeits),
                tiebreaks=((Tiebreak.WINS.value, float(firsts)),),
            )
        )
    return _ranked(rows, entrants)
