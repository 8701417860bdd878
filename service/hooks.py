"""Hooks: how a lower module tells a higher one of an event without importing it.

``service.games`` plays moves; ``service.conditional`` answers a move at once from a player's
conditional moves. It registers when imported (the API, the mail gateway and the play page
import it: every way a move comes in), and games call the hook after each alternating move.

``service.games`` ends games; ``service.leagues`` records results, rates the game and starts
the next round. Leagues register here when imported (every process that runs games imports
them: the web app, the worker's tasks and the command line), and games call the hook in the
transaction that ends the game.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy.orm import Session

if TYPE_CHECKING:
    from engine import Outcome
    from service.models import Game

GameFinished = Callable[[Session, "Game", "Outcome", str, datetime], None]

_game_finished: list[GameFinished] = []


def on_game_finished(hook: GameFinished) -> GameFinished:
    """Call ``hook(session, game, outcome, by, now)`` whenever a game ends (once per hook)."""
    if hook not in _game_finished:
        _game_finished.append(hook)
    return hook


def game_finished(session: Session, game: Game, outcome: Outcome, by: str, now: datetime) -> None:
    for hook in _game_finished:
        hook(session, game, outcome, by, now)


MovePlayed = Callable[[Session, "Game", datetime], None]

_move_played: list[MovePlayed] = []


def on_move_played(hook: MovePlayed) -> MovePlayed:
    """Call ``hook(session, game, now)`` after every move of an alternating game (once a hook)."""
    if hook not in _move_played:
        _move_played.append(hook)
    return hook


def move_played(session: Session, game: Game, now: datetime) -> None:
    for hook in _move_played:
        hook(session, game, now)
