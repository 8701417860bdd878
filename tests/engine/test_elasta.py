"""Elasta, rule by rule (shared/rules/elasta.md, ELA-1..ELA-15)."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from engine import (
    Event,
    GameOverError,
    NotationError,
    OptionError,
    PositionError,
    Termination,
    new_game,
)
from engine.games.elasta import (
    Elasta,
    ElastaState,
    contract,
    is_contracted,
    read_orders,
    rubber_band_pass,
)
from engine.registry import state_from_json
from service.cli import main

DIAGRAM_WHITE = "a0 b1 c4 d7 e2 f6 g5 h3"  # White's turn-2 chips under Diagram 3
DIAGRAM_BLACK = "62407135"  # one Black assignment consistent with Diagram 4
BEFORE_DIAGRAM_4 = "33453443 2 0"  # a turn-1 result from which those chips give Diagram 4


def at(position: str) -> ElastaState:
    return Elasta().parse_position(position)


def resolve(state: ElastaState) -> tuple[ElastaState, tuple[Event, ...]]:
    resolution = state.resolve()
    assert isinstance(resolution.state, ElastaState)
    return resolution.state, resolution.events


def play(state: ElastaState, white: str | None, black: str | None) -> ElastaState:
    """One turn; ``None`` leaves that player without orders (ELA-12)."""
    if white is not None:
        state = state.submit(0, white)
    if black is not None:
        state = state.submit(1, black)
    return resolve(state)[0]


def heights(text: str) -> tuple[int, ...]:
    return tuple(int(height) for height in text.split())


def contracted_heights() -> st.SearchStrategy[tuple[int, ...]]:
    """Non-final positions after contraction: sticks 1..7, neighbours at most 2 apart."""

    def walk(start: int, steps: list[int]) -> tuple[int, ...]:
        line = [start]
        for step in steps:
            line.append(min(7, max(1, line[-1] + step)))
        return tuple(line)

    steps = st.lists(st.integers(-2, 2), min_size=7, max_size=7)
    return st.builds(walk, st.integers(1, 7), steps)


assignments = st.permutations(range(8)).map(tuple)


# -- board and pieces (ELA-1..ELA-4) --------------------------------------------------------


def test_ela1_to_ela3_the_game_starts_with_every_stick_between_ranks_4_and_5() -> None:
    game = new_game("elasta")
    assert (game.title, game.seat_names, game.players) == ("Elasta", ("White", "Black"), 2)
    state = game.initial_state()
    assert isinstance(state, ElastaState)
    assert state.heights == (4,) * 8
    assert state.position() == "44444444 1 0"
    assert state.to_act == (0, 1)
    assert state.simultaneous


def test_ela4_ela5_every_assignment_of_the_eight_chips_is_legal() -> None:
    state = Elasta().initial_state()
    actions = state.legal_actions(0)
    assert len(actions) == 40320
    assert len(set(actions)) == 40320
    assert all(sorted(action) == list(range(8)) for action in actions[::997])


def test_ela5_random_orders_are_assignments_and_examples_read() -> None:
    state = Elasta().initial_state()
    rng = random.Random(7)
    for _ in range(20):
        assert sorted(state.random_action(1, rng)) == list(range(8))
    examples = state.examples(0)
    assert examples[0] == "01234567"
    assert all(len(state.parse(0, text)) == 8 for text in examples)


def test_ela15_the_token_variant_has_no_option() -> None:
    assert Elasta.OPTIONS == {}
    with pytest.raises(OptionError, match="Elasta has no option 'tokens'"):
        Elasta({"tokens": "40"})


# -- a turn (ELA-6..ELA-9) ------------------------------------------------------------------


def test_ela6_a_won_file_moves_its_stick_exactly_one_square_whatever_the_difference() -> None:
    after = play(Elasta().initial_state(), "01234567", "76543210")
    # a: 0 v 7 and d: 3 v 4 both move one square down; e: 4 v 3 and h: 7 v 0 one square up
    assert after.heights == (3, 3, 3, 3, 5, 5, 5, 5)


def test_ela6_equal_chips_leave_the_stick_where_it_was() -> None:
    after, events = resolve(Elasta().initial_state().submit(0, "01234567").submit(1, "01234567"))
    assert after.heights == (4,) * 8
    assert "file c: White 2 ties Black 2, the stick stays at 4" in [event.text for event in events]


def test_ela6_ela7_diagrams_4_and_5_from_whites_turn_2_chips() -> None:
    """Diagram 4 (pushes) 2 2 4 6 2 5 5 2, Diagram 5 (contracted) 2 2 4 5 3 4 4 3."""
    state = at(BEFORE_DIAGRAM_4).submit(0, DIAGRAM_WHITE).submit(1, DIAGRAM_BLACK)
    after, events = resolve(state)
    texts = [event.text for event in events]
    assert texts == [
        "turn 2 chips revealed (files a..h): White 01472653, Black 62407135",
        "file a: Black 6 beats White 0, the stick moves down to 2",
        "file b: Black 2 beats White 1, the stick moves down to 2",
        "file c: White 4 ties Black 4, the stick stays at 4",
        "file d: White 7 beats Black 0, the stick moves up to 6",
        "file e: Black 7 beats White 2, the stick moves down to 2",
        "file f: White 6 beats Black 1, the stick moves up to 5",
        "file g: White 5 beats Black 3, the stick moves up to 5",
        "file h: Black 5 beats White 3, the stick moves down to 2",
        "rubber band pass 1, stretched at d-e (4), e-f (3), g-h (3): "
        "d down to 5, e up to 3, f down to 4, g down to 4, h up to 3",
        "battle line now: a2 b2 c4 d5 e3 f4 g4 h3",
    ]
    pushed = tuple(int(text.split()[-1]) for text in texts[1:9])
    assert pushed == heights("2 2 4 6 2 5 5 2")
    assert after.heights == heights("2 2 4 5 3 4 4 3")
    assert after.position() == "22453443 3 0"


def test_ela7_contraction_of_the_diagram_4_vector_is_one_pass() -> None:
    assert contract(heights("2 2 4 6 2 5 5 2")) == (heights("2 2 4 5 3 4 4 3"),)


def test_ela7_a_gap_of_3_becomes_1_and_a_gap_of_4_becomes_2() -> None:
    assert rubber_band_pass((4, 7)) == (5, 6)
    assert rubber_band_pass((8, 4)) == (7, 5)


def test_ela7_same_direction_pulls_count_once() -> None:
    """Diagram 5: e is pulled up by both d and f but moves one square."""
    assert rubber_band_pass((5, 2, 5)) == (4, 3, 4)


def test_ela7_opposite_pulls_cancel() -> None:
    assert rubber_band_pass((1, 4, 7)) == (2, 4, 6)
    after, events = resolve(at("14744444 4 0").submit(0, "01234567").submit(1, "01234567"))
    assert after.heights == (2, 4, 6, 5, 4, 4, 4, 4)
    passes = [event.text for event in events if event.kind == "contract"]
    assert passes == [
        "rubber band pass 1, stretched at a-b (3), b-c (3), c-d (3): "
        "a up to 2, c down to 6, d up to 5; file b held (pulled both ways)"
    ]


def test_ela8_contraction_repeats_until_no_gap_exceeds_2() -> None:
    assert contract(heights("6 2 3 4 1 4 6 6")) == (
        heights("5 3 3 3 2 3 6 6"),
        heights("5 3 3 3 2 4 5 6"),
    )


def test_ela8_each_pass_is_narrated() -> None:
    after, events = resolve(at("62341466 5 0").submit(0, "01234567").submit(1, "01234567"))
    passes = [event.text for event in events if event.kind == "contract"]
    assert passes == [
        "rubber band pass 1, stretched at a-b (4), d-e (3), e-f (3): "
        "a down to 5, b up to 3, d down to 3, e up to 2, f down to 3",
        "rubber band pass 2, stretched at f-g (3): f up to 4, g down to 5",
    ]
    assert after.heights == heights("5 3 3 3 2 4 5 6")


@given(st.tuples(*[st.integers(0, 8)] * 8))
def test_ela7_ela8_contraction_ends_with_no_gap_over_2_moving_a_stick_one_square_a_pass(
    start: tuple[int, ...],
) -> None:
    passes = contract(start)
    assert is_contracted(passes[-1] if passes else start)
    for before, after in zip((start, *passes), passes, strict=False):
        assert before != after
        assert all(abs(new - old) <= 1 for old, new in zip(before, after, strict=True))
        assert all(0 <= height <= 8 for height in after)


@given(contracted_heights(), assignments, assignments)
def test_ela6_to_ela8_after_any_turn_no_neighbouring_gap_exceeds_2(
    line: tuple[int, ...], white: tuple[int, ...], black: tuple[int, ...]
) -> None:
    state = ElastaState(Elasta(), line, turn=5)
    after = resolve(state.submit(0, white).submit(1, black))[0]
    assert is_contracted(after.heights)
    assert all(0 <= height <= 8 for height in after.heights)
    assert after.previous == (white, black)


def test_ela9_chips_are_picked_up_and_every_assignment_is_legal_again() -> None:
    after = play(Elasta().initial_state(), "01234567", "76543210")
    assert len(after.legal_actions(0)) == 40320
    assert after.parse(0, "01234567") == (0, 1, 2, 3, 4, 5, 6, 7)


# -- end (ELA-10, ELA-11) -------------------------------------------------------------------


def test_ela10_white_wins_when_a_stick_reaches_h8() -> None:
    after = play(at("44456765 5 0"), "01234567", "51234067")
    assert after.heights == (3, 4, 4, 5, 6, 8, 6, 5)
    assert after.outcome is not None
    assert after.outcome.result == "1-0"
    assert "file f" in after.outcome.reason and "ELA-10" in after.outcome.reason
    assert after.outcome.termination is Termination.GOAL
    assert after.to_act == ()


def test_ela10_black_wins_when_a_stick_reaches_h0() -> None:
    after, events = resolve(at("44432123 5 0").submit(0, "51234067").submit(1, "01234567"))
    assert after.heights == (5, 4, 4, 3, 2, 0, 2, 3)
    assert after.outcome is not None
    assert after.outcome.result == "0-1"
    assert events[-1].kind == "end"
    assert after.outcome.termination is Termination.GOAL


def test_ela10_a_stick_pushed_to_the_edge_and_pulled_back_does_not_win() -> None:
    after, events = resolve(at("44557554 5 0").submit(0, "01234567").submit(1, "41230567"))
    pushes = [event.text for event in events if event.kind == "push"]
    assert "file e: White 4 beats Black 0, the stick moves up to 8" in pushes
    assert after.heights == (3, 4, 5, 6, 7, 6, 5, 4)
    assert after.outcome is None


def test_ela10_both_ground_lines_in_one_turn_is_a_draw() -> None:
    after = play(at("77642111 5 0"), "12345670", "02345671")
    assert after.heights == (8, 7, 6, 4, 2, 1, 1, 0)
    assert after.outcome is not None
    assert after.outcome.is_draw
    assert "both ground lines" in after.outcome.reason
    assert after.outcome.termination is Termination.GOAL


def test_ela11_ten_consecutive_unchanged_turns_draw() -> None:
    state = Elasta().initial_state()
    for turn in range(1, 11):
        assert state.outcome is None
        state = play(state, "01234567", "01234567")
        assert state.unchanged == turn
    assert state.position() == "44444444 11 10"
    assert state.outcome is not None
    assert state.outcome.is_draw
    assert "ELA-11" in state.outcome.reason
    assert state.outcome.termination is Termination.NO_PROGRESS


def test_ela11_a_moved_stick_resets_the_count() -> None:
    after = play(at("44444444 12 9"), "10234567", "01234567")
    assert after.position() == "53444444 13 0"
    assert play(at("44444444 12 9"), None, None).outcome is not None


def test_orders_after_the_end_are_refused() -> None:
    over = at("84444444 9 0")
    assert over.legal_actions(0) == ()
    with pytest.raises(GameOverError, match="game over"):
        over.parse(0, "01234567")
    with pytest.raises(GameOverError):
        over.submit(1, "01234567")
    with pytest.raises(GameOverError):
        over.resolve()


# -- default orders (ELA-12) ----------------------------------------------------------------


def test_ela12_the_first_turn_default_is_01234567() -> None:
    state = Elasta().initial_state()
    assert state.default_action(0) == state.default_action(1) == (0, 1, 2, 3, 4, 5, 6, 7)
    after = play(state.submit(1, "76543210"), None, None)
    assert after.heights == (3, 3, 3, 3, 5, 5, 5, 5)
    assert after.previous == ((0, 1, 2, 3, 4, 5, 6, 7), (7, 6, 5, 4, 3, 2, 1, 0))


def test_ela12_a_player_without_orders_repeats_the_last_assignment() -> None:
    first = play(Elasta().initial_state(), "10234567", "01234567")
    assert first.heights == (5, 3, 4, 4, 4, 4, 4, 4)
    restored = state_from_json(json.loads(json.dumps(first.to_json())))
    assert isinstance(restored, ElastaState)
    assert restored.default_action(0) == (1, 0, 2, 3, 4, 5, 6, 7)
    second = play(restored, None, "01234576")
    # a: White's repeated 1 beats 0 again, up to 6, then the rubber band pulls a-b (6-2) to 5-3
    assert second.heights == (5, 3, 4, 4, 4, 4, 3, 5)
    assert second.previous == ((1, 0, 2, 3, 4, 5, 6, 7), (0, 1, 2, 3, 4, 5, 7, 6))
    assert "Default orders if none arrive (ELA-12): White 10234567, Black 01234576" in (
        second.info()
    )


def test_ela12_a_position_string_carries_no_assignments_so_the_default_is_01234567() -> None:
    first = play(Elasta().initial_state(), "10234567", "01234567")
    assert at(first.position()).default_action(0) == (0, 1, 2, 3, 4, 5, 6, 7)


# -- notation (ELA-13, ELA-14) --------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "01472653",
        "0 1 4 7 2 6 5 3",
        "0147 2653",
        "a0 b1 c4 d7 e2 f6 g5 h3",
        "h3 g5 f6 e2 d7 c4 b1 a0",
        "A0 B1 C4 D7 E2 F6 G5 H3",
        "a0,b1;c4\nd7 e2 f6 g5 h3",
        "a0b1c4d7e2f6g5h3",
    ],
)
def test_ela13_both_forms_of_orders_read(text: str) -> None:
    state = Elasta().initial_state()
    assert state.parse(0, text) == (0, 1, 4, 7, 2, 6, 5, 3)
    assert state.format(state.parse(0, text)) == "01472653"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "0123456",
            "cannot read '0123456': 7 chips given, but each of the 8 files a..h needs one; "
            "chip 7 is missing; each chip 0-7 is used exactly once (ELA-13)",
        ),
        (
            "012345670",
            "cannot read '012345670': 9 chips given, but each of the 8 files a..h needs one; "
            "chip 0 is given twice; each chip 0-7 is used exactly once (ELA-13)",
        ),
        (
            "01234566",
            "cannot read '01234566': chip 6 is given twice and chip 7 is missing; "
            "each chip 0-7 is used exactly once (ELA-13)",
        ),
        (
            "00112345",
            "cannot read '00112345': chips 0 and 1 are given twice and chips 6 and 7 are "
            "missing; each chip 0-7 is used exactly once (ELA-13)",
        ),
        (
            "01234568",
            "cannot read '01234568': there is no chip 8: chips are numbered 0 to 7 (ELA-13)",
        ),
        (
            "0 1 2 3 4 5 6 9",
            "cannot read '0 1 2 3 4 5 6 9': there is no chip 9: chips are numbered 0 to 7 (ELA-13)",
        ),
        (
            "0123-4567",
            "cannot read '0123-4567': '-' is not a chip number; write eight chips for files "
            "a..h like 01472653, or file+chip pairs like a0 b1 c4 d7 ... (ELA-13)",
        ),
        (
            "a0 b1 c4 d7 e2 f6 g5",
            "cannot read 'a0 b1 c4 d7 e2 f6 g5': file h has no chip (ELA-13)",
        ),
        (
            "a0 b1 c4 d7 e2",
            "cannot read 'a0 b1 c4 d7 e2': files f, g and h have no chip (ELA-13)",
        ),
        (
            "a0 b1 c4 d7 e2 f6 g5 a3",
            "cannot read 'a0 b1 c4 d7 e2 f6 g5 a3': file a is given twice; file h has no chip "
            "(ELA-13)",
        ),
        (
            "a0 b1 c4 d7 e2 f6 g5 h5",
            "cannot read 'a0 b1 c4 d7 e2 f6 g5 h5': chip 5 is given twice and chip 3 is "
            "missing; each chip 0-7 is used exactly once (ELA-13)",
        ),
        (
            "a0 b1 c4 d7 e2 f6 g5 i3",
            "cannot read 'a0 b1 c4 d7 e2 f6 g5 i3': there is no file i: files run a to h (ELA-13)",
        ),
        (
            "a0 b1 c4 d7 e2 f6 g5 h8",
            "cannot read 'a0 b1 c4 d7 e2 f6 g5 h8': there is no chip 8: chips are numbered "
            "0 to 7 (ELA-13)",
        ),
        (
            "a0 b1 c4 d7 e2 f6 g5 h",
            "cannot read 'a0 b1 c4 d7 e2 f6 g5 h': 'h' is not a file letter a-h followed by "
            "a chip 0-7, like c4 (ELA-13)",
        ),
        (
            "01234567 extra",
            "cannot read '01234567 extra': 'extra' is not a chip number; write eight chips for "
            "files a..h like 01472653, or file+chip pairs like a0 b1 c4 d7 ... (ELA-13)",
        ),
        (
            "extra 01234567",
            "cannot read 'extra 01234567': 'extra' is not a file letter a-h followed by "
            "a chip 0-7, like c4 (ELA-13)",
        ),
        (
            "  ",
            "cannot read '  ': no orders found: write eight chips for files a..h like "
            "01472653, or file+chip pairs like a0 b1 c4 d7 ... (ELA-13)",
        ),
    ],
)
def test_ela13_syntax_errors_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(NotationError) as caught:
        Elasta().initial_state().submit(0, text)
    assert str(caught.value) == message


@given(assignments)
def test_ela13_format_and_parse_round_trip(assignment: tuple[int, ...]) -> None:
    state = Elasta().initial_state()
    assert state.parse(1, state.format(assignment)) == assignment
    pairs = " ".join(f"{file}{chip}" for file, chip in zip("abcdefgh", assignment, strict=True))
    assert read_orders(pairs) == assignment


@given(
    st.tuples(*[st.integers(0, 8)] * 8),
    st.integers(1, 500),
    st.integers(0, 10),
)
def test_ela14_position_strings_round_trip(
    line: tuple[int, ...], turn: int, unchanged: int
) -> None:
    unchanged = min(unchanged, turn - 1)
    text = f"{''.join(map(str, line))} {turn} {unchanged}"
    state = at(text)
    assert (state.heights, state.turn, state.unchanged) == (line, turn, unchanged)
    assert state.position() == text


def test_ela14_the_rule_book_example_and_spaced_heights_read() -> None:
    assert at("44444444 1 0") == Elasta().initial_state()
    assert at("2 2 4 6 2 5 5 2 3 0").position() == "22462552 3 0"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("44444444 1", "the turn number and the unchanged count"),
        ("4444444 1 0", "'4444444' is not eight heights"),
        ("4444444x 1 0", "'4444444x' is not eight heights"),
        ("44444449 1 0", "height 9 is off the board: a stick stands at 0 to 8 (ELA-2)"),
        ("44444444 0 0", "the turn number '0' must be a whole number from 1"),
        ("44444444 3 3", "the unchanged-turn count '3' must be 0 to 2 on turn 3 (ELA-11)"),
        ("44444444 30 11", "must be 0 to 10 on turn 30"),
    ],
)
def test_ela14_bad_position_strings_are_explained(text: str, reason: str) -> None:
    with pytest.raises(PositionError, match="bad position") as caught:
        at(text)
    assert reason in str(caught.value)


def test_json_round_trip_keeps_last_assignments_and_pending_orders() -> None:
    state = play(at(BEFORE_DIAGRAM_4), DIAGRAM_WHITE, DIAGRAM_BLACK).submit(1, "76543210")
    data = json.loads(json.dumps(state.to_json()))
    assert data["position"] == "22453443 3 0"
    assert data["previous"] == ["01472653", "62407135"]
    assert state_from_json(data) == state


def test_stored_states_that_do_not_read_are_refused() -> None:
    data = Elasta().initial_state().to_json()
    with pytest.raises(PositionError, match="lacks 'previous'"):
        Elasta().state_from_json({key: data[key] for key in ("position", "pending")})
    with pytest.raises(PositionError, match="stored last orders do not read"):
        Elasta().state_from_json({**data, "previous": ["01234567"]})


# -- secrecy (C-4) and views ----------------------------------------------------------------


def test_c4_pending_orders_are_seen_by_their_author_only() -> None:
    start = play(Elasta().initial_state(), "01234567", "76543210")
    secret, other = "35172064", "64201357"
    state = start.submit(0, secret)
    assert state.view(0).own_orders == secret
    assert state.status() == "Turn 2: White has sent orders, waiting for Black"
    for viewer in (1, None):
        view = state.view(viewer)
        assert view.own_orders is None
        assert view.submitted == (0,)
        assert view == start.submit(0, other).view(viewer)
        shown = json.dumps(view.to_json())
        assert secret not in shown
        assert "a3 b5 c1 d7 e2 f0 g6 h4" not in shown
    both = state.submit(1, other)
    assert both.view(1).own_orders == other
    assert both.view(0).own_orders == secret
    assert both.view(None).own_orders is None
    assert both.view(None).submitted == (0, 1)


def test_the_last_turns_chips_are_public_after_resolution() -> None:
    after = play(Elasta().initial_state(), "01234567", "76543210")
    for viewer in (0, 1, None):
        info = after.view(viewer).info
        assert "  White           0  1  2  3  4  5  6  7" in info
        assert "  Black           7  6  5  4  3  2  1  0" in info


def test_ascii_shows_both_sides_and_the_battle_line_within_80_columns() -> None:
    picture = at("22462552 3 0").ascii()
    lines = picture.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert lines[1].split() == list("abcdefgh") == lines[-3].split()
    rank_rows = [line for line in lines if line.strip()[:1].isdigit()]
    assert [row.split()[0] for row in rank_rows] == list("87654321")
    assert [row.split()[-1] for row in rank_rows] == list("87654321")
    rank_6 = rank_rows[2].split("|")[1].split()
    assert rank_6 == ["#", "#", "#", ".", "#", "#", "#", "#"]
    border_below_rank_3 = lines[lines.index(rank_rows[5]) + 1]
    assert border_below_rank_3 == "      | === ===         ===         === |"
    assert "=== battle line" in lines[-1]


def test_grid_marks_each_side_and_names_the_stick() -> None:
    grid = at("22462552 3 0").grid()
    cells = {cell.square: cell for row in grid.rows for cell in row}
    assert len(cells) == 64
    assert cells["d6"].style == "white-side"
    assert cells["d7"].style == "black-side"
    assert cells["d7"].title == "d7: Black's side; stick d at 6, between d6 and d7"
    assert grid.ranks[0] == "8"
    assert dict(grid.legend)["white-side"].startswith("White's side")


# -- the command line -----------------------------------------------------------------------


def test_cli_show_prints_the_board_and_position() -> None:
    result = CliRunner().invoke(main, ["engine", "show", "elasta", "--position", "22462552 3 0"])
    assert result.exit_code == 0, result.output
    assert "    6 |  #   #   #   .   #   #   #   #  | 6" in result.output
    assert "Battle line (ranks on White's side): a2 b2 c4 d6 e2 f5 g5 h2" in result.output
    assert "Position: 22462552 3 0" in result.output


def test_cli_resolve_prints_the_events_and_the_new_position() -> None:
    args = ["engine", "resolve", "elasta", "--position", "44444444 1 0"]
    args += ["--orders", "white=01234567", "--orders", "black=76543210"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "- file a: Black 7 beats White 0, the stick moves down to 3" in result.output
    assert "- file h: White 7 beats Black 0, the stick moves up to 5" in result.output
    assert "- battle line now: a3 b3 c3 d3 e5 f5 g5 h5" in result.output
    assert "Position: 33335555 2 0" in result.output


def test_cli_resolve_reports_bad_orders() -> None:
    args = ["engine", "resolve", "elasta", "--orders", "white=0123456"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert "7 chips given" in result.output
