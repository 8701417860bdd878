"""Elemento's seat-dependent rules, from every seat (2, 3 and 4 players).

Each rule that depends on who acts is played here by each seat in turn: ELE-6/7/10/11 for
Light and Dark, ELE-13/14/15 for every seat of a 3- and 4-player game. (The ELE-15 fault this
guards against: ``dark`` removed the light stones for every seat but the first.)
"""

from __future__ import annotations

import pytest

from engine import IllegalMoveError, new_game
from engine.games.elemento import COPIES, STONES, ElementoState

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
    board: str, players: int, seat: int, dice: str, scores: str | None = None
) -> ElementoState:
    """A position with ``seat`` to act; seating order 1-2-(3-4) for 3–4 players."""
    game = new_game("elemento", {}, players)
    scores = scores or "-".join("0" * players)
    if players == 2:
        tail = f"{'LD'[seat]} {dice} 0 0"
    else:
        tail = f"{seat + 1} {dice} 0 0 " + "-".join(str(n) for n in range(1, players + 1))
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
    name = f"Player {seat + 1}"
    assert f"{name} removes the dark stones of rank 1: a1, c1, d1" in events
    assert after.scores[seat] == 1 and sum(after.scores) == 1


@pytest.mark.parametrize(("players", "seat"), MULTI_SEATS)
def test_ele15_light_removes_the_light_stones_from_every_seat(players: int, seat: int) -> None:
    state = seated(board_of("fWe."), players, seat, "G+B")
    after, events = play(state, "DA@d1 1:light")
    assert rank1(after) == "f.ea"
    assert f"Player {seat + 1} removes the light stones of rank 1: b1" in events


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
    assert events[0] == f"Player {seat + 1} moved light fire b2-b1"
    _, events = play(seated("F.aW/.wef/eF../..wa", players, seat, "Y+R"), "c4-b4")
    assert events[0] == f"Player {seat + 1} moved dark air c4-b4"


@pytest.mark.parametrize(("players", "seat"), MULTI_SEATS)
def test_ele15_the_third_point_wins_for_every_seat(players: int, seat: int) -> None:
    scores = "-".join("2" if s == seat else "0" for s in range(players))
    state = seated(board_of("fWe."), players, seat, "G+B", scores)
    after, _ = play(state, "DA@d1 1:dark")
    assert after.outcome is not None
    assert after.outcome.places[seat] == 1
    assert after.outcome.reason == f"Player {seat + 1} reached 3 points (ELE-15)"


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
