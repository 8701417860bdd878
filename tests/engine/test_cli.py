"""``pbem engine``: generic commands over every registered game."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from engine import names
from service.cli import main


@pytest.mark.parametrize("game", names())
def test_show_prints_the_board_and_the_position_of_every_game(game: str) -> None:
    result = CliRunner().invoke(main, ["engine", "show", game])
    assert result.exit_code == 0, result.output
    assert "Position: " in result.output


def test_moves_lists_at_most_the_limit_but_counts_all() -> None:
    result = CliRunner().invoke(main, ["engine", "moves", "nelaxtam", "--limit", "2"])
    lines = result.output.splitlines()
    assert result.exit_code == 0
    assert len(lines) == 4
    assert lines[2] == "... 273430078 more not listed (--limit)"
    assert lines[3] == "273430080 moves"


def test_bad_option_values_are_one_clear_line() -> None:
    result = CliRunner().invoke(main, ["engine", "moves", "epaminondas", "-o", "board=9x9"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: bad option 'board=9x9': option 'board' of Epaminondas takes one of the listed "
        "values. Valid here: 14x12, 8x8"
    ]
