"""The mail commands in the nine languages (issue 24): every phrase of
``phrases.COMMAND_PHRASES`` is read as the command it means, whole lines only; a resignation
in any language is doubted as an English one is; no localized word is any game's notation;
``help`` lists the commands in the reader's language."""

from __future__ import annotations

import random

import pytest

import engine
from service import i18n
from service.errors import ServiceError
from service.games import read_action
from service.mail import phrases
from service.mail.commands import Kind, local_word, read_command, resignation_doubt
from service.mail.reading import read_reply
from service.mail.render import COMMANDS, local_commands, render_email
from tests.mail.scenarios import context
from tests.mail.test_reading import EPAMINONDAS

KINDS = {
    "resign": (Kind.RESIGN, ""),
    "draw": (Kind.DRAW, ""),
    "draw off": (Kind.DRAW, "off"),
    "accept": (Kind.ACCEPT, ""),
    "decline": (Kind.DECLINE, ""),
    "board": (Kind.BOARD, ""),
    "help": (Kind.HELP, ""),
    "wait": (Kind.WAIT, "on"),
    "wait off": (Kind.WAIT, "off"),
    "vacation on": (Kind.VACATION, "on"),
    "vacation off": (Kind.VACATION, "off"),
    "takeback": (Kind.TAKEBACK, "offer"),  # issue 25
    "takeback accept": (Kind.TAKEBACK, "accept"),
    "takeback decline": (Kind.TAKEBACK, "decline"),
    "undo": (Kind.UNDO, ""),
}
OTHERS = tuple(code for code in i18n.LANGUAGES if code != "en")
EVERY_PHRASE = [
    (code, english, phrase)
    for code, table in phrases.COMMAND_PHRASES.items()
    for english, said in table.items()
    for phrase in said
]


def test_every_language_but_english_has_every_command() -> None:
    assert set(phrases.COMMAND_PHRASES) == set(OTHERS)
    for table in phrases.COMMAND_PHRASES.values():
        assert set(table) == {*KINDS, "preview", "note"}
        assert all(said for said in table.values())


@pytest.mark.parametrize(
    ("code", "english", "phrase"), [p for p in EVERY_PHRASE if p[1] not in ("preview", "note")]
)
def test_each_phrase_is_its_command_whatever_the_case_and_punctuation(
    code: str, english: str, phrase: str
) -> None:
    for typed in (phrase, phrase.capitalize() + ".", f"  {phrase.upper()}!  "):
        command = read_command(typed)
        assert command is not None, typed
        assert (command.kind, command.argument) == KINDS[english], typed


@pytest.mark.parametrize("code", OTHERS)
@pytest.mark.parametrize("english", sorted(KINDS))
def test_one_command_per_language_and_kind_through_the_reader(code: str, english: str) -> None:
    """The reader (``read_reply``) runs it, with a greeting and a closing beside it."""
    typed = f"{local_word(english, code).capitalize()}\n"
    read = read_reply(typed, EPAMINONDAS)
    assert [(c.kind, c.argument) for c in read.commands] == [KINDS[english]]
    greeting, closing = phrases.GREETINGS[code][0], phrases.CLOSINGS[code][0]
    read = read_reply(f"{greeting},\n{typed}{closing}", EPAMINONDAS)
    assert [(c.kind, c.argument) for c in read.commands] == [KINDS[english]]


@pytest.mark.parametrize(
    ("typed", "move"),
    [
        ("Vorschau a1-a3", "a1-a3"),
        ("aperçu : a1-a3", "a1-a3"),
        ("vista previa a1-a3", "a1-a3"),
        ("Anteprima a1-a3", "a1-a3"),
        ("voorbeeld a1-a3", "a1-a3"),
        ("prévia a1-a3", "a1-a3"),
        ("podgląd a1-a3", "a1-a3"),
        ("Предпросмотр a1-a3", "a1-a3"),
    ],
)
def test_preview_in_each_language(typed: str, move: str) -> None:
    [command] = read_reply(typed, EPAMINONDAS).commands
    assert (command.kind, command.argument) == (Kind.PREVIEW, move)


@pytest.mark.parametrize(
    ("typed", "doubt"),
    [
        ("Soll ich aufgeben?", "doubt"),
        ("Vielleicht gebe ich morgen auf", "doubt"),
        ("Ich gebe nicht auf!", "refused"),
        ("Dois-je abandonner ?", "doubt"),
        ("Je n'abandonne pas", "refused"),
        ("¿Me rindo?", "doubt"),
        ("Quizás abandono mañana", "doubt"),
        ("No me rindo nunca", "refused"),
        ("Forse mi arrendo", "doubt"),
        ("Non abbandono", "refused"),
        ("Misschien geef ik op", "doubt"),
        ("Ik geef niet op", "refused"),
        ("Talvez eu desista", "doubt"),
        ("Não desisto", "refused"),
        ("Może się poddaję", "doubt"),
        ("Nie poddaję się", "refused"),
        ("Может, сдаюсь?", "doubt"),
        ("Не сдаюсь", "refused"),
    ],
)
def test_a_resignation_said_with_doubt_or_no_in_any_language_resigns_nobody(
    typed: str, doubt: str
) -> None:
    """The English rules (``Kind.CONFIRM`` for doubt, no command for "not") in each
    language: nothing is resigned, whatever else the reply says."""
    assert resignation_doubt(typed) == doubt
    kinds = [c.kind for c in read_reply(typed, EPAMINONDAS).commands]
    assert Kind.RESIGN not in kinds
    assert kinds == ([Kind.CONFIRM] if doubt == "doubt" else [])


@pytest.mark.parametrize(
    "typed",
    ["Hallo Bob, ich gebe auf. Gutes Spiel!", "Bonjour, j'abandonne. Merci pour la partie!",
     "Сдаюсь. Спасибо за игру!", "Ciao, mi arrendo. Bella partita!"],
)  # fmt: skip
def test_a_deliberate_resignation_in_a_short_line_of_prose_resigns(typed: str) -> None:
    [command] = read_reply(typed, EPAMINONDAS).commands
    assert command.kind is Kind.RESIGN


def test_a_localized_word_inside_a_sentence_is_no_command() -> None:
    """Whole lines only, as in English: prose that uses the word is not guessed from."""
    for typed in ("Remis wäre schade, ich spiele weiter", "la nulle ne m'intéresse guère"):
        assert Kind.DRAW not in [c.kind for c in read_reply(typed, EPAMINONDAS).commands]


def _openings() -> list[tuple[str, engine.State]]:
    found = []
    for name in engine.names():
        state, rng = engine.new_game(name, {}).initial_state(), random.Random(1)
        while state.chance_outcomes():
            state = state.apply_chance(rng.choice(state.chance_outcomes())).state
        found.append((name, state))
    return found


def test_no_command_word_in_any_language_is_any_games_notation() -> None:
    """The module docstring's promise (``commands.py``): a command word is never a move. Each
    game's parser, for each seat to act, refuses every phrase as unreadable notation."""
    words = {phrase for _code, _english, phrase in EVERY_PHRASE}
    assert len(engine.names()) >= 5
    for name, state in _openings():
        for seat in state.to_act:
            for word in sorted(words):
                with pytest.raises(ServiceError) as refused:
                    read_action(state, seat, word)
                assert refused.value.code == "cannot_read", (name, word, refused.value)


# -- help in the reader's language ----------------------------------------------------------


def test_english_help_lists_the_commands_as_before() -> None:
    assert local_commands("en") == list(COMMANDS)


@pytest.mark.parametrize("code", OTHERS)
def test_help_lists_the_local_commands_next_to_the_english_ones(code: str) -> None:
    listed = dict(local_commands(code))
    assert f"{local_word('resign', code)} / resign" in listed
    assert f"{local_word('draw', code)} / draw" in listed
    assert f"{local_word('help', code)} / help" in listed
    assert "if <X> then <Y>" in listed
    translated = i18n.translations(code).ugettext
    assert all(meaning == translated(english) for (_, english), meaning in
               zip(COMMANDS, listed.values(), strict=True))  # fmt: skip


@pytest.mark.parametrize(
    ("code", "subject", "line"),
    [
        ("de", "Hilfe: die Befehle, die du uns mailen kannst", "aufgeben / resign"),
        ("fr", "Aide : les commandes que vous pouvez nous envoyer", "abandonner / resign"),
        ("es", "Ayuda: los comandos que puedes enviarnos", "tablas / draw"),
        ("it", "Aiuto: i comandi che puoi inviarci", "patta / draw"),
        ("nl", "Help: de opdrachten die je ons kunt mailen", "opgeven / resign"),
        ("pt", "Ajuda: os comandos que você pode nos enviar", "desisto / resign"),
        ("pl", "Pomoc: polecenia, które możesz nam wysłać", "poddaję się / resign"),
        ("ru", "Справка: команды, которые можно прислать нам", "сдаюсь / resign"),
    ],
)
def test_the_help_mail_is_written_in_the_readers_language(
    code: str, subject: str, line: str
) -> None:
    mail = render_email("help", {**context("help", "epaminondas"), "locale": code})
    assert subject in mail.subject
    assert line in mail.text and line in mail.html
    assert "Hello" not in mail.text.split("\n\n")[1]
    translated = i18n.translations(code).ugettext
    assert translated("give up the game") in mail.html
    english = render_email("help", context("help", "epaminondas"))
    assert "Help: the commands you can mail us" in english.subject
