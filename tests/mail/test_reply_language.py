"""The ``language`` command and the language a reply is written in (issue 24):
``commands.py`` reads ``language de`` in the nine languages' own words; ``phrases.language_of``
tells a reply's language from its greetings, sign-offs, labels and that command's word."""

from __future__ import annotations

import pytest

from service.mail.commands import Kind, read_command, read_commands
from service.mail.phrases import language_of


@pytest.mark.parametrize(
    ("line", "argument"),
    [
        ("language de", "de"),
        ("Language: DE.", "de"),
        ("Sprache Deutsch", "deutsch"),
        ("langue fr", "fr"),
        ("idioma es", "es"),
        ("lingua italiano", "italiano"),
        ("taal nl", "nl"),
        ("língua pt", "pt"),
        ("Język: polski", "polski"),
        ("язык русский", "русский"),
        ("language klingon", "klingon"),  # read here; refused with the list where it is done
    ],
)
def test_the_language_command_is_read_in_each_language(line: str, argument: str) -> None:
    for command in (read_command(line), read_commands(line)[0]):
        assert command is not None
        assert (command.kind, command.argument) == (Kind.LANGUAGE, argument)


def test_the_language_word_alone_says_how_to_write_it() -> None:
    assert read_command("language") is None
    (command,) = read_commands("language")
    assert command.kind is Kind.ERROR
    assert "'language de'" in command.note
    assert "en, de, fr, es, it, nl, pt, pl, ru" in command.note


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Mein Zug: c1-c4", "de"),
        ("Hallo Bob,\nd1-d4\nViele Grüße", "de"),
        ("Hallo\nd1-d4\nGroeten", "nl"),
        ("Hi Bob,\ne2-e4\nCheers", "en"),
        ("Bonjour,\nmon coup : d1-d4\nmerci", "fr"),
        ("Hola\nmi jugada: d1-d4\nSaludos", "es"),
        ("Ciao\nmossa: d1-d4\ngrazie", "it"),
        ("Olá\njogada: d1-d4\nobrigado", "pt"),
        ("Cześć\nmój ruch: d1-d4\nPozdrawiam", "pl"),
        ("Привет\nмой ход: d1-d4\nСпасибо", "ru"),
        ("Sprache de", "de"),
        ("d1-d4", None),  # a move alone shows no language
        ("Hallo", None),  # German or Dutch: not guessed
        ("", None),
    ],
)
def test_the_language_of_a_reply(text: str, code: str | None) -> None:
    assert language_of(text) == code


def test_prose_about_language_does_not_stop_the_move_beside_it() -> None:
    """A sentence that uses the word is prose, not a badly written ``language`` command."""
    from service.mail.commands import Kind, read_commands

    kinds = [command.kind for command in read_commands("c1-c4\nSorry about my language")]
    assert Kind.ERROR not in kinds and Kind.LANGUAGE not in kinds


def test_the_bare_word_says_how_to_write_the_command() -> None:
    from service.mail.commands import Kind, read_commands

    (command,) = read_commands("Sprache")
    assert command.kind is Kind.ERROR and "language de" in command.note
    assert read_commands("what language do you speak")[0].kind is not Kind.ERROR
