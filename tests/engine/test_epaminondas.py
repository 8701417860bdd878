"""Epaminondas, rule by rule (shared/rules/epaminondas.md, EPA-1..EPA-13)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from click.testing import CliRunner

from engine import (
    IllegalMoveError,
    NotationError,
    NotYourTurnError,
    PositionError,
    Termination,
    new_game,
    state_from_json,
)
from engine.games.epaminondas import Epaminondas, EpaminondasState
from engine.perft import _perft, perft
from service.cli import main
from tests.outside import SHARED

CORPUS = SHARED / "corpora" / "epaminondas"
needs_corpus = pytest.mark.outside_material("corpora/epaminondas/positions.jsonl")
START = "BBBBBBBBBBBBBB/BBBBBBBBBBBBBB/14/14/14/14/14/14/14/14/WWWWWWWWWWWWWW/WWWWWWWWWWWWWW w"


def game(board: str = "8x8", anti_copy: str = "on") -> Epaminondas:
    return Epaminondas({"board": board, "anti_copy": anti_copy})


def place(white: str = "", black: str = "", to_move: str = "w", **options: str) -> EpaminondasState:
    """A position on an (8x8 by default) board from lists of squares like ``"a1 a2"``."""
    rules = game(**options)
    files, ranks = rules.layout.files, rules.layout.ranks
    cells = [["."] * files for _ in range(ranks)]
    for letter, squares in (("W", white), ("B", black)):
        for square in squares.split():
            cells[int(square[1:]) - 1][ord(square[0]) - ord("a")] = letter
    rows = ["".join(row) for row in reversed(cells)]
    return rules.parse_position(fen(rows) + " " + to_move)


def fen(rows: list[str]) -> str:
    """Rows of ``W``/``B``/other characters, top first, as the board part of EPA-13."""
    out = []
    for row in rows:
        text, gap = "", 0
        for char in row:
            if char in "WB":
                text += (str(gap) if gap else "") + char
                gap = 0
            else:
                gap += 1
        out.append(text + (str(gap) if gap else ""))
    return "/".join(out)


def moves(state: EpaminondasState) -> set[str]:
    return {state.format(move) for move in state.legal_actions(state.mover)}


def play(state: EpaminondasState, *texts: str) -> EpaminondasState:
    for text in texts:
        state = state.play(state.mover, text).state
    return state


@cache
def corpus() -> tuple[dict[str, Any], ...]:
    lines = (CORPUS / "positions.jsonl").read_text().splitlines()
    return tuple(json.loads(line) for line in lines)


def corpus_position(record: dict[str, Any]) -> str:
    """The outside engine's board (``A`` = White, rank 12 first) as an EPA-13 string."""
    rows = [row.replace("A", "W") for row in record["board"]]
    return fen(rows) + " " + ("w" if record["to_move"] == 1 else "b")


# -- EPA-1..EPA-3: board, setup, first move ----------------------------------------------


def test_epa1_epa2_epa13_the_14x12_start_is_two_full_ranks_each_white_to_move() -> None:
    state = new_game("epaminondas").initial_state()
    assert state.position() == START
    assert state.white.bit_count() == state.black.bit_count() == 28
    assert state.to_act == (0,)
    assert state.game.seat_names == ("White", "Black")


def test_epa1_epa2_the_8x8_option_has_16_stones_each() -> None:
    state = game().initial_state()
    assert state.position() == "BBBBBBBB/BBBBBBBB/8/8/8/8/WWWWWWWW/WWWWWWWW w"
    assert state.white.bit_count() == state.black.bit_count() == 16


def test_epa3_turns_alternate_and_black_cannot_move_first() -> None:
    state = game().initial_state()
    with pytest.raises(NotYourTurnError):
        state.play(1, "a7-a6")
    assert play(state, "a2-a3").to_act == (1,)


# -- reference counts ----------------------------------------------------------------------


def test_epa5_the_start_has_114_moves_on_14x12_and_60_on_8x8() -> None:
    assert len(new_game("epaminondas").initial_state().legal_actions(0)) == 114
    assert len(game().initial_state().legal_actions(0)) == 60


def test_perft_from_the_14x12_start_depth_1_and_2() -> None:
    state = new_game("epaminondas").initial_state()
    assert [perft(state, depth) for depth in (1, 2)] == [114, 12_996]


@pytest.mark.slow
def test_perft_from_the_14x12_start_depth_3() -> None:
    assert perft(new_game("epaminondas").initial_state(), 3) == 1_787_292


@pytest.mark.slow
def test_perft_depth_3_is_the_same_without_the_anti_copy_rule() -> None:
    state = new_game("epaminondas", {"anti_copy": "off"}).initial_state()
    assert perft(state, 3) == 1_787_292


@needs_corpus
def test_fast_perft_agrees_with_the_plain_definition_on_corpus_positions() -> None:
    rules = new_game("epaminondas")
    for record in corpus()[::300]:
        state = rules.parse_position(corpus_position(record))
        assert state.fast_perft(2) == _perft(state, 2), record["ply"]


def test_epa11_fast_perft_counts_a_third_repetition_as_the_end() -> None:
    state = place(white="a1", black="h8")
    fresh = state.fast_perft(5)
    again = play(state, "a1-a2", "h8-h7", "a2-a1", "h7-h8")
    assert again.fast_perft(5) == _perft(again, 5) < fresh


@needs_corpus
def test_corpus_move_counts_match_the_outside_engine() -> None:
    """Every corpus position: the raw generator count, which that engine records even once
    the game is decided; it has no EPA-8, so compare with anti_copy=off."""
    rules = game("14x12", anti_copy="off")
    for record in corpus():
        state = rules.parse_position(corpus_position(record))
        generated = state.generated_moves()
        assert len(generated) == record["legal_moves"], (record["game"], record["ply"])
        assert state.count_moves() == len(generated)


@needs_corpus
def test_corpus_games_replay_to_the_same_boards_and_results() -> None:
    """EPA-12 notation of the outside engine, EPA-5..7 effects and the EPA-9 end agree."""
    games: dict[str, list[dict[str, Any]]] = {}
    for record in corpus():
        games.setdefault(record["game"], []).append(record)
    for name, records in games.items():
        state = game("14x12", anti_copy="off").initial_state()
        for record in records:
            if record["ply"]:
                state = play(state, record["moves"][-1])
            assert state.position() == corpus_position(record), (name, record["ply"])
        final = records[-1]
        assert state.is_over == final["gameover"], name
        if state.outcome:
            assert [seat + 1 for seat in state.outcome.winners] == final["winner"]


# -- EPA-4..EPA-6: phalanx moves -------------------------------------------------------


def test_epa5_a_phalanx_moves_up_to_as_many_squares_as_it_has_stones() -> None:
    state = place(white="a1 a2 a3", black="h8")
    north_of_a1 = {text for text in moves(state) if text.startswith("a1-a")}
    assert north_of_a1 == {"a1-a4", "a1-a5", "a1-a6"}
    front = play(state, "a1-a6")
    assert front.position().startswith("7B/8/W7/W7/W7/8/8/8")


def test_epa5_part_of_a_phalanx_moves_from_its_tail_to_its_front() -> None:
    state = place(white="a1 a2 a3", black="h8")
    assert {"a2-a4", "a2-a5", "a3-a4"} <= moves(state)
    after = play(state, "a2-a5")
    assert after.position().startswith("7B/8/8/W7/W7/8/8/W7")
    with pytest.raises(IllegalMoveError, match=r"2 stones a2-a3 move at most 2 squares \(EPA-5"):
        state.parse(0, "a2-a6")
    with pytest.raises(IllegalMoveError, match=r"a single stone moves at most 1 square \(EPA-5\)"):
        state.parse(0, "a3-a5")


def test_epa5_moves_backward_toward_the_own_home_row() -> None:
    state = place(white="d5", black="d4 h8")
    assert {"d5-d6", "d5-c4", "d5-e4"} <= moves(state)
    assert "d5-d4" not in moves(state)  # occupied by a lone enemy stone (EPA-7)
    black = place(white="a1", black="d4 h8", to_move="b")
    assert {"d4-d5", "d4-c5", "d4-e5", "d4-d3"} <= moves(black)


def test_epa5_a_phalanx_never_moves_across_its_own_line() -> None:
    """A rank of three stones moves along the rank; north each stone moves alone."""
    state = place(white="c3 d3 e3", black="h8")
    with pytest.raises(IllegalMoveError, match="a single stone moves at most 1 square"):
        state.parse(0, "c3-c5")
    assert {"c3-c4", "d3-d4", "e3-e4"} <= moves(state)
    assert {"c3-f3", "c3-g3", "c3-h3", "e3-b3", "e3-a3"} <= moves(state)


def test_epa5_decided_moves_along_a_rank_count_as_along_the_line() -> None:
    """The reference counts need them: the start has 114 moves with or without, but two
    plies later a rank stone can step into a gap (1,787,292 at perft 3)."""
    state = play(new_game("epaminondas").initial_state(), "d1-g4", "f12-c9")
    assert {"c1-d1", "e1-d1", "n1-d1", "d2-e2"} <= moves(state)
    assert len(moves(state)) == 149


def test_epa5_a_phalanx_never_moves_onto_its_own_stones() -> None:
    state = place(white="a1 a2 a4", black="h8")
    with pytest.raises(IllegalMoveError, match=r"a4 holds your own stone.*\(EPA-5\)"):
        state.parse(0, "a1-a4")
    with pytest.raises(IllegalMoveError, match=r"front stone a2 lands \(EPA-12\)"):
        state.parse(0, "a1-a2")


def test_epa6_the_front_stone_passes_only_over_empty_squares() -> None:
    state = place(white="a1 a2 a3 a5", black="h8")
    with pytest.raises(IllegalMoveError, match=r"pass over your own stone on a5 \(EPA-6\)"):
        state.parse(0, "a1-a6")
    enemy = place(white="a1 a2 a3", black="a4 h8")
    with pytest.raises(IllegalMoveError, match=r"pass over a Black stone on a4 \(EPA-6\)"):
        enemy.parse(0, "a1-a5")


def test_epa6_a_move_cannot_leave_the_board() -> None:
    state = place(white="g4 h4", black="a8")
    from_g4 = {text for text in moves(state) if text.startswith("g4")}
    assert from_g4 == {"g4-g5", "g4-g3", "g4-f5", "g4-h5", "g4-f3", "g4-h3", "g4-f4"}
    assert {"h4-f4", "h4-e4"} <= moves(state)  # west along the rank, never east off it


# -- EPA-7: captures -------------------------------------------------------------------


def test_epa7_two_stones_capture_one() -> None:
    state = place(white="a1 a2", black="a3 h8")
    assert "a1xa3" in moves(state)
    after = play(state, "a1xa3")
    assert after.black == place(black="h8").black
    assert after.position().startswith("7B/8/8/8/8/W7/W7/8")


def test_epa7_equal_numbers_cannot_capture() -> None:
    state = place(white="a1 a2", black="a3 a4 h8")
    assert not {"a1xa3", "a2xa3"} & moves(state)
    with pytest.raises(IllegalMoveError, match=r"2 moving stones cannot capture the 2 Black"):
        state.parse(0, "a1xa3")


def test_epa7_a_single_stone_never_captures() -> None:
    state = place(white="a2", black="a3 h8")
    assert "a2xa3" not in moves(state)
    with pytest.raises(IllegalMoveError, match=r"a single stone never captures \(EPA-7\)"):
        state.parse(0, "a2xa3")


def test_epa7_a_phalanx_captures_after_crossing_empty_squares() -> None:
    state = place(white="a1 a2 a3", black="a6 a7 h8")
    after = play(state, "a1xa6")
    assert after.position().startswith("7B/8/W7/W7/W7/8/8/8")
    blocked = place(white="a1 a2 a3", black="a6 a7 a8 h8")
    with pytest.raises(IllegalMoveError, match="3 moving stones cannot capture the 3"):
        blocked.parse(0, "a1xa6")


def test_epa7_only_the_unbroken_enemy_line_counts_and_is_captured() -> None:
    state = place(white="a1 a2 a3", black="a4 a5 a7 a8 h8")
    resolution = state.play(0, "a1xa4")
    after = resolution.state
    assert after.black == place(black="a7 a8 h8").black
    assert "captured 2 Black stones: a4, a5" in [event.text for event in resolution.events][1]


def test_epa7_capturing_is_optional_and_x_is_optional_on_input() -> None:
    state = place(white="a1 a2", black="a3 h8")
    assert "a2-b3" in moves(state)
    assert state.parse(0, "a1-a3") == state.parse(0, "a1xa3")
    assert state.format(state.parse(0, "a1-a3")) == "a1xa3"


# -- EPA-8: anti-copy --------------------------------------------------------------------


def test_epa8_a_crossing_that_leaves_a_colour_swapped_mirror_image_is_illegal() -> None:
    state = place(white="d7 a2", black="d1 a7")
    assert "d7-d8" not in moves(state)
    assert state.count_moves() == len(state.generated_moves())
    with pytest.raises(IllegalMoveError, match=r"mirror image .* colours swapped \(EPA-8\)"):
        state.parse(0, "d7-d8")


def test_epa8_a_mirror_image_without_reaching_the_home_row_is_allowed() -> None:
    state = place(white="d6 a2", black="d2 a7")
    after = play(state, "d6-d7")
    assert after.game.layout.mirror(after.white) == after.black


def test_epa8_a_crossing_that_leaves_no_mirror_image_is_allowed() -> None:
    state = place(white="e7 a2", black="d1 a7")
    assert "e7-e8" in moves(state)


def test_epa8_option_anti_copy_off_drops_the_rule() -> None:
    state = place(white="d7 a2", black="d1 a7", anti_copy="off")
    assert "d7-d8" in moves(state)


# -- EPA-9..EPA-11: the end --------------------------------------------------------------


def test_epa9_a_crossing_wins_only_when_the_opponent_cannot_answer() -> None:
    state = place(white="d7 a2", black="a7 h8")
    crossed = play(state, "d7-d8")
    assert crossed.outcome is None and crossed.to_act == (1,)
    over = crossed.play(1, "a7-a6").state
    assert over.outcome is not None and over.outcome.winners == (0,)
    assert "EPA-9" in over.outcome.reason
    assert over.outcome.termination is Termination.GOAL


def test_epa9_black_crossing_wins_as_goal_too() -> None:
    state = place(white="h1 a2", black="e2 a7")
    over = play(state, "a2-a3", "e2-e1", "a3-a4")
    assert over.outcome is not None and over.outcome.winners == (1,)
    assert "EPA-9" in over.outcome.reason and over.outcome.termination is Termination.GOAL


def test_epa9_equal_numbers_on_the_home_rows_do_not_win() -> None:
    state = place(white="d7 a2", black="e2 h8")
    answered = play(state, "d7-d8", "e2-e1")
    assert answered.outcome is None
    assert answered.crossings(0) == answered.crossings(1) == 1


def test_epa9_capturing_the_crossing_stone_answers_it() -> None:
    state = place(white="d7 a2", black="e8 f8 a7")
    answered = play(state, "d7-d8", "f8xd8")
    assert answered.outcome is None


def test_epa10_decided_a_player_without_a_legal_move_loses() -> None:
    state = place(white="a1 b1 c1 d1 e1 f1 g1 h1", black="a2 b2 c2 d2 e2 f2 g2 h2")
    assert state.outcome is not None
    assert state.outcome.winners == (1,)
    assert "EPA-10" in state.outcome.reason
    assert state.outcome.termination is Termination.NO_MOVES
    assert state.to_act == () and state.legal_actions(0) == ()


def test_epa11_decided_threefold_repetition_is_a_draw() -> None:
    shuffle = ("b2-b3", "b7-b6", "b3-b2", "b6-b7")
    twice = play(game().initial_state(), *shuffle)
    assert twice.outcome is None
    assert twice.position() == game().initial_state().position()
    assert dict(twice.to_json()["repetitions"])[twice.position()] == 2
    thrice = play(twice, *shuffle)
    assert thrice.outcome is not None and thrice.outcome.is_draw
    assert "EPA-11" in thrice.outcome.reason
    assert thrice.outcome.termination is Termination.REPETITION


def test_epa11_counts_are_in_the_json_not_in_the_position_string() -> None:
    state = play(game().initial_state(), "b2-b3", "b7-b6", "b3-b2", "b6-b7")
    fresh = state.game.parse_position(state.position())
    assert fresh.position() == state.position() and fresh != state
    restored = state_from_json(json.loads(json.dumps(state.to_json())))
    assert restored == state


def test_epa11_a_capture_clears_the_repetition_counts() -> None:
    state = place(white="a1 a2", black="a3 h8")
    after = play(state, "a1xa3")
    assert after.repetitions == ((after.key, 1),)


# -- EPA-12: notation --------------------------------------------------------------------


def test_epa12_the_rule_book_examples() -> None:
    state = new_game("epaminondas").initial_state()
    after = play(state, "a1-a3")
    assert after.position().endswith("W13/WWWWWWWWWWWWWW/1WWWWWWWWWWWWW b")
    diagonal = play(state, "n1-l3")
    assert diagonal.position().endswith("11W2/WWWWWWWWWWWWWW/WWWWWWWWWWWWW1 b")
    with pytest.raises(IllegalMoveError) as caught:
        state.parse(0, "b2-b4")
    expected = "illegal move 'b2-b4': a single stone moves at most 1 square (EPA-5)"
    assert str(caught.value) == expected


@needs_corpus
def test_epa12_every_legal_move_reads_back_from_its_text() -> None:
    rules = new_game("epaminondas")
    for record in corpus()[::150]:
        state = rules.parse_position(corpus_position(record))
        for move in state.generated_moves():
            assert state.parse(state.mover, state.format(move)) == move


@needs_corpus
def test_epa12_parse_accepts_exactly_the_generated_moves() -> None:
    """Every tail on a line with every square: parse agrees with the generator."""
    rules = new_game("epaminondas")
    layout = rules.layout
    squares = [layout.square(layout.bit(f, r)) for f in range(14) for r in range(12)]
    for record in corpus()[::500]:
        state = rules.parse_position(corpus_position(record))
        legal = {state.format(move) for move in state.generated_moves()}
        own = state.stones(state.mover)[0]
        for tail in (square for square in squares if own >> layout.bit(*xy(square)) & 1):
            for dest in squares:
                (tf, tr), (df, dr) = xy(tail), xy(dest)
                if (tf, tr) == (df, dr) or (tf != df and tr != dr and abs(tf - df) != abs(tr - dr)):
                    continue
                try:
                    text: str | None = state.format(state.parse(state.mover, f"{tail}-{dest}"))
                except IllegalMoveError:
                    text = None
                written = (f"{tail}-{dest}", f"{tail}x{dest}")
                assert text == next((t for t in written if t in legal), None), (tail, dest)


def xy(square: str) -> tuple[int, int]:
    return ord(square[0]) - ord("a"), int(square[1:]) - 1


def test_epa12_a_destination_off_every_line_is_a_syntax_error() -> None:
    state = game().initial_state()
    with pytest.raises(NotationError) as caught:
        state.parse(0, "a1-b3")
    assert str(caught.value) == (
        "cannot read 'a1-b3': b3 is not on a file, rank or diagonal through a1 (EPA-12)"
    )


def test_epa12_unreadable_input_lists_legal_examples() -> None:
    state = game().initial_state()
    with pytest.raises(NotationError) as caught:
        state.parse(0, "forward march")
    message = str(caught.value)
    assert message.startswith("cannot read 'forward march': a move is <tail>-<dest>")
    examples = message.split("Valid here: ")[1].split(", ")
    assert examples and all(state.parse(0, text) for text in examples)


def test_epa12_squares_off_the_board_and_foreign_stones_are_explained() -> None:
    state = game().initial_state()
    with pytest.raises(NotationError, match="'i1' is off the board"):
        state.parse(0, "i1-i2")
    with pytest.raises(IllegalMoveError, match="a7 holds a Black stone; you play White"):
        state.parse(0, "a7-a6")
    with pytest.raises(IllegalMoveError, match="there is no stone on d4"):
        state.parse(0, "d4-d5")


def test_epa12_x_on_a_move_that_captures_nothing_is_refused() -> None:
    state = game().initial_state()
    with pytest.raises(IllegalMoveError, match=r"a3 is empty.*write a1-a3 \(EPA-12\)"):
        state.parse(0, "a1xa3")


def test_epa12_case_spaces_and_typographic_dashes_are_read() -> None:
    state = game().initial_state()
    assert state.parse(0, " A1 – A3 ") == state.parse(0, "a1-a3")


# -- EPA-13: position strings, JSON, pictures --------------------------------------------


@needs_corpus
def test_epa13_position_strings_round_trip() -> None:
    rules = new_game("epaminondas")
    for record in corpus()[::100]:
        text = corpus_position(record)
        assert rules.parse_position(text).position() == text


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("8/8/8/8/8/8/8/8", "expected the ranks, a space, then w or b"),
        ("8/8/8/8/8/8/8 w", "expected 8 ranks separated by '/', found 7"),
        ("8/8/8/8/8/8/8/9 w", "rank 1 ('9') covers 9 squares, not 8"),
        ("8/8/8/8/8/8/8/WWW4 w", "rank 1 ('WWW4') covers 7 squares, not 8"),
        ("8/8/8/8/8/8/8/WWQ5 w", "rank 1 has 'Q'; use W, B or digits"),
        ("8/8/8/8/8/8/8/8 x", "the player to move is w or b, not 'x'"),
    ],
)
def test_epa13_bad_position_strings_say_why(text: str, reason: str) -> None:
    with pytest.raises(PositionError) as caught:
        game().parse_position(text)
    assert reason in str(caught.value)


def test_json_round_trip_and_damaged_json() -> None:
    state = play(new_game("epaminondas").initial_state(), "a1-a3", "a12-a10")
    assert state_from_json(json.loads(json.dumps(state.to_json()))) == state
    damaged = {**state.to_json(), "repetitions": [["nonsense"]]}
    with pytest.raises(PositionError):
        state_from_json(damaged)


def test_the_ascii_board_has_coordinates_on_all_four_sides() -> None:
    lines = new_game("epaminondas").initial_state().ascii().splitlines()
    assert lines[0].split() == list("abcdefghijklmn") == lines[-1].split()
    assert lines[2].split()[0] == "12" and lines[2].split()[-1] == "12"
    assert lines[-3].split()[0] == "1" and lines[-3].split()[-1] == "1"
    assert max(len(line) for line in lines) <= 80


def test_grid_cells_name_square_and_stone() -> None:
    grid = game().initial_state().grid()
    assert grid.ranks[0] == "8" and grid.files[0] == "a"
    bottom_left = grid.rows[-1][0]
    assert (bottom_left.square, bottom_left.text, bottom_left.style) == ("a1", "W", "white")
    assert bottom_left.title == "a1: white stone"
    assert grid.rows[3][0].title == "a5: empty"


# -- the command line ------------------------------------------------------------------


def run(*args: str) -> Any:
    return CliRunner().invoke(main, ["engine", *args])


def test_cli_perft() -> None:
    result = run("perft", "epaminondas", "--depth", "2")
    assert result.exit_code == 0
    assert result.output.splitlines() == ["perft(1) = 114", "perft(2) = 12996"]


def test_cli_moves_on_8x8() -> None:
    result = run("moves", "epaminondas", "--option", "board=8x8")
    assert result.exit_code == 0
    assert result.output.splitlines()[-1] == "60 moves"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("moves", "epaminondaz"), "error: unknown game 'epaminondaz'"),
        (("moves", "epaminondas", "--option", "board=9x9"), "error: bad option 'board=9x9'"),
        (("moves", "epaminondas", "--option", "copy=on"), "error: bad option 'copy=on'"),
        (("show", "epaminondas", "--position", "8/8 w"), "error: bad position '8/8 w'"),
    ],
)
def test_cli_errors_are_one_clear_line(args: tuple[str, ...], expected: str) -> None:
    result = run(*args)
    assert result.exit_code != 0
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(expected)
    assert "Traceback" not in result.output
