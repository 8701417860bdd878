"""Multiplayer tables (3–4 player Elemento): seating each round and scoring by place.

Each round the active players are split into tables of four, using tables of three where
the count needs them (9 → 3+3+3, 10 → 4+3+3); five players make one table of four and a
sit-out. Seating is a small greedy heuristic, not an optimisation: no maintained library
schedules this ("social golfer"-style) problem, and the guarantees that matter hold by
construction: the players who have started fewest games start this round, one per table
(so start counts never differ by more than one while the table count stays the same), and
everyone else joins the open table where they have met the fewest players already seated.
Within a table the other seats go to whoever has sat furthest back on average first.

A finishing place scores one point per player finished behind and half a point per
player tied with (the pairwise win/draw count); a forfeiting player finishes last.
A sit-out scores ``sit_out_points``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from service.tournament.core import Forfeit, PlayerId


@dataclass(frozen=True)
class Table:
    """Seats in playing order: ``players[0]`` starts. One player alone is a sit-out."""

    players: tuple[PlayerId, ...]
    round: int
    number: int

    @property
    def is_sit_out(self) -> bool:
        return len(self.players) == 1


@dataclass(frozen=True)
class TableResult:
    """Finishing place per seat (1 is best; tied players share a place)."""

    table: Table
    places: tuple[int, ...]
    forfeits: tuple[Forfeit | None, ...] = ()

    @classmethod
    def finished(
        cls,
        table: Table,
        order: Sequence[Collection[PlayerId]],
        forfeits: Mapping[PlayerId, Forfeit] | None = None,
    ) -> TableResult:
        """From the finishing order (each entry a group tied on that place); forfeiting
        players come after all of them, tied for last."""
        forfeits = forfeits or {}
        place: dict[PlayerId, int] = {}
        for group in order:
            next_place = len(place) + 1
            place.update((player, next_place) for player in group)
        last = len(place) + 1
        place.update((player, last) for player in forfeits)
        missing = set(table.players) - place.keys()
        if missing or len(place) != len(table.players):
            raise ValueError(f"finishing order must place each of {table.players} once")
        return cls(
            table,
            tuple(place[p] for p in table.players),
            tuple(forfeits.get(p) for p in table.players),
        )

    def points(self) -> dict[PlayerId, float]:
        return {
            player: sum(
                1.0 if mine < other else 0.5 if mine == other else 0.0
                for j, other in enumerate(self.places)
                if j != seat
            )
            for seat, (player, mine) in enumerate(zip(self.table.players, self.places, strict=True))
        }


def table_sizes(player_count: int) -> list[int]:
    """Table sizes for a round, fours first; a 1 is a sit-out.

    >>> table_sizes(9), table_sizes(10), table_sizes(5)
    ([3, 3, 3], [4, 3, 3], [4, 1])
    """
    if player_count < 3:
        raise ValueError(f"a multiplayer round needs at least 3 players, got {player_count}")
    threes = -player_count % 4
    if 3 * threes > player_count:
        return [4] * (player_count // 4) + [1] * (player_count % 4)
    return [4] * ((player_count - 3 * threes) // 4) + [3] * threes


@dataclass(frozen=True)
class MultiplayerTables:
    rounds: int
    sit_out_points: float = 0.0

    def next_round(
        self,
        entrants: Sequence[PlayerId],
        results: Sequence[TableResult],
        withdrawn: Collection[PlayerId] = (),
    ) -> list[Table] | None:
        round_no = 1 + max((r.table.round for r in results), default=0)
        active = [p for p in entrants if p not in _withdrawn(results, withdrawn)]
        if round_no > self.rounds or len(active) < 3:
            return None
        return seat_round(active, results, round_no)


def _withdrawn(results: Sequence[TableResult], withdrawn: Collection[PlayerId]) -> set[PlayerId]:
    out = set(withdrawn)
    for result in results:
        out.update(
            p
            for p, f in zip(result.table.players, result.forfeits, strict=False)
            if f is Forfeit.WITHDRAWAL
        )
    return out


def seat_round(
    players: Sequence[PlayerId], results: Sequence[TableResult], round_no: int
) -> list[Table]:
    history = _SeatingHistory.of(results)
    sizes = table_sizes(len(players))
    real_tables = [s for s in sizes if s > 1]
    # Rotating the tie-break by round spreads equal claims over different players.
    turn = {p: (index - round_no) % len(players) for index, p in enumerate(players)}
    by_claim = sorted(players, key=lambda p: (history.starts[p], turn[p]))
    sit_outs = sorted(players, key=lambda p: (history.sit_outs[p], -history.starts[p], -turn[p]))[
        : len(sizes) - len(real_tables)
    ]
    starters = [p for p in by_claim if p not in sit_outs][: len(real_tables)]
    seated = [[s] for s in starters]
    for player in by_claim:
        if player in starters or player in sit_outs:
            continue
        open_tables = [i for i, t in enumerate(seated) if len(t) < real_tables[i]]
        best = min(open_tables, key=lambda i: (history.met(player, seated[i]), len(seated[i])))
        seated[best].append(player)
    tables = [
        Table((t[0], *sorted(t[1:], key=history.mean_seat, reverse=True)), round_no, number)
        for number, t in enumerate(seated, 1)
    ]
    first_free = len(tables) + 1
    return tables + [Table((p,), round_no, first_free + i) for i, p in enumerate(sit_outs)]


@dataclass(frozen=True)
class _SeatingHistory:
    starts: Counter[PlayerId]
    sit_outs: Counter[PlayerId]
    meetings: Counter[frozenset[PlayerId]]
    seat_sums: Counter[PlayerId]
    games: Counter[PlayerId]

    @classmethod
    def of(cls, results: Sequence[TableResult]) -> _SeatingHistory:
        history = cls(Counter(), Counter(), Counter(), Counter(), Counter())
        for result in results:
            seats = result.table.players
            if result.table.is_sit_out:
                history.sit_outs[seats[0]] += 1
                continue
            history.starts[seats[0]] += 1
            for index, player in enumerate(seats):
                history.seat_sums[player] += index
                history.games[player] += 1
                history.meetings.update(frozenset((player, o)) for o in seats[index + 1 :])
        return history

    def met(self, player: PlayerId, others: Sequence[PlayerId]) -> int:
        return sum(self.meetings[frozenset((player, o))] for o in others)

    def mean_seat(self, player: PlayerId) -> float:
        return self.seat_sums[player] / self.games[player] if self.games[player] else 0.0
