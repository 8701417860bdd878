"""Reading a typed reply into commands: every line accounted for, nothing played by guesswork."""

from __future__ import annotations

import dataclasses

import pytest

from engine.errors import EngineError
from engine.registry import game_class
from service.mail.commands import (
    MAX_LINE_CHARS,
    MAX_LINES,
    Command,
    Kind,
    read_command_in_prose,
    read_commands,
    resignation_doubt,
)


def kinds(text: str) -> list[tuple[Kind, str]]:
    return [(command.kind, command.argument) for command in read_commands(text)]


# --- one command per line ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "kind", "argument"),
    [
        ("resign", Kind.RESIGN, ""),
        ("Resign.", Kind.RESIGN, ""),
        ("I resign", Kind.RESIGN, ""),
        ("RESIGN!", Kind.RESIGN, ""),
        ("draw", Kind.DRAW, ""),
        ("draw?", Kind.DRAW, ""),
        ("Offer a draw.", Kind.DRAW, ""),
        ("draw offer", Kind.DRAW, ""),
        ("accept", Kind.ACCEPT, ""),
        ("Accept the draw!", Kind.ACCEPT, ""),
        ("Draw accepted.", Kind.ACCEPT, ""),
        ("decline", Kind.DECLINE, ""),
        ("Decline the draw offer.", Kind.DECLINE, ""),
        ("no draw", Kind.DECLINE, ""),
        ("board", Kind.BOARD, ""),
        ("Status?", Kind.BOARD, ""),
        ("Show the board.", Kind.BOARD, ""),
        ("Help!", Kind.HELP, ""),
        ("help?", Kind.HELP, ""),
        ("wait", Kind.WAIT, "on"),
        ("Wait on", Kind.WAIT, "on"),
        ("wait off", Kind.WAIT, "off"),
        ("vacation on", Kind.VACATION, "on"),
        ("Vacation  OFF.", Kind.VACATION, "off"),
        ("preview e2-e4", Kind.PREVIEW, "e2-e4"),
        ("Preview: a1-a3", Kind.PREVIEW, "a1-a3"),
        ("PREVIEW 1:NE 2:xn", Kind.PREVIEW, "1:NE 2:xn"),
        ("  \t resign  ", Kind.RESIGN, ""),
    ],
)
def test_each_command_form_reads_alone_on_its_line(line: str, kind: Kind, argument: str) -> None:
    assert read_commands(line) == [Command(kind, argument, line.strip())]


def test_a_move_line_is_passed_on_as_typed() -> None:
    assert read_commands("  A1 - a3  ") == [Command(Kind.MOVE, "A1 - a3", "A1 - a3")]


def test_a_line_that_is_no_command_goes_to_the_engine_which_quotes_it() -> None:
    assert kinds("see you tomorrow") == [(Kind.MOVE, "see you tomorrow")]


def test_blank_lines_and_an_empty_reply_give_nothing() -> None:
    assert read_commands("") == []
    assert read_commands("\n  \n\t\n") == []
    assert kinds("\n\nresign\n\n") == [(Kind.RESIGN, "")]


# --- several lines ----------------------------------------------------------------------------


def test_a_move_and_a_draw_offer_are_two_commands_in_order() -> None:
    assert kinds("e2-e4\ndraw") == [(Kind.MOVE, "e2-e4"), (Kind.DRAW, "")]
    assert kinds("Draw?\ne2-e4") == [(Kind.DRAW, ""), (Kind.MOVE, "e2-e4")]


def test_commands_of_every_kind_together_keep_their_order() -> None:
    text = "board\npreview a1-a3\nvacation on\nwait\nhelp\ndecline"
    assert kinds(text) == [
        (Kind.BOARD, ""),
        (Kind.PREVIEW, "a1-a3"),
        (Kind.VACATION, "on"),
        (Kind.WAIT, "on"),
        (Kind.HELP, ""),
        (Kind.DECLINE, ""),
    ]


def test_previews_stay_separate_and_are_not_joined_to_the_move() -> None:
    assert kinds("preview a1-a3\npreview b1-b2\na1-a3") == [
        (Kind.PREVIEW, "a1-a3"),
        (Kind.PREVIEW, "b1-b2"),
        (Kind.MOVE, "a1-a3"),
    ]


def test_move_lines_anywhere_in_the_reply_form_one_move_at_the_first_ones_place() -> None:
    [move, draw] = read_commands("1:ne\ndraw\n2:xn\n3:hold")
    assert move == Command(
        Kind.MOVE,
        "1:ne 2:xn 3:hold",
        "1:ne\n2:xn\n3:hold",
        "3 lines read together as one move or set of orders",
    )
    assert draw.kind is Kind.DRAW


def test_ten_moves_in_one_reply_are_read_as_one_text_for_the_engine_to_judge() -> None:
    moves = [f"{file}1-{file}2" for file in "abcdefghij"]
    [command] = read_commands("\n".join(moves))
    assert command.kind is Kind.MOVE
    assert command.argument == " ".join(moves)
    assert command.line == "\n".join(moves)
    assert command.note == "10 lines read together as one move or set of orders"


def test_one_move_per_reply_games_reject_the_joined_text_so_nothing_is_played() -> None:
    """Epaminondas (EPA-3): two moves in a reply reach the engine as one text it refuses."""
    state = game_class("epaminondas")().initial_state()
    [command] = read_commands("a1-a3\nb1-b3")
    with pytest.raises(EngineError, match="a1-a3 b1-b3"):
        state.play(0, command.argument)
    assert command.note.startswith("2 lines")


@pytest.mark.parametrize(
    ("game", "one_line", "lines"),
    [
        ("elasta", "a0 b1 c4 d7 e2 f6 g5 h3", "a0 b1 c4 d7\ne2 f6 g5 h3"),
        ("elasta", "01472653", "0147\n2653"),
        ("nelaxtam", "1:a1 2:c1 3:e1 4:f6 5:g7", "1:a1\n2:c1\n3:e1\n4:f6\n5:g7"),
    ],
)
def test_sealed_orders_written_over_several_lines_read_as_on_one_line(
    game: str, one_line: str, lines: str
) -> None:
    """C-1: newlines separate orders just as spaces do."""
    state = game_class(game)().initial_state()
    [command] = read_commands(lines)
    assert state.parse(0, command.argument) == state.parse(0, one_line)


# --- command words used otherwise -----------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "how_to"),
    [
        ("resign now", "write 'resign' alone on a line"),
        ("Hi, I resign", "write 'resign' alone on a line"),
        ("e2-e4 draw", "write 'draw' alone on a line"),
        ("e2-e4, and I offer a draw", "write 'draw' alone on a line"),
        ("draw offer accepted, thanks", "write 'draw' alone on a line"),
        ("vacation", "'vacation on' or 'vacation off'"),
        ("vacation next week", "'vacation on' or 'vacation off'"),
        ("please wait", "write 'wait' (or 'wait off')"),
        ("preview", "'preview' and then your move"),
        ("Preview:", "'preview' and then your move"),
        ("status of game 17", "write 'status' alone on a line"),
        ("Thanks for the help", "write 'help' alone on a line"),
    ],
)
def test_a_command_word_in_another_line_is_an_error_saying_how_to_write_it(
    line: str, how_to: str
) -> None:
    [command] = read_commands(line)
    assert (command.kind, command.line) == (Kind.ERROR, line)
    assert how_to in command.note


def test_a_move_with_a_command_word_on_its_line_is_not_played() -> None:
    assert [command.kind for command in read_commands("e2-e4 resign?\nboard")] == [
        Kind.ERROR,
        Kind.BOARD,
    ]


def test_a_word_that_only_starts_like_a_command_is_no_command() -> None:
    assert kinds("previewing") == [(Kind.MOVE, "previewing")]
    assert kinds("withdrawn") == [(Kind.MOVE, "withdrawn")]


# --- greetings ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    ["Hi", "Hi Bob,", "hello all!", "Dear opponent,", "Good morning", "Thanks!", "Thank you.",
     "Cheers", "thanks for the game", "Many thanks, Ann", "Kind regards"],
)  # fmt: skip
def test_a_lone_greeting_or_thanks_is_marked_and_not_a_move(line: str) -> None:
    assert read_commands(f"{line}\na1-a3\n{line.upper()}") == [
        Command(Kind.GREETING, "", line),
        Command(Kind.MOVE, "a1-a3", "a1-a3"),
        Command(Kind.IGNORED, "", line.upper(), "repeats an earlier line"),
    ]


@pytest.mark.parametrize(
    "line", ["Hi a1-a3", "hello 2", "history", "thanks a lot for this game", "hey-ho"]
)
def test_a_line_with_a_digit_or_more_than_a_short_name_is_not_a_greeting(line: str) -> None:
    assert kinds(line) == [(Kind.MOVE, line)]


# --- repeats and limits ---------------------------------------------------------------------


def test_a_repeated_line_is_read_once() -> None:
    assert read_commands("resign\nResign.\na1-a3\nA1-A3") == [
        Command(Kind.RESIGN, "", "resign"),
        Command(Kind.IGNORED, "", "Resign.", "repeats an earlier line"),
        Command(Kind.MOVE, "a1-a3", "a1-a3"),
        Command(Kind.IGNORED, "", "A1-A3", "repeats an earlier line"),
    ]


def test_lines_past_the_cap_are_reported_as_one_ignored_command() -> None:
    commands = [f"preview a1-a{rank}" for rank in range(1, MAX_LINES + 6)]
    read = read_commands("\n".join(commands))
    assert [command.kind for command in read] == [Kind.PREVIEW] * MAX_LINES + [Kind.IGNORED]
    assert read[-1].line == commands[MAX_LINES]
    assert (
        read[-1].note
        == f"not read: a reply is read up to its first {MAX_LINES} lines (5 lines from this one on)"
    )


def test_one_line_past_the_cap_is_named_alone() -> None:
    read = read_commands("\n".join(f"preview a1-a{rank}" for rank in range(MAX_LINES + 1)))
    assert read[-1].note == f"not read: a reply is read up to its first {MAX_LINES} lines"


def test_a_move_cut_short_by_the_cap_is_not_played() -> None:
    lines = [f"{rank}:hold" for rank in range(MAX_LINES + 3)]
    [move, ignored] = read_commands("\n".join(lines))
    assert move.kind is Kind.ERROR and move.argument == ""
    assert move.line == "\n".join(lines[:MAX_LINES])
    assert "not played" in move.note and ignored.kind is Kind.IGNORED


def test_an_overlong_line_is_an_error_and_not_quoted_whole() -> None:
    line = "a1-a3 " * 100
    [command] = read_commands(f"{line}\nboard")[:1]
    assert command.kind is Kind.ERROR
    assert len(command.line) == MAX_LINE_CHARS and command.line.endswith("…")
    assert (
        command.note
        == f"a line of {len(line.strip())} characters is too long to be a move or a command"
    )


def test_commands_are_frozen_values() -> None:
    command = read_commands("resign")[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        command.kind = Kind.DRAW  # type: ignore[misc]
    assert {command, Command(Kind.RESIGN, "", "resign")} == {command}


# --- commands in short prose (issue 20, finding 6) -------------------------------------------


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("I resign. Good game!", Kind.RESIGN),
        ("Hi Bob, I resign.", Kind.RESIGN),
        ("I resign the game. Thanks for playing!", Kind.RESIGN),
        ("Draw? Well played so far.", Kind.DRAW),
        ("Thanks! Status, please", Kind.BOARD),
        ("I resign. Draw?", None),  # two commands: not guessed
        ("I resign. Played 3 games today", None),  # a digit: maybe a move, not prose
        ("Resign", None),  # one clause: the strict reader's
        ("I resign. It is a long story and I do not want to tell it now", None),
    ],
)
def test_a_command_is_read_from_one_clause_of_short_prose(line: str, kind: Kind | None) -> None:
    command = read_command_in_prose(line)
    assert (command.kind if command else None) is kind
    if command:
        assert command.line == line


@pytest.mark.parametrize(
    ("line", "doubt"),
    [
        ("resign", ""),
        ("I resign. Good game!", ""),
        ("resign?", "doubt"),
        ("Should I resign?", "doubt"),
        ("I might resign", "doubt"),
        ("Maybe I resign", "doubt"),
        ("I resign. Just kidding", "doubt"),
        ("not resigning", "refused"),
        ("I won't resign, d1-d4", "refused"),
        ("Hi, I resign myself to a long game.", ""),  # the word, no doubt: a hint only
        ("Nice board!", ""),
    ],
)
def test_a_resignation_is_deliberate_or_a_doubt_or_refused(line: str, doubt: str) -> None:
    assert resignation_doubt(line) == doubt
