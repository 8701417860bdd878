"""Reading a typed reply (``service/mail/reading.py``): the game decides what is a move; prose is
kept and listed, never an error; commands stay strict. Judged against real engine positions."""

from __future__ import annotations

import random

import pytest

import engine
from engine import State
from service.games import read_action
from service.mail import phrases, reading
from service.mail.commands import Kind
from service.mail.extract import extract_text
from service.mail.reading import Judge, read_reply


def opening(name: str, options: dict[str, str] | None = None) -> State:
    state, rng = engine.new_game(name, options or {}).initial_state(), random.Random(1)
    while state.chance_outcomes():
        state = state.apply_chance(rng.choice(state.chance_outcomes())).state
    return state


def judge(state: State) -> Judge:
    return lambda text: read_action(state, state.to_act[0], text)


EPAMINONDAS = judge(opening("epaminondas"))


def kinds(text: str, judged: Judge = EPAMINONDAS) -> list[tuple[str, str]]:
    return [(c.kind.value, c.argument) for c in read_reply(text, judged).commands]


def test_one_legal_candidate_is_played_and_the_rest_is_listed_as_ignored() -> None:
    read = read_reply("Hallo Bob,\nMein Zug: d1-d4\nThat makes it 3-2 for me\nCarol", EPAMINONDAS)
    assert [(c.kind, c.argument, c.line) for c in read.commands] == [
        (Kind.MOVE, "d1-d4", "Mein Zug: d1-d4")
    ]
    assert [(i.line, i.why) for i in read.ignored] == [
        ("Hallo Bob,", "a greeting"),
        ("That makes it 3-2 for me", reading.PROSE),
        ("Carol", "a name"),
    ]


def test_several_different_moves_play_nothing_and_name_them() -> None:
    [command] = read_reply("d1-d4\nor f2-e3?", EPAMINONDAS).commands
    assert command.kind is Kind.ERROR and "2 different moves" in command.note
    assert "'d1-d4'" in command.note and "'f2-e3'" in command.note


def test_the_same_move_written_twice_is_one_move() -> None:
    assert kinds("d1-d4\nSo: d1-d4 it is.") == [("move", "d1-d4")]


def test_a_notation_line_left_out_of_the_move_blocks_it() -> None:
    """Half of what was meant is never played (a chain with a wrong second step, a typo)."""
    [command] = read_reply("d1-d4\nd9-d1", EPAMINONDAS).commands
    assert command.kind is Kind.ERROR and "nothing was played" in command.note
    assert command.line == "d1-d4\nd9-d1"


def test_nothing_legal_but_notation_is_the_engines_error() -> None:
    [command] = read_reply("I play d1-d9 now", EPAMINONDAS).commands
    assert command.kind is Kind.ERROR and command.note.startswith("illegal move 'd1-d9'")


def test_prose_alone_asks_for_nothing() -> None:
    read = read_reply("Hi, I resign myself to a long game.\nNice board!", EPAMINONDAS)
    assert read.commands == ()
    assert [i.why for i in read.ignored] == [
        "not a command alone on its line: to resign, write 'resign' alone on a line",
        "not a command alone on its line: to get the board, write 'board' alone on a line",
    ]


def test_a_command_alone_on_its_line_is_done_and_a_sentence_beside_it_is_kept() -> None:
    read = read_reply("board\nThanks, and sorry for the delay.", EPAMINONDAS)
    assert [c.kind for c in read.commands] == [Kind.BOARD]
    assert [i.line for i in read.ignored] == ["Thanks, and sorry for the delay."]


def test_snip_marks_are_never_read() -> None:
    read = read_reply("[...]\nd1-d4\n[snip]\n<snip>\n…", EPAMINONDAS)
    assert [(c.kind, c.argument) for c in read.commands] == [(Kind.MOVE, "d1-d4")]
    assert read.ignored == ()


@pytest.mark.parametrize(
    ("game", "options", "typed"),
    [
        ("elasta", {}, "a7 b6 c5 d4\ne3 f2 g1 h0"),
        ("elasta", {}, "7 6 5 4\n3 2 1 0"),
        ("nelaxtam", {}, "1:a1 2:c1 3:e1\n4:f6 5:g7"),
    ],
)
def test_orders_over_several_lines_are_one_set(
    game: str, options: dict[str, str], typed: str
) -> None:
    state = opening(game, options)
    [command] = read_reply(f"Orders:\n{typed}\nCheers", judge(state)).commands
    assert command.kind is Kind.MOVE
    assert command.argument == read_action(state, 0, typed.replace("\n", " "))


def test_a_signature_line_is_listed_unless_it_is_notation() -> None:
    read = read_reply("Good luck!", EPAMINONDAS, signature=("d1-d4", "+49 30 1234567"))
    assert [(c.kind, c.argument) for c in read.commands] == [(Kind.MOVE, "d1-d4")]
    assert ("+49 30 1234567", "a signature") in [(i.line, i.why) for i in read.ignored]


def test_too_many_candidates_play_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reading, "MAX_CANDIDATES", 3)
    [command] = read_reply("a1 b2 c3 d4 e5 f6\nd1-d4", EPAMINONDAS).commands
    assert command.kind is Kind.ERROR and "too many lines that could be moves" in command.note


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        *[(g, "greeting") for g in ("Hi Bob,", "Hallo", "Bonjour !", "Hola", "Ciao Ann", "Hoi",
                                     "Olá", "Cześć,", "Привет!")],
        *[(c, "sign-off") for c in ("Thanks!", "Best, Dana", "Viele Grüße", "Merci !",
                                     "Un saludo,", "Saluti", "Groet,", "Abraços,", "Pozdrawiam",
                                     "С уважением")],
        *[(label, "label") for label in ("my move:", "Mein Zug:", "Mon coup :", "Mi jugada:",
                                         "La mia mossa:", "Mijn zet:", "Minha jogada:",
                                         "Mój ruch:", "Мой ход:")],
        ("Carol", "name"),
        ("– J.", "name"),
        ("That makes it 3-2 for me", ""),
    ],
)  # fmt: skip
def test_the_phrase_tables_name_lines_in_nine_languages(line: str, kind: str) -> None:
    assert phrases.kind_of(line) == kind


@pytest.mark.parametrize(
    "attribution",
    [
        "Ann <ann@example.org> wrote:",
        "Ann <ann@example.org> schrieb am Sa., 1. März 2025, 17:00:",
        "Am Sa., 1. März 2025 um 17:00 Uhr schrieb Ann <ann@example.org>:",
        "Ann <ann@example.org> пише:",
        "01.03.2025 17:00, Ann пишет:",
        "W dniu 1.03.2025 o 17:00, Ann pisze:",
        "Ann <ann@example.org> escreveu:",
        "* Ann <ann@example.org> [2025-03-01 17:00 +0100]:",
    ],
)
def test_attributions_without_a_date_or_with_the_verb_first_end_the_reply(
    attribution: str,
) -> None:
    body = f"d1-d4\n\n{attribution}\nThe quoted text, not marked with '>'.\na1-a3\n"
    assert extract_text(body) == "d1-d4"


@pytest.mark.parametrize("first", ["Sent", "Date", "To", "Verzonden", "Gesendet"])
def test_an_html_quote_header_may_start_with_any_field(first: str) -> None:
    fields = [f"<b>{first}:</b> Saturday 17:00", "<b>From:</b> pbem", "<b>Subject:</b> Turn"]
    html = f"<div>d1-d4</div><div>{'<br>'.join(fields)}</div><div>a1-a3 is an example</div>"
    assert extract_text(html, html=True) == "d1-d4"


def test_an_interleaved_reply_keeps_the_text_between_quotes() -> None:
    body = "> Your turn, Bob:\n[...]\n\nd1-d4\n\n> For example: a1-a3, e1-b4\n\n[snip]\n"
    assert kinds(extract_text(body)) == [("move", "d1-d4")]


def test_a_line_typed_between_two_quoted_lines_is_the_reply() -> None:
    body = "> Your turn, Bob:\nd1-d4\n> For example: a1-a3, e1-b4\n"
    assert kinds(extract_text(body)) == [("move", "d1-d4")]


def test_our_own_example_line_is_never_read_as_a_move() -> None:
    """Even unquoted, with a single example in it (a quote whose marks a client dropped)."""
    read = read_reply("For example: d1-d4\nThanks", EPAMINONDAS)
    assert read.commands == ()
    assert read.ignored[0].why == "the example moves of our mail"


def test_a_body_past_the_read_limit_is_said_not_silently_cut(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from service.mail import extract

    monkeypatch.setattr(extract, "READ_SECONDS", -1.0)
    raw = "From: ann@example.org\r\nSubject: Re\r\n\r\nd1-d4\r\n"
    reply = extract.extract_reply(raw)
    assert reply.text == "" and reply.problem.startswith("the mail is too long to read within")
