"""The ``language`` preference by mail (issue 24): the ``language de`` command, and the
language of a player's first reply taken as theirs while they have chosen none.

The answers are the first text the service writes in the player's language (``service/i18n.py``):
a confirmation is written in the language just chosen; a refusal in the player's language, or,
when they have none yet, in the language the reply was written in.
"""

from __future__ import annotations

from service import i18n
from service.errors import Unprocessable
from service.i18n import N_
from service.mail.phrases import language_of
from service.models import Player

__all__ = ["choose", "default_from_reply"]

SET = N_("language set: %(language)s; from now on we write to you in this language")
HEADLINE = N_("Language: %(language)s")
UNKNOWN = N_("we do not write in '%(given)s'; choose one of: %(choices)s")


def choices(locale: str) -> str:
    """ "en (English), de (Deutsch), ...": each language by its own name (as a reader looks
    for their own)."""
    del locale  # the names stay each language's own, whatever the reader's language
    return ", ".join(f"{code} ({i18n.language_name(code)})" for code in i18n.LANGUAGES)


def choose(player: Player, given: str, reply_text: str) -> tuple[str, str]:
    """Set ``player``'s language to the one ``given`` names (a code or a name): what to
    answer and the answer's headline, in that language. An unknown one changes nothing and
    is refused (``Unprocessable``), naming the valid codes."""
    code = i18n.language_code(given)
    if code is None:
        locale = player.language or language_of(reply_text) or i18n.DEFAULT
        message = i18n.gettext(locale, UNKNOWN, given=given, choices=choices(locale))
        raise Unprocessable(message, "unknown_language")
    player.language = code
    name = i18n.language_name(code)
    return i18n.gettext(code, SET, language=name), i18n.gettext(code, HEADLINE, language=name)


def default_from_reply(player: Player, reply_text: str) -> None:
    """A player who has chosen no language gets the one their reply shows, if any (a move
    alone shows none: a later reply decides)."""
    if player.language is None:
        player.language = language_of(reply_text)
