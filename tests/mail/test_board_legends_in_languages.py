"""Issue 24: the words of the text boards (``State.legend_why``: Anti-grid's legend,
Elasta's sides and legend, Elemento's quadrants, stones and how to place) in each of the
eight other languages (``service.mail.render.ascii_in``): within 80 columns, the marks and
letters kept, the columns aligned; an English board exactly as the engine draws it."""

from __future__ import annotations

import re

import pytest

from engine import registry
from engine.core import State
from engine.games.anti_grid import LEGEND
from service.mail.boards import flip_ascii
from service.mail.render import ascii_in

LANGUAGES = ("de", "fr", "es", "it", "nl", "pt", "pl", "ru")
ENGLISH = re.compile(
    r"\b(pawn|point|lines|crossing|side|battle line|stick|rank|Quadrants|green|yellow|Stones|"
    r"fire|water|earth|air|capital|Place|colour|element|move|light|dark|first)\b"
)
"""Words of the legends' English that no translation keeps."""


def starts() -> list[State]:
    games = [("anti-grid", None), ("elasta", None), ("elemento", None), ("elemento", 3)]
    return [registry.new_game(name, players=players).initial_state() for name, players in games]


@pytest.mark.parametrize("state", starts(), ids=lambda state: state.game.name)
def test_an_english_board_is_drawn_as_the_engine_draws_it(state: State) -> None:
    board = state.ascii(0)
    assert ascii_in("en", state, 0, board) == board
    for why in state.legend_why(0):
        assert re.search(rf"^{re.escape(why.render())}$", board, re.MULTILINE)


def test_anti_grid_s_english_legend_is_as_before() -> None:
    assert LEGEND.render().split("\n") == [
        "  R red pawn   o red point    - | red lines    + crossing (either side rests)",
        "  B blue pawn  * blue point   ~ : blue lines",
    ]


@pytest.mark.parametrize("locale", LANGUAGES)
@pytest.mark.parametrize("state", starts(), ids=lambda state: state.game.name)
def test_the_words_of_the_board_are_the_reader_s_and_the_marks_stay(
    state: State, locale: str
) -> None:
    english = state.ascii(0)
    board = ascii_in(locale, state, 0, english)
    assert board != english
    said = [line for line in board.split("\n") if line not in english.split("\n")]
    assert all(len(line) <= 80 for line in board.split("\n")), (locale, said)
    for why in state.legend_why(0):
        assert why.render() not in board, (locale, why.render())
    for line in said if locale in ("de", "ru", "pl") else ():  # "point", "air" are French too
        assert not ENGLISH.search(line), (locale, line)
    if state.game.name == "elemento":
        for letters in ("G ", "Y ", "R ", "B ", "F ", "W ", "E ", "A ", "b2-b3"):
            assert letters in "\n".join(said), (locale, letters)
        assert ("LF@c1, DW@d1" if state.game.players > 2 else "F@c1") in said[-1]


@pytest.mark.parametrize("locale", LANGUAGES)
def test_anti_grid_s_legend_stays_in_columns(locale: str) -> None:
    """Each block of the table: an entry starts where the one above it does; a table too
    wide for 80 columns in a language goes on in a block under it."""
    state = registry.new_game("anti-grid").initial_state()
    board = ascii_in(locale, state, 0, state.ascii(0)).split("\n")
    legend = board[board.index("") + 1 :]
    red, blue = legend[0], legend[1]
    assert red.index("  R ") == blue.index("  B ") == 0, (locale, legend)
    assert red.index(" o ") == blue.index(" * "), (locale, legend)
    assert red.index(" - | ") == blue.index(" ~ : "), (locale, legend)
    assert "+ " in "\n".join(legend[2:]) or "+ " in red, (locale, legend)
    assert all(line.startswith("  ") and len(line) <= 80 for line in legend)


def test_elasta_turned_for_black_swaps_the_sides_in_every_language() -> None:
    state = registry.new_game("elasta").initial_state()
    turned = flip_ascii(state.ascii(1))
    german = ascii_in("de", state, 1, turned).split("\n")
    assert german[0] == "                 Weiß (Reihe 1)"
    assert "                Schwarz (Reihe 8)" in german
    russian = ascii_in("ru", state, 1, turned)
    assert russian.split("\n")[0].strip() == "Белые (ряд 1)" and "(rank" not in russian
