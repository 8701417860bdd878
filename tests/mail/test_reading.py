"""Reading a typed reply (``service/mail/reading.py``): the game decides what is a move; prose is
kept and listed, never an error; commands stay strict. Judged against real engine positions."""

from __future__ import annotations

import random

import pytest

import engine
from engine import State
from service.games import read_action
from service.mail import phrases, reading
from service.mail import reading as reading_module
from service.mail.commands import Kind
from service.mail.extract import extract_reply, extract_text
from service.mail.reading import Ignored, Judge, Reading, read_reply
from tests.mail.mail_clients import CLIENTS
from tests.mail.reply_corpus import judge as judge_of
from tests.mail.reply_corpus import legal, moment_mail, moments


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


# --- round two (issue 20): from what real clients send ---------------------------------------


def read_from(label: str, client: str, typed: str) -> Reading:
    """``client``'s reply around the mail the service sent at ``label``, read for its player
    (with the legal actions, for "did you mean")."""
    moment = moments()[label]
    reply = extract_reply(CLIENTS[client](moment_mail(moment), typed))
    return read_reply(
        reply.text, judge_of(moment.position), reply.signature, legal(moment.position)
    )


def acted(reading: Reading) -> list[tuple[str, str]]:
    return [(c.kind.value, c.argument) for c in reading.commands]


# Finding 1: a line taken as orders is taken whole.


@pytest.mark.parametrize(
    ("client", "label"),
    [("Gmail ja", "指し手"), ("QQ Mail, GB18030", "我的命令"), ("Becky!, ISO-2022-JP", "命令")],
)
def test_orders_glued_to_a_full_width_colon_are_read_whole_nel_17(client: str, label: str) -> None:
    """The wrong move of finding 1: "命令：1:se 2:ne 3:xw 5:nw" was stored as "2:ne 3:xw 5:nw"
    (the first order lost, glued to the colon). Every order is read."""
    moment = moments()["nelaxtam O turn_resolved"]
    orders = moment.position.action
    assert acted(read_from(moment.label, client, f"{label}：{orders}")) == [("move", orders)]


def test_a_token_glued_to_an_unknown_mark_refuses_the_line_naming_it_nel_17() -> None:
    """The label "Mes ordres" glued to the first order by an arrow: the line is refused,
    naming the token, and no order of it is played (before, the rest was stored)."""
    moment = moments()["nelaxtam O turn_resolved"]
    first, rest = moment.position.action.split(" ", 1)
    reading = read_from(moment.label, "Zimbra", f"Mes ordres→{first} {rest}")
    [command] = reading.commands
    assert command.kind is Kind.ERROR and f"but not '→{first}'" in command.note
    assert "nothing was played" in command.note


def test_a_line_with_a_move_and_another_number_is_refused_naming_the_number() -> None:
    [command] = read_reply("I play d1-d4 at 10:30", EPAMINONDAS).commands
    assert command.kind is Kind.ERROR and "we could read d1-d4" in command.note
    assert "but not '10:30'" in command.note


def test_prose_words_around_a_move_in_its_line_are_read_as_prose() -> None:
    assert kinds("Hi, I play d1-d4 now, your move!") == [("move", "d1-d4")]


# Finding 4: footers are never orders.


def test_a_registration_number_in_a_footer_is_not_a_second_set_of_orders_ela_13() -> None:
    """HRB 01472653 is valid Elasta orders; under the typed orders it was read as a second
    set and the reply refused. A footer line is never orders, here without any signature
    cut (no closing, no delimiter)."""
    elasta = opening("elasta")
    text = "02471563\nACME GmbH, Amtsgericht München HRB 01472653\nTel. +49 89 4711-0"
    read = read_reply(text, judge(elasta))
    assert [(c.kind, c.argument) for c in read.commands] == [(Kind.MOVE, "02471563")]
    assert [i.why for i in read.ignored] == [reading.FOOTER, reading.FOOTER]


@pytest.mark.parametrize(
    "client", ["Outlook de, company footer", "Outlook en, UK company footer", "HCL Notes"]
)
def test_corporate_footers_from_real_clients_are_never_orders_ela_13(client: str) -> None:
    label = "elasta White turn_resolved"
    assert acted(read_from(label, client, "02471563")) == [("move", "02471563")]


# Finding 5: self-corrections.


@pytest.mark.parametrize(
    ("client", "typed"),
    [
        ("Zimbra", "not {other}, I mean {move}"),
        ("FairEmail", "{other}… sorry, {move}"),
        ("HCL Notes", "{other} (typo, I meant {move})"),
        ("Yandex Mail", "{other}\nsorry, I meant {move}"),
        ("Roundcube de", "{move}, nicht {other}"),
        ("Mail.ru app", "{other}... извините, {move}"),
    ],
)
@pytest.mark.parametrize(
    "label",
    ["epaminondas White reminder", "elasta Black reminder", "nelaxtam O turn_resolved"],
)
def test_a_move_the_reply_takes_back_is_not_played_the_other_is(
    label: str, client: str, typed: str
) -> None:
    position = moments()[label].position
    text = typed.format(move=position.action, other=position.other)
    reading = read_from(label, client, text)
    [command] = reading.commands
    assert (command.kind, command.argument) == (Kind.MOVE, position.action)
    assert command.note == f"you took back '{position.other}'"


@pytest.mark.parametrize(
    "typed",
    ["{move}\nor {other}?", "{move} or maybe {other}", "{move}\n{other}", "{other} {move}"],
)
def test_two_moves_without_a_correction_are_refused_naming_both(typed: str) -> None:
    position = moments()["epaminondas White reminder"].position
    text = typed.format(move=position.action, other=position.other)
    [command] = read_from(position.label, "Spark", text).commands
    assert command.kind is Kind.ERROR and "nothing was played" in command.note
    assert position.other in command.note


def test_taking_back_the_only_move_plays_nothing() -> None:
    [command] = read_reply("not d1-d4", EPAMINONDAS).commands
    assert command.kind is Kind.ERROR and "takes back 'd1-d4'" in command.note


def test_a_correction_to_an_illegal_move_gives_the_engines_reason_epa_5() -> None:
    [command] = read_reply("d1-d4 (typo, I meant d1-d5)", EPAMINONDAS).commands
    assert command.kind is Kind.ERROR and "(EPA-5)" in command.note


def test_sorry_between_a_move_and_prose_takes_nothing_back() -> None:
    assert kinds("Sorry for the wait.\nd1-d4\nSorry, busy week.") == [("move", "d1-d4")]


# Finding 6: commands in short prose; resigning stays deliberate.


@pytest.mark.parametrize(
    ("client", "typed", "kind"),
    [
        ("K-9 Mail", "I resign. Good game!", "resign"),
        ("Claws Mail", "Hi Ann, I resign. Well played!", "resign"),
        ("Gmail for Android", "I offer a draw. Good game so far!", "draw"),
        ("Outlook for Android", "Thanks, board please.", None),
    ],
)
def test_a_command_in_a_short_sentence_is_recognised(
    client: str, typed: str, kind: str | None
) -> None:
    reading = read_from("epaminondas White reminder", client, typed)
    assert acted(reading) == ([(kind, "")] if kind else [])


@pytest.mark.parametrize(
    "typed",
    [
        "Should I resign? I really don't see a way out.",
        "I might resign soon.",
        "resign?",
        "I resign. Just kidding!",
        "Maybe I should just resign",
    ],
)
def test_a_resignation_with_doubt_is_not_done_but_asked_about(typed: str) -> None:
    [command] = read_from("anti-grid Red draw_news", "Samsung Email", typed).commands
    assert (command.kind, command.argument) == (Kind.CONFIRM, "resign")
    assert "sounds unsure" in command.note


def test_not_resigning_is_no_command_and_the_move_is_played() -> None:
    label = "elemento 3p North your_turn"
    move = moments()[label].position.action
    reading = read_from(label, "iPhone Mail", f"Not resigning yet!\n{move}")
    assert acted(reading) == [("move", move)]
    assert reading.ignored[0] == Ignored("Not resigning yet!", reading_module.NOT_RESIGNING)


def test_a_doubt_beside_a_move_is_noted_not_asked_about() -> None:
    read = read_reply("d1-d4\nI might resign soon though.", EPAMINONDAS)
    assert [(c.kind, c.argument) for c in read.commands] == [(Kind.MOVE, "d1-d4")]
    assert read.ignored == (Ignored("I might resign soon though.", reading_module.UNSURE),)


# Finding 7: did you mean.


@pytest.mark.parametrize(
    ("label", "client", "written"),
    [
        ("epaminondas Black opponent_moved", "Outlook for iOS", "{a} to {b}"),
        ("anti-grid Blue opponent_moved", "FairEmail", "from {a} to {b}"),
        ("epaminondas White reminder", "Gmail for Android", "{a} > {b}"),
        ("anti-grid Red draw_news", "K-9 Mail", "{a}/{b}"),
    ],
)
def test_a_readable_move_in_another_form_gets_did_you_mean_epa_12_ant_17(
    label: str, client: str, written: str
) -> None:
    move = moments()[label].position.action
    a, b = move.split("-")
    [command] = read_from(label, client, written.format(a=a, b=b)).commands
    assert command.kind is Kind.ERROR and command.note.endswith(f"did you mean {move}?")


def test_elasta_digits_in_another_form_get_did_you_mean_ela_13() -> None:
    label = "elasta Black reminder"
    orders = moments()[label].position.action
    [command] = read_from(label, "Proton Mail", "-".join(orders)).commands
    assert command.kind is Kind.ERROR and command.note.endswith(f"did you mean {orders}?")


def test_no_suggestion_when_several_moves_fit() -> None:
    elemento = opening("elemento")
    legal_ones = [elemento.format(a) for a in elemento.legal_actions(elemento.to_act[0])]
    square = legal_ones[0].split("@")[1]
    typed = f"F or W on {square}"
    assert len(reading_module.fitting(typed, legal_ones)) == 2
    [command] = read_reply(typed, judge(elemento), legal=lambda: legal_ones).commands
    assert "did you mean" not in command.note
