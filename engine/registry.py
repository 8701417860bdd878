"""Games by name. Every module in ``engine.games`` registers its game on import.

>>> "epaminondas" in names()
True
>>> new_game("epaminondas", {"board": "8x8"}).option("board")
'8x8'
"""

from __future__ import annotations

import contextlib
import importlib
import pkgutil
from collections.abc import Mapping
from typing import Any

from engine.core import Game, State
from engine.errors import N_, PositionError, Reason, UnknownGameError, state_lacks

_GAMES: dict[str, type[Game]] = {}
_loaded = False


def register(game: type[Game]) -> type[Game]:
    """Class decorator: make a game available by its ``name``."""
    _GAMES[game.name] = game
    return game


def _load() -> None:
    global _loaded
    if not _loaded:
        import engine.games

        for module in pkgutil.iter_modules(engine.games.__path__):
            if not module.name.startswith("_"):
                importlib.import_module(f"engine.games.{module.name}")
        _loaded = True


def names() -> tuple[str, ...]:
    _load()
    return tuple(sorted(_GAMES))


def _load_one(key: str) -> None:
    """Import only the module named after the game (a command line needs just that one)."""
    module = key.replace("-", "_")
    if module.isidentifier() and not module.startswith("_"):
        with contextlib.suppress(ModuleNotFoundError):
            importlib.import_module(f"engine.games.{module}")


def game_class(name: str) -> type[Game]:
    key = name.strip().lower()
    if key not in _GAMES:
        _load_one(key)
    if key not in _GAMES:
        _load()
    if key not in _GAMES:
        raise UnknownGameError(name, Reason("no_such_game", N_("no such game")), valid=names())
    return _GAMES[key]


def new_game(
    name: str, options: Mapping[str, str] | None = None, players: int | None = None
) -> Game:
    """A game bound to options and a player count; raises UnknownGameError or OptionError."""
    return game_class(name)(options, players)


def game_from_json(data: Mapping[str, Any]) -> Game:
    return new_game(data["game"], data.get("options") or {}, data.get("players"))


def state_from_json(data: Mapping[str, Any]) -> State:
    """Restore any game's state from ``State.to_json`` output."""
    try:
        game = game_from_json(data)
    except KeyError as missing:
        raise PositionError(str(dict(data))[:80], state_lacks(missing)) from None
    return game.state_from_json(data)
