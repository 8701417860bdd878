"""Pure game rules for the play-by-email service: no I/O, no web, no database.

Start with :func:`engine.registry.new_game`; the API is in :mod:`engine.core`.
"""

from engine.core import (
    Cell,
    Event,
    Game,
    Grid,
    Option,
    Outcome,
    Resolution,
    State,
    Termination,
    View,
)
from engine.errors import (
    EngineError,
    GameOverError,
    IllegalMoveError,
    NotationError,
    NotYourTurnError,
    OptionError,
    PositionError,
    Reason,
    UnknownGameError,
)
from engine.registry import game_class, names, new_game, register, state_from_json

__all__ = [
    "Cell",
    "EngineError",
    "Event",
    "Game",
    "GameOverError",
    "Grid",
    "IllegalMoveError",
    "NotYourTurnError",
    "NotationError",
    "Option",
    "OptionError",
    "Outcome",
    "PositionError",
    "Reason",
    "Resolution",
    "State",
    "Termination",
    "UnknownGameError",
    "View",
    "game_class",
    "names",
    "new_game",
    "register",
    "state_from_json",
]
