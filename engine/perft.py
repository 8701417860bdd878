"""perft: count the leaf nodes of the move tree, the standard check of a move generator."""

from __future__ import annotations

from engine.core import State
from engine.errors import N_, IllegalMoveError, Reason


def perft(state: State, depth: int) -> int:
    """Move paths of exactly ``depth`` plies from a sequential game's ``state``.

    A game may provide a faster ``fast_perft(depth)``; this is the plain definition.
    """
    fast = getattr(state, "fast_perft", None)
    if fast is not None:
        count: int = fast(depth)
        return count
    if state.simultaneous or state.chance_outcomes():
        raise IllegalMoveError(
            "perft", Reason("perft_sequential", N_("perft counts sequential moves only"))
        )
    return _perft(state, depth)


def _perft(state: State, depth: int) -> int:
    if depth == 0:
        return 1
    if state.is_over:
        return 0
    seat = state.to_act[0]
    actions = state.legal_actions(seat)
    if depth == 1:
        return len(actions)
    return sum(_perft(state.play(seat, action).state, depth - 1) for action in actions)
