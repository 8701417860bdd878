"""Promotion and relegation between seasons."""

from __future__ import annotations

import pytest

from service.tournament.divisions import next_season


def test_top_go_up_and_bottom_go_down_one_division() -> None:
    divisions = [["a1", "a2", "a3", "a4"], ["b1", "b2", "b3", "b4"], ["c1", "c2", "c3", "c4"]]
    assert next_season(divisions, promoted=1, relegated=2) == [
        ["a1", "a2", "b1"],
        ["a3", "a4", "b2", "c1"],
        ["b3", "b4", "c2", "c3", "c4"],
    ]


def test_leavers_drop_out_and_newcomers_join_the_bottom() -> None:
    divisions = [["a1", "a2", "a3"], ["b1", "b2", "b3"]]
    assert next_season(divisions, leaving={"a3"}, newcomers=["n1"]) == [
        ["a1", "b1"],
        ["a2", "b2", "b3", "n1"],
    ]


def test_single_division_keeps_everyone() -> None:
    assert next_season([["a", "b"]], promoted=1, relegated=1) == [["a", "b"]]


def test_moves_larger_than_a_division_are_refused() -> None:
    with pytest.raises(ValueError, match="division 2 has 1 players"):
        next_season([["a", "b"], ["c"], ["d", "e"]])
