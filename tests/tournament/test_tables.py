"""Multiplayer tables: sizes, seating rotation, scoring by finishing place."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from service.tournament.core import Forfeit
from service.tournament.standings import table_standings
from service.tournament.tables import MultiplayerTables, Table, TableResult, table_sizes


def test_table_sizes_prefer_four_and_use_three_when_needed() -> None:
    assert table_sizes(8) == [4, 4]
    assert table_sizes(7) == [4, 3]
    assert table_sizes(6) == [3, 3]
    assert table_sizes(5) == [4, 1]
    with pytest.raises(ValueError, match="at least 3"):
        table_sizes(2)


def test_place_points_count_players_finished_behind() -> None:
    table = Table(("a", "b", "c", "d"), 1, 1)
    result = TableResult.finished(table, [["c"], ["a", "d"]], {"b": Forfeit.MISSED_TURNS})
    assert result.places == (2, 4, 1, 2)
    assert result.forfeits == (None, Forfeit.MISSED_TURNS, None, None)
    assert result.points() == {"a": 1.5, "b": 0.0, "c": 3.0, "d": 1.5}


def play_tables(size: int, rounds: int, seed: int) -> list[TableResult]:
    rng = random.Random(seed)
    league = MultiplayerTables(rounds)
    entrants = [f"p{i}" for i in range(1, size + 1)]
    results: list[TableResult] = []
    while (tables := league.next_round(entrants, results)) is not None:
        for table in tables:
            order = list(table.players)
            rng.shuffle(order)
            forfeits = {order.pop(): Forfeit.TIME} if len(order) > 2 and rng.random() < 0.1 else {}
            results.append(TableResult.finished(table, [[p] for p in order], forfeits))
    return results


@pytest.mark.parametrize("size", [8, 9])
@pytest.mark.parametrize("seed", range(4))
def test_simulated_tables_rotate_who_starts(size: int, seed: int) -> None:
    results = play_tables(size, rounds=6, seed=seed)
    assert max(r.table.round for r in results) == 6
    for round_no in range(1, 7):
        tables = [r.table for r in results if r.table.round == round_no]
        seated = [p for t in tables for p in t.players]
        assert sorted(seated) == sorted(f"p{i}" for i in range(1, size + 1))
        assert {len(t.players) for t in tables} <= {3, 4}
        starts = Counter(r.table.players[0] for r in results if r.table.round <= round_no)
        counts = [starts[f"p{i}"] for i in range(1, size + 1)]
        assert max(counts) - min(counts) <= 1
    rows = table_standings([f"p{i}" for i in range(1, size + 1)], results)
    assert [r.rank for r in rows] == sorted(r.rank for r in rows)
    total = sum(r.points for r in rows)
    assert total == sum(len(r.table.players) * (len(r.table.players) - 1) / 2 for r in results)


def test_withdrawn_player_leaves_the_tables() -> None:
    league = MultiplayerTables(rounds=2)
    entrants = [f"p{i}" for i in range(1, 8)]
    first = league.next_round(entrants, [])
    assert first is not None
    leaver = first[0].players[0]
    results = [
        TableResult.finished(
            t,
            [[p] for p in t.players if p != leaver],
            {leaver: Forfeit.WITHDRAWAL} if leaver in t.players else {},
        )
        for t in first
    ]
    second = league.next_round(entrants, results)
    assert second is not None
    assert leaver not in {p for t in second for p in t.players}
    assert [len(t.players) for t in second] == [3, 3]
