"""Swiss system: pair within score groups by maximum weight matching.

A greedy top-down pairing can paint itself into a corner (the last two left have already
met) although a valid pairing exists; a maximum-cardinality maximum-weight matching
(networkx, Edmonds' blossom algorithm) finds the best complete pairing instead. Edge
weights rank, most important first: (1) no rematch (the edge is absent), (2) smallest
score-group distance, summed as squares so two players floating one group is preferred to
one floating two, (3) first-seat balance. A bye is an extra vertex, joined only to players
with the fewest byes so far and placed one group below the lowest, so it goes to a low
scorer unless that would force worse pairings elsewhere.

Rule decisions: forfeited games count as met (no rematch) but not for seat balance, since
no seat was played; a withdrawn player is never paired again; players are ranked by points
then by entry order (the service passes entrants by seed).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

import networkx as nx

from service.tournament.core import (
    Pairing,
    PlayerId,
    PointsScheme,
    Result,
    next_round_number,
    withdrawn_players,
)

BYE = "(bye)"


class PairingImpossible(ValueError):
    """No complete pairing avoids rematches; the TD must decide (e.g. end the event)."""


@dataclass(frozen=True)
class SwissEntrant:
    player: PlayerId
    points: float = 0.0
    opponents: frozenset[PlayerId] = frozenset()
    seat_balance: int = 0  # first-seat games minus second-seat games
    last_seat_first: bool | None = None
    byes: int = 0


@dataclass(frozen=True)
class Swiss:
    rounds: int
    scheme: PointsScheme = field(default_factory=PointsScheme)

    def next_round(
        self,
        entrants: Sequence[PlayerId],
        results: Sequence[Result],
        withdrawn: Collection[PlayerId] = (),
    ) -> list[Pairing] | None:
        round_no = next_round_number(results)
        gone = withdrawn_players(results, withdrawn)
        active = [p for p in entrants if p not in gone]
        if round_no > self.rounds or len(active) < 2:
            return None
        try:
            return pair_round(swiss_entrants(active, results, self.scheme), round_no)
        except PairingImpossible:
            # Withdrawals can shrink the field until every pairing repeats a game; the
            # event then ends early (the service sees fewer rounds than planned).
            return None


def swiss_entrants(
    players: Sequence[PlayerId], results: Sequence[Result], scheme: PointsScheme
) -> list[SwissEntrant]:
    """Each player's pairing history, ranked by points then by the given order."""
    entrants = [_history(player, results, scheme) for player in players]
    order = {player: index for index, player in enumerate(players)}
    return sorted(entrants, key=lambda e: (-e.points, order[e.player]))


def _history(player: PlayerId, results: Sequence[Result], scheme: PointsScheme) -> SwissEntrant:
    mine = sorted(
        (r for r in results if player in r.pairing.players), key=lambda r: r.pairing.round
    )
    seated = [r for r in mine if not r.pairing.is_bye and r.forfeit is None]
    seats_first = [r.pairing.first == player for r in seated]
    return SwissEntrant(
        player=player,
        points=sum(scheme.points(r, player) for r in mine),
        opponents=frozenset(p for r in mine for p in r.pairing.players if p != player),
        seat_balance=sum(1 if first else -1 for first in seats_first),
        last_seat_first=seats_first[-1] if seats_first else None,
        byes=sum(r.pairing.is_bye for r in mine),
    )


def pair_round(ranked: Sequence[SwissEntrant], round_no: int) -> list[Pairing]:
    """Pair entrants (ranked best first); raises PairingImpossible if no pairing exists."""
    graph = pairing_graph(ranked, round_no)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) != graph.number_of_nodes():
        raise PairingImpossible(
            f"round {round_no}: no pairing of {len(ranked)} players avoids a rematch"
        )
    by_id = {e.player: e for e in ranked}
    rank = {e.player: index for index, e in enumerate(ranked)}
    games = [_seat(by_id[a], by_id[b]) for a, b in matching if BYE not in (a, b)]
    games.sort(key=lambda game: min(rank[game[0]], rank[game[1]]))
    pairings = [Pairing(a, b, round_no, board) for board, (a, b) in enumerate(games, 1)]
    byes = [a if b == BYE else b for a, b in matching if BYE in (a, b)]
    pairings += [Pairing(p, None, round_no, len(pairings) + 1) for p in byes]
    return pairings


def pairing_graph(ranked: Sequence[SwissEntrant], round_no: int) -> nx.Graph:
    """Allowed games as edges; a heavier edge is a better game to pair."""
    groups = sorted({e.points for e in ranked}, reverse=True)
    group = {e.player: groups.index(e.points) for e in ranked}
    # Any one group step must outweigh every possible seat penalty taken together.
    score_weight = len(ranked) * round_no + 1
    base = score_weight * (len(groups) + 1) ** 2 + len(ranked) * round_no
    graph = nx.Graph()
    graph.add_nodes_from(e.player for e in ranked)
    for i, a in enumerate(ranked):
        for b in ranked[i + 1 :]:
            if b.player not in a.opponents:
                distance = group[a.player] - group[b.player]
                penalty = score_weight * distance**2 + _seat_penalty(a, b)
                graph.add_edge(a.player, b.player, weight=base - penalty)
    if len(ranked) % 2:
        fewest_byes = min(e.byes for e in ranked)
        below_lowest = len(groups)
        for e in ranked:
            if e.byes == fewest_byes:
                distance = below_lowest - group[e.player]
                graph.add_edge(e.player, BYE, weight=base - score_weight * distance**2)
    return graph


def _seat_penalty(a: SwissEntrant, b: SwissEntrant) -> int:
    """How far past even the pair pushes someone: one of two players owed the same seat
    must take the other seat."""
    if a.seat_balance > 0 and b.seat_balance > 0:
        return min(a.seat_balance, b.seat_balance)
    if a.seat_balance < 0 and b.seat_balance < 0:
        return min(-a.seat_balance, -b.seat_balance)
    if a.seat_balance == b.seat_balance == 0 and a.last_seat_first == b.last_seat_first:
        return 0 if a.last_seat_first is None else 1
    return 0


def _seat(a: SwissEntrant, b: SwissEntrant) -> tuple[PlayerId, PlayerId]:
    """First seat to whoever is owed it: lower balance, then the one who sat second last
    time, then the higher ranked (``a``)."""
    if a.seat_balance != b.seat_balance:
        return (a.player, b.player) if a.seat_balance < b.seat_balance else (b.player, a.player)
    if a.last_seat_first is True and b.last_seat_first is not True:
        return b.player, a.player
    return a.player, b.player
