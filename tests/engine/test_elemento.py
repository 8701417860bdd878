"""Elemento, rule by rule (shared/rules/elemento.md, ELE-1..ELE-19)."""

from __future__ import annotations

import json
import random

import pytest

from engine import (
    IllegalMoveError,
    NotationError,
    PositionError,
    State,
    Termination,
    new_game,
    state_from_json,
)
from engine.games.elemento import ElementoState, Move, Placement
from engine.perft import perft

ROLLS = ("G+R", "G+B", "Y+R", "Y+B")
# Light cannot place (its fire and water are blocked); its one legal action is the move d1-c1.
MOVE_ONLY = "f.AE/wA.F/.wf./aE.W FW/eea 0-1 L Y+B 0 0"
# Green and red are full and nothing there can move: with G+R or G+B both players pass.
BLOCKED = "FW../EAFW/wfAe/aewf E/a {scores} L ? {passes} 0"
# a1 empty; rank 1 and file a each hold three stones of both colours.
CROSS = "F.../E.../w.../.eWf FWEAA/fweaa 0-0 L G+R 0 0"


def elemento(players: int = 2, dice: str = "rolled") -> ElementoState:
    state = new_game("elemento", {"dice": dice}, players).initial_state()
    assert isinstance(state, ElementoState)
    return state


def position(text: str, players: int = 2, dice: str = "rolled") -> ElementoState:
    state = new_game("elemento", {"dice": dice}, players).parse_position(text)
    assert isinstance(state, ElementoState)
    return state


def texts(state: State, seat: int) -> list[str]:
    return [state.format(action) for action in state.legal_actions(seat)]


def play(state: State, text: str) -> tuple[ElementoState, list[str]]:
    resolution = state.play(state.to_act[0], text)
    assert isinstance(resolution.state, ElementoState)
    return resolution.state, [event.text for event in resolution.events]


# -- board, stones, dice ---------------------------------------------------------------------


def test_ele1_decided_quadrant_layout_green_yellow_top_red_blue_bottom() -> None:
    rows = elemento().grid().rows
    styles = {cell.square: cell.style for row in rows for cell in row}
    assert [styles[s] for s in ("a4", "b3", "c4", "d3", "a1", "b2", "c1", "d2")] == [
        "green", "green", "yellow", "yellow", "red", "red", "blue", "blue",
    ]  # fmt: skip
    assert rows[0][0].title == "a4: green, empty"


def test_ele1_placements_go_only_to_the_rolled_quadrants() -> None:
    state = elemento().apply_chance("Y+B").state
    squares = {text.split("@")[1] for text in texts(state, 0)}
    assert squares == {"c3", "d3", "c4", "d4", "c1", "d1", "c2", "d2"}


def test_ele2_each_player_starts_with_two_stones_of_each_element() -> None:
    state = elemento()
    assert (state.supply(0), state.supply(1)) == ("FFWWEEAA", "ffwweeaa")
    assert "Supply: Light FFWWEEAA, Dark ffwweeaa" in state.info()


def test_ele3_a_roll_is_one_of_four_equally_likely_colour_pairs() -> None:
    state = elemento()
    assert state.to_act == ()
    assert state.chance_outcomes() == ROLLS
    resolution = state.apply_chance("G+R")
    assert [(e.text, e.kind, e.seat) for e in resolution.events] == [("rolled G+R", "roll", 0)]
    with pytest.raises(IllegalMoveError, match="not a possible outcome"):
        state.apply_chance("G+Y")


def test_ele4_the_constraint_names_the_line_and_quadrant_holding_the_element() -> None:
    state = elemento().apply_chance("G+R").state
    state, _ = play(state, "E@a4")
    state = state.apply_chance("G+R").state
    with pytest.raises(IllegalMoveError) as caught:
        state.play(1, "E@b3")
    assert str(caught.value) == (
        "illegal move 'E@b3': the green quadrant (a4) already holds earth (ELE-4)"
    )
    with pytest.raises(IllegalMoveError, match=r"file a \(a4\) already holds earth \(ELE-4\)"):
        state.play(1, "E@a1")


def test_ele4_a_stone_of_either_colour_counts_for_the_constraint() -> None:
    state = position(MOVE_ONLY)
    with pytest.raises(IllegalMoveError) as caught:
        state.play(0, "F@c3")
    assert "rank 3 (d3), file c (c2) and the yellow quadrant (d3) already hold fire" in str(
        caught.value
    )


# -- two players -----------------------------------------------------------------------------


def test_ele5_light_starts_and_dark_follows() -> None:
    state = elemento()
    assert state.game.seat_names == ("Light", "Dark")
    state = state.apply_chance("G+R").state
    assert state.to_act == (0,)
    state, _ = play(state, "E@a4")
    assert state.status() == "Waiting for the dice of Dark"
    assert state.apply_chance("Y+B").state.to_act == (1,)


def test_ele6_vector_opening_roll_g_r_has_32_placements() -> None:
    state = elemento().apply_chance("G+R").state
    actions = state.legal_actions(0)
    assert len(actions) == 32
    assert all(isinstance(action, Placement) and action.stone.isupper() for action in actions)
    assert perft(state, 1) == 32


def test_ele6_placing_on_a_colour_not_rolled_is_refused() -> None:
    state = elemento().apply_chance("G+R").state
    with pytest.raises(IllegalMoveError) as caught:
        state.play(0, "E@c4")
    assert str(caught.value) == (
        "illegal move 'E@c4': c4 is yellow but the dice show G+R: "
        "place on a green or red square (ELE-6)"
    )


def test_ele6_placing_needs_an_empty_square_and_a_stone_in_the_supply() -> None:
    state = position("..../..../..../.EWF FWEAA/ffwweeaa 0-0 L G+R 0 0")
    with pytest.raises(IllegalMoveError, match="b1 is not empty: light earth stands there"):
        state.play(0, "A@b1")
    state = position("..../E.../..../.E.. FFWWAA/ffwweeaa 0-0 L G+R 0 0")
    with pytest.raises(IllegalMoveError, match="no light earth stone is left in your supply"):
        state.play(0, "E@a2")


def test_ele6_a_player_places_only_their_own_colour() -> None:
    state = elemento().apply_chance("G+R").state
    assert state.parse(0, "LE@a4") == state.parse(0, "E@a4")
    with pytest.raises(IllegalMoveError, match=r"only your own \(light\) stones \(ELE-6\)"):
        state.play(0, "DE@a4")


def test_ele7_move_only_if_no_placement_is_possible() -> None:
    state = position(MOVE_ONLY)
    assert texts(state, 0) == ["d1-c1"]
    after, events = play(state, "d1-c1")
    assert events[0] == "Light moved light water d1-c1"
    assert after.board != state.board
    opening = elemento().apply_chance("G+R").state
    with pytest.raises(IllegalMoveError, match="only when no placement is possible"):
        opening.play(0, "a1-a2")


def test_ele7_the_moved_stone_is_own_starts_on_a_rolled_colour_and_keeps_the_constraint() -> None:
    state = position(MOVE_ONLY)
    with pytest.raises(IllegalMoveError, match="dark air stone; you move only your own"):
        state.play(0, "a1-a2")
    with pytest.raises(IllegalMoveError, match=r"b1 is red but the dice show Y\+B.*\(ELE-7\)"):
        state.play(0, "b1-c1")
    with pytest.raises(IllegalMoveError, match=r"file c \(c2\) already holds fire \(ELE-4\)"):
        state.play(0, "d3-c3")
    with pytest.raises(IllegalMoveError, match="one square up, down, left or right"):
        state.play(0, "d1-b1")


def test_ele8_automatic_pass_when_no_placement_and_no_move() -> None:
    state = position(BLOCKED.format(scores="0-0", passes=0))
    resolution = state.apply_chance("G+R")
    assert [e.text for e in resolution.events] == [
        "rolled G+R",
        "Light cannot place or move: pass",
    ]
    after = resolution.state
    assert after.passes == 1 and after.chance_outcomes() == ROLLS
    assert after.status() == "Waiting for the dice of Dark"


def test_ele8_a_position_waiting_for_a_player_who_must_pass_is_refused() -> None:
    with pytest.raises(PositionError, match=r"would have passed \(ELE-8\)"):
        position("FW../EAFW/wfAe/aewf E/a 0-0 L G+R 0 0")


def test_ele9_a_placement_completing_rank_and_file_scores_two() -> None:
    state = position(CROSS)
    after, events = play(state, "A@a1")
    assert after.scores == (2, 0)
    assert "Light completed rank 1: 1 point" in events
    assert "Light completed file a: 1 point" in events


def test_ele9_a_move_completes_the_line_it_enters() -> None:
    state = position(".afW/Wf.A/A.E./.EaF F/wwee 1-1 L G+B 0 0")
    assert texts(state, 0) == [
        "d1-d2", "c2-c3 3:opp", "c2-c3 3:own", "c2-d2 d:keep", "c2-d2 d:own",
    ]  # fmt: skip
    after, events = play(state, "c2-c3")
    assert after.scores == (2, 1)
    assert "Light completed rank 3: 1 point" in events


def test_ele9_quadrants_never_score() -> None:
    state = position("..../..../.F../EW.. FWEAA/ffwweeaa 0-0 L G+R 0 0")
    after, _ = play(state, "A@a2")
    assert after.scores == (0, 0)


def test_ele10_decided_default_removes_opponent_stones_of_each_completed_line() -> None:
    state = position(CROSS)
    action = state.parse(0, "A@a1")
    assert action.choices == (("1", "opp"), ("a", "opp"))
    assert state.format(action) == "A@a1 1:opp a:opp"
    after, events = play(state, "A@a1")
    assert after.position().split()[0] == "F.../E.../..../A.W."
    assert "Light removes the dark stones of rank 1: b1, d1" in events


def test_ele10_decided_choices_apply_together_and_a_shared_stone_goes_if_either_removes_it() -> (
    None
):
    state = position(CROSS)
    after, _ = play(state, "A@a1 1:own a:opp")
    assert after.position().split()[:2] == ["F.../E.../..../.e.f", "FWWEAA/fwweaa"]


def test_ele10_keep_only_for_an_all_own_line_opp_only_with_opponent_stones() -> None:
    own_line = position("..../..../..../.EWF FWEAA/ffwweeaa 0-0 L G+R 0 0")
    assert texts(own_line, 0).count("A@a1 1:keep") == 1
    assert own_line.parse(0, "A@a1").choices == (("1", "keep"),)
    with pytest.raises(IllegalMoveError) as caught:
        own_line.play(0, "A@a1 1:opp")
    assert str(caught.value) == (
        "illegal move 'A@a1 1:opp': rank 1 holds no opponent stones: write 1:keep or 1:own (ELE-10)"
    )
    after, _ = play(own_line, "A@a1 1:own")
    assert after.position().startswith("..../..../..../.... FFWWEEAA/")
    with pytest.raises(IllegalMoveError, match="holds opponent stones: keep is not possible"):
        position(CROSS).play(0, "A@a1 1:keep")


def test_ele10_a_choice_for_a_line_not_completed_is_refused() -> None:
    with pytest.raises(IllegalMoveError, match=r"rank 2 is not completed by this placement"):
        position(CROSS).play(0, "A@a1 2:opp")


def test_ele10_removed_stones_return_to_their_owners_supply() -> None:
    after, _ = play(position(CROSS), "A@a1 1:opp a:own")
    assert after.supply(0) == "FFWEEAA"
    assert after.supply(1) == "ffweeaa"


def test_ele11_all_eight_stones_win_before_removals() -> None:
    state = position("..../..../WFAE/.EWF A/ffwweeaa 0-0 L G+R 0 0")
    after, events = play(state, "A@a1 1:own")
    assert after.outcome is not None
    assert after.outcome.result == "1-0"
    assert after.outcome.reason == "Light placed all 8 stones (ELE-11)"
    assert after.outcome.termination is Termination.GOAL
    assert after.scores == (1, 0)
    assert after.position().split()[0] == "..../..../WFAE/AEWF"
    assert events[-1] == "Game over: Light placed all 8 stones (ELE-11)"


def test_ele11_first_to_five_points_wins() -> None:
    state = position(CROSS.replace(" 0-0 ", " 0-3 "))
    after, _ = play(state, "A@a1")
    assert after.scores == (2, 3)
    assert after.outcome is None
    state = position(CROSS.replace(" 0-0 ", " 4-0 "))
    after, _ = play(state, "A@a1 1:opp a:opp")
    assert after.outcome is not None and after.outcome.result == "1-0"
    assert after.outcome.reason == "Light reached 5 points (ELE-11)"
    assert after.outcome.termination is Termination.SCORE
    assert after.to_act == () and after.chance_outcomes() == ()


def test_ele12_decided_every_player_passing_twice_ends_the_game_equal_is_a_draw() -> None:
    state = position(BLOCKED.format(scores="1-1", passes=3))
    resolution = state.apply_chance("G+B")
    final = resolution.state
    assert final.outcome is not None and final.outcome.is_draw
    assert final.outcome.reason == "every player passed twice in a row (ELE-12)"
    assert final.outcome.termination is Termination.PASSES
    assert resolution.events[-1].text.startswith("Game over")


def test_ele12_decided_on_a_double_pass_most_points_win() -> None:
    state = position(BLOCKED.format(scores="1-2", passes=3))
    final = state.apply_chance("G+R").state
    assert final.outcome is not None and final.outcome.result == "0-1"


def test_ele12_decided_three_passes_do_not_end_a_two_player_game() -> None:
    state = position(BLOCKED.format(scores="1-1", passes=2))
    assert state.apply_chance("G+R").state.outcome is None


def test_ele12_a_placement_resets_the_pass_count() -> None:
    state = position(BLOCKED.format(scores="1-1", passes=3)).apply_chance("Y+R").state
    after, _ = play(state, "E@c4")
    assert after.passes == 0


def test_quiet_turn_limit_ends_a_game_of_moves_without_points() -> None:
    """ELE-20: 10 turns per player in a row without a placement or a point end the game."""
    state = position(MOVE_ONLY.replace(" 0 0", " 0 19"))
    after, _ = play(state, "d1-c1")
    assert after.outcome is not None and after.outcome.result == "0-1"
    assert "20 turns in a row without a placement or a point" in after.outcome.reason
    assert after.outcome.termination is Termination.NO_PROGRESS
    assert position(MOVE_ONLY.replace(" 0 0", " 0 18")).play(0, "d1-c1").state.quiet == 19


def test_quiet_turn_count_restarts_with_a_placement_or_a_point() -> None:
    state = position(".afW/Wf.A/A.E./.EaF F/wwee 1-1 L G+B 0 7")
    assert play(state, "c2-c3")[0].quiet == 0
    assert play(state, "d1-d2")[0].quiet == 8


# -- three and four players ------------------------------------------------------------------


def test_ele13_decided_seating_order_is_a_chance_step() -> None:
    state = elemento(3)
    assert state.game.seat_names == ("North", "East", "South")
    assert state.chance_outcomes() == ("1-2-3", "1-3-2", "2-1-3", "2-3-1", "3-1-2", "3-2-1")
    assert state.status() == "Waiting for the seating draw (ELE-13)"
    resolution = state.apply_chance("2-1-3")
    assert resolution.events[0].text == "seating order drawn: East, North, South"
    seated = resolution.state
    assert seated.chance_outcomes() == ROLLS
    assert seated.position().endswith(" 2 ? 0 0 2-1-3")
    assert len(elemento(4).chance_outcomes()) == 24


def test_ele13_turns_follow_the_drawn_seating_order() -> None:
    state = elemento(3).apply_chance("2-1-3").state
    seen = []
    for _ in range(3):
        state = state.apply_chance("G+R").state
        seen.append(state.to_act[0])
        state, _ = play(state, texts(state, state.to_act[0])[0])
    assert seen == [1, 0, 2]


def test_ele13_common_supply_any_player_places_either_colour() -> None:
    state = elemento(3).apply_chance("1-2-3").state.apply_chance("G+R").state
    assert state.supply() == "FFWWEEAAffwweeaa"
    assert len(state.legal_actions(0)) == 64
    assert state.format(state.parse(0, "de@a4")) == "DE@a4"
    with pytest.raises(NotationError, match="say the colour too in a 3-player game"):
        state.play(0, "E@a4")


def test_ele14_with_three_players_any_stone_on_a_rolled_colour_may_move() -> None:
    state = position("F.aW/.wef/eF../..wa WEEAAf 0-0-1 3 Y+R 0 0 2-3-1", players=3)
    assert texts(state, 2) == ["a2-a1", "b2-b1", "b2-c2 c:light", "b2-c2 c:dark", "c4-b4"]
    after, events = play(state, "c4-b4")
    assert events[0] == "South moved dark air c4-b4"
    assert after.position().split()[0] == "Fa.W/.wef/eF../..wa"


def test_ele15_decided_default_removes_the_colour_with_fewer_stones_light_on_a_tie() -> None:
    tie = position("F.../..../..../.Ewf FWWEAAfweeaa 0-0-0 1 G+R 0 0 1-2-3", players=3)
    assert tie.parse(0, "LA@a1").choices == (("1", "light"),)
    after, events = play(tie, "LA@a1")
    assert after.position().split()[0] == "F.../..../..../..wf"
    assert "North removes the light stones of rank 1: a1, b1" in events
    fewer = position("F.../..../..../.ewF WWEEAAffweaa 0-0-0 1 G+R 0 0 1-2-3", players=3)
    assert fewer.parse(0, "DA@a1").choices == (("1", "light"),)
    assert play(fewer, "DA@a1 1:dark")[0].position().split()[0] == "F.../..../..../...F"


def test_ele15_a_single_colour_line_is_removed_whole() -> None:
    state = position("..../..../..../.EWF FWEAAffwweeaa 0-0-0 1 G+R 0 0 1-2-3", players=3)
    assert state.parse(0, "LA@a1").choices == (("1", "light"),)
    with pytest.raises(IllegalMoveError) as caught:
        state.play(0, "LA@a1 1:dark")
    assert str(caught.value) == (
        "illegal move 'LA@a1 1:dark': rank 1 holds only light stones and is removed whole: "
        "write 1:light (ELE-15)"
    )
    after, _ = play(state, "LA@a1")
    assert after.supply() == "FFWWEEAAffwweeaa"
    assert after.scores == (1, 0, 0)


def test_ele15_decided_first_to_three_points_wins_with_three_or_four_players() -> None:
    text = "..../..../..../.EWF FWEAAffwweeaa 0-2-0 1 G+R 0 0 1-2-3"
    after, _ = play(position(text, players=3), "LA@a1")
    assert after.outcome is None
    text = "..../..../..../.EWF FWEAAffwweeaa 0-2-0-1 2 G+R 0 0 4-2-1-3"
    after, _ = play(position(text, players=4), "DA@a1")
    assert after.outcome is not None
    assert after.outcome.places == (3, 1, 3, 2)
    assert after.outcome.reason == "East reached 3 points (ELE-15)"
    assert after.outcome.termination is Termination.SCORE


def test_ele13_ele15_four_player_seeded_game_reaches_an_end_in_seating_order() -> None:
    rng = random.Random(4)
    state: State = elemento(4)
    state = state.apply_chance("3-1-4-2").state
    movers = []
    while not state.is_over:
        if outcomes := state.chance_outcomes():
            state = state.apply_chance(rng.choice(outcomes)).state
        else:
            seat = state.to_act[0]
            movers.append(seat)
            state = state.play(seat, state.random_action(seat, rng)).state
    assert state.outcome is not None and len(state.outcome.places) == 4
    assert movers[:4] == [2, 0, 3, 1]


# -- dice=turned -----------------------------------------------------------------------------


def test_ele16_decided_turned_dice_are_rolled_once_then_turned_after_a_placement() -> None:
    state = elemento(dice="turned").apply_chance("G+R").state
    after, events = play(state, "E@a4")
    assert events[-1] == "the dice are turned to Y+R (ELE-16)"
    assert after.chance_outcomes() == () and after.to_act == (1,)
    after, _ = play(after, "e@b2")
    assert after.dice == "Y+B"


def test_ele16_decided_after_a_move_the_die_of_the_quadrant_left_is_turned() -> None:
    state = position(MOVE_ONLY, dice="turned")
    after, _ = play(state, "d1-c1")
    assert after.dice == "Y+R"
    state = position(".afW/Wf.A/A.E./.EaF F/wwee 1-1 L G+B 0 0", dice="turned")
    assert play(state, "c2-c3")[0].dice == "G+R"


def test_ele16_decided_after_a_pass_both_dice_are_rolled_again() -> None:
    state = position("a.e./wE.F/.WA./Efw. FWA/fea 0-2 D G+B 0 1", dice="turned")
    after, events = play(state, "E@d2")
    assert events[1:] == ["the dice are turned to G+R (ELE-16)", "Light cannot place or move: pass"]
    assert after.chance_outcomes() == ROLLS
    assert after.position().endswith(" D ? 1 1")


def test_ele16_turned_option_in_three_player_game_rolls_after_seating() -> None:
    state = elemento(3, "turned").apply_chance("3-2-1").state
    assert state.chance_outcomes() == ROLLS
    state = state.apply_chance("Y+B").state
    state, _ = play(state, "LF@d1")
    assert state.dice == "Y+R" and state.to_act == (1,)


# -- notation and position -------------------------------------------------------------------


def test_ele18_notation_is_case_insensitive_and_ignores_spaces() -> None:
    state = position(CROSS)
    canonical = state.parse(0, "A@a1 1:opp a:opp")
    assert state.parse(0, " a @ A1 ; 1 : OPP, a:opp") == canonical
    assert state.parse(0, "A@a1 a:opp") == canonical
    assert state.parse(0, "A@a1a:opp1:opp") == canonical
    assert state.format(canonical) == "A@a1 1:opp a:opp"


def test_ele18_every_legal_action_reads_back_from_its_text() -> None:
    for text, players in [(CROSS, 2), (".afW/Wf.A/A.E./.EaF F/wwee 1-1 L G+B 0 0", 2)]:
        state = position(text, players)
        for action in state.legal_actions(0):
            assert state.parse(0, state.format(action)) == action
    assert isinstance(position(MOVE_ONLY).parse(0, "d1-c1"), Move)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "write a placement like E@a4 or a move like b2-b3"),
        ("X@a1", "a placement is <element>@<square> with F W E A"),
        ("A@e1", "'e1' is off the board"),
        ("A@a1 foo", "removal choices like 1:opp, not 'foo'"),
        ("A@a1 1:light", "a removal choice is one of own, opp, keep"),
        ("A@a1 1:opp 1:own", "rank 1 has two choices"),
    ],
)
def test_ele18_syntax_errors_quote_the_input_and_explain(text: str, message: str) -> None:
    with pytest.raises(NotationError) as caught:
        position(CROSS).play(0, text)
    assert f"cannot read {text!r}" in str(caught.value)
    assert message in str(caught.value)


def test_ele19_position_string_round_trips_with_seating_passes_and_dice() -> None:
    for text, players in [
        ("..../..../..../.... FFWWEEAA/ffwweeaa 0-0 L ? 0 0", 2),
        (MOVE_ONLY, 2),
        ("..../..../..../.... FFWWEEAAffwweeaa 0-0-0 ? ? 0 0 ?", 3),
        ("F.aW/.wef/eF../..wa WEEAAf 0-0-1 3 Y+R 0 0 2-3-1", 3),
        ("..../..../..../.EWF FWEAAffwweeaa 0-2-0-1 2 G+R 1 2 4-2-1-3", 4),
    ]:
        state = position(text, players)
        assert state.position() == text
        assert state_from_json(json.loads(json.dumps(state.to_json()))) == state


@pytest.mark.parametrize(
    ("short", "players", "full"),
    [
        (
            "..../..../..../.... FFWWEEAA/ffwweeaa 0-0 L ?",
            2,
            "..../..../..../.... FFWWEEAA/ffwweeaa 0-0 L ? 0 0",
        ),
        (MOVE_ONLY.rsplit(" ", 2)[0], 2, MOVE_ONLY),
        (
            "..../..../..../.... FFWWEEAAffwweeaa 0-0-0 ? ?",
            3,
            "..../..../..../.... FFWWEEAAffwweeaa 0-0-0 ? ? 0 0 ?",
        ),
        (
            "..../..../..../.EWF FWEAAffwweeaa 0-2-0-1 3 G+R",
            4,
            "..../..../..../.EWF FWEAAffwweeaa 0-2-0-1 3 G+R 0 0 1-2-3-4",
        ),
    ],
)
def test_ele19_the_rule_books_five_field_form_is_read_too(
    short: str, players: int, full: str
) -> None:
    state = position(short, players)
    assert state.position() == full
    assert state == position(full, players)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("..../..../..../.... FFWWEEAA/ffwweeaa 0-0 L", "expected 7 fields"),
        ("..../..../..../.... FFWWEEAA/ffwweeaa 0-0 L ? 0", "or the rule book's 5"),
        ("..../..../..../.... FFWWEEA/ffwweeaa 0-0 L ? 0 0", "does not match the board"),
        ("F.../F.../..../.... WWEEAA/ffwweeaa 0-0 L ? 0 0", "repeats in file a (a4) (ELE-4)"),
        ("FF../..../..../.... WWEEAA/ffwweeaa 0-0 L ? 0 0", "repeats in rank 4"),
        ("..../..../..../.... FFWWEEAA/ffwweeaa 0-0 X ? 0 0", "turn 'X' is one of L, D"),
        ("..../..../..../.... FFWWEEAA/ffwweeaa 0-0 L G+Y 0 0", "dice 'G+Y'"),
        ("..../..../..../.... FFWWEEAA/ffwweeaa 0-0 L ? 9 0", "passes '9'"),
    ],
)
def test_ele19_bad_position_strings_are_explained(text: str, message: str) -> None:
    with pytest.raises(PositionError) as caught:
        position(text)
    assert message in str(caught.value)


def test_ele19_three_player_order_must_name_each_seat_once() -> None:
    with pytest.raises(PositionError, match="seating order '1-1-2' is each seat once"):
        position("..../..../..../.... FFWWEEAAffwweeaa 0-0-0 1 ? 0 0 1-1-2", players=3)


# -- pictures --------------------------------------------------------------------------------


def test_ascii_board_shows_quadrant_letters_stones_and_coordinates() -> None:
    picture = position(MOVE_ONLY).ascii()
    lines = picture.splitlines()
    assert lines[0].split() == ["a", "b", "c", "d"] == lines[-4].split()
    assert lines[2] == " 4 | g:f   g:. | Y:A   Y:E | 4"
    assert lines[6] == " 1 | r:a   r:E | B:.   B:W | 1"
    assert "capital: on the dice now" in picture
    assert max(len(line) for line in lines) <= 80


def test_grid_titles_and_info_lines() -> None:
    state = position(MOVE_ONLY)
    cell = state.grid().rows[0][2]
    assert (cell.square, cell.text, cell.style, cell.title) == (
        "c4", "A", "yellow", "c4: yellow, light air",
    )  # fmt: skip
    assert state.info() == (
        "Score: Light 0, Dark 1 (first to 5 wins)",
        "Supply: Light FW, Dark eea",
        "Dice: Y+B (yellow or blue)",
    )
    three = elemento(3, "turned").apply_chance("2-3-1").state
    assert three.info() == (
        "Score: North 0, East 0, South 0 (first to 3 wins)",
        "Common supply: FFWWEEAAffwweeaa",
        "Turn order (drawn, ELE-13): East, South, North; East first",
        "Dice (turned, ELE-16): to be rolled",
    )


def test_the_dice_must_be_rolled_before_a_move_is_read() -> None:
    with pytest.raises(IllegalMoveError, match="the dice have not been rolled yet"):
        elemento().parse(0, "E@a4")


def test_ele6_perft_counts_chance_outcomes_as_branches_not_plies() -> None:
    """By hand: after a G+R opening placement, Dark has 30 (Y+B), 23 (G+R), 25 and 28 options."""
    assert perft(elemento(), 1) == 4 * 32
    assert perft(elemento().apply_chance("G+R").state, 2) == 32 * (30 + 23 + 25 + 28)
