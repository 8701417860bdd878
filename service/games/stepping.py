"""How a game takes a step, from its engine state alone: no session, no rows (issue 23).

Live play (:class:`~service.games.aggregate.LockedGame`) and the replay of an exported record
(``records.replay``, the verifier and the import path) step a game only through these
functions, so a change to how a turn is stepped is made here once. Each returns the next
state and what the step told; the live game writes its rows from that, the replay checks the
record against it. A turn is a move (:func:`play`) or every seat's sealed orders (:func:`seal`,
then :func:`resolve`), followed by the dice due (:func:`advance`). Engine errors pass through:
the caller says where they happened.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine import Event, State
from engine.core import Action


@dataclass(frozen=True)
class Played:
    """An alternating move applied: the state before any dice, the move as the engine writes
    it (its step's text) and what the move told."""

    state: State
    text: str
    told: tuple[Event, ...]


@dataclass(frozen=True)
class Sealed:
    """A seat's sealed orders recorded (or replaced) in the state, and their text."""

    state: State
    text: str


@dataclass(frozen=True)
class Revealed:
    """One seat's orders as a sealed turn resolves them; ``default``: the seat sent none."""

    seat: int
    text: str
    default: bool


@dataclass(frozen=True)
class Resolved:
    """A sealed turn resolved: the state before any dice, the orders in ``to_act`` order (each
    one step) and what the turn told (the defaults given, then the engine's events)."""

    state: State
    orders: tuple[Revealed, ...]
    told: tuple[Event, ...]


Roll = Callable[[State], str | None]
"""Where a chance outcome comes from: live play draws the fair dice, a replay takes the
record's next chance step; None (a record that ends) stops rolling."""


def play(state: State, seat: int, move: Action | str) -> Played:
    """Apply ``seat``'s alternating move (its text, or an action the caller parsed)."""
    resolution = state.play(seat, move)
    action = state.parse(seat, move) if isinstance(move, str) else move
    return Played(resolution.state, state.format(action), resolution.events)


def seal(state: State, seat: int, orders: Action | str) -> Sealed:
    """Record (or replace) ``seat``'s sealed orders for this turn."""
    new = state.submit(seat, orders)
    return Sealed(new, new.format(new.orders_of(seat)))


def withdraw(state: State, seat: int) -> State:
    """Take back ``seat``'s sealed orders."""
    return state.withdraw(seat)


def resolve(state: State) -> Resolved:
    """Resolve a sealed turn: every seat's orders, the default for a seat that sent none."""
    orders, told = [], []
    for seat in state.to_act:
        given = state.orders_of(seat)
        text = state.format(state.default_action(seat) if given is None else given)
        if given is None:
            name = state.game.seat_names[seat]
            told.append(
                Event(f"{name} sent no orders and got the default: {text}", "default", seat)
            )
        orders.append(Revealed(seat, text, default=given is None))
    resolution = state.resolve()
    return Resolved(resolution.state, tuple(orders), (*told, *resolution.events))


def roll_due(state: State, roll: Roll) -> tuple[State, list[Event]]:
    """Apply chance outcomes while ``state`` waits for one, with what they told."""
    told: list[Event] = []
    while not state.is_over and state.chance_outcomes():
        outcome = roll(state)
        if outcome is None:
            break
        resolution = state.apply_chance(outcome)
        state, told = resolution.state, [*told, *resolution.events]
    return state, told


def advance(state: State, told: Sequence[Event], roll: Roll) -> tuple[State, list[Event]]:
    """After a step (or at the start, with nothing told): roll the dice due; the state the
    next turn opens at, and everything the turn told, in order."""
    state, rolled = roll_due(state, roll)
    return state, [*told, *rolled]
