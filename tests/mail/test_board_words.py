"""The board in words (issue 21, point 10, "Accessible boards"): every game mail's text part
gives, before the grid, the last move and the position as piece lists by side; a player who
chose ``board_text: words`` gets the words alone. ``service/mail/words.py``."""

from __future__ import annotations

import functools
import random
import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

import pytest

import engine
from engine import State
from service.mail.boards import changed_squares, reader_view
from service.mail.render import KINDS, render_board_text, render_email
from service.mail.words import expand, position_in_words, sentences, squares_in_words
from tests.mail.scenarios import BOARD_GAMES, context

SEED = 21
PLAYS = 40
"""Moves played into each game before its words are checked: pieces gone, lines broken."""
SETUPS = [(name, None) for name in BOARD_GAMES] + [("elemento", 3), ("elemento", 4)]
SETUP_IDS = [name if players is None else f"{name}-{players}p" for name, players in SETUPS]
_RANGE = re.compile(r"\b([a-z])(\d+) to ([a-z])(\d+)\b|\b([a-z])(\d+)\b")


def named_squares(text: str) -> list[str]:
    """Every square a sentence names, ranges ``a1 to d1`` read out (checked on their own,
    not with the module's ``expand``)."""
    found = []
    for match in _RANGE.finditer(text):
        if match.group(5):
            found.append(match.group(0))
            continue
        file1, rank1, file2, rank2 = match.group(1, 2, 3, 4)
        if rank1 == rank2:
            found += [f"{chr(f)}{rank1}" for f in range(ord(file1), ord(file2) + 1)]
        else:
            assert file1 == file2, f"{match.group(0)}: a range stays on one rank or file"
            found += [f"{file1}{r}" for r in range(int(rank1), int(rank2) + 1)]
    return found


def _play(state: State, rng: random.Random) -> tuple[State, State, str]:
    """One step past any dice: (before, after, the move as the last-move line names it)."""
    while state.chance_outcomes():
        state = state.apply_chance(rng.choice(state.chance_outcomes())).state
    before = state
    names = state.game.seat_names
    if state.simultaneous:
        for seat in state.to_act:
            state = state.submit(seat, state.random_action(seat, rng))
        texts = [f"{names[s]} {state.format(state.orders_of(s))}" for s in before.to_act]
        return before, state.resolve().state, "; ".join(texts)
    seat = state.to_act[0]
    action = state.random_action(seat, rng)
    return before, state.play(seat, action).state, f"{names[seat]} {state.format(action)}"


@functools.cache
def positions(name: str, players: int | None) -> tuple[dict[str, Any], ...]:
    """Views with a last move (as ``service/reader.py`` gives them) along a seeded game."""
    rng = random.Random(SEED)
    state = engine.new_game(name, {}, players).initial_state()
    views = []
    for turn in range(1, PLAYS + 1):
        if state.is_over:
            break
        before, state, move = _play(state, rng)
        squares = changed_squares(before.grid(None), state.grid(None))
        view = state.view(state.to_act[0] if state.to_act else 0).to_json()
        views.append(reader_view(view, False, f"Last move (turn {turn}): {move}", squares))
    return tuple(views)


def pieces(view: Mapping[str, Any]) -> dict[str, str]:
    """What the words must list: each piece's square and the start of its side's line."""
    names = view["seat_names"]
    wanted = {}
    for cell in (cell for row in view["grid"]["rows"] for cell in row):
        text, style, square = cell["text"], cell["style"], cell["square"]
        if view["game"] == "elasta":
            wanted[square] = f"{names[style == 'black-side']}'s side:"
        elif not text:
            continue
        elif view["game"] == "nelaxtam":
            wanted[square] = f"{names[not text.isdigit()]}:"
        elif view["game"] == "elemento":
            shade = "Light" if text.isupper() else "Dark"
            wanted[square] = f"{shade}:" if len(names) == 2 else f"{shade} stones:"
        else:
            wanted[square] = f"{names[{'W': 0, 'R': 0}.get(text, 1)]}:"
    return wanted


@pytest.mark.parametrize(("name", "players"), SETUPS, ids=SETUP_IDS)
def test_the_words_list_every_piece_once_on_its_sides_line(name: str, players: int | None) -> None:
    """Issue 21, point 10: the position as piece lists by side, each piece exactly once."""
    views = positions(name, players)
    assert views
    for view in views:
        lines = sentences(view)
        wanted = pieces(view)
        listed: Counter[str] = Counter()
        for line in lines[1:]:
            if line.startswith(("Territory:", "Destroyed:", "Quadrants:")):
                continue
            squares = named_squares(line)
            listed.update(squares)
            for square in squares:
                assert line.startswith(wanted.get(square, "?")), (square, line)
        assert listed == Counter(list(wanted)), lines


@pytest.mark.parametrize(("name", "players"), SETUPS, ids=SETUP_IDS)
def test_the_words_name_the_last_move_and_what_it_changed(name: str, players: int | None) -> None:
    """Issue 21, point 10: the last move first, with every square it changed once."""
    for view in positions(name, players):
        first = sentences(view)[0]
        assert first.startswith(view["last_move"]), first
        changed = first.partition(" Changed: ")[2]
        assert Counter(named_squares(changed)) == Counter(view["last_squares"]), first


def test_nelaxtam_names_destroyed_squares_and_the_territory() -> None:
    """Issue 21, point 10: Nelaxtam's destroyed squares (each once) and its checkered land."""
    destroyed_seen = False
    for view in positions("nelaxtam", None):
        lines = sentences(view)
        cells = [cell for row in view["grid"]["rows"] for cell in row]
        destroyed = [cell["square"] for cell in cells if cell["style"] == "destroyed"]
        line = next(line for line in lines if line.startswith("Destroyed:"))
        assert Counter(named_squares(line)) == Counter(destroyed)
        destroyed_seen |= bool(destroyed)
        territory = next(line for line in lines if line.startswith("Territory:"))
        assert territory.startswith("Territory: checkered; O on the squares of a1's colour")
        land = sum(cell["style"] == "o" for cell in cells)
        assert f"({land} left)" in territory
    assert destroyed_seen, "the seeded game destroyed nothing: pick another seed"


def test_elemento_with_four_players_lists_stones_by_colour_and_the_quadrants() -> None:
    """Issue 21, point 10: in a 3-4 player Elemento nobody owns a colour; the quadrants the
    dice name are spelled out."""
    view = positions("elemento", 4)[-1]
    lines = sentences(view)
    assert lines[1].startswith("Light stones: ") and lines[2].startswith("Dark stones: ")
    assert lines[3] == (
        "Quadrants: green a3, b3, a4, b4; yellow c3, d3, c4, d4; red a1, b1, a2, b2; "
        "blue c1, d1, c2, d2."
    )


@pytest.mark.parametrize(("name", "players"), SETUPS, ids=SETUP_IDS)
def test_folded_lines_fit_80_columns_and_none_is_notation_alone(
    name: str, players: int | None
) -> None:
    """Issue 21, point 10: the words fold to 80 columns; a line that goes on holds a word,
    so a reply pasting our mail without quote marks has no line of notation alone; the
    folding adds nothing but the indent and "and"."""
    for view in positions(name, players):
        for sentence, folded in zip(sentences(view), position_in_words(view), strict=True):
            lines = folded.split("\n")
            assert all(len(line) <= 80 for line in lines), folded
            for line in lines[1:]:
                assert line.startswith("  ") and any(
                    not re.search(r"\d", token) for token in line.split()
                ), line
            assert re.sub(r"\n  (and )?", " ", folded).replace(", and ", ", ") == (
                sentence.replace(", and ", ", ")
            )


def test_ranges_are_unambiguous_and_shorter() -> None:
    """Issue 21, point 10: whole rows as ranges, both ends on one rank or one file."""
    row = [f"{file}1" for file in "abcdefghijklmn"]
    assert squares_in_words([*row, "a3", "a4"]) == "a1 to n1, a3, a4"
    assert squares_in_words(["c2", "c3", "c4", "c5", "e1"]) == "c2 to c5, e1"
    assert squares_in_words(["a1", "c1", "b2"]) == "a1, c1, b2"
    assert squares_in_words(["b10", "b11", "b12", "a9"]) == "a9, b10 to b12"
    for listed in (row, ["c2", "c3", "c4", "c5", "e1"], ["a1", "c1", "b2", "p16"]):
        assert sorted(expand(squares_in_words(listed))) == sorted(listed)


def test_a_view_without_a_last_move_says_so() -> None:
    """Issue 21, point 10: the opening mail says no move was played yet."""
    view = engine.new_game("epaminondas").initial_state().view(0).to_json()
    assert sentences({**view, "last_move": None, "last_squares": []})[:3] == [
        "No move has been played yet.",
        "White: stones on a1 to n1, a2 to n2 (28).",
        "Black: stones on a11 to n11, a12 to n12 (28).",
    ]
    assert position_in_words(view)[0].startswith("White: ")  # the public page: no move line


# --- in every mail kind ------------------------------------------------------------------------

BOARD_KINDS = {
    "invitation",
    "game_started",
    "your_turn",
    "orders_received",
    "turn_resolved",
    "opponent_moved",
    "reply_receipt",
    "reminder",
    "draw_news",
    "takeback_news",
    "default_orders",
    "game_over",
    "error_reply",
    "help",
    "confirm_resign",
    "confirm_reply",
    "digest",
    "vacation",
    "league_result",
}
"""The kinds whose text part draws a board (the others: a one-line receipt, league news)."""


def _views(values: Mapping[str, Any]) -> list[dict[str, Any]]:
    if values.get("games"):
        return [game["view"] for game in values["games"]]
    return [values["view"]] if values.get("view") else []


def _with_last_move(game: str, view: Mapping[str, Any], board_text: str) -> dict[str, Any]:
    moved = positions(game, None)[0]
    shown = reader_view(view, False, moved["last_move"], moved["last_squares"])
    return {**shown, "board_text": board_text}


def _contexts(kind: str, game: str, board_text: str) -> dict[str, Any]:
    values = context(kind, game)
    if values.get("view"):
        values["view"] = _with_last_move(game, values["view"], board_text)
    if values.get("games"):
        values["games"] = [
            {**one, "view": _with_last_move(game, one["view"], board_text)}
            for one in values["games"]
        ]
    return values


@pytest.mark.parametrize("game", BOARD_GAMES)
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_words_come_before_the_grid_in_every_game_mail(kind: str, game: str) -> None:
    """Issue 21, point 10: in every mail kind with a board, the words (last move first)
    stand before the grid in the text part; with ``board_text: words`` the grid is gone."""
    for board_text in ("grid", "words"):
        values = _contexts(kind, game, board_text)
        text = render_email(kind, values).text
        boards = [view for view in _views(values) if render_board_text(view) in text]
        assert bool(boards) == (kind in BOARD_KINDS), "a board mail without its board in words"
        for view in boards:
            words = position_in_words(view)
            at = text.index(words[0].split(". ")[0])
            for line in "\n".join(words).splitlines():
                assert line in text, line
                assert len(line) <= 80, line
            if board_text == "grid":
                assert at < text.index(view["ascii"])
            else:
                assert view["ascii"] not in text
                assert view["ascii"].splitlines()[1] not in text


@pytest.mark.parametrize("kind", sorted(BOARD_KINDS))
def test_every_board_mail_has_the_words(kind: str) -> None:
    """Issue 21, point 10: the game mails that draw a board all carry the words."""
    values = _contexts(kind, "epaminondas", "grid")
    text = render_email(kind, values).text
    assert "Last move (turn 1): White " in text
    assert "White: stones on " in text and "Black: stones on " in text
