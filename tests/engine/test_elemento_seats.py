"""Elemento's seat-dependent rules, from every seat (2, 3 and 4 players).

Each rule that depends on who acts is played here by each seat in turn: ELE-6/7/10/11 for
Light and Dark, ELE-13/14/15 for every seat of a 3- and 4-player game. (The ELE-15 fault this
guards against: ``dark`` removed the light stones for every seat but the first.)
"""

from __future__ import annotations

import pytest

from engine import IllegalMoveError, NotationError, new_game
from engine.games.elemento import COPIES, STONES, ElementoState

SEATS = ("North", "East", "South", "West")
MULTI_SEATS = [(players, seat) for players in (3, 4) for seat in range(players)]
BOTH = [0, 1]


def board_of(rank1: str, upper: str = "..../..../....") -> str:
    return f"{upper}/{rank1}"


def supply_for(board: str, players: int) -> str:
    """The supply field the board leaves (ELE-19): every stone not on the board."""
    cells = board.replace("/", "")
    left = {stone: COPIES - cells.count(stone) for stone in STONES}
    if players == 2:
        light = "".join(s * left[s] for s in STONES[:4]) or "-"
        dark = "".join(s * left[s] for s in STONES[4:]) or "-"
        return f"{light}/{dark}"
    return "".join(s * left[s] for s in STONES) or "-"


def seated(
    board: str, players: int, seat: int, dice: str, scores: str | None = None, quiet: int = 0
) -> ElementoState:
    """A position with ``seat`` to act; seating order 1-2-(3-4) for 3–4 players."""
    game = new_game("elemento", {}, players)
    scores = scores or "-".join("0" * players)
    if players == 2:
        tail = f"{'LD'[seat]} {dice} 0 {quiet}"
    else:
        order = "-".join(str(n) for n in range(1, players + 1))
        tail = f"{seat + 1} {dice} 0 {quiet} {order}"
    state = game.parse_position(f"{board} {supply_for(board, players)} {scores} {tail}")
    assert isinstance(state, ElementoState)
    assert state.to_act == (seat,)
    return state


def play(state: ElementoState, text: str) -> tuple[ElementoState, list[str]]:
    resolution = state.play(state.to_act[0], text)
    assert isinstance(resolution.state, ElementoState)
    return resolution.state, [event.text for event in resolution.events]


def rank1(state: ElementoState) -> str:
    return state.position().split()[0].split("/")[3]


# -- 3 and 4 players: colours are the choice, whoever the scorer is (ELE-13/14/15) ----------


@pytest.mark.parametrize(("players", "seat"), MULTI_SEATS)
def test_ele15_dark_removes_the_dark_stones_from_every_seat(players: int, seat: int) -> None:
    state = seated(board_of("fWe."), players, seat, "G+B")
    after, events = play(state, "DA@d1 1:dark")
    assert rank1(after) == ".W.."
    name = SEATS[seat]
    assert f"{name} removes the dark stones of rank 1: a1, c1, d1" in events
    assert after.scores[seat] == 1 and sum(after.scores) == 1


@pytest.mark.parametrize(("players", "seat"), MULTI_SEATS)
def test_ele15_light_removes_the_light_stones_from_every_seat(players: int, seat: int) -> None:
    state = seated(board_of("fWe."), players, seat, "G+B")
    after, events = play(state, "DA@d1 1:light")
    assert rank1(after) == "f.ea"
    assert f"{SEATS[seat]} removes the light stones of rank 1: b1" in events


@pytest.mark.parametrize(("players", "seat"), MULTI_SEATS)
def test_ele15_decided_default_is_the_fewer_colour_from_every_seat(players: int, seat: int) -> None:
    state = seated(board_of("fWe."), players, seat, "G+B")
    assert state.parse(seat, "DA@d1").choices == (("1", "light"),)
    assert rank1(play(state, "DA@d1")[0]) == "f.ea"
    tie = seated(board_of("fWE."), players, seat, "G+B")
    assert tie.parse(seat, "DA@d1").choices == (("1", "light"),)  # 2 light, 2 dark: light


@pytest.mark.parametrize(("players", "seat"), MULTI_SEATS)
def test_ele15_a_single_colour_line_goes_whole_from_every_seat(players: int, seat: int) -> None:
    dark_line = seated(board_of("fwe."), players, seat, "G+B")
    assert [
        a.choices for a in dark_line.legal_actions(seat) if a.square == 3 and a.stone == "a"
    ] == [(("1", "dark"),)]
    after, _ = play(dark_line, "DA@d1")
    assert rank1(after) == "...."
    with pytest.raises(IllegalMoveError, match="holds only dark stones and is removed whole"):
        dark_line.play(seat, "DA@d1 1:light")
    light_line = seated(board_of("FWE."), players, seat, "G+B")
    assert rank1(play(light_line, "LA@d1")[0]) == "...."


@pytest.mark.parametrize(("players", "seat"), MULTI_SEATS)
def test_ele15_two_lines_from_every_seat_apply_together(players: int, seat: int) -> None:
    # a1 empty; rank 1 holds e W f (d1) and file a holds F E w (a4..a2): LA@a1 completes both.
    state = seated(board_of(".eWf", "F.../E.../w..."), players, seat, "G+R")
    action = state.parse(seat, "LA@a1 1:dark a:light")
    assert action.choices == (("1", "dark"), ("a", "light"))
    after, _ = play(state, "LA@a1 1:dark a:light")
    # rank 1 loses its dark stones (b1, d1), file a its light ones (a4, a3, a1).
    assert after.position().split()[0] == "..../..../w.../..W."
    assert after.scores[seat] == 2


@pytest.mark.parametrize(("players", "seat"), MULTI_SEATS)
def test_ele13_every_seat_places_either_colour_from_the_common_supply(
    players: int, seat: int
) -> None:
    state = seated(board_of("...."), players, seat, "G+R")
    assert len(state.legal_actions(seat)) == 64
    for text in ("LE@a4", "DE@a4"):
        assert state.format(state.parse(seat, text)) == text


@pytest.mark.parametrize(("players", "seat"), MULTI_SEATS)
def test_ele14_every_seat_moves_stones_of_either_colour(players: int, seat: int) -> None:
    # Every placement on red/green is blocked by ELE-4, so the seat must move (ELE-7/14).
    state = seated("F.aW/.wef/eF../..wa", players, seat, "Y+R")
    assert [state.format(a) for a in state.legal_actions(seat)] == [
        "a2-a1", "b2-b1", "b2-c2 c:light", "b2-c2 c:dark", "c4-b4",
    ]  # fmt: skip
    _, events = play(state, "b2-b1")  # a light stone
    assert events[0] == f"{SEATS[seat]} moved light fire b2-b1"
    _, events = play(seated("F.aW/.wef/eF../..wa", players, seat, "Y+R"), "c4-b4")
    assert events[0] == f"{SEATS[seat]} moved dark air c4-b4"


@pytest.mark.parametrize(("players", "seat"), MULTI_SEATS)
def test_ele15_the_third_point_wins_for_every_seat(players: int, seat: int) -> None:
    scores = "-".join("2" if s == seat else "0" for s in range(players))
    state = seated(board_of("fWe."), players, seat, "G+B", scores)
    after, _ = play(state, "DA@d1 1:dark")
    assert after.outcome is not None
    assert after.outcome.places[seat] == 1
    assert after.outcome.reason == f"{SEATS[seat]} reached 3 points (ELE-15)"


# -- 2 players: own and opponent are relative to the scorer (ELE-6/7/10/11) ---------------


def mirror(board: str, seat: int) -> str:
    """The board as Light wrote it, or with colours swapped for Dark."""
    return board if seat == 0 else board.swapcase()


@pytest.mark.parametrize("seat", BOTH)
def test_ele10_opp_and_own_are_relative_to_the_scorer_for_both_seats(seat: int) -> None:
    state = seated(mirror(board_of("fWe."), seat), 2, seat, "G+B")
    place = "A@d1"
    assert state.parse(seat, place).choices == (("1", "opp"),)
    assert rank1(play(state, place + " 1:opp")[0]) == mirror(".W.A", seat)
    assert rank1(play(state, place + " 1:own")[0]) == mirror("f.e.", seat)
    with pytest.raises(IllegalMoveError, match="keep is not possible"):
        state.play(seat, place + " 1:keep")


@pytest.mark.parametrize("seat", BOTH)
def test_ele10_keep_for_an_all_own_line_for_both_seats(seat: int) -> None:
    state = seated(mirror(board_of("FWE."), seat), 2, seat, "G+B")
    assert state.parse(seat, "A@d1").choices == (("1", "keep"),)
    assert rank1(play(state, "A@d1")[0]) == mirror("FWEA", seat)
    assert rank1(play(state, "A@d1 1:own")[0]) == "...."


@pytest.mark.parametrize("seat", BOTH)
def test_ele6_each_seat_places_only_its_own_colour(seat: int) -> None:
    state = seated(board_of("...."), 2, seat, "G+R")
    own, other = ("LE@a4", "DE@a4") if seat == 0 else ("DE@a4", "LE@a4")
    assert state.parse(seat, own) == state.parse(seat, "E@a4")
    assert state.parse(seat, "E@a4").stone == ("E" if seat == 0 else "e")
    mine = "light" if seat == 0 else "dark"
    with pytest.raises(IllegalMoveError, match=rf"only your own \({mine}\) stones"):
        state.play(seat, other)


@pytest.mark.parametrize("seat", BOTH)
def test_ele7_each_seat_moves_only_its_own_stones(seat: int) -> None:
    # MOVE_ONLY of test_elemento.py, mirrored for Dark: the one legal action is d1-c1.
    board = mirror("f.AE/wA.F/.wf./aE.W", seat)
    state = seated(board, 2, seat, "Y+B")
    assert [state.format(a) for a in state.legal_actions(seat)] == ["d1-c1"]
    with pytest.raises(IllegalMoveError, match="you move only your own"):
        state.play(seat, "a1-a2")


@pytest.mark.parametrize("seat", BOTH)
def test_ele11_placing_the_eighth_stone_wins_for_both_seats(seat: int) -> None:
    # Seven of the seat's stones on the board, the eighth (air) goes to d1.
    board = mirror("FW../EA../..FW/.E..", seat)
    state = seated(board, 2, seat, "G+B")
    after, _ = play(state, "A@d1")
    assert after.outcome is not None
    assert after.outcome.places[seat] == 1
    assert "placed all 8 stones (ELE-11)" in after.outcome.reason


# -- issue 21, point 8: what the players read, from every seat ------------------------------

ALL_SEATS = [(2, seat) for seat in BOTH] + MULTI_SEATS


@pytest.mark.parametrize("players", [3, 4])
def test_ele13_seats_are_named_by_place_not_by_a_number_that_reads_as_the_turn_order(
    players: int,
) -> None:
    """issue 21, point 8: "You play Player 1" while Player 3 moved first. The book names no
    seats and draws the turn order (ELE-13), so seats are named where they sit (North, East,
    South, West) and the drawn order names who plays first."""
    game = new_game("elemento", {}, players)
    assert game.seat_names == SEATS[:players]
    for order in game.initial_state().chance_outcomes():
        resolution = game.initial_state().apply_chance(order)
        drawn = [SEATS[int(n) - 1] for n in order.split("-")]
        assert resolution.events[0].text == "seating order drawn: " + ", ".join(drawn)
        state = resolution.state.apply_chance("G+R").state
        assert state.to_act == (int(order[0]) - 1,)
        assert state.status() == f"{drawn[0]} to move"
        line = f"Turn order (drawn, ELE-13): {', '.join(drawn)}; {drawn[0]} first"
        assert line in state.info()
        # Position strings keep seat numbers, so records written before the names still load.
        assert state.position().endswith(f" {order[0]} G+R 0 0 {order}")
        assert game.parse_position(state.position()) == state


@pytest.mark.parametrize(("players", "seat"), ALL_SEATS)
def test_ele18_the_legend_writes_moves_the_way_the_parser_reads_them(
    players: int, seat: int
) -> None:
    """issue 21, point 8: the legend said "capital light, small dark" while a 3–4 player
    placement needs ``LF@c1``: it now shows the notation, and its examples parse (ELE-18)."""
    state = seated(board_of("...."), players, seat, "G+B")
    legend = state.ascii().splitlines()[-2:]
    assert legend[0] == "Stones F fire, W water, E earth, A air (board: capital light, small dark)."
    if players == 2:
        assert legend[1] == "Place your own colour by element: F@c1; move: b2-b3."
        assert state.format(state.parse(seat, "F@c1")) == "F@c1"
    else:
        assert legend[1] == "Place with L (light) or D (dark) first: LF@c1, DW@d1; move: b2-b3."
        for text in ("LF@c1", "DW@d1"):
            assert state.format(state.parse(seat, text)) == text
        with pytest.raises(NotationError, match="say the colour too"):
            state.parse(seat, "F@c1")


@pytest.mark.parametrize(("players", "seat"), ALL_SEATS)
def test_ele20_the_quiet_turn_limit_ends_the_game_and_cites_ele20(players: int, seat: int) -> None:
    """issue 21, point 8: after 10 x players turns without a placement or a point the game ends
    on points (ELE-20, decided in the book); the message cites ELE-20, not ELE-19."""
    limit = 10 * players
    if players == 2:
        board, dice, text = mirror("f.AE/wA.F/.wf./aE.W", seat), "Y+B", "d1-c1"
    else:
        board, dice, text = "F.aW/.wef/eF../..wa", "Y+R", "b2-b1"
    scores = "-".join("1" if s == seat else "0" for s in range(players))
    before = seated(board, players, seat, dice, scores, quiet=limit - 2)
    assert play(before, text)[0].outcome is None
    state = seated(board, players, seat, dice, scores, quiet=limit - 1)
    after, events = play(state, text)
    assert after.outcome is not None
    reason = f"{limit} turns in a row without a placement or a point (ELE-20)"
    assert after.outcome.reason == reason
    assert "ELE-19" not in after.outcome.reason
    assert events[-1] == f"Game over: {reason}"
    assert after.outcome.places[seat] == 1  # placed by points, as in ELE-12
    line = f"Turns without a placement or a point: {limit - 1} (the game ends at {limit}, ELE-20)"
    assert line in state.info()


@pytest.mark.parametrize(("players", "seat"), MULTI_SEATS)
def test_ele15_decided_a_single_colour_line_defaults_to_its_own_colour_from_every_seat(
    players: int, seat: int
) -> None:
    """issue 21, point 8 (ELE-15 as decided): a single-colour line lists only its colour, and
    a placement that omits the choice gets that same colour, never the other (empty) one."""
    for rank, stone, colour in (("fwe.", "DA@d1", "dark"), ("FWE.", "LA@d1", "light")):
        state = seated(board_of(rank), players, seat, "G+B")
        listed = {a.choices for a in state.legal_actions(seat) if state.format(a).startswith(stone)}
        assert listed == {(("1", colour),)}
        assert state.parse(seat, stone).choices == (("1", colour),)
        after, events = play(state, stone)
        assert rank1(after) == "...."
        assert f"{SEATS[seat]} removes the {colour} stones of rank 1: a1, b1, c1, d1" in events


@pytest.mark.parametrize("seat", BOTH)
def test_ele10_decided_an_all_own_line_defaults_to_keep_for_both_seats(seat: int) -> None:
    """issue 21, point 8 (two players): a line of the scorer's own colour lists own and keep,
    and the default for an omitted choice is keep (ELE-10), one of the listed choices."""
    state = seated(mirror(board_of("FWE."), seat), 2, seat, "G+B")
    listed = {a.choices for a in state.legal_actions(seat) if state.format(a).startswith("A@d1")}
    assert listed == {(("1", "keep"),), (("1", "own"),)}
    assert state.parse(seat, "A@d1").choices in listed


@pytest.mark.parametrize(("players", "seat"), ALL_SEATS)
def test_ele11_ele15_decided_the_winning_turn_scores_its_line_and_removes_nothing(
    players: int, seat: int
) -> None:
    """ELE-11 as decided: the lines of the winning turn still score; its removals are not
    applied (the game is over). With 3–4 players the third point wins (ELE-15)."""
    target = 5 if players == 2 else 3
    scores = "-".join(str(target - 1) if s == seat else "0" for s in range(players))
    if players == 2:
        state = seated(mirror(board_of("fWe."), seat), 2, seat, "G+B", scores)
        text, rule = "A@d1 1:opp", "ELE-11"
    else:
        state = seated(board_of("fWe."), players, seat, "G+B", scores)
        text, rule = "DA@d1 1:dark", "ELE-15"
    after, _ = play(state, text)
    assert after.outcome is not None and after.outcome.places[seat] == 1
    assert after.outcome.reason == f"{state.game.seat_names[seat]} reached {target} points ({rule})"
    assert after.scores[seat] == target
    assert rank1(after) != "...." and "." not in rank1(after)  # nothing removed
