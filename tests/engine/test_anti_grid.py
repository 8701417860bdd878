"""Anti-Grid, rule by rule (shared/rules/anti-grid.md, ANT-1..ANT-18)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable

import pytest
from click.testing import CliRunner

from engine import (
    IllegalMoveError,
    NotationError,
    PositionError,
    State,
    Termination,
    new_game,
    state_from_json,
)
from engine.games.anti_grid import (
    BLUE_POINT,
    CROSSING,
    NO_POINT,
    RED_POINT,
    AntiGrid,
    AntiGridState,
    Move,
    geometry,
)
from service.cli import main

SMALL_START = (
    "_B_B_B_B_B_B/R+.+.+.+.+._/_.+.+.+.+.+B/R+.+.+.+.+._/_.+.+.+.+.+B/R+.+.+.+.+._/"
    "_.+.+.+.+.+B/R+.+.+.+.+._/_.+.+.+.+.+B/R+.+.+.+.+._/_.+.+.+.+.+B/R_R_R_R_R_R_ r 0"
)


def setup(
    red: Iterable[str], blue: Iterable[str], side: str = "r", quiet: int = 0, **options: str
) -> AntiGridState:
    """A position with pawns on the named squares, built through its position string."""
    game = AntiGrid(options)
    geo = game.geometry
    red, blue = set(red), set(blue)
    empty = {RED_POINT: ".", BLUE_POINT: ".", CROSSING: "+", NO_POINT: "_"}
    rows = []
    for y in reversed(range(geo.size)):
        row = ""
        for x in range(geo.size):
            cell = geo.cell(x, y)
            square = geo.square(cell)
            row += "R" if square in red else "B" if square in blue else empty[geo.kinds[cell]]
        rows.append(row)
    return game.parse_position(f"{'/'.join(rows)} {side} {quiet}")


def played(state: AntiGridState, text: str) -> AntiGridState:
    after = state.play(state.to_move, text).state
    assert isinstance(after, AntiGridState)
    return after


def squares(state: State, pawn: str) -> set[str]:
    assert isinstance(state, AntiGridState)
    return {state.geo.square(cell) for cell, here in enumerate(state.pawns) if here == pawn}


def named(text: str) -> set[str]:
    return set(text.split())


def moves_from(state: AntiGridState, square: str) -> list[str]:
    texts = [state.format(move) for move in state.legal_actions(state.to_move)]
    return [text for text in texts if text.split("-")[0] == square]


def kind(square: str, n: int = 8) -> str:
    geo = geometry(n)
    file, rank = geo.board.parse_square(square)
    return geo.kinds[geo.cell(file, rank)]


def illegal(state: AntiGridState, text: str) -> str:
    with pytest.raises(IllegalMoveError) as caught:
        state.play(state.to_move, text)
    return str(caught.value)


# -- geometry ------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "counts"), [(8, (64, 64, 98)), (6, (36, 36, 50))])
def test_ant1_to_ant4_point_counts(n: int, counts: tuple[int, int, int]) -> None:
    kinds = geometry(n).kinds
    assert len(kinds) == (2 * n) ** 2
    assert tuple(kinds.count(k) for k in (RED_POINT, BLUE_POINT, CROSSING)) == counts
    assert sum(counts) == {8: 226, 6: 122}[n]


def test_ant1_board_option_picks_the_lattice() -> None:
    assert AntiGrid().geometry.size == 16
    assert AntiGrid({"board": "small"}).geometry.size == 12


def test_ant2_to_ant4_kinds_of_cells() -> None:
    assert [kind(s) for s in ("a1", "c1", "o15", "b2", "d2", "p16")] == [RED_POINT] * 3 + [
        BLUE_POINT
    ] * 3
    assert [kind(s) for s in ("b3", "c2", "n15", "o14", "e6", "f5")] == [CROSSING] * 6
    assert [kind(s) for s in ("b1", "a2", "a16", "p1", "p3", "c16")] == [NO_POINT] * 6


def test_ant5_free_edges_have_no_crossings() -> None:
    geo = geometry(8)
    edges = [(x, 0) for x in range(16)] + [(0, y) for y in range(16)]
    edges += [(x, 15) for x in range(16)] + [(15, y) for y in range(16)]
    assert all(geo.kinds[geo.cell(x, y)] != CROSSING for x, y in edges)


def test_ant6_start_positions() -> None:
    large = AntiGrid().initial_state()
    assert squares(large, "R") == named("a1 c1 e1 g1 i1 k1 m1 o1 a3 a5 a7 a9 a11 a13 a15")
    assert squares(large, "B") == named("b16 d16 f16 h16 j16 l16 n16 p16 p2 p4 p6 p8 p10 p12 p14")
    small = AntiGrid({"board": "small"}).initial_state()
    assert squares(small, "R") == named("a1 c1 e1 g1 i1 k1 a3 a5 a7 a9 a11")
    assert squares(small, "B") == named("b12 d12 f12 h12 j12 l12 l2 l4 l6 l8 l10")


def test_ant7_red_moves_first() -> None:
    state = AntiGrid().initial_state()
    assert state.to_act == (0,)
    assert state.status() == "Red to move"
    assert state.game.seat_names == ("Red", "Blue")


# -- moves ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("board", "count", "per_pawn"), [("large", 196, 14), ("small", 100, 10)])
@pytest.mark.parametrize("side", ["r", "b"])
def test_ant8_first_moves_for_either_side(board: str, count: int, per_pawn: int, side: str) -> None:
    start = AntiGrid({"board": board}).initial_state()
    state = start.game.parse_position(start.position().replace(" r ", f" {side} "))
    seat = "rb".index(side)
    assert len(state.legal_actions(seat)) == count
    corner = "a1" if seat == 0 else {"large": "p16", "small": "l12"}[board]
    pawns = squares(state, "RB"[seat])
    assert moves_from(state, corner) == []
    assert {len(moves_from(state, square)) for square in pawns - {corner}} == {per_pawn}


def test_ant8_red_pawn_on_a_crossing_moves_along_its_one_red_line() -> None:
    state = setup(["b3", "a1"], ["p16", "n16"])
    assert moves_from(state, "b3") == ["b3-a3", *(f"b3-{f}3" for f in "cdefghijklmno")]
    state = setup(["a1", "c1"], ["c2", "p16"], side="b")
    assert moves_from(state, "c2") == ["c2-b2", *(f"c2-{f}2" for f in "defghijklmnop")]


def test_ant8_free_edge_pawn_passes_blank_cells() -> None:
    state = setup(["a1", "e15"], ["p16", "n16"])
    rank = [f"a1-{file}1" for file in "cegikmo"]
    assert moves_from(state, "a1") == rank + [f"a1-a{r}" for r in range(3, 16, 2)]


def test_ant8_no_jumping_over_pawns_of_either_colour() -> None:
    state = setup(["c1", "c5", "a1"], ["d3", "p16"])
    assert illegal(state, "c1-c7") == (
        "illegal move 'c1-c7': the move passes through an occupied point at c5 (ANT-8). "
        "Valid here: c1-e1, c1-g1, c1-i1, c1-k1, c1-m1, c1-o1, c1-c2, c1-c3, c1-c4"
    )
    state = setup(["a3", "a1"], ["d3", "p16"])
    assert "passes through an occupied point at d3 (ANT-8)" in illegal(state, "a3-g3")
    assert "d3 is occupied; a pawn may not land on an occupied point (ANT-8)" in illegal(
        state, "a3-d3"
    )


def test_ant8_moves_keep_to_straight_own_lines() -> None:
    state = setup(["d3", "a1"], ["p16", "n16"])
    assert "a1 to c3 is not a straight line (ANT-8)" in illegal(state, "a1-c3")
    assert illegal(state, "d3-d5").startswith(
        "illegal move 'd3-d5': d3-d5 runs along file d, a blue line; "
        "red pawns keep to red lines (ANT-8). Valid here: d3-c3"
    )
    assert "b1 is not a point, no pawn can rest there (ANT-4, ANT-8)" in illegal(state, "a1-b1")
    assert "a pawn must move at least one point (ANT-8)" in illegal(state, "a1-a1")
    assert "n16 holds a blue pawn; Red moves a red pawn (ANT-8)" in illegal(state, "n16-n14")
    assert "e5 is empty; Red moves a red pawn (ANT-8)" in illegal(state, "e5-e7")


def test_ant11_a_pawn_never_rests_on_an_enemy_point() -> None:
    state = setup(["d3", "a1"], ["p16", "n16"])
    assert illegal(state, "d3-d4").startswith(
        "illegal move 'd3-d4': d4 is a blue point, where a red pawn may never rest (ANT-11)"
    )
    blue = setup(["a1", "c1"], ["e6", "p16"], side="b")
    assert "e7 is a red point, where a blue pawn may never rest (ANT-11)" in illegal(blue, "e6-e7")


def test_ant9_blockade_stops_the_enemy_on_the_crossing() -> None:
    state = setup(["e1", "a1"], ["d6", "f6"])
    assert moves_from(state, "e1")[-1] == "e1-e6"
    assert illegal(state, "e1-e9") == (
        "illegal move 'e1-e9': blocked at crossing e6 by the blue pawns on d6 and f6: "
        "the move must stop there (ANT-9). Valid here: e1-c1, e1-g1, e1-i1, e1-k1, e1-m1, "
        "e1-o1, e1-e2, e1-e3, e1-e4, e1-e5, e1-e6"
    )
    after = played(state, "e1-e6")
    assert squares(after, "R") == {"e6", "a1"}
    assert squares(after, "B") == {"d6", "f6"}


def test_ant9_one_guard_alone_blocks_nothing() -> None:
    state = setup(["e1", "a1"], ["d6", "f8"])
    assert moves_from(state, "e1")[-1] == "e1-e15"


def test_ant9_a_pawn_on_a_blockaded_crossing_may_leave_either_way() -> None:
    state = setup(["e6", "a1"], ["d6", "f6"])
    assert moves_from(state, "e6") == [
        *(f"e6-e{r}" for r in range(5, 0, -1)),
        *(f"e6-e{r}" for r in range(7, 16)),
    ]


def test_ant9_a_pawn_leaving_a_blockade_stops_at_the_next_one() -> None:
    state = setup(["e6", "a1"], ["d6", "f6", "d10", "f10"])
    assert moves_from(state, "e6")[5:] == ["e6-e7", "e6-e8", "e6-e9", "e6-e10"]


def test_ant9_red_pawns_blockade_blue_too() -> None:
    state = setup(["c5", "e5", "a1"], ["d16", "p16"], side="b")
    assert [m for m in moves_from(state, "d16") if m[-1].isdigit()][-1] == "d16-d5"
    assert "blocked at crossing d5 by the red pawns on c5 and e5" in illegal(state, "d16-d3")


# -- capture -------------------------------------------------------------------------------


def test_ant10_rule_book_example_g1_g5_captures_f5() -> None:
    state = setup(["e5", "g1", "a1"], ["f5", "p16", "n16"])
    resolution = state.play(0, "g1-g5")
    assert squares(resolution.state, "B") == {"p16", "n16"}
    assert [event.text for event in resolution.events] == ["Red g1-g5 captures f5"]
    assert resolution.state.position().endswith(" 0")


def test_ant10_multi_capture_along_blue_file_d() -> None:
    state = setup(["d5", "a9", "a1"], ["d6", "d7", "d8", "p16", "n16"])
    resolution = state.play(0, "a9-d9")
    assert squares(resolution.state, "R") == {"d5", "d9", "a1"}
    assert squares(resolution.state, "B") == {"p16", "n16"}
    assert resolution.events[0].text == "Red a9-d9 captures d6, d7, d8"


def test_ant10_captures_along_every_line_and_direction_at_once() -> None:
    state = setup(["g5", "e7", "e1", "a1"], ["f5", "e6", "d5", "p16"])
    after = played(state, "e1-e5")
    assert squares(after, "B") == {"d5", "p16"}
    state = setup(["d7", "d11", "a9", "a1"], ["d8", "d10", "p16"])
    assert squares(played(state, "a9-d9"), "B") == {"p16"}


def test_ant10_a_gap_in_the_run_saves_it() -> None:
    state = setup(["d5", "a9", "a1"], ["d6", "d8", "p16", "n16"])
    assert squares(played(state, "a9-d9"), "B") == {"d6", "d8", "p16", "n16"}


def test_ant10_moving_into_a_flanked_position_is_safe() -> None:
    state = setup(["c5", "e5", "a1"], ["d16", "p16"], side="b")
    after = played(state, "d16-d5")
    assert squares(after, "B") == {"d5", "p16"}
    assert squares(after, "R") == {"c5", "e5", "a1"}


def test_ant10_only_the_moving_pawn_captures() -> None:
    state = setup(["e5", "g5", "a1"], ["f5", "p16"])
    assert squares(played(state, "a1-a9"), "B") == {"f5", "p16"}


def test_ant10_board_edges_never_capture() -> None:
    state = setup(["a15", "a1"], ["n16", "p16"])
    after = played(state, "a15-n15")
    assert squares(after, "B") == {"n16", "p16"}
    assert after.quiet == 1


# -- end -----------------------------------------------------------------------------------


def test_ant12_one_pawn_left_loses() -> None:
    state = setup(["e5", "g1", "a1"], ["f5", "p16"])
    resolution = state.play(0, "g1-g5")
    assert resolution.state.outcome is not None
    assert resolution.state.outcome.result == "1-0"
    assert resolution.state.outcome.reason == "Blue has one pawn left (ANT-12)"
    assert resolution.state.outcome.termination is Termination.CAPTURE
    assert resolution.events[-1].text == "Game over: Blue has one pawn left (ANT-12)"
    assert resolution.state.to_act == ()
    assert resolution.state.legal_actions(1) == ()


def test_ant12_no_pawn_left_loses() -> None:
    state = setup(["a1"], ["p16", "n16"])
    assert state.outcome is not None
    assert (state.outcome.result, state.outcome.reason) == ("0-1", "Red has one pawn left (ANT-12)")
    state = setup([], ["p16", "n16"])
    assert state.outcome is not None
    assert state.outcome.reason == "Red has no pawn left (ANT-12)"
    assert state.outcome.termination is Termination.CAPTURE


def test_ant13_no_legal_move_loses() -> None:
    state = setup(["c2", "b3", "e2", "d3"], ["b2", "d2"], side="b")
    assert state.legal_actions(1) == ()
    assert state.outcome is not None
    assert (state.outcome.result, state.outcome.reason) == (
        "1-0",
        "Blue has no legal move (ANT-13)",
    )
    assert state.outcome.termination is Termination.NO_MOVES


def test_ant14_trapped_on_unflankable_points_loses() -> None:
    state = setup(["a15", "o15"], ["b15", "n15", "o14"])
    assert state.outcome is not None
    assert state.outcome.result == "0-1"
    assert "(ANT-14)" in state.outcome.reason
    assert state.outcome.termination is Termination.TRAPPED


def test_ant14_applies_only_when_no_move_leaves_the_safe_points() -> None:
    assert setup(["a15", "o15"], ["n15", "o14", "p16"]).outcome is None
    assert setup(["a15", "o15"], ["b15", "n15", "o14"], side="b").outcome is None
    assert setup(["a15", "o13"], ["b15", "o14", "p16"]).outcome is None


def test_ant14_small_board_far_corner_is_k11() -> None:
    state = setup(["a11", "k11"], ["b11", "j11", "k10"], board="small")
    assert state.outcome is not None
    assert "(ANT-14)" in state.outcome.reason


@pytest.mark.parametrize(
    ("red", "result"), [(["a1", "c1", "e1"], "1-0"), (["a1", "c1"], "1/2-1/2")]
)
def test_ant15_sixty_moves_without_capture_end_the_game(red: list[str], result: str) -> None:
    state = setup(red, ["p16", "n16"], quiet=59)
    assert state.outcome is None
    after = played(state, "c1-c3")
    assert after.outcome is not None
    assert after.outcome.result == result
    assert after.outcome.reason.endswith("(ANT-15)")
    assert after.outcome.termination is Termination.NO_PROGRESS


def test_ant15_a_capture_resets_the_count() -> None:
    state = setup(["e5", "g1", "a1"], ["f5", "p16", "n16"], quiet=59)
    after = played(state, "g1-g5")
    assert (after.quiet, after.outcome) == (0, None)


def test_ant15_the_sixtieth_move_ends_before_the_next_turn_checks() -> None:
    """Decision: ANT-15 is checked before the next player's ANT-13/ANT-14."""
    red, blue = ["e2", "d3", "b5", "c4"], ["b2", "c2", "b3", "d2", "b4"]
    stuck = setup(red, blue, side="b")
    assert stuck.outcome is not None
    assert (stuck.outcome.result, stuck.outcome.reason) == (
        "1-0",
        "Blue has no legal move (ANT-13)",
    )
    ended = setup(red, blue, side="b", quiet=60)
    assert ended.outcome is not None
    assert ended.outcome.result == "0-1"
    assert ended.outcome.reason == "60 moves without a capture; pawns Red 4, Blue 5 (ANT-15)"


# -- chains (ANT-16) -----------------------------------------------------------------------

CHAIN_RED = ["e5", "g1", "d5", "a9", "a1"]
CHAIN_BLUE = ["f5", "d6", "d7", "d8", "p16", "n16"]


def test_ant16_a_capture_chain_is_one_action() -> None:
    state = setup(CHAIN_RED, CHAIN_BLUE, chain="on")
    action = state.parse(0, "g1-g5 a9-d9")
    assert isinstance(action, tuple) and len(action) == 2
    resolution = state.play(0, action)
    assert [event.text for event in resolution.events] == [
        "Red g1-g5 captures f5",
        "Red a9-d9 captures d6, d7, d8",
    ]
    assert squares(resolution.state, "B") == {"p16", "n16"}
    assert resolution.state.to_act == (1,)
    assert resolution.state.position().endswith(" 0")


def test_ant16_the_player_may_stop_after_any_capture() -> None:
    state = setup(CHAIN_RED, CHAIN_BLUE, chain="on")
    assert played(state, "g1-g5").to_act == (1,)


def test_ant16_legal_actions_list_single_moves() -> None:
    state = AntiGrid({"chain": "on"}).initial_state()
    assert len(state.legal_actions(0)) == 196
    assert all(isinstance(action, Move) for action in state.legal_actions(0))


def test_ant16_every_further_move_must_capture() -> None:
    state = setup(CHAIN_RED, CHAIN_BLUE, chain="on")
    assert illegal(state, "g1-g5 a1-c1") == (
        "illegal move 'g1-g5 a1-c1': a1-c1 captures nothing, and every move after the first "
        "in a chain must capture (ANT-16)"
    )
    assert illegal(state, "a1-c1 g1-g5") == (
        "illegal move 'a1-c1 g1-g5': a1-c1 captures nothing, so the turn ends with it; "
        "only a capture lets a chain go on (ANT-16)"
    )


def test_ant16_chain_moves_are_checked_on_the_position_they_meet() -> None:
    state = setup(CHAIN_RED, CHAIN_BLUE, chain="on")
    assert "g1 is empty" in illegal(state, "g1-g5 g1-g3")


def test_ant16_end_is_checked_after_every_single_move() -> None:
    state = setup(["e5", "g1", "d7", "a9", "a1"], ["f5", "d8"], chain="on")
    assert illegal(state, "g1-g5 a9-d9") == (
        "illegal move 'g1-g5 a9-d9': the game ends after g1-g5 (Blue has one pawn left "
        "(ANT-12)), so the chain stops there (ANT-16)"
    )
    assert played(state, "g1-g5").outcome is not None


def test_ant16_chains_need_the_option() -> None:
    state = setup(CHAIN_RED, CHAIN_BLUE)
    assert illegal(state, "g1-g5 a9-d9") == (
        "illegal move 'g1-g5 a9-d9': one move per turn; capture chains need the option "
        "chain=on (ANT-16)"
    )


def test_ant16_random_actions_build_valid_chains() -> None:
    state = setup(
        ["e5", "g1", "d5", "a9", "c9", "c13", "a1"],
        ["f5", "d6", "d7", "d8", "b13", "p16", "n16"],
        chain="on",
    )
    rng = random.Random(7)
    chains = [a for a in (state.random_action(0, rng) for _ in range(400)) if isinstance(a, tuple)]
    assert chains
    for chain in chains:
        assert state.parse(0, state.format(chain)) == chain


# -- notation and position -----------------------------------------------------------------


def test_ant17_notation_case_spaces_and_trailing_x() -> None:
    state = setup(["e5", "g1", "a1"], ["f5", "p16", "n16"])
    move = state.parse(0, "g1-g5")
    assert move == Move(state.geo.cell(6, 0), state.geo.cell(6, 4))
    assert state.parse(0, "G1-G5x") == move
    assert state.parse(0, " g1 - g5 x ") == move
    assert state.format(move) == "g1-g5"


def test_ant17_chain_notation_round_trips() -> None:
    state = setup(CHAIN_RED, CHAIN_BLUE, chain="on")
    action = state.parse(0, "g1-g5x, a9-d9x")
    assert state.format(action) == "g1-g5 a9-d9"
    assert state.parse(0, state.format(action)) == action


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("g1g5", "'g1g5' is not a move <from>-<to>, e.g. c1-c8 (ANT-17)"),
        ("", "a move is <from>-<to> along one of your lines, e.g. c1-c8 (ANT-17)"),
        ("q1-q3", "'q1' is off the board (a1 to p16)"),
        ("c1-c99", "'c99' is off the board (a1 to p16)"),
    ],
)
def test_ant17_unreadable_moves_are_syntax_errors(text: str, message: str) -> None:
    with pytest.raises(NotationError) as caught:
        AntiGrid().initial_state().parse(0, text)
    assert message in str(caught.value)


def test_ant18_position_string_of_the_small_start() -> None:
    state = AntiGrid({"board": "small"}).initial_state()
    assert state.position() == SMALL_START
    assert state.game.parse_position(SMALL_START) == state


def test_ant18_position_round_trip_after_moves() -> None:
    state = AntiGrid().initial_state()
    for text in ("c1-c6", "p4-c4", "e1-e3"):
        state = played(state, text)
    assert state.position().endswith(" b 3")
    assert state.game.parse_position(state.position()) == state
    assert state_from_json(json.loads(json.dumps(state.to_json()))) == state


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda p: p.replace("/", "", 1), "board=small needs 12 rows of 12 cells (ANT-18)"),
        (lambda p: p.replace(" r ", " x "), "r or b (side to move)"),
        (lambda p: p.replace("_B_B", "BB_B", 1), "a12 is no point and takes '_', not 'B'"),
        (lambda p: "_R" + p[2:], "b12 is a blue point and takes '.' or 'B', not 'R' (ANT-11)"),
        (lambda p: p.replace(" 0", ""), "a position is <rows>/<...> <r|b>"),
    ],
)
def test_ant18_bad_position_strings_are_explained(
    change: Callable[[str], str], message: str
) -> None:
    with pytest.raises(PositionError) as caught:
        AntiGrid({"board": "small"}).parse_position(change(SMALL_START))
    assert message in str(caught.value)


# -- pictures ------------------------------------------------------------------------------

SMALL_PICTURE = """\
     a   b   c   d   e   f   g   h   i   j   k   l
 12      B~~~~~~~B~~~~~~~B~~~~~~~B~~~~~~~B~~~~~~~B  12
         :       :       :       :       :       :
 11  R---+---o---+---o---+---o---+---o---+---o   :  11
     |   :   |   :   |   :   |   :   |   :   |   :
 10  |   *~~~+~~~*~~~+~~~*~~~+~~~*~~~+~~~*~~~+~~~B  10"""


def test_ascii_shows_both_grids_with_coordinates_on_four_sides() -> None:
    picture = AntiGrid({"board": "small"}).initial_state().ascii()
    assert picture.startswith(SMALL_PICTURE)
    lines = picture.splitlines()
    assert lines[0] == lines[24] == "     " + "   ".join("abcdefghijkl")
    assert lines[23] == "  1  R-------R-------R-------R-------R-------R      1"
    assert "R red pawn" in picture and "* blue point" in picture and "+ crossing" in picture


@pytest.mark.parametrize("board", ["large", "small"])
def test_ascii_fits_80_columns(board: str) -> None:
    picture = AntiGrid({"board": board}).initial_state().ascii()
    assert max(len(line) for line in picture.splitlines()) <= 80


def test_grid_cells_name_the_point_and_the_pawn() -> None:
    state = setup(["e5", "f5", "a1"], ["p16", "b2"])
    cells = {cell.square: cell for row in state.grid().rows for cell in row}
    assert len(cells) == 256
    assert (cells["e5"].text, cells["e5"].style, cells["e5"].title) == (
        "R",
        "red-point",
        "e5: red point, red pawn",
    )
    assert cells["f5"].title == "f5: crossing, red pawn"
    assert (cells["b2"].style, cells["b2"].title) == ("blue-point", "b2: blue point, blue pawn")
    assert (cells["c3"].text, cells["c3"].title) == ("", "c3: red point, empty")
    assert (cells["a2"].style, cells["a2"].title) == ("none", "a2: no point")
    assert state.grid().ranks[0] == "16" and state.grid().files[0] == "a"


def test_info_tells_pawns_counter_and_chains() -> None:
    state = AntiGrid({"chain": "on"}).initial_state()
    assert state.info()[:2] == (
        "Pawns: Red 15, Blue 15",
        "Moves without a capture: 0 of 60 (ANT-15)",
    )
    assert "Capture chains are on" in state.info()[2]


# -- command line --------------------------------------------------------------------------


@pytest.mark.parametrize(("options", "count"), [([], 196), (["--option", "board=small"], 100)])
def test_cli_lists_the_first_moves(options: list[str], count: int) -> None:
    result = CliRunner().invoke(main, ["engine", "moves", "anti-grid", *options])
    assert result.exit_code == 0
    assert result.output.splitlines()[-1] == f"{count} moves"


def test_cli_shows_the_board() -> None:
    result = CliRunner().invoke(main, ["engine", "show", "anti-grid", "-o", "board=small"])
    assert result.exit_code == 0
    assert SMALL_PICTURE in result.output
    assert "Red to move" in result.output
    assert f"Position: {SMALL_START}" in result.output


def test_registered_under_its_name() -> None:
    game = new_game("anti-grid", {"board": "small", "chain": "on"})
    assert (game.title, game.option("chain")) == ("Anti-Grid", "on")
