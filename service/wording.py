"""A game's options in words, as mails and the public game page show them.

``{"anti_copy": "on", "board": "14x12"}`` reads "Board 14×12, anti-copy rule on" (issue 21,
point 4: mails showed the raw keys). The options come in the order the game declares them;
an option this module has no words for reads "key value", its underscores as spaces.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from engine import registry
from engine.errors import UnknownGameError
from service import i18n
from service.i18n import N_

Phrase = Callable[[str], str]


def _(message: str, **values: str) -> str:
    """``message`` in the locale being rendered (a mail's reader's, else English)."""
    return i18n.gettext(i18n.current(), message, **values)


def _size(value: str) -> str:
    return _("Board %(size)s", size=value.replace("x", "×"))


def _square(value: str) -> str:
    return _("Board %(size)s", size=value + "×" + value)


def _switch(on: str, off: str) -> Phrase:
    """An on/off option: its two phrases, marked whole (word order differs by language)."""
    phrases = {"on": on, "off": off}
    return lambda value: _(phrases[value]) if value in phrases else value


def _named(phrases: Mapping[str, str], other: str) -> Phrase:
    return lambda value: _(phrases[value]) if value in phrases else _(other, value=value)


PHRASES: Mapping[tuple[str, str], Phrase] = {
    ("epaminondas", "board"): _size,
    ("epaminondas", "anti_copy"): _switch(N_("anti-copy rule on"), N_("anti-copy rule off")),
    ("anti-grid", "board"): _named(
        {
            "large": N_("Large board (16×16, 15 pawns each)"),
            "small": N_("Small board (12×12, 11 pawns each)"),
        },
        N_("Board %(value)s"),
    ),
    ("anti-grid", "chain"): _switch(N_("chain captures on"), N_("chain captures off")),
    ("elemento", "dice"): _named(
        {
            "rolled": N_("dice rolled before every turn"),
            "turned": N_("dice turned, not rolled"),
        },
        N_("dice %(value)s"),
    ),
    ("nelaxtam", "size"): _square,
    ("nelaxtam", "sea"): lambda value: _("%(value)s of the 5 troops land by sea", value=value),
    ("nelaxtam", "variant"): _named(
        {"wild": N_("wild variant"), "quiet": N_("quiet variant")}, N_("%(value)s variant")
    ),
}
"""Words for one option value, per (game, option key)."""


def options_in_words(game: str, options: Mapping[str, str]) -> str:
    """One line for a game's options: ``Board 14×12, anti-copy rule on``; "" for none."""
    try:
        declared = list(registry.game_class(game).OPTIONS)
    except UnknownGameError:  # a game no longer installed: its options as given
        declared = []
    keys = [key for key in declared if key in options]
    keys += sorted(key for key in options if key not in keys)
    parts = []
    for key in keys:
        phrase = PHRASES.get((game, key))
        value = str(options[key])
        parts.append(phrase(value) if phrase else f"{key.replace('_', ' ')} {value}")
    line = ", ".join(parts)
    return line[:1].upper() + line[1:]
