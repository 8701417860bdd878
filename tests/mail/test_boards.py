"""Boards from the reader's side (service/mail/boards.py), on the engines' real pictures."""

from __future__ import annotations

import pytest

import engine
from service.mail.boards import (
    FLIPPED_FOR,
    changed_squares,
    flip_ascii,
    flip_grid,
    mark_ascii,
    reader_view,
    should_flip,
)

ORIENTED = ("epaminondas", "elasta", "anti-grid")


def opening(name: str) -> engine.State:
    state = engine.new_game(name, {}, 2).initial_state()
    while state.chance_outcomes():
        state = state.apply_chance(state.chance_outcomes()[0]).state
    return state


@pytest.mark.parametrize("name", engine.names())
@pytest.mark.parametrize("seat", [0, 1])
def test_only_the_second_seat_of_an_oriented_game_sees_it_turned(name: str, seat: int) -> None:
    """EPA-1, ELA-1, ANT-5: sides with home edges; Nelaxtam (NEL-2) and Elemento have none."""
    assert should_flip(name, seat, True) == (name in ORIENTED and seat == 1)
    assert not should_flip(name, seat, False)
    assert not should_flip(name, None, True)
    assert set(FLIPPED_FOR) == set(ORIENTED)


@pytest.mark.parametrize("name", ORIENTED)
def test_turning_twice_gives_the_board_back(name: str) -> None:
    view = opening(name).view(1)
    assert flip_ascii(flip_ascii(view.ascii)) == view.ascii
    grid = view.grid.to_json()
    assert flip_grid(flip_grid(grid)) == grid


@pytest.mark.parametrize("name", ORIENTED)
def test_the_turned_board_has_the_last_square_top_left(name: str) -> None:
    view = opening(name).view(1)
    grid = flip_grid(view.grid.to_json())
    assert grid["rows"][0][0]["square"] == view.grid.files[-1] + view.grid.ranks[-1]
    lines = flip_ascii(view.ascii).splitlines()
    header = next(line for line in lines if line.strip().startswith(view.grid.files[-1] + " "))
    assert header.split() == list(reversed(view.grid.files))
    pieces = sorted(char for char in view.ascii if char.isupper())
    assert sorted(char for char in flip_ascii(view.ascii) if char.isupper()) == pieces


def test_elasta_swaps_the_captions_naming_the_sides() -> None:
    turned = flip_ascii(opening("elasta").view(1).ascii).splitlines()
    assert turned[0].strip() == "White (rank 1)"
    assert any(line.strip() == "Black (rank 8)" for line in turned[1:])


def test_the_last_move_is_marked_by_rank_and_file_within_80_columns() -> None:
    before = opening("epaminondas")
    after = before.play(0, "a1-a3").state
    squares = changed_squares(before.grid(None), after.grid(None))
    assert sorted(squares) == ["a1", "a3"]
    marked = mark_ascii(after.view(0).ascii, squares).splitlines()
    assert [line.split()[0] for line in marked if line.endswith(" <")] == ["3", "1"]
    assert any(line.strip() == "^" for line in marked)
    assert max(map(len, marked)) <= 80
    shown = reader_view(after.view(1).to_json(), True, "Last move (turn 1): White a1-a3", squares)
    cells = [cell for row in shown["grid"]["rows"] for cell in row if cell["last"]]
    assert sorted(cell["square"] for cell in cells) == ["a1", "a3"]


def test_a_board_too_wide_for_a_marker_keeps_only_the_named_move() -> None:
    wide = "\n".join(
        ["     a" + " " * 70 + "b", "  2  x" + " " * 70 + "x  2", "     a" + " " * 70 + "b"]
    )
    assert mark_ascii(wide, ["a2"]) == wide
