"""Nelaxtam, rule by rule (shared/rules/nelaxtam.md, NEL-1..NEL-18)."""

from __future__ import annotations

import dataclasses
import json
import math
import random

import pytest
from click.testing import CliRunner

from engine import (
    IllegalMoveError,
    NotationError,
    PositionError,
    Termination,
    new_game,
    state_from_json,
)
from engine.games.nelaxtam import NelaxtamState, Orders
from service.cli import main

INVADED = "1:a9 2:e1 3:i1 4:f6 5:h8", "A:a8 B:f1 C:l7 D:g6 E:c10"


def start(**options: str) -> NelaxtamState:
    state = new_game("nelaxtam", options).initial_state()
    assert isinstance(state, NelaxtamState)
    return state


def invaded(**options: str) -> NelaxtamState:
    """The original's Diagram 2 invasion, resolved: action turn 1.

    The diagram shows X's D on g7, an O piece (NEL-5 forbids it); D lands on g6 here.
    """
    state = start(**options).submit(0, INVADED[0]).submit(1, INVADED[1]).resolve().state
    assert isinstance(state, NelaxtamState)
    return state


def from_diagram(diagram: str, troops: dict[str, str] | None = None, tail: str = "5 0") -> str:
    """A position string from one of the original's diagrams (rows top down, cells spaced).

    Capital O and X (the diagrams' highlights) are plain territory; ``troops`` adds troops
    by square, e.g. ``{"l1": "B"}``.
    """
    rows = [line.split() for line in diagram.strip().splitlines()]
    size = len(rows)
    for square, label in (troops or {}).items():
        file, rank = ord(square[0]) - ord("a"), int(square[1:])
        rows[size - rank][file] = label
    text = "/".join("".join(c.lower() if c in "OX" else c for c in row) for row in rows)
    return f"{text} {tail}"


def marked(diagram: str, letter: str) -> set[str]:
    """The squares a diagram highlights with a capital ``letter``."""
    rows = [line.split() for line in diagram.strip().splitlines()]
    return {
        f"{chr(ord('a') + file)}{len(rows) - index}"
        for index, row in enumerate(rows)
        for file, cell in enumerate(row)
        if cell == letter
    }


def position(text: str, **options: str) -> NelaxtamState:
    state = new_game("nelaxtam", options).parse_position(text)
    assert isinstance(state, NelaxtamState)
    return state


def play(state: NelaxtamState, o: str | None, x: str | None) -> tuple[NelaxtamState, list[str]]:
    """One sealed turn and its event texts; None leaves a side to its default (NEL-15)."""
    if o is not None:
        state = state.submit(0, o)
    if x is not None:
        state = state.submit(1, x)
    resolution = state.resolve()
    assert isinstance(resolution.state, NelaxtamState)
    return resolution.state, [event.text for event in resolution.events]


def troop_at(state: NelaxtamState, label: str) -> str | None:
    seat, troop = (0, int(label) - 1) if label.isdigit() else (1, "ABCDE".index(label))
    square = state.troops[seat][troop]
    return None if square is None else state.game.square(square)


def cell(state: NelaxtamState, square: str) -> str:
    """The territory on ``square``: ``o``, ``x`` or ``.`` (under any troop)."""
    file, rank = state.game.board.parse_square(square)
    return state.pieces[rank * state.game.size + file]


def acting(action: object) -> int:
    """How many troops a set of action orders makes act."""
    assert isinstance(action, Orders)
    return action.acting


def with_tail(state: NelaxtamState, tail: str) -> NelaxtamState:
    """The same board with another turn number and count of calm turns."""
    return position(state.position().rsplit(" ", 2)[0] + " " + tail)


DIAGRAM_1 = """
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
"""

DIAGRAM_3 = """
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x O x O x o x o x
x o x o x 1 x o x o x o
o x o x O x O x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
"""

DIAGRAM_4 = """
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o X o x o x o x
x o x o X 1 X o x o x o
o x o x o X o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
"""

DIAGRAM_4_AFTER = """
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x 1 x o x o x o
o x o x o . o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
"""

DIAGRAM_6 = """
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o A o x o x o x
x o x o x 1 x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
"""

DIAGRAM_6_AFTER = """
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o . o x o x o x
x o x o x . x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
"""

DIAGRAM_7 = """
x . x . . o . o . . x .
. A . . o . o . o . . E
x . . o . o . o . o . .
. x . . o . o . . . o .
x . . . . . . . . 4 . o
. x . x . x . . . . . .
. . x . x . x . B . x .
. . . . . x . x . x . x
. o . . . . . . . . x .
o . 1 . o . o . . . . x
. o . o . o . o . o . .
o . o . o . o . 2 . o .
"""

# A lone pair on an otherwise destroyed 8x8 board: O's 1 on a1 faces X's A on b1.
LONE_PAIR = "......../......../......../......../......../......../......../1A...... 4 0"


# -- board and pieces -------------------------------------------------------------------


def test_nel1_nel2_board_is_checkered_with_a1_o_and_matches_diagram_1() -> None:
    state = start()
    assert state.position() == from_diagram(DIAGRAM_1, tail="invasion 0")
    assert cell(state, "a1") == "o" and cell(state, "b1") == "x" and cell(state, "a2") == "x"
    for size in ("8", "10", "12", "14", "16"):
        pieces = start(size=size).pieces
        assert pieces.count("o") == pieces.count("x") == int(size) ** 2 // 2


def test_nel1_ascii_has_coordinates_on_all_sides_within_80_columns_for_size_16() -> None:
    lines = start(size="16").ascii().splitlines()
    assert max(len(line) for line in lines) <= 80
    assert lines[0].split() == list("abcdefghijklmnop") == lines[-1].split()
    assert lines[2].split()[0] == "16" and lines[2].split()[-1] == "16"
    assert lines[-3].split()[0] == "1" and lines[-3].split()[-1] == "1"


def test_nel3_x_troops_may_be_written_a_to_e_or_1_to_5() -> None:
    state = invaded()
    assert state.parse(1, "a:xn b:xn") == state.parse(1, "1:xn 2:xn")
    assert state.format(state.parse(1, "1:xn")) == "A:xn"
    with pytest.raises(NotationError, match=r"O's troops are 1-5 \(NEL-3\)"):
        state.parse(0, "a:xn")
    with pytest.raises(NotationError, match=r"'6' is not a troop.*\(NEL-3\)"):
        state.parse(1, "6:xn")


# -- invasion ----------------------------------------------------------------------------


def test_nel5_invasion_places_every_troop_on_its_own_pieces() -> None:
    state, events = play(start(), *INVADED)
    assert [troop_at(state, label) for label in "12345ABCDE"] == [
        "a9",
        "e1",
        "i1",
        "f6",
        "h8",
        "a8",
        "f1",
        "l7",
        "g6",
        "c10",
    ]
    assert events[0] == "O landed troops 1 on a9, 2 on e1, 3 on i1, 4 on f6, 5 on h8"
    assert state.turn == 1 and state.status() == "Turn 2: orders due from O and X"
    assert "  8 | A o x o x o x 5 x o x o | 8" in state.ascii()


def test_nel5_invasion_refuses_enemy_pieces_shared_pieces_and_missing_troops() -> None:
    state = start()
    with pytest.raises(IllegalMoveError, match=r"a8 is an X piece; troop 1 must land on an O"):
        state.parse(0, "1:a8 2:e1 3:i1 4:f6 5:h8")
    with pytest.raises(IllegalMoveError, match=r"two troops on e1.*\(NEL-5\)"):
        state.parse(0, "1:a9 2:e1 3:i1 4:e1 5:h8")
    with pytest.raises(IllegalMoveError, match=r"missing: 5 \(NEL-16\)"):
        state.parse(0, "1:a9 2:e1 3:i1 4:f6")
    with pytest.raises(IllegalMoveError, match=r"g7 is an O piece; troop D must land on an X"):
        state.parse(1, "A:a8 B:f1 C:l7 D:g7 E:c10")  # Diagram 2 exactly as printed
    with pytest.raises(IllegalMoveError, match=r"troop B is placed twice \(NEL-5\)"):
        state.parse(1, "A:a8 B:f1 B:l7 D:g6 E:c10")


def test_nel4_nel5_sea_troops_need_edge_pieces_and_air_troops_may_land_anywhere() -> None:
    with pytest.raises(IllegalMoveError, match=r"3 troops arrive by sea.*only 2 of these"):
        start().parse(0, "1:a9 2:e1 3:f6 4:g7 5:h8")
    assert start(sea="2").parse(0, "1:a9 2:e1 3:f6 4:g7 5:h8")
    assert start(sea="0").parse(0, "1:c3 2:e5 3:f6 4:g7 5:h8")
    assert start(sea="3").parse(0, "1:a1 2:c1 3:e1 4:g1 5:i1"), "air troops may use the edge"
    with pytest.raises(IllegalMoveError, match="only 4 of these"):
        start(sea="5").parse(0, "1:a1 2:c1 3:e1 4:g1 5:h8")


def test_nel5_placements_count_exactly_and_every_one_is_legal() -> None:
    state = start(size="8", sea="3")
    placements = state.legal_actions(0)
    edge, inner = 14, 18
    expected = sum(
        math.comb(5, k) * math.perm(edge, k) * math.perm(inner, 5 - k) for k in range(3, 6)
    )
    assert len(placements) == expected
    for index in (0, 1, len(placements) // 2, len(placements) - 1, -1):
        placement = placements[index]
        assert state.parse(0, state.format(placement)) == placement
    sample = range(0, len(placements), len(placements) // 50)
    assert len({placements[i] for i in sample}) == len(sample), "distinct indices, distinct"


# -- action turns ------------------------------------------------------------------------


def test_nel6_diagram_3_troop_on_f4_may_move_to_e5_g5_e3_g3() -> None:
    before = position(from_diagram(DIAGRAM_3, {"l1": "B"}))
    assert troop_at(before, "1") == "f4"
    reached = set()
    for code in ("ne", "nw", "se", "sw"):
        after, events = play(before, f"1:{code}", None)
        reached.add(troop_at(after, "1"))
        assert events[0].startswith("O troop 1 moved f4-")
    assert reached == marked(DIAGRAM_3, "O") == {"e5", "g5", "e3", "g3"}


def test_nel6_diagram_4_troop_may_destroy_the_four_orthogonal_neighbours() -> None:
    before = position(from_diagram(DIAGRAM_4, {"l1": "B"}))
    destroyed = set()
    for code in ("xn", "xe", "xs", "xw"):
        after, _ = play(before, f"1:{code}", None)
        destroyed |= {square for square in marked(DIAGRAM_4, "X") if cell(after, square) == "."}
    assert destroyed == marked(DIAGRAM_4, "X") == {"f5", "e4", "g4", "f3"}
    after, events = play(before, "1:xs", None)
    assert after.position() == from_diagram(DIAGRAM_4_AFTER, {"l1": "B"}, tail="6 0")
    assert events == ["O troop 1 destroyed f3"]


def test_nel6_orders_onto_missing_pieces_or_off_the_board_are_refused() -> None:
    state = position(from_diagram(DIAGRAM_4_AFTER, {"l1": "B", "a1": "2"}))
    with pytest.raises(IllegalMoveError, match=r"cannot destroy f3: that piece is already gone"):
        state.parse(0, "1:xs")
    with pytest.raises(IllegalMoveError, match=r"troop 2 on a1 cannot sw: off the board"):
        state.parse(0, "2:sw")
    hole = position(from_diagram(DIAGRAM_6_AFTER, {"l1": "B", "e5": "2"}))
    with pytest.raises(IllegalMoveError, match=r"cannot move ne to f6: that O piece was destroyed"):
        hole.parse(0, "2:ne")
    with pytest.raises(IllegalMoveError, match=r"troop 1 has two orders.*\(NEL-6\)"):
        state.parse(0, "1:xn 1:xe")


def test_nel7_two_troops_ending_on_one_piece_are_refused_at_submission() -> None:
    state = position(from_diagram(DIAGRAM_1, {"e5": "1", "g5": "2", "l1": "B"}))
    with pytest.raises(IllegalMoveError) as caught:
        state.submit(0, "1:ne 2:nw")
    assert str(caught.value) == (
        "illegal move '1:ne 2:nw': troops 1 and 2 would both stand on f6; "
        "one troop per piece after the moves (NEL-7)"
    )
    onto_holder = position(from_diagram(DIAGRAM_1, {"e5": "1", "f6": "2", "l1": "B"}))
    with pytest.raises(IllegalMoveError, match=r"'1:ne 2:hold'.*both stand on f6"):
        onto_holder.submit(0, "1:ne")


def test_nel7_a_swap_and_moving_onto_a_piece_left_the_same_turn_are_fine() -> None:
    state = position(from_diagram(DIAGRAM_1, {"e5": "1", "f6": "2", "l1": "B"}))
    swapped, _ = play(state, "1:ne 2:sw", None)
    assert (troop_at(swapped, "1"), troop_at(swapped, "2")) == ("f6", "e5")
    followed, _ = play(state, "1:ne 2:ne", None)
    assert (troop_at(followed, "1"), troop_at(followed, "2")) == ("f6", "g7")


def test_nel8_nel9_diagram_6_mutual_destruction_kills_both_troops() -> None:
    keepers = {"a1": "2", "l1": "B"}
    before = position(from_diagram(DIAGRAM_6, keepers))
    after, events = play(before, "1:xn", "A:xs")
    assert after.position() == from_diagram(DIAGRAM_6_AFTER, keepers, tail="6 0")
    assert troop_at(after, "1") is None and troop_at(after, "A") is None
    assert events == [
        "O troop 1 destroyed f7",
        "X troop A destroyed f6",
        "O troop 1 on f6 died",
        "X troop A on f7 died",
    ]


def test_nel9_a_troop_moving_onto_a_piece_destroyed_that_turn_dies() -> None:
    before = position(from_diagram(DIAGRAM_1, {"e5": "1", "f7": "A", "a1": "2", "l1": "B"}))
    after, events = play(before, "1:ne", "A:xs")
    assert troop_at(after, "1") is None and cell(after, "f6") == "."
    assert events == [
        "O troop 1 moved e5-f6",
        "X troop A destroyed f6",
        "O troop 1 on f6 died after moving there",
    ]


def test_nel8_a_troop_moving_off_a_piece_destroyed_that_turn_survives() -> None:
    before = position(from_diagram(DIAGRAM_1, {"f6": "1", "f7": "A", "l1": "B"}))
    after, _ = play(before, "1:ne", "A:xs")
    assert troop_at(after, "1") == "g7" and cell(after, "f6") == "."


def test_nel8_two_troops_destroying_one_piece_remove_it_once() -> None:
    before = position(from_diagram(DIAGRAM_1, {"e5": "1", "g5": "2", "l1": "B"}))
    after, events = play(before, "1:xe 2:xw", None)
    assert cell(after, "f5") == "." and events == ["O troops 1 and 2 destroyed f5"]


def test_nel9_a_dead_troop_takes_no_orders() -> None:
    after, _ = play(position(from_diagram(DIAGRAM_6, {"a1": "2", "l1": "B"})), "1:xn", "A:xs")
    with pytest.raises(IllegalMoveError, match=r"troop 1 is dead; living troops: 2 \(NEL-9\)"):
        after.parse(0, "1:ne")


def test_nel10_quiet_variant_takes_exactly_one_acting_troop() -> None:
    state = invaded(variant="quiet")
    assert state.parse(0, "1:ne") == Orders(0, ("ne", "hold", "hold", "hold", "hold"))
    with pytest.raises(IllegalMoveError, match=r"make 2 troops act.*\(NEL-10\)"):
        state.parse(0, "1:ne 2:xn")
    with pytest.raises(IllegalMoveError, match=r"make 0 troops act.*\(NEL-10\)"):
        state.parse(0, "hold")
    assert all(acting(orders) == 1 for orders in state.legal_actions(0))
    rng = random.Random(5)
    assert all(acting(state.random_action(1, rng)) == 1 for _ in range(20))
    assert acting(invaded().parse(0, "1:ne 2:xn")) == 2, "the wild variant lets all act"


def test_nel10_quiet_variant_accepts_hold_when_no_troop_can_act() -> None:
    # 1 and A have nothing to move onto or destroy; the a8/b8 pair keeps the game going.
    stranded = "xo....../......../......../......../......../......../......../1..A.... 4 0"
    state = position(stranded, size="8", variant="quiet")
    assert state.parse(0, "hold") == Orders.hold(0)
    assert state.examples(0) == ("hold",)


def test_nel10_quiet_variant_accepts_hold_when_every_single_order_would_stack() -> None:
    # Troop 2 could only move sw onto troop 1's square (NEL-7), troop 1 cannot act at all:
    # no single order is legal, so hold is listed and must also be read.
    cornered = "......Ao/......../......../......../......../......../.2....../1....... 3 0"
    state = position(cornered, size="8", variant="quiet")
    assert [state.format(orders) for orders in state.legal_actions(0)] == ["hold"]
    assert state.parse(0, "hold") == Orders.hold(0)
    assert state.examples(0) == ("hold",)


# -- control, end and score --------------------------------------------------------------


def test_nel11_nel12_uncontrolled_group_is_removed_after_resolution() -> None:
    board = "xoxoxoxo/oxoxoxox/xoxoxoxo/oxoxoxox/xoxoxoxo/oxoxoxox/xoxoxoxo/oA....1x"
    before = position(f"{board} 3 0", size="8")
    after, events = play(before, "1:xn", None)
    assert events == [
        "O troop 1 destroyed g2",
        "X group at h1 (1 piece) removed: no troop controls it (NEL-12)",
    ]
    assert cell(after, "h1") == "." and after.scores()[1] == 32 - 4


def test_nel12_a_side_without_troops_loses_all_its_territory() -> None:
    before = position(from_diagram(DIAGRAM_1, {"f6": "1", "f7": "A"}))
    after, events = play(before, "1:xn", None)
    assert "X group at b1 (71 pieces) removed: no troop controls it (NEL-12)" in events
    assert "x" not in after.pieces and after.is_over


def test_nel13_game_ends_when_no_x_piece_touches_an_o_piece() -> None:
    before = position(LONE_PAIR, size="8")
    assert not before.is_over
    after, events = play(before, "1:xe", "hold")
    assert after.outcome is not None and after.outcome.result == "1-0"
    assert after.outcome.termination is Termination.NO_CONTACT
    assert events[-1] == (
        "Game over: O 1 : X 0, no X piece touches an O piece, nothing can be destroyed "
        "(NEL-13, NEL-14)"
    )
    assert after.to_act == () and after.status().startswith("Game over: 1-0")


def test_nel13_game_ends_after_10_action_turns_without_destruction() -> None:
    state = invaded()
    state, _ = play(state, "1:ne", None)
    assert state.calm == 1 and not state.is_over
    state, _ = play(state, "1:xn", None)
    assert state.calm == 0
    nine = with_tail(state, "12 9")
    over, events = play(nine, None, None)
    assert over.calm == 10 and over.outcome is not None
    assert over.outcome.termination is Termination.NO_PROGRESS
    assert "10 action turns in a row without destruction" in events[-1]


def test_nel14_diagram_7_scores_x_22_o_30_and_is_over() -> None:
    state = position(from_diagram(DIAGRAM_7, tail="40 3"))
    assert state.scores() == (30, 22)
    assert not state.contact() and state.is_over
    assert state.outcome is not None and state.outcome.winners == (0,)
    assert state.outcome.reason.startswith("O 30 : X 22")
    assert state.outcome.termination is Termination.NO_CONTACT
    assert state.legal_actions(0) == () and state.to_act == ()


def test_nel14_equal_scores_draw() -> None:
    nine = with_tail(invaded(), "10 9")
    over, _ = play(nine, None, None)
    assert over.scores() == (72, 72) and over.outcome is not None and over.outcome.is_draw


# -- defaults ----------------------------------------------------------------------------


def test_nel15_missing_invasion_lands_sea_troops_on_the_rim_and_air_troops_centrally() -> None:
    state, _ = play(start(), None, None)
    assert [troop_at(state, label) for label in "12345ABCDE"] == [
        "a1",
        "c1",
        "e1",
        "f6",
        "g7",
        "b1",
        "d1",
        "f1",
        "g6",
        "f7",
    ]
    small = start(size="8", sea="5")
    assert small.format(small.default_action(0)) == "1:a1 2:c1 3:e1 4:g1 5:h2"
    assert small.format(small.default_action(1)) == "A:b1 B:d1 C:f1 D:h1 E:h3"
    assert start(sea="0").format(start(sea="0").default_action(0)) == "1:f6 2:g7 3:g5 4:h6 5:e7"


def test_nel15_missing_action_orders_hold_every_troop() -> None:
    state = invaded()
    _, events = play(state.submit(1, "A:xn"), None, None)
    assert events == ["X troop A destroyed a9", "O troop 1 on a9 died"]
    assert state.default_action(0) == Orders.hold(0)


# -- notation ----------------------------------------------------------------------------


def test_nel17_colon_optional_dash_holds_and_omitted_troops_hold() -> None:
    state = invaded()
    expected = state.parse(0, "1:ne 2:xn")
    assert state.parse(0, "1ne 2xn 3:-") == expected
    assert state.parse(0, "1 : NE, 2 xn; 4-\n5:hold") == expected
    assert state.format(expected) == "1:ne 2:xn"
    assert state.parse(0, "-") == state.parse(0, "hold") == Orders.hold(0)
    assert state.format(Orders.hold(1)) == "hold"


def test_nel16_invasion_notation_reads_with_or_without_colon() -> None:
    state = start()
    placement = state.parse(1, "A:a8 B:f1 C:l7 D:g6 E:c10")
    assert state.parse(1, "aa8 2f1 c:L7, d g6; 5:c10") == placement
    assert state.format(placement) == "A:a8 B:f1 C:l7 D:g6 E:c10"


def test_nel17_syntax_errors_quote_the_input_and_say_why() -> None:
    state = invaded()
    with pytest.raises(NotationError) as caught:
        state.parse(0, "1:ne 2:up")
    assert str(caught.value) == (
        "cannot read '2:up': 'up' is not an order; orders are hold (or -), a move ne, nw, "
        "se, sw or a destroy xn, xe, xs, xw (NEL-17)"
    )
    with pytest.raises(NotationError, match=r"cannot read '3:': troop and what it does"):
        state.parse(0, "3:")
    with pytest.raises(NotationError, match=r"no orders found. Valid here: hold"):
        state.parse(0, "  ")
    with pytest.raises(NotationError, match=r"cannot read '1:m1': 'm1' is off the board"):
        start().parse(0, "1:m1 2:e1 3:i1 4:f6 5:h8")
    with pytest.raises(NotationError, match=r"'zz' is not a square"):
        start().parse(0, "1:zz")


def test_nel18_position_string_round_trips() -> None:
    for state in (start(), invaded(), position(from_diagram(DIAGRAM_7, tail="40 3"))):
        text = state.position()
        assert state.game.parse_position(text) == state
        assert state.game.parse_position(text).position() == text
    troops = dict(zip(INVADED[0].split() + INVADED[1].split(), "12345ABCDE", strict=True))
    landed = {order.split(":")[1]: label for order, label in troops.items()}
    assert invaded().position() == from_diagram(DIAGRAM_1, landed, tail="1 0")
    assert invaded().position().endswith("/oxox2Box3xox 1 0")


def test_nel18_bad_positions_are_explained() -> None:
    nelaxtam = new_game("nelaxtam")
    good = invaded().position()
    with pytest.raises(PositionError, match=r"12 rows of 12 cells"):
        nelaxtam.parse_position(LONE_PAIR)
    with pytest.raises(PositionError, match=r"a1 is an O cell; 'A' cannot stand there"):
        nelaxtam.parse_position(good[: good.index("oxox2B")] + "Axox2Box3xox 1 0")
    with pytest.raises(PositionError, match=r"\(NEL-13\)"):
        nelaxtam.parse_position(good.replace(" 1 0", " 1 1"))
    with pytest.raises(PositionError, match=r"board is untouched and holds no troops \(NEL-5\)"):
        nelaxtam.parse_position(good.replace(" 1 0", " invasion 0"))
    with pytest.raises(PositionError, match=r"neither 'invasion' nor"):
        nelaxtam.parse_position(good.replace(" 1 0", " zero 0"))


def test_pending_orders_survive_the_json_round_trip() -> None:
    for state in (start().submit(0, INVADED[0]), invaded().submit(1, "B:xn")):
        assert state_from_json(json.loads(json.dumps(state.to_json()))) == state


# -- secrecy -----------------------------------------------------------------------------


@pytest.mark.parametrize("phase", ["invasion", "action"])
def test_nel5_c4_pending_orders_never_show_in_another_view(phase: str) -> None:
    base = start() if phase == "invasion" else invaded()
    if phase == "invasion":
        first = ("1:a1 2:c1 3:e1 4:f6 5:g7", "A:b1 B:d1 C:f1 D:g6 E:f7")
        second = INVADED
    else:
        first, second = ("1:ne 2:xn", "B:xn"), ("4:xe", "D:xw C:nw")
    for o, x in (first, second):
        sealed = base.submit(0, o).submit(1, x)
        for viewer in (0, 1, None):
            view, plain = sealed.view(viewer), base.view(viewer)
            assert view.submitted == (0, 1)
            if viewer is None:
                assert view.own_orders is None
            else:
                own = (o, x)[viewer]
                assert view.own_orders == base.format(base.parse(viewer, own))
            assert dataclasses.replace(view, submitted=(), own_orders=None) == plain
            assert view.position == base.position()


def test_invasion_views_show_no_troops_until_both_have_placed() -> None:
    sealed = start().submit(0, INVADED[0])
    for viewer in (0, 1, None):
        view = sealed.view(viewer)
        rows = view.ascii.splitlines()[2:-2]
        assert not any(char in "12345ABCDE" for row in rows for char in row.split("|")[1])
        assert all(c.text == "" for row in view.grid.rows for c in row)


# -- choices and pictures ----------------------------------------------------------------


def test_random_actions_are_legal_and_examples_read() -> None:
    rng = random.Random(3)
    state = invaded()
    legal = set(state.legal_actions(0))
    assert len(legal) == len(state.legal_actions(0))
    for _ in range(30):
        assert state.random_action(0, rng) in legal
    for seat in (0, 1):
        for text in state.examples(seat):
            state.parse(seat, text)
        for text in start().examples(seat):
            start().parse(seat, text)


def test_grid_titles_and_styles_name_territory_and_troops() -> None:
    state = invaded()
    squares = {c.square: c for row in state.grid().rows for c in row}
    assert squares["g6"].title == "g6: X territory, X troop D"
    assert (squares["g6"].text, squares["g6"].style) == ("D", "x")
    assert squares["a1"].title == "a1: O territory" and squares["a1"].style == "o"
    after, _ = play(state, "2:xe", None)
    f1 = {c.square: c for row in after.grid().rows for c in row}["f1"]
    assert (f1.style, f1.title) == ("destroyed", "f1: destroyed")


# -- command line ------------------------------------------------------------------------


def test_cli_show_prints_the_board_and_position() -> None:
    result = CliRunner().invoke(main, ["engine", "show", "nelaxtam", "-o", "size=8"])
    assert result.exit_code == 0, result.output
    assert "Turn 1 (invasion): placements due from O and X" in result.output
    assert "Position: xoxoxoxo/oxoxoxox/" in result.output
    assert " 8 | x o x o x o x o | 8" in result.output


def test_cli_resolve_prints_events_and_the_new_position() -> None:
    pos = from_diagram(DIAGRAM_6, {"a1": "2", "l1": "B"})
    args = ["engine", "resolve", "nelaxtam", "--position", pos, "--orders", "o=1:xn"]
    result = CliRunner().invoke(main, [*args, "--orders", "x=a xs"])
    assert result.exit_code == 0, result.output
    assert "- O troop 1 destroyed f7\n- X troop A destroyed f6\n" in result.output
    expected = from_diagram(DIAGRAM_6_AFTER, {"a1": "2", "l1": "B"}, tail="6 0")
    assert f"Position: {expected}" in result.output
    refused = CliRunner().invoke(main, [*args, "--orders", "x=A:up"])
    assert refused.exit_code == 2
    assert "error: cannot read 'A:up': 'up' is not an order" in refused.stderr
