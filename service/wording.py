"""A game's options in words, as mails and the public game page show them.

``{"anti_copy": "on", "board": "14x12"}`` reads "Board 14×12, anti-copy rule on" (issue 21,
point 4: mails showed the raw keys). The options come in the order the game declares them;
an option this module has no words for reads "key value", its underscores as spaces.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from engine import registry
from engine.errors import UnknownGameError

Phrase = Callable[[str], str]


def _size(value: str) -> str:
    return "Board " + value.replace("x", "×")


def _square(value: str) -> str:
    return f"Board {value}×{value}"


def _switch(name: str) -> Phrase:
    return lambda value: f"{name} {value}"


PHRASES: Mapping[tuple[str, str], Phrase] = {
    ("epaminondas", "board"): _size,
    ("epaminondas", "anti_copy"): _switch("anti-copy rule"),
    ("anti-grid", "board"): lambda value: {
        "large": "Large board (16×16, 15 pawns each)",
        "small": "Small board (12×12, 11 pawns each)",
    }.get(value, f"Board {value}"),
    ("anti-grid", "chain"): _switch("chain captures"),
    ("elemento", "dice"): lambda value: {
        "rolled": "dice rolled before every turn",
        "turned": "dice turned, not rolled",
    }.get(value, f"dice {value}"),
    ("nelaxtam", "size"): _square,
    ("nelaxtam", "sea"): lambda value: f"{value} of the 5 troops land by sea",
    ("nelaxtam", "variant"): lambda value: f"{value} variant",
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
