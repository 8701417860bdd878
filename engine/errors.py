"""The engine's one error hierarchy.

Every message is written for a person: it is mailed to players verbatim. It quotes what
was read, says why in plain words, names the rule (shared/rules C-2) and, where the list
is short, shows what *is* valid.

>>> err = IllegalMoveError("b2-b4", "a single stone moves at most 1 square", rule="EPA-5")
>>> str(err)
"illegal move 'b2-b4': a single stone moves at most 1 square (EPA-5)"
>>> str(NotationError("zz", "a move is <tail>-<dest>, e.g. a1-a3", valid=["a1-a2", "b1-b2"]))
"cannot read 'zz': a move is <tail>-<dest>, e.g. a1-a3. Valid here: a1-a2, b1-b2"
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "EngineError",
    "GameOverError",
    "IllegalMoveError",
    "NotYourTurnError",
    "NotationError",
    "OptionError",
    "PositionError",
    "UnknownGameError",
]

MAX_VALID_SHOWN = 12


class EngineError(Exception):
    """Base of every error the engine raises on purpose; the message is for players."""

    label = "error"

    def __init__(
        self,
        text: str,
        reason: str,
        *,
        rule: str | None = None,
        valid: Iterable[str] = (),
    ) -> None:
        self.text = text
        self.reason = reason
        self.rule = rule
        self.valid = tuple(valid)
        super().__init__(self._message())

    def _message(self) -> str:
        message = f"{self.label} {self.text!r}: {self.reason}"
        if self.rule:
            message += f" ({self.rule})"
        if self.valid:
            shown = ", ".join(self.valid[:MAX_VALID_SHOWN])
            more = len(self.valid) - MAX_VALID_SHOWN
            message += f". Valid here: {shown}" + (f" and {more} more" if more > 0 else "")
        return message

    @property
    def message(self) -> str:
        return str(self)


class NotationError(EngineError):
    """The text cannot be read as a move or set of orders (C-2 syntax error)."""

    label = "cannot read"


class IllegalMoveError(EngineError):
    """The text reads as a move but breaks a rule (C-2 illegal move)."""

    label = "illegal move"


class NotYourTurnError(IllegalMoveError):
    """The seat owes no action in this state."""

    label = "not your turn for"


class GameOverError(IllegalMoveError):
    """The game has ended; nothing more can be played."""

    label = "game over, cannot play"


class PositionError(EngineError):
    """A position string (C-3) or stored state cannot be read."""

    label = "bad position"


class OptionError(EngineError):
    """An unknown game option, a bad option value or an unsupported player count."""

    label = "bad option"


class UnknownGameError(EngineError):
    """No game is registered under that name."""

    label = "unknown game"
